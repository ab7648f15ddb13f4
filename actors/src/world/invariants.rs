//! Spark's and YARN's invariants, checked while a run goes. Each check is a pure function (so a
//! test can show it fails on bad state); a violation is recorded with its name, never a panic,
//! so a sweep can report every one with the seed that reproduces it.
//!
//! The "at most once" checks do not take the role's word for it: the checker keeps its own
//! count of each event (`Ledger`), and a check compares that count with what the role's own
//! table says, so either side's bookkeeping going wrong breaks it.

use sparkyard_messages::ids::ContainerId;
use sparkyard_messages::records::Resource;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// The invariants, by name.
pub mod name {
    pub const EXECUTOR_REGISTERS_ONCE: &str = "executor-registers-once-per-attempt";
    pub const TOTAL_CORES: &str = "total-core-count-is-sum-of-executor-cores";
    pub const FREE_CORES: &str = "free-cores-within-executor-cores";
    pub const NODE_CAPACITY: &str = "node-allocation-within-capacity";
    pub const NODE_ACCOUNTED: &str = "node-allocation-is-its-live-and-held-containers";
    pub const CONTAINER_COMPLETES_ONCE: &str = "container-completes-at-most-once";
    pub const TASK_SUCCEEDS_ONCE: &str = "task-index-succeeds-at-most-once-per-stage-attempt";
    pub const SUCCEEDED_RAN_ALL_TASKS: &str = "succeeded-application-ran-every-task";
    pub const TERMINATES: &str = "application-terminates-before-deadline";
    /// A panic inside the simulation (recorded by the runner).
    pub const NO_PANIC: &str = "simulation-does-not-panic";
    pub const EXIT_CODE_MATCHES: &str = "client-exit-code-matches-final-status";
    pub const FAILURES_COUNTED: &str = "executor-failures-counted-by-classification";
    pub const ATTEMPTS_BOUNDED: &str = "am-attempts-within-maximum";
    pub const ALLOCATION_TARGET_BOUNDED: &str = "dynamic-allocation-target-within-min-max";
    pub const NO_SHUFFLE_EXECUTOR_KILLED_IDLE: &str =
        "no-executor-with-live-shuffle-data-killed-for-idleness";
    pub const MAP_OUTPUT_REGISTERED_ONCE: &str =
        "map-output-registered-at-most-once-per-stage-attempt";
    pub const NO_STAGE_WITH_MISSING_PARENTS: &str = "no-stage-runs-with-missing-parents";
    pub const NO_TASK_WHERE_EXCLUDED: &str = "no-task-launched-where-excluded";
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub detail: String,
    pub time_ms: u64,
    /// The application it is about, by place in submission order (0 for the first); `None`:
    /// the cluster's (a NodeManager's capacity, the RM's tables).
    pub application: Option<usize>,
}

/// The run's violations, and the checker's own counts of the events the "at most once"
/// invariants are about.
#[derive(Default)]
pub struct Violations {
    /// Shared by the cluster's checker and each application's (one list, in the order found).
    found: std::rc::Rc<RefCell<Vec<Violation>>>,
    ledger: RefCell<Ledger>,
    /// Whose checker this is: an application's (its place in submission order) or the
    /// cluster's (`None`).
    application: Option<usize>,
}

impl Violations {
    /// A checker with a ledger of its own (one application's registrations and task outputs:
    /// its executor ids and stages are its own) whose violations join this one's list.
    pub fn for_application(&self, index: usize) -> Violations {
        Violations {
            found: self.found.clone(),
            ledger: Default::default(),
            application: Some(index),
        }
    }
}

/// The checker's own counts, kept apart from every role's tables.
#[derive(Default)]
struct Ledger {
    /// Registrations accepted by a driver, by (AM attempt, executor id).
    registrations: BTreeMap<(u32, u32), u32>,
    /// Completions the RM handled, by container.
    completions: BTreeMap<ContainerId, u32>,
    /// Successes whose output is still live, per stage attempt in the order first reported:
    /// searched from the newest, which nearly every task output names (a map searched per
    /// task was 1.5 % of a 100,000-task run's instructions).
    successes: Vec<StageAttemptSuccesses>,
    /// Map outputs registered, by (AM attempt, stage, stage attempt, map index).
    map_outputs: std::collections::BTreeSet<(u32, u32, u32, u32)>,
}

