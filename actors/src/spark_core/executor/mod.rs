//! The executor JVM's actors: `CoarseGrainedExecutorBackend.run` (the `driverPropsFetcher` that
//! looks the driver up, up to 3 tries, and fetches `SparkAppConfig`), then the `Executor`
//! endpoint: OnStart registers with the driver, `RegisteredExecutor` creates the Executor and
//! sends `LaunchedExecutor`, tasks run for their virtual duration, and `exitExecutor` ends the
//! JVM. The rules are plain state machines and functions: the backend's in
//! `executor_backend_state` (registration, exits and their reasons, decommissioning,
//! disconnects, the fetcher's tries), the Executor's in `executor_state` (running tasks, kill
//! marks, a task's end state, the heartbeater), its conf in `executor_conf`, a task's run in
//! `task_runner`, the block manager's in `block_manager` (cached partitions, peers, uploads),
//! `block_manager_decommissioner` (migration), `map_output_tracker_worker` and `block_fetch`
//! (a reduce task's fetch); these actors turn messages into calls on them, and log and send
//! what they decide.

use crate::kernel::clock;
use crate::kernel::logs::Level;
use crate::kernel::small_map::SmallSet;
use crate::kernel::timers;
use crate::kernel::trace::StateChange;
use crate::rpc::ask::decode;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::block_fetch::{self, FailedFetch, FetchClients};
use crate::spark_core::block_manager::{
    CachedRead, PeerCache, RddBlocks, RddPut, connect_refused, replayed_computed_rdds,
    shuffle_server_port, upload_refused_for_space,
};
use crate::spark_core::block_manager_decommissioner::{
    BlockManagerDecommissioner, SAVED_ON_DECOMMISSIONED, Step, StoredShuffle,
};
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::executor_backend_state::{
    BackendState, DecommissionStart, Disconnected, DriverLookup, ExitReason, ExitStep,
    LookupFailed, MigrationInfo, ShutdownCheck,
};
pub use crate::spark_core::executor_conf::ExecutorConf;
use crate::spark_core::executor_env::{self, block_manager_port};
use crate::spark_core::executor_log_url_handler;
use crate::spark_core::executor_state::{
    BLOCK_MANAGER_REREGISTRATION_FAILED, ExecutorTasks, HeartbeatAction, HeartbeatOutcome,
    Heartbeater, KillMark, LAUNCH_WHILE_DECOMMISSIONED, TaskEnd, heartbeat_initial_delay_ms,
    seeded_unit,
};
use crate::spark_core::map_output_tracker_worker::MapStatusCache;
use crate::spark_core::memory_store::{EXECUTOR_STORE, MemoryStore, TASK_BINARY_PIECE_BYTES};
use crate::spark_core::task_runner::{DartCost, exception_result, result_dropped, run_task};
use crate::spark_core::unified_memory_manager::max_memory;
use crate::world::addresses::app_cache_dir;
use crate::world::context::SimContext;
use crate::{error, info, info_parts, warn};
use actix::{Actor, AsyncContext, Context, SpawnHandle};
use sparkyard_messages::driver_endpoint::{DriverEndpointMsg, RegisterExecutor};
use sparkyard_messages::endpoint_verifier::EndpointVerifierMsg;
use sparkyard_messages::executor::{ExecutorMainMsg, ExecutorMsg};
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::records::{ExecutorArguments, ExecutorLossReason, RpcFailure, TaskState};
use sparkyard_messages::rpc::HeartbeatResponse;
use sparkyard_messages::rpc::{AskReply, EndpointId, ReplyTo, RpcAddress, SparkAppConfig};
use sparkyard_messages::task::{
    BlockManagerId, BlockManagerPeer, FetchFailure, MapStatusData, MigratedRddBlock,
    MigratedShuffleBlock, ReplicateBlock, ShuffleBlockInfo, ShuffleReadPlan, StatusUpdate,
    TASK_RESULT_BYTES, TaskDescription, TaskResultData, TaskWork,
};
use std::rc::Rc;

const BACKEND: &str = "executor::YarnCoarseGrainedExecutorBackend";
const EXECUTOR: &str = "executor::Executor";
const TRACKER_WORKER: &str = "executor::MapOutputTrackerWorker";
const BLOCK_FETCHER: &str = "executor::ShuffleBlockFetcherIterator";
const DRIVER_ENDPOINT: &str = "CoarseGrainedScheduler";

/// `spark://CoarseGrainedScheduler@host:port` -> `host:port`.
/// The executor JVM's name in seeded draws (its application and id).
fn executor_jvm(args: &ExecutorArguments) -> String {
    format!("{}/{}", args.app_id, args.executor_id)
}

pub fn parse_driver_url(url: &str) -> Option<RpcAddress> {
    let rest = url.strip_prefix("spark://")?;
    let (_, hostport) = rest.split_once('@')?;
    let (host, port) = hostport.rsplit_once(':')?;
    Some(RpcAddress {
        host: host.to_string(),
        port: port.parse().ok()?,
    })
}

/// Looks the driver's endpoint-verifier up; `Err` is `Failed to connect to host:port`.
fn verifier(env: &RpcEnv, url: &str) -> Result<EndpointRef<EndpointVerifierMsg>, RpcFailure> {
    let address = parse_driver_url(url)
        .ok_or_else(|| RpcFailure::spark(format!("Invalid Spark URL: {url}")))?;
    env.setup_endpoint_ref(&address, crate::rpc::verifier::NAME)
        .ok_or_else(|| {
            RpcFailure::new(
                "java.io.IOException",
                format!("Failed to connect to {address}"),
            )
        })
}

/// What the fetcher holds once it handed its arguments to the backend.
fn no_arguments() -> ExecutorArguments {
    ExecutorArguments {
        driver_url: "".into(),
        executor_id: sparkyard_messages::ids::ExecutorId(0),
        hostname: String::new(),
        cores: 0,
        app_id: "".into(),
        resource_profile_id: 0,
    }
}

/// The answers the fetcher waits for.
pub enum MainAnswer {
    /// The endpoint-verifier's `CheckExistence`: whether the driver's endpoint exists.
    Lookup(Result<bool, RpcFailure>),
    Config(Result<SparkAppConfig, RpcFailure>),
}

/// The executor JVM's main thread (`driverPropsFetcher`).
pub struct ExecutorMain {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    args: ExecutorArguments,
    asks: AskTable<MainAnswer>,
    lookup: DriverLookup,
}

impl ExecutorMain {
    pub fn start(sim: Rc<SimContext>, env: RpcEnv, args: ExecutorArguments) {
        ExecutorMain::create(|ctx| {
            let mut env = env;
            let me = env
                .setup_thread("main", &ctx.address(), Some(ExecutorMainMsg::AskReply))
                .id;
            ExecutorMain {
                sim,
                env,
                me,
                args,
                asks: AskTable::default(),
                lookup: DriverLookup::default(),
            }
        });
    }

    fn lookup_timeout(&self) -> AskTimeout {
        let s = &self.sim.config.spark;
        AskTimeout::new(s.lookup_timeout_ms, &s.lookup_timeout_property)
    }

    fn run(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        // The JVM's own warning for the supplemented extraJavaOptions' --add-modules (a real
        // Spark 4.0 executor's stderr starts with it).
        log.stderr_raw(crate::spark_core::java_options::INCUBATOR_MODULES_WARNING);
        // Logging.initializeLogging prints this with no log4j2 configuration in the container
        // (SPARK_CONF_DIR ships only templates).
        log.stderr_raw(
            "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties",
        );
        let addr = self.env.address();
        info!(
            log,
            BACKEND,
            "Started daemon with process name: {}@{}",
            10_000 + addr.port as u32,
            addr.host
        );
        for sig in ["TERM", "HUP", "INT"] {
            info!(
                log,
                "executor::SignalUtils", "Registering signal handler for {sig}"
            );
        }
        // The fetcher's SparkEnv (`RpcEnv.create` with a new SecurityManager).
        executor_env::log_security_manager(&log, &self.sim.config.user);
        self.try_lookup(ctx);
    }

    /// The driver's RPC address, and the connect's time: the fetcher's is the JVM's first
    /// connection (inside the JVM's start-up), the executor env's the second (inside its set-up).
    fn driver_connection(&self, from_fetcher: bool) -> executor_env::ConnectionTo {
        let address = parse_driver_url(&self.args.driver_url).unwrap_or_else(|| RpcAddress {
            host: String::new(),
            port: 0,
        });
        let costs = &self.sim.config.costs;
        let (nth, budget) = if from_fetcher {
            (0, costs.jvm_start_ms)
        } else {
            (1, costs.executor_env_init_ms)
        };
        let jvm = executor_jvm(&self.args);
        executor_env::ConnectionTo {
            ip: self.sim.host_ip(&address.host),
            address,
            connect_ms: executor_env::connect_ms(
                self.sim.config.seed,
                &jvm,
                nth,
                budget,
                2 * costs.network_latency_ms,
            ),
        }
    }

    /// The fetcher's `RpcEnv` reached the driver: its `TransportClientFactory` line.
    fn log_driver_connection(&self) {
        if !self
            .env
            .log()
            .enabled(executor_env::CONNECTIONS, Level::Info)
        {
            return;
        }
        let c = self.driver_connection(true);
        executor_env::log_connection_created(self.env.log(), executor_env::CONNECTIONS, &c);
    }

    /// `setupEndpointRefByURI`, up to 3 tries; the last failure kills the JVM.
    fn try_lookup(&mut self, ctx: &mut Context<Self>) {
        self.lookup.start_try();
        match verifier(&self.env, &self.args.driver_url) {
            Ok(v) => {
                let (me, t) = (self.me, self.lookup_timeout());
                self.ask(ctx, me, &v, MainAnswer::Lookup, &t, |a| {
                    EndpointVerifierMsg::CheckExistence(a, DRIVER_ENDPOINT.into())
                });
            }
            Err(e) => self.lookup_failed(e, ctx),
        }
    }

