//! The validated settings a simulation runs with: Spark properties already parsed into typed
//! values, YARN's `yarn-site.xml` values, the cluster's NodeManagers and the virtual-time cost
//! model. The root crate builds these from flags and files; the actors only read them.

use sparkyard_messages::task::JobSpec;
use std::collections::BTreeMap;

/// Spark properties that change behaviour, already parsed (units are in the field names).
#[derive(Clone, Debug)]
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
    /// `spark.eventLog.compress`.
    pub event_log_compress: bool,
    /// Every Spark property after precedence, as the driver hands them to executors
    /// (`SparkAppConfig.sparkProperties`). Ordered by key.
    pub properties: BTreeMap<String, String>,
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

    /// The initial target number of executors (YARN: `spark.executor.instances`, else 2).
    pub fn initial_target_executors(&self) -> u32 {
        self.executor_instances.unwrap_or(2)
    }

    /// `spark.executor.maxNumFailures`, else max(3, 2 x spark.executor.instances (0 when unset)).
    pub fn effective_max_executor_failures(&self) -> u32 {
        self.max_executor_failures
            .unwrap_or_else(|| 3.max(2 * self.executor_instances.unwrap_or(0)))
    }
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
}

/// One NodeManager of the cluster.
#[derive(Clone, Debug)]
pub struct NodeSpec {
    pub host: String,
    pub rack: String,
    /// `yarn.nodemanager.resource.memory-mb`.
    pub memory_mb: u64,
    /// `yarn.nodemanager.resource.cpu-vcores`.
    pub vcores: u32,
}

/// Virtual-time costs of the things real clusters spend time on. All in milliseconds unless the
/// name says otherwise.
#[derive(Clone, Debug)]
pub struct CostModel {
    /// One network hop between two processes.
    pub network_latency_ms: u64,
    /// NodeManager: localisation and launch_container.sh, from StartContainers to the JVM exec.
    pub container_launch_ms: u64,
    /// JVM start until `main` runs.
    pub jvm_start_ms: u64,
    /// The driver's SparkContext constructor (SparkEnv, BlockManager, UI, event log).
    pub spark_context_init_ms: u64,
    /// An executor's SparkEnv creation after it has the driver's config.
    pub executor_env_init_ms: u64,
    /// Deserialising and starting one task on an executor.
    pub task_launch_overhead_ms: u64,
    /// Extra time for the first task an executor runs (class loading, JIT warm-up).
    pub first_task_warmup_ms: u64,
    /// SparkPi: the cost of one dart, nanoseconds.
    pub sparkpi_dart_ns: u64,
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
}

/// A user program sparkyard can run as `--class`.
#[derive(Clone, Debug)]
pub enum UserProgram {
    /// `org.apache.spark.examples.SparkPi [slices]`.
    SparkPi,
    /// A synthetic application: its jobs, run one after the other.
    Synthetic {
        class: String,
        app_name: String,
        jobs: Vec<JobSpec>,
    },
    /// An application replayed from a Spark event log (`sparkyard replay`): its jobs in
    /// submission order, each submitted after the driver's own time before it, and the driver's
    /// time after the last job before `SparkContext.stop()`.
    Replay {
        class: String,
        app_name: String,
        jobs: Vec<ReplayedJob>,
        driver_ms_after_last_job: u64,
    },
}

/// One job of a replayed application and the driver time (ms) the log shows before it.
#[derive(Clone, Debug)]
pub struct ReplayedJob {
    pub driver_ms_before: u64,
    pub job: JobSpec,
}

impl SimConfig {
    /// `loadClass(--class)`: SparkPi, or the run's synthetic application if its class is asked
    /// for; `None` is Spark's `ClassNotFoundException`.
    pub fn load_class(&self, class: &str) -> Option<UserProgram> {
        if class == crate::examples::spark_pi::CLASS {
            return Some(UserProgram::SparkPi);
        }
        match &self.synthetic {
            Some(p @ UserProgram::Synthetic { class: c, .. }) if c == class => Some(p.clone()),
            Some(p @ UserProgram::Replay { class: c, .. }) if c == class => Some(p.clone()),
            _ => None,
        }
    }
}
