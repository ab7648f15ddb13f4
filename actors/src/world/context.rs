//! What the roles of one simulation share: the cluster's part (`ClusterContext`: settings,
//! network, faults, invariants) and each application's (`SimContext`: its settings and seeded
//! RNG, the Client's final outcome, its AM and executors, its counters for the recovery summary).

use crate::rpc::Dispatcher;
use crate::world::config::SimConfig;
use crate::world::observer::{RunCounters, RunEvent};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::ids::ApplicationId;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::records::{FinalApplicationStatus, YarnApplicationState};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

/// How the submission ended, as spark-submit's `Client.run()` saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOutcome {
    pub application_id: Option<ApplicationId>,
    pub state: Option<YarnApplicationState>,
    pub final_status: Option<FinalApplicationStatus>,
    pub diagnostics: String,
    /// The final report's original tracking URL (`yarn application -status`'s Tracking-URL):
    /// the history server's URL when Spark gave one, the RM's app page after a failed attempt.
    pub original_tracking_url: Option<String>,
    /// The exception spark-submit ends with, `None` on success.
    pub exception: Option<RpcFailure>,
    /// The virtual time the client finished, ms.
    pub finished_at_ms: u64,
    /// spark-submit's local temp directory (`/tmp/spark-<uuid>`), deleted by its shutdown hook.
    pub temp_dir: String,
}

/// Watches the run's events as they are reported (it must not send messages).
pub type ObserverHook = Rc<dyn Fn(&RunEvent)>;

/// What the whole cluster shares, whatever application runs on it: the cluster's settings, the
/// network, the fault plan, the broken invariants, and which application each YARN application
/// id is (the RM and the NodeManagers serve every application).
pub struct ClusterContext {
    /// The cluster's settings (nodes, YARN, costs, the RM; the first application's Spark
    /// settings too, which no cluster role reads).
    pub config: SimConfig,
    pub dispatcher: Dispatcher,
    /// The fault plan and what fired.
    pub faults: crate::faults::FaultController,
    /// Invariants broken during the run.
    pub violations: crate::world::invariants::Violations,
    /// Each application of the run, by its submission index (weak: the runner owns them).
    apps: RefCell<Vec<Weak<SimContext>>>,
    /// The YARN application id each application got, to its submission index.
    app_ids: RefCell<BTreeMap<ApplicationId, usize>>,
}

/// One application of the run (one spark-submit): its own settings, how it ended, its AM and
/// executors, its listener events and counters. Every role of the application (Client, AM,
/// Driver, executors) holds it; what it does not own it reaches through the cluster (`Deref`).
pub struct SimContext {
    pub cluster: Rc<ClusterContext>,
    /// The application's place in submission order (0 for the first).
    pub index: usize,
    /// The application's own random stream (ports, temp directory names), from its seed: its
    /// draws do not depend on what other applications draw.
    pub rng: RefCell<ChaCha8Rng>,
    /// The application's settings (its Spark conf, user and program; the cluster's part is
    /// the cluster's).
    pub config: SimConfig,
    pub outcome: RefCell<Option<ClientOutcome>>,
    /// The application's record, fed by `observe`.
    pub counters: RefCell<RunCounters>,
    /// Who else watches the application's events (a replay's record, the scale bench's probe).
    pub observer_hook: Option<ObserverHook>,
    /// The invariants its roles check (its own ledger; what breaks joins the cluster's list).
    pub violations: crate::world::invariants::Violations,
    /// The SparkListener events of the application's drivers (recorded only when an output
    /// needs them).
    pub listener: crate::world::listener::ListenerBus,
    /// The AM attempt running now (1, 2, ...), for triggers and fault targets.
    pub current_attempt: std::cell::Cell<u32>,
    /// The current AM container and its host.
    pub am_container: RefCell<Option<(sparkyard_messages::ids::ContainerId, String)>>,
    /// Executors launched: (attempt, executor id) -> (container, host); kept only when a planned
    /// fault names an executor by id (`FaultController::names_executors`), its only use.
    pub executors: RefCell<BTreeMap<(u32, u32), (sparkyard_messages::ids::ContainerId, String)>>,
    /// Executors in the order they registered with the driver, as (AM attempt, executor id);
    /// kept, as `executors`, only when a planned fault names an executor.
    pub registered: RefCell<Vec<(u32, u32)>>,
    /// Where the application's shuffle blocks are served (what a reduce task's fetch reaches).
    pub block_servers: crate::world::block_servers::BlockServers,
}

impl std::ops::Deref for SimContext {
    type Target = ClusterContext;
    fn deref(&self) -> &ClusterContext {
        &self.cluster
    }
}

impl ClusterContext {
    pub fn new(config: SimConfig, dispatcher: Dispatcher) -> Self {
        Self::with_faults(
            config,
            dispatcher,
            crate::faults::FaultController::default(),
        )
    }

    pub fn with_faults(
        config: SimConfig,
        dispatcher: Dispatcher,
        faults: crate::faults::FaultController,
    ) -> Self {
        ClusterContext {
            config,
            dispatcher,
            faults,
            violations: Default::default(),
            apps: Default::default(),
            app_ids: Default::default(),
        }
    }

