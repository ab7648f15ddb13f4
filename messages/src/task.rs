//! Task and job data that crosses processes: `TaskDescription` (what LaunchTask carries), task
//! results, and the job a user program submits to the DAGScheduler.

use crate::ids::{ExecutorId, TaskId};
use serde::{Deserialize, Serialize};

/// Spark's `TaskDescription`, with the work the simulated task does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskDescription {
    pub task_id: TaskId,
    pub attempt_number: u32,
    pub executor_id: ExecutorId,
    pub index: u32,
    pub partition_id: u32,
    pub stage_id: u32,
    pub stage_attempt_id: u32,
    pub cpus: u32,
    pub work: TaskWork,
    /// The shuffle this task writes (a ShuffleMapTask) and the one it reads, if any.
    pub shuffle: ShuffleIo,
    /// The broadcast holding its stage attempt's task binary (`Task.taskBinary`'s id): an
    /// executor reads it with the first task of the attempt it runs.
    pub task_binary: u32,
    /// The file split a task of a stage reading a named input computes (HadoopRDD's
    /// `FileSplit`); `None` for every other task.
    #[serde(default)]
    pub input_split: Option<Box<InputSplit>>,
    /// `Task.epoch`: the driver's `MapOutputTrackerMaster` epoch when its TaskSetManager was
    /// created; the executor's `MapOutputTrackerWorker.updateEpoch` takes it before the run.
    #[serde(default)]
    pub epoch: u64,
    /// The size of the serialized result the task sends back (its program's, else
    /// [`TASK_RESULT_BYTES`]): the executor's `bytes result sent` line and what the driver
    /// counts against `spark.driver.maxResultSize`.
    #[serde(default = "task_result_bytes")]
    pub result_bytes: u64,
}

fn task_result_bytes() -> u64 {
    TASK_RESULT_BYTES
}

/// A `FileSplit`: `path:start+length`, as `FileSplit.toString` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSplit {
    pub path: std::sync::Arc<str>,
    pub start: u64,
    pub length: u64,
}

impl std::fmt::Display for InputSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}+{}", self.path, self.start, self.length)
    }
}

/// A task's shuffle side: a `ShuffleMapTask` writes its map output for `write`'s shuffle; a task
/// of a stage with a shuffle parent reads the map outputs the driver's `MapOutputTrackerMaster`
/// knew of when the task was launched (`MapOutputTrackerWorker`'s statuses for that epoch).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleIo {
    pub write: Option<ShuffleWrite>,
    pub read: Option<std::sync::Arc<ShuffleReadPlan>>,
}

/// What a map task writes: every reduce partition gets an equal share of `bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleWrite {
    pub shuffle_id: u32,
    pub num_reduces: u32,
    pub bytes: u64,
    pub records: u64,
}

/// The map outputs a reduce task fetches: one entry per block server (the `BlockManagerId`s of
/// the registered `MapStatus`es), with the first map output held there (what a failed fetch
/// reports), and the first map whose output is missing (`MetadataFetchFailedException`). Shared
/// by every reduce task launched in the same epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleReadPlan {
    pub shuffle_id: u32,
    pub epoch: u64,
    pub sources: Vec<FetchSource>,
    pub missing_map: Option<u32>,
    /// Bytes each reduce partition reads (the sum of its blocks' sizes).
    pub bytes_per_reduce: u64,
}

/// One block server a reduce task fetches from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchSource {
    pub location: BlockManagerId,
    pub first_map_index: u32,
    pub first_map_id: u64,
    pub blocks: u32,
    /// Of those, the blocks this reduce partition finds non-empty (`MapStatus.getSizeForBlock`
    /// > 0: a map output with bytes) and their bytes.
    #[serde(default)]
    pub non_empty_blocks: u32,
    #[serde(default)]
    pub non_empty_bytes: u64,
}

/// `BlockManagerId(executorId, host, port, topologyInfo)`: where a block (a map output) is
/// served: the executor's own block manager, or the node's external shuffle service.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BlockManagerId {
    pub executor_id: ExecutorId,
    pub host: String,
    pub port: u16,
}

impl std::fmt::Display for BlockManagerId {
    /// BlockManagerId.toString: `BlockManagerId(1, host, 38001, None)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "BlockManagerId({}, {}, {}, None)",
            self.executor_id, self.host, self.port
        )
    }
}

