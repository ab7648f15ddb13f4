//! Spark's `YarnAllocator`: keeps the executor target, turns it into container requests
//! (`updateResourceRequests`), matches and launches allocated containers
//! (`handleAllocatedContainers`, `runAllocatedContainers`), classifies completed containers
//! (`processCompletedContainers`) and counts executor failures (`ExecutorFailureTracker`,
//! `YarnAllocatorNodeHealthTracker`).

use crate::kernel::trace::StateChange;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_yarn::resource_request_helper::{Component, set_resource_requests};
use crate::spark_yarn::yarn_allocator_node_health_tracker::{
    AllocationFailure, ExclusionSync, NodeHealthSettings,
};
use crate::spark_yarn::yarn_allocator_state::{
    Completion, ContainerExit, ContainerLaunch, LaunchDecision, LocalityHints, NewRequests,
    RequestUpdate, YarnAllocatorState,
};
use crate::world::context::SimContext;
use crate::world::observer::{LostExecutor, RunEvent};
use crate::{error, info, warn};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::application_master::{
    AllocatorReport, ApplicationMasterMsg, ReporterStop, RequestExecutors,
};
use sparkyard_messages::ids::{ApplicationAttemptId, ExecutorId};
use sparkyard_messages::jvm_text::scala_list;
use sparkyard_messages::records::{
    Container, ContainerStatus, ExecutorLossReason, Resource, RpcFailure,
};
use sparkyard_messages::resource_manager::{AllocateRequest, ResourceManagerMsg};
use sparkyard_messages::rpc::{AllocateResponse, EndpointId, NodeReport, NodeState, ReplyTo};
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

const TARGET: &str = "am::YarnAllocator";

/// `yarn.resourcemanager.connect.max-wait.ms` (YarnConfiguration.DEFAULT_RESOURCEMANAGER_CONNECT_MAX_WAIT_MS):
/// how long the AMRMClient's retry proxy keeps retrying a call before it fails.
pub const RM_CONNECT_MAX_WAIT_MS: u64 = 900_000;

/// Starts an ExecutorRunnable for a container (supplied by the supervisor).
pub type RunnableLauncher = Rc<dyn Fn(Container, ExecutorId, EndpointRef<YarnAllocatorMsg>)>;

/// The answers the allocator waits for.
pub enum AllocatorAnswer {
    /// The driver's `RetrieveLastAllocatedExecutorId`.
    LastExecutorId(Result<i64, RpcFailure>),
    /// The RM's answer to one heartbeat.
    Allocate(Result<AllocateResponse, RpcFailure>),
}

/// Where the allocator's peers are.
pub struct AllocatorPeers {
    pub rm: EndpointRef<ResourceManagerMsg>,
    pub driver: EndpointRef<YarnSchedulerMsg>,
    pub am: EndpointRef<ApplicationMasterMsg>,
    pub launch: RunnableLauncher,
}

/// The YarnAllocator actor.
pub struct YarnAllocator {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: Option<EndpointRef<YarnAllocatorMsg>>,
    peers: AllocatorPeers,
    attempt_id: ApplicationAttemptId,
    resource: Resource,
    /// `labelExpression`: `spark.yarn.executor.nodeLabelExpression`.
    label_expression: Option<String>,
    asks: AskTable<AllocatorAnswer>,
    ready: bool,
    in_flight: bool,
    allocate_again: bool,
    /// The allocator's bookkeeping and decisions (target, counts, containers, failures).
    state: YarnAllocatorState,
    /// `releasedExecutorLossReasons`: the reasons of executors no one has asked about yet.
    loss_reasons: BTreeMap<ExecutorId, ExecutorLossReason>,
    pending_loss_requests: BTreeMap<ExecutorId, Vec<ReplyTo<ExecutorLossReason>>>,
    /// The asks in `pending_loss_requests`, counted as they come and are answered.
    pending_loss_asks: u32,
    /// `YarnAllocatorNodeHealthTracker.numClusterNodes`: `Int.MaxValue` until the RM reports.
    num_cluster_nodes: u32,
    rm_failure: Option<RpcFailure>,
    /// The DECOMMISSIONING hosts already reported to the driver, and whether to report them.
    decommissioning_nodes: DecommissioningNodes,
}

/// `DECOMMISSIONING_NODES_CACHE_SIZE`.
const DECOMMISSIONING_NODES_CACHE_SIZE: usize = 200;

