//! The YARN ResourceManager: applications and attempts (`RMAppImpl`, `RMAppAttemptImpl`), the
//! CapacityScheduler's container assignment on NodeManager heartbeats, the AMLauncher, the
//! ApplicationMasterService (register / allocate / finish) and the ClientRMService calls.

use crate::hadoop_yarn::capacity_scheduler::{
    AllocationLimits, CapacityScheduler, GrantedPriority, InvalidRequest,
};
use crate::info;
use crate::kernel::trace::StateChange;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::world::addresses::{RM_WEB_PORT, nm_process_name};
use crate::world::context::ClusterContext;
use crate::world::invariants::{self, name as inv};
use crate::world::observer::RunEvent;
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use sparkyard_messages::node_manager::{
    NodeHeartbeatResponse, NodeManagerMsg, StartContainerRequest,
};
use sparkyard_messages::records::{
    ApplicationReport, ApplicationSubmissionContext, Container, ContainerState, ContainerStatus,
    FinalApplicationStatus as Final, Resource, RpcFailure, YarnApplicationState as State,
    exit_status,
};
use sparkyard_messages::resource_manager::*;
use sparkyard_messages::rpc::{
    AllocateResponse, EndpointId, FinishApplicationMasterResponse, GetClusterMetricsResponse,
    GetNewApplicationResponse, NodeReport, NodeState, RegisterApplicationMasterResponse, ReplyTo,
    StartContainersResponse,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

const TARGET: &str = "yarn::ResourceManager";
const SCHED: &str = "yarn::CapacityScheduler";
/// Hadoop 3.4's `AbstractLeafQueue` logger (YARN-11024 moved `activateApplications` there).
const LEAF_QUEUE: &str = "yarn::AbstractLeafQueue";

/// What the RM keeps of a NodeManager besides the scheduler's view (`RMNodeImpl`), at the
/// scheduler's node index.
struct RmNode {
    nm: Option<EndpointRef<NodeManagerMsg>>,
    cleanup: Vec<(ContainerId, i32)>,
    last_heartbeat_ms: u64,
    /// Set while the node is DECOMMISSIONING: the applications that had containers on it when
    /// it started (`DecommissioningNodesWatcher` waits for them to finish).
    decommissioning: Option<BTreeSet<ApplicationId>>,
}

struct RmAttempt {
    id: ApplicationAttemptId,
    am_container: Option<Container>,
    registered: bool,
    unregistered: bool,
    newly_allocated: Vec<Container>,
    completed: Vec<ContainerStatus>,
    response_id: u64,
    /// The AM container's exit status once it completed (`getAMContainerExitStatus`).
    am_exit_status: Option<i32>,
    /// When the attempt failed (epoch ms, `RMAppAttemptImpl.getFinishTime`); 0 while running.
    finish_time: u64,
    /// An ask the scheduler refused: AMRMClient keeps it and sends it with every later
    /// allocate call, which the RM refuses again.
    invalid_ask: Option<InvalidRequest>,
}

struct RmApp {
    submission: Box<ApplicationSubmissionContext>,
    state: State,
    final_status: Final,
    diagnostics: String,
    start_time: u64,
    finish_time: u64,
    max_attempts: u32,
    attempts: Vec<RmAttempt>,
    am_host: Option<String>,
    am_rpc_port: i32,
    tracking_url: Option<String>,
    /// The current attempt's `originalTrackingUrl` (RMAppAttemptImpl), `N/A` until set.
    original_tracking_url: String,
    /// Node reports not yet pulled by an allocate call (`pullRMNodeUpdates`).
    updated_nodes: Vec<NodeReport>,
    /// Its current attempt waits for `activateApplications` (the AM limits).
    awaiting_activation: bool,
}

impl RmApp {
    fn current(&mut self) -> Option<&mut RmAttempt> {
        self.attempts.last_mut()
    }
}

/// What the RM hears back from a NodeManager: the AMLauncher's `startContainers` for an
/// attempt's AM container.
pub enum RmAnswer {
    LaunchAm {
        attempt_id: ApplicationAttemptId,
        container_id: ContainerId,
        result: Result<StartContainersResponse, RpcFailure>,
    },
}

/// The ResourceManager actor.
pub struct ResourceManager {
    sim: Rc<ClusterContext>,
    env: RpcEnv,
    me: EndpointId,
    next_app: u32,
    /// Indexed as the scheduler's nodes.
    nodes: Vec<RmNode>,
    /// Nodes, asks and container placement (the CapacityScheduler).
    scheduler: CapacityScheduler,
    apps: BTreeMap<ApplicationId, RmApp>,
    asks: AskTable<RmAnswer>,
    /// Every container that has completed (a second completion is a broken invariant).
    completed: BTreeSet<ContainerId>,
    /// Other tenants' applications (the cluster file's `[[tenants]]`, by index), which hold
    /// scheduler resources but run nothing on the NodeManagers.
    tenants: BTreeMap<ApplicationAttemptId, usize>,
}

impl ResourceManager {
    /// Starts the RM in its own process; returns its endpoint.
    pub fn start(sim: Rc<ClusterContext>, env: RpcEnv) -> EndpointRef<ResourceManagerMsg> {
        let mut endpoint = None;
        ResourceManager::create(|ctx| {
            let mut env = env;
            let r = env.setup_endpoint(
                "ResourceManager",
                &ctx.address(),
                Some(ResourceManagerMsg::AskReply),
            );
            let me = r.id;
            endpoint = Some(r);
            let y = &sim.config.yarn;
            let limits = AllocationLimits {
                minimum_mb: y.minimum_allocation_mb,
                maximum_mb: y.maximum_allocation_mb,
                minimum_vcores: y.minimum_allocation_vcores,
                maximum_vcores: y.maximum_allocation_vcores,
            };
            let mut scheduler = CapacityScheduler::with_queues(limits, &y.queues);
            scheduler.set_heartbeat_assignments(y.heartbeat_assignments);
            scheduler.set_locality_delays(y.locality_delays);
            scheduler.set_node_labels(&node_labels(&sim.config.nodes));
            ResourceManager {
                sim,
                env,
                me,
                next_app: 0,
                nodes: Vec::new(),
                scheduler,
                apps: BTreeMap::new(),
                asks: AskTable::default(),
                completed: BTreeSet::new(),
                tenants: BTreeMap::new(),
            }
        });
        endpoint.expect("create runs its closure")
    }

    /// How many NodeManagers are not LOST, kept as nodes register and are lost (the allocate
    /// call of every AM heartbeat reads it; counting the nodes there was O(cluster) a call).
    fn live_nodes(&self) -> u32 {
        self.scheduler.live_nodes()
    }

    fn cluster_timestamp(&self) -> u64 {
        self.sim.config.rm_start_time_ms
    }

    fn max_capability(&self) -> Resource {
        self.scheduler.maximum_allocation()
    }

    fn on_message(&mut self, msg: ResourceManagerMsg, ctx: &mut Context<Self>) {
        match msg {
            ResourceManagerMsg::GetClusterMetrics(ask) => {
                let n = self.live_nodes();
                self.env.reply(
                    ask,
                    GetClusterMetricsResponse {
                        num_node_managers: n,
                    },
                );
            }
            ResourceManagerMsg::GetNewApplication(ask) => self.on_get_new_application(ask),
            ResourceManagerMsg::SubmitApplication(ask, sub) => self.on_submit_application(ask, sub),
            ResourceManagerMsg::GetApplicationReport(ask, id) => {
                self.on_get_application_report(ask, id)
            }
            ResourceManagerMsg::RegisterApplicationMaster(ask, req) => {
                self.on_register_am(ask, req)
            }
            ResourceManagerMsg::Allocate(ask, req) => self.on_allocate(ask, req),
            ResourceManagerMsg::FinishApplicationMaster(ask, req) => self.on_finish_am(ask, req),
            ResourceManagerMsg::RegisterNodeManager(req) => self.on_register_node_manager(req),
            ResourceManagerMsg::NodeHeartbeat(req) => self.on_node_heartbeat(req, ctx),
            ResourceManagerMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            ResourceManagerMsg::DecommissionNode { host } => self.decommission_node(&host),
        }
    }

    fn on_get_new_application(&mut self, ask: ReplyTo<GetNewApplicationResponse>) {
        self.next_app += 1;
        let application_id = ApplicationId {
            cluster_timestamp: self.cluster_timestamp(),
            id: self.next_app,
        };
        let value = GetNewApplicationResponse {
            application_id,
            maximum_capability: self.max_capability(),
        };
        self.env.reply(ask, value);
    }

    fn on_submit_application(
        &mut self,
        ask: ReplyTo<()>,
        mut sub: Box<ApplicationSubmissionContext>,
    ) {
        let id = sub.application_id;
        let rm_max = self.sim.config.yarn.am_max_attempts;
        // RMAppImpl's constructor: an individual maximum outside [1, global] means the global one.
        let max_attempts = match sub.max_app_attempts {
            Some(m) if m >= 1 && m <= rm_max => m,
            _ => rm_max.max(1),
        };
        // RMAppManager.validateAndCreateResourceRequest (SchedulerUtils.normalizeAndValidateRequest):
        // an AM request with a label YARN refuses or above the maximum allocation fails
        // submitApplication itself, before any RMApp exists; RMAppManager warns, ClientRMService
        // logs it and the exception goes back to the client.
        let checked = self.scheduler.normalize_and_validate(
            sub.am_resource,
            sub.am_node_label_expression.as_deref(),
            self.sim.config.yarn.node_labels_enabled,
            &sub.queue,
        );
        if let Err(invalid) = checked {
            self.warn_label_disabled(&invalid);
            crate::warn!(
                self.env.log(),
                "yarn::RMAppManager",
                "RM app submission failed in validating AM resource request for application {id}"
            );
            info!(
                self.env.log(),
                "yarn::ClientRMService", "Exception in submitting {id}"
            );
            let f = RpcFailure::new(invalid.class, invalid.message);
            return self.env.reply_failure(ask, f);
        }
        sub.priority = Some(self.grant_priority(&sub));
        info!(
            self.env.log(),
            TARGET, "Application with id {} submitted by user {}", id.id, sub.user
        );
        let tracking_url = Some(format!(
            "http://{}:{}/proxy/{id}/",
            self.sim.config.rm_host, RM_WEB_PORT
        ));
        let app = RmApp {
            submission: sub,
            state: State::Submitted,
            final_status: Final::Undefined,
            diagnostics: String::new(),
            start_time: crate::kernel::clock::now_epoch_ms(),
            finish_time: 0,
            max_attempts,
            attempts: Vec::new(),
            am_host: None,
            am_rpc_port: -1,
            tracking_url,
            original_tracking_url: NOT_AVAILABLE.to_string(),
            updated_nodes: Vec::new(),
            awaiting_activation: false,
        };
        let queue = app.submission.queue.clone();
        let user = app.submission.user.clone();
        self.apps.insert(id, app);
        self.env.reply(ask, ());
        if self.sim.config.yarn.queue(&queue).is_none() {
            return self.reject_application(id, unknown_queue_diagnostics(id, &user, &queue));
        }
        self.set_state(id, State::Accepted);
        self.new_attempt(id);
    }

    /// `RMAppImpl.AppRejectedTransition` (APP_REJECTED from the scheduler): the application
    /// fails with the scheduler's message, without any attempt.
    fn reject_application(&mut self, id: ApplicationId, message: String) {
        let now = crate::kernel::clock::now_epoch_ms();
        if let Some(app) = self.apps.get_mut(&id) {
            app.diagnostics = message;
            app.final_status = Final::Failed;
            app.finish_time = now;
        }
        self.set_state(id, State::Failed);
    }

    fn set_state(&mut self, id: ApplicationId, state: State) {
        if let Some(app) = self.apps.get_mut(&id) {
            info!(
                self.env.log(),
                TARGET, "{} State change from {} to {}", id, app.state, state
            );
            app.state = state;
            self.env
                .trace_state("RMApp", || StateChange::AppState { app: id, state });
        }
    }

    fn new_attempt(&mut self, id: ApplicationId) {
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        let attempt_id = ApplicationAttemptId::new(id, app.attempts.len() as u32 + 1);
        // A new RMAppAttemptImpl starts with originalTrackingUrl "N/A" and the proxy URL
        // (`rmContext.getAppProxyUrl` in its constructor).
        app.original_tracking_url = NOT_AVAILABLE.to_string();
        app.tracking_url = Some(format!(
            "http://{}:{RM_WEB_PORT}/proxy/{id}/",
            self.sim.config.rm_host
        ));
        app.attempts.push(RmAttempt {
            id: attempt_id,
            am_container: None,
            registered: false,
            unregistered: false,
            newly_allocated: Vec::new(),
            completed: Vec::new(),
            response_id: 0,
            am_exit_status: None,
            finish_time: 0,
            invalid_ask: None,
        });
        let am_resource = app.submission.am_resource;
        let now = crate::kernel::clock::now_epoch_ms();
        app.diagnostics = activated_diagnostics(now, am_resource);
        self.sim.observe_app(
            id,
            RunEvent::AmAttemptStarted {
                attempt: attempt_id.attempt_id,
            },
        );
        info!(
            self.env.log(),
            TARGET, "Registering app attempt : {attempt_id}"
        );
        let (queue, user) = (app.submission.queue.clone(), app.submission.user.clone());
        let am_label = app.submission.am_node_label_expression.clone();
        let pending = self.scheduler.add_attempt_labelled(
            attempt_id,
            am_resource,
            &queue,
            &user,
            am_label.as_deref(),
        );
        if let Some(p) = pending
            && let Some(app) = self.apps.get_mut(&id)
        {
            app.diagnostics = p.diagnostics(&crate::kernel::clock::format_java_date(now));
            app.awaiting_activation = true;
        }
        self.note_activated();
    }

    /// Logs the applications the scheduler has just activated (`AbstractLeafQueue
    /// .activateApplications`) and gives a waiting one the activated diagnostics.
    fn note_activated(&mut self) {
        let now = crate::kernel::clock::now_epoch_ms();
        for a in self.scheduler.take_activated() {
            let id = a.attempt.application_id;
            for limit in &a.bypassed {
                crate::warn!(
                    self.env.log(),
                    LEAF_QUEUE,
                    "{}",
                    limit.insufficient_warning()
                );
            }
            info!(
                self.env.log(),
                LEAF_QUEUE,
                "Application {id} from user: {} activated in queue: {}",
                a.user,
                a.queue_path
            );
            let Some(app) = self.apps.get_mut(&id) else {
                continue;
            };
            if app.attempts.last().is_some_and(|x| x.id == a.attempt)
                && std::mem::take(&mut app.awaiting_activation)
            {
                app.diagnostics = activated_diagnostics(now, app.submission.am_resource);
            }
        }
        self.refresh_pending_diagnostics(now);
    }

    /// FiCaSchedulerApp.updateAMContainerDiagnostics(INACTIVATED, ...): each time
    /// `activateApplications` leaves an application pending, its diagnostics are rebuilt with
    /// the time and the limits and usage of that moment (what the Client's report shows).
    fn refresh_pending_diagnostics(&mut self, now: u64) {
        // The date is formatted once, and only for an application whose diagnostics change: this
        // runs on every node update (it was 10 % of a chaos sweep's instructions).
        let mut date = None;
        for (attempt, why) in self.scheduler.take_refreshed() {
            let Some(app) = self.apps.get_mut(&attempt.application_id) else {
                continue;
            };
            if app.awaiting_activation && app.attempts.last().is_some_and(|x| x.id == attempt) {
                let date = date.get_or_insert_with(|| crate::kernel::clock::format_java_date(now));
                app.diagnostics = why.diagnostics(date);
            }
        }
    }

    /// A `[[tenants]]` application is submitted: it gets the next application id, waits for
    /// activation and its AM container in its queue like any other, and finishes after its
    /// duration.
    fn submit_tenant(&mut self, index: usize, ctx: &mut Context<Self>) {
        let t = self.sim.config.yarn.tenants[index].clone();
        self.next_app += 1;
        let app = ApplicationId {
            cluster_timestamp: self.cluster_timestamp(),
            id: self.next_app,
        };
        info!(
            self.env.log(),
            TARGET, "Application with id {} submitted by user {}", app.id, t.user
        );
        let attempt = ApplicationAttemptId::new(app, 1);
        self.tenants.insert(attempt, index);
        let am = Resource {
            memory_mb: t.am_memory_mb,
            vcores: 1,
        };
        self.scheduler
            .add_attempt_in(attempt, am, &t.queue, &t.user);
        self.note_activated();
        crate::kernel::timers::run_later(
            ctx,
            crate::kernel::clock::ms(t.duration_ms),
            move |act: &mut Self, _| act.finish_tenant(attempt),
        );
    }

    /// The tenant's AM container was placed: it asks for its containers.
    fn tenant_am_started(&mut self, attempt: ApplicationAttemptId, index: usize) {
        let t = &self.sim.config.yarn.tenants[index];
        let r = Resource {
            memory_mb: t.memory_mb,
            vcores: t.vcores,
        };
        let label = t.node_label.clone();
        self.scheduler.set_ask_label(attempt, label.as_deref());
        self.scheduler
            .update_requests(attempt, r, t.containers, 0, &[], &[]);
    }

    /// The tenant's application ends: every container it holds goes back to the cluster.
    fn finish_tenant(&mut self, attempt: ApplicationAttemptId) {
        for (cid, node) in self.scheduler.live_containers(attempt) {
            self.scheduler.complete_container(node, cid);
        }
        self.scheduler.stop_attempt(attempt);
        info!(
            self.env.log(),
            TARGET, "{} State change from RUNNING to FINISHED", attempt.application_id
        );
        self.note_activated();
    }

    fn on_get_application_report(
        &mut self,
        ask: ReplyTo<Box<ApplicationReport>>,
        id: ApplicationId,
    ) {
        let Some(app) = self.apps.get(&id) else {
            let text = format!("Application with id '{id}' doesn't exist in RM.");
            let failure = RpcFailure::new(
                "org.apache.hadoop.yarn.exceptions.ApplicationNotFoundException",
                text,
            );
            self.env.reply_failure(ask, failure);
            return;
        };
        let report = ApplicationReport {
            application_id: id,
            current_attempt: app.attempts.last().map(|a| a.id),
            user: app.submission.user.clone(),
            queue: app.submission.queue.clone(),
            name: app.submission.application_name.clone(),
            host: app.am_host.clone(),
            rpc_port: app.am_rpc_port,
            client_token: None,
            state: app.state,
            diagnostics: app.diagnostics.clone(),
            tracking_url: app.tracking_url.clone(),
            original_tracking_url: app.original_tracking_url.clone(),
            start_time: app.start_time,
            finish_time: app.finish_time,
            final_status: app.final_status,
            application_type: app.submission.application_type.clone(),
            application_tags: app.submission.application_tags.clone(),
            // RMAppManager: an app submitted without a priority gets the queue's default, 0.
            priority: app.submission.priority.unwrap_or(0),
        };
        self.env.reply(ask, Box::new(report));
    }

    /// The current attempt, if `attempt_id` is it (else the ApplicationMasterService's failure).
    fn attempt_mut(
        &mut self,
        attempt_id: ApplicationAttemptId,
    ) -> Result<&mut RmAttempt, RpcFailure> {
        let app = self.apps.get_mut(&attempt_id.application_id);
        match app
            .and_then(|a| a.attempts.last_mut())
            .filter(|a| a.id == attempt_id)
        {
            Some(a) => Ok(a),
            None => Err(RpcFailure::new(
                "org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException",
                format!(
                    "Application attempt {attempt_id} doesn't exist in ApplicationMasterService cache."
                ),
            )),
        }
    }

    fn on_register_am(
        &mut self,
        ask: ReplyTo<RegisterApplicationMasterResponse>,
        req: RegisterApplicationMasterRequest,
    ) {
        let queue;
        match self.attempt_mut(req.attempt_id) {
            Ok(a) => a.registered = true,
            Err(f) => return self.env.reply_failure(ask, f),
        }
        let id = req.attempt_id.application_id;
        {
            let app = self.apps.get_mut(&id).expect("attempt_mut found the app");
            app.am_host = Some(req.host.clone());
            app.am_rpc_port = req.rpc_port;
            let rm_web = format!("http://{}:{}", self.sim.config.rm_host, RM_WEB_PORT);
            app.tracking_url = Some(format!("{rm_web}/proxy/{id}/"));
            app.original_tracking_url = sanitize_tracking_url(&req.tracking_url);
            app.diagnostics.clear();
            queue = app.submission.queue.clone();
        }
        info!(
            self.env.log(),
            "yarn::ApplicationMasterService", "AM registration {}", req.attempt_id
        );
        self.set_state(id, State::Running);
        let value = RegisterApplicationMasterResponse {
            maximum_capability: self.max_capability(),
            queue,
        };
        self.env.reply(ask, value);
    }

    fn on_allocate(&mut self, ask: ReplyTo<AllocateResponse>, req: AllocateRequest) {
        let num_nodes = self.live_nodes();
        let updated_nodes = self
            .apps
            .get_mut(&req.attempt_id.application_id)
            .map(|a| std::mem::take(&mut a.updated_nodes))
            .unwrap_or_default();
        let attempt = match self.attempt_mut(req.attempt_id) {
            Ok(a) if a.registered && !a.unregistered => a,
            Ok(_) => {
                let text = format!(
                    "Application Master is trying to allocate before registering for: {}",
                    req.attempt_id
                );
                let f = RpcFailure::new(
                    "org.apache.hadoop.yarn.exceptions.ApplicationMasterNotRegisteredException",
                    text,
                );
                return self.env.reply_failure(ask, f);
            }
            Err(f) => return self.env.reply_failure(ask, f),
        };
        let attempt_id = attempt.id;
        if req.add_requests > 0 || attempt.invalid_ask.is_some() {
            let refused = match &attempt.invalid_ask {
                Some(invalid) => Some(invalid.clone()),
                None => self.validate_ask(&req).err(),
            };
            if let Some(invalid) = refused {
                self.warn_label_disabled(&invalid);
                return self.refuse_ask(ask, attempt_id, invalid);
            }
        }
        let Ok(attempt) = self.attempt_mut(attempt_id) else {
            return;
        };
        attempt.response_id += 1;
        let response = AllocateResponse {
            response_id: attempt.response_id,
            allocated_containers: std::mem::take(&mut attempt.newly_allocated),
            completed_containers: std::mem::take(&mut attempt.completed),
            num_cluster_nodes: num_nodes,
            updated_nodes,
        };
        let attempt_id = attempt.id;
        if req.add_requests > 0 {
            let label = req.node_label_expression.as_deref();
            self.scheduler.set_ask_label(attempt_id, label);
        }
        self.scheduler.update_requests(
            attempt_id,
            req.capability,
            req.add_requests,
            req.remove_requests,
            &req.blacklist_additions,
            &req.blacklist_removals,
        );
        self.scheduler
            .update_locality_asks(attempt_id, &req.locality_asks);
        for cid in req.releases {
            self.release_container(
                attempt_id,
                cid,
                exit_status::ABORTED,
                "Container released by application",
            );
        }
        self.env.reply(ask, response);
    }

    /// `ApplicationMasterService.allocate` on an invalid request: the exception goes back to
    /// the AM (its Reporter thread counts it) and the ask is kept as the AMRMClient keeps it.
    fn refuse_ask(
        &mut self,
        ask: ReplyTo<AllocateResponse>,
        id: ApplicationAttemptId,
        invalid: InvalidRequest,
    ) {
        let f = RpcFailure::new(invalid.class, invalid.message.clone());
        self.sim.observe_app(
            id.application_id,
            RunEvent::ExecutorAsksRefused {
                attempt: id.attempt_id,
                exception: invalid.class,
            },
        );
        if let Ok(a) = self.attempt_mut(id) {
            a.invalid_ask = Some(invalid);
        }
        self.env.reply_failure(ask, f);
    }

    /// `DefaultAMSProcessor.allocate`'s sanity check (`RMServerUtils.normalizeAndValidateRequests`
    /// in the application's queue) of the asks in `req`.
    fn validate_ask(&self, req: &AllocateRequest) -> Result<(), InvalidRequest> {
        let queue = self
            .apps
            .get(&req.attempt_id.application_id)
            .map_or("default", |a| a.submission.queue.as_str());
        self.scheduler.normalize_and_validate(
            req.capability,
            req.node_label_expression.as_deref(),
            self.sim.config.yarn.node_labels_enabled,
            queue,
        )
    }

    /// RMAppManager.createAndPopulateNewRMApp -> `checkAndGetApplicationPriority` (logged as
    /// the CapacityScheduler does): the priority the application gets, which the scheduler's
    /// FIFO ordering and the application report use.
    fn grant_priority(&mut self, sub: &ApplicationSubmissionContext) -> u32 {
        let id = sub.application_id;
        let max = self.sim.config.yarn.max_application_priority;
        let granted = GrantedPriority::check(sub.priority, max);
        if granted.defaulted {
            info!(
                self.env.log(),
                "yarn::CapacityScheduler",
                "Application '{id}' is submitted without priority hence considering default queue/cluster priority: 0"
            );
        }
        info!(
            self.env.log(),
            "yarn::CapacityScheduler",
            "Priority '{}' is acceptable in queue : {} for application: {id}",
            granted.priority,
            sub.queue
        );
        self.scheduler
            .set_application_priority(id, granted.priority);
        granted.priority
    }

    /// SchedulerUtils' warning before it throws for a label on a cluster without node labels.
    fn warn_label_disabled(&self, invalid: &InvalidRequest) {
        if invalid.labels_disabled {
            crate::warn!(
                self.env.log(),
                "yarn::SchedulerUtils",
                "NodeLabel is not enabled in cluster, but resource request contains a label expression."
            );
        }
    }

    /// The AM gave a container back: the NM kills it and the AM hears of its completion.
    fn release_container(
        &mut self,
        attempt_id: ApplicationAttemptId,
        cid: ContainerId,
        status: i32,
        diag: &str,
    ) {
        let Some(app) = self.apps.get(&attempt_id.application_id) else {
            return;
        };
        if !app.attempts.iter().any(|a| a.id == attempt_id) {
            return;
        }
        if let Some(node) = self.scheduler.live_container(attempt_id, cid) {
            self.nodes[node].cleanup.push((cid, status));
            info!(
                self.env.log(),
                SCHED, "{cid} Container Transitioned from RUNNING to RELEASED: {diag}"
            );
        }
    }

    fn on_finish_am(
        &mut self,
        ask: ReplyTo<FinishApplicationMasterResponse>,
        req: FinishApplicationMasterRequest,
    ) {
        match self.attempt_mut(req.attempt_id) {
            Ok(a) => a.unregistered = true,
            Err(f) => return self.env.reply_failure(ask, f),
        }
        let id = req.attempt_id.application_id;
        if let Some(app) = self.apps.get_mut(&id) {
            app.final_status = req.final_status;
            app.diagnostics = req.diagnostics.clone();
            // RMAppAttemptImpl.updateInfoOnAMUnregister (Hadoop 3.x keeps the proxied URL).
            app.original_tracking_url = sanitize_tracking_url(&req.tracking_url);
            app.finish_time = crate::kernel::clock::now_epoch_ms();
            self.scheduler.stop_asking(req.attempt_id);
        }
        // RMAppState FINISHING is reported as FINISHED until the AM container exits.
        self.set_state(id, State::Finished);
        let user = self.apps.get(&id).map(|a| a.submission.user.clone());
        info!(
            self.env.log(),
            "yarn::RMAuditLogger",
            "USER={}\tOPERATION=Application Finished - {}\tTARGET=RMAppManager\tRESULT=SUCCESS\tAPPID={id}",
            user.unwrap_or_default(),
            if req.final_status == Final::Succeeded {
                "Succeeded"
            } else {
                "Failed"
            }
        );
        self.env.reply(
            ask,
            FinishApplicationMasterResponse {
                is_unregistered: true,
            },
        );
    }

    fn on_register_node_manager(&mut self, req: RegisterNodeManagerRequest) {
        let nm = self
            .env
            .daemon_ref(&nm_process_name(&req.node_id.host), "NodeManager");
        info!(
            self.env.log(),
            "yarn::ResourceTrackerService",
            "NodeManager from node {}(cmPort: {} httpPort: {}) registered with capability: {}, assigned nodeId {}",
            req.node_id.host,
            req.node_id.port,
            req.http_port,
            req.total_resource,
            req.node_id
        );
        let idx = self
            .scheduler
            .add_node(req.node_id, req.rack, req.total_resource);
        debug_assert_eq!(idx, self.nodes.len());
        self.note_activated();
        self.nodes.push(RmNode {
            nm,
            cleanup: Vec::new(),
            last_heartbeat_ms: crate::kernel::clock::now_ms(),
            decommissioning: None,
        });
    }

    fn on_node_heartbeat(&mut self, req: NodeHeartbeatRequest, ctx: &mut Context<Self>) {
        let Some(idx) = self.scheduler.node_index(&req.node_id.host) else {
            return;
        };
        self.nodes[idx].last_heartbeat_ms = crate::kernel::clock::now_ms();
        for status in req.completed_containers {
            self.on_container_completed(idx, status, ctx);
        }
        self.note_activated();
        self.schedule(idx, ctx);
        self.check_decommissioned(idx);
        let cleanup = std::mem::take(&mut self.nodes[idx].cleanup);
        if !cleanup.is_empty()
            && let Some(nm) = self.nodes[idx].nm.clone()
        {
            let resp = NodeHeartbeatResponse {
                response_id: req.response_id,
                containers_to_cleanup: cleanup,
                applications_to_cleanup: Vec::new(),
            };
            self.env
                .send(&nm, NodeManagerMsg::NodeHeartbeatResponse(resp));
        }
    }

    /// `nodeUpdate`: the scheduler places waiting AM containers and outstanding asks on the
    /// node; AM containers are launched (the AMLauncher), the others go to the next allocate.
    fn schedule(&mut self, node: usize, ctx: &mut Context<Self>) {
        for a in self.scheduler.node_update(node) {
            let n = self.scheduler.node(node);
            let check = invariants::node_capacity(
                &n.node_id.host,
                a.node_used.memory_mb,
                n.total.memory_mb,
                a.node_used.vcores,
                n.total.vcores,
            );
            self.sim.violations.check(inv::NODE_CAPACITY, check);
            let (id, resource, node_id) = (a.container.id, a.container.resource, &n.node_id);
            info!(
                self.env.log(),
                SCHED, "Assigned container {id} of capacity {resource} on host {node_id}"
            );
            if let Some(&t) = self.tenants.get(&a.attempt) {
                if a.am {
                    self.tenant_am_started(a.attempt, t);
                }
            } else if a.am {
                self.launch_am(a.attempt, a.container, ctx);
            } else if let Some(attempt) = self
                .apps
                .get_mut(&a.attempt.application_id)
                .and_then(|app| app.current())
            {
                attempt.newly_allocated.push(a.container);
            }
        }
    }

    fn launch_am(
        &mut self,
        attempt_id: ApplicationAttemptId,
        container: Container,
        ctx: &mut Context<Self>,
    ) {
        let Some(app) = self.apps.get_mut(&attempt_id.application_id) else {
            return;
        };
        self.sim.observe_app(
            attempt_id.application_id,
            RunEvent::AmContainerAllocated {
                attempt: attempt_id.attempt_id,
            },
        );
        let launch_context = app.submission.am_container_spec.clone();
        app.diagnostics =
            "AM container is launched, waiting for AM container to Register with RM".into();
        let cid = container.id;
        if let Some(a) = app.current() {
            a.am_container = Some(container.clone());
        }
        let Some(nm) = self
            .env
            .daemon_ref(&nm_process_name(&container.node_id.host), "NodeManager")
        else {
            return;
        };
        info!(
            self.env.log(),
            "yarn::AMLauncher",
            "Launching masterappattempt_{}",
            &attempt_id.to_string()[11..]
        );
        let timeout = AskTimeout::new(600_000, "ipc.client.rpc-timeout.ms");
        let req = Box::new(StartContainerRequest {
            container,
            launch_context,
        });
        let me = self.me;
        self.ask(
            ctx,
            me,
            &nm,
            move |result| RmAnswer::LaunchAm {
                attempt_id,
                container_id: cid,
                result,
            },
            &timeout,
            |a| NodeManagerMsg::StartContainers(a, req),
        );
    }

    fn on_container_completed(
        &mut self,
        node: usize,
        status: ContainerStatus,
        ctx: &mut Context<Self>,
    ) {
        let cid = status.container_id;
        let attempt_id = cid.attempt;
        if self.tenants.contains_key(&attempt_id) {
            self.scheduler.complete_container(node, cid);
            return;
        }
        let Some(app) = self.apps.get_mut(&attempt_id.application_id) else {
            return;
        };
        let Some(attempt) = app.attempts.iter_mut().find(|a| a.id == attempt_id) else {
            return;
        };
        let knew_it = !self.completed.insert(cid);
        self.sim.violations.container_completed(cid, knew_it);
        if !self.scheduler.complete_container(node, cid) {
            return;
        }
        let is_am = attempt.am_container.as_ref().is_some_and(|c| c.id == cid);
        if is_am {
            self.on_am_container_finished(attempt_id, status, ctx);
        } else if !attempt.unregistered {
            attempt.completed.push(status);
        }
    }

    /// The AM container ended: the application finishes (it had unregistered), gets a new
    /// attempt, or fails once the attempts are used up.
    fn on_am_container_finished(
        &mut self,
        attempt_id: ApplicationAttemptId,
        status: ContainerStatus,
        _ctx: &mut Context<Self>,
    ) {
        let id = attempt_id.application_id;
        self.sim.observe_app(
            id,
            RunEvent::AmContainerCompleted {
                attempt: attempt_id.attempt_id,
                exit_status: status.exit_status,
            },
        );
        self.kill_attempt_containers(attempt_id, exit_status::KILLED_AFTER_APP_COMPLETION);
        self.scheduler.stop_attempt(attempt_id);
        // LeafQueue.finishApplicationAttempt runs activateApplications at once.
        self.note_activated();
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        let unregistered = app.attempts.last().is_some_and(|a| a.unregistered);
        if unregistered {
            info!(
                self.env.log(),
                TARGET, "{attempt_id} State change from FINISHING to FINISHED"
            );
            return;
        }
        let attempt_diag = am_failure_diagnostics(&self.sim.config.rm_host, attempt_id, &status);
        info!(
            self.env.log(),
            TARGET,
            "Updating application attempt {attempt_id} with final state: FAILED, and exit status: {}",
            status.exit_status
        );
        app.am_host = None;
        app.am_rpc_port = -1;
        // RMAppAttemptImpl.setTrackingUrlToRMAppPage(FAILED) ("don't leave the tracking URL
        // pointing to a non-existent AM"): both URLs become the RM's app page.
        let app_page = format!(
            "http://{}:{RM_WEB_PORT}/cluster/app/{id}",
            self.sim.config.rm_host
        );
        app.tracking_url = Some(app_page.clone());
        app.original_tracking_url = app_page;
        let now = crate::kernel::clock::now_epoch_ms();
        if let Some(a) = app.attempts.iter_mut().find(|a| a.id == attempt_id) {
            a.am_exit_status = Some(status.exit_status);
            a.finish_time = now;
        }
        let interval = app.submission.attempt_failures_validity_interval_ms;
        let failed: Vec<(i32, u64)> = app
            .attempts
            .iter()
            .filter_map(|a| a.am_exit_status.map(|s| (s, a.finish_time)))
            .collect();
        let counted = num_failed_app_attempts(&failed, now, interval);
        let decision = attempt_failed(counted, app.max_attempts);
        let rm_log = self.env.log().clone();
        match decision.log {
            FailedAttemptsLog::MaxIsOne => info!(
                rm_log,
                TARGET, "Max app attempts is 1 for {id}, preventing further attempts."
            ),
            FailedAttemptsLog::Count(n) => info!(
                rm_log,
                TARGET,
                "The number of failed attempts{}is {n}. The max attempts is {}",
                interval
                    .filter(|ms| *ms > 0)
                    .map_or(" ".to_string(), |ms| format!(
                        " in previous {ms} milliseconds "
                    )),
                app.max_attempts
            ),
        }
        if decision.retry {
            app.diagnostics = attempt_diag;
            self.set_state(id, State::Accepted);
            self.new_attempt(id);
            return;
        }
        let global = self.sim.config.yarn.am_max_attempts;
        let diagnostics =
            app_attempt_failed_diagnostics(id, app.max_attempts, global, interval, &attempt_diag);
        app.diagnostics = diagnostics.clone();
        app.final_status = Final::Failed;
        app.finish_time = now;
        // RMAppImpl.AttemptFailedFinalStateSavedTransition: LOG.info(msg).
        info!(rm_log, TARGET, "{diagnostics}");
        self.set_state(id, State::Failed);
    }

    /// Asks the NodeManagers to kill every live container of an attempt.
    fn kill_attempt_containers(&mut self, attempt_id: ApplicationAttemptId, status: i32) {
        let Some(app) = self.apps.get(&attempt_id.application_id) else {
            return;
        };
        if !app.attempts.iter().any(|a| a.id == attempt_id) {
            return;
        }
        for (cid, node) in self.scheduler.live_containers(attempt_id) {
            self.nodes[node].cleanup.push((cid, status));
        }
    }
}

/// `FiCaSchedulerApp.getActivedAppDiagnosticMessage` as sparkyard has always shown it: the
/// application is activated and waits for its AM container.
/// Hadoop's `N/A` (`RMAppAttemptImpl`'s initial tracking URLs, `ApplicationReport` defaults).
const NOT_AVAILABLE: &str = "N/A";

/// `RMAppAttemptImpl.sanitizeTrackingUrl`: a null or blank URL is `N/A`.
pub fn sanitize_tracking_url(url: &str) -> String {
    if url.trim().is_empty() {
        NOT_AVAILABLE.to_string()
    } else {
        url.to_string()
    }
}

fn activated_diagnostics(now_epoch_ms: u64, am_resource: Resource) -> String {
    format!(
        "[{}] Application is Activated, waiting for resources to be assigned for AM.  Details : AM Partition = <DEFAULT_PARTITION> ; AM Resource Request = {} ; ",
        crate::kernel::clock::format_java_date(now_epoch_ms),
        am_resource
    )
}

/// `CapacityScheduler.addApplication` for a queue it does not know.
pub fn unknown_queue_diagnostics(id: ApplicationId, user: &str, queue: &str) -> String {
    format!("Application {id} submitted by user {user} to unknown queue: {queue}")
}

impl ResourceManager {
    /// `NMLivelinessMonitor`: a NodeManager silent for `yarn.nm.liveness-monitor.expiry-interval-ms`
    /// is LOST; its containers complete as ABORTED.
    fn expire_nodes(&mut self, ctx: &mut Context<Self>) {
        let now = crate::kernel::clock::now_ms();
        let expiry = self.sim.config.yarn.nm_liveness_expiry_interval_ms;
        let lost: Vec<usize> = (0..self.nodes.len())
            .filter(|i| {
                !self.scheduler.node(*i).lost
                    && now.saturating_sub(self.nodes[*i].last_heartbeat_ms) > expiry
            })
            .collect();
        for idx in lost {
            self.lose_node(idx, ctx);
        }
    }

    /// `RMNodeImpl.DecommissioningNodeTransition` (graceful decommissioning, `yarn rmadmin
    /// -refreshNodes -g`): the node takes no new containers, its running ones finish, and every
    /// running application hears of it in its next allocate response.
    fn decommission_node(&mut self, host: &str) {
        let Some(idx) = self.scheduler.node_index(host) else {
            return;
        };
        if !self.scheduler.decommission_node(idx) {
            return;
        }
        let node_id = self.scheduler.node(idx).node_id.clone();
        let apps: BTreeSet<ApplicationId> = self
            .scheduler
            .node(idx)
            .containers
            .iter()
            .map(|c| c.attempt.application_id)
            .collect();
        self.nodes[idx].decommissioning = Some(apps);
        let log = self.env.log().clone();
        info!(
            log,
            "yarn::RMNodeImpl", "Put Node {node_id} in DECOMMISSIONING."
        );
        info!(
            log,
            "yarn::RMNodeImpl", "{node_id} Node Transitioned from RUNNING to DECOMMISSIONING"
        );
        self.report_node(host, NodeState::Decommissioning);
    }

    /// `DecommissioningNodesWatcher`: a DECOMMISSIONING node with no containers left and no
    /// running application that had containers on it is DECOMMISSIONED and leaves the cluster.
    fn check_decommissioned(&mut self, idx: usize) {
        let Some(apps) = &self.nodes[idx].decommissioning else {
            return;
        };
        let running = |id: &ApplicationId| {
            self.apps.get(id).is_some_and(|a| {
                !matches!(a.state, State::Finished | State::Failed | State::Killed)
            })
        };
        if !self.scheduler.node(idx).containers.is_empty() || apps.iter().any(running) {
            return;
        }
        self.nodes[idx].decommissioning = None;
        let node_id = self.scheduler.node(idx).node_id.clone();
        let log = self.env.log().clone();
        info!(
            log,
            "yarn::RMNodeImpl", "DECOMMISSIONING {node_id} is ready to be decommissioned"
        );
        info!(
            log,
            "yarn::RMNodeImpl",
            "{node_id} Node Transitioned from DECOMMISSIONING to DECOMMISSIONED"
        );
        let left = self.scheduler.lose_node(idx);
        debug_assert!(left.is_empty());
        self.report_node(&node_id.host, NodeState::Decommissioned);
    }

    /// Queues a node report for every application still running (`RMAppImpl` node updates).
    fn report_node(&mut self, host: &str, state: NodeState) {
        for app in self.apps.values_mut() {
            if !matches!(app.state, State::Finished | State::Failed | State::Killed) {
                app.updated_nodes.push(NodeReport {
                    host: host.to_string(),
                    state,
                });
            }
        }
    }

    fn lose_node(&mut self, idx: usize, ctx: &mut Context<Self>) {
        let node_id = self.scheduler.node(idx).node_id.clone();
        // In (application, attempt, container) order, as a walk over the apps would give.
        let on_node = self.scheduler.lose_node(idx);
        info!(
            self.env.log(),
            "yarn::NMLivelinessMonitor",
            "Expired:{node_id} Timed out after {} secs",
            self.sim.config.yarn.nm_liveness_expiry_interval_ms / 1000
        );
        info!(
            self.env.log(),
            "yarn::RMNodeImpl", "Deactivating Node {node_id} as it is now LOST"
        );
        info!(
            self.env.log(),
            "yarn::RMNodeImpl", "{node_id} Node Transitioned from RUNNING to LOST"
        );
        self.env.trace_state("RMNode", || StateChange::NodeLost {
            host: node_id.host.clone(),
        });
        for cid in on_node {
            let status = ContainerStatus {
                container_id: cid,
                state: ContainerState::Complete,
                exit_status: exit_status::ABORTED,
                diagnostics: "Container released on a *lost* node".into(),
            };
            self.on_container_completed(idx, status, ctx);
        }
    }
}

/// `RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry` (Hadoop 3.4, RMAppAttemptImpl.java): an
/// AM container that was preempted, lost with its node (ABORTED), lost its disks, or was killed
/// by the RM does not use up an attempt.
pub fn should_count_towards_max_attempt_retry(am_exit_status: i32) -> bool {
    !matches!(
        am_exit_status,
        exit_status::PREEMPTED
            | exit_status::ABORTED
            | exit_status::DISKS_FAILED
            | exit_status::KILLED_BY_RESOURCEMANAGER
    )
}

/// `RMAppImpl.getNumFailedAppAttempts` (Hadoop 3.4, RMAppImpl.java): the failed attempts that
/// count, each `(AM exit status, finish time)`, and only those that finished within the last
/// `attemptFailuresValidityInterval` ms when one is set (`finishTime > now - interval`).
pub fn num_failed_app_attempts(failed: &[(i32, u64)], now: u64, interval: Option<u64>) -> u32 {
    failed
        .iter()
        .filter(|(status, finish)| {
            should_count_towards_max_attempt_retry(*status)
                && interval.is_none_or(|ms| ms == 0 || *finish as i128 > now as i128 - ms as i128)
        })
        .count() as u32
}

/// What `RMAppImpl.AttemptFailedTransition` logs before deciding.
#[derive(Debug, PartialEq, Eq)]
pub enum FailedAttemptsLog {
    /// `Max app attempts is 1 for <app>, preventing further attempts.`
    MaxIsOne,
    /// `The number of failed attempts is N. The max attempts is M`
    Count(u32),
}

/// `RMAppImpl.AttemptFailedTransition`'s decision.
#[derive(Debug, PartialEq, Eq)]
pub struct AttemptFailedDecision {
    pub log: FailedAttemptsLog,
    /// A new attempt (`numberOfFailure < maxAppAttempts`), else the application FAILS.
    pub retry: bool,
}

/// `RMAppImpl.AttemptFailedTransition.transition` (Hadoop 3.4): with a maximum of 1 the app
/// never retries, whatever the exit status; otherwise it retries while the counted failures stay
/// below the maximum.
pub fn attempt_failed(counted: u32, max_attempts: u32) -> AttemptFailedDecision {
    if max_attempts == 1 {
        return AttemptFailedDecision {
            log: FailedAttemptsLog::MaxIsOne,
            retry: false,
        };
    }
    AttemptFailedDecision {
        log: FailedAttemptsLog::Count(counted),
        retry: counted < max_attempts,
    }
}

/// `RMAppImpl.getAppAttemptFailedDiagnostics` (Hadoop 3.4): `Application %s failed %d times%s%s
/// due to %s. Failing the application.` with the app's maximum (not the number of attempts), the
/// validity window and, when the app's own limit differs from the RM's, both limits.
pub fn app_attempt_failed_diagnostics(
    id: ApplicationId,
    max_attempts: u32,
    global_limit: u32,
    interval: Option<u64>,
    attempt_diag: &str,
) -> String {
    let window = interval.filter(|ms| *ms > 0).map_or(String::new(), |ms| {
        format!(" in previous {ms} milliseconds")
    });
    let limits = if global_limit == max_attempts {
        String::new()
    } else {
        format!(" (global limit ={global_limit}; local limit is ={max_attempts})")
    };
    format!(
        "Application {id} failed {max_attempts} times{window}{limits} due to {attempt_diag}. Failing the application."
    )
}

/// The RM's text for a failed AM attempt (note YARN's double space in `with  exitCode`).
fn am_failure_diagnostics(
    rm_host: &str,
    attempt_id: ApplicationAttemptId,
    status: &ContainerStatus,
) -> String {
    let app = attempt_id.application_id;
    format!(
        "AM Container for {attempt_id} exited with  exitCode: {}\nFailing this attempt.Diagnostics: {}\nFor more detailed output, check the application tracking page: http://{rm_host}:{RM_WEB_PORT}/cluster/app/{app} Then click on links to logs of each attempt.\n",
        status.exit_status, status.diagnostics
    )
}

impl Actor for ResourceManager {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        info!(self.env.log(), TARGET, "Transitioned to active state");
        for (i, t) in self.sim.config.yarn.tenants.iter().enumerate() {
            crate::kernel::timers::run_later(
                ctx,
                crate::kernel::clock::ms(t.start_ms),
                move |act: &mut Self, ctx| act.submit_tenant(i, ctx),
            );
        }
        // NMLivelinessMonitor checks every third of the expiry interval.
        let expiry = self.sim.config.yarn.nm_liveness_expiry_interval_ms;
        ctx.run_interval(crate::kernel::clock::ms((expiry / 3).max(1)), |act, ctx| {
            act.expire_nodes(ctx)
        });
    }
}

