//! The run's record, kept by one typed observer: roles report what happened to the simulator
//! (`SimContext::observe`) as `RunEvent`s instead of writing counters, and `RunCounters::apply`
//! turns them into the recovery summary's figures. A hook (the scale bench's phase probe) can
//! watch the same events. Nothing here is Spark's: it is the simulator's own bookkeeping.

use sparkyard_messages::ids::{ApplicationId, ContainerId, ExecutorId};
use std::collections::BTreeMap;

/// What a role reports to the run's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEvent {
    /// The RM started AM attempt `attempt`.
    AmAttemptStarted { attempt: u32 },
    /// The AM of `attempt` runs in `container` (the driver's stdout is that container's).
    AmStarted {
        attempt: u32,
        container: ContainerId,
    },
    /// The AM of `attempt` exits with its own exit code.
    AmExited { attempt: u32, exit_code: i32 },
    /// YARN reported the AM container of `attempt` completed with `exit_status` (what a
    /// killed AM has instead of an exit code of its own).
    AmContainerCompleted { attempt: u32, exit_status: i32 },
    /// The RM allocated the AM container of `attempt` (the application leaves ACCEPTED).
    AmContainerAllocated { attempt: u32 },
    /// The Client submitted the application to the ResourceManager under this id.
    ApplicationSubmitted(ApplicationId),
    /// The YarnAllocator launched an executor container.
    ExecutorLaunched { attempt: u32, executor: ExecutorId },
    /// The DriverEndpoint registered an executor.
    ExecutorRegistered { attempt: u32, executor: ExecutorId },
    /// The DriverEndpoint handled an executor's `LaunchedExecutor` (its cores are offered).
    ExecutorReady { executor: ExecutorId },
    /// The YarnAllocator processed a completed executor container (not one it released), or
    /// the driver timed out an executor's heartbeats: YARN's and the heartbeat receiver's fact,
    /// registered executor or not. Spark's own "executor lost" is `ExecutorRemoved` with
    /// [`RemovalCause::Lost`] or `FetchFailedFrom`.
    ExecutorLost(LostExecutor),
    /// The DriverEndpoint removed a registered executor (`CoarseGrainedSchedulerBackend.
    /// removeExecutor`), with its cause.
    ExecutorRemoved(RemovedExecutor),
    /// A task's fetch from this executor's block manager failed: the DAGScheduler declares the
    /// executor lost (`removeExecutorAndUnregisterOutputs`: `Executor lost: N (epoch E)`).
    FetchFailedFrom { attempt: u32, executor: ExecutorId },
    /// The YarnAllocator's executor target of `attempt` is `target`: its initial target, then
    /// each change the driver asks for (`requestTotalExecutorsWithPreferredLocalities`; under
    /// dynamic allocation the ExecutorAllocationManager's `numExecutorsTarget`).
    ExecutorTargetChanged { attempt: u32, target: u32 },
    /// The YarnAllocator counted a failure toward `spark.executor.maxNumFailures`.
    ExecutorFailureCounted,
    /// The ResourceManager refused an allocate call of `attempt`'s executor asks
    /// (`SchedulerUtils.normalizeAndValidateRequest` threw `exception`).
    ExecutorAsksRefused {
        attempt: u32,
        exception: &'static str,
    },
    /// A job was submitted to the DAGScheduler with this many tasks.
    JobSubmitted { tasks: u64 },
    /// The driver of `attempt` starts its job `job` (the index in its program).
    JobStarted { attempt: u32, job: u32 },
    /// The driver of `attempt` saw its job `job` succeed.
    JobSucceeded { attempt: u32, job: u32 },
    /// The driver of `attempt` saw its job `job` fail (aborted: `JobFailed`).
    JobFailed { attempt: u32, job: u32 },
    /// The DriverEndpoint launched this many tasks.
    TasksLaunched { count: u64 },
    /// A task finished successfully.
    TaskFinished,
    /// This many task attempts failed (a TaskEnd with a failure reason; not a kill).
    TasksFailed { count: u64 },
    /// A task attempt was killed (a TaskEnd with `TaskKilled`).
    TaskKilled,
    /// The driver of `attempt` created its SparkContext (where it posts ApplicationStart).
    SparkContextStarted { attempt: u32 },
    /// The driver of `attempt` stopped its SparkContext (where it posts ApplicationEnd).
    SparkContextStopped { attempt: u32 },
    /// The schedulers re-ran work to recover from a lost executor or shuffle output.
    Recovery(Recovery),
    /// A NodeManager started `container`'s process with these GPUs (minor numbers) assigned
    /// by its `GpuResourceAllocator` (only reported for a container that got some).
    ContainerGpus {
        container: ContainerId,
        minors: Vec<u32>,
    },
    /// An attempt's SparkContext found its driver's custom resources
    /// (`spark.driver.resource.*`, `ResourceUtils.getOrDiscoverAllResources`).
    DriverResources {
        attempt: u32,
        resources: Vec<sparkyard_messages::listener::ResourceInformation>,
    },
}