/// YarnAllocator's `handleNodesInDecommissioningState` and its `decommissioningNodesCache`:
/// which hosts of an allocate response's updated nodes the driver is told to decommission
/// (`DecommissionExecutorsOnHost`).
#[derive(Debug)]
pub struct DecommissioningNodes {
    /// `isYarnExecutorDecommissionEnabled`: `spark.decommission.enabled` without the external
    /// shuffle service (SPARK-39018); when false `allocateResources` skips the handling.
    enabled: bool,
    /// `decommissioningNodesCache`: a LinkedHashMap in insertion order that drops its eldest
    /// host once it holds more than 200.
    cache: std::collections::VecDeque<String>,
}

impl DecommissioningNodes {
    pub fn new(enabled: bool) -> Self {
        DecommissioningNodes {
            enabled,
            cache: std::collections::VecDeque::new(),
        }
    }

    /// The hosts to report, in the response's order. Spark 4.0.0 (spark-yarn jar,
    /// handleNodesInDecommissioningState) runs a strict `Buffer.filter` against the cache and
    /// only then `foreach` sends and caches, so a host listed twice in one response is sent
    /// twice.
    pub fn newly_decommissioning(&mut self, nodes: &[NodeReport]) -> Vec<String> {
        if !self.enabled {
            return Vec::new();
        }
        let fresh: Vec<String> = nodes
            .iter()
            .filter(|n| n.state == NodeState::Decommissioning && !self.cache.contains(&n.host))
            .map(|n| n.host.clone())
            .collect();
        for host in &fresh {
            self.put(host);
        }
        fresh
    }

    /// `LinkedHashMap.put` with `removeEldestEntry(size > 200)`: a host already held keeps its
    /// place and evicts nothing.
    fn put(&mut self, host: &str) {
        if self.cache.iter().any(|h| h == host) {
            return;
        }
        self.cache.push_back(host.to_string());
        if self.cache.len() > DECOMMISSIONING_NODES_CACHE_SIZE {
            self.cache.pop_front();
        }
    }
}

/// `createYarnResourceForResourceProfile` for the default profile: `Resource.newInstance(
/// totalMemMiB, cores)`, then `setResourceRequests` with the executors' GPUs
/// (`resource_request_helper`), whose warning goes to the AM's log when YARN does not know the
/// type.
fn executor_resource(sim: &SimContext, env: &RpcEnv) -> Resource {
    let s = &sim.config.spark;
    let base = Resource {
        memory_mb: s.executor_container_memory_mb(),
        vcores: s.executor_cores,
        gpus: 0,
    };
    let request = set_resource_requests(
        base,
        &s.properties,
        Component::Executor,
        sim.config.yarn.gpu_resource_type,
    );
    for w in &request.warnings {
        warn!(env.log(), "am::ResourceRequestHelper", "{w}");
    }
    request.capability
}