    fn lookup_failed(&mut self, e: RpcFailure, ctx: &mut Context<Self>) {
        if self.lookup.failed() == LookupFailed::Retry {
            return self.try_lookup(ctx);
        }
        error!(
            self.env.log(),
            BACKEND,
            "Exception in thread \"main\" org.apache.spark.SparkException: Exception thrown in awaitResult: \nCaused by: {e}"
        );
        self.env.exit(1);
    }

    /// The fetched `SparkAppConfig`: as `CoarseGrainedExecutorBackend.run`, the executor's
    /// conf is built from its `sparkProperties`, and what the backend does after this point
    /// (its timeouts, its heartbeat) comes from them.
    fn on_config(&mut self, cfg: SparkAppConfig, ctx: &mut Context<Self>) {
        // `CoarseGrainedExecutorBackend.run` initializes logging again with the driver's conf
        // (structured logging on or off): the default profile line comes a second time.
        self.env
            .log()
            .stderr_raw(executor_env::DEFAULT_LOG4J_PROFILE_LINE);
        executor_env::log_create_executor_env(
            self.env.log(),
            &self.sim.config.user,
            &self.args.app_id,
            self.args.executor_id,
            || self.driver_connection(false),
        );
        let init = self.sim.config.costs.executor_env_init_ms;
        let (sim, env) = (self.sim.clone(), self.env.clone());
        let conf = ExecutorConf::from_properties(&cfg.spark_properties);
        timers::run_later(ctx, clock::ms(init), move |act: &mut Self, _| {
            // The fetcher's work is done: its arguments move to the backend.
            let args = std::mem::replace(&mut act.args, no_arguments());
            CoarseGrainedExecutorBackend::start(sim, env, args, conf);
            act.env.stop_endpoint(act.me);
        });
    }

    fn on_message(&mut self, msg: ExecutorMainMsg, ctx: &mut Context<Self>) {
        let ExecutorMainMsg::AskReply(reply) = msg;
        self.on_ask_reply(reply, ctx);
    }
}

impl Actor for ExecutorMain {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let costs = &self.sim.config.costs;
        let start = costs.executor_jvm_start_ms(self.args.executor_id.0);
        timers::run_later(ctx, clock::ms(start), |act: &mut Self, ctx| act.run(ctx));
    }
}

impl ExecutorMain {
    fn answered(&mut self, answer: MainAnswer, ctx: &mut Context<Self>) {
        match answer {
            MainAnswer::Lookup(Ok(true)) => {
                self.log_driver_connection();
                let Some(driver) = driver_ref(&self.env, &self.args.driver_url) else {
                    return self.lookup_failed(RpcFailure::spark("driver vanished"), ctx);
                };
                let s = &self.sim.config.spark;
                let (me, t) = (
                    self.me,
                    AskTimeout::new(s.ask_timeout_ms, &s.ask_timeout_property),
                );
                let rp = self.args.resource_profile_id;
                self.ask(ctx, me, &driver, MainAnswer::Config, &t, |a| {
                    DriverEndpointMsg::RetrieveSparkAppConfig(a, rp)
                });
            }
            MainAnswer::Lookup(Ok(false)) => {
                self.log_driver_connection();
                let text = format!("Cannot find endpoint: {}", self.args.driver_url);
                self.lookup_failed(
                    RpcFailure::new("org.apache.spark.rpc.RpcEndpointNotFoundException", text),
                    ctx,
                )
            }
            MainAnswer::Lookup(Err(e)) => self.lookup_failed(e, ctx),
            MainAnswer::Config(Ok(cfg)) => self.on_config(cfg, ctx),
            MainAnswer::Config(Err(e)) => {
                error!(
                    self.env.log(),
                    BACKEND,
                    "Exception in thread \"main\" org.apache.spark.SparkException: Exception thrown in awaitResult: \nCaused by: {e}"
                );
                self.env.exit(1);
            }
        }
    }
}

crate::endpoint!(ExecutorMain {
    messages: ExecutorMainMsg => on_message,
    answers: MainAnswer => answered,
});

fn driver_ref(env: &RpcEnv, url: &str) -> Option<EndpointRef<DriverEndpointMsg>> {
    let address = parse_driver_url(url)?;
    env.setup_endpoint_ref(&address, DRIVER_ENDPOINT)
}

/// The answers the backend waits for.
pub enum BackendAnswer {
    /// The endpoint-verifier's `CheckExistence`: whether the driver's endpoint exists.
    Lookup(Result<bool, RpcFailure>),
    Register(Result<bool, RpcFailure>),
    /// The BlockManagerMaster's `GetPeers`.
    Peers(Result<Vec<BlockManagerPeer>, RpcFailure>),
    /// A migration thread's (by slot) `uploadBlockSync` to its peer.
    Upload(u32, Result<(), RpcFailure>),
    /// The RDD thread's `getPeers`: `forced` for `replicateBlock`'s refresh, else its round's.
    RddPeers {
        forced: bool,
        result: Result<Vec<BlockManagerPeer>, RpcFailure>,
    },
    /// The BlockManagerMaster's `GetReplicateInfoForRDDBlocks`.
    RddBlocks(Result<Vec<ReplicateBlock>, RpcFailure>),
    /// The RDD thread's `uploadBlockSync` of a cached block to its peer.
    RddUpload(Result<(), RpcFailure>),
    /// `BlockManager.reregister`'s `registerBlockManager`: whether the master took it.
    Reregistered(Result<bool, RpcFailure>),
}

/// A running task: its timer, so KillTask can cancel it.
struct RunningTask {
    desc: Box<TaskDescription>,
    timer: SpawnHandle,
    result: TaskResultData,
    /// The task computes its cached RDD partition and stores the block when it ends.
    stores_block: bool,
}

/// Spark's `Executor`: exists once registration succeeded. Its task rules are
/// `ExecutorTasks`'; the rest is what its block manager holds.
///
/// `repr(C)`: the fields every task reads come first, in declaration order, so a task's
/// LaunchTask and TaskDone touch few cache lines of it (with a thousand executors taking turns,
/// each executor's state is cold when its next task comes: every line touched is a miss).
#[repr(C)]
struct Executor {
    tasks: ExecutorTasks<RunningTask>,
    /// Its `MapOutputTrackerWorker`'s cache (its epoch is compared at every launch).
    map_statuses: MapStatusCache,
    /// The broadcasts whose piece its block manager fetched and reported to the master.
    broadcast_pieces: SmallSet<u32>,
    /// The block manager's broadcasts, kept only while its log is (its lines are all it shows).
    blocks: Option<Box<ExecutorBlocks>>,
    /// Its heartbeater thread (started with it).
    heartbeater: Heartbeater,
    /// The cached RDD blocks in its MemoryStore (empty unless the program caches).
    rdd_blocks: RddBlocks,
}

/// What an executor's block manager holds of the driver's broadcasts.
struct ExecutorBlocks {
    store: MemoryStore,
    /// Task binaries already read (`TorrentBroadcast`'s value is cached per broadcast id).
    read: SmallSet<u32>,
    /// The first fetch from the driver's block manager opened a connection.
    connected: bool,
    /// The peers' block managers (or shuffle services) a shuffle fetch connected to.
    fetch_clients: FetchClients,
}

/// The `Executor` endpoint (`YarnCoarseGrainedExecutorBackend`).
///
/// `repr(C)`: what every task reads comes first, in declaration order (the backend's state, the
/// context, the driver's reference, the env, the arguments, then the executor's task table), and
/// what only control messages read after, so a task touches few cache lines of this struct: with
/// a thousand executors taking turns, each one's state is cold when its next task comes.
#[repr(C)]
pub struct CoarseGrainedExecutorBackend {
    /// The backend's rules: registration, exit, decommissioning, disconnects.
    state: BackendState,
    sim: Rc<SimContext>,
    driver: Option<EndpointRef<DriverEndpointMsg>>,
    env: RpcEnv,
    args: ExecutorArguments,
    executor: Option<Executor>,
    me: EndpointRef<ExecutorMsg>,
    /// Boxed, as is what follows rare: the smaller the actor, the fewer cache lines its mailbox
    /// and state span (actix keeps the actor inline between its context and its mailbox).
    conf: Box<ExecutorConf>,
    asks: AskTable<BackendAnswer>,
    /// The map outputs in this executor's local dirs (written here or migrated here), kept
    /// only when a decommission would migrate them.
    stored_shuffles: Vec<StoredShuffle>,
    /// The block manager's decommissioner, once decommissioning with migration started.
    decommissioner: Option<Box<BlockManagerDecommissioner>>,
    /// `BlockManager.getPeers`' cache.
    peers: PeerCache,
}

impl CoarseGrainedExecutorBackend {
    fn start(sim: Rc<SimContext>, env: RpcEnv, args: ExecutorArguments, conf: ExecutorConf) {
        CoarseGrainedExecutorBackend::create(|ctx| {
            let mut env = env;
            let me = env.setup_endpoint(
                "Executor",
                &ctx.address(),
                Some(|r| ExecutorMsg::AskReply(Box::new(r))),
            );
            env.on_disconnect(me.id, ExecutorMsg::RemoteProcessDisconnected);
            // `Utils.initDaemon(log)` registers SignalUtils' logger for TERM/HUP/INT; the
            // signal reaches the backend's thread, not the network.
            let addr = ctx.address();
            env.on_sigterm(move || addr.do_send(ExecutorMsg::SignalTerm));
            let state = BackendState::new(conf.decommission_rules(), clock::now_ms());
            CoarseGrainedExecutorBackend {
                sim,
                conf: Box::new(conf),
                env,
                me,
                args,
                driver: None,
                executor: None,
                state,
                asks: AskTable::default(),
                stored_shuffles: Vec::new(),
                decommissioner: None,
                peers: PeerCache::default(),
            }
        });
    }

    /// `SPARK_LOG_URL_STDOUT` / `_STDERR`: the NodeManager's pages for this container's logs.
    fn log_urls(&self) -> Vec<(String, String)> {
        executor_log_url_handler::yarn_log_urls(
            &self.args.hostname,
            self.env.log().key(),
            &self.sim.config.user,
        )
    }

