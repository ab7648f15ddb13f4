//! The validated settings a simulation runs with: Spark properties already parsed into typed
//! values, YARN's `yarn-site.xml` values, the cluster's NodeManagers and the virtual-time cost
//! model. The root crate builds these from flags and files; the actors only read them.

use crate::examples::program::Program;
use crate::examples::replayed::ReplayedApplication;
use crate::examples::synthetic::SyntheticWorkload;
use sparkyard_messages::task::JobSpec;
use std::collections::BTreeMap;

/// Spark properties that change behaviour, already parsed (units are in the field names).
#[derive(Clone, Debug, PartialEq)]
pub struct SparkSettings {
    /// `spark.app.name` (default: the main class).
    pub app_name: String,
    /// `--class`.
    pub main_class: String,
    /// The primary resource (the application jar).
    pub primary_resource: String,
    /// Arguments after the primary resource.
    pub app_args: Vec<String>,
    /// `spark.yarn.queue`.
    pub queue: String,
    /// `spark.yarn.includeDriverLogsLink` (false): the Client's RUNNING report lists the
    /// driver's log links.
    pub include_driver_logs_link: bool,
    /// `spark.yarn.historyServer.address` with its `${spark.*}` references resolved (SparkConf's
    /// ConfigReader); the AM resolves `${hadoopconf-*}` and gives YARN the history URL.
    pub history_server_address: Option<String>,
    /// `spark.yarn.am.nodeLabelExpression`: the AM container's ResourceRequest carries it.
    pub am_node_label_expression: Option<String>,
    /// `spark.yarn.executor.nodeLabelExpression`: every executor container request carries it.
    pub executor_node_label_expression: Option<String>,
    /// `spark.yarn.applicationType`, truncated to 20 characters as YARN does.
    pub application_type: String,
    /// `spark.driver.memory`, MiB.
    pub driver_memory_mb: u64,
    /// `spark.driver.memoryOverhead` if set, else max(factor x memory, minimum), MiB.
    pub driver_memory_overhead_mb: u64,
    /// `spark.driver.cores` (the AM container's vcores in cluster mode).
    pub driver_cores: u32,
    /// `spark.executor.memory`, MiB.
    pub executor_memory_mb: u64,
    /// `spark.executor.memoryOverhead` if set, else max(factor x memory, minimum), MiB.
    pub executor_memory_overhead_mb: u64,
    /// `spark.memory.offHeap.size` when `spark.memory.offHeap.enabled`, MiB.
    pub executor_offheap_mb: u64,
    /// `spark.executor.pyspark.memory`, MiB.
    pub executor_pyspark_memory_mb: u64,
    /// `spark.executor.cores`.
    pub executor_cores: u32,
    /// `spark.executor.instances` (`--num-executors`); `None` when unset (YARN then uses 2).
    pub executor_instances: Option<u32>,
    /// `spark.task.cpus`.
    pub task_cpus: u32,
    /// `spark.task.maxFailures`.
    pub task_max_failures: u32,
    /// `spark.driver.maxResultSize` (1g), bytes; 0 = unlimited: a job whose result tasks'
    /// serialized results pass it aborts (TaskSetManager.canFetchMoreResults).
    pub driver_max_result_size: u64,
    /// The executor's `maxDirectResultSize` (`spark.task.maxDirectResultSize`, 1m, at most
    /// `spark.rpc.message.maxSize`), bytes: a larger result is sent via its BlockManager.
    pub max_direct_result_size: u64,
    /// `spark.scheduler.mode` (FIFO).
    pub scheduler_mode: SchedulingMode,
    /// `spark.scheduler.allocation.file` as read at submission, in FAIR mode only (FIFO's
    /// builder reads no file); `None`: FAIR builds its pools without a file.
    pub allocation_file: Option<AllocationFile>,
    /// The shuffle's settings (external shuffle service, fetch retries, stage attempts).
    pub shuffle: ShuffleSettings,
    /// The DAGScheduler's barrier slot check's retries.
    pub barrier_check: BarrierCheckSettings,
    /// Delay scheduling's waits and reduce-task locality.
    pub locality: LocalitySettings,
    /// `spark.yarn.am.waitTime`, ms.
    pub am_wait_time_ms: u64,
    /// `spark.yarn.maxAppAttempts`; `None` means YARN's `yarn.resourcemanager.am.max-attempts`.
    pub max_app_attempts: Option<u32>,
    /// `spark.yarn.am.attemptFailuresValidityInterval`, ms; `None`: YARN's failures never expire.
    pub am_attempt_failures_validity_interval_ms: Option<u64>,
    /// `spark.yarn.tags`.
    pub application_tags: Vec<String>,
    /// `spark.yarn.priority`.
    pub application_priority: Option<u32>,
    /// `spark.executor.maxNumFailures` (alt `spark.yarn.max.executor.failures`); `None`: max(3, 2 x E).
    pub max_executor_failures: Option<u32>,
    /// `spark.executor.failuresValidityInterval`, ms; `None` = failures never expire.
    pub executor_failures_validity_interval_ms: Option<u64>,
    /// `spark.yarn.report.interval`, ms.
    pub report_interval_ms: u64,
    /// `spark.yarn.report.loggingFrequency`.
    pub report_logging_frequency: u32,
    /// `spark.yarn.submit.waitAppCompletion`.
    pub wait_app_completion: bool,
    /// `spark.yarn.scheduler.heartbeat.interval-ms`, ms.
    pub am_heartbeat_interval_ms: u64,
    /// `spark.yarn.scheduler.initial-allocation.interval`, ms.
    pub initial_allocation_interval_ms: u64,
    /// `spark.yarn.scheduler.reporterThread.maxFailures` (default 5): the RM's failures in a
    /// row after which the AM's Reporter gives up.
    pub reporter_max_failures: i32,
    /// `spark.scheduler.minRegisteredResourcesRatio` (YARN default 0.8).
    pub min_registered_resources_ratio: f64,
    /// `spark.scheduler.maxRegisteredResourcesWaitingTime`, ms.
    pub max_registered_resources_waiting_time_ms: u64,
    /// `spark.scheduler.revive.interval`, ms.
    pub revive_interval_ms: u64,
    /// `spark.rpc.askTimeout` (falls back to `spark.network.timeout`), ms, and the key that set it.
    pub ask_timeout_ms: u64,
    /// The property named in RpcTimeoutException texts (`spark.rpc.askTimeout` or `spark.network.timeout`).
    pub ask_timeout_property: String,
    /// `spark.rpc.lookupTimeout` (falls back to `spark.network.timeout`), ms.
    pub lookup_timeout_ms: u64,
    /// The property named in lookup timeouts.
    pub lookup_timeout_property: String,
    /// `spark.network.timeout`, ms.
    pub network_timeout_ms: u64,
    /// `spark.executor.heartbeatInterval`, ms.
    pub executor_heartbeat_interval_ms: u64,
    /// `spark.yarn.exclude.nodes`.
    pub exclude_nodes: Vec<String>,
    /// `spark.yarn.executor.launch.excludeOnFailure.enabled`.
    pub launch_exclude_on_failure: bool,
    /// `spark.excludeOnFailure.application.maxFailedExecutorsPerNode`.
    pub max_failed_executors_per_node: u32,
    /// `spark.excludeOnFailure.timeout`, ms.
    pub exclude_on_failure_timeout_ms: u64,
    /// `spark.eventLog.enabled`.
    pub event_log_enabled: bool,
    /// `spark.eventLog.dir`.
    pub event_log_dir: String,
    /// What `EventLoggingListener.start` throws in the SparkContext's constructor when the
    /// directory the event log goes to is missing or not a directory (the filesystem's answer,
    /// taken before the run); `None` when it is there, or event logging is off.
    pub event_log_dir_error: Option<String>,
    /// `spark.eventLog.compress`.
    pub event_log_compress: bool,
    /// `spark.eventLog.rolling.maxFileSize` in bytes when `spark.eventLog.rolling.enabled`
    /// (Spark 4.0's default: rolling, 128m), `None` for the single-file writer.
    pub event_log_rolling_max_file_size: Option<u64>,
    /// Every Spark property after precedence, as the driver hands them to executors
    /// (`SparkAppConfig.sparkProperties`). Ordered by key.
    pub properties: BTreeMap<String, String>,
    /// `spark.dynamicAllocation.*` when `spark.dynamicAllocation.enabled` is true.
    pub dynamic_allocation: Option<DynamicAllocationSettings>,
    /// `spark.decommission.enabled`.
    pub decommission_enabled: bool,
    /// `spark.executor.decommission.forceKillTimeout` (`timeConf(SECONDS)`, unset by default):
    /// how long the driver lets a decommissioning executor run before it kills it.
    pub decommission_force_kill_timeout_s: Option<u64>,
    /// `spark.speculation.*` when `spark.speculation` is true (`None`: off, nothing runs).
    pub speculation: Option<SpeculationSettings>,
    /// The `spark.excludeOnFailure.*` keys (HealthTracker, TaskSetExcludelist).
    pub exclude_on_failure: ExcludeOnFailureConf,
    /// `spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout` (`timeConf(SECONDS)`,
    /// 120s), ms: how long TaskSchedulerImpl waits for a completely excluded task set.
    pub unschedulable_task_set_timeout_ms: u64,
}