/// The live successes of one stage attempt in one AM attempt, one count per task index.
struct StageAttemptSuccesses {
    am_attempt: u32,
    stage: u32,
    stage_attempt: u32,
    live: Vec<u32>,
}

impl Ledger {
    /// The counts of `stage`.`stage_attempt` in AM attempt `am_attempt`, made on first use.
    fn successes_of(&mut self, am_attempt: u32, stage: u32, stage_attempt: u32) -> &mut Vec<u32> {
        let found = self.successes.iter().rposition(|s| {
            (s.am_attempt, s.stage, s.stage_attempt) == (am_attempt, stage, stage_attempt)
        });
        let at = found.unwrap_or_else(|| {
            self.successes.push(StageAttemptSuccesses {
                am_attempt,
                stage,
                stage_attempt,
                live: Vec::new(),
            });
            self.successes.len() - 1
        });
        &mut self.successes[at].live
    }
}

/// What the scheduler reports about a task index's output (the checker counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskOutput {
    /// The TaskSetManager accepted a success; `already` is what its `successful` table said.
    Succeeded {
        stage: u32,
        stage_attempt: u32,
        index: u32,
        already: bool,
    },
    /// The output was lost with its executor and the index resubmitted (it may succeed again).
    Lost {
        stage: u32,
        stage_attempt: u32,
        index: u32,
    },
    /// The DAGScheduler registered the output of task `map_index` (the index in its stage
    /// attempt's task set) with the MapOutputTracker.
    MapOutputRegistered {
        stage: u32,
        stage_attempt: u32,
        map_index: u32,
    },
    /// A stage attempt was submitted while `missing_parents` of its parents' outputs were not
    /// all registered.
    StageSubmitted {
        stage: u32,
        stage_attempt: u32,
        missing_parents: u32,
    },
}

impl Violations {
    /// Records `check`'s failure, if any, under `invariant`.
    pub fn check(&self, invariant: &'static str, check: Result<(), String>) {
        if let Err(detail) = check {
            let time_ms = crate::kernel::clock::now_ms();
            self.found.borrow_mut().push(Violation {
                invariant,
                detail,
                time_ms,
                application: self.application,
            });
        }
    }

    pub fn take(&self) -> Vec<Violation> {
        std::mem::take(&mut self.found.borrow_mut())
    }

    /// A driver accepted executor `executor`'s registration in AM attempt `attempt`;
    /// `driver_knew_it`: whether the driver's own table already had the id.
    pub fn executor_registered(&self, attempt: u32, executor: u32, driver_knew_it: bool) {
        let n = {
            let mut l = self.ledger.borrow_mut();
            let n = l.registrations.entry((attempt, executor)).or_default();
            *n += 1;
            *n
        };
        self.check(
            name::EXECUTOR_REGISTERS_ONCE,
            registers_once(attempt, executor, n, driver_knew_it),
        );
    }

    /// The RM handled `container`'s completion; `rm_knew_it`: whether its own table had it.
    pub fn container_completed(&self, container: ContainerId, rm_knew_it: bool) {
        let n = {
            let mut l = self.ledger.borrow_mut();
            let n = l.completions.entry(container).or_default();
            *n += 1;
            *n
        };
        self.check(
            name::CONTAINER_COMPLETES_ONCE,
            completes_once(&container.to_string(), n, rm_knew_it),
        );
    }

    /// The scheduler of AM attempt `attempt` reports a task output.
    pub fn task_output(&self, attempt: u32, output: TaskOutput) {
        let (stage, stage_attempt, index, already) = match output {
            TaskOutput::MapOutputRegistered {
                stage,
                stage_attempt,
                map_index,
            } => {
                let first = self.ledger.borrow_mut().map_outputs.insert((
                    attempt,
                    stage,
                    stage_attempt,
                    map_index,
                ));
                let check = registered_once(stage, stage_attempt, map_index, first);
                return self.check(name::MAP_OUTPUT_REGISTERED_ONCE, check);
            }
            TaskOutput::StageSubmitted {
                stage,
                stage_attempt,
                missing_parents,
            } => {
                let check = parents_available(stage, stage_attempt, missing_parents);
                return self.check(name::NO_STAGE_WITH_MISSING_PARENTS, check);
            }
            TaskOutput::Succeeded {
                stage,
                stage_attempt,
                index,
                already,
            } => (stage, stage_attempt, index, Some(already)),
            TaskOutput::Lost {
                stage,
                stage_attempt,
                index,
            } => {
                // A lost map output may be registered again by the index's next run.
                self.ledger.borrow_mut().map_outputs.remove(&(
                    attempt,
                    stage,
                    stage_attempt,
                    index,
                ));
                (stage, stage_attempt, index, None)
            }
        };
        let live = {
            let mut l = self.ledger.borrow_mut();
            let counts = l.successes_of(attempt, stage, stage_attempt);
            let i = index as usize;
            if counts.len() <= i {
                counts.resize(i + 1, 0);
            }
            match already {
                Some(_) => counts[i] += 1,
                None => counts[i] = counts[i].saturating_sub(1),
            }
            counts[i]
        };
        if let Some(already) = already {
            self.check(
                name::TASK_SUCCEEDS_ONCE,
                succeeds_once(stage, stage_attempt, index, live, already),
            );
        }
    }
}

