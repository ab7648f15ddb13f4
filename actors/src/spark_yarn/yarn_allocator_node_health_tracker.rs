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

/// What `handleResourceAllocationFailure` did with one failed container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationFailure {
    /// Counted for all hosts only: no host known, or exclusion on launch failure off.
    Counted,
    /// Not counted at all: the host is already excluded.
    NotTracked,
    /// Counted for the host too; the host stays usable.
    CountedOnHost { failures_on_host: u32 },
    /// The host failed more than `maxFailedExecutorsPerNode` times and is excluded now.
    HostExcluded { host: String, failures_on_host: u32 },
}

/// `YarnAllocatorNodeHealthTracker`: the exclusion decisions, on the failure tracker the
/// allocator owns (Spark shares one `ExecutorFailureTracker` between the two).
pub struct YarnAllocatorNodeHealthTracker {
    settings: NodeHealthSettings,
    exclusions: Exclusions,
}

impl YarnAllocatorNodeHealthTracker {
    pub fn new(settings: NodeHealthSettings) -> Self {
        let exclusions = Exclusions::new(&settings.exclude_nodes);
        YarnAllocatorNodeHealthTracker {
            settings,
            exclusions,
        }
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
                if self.exclusions.contains(h) {
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
    /// for `spark.excludeOnFailure.timeout`.
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
        self.exclusions
            .insert(host, now_ms + self.settings.exclude_timeout_ms);
        AllocationFailure::HostExcluded {
            host: host.to_string(),
            failures_on_host,
        }
    }

    /// The hosts to add to the RM's exclusion list on this allocate call (sorted): Spark's
    /// `updateBlacklist` additions, sent with the next heartbeat as the AMRMClient does.
    pub fn additions_to_sync(&mut self, now_ms: u64) -> Vec<String> {
        self.exclusions.additions(now_ms)
    }

    /// How many hosts are excluded at `now_ms` (`isAllNodeExcluded` compares it with the
    /// cluster's node count).
    pub fn num_excluded_nodes(&mut self, now_ms: u64) -> u32 {
        self.exclusions.count(now_ms) as u32
    }
}

/// The hosts the allocator excludes: `spark.yarn.exclude.nodes` plus the hosts excluded after
/// failures until their timeout, and what of them the RM has been told.
///
/// The excluded set at a time `now` is `fixed` and every host of `until` whose exclusion ends
/// after `now`; a sync tells the RM what that set has gained since the previous sync. Both are
/// answered from what changed (hosts excluded since the sync, exclusions that expired), not by
/// building the set on every allocate call: with thousands of excluded nodes that was a walk
/// and a copy of every excluded host per AM heartbeat.
struct Exclusions {
    /// `spark.yarn.exclude.nodes`.
    fixed: BTreeSet<String>,
    /// Every host excluded after failures, with the end of its exclusion (kept after it ends:
    /// a host is excluded once).
    until: BTreeMap<String, u64>,
    /// The hosts of `until` not in `fixed` whose exclusion has not been seen to end, by end.
    active: BTreeSet<(u64, String)>,
    /// Hosts put in `until` since the last sync.
    since_sync: Vec<String>,
    synced: bool,
}

impl Exclusions {
    fn new(fixed: &[String]) -> Self {
        Exclusions {
            fixed: fixed.iter().cloned().collect(),
            until: BTreeMap::new(),
            active: BTreeSet::new(),
            since_sync: Vec::new(),
            synced: false,
        }
    }

    fn contains(&self, host: &str) -> bool {
        self.until.contains_key(host)
    }

    /// Excludes a host not excluded before until `until`.
    fn insert(&mut self, host: &str, until: u64) {
        if self.until.insert(host.to_string(), until).is_none() {
            self.since_sync.push(host.to_string());
        }
        if !self.fixed.contains(host) {
            self.active.insert((until, host.to_string()));
        }
    }

