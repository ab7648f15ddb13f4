//! The CapacityScheduler's node-label partitions: which exclusive partition each NodeManager is
//! in, each partition's resource, each leaf queue's usage and limits in it, and the label
//! checks of a request; mirrors Hadoop 3.4's `RMNodeLabelsManager` (partition resources), the
//! per-label `QueueCapacities` / `ResourceUsage` of `AbstractLeafQueue` (capacity, maximum
//! capacity and AM limit per partition, `UsersManager.computeUserLimit` per partition),
//! `RegularContainerAllocator`'s partition check and `SchedulerUtils`' label validation.
//! Partition 0 is the default partition (`NO_LABEL`), kept in the scheduler's own fields, so a
//! cluster without labels takes none of these paths.

use super::*;

/// The labelled partitions (`RMNodeLabelsManager`): every label is exclusive (Hadoop's
/// default), so a container goes to a node of its request's partition only.
#[derive(Clone, Debug, Default)]
pub(super) struct Partitions {
    /// Partition names by index; index 0 is the default partition (`""`).
    names: Vec<String>,
    /// The partition of each labelled host (the cluster file's node labels).
    by_host: BTreeMap<String, u16>,
    /// Memory of each partition's live nodes (index 0 unused: the scheduler's `cluster_mb`).
    total_mb: Vec<u64>,
    /// Per queue, per partition (index 0 unused): its usage there.
    usage: Vec<Vec<PartitionUsage>>,
}

/// A queue's usage of one labelled partition (`ResourceUsage` by label, and the users').
#[derive(Clone, Debug)]
struct PartitionUsage {
    used_mb: u64,
    am_used: Resource,
    /// Per user: (memory used, AM memory used).
    users: BTreeMap<String, (u64, u64)>,
}

impl Default for PartitionUsage {
    fn default() -> Self {
        PartitionUsage {
            used_mb: 0,
            am_used: Resource {
                memory_mb: 0,
                vcores: 0,
                gpus: 0,
            },
            users: BTreeMap::new(),
        }
    }
}

impl Partitions {
    pub(super) fn partition_of_host(&self, host: &str) -> u16 {
        self.by_host.get(host).copied().unwrap_or(0)
    }

    /// The partition's label (`""` for the default partition).
    pub(super) fn name(&self, p: u16) -> &str {
        self.names.get(usize::from(p)).map_or("", String::as_str)
    }

    fn index(&self, label: &str) -> Option<u16> {
        let i = self.names.iter().skip(1).position(|n| n == label)?;
        Some(i as u16 + 1)
    }

    fn at(&mut self, q: usize, p: u16) -> &mut PartitionUsage {
        &mut self.usage[q][usize::from(p)]
    }

    /// A container of `mb` of `user` placed in queue `q` on partition `p`.
    pub(super) fn charge(&mut self, q: usize, p: u16, user: &str, mb: u64) {
        let u = self.at(q, p);
        u.used_mb += mb;
        u.users.entry(user.to_string()).or_default().0 += mb;
    }

    /// That container completed.
    pub(super) fn release(&mut self, q: usize, p: u16, user: &str, mb: u64) {
        let u = self.at(q, p);
        u.used_mb = u.used_mb.saturating_sub(mb);
        if let Some(x) = u.users.get_mut(user) {
            x.0 = x.0.saturating_sub(mb);
        }
    }
}

/// What `activateApplications` compares an AM with, in its partition.
pub(super) struct AmState {
    pub queue_limit: Resource,
    pub user_limit: Resource,
    pub am_used: Resource,
    pub user_am: u64,
}

impl CapacityScheduler {
    /// The cluster's node labels: `(host, label)` for each labelled NodeManager (before they
    /// register). Each distinct label is one exclusive partition.
    pub fn set_node_labels(&mut self, labelled: &[(String, String)]) {
        let labels: BTreeSet<&String> = labelled.iter().map(|(_, l)| l).collect();
        let mut names = vec![String::new()];
        names.extend(labels.into_iter().cloned());
        let p = &mut self.labels;
        p.by_host = labelled
            .iter()
            .filter_map(|(h, l)| Some((h.clone(), names.iter().position(|n| n == l)? as u16)))
            .collect();
        p.total_mb = vec![0; names.len()];
        p.usage = vec![vec![PartitionUsage::default(); names.len()]; self.queues.len()];
        p.names = names;
    }

    pub(super) fn queue_index(&self, queue: &str) -> Option<usize> {
        let short = queue.strip_prefix("root.").unwrap_or(queue);
        self.queues.iter().position(|q| q.spec.name == short)
    }

