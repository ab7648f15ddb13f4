//! `TaskSchedulerImpl` (Spark: `scheduler/TaskSchedulerImpl.scala`): the task sets it owns
//! (`TaskSetManager`s, FIFO), resource offers, status updates, `killAllTaskAttempts`,
//! `executorLost`, decommissioning, and its speculation thread. It reaches the DAGScheduler only
//! through `DagEvents`, the events Spark's `DAGScheduler.taskStarted` / `taskEnded` /
//! `executorAdded` / `executorLost` / `taskSetFailed` / `speculativeTaskSubmitted` post, and
//! SparkEnv's masters through the `DriverEnv` each call is given.
//!
//! Exclusion on failure (`Exclusion`, `None` when off, so each hook is one `Option` test): the
//! `HealthTracker` (`healthTrackerOpt`), which `resourceOffers` first lets expire exclusions
//! (`applyExcludeOnFailureTimeout`) and whose excluded nodes and executors it drops from the
//! offers; `removeExecutor` tells it (`handleRemovedExecutor`), a successful task set hands it
//! its exclude list's failures (`updateExcludedForSuccessfulTaskSet`) and a fetch failure its
//! server (`updateExcludedForFetchFailure`). A task set that launched nothing in a round and has
//! a task no executor may run is unschedulable (`unschedulableTaskSetToExpiryTime`): an idle
//! executor is killed and an abort timer started, or with dynamic allocation only the timer, or
//! it is aborted at once.

use super::allocation_client::{AllocationClient, DeferredAllocations, ExecutorDecommission};
use super::env::DriverEnv;
use super::events::{
    AttemptEnd, CompletionEvent, Ending, LaunchedTasks, RunningTask, SchedulerEvent,
    SpeculativeTask, TaskSet, TsKey, WorkerOffer,
};
use super::health_tracker::{
    ExcludeOnFailureConf, HealthLogLevel, HealthStep, HealthTracker, HealthTrackerConf,
    HealthUpdate,
};
use super::locality::{ExecutorDecommissionState, TaskLocality, Topology};
use super::pool::{FairPools, SchedulingMode};
use super::speculation::{ANOTHER_ATTEMPT_SUCCEEDED, Speculation, TaskSetSpeculation};
use super::task_set_exclude_list::{
    ApplicationExclusions, HostExecutors, StageExclusions, TaskSetExcludeConf, TaskSetExcludelist,
};
use super::task_set_manager::{Dequeued, LocalityContext, OfferRound, StartedCopy, TaskSetManager};
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::kernel::small_map::{DenseMap, SmallSet};
use crate::spark_core::task_result_getter::{FailedReason, TaskEnded};
use crate::world::config::AllocationFile;
use crate::world::config::{LocalitySettings, SpeculationSettings};
use crate::world::listener::ContextBus;
use crate::{error, info, info_parts, warn};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::jvm_text::{
    bytes_to_string, double_to_string, scala_hash_order, scala_long_hash,
};
use sparkyard_messages::listener::TaskEndReason;
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::task::{
    FetchFailure, RESULT_SIZE_EXCEEDED, ShuffleIo, TaskDescription, TaskName, TaskResultData,
    TaskWork,
};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound::{Excluded, Unbounded};
use std::rc::Rc;

const TSM: &str = "driver::TaskSetManager";
const TS: &str = "driver::YarnClusterScheduler";
/// `TaskSetManager.BARRIER_LOGGING_INTERVAL`: a barrier set's `Releasing the assigned resource
/// offers` line comes at most once a minute.
const BARRIER_LOGGING_INTERVAL_MS: u64 = 60_000;
/// `classOf[TaskOutputFileAlreadyExistException].getName`: a task that cannot write its output
/// file is not retried (TaskSetManager.handleFailedTask).
const OUTPUT_FILE_EXISTS: &str = "org.apache.spark.TaskOutputFileAlreadyExistException";
/// `classOf[NotSerializableException].getName`: a task whose result cannot be serialized is not
/// retried either (TaskSetManager.handleFailedTask checks it first).
const NOT_SERIALIZABLE: &str = "java.io.NotSerializableException";
const HT: &str = "driver::HealthTracker";
const TSEL: &str = "driver::TaskSetExcludelist";

/// The serialised size sparkyard reports for a task (what `Starting task` prints).
const TASK_BYTES: u64 = 7595;

/// The DAGScheduler as TaskSchedulerImpl and its TaskSetManagers see it (Spark's
/// `DAGScheduler.taskStarted`, `taskEnded`, ...: each posts a `DAGSchedulerEvent`). The
/// DAGScheduler handles each as it is posted, except `executor_lost`, which waits for the
/// backend's `ExecutorRemoved` (see `DAGScheduler`). Those that lead to DAGScheduler -> task
/// scheduler calls (`submitTasks`, `killAllTaskAttempts`, `notifyPartitionCompletion`) are
/// handed the task scheduler back.
pub trait DagEvents {
    /// `taskStarted(task, taskInfo)` -> `BeginEvent`.
    fn task_started(&mut self, task: &RunningTask);
    /// `taskEnded(task, reason, result, ...)` -> `CompletionEvent`.
    fn task_ended(
        &mut self,
        event: CompletionEvent<'_>,
        ts: &mut TaskSchedulerImpl,
        env: &mut DriverEnv,
        out: &mut Vec<SchedulerEvent>,
    );
    /// `executorAdded(execId, host)` -> `ExecutorAdded`.
    fn executor_added(&mut self, executor: ExecutorId, host: &str);
    /// `executorLost(execId, reason)` -> `ExecutorLost`.
    fn executor_lost(&mut self, executor: ExecutorId, reason: &ExecutorLossReason);
    /// `taskSetFailed(taskSet, reason, exception)` -> `TaskSetFailed`.
    fn task_set_failed(
        &mut self,
        stage: u32,
        reason: &str,
        ts: &mut TaskSchedulerImpl,
        env: &mut DriverEnv,
        out: &mut Vec<SchedulerEvent>,
    );
    /// `speculativeTaskSubmitted(task, taskIndex)` -> `SpeculativeTaskSubmitted`.
    fn speculative_task_submitted(&mut self, task: SpeculativeTask);
    /// `unschedulableTaskSetAdded(stageId, stageAttemptId)` -> `UnschedulableTaskSetAdded`.
    fn unschedulable_task_set_added(&mut self, stage: u32, stage_attempt: u32);
    /// `unschedulableTaskSetRemoved(stageId, stageAttemptId)` -> `UnschedulableTaskSetRemoved`.
    fn unschedulable_task_set_removed(&mut self, stage: u32, stage_attempt: u32);
}

/// A finished attempt of a map task (successful, failed or killed) on an executor: the
/// `taskInfos` entry TaskSetManager.executorLost walks when that executor goes and no shuffle
/// service keeps its output. Spark 4.0.0 resubmits the attempt's index when the index is
/// successful, whichever executor the successful attempt ran on, so failed attempts are kept
/// too (only failures are off the per-task path; a success was always kept).
struct MapOutput {
    key: TsKey,
    index: u32,
    attempt: u32,
    task_id: TaskId,
    launch_epoch: u64,
    locality: TaskLocality,
    speculative: bool,
    /// The attempt's TaskInfo as it ended: the `Resubmitted` TaskEnd posts it unchanged.
    ended: AttemptEnd,
}

/// The running tasks by task id. Task ids are handed out in order, so each id has a 4-byte
/// slot from the oldest running task on (a task that runs while a million later ones finish
/// holds the window open at 4 bytes a slot); the slot names the task's place in a table whose
/// places are reused as tasks end, so a launch allocates nothing once the table has grown to
/// the most tasks ever running at once.
#[derive(Default)]
pub(super) struct RunningTasks {
    place_of: DenseMap<TaskId, u32>,
    pub(super) places: Vec<Option<RunningTask>>,
    free: Vec<u32>,
}

impl RunningTasks {
    pub(super) fn insert(&mut self, tid: TaskId, task: RunningTask) {
        let place = match self.free.pop() {
            Some(p) => {
                self.places[p as usize] = Some(task);
                p
            }
            None => {
                self.places.push(Some(task));
                (self.places.len() - 1) as u32
            }
        };
        // A task id launched twice replaces the first (as a map insert would).
        if let Some(old) = self.place_of.insert(tid, place) {
            self.places[old as usize] = None;
            self.free.push(old);
        }
    }

    #[cfg(test)]
    pub(super) fn get(&self, tid: TaskId) -> Option<&RunningTask> {
        let p = *self.place_of.get(tid)?;
        self.places[p as usize].as_ref()
    }

    pub(super) fn get_mut(&mut self, tid: TaskId) -> Option<&mut RunningTask> {
        let p = *self.place_of.get(tid)?;
        self.places[p as usize].as_mut()
    }

    pub(super) fn remove(&mut self, tid: TaskId) -> Option<RunningTask> {
        let p = self.place_of.remove(tid)?;
        self.free.push(p);
        self.places[p as usize].take()
    }

    /// In task id order.
    pub(super) fn values(&self) -> impl Iterator<Item = &RunningTask> {
        self.place_of
            .values()
            .filter_map(|p| self.places[*p as usize].as_ref())
    }
}

/// `TaskSchedulerImpl` of one SparkContext (YARN's `YarnClusterScheduler`).
pub struct TaskSchedulerImpl {
    log: ProcessLog,
    max_failures: u32,
    /// `spark.driver.maxResultSize`, bytes (0: unlimited).
    max_result_size: u64,
    /// `barrierCoordinator` is set up (`maybeInitBarrierCoordinator`, at the first barrier
    /// set's launch).
    barrier_coordinator: bool,
    /// Task sets submitted so far (the next one's place in the pool's queue).
    submitted_sets: u64,
    task_cpus: u32,
    locality: LocalitySettings,
    /// `spark.shuffle.service.enabled`: a lost executor's map outputs stay served.
    external_shuffle_service: bool,
    /// Live executors, hosts and racks, and the cluster's racks.
    pub(super) topology: Topology,
    /// `shuffleOffers`' randomness, seeded from the run's seed.
    rng: ChaCha8Rng,
    /// The offer index of each task launched in a `resourceOffers` round (reused).
    launch_order: Vec<u32>,
    /// The tasks a single offer took from one task set, launched after its turn (reused).
    taken: Vec<(Dequeued, StartedCopy)>,
    next_task: u64,
    /// `taskSetsByStageIdAndAttempt`, keyed for FIFO order.
    pub(super) task_sets: BTreeMap<TsKey, TaskSetManager>,
    /// Each stage's job (the first part of its task sets' keys).
    stage_jobs: BTreeMap<u32, u32>,
    /// Task sets with pending tasks, in FIFO order (job, stage, attempt).
    pub(super) runnable: BTreeSet<TsKey>,
    /// Running tasks by task id, looked up at each status update (`taskIdToTaskSetManager`).
    pub(super) running: RunningTasks,
    /// Each executor's running tasks, by executor id (ids are handed out in order; a task's
    /// launch and end each look its executor up), iterated in task id order when it is lost
    /// (`executorIdToRunningTaskIds`).
    by_executor: DenseMap<ExecutorId, SmallSet<TaskId>>,
    /// Map outputs each executor serves itself, for its running map task sets.
    outputs_by_executor: BTreeMap<ExecutorId, Vec<MapOutput>>,
    pub(super) tasks_launched: u64,
    /// The record of each attempt's end since the DriverEndpoint last took them (every
    /// `taskEnded` but a `Resubmitted` one), in the order they ended.
    task_ends: Vec<TaskEnded>,
    /// Speculative execution, when `spark.speculation` is on.
    speculation: Option<Box<Speculation>>,
    /// Exclusion on failure, when on (task and stage, application, or both).
    exclusion: Option<Box<Exclusion>>,
    /// What a call without an `out` of its own (a round of offers, a HealthTracker step) asks
    /// the DriverEndpoint to do; drained by `take_deferred`.
    deferred: Vec<SchedulerEvent>,
    /// Task ends waiting for `task_result_getter` (the TaskResultGetter's thread pool).
    ended: Vec<QueuedEnd>,
    /// `spark.scheduler.mode=FAIR`'s pools (`None`: FIFO, the root pool holds the sets).
    pools: Option<Box<FairPools>>,
}

/// A FAIR round's walk: the runnable sets in the pools' order, and how far the round got.
struct OfferWalk {
    sets: Vec<TsKey>,
    next: usize,
}

/// Exclusion on failure: Spark's `healthTrackerOpt`, what each TaskSetManager's list is made
/// from, and TaskSchedulerImpl's `unschedulableTaskSetToExpiryTime`.
struct Exclusion {
    /// The per-task and per-stage limits each TaskSetManager's list reads.
    task_set_conf: TaskSetExcludeConf,
    /// `TaskSetExcludelist.isExcludeOnFailureEnabled`: the lists exclude (else, with a
    /// HealthTracker, they are dry runs that only count for it).
    task_and_stage: bool,
    health: Option<HealthTracker>,
    /// `unschedulableTaskSetToExpiryTime`.
    unschedulable: BTreeMap<TsKey, u64>,
    /// `spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout`, ms.
    unschedulable_timeout_ms: u64,
    /// `Utils.isDynamicAllocationEnabled(conf)`.
    dynamic_allocation: bool,
    /// `sc.listenerBus`, where the HealthTracker and the lists post.
    bus: ContextBus,
}

