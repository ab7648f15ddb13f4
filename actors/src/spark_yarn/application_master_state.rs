//! The ApplicationMaster's own rules as a plain state machine (Spark's `ApplicationMaster`,
//! ApplicationMaster.scala in spark-yarn 4.0.0): `finish` (the first call wins; before the AM
//! registered, cluster mode records FAILED with exit 13), the Reporter loop's decisions after
//! each allocate (`allocationThreadImpl`: the executor-failure limit, every node excluded, the
//! RM's failures up to `spark.yarn.scheduler.reporterThread.maxFailures`, the allocation
//! interval that doubles while containers are pending, the rest of a wait a wake-up cut short)
//! and what its shutdown hook does (unregister on success or on the last attempt, the staging
//! directory first on the last), and the rules it starts with (`am_rules`: the Reporter's
//! intervals, `YarnRMClient.getMaxRegAttempts`, `isLastAttempt`). No actix, no clock: the actor
//! passes times in, logs and acts on what it gets back.

use crate::world::config::{SparkSettings, YarnSettings};
use sparkyard_messages::application_master::{AllocatorReport, ReporterStop};
use sparkyard_messages::records::{FinalApplicationStatus as Final, RpcFailure};

/// ApplicationMaster exit codes (`ApplicationMaster` object), the whole table: a user class's
/// exception and success end through the final status, not these constants.
#[allow(dead_code)]
pub mod exit_code {
    pub const SUCCESS: i32 = 0;
    pub const UNCAUGHT_EXCEPTION: i32 = 10;
    pub const MAX_EXECUTOR_FAILURES: i32 = 11;
    pub const REPORTER_FAILURE: i32 = 12;
    pub const SC_NOT_INITED: i32 = 13;
    pub const EXCEPTION_USER_CLASS: i32 = 15;
    pub const EARLY: i32 = 16;
}

/// The Reporter's intervals (`heartbeatInterval`, `initialAllocationInterval`), ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReporterIntervals {
    pub heartbeat_ms: u64,
    pub initial_ms: u64,
}

/// What the AM is configured with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmRules {
    pub intervals: ReporterIntervals,
    /// `spark.yarn.scheduler.reporterThread.maxFailures` (default 5).
    pub max_reporter_failures: i32,
    /// `maxNumExecutorFailures` (the allocator's limit, in its text).
    pub max_executor_failures: u32,
    /// This attempt is the application's last (`isLastAttempt`).
    pub last_attempt: bool,
}

/// The AM's rules from the run's settings (ApplicationMaster's constructor and `run`, Spark
/// 4.0.0): the Reporter's intervals, `spark.yarn.scheduler.reporterThread.maxFailures`, the
/// executor-failure limit, and whether `attempt` is the application's last.
pub fn am_rules(spark: &SparkSettings, yarn: &YarnSettings, attempt: u32) -> AmRules {
    AmRules {
        intervals: reporter_intervals(spark, yarn),
        max_reporter_failures: spark.reporter_max_failures,
        max_executor_failures: spark.effective_max_executor_failures(),
        last_attempt: is_last_attempt(attempt, max_reg_attempts(spark, yarn)),
    }
}

/// ApplicationMaster's constructor (spark-yarn_2.13-4.0.0.jar): `heartbeatInterval =
/// max(0, min(expiryInterval / 2, spark.yarn.scheduler.heartbeat.interval-ms))` with
/// `expiryInterval` YARN's `yarn.am.liveness-monitor.expiry-interval-ms` (an int, `idiv`), and
/// `initialAllocationInterval = min(heartbeatInterval,
/// spark.yarn.scheduler.initial-allocation.interval)`.
pub fn reporter_intervals(spark: &SparkSettings, yarn: &YarnSettings) -> ReporterIntervals {
    let heartbeat_ms =
        (yarn.am_liveness_expiry_interval_ms / 2).min(spark.am_heartbeat_interval_ms);
    ReporterIntervals {
        heartbeat_ms,
        initial_ms: heartbeat_ms.min(spark.initial_allocation_interval_ms),
    }
}