impl YarnAllocator {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        attempt_id: ApplicationAttemptId,
        peers: AllocatorPeers,
    ) -> EndpointRef<YarnAllocatorMsg> {
        let s = &sim.config.spark;
        let resource = executor_resource(&sim, &env);
        let target = s.initial_target_executors();
        let shuffle_service = s
            .properties
            .get("spark.shuffle.service.enabled")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        if s.decommission_enabled && shuffle_service {
            warn!(
                env.log(),
                TARGET,
                "Yarn Executor Decommissioning is supported only when spark.shuffle.service.enabled is set to false. See: SPARK-39018."
            );
        }
        let decommission_enabled = s.decommission_enabled && !shuffle_service;
        sim.observe(RunEvent::ExecutorTargetChanged {
            attempt: attempt_id.attempt_id,
            target,
        });
        let mut out = None;
        YarnAllocator::create(|ctx| {
            let mut env = env;
            let me = env.setup_thread(
                "YarnAllocator",
                &ctx.address(),
                Some(YarnAllocatorMsg::AskReply),
            );
            out = Some(me.clone());
            YarnAllocator {
                sim: sim.clone(),
                env,
                me: Some(me),
                peers,
                attempt_id,
                resource,
                label_expression: s.executor_node_label_expression.clone(),
                asks: AskTable::default(),
                ready: false,
                in_flight: false,
                allocate_again: false,
                state: YarnAllocatorState::new(
                    target,
                    s.executor_failures_validity_interval_ms,
                    NodeHealthSettings::from_spark(s),
                ),
                loss_reasons: BTreeMap::new(),
                pending_loss_requests: BTreeMap::new(),
                pending_loss_asks: 0,
                num_cluster_nodes: u32::MAX,
                rm_failure: None,
                decommissioning_nodes: DecommissioningNodes::new(decommission_enabled),
            }
        });
        out.expect("create runs its closure")
    }

    fn me_id(&self) -> EndpointId {
        self.me
            .as_ref()
            .map(|m| m.id)
            .expect("registered at creation")
    }

    fn on_message(&mut self, msg: YarnAllocatorMsg, ctx: &mut Context<Self>) {
        match msg {
            YarnAllocatorMsg::AllocateResources => self.allocate_resources(ctx),
            YarnAllocatorMsg::ReporterPass {
                max_executor_failures,
            } => self.reporter_pass(max_executor_failures, ctx),
            YarnAllocatorMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            YarnAllocatorMsg::RequestTotalExecutors(ask, req) => self.on_request_total(ask, req),
            YarnAllocatorMsg::KillExecutors(ask, ids) => self.on_kill_executors(ask, ids),
            YarnAllocatorMsg::GetExecutorLossReason(ask, id) => self.on_get_loss_reason(ask, id),
            YarnAllocatorMsg::SetShutdown => self.state.set_shutdown(),
            YarnAllocatorMsg::ExecutorLaunched {
                executor_id: _,
                container_id,
            } => self.state.executor_launched(container_id),
            YarnAllocatorMsg::ExecutorLaunchFailed {
                executor_id,
                container_id,
                error,
            } => {
                self.state.executor_launch_failed(executor_id, container_id);
                // logError(msg, e): the message, then the throwable with its stack.
                error!(
                    self.env.log(),
                    TARGET,
                    "Failed to launch executor {executor_id} on container {container_id}\n{error}"
                );
            }
        }
    }

    /// One pass of `ApplicationMaster.allocationThreadImpl` (ApplicationMaster.scala): the checks
    /// read the allocator's counters at the start of the pass, after the Reporter's sleep, and
    /// only a pass that passes both calls `allocateResources()`.
    fn reporter_pass(&mut self, max_executor_failures: u32, ctx: &mut Context<Self>) {
        let now = crate::kernel::clock::now_ms();
        let stop = if self.state.num_executors_failed(now) >= max_executor_failures {
            Some(ReporterStop::MaxExecutorFailures)
        } else if self.is_all_node_excluded() {
            Some(ReporterStop::AllNodesExcluded)
        } else {
            None
        };
        if stop.is_none() {
            return self.allocate_resources(ctx);
        }
        let report = AllocatorReport {
            num_pending_allocate: self.state.num_pending(),
            num_pending_loss_reason_requests: self.pending_loss_asks,
            stop,
            rm_failure: None,
        };
        self.env.send(
            &self.peers.am,
            ApplicationMasterMsg::AllocatorReport(report),
        );
    }

    /// `YarnAllocatorNodeHealthTracker.isAllNodeExcluded`: warns and answers `false` while the
    /// RM reports no node.
    fn is_all_node_excluded(&mut self) -> bool {
        if self.num_cluster_nodes == 0 {
            warn!(
                self.env.log(),
                "am::YarnAllocatorNodeHealthTracker",
                "No available nodes reported, please check Resource Manager."
            );
            return false;
        }
        self.state.num_excluded_nodes() >= self.num_cluster_nodes
    }

    /// `allocateResources()`: one RM heartbeat; a call while one is in flight runs right after.
    fn allocate_resources(&mut self, ctx: &mut Context<Self>) {
        if !self.ready || self.in_flight {
            self.allocate_again = true;
            return;
        }
        if let Some(sync) = self.state.take_startup_exclusions() {
            // The tracker's constructor synced spark.yarn.exclude.nodes (SPARK-41585); it runs
            // in createAllocator, before this first allocateResources().
            self.log_exclusion_sync(&sync);
        }
        self.update_resource_requests();
        let requests = self.state.take_requests();
        let blacklist = self.state.take_blacklist();
        let req = AllocateRequest {
            attempt_id: self.attempt_id,
            response_id: 0,
            progress_permille: 100,
            priority: 0,
            capability: self.resource,
            add_requests: requests.add_requests,
            remove_requests: requests.remove_requests,
            releases: requests.releases,
            blacklist_additions: blacklist.additions,
            blacklist_removals: blacklist.removals,
            // createContainerRequest: `new ContainerRequest(resource, nodes, racks, priority,
            // true, labelExpression.orNull)`.
            node_label_expression: self.label_expression.clone(),
            locality_asks: requests.locality_asks,
        };
        self.in_flight = true;
        let rm = self.peers.rm.clone();
        let me = self.me_id();
        // `amClient.allocate` goes through YARN's RM retry proxy (RMProxy), which gives up after
        // `yarn.resourcemanager.connect.max-wait.ms` (YarnConfiguration default 900000 ms).
        let timeout = AskTimeout::new(
            RM_CONNECT_MAX_WAIT_MS,
            "yarn.resourcemanager.connect.max-wait.ms",
        );
        self.ask(ctx, me, &rm, AllocatorAnswer::Allocate, &timeout, |a| {
            ResourceManagerMsg::Allocate(a, req)
        });
    }

    /// `updateResourceRequests()`: logs what the state decided to ask for or cancel.
    fn update_resource_requests(&mut self) {
        let log = self.env.log().clone();
        match self.state.update_resource_requests() {
            Some(RequestUpdate::Request(new)) => self.log_new_requests(&new),
            Some(RequestUpdate::Cancel { cancel, target }) => info!(
                log,
                TARGET,
                "Canceling requests for {cancel} executor container(s) to have a new desired total {target} executors."
            ),
            None => {}
        }
    }

    /// The `missing > 0` lines of `updateResourceRequests`, in Spark 4.0.0's order and texts
    /// (its jar, structured logging): "executor " + "container(s) for ResourceProfile Id: ..."
    /// (one space), and "Submitted " + count + "} unlocalized container requests." (the stray
    /// brace is Spark's own). The request line always ends with " with custom resources: " and
    /// the capability: Spark appends it when `resource.getResources.nonEmpty`, and Hadoop's
    /// `Resource.getResources()` always holds memory and vcores (printed as
    /// `Resource.toString`: `<memory:1408, vCores:1>`, a GPU ask adding `, yarn.io/gpu: 1`).
    fn log_new_requests(&self, new: &NewRequests) {
        let log = self.env.log();
        info!(
            log,
            TARGET,
            "Will request {} executor container(s) for ResourceProfile Id: 0, each with {} core(s) and {} MB memory. with custom resources: {}",
            new.missing,
            self.resource.vcores,
            self.resource.memory_mb,
            self.resource
        );
        if new.stale_cancelled > 0 {
            info!(
                log,
                TARGET,
                "Canceled {} container request(s) (locality no longer needed)",
                new.stale_cancelled
            );
        }
        if new.unlocalized_to_cancel > 0 {
            info!(
                log,
                TARGET,
                "Canceled {} unlocalized container requests to resubmit with locality",
                new.unlocalized_to_cancel
            );
        }
        if new.unlocalized > 0 {
            info!(
                log,
                TARGET, "Submitted {}}} unlocalized container requests.", new.unlocalized
            );
        }
        for (count, nodes) in &new.localized {
            let hosts = nodes.join(",");
            for _ in 0..*count {
                info!(log, TARGET, "Submitted container request for host {hosts}.");
            }
        }
    }

    fn on_allocate_response(&mut self, resp: AllocateResponse, ctx: &mut Context<Self>) {
        self.num_cluster_nodes = resp.num_cluster_nodes;
        self.handle_nodes_in_decommissioning_state(&resp.updated_nodes);
        self.handle_allocated_containers(resp.allocated_containers);
        self.process_completed_containers(resp.completed_containers);
        self.after_allocate(ctx);
    }

    /// `handleNodesInDecommissioningState`: each host newly DECOMMISSIONING is reported to the
    /// driver once (`DecommissionExecutorsOnHost`).
    fn handle_nodes_in_decommissioning_state(&mut self, nodes: &[NodeReport]) {
        for host in self.decommissioning_nodes.newly_decommissioning(nodes) {
            self.env.send(
                &self.peers.driver,
                YarnSchedulerMsg::DecommissionExecutorsOnHost(host),
            );
        }
    }

    fn after_allocate(&mut self, ctx: &mut Context<Self>) {
        self.in_flight = false;
        let report = AllocatorReport {
            num_pending_allocate: self.state.num_pending(),
            num_pending_loss_reason_requests: self.pending_loss_asks,
            stop: None,
            rm_failure: self.rm_failure.take(),
        };
        self.env.send(
            &self.peers.am,
            ApplicationMasterMsg::AllocatorReport(report),
        );
        if std::mem::take(&mut self.allocate_again) {
            self.allocate_resources(ctx);
        }
    }

    /// `handleAllocatedContainers` / `runAllocatedContainers`: logs and starts what the state
    /// decided, container by container.
    fn handle_allocated_containers(&mut self, containers: Vec<Container>) {
        let allocated = self.state.handle_allocated_containers(containers);
        let launched = allocated.launched();
        let total = allocated.received;
        for launch in allocated.launches {
            self.run_allocated_container(launch);
        }
        if total > 0 {
            info!(
                self.env.log(),
                TARGET,
                "Received {total} containers from YARN, launching executors on {launched} of them."
            );
        }
    }

    fn run_allocated_container(&mut self, launch: ContainerLaunch) {
        let ContainerLaunch {
            container: c,
            executor_id: id,
            host,
            decision,
        } = launch;
        info!(
            self.env.log(),
            TARGET,
            "Launching container {} on host {host} for executor with ID {id} for ResourceProfile Id 0",
            c.id
        );
        if let LaunchDecision::SkipAtTarget { running, target } = decision {
            info!(
                self.env.log(),
                TARGET,
                "Skip launching executorRunnable as running executors count: {running} reached target executors count: {target}."
            );
            return;
        }
        self.sim.observe(RunEvent::ExecutorLaunched {
            attempt: self.attempt_id.attempt_id,
            executor: id,
        });
        if self.sim.faults.names_executors {
            let key = (self.attempt_id.attempt_id, id.0);
            self.sim
                .executors
                .borrow_mut()
                .insert(key, (c.id, c.node_id.host.clone()));
            crate::world::injector::executor_launched(&self.sim, key.0, key.1);
        }
        let me = self.me.clone().expect("registered at creation");
        (self.peers.launch)(c, id, me);
    }

    /// `processCompletedContainers`: Spark's classification of every completed container.
    fn process_completed_containers(&mut self, statuses: Vec<ContainerStatus>) {
        for status in statuses {
            self.process_completed(status);
        }
    }

    /// Logs the state's verdict on one completed container, answers who asked why its
    /// executor was lost, and tells the driver of an executor it did not kill.
    fn process_completed(&mut self, status: ContainerStatus) {
        let now = crate::kernel::clock::now_ms();
        let done = self.state.process_completed(&status, now);
        if matches!(done.completion, Completion::Released) {
            let (container, exit_status) = (status.container_id, status.exit_status);
            self.env.trace_state("YarnAllocator", || {
                StateChange::ReleasedContainerCompleted {
                    container,
                    exit_status,
                }
            });
        }
        if let Completion::Exited {
            on_host,
            executor_known,
            exit,
        } = &done.completion
        {
            self.log_exit(&status, on_host, *executor_known, exit);
        }
        let Some(eid) = done.executor else {
            return;
        };
        let lost = done.lost_executor();
        let counted_as_failure = matches!(
            &done.completion,
            Completion::Exited { exit, .. } if exit.allocation_failure.is_some()
        );
        let reason = done.reason;
        match self.pending_loss_requests.remove(&eid) {
            Some(asks) => {
                self.pending_loss_asks -= asks.len() as u32;
                for a in asks {
                    self.env.reply(a, reason.clone());
                }
            }
            None => {
                self.loss_reasons.insert(eid, reason.clone());
            }
        }
        if lost.is_some() {
            let attempt = self.attempt_id.attempt_id;
            self.sim.observe(RunEvent::ExecutorLost(LostExecutor {
                executor: eid,
                attempt,
                exit_status: Some(status.exit_status),
                reason: reason.to_string(),
                counted_as_failure,
            }));
            self.env
                .trace_state("YarnAllocator", || StateChange::ExecutorLost {
                    executor: eid,
                    exit_status: status.exit_status,
                });
            self.env.send(
                &self.peers.driver,
                YarnSchedulerMsg::RemoveExecutor {
                    executor_id: eid,
                    reason,
                },
            );
        }
    }

    /// The lines Spark logs for a container that ended without being released, in its order.
    fn log_exit(
        &mut self,
        status: &ContainerStatus,
        on_host: &str,
        executor_known: bool,
        exit: &ContainerExit,
    ) {
        let cid = status.container_id;
        let log = self.env.log().clone();
        if !executor_known {
            warn!(log, TARGET, "Cannot find executorId for container: {cid}");
        }
        info!(
            log,
            TARGET,
            "Completed container {cid}{on_host} (state: {}, exit status: {})",
            status.state,
            status.exit_status
        );
        if let Some(failure) = &exit.allocation_failure {
            self.sim.observe(RunEvent::ExecutorFailureCounted);
            if let AllocationFailure::HostExcluded {
                host,
                failures_on_host,
                sync,
            } = failure
            {
                info!(
                    log,
                    "am::YarnAllocatorNodeHealthTracker",
                    "excluding {host} as YARN allocation failed {failures_on_host} times"
                );
                // updateAllocationExcludedNodes refreshes the RM's list in the same call.
                if let Some(sync) = sync {
                    self.log_exclusion_sync(sync);
                }
            }
        }
        if exit.caused_by_app {
            warn!(log, TARGET, "{}", exit.text);
        } else {
            info!(log, TARGET, "{}", exit.text);
        }
    }

    /// `synchronizeExcludedNodesWithYarn`'s lines (the lists go with the next allocate call).
    fn log_exclusion_sync(&self, sync: &ExclusionSync) {
        let log = self.env.log();
        if !sync.additions.is_empty() {
            info!(
                log,
                "am::YarnAllocatorNodeHealthTracker",
                "adding nodes to YARN application master's excluded node list: {}",
                scala_list(&sync.additions)
            );
        }
        if !sync.removals.is_empty() {
            info!(
                log,
                "am::YarnAllocatorNodeHealthTracker",
                "removing nodes from YARN application master's excluded node list: {}",
                scala_list(&sync.removals)
            );
        }
    }

    /// `requestTotalExecutorsWithPreferredLocalities` (YarnAllocator.scala): an empty map sets
    /// every target to 0 and answers true; otherwise a changed target is logged. Both paths, and
    /// only they, pass the driver's excluded nodes to `setSchedulerExcludedNodes`.
    fn on_request_total(&mut self, ask: ReplyTo<bool>, req: RequestExecutors) {
        self.set_locality_hints(&req);
        let total = req
            .resource_profile_to_total_execs
            .iter()
            .find(|(rp, _)| *rp == 0)
            .map(|(_, n)| *n);
        let excluded = req.excluded_nodes.iter().cloned().collect();
        let now = crate::kernel::clock::now_ms();
        let done = self.state.request_total_executors(total, excluded, now);
        if done.target_changed {
            let target = total.unwrap_or(0);
            self.sim.observe(RunEvent::ExecutorTargetChanged {
                attempt: self.attempt_id.attempt_id,
                target,
            });
            if total.is_some() {
                info!(
                    self.env.log(),
                    TARGET,
                    "Driver requested a total number of {target} executor(s) for resource profile id: 0."
                );
            }
        }
        if let Some(sync) = &done.exclusion {
            self.log_exclusion_sync(sync);
        }
        if done.answer {
            // AMEndpoint.receiveAndReply(RequestExecutorsFromAM) (ApplicationMaster.scala):
            // `resetAllocatorInterval()` only when `requestTotalExecutorsWithPreferredLocalities`
            // answered that the target changed.
            self.env
                .send(&self.peers.am, ApplicationMasterMsg::WakeReporter);
        }
        self.env.reply(ask, true);
    }

    /// `this.numLocalityAwareTasksPerResourceProfileId = ...; this.hostToLocalTaskCount... =
    /// ...`: the default profile's hints, kept whatever the target does. The racks come from
    /// the cluster's topology the first time a hint names a host.
    fn set_locality_hints(&mut self, req: &RequestExecutors) {
        let num_locality_aware_tasks = req
            .num_locality_aware_tasks_per_resource_profile_id
            .iter()
            .find(|(rp, _)| *rp == 0)
            .map_or(0, |(_, n)| *n);
        let host_to_local_task_count: BTreeMap<Rc<str>, u32> = req
            .host_to_local_task_count
            .iter()
            .filter(|(rp, _)| *rp == 0)
            .flat_map(|(_, hosts)| hosts.iter())
            .map(|(h, n)| (Rc::from(h.as_str()), *n))
            .collect();
        if !host_to_local_task_count.is_empty() && !self.state.has_topology() {
            let per_executor = placement_tasks_per_executor(&self.sim.config.spark);
            let nodes = &self.sim.config.nodes;
            let racks = nodes.iter().map(|n| (n.host.as_str(), n.rack.as_str()));
            self.state.set_topology(racks, per_executor);
        }
        self.state.set_locality_hints(LocalityHints {
            num_locality_aware_tasks,
            host_to_local_task_count,
        });
    }

    fn on_kill_executors(&mut self, ask: ReplyTo<bool>, ids: Vec<ExecutorId>) {
        for id in ids {
            if !self.state.kill_executor(id) {
                warn!(
                    self.env.log(),
                    TARGET, "Attempted to kill unknown executor {id}!"
                );
            }
        }
        self.env.reply(ask, true);
    }

    fn on_get_loss_reason(&mut self, ask: ReplyTo<ExecutorLossReason>, id: ExecutorId) {
        if self.state.has_executor(id) {
            self.pending_loss_requests.entry(id).or_default().push(ask);
            self.pending_loss_asks += 1;
        } else if let Some(reason) = self.loss_reasons.remove(&id) {
            self.env.reply(ask, reason);
        } else {
            warn!(
                self.env.log(),
                TARGET, "Tried to get the loss reason for non-existent executor {id}"
            );
            self.env.reply_failure(
                ask,
                RpcFailure::spark(format!(
                    "Fail to find loss reason for non-existent executor {id}"
                )),
            );
        }
    }
}

