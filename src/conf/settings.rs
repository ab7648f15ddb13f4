//! The typed Spark settings a run uses, read from a submission's merged conf with Spark's
//! defaults: owns defaults and derived values (memory overhead, RPC timeouts); mirrors the
//! ConfigEntry defaults of `org.apache.spark.internal.config` / `deploy.yarn.config`, the
//! overhead math of `deploy.yarn.Client` / `ResourceProfile`, and `RpcTimeout.apply` (Spark 4.0).

use sparkyard_actors::simulation::config::{
    AllocationFile, BarrierCheckSettings, DynamicAllocationSettings, FetchSettings,
    LocalitySettings, SchedulingMode, ShuffleSettings, SparkSettings, SpeculationSettings,
};

use super::memory::ByteUnit;
use super::spark_conf::SparkConf;
use super::submit::SubmitRequest;
use crate::error::UserError;
use sparkyard_actors::simulation::config::ExcludeOnFailureConf;
use sparkyard_messages::jvm_text::double_to_string;

/// `spark.network.timeout`: the fallback of every RPC timeout.
pub const NETWORK_TIMEOUT_KEY: &str = "spark.network.timeout";

/// `ResourceProfile.MEMORY_OVERHEAD_MIN_MIB` and the 4.0 `minMemoryOverhead` defaults.
const MIN_OVERHEAD_DEFAULT: &str = "384m";

/// `spark.{driver,executor}.memoryOverheadFactor` default.
const OVERHEAD_FACTOR_DEFAULT: f64 = 0.10;

/// YARN's `ApplicationSubmissionContext` keeps at most this many characters of the type.
const APPLICATION_TYPE_MAX_CHARS: usize = 20;

/// `spark.scheduler.minRegisteredResourcesRatio` when unset on YARN (`YarnSchedulerBackend`).
const YARN_MIN_REGISTERED_RATIO: f64 = 0.8;

/// `HealthTracker.DEFAULT_TIMEOUT`, the exclusion expiry when neither timeout key is set.
const EXCLUDE_ON_FAILURE_DEFAULT_TIMEOUT: &str = "1h";

/// `EventLoggingListener`'s directory as the docs state it. Spark's ConfigEntry default is the
/// bare `/tmp/spark-events`, which resolves to the same local directory.
const EVENT_LOG_DIR_DEFAULT: &str = "file:///tmp/spark-events";

/// `spark.eventLog.compress`: `true` in Spark 4.0.0 (`iconst_1` before `createWithDefault` in
/// the jar's `internal/config/package$`; `spark.eventLog.compression.codec` defaults to
/// `CompressionCodec.ZSTD`), so a 4.0 event log is `.zstd` unless the user turns it off.
const EVENT_LOG_COMPRESS_DEFAULT: bool = true;

/// `spark.eventLog.rolling.enabled`: `true` in Spark 4.0.0 (the jar's `package$`), so
/// EventLogFileWriter picks RollingEventLogFilesWriter.
const EVENT_LOG_ROLLING_DEFAULT: bool = true;

/// `max((factor * memory).toLong, minimum)` unless an explicit overhead is set
/// (`ResourceProfile.calculateOverHeadMemory`, `Client.amMemoryOverhead`). MiB throughout.
pub fn memory_overhead_mb(
    explicit_mb: Option<u64>,
    factor: f64,
    minimum_mb: u64,
    memory_mb: u64,
) -> u64 {
    // `as` truncates toward zero and saturates, like Scala's Double.toLong.
    explicit_mb.unwrap_or_else(|| ((factor * memory_mb as f64) as u64).max(minimum_mb))
}

/// `spark.<role>.memoryOverheadFactor`, which Spark requires to be > 0 (`checkValue`).
fn overhead_factor(conf: &SparkConf, role: &str) -> Result<f64, UserError> {
    let key = format!("spark.{role}.memoryOverheadFactor");
    let factor = conf.get_double(&key, OVERHEAD_FACTOR_DEFAULT)?;
    if factor > 0.0 {
        return Ok(factor);
    }
    Err(UserError::illegal_argument(format!(
        "'{}' in {key} is invalid. Ensure that memory overhead is a double greater than 0",
        double_to_string(factor)
    )))
}

/// The overhead of the driver (AM container in cluster mode) or of each executor, MiB.
fn role_overhead_mb(conf: &SparkConf, role: &str, memory_mb: u64) -> Result<u64, UserError> {
    let explicit = conf.get_size_as_mb_opt(&format!("spark.{role}.memoryOverhead"))?;
    let factor = overhead_factor(conf, role)?;
    let minimum = conf.get_size_as_mb(
        &format!("spark.{role}.minMemoryOverhead"),
        MIN_OVERHEAD_DEFAULT,
    )?;
    Ok(memory_overhead_mb(explicit, factor, minimum, memory_mb))
}

/// `Utils.executorOffHeapMemorySizeAsMb`: 0 unless enabled, then the size must be >= 1 MiB.
fn offheap_mb(conf: &SparkConf) -> Result<u64, UserError> {
    if !conf.get_bool("spark.memory.offHeap.enabled", false)? {
        return Ok(0);
    }
    let mb = conf.get_size_as_bytes("spark.memory.offHeap.size", "0")? / (1024 * 1024);
    if mb == 0 {
        return Err(UserError::illegal_argument(
            "requirement failed: spark.memory.offHeap.size must be > 0 when \
             spark.memory.offHeap.enabled == true",
        ));
    }
    Ok(mb)
}

/// `spark.executor.pyspark.memory` counts only for Python applications.
fn pyspark_mb(conf: &SparkConf, primary_resource: &str) -> Result<u64, UserError> {
    if !primary_resource.ends_with(".py") {
        return Ok(0);
    }
    Ok(conf
        .get_size_as_mb_opt("spark.executor.pyspark.memory")?
        .unwrap_or(0))
}

/// Container sizing inputs, MiB.
struct Memory {
    driver_mb: u64,
    driver_overhead_mb: u64,
    executor_mb: u64,
    executor_overhead_mb: u64,
    offheap_mb: u64,
    pyspark_mb: u64,
}

fn memory(conf: &SparkConf, primary_resource: &str) -> Result<Memory, UserError> {
    let driver_mb = conf.get_size_as_mb("spark.driver.memory", "1g")?;
    let executor_mb = conf.get_size_as_mb("spark.executor.memory", "1g")?;
    Ok(Memory {
        driver_mb,
        driver_overhead_mb: role_overhead_mb(conf, "driver", driver_mb)?,
        executor_mb,
        executor_overhead_mb: role_overhead_mb(conf, "executor", executor_mb)?,
        offheap_mb: offheap_mb(conf)?,
        pyspark_mb: pyspark_mb(conf, primary_resource)?,
    })
}

/// An RPC timeout and the property named in `RpcTimeoutException` texts (`RpcTimeout.apply`):
/// the first of `key`, `spark.network.timeout` that is set, else 120s under `key`'s name.
/// Parsed as seconds (`timeStringAsSeconds`), so sub-second values truncate.
pub fn rpc_timeout(conf: &SparkConf, key: &str) -> Result<(u64, String), UserError> {
    let set = [key, NETWORK_TIMEOUT_KEY]
        .into_iter()
        .find(|k| conf.contains(k));
    let property = set.unwrap_or(key);
    let secs = conf.get_time_as_sec(property, "120s")?;
    Ok((secs.saturating_mul(1000), property.to_string()))
}

/// `spark.task.cpus`; zero would make every executor slot-less, so it is refused.
fn task_cpus(conf: &SparkConf) -> Result<u32, UserError> {
    match conf.get_u32("spark.task.cpus", 1)? {
        0 => Err(UserError::illegal_argument(
            "spark.task.cpus must be at least 1, but was 0",
        )),
        cpus => Ok(cpus),
    }
}

/// `spark.scheduler.barrier.maxConcurrentTasksCheck.interval` (timeConf in seconds, 15s) and
/// `.maxFailures` (intConf, 40, its `checkValue` text), which the DAGScheduler reads when it is
/// made: refused here, at submission.
fn barrier_check(c: &SparkConf) -> Result<BarrierCheckSettings, UserError> {
    const INTERVAL: &str = "spark.scheduler.barrier.maxConcurrentTasksCheck.interval";
    const MAX_FAILURES: &str = "spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures";
    let interval_ms = c.get_time_as_sec(INTERVAL, "15s")? * 1000;
    let max_failures = c.get_int(MAX_FAILURES, 40)?;
    if max_failures <= 0 {
        return Err(UserError::illegal_argument(format!(
            "'{max_failures}' in {MAX_FAILURES} is invalid. The max failures should be a positive value."
        )));
    }
    Ok(BarrierCheckSettings {
        interval_ms,
        max_failures: max_failures as u32,
    })
}