    fn me_id(&self) -> EndpointId {
        self.me.id
    }

    /// A task's two messages are dispatched here; every other message, rare next to them,
    /// goes to `on_control_message`, out of line, so the per-task path stays compact.
    fn on_message(&mut self, msg: ExecutorMsg, ctx: &mut Context<Self>) {
        match msg {
            ExecutorMsg::LaunchTask(task) => self.on_launch_task(task, ctx),
            ExecutorMsg::TaskDone(tid) => self.on_task_done(tid),
            other => self.on_control_message(other, ctx),
        }
    }

    #[inline(never)]
    fn on_control_message(&mut self, msg: ExecutorMsg, ctx: &mut Context<Self>) {
        match msg {
            ExecutorMsg::AskReply(reply) => self.on_reply(*reply, ctx),
            ExecutorMsg::RegisteredExecutor => self.on_registered_executor(ctx),
            // Dispatched by on_message (as TaskDone below); here for the match to be whole.
            ExecutorMsg::LaunchTask(task) => self.on_launch_task(task, ctx),
            ExecutorMsg::KillTask {
                task_id,
                interrupt_thread,
                reason,
            } => self.on_kill_task(task_id, interrupt_thread, reason, ctx),
            ExecutorMsg::StopExecutor => {
                self.state.stop_executor();
                info!(self.env.log(), BACKEND, "Driver commanded a shutdown");
                self.env.send(&self.me, ExecutorMsg::Shutdown);
            }
            ExecutorMsg::Shutdown => self.on_shutdown(),
            ExecutorMsg::TaskDone(tid) => self.on_task_done(tid),
            ExecutorMsg::HeartbeatTick => self.on_heartbeat_tick(ctx),
            ExecutorMsg::RemoteProcessDisconnected(address) => self.on_disconnected(address),
            ExecutorMsg::SignalTerm => self.on_signal_term(),
            ExecutorMsg::DecommissionExecutor => self.decommission_self(ctx),
            ExecutorMsg::DecommissionCheck => self.decommission_check(ctx),
            ExecutorMsg::UploadShuffleBlock(ask, block) => self.on_upload_shuffle_block(ask, block),
            ExecutorMsg::MigrationRound => self.migration_round(ctx),
            ExecutorMsg::MigrationPoll(slot) => {
                let steps = self.with_decommissioner(|d, log, now| d.poll(log, slot, now));
                self.run_steps(steps, ctx);
            }
            ExecutorMsg::MigrationUpload(slot) => self.upload(slot, ctx),
            ExecutorMsg::UploadRddBlock(ask, block) => self.on_upload_rdd_block(ask, block),
            ExecutorMsg::RddMigrationRound => self.rdd_migration_round(ctx),
            ExecutorMsg::RddMigrationUpload => self.rdd_upload(ctx),
        }
    }

    /// `decommissionSelf`: stop taking tasks, start migrating blocks if configured, and exit
    /// once no task runs (the `wait-for-blocks-to-migrate` thread, every second).
    fn decommission_self(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        let id = self.args.executor_id;
        let (migrate, storage_misconfigured) = match self.state.decommission() {
            DecommissionStart::Disabled => {
                let line = "Receive decommission request, but decommission feature is disabled.";
                return warn!(log, BACKEND, "{line}");
            }
            DecommissionStart::AlreadyStarted => {
                return warn!(
                    log,
                    BACKEND, "Executor {id} already started decommissioning."
                );
            }
            DecommissionStart::Started {
                migrate,
                storage_misconfigured,
            } => (migrate, storage_misconfigured),
        };
        info!(log, BACKEND, "Decommission executor {id}.");
        if migrate {
            self.start_block_manager_decommission(&log, ctx);
        } else if storage_misconfigured {
            error!(
                log,
                BACKEND,
                "Storage decommissioning attempted but neither spark.storage.decommission.shuffleBlocks.enabled or spark.storage.decommission.rddBlocks.enabled is enabled "
            );
        }
        // `executor.decommission()`: its launches log an error from now on.
        if let Some(executor) = self.executor.as_mut() {
            executor.tasks.decommission();
        }
        ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
        info!(log, BACKEND, "Will exit when finished decommissioning");
    }

    /// BlockManager.decommissionSelf: the decommissioner starts its threads.
    fn start_block_manager_decommission(
        &mut self,
        log: &crate::kernel::logs::ProcessLog,
        ctx: &mut Context<Self>,
    ) {
        info!(
            log,
            "executor::BlockManager", "Starting block manager decommissioning process..."
        );
        let dir = executor_env::block_manager_dir(
            &self.sim.config.user,
            &self.args.app_id,
            self.args.executor_id,
        );
        let latency = self.sim.config.costs.network_latency_ms;
        let me = self.block_manager_id();
        let mut d =
            BlockManagerDecommissioner::new(self.conf.decommissioner.clone(), latency, dir, me);
        let steps = d.start(log);
        self.decommissioner = Some(Box::new(d));
        self.run_steps(steps, ctx);
    }

    /// One pass of the shutdown thread: exit with `Finished decommissioning` once idle.
    fn decommission_check(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() {
            return;
        }
        let log = self.env.log().clone();
        info!(log, BACKEND, "Checking to see if we can shutdown.");
        let running = self.executor.as_ref().map_or(0, |e| e.tasks.running());
        let migration = self.decommissioner.as_ref().map(|d| {
            let (round_started_ms, all_migrated) = d.last_migration_info();
            MigrationInfo {
                round_started_ms,
                all_migrated,
            }
        });
        // With no task running and migration on, the thread checks the migrations first.
        let checking = "No running tasks, checking migrations";
        match self.state.shutdown_check(running, migration) {
            ShutdownCheck::Stopping => return,
            ShutdownCheck::BlockedByTasks(n) => {
                info!(log, BACKEND, "Blocked from shutdown by {n} running tasks");
                ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
                return;
            }
            ShutdownCheck::BlocksNotMigrated => {
                info!(log, BACKEND, "{checking}");
                info!(log, BACKEND, "All blocks not yet migrated.");
                ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
                return;
            }
            ShutdownCheck::Exit { migrated: true } => {
                info!(log, BACKEND, "{checking}");
                info!(
                    log,
                    BACKEND, "No running tasks, all blocks migrated, stopping."
                );
            }
            ShutdownCheck::Exit { migrated: false } => info!(
                log,
                BACKEND, "No running tasks, no block migration configured, stopping."
            ),
        }
        // ExecutorLossMessage.decommissionFinished.
        self.exit_executor(ExitReason::FinishedDecommissioning, true);
    }

    fn with_decommissioner(
        &mut self,
        f: impl FnOnce(
            &mut BlockManagerDecommissioner,
            &crate::kernel::logs::ProcessLog,
            u64,
        ) -> Vec<Step>,
    ) -> Vec<Step> {
        if self.state.stopping() {
            return Vec::new();
        }
        let log = self.env.log().clone();
        let now = clock::now_ms();
        self.decommissioner
            .as_mut()
            .map_or_else(Vec::new, |d| f(d, &log, now))
    }

