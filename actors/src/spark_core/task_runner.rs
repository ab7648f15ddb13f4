//! What an executor's `Executor.TaskRunner` (Spark: `executor/Executor.scala`) yields when it
//! runs a task: the task's virtual duration and result (`run_task`: a recorded attempt's, the
//! program's work, an injected exception), and whether its serialized result goes to the
//! driver or is dropped over `spark.driver.maxResultSize`. No actix, no clock: the executor
//! arms the task's timer and logs what these return.

use sparkyard_messages::task::{ReplayedEnd, TaskResultData, TaskWork};

/// What a SparkPi dart costs (the run's `CostModel`'s two SparkPi settings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DartCost {
    /// Nanoseconds per dart.
    pub ns: u64,
    /// Throw the darts for real (else count each task's expected hits).
    pub real: bool,
}

/// Runs a task's computation: its virtual duration (ms) and its result.
/// `attempt` is the task's attempt number in stage attempt `stage_attempt` (a replayed task
/// runs as the recording ran that attempt).
pub fn run_task(
    work: &TaskWork,
    stage_attempt: u32,
    attempt: u32,
    darts_cost: DartCost,
) -> (u64, TaskResultData) {
    match work {
        TaskWork::Replayed {
            duration_ms,
            failures,
            ..
        } => match failures
            .as_deref()
            .and_then(|f| f.get(stage_attempt, attempt))
        {
            Some(f) => (
                f.duration_ms,
                match &f.end {
                    ReplayedEnd::Threw(e) => TaskResultData::Exception {
                        class: e.class.clone(),
                        description: e.description.clone(),
                    },
                    // A killed or speculative attempt: it runs; the scheduler kills it again
                    // or not. One lost with its executor never reports: the executor dies
                    // as it ends (`TaskWork::executor_dies_after`).
                    ReplayedEnd::Ran | ReplayedEnd::ExecutorDies(_) => TaskResultData::None,
                },
            ),
            None => (*duration_ms, TaskResultData::None),
        },
        // The cached partition's read or computation is the executor's (read_cached_partition).
        TaskWork::CachedRdd(read) => (read.work_ms, TaskResultData::None),
        TaskWork::SparkPiDarts { first, darts, seed } => {
            let hits = if darts_cost.real {
                crate::examples::spark_pi::count_hits(*first, *darts, *seed)
            } else {
                crate::examples::spark_pi::expected_hits(*darts)
            };
            (
                darts * darts_cost.ns / 1_000_000,
                TaskResultData::Count(hits),
            )
        }
        TaskWork::Sleep {
            duration_ms,
            fail: None,
        } => (*duration_ms, TaskResultData::None),
        TaskWork::Sleep {
            duration_ms,
            fail: Some(message),
        } => (*duration_ms, exception_result(message)),
    }
}

/// A task that throws `message` (`class: description`; a bare text is a RuntimeException's).
pub fn exception_result(message: &str) -> TaskResultData {
    let (class, description) = message
        .split_once(": ")
        .unwrap_or(("java.lang.RuntimeException", message));
    TaskResultData::Exception {
        class: class.into(),
        description: description.into(),
    }
}

/// How `TaskRunner.run` sends a serialized result back (Spark 4.0.0 bytecode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSend {
    /// Over `spark.driver.maxResultSize` (`maxResultSize > 0 && resultSize > maxResultSize`):
    /// dropped with a WARN, only its size goes (an `IndirectTaskResult`); 0 means no limit.
    Dropped,
    /// Over the executor's `maxDirectResultSize`: put in its BlockManager as
    /// `taskresult_<tid>`, which the driver fetches (an `IndirectTaskResult` with the block).
    ViaBlockManager,
    /// In the StatusUpdate itself (a `DirectTaskResult`).
    Direct,
}