impl TaskSchedulerImpl {
    pub fn new(log: ProcessLog, max_failures: u32, task_cpus: u32) -> Self {
        TaskSchedulerImpl {
            log,
            max_failures,
            max_result_size: 1 << 30,
            barrier_coordinator: false,
            submitted_sets: 0,
            task_cpus,
            locality: LocalitySettings::default(),
            external_shuffle_service: false,
            topology: Topology::default(),
            rng: ChaCha8Rng::seed_from_u64(0),
            launch_order: Vec::new(),
            taken: Vec::new(),
            next_task: 0,
            task_sets: BTreeMap::new(),
            stage_jobs: BTreeMap::new(),
            runnable: BTreeSet::new(),
            running: RunningTasks::default(),
            by_executor: DenseMap::default(),
            outputs_by_executor: BTreeMap::new(),
            tasks_launched: 0,
            task_ends: Vec::new(),
            speculation: None,
            exclusion: None,
            deferred: Vec::new(),
            ended: Vec::new(),
            pools: None,
        }
    }

    /// `spark.scheduler.mode`: FAIR builds the pools (`FairSchedulableBuilder.buildPools`, with
    /// its line); FIFO keeps the root pool's FIFO walk.
    pub fn with_scheduling_mode(mut self, mode: SchedulingMode) -> Self {
        if mode == SchedulingMode::Fair {
            self.pools = Some(Box::new(FairPools::new(self.log.clone(), None)));
        }
        self
    }

    /// `spark.scheduler.allocation.file`'s pools (FAIR mode only: FIFO builds no pools).
    pub fn with_allocation_file(mut self, file: Option<&AllocationFile>) -> Self {
        if let (Some(_), Some(f)) = (&self.pools, file) {
            self.pools = Some(Box::new(FairPools::new(self.log.clone(), Some(f))));
        }
        self
    }

    /// A job's `spark.scheduler.pool` property, which its task sets carry to the pools.
    pub fn set_job_pool(&mut self, job_id: u32, pool: Option<&str>) {
        if let Some(p) = self.pools.as_mut() {
            p.set_job_pool(job_id, pool);
        }
    }

    /// Exclusion on failure from the `spark.excludeOnFailure.*` keys (validated at submission,
    /// as HealthTracker's constructor validates them): a HealthTracker when
    /// `HealthTracker.isExcludeOnFailureEnabled`, lists that exclude when
    /// `TaskSetExcludelist.isExcludeOnFailureEnabled`; nothing when neither.
    pub fn with_exclusion(
        mut self,
        conf: &ExcludeOnFailureConf,
        unschedulable_timeout_ms: u64,
        dynamic_allocation: bool,
        bus: ContextBus,
    ) -> Self {
        let enabled = conf.is_exclude_on_failure_enabled();
        if let Some(w) = &enabled.legacy_warning {
            warn!(self.log, HT, "{w}");
        }
        let health = match enabled.enabled.then(|| HealthTrackerConf::from_conf(conf)) {
            Some(Ok(c)) => Some(HealthTracker::new(c)),
            // Refused at submission with the same text; kept from panicking here.
            Some(Err(e)) => {
                error!(self.log, HT, "{e}");
                None
            }
            None => None,
        };
        let task_and_stage = conf.task_and_stage_enabled();
        if health.is_some() || task_and_stage {
            self.exclusion = Some(Box::new(Exclusion {
                task_set_conf: conf.task_set_conf(),
                task_and_stage,
                health,
                unschedulable: BTreeMap::new(),
                unschedulable_timeout_ms,
                dynamic_allocation,
                bus,
            }));
        }
        self
    }

    /// What the calls since the last drain asked the DriverEndpoint to do (kills, abort timers,
    /// an abort's job end).
    pub fn take_deferred(&mut self) -> Vec<SchedulerEvent> {
        std::mem::take(&mut self.deferred)
    }

    /// Events for the DriverEndpoint after the call (a test harness's deferred kills).
    #[cfg(test)]
    pub(super) fn defer(&mut self, mut events: Vec<SchedulerEvent>) {
        self.deferred.append(&mut events);
    }

    /// The keys of `unschedulableTaskSetToExpiryTime`: the sets waiting on their abort timer.
    #[cfg(test)]
    pub fn unschedulable_task_sets(&self) -> Vec<TsKey> {
        self.exclusion
            .as_ref()
            .map(|x| x.unschedulable.keys().copied().collect())
            .unwrap_or_default()
    }

    /// `excludedNodes()`: the HealthTracker's excluded nodes, which YarnSchedulerBackend sends
    /// with every `RequestExecutors` and registration checks.
    pub fn excluded_nodes(&self) -> BTreeSet<String> {
        self.health()
            .map(HealthTracker::excluded_node_list)
            .unwrap_or_default()
    }

    fn health(&self) -> Option<&HealthTracker> {
        self.exclusion.as_ref().and_then(|x| x.health.as_ref())
    }

