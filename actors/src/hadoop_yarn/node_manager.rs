//! A YARN NodeManager: `ContainerManagerImpl.startContainers`, localisation (once per
//! application per node: `localization`) and `launch_container.sh`, the container processes it
//! watches (`ContainerExecutor`), their exit statuses and diagnostics, and the
//! `NodeStatusUpdater` heartbeat to the RM with the kills its response asks for (containers and
//! finished applications to clean up). On a node with the GPU plugin, each container's GPUs
//! (`GpuResourceHandlerImpl.preStart` / `postComplete`, `gpu_resource_allocator`). Its
//! container events pass its one dispatcher thread, which a Docker container's stop blocks
//! (`container_manager_events`).

use super::container_manager_events::ContainerManagerEvents;
use super::container_runtime::{self, Runtime, Stop};
use super::gpu_resource_allocator::{self as gpu, GpuResourceAllocator};
use super::localization::LocalizationTracker;
use crate::info;
use crate::kernel::clock;
use crate::kernel::small_map::{SmallMap, SmallSet};
use crate::kernel::timers;
use crate::kernel::trace::StateChange;
use crate::rpc::{EndpointRef, RpcEnv};
use crate::world::addresses::{NM_LOCAL_DIR, NM_PORT, NM_WEB_PORT};
use crate::world::config::NodeSpec;
use crate::world::context::ClusterContext;
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::ids::{ApplicationId, ContainerId, NodeId};
use sparkyard_messages::jvm_text::format_fixed;
use sparkyard_messages::node_manager::{
    NodeHeartbeatResponse, NodeManagerMsg, StartContainerRequest,
};
use sparkyard_messages::records::{
    ContainerMain, ContainerState, ContainerStatus, Resource, exit_status,
};
use sparkyard_messages::resource_manager::{
    NodeHeartbeatRequest, RegisterNodeManagerRequest, ResourceManagerMsg,
};
use sparkyard_messages::rpc::{ReplyTo, StartContainersResponse};
use std::rc::Rc;

const TARGET: &str = "yarn::ContainerManagerImpl";
const GPU_ALLOCATOR: &str = "yarn::GpuResourceAllocator";

/// Starts the program a container runs (the JVM's `main`); returns the new process. Supplied by
/// the supervisor so the NodeManager never names the Spark roles it launches.
pub type Launcher =
    Rc<dyn Fn(LaunchedContainer, &EndpointRef<NodeManagerMsg>) -> Option<crate::rpc::ProcessId>>;

/// What the NodeManager hands the program it launches.
pub struct LaunchedContainer {
    pub request: Box<StartContainerRequest>,
    /// The GPUs (minor numbers, ascending) `GpuResourceAllocator` assigned the container
    /// (`GpuAllocation.getAllowedGPUs`): what its GPU isolation lets it see. Empty on a node
    /// without the GPU plugin and for a container asking for no `yarn.io/gpu`.
    pub gpu_minors: Vec<u32>,
}

/// The container events that pass the ContainerManager's dispatcher thread here: they wait
/// while a Docker container's stop blocks it.
#[derive(Debug)]
enum Dispatched {
    /// INIT_APPLICATION / INIT_CONTAINER for a started container: its localization begins.
    Localize(ContainerId),
    /// CONTAINER_LAUNCHED: its resources are there; `ContainersLauncher` launches it.
    Launch(ContainerId),
    /// KILL_CONTAINER with the exit status to report.
    Kill(ContainerId, i32),
}

enum Phase {
    Localizing,
    Running(crate::rpc::ProcessId),
    Done,
}

struct NmContainer {
    /// The launch request until the container's process starts (then only its size is needed:
    /// the command line and environment are a kilobyte per container).
    request: Option<Box<StartContainerRequest>>,
    memory_mb: u64,
    /// Its `yarn.io/gpu` (`GpuResourceAllocator.getRequestedGpus`).
    gpus: u32,
    /// The runtime its launch environment asked for: how a kill reaches its JVM.
    runtime: Runtime,
    phase: Phase,
    /// Set when the NM itself kills the container: the status it then reports.
    kill_status: Option<i32>,
}

/// The NodeManager actor.
pub struct NodeManager {
    sim: Rc<ClusterContext>,
    env: RpcEnv,
    me: Option<EndpointRef<NodeManagerMsg>>,
    spec: NodeSpec,
    rm: EndpointRef<ResourceManagerMsg>,
    launcher: Launcher,
    /// A node holds a handful of containers: a short list, not a map's 700-byte nodes.
    containers: SmallMap<ContainerId, NmContainer>,
    completed: Vec<ContainerStatus>,
    /// Containers that went RUNNING since the last heartbeat (the RM learns of them there).
    launched: Vec<ContainerId>,
    response_id: u64,
    /// The heartbeat phase: NodeManagers are spread over the interval.
    offset_ms: u64,
    /// Which applications' resources this node holds or is downloading.
    localized: LocalizationTracker,
    /// The applications a container was started for here (`Context.getApplications`).
    applications: SmallSet<ApplicationId>,
    /// The GPU plugin's allocator, on a node whose plugin found GPUs (`[[nodes]] gpus`).
    gpus: Option<GpuResourceAllocator>,
    /// The ContainerManager's dispatcher thread and the events waiting for it.
    events: ContainerManagerEvents<Dispatched>,
}

impl NodeManager {
    pub fn start(
        sim: Rc<ClusterContext>,
        env: RpcEnv,
        spec: NodeSpec,
        rm: EndpointRef<ResourceManagerMsg>,
        launcher: Launcher,
        offset_ms: u64,
    ) -> EndpointRef<NodeManagerMsg> {
        let mut out = None;
        let gpus = spec.gpus;
        NodeManager::create(|ctx| {
            let mut env = env;
            let me = env.setup_endpoint("NodeManager", &ctx.address(), None);
            out = Some(me.clone());
            NodeManager {
                sim,
                env,
                me: Some(me),
                spec,
                rm,
                launcher,
                containers: SmallMap::default(),
                completed: Vec::new(),
                launched: Vec::new(),
                response_id: 0,
                offset_ms,
                localized: LocalizationTracker::default(),
                applications: SmallSet::default(),
                gpus: (gpus > 0).then(|| GpuResourceAllocator::new(gpus)),
                events: ContainerManagerEvents::default(),
            }
        });
        out.expect("create runs its closure")
    }