    /// How many hosts are excluded at `now` (`now` never goes back).
    fn count(&mut self, now: u64) -> usize {
        while self.active.first().is_some_and(|(until, _)| *until <= now) {
            self.active.pop_first();
        }
        self.fixed.len() + self.active.len()
    }

    /// The hosts excluded at `now` that were not at the last sync, sorted; `now` is synced.
    fn additions(&mut self, now: u64) -> Vec<String> {
        // A host excluded before the last sync and still excluded was excluded then too (an
        // exclusion is one interval from its start); `fixed` is synced from the first sync on.
        let mut additions: Vec<String> = std::mem::take(&mut self.since_sync)
            .into_iter()
            .filter(|h| !self.fixed.contains(h) && self.until.get(h).is_some_and(|u| *u > now))
            .collect();
        if !self.synced {
            additions.extend(self.fixed.iter().cloned());
            self.synced = true;
        }
        additions.sort();
        additions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive model the allocator used to run on every allocate call: build the excluded
    /// set, diff it against the last synced one.
    struct Naive {
        fixed: Vec<String>,
        until: BTreeMap<String, u64>,
        synced: BTreeSet<String>,
    }

    impl Naive {
        fn current(&self, now: u64) -> BTreeSet<String> {
            let mut set: BTreeSet<String> = self.fixed.iter().cloned().collect();
            set.extend(
                self.until
                    .iter()
                    .filter(|(_, u)| **u > now)
                    .map(|(h, _)| h.clone()),
            );
            set
        }
    }

    /// The incremental exclusions answer exactly what the full rebuild did, over a long random
    /// run of failures, syncs and counts (fixed hosts also failing, exclusions expiring).
    #[test]
    fn exclusions_match_the_full_rebuild() {
        let fixed: Vec<String> = vec!["h3".into(), "h1".into(), "h3".into()];
        let mut fast = Exclusions::new(&fixed);
        let mut naive = Naive {
            fixed,
            until: BTreeMap::new(),
            synced: BTreeSet::new(),
        };
        let mut rng: u64 = 42;
        let mut next = move |n: u64| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) % n
        };
        let mut now = 0;
        let mut added = 0;
        for _ in 0..20_000 {
            now += next(3);
            match next(4) {
                0 | 1 => {
                    let host = format!("h{}", next(2000));
                    assert_eq!(fast.contains(&host), naive.until.contains_key(&host));
                    if !naive.until.contains_key(&host) {
                        let until = now + 500;
                        naive.until.insert(host.clone(), until);
                        fast.insert(&host, until);
                    }
                }
                2 => {
                    let current = naive.current(now);
                    let want: Vec<String> = current.difference(&naive.synced).cloned().collect();
                    naive.synced = current;
                    let got = fast.additions(now);
                    added += got.len();
                    assert_eq!(got, want, "additions at {now}");
                }
                _ => assert_eq!(fast.count(now), naive.current(now).len(), "count at {now}"),
            }
        }
        assert!(added > 100, "the run exercised additions ({added})");
    }

    /// YarnAllocatorHealthTrackerSuite's settings: timeout 100, exclusion on launch failure
    /// on, at most 2 failed executors per node.
    fn suite_tracker(exclude_nodes: &[&str]) -> YarnAllocatorNodeHealthTracker {
        YarnAllocatorNodeHealthTracker::new(NodeHealthSettings {
            launch_exclude_on_failure: true,
            max_failures_per_host: 2,
            exclude_timeout_ms: 100,
            exclude_nodes: exclude_nodes.iter().map(|h| h.to_string()).collect(),
        })
    }