    /// For the no-task-where-excluded invariant: what excluded the executor or host a task was
    /// just launched on, if anything did at that moment (the HealthTracker for the application;
    /// the set's TaskSetExcludelist, not a dry run, for its stage attempt or the task's index).
    pub fn launch_exclusion(&self, desc: &TaskDescription, host: &str) -> Option<&'static str> {
        let x = self.exclusion.as_ref()?;
        let eid = desc.executor_id;
        if let Some(h) = &x.health {
            if h.is_executor_excluded(eid) {
                return Some("executor excluded for the application");
            }
            if h.is_node_excluded(host) {
                return Some("node excluded for the application");
            }
        }
        let job = *self.stage_jobs.get(&desc.stage_id)?;
        let key = (job, desc.stage_id, desc.stage_attempt_id);
        let list = self.task_sets.get(&key)?.exclude_list.as_ref()?;
        if list.is_dry_run() {
            return None;
        }
        let index = desc.index;
        [
            (
                list.is_executor_excluded_for_task_set(eid),
                "executor excluded for the stage attempt",
            ),
            (
                list.is_node_excluded_for_task_set(host),
                "node excluded for the stage attempt",
            ),
            (
                list.is_executor_excluded_for_task(eid, index),
                "executor excluded for the task",
            ),
            (
                list.is_node_excluded_for_task(host, index),
                "node excluded for the task",
            ),
        ]
        .into_iter()
        .find_map(|(hit, why)| hit.then_some(why))
    }

    /// `spark.shuffle.service.enabled`.
    pub fn with_external_shuffle_service(mut self, enabled: bool) -> Self {
        self.external_shuffle_service = enabled;
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
        self.locality = locality;
        self.topology = Topology::new(racks);
        self.rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0ffe_75ed);
        self
    }

    /// `spark.driver.maxResultSize` in bytes (default 1g; 0 = unlimited).
    pub fn with_max_result_size(mut self, bytes: u64) -> Self {
        self.max_result_size = bytes;
        self
    }

    /// Speculation on (`spark.speculation`): set before the first job.
    pub fn with_speculation(mut self, settings: Option<SpeculationSettings>) -> Self {
        self.speculation = settings.map(|s| Box::new(Speculation::new(s)));
        self
    }

    /// `spark.speculation.interval` when speculation is on.
    pub fn speculation_interval_ms(&self) -> Option<u64> {
        self.speculation.as_ref().map(|s| s.settings.interval_ms)
    }

    pub fn has_pending_tasks(&self) -> bool {
        !self.runnable.is_empty()
    }

    pub fn tasks_launched(&self) -> u64 {
        self.tasks_launched
    }

    /// The ends recorded since the DriverEndpoint last took them.
    pub fn task_ends(&self) -> &[TaskEnded] {
        &self.task_ends
    }

    /// Hands the ends recorded so far over in `into` (empty: its capacity is kept for the next
    /// ones, so the per-task path allocates nothing).
    pub fn take_task_ends(&mut self, into: &mut Vec<TaskEnded>) {
        debug_assert!(into.is_empty());
        std::mem::swap(&mut self.task_ends, into);
    }

    /// `submitTasks(taskSet)`: a TaskSetManager for the stage attempt (`Adding task set`), in
    /// the pool with its tasks pending.
    pub fn submit_tasks(&mut self, task_set: TaskSet) {
        let TaskSet {
            job_id,
            stage_id,
            stage_attempt,
            partitions,
            epoch,
            prefs,
            code,
        } = task_set;
        let n = partitions.len();
        info!(
            self.log,
            TS, "Adding task set {stage_id}.{stage_attempt} with {n} tasks resource profile 0"
        );
        let key = (job_id, stage_id, stage_attempt);
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms: clock::now_ms(),
        };
        let mut tsm = TaskSetManager::new(key, code, partitions, epoch, prefs, &cx);
        tsm.pool_seq = self.submitted_sets;
        self.submitted_sets += 1;
        if let Some(x) = &self.exclusion {
            // TaskSetManager's constructor: a list that excludes, else a dry run for the
            // HealthTracker.
            let (c, a) = (x.task_set_conf, stage_attempt);
            tsm.exclude_list = Some(Box::new(if x.task_and_stage {
                TaskSetExcludelist::new(c, stage_id, a)
            } else {
                TaskSetExcludelist::dry_run(c, stage_id, a)
            }));
        }
        if let Some(spec) = self.speculation.as_mut() {
            spec.active.insert(key);
            tsm.spec = Some(Box::new(TaskSetSpeculation::new(n, &spec.settings)));
        }
        self.zombify_earlier_attempts(stage_id);
        self.task_sets.insert(key, tsm);
        self.stage_jobs.insert(stage_id, job_id);
        self.runnable.insert(key);
        if let Some(p) = self.pools.as_mut() {
            p.add_task_set(key);
        }
    }

    /// submitTasks' `stageTaskSets.foreach { case (_, ts) => ts.isZombie = true }` (Spark
    /// 4.0.0's `$anonfun$submitTasks$3`): a stage has one active attempt, so every attempt still
    /// registered becomes a zombie (no `suspend`: its pending lists stay, its running tasks run
    /// on) when the next one is added.
    fn zombify_earlier_attempts(&mut self, stage: u32) {
        let Some(&job) = self.stage_jobs.get(&stage) else {
            return;
        };
        for tsm in self
            .task_sets
            .range_mut((job, stage, 0)..=(job, stage, u32::MAX))
            .map(|(_, t)| t)
        {
            if !tsm.finished {
                tsm.zombie = true;
            }
        }
    }

    /// `resourceOffers` for one executor (`makeOffers(executorId)`, `isAllFreeResources =
    /// false`).
    #[cfg(test)]
    pub fn resource_offer(
        &mut self,
        offer: &mut WorkerOffer,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
    ) -> LaunchedTasks {
        let mut launched = Vec::new();
        let offers = std::slice::from_mut(offer);
        self.resource_offers(offers, false, &mut launched, env, dag, alloc);
        launched
    }

    /// `TaskSetManager.resourceOffer(execId, host, maxLocality)` on one set, as
    /// TaskSetManagerSuite calls it: delay scheduling's choice up to `max_locality`, and the
    /// launch of what it gives (`prepareLaunchingTask`, `taskStarted`); no round, no reset.
    #[cfg(test)]
    pub(super) fn task_set_resource_offer(
        &mut self,
        key: TsKey,
        offer: &WorkerOffer,
        max_locality: TaskLocality,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
    ) -> Option<Box<TaskDescription>> {
        let now_ms = clock::now_ms();
        let dequeued = self.offer_to_set(key, offer, max_locality, now_ms)?.0?;
        let mut launched = Vec::new();
        let mut round = Round {
            all_free: false,
            now_ms,
            launched: &mut launched,
            env,
            dag,
            alloc,
        };
        Some(self.launch(key, dequeued, offer, &mut round))
    }

    /// `TaskSchedulerImpl.resourceOffers(offers, isAllFreeResources)`: executors not seen
    /// before become alive (every task set recomputes its locality levels), the offers are
    /// shuffled (`shuffleOffers`; seeded here), then each task set in FIFO order, level by level
    /// of its `myLocalityLevels`, takes at most one task per offer per pass over the offers,
    /// passing again while a pass launched anything. Delay scheduling's timer is reset when no
    /// offer was rejected for locality. The launched tasks come out grouped by offer, in the
    /// shuffled order (`launchTasks(tasks.flatten)`); `offers[i].cores` is what is left.
    pub fn resource_offers(
        &mut self,
        offers: &mut [WorkerOffer],
        all_free: bool,
        launched: &mut LaunchedTasks,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
    ) {
        if let [offer] = offers {
            self.resource_offers_one(offer, all_free, launched, env, dag, alloc);
            return;
        }
        if self.any_executor_added(offers, dag) {
            self.recompute_locality_all();
        }
        let excluded = self.exclude_offers(offers);
        // The runnable sets in FIFO order (or the pools'); offering to one only ever removes
        // it from the set.
        let mut walk = self.offer_walk();
        if offers.len() > 1 {
            self.shuffle_offers(offers);
            self.recorded_draws_first(offers, walk.as_ref());
        }
        let now_ms = clock::now_ms();
        let first = launched.len();
        let mut order = std::mem::take(&mut self.launch_order);
        let mut next = self.walk_next(&mut walk, None);
        while let Some(key) = next {
            // With no offer able to take a task, the remaining passes would launch and reject
            // nothing, and change nothing (with exclusion on, each set is still checked for a
            // task no executor may run).
            if self.exclusion.is_none() && offers.iter().all(|o| o.cores < self.task_cpus) {
                break;
            }
            let mut round = Round {
                all_free,
                now_ms,
                launched: &mut *launched,
                env: &mut *env,
                dag: &mut *dag,
                alloc: &mut *alloc,
            };
            let any = self.offer_task_set(key, offers, &mut round, &mut order);
            if self.exclusion.is_some() {
                self.after_task_set_offered(key, any, &mut round);
            }
            next = self.walk_next(&mut walk, Some(key));
        }
        if offers.len() > 1 {
            group_by_offer(launched, first, &order);
        }
        order.clear();
        self.launch_order = order;
        restore_offers(offers, excluded);
    }

    /// `resourceOffers` with one offer (`makeOffers(executorId)`, the per-task path): the same
    /// rounds as the general path, which for a single offer come down to taking tasks from each
    /// task set, level by level, while the offer has cores and the set hands one out (a pass
    /// over one offer launches at most one task, and passes go on while one launches). Nothing
    /// to shuffle or regroup, so none of that code runs per task.
    fn resource_offers_one(
        &mut self,
        offer: &mut WorkerOffer,
        all_free: bool,
        launched: &mut LaunchedTasks,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
    ) {
        self.executor_offered(offer.executor_id, &offer.host, dag);
        let excluded = self.exclude_offers(std::slice::from_mut(offer));
        let now_ms = clock::now_ms();
        let mut walk = self.offer_walk();
        let mut next = self.walk_next(&mut walk, None);
        while let Some(key) = next {
            if offer.cores < self.task_cpus && self.exclusion.is_none() {
                break;
            }
            let mut round = Round {
                all_free,
                now_ms,
                launched: &mut *launched,
                env: &mut *env,
                dag: &mut *dag,
                alloc: &mut *alloc,
            };
            let any = self.offer_one_task_set(key, offer, &mut round);
            if self.exclusion.is_some() {
                self.after_task_set_offered(key, any, &mut round);
            }
            next = self.walk_next(&mut walk, Some(key));
        }
        restore_offers(std::slice::from_mut(offer), excluded);
    }

    /// `offer_task_set` for a single offer. Without speculation (whose dequeue reads the
    /// attempts launched so far, which `launch` records), the set's whole share is taken under
    /// one borrow of it, and the tasks are launched after: the set's counts change at each
    /// take, so every later take sees what Spark's would. Whether it launched anything.
    fn offer_one_task_set<D: DagEvents>(
        &mut self,
        key: TsKey,
        offer: &mut WorkerOffer,
        r: &mut Round<'_, D>,
    ) -> bool {
        if self.speculation.is_some() {
            if self.task_sets.get(&key).is_some_and(|t| t.code.barrier) {
                return self.offer_barrier_one(key, offer, r);
            }
            return self.offer_one_task_set_launching_each(key, offer, r);
        }
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            self.runnable.remove(&key);
            return false;
        };
        if tsm.code.barrier {
            return self.offer_barrier_one(key, offer, r);
        }
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms: r.now_ms,
        };
        let mut taken = std::mem::take(&mut self.taken);
        let mut round = OfferRound::default();
        let mut cores = offer.cores;
        let levels = tsm.levels;
        for &level in levels.as_slice() {
            while cores >= self.task_cpus {
                let (task, rejected) =
                    tsm.resource_offer(offer.executor_id, &offer.host, level, &cx);
                round.no_rejects &= !rejected;
                let Some(d) = task else { break };
                cores -= self.task_cpus;
                round.launched(d.locality);
                taken.push((d, tsm.start_copy(d.index)));
            }
            if cores < self.task_cpus {
                break;
            }
        }
        tsm.end_offer_round(&round, r.all_free, r.now_ms, &self.locality);
        if !tsm.has_pending() {
            self.runnable.remove(&key);
        }
        offer.cores = cores;
        for (d, copy) in taken.drain(..) {
            let task = self.launch_copy(key, d, copy, offer, r);
            r.launched.push(task);
        }
        self.taken = taken;
        round.min_locality.is_some()
    }

    /// A barrier set's share of a single offer's round (`makeOffers(executorId)`).
    #[cold]
    #[inline(never)]
    fn offer_barrier_one<D: DagEvents>(
        &mut self,
        key: TsKey,
        offer: &mut WorkerOffer,
        r: &mut Round<'_, D>,
    ) -> bool {
        let mut order = Vec::new();
        self.offer_barrier_task_set(key, std::slice::from_mut(offer), r, &mut order)
    }

    /// `offer_one_task_set` with speculation on: each task is launched as it is taken.
    #[inline(never)]
    fn offer_one_task_set_launching_each<D: DagEvents>(
        &mut self,
        key: TsKey,
        offer: &mut WorkerOffer,
        r: &mut Round<'_, D>,
    ) -> bool {
        let Some(tsm) = self.task_sets.get(&key) else {
            self.runnable.remove(&key);
            return false;
        };
        let levels = tsm.levels;
        let mut round = OfferRound::default();
        for &level in levels.as_slice() {
            while offer.cores >= self.task_cpus {
                let Some((task, rejected)) = self.offer_to_set(key, offer, level, r.now_ms) else {
                    return round.min_locality.is_some();
                };
                round.no_rejects &= !rejected;
                let Some(d) = task else { break };
                offer.cores -= self.task_cpus;
                round.launched(d.locality);
                let task = self.launch(key, d, offer, r);
                r.launched.push(task);
            }
            if offer.cores < self.task_cpus {
                break;
            }
        }
        let any = round.min_locality.is_some();
        self.end_offer_round(key, round, r.all_free, r.now_ms);
        any
    }

    /// Whether an offer comes from an executor not seen before (it is alive from now on, and
    /// the DAGScheduler hears of it: `executorAdded`).
    fn any_executor_added(&mut self, offers: &[WorkerOffer], dag: &mut impl DagEvents) -> bool {
        let mut added = false;
        for o in offers {
            if self.topology.executor_added(o.executor_id, &o.host) {
                dag.executor_added(o.executor_id, &o.host);
                added = true;
            }
        }
        added
    }

    /// `shuffleOffers` (seeded). Out of line: only a round over all executors has more than one
    /// offer, and keeping the per-task path's code small keeps it in the instruction cache.
    #[inline(never)]
    fn shuffle_offers(&mut self, offers: &mut [WorkerOffer]) {
        use rand::seq::SliceRandom;
        offers.shuffle(&mut self.rng);
    }

    /// A replay's recorded draws: Spark's offer order is unseeded, and for a task without a
    /// preference it alone picks the executor, so where the log shows the pick
    /// (`TaskWork::Replayed::recorded_executor`) the replay takes it. In the walk's order, the
    /// offer of the executor each runnable set's next task ran on in the recording (the one at
    /// the same place in the registration order here) moves to the front, if it is offered
    /// with room for a task; the others keep the seeded shuffle's order. Without recorded
    /// draws (every run but a replay's) the order is the shuffle's.
    fn recorded_draws_first(&self, offers: &mut [WorkerOffer], walk: Option<&OfferWalk>) {
        let (mut fifo, mut pools) = (self.runnable.iter(), walk.map(|w| w.sets.iter()));
        let sets: &mut dyn Iterator<Item = &TsKey> = match pools.as_mut() {
            Some(p) => p,
            None => &mut fifo,
        };
        let mut front = 0;
        for key in sets.take(offers.len()) {
            let Some(id) = self.task_sets[key]
                .next_recorded_draw()
                .and_then(|place| self.topology.arrived(place))
            else {
                continue;
            };
            let drawn = offers[front..]
                .iter()
                .position(|o| o.executor_id == id && o.cores >= self.task_cpus);
            if let Some(at) = drawn {
                offers[front..=front + at].rotate_right(1);
                front += 1;
            }
        }
    }

    /// How a round of offers walks the runnable sets: `None` in FIFO mode (`runnable` itself,
    /// live), else the pools' `getSortedTaskSetQueue`, sorted once per round as Spark sorts it.
    fn offer_walk(&mut self) -> Option<OfferWalk> {
        let pools = self.pools.as_mut()?;
        let task_sets = &self.task_sets;
        let mut sets = Vec::new();
        pools.sorted_task_sets(&|k| task_sets.get(&k).map_or(0, |t| t.running), &mut sets);
        sets.retain(|k| self.runnable.contains(k));
        Some(OfferWalk { sets, next: 0 })
    }

    /// The set a round offers to after `after` (`None`: its first): the next runnable one in
    /// the walk's order.
    fn walk_next(&self, walk: &mut Option<OfferWalk>, after: Option<TsKey>) -> Option<TsKey> {
        let Some(w) = walk else {
            return match after {
                None => self.runnable.first().copied(),
                Some(key) => self.runnable_after(key),
            };
        };
        while let Some(&key) = w.sets.get(w.next) {
            w.next += 1;
            if self.runnable.contains(&key) {
                return Some(key);
            }
        }
        None
    }

    /// The next runnable set after `key`, in FIFO order. The common case, `key` the last one,
    /// needs no range search.
    fn runnable_after(&self, key: TsKey) -> Option<TsKey> {
        match self.runnable.last() {
            Some(&last) if last > key => self
                .runnable
                .range((Excluded(key), Unbounded))
                .next()
                .copied(),
            _ => None,
        }
    }

    /// `resourceOffers`' first part for one executor, also when no task is pending (Spark's
    /// `makeOffers(executorId)` calls `resourceOffers` whatever is pending): a new executor
    /// is alive on its host and rack (`executorAdded`), and the task sets' levels follow.
    pub fn executor_offered(&mut self, id: ExecutorId, host: &Rc<str>, dag: &mut impl DagEvents) {
        if self.topology.executor_added(id, host) {
            dag.executor_added(id, host);
            self.recompute_locality_all();
        }
        if self.exclusion.is_some() {
            self.apply_exclude_on_failure_timeout();
        }
    }

    /// One task set's share of `resourceOffers`: its locality levels in order, a
    /// `resourceOfferSingleTaskSet` pass over the offers while one launches, then the
    /// delay-scheduling reset (`legacyLocalityWaitReset` false, Spark's default). Whether it
    /// launched anything (`launchedAnyTask`).
    fn offer_task_set<D: DagEvents>(
        &mut self,
        key: TsKey,
        offers: &mut [WorkerOffer],
        r: &mut Round<'_, D>,
        order: &mut Vec<u32>,
    ) -> bool {
        let Some(tsm) = self.task_sets.get(&key) else {
            self.runnable.remove(&key);
            return false;
        };
        if tsm.code.barrier {
            return self.offer_barrier_task_set(key, offers, r, order);
        }
        let levels = tsm.levels;
        let mut round = OfferRound::default();
        for level in levels.as_slice() {
            if offers.iter().all(|o| o.cores < self.task_cpus) {
                break;
            }
            loop {
                let (no_reject, min) =
                    self.resource_offer_single_task_set(key, *level, offers, r, order);
                round.no_rejects &= no_reject;
                let Some(min) = min else { break };
                round.launched(min);
            }
        }
        let any = round.min_locality.is_some();
        self.end_offer_round(key, round, r.all_free, r.now_ms);
        any
    }

    /// A barrier set's share of `resourceOffers` (Spark 4.0.0's TaskSchedulerImpl, texts from
    /// its jar): skipped when the round's free slots are fewer than its tasks; else its tasks
    /// are taken as any set's (locality levels, one per offer per pass), but held back
    /// (`barrierPendingLaunchTasks`); unless every task found a slot, the cores go back to their
    /// offers and the tasks to the pending lists (`Releasing ...` at most once a minute),
    /// else all launch together (in the pending map's order: a Scala `mutable.HashMap` by
    /// index). Whether it took any task (`launchedAnyTask`).
    #[cold]
    #[inline(never)]
    fn offer_barrier_task_set<D: DagEvents>(
        &mut self,
        key: TsKey,
        offers: &mut [WorkerOffer],
        r: &mut Round<'_, D>,
        order: &mut Vec<u32>,
    ) -> bool {
        let (tasks, levels) = match self.task_sets.get(&key) {
            Some(t) => (t.partitions.len() as u32, t.levels),
            None => return false,
        };
        let slots: u32 = offers.iter().map(|o| o.cores / self.task_cpus).sum();
        if slots < tasks {
            info!(
                self.log,
                TS,
                "Skip current round of resource offers for barrier stage {} because the barrier taskSet requires {tasks} slots, while the total number of available slots is {slots}.",
                key.1
            );
            return false;
        }
        let mut round = OfferRound::default();
        // By index's hash (an Int's is itself), the order of the pending map.
        let mut held: Vec<(i32, HeldTask)> = Vec::new();
        for &level in levels.as_slice() {
            loop {
                let before = held.len();
                for (i, offer) in offers.iter_mut().enumerate() {
                    if offer.cores < self.task_cpus {
                        continue;
                    }
                    let Some((task, rejected)) = self.offer_to_set(key, offer, level, r.now_ms)
                    else {
                        break;
                    };
                    round.no_rejects &= !rejected;
                    if let Some(d) = task {
                        offer.cores -= self.task_cpus;
                        round.launched(d.locality);
                        held.push((d.index as i32, HeldTask { offer: i, task: d }));
                        if let Some(tsm) = self.task_sets.get_mut(&key) {
                            tsm.hold_barrier_task(d.index);
                        }
                    }
                }
                if held.len() == before {
                    break;
                }
            }
        }
        self.end_offer_round(key, round, r.all_free, r.now_ms);
        if held.is_empty() {
            return false;
        }
        let tsm = self.task_sets.get_mut(&key).expect("offered above");
        for (_, h) in &held {
            tsm.release_barrier_task(h.task.index);
        }
        if held.len() as u32 != tasks {
            self.release_barrier_offers(key, held, offers, r.now_ms);
            return true;
        }
        for h in scala_hash_order(held, tasks as usize) {
            let task = self.launch(key, h.task, &offers[h.offer], r);
            r.launched.push(task);
            order.push(h.offer as u32);
        }
        if !std::mem::replace(&mut self.barrier_coordinator, true) {
            info!(self.log, TS, "Registered BarrierCoordinator endpoint");
        }
        info!(
            self.log,
            TS, "Successfully scheduled all the {tasks} tasks for barrier stage {}.", key.1
        );
        true
    }

    /// A barrier set only part of whose tasks found a slot: each held task's cores go back to
    /// its offer and its index to the pending lists (`addPendingTask`); the line at most once
    /// per `BARRIER_LOGGING_INTERVAL` (60 s, the first a minute after the set was made).
    fn release_barrier_offers(
        &mut self,
        key: TsKey,
        held: Vec<(i32, HeldTask)>,
        offers: &mut [WorkerOffer],
        now_ms: u64,
    ) {
        let tsm = self.task_sets.get_mut(&key).expect("offered above");
        if now_ms.saturating_sub(tsm.barrier_fail_logged_ms) > BARRIER_LOGGING_INTERVAL_MS {
            info!(
                self.log,
                TS,
                "Releasing the assigned resource offers since only partial tasks can be launched. Waiting for later round resource offers."
            );
            tsm.barrier_fail_logged_ms = now_ms;
        }
        for (_, h) in held {
            offers[h.offer].cores += self.task_cpus;
            tsm.add_pending_task(h.task.index, &self.topology);
        }
        self.runnable.insert(key);
    }

    /// The end of a task set's share of `resourceOffers`: the delay-scheduling reset, and the
    /// set leaves the runnable ones when nothing is pending.
    fn end_offer_round(&mut self, key: TsKey, round: OfferRound, all_free: bool, now_ms: u64) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        tsm.end_offer_round(&round, all_free, now_ms, &self.locality);
        if !tsm.has_pending() {
            self.runnable.remove(&key);
        }
    }

    /// `taskSet.resourceOffer(execId, host, maxLocality)` on a set still registered: the task
    /// it gives and whether delay scheduling rejected the offer; `None` once the set is gone.
    fn offer_to_set(
        &mut self,
        key: TsKey,
        offer: &WorkerOffer,
        max_locality: TaskLocality,
        now_ms: u64,
    ) -> Option<(Option<Dequeued>, bool)> {
        let tsm = self.task_sets.get_mut(&key)?;
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms,
        };
        Some(tsm.resource_offer(offer.executor_id, &offer.host, max_locality, &cx))
    }

    /// `resourceOfferSingleTaskSet`: one pass over the offers with enough free cores, at most one
    /// task each; whether no offer was rejected by delay scheduling, and the most local level
    /// launched (`None`: nothing launched).
    fn resource_offer_single_task_set<D: DagEvents>(
        &mut self,
        key: TsKey,
        max_locality: TaskLocality,
        offers: &mut [WorkerOffer],
        r: &mut Round<'_, D>,
        order: &mut Vec<u32>,
    ) -> (bool, Option<TaskLocality>) {
        let mut no_rejects = true;
        let mut min: Option<TaskLocality> = None;
        for (i, offer) in offers.iter_mut().enumerate() {
            if offer.cores < self.task_cpus {
                continue;
            }
            let Some((task, rejected)) = self.offer_to_set(key, offer, max_locality, r.now_ms)
            else {
                break;
            };
            no_rejects &= !rejected;
            if let Some(d) = task {
                offer.cores -= self.task_cpus;
                let task = self.launch(key, d, offer, r);
                r.launched.push(task);
                order.push(i as u32);
                min = Some(min.map_or(d.locality, |m| m.min(d.locality)));
            }
        }
        (no_rejects, min)
    }

    /// `executorAdded` / `executorLost` on every task set still in the pool: their valid
    /// locality levels change with the live hosts. Out of line: rare, and off the per-task path.
    #[inline(never)]
    pub(super) fn recompute_locality_all(&mut self) {
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms: clock::now_ms(),
        };
        for tsm in self.task_sets.values_mut() {
            if !tsm.finished {
                tsm.recompute_locality(&cx);
            }
        }
    }

    fn launch<D: DagEvents>(
        &mut self,
        key: TsKey,
        dequeued: Dequeued,
        offer: &WorkerOffer,
        r: &mut Round<'_, D>,
    ) -> Box<TaskDescription> {
        let index = dequeued.index;
        let tsm = self.task_sets.get_mut(&key).expect("runnable task set");
        let copy = tsm.start_copy(index);
        self.launch_copy(key, dequeued, copy, offer, r)
    }

    /// `launch` once the task set has counted the copy (`prepareLaunchingTask`): the task id,
    /// the `Starting task` line, the running task, `taskStarted`, and the description the
    /// executor gets.
    fn launch_copy<D: DagEvents>(
        &mut self,
        key: TsKey,
        dequeued: Dequeued,
        copy: StartedCopy,
        offer: &WorkerOffer,
        r: &mut Round<'_, D>,
    ) -> Box<TaskDescription> {
        let Dequeued {
            index,
            locality,
            speculative,
        } = dequeued;
        let StartedCopy {
            attempt,
            stage_attempt,
            partition,
            map_epoch,
        } = copy;
        let task_id = TaskId(self.next_task);
        self.next_task += 1;
        self.tasks_launched += 1;
        let name = TaskName {
            index,
            attempt,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
        };
        // resourceOffers' `assignAddressesCustomResources`: the task's GPUs (the offer's cores
        // were no more than its free GPUs allow), printed after the line's usual end.
        let assignments = offer
            .resources
            .as_ref()
            .and_then(|r| r.borrow_mut().acquire(task_id))
            .map_or(String::new(), |a| format!("taskResourceAssignments {a}"));
        // `Starting {name} (TID {task_id}) ({host},executor {id}, partition {partition},
        // {locality}, {TASK_BYTES} bytes) `, in pieces (a line of every task).
        info_parts!(
            self.log,
            TSM,
            "Starting ",
            name,
            " (TID ",
            task_id,
            ") (",
            offer.host,
            ",executor ",
            offer.executor_id,
            ", partition ",
            partition,
            ", ",
            locality.as_str(),
            ", ",
            TASK_BYTES,
            " bytes) ",
            assignments
        );
        let tsm = &self.task_sets[&key];
        let code = &tsm.code;
        let task_binary = code.task_binary;
        let result_bytes = code.result_bytes.of(partition);
        let mut work = code.works[partition as usize].clone();
        let input_split = code.input_split(partition);
        let bmm = &r.env.block_manager_master;
        match &mut work {
            TaskWork::CachedRdd(read) => {
                read.location = bmm.rdd_block_location(read.rdd_id, partition);
            }
            TaskWork::Replayed {
                cache: Some(cache), ..
            } => {
                let held = cache
                    .rdd_ids
                    .iter()
                    .position(|&rdd| bmm.cache_location(rdd, partition).is_some());
                cache.missing = held.unwrap_or(cache.rdd_ids.len()) as u32;
            }
            _ => {}
        }
        let shuffle = if code.shuffle_write.is_some() || code.shuffle_read.is_some() {
            shuffle_io(tsm, r.env)
        } else {
            ShuffleIo::default()
        };
        let task = RunningTask {
            task_id,
            key,
            index,
            partition,
            attempt,
            executor_id: offer.executor_id,
            host: offer.host.clone(),
            launch_ms: r.now_ms,
            launch_epoch: clock::epoch_ms() + r.now_ms,
            map_epoch,
            launching: true,
            speculative,
            locality,
        };
        if self.speculation.is_some()
            && let Some(tsm) = self.task_sets.get_mut(&key)
        {
            tsm.speculation_on_launch(&task);
        }
        self.by_executor
            .get_or_insert_default(offer.executor_id)
            .insert(task_id);
        r.dag.task_started(&task);
        self.running.insert(task_id, task);
        // Boxed here, as the LaunchTask message carries it: the description is not copied
        // again on its way to the executor.
        Box::new(TaskDescription {
            task_id,
            attempt_number: attempt,
            executor_id: offer.executor_id,
            index,
            partition_id: partition,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
            cpus: self.task_cpus,
            work,
            shuffle,
            task_binary,
            input_split,
            epoch: map_epoch,
            result_bytes,
        })
    }

    /// `statusUpdate` and then the TaskResultGetter's work on the end (the suites' harnesses:
    /// no DriverEndpoint offers in between).
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)] // the update, then each party a real call reaches
    pub fn status_update_handled(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
        out: &mut Vec<SchedulerEvent>,
    ) -> bool {
        let known = self.status_update(tid, state, data);
        self.task_result_getter(env, dag, alloc, out);
        known
    }

    /// `statusUpdate`: returns whether the task was known and finished (its cores come back);
    /// a finished task's end waits for `task_result_getter`.
    pub fn status_update(&mut self, tid: TaskId, state: TaskState, data: TaskResultData) -> bool {
        if state == TaskState::Running {
            if let Some(t) = self.running.get_mut(tid) {
                t.launching = false;
            }
            return false;
        }
        if !state.is_finished() {
            return false;
        }
        let Some(task) = self.running.remove(tid) else {
            // logError in Spark 4.0.0's TaskSchedulerImpl.statusUpdate (read from its jar).
            error!(
                self.log,
                TS,
                "Ignoring update with state {state} for TID {tid} because its task set is gone (this is likely the result of receiving duplicate task finished status updates) or its executor has been marked as failed."
            );
            return false;
        };
        if let Some(set) = self.by_executor.get_mut(task.executor_id) {
            set.remove(&tid);
        }
        self.remove_running_task(&task, state != TaskState::Finished);
        // `taskResultGetter.enqueueSuccessfulTask` / `enqueueFailedTask`: the result is
        // handled on the TaskResultGetter's thread pool, after the DriverEndpoint has offered
        // the freed slot (`makeOffers(executorId)` right after statusUpdate returns).
        self.ended.push(QueuedEnd { task, state, data });
        true
    }

    /// The TaskResultGetter's work for the ends `status_update` queued, in arrival order:
    /// `canFetchMoreResults` and `handleSuccessfulTask` for a success, `handleFailedTask` for a
    /// failed, killed or lost end. Spark 4.0.0's TaskSchedulerImpl.statusUpdate hands both to
    /// the getter's thread pool, so the DriverEndpoint's `makeOffers(executorId)` for the freed
    /// slot comes first (its `Starting task` line before the `Finished task` / `Lost task`
    /// line): the slot goes to the next pending task and a failed index, pushed back on the
    /// pending stack after that offer, runs on the next slot to free up (or an idle one the
    /// revive finds).
    pub fn task_result_getter(
        &mut self,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
        out: &mut Vec<SchedulerEvent>,
    ) {
        let mut ends = std::mem::take(&mut self.ended);
        for QueuedEnd { task, state, data } in ends.drain(..) {
            let cx = &mut Call {
                env,
                dag,
                alloc: &mut *alloc,
                out,
            };
            if state != TaskState::Finished {
                self.handle_failed_end(task, data, cx);
            } else if self.can_fetch_more_results(&task, cx) {
                self.handle_success(task, data, cx);
            } else {
                self.result_size_exceeded(task, cx);
            }
        }
        // Keep the queue's capacity for the next end.
        self.ended = ends;
    }

    /// `handleFailedTask` with the reason `enqueueFailedTask` read: a `TaskKilled` does not
    /// count as a failure.
    fn handle_failed_end<D: DagEvents>(
        &mut self,
        task: RunningTask,
        data: TaskResultData,
        cx: &mut Call<'_, D>,
    ) {
        match FailedReason::of(data) {
            FailedReason::FetchFailed(f) => self.fetch_failed(task, *f, cx),
            FailedReason::ExceptionFailure { class, description } => {
                let end = TaskEndReason::ExceptionFailure { class, description };
                self.handle_failure(task, end, true, cx)
            }
            FailedReason::TaskKilled { reason } => {
                let end = TaskEndReason::TaskKilled { reason };
                self.handle_failure(task, end, false, cx)
            }
        }
    }

    /// `TaskSetManager.canFetchMoreResults(size)` (TaskResultGetter asks it before
    /// `handleSuccessfulTask`, `size` the serialized result's, or an IndirectTaskResult's
    /// `size`): every result counts; a result task's that takes the set past
    /// `spark.driver.maxResultSize` aborts it with Spark 4.0.0's ERROR text (read from the jar).
    fn can_fetch_more_results<D: DagEvents>(
        &mut self,
        task: &RunningTask,
        cx: &mut Call<'_, D>,
    ) -> bool {
        let max = self.max_result_size;
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return true;
        };
        let size = tsm.code.result_bytes.of(task.partition);
        tsm.total_result_size += size;
        tsm.calculated_tasks += 1;
        if tsm.code.shuffle_write.is_some() || max == 0 || tsm.total_result_size <= max {
            return true;
        }
        let message = format!(
            "Total size of serialized results of {} tasks ({}) is bigger than spark.driver.maxResultSize ({})",
            tsm.calculated_tasks,
            bytes_to_string(tsm.total_result_size),
            bytes_to_string(max)
        );
        error!(self.log, TSM, "{message}");
        // `abort(message)`: taskSetFailed, then the set is a zombie (maybeFinishTaskSet).
        self.suspend_task_set(task.key, cx.alloc);
        cx.dag
            .task_set_failed(task.key.1, &message, self, cx.env, cx.out);
        false
    }

    /// TaskResultGetter after a refused result: `handleFailedTask(tid, KILLED,
    /// TaskKilled("Tasks result size has exceeded maxResultSize"))`. Its closing
    /// `maybeFinishTaskSet` calls `taskSetFinished` again on a set the abort already removed,
    /// so Spark logs `Removed TaskSet` twice (both calls read from the 4.0.0 jar).
    #[cold]
    #[inline(never)]
    fn result_size_exceeded<D: DagEvents>(&mut self, task: RunningTask, cx: &mut Call<'_, D>) {
        let key = task.key;
        let removed = self.task_sets.get(&key).is_some_and(|t| t.finished);
        let reason = RESULT_SIZE_EXCEEDED.to_string();
        let end = TaskEndReason::TaskKilled { reason };
        self.handle_failure(task, end, false, cx);
        if removed && self.task_sets.contains_key(&key) {
            self.log_task_set_removed(key);
        }
    }

    /// `TaskSetManager.removeRunningTask` for an attempt that ended (`failed`: without success,
    /// which speculation's bookkeeping hears of).
    fn remove_running_task(&mut self, task: &RunningTask, failed: bool) {
        if let Some(tsm) = self.task_sets.get_mut(&task.key) {
            tsm.remove_running_task();
            if failed && self.speculation.is_some() {
                tsm.speculation_task_failed(task);
            }
        }
    }

    /// `TaskSetManager.maybeFinishTaskSet` -> `TaskSchedulerImpl.taskSetFinished`: a zombie set
    /// with no running task leaves its pool. Spark 4.0.0's text (TaskSchedulerImpl.scala,
    /// taskSetFinished): `Removed TaskSet 0.0 whose tasks have all completed, from pool ` (no
    /// comma after the id; the root pool's name is empty).
    fn maybe_finish_task_set(&mut self, key: TsKey, alloc: &mut dyn AllocationClient) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        if !tsm.zombie || tsm.running > 0 || tsm.finished {
            return;
        }
        tsm.finished = true;
        let succeeded = tsm.num_successful as usize == tsm.successful.len();
        if let Some(p) = self.pools.as_mut() {
            p.remove_task_set(key);
        }
        self.log_task_set_removed(key);
        if succeeded && self.health().is_some() {
            self.hand_over_failures(key, alloc);
        }
    }

    /// `taskSetFinished`'s line: the root pool's name is empty (FIFO), else the set's pool's
    /// (the set's key: a stage resubmitted by a later job keeps each attempt's own pool).
    fn log_task_set_removed(&self, key: TsKey) {
        let (_, stage, stage_attempt) = key;
        let pool = self.pools.as_ref().map_or("", |p| p.pool_of(key));
        info!(
            self.log,
            TS,
            "Removed TaskSet {stage}.{stage_attempt} whose tasks have all completed, from pool {pool}"
        );
    }

    /// A set that has nothing left to offer: suspended, out of the runnable ones, and out of
    /// the pool once nothing runs.
    fn suspend_task_set(&mut self, key: TsKey, alloc: &mut dyn AllocationClient) {
        if let Some(tsm) = self.task_sets.get_mut(&key) {
            tsm.suspend();
        }
        self.runnable.remove(&key);
        self.maybe_finish_task_set(key, alloc);
    }

    /// `TaskSchedulerImpl.killAllTaskAttempts` (Spark 4.0): `Canceling stage N`, `Killing all
    /// running tasks in stage N: <reason>`, a KillTask for each running attempt of each set of
    /// the stage still registered, with the reason `Stage cancelled: <reason>` (the 4.0.0 jar's
    /// `$anonfun$killAllTaskAttempts$6` concatenates it before `backend.killTask`; a real
    /// local-cluster run's executor logged `Executor is trying to kill task 1.0 in stage 0.0
    /// (TID 1), interruptThread: false, reason: Stage cancelled: Job aborted due to stage
    /// failure: ...`); the set is suspended (zombie) and logs `Stage N.A was cancelled`. A set
    /// leaves its pool only when its last attempt ends.
    pub fn kill_all_task_attempts(
        &mut self,
        stage: u32,
        reason: &str,
        out: &mut Vec<SchedulerEvent>,
    ) {
        info!(self.log, TS, "Canceling stage {stage}");
        info!(
            self.log,
            TS, "Killing all running tasks in stage {stage}: {reason}"
        );
        let Some(&job) = self.stage_jobs.get(&stage) else {
            return;
        };
        let keys: Vec<TsKey> = self
            .task_sets
            .range((job, stage, 0)..=(job, stage, u32::MAX))
            .filter(|(_, t)| !t.finished)
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            self.kill_task_set(key, reason, out);
        }
    }

    /// One attempt's share of `killAllTaskAttempts`.
    fn kill_task_set(&mut self, key: TsKey, reason: &str, out: &mut Vec<SchedulerEvent>) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        let stage_attempt = tsm.stage_attempt;
        if tsm.running > 0 {
            // Rare (an abort with attempts still out): the running table's window, in task id
            // order, for this set's attempts.
            for t in self.running.values() {
                if t.key == key {
                    out.push(SchedulerEvent::KillTask {
                        task_id: t.task_id,
                        executor_id: t.executor_id,
                        interrupt_thread: false,
                        reason: format!("Stage cancelled: {reason}"),
                    });
                }
            }
        }
        // `tsm.suspend()`: zombie, and finished at once if nothing runs (the DAGScheduler's
        // call: what the HealthTracker would ask waits for the DriverEndpoint).
        self.suspend_task_set(key, &mut DeferredAllocations(out));
        info!(
            self.log,
            TS, "Stage {}.{stage_attempt} was cancelled", key.1
        );
    }

    /// `TaskSchedulerImpl.notifyPartitionCompletion` -> `TaskSetManager.markPartitionCompleted`:
    /// a partition an earlier attempt finished is done in the stage's latest attempt too.
    /// Spark 4.0.0 runs it on the TaskResultGetter's pool
    /// (`enqueuePartitionCompletionNotification`), after the DAGScheduler's call: what a
    /// finished set's HealthTracker asks goes to `out`.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub fn notify_partition_completion(
        &mut self,
        stage: u32,
        stage_attempt: u32,
        partition: u32,
        out: &mut Vec<SchedulerEvent>,
    ) {
        let Some(&job) = self.stage_jobs.get(&stage) else {
            return;
        };
        let key = (job, stage, stage_attempt);
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        let Some(i) = tsm.index_of(partition) else {
            return;
        };
        if tsm.successful[i] {
            return;
        }
        if tsm.mark_successful(i) {
            self.suspend_task_set(key, &mut DeferredAllocations(out));
        }
    }

    /// `TaskSchedulerImpl.executorDecommission(executorId, decommissionInfo)` (Spark 4.0.0):
    /// a known executor's `ExecutorDecommissionState(clock.getTimeMillis(), workerHost)` is
    /// noted (a fetch failure from it reads the worker host, speculation the start time), and
    /// `rootPool.executorDecommission` has every task set recompute its locality levels: the
    /// executor, and its host when it goes too, are no locality target any more. Without
    /// `spark.scheduler.maxRetainedRemovedDecommissionExecutors` (0 by default) the state goes
    /// with the executor. The DriverEndpoint then revives offers (`backend.reviveOffers()`).
    pub fn executor_decommission(&mut self, eid: ExecutorId, worker_host: Option<&str>) {
        let state = ExecutorDecommissionState {
            start_ms: clock::now_ms(),
            worker_host: worker_host.map(str::to_string),
        };
        self.topology.executor_decommission(eid, state);
        self.recompute_locality_all();
    }

    /// `getExecutorDecommissionState(execId).exists(_.workerHost.isDefined)`: the executor is
    /// being decommissioned with its host.
    pub fn is_host_decommissioned(&self, eid: ExecutorId) -> bool {
        self.topology
            .decommission_state(eid)
            .is_some_and(|d| d.worker_host.is_some())
    }

    /// `getExecutorDecommissionState(execId).nonEmpty` (DAGScheduler's
    /// `isExecutorDecommissioningOrDecommissioned`): the executor is being decommissioned.
    pub fn is_executor_decommissioning(&self, eid: ExecutorId) -> bool {
        self.topology.decommission_state(eid).is_some()
    }

    /// `TaskSchedulerImpl.executorLost` -> `removeExecutor` and every `TaskSetManager.executorLost`:
    /// finished map outputs the executor served are re-run (`Resubmitted`, first), then its
    /// running tasks fail with ExecutorLostFailure; then `dagScheduler.executorLost`.
    pub fn executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
        out: &mut Vec<SchedulerEvent>,
    ) {
        // removeExecutor: the host (and its rack) may go with it; every set's levels follow.
        // (its decommission state goes with it).
        if self.topology.executor_removed(eid) {
            self.recompute_locality_all();
        }
        let mut cx = Call {
            env,
            dag,
            alloc,
            out,
        };
        self.resubmit_lost_outputs(eid, reason, &mut cx);
        for task in self.attempts_running_on(eid) {
            let by_app = reason.exit_caused_by_app() && !task.launching;
            let end = TaskEndReason::ExecutorLostFailure {
                executor_id: eid.to_string(),
                exit_caused_by_app: by_app,
                loss_reason: reason.to_string(),
            };
            self.handle_failure(task, end, by_app, &mut cx);
        }
        // removeExecutor's last step: `healthTrackerOpt.foreach(_.handleRemovedExecutor(id))`.
        if let Some(h) = self.exclusion.as_mut().and_then(|x| x.health.as_mut()) {
            h.handle_removed_executor(eid);
        }
        cx.dag.executor_lost(eid, reason);
    }

    /// The attempts whose TaskInfo is still running on a lost executor (TaskSetManager.executorLost's
    /// `info.running && info.executorId == execId`), in task id order, each counted out of its
    /// set: those running, and those whose end the TaskResultGetter has not handled yet. Those
    /// ends leave the queue: Spark 4.0.0's executorLost fails the attempt, and then
    /// handleSuccessfulTask / handleFailedTask return at once for its finished TaskInfo
    /// (SPARK-37300).
    fn attempts_running_on(&mut self, eid: ExecutorId) -> Vec<RunningTask> {
        let tids = self.by_executor.remove(eid).map(SmallSet::into_sorted);
        let mut tasks = Vec::new();
        for tid in tids.unwrap_or_default() {
            if let Some(task) = self.running.remove(tid) {
                self.remove_running_task(&task, true);
                tasks.push(task);
            }
        }
        if self.ended.iter().any(|e| e.task.executor_id == eid) {
            self.fail_unhandled_ends_on(eid, &mut tasks);
        }
        tasks
    }

    /// `attempts_running_on`'s share of the ends still queued (rare: the getter runs right after
    /// the offer that follows each status update). A success was counted out of its set as a
    /// success; it is a failure now.
    #[cold]
    #[inline(never)]
    fn fail_unhandled_ends_on(&mut self, eid: ExecutorId, tasks: &mut Vec<RunningTask>) {
        let (on, rest) = std::mem::take(&mut self.ended)
            .into_iter()
            .partition(|e: &QueuedEnd| e.task.executor_id == eid);
        self.ended = rest;
        for QueuedEnd { task, state, .. } in on {
            if state == TaskState::Finished
                && self.speculation.is_some()
                && let Some(tsm) = self.task_sets.get_mut(&task.key)
            {
                tsm.speculation_task_failed(&task);
            }
            tasks.push(task);
        }
        tasks.sort_by_key(|t| t.task_id);
    }

    /// `TaskSetManager.handleSuccessfulTask`, then `taskEnded` for the DAGScheduler
    /// (`handleTaskCompletion`: a result for the job, or a MapStatus for the MapOutputTracker).
    fn handle_success<D: DagEvents>(
        &mut self,
        task: RunningTask,
        data: TaskResultData,
        cx: &mut Call<'_, D>,
    ) {
        if self.speculation.is_some()
            && let Some(reason) = self.speculation_late_success(&task)
        {
            let end = TaskEndReason::TaskKilled { reason };
            return self.handle_failure(task, end, false, cx);
        }
        if self.speculation.is_some() {
            self.speculation_task_succeeded(&task, cx.out);
        }
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return cx.task_ended(self, &task, TaskEndReason::Success, None);
        };
        let idx = task.index as usize;
        if tsm.successful[idx] {
            // Spark 4.0.0's text (TaskSetManager.handleSuccessfulTask, read from its jar).
            let name = task.name();
            let tid = task.task_id;
            info!(
                self.log,
                TSM,
                "Ignoring task-finished event for {name} (TID {tid}) because it has already completed successfully"
            );
            // Its TaskInfo is a finished one on its executor all the same (executorLost
            // skips it only when it is in killedByOtherAttempt).
            if tsm.code.shuffle_write.is_some() && !self.external_shuffle_service {
                self.note_finished_map_attempt(&task, false, false);
            }
            return cx.task_ended(self, &task, TaskEndReason::Success, None);
        }
        let done = tsm.mark_successful(idx);
        // handleSuccessfulTask: `numFailures(index) = 0` (the 4.0.0 jar), so an index that
        // failed before succeeding starts again from 0 if a lost executor resubmits it.
        tsm.failures[idx] = 0;
        let (successful, total) = (tsm.num_successful, tsm.successful.len());
        let stage_attempt = tsm.stage_attempt;
        if done {
            tsm.zombie = true;
        }
        if tsm.code.shuffle_write.is_some() && !self.external_shuffle_service {
            self.note_finished_map_attempt(&task, false, false);
        }
        // `Finished task {}.{} in stage {}.{stage_attempt} (TID {}) in {} ms on {} (executor {})
        // ({successful}/{total})`, in pieces (a line of every task).
        info_parts!(
            self.log,
            TSM,
            "Finished task ",
            task.index,
            ".",
            task.attempt,
            " in stage ",
            task.key.1,
            ".",
            stage_attempt,
            " (TID ",
            task.task_id,
            ") in ",
            clock::now_ms() - task.launch_ms,
            " ms on ",
            task.host,
            " (executor ",
            task.executor_id,
            ") (",
            successful,
            "/",
            total,
            ")"
        );
        if done {
            self.maybe_finish_task_set(task.key, cx.alloc);
        }
        cx.task_ended(self, &task, TaskEndReason::Success, Some(data));
    }

    /// `TaskSetManager.handleFailedTask` for `FetchFailed`: WARN `Lost task ...: FetchFailed(...)`,
    /// the partition counts as done and the set becomes a zombie (its stage attempt has
    /// failed), the failure does not count toward `spark.task.maxFailures`; then `taskEnded`
    /// (the DAGScheduler's fetch-failure handling).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    fn fetch_failed<D: DagEvents>(
        &mut self,
        task: RunningTask,
        failure: FetchFailure,
        cx: &mut Call<'_, D>,
    ) {
        if let Some(tsm) = self.task_sets.get_mut(&task.key) {
            tsm.copy_ended(task.index);
            let name = task.name();
            warn!(
                self.log,
                TSM,
                "Lost {name} (TID {}) ({} executor {}): {}",
                task.task_id,
                task.host,
                task.executor_id,
                failure.to_error_string()
            );
            tsm.mark_successful(task.index as usize);
            self.suspend_task_set(task.key, cx.alloc);
            if self.health().is_some()
                && let Some(bm) = &failure.bm_address
            {
                self.exclude_for_fetch_failure(&bm.host, bm.executor_id, cx.alloc);
            }
        }
        let reason = TaskEndReason::FetchFailed(Box::new(failure));
        cx.task_ended(self, &task, reason, None);
    }

    /// A failed attempt: retry, or abort the job after `spark.task.maxFailures`.
    /// `TaskSetManager.handleFailedTask` (Spark 4.0): the `Lost task` line is WARN, except an
    /// executor loss not caused by the app (INFO, not counted) and a repeat of an exception
    /// within `spark.logging.exceptionPrintInterval` (INFO, `[duplicate N]`); `taskEnded`, then
    /// `taskSetFailed` when the set aborts.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    fn handle_failure<D: DagEvents>(
        &mut self,
        task: RunningTask,
        end: TaskEndReason,
        counts: bool,
        cx: &mut Call<'_, D>,
    ) {
        let (key, index, tid) = (task.key, task.index, task.task_id);
        let name = task.name();
        let lost = format!(
            "Lost {name} (TID {tid}) ({} executor {}): {}",
            task.host,
            task.executor_id,
            end.to_error_string()
        );
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return cx.task_ended(self, &task, end, None);
        };
        tsm.copy_ended(index);
        if let TaskEndReason::ExceptionFailure { class, description } = &end
            && (class == NOT_SERIALIZABLE || class == OUTPUT_FILE_EXISTS)
        {
            let message = not_retried_message(&task, tsm.stage_attempt, class, description);
            return self.abort_not_retried(task, message, end, cx);
        }
        match &end {
            TaskEndReason::ExecutorLostFailure {
                exit_caused_by_app: false,
                ..
            } => info!(
                self.log,
                TSM,
                "{name} (TID {tid}) failed because while it was being computed, its executor exited for a reason unrelated to the task. Not counting this failure towards the maximum number of failures for the task."
            ),
            TaskEndReason::ExceptionFailure { class, description } => {
                match tsm.duplicate_exception(description, clock::now_ms()) {
                    Some(n) => info!(
                        self.log,
                        TSM,
                        "Lost {name} (TID {tid}) on {}, executor {}: {class} ({description}) [duplicate {n}]",
                        task.host,
                        task.executor_id
                    ),
                    None => warn!(self.log, TSM, "{lost}"),
                }
            }
            _ => warn!(self.log, TSM, "{lost}"),
        }
        // A failed or killed attempt of a map task stays in `taskInfos`: executorLost resubmits
        // its index if that index succeeds elsewhere and this executor goes. Not an attempt
        // lost with its executor: that executor is gone (ids are not reused), its list too.
        if tsm.code.shuffle_write.is_some()
            && !self.external_shuffle_service
            && !matches!(end, TaskEndReason::ExecutorLostFailure { .. })
        {
            let killed = matches!(end, TaskEndReason::TaskKilled { .. });
            self.note_finished_map_attempt(&task, !killed, killed);
        }
        // handleFailedTask (Spark 4.0.0's jar): a barrier task's failure makes its set a zombie
        // before the DAGScheduler hears of it (which fails the whole stage attempt), so the
        // failure counts neither toward spark.task.maxFailures nor toward exclusion.
        let barrier = self.task_sets.get(&key).is_some_and(|t| t.code.barrier);
        if barrier {
            self.suspend_barrier_set(key);
        }
        cx.task_ended(self, &task, end, None);
        if counts && !barrier && self.exclusion.is_some() {
            self.exclude_for_failed_task(&task, &lost);
        }
        let tsm = self.task_sets.get_mut(&key).expect("looked up above");
        let idx = index as usize;
        let stage_attempt = tsm.stage_attempt;
        if tsm.successful[idx] || tsm.zombie {
            if tsm.successful[idx] {
                // handleFailedTask (Spark 4.0.0's text, read from its jar): a copy already
                // succeeded (or a fetch failure marked the partition done).
                info!(
                    self.log,
                    TSM,
                    "{name} (TID {tid}) failed, but the task will not be re-executed (either because the task failed with a shuffle data fetch failure, so the previous stage needs to be re-run, or because a different copy of the task has already succeeded)."
                );
            }
            return self.maybe_finish_task_set(key, cx.alloc);
        }
        if counts {
            tsm.failures[idx] += 1;
        }
        if tsm.failures[idx] >= self.max_failures {
            let n = tsm.failures[idx];
            error!(
                self.log,
                TSM,
                "Task {index} in stage {}.{stage_attempt} failed {n} times; aborting job",
                key.1
            );
            let reason = format!(
                "Task {index} in stage {}.{stage_attempt} failed {n} times, most recent failure: {lost}\nDriver stacktrace:",
                key.1
            );
            self.suspend_task_set(key, cx.alloc);
            return cx.dag.task_set_failed(key.1, &reason, self, cx.env, cx.out);
        }
        // TaskSetManager.addPendingTask: the pending lists are stacks (dequeueTaskFromList
        // takes from the end), so a failed index runs next.
        tsm.add_pending_task(index, &self.topology);
        self.runnable.insert(key);
        cx.out.push(SchedulerEvent::Revive);
    }

    /// `isZombie = true` on a barrier set whose task failed (its running attempts still end).
    #[cold]
    #[inline(never)]
    fn suspend_barrier_set(&mut self, key: TsKey) {
        if let Some(tsm) = self.task_sets.get_mut(&key) {
            tsm.suspend();
        }
        self.runnable.remove(&key);
    }

    /// `handleFailedTask` for an ExceptionFailure Spark does not retry (Spark 4.0.0's jar: the
    /// className checks for `NotSerializableException` and `TaskOutputFileAlreadyExistException`
    /// and their texts): no `Lost task` line, no retry and no exclusion; ERROR `<message>; not
    /// retrying`, `taskEnded`, then `abort(<message>)` (the set is a zombie and the DAGScheduler
    /// fails the stage's job).
    #[cold]
    #[inline(never)]
    fn abort_not_retried<D: DagEvents>(
        &mut self,
        task: RunningTask,
        message: String,
        end: TaskEndReason,
        cx: &mut Call<'_, D>,
    ) {
        let key = task.key;
        error!(self.log, TSM, "{message}; not retrying");
        cx.task_ended(self, &task, end, None);
        self.suspend_task_set(key, cx.alloc);
        cx.dag
            .task_set_failed(key.1, &message, self, cx.env, cx.out);
    }

    /// Whether a map output of a lost executor lives on another host now (migrated by
    /// decommissioning): `getMapOutputLocation(shuffleId, mapId)`, map id = the task id.
    fn output_migrated_off(&self, out: &MapOutput, host: Option<&str>, env: &DriverEnv) -> bool {
        let Some(shuffle_id) = self
            .task_sets
            .get(&out.key)
            .and_then(|t| t.code.shuffle_write)
            .map(|w| w.shuffle_id)
        else {
            return false;
        };
        env.map_output_tracker
            .map_output_location(shuffle_id, out.task_id.0)
            .is_some_and(|l| Some(l.host.as_str()) != host)
    }

    /// Keeps a finished map attempt's TaskInfo under its executor for `executorLost`.
    fn note_finished_map_attempt(&mut self, task: &RunningTask, failed: bool, killed: bool) {
        self.outputs_by_executor
            .entry(task.executor_id)
            .or_default()
            .push(MapOutput {
                key: task.key,
                index: task.index,
                attempt: task.attempt,
                task_id: task.task_id,
                launch_epoch: task.launch_epoch,
                locality: task.locality,
                speculative: task.speculative,
                ended: AttemptEnd {
                    finish_epoch: clock::now_epoch_ms(),
                    failed,
                    killed,
                },
            });
    }

    /// The order `Pool.executorLost` meets a lost executor's finished attempts: the pool's sets
    /// in queue (submission) order, and in each, its `taskInfos` (a Scala 2.13
    /// `mutable.HashMap[Long, TaskInfo]` holding every attempt the set launched) in the map's
    /// iteration order of task ids.
    #[cold]
    #[inline(never)]
    fn in_task_infos_order(&self, outs: Vec<MapOutput>) -> Vec<MapOutput> {
        let mut by_set: BTreeMap<(u64, TsKey), Vec<(i32, MapOutput)>> = BTreeMap::new();
        for out in outs {
            let seq = self
                .task_sets
                .get(&out.key)
                .map_or(u64::MAX, |t| t.pool_seq);
            let hash = scala_long_hash(out.task_id.0 as i64);
            by_set.entry((seq, out.key)).or_default().push((hash, out));
        }
        by_set
            .into_iter()
            .flat_map(|((_, key), outs)| {
                let infos = self
                    .task_sets
                    .get(&key)
                    .map_or(0, |t| t.launches.iter().sum::<u32>() as usize);
                scala_hash_order(outs, infos)
            })
            .collect()
    }

    /// `TaskSetManager.executorLost`, first part (Spark 4.0.0's jar, `$anonfun$executorLost$3`):
    /// without the external shuffle service, every finished attempt of a running (non-zombie)
    /// map set that ran on the executor whose index is `successful`, unless the attempt was
    /// killed by another attempt, makes its index pending again (`successful(index) = false`,
    /// `copiesRunning(index) -= 1`, `tasksSuccessful -= 1`, `addPendingTask`), reported as
    /// `Resubmitted` to the DAGScheduler. The jar does not ask where the index's output is
    /// (only a decommission asks whether it migrated), so an index whose earlier *failed*
    /// attempt ran there is re-run although its successful attempt ran elsewhere. The order is
    /// Spark's (`in_task_infos_order`).
    fn resubmit_lost_outputs<D: DagEvents>(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
        cx: &mut Call<'_, D>,
    ) {
        let decommission = matches!(reason, ExecutorLossReason::Decommission { .. });
        if self.external_shuffle_service && !decommission {
            return;
        }
        let host = cx.env.block_manager_master.host_of(eid).cloned();
        let outs = self.outputs_by_executor.remove(&eid).unwrap_or_default();
        for out in self.in_task_infos_order(outs) {
            // TaskSetManager.executorLost: a decommissioned executor's output that migrated
            // to another host stays available (`locationOpt.exists(_.host != host)`).
            if decommission && self.output_migrated_off(&out, host.as_deref(), cx.env) {
                continue;
            }
            let Some(tsm) = self.task_sets.get_mut(&out.key) else {
                continue;
            };
            let idx = out.index as usize;
            let by_other = tsm
                .spec
                .as_ref()
                .is_some_and(|s| s.killed_by_other_attempt(out.task_id));
            if tsm.zombie || !tsm.successful[idx] || by_other {
                continue;
            }
            // TaskSetManager.executorLost: `successful(index) = false; copiesRunning(index) -= 1`
            // (the success kept its copy).
            tsm.successful[idx] = false;
            tsm.copy_ended(out.index);
            tsm.num_successful -= 1;
            tsm.add_pending_task(out.index, &self.topology);
            let partition = tsm.partitions[idx];
            self.runnable.insert(out.key);
            let task = RunningTask {
                task_id: out.task_id,
                key: out.key,
                index: out.index,
                partition,
                attempt: out.attempt,
                executor_id: eid,
                host: host.clone().unwrap_or_else(|| Rc::from("")),
                launch_ms: 0,
                launch_epoch: out.launch_epoch,
                map_epoch: 0,
                launching: false,
                speculative: out.speculative,
                locality: out.locality,
            };
            cx.resubmitted(self, &task, out.ended);
            cx.out.push(SchedulerEvent::Revive);
        }
    }
}

