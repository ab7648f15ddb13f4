//! What kind of end a task's `StatusUpdate` reports, as the driver's run record counts it
//! (Spark 4.0.0's `TaskSchedulerImpl.statusUpdate`, which hands a FINISHED end to
//! `TaskResultGetter.enqueueSuccessfulTask` and a FAILED, KILLED or LOST one to
//! `enqueueFailedTask`, which reads the `TaskFailedReason` the executor serialized). No actix,
//! no clock: the DriverEndpoint calls [`EndKind::of`] once per end, before the update's data
//! moves into the scheduler, and records what it says; the scheduler's `handleFailedTask`
//! takes a failed end's reason from [`FailedReason::of`], which follows the same split.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::{FetchFailure, TaskResultData};

/// The `TaskKilled` reason of a failed end whose data names none. Sparkyard's executor never
/// sends one (its FAILED carries an exception or a fetch failure, its KILLED a `TaskKilled`,
/// and it sends no LOST); Spark's `enqueueFailedTask` would report `UnknownReason`, a counted
/// failure.
const UNKNOWN_KILL_REASON: &str = "unknown reason";

/// The end a `StatusUpdate` reports (the `TaskEndReason` class the scheduler will give it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    /// FINISHED: `enqueueSuccessfulTask` (the result is read then).
    Success,
    /// `ExceptionFailure`: counted among the failed attempts.
    ExceptionFailure,
    /// `FetchFailed` from `from`'s block manager (none when the failure names no address):
    /// the DAGScheduler declares that executor lost.
    FetchFailed { from: Option<ExecutorId> },
    /// `TaskKilled`: any other failed end (the executor's `TaskKilled(reason)`, or one with no
    /// reason, which the scheduler also ends as TaskKilled), counted apart from failures.
    TaskKilled,
}

impl EndKind {
    /// The kind of `state`'s end carrying `data`. A fetch failure is one whatever the state (an
    /// executor sends it only with FAILED).
    #[inline]
    pub fn of(state: TaskState, data: &TaskResultData) -> EndKind {
        match data {
            TaskResultData::FetchFailed(f) => EndKind::FetchFailed {
                from: f.bm_address.as_ref().map(|bm| bm.executor_id),
            },
            _ if state == TaskState::Finished => EndKind::Success,
            TaskResultData::Exception { .. } => EndKind::ExceptionFailure,
            _ => EndKind::TaskKilled,
        }
    }

    /// The executor a failed fetch declares lost.
    pub fn fetch_failed_from(self) -> Option<ExecutorId> {
        match self {
            EndKind::FetchFailed { from } => from,
            _ => None,
        }
    }
}

/// The `TaskFailedReason` `enqueueFailedTask` hands to `handleFailedTask` for a failed end,
/// the update's data moved in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailedReason {
    FetchFailed(Box<FetchFailure>),
    ExceptionFailure { class: String, description: String },
    TaskKilled { reason: String },
}

