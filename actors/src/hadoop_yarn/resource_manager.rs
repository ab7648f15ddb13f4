//! The YARN ResourceManager actor: the shell around the applications' and attempts' lifecycles
//! (`RMAppImpl`, `RMAppAttemptImpl`: the plain state machines of `rm_app` and `rm_app_attempt`,
//! whose effects it carries out), the CapacityScheduler's container assignment on NodeManager
//! heartbeats, the AMLauncher, the ApplicationMasterService (register / allocate / finish), the
//! AMLivelinessMonitor and the ClientRMService calls (reports, `forceKillApplication`).

use crate::hadoop_yarn::capacity_scheduler::{
    AllocationLimits, CapacityScheduler, GrantedPriority, InvalidRequest, Killed,
};
use crate::hadoop_yarn::decommissioning_nodes_watcher::{
    DecommissioningNode, DecommissioningNodeStatus, check_decommissioning_status,
};
use crate::hadoop_yarn::rm_app::{AppEffect, AppRules, FailedAttemptsLog, RmApp};
use crate::hadoop_yarn::rm_app_attempt::{MasterServiceRefusal, am_launch_failed_diagnostics};
use crate::hadoop_yarn::rm_container::{self, RmContainerState, Transition};
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
    FinalApplicationStatus as Final, Resource, RpcFailure, exit_status,
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
const RM_CONTAINER: &str = "yarn::RMContainerImpl";
/// Hadoop 3.4's `AbstractLeafQueue` logger (YARN-11024 moved `activateApplications` there).
const LEAF_QUEUE: &str = "yarn::AbstractLeafQueue";

/// What the RM keeps of a NodeManager besides the scheduler's view (`RMNodeImpl`), at the
/// scheduler's node index.
struct RmNode {
    nm: Option<EndpointRef<NodeManagerMsg>>,
    /// Containers the RM completed that the NM is to kill (`containersToClean`).
    cleanup: Vec<ContainerId>,
    /// Applications in a final state that ran here, for the NM to finish
    /// (`finishedApplications`).
    finished_apps: Vec<ApplicationId>,
    last_heartbeat_ms: u64,
    /// Set while the node is DECOMMISSIONING: the applications that had containers on it when
    /// it started (`DecommissioningNodesWatcher` waits for them to finish).
    decommissioning: Option<BTreeSet<ApplicationId>>,
}

/// The current attempt's allocate traffic (`ApplicationMasterService`'s last response and
/// `SchedulerApplicationAttempt`'s lists), reset with each new attempt.
#[derive(Default)]
struct AttemptTraffic {
    newly_allocated: Vec<Container>,
    completed: Vec<ContainerStatus>,
    response_id: u64,
    /// An ask the scheduler refused: AMRMClient keeps it and sends it with every later
    /// allocate call, which the RM refuses again.
    invalid_ask: Option<InvalidRequest>,
}