/// `ShuffleBlockInfo(shuffleId, mapId)`: one map output's index and data files, the unit a
/// decommissioning block manager migrates (`toString`: `ShuffleBlockInfo(0,5)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ShuffleBlockInfo {
    pub shuffle_id: u32,
    /// The map task's id (its TID).
    pub map_id: u64,
}

impl std::fmt::Display for ShuffleBlockInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShuffleBlockInfo({},{})", self.shuffle_id, self.map_id)
    }
}

/// A map output a decommissioning executor uploads to a peer (`uploadBlockSync` of its data
/// and index blocks): what the peer stores and reports to the BlockManagerMaster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigratedShuffleBlock {
    pub info: ShuffleBlockInfo,
    /// The data file's length.
    pub data_bytes: u64,
    /// Reduce partitions (the index file holds `num_reduces + 1` offsets).
    pub num_reduces: u32,
}

/// `ReplicateBlock(blockId, replicas, maxReplicas)` for a cached RDD block
/// (`BlockManagerMasterEndpoint.getReplicateInfoForRDDBlocks`): the block, the other block
/// managers holding it, how many replicas it should have, and its size in memory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicateBlock {
    pub rdd_id: u32,
    pub partition: u32,
    pub replicas: Vec<BlockManagerId>,
    pub max_replicas: u32,
    pub mem_size: u64,
}

/// A cached RDD block a decommissioning executor replicates to a peer (`uploadBlockSync` of
/// `rdd_<rdd_id>_<partition>`, MEMORY_ONLY deserialized).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigratedRddBlock {
    pub rdd_id: u32,
    pub partition: u32,
    pub mem_size: u64,
}

/// A peer `BlockManagerMasterEndpoint.getPeers` names: its id, and the endpoint its block
/// transfer service answers on (the connection to `host:port` an upload opens).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockManagerPeer {
    pub id: BlockManagerId,
    pub endpoint: crate::address::RemoteRef,
}

/// `FetchFailed(bmAddress, shuffleId, mapId, mapIndex, reduceId, message)`: a reduce task could
/// not read a map output. `bm_address` is `None` (Spark's null) for a
/// `MetadataFetchFailedException` (no location registered), with map id and index -1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchFailure {
    pub bm_address: Option<BlockManagerId>,
    pub shuffle_id: u32,
    pub map_id: i64,
    pub map_index: i32,
    pub reduce_id: u32,
    /// `Utils.exceptionString` of the FetchFailedException.
    pub message: String,
}

impl FetchFailure {
    /// TaskEndReason.scala FetchFailed.toErrorString.
    pub fn to_error_string(&self) -> String {
        let bm = self
            .bm_address
            .as_ref()
            .map_or_else(|| "null".to_string(), |b| b.to_string());
        format!(
            "FetchFailed({bm}, shuffleId={}, mapIndex={}, mapId={}, reduceId={}, message=\n{}\n)",
            self.shuffle_id, self.map_index, self.map_id, self.reduce_id, self.message
        )
    }
}

/// A finished ShuffleMapTask's `MapStatus`: where its output is served and its size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapStatusData {
    pub location: BlockManagerId,
    pub bytes: u64,
    pub num_reduces: u32,
}

impl TaskDescription {
    /// Spark's `TaskDescription.name`, `task 0.0 in stage 0.0`. The TaskSetManager builds it from
    /// the index, attempt and stage fields this description already carries, so it is shown from
    /// them when a log line needs it rather than formatted into a string at every launch.
    pub fn name(&self) -> TaskName {
        TaskName {
            index: self.index,
            attempt: self.attempt_number,
            stage_id: self.stage_id,
            stage_attempt_id: self.stage_attempt_id,
        }
    }
}

/// A task's name as Spark prints it: `task <index>.<attempt> in stage <stage>.<stage attempt>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskName {
    pub index: u32,
    pub attempt: u32,
    pub stage_id: u32,
    pub stage_attempt_id: u32,
}