/// What one `resourceOffers` round is given and fills.
struct Round<'a, D> {
    all_free: bool,
    now_ms: u64,
    launched: &'a mut LaunchedTasks,
    env: &'a mut DriverEnv,
    dag: &'a mut D,
    alloc: &'a mut dyn AllocationClient,
}

/// What a status update or an executor loss is given: SparkEnv, the DAGScheduler's events, and
/// what the DriverEndpoint must do after.
/// What TaskSetManager.handleFailedTask logs and aborts with for a failure it does not retry:
/// `s"$task had a not serializable result: ${ef.description}"` (`taskName`: `task 0.0 in stage
/// 0.0 (TID 0)`), or `"Task %s in stage %s (TID %d) can not write to output file: %s"`.
fn not_retried_message(
    task: &RunningTask,
    stage_attempt: u32,
    class: &str,
    description: &str,
) -> String {
    let (index, attempt, stage, tid) = (task.index, task.attempt, task.key.1, task.task_id);
    if class == NOT_SERIALIZABLE {
        format!(
            "task {index}.{attempt} in stage {stage}.{stage_attempt} (TID {tid}) had a not serializable result: {description}"
        )
    } else {
        format!(
            "Task {index}.{attempt} in stage {stage}.{stage_attempt} (TID {tid}) can not write to output file: {description}"
        )
    }
}