/// Work the schedulers run again (Spark's recovery paths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// `submitMissingTasks` for a stage attempt after the first (`makeNewStageAttempt`): a
    /// stage resubmitted after a fetch failure, or a map stage whose outputs went missing while
    /// it ran; `tasks` is the partitions it computes again.
    StageResubmitted {
        stage: u32,
        stage_attempt: u32,
        tasks: u32,
    },
    /// `Resubmitted` (`handleResubmittedFailure`): a finished map task's output was lost with
    /// its executor and its partition is pending again.
    MapOutputResubmitted { stage: u32, partition: u32 },
    /// Running tasks that failed with their lost executor (`ExecutorLostFailure`) and go back
    /// to their task sets (`TaskSetManager.executorLost`).
    RunningTasksLost { executor: ExecutorId, tasks: u32 },
}

/// An executor whose container completed, as the YarnAllocator classified it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostExecutor {
    pub executor: ExecutorId,
    pub attempt: u32,
    /// The container's exit status; `None` when the driver removed the executor before YARN
    /// reported its container (a heartbeat timeout: the driver kills it, the allocator's
    /// completion is then an explicit termination, not a loss).
    pub exit_status: Option<i32>,
    /// Spark's loss reason text (`ExecutorLossReason`).
    pub reason: String,
    /// Whether Spark counted it toward `spark.executor.maxNumFailures` (a "bad node" exit).
    pub counted_as_failure: bool,
}

/// Why the driver's backend removed an executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RemovalCause {
    /// Any loss reason but the driver's own kill or a decommission (`ExecutorExited`,
    /// `ExecutorProcessLost`): Spark logs `Lost executor N on host: reason`.
    Lost,
    /// `ExecutorKilled` by dynamic allocation (its idle timeout: `Executor N on host killed by
    /// driver.`).
    Idle,
    /// `ExecutorKilled` without dynamic allocation (the driver's own kill).
    KilledByDriver,
    /// Decommissioned (`ExecutorDecommission`, or killed after its decommission timeout).
    Decommissioned,
}

impl RemovalCause {
    /// The words of the summary.
    pub fn words(self) -> &'static str {
        match self {
            RemovalCause::Lost => "lost",
            RemovalCause::Idle => "removed as idle",
            RemovalCause::KilledByDriver => "killed by the driver",
            RemovalCause::Decommissioned => "decommissioned",
        }
    }
}

/// An executor the DriverEndpoint removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedExecutor {
    pub attempt: u32,
    pub executor: ExecutorId,
    pub cause: RemovalCause,
    /// Spark's loss reason text (`ExecutorLossReason.toString`).
    pub reason: String,
}

/// Which part of Spark declared an executor lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossDeclaredBy {
    /// The DriverEndpoint removed it for a loss reason (`Lost executor N on host: reason`).
    Backend,
    /// The DAGScheduler, after a fetch from it failed (`Executor lost: N (epoch E)`), before
    /// any removal.
    FetchFailure,
}

/// An executor Spark declared lost (the summary's "lost").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorLoss {
    pub executor: ExecutorId,
    pub attempt: u32,
    pub declared_by: LossDeclaredBy,
    /// Spark's loss reason text.
    pub reason: String,
    /// Its container's exit status, once the AM processed YARN's completion.
    pub exit_status: Option<i32>,
    /// Whether the AM counted its exit toward `spark.executor.maxNumFailures`.
    pub counted_as_failure: bool,
}

/// The jobs of the newest driver: what the end-of-run check compares with the outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverJobs {
    /// The AM attempt whose driver started them.
    pub attempt: u32,
    pub started: u32,
    pub succeeded: u32,
}