impl std::fmt::Display for TaskName {
    /// `write!` with four integer arguments: several log lines of every task show a name, and
    /// `core::fmt`'s integer padding made most of a captured line's cost.
    /// Made in a buffer on the stack and written once (at most 57 bytes).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::jvm_text::Decimal;
        let mut text = [0u8; 64];
        let mut len = 0;
        let n = |v: u32| Decimal::new(u64::from(v));
        let (index, attempt) = (n(self.index), n(self.attempt));
        let (stage, stage_attempt) = (n(self.stage_id), n(self.stage_attempt_id));
        let parts = [
            "task ",
            index.as_str(),
            ".",
            attempt.as_str(),
            " in stage ",
            stage.as_str(),
            ".",
            stage_attempt.as_str(),
        ];
        for part in parts {
            text[len..len + part.len()].copy_from_slice(part.as_bytes());
            len += part.len();
        }
        f.write_str(std::str::from_utf8(&text[..len]).expect("ASCII"))
    }
}

/// What a task computes and how long it takes on the virtual clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskWork {
    /// SparkPi: throw `darts` darts (elements `first..first+darts` of `1 until n`) with an RNG
    /// seeded by `seed` and the partition, count the hits inside the unit circle.
    SparkPiDarts { first: u64, darts: u64, seed: u64 },
    /// A synthetic task that runs for a fixed virtual time; `fail` makes it throw.
    Sleep {
        duration_ms: u64,
        fail: Option<String>,
    },
    /// A task replayed from an event log (`sparkyard replay`): attempt `k` runs as the
    /// recorded attempt `failures[k]` while `k < failures.len()` (it throws its recorded
    /// exception after its duration, or, an attempt the scheduler killed or a speculative
    /// race's, runs its recorded duration and succeeds unless the simulated scheduler kills it
    /// in turn, or, one lost with its executor, ends its executor then), and any later attempt
    /// succeeds after `duration_ms`. The durations are the
    /// recorded launch-to-finish times, which already hold the launch and deserialisation, so
    /// the executor adds only its first-task warm-up (`own_warmup_ms` for a task that was its
    /// recorded executor's first, else `CostModel.first_task_warmup_ms`, the log's median: the
    /// replay takes each recorded executor's first task's warm-up off it).
    Replayed {
        duration_ms: u64,
        failures: Option<Box<ReplayedAttempts>>,
        /// The persisted RDDs the recorded task's partition passed through; `None` for none.
        #[serde(default)]
        cache: Option<Box<ReplayedCache>>,
        /// The warm-up the replay took off this task because it was its recorded executor's
        /// first (an attempt past `failures`): run first on a simulated executor, it pays that
        /// warm-up back instead of the log's median, so a task that ran fresh in both runs
        /// takes its recorded time. `None`: the cost model's warm-up.
        #[serde(default)]
        own_warmup_ms: Option<u32>,
        /// Where the recording ran the task's first attempt: its executor's place in the log's
        /// registration order (`SparkListenerExecutorAdded`s, the driver's left out; 0: the
        /// first). For a task without a preferred location the executor was Spark's draw
        /// (`TaskSchedulerImpl.shuffleOffers`, unseeded), so the replay's scheduler takes the
        /// recorded draw: it offers the executor that registered at that place in the
        /// simulation first, when it is offered at all. `None`: the seeded draw alone.
        #[serde(default)]
        recorded_executor: Option<u32>,
    },
    /// A task over a `.cache()`d RDD's partition (MEMORY_ONLY): `RDD.getOrCompute` asks its
    /// block manager for `rdd_<rdd>_<partition>` (`BlockManager.getOrElseUpdate`), computes
    /// and stores it when no block manager holds it, then does its own work.
    CachedRdd(Box<CachedRddRead>),
}

/// A replayed task over persisted RDDs (`TaskWork::Replayed`): `RDD.getOrCompute` reads the
/// partition's block of the first one a block manager holds and computes and stores the ones
/// above it. Its time stays the recorded one (the recording's read or computation); the
/// blocks decide where the simulated scheduler prefers to run it, as Spark's `getCacheLocs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayedCache {
    /// The RDDs in `DAGScheduler.getPreferredLocsInternal`'s order (the stage's RDD first,
    /// then its narrow dependencies depth first).
    pub rdd_ids: Vec<u32>,
    /// How many of `rdd_ids`, from the first, no block manager held when the task was
    /// launched: the blocks it computes and stores. Filled in by the driver at launch.
    pub missing: u32,
}