/// A map task's output is registered once per stage attempt (DAGScheduler.handleTaskCompletion
/// registers it only for the success its TaskSetManager accepted).
pub fn registered_once(
    stage: u32,
    stage_attempt: u32,
    map_index: u32,
    first: bool,
) -> Result<(), String> {
    if first {
        return Ok(());
    }
    Err(format!(
        "map output {map_index} of stage {stage}.{stage_attempt} registered a second time"
    ))
}

/// DAGScheduler.submitStage submits a stage only when getMissingParentStages is empty.
pub fn parents_available(
    stage: u32,
    stage_attempt: u32,
    missing_parents: u32,
) -> Result<(), String> {
    if missing_parents == 0 {
        return Ok(());
    }
    Err(format!(
        "stage {stage}.{stage_attempt} submitted with {missing_parents} parent stage(s) missing outputs"
    ))
}

/// TaskSchedulerImpl.resourceOffers drops the offers of executors and nodes the HealthTracker
/// excludes, and TaskSetManager.resourceOffer skips those its TaskSetExcludelist excludes for the
/// stage attempt or the task: no task is launched where it is excluded at that moment.
/// `exclusion` names what excluded the place the task was launched on.
pub fn launched_where_allowed(
    task: &str,
    executor: u32,
    host: &str,
    exclusion: Option<&str>,
) -> Result<(), String> {
    match exclusion {
        None => Ok(()),
        Some(why) => Err(format!(
            "{task} was launched on executor {executor} ({host}): {why}"
        )),
    }
}

/// An executor id registers at most once with one driver: the checker's count of its
/// registrations in the attempt is 1, and the driver's table did not know the id before.
pub fn registers_once(
    attempt: u32,
    executor: u32,
    registrations: u32,
    driver_knew_it: bool,
) -> Result<(), String> {
    if registrations > 1 {
        return Err(format!(
            "executor {executor} registered {registrations} times in attempt {attempt}"
        ));
    }
    if driver_knew_it {
        return Err(format!(
            "the driver's table already had executor {executor} at its first registration in attempt {attempt}"
        ));
    }
    Ok(())
}

/// `totalCoreCount` equals the sum of the registered executors' cores.
pub fn total_cores(total: u32, sum: u32) -> Result<(), String> {
    if total != sum {
        return Err(format!(
            "totalCoreCount is {total} but the registered executors have {sum} cores"
        ));
    }
    Ok(())
}

/// Dynamic allocation's target stays within `[minExecutors, maxExecutors]`.
pub fn allocation_target(target: u32, min: u32, max: u32) -> Result<(), String> {
    if target < min || target > max {
        return Err(format!(
            "the dynamic allocation target is {target}, outside [{min}, {max}]"
        ));
    }
    Ok(())
}

/// With shuffle tracking, an executor killed for idleness holds no live shuffle data.
pub fn idle_kill_without_shuffle_data(executor: u32, holds_shuffle: bool) -> Result<(), String> {
    if holds_shuffle {
        return Err(format!(
            "executor {executor} was killed for idleness while it holds live shuffle data"
        ));
    }
    Ok(())
}

/// `freeCores` stays within 0 and the executor's cores (unsigned: only the upper bound can break).
pub fn free_cores(executor: u32, free: u32, cores: u32) -> Result<(), String> {
    if free > cores {
        return Err(format!(
            "executor {executor} has {free} free cores of {cores}"
        ));
    }
    Ok(())
}

