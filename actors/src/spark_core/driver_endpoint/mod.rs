//! The driver's `CoarseGrainedScheduler` endpoint (`CoarseGrainedSchedulerBackend.DriverEndpoint`,
//! YARN's `YarnDriverEndpoint`): executor registration and its rejections, `LaunchedExecutor`,
//! `makeOffers`, `StatusUpdate`, `ReviveOffers` every `spark.scheduler.revive.interval`,
//! readiness, executor removal (AM report and disconnect paths), `StopExecutors`, `StopDriver`;
//! and the backend's `ExecutorAllocationClient` side of dynamic allocation
//! (`requestTotalExecutors`, `killExecutors` with `executorsPendingToRemove`), whose
//! ExecutorAllocationManager it runs every 100 ms.

use crate::faults::Trigger;
use crate::kernel::clock;
use crate::kernel::trace::StateChange;
use crate::rpc::{EndpointRef, RpcEnv};
use crate::spark_core::block_manager_master::{self, RddBlockId};
use crate::spark_core::coarse_grained_backend::{
    self as backend_rules, DecommissionOutcome, ExecutorListing, HostDecommission, HostRequest,
};
use crate::spark_core::driver_endpoint_state::{
    DecommissionInfo, DriverEndpointState, ExecutorData, ExecutorRegistration, Removal,
};
use crate::spark_core::exec_request_times::ExecRequestTimes;
use crate::spark_core::executor_allocation_manager::{
    self as eam, AllocationListener, ExecutorAllocationClient, ExecutorAllocationManager,
};
use crate::spark_core::executor_env::block_manager_port;
use crate::spark_core::executor_log_url_handler::ExecutorLogUrlHandler;
use crate::spark_core::executor_monitor::ShuffleDataQuery;
use crate::spark_core::heartbeat_receiver::{HeartbeatReceiver, heartbeat_response};
use crate::spark_core::scheduler::allocation_client::{AllocationClient, ExecutorDecommission};
use crate::spark_core::scheduler::{DriverScheduler, SchedulerEvent, WorkerOffer};
use crate::spark_core::shuffle_block_updates::{self, ShuffleFile};
use crate::spark_core::task_result_getter::{EndKind, TaskEnded};
use crate::spark_core::{executor_env, unified_memory_manager};
use crate::world::context::SimContext;
use crate::world::injector;
use crate::world::invariants::{self, name as inv};
use crate::world::listener::ContextBus;
use crate::world::observer::{LostExecutor, RunEvent};
use crate::{debug, info, sim_log, warn};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::driver_endpoint::{DriverEndpointMsg, RegisterExecutor};
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::records::{ExecutorLossReason, RpcFailure};
use sparkyard_messages::rpc::HeartbeatResponse;
use sparkyard_messages::rpc::{EndpointId, RemoteRef, ReplyTo, RpcAddress, SparkAppConfig};
use sparkyard_messages::task::{
    BlockManagerId, BlockManagerPeer, MigratedShuffleBlock, StatusUpdate,
};
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;

const TARGET: &str = "driver::YarnSchedulerBackend$YarnDriverEndpoint";
const BACKEND: &str = "driver::YarnClusterSchedulerBackend";
const TS: &str = "driver::YarnClusterScheduler";

/// State the backend's two endpoints share (fields of `CoarseGrainedSchedulerBackend`).
#[derive(Default)]
pub struct BackendState {
    /// `currentExecutorIdCounter`: the highest executor id registered.
    pub max_executor_id: u32,
    pub stopped: bool,
    /// `SparkContext.stop()` has begun (the driver signalled the AM to stop): the
    /// ExecutorAllocationManager is stopped, so it no longer changes the target.
    pub stopping: bool,
    /// `scheduler.excludedNodes()` (the HealthTracker's excluded nodes) as of its last change:
    /// YarnSchedulerBackend's `prepareRequestExecutors` reads it for every request, also the
    /// one `stop()` sends from the Driver thread.
    pub excluded_nodes: BTreeSet<String>,
}

/// The executors a revive's `makeOffers` can launch a task on, in id order: registered,
/// launched, not waiting for a loss reason, with free cores for a task. Every change of those
/// updates it, so a revive (one per failed task, lost executor or finished stage) visits the
/// executors that take a task instead of walking every executor of the application.
#[derive(Default)]
struct Offerable(BTreeSet<ExecutorId>);

impl Offerable {
    fn set(&mut self, id: ExecutorId, offerable: bool) {
        if offerable {
            self.0.insert(id);
        } else {
            self.0.remove(&id);
        }
    }

    /// Whether `id` is offerable now (what `update_offerable` derives from `core`).
    fn update(
        &mut self,
        sim: &SimContext,
        core: &DriverEndpointState<EndpointRef<ExecutorMsg>>,
        id: ExecutorId,
    ) {
        let task_cpus = sim.config.spark.task_cpus.max(1);
        self.set(id, core.offerable(id, task_cpus));
    }

    /// The first offerable executor after `after` (from the start for `None`).
    fn next(&self, after: Option<ExecutorId>) -> Option<ExecutorId> {
        use std::ops::Bound::{Excluded, Unbounded};
        match after {
            None => self.0.first().copied(),
            Some(a) => self.0.range((Excluded(a), Unbounded)).next().copied(),
        }
    }
}

/// The DriverEndpoint actor.
pub struct DriverEndpoint {
    /// `spark.ui.custom.executor.log.url`'s rewriting of executors' log URLs.
    log_url_handler: ExecutorLogUrlHandler,
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    shared: Rc<RefCell<BackendState>>,
    /// The executors and the rules of their registration, removal, kill and decommission.
    core: DriverEndpointState<EndpointRef<ExecutorMsg>>,
    /// What `update_offerable` derives from `core`.
    offerable: Offerable,
    /// `StopExecutors` was answered: SparkContext.stop asks `StopDriver` next, which stops this
    /// endpoint before the executors it told to stop have gone (their JVMs take a while; here
    /// their disconnects would come first, as their shutdown takes no virtual time).
    executors_told_to_stop: bool,
    scheduler: DriverScheduler,
    created_ms: u64,
    ready: bool,
    bus: ContextBus,
    /// The driver's `HeartbeatReceiver`.
    heartbeats: HeartbeatReceiver,
    /// `execRequestTimes`: when the executors asked for through the backend were asked for.
    request_times: ExecRequestTimes,
    /// Tasks finished successfully in this SparkContext (fault triggers).
    tasks_finished: u64,
    /// The scheduler's task ends being published (kept to reuse its allocation).
    task_ends: Vec<TaskEnded>,
    /// `SparkAppConfig.sparkProperties`, built once and shared by every executor's copy.
    app_properties: Arc<Vec<(String, String)>>,
    /// The tasks of the offer being made (kept to reuse its allocation).
    offered: crate::spark_core::scheduler::LaunchedTasks,
    /// The offers of one `makeOffers` (reused).
    offers: Vec<WorkerOffer>,
    /// The ExecutorAllocationManager when dynamic allocation is on (shared with its listener
    /// on the bus).
    allocation: Option<Rc<AllocationListener>>,
    /// A `ResubmitFailedStages` the DAGScheduler asked for, to be scheduled after the message
    /// being handled (ms from now).
    resubmit_after_ms: Option<u64>,
    /// `spark.executor.decommission.forceKillTimeout` (seconds; none by default).
    force_kill_timeout_s: Option<u64>,
    /// Decommissions whose force-kill check is to be scheduled after the current message.
    force_kills_due: Vec<Vec<ExecutorId>>,
    /// Unschedulable task sets' abort timers to start after the current message (ms, task
    /// set, task index).
    abort_timers_due: Vec<(u64, (u32, u32, u32), u32)>,
    /// When each abort timer started and not yet run will run (virtual ms): the tasks queued
    /// in TaskSchedulerImpl's `task-abort-timer` pool, which `stop` waits for.
    abort_timers_pending: Vec<u64>,
    /// `StopDriver` was handled: the endpoint takes no more messages while the TaskSchedulerImpl
    /// waits for its abort timers (see [`abort_timer_shutdown_wait_ms`]).
    stopped: bool,
}