/// `YarnRMClient.getMaxRegAttempts` (spark-yarn_2.13-4.0.0.jar): `spark.yarn.maxAppAttempts`
/// when it is at most YARN's `yarn.resourcemanager.am.max-attempts` (`if_icmpgt`), else YARN's;
/// YARN's alone when Spark's is unset.
pub fn max_reg_attempts(spark: &SparkSettings, yarn: &YarnSettings) -> u32 {
    match spark.max_app_attempts {
        Some(x) if x <= yarn.am_max_attempts => x,
        _ => yarn.am_max_attempts,
    }
}

/// ApplicationMaster.run's shutdown hook: `isLastAttempt = appAttemptId.getAttemptId >=
/// maxAppAttempts` (`if_icmplt` to false).
pub fn is_last_attempt(attempt_id: u32, max_app_attempts: u32) -> bool {
    attempt_id >= max_app_attempts
}

/// What `finish` recorded: the final status, exit code and message (`Final app status: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    pub status: Final,
    pub code: i32,
    pub message: Option<String>,
}

/// What the Reporter does after a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReporterStep {
    /// The loop ends: `finish` with this (after logging `error`, if any).
    Finish {
        status: Final,
        code: i32,
        message: String,
        error: Option<&'static str>,
    },
    /// It sleeps `ms`, after warning that the RM failed `failures` time(s) in a row (if any).
    Sleep { ms: u64, failures: Option<i32> },
}

/// What the AM's shutdown hook does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookStep {
    /// The JVM exits without unregistering (a failed attempt YARN will retry).
    Exit,
    /// Unregister with the final status and these diagnostics; on the last attempt the staging
    /// directory is deleted first.
    Unregister {
        status: Final,
        diagnostics: String,
        clean_staging_first: bool,
    },
}

/// The ApplicationMaster's state.
#[derive(Clone, Debug)]
pub struct AmState {
    rules: AmRules,
    pub registered: bool,
    pub unregistered: bool,
    finished: Option<Finished>,
    next_allocation_interval_ms: u64,
    reporter_failures: i32,
}

impl AmState {
    pub fn new(rules: AmRules) -> Self {
        AmState {
            rules,
            registered: false,
            unregistered: false,
            finished: None,
            next_allocation_interval_ms: rules.intervals.initial_ms,
            reporter_failures: 0,
        }
    }

    pub fn rules(&self) -> &AmRules {
        &self.rules
    }

    /// What `finish` recorded, once it ran.
    pub fn finished(&self) -> Option<&Finished> {
        self.finished.as_ref()
    }

    /// `finish(status, code, msg)`: the first call wins (`None` after); before registration
    /// cluster mode records (FAILED, EXIT_SC_NOT_INITED) whatever was asked.
    pub fn finish(
        &mut self,
        status: Final,
        code: i32,
        message: Option<String>,
    ) -> Option<&Finished> {
        if self.finished.is_some() {
            return None;
        }
        let (status, code) = match self.registered {
            true => (status, code),
            false => (Final::Failed, exit_code::SC_NOT_INITED),
        };
        self.finished = Some(Finished {
            status,
            code,
            message,
        });
        self.finished.as_ref()
    }

    /// The Reporter's pass ended with the allocator's `report`: stop for the executor-failure
    /// limit or every node excluded, count the RM's failure (an attempt the RM no longer knows
    /// ends the loop at once), else sleep.
    pub fn after_pass(&mut self, report: &AllocatorReport) -> ReporterStep {
        let stop = |message: String, code| ReporterStep::Finish {
            status: Final::Failed,
            code,
            message,
            error: None,
        };
        match report.stop {
            Some(ReporterStop::MaxExecutorFailures) => {
                let max = self.rules.max_executor_failures;
                let message = format!("Max number of executor failures ({max}) reached");
                return stop(message, exit_code::MAX_EXECUTOR_FAILURES);
            }
            Some(ReporterStop::AllNodesExcluded) => {
                let message = "Due to executor failures all available nodes are excluded".into();
                return stop(message, exit_code::MAX_EXECUTOR_FAILURES);
            }
            None => {}
        }
        let failures = match &report.rm_failure {
            Some(failure) => match self.rm_failed(failure) {
                Ok(n) => Some(n),
                Err(step) => return step,
            },
            None => {
                self.reporter_failures = 0;
                None
            }
        };
        ReporterStep::Sleep {
            ms: self.next_sleep_ms(report),
            failures,
        }
    }