/// A node's allocated memory, vcores and GPUs never exceed its capacity.
pub fn node_capacity(host: &str, used: Resource, total: Resource) -> Result<(), String> {
    if used.memory_mb > total.memory_mb || used.vcores > total.vcores || used.gpus > total.gpus {
        return Err(format!("{host} has {used} allocated of {total}"));
    }
    Ok(())
}

/// A node's allocated room is exactly its live containers' and the ones completed at the RM
/// (released, or killed with their attempt) it holds until the NM reports them (nothing freed
/// twice, nothing never).
pub fn node_accounted(host: &str, used: Resource, expected: Resource) -> Result<(), String> {
    if used != expected {
        return Err(format!(
            "{host} has {used} allocated, its containers {expected}"
        ));
    }
    Ok(())
}

/// Every launched container completes at most once: the checker's count of its completions
/// is 1, and the RM's table did not have it completed before.
pub fn completes_once(container: &str, completions: u32, rm_knew_it: bool) -> Result<(), String> {
    if completions > 1 {
        return Err(format!("{container} completed {completions} times"));
    }
    if rm_knew_it {
        return Err(format!(
            "the RM's table had {container} completed before its first completion"
        ));
    }
    Ok(())
}

/// Each task index succeeds at most once per stage attempt while its output lives (a lost map
/// output is resubmitted in the same stage attempt, as Spark does, and may succeed again): the
/// checker's count of live successes is 1, and the TaskSetManager did not have it successful.
pub fn succeeds_once(
    stage: u32,
    attempt: u32,
    index: u32,
    live_successes: u32,
    tsm_had_it: bool,
) -> Result<(), String> {
    if live_successes > 1 {
        return Err(format!(
            "task {index} of stage {stage}.{attempt} succeeded {live_successes} times with its output live"
        ));
    }
    if tsm_had_it {
        return Err(format!(
            "the TaskSetManager had task {index} of stage {stage}.{attempt} successful before its first success"
        ));
    }
    Ok(())
}