/// The exclusion keys as Spark's ConfigEntries type them (`None`: an OptionalConfigEntry that
/// is unset; the int keys carry their defaults), read from the application's conf by its
/// caller, which reports a value of the wrong type with Spark's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExcludeOnFailureConf {
    /// `spark.excludeOnFailure.enabled` / `spark.blacklist.enabled`.
    pub enabled: Option<bool>,
    /// `spark.excludeOnFailure.application.enabled` (new in 4.0.0).
    pub application_enabled: Option<bool>,
    /// `spark.excludeOnFailure.taskAndStage.enabled` (new in 4.0.0).
    pub task_and_stage_enabled: Option<bool>,
    /// `spark.excludeOnFailure.timeout` / `spark.blacklist.timeout`, ms.
    pub timeout_ms: Option<i64>,
    /// `spark.scheduler.executorTaskExcludeOnFailureTime` /
    /// `spark.scheduler.executorTaskBlacklistTime`, ms.
    pub legacy_timeout_ms: Option<i64>,
    /// The per-task and per-stage limits (signed: a value <= 0 is refused by validation).
    pub max_task_attempts_per_executor: i32,
    pub max_task_attempts_per_node: i32,
    pub max_failures_per_exec_stage: i32,
    pub max_failed_exec_per_node_stage: i32,
    /// `spark.excludeOnFailure.application.maxFailedTasksPerExecutor`, default 2.
    pub max_failures_per_exec: i32,
    /// `spark.excludeOnFailure.application.maxFailedExecutorsPerNode`, default 2.
    pub max_failed_exec_per_node: i32,
    /// `spark.task.maxFailures`, default 4.
    pub task_max_failures: i32,
    /// `spark.excludeOnFailure.killExcludedExecutors`, default false.
    pub kill_excluded_executors: bool,
    /// `spark.excludeOnFailure.killExcludedExecutors.decommission`, default false.
    pub kill_decommission: bool,
    /// `spark.excludeOnFailure.application.fetchFailure.enabled`, default false.
    pub fetch_failure_enabled: bool,
    /// `spark.shuffle.service.enabled`: a fetch failure then excludes the whole node.
    pub shuffle_service_enabled: bool,
}