    /// Carries the decommissioner's steps out: its timers and its asks.
    fn run_steps(&mut self, steps: Vec<Step>, ctx: &mut Context<Self>) {
        for step in steps {
            match step {
                Step::FetchPeers => self.migration_round(ctx),
                Step::NextRoundAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::MigrationRound, clock::ms(ms));
                }
                Step::PollAfter { slot, ms } => {
                    ctx.notify_later(ExecutorMsg::MigrationPoll(slot), clock::ms(ms));
                }
                Step::UploadAfter { slot, ms } => {
                    ctx.notify_later(ExecutorMsg::MigrationUpload(slot), clock::ms(ms));
                }
                Step::RddRound => self.rdd_migration_round(ctx),
                Step::RddRoundAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::RddMigrationRound, clock::ms(ms));
                }
                Step::RddFetchBlocks => self.ask_rdd_blocks(ctx),
                Step::RddFetchPeers => self.ask_peers(ctx, true),
                Step::RddUploadAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::RddMigrationUpload, clock::ms(ms));
                }
                Step::RddRemoveBlock(block) => self.remove_rdd_block(block),
            }
        }
    }

    fn block_manager_id(&self) -> BlockManagerId {
        BlockManagerId {
            executor_id: self.args.executor_id,
            host: self.args.hostname.clone(),
            port: block_manager_port(self.args.executor_id),
        }
    }

    /// A refresh round: `BlockManager.getPeers` (cached `spark.storage.cachedPeersTtl`), then
    /// both refresh threads' pass.
    fn migration_round(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() || self.decommissioner.is_none() {
            return;
        }
        let ttl = self.conf.decommissioner.cached_peers_ttl_ms;
        if self.peers.fresh(clock::now_ms(), ttl) {
            return self.round_with_cached_peers(ctx);
        }
        let Some(driver) = self.driver.clone() else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = AskTimeout::new(self.conf.ask_timeout_ms, &self.conf.ask_timeout_property);
        self.ask(ctx, me, &driver, BackendAnswer::Peers, &t, |a| {
            DriverEndpointMsg::GetPeers(a, asker)
        });
    }

    /// The RDD thread's round: `getPeers(false)` (cached `spark.storage.cachedPeersTtl`).
    fn rdd_migration_round(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() || self.decommissioner.is_none() {
            return;
        }
        let ttl = self.conf.decommissioner.cached_peers_ttl_ms;
        if !self.peers.fresh(clock::now_ms(), ttl) {
            return self.ask_peers(ctx, false);
        }
        let peers = std::mem::take(&mut self.peers);
        let steps = self.with_decommissioner(|d, log, now| d.rdd_round(log, now, peers.peers()));
        self.peers = peers;
        self.run_steps(steps, ctx);
    }

    /// `BlockManagerMaster.getPeers` for the RDD thread.
    fn ask_peers(&mut self, ctx: &mut Context<Self>, forced: bool) {
        let Some(driver) = self.driver.clone().filter(|_| !self.state.stopping()) else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = AskTimeout::new(self.conf.ask_timeout_ms, &self.conf.ask_timeout_property);
        self.ask(
            ctx,
            me,
            &driver,
            move |result| BackendAnswer::RddPeers { forced, result },
            &t,
            |a| DriverEndpointMsg::GetPeers(a, asker),
        );
    }

    /// `BlockManagerMaster.getReplicateInfoForRDDBlocks(blockManagerId)`.
    fn ask_rdd_blocks(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone().filter(|_| !self.state.stopping()) else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = AskTimeout::new(self.conf.ask_timeout_ms, &self.conf.ask_timeout_property);
        self.ask(ctx, me, &driver, BackendAnswer::RddBlocks, &t, |a| {
            DriverEndpointMsg::GetReplicateInfoForRddBlocks(a, asker)
        });
    }

    /// The RDD thread's asks come back; a failed one stops the thread (the runnable's
    /// `NonFatal` case: `Error occurred during RDD blocks migration.`).
    fn on_rdd_answer(&mut self, answer: BackendAnswer, ctx: &mut Context<Self>) {
        let steps = match answer {
            BackendAnswer::RddPeers { forced, result } => match result {
                Ok(peers) => {
                    let steps = self.with_decommissioner(|d, log, now| {
                        if forced {
                            d.rdd_peers(log, &peers)
                        } else {
                            d.rdd_round(log, now, &peers)
                        }
                    });
                    self.peers.set(clock::now_ms(), peers);
                    steps
                }
                Err(e) => self.rdd_failed(&e),
            },
            BackendAnswer::RddBlocks(Ok(blocks)) => {
                self.with_decommissioner(|d, log, _| d.rdd_blocks(log, blocks))
            }
            BackendAnswer::RddBlocks(Err(e)) => self.rdd_failed(&e),
            BackendAnswer::RddUpload(result) => {
                self.with_decommissioner(|d, log, _| d.rdd_upload_finished(log, result))
            }
            _ => Vec::new(),
        };
        self.run_steps(steps, ctx);
    }

    fn rdd_failed(&mut self, failure: &RpcFailure) -> Vec<Step> {
        let log = self.env.log().clone();
        if let Some(d) = self
            .decommissioner
            .as_mut()
            .filter(|_| !self.state.stopping())
        {
            d.rdd_failed(&log, failure);
        }
        Vec::new()
    }

    /// A migration peer's executor endpoint, if its block server answers; one that does not
    /// fails the upload at once (`Failed to connect to host:port`: the connection is refused).
    fn reachable_peer(
        &self,
        peer: &BlockManagerPeer,
    ) -> Result<EndpointRef<ExecutorMsg>, RpcFailure> {
        let ess_port = self.sim.config.spark.shuffle.service_port;
        self.sim
            .block_server_reachable(&peer.id, ess_port)
            .then(|| self.env.resolve::<ExecutorMsg>(&peer.endpoint))
            .flatten()
            .ok_or_else(|| connect_refused(&peer.id.host, peer.id.port))
    }

    /// The RDD thread's transfer time is over: `uploadBlockSync` to its peer (a peer that does
    /// not answer fails at once: the connection is refused).
    fn rdd_upload(&mut self, ctx: &mut Context<Self>) {
        let Some(d) = self
            .decommissioner
            .as_ref()
            .filter(|_| !self.state.stopping())
        else {
            return;
        };
        let Some((peer, block)) = d.rdd_peer().map(|(p, b)| (p.clone(), b.clone())) else {
            return;
        };
        let target = match self.reachable_peer(&peer) {
            Ok(target) => target,
            Err(failure) => {
                return self.on_rdd_answer(BackendAnswer::RddUpload(Err(failure)), ctx);
            }
        };
        let me = self.me_id();
        let t = AskTimeout::new(self.conf.ask_timeout_ms, &self.conf.ask_timeout_property);
        let migrated = MigratedRddBlock {
            rdd_id: block.rdd_id,
            partition: block.partition,
            mem_size: block.mem_size,
        };
        self.ask(ctx, me, &target, BackendAnswer::RddUpload, &t, |a| {
            ExecutorMsg::UploadRddBlock(a, migrated)
        });
    }

    /// A peer's replicated RDD block arrives (NettyBlockRpcServer's `UploadBlock` ->
    /// `putBlockData`, MEMORY_ONLY deserialized: `MemoryStore.putIteratorAsValues`): stored and
    /// reported to the master, or refused when it does not fit (`putBlockData` false).
    fn on_upload_rdd_block(&mut self, ask: ReplyTo<()>, block: MigratedRddBlock) {
        let id = RddBlockId {
            rdd_id: block.rdd_id,
            partition: block.partition,
        };
        if self.executor.is_none() || self.state.stopping() {
            let port = block_manager_port(self.args.executor_id);
            let failure = connect_refused(&self.args.hostname, port);
            return self.env.reply_failure(ask, failure);
        }
        if !self.put_rdd_block(id, block.mem_size) {
            return self.env.reply_failure(ask, upload_refused_for_space(id));
        }
        self.env.reply(ask, ());
    }

    /// `BlockManager.removeBlock` of a migrated block: out of the MemoryStore, and the master
    /// told (`UpdateBlockInfo` with `StorageLevel.NONE`).
    fn remove_rdd_block(&mut self, block: RddBlockId) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let Some(size) = executor.rdd_blocks.remove(block) else {
            return;
        };
        if let Some(blocks) = executor.blocks.as_mut() {
            blocks
                .store
                .remove(self.env.log(), &block.to_string(), size);
        }
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::RemoveRddBlockInfo {
                block_manager: self.block_manager_id(),
                rdd_id: block.rdd_id,
                partition: block.partition,
            };
            self.env.send(d, msg);
        }
    }

    fn round_with_cached_peers(&mut self, ctx: &mut Context<Self>) {
        let peers = std::mem::take(&mut self.peers);
        let stored = std::mem::take(&mut self.stored_shuffles);
        let steps =
            self.with_decommissioner(|d, log, now| d.round(log, now, peers.peers(), &stored));
        self.peers = peers;
        self.stored_shuffles = stored;
        self.run_steps(steps, ctx);
    }

    fn on_peers(
        &mut self,
        result: Result<Vec<BlockManagerPeer>, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        match result {
            Ok(peers) => {
                self.peers.set(clock::now_ms(), peers);
                self.round_with_cached_peers(ctx);
            }
            Err(e) => {
                let log = self.env.log().clone();
                if let Some(d) = self.decommissioner.as_mut() {
                    d.peers_failed(&log, &e);
                }
            }
        }
    }

    /// A migration thread's transfer time is over: `uploadBlockSync` to its peer. A peer that
    /// does not answer fails at once (the connection is refused).
    fn upload(&mut self, slot: u32, ctx: &mut Context<Self>) {
        let Some(d) = self
            .decommissioner
            .as_ref()
            .filter(|_| !self.state.stopping())
        else {
            return;
        };
        let (Some(block), Some(peer)) = (d.in_flight(slot), d.peer(slot).cloned()) else {
            return;
        };
        let target = match self.reachable_peer(&peer) {
            Ok(target) => target,
            Err(failure) => return self.on_answer(BackendAnswer::Upload(slot, Err(failure)), ctx),
        };
        let me = self.me_id();
        let t = AskTimeout::new(self.conf.ask_timeout_ms, &self.conf.ask_timeout_property);
        let migrated = MigratedShuffleBlock {
            info: block.info,
            data_bytes: block.data_bytes,
            num_reduces: block.num_reduces,
        };
        self.ask(
            ctx,
            me,
            &target,
            move |r| BackendAnswer::Upload(slot, r),
            &t,
            |a| ExecutorMsg::UploadShuffleBlock(a, migrated),
        );
    }

    /// A peer's migrated map output arrives (`putBlockDataAsStream`): refused while this block
    /// manager decommissions; else stored, and reported to the BlockManagerMaster, whose
    /// `updateBlockInfo` moves the map output here.
    fn on_upload_shuffle_block(&mut self, ask: ReplyTo<()>, block: MigratedShuffleBlock) {
        let info: ShuffleBlockInfo = block.info;
        if self.state.refuses_block_uploads() {
            let failure = RpcFailure::new(
                SAVED_ON_DECOMMISSIONED,
                format!(
                    "Block shuffle_{}_{}_0.data cannot be saved on decommissioned executor",
                    info.shuffle_id, info.map_id
                ),
            );
            return self.env.reply_failure(ask, failure);
        }
        if self.conf.keeps_shuffle_files() {
            self.stored_shuffles.push(StoredShuffle {
                info,
                data_bytes: block.data_bytes,
                num_reduces: block.num_reduces,
            });
        }
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateShuffleBlockInfo {
                block_manager: self.block_manager_id(),
                block,
            };
            self.env.send(d, msg);
        }
        self.env.reply(ask, ());
    }

    fn register(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = driver_ref(&self.env, &self.args.driver_url) else {
            return self.exit_executor(self.cannot_register(String::new()), false);
        };
        self.driver = Some(driver.clone());
        let me = self.me.clone();
        let reg = RegisterExecutor {
            executor_id: self.args.executor_id,
            executor_ref: self.env.remote_ref(me.id),
            sender_address: self.env.address(),
            hostname: self.args.hostname.clone(),
            cores: self.args.cores,
            log_urls: self.log_urls(),
            // YarnCoarseGrainedExecutorBackend.extractAttributes.
            attributes: executor_log_url_handler::yarn_attributes(
                &self.args.hostname,
                self.env.log().key(),
                &self.sim.config.user,
            ),
            resource_profile_id: self.args.resource_profile_id,
        };
        let c = &self.conf;
        let t = AskTimeout::new(c.ask_timeout_ms, &c.ask_timeout_property);
        self.ask(ctx, me.id, &driver, BackendAnswer::Register, &t, |a| {
            DriverEndpointMsg::RegisterExecutor(a, Box::new(reg))
        });
    }

    /// `RegisteredExecutor`: create the Executor, then `LaunchedExecutor`.
    fn on_registered_executor(&mut self, ctx: &mut Context<Self>) {
        self.start_heartbeater(ctx);
        let log = self.env.log().clone();
        info!(log, BACKEND, "Successfully registered with driver");
        info!(
            log,
            EXECUTOR,
            "Starting executor ID {} on host {}",
            self.args.executor_id,
            self.args.hostname
        );
        let spark = &self.sim.config.spark;
        let class_path = || executor_env::UserClassPath {
            primary_resource: &spark.primary_resource,
            dist_jars: spark
                .properties
                .get("spark.yarn.dist.jars")
                .map(String::as_str),
            user_class_path_first: spark
                .properties
                .get("spark.executor.userClassPathFirst")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
            container_dir: format!(
                "{}/{}",
                app_cache_dir(&self.sim.config.user, &self.args.app_id),
                log.key()
            ),
        };
        executor_env::log_executor_started(
            &log,
            self.args.executor_id,
            &self.args.hostname,
            &self.sim.config.user,
            class_path,
        );
        let blocks = log
            .enabled(EXECUTOR_STORE.torrent_broadcast, Level::Info)
            .then(|| {
                let heap = self.sim.config.spark.executor_memory_mb;
                Box::new(ExecutorBlocks {
                    store: MemoryStore::new(EXECUTOR_STORE, max_memory(heap)),
                    read: SmallSet::default(),
                    connected: false,
                    fetch_clients: FetchClients::default(),
                })
            });
        self.state.registered();
        self.executor = Some(Executor {
            tasks: ExecutorTasks::default(),
            heartbeater: Heartbeater::new(self.conf.heartbeat_max_failures),
            rdd_blocks: RddBlocks::default(),
            broadcast_pieces: SmallSet::default(),
            map_statuses: MapStatusCache::default(),
            blocks,
        });
        let id = self.args.executor_id;
        // Its BlockManager serves shuffle blocks from this JVM from now on.
        self.sim
            .block_servers
            .executor_started(id, self.env.process);
        self.env
            .trace_state("Executor", || StateChange::ExecutorCreated { executor: id });
        if let Some(d) = &self.driver {
            self.env.send(
                d,
                DriverEndpointMsg::LaunchedExecutor(self.args.executor_id),
            );
        }
    }

    /// The Executor's heartbeater (`Heartbeater.start`): every `spark.executor.heartbeatInterval`
    /// at a fixed rate, after an initial delay of one interval plus a random fraction of one,
    /// drawn from the run's seed and the executor JVM (Spark's `math.random` is unseeded).
    fn start_heartbeater(&mut self, ctx: &mut Context<Self>) {
        let interval = self.conf.heartbeat_interval_ms.max(1);
        let jvm = crate::kernel::trace::fnv1a(executor_jvm(&self.args).as_bytes());
        let random = seeded_unit(self.sim.config.seed, jvm);
        let first = clock::ms(heartbeat_initial_delay_ms(interval, random));
        timers::notify_later_with(ctx, first, || ExecutorMsg::HeartbeatTick);
    }

    /// A fixed-rate tick: the next is armed; a heartbeat still unanswered has timed out now
    /// (its timeout is the interval), and `reportHeartBeat` asks again.
    fn on_heartbeat_tick(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() {
            return;
        }
        let interval = self.conf.heartbeat_interval_ms.max(1);
        timers::notify_later_with(ctx, clock::ms(interval), || ExecutorMsg::HeartbeatTick);
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.heartbeater.tick().is_some() {
            let failure = self.heartbeat_timeout().failure(&self.driver_address());
            self.on_heartbeat(Err(failure), ctx);
            if self.state.stopping() {
                return;
            }
        }
        self.report_heartbeat(ctx);
    }

    /// `RpcTimeout(HEARTBEAT_INTERVAL_MS.millis, EXECUTOR_HEARTBEAT_INTERVAL.key)`.
    fn heartbeat_timeout(&self) -> AskTimeout {
        let interval = self.conf.heartbeat_interval_ms.max(1);
        AskTimeout::in_millis(interval, "spark.executor.heartbeatInterval")
    }

    /// The driver's RPC address (its URL's), named by a timed-out ask.
    fn driver_address(&self) -> RpcAddress {
        parse_driver_url(&self.args.driver_url).unwrap_or_else(|| RpcAddress {
            host: String::new(),
            port: 0,
        })
    }

    /// `reportHeartBeat`'s `heartbeatReceiverRef.askSync[HeartbeatResponse](message, timeout)`:
    /// posted with no timer of its own (the next tick is its timeout; see `Heartbeater`).
    fn report_heartbeat(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone() else {
            return self.on_heartbeat(Err(RpcFailure::spark("no driver")), ctx);
        };
        let id = self.args.executor_id;
        let ask_id = self
            .env
            .ask(self.me.id, &driver, |a| DriverEndpointMsg::Heartbeat(a, id));
        if let Some(executor) = self.executor.as_mut() {
            executor.heartbeater.asked(ask_id);
        }
    }

    /// An ask's reply: the waiting heartbeat's goes to the heartbeater, any other to the ask
    /// table (a heartbeat's reply after its timeout is ignored there, as Spark logs it).
    fn on_reply(&mut self, reply: AskReply, ctx: &mut Context<Self>) {
        let heartbeat = self
            .executor
            .as_mut()
            .is_some_and(|e| e.heartbeater.answers(reply.ask_id));
        if heartbeat {
            return self.on_heartbeat(decode::<HeartbeatResponse>(reply.result), ctx);
        }
        self.on_ask_reply(reply, ctx);
    }

    /// The heartbeat's outcome: a reply resets the failure count (and may ask the block
    /// manager to register again); a failure is counted, warned, and at
    /// `spark.executor.heartbeat.maxFailures` the JVM exits 56.
    fn on_heartbeat(
        &mut self,
        result: Result<HeartbeatResponse, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        let shutting_down = self.state.stopping();
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let outcome = match &result {
            Ok(r) => HeartbeatOutcome::Replied {
                reregister_block_manager: r.reregister_block_manager,
            },
            Err(_) => HeartbeatOutcome::Failed,
        };
        let action = executor.heartbeater.answered(outcome, shutting_down);
        let log = self.env.log().clone();
        match action {
            HeartbeatAction::Reset => {}
            HeartbeatAction::Reregister => {
                info!(log, EXECUTOR, "Told to re-register on heartbeat");
                self.reregister_block_manager(ctx);
            }
            HeartbeatAction::Warn => {
                let e = result.err().unwrap_or_else(|| RpcFailure::spark(""));
                warn!(
                    log,
                    EXECUTOR, "Issue communicating with driver in heartbeater\n{e}"
                );
            }
            HeartbeatAction::Exit { max, code } => {
                let e = result.err().unwrap_or_else(|| RpcFailure::spark(""));
                warn!(
                    log,
                    EXECUTOR, "Issue communicating with driver in heartbeater\n{e}"
                );
                error!(
                    log,
                    EXECUTOR, "Exit as unable to send heartbeats to driver more than {max} times"
                );
                self.system_exit(code);
            }
        }
    }

    /// `System.exit(code)` from an executor thread: the JVM runs its shutdown hooks (Spark's
    /// ShutdownHookManager logs its line) and ends with `code`; the driver learns of the loss
    /// from the disconnect and the AM's loss reason.
    fn system_exit(&mut self, code: i32) {
        let code = self.state.system_exit(code);
        info!(
            self.env.log(),
            "executor::ShutdownHookManager", "Shutdown hook called"
        );
        self.env.exit(code);
    }

    /// `BlockManager.reregister`: `BlockManager <id> re-registering with master`, then
    /// `master.registerBlockManager(..., isReRegister = true)`.
    fn reregister_block_manager(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone() else {
            return;
        };
        let id = self.block_manager_id();
        info!(
            self.env.log(),
            "executor::BlockManager", "BlockManager {id} re-registering with master"
        );
        let c = &self.conf;
        let t = AskTimeout::new(c.ask_timeout_ms, &c.ask_timeout_property);
        let me = self.me.id;
        self.ask(ctx, me, &driver, BackendAnswer::Reregistered, &t, |a| {
            DriverEndpointMsg::ReregisterBlockManager(a, id)
        });
    }

    /// The master's answer: refused (the executor is lost) ends the JVM with
    /// `ExecutorExitCode.BLOCK_MANAGER_REREGISTRATION_FAILED` (58). Taken, `reportAllBlocks`
    /// would report the blocks again; the simulated master refuses every re-registration
    /// (it answers `reregisterBlockManager = true` only for an executor it lost), so nothing
    /// else follows. A failed ask is the heartbeater thread's `NonFatal` (counted by the
    /// next heartbeat, not here).
    fn on_reregistered(&mut self, result: Result<bool, RpcFailure>) {
        if result == Ok(false) && !self.state.stopping() {
            error!(
                self.env.log(),
                "executor::BlockManager",
                "Exiting executor due to block manager re-registration failure"
            );
            self.system_exit(BLOCK_MANAGER_REREGISTRATION_FAILED);
        }
    }

    /// `Task.run` deserializes its stage's task binary: the executor's first task of a stage
    /// attempt reads the broadcast from the driver's block manager (port = the driver's RPC
    /// port + 1, as the driver logs it). The first read opens the JVM's third connection; the
    /// read's time is that connect plus the fetch, within the task's start-up budget (the
    /// executor's first task's warm-up, else the launch overhead).
    fn read_task_binary(&mut self, id: u32) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let costs = &self.sim.config.costs;
        let budget = if executor.tasks.first_task() {
            costs.first_task_warmup_ms
        } else {
            costs.task_launch_overhead_ms
        };
        let Some(blocks) = executor.blocks.as_mut() else {
            return;
        };
        if blocks.read.contains(&id) {
            return;
        }
        blocks.read.insert(id);
        let round_trip = 2 * costs.network_latency_ms;
        let seed = self.sim.config.seed;
        let jvm = executor_jvm(&self.args);
        let first = !std::mem::replace(&mut blocks.connected, true);
        let connection = parse_driver_url(&self.args.driver_url)
            .filter(|_| first)
            .map(|mut address| {
                address.port = executor_env::driver_block_manager_port(address.port);
                executor_env::ConnectionTo {
                    ip: self.sim.host_ip(&address.host),
                    address,
                    connect_ms: executor_env::connect_ms(seed, &jvm, 2, budget, round_trip),
                }
            });
        let connect = connection.as_ref().map_or(0, |c| c.connect_ms);
        let fetch = executor_env::connect_ms(seed, &jvm, 3 + id, budget, round_trip);
        let took = (connect + fetch).min(budget + 2 * round_trip);
        blocks
            .store
            .read_task_binary(self.env.log(), id, took, |log| {
                if let Some(c) = &connection {
                    executor_env::log_connection_created(log, executor_env::CONNECTIONS, c);
                }
            });
    }

    /// `TorrentBroadcast.readBlocks` puts the fetched piece with `tellMaster = true`: the
    /// block manager reports it (`UpdateBlockInfo`) once per broadcast, whether or not its log
    /// shows the read. Sent after the task's RUNNING update: TaskRunner.run reports RUNNING
    /// before it deserializes the task, which reads the broadcast.
    fn report_broadcast_piece(&mut self, id: u32) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.broadcast_pieces.contains(&id) {
            return;
        }
        executor.broadcast_pieces.insert(id);
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateBroadcastBlockInfo {
                block_manager: self.block_manager_id(),
                broadcast_id: id,
                mem_size: TASK_BINARY_PIECE_BYTES,
            };
            self.env.send(d, msg);
        }
    }

    /// Executor.TaskRunner.run's `updateEpoch(task.epoch)` (Spark 4.0.0), after the task is
    /// deserialized and before it runs: the worker's INFO line when the epoch moves on.
    fn update_epoch(&mut self, epoch: u64) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.map_statuses.update_epoch(epoch) {
            info!(
                self.env.log(),
                TRACKER_WORKER, "Updating epoch to {epoch} and clearing cache"
            );
        }
    }

    /// `MapOutputTrackerWorker.getStatuses` for a reduce task: statuses not cached for the
    /// task's epoch are asked of the driver's MapOutputTrackerMasterEndpoint. The answer is the
    /// task's read plan (already here), so the three lines come at the launch; the ask is
    /// sent after the task's RUNNING update (as the task runs) and reaches the driver a network
    /// latency later. Returns the shuffle to ask for.
    fn get_map_statuses(&mut self, plan: &ShuffleReadPlan) -> Option<u32> {
        let executor = self.executor.as_mut()?;
        if !executor.map_statuses.must_fetch(plan.shuffle_id) {
            return None;
        }
        let log = self.env.log().clone();
        let sid = plan.shuffle_id;
        info!(
            log,
            TRACKER_WORKER, "Don't have map outputs for shuffle {sid}, fetching them"
        );
        if let Some(driver) = parse_driver_url(&self.args.driver_url) {
            info!(
                log,
                TRACKER_WORKER,
                "Doing the fetch; tracker endpoint = NettyRpcEndpointRef(spark://MapOutputTracker@{}:{})",
                driver.host,
                driver.port
            );
        }
        info!(log, TRACKER_WORKER, "Got the map output locations");
        Some(sid)
    }

    /// The `GetMapOutputStatuses` ask [`Self::get_map_statuses`] decided on.
    fn ask_map_statuses(&self, shuffle_id: u32) {
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::GetMapOutputStatuses {
                shuffle_id,
                sender: self.env.address(),
            };
            self.env.send(d, msg);
        }
    }

    /// `ShuffleBlockFetcherIterator.initialize` over a complete read plan: how the non-empty
    /// blocks split into local (this executor's), host-local (another executor's on this host,
    /// with `spark.shuffle.readHostLocalDisk`) and remote, then the remote requests
    /// `fetchUpToMaxBytes` sends at once or defers under `spark.reducer.*` (see
    /// [`block_fetch::initial_requests`], in the order the run's seed and the task draw for
    /// Spark's unseeded `Utils.randomize`) and the time it took (the first connection to each
    /// peer: `TransportClientFactory`).
    fn start_block_fetch(&mut self, plan: &ShuffleReadPlan, task_id: TaskId) {
        let log = self.env.log().clone();
        if !log.enabled(BLOCK_FETCHER, Level::Info) {
            return;
        }
        let me = self.args.executor_id;
        let s = &self.sim.config.spark.shuffle;
        let split = block_fetch::split(plan, me, &self.args.hostname, s.fetch.read_host_local_disk);
        info!(log, BLOCK_FETCHER, "{}", split.getting_line());
        let order_seed = self.sim.config.seed ^ task_id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let started = block_fetch::initial_requests(&split.remote, &s.fetch, order_seed);
        let costs = &self.sim.config.costs;
        let (round_trip, budget) = (2 * costs.network_latency_ms, costs.task_launch_overhead_ms);
        let (seed, jvm) = (self.sim.config.seed, executor_jvm(&self.args));
        let mut took = 0;
        for &src in &started.peers {
            let reachable = self.sim.block_server_reachable(src, s.service_port);
            let Some(blocks) = self.executor.as_mut().and_then(|e| e.blocks.as_mut()) else {
                break;
            };
            if !reachable {
                continue;
            }
            let Some(nth) = blocks.fetch_clients.connect(&src.host, src.port) else {
                continue;
            };
            let to = executor_env::ConnectionTo {
                ip: self.sim.host_ip(&src.host),
                address: RpcAddress {
                    host: src.host.clone(),
                    port: src.port,
                },
                connect_ms: executor_env::connect_ms(seed, &jvm, nth, budget, round_trip),
            };
            executor_env::log_connection_created(&log, executor_env::CONNECTIONS, &to);
            took += to.connect_ms;
        }
        info!(log, BLOCK_FETCHER, "{}", started.started_line(took));
    }

    fn on_launch_task(&mut self, desc: Box<TaskDescription>, ctx: &mut Context<Self>) {
        if let Some(reason) = self.state.needs_executor(true) {
            return self.exit_executor(reason, true);
        }
        let log = self.env.log().clone();
        // `Got assigned task {}` and `Running {} (TID {})`, in pieces (two lines of every task).
        info_parts!(log, BACKEND, "Got assigned task ", desc.task_id);
        info_parts!(
            log,
            EXECUTOR,
            "Running ",
            desc.name(),
            " (TID ",
            desc.task_id,
            ")"
        );
        self.update_epoch(desc.epoch);
        self.read_task_binary(desc.task_binary);
        if let Some(split) = &desc.input_split {
            // HadoopRDD.compute (Spark 4.0.0 jar): logInfo at the split's reader creation.
            let tid = desc.task_id;
            info!(
                log,
                "executor::HadoopRDD", "Task (TID {tid}) input split: {split}"
            );
        }
        let sim = self.sim.clone();
        let costs = &sim.config.costs;
        let executor = self.executor.as_mut().expect("checked above");
        // A replayed task that was its recorded executor's first pays its own warm-up back.
        let warmup = if executor.tasks.first_task() {
            desc.work
                .own_first_task_warmup_ms(desc.attempt_number)
                .unwrap_or(costs.first_task_warmup_ms)
        } else {
            0
        };
        let darts = DartCost {
            ns: costs.sparkpi_dart_ns,
            real: costs.sparkpi_real_darts,
        };
        let (work_ms, result) = run_task(&desc.work, desc.attempt_number, darts);
        // A bad executor: a `failing-executor` fault makes every task here throw.
        let attempt = self.sim.current_attempt.get();
        let result =
            match self
                .sim
                .faults
                .task_exception(self.sim.index, attempt, self.args.executor_id.0)
            {
                Some(message) => exception_result(&message),
                None => result,
            };
        // A straggler: a `slow-node` fault stretches the work of tasks launched on its host.
        let work_ms = self
            .sim
            .faults
            .stretch_task_ms(&self.args.hostname, work_ms);
        let (work_ms, stores_block) = self.read_cached_partition(&desc, work_ms);
        let mut ask_statuses = None;
        if let Some(plan) = desc.shuffle.read.clone() {
            ask_statuses = self.get_map_statuses(&plan);
            if plan.missing_map.is_none() {
                self.start_block_fetch(&plan, desc.task_id);
            }
        }
        let (work_ms, result) = match self.fetch_shuffle_input(&desc) {
            // The fetch comes first: a failed one ends the task before its work.
            Some((fetch_ms, failure)) => (fetch_ms, TaskResultData::FetchFailed(Box::new(failure))),
            None => (work_ms, self.write_shuffle_output(&desc, result)),
        };
        // A replayed task's recorded duration already holds its launch cost; the executor's
        // first-task warm-up is the replay's (taken off the log's first tasks, see
        // sparkyard's replay::program::FirstTaskWarmup), paid by whatever task runs first here:
        // that task's own when it was its recorded executor's first, else the log's median.
        let duration = match desc.work {
            TaskWork::Replayed { .. } => warmup + work_ms,
            _ => costs.task_launch_overhead_ms + warmup + work_ms,
        };
        let tid = desc.task_id;
        self.status_update(tid, TaskState::Running, TaskResultData::None, desc.cpus);
        self.report_broadcast_piece(desc.task_binary);
        if let Some(shuffle_id) = ask_statuses {
            self.ask_map_statuses(shuffle_id);
        }
        // The timer holds the id, not a whole 96-byte message.
        let after = clock::ms(duration);
        let timer = timers::notify_later_with(ctx, after, move || ExecutorMsg::TaskDone(tid));
        let executor = self.executor.as_mut().expect("checked above");
        let task = RunningTask {
            desc,
            timer,
            result,
            stores_block,
        };
        let launched = executor.tasks.launch(tid, task, clock::now_ms);
        if launched.decommissioned {
            error!(self.env.log(), EXECUTOR, "{LAUNCH_WHILE_DECOMMISSIONED}");
        }
        // A KillTask came before this LaunchTask: the new runner is killed at once.
        if let Some(mark) = launched.kill {
            self.kill_launched(mark, ctx);
        }
    }

    /// `RDD.getOrCompute` -> `BlockManager.getOrElseUpdate(rdd_<rdd>_<partition>)` for a task
    /// over a cached RDD: a block in this executor's MemoryStore is read locally; one the
    /// BlockManagerMaster placed on another live executor is fetched (`getRemoteValues`, at the
    /// shuffle fetch throughput, not stored here: MEMORY_ONLY keeps one replica); otherwise the
    /// partition is computed and stored when the task ends. Returns the task's time and whether
    /// it stores the block. One enum test for any other task.
    fn read_cached_partition(&self, desc: &TaskDescription, work_ms: u64) -> (u64, bool) {
        let read = match &desc.work {
            TaskWork::CachedRdd(read) => read,
            // A replayed task keeps its recorded time; it stores what no one held at launch.
            TaskWork::Replayed { cache: Some(c), .. } => return (work_ms, c.missing > 0),
            _ => return (work_ms, false),
        };
        // (An empty store allocates nothing; the launch made sure the Executor exists.)
        let none_held = RddBlocks::default();
        let held = self.executor.as_ref().map_or(&none_held, |e| &e.rdd_blocks);
        let block = RddBlockId {
            rdd_id: read.rdd_id,
            partition: desc.partition_id,
        };
        let port = self.sim.config.spark.shuffle.service_port;
        let latency = self.sim.config.costs.network_latency_ms;
        let found = held.get_or_compute(block, read, self.args.executor_id, latency, |bm| {
            self.sim.block_server_reachable(bm, port)
        });
        let log = self.env.log();
        match found {
            CachedRead::Local => {
                info!(log, "executor::BlockManager", "Found block {block} locally");
            }
            CachedRead::Remote { .. } => {
                info!(
                    log,
                    "executor::BlockManager", "Found block {block} remotely"
                );
            }
            CachedRead::Compute {
                unreachable: Some(bm),
                ..
            } => warn!(
                log,
                "executor::BlockManager",
                "Failed to fetch remote block {block} from [{bm}] (failed attempt 1)\njava.io.IOException: Failed to connect to {}:{}",
                bm.host,
                bm.port
            ),
            CachedRead::Compute { .. } => {}
        }
        (work_ms + found.extra_ms(), found.stores_block())
    }

    /// `MemoryStore.putIteratorAsValues` of a computed partition, then the block manager's
    /// `UpdateBlockInfo` to the BlockManagerMaster (`tellMaster`).
    fn store_cached_partition(&mut self, desc: &TaskDescription) {
        let partition = desc.partition_id;
        match &desc.work {
            TaskWork::CachedRdd(read) => {
                let block = RddBlockId {
                    rdd_id: read.rdd_id,
                    partition,
                };
                self.put_rdd_block(block, read.block_bytes);
            }
            TaskWork::Replayed { cache: Some(c), .. } => {
                for &rdd_id in replayed_computed_rdds(c) {
                    // Another copy of the task may have stored it here since this one launched.
                    self.register_rdd_block(RddBlockId { rdd_id, partition }, 0);
                }
            }
            _ => {}
        }
    }

    /// `MemoryStore.putIteratorAsValues` of an RDD block (computed here or replicated from a
    /// peer; see [`RddBlocks::put`]), then the block manager's `UpdateBlockInfo` to the
    /// BlockManagerMaster (`tellMaster`). Returns whether the block is in the store.
    fn put_rdd_block(&mut self, block: RddBlockId, size: u64) -> bool {
        let Some(executor) = self.executor.as_mut() else {
            return false;
        };
        let capacity = max_memory(self.sim.config.spark.executor_memory_mb);
        let log = self.env.log();
        match executor.rdd_blocks.put(block, size, capacity) {
            RddPut::AlreadyHeld => return true,
            RddPut::NoSpace { used, capacity } => {
                // The task goes on with the values it unrolled.
                let computed = bytes_to_string(capacity - used);
                warn!(
                    log,
                    "executor::MemoryStore",
                    "Not enough space to cache {block} in memory! (computed {computed} so far)"
                );
                info!(
                    log,
                    "executor::MemoryStore",
                    "Memory use = {} (blocks) + {computed} (scratch space shared across 1 tasks(s)) = {}. Storage limit = {}.",
                    bytes_to_string(used),
                    bytes_to_string(capacity),
                    bytes_to_string(capacity)
                );
                return false;
            }
            RddPut::Stored => {}
        }
        if let Some(blocks) = executor.blocks.as_mut() {
            blocks.store.put_values(log, &block.to_string(), size);
        }
        self.report_rdd_block(block, size);
        true
    }

    /// A replayed task's block, kept if not held yet. Its level and size are the recording's,
    /// which the log does not give per block: it is kept at size 0, with no MemoryStore line.
    fn register_rdd_block(&mut self, block: RddBlockId, size: u64) {
        let kept = self
            .executor
            .as_mut()
            .is_some_and(|e| e.rdd_blocks.insert_new(block, size));
        if kept {
            self.report_rdd_block(block, size);
        }
    }

    /// The block manager's `UpdateBlockInfo` of a block it now holds, to the BlockManagerMaster.
    fn report_rdd_block(&self, block: RddBlockId, size: u64) {
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateRddBlockInfo {
                block_manager: self.block_manager_id(),
                rdd_id: block.rdd_id,
                partition: block.partition,
                mem_size: size,
            };
            self.env.send(d, msg);
        }
    }

    /// `ShuffleBlockFetcherIterator` over the map outputs the task's read plan names: a missing
    /// output fails at once (`MetadataFetchFailedException` from the MapOutputTracker); a
    /// server that does not answer fails after `spark.shuffle.io.maxRetries` waits of
    /// `spark.shuffle.io.retryWait` (`FetchFailedException`); so does an injected fetch failure.
    /// Returns how long the failed fetch took and the failure.
    fn fetch_shuffle_input(&self, desc: &TaskDescription) -> Option<(u64, FetchFailure)> {
        let plan = desc.shuffle.read.as_ref()?;
        let s = &self.sim.config.spark.shuffle;
        let reduce_id = desc.partition_id;
        let injected = self
            .sim
            .faults
            .take_fetch_failure(self.sim.index, desc.stage_id, reduce_id);
        let seed = self.sim.config.seed;
        let down = |bm: &BlockManagerId| !self.sim.block_server_reachable(bm, s.service_port);
        let log = self.env.log();
        match block_fetch::failed_fetch(plan, injected, seed, desc.task_id.0, down)? {
            FailedFetch::MissingOutput => {
                let text = block_fetch::missing_output_text(plan.shuffle_id, reduce_id);
                error!(log, "executor::MapOutputTracker", "{text}");
                let failure =
                    block_fetch::metadata_fetch_failure(plan.shuffle_id, reduce_id, &text);
                Some((0, failure))
            }
            FailedFetch::Unreachable(src) => {
                // ShuffleBlockFetcherIterator's `onBlockFetchFailure` line.
                let (host, port) = (&src.location.host, src.location.port);
                error!(
                    log,
                    "executor::ShuffleBlockFetcherIterator",
                    "Failed to get block(s) from {host}:{port}"
                );
                let retry_ms = block_fetch::retry_ms(s.io_max_retries, s.io_retry_wait_ms);
                let failure = block_fetch::connect_failure(plan.shuffle_id, reduce_id, src);
                Some((retry_ms, failure))
            }
        }
    }

    /// A ShuffleMapTask's result is its `MapStatus`, at `BlockManager.shuffleServerId`.
    fn write_shuffle_output(
        &self,
        desc: &TaskDescription,
        result: TaskResultData,
    ) -> TaskResultData {
        let Some(w) = desc.shuffle.write else {
            return result;
        };
        if matches!(result, TaskResultData::Exception { .. }) {
            return result;
        }
        let s = &self.sim.config.spark.shuffle;
        let own = block_manager_port(self.args.executor_id);
        TaskResultData::MapStatus(Box::new(MapStatusData {
            location: BlockManagerId {
                executor_id: self.args.executor_id,
                host: self.args.hostname.clone(),
                port: shuffle_server_port(s.service_enabled, s.service_port, own),
            },
            bytes: w.bytes,
            num_reduces: w.num_reduces,
        }))
    }

    /// The task's time is over: `TaskRunner.run`'s end, whose state and result `TaskEnd` names.
    fn on_task_done(&mut self, tid: TaskId) {
        let Some(task) = self.executor.as_mut().and_then(|e| e.tasks.remove(tid)) else {
            return;
        };
        let end = TaskEnd::of(&task.result);
        match end {
            TaskEnd::Exception => self.log_exception(tid, &task),
            TaskEnd::Finished => self.finished(tid, &task),
            // A FetchFailedException is reported as its FetchFailed reason, with no
            // `Exception in task` line.
            TaskEnd::FetchFailed | TaskEnd::Killed => {}
        }
        self.status_update(tid, end.state(), task.result, task.desc.cpus);
    }

    /// `Exception in <task> (TID n)` with the exception's class and message.
    fn log_exception(&self, tid: TaskId, task: &RunningTask) {
        if let TaskResultData::Exception { class, description } = &task.result {
            error!(
                self.env.log(),
                EXECUTOR,
                "Exception in {} (TID {tid})\n{class}: {description}",
                task.desc.name()
            );
        }
    }

    /// A finished task stores its computed cached partition, keeps its map output for a
    /// decommission's migration, and sends its result.
    fn finished(&mut self, tid: TaskId, task: &RunningTask) {
        if task.stores_block {
            self.store_cached_partition(&task.desc);
        }
        if let (TaskResultData::MapStatus(m), Some(w)) = (&task.result, task.desc.shuffle.write)
            && self.conf.keeps_shuffle_files()
        {
            self.stored_shuffles.push(StoredShuffle {
                info: ShuffleBlockInfo {
                    shuffle_id: w.shuffle_id,
                    map_id: tid.0,
                },
                data_bytes: m.bytes,
                num_reduces: m.num_reduces,
            });
        }
        let log = self.env.log().clone();
        self.log_result_sent(&log, &task.desc);
    }

    /// Executor.TaskRunner's line for a serialized result: over `spark.driver.maxResultSize`
    /// it is dropped with a WARN (Spark 4.0.0's text, read from the jar) and only its size goes
    /// to the driver (an IndirectTaskResult), else it is sent.
    fn log_result_sent(&self, log: &crate::kernel::logs::ProcessLog, desc: &TaskDescription) {
        let (name, tid) = (desc.name(), desc.task_id);
        let max = self.sim.config.spark.driver_max_result_size;
        if result_dropped(TASK_RESULT_BYTES, max) {
            warn!(
                log,
                EXECUTOR,
                "Finished {name} (TID {tid}). Result is larger than maxResultSize ({} > {}), dropping it.",
                bytes_to_string(TASK_RESULT_BYTES),
                bytes_to_string(max)
            );
        } else {
            // `Finished {name} (TID {tid}). {TASK_RESULT_BYTES} bytes result sent to driver`.
            info_parts!(
                log,
                EXECUTOR,
                "Finished ",
                name,
                " (TID ",
                tid,
                "). ",
                TASK_RESULT_BYTES,
                " bytes result sent to driver"
            );
        }
    }

    fn on_kill_task(
        &mut self,
        task_id: TaskId,
        interrupt_thread: bool,
        reason: String,
        ctx: &mut Context<Self>,
    ) {
        if let Some(exit) = self.state.needs_executor(false) {
            return self.exit_executor(exit, true);
        }
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let mark = KillMark {
            task_id,
            interrupt_thread,
            reason,
            at_ms: clock::now_ms(),
        };
        // Executor.killTask marks the kill (for a launch still to come) and kills the runner.
        if let Some(task) = executor.tasks.kill(mark.clone()) {
            self.killed(task, mark, ctx);
        }
    }

    /// `launchTask` found a kill mark: the runner it just put is killed.
    fn kill_launched(&mut self, mark: KillMark, ctx: &mut Context<Self>) {
        let task = self
            .executor
            .as_mut()
            .and_then(|e| e.tasks.remove(mark.task_id));
        if let Some(task) = task {
            self.killed(task, mark, ctx);
        }
    }

    /// `TaskRunner.kill`: the task's timer stops and its KILLED status carries
    /// `TaskKilled(killReason)`.
    fn killed(&mut self, task: RunningTask, mark: KillMark, ctx: &mut Context<Self>) {
        ctx.cancel_future(task.timer);
        let (tid, interrupt, reason) = (mark.task_id, mark.interrupt_thread, mark.reason);
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor is trying to kill {} (TID {tid}), interruptThread: {interrupt}, reason: {reason}",
            task.desc.name()
        );
        // The TaskRunner's thread then meets the kill (TaskKilledException at its next
        // interruption check) and logs it before its KILLED status (Spark 4.0.0's
        // Executor$TaskRunner.run: `Executor killed <taskName>, reason: <reason>`).
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor killed {} (TID {tid}), reason: {reason}",
            task.desc.name()
        );
        let data = TaskResultData::Killed { reason };
        self.status_update(tid, TaskState::Killed, data, task.desc.cpus);
    }

    fn status_update(
        &mut self,
        task_id: TaskId,
        state: TaskState,
        data: TaskResultData,
        task_cpus: u32,
    ) {
        if state.is_finished() {
            self.state.task_finished(clock::now_ms);
        }
        if let Some(d) = &self.driver {
            let u = StatusUpdate {
                executor_id: self.args.executor_id,
                task_id,
                state,
                data,
                task_cpus,
            };
            self.env.send(d, DriverEndpointMsg::StatusUpdate(u));
        }
    }

    /// `Shutdown`: with no Executor the JVM exits 1; otherwise the Executor stops and the JVM exits 0.
    fn on_shutdown(&mut self) {
        let code = self.state.shutdown();
        if code != 0 {
            return self.env.exit(code);
        }
        let log = self.env.log().clone();
        // BlockManager.stop: the decommissioner first, then the stores.
        if let Some(d) = self.decommissioner.as_mut() {
            d.stop(&log);
        }
        info!(log, "executor::MemoryStore", "MemoryStore cleared");
        info!(log, "executor::BlockManager", "BlockManager stopped");
        info!(log, "executor::ShutdownHookManager", "Shutdown hook called");
        self.env.exit(code);
    }

    /// SIGTERM (a NodeManager stopping the container): SignalUtils logs it and hands it to the
    /// JVM's default handler, which runs the shutdown hooks and exits 128 + 15. Nothing tells
    /// the driver: it learns of the loss from the disconnect and the AM.
    fn on_signal_term(&mut self) {
        let log = self.env.log().clone();
        error!(log, BACKEND, "RECEIVED SIGNAL TERM");
        let code = self.state.signal_term();
        info!(log, "executor::ShutdownHookManager", "Shutdown hook called");
        self.env.exit(code);
    }

    /// `Cannot register with driver: <url>` (and the failure's text, if any).
    fn cannot_register(&self, cause: String) -> ExitReason {
        ExitReason::CannotRegister {
            driver_url: self.args.driver_url.to_string(),
            cause,
        }
    }

    /// `exitExecutor(code, reason, notifyDriver)`: first call only. Its reason is recorded
    /// once; the error line and the driver's `RemoveExecutor` read that record.
    fn exit_executor(&mut self, reason: ExitReason, notify_driver: bool) {
        let notify_driver = match self.state.exit_executor(reason, notify_driver) {
            ExitStep::Skip => {
                return info!(
                    self.env.log(),
                    BACKEND, "Skip exiting executor since it's been already asked to exit before."
                );
            }
            ExitStep::Exit { notify_driver } => notify_driver,
        };
        let Some(reason) = self.state.exit_reason() else {
            return;
        };
        error!(
            self.env.log(),
            BACKEND, "Executor self-exiting due to : {reason}"
        );
        if notify_driver && let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::RemoveExecutor {
                executor_id: self.args.executor_id,
                reason: ExecutorLossReason::Other(reason.to_string()),
            };
            self.env.send(d, msg);
        }
        // Spark 4.0 sends itself `Shutdown` (no `System.exit(code)`): it exits 1 without an
        // Executor, else 0.
        self.on_shutdown();
    }

    fn on_disconnected(&mut self, address: RpcAddress) {
        // The driver's address is the URL's (parsed here: disconnects are rare).
        let is_driver = Some(&address) == parse_driver_url(&self.args.driver_url).as_ref();
        let seen = self.state.disconnected(is_driver);
        let log = self.env.log();
        match seen {
            Disconnected::Driver => {
                self.exit_executor(ExitReason::DriverDisassociated(address.to_string()), false)
            }
            Disconnected::DuringShutdown => crate::sim_log!(
                log,
                BACKEND,
                seen.level(),
                "Driver from {address} disconnected during shutdown"
            ),
            Disconnected::Unknown => crate::sim_log!(
                log,
                BACKEND,
                seen.level(),
                "An unknown ({address}) driver disconnected."
            ),
        }
    }
}