/// AM attempts never exceed the maximum.
pub fn attempts_bounded(attempts: u32, max: u32) -> Result<(), String> {
    if attempts > max {
        return Err(format!("{attempts} AM attempts with a maximum of {max}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_fails_on_bad_state_and_passes_on_good() {
        assert!(registers_once(1, 3, 2, true).is_err() && registers_once(1, 3, 1, false).is_ok());
        assert!(registers_once(1, 3, 2, false).is_err() && registers_once(1, 3, 1, true).is_err());
        assert!(total_cores(4, 3).is_err() && total_cores(4, 4).is_ok());
        assert!(free_cores(1, 5, 4).is_err() && free_cores(1, 4, 4).is_ok());
        let r = |memory_mb, vcores, gpus| Resource {
            memory_mb,
            vcores,
            gpus,
        };
        let node = r(8192, 8, 1);
        assert!(
            node_capacity("h", r(9000, 1, 0), node).is_err()
                && node_capacity("h", r(1, 9, 0), node).is_err()
                && node_capacity("h", r(1, 1, 2), node).is_err()
        );
        assert!(node_capacity("h", r(8192, 8, 1), node).is_ok());
        assert!(node_accounted("h", r(1024, 1, 0), r(0, 0, 0)).is_err());
        assert!(node_accounted("h", r(1024, 1, 0), r(1024, 2, 0)).is_err());
        assert!(node_accounted("h", r(1024, 1, 1), r(1024, 1, 0)).is_err());
        assert!(node_accounted("h", r(1024, 1, 1), r(1024, 1, 1)).is_ok());
        assert!(completes_once("c", 2, false).is_err() && completes_once("c", 1, true).is_err());
        assert!(completes_once("c", 1, false).is_ok());
        assert!(
            succeeds_once(0, 0, 1, 2, false).is_err() && succeeds_once(0, 0, 1, 1, true).is_err()
        );
        assert!(succeeds_once(0, 0, 1, 1, false).is_ok());
        assert!(attempts_bounded(3, 2).is_err() && attempts_bounded(2, 2).is_ok());
    }

    fn cid(n: u64) -> ContainerId {
        use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId};
        ContainerId {
            attempt: ApplicationAttemptId {
                application_id: ApplicationId {
                    cluster_timestamp: 1,
                    id: 1,
                },
                attempt_id: 1,
            },
            epoch: 0,
            id: n,
        }
    }

    /// The checker's own counts catch a role whose table says "first time" every time.
    #[test]
    fn the_checker_counts_by_itself_what_a_forgetful_role_calls_first() {
        let v = Violations::default();
        v.executor_registered(1, 3, false);
        v.executor_registered(2, 3, false); // a new attempt's driver: ids restart
        assert!(v.take().is_empty());
        v.executor_registered(1, 3, false);
        let found = v.take();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].invariant, name::EXECUTOR_REGISTERS_ONCE);
        assert_eq!(
            found[0].detail,
            "executor 3 registered 2 times in attempt 1"
        );

        v.container_completed(cid(2), false);
        v.container_completed(cid(3), false);
        assert!(v.take().is_empty());
        v.container_completed(cid(2), false);
        let found = v.take();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].invariant, name::CONTAINER_COMPLETES_ONCE);
        assert!(found[0].detail.ends_with("completed 2 times"), "{found:?}");
    }

    #[test]
    fn a_task_index_may_succeed_again_only_after_its_output_was_lost() {
        let v = Violations::default();
        let ok = |index| TaskOutput::Succeeded {
            stage: 4,
            stage_attempt: 0,
            index,
            already: false,
        };
        v.task_output(1, ok(7));
        v.task_output(1, ok(2));
        v.task_output(
            1,
            TaskOutput::Lost {
                stage: 4,
                stage_attempt: 0,
                index: 7,
            },
        );
        v.task_output(1, ok(7));
        v.task_output(2, ok(7)); // the same stage id in another attempt's SparkContext
        assert!(v.take().is_empty());
        v.task_output(1, ok(7));
        let found = v.take();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].invariant, name::TASK_SUCCEEDS_ONCE);
        assert_eq!(
            found[0].detail,
            "task 7 of stage 4.0 succeeded 2 times with its output live"
        );
        // The role's own table disagreeing with the checker is a violation too.
        v.task_output(
            1,
            TaskOutput::Succeeded {
                stage: 5,
                stage_attempt: 0,
                index: 0,
                already: true,
            },
        );
        assert_eq!(v.take().len(), 1);
    }

    /// The shuffle invariants fail on a second registration and on a missing parent.
    #[test]
    fn shuffle_invariants_catch_double_registration_and_missing_parents() {
        let v = Violations::default();
        let reg = TaskOutput::MapOutputRegistered {
            stage: 0,
            stage_attempt: 1,
            map_index: 3,
        };
        v.task_output(1, reg);
        v.task_output(2, reg); // another AM attempt's SparkContext
        assert!(v.take().is_empty());
        v.task_output(1, reg);
        v.task_output(
            1,
            TaskOutput::StageSubmitted {
                stage: 1,
                stage_attempt: 0,
                missing_parents: 1,
            },
        );
        let found: Vec<&str> = v.take().iter().map(|f| f.invariant).collect();
        assert_eq!(
            found,
            [
                name::MAP_OUTPUT_REGISTERED_ONCE,
                name::NO_STAGE_WITH_MISSING_PARENTS
            ]
        );
    }

    #[test]
    fn a_task_launched_where_excluded_is_a_violation() {
        assert_eq!(
            launched_where_allowed("task 0.0 in stage 0.0", 1, "h1", None),
            Ok(())
        );
        let e = launched_where_allowed(
            "task 0.1 in stage 0.0",
            1,
            "h1",
            Some("executor excluded for the stage attempt"),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "task 0.1 in stage 0.0 was launched on executor 1 (h1): executor excluded for the stage attempt"
        );
    }

    #[test]
    fn violations_are_recorded_with_their_name() {
        let v = Violations::default();
        assert!(allocation_target(3, 1, 3).is_ok());
        assert!(allocation_target(4, 1, 3).is_err());
        assert!(allocation_target(0, 1, 3).is_err());
        assert!(idle_kill_without_shuffle_data(1, false).is_ok());
        assert!(idle_kill_without_shuffle_data(1, true).is_err());
        v.check(name::FREE_CORES, free_cores(2, 9, 1));
        v.check(name::FREE_CORES, free_cores(2, 1, 1));
        let found = v.take();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].invariant, name::FREE_CORES);
        assert_eq!(found[0].detail, "executor 2 has 9 free cores of 1");
    }
}