impl Actor for YarnAllocator {
    type Context = Context<Self>;

    /// The constructor's `askSync(RetrieveLastAllocatedExecutorId)`: ids continue after the driver's.
    fn started(&mut self, ctx: &mut Context<Self>) {
        let driver = self.peers.driver.clone();
        let me = self.me_id();
        let s = &self.sim.config.spark;
        let timeout = AskTimeout::new(s.ask_timeout_ms, &s.ask_timeout_property);
        self.ask(
            ctx,
            me,
            &driver,
            AllocatorAnswer::LastExecutorId,
            &timeout,
            YarnSchedulerMsg::RetrieveLastAllocatedExecutorId,
        );
    }
}

impl YarnAllocator {
    fn answered(&mut self, answer: AllocatorAnswer, ctx: &mut Context<Self>) {
        match answer {
            AllocatorAnswer::LastExecutorId(Ok(n)) => {
                self.state.set_last_executor_id(n.max(0) as u32);
                self.ready = true;
                if std::mem::take(&mut self.allocate_again) {
                    self.allocate_resources(ctx);
                }
            }
            AllocatorAnswer::LastExecutorId(Err(_)) => {
                self.ready = true;
                if std::mem::take(&mut self.allocate_again) {
                    self.allocate_resources(ctx);
                }
            }
            AllocatorAnswer::Allocate(Ok(resp)) => self.on_allocate_response(resp, ctx),
            AllocatorAnswer::Allocate(Err(e)) => {
                self.rm_failure = Some(e);
                self.after_allocate(ctx);
            }
        }
    }
}