impl TaskWork {
    /// The warm-up attempt `attempt` (of stage attempt `stage_attempt`) pays as its executor's
    /// first task, when the task carries its own (see `TaskWork::Replayed::own_warmup_ms`): an
    /// attempt past the recorded ones, which runs as the successful one; `None`: the cost
    /// model's.
    pub fn own_first_task_warmup_ms(&self, stage_attempt: u32, attempt: u32) -> Option<u64> {
        match self {
            TaskWork::Replayed {
                own_warmup_ms: Some(w),
                failures,
                ..
            } if failures
                .as_deref()
                .is_none_or(|f| f.get(stage_attempt, attempt).is_none()) =>
            {
                Some(u64::from(*w))
            }
            _ => None,
        }
    }

    /// How attempt `attempt` of a replayed task in attempt `stage_attempt` of its stage ends
    /// its executor, when the recording lost the executor while that attempt ran
    /// (`ReplayedEnd::ExecutorDies`).
    pub fn executor_dies_after(&self, stage_attempt: u32, attempt: u32) -> Option<ContainerEnd> {
        match self {
            TaskWork::Replayed {
                failures: Some(f), ..
            } => match f.get(stage_attempt, attempt)?.end {
                ReplayedEnd::ExecutorDies(end) => Some(end),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether attempt `attempt` of a replayed task is one the recording ended by a kill (or
    /// ran to its end before a speculative loser's): its recorded time runs to the moment the
    /// kill took effect (the task meets a kill at its next interruption check), so a kill
    /// lets it run that long. One whose executor the recording lost as it ended runs its
    /// time too, and its executor dies then, killed or not (a killed barrier task's PySpark
    /// worker took its executor down a second later in a real Spark 4.0 run).
    pub fn runs_until_killed(&self, stage_attempt: u32, attempt: u32) -> bool {
        match self {
            TaskWork::Replayed {
                failures: Some(f), ..
            } => f
                .get(stage_attempt, attempt)
                .is_some_and(|a| matches!(a.end, ReplayedEnd::Ran | ReplayedEnd::ExecutorDies(_))),
            _ => false,
        }
    }

    /// Where the recording ran a replayed task's first attempt (see
    /// `TaskWork::Replayed::recorded_executor`).
    pub fn recorded_executor(&self) -> Option<u32> {
        match self {
            TaskWork::Replayed {
                recorded_executor, ..
            } => *recorded_executor,
            _ => None,
        }
    }

    /// The persisted RDDs whose block of the task's partition the scheduler looks for, first
    /// found first preferred (`getCacheLocs` down `getPreferredLocsInternal`).
    pub fn cached_rdds(&self) -> &[u32] {
        match self {
            TaskWork::CachedRdd(read) => std::slice::from_ref(&read.rdd_id),
            TaskWork::Replayed { cache: Some(c), .. } => &c.rdd_ids,
            _ => &[],
        }
    }
}

/// What a task over a cached RDD's partition reads or computes (`TaskWork::CachedRdd`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedRddRead {
    pub rdd_id: u32,
    /// The block's estimated size in memory (`SizeEstimator` of its values), bytes.
    pub block_bytes: u64,
    /// Records in the partition.
    pub records: u64,
    /// Computing the partition when no block manager holds it, ms on one core.
    pub compute_ms: u64,
    /// The task's own work on the partition's records, ms.
    pub work_ms: u64,
    /// Where the BlockManagerMaster knew the block to be when the task was launched (its
    /// `getLocations` answer); filled in by the driver, `None` in the program's stage.
    pub location: Option<BlockManagerId>,
}

/// A replayed task's recorded attempts before its last (`TaskWork::Replayed::failures`), behind
/// one thin pointer: most replayed tasks have none, and the few that do pay one more
/// indirection so that every `TaskWork` stays 40 bytes (a 1 M-task replay holds several copies
/// of its works). Written and read as the list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReplayedAttempts(pub Vec<ReplayedFailure>);

impl std::ops::Deref for ReplayedAttempts {
    type Target = [ReplayedFailure];
    fn deref(&self) -> &[ReplayedFailure] {
        &self.0
    }
}

impl ReplayedAttempts {
    /// How attempt `attempt` of the task in attempt `stage_attempt` of its stage runs: the
    /// `attempt`-th one the recording ran in that stage attempt (a retried stage numbers its
    /// tasks' attempts from 0 again, and its recorded runs are its own); `None` past them.
    pub fn get(&self, stage_attempt: u32, attempt: u32) -> Option<&ReplayedFailure> {
        self.0
            .iter()
            .filter(|f| f.stage_attempt == stage_attempt)
            .nth(attempt as usize)
    }
}

/// One recorded attempt of a replayed task, by attempt number: how long it ran and how it
/// ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayedFailure {
    pub duration_ms: u64,
    pub end: ReplayedEnd,
    /// The stage attempt the recording ran it in.
    #[serde(default)]
    pub stage_attempt: u32,
}

/// How a replayed attempt before the task's last ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplayedEnd {
    /// It throws the recorded exception (`ExceptionFailure`).
    Threw(ReplayedException),
    /// It runs to the end (one the scheduler killed, a speculative copy, the successful
    /// attempt before a speculative loser): the simulated scheduler kills it again or not.
    Ran,
    /// Its executor dies as it ends (`ExecutorLostFailure`: the recording lost the executor
    /// while the attempt ran), its container ending so. Once: only in the stage attempt it
    /// was recorded in (`ReplayedFailure.stage_attempt`).
    ExecutorDies(ContainerEnd),
}

/// How a container ends when nothing in YARN asked for it (a fault, or a replayed executor
/// loss).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerEnd {
    /// The JVM exits by itself with this code (1, 52 OutOfMemoryError, 137 SIGKILL, 143 ...).
    ProcessExit(i32),
    /// The NodeManager kills it and reports this ContainerExitStatus (-100 .. -109) with YARN's
    /// diagnostics for it.
    NodeManagerKill(i32),
}

