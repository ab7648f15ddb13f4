//! The `SparkListener` events the event log is made of (application, environment, executors,
//! block managers, jobs, stages, tasks), stamped with the virtual wall clock: Spark's
//! `org.apache.spark.scheduler.SparkListenerEvent` records as data. The bus that records them is
//! `sparkyard_actors::world::listener`.

/// `TaskInfo` as the event log writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskInfo {
    pub task_id: u64,
    pub index: u32,
    pub attempt: u32,
    pub partition_id: u32,
    pub launch_time: u64,
    pub executor_id: String,
    pub host: String,
    /// `PROCESS_LOCAL`, `NODE_LOCAL`, `RACK_LOCAL`, `ANY`.
    pub locality: &'static str,
    pub finish_time: u64,
    pub failed: bool,
    pub killed: bool,
    /// A speculative copy (`TaskInfo.speculative`, the event log's `Speculative`).
    pub speculative: bool,
}

/// `ExecutorResourceRequest` of a custom resource (`spark.executor.resource.<name>.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorResourceRequest {
    pub name: String,
    pub amount: u64,
    /// `discoveryScript` (empty when unset, as `getDefaultExecutorResources` stores it).
    pub discovery_script: String,
    pub vendor: String,
}

/// `TaskResourceRequest` of a custom resource (`spark.task.resource.<name>.amount`).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResourceRequest {
    pub name: String,
    pub amount: f64,
}

/// `ResourceInformation`: a resource's name and the addresses an executor found of it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResourceInformation {
    pub name: String,
    pub addresses: Vec<String>,
}

/// `TaskEndReason`.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEndReason {
    Success,
    Resubmitted,
    ExceptionFailure {
        class: String,
        description: String,
    },
    ExecutorLostFailure {
        executor_id: String,
        exit_caused_by_app: bool,
        loss_reason: String,
    },
    TaskKilled {
        reason: String,
    },
    /// `FetchFailed(bmAddress, shuffleId, mapId, mapIndex, reduceId, message)`.
    FetchFailed(Box<crate::task::FetchFailure>),
}

impl TaskEndReason {
    /// `TaskEndReason.toErrorString` (TaskEndReason.scala): how a failed attempt's end reads in
    /// a `Lost task` line and in a failure message built from it. An `ExceptionFailure` reads
    /// `class: description` (sparkyard's exceptions carry no stack trace).
    pub fn to_error_string(&self) -> String {
        match self {
            TaskEndReason::Success => "Success".to_string(),
            TaskEndReason::Resubmitted => {
                "Resubmitted (resubmitted due to lost executor)".to_string()
            }
            TaskEndReason::ExceptionFailure { class, description } => {
                format!("{class}: {description}")
            }
            TaskEndReason::ExecutorLostFailure {
                executor_id,
                exit_caused_by_app,
                loss_reason,
            } => {
                let cause = if *exit_caused_by_app {
                    "caused by one of the running tasks"
                } else {
                    "unrelated to the running tasks"
                };
                format!(
                    "ExecutorLostFailure (executor {executor_id} exited {cause}) Reason: {loss_reason}"
                )
            }
            TaskEndReason::TaskKilled { reason } => format!("TaskKilled ({reason})"),
            TaskEndReason::FetchFailed(f) => f.to_error_string(),
        }
    }
}