/// The executor's `maxDirectResultSize` (Spark 4.0.0's `Executor`: `Math.min` of
/// `spark.task.maxDirectResultSize` and `RpcUtils.maxMessageSizeBytes`): a larger result goes
/// to the driver through the executor's BlockManager. Spark reads both when an executor starts;
/// a bad value is refused here, at submission, with Spark's text (`checkValue`, RpcUtils).
fn max_direct_result_size(c: &SparkConf) -> Result<u64, UserError> {
    const KEY: &str = "spark.task.maxDirectResultSize";
    // ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH (Integer.MAX_VALUE - 15).
    const MAX_ROUNDED_ARRAY_LENGTH: u64 = i32::MAX as u64 - 15;
    let direct = c.get_size_as_bytes(KEY, "1m")?;
    if direct >= MAX_ROUNDED_ARRAY_LENGTH {
        return Err(UserError::illegal_argument(format!(
            "'{direct}' in {KEY} is invalid. The max direct result size is 2GB"
        )));
    }
    // RpcUtils.MAX_MESSAGE_SIZE_IN_MB: Int.MaxValue / 1024 / 1024.
    const MAX_MESSAGE_SIZE_IN_MB: u64 = i32::MAX as u64 / 1024 / 1024;
    let rpc_mb = u64::from(c.get_u32("spark.rpc.message.maxSize", 128)?);
    if rpc_mb > MAX_MESSAGE_SIZE_IN_MB {
        return Err(UserError::illegal_argument(format!(
            "spark.rpc.message.maxSize should not be greater than {MAX_MESSAGE_SIZE_IN_MB} MB"
        )));
    }
    Ok(direct.min(rpc_mb * 1024 * 1024))
}

/// `spark.scheduler.mode` as TaskSchedulerImpl reads it; another value fails the SparkContext
/// with Spark's text, refused here at submission.
fn scheduler_mode(conf: &SparkConf) -> Result<SchedulingMode, UserError> {
    SchedulingMode::parse(&conf.get_string("spark.scheduler.mode", "FIFO"))
        .map_err(UserError::spark)
}

/// `spark.scheduler.allocation.file`, read where FAIR's `FairSchedulableBuilder.buildPools`
/// reads it (FIFO's builder reads no file, so a FIFO run ignores it).
fn allocation_file(req: &SubmitRequest) -> Result<Option<AllocationFile>, UserError> {
    if scheduler_mode(&req.conf)? != SchedulingMode::Fair {
        return Ok(None);
    }
    req.conf
        .get("spark.scheduler.allocation.file")
        .map(|v| super::allocation_file::read(v, req.files_dir.as_deref()))
        .transpose()
}

/// The readiness ratio: 0.8 on YARN when unset, else capped at 1 (`minRegisteredRatio`).
fn min_registered_ratio(conf: &SparkConf) -> Result<f64, UserError> {
    let set = conf.get_double_opt("spark.scheduler.minRegisteredResourcesRatio")?;
    Ok(set.map_or(YARN_MIN_REGISTERED_RATIO, |r| r.min(1.0)))
}

/// `HealthTracker.getExcludeOnFailureTimeout`: the new key, the legacy key, then 1h.
fn exclude_timeout_ms(conf: &SparkConf) -> Result<u64, UserError> {
    if let Some(ms) = conf.get_time_as_ms_opt("spark.excludeOnFailure.timeout")? {
        return Ok(ms);
    }
    let legacy = "spark.scheduler.executorTaskExcludeOnFailureTime";
    conf.get_time_as_ms(legacy, EXCLUDE_ON_FAILURE_DEFAULT_TIMEOUT)
}

/// The exclusion keys as Spark 4.0.0's ConfigEntries type them (`internal/config/package$`:
/// optional booleans and timeouts, ints with their defaults, legacy `spark.blacklist.*` names
/// through the alternates), for HealthTracker and TaskSetExcludelist
/// (`sparkyard_actors::simulation::config::ExcludeOnFailureConf`, which the HealthTracker reads). A
/// value of the wrong type is refused with Spark's text.
pub fn exclude_on_failure_conf(c: &SparkConf) -> Result<ExcludeOnFailureConf, UserError> {
    let d = ExcludeOnFailureConf::default();
    let ms = |key: &str| -> Result<Option<i64>, UserError> {
        Ok(c.get_time_as_ms_opt(key)?.map(|v| v as i64))
    };
    Ok(ExcludeOnFailureConf {
        enabled: c.get_bool_opt("spark.excludeOnFailure.enabled")?,
        application_enabled: c.get_bool_opt("spark.excludeOnFailure.application.enabled")?,
        task_and_stage_enabled: c.get_bool_opt("spark.excludeOnFailure.taskAndStage.enabled")?,
        timeout_ms: ms("spark.excludeOnFailure.timeout")?,
        legacy_timeout_ms: ms("spark.scheduler.executorTaskExcludeOnFailureTime")?,
        max_task_attempts_per_executor: c.get_int(
            "spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor",
            d.max_task_attempts_per_executor,
        )?,
        max_task_attempts_per_node: c.get_int(
            "spark.excludeOnFailure.task.maxTaskAttemptsPerNode",
            d.max_task_attempts_per_node,
        )?,
        max_failures_per_exec_stage: c.get_int(
            "spark.excludeOnFailure.stage.maxFailedTasksPerExecutor",
            d.max_failures_per_exec_stage,
        )?,
        max_failed_exec_per_node_stage: c.get_int(
            "spark.excludeOnFailure.stage.maxFailedExecutorsPerNode",
            d.max_failed_exec_per_node_stage,
        )?,
        max_failures_per_exec: c.get_int(
            "spark.excludeOnFailure.application.maxFailedTasksPerExecutor",
            d.max_failures_per_exec,
        )?,
        max_failed_exec_per_node: c.get_int(
            "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
            d.max_failed_exec_per_node,
        )?,
        task_max_failures: c.get_int("spark.task.maxFailures", d.task_max_failures)?,
        kill_excluded_executors: c
            .get_bool("spark.excludeOnFailure.killExcludedExecutors", false)?,
        kill_decommission: c.get_bool(
            "spark.excludeOnFailure.killExcludedExecutors.decommission",
            false,
        )?,
        fetch_failure_enabled: c.get_bool(
            "spark.excludeOnFailure.application.fetchFailure.enabled",
            false,
        )?,
        shuffle_service_enabled: c.get_bool("spark.shuffle.service.enabled", false)?,
    })
}

/// HealthTracker's constructor runs `validateExcludeOnFailureConfs` when application-level
/// exclusion is on; a bad value fails the SparkContext with an `IllegalArgumentException`.
/// sparkyard refuses it at submission, with Spark's text, as it does the event log's size.
fn check_exclude_on_failure(c: &SparkConf) -> Result<(), UserError> {
    let conf = exclude_on_failure_conf(c)?;
    if !conf.is_exclude_on_failure_enabled().enabled {
        return Ok(());
    }
    conf.validate()
        .map_err(|e| UserError::illegal_argument(e.message))
}

/// `spark.app.name`, else the main class.
fn app_name(req: &SubmitRequest) -> String {
    req.conf
        .get("spark.app.name")
        .unwrap_or(&req.main_class)
        .to_string()
}

/// `spark.yarn.applicationType`, truncated as YARN truncates it.
fn application_type(conf: &SparkConf) -> String {
    conf.get_string("spark.yarn.applicationType", "SPARK")
        .chars()
        .take(APPLICATION_TYPE_MAX_CHARS)
        .collect()
}

/// `spark.dynamicAllocation.{min,max}Executors`: negative counts are refused with the text of
/// `ExecutorAllocationManager.validateSettings` (the other checks run in the driver).
fn executor_bound(conf: &SparkConf, key: &str, default: i32) -> Result<u32, UserError> {
    let n = conf.get_int(key, default)?;
    u32::try_from(n).map_err(|_| {
        UserError::spark(
            "spark.dynamicAllocation.minExecutors and spark.dynamicAllocation.maxExecutors \
             must be positive!",
        )
    })
}

/// The `spark.dynamicAllocation.*` settings when `spark.dynamicAllocation.enabled` is true
/// (`Utils.isDynamicAllocationEnabled`), with Spark 4.0's defaults (`internal/config`).
fn dynamic_allocation(conf: &SparkConf) -> Result<Option<DynamicAllocationSettings>, UserError> {
    if !conf.get_bool("spark.dynamicAllocation.enabled", false)? {
        return Ok(None);
    }
    // Full key literals, so the key registry's source scan sees every key read (src/conf/keys.rs).
    let d = DynamicAllocationSettings::default();
    let min_executors = executor_bound(conf, "spark.dynamicAllocation.minExecutors", 0)?;
    let initial = conf.get_int_opt("spark.dynamicAllocation.initialExecutors")?;
    let backlog = conf.get_time_as_sec("spark.dynamicAllocation.schedulerBacklogTimeout", "1s")?;
    Ok(Some(DynamicAllocationSettings {
        min_executors,
        max_executors: executor_bound(conf, "spark.dynamicAllocation.maxExecutors", i32::MAX)?,
        initial_executors: initial.map(|n| n.max(0) as u32),
        scheduler_backlog_timeout_s: backlog,
        sustained_scheduler_backlog_timeout_s: conf.get_time_as_sec(
            "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout",
            &format!("{backlog}s"),
        )?,
        executor_idle_timeout_s: conf
            .get_time_as_sec("spark.dynamicAllocation.executorIdleTimeout", "60s")?,
        cached_executor_idle_timeout_s: conf.get_time_as_sec(
            "spark.dynamicAllocation.cachedExecutorIdleTimeout",
            &format!("{}s", d.cached_executor_idle_timeout_s),
        )?,
        executor_allocation_ratio: conf
            .get_double("spark.dynamicAllocation.executorAllocationRatio", 1.0)?,
        shuffle_tracking_enabled: conf
            .get_bool("spark.dynamicAllocation.shuffleTracking.enabled", true)?,
        shuffle_tracking_timeout_ms: conf
            .get_time_as_ms_opt("spark.dynamicAllocation.shuffleTracking.timeout")?,
        shuffle_service_enabled: conf.get_bool("spark.shuffle.service.enabled", false)?,
        decommission_enabled: conf.get_bool("spark.decommission.enabled", false)?,
        storage_decommission_shuffle_blocks: conf
            .get_bool("spark.storage.decommission.shuffleBlocks.enabled", true)?,
    }))
}

