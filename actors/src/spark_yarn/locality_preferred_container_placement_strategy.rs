//! Where the YarnAllocator asks YARN for its next containers: the node and rack preferences of
//! each new container request from the pending tasks' preferred hosts, the containers already
//! allocated and the locality requests still pending; mirrors Spark's
//! `org.apache.spark.deploy.yarn.LocalityPreferredContainerPlacementStrategy`
//! (`localityOfRequestedContainers`, `expectedHostToContainerCount`,
//! `pendingHostToContainerCount`). A plain function of its inputs, no state.

use std::collections::BTreeMap;
use std::rc::Rc;

/// A host or rack name, shared by every request that names it.
pub type Name = Rc<str>;

/// `ContainerLocalityPreferences(nodes, racks)` for `count` requests in a row that name the
/// same nodes and racks (Spark builds one array per container; consecutive ones repeat).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalityGroup {
    pub count: u32,
    /// The preferred hosts, by name.
    pub nodes: Rc<[Name]>,
    /// Their racks (`resolver.resolve(hosts).map(_.getNetworkLocation)`, each once, by name).
    pub racks: Rc<[Name]>,
}

/// What `localityOfRequestedContainers` returns: first the containers without a preference
/// (Spark's `ContainerLocalityPreferences(null, null)`), then the locality-aware ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContainerPlacement {
    pub locality_free: u32,
    pub located: Vec<LocalityGroup>,
}

impl ContainerPlacement {
    /// How many of the containers carry node preferences.
    pub fn num_located(&self) -> u32 {
        self.located.iter().map(|g| g.count).sum()
    }
}

/// The strategy's inputs besides the number of containers.
pub struct PlacementInputs<'a> {
    /// `numLocalityAwareTasks`: pending tasks that prefer some host.
    pub num_locality_aware_tasks: u32,
    /// `hostToLocalTaskCount`, by host.
    pub host_to_local_task_count: &'a BTreeMap<Name, u32>,
    /// `allocatedHostToContainersMap`, as the number of containers on each host.
    pub allocated_host_to_containers: &'a BTreeMap<Name, u32>,
    /// The nodes of each pending request that matches the hosts above
    /// (`localityMatchedPendingAllocations`).
    pub locality_matched_pending: &'a [Rc<[Name]>],
    /// `ResourceProfile.numTasksPerExecutor`: executor cores / task cpus.
    pub tasks_per_executor: u32,
}

/// `localityOfRequestedContainers(numContainer, ...)`: the expected containers per host less
/// those already there or pending there; the ones left over have no preference; the
/// locality-aware ones are spread over the hosts in the ratio of what each still needs (a host
/// appears in the first `ceil(ratio * aware / largest)` requests).
pub fn locality_of_requested_containers(
    num_container: u32,
    inputs: &PlacementInputs<'_>,
    rack_of: impl Fn(&str) -> Option<Name>,
) -> ContainerPlacement {
    let updated = expected_host_to_container_count(inputs);
    let updated_aware: u32 = updated.values().sum();
    let locality_free = num_container.saturating_sub(updated_aware);
    let aware = num_container - locality_free;
    let mut placement = ContainerPlacement {
        locality_free,
        located: Vec::new(),
    };
    if aware == 0 {
        return placement;
    }
    let largest = updated.values().copied().max().unwrap_or(0).max(1);
    // preferredLocalityRatio: each host's share rounded up to the locality-aware containers.
    let ratio: Vec<(&Name, u32)> = updated
        .iter()
        .map(|(h, r)| {
            let adjusted = f64::from(*r) * f64::from(aware) / f64::from(largest);
            (*h, adjusted.ceil() as u32)
        })
        .collect();
    // Container i names the hosts whose ratio is still above i; the set changes only where i
    // crosses a ratio, so consecutive containers share one group.
    let mut i = 0;
    while i < aware {
        let hosts: Vec<Name> = ratio
            .iter()
            .filter(|(_, r)| *r > i)
            .map(|(h, _)| (*h).clone())
            .collect();
        let next_change = ratio
            .iter()
            .map(|(_, r)| *r)
            .filter(|r| *r > i)
            .min()
            .unwrap_or(aware)
            .min(aware);
        let count = next_change.max(i + 1) - i;
        push_group(&mut placement, count, hosts, &rack_of);
        i += count;
    }
    placement
}