/// A task end `statusUpdate` handed to the TaskResultGetter (`enqueueSuccessfulTask`,
/// `enqueueFailedTask`).
/// A barrier task taken in a round and held until the round knows whether all launch
/// (`BarrierPendingLaunchTask`): the offer it took cores from, and the task.
struct HeldTask {
    offer: usize,
    task: Dequeued,
}

struct QueuedEnd {
    task: RunningTask,
    state: TaskState,
    data: TaskResultData,
}

struct Call<'a, D> {
    env: &'a mut DriverEnv,
    dag: &'a mut D,
    /// The HealthTracker's `allocationClient`.
    alloc: &'a mut dyn AllocationClient,
    out: &'a mut Vec<SchedulerEvent>,
}

impl<D: DagEvents> Call<'_, D> {
    /// `dagScheduler.taskEnded(...)` of an attempt that ends now: where every end passes, so
    /// its one record is made here (the DAGScheduler's TaskEnd reads it, the DriverEndpoint
    /// takes it for the other outputs).
    fn task_ended(
        &mut self,
        ts: &mut TaskSchedulerImpl,
        task: &RunningTask,
        reason: TaskEndReason,
        result: Option<TaskResultData>,
    ) {
        let end = Ending::record(task, &reason);
        ts.task_ends.push(end);
        let event = CompletionEvent {
            task,
            reason,
            result,
            ending: Ending::Now(end),
        };
        self.dag.task_ended(event, ts, self.env, self.out);
    }

    /// `taskEnded(tid, task, Resubmitted, ...)` with the attempt's TaskInfo as it ended.
    fn resubmitted(&mut self, ts: &mut TaskSchedulerImpl, task: &RunningTask, ended: AttemptEnd) {
        let event = CompletionEvent {
            task,
            reason: TaskEndReason::Resubmitted,
            result: None,
            ending: Ending::Before(ended),
        };
        self.dag.task_ended(event, ts, self.env, self.out);
    }
}

