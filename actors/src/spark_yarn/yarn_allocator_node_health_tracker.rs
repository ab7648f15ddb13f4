//! Owns the hosts the YarnAllocator excludes (`spark.yarn.exclude.nodes` and the hosts whose
//! containers failed too often) and what of them the RM has been told; mirrors Spark's
//! `org.apache.spark.deploy.yarn.YarnAllocatorNodeHealthTracker`. Plain data: the caller passes
//! the time in and logs what the returned `AllocationFailure` says.

use crate::spark_core::executor_failure_tracker::ExecutorFailureTracker;
use crate::world::config::SparkSettings;
use std::collections::{BTreeMap, BTreeSet};

/// The settings the tracker reads.
#[derive(Clone, Debug, Default)]
pub struct NodeHealthSettings {
    /// `spark.yarn.executor.launch.excludeOnFailure.enabled`.
    pub launch_exclude_on_failure: bool,
    /// `spark.excludeOnFailure.application.maxFailedExecutorsPerNode`.
    pub max_failures_per_host: u32,
    /// `spark.excludeOnFailure.timeout` (HealthTracker.getExludeOnFailureTimeout).
    pub exclude_timeout_ms: u64,
    /// `spark.yarn.exclude.nodes`.
    pub exclude_nodes: Vec<String>,
}

impl NodeHealthSettings {
    pub fn from_spark(s: &SparkSettings) -> Self {
        NodeHealthSettings {
            launch_exclude_on_failure: s.launch_exclude_on_failure,
            max_failures_per_host: s.max_failed_executors_per_node,
            exclude_timeout_ms: s.exclude_on_failure_timeout_ms,
            exclude_nodes: s.exclude_nodes.clone(),
        }
    }
}

/// One `synchronizeExcludedNodesWithYarn`: what the RM's exclusion list gains and loses
/// (each sorted, as Spark's `(... -- ...).toList.sorted`). Spark logs both lists in the call that
/// computed them and hands them to `amClient.updateBlacklist`, which sends them with the next
/// allocate call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExclusionSync {
    pub additions: Vec<String>,
    pub removals: Vec<String>,
}

/// What `handleResourceAllocationFailure` did with one failed container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationFailure {
    /// Counted for all hosts only: no host known, or exclusion on launch failure off.
    Counted,
    /// Not counted at all: the host is already excluded (by the allocator or the scheduler).
    NotTracked,
    /// Counted for the host too; the host stays usable.
    CountedOnHost { failures_on_host: u32 },
    /// The host failed more than `maxFailedExecutorsPerNode` times and is excluded now; `sync`
    /// is the `refreshExcludedNodes` that exclusion ran (`None` when the RM's list is unchanged).
    HostExcluded {
        host: String,
        failures_on_host: u32,
        sync: Option<ExclusionSync>,
    },
}

/// `YarnAllocatorNodeHealthTracker`: the exclusion decisions, on the failure tracker the
/// allocator owns (Spark shares one `ExecutorFailureTracker` between the two).
///
/// Spark rebuilds `excludeNodes ++ schedulerExcludedNodeList ++ allocatorExcludedNodeList.keySet`
/// and diffs it with `currentExcludededYarnNodes` on every refresh; here a refresh looks only at
/// the hosts whose membership can have changed since the last one (expired allocator exclusions,
/// the newly excluded host, the scheduler list's difference), which gives the same lists
/// without a walk over every excluded host.
pub struct YarnAllocatorNodeHealthTracker {
    settings: NodeHealthSettings,
    /// `excludeNodes` (`spark.yarn.exclude.nodes`).
    fixed: BTreeSet<String>,
    /// `allocatorExcludedNodeList`: host -> end of its exclusion. Expired entries stay until
    /// the next refresh, as in Spark (`removeExpiredYarnExcludedNodes` runs only there).
    allocator: BTreeMap<String, u64>,
    /// The same entries by end, for the expiry sweep.
    by_expiry: BTreeSet<(u64, String)>,
    /// `schedulerExcludedNodeList`: the driver's HealthTracker list from the last request.
    scheduler: BTreeSet<String>,
    /// `currentExcludededYarnNodes`: what the RM has been told.
    current: BTreeSet<String>,
}

