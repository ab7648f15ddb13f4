//! Spark's `YarnAllocator`: keeps the executor target, turns it into container requests
//! (`updateResourceRequests`), matches and launches allocated containers
//! (`handleAllocatedContainers`, `runAllocatedContainers`), classifies completed containers
//! (`processCompletedContainers`) and counts executor failures (`ExecutorFailureTracker`,
//! `YarnAllocatorNodeHealthTracker`).

use crate::kernel::small_map::DenseMap;
use crate::kernel::trace::TraceKind;
use crate::rpc::{AskTable, AskTimeout, Asker, Endpoint, EndpointRef, RpcEnv};
use crate::world::config::SparkSettings;
use crate::world::context::SimContext;
use crate::{info, warn};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::application_master::{
    AllocatorReport, ApplicationMasterMsg, RequestExecutors,
};
use sparkyard_messages::ids::{ApplicationAttemptId, ContainerId, ExecutorId};
use sparkyard_messages::records::{
    Container, ContainerStatus, ExecutorLossReason, Resource, RpcFailure, exit_status,
};
use sparkyard_messages::resource_manager::{AllocateRequest, ResourceManagerMsg};
use sparkyard_messages::rpc::{AllocateResponse, AskContext, EndpointId, ReplyValue};
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

const TARGET: &str = "am::YarnAllocator";

/// Starts an ExecutorRunnable for a container (supplied by the supervisor).
pub type RunnableLauncher = Rc<dyn Fn(Container, ExecutorId, EndpointRef<YarnAllocatorMsg>)>;

/// What the allocator is waiting for.
pub enum AllocatorPending {
    LastExecutorId,
    Allocate,
}

/// Where the allocator's peers are.
pub struct AllocatorPeers {
    pub rm: EndpointRef<ResourceManagerMsg>,
    pub driver: EndpointRef<YarnSchedulerMsg>,
    pub am: EndpointRef<ApplicationMasterMsg>,
    pub launch: RunnableLauncher,
}

/// A container an executor was launched in, from allocation until YARN reports it completed:
/// Spark's `allocatedContainerToHostMap`, `containerIdToExecutorIdAndResourceProfileId` and the
/// launching / running sets, as one entry.
struct AllocatedContainer {
    host: Rc<str>,
    /// `None` once its launch failed.
    executor: Option<ExecutorId>,
    launching: bool,
    running: bool,
}

/// The YarnAllocator actor.
pub struct YarnAllocator {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: Option<EndpointRef<YarnAllocatorMsg>>,
    peers: AllocatorPeers,
    attempt_id: ApplicationAttemptId,
    resource: Resource,
    asks: AskTable<AllocatorPending>,
    ready: bool,
    in_flight: bool,
    allocate_again: bool,
    target: u32,
    pending: u32,
    add_requests: u32,
    remove_requests: u32,
    releases: Vec<ContainerId>,
    starting: u32,
    /// Executors whose container is running (Spark's `runningExecutorsPerResourceProfileId`).
    running: u32,
    executor_id_counter: u32,
    /// The containers executors were launched in, until YARN reports them completed.
    containers: BTreeMap<ContainerId, AllocatedContainer>,
    /// `executorIdToContainer`, by executor id (ids are handed out in order).
    executor_to_container: DenseMap<ExecutorId, ContainerId>,
    /// One copy of each host name, shared by the containers on it.
    hosts: BTreeSet<Rc<str>>,
    released: BTreeSet<ContainerId>,
    failures: VecDeque<u64>,
    host_failures: BTreeMap<String, VecDeque<u64>>,
    exclusions: Exclusions,
    loss_reasons: BTreeMap<ExecutorId, ExecutorLossReason>,
    pending_loss_requests: BTreeMap<ExecutorId, Vec<AskContext>>,
    /// The asks in `pending_loss_requests`, counted as they come and are answered.
    pending_loss_asks: u32,
    num_cluster_nodes: u32,
    shutdown: bool,
    rm_failure: Option<String>,
}

