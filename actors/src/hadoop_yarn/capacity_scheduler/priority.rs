//! Application priorities in the CapacityScheduler: the priority an application is granted
//! (`CapacityScheduler.checkAndGetApplicationPriority`: the queue's default priority, 0, when
//! none is asked, capped at `yarn.cluster.max-application-priority`) and the order it gives a
//! leaf queue's applications (`FifoOrderingPolicy`'s `PriorityComparator` then
//! `FifoComparator`, and `FifoOrderingPolicyForPendingApps` for activation): the higher
//! priority first, then the older application. Mirrors Hadoop 3.4.

use super::*;
use std::cmp::Reverse;

/// What `checkAndGetApplicationPriority` decided, with the lines it logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantedPriority {
    pub priority: u32,
    /// None asked: the queue's default (0) is used.
    pub defaulted: bool,
}

impl GrantedPriority {
    /// `CapacityScheduler.checkAndGetApplicationPriority` for an application asking
    /// `requested` (Spark's `spark.yarn.priority`), under the cluster's maximum.
    pub fn check(requested: Option<u32>, cluster_max: u32) -> Self {
        GrantedPriority {
            priority: requested.unwrap_or(0).min(cluster_max),
            defaulted: requested.is_none(),
        }
    }
}

impl CapacityScheduler {
    /// The application's granted priority (set before its first attempt is added).
    pub fn set_application_priority(&mut self, app: ApplicationId, priority: u32) {
        if priority > 0 {
            self.priorities.insert(app, priority);
        } else {
            self.priorities.remove(&app);
        }
    }

    /// The FIFO policy's sort key: the higher priority first, then the older attempt.
    pub(super) fn fifo_key(&self, a: ApplicationAttemptId) -> (Reverse<u32>, ApplicationAttemptId) {
        let p = self.priorities.get(&a.application_id).copied().unwrap_or(0);
        (Reverse(p), a)
    }

    /// A new attempt joins its queue's pending applications in the pending policy's order
    /// (`FifoOrderingPolicyForPendingApps`: priority, then submission).
    pub(super) fn add_pending(&mut self, q: usize, attempt: ApplicationAttemptId) {
        let key = self.fifo_key(attempt);
        let at = self.queues[q]
            .pending
            .iter()
            .position(|(x, _)| self.fifo_key(*x) > key)
            .unwrap_or(self.queues[q].pending.len());
        self.queues[q].pending.insert(at, (attempt, None));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::attempt;
    use super::*;

    /// CapacityScheduler.checkAndGetApplicationPriority (Hadoop 3.4): no priority asked -> the
    /// queue's default, 0; above yarn.cluster.max-application-priority (default 0) -> capped.
    #[test]
    fn the_granted_priority_is_capped_at_the_cluster_maximum() {
        assert_eq!(GrantedPriority::check(None, 10).priority, 0);
        assert!(GrantedPriority::check(None, 10).defaulted);
        assert_eq!(GrantedPriority::check(Some(5), 0).priority, 0);
        assert_eq!(GrantedPriority::check(Some(5), 10).priority, 5);
        assert_eq!(GrantedPriority::check(Some(50), 10).priority, 10);
    }

    /// FifoOrderingPolicy (Hadoop 3.x: CompoundComparator of PriorityComparator and
    /// FifoComparator): in one queue the higher-priority application gets the container first
    /// even when it is newer; with equal priorities the older one does.
    #[test]
    fn a_higher_priority_application_is_served_first_in_its_queue() {
        let limits = AllocationLimits {
            minimum_mb: 1024,
            maximum_mb: 8192,
            minimum_vcores: 1,
            maximum_vcores: 4,
        };
        let mut cs = CapacityScheduler::new(limits);
        let r = Resource {
            memory_mb: 1024,
            vcores: 1,
            gpus: 0,
        };
        let total = Resource {
            memory_mb: 8192,
            vcores: 8,
            gpus: 0,
        };
        let host = |h: &str| NodeId {
            host: h.into(),
            port: 8041,
        };
        cs.add_node(host("n0"), "/r".into(), total);
        cs.add_node(host("n1"), "/r".into(), total);
        let (old, new) = (attempt(1), attempt(2));
        cs.set_application_priority(new.application_id, 5);
        // Both activate: the AM limit is 10 % of 16 GB, 2 GB, and the AMs take 1 GB each.
        cs.add_attempt_in(old, r, "default", "u");
        cs.add_attempt_in(new, r, "default", "u");
        // The newer, higher-priority application's AM comes first.
        assert_eq!(cs.node_update(0)[0].attempt, new);
        assert_eq!(cs.node_update(1)[0].attempt, old);
        for a in [old, new] {
            cs.update_requests(a, r, 2, 0, &[], &[]);
        }
        let next: Vec<_> = (0..3).map(|i| cs.node_update(i % 2)[0].attempt).collect();
        assert_eq!(next, [new, new, old]);
    }
}