impl ResourceManager {
    fn answered(&mut self, answer: RmAnswer, ctx: &mut Context<Self>) {
        let RmAnswer::LaunchAm {
            attempt_id,
            container_id: cid,
            result,
        } = answer;
        let failed = match result {
            Ok(response) => response.failed.into_iter().next().map(|f| f.error),
            Err(e) => Some(e.to_string()),
        };
        match failed {
            None => info!(
                self.env.log(),
                "yarn::AMLauncher", "Done launching container {cid} for AM {attempt_id}"
            ),
            Some(error) => {
                let status = ContainerStatus {
                    container_id: cid,
                    state: ContainerState::Complete,
                    exit_status: exit_status::INVALID,
                    diagnostics: error,
                };
                let node = self
                    .apps
                    .get(&attempt_id.application_id)
                    .and_then(|a| a.attempts.last())
                    .filter(|a| a.id == attempt_id)
                    .and_then(|_| self.scheduler.live_container(attempt_id, cid));
                if let Some(node) = node {
                    self.on_container_completed(node, status, ctx);
                }
            }
        }
    }
}

crate::endpoint!(ResourceManager {
    messages: ResourceManagerMsg => on_message,
    answers: RmAnswer => answered,
});

/// The labelled NodeManagers of the cluster file, `(host, label)` (the node-label
/// configuration an administrator gives the RM: `yarn rmadmin -replaceLabelsOnNode`).
fn node_labels(nodes: &[crate::world::config::NodeSpec]) -> Vec<(String, String)> {
    nodes
        .iter()
        .filter_map(|n| Some((n.host.clone(), n.label.clone()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // RMAppAttemptImpl.sanitizeTrackingUrl: `(url == null || url.trim().isEmpty()) ? "N/A" :
    // url` (Spark's AM unregisters with "" when spark.yarn.historyServer.address is unset).
    #[test]
    fn blank_tracking_urls_are_not_available() {
        assert_eq!(sanitize_tracking_url(""), "N/A");
        assert_eq!(sanitize_tracking_url("  "), "N/A");
        assert_eq!(
            sanitize_tracking_url("h:18080/history/a/1"),
            "h:18080/history/a/1"
        );
    }

    // Hadoop 3.4 RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry; TestAMRestart
    // testShouldNotCountFailureToMaxAttemptRetry: preempted (-102), lost-node ABORTED (-100),
    // DISKS_FAILED (-101) and KILLED_BY_RESOURCEMANAGER (-106) do not use up an attempt.
    #[test]
    fn preemption_hardware_and_rm_kills_do_not_count() {
        for s in [
            exit_status::PREEMPTED,
            exit_status::ABORTED,
            exit_status::DISKS_FAILED,
            exit_status::KILLED_BY_RESOURCEMANAGER,
        ] {
            assert!(!should_count_towards_max_attempt_retry(s), "{s}");
        }
        for s in [137, 143, 1, 10, 15, exit_status::KILLED_EXCEEDED_PMEM] {
            assert!(should_count_towards_max_attempt_retry(s), "{s}");
        }
    }

    // RMAppImpl.AttemptFailedTransition: two preemptions with max-attempts 2 leave the app
    // ACCEPTED for a third attempt; a SIGKILL after them is the first counted failure.
    #[test]
    fn two_preemptions_still_leave_both_attempts() {
        let failed = [(exit_status::PREEMPTED, 10), (exit_status::PREEMPTED, 20)];
        let n = num_failed_app_attempts(&failed, 30, None);
        assert_eq!(n, 0);
        assert_eq!(
            attempt_failed(n, 2),
            AttemptFailedDecision {
                log: FailedAttemptsLog::Count(0),
                retry: true
            }
        );
        let failed = [(exit_status::PREEMPTED, 10), (137, 20), (137, 30)];
        let n = num_failed_app_attempts(&failed, 30, None);
        assert_eq!((n, attempt_failed(n, 2).retry), (2, false));
    }

    // RMAppImpl.AttemptFailedTransition: "Max app attempts is 1 for <app>, preventing further
    // attempts." even for a preempted AM.
    #[test]
    fn a_maximum_of_one_never_retries() {
        let n = num_failed_app_attempts(&[(exit_status::PREEMPTED, 1)], 2, None);
        assert_eq!(
            attempt_failed(n, 1),
            AttemptFailedDecision {
                log: FailedAttemptsLog::MaxIsOne,
                retry: false
            }
        );
    }

    // RMAppImpl.getNumFailedAppAttempts: with attemptFailuresValidityInterval set, only failures
    // with finishTime > now - interval count (TestAMRestart testAMRestartNotLostContainerAfter
    // AttemptFailuresValidityInterval's window rule).
    #[test]
    fn the_validity_interval_expires_old_failures() {
        let failed = [(137, 1_000), (137, 70_000)];
        assert_eq!(num_failed_app_attempts(&failed, 70_000, None), 2);
        assert_eq!(num_failed_app_attempts(&failed, 70_000, Some(60_000)), 1);
        // Exactly at the window's edge the failure no longer counts (strict >).
        assert_eq!(
            num_failed_app_attempts(&[(137, 10_000)], 70_000, Some(60_000)),
            0
        );
        assert_eq!(
            num_failed_app_attempts(&[(137, 10_001)], 70_000, Some(60_000)),
            1
        );
    }

    // RMAppImpl.getAppAttemptFailedDiagnostics: the app's maximum, the window, both limits.
    #[test]
    fn failed_app_diagnostics_text() {
        let id = ApplicationId {
            cluster_timestamp: 1764662400000,
            id: 1,
        };
        assert_eq!(
            app_attempt_failed_diagnostics(id, 2, 2, None, "X"),
            "Application application_1764662400000_0001 failed 2 times due to X. Failing the application."
        );
        assert_eq!(
            app_attempt_failed_diagnostics(id, 1, 2, Some(60_000), "X"),
            "Application application_1764662400000_0001 failed 1 times in previous 60000 milliseconds (global limit =2; local limit is =1) due to X. Failing the application."
        );
    }
}
