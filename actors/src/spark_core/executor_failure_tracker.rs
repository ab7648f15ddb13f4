//! Owns the count of failed executors, overall and per host, within
//! `spark.executor.failuresValidityInterval`; mirrors Spark's
//! `org.apache.spark.deploy.ExecutorFailureTracker` (core). Plain data: the caller passes the
//! time in, so a test can step it like Spark's `ManualClock`.

use std::collections::{BTreeMap, VecDeque};

/// Failure times, all hosts together and per host.
#[derive(Debug, Default)]
pub struct ExecutorFailureTracker {
    /// `spark.executor.failuresValidityInterval`; `None` (Spark's -1) keeps failures forever.
    validity_interval_ms: Option<u64>,
    /// `failedExecutorsTimeStamps`.
    failed: VecDeque<u64>,
    /// `failedExecutorsTimeStampsPerHost`.
    failed_per_host: BTreeMap<String, VecDeque<u64>>,
}

impl ExecutorFailureTracker {
    pub fn new(validity_interval_ms: Option<u64>) -> Self {
        ExecutorFailureTracker {
            validity_interval_ms,
            ..Self::default()
        }
    }

    /// `registerFailureOnHost`: counts for the host and for all hosts.
    pub fn register_failure_on_host(&mut self, host: &str, now_ms: u64) {
        self.failed.push_back(now_ms);
        match self.failed_per_host.get_mut(host) {
            Some(times) => times.push_back(now_ms),
            None => {
                self.failed_per_host
                    .insert(host.to_string(), VecDeque::from([now_ms]));
            }
        }
    }

    /// `registerExecutorFailure`: a failure no host is blamed for.
    pub fn register_executor_failure(&mut self, now_ms: u64) {
        self.failed.push_back(now_ms);
    }

    /// `numFailedExecutors`: the failures still inside the validity interval at `now_ms`.
    pub fn num_failed_executors(&mut self, now_ms: u64) -> u32 {
        let window = self.window();
        count_recent(&mut self.failed, window, now_ms)
    }

    /// `numFailuresOnHost`: the host's failures still inside the validity interval.
    pub fn num_failures_on_host(&mut self, host: &str, now_ms: u64) -> u32 {
        let window = self.window();
        self.failed_per_host
            .get_mut(host)
            .map_or(0, |times| count_recent(times, window, now_ms))
    }

    /// Spark expires failures only for an interval above 0 (`executorFailuresValidityInterval > 0`).
    fn window(&self) -> Option<u64> {
        self.validity_interval_ms.filter(|w| *w > 0)
    }
}

/// `updateAndCountFailures`: drops the times older than `now - window`, counts the rest.
fn count_recent(times: &mut VecDeque<u64>, window: Option<u64>, now_ms: u64) -> u32 {
    if let Some(window) = window {
        // Spark's `head < endTime - interval`, written without going below 0.
        while times.front().is_some_and(|t| *t + window < now_ms) {
            times.pop_front();
        }
    }
    times.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step of a table: the clock, the host that fails then (if any), and what the tracker
    /// must count afterwards.
    struct Step {
        at_ms: u64,
        fail_on: Option<&'static str>,
        host1: u32,
        host2: u32,
        all: u32,
    }

    fn run(tracker: &mut ExecutorFailureTracker, steps: &[Step]) {
        for s in steps {
            if let Some(h) = s.fail_on {
                tracker.register_failure_on_host(h, s.at_ms);
            }
            assert_eq!(
                tracker.num_failures_on_host("host1", s.at_ms),
                s.host1,
                "host1 at {}",
                s.at_ms
            );
            assert_eq!(
                tracker.num_failures_on_host("host2", s.at_ms),
                s.host2,
                "host2 at {}",
                s.at_ms
            );
            assert_eq!(
                tracker.num_failed_executors(s.at_ms),
                s.all,
                "all at {}",
                s.at_ms
            );
        }
    }

    const fn step(
        at_ms: u64,
        fail_on: Option<&'static str>,
        host1: u32,
        host2: u32,
        all: u32,
    ) -> Step {
        Step {
            at_ms,
            fail_on,
            host1,
            host2,
            all,
        }
    }

    /// Ports ExecutorFailureTrackerSuite "failures expire if validity interval is set".
    #[test]
    fn failures_expire_if_validity_interval_is_set() {
        let mut t = ExecutorFailureTracker::new(Some(100));
        run(
            &mut t,
            &[
                step(0, Some("host1"), 1, 0, 1),
                step(10, Some("host2"), 1, 1, 2),
                step(20, Some("host1"), 2, 1, 3),
                step(30, Some("host2"), 2, 2, 4),
                // The failure at 0 is older than 101 - 100.
                step(101, None, 1, 2, 3),
                step(231, None, 0, 0, 0),
            ],
        );
    }

    /// Ports ExecutorFailureTrackerSuite "failures never expire if validity interval is not set (-1)".
    #[test]
    fn failures_never_expire_if_validity_interval_is_not_set() {
        let mut t = ExecutorFailureTracker::new(None);
        run(
            &mut t,
            &[
                step(0, Some("host1"), 1, 0, 1),
                step(10, Some("host2"), 1, 1, 2),
                step(20, Some("host1"), 2, 1, 3),
                step(30, Some("host2"), 2, 2, 4),
                step(1000, None, 2, 2, 4),
            ],
        );
    }

    /// Spark's `executorFailuresValidityInterval > 0` guard: an interval of 0 keeps failures.
    #[test]
    fn a_zero_validity_interval_keeps_failures() {
        let mut t = ExecutorFailureTracker::new(Some(0));
        t.register_executor_failure(0);
        assert_eq!(t.num_failed_executors(1_000), 1);
    }

    /// A failure with no host counts for all hosts only (`registerExecutorFailure`).
    #[test]
    fn an_executor_failure_is_blamed_on_no_host() {
        let mut t = ExecutorFailureTracker::new(None);
        t.register_executor_failure(5);
        assert_eq!(t.num_failed_executors(5), 1);
        assert_eq!(t.num_failures_on_host("host1", 5), 0);
    }
}