impl FailedReason {
    /// The reason of `state`'s failed end carrying `data`: which one is [`EndKind::of`]'s
    /// split (a kill and a reasonless end are both `TaskKilled`); this only moves the data.
    pub fn of(state: TaskState, data: TaskResultData) -> FailedReason {
        match (EndKind::of(state, &data), data) {
            (EndKind::FetchFailed { .. }, TaskResultData::FetchFailed(f)) => {
                FailedReason::FetchFailed(f)
            }
            (EndKind::ExceptionFailure, TaskResultData::Exception { class, description }) => {
                FailedReason::ExceptionFailure { class, description }
            }
            (_, TaskResultData::Killed { reason }) => FailedReason::TaskKilled { reason },
            _ => FailedReason::TaskKilled {
                reason: UNKNOWN_KILL_REASON.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::task::{BlockManagerId, FetchFailure};

    fn fetch_failed(from: Option<u32>) -> TaskResultData {
        TaskResultData::FetchFailed(Box::new(FetchFailure {
            bm_address: from.map(|e| BlockManagerId {
                executor_id: ExecutorId(e),
                host: "host-1".to_string(),
                port: 7000,
            }),
            shuffle_id: 0,
            map_id: 0,
            map_index: 0,
            reduce_id: 0,
            message: String::new(),
        }))
    }

    // TaskSchedulerImpl.statusUpdate (4.0.0 jar): FINISHED goes to enqueueSuccessfulTask,
    // whatever result it carries; FAILED, KILLED and LOST to enqueueFailedTask.
    #[test]
    fn a_finished_update_is_a_success() {
        for data in [
            TaskResultData::None,
            TaskResultData::Count(3),
            TaskResultData::Killed {
                reason: "x".to_string(),
            },
        ] {
            assert_eq!(EndKind::of(TaskState::Finished, &data), EndKind::Success);
        }
    }

    // TaskSetManagerSuite.scala, "Killing speculative tasks does not count towards aborting
    // the taskset": a KILLED end's `TaskKilled` reason is no failure, an exception's is; here
    // the split the run record counts by (TaskEndReason.scala: TaskKilled's
    // countTowardsTaskFailures is false, ExceptionFailure's true).
    #[test]
    fn a_kill_is_counted_apart_from_an_exception() {
        let killed = TaskResultData::Killed {
            reason: "another attempt succeeded".to_string(),
        };
        assert_eq!(EndKind::of(TaskState::Killed, &killed), EndKind::TaskKilled);
        let exception = TaskResultData::Exception {
            class: "java.lang.RuntimeException".to_string(),
            description: "boom".to_string(),
        };
        assert_eq!(
            EndKind::of(TaskState::Failed, &exception),
            EndKind::ExceptionFailure
        );
        // An end with no reason: the scheduler ends it as TaskKilled ("unknown reason"), where
        // Spark's TaskResultGetter.enqueueFailedTask (4.0.0 jar) keeps its default
        // `UnknownReason`, a counted failure. Sparkyard's executor sends no such end
        // (executor_state::TaskEnd::state: FAILED carries an exception or a fetch failure,
        // KILLED a TaskKilled; no LOST), so the difference cannot show.
        assert_eq!(
            EndKind::of(TaskState::Lost, &TaskResultData::None),
            EndKind::TaskKilled
        );
    }

    // TaskSchedulerImpl.statusUpdate -> TaskResultGetter.enqueueFailedTask (4.0.0 jar): the
    // reason handleFailedTask receives is the one EndKind counts, for every failed end.
    #[test]
    fn a_failed_reason_follows_the_end_kind() {
        let cases = [
            (TaskState::Failed, fetch_failed(Some(2))),
            (
                TaskState::Failed,
                TaskResultData::Exception {
                    class: "java.lang.RuntimeException".to_string(),
                    description: "boom".to_string(),
                },
            ),
            (
                TaskState::Killed,
                TaskResultData::Killed {
                    reason: "stage cancelled".to_string(),
                },
            ),
            (TaskState::Lost, TaskResultData::None),
        ];
        for (state, data) in cases {
            let kind = EndKind::of(state, &data);
            let reason = FailedReason::of(state, data);
            let reason_kind = match &reason {
                FailedReason::FetchFailed(f) => EndKind::FetchFailed {
                    from: f.bm_address.as_ref().map(|bm| bm.executor_id),
                },
                FailedReason::ExceptionFailure { .. } => EndKind::ExceptionFailure,
                FailedReason::TaskKilled { .. } => EndKind::TaskKilled,
            };
            assert_eq!(reason_kind, kind, "{reason:?}");
        }
        let killed = TaskResultData::Killed {
            reason: "stage cancelled".to_string(),
        };
        assert_eq!(
            FailedReason::of(TaskState::Killed, killed),
            FailedReason::TaskKilled {
                reason: "stage cancelled".to_string()
            }
        );
    }

    // TaskEndReason.scala's `FetchFailed(bmAddress, ...)`: the DAGScheduler declares the
    // executor of `bmAddress` lost (`removeExecutorAndUnregisterOutputs`); a failure with no
    // address (`bmAddress == null`) names none, and is still no kill.
    #[test]
    fn a_fetch_failure_names_the_executor_it_failed_from() {
        let kind = EndKind::of(TaskState::Failed, &fetch_failed(Some(4)));
        assert_eq!(
            kind,
            EndKind::FetchFailed {
                from: Some(ExecutorId(4))
            }
        );
        assert_eq!(kind.fetch_failed_from(), Some(ExecutorId(4)));
        let anonymous = EndKind::of(TaskState::Failed, &fetch_failed(None));
        assert_eq!(anonymous.fetch_failed_from(), None);
        assert_ne!(anonymous, EndKind::TaskKilled);
        assert_eq!(EndKind::TaskKilled.fetch_failed_from(), None);
    }
}