impl Default for ExcludeOnFailureConf {
    /// Spark 4.0.0's defaults (`internal/config/package$`).
    fn default() -> Self {
        ExcludeOnFailureConf {
            enabled: None,
            application_enabled: None,
            task_and_stage_enabled: None,
            timeout_ms: None,
            legacy_timeout_ms: None,
            max_task_attempts_per_executor: 1,
            max_task_attempts_per_node: 2,
            max_failures_per_exec_stage: 2,
            max_failed_exec_per_node_stage: 2,
            max_failures_per_exec: 2,
            max_failed_exec_per_node: 2,
            task_max_failures: 4,
            kill_excluded_executors: false,
            kill_decommission: false,
            fetch_failure_enabled: false,
            shuffle_service_enabled: false,
        }
    }
}

/// The `spark.speculation.*` keys, parsed; `Default` is Spark 4.0's defaults
/// (`internal/config/package.scala`, read from the 4.0.0 jar: multiplier 3.0 and quantile 0.9
/// since Spark 4.0, not 1.5 / 0.75 as in 3.x).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeculationSettings {
    /// `spark.speculation.interval` (100 ms): how often running tasks are checked.
    pub interval_ms: u64,
    /// `spark.speculation.multiplier` (3.0): times the median successful duration.
    pub multiplier: f64,
    /// `spark.speculation.quantile` (0.9): the fraction of tasks that must have succeeded.
    pub quantile: f64,
    /// `spark.speculation.minTaskRuntime` (100 ms): the threshold's floor.
    pub min_task_runtime_ms: u64,
    /// `spark.speculation.task.duration.threshold` (unset).
    pub task_duration_threshold_ms: Option<u64>,
    /// `spark.speculation.efficiency.enabled` (true).
    pub efficiency_enabled: bool,
    /// `spark.speculation.efficiency.processRateMultiplier` (0.75, in (0, 1]).
    pub efficiency_process_rate_multiplier: f64,
    /// `spark.speculation.efficiency.longRunTaskFactor` (2.0, >= 1).
    pub efficiency_long_run_task_factor: f64,
    /// The default profile's `maxTasksPerExecutor` (`spark.executor.cores` / `spark.task.cpus`,
    /// at least 1, or fewer when a GPU limits them): the slots of one executor, which
    /// `speculationTasksLessEqToSlots` compares a stage's task count with.
    pub slots_per_executor: u32,
    /// `spark.executor.decommission.killInterval` (`timeConf(SECONDS)`, unset), in ms
    /// (TaskSetManager's `executorDecommissionKillInterval`): a task on a decommissioning
    /// executor that would not finish before it is killed is speculatable.
    pub decommission_kill_interval_ms: Option<u64>,
}

impl Default for SpeculationSettings {
    fn default() -> Self {
        SpeculationSettings {
            interval_ms: 100,
            multiplier: 3.0,
            quantile: 0.9,
            min_task_runtime_ms: 100,
            task_duration_threshold_ms: None,
            efficiency_enabled: true,
            efficiency_process_rate_multiplier: 0.75,
            efficiency_long_run_task_factor: 2.0,
            slots_per_executor: 1,
            decommission_kill_interval_ms: None,
        }
    }
}

/// The `spark.dynamicAllocation.*` keys (and the switches `validateSettings` reads), parsed;
/// `Default` is Spark 4.0's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicAllocationSettings {
    /// `spark.dynamicAllocation.minExecutors` (0).
    pub min_executors: u32,
    /// `spark.dynamicAllocation.maxExecutors` (Int.MaxValue).
    pub max_executors: u32,
    /// `spark.dynamicAllocation.initialExecutors` (falls back to minExecutors).
    pub initial_executors: Option<u32>,
    /// `spark.dynamicAllocation.schedulerBacklogTimeout` (1 s), seconds.
    pub scheduler_backlog_timeout_s: u64,
    /// `spark.dynamicAllocation.sustainedSchedulerBacklogTimeout` (the backlog timeout), seconds.
    pub sustained_scheduler_backlog_timeout_s: u64,
    /// `spark.dynamicAllocation.executorIdleTimeout` (60 s), seconds.
    pub executor_idle_timeout_s: u64,
    /// `spark.dynamicAllocation.cachedExecutorIdleTimeout` (Int.MaxValue s), seconds.
    pub cached_executor_idle_timeout_s: u64,
    /// `spark.dynamicAllocation.executorAllocationRatio` (1.0).
    pub executor_allocation_ratio: f64,
    /// `spark.dynamicAllocation.shuffleTracking.enabled` (true since Spark 3.4).
    pub shuffle_tracking_enabled: bool,
    /// `spark.dynamicAllocation.shuffleTracking.timeout`, ms (`None`: Long.MaxValue).
    pub shuffle_tracking_timeout_ms: Option<u64>,
    /// `spark.shuffle.service.enabled` (false).
    pub shuffle_service_enabled: bool,
    /// `spark.decommission.enabled` (false).
    pub decommission_enabled: bool,
    /// `spark.storage.decommission.shuffleBlocks.enabled` (true).
    pub storage_decommission_shuffle_blocks: bool,
}

impl Default for DynamicAllocationSettings {
    fn default() -> Self {
        DynamicAllocationSettings {
            min_executors: 0,
            max_executors: i32::MAX as u32,
            initial_executors: None,
            scheduler_backlog_timeout_s: 1,
            sustained_scheduler_backlog_timeout_s: 1,
            executor_idle_timeout_s: 60,
            cached_executor_idle_timeout_s: i32::MAX as u64,
            executor_allocation_ratio: 1.0,
            shuffle_tracking_enabled: true,
            shuffle_tracking_timeout_ms: None,
            shuffle_service_enabled: false,
            decommission_enabled: false,
            storage_decommission_shuffle_blocks: true,
        }
    }
}

