//! The ResourceManager's scheduler as a plain state machine (no actix, no SimContext): nodes and
//! what they have in use, each attempt's outstanding asks, blacklist and live containers, and the
//! assignment of containers on a NodeManager heartbeat; mirrors Hadoop's `CapacityScheduler`
//! (`nodeUpdate` / `allocateContainersToNode`, `removeNode`) with its leaf queues
//! (`AbstractLeafQueue`: application activation under the AM resource limits, the queue's
//! maximum capacity and the user limit), `FiCaSchedulerNode`, `SchedulerApplicationAttempt` /
//! `AppSchedulingInfo` and `SchedulerUtils.normalizeRequest`. The RM actor drives it and does the
//! logging and messaging.

use crate::world::config::{HeartbeatAssignments, LocalityDelays, QueueSpec};
use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use sparkyard_messages::records::{Container, Resource};
use sparkyard_messages::resource_manager::{LocalityAsk, ResourceName};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[cfg(test)]
mod hadoop_suites;
mod node_labels;
mod priority;
pub mod recorded_placement;
#[cfg(test)]
mod test_support;
mod users;
use node_labels::Partitions;
pub use priority::GrantedPriority;
use recorded_placement::{NodeView, Placed, RecordedPlacement};
use users::QueueUser;

/// `InvalidResourceRequestException`'s class name.
pub const INVALID_RESOURCE_REQUEST: &str =
    "org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException";

/// A request `SchedulerUtils.normalizeAndValidateRequest` refuses: the exception's class and
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidRequest {
    pub class: &'static str,
    pub message: String,
    /// Refused because node labels are off (SchedulerUtils then also warns `NodeLabel is not
    /// enabled in cluster, but resource request contains a label expression.`).
    pub labels_disabled: bool,
}

impl InvalidRequest {
    /// An `InvalidLabelResourceRequestException`.
    fn label(message: &str, labels_disabled: bool) -> Self {
        InvalidRequest {
            class: "org.apache.hadoop.yarn.exceptions.InvalidLabelResourceRequestException",
            message: message.to_string(),
            labels_disabled,
        }
    }
}

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
    /// Its node-label partition (0: the default partition, no label).
    pub partition: u16,
    /// Its live containers the NM reported RUNNING (`SchedulerNode.ContainerInfo
    /// .launchedOnNode`, set by `containerStarted`).
    pub launched: BTreeSet<ContainerId>,
    /// Containers completed at the RM (released, or killed with their attempt) that were
    /// running here, with their size: the node keeps their room
    /// until the NM reports them complete (`SchedulerNode.releaseContainer(id, false)` "wait
    /// until node reports container has completed", YARN-4148).
    pub held: BTreeMap<ContainerId, Resource>,
}

impl SchedulerNode {
    /// Whether `r` fits in what the node has left, every resource type counted (GPUs too, as
    /// `DominantResourceCalculator.computeAvailableContainers` does; a GPU cluster runs with it).
    pub fn fits(&self, r: Resource) -> bool {
        let after = Resource {
            memory_mb: self.used.memory_mb + r.memory_mb,
            vcores: self.used.vcores + r.vcores,
            gpus: self.used.gpus + r.gpus,
        };
        within(after, self.total)
    }

    /// Whether `r` fits on the node once it is empty: no bigger than the node, every type.
    pub fn holds(&self, r: Resource) -> bool {
        within(r, self.total)
    }
}

/// Whether `r` is at most `limit` in every resource type.
fn within(r: Resource, limit: Resource) -> bool {
    r.memory_mb <= limit.memory_mb && r.vcores <= limit.vcores && r.gpus <= limit.gpus
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
    /// Its leaf queue (index into the scheduler's queues) and user.
    queue: usize,
    user: String,
    /// The AM's normalized size; counted in the queue's AM usage while `active`.
    am_resource: Resource,
    /// Activated (`activateApplications`): its AM container may be assigned.
    active: bool,
    /// The node-label partitions of its AM request and of its executor asks (0: default).
    am_partition: u16,
    partition: u16,
    /// Its node and rack asks, once it sent one (an attempt asking only `*` has none).
    locality: Option<Box<LocalityAsks>>,
    /// Counted in its user's `asking_apps` (see `refresh_asking`).
    asking_user: bool,
    /// A replayed recording's nodes for its executors (`recorded_placement`); `None`: YARN's own.
    placement: Option<Box<RecordedPlacement>>,
}

/// An attempt's asks for resource names other than `*` (`LocalityAppPlacementAllocator`'s
/// node and rack `ResourceRequest`s) and its missed scheduling opportunities
/// (`SchedulerApplicationAttempt.schedulingOpportunities`).
#[derive(Clone, Debug, Default)]
struct LocalityAsks {
    nodes: BTreeMap<String, u32>,
    racks: BTreeMap<String, u32>,
    /// Counted at each node offered to the attempt (`addSchedulingOpportunity` in
    /// `preCheckForNodeCandidateSet`), whether or not it gets a container.
    missed: Cell<u64>,
}

impl LocalityAsks {
    fn count(map: &BTreeMap<String, u32>, name: &str) -> u32 {
        map.get(name).copied().unwrap_or(0)
    }

    /// One fewer container wanted on `name` (`decResourceRequest`; a name at 0 leaves).
    fn decrement(map: &mut BTreeMap<String, u32>, name: &str) {
        if let Some(n) = map.get_mut(name) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(name);
            }
        }
    }

    /// `getUniqueLocationAsks`: the resource names with asks, `*` included.
    fn unique_location_asks(&self) -> u64 {
        (self.nodes.len() + self.racks.len() + 1) as u64
    }
}

/// Where a container was placed relative to what was asked (`NodeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeType {
    NodeLocal,
    RackLocal,
    OffSwitch,
}

/// One container `next_assignment` chose.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    attempt: ApplicationAttemptId,
    resource: Resource,
    am: bool,
    kind: NodeType,
    /// Where a recorded placement puts it (another node than the heartbeating one, maybe).
    placed: Option<Placed>,
}

/// What `LeafQueue.assignContainers` makes of one application on a node.
enum AppOutcome {
    Take(Candidate),
    /// The next application is tried.
    Next,
    /// `SkippedType.QUEUE_LIMIT`: the queue's turn ends, the next queue is tried.
    QueueSkipped,
}

/// Why `activateApplications` left an application pending
/// (`CSAMContainerLaunchDiagnosticsConstants`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmLimitExceeded {
    /// `QUEUE_AM_RESOURCE_LIMIT_EXCEED`: "Queue's AM resource limit exceeded. "
    Queue,
    /// `USER_AM_RESOURCE_LIMIT_EXCEED`: "User's AM resource limit exceeded. "
    User,
}

impl AmLimitExceeded {
    /// The WARN `AbstractLeafQueue.activateApplications` logs (Hadoop 3.4) when it starts an
    /// application past this limit because none of the queue's is active, or none holds AM
    /// resource.
    pub fn insufficient_warning(self) -> &'static str {
        match self {
            AmLimitExceeded::Queue => {
                "maximum-am-resource-percent is insufficient to start a single application in \
                 queue, it is likely set too low. skipping enforcement to allow at least one \
                 application to start"
            }
            AmLimitExceeded::User => {
                "maximum-am-resource-percent is insufficient to start a single application in \
                 queue for user, it is likely set too low. skipping enforcement to allow at least \
                 one application to start"
            }
        }
    }
}

/// What `FiCaSchedulerApp.getPendingAppDiagnosticMessage` reports of an application that is
/// not activated yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingActivation {
    pub reason: AmLimitExceeded,
    pub am_request: Resource,
    pub queue_am_limit: Resource,
    pub user_am_limit: Resource,
    pub queue_am_used: Resource,
    /// The AM request's node label (empty: the default partition).
    pub am_partition: String,
}

impl PendingActivation {
    /// `SchedulerApplicationAttempt.updateAMContainerDiagnostics(INACTIVATED, ...)` with the
    /// pending details (Hadoop 3.4 FiCaSchedulerApp; `date` is the `[...]` prefix).
    pub fn diagnostics(&self, date: &str) -> String {
        let reason = match self.reason {
            AmLimitExceeded::Queue => "Queue's AM resource limit exceeded. ",
            AmLimitExceeded::User => "User's AM resource limit exceeded. ",
        };
        format!(
            "[{date}] Application is added to the scheduler and is not yet activated. {reason} \
             Details : AM Partition = {}; AM Resource Request = {}; Queue \
             Resource Limit for AM = {}; User AM Resource Limit of the queue = {}; Queue AM \
             Resource Usage = {}; ",
            if self.am_partition.is_empty() {
                "<DEFAULT_PARTITION>"
            } else {
                &self.am_partition
            },
            self.am_request,
            self.queue_am_limit,
            self.user_am_limit,
            self.queue_am_used
        )
    }
}

/// An application `activateApplications` has just activated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activated {
    pub attempt: ApplicationAttemptId,
    pub user: String,
    /// `getQueuePath()`: `root.<name>`.
    pub queue_path: String,
    /// Started past the queue's or the user's AM limit (in that order Hadoop warns of each,
    /// before the activation line), because no other application of the queue was active.
    pub bypassed: Vec<AmLimitExceeded>,
}

/// One leaf queue's configuration and usage (`AbstractLeafQueue` with its `UsersManager`);
/// memory only is compared, as the `DefaultResourceCalculator` does.
#[derive(Clone, Debug)]
struct LeafQueue {
    spec: QueueSpec,
    used_mb: u64,
    am_used_mb: u64,
    /// The vcores of the active AMs (shown in the pending diagnostics' AM usage).
    am_used_vcores: u32,
    /// Its users (`UsersManager`).
    users: BTreeMap<String, QueueUser>,
    active_apps: u32,
    /// Applications not activated yet, in submission order, with the last reason.
    pending: Vec<(ApplicationAttemptId, Option<PendingActivation>)>,
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
    /// The node's index (the heartbeating node's, unless a recorded placement put it on
    /// another).
    pub node: usize,
}

/// A live container the scheduler completed when its attempt ended
/// (`done_application_attempt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Killed {
    pub id: ContainerId,
    /// Its node's index.
    pub node: usize,
    /// The NM had reported it RUNNING: the node holds its room until the NM reports its end.
    pub running: bool,
}

/// The scheduler: leaf queues under `root` served by used capacity, FIFO over the
/// applications of a queue, as many containers a heartbeat as `canAllocateMore` allows (one by
/// default: each is OFF_SWITCH).
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
    queues: Vec<LeafQueue>,
    /// Memory of the nodes not LOST (`lastClusterResource`).
    cluster_mb: u64,
    /// Applications activated since the RM last drained them.
    activated: Vec<Activated>,
    /// How many containers one node heartbeat may get (`canAllocateMore`).
    per_heartbeat: HeartbeatAssignments,
    locality_delays: LocalityDelays,
    /// The labelled partitions and the queues' usage in them.
    labels: Partitions,
    /// Application priorities above 0 (`checkAndGetApplicationPriority`'s result); most
    /// clusters have none (`yarn.cluster.max-application-priority` is 0 by default).
    priorities: BTreeMap<ApplicationId, u32>,
    /// Applications `activateApplications` left pending since the RM last drained them, with
    /// the reason it found this time (`updateAMContainerDiagnostics(INACTIVATED, ...)`).
    refreshed: Vec<(ApplicationAttemptId, PendingActivation)>,
    /// `yarn.resource-types.yarn.io/gpu.maximum-allocation` when `yarn.resource-types` names
    /// `yarn.io/gpu`; `None`: the RM knows no GPU type (no request or node carries GPUs then).
    gpu_maximum: Option<u64>,
}