/// `ThreadUtils.shutdown`'s default grace period (`shutdown$default$2`: `FiniteDuration(30,
/// SECONDS)` in Spark 4.0.0's jar).
const THREAD_POOL_SHUTDOWN_GRACE_MS: u64 = 30_000;

/// How long `TaskSchedulerImpl.stop` blocks on `ThreadUtils.shutdown(abortTimer)` (Spark 4.0.0's
/// jar): the pool is a `ScheduledThreadPoolExecutor` that keeps delayed tasks after
/// `shutdown()` (the JDK's default), `updateUnschedulableTaskSetTimeoutAndStartAbortTimer` drops
/// the future it schedules (nothing cancels it, not even a launch that clears
/// `unschedulableTaskSetToExpiryTime`), and `awaitTermination` waits up to 30 s for the pool to
/// run them all: until the last pending timer, at most 30 s. A real local-cluster run whose
/// task set had been unschedulable 21 s before `sc.stop()` took 30 s to stop.
pub fn abort_timer_shutdown_wait_ms(pending: &[u64], now_ms: u64) -> u64 {
    pending.iter().max().map_or(0, |last| {
        last.saturating_sub(now_ms)
            .min(THREAD_POOL_SHUTDOWN_GRACE_MS)
    })
}

impl DriverEndpoint {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        shared: Rc<RefCell<BackendState>>,
        bus: ContextBus,
    ) -> EndpointRef<DriverEndpointMsg> {
        let mut out = None;
        DriverEndpoint::create(|ctx| {
            let mut env = env;
            let me = env.setup_endpoint::<_, DriverEndpointMsg>(
                "CoarseGrainedScheduler",
                &ctx.address(),
                None,
            );
            env.on_disconnect(me.id, DriverEndpointMsg::RemoteProcessDisconnected);
            out = Some(me.clone());
            let s = &sim.config.spark;
            let allocation = allocation_manager(&sim, &env);
            let bus = match &allocation {
                Some(m) => bus.with_listener(m.clone()),
                None => bus,
            };
            let scheduler = DriverScheduler::new(
                env.log().clone(),
                bus.clone(),
                s.task_max_failures,
                s.task_cpus,
            )
            .with_shuffle(s.shuffle.clone())
            .with_scheduling_mode(s.scheduler_mode)
            .with_allocation_file(s.allocation_file.as_ref())
            .with_max_result_size(s.driver_max_result_size)
            .with_driver_memory(unified_memory_manager::max_memory(s.driver_memory_mb))
            .with_driver_block_manager(
                env.address().host.clone(),
                executor_env::driver_block_manager_port(env.address().port),
            )
            .with_speculation(s.speculation)
            .with_exclusion(
                &s.exclude_on_failure,
                s.unschedulable_task_set_timeout_ms,
                s.dynamic_allocation.is_some(),
                bus.clone(),
            )
            .with_locality(
                s.locality,
                sim.config
                    .nodes
                    .iter()
                    .map(|n| (n.host.as_str(), n.rack.as_str())),
                sim.config.seed,
            );
            let props: Vec<(String, String)> = s
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            DriverEndpoint {
                log_url_handler: ExecutorLogUrlHandler::new(
                    s.properties
                        .get("spark.ui.custom.executor.log.url")
                        .cloned(),
                ),
                sim: sim.clone(),
                env,
                me: me.id,
                shared,
                core: DriverEndpointState::new(allocation.is_some()),
                offerable: Offerable::default(),
                executors_told_to_stop: false,
                scheduler,
                created_ms: clock::now_ms(),
                ready: false,
                bus,
                heartbeats: HeartbeatReceiver::default(),
                request_times: ExecRequestTimes::default(),
                tasks_finished: 0,
                task_ends: Vec::new(),
                offered: Vec::new(),
                offers: Vec::new(),
                app_properties: Arc::new(props),
                allocation,
                resubmit_after_ms: None,
                force_kill_timeout_s: s.decommission_force_kill_timeout_s,
                force_kills_due: Vec::new(),
                abort_timers_due: Vec::new(),
                abort_timers_pending: Vec::new(),
                stopped: false,
            }
        });
        out.expect("create runs its closure")
    }

    /// Status updates (three per task) are dispatched here; every other message goes to
    /// `on_control_message`, out of line, so the per-task path stays compact.
    fn on_message(&mut self, msg: DriverEndpointMsg, ctx: &mut Context<Self>) {
        if self.stopped {
            // A stopped endpoint: Spark's Dispatcher no longer finds it.
            return;
        }
        match msg {
            DriverEndpointMsg::StatusUpdate(update) => self.on_status_update(update),
            other => self.on_control_message(other, ctx),
        }
        self.after_message(ctx);
    }

    #[inline(never)]
    fn on_control_message(&mut self, msg: DriverEndpointMsg, ctx: &mut Context<Self>) {
        match msg {
            DriverEndpointMsg::RetrieveSparkAppConfig(ask, rp) => {
                self.on_retrieve_spark_app_config(ask, rp)
            }
            DriverEndpointMsg::RegisterExecutor(ask, reg) => self.on_register_executor(ask, *reg),
            DriverEndpointMsg::LaunchedExecutor(id) => self.on_launched_executor(id),
            // Dispatched by on_message; here for the match to be whole.
            DriverEndpointMsg::StatusUpdate(update) => self.on_status_update(update),
            DriverEndpointMsg::ReviveOffers => self.make_offers(None),
            DriverEndpointMsg::KillTask {
                task_id,
                executor_id,
                interrupt_thread,
                reason,
            } => self.kill_task(task_id, executor_id, interrupt_thread, reason),
            DriverEndpointMsg::StopExecutors(ask) => self.on_stop_executors(ask),
            DriverEndpointMsg::StopDriver(ask) => self.on_stop_driver(ask, ctx),
            DriverEndpointMsg::RemoveExecutor {
                executor_id,
                reason,
            } => self.on_remove_executor(executor_id, reason),
            DriverEndpointMsg::IsExecutorAlive(ask, id) => {
                self.env.reply(ask, self.core.executors.contains(id))
            }
            DriverEndpointMsg::SubmitJob { job, waiter, pool } => {
                let n: usize = job.stages.iter().map(|s| s.tasks.len()).sum();
                self.sim.observe(RunEvent::JobSubmitted { tasks: n as u64 });
                let events = self
                    .scheduler
                    .submit_job_in_pool(*job, *waiter, pool.as_deref());
                self.handle_events(events);
            }
            DriverEndpointMsg::RemoteProcessDisconnected(address) => self.on_disconnected(address),
            DriverEndpointMsg::Heartbeat(ask, id) => self.on_heartbeat(ask, id),
            DriverEndpointMsg::ReregisterBlockManager(ask, id) => {
                self.on_reregister_block_manager(ask, id)
            }
            DriverEndpointMsg::ExpireDeadHosts => self.expire_dead_hosts(),
            // The `exclude-node` fault: the HealthTracker's node exclusion (the injector fires
            // it only when Spark has a HealthTracker). Spark logs a node's exclusion only with
            // its cause, and this one has none, so no line; `Excluding node H for the
            // application` is no line of Spark 4.0.0's jar.
            DriverEndpointMsg::ExcludeNode(host) => {
                let (scheduler, mut backend) = self.split();
                let events = scheduler.exclude_node_by_fault(&host, &mut backend);
                self.handle_events(events);
            }
            DriverEndpointMsg::CheckBackendReady { waiter } => {
                self.check_backend_ready(waiter, ctx)
            }
            DriverEndpointMsg::DecommissionExecutorsOnHost(host) => {
                self.decommission_executors_on_host(&host)
            }
            DriverEndpointMsg::KillExecutorsOnHost(host) => {
                self.kill_alive_executors_on_host(&host)
            }
            DriverEndpointMsg::GetPeers(ask, asker) => {
                let peers = self.block_manager_peers(&asker);
                self.env.reply(ask, peers)
            }
            DriverEndpointMsg::UpdateShuffleBlockInfo {
                block_manager,
                block,
            } => self.update_shuffle_block_info(block, block_manager),
            DriverEndpointMsg::UpdateRddBlockInfo {
                block_manager,
                rdd_id,
                partition,
                mem_size,
            } => {
                let max =
                    unified_memory_manager::max_memory(self.sim.config.spark.executor_memory_mb);
                let block = RddBlockId { rdd_id, partition };
                self.scheduler
                    .update_rdd_block_info(&block_manager, block, mem_size, max)
            }
            DriverEndpointMsg::UpdateBroadcastBlockInfo {
                block_manager,
                broadcast_id,
                mem_size,
            } => self
                .scheduler
                .update_broadcast_block_info(&block_manager, broadcast_id, mem_size),
            DriverEndpointMsg::GetMapOutputStatuses { shuffle_id, sender } => {
                // MapOutputTrackerMasterEndpoint.receiveAndReply (Spark 4.0.0's jar): the
                // sender's address is the connection's remote end, the executor's IP.
                info!(
                    self.env.log(),
                    "driver::MapOutputTrackerMasterEndpoint",
                    "Asked to send map output locations for shuffle {shuffle_id} to {}:{}",
                    self.sim.host_ip(&sender.host),
                    sender.port
                );
            }
            DriverEndpointMsg::RemoveRddBlockInfo {
                block_manager,
                rdd_id,
                partition,
            } => {
                let block = RddBlockId { rdd_id, partition };
                self.scheduler.remove_rdd_block_info(&block_manager, block)
            }
            DriverEndpointMsg::GetReplicateInfoForRddBlocks(ask, asker) => {
                let blocks = self.scheduler.replicate_info_for_rdd_blocks(&asker);
                self.env.reply(ask, blocks)
            }
        }
    }

    /// What follows every message: the decommission force-kill timers and the DAGScheduler's
    /// delayed resubmission a message may have asked for.
    fn after_message(&mut self, ctx: &mut Context<Self>) {
        // Tested here: every message passes this point, and decommissions are rare.
        if !self.force_kills_due.is_empty() {
            self.schedule_force_kills(ctx);
        }
        self.schedule_abort_timers(ctx);
        if let Some(ms) = self.resubmit_after_ms.take() {
            // DAGScheduler's messageScheduler: ResubmitFailedStages after RESUBMIT_TIMEOUT.
            ctx.run_later(clock::ms(ms), |act, ctx| {
                if act.stopped {
                    // `DAGScheduler.stop` shut its messageScheduler down (`shutdownNow`).
                    return;
                }
                let events = act.scheduler.resubmit_failed_stages();
                act.handle_events(events);
                act.schedule_abort_timers(ctx);
            });
        }
    }

    /// TaskSchedulerImpl's abortTimer (`task-abort-timer`) for each unschedulable task set a
    /// round of offers found (also after the timers' own callbacks, which are no messages).
    #[inline]
    fn schedule_abort_timers(&mut self, ctx: &mut Context<Self>) {
        // Runs after every message: nothing to do unless exclusion found a set unschedulable.
        if self.abort_timers_due.is_empty() {
            return;
        }
        self.start_abort_timers(ctx);
    }

    #[inline(never)]
    fn start_abort_timers(&mut self, ctx: &mut Context<Self>) {
        for (ms, key, index) in std::mem::take(&mut self.abort_timers_due) {
            let at = clock::now_ms() + ms;
            self.abort_timers_pending.push(at);
            ctx.run_later(clock::ms(ms), move |act, ctx| {
                if let Some(i) = act.abort_timers_pending.iter().position(|t| *t == at) {
                    act.abort_timers_pending.swap_remove(i);
                }
                let stopped = act.stopped;
                let (scheduler, mut backend) = act.split();
                if stopped {
                    // Run by `stop`'s wait: the DAGScheduler's loop has stopped.
                    return scheduler.unschedulable_task_set_timer_after_stop(
                        key,
                        index,
                        &mut backend,
                    );
                }
                let events = scheduler.unschedulable_task_set_timer(key, index, &mut backend);
                act.handle_events(events);
                act.schedule_abort_timers(ctx);
            });
        }
    }

    /// `StopDriver` (`CoarseGrainedSchedulerBackend.stop`'s last ask), then what
    /// `TaskSchedulerImpl.stop` does after the backend's stop: it waits for the abort timers
    /// still queued ([`abort_timer_shutdown_wait_ms`]) before `SparkContext.stop` goes on, so
    /// the answer the Driver waits for comes after that wait.
    fn on_stop_driver(&mut self, ask: ReplyTo<bool>, ctx: &mut Context<Self>) {
        self.shared.borrow_mut().stopped = true;
        self.stopped = true;
        let wait = abort_timer_shutdown_wait_ms(&self.abort_timers_pending, clock::now_ms());
        if wait == 0 {
            self.env.reply(ask, true);
            return self.env.stop_endpoint(self.me);
        }
        ctx.run_later(clock::ms(wait), move |act, _| {
            act.env.reply(ask, true);
            act.env.stop_endpoint(act.me);
        });
    }

    /// `DriverEndpoint.receive` `KillTask`: forward to the executor, or warn.
    fn kill_task(
        &mut self,
        task_id: sparkyard_messages::ids::TaskId,
        executor_id: ExecutorId,
        interrupt_thread: bool,
        reason: String,
    ) {
        match self.core.executors.get(executor_id) {
            Some(e) => self.env.send(
                &e.executor.clone(),
                ExecutorMsg::KillTask {
                    task_id,
                    interrupt_thread,
                    reason,
                },
            ),
            None => warn!(
                self.env.log(),
                TARGET,
                "{}",
                backend_rules::unknown_kill_line(task_id, executor_id)
            ),
        }
    }

    fn on_retrieve_spark_app_config(
        &mut self,
        ask: ReplyTo<SparkAppConfig>,
        resource_profile_id: u32,
    ) {
        let props = self.app_properties.clone();
        let cfg = SparkAppConfig {
            spark_properties: props,
            io_encryption_key: None,
            hadoop_delegation_creds: None,
            resource_profile_id,
            log_level: None,
        };
        self.env.reply(ask, cfg);
    }

    /// `RegisterExecutor`: duplicate and excluded executors are refused with Spark's texts.
    fn on_register_executor(&mut self, ask: ReplyTo<bool>, reg: RegisterExecutor) {
        let id = reg.executor_id;
        let excluded = self.scheduler.excluded_nodes().contains(&reg.hostname);
        if let Err(refusal) = self.core.check_registration(id, excluded) {
            if let Some(line) = refusal.log_line() {
                info!(self.env.log(), TARGET, "{line}");
            }
            let failure = RpcFailure::illegal_state(refusal.message());
            return self.env.reply_failure(ask, failure);
        }
        let Some(executor) = self.env.resolve::<ExecutorMsg>(&reg.executor_ref) else {
            return self.env.reply_failure(
                ask,
                RpcFailure::spark(format!("Could not find {}.", reg.executor_ref.address.name)),
            );
        };
        let executor_endpoint = executor.id;
        // Formatted only when the line is logged (the macro's arguments are lazy).
        info!(
            self.env.log(),
            TARGET,
            "{}",
            backend_rules::registered_line(
                &reg.executor_ref,
                &self.sim.host_ip(&reg.sender_address.host),
                reg.sender_address.port,
                id,
                reg.resource_profile_id,
            )
        );
        let registration = self.core.register(
            id,
            ExecutorData {
                executor,
                address: reg.sender_address,
                host: Rc::from(reg.hostname.as_str()),
                free_cores: 0,
                total_cores: reg.cores,
            },
        );
        // `logUrlHandler.applyPattern(logUrls, attributes)` (spark.ui.custom.executor.log.url).
        let rewritten = self
            .log_url_handler
            .rewrite(self.env.log(), &reg.attributes);
        let listing = ExecutorListing {
            request_time: self.request_times.take_for_registration(),
            log_urls: rewritten.unwrap_or(reg.log_urls),
            attributes: reg.attributes,
        };
        self.publish_registration(&registration, listing);
        self.env
            .trace_state("DriverEndpoint", || StateChange::ExecutorRegistered {
                executor: id,
                endpoint: executor_endpoint,
            });
        self.env.reply(ask, true);
    }

    /// Every consumer of a registration, each reading the one record: the backend's highest
    /// id, the run's record, the registers-once invariant, the HeartbeatReceiver
    /// (`onExecutorAdded`), the fault injector, and the listener bus
    /// (`SparkListenerExecutorAdded`, which the allocation manager and its executor monitor
    /// hear). The `Registered executor` line reads the message, earlier: Spark logs it first.
    fn publish_registration(
        &mut self,
        registration: &ExecutorRegistration,
        listing: ExecutorListing,
    ) {
        let (id, attempt) = (registration.id, self.sim.current_attempt.get());
        {
            let mut shared = self.shared.borrow_mut();
            shared.max_executor_id = shared.max_executor_id.max(id.0);
        }
        self.sim.observe(registration.run_event(attempt));
        self.sim
            .violations
            .executor_registered(attempt, id.0, registration.seen_before);
        self.heartbeats.executor_added(id, clock::now_ms());
        injector::notify(&self.sim, registration.trigger(attempt));
        self.bus
            .post(|| registration.listener_event(clock::now_epoch_ms(), listing));
    }

    /// `LaunchedExecutor`: the executor's cores become free and it gets offers at once.
    fn on_launched_executor(&mut self, id: ExecutorId) {
        let Some(host) = self.core.launched(id) else {
            return;
        };
        self.sim.observe(RunEvent::ExecutorReady { executor: id });
        self.update_offerable(id);
        // The executor's BlockManager registers with what its UnifiedMemoryManager can use: its
        // heap is `-Xmx<spark.executor.memory>` (ExecutorRunnable's command).
        let max_memory =
            unified_memory_manager::max_memory(self.sim.config.spark.executor_memory_mb);
        let port = executor_env::block_manager_port(id);
        info!(
            self.env.log(),
            "driver::BlockManagerMasterEndpoint",
            "{}",
            block_manager_master::registering_line(id, &host, port, max_memory)
        );
        self.scheduler.block_manager_added(id, host.clone());
        self.bus.post(|| ListenerEvent::BlockManagerAdded {
            time: clock::now_epoch_ms(),
            executor_id: id.to_string(),
            host: host.to_string(),
            port,
            max_memory,
        });
        self.make_offers(Some(id));
    }

    /// Whether a revive should offer this executor's cores: an offer to any other executor
    /// launches nothing and changes nothing.
    fn update_offerable(&mut self, id: ExecutorId) {
        self.offerable.update(&self.sim, &self.core, id);
    }

    /// `makeOffers`: one executor (`makeOffers(executorId)`, after a status update or a
    /// registration), or every active one (ReviveOffers), in one `resourceOffers` call.
    fn make_offers(&mut self, only: Option<ExecutorId>) {
        match only {
            Some(id) => {
                self.make_offer(id);
                self.update_offerable(id);
            }
            None => self.make_offers_to_all(),
        }
    }

    /// `makeOffers(executorId)`: the per-task path, one offer on the stack and no walk. The
    /// caller updates the executor's place among the offerable ones.
    fn make_offer(&mut self, id: ExecutorId) {
        let Some(mut offer) = self.work_offer(id) else {
            return;
        };
        if !self.scheduler.has_pending_tasks() {
            // An active executor's host is known to the scheduler even with nothing pending
            // (resourceOffers registers it otherwise).
            self.scheduler
                .executor_offered(offer.executor_id, &offer.host);
            return;
        }
        let mut tasks = std::mem::take(&mut self.offered);
        let (scheduler, mut backend) = self.split();
        let offers = std::slice::from_mut(&mut offer);
        scheduler.resource_offers(offers, false, &mut tasks, &mut backend);
        if !tasks.is_empty() {
            self.core.set_free_cores(id, offer.cores);
        }
        self.launch_tasks(tasks);
        self.handle_deferred();
    }

    /// What a round of offers asked for (exclusion's kills, abort timers, an abort).
    fn handle_deferred(&mut self) {
        let events = self.scheduler.take_deferred();
        if !events.is_empty() {
            self.handle_events(events);
        }
    }

    /// `makeOffers()` (ReviveOffers): every active executor with free cores.
    fn make_offers_to_all(&mut self) {
        if !self.scheduler.has_pending_tasks() {
            return;
        }
        let mut offers = std::mem::take(&mut self.offers);
        offers.clear();
        // The executors with free cores, as a walk over all of them would find them, less
        // those whose offer would launch nothing: waiting for a loss reason, or with fewer
        // free cores than a task needs.
        let mut at = None;
        while let Some(id) = self.offerable.next(at) {
            offers.extend(self.work_offer(id));
            at = Some(id);
        }
        if !offers.is_empty() {
            self.launch_offers(&mut offers);
        }
        self.offers = offers;
    }

    /// An executor's free cores as a `WorkerOffer` (`executorIsAlive`: not waiting for its
    /// loss reason, not being removed or decommissioned).
    fn work_offer(&self, id: ExecutorId) -> Option<WorkerOffer> {
        if !self.core.is_alive(id) {
            return None;
        }
        let e = self.core.executors.get(id)?;
        Some(WorkerOffer {
            executor_id: id,
            host: e.host.clone(),
            cores: e.free_cores,
        })
    }

    /// `scheduler.resourceOffers(workOffers, isAllFreeResources = true)` then `launchTasks`:
    /// the offers' cores left are the executors' free cores.
    fn launch_offers(&mut self, offers: &mut [WorkerOffer]) {
        let mut tasks = std::mem::take(&mut self.offered);
        let (scheduler, mut backend) = self.split();
        scheduler.resource_offers(offers, true, &mut tasks, &mut backend);
        if !tasks.is_empty() {
            for o in offers.iter() {
                if self.core.set_free_cores(o.executor_id, o.cores) {
                    self.update_offerable(o.executor_id);
                }
            }
        }
        self.launch_tasks(tasks);
        self.handle_deferred();
    }

    /// `launchTasks`: each task goes to its executor in the order the scheduler launched them
    /// (grouped by the shuffled offers); the drained list is kept for the next round.
    fn launch_tasks(&mut self, mut tasks: crate::spark_core::scheduler::LaunchedTasks) {
        if tasks.is_empty() {
            self.offered = tasks;
            return;
        }
        self.sim.observe(RunEvent::TasksLaunched {
            count: tasks.len() as u64,
        });
        let attempt = self.sim.current_attempt.get();
        for t in tasks.drain(..) {
            if t.attempt_number == 0 {
                let (stage, index) = (t.stage_id, t.index);
                injector::notify(
                    &self.sim,
                    Trigger::TaskStarted {
                        attempt,
                        stage,
                        index,
                    },
                );
            }
            let Some(e) = self.core.executors.get(t.executor_id) else {
                continue;
            };
            if let Some(why) = self.scheduler.launch_exclusion(&t, &e.host) {
                let name = t.name().to_string();
                let check =
                    invariants::launched_where_allowed(&name, t.executor_id.0, &e.host, Some(why));
                self.sim
                    .violations
                    .check(inv::NO_TASK_WHERE_EXCLUDED, check);
            }
            self.env.send(&e.executor, ExecutorMsg::LaunchTask(t));
        }
        self.offered = tasks;
    }

    fn on_status_update(&mut self, u: StatusUpdate) {
        if !self.core.executors.contains(u.executor_id) {
            let (task, state, executor) = (u.task_id, u.state, u.executor_id);
            return warn!(
                self.env.log(),
                TARGET,
                "{}",
                backend_rules::unknown_status_update_line(task, state, executor)
            );
        }
        let (finished, events) = self
            .scheduler
            .status_update_before_getter(u.task_id, u.state, u.data);
        if finished {
            if let Some(cores) = self.core.release_task_cores(u.executor_id, u.task_cpus) {
                let check = invariants::free_cores(u.executor_id.0, cores.free, cores.total);
                self.sim.violations.check(inv::FREE_CORES, check);
            }
            // The offer below updates the executor's place among the offerable ones; before
            // it only a revive among the events would read that place.
            if !events.is_empty() {
                self.update_offerable(u.executor_id);
            }
            self.handle_events(events);
            // CoarseGrainedSchedulerBackend.DriverEndpoint's StatusUpdate: `makeOffers(executorId)`
            // right after `scheduler.statusUpdate`, before the TaskResultGetter's thread handles
            // the end (Spark 4.0.0's jar: statusUpdate hands it to `enqueueSuccessfulTask` /
            // `enqueueFailedTask`).
            self.make_offers(Some(u.executor_id));
            self.task_result_getter();
        } else if !events.is_empty() {
            // A RUNNING update changes no count and yields nothing to handle.
            self.handle_events(events);
        }
    }

    /// The TaskResultGetter's work on the end whose slot was just offered: a success recorded
    /// (the stage may complete), or a failure's retry queued and, unless the set is a zombie or
    /// another copy succeeded, offers revived. The end's record is published with the events.
    fn task_result_getter(&mut self) {
        let (scheduler, mut backend) = self.split();
        let events = scheduler.task_result_getter(&mut backend);
        self.handle_events(events);
    }

    /// What a scheduler call left: the attempts' ends it recorded first, then its recoveries,
    /// task outputs and events.
    fn handle_events(&mut self, events: Vec<SchedulerEvent>) {
        self.publish_task_ends();
        for r in self.scheduler.drain_recoveries() {
            self.sim.observe(RunEvent::Recovery(r));
        }
        let attempt = self.sim.current_attempt.get();
        for output in self.scheduler.drain_task_outputs() {
            self.sim.violations.task_output(attempt, output);
        }
        let mut revive = false;
        for e in events {
            match e {
                SchedulerEvent::JobEnded {
                    waiter,
                    job_id,
                    result,
                } => {
                    if let Some(w) = self.env.resolve::<DriverMsg>(&waiter) {
                        self.env.send(&w, DriverMsg::JobEnded { job_id, result });
                    }
                }
                SchedulerEvent::Revive => revive = true,
                SchedulerEvent::ResubmitFailedStagesAfter { ms } => {
                    self.resubmit_after_ms = Some(ms)
                }
                // TaskSchedulerImpl.killAllTaskAttempts (interruptThread = false: no
                // spark.job.interruptOnCancel) or a speculative race's loser (true).
                SchedulerEvent::KillTask {
                    task_id,
                    executor_id,
                    interrupt_thread,
                    reason,
                } => self.kill_task(task_id, executor_id, interrupt_thread, reason),
                SchedulerEvent::KillExcludedExecutor {
                    executor_id,
                    decommission,
                    message,
                } => self.kill_excluded_executor(executor_id, decommission, message),
                SchedulerEvent::KillExecutorsOnHost { host, decommission } => {
                    self.kill_executors_on_host(&host, decommission)
                }
                SchedulerEvent::UnschedulableAbortAfter { ms, key, index } => {
                    self.abort_timers_due.push((ms, key, index))
                }
                SchedulerEvent::ExcludedNodesChanged => {
                    self.shared.borrow_mut().excluded_nodes = self.scheduler.excluded_nodes()
                }
            }
        }
        if revive {
            self.make_offers(None);
        }
    }

    /// Every end the scheduler recorded since the last call, in the order they ended, each
    /// handed to [`Self::publish_task_end`].
    fn publish_task_ends(&mut self) {
        let mut ends = std::mem::take(&mut self.task_ends);
        self.scheduler.take_task_ends(&mut ends);
        for end in &ends {
            self.publish_task_end(end);
        }
        ends.clear();
        self.task_ends = ends;
    }

    /// Every consumer of a task attempt's end, each reading the one record: the run's record
    /// (finished, failed or killed, and the executor a fetch failed from), and for a success
    /// this SparkContext's count, which `on_tasks_finished = N` of AM attempt k counts against
    /// (the run's count is over every attempt). The listener bus's TaskEnd reads the same
    /// record, earlier: the DAGScheduler posts it where Spark does (`handleTaskCompletion`).
    fn publish_task_end(&mut self, end: &TaskEnded) {
        let attempt = self.sim.current_attempt.get();
        for event in end.run_events(attempt) {
            self.sim.observe(event);
        }
        if end.kind == EndKind::Success {
            self.tasks_finished += 1;
            let count = self.tasks_finished;
            injector::notify(&self.sim, Trigger::TasksFinished { attempt, count });
        }
    }

    fn on_stop_executors(&mut self, ask: ReplyTo<bool>) {
        self.executors_told_to_stop = true;
        self.check_total_cores();
        info!(self.env.log(), TARGET, "Asking each executor to shut down");
        let targets: Vec<EndpointRef<ExecutorMsg>> = self
            .core
            .executors
            .values()
            .map(|e| e.executor.clone())
            .collect();
        for t in targets {
            self.env.send(&t, ExecutorMsg::StopExecutor);
        }
        self.env.reply(ask, true);
    }

    /// `removeExecutor`: the core records the removal once ([`Removal`]), the scheduler adds
    /// the tasks lost with it, and [`Self::publish_removal`] hands the record to its consumers.
    fn on_remove_executor(&mut self, id: ExecutorId, reason: ExecutorLossReason) {
        let mut removal = match backend_rules::remove_executor(&mut self.core, id, reason) {
            Ok(removal) => removal,
            Err(unknown) => return info!(self.env.log(), TARGET, "{}", unknown.line()),
        };
        // In case the executor is still alive (AM report path), tell it to stop.
        self.env
            .send(&removal.data.executor, ExecutorMsg::StopExecutor);
        self.update_offerable(id);
        // TaskSchedulerImpl.executorLost: `logExecutorLoss` first, then its task sets fail the
        // tasks running there (their TaskEnds), which the record counts.
        let loss = backend_rules::executor_loss_line(&removal, clock::now_ms());
        sim_log!(self.env.log(), TS, loss.level, "{}", loss.text);
        let (scheduler, mut backend) = self.split();
        let events = scheduler.task_scheduler_executor_lost(id, &removal.reason, &mut backend);
        removal.lost_tasks = self.lost_with(id);
        self.publish_removal(&removal);
        // Then the DAGScheduler's handleExecutorLost (BlockManagerRemoved, map outputs).
        self.scheduler.run_queued_dag_events();
        self.handle_events(events);
    }

    /// The running attempts the scheduler just ended with executor `id`'s loss (their records
    /// are published with the events that follow the removal).
    fn lost_with(&self, id: ExecutorId) -> u32 {
        let lost = |e: &&TaskEnded| e.executor == id && e.kind == EndKind::ExecutorLost;
        self.scheduler.task_ends().iter().filter(lost).count() as u32
    }

    /// Every consumer of a removal, each reading the one record: the run's record (the removal
    /// and the running tasks lost with it), the HeartbeatReceiver (`onExecutorRemoved`) and
    /// the listener bus (`SparkListenerExecutorRemoved`). The loss line reads it too, earlier:
    /// Spark logs it before the lost tasks are known.
    fn publish_removal(&mut self, removal: &Removal<EndpointRef<ExecutorMsg>>) {
        for event in removal.run_events(self.sim.current_attempt.get()) {
            self.sim.observe(event);
        }
        self.heartbeats.executor_removed(removal.id);
        self.bus
            .post(|| removal.listener_event(clock::now_epoch_ms()));
    }

    /// `YarnDriverEndpoint.onDisconnected`: disable the executor and ask the AM why it went away.
    fn on_disconnected(&mut self, address: RpcAddress) {
        let shutting_down = self.shared.borrow().stopped || self.executors_told_to_stop;
        let Some(gone) = backend_rules::disconnected(&mut self.core, address, shutting_down) else {
            return;
        };
        self.update_offerable(gone.id);
        // CoarseGrainedSchedulerBackend.disableExecutor (INFO), then
        // TaskSchedulerImpl.executorLost(id, LossReasonPending) -> logExecutorLoss.
        info!(self.env.log(), BACKEND, "{}", gone.disabling_line());
        if let Some(line) = gone.reason_pending_line() {
            debug!(self.env.log(), TS, "{line}");
        }
        if let Some(yarn) = yarn_scheduler(&self.env) {
            self.env.send(&yarn, gone.message());
        }
    }

    /// `TaskSchedulerImpl` warns while tasks wait and no task has launched yet.
    fn warn_if_starved(&mut self) {
        if self.scheduler.has_pending_tasks() && self.scheduler.tasks_launched() == 0 {
            warn!(
                self.env.log(),
                TS,
                "Initial job has not accepted any resources; check your cluster UI to ensure that workers are registered and have sufficient resources"
            );
        }
    }

    /// The backend's core count against its executors (every minute: O(executors)).
    fn check_total_cores(&self) {
        let sum: u32 = self.core.executors.values().map(|e| e.total_cores).sum();
        self.sim.violations.check(
            inv::TOTAL_CORES,
            invariants::total_cores(self.core.total_core_count, sum),
        );
    }

    /// `HeartbeatReceiver.receiveAndReply(Heartbeat)`: a known executor's last-seen time moves
    /// on, and the answer says whether its block manager must register again.
    fn on_heartbeat(&mut self, ask: ReplyTo<HeartbeatResponse>, id: ExecutorId) {
        let tracked = self.heartbeats.heartbeat(id, clock::now_ms());
        if !tracked {
            debug!(
                self.env.log(),
                "driver::HeartbeatReceiver", "Received heartbeat from unknown executor {id}"
            );
        }
        // `scheduler.executorHeartbeatReceived` asks the BlockManagerMaster's heartbeat
        // endpoint, which knows the block managers of the registered executors.
        let block_manager_known = self.core.executors.contains(id);
        let sc_stopped = self.shared.borrow().stopping;
        let response = heartbeat_response(sc_stopped, tracked, block_manager_known);
        self.env.reply(ask, response);
    }

    /// BlockManagerMasterEndpoint's `register` for `isReRegister = true`: taken only while the
    /// backend still has the executor (SPARK-41360, `IsExecutorAlive`); here its block manager
    /// is then still registered, so nothing changes. Refused: Spark's INFO line, and the
    /// `invalid` id that makes the executor exit 58.
    fn on_reregister_block_manager(&mut self, ask: ReplyTo<bool>, id: BlockManagerId) {
        let alive = self.core.executors.contains(id.executor_id);
        if let Some(line) = block_manager_master::reregister_refusal(&id, id.executor_id, alive) {
            info!(
                self.env.log(),
                "driver::BlockManagerMasterEndpoint", "{line}"
            );
        }
        self.env.reply(ask, alive);
    }

    /// `HeartbeatReceiver.expireDeadHosts`: an executor silent for `spark.network.timeout` is
    /// lost (caused by the app) and killed and replaced through the cluster manager.
    fn expire_dead_hosts(&mut self) {
        self.check_total_cores();
        let timeout = self.sim.config.spark.network_timeout_ms;
        let dead = self.heartbeats.expire_dead_hosts(clock::now_ms(), timeout);
        for gone in dead {
            let id = gone.id;
            let log = self.env.log();
            warn!(
                log,
                "driver::HeartbeatReceiver",
                "{}",
                gone.removing_line(timeout)
            );
            let reason = gone.loss_reason();
            // The driver removes it now; the container then ends by explicit termination
            // (killAndReplaceExecutor), which the allocator does not report as a loss.
            self.sim.observe(RunEvent::ExecutorLost(LostExecutor {
                executor: id,
                attempt: self.sim.current_attempt.get(),
                exit_status: None,
                reason: reason.to_string(),
                counted_as_failure: false,
            }));
            self.on_remove_executor(id, reason);
            if let Some(yarn) = yarn_scheduler(&self.env) {
                // `killAndReplaceExecutor`: nobody waits for the answer.
                self.env.ask(self.me, &yarn, |a| {
                    YarnSchedulerMsg::KillExecutors(a, vec![id])
                });
            }
        }
    }

    /// `isReady`: enough executors registered, or the waiting time passed; re-checked every 100 ms.
    fn check_backend_ready(&mut self, waiter: RemoteRef, ctx: &mut Context<Self>) {
        let s = &self.sim.config.spark;
        let registration = backend_rules::Registration {
            registered: self.core.total_registered,
            expected: s.initial_target_executors(),
            min_ratio: s.min_registered_resources_ratio,
            waited_ms: clock::now_ms() - self.created_ms,
            max_wait_ms: s.max_registered_resources_waiting_time_ms,
        };
        if !self.ready
            && let Some(readiness) = backend_rules::is_ready(registration)
        {
            info!(self.env.log(), BACKEND, "{}", readiness.line());
            self.ready = true;
        }
        if self.ready {
            if let Some(w) = self.env.resolve::<DriverMsg>(&waiter) {
                self.env.send(&w, DriverMsg::BackendReady);
            }
            return;
        }
        ctx.run_later(clock::ms(100), move |act, ctx| {
            act.check_backend_ready(waiter, ctx)
        });
    }
}