impl ResultSend {
    /// How a result of `result_bytes` goes, in `TaskRunner.run`'s order of checks.
    pub fn of(result_bytes: u64, max_result_size: u64, max_direct_result_size: u64) -> Self {
        if max_result_size > 0 && result_bytes > max_result_size {
            ResultSend::Dropped
        } else if result_bytes > max_direct_result_size {
            ResultSend::ViaBlockManager
        } else {
            ResultSend::Direct
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::task::{
        ContainerEnd, ReplayedAttempts, ReplayedEnd, ReplayedException, ReplayedFailure,
    };

    fn costs() -> DartCost {
        DartCost {
            ns: 50,
            real: false,
        }
    }

    /// A replayed task's attempt k runs its recorded attempt while there is one (throwing its
    /// exception, running to the end when none was recorded: a killed or speculative attempt,
    /// or running its time and then ending its executor: one lost with it); any later attempt
    /// succeeds after the task's recorded duration.
    #[test]
    fn a_replayed_attempt_runs_as_recorded() {
        let work = TaskWork::Replayed {
            duration_ms: 900,
            failures: Some(Box::new(ReplayedAttempts(vec![
                ReplayedFailure {
                    duration_ms: 40,
                    end: ReplayedEnd::Threw(ReplayedException {
                        class: "java.io.IOException".into(),
                        description: "disk".into(),
                    }),
                    stage_attempt: 0,
                },
                ReplayedFailure {
                    duration_ms: 70,
                    end: ReplayedEnd::Ran,
                    stage_attempt: 0,
                },
                ReplayedFailure {
                    duration_ms: 50,
                    end: ReplayedEnd::ExecutorDies(ContainerEnd::ProcessExit(137)),
                    stage_attempt: 0,
                },
            ]))),
            cache: None,
            own_warmup_ms: None,
            recorded_executor: None,
        };
        let c = costs();
        assert_eq!(
            run_task(&work, 0, 0, c),
            (
                40,
                TaskResultData::Exception {
                    class: "java.io.IOException".into(),
                    description: "disk".into()
                }
            )
        );
        assert_eq!(run_task(&work, 0, 1, c), (70, TaskResultData::None));
        // The attempt lost with its executor runs its time; its executor dies then.
        assert_eq!(run_task(&work, 0, 2, c), (50, TaskResultData::None));
        assert_eq!(
            work.executor_dies_after(0, 2),
            Some(ContainerEnd::ProcessExit(137))
        );
        assert_eq!(work.executor_dies_after(0, 1), None);
        // A retried stage's attempt 2 is another run: the executor died once.
        assert_eq!(work.executor_dies_after(1, 2), None);
        assert_eq!(run_task(&work, 0, 3, c), (900, TaskResultData::None));
        // A retried stage numbers its attempts from 0 again, and the recorded runs of the
        // first stage attempt are not its own: its attempt 0 runs as the success.
        assert_eq!(run_task(&work, 1, 0, c), (900, TaskResultData::None));
        assert!(!work.runs_until_killed(1, 1));
        assert!(work.runs_until_killed(0, 1) && work.runs_until_killed(0, 2));
    }

    /// A sleeping task (the synthetic workload) takes its duration and, told to fail, throws
    /// its message after it.
    #[test]
    fn a_sleep_task_takes_its_time_and_may_throw() {
        let c = costs();
        let ok = TaskWork::Sleep {
            duration_ms: 25,
            fail: None,
        };
        assert_eq!(run_task(&ok, 0, 0, c), (25, TaskResultData::None));
        let bad = TaskWork::Sleep {
            duration_ms: 25,
            fail: Some("boom".into()),
        };
        assert_eq!(run_task(&bad, 0, 0, c).1, exception_result("boom"));
    }

    /// SparkPi's task throws its darts: its time is the darts' cost, its result the hits
    /// (counted for real, or the expected pi/4 of them).
    #[test]
    fn a_sparkpi_task_counts_its_hits() {
        let work = TaskWork::SparkPiDarts {
            first: 1,
            darts: 100_000,
            seed: 7,
        };
        let (ms, result) = run_task(&work, 0, 0, costs());
        assert_eq!(ms, 5, "100,000 darts at 50 ns");
        let expected = crate::examples::spark_pi::expected_hits(100_000);
        assert_eq!(result, TaskResultData::Count(expected));
        let real = DartCost { ns: 50, real: true };
        let TaskResultData::Count(hits) = run_task(&work, 0, 0, real).1 else {
            panic!("a count");
        };
        assert!(hits.abs_diff(expected) < 1_000, "{hits} against {expected}");
    }

    /// A fault's message `class: description` becomes an `ExceptionFailure` of that class
    /// and description (as Spark reports a thrown exception's); a bare text is a
    /// RuntimeException's.
    #[test]
    fn an_exception_message_names_its_class() {
        assert_eq!(
            exception_result("java.lang.IllegalStateException: bad state: x"),
            TaskResultData::Exception {
                class: "java.lang.IllegalStateException".into(),
                description: "bad state: x".into()
            }
        );
        assert_eq!(
            exception_result("no class here"),
            TaskResultData::Exception {
                class: "java.lang.RuntimeException".into(),
                description: "no class here".into()
            }
        );
    }

    /// Executor.TaskRunner.run: a result over a positive `spark.driver.maxResultSize` is
    /// dropped; at the limit, or with no limit (0), it is sent.
    #[test]
    fn results_over_max_result_size_are_dropped() {
        const DIRECT: u64 = 1 << 20;
        assert_eq!(ResultSend::of(1000, 999, DIRECT), ResultSend::Dropped);
        assert_eq!(ResultSend::of(1000, 1000, DIRECT), ResultSend::Direct);
        assert_eq!(ResultSend::of(1000, 0, DIRECT), ResultSend::Direct);
        assert_eq!(ResultSend::of(1000, 1 << 30, DIRECT), ResultSend::Direct);
        // Over maxDirectResultSize, within maxResultSize (or no limit): via the BlockManager;
        // over both: dropped, the first check.
        assert_eq!(
            ResultSend::of(DIRECT + 1, 1 << 30, DIRECT),
            ResultSend::ViaBlockManager
        );
        assert_eq!(
            ResultSend::of(DIRECT + 1, 0, DIRECT),
            ResultSend::ViaBlockManager
        );
        assert_eq!(ResultSend::of(DIRECT, 0, DIRECT), ResultSend::Direct);
        assert_eq!(
            ResultSend::of(3 << 20, 2 << 20, DIRECT),
            ResultSend::Dropped
        );
    }
}