impl Actor for CoarseGrainedExecutorBackend {
    type Context = Context<Self>;

    /// OnStart: `Connecting to driver`, look the driver up, ask `RegisterExecutor`.
    fn started(&mut self, ctx: &mut Context<Self>) {
        info!(
            self.env.log(),
            BACKEND, "Connecting to driver: {}", self.args.driver_url
        );
        // onStart checks Netty's direct memory against the shuffle's transport conf, built
        // with a new SecurityManager's SSL options (CoarseGrainedExecutorBackend.onStart in the
        // 4.0.0 jar): its ACL block, then `parseOrFindResources`.
        executor_env::log_security_manager(self.env.log(), &self.sim.config.user);
        executor_env::log_no_custom_resources(self.env.log());
        match verifier(&self.env, &self.args.driver_url) {
            Ok(v) => {
                let c = &self.conf;
                let t = AskTimeout::new(c.lookup_timeout_ms, &c.lookup_timeout_property);
                let me = self.me_id();
                self.ask(ctx, me, &v, BackendAnswer::Lookup, &t, |a| {
                    EndpointVerifierMsg::CheckExistence(a, DRIVER_ENDPOINT.into())
                });
            }
            Err(_) => self.exit_executor(self.cannot_register(String::new()), false),
        }
    }
}