    /// A new application of the run with its own settings, the next in submission order.
    pub fn add_application(
        self: &Rc<Self>,
        config: SimConfig,
        record_events: bool,
        observer_hook: Option<ObserverHook>,
    ) -> Rc<SimContext> {
        let index = self.apps.borrow().len();
        let rng = RefCell::new(ChaCha8Rng::seed_from_u64(config.seed ^ 0x5eed_5eed));
        let app = Rc::new(SimContext {
            cluster: self.clone(),
            index,
            rng,
            config,
            outcome: RefCell::new(None),
            counters: RefCell::new(RunCounters::default()),
            observer_hook,
            violations: self.violations.for_application(index),
            listener: crate::world::listener::ListenerBus::new(record_events),
            current_attempt: std::cell::Cell::new(0),
            am_container: RefCell::new(None),
            executors: RefCell::new(BTreeMap::new()),
            registered: RefCell::new(Vec::new()),
            block_servers: Default::default(),
        });
        self.apps.borrow_mut().push(Rc::downgrade(&app));
        app
    }

    /// The application the RM gave `id` (its Client reported it), if it still runs.
    pub fn application(&self, id: ApplicationId) -> Option<Rc<SimContext>> {
        let index = *self.app_ids.borrow().get(&id)?;
        self.apps.borrow().get(index)?.upgrade()
    }

    /// How many applications the run has (ended ones included).
    pub fn application_count(&self) -> usize {
        self.apps.borrow().len()
    }

    /// The application submitted `index`-th, if it still runs.
    pub fn application_at(&self, index: usize) -> Option<Rc<SimContext>> {
        self.apps.borrow().get(index)?.upgrade()
    }

    /// Every application of the run still running, in submission order (a node fault acts on
    /// each one with containers on the node).
    pub fn applications(&self) -> Vec<Rc<SimContext>> {
        self.apps
            .borrow()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// The `k`-th application (from 1, wrapping) of those RUNNING (an AM attempt started) and
    /// not yet ended, in submission order; `None` when none runs.
    pub fn running_application(&self, k: u32) -> Option<Rc<SimContext>> {
        let running: Vec<Rc<SimContext>> = self
            .applications()
            .into_iter()
            .filter(|a| a.current_attempt.get() > 0 && a.outcome.borrow().is_none())
            .collect();
        let n = running.len();
        (n > 0).then(|| running[(k.max(1) as usize - 1) % n].clone())
    }

    /// Whether every application of the run has its outcome (the run is over).
    pub fn every_application_ended(&self) -> bool {
        let apps = self.apps.borrow();
        let ended = |a: &Weak<SimContext>| a.upgrade().is_none_or(|a| a.outcome.borrow().is_some());
        apps.iter().all(ended)
    }

    /// What `read` finds in application `id`'s settings (the cluster's for an unknown one):
    /// a NodeManager serves each container as its application's settings say.
    pub fn application_config<T>(&self, id: ApplicationId, read: impl Fn(&SimConfig) -> T) -> T {
        match self.application(id) {
            Some(app) => read(&app.config),
            None => read(&self.config),
        }
    }

    /// What a cluster role (the RM) saw happen to application `id` goes to its record (the
    /// Client registers the id before it submits, so every such event has its application).
    pub fn observe_app(&self, id: ApplicationId, event: RunEvent) {
        if let Some(app) = self.application(id) {
            app.observe(event);
        }
    }

    /// The IPv4 address `host` resolves to (the Dispatcher's name service).
    pub fn host_ip(&self, host: &str) -> String {
        self.dispatcher.host_ip(host)
    }
}

/// How many messages the simulated network has carried so far (the scale bench reads it while
/// the run goes on).
#[derive(Clone)]
pub struct MessageCounter(Dispatcher);

impl MessageCounter {
    pub fn carried(&self) -> u64 {
        self.0.with_trace(|t| t.current_msg())
    }
}

impl SimContext {
    /// The network's message count, readable while the run goes on.
    pub fn message_counter(&self) -> MessageCounter {
        MessageCounter(self.dispatcher.clone())
    }

    /// The Client reports the id the RM gave its application, so the cluster's roles (the
    /// NodeManagers' launcher, the RM's reports) find the application by it.
    pub fn register_application_id(&self, id: ApplicationId) {
        self.cluster.app_ids.borrow_mut().insert(id, self.index);
    }

    /// The id the RM gave this application, once its Client has it.
    pub fn application_id(&self) -> Option<ApplicationId> {
        let ids = self.cluster.app_ids.borrow();
        ids.iter()
            .find(|(_, index)| **index == self.index)
            .map(|(id, _)| *id)
    }

    /// Whether a shuffle fetch from `server` gets an answer (`BlockServers::reachable`).
    pub fn block_server_reachable(
        &self,
        server: &sparkyard_messages::task::BlockManagerId,
        shuffle_service_port: u16,
    ) -> bool {
        self.block_servers
            .reachable(&self.cluster.dispatcher, server, shuffle_service_port)
    }

    /// A role reports what happened to the run's record (and to the hook, if any).
    pub fn observe(&self, event: RunEvent) {
        self.counters.borrow_mut().apply(&event);
        if let Some(hook) = &self.observer_hook {
            hook(&event);
        }
    }

    /// A random UUID-shaped string from the run's seed (Spark's temp directory names).
    pub fn uuid(&self) -> String {
        use rand::Rng;
        let mut rng = self.rng.borrow_mut();
        let a: u32 = rng.random();
        let b: u16 = rng.random();
        let c: u16 = rng.random::<u16>() & 0x0fff | 0x4000;
        let d: u16 = rng.random::<u16>() & 0x3fff | 0x8000;
        let e: u64 = rng.random::<u64>() & 0xffff_ffff_ffff;
        format!("{a:08x}-{b:04x}-{c:04x}-{d:04x}-{e:012x}")
    }
}