/// Counters for the end-of-run summary (what happened, not how it is shown).
#[derive(Clone, Debug, Default)]
pub struct RunCounters {
    /// The application the Client submitted, if it got that far.
    pub application_id: Option<ApplicationId>,
    pub executors_launched: u32,
    pub executors_registered: u32,
    /// Every executor Spark declared lost, once per (attempt, executor), in loss order: the
    /// DriverEndpoint removed it for a loss ([`RemovalCause::Lost`]: `Lost executor N on host`)
    /// or a fetch from it failed (the DAGScheduler's `Executor lost: N`), whichever came first,
    /// whether or not YARN reported its container before the application ended. The exit status
    /// and `counted_as_failure` come from YARN's completion when the AM processed it.
    pub executors_lost: Vec<ExecutorLoss>,
    /// Where each (attempt, executor) is in `executors_lost`.
    lost_index: BTreeMap<(u32, ExecutorId), usize>,
    /// Executor containers that ended without being released, as the YarnAllocator processed
    /// them (registered executors or not), and heartbeat timeouts: once per (attempt, executor).
    pub executor_exits: Vec<LostExecutor>,
    /// Where each (attempt, executor) is in `executor_exits`.
    exit_index: BTreeMap<(u32, ExecutorId), usize>,
    /// Executors the driver removed on purpose (idle, killed, decommissioned), in order.
    pub executors_removed: Vec<RemovedExecutor>,
    pub executor_failures_counted: u32,
    pub am_attempts: u32,
    /// Tasks of every job submitted so far (the progress bar's total).
    pub tasks_total: u64,
    pub tasks_launched: u64,
    pub tasks_finished: u64,
    pub tasks_failed: u64,
    pub tasks_killed: u64,
    /// Each AM attempt's exit: the AM's own exit code, replaced by the container's exit status
    /// when YARN reports it (a killed AM has only the latter).
    pub am_exit_codes: BTreeMap<u32, i32>,
    /// The last driver's jobs.
    pub driver_jobs: DriverJobs,
    /// The driver program's stdout key (its container id), per attempt.
    pub driver_containers: Vec<String>,
    /// A YarnAllocator was created (it set its first executor target).
    pub executor_target_set: bool,
    /// The exception class of the last allocate call the ResourceManager refused.
    pub executor_asks_refused: Option<&'static str>,
    /// The GPUs (minor numbers) each container's process was started with, for the
    /// containers that got some.
    pub container_gpus: BTreeMap<ContainerId, Vec<u32>>,
    /// The custom resources each attempt's driver found (only attempts whose driver asked for
    /// some and found them).
    pub driver_resources: BTreeMap<u32, Vec<sparkyard_messages::listener::ResourceInformation>>,
}

impl RunCounters {
    /// Folds one reported event into the counters.
    pub fn apply(&mut self, event: &RunEvent) {
        match event {
            RunEvent::AmAttemptStarted { attempt } => self.am_attempts = *attempt,
            RunEvent::AmStarted { container, .. } => {
                self.driver_containers.push(container.to_string())
            }
            RunEvent::AmExited { attempt, exit_code } => {
                self.am_exit_codes.insert(*attempt, *exit_code);
            }
            RunEvent::AmContainerCompleted {
                attempt,
                exit_status,
            } => {
                self.am_exit_codes.insert(*attempt, *exit_status);
            }
            RunEvent::ApplicationSubmitted(app) => self.application_id = Some(*app),
            RunEvent::ExecutorLaunched { .. } => self.executors_launched += 1,
            RunEvent::ExecutorRegistered { .. } => self.executors_registered += 1,
            RunEvent::ExecutorReady { .. } => {}
            RunEvent::ExecutorTargetChanged { .. } => self.executor_target_set = true,
            RunEvent::ExecutorAsksRefused { exception, .. } => {
                self.executor_asks_refused = Some(exception)
            }
            RunEvent::ExecutorLost(lost) => self.executor_exited(lost),
            RunEvent::ExecutorRemoved(removed) => self.executor_removed(removed),
            RunEvent::FetchFailedFrom { attempt, executor } => {
                self.fetch_failed_from(*attempt, *executor)
            }
            RunEvent::ExecutorFailureCounted => self.executor_failures_counted += 1,
            RunEvent::JobSubmitted { tasks } => self.tasks_total += tasks,
            RunEvent::JobStarted { attempt, .. } => self.start_job(*attempt),
            RunEvent::JobSucceeded { .. } => self.driver_jobs.succeeded += 1,
            RunEvent::JobFailed { .. } => {}
            RunEvent::TasksLaunched { count } => self.tasks_launched += count,
            RunEvent::TaskFinished => self.tasks_finished += 1,
            RunEvent::TasksFailed { count } => self.tasks_failed += count,
            RunEvent::TaskKilled => self.tasks_killed += 1,
            RunEvent::ContainerGpus { container, minors } => {
                self.container_gpus.insert(*container, minors.clone());
            }
            RunEvent::DriverResources { attempt, resources } => {
                self.driver_resources.insert(*attempt, resources.clone());
            }
            RunEvent::SparkContextStarted { .. }
            | RunEvent::SparkContextStopped { .. }
            | RunEvent::AmContainerAllocated { .. }
            | RunEvent::Recovery(_) => {}
        }
    }