    /// Fails `host` three times at `now`: the first two are counted, the third excludes it.
    fn fail_three_times(
        t: &mut YarnAllocatorNodeHealthTracker,
        f: &mut ExecutorFailureTracker,
        host: &str,
        now: u64,
    ) {
        for n in 1..=2 {
            assert_eq!(
                t.handle_resource_allocation_failure(Some(host), f, now),
                AllocationFailure::CountedOnHost {
                    failures_on_host: n
                }
            );
        }
        assert_eq!(
            t.handle_resource_allocation_failure(Some(host), f, now),
            AllocationFailure::HostExcluded {
                host: host.to_string(),
                failures_on_host: 3
            }
        );
    }

    /// Ports YarnAllocatorHealthTrackerSuite "expiring its own excluded nodes" (the exclusion
    /// and its expiry; Spark then tells YARN to remove the host, sparkyard sends no removals).
    #[test]
    fn expiring_its_own_excluded_nodes() {
        let mut t = suite_tracker(&[]);
        let mut f = ExecutorFailureTracker::new(None);
        fail_three_times(&mut t, &mut f, "host", 0);
        assert_eq!(t.additions_to_sync(0), vec!["host"]);
        assert_eq!(t.num_excluded_nodes(99), 1);
        assert_eq!(t.num_excluded_nodes(100), 0);
    }

    /// Ports YarnAllocatorHealthTrackerSuite "combining scheduler and allocation excluded node
    /// list", the parts sparkyard models (the driver sends no scheduler-excluded nodes): the
    /// `spark.yarn.exclude.nodes` go with the first sync and a failed-out host with a later one.
    #[test]
    fn combining_fixed_and_allocation_excluded_nodes() {
        let mut t = suite_tracker(&["initial1", "initial2"]);
        let mut f = ExecutorFailureTracker::new(None);
        assert_eq!(t.additions_to_sync(0), vec!["initial1", "initial2"]);
        fail_three_times(&mut t, &mut f, "host1", 0);
        assert_eq!(t.additions_to_sync(0), vec!["host1"]);
        assert_eq!(t.additions_to_sync(10), Vec::<String>::new());
        assert_eq!(t.num_excluded_nodes(10), 3);
    }

    /// Ports YarnAllocatorHealthTrackerSuite "exclude all available nodes", with the three
    /// already excluded hosts given by `spark.yarn.exclude.nodes` instead of the scheduler:
    /// the fourth host failing out makes 4 excluded of the 4 nodes (`isAllNodeExcluded`).
    #[test]
    fn exclude_all_available_nodes() {
        let mut t = suite_tracker(&["host1", "host2", "host3"]);
        let mut f = ExecutorFailureTracker::new(None);
        assert_eq!(t.additions_to_sync(0), vec!["host1", "host2", "host3"]);
        fail_three_times(&mut t, &mut f, "host4", 60);
        assert_eq!(t.additions_to_sync(60), vec!["host4"]);
        let num_cluster_nodes = 4;
        assert!(t.num_excluded_nodes(60) >= num_cluster_nodes);
    }

    /// With `spark.yarn.executor.launch.excludeOnFailure.enabled` off (Spark's default) a
    /// failure counts for all hosts and never excludes (`case _ => registerExecutorFailure`).
    #[test]
    fn failures_count_without_exclusion_when_disabled() {
        let mut t = YarnAllocatorNodeHealthTracker::new(NodeHealthSettings {
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
        assert_eq!(t.num_excluded_nodes(0), 0);
    }

    /// Spark's YarnAllocatorNodeHealthTracker.handleResourceAllocationFailure: "failures on an
    /// already excluded node are not even tracked" (no executor failure is counted).
    #[test]
    fn failures_on_an_excluded_host_are_not_tracked() {
        let mut t = suite_tracker(&[]);
        let mut f = ExecutorFailureTracker::new(None);
        fail_three_times(&mut t, &mut f, "host1", 0);
        assert_eq!(
            t.handle_resource_allocation_failure(Some("host1"), &mut f, 10),
            AllocationFailure::NotTracked
        );
        assert_eq!(f.num_failed_executors(10), 3);
        assert_eq!(f.num_failures_on_host("host1", 10), 3);
    }
}
