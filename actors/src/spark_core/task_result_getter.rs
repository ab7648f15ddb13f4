//! A task attempt's end, recorded once: [`EndKind`] (the `TaskEndReason` class the
//! TaskResultGetter's step decided) and [`TaskEnded`], the record the scheduler makes where
//! every end passes (`dagScheduler.taskEnded`; `scheduler::events::Ending::record`) and the
//! DriverEndpoint hands to each consumer. Mirrors Spark 4.0.0's `TaskResultGetter`
//! (`enqueueSuccessfulTask`, which may still end a FINISHED attempt as `TaskKilled`, and
//! `enqueueFailedTask`, which reads the `TaskFailedReason` the executor serialized:
//! [`FailedReason::of`]). No actix, no clock.

use crate::world::listener::TaskEndKind;
use crate::world::observer::RunEvent;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::TaskEndReason;
use sparkyard_messages::task::{FetchFailure, TaskResultData};

/// The `TaskKilled` reason of a failed end whose data names none. Sparkyard's executor never
/// sends one (its FAILED carries an exception or a fetch failure, its KILLED a `TaskKilled`,
/// and it sends no LOST); Spark's `enqueueFailedTask` would report `UnknownReason`, a counted
/// failure.
const UNKNOWN_KILL_REASON: &str = "unknown reason";

/// How an attempt ended: the `TaskEndReason` class of its TaskEnd, as the scheduler decided it
/// (a FINISHED update can still end `TaskKilled`: a result over `spark.driver.maxResultSize`,
/// or a speculative copy's late success).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndKind {
    /// `Success`: the result was taken (`handleSuccessfulTask`).
    Success,
    /// `ExceptionFailure`: counted among the failed attempts.
    ExceptionFailure,
    /// `ExecutorLostFailure`: the attempt was running on an executor that went.
    ExecutorLost,
    /// `FetchFailed` from `from`'s block manager (none when the failure names no address):
    /// the DAGScheduler declares that executor lost.
    FetchFailed { from: Option<ExecutorId> },
    /// `TaskKilled`, counted apart from failures.
    TaskKilled,
}

impl EndKind {
    /// The kind of an attempt that ends with `reason`; `None` for `Resubmitted`, where no
    /// attempt ends (a finished map attempt's output went with its executor).
    #[inline]
    pub fn of(reason: &TaskEndReason) -> Option<EndKind> {
        Some(match reason {
            TaskEndReason::Success => EndKind::Success,
            TaskEndReason::TaskKilled { .. } => EndKind::TaskKilled,
            TaskEndReason::ExceptionFailure { .. } => EndKind::ExceptionFailure,
            TaskEndReason::ExecutorLostFailure { .. } => EndKind::ExecutorLost,
            TaskEndReason::FetchFailed(f) => EndKind::FetchFailed {
                from: f.bm_address.as_ref().map(|bm| bm.executor_id),
            },
            TaskEndReason::Resubmitted => return None,
        })
    }

    /// The executor a failed fetch declares lost.
    pub fn fetch_failed_from(self) -> Option<ExecutorId> {
        match self {
            EndKind::FetchFailed { from } => from,
            _ => None,
        }
    }

    /// The three ends `ExecutorAllocationListener.onTaskEnd` and `TaskInfo.markFinished` tell
    /// apart (a KILLED attempt is `killed`, not `failed`).
    #[inline]
    pub fn listener_kind(self) -> TaskEndKind {
        match self {
            EndKind::Success => TaskEndKind::Success,
            EndKind::TaskKilled => TaskEndKind::Killed,
            _ => TaskEndKind::Failed,
        }
    }
}

/// One task attempt's end, recorded once by the scheduler (`dagScheduler.taskEnded`'s
/// caller) and read by every output that needs it: the run's record, this SparkContext's
/// count of successes and the fault injector's trigger on it, and the listener bus's TaskEnd
/// (through the DAGScheduler's `CompletionEvent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskEnded {
    pub task_id: TaskId,
    pub executor: ExecutorId,
    /// The task's attempt number (`TaskInfo.attemptNumber`).
    pub attempt: u32,
    pub kind: EndKind,
}