/// `spark.scheduler.barrier.maxConcurrentTasksCheck.*`: how often and how many times the
/// DAGScheduler checks again that a job's barrier stage has enough slots (Spark's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierCheckSettings {
    /// `.interval` (15s), ms.
    pub interval_ms: u64,
    /// `.maxFailures` (40).
    pub max_failures: u32,
}

impl Default for BarrierCheckSettings {
    fn default() -> Self {
        BarrierCheckSettings {
            interval_ms: 15_000,
            max_failures: 40,
        }
    }
}

/// The shuffle's settings, with Spark's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleSettings {
    /// `spark.shuffle.service.enabled` (false): map outputs are served by the NodeManager's
    /// `spark_shuffle` aux service, so they outlive their executor.
    pub service_enabled: bool,
    /// `spark.shuffle.service.port` (7337).
    pub service_port: u16,
    /// `spark.stage.maxConsecutiveAttempts` (4): fetch-failed attempts before the stage aborts.
    pub max_consecutive_stage_attempts: u32,
    /// `DAGScheduler.maxStageAttempts` (Spark 4.0.0's jar, the constructor): `Math.max` of
    /// `spark.stage.maxConsecutiveAttempts` and `spark.stage.maxAttempts` (Int.MaxValue, since
    /// 3.5.0); `submitStage` aborts a stage whose next attempt would reach it.
    pub max_stage_attempts: u32,
    /// `spark.shuffle.io.maxRetries` (3) and `spark.shuffle.io.retryWait` (5 s): a fetch from a
    /// server that does not answer fails after the retries.
    pub io_max_retries: u32,
    pub io_retry_wait_ms: u64,
    /// `spark.files.fetchFailure.unRegisterOutputOnHost` (false): with the shuffle service, a
    /// fetch failure unregisters every output of the host, not only the executor's.
    pub unregister_output_on_host_on_fetch_failure: bool,
    /// `spark.stage.ignoreDecommissionFetchFailure` (true in 4.0): a FetchFailed from an
    /// executor being decommissioned does not count toward `maxConsecutiveAttempts`.
    pub ignore_decommission_fetch_failure: bool,
    /// What a reduce task's ShuffleBlockFetcherIterator is built with.
    pub fetch: FetchSettings,
}

/// The limits `BlockStoreShuffleReader.read` hands its `ShuffleBlockFetcherIterator`, and
/// whether the BlockManager reads host-local shuffle files from disk (Spark 4.0.0's jar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchSettings {
    /// `spark.reducer.maxSizeInFlight` (48m; `bytesConf(MiB)`, times 1024 * 1024): bytes the
    /// remote requests in flight may hold. Signed: `ConfigHelpers.byteFromString` takes a
    /// leading `-`.
    pub max_bytes_in_flight: i64,
    /// `spark.reducer.maxReqsInFlight` (Int.MaxValue): remote requests in flight at once.
    pub max_reqs_in_flight: i32,
    /// `spark.reducer.maxBlocksInFlightPerAddress` (Int.MaxValue, positive): blocks one
    /// request, and the requests in flight to one address, may hold.
    pub max_blocks_in_flight_per_address: u32,
    /// `spark.shuffle.readHostLocalDisk` (true): BlockManager.initialize makes a
    /// `hostLocalDirManager`, so blocks another executor of this host wrote are read from its
    /// local dirs instead of fetched remotely.
    pub read_host_local_disk: bool,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            max_bytes_in_flight: 48 << 20,
            max_reqs_in_flight: i32::MAX,
            max_blocks_in_flight_per_address: i32::MAX as u32,
            read_host_local_disk: true,
        }
    }
}

impl Default for ShuffleSettings {
    fn default() -> Self {
        ShuffleSettings {
            service_enabled: false,
            service_port: 7337,
            max_consecutive_stage_attempts: 4,
            max_stage_attempts: i32::MAX as u32,
            io_max_retries: 3,
            io_retry_wait_ms: 5000,
            unregister_output_on_host_on_fetch_failure: false,
            ignore_decommission_fetch_failure: true,
            fetch: FetchSettings::default(),
        }
    }
}

/// `spark.locality.wait` and its per-level keys, `spark.shuffle.reduceLocality.enabled`;
/// `Default` is Spark 4.0's (config/package.scala: LOCALITY_WAIT 3s, the per-level keys fall back
/// to it; SHUFFLE_REDUCE_LOCALITY_ENABLE true).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalitySettings {
    /// `spark.locality.wait.process`, ms.
    pub wait_process_ms: u64,
    /// `spark.locality.wait.node`, ms.
    pub wait_node_ms: u64,
    /// `spark.locality.wait.rack`, ms.
    pub wait_rack_ms: u64,
    /// `spark.shuffle.reduceLocality.enabled`.
    pub reduce_locality_enabled: bool,
    /// `spark.locality.wait.legacyResetOnTaskLaunch` (false): reset the wait on every launch
    /// instead of only when no offer was rejected for locality.
    pub legacy_reset_on_task_launch: bool,
}

impl Default for LocalitySettings {
    fn default() -> Self {
        LocalitySettings {
            wait_process_ms: 3000,
            wait_node_ms: 3000,
            wait_rack_ms: 3000,
            reduce_locality_enabled: true,
            legacy_reset_on_task_launch: false,
        }
    }
}

/// `ResourceProfile.maxTasksPerExecutor` of the default profile: an executor's cores over the
/// cores a task takes, at least 1 (the allocation manager's and the allocator's task slots).
pub fn max_tasks_per_executor(executor_cores: u32, task_cpus: u32) -> u32 {
    (executor_cores / task_cpus.max(1)).max(1)
}

impl SparkSettings {
    /// The AM container's memory in cluster mode: driver memory plus its overhead, MiB.
    pub fn am_container_memory_mb(&self) -> u64 {
        self.driver_memory_mb + self.driver_memory_overhead_mb
    }

