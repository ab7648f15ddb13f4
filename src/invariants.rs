//! The invariants checked once a run has ended (those checked during the run live in
//! `sparkyard_actors::simulation::invariants`). Each is a function of the run's result, so a test can
//! hand it a result that breaks it.

use crate::record::RunResult;
use sparkyard_actors::simulation::config::SimConfig;
use sparkyard_actors::simulation::facts::should_count_towards_max_attempt_retry;
use sparkyard_actors::simulation::invariants::{Violation, attempts_bounded, name};
use sparkyard_messages::records::{FinalApplicationStatus as Final, YarnApplicationState as State};

/// What the end-of-run checks need to know about the settings.
pub struct Limits {
    pub max_attempts: u32,
    /// Whether AM attempt failures can expire (`spark.yarn.am.attemptFailuresValidityInterval`).
    pub attempt_failures_expire: bool,
    /// Whether failures can expire (then the exact count cannot be recomputed).
    pub failures_expire: bool,
}

impl Limits {
    pub fn of(config: &SimConfig) -> Self {
        let yarn = config.yarn.am_max_attempts;
        let max_attempts = config
            .spark
            .max_app_attempts
            .filter(|s| (1..=yarn).contains(s))
            .unwrap_or(yarn);
        Limits {
            max_attempts,
            attempt_failures_expire: config
                .spark
                .am_attempt_failures_validity_interval_ms
                .is_some_and(|ms| ms > 0),
            failures_expire: config
                .spark
                .executor_failures_validity_interval_ms
                .is_some(),
        }
    }
}

fn violation(invariant: &'static str, detail: String, r: &RunResult) -> Violation {
    Violation {
        invariant,
        detail,
        time_ms: r.end_ms,
        // A single run's record: its one application.
        application: Some(0),
    }
}