    fn node_id(&self) -> NodeId {
        NodeId {
            host: self.spec.host.clone(),
            port: NM_PORT,
        }
    }

    fn on_message(&mut self, msg: NodeManagerMsg, ctx: &mut Context<Self>) {
        match msg {
            NodeManagerMsg::StartContainers(ask, req) => self.on_start_containers(ask, req, ctx),
            NodeManagerMsg::NodeHeartbeatResponse(resp) => self.on_heartbeat_response(resp, ctx),
            NodeManagerMsg::ContainerLaunched(cid) => self.dispatch(Dispatched::Launch(cid), ctx),
            NodeManagerMsg::StopContainer(cid) => self.on_stop_container(cid, ctx),
            NodeManagerMsg::KillContainer {
                container_id,
                exit_status,
            } => self.kill_container(container_id, exit_status, ctx),
            NodeManagerMsg::ContainerProcessExited {
                container_id,
                exit_code,
            } => self.on_process_exited(container_id, exit_code),
        }
    }

    fn on_start_containers(
        &mut self,
        ask: ReplyTo<StartContainersResponse>,
        req: Box<StartContainerRequest>,
        ctx: &mut Context<Self>,
    ) {
        let cid = req.container.id;
        // The submitter, as the container token names it (`getApplicationSubmitter`).
        let app = cid.attempt.application_id;
        let user = &self.sim.application_config(app, |c| c.user.clone());
        info!(
            self.env.log(),
            TARGET, "Start request for {cid} by user {user}"
        );
        // startContainerInternal audits once the container and its application are in place,
        // after the line above; the IP is the caller's (the AM's host for an executor, the RM's
        // for an AM container the AMLauncher starts).
        let caller = self.env.address_of(ask.context().reply_to).host;
        let ip = self.sim.host_ip(&caller);
        info!(
            self.env.log(),
            "yarn::NMAuditLogger",
            "{}",
            audit_success(user, &ip, START_CONTAINER, cid)
        );
        let executor = match &req.launch_context.main {
            ContainerMain::Executor(args) => Some(args.executor_id),
            ContainerMain::ApplicationMaster { .. } => None,
        };
        let memory_mb = req.container.resource.memory_mb;
        let gpus = req.container.resource.gpus;
        let runtime = Runtime::requested_by(&req.launch_context.environment);
        self.applications.insert(app);
        self.containers.insert(
            cid,
            NmContainer {
                request: Some(req),
                memory_mb,
                gpus,
                runtime,
                phase: Phase::Localizing,
                kill_status: None,
            },
        );
        self.env
            .trace_state("Container", || StateChange::ContainerLocalizing {
                container: cid,
                host: self.spec.host.clone(),
                caller: ask.context().reply_to,
                executor,
            });
        // startContainers returns once the container's events are posted; the dispatcher
        // handles them when its thread is free.
        self.env.reply(
            ask,
            StartContainersResponse {
                succeeded: vec![cid],
                failed: Vec::new(),
            },
        );
        self.dispatch(Dispatched::Localize(cid), ctx);
    }

    /// An event for the dispatcher's thread: handled now if it is free, else when the stop
    /// blocking it ends (`unblocked`).
    fn dispatch(&mut self, event: Dispatched, ctx: &mut Context<Self>) {
        if let Some(event) = self.events.offer(clock::now_ms(), event) {
            self.handle(event, ctx);
        }
    }

    fn handle(&mut self, event: Dispatched, ctx: &mut Context<Self>) {
        match event {
            Dispatched::Localize(cid) => self.localize(cid, ctx),
            Dispatched::Launch(cid) => self.on_container_launched(cid, ctx),
            Dispatched::Kill(cid, status) => self.handle_kill(cid, status, ctx),
        }
    }

    /// The thread is free again: the waiting events in order, until one blocks it anew.
    fn unblocked(&mut self, ctx: &mut Context<Self>) {
        while let Some(event) = self.events.next(clock::now_ms()) {
            self.handle(event, ctx);
        }
    }

    /// A started container's localization: its launch once the application's resources are
    /// on this node.
    fn localize(&mut self, cid: ContainerId, ctx: &mut Context<Self>) {
        let localizing = self
            .containers
            .get(&cid)
            .is_some_and(|c| matches!(c.phase, Phase::Localizing));
        if !localizing {
            return;
        }
        let launch = self.localize_and_launch_ms(cid.attempt.application_id);
        timers::notify_later(
            ctx,
            NodeManagerMsg::ContainerLaunched(cid),
            clock::ms(launch),
        );
    }

    /// From the start request to the JVM's exec: the wait for the application's resources on
    /// this node (a download if it has none yet, the end of the running one if it is under way,
    /// nothing once they are there), then `launch_container.sh`.
    fn localize_and_launch_ms(&mut self, app: ApplicationId) -> u64 {
        let (launch, download) = self.sim.application_config(app, |c| {
            (c.costs.container_launch_ms, c.costs.localization_ms)
        });
        let now = clock::now_ms();
        let ready = self.localized.request(app, now, download);
        ready - now + launch
    }

    fn on_container_launched(&mut self, cid: ContainerId, ctx: &mut Context<Self>) {
        let Some(c) = self.containers.get(&cid) else {
            return;
        };
        if !matches!(c.phase, Phase::Localizing) || self.me.is_none() {
            return;
        }
        if self.sim.faults.take_launch_failure(&self.spec.host) {
            let stamp = clock::format_yarn(clock::now_epoch_ms());
            let diag = format!(
                "[{stamp}]Container launch failed for {cid} : java.io.IOException: Failed to launch container: localization of resources failed"
            );
            crate::warn!(
                self.env.log(),
                "yarn::ContainerLaunch",
                "Failed to launch container {cid}"
            );
            return self.complete(cid, exit_status::INVALID, diag);
        }
        info!(
            self.env.log(),
            "yarn::ContainerImpl", "Container {cid} transitioned from SCHEDULED to RUNNING"
        );
        self.launch(cid, 0, ctx);
    }