    /// What YarnAllocator asks for per executor: heap + overhead + off-heap + PySpark, MiB.
    pub fn executor_container_memory_mb(&self) -> u64 {
        self.executor_memory_mb
            + self.executor_memory_overhead_mb
            + self.executor_offheap_mb
            + self.executor_pyspark_memory_mb
    }

    /// `SchedulerBackendUtils.getInitialTargetExecutorNumber`: with dynamic allocation
    /// max(min, initial, spark.executor.instances); else `spark.executor.instances`, or 2.
    pub fn initial_target_executors(&self) -> u32 {
        match &self.dynamic_allocation {
            Some(d) => d
                .min_executors
                .max(d.initial_executors.unwrap_or(d.min_executors))
                .max(self.executor_instances.unwrap_or(0)),
            None => self.executor_instances.unwrap_or(2),
        }
    }

    /// `ExecutorFailureTracker.maxNumExecutorFailures`: `spark.executor.maxNumFailures`, else
    /// max(3, 2 x E) where E is maxExecutors with dynamic allocation (2 x Int.MaxValue
    /// saturating at Int.MaxValue), else `spark.executor.instances` (0 when unset).
    pub fn effective_max_executor_failures(&self) -> u32 {
        max_num_executor_failures(
            self.max_executor_failures,
            self.dynamic_allocation.map(|d| d.max_executors),
            self.executor_instances,
        )
    }
}

/// `ExecutorFailureTracker.maxNumExecutorFailures`: the explicit setting, else max(3, 2 x E),
/// E = maxExecutors with dynamic allocation, else spark.executor.instances (0 when unset); a
/// doubled E past Int.MaxValue / 2 is Int.MaxValue (Spark avoids the overflow).
pub fn max_num_executor_failures(
    explicit: Option<u32>,
    dynamic_max_executors: Option<u32>,
    executor_instances: Option<u32>,
) -> u32 {
    let effective = dynamic_max_executors.unwrap_or(executor_instances.unwrap_or(0));
    let default = if effective > i32::MAX as u32 / 2 {
        i32::MAX as u32
    } else {
        3.max(2 * effective)
    };
    explicit.unwrap_or(default)
}

/// `yarn-site.xml` values the simulated ResourceManager and NodeManagers honour.
#[derive(Clone, Debug)]
pub struct YarnSettings {
    /// `yarn.scheduler.minimum-allocation-mb` (also the rounding step).
    pub minimum_allocation_mb: u64,
    /// `yarn.scheduler.maximum-allocation-mb`.
    pub maximum_allocation_mb: u64,
    /// `yarn.scheduler.minimum-allocation-vcores`.
    pub minimum_allocation_vcores: u32,
    /// `yarn.scheduler.maximum-allocation-vcores`.
    pub maximum_allocation_vcores: u32,
    /// `yarn.resourcemanager.am.max-attempts`.
    pub am_max_attempts: u32,
    /// `yarn.nm.liveness-monitor.expiry-interval-ms`.
    pub nm_liveness_expiry_interval_ms: u64,
    /// `yarn.am.liveness-monitor.expiry-interval-ms` (caps the AM heartbeat at half of it).
    pub am_liveness_expiry_interval_ms: u64,
    /// `yarn.resourcemanager.nodemanagers.heartbeat-interval-ms`.
    pub nm_heartbeat_interval_ms: u64,
    /// `yarn.nodemanager.sleep-delay-before-sigkill.ms`: how long a stopped container's JVM
    /// has for its shutdown hooks between SIGTERM and SIGKILL.
    pub sleep_delay_before_sigkill_ms: u64,
    /// `yarn.node-labels.enabled`: whether the RM accepts node label expressions at all.
    pub node_labels_enabled: bool,
    /// `yarn.resource-types` names `yarn.io/gpu`: the RM (and Spark's client, whose
    /// `ResourceUtils` reads the same configuration) knows the GPU resource type.
    pub gpu_resource_type: bool,
    /// `yarn.resource-types.yarn.io/gpu.maximum-allocation` (`ResourceUtils`' default for a
    /// countable type: `Long.MAX_VALUE`).
    pub gpu_maximum_allocation: u64,
    /// `yarn.cluster.max-application-priority` (0): the highest application priority the
    /// CapacityScheduler grants; a higher one asked for is lowered to it.
    pub max_application_priority: u32,
    /// The CapacityScheduler's leaf queues under `root` (`capacity-scheduler.xml`); a single
    /// `default` queue at 100 % when the cluster file names none.
    pub queues: Vec<QueueSpec>,
    /// Other tenants' applications holding containers in a queue for a while (`[[tenants]]`).
    pub tenants: Vec<TenantLoad>,
    /// How many containers one NodeManager heartbeat may get
    /// (`yarn.scheduler.capacity.per-node-heartbeat.*`).
    pub heartbeat_assignments: HeartbeatAssignments,
    /// The leaf queues' locality delays (`yarn.scheduler.capacity.node-locality-delay` and its
    /// two companions).
    pub locality_delays: LocalityDelays,
}

/// `capacity-scheduler.xml`'s per-node-heartbeat keys, read by `CapacityScheduler.reinitialize`
/// (`assignMultipleEnabled`, `maxAssignPerHeartbeat`, `offswitchPerHeartbeatLimit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeartbeatAssignments {
    /// `per-node-heartbeat.multiple-assignments-enabled` (true).
    pub multiple_assignments_enabled: bool,
    /// `per-node-heartbeat.maximum-container-assignments` (100 in Hadoop 3.4; -1: no limit).
    pub maximum_container_assignments: i64,
    /// `per-node-heartbeat.maximum-offswitch-assignments` (1; Hadoop uses 1 for a value < 1).
    pub maximum_offswitch_assignments: u32,
}