    /// Launched task attempts that never ended: running on an executor (or under a driver)
    /// that died before Spark heard of their end, when the run ended. Every launched attempt is
    /// finished, failed, killed or one of these.
    pub fn tasks_lost(&self) -> u64 {
        self.tasks_launched.saturating_sub(
            self.tasks_finished
                .saturating_add(self.tasks_failed)
                .saturating_add(self.tasks_killed),
        )
    }

    /// How many executors the driver removed for `cause`.
    pub fn removed(&self, cause: RemovalCause) -> usize {
        self.executors_removed
            .iter()
            .filter(|r| r.cause == cause)
            .count()
    }

    /// One exit per container: the driver's heartbeat removal and the container's later exit
    /// are the same; the exit fills in the exit status (here and in a Spark-declared loss).
    fn executor_exited(&mut self, lost: &LostExecutor) {
        let key = (lost.attempt, lost.executor);
        match self.exit_index.get(&key) {
            Some(&i) => {
                let known = &mut self.executor_exits[i];
                known.exit_status = known.exit_status.or(lost.exit_status);
                known.counted_as_failure |= lost.counted_as_failure;
            }
            None => {
                self.exit_index.insert(key, self.executor_exits.len());
                self.executor_exits.push(lost.clone());
            }
        }
        if let Some(&i) = self.lost_index.get(&key) {
            let known = &mut self.executors_lost[i];
            known.exit_status = known.exit_status.or(lost.exit_status);
            known.counted_as_failure |= lost.counted_as_failure;
        }
    }

    /// The driver removed an executor: a loss, or a removal on purpose.
    fn executor_removed(&mut self, removed: &RemovedExecutor) {
        match removed.cause {
            RemovalCause::Lost => self.declare_lost(
                removed.attempt,
                removed.executor,
                LossDeclaredBy::Backend,
                &removed.reason,
            ),
            _ => self.executors_removed.push(removed.clone()),
        }
    }

    /// A fetch from an executor failed: the DAGScheduler declares it lost, unless the driver
    /// had already removed it on purpose (its DAGScheduler "Executor lost" came with that
    /// removal, and the failed fetch only finds it gone).
    fn fetch_failed_from(&mut self, attempt: u32, executor: ExecutorId) {
        let removed = self
            .executors_removed
            .iter()
            .any(|r| (r.attempt, r.executor) == (attempt, executor));
        if !removed {
            let why = "a fetch of its shuffle output failed";
            self.declare_lost(attempt, executor, LossDeclaredBy::FetchFailure, why);
        }
    }

    /// Spark declared an executor lost (once per attempt and executor; YARN's completion, if the
    /// AM processed it already, gives its exit status).
    fn declare_lost(
        &mut self,
        attempt: u32,
        executor: ExecutorId,
        declared_by: LossDeclaredBy,
        reason: &str,
    ) {
        let key = (attempt, executor);
        if self.lost_index.contains_key(&key) {
            return;
        }
        let exit = self.exit_index.get(&key).map(|&i| &self.executor_exits[i]);
        let lost = ExecutorLoss {
            executor,
            attempt,
            declared_by,
            exit_status: exit.and_then(|e| e.exit_status),
            reason: reason.to_string(),
            counted_as_failure: exit.is_some_and(|e| e.counted_as_failure),
        };
        self.lost_index.insert(key, self.executors_lost.len());
        self.executors_lost.push(lost);
    }