/// The exception a replayed attempt throws.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayedException {
    pub class: String,
    pub description: String,
}

/// The serialized size of a task's result: what the executor reports (`N bytes result sent to
/// driver`) and the driver counts against `spark.driver.maxResultSize`
/// (TaskSetManager.canFetchMoreResults). sparkyard's synthetic programs give no result sizes,
/// so every task's result is this size (the event log's `Result Size` says the same); a
/// replayed stage gives each task its recorded one ([`ResultSizes`]).
pub const TASK_RESULT_BYTES: u64 = 1000;

/// The `TaskKilled` reason of a result the driver refused because the task set's results
/// passed `spark.driver.maxResultSize` (Spark 4.0.0's TaskResultGetter).
pub const RESULT_SIZE_EXCEEDED: &str = "Tasks result size has exceeded maxResultSize";

/// Each partition's serialized result size, bytes (a replayed stage's recorded `Result Size`s);
/// empty: every task's is [`TASK_RESULT_BYTES`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResultSizes(pub Vec<u64>);

impl ResultSizes {
    /// Partition `partition`'s result size.
    #[inline]
    pub fn of(&self, partition: u32) -> u64 {
        self.0
            .get(partition as usize)
            .copied()
            .unwrap_or(TASK_RESULT_BYTES)
    }
}

/// The serialised result a `StatusUpdate` carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskResultData {
    None,
    /// A count (SparkPi's hits).
    Count(u64),
    /// `ExceptionFailure`: the exception class and message.
    Exception {
        class: String,
        description: String,
    },
    /// `TaskKilled(reason)`: the reason the driver's `KillTask` gave (Executor.TaskRunner sends
    /// it back with the KILLED status).
    Killed {
        reason: String,
    },
    /// A ShuffleMapTask's `MapStatus`.
    MapStatus(Box<MapStatusData>),
    /// `FetchFailed`: the task could not read its shuffle input (not counted as a failure).
    FetchFailed(Box<FetchFailure>),
}

/// `StatusUpdate(executorId, taskId, state, data, taskCpus, resources)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusUpdate {
    pub executor_id: ExecutorId,
    pub task_id: TaskId,
    pub state: crate::records::TaskState,
    pub data: TaskResultData,
    pub task_cpus: u32,
}

/// A job as the user program's action submits it (`SparkContext.runJob` -> `DAGScheduler`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSpec {
    /// The call site, e.g. `reduce at SparkPi.scala:38`.
    pub call_site: String,
    /// Stages in topological order; the last one is the ResultStage.
    pub stages: Vec<StageSpec>,
}