/// A task's shuffle side: the output a ShuffleMapTask writes, and the map outputs a task of a
/// stage reading a shuffle fetches (the tracker's current plan, as the executor's
/// MapOutputTrackerWorker would get it). Out of line: a stage without a shuffle does not need it.
#[inline(never)]
fn shuffle_io(tsm: &TaskSetManager, env: &mut DriverEnv) -> ShuffleIo {
    ShuffleIo {
        write: tsm.code.shuffle_write,
        read: tsm
            .code
            .shuffle_read
            .and_then(|sid| env.map_output_tracker.read_plan(sid)),
    }
}

/// The cores `exclude_offers` took from excluded offers for a round, given back.
fn restore_offers(offers: &mut [WorkerOffer], excluded: Vec<(ExecutorId, u32)>) {
    // By executor: `shuffleOffers` reordered the offers since they were taken out.
    for (id, cores) in excluded {
        if let Some(o) = offers.iter_mut().find(|o| o.executor_id == id) {
            o.cores = cores;
        }
    }
}

/// The HealthTracker's clock: the wall time events carry (`clock.getTimeMillis()`).
fn exclusion_now() -> u64 {
    clock::epoch_ms() + clock::now_ms()
}

/// A HealthTracker line at its level.
fn log_at(log: &ProcessLog, level: HealthLogLevel, line: &str) {
    match level {
        HealthLogLevel::Info => info!(log, HT, "{line}"),
        HealthLogLevel::Warn => warn!(log, HT, "{line}"),
        HealthLogLevel::Error => error!(log, HT, "{line}"),
    }
}