impl Default for HeartbeatAssignments {
    /// CapacitySchedulerConfiguration's defaults (DEFAULT_ASSIGN_MULTIPLE_ENABLED,
    /// DEFAULT_MAX_ASSIGN_PER_HEARTBEAT, DEFAULT_OFFSWITCH_PER_HEARTBEAT_LIMIT).
    fn default() -> Self {
        HeartbeatAssignments {
            multiple_assignments_enabled: true,
            maximum_container_assignments: 100,
            maximum_offswitch_assignments: 1,
        }
    }
}

/// The leaf queues' locality delays (`CapacitySchedulerConfiguration`:
/// `yarn.scheduler.capacity.node-locality-delay`, `.rack-locality-additional-delay`,
/// `.rack-locality-full-reset`), Hadoop's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalityDelays {
    /// Missed opportunities before a rack-local container (`DEFAULT_NODE_LOCALITY_DELAY`, 40).
    pub node_locality_delay: u64,
    /// Further missed opportunities before an off-switch one; `None` is Hadoop's -1 (the
    /// wait then scales with the asks: `getLocalityWaitFactor`).
    pub rack_locality_additional_delay: Option<u64>,
    /// A rack-local container resets the missed opportunities (`DEFAULT_RACK_LOCALITY_FULL_RESET`).
    pub rack_locality_full_reset: bool,
}

impl Default for LocalityDelays {
    fn default() -> Self {
        LocalityDelays {
            node_locality_delay: 40,
            rack_locality_additional_delay: None,
            rack_locality_full_reset: true,
        }
    }
}

/// Another tenant's application in a CapacityScheduler queue: submitted at `start_ms` of the
/// virtual clock by `user`, it asks for an AM container of `am_memory_mb` and `containers`
/// containers of `memory_mb` / `vcores`, holds what it got and finishes `duration_ms` after
/// its submission, when every container it holds goes back to the cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct TenantLoad {
    pub user: String,
    pub queue: String,
    pub start_ms: u64,
    pub duration_ms: u64,
    pub am_memory_mb: u64,
    pub containers: u32,
    pub memory_mb: u64,
    pub vcores: u32,
    /// The node label of its containers' requests (its AM runs in the default partition).
    pub node_label: Option<String>,
}

/// One CapacityScheduler leaf queue (`yarn.scheduler.capacity.root.<name>.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpec {
    pub name: String,
    /// `capacity`, percent of the cluster.
    pub capacity: f64,
    /// `maximum-capacity`, percent (100 when unset).
    pub maximum_capacity: f64,
    /// `maximum-am-resource-percent` (0.1 when unset), a fraction.
    pub maximum_am_resource_percent: f64,
    /// `user-limit-factor` (1 when unset; -1 disables the limit, as `UsersManager
    /// .computeUserLimit` reads it).
    pub user_limit_factor: f64,
    /// `minimum-user-limit-percent` (100 when unset): each active user's floor share of the
    /// queue, in percent (`UsersManager.computeUserLimit`).
    pub minimum_user_limit_percent: f64,
    /// `accessible-node-labels` (Hadoop's comma-separated list); `None` when unset: the leaf
    /// inherits root's `*` (every label).
    pub accessible_node_labels: Option<Vec<String>>,
    /// `accessible-node-labels.<label>.*`: the queue's share of each labelled partition
    /// (a label not listed has capacity 0 and maximum capacity 100, as Hadoop's defaults).
    pub label_capacities: BTreeMap<String, LabelCapacity>,
    /// `default-node-label-expression`: the label of the requests that carry none.
    pub default_node_label_expression: Option<String>,
}

/// A queue's share of one labelled partition (`accessible-node-labels.<label>.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelCapacity {
    /// `capacity`, percent of the partition (default 0).
    pub capacity: f64,
    /// `maximum-capacity`, percent (default 100).
    pub maximum_capacity: f64,
    /// `maximum-am-resource-percent`, a fraction (default the queue's).
    pub maximum_am_resource_percent: f64,
}

impl QueueSpec {
    /// Hadoop's label check of a request in this queue
    /// (`SchedulerUtils.checkQueueLabelExpression`): `*` or the label among its accessible
    /// labels (an unset list inherits root's `*`).
    pub fn can_access_label(&self, label: &str) -> bool {
        self.accessible_node_labels
            .as_ref()
            .is_none_or(|l| l.iter().any(|x| x == "*" || x == label))
    }

    /// The queue's share of `label`'s partition (Hadoop's defaults when not configured).
    pub fn label_capacity(&self, label: &str) -> LabelCapacity {
        self.label_capacities
            .get(label)
            .cloned()
            .unwrap_or(LabelCapacity {
                capacity: 0.0,
                maximum_capacity: 100.0,
                maximum_am_resource_percent: self.maximum_am_resource_percent,
            })
    }
}

impl QueueSpec {
    /// CapacitySchedulerConfiguration's defaults for a queue of `capacity` percent.
    pub fn with_capacity(name: &str, capacity: f64) -> Self {
        QueueSpec {
            name: name.to_string(),
            capacity,
            maximum_capacity: 100.0,
            maximum_am_resource_percent: 0.1,
            user_limit_factor: 1.0,
            minimum_user_limit_percent: 100.0,
            accessible_node_labels: None,
            label_capacities: BTreeMap::new(),
            default_node_label_expression: None,
        }
    }
}

impl YarnSettings {
    /// `CapacityScheduler.getQueue`: a leaf queue by its short name or its full path
    /// (`root.<name>`).
    pub fn queue(&self, name: &str) -> Option<&QueueSpec> {
        let short = name.strip_prefix("root.").unwrap_or(name);
        self.queues.iter().find(|q| q.name == short)
    }

