//! What a run's trace numbers mean, for the timeline and the diagram: which process is the
//! Client, the RM, a NodeManager, an AM or an executor container (and of which attempt); which
//! Spark/YARN role a mailbox belongs to; which executor id and host each container had; and which
//! ExecutorRunnable and `StartContainers` call launched it. All of it comes from the trace's
//! typed events (a registration names the executor's endpoint, a NodeManager's LOCALIZING names
//! the container's host, caller and executor), never from log text or timing.

use crate::record::RunResult;
use sparkyard_actors::simulation::trace::{FaultTarget, StateChange, TraceEvent, TraceKind};
use sparkyard_messages::ids::ContainerId;
use sparkyard_messages::rpc::EndpointId;
use std::collections::BTreeMap;

/// The participants of the lifecycle, as the sequence diagram names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Client,
    ResourceManager,
    NodeManager,
    ApplicationMaster,
    YarnAllocator,
    ExecutorRunnable,
    DriverEndpoint,
    Executor,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Client => "Client",
            Role::ResourceManager => "ResourceManager",
            Role::NodeManager => "NodeManager",
            Role::ApplicationMaster => "ApplicationMaster",
            Role::YarnAllocator => "YarnAllocator",
            Role::ExecutorRunnable => "ExecutorRunnable",
            Role::DriverEndpoint => "DriverEndpoint",
            Role::Executor => "Executor",
        }
    }
}

/// What a simulated process is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcKind {
    Client,
    ResourceManager,
    NodeManager {
        host: String,
    },
    /// The AM container of an attempt (the driver runs in it: cluster mode).
    Am {
        attempt: u32,
    },
    Executor {
        attempt: u32,
    },
    Other,
}

/// A container's life as the NodeManager reported it (virtual ms).
#[derive(Clone, Debug, Default)]
pub struct ContainerLife {
    pub start_ms: u64,
    pub end_ms: Option<u64>,
    pub exit_status: Option<i32>,
}

/// The run's processes and mailboxes, resolved.
pub struct RunMap {
    pub kinds: Vec<ProcKind>,
    /// Process index of each mailbox.
    pub mailbox_proc: Vec<Option<u32>>,
    pub mailbox_role: Vec<Option<Role>>,
    /// The endpoint or thread name of each mailbox (`CoarseGrainedScheduler`, `main`).
    pub mailbox_name: Vec<String>,
    /// Executor id of each executor container process.
    pub executor_id: BTreeMap<u32, u32>,
    /// The NodeManager host of each container process.
    pub host: BTreeMap<u32, String>,
    /// The ExecutorRunnable (`ContainerLauncher`) mailbox that started each container.
    pub launcher_of: BTreeMap<u32, u32>,
    /// The `StartContainers` message (trace message id) that started each container.
    pub start_msg: BTreeMap<u64, u32>,
    pub life: BTreeMap<u32, ContainerLife>,
}

/// `(attempt, n)` of a container id `container_[e<epoch>_]<ts>_<app>_<attempt>_<n>`.
pub fn container_parts(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("container_")?;
    let mut parts = rest.rsplit('_');
    let n = parts.next()?.parse().ok()?;
    let attempt = parts.next()?.parse().ok()?;
    Some((attempt, n))
}

fn proc_kind(name: &str) -> ProcKind {
    if name == "spark-submit" {
        return ProcKind::Client;
    }
    if name == "rm" {
        return ProcKind::ResourceManager;
    }
    if let Some(host) = name.strip_prefix("nm:") {
        return ProcKind::NodeManager { host: host.into() };
    }
    match container_parts(name) {
        Some((attempt, 1)) => ProcKind::Am { attempt },
        Some((attempt, _)) => ProcKind::Executor { attempt },
        None => ProcKind::Other,
    }
}

/// The role of a mailbox from its endpoint/thread name and the kind of process it lives in.
fn role_for(name: &str, kind: &ProcKind) -> Option<Role> {
    let by_name = match name {
        "Client" => Some(Role::Client),
        "ResourceManager" => Some(Role::ResourceManager),
        "NodeManager" => Some(Role::NodeManager),
        "ApplicationMaster" | "YarnAM" => Some(Role::ApplicationMaster),
        "YarnAllocator" => Some(Role::YarnAllocator),
        "ContainerLauncher" => Some(Role::ExecutorRunnable),
        _ => None,
    };
    by_name.or(match kind {
        ProcKind::Client => Some(Role::Client),
        ProcKind::ResourceManager => Some(Role::ResourceManager),
        ProcKind::NodeManager { .. } => Some(Role::NodeManager),
        // Driver thread, CoarseGrainedScheduler, YarnScheduler, endpoint-verifier: the driver.
        ProcKind::Am { .. } => Some(Role::DriverEndpoint),
        ProcKind::Executor { .. } => Some(Role::Executor),
        ProcKind::Other => None,
    })
}