/// One run of identical requests; an empty host list is Spark's empty `nodes` array (still a
/// locality request: `nodes != null`).
fn push_group(
    placement: &mut ContainerPlacement,
    count: u32,
    hosts: Vec<Name>,
    rack_of: &impl Fn(&str) -> Option<Name>,
) {
    let mut racks: Vec<Name> = hosts.iter().filter_map(|h| rack_of(h)).collect();
    racks.sort();
    racks.dedup();
    placement.located.push(LocalityGroup {
        count,
        nodes: hosts.into(),
        racks: racks.into(),
    });
}

/// `numExecutorsPending`: executors that would run the pending tasks at once.
fn num_executors_pending(tasks: u32, tasks_per_executor: u32) -> u32 {
    tasks.div_ceil(tasks_per_executor.max(1))
}

/// `expectedHostToContainerCount`: each host's share of the executors the locality-aware tasks
/// need, less the containers allocated there and its share of the matching pending requests.
fn expected_host_to_container_count<'a>(inputs: &PlacementInputs<'a>) -> BTreeMap<&'a Name, u32> {
    let total: u32 = inputs.host_to_local_task_count.values().sum();
    let pending = pending_host_to_container_count(inputs.locality_matched_pending);
    let executors = f64::from(num_executors_pending(
        inputs.num_locality_aware_tasks,
        inputs.tasks_per_executor,
    ));
    inputs
        .host_to_local_task_count
        .iter()
        .map(|(host, count)| {
            let expected = f64::from(*count) * executors / f64::from(total);
            let allocated = inputs
                .allocated_host_to_containers
                .get(host)
                .copied()
                .unwrap_or(0);
            let existed = f64::from(allocated) + pending.get(&**host).copied().unwrap_or(0.0);
            let needed = (expected - existed).ceil().max(0.0) as u32;
            (host, needed)
        })
        .collect()
}