    /// `ContainerLaunch` after CONTAINER_LAUNCHED: the resource handlers' `preStart` (the GPU
    /// allocator's, which may wait), then the process; `waited_ms` the GPU wait so far.
    fn launch(&mut self, cid: ContainerId, waited_ms: u64, ctx: &mut Context<Self>) {
        let gpu_minors = match self.assign_gpus(cid, waited_ms, ctx) {
            Some(Ok(minors)) => minors,
            Some(Err(message)) => return self.fail_pre_start(cid, &message),
            None => return,
        };
        let Some(me) = self.me.clone() else { return };
        let Some(request) = self.containers.get_mut(&cid).and_then(|c| c.request.take()) else {
            return;
        };
        let launch = LaunchedContainer {
            request,
            gpu_minors,
        };
        let launched = (self.launcher)(launch, &me);
        match launched {
            Some(pid) => {
                if let Some(c) = self.containers.get_mut(&cid) {
                    c.phase = Phase::Running(pid);
                    self.launched.push(cid);
                }
            }
            None => self.complete(cid, exit_status::INVALID, "Container launch failed".into()),
        }
    }

    /// `GpuResourceAllocator.assignGpus` for a container about to start: its devices, a
    /// failure's message, or `None` while it waits (retried in `WAIT_MS_PER_LOOP`). No plugin:
    /// no devices, no work.
    fn assign_gpus(
        &mut self,
        cid: ContainerId,
        waited_ms: u64,
        ctx: &mut Context<Self>,
    ) -> Option<Result<Vec<u32>, String>> {
        if self.gpus.is_none() {
            return Some(Ok(Vec::new()));
        }
        let requested = self.containers.get(&cid).map_or(0, |c| c.gpus);
        let releasing = self.releasing_gpus();
        let allocator = self.gpus.as_mut()?;
        match allocator.assign(cid, requested, releasing) {
            gpu::Assignment::Assigned(minors) => Some(Ok(minors)),
            gpu::Assignment::Failed(message) => Some(Err(message)),
            gpu::Assignment::Wait if gpu::may_wait_again(waited_ms) => {
                let log = self.env.log();
                info!(log, GPU_ALLOCATOR, "{}", gpu::waiting_line(cid));
                let again = waited_ms + gpu::WAIT_MS_PER_LOOP;
                timers::run_later(ctx, clock::ms(gpu::WAIT_MS_PER_LOOP), move |act, ctx| {
                    act.retry_launch(cid, again, ctx)
                });
                None
            }
            gpu::Assignment::Wait => {
                let message = gpu::gave_up_message(cid);
                crate::warn!(self.env.log(), GPU_ALLOCATOR, "{message}");
                Some(Err(message))
            }
        }
    }

    /// The next try of a container waiting for GPUs, unless it was killed meanwhile.
    fn retry_launch(&mut self, cid: ContainerId, waited_ms: u64, ctx: &mut Context<Self>) {
        let waiting = self
            .containers
            .get(&cid)
            .is_some_and(|c| c.request.is_some() && c.kill_status.is_none());
        if waiting {
            self.launch(cid, waited_ms, ctx);
        }
    }

    /// `getReleasingGpus`: the GPUs asked for by the holders that are in a final state (here:
    /// being killed; a finished container has given its devices back already).
    fn releasing_gpus(&self) -> u64 {
        let Some(allocator) = &self.gpus else {
            return 0;
        };
        let finishing = |cid: &ContainerId| {
            self.containers
                .get(cid)
                .filter(|c| c.kill_status.is_some())
                .map_or(0, |c| u64::from(c.gpus))
        };
        allocator.holders().iter().map(finishing).sum()
    }

    /// `LinuxContainerExecutor.launchContainer` when `preStart` throws: it logs the chain's
    /// failure with the `ResourceHandlerException` and throws
    /// `IOException("ResourceHandlerChain.preStart() failed!")`; `ContainerLaunch.call` warns
    /// with it and the container exits with failure, exit code -1 (its `ret` before any
    /// launch), that message its diagnostics. (The exceptions' stack frames are not simulated.)
    fn fail_pre_start(&mut self, cid: ContainerId, cause: &str) {
        let log = self.env.log();
        let pre_start = "ResourceHandlerChain.preStart() failed!";
        let handler = "org.apache.hadoop.yarn.server.nodemanager.containermanager.linux.resources.ResourceHandlerException";
        crate::error!(
            log,
            "yarn::LinuxContainerExecutor",
            "{pre_start}\n{handler}: {cause}"
        );
        crate::warn!(
            log,
            "yarn::ContainerLaunch",
            "Failed to launch container.\njava.io.IOException: {pre_start}"
        );
        info!(
            log,
            "yarn::ContainerImpl",
            "Container {cid} transitioned from RUNNING to EXITED_WITH_FAILURE"
        );
        self.complete(cid, -1, format!("{pre_start}\n"));
    }

    fn on_process_exited(&mut self, cid: ContainerId, exit_code: i32) {
        let Some(c) = self.containers.get(&cid) else {
            return;
        };
        let (status, diagnostics) = match c.kill_status {
            Some(status) => (
                status,
                killed_diagnostics(status, exit_code, cid, c.memory_mb),
            ),
            None => (exit_code, self.exit_diagnostics(cid, exit_code)),
        };
        let (from, to) = exit_transition(c.kill_status.is_some(), exit_code);
        info!(
            self.env.log(),
            "yarn::ContainerImpl", "Container {cid} transitioned from {from} to {to}"
        );
        self.complete(cid, status, diagnostics);
    }

    /// `DefaultContainerExecutor`'s text for a container that exited non-zero by itself.
    fn exit_diagnostics(&self, cid: ContainerId, code: i32) -> String {
        if code == 0 {
            return String::new();
        }
        let stamp = clock::format_yarn(clock::now_epoch_ms());
        let logs = self.env.logs();
        let store = logs.borrow();
        let stderr = store
            .output(&cid.to_string())
            .map(|o| o.stderr.as_str())
            .unwrap_or("");
        let tail = &stderr[floor_char_boundary(stderr, stderr.len().saturating_sub(4096))..];
        format!(
            "[{stamp}]Exception from container-launch.\nContainer id: {cid}\nExit code: {code}\n\n[{stamp}]Container exited with a non-zero exit code {code}. Error file: prelaunch.err.\nLast 4096 bytes of prelaunch.err :\nLast 4096 bytes of stderr :\n{tail}\n"
        )
    }