impl TaskEnded {
    /// What the run's record learns of the end in AM attempt `am_attempt`: a finished, failed
    /// or killed attempt (AppStatusListener.onTaskEnd's split), and the executor a fetch
    /// failed from.
    pub fn run_events(&self, am_attempt: u32) -> impl Iterator<Item = RunEvent> {
        let fetch = self
            .kind
            .fetch_failed_from()
            .map(|executor| RunEvent::FetchFailedFrom {
                attempt: am_attempt,
                executor,
            });
        let counted = match self.kind.listener_kind() {
            TaskEndKind::Success => RunEvent::TaskFinished,
            TaskEndKind::Killed => RunEvent::TaskKilled,
            TaskEndKind::Failed => RunEvent::TasksFailed { count: 1 },
        };
        fetch.into_iter().chain(std::iter::once(counted))
    }
}

/// The `TaskFailedReason` `enqueueFailedTask` hands to `handleFailedTask` for a failed,
/// killed or lost update, the update's data moved in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailedReason {
    FetchFailed(Box<FetchFailure>),
    ExceptionFailure { class: String, description: String },
    TaskKilled { reason: String },
}

impl FailedReason {
    /// The reason a failed end carrying `data` reports: a fetch failure, an exception, or a
    /// kill (the executor's `TaskKilled(reason)`, or an end with no reason, which the
    /// scheduler also ends as TaskKilled).
    pub fn of(data: TaskResultData) -> FailedReason {
        match data {
            TaskResultData::FetchFailed(f) => FailedReason::FetchFailed(f),
            TaskResultData::Exception { class, description } => {
                FailedReason::ExceptionFailure { class, description }
            }
            TaskResultData::Killed { reason } => FailedReason::TaskKilled { reason },
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

    fn fetch_failure(from: Option<u32>) -> Box<FetchFailure> {
        Box::new(FetchFailure {
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
        })
    }

    fn ended(kind: EndKind) -> TaskEnded {
        TaskEnded {
            task_id: TaskId(7),
            executor: ExecutorId(2),
            attempt: 0,
            kind,
        }
    }

    // TaskResultGetter.enqueueSuccessfulTask (4.0.0 jar, `TaskResultGetter$$anon$3`): a result
    // canFetchMoreResults refuses is `handleFailedTask(tid, KILLED, TaskKilled("Tasks result
    // size has exceeded maxResultSize"))`, and TaskSetManager.handleSuccessfulTask ends a late
    // copy `TaskKilled("Finish but did not commit due to another attempt succeeded")`: a
    // FINISHED update whose reason is TaskKilled is a killed attempt, which
    // AppStatusListener.onTaskEnd (4.0.0 jar: Success / TaskKilled / TaskCommitDenied / the
    // rest) counts as killed, not completed.
    #[test]
    fn a_killed_end_is_killed_whatever_update_carried_it() {
        let refused = TaskEndReason::TaskKilled {
            reason: "Tasks result size has exceeded maxResultSize".to_string(),
        };
        assert_eq!(EndKind::of(&refused), Some(EndKind::TaskKilled));
        assert_eq!(EndKind::TaskKilled.listener_kind(), TaskEndKind::Killed);
        let events: Vec<RunEvent> = ended(EndKind::TaskKilled).run_events(1).collect();
        assert_eq!(events, vec![RunEvent::TaskKilled]);
        let events: Vec<RunEvent> = ended(EndKind::Success).run_events(1).collect();
        assert_eq!(events, vec![RunEvent::TaskFinished]);
    }

    // TaskEndReason.scala's `FetchFailed(bmAddress, ...)`: the DAGScheduler declares the
    // executor of `bmAddress` lost (`removeExecutorAndUnregisterOutputs`); a failure with no
    // address (`bmAddress == null`) names none. Either is a failed attempt.
    #[test]
    fn a_fetch_failure_names_the_executor_it_failed_from() {
        let kind = EndKind::of(&TaskEndReason::FetchFailed(fetch_failure(Some(4))));
        assert_eq!(
            kind,
            Some(EndKind::FetchFailed {
                from: Some(ExecutorId(4))
            })
        );
        let events: Vec<RunEvent> = ended(kind.unwrap()).run_events(2).collect();
        assert_eq!(
            events,
            vec![
                RunEvent::FetchFailedFrom {
                    attempt: 2,
                    executor: ExecutorId(4)
                },
                RunEvent::TasksFailed { count: 1 }
            ]
        );
        let anonymous = EndKind::of(&TaskEndReason::FetchFailed(fetch_failure(None))).unwrap();
        assert_eq!(anonymous.fetch_failed_from(), None);
        assert_eq!(anonymous.listener_kind(), TaskEndKind::Failed);
        assert_eq!(EndKind::TaskKilled.fetch_failed_from(), None);
    }

    // TaskEndReason.scala: an exception and an executor's loss are failures (TaskInfo.
    // markFinished(FAILED) sets `failed`); `Resubmitted` ends no attempt (TaskSetManager.
    // executorLost reports a finished map attempt whose output went), so it makes no record.
    #[test]
    fn failures_are_failed_and_a_resubmission_ends_no_attempt() {
        let exception = TaskEndReason::ExceptionFailure {
            class: "java.lang.RuntimeException".to_string(),
            description: "boom".to_string(),
        };
        let lost = TaskEndReason::ExecutorLostFailure {
            executor_id: "3".to_string(),
            exit_caused_by_app: false,
            loss_reason: "Executor killed by driver.".to_string(),
        };
        assert_eq!(EndKind::of(&exception), Some(EndKind::ExceptionFailure));
        assert_eq!(EndKind::of(&lost), Some(EndKind::ExecutorLost));
        for kind in [EndKind::ExceptionFailure, EndKind::ExecutorLost] {
            assert_eq!(kind.listener_kind(), TaskEndKind::Failed);
            let events: Vec<RunEvent> = ended(kind).run_events(1).collect();
            assert_eq!(events, vec![RunEvent::TasksFailed { count: 1 }]);
        }
        assert_eq!(EndKind::of(&TaskEndReason::Success), Some(EndKind::Success));
        assert_eq!(EndKind::of(&TaskEndReason::Resubmitted), None);
    }

    // TaskSchedulerImpl.statusUpdate -> TaskResultGetter.enqueueFailedTask (4.0.0 jar): the
    // reason handleFailedTask receives is the one the executor serialized; an end with none is
    // ended as TaskKilled ("unknown reason"), where Spark keeps its default `UnknownReason`, a
    // counted failure. Sparkyard's executor sends no such end (executor_state::TaskEnd::state:
    // FAILED carries an exception or a fetch failure, KILLED a TaskKilled; no LOST), so the
    // difference cannot show.
    #[test]
    fn a_failed_reason_is_the_one_the_executor_sent() {
        assert_eq!(
            FailedReason::of(TaskResultData::FetchFailed(fetch_failure(Some(2)))),
            FailedReason::FetchFailed(fetch_failure(Some(2)))
        );
        let exception = TaskResultData::Exception {
            class: "java.lang.RuntimeException".to_string(),
            description: "boom".to_string(),
        };
        assert_eq!(
            FailedReason::of(exception),
            FailedReason::ExceptionFailure {
                class: "java.lang.RuntimeException".to_string(),
                description: "boom".to_string()
            }
        );
        let killed = TaskResultData::Killed {
            reason: "stage cancelled".to_string(),
        };
        assert_eq!(
            FailedReason::of(killed),
            FailedReason::TaskKilled {
                reason: "stage cancelled".to_string()
            }
        );
        assert_eq!(
            FailedReason::of(TaskResultData::None),
            FailedReason::TaskKilled {
                reason: UNKNOWN_KILL_REASON.to_string()
            }
        );
    }
}