/// The ExecutorAllocationManager for this SparkContext when dynamic allocation is on and its
/// settings are valid (the Driver fails the application on invalid ones before this runs).
fn allocation_manager(sim: &SimContext, env: &RpcEnv) -> Option<Rc<AllocationListener>> {
    let s = &sim.config.spark;
    let d = s.dynamic_allocation?;
    eam::validate_settings(&d, s.executor_cores, s.task_cpus).ok()?;
    let initial = s.initial_target_executors();
    let m = ExecutorAllocationManager::new(
        d,
        initial,
        s.executor_cores,
        s.task_cpus,
        env.log().clone(),
    );
    Some(Rc::new(AllocationListener::new(m)))
}

/// The scheduler's map outputs answer "does this executor hold shuffle data".
impl ShuffleDataQuery for DriverScheduler {
    fn holds_shuffle_data(&self, executor: ExecutorId) -> bool {
        self.holds_map_output(executor)
    }
}

impl DriverEndpoint {
    /// One `schedule()` of the allocation manager, then the target's bounds invariant.
    fn schedule_allocation(&mut self) {
        if self.shared.borrow().stopping {
            return;
        }
        let Some(m) = self.allocation.clone() else {
            return;
        };
        let mut m = m.manager();
        m.schedule(clock::now_ms(), self);
        let (min, max) = m.bounds();
        let check = invariants::allocation_target(m.target(), min, max);
        self.sim
            .violations
            .check(inv::ALLOCATION_TARGET_BOUNDED, check);
    }