    /// The queues' names, comma-separated, as an error lists them.
    pub fn queue_names(&self) -> String {
        let names: Vec<&str> = self.queues.iter().map(|q| q.name.as_str()).collect();
        names.join(", ")
    }
}

/// One NodeManager of the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSpec {
    pub host: String,
    pub rack: String,
    /// `yarn.nodemanager.resource.memory-mb`.
    pub memory_mb: u64,
    /// `yarn.nodemanager.resource.cpu-vcores`.
    pub vcores: u32,
    /// Its node label (`yarn rmadmin -replaceLabelsOnNode`): the exclusive partition it
    /// belongs to; `None` is the default partition.
    pub label: Option<String>,
    /// Its `yarn.io/gpu` count: the GPUs the NodeManager's GPU plugin
    /// (`yarn.nodemanager.resource-plugins = yarn.io/gpu`) discovers and registers; 0 without
    /// the plugin.
    pub gpus: u32,
}

/// Virtual-time costs of the things real clusters spend time on. All in milliseconds unless the
/// name says otherwise.
#[derive(Clone, Debug)]
pub struct CostModel {
    /// One network hop between two processes.
    pub network_latency_ms: u64,
    /// NodeManager: localisation and launch_container.sh, from StartContainers to the JVM exec.
    pub container_launch_ms: u64,
    /// NodeManager: downloading an application's resources (`__spark_libs__`, `__spark_conf__`,
    /// the jar) to a node that has not run a container of it yet, on top of
    /// `container_launch_ms`; a container arriving during the download waits for its end, later
    /// ones pay nothing (`hadoop_yarn::localization`). Zero (the default): none.
    pub localization_ms: u64,
    /// NodeManager: the grace of the `docker stop` that ends a killed Docker container
    /// (`YARN_CONTAINER_RUNTIME_TYPE=docker`) in Hadoop 3.1's `DockerLinuxContainerRuntime`:
    /// its JVM gets no SIGTERM and dies by SIGKILL this long after the kill
    /// (`hadoop_yarn::container_runtime`). Zero (the default): SIGTERM as for any container.
    pub docker_stop_grace_ms: u64,
    /// JVM start until `main` runs.
    pub jvm_start_ms: u64,
    /// The driver's SparkContext constructor (SparkEnv, BlockManager, UI, event log).
    pub spark_context_init_ms: u64,
    /// An executor's SparkEnv creation after it has the driver's config.
    pub executor_env_init_ms: u64,
    /// An executor's `Executor` construction after `RegisteredExecutor` (its BlockManager's
    /// registration with the driver, plugins, metrics), before it sends `LaunchedExecutor`
    /// and the driver offers it tasks. Zero (cluster files): none; a replay takes it from its
    /// log (`replay::simulate::recorded_executor_init_ms`).
    pub executor_init_ms: u64,
    /// Deserialising and starting one task on an executor.
    pub task_launch_overhead_ms: u64,
    /// Extra time for the first task an executor runs (class loading, JIT warm-up).
    pub first_task_warmup_ms: u64,
    /// SparkPi: the cost of one dart, nanoseconds.
    pub sparkpi_dart_ns: u64,
    /// SparkPi throws its darts for real (its estimate then varies with the seed, as Spark's
    /// does); `false` counts each task's expected hits instead (π/4 of its darts), which costs
    /// nothing in wall time and changes no virtual time.
    pub sparkpi_real_darts: bool,
    /// Extra JVM start of executor k (1-based id), taken at `(k - 1) % len`: a replayed event
    /// log's spread of executor start-ups (each executor's registration after the first one's).
    /// Empty (cluster files): none.
    pub executor_start_spread_ms: Vec<u64>,
    /// Extra JVM start of the application's first executors (ids `1..=count`): a replayed
    /// dynamic-allocation log whose first executors took longer after the application started
    /// than its later ones after their job asked for them. Zero (cluster files): none.
    pub first_executors_extra: FirstExecutorsExtra,
}

/// See [`CostModel::first_executors_extra`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstExecutorsExtra {
    /// How many of the first executors take it (Spark's initial target in the log).
    pub count: u32,
    /// How much longer each of them takes to start, ms.
    pub ms: u64,
}

impl CostModel {
    /// JVM start of executor `id` (1-based): the common start plus its share of the spread (and
    /// the first executors' extra, [`FirstExecutorsExtra`]).
    pub fn executor_jvm_start_ms(&self, id: u32) -> u64 {
        let spread = &self.executor_start_spread_ms;
        let extra = match spread.len() {
            0 => 0,
            n => spread[(id.saturating_sub(1) as usize) % n],
        };
        let first = &self.first_executors_extra;
        let early = if id <= first.count { first.ms } else { 0 };
        self.jvm_start_ms + extra + early
    }
}

/// Everything a simulation needs.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub spark: SparkSettings,
    pub yarn: YarnSettings,
    pub nodes: Vec<NodeSpec>,
    pub costs: CostModel,
    /// The ResourceManager's host name.
    pub rm_host: String,
    /// The RM's start time, epoch ms: the cluster timestamp in application ids and time zero of
    /// the virtual clock.
    pub rm_start_time_ms: u64,
    /// The user that submits (`user:` in reports, container log paths).
    pub user: String,
    /// The one seed every random choice of the run derives from.
    pub seed: u64,
    /// Capture each container's stdout/stderr in memory (turned off by benchmarks).
    pub capture_container_logs: bool,
    /// A synthetic application (scenario workloads) run for any `--class` other than SparkPi.
    pub synthetic: Option<UserProgram>,
    /// A replayed log's placement (`sparkyard replay`): the recorded host of each executor in
    /// allocation order (the log's executor ids), as labels (same label, same host); the RM
    /// gives the first attempt's executor containers nodes that stand for them
    /// (`capacity_scheduler::recorded_placement`). `None`: YARN's own placement.
    pub recorded_placement: Option<std::rc::Rc<[Option<u32>]>>,
}