/// What the RM keeps of an application: its lifecycle (`RMAppImpl` and its attempts, a plain
/// state machine) and what the actor around it needs.
struct AppEntry {
    core: RmApp,
    submission: Box<ApplicationSubmissionContext>,
    traffic: AttemptTraffic,
    /// Node reports not yet pulled by an allocate call (`pullRMNodeUpdates`).
    updated_nodes: Vec<NodeReport>,
    /// Its current attempt waits for `activateApplications` (the AM limits).
    awaiting_activation: bool,
    /// The nodes (scheduler indices) whose NM reported one of its containers
    /// (`RMAppImpl.ranNodes`, filled by `RMAppRunningOnNodeEvent`): its end is sent to them.
    ran_nodes: BTreeSet<usize>,
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
    apps: BTreeMap<ApplicationId, AppEntry>,
    asks: AskTable<RmAnswer>,
    /// Every container that has completed (a second completion is a broken invariant).
    completed: BTreeSet<ContainerId>,
    /// Containers the RM completed before their NM reported them (released by their AM, or
    /// killed with their attempt): that report completes nothing (`getRMContainer` is null), it
    /// only frees the room a running one held.
    completed_early: BTreeSet<ContainerId>,
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
            if y.gpu_resource_type {
                scheduler.set_gpu_type(y.gpu_maximum_allocation);
            }
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
                completed_early: BTreeSet::new(),
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
            ResourceManagerMsg::KillApplication { id, from_host } => {
                self.force_kill_application(id, &from_host)
            }
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
        sub.application_type = application_type(&sub.application_type);
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
        let rules = AppRules::new(
            sub.max_app_attempts,
            self.sim.config.yarn.am_max_attempts,
            sub.attempt_failures_validity_interval_ms,
        );
        let now = crate::kernel::clock::now_epoch_ms();
        let core = RmApp::submitted(id, rules, self.rm_web(), now);
        let (queue, user) = (sub.queue.clone(), sub.user.clone());
        let entry = AppEntry {
            core,
            submission: sub,
            traffic: AttemptTraffic::default(),
            updated_nodes: Vec::new(),
            awaiting_activation: false,
            ran_nodes: BTreeSet::new(),
        };
        self.apps.insert(id, entry);
        self.env.reply(ask, ());
        let effects = match self.apps.get_mut(&id) {
            // CapacityScheduler.addApplication: APP_REJECTED for a queue it does not know.
            Some(app) if self.sim.config.yarn.queue(&queue).is_none() => {
                let why = unknown_queue_diagnostics(id, &user, &queue);
                app.core.reject(why, now)
            }
            Some(app) => app.core.accept(),
            None => return,
        };
        self.carry_out(id, effects);
    }

    /// The RM's web address, `http://host:port` (its proxy and application pages).
    fn rm_web(&self) -> String {
        format!("http://{}:{RM_WEB_PORT}", self.sim.config.rm_host)
    }

    /// Carries out an application's transition effects, in order.
    fn carry_out(&mut self, id: ApplicationId, effects: Vec<AppEffect>) {
        for effect in effects {
            self.carry_out_one(id, effect);
        }
    }

    fn carry_out_one(&mut self, id: ApplicationId, effect: AppEffect) {
        let log = self.env.log().clone();
        match effect {
            AppEffect::StateChanged { from, to } => {
                info!(log, TARGET, "{id} State change from {from} to {to}");
                self.env
                    .trace_state("RMApp", || StateChange::AppState { app: id, state: to });
                if to.is_terminal() {
                    self.clean_app_on_nodes(id);
                }
            }
            AppEffect::AttemptStarted(attempt) => self.start_attempt(attempt),
            AppEffect::Unregistered {
                attempt,
                final_status,
            } => {
                self.scheduler.stop_asking(attempt);
                let user = self.apps.get(&id).map(|a| a.submission.user.as_str());
                let outcome = if final_status == Final::Succeeded {
                    "Succeeded"
                } else {
                    "Failed"
                };
                info!(
                    log,
                    "yarn::RMAuditLogger",
                    "USER={}\tOPERATION=Application Finished - {outcome}\tTARGET=RMAppManager\tRESULT=SUCCESS\tAPPID={id}",
                    user.unwrap_or_default()
                );
            }
            AppEffect::AttemptFinished(attempt) => {
                info!(
                    log,
                    TARGET, "{attempt} State change from FINISHING to FINISHED"
                )
            }
            AppEffect::AttemptFailed {
                attempt,
                exit_status,
            } => info!(
                log,
                TARGET,
                "Updating application attempt {attempt} with final state: FAILED, and exit status: {exit_status}"
            ),
            AppEffect::FailedAttempts(FailedAttemptsLog::MaxIsOne) => info!(
                log,
                TARGET, "Max app attempts is 1 for {id}, preventing further attempts."
            ),
            AppEffect::FailedAttempts(FailedAttemptsLog::Count(n)) => {
                let Some(rules) = self.apps.get(&id).map(|a| *a.core.rules()) else {
                    return;
                };
                let window = rules
                    .validity_interval_ms
                    .filter(|ms| *ms > 0)
                    .map_or(" ".to_string(), |ms| {
                        format!(" in previous {ms} milliseconds ")
                    });
                info!(
                    log,
                    TARGET,
                    "The number of failed attempts{window}is {n}. The max attempts is {}",
                    rules.max_attempts
                );
            }
            AppEffect::AttemptKilled { attempt, stop_am } => {
                info!(
                    log,
                    TARGET,
                    "Updating application attempt {attempt} with final state: KILLED, and exit status: {}",
                    exit_status::INVALID
                );
                self.end_attempt(attempt, stop_am);
            }
            // RMAppImpl.AttemptFailedFinalStateSavedTransition: LOG.info(msg).
            AppEffect::FailedFinally => {
                if let Some(app) = self.apps.get(&id) {
                    info!(log, TARGET, "{}", app.core.diagnostics());
                }
            }
        }
    }

    /// A new attempt is SCHEDULED: the ApplicationMasterService registers it and the scheduler
    /// adds it to its queue, where it waits for activation (the AM limits) and its AM container.
    fn start_attempt(&mut self, attempt_id: ApplicationAttemptId) {
        let id = attempt_id.application_id;
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        app.traffic = AttemptTraffic::default();
        let am_resource = app.submission.am_resource;
        let now = crate::kernel::clock::now_epoch_ms();
        app.core
            .set_am_launch_diagnostics(activated_diagnostics(now, am_resource));
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
        // The log a replay takes its placement from is the first attempt's.
        let recorded = self
            .sim
            .application_config(id, |c| c.recorded_placement.clone());
        if attempt_id.attempt_id == 1
            && let Some(labels) = recorded
        {
            self.scheduler.place_as_recorded(attempt_id, &labels);
        }
        if let Some(p) = pending
            && let Some(app) = self.apps.get_mut(&id)
        {
            let date = crate::kernel::clock::format_java_date(now);
            app.core.set_am_launch_diagnostics(p.diagnostics(&date));
            app.awaiting_activation = true;
        }
        self.note_activated();
    }

    /// Logs the applications the scheduler has just activated (`AbstractLeafQueue
    /// .activateApplications`) and gives a waiting one the activated diagnostics.
    fn note_activated(&mut self) {
        // Called after every node update: nearly always there is nothing to note.
        if !self.scheduler.has_activation_news() {
            return;
        }
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
            if app.core.current_attempt_id() == Some(a.attempt)
                && std::mem::take(&mut app.awaiting_activation)
            {
                let text = activated_diagnostics(now, app.submission.am_resource);
                app.core.set_am_launch_diagnostics(text);
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
            if app.awaiting_activation && app.core.current_attempt_id() == Some(attempt) {
                let date = date.get_or_insert_with(|| crate::kernel::clock::format_java_date(now));
                app.core.set_am_launch_diagnostics(why.diagnostics(date));
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
            gpus: 0,
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
            gpus: 0,
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
        let core = &app.core;
        let report = ApplicationReport {
            application_id: id,
            current_attempt: core.current_attempt_id(),
            user: app.submission.user.clone(),
            queue: app.submission.queue.clone(),
            name: app.submission.application_name.clone(),
            host: core.am_host().map(str::to_string),
            rpc_port: core.am_rpc_port(),
            client_token: None,
            state: core.yarn_state(),
            diagnostics: core.diagnostics().to_string(),
            tracking_url: Some(core.tracking_url()),
            original_tracking_url: core.original_tracking_url().to_string(),
            start_time: core.start_time(),
            finish_time: core.finish_time(),
            final_status: core.final_status(),
            application_type: app.submission.application_type.clone(),
            application_tags: app.submission.application_tags.clone(),
            // RMAppManager: an app submitted without a priority gets the queue's default, 0.
            priority: app.submission.priority.unwrap_or(0),
        };
        self.env.reply(ask, Box::new(report));
    }

    /// The application of `attempt` if its AM may allocate (`RmApp::check_allocate`), else the
    /// exception the AM gets.
    fn allocating(&mut self, attempt: ApplicationAttemptId) -> Result<&mut AppEntry, RpcFailure> {
        let checked = match self.apps.get_mut(&attempt.application_id) {
            Some(app) => app.core.check_allocate(attempt).map(|()| app),
            None => Err(MasterServiceRefusal::NotFound),
        };
        checked.map_err(|refusal| refusal.failure(attempt))
    }

    fn on_register_am(
        &mut self,
        ask: ReplyTo<RegisterApplicationMasterResponse>,
        req: RegisterApplicationMasterRequest,
    ) {
        let attempt = req.attempt_id;
        let registered = match self.apps.get_mut(&attempt.application_id) {
            Some(app) => app
                .core
                .attempt_registered(attempt, &req.host, req.rpc_port, &req.tracking_url)
                .map(|effects| (effects, app.submission.queue.clone()))
                .map_err(|refusal| refusal.failure(attempt)),
            None => Err(MasterServiceRefusal::NotInCache.failure(attempt)),
        };
        let (effects, queue) = match registered {
            Ok(done) => done,
            Err(f) => return self.env.reply_failure(ask, f),
        };
        info!(
            self.env.log(),
            "yarn::ApplicationMasterService", "AM registration {attempt}"
        );
        if let Some(app) = self.apps.get_mut(&attempt.application_id) {
            app.core.ping(attempt, crate::kernel::clock::now_ms());
        }
        self.carry_out(attempt.application_id, effects);
        let value = RegisterApplicationMasterResponse {
            maximum_capability: self.max_capability(),
            queue,
        };
        self.env.reply(ask, value);
    }

    fn on_allocate(&mut self, ask: ReplyTo<AllocateResponse>, req: AllocateRequest) {
        let num_nodes = self.live_nodes();
        let attempt_id = req.attempt_id;
        let updated_nodes = match self.apps.get_mut(&attempt_id.application_id) {
            Some(a) => {
                // ApplicationMasterService.allocate: AMLivelinessMonitor.receivedPing comes
                // first, whether the call is then refused or not.
                a.core.ping(attempt_id, crate::kernel::clock::now_ms());
                std::mem::take(&mut a.updated_nodes)
            }
            None => Vec::new(),
        };
        let app = match self.allocating(attempt_id) {
            Ok(app) => app,
            Err(f) => return self.env.reply_failure(ask, f),
        };
        if req.add_requests > 0 || app.traffic.invalid_ask.is_some() {
            let refused = match &app.traffic.invalid_ask {
                Some(invalid) => Some(invalid.clone()),
                None => self.validate_ask(&req).err(),
            };
            if let Some(invalid) = refused {
                self.warn_label_disabled(&invalid);
                return self.refuse_ask(ask, attempt_id, invalid);
            }
        }
        let Ok(app) = self.allocating(attempt_id) else {
            return;
        };
        let traffic = &mut app.traffic;
        traffic.response_id += 1;
        let response = AllocateResponse {
            response_id: traffic.response_id,
            allocated_containers: std::mem::take(&mut traffic.newly_allocated),
            completed_containers: std::mem::take(&mut traffic.completed),
            num_cluster_nodes: num_nodes,
            updated_nodes,
        };
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
        if let Ok(app) = self.allocating(id) {
            app.traffic.invalid_ask = Some(invalid);
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

    /// `RMAppImpl.FinalTransition`: an application in a final state sends
    /// `RMNodeCleanAppEvent` to every node it ran on; each node's next heartbeat response lists
    /// it in `applicationsToCleanup` (`RMNodeImpl.CleanUpAppTransition`).
    fn clean_app_on_nodes(&mut self, id: ApplicationId) {
        let Some(app) = self.apps.get(&id) else {
            return;
        };
        for &n in &app.ran_nodes {
            let finished = &mut self.nodes[n].finished_apps;
            if !finished.contains(&id) {
                finished.push(id);
            }
        }
    }

    /// `releaseContainers`: the AM gave a container back. The scheduler completes it at once
    /// (its queue's room is free for the next allocation; see `CapacityScheduler
    /// ::release_container`), the RMContainer goes to RELEASED, its completed status (ABORTED,
    /// `SchedulerUtils.RELEASED_CONTAINER`) waits for the AM's next allocate
    /// (`RMAppAttemptImpl.justFinishedContainers`, filled through the dispatcher after this call
    /// answered) and the NM is told to kill it in its next heartbeat (`RMContainerImpl
    /// .KillTransition`: `RMNodeImpl.containersToClean`; the NM reports it as
    /// `KILLED_BY_RESOURCEMANAGER`, which the AM never sees).
    fn release_container(
        &mut self,
        attempt_id: ApplicationAttemptId,
        cid: ContainerId,
        status: i32,
        diag: &str,
    ) {
        if !self.has_attempt(attempt_id) || cid.attempt != attempt_id {
            return;
        }
        let Some((node, running)) = self.scheduler.release_container(cid) else {
            return;
        };
        // RMContainerImpl: ACQUIRED until the NM reports it RUNNING (the LAUNCHED event).
        let from = RmContainerState::live(true, running);
        self.complete_early(cid, node, rm_container::release(from));
        let completed = ContainerStatus {
            container_id: cid,
            state: ContainerState::Complete,
            exit_status: status,
            diagnostics: diag.to_string(),
        };
        self.report_completed(attempt_id, completed);
    }

    /// `RMContainerImpl.handle`'s line for a container that changed state.
    fn log_rm_container(&self, cid: ContainerId, t: Transition) {
        let line = rm_container::transition_line(cid, t);
        info!(self.env.log(), RM_CONTAINER, "{line}");
    }

    /// The invariant that no early completion (a release, an attempt's end) frees a node's room
    /// twice or never.
    fn check_accounted(&self, node: usize) {
        let (used, expected) = self.scheduler.node_accounting(node);
        let host = &self.scheduler.node(node).node_id.host;
        let check = invariants::node_accounted(host, used, expected);
        self.sim.violations.check(inv::NODE_ACCOUNTED, check);
    }

    /// Queues a completed container's status for the attempt's next allocate response, if the
    /// attempt is its application's current one and still hears of completions.
    fn report_completed(&mut self, attempt_id: ApplicationAttemptId, status: ContainerStatus) {
        let Some(app) = self.apps.get_mut(&attempt_id.application_id) else {
            return;
        };
        let reports = app
            .core
            .attempt(attempt_id)
            .is_some_and(|a| a.reports_completed_containers());
        if reports && app.core.current_attempt_id() == Some(attempt_id) {
            app.traffic.completed.push(status);
        }
    }

    fn on_finish_am(
        &mut self,
        ask: ReplyTo<FinishApplicationMasterResponse>,
        req: FinishApplicationMasterRequest,
    ) {
        let attempt = req.attempt_id;
        let now = crate::kernel::clock::now_epoch_ms();
        let unregistered = match self.apps.get_mut(&attempt.application_id) {
            Some(app) => app
                .core
                .attempt_unregistered(
                    attempt,
                    req.final_status,
                    &req.diagnostics,
                    &req.tracking_url,
                    now,
                )
                .map_err(|refusal| refusal.failure(attempt)),
            None => Err(MasterServiceRefusal::NotInCache.failure(attempt)),
        };
        match unregistered {
            Ok(effects) => self.carry_out(attempt.application_id, effects),
            Err(f) => return self.env.reply_failure(ask, f),
        }
        self.env.reply(
            ask,
            FinishApplicationMasterResponse {
                is_unregistered: true,
            },
        );
    }

    /// Whether `attempt` is one of its application's attempts.
    fn has_attempt(&self, attempt: ApplicationAttemptId) -> bool {
        self.apps
            .get(&attempt.application_id)
            .is_some_and(|a| a.core.attempt(attempt).is_some())
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
            finished_apps: Vec::new(),
            last_heartbeat_ms: crate::kernel::clock::now_ms(),
            decommissioning: None,
        });
    }

    fn on_node_heartbeat(&mut self, req: NodeHeartbeatRequest, ctx: &mut Context<Self>) {
        let Some(idx) = self.scheduler.node_index(&req.node_id.host) else {
            return;
        };
        self.nodes[idx].last_heartbeat_ms = crate::kernel::clock::now_ms();
        // nodeUpdate: the newly launched containers first, then the completed ones.
        for cid in req.launched_containers {
            self.ran_on_node(idx, cid);
            self.scheduler.container_launched(idx, cid);
        }
        for status in req.completed_containers {
            self.ran_on_node(idx, status.container_id);
            self.on_container_completed(idx, status);
        }
        self.note_activated();
        self.schedule(idx, ctx);
        self.check_decommissioned(idx);
        let cleanup = std::mem::take(&mut self.nodes[idx].cleanup);
        let apps = std::mem::take(&mut self.nodes[idx].finished_apps);
        if !(cleanup.is_empty() && apps.is_empty())
            && let Some(nm) = self.nodes[idx].nm.clone()
        {
            let resp = NodeHeartbeatResponse {
                response_id: req.response_id,
                containers_to_cleanup: cleanup,
                applications_to_cleanup: apps,
            };
            self.env
                .send(&nm, NodeManagerMsg::NodeHeartbeatResponse(resp));
        }
    }

    /// `RMNodeImpl.handleContainerStatus`: a node that reports a container of an application
    /// not yet running there sends `RMAppRunningOnNodeEvent` (the application's `ranNodes`).
    fn ran_on_node(&mut self, node: usize, cid: ContainerId) {
        if let Some(app) = self.apps.get_mut(&cid.attempt.application_id) {
            app.ran_nodes.insert(node);
        }
    }

    /// `nodeUpdate`: the scheduler places waiting AM containers and outstanding asks on the
    /// node; AM containers are launched (the AMLauncher), the others go to the next allocate.
    fn schedule(&mut self, node: usize, ctx: &mut Context<Self>) {
        for a in self.scheduler.node_update(node) {
            let n = self.scheduler.node(a.node);
            let check = invariants::node_capacity(&n.node_id.host, a.node_used, n.total);
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
            } else if let Some(app) = self.apps.get_mut(&a.attempt.application_id) {
                app.traffic.newly_allocated.push(a.container);
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
        let cid = container.id;
        app.core.am_container_allocated(attempt_id, cid);
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

    fn on_container_completed(&mut self, node: usize, status: ContainerStatus) {
        let cid = status.container_id;
        let attempt_id = cid.attempt;
        if self.tenants.contains_key(&attempt_id) {
            self.scheduler.complete_container(node, cid);
            return;
        }
        if self.scheduler.live_container(attempt_id, cid).is_none() {
            return self.on_unknown_container_completed(node, status);
        }
        let Some(app) = self.apps.get_mut(&attempt_id.application_id) else {
            return;
        };
        let Some(attempt) = app.core.attempt(attempt_id) else {
            return;
        };
        let is_am = attempt.is_am_container(cid);
        let knew_it = !self.completed.insert(cid);
        self.sim.violations.container_completed(cid, knew_it);
        if !self.scheduler.complete_container(node, cid) {
            return;
        }
        if is_am {
            self.on_am_container_finished(status);
        } else {
            self.report_completed(attempt_id, status);
        }
    }

    /// `AbstractYarnScheduler.updateCompletedContainers` for a container with no RMContainer
    /// (`getRMContainer` is null: the RM completed it at its release or its attempt's end, or
    /// never knew it): `completedContainer` logs that and completes nothing; the node's room a
    /// running one held comes back (`SchedulerNode.releaseContainer(id, true)`). The end of an
    /// AM container completed with its attempt is still the run's record of when and how that
    /// AM ended.
    fn on_unknown_container_completed(&mut self, node: usize, status: ContainerStatus) {
        let cid = status.container_id;
        let early = self.completed_early.remove(&cid);
        if early {
            self.scheduler.finish_held(node, cid);
            self.check_accounted(node);
        }
        info!(
            self.env.log(),
            "yarn::AbstractYarnScheduler",
            "Container {cid} completed with event FINISHED, but corresponding RMContainer doesn't exist."
        );
        let attempt = cid.attempt;
        let is_am = early
            && self
                .apps
                .get(&attempt.application_id)
                .and_then(|a| a.core.attempt(attempt))
                .is_some_and(|a| a.is_am_container(cid));
        if is_am {
            let event = RunEvent::AmContainerCompleted {
                attempt: attempt.attempt_id,
                exit_status: status.exit_status,
            };
            self.sim.observe_app(attempt.application_id, event);
        }
    }

    /// The AM container ended: the scheduler completes its attempt's containers and lets it
    /// go; then the application finishes (it had unregistered), gets a new attempt, or fails
    /// once the attempts are used up (`RmApp::am_container_finished`).
    fn on_am_container_finished(&mut self, status: ContainerStatus) {
        let attempt_id = status.container_id.attempt;
        let id = attempt_id.application_id;
        self.sim.observe_app(
            id,
            RunEvent::AmContainerCompleted {
                attempt: attempt_id.attempt_id,
                exit_status: status.exit_status,
            },
        );
        self.done_attempt(attempt_id, false);
        // LeafQueue.finishApplicationAttempt runs activateApplications at once.
        self.note_activated();
        let now = crate::kernel::clock::now_epoch_ms();
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        let effects = app.core.am_container_finished(attempt_id, &status, now);
        self.carry_out(id, effects);
    }
}

/// `FiCaSchedulerApp.getActivedAppDiagnosticMessage` as sparkyard has always shown it: the
/// application is activated and waits for its AM container.
fn activated_diagnostics(now_epoch_ms: u64, am_resource: Resource) -> String {
    format!(
        "[{}] Application is Activated, waiting for resources to be assigned for AM.  Details : AM Partition = <DEFAULT_PARTITION> ; AM Resource Request = {} ; ",
        crate::kernel::clock::format_java_date(now_epoch_ms),
        am_resource
    )
}

/// `ClientRMService.forceKillApplication`'s message (Hadoop 3.4): the caller's UGI
/// (`<user> (auth:SIMPLE)`, no Kerberos in the simulator) and its address.
pub fn kill_diagnostics(id: ApplicationId, user: &str, ip: &str) -> String {
    format!("Kill application {id} received from {user} (auth:SIMPLE) at {ip}")
}

/// `CapacityScheduler.addApplication` for a queue it does not know.
pub fn unknown_queue_diagnostics(id: ApplicationId, user: &str, queue: &str) -> String {
    format!("Application {id} submitted by user {user} to unknown queue: {queue}")
}

impl ResourceManager {
    /// `NMLivelinessMonitor`: a NodeManager silent for `yarn.nm.liveness-monitor.expiry-interval-ms`
    /// is LOST; its containers complete as ABORTED.
    fn expire_nodes(&mut self) {
        let now = crate::kernel::clock::now_ms();
        let expiry = self.sim.config.yarn.nm_liveness_expiry_interval_ms;
        let lost: Vec<usize> = (0..self.nodes.len())
            .filter(|i| {
                !self.scheduler.node(*i).lost
                    && now.saturating_sub(self.nodes[*i].last_heartbeat_ms) > expiry
            })
            .collect();
        for idx in lost {
            self.lose_node(idx);
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

    /// `DecommissioningNodesWatcher`: a DECOMMISSIONING node with no active container left and
    /// no running application that had containers on it is DECOMMISSIONED and leaves the
    /// cluster (`decommissioning_nodes_watcher`). Its active containers are those its NM runs:
    /// the scheduler's live ones there, and those the RM completed early whose room the node
    /// holds until the NM reports them gone (`SchedulerNode::held`).
    fn check_decommissioned(&mut self, idx: usize) {
        let Some(apps) = &self.nodes[idx].decommissioning else {
            return;
        };
        let running = |id: &ApplicationId| {
            self.apps
                .get(id)
                .is_some_and(|a| !a.core.yarn_state().is_terminal())
        };
        let node = self.scheduler.node(idx);
        let watched = DecommissioningNode {
            active_containers: node.containers.len() + node.held.len(),
            running_apps: apps.iter().filter(|a| running(a)).count(),
        };
        if check_decommissioning_status(watched) != DecommissioningNodeStatus::Ready {
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
            if !app.core.yarn_state().is_terminal() {
                app.updated_nodes.push(NodeReport {
                    host: host.to_string(),
                    state,
                });
            }
        }
    }

    fn lose_node(&mut self, idx: usize) {
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
            self.on_container_completed(idx, status);
        }
    }
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
        ctx.run_interval(crate::kernel::clock::ms((expiry / 3).max(1)), |act, _| {
            act.expire_nodes()
        });
        // So does the AMLivelinessMonitor (AbstractLivelinessMonitor: monitorInterval =
        // expireInterval / 3).
        let expiry = self.sim.config.yarn.am_liveness_expiry_interval_ms;
        ctx.run_interval(crate::kernel::clock::ms((expiry / 3).max(1)), |act, _| {
            act.expire_attempts()
        });
    }
}

impl ResourceManager {
    fn answered(&mut self, answer: RmAnswer, _ctx: &mut Context<Self>) {
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
            None => {
                info!(
                    self.env.log(),
                    "yarn::AMLauncher", "Done launching container {cid} for AM {attempt_id}"
                );
                if let Some(app) = self.apps.get_mut(&attempt_id.application_id) {
                    let now = crate::kernel::clock::now_ms();
                    app.core.am_launched(attempt_id, now);
                }
            }
            Some(error) => self.am_launch_failed(attempt_id, cid, &error),
        }
    }

    /// `AMLauncher.onAMLaunchFailed`: `startContainers` for the AM container failed (its
    /// NodeManager is gone, or did not answer within the RPC timeout), so the attempt gets
    /// LAUNCH_FAILED with the launcher's text. The container never ran: the scheduler takes it
    /// back at once (`AppAttemptRemovedSchedulerEvent`), and the application retries or fails.
    fn am_launch_failed(
        &mut self,
        attempt_id: ApplicationAttemptId,
        cid: ContainerId,
        error: &str,
    ) {
        let id = attempt_id.application_id;
        let node = self
            .apps
            .get(&id)
            .filter(|a| a.core.current_attempt_id() == Some(attempt_id))
            .and_then(|_| self.scheduler.live_container(attempt_id, cid));
        let Some(node) = node else {
            return;
        };
        let message = am_launch_failed_diagnostics(attempt_id, error);
        info!(self.env.log(), "yarn::AMLauncher", "{message}");
        let knew_it = !self.completed.insert(cid);
        self.sim.violations.container_completed(cid, knew_it);
        self.scheduler.complete_container(node, cid);
        self.sim.observe_app(
            id,
            RunEvent::AmContainerCompleted {
                attempt: attempt_id.attempt_id,
                exit_status: exit_status::INVALID,
            },
        );
        self.end_attempt(attempt_id, false);
        let now = crate::kernel::clock::now_epoch_ms();
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        let effects = app.core.launch_failed(attempt_id, message, now);
        self.carry_out(id, effects);
    }

    /// `ClientRMService.forceKillApplication` (`yarn application -kill <id>`, run by the
    /// application's user on `from_host`): the KILL event with Hadoop's message, `Kill
    /// application <id> received from <user> (auth:SIMPLE) at <ip>`; nothing once the final
    /// state is stored (`isAppFinalStateStored`: FINISHING is reported FINISHED) or for an
    /// application the RM does not know.
    fn force_kill_application(&mut self, id: ApplicationId, from_host: &str) {
        let Some(app) = self.apps.get(&id) else {
            return;
        };
        if app.core.yarn_state().is_terminal() {
            return;
        }
        let user = app.submission.user.clone();
        let ip = self.sim.host_ip(from_host);
        let message = kill_diagnostics(id, &user, &ip);
        // RMAppImpl.auditLogKillEvent, on the kill-by-client event.
        info!(
            self.env.log(),
            "yarn::RMAuditLogger",
            "USER={user}\tIP={ip}\tOPERATION=Kill Application Request\tTARGET=RMAppImpl\tRESULT=SUCCESS\tAPPID={id}"
        );
        let now = crate::kernel::clock::now_epoch_ms();
        let Some(app) = self.apps.get_mut(&id) else {
            return;
        };
        let effects = app.core.kill(&message, now);
        self.carry_out(id, effects);
    }

    /// `AMLivelinessMonitor` (every third of `yarn.am.liveness-monitor.expiry-interval-ms`):
    /// an attempt whose AM has not registered or called allocate for longer than the interval
    /// EXPIRES (`Expired:<attempt> Timed out after <n> secs`): its AM container is stopped, its
    /// containers killed, and it FAILS (`ExpiredTransition`), counted toward the maximum of
    /// attempts.
    fn expire_attempts(&mut self) {
        let now = crate::kernel::clock::now_ms();
        let expiry = self.sim.config.yarn.am_liveness_expiry_interval_ms;
        let expired: Vec<ApplicationAttemptId> = self
            .apps
            .values()
            .filter_map(|a| a.core.expired_attempt(now, expiry))
            .collect();
        for attempt in expired {
            info!(
                self.env.log(),
                "yarn::AMLivelinessMonitor",
                "Expired:{attempt} Timed out after {} secs",
                expiry / 1000
            );
            self.end_attempt(attempt, true);
            let now = crate::kernel::clock::now_epoch_ms();
            let id = attempt.application_id;
            let Some(app) = self.apps.get_mut(&id) else {
                continue;
            };
            let effects = app.core.expire(attempt, now);
            self.carry_out(id, effects);
        }
    }

    /// An attempt ended by the RM (`BaseFinalTransition`): the scheduler completes its
    /// containers and lets it go, and with `stop_am` the AMLauncher's CLEANUP stops its AM
    /// container (`done_attempt`).
    fn end_attempt(&mut self, attempt: ApplicationAttemptId, stop_am: bool) {
        self.done_attempt(attempt, stop_am);
        // LeafQueue.finishApplicationAttempt runs activateApplications at once.
        self.note_activated();
    }

    /// `RMAppAttemptImpl.BaseFinalTransition` sends `AppAttemptRemovedSchedulerEvent`
    /// (keepContainers false: Spark's Client never asks to keep them), and
    /// `CapacityScheduler.doneApplicationAttempt` completes every live container of the
    /// attempt at once (`CapacityScheduler::done_application_attempt`: its queue's room back
    /// now, its node's once the NM reports a running one gone) with a KILL: each RMContainer
    /// goes to KILLED (`rm_container::kill`), and one its AM had pulled is put in its node's
    /// `containersToClean`, which the NM kills as `KILLED_BY_RESOURCEMANAGER`. With `stop_am`
    /// the AMLauncher's CLEANUP also stops the AM container (`stopContainers`, at once: the NM
    /// kills it as `KILLED_BY_APPMASTER` before the heartbeat's cleanup reaches it). Their
    /// completed statuses go to the ended attempt's `justFinishedContainers`, which no AM pulls
    /// any more: no later attempt hears of them.
    fn done_attempt(&mut self, attempt: ApplicationAttemptId, stop_am: bool) {
        let Some(app) = self.apps.get(&attempt.application_id) else {
            return;
        };
        let Some(a) = app.core.attempt(attempt) else {
            return;
        };
        // The AM container is pulled when it is allocated (`AMContainerAllocatedTransition`);
        // an executor's, by the AM's allocate that returns it.
        let pulled = |id: ContainerId| !app.traffic.newly_allocated.iter().any(|c| c.id == id);
        let killed: Vec<(Killed, Transition, bool)> = self
            .scheduler
            .done_application_attempt(attempt)
            .into_iter()
            .map(|k| {
                let from = RmContainerState::live(pulled(k.id), k.running);
                (k, rm_container::kill(from), a.is_am_container(k.id))
            })
            .collect();
        for (k, t, is_am) in killed {
            self.complete_early(k.id, k.node, t);
            if is_am && stop_am {
                self.stop_am_container(k.node, k.id);
            }
        }
    }

    /// A live container the RM completed before its NM reported it (a release, its attempt's
    /// end): the RMContainer's line, its node's `containersToClean` where `KillTransition` puts
    /// it there, and the NM's later report of it completes nothing (`completed_early`). Checks
    /// that it completes once and that its node's room is accounted for.
    fn complete_early(&mut self, cid: ContainerId, node: usize, t: Transition) {
        self.log_rm_container(cid, t);
        if t.cleans_node {
            self.nodes[node].cleanup.push(cid);
        }
        self.completed_early.insert(cid);
        let knew_it = !self.completed.insert(cid);
        self.sim.violations.container_completed(cid, knew_it);
        self.check_accounted(node);
    }

    /// `AMLauncher.cleanup`: `stopContainers` on the AM container's NodeManager.
    fn stop_am_container(&mut self, node: usize, cid: ContainerId) {
        if let Some(nm) = self.nodes[node].nm.clone() {
            self.env.send(&nm, NodeManagerMsg::StopContainer(cid));
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

/// `YarnConfiguration.APPLICATION_TYPE_LENGTH`.
const APPLICATION_TYPE_LENGTH: usize = 20;

/// ClientRMService.submitApplication (Hadoop 3.4): an application type longer than
/// `APPLICATION_TYPE_LENGTH` is cut to it (`substring(0, 20)`) before the RMApp exists, so the
/// report and the RM's listing show the cut type.
fn application_type(submitted: &str) -> String {
    submitted.chars().take(APPLICATION_TYPE_LENGTH).collect()
}

#[cfg(test)]
mod application_type_tests {
    use super::application_type;

    /// Spark's ClientSuite "specify a more specific type for the application": YARN cuts a type
    /// beyond 20 characters (ClientRMService.submitApplication), keeps shorter ones as given.
    #[test]
    fn an_application_type_beyond_twenty_characters_is_cut() {
        assert_eq!(application_type(""), "");
        assert_eq!(application_type(" "), " ");
        assert_eq!(application_type("SPARK-SQL"), "SPARK-SQL");
        assert_eq!(
            application_type("012345678901234567890123"),
            "01234567890123456789"
        );
    }
}