/// `StageInfo`.
#[derive(Clone, Debug, PartialEq)]
pub struct StageInfo {
    pub stage_id: u32,
    pub attempt_id: u32,
    pub name: String,
    /// `numTasks`: the attempt's tasks (`makeNewStageAttempt(numPartitionsToCompute)`: a
    /// resubmitted attempt runs only the missing partitions); all of them in a JobStart's infos.
    pub num_tasks: u32,
    /// The stage's partitions (`rdd.partitions.length`, RDD Info's `Number of Partitions`).
    pub num_partitions: u32,
    pub rdd_id: u32,
    /// The RDD's name (`MapPartitionsRDD`) and call site (`map at SparkPi.scala:34`).
    pub rdd_name: String,
    pub rdd_callsite: String,
    pub parent_ids: Vec<u32>,
    pub submission_time: Option<u64>,
    pub completion_time: Option<u64>,
    pub failure_reason: Option<String>,
    pub is_shuffle_map: bool,
    /// `StageInfo.shuffleDepId`: the shuffle a shuffle-map stage writes (`None` for a result
    /// stage). A later job's stage over the same shuffle has another stage id and this id.
    pub shuffle_dep_id: Option<u32>,
    /// What each task of a shuffle-map stage writes (the data model; zero when not given). The
    /// event log derives every shuffle metric from it: a reduce stage reads its parents' output.
    pub shuffle_write: crate::task::ShuffleWriteSize,
    /// What each task reads from its input (the event log's `Input Metrics`).
    pub input: crate::task::InputSize,
    /// The stage's RDDs and call stack when the program gives them.
    pub lineage: Option<Box<crate::task::StageLineage>>,
    /// `taskLocalityPreferences`: the preferred hosts of each task of a submitted attempt
    /// (`makeNewStageAttempt(..., taskIdToLocations.values)`); empty in the JobStart's infos,
    /// for a stage whose tasks prefer no host, and when no listener hears the event. The event
    /// log does not write it (JsonProtocol); dynamic allocation's placement hints read it.
    pub task_locality_preferences: Vec<Vec<String>>,
    /// `Stage.isBarrier`: its RDD Info says `"Barrier": true`.
    pub is_barrier: bool,
}

/// Which of its two class names an exclusion event carries. Spark 4.0 posts each exclusion
/// event twice, the deprecated `...Blacklisted...` class first, then its `...Excluded...` twin
/// (HealthTracker and TaskSetExcludelist: "post both to keep backwards compatibility"; both
/// are written to the event log by EventLoggingListener).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExclusionEventName {
    /// `SparkListenerExecutorExcluded`, `SparkListenerNodeUnexcluded`, ...
    Excluded,
    /// The deprecated `SparkListenerExecutorBlacklisted`, `SparkListenerNodeUnblacklisted`, ...
    Blacklisted,
}

/// `StorageLevel` as `JsonProtocol.storageLevelToJson` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageLevelInfo {
    pub use_disk: bool,
    pub use_memory: bool,
    pub use_off_heap: bool,
    pub deserialized: bool,
    pub replication: u32,
}

impl StorageLevelInfo {
    /// `StorageLevel.NONE`: what a removed block is reported with.
    pub const NONE: StorageLevelInfo = StorageLevelInfo {
        use_disk: false,
        use_memory: false,
        use_off_heap: false,
        deserialized: false,
        replication: 1,
    };
    /// `StorageLevel.MEMORY_ONLY` (`RDD.cache()`).
    pub const MEMORY_ONLY: StorageLevelInfo = StorageLevelInfo {
        use_memory: true,
        deserialized: true,
        ..Self::NONE
    };
    /// `StorageLevel.DISK_ONLY`: a migrated shuffle file as its receiver reports it
    /// (`IndexShuffleBlockResolver.putShuffleBlockAsStream`).
    pub const DISK_ONLY: StorageLevelInfo = StorageLevelInfo {
        use_disk: true,
        ..Self::NONE
    };
    /// A broadcast piece: put `MEMORY_AND_DISK_SER` (`TorrentBroadcast.writeBlocks` /
    /// `readBlocks`), reported as where it is (`BlockManager.getCurrentBlockStatus`): in
    /// memory, serialized, not on disk (a real 4.0.0 event log's `broadcast_0_piece0`).
    pub const BROADCAST_PIECE: StorageLevelInfo = StorageLevelInfo {
        use_memory: true,
        ..Self::NONE
    };
}