    /// `normalizeNodeLabelExpressionInRequest`: a request without a label gets its queue's
    /// `default-node-label-expression`; `None` is the default partition (`NO_LABEL`).
    pub(super) fn normalized_label<'a>(
        &'a self,
        label: Option<&'a str>,
        queue: &str,
    ) -> Option<&'a str> {
        let label = label.or_else(|| {
            let q = self.queue_index(queue)?;
            self.queues[q].spec.default_node_label_expression.as_deref()
        });
        label.map(str::trim).filter(|l| !l.is_empty())
    }

    /// The partition a request with `label` in `queue` is placed in (0 when the label is none
    /// or not a partition: validation refused those already).
    pub fn request_partition(&self, label: Option<&str>, queue: &str) -> u16 {
        self.normalized_label(label, queue)
            .and_then(|l| self.labels.index(l))
            .unwrap_or(0)
    }

    /// The AM's executor asks carry `label` (Spark's `spark.yarn.executor.nodeLabelExpression`).
    pub fn set_ask_label(&mut self, attempt: ApplicationAttemptId, label: Option<&str>) {
        let Some(q) = self.attempts.get(&attempt).map(|a| a.queue) else {
            return;
        };
        let queue = self.queues[q].spec.name.clone();
        let p = self.request_partition(label, &queue);
        if let Some(a) = self.attempts.get_mut(&attempt) {
            a.partition = p;
        }
    }

    /// `SchedulerUtils.validateResourceRequest`'s label checks of the normalized `expr` in
    /// `queue`: one label only, one the queue may access (`checkQueueLabelExpression`), one the
    /// cluster has (`checkQueueLabelInLabelManager`).
    pub(super) fn validate_label(&self, expr: &str, queue: &str) -> Result<(), InvalidRequest> {
        let short = queue.strip_prefix("root.").unwrap_or(queue);
        if expr.contains("&&") {
            return Err(InvalidRequest::label(
                &format!(
                    "Invalid resource request, queue={short} specified more than one node label \
                     in a node label expression, node label expression = {expr}"
                ),
                false,
            ));
        }
        let spec = self.queue_index(queue).map(|q| &self.queues[q].spec);
        if let Some(spec) = spec.filter(|s| !s.can_access_label(expr.trim())) {
            let labels = spec.accessible_node_labels.as_deref().unwrap_or_default();
            return Err(InvalidRequest::label(
                &format!(
                    "Invalid resource request, queue={short} doesn't have permission to access \
                     all labels in resource request. labelExpression of resource request={expr}. \
                     Queue labels={}",
                    java_hash_set_order(labels).join(",")
                ),
                false,
            ));
        }
        if self.labels.index(expr).is_none() {
            return Err(InvalidRequest::label(
                &format!("Invalid label resource request, cluster do not contain , label= {expr}"),
                false,
            ));
        }
        Ok(())
    }

    /// A node of partition `p` joined (or left): the partition's resource.
    pub(super) fn add_partition_mb(&mut self, p: u16, mb: u64) {
        match p {
            0 => self.cluster_mb += mb,
            _ => self.labels.total_mb[usize::from(p)] += mb,
        }
    }

    pub(super) fn remove_partition_mb(&mut self, p: u16, mb: u64) {
        match p {
            0 => self.cluster_mb -= mb,
            _ => self.labels.total_mb[usize::from(p)] -= mb,
        }
    }

    /// `RegularContainerAllocator` (`appInfo.acceptNodePartition`, exclusive partitions): the
    /// request's partition is the node's.
    pub(super) fn partition_accepts(
        &self,
        a: &SchedulerAttempt,
        am: bool,
        node: &SchedulerNode,
    ) -> bool {
        let p = if am { a.am_partition } else { a.partition };
        p == node.partition
    }

    /// `checkHeadroom` on partition `p`: one more container of `r` keeps the queue within its
    /// current limit there.
    pub(super) fn headroom_allows_in(&self, a: &SchedulerAttempt, r: Resource, p: u16) -> bool {
        if p == 0 {
            return self.headroom_allows(a, r);
        }
        let u = &self.labels.usage[a.queue][usize::from(p)];
        u.used_mb + r.memory_mb <= self.label_current_limit_mb(a.queue, p)
    }

    /// `canAssignToUser` on partition `p`: the user is not above its user limit there.
    pub(super) fn user_allows_in(&self, a: &SchedulerAttempt, p: u16) -> bool {
        if p == 0 {
            return self.user_allows(a);
        }
        let u = &self.labels.usage[a.queue][usize::from(p)];
        let user_used = u.users.get(&a.user).map_or(0, |x| x.0);
        user_used <= self.label_user_limit_mb(a.queue, p)
    }

    /// `UsersManager.computeUserLimit` in labelled partition `p`: the queue's capacity and
    /// usage there; the active users are the queue's (Hadoop keeps one set for all partitions).
    fn label_user_limit_mb(&self, q: usize, p: u16) -> u64 {
        let lq = &self.queues[q];
        let total = self.labels.total_mb[usize::from(p)];
        let (mut ratio, mut active_used, mut active) = (0f32, 0u64, 0u32);
        for (name, (used, _)) in &self.labels.usage[q][usize::from(p)].users {
            ratio += super::users::usage_ratio(*used, total);
            if lq.users.get(name).is_some_and(|x| x.asking_apps > 0) {
                active_used += used;
            }
        }
        for x in lq.users.values() {
            active += u32::from(x.asking_apps > 0);
        }
        let max = lq.spec.label_capacity(self.labels.name(p)).maximum_capacity;
        let inputs = super::users::UserLimitInputs {
            partition_mb: total,
            capacity_mb: self.label_capacity_mb(q, p),
            max_capacity_mb: (total as f64 * max / 100.0) as u64,
            usage_ratio: ratio,
            active_used_mb: active_used,
            active_users: active,
        };
        self.compute_user_limit(&lq.spec, &inputs)
    }

    /// `getEffectiveCapacity(label)`: the queue's `accessible-node-labels.<label>.capacity`
    /// share of the partition, in MB.
    fn label_capacity_mb(&self, q: usize, p: u16) -> u64 {
        let pct = self.queues[q]
            .spec
            .label_capacity(self.labels.name(p))
            .capacity;
        (self.labels.total_mb[usize::from(p)] as f64 * pct / 100.0) as u64
    }

    /// The queue's current limit in partition `p`: its maximum capacity there, and what the
    /// other queues leave of the partition, rounded down to the minimum allocation.
    fn label_current_limit_mb(&self, q: usize, p: u16) -> u64 {
        let total = self.labels.total_mb[usize::from(p)];
        let spec = &self.queues[q].spec;
        let max = (total as f64 * spec.label_capacity(self.labels.name(p)).maximum_capacity / 100.0)
            as u64;
        let i = usize::from(p);
        let others: u64 = (0..self.queues.len())
            .filter(|&x| x != q)
            .map(|x| self.labels.usage[x][i].used_mb)
            .sum();
        let step = self.limits.minimum_mb.max(1);
        max.min(total.saturating_sub(others) / step * step)
    }

    /// The AM limits and usage `activateApplications` checks an AM of partition `p` against:
    /// `calculateAndGetAMResourceLimitPerPartition` (for a label, the queue's capacity in it
    /// times its `maximum-am-resource-percent`, without the current limit the default
    /// partition adds) and the user's share of it.
    pub(super) fn am_state(&self, q: usize, p: u16, user: &str) -> AmState {
        let lq = &self.queues[q];
        if p == 0 {
            return AmState {
                queue_limit: self.queue_am_limit(q),
                user_limit: self.user_am_limit(q),
                am_used: Resource {
                    memory_mb: lq.am_used_mb,
                    vcores: lq.am_used_vcores,
                    gpus: 0,
                },
                user_am: lq.users.get(user).map_or(0, |u| u.am_used_mb),
            };
        }
        let pct = lq
            .spec
            .label_capacity(self.labels.name(p))
            .maximum_am_resource_percent;
        let cap = self.label_capacity_mb(q, p);
        let queue_limit = self.multiply_and_normalize_up(cap, pct);
        let u = &self.labels.usage[q][usize::from(p)];
        AmState {
            queue_limit,
            user_limit: self.user_am_limit_of(q, cap, pct, queue_limit),
            am_used: u.am_used,
            user_am: u.users.get(user).map_or(0, |x| x.1),
        }
    }

    /// An AM of partition `p` was activated: its share of the queue's AM usage.
    pub(super) fn charge_am(&mut self, q: usize, p: u16, user: &str, am: Resource) {
        if p == 0 {
            let lq = &mut self.queues[q];
            lq.am_used_mb += am.memory_mb;
            lq.am_used_vcores += am.vcores;
            lq.users.entry(user.to_string()).or_default().am_used_mb += am.memory_mb;
            return;
        }
        let u = self.labels.at(q, p);
        u.am_used.memory_mb += am.memory_mb;
        u.am_used.vcores += am.vcores;
        u.users.entry(user.to_string()).or_default().1 += am.memory_mb;
    }

    /// The activated attempt ended: its AM share goes back.
    pub(super) fn release_am(&mut self, q: usize, p: u16, user: &str, am: Resource) {
        if p == 0 {
            let lq = &mut self.queues[q];
            lq.am_used_mb -= am.memory_mb;
            lq.am_used_vcores -= am.vcores;
            if let Some(u) = lq.users.get_mut(user) {
                u.am_used_mb -= am.memory_mb;
            }
            return;
        }
        let u = self.labels.at(q, p);
        u.am_used.memory_mb -= am.memory_mb;
        u.am_used.vcores -= am.vcores;
        if let Some(x) = u.users.get_mut(user) {
            x.1 -= am.memory_mb;
        }
    }

    /// `PriorityUtilizationQueueOrderingPolicy` on a node of partition `p`: the queues by
    /// their used capacity in that partition (the default partition's order otherwise).
    pub(super) fn queue_order_in(&self, p: u16) -> Vec<usize> {
        if p == 0 {
            return self.queue_order();
        }
        let i = usize::from(p);
        let label = self.labels.name(p);
        let total = self.labels.total_mb[i];
        let key = |q: usize| {
            let cap_pct = self.queues[q].spec.label_capacity(label).capacity;
            let zero = cap_pct <= 0.0;
            let base = if zero {
                total
            } else {
                self.label_capacity_mb(q, p)
            };
            let used = self.labels.usage[q][i].used_mb;
            let ratio = if base == 0 {
                0.0
            } else {
                used as f32 / base as f32
            };
            (zero, ratio, cap_pct)
        };
        let mut order: Vec<usize> = (0..self.queues.len()).collect();
        order.sort_by(|&x, &y| {
            let (zx, ux, cx) = key(x);
            let (zy, uy, cy) = key(y);
            zx.cmp(&zy).then(ux.total_cmp(&uy)).then(cy.total_cmp(&cx))
        });
        order
    }
}