crate::endpoint!(YarnAllocator {
    messages: YarnAllocatorMsg => on_message,
    answers: AllocatorAnswer => answered,
});

/// `ApplicationMaster.createAllocator`: the YarnAllocator, whose launches start
/// ExecutorRunnables against the container's NodeManager.
pub fn create_allocator(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    attempt_id: ApplicationAttemptId,
    link: crate::spark_yarn::executor_runnable::DriverLink,
    rm: EndpointRef<ResourceManagerMsg>,
    driver: EndpointRef<YarnSchedulerMsg>,
    am: EndpointRef<ApplicationMasterMsg>,
) -> EndpointRef<YarnAllocatorMsg> {
    let (sim2, env2) = (sim.clone(), env.clone());
    // One copy of the strings every executor's arguments carry.
    let driver_url: Arc<str> = link.url.into();
    let java_options = link.java_options;
    let dist_cache = link.dist_cache;
    let app: Arc<str> = attempt_id.application_id.to_string().into();
    let launch = Rc::new(
        move |c: Container, id, allocator: EndpointRef<YarnAllocatorMsg>| {
            let nm = env2.daemon_ref(
                &crate::world::addresses::nm_process_name(&c.node_id.host),
                "NodeManager",
            );
            crate::spark_yarn::executor_runnable::ExecutorRunnable::start(
                sim2.clone(),
                env2.clone(),
                c,
                id,
                app.clone(),
                driver_url.clone(),
                java_options.clone(),
                dist_cache.clone(),
                nm,
                allocator,
            );
        },
    );
    let peers = AllocatorPeers {
        rm,
        driver,
        am,
        launch,
    };
    YarnAllocator::start(sim.clone(), env.clone(), attempt_id, peers)
}

