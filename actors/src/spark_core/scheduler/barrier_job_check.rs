//! The DAGScheduler's checks of a job's barrier stages when it creates them (Spark 4.0.0's
//! `DAGScheduler.checkBarrierStageWithDynamicAllocation` and `checkBarrierStageWithNumSlots`,
//! their `BarrierJobAllocationFailed` exceptions, read in its jar) and the slot check's retries
//! (`handleJobSubmitted`: `barrierJobIdToNumTasksCheckFailures`, another `JobSubmitted` after
//! `spark.scheduler.barrier.maxConcurrentTasksCheck.interval`). Pure: no clock, no log.

use crate::world::config::BarrierCheckSettings;
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::JobSpec;
use std::collections::BTreeMap;

/// `BarrierJobAllocationFailed`: why a job's barrier stage could not be created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierJobAllocationFailed {
    /// `BarrierJobRunWithDynamicAllocationException`: dynamic allocation is on.
    DynamicAllocation,
    /// `BarrierJobSlotsNumberCheckFailed(requiredConcurrentTasks, maxConcurrentTasks)`: the
    /// stage has more partitions than the active executors have slots.
    SlotsNumber { required: u32, available: u32 },
}

impl BarrierJobAllocationFailed {
    /// The exception's class and message (`BarrierJobAllocationFailed$`'s constants).
    pub fn class(&self) -> &'static str {
        match self {
            Self::DynamicAllocation => {
                "org.apache.spark.scheduler.BarrierJobRunWithDynamicAllocationException"
            }
            Self::SlotsNumber { .. } => {
                "org.apache.spark.scheduler.BarrierJobSlotsNumberCheckFailed"
            }
        }
    }

    pub fn message(&self) -> &'static str {
        match self {
            Self::DynamicAllocation => {
                "[SPARK-24942]: Barrier execution mode does not support dynamic resource allocation for now. You can disable dynamic resource allocation by setting Spark conf \"spark.dynamicAllocation.enabled\" to \"false\"."
            }
            Self::SlotsNumber { .. } => {
                "[SPARK-24819]: Barrier execution mode does not allow run a barrier stage that requires more slots than the total number of slots in the cluster currently. Please init a new cluster with more resources(e.g. CPU, GPU) or repartition the input RDD(s) to reduce the number of slots required to run this barrier stage."
            }
        }
    }
}

/// `createResultStage` / `createShuffleMapStage`'s checks over a job's stages, the final one
/// first (it is created first; its parents after): a barrier stage under dynamic allocation
/// fails, and one with more partitions than `slots` (`sc.maxNumConcurrentTasks`: the active
/// executors' cores / `spark.task.cpus`) fails its slot check.
pub fn check(
    job: &JobSpec,
    dynamic_allocation: bool,
    slots: u32,
) -> Result<(), BarrierJobAllocationFailed> {
    for stage in job.stages.iter().rev().filter(|s| s.barrier) {
        if dynamic_allocation {
            return Err(BarrierJobAllocationFailed::DynamicAllocation);
        }
        let required = stage.tasks.len() as u32;
        if required > slots {
            return Err(BarrierJobAllocationFailed::SlotsNumber {
                required,
                available: slots,
            });
        }
    }
    Ok(())
}

/// A job whose slot check failed, waiting for its next `JobSubmitted`.
pub struct WaitingBarrierJob {
    pub job: JobSpec,
    pub waiter: RemoteRef,
}

/// What a failed slot check does (`handleJobSubmitted`'s catch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotCheckFailed {
    /// `Will retry up to {left} more times`: submit again after `interval_ms`.
    Retry { left: u32, interval_ms: u64 },
    /// Past `maxFailures`: the job fails with the exception (`listener.jobFailed(e)`; no
    /// JobStart or JobEnd is posted), after the same warning (`left` is then 0).
    Fail { left: u32 },
}

/// `barrierJobIdToNumTasksCheckFailures` and the jobs waiting for their next check.
#[derive(Default)]
pub struct BarrierJobChecks {
    pub settings: BarrierCheckSettings,
    failures: BTreeMap<u32, u32>,
    pub waiting: BTreeMap<u32, WaitingBarrierJob>,
}

impl BarrierJobChecks {
    /// Another failed slot check of `job_id`: its count, and whether it is retried.
    pub fn slot_check_failed(&mut self, job_id: u32) -> SlotCheckFailed {
        let n = self.failures.entry(job_id).or_insert(0);
        *n += 1;
        let max = self.settings.max_failures;
        let left = (max + 1).saturating_sub(*n);
        if *n <= max {
            SlotCheckFailed::Retry {
                left,
                interval_ms: self.settings.interval_ms,
            }
        } else {
            self.failures.remove(&job_id);
            SlotCheckFailed::Fail { left }
        }
    }

    /// The job's stages were created: its count is cleared.
    pub fn submitted(&mut self, job_id: u32) {
        self.failures.remove(&job_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spark_core::scheduler::suite_tests;
    use sparkyard_messages::task::StageSpec;

    fn job(barrier_tasks: Option<u32>) -> JobSpec {
        let stage = |n: u32, barrier| StageSpec {
            barrier,
            ..suite_tests::stage(
                "MapPartitionsRDD[1] at barrier at X.scala:1",
                n as usize,
                Vec::new(),
            )
        };
        let mut stages = vec![stage(8, false)];
        if let Some(n) = barrier_tasks {
            stages.push(stage(n, true));
        }
        JobSpec {
            call_site: "collect at X.scala:2".into(),
            stages,
        }
    }

    // DAGSchedulerSuite / BarrierStageOnSubmittedSuite "submit a barrier ResultStage that
    // requires more slots than current total under local-cluster mode": 4 partitions, 2
    // slots; and "submit a barrier stage with dynamic resource allocation enabled". A job
    // without barrier stages is never checked.
    #[test]
    fn a_barrier_stage_needs_its_slots_and_no_dynamic_allocation() {
        assert_eq!(check(&job(None), true, 0), Ok(()));
        assert_eq!(check(&job(Some(2)), false, 2), Ok(()));
        assert_eq!(
            check(&job(Some(4)), false, 2),
            Err(BarrierJobAllocationFailed::SlotsNumber {
                required: 4,
                available: 2
            })
        );
        assert_eq!(
            check(&job(Some(1)), true, 8),
            Err(BarrierJobAllocationFailed::DynamicAllocation)
        );
    }

    // handleJobSubmitted: `numCheckFailures <= maxFailureNumTasksCheck` retries, the warning
    // saying `maxFailureNumTasksCheck - numCheckFailures + 1` more; the 41st failure (of 40
    // allowed) fails the job; a check that passes clears the count.
    #[test]
    fn the_slot_check_retries_max_failures_times_then_fails_the_job() {
        let mut c = BarrierJobChecks::default();
        assert_eq!(
            c.slot_check_failed(0),
            SlotCheckFailed::Retry {
                left: 40,
                interval_ms: 15_000
            }
        );
        for _ in 1..40 {
            assert!(matches!(
                c.slot_check_failed(0),
                SlotCheckFailed::Retry { .. }
            ));
        }
        assert_eq!(c.slot_check_failed(0), SlotCheckFailed::Fail { left: 0 });
        assert!(matches!(
            c.slot_check_failed(0),
            SlotCheckFailed::Retry { left: 40, .. }
        ));
        c.submitted(0);
        assert!(matches!(
            c.slot_check_failed(0),
            SlotCheckFailed::Retry { left: 40, .. }
        ));
    }
}