/// A `long` resource value in the record's `u32` field (a GPU count never comes near it).
fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// `Resource.toString` of `r` with its `yarn.io/gpu` value given as the `long` Hadoop keeps
/// (a type whose value is 0 is skipped).
fn resource_text(r: Resource, gpus: u64) -> String {
    let base = Resource { gpus: 0, ..r }.to_string();
    if gpus == 0 {
        return base;
    }
    format!("{}, yarn.io/gpu: {gpus}>", base.trim_end_matches('>'))
}

impl CapacityScheduler {
    #[cfg(test)]
    pub fn new(limits: AllocationLimits) -> Self {
        Self::with_queues(limits, &[QueueSpec::with_capacity("default", 100.0)])
    }

    /// A scheduler with these leaf queues under `root` (the cluster file's `[[queues]]`).
    pub fn with_queues(limits: AllocationLimits, queues: &[QueueSpec]) -> Self {
        let queues = queues
            .iter()
            .map(|spec| LeafQueue {
                spec: spec.clone(),
                used_mb: 0,
                am_used_mb: 0,
                am_used_vcores: 0,
                users: BTreeMap::new(),
                active_apps: 0,
                pending: Vec::new(),
            })
            .collect();
        CapacityScheduler {
            queues,
            cluster_mb: 0,
            activated: Vec::new(),
            limits,
            nodes: Vec::new(),
            node_by_host: BTreeMap::new(),
            live_nodes: 0,
            attempts: BTreeMap::new(),
            pending_am: VecDeque::new(),
            asking: BTreeSet::new(),
            per_heartbeat: HeartbeatAssignments::default(),
            locality_delays: LocalityDelays::default(),
            labels: Partitions::default(),
            priorities: BTreeMap::new(),
            refreshed: Vec::new(),
            gpu_maximum: None,
        }
    }

    /// The queues' locality delays (Hadoop's defaults until set).
    pub fn set_locality_delays(&mut self, delays: LocalityDelays) {
        self.locality_delays = delays;
    }

    /// The cluster's `per-node-heartbeat.*` keys (Hadoop's defaults until set).
    pub fn set_heartbeat_assignments(&mut self, per_heartbeat: HeartbeatAssignments) {
        self.per_heartbeat = per_heartbeat;
    }

    /// `CapacityScheduler.canAllocateMore` after `assigned` containers, `offswitch` of them
    /// OFF_SWITCH, on one heartbeat (a reservation never happens here, see `leaf_next`): under
    /// the off-switch limit (`offswitchPerHeartbeatLimit`, at least 1), multiple assignments
    /// enabled, and under `maxAssignPerHeartbeat` unless it is -1.
    fn can_allocate_more(&self, offswitch: u32, assigned: u32) -> bool {
        let p = &self.per_heartbeat;
        offswitch < p.maximum_offswitch_assignments.max(1)
            && p.multiple_assignments_enabled
            && (p.maximum_container_assignments == -1
                || i64::from(assigned) < p.maximum_container_assignments)
    }

    /// The `yarn.io/gpu` type with its configured maximum allocation
    /// (`yarn.resource-types.yarn.io/gpu.maximum-allocation`); without it the RM knows no GPUs.
    pub fn set_gpu_type(&mut self, maximum_allocation: u64) {
        self.gpu_maximum = Some(maximum_allocation);
    }

    /// `getMaximumResourceCapability` (the configured GPU maximum, a `long` in Hadoop, capped to
    /// the record's field: [`Self::maximum_allocation_text`] prints it whole).
    pub fn maximum_allocation(&self) -> Resource {
        Resource {
            memory_mb: self.limits.maximum_mb,
            vcores: self.limits.maximum_vcores,
            gpus: self.gpu_maximum.map_or(0, clamp_u32),
        }
    }

    /// `Resource.toString` of the configured maximum allocation: its `yarn.io/gpu` is
    /// `Long.MAX_VALUE` by default (`ResourceUtils`), printed as such.
    fn maximum_allocation_text(&self) -> String {
        resource_text(self.maximum_allocation(), self.gpu_maximum.unwrap_or(0))
    }

    /// `DefaultResourceCalculator.normalize`: round the memory up to the minimum step (at
    /// least the minimum), cap it at the maximum; vcores between the minimum and the maximum.
    /// GPUs are kept, capped at their maximum, as `DominantResourceCalculator.normalize` does
    /// for a countable type (minimum 0, step 1); Hadoop's `DefaultResourceCalculator.normalize`
    /// would return memory only (`Resources.createResource(normalizedMemory)`), losing them.
    pub fn normalize(&self, r: Resource) -> Resource {
        let l = &self.limits;
        let step = l.minimum_mb.max(1);
        let mem = r.memory_mb.max(l.minimum_mb).div_ceil(step) * step;
        let gpu_cap = self.gpu_maximum.unwrap_or(0);
        Resource {
            memory_mb: mem.min(l.maximum_mb),
            vcores: r.vcores.max(l.minimum_vcores).min(l.maximum_vcores),
            gpus: clamp_u32(u64::from(r.gpus).min(gpu_cap)),
        }
    }

    /// `addNode`: returns the node's index.
    pub fn add_node(&mut self, node_id: NodeId, rack: String, total: Resource) -> usize {
        let idx = self.nodes.len();
        let partition = self.labels.partition_of_host(&node_id.host);
        self.node_by_host.insert(node_id.host.clone(), idx);
        self.nodes.push(SchedulerNode {
            node_id,
            rack,
            total,
            used: Resource {
                memory_mb: 0,
                vcores: 0,
                gpus: 0,
            },
            lost: false,
            decommissioning: false,
            containers: Vec::new(),
            partition,
            launched: BTreeSet::new(),
            held: BTreeMap::new(),
        });
        self.live_nodes += 1;
        self.add_partition_mb(partition, total.memory_mb);
        self.activate_all();
        idx
    }