impl YarnAllocatorNodeHealthTracker {
    /// Spark 4 syncs `spark.yarn.exclude.nodes` from the constructor (SPARK-41585: "YARN
    /// Exclude Nodes should work independently of dynamic allocation"); the caller logs and
    /// sends the returned sync.
    pub fn new(settings: NodeHealthSettings) -> (Self, Option<ExclusionSync>) {
        let fixed: BTreeSet<String> = settings.exclude_nodes.iter().cloned().collect();
        let mut tracker = YarnAllocatorNodeHealthTracker {
            settings,
            fixed: fixed.clone(),
            allocator: BTreeMap::new(),
            by_expiry: BTreeSet::new(),
            scheduler: BTreeSet::new(),
            current: BTreeSet::new(),
        };
        let sync = tracker.refresh(fixed, 0);
        (tracker, sync)
    }

    /// `handleResourceAllocationFailure(hostOpt)`: counts a container that failed on `host`,
    /// and excludes the host once it failed more than `maxFailedExecutorsPerNode` times.
    pub fn handle_resource_allocation_failure(
        &mut self,
        host: Option<&str>,
        failures: &mut ExecutorFailureTracker,
        now_ms: u64,
    ) -> AllocationFailure {
        match host {
            Some(h) if self.settings.launch_exclude_on_failure => {
                // Spark: "failures on an already excluded node are not even tracked", or a late
                // completion there could push the application over spark.executor.maxNumFailures.
                if self.scheduler.contains(h) || self.allocator.contains_key(h) {
                    return AllocationFailure::NotTracked;
                }
                failures.register_failure_on_host(h, now_ms);
                self.update_allocation_excluded_nodes(h, failures, now_ms)
            }
            _ => {
                failures.register_executor_failure(now_ms);
                AllocationFailure::Counted
            }
        }
    }

    /// `updateAllocationExcludedNodes`: `failuresOnHost > maxFailuresPerHost` excludes the host
    /// for `spark.excludeOnFailure.timeout` and refreshes the RM's list in the same call.
    fn update_allocation_excluded_nodes(
        &mut self,
        host: &str,
        failures: &mut ExecutorFailureTracker,
        now_ms: u64,
    ) -> AllocationFailure {
        let failures_on_host = failures.num_failures_on_host(host, now_ms);
        if failures_on_host <= self.settings.max_failures_per_host {
            return AllocationFailure::CountedOnHost { failures_on_host };
        }
        let until = now_ms.saturating_add(self.settings.exclude_timeout_ms);
        self.allocator.insert(host.to_string(), until);
        self.by_expiry.insert((until, host.to_string()));
        let sync = self.refresh(BTreeSet::from([host.to_string()]), now_ms);
        AllocationFailure::HostExcluded {
            host: host.to_string(),
            failures_on_host,
            sync,
        }
    }

    /// `setSchedulerExcludedNodes`: the driver's HealthTracker list, carried by a
    /// `RequestExecutors` that changed the target; refreshes the RM's list.
    pub fn set_scheduler_excluded_nodes(
        &mut self,
        nodes: BTreeSet<String>,
        now_ms: u64,
    ) -> Option<ExclusionSync> {
        let changed: BTreeSet<String> = self
            .scheduler
            .symmetric_difference(&nodes)
            .cloned()
            .collect();
        self.scheduler = nodes;
        self.refresh(changed, now_ms)
    }

    /// `isAllNodeExcluded` counts what the RM was last told (`currentExcludededYarnNodes`), so
    /// an expired exclusion counts until the next refresh, as in Spark.
    pub fn num_excluded_nodes(&self) -> u32 {
        self.current.len() as u32
    }

    /// `refreshExcludedNodes`: drops expired allocator exclusions, then syncs the hosts in
    /// `candidates` and the expired ones with the RM's list.
    fn refresh(&mut self, mut candidates: BTreeSet<String>, now_ms: u64) -> Option<ExclusionSync> {
        // removeExpiredYarnExcludedNodes: `retain { expiryTime > now }`.
        while let Some((until, _)) = self.by_expiry.first() {
            if *until > now_ms {
                break;
            }
            let (_, host) = self.by_expiry.pop_first().expect("checked above");
            self.allocator.remove(&host);
            candidates.insert(host);
        }
        let mut sync = ExclusionSync::default();
        for host in candidates {
            let excluded = self.fixed.contains(&host)
                || self.scheduler.contains(&host)
                || self.allocator.contains_key(&host);
            if excluded && !self.current.contains(&host) {
                self.current.insert(host.clone());
                sync.additions.push(host);
            } else if !excluded && self.current.remove(&host) {
                sync.removals.push(host);
            }
        }
        (!sync.additions.is_empty() || !sync.removals.is_empty()).then_some(sync)
    }
}