/// `launchTasks(tasks.flatten)`: the tasks launched from `first` on, grouped by the offer they
/// went to (stable, in the shuffled offers' order); `order[k]` is the offer of task `first + k`.
/// Out of line: only a round over several offers needs it.
#[inline(never)]
fn group_by_offer(launched: &mut LaunchedTasks, first: usize, order: &[u32]) {
    let mut by_offer: Vec<(u32, Box<TaskDescription>)> =
        order.iter().copied().zip(launched.drain(first..)).collect();
    by_offer.sort_by_key(|(i, _)| *i);
    launched.extend(by_offer.into_iter().map(|(_, t)| t));
}

/// Speculation's hooks in the task set's life (Spark 4.0: TaskSetManager's
/// handleSuccessfulTask, `killedByOtherAttempt`, checkSpeculatableTasks, and
/// TaskSchedulerImpl's speculation thread).
impl TaskSchedulerImpl {
    /// `handleSuccessfulTask`'s first check (see `TaskSetSpeculation::late_success`).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    fn speculation_late_success(&mut self, task: &RunningTask) -> Option<String> {
        let tsm = self.task_sets.get_mut(&task.key)?;
        let successful = tsm.successful[task.index as usize];
        tsm.spec.as_mut()?.late_success(task, successful)
    }

    /// `handleSuccessfulTask`: every other running attempt of the task is killed (`Killing
    /// attempt A for task N.A in stage S.A (TID T) on HOST as the attempt B succeeded on HOST`,
    /// Spark 4.0's text from its jar).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    fn speculation_task_succeeded(&mut self, task: &RunningTask, out: &mut Vec<SchedulerEvent>) {
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return;
        };
        let stage_attempt = tsm.stage_attempt;
        let Some(spec) = tsm.spec.as_mut() else {
            return;
        };
        let duration = clock::now_ms().saturating_sub(task.launch_ms);
        for a in spec.task_succeeded(task, duration) {
            info!(
                self.log,
                TSM,
                "Killing attempt {} for task {}.{} in stage {}.{stage_attempt} (TID {}) on {} as the attempt {} succeeded on {}",
                a.attempt,
                task.index,
                a.attempt,
                task.key.1,
                a.task_id,
                a.host,
                task.attempt,
                task.host
            );
            out.push(SchedulerEvent::KillTask {
                task_id: a.task_id,
                executor_id: a.executor_id,
                interrupt_thread: true,
                reason: ANOTHER_ATTEMPT_SUCCEEDED.to_string(),
            });
        }
    }

    /// `TaskSchedulerImpl.checkSpeculatableTasks` (every `spark.speculation.interval`):
    /// `rootPool.checkSpeculatableTasks(MIN_TIME_TO_SPECULATION)` over the running task sets;
    /// true when a task was marked (the backend then revives offers).
    pub fn check_speculatable_tasks(&mut self, dag: &mut impl DagEvents) -> bool {
        let Some(spec) = self.speculation.as_ref() else {
            return false;
        };
        let keys: Vec<TsKey> = spec.active.iter().copied().collect();
        let mut found = false;
        for key in keys {
            found |= self.check_task_set(key, dag);
        }
        found
    }

    /// `TaskSetManager.checkSpeculatableTasks` for one set: each task marked is logged and
    /// reported (`speculativeTaskSubmitted`), and the set has copies to offer again.
    fn check_task_set(&mut self, key: TsKey, dag: &mut impl DagEvents) -> bool {
        let spec = self.speculation.as_mut().expect("checked");
        let settings = spec.settings;
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return false;
        };
        // checkSpeculatableTasks (Spark 4.0.0's jar): `isZombie || isBarrier` returns at once;
        // a barrier set's tasks are never copied.
        if tsm.zombie || tsm.code.barrier {
            spec.active.remove(&key);
            return false;
        }
        let (threshold, marked) =
            tsm.check_speculatable_tasks(clock::now_ms(), &settings, &self.topology);
        let stage_attempt = tsm.stage_attempt;
        for (index, host, count) in &marked {
            // Spark 4.0's text (the MDC pieces join without a space before "speculatable").
            info!(
                self.log,
                TSM,
                "Marking task {index} in stage {}.{stage_attempt} (on {host}) as speculatable because it ran more than {} ms({count}speculatable tasks in this taskset now)",
                key.1,
                double_to_string(threshold)
            );
            dag.speculative_task_submitted(SpeculativeTask {
                stage_id: key.1,
                stage_attempt,
                index: *index,
                partition: tsm.partitions[*index as usize],
            });
        }
        if marked.is_empty() {
            return false;
        }
        // The set has copies to offer again, even once its regular tasks are all out.
        self.runnable.insert(key);
        true
    }
}

/// Exclusion on failure's hooks (Spark 4.0: TaskSchedulerImpl's `healthTrackerOpt` and its
/// unschedulable task sets; TaskSetManager's reports to its list and to the HealthTracker).
impl TaskSchedulerImpl {
    /// `healthTrackerOpt.foreach(_.applyExcludeOnFailureTimeout())`: exclusions expire, which
    /// asks the backend nothing (no kill step).
    fn apply_exclude_on_failure_timeout(&mut self) {
        let now = exclusion_now();
        let Some(h) = self.exclusion.as_mut().and_then(|x| x.health.as_mut()) else {
            return;
        };
        let update = h.apply_exclude_on_failure_timeout(now);
        let mut none = Vec::new();
        self.emit_health(update, &mut DeferredAllocations(&mut none));
        self.deferred.append(&mut none);
    }

    /// The `exclude-node` fault: the HealthTracker excludes `host` for the application (its
    /// offers are dropped from the next round, its events posted, its executors killed with
    /// `killExcludedExecutors`, the node in the next `RequestExecutors`). Nothing without a
    /// HealthTracker, as in Spark.
    pub fn exclude_node_by_fault(&mut self, host: &str, alloc: &mut dyn AllocationClient) {
        let now = exclusion_now();
        let Some(h) = self.exclusion.as_mut().and_then(|x| x.health.as_mut()) else {
            return;
        };
        let update = h.exclude_node_by_fault(host, now);
        self.emit_health(update, alloc);
    }