/// `spark.storage.decommission.*` as Spark 4.0's ConfigBuilders type and check them (the
/// executors read them when they decommission; a bad value fails the submission here).
fn check_storage_decommission(c: &SparkConf) -> Result<(), UserError> {
    c.get_bool("spark.storage.decommission.enabled", false)?;
    c.get_bool("spark.storage.decommission.rddBlocks.enabled", true)?;
    c.get_int(
        "spark.storage.decommission.maxReplicationFailuresPerBlock",
        3,
    )?;
    c.get_int("spark.storage.cachedPeersTtl", 60_000)?;
    let threads = "spark.storage.decommission.shuffleBlocks.maxThreads";
    let n = c.get_int(threads, 8)?;
    if n <= 0 {
        return Err(UserError::illegal_argument(format!(
            "'{n}' in {threads} is invalid. The maximum number of threads should be positive"
        )));
    }
    // forceKillTimeout is parsed into SparkSettings (the driver acts on it); killInterval into
    // the speculation settings when speculation is on, and type-checked here whatever it is.
    c.get_time_as_sec_opt("spark.executor.decommission.killInterval")?;
    let interval = "spark.storage.decommission.replicationReattemptInterval";
    if c.get_time_as_ms(interval, "30s")? == 0 {
        return Err(UserError::illegal_argument(format!(
            "'0' in {interval} is invalid. Time interval between two consecutive attempts of cache block replication should be positive."
        )));
    }
    Ok(())
}

/// `spark.redaction.regex` is compiled when Spark first redacts: a pattern that does not compile
/// fails the submission (Java's `PatternSyntaxException`; the text is the regex engine's).
fn check_redaction_regex(c: &SparkConf) -> Result<(), UserError> {
    let Some(p) = c.get("spark.redaction.regex") else {
        return Ok(());
    };
    sparkyard_actors::simulation::spark_conf::Redactor::new(Some(p))
        .map(|_| ())
        .map_err(|e| UserError::Java {
            class: "java.util.regex.PatternSyntaxException",
            message: format!("spark.redaction.regex={p}: {e}"),
        })
}