    /// `decommissionExecutors`' cleanup task (`cleanup-decommission-execs`): after
    /// `spark.executor.decommission.forceKillTimeout`, the executors still decommissioning
    /// are killed (force, not counted as failures).
    fn schedule_force_kills(&mut self, ctx: &mut Context<Self>) {
        let Some(timeout_s) = self.force_kill_timeout_s else {
            return;
        };
        for ids in std::mem::take(&mut self.force_kills_due) {
            ctx.run_later(clock::ms(timeout_s.saturating_mul(1000)), move |act, _| {
                act.force_kill_stragglers(&ids, timeout_s)
            });
        }
    }

    fn force_kill_stragglers(&mut self, ids: &[ExecutorId], timeout_s: u64) {
        let stopping = self.shared.borrow().stopping;
        let Some(kill) = backend_rules::force_kill_stragglers(&self.core, ids, timeout_s, stopping)
        else {
            return;
        };
        info!(self.env.log(), BACKEND, "{}", kill.line());
        self.kill_executors_with(&kill.stragglers, true);
    }

    /// The endpoint's parts other than its scheduler, and the scheduler beside them: what the
    /// scheduler's calls are given as the HealthTracker's `allocationClient`.
    fn split(&mut self) -> (&mut DriverScheduler, Backend<'_>) {
        let backend = Backend {
            sim: &self.sim,
            env: &self.env,
            me: self.me,
            core: &mut self.core,
            offerable: &mut self.offerable,
            force_kill_timeout_s: self.force_kill_timeout_s,
            force_kills_due: &mut self.force_kills_due,
        };
        (&mut self.scheduler, backend)
    }