    /// `resourceOffers`' `filteredOffers`: after the timeouts, the offers of excluded nodes and
    /// executors take nothing this round (their cores, returned for `restore_offers`).
    #[inline]
    fn exclude_offers(&mut self, offers: &mut [WorkerOffer]) -> Vec<(ExecutorId, u32)> {
        // Every round of offers comes here: without exclusion, one test and an empty Vec.
        if self.exclusion.is_none() {
            return Vec::new();
        }
        self.exclude_excluded_offers(offers)
    }

    #[inline(never)]
    fn exclude_excluded_offers(&mut self, offers: &mut [WorkerOffer]) -> Vec<(ExecutorId, u32)> {
        if self.health().is_none() {
            return Vec::new();
        }
        self.apply_exclude_on_failure_timeout();
        let Some(h) = self.health() else {
            return Vec::new();
        };
        let mut taken = Vec::new();
        for o in offers.iter_mut() {
            if h.is_node_excluded(&o.host) || h.is_executor_excluded(o.executor_id) {
                taken.push((o.executor_id, o.cores));
                o.cores = 0;
            }
        }
        taken
    }

    /// A HealthTracker call's steps, in its order: each line, its events on the bus, and its
    /// calls on `allocationClient`, made at that point (HealthTracker.scala's `killExecutor`
    /// and `killExecutorsOnExcludedNode` call the backend synchronously), so the backend's
    /// lines come before anything the rest of the scheduler's call logs. A decommission calls
    /// this scheduler back through the client (nothing of `self` is borrowed across it).
    fn emit_health(&mut self, update: HealthUpdate, alloc: &mut dyn AllocationClient) {
        if self.exclusion.is_none() {
            return;
        }
        for step in &update.steps {
            if let Some((level, line)) = step.log_line() {
                log_at(&self.log, level, &line);
            }
            if let Some(x) = self.exclusion.as_ref().filter(|x| x.bus.enabled()) {
                for event in step.listener_events(update.time) {
                    x.bus.post(|| event);
                }
            }
            match step {
                HealthStep::KillExecutor {
                    executor_id,
                    decommission: false,
                    ..
                } => alloc.kill_executor(*executor_id),
                HealthStep::KillExecutor {
                    executor_id,
                    decommission: true,
                    message,
                } => alloc.decommission_executor(*executor_id, message, self),
                HealthStep::KillExecutorsOnHost { host, decommission } => {
                    alloc.kill_executors_on_host(host, *decommission)
                }
                HealthStep::NodeExcluded { .. } | HealthStep::NodesUnexcluded { .. } => {
                    self.deferred.push(SchedulerEvent::ExcludedNodesChanged)
                }
                _ => {}
            }
        }
    }

    /// `handleFailedTask`'s report when the set is not a zombie and the failure counts:
    /// `updateExcludedForFailedTask(host, execId, index, failureReason)`; what it excluded for
    /// the stage is logged (TaskSetExcludelist) and posted.
    fn exclude_for_failed_task(&mut self, task: &RunningTask, failure_reason: &str) {
        let now = exclusion_now();
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return;
        };
        let Some(list) = tsm.exclude_list.as_mut().filter(|_| !tsm.zombie) else {
            return;
        };
        let (host, exec) = (&task.host, task.executor_id);
        let x = list.update_excluded_for_failed_task(host, exec, task.index, failure_reason, now);
        self.emit_stage_exclusions(&x, now);
    }

    /// TaskSetExcludelist's lines and events for what one failure excluded for the stage.
    fn emit_stage_exclusions(&self, x: &StageExclusions, time: u64) {
        if x.is_empty() {
            return;
        }
        for line in x.log_lines() {
            info!(self.log, TSEL, "{line}");
        }
        if let Some(e) = self.exclusion.as_ref().filter(|e| e.bus.enabled()) {
            for event in x.listener_events(time) {
                e.bus.post(|| event);
            }
        }
    }

    /// `maybeFinishTaskSet` of a set whose tasks all succeeded:
    /// `healthTracker.updateExcludedForSuccessfulTaskSet(stageId, stageAttemptId, execToFailures)`.
    fn hand_over_failures(&mut self, key: TsKey, alloc: &mut dyn AllocationClient) {
        let now = exclusion_now();
        let Some(tsm) = self.task_sets.get(&key) else {
            return;
        };
        let Some(list) = tsm.exclude_list.as_deref() else {
            return;
        };
        let Some(h) = self.exclusion.as_mut().and_then(|x| x.health.as_mut()) else {
            return;
        };
        let failures = list.exec_to_failures();
        let update = h.update_excluded_for_successful_task_set(key.1, key.2, failures, now);
        self.emit_health(update, alloc);
    }

    /// `handleFailedTask` of a FetchFailed: `healthTracker.updateExcludedForFetchFailure(
    /// bmAddress.host, bmAddress.executorId)` (it acts only with the fetch-failure key).
    fn exclude_for_fetch_failure(
        &mut self,
        host: &str,
        exec: ExecutorId,
        alloc: &mut dyn AllocationClient,
    ) {
        let now = exclusion_now();
        let Some(h) = self.exclusion.as_mut().and_then(|x| x.health.as_mut()) else {
            return;
        };
        let update = h.update_excluded_for_fetch_failure(host, exec, now);
        self.emit_health(update, alloc);
    }

    /// `resourceOffers` after a task set's share: one that launched a task clears the
    /// unschedulable task sets; one that launched nothing and has a task no executor may run
    /// (`getCompletelyExcludedTaskIfAny`) has an idle executor killed (the HealthTracker's
    /// `killExcludedIdleExecutor`) and waits, waits for dynamic allocation, or is aborted.
    fn after_task_set_offered<D: DagEvents>(
        &mut self,
        key: TsKey,
        launched: bool,
        r: &mut Round<'_, D>,
    ) {
        if launched {
            return self.clear_unschedulable(key, r.dag);
        }
        let Some(index) = self.completely_excluded_task(key) else {
            return;
        };
        let Some(x) = self.exclusion.as_ref() else {
            return;
        };
        let (waiting, dynamic) = (x.unschedulable.contains_key(&key), x.dynamic_allocation);
        let stage = key.1;
        match self.idle_executor() {
            // Already waiting: its timer runs.
            Some(_) if waiting => {}
            None if dynamic && waiting => {}
            Some(exec) => {
                let now = exclusion_now();
                if let Some(u) = self
                    .health()
                    .map(|h| h.kill_excluded_idle_executor(exec, now))
                {
                    self.emit_health(u, r.alloc);
                }
                self.start_abort_timer(key, index);
            }
            None if dynamic => {
                info!(
                    self.log,
                    TS,
                    "Notifying ExecutorAllocationManager to allocate more executors to schedule the unschedulable task before aborting stage {stage}."
                );
                r.dag.unschedulable_task_set_added(stage, key.2);
                self.start_abort_timer(key, index);
            }
            None => {
                info!(
                    self.log,
                    TS,
                    "Cannot schedule any task because all executors excluded from failures. No idle executors can be found to kill. Aborting stage {stage}."
                );
                let mut out = std::mem::take(&mut self.deferred);
                self.abort_completely_excluded(key, index, r.env, r.dag, r.alloc, &mut out);
                out.append(&mut self.deferred);
                self.deferred = out;
            }
        }
    }

    /// `getCompletelyExcludedTaskIfAny(hostToExecutors)` of the set, over the live executors
    /// by host (a walk: only with exclusion on, and only for a set that launched nothing).
    fn completely_excluded_task(&self, key: TsKey) -> Option<u32> {
        let tsm = self.task_sets.get(&key)?;
        tsm.exclude_list.as_ref()?;
        let mut by_host: BTreeMap<&str, Vec<ExecutorId>> = BTreeMap::new();
        for (e, h) in self.topology.executors() {
            by_host.entry(&**h).or_default().push(e);
        }
        let hosts: Vec<HostExecutors<'_>> = by_host
            .iter()
            .map(|(host, executors)| HostExecutors { host, executors })
            .collect();
        let app = self.health().map(|h| h as &dyn ApplicationExclusions);
        tsm.completely_excluded_task(&hosts, app)
    }

    /// `executorIdToRunningTaskIds.find(x => !isExecutorBusy(x._1))`: the first live executor
    /// running no task, in id order (Spark's is its HashMap's, the same for ids below 10).
    fn idle_executor(&self) -> Option<ExecutorId> {
        self.topology
            .executors()
            .map(|(e, _)| e)
            .find(|e| self.by_executor.get(*e).is_none_or(SmallSet::is_empty))
    }

    /// A task of set `key` was scheduled: `Clearing the expiry times ...`, the DAGScheduler hears
    /// `unschedulableTaskSetRemoved` of that set (Spark names the set that launched, not the
    /// ones waiting), and the unschedulable sets are forgotten (their timers do nothing).
    fn clear_unschedulable(&mut self, key: TsKey, dag: &mut impl DagEvents) {
        let Some(x) = self.exclusion.as_mut() else {
            return;
        };
        if x.unschedulable.is_empty() {
            return;
        }
        info!(
            self.log,
            TS,
            "Clearing the expiry times for all unschedulable taskSets as a task was recently scheduled."
        );
        x.unschedulable.clear();
        dag.unschedulable_task_set_removed(key.1, key.2);
    }

    /// `updateUnschedulableTaskSetTimeoutAndStartAbortTimer(taskSet, index)`.
    fn start_abort_timer(&mut self, key: TsKey, index: u32) {
        let Some(x) = self.exclusion.as_mut() else {
            return;
        };
        let timeout = x.unschedulable_timeout_ms;
        x.unschedulable.insert(key, clock::now_ms() + timeout);
        info!(
            self.log,
            TS,
            "Waiting for {timeout} ms for completely excluded task to be schedulable again before aborting stage {}.",
            key.1
        );
        self.deferred.push(SchedulerEvent::UnschedulableAbortAfter {
            ms: timeout,
            key,
            index,
        });
    }

    /// The abort timer's task (`createUnschedulableTaskSetAbortTimer`, its `TimerTask.run`,
    /// `TaskSchedulerImpl$$anon$2` in the 4.0.0 jar): a set still in
    /// `unschedulableTaskSetToExpiryTime` past its expiry is aborted, otherwise nothing (Spark's
    /// `cancel()`). The jar tests neither `isZombie` nor whether the set is still registered:
    /// only a launch clears the map, so a set that turned zombie while waiting (its stage
    /// cancelled, a fetch failure, its job failed) is aborted all the same, and the
    /// DAGScheduler fails the stage's job if the stage is still there (`handleTaskSetFailed`).
    pub fn unschedulable_task_set_timer(
        &mut self,
        key: TsKey,
        index: u32,
        env: &mut DriverEnv,
        dag: &mut impl DagEvents,
        alloc: &mut dyn AllocationClient,
        out: &mut Vec<SchedulerEvent>,
    ) {
        let now = clock::now_ms();
        let due = self
            .exclusion
            .as_ref()
            .and_then(|x| x.unschedulable.get(&key))
            .is_some_and(|expiry| *expiry <= now);
        if !due {
            return;
        }
        info!(
            self.log,
            TS,
            "Cannot schedule any task because all executors excluded due to failures. Wait time for scheduling expired. Aborting stage {}.",
            key.1
        );
        self.abort_completely_excluded(key, index, env, dag, alloc, out);
    }

    /// `abortSinceCompletelyExcludedOnFailure(index)` -> `abort(message)`: the set is a zombie
    /// and the DAGScheduler fails the stage's job (`taskSetFailed`).
    fn abort_completely_excluded<D: DagEvents>(
        &mut self,
        key: TsKey,
        index: u32,
        env: &mut DriverEnv,
        dag: &mut D,
        alloc: &mut dyn AllocationClient,
        out: &mut Vec<SchedulerEvent>,
    ) {
        let Some(tsm) = self.task_sets.get(&key) else {
            return;
        };
        let Some(message) = tsm.completely_excluded_abort_message(index) else {
            return;
        };
        // `abort` ends with `maybeFinishTaskSet`, whose `taskSetFinished` logs `Removed
        // TaskSet` again for a zombie that already left its pool (the timer holds the set
        // itself). Its tasks cannot all have succeeded (the unschedulable task is pending), so
        // the HealthTracker is not handed the set's failures a second time.
        let removed_again = tsm.finished && tsm.running == 0;
        self.suspend_task_set(key, alloc);
        if removed_again {
            self.log_task_set_removed(key);
        }
        dag.task_set_failed(key.1, &message, self, env, out);
    }
}

/// What the backend's `decommissionExecutors` calls back while the HealthTracker's call runs.
impl ExecutorDecommission for TaskSchedulerImpl {
    fn executor_decommission(&mut self, id: ExecutorId, worker_host: Option<&str>) {
        TaskSchedulerImpl::executor_decommission(self, id, worker_host);
    }
}