    fn complete(&mut self, cid: ContainerId, exit_status: i32, diagnostics: String) {
        let Some(c) = self.containers.get_mut(&cid) else {
            return;
        };
        if matches!(c.phase, Phase::Done) {
            return;
        }
        c.phase = Phase::Done;
        // postComplete: the GPU handler gives the container's devices back.
        if let Some(g) = self.gpus.as_mut() {
            g.unassign(cid);
        }
        self.env
            .trace_state("Container", || StateChange::ContainerCompleted {
                container: cid,
                exit_status,
            });
        self.completed.push(ContainerStatus {
            container_id: cid,
            state: ContainerState::Complete,
            exit_status,
            diagnostics,
        });
        self.containers.remove(&cid);
    }

    /// `ContainerManagerImpl.stopContainerInternal` for the AMLauncher's `stopContainers` (the
    /// only sender of `StopContainer`, so the caller is the RM): a container it holds is killed
    /// as KILLED_BY_APPMASTER and the stop audited; one already gone (a recently stopped
    /// container: `isContainerRecentlyStopped`) is neither killed nor audited.
    fn on_stop_container(&mut self, cid: ContainerId, ctx: &mut Context<Self>) {
        info!(
            self.env.log(),
            TARGET, "Stopping container with container Id: {cid}"
        );
        if self.containers.get(&cid).is_none() {
            return;
        }
        let app = cid.attempt.application_id;
        let user = self.sim.application_config(app, |c| c.user.clone());
        let ip = self.sim.host_ip(&self.env.address_of(self.rm.id).host);
        // Hadoop audits right after posting the kill event, before the dispatcher's ContainerImpl
        // logs its transition.
        info!(
            self.env.log(),
            "yarn::NMAuditLogger",
            "{}",
            audit_success(&user, &ip, STOP_CONTAINER, cid)
        );
        self.kill_container(cid, exit_status::KILLED_BY_APPMASTER, ctx);
    }

    /// `NodeStatusUpdaterImpl` hands the response's containers to clean to the ContainerManager
    /// first (`CMgrCompletedContainersEvent`, BY_RESOURCEMANAGER: each killed as
    /// `KILLED_BY_RESOURCEMANAGER`), then its finished applications (`CMgrCompletedAppsEvent`:
    /// `ApplicationImpl.AppFinishTriggeredTransition` kills each container the application
    /// still has here as `KILLED_AFTER_APP_COMPLETION`). A container already being killed keeps
    /// its first status (`ContainerImpl` ignores KILL_CONTAINER in KILLING).
    fn on_heartbeat_response(&mut self, resp: NodeHeartbeatResponse, ctx: &mut Context<Self>) {
        self.warn_unknown_cleanups(&resp);
        for (cid, status) in cleanup_kills(&resp, &self.containers.sorted_keys()) {
            self.kill_container(cid, status, ctx);
        }
    }

    /// `ContainerManagerImpl.handle`'s lines for what it cannot clean (`unknown_cleanups`).
    fn warn_unknown_cleanups(&self, resp: &NodeHeartbeatResponse) {
        let known = |cid: &ContainerId| self.containers.get(cid).is_some();
        for unknown in unknown_cleanups(resp, &self.applications, known) {
            match unknown {
                Unknown::AppOfContainer(app) => crate::warn!(
                    self.env.log(),
                    TARGET,
                    "couldn't find app {app} while processing FINISH_CONTAINERS event"
                ),
                Unknown::Container(cid) => crate::warn!(
                    self.env.log(),
                    TARGET,
                    "couldn't find container {cid} while processing FINISH_CONTAINERS event"
                ),
                Unknown::FinishedApp(app) => info!(
                    self.env.log(),
                    TARGET,
                    "couldn't find application {app} while processing FINISH_APPS event. The ResourceManager allocated resources for this application to the NodeManager but no active containers were found to process."
                ),
            }
        }
    }

    /// Stops a container and reports `status` for it. `ContainerLaunch.cleanupContainer`
    /// signals TERM, waits `yarn.nodemanager.sleep-delay-before-sigkill.ms`, then KILL: a JVM
    /// that gets the SIGTERM runs its shutdown hooks and exits 143; one still running then dies
    /// with 137. A Docker container under `docker stop` gets only the SIGKILL, at the grace's
    /// end (`container_runtime`). A second kill changes nothing: the first one's status and
    /// diagnostics stand (`ContainerImpl`: KILLING ignores KILL_CONTAINER).
    pub fn kill_container(&mut self, cid: ContainerId, status: i32, ctx: &mut Context<Self>) {
        self.dispatch(Dispatched::Kill(cid, status), ctx);
    }

    fn handle_kill(&mut self, cid: ContainerId, status: i32, ctx: &mut Context<Self>) {
        let Some(c) = self.containers.get_mut(&cid) else {
            return;
        };
        if c.kill_status.is_some() {
            return;
        }
        c.kill_status = Some(status);
        let runtime = c.runtime;
        match c.phase {
            Phase::Running(pid) => {
                info!(
                    self.env.log(),
                    "yarn::ContainerImpl", "Container {cid} transitioned from RUNNING to KILLING"
                );
                let stop = self.stop_for(cid.attempt.application_id, runtime);
                self.stop_process(pid, stop, ctx);
            }
            // KillBeforeRunningTransition: no process to signal, so no exit code line.
            Phase::Localizing => {
                let why = kill_reason(status, cid, c.memory_mb);
                let stamp = clock::format_yarn(clock::now_epoch_ms());
                let diagnostics = killed_before_launch_diagnostics(&why, &stamp);
                self.complete(cid, status, diagnostics)
            }
            Phase::Done => {}
        }
    }