    /// A new attempt's driver starts counting its jobs afresh.
    fn start_job(&mut self, attempt: u32) {
        let j = &mut self.driver_jobs;
        if j.attempt != attempt {
            *j = DriverJobs {
                attempt,
                started: 0,
                succeeded: 0,
            };
        }
        j.started += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_attempts_driver_counts_its_jobs_afresh() {
        let mut c = RunCounters::default();
        for e in [
            RunEvent::JobStarted { attempt: 1, job: 0 },
            RunEvent::JobSucceeded { attempt: 1, job: 0 },
            RunEvent::JobStarted { attempt: 1, job: 1 },
            RunEvent::JobStarted { attempt: 2, job: 0 },
        ] {
            c.apply(&e);
        }
        let expected = DriverJobs {
            attempt: 2,
            started: 1,
            succeeded: 0,
        };
        assert_eq!(c.driver_jobs, expected);
    }

    #[test]
    fn the_container_status_replaces_the_ams_own_exit_code() {
        let mut c = RunCounters::default();
        c.apply(&RunEvent::AmExited {
            attempt: 1,
            exit_code: 0,
        });
        c.apply(&RunEvent::AmContainerCompleted {
            attempt: 1,
            exit_status: 137,
        });
        c.apply(&RunEvent::AmExited {
            attempt: 2,
            exit_code: 11,
        });
        assert_eq!(c.am_exit_codes, BTreeMap::from([(1, 137), (2, 11)]));
    }

    /// Spark's declaration makes a loss, once, whichever comes first; YARN's later completion
    /// fills in its exit status. A removal on purpose is no loss, not even when a fetch from the
    /// removed executor fails afterwards.
    #[test]
    fn a_loss_is_sparks_declaration_and_a_removal_on_purpose_is_none() {
        let mut c = RunCounters::default();
        let removed = |executor: u32, cause: RemovalCause| {
            RunEvent::ExecutorRemoved(RemovedExecutor {
                attempt: 1,
                executor: ExecutorId(executor),
                cause,
                reason: "r".into(),
            })
        };
        let fetch = |executor: u32| RunEvent::FetchFailedFrom {
            attempt: 1,
            executor: ExecutorId(executor),
        };
        for e in [
            fetch(1),
            removed(1, RemovalCause::Lost),
            removed(2, RemovalCause::Idle),
            fetch(2),
            removed(3, RemovalCause::Decommissioned),
            removed(4, RemovalCause::Lost),
            RunEvent::ExecutorLost(LostExecutor {
                executor: ExecutorId(4),
                attempt: 1,
                exit_status: Some(-100),
                reason: "lost node".into(),
                counted_as_failure: false,
            }),
        ] {
            c.apply(&e);
        }
        let lost: Vec<(u32, LossDeclaredBy, Option<i32>)> = c
            .executors_lost
            .iter()
            .map(|l| (l.executor.0, l.declared_by, l.exit_status))
            .collect();
        assert_eq!(
            lost,
            [
                (1, LossDeclaredBy::FetchFailure, None),
                (4, LossDeclaredBy::Backend, Some(-100))
            ]
        );
        assert_eq!(
            (
                c.removed(RemovalCause::Idle),
                c.removed(RemovalCause::Decommissioned)
            ),
            (1, 1)
        );
        assert_eq!(c.executor_exits.len(), 1);
    }

    #[test]
    fn tasks_and_executors_add_up() {
        let mut c = RunCounters::default();
        let e1 = ExecutorId(1);
        for e in [
            RunEvent::ExecutorLaunched {
                attempt: 1,
                executor: e1,
            },
            RunEvent::ExecutorRegistered {
                attempt: 1,
                executor: e1,
            },
            RunEvent::JobSubmitted { tasks: 10 },
            RunEvent::TasksLaunched { count: 4 },
            RunEvent::TaskFinished,
            RunEvent::TasksFailed { count: 2 },
            RunEvent::TaskKilled,
            RunEvent::ExecutorFailureCounted,
        ] {
            c.apply(&e);
        }
        assert_eq!(
            (
                c.executors_launched,
                c.executors_registered,
                c.executor_failures_counted
            ),
            (1, 1, 1)
        );
        assert_eq!(
            (
                c.tasks_total,
                c.tasks_launched,
                c.tasks_finished,
                c.tasks_failed
            ),
            (10, 4, 1, 2)
        );
        assert_eq!((c.tasks_killed, c.tasks_lost()), (1, 0));
    }
}
