//! The driver's scheduling stack as `SparkContext` wires it (Spark: `SparkContext`'s
//! `_dagScheduler`, `_taskScheduler` and `_env`): one `DAGScheduler`, one `TaskSchedulerImpl`
//! and the `DriverEnv` masters they share, owned side by side. It holds no rule and no state of
//! its own: each call goes to the class Spark would call, with the others it may reach. The
//! DriverEndpoint is its only user.

#[cfg(test)]
use super::allocation_client::DeferredAllocations;
use super::allocation_client::{AllocationClient, ExecutorDecommission};
use super::dag_scheduler::{Cx, DAGScheduler};
use super::env::DriverEnv;
use super::events::{
    CompletionEvent, LaunchedTasks, RunningTask, SchedulerEvent, SpeculativeTask, TsKey,
    WorkerOffer,
};
use super::health_tracker::ExcludeOnFailureConf;
use super::task_scheduler_impl::{DagEvents, TaskSchedulerImpl};
use crate::kernel::logs::ProcessLog;
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::task_result_getter::TaskEnded;
use crate::world::config::{
    AllocationFile, LocalitySettings, SchedulingMode, ShuffleSettings, SpeculationSettings,
};
use crate::world::invariants::TaskOutput;
use crate::world::listener::ContextBus;
use crate::world::observer::Recovery;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::{
    BlockManagerId, JobSpec, ReplicateBlock, ShuffleBlockInfo, TaskDescription, TaskResultData,
};
use std::rc::Rc;

/// DAGScheduler + TaskSchedulerImpl + SparkEnv's masters of one SparkContext.
pub struct DriverScheduler {
    pub(super) dag: DAGScheduler,
    pub(super) task_scheduler: TaskSchedulerImpl,
    pub(super) env: DriverEnv,
}

impl DriverScheduler {
    pub fn new(log: ProcessLog, bus: ContextBus, max_failures: u32, task_cpus: u32) -> Self {
        DriverScheduler {
            dag: DAGScheduler::new(log.clone(), bus.clone()),
            task_scheduler: TaskSchedulerImpl::new(log.clone(), max_failures, task_cpus),
            env: DriverEnv::new(log, bus),
        }
    }