    /// How this NodeManager stops a container of `app` launched with `runtime`.
    fn stop_for(&self, app: ApplicationId, runtime: Runtime) -> Stop {
        let grace = self
            .sim
            .application_config(app, |c| c.costs.docker_stop_grace_ms);
        let delay = self.sim.config.yarn.sleep_delay_before_sigkill_ms;
        container_runtime::stop(runtime, delay, grace)
    }

    fn stop_process(&mut self, pid: crate::rpc::ProcessId, stop: Stop, ctx: &mut Context<Self>) {
        match stop {
            // `DelayedProcessKiller`, its own thread: the dispatcher goes on.
            Stop::TermThenKill { kill_after_ms } => {
                if self.env.signal_term(pid) {
                    timers::run_later(ctx, clock::ms(kill_after_ms), move |act: &mut Self, _| {
                        act.env.kill_process(pid, 137);
                    });
                }
            }
            // `docker stop` holds the dispatcher's thread until the container is gone.
            Stop::KillAfter { kill_after_ms } => {
                let now = clock::now_ms();
                let free_at = self.events.block(now, kill_after_ms);
                timers::run_later(ctx, clock::ms(free_at - now), move |act: &mut Self, ctx| {
                    act.env.kill_process(pid, 137);
                    act.unblocked(ctx);
                });
            }
        }
    }

    fn heartbeat(&mut self) {
        self.response_id += 1;
        let req = NodeHeartbeatRequest {
            node_id: self.node_id(),
            response_id: self.response_id,
            completed_containers: std::mem::take(&mut self.completed),
            launched_containers: std::mem::take(&mut self.launched),
        };
        self.env
            .send(&self.rm, ResourceManagerMsg::NodeHeartbeat(req));
    }
}

/// `NMAuditLogger.AuditConstants.START_CONTAINER` and `STOP_CONTAINER`.
const START_CONTAINER: &str = "Start Container Request";
const STOP_CONTAINER: &str = "Stop Container Request";

/// `NMAuditLogger.createSuccessLog` for ContainerManagerImpl's container requests: tab-separated
/// `key=value` pairs in `Keys` order with the caller's address (`addRemoteIP`) second and
/// ContainerManagerImpl's target text, `ContainerManageImpl`, as Hadoop spells it.
fn audit_success(user: &str, ip: &str, operation: &str, cid: ContainerId) -> String {
    let app = cid.attempt.application_id;
    format!(
        "USER={user}\tIP={ip}\tOPERATION={operation}\tTARGET=ContainerManageImpl\tRESULT=SUCCESS\tAPPID={app}\tCONTAINERID={cid}"
    )
}

/// YARN's text for a container the NM killed on request.
fn killed_diagnostics(status: i32, exit_code: i32, cid: ContainerId, memory_mb: u64) -> String {
    let why = kill_reason(status, cid, memory_mb);
    format!(
        "{why}\nContainer killed on request. Exit code is {exit_code}\nContainer exited with a non-zero exit code {exit_code}. "
    )
}

/// `ContainerImpl.KillBeforeRunningTransition` (LOCALIZING or SCHEDULED -> KILLING): the kill's
/// own text, then "Container is killed before being launched.", each piece stamped by
/// `addDiagnostics` (`[yyyy-MM-dd HH:mm:ss.SSS]`, the kill's text and its `\n` as two pieces);
/// no "Container killed on request. Exit code is ..." as no process ran to exit.
fn killed_before_launch_diagnostics(why: &str, stamp: &str) -> String {
    format!("[{stamp}]{why}[{stamp}]\n[{stamp}]Container is killed before being launched.\n")
}

/// The diagnostic a kill of this ContainerExitStatus carries (its `ContainerKillEvent`'s text).
fn kill_reason(status: i32, cid: ContainerId, memory_mb: u64) -> String {
    let limit = memory_mb as f64;
    match status {
        // The ContainersMonitor's texts; usage a little over the limit that was crossed.
        exit_status::KILLED_EXCEEDED_PMEM => memory_kill(
            cid,
            "PHYSICAL",
            (limit * 1.08, limit),
            (limit * 1.9, limit * 2.1),
        ),
        exit_status::KILLED_EXCEEDED_VMEM => memory_kill(
            cid,
            "VIRTUAL",
            (limit * 0.9, limit),
            (limit * 2.2, limit * 2.1),
        ),
        exit_status::DISKS_FAILED => {
            "Disks failed on the NodeManager: local-dirs and log-dirs are bad".into()
        }
        // ApplicationImpl.AppFinishTriggeredTransition, with ContainerManagerImpl's diagnostic
        // for a CMgrCompletedAppsEvent BY_RESOURCEMANAGER.
        exit_status::KILLED_AFTER_APP_COMPLETION => {
            "Container killed on application-finish event: Application killed by ResourceManager"
                .into()
        }
        exit_status::ABORTED => "Container released by application".into(),
        // ContainerManagerImpl's FINISH_CONTAINERS (the heartbeat's containersToCleanup).
        exit_status::KILLED_BY_RESOURCEMANAGER => "Container Killed by ResourceManager".into(),
        exit_status::KILLED_BY_APPMASTER => "Container killed by the ApplicationMaster.".into(),
        exit_status::PREEMPTED => "Container preempted by scheduler".into(),
        _ => "Container killed on request".to_string(),
    }
}

/// What a heartbeat response names that the NM cannot clean.
#[derive(Debug, PartialEq, Eq)]
enum Unknown {
    /// A container to clean of an application that never ran here.
    AppOfContainer(ApplicationId),
    /// A container to clean its application no longer has (it exited first: `ApplicationImpl`
    /// drops a container once DONE).
    Container(ContainerId),
    /// A finished application that never ran here.
    FinishedApp(ApplicationId),
}

/// What `ContainerManagerImpl.handle` finds no object for, given the applications that ran
/// here and whether a container is still here (`present`).
fn unknown_cleanups(
    resp: &NodeHeartbeatResponse,
    applications: &SmallSet<ApplicationId>,
    present: impl Fn(&ContainerId) -> bool,
) -> Vec<Unknown> {
    let containers = resp.containers_to_cleanup.iter().filter_map(|cid| {
        let app = cid.attempt.application_id;
        if !applications.contains(&app) {
            Some(Unknown::AppOfContainer(app))
        } else {
            (!present(cid)).then_some(Unknown::Container(*cid))
        }
    });
    let apps = resp.applications_to_cleanup.iter();
    let apps = apps.filter(|a| !applications.contains(a));
    containers
        .chain(apps.map(|a| Unknown::FinishedApp(*a)))
        .collect()
}