/// One stage of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageSpec {
    /// The RDD the stage computes, e.g. `MapPartitionsRDD[1] at map at SparkPi.scala:34`.
    pub rdd_description: String,
    pub num_partitions: u32,
    /// Indices (into `JobSpec::stages`) of the shuffle-map stages this stage reads.
    pub parents: Vec<usize>,
    /// Each partition's work.
    pub tasks: StageTasks,
    /// The shuffle output each task of a shuffle-map stage writes (bytes, records); zero for a
    /// stage whose sizes the program does not give.
    #[serde(default)]
    pub shuffle_write: ShuffleWriteSize,
    /// What each task reads from its input (a HadoopRDD's split, the cached blocks of a
    /// `.cache()`d RDD): the event log's `Input Metrics`; zero for a stage without input.
    #[serde(default)]
    pub input: InputSize,
    /// The stage's RDDs and call stack as a program gives them (the event log's `RDD Info`,
    /// `Details` and the job's `spark.rdd.scope`); `None`: the one RDD of `rdd_description`.
    #[serde(default)]
    pub lineage: Option<Box<StageLineage>>,
    /// Each task's preferred hosts (the hosts of its input blocks: `RDD.preferredLocations`),
    /// one list per partition; empty when the stage reads no located input.
    #[serde(default)]
    pub preferred_hosts: Vec<Vec<String>>,
    /// The file the stage's `input` splits come from (a HadoopRDD's path): task i computes the
    /// split after the earlier tasks' ones; `None`: no named file.
    #[serde(default)]
    pub input_path: Option<std::sync::Arc<str>>,
    /// Each task's serialized result size (empty: [`TASK_RESULT_BYTES`] each).
    #[serde(default)]
    pub result_bytes: ResultSizes,
    /// A barrier stage (`RDD.barrier()`: `Stage.isBarrier`, the event log's RDD Info
    /// `Barrier`): its tasks launch all at once or not at all, and one failed task fails the
    /// whole stage attempt.
    #[serde(default)]
    pub barrier: bool,
}

/// A stage's works, partition by partition, as a program hands them to the DAGScheduler: one
/// work every partition does (a synthetic stage of equal tasks: a million of them is one
/// value, not a 40 MB array built, copied and dropped), or one work each. Written and read as
/// the list of every partition's work either way, and equal to another by that list.
#[derive(Clone, Debug, Eq)]
pub enum StageTasks {
    /// `len` partitions that all do `work`.
    Same { work: TaskWork, len: u32 },
    /// Partition `p` does `works[p]`.
    Each(Vec<TaskWork>),
}

impl StageTasks {
    /// `len` partitions doing the same `work`.
    pub fn same(work: TaskWork, len: u32) -> Self {
        StageTasks::Same { work, len }
    }

    /// The number of partitions.
    pub fn len(&self) -> usize {
        match self {
            StageTasks::Same { len, .. } => *len as usize,
            StageTasks::Each(works) => works.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Partition `partition`'s work.
    pub fn get(&self, partition: usize) -> Option<&TaskWork> {
        match self {
            StageTasks::Same { work, len } => (partition < *len as usize).then_some(work),
            StageTasks::Each(works) => works.get(partition),
        }
    }

    /// Every partition's work, in partition order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &TaskWork> {
        (0..self.len()).map(|p| &self[p])
    }

    /// The same stage with an `Each` whose works are all equal made `Same` (one pass over the
    /// works; a `Same` or a stage of differing works stays as it is).
    pub fn folded(self) -> StageTasks {
        match self {
            StageTasks::Each(works)
                if works
                    .split_first()
                    .is_some_and(|(first, rest)| rest.iter().all(|w| w == first)) =>
            {
                let len = works.len() as u32;
                let work = works.into_iter().next().expect("a first work");
                StageTasks::Same { work, len }
            }
            other => other,
        }
    }

    /// The works as one entry per partition, to change some of them.
    pub fn to_mut(&mut self) -> &mut Vec<TaskWork> {
        if let StageTasks::Same { work, len } = self {
            *self = StageTasks::Each(vec![work.clone(); *len as usize]);
        }
        match self {
            StageTasks::Each(works) => works,
            StageTasks::Same { .. } => unreachable!("made Each above"),
        }
    }
}

impl PartialEq for StageTasks {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (StageTasks::Same { work, len }, StageTasks::Same { work: w, len: l }) => {
                len == l && (*len == 0 || work == w)
            }
            _ => self.len() == other.len() && self.iter().eq(other.iter()),
        }
    }
}

impl Default for StageTasks {
    fn default() -> Self {
        StageTasks::Each(Vec::new())
    }
}

impl From<Vec<TaskWork>> for StageTasks {
    fn from(works: Vec<TaskWork>) -> Self {
        StageTasks::Each(works)
    }
}