impl YarnAllocator {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        attempt_id: ApplicationAttemptId,
        peers: AllocatorPeers,
    ) -> EndpointRef<YarnAllocatorMsg> {
        let s = &sim.config.spark;
        let resource = Resource {
            memory_mb: s.executor_container_memory_mb(),
            vcores: s.executor_cores,
        };
        let target = s.initial_target_executors();
        let mut out = None;
        YarnAllocator::create(|ctx| {
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
                asks: AskTable::default(),
                ready: false,
                in_flight: false,
                allocate_again: false,
                target,
                pending: 0,
                add_requests: 0,
                remove_requests: 0,
                releases: Vec::new(),
                starting: 0,
                running: 0,
                executor_id_counter: 0,
                containers: BTreeMap::new(),
                executor_to_container: DenseMap::default(),
                hosts: BTreeSet::new(),
                released: BTreeSet::new(),
                failures: VecDeque::new(),
                host_failures: BTreeMap::new(),
                exclusions: Exclusions::new(&s.exclude_nodes),
                loss_reasons: BTreeMap::new(),
                pending_loss_requests: BTreeMap::new(),
                pending_loss_asks: 0,
                num_cluster_nodes: 0,
                shutdown: false,
                rm_failure: None,
            }
        });
        out.expect("create runs its closure")
    }

    fn settings(&self) -> &SparkSettings {
        &self.sim.config.spark
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
            YarnAllocatorMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            YarnAllocatorMsg::RequestTotalExecutors(ask, req) => self.on_request_total(ask, req),
            YarnAllocatorMsg::KillExecutors(ask, ids) => self.on_kill_executors(ask, ids),
            YarnAllocatorMsg::GetExecutorLossReason(ask, id) => self.on_get_loss_reason(ask, id),
            YarnAllocatorMsg::SetShutdown => self.shutdown = true,
            YarnAllocatorMsg::ExecutorLaunched {
                executor_id: _,
                container_id,
            } => {
                self.starting = self.starting.saturating_sub(1);
                if let Some(c) = self.containers.get_mut(&container_id)
                    && c.launching
                {
                    c.launching = false;
                    self.set_running(&container_id, true);
                }
            }
            YarnAllocatorMsg::ExecutorLaunchFailed {
                executor_id,
                container_id,
                error,
            } => {
                self.starting = self.starting.saturating_sub(1);
                if let Some(c) = self.containers.get_mut(&container_id) {
                    // The host stays known for the completion's texts; the executor is gone.
                    c.launching = false;
                    c.executor = None;
                }
                self.executor_to_container.remove(executor_id);
                warn!(
                    self.env.log(),
                    TARGET,
                    "Failed to launch executor {executor_id} on container {container_id}: {error}"
                );
                self.release(container_id);
            }
        }
    }

    /// `allocateResources()`: one RM heartbeat; a call while one is in flight runs right after.
    fn allocate_resources(&mut self, ctx: &mut Context<Self>) {
        if !self.ready || self.in_flight {
            self.allocate_again = true;
            return;
        }
        self.update_resource_requests();
        let req = AllocateRequest {
            attempt_id: self.attempt_id,
            response_id: 0,
            progress_permille: 100,
            priority: 0,
            capability: self.resource,
            add_requests: std::mem::take(&mut self.add_requests),
            remove_requests: std::mem::take(&mut self.remove_requests),
            releases: std::mem::take(&mut self.releases),
            blacklist_additions: self.exclusion_additions(),
            blacklist_removals: Vec::new(),
        };
        self.in_flight = true;
        let rm = self.peers.rm.clone();
        let me = self.me_id();
        let timeout = AskTimeout::new(
            self.sim.config.spark.network_timeout_ms,
            "yarn.resourcemanager.connect.max-wait.ms",
        );
        self.ask(ctx, me, &rm, AllocatorPending::Allocate, &timeout, |a| {
            ResourceManagerMsg::Allocate(a, req)
        });
    }

    /// `updateResourceRequests()`: missing = target - pending - running - starting.
    fn update_resource_requests(&mut self) {
        let have = self.pending + self.running + self.starting;
        let log = self.env.log().clone();
        if self.target > have {
            let missing = self.target - have;
            info!(
                log,
                TARGET,
                "Will request {missing} executor container(s) for  ResourceProfile Id: 0, each with {} core(s) and {} MB memory.",
                self.resource.vcores,
                self.resource.memory_mb
            );
            self.pending += missing;
            self.add_requests += missing;
            info!(
                log,
                TARGET, "Submitted {missing} unlocalized container requests."
            );
        } else if have > self.target && self.pending > 0 {
            let cancel = self.pending.min(have - self.target);
            info!(
                log,
                TARGET,
                "Canceling requests for {cancel} executor container(s) to have a new desired total {} executors.",
                self.target
            );
            self.pending -= cancel;
            self.remove_requests += cancel;
        }
    }

    fn on_allocate_response(&mut self, resp: AllocateResponse, ctx: &mut Context<Self>) {
        self.num_cluster_nodes = resp.num_cluster_nodes;
        self.handle_allocated_containers(resp.allocated_containers);
        self.process_completed_containers(resp.completed_containers);
        self.after_allocate(ctx);
    }

    fn after_allocate(&mut self, ctx: &mut Context<Self>) {
        self.in_flight = false;
        let report = AllocatorReport {
            num_executors_failed: self.num_executors_failed(),
            num_pending_allocate: self.pending,
            num_pending_loss_reason_requests: self.pending_loss_asks,
            num_cluster_nodes: self.num_cluster_nodes,
            num_excluded_nodes: self.exclusions.count(crate::kernel::clock::now_ms()) as u32,
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

    /// `handleAllocatedContainers`: each container takes an outstanding request, or is released.
    fn handle_allocated_containers(&mut self, containers: Vec<Container>) {
        let total = containers.len();
        let mut matched = Vec::with_capacity(total);
        for c in containers {
            if self.pending > 0 {
                self.pending -= 1;
                matched.push(c);
            } else {
                self.release(c.id);
            }
        }
        let launched = self.run_allocated_containers(matched);
        if total > 0 {
            info!(
                self.env.log(),
                TARGET,
                "Received {total} containers from YARN, launching executors on {launched} of them."
            );
        }
    }

    /// `runAllocatedContainers`: a new executor id per container; launch while under target.
    fn run_allocated_containers(&mut self, containers: Vec<Container>) -> usize {
        let mut launched = 0;
        for c in containers {
            self.executor_id_counter += 1;
            let id = ExecutorId(self.executor_id_counter);
            let host = self.intern_host(&c.node_id.host);
            info!(
                self.env.log(),
                TARGET,
                "Launching container {} on host {host} for executor with ID {id} for ResourceProfile Id 0",
                c.id
            );
            let running = self.running;
            if running >= self.target {
                info!(
                    self.env.log(),
                    TARGET,
                    "Skip launching executorRunnable as running executors count: {running} reached target executors count: {}.",
                    self.target
                );
                continue;
            }
            self.starting += 1;
            launched += 1;
            let allocated = AllocatedContainer {
                host,
                executor: Some(id),
                launching: true,
                running: false,
            };
            self.containers.insert(c.id, allocated);
            self.executor_to_container.insert(id, c.id);
            self.sim.counters.borrow_mut().executors_launched += 1;
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
        launched
    }

    fn release(&mut self, cid: ContainerId) {
        self.released.insert(cid);
        self.releases.push(cid);
    }

    /// Adds the container's executor to the running ones or takes it out (a set: twice is once).
    fn set_running(&mut self, cid: &ContainerId, running: bool) {
        let Some(c) = self.containers.get_mut(cid) else {
            return;
        };
        if c.running != running {
            c.running = running;
            if running {
                self.running += 1;
            } else {
                self.running -= 1;
            }
        }
    }

    fn intern_host(&mut self, host: &str) -> Rc<str> {
        if let Some(h) = self.hosts.get(host) {
            return h.clone();
        }
        let h: Rc<str> = Rc::from(host);
        self.hosts.insert(h.clone());
        h
    }

    /// `processCompletedContainers`: Spark's classification of every completed container.
    fn process_completed_containers(&mut self, statuses: Vec<ContainerStatus>) {
        for status in statuses {
            self.process_completed(status);
        }
    }

    fn process_completed(&mut self, status: ContainerStatus) {
        let cid = status.container_id;
        if let Some(c) = self.containers.get_mut(&cid) {
            c.launching = false;
        }
        let already_released = self.released.remove(&cid);
        let host = self.containers.get(&cid).map(|c| c.host.clone());
        let reason = if already_released {
            let text = format!("Container {cid} exited from explicit termination request.");
            ExecutorLossReason::Exited {
                exit_code: status.exit_status,
                exit_caused_by_app: false,
                reason: text,
            }
        } else {
            match self.containers.get(&cid).and_then(|c| c.executor) {
                Some(_) => self.set_running(&cid, false),
                None => warn!(
                    self.env.log(),
                    TARGET, "Cannot find executorId for container: {cid}"
                ),
            }
            let on_host = host
                .as_ref()
                .map(|h| format!(" on host: {h}"))
                .unwrap_or_default();
            info!(
                self.env.log(),
                TARGET,
                "Completed container {cid}{on_host} (state: {}, exit status: {})",
                status.state,
                status.exit_status
            );
            let (by_app, text) = self.classify(&status, &on_host, host.as_deref());
            if by_app {
                warn!(self.env.log(), TARGET, "{text}");
            } else {
                info!(self.env.log(), TARGET, "{text}");
            }
            ExecutorLossReason::Exited {
                exit_code: status.exit_status,
                exit_caused_by_app: by_app,
                reason: text,
            }
        };
        // A released container leaves `running` as it was (the kill already took it out).
        let Some(eid) = self.containers.remove(&cid).and_then(|c| c.executor) else {
            return;
        };
        self.executor_to_container.remove(eid);
        match self.pending_loss_requests.remove(&eid) {
            Some(asks) => {
                self.pending_loss_asks -= asks.len() as u32;
                for a in asks {
                    self.env.reply(a, ReplyValue::LossReason(reason.clone()));
                }
            }
            None => {
                self.loss_reasons.insert(eid, reason.clone());
            }
        }
        if !already_released {
            let attempt = self.attempt_id.attempt_id;
            self.sim.counters.borrow_mut().executors_lost.push((
                eid.0,
                attempt,
                status.exit_status,
                reason.to_string(),
            ));
            self.env.dispatcher.trace(
                TraceKind::State(format!("executor {eid} lost: {}", status.exit_status)),
                "YarnAllocator",
            );
            self.env.send(
                &self.peers.driver,
                YarnSchedulerMsg::RemoveExecutor {
                    executor_id: eid,
                    reason,
                },
            );
        }
    }

    /// The first matching row of Spark's table: (exitCausedByApp, loss message).
    fn classify(
        &mut self,
        status: &ContainerStatus,
        on_host: &str,
        host: Option<&str>,
    ) -> (bool, String) {
        let cid = status.container_id;
        let code = status.exit_status;
        if self.shutdown {
            return (
                false,
                format!("Executor for container {cid} exited after Application shutdown."),
            );
        }
        match code {
            exit_status::SUCCESS => (
                false,
                format!(
                    "Executor for container {cid} exited because of a YARN event (e.g., preemption) and not because of an error in the running job."
                ),
            ),
            exit_status::PREEMPTED => (false, format!("Container {cid}{on_host} was preempted.")),
            exit_status::KILLED_EXCEEDED_VMEM => (
                true,
                format!(
                    "Container killed by YARN for exceeding virtual memory limits. {} Consider boosting spark.executor.memoryOverhead or boosting yarn.nodemanager.vmem-pmem-ratio or disabling yarn.nodemanager.vmem-check-enabled because of YARN-4714.",
                    memory_usage(&status.diagnostics, "virtual")
                ),
            ),
            exit_status::KILLED_EXCEEDED_PMEM => (
                true,
                format!(
                    "Container killed by YARN for exceeding physical memory limits. {} Consider boosting spark.executor.memoryOverhead.",
                    memory_usage(&status.diagnostics, "physical")
                ),
            ),
            exit_status::KILLED_BY_RESOURCEMANAGER
            | exit_status::KILLED_BY_APPMASTER
            | exit_status::KILLED_AFTER_APP_COMPLETION
            | exit_status::ABORTED
            | exit_status::DISKS_FAILED => (
                false,
                format!(
                    "Container marked as failed: {cid}{on_host}. Exit status: {code}. Possible causes: {} Diagnostics: {}.",
                    explain_exit_code(code),
                    status.diagnostics
                ),
            ),
            _ => {
                self.handle_resource_allocation_failure(host);
                (
                    true,
                    format!(
                        "Container from a bad node: {cid}{on_host}. Exit status: {code}. Possible causes: {} Diagnostics: {}.",
                        explain_exit_code(code),
                        status.diagnostics
                    ),
                )
            }
        }
    }

    /// `YarnAllocatorNodeHealthTracker.handleResourceAllocationFailure`.
    fn handle_resource_allocation_failure(&mut self, host: Option<&str>) {
        let now = crate::kernel::clock::now_ms();
        self.sim.counters.borrow_mut().executor_failures_counted += 1;
        match host {
            Some(h)
                if self.settings().launch_exclude_on_failure && !self.exclusions.contains(h) =>
            {
                let list = self.host_failures.entry(h.to_string()).or_default();
                list.push_back(now);
                let n = list.len() as u32;
                self.failures.push_back(now);
                if n > self.settings().max_failed_executors_per_node {
                    info!(
                        self.env.log(),
                        "am::YarnAllocatorNodeHealthTracker",
                        "excluding {h} as YARN allocation failed {n} times"
                    );
                    let until = now + self.settings().exclude_on_failure_timeout_ms;
                    self.exclusions.insert(h, until);
                }
            }
            _ => self.failures.push_back(now),
        }
    }

    /// `ExecutorFailureTracker.numFailedExecutors`, dropping failures older than the validity interval.
    fn num_executors_failed(&mut self) -> u32 {
        if let Some(window) = self.settings().executor_failures_validity_interval_ms {
            let now = crate::kernel::clock::now_ms();
            while self.failures.front().is_some_and(|t| *t + window < now) {
                self.failures.pop_front();
            }
        }
        self.failures.len() as u32
    }

    /// Hosts newly excluded since the last sync (`updateBlacklist` additions, sorted).
    fn exclusion_additions(&mut self) -> Vec<String> {
        let additions = self.exclusions.additions(crate::kernel::clock::now_ms());
        if !additions.is_empty() {
            info!(
                self.env.log(),
                "am::YarnAllocatorNodeHealthTracker",
                "adding nodes to YARN application master's excluded node list: {additions:?}"
            );
        }
        additions
    }

    fn on_request_total(&mut self, ask: AskContext, req: RequestExecutors) {
        let total = req
            .resource_profile_to_total_execs
            .iter()
            .find(|(rp, _)| *rp == 0)
            .map(|(_, n)| *n)
            .unwrap_or(0);
        if total != self.target {
            info!(
                self.env.log(),
                TARGET,
                "Driver requested a total number of {total} executor(s) for resource profile id: 0."
            );
            self.target = total;
        }
        self.env.reply(ask, ReplyValue::Bool(true));
    }

    fn on_kill_executors(&mut self, ask: AskContext, ids: Vec<ExecutorId>) {
        for id in ids {
            match self.executor_to_container.get(id).copied() {
                Some(cid) => {
                    self.set_running(&cid, false);
                    self.release(cid);
                }
                None => warn!(
                    self.env.log(),
                    TARGET, "Attempted to kill unknown executor {id}!"
                ),
            }
        }
        self.env.reply(ask, ReplyValue::Bool(true));
    }

    fn on_get_loss_reason(&mut self, ask: AskContext, id: ExecutorId) {
        if self.executor_to_container.contains(id) {
            self.pending_loss_requests.entry(id).or_default().push(ask);
            self.pending_loss_asks += 1;
        } else if let Some(reason) = self.loss_reasons.remove(&id) {
            self.env.reply(ask, ReplyValue::LossReason(reason));
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

/// The `X GB of Y GB <kind> memory used.` fragment of a NodeManager memory-kill diagnostic.
fn memory_usage(diagnostics: &str, kind: &str) -> String {
    let needle = format!(" {kind} memory used");
    let Some(end) = diagnostics.find(&needle) else {
        return String::new();
    };
    let head = &diagnostics[..end];
    // Walk back over "<n> <u>B of <n> <u>B".
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == ' '))
        .map_or(0, |i| i + 1);
    format!(
        "{} {kind} memory used.",
        head[start..].trim_start_matches(|c: char| !c.is_ascii_digit())
    )
}

/// `ExecutorExitCode.explainExitCode`.
pub fn explain_exit_code(code: i32) -> String {
    match code {
        50 => "Uncaught exception".into(),
        51 => "Uncaught exception, and logging the exception failed".into(),
        52 => "OutOfMemoryError".into(),
        53 => "Failed to create local directory (bad spark.local.dir?)".into(),
        54 => "ExternalBlockStore failed to initialize.".into(),
        55 => "ExternalBlockStore failed to create a local temporary directory.".into(),
        56 => "Unable to send heartbeats to driver.".into(),
        57 => "Executor killed by TaskReaper.".into(),
        58 => "Executor killed due to a failure of block manager re-registration.".into(),
        n if n > 128 => format!(
            "Unknown executor exit code ({n}) (died from signal {}?)",
            n - 128
        ),
        n => format!("Unknown executor exit code ({n})"),
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
            AllocatorPending::LastExecutorId,
            &timeout,
            YarnSchedulerMsg::RetrieveLastAllocatedExecutorId,
        );
    }
}

impl Endpoint for YarnAllocator {
    fn env(&self) -> &RpcEnv {
        &self.env
    }
}

impl Asker for YarnAllocator {
    type Pending = AllocatorPending;

    fn asks(&mut self) -> &mut AskTable<AllocatorPending> {
        &mut self.asks
    }

    fn on_answer(
        &mut self,
        what: AllocatorPending,
        result: Result<ReplyValue, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        match (what, result) {
            (AllocatorPending::LastExecutorId, Ok(ReplyValue::Int(n))) => {
                self.executor_id_counter = n.max(0) as u32;
                self.ready = true;
                if std::mem::take(&mut self.allocate_again) {
                    self.allocate_resources(ctx);
                }
            }
            (AllocatorPending::LastExecutorId, _) => {
                self.ready = true;
                if std::mem::take(&mut self.allocate_again) {
                    self.allocate_resources(ctx);
                }
            }
            (AllocatorPending::Allocate, Ok(ReplyValue::Allocate(resp))) => {
                self.on_allocate_response(resp, ctx)
            }
            (AllocatorPending::Allocate, other) => {
                let text = match other {
                    Err(e) => e.to_string(),
                    Ok(v) => format!("unexpected reply {}", <&str>::from(&v)),
                };
                self.rm_failure = Some(text);
                self.after_allocate(ctx);
            }
        }
    }
}

crate::endpoint_handler!(YarnAllocator, YarnAllocatorMsg, on_message);
crate::endpoint_lifecycle!(YarnAllocator);

/// `ApplicationMaster.createAllocator`: the YarnAllocator, whose launches start
/// ExecutorRunnables against the container's NodeManager.
pub fn create_allocator(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    attempt_id: ApplicationAttemptId,
    driver_url: String,
    rm: EndpointRef<ResourceManagerMsg>,
    driver: EndpointRef<YarnSchedulerMsg>,
    am: EndpointRef<ApplicationMasterMsg>,
) -> EndpointRef<YarnAllocatorMsg> {
    let (sim2, env2) = (sim.clone(), env.clone());
    // One copy of the strings every executor's arguments carry.
    let driver_url: Arc<str> = driver_url.into();
    let app: Arc<str> = attempt_id.application_id.to_string().into();
    let launch = Rc::new(
        move |c: Container, id, allocator: EndpointRef<YarnAllocatorMsg>| {
            let nm = env2.dispatcher.lookup_named(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explains_exit_codes_like_spark() {
        assert_eq!(explain_exit_code(52), "OutOfMemoryError");
        assert_eq!(
            explain_exit_code(137),
            "Unknown executor exit code (137) (died from signal 9?)"
        );
        assert_eq!(explain_exit_code(-100), "Unknown executor exit code (-100)");
    }

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

    #[test]
    fn extracts_memory_usage() {
        let d = "Container [pid=1,containerID=c] is running 1B beyond the 'PHYSICAL' memory limit. Current usage: 2.8 GB of 2.5 GB physical memory used; 4.8 GB of 5.3 GB virtual memory used. Killing container.";
        assert_eq!(
            memory_usage(d, "physical"),
            "2.8 GB of 2.5 GB physical memory used."
        );
        assert_eq!(
            memory_usage(d, "virtual"),
            "4.8 GB of 5.3 GB virtual memory used."
        );
        assert_eq!(memory_usage("nothing", "virtual"), "");
    }
}