/// The kills a heartbeat response asks of a node that holds the containers `here`, in the
/// order the NM makes them: each container to clean as `KILLED_BY_RESOURCEMANAGER`, then each
/// container a finished application still has here as `KILLED_AFTER_APP_COMPLETION`, but for
/// one the first list already kills (its first kill's status stands).
fn cleanup_kills(resp: &NodeHeartbeatResponse, here: &[ContainerId]) -> Vec<(ContainerId, i32)> {
    let mut kills: Vec<(ContainerId, i32)> = resp
        .containers_to_cleanup
        .iter()
        .map(|&cid| (cid, exit_status::KILLED_BY_RESOURCEMANAGER))
        .collect();
    for app in &resp.applications_to_cleanup {
        for &cid in here.iter().filter(|c| c.attempt.application_id == *app) {
            if !kills.iter().any(|(k, _)| *k == cid) {
                kills.push((cid, exit_status::KILLED_AFTER_APP_COMPLETION));
            }
        }
    }
    kills
}

/// `ContainerImpl`'s transition when a container's process exits: from RUNNING to
/// EXITED_WITH_SUCCESS or EXITED_WITH_FAILURE; once the NM is killing it (`killing`), from
/// KILLING, and a process the kill's signal ended (143 SIGTERM, 137 SIGKILL: `ContainerLaunch`
/// sends CONTAINER_KILLED_ON_REQUEST) to CONTAINER_CLEANEDUP_AFTER_KILL.
fn exit_transition(killing: bool, exit_code: i32) -> (&'static str, &'static str) {
    let from = if killing { "KILLING" } else { "RUNNING" };
    let to = match exit_code {
        143 | 137 if killing => "CONTAINER_CLEANEDUP_AFTER_KILL",
        0 => "EXITED_WITH_SUCCESS",
        _ => "EXITED_WITH_FAILURE",
    };
    (from, to)
}

/// `ContainersMonitorImpl`'s kill text: (used, limit) MB of physical and of virtual memory.
fn memory_kill(cid: ContainerId, kind: &str, pmem: (f64, f64), vmem: (f64, f64)) -> String {
    // ContainersMonitorImpl.formatUsageString: "%sB of %sB" with long2String(bytes, "", 1).
    let gb = |mb: f64| format!("{}B", long2string((mb * 1_048_576.0) as u64));
    let over = if kind == "PHYSICAL" {
        pmem.0 - pmem.1
    } else {
        vmem.0 - vmem.1
    };
    format!(
        "Container [pid={},containerID={cid}] is running {}B beyond the '{kind}' memory limit. Current usage: {} of {} physical memory used; {} of {} virtual memory used. Killing container.\nDump of the process-tree for {cid} :\n\t|- PID PPID PGRPID SESSID CMD_NAME USER_MODE_TIME(MILLIS) SYSTEM_TIME(MILLIS) VMEM_USAGE(BYTES) RSSMEM_USAGE(PAGES) FULL_CMD_LINE",
        20000 + cid.id,
        (over * 1_048_576.0) as u64,
        gb(pmem.0),
        gb(pmem.1),
        gb(vmem.0),
        gb(vmem.1)
    )
}

/// Hadoop's `StringUtils.TraditionalBinaryPrefix.long2String(n, "", 1)`: an exact multiple
/// prints without decimals (`2 G`), others with one (`1.1 G`, `String.format("%.1f")`: half
/// up, so 1.25 G prints `1.3 G`); below 1024 the bare number.
pub fn long2string(n: u64) -> String {
    const SYMBOLS: [char; 6] = ['K', 'M', 'G', 'T', 'P', 'E'];
    if n < 1024 {
        return n.to_string();
    }
    let mut i = 0;
    while i + 1 < SYMBOLS.len() && n >= 1u64 << (10 * (i + 2)) {
        i += 1;
    }
    let shift = 10 * (i + 1);
    if n & ((1u64 << shift) - 1) == 0 {
        return format!("{} {}", n >> shift, SYMBOLS[i]);
    }
    let mut s = format_fixed(n as f64 / (1u64 << shift) as f64, 1);
    // "check a special rounding up case": 1024.0 of a prefix is 1.0 of the next.
    if s.starts_with("1024") && i + 1 < SYMBOLS.len() {
        i += 1;
        s = format_fixed(n as f64 / (1u64 << (10 * (i + 1))) as f64, 1);
    }
    format!("{s} {}", SYMBOLS[i])
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl Actor for NodeManager {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        // The GPU plugin's count joins the configured total (`NodeResourceUpdaterPlugin`) before
        // registration, so the RM's "registered with capability" line shows it.
        let total = Resource {
            memory_mb: self.spec.memory_mb,
            vcores: self.spec.vcores,
            gpus: self.spec.gpus,
        };
        info!(
            self.env.log(),
            "yarn::NodeStatusUpdaterImpl", "Registering with RM using containers :[]"
        );
        let req = RegisterNodeManagerRequest {
            node_id: self.node_id(),
            http_port: NM_WEB_PORT,
            rack: self.spec.rack.clone(),
            total_resource: total,
        };
        self.env
            .send(&self.rm, ResourceManagerMsg::RegisterNodeManager(req));
        let interval = clock::ms(self.sim.config.yarn.nm_heartbeat_interval_ms.max(1));
        timers::run_later(ctx, clock::ms(self.offset_ms), move |act, ctx| {
            act.heartbeat();
            timers::run_interval(ctx, interval, |act: &mut Self, _| act.heartbeat());
        });
    }
}

crate::endpoint!(NodeManager {
    messages: NodeManagerMsg => on_message,
});

#[cfg(test)]
mod tests {
    use super::*;