impl FromIterator<TaskWork> for StageTasks {
    fn from_iter<I: IntoIterator<Item = TaskWork>>(works: I) -> Self {
        StageTasks::Each(works.into_iter().collect())
    }
}

impl std::ops::Index<usize> for StageTasks {
    type Output = TaskWork;

    fn index(&self, partition: usize) -> &TaskWork {
        self.get(partition).expect("a partition of the stage")
    }
}

impl Serialize for StageTasks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for StageTasks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<TaskWork>::deserialize(d).map(StageTasks::Each)
    }
}

/// What `StageInfo.fromStage` records of a stage's RDDs, and its call site's long form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageLineage {
    /// The stage's RDD first, then its narrow ancestors (`rdd.getNarrowAncestors`).
    pub rdds: Vec<RddSpec>,
    /// `Details`: the call site's long form (`Utils.getCallSite`: the last Spark frame, then the
    /// user's frames).
    pub details: String,
    /// On a job's ResultStage: the action's scope (`RDD.withScope` sets `spark.rdd.scope` and
    /// `spark.rdd.scope.noOverride` around `sc.runJob`, so the job's properties carry them).
    pub action_scope: Option<RddScope>,
    /// On a shuffle-map stage: the program's `ShuffleDependency.shuffleId`. A stage of a later
    /// job over the same dependency reuses the shuffle and its registered map outputs (Spark's
    /// skipped stage: it runs only the partitions whose outputs were lost).
    #[serde(default)]
    pub shuffle_id: Option<u32>,
}

/// One RDD (`RDDInfo.fromRdd`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RddSpec {
    pub id: u32,
    /// The class's simple name, e.g. `ParallelCollectionRDD`.
    pub name: String,
    /// The creation site's short form, e.g. `parallelize at SparkPi.scala:34`.
    pub callsite: String,
    pub scope: Option<RddScope>,
    pub parent_ids: Vec<u32>,
    /// `.cache()`d: StorageLevel MEMORY_ONLY (memory, deserialized, 1 replica).
    #[serde(default)]
    pub cached: bool,
    #[serde(default)]
    pub deterministic_level: DeterministicLevel,
}

/// `DeterministicLevel` of an RDD's output (`RDD.getOutputDeterministicLevel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeterministicLevel {
    #[default]
    Determinate,
    Unordered,
    Indeterminate,
}

impl DeterministicLevel {
    pub fn name(self) -> &'static str {
        match self {
            DeterministicLevel::Determinate => "DETERMINATE",
            DeterministicLevel::Unordered => "UNORDERED",
            DeterministicLevel::Indeterminate => "INDETERMINATE",
        }
    }
}

/// `RDDOperationScope`: ids come from one counter per JVM, one per top-level RDD operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RddScope {
    pub id: u32,
    pub name: String,
}

impl RddScope {
    /// `RDDOperationScope.toJson` (Jackson: `{"id":"0","name":"parallelize"}`).
    pub fn to_json(&self) -> String {
        let name = self.name.replace('\\', "\\\\").replace('"', "\\\"");
        format!("{{\"id\":\"{}\",\"name\":\"{name}\"}}", self.id)
    }
}

/// Bytes and records each map task of a stage writes to its shuffle: spread evenly over the
/// reduce partitions, but for `hot` ones, which get `factor` times the others' share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleWriteSize {
    pub bytes_per_task: u64,
    pub records_per_task: u64,
    #[serde(default)]
    pub hot: HotPartitions,
}

impl ShuffleWriteSize {
    /// The bytes and records of reduce partition `reduce` (of `reduces`) in one map output.
    pub fn block(&self, reduce: u32, reduces: u32) -> (u64, u64) {
        (
            self.hot.share(self.bytes_per_task, reduce, reduces),
            self.hot.share(self.records_per_task, reduce, reduces),
        )
    }
}

/// Explicit hot partitions of a stage (skew): partitions `first .. first + count` weigh
/// `factor`, the others 1. The default (count 0) is no skew. Eight bytes in the stage, nothing
/// per task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotPartitions {
    pub first: u32,
    pub count: u32,
    pub factor: u32,
}

impl HotPartitions {
    pub fn is_none(&self) -> bool {
        self.count == 0 || self.factor <= 1
    }