/// A user program sparkyard can run as `--class`.
#[derive(Clone, Debug)]
pub enum UserProgram {
    /// One of Spark's examples (`crate::examples::EXAMPLES`): SparkPi, GroupByTest,
    /// SkewedGroupByTest, SparkLR, SparkTC, by its class.
    Example { class: String },
    /// A synthetic application: its jobs, run one after the other.
    Synthetic {
        class: String,
        app_name: String,
        jobs: Vec<JobSpec>,
    },
    /// An application replayed from a Spark event log (`sparkyard replay`), or a scenario
    /// workload whose jobs name FAIR pools or run concurrently: its jobs in submission order, each submitted the driver's own time after what it followed in the log
    /// (the start, an earlier job's end, or an earlier job's submission: jobs submitted while
    /// others ran run concurrently), and the driver's time after the last job ended before
    /// `SparkContext.stop()`.
    Replay {
        class: String,
        app_name: String,
        jobs: Vec<ReplayedJob>,
        driver_ms_after_last_job: u64,
    },
}

pub use crate::examples::replayed::{JobAnchor, RecordedCancel, ReplayedJob};

/// `SchedulingMode`: how TaskSchedulerImpl's root pool orders what it schedules
/// (`spark.scheduler.mode`; `spark_core::scheduler::pool` builds FAIR's pools).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SchedulingMode {
    #[default]
    Fifo,
    Fair,
}

impl SchedulingMode {
    /// `SchedulingMode.withName` of `spark.scheduler.mode`, which the config entry upper-cases
    /// first (Spark 4.0.0: `fair` is FAIR); anything else fails the SparkContext with
    /// `SparkCoreErrors.unrecognizedSchedulerModePropertyError`'s text.
    pub fn parse(value: &str) -> Result<SchedulingMode, String> {
        match value.to_uppercase().as_str() {
            "FIFO" => Ok(SchedulingMode::Fifo),
            "FAIR" => Ok(SchedulingMode::Fair),
            other => Err(format!("Unrecognized spark.scheduler.mode: {other}")),
        }
    }

    /// The enumeration value's name, as Spark prints it.
    pub fn name(self) -> &'static str {
        match self {
            SchedulingMode::Fifo => "FIFO",
            SchedulingMode::Fair => "FAIR",
        }
    }
}

/// `spark.scheduler.allocation.file`, read as `FairSchedulableBuilder.buildFairSchedulerPool`
/// reads it: the property's value (as the driver's lines print it) and its pools in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocationFile {
    pub path: String,
    pub pools: Vec<PoolConfig>,
}

/// One `<pool name="...">` of an allocation file: its values after the defaults replaced what
/// was blank or invalid (FIFO, minShare 0, weight 1), and what was replaced, in the order
/// Spark warns of it (schedulingMode, minShare, weight).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    pub name: String,
    pub mode: SchedulingMode,
    pub min_share: i32,
    pub weight: i32,
    pub replaced: Vec<ReplacedPoolValue>,
}

/// A pool's value the file left blank or gave an invalid value (the text found, trimmed; the
/// scheduling mode's upper-cased as Spark does), for which the default was used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplacedPoolValue {
    SchedulingMode { found: String },
    MinShare { found: String },
    Weight { found: String },
}

impl UserProgram {
    /// The user's `main` a submission runs: an example's program, the synthetic workload or
    /// the replayed application (`load_class` only gives an example's class; an unknown one is
    /// a program of no job, which stops).
    pub(crate) fn into_program(self) -> Box<dyn Program> {
        match self {
            UserProgram::Example { class } => {
                crate::examples::example(&class).unwrap_or_else(|| {
                    Box::new(SyntheticWorkload {
                        app_name: class,
                        jobs: Vec::new(),
                    })
                })
            }
            UserProgram::Synthetic { app_name, jobs, .. } => {
                Box::new(SyntheticWorkload { app_name, jobs })
            }
            UserProgram::Replay {
                app_name,
                jobs,
                driver_ms_after_last_job,
                ..
            } => Box::new(ReplayedApplication::new(
                app_name,
                jobs,
                driver_ms_after_last_job,
            )),
        }
    }
}

impl SimConfig {
    /// `loadClass(--class)`: an example, or the run's synthetic application if its class is
    /// asked for; `None` is Spark's `ClassNotFoundException`.
    pub fn load_class(&self, class: &str) -> Option<UserProgram> {
        if crate::examples::simulated_classes().any(|c| c == class) {
            return Some(UserProgram::Example {
                class: class.to_string(),
            });
        }
        match &self.synthetic {
            Some(p @ UserProgram::Synthetic { class: c, .. }) if c == class => Some(p.clone()),
            Some(p @ UserProgram::Replay { class: c, .. }) if c == class => Some(p.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ExecutorFailureTracker.scala maxNumExecutorFailures: with dynamic allocation the default
    // is 2 x spark.dynamicAllocation.maxExecutors (at least 3), Int.MaxValue when that
    // overflows; without it 2 x spark.executor.instances (at least 3).
    #[test]
    fn max_executor_failures_follow_spark() {
        assert_eq!(max_num_executor_failures(None, None, None), 3);
        assert_eq!(max_num_executor_failures(None, None, Some(5)), 10);
        assert_eq!(max_num_executor_failures(None, Some(8), Some(2)), 16);
        assert_eq!(max_num_executor_failures(None, Some(1), None), 3);
        let unbounded = DynamicAllocationSettings::default().max_executors;
        assert_eq!(
            max_num_executor_failures(None, Some(unbounded), None),
            i32::MAX as u32
        );
        assert_eq!(max_num_executor_failures(Some(7), Some(8), None), 7);
    }
}
