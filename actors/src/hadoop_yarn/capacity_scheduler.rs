//! The ResourceManager's scheduler as a plain state machine (no actix, no SimContext): nodes and
//! what they have in use, each attempt's outstanding asks, blacklist and live containers, and the
//! assignment of containers on a NodeManager heartbeat; mirrors Hadoop's `CapacityScheduler`
//! (`nodeUpdate` / `allocateContainersToNode`, `removeNode`) with one `LeafQueue`,
//! `FiCaSchedulerNode`, `SchedulerApplicationAttempt` / `AppSchedulingInfo` and
//! `SchedulerUtils.normalizeRequest`. The RM actor drives it and does the logging and messaging.

use sparkyard_messages::ids::{ApplicationAttemptId, ContainerId, NodeId};
use sparkyard_messages::records::{Container, Resource};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `yarn.scheduler.{minimum,maximum}-allocation-{mb,vcores}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocationLimits {
    pub minimum_mb: u64,
    pub maximum_mb: u64,
    pub minimum_vcores: u32,
    pub maximum_vcores: u32,
}

/// One NodeManager as the scheduler sees it (`FiCaSchedulerNode`).
#[derive(Clone, Debug)]
pub struct SchedulerNode {
    pub node_id: NodeId,
    pub rack: String,
    pub total: Resource,
    pub used: Resource,
    /// LOST (`NMLivelinessMonitor` expired it): no AM container goes there.
    pub lost: bool,
    /// DECOMMISSIONING or DECOMMISSIONED (graceful decommissioning): no new container goes
    /// there, the running ones finish.
    pub decommissioning: bool,
    /// Its live containers, sorted (application, attempt, id).
    pub containers: Vec<ContainerId>,
}

impl SchedulerNode {
    /// Whether `r` fits in what the node has left.
    pub fn fits(&self, r: Resource) -> bool {
        self.used.memory_mb + r.memory_mb <= self.total.memory_mb
            && self.used.vcores + r.vcores <= self.total.vcores
    }
}

/// An attempt's scheduling state (`SchedulerApplicationAttempt` with its `AppSchedulingInfo`).
#[derive(Clone, Debug)]
struct SchedulerAttempt {
    /// `containerIdCounter`: the AM container is 1.
    next_container: u64,
    /// Containers asked for and not assigned yet (one capability: Spark asks one size).
    outstanding: u32,
    capability: Resource,
    blacklist: BTreeSet<String>,
    /// Containers not completed yet, with their node index and size.
    live: BTreeMap<ContainerId, (usize, Resource)>,
}

/// A container the scheduler placed on a heartbeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub attempt: ApplicationAttemptId,
    pub container: Container,
    /// The attempt's AM container (the RM's AMLauncher starts it).
    pub am: bool,
    /// What the node has in use right after this assignment.
    pub node_used: Resource,
}

/// The scheduler: one queue, FIFO over attempts in id order, several containers a heartbeat.
#[derive(Clone, Debug)]
pub struct CapacityScheduler {
    limits: AllocationLimits,
    nodes: Vec<SchedulerNode>,
    node_by_host: BTreeMap<String, usize>,
    /// Nodes not LOST (`ClusterMetrics.numActiveNMs`).
    live_nodes: u32,
    attempts: BTreeMap<ApplicationAttemptId, SchedulerAttempt>,
    /// Attempts waiting for an AM container, in submission order, with the AM's size.
    pending_am: VecDeque<(ApplicationAttemptId, Resource)>,
    /// Attempts with outstanding asks, in id order.
    asking: BTreeSet<ApplicationAttemptId>,
}

impl CapacityScheduler {
    pub fn new(limits: AllocationLimits) -> Self {
        CapacityScheduler {
            limits,
            nodes: Vec::new(),
            node_by_host: BTreeMap::new(),
            live_nodes: 0,
            attempts: BTreeMap::new(),
            pending_am: VecDeque::new(),
            asking: BTreeSet::new(),
        }
    }

    /// `getMaximumResourceCapability`.
    pub fn maximum_allocation(&self) -> Resource {
        Resource {
            memory_mb: self.limits.maximum_mb,
            vcores: self.limits.maximum_vcores,
        }
    }

    /// `DefaultResourceCalculator.normalize`: round the memory up to the minimum step (at
    /// least the minimum), cap it at the maximum; vcores between the minimum and the maximum.
    pub fn normalize(&self, r: Resource) -> Resource {
        let l = &self.limits;
        let step = l.minimum_mb.max(1);
        let mem = r.memory_mb.max(l.minimum_mb).div_ceil(step) * step;
        Resource {
            memory_mb: mem.min(l.maximum_mb),
            vcores: r.vcores.max(l.minimum_vcores).min(l.maximum_vcores),
        }
    }

    /// `addNode`: returns the node's index.
    pub fn add_node(&mut self, node_id: NodeId, rack: String, total: Resource) -> usize {
        let idx = self.nodes.len();
        self.node_by_host.insert(node_id.host.clone(), idx);
        self.nodes.push(SchedulerNode {
            node_id,
            rack,
            total,
            used: Resource {
                memory_mb: 0,
                vcores: 0,
            },
            lost: false,
            decommissioning: false,
            containers: Vec::new(),
        });
        self.live_nodes += 1;
        idx
    }

    /// `ClusterNodeTracker.getMaxAllowedAllocation`: the configured maximum, lowered to the
    /// largest registered NodeManager's resource.
    pub fn max_allowed_allocation(&self) -> Resource {
        let configured = self.maximum_allocation();
        if self.nodes.is_empty() {
            return configured;
        }
        let largest = |f: fn(&Resource) -> u64| self.nodes.iter().map(|n| f(&n.total)).max();
        Resource {
            memory_mb: configured
                .memory_mb
                .min(largest(|r| r.memory_mb).unwrap_or(u64::MAX)),
            vcores: configured
                .vcores
                .min(largest(|r| u64::from(r.vcores)).map_or(u32::MAX, |v| v as u32)),
        }
    }

    /// `SchedulerUtils.validateResourceRequest`: a request above the maximum allowed allocation
    /// (memory first, then vcores) is an `InvalidResourceRequestException` with
    /// `GREATER_THAN_MAX_RESOURCE_MESSAGE_TEMPLATE`'s text.
    pub fn validate_request(&self, requested: Resource) -> Result<(), String> {
        let max = self.max_allowed_allocation();
        let kind = if requested.memory_mb > max.memory_mb {
            "memory-mb"
        } else if requested.vcores > max.vcores {
            "vcores"
        } else {
            return Ok(());
        };
        Err(format!(
            "Invalid resource request! Cannot allocate containers as requested resource is greater \
             than maximum allowed allocation. Requested resource type=[{kind}], Requested \
             resource={requested}, maximum allowed allocation={max}, please note that maximum \
             allowed allocation is calculated by scheduler based on maximum resource of registered \
             NodeManagers, which might be less than configured maximum allocation={}",
            self.maximum_allocation()
        ))
    }

    pub fn node_index(&self, host: &str) -> Option<usize> {
        self.node_by_host.get(host).copied()
    }

    pub fn node(&self, idx: usize) -> &SchedulerNode {
        &self.nodes[idx]
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn live_nodes(&self) -> u32 {
        self.live_nodes
    }

    /// `addApplicationAttempt` and the AM's ResourceRequest: the attempt waits for its AM
    /// container (of `am_resource`, normalized) behind the attempts submitted before it.
    pub fn add_attempt(&mut self, attempt: ApplicationAttemptId, am_resource: Resource) {
        self.attempts.insert(
            attempt,
            SchedulerAttempt {
                next_container: 1,
                outstanding: 0,
                capability: Resource {
                    memory_mb: 0,
                    vcores: 0,
                },
                blacklist: BTreeSet::new(),
                live: BTreeMap::new(),
            },
        );
        let am = self.normalize(am_resource);
        self.pending_am.push_back((attempt, am));
    }

    /// `allocate`'s `updateResourceRequests` and `updateBlacklist`: `capability` (normalized
    /// here) for every outstanding ask, `add` more, `remove` fewer (never below zero).
    pub fn update_requests(
        &mut self,
        attempt: ApplicationAttemptId,
        capability: Resource,
        add: u32,
        remove: u32,
        blacklist_additions: &[String],
        blacklist_removals: &[String],
    ) {
        let capability = self.normalize(capability);
        let Some(a) = self.attempts.get_mut(&attempt) else {
            return;
        };
        a.capability = capability;
        a.outstanding = a.outstanding.saturating_sub(remove) + add;
        for host in blacklist_additions {
            a.blacklist.insert(host.clone());
        }
        for host in blacklist_removals {
            a.blacklist.remove(host);
        }
        if a.outstanding > 0 {
            self.asking.insert(attempt);
        } else {
            self.asking.remove(&attempt);
        }
    }

    /// The attempt asks for nothing more (it unregistered, or its AM container ended), and an
    /// AM container not placed yet is no longer wanted.
    pub fn stop_attempt(&mut self, attempt: ApplicationAttemptId) {
        self.asking.remove(&attempt);
        self.pending_am.retain(|(a, _)| *a != attempt);
    }

    /// The attempt has no more outstanding asks (`unregisterApplicationMaster`).
    pub fn stop_asking(&mut self, attempt: ApplicationAttemptId) {
        self.asking.remove(&attempt);
    }

    /// The outstanding asks of an attempt.
    pub fn outstanding(&self, attempt: ApplicationAttemptId) -> u32 {
        self.attempts.get(&attempt).map_or(0, |a| a.outstanding)
    }

    /// The node a live container of `attempt` runs on.
    pub fn live_container(&self, attempt: ApplicationAttemptId, cid: ContainerId) -> Option<usize> {
        self.attempts
            .get(&attempt)
            .and_then(|a| a.live.get(&cid))
            .map(|(node, _)| *node)
    }

    /// The live containers of `attempt` and their nodes, in container order.
    pub fn live_containers(&self, attempt: ApplicationAttemptId) -> Vec<(ContainerId, usize)> {
        self.attempts.get(&attempt).map_or_else(Vec::new, |a| {
            a.live.iter().map(|(c, (n, _))| (*c, *n)).collect()
        })
    }

    /// `nodeUpdate` -> `allocateContainersToNode` for a heartbeat of node `idx`: first the AM
    /// containers waiting (in submission order; not on a LOST node), then the outstanding asks
    /// of each asking attempt (in id order) while they fit and the host is not blacklisted,
    /// several per heartbeat (`assignMultiple`), until the node's memory is used up.
    pub fn node_update(&mut self, idx: usize) -> Vec<Assignment> {
        let mut out = Vec::new();
        if self.nodes[idx].decommissioning {
            return out;
        }
        let mut waiting = VecDeque::new();
        while let Some((attempt, resource)) = self.pending_am.pop_front() {
            if !self.attempts.contains_key(&attempt) {
                continue;
            }
            let node = &self.nodes[idx];
            if !node.fits(resource) || node.lost {
                waiting.push_back((attempt, resource));
                continue;
            }
            out.push(self.allocate(attempt, idx, resource, true));
        }
        self.pending_am = waiting;
        let asking: Vec<ApplicationAttemptId> = self.asking.iter().copied().collect();
        for attempt in asking {
            loop {
                let node = &self.nodes[idx];
                let Some(a) = self.attempts.get(&attempt) else {
                    break;
                };
                if a.outstanding == 0
                    || a.blacklist.contains(&node.node_id.host)
                    || !node.fits(a.capability)
                {
                    break;
                }
                let capability = a.capability;
                out.push(self.allocate(attempt, idx, capability, false));
                let a = self.attempts.get_mut(&attempt).expect("checked above");
                a.outstanding -= 1;
                if a.outstanding == 0 {
                    self.asking.remove(&attempt);
                    break;
                }
            }
            let node = &self.nodes[idx];
            if node.used.memory_mb >= node.total.memory_mb {
                break;
            }
        }
        out
    }

    /// `FiCaSchedulerNode.allocateContainer` and the attempt's new live container.
    fn allocate(
        &mut self,
        attempt: ApplicationAttemptId,
        idx: usize,
        resource: Resource,
        am: bool,
    ) -> Assignment {
        let n = &mut self.nodes[idx];
        n.used.memory_mb += resource.memory_mb;
        n.used.vcores += resource.vcores;
        let a = self.attempts.get_mut(&attempt).expect("the caller checked");
        let id = ContainerId::new(attempt, a.next_container);
        a.next_container += 1;
        a.live.insert(id, (idx, resource));
        let at = n.containers.partition_point(|c| *c < id);
        n.containers.insert(at, id);
        let http = format!(
            "{}:{}",
            n.node_id.host,
            crate::world::addresses::NM_WEB_PORT
        );
        Assignment {
            attempt,
            container: Container {
                id,
                node_id: n.node_id.clone(),
                node_http_address: http,
                rack: n.rack.clone(),
                resource,
                priority: 0,
            },
            am,
            node_used: n.used,
        }
    }

    /// `completedContainer`: a live container ended; its resources go back to node
    /// `reported_by` (the node whose heartbeat or loss reports it). `false` if it was not live.
    pub fn complete_container(&mut self, reported_by: usize, cid: ContainerId) -> bool {
        let Some(a) = self.attempts.get_mut(&cid.attempt) else {
            return false;
        };
        let Some((at, r)) = a.live.remove(&cid) else {
            return false;
        };
        let on_node = &mut self.nodes[at].containers;
        if let Ok(i) = on_node.binary_search(&cid) {
            on_node.remove(i);
        }
        let n = &mut self.nodes[reported_by];
        n.used.memory_mb = n.used.memory_mb.saturating_sub(r.memory_mb);
        n.used.vcores = n.used.vcores.saturating_sub(r.vcores);
        true
    }

    /// Graceful decommissioning starts: the node takes no new containers (`RMNodeImpl`'s
    /// DECOMMISSIONING). `false` when it was already leaving or lost.
    pub fn decommission_node(&mut self, idx: usize) -> bool {
        let n = &mut self.nodes[idx];
        if n.lost || n.decommissioning {
            return false;
        }
        n.decommissioning = true;
        true
    }

    /// `removeNode`: the node is LOST; returns its live containers, sorted, which the caller
    /// completes (`SchedulerUtils.LOST_CONTAINER`, ABORTED).
    pub fn lose_node(&mut self, idx: usize) -> Vec<ContainerId> {
        let n = &mut self.nodes[idx];
        if !n.lost {
            n.lost = true;
            self.live_nodes -= 1;
        }
        std::mem::take(&mut n.containers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;

    const GB: u64 = 1024;

    fn res(memory_mb: u64, vcores: u32) -> Resource {
        Resource { memory_mb, vcores }
    }

    fn limits() -> AllocationLimits {
        // YarnConfiguration's defaults.
        AllocationLimits {
            minimum_mb: 1024,
            maximum_mb: 8192,
            minimum_vcores: 1,
            maximum_vcores: 4,
        }
    }

    fn attempt(app: u32, n: u32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(
            ApplicationId {
                cluster_timestamp: 1,
                id: app,
            },
            n,
        )
    }

    fn node(host: &str) -> NodeId {
        NodeId {
            host: host.into(),
            port: 8041,
        }
    }

    fn cs_with_nodes(nodes: &[(&str, Resource)]) -> CapacityScheduler {
        let mut cs = CapacityScheduler::new(limits());
        for (host, total) in nodes {
            cs.add_node(node(host), "/default-rack".into(), *total);
        }
        cs
    }

    /// An attempt whose AM already runs on node `am_node`, asking `n` containers of `r`.
    fn running(
        cs: &mut CapacityScheduler,
        a: ApplicationAttemptId,
        am_node: usize,
        n: u32,
        r: Resource,
    ) {
        cs.add_attempt(a, res(1024, 1));
        let am = cs.node_update(am_node);
        assert!(am.iter().any(|x| x.am && x.attempt == a));
        cs.update_requests(a, r, n, 0, &[], &[]);
    }

    fn ids(out: &[Assignment]) -> Vec<(u64, bool)> {
        out.iter().map(|x| (x.container.id.id, x.am)).collect()
    }

    /// `SchedulerUtils.normalizeRequest` with `DefaultResourceCalculator` (Hadoop's
    /// TestSchedulerUtils#testNormalizeRequest: min 1024, max 8192): below the minimum -> the
    /// minimum, rounded up to a multiple of the minimum, capped at the maximum.
    #[test]
    fn normalize_rounds_up_to_the_minimum_step_and_caps_at_the_maximum() {
        let cs = CapacityScheduler::new(limits());
        let table = [
            (res(0, 0), res(1024, 1)),
            (res(512, 1), res(1024, 1)),
            (res(1024, 1), res(1024, 1)),
            (res(1025, 2), res(2048, 2)),
            (res(2432, 1), res(3072, 1)), // Spark's 2g executor + 384 MiB overhead
            (res(8192, 4), res(8192, 4)),
            (res(9000, 9), res(8192, 4)),
        ];
        for (ask, want) in table {
            assert_eq!(cs.normalize(ask), want, "{ask:?}");
        }
        assert_eq!(cs.maximum_allocation(), res(8192, 4));
    }

    /// Hadoop's TestCapacityScheduler#testAssignMultiple: one heartbeat of a 10 GB / 10 vcore
    /// node assigns several containers; here (no per-heartbeat cap) as many as fit.
    #[test]
    fn one_heartbeat_assigns_every_container_that_fits_on_the_node() {
        let mut cs = cs_with_nodes(&[("host_0", res(10 * GB, 10)), ("host_1", res(10 * GB, 10))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 1, 5, res(2 * GB, 1));
        let out = cs.node_update(0);
        assert_eq!(
            ids(&out),
            [(2, false), (3, false), (4, false), (5, false), (6, false)]
        );
        assert_eq!(cs.node(0).used, res(10 * GB, 5));
        assert_eq!(out.last().unwrap().node_used, res(10 * GB, 5));
        assert_eq!(cs.outstanding(a), 0);
        // Nothing left to ask: the next heartbeat assigns nothing.
        assert!(cs.node_update(0).is_empty());
    }

    /// One node's capacity bounds a heartbeat (memory and vcores alike); the rest waits for
    /// the next heartbeat of a node with room (`FiCaSchedulerNode` never over-commits).
    #[test]
    fn a_node_never_takes_more_than_its_capacity() {
        let table: &[(Resource, Resource, u32, usize, u32)] = &[
            // node, ask, asks, assigned on the first heartbeat, left outstanding
            (res(8 * GB, 8), res(3 * GB, 1), 4, 2, 2),
            (res(8 * GB, 2), res(GB, 1), 4, 2, 2),
            (res(8 * GB, 8), res(8 * GB, 4), 2, 1, 1),
            (res(2 * GB, 2), res(3 * GB, 1), 1, 0, 1),
        ];
        for &(total, ask, n, assigned, left) in table {
            let mut cs = cs_with_nodes(&[("big", res(64 * GB, 64)), ("node", total)]);
            let a = attempt(1, 1);
            running(&mut cs, a, 0, n, ask);
            let out = cs.node_update(1);
            assert_eq!(out.len(), assigned, "{total:?} {ask:?}");
            assert_eq!(cs.outstanding(a), left, "{total:?} {ask:?}");
            let used = cs.node(1).used;
            assert!(used.memory_mb <= total.memory_mb && used.vcores <= total.vcores);
        }
    }

    /// AM containers come first, in submission order, and only where they fit; an attempt's
    /// containers are numbered from 1 (the AM) by its own counter.
    #[test]
    fn am_containers_first_then_asks_in_attempt_order() {
        let mut cs = cs_with_nodes(&[("n0", res(4 * GB, 8))]);
        let (a1, a2) = (attempt(1, 1), attempt(2, 1));
        cs.add_attempt(a1, res(1024, 1));
        cs.add_attempt(a2, res(5 * GB, 1)); // normalized 5 GB: never fits on n0
        let out = cs.node_update(0);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].attempt, out[0].container.id.id, out[0].am),
            (a1, 1, true)
        );
        cs.update_requests(a1, res(1024, 1), 5, 0, &[], &[]);
        let out = cs.node_update(0);
        assert_eq!(ids(&out), [(2, false), (3, false), (4, false)]);
        assert_eq!(cs.outstanding(a1), 2);
        // a2's AM is still waiting; dropping the attempt stops it waiting.
        cs.stop_attempt(a2);
        assert!(cs.pending_am.is_empty());
    }

    /// Hadoop's TestCapacityScheduler#testBlackListNodes (AppSchedulingInfo.isPlaceBlacklisted):
    /// a blacklisted host gets none of the attempt's containers, until it is taken off.
    #[test]
    fn blacklisted_host_gets_nothing_until_removed() {
        let mut cs = cs_with_nodes(&[("n0", res(8 * GB, 8)), ("n1", res(8 * GB, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 0, res(1024, 1));
        cs.update_requests(a, res(1024, 1), 2, 0, &["n1".into()], &[]);
        assert!(cs.node_update(1).is_empty());
        assert_eq!(cs.outstanding(a), 2);
        cs.update_requests(a, res(1024, 1), 0, 0, &[], &["n1".into()]);
        assert_eq!(cs.node_update(1).len(), 2);
    }

    /// `updateResourceRequests`: removing more asks than are outstanding leaves none, and an
    /// attempt with none left is not offered the node.
    #[test]
    fn removing_asks_never_goes_below_zero() {
        let mut cs = cs_with_nodes(&[("n0", res(8 * GB, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 3, res(1024, 1));
        cs.update_requests(a, res(1024, 1), 0, 5, &[], &[]);
        assert_eq!(cs.outstanding(a), 0);
        assert!(cs.node_update(0).is_empty());
    }

    /// `removeNode`: a LOST node's live containers are handed back (sorted) to be completed
    /// with SchedulerUtils.LOST_CONTAINER; it counts no more as active and takes no AM.
    #[test]
    fn a_lost_nodes_containers_complete_and_it_takes_no_am() {
        let mut cs = cs_with_nodes(&[("n0", res(8 * GB, 8)), ("n1", res(8 * GB, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 2, res(1024, 1));
        assert_eq!(cs.node_update(1).len(), 2);
        assert_eq!(cs.live_nodes(), 2);
        let lost = cs.lose_node(1);
        assert_eq!(lost.iter().map(|c| c.id).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(cs.live_nodes(), 1);
        for cid in lost {
            assert!(cs.complete_container(1, cid));
        }
        assert_eq!(cs.node(1).used, res(0, 0));
        assert_eq!(cs.live_containers(a).len(), 1); // the AM on n0
        // A second loss changes nothing; a new attempt's AM does not go to the lost node.
        assert!(cs.lose_node(1).is_empty());
        assert_eq!(cs.live_nodes(), 1);
        let b = attempt(2, 1);
        cs.add_attempt(b, res(1024, 1));
        assert!(cs.node_update(1).is_empty());
        assert_eq!(cs.node_update(0)[0].attempt, b);
    }

    /// `completedContainer` gives the resources back, so the next heartbeat can use them; a
    /// container completed twice (or never live) changes nothing.
    #[test]
    fn completion_frees_room_for_the_next_heartbeat() {
        let mut cs = cs_with_nodes(&[("n0", res(2 * GB, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 2, res(1024, 1));
        let out = cs.node_update(0);
        assert_eq!(ids(&out), [(2, false)]);
        let cid = out[0].container.id;
        assert_eq!(cs.live_container(a, cid), Some(0));
        assert!(cs.complete_container(0, cid));
        assert!(!cs.complete_container(0, cid));
        assert_eq!(cs.live_container(a, cid), None);
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
    }

    // TestSchedulerUtils (testValidateResourceRequest): above the maximum allowed allocation is
    // InvalidResourceRequestException's GREATER_THEN_MAX_ALLOCATION text.
    #[test]
    fn requests_above_the_maximum_allocation_are_invalid() {
        let mut s = CapacityScheduler::new(limits());
        s.add_node(node("nm-1"), "/r".into(), res(64 * GB, 16));
        assert_eq!(s.validate_request(res(1408, 4)), Ok(()));
        let err = s.validate_request(res(1408, 8)).unwrap_err();
        assert_eq!(
            err,
            "Invalid resource request! Cannot allocate containers as requested resource is greater than maximum allowed allocation. Requested resource type=[vcores], Requested resource=<memory:1408, vCores:8>, maximum allowed allocation=<memory:8192, vCores:4>, please note that maximum allowed allocation is calculated by scheduler based on maximum resource of registered NodeManagers, which might be less than configured maximum allocation=<memory:8192, vCores:4>"
        );
        let small = {
            let mut s = CapacityScheduler::new(limits());
            s.add_node(node("nm-1"), "/r".into(), res(4 * GB, 2));
            s
        };
        assert!(
            small
                .validate_request(res(5000, 1))
                .unwrap_err()
                .contains("type=[memory-mb]")
        );
        assert!(
            small
                .validate_request(res(1024, 3))
                .unwrap_err()
                .contains("maximum allowed allocation=<memory:4096, vCores:2>")
        );
    }
}
