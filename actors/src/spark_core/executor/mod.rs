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
//!
//! This file holds the backend's struct, its actor and its message dispatch; each of Spark's
//! pieces is a room beside it, an `impl` of the same struct: `main` (the fetcher, its own actor),
//! `registration`, `heartbeater`, `task_launch`, `cached_partitions`, `shuffle`, `task_end`,
//! `task_kill`, `decommission`, `block_migration` and `shutdown`.

mod block_migration;
mod cached_partitions;
mod decommission;
mod heartbeater;
mod main;
mod registration;
mod shuffle;
mod shutdown;
mod task_end;
mod task_kill;
mod task_launch;

pub use main::ExecutorMain;

use crate::info;
use crate::kernel::clock;
use crate::kernel::small_map::SmallSet;
use crate::rpc::ask::decode;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::block_fetch::FetchClients;
use crate::spark_core::block_manager::{PeerCache, RddBlocks};
use crate::spark_core::block_manager_decommissioner::{BlockManagerDecommissioner, StoredShuffle};
use crate::spark_core::executor_backend_state::{BackendState, ExitReason};
pub use crate::spark_core::executor_conf::ExecutorConf;
use crate::spark_core::executor_env::{self, block_manager_port};
use crate::spark_core::executor_log_url_handler;
use crate::spark_core::executor_state::{ExecutorTasks, Heartbeater, KillMark};
use crate::spark_core::map_output_tracker_worker::MapStatusCache;
use crate::spark_core::memory_store::MemoryStore;
use crate::spark_core::resource_profile::{self, CustomResources, DiscoveryError};
use crate::world::context::SimContext;
use actix::{Actor, AsyncContext, Context, SpawnHandle};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::endpoint_verifier::EndpointVerifierMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::listener::ResourceInformation;
use sparkyard_messages::records::{ExecutorArguments, RpcFailure};
use sparkyard_messages::rpc::HeartbeatResponse;
use sparkyard_messages::rpc::{AskReply, EndpointId, RpcAddress};
use sparkyard_messages::task::{
    BlockManagerId, BlockManagerPeer, ReplicateBlock, TaskDescription, TaskResultData,
};
use std::rc::Rc;

const BACKEND: &str = "executor::YarnCoarseGrainedExecutorBackend";
const EXECUTOR: &str = "executor::Executor";
const TRACKER_WORKER: &str = "executor::MapOutputTrackerWorker";
const BLOCK_FETCHER: &str = "executor::ShuffleBlockFetcherIterator";
const DRIVER_ENDPOINT: &str = "CoarseGrainedScheduler";

/// The executor JVM's name in seeded draws (its application and id).
fn executor_jvm(args: &ExecutorArguments) -> String {
    format!("{}/{}", args.app_id, args.executor_id)
}

/// `spark://CoarseGrainedScheduler@host:port` -> `host:port`.
pub fn parse_driver_url(url: &str) -> Option<RpcAddress> {
    let rest = url.strip_prefix("spark://")?;
    let (_, hostport) = rest.split_once('@')?;
    let (host, port) = hostport.rsplit_once(':')?;
    Some(RpcAddress {
        host: host.to_string(),
        port: port.parse().ok()?,
    })
}

/// Looks the driver's endpoint-verifier up; `Err` is the refused connection to its address.
fn verifier(env: &RpcEnv, url: &str) -> Result<EndpointRef<EndpointVerifierMsg>, RpcFailure> {
    let address = parse_driver_url(url)
        .ok_or_else(|| RpcFailure::spark(format!("Invalid Spark URL: {url}")))?;
    env.setup_endpoint_ref(&address, crate::rpc::verifier::NAME)
        .ok_or_else(|| {
            let ip = env.host_ip(&address.host);
            crate::rpc::connection::connection_refused(&address, &ip)
        })
}

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
    /// A task's fetch asked the BlockManagerMaster `IsExecutorAlive` of its failing server.
    FetchExecutorAlive(TaskId, Result<bool, RpcFailure>),
}