    /// `ClusterNodeTracker.getMaxAllowedAllocation`: the configured maximum, lowered to the
    /// largest registered NodeManager's resource, type by type.
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
            gpus: configured
                .gpus
                .min(largest(|r| u64::from(r.gpus)).map_or(u32::MAX, clamp_u32)),
        }
    }

    /// [`Self::max_allowed_allocation`] as `Resource.toString` prints it: with no NodeManager
    /// registered it is the configured maximum, GPUs whole.
    fn max_allowed_allocation_text(&self) -> String {
        if self.nodes.is_empty() {
            return self.maximum_allocation_text();
        }
        self.max_allowed_allocation().to_string()
    }

    /// `SchedulerUtils.validateResourceRequest` (`checkResourceRequestAgainstAvailableResource`,
    /// type by type in `ResourceUtils` order: memory, vcores, then `yarn.io/gpu`): a request
    /// above the maximum allowed allocation is an `InvalidResourceRequestException` with
    /// `GREATER_THAN_MAX_RESOURCE_MESSAGE_TEMPLATE`'s text.
    pub fn validate_request(&self, requested: Resource) -> Result<(), String> {
        let max = self.max_allowed_allocation();
        let kind = if requested.memory_mb > max.memory_mb {
            "memory-mb"
        } else if requested.vcores > max.vcores {
            "vcores"
        } else if requested.gpus > max.gpus {
            "yarn.io/gpu"
        } else {
            return Ok(());
        };
        let max = self.max_allowed_allocation_text();
        Err(format!(
            "Invalid resource request! Cannot allocate containers as requested resource is greater \
             than maximum allowed allocation. Requested resource type=[{kind}], Requested \
             resource={requested}, maximum allowed allocation={max}, please note that maximum \
             allowed allocation is calculated by scheduler based on maximum resource of registered \
             NodeManagers, which might be less than configured maximum allocation={}",
            self.maximum_allocation_text()
        ))
    }

    /// `SchedulerUtils.normalizeAndValidateRequest` for one `ANY` request of `capability` with
    /// node label expression `label` (Spark's `nodeLabelExpression`s): with node labels off, any
    /// label but the empty one (`NO_LABEL`) is refused first; then the maximum allocation
    /// (`validate_request`); then the label, normalized (`default-node-label-expression` for a
    /// request without one), goes through `validateResourceRequest`'s label checks
    /// (`validate_label`: several labels, the queue's accessible labels, the cluster's labels).
    pub fn normalize_and_validate(
        &self,
        capability: Resource,
        label: Option<&str>,
        labels_enabled: bool,
        queue: &str,
    ) -> Result<(), InvalidRequest> {
        if label.is_some_and(|l| !l.is_empty()) && !labels_enabled {
            return Err(InvalidRequest::label(
                "Invalid resource request, node label not enabled but request contains label \
                 expression",
                true,
            ));
        }
        self.validate_request(capability)
            .map_err(|message| InvalidRequest {
                class: INVALID_RESOURCE_REQUEST,
                message,
                labels_disabled: false,
            })?;
        match self.normalized_label(label, queue) {
            Some(expr) => self.validate_label(expr, queue),
            None => Ok(()),
        }
    }

    pub fn node_index(&self, host: &str) -> Option<usize> {
        self.node_by_host.get(host).copied()
    }

    pub fn node(&self, idx: usize) -> &SchedulerNode {
        &self.nodes[idx]
    }

    #[cfg(test)]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn live_nodes(&self) -> u32 {
        self.live_nodes
    }

    /// `addApplicationAttempt` and the AM's ResourceRequest in the default queue as `spark`.
    #[cfg(test)]
    pub fn add_attempt(&mut self, attempt: ApplicationAttemptId, am_resource: Resource) {
        self.add_attempt_in(attempt, am_resource, "default", "spark");
    }

    /// `LeafQueue.addApplicationAttempt` and the AM's ResourceRequest: the attempt joins its
    /// queue's pending applications and `activateApplications` runs; once activated it waits
    /// for its AM container (of `am_resource`, normalized) behind the attempts activated before
    /// it. `None` when it was activated at once, else why it waits.
    pub fn add_attempt_in(
        &mut self,
        attempt: ApplicationAttemptId,
        am_resource: Resource,
        queue: &str,
        user: &str,
    ) -> Option<PendingActivation> {
        self.add_attempt_labelled(attempt, am_resource, queue, user, None)
    }

    /// `add_attempt_in` for an AM request with node label expression `am_label` (the queue's
    /// `default-node-label-expression` when `None`, as `normalizeNodeLabelExpressionInRequest`).
    pub fn add_attempt_labelled(
        &mut self,
        attempt: ApplicationAttemptId,
        am_resource: Resource,
        queue: &str,
        user: &str,
        am_label: Option<&str>,
    ) -> Option<PendingActivation> {
        let am_partition = self.request_partition(am_label, queue);
        let short = queue.strip_prefix("root.").unwrap_or(queue);
        let q = self
            .queues
            .iter()
            .position(|q| q.spec.name == short)
            .unwrap_or(0);
        let am = self.normalize(am_resource);
        self.insert_attempt(attempt, am, q, user, am_partition);
        self.queues[q]
            .pending
            .iter()
            .find(|(a, _)| *a == attempt)
            .and_then(|(_, why)| why.clone())
    }

    /// `LeafQueue.submitApplicationAttempt`: the attempt (its AM of `am`, already normalized)
    /// joins queue `q`'s pending applications as one more of `user`'s, and
    /// `activateApplications` runs.
    fn insert_attempt(
        &mut self,
        attempt: ApplicationAttemptId,
        am: Resource,
        q: usize,
        user: &str,
        am_partition: u16,
    ) {
        self.attempts.insert(
            attempt,
            SchedulerAttempt {
                next_container: 1,
                outstanding: 0,
                capability: Resource {
                    memory_mb: 0,
                    vcores: 0,
                    gpus: 0,
                },
                blacklist: BTreeSet::new(),
                live: BTreeMap::new(),
                queue: q,
                user: user.to_string(),
                am_resource: am,
                active: false,
                locality: None,
                am_partition,
                partition: 0,
                asking_user: false,
                placement: None,
            },
        );
        let u = self.queues[q].users.entry(user.to_string()).or_default();
        u.pending_apps += 1;
        self.add_pending(q, attempt);
        self.activate(q);
    }

    /// Whether an application was activated, or a pending one's activation tried again, since
    /// the last drain ([`Self::take_activated`], [`Self::take_refreshed`]).
    pub fn has_activation_news(&self) -> bool {
        !self.activated.is_empty() || !self.refreshed.is_empty()
    }

    /// Drains the pending applications whose activation was tried again since the last call,
    /// with the reason found each time (the RM refreshes their diagnostics).
    pub fn take_refreshed(&mut self) -> Vec<(ApplicationAttemptId, PendingActivation)> {
        std::mem::take(&mut self.refreshed)
    }

    /// Drains the applications activated since the last call (the RM logs them and updates
    /// their diagnostics).
    pub fn take_activated(&mut self) -> Vec<Activated> {
        std::mem::take(&mut self.activated)
    }

    fn activate_all(&mut self) {
        for q in 0..self.queues.len() {
            if !self.queues[q].pending.is_empty() {
                self.activate(q);
            }
        }
    }

    /// `getEffectiveCapacity`: the queue's guaranteed share of the cluster, in MB.
    fn capacity_mb(&self, q: usize) -> u64 {
        (self.cluster_mb as f64 * self.queues[q].spec.capacity / 100.0) as u64
    }

    /// The queue's current limit (`getCurrentLimitResource`: min(queue max resource, the limit
    /// `ParentQueue.getResourceLimitsOfChild` sets)): root's limit is the cluster, so the
    /// child's is the cluster less the other queues' usage, rounded down to the minimum
    /// allocation (`Resources.roundDown`); the queue's maximum capacity caps it.
    fn current_limit_mb(&self, q: usize) -> u64 {
        let max = (self.cluster_mb as f64 * self.queues[q].spec.maximum_capacity / 100.0) as u64;
        let others: u64 =
            self.queues.iter().map(|x| x.used_mb).sum::<u64>() - self.queues[q].used_mb;
        let step = self.limits.minimum_mb.max(1);
        let from_parent = self.cluster_mb.saturating_sub(others) / step * step;
        max.min(from_parent)
    }

    /// `DefaultResourceCalculator.multiplyAndNormalizeUp`: memory times `by`, rounded up to the
    /// minimum allocation; one vcore (`Resources.createResource(memory)`).
    fn multiply_and_normalize_up(&self, mb: u64, by: f64) -> Resource {
        let step = self.limits.minimum_mb.max(1);
        let m = (mb as f64 * by + 0.5) as u64;
        Resource {
            memory_mb: m.div_ceil(step) * step,
            vcores: 1,
            gpus: 0,
        }
    }

    /// `calculateAndGetAMResourceLimitPerPartition`: maximum-am-resource-percent of the larger
    /// of the queue's capacity and its current limit.
    fn queue_am_limit(&self, q: usize) -> Resource {
        let usable = self.capacity_mb(q).max(self.current_limit_mb(q));
        let pct = self.queues[q].spec.maximum_am_resource_percent;
        self.multiply_and_normalize_up(usable, pct)
    }

    /// `getUserAMResourceLimitPerPartition` in the default partition.
    fn user_am_limit(&self, q: usize) -> Resource {
        let pct = self.queues[q].spec.maximum_am_resource_percent;
        self.user_am_limit_of(q, self.capacity_mb(q), pct, self.queue_am_limit(q))
    }

    /// `AbstractLeafQueue.activateApplications`: each pending application in order starts if
    /// its AM fits in the queue's and the user's AM limits, or, past a limit, when none of the
    /// queue's applications is active or holds AM resource (Hadoop then warns and starts it);
    /// the others keep waiting with the reason. The user AM limit is computed once a partition
    /// a pass (`userAmPartitionLimit`), before this pass activates anything.
    fn activate(&mut self, q: usize) {
        if self.cluster_mb == 0 {
            return;
        }
        let pending = std::mem::take(&mut self.queues[q].pending);
        let mut still = Vec::new();
        let mut user_limits: BTreeMap<u16, Resource> = BTreeMap::new();
        for (attempt, _) in pending {
            let Some(a) = self.attempts.get(&attempt) else {
                continue;
            };
            let (am, user, p) = (a.am_resource, a.user.clone(), a.am_partition);
            let state = self.am_state(q, p, &user);
            let user_limit = *user_limits.entry(p).or_insert(state.user_limit);
            let bypass = self.queues[q].active_apps < 1 || state.am_used.memory_mb == 0;
            let queue_over = am.memory_mb + state.am_used.memory_mb > state.queue_limit.memory_mb;
            let user_over = am.memory_mb + state.user_am > user_limit.memory_mb;
            let reason = match (queue_over, user_over) {
                _ if bypass => None,
                (true, _) => Some(AmLimitExceeded::Queue),
                (false, true) => Some(AmLimitExceeded::User),
                (false, false) => None,
            };
            if let Some(reason) = reason {
                let why = PendingActivation {
                    reason,
                    am_request: am,
                    queue_am_limit: state.queue_limit,
                    user_am_limit: user_limit,
                    queue_am_used: state.am_used,
                    am_partition: self.labels.name(p).to_string(),
                };
                self.refreshed.push((attempt, why.clone()));
                still.push((attempt, Some(why)));
                continue;
            }
            let bypassed = [
                (queue_over, AmLimitExceeded::Queue),
                (user_over, AmLimitExceeded::User),
            ]
            .into_iter()
            .filter_map(|(over, which)| over.then_some(which))
            .collect();
            self.start_application(q, attempt, &user, am, p, bypassed);
        }
        self.queues[q].pending = still;
    }

    /// An application `activateApplications` lets start: its AM counts in the queue's and the
    /// user's AM usage and waits for its container.
    fn start_application(
        &mut self,
        q: usize,
        attempt: ApplicationAttemptId,
        user: &str,
        am: Resource,
        p: u16,
        bypassed: Vec<AmLimitExceeded>,
    ) {
        self.charge_am(q, p, user, am);
        let lq = &mut self.queues[q];
        lq.active_apps += 1;
        let u = lq.users.entry(user.to_string()).or_default();
        u.pending_apps = u.pending_apps.saturating_sub(1);
        u.active_apps += 1;
        let path = format!("root.{}", lq.spec.name);
        self.attempts.get_mut(&attempt).expect("pending").active = true;
        self.pending_am.push_back((attempt, am));
        self.refresh_asking(attempt);
        self.activated.push(Activated {
            attempt,
            user: user.to_string(),
            queue_path: path,
            bypassed,
        });
    }

    /// `removeApplicationAttempt`: an active attempt gives its AM share back (a pending one
    /// leaves the pending list) and `activateApplications` runs again.
    fn finish_attempt(&mut self, attempt: ApplicationAttemptId) {
        let Some(a) = self.attempts.get_mut(&attempt) else {
            return;
        };
        let (q, user) = (a.queue, a.user.clone());
        let was_active = std::mem::take(&mut a.active);
        if was_active {
            let (p, am) = (a.am_partition, a.am_resource);
            self.queues[q].active_apps -= 1;
            self.release_am(q, p, &user, am);
        } else if self.queues[q].pending.iter().any(|(p, _)| *p == attempt) {
            self.queues[q].pending.retain(|(p, _)| *p != attempt);
        } else {
            // Already removed once.
            return;
        }
        if let Some(u) = self.queues[q].users.get_mut(&user) {
            if was_active {
                u.active_apps = u.active_apps.saturating_sub(1);
            } else {
                u.pending_apps = u.pending_apps.saturating_sub(1);
            }
        }
        self.refresh_asking(attempt);
        self.activate(q);
    }

    /// `RegularContainerAllocator.checkHeadroom` in the default partition: one more container
    /// of `r` keeps the queue within its current limit (the headroom `canAssignToThisQueue`
    /// sets: limit - used).
    fn headroom_allows(&self, attempt: &SchedulerAttempt, r: Resource) -> bool {
        let q = attempt.queue;
        self.queues[q].used_mb + r.memory_mb <= self.current_limit_mb(q)
    }

    /// `LeafQueue.canAssignToUser` in the default partition: the user is not above its user
    /// limit (`used > limit` refuses, so one container may pass it; the limit is
    /// `UsersManager.computeUserLimit`'s, see `user_limit_mb`).
    fn user_allows(&self, attempt: &SchedulerAttempt) -> bool {
        let lq = &self.queues[attempt.queue];
        let user_used = lq.users.get(&attempt.user).map_or(0, |u| u.used_mb);
        user_used <= self.user_limit_mb(attempt.queue)
    }

    /// Memory in use in a queue (its containers, the AM's included).
    #[cfg(test)]
    pub fn queue_used_mb(&self, queue: &str) -> Option<u64> {
        self.queues
            .iter()
            .find(|q| q.spec.name == queue)
            .map(|q| q.used_mb)
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
        self.refresh_asking(attempt);
    }

    /// `allocate`'s node and rack `ResourceRequest`s: each name's count is replaced by the
    /// AM's (AppSchedulingInfo.updateResourceRequests).
    pub fn update_locality_asks(&mut self, attempt: ApplicationAttemptId, asks: &[LocalityAsk]) {
        if asks.is_empty() {
            return;
        }
        let Some(a) = self.attempts.get_mut(&attempt) else {
            return;
        };
        let loc = a.locality.get_or_insert_with(Box::default);
        for ask in asks {
            let (map, name) = match &ask.resource_name {
                ResourceName::Node(n) => (&mut loc.nodes, n),
                ResourceName::Rack(r) => (&mut loc.racks, r),
            };
            if ask.num_containers == 0 {
                map.remove(name);
            } else {
                map.insert(name.clone(), ask.num_containers);
            }
        }
    }

    /// The attempt asks for nothing more (it unregistered, or its AM container ended), and an
    /// AM container not placed yet is no longer wanted.
    pub fn stop_attempt(&mut self, attempt: ApplicationAttemptId) {
        self.asking.remove(&attempt);
        self.pending_am.retain(|(a, _)| *a != attempt);
        self.finish_attempt(attempt);
    }

    /// `CapacityScheduler.doneApplicationAttempt` on the `AppAttemptRemovedSchedulerEvent` of an
    /// ended attempt (Hadoop 3.4, CapacityScheduler.java): every live container of the attempt,
    /// the AM's too, is completed at once (`completedContainer(.., COMPLETED_APPLICATION,
    /// KILL)`: `release_container`'s rule for its queue and node room), then the attempt stops
    /// (`attempt.stop`, `AbstractLeafQueue.finishApplicationAttempt`). Running containers are
    /// kept only with `keepContainersAcrossApplicationAttempts`, which Spark's Client never
    /// sets. Returns the containers so completed, in container order.
    pub fn done_application_attempt(&mut self, attempt: ApplicationAttemptId) -> Vec<Killed> {
        let live = self.live_containers(attempt);
        let killed = live
            .into_iter()
            .filter_map(|(id, _)| {
                let (node, running) = self.release_container(id)?;
                Some(Killed { id, node, running })
            })
            .collect();
        self.stop_attempt(attempt);
        killed
    }

    /// Places `attempt`'s executor containers on the nodes of a replayed recording's hosts
    /// (`labels`, one per executor in allocation order; see `recorded_placement`).
    pub fn place_as_recorded(&mut self, attempt: ApplicationAttemptId, labels: &[Option<u32>]) {
        if let Some(a) = self.attempts.get_mut(&attempt) {
            a.placement = Some(Box::new(RecordedPlacement::new(labels)));
        }
    }

    /// A recorded placement's next container goes where `p` says.
    fn placed_as_recorded(&mut self, attempt: ApplicationAttemptId, p: Placed) {
        let Some(mut placement) = self
            .attempts
            .get_mut(&attempt)
            .and_then(|a| a.placement.take())
        else {
            return;
        };
        let a = &self.attempts[&attempt];
        placement.placed(p, &self.view(a, a.capability));
        if let Some(a) = self.attempts.get_mut(&attempt) {
            a.placement = Some(placement);
        }
    }

    /// What a recorded placement needs to know of the cluster for attempt `a`'s container of
    /// `r`: the AM's node, and which nodes could take it ever and now.
    fn view<'a>(&'a self, a: &'a SchedulerAttempt, r: Resource) -> NodeView<'a> {
        let am_node = a
            .live
            .first_key_value()
            .filter(|(id, _)| id.id == 1)
            .map(|(_, &(idx, _))| idx);
        let nodes = &self.nodes;
        NodeView {
            am_node,
            nodes: nodes.len(),
            live_nodes: self.live_nodes,
            usable: Box::new(move |i| {
                let n = &nodes[i];
                !n.lost
                    && !n.decommissioning
                    && n.partition == a.partition
                    && !a.blacklist.contains(&n.node_id.host)
                    && n.holds(r)
            }),
            fits: Box::new(move |i| nodes[i].fits(r)),
        }
    }

    /// The attempt has no more outstanding asks (`unregisterApplicationMaster`).
    pub fn stop_asking(&mut self, attempt: ApplicationAttemptId) {
        self.asking.remove(&attempt);
        self.refresh_asking(attempt);
    }

    /// The outstanding asks of an attempt.
    #[cfg(test)]
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

    /// `nodeUpdate` -> `allocateContainersToNode(nodeId, true)` for a heartbeat of node `idx`:
    /// one container at a time, each time to the queue first in `queue_order` that has an
    /// application with a request that fits, while `canAllocateMore` allows another. Only
    /// OFF_SWITCH containers count toward the off-switch limit (1 by default), so a `*` ask
    /// gets one container a heartbeat and node-local asks as many as fit.
    pub fn node_update(&mut self, idx: usize) -> Vec<Assignment> {
        let mut out = Vec::new();
        // Nothing waits for an AM container and nothing asks: no queue has a candidate, so
        // ordering the queues (a sort on every node heartbeat) would find none. Most heartbeats
        // of a large cluster's quiet hours end here.
        if self.nodes[idx].decommissioning || (self.pending_am.is_empty() && self.asking.is_empty())
        {
            return out;
        }
        let (mut offswitch, mut assigned) = (0u32, 0u32);
        while out.is_empty() || self.can_allocate_more(offswitch, assigned) {
            let Some(c) = self.next_assignment(idx) else {
                break;
            };
            if c.kind == NodeType::OffSwitch {
                offswitch += 1;
            }
            assigned += 1;
            let at = c.placed.map_or(idx, |p| p.node);
            if let Some(p) = c.placed {
                self.placed_as_recorded(c.attempt, p);
            }
            out.push(self.allocate(c.attempt, at, c.resource, c.am));
            if c.am {
                self.pending_am.retain(|(a, _)| *a != c.attempt);
                self.refresh_asking(c.attempt);
                continue;
            }
            if self.asks_satisfied(&c, at) {
                self.refresh_asking(c.attempt);
            }
        }
        out
    }

    /// `AppPlacementAllocator.allocate`: the `*` ask less one, and for a node-local container
    /// its node's and rack's, for a rack-local one its rack's; the missed opportunities reset
    /// after a node-local container (and a rack-local one with `rack-locality-full-reset`),
    /// never after an off-switch one. `true` when the attempt asks for nothing more.
    fn asks_satisfied(&mut self, c: &Candidate, idx: usize) -> bool {
        let full_reset = self.locality_delays.rack_locality_full_reset;
        let node = &self.nodes[idx];
        let a = self
            .attempts
            .get_mut(&c.attempt)
            .expect("next_assignment found it");
        a.outstanding -= 1;
        let drained = a.outstanding == 0;
        if drained {
            self.asking.remove(&c.attempt);
        }
        let Some(loc) = a.locality.as_mut() else {
            return drained;
        };
        match c.kind {
            NodeType::NodeLocal => {
                LocalityAsks::decrement(&mut loc.nodes, &node.node_id.host);
                LocalityAsks::decrement(&mut loc.racks, &node.rack);
                loc.missed.set(0);
            }
            NodeType::RackLocal => {
                LocalityAsks::decrement(&mut loc.racks, &node.rack);
                if full_reset {
                    loc.missed.set(0);
                }
            }
            NodeType::OffSwitch => {}
        }
        drained
    }

    /// `ParentQueue.assignContainers` for one container on node `idx`: the leaf queues in
    /// `queue_order`; in a queue (`LeafQueue.assignContainers`) its applications in FIFO order
    /// (`FifoOrderingPolicy`: the older application first, its AM request like any other), the
    /// first whose request fits the node and the queue's and user's limits and may be placed
    /// at this node's locality; an application whose request does not is skipped for the next.
    fn next_assignment(&self, idx: usize) -> Option<Candidate> {
        let node = &self.nodes[idx];
        if self.queues.len() == 1 {
            return self.leaf_next(0, node);
        }
        self.queue_order_in(node.partition)
            .into_iter()
            .find_map(|q| self.leaf_next(q, node))
    }

    /// `LeafQueue.assignContainers` for one container: queue `q`'s applications in FIFO order
    /// (see `app_outcome`); the first that takes the node wins, and an application refused by
    /// the queue's headroom ends the queue's turn. Without AM containers waiting in `q` (and
    /// without priorities) the asking attempts are already in that order (no allocation on the
    /// hot path); otherwise both lists are merged by `fifo_key`.
    fn leaf_next(&self, q: usize, node: &SchedulerNode) -> Option<Candidate> {
        // With one queue every attempt is in it: no lookup per candidate.
        let single = self.queues.len() == 1;
        let in_q =
            |a: &ApplicationAttemptId| single || self.attempts.get(a).is_some_and(|x| x.queue == q);
        let first = |apps: &mut dyn Iterator<Item = (ApplicationAttemptId, Option<Resource>)>| {
            for (a, am) in apps {
                match self.app_outcome(a, am, node) {
                    AppOutcome::Take(c) => return Some(c),
                    AppOutcome::Next => {}
                    AppOutcome::QueueSkipped => return None,
                }
            }
            None
        };
        if self.priorities.is_empty() && !self.pending_am.iter().any(|(a, _)| in_q(a)) {
            let mut apps = self.asking.iter().filter(|a| in_q(a)).map(|a| (*a, None));
            return first(&mut apps);
        }
        let mut apps: Vec<(ApplicationAttemptId, Option<Resource>)> = self
            .pending_am
            .iter()
            .filter(|(a, _)| in_q(a))
            .map(|(a, r)| (*a, Some(*r)))
            .collect();
        apps.extend(self.asking.iter().filter(|a| in_q(a)).map(|a| (*a, None)));
        apps.sort_by_key(|(a, _)| self.fifo_key(*a));
        first(&mut apps.into_iter())
    }

    /// One application's turn on `node` (its AM container when `am` is its size), in the order
    /// Hadoop 3.4 checks: the user limit (`canAssignToUser`) and the request's partition skip
    /// to the next application; the queue's headroom (`checkHeadroom`, QUEUE_SKIPPED) ends the
    /// queue's turn; a blacklisted (or, for an AM, LOST) node, a locality delay, or a node
    /// without room for the request (Hadoop reserves it; reservations are not simulated) skip
    /// to the next application.
    fn app_outcome(
        &self,
        attempt: ApplicationAttemptId,
        am: Option<Resource>,
        node: &SchedulerNode,
    ) -> AppOutcome {
        let a = &self.attempts[&attempt];
        let r = am.unwrap_or(a.capability);
        if (am.is_none() && a.outstanding == 0)
            || !self.user_allows_in(a, node.partition)
            || !self.partition_accepts(a, am.is_some(), node)
        {
            return AppOutcome::Next;
        }
        if !self.headroom_allows_in(a, r, node.partition) {
            return AppOutcome::QueueSkipped;
        }
        // A recorded placement stands in for the node choice, locality asks included: where the
        // recording's asks led is in the hosts it records.
        if am.is_none()
            && let Some(p) = &a.placement
        {
            let idx = self.node_by_host[&node.node_id.host];
            return match p.node_for(idx, a.outstanding, &self.view(a, r)) {
                Some(placed) => AppOutcome::Take(Candidate {
                    attempt,
                    resource: r,
                    am: false,
                    kind: NodeType::OffSwitch,
                    placed: Some(placed),
                }),
                None => AppOutcome::Next,
            };
        }
        let placeable = match am {
            Some(_) => !node.lost,
            None => !a.blacklist.contains(&node.node_id.host),
        };
        if !placeable || !node.fits(r) {
            return AppOutcome::Next;
        }
        let kind = match (am, &a.locality) {
            (None, Some(loc)) => match self.locality_on(a, loc, node) {
                Some(kind) => kind,
                None => return AppOutcome::Next,
            },
            _ => NodeType::OffSwitch,
        };
        AppOutcome::Take(Candidate {
            attempt,
            resource: r,
            am: am.is_some(),
            kind,
            placed: None,
        })
    }

    /// `RegularContainerAllocator.assignContainersOnNode` with `canAssign`: the node offered is
    /// one more scheduling opportunity; a node-local ask for it takes it at once; a rack-local
    /// ask after more missed opportunities than the node-locality delay (at most the cluster's
    /// nodes); the `*` ask after the rack delay (`rack-locality-additional-delay` more), or with
    /// Hadoop's default -1 once the opportunities pass the asks' share of the cluster. `None`:
    /// the attempt waits (LOCALITY_SKIPPED).
    fn locality_on(
        &self,
        a: &SchedulerAttempt,
        loc: &LocalityAsks,
        node: &SchedulerNode,
    ) -> Option<NodeType> {
        let missed = loc.missed.get() + 1;
        loc.missed.set(missed);
        let cluster = u64::from(self.live_nodes);
        let on_rack = LocalityAsks::count(&loc.racks, &node.rack) > 0;
        if on_rack && LocalityAsks::count(&loc.nodes, &node.node_id.host) > 0 {
            return Some(NodeType::NodeLocal);
        }
        let node_delay = cluster.min(self.locality_delays.node_locality_delay);
        if on_rack && missed > node_delay {
            return Some(NodeType::RackLocal);
        }
        let uniq = loc.unique_location_asks();
        let off_switch = if uniq == 1 {
            true
        } else if let Some(extra) = self.locality_delays.rack_locality_additional_delay {
            missed > cluster.min(self.locality_delays.node_locality_delay + extra)
        } else {
            // getLocalityWaitFactor: min((uniq - 1) / nodes, 1).
            let factor = ((uniq - 1) as f64 / cluster.max(1) as f64).min(1.0);
            (cluster as f64).min(f64::from(a.outstanding) * factor) < missed as f64
        };
        off_switch.then_some(NodeType::OffSwitch)
    }

    /// `PriorityUtilizationQueueOrderingPolicy` (Hadoop 3.4, queue priorities not respected,
    /// the default `utilization` policy): queues with a guaranteed capacity before those
    /// without; then the lower used capacity (used / guaranteed; for two zero-capacity queues
    /// used / cluster) first; on a tie the larger capacity first; then the configured order
    /// (a stable sort).
    fn queue_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.queues.len()).collect();
        let key = |q: usize| {
            let lq = &self.queues[q];
            let zero = lq.spec.capacity <= 0.0;
            let base = if zero {
                self.cluster_mb
            } else {
                self.capacity_mb(q)
            };
            let used = if base == 0 {
                0.0
            } else {
                lq.used_mb as f32 / base as f32
            };
            (zero, used, lq.spec.capacity)
        };
        order.sort_by(|&x, &y| {
            let (zx, ux, cx) = key(x);
            let (zy, uy, cy) = key(y);
            zx.cmp(&zy).then(ux.total_cmp(&uy)).then(cy.total_cmp(&cx))
        });
        order
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
        n.used.gpus += resource.gpus;
        let partition = n.partition;
        let a = self.attempts.get_mut(&attempt).expect("the caller checked");
        if partition == 0 {
            let lq = &mut self.queues[a.queue];
            lq.used_mb += resource.memory_mb;
            lq.users.entry(a.user.clone()).or_default().used_mb += resource.memory_mb;
        } else {
            self.labels
                .charge(a.queue, partition, &a.user, resource.memory_mb);
        }
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
            node: idx,
        }
    }

    /// `completedContainer`: a live container ended; its resources go back to node
    /// `reported_by` (the node whose heartbeat or loss reports it). `false` if it was not live.
    pub fn complete_container(&mut self, reported_by: usize, cid: ContainerId) -> bool {
        let Some((at, r)) = self.take_live(cid) else {
            return false;
        };
        self.nodes[at].launched.remove(&cid);
        self.free_on_node(reported_by, r);
        true
    }

    /// `completedContainer` of a live container without its NM's report: the AM released it
    /// (`releaseContainers`, RELEASED) or its attempt ended (`doneApplicationAttempt`, KILL).
    /// Its queue and user get the resources at once (`AbstractLeafQueue.completedContainer` ->
    /// `releaseResource`, whatever the event); its node too if the NM never reported it RUNNING,
    /// else the node keeps the room until the NM reports it complete
    /// (`SchedulerNode.releaseContainer(id, false)`). Returns its node and whether it was
    /// running there; `None` if it was not live.
    pub fn release_container(&mut self, cid: ContainerId) -> Option<(usize, bool)> {
        let (at, r) = self.take_live(cid)?;
        let running = self.nodes[at].launched.remove(&cid);
        if running {
            self.nodes[at].held.insert(cid, r);
        } else {
            self.free_on_node(at, r);
        }
        Some((at, running))
    }

    /// `updateCompletedContainers` for a container completed at the RM before (released, or
    /// killed with its attempt: `release_container`): no live
    /// container is left to complete, only the node's held room goes back
    /// (`SchedulerNode.releaseContainer(id, true)`). `false` if node `idx` held none for it.
    pub fn finish_held(&mut self, idx: usize, cid: ContainerId) -> bool {
        let Some(r) = self.nodes[idx].held.remove(&cid) else {
            return false;
        };
        self.free_on_node(idx, r);
        true
    }

    /// `containerLaunchedOnNode` -> `SchedulerNode.containerStarted`: the NM reported a live
    /// container of node `idx` RUNNING (a released or unknown one changes nothing).
    pub fn container_launched(&mut self, idx: usize, cid: ContainerId) {
        let here = self
            .attempts
            .get(&cid.attempt)
            .and_then(|a| a.live.get(&cid))
            .is_some_and(|(n, _)| *n == idx);
        if here {
            self.nodes[idx].launched.insert(cid);
        }
    }

    /// The live container leaves its attempt and its node's list; its queue and user (or
    /// label partition) get its resources back. Returns its node and size.
    fn take_live(&mut self, cid: ContainerId) -> Option<(usize, Resource)> {
        let a = self.attempts.get_mut(&cid.attempt)?;
        let (at, r) = a.live.remove(&cid)?;
        let partition = self.nodes[at].partition;
        if partition == 0 {
            let lq = &mut self.queues[a.queue];
            lq.used_mb = lq.used_mb.saturating_sub(r.memory_mb);
            if let Some(u) = lq.users.get_mut(&a.user) {
                u.used_mb = u.used_mb.saturating_sub(r.memory_mb);
            }
        } else {
            self.labels
                .release(a.queue, partition, &a.user, r.memory_mb);
        }
        let on_node = &mut self.nodes[at].containers;
        if let Ok(i) = on_node.binary_search(&cid) {
            on_node.remove(i);
        }
        Some((at, r))
    }

    fn free_on_node(&mut self, idx: usize, r: Resource) {
        let n = &mut self.nodes[idx];
        n.used.memory_mb = n.used.memory_mb.saturating_sub(r.memory_mb);
        n.used.vcores = n.used.vcores.saturating_sub(r.vcores);
        n.used.gpus = n.used.gpus.saturating_sub(r.gpus);
    }

    /// Node `idx`'s used memory, vcores and GPUs, and its live and held containers' sum: equal
    /// unless some room was freed twice or never (`invariants::node_accounted`).
    pub fn node_accounting(&self, idx: usize) -> (Resource, Resource) {
        let n = &self.nodes[idx];
        let live = n.containers.iter().filter_map(|c| {
            let a = self.attempts.get(&c.attempt)?;
            a.live.get(c).map(|(_, r)| *r)
        });
        let sum = live
            .chain(n.held.values().copied())
            .fold(Resource::default(), |s, r| Resource {
                memory_mb: s.memory_mb + r.memory_mb,
                vcores: s.vcores + r.vcores,
                gpus: s.gpus + r.gpus,
            });
        (n.used, sum)
    }

    /// Whether every node that is not lost is accounted (`node_accounting`).
    #[cfg(test)]
    pub fn accounting_balanced(&self) -> bool {
        (0..self.nodes.len()).all(|i| {
            let (used, sum) = self.node_accounting(i);
            self.nodes[i].lost || used == sum
        })
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
            let (p, mb) = (n.partition, n.total.memory_mb);
            self.remove_partition_mb(p, mb);
        }
        // The released containers it held will never be reported: their room goes with it.
        for (_, r) in std::mem::take(&mut self.nodes[idx].held) {
            self.free_on_node(idx, r);
        }
        std::mem::take(&mut self.nodes[idx].containers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;

    use super::test_support::{GB, res};

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

    /// A scheduler that assigns every container that fits on one heartbeat (no off-switch or
    /// per-heartbeat limit), for the tests of the other rules.
    fn greedy(mut cs: CapacityScheduler) -> CapacityScheduler {
        cs.set_heartbeat_assignments(HeartbeatAssignments {
            multiple_assignments_enabled: true,
            maximum_container_assignments: -1,
            maximum_offswitch_assignments: u32::MAX,
        });
        cs
    }

    fn node(host: &str) -> NodeId {
        NodeId {
            host: host.into(),
            port: 8041,
        }
    }

    fn cs_with_nodes(nodes: &[(&str, Resource)]) -> CapacityScheduler {
        let mut cs = greedy(CapacityScheduler::new(limits()));
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
        let cs = greedy(CapacityScheduler::new(limits()));
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

    /// CapacityScheduler.allocateContainersToNode(nodeId, true) with canAllocateMore (Hadoop
    /// 3.4): every request here is ANY, so each container is OFF_SWITCH and Hadoop's defaults
    /// (offswitchPerHeartbeatLimit 1) give one container per heartbeat; a higher off-switch limit,
    /// the container limit (maxAssignPerHeartbeat) and multiple-assignments-enabled bound it.
    #[test]
    fn a_heartbeat_assigns_up_to_the_off_switch_and_container_limits() {
        let cases = [
            (HeartbeatAssignments::default(), 1),
            (per_heartbeat(true, 100, 3), 3),
            (per_heartbeat(true, 2, 10), 2),
            (per_heartbeat(true, -1, 10), 5),
            (per_heartbeat(false, -1, 10), 1),
        ];
        for (limits_per_heartbeat, want) in cases {
            let mut cs =
                cs_with_nodes(&[("host_0", res(10 * GB, 10)), ("host_1", res(10 * GB, 10))]);
            cs.set_heartbeat_assignments(limits_per_heartbeat);
            let a = attempt(1, 1);
            running(&mut cs, a, 1, 5, res(2 * GB, 1));
            assert_eq!(cs.node_update(0).len(), want, "{limits_per_heartbeat:?}");
            assert_eq!(cs.outstanding(a), 5 - want as u32);
        }
        // With the defaults the AM container also ends its heartbeat: the asks wait for the next.
        let mut cs = cs_with_nodes(&[("host_0", res(10 * GB, 10))]);
        cs.set_heartbeat_assignments(HeartbeatAssignments::default());
        let a = attempt(1, 1);
        cs.add_attempt(a, res(1024, 1));
        assert_eq!(ids(&cs.node_update(0)), [(1, true)]);
        cs.update_requests(a, res(GB, 1), 2, 0, &[], &[]);
        assert_eq!(ids(&cs.node_update(0)), [(2, false)]);
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
    }

    fn per_heartbeat(multiple: bool, max: i64, offswitch: u32) -> HeartbeatAssignments {
        HeartbeatAssignments {
            multiple_assignments_enabled: multiple,
            maximum_container_assignments: max,
            maximum_offswitch_assignments: offswitch,
        }
    }

    /// SchedulerUtils.normalizeAndValidateRequest (Hadoop 3.4; TestSchedulerUtils#
    /// testValidateResourceRequestWithErrorLabelsPermission's texts): a label with node labels
    /// off is refused before anything else; with them on, `&&` and a label the cluster does not
    /// contain are refused after the maximum allocation; the empty label is NO_LABEL.
    #[test]
    fn label_expressions_are_validated_as_yarn_does() {
        let cs = cs_with_nodes(&[("host_0", res(8 * GB, 8))]);
        let ok = res(GB, 1);
        let big = res(9 * GB, 1);
        assert_eq!(
            cs.normalize_and_validate(ok, None, false, "default"),
            Ok(())
        );
        assert_eq!(
            cs.normalize_and_validate(ok, Some(""), false, "default"),
            Ok(())
        );
        let off = cs
            .normalize_and_validate(big, Some("gpu"), false, "default")
            .unwrap_err();
        assert!(off.labels_disabled);
        assert_eq!(
            off.message,
            "Invalid resource request, node label not enabled but request contains label expression"
        );
        assert!(off.class.ends_with("InvalidLabelResourceRequestException"));
        let max = cs
            .normalize_and_validate(big, Some("gpu"), true, "default")
            .unwrap_err();
        assert_eq!(max.class, INVALID_RESOURCE_REQUEST);
        let two = cs
            .normalize_and_validate(ok, Some("a&&b"), true, "root.default")
            .unwrap_err();
        assert_eq!(
            two.message,
            "Invalid resource request, queue=default specified more than one node label in a node label expression, node label expression = a&&b"
        );
        let unknown = cs
            .normalize_and_validate(ok, Some("gpu"), true, "default")
            .unwrap_err();
        assert_eq!(
            unknown.message,
            "Invalid label resource request, cluster do not contain , label= gpu"
        );
        assert!(!unknown.labels_disabled);
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

    /// Applications in submission order, an AM container only where it fits; an attempt's
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
        // (a's attempt ends first: on the 8 GB left, 10 % keeps a second AM pending.)
        cs.stop_attempt(a);
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

    /// One node of `mb` MB with a 1 GB AM and a 1 GB executor container (two asked).
    fn an_executor_on(mb: u64) -> (CapacityScheduler, ApplicationAttemptId, ContainerId) {
        let mut cs = cs_with_nodes(&[("n0", res(mb, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 2, res(1024, 1));
        let cid = cs.node_update(0)[0].container.id;
        (cs, a, cid)
    }

    /// `releaseContainers` of a container the NM never reported RUNNING (an ACQUIRED one):
    /// `completedContainer` frees its queue and node room at once, so the next heartbeat
    /// places another there; the NM's later report (if any) has nothing left to free.
    #[test]
    fn a_released_container_that_never_ran_frees_its_node_at_once() {
        let (mut cs, _, cid) = an_executor_on(2 * GB);
        assert_eq!(cs.queue_used_mb("default"), Some(2048));
        assert_eq!(cs.release_container(cid), Some((0, false)));
        assert_eq!(cs.queue_used_mb("default"), Some(1024));
        assert_eq!(cs.node(0).used.memory_mb, 1024);
        assert!(cs.accounting_balanced());
        assert_eq!(cs.release_container(cid), None);
        assert!(!cs.finish_held(0, cid));
        assert!(!cs.complete_container(0, cid));
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
        assert!(cs.accounting_balanced());
    }

    /// A released container the NM reported RUNNING: its queue and user get the room back at
    /// once (`AbstractLeafQueue.completedContainer` -> `releaseResource`), its node only when the
    /// NM reports it complete (`SchedulerNode.releaseContainer(id, false)` waits for the node;
    /// `AbstractYarnScheduler.updateCompletedContainers` calls it with `true`), and only once.
    #[test]
    fn a_released_running_container_holds_its_node_until_the_nm_reports_it() {
        let (mut cs, a, cid) = an_executor_on(2 * GB);
        cs.container_launched(0, cid);
        assert_eq!(cs.release_container(cid), Some((0, true)));
        assert_eq!(cs.queue_used_mb("default"), Some(1024));
        assert_eq!(cs.live_container(a, cid), None);
        assert!(cs.node_update(0).is_empty(), "the node still holds it");
        assert!(cs.accounting_balanced());
        assert!(cs.finish_held(0, cid));
        assert!(!cs.finish_held(0, cid));
        assert!(!cs.complete_container(0, cid));
        assert_eq!(cs.node(0).used.memory_mb, 1024);
        assert_eq!(cs.queue_used_mb("default"), Some(1024));
        assert!(cs.accounting_balanced());
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
    }

    /// A lost node never reports the released containers it held: their room goes with it,
    /// and a RUNNING report of a container that is not live marks nothing.
    #[test]
    fn a_lost_node_drops_what_it_held_and_unknown_launches_mark_nothing() {
        let (mut cs, _, cid) = an_executor_on(4 * GB);
        cs.container_launched(0, cid);
        cs.release_container(cid);
        cs.container_launched(0, cid);
        assert!(cs.node(0).launched.is_empty());
        let live = cs.lose_node(0);
        assert!(cs.node(0).held.is_empty());
        for c in live {
            assert!(cs.complete_container(0, c));
        }
        assert_eq!(cs.node(0).used.memory_mb, 0);
    }

    /// TestContainerResizing testIncreaseContainerUnreservedWhenApplicationCompleted (Hadoop
    /// 3.4): after the attempt's `AppAttemptRemovedSchedulerEvent(KILLED, false)` the queue's
    /// and the user's usage is 0 at once (`CapacityScheduler.doneApplicationAttempt` completes
    /// every live container, the AM's too, with KILL). The node keeps the room of the ones its
    /// NM reported RUNNING until it reports their end (`SchedulerNode.releaseContainer(id,
    /// false)`, then `true` from `AbstractYarnScheduler.updateCompletedContainers`), frees the
    /// others' at once, and nothing is freed twice.
    #[test]
    fn an_ended_attempts_containers_complete_at_once_and_the_node_waits_for_running_ones() {
        let mut cs = cs_with_nodes(&[("n0", res(8 * GB, 8))]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 2, res(GB, 1));
        let out = cs.node_update(0);
        let (am, e1, e2) = (
            ContainerId::new(a, 1),
            out[0].container.id,
            out[1].container.id,
        );
        cs.container_launched(0, am);
        cs.container_launched(0, e2);
        assert_eq!(cs.queue_used_mb("default"), Some(3 * GB));
        let killed = cs.done_application_attempt(a);
        let got: Vec<_> = killed.iter().map(|k| (k.id, k.node, k.running)).collect();
        assert_eq!(got, [(am, 0, true), (e1, 0, false), (e2, 0, true)]);
        assert_eq!(cs.queue_used_mb("default"), Some(0));
        assert_eq!(cs.queues[0].users["spark"].used_mb, 0);
        assert!(cs.live_containers(a).is_empty());
        assert_eq!(
            cs.node(0).used.memory_mb,
            2 * GB,
            "the AM's and e2's room held"
        );
        assert!(cs.accounting_balanced());
        assert!(cs.done_application_attempt(a).is_empty());
        assert!(!cs.finish_held(0, e1), "freed at once, nothing held");
        assert!(cs.finish_held(0, am) && cs.finish_held(0, e2));
        assert!(!cs.finish_held(0, e2));
        assert_eq!(cs.node(0).used.memory_mb, 0);
        assert!(cs.accounting_balanced());
    }

    /// The queue's room comes back with the attempt's end, not with the NMs' reports: the next
    /// attempt's AM fits in a queue the ended attempt had filled to its maximum capacity at the
    /// next node heartbeat, while the nodes still hold the running containers' room. With only
    /// the attempt's stop (sparkyard before, the NMs' reports completing the containers) the
    /// queue stays full and the AM waits.
    #[test]
    fn the_next_attempts_am_fits_in_the_queue_room_the_ended_attempt_left() {
        // etl: maximum 50 % of 32 GB = 16 GB, filled by a 1 GB AM and 5 x 3 GB.
        let mut cs = two_queues(50.0, 0.5, 2.0);
        let a = attempt(1, 1);
        cs.add_attempt_in(a, res(GB, 1), "etl", "spark");
        assert!(cs.node_update(0)[0].am);
        cs.update_requests(a, res(3 * GB, 1), 5, 0, &[], &[]);
        for n in 0..4 {
            cs.node_update(n);
        }
        assert_eq!(cs.queue_used_mb("etl"), Some(16 * GB));
        for (cid, n) in cs.live_containers(a) {
            cs.container_launched(n, cid);
        }
        let mut before = cs.clone();
        before.stop_attempt(a);
        let killed = cs.done_application_attempt(a);
        assert_eq!(killed.len(), 6);
        assert!(killed.iter().all(|k| k.running));
        assert_eq!(cs.queue_used_mb("etl"), Some(0));
        let b = attempt(1, 2);
        for s in [&mut cs, &mut before] {
            s.add_attempt_in(b, res(GB, 1), "etl", "spark");
        }
        assert!(
            (0..4).all(|n| before.node_update(n).is_empty()),
            "the queue is full"
        );
        let placed: Vec<_> = (0..4).flat_map(|n| cs.node_update(n)).collect();
        assert_eq!(placed.len(), 1);
        assert!(placed[0].am && placed[0].attempt == b);
        assert!(cs.accounting_balanced());
        let used: u64 = (0..4).map(|n| cs.node(n).used.memory_mb).sum();
        assert_eq!(
            used,
            17 * GB,
            "16 GB still held for the NMs' reports, 1 GB of b's AM"
        );
    }

    // TestSchedulerUtils (testValidateResourceRequest): above the maximum allowed allocation is
    // InvalidResourceRequestException's GREATER_THEN_MAX_ALLOCATION text.
    #[test]
    fn requests_above_the_maximum_allocation_are_invalid() {
        let mut s = greedy(CapacityScheduler::new(limits()));
        s.add_node(node("nm-1"), "/r".into(), res(64 * GB, 16));
        assert_eq!(s.validate_request(res(1408, 4)), Ok(()));
        let err = s.validate_request(res(1408, 8)).unwrap_err();
        assert_eq!(
            err,
            "Invalid resource request! Cannot allocate containers as requested resource is greater than maximum allowed allocation. Requested resource type=[vcores], Requested resource=<memory:1408, vCores:8>, maximum allowed allocation=<memory:8192, vCores:4>, please note that maximum allowed allocation is calculated by scheduler based on maximum resource of registered NodeManagers, which might be less than configured maximum allocation=<memory:8192, vCores:4>"
        );
        let small = {
            let mut s = greedy(CapacityScheduler::new(limits()));
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
    fn queue(name: &str, capacity: f64, max: f64, am_pct: f64, ulf: f64) -> QueueSpec {
        QueueSpec {
            name: name.into(),
            capacity,
            maximum_capacity: max,
            maximum_am_resource_percent: am_pct,
            user_limit_factor: ulf,
            ..QueueSpec::with_capacity(name, capacity)
        }
    }

    /// Four 8 GB nodes (32 GB) with queues `default` (75 %) and `etl` (25 %, max `max`).
    fn two_queues(max: f64, am_pct: f64, ulf: f64) -> CapacityScheduler {
        let q = [
            queue("default", 75.0, 100.0, 0.1, 1.0),
            queue("etl", 25.0, max, am_pct, ulf),
        ];
        let mut cs = greedy(CapacityScheduler::with_queues(limits(), &q));
        for i in 0..4 {
            cs.add_node(node(&format!("n{i}")), "/r".into(), res(8 * GB, 8));
        }
        cs
    }

    // AbstractLeafQueue.activateApplications (Hadoop 3.4): the first application of a queue is
    // activated even above the AM limit ("maximum-am-resource-percent is insufficient to start a
    // single application"); the next waits with QUEUE_AM_RESOURCE_LIMIT_EXCEED and
    // FiCaSchedulerApp.getPendingAppDiagnosticMessage's details, until the first one's attempt
    // is removed. Limit: multiplyAndNormalizeUp(max(8 GB capacity, 32 GB current limit), 0.1,
    // 1024) = 4096 MB; the user's: getEffectiveCapacity (8 GB) x 0.1 -> 1024 MB.
    #[test]
    fn the_am_resource_limit_keeps_a_second_application_pending() {
        let mut cs = two_queues(100.0, 0.1, 1.0);
        let (a, b) = (attempt(1, 1), attempt(2, 1));
        assert_eq!(
            cs.add_attempt_in(a, res(3 * GB, 1), "etl", "etl-user"),
            None
        );
        let why = cs
            .add_attempt_in(b, res(2 * GB, 1), "root.etl", "spark")
            .expect("pending");
        assert_eq!(why.reason, AmLimitExceeded::Queue);
        assert_eq!(why.queue_am_limit, res(4096, 1));
        assert_eq!(
            why.diagnostics("Thu Dec 03 00:00:00 +0000 2026"),
            "[Thu Dec 03 00:00:00 +0000 2026] Application is added to the scheduler and is not yet activated. Queue's AM resource limit exceeded.  Details : AM Partition = <DEFAULT_PARTITION>; AM Resource Request = <memory:2048, vCores:1>; Queue Resource Limit for AM = <memory:4096, vCores:1>; User AM Resource Limit of the queue = <memory:1024, vCores:1>; Queue AM Resource Usage = <memory:3072, vCores:1>; "
        );
        let activated: Vec<_> = cs.take_activated().iter().map(|x| x.attempt).collect();
        assert_eq!(activated, [a]);
        // b's AM is not offered any node while it is pending.
        let out = cs.node_update(0);
        assert_eq!(out.iter().map(|x| x.attempt).collect::<Vec<_>>(), [a]);
        cs.stop_attempt(a);
        let got = cs.take_activated();
        assert_eq!(
            (
                got[0].attempt,
                got[0].user.as_str(),
                got[0].queue_path.as_str()
            ),
            (b, "spark", "root.etl")
        );
        assert_eq!(cs.node_update(1)[0].attempt, b);
    }

    // AbstractLeafQueue.activateApplications (Hadoop 3.4): an AM larger than both the queue's AM
    // limit (10 % of 8 GB, normalized up to 1 GB) and the user's starts anyway when the queue
    // has no active application, and Hadoop warns for each limit ("maximum-am-resource-percent
    // is insufficient to start a single application in queue[ for user]..."), in that order;
    // a second such AM waits on the queue's limit with no warning.
    #[test]
    fn an_am_above_the_limits_starts_alone_with_hadoops_warnings() {
        let mut cs = CapacityScheduler::new(limits());
        cs.add_node(node("n0"), "/r".into(), res(8 * GB, 8));
        cs.add_attempt(attempt(1, 1), res(2 * GB, 1));
        let got = cs.take_activated();
        assert_eq!(
            got[0].bypassed,
            [AmLimitExceeded::Queue, AmLimitExceeded::User]
        );
        let texts: Vec<_> = got[0]
            .bypassed
            .iter()
            .map(|x| x.insufficient_warning())
            .collect();
        assert_eq!(
            texts,
            [
                "maximum-am-resource-percent is insufficient to start a single application in queue, it is likely set too low. skipping enforcement to allow at least one application to start",
                "maximum-am-resource-percent is insufficient to start a single application in queue for user, it is likely set too low. skipping enforcement to allow at least one application to start",
            ]
        );
        let why = cs.add_attempt_in(attempt(2, 1), res(2 * GB, 1), "default", "spark");
        assert_eq!(why.map(|w| w.reason), Some(AmLimitExceeded::Queue));
        assert!(cs.take_activated().is_empty());
        // Within the limits nothing is bypassed.
        let mut cs = CapacityScheduler::new(limits());
        cs.add_node(node("n0"), "/r".into(), res(64 * GB, 8));
        cs.add_attempt(attempt(1, 1), res(2 * GB, 1));
        assert!(cs.take_activated()[0].bypassed.is_empty());
    }

    // getUserAMResourceLimitPerPartition: capacity x percent x user-limit-factor, at most the
    // queue's AM limit: with factor 0.25 one user gets 8 GB x 0.1 x 0.25 -> 1024 MB.
    #[test]
    fn the_user_am_limit_follows_the_user_limit_factor() {
        let mut cs = two_queues(100.0, 0.1, 0.25);
        assert_eq!(
            cs.add_attempt_in(attempt(1, 1), res(1024, 1), "etl", "u"),
            None
        );
        let why = cs
            .add_attempt_in(attempt(2, 1), res(1024, 1), "etl", "u")
            .expect("pending");
        assert_eq!(why.reason, AmLimitExceeded::User);
        assert_eq!(why.user_am_limit, res(1024, 1));
        // Another user is within its own AM limit.
        assert_eq!(
            cs.add_attempt_in(attempt(3, 1), res(1024, 1), "etl", "v"),
            None
        );
    }

    // canAssignToThisQueue / the headroom check: a queue at its maximum capacity gets no more
    // containers (they wait), and completions free room for them.
    #[test]
    fn containers_wait_while_the_queue_is_at_its_maximum_capacity() {
        // etl: 25 % of 32 GB = 8 GB, maximum 50 % = 16 GB; user-limit-factor 2 lets one user
        // reach it.
        let mut cs = two_queues(50.0, 0.5, 2.0);
        let a = attempt(1, 1);
        cs.add_attempt_in(a, res(1024, 1), "etl", "spark");
        assert!(cs.node_update(0)[0].am);
        cs.update_requests(a, res(3 * GB, 1), 10, 0, &[], &[]);
        let mut got = 0;
        for n in 0..4 {
            got += cs.node_update(n).len();
        }
        // 1 GB AM + 5 x 3 GB = 16 GB: the sixth would pass the maximum.
        assert_eq!(got, 5);
        assert_eq!(cs.queue_used_mb("etl"), Some(16 * GB));
        assert_eq!(cs.outstanding(a), 5);
        let (cid, node) = cs.live_containers(a)[1];
        assert!(cs.complete_container(node, cid));
        assert_eq!(cs.node_update(node).len(), 1);
    }

    // FifoOrderingPolicy (LeafQueue.assignContainers): in one queue the older application's
    // asks are served before a newer application's AM container.
    #[test]
    fn an_older_applications_asks_come_before_a_newer_am_in_its_queue() {
        // maximum-am-resource-percent 1: both AMs are activated.
        let q = [queue("default", 100.0, 100.0, 1.0, 1.0)];
        let mut cs = greedy(CapacityScheduler::with_queues(limits(), &q));
        cs.add_node(node("n0"), "/r".into(), res(8 * GB, 8));
        cs.add_node(node("n1"), "/r".into(), res(2 * GB, 8));
        let (a1, a2) = (attempt(1, 1), attempt(2, 1));
        running(&mut cs, a1, 0, 3, res(1024, 1));
        cs.add_attempt(a2, res(1024, 1));
        let out = cs.node_update(1);
        assert_eq!(
            out.iter().map(|x| (x.attempt, x.am)).collect::<Vec<_>>(),
            [(a1, false), (a1, false)]
        );
        let out = cs.node_update(0);
        assert_eq!(
            out.iter().map(|x| (x.attempt, x.am)).collect::<Vec<_>>(),
            [(a1, false), (a2, true)]
        );
    }

    // PriorityUtilizationQueueOrderingPolicy.PriorityQueueComparator (Hadoop 3.4, priorities
    // not respected): each container goes to the queue with the lower used capacity (used /
    // guaranteed), the larger capacity winning a tie. default (24 GB guaranteed) and etl
    // (8 GB) each run an application asking 1 GB containers, each with a 1 GB AM: on an empty
    // 8 GB node default gets three (3/24 = 1/8 ties etl's 1/8 and default is larger), etl one,
    // default three more, etl the last one; attempt order alone would give default all eight.
    #[test]
    fn the_less_used_queue_is_served_first() {
        let mut cs = two_queues(100.0, 0.5, 1.0);
        let (a1, a2) = (attempt(1, 1), attempt(2, 1));
        cs.add_attempt_in(a1, res(1024, 1), "default", "u1");
        cs.add_attempt_in(a2, res(1024, 1), "etl", "u2");
        assert_eq!(cs.node_update(0).len(), 2);
        cs.update_requests(a1, res(1024, 1), 20, 0, &[], &[]);
        cs.update_requests(a2, res(1024, 1), 20, 0, &[], &[]);
        let out = cs.node_update(1);
        let who: Vec<u32> = out.iter().map(|x| x.attempt.application_id.id).collect();
        assert_eq!(who, [1, 1, 1, 2, 1, 1, 1, 2]);
    }

    // RegularContainerAllocator.preCheckForNodeCandidateSet (Hadoop 3.4): an application whose
    // request passes the queue's headroom gets QUEUE_SKIPPED, and AbstractLeafQueue
    // .assignContainers returns at once (SkippedType.QUEUE_LIMIT): a younger application of the
    // same queue whose smaller request would fit waits too. etl (maximum 16 GB) holds 14 GB;
    // x's older application asks 4 GB, y's 1 GB: nothing is assigned until x's ask goes.
    #[test]
    fn a_request_past_the_queue_headroom_ends_the_queues_turn() {
        let mut cs = two_queues(50.0, 0.5, 4.0);
        let (a, b) = (attempt(1, 1), attempt(2, 1));
        cs.add_attempt_in(a, res(GB, 1), "etl", "x");
        cs.add_attempt_in(b, res(GB, 1), "etl", "y");
        assert_eq!(cs.node_update(0).len(), 2);
        cs.update_requests(a, res(3 * GB, 1), 4, 0, &[], &[]);
        for n in 0..4 {
            cs.node_update(n);
        }
        assert_eq!(cs.queue_used_mb("etl"), Some(14 * GB));
        cs.update_requests(a, res(4 * GB, 1), 1, 0, &[], &[]);
        cs.update_requests(b, res(GB, 1), 1, 0, &[], &[]);
        assert!(cs.node_update(3).is_empty(), "x's 4 GB ends etl's turn");
        cs.update_requests(a, res(4 * GB, 1), 0, 1, &[], &[]);
        let got = cs.node_update(3);
        assert_eq!(got.iter().map(|x| x.attempt).collect::<Vec<_>>(), [b]);
    }

    // ParentQueue.getResourceLimitsOfChild: the child's limit is what root leaves (the cluster
    // less the other queues' usage) rounded down to the minimum allocation.
    #[test]
    fn the_current_limit_is_rounded_down_to_the_minimum_allocation() {
        let mut cs = two_queues(100.0, 0.5, 4.0);
        cs.add_node(node("odd"), "/r".into(), res(1536, 8));
        // 33.5 GB cluster; default uses nothing: etl's limit is 33 GB, not 33.5.
        assert_eq!(cs.current_limit_mb(1), 33 * GB);
    }

    // UsersManager.computeUserLimit: with user-limit-factor 1 one user stops at the queue's
    // capacity although the maximum capacity is higher (LeafQueue.canAssignToUser refuses only
    // once the user is above the limit: one container past it).
    #[test]
    fn one_user_stops_at_the_queue_capacity_with_factor_one() {
        let mut cs = two_queues(100.0, 0.5, 1.0);
        let a = attempt(1, 1);
        cs.add_attempt_in(a, res(1024, 1), "etl", "spark");
        assert!(cs.node_update(0)[0].am);
        cs.update_requests(a, res(1024, 1), 20, 0, &[], &[]);
        for n in 0..4 {
            cs.node_update(n);
        }
        assert_eq!(cs.queue_used_mb("etl"), Some(9 * GB));
    }

    // ---- locality (RegularContainerAllocator.assignContainersOnNode / canAssign) ----

    /// Four 8 GB nodes with Hadoop's default heartbeat limits: n1, n2 on /r1; n3, n4 on /r2.
    /// The AM of attempt (1, 1) runs on n1.
    fn racked() -> (CapacityScheduler, ApplicationAttemptId) {
        let mut cs = CapacityScheduler::new(limits());
        for (h, r) in [("n1", "/r1"), ("n2", "/r1"), ("n3", "/r2"), ("n4", "/r2")] {
            cs.add_node(node(h), r.into(), res(8 * GB, 8));
        }
        let a = attempt(1, 1);
        cs.add_attempt(a, res(1024, 1));
        assert!(cs.node_update(0).iter().any(|x| x.am));
        (cs, a)
    }

    fn ask(name: ResourceName, n: u32) -> LocalityAsk {
        LocalityAsk {
            resource_name: name,
            num_containers: n,
        }
    }

    /// `n` containers of 1 GB that prefer `host` on `rack` (AMRMClient's node, rack and `*`
    /// asks).
    fn ask_on(cs: &mut CapacityScheduler, a: ApplicationAttemptId, host: &str, rack: &str, n: u32) {
        cs.update_requests(a, res(1024, 1), n, 0, &[], &[]);
        let asks = [
            ask(ResourceName::Node(host.into()), n),
            ask(ResourceName::Rack(rack.into()), n),
        ];
        cs.update_locality_asks(a, &asks);
    }

    fn hosts(out: &[Assignment]) -> Vec<String> {
        out.iter()
            .map(|x| x.container.node_id.host.clone())
            .collect()
    }

    /// A replayed recording's placement (`recorded_placement`; not a Hadoop rule): the first
    /// executor goes to a node new to the application at the first heartbeat (the AM's node's),
    /// the second, recorded on the same host as the first, to that node again at a third node's
    /// heartbeat; with the placement used up, the heartbeating node takes the next.
    #[test]
    fn a_recorded_placement_puts_containers_on_their_recorded_nodes_at_the_first_heartbeat() {
        let ten = res(10 * GB, 10);
        let mut cs = cs_with_nodes(&[("host_0", ten), ("host_1", ten), ("host_2", ten)]);
        let a = attempt(1, 1);
        running(&mut cs, a, 0, 1, res(2 * GB, 1));
        cs.place_as_recorded(a, &[Some(3), Some(3)]);
        let out = cs.node_update(0);
        assert_eq!((hosts(&out), out[0].node), (vec!["host_1".to_string()], 1));
        cs.update_requests(a, res(2 * GB, 1), 1, 0, &[], &[]);
        assert_eq!(hosts(&cs.node_update(2)), ["host_1"]);
        assert_eq!(cs.node(1).used, res(4 * GB, 2));
        cs.update_requests(a, res(2 * GB, 1), 1, 0, &[], &[]);
        assert_eq!(hosts(&cs.node_update(2)), ["host_2"]);
    }

    // TestLeafQueue "testLocalityScheduling" (node-local first): the node the ask names gets
    // its containers when it heartbeats, all of them on one heartbeat, since only OFF_SWITCH
    // assignments count toward maximum-offswitch-assignments (CapacityScheduler
    // .allocateContainersToNode's offswitchCount).
    #[test]
    fn node_local_asks_are_placed_on_their_node() {
        let (mut cs, a) = racked();
        ask_on(&mut cs, a, "n4", "/r2", 3);
        assert!(
            cs.node_update(1).is_empty(),
            "n2 is neither the node nor its rack"
        );
        let out = cs.node_update(3);
        assert_eq!(hosts(&out), vec!["n4"; 3]);
        assert_eq!(cs.outstanding(a), 0);
        let loc = cs.attempts[&a].locality.as_ref().unwrap();
        assert!(loc.nodes.is_empty() && loc.racks.is_empty());
        assert_eq!(
            loc.missed.get(),
            0,
            "a node-local container resets the count"
        );
    }

    // RegularContainerAllocator.canAssign(RACK_LOCAL): after more missed opportunities than
    // min(cluster nodes, node-locality-delay) (4 here), a node of the rack will do; the `*`
    // ask waits longer while the asks are many (getLocalityWaitFactor).
    #[test]
    fn rack_local_after_the_node_locality_delay() {
        let (mut cs, a) = racked();
        ask_on(&mut cs, a, "n4", "/r2", 8);
        let mut got = Vec::new();
        for beat in 1..=5 {
            let out = cs.node_update(2);
            got.push((beat, out.len()));
        }
        // min(4 nodes, 8 outstanding * (3 names - 1) / 4 nodes = 4) < missed: off-switch from
        // the 5th opportunity too, but the rack comes first; rack-locality-full-reset then
        // starts the count again, so the next container of the same heartbeat waits.
        assert_eq!(got, vec![(1, 0), (2, 0), (3, 0), (4, 0), (5, 1)]);
        let loc = cs.attempts[&a].locality.as_ref().unwrap();
        assert_eq!(LocalityAsks::count(&loc.racks, "/r2"), 7);
        assert_eq!(LocalityAsks::count(&loc.nodes, "n4"), 8);
        assert_eq!(loc.missed.get(), 1);
    }

    // RegularContainerAllocator.canAssign(OFF_SWITCH) with rack-locality-additional-delay
    // -1: `min(nodes, outstanding * localityWaitFactor) < missed`; one OFF_SWITCH container
    // per heartbeat (the off-switch limit).
    #[test]
    fn off_switch_after_the_wait_factor() {
        let (mut cs, a) = racked();
        ask_on(&mut cs, a, "n4", "/r2", 2);
        // min(4, 2 * (3 - 1) / 4 = 1) < missed: the second opportunity on n2 is off-switch.
        assert!(cs.node_update(1).is_empty());
        let out = cs.node_update(1);
        assert_eq!(hosts(&out), vec!["n2"]);
        assert_eq!(cs.outstanding(a), 1);
        let loc = cs.attempts[&a].locality.as_ref().unwrap();
        assert_eq!(
            loc.missed.get(),
            2,
            "an off-switch container does not reset the count"
        );
    }

    // canAssign(OFF_SWITCH) with rack-locality-additional-delay set: off-switch only after
    // min(nodes, node-locality-delay + additional delay) missed opportunities.
    #[test]
    fn off_switch_after_the_rack_additional_delay() {
        let (mut cs, a) = racked();
        cs.set_locality_delays(LocalityDelays {
            node_locality_delay: 1,
            rack_locality_additional_delay: Some(2),
            rack_locality_full_reset: true,
        });
        ask_on(&mut cs, a, "n4", "/r2", 1);
        let beats: Vec<usize> = (0..4).map(|_| cs.node_update(1).len()).collect();
        assert_eq!(beats, vec![0, 0, 0, 1]);
    }

    // An attempt asking only `*` (getUniqueLocationAsks == 1) is never delayed.
    #[test]
    fn any_only_asks_are_not_delayed() {
        let (mut cs, a) = racked();
        cs.update_requests(a, res(1024, 1), 2, 0, &[], &[]);
        assert_eq!(
            cs.node_update(1).len(),
            1,
            "one off-switch container a heartbeat"
        );
        assert!(cs.attempts[&a].locality.is_none());
    }

    /// FiCaSchedulerApp.updateAMContainerDiagnostics(INACTIVATED, ...) runs each time
    /// AbstractLeafQueue.activateApplications leaves an application pending (Hadoop 3.4), so
    /// its diagnostics follow the queue's AM usage: here a third application waits behind two,
    /// one of them finishes, the limit still holds it, and the refresh shows the new usage.
    #[test]
    fn a_pending_application_is_reported_again_each_time_activation_runs() {
        let mut cs = two_queues(100.0, 0.1, 10.0);
        let (a, b, c) = (attempt(1, 1), attempt(2, 1), attempt(3, 1));
        // etl's AM limit: 10 % of its current limit (32 GB), rounded up: 4 GB.
        assert_eq!(cs.add_attempt_in(a, res(4 * GB, 1), "etl", "x"), None);
        assert!(cs.add_attempt_in(b, res(3 * GB, 1), "etl", "y").is_some());
        assert!(cs.add_attempt_in(c, res(2 * GB, 1), "etl", "z").is_some());
        cs.take_refreshed();
        cs.take_activated();
        cs.stop_attempt(a);
        // b starts (the queue's AM usage is 0 again: the first one always does), c is checked
        // again (3 GB + 2 GB > 4 GB) and stays pending, with b's AM now in the usage.
        let activated: Vec<_> = cs.take_activated().iter().map(|x| x.attempt).collect();
        assert_eq!(activated, [b]);
        let refreshed = cs.take_refreshed();
        assert_eq!(refreshed.len(), 1);
        assert_eq!(refreshed[0].0, c);
        assert_eq!(refreshed[0].1.queue_am_used, res(3 * GB, 1));
    }

    fn gpu_res(memory_mb: u64, vcores: u32, gpus: u32) -> Resource {
        Resource {
            memory_mb,
            vcores,
            gpus,
        }
    }

    /// A GPU ask above the largest NodeManager's GPUs is refused with
    /// GREATER_THAN_MAX_RESOURCE_MESSAGE_TEMPLATE's text for `yarn.io/gpu`, checked after memory
    /// and vcores (SchedulerUtils.checkResourceRequestAgainstAvailableResource walks the types
    /// in ResourceUtils order); the configured maximum prints ResourceUtils' default for a
    /// countable type, Long.MAX_VALUE, and ClusterNodeTracker.getMaxAllowedAllocation lowers it
    /// to the largest node's count. Hadoop's TestSchedulerUtils
    /// (testCustomResourceRequestedUnitIsSameAsAvailableUnit2: a custom type above the maximum
    /// allowed allocation, GREATER_THEN_MAX_ALLOCATION's text; ...IsSameAsAvailableUnit: below
    /// it, accepted), with the simulated type `yarn.io/gpu` and no units.
    #[test]
    fn a_gpu_ask_above_the_largest_nodes_gpus_is_invalid() {
        let mut s = greedy(CapacityScheduler::new(limits()));
        s.set_gpu_type(i64::MAX as u64);
        s.add_node(node("nm-1"), "/r".into(), gpu_res(64 * GB, 16, 1));
        s.add_node(node("nm-2"), "/r".into(), gpu_res(64 * GB, 16, 0));
        assert_eq!(s.validate_request(gpu_res(1408, 1, 1)), Ok(()));
        assert_eq!(
            s.validate_request(gpu_res(1408, 1, 2)).unwrap_err(),
            "Invalid resource request! Cannot allocate containers as requested resource is greater than maximum allowed allocation. Requested resource type=[yarn.io/gpu], Requested resource=<memory:1408, vCores:1, yarn.io/gpu: 2>, maximum allowed allocation=<memory:8192, vCores:4, yarn.io/gpu: 1>, please note that maximum allowed allocation is calculated by scheduler based on maximum resource of registered NodeManagers, which might be less than configured maximum allocation=<memory:8192, vCores:4, yarn.io/gpu: 9223372036854775807>"
        );
        // Memory is checked first.
        assert!(
            s.validate_request(gpu_res(9000, 1, 2))
                .unwrap_err()
                .contains("type=[memory-mb]")
        );
        // A configured maximum below the nodes' GPUs is the limit.
        let mut capped = greedy(CapacityScheduler::new(limits()));
        capped.set_gpu_type(1);
        capped.add_node(node("nm-1"), "/r".into(), gpu_res(64 * GB, 16, 4));
        let err = capped.validate_request(gpu_res(1408, 1, 2)).unwrap_err();
        assert!(
            err.ends_with("maximum allowed allocation=<memory:8192, vCores:4, yarn.io/gpu: 1>, please note that maximum allowed allocation is calculated by scheduler based on maximum resource of registered NodeManagers, which might be less than configured maximum allocation=<memory:8192, vCores:4, yarn.io/gpu: 1>"),
            "{err}"
        );
    }

    /// Normalization keeps a request's GPUs (DominantResourceCalculator.normalize: a countable
    /// type's minimum 0, step 1, capped at its maximum); a node takes a container only while its
    /// GPUs last, and a completed container gives them back.
    #[test]
    fn gpus_are_kept_by_normalize_and_counted_on_the_node() {
        let mut cs = cs_with_nodes(&[]);
        cs.set_gpu_type(2);
        assert_eq!(cs.normalize(gpu_res(1500, 1, 1)), gpu_res(2048, 1, 1));
        assert_eq!(cs.normalize(gpu_res(1500, 1, 3)), gpu_res(2048, 1, 2));
        cs.add_node(node("g0"), "/default-rack".into(), gpu_res(16 * GB, 8, 1));
        cs.add_node(node("c0"), "/default-rack".into(), gpu_res(16 * GB, 8, 0));
        let a = attempt(1, 1);
        running(&mut cs, a, 1, 2, gpu_res(2 * GB, 1, 1));
        // The AM (no GPU) went to c0; c0 has no GPU, so no executor goes there.
        assert!(cs.node_update(1).is_empty());
        let out = cs.node_update(0);
        assert_eq!(ids(&out), [(2, false)], "one GPU on g0: one executor");
        assert_eq!(cs.node(0).used, gpu_res(2 * GB, 1, 1));
        assert_eq!(out[0].container.resource.gpus, 1);
        assert!(cs.node_update(0).is_empty(), "g0's GPU is taken");
        assert_eq!(cs.outstanding(a), 1);
        let cid = out[0].container.id;
        assert!(cs.complete_container(0, cid));
        assert_eq!(cs.node(0).used, gpu_res(0, 0, 0));
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
        assert!(cs.accounting_balanced());
    }

    /// A released executor that was RUNNING keeps its node's GPU until the NM reports it
    /// complete (SchedulerNode.releaseContainer(id, false), YARN-4148): with one GPU a node,
    /// the next GPU executor waits for that report (for a Docker container under `docker stop`,
    /// the grace), then takes the node.
    #[test]
    fn a_stopping_containers_gpu_keeps_the_next_executor_off_its_node() {
        let mut cs = cs_with_nodes(&[]);
        cs.set_gpu_type(1);
        cs.add_node(node("g0"), "/default-rack".into(), gpu_res(16 * GB, 8, 1));
        cs.add_node(node("c0"), "/default-rack".into(), gpu_res(16 * GB, 8, 0));
        let a = attempt(1, 1);
        running(&mut cs, a, 1, 1, gpu_res(2 * GB, 1, 1));
        let first = cs.node_update(0);
        let cid = first[0].container.id;
        cs.container_launched(0, cid);
        assert_eq!(cs.release_container(cid), Some((0, true)));
        cs.update_requests(a, gpu_res(2 * GB, 1, 1), 1, 0, &[], &[]);
        assert!(
            cs.node_update(0).is_empty(),
            "the GPU is held for the NM's report"
        );
        assert_eq!(cs.node(0).used.gpus, 1);
        assert!(cs.finish_held(0, cid));
        assert_eq!(ids(&cs.node_update(0)), [(3, false)]);
        assert!(cs.accounting_balanced());
    }
}