/// Every end-of-run invariant that does not hold.
pub fn check(r: &RunResult, limits: &Limits) -> Vec<Violation> {
    let mut out = Vec::new();
    let o = &r.outcome;
    let c = &r.counters;
    let succeeded = o.state == Some(State::Finished) && o.final_status == Some(Final::Succeeded);
    let jobs = c.driver_jobs;
    if succeeded && (jobs.started == 0 || jobs.started != jobs.succeeded) {
        let (a, jobs, ok) = (jobs.attempt, jobs.started, jobs.succeeded);
        out.push(violation(
            name::SUCCEEDED_RAN_ALL_TASKS,
            format!("SUCCEEDED, but attempt {a}'s driver finished {ok} of {jobs} jobs"),
            r,
        ));
    }
    if succeeded == o.exception.is_some() {
        out.push(violation(
            name::EXIT_CODE_MATCHES,
            format!(
                "final status {:?} / {:?} with exception {:?}",
                o.state,
                o.final_status,
                o.exception.as_ref().map(|e| (&e.class, &e.message))
            ),
            r,
        ));
    }
    if !limits.failures_expire {
        let bad_node = c
            .executor_exits
            .iter()
            .filter(|lost| lost.counted_as_failure)
            .count() as u32;
        if bad_node != c.executor_failures_counted {
            let detail = format!(
                "{} failures counted, but {bad_node} losses were \"Container from a bad node\"",
                c.executor_failures_counted
            );
            out.push(violation(name::FAILURES_COUNTED, detail, r));
        }
    }
    // Hadoop's RMAppImpl counts only the failures shouldCountTowardsMaxAttemptRetry keeps
    // (not preempted, lost-node, disk or RM kills), and with a validity interval only recent ones.
    let uncounted = c
        .am_exit_codes
        .values()
        .filter(|s| !should_count_towards_max_attempt_retry(**s))
        .count() as u32;
    let counted_attempts = c.am_attempts.saturating_sub(uncounted);
    if !limits.attempt_failures_expire
        && let Err(detail) = attempts_bounded(counted_attempts, limits.max_attempts)
    {
        out.push(violation(name::ATTEMPTS_BOUNDED, detail, r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_actors::simulation::context::ClientOutcome;
    use sparkyard_actors::simulation::logs::LogStore;
    use sparkyard_actors::simulation::observer::{DriverJobs, LostExecutor, RunCounters};
    use sparkyard_messages::ids::ExecutorId;
    use sparkyard_messages::records::RpcFailure;

    fn result(state: State, fs: Final, exception: bool) -> RunResult {
        let outcome = ClientOutcome {
            application_id: None,
            state: Some(state),
            final_status: Some(fs),
            original_tracking_url: None,
            diagnostics: String::new(),
            exception: exception.then(|| RpcFailure::new("c", "m")),
            finished_at_ms: 1,
            temp_dir: String::new(),
        };
        let mut counters = RunCounters::default();
        counters.am_attempts = 1;
        counters.driver_jobs = DriverJobs {
            attempt: 1,
            started: 1,
            succeeded: 1,
        };
        RunResult {
            outcome,
            counters,
            logs: LogStore::default(),
            trace: Vec::new(),
            fingerprint: 0,
            labels: Vec::new(),
            processes: Vec::new(),
            end_ms: 1,
            epoch_ms: 0,
            events: Vec::new(),
            faults_fired: Vec::new(),
            faults_unfired: Vec::new(),
            violations: Vec::new(),
            task_costs: Default::default(),
        }
    }

    const LIMITS: Limits = Limits {
        max_attempts: 2,
        attempt_failures_expire: false,
        failures_expire: false,
    };

    fn names(r: &RunResult) -> Vec<&'static str> {
        check(r, &LIMITS).iter().map(|v| v.invariant).collect()
    }

    #[test]
    fn a_good_run_breaks_nothing() {
        assert!(names(&result(State::Finished, Final::Succeeded, false)).is_empty());
        assert!(names(&result(State::Failed, Final::Failed, true)).is_empty());
    }

    #[test]
    fn each_end_of_run_invariant_can_fail() {
        let mut r = result(State::Finished, Final::Succeeded, false);
        r.counters.driver_jobs = DriverJobs {
            attempt: 1,
            started: 2,
            succeeded: 1,
        };
        assert_eq!(names(&r), [name::SUCCEEDED_RAN_ALL_TASKS]);
        assert_eq!(
            names(&result(State::Finished, Final::Succeeded, true)),
            [name::EXIT_CODE_MATCHES]
        );
        assert_eq!(
            names(&result(State::Finished, Final::Failed, false)),
            [name::EXIT_CODE_MATCHES]
        );
        let mut r = result(State::Failed, Final::Failed, true);
        r.counters.executor_failures_counted = 2;
        r.counters.executor_exits.push(LostExecutor {
            executor: ExecutorId(1),
            attempt: 1,
            exit_status: Some(1),
            reason: "Container from a bad node: c".into(),
            counted_as_failure: true,
        });
        assert_eq!(names(&r), [name::FAILURES_COUNTED]);
        let mut r = result(State::Failed, Final::Failed, true);
        r.counters.am_attempts = 3;
        assert_eq!(names(&r), [name::ATTEMPTS_BOUNDED]);
    }

    // Hadoop 3.4 RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry: a preempted AM (-102) does
    // not use up an attempt, so a third attempt under a maximum of 2 is within the bound.
    #[test]
    fn preempted_attempts_do_not_count_toward_the_bound() {
        let mut r = result(State::Finished, Final::Succeeded, false);
        r.counters.am_attempts = 3;
        r.counters.am_exit_codes.insert(1, -102);
        r.counters.am_exit_codes.insert(2, -102);
        r.counters.am_exit_codes.insert(3, 0);
        assert!(names(&r).is_empty());
        r.counters.am_exit_codes.insert(2, 137);
        r.counters.am_attempts = 4;
        assert_eq!(names(&r), [name::ATTEMPTS_BOUNDED]);
    }
}
