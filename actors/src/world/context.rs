//! What every role of one simulation shares: the settings, the network, the seeded RNG, the
//! client's final outcome and the run's counters for the recovery summary.

use crate::rpc::Dispatcher;
use crate::world::config::SimConfig;
use crate::world::observer::{RunCounters, RunEvent};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::ids::ApplicationId;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::records::{FinalApplicationStatus, YarnApplicationState};
use std::cell::RefCell;

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
pub type ObserverHook = std::rc::Rc<dyn Fn(&RunEvent)>;

/// Shared by every actor of one run (single-threaded: plain RefCells).
pub struct SimContext {
    pub config: SimConfig,
    pub dispatcher: Dispatcher,
    pub rng: RefCell<ChaCha8Rng>,
    pub outcome: RefCell<Option<ClientOutcome>>,
    /// The run's record, fed by `observe`.
    pub counters: RefCell<RunCounters>,
    /// Who else watches the run's events (the scale bench's phase probe).
    pub observer_hook: Option<ObserverHook>,
    /// The SparkListener events of every driver (recorded only when an output needs them).
    pub listener: crate::world::listener::ListenerBus,
    /// The fault plan and what fired.
    pub faults: crate::faults::FaultController,
    /// Invariants broken during the run.
    pub violations: crate::world::invariants::Violations,
    /// The AM attempt running now (1, 2, ...), for triggers and fault targets.
    pub current_attempt: std::cell::Cell<u32>,
    /// The current AM container and its host.
    pub am_container: RefCell<Option<(sparkyard_messages::ids::ContainerId, String)>>,
    /// Executors launched: (attempt, executor id) -> (container, host); kept only when a planned
    /// fault names an executor by id (`FaultController::names_executors`), its only use.
    /// The Client's distributed cache (`__spark_dist_cache__.properties` in the staging
    /// directory): what every executor's launch context localizes. Set at submission.
    pub dist_cache: RefCell<Option<std::sync::Arc<[sparkyard_messages::records::LocalResource]>>>,
    /// `spark.app.submitTime` as SparkSubmit sets it when missing (epoch ms), carried to the
    /// driver in `__spark_conf__.properties`. Set when the Client starts.
    pub submit_time_ms: std::cell::Cell<Option<u64>>,
    pub executors: RefCell<
        std::collections::BTreeMap<(u32, u32), (sparkyard_messages::ids::ContainerId, String)>,
    >,
    /// Where shuffle blocks are served (what a reduce task's fetch reaches).
    pub block_servers: crate::world::block_servers::BlockServers,
    /// Each NodeManager host's place in `config.nodes` (its address), built on first use.
    host_index: std::cell::OnceCell<std::collections::BTreeMap<String, usize>>,
}

impl SimContext {
    pub fn new(config: SimConfig, dispatcher: Dispatcher, record_events: bool) -> Self {
        Self::with_faults(
            config,
            dispatcher,
            record_events,
            crate::faults::FaultController::default(),
        )
    }

    pub fn with_faults(
        config: SimConfig,
        dispatcher: Dispatcher,
        record_events: bool,
        faults: crate::faults::FaultController,
    ) -> Self {
        let rng = RefCell::new(ChaCha8Rng::seed_from_u64(config.seed ^ 0x5eed_5eed));
        SimContext {
            config,
            dispatcher,
            rng,
            outcome: RefCell::new(None),
            counters: RefCell::new(RunCounters::default()),
            observer_hook: None,
            listener: crate::world::listener::ListenerBus::new(record_events),
            faults,
            violations: Default::default(),
            current_attempt: std::cell::Cell::new(0),
            am_container: RefCell::new(None),
            dist_cache: RefCell::new(None),
            submit_time_ms: std::cell::Cell::new(None),
            executors: RefCell::new(std::collections::BTreeMap::new()),
            block_servers: Default::default(),
            host_index: Default::default(),
        }
    }

    /// The IPv4 address `host` resolves to: a node's comes from its place in the cluster
    /// (`addresses::node_ip`), any other host's from its name.
    pub fn host_ip(&self, host: &str) -> String {
        let index = self.host_index.get_or_init(|| {
            let nodes = self.config.nodes.iter().enumerate();
            nodes.map(|(i, n)| (n.host.clone(), i)).collect()
        });
        match index.get(host) {
            Some(&i) => crate::world::addresses::node_ip(i),
            None => crate::world::addresses::other_host_ip(host),
        }
    }

    /// Whether a shuffle fetch from `server` gets an answer (`BlockServers::reachable`).
    pub fn block_server_reachable(
        &self,
        server: &sparkyard_messages::task::BlockManagerId,
        shuffle_service_port: u16,
    ) -> bool {
        self.block_servers
            .reachable(&self.dispatcher, server, shuffle_service_port)
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
