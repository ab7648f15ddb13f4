//! When the executors a driver is waiting for were asked for: Spark 4.0.0's
//! `CoarseGrainedSchedulerBackend.execRequestTimes` (`updateExecRequestTimes` from
//! `requestTotalExecutors`, and `RegisterExecutor`'s take), which gives an executor's
//! `ExecutorInfo.requestTime`, the event log's `Request Time`. One queue: sparkyard's
//! applications run the default resource profile.

use std::collections::VecDeque;

/// A batch of executors asked for at one time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Batch {
    count: u32,
    time_ms: u64,
}

/// `execRequestTimes(profile)` with `requestedTotalExecutorsPerResourceProfile(profile)`.
#[derive(Debug, Default)]
pub struct ExecRequestTimes {
    /// The last total asked for (`requestTotalExecutors`); none asked yet is 0.
    requested_total: u32,
    batches: VecDeque<Batch>,
}

impl ExecRequestTimes {
    /// `requestTotalExecutors` -> `updateExecRequestTimes(old, new)`: the change against the
    /// previous total is queued (more) or consumed from the oldest batch (fewer).
    pub fn request_total(&mut self, total: u32, now_ms: u64) {
        let old = std::mem::replace(&mut self.requested_total, total);
        if total > old {
            self.add(total - old, now_ms);
        } else {
            self.consume(old - total);
        }
    }

    /// `RegisterExecutor`: the executor takes one from the oldest batch; its request time, or
    /// none when nothing was asked for through the backend (a static allocation's executors,
    /// which the ApplicationMaster asks for on its own).
    pub fn take_for_registration(&mut self) -> Option<u64> {
        let head = self.batches.pop_front()?;
        if head.count > 1 {
            self.batches.push_front(Batch {
                count: head.count - 1,
                ..head
            });
        }
        Some(head.time_ms)
    }

    fn add(&mut self, count: u32, time_ms: u64) {
        if count > 0 {
            self.batches.push_back(Batch { count, time_ms });
        }
    }

    /// `updateExecRequestTime(profile, -n)`: "consume as if |delta| had been allocated".
    fn consume(&mut self, mut n: u32) {
        while n > 0 {
            let Some(head) = self.batches.pop_front() else {
                return;
            };
            if head.count > n {
                self.batches.push_front(Batch {
                    count: head.count - n,
                    ..head
                });
                return;
            }
            n -= head.count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CoarseGrainedSchedulerBackend (4.0.0 jar): each registration takes the oldest request's
    /// time; a batch of two serves two executors.
    #[test]
    fn executors_take_their_request_times_oldest_first() {
        let mut t = ExecRequestTimes::default();
        t.request_total(2, 1_000);
        t.request_total(3, 5_000);
        assert_eq!(t.take_for_registration(), Some(1_000));
        assert_eq!(t.take_for_registration(), Some(1_000));
        assert_eq!(t.take_for_registration(), Some(5_000));
        assert_eq!(t.take_for_registration(), None);
    }

    /// CoarseGrainedSchedulerBackendSuite "exec alloc decrease." in one resource profile: a
    /// request taken back before any executor came (1, then 0) leaves no request time; the
    /// next request's executors take its time, and an executor beyond every request has
    /// none ("Our unexpected executor does not have a request time.").
    #[test]
    fn a_request_taken_back_leaves_no_request_time() {
        let mut t = ExecRequestTimes::default();
        t.request_total(1, 1_000);
        t.request_total(0, 2_000);
        t.request_total(2, 3_000);
        assert_eq!(t.take_for_registration(), Some(3_000));
        assert_eq!(t.take_for_registration(), Some(3_000));
        assert_eq!(t.take_for_registration(), None);
    }

    /// CoarseGrainedSchedulerBackendSuite "extra resources from executor" (its request times):
    /// after `requestExecutors(3)` every one of the three executors registering has the
    /// request's time, none later than its registration.
    #[test]
    fn every_requested_executor_has_its_request_time() {
        let mut t = ExecRequestTimes::default();
        t.request_total(3, 4_000);
        let registered_ms = 9_000;
        for _ in 0..3 {
            let time = t.take_for_registration().expect("a request time");
            assert!(time > 0 && time <= registered_ms);
        }
    }

    /// A lower total consumes the oldest requests first, as if they had been allocated; a
    /// lower total than anything queued leaves the queue empty.
    #[test]
    fn a_lower_total_consumes_the_oldest_requests() {
        let mut t = ExecRequestTimes::default();
        t.request_total(2, 1_000);
        t.request_total(4, 2_000);
        t.request_total(1, 3_000);
        assert_eq!(t.take_for_registration(), Some(2_000));
        assert_eq!(t.take_for_registration(), None);
        t.request_total(0, 4_000);
        t.request_total(1, 6_000);
        assert_eq!(t.take_for_registration(), Some(6_000));
    }
}