/// The tasks one executor runs for the locality placement:
/// `LocalityPreferredContainerPlacementStrategy.numExecutorsPending` divides the pending tasks by
/// the profile's `maxTasksPerExecutor` (a GPU can limit it below cores over `spark.task.cpus`).
fn placement_tasks_per_executor(s: &crate::world::config::SparkSettings) -> u32 {
    crate::spark_core::resource_profile::default_max_tasks_per_executor(
        s.executor_cores,
        s.task_cpus,
        &s.properties,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four cores, one GPU, half a GPU a task: the GPU limits an executor to two tasks, so the
    /// placement counts two (cores over `spark.task.cpus` would give four).
    #[test]
    fn the_placement_counts_the_profiles_tasks_per_executor() {
        use crate::world::settings_builder::SparkSettingsBuilder;
        let cores = |s: &mut crate::world::config::SparkSettings| s.executor_cores = 4;
        let plain = SparkSettingsBuilder::submit("Main", "app.jar", &[]).with(cores);
        assert_eq!(placement_tasks_per_executor(&plain.build()), 4);
        let gpus = SparkSettingsBuilder::submit("Main", "app.jar", &[])
            .with(cores)
            .conf("spark.executor.resource.gpu.amount", "1")
            .conf("spark.executor.resource.gpu.discoveryScript", "./getGpus")
            .conf("spark.task.resource.gpu.amount", "0.5");
        assert_eq!(placement_tasks_per_executor(&gpus.build()), 2);
    }

    fn report(host: &str, state: NodeState) -> NodeReport {
        NodeReport {
            host: host.into(),
            state,
        }
    }

    /// Ports YarnAllocatorSuite "Test YARN container decommissioning": no message while no
    /// node is DECOMMISSIONING, one `DecommissionExecutorsOnHost` for host1 once it is, and
    /// none with `spark.decommission.enabled` off.
    #[test]
    fn test_yarn_container_decommissioning() {
        let mut nodes = DecommissioningNodes::new(true);
        assert!(nodes.newly_decommissioning(&[]).is_empty());
        let host1 = [report("host1", NodeState::Decommissioning)];
        assert_eq!(
            nodes.newly_decommissioning(&host1),
            vec!["host1".to_string()]
        );
        // Cached: the next heartbeat's report of host1 sends nothing more (times(1)).
        assert!(nodes.newly_decommissioning(&host1).is_empty());
        let mut disabled = DecommissioningNodes::new(false);
        let host2 = [report("host2", NodeState::Decommissioning)];
        assert!(disabled.newly_decommissioning(&host2).is_empty());
    }

    /// YarnAllocator.handleNodesInDecommissioningState (spark-yarn_2.13-4.0.0.jar): only
    /// DECOMMISSIONING nodes count; the filter runs over the whole list before any host is
    /// cached, so a host listed twice in one response is sent twice; the cache keeps 200 hosts
    /// and forgets the eldest first.
    #[test]
    fn decommissioning_hosts_are_filtered_then_cached() {
        let mut nodes = DecommissioningNodes::new(true);
        let list = [
            report("a", NodeState::Running),
            report("b", NodeState::Decommissioning),
            report("c", NodeState::Lost),
            report("b", NodeState::Decommissioning),
        ];
        assert_eq!(nodes.newly_decommissioning(&list), vec!["b", "b"]);
        assert_eq!(nodes.cache.len(), 1);
        let many: Vec<NodeReport> = (0..200)
            .map(|i| report(&format!("h{i}"), NodeState::Decommissioning))
            .collect();
        assert_eq!(nodes.newly_decommissioning(&many).len(), 200);
        // b was the eldest of 201 hosts: evicted, so it is reported again.
        let b = [report("b", NodeState::Decommissioning)];
        assert_eq!(nodes.newly_decommissioning(&b), vec!["b"]);
        assert!(nodes.newly_decommissioning(&many[1..]).is_empty());
    }
}