/// `pendingHostToContainerCount`: the matching pending requests spread over the hosts they
/// name, in the ratio of how often each is named (20 : 20 : 10 over 3 requests is 1.2 : 1.2 :
/// 0.6).
fn pending_host_to_container_count(pending: &[Rc<[Name]>]) -> BTreeMap<&str, f64> {
    let mut named: BTreeMap<&str, u32> = BTreeMap::new();
    for nodes in pending {
        for n in nodes.iter() {
            *named.entry(&**n).or_default() += 1;
        }
    }
    let possible: u32 = named.values().sum();
    let requests = pending.len() as f64;
    named
        .into_iter()
        .map(|(h, v)| (h, f64::from(v) * requests / f64::from(possible)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(pairs: &[(&str, u32)]) -> BTreeMap<Name, u32> {
        pairs.iter().map(|(h, n)| (Name::from(*h), *n)).collect()
    }

    fn nodes(list: &[&str]) -> Rc<[Name]> {
        list.iter().map(|h| Name::from(*h)).collect()
    }

    /// Spark's array of per-container node lists (`localities.map(_.nodes)`), `None` for a
    /// request without a preference.
    fn per_container(p: &ContainerPlacement) -> Vec<Option<Vec<String>>> {
        let mut out = vec![None; p.locality_free as usize];
        for g in &p.located {
            for _ in 0..g.count {
                out.push(Some(g.nodes.iter().map(|h| h.to_string()).collect()));
            }
        }
        out
    }

    fn some(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|h| h.to_string()).collect())
    }

    /// ContainerPlacementStrategySuite's allocator (YarnAllocatorSuite.createAllocator): its
    /// containers take 4 tasks each, so 15 tasks need 4 executors.
    fn place(
        n: u32,
        tasks: u32,
        wanted: &[(&str, u32)],
        allocated: &[(&str, u32)],
        pending: &[Rc<[Name]>],
    ) -> ContainerPlacement {
        let wanted = hosts(wanted);
        let allocated = hosts(allocated);
        let inputs = PlacementInputs {
            num_locality_aware_tasks: tasks,
            host_to_local_task_count: &wanted,
            allocated_host_to_containers: &allocated,
            locality_matched_pending: pending,
            tasks_per_executor: 4,
        };
        locality_of_requested_containers(n, &inputs, |_| Some(Name::from("/default-rack")))
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers with enough
    // resource and no matched existed containers".
    #[test]
    fn enough_resource_no_matched_containers() {
        let p = place(
            3,
            15,
            &[("host3", 15), ("host4", 15), ("host5", 10)],
            &[("host1", 1), ("host2", 1)],
            &[],
        );
        assert_eq!(
            per_container(&p),
            vec![
                some(&["host3", "host4", "host5"]),
                some(&["host3", "host4", "host5"]),
                some(&["host3", "host4"]),
            ]
        );
        assert_eq!(&*p.located[0].racks, &[Name::from("/default-rack")]);
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers with enough
    // resource and partially matched containers".
    #[test]
    fn enough_resource_partially_matched() {
        let p = place(
            3,
            15,
            &[("host1", 15), ("host2", 15), ("host3", 10)],
            &[("host1", 2), ("host2", 1)],
            &[],
        );
        assert_eq!(
            per_container(&p),
            vec![None, some(&["host2", "host3"]), some(&["host2", "host3"])]
        );
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers with limited
    // resource and partially matched containers".
    #[test]
    fn limited_resource_partially_matched() {
        let p = place(
            1,
            15,
            &[("host1", 15), ("host2", 15), ("host3", 10)],
            &[("host1", 2), ("host2", 1)],
            &[],
        );
        assert_eq!(per_container(&p), vec![some(&["host2", "host3"])]);
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers with fully
    // matched containers".
    #[test]
    fn fully_matched_containers() {
        let p = place(
            3,
            15,
            &[("host1", 15), ("host2", 15), ("host3", 10)],
            &[("host1", 2), ("host2", 2), ("host3", 1)],
            &[],
        );
        assert_eq!(per_container(&p), vec![None, None, None]);
    }

    // ContainerPlacementStrategySuite "allocate containers with no locality preference".
    #[test]
    fn no_locality_preference() {
        let p = place(1, 0, &[], &[("host1", 1), ("host2", 1)], &[]);
        assert_eq!(per_container(&p), vec![None]);
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers by considering
    // the localities of pending requests".
    #[test]
    fn considers_pending_requests() {
        let pending = [nodes(&["host2", "host3"]), nodes(&["host1", "host4"])];
        let p = place(
            1,
            15,
            &[("host1", 15), ("host2", 15), ("host3", 10)],
            &[("host1", 2), ("host2", 1)],
            &pending,
        );
        assert_eq!(per_container(&p), vec![some(&["host3"])]);
    }

    // LocalityPlacementStrategySuite "handle large number of containers and tasks
    // (SPARK-18750)": 32k tasks, 2048 containers on 128 hosts, half of them with containers;
    // the answer comes back (in groups, not one array per container) and covers every
    // container asked for.
    #[test]
    fn large_number_of_containers_and_tasks() {
        let total_tasks = 32 * 1024u32;
        let total_containers = total_tasks / 16;
        let total_hosts = total_containers / 16;
        let wanted: BTreeMap<Name, u32> = (1..=total_hosts)
            .map(|i| (Name::from(format!("host_{i}")), total_tasks % i))
            .collect();
        let count = total_containers / total_hosts / 2;
        let allocated: BTreeMap<Name, u32> = wanted
            .keys()
            .take(wanted.len() / 2)
            .enumerate()
            .map(|(i, h)| {
                (
                    h.clone(),
                    (i as u32).min(total_containers - count * i as u32),
                )
            })
            .collect();
        let inputs = PlacementInputs {
            num_locality_aware_tasks: total_tasks,
            host_to_local_task_count: &wanted,
            allocated_host_to_containers: &allocated,
            locality_matched_pending: &[],
            tasks_per_executor: 1,
        };
        let p = locality_of_requested_containers(total_containers * 2, &inputs, |_| None);
        assert_eq!(p.locality_free + p.num_located(), total_containers * 2);
        assert!(p.located.len() <= wanted.len());
    }
}
