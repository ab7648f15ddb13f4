//! The driver's scheduling core, owned by the DriverEndpoint: `DAGScheduler` (jobs, stages and
//! their parents: `dag_scheduler`), `TaskSchedulerImpl` (offers, status updates, executor loss:
//! `task_scheduler_impl`) and `TaskSetManager` (pending indices, retries up to
//! `spark.task.maxFailures`: `task_set_manager`). Plain structs called synchronously, as in Spark;
//! every lookup is a map or a queue, never a scan over all tasks or executors.

mod dag_scheduler;
pub mod health_tracker;
pub mod locality;
#[cfg(test)]
mod locality_tests;
pub mod map_output_tracker;
mod speculation;
mod task_scheduler_impl;
pub mod task_set_exclude_list;
mod task_set_manager;
#[cfg(test)]
mod tests;

use crate::kernel::bitset::BitSet;
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::kernel::small_map::{DenseMap, SmallSet};
use crate::spark_core::memory_store::{DRIVER_STORE, MemoryStore};
use crate::world::config::{LocalitySettings, ShuffleSettings};
use crate::world::invariants::TaskOutput;
use crate::world::listener::{ContextBus, TaskEndKind, TaskEvent, TaskEventKind};
use crate::{error, info, warn};
use locality::{TaskLocality, Topology};
use map_output_tracker::{MapOutputTrackerMaster, MapOutputUpdate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::{ListenerEvent, StageInfo, TaskEndReason, TaskInfo};
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, JobResult, JobSpec, MapStatusData, ShuffleBlockInfo, ShuffleIo,
    ShuffleWrite, ShuffleWriteSize, TaskDescription, TaskName, TaskResultData, TaskWork,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use task_set_manager::TaskSetManager;

const DAG: &str = "driver::DAGScheduler";
const TSM: &str = "driver::TaskSetManager";
const TS: &str = "driver::YarnClusterScheduler";

/// The serialised size sparkyard reports for a task (what `Starting task` prints).
const TASK_BYTES: u64 = 7595;

/// An executor's free cores, offered to the task sets.
pub struct WorkerOffer {
    pub executor_id: ExecutorId,
    /// The executor's host, shared (every task launched on it keeps a copy).
    pub host: std::rc::Rc<str>,
    pub cores: u32,
}

/// What the DriverEndpoint must do after a scheduler call.
#[derive(Debug)]
pub enum SchedulerEvent {
    JobEnded {
        waiter: RemoteRef,
        job_id: u32,
        result: JobResult,
    },
    /// A task set has work again (e.g. a retry): offer resources.
    Revive,
    /// `backend.killTask(tid, execId, interruptThread, reason)` from
    /// `TaskSchedulerImpl.killAllTaskAttempts`.
    KillTask {
        task_id: TaskId,
        executor_id: ExecutorId,
        /// `interruptThread`: false for a cancelled stage (no `spark.job.interruptOnCancel`),
        /// true for the loser of a speculative race.
        interrupt_thread: bool,
        reason: String,
    },
    /// `messageScheduler.schedule(ResubmitFailedStages, RESUBMIT_TIMEOUT)`: call
    /// `resubmit_failed_stages` after this long.
    ResubmitFailedStagesAfter { ms: u64 },
}

/// `DAGScheduler.RESUBMIT_TIMEOUT`: the wait before failed stages are resubmitted, so the
/// fetch failures one lost node causes arrive before the resubmission.
pub const RESUBMIT_TIMEOUT_MS: u64 = 200;

/// `spark.logging.exceptionPrintInterval` (TaskSetManager's `EXCEPTION_PRINT_INTERVAL`, default
/// 10 s): a repeat of the same exception within it is logged as a one-line duplicate.
const EXCEPTION_PRINT_INTERVAL_MS: u64 = 10_000;

/// A task set's key: (job, stage, stage attempt); FIFO order is job, then stage.
type TsKey = (u32, u32, u32);

struct Stage {
    id: u32,
    job_id: u32,
    name: String,
    rdd: String,
    is_result: bool,
    parents: Vec<u32>,
    tasks: Vec<TaskWork>,
    /// The latest attempt's task count (`latestInfo.numTasks`): every partition until the stage
    /// is submitted, then the partitions that attempt computes.
    attempt_tasks: u32,
    /// The shuffle a shuffle-map stage writes.
    shuffle_id: Option<u32>,
    shuffle_write: ShuffleWriteSize,
    /// What each task reads from its input (the event log's input metrics).
    input: sparkyard_messages::task::InputSize,
    /// The file the input splits come from (HadoopRDD's path), if the program names one.
    input_path: Option<std::sync::Arc<str>>,
    /// The event log's RDD lineage and call stack, when the program gives them.
    lineage: Option<Box<sparkyard_messages::task::StageLineage>>,
    /// Each partition's preferred hosts from its input (empty: none).
    preferred: Vec<Vec<Rc<str>>>,
    /// The latest attempt's number and the next one's.
    attempt: u32,
    next_attempt: u32,
    submitted_ms: u64,
    submitted_epoch: u64,
    /// The latest attempt has ended (finished or failed).
    done: bool,
    /// An attempt has been submitted.
    submitted: bool,
    /// `failedAttemptIds`: attempts failed by a fetch failure since the last success.
    failed_attempt_ids: BTreeSet<u32>,
    /// `ShuffleMapStage.pendingPartitions`: partitions of the running attempt not yet done.
    pending_partitions: BTreeSet<u32>,
    /// The broadcast holding the latest attempt's task binary (`taskBinary`).
    task_binary: u32,
}

struct ActiveJob {
    waiter: RemoteRef,
    results: JobResults,
}

/// A job's results as `JobWaiter` collects them (`taskSucceeded(index, result)`): which
/// partitions have finished, a bit each (every result task's end reads one), and the results
/// that carry data, put in partition order once, at the job's end. A synthetic task's
/// `TaskResultData::None` is the absence of one. (A slot per partition, 48 bytes, made every
/// task end of a million-task job a cache miss.)
struct JobResults {
    partitions: u32,
    finished: BitSet,
    data: Vec<(u32, TaskResultData)>,
}

impl JobResults {
    fn new(partitions: u32) -> Self {
        JobResults {
            partitions,
            finished: BitSet::with_capacity(partitions),
            data: Vec::new(),
        }
    }

    /// Records partition `p`'s result; `false` when it already had one (a speculative or
    /// resubmitted copy's late result is ignored).
    fn record(&mut self, p: u32, data: TaskResultData) -> bool {
        if !self.finished.insert(p) {
            return false;
        }
        if !matches!(data, TaskResultData::None) {
            self.data.push((p, data));
        }
        true
    }

    fn is_complete(&self) -> bool {
        self.finished.len() == self.partitions
    }

    /// The partitions with no result yet, ascending.
    fn missing(&self) -> Vec<u32> {
        (0..self.partitions)
            .filter(|p| !self.finished.contains(*p))
            .collect()
    }

    /// Every partition's result in partition order (`None` where a task returned nothing).
    fn into_ordered(self) -> Vec<TaskResultData> {
        let mut out = vec![TaskResultData::None; self.partitions as usize];
        for (p, data) in self.data {
            out[p as usize] = data;
        }
        out
    }
}

/// A finished map task whose output its executor serves (TaskSetManager.executorLost
/// resubmits it when the executor goes and no shuffle service keeps the output).
struct MapOutput {
    key: TsKey,
    index: u32,
    attempt: u32,
    task_id: TaskId,
    launch_epoch: u64,
    locality: TaskLocality,
}

struct RunningTask {
    /// Its own id (an abort's KillTask names it).
    task_id: TaskId,
    key: TsKey,
    index: u32,
    partition: u32,
    attempt: u32,
    executor_id: ExecutorId,
    host: std::rc::Rc<str>,
    launch_ms: u64,
    launch_epoch: u64,
    /// The MapOutputTracker's epoch when its task set was created (`Task.epoch`).
    map_epoch: u64,
    launching: bool,
    /// A speculative copy (`TaskInfo.speculative`).
    speculative: bool,
    /// The level it was launched at (`TaskInfo.taskLocality`).
    locality: TaskLocality,
}

/// The tasks a `resourceOffers` round launched, each boxed as the LaunchTask message carries
/// it, so the description is not copied again on its way to the executor.
#[allow(clippy::vec_box)]
pub type LaunchedTasks = Vec<Box<TaskDescription>>;

/// The running tasks by task id. Task ids are handed out in order, so each id has a 4-byte
/// slot from the oldest running task on (a task that runs while a million later ones finish
/// holds the window open at 4 bytes a slot); the slot names the task's place in a table whose
/// places are reused as tasks end, so a launch allocates nothing once the table has grown to
/// the most tasks ever running at once.
#[derive(Default)]
struct RunningTasks {
    place_of: DenseMap<TaskId, u32>,
    places: Vec<Option<RunningTask>>,
    free: Vec<u32>,
}

impl RunningTasks {
    fn insert(&mut self, tid: TaskId, task: RunningTask) {
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

    fn get(&self, tid: TaskId) -> Option<&RunningTask> {
        let p = *self.place_of.get(tid)?;
        self.places[p as usize].as_ref()
    }

    fn get_mut(&mut self, tid: TaskId) -> Option<&mut RunningTask> {
        let p = *self.place_of.get(tid)?;
        self.places[p as usize].as_mut()
    }

    fn remove(&mut self, tid: TaskId) -> Option<RunningTask> {
        let p = self.place_of.remove(tid)?;
        self.free.push(p);
        self.places[p as usize].take()
    }

    /// In task id order.
    fn values(&self) -> impl Iterator<Item = &RunningTask> {
        self.place_of
            .values()
            .filter_map(|p| self.places[*p as usize].as_ref())
    }
}

impl Stage {
    /// HadoopRDD's `FileSplit` of a partition of a stage reading a named file.
    fn input_split(&self, partition: u32) -> Option<Box<sparkyard_messages::task::InputSplit>> {
        let path = self.input_path.clone()?;
        Some(Box::new(sparkyard_messages::task::InputSplit {
            path,
            start: self.input.split_start(partition),
            length: self.input.of_task(partition).0,
        }))
    }
}

impl RunningTask {
    /// `task N.A in stage S.A`, as TaskSetManager names the attempt in its lines.
    fn name(&self) -> TaskName {
        TaskName {
            index: self.index,
            attempt: self.attempt,
            stage_id: self.key.1,
            stage_attempt_id: self.key.2,
        }
    }
}

/// DAGScheduler + TaskSchedulerImpl + TaskSetManagers of one SparkContext.
pub struct Scheduler {
    log: ProcessLog,
    bus: ContextBus,
    max_failures: u32,
    task_cpus: u32,
    shuffle: ShuffleSettings,
    locality: LocalitySettings,
    /// Live executors, hosts and racks, and the cluster's racks.
    topology: Topology,
    /// `shuffleOffers`' randomness, seeded from the run's seed.
    rng: ChaCha8Rng,
    /// The offer index of each task launched in a `resourceOffers` round (reused).
    launch_order: Vec<u32>,
    /// The tasks a single offer took from one task set, launched after its turn (reused).
    taken: Vec<(task_set_manager::Dequeued, task_set_manager::StartedCopy)>,
    next_job: u32,
    next_stage: u32,
    next_shuffle: u32,
    next_task: u64,
    stages: BTreeMap<u32, Stage>,
    /// Each job's stage ids, `first..=last` (a job's stages get consecutive ids): the stages
    /// of one job without a walk over every stage of every earlier job.
    job_stages: BTreeMap<u32, (u32, u32)>,
    jobs: BTreeMap<u32, ActiveJob>,
    /// `waitingStages`, `runningStages`, `failedStages`.
    waiting_stages: BTreeSet<u32>,
    running_stages: BTreeSet<u32>,
    failed_stages: BTreeSet<u32>,
    task_sets: BTreeMap<TsKey, TaskSetManager>,
    /// Task sets with pending tasks, in FIFO order (job, stage, attempt).
    runnable: BTreeSet<TsKey>,
    /// Running tasks by task id, looked up at each status update.
    running: RunningTasks,
    /// Each executor's running tasks, by executor id (ids are handed out in order; a task's
    /// launch and end each look its executor up), iterated in task id order when it is lost.
    by_executor: DenseMap<ExecutorId, SmallSet<TaskId>>,
    /// Map outputs each executor serves itself, for its running map task sets.
    outputs_by_executor: BTreeMap<ExecutorId, Vec<MapOutput>>,
    /// `MapOutputTrackerMaster`.
    tracker: MapOutputTrackerMaster,
    /// The BlockManagerMaster's block managers: each executor's host.
    block_managers: DenseMap<ExecutorId, std::rc::Rc<str>>,
    /// The cached RDD blocks the BlockManagerMaster knows of (empty unless a program caches).
    rdd_blocks: crate::spark_core::block_manager_master::RddBlocks,
    /// `executorFailureEpoch` and `shuffleFileLostEpoch`.
    executor_failure_epoch: BTreeMap<ExecutorId, u64>,
    shuffle_file_lost_epoch: BTreeMap<ExecutorId, u64>,
    /// TaskSchedulerImpl's `executorsPendingDecommission`: the worker host of each executor
    /// decommissioned with its host (`ExecutorDecommissionState.workerHost`).
    decommissioned_hosts: BTreeMap<ExecutorId, String>,
    pub tasks_launched: u64,
    /// Failed task attempts so far (every cause).
    pub failed_attempts: u64,
    /// Task outputs won and lost, drained by the DriverEndpoint into the invariant checker.
    pub task_outputs: Vec<TaskOutput>,
    /// Work run again to recover, drained by the DriverEndpoint into the run's observer.
    pub recoveries: Vec<crate::world::observer::Recovery>,
    /// The driver's block manager's memory store (the task binaries' broadcasts).
    memory_store: MemoryStore,
    /// `SparkContext.nextBroadcastId`.
    next_broadcast: u32,
    /// Speculative execution, when `spark.speculation` is on.
    speculation: Option<Box<speculation::Speculation>>,
}
pub use crate::spark_core::executor_env::block_manager_port;

/// `partitionsToCompute.take(15)` as Scala prints a `Vector`.
fn partitions_preview(partitions: &[u32]) -> String {
    let ids: Vec<String> = partitions.iter().take(15).map(|i| i.to_string()).collect();
    format!("Vector({})", ids.join(", "))
}

impl Scheduler {
    pub fn new(log: ProcessLog, bus: ContextBus, max_failures: u32, task_cpus: u32) -> Self {
        Scheduler {
            log,
            bus,
            max_failures,
            task_cpus,
            shuffle: ShuffleSettings::default(),
            locality: LocalitySettings::default(),
            topology: Topology::default(),
            rng: ChaCha8Rng::seed_from_u64(0),
            launch_order: Vec::new(),
            taken: Vec::new(),
            next_job: 0,
            next_stage: 0,
            next_shuffle: 0,
            next_task: 0,
            stages: BTreeMap::new(),
            job_stages: BTreeMap::new(),
            jobs: BTreeMap::new(),
            waiting_stages: BTreeSet::new(),
            running_stages: BTreeSet::new(),
            failed_stages: BTreeSet::new(),
            task_sets: BTreeMap::new(),
            runnable: BTreeSet::new(),
            running: RunningTasks::default(),
            by_executor: DenseMap::default(),
            outputs_by_executor: BTreeMap::new(),
            tracker: MapOutputTrackerMaster::default(),
            block_managers: DenseMap::default(),
            rdd_blocks: Default::default(),
            executor_failure_epoch: BTreeMap::new(),
            shuffle_file_lost_epoch: BTreeMap::new(),
            decommissioned_hosts: BTreeMap::new(),
            tasks_launched: 0,
            failed_attempts: 0,
            task_outputs: Vec::new(),
            recoveries: Vec::new(),
            memory_store: MemoryStore::new(DRIVER_STORE, 0),
            next_broadcast: 0,
            speculation: None,
        }
    }

    /// The driver's storage memory (`UnifiedMemoryManager.getMaxMemory` of its heap).
    pub fn with_driver_memory(mut self, max_memory: u64) -> Self {
        self.memory_store = MemoryStore::new(DRIVER_STORE, max_memory);
        self
    }

    /// The shuffle settings (`spark.shuffle.service.enabled`, ...); Spark's defaults otherwise.
    pub fn with_shuffle(mut self, shuffle: ShuffleSettings) -> Self {
        self.shuffle = shuffle;
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

    /// Whether any live map output names the executor (shuffle tracking keeps it).
    pub fn holds_map_output(&self, id: ExecutorId) -> bool {
        self.tracker.has_outputs_of(id)
    }

    pub fn has_pending_tasks(&self) -> bool {
        !self.runnable.is_empty()
    }
}