    /// One more failure of the RM in a row: its count, or the step that ends the loop.
    fn rm_failed(&mut self, failure: &RpcFailure) -> Result<i32, ReporterStep> {
        self.reporter_failures += 1;
        if failure
            .class
            .ends_with("ApplicationAttemptNotFoundException")
        {
            return Err(ReporterStep::Finish {
                status: Final::Failed,
                code: exit_code::REPORTER_FAILURE,
                message: failure.message.clone(),
                error: Some("Exception from Reporter thread."),
            });
        }
        if self.reporter_failures >= self.rules.max_reporter_failures {
            let n = self.reporter_failures;
            return Err(ReporterStep::Finish {
                status: Final::Failed,
                code: exit_code::REPORTER_FAILURE,
                message: format!("Exception was thrown {n} time(s) from Reporter thread."),
                error: None,
            });
        }
        Ok(self.reporter_failures)
    }

    /// 200, 400, 800, ... up to the heartbeat while containers or loss reasons are pending;
    /// else the heartbeat, and the interval starts again from the initial one.
    fn next_sleep_ms(&mut self, report: &AllocatorReport) -> u64 {
        let i = self.rules.intervals;
        if report.num_pending_allocate > 0 || report.num_pending_loss_reason_requests > 0 {
            let current = i.heartbeat_ms.min(self.next_allocation_interval_ms);
            self.next_allocation_interval_ms = current.saturating_mul(2);
            current
        } else {
            self.next_allocation_interval_ms = i.initial_ms;
            i.heartbeat_ms
        }
    }

    /// `resetAllocatorInterval()` while the Reporter waits, `slept_ms` into its wait: the
    /// interval starts again from the initial one, and the wait lasts at least the initial
    /// interval in all ("if sleep was less than the minimum interval, sleep for the rest of
    /// it"): the rest to sleep.
    pub fn wake(&mut self, slept_ms: u64) -> u64 {
        let initial = self.rules.intervals.initial_ms;
        self.next_allocation_interval_ms = initial;
        initial.saturating_sub(slept_ms)
    }