    /// `killExecutors(..., force)` (the scheduler's map outputs say which executor holds
    /// shuffle data).
    fn kill_executors_with(&mut self, ids: &[ExecutorId], force: bool) -> Vec<ExecutorId> {
        let (scheduler, mut backend) = self.split();
        backend.kill_executors_with(ids, force, &|id| scheduler.holds_shuffle_data(id))
    }

    /// A kill the scheduler deferred (a call Spark makes later, on another thread):
    /// HealthTracker's `killExecutor` through the backend, as `Backend`'s `AllocationClient`
    /// does at once.
    fn kill_excluded_executor(&mut self, id: ExecutorId, decommission: bool, message: String) {
        let (scheduler, mut backend) = self.split();
        if decommission {
            backend.decommission_executor(id, &message, scheduler);
        } else {
            backend.kill_executor(id);
        }
    }

    /// A host's kill the scheduler deferred: `killExecutorsOnHost(host)` /
    /// `decommissionExecutorsOnHost(host)` through the backend.
    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        self.split().1.kill_executors_on_host(host, decommission);
    }

    /// DriverEndpoint.receive's `KillExecutorsOnHost(host)`: the executors alive there,
    /// `killExecutors(execs, adjustTargetNumExecutors = false, countFailures = false, force =
    /// true)` (the target is unchanged).
    fn kill_alive_executors_on_host(&mut self, host: &str) {
        let ids = self.core.alive_executors_on(host);
        if !ids.is_empty() {
            self.kill_executors_with(&ids, true);
        }
    }

    /// `DecommissionExecutorsOnHost(host)`: every executor alive on the host is decommissioned
    /// (a walk over the executors: a node decommission is rare).
    fn decommission_executors_on_host(&mut self, host: &str) {
        let now = clock::now_ms();
        let Some(HostDecommission { executors, info }) =
            backend_rules::decommission_on_host(&self.core, host, now)
        else {
            return;
        };
        let done = self.decommission(&executors, &info);
        // Not idle candidates any more (the manager marks its own scale-down decommissions).
        if let Some(m) = &self.allocation {
            m.manager().monitor.executors_decommissioned(&done);
        }
    }

    /// `CoarseGrainedSchedulerBackend.decommissionExecutors(..., adjustTargetNumExecutors =
    /// false, triggeredByExecutor = false)`, the scheduler told at once.
    fn decommission(&mut self, ids: &[ExecutorId], info: &DecommissionInfo) -> Vec<ExecutorId> {
        let (scheduler, mut backend) = self.split();
        backend.decommission(ids, info, &mut |id, host| {
            scheduler.executor_decommission(id, host)
        })
    }

    /// A peer stored a migrated map output, data block then index block
    /// (`shuffle_block_updates`): the master accepts both (`updateShuffleBlockInfo`) and posts
    /// each as SparkListenerBlockUpdated, the index after it moved the map output
    /// (`MapOutputTrackerMaster.updateMapOutput`). Dynamic allocation's ExecutorMonitor learns
    /// from the data block's update that the receiver holds the shuffle (told directly, as the
    /// management queue would be; the bus records the event only for the event log).
    fn update_shuffle_block_info(&mut self, block: MigratedShuffleBlock, at: BlockManagerId) {
        let receiver = at.executor_id;
        let [data, index] = ShuffleFile::UPLOAD_ORDER;
        self.bus.post_block(None, || {
            shuffle_block_updates::block_updated(&at, &block, data)
        });
        if let Some(m) = &self.allocation {
            let active = self.core.is_active(receiver);
            m.manager()
                .monitor
                .on_shuffle_block_updated(receiver, block.info.shuffle_id, active);
        }
        self.scheduler.update_map_output(block.info, at.clone());
        self.bus.post_block(None, || {
            shuffle_block_updates::block_updated(&at, &block, index)
        });
    }

    /// `BlockManagerMasterEndpoint.getPeers` ([`block_manager_master::get_peers`]) over the
    /// registered executors, each with its block manager's endpoint. A walk over the executors:
    /// only a decommissioning executor asks.
    fn block_manager_peers(&self, asker: &BlockManagerId) -> Vec<BlockManagerPeer> {
        let registered = self.core.executor_ids();
        let ids = block_manager_master::get_peers(asker.executor_id, registered, |id| {
            self.core.is_decommissioning(id)
        });
        ids.iter()
            .filter_map(|id| {
                let e = self.core.executors.get(*id)?;
                Some(BlockManagerPeer {
                    id: BlockManagerId {
                        executor_id: *id,
                        host: e.host.to_string(),
                        port: block_manager_port(*id),
                    },
                    endpoint: self.env.remote_ref(e.executor.id),
                })
            })
            .collect()
    }
}