/// Spark 4.0 `ResourceRequestHelper.validateResources` (first thing `Client.submitApplication`
/// does): a YARN resource-type key that has a Spark property of its own, set with the
/// `.amount` suffix, is refused. Every offending key adds a line to one `SparkException`.
pub fn validate_yarn_resources(c: &SparkConf) -> Result<(), UserError> {
    let (am, driver, executor) = (
        "spark.yarn.am.resource.",
        "spark.yarn.driver.resource.",
        "spark.yarn.executor.resource.",
    );
    // Every key checked below starts with one of the three prefixes (and none has a deprecated
    // alternate): a conf with no such key, nearly every one, has nothing to report, and
    // formatting and looking up the 31 keys was half of spark-submit's settings in a sweep.
    if ![am, driver, executor]
        .iter()
        .any(|prefix| c.has_key_with_prefix(prefix))
    {
        return Ok(());
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    let roles = [
        ("spark.yarn.am.memory", "spark.yarn.am.cores", am),
        ("spark.driver.memory", "spark.driver.cores", driver),
        ("spark.executor.memory", "spark.executor.cores", executor),
    ];
    for suffix in ["memory", "mb", "memory-mb"] {
        for (memory, _, prefix) in roles {
            pairs.push((memory.into(), format!("{prefix}{suffix}")));
        }
    }
    for suffix in ["cores", "vcores", "cpu-vcores"] {
        for (_, cores, prefix) in roles {
            pairs.push((cores.into(), format!("{prefix}{suffix}")));
        }
    }
    let gpu_device = c.get_string("spark.yarn.resourceGpuDeviceName", "yarn.io/gpu");
    let fpga_device = c.get_string("spark.yarn.resourceFpgaDeviceName", "yarn.io/fpga");
    for (spark_name, prefix, yarn) in [
        (
            "spark.executor.resource.fpga.amount",
            executor,
            &fpga_device,
        ),
        ("spark.driver.resource.fpga.amount", driver, &fpga_device),
        ("spark.executor.resource.gpu.amount", executor, &gpu_device),
        ("spark.driver.resource.gpu.amount", driver, &gpu_device),
    ] {
        pairs.push((spark_name.to_string(), format!("{prefix}{yarn}")));
    }
    let mut message = String::new();
    for (spark_name, request) in pairs {
        let key = format!("{request}.amount");
        if c.contains(&key) {
            message.push_str(&format!(
                "Error: Do not use {key}, please use {spark_name} instead!\n"
            ));
        }
    }
    if message.is_empty() {
        Ok(())
    } else {
        Err(UserError::spark(message))
    }
}

/// Every field of [`SparkSettings`], from the merged conf of `req` and Spark's defaults.
/// `spark.yarn.executor.nodeLabelExpression`. Hadoop's `AMRMClientImpl.checkNodeLabelExpression`
/// throws `InvalidContainerRequestException` inside the AM's YarnAllocator for `&&` or `||`; that
/// failure path of the AM is not simulated, so sparkyard refuses the value here instead of
/// running without it.
fn executor_node_label_expression(c: &SparkConf) -> Result<Option<String>, UserError> {
    let key = "spark.yarn.executor.nodeLabelExpression";
    let value = c.get_substituted(key)?;
    if let Some(v) = &value
        && (v.contains("&&") || v.contains("||"))
    {
        return Err(UserError::usage(format!(
            "{key}={v}: not simulated. In Spark 4.0 on YARN the ApplicationMaster's \
             AMRMClient refuses it (InvalidContainerRequestException: Cannot specify more than \
             one node label in a single node label expression); name one label."
        )));
    }
    Ok(value)
}

pub fn spark_settings(req: &SubmitRequest) -> Result<SparkSettings, UserError> {
    let c = &req.conf;
    check_redaction_regex(c)?;
    check_storage_decommission(c)?;
    // An int ConfigBuilder (internal, 60) the executors read into their heartbeater; a
    // negative count (Spark: exit at the first failure) is refused as other counts are.
    c.get_u32("spark.executor.heartbeat.maxFailures", 60)?;
    check_exclude_on_failure(c)?;
    validate_yarn_resources(c)?;
    let mem = memory(c, &req.primary_resource)?;
    let (ask_timeout_ms, ask_timeout_property) = rpc_timeout(c, "spark.rpc.askTimeout")?;
    let (lookup_timeout_ms, lookup_timeout_property) = rpc_timeout(c, "spark.rpc.lookupTimeout")?;
    Ok(SparkSettings {
        app_name: app_name(req),
        main_class: req.main_class.clone(),
        primary_resource: req.primary_resource.clone(),
        app_args: req.app_args.clone(),
        queue: c.get_string("spark.yarn.queue", "default"),
        include_driver_logs_link: c.get_bool("spark.yarn.includeDriverLogsLink", false)?,
        history_server_address: c.get_substituted("spark.yarn.historyServer.address")?,
        am_node_label_expression: c.get_substituted("spark.yarn.am.nodeLabelExpression")?,
        executor_node_label_expression: executor_node_label_expression(c)?,
        application_type: application_type(c),
        driver_memory_mb: mem.driver_mb,
        driver_memory_overhead_mb: mem.driver_overhead_mb,
        driver_cores: c.get_u32("spark.driver.cores", 1)?,
        executor_memory_mb: mem.executor_mb,
        executor_memory_overhead_mb: mem.executor_overhead_mb,
        executor_offheap_mb: mem.offheap_mb,
        executor_pyspark_memory_mb: mem.pyspark_mb,
        executor_cores: c.get_u32("spark.executor.cores", 1)?,
        executor_instances: c.get_u32_opt("spark.executor.instances")?,
        task_cpus: task_cpus(c)?,
        task_max_failures: c.get_u32("spark.task.maxFailures", 4)?,
        driver_max_result_size: c.get_size_as_bytes("spark.driver.maxResultSize", "1g")?,
        max_direct_result_size: max_direct_result_size(c)?,
        scheduler_mode: scheduler_mode(c)?,
        allocation_file: allocation_file(req)?,
        shuffle: shuffle_settings(c)?,
        barrier_check: barrier_check(c)?,
        locality: locality_settings(c)?,
        am_wait_time_ms: c.get_time_as_ms("spark.yarn.am.waitTime", "100s")?,
        max_app_attempts: c.get_u32_opt("spark.yarn.maxAppAttempts")?,
        am_attempt_failures_validity_interval_ms: c
            .get_time_as_ms_opt("spark.yarn.am.attemptFailuresValidityInterval")?,
        application_tags: c.get_seq("spark.yarn.tags"),
        application_priority: c.get_u32_opt("spark.yarn.priority")?,
        max_executor_failures: c.get_u32_opt("spark.executor.maxNumFailures")?,
        executor_failures_validity_interval_ms: c
            .get_time_as_ms_opt("spark.executor.failuresValidityInterval")?,
        report_interval_ms: c.get_time_as_ms("spark.yarn.report.interval", "1s")?,
        report_logging_frequency: c.get_u32("spark.yarn.report.loggingFrequency", 30)?,
        wait_app_completion: c.get_bool("spark.yarn.submit.waitAppCompletion", true)?,
        am_heartbeat_interval_ms: c
            .get_time_as_ms("spark.yarn.scheduler.heartbeat.interval-ms", "3s")?,
        initial_allocation_interval_ms: c
            .get_time_as_ms("spark.yarn.scheduler.initial-allocation.interval", "200ms")?,
        reporter_max_failures: c.get_int("spark.yarn.scheduler.reporterThread.maxFailures", 5)?,
        min_registered_resources_ratio: min_registered_ratio(c)?,
        max_registered_resources_waiting_time_ms: c
            .get_time_as_ms("spark.scheduler.maxRegisteredResourcesWaitingTime", "30s")?,
        revive_interval_ms: c.get_time_as_ms("spark.scheduler.revive.interval", "1s")?,
        ask_timeout_ms,
        ask_timeout_property,
        lookup_timeout_ms,
        lookup_timeout_property,
        network_timeout_ms: c
            .get_time_as_sec(NETWORK_TIMEOUT_KEY, "120s")?
            .saturating_mul(1000),
        executor_heartbeat_interval_ms: c
            .get_time_as_ms("spark.executor.heartbeatInterval", "10s")?,
        exclude_nodes: c.get_seq("spark.yarn.exclude.nodes"),
        launch_exclude_on_failure: c
            .get_bool("spark.yarn.executor.launch.excludeOnFailure.enabled", false)?,
        max_failed_executors_per_node: c.get_u32(
            "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
            2,
        )?,
        exclude_on_failure_timeout_ms: exclude_timeout_ms(c)?,
        event_log_enabled: c.get_bool("spark.eventLog.enabled", false)?,
        event_log_dir: c.get_string("spark.eventLog.dir", EVENT_LOG_DIR_DEFAULT),
        event_log_dir_error: None,
        event_log_compress: c.get_bool("spark.eventLog.compress", EVENT_LOG_COMPRESS_DEFAULT)?,
        event_log_rolling_max_file_size: event_log_rolling(c)?,
        properties: c.as_map().clone(),
        dynamic_allocation: dynamic_allocation(c)?,
        decommission_enabled: c.get_bool("spark.decommission.enabled", false)?,
        decommission_force_kill_timeout_s: c
            .get_time_as_sec_opt("spark.executor.decommission.forceKillTimeout")?,
        speculation: speculation(c)?,
        exclude_on_failure: exclude_on_failure_conf(c)?,
        unschedulable_task_set_timeout_ms: c
            .get_time_as_sec(
                "spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout",
                "120s",
            )?
            .saturating_mul(1000),
    })
}

/// `spark.eventLog.rolling.maxFileSize` when the rolling writer is on (Spark reads it only
/// then, in RollingEventLogFilesWriter's constructor): `bytesConf(BYTE)`, default 128m,
/// `checkValue(_ >= ByteUnit.MiB.toBytes(10), "Max file size of event log should be
/// configured to be at least 10 MiB.")` (internal/config/package.scala). Spark fails the
/// SparkContext with it; sparkyard refuses it at submission.
fn event_log_rolling(c: &SparkConf) -> Result<Option<u64>, UserError> {
    const KEY: &str = "spark.eventLog.rolling.maxFileSize";
    let on = c.get_bool("spark.eventLog.enabled", false)?
        && c.get_bool("spark.eventLog.rolling.enabled", EVENT_LOG_ROLLING_DEFAULT)?;
    if c.get_bool("spark.eventLog.enabled", false)?
        && c.get_bool("spark.eventLog.compress", EVENT_LOG_COMPRESS_DEFAULT)?
    {
        // ZStdCompressionCodec reads its level (intConf, default 1) when the writer is made;
        // the event log writer uses it (src/outputs/eventlog.rs), so a bad one fails here.
        c.get_int("spark.io.compression.zstd.level", 1)?;
    }
    if !on {
        return Ok(None);
    }
    let max = c.get_size_as_bytes(KEY, "128m")?;
    if max < 10 * 1024 * 1024 {
        return Err(UserError::illegal_argument(format!(
            "'{max}' in {KEY} is invalid. Max file size of event log should be configured to be at least 10 MiB."
        )));
    }
    Ok(Some(max))
}

/// `ConfigBuilder.checkValue`'s failure (Spark 4.0 TypedConfigBuilder):
/// `IllegalArgumentException("'$v' in $key is invalid. $errorMsg")`.
fn check_double(
    c: &SparkConf,
    key: &str,
    default: f64,
    ok: impl Fn(f64) -> bool,
    requirement: &str,
) -> Result<f64, UserError> {
    let v = c.get_double(key, default)?;
    if ok(v) {
        return Ok(v);
    }
    Err(UserError::illegal_argument(format!(
        "'{}' in {key} is invalid. {requirement}",
        double_to_string(v)
    )))
}

/// The `spark.speculation.*` settings when `spark.speculation` is true, with Spark 4.0's
/// defaults and `checkValue`s (`internal/config/package.scala`). Spark reads the efficiency keys
/// when a TaskSetManager is created; a bad value is refused here, at submission, instead.
fn speculation(c: &SparkConf) -> Result<Option<SpeculationSettings>, UserError> {
    if !c.get_bool("spark.speculation", false)? {
        return Ok(None);
    }
    let cores = c.get_u32("spark.executor.cores", 1)?;
    let cpus = task_cpus(c)?;
    Ok(Some(SpeculationSettings {
        interval_ms: c.get_time_as_ms("spark.speculation.interval", "100ms")?,
        multiplier: c.get_double("spark.speculation.multiplier", 3.0)?,
        quantile: c.get_double("spark.speculation.quantile", 0.9)?,
        min_task_runtime_ms: c.get_time_as_ms("spark.speculation.minTaskRuntime", "100ms")?,
        task_duration_threshold_ms: c
            .get_time_as_ms_opt("spark.speculation.task.duration.threshold")?,
        efficiency_enabled: c.get_bool("spark.speculation.efficiency.enabled", true)?,
        efficiency_process_rate_multiplier: check_double(
            c,
            "spark.speculation.efficiency.processRateMultiplier",
            0.75,
            |v| v > 0.0 && v <= 1.0,
            "multiplier must be in (0.0, 1.0]",
        )?,
        efficiency_long_run_task_factor: check_double(
            c,
            "spark.speculation.efficiency.longRunTaskFactor",
            2.0,
            |v| v >= 1.0,
            "Duration factor must be >= 1.0",
        )?,
        // speculationTasksLessEqToSlots: the default profile's maxTasksPerExecutor.
        slots_per_executor: sparkyard_actors::simulation::facts::default_max_tasks_per_executor(
            cores,
            cpus,
            c.as_map(),
        ),
        // TaskSetManager: `conf.get(EXECUTOR_DECOMMISSION_KILL_INTERVAL).map(SECONDS.toMillis)`.
        decommission_kill_interval_ms: c
            .get_time_as_sec_opt("spark.executor.decommission.killInterval")?
            .map(|s| s.saturating_mul(1000)),
    }))
}

/// `spark.locality.wait` (3s) and `spark.locality.wait.process|node|rack` (each falling back
/// to it: TaskSetManager.getLocalityWait), `spark.shuffle.reduceLocality.enabled` (true),
/// `spark.locality.wait.legacyResetOnTaskLaunch` (false).
fn locality_settings(c: &SparkConf) -> Result<LocalitySettings, UserError> {
    let wait = c.get_time_as_ms("spark.locality.wait", "3s")?;
    let level =
        |key: &str| -> Result<u64, UserError> { Ok(c.get_time_as_ms_opt(key)?.unwrap_or(wait)) };
    Ok(LocalitySettings {
        wait_process_ms: level("spark.locality.wait.process")?,
        wait_node_ms: level("spark.locality.wait.node")?,
        wait_rack_ms: level("spark.locality.wait.rack")?,
        reduce_locality_enabled: c.get_bool("spark.shuffle.reduceLocality.enabled", true)?,
        legacy_reset_on_task_launch: c
            .get_bool("spark.locality.wait.legacyResetOnTaskLaunch", false)?,
    })
}

/// `spark.shuffle.service.*`, `spark.shuffle.io.*`, `spark.stage.maxConsecutiveAttempts`,
/// `spark.stage.maxAttempts` and `spark.stage.ignoreDecommissionFetchFailure`.
fn shuffle_settings(c: &SparkConf) -> Result<ShuffleSettings, UserError> {
    let port = c.get_u32("spark.shuffle.service.port", 7337)?;
    let service_port = u16::try_from(port).map_err(|_| {
        UserError::illegal_argument(format!(
            "spark.shuffle.service.port: {port} is not a port number (0-65535)"
        ))
    })?;
    let max_consecutive_stage_attempts = c.get_u32("spark.stage.maxConsecutiveAttempts", 4)?;
    // DAGScheduler's constructor (Spark 4.0.0's jar): `maxStageAttempts = Math.max(
    // maxConsecutiveStageAttempts, conf.get(STAGE_MAX_ATTEMPTS))`, an intConf defaulting to
    // Int.MaxValue, so the key can only raise the limit above the consecutive one.
    let max_attempts = c.get_int("spark.stage.maxAttempts", i32::MAX)?;
    let max_stage_attempts = u32::try_from(max_attempts)
        .map_or(max_consecutive_stage_attempts, |m| {
            m.max(max_consecutive_stage_attempts)
        });
    Ok(ShuffleSettings {
        service_enabled: c.get_bool("spark.shuffle.service.enabled", false)?,
        service_port,
        max_consecutive_stage_attempts,
        max_stage_attempts,
        io_max_retries: c.get_u32("spark.shuffle.io.maxRetries", 3)?,
        io_retry_wait_ms: c.get_time_as_ms("spark.shuffle.io.retryWait", "5s")?,
        unregister_output_on_host_on_fetch_failure: c
            .get_bool("spark.files.fetchFailure.unRegisterOutputOnHost", false)?,
        // config/package.scala STAGE_IGNORE_DECOMMISSION_FETCH_FAILURE: true since 4.0.0.
        ignore_decommission_fetch_failure: c
            .get_bool("spark.stage.ignoreDecommissionFetchFailure", true)?,
        fetch: fetch_settings(c)?,
    })
}

/// What `BlockStoreShuffleReader.read` hands its ShuffleBlockFetcherIterator, and the switch
/// of BlockManager.initialize's `hostLocalDirManager` (internal/config/package$ of Spark
/// 4.0.0's jar: REDUCER_MAX_SIZE_IN_FLIGHT `bytesConf(MiB)` 48m, times 1024 * 1024 as a Java
/// long; REDUCER_MAX_REQS_IN_FLIGHT and REDUCER_MAX_BLOCKS_IN_FLIGHT_PER_ADDRESS `intConf`
/// Int.MaxValue, the latter `checkValue(_ > 0, ...)`; SHUFFLE_HOST_LOCAL_DISK_READING_ENABLED
/// true). Spark reads the `spark.reducer.*` keys in every reduce task, so a bad value fails
/// those tasks there; sparkyard refuses it at submission with the same text.
fn fetch_settings(c: &SparkConf) -> Result<FetchSettings, UserError> {
    const PER_ADDRESS: &str = "spark.reducer.maxBlocksInFlightPerAddress";
    let max_mib = c.get_bytes_conf("spark.reducer.maxSizeInFlight", "48m", ByteUnit::MiB)?;
    let per_address = c.get_int(PER_ADDRESS, i32::MAX)?;
    let max_blocks_in_flight_per_address = u32::try_from(per_address)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            UserError::illegal_argument(format!(
                "'{per_address}' in {PER_ADDRESS} is invalid. The max no. of blocks in flight \
                 cannot be non-positive."
            ))
        })?;
    Ok(FetchSettings {
        max_bytes_in_flight: max_mib.wrapping_mul(1024).wrapping_mul(1024),
        max_reqs_in_flight: c.get_int("spark.reducer.maxReqsInFlight", i32::MAX)?,
        max_blocks_in_flight_per_address,
        read_host_local_disk: c.get_bool("spark.shuffle.readHostLocalDisk", true)?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::submit::DefaultsFile;
    use super::*;

    fn settings(extra: &[&str]) -> Result<SparkSettings, UserError> {
        let args = super::super::submit::tests::parse(&[extra, &["app.jar", "10"]].concat());
        let req = args.into_request(DefaultsFile::Embedded(""))?;
        spark_settings(&req)
    }

    /// SchedulableBuilder.scala: only FAIR's `FairSchedulableBuilder.buildPools` opens
    /// spark.scheduler.allocation.file (FIFOSchedulableBuilder reads none), so a missing file
    /// fails only a FAIR application (a real 4.0.0 run: `java.io.FileNotFoundException: File
    /// /tmp/ff/missing.xml does not exist`); a scenario's relative path is read from its
    /// directory.
    #[test]
    fn the_allocation_file_is_read_in_fair_mode_only() {
        let missing = "spark.scheduler.allocation.file=/nonexistent/pools.xml";
        let fifo = settings(&["--conf", missing]).expect("FIFO reads no file");
        assert_eq!(fifo.allocation_file, None);
        let fair = ["--conf", "spark.scheduler.mode=FAIR", "--conf", missing];
        let e = settings(&fair)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            e.contains("java.io.FileNotFoundException: File /nonexistent/pools.xml does not exist"),
            "{e}"
        );
        let relative = "spark.scheduler.allocation.file=../pools/fair-pools.xml";
        let args = super::super::submit::tests::parse(&[
            "--conf",
            "spark.scheduler.mode=FAIR",
            "--conf",
            relative,
            "app.jar",
        ]);
        let mut req = args
            .into_request(DefaultsFile::Embedded(""))
            .expect("request");
        req.files_dir = Some(std::path::PathBuf::from("config/scenarios"));
        let file = spark_settings(&req)
            .expect("read")
            .allocation_file
            .expect("a file");
        assert_eq!(file.path, "../pools/fair-pools.xml");
        let names: Vec<&str> = file.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["etl", "adhoc", "odd"]);
    }

    // internal/config/package$ (Spark 4.0.0's jar) and BlockStoreShuffleReader.read:
    // spark.reducer.maxSizeInFlight is bytesConf(MiB) (a bare number is MiB, a smaller unit
    // truncates, ConfigHelpers.byteFromString takes a leading `-`), times 1024 * 1024;
    // spark.reducer.maxMbInFlight is its SparkConf alternate (1.4); maxReqsInFlight and
    // maxBlocksInFlightPerAddress are intConfs, the latter checkValue(_ > 0);
    // spark.shuffle.readHostLocalDisk a booleanConf, true.
    #[test]
    fn fetch_settings_are_read_as_spark_reads_them() {
        let fetch = |extra: &[&str]| {
            let words: Vec<&str> = extra.iter().flat_map(|c| ["--conf", c]).collect();
            settings(&words).map(|s| s.shuffle.fetch)
        };
        let mib = 1i64 << 20;
        assert_eq!(fetch(&[]), Ok(FetchSettings::default()));
        assert_eq!(FetchSettings::default().max_bytes_in_flight, 48 * mib);
        let size = |v: &str| {
            fetch(&[&format!("spark.reducer.maxSizeInFlight={v}")]).map(|f| f.max_bytes_in_flight)
        };
        assert_eq!(size("11m"), Ok(11 * mib));
        assert_eq!(size("24"), Ok(24 * mib));
        assert_eq!(size("1g"), Ok(1024 * mib));
        assert_eq!(size("48mb"), Ok(48 * mib));
        assert_eq!(size("1536k"), Ok(mib));
        assert_eq!(size("512k"), Ok(0));
        assert_eq!(size("-2m"), Ok(-2 * mib));
        // Not wrapped with the key: conf.get(entry) lets JavaUtils' exception through.
        assert_eq!(
            size("lots"),
            Err(UserError::number_format(
                "Size must be specified as bytes (b), kibibytes (k), mebibytes (m), gibibytes \
                 (g), tebibytes (t), or pebibytes(p). E.g. 50b, 100k, or 250m.\n\
                 Failed to parse byte string: lots"
            ))
        );
        let legacy = fetch(&["spark.reducer.maxMbInFlight=16"]).unwrap();
        assert_eq!(legacy.max_bytes_in_flight, 16 * mib);
        let both = fetch(&[
            "spark.reducer.maxMbInFlight=16",
            "spark.reducer.maxSizeInFlight=8m",
        ]);
        assert_eq!(both.unwrap().max_bytes_in_flight, 8 * mib);
        let f = fetch(&[
            "spark.reducer.maxReqsInFlight=3",
            "spark.reducer.maxBlocksInFlightPerAddress=5",
            "spark.shuffle.readHostLocalDisk=false",
        ])
        .unwrap();
        assert_eq!(
            (f.max_reqs_in_flight, f.max_blocks_in_flight_per_address),
            (3, 5)
        );
        assert!(!f.read_host_local_disk);
        assert_eq!(
            fetch(&["spark.reducer.maxBlocksInFlightPerAddress=0"]),
            Err(UserError::illegal_argument(
                "'0' in spark.reducer.maxBlocksInFlightPerAddress is invalid. The max no. of \
                 blocks in flight cannot be non-positive."
            ))
        );
        for bad in [
            "spark.reducer.maxReqsInFlight=many",
            "spark.shuffle.readHostLocalDisk=yes",
        ] {
            let key = bad.split('=').next().unwrap();
            let e = fetch(&[bad]).unwrap_err();
            assert!(e.to_string().contains(key), "{e}");
        }
    }

    // internal/config/package.scala (4.0.0 jar): spark.executor.heartbeat.maxFailures is an
    // intConf, so a value that is no int fails the submission naming the key; sparkyard also
    // refuses a negative count, as it does other counts.
    #[test]
    fn heartbeat_max_failures_must_be_a_count() {
        assert!(settings(&["--conf", "spark.executor.heartbeat.maxFailures=3"]).is_ok());
        for bad in ["x", "-1", "1.5"] {
            let conf = format!("spark.executor.heartbeat.maxFailures={bad}");
            let e = settings(&["--conf", &conf]).unwrap_err();
            assert!(
                e.to_string()
                    .contains("spark.executor.heartbeat.maxFailures"),
                "{e}"
            );
        }
    }

    // Spark 4.0.0's DAGScheduler constructor: maxStageAttempts = Math.max(
    // spark.stage.maxConsecutiveAttempts, spark.stage.maxAttempts), the latter Int.MaxValue by
    // default (config/package.scala STAGE_MAX_ATTEMPTS, read from the jar).
    #[test]
    fn max_stage_attempts_is_the_larger_of_the_two_keys() {
        let max = |extra: &[&str]| settings(extra).unwrap().shuffle.max_stage_attempts;
        assert_eq!(max(&[]), 2_147_483_647);
        assert_eq!(max(&["--conf", "spark.stage.maxAttempts=7"]), 7);
        assert_eq!(max(&["--conf", "spark.stage.maxAttempts=2"]), 4);
        assert_eq!(max(&["--conf", "spark.stage.maxAttempts=-1"]), 4);
        let both = [
            "--conf",
            "spark.stage.maxAttempts=2",
            "--conf",
            "spark.stage.maxConsecutiveAttempts=6",
        ];
        assert_eq!(max(&both), 6);
    }

    // Spark 4.0: the AM's Client and YarnAllocator read spark.yarn.{am,executor}
    // .nodeLabelExpression (ConfigReader substitution included); an executor expression with
    // && or || (AMRMClientImpl.checkNodeLabelExpression's refusal inside the AM, not simulated)
    // is refused before submission, naming Hadoop's text.
    #[test]
    fn node_label_expressions_reach_the_settings() {
        let s = settings(&[
            "--conf",
            "spark.yarn.am.nodeLabelExpression=${spark.yarn.executor.nodeLabelExpression}",
            "--conf",
            "spark.yarn.executor.nodeLabelExpression=gpu",
        ])
        .unwrap();
        assert_eq!(s.am_node_label_expression.as_deref(), Some("gpu"));
        assert_eq!(s.executor_node_label_expression.as_deref(), Some("gpu"));
        let plain = settings(&[]).unwrap();
        assert_eq!(plain.executor_node_label_expression, None);
        for expr in ["a&&b", "a||b"] {
            let err = settings(&[
                "--conf",
                &format!("spark.yarn.executor.nodeLabelExpression={expr}"),
            ])
            .unwrap_err();
            assert!(
                err.to_string().contains(
                    "Cannot specify more than one node label in a single node label expression"
                ),
                "{err}"
            );
        }
    }

    // Spark 4.0 ResourceRequestHelper.validateResources (spark-yarn_2.13-4.0.0.jar: the checked
    // key is the YARN key plus ".amount"; "Error: Do not use %s, please use %s instead!\n" per
    // key, one SparkException); ResourceRequestHelperSuite "do not use spark.yarn.*.resource".
    #[test]
    fn yarn_resource_keys_with_a_spark_property_are_refused() {
        let err = settings(&[
            "--conf",
            "spark.yarn.driver.resource.yarn.io/fpga.amount=1",
            "--conf",
            "spark.driver.resource.fpga.amount=1",
            "--conf",
            "spark.yarn.executor.resource.memory.amount=2g",
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Exception in thread \"main\" org.apache.spark.SparkException: Error: Do not use spark.yarn.executor.resource.memory.amount, please use spark.executor.memory instead!\nError: Do not use spark.yarn.driver.resource.yarn.io/fpga.amount, please use spark.driver.resource.fpga.amount instead!\n"
        );
        let err = settings(&[
            "--conf",
            "spark.yarn.resourceGpuDeviceName=acme.com/gpu",
            "--conf",
            "spark.yarn.executor.resource.acme.com/gpu.amount=2",
        ])
        .unwrap_err();
        assert!(err.to_string().contains(
            "Do not use spark.yarn.executor.resource.acme.com/gpu.amount, please use spark.executor.resource.gpu.amount instead!"
        ));
        // Custom YARN resources without a Spark twin are accepted.
        assert!(
            settings(&[
                "--conf",
                "spark.yarn.executor.resource.acme.com/widget.amount=2"
            ])
            .is_ok()
        );
        assert!(settings(&["--conf", "spark.yarn.am.resource.yarn.io/gpu.amount=1"]).is_ok());
    }

    // TaskSetManager.speculationTasksLessEqToSlots (Spark 4.0.0 jar) compares a stage's tasks
    // with the default profile's maxTasksPerExecutor: 4 cores but half a GPU a task on one GPU
    // is 2 slots.
    #[test]
    fn speculation_slots_are_the_profiles_tasks_per_executor() {
        let s = settings(&[
            "--conf",
            "spark.speculation=true",
            "--conf",
            "spark.executor.cores=4",
            "--conf",
            "spark.executor.resource.gpu.amount=1",
            "--conf",
            "spark.task.resource.gpu.amount=0.5",
        ])
        .unwrap();
        assert_eq!(s.speculation.expect("on").slots_per_executor, 2);
    }

    // internal/config/package.scala (Spark 4.0.0 jar): spark.speculation false, interval and
    // minTaskRuntime 100 ms, multiplier 3.0, quantile 0.9 (4.0's new defaults), efficiency on
    // with 0.75 / 2.0; the efficiency keys' checkValue texts.
    #[test]
    fn speculation_settings() {
        assert_eq!(settings(&[]).unwrap().speculation, None);
        let on = settings(&["--conf", "spark.speculation=true"]).unwrap();
        assert_eq!(on.speculation, Some(SpeculationSettings::default()));
        let s = settings(&[
            "--conf",
            "spark.speculation=true",
            "--conf",
            "spark.speculation.interval=1s",
            "--conf",
            "spark.speculation.multiplier=1.5",
            "--conf",
            "spark.speculation.quantile=0.5",
            "--conf",
            "spark.speculation.minTaskRuntime=2s",
            "--conf",
            "spark.speculation.task.duration.threshold=30s",
            "--conf",
            "spark.executor.cores=4",
        ])
        .unwrap()
        .speculation
        .expect("on");
        assert_eq!(
            (
                s.interval_ms,
                s.multiplier,
                s.quantile,
                s.min_task_runtime_ms
            ),
            (1000, 1.5, 0.5, 2000)
        );
        assert_eq!(
            (s.task_duration_threshold_ms, s.slots_per_executor),
            (Some(30_000), 4)
        );
        let bad = |k: &str, v: &str| {
            settings(&[
                "--conf",
                "spark.speculation=true",
                "--conf",
                &format!("{k}={v}"),
            ])
            .unwrap_err()
        };
        assert_eq!(
            bad("spark.speculation.efficiency.processRateMultiplier", "1.5"),
            UserError::illegal_argument(
                "'1.5' in spark.speculation.efficiency.processRateMultiplier is invalid. \
                 multiplier must be in (0.0, 1.0]"
            )
        );
        assert_eq!(
            bad("spark.speculation.efficiency.longRunTaskFactor", "0.5"),
            UserError::illegal_argument(
                "'0.5' in spark.speculation.efficiency.longRunTaskFactor is invalid. \
                 Duration factor must be >= 1.0"
            )
        );
    }

    // internal/config/package.scala: the spark.dynamicAllocation.* defaults (shuffle tracking
    // on since 3.4, sustained backlog timeout falling back to the backlog timeout).
    #[test]
    fn dynamic_allocation_settings() {
        assert_eq!(settings(&[]).unwrap().dynamic_allocation, None);
        let s = settings(&[
            "--conf",
            "spark.dynamicAllocation.enabled=true",
            "--conf",
            "spark.dynamicAllocation.schedulerBacklogTimeout=3s",
            "--conf",
            "spark.dynamicAllocation.maxExecutors=10",
        ])
        .unwrap();
        let d = s.dynamic_allocation.expect("enabled");
        assert_eq!(
            (d.min_executors, d.max_executors, d.initial_executors),
            (0, 10, None)
        );
        assert_eq!(
            (
                d.scheduler_backlog_timeout_s,
                d.sustained_scheduler_backlog_timeout_s
            ),
            (3, 3)
        );
        assert_eq!(d.executor_idle_timeout_s, 60);
        assert!(d.shuffle_tracking_enabled && !d.shuffle_service_enabled);
        assert_eq!(s.effective_max_executor_failures(), 20);
        assert_eq!(s.initial_target_executors(), 0);
        let negative = settings(&[
            "--conf",
            "spark.dynamicAllocation.enabled=true",
            "--conf",
            "spark.dynamicAllocation.minExecutors=-1",
        ]);
        assert_eq!(
            negative.unwrap_err(),
            UserError::spark(
                "spark.dynamicAllocation.minExecutors and spark.dynamicAllocation.maxExecutors \
                 must be positive!"
            )
        );
    }

    #[test]
    fn overhead_math() {
        assert_eq!(memory_overhead_mb(None, 0.10, 384, 1024), 384);
        assert_eq!(memory_overhead_mb(None, 0.10, 384, 2048), 384);
        assert_eq!(memory_overhead_mb(None, 0.10, 384, 4096), 409);
        assert_eq!(memory_overhead_mb(None, 0.10, 384, 7168), 716);
        assert_eq!(memory_overhead_mb(Some(100), 0.10, 384, 4096), 100);
    }

    #[test]
    fn overhead_from_conf() {
        let s = settings(&["--executor-memory", "4g", "--driver-memory", "2g"]).unwrap();
        assert_eq!(
            (s.executor_memory_mb, s.executor_memory_overhead_mb),
            (4096, 409)
        );
        assert_eq!(
            (s.driver_memory_mb, s.driver_memory_overhead_mb),
            (2048, 384)
        );
        assert_eq!(s.am_container_memory_mb(), 2432);
        let explicit = settings(&["--conf", "spark.executor.memoryOverhead=1g"]).unwrap();
        assert_eq!(explicit.executor_memory_overhead_mb, 1024);
        let legacy = settings(&["--conf", "spark.yarn.driver.memoryOverhead=500"]).unwrap();
        assert_eq!(legacy.driver_memory_overhead_mb, 500);
        let tuned = settings(&[
            "--conf",
            "spark.executor.memoryOverheadFactor=0.5",
            "--conf",
            "spark.executor.minMemoryOverhead=100m",
        ])
        .unwrap();
        assert_eq!(tuned.executor_memory_overhead_mb, 512);
    }

    #[test]
    fn bad_overhead_factor() {
        assert_eq!(
            settings(&["--conf", "spark.driver.memoryOverheadFactor=0"]).unwrap_err(),
            UserError::illegal_argument(
                "'0.0' in spark.driver.memoryOverheadFactor is invalid. Ensure that memory \
                 overhead is a double greater than 0"
            )
        );
    }

    #[test]
    fn bad_memory_value_names_key() {
        let err = settings(&["--conf", "spark.executor.memoryOverhead=1gi"]).unwrap_err();
        assert_eq!(
            err,
            UserError::number_format(
                "Illegal value for config key spark.executor.memoryOverhead: Size must be \
                 specified as bytes (b), kibibytes (k), mebibytes (m), gibibytes (g), tebibytes \
                 (t), or pebibytes(p). E.g. 50b, 100k, or 250m.\nInvalid suffix: \"gi\""
            )
        );
    }

    #[test]
    fn defaults() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.app_name, "org.example.Pi");
        assert_eq!(s.app_args, vec!["10"]);
        assert_eq!(
            (s.queue.as_str(), s.application_type.as_str()),
            ("default", "SPARK")
        );
        assert_eq!(
            (
                s.driver_memory_mb,
                s.driver_memory_overhead_mb,
                s.driver_cores
            ),
            (1024, 384, 1)
        );
        assert_eq!(
            (
                s.executor_memory_mb,
                s.executor_memory_overhead_mb,
                s.executor_cores
            ),
            (1024, 384, 1)
        );
        assert_eq!(
            (s.executor_offheap_mb, s.executor_pyspark_memory_mb),
            (0, 0)
        );
        assert_eq!(s.executor_instances, None);
        assert_eq!((s.task_cpus, s.task_max_failures), (1, 4));
        assert_eq!(s.am_wait_time_ms, 100_000);
        assert_eq!((s.max_app_attempts, s.max_executor_failures), (None, None));
        assert_eq!(s.executor_failures_validity_interval_ms, None);
        assert_eq!(
            (s.report_interval_ms, s.report_logging_frequency),
            (1000, 30)
        );
        assert!(s.wait_app_completion);
        assert_eq!(
            (s.am_heartbeat_interval_ms, s.initial_allocation_interval_ms),
            (3000, 200)
        );
        assert_eq!(s.min_registered_resources_ratio, 0.8);
        assert_eq!(s.max_registered_resources_waiting_time_ms, 30_000);
        assert_eq!(s.revive_interval_ms, 1000);
        assert_eq!(s.network_timeout_ms, 120_000);
        assert_eq!(
            (s.ask_timeout_ms, s.ask_timeout_property.as_str()),
            (120_000, "spark.rpc.askTimeout")
        );
        assert_eq!(
            (s.lookup_timeout_ms, s.lookup_timeout_property.as_str()),
            (120_000, "spark.rpc.lookupTimeout")
        );
        assert_eq!(s.executor_heartbeat_interval_ms, 10_000);
        assert!(s.exclude_nodes.is_empty() && !s.launch_exclude_on_failure);
        assert_eq!(
            (
                s.max_failed_executors_per_node,
                s.exclude_on_failure_timeout_ms
            ),
            (2, 3_600_000)
        );
        // Spark 4.0.0's jar: spark.eventLog.compress true (zstd); no rolling size while the
        // event log is off.
        assert!(!s.event_log_enabled && s.event_log_compress);
        assert_eq!(s.event_log_rolling_max_file_size, None);
        assert_eq!(s.event_log_dir, "file:///tmp/spark-events");
        assert_eq!(
            s.properties.get("spark.master").map(String::as_str),
            Some("yarn")
        );
    }

    // config/package.scala: LOCALITY_WAIT (3s); LOCALITY_WAIT_PROCESS / _NODE / _RACK fall back to
    // it (TaskSetManager.getLocalityWait); SHUFFLE_REDUCE_LOCALITY_ENABLE (true);
    // LEGACY_LOCALITY_WAIT_RESET (false).
    #[test]
    fn locality_waits_fall_back_to_spark_locality_wait() {
        assert_eq!(settings(&[]).unwrap().locality, LocalitySettings::default());
        let s = settings(&[
            "--conf",
            "spark.locality.wait=1s",
            "--conf",
            "spark.locality.wait.rack=0",
            "--conf",
            "spark.shuffle.reduceLocality.enabled=false",
        ])
        .unwrap();
        assert_eq!(
            (
                s.locality.wait_process_ms,
                s.locality.wait_node_ms,
                s.locality.wait_rack_ms,
                s.locality.reduce_locality_enabled
            ),
            (1000, 1000, 0, false)
        );
    }

    #[test]
    fn timeouts_fall_back_to_network_timeout() {
        let s = settings(&["--conf", "spark.network.timeout=300"]).unwrap();
        assert_eq!(s.network_timeout_ms, 300_000);
        assert_eq!(
            (s.ask_timeout_ms, s.ask_timeout_property.as_str()),
            (300_000, "spark.network.timeout")
        );
        let s = settings(&[
            "--conf",
            "spark.network.timeout=300s",
            "--conf",
            "spark.rpc.askTimeout=10s",
        ])
        .unwrap();
        assert_eq!(
            (s.ask_timeout_ms, s.ask_timeout_property.as_str()),
            (10_000, "spark.rpc.askTimeout")
        );
        assert_eq!(s.lookup_timeout_property, "spark.network.timeout");
    }

    #[test]
    fn explicit_values() {
        let s = settings(&[
            "--num-executors",
            "3",
            "--name",
            "MyPi",
            "--queue",
            "etl",
            "--conf",
            "spark.yarn.applicationType=A-VERY-LONG-APPLICATION-TYPE",
            "--conf",
            "spark.yarn.max.executor.failures=7",
            "--conf",
            "spark.executor.failuresValidityInterval=1h",
            "--conf",
            "spark.scheduler.minRegisteredResourcesRatio=2",
            "--conf",
            "spark.yarn.exclude.nodes=nm-1,nm-2",
            "--conf",
            "spark.memory.offHeap.enabled=true",
            "--conf",
            "spark.memory.offHeap.size=512m",
        ])
        .unwrap();
        assert_eq!((s.app_name.as_str(), s.queue.as_str()), ("MyPi", "etl"));
        assert_eq!(s.application_type, "A-VERY-LONG-APPLICAT");
        assert_eq!(s.application_type.chars().count(), 20);
        assert_eq!(
            (s.executor_instances, s.max_executor_failures),
            (Some(3), Some(7))
        );
        assert_eq!(s.executor_failures_validity_interval_ms, Some(3_600_000));
        assert_eq!(s.min_registered_resources_ratio, 1.0);
        assert_eq!(s.exclude_nodes, vec!["nm-1", "nm-2"]);
        assert_eq!(s.executor_offheap_mb, 512);
        assert_eq!(s.executor_container_memory_mb(), 1024 + 384 + 512);
    }

    #[test]
    fn offheap_enabled_needs_size() {
        assert_eq!(
            settings(&["--conf", "spark.memory.offHeap.enabled=true"]).unwrap_err(),
            UserError::illegal_argument(
                "requirement failed: spark.memory.offHeap.size must be > 0 when \
                 spark.memory.offHeap.enabled == true"
            )
        );
    }

    // internal/config/package.scala EVENT_LOG_ENABLE_ROLLING (true in 4.0.0) and
    // EVENT_LOG_ROLLING_MAX_FILE_SIZE: 128m, bytes, at least 10 MiB (TypedConfigBuilder.checkValue).
    #[test]
    fn event_logs_roll_at_128m_by_default_and_refuse_less_than_10_mib() {
        let on = ["--conf", "spark.eventLog.enabled=true"];
        let s = settings(&on).expect("settings");
        assert_eq!(s.event_log_rolling_max_file_size, Some(128 << 20));
        let with = |extra: &[&'static str]| settings(&[&on[..], extra].concat());
        let s = with(&["--conf", "spark.eventLog.rolling.maxFileSize=10m"]).expect("10m");
        assert_eq!(s.event_log_rolling_max_file_size, Some(10 << 20));
        let s = with(&["--conf", "spark.eventLog.rolling.enabled=false"]).expect("single");
        assert_eq!(s.event_log_rolling_max_file_size, None);
        assert_eq!(
            with(&["--conf", "spark.eventLog.rolling.maxFileSize=1048576"]).unwrap_err(),
            UserError::illegal_argument(
                "'1048576' in spark.eventLog.rolling.maxFileSize is invalid. Max file size of \
                 event log should be configured to be at least 10 MiB."
            )
        );
        // Spark reads the size only for the rolling writer.
        let off = ["--conf", "spark.eventLog.rolling.maxFileSize=1k"];
        assert!(settings(&off).is_ok());
        // ZStdCompressionCodec's level (spark.io.compression.zstd.level, an intConf).
        assert_eq!(
            with(&["--conf", "spark.io.compression.zstd.level=high"]).unwrap_err(),
            UserError::illegal_argument(
                "spark.io.compression.zstd.level should be int, but was high"
            )
        );
    }

    #[test]
    fn bad_types_name_the_key() {
        assert_eq!(
            settings(&["--conf", "spark.eventLog.enabled=yes"]).unwrap_err(),
            UserError::illegal_argument("spark.eventLog.enabled should be boolean, but was yes")
        );
        assert_eq!(
            settings(&["--conf", "spark.task.maxFailures=many"]).unwrap_err(),
            UserError::illegal_argument("spark.task.maxFailures should be int, but was many")
        );
        assert_eq!(
            settings(&["--conf", "spark.task.cpus=0"]).unwrap_err(),
            UserError::illegal_argument("spark.task.cpus must be at least 1, but was 0")
        );
    }

    // Spark 4.0.0's config package (read in its jar): the barrier slot check's interval is a
    // timeConf in seconds (15s), its maxFailures an intConf (40) whose checkValue wants a
    // positive value; the executor's maxDirectResultSize is the smaller of
    // spark.task.maxDirectResultSize (1m) and spark.rpc.message.maxSize (128, MiB).
    #[test]
    fn barrier_checks_and_direct_results_read_sparks_keys() {
        let s = settings(&[]).expect("defaults");
        assert_eq!(
            (s.barrier_check.interval_ms, s.barrier_check.max_failures),
            (15_000, 40)
        );
        assert_eq!(s.max_direct_result_size, 1 << 20);
        let s = settings(&[
            "--conf",
            "spark.scheduler.barrier.maxConcurrentTasksCheck.interval=2min",
            "--conf",
            "spark.rpc.message.maxSize=1",
            "--conf",
            "spark.task.maxDirectResultSize=4m",
        ])
        .expect("valid");
        assert_eq!(s.barrier_check.interval_ms, 120_000);
        assert_eq!(s.max_direct_result_size, 1 << 20);
        assert_eq!(
            settings(&[
                "--conf",
                "spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=0"
            ])
            .unwrap_err(),
            UserError::illegal_argument(
                "'0' in spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures is invalid. The max failures should be a positive value."
            )
        );
    }

    /// `spark.executor.decommission.forceKillTimeout` is `timeConf(TimeUnit.SECONDS)` with no
    /// default (internal/config/package.scala EXECUTOR_DECOMMISSION_FORCE_KILL_TIMEOUT): parsed
    /// once here, for the driver; a bare number is seconds; a bad value names the key.
    #[test]
    fn force_kill_timeout_is_typed_in_seconds() {
        let key = "spark.executor.decommission.forceKillTimeout";
        let of = |v: &str| settings(&["--conf", &format!("{key}={v}")]);
        assert_eq!(
            settings(&[]).unwrap().decommission_force_kill_timeout_s,
            None
        );
        assert_eq!(of("2s").unwrap().decommission_force_kill_timeout_s, Some(2));
        assert_eq!(
            of("90").unwrap().decommission_force_kill_timeout_s,
            Some(90)
        );
        assert_eq!(
            of("2min").unwrap().decommission_force_kill_timeout_s,
            Some(120)
        );
        let e = of("soon").unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }

    /// `spark.executor.decommission.killInterval` is `timeConf(TimeUnit.SECONDS)` with no
    /// default (internal/config/package.scala EXECUTOR_DECOMMISSION_KILL_INTERVAL); the
    /// TaskSetManager reads it as `map(TimeUnit.SECONDS.toMillis)` (Spark 4.0.0 jar), so a
    /// bare number is seconds and it reaches the speculation settings in ms. A bad value is
    /// refused, naming the key, with speculation off too.
    #[test]
    fn kill_interval_reaches_speculation_in_ms() {
        let key = "spark.executor.decommission.killInterval";
        let on = |v: &str| {
            settings(&[
                "--conf",
                "spark.speculation=true",
                "--conf",
                &format!("{key}={v}"),
            ])
        };
        let interval = |v: &str| {
            on(v)
                .unwrap()
                .speculation
                .unwrap()
                .decommission_kill_interval_ms
        };
        assert_eq!(interval("5s"), Some(5000));
        assert_eq!(interval("90"), Some(90_000));
        assert_eq!(interval("2min"), Some(120_000));
        let spec = settings(&["--conf", "spark.speculation=true"])
            .unwrap()
            .speculation;
        assert_eq!(spec.unwrap().decommission_kill_interval_ms, None);
        let e = settings(&["--conf", &format!("{key}=soon")])
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{e}");
    }

    /// HealthTracker.validateExcludeOnFailureConfs (4.0.0 jar) runs only when exclusion is on
    /// (HealthTracker exists); legacy `spark.blacklist.*` names are read through the
    /// alternates; a bad type names the key.
    #[test]
    fn exclusion_confs_are_checked_when_exclusion_is_on() {
        let node = "spark.excludeOnFailure.task.maxTaskAttemptsPerNode=4";
        assert!(settings(&["--conf", node]).is_ok());
        let err = settings(&[
            "--conf",
            "spark.excludeOnFailure.enabled=true",
            "--conf",
            node,
        ])
        .unwrap_err();
        assert_eq!(
            err,
            UserError::illegal_argument(
                "spark.excludeOnFailure.task.maxTaskAttemptsPerNode ( = 4) was >= \
                 spark.task.maxFailures ( = 4 ). Though excludeOnFailure is enabled, with this \
                 configuration, Spark will not be robust to one bad node. Decrease \
                 spark.excludeOnFailure.task.maxTaskAttemptsPerNode, increase \
                 spark.task.maxFailures, or disable excludeOnFailure with \
                 spark.excludeOnFailure.enabled"
            )
        );
        let legacy = settings(&[
            "--conf",
            "spark.blacklist.enabled=true",
            "--conf",
            "spark.blacklist.application.maxFailedTasksPerExecutor=0",
        ]);
        assert_eq!(
            legacy.unwrap_err(),
            UserError::illegal_argument(
                "spark.excludeOnFailure.application.maxFailedTasksPerExecutor was 0, but must be \
                 > 0."
            )
        );
        let typed = settings(&["--conf", "spark.excludeOnFailure.enabled=sure"]);
        assert_eq!(
            typed.unwrap_err(),
            UserError::illegal_argument(
                "spark.excludeOnFailure.enabled should be boolean, but was sure"
            )
        );
        let req = super::super::submit::tests::parse(&[
            "--conf",
            "spark.blacklist.killBlacklistedExecutors=true",
            "--conf",
            "spark.scheduler.executorTaskBlacklistTime=5s",
            "app.jar",
        ])
        .into_request(DefaultsFile::Embedded(""))
        .unwrap();
        let c = exclude_on_failure_conf(&req.conf).unwrap();
        assert!(c.kill_excluded_executors);
        assert_eq!(c.legacy_timeout_ms, Some(5000));
        assert!(c.is_exclude_on_failure_enabled().enabled);
    }

    /// The executor reads its settings back from the properties the driver hands it
    /// (`sparkyard_actors::simulation::facts::ExecutorConf`); they must be what the
    /// submission's typed settings say.
    #[test]
    fn executor_conf_from_fetched_properties_matches_the_settings() {
        use sparkyard_actors::simulation::facts::ExecutorConf;
        let cases: &[&[&str]] = &[
            &[],
            &["--conf", "spark.executor.heartbeatInterval=2500ms"],
            &["--conf", "spark.executor.heartbeatInterval=3"],
            &["--conf", "spark.network.timeout=300s"],
            &[
                "--conf",
                "spark.network.timeout=5min",
                "--conf",
                "spark.rpc.askTimeout=1500ms",
            ],
            &["--conf", "spark.rpc.lookupTimeout=42"],
            &["--conf", "spark.executor.heartbeat.maxFailures=3"],
        ];
        for extra in cases {
            let s = settings(extra).unwrap();
            let props: Vec<(String, String)> = s
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let c = ExecutorConf::from_properties(&props);
            // The submit side only checks the count; the executors read it.
            let max_failures = props
                .iter()
                .find(|(k, _)| k == "spark.executor.heartbeat.maxFailures")
                .map_or(60, |(_, v)| v.parse().unwrap());
            let want = ExecutorConf {
                heartbeat_interval_ms: s.executor_heartbeat_interval_ms,
                heartbeat_max_failures: max_failures,
                ask_timeout_ms: s.ask_timeout_ms,
                ask_timeout_property: s.ask_timeout_property.clone(),
                lookup_timeout_ms: s.lookup_timeout_ms,
                lookup_timeout_property: s.lookup_timeout_property.clone(),
                decommission_enabled: s.decommission_enabled,
                storage_decommission: false,
                storage_decommission_blocks: true,
                decommissioner: ExecutorConf::default_decommissioner(),
            };
            assert_eq!(c, want, "{extra:?}");
        }
    }
}