/// The order a `java.util.HashSet<String>` of these strings, added in this order, iterates in
/// (what `StringUtils.join` prints for a queue's accessible labels): by bucket of the spread
/// `String.hashCode` in the table the set has grown to, then in insertion order.
pub(super) fn java_hash_set_order(items: &[String]) -> Vec<&str> {
    let mut table = 16usize;
    while items.len() as f64 > table as f64 * 0.75 {
        table *= 2;
    }
    let bucket = |s: &str| {
        let h = s
            .encode_utf16()
            .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
        let h = h as u32;
        ((h ^ (h >> 16)) as usize) & (table - 1)
    };
    let mut order: Vec<(usize, usize, &str)> = items
        .iter()
        .enumerate()
        .map(|(i, s)| (bucket(s), i, s.as_str()))
        .collect();
    order.sort();
    order.into_iter().map(|(_, _, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::config::LabelCapacity;

    use super::super::test_support::{GB, attempt, res};

    fn node(host: &str) -> NodeId {
        NodeId {
            host: host.into(),
            port: 8041,
        }
    }

    /// Nodes d0, d1 (default partition) and g0, g1 (label gpu), 8 GB each, one container a
    /// heartbeat off (every container that fits), queues `default` and `ml` as given.
    fn labelled(queues: &[QueueSpec]) -> CapacityScheduler {
        let limits = AllocationLimits {
            minimum_mb: 1024,
            maximum_mb: 8192,
            minimum_vcores: 1,
            maximum_vcores: 4,
        };
        let mut cs = CapacityScheduler::with_queues(limits, queues);
        cs.set_heartbeat_assignments(HeartbeatAssignments {
            multiple_assignments_enabled: true,
            maximum_container_assignments: -1,
            maximum_offswitch_assignments: u32::MAX,
        });
        let gpu = |h: &str| (h.to_string(), "gpu".to_string());
        cs.set_node_labels(&[gpu("g0"), gpu("g1")]);
        for h in ["d0", "d1", "g0", "g1"] {
            cs.add_node(node(h), "/r".into(), res(8 * GB, 8));
        }
        cs
    }

    fn with_gpu(name: &str, capacity: f64, gpu: Option<f64>) -> QueueSpec {
        let mut q = QueueSpec::with_capacity(name, capacity);
        if let Some(c) = gpu {
            let lc = LabelCapacity {
                capacity: c,
                maximum_capacity: 100.0,
                maximum_am_resource_percent: 0.1,
            };
            q.label_capacities.insert("gpu".into(), lc);
        }
        q
    }

    fn hosts(cs: &mut CapacityScheduler, nodes: &[usize]) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        for &n in nodes {
            for a in cs.node_update(n) {
                out.push((a.container.id.id, a.container.node_id.host));
            }
        }
        out
    }

    /// RegularContainerAllocator (Hadoop 3.4) skips a request whose partition is not the
    /// node's (`appInfo.acceptNodePartition`, exclusive labels): gpu asks go to g0/g1 only, the
    /// AM's unlabelled request to the default partition only; a partition's resource is its
    /// nodes' (RMNodeLabelsManager), so the default queue capacity excludes g0/g1.
    #[test]
    fn labelled_asks_go_only_to_their_partition() {
        let mut cs = labelled(&[with_gpu("default", 100.0, Some(100.0))]);
        let a = attempt(1);
        assert_eq!(cs.add_attempt_in(a, res(GB, 1), "default", "u"), None);
        // The AM: nothing on a gpu node's heartbeat, then the default node takes it.
        assert!(hosts(&mut cs, &[2, 3]).is_empty());
        assert_eq!(hosts(&mut cs, &[0]), [(1, "d0".to_string())]);
        cs.set_ask_label(a, Some("gpu"));
        cs.update_requests(a, res(2 * GB, 1), 3, 0, &[], &[]);
        assert!(hosts(&mut cs, &[0, 1]).is_empty(), "no gpu ask on d0/d1");
        let got = hosts(&mut cs, &[2, 3]);
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|(_, h)| h.starts_with('g')), "{got:?}");
        assert_eq!(cs.cluster_mb, 16 * GB);
    }

    /// The AM's own label (Spark's spark.yarn.am.nodeLabelExpression, Client.scala
    /// setAMContainerResourceRequests) puts the AM container in that partition; the
    /// pending diagnostics name it (FiCaSchedulerApp: "AM Partition = gpu").
    #[test]
    fn a_labelled_am_runs_in_its_partition_under_that_partitions_am_limit() {
        let mut cs = labelled(&[with_gpu("default", 100.0, Some(100.0))]);
        let (a, b) = (attempt(1), attempt(2));
        let first = cs.add_attempt_labelled(a, res(GB, 1), "default", "u", Some("gpu"));
        assert_eq!(first, None);
        assert!(hosts(&mut cs, &[0, 1]).is_empty());
        assert_eq!(hosts(&mut cs, &[2]), [(1, "g0".to_string())]);
        // gpu's AM limit: 16 GB x 0.1 rounded up to 2 GB; 1 GB + 2 GB passes it.
        let why = cs
            .add_attempt_labelled(b, res(2 * GB, 1), "default", "u", Some("gpu"))
            .expect("pending");
        assert_eq!(why.queue_am_limit, res(2 * GB, 1));
        assert!(
            why.diagnostics("d").contains("AM Partition = gpu; "),
            "{}",
            why.diagnostics("d")
        );
    }

    /// CapacitySchedulerConfiguration.getLabeledQueueCapacity defaults to 0. Hadoop 3.4's
    /// UsersManager.computeUserLimit then caps the user at the queue's maximum capacity in the
    /// partition, rounded down to the minimum allocation, not at capacity x user-limit-factor
    /// (`originalCapacity.equals(Resources.none())`: "prevent incorrect maxUserLimit due to low
    /// queueCapacity"), so one user takes what the maximum capacity there allows: all four 2 GB
    /// containers at 100 %, two at 25 % (4 GB of 16 GB).
    #[test]
    fn a_zero_label_capacity_caps_a_user_at_the_maximum_capacity_there() {
        for (max, want) in [(100.0, 4), (25.0, 2)] {
            let mut default = with_gpu("default", 100.0, Some(0.0));
            default
                .label_capacities
                .get_mut("gpu")
                .expect("set")
                .maximum_capacity = max;
            let mut cs = labelled(&[default]);
            let a = attempt(1);
            cs.add_attempt_in(a, res(GB, 1), "default", "u");
            hosts(&mut cs, &[0]);
            cs.set_ask_label(a, Some("gpu"));
            cs.update_requests(a, res(2 * GB, 1), 4, 0, &[], &[]);
            assert_eq!(hosts(&mut cs, &[2, 3, 2, 3]).len(), want, "maximum {max}");
        }
    }

    /// Per partition, a queue stays under its maximum capacity there and the other queues'
    /// usage (ParentQueue.getResourceLimitsOfChild for the node's partition), and the less-used
    /// queue of that partition is served first (PriorityUtilizationQueueOrderingPolicy with
    /// the partition's used capacity).
    #[test]
    fn queues_share_a_partition_by_their_label_capacities() {
        let mut ml = with_gpu("ml", 50.0, Some(75.0));
        ml.label_capacities
            .get_mut("gpu")
            .expect("set")
            .maximum_capacity = 75.0;
        let mut cs = labelled(&[with_gpu("default", 50.0, Some(25.0)), ml]);
        let (a, b) = (attempt(1), attempt(2));
        cs.add_attempt_in(a, res(GB, 1), "default", "u1");
        cs.add_attempt_in(b, res(GB, 1), "ml", "u2");
        hosts(&mut cs, &[0, 1]);
        for x in [a, b] {
            cs.set_ask_label(x, Some("gpu"));
            cs.update_requests(x, res(2 * GB, 1), 8, 0, &[], &[]);
        }
        let mut by_app = BTreeMap::<u32, u32>::new();
        for n in [2, 3, 2, 3] {
            for x in cs.node_update(n) {
                *by_app.entry(x.attempt.application_id.id).or_default() += 1;
            }
        }
        // ml: at most 75 % of 16 GB = 12 GB = 6 containers; default takes the other 4 GB
        // (within its user limit, 25 %): the partition is full at 16 GB.
        assert_eq!(by_app.get(&2), Some(&6));
        assert_eq!(by_app.get(&1), Some(&2));
    }

    /// SchedulerUtils.validateResourceRequest (Hadoop 3.4): the queue's accessible labels
    /// (`checkQueueLabelExpression`), then the cluster's (`checkQueueLabelInLabelManager`),
    /// with their exception texts; a request without a label takes the queue's
    /// default-node-label-expression (normalizeNodeLabelExpressionInRequest).
    #[test]
    fn label_requests_are_checked_against_the_queue_and_the_cluster() {
        let mut etl = QueueSpec::with_capacity("etl", 50.0);
        etl.accessible_node_labels = Some(vec!["x".into(), "gpu".into(), "a".into()]);
        let mut ml = with_gpu("ml", 50.0, Some(100.0));
        ml.default_node_label_expression = Some("gpu".into());
        ml.accessible_node_labels = Some(vec!["gpu".into()]);
        let mut cs = labelled(&[etl, ml]);
        let r = res(GB, 1);
        let err = cs
            .normalize_and_validate(r, Some("ssd"), true, "root.ml")
            .expect_err("no access");
        assert_eq!(
            err.message,
            "Invalid resource request, queue=ml doesn't have permission to access all labels in resource request. labelExpression of resource request=ssd. Queue labels=gpu"
        );
        // A java.util.HashSet's order: "a" (bucket 1), "x" (8), "gpu" (13).
        let err = cs
            .normalize_and_validate(r, Some("ssd"), true, "etl")
            .expect_err("no access");
        assert!(
            err.message.ends_with("Queue labels=a,x,gpu"),
            "{}",
            err.message
        );
        let err = cs
            .normalize_and_validate(r, Some("x"), true, "etl")
            .expect_err("not in the cluster");
        assert_eq!(
            err.message,
            "Invalid label resource request, cluster do not contain , label= x"
        );
        assert_eq!(
            cs.normalize_and_validate(r, Some("gpu"), true, "etl"),
            Ok(())
        );
        assert_eq!(cs.request_partition(None, "ml"), 1);
        assert_eq!(cs.request_partition(Some(""), "ml"), 0);
        let b = attempt(1);
        cs.add_attempt_in(b, r, "ml", "u");
        assert!(
            hosts(&mut cs, &[0, 1]).is_empty(),
            "ml's AM defaults to gpu"
        );
        assert_eq!(hosts(&mut cs, &[3]), [(1, "g1".to_string())]);
    }

    /// The set order of Java's HashMap: bucket `(h ^ h >>> 16) & (n - 1)` of String.hashCode,
    /// the table doubling past 0.75 load.
    #[test]
    fn java_hash_set_order_follows_the_buckets() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            java_hash_set_order(&s(&["gpu", "x", "a"])),
            ["a", "x", "gpu"]
        );
        // "q" and "a" share bucket 1 (113 & 15, 97 & 15): insertion order.
        assert_eq!(java_hash_set_order(&s(&["q", "a"])), ["q", "a"]);
    }
}