    /// Partition `i`'s weight.
    pub fn weight(&self, i: u32) -> u64 {
        if !self.is_none() && i >= self.first && i - self.first < self.count {
            u64::from(self.factor)
        } else {
            1
        }
    }

    /// Partition `i`'s share of `total` spread over `n` partitions by weight (rounded down;
    /// without skew `total / n`).
    pub fn share(&self, total: u64, i: u32, n: u32) -> u64 {
        let n = u64::from(n.max(1));
        if self.is_none() {
            return total / n;
        }
        let hot = u64::from(self.count).min(n);
        let weights = (n - hot) + hot * u64::from(self.factor);
        (u128::from(total) * u128::from(self.weight(i)) / u128::from(weights)) as u64
    }
}

/// Bytes and records each task of a stage reads from its input (`InputMetrics.bytesRead` /
/// `recordsRead`: a HadoopRDD's split, or a cached RDD block); `hot` tasks read `factor`
/// times as much.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSize {
    pub bytes_per_task: u64,
    pub records_per_task: u64,
    #[serde(default)]
    pub hot: HotPartitions,
}

impl InputSize {
    /// Where task `index`'s split starts in the file: after the earlier tasks' splits.
    pub fn split_start(&self, index: u32) -> u64 {
        let hot_before = if self.hot.is_none() || index <= self.hot.first {
            0
        } else {
            (index - self.hot.first).min(self.hot.count)
        };
        let extra = u64::from(hot_before) * u64::from(self.hot.factor.saturating_sub(1));
        self.bytes_per_task.saturating_mul(u64::from(index) + extra)
    }

    /// The bytes and records task `index` reads.
    pub fn of_task(&self, index: u32) -> (u64, u64) {
        let w = self.hot.weight(index);
        (
            self.bytes_per_task.saturating_mul(w),
            self.records_per_task.saturating_mul(w),
        )
    }
}

/// How a job ended, as `JobWaiter` reports it to the user program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobResult {
    /// The ResultStage's per-partition results, in partition order.
    Succeeded(Vec<TaskResultData>),
    /// `Job aborted due to stage failure: ...` (a `SparkException`).
    Failed(String),
    /// The job's stages could not be created: the exception `listener.jobFailed(e)` gave
    /// (a barrier stage's `BarrierJobAllocationFailed`).
    NotCreated { class: String, message: String },
}

#[cfg(test)]
mod tests {
    use super::{ReplayedAttempts, ReplayedEnd, ReplayedFailure, TaskName, TaskWork};

    /// Every task's work is copied into its stage, its task set and its launch: a 1 M-task
    /// replay holds several copies of its works, so the replayed variant keeps its failures
    /// behind a thin pointer and the enum stays 40 bytes.
    #[test]
    fn a_task_work_is_40_bytes() {
        assert_eq!(std::mem::size_of::<TaskWork>(), 40);
    }

    /// A replayed task's own warm-up is for the attempt that runs its recorded success (past
    /// its recorded failures); an attempt replaying a failure pays the cost model's.
    #[test]
    fn a_replayed_task_pays_its_own_warm_up_on_its_successful_attempt_only() {
        let work = TaskWork::Replayed {
            duration_ms: 900,
            failures: Some(Box::new(ReplayedAttempts(vec![ReplayedFailure {
                duration_ms: 40,
                end: ReplayedEnd::Ran,
                stage_attempt: 0,
            }]))),
            cache: None,
            own_warmup_ms: Some(300),
            recorded_executor: None,
        };
        assert_eq!(work.own_first_task_warmup_ms(0, 0), None);
        assert_eq!(work.own_first_task_warmup_ms(0, 1), Some(300));
        let sleep = TaskWork::Sleep {
            duration_ms: 5,
            fail: None,
        };
        assert_eq!(sleep.own_first_task_warmup_ms(0, 0), None);
    }

    // The name reads as `format!("task {}.{} in stage {}.{}", ...)` did, at every digit count.
    #[test]
    fn a_task_name_prints_like_format() {
        for n in [0, 7, 10, 99, 12_345, 1_000_000, u32::MAX] {
            let name = TaskName {
                index: n,
                attempt: n / 7,
                stage_id: 3,
                stage_attempt_id: n % 10,
            };
            let want = format!("task {}.{} in stage 3.{}", n, n / 7, n % 10);
            assert_eq!(name.to_string(), want);
        }
    }
}
