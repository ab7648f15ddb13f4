//! The driver's `CoarseGrainedScheduler` endpoint (`CoarseGrainedSchedulerBackend.DriverEndpoint`,
//! YARN's `YarnDriverEndpoint`): executor registration and its rejections, `LaunchedExecutor`,
//! `makeOffers`, `StatusUpdate`, `ReviveOffers` every `spark.scheduler.revive.interval`,
//! readiness, executor removal (AM report and disconnect paths), `StopExecutors`, `StopDriver`;
//! and the backend's `ExecutorAllocationClient` side of dynamic allocation
//! (`requestTotalExecutors`, `killExecutors` with `executorsPendingToRemove`), whose
//! ExecutorAllocationManager it runs every 100 ms.
//!
//! This file holds the endpoint's struct, its actor and its message dispatch; each of Spark's
//! pieces is a room beside it, an `impl` of the same struct: `registration`, `offers`,
//! `status_update`, `executor_removal`, `heartbeats`, `block_managers`, `stop` and
//! `allocation_client`.

mod allocation_client;
mod block_managers;
mod executor_removal;
mod heartbeats;
mod offers;
mod registration;
mod status_update;
mod stop;

use allocation_client::allocation_manager;

use crate::kernel::clock;
use crate::rpc::{EndpointRef, RpcEnv};
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::driver_endpoint_state::DriverEndpointState;
use crate::spark_core::exec_request_times::ExecRequestTimes;
use crate::spark_core::executor_allocation_manager::{self as eam, AllocationListener};
use crate::spark_core::executor_log_url_handler::ExecutorLogUrlHandler;
use crate::spark_core::heartbeat_receiver::HeartbeatReceiver;
use crate::spark_core::resource_profile::TaskResourceRequest;
use crate::spark_core::scheduler::{DriverScheduler, WorkerOffer};
use crate::spark_core::spark_env::DefaultProfile;
use crate::spark_core::task_result_getter::TaskEnded;
use crate::spark_core::{executor_env, unified_memory_manager};
use crate::warn;
use crate::world::context::SimContext;
use crate::world::invariants::{self, name as inv};
use crate::world::listener::ContextBus;
use crate::world::observer::RunEvent;
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::rpc::{EndpointId, RemoteRef};
use sparkyard_messages::task::JobSpec;
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
    /// Jobs whose barrier stage found too few slots, to submit again after this long.
    barrier_jobs_due: Vec<(u32, u64)>,
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
    /// The default profile's custom task requests (`spark.task.resource.*`): an executor's
    /// found resources are tracked against them (empty in nearly every run).
    task_resources: Vec<TaskResourceRequest>,
    /// The default profile's `limitingResource` when it is a custom resource (`None`: cpus),
    /// whose slots a barrier job's check counts.
    limiting_resource: Option<String>,
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
            // The default profile's custom resources, read once for both fields below.
            let profile = DefaultProfile::of(s).ok();
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
            .with_barrier_check(s.barrier_check, s.dynamic_allocation.is_some())
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
                barrier_jobs_due: Vec::new(),
                force_kill_timeout_s: s.decommission_force_kill_timeout_s,
                force_kills_due: Vec::new(),
                abort_timers_due: Vec::new(),
                abort_timers_pending: Vec::new(),
                stopped: false,
                // The SparkContext read these keys without error before it made this endpoint.
                task_resources: profile
                    .as_ref()
                    .map(|p| p.custom.task.clone())
                    .unwrap_or_default(),
                limiting_resource: profile
                    .and_then(|p| p.limits().ok())
                    .map(|l| l.limiting_resource)
                    .filter(|name| name != "cpus"),
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
                self.env.reply(ask, self.core.is_active(id))
            }
            DriverEndpointMsg::SubmitJob { job, waiter, pool } => {
                self.submit_job(*job, *waiter, pool.as_deref())
            }
            DriverEndpointMsg::CancelJob { job_id, reason } => {
                let events = self.scheduler.cancel_job(job_id, &reason);
                self.handle_events(events);
            }
            DriverEndpointMsg::RemoteProcessDisconnected(address) => self.on_disconnected(address),
            DriverEndpointMsg::Heartbeat(ask, id) => self.on_heartbeat(ask, id),
            DriverEndpointMsg::ReregisterBlockManager(ask, id) => {
                self.on_reregister_block_manager(ask, id)
            }
            DriverEndpointMsg::BlockManagerIsExecutorAlive(ask, id) => {
                let alive = self.scheduler.block_manager_is_executor_alive(id);
                self.env.reply(ask, alive)
            }
            DriverEndpointMsg::ExpireDeadHosts => self.expire_dead_hosts(),
            DriverEndpointMsg::ExcludeNode(host) => self.exclude_node_by_fault(&host),
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
                let block = RddBlockId { rdd_id, partition };
                self.update_rdd_block_info(&block_manager, block, mem_size)
            }
            DriverEndpointMsg::UpdateBroadcastBlockInfo {
                block_manager,
                broadcast_id,
                mem_size,
            } => self
                .scheduler
                .update_broadcast_block_info(&block_manager, broadcast_id, mem_size),
            DriverEndpointMsg::GetMapOutputStatuses { shuffle_id, sender } => {
                self.get_map_output_statuses(shuffle_id, &sender)
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
        for (job_id, ms) in std::mem::take(&mut self.barrier_jobs_due) {
            // DAGScheduler's messageScheduler: JobSubmitted again after the slot check's
            // interval.
            ctx.run_later(clock::ms(ms), move |act, ctx| {
                if act.stopped {
                    return;
                }
                let slots = act.max_num_concurrent_tasks();
                let events = act.scheduler.resubmit_barrier_job(job_id, slots);
                act.handle_events(events);
                act.after_message(ctx);
            });
        }
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
}

/// The YarnSchedulerBackend's endpoint in the driver's RpcEnv (none before the AM set it up).
fn yarn_scheduler(env: &RpcEnv) -> Option<EndpointRef<YarnSchedulerMsg>> {
    env.local_endpoint_ref::<YarnSchedulerMsg>("YarnScheduler")
}

impl DriverEndpoint {
    /// `DAGScheduler.submitJob` with the job's pool: the run's record counts its tasks.
    fn submit_job(&mut self, job: JobSpec, waiter: RemoteRef, pool: Option<&str>) {
        let n: usize = job.stages.iter().map(|s| s.tasks.len()).sum();
        self.sim.observe(RunEvent::JobSubmitted { tasks: n as u64 });
        // Only a barrier stage's check reads the slots (a walk over the executors).
        let slots = if job.stages.iter().any(|s| s.barrier) {
            self.max_num_concurrent_tasks()
        } else {
            u32::MAX
        };
        let events = self.scheduler.submit_job_in_pool(job, waiter, pool, slots);
        self.handle_events(events);
    }

    /// `sc.maxNumConcurrentTasks(rp)`: the active executors' slots of the default profile's
    /// limiting resource.
    fn max_num_concurrent_tasks(&self) -> u32 {
        self.core.max_num_concurrent_tasks(
            self.sim.config.spark.task_cpus,
            self.limiting_resource.as_deref(),
        )
    }

    /// The `exclude-node` fault: the HealthTracker's node exclusion (the injector fires it only
    /// when Spark has a HealthTracker). Spark logs a node's exclusion only with its cause, and
    /// this one has none, so no line; `Excluding node H for the application` is no line of
    /// Spark 4.0.0's jar.
    fn exclude_node_by_fault(&mut self, host: &str) {
        let (scheduler, mut backend) = self.split();
        let events = scheduler.exclude_node_by_fault(host, &mut backend);
        self.handle_events(events);
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