    // Hadoop StringUtils.TraditionalBinaryPrefix.long2String(n, "", 1), as
    // ContainersMonitorImpl.formatUsageString prints YARN's memory-kill usage: "2 GB", not
    // "2.0 GB"; TestStringUtils testTraditionalBinaryPrefix's cases.
    #[test]
    fn yarn_memory_texts_are_long2string() {
        assert_eq!(long2string(2 << 30), "2 G");
        assert_eq!(long2string(1 << 10), "1 K");
        assert_eq!(long2string(1023), "1023");
        assert_eq!(long2string((1.5 * (1u64 << 30) as f64) as u64), "1.5 G");
        assert_eq!(long2string((1u64 << 20) - 1), "1.0 M");
        // StringUtils.format is String.format(Locale.ENGLISH, "%.1f", ...): half up, so an exact
        // 1.25 G prints 1.3 G (Rust's `{:.1}` gave 1.2 G).
        assert_eq!(long2string(1_342_177_280), "1.3 G");
        let text = killed_diagnostics(exit_status::KILLED_EXCEEDED_PMEM, 143, cid(), 2048);
        assert!(text.contains("of 2 GB physical memory used"), "{text}");
    }

    fn cid() -> ContainerId {
        container(1, 2)
    }

    fn container(app: u32, id: u64) -> ContainerId {
        use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId};
        let app = ApplicationId {
            cluster_timestamp: 1,
            id: app,
        };
        ContainerId {
            attempt: ApplicationAttemptId::new(app, 1),
            epoch: 0,
            id,
        }
    }

    // NodeStatusUpdaterImpl (Hadoop 3.4) hands the heartbeat's containersToCleanup to the
    // ContainerManager before its applicationsToCleanup; ContainerManagerImpl.handle kills the
    // first as KILLED_BY_RESOURCEMANAGER ("Container Killed by ResourceManager"), and
    // ApplicationImpl.AppFinishTriggeredTransition the application's containers as
    // KILLED_AFTER_APP_COMPLETION; ContainerImpl ignores KILL_CONTAINER in KILLING, so a
    // container in both keeps -106. Another application's container is left alone.
    #[test]
    fn containers_to_clean_go_first_and_a_finished_apps_rest_after() {
        let (cleaned, left, other) = (container(1, 2), container(1, 3), container(2, 2));
        let resp = NodeHeartbeatResponse {
            response_id: 1,
            containers_to_cleanup: vec![cleaned],
            applications_to_cleanup: vec![cleaned.attempt.application_id],
        };
        assert_eq!(
            cleanup_kills(&resp, &[cleaned, left, other]),
            vec![
                (cleaned, exit_status::KILLED_BY_RESOURCEMANAGER),
                (left, exit_status::KILLED_AFTER_APP_COMPLETION),
            ]
        );
    }

    // ContainerManagerImpl.handle (Hadoop 3.4): FINISH_CONTAINERS warns "couldn't find app" for
    // an application without an ApplicationImpl here and "couldn't find container" for a
    // container its application no longer has; FINISH_APPS logs "couldn't find application"
    // for one it never ran.
    #[test]
    fn cleanups_the_nm_cannot_find() {
        let (gone, here, stranger) = (container(1, 2), container(1, 3), container(2, 2));
        let mut applications = SmallSet::default();
        applications.insert(here.attempt.application_id);
        let resp = NodeHeartbeatResponse {
            response_id: 1,
            containers_to_cleanup: vec![gone, here, stranger],
            applications_to_cleanup: vec![
                here.attempt.application_id,
                container(3, 2).attempt.application_id,
            ],
        };
        assert_eq!(
            unknown_cleanups(&resp, &applications, |c| *c == here),
            vec![
                Unknown::Container(gone),
                Unknown::AppOfContainer(stranger.attempt.application_id),
                Unknown::FinishedApp(container(3, 2).attempt.application_id),
            ]
        );
    }

    // ContainerManagerImpl FINISH_CONTAINERS and ApplicationImpl.AppFinishTriggeredTransition
    // (with FINISH_APPS' "Application killed by ResourceManager"): the kill event's text heads
    // the diagnostics; the exit lines follow (DefaultContainerExecutor, ContainerLaunch).
    #[test]
    fn kill_diagnostics_are_hadoops() {
        let rm = killed_diagnostics(exit_status::KILLED_BY_RESOURCEMANAGER, 143, cid(), 1024);
        assert!(
            rm.starts_with("Container Killed by ResourceManager\nContainer killed on request. Exit code is 143\n"),
            "{rm}"
        );
        let app = killed_diagnostics(exit_status::KILLED_AFTER_APP_COMPLETION, 143, cid(), 1024);
        assert!(
            app.starts_with("Container killed on application-finish event: Application killed by ResourceManager\n"),
            "{app}"
        );
    }

    // ContainerImpl.KillBeforeRunningTransition (LOCALIZING/SCHEDULED -> KILLING; the same text
    // in KillOnNewTransition): the exit code is the kill's status, the diagnostics the kill's
    // text and "Container is killed before being launched.", each piece through addDiagnostics'
    // stamp, and no ContainerLaunch exit line.
    #[test]
    fn a_kill_before_launch_has_no_exit_code_line() {
        let why = kill_reason(exit_status::KILLED_BY_APPMASTER, cid(), 1024);
        let text = killed_before_launch_diagnostics(&why, "2026-01-01 00:00:01.500");
        assert_eq!(
            text,
            "[2026-01-01 00:00:01.500]Container killed by the ApplicationMaster.[2026-01-01 00:00:01.500]\n[2026-01-01 00:00:01.500]Container is killed before being launched.\n"
        );
        assert!(!text.contains("Exit code"), "{text}");
    }

    // NMAuditLogger.createSuccessLog (Keys order USER, IP, OPERATION, TARGET, RESULT, APPID,
    // CONTAINERID; tab-separated) as ContainerManagerImpl.startContainerInternal and
    // stopContainerInternal call it, target "ContainerManageImpl"; TestNMAuditLogger
    // testNMAuditLoggerWithIP: a line written inside an RPC call carries IP=<the caller's address>.
    #[test]
    fn container_audit_lines_are_nm_audit_loggers() {
        assert_eq!(
            audit_success("alice", "10.0.0.7", STOP_CONTAINER, cid()),
            "USER=alice\tIP=10.0.0.7\tOPERATION=Stop Container Request\tTARGET=ContainerManageImpl\tRESULT=SUCCESS\tAPPID=application_1_0001\tCONTAINERID=container_1_0001_01_000002"
        );
        assert!(
            audit_success("a", "1.2.3.4", START_CONTAINER, cid())
                .contains("\tOPERATION=Start Container Request\t")
        );
    }

    // ContainerImpl's state table: RUNNING -> EXITED_WITH_SUCCESS / EXITED_WITH_FAILURE;
    // KILLING -> CONTAINER_CLEANEDUP_AFTER_KILL on CONTAINER_KILLED_ON_REQUEST (ContainerLaunch:
    // exit 143 TERMINATED or 137 FORCE_KILLED), KILLING -> EXITED_WITH_* on another exit.
    #[test]
    fn exit_transitions_are_container_impls() {
        assert_eq!(
            exit_transition(false, 0),
            ("RUNNING", "EXITED_WITH_SUCCESS")
        );
        assert_eq!(
            exit_transition(false, 143),
            ("RUNNING", "EXITED_WITH_FAILURE")
        );
        assert_eq!(
            exit_transition(true, 143),
            ("KILLING", "CONTAINER_CLEANEDUP_AFTER_KILL")
        );
        assert_eq!(
            exit_transition(true, 137),
            ("KILLING", "CONTAINER_CLEANEDUP_AFTER_KILL")
        );
        assert_eq!(exit_transition(true, 1), ("KILLING", "EXITED_WITH_FAILURE"));
        assert_eq!(exit_transition(true, 0), ("KILLING", "EXITED_WITH_SUCCESS"));
    }
}