/// A running task: its timer, so KillTask can cancel it.
struct RunningTask {
    desc: Box<TaskDescription>,
    timer: SpawnHandle,
    result: TaskResultData,
    /// The task computes its cached RDD partition and stores the block when it ends.
    stores_block: bool,
    /// A kill that takes effect when its time is over (a replayed attempt the recording ended
    /// by a kill: `TaskWork::runs_until_killed`).
    kill_at_end: Option<Box<KillMark>>,
    /// Its fetch from a server that does not answer, retried until it fails the task.
    fetch_retries: Option<Box<shuffle::FetchRetries>>,
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
    /// The broadcast of the last task's piece, known to be in `broadcast_pieces`: a stage's
    /// tasks after its first find it here, on a line they read anyway, instead of in the set's
    /// own allocation (a cache miss per task with a thousand executors taking turns).
    latest_piece: Option<u32>,
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
    /// The custom resources (GPUs) it found at start-up, for its registration.
    resources: Vec<ResourceInformation>,
    /// The GPUs its container was assigned, if YARN scheduled any (`container_resource_count`).
    container_gpus: Option<u32>,
}

impl CoarseGrainedExecutorBackend {
    fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        args: ExecutorArguments,
        conf: ExecutorConf,
        container_gpus: Option<u32>,
    ) {
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
                resources: Vec::new(),
                container_gpus,
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
            ExecutorMsg::FetchAttempt(tid) => self.on_fetch_attempt(tid, ctx),
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

    fn block_manager_id(&self) -> BlockManagerId {
        BlockManagerId {
            executor_id: self.args.executor_id,
            host: self.args.hostname.clone(),
            port: block_manager_port(self.args.executor_id),
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
        if let Err(e) = self.parse_or_find_resources() {
            // exitExecutor(1, ...) before the driver's reference is set: nobody is told.
            return self.exit_executor(ExitReason::UnableToCreate(e), false);
        }
        match verifier(&self.env, &self.args.driver_url) {
            Ok(v) => {
                let c = &self.conf;
                let t = AskTimeout::new(c.lookup_timeout_ms, &c.lookup_timeout_property);
                let me = self.me_id();
                self.ask(ctx, me, &v, BackendAnswer::Lookup, &t, |a| {
                    EndpointVerifierMsg::CheckExistence(a, DRIVER_ENDPOINT.into())
                });
            }
            Err(e) => self.exit_executor(self.cannot_register(e.stack_text()), false),
        }
    }
}

impl CoarseGrainedExecutorBackend {
    /// `parseOrFindResources` (no resources file on YARN): the default profile's custom
    /// resources discovered, then `ResourceUtils.logResourceInfo`.
    fn parse_or_find_resources(&mut self) -> Result<(), DiscoveryError> {
        let props = &self.sim.config.spark.properties;
        // A conf whose keys the driver refused never starts executors: none found here.
        let custom = CustomResources::of(props).unwrap_or_default();
        let to = &executor_env::EXECUTOR_RESOURCES;
        if custom.executor.is_empty() {
            executor_env::log_resource_info(self.env.log(), to, None);
            return Ok(());
        }
        let gpus = self.container_gpus;
        let found = resource_profile::discover(&custom.executor, |r| {
            resource_profile::container_resource_count(r, gpus)
        })?;
        executor_env::log_resource_info(self.env.log(), to, Some(&found));
        self.resources = found.resources;
        Ok(())
    }

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
            BackendAnswer::FetchExecutorAlive(tid, result) => {
                self.on_fetch_executor_alive(tid, result, ctx)
            }
            BackendAnswer::Lookup(result) | BackendAnswer::Register(result) => {
                // `exitExecutor` logs the ask's failure with its causes.
                let cause = result.err().map(|e| e.stack_text()).unwrap_or_default();
                self.exit_executor(self.cannot_register(cause), false);
            }
        }
    }
}

crate::endpoint!(CoarseGrainedExecutorBackend {
    messages: ExecutorMsg => on_message,
    answers: BackendAnswer => answered,
});