    /// The shutdown hook (ApplicationMaster.run's): unregister when the AM registered and has
    /// not yet, and it succeeded or this is the last attempt; Spark 4.0 deletes the staging
    /// directory before unregistering on the last attempt.
    pub fn shutdown_hook(&self) -> HookStep {
        let (status, diagnostics) = match &self.finished {
            Some(f) => (f.status, f.message.clone().unwrap_or_default()),
            None => (Final::Failed, String::new()),
        };
        let last = self.rules.last_attempt;
        if !self.registered || self.unregistered || !(status == Final::Succeeded || last) {
            return HookStep::Exit;
        }
        HookStep::Unregister {
            status,
            diagnostics,
            clean_staging_first: last,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(last_attempt: bool) -> AmRules {
        AmRules {
            intervals: ReporterIntervals {
                heartbeat_ms: 3000,
                initial_ms: 200,
            },
            max_reporter_failures: 5,
            max_executor_failures: 8,
            last_attempt,
        }
    }

    fn report(pending: u32, rm_failure: Option<&str>) -> AllocatorReport {
        AllocatorReport {
            num_pending_allocate: pending,
            rm_failure: rm_failure.map(|class| RpcFailure {
                class: class.into(),
                message: "gone".into(),
                cause: None,
            }),
            num_pending_loss_reason_requests: 0,
            stop: None,
        }
    }

    /// ApplicationMaster.finish: only the first call counts, and before registration cluster
    /// mode records EXIT_SC_NOT_INITED (13) as FAILED.
    #[test]
    fn the_first_finish_wins_and_before_registration_it_is_failed_13() {
        let mut am = AmState::new(rules(false));
        let f = am.finish(Final::Succeeded, 0, None).cloned();
        assert_eq!(f.map(|f| (f.status, f.code)), Some((Final::Failed, 13)));
        assert!(am.finish(Final::Failed, 11, None).is_none());
        let mut am = AmState::new(rules(false));
        am.registered = true;
        let f = am.finish(Final::Failed, 15, Some("threw".into())).cloned();
        assert_eq!(f.map(|f| (f.status, f.code)), Some((Final::Failed, 15)));
    }

    /// allocationThreadImpl: the RM failing warns N time(s) in a row, a success resets the
    /// count, the maxFailures-th ends the loop with EXIT_REPORTER_FAILURE (12).
    #[test]
    fn the_reporter_gives_up_after_max_failures_in_a_row() {
        let mut am = AmState::new(rules(false));
        let io = Some("java.io.IOException");
        for n in 1..=4 {
            let step = am.after_pass(&report(0, io));
            assert_eq!(
                step,
                ReporterStep::Sleep {
                    ms: 3000,
                    failures: Some(n)
                }
            );
        }
        assert_eq!(
            am.after_pass(&report(0, None)),
            ReporterStep::Sleep {
                ms: 3000,
                failures: None
            }
        );
        for _ in 1..=4 {
            am.after_pass(&report(0, io));
        }
        let ReporterStep::Finish { code, message, .. } = am.after_pass(&report(0, io)) else {
            panic!("the fifth failure in a row ends the loop");
        };
        assert_eq!(
            (code, message.as_str()),
            (12, "Exception was thrown 5 time(s) from Reporter thread.")
        );
    }

    /// An attempt the RM no longer knows ends the loop at once, with its message.
    #[test]
    fn an_unknown_attempt_ends_the_reporter_at_once() {
        let mut am = AmState::new(rules(false));
        let class = Some("org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException");
        let step = am.after_pass(&report(0, class));
        assert_eq!(
            step,
            ReporterStep::Finish {
                status: Final::Failed,
                code: 12,
                message: "gone".into(),
                error: Some("Exception from Reporter thread."),
            }
        );
    }

    #[test]
    fn the_executor_failure_limit_and_excluded_nodes_end_the_application_with_11() {
        let mut am = AmState::new(rules(false));
        let mut r = report(0, None);
        r.stop = Some(ReporterStop::MaxExecutorFailures);
        let ReporterStep::Finish { code, message, .. } = am.after_pass(&r) else {
            panic!("a stop");
        };
        assert_eq!(
            (code, message.as_str()),
            (11, "Max number of executor failures (8) reached")
        );
        r.stop = Some(ReporterStop::AllNodesExcluded);
        let ReporterStep::Finish { message, .. } = am.after_pass(&r) else {
            panic!("a stop");
        };
        assert_eq!(
            message,
            "Due to executor failures all available nodes are excluded"
        );
    }

    /// The interval doubles from the initial one while containers are pending, capped at the
    /// heartbeat; with nothing pending it is the heartbeat and starts again.
    #[test]
    fn the_allocation_interval_doubles_while_containers_are_pending() {
        let mut am = AmState::new(rules(false));
        let sleeps: Vec<u64> = (0..6)
            .map(|_| match am.after_pass(&report(3, None)) {
                ReporterStep::Sleep { ms, .. } => ms,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(sleeps, vec![200, 400, 800, 1600, 3000, 3000]);
        assert_eq!(
            am.after_pass(&report(0, None)),
            ReporterStep::Sleep {
                ms: 3000,
                failures: None
            }
        );
        assert_eq!(
            am.after_pass(&report(1, None)),
            ReporterStep::Sleep {
                ms: 200,
                failures: None
            }
        );
        am.after_pass(&report(1, None));
        assert_eq!(am.wake(150), 50);
        assert_eq!(am.wake(900), 0);
        assert_eq!(
            am.after_pass(&report(1, None)),
            ReporterStep::Sleep {
                ms: 200,
                failures: None
            }
        );
    }

    /// The shutdown hook unregisters on success, or on failure only in the last attempt (then
    /// after deleting the staging directory); a failed earlier attempt leaves YARN to retry.
    #[test]
    fn the_hook_unregisters_on_success_or_the_last_attempt() {
        let finished = |last, status| {
            let mut am = AmState::new(rules(last));
            am.registered = true;
            am.finish(status, 0, Some("why".into()));
            am.shutdown_hook()
        };
        assert_eq!(
            finished(false, Final::Succeeded),
            HookStep::Unregister {
                status: Final::Succeeded,
                diagnostics: "why".into(),
                clean_staging_first: false
            }
        );
        assert_eq!(finished(false, Final::Failed), HookStep::Exit);
        let last = finished(true, Final::Failed);
        assert!(matches!(
            last,
            HookStep::Unregister {
                clean_staging_first: true,
                ..
            }
        ));
        let never_registered = AmState::new(rules(true));
        assert_eq!(never_registered.shutdown_hook(), HookStep::Exit);
    }
}