impl RunMap {
    pub fn new(r: &RunResult) -> Self {
        let kinds: Vec<ProcKind> = r.processes.iter().map(|p| proc_kind(p)).collect();
        let mut by_name: BTreeMap<&str, u32> = BTreeMap::new();
        for (i, p) in r.processes.iter().enumerate() {
            // The newest process of a name wins, as in the Dispatcher.
            by_name.insert(p.as_str(), i as u32);
        }
        let n = r.labels.len();
        let (mut mailbox_proc, mut mailbox_role, mut mailbox_name) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for label in &r.labels {
            let (name, proc_name) = label.split_once('@').unwrap_or((label.as_str(), ""));
            let p = by_name.get(proc_name).copied();
            let kind = p.map_or(&ProcKind::Other, |p| &kinds[p as usize]);
            mailbox_proc.push(p);
            mailbox_role.push(role_for(name, kind));
            mailbox_name.push(name.to_string());
        }
        let mut map = RunMap {
            kinds,
            mailbox_proc,
            mailbox_role,
            mailbox_name,
            executor_id: BTreeMap::new(),
            host: BTreeMap::new(),
            launcher_of: BTreeMap::new(),
            start_msg: BTreeMap::new(),
            life: BTreeMap::new(),
        };
        map.read_states(r, &by_name);
        map
    }

    fn read_states(&mut self, r: &RunResult, by_name: &BTreeMap<&str, u32>) {
        // StartContainers calls each NodeManager has received and not yet handled, in order.
        let mut starts: BTreeMap<u32, std::collections::VecDeque<u64>> = BTreeMap::new();
        for e in &r.trace {
            match &e.kind {
                TraceKind::Deliver if e.name == "StartContainers" => {
                    if let Some(nm) = e.to.and_then(|m| self.proc_of(m.0)) {
                        starts.entry(nm).or_default().push_back(e.msg);
                    }
                }
                TraceKind::State(StateChange::ExecutorRegistered { executor, endpoint }) => {
                    if let Some(p) = self.proc_of(endpoint.0)
                        && matches!(self.kinds[p as usize], ProcKind::Executor { .. })
                    {
                        self.executor_id.insert(p, executor.0);
                    }
                }
                TraceKind::State(StateChange::ContainerLocalizing {
                    container,
                    host,
                    caller,
                    executor,
                }) => {
                    let Some(&p) = by_name.get(container.to_string().as_str()) else {
                        continue;
                    };
                    self.on_localizing(e, p, host, *caller, &mut starts);
                    if let (Some(id), ProcKind::Executor { .. }) =
                        (executor, &self.kinds[p as usize])
                    {
                        self.executor_id.entry(p).or_insert(id.0);
                    }
                }
                TraceKind::State(StateChange::ContainerCompleted {
                    container,
                    exit_status,
                }) => {
                    let Some(&p) = by_name.get(container.to_string().as_str()) else {
                        continue;
                    };
                    let life = self.life.entry(p).or_default();
                    life.end_ms = Some(e.time_ms);
                    life.exit_status = Some(*exit_status);
                }
                _ => {}
            }
        }
    }

    /// The NodeManager's `startContainers` handler records LOCALIZING with the container's host
    /// and its caller (the RM's AMLauncher, or an ExecutorRunnable); it handles its calls in
    /// order, so the oldest unhandled `StartContainers` to that NodeManager is this one.
    fn on_localizing(
        &mut self,
        e: &TraceEvent,
        p: u32,
        host: &str,
        caller: EndpointId,
        starts: &mut BTreeMap<u32, std::collections::VecDeque<u64>>,
    ) {
        self.life.entry(p).or_default().start_ms = e.time_ms;
        self.host.entry(p).or_insert_with(|| host.to_string());
        if self.role_of(caller.0) == Some(Role::ExecutorRunnable) {
            self.launcher_of.insert(p, caller.0);
        }
        if let Some(msg) = e
            .from
            .and_then(|nm| starts.get_mut(&nm))
            .and_then(|q| q.pop_front())
        {
            self.start_msg.insert(msg, p);
        }
    }

    pub fn proc_of(&self, mailbox: u32) -> Option<u32> {
        self.mailbox_proc.get(mailbox as usize).copied().flatten()
    }

    pub fn role_of(&self, mailbox: u32) -> Option<Role> {
        self.mailbox_role.get(mailbox as usize).copied().flatten()
    }

    pub fn kind(&self, process: u32) -> &ProcKind {
        self.kinds.get(process as usize).unwrap_or(&ProcKind::Other)
    }

    /// The attempt a process belongs to (containers only).
    pub fn attempt(&self, process: u32) -> Option<u32> {
        match self.kind(process) {
            ProcKind::Am { attempt } | ProcKind::Executor { attempt } => Some(*attempt),
            _ => None,
        }
    }

    /// The executor container of `(attempt, executor id)`.
    pub fn executor_process(&self, attempt: u32, id: u32) -> Option<u32> {
        self.executor_id
            .iter()
            .find(|(p, e)| **e == id && self.attempt(**p) == Some(attempt))
            .map(|(p, _)| *p)
    }

    /// The process a fault acted on, as the injector resolved it when it fired.
    pub fn fault_process(&self, processes: &[String], target: &FaultTarget) -> Option<u32> {
        let container = |cid: &ContainerId| {
            let name = cid.to_string();
            processes.iter().rposition(|p| *p == name).map(|p| p as u32)
        };
        match target {
            FaultTarget::Container(cid) | FaultTarget::Network(Some(cid)) => container(cid),
            FaultTarget::Node(host) => self
                .kinds
                .iter()
                .position(|k| matches!(k, ProcKind::NodeManager { host: h } if h == host))
                .map(|p| p as u32),
            FaultTarget::Network(None) | FaultTarget::Nothing => None,
        }
    }

    /// Every AM container process, in attempt order.
    pub fn am_processes(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = (0..self.kinds.len() as u32)
            .filter_map(|p| match self.kind(p) {
                ProcKind::Am { attempt } => Some((*attempt, p)),
                _ => None,
            })
            .collect();
        v.sort();
        v
    }
}