/// What `AMRMClientImpl.updateBlacklist` keeps until the next allocate call: an addition
/// cancels a pending removal of the same host and the other way round.
#[derive(Clone, Debug, Default)]
pub struct PendingBlacklist {
    additions: BTreeSet<String>,
    removals: BTreeSet<String>,
}

impl PendingBlacklist {
    /// `AMRMClientImpl.updateBlacklist(additions, removals)`.
    pub fn update(&mut self, sync: &ExclusionSync) {
        for host in &sync.additions {
            self.removals.remove(host);
            self.additions.insert(host.clone());
        }
        for host in &sync.removals {
            self.additions.remove(host);
            self.removals.insert(host.clone());
        }
    }

    /// What the next `allocate` sends (its `ResourceExclusionSync`); the client clears its
    /// lists once they are sent.
    pub fn take(&mut self) -> ExclusionSync {
        ExclusionSync {
            additions: std::mem::take(&mut self.additions).into_iter().collect(),
            removals: std::mem::take(&mut self.removals).into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// YarnAllocatorHealthTrackerSuite's settings: timeout 100, exclusion on launch failure
    /// on, at most 2 failed executors per node.
    fn suite_tracker(
        exclude_nodes: &[&str],
    ) -> (YarnAllocatorNodeHealthTracker, Option<ExclusionSync>) {
        YarnAllocatorNodeHealthTracker::new(NodeHealthSettings {
            launch_exclude_on_failure: true,
            max_failures_per_host: 2,
            exclude_timeout_ms: 100,
            exclude_nodes: exclude_nodes.iter().map(|h| h.to_string()).collect(),
        })
    }

    fn sync(additions: &[&str], removals: &[&str]) -> Option<ExclusionSync> {
        Some(ExclusionSync {
            additions: additions.iter().map(|h| h.to_string()).collect(),
            removals: removals.iter().map(|h| h.to_string()).collect(),
        })
    }

    fn set(hosts: &[&str]) -> BTreeSet<String> {
        hosts.iter().map(|h| h.to_string()).collect()
    }

    /// Fails `host` three times at `now`: the first two are counted, the third excludes it;
    /// returns the sync of that exclusion.
    fn fail_three_times(
        t: &mut YarnAllocatorNodeHealthTracker,
        f: &mut ExecutorFailureTracker,
        host: &str,
        now: u64,
    ) -> Option<ExclusionSync> {
        for n in 1..=2 {
            assert_eq!(
                t.handle_resource_allocation_failure(Some(host), f, now),
                AllocationFailure::CountedOnHost {
                    failures_on_host: n
                }
            );
        }
        match t.handle_resource_allocation_failure(Some(host), f, now) {
            AllocationFailure::HostExcluded {
                host: h,
                failures_on_host: 3,
                sync,
            } if h == host => sync,
            other => panic!("the third failure excludes {host}: {other:?}"),
        }
    }

    /// YarnAllocatorHealthTrackerSuite "expiring its own excluded nodes": the third failure
    /// syncs the host at once; after the timeout, the next refresh (a scheduler list) removes it.
    #[test]
    fn expiring_its_own_excluded_nodes() {
        let (mut t, initial) = suite_tracker(&[]);
        assert_eq!(initial, None);
        let mut f = ExecutorFailureTracker::new(None);
        assert_eq!(
            fail_three_times(&mut t, &mut f, "host", 0),
            sync(&["host"], &[])
        );
        // Expired but not yet refreshed: still what the RM was told.
        assert_eq!(t.num_excluded_nodes(), 1);
        assert_eq!(
            t.set_scheduler_excluded_nodes(BTreeSet::new(), 100),
            sync(&[], &["host"])
        );
        assert_eq!(t.num_excluded_nodes(), 0);
    }

    /// YarnAllocatorHealthTrackerSuite "not handling the expiry of scheduler excluded nodes":
    /// the scheduler's list has no expiry here (the driver's HealthTracker owns it).
    #[test]
    fn not_handling_the_expiry_of_scheduler_excluded_nodes() {
        let (mut t, _) = suite_tracker(&[]);
        assert_eq!(
            t.set_scheduler_excluded_nodes(set(&["host1", "host2"]), 0),
            sync(&["host1", "host2"], &[])
        );
        assert_eq!(
            t.set_scheduler_excluded_nodes(set(&["host1", "host2"]), 200),
            None
        );
    }

    /// YarnAllocatorHealthTrackerSuite "SPARK-41585 YARN Exclude Nodes should work
    /// independently of dynamic allocation": the constructor syncs spark.yarn.exclude.nodes.
    #[test]
    fn exclude_nodes_are_synced_by_the_constructor() {
        let (_, initial) = suite_tracker(&["host2", "host1"]);
        assert_eq!(initial, sync(&["host1", "host2"], &[]));
    }

    /// YarnAllocatorHealthTrackerSuite "combining scheduler and allocation excluded node list".
    #[test]
    fn combining_scheduler_and_allocation_excluded_node_list() {
        let (mut t, initial) = suite_tracker(&["initial1", "initial2"]);
        assert_eq!(initial, sync(&["initial1", "initial2"], &[]));
        assert_eq!(t.set_scheduler_excluded_nodes(BTreeSet::new(), 0), None);
        let mut f = ExecutorFailureTracker::new(None);
        assert_eq!(
            fail_three_times(&mut t, &mut f, "host1", 0),
            sync(&["host1"], &[])
        );
        assert_eq!(
            t.set_scheduler_excluded_nodes(set(&["host2", "host3"]), 0),
            sync(&["host2", "host3"], &[])
        );
        assert_eq!(
            t.set_scheduler_excluded_nodes(set(&["host3", "host4"]), 10),
            sync(&["host4"], &["host2"])
        );
    }

    /// YarnAllocatorHealthTrackerSuite "exclude all available nodes" (4 cluster nodes).
    #[test]
    fn exclude_all_available_nodes() {
        let (mut t, _) = suite_tracker(&[]);
        assert_eq!(
            t.set_scheduler_excluded_nodes(set(&["host1", "host2", "host3"]), 0),
            sync(&["host1", "host2", "host3"], &[])
        );
        let mut f = ExecutorFailureTracker::new(None);
        assert_eq!(
            fail_three_times(&mut t, &mut f, "host4", 60),
            sync(&["host4"], &[])
        );
        let num_cluster_nodes = 4;
        assert!(t.num_excluded_nodes() >= num_cluster_nodes);
    }

    /// With `spark.yarn.executor.launch.excludeOnFailure.enabled` off (Spark's default) a
    /// failure counts for all hosts and never excludes (`case _ => registerExecutorFailure`).
    #[test]
    fn failures_count_without_exclusion_when_disabled() {
        let (mut t, _) = YarnAllocatorNodeHealthTracker::new(NodeHealthSettings {
            max_failures_per_host: 0,
            ..NodeHealthSettings::default()
        });
        let mut f = ExecutorFailureTracker::new(None);
        for _ in 0..3 {
            assert_eq!(
                t.handle_resource_allocation_failure(Some("host1"), &mut f, 0),
                AllocationFailure::Counted
            );
        }
        assert_eq!(f.num_failed_executors(0), 3);
        assert_eq!(f.num_failures_on_host("host1", 0), 0);
        assert_eq!(t.num_excluded_nodes(), 0);
    }

    /// YarnAllocatorNodeHealthTracker.handleResourceAllocationFailure: "failures on an already
    /// excluded node are not even tracked", for the allocator's and the scheduler's exclusions;
    /// a host whose exclusion expired and was refreshed away is counted again.
    #[test]
    fn failures_on_an_excluded_host_are_not_tracked() {
        let (mut t, _) = suite_tracker(&[]);
        let mut f = ExecutorFailureTracker::new(None);
        fail_three_times(&mut t, &mut f, "host1", 0);
        assert_eq!(
            t.handle_resource_allocation_failure(Some("host1"), &mut f, 10),
            AllocationFailure::NotTracked
        );
        t.set_scheduler_excluded_nodes(set(&["host2"]), 10);
        assert_eq!(
            t.handle_resource_allocation_failure(Some("host2"), &mut f, 10),
            AllocationFailure::NotTracked
        );
        assert_eq!(f.num_failed_executors(10), 3);
        assert_eq!(f.num_failures_on_host("host1", 10), 3);
        t.set_scheduler_excluded_nodes(BTreeSet::new(), 100);
        assert_eq!(
            t.handle_resource_allocation_failure(Some("host1"), &mut f, 100),
            AllocationFailure::HostExcluded {
                host: "host1".into(),
                failures_on_host: 4,
                sync: sync(&["host1"], &[]),
            }
        );
    }

    /// AMRMClientImpl.updateBlacklist: an addition cancels a pending removal and the other way
    /// round; `allocate` sends and clears both lists.
    #[test]
    fn pending_blacklist_merges_as_the_amrm_client() {
        let mut p = PendingBlacklist::default();
        p.update(&sync(&["a", "b"], &[]).unwrap());
        p.update(&sync(&[], &["a", "c"]).unwrap());
        assert_eq!(
            p.take(),
            ExclusionSync {
                additions: vec!["b".into()],
                removals: vec!["a".into(), "c".into()],
            }
        );
        assert_eq!(p.take(), ExclusionSync::default());
    }

    /// The incremental refresh answers exactly what Spark's full rebuild
    /// (`excludeNodes ++ scheduler ++ allocator.keySet`, diffed with the current list) does,
    /// over a long random run of failures, scheduler lists and expiries.
    #[test]
    fn refresh_matches_sparks_full_rebuild() {
        let fixed = ["h1", "h3"];
        let (mut t, _) = suite_tracker(&fixed);
        let mut f = ExecutorFailureTracker::new(None);
        let mut naive_current: BTreeSet<String> = set(&fixed);
        let mut naive_alloc: BTreeMap<String, u64> = BTreeMap::new();
        let mut naive_sched: BTreeSet<String> = BTreeSet::new();
        let mut rng: u64 = 42;
        let mut next = move |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        let naive_refresh = |now: u64,
                             alloc: &mut BTreeMap<String, u64>,
                             sched: &BTreeSet<String>,
                             current: &mut BTreeSet<String>| {
            alloc.retain(|_, until| *until > now);
            let mut all = set(&fixed);
            all.extend(sched.iter().cloned());
            all.extend(alloc.keys().cloned());
            let s = ExclusionSync {
                additions: all.difference(current).cloned().collect(),
                removals: current.difference(&all).cloned().collect(),
            };
            *current = all;
            (!s.additions.is_empty() || !s.removals.is_empty()).then_some(s)
        };
        let (mut now, mut changes) = (0, 0);
        for _ in 0..20_000 {
            now += next(3);
            if next(5) == 0 {
                let list: BTreeSet<String> =
                    (0..next(4)).map(|_| format!("h{}", next(40))).collect();
                naive_sched = list.clone();
                let want = naive_refresh(now, &mut naive_alloc, &naive_sched, &mut naive_current);
                let got = t.set_scheduler_excluded_nodes(list, now);
                changes += got.is_some() as u32;
                assert_eq!(got, want, "scheduler list at {now}");
            } else {
                let host = format!("h{}", next(40));
                let skipped = naive_sched.contains(&host) || naive_alloc.contains_key(&host);
                match t.handle_resource_allocation_failure(Some(&host), &mut f, now) {
                    AllocationFailure::NotTracked => assert!(skipped, "{host} at {now}"),
                    AllocationFailure::HostExcluded { sync, .. } => {
                        assert!(!skipped);
                        naive_alloc.insert(host, now + 100);
                        let want =
                            naive_refresh(now, &mut naive_alloc, &naive_sched, &mut naive_current);
                        assert_eq!(sync, want, "exclusion at {now}");
                    }
                    _ => assert!(!skipped),
                }
            }
            assert_eq!(t.num_excluded_nodes() as usize, naive_current.len());
        }
        assert!(changes > 100, "the run exercised refreshes ({changes})");
    }
}