/// CoarseGrainedSchedulerBackend's kills and decommissions over the DriverEndpoint's parts
/// other than its scheduler (`DriverEndpoint::split`), so the scheduler can call them while it
/// runs: the HealthTracker's `allocationClient` (HealthTracker.scala's `killExecutor` and
/// `killExecutorsOnExcludedNode` call the backend synchronously), besides dynamic allocation's
/// and the endpoint's own kills.
struct Backend<'a> {
    sim: &'a SimContext,
    env: &'a RpcEnv,
    me: EndpointId,
    core: &'a mut DriverEndpointState<EndpointRef<ExecutorMsg>>,
    offerable: &'a mut Offerable,
    force_kill_timeout_s: Option<u64>,
    force_kills_due: &'a mut Vec<Vec<ExecutorId>>,
}

impl Backend<'_> {
    /// `killExecutors(..., force)`: with `force` a busy executor is killed too (and it is no
    /// idle kill, so the shuffle-tracking invariant does not apply; `holds` is asked only
    /// without it).
    fn kill_executors_with(
        &mut self,
        ids: &[ExecutorId],
        force: bool,
        holds: &dyn Fn(ExecutorId) -> bool,
    ) -> Vec<ExecutorId> {
        let log = self.env.log().clone();
        let tracking = self
            .sim
            .config
            .spark
            .dynamic_allocation
            .is_some_and(|d| d.shuffle_tracking_enabled && !d.shuffle_service_enabled);
        let outcome = backend_rules::kill_executors(self.core, ids, force, tracking);
        info!(log, BACKEND, "{}", outcome.requesting_line());
        for line in outcome.unknown_lines() {
            warn!(log, BACKEND, "{line}");
        }
        for &id in &outcome.killed {
            self.offerable.update(self.sim, self.core, id);
            let holds = outcome.idle_under_shuffle_tracking && holds(id);
            let check = invariants::idle_kill_without_shuffle_data(id.0, holds);
            self.sim
                .violations
                .check(inv::NO_SHUFFLE_EXECUTOR_KILLED_IDLE, check);
        }
        info!(log, BACKEND, "{}", outcome.actual_line());
        if outcome.asks_cluster_manager()
            && let Some(yarn) = yarn_scheduler(self.env)
        {
            let ids = outcome.killed.clone();
            self.env
                .ask(self.me, &yarn, |a| YarnSchedulerMsg::KillExecutors(a, ids));
        }
        outcome.killed
    }

    /// `CoarseGrainedSchedulerBackend.decommissionExecutors(..., adjustTargetNumExecutors =
    /// false, triggeredByExecutor = false)`: active executors stop taking tasks (`mark`:
    /// `scheduler.executorDecommission`, then a ReviveOffers to this endpoint), their block
    /// managers are marked decommissioning and each is told to decommission itself.
    fn decommission(
        &mut self,
        ids: &[ExecutorId],
        info: &DecommissionInfo,
        mark: &mut dyn FnMut(ExecutorId, Option<&str>),
    ) -> Vec<ExecutorId> {
        let timeout = self.force_kill_timeout_s;
        let Some(outcome) = backend_rules::decommission_executors(self.core, ids, info, timeout)
        else {
            return Vec::new();
        };
        let me = self
            .env
            .local_endpoint_ref::<DriverEndpointMsg>("CoarseGrainedScheduler");
        for &id in &outcome.executors {
            // TaskSchedulerImpl.executorDecommission, which ends with `backend.reviveOffers()`
            // (a ReviveOffers to this endpoint): the task sets' levels changed, so the other
            // executors are offered again.
            mark(id, outcome.worker_host.as_deref());
            self.offerable.update(self.sim, self.core, id);
            if let Some(me) = &me {
                self.env.send(me, DriverEndpointMsg::ReviveOffers);
            }
        }
        let log = self.env.log().clone();
        info!(log, BACKEND, "{}", outcome.decommission_line());
        info!(
            log,
            "driver::BlockManagerMasterEndpoint",
            "{}",
            outcome.mark_block_managers_line()
        );
        if outcome.force_kill_check_due {
            self.force_kills_due.push(outcome.executors.clone());
        }
        for &id in &outcome.executors {
            info!(log, BACKEND, "{}", DecommissionOutcome::notify_line(id));
            if let Some(e) = self.core.executors.get(id) {
                let target = e.executor.clone();
                self.env.send(&target, ExecutorMsg::DecommissionExecutor);
            }
        }
        outcome.executors
    }
}