/// Where the NodeManager localizes a PRIVATE resource: the user's file cache, one numbered
/// directory per resource (Hadoop's `ResourceLocalizationService`, the first being 10).
fn localized_path(
    user: &str,
    index: usize,
    r: &sparkyard_messages::records::LocalResource,
) -> String {
    let name = r.source.rsplit('/').next().unwrap_or(&r.source);
    format!(
        "{NM_LOCAL_DIR}/usercache/{user}/filecache/{}/{name}",
        10 + index
    )
}

/// The NodeManager's expansion of `{{VAR}}` to `$VAR` and `<CPS>` to `:` (`ContainerLaunch
/// .expandEnvironment` on a Linux node).
fn expand(text: &str) -> String {
    text.replace("{{", "$")
        .replace("}}", "")
        .replace("<CPS>", ":")
}

/// `launch_container.sh` as Hadoop's `ContainerLaunch` writes it (`UnixShellScriptBuilder`):
/// the environment exported, each local resource linked into the container's directory, then
/// the command. The environment is written as given: YARN does not redact it.
pub fn launch_container_script(
    ctx: &sparkyard_messages::records::ContainerLaunchContext,
    user: &str,
) -> String {
    let mut s = String::from(
        "#!/bin/bash\n\nset -o pipefail -e\nexport PRELAUNCH_OUT=\"<LOG_DIR>/prelaunch.out\"\nexec >\"${PRELAUNCH_OUT}\"\nexport PRELAUNCH_ERR=\"<LOG_DIR>/prelaunch.err\"\nexec 2>\"${PRELAUNCH_ERR}\"\necho \"Setting up env variables\"\n",
    );
    for (k, v) in &ctx.environment {
        s.push_str(&format!("export {k}=\"{}\"\n", expand(v)));
    }
    s.push_str("echo \"Setting up job resources\"\n");
    for (i, r) in ctx.local_resources.iter().enumerate() {
        if let Some((dir, _)) = r.link.rsplit_once('/') {
            s.push_str(&format!("mkdir -p {dir}\n"));
        }
        s.push_str(&format!(
            "ln -sf -- \"{}\" \"{}\"\n",
            localized_path(user, i, r),
            r.link
        ));
    }
    s.push_str("echo \"Launching container\"\n");
    s.push_str(&format!(
        "exec /bin/bash -c \"{}\"\n",
        expand(&ctx.commands.join(" "))
    ));
    s
}

#[cfg(test)]
mod launch_script_tests {
    use super::*;
    use sparkyard_messages::records::{ContainerLaunchContext, ContainerMain, LocalResource};

    // Hadoop ContainerLaunch (UnixShellScriptBuilder): env exports, resource links, exec.
    #[test]
    fn env_links_and_command() {
        let ctx = ContainerLaunchContext {
            commands: vec!["{{JAVA_HOME}}/bin/java -cp {{PWD}} Main".into()],
            environment: vec![
                (
                    "CLASSPATH".into(),
                    "{{PWD}}<CPS>{{PWD}}/__spark_conf__".into(),
                ),
                ("MY_VAR".into(), "1".into()),
            ],
            main: ContainerMain::ApplicationMaster {
                user_class: "K".into(),
                jar: "a.jar".into(),
                args: vec![],
                submit_time_ms: None,
            },
            local_resources: vec![
                LocalResource {
                    link: "__app__.jar".into(),
                    source: "hdfs://nn:8020/s/app.jar".into(),
                    archive: false,
                },
                LocalResource {
                    link: "__pyfiles__/deps.zip".into(),
                    source: "hdfs://nn:8020/s/deps.zip".into(),
                    archive: false,
                },
            ]
            .into(),
        };
        let script = launch_container_script(&ctx, "alice");
        assert!(
            script.contains("export CLASSPATH=\"$PWD:$PWD/__spark_conf__\"\nexport MY_VAR=\"1\"\n"),
            "{script}"
        );
        assert!(script.contains("ln -sf -- \"/tmp/hadoop-yarn/nm-local-dir/usercache/alice/filecache/10/app.jar\" \"__app__.jar\"\n"), "{script}");
        assert!(script.contains("mkdir -p __pyfiles__\nln -sf -- \"/tmp/hadoop-yarn/nm-local-dir/usercache/alice/filecache/11/deps.zip\" \"__pyfiles__/deps.zip\"\n"), "{script}");
        assert!(
            script.ends_with("exec /bin/bash -c \"$JAVA_HOME/bin/java -cp $PWD Main\"\n"),
            "{script}"
        );
    }
}