impl CoarseGrainedExecutorBackend {
    fn answered(&mut self, answer: BackendAnswer, ctx: &mut Context<Self>) {
        match answer {
            BackendAnswer::Lookup(Ok(true)) => self.register(ctx),
            BackendAnswer::Register(Ok(true)) => {
                self.env.send(&self.me, ExecutorMsg::RegisteredExecutor);
            }
            BackendAnswer::Peers(result) => self.on_peers(result, ctx),
            BackendAnswer::Upload(slot, result) => {
                let steps = self
                    .with_decommissioner(|d, log, now| d.upload_finished(log, slot, now, result));
                self.run_steps(steps, ctx);
            }
            a @ (BackendAnswer::RddPeers { .. }
            | BackendAnswer::RddBlocks(_)
            | BackendAnswer::RddUpload(_)) => self.on_rdd_answer(a, ctx),
            BackendAnswer::Reregistered(result) => self.on_reregistered(result),
            BackendAnswer::Lookup(result) | BackendAnswer::Register(result) => {
                let cause = result.err().map(|e| e.to_string()).unwrap_or_default();
                self.exit_executor(self.cannot_register(cause), false);
            }
        }
    }
}

crate::endpoint!(CoarseGrainedExecutorBackend {
    messages: ExecutorMsg => on_message,
    answers: BackendAnswer => answered,
});