/// The YarnSchedulerBackend's endpoint in the driver's RpcEnv (none before the AM set it up).
fn yarn_scheduler(env: &RpcEnv) -> Option<EndpointRef<YarnSchedulerMsg>> {
    env.local_endpoint_ref::<YarnSchedulerMsg>("YarnScheduler")
}

/// The backend as the HealthTracker's `allocationClient`, called while the scheduler runs.
impl AllocationClient for Backend<'_> {
    /// `killExecutors(Seq(id), adjustTargetNumExecutors = false, countFailures = false, force =
    /// true)` (YARN replaces it: the target is unchanged).
    fn kill_executor(&mut self, id: ExecutorId) {
        self.kill_executors_with(&[id], true, &|_| false);
    }

    /// `decommissionExecutor(id, ExecutorDecommissionInfo(message), adjustTargetNumExecutors =
    /// false)`: the scheduler making the call is told through `ts`, the one it lent.
    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        ts: &mut dyn ExecutorDecommission,
    ) {
        let info = DecommissionInfo {
            message: message.to_string(),
            worker_host: None,
            start_ms: clock::now_ms(),
        };
        self.decommission(&[id], &info, &mut |id, host| {
            ts.executor_decommission(id, host)
        });
    }

    /// `killExecutorsOnHost(host)` / `decommissionExecutorsOnHost(host)` (the 4.0.0 jar): the
    /// line, then `KillExecutorsOnHost` / `DecommissionExecutorsOnHost` to this endpoint,
    /// which kills or decommissions the host's executors when it handles the message.
    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        let request = HostRequest {
            host: host.to_string(),
            decommission,
        };
        info!(self.env.log(), BACKEND, "{}", request.line());
        if let Some(me) = self
            .env
            .local_endpoint_ref::<DriverEndpointMsg>("CoarseGrainedScheduler")
        {
            self.env.send(&me, request.message());
        }
    }
}