    /// What excluded the place a task was just launched on, if anything (an invariant's input).
    pub fn launch_exclusion(&self, desc: &TaskDescription, host: &str) -> Option<&'static str> {
        self.task_scheduler.launch_exclusion(desc, host)
    }

    /// `spark.scheduler.mode` (`TaskSchedulerImpl.initialize`'s schedulable builder).
    pub fn with_scheduling_mode(mut self, mode: SchedulingMode) -> Self {
        self.task_scheduler = self.task_scheduler.with_scheduling_mode(mode);
        self
    }

    /// `spark.scheduler.allocation.file`'s pools (in FAIR mode).
    pub fn with_allocation_file(mut self, file: Option<&AllocationFile>) -> Self {
        self.task_scheduler = self.task_scheduler.with_allocation_file(file);
        self
    }

    /// `spark.driver.maxResultSize` in bytes (0 = unlimited).
    pub fn with_max_result_size(mut self, bytes: u64) -> Self {
        self.task_scheduler = self.task_scheduler.with_max_result_size(bytes);
        self
    }

    /// The driver's storage memory (`UnifiedMemoryManager.getMaxMemory` of its heap).
    pub fn with_driver_memory(mut self, max_memory: u64) -> Self {
        self.dag = self.dag.with_driver_memory(max_memory);
        self
    }

    /// The driver's own block manager (`host`, the driver's RPC port + 1), known to the
    /// BlockManagerMaster from the SparkContext's start.
    pub fn with_driver_block_manager(mut self, host: String, port: u16) -> Self {
        self.env
            .block_manager_master
            .driver_block_manager_added(host, port);
        self
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo of an executor's broadcast piece.
    pub fn update_broadcast_block_info(&self, location: &BlockManagerId, id: u32, size: u64) {
        self.env
            .block_manager_master
            .executor_broadcast_piece_stored(location, id, size);
    }

    /// The shuffle settings (`spark.shuffle.service.enabled`, ...); Spark's defaults otherwise.
    pub fn with_shuffle(mut self, shuffle: ShuffleSettings) -> Self {
        self.task_scheduler = self
            .task_scheduler
            .with_external_shuffle_service(shuffle.service_enabled);
        self.dag = self.dag.with_shuffle(shuffle);
        self
    }

    /// Delay scheduling's settings, the cluster's racks (host, rack) and the seed of the offer
    /// shuffle.
    pub fn with_locality<'a>(
        mut self,
        locality: LocalitySettings,
        racks: impl IntoIterator<Item = (&'a str, &'a str)>,
        seed: u64,
    ) -> Self {
        self.dag = self
            .dag
            .with_reduce_locality(locality.reduce_locality_enabled);
        self.task_scheduler = self.task_scheduler.with_locality(locality, racks, seed);
        self
    }

    /// Exclusion on failure (`spark.excludeOnFailure.*`; nothing when off): TaskSchedulerImpl's
    /// HealthTracker and the task sets' lists, posting on `bus` (`sc.listenerBus`).
    pub fn with_exclusion(
        mut self,
        conf: &ExcludeOnFailureConf,
        unschedulable_timeout_ms: u64,
        dynamic_allocation: bool,
        bus: ContextBus,
    ) -> Self {
        self.task_scheduler = self.task_scheduler.with_exclusion(
            conf,
            unschedulable_timeout_ms,
            dynamic_allocation,
            bus,
        );
        self
    }

    /// What the task scheduler asked for since the last drain outside a call with its own
    /// events (a round of offers: kills of excluded executors, abort timers, an abort's end).
    pub fn take_deferred(&mut self) -> Vec<SchedulerEvent> {
        self.task_scheduler.take_deferred()
    }

    /// The `exclude-node` fault, as the HealthTracker's node exclusion (its kills through
    /// `alloc`); what it asks of the DriverEndpoint after (the excluded-node list's change).
    pub fn exclude_node_by_fault(
        &mut self,
        host: &str,
        alloc: &mut dyn AllocationClient,
    ) -> Vec<SchedulerEvent> {
        self.task_scheduler.exclude_node_by_fault(host, alloc);
        self.task_scheduler.take_deferred()
    }

    /// `TaskSchedulerImpl.excludedNodes()`.
    pub fn excluded_nodes(&self) -> std::collections::BTreeSet<String> {
        self.task_scheduler.excluded_nodes()
    }

    /// An abort timer run by `TaskSchedulerImpl.stop`'s wait for its pool (after the
    /// DAGScheduler's `stop`): the timer's own line and abort as usual, but the abort's
    /// `taskSetFailed` is posted to a stopped event loop (`EventLoop.post` drops it) and the
    /// backend it would ask is stopped too.
    pub fn unschedulable_task_set_timer_after_stop(
        &mut self,
        key: TsKey,
        index: u32,
        alloc: &mut dyn AllocationClient,
    ) {
        let mut dropped = Vec::new();
        self.task_scheduler.unschedulable_task_set_timer(
            key,
            index,
            &mut self.env,
            &mut StoppedDagScheduler,
            alloc,
            &mut dropped,
        );
        self.task_scheduler.take_deferred();
    }

    /// The unschedulable task set's abort timer fired.
    pub fn unschedulable_task_set_timer(
        &mut self,
        key: TsKey,
        index: u32,
        alloc: &mut dyn AllocationClient,
    ) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        self.task_scheduler.unschedulable_task_set_timer(
            key,
            index,
            &mut self.env,
            &mut self.dag,
            alloc,
            &mut out,
        );
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// Speculation on (`spark.speculation`): set before the first job.
    pub fn with_speculation(mut self, settings: Option<SpeculationSettings>) -> Self {
        self.task_scheduler = self.task_scheduler.with_speculation(settings);
        self
    }

    /// A DAGScheduler call's reach: the task scheduler, SparkEnv, and `out`.
    fn dag_call<'a>(
        task_scheduler: &'a mut TaskSchedulerImpl,
        env: &'a mut DriverEnv,
        out: &'a mut Vec<SchedulerEvent>,
    ) -> Cx<'a> {
        Cx {
            ts: task_scheduler,
            env,
            out,
        }
    }

    /// `SparkContext.submitJob` with the job's `spark.scheduler.pool` property, which goes with
    /// its task sets (`TaskSet.properties`) to their pool.
    /// `slots`: `sc.maxNumConcurrentTasks` (the backend's active executors' slots), which a
    /// barrier stage's check reads.
    pub fn submit_job_in_pool(
        &mut self,
        job: JobSpec,
        waiter: RemoteRef,
        pool: Option<&str>,
        slots: u32,
    ) -> Vec<SchedulerEvent> {
        let job_id = self.dag.next_job_id();
        self.task_scheduler.set_job_pool(job_id, pool);
        let mut out = Vec::new();
        let mut cx = Self::dag_call(&mut self.task_scheduler, &mut self.env, &mut out);
        self.dag.submit_job(job, waiter, slots, &mut cx);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// `SparkContext.submitJob` -> `DAGScheduler.handleJobSubmitted`, with no limit on a
    /// barrier stage's slots (the suites' harnesses).
    #[cfg(test)]
    pub fn submit_job(&mut self, job: JobSpec, waiter: RemoteRef) -> Vec<SchedulerEvent> {
        self.submit_job_in_pool(job, waiter, None, u32::MAX)
    }

    /// The scheduled `JobSubmitted` of a job whose barrier stage found too few slots.
    pub fn resubmit_barrier_job(&mut self, job_id: u32, slots: u32) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let mut cx = Self::dag_call(&mut self.task_scheduler, &mut self.env, &mut out);
        self.dag.resubmit_barrier_job(job_id, slots, &mut cx);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// The barrier slot check's retries, and whether dynamic allocation is on.
    pub fn with_barrier_check(
        mut self,
        settings: crate::world::config::BarrierCheckSettings,
        dynamic_allocation: bool,
    ) -> Self {
        self.dag = self.dag.with_barrier_check(settings, dynamic_allocation);
        self
    }

    /// `DAGScheduler.cancelJob(jobId, reason)`: the job's `JobCancelled` event.
    pub fn cancel_job(&mut self, job_id: u32, reason: &str) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let mut cx = Self::dag_call(&mut self.task_scheduler, &mut self.env, &mut out);
        self.dag.cancel_job(job_id, reason, &mut cx);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// `ResubmitFailedStages`.
    pub fn resubmit_failed_stages(&mut self) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let mut cx = Self::dag_call(&mut self.task_scheduler, &mut self.env, &mut out);
        self.dag.resubmit_failed_stages(&mut cx);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// `resourceOffers` for one executor (`makeOffers(executorId)`); the kills a round asks
    /// for are among `take_deferred`'s events.
    #[cfg(test)]
    pub fn resource_offer(&mut self, offer: &mut WorkerOffer) -> LaunchedTasks {
        let mut kills = Vec::new();
        let alloc = &mut DeferredAllocations(&mut kills);
        let launched =
            self.task_scheduler
                .resource_offer(offer, &mut self.env, &mut self.dag, alloc);
        self.task_scheduler.defer(kills);
        launched
    }

    /// `TaskSchedulerImpl.resourceOffers(offers, isAllFreeResources)`; exclusion's kills
    /// through `alloc`.
    pub fn resource_offers(
        &mut self,
        offers: &mut [WorkerOffer],
        all_free: bool,
        launched: &mut LaunchedTasks,
        alloc: &mut dyn AllocationClient,
    ) {
        self.task_scheduler.resource_offers(
            offers,
            all_free,
            launched,
            &mut self.env,
            &mut self.dag,
            alloc,
        );
    }

    /// `resourceOffers`' first part for an executor with nothing to launch.
    pub fn executor_offered(&mut self, id: ExecutorId, host: &Rc<str>) {
        self.task_scheduler
            .executor_offered(id, host, &mut self.dag);
    }

    /// `TaskSchedulerImpl.statusUpdate` and then the TaskResultGetter's work on the end:
    /// whether the task was known and finished, and what the DriverEndpoint must
    /// do. The suites' harnesses only: the DriverEndpoint offers the freed slot in between
    /// (`status_update_before_getter`, `task_result_getter`).
    #[cfg(test)]
    pub fn status_update(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
    ) -> (bool, Vec<SchedulerEvent>) {
        let (finished, mut out) = self.status_update_before_getter(tid, state, data);
        let mut kills = Vec::new();
        let mut ended = self.task_result_getter(&mut DeferredAllocations(&mut kills));
        out.append(&mut kills);
        out.append(&mut ended);
        (finished, out)
    }

    /// `TaskSchedulerImpl.statusUpdate` alone: the end waits for `task_result_getter`
    /// (Spark's `enqueueSuccessfulTask` / `enqueueFailedTask`).
    pub fn status_update_before_getter(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
    ) -> (bool, Vec<SchedulerEvent>) {
        let mut out = Vec::new();
        let finished = self.task_scheduler.status_update(tid, state, data);
        out.append(&mut self.task_scheduler.take_deferred());
        (finished, out)
    }

    /// The TaskResultGetter's `handleSuccessfulTask` / `handleFailedTask` for every end
    /// `status_update_before_getter` queued; exclusion's kills through `alloc`.
    pub fn task_result_getter(&mut self, alloc: &mut dyn AllocationClient) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        self.task_scheduler
            .task_result_getter(&mut self.env, &mut self.dag, alloc, &mut out);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// `TaskSchedulerImpl.executorLost`; the DAGScheduler's `ExecutorLost` waits for
    /// `run_queued_dag_events` (the DriverEndpoint posts `ExecutorRemoved` in between, as
    /// Spark's backend does before the event loop gets to the loss).
    pub fn task_scheduler_executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
        alloc: &mut dyn AllocationClient,
    ) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let (env, dag) = (&mut self.env, &mut self.dag);
        self.task_scheduler
            .executor_lost(eid, reason, env, dag, alloc, &mut out);
        out.append(&mut self.task_scheduler.take_deferred());
        out
    }

    /// The DAGScheduler's queued events (`ExecutorLost` -> `handleExecutorLost`).
    pub fn run_queued_dag_events(&mut self) {
        self.dag.run_queued_events(&mut self.env);
    }

    /// An executor lost, both halves at once (no listener event between them).
    #[cfg(test)]
    pub fn executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
    ) -> Vec<SchedulerEvent> {
        let mut kills = Vec::new();
        let mut out =
            self.task_scheduler_executor_lost(eid, reason, &mut DeferredAllocations(&mut kills));
        self.run_queued_dag_events();
        kills.append(&mut out);
        kills
    }

    /// `TaskSchedulerImpl.executorDecommission`.
    pub fn executor_decommission(&mut self, eid: ExecutorId, worker_host: Option<&str>) {
        self.task_scheduler.executor_decommission(eid, worker_host);
    }

    /// `TaskSchedulerImpl.checkSpeculatableTasks`: true when a task was marked.
    pub fn check_speculatable_tasks(&mut self) -> bool {
        self.task_scheduler.check_speculatable_tasks(&mut self.dag)
    }

    /// `spark.speculation.interval` when speculation is on.
    pub fn speculation_interval_ms(&self) -> Option<u64> {
        self.task_scheduler.speculation_interval_ms()
    }

    pub fn has_pending_tasks(&self) -> bool {
        self.task_scheduler.has_pending_tasks()
    }

    pub fn tasks_launched(&self) -> u64 {
        self.task_scheduler.tasks_launched()
    }

    /// Failed task attempts recorded and not taken yet (the suites' harnesses take none): a
    /// failure's TaskEnd (AppStatusListener.onTaskEnd's split; a kill is no failure).
    #[cfg(test)]
    pub fn failed_attempts(&self) -> u64 {
        use crate::world::listener::TaskEndKind;
        let failed = |e: &&TaskEnded| e.kind.listener_kind() == TaskEndKind::Failed;
        self.task_ends().iter().filter(failed).count() as u64
    }

    /// The attempts' ends recorded since the DriverEndpoint last took them.
    pub fn task_ends(&self) -> &[TaskEnded] {
        self.task_scheduler.task_ends()
    }

    /// Hands the ends recorded so far over in `into` (empty; its capacity is reused).
    pub fn take_task_ends(&mut self, into: &mut Vec<TaskEnded>) {
        self.task_scheduler.take_task_ends(into);
    }

    /// Work run again to recover since the last drain.
    pub fn drain_recoveries(&mut self) -> std::vec::Drain<'_, Recovery> {
        self.dag.recoveries.drain(..)
    }

    /// Task outputs won and lost since the last drain.
    pub fn drain_task_outputs(&mut self) -> std::vec::Drain<'_, TaskOutput> {
        self.dag.task_outputs.drain(..)
    }

    /// BlockManagerMasterEndpoint's `IsExecutorAlive`: whether the master still has the
    /// executor's block manager (removed with the DAGScheduler's `handleExecutorLost`).
    pub fn block_manager_is_executor_alive(&self, id: ExecutorId) -> bool {
        self.env.block_manager_master.host_of(id).is_some()
    }

    /// Whether the BlockManagerMaster removed the executor's block manager since it last
    /// registered (`removeExecutor`: its loss, or a fetch failure naming it).
    pub fn block_manager_removed(&self, id: ExecutorId) -> bool {
        self.env.block_manager_master.was_removed(id)
    }

    /// Whether any live map output names the executor (shuffle tracking keeps it).
    pub fn holds_map_output(&self, id: ExecutorId) -> bool {
        self.env.map_output_tracker.has_outputs_of(id)
    }

    /// `MapOutputTrackerMaster.updateMapOutput` (a migrated shuffle block).
    pub fn update_map_output(&mut self, block: ShuffleBlockInfo, location: BlockManagerId) {
        self.env.update_map_output(block, location);
    }

    /// BlockManagerMasterEndpoint.register.
    pub fn block_manager_added(&mut self, eid: ExecutorId, host: Rc<str>) {
        self.env.block_manager_master.block_manager_added(eid, host);
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo of a cached RDD block.
    pub fn update_rdd_block_info(
        &mut self,
        location: &BlockManagerId,
        block: RddBlockId,
        mem_size: u64,
        max_memory: u64,
    ) {
        self.env
            .block_manager_master
            .update_rdd_block_info(location, block, mem_size, max_memory);
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo with `StorageLevel.NONE`.
    pub fn remove_rdd_block_info(&mut self, location: &BlockManagerId, block: RddBlockId) {
        self.env
            .block_manager_master
            .remove_rdd_block_info(location, block);
    }

    /// BlockManagerMasterEndpoint.getReplicateInfoForRDDBlocks.
    pub fn replicate_info_for_rdd_blocks(&self, location: &BlockManagerId) -> Vec<ReplicateBlock> {
        self.env
            .block_manager_master
            .replicate_info_for_rdd_blocks(location)
    }
}

/// What the backend's `decommissionExecutors` calls back for a kill the scheduler deferred.
impl ExecutorDecommission for DriverScheduler {
    fn executor_decommission(&mut self, id: ExecutorId, worker_host: Option<&str>) {
        DriverScheduler::executor_decommission(self, id, worker_host);
    }
}

/// The DAGScheduler after its `stop`: `EventLoop.post` on a stopped loop does nothing (Spark
/// 4.0.0's jar: `post` returns when `stopped` is set), so every event is dropped.
struct StoppedDagScheduler;

impl DagEvents for StoppedDagScheduler {
    fn task_started(&mut self, _: &RunningTask) {}
    fn task_ended(
        &mut self,
        _: CompletionEvent<'_>,
        _: &mut TaskSchedulerImpl,
        _: &mut DriverEnv,
        _: &mut Vec<SchedulerEvent>,
    ) {
    }
    fn executor_added(&mut self, _: ExecutorId, _: &str) {}
    fn executor_lost(&mut self, _: ExecutorId, _: &ExecutorLossReason) {}
    fn task_set_failed(
        &mut self,
        _: u32,
        _: &str,
        _: &mut TaskSchedulerImpl,
        _: &mut DriverEnv,
        _: &mut Vec<SchedulerEvent>,
    ) {
    }
    fn speculative_task_submitted(&mut self, _: SpeculativeTask) {}
    fn unschedulable_task_set_added(&mut self, _: u32, _: u32) {}
    fn unschedulable_task_set_removed(&mut self, _: u32, _: u32) {}
}