/// `BlockUpdatedInfo`: one `UpdateBlockInfo` the BlockManagerMasterEndpoint accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockUpdatedInfo {
    /// `"driver"` or the executor's id.
    pub executor_id: String,
    pub host: String,
    pub port: u16,
    /// `BlockId.name`: `broadcast_0_piece0`, `rdd_2_1`.
    pub block_id: String,
    pub storage_level: StorageLevelInfo,
    pub memory_size: u64,
    pub disk_size: u64,
}

impl BlockUpdatedInfo {
    /// An update from an executor's block manager (`BlockManagerId(id, host, port)`).
    pub fn from_executor(
        at: &crate::task::BlockManagerId,
        block_id: String,
        storage_level: StorageLevelInfo,
        memory_size: u64,
        disk_size: u64,
    ) -> BlockUpdatedInfo {
        BlockUpdatedInfo {
            executor_id: at.executor_id.to_string(),
            host: at.host.clone(),
            port: at.port,
            block_id,
            storage_level,
            memory_size,
            disk_size,
        }
    }
}

/// One `SparkListenerEvent`.
/// The default profile's built-in executor requests (`ResourceProfile
/// .getDefaultExecutorResources`): cores and memory always, memoryOverhead and pyspark.memory
/// only when their keys are set, offHeap always (0 MiB when disabled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultExecutorRequests {
    pub cores: u32,
    pub memory_mb: u64,
    pub memory_overhead_mb: Option<u64>,
    pub pyspark_memory_mb: Option<u64>,
    pub offheap_mb: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ListenerEvent {
    /// `SparkListenerBlockUpdated` (BlockManagerMasterEndpoint, every accepted update); the
    /// event log writes it only with `spark.eventLog.logBlockUpdates.enabled`.
    BlockUpdated(Box<BlockUpdatedInfo>),
    LogStart {
        spark_version: String,
    },
    ResourceProfileAdded {
        executor: DefaultExecutorRequests,
        task_cpus: u32,
        /// The default profile's custom executor resources (`spark.executor.resource.*`).
        executor_custom: Vec<ExecutorResourceRequest>,
        /// Its custom task resources (`spark.task.resource.*`).
        task_custom: Vec<TaskResourceRequest>,
    },
    BlockManagerAdded {
        time: u64,
        executor_id: String,
        host: String,
        port: u16,
        max_memory: u64,
    },
    EnvironmentUpdate {
        spark_properties: Vec<(String, String)>,
        hadoop_properties: Vec<(String, String)>,
        /// The driver JVM's command line as its container started it (`{{PWD}}` unexpanded):
        /// `System.getProperties`' `-D` options and `sun.java.command` come from it.
        jvm_command: String,
    },
    ApplicationStart {
        app_name: String,
        app_id: String,
        time: u64,
        user: String,
        attempt_id: String,
        driver_logs: Vec<(String, String)>,
        /// The driver's container attributes (`Driver Attributes`).
        driver_attributes: Vec<(String, String)>,
    },
    ExecutorAdded {
        time: u64,
        /// `ExecutorInfo.requestTime`: when the backend asked for it (dynamic allocation's
        /// requests); `None` for an executor asked for by the ApplicationMaster on its own.
        request_time: Option<u64>,
        executor_id: String,
        host: String,
        total_cores: u32,
        log_urls: Vec<(String, String)>,
        /// `ExecutorInfo.attributes` (YARN's container attributes).
        attributes: Vec<(String, String)>,
        /// `ExecutorInfo.resourcesInfo`: each custom resource the executor found and its
        /// addresses (none when its profile asks for none).
        resources: Vec<ResourceInformation>,
    },
    ExecutorRemoved {
        time: u64,
        executor_id: String,
        reason: String,
    },
    /// `SparkListenerBlockManagerRemoved` (BlockManagerMasterEndpoint.removeBlockManager).
    BlockManagerRemoved {
        time: u64,
        executor_id: String,
        host: String,
        port: u16,
    },
    JobStart {
        job_id: u32,
        time: u64,
        stages: Vec<StageInfo>,
    },
    StageSubmitted {
        stage: StageInfo,
    },
    /// `SparkListenerSpeculativeTaskSubmitted` (DAGScheduler.speculativeTaskSubmitted). Spark
    /// 4.0's EventLoggingListener does not override `onSpeculativeTaskSubmitted`: it is heard
    /// by listeners (the ExecutorAllocationManager) but never written to the event log.
    SpeculativeTaskSubmitted {
        stage_id: u32,
        stage_attempt_id: u32,
        task_index: u32,
        partition_id: u32,
    },
    /// `SparkListenerUnschedulableTaskSetAdded(stageId, stageAttemptId)`
    /// (DAGScheduler.unschedulableTaskSetAdded: a task set no executor may run, with dynamic
    /// allocation). Heard by the ExecutorAllocationManager; Spark 4.0's EventLoggingListener
    /// does not override its handler, so it is never written to the event log.
    UnschedulableTaskSetAdded {
        stage_id: u32,
        stage_attempt_id: u32,
    },
    /// `SparkListenerUnschedulableTaskSetRemoved(stageId, stageAttemptId)`: a task was
    /// scheduled again. Not written to the event log either.
    UnschedulableTaskSetRemoved {
        stage_id: u32,
        stage_attempt_id: u32,
    },
    TaskStart {
        stage_id: u32,
        stage_attempt_id: u32,
        info: TaskInfo,
    },
    TaskEnd {
        stage_id: u32,
        stage_attempt_id: u32,
        shuffle_map: bool,
        reason: TaskEndReason,
        info: TaskInfo,
        run_time_ms: u64,
    },
    StageCompleted {
        stage: StageInfo,
    },
    /// `result`: `None` for JobSucceeded, `Some(message)` for JobFailed.
    JobEnd {
        job_id: u32,
        time: u64,
        result: Option<String>,
    },
    ApplicationEnd {
        time: u64,
        exit_code: i32,
    },
    /// `SparkListenerExecutorExcluded(time, executorId, taskFailures)` or its deprecated twin
    /// `SparkListenerExecutorBlacklisted` (HealthTracker: application-level exclusion).
    ExecutorExcluded {
        name: ExclusionEventName,
        time: u64,
        executor_id: String,
        task_failures: u32,
    },
    /// `SparkListenerExecutorUnexcluded(time, executorId)` / `...Unblacklisted` (the timeout).
    ExecutorUnexcluded {
        name: ExclusionEventName,
        time: u64,
        executor_id: String,
    },
    /// `SparkListenerNodeExcluded(time, hostId, executorFailures)` / `...NodeBlacklisted`.
    NodeExcluded {
        name: ExclusionEventName,
        time: u64,
        host_id: String,
        executor_failures: u32,
    },
    /// `SparkListenerNodeUnexcluded(time, hostId)` / `...NodeUnblacklisted`.
    NodeUnexcluded {
        name: ExclusionEventName,
        time: u64,
        host_id: String,
    },
    /// `SparkListenerExecutorExcludedForStage(time, executorId, taskFailures, stageId,
    /// stageAttemptId)` / `...BlacklistedForStage` (TaskSetExcludelist).
    ExecutorExcludedForStage {
        name: ExclusionEventName,
        time: u64,
        executor_id: String,
        task_failures: u32,
        stage_id: u32,
        stage_attempt_id: u32,
    },
    /// `SparkListenerNodeExcludedForStage(time, hostId, executorFailures, stageId,
    /// stageAttemptId)` / `...BlacklistedForStage`.
    NodeExcludedForStage {
        name: ExclusionEventName,
        time: u64,
        host_id: String,
        executor_failures: u32,
        stage_id: u32,
        stage_attempt_id: u32,
    },
}