impl ExecutorAllocationClient for DriverEndpoint {
    /// `requestTotalExecutors` -> `doRequestTotalExecutors`: `RequestExecutors` to the
    /// YarnScheduler endpoint (which warns and answers false before the AM registered).
    fn request_total_executors(&mut self, total: u32, hints: &eam::PlacementHints) -> bool {
        // The backend's bookkeeping comes before `doRequestTotalExecutors`, whatever it answers.
        self.request_times
            .request_total(total, clock::now_epoch_ms());
        let Some(yarn) = yarn_scheduler(&self.env) else {
            return false;
        };
        // `scheduler.excludedNodes()` (the HealthTracker's).
        let excluded = self.scheduler.excluded_nodes();
        let req = backend_rules::prepare_request_executors(total, hints, excluded);
        self.env.ask(self.me, &yarn, |a| {
            YarnSchedulerMsg::RequestExecutors(a, req)
        });
        true
    }

    /// `CoarseGrainedSchedulerBackend.killExecutors(ids, adjustTargetNumExecutors = false,
    /// countFailures = false, force = false)`: known, not already pending, not busy.
    fn kill_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        self.kill_executors_with(ids, false)
    }

    /// `decommissionExecutors(ids with ExecutorDecommissionInfo("spark scale down"), ...)`.
    fn decommission_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        let info = DecommissionInfo {
            message: "spark scale down".to_string(),
            worker_host: None,
            start_ms: clock::now_ms(),
        };
        self.decommission(ids, &info)
    }
}

impl Actor for DriverEndpoint {
    type Context = Context<Self>;

    /// `onStart`: ReviveOffers to self every `spark.scheduler.revive.interval`.
    fn started(&mut self, ctx: &mut Context<Self>) {
        let interval = clock::ms(self.sim.config.spark.revive_interval_ms.max(1));
        let me = self
            .env
            .local_endpoint_ref::<DriverEndpointMsg>("CoarseGrainedScheduler");
        let me2 = me.clone();
        ctx.run_interval(interval, move |act, _| {
            if let Some(me) = &me
                && act.scheduler.has_pending_tasks()
            {
                act.env.send(me, DriverEndpointMsg::ReviveOffers);
            }
        });
        // ExecutorAllocationManager.start(): the initial target, then `schedule()` every 100 ms.
        if let Some(m) = self.allocation.clone() {
            m.manager().start(self);
            ctx.run_interval(clock::ms(eam::INTERVAL_MS), |act, ctx| {
                if act.stopped {
                    return;
                }
                act.schedule_allocation();
                act.schedule_force_kills(ctx);
            });
        }
        // TaskSchedulerImpl.start(): the speculation thread, `checkSpeculatableTasks` every
        // `spark.speculation.interval` (scheduleWithFixedDelay), reviving offers when a task
        // was marked. No timer at all when speculation is off.
        if let Some(ms) = self.scheduler.speculation_interval_ms() {
            ctx.run_interval(clock::ms(ms.max(1)), |act, ctx| {
                // `stop` shuts the speculation thread down first.
                if !act.stopped && act.scheduler.check_speculatable_tasks() {
                    act.make_offers(None);
                    act.schedule_abort_timers(ctx);
                }
            });
        }
        // TaskSchedulerImpl's starvation timer (`spark.starvation.timeout`, 15 s).
        ctx.run_interval(clock::ms(15_000), |act, _| {
            if !act.stopped {
                act.warn_if_starved();
            }
        });
        // `spark.network.timeoutInterval` (Spark's default: 60 s).
        ctx.run_interval(clock::ms(60_000), move |act, _| {
            if let Some(me) = &me2 {
                act.env.send(me, DriverEndpointMsg::ExpireDeadHosts);
            }
        });
    }
}

crate::endpoint!(DriverEndpoint {
    messages: DriverEndpointMsg => on_message,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// TaskSchedulerImpl.stop's `ThreadUtils.shutdown(abortTimer)` (Spark 4.0.0's jar; the real
    /// run is in docs/worklog/2026-12-05-afternoon/issue-27-audit.md): no pending timer, no
    /// wait; otherwise until the last one runs, at most the 30 s grace period (a timer 99 s
    /// away: 30 s, as the real driver waited between `Stopped Spark web UI` and
    /// `MapOutputTrackerMasterEndpoint stopped!`); a timer already due is no wait.
    #[test]
    fn stop_waits_for_pending_abort_timers_up_to_thirty_seconds() {
        assert_eq!(abort_timer_shutdown_wait_ms(&[], 5_000), 0);
        assert_eq!(abort_timer_shutdown_wait_ms(&[12_000, 8_000], 5_000), 7_000);
        assert_eq!(abort_timer_shutdown_wait_ms(&[104_000], 5_000), 30_000);
        assert_eq!(abort_timer_shutdown_wait_ms(&[5_000], 5_000), 0);
    }

    /// A revive walks the offerable executors in id order, and an offer that changes the
    /// current executor's entry does not disturb the walk over the others.
    #[test]
    fn offerable_walk_is_in_id_order_and_survives_updates() {
        let mut w = Offerable::default();
        for i in 1..=6 {
            w.set(ExecutorId(i), false);
        }
        assert_eq!(w.next(None), None);
        w.set(ExecutorId(4), true);
        w.set(ExecutorId(2), true);
        w.set(ExecutorId(6), true);
        w.set(ExecutorId(5), true);
        w.set(ExecutorId(5), false);
        let mut seen = Vec::new();
        let mut at = None;
        while let Some(id) = w.next(at) {
            // This offer takes every core of executor 2 and leaves 4 and 6 free.
            w.set(id, id != ExecutorId(2));
            seen.push(id);
            at = Some(id);
        }
        assert_eq!(seen, vec![ExecutorId(2), ExecutorId(4), ExecutorId(6)]);
        assert_eq!(w.next(None), Some(ExecutorId(4)));
        assert_eq!(w.0.len(), 2);
    }
}
