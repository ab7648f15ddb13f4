//! The registry of every Spark, Hadoop and YARN key sparkyard reads: name, Spark's (or
//! Hadoop's) default, the class it comes from and what sparkyard does with it (simulated,
//! recorded only, refused); the one warning a user-set key that is not simulated gets; the
//! `sparkyard keys` table and the README's copy of it. The keys mirror Spark 4.0.0's
//! `org.apache.spark.internal.config` (`package$`), `org.apache.spark.deploy.yarn.config`,
//! `SparkSubmitArguments`, and Hadoop 3.4's `YarnConfiguration` /
//! `CapacitySchedulerConfiguration`.
//!
//! `registry_covers_every_key_literal_in_the_source` (below) scans `src/` and `actors/src/`:
//! every key-like string literal outside tests must be a registered key, family prefix or
//! template, so a new key read cannot go unregistered.

use std::collections::BTreeMap;
use std::fmt;

/// What sparkyard does with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyStatus {
    /// Changes the run as it changes Spark's or YARN's (or is ignored where Spark ignores it).
    Simulated,
    /// Accepted and kept (the event log's environment, `--verbose`), but the run does not act
    /// on it: a user who sets it gets a warning.
    Recorded,
    /// Setting it fails the submission (with Spark's own text where Spark refuses it too).
    Refused,
}

impl KeyStatus {
    pub fn name(self) -> &'static str {
        match self {
            KeyStatus::Simulated => "simulated",
            KeyStatus::Recorded => "recorded",
            KeyStatus::Refused => "refused",
        }
    }

    /// `simulated`, `recorded` or `refused` (the `--status` argument).
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Simulated, Self::Recorded, Self::Refused]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

impl fmt::Display for KeyStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One key (or, for a [`FAMILIES`] entry, every key under a prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub name: &'static str,
    /// Spark's or Hadoop's default as its docs state it (`-` for none).
    pub default: &'static str,
    /// The class (or config object) the key and default come from.
    pub source: &'static str,
    pub status: KeyStatus,
    /// What sparkyard does with it, briefly.
    pub note: &'static str,
    /// spark-submit's own warning already names the key (`--packages`,
    /// `--total-executor-cores`): the registry adds none.
    pub warned_elsewhere: bool,
}

const fn key(
    name: &'static str,
    default: &'static str,
    source: &'static str,
    status: KeyStatus,
    note: &'static str,
) -> Key {
    Key {
        name,
        default,
        source,
        status,
        note,
        warned_elsewhere: false,
    }
}

const fn warned(k: Key) -> Key {
    Key {
        warned_elsewhere: true,
        ..k
    }
}

use KeyStatus::{Recorded as R, Refused as X, Simulated as S};

const CONFIG: &str = "internal.config";
const YARN_CONFIG: &str = "deploy.yarn.config";
const SUBMIT: &str = "SparkSubmitArguments";
const YARN_SITE: &str = "YarnConfiguration";
const CAPACITY: &str = "CapacitySchedulerConfiguration";

const REFUSED_RESOURCE: &str = "ResourceRequestHelper.validateResources: `Error: Do not use <key>, please use <Spark property> instead!`";

/// Every key sparkyard reads, sorted by name (a test checks the order).
#[rustfmt::skip]
pub const KEYS: &[Key] = &[
    key("fs.defaultFS", "hdfs://<rm host>:8020", "CommonConfigurationKeysPublic", S, "the cluster's file system in the Hadoop configuration a Spark JVM sees"),
    key("fs.s3a.downgrade.syncable.exceptions", "true", "SparkHadoopUtil", R, "set by Spark in the driver's Hadoop configuration: recorded in the event log's Hadoop Properties"),
    key("ipc.client.rpc-timeout.ms", "120000", "CommonConfigurationKeys", S, "the timeout named by the RM's and NMs' IPC asks"),
    key("mapreduce.fileoutputcommitter.algorithm.version", "1", "SparkHadoopUtil", R, "set by Spark in the driver's Hadoop configuration: recorded in the event log's Hadoop Properties"),
    key("spark.app.id", "the YARN application id", "SparkContext", S, "set by the SparkContext"),
    key("spark.app.name", "the main class", SUBMIT, S, "--name"),
    key("spark.app.startTime", "the SparkContext's start", "SparkContext", S, "set by the SparkContext"),
    key("spark.app.submitTime", "the submission time", "SparkSubmit", S, "set by spark-submit"),
    key("spark.archives", "-", CONFIG, S, "--archives: spark.yarn.dist.archives on YARN"),
    key("spark.authenticate.secret", "-", CONFIG, R, "kept off the executors' command lines, as SparkConf.isExecutorStartupConf does; no authentication is simulated"),
    key("spark.blacklist.application.fetchFailure.enabled", "false", CONFIG, S, "legacy name of spark.excludeOnFailure.application.fetchFailure.enabled"),
    key("spark.blacklist.application.maxFailedExecutorsPerNode", "2", CONFIG, S, "legacy name of spark.excludeOnFailure.application.maxFailedExecutorsPerNode"),
    key("spark.blacklist.application.maxFailedTasksPerExecutor", "2", CONFIG, S, "legacy name of spark.excludeOnFailure.application.maxFailedTasksPerExecutor"),
    key("spark.blacklist.enabled", "-", CONFIG, S, "legacy name of spark.excludeOnFailure.enabled"),
    key("spark.blacklist.killBlacklistedExecutors", "false", CONFIG, S, "legacy name of spark.excludeOnFailure.killExcludedExecutors"),
    key("spark.blacklist.stage.maxFailedExecutorsPerNode", "2", CONFIG, S, "legacy name of spark.excludeOnFailure.stage.maxFailedExecutorsPerNode"),
    key("spark.blacklist.stage.maxFailedTasksPerExecutor", "2", CONFIG, S, "legacy name of spark.excludeOnFailure.stage.maxFailedTasksPerExecutor"),
    key("spark.blacklist.task.maxTaskAttemptsPerExecutor", "1", CONFIG, S, "legacy name of spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor"),
    key("spark.blacklist.task.maxTaskAttemptsPerNode", "2", CONFIG, S, "legacy name of spark.excludeOnFailure.task.maxTaskAttemptsPerNode"),
    key("spark.blacklist.timeout", "1h", CONFIG, S, "legacy name of spark.excludeOnFailure.timeout"),
    key("spark.buffer.size", "65536", CONFIG, R, "recorded in the event log's Hadoop Properties as io.file.buffer.size"),
    warned(key("spark.cores.max", "-", CONFIG, S, "--total-executor-cores: ignored on YARN, as Spark ignores it, with a warning")),
    key("spark.decommission.enabled", "false", CONFIG, S, "executor decommissioning"),
    key("spark.driver.cores", "1", CONFIG, S, "--driver-cores: the AM container's vcores in cluster mode"),
    key("spark.driver.extraClassPath", "-", CONFIG, R, "--driver-class-path: shown by --verbose and in the event log"),
    key("spark.driver.extraJavaOptions", "-", CONFIG, R, "--driver-java-options: on the AM's command line and in the event log; no JVM option acts"),
    key("spark.driver.extraLibraryPath", "-", CONFIG, R, "--driver-library-path: shown by --verbose and in the event log"),
    key("spark.driver.host", "the AM's host", "ApplicationMaster", S, "set by the ApplicationMaster"),
    key("spark.driver.maxResultSize", "1g", CONFIG, S, "TaskSetManager's result size limit"),
    key("spark.driver.memory", "1g", CONFIG, S, "--driver-memory: the AM container in cluster mode"),
    key("spark.driver.memoryOverhead", "driver memory x factor, at least 384m", CONFIG, S, "the AM container's overhead"),
    key("spark.driver.memoryOverheadFactor", "0.1", CONFIG, S, "the AM container's overhead"),
    key("spark.driver.minMemoryOverhead", "384m", CONFIG, S, "the AM container's overhead"),
    key("spark.driver.port", "0 (any free port)", CONFIG, R, "sparkyard picks the driver's port"),
    key("spark.driver.resource.fpga.amount", "-", CONFIG, S, "the driver's discovery of its FPGAs in the SparkContext; the AM container's yarn.io/fpga ask: Spark's \"YARN doesn't know about resource\" warning (sparkyard's YARN has no FPGA type)"),
    key("spark.driver.resource.gpu.amount", "-", CONFIG, S, "the driver's discovery of its GPUs in the SparkContext; the AM container's yarn.io/gpu ask (ResourceRequestHelper)"),
    key("spark.dynamicAllocation.cachedExecutorIdleTimeout", "infinity", CONFIG, S, "ExecutorMonitor"),
    key("spark.dynamicAllocation.enabled", "false", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.executorAllocationRatio", "1.0", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.executorIdleTimeout", "60s", CONFIG, S, "ExecutorMonitor"),
    key("spark.dynamicAllocation.initialExecutors", "spark.dynamicAllocation.minExecutors", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.maxExecutors", "infinity", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.minExecutors", "0", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.schedulerBacklogTimeout", "1s", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.dynamicAllocation.shuffleTracking.enabled", "true", CONFIG, S, "ExecutorMonitor"),
    key("spark.dynamicAllocation.shuffleTracking.timeout", "infinity", CONFIG, S, "ExecutorMonitor"),
    key("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", "spark.dynamicAllocation.schedulerBacklogTimeout", CONFIG, S, "ExecutorAllocationManager"),
    key("spark.eventLog.compress", "true", CONFIG, S, "zstd event logs"),
    key("spark.eventLog.compression.codec", "zstd", CONFIG, S, "zstd only; other codecs are refused"),
    key("spark.eventLog.dir", "file:///tmp/spark-events", CONFIG, S, "where the event log is written"),
    key("spark.eventLog.enabled", "false", CONFIG, S, "writes Spark's event log"),
    key("spark.eventLog.logBlockUpdates.enabled", "false", CONFIG, S, "SparkListenerBlockUpdated of broadcast pieces, cached RDD blocks and migrated shuffle blocks"),
    key("spark.eventLog.overwrite", "false", CONFIG, S, "EventLogFileWriter's existing-log checks"),
    key("spark.eventLog.rolling.enabled", "true", CONFIG, S, "RollingEventLogFilesWriter"),
    key("spark.eventLog.rolling.maxFileSize", "128m", CONFIG, S, "RollingEventLogFilesWriter; under 10 MiB refused with Spark's text"),
    key("spark.excludeOnFailure.application.enabled", "-", CONFIG, S, "turns the HealthTracker on or off, before spark.excludeOnFailure.enabled"),
    key("spark.excludeOnFailure.application.fetchFailure.enabled", "false", CONFIG, S, "the HealthTracker excludes the executor a fetch failed from (its node with the external shuffle service)"),
    key("spark.excludeOnFailure.application.maxFailedExecutorsPerNode", "2", CONFIG, S, "the HealthTracker excludes a node with this many excluded executors; also the YarnAllocator's launch-failure exclusion (YarnAllocatorNodeHealthTracker)"),
    key("spark.excludeOnFailure.application.maxFailedTasksPerExecutor", "2", CONFIG, S, "the HealthTracker excludes an executor with this many failed tasks in successful task sets"),
    key("spark.excludeOnFailure.enabled", "-", CONFIG, S, "the HealthTracker (application) and each task set's TaskSetExcludelist (task and stage) exclude executors and nodes after failures"),
    key("spark.excludeOnFailure.killExcludedExecutors", "false", CONFIG, S, "the driver kills an executor the HealthTracker excludes (all executors of an excluded node); YARN replaces them"),
    key("spark.excludeOnFailure.killExcludedExecutors.decommission", "false", CONFIG, S, "the driver decommissions them instead of killing them"),
    key("spark.excludeOnFailure.stage.maxFailedExecutorsPerNode", "2", CONFIG, S, "TaskSetExcludelist: excluded executors on a node that exclude the node for the stage"),
    key("spark.excludeOnFailure.stage.maxFailedTasksPerExecutor", "2", CONFIG, S, "TaskSetExcludelist: failed tasks on an executor that exclude it for the stage"),
    key("spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor", "1", CONFIG, S, "TaskSetExcludelist: failed attempts of a task on an executor that exclude the task there"),
    key("spark.excludeOnFailure.task.maxTaskAttemptsPerNode", "2", CONFIG, S, "TaskSetExcludelist: failed attempts of a task on a node that exclude the task there"),
    key("spark.excludeOnFailure.taskAndStage.enabled", "-", CONFIG, S, "turns the task sets' exclusion on or off, before spark.excludeOnFailure.enabled (with the HealthTracker alone their lists only count)"),
    key("spark.excludeOnFailure.timeout", "1h", CONFIG, S, "the HealthTracker's exclusions expire after it; also the YarnAllocator's launch-failure exclusion"),
    key("spark.executor.cores", "1", CONFIG, S, "--executor-cores"),
    key("spark.executor.decommission.forceKillTimeout", "-", CONFIG, S, "the driver kills a decommissioning executor after it"),
    key("spark.executor.decommission.killInterval", "-", CONFIG, S, "with spark.speculation, a task on a decommissioning executor that would finish after the kill is speculatable"),
    key("spark.executor.extraJavaOptions", "-", CONFIG, R, "on the executors' command lines and in the event log; no JVM option acts"),
    key("spark.executor.failuresValidityInterval", "-", CONFIG, S, "ExecutorFailureTracker"),
    key("spark.executor.heartbeat.maxFailures", "60", CONFIG, S, "heartbeats failed in a row before an executor exits 56"),
    key("spark.executor.heartbeatInterval", "10s", CONFIG, S, "executor heartbeats"),
    key("spark.executor.id", "driver", "SparkContext", S, "set by the SparkContext"),
    key("spark.executor.instances", "2 on YARN", CONFIG, S, "--num-executors"),
    key("spark.executor.maxNumFailures", "max(2 x executors, 3)", CONFIG, S, "the AM's executor-failure limit"),
    key("spark.executor.memory", "1g", CONFIG, S, "--executor-memory"),
    key("spark.executor.memoryOverhead", "executor memory x factor, at least 384m", CONFIG, S, "executor containers"),
    key("spark.executor.memoryOverheadFactor", "0.1", CONFIG, S, "executor containers"),
    key("spark.executor.minMemoryOverhead", "384m", CONFIG, S, "executor containers"),
    key("spark.executor.pyspark.memory", "-", CONFIG, R, "counts only for Python applications, which sparkyard refuses"),
    key("spark.executor.resource.fpga.amount", "-", CONFIG, S, "the default ResourceProfile's custom resources: Spark's checks, executor discovery, task slots and addresses; its yarn.io/fpga ask gets Spark's \"YARN doesn't know about resource\" warning (sparkyard's YARN has no FPGA type)"),
    key("spark.executor.resource.gpu.amount", "-", CONFIG, S, "the default ResourceProfile's custom resources: Spark's checks, executor discovery, task slots and addresses; the executor containers' yarn.io/gpu ask (ResourceRequestHelper)"),
    key("spark.executor.userClassPathFirst", "false", CONFIG, S, "the executors' class path"),
    key("spark.executorEnv.YARN_CONTAINER_RUNTIME_TYPE", "-", CONFIG, S, "the executors' container runtime (Hadoop's DelegatingLinuxContainerRuntime): `docker` stops a killed executor's container as Hadoop 3.1's Docker runtime does, after the cluster file's [costs] docker_stop_grace_ms and holding its node's other container events meanwhile (0: at once); a replay notes a log's"),
    key("spark.files", "-", CONFIG, S, "--files: spark.yarn.dist.files on YARN"),
    key("spark.files.fetchFailure.unRegisterOutputOnHost", "false", CONFIG, S, "DAGScheduler's handling of a fetch failure"),
    key("spark.hadoop.fs.s3a.vectored.read.max.merged.size", "2M", "SparkContext", R, "a default the SparkContext sets"),
    key("spark.hadoop.fs.s3a.vectored.read.min.seek.size", "128K", "SparkContext", R, "a default the SparkContext sets"),
    key("spark.history.ui.port", "18080", "History", S, "a ${spark.history.ui.port} reference (spark.yarn.historyServer.address) reads it, or its default when unset"),
    key("spark.io.compression.zstd.level", "1", CONFIG, S, "the event log's zstd level"),
    key("spark.jars", "-", CONFIG, S, "--jars: spark.yarn.dist.jars on YARN"),
    key("spark.jars.excludes", "-", CONFIG, R, "--exclude-packages: no Ivy/Maven resolution"),
    key("spark.jars.ivySettings", "-", CONFIG, R, "its scheme is checked as Spark checks it; no Ivy/Maven resolution"),
    warned(key("spark.jars.packages", "-", CONFIG, R, "--packages: no Ivy/Maven resolution, with a warning")),
    key("spark.jars.repositories", "-", CONFIG, R, "--repositories: no Ivy/Maven resolution"),
    key("spark.kerberos.keytab", "-", CONFIG, R, "--keytab: a missing file is refused with Spark's text; no KDC login"),
    key("spark.kerberos.principal", "-", CONFIG, R, "--principal: no KDC login"),
    key("spark.locality.wait", "3s", CONFIG, S, "delay scheduling"),
    key("spark.locality.wait.legacyResetOnTaskLaunch", "false", CONFIG, S, "delay scheduling"),
    key("spark.locality.wait.node", "spark.locality.wait", CONFIG, S, "delay scheduling"),
    key("spark.locality.wait.process", "spark.locality.wait", CONFIG, S, "delay scheduling"),
    key("spark.locality.wait.rack", "spark.locality.wait", CONFIG, S, "delay scheduling"),
    key("spark.master", "-", SUBMIT, S, "yarn only; any other master is refused"),
    key("spark.memory.offHeap.enabled", "false", CONFIG, S, "executor containers"),
    key("spark.memory.offHeap.size", "0", CONFIG, S, "executor containers"),
    key("spark.network.timeout", "120s", CONFIG, S, "RPC timeouts"),
    key("spark.rdd.scope", "-", "RDDOperationScope", S, "a job's local property, written to the event log"),
    key("spark.rdd.scope.noOverride", "-", "RDDOperationScope", S, "a job's local property, written to the event log"),
    key("spark.redaction.regex", "(?i)secret|password|token|access[.]?key", CONFIG, S, "redaction in --verbose, the event log and launch contexts"),
    key("spark.reducer.maxBlocksInFlightPerAddress", "2147483647", CONFIG, S, "blocks per shuffle fetch request and per address in flight; requests over it are deferred"),
    key("spark.reducer.maxMbInFlight", "-", "SparkConf", S, "legacy name of spark.reducer.maxSizeInFlight"),
    key("spark.reducer.maxReqsInFlight", "2147483647", CONFIG, S, "shuffle fetch requests in flight at once"),
    key("spark.reducer.maxSizeInFlight", "48m", CONFIG, S, "shuffle fetch requests' size (a fifth of it) and the bytes in flight at once"),
    key("spark.remote", "-", SUBMIT, X, "--remote: `Remote cannot be specified with master and/or deploy mode.`"),
    key("spark.rpc.askTimeout", "spark.network.timeout", CONFIG, S, "RPC asks"),
    key("spark.rpc.lookupTimeout", "spark.network.timeout", CONFIG, S, "endpoint lookups"),
    key("spark.rpc.message.maxSize", "128", "internal.config.Network", S, "MiB: caps the executor's direct task result (spark.task.maxDirectResultSize); on the executors' command lines"),
    key("spark.scheduler.allocation.file", "-", CONFIG, S, "FAIR mode's pools file, local (in a scenario, relative to the scenario's directory): each pool's schedulingMode, minShare, weight, then 'default' FIFO; a missing or non-XML file is refused"),
    key("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "15s", CONFIG, S, "the DAGScheduler's wait before it checks again that a job's barrier stage has a slot per task"),
    key("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "40", CONFIG, S, "failed barrier slot checks before the job fails ([SPARK-24819])"),
    key("spark.scheduler.blacklist.unschedulableTaskSetTimeout", "120s", CONFIG, S, "legacy name of spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout"),
    key("spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout", "120s", CONFIG, S, "TaskSchedulerImpl waits this long for a task set no executor may run before it aborts it"),
    key("spark.scheduler.executorTaskBlacklistTime", "-", CONFIG, S, "legacy timeout: the exclusion expiry when spark.excludeOnFailure.timeout is unset; turns exclusion on (> 0) or off (0) when the enabled keys are unset"),
    key("spark.scheduler.executorTaskExcludeOnFailureTime", "-", CONFIG, S, "legacy timeout: the exclusion expiry when spark.excludeOnFailure.timeout is unset; turns exclusion on (> 0) or off (0) when the enabled keys are unset"),
    key("spark.scheduler.maxRegisteredResourcesWaitingTime", "30s", CONFIG, S, "the SparkContext's wait for executors"),
    key("spark.scheduler.minRegisteredResourcesRatio", "0.8 on YARN", CONFIG, S, "the SparkContext's wait for executors"),
    key("spark.scheduler.mode", "FIFO", CONFIG, S, "FIFO, or FAIR with Spark 4.0's pools: spark.scheduler.allocation.file's, else 'default' FAIR; a pool a job names that no file configured is created FIFO, minShare 0, weight 1"),
    key("spark.scheduler.pool", "-", "SparkContext.setLocalProperty", S, "a job's FAIR pool (a scenario job's `pool`; a replayed log's jobs keep theirs)"),
    key("spark.scheduler.revive.interval", "1s", CONFIG, S, "DriverEndpoint's offers"),
    key("spark.shuffle.io.maxRetries", "3", CONFIG, S, "RetryingBlockTransferor's retries of a fetch that failed to connect, while the BlockManagerMaster still knows the server's executor (else ExecutorDeadException, not retried)"),
    key("spark.shuffle.io.retryWait", "5s", CONFIG, S, "the wait before each such fetch retry"),
    key("spark.shuffle.readHostLocalDisk", "true", CONFIG, S, "another executor's shuffle blocks on the same host are read from disk (host-local), not fetched"),
    key("spark.shuffle.reduceLocality.enabled", "true", CONFIG, S, "reduce tasks' preferred hosts"),
    key("spark.shuffle.service.enabled", "false", CONFIG, S, "the NodeManagers' spark_shuffle service"),
    key("spark.shuffle.service.port", "7337", CONFIG, S, "the NodeManagers' spark_shuffle service"),
    key("spark.speculation", "false", CONFIG, S, "speculative execution"),
    key("spark.speculation.efficiency.enabled", "true", CONFIG, S, "speculative execution"),
    key("spark.speculation.efficiency.longRunTaskFactor", "2", CONFIG, S, "speculative execution"),
    key("spark.speculation.efficiency.processRateMultiplier", "0.75", CONFIG, S, "speculative execution"),
    key("spark.speculation.interval", "100ms", CONFIG, S, "speculative execution"),
    key("spark.speculation.minTaskRuntime", "100ms", CONFIG, S, "speculative execution"),
    key("spark.speculation.multiplier", "3", CONFIG, S, "speculative execution"),
    key("spark.speculation.quantile", "0.9", CONFIG, S, "speculative execution"),
    key("spark.speculation.task.duration.threshold", "-", CONFIG, S, "speculative execution"),
    key("spark.stage.ignoreDecommissionFetchFailure", "true", CONFIG, S, "DAGScheduler's stage retries"),
    key("spark.stage.maxAttempts", "2147483647", CONFIG, S, "DAGScheduler's stage retries"),
    key("spark.stage.maxConsecutiveAttempts", "4", CONFIG, S, "DAGScheduler's stage retries"),
    key("spark.storage.cachedPeersTtl", "60000", CONFIG, S, "the block replication's peers"),
    key("spark.storage.decommission.enabled", "false", CONFIG, S, "block migration when decommissioning"),
    key("spark.storage.decommission.fallbackStorage.path", "-", CONFIG, R, "decommissioning migrates to peers only"),
    key("spark.storage.decommission.maxReplicationFailuresPerBlock", "3", CONFIG, S, "block migration when decommissioning"),
    key("spark.storage.decommission.rddBlocks.enabled", "true", CONFIG, S, "block migration when decommissioning"),
    key("spark.storage.decommission.replicationReattemptInterval", "30s", CONFIG, S, "block migration when decommissioning"),
    key("spark.storage.decommission.shuffleBlocks.enabled", "true", CONFIG, S, "block migration when decommissioning"),
    key("spark.storage.decommission.shuffleBlocks.maxDiskSize", "-", CONFIG, R, "no disk-size cap on migrated shuffle blocks"),
    key("spark.storage.decommission.shuffleBlocks.maxThreads", "8", CONFIG, S, "block migration when decommissioning"),
    key("spark.submit.deployMode", "client", CONFIG, S, "cluster only; client mode is refused"),
    key("spark.submit.pyFiles", "-", CONFIG, S, "--py-files: spark.yarn.dist.pyFiles on YARN"),
    key("spark.task.cpus", "1", CONFIG, S, "slots per executor"),
    key("spark.task.maxDirectResultSize", "1m", CONFIG, S, "a larger task result goes to the driver via the executor's BlockManager (Executor.TaskRunner's line)"),
    key("spark.task.maxFailures", "4", CONFIG, S, "TaskSetManager's retries"),
    key("spark.ui.custom.executor.log.url", "-", CONFIG, S, "ExecutorLogUrlHandler"),
    key("spark.ui.port", "4040 (0 in the AM)", CONFIG, S, "the AM sets 0, as Spark's ApplicationMaster does"),
    key("spark.unsafe.offHeap", "false", CONFIG, S, "legacy name of spark.memory.offHeap.enabled"),
    key("spark.yarn.am.attemptFailuresValidityInterval", "-", YARN_CONFIG, S, "YARN's AM attempt failure window"),
    key("spark.yarn.am.cores", "1", YARN_CONFIG, S, "client mode only: ignored in cluster mode, as Spark ignores it"),
    key("spark.yarn.am.memory", "512m", YARN_CONFIG, S, "client mode only: ignored in cluster mode, as Spark ignores it"),
    key("spark.yarn.am.nodeLabelExpression", "-", YARN_CONFIG, S, "the AM's container request"),
    key("spark.yarn.am.resource.cores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.resource.cpu-vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.resource.mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.resource.memory-mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.resource.memory.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.resource.vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.am.waitTime", "100s", YARN_CONFIG, S, "the AM's wait for the SparkContext"),
    key("spark.yarn.app.id", "the YARN application id", "ApplicationMaster", S, "set by the ApplicationMaster"),
    key("spark.yarn.applicationType", "SPARK", YARN_CONFIG, S, "the application's type in YARN"),
    key("spark.yarn.blacklist.executor.launch.blacklisting.enabled", "false", YARN_CONFIG, S, "legacy name of spark.yarn.executor.launch.excludeOnFailure.enabled"),
    key("spark.yarn.dist.archives", "-", YARN_CONFIG, S, "LocalResources of every container"),
    key("spark.yarn.dist.files", "-", YARN_CONFIG, S, "LocalResources of every container"),
    key("spark.yarn.dist.jars", "-", YARN_CONFIG, S, "LocalResources of every container"),
    key("spark.yarn.dist.pyFiles", "-", YARN_CONFIG, S, "LocalResources of every container"),
    key("spark.yarn.driver.memoryOverhead", "-", YARN_CONFIG, S, "legacy name of spark.driver.memoryOverhead"),
    key("spark.yarn.driver.resource.cores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.cpu-vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.memory-mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.memory.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.yarn.io/fpga.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.driver.resource.yarn.io/gpu.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.exclude.nodes", "-", YARN_CONFIG, S, "the YarnAllocator's excluded nodes"),
    key("spark.yarn.executor.failuresValidityInterval", "-", YARN_CONFIG, S, "legacy name of spark.executor.failuresValidityInterval"),
    key("spark.yarn.executor.launch.excludeOnFailure.enabled", "false", YARN_CONFIG, S, "YarnAllocatorNodeHealthTracker"),
    key("spark.yarn.executor.memoryOverhead", "-", YARN_CONFIG, S, "legacy name of spark.executor.memoryOverhead"),
    key("spark.yarn.executor.nodeLabelExpression", "-", YARN_CONFIG, S, "the executors' container requests; `&&` and `||` are refused"),
    key("spark.yarn.executor.resource.cores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.cpu-vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.memory-mb.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.memory.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.vcores.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.yarn.io/fpga.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.executor.resource.yarn.io/gpu.amount", "-", "ResourceRequestHelper", X, REFUSED_RESOURCE),
    key("spark.yarn.historyServer.address", "-", YARN_CONFIG, S, "the AM's final tracking URL"),
    key("spark.yarn.includeDriverLogsLink", "false", YARN_CONFIG, S, "the Client's reports"),
    key("spark.yarn.keytab", "-", YARN_CONFIG, R, "legacy name of spark.kerberos.keytab"),
    key("spark.yarn.max.executor.failures", "-", YARN_CONFIG, S, "legacy name of spark.executor.maxNumFailures"),
    key("spark.yarn.maxAppAttempts", "yarn.resourcemanager.am.max-attempts", YARN_CONFIG, S, "AM attempts"),
    key("spark.yarn.principal", "-", YARN_CONFIG, R, "legacy name of spark.kerberos.principal"),
    key("spark.yarn.priority", "-", YARN_CONFIG, S, "the application's priority in its queue"),
    key("spark.yarn.queue", "default", YARN_CONFIG, S, "--queue"),
    key("spark.yarn.report.interval", "1s", YARN_CONFIG, S, "the Client's reports"),
    key("spark.yarn.report.loggingFrequency", "30", YARN_CONFIG, S, "the Client's reports"),
    key("spark.yarn.resourceFpgaDeviceName", "yarn.io/fpga", YARN_CONFIG, S, "ResourceRequestHelper's checks"),
    key("spark.yarn.resourceGpuDeviceName", "yarn.io/gpu", YARN_CONFIG, S, "ResourceRequestHelper's checks"),
    key("spark.yarn.scheduler.heartbeat.interval-ms", "3s", YARN_CONFIG, S, "the AM's allocate calls"),
    key("spark.yarn.scheduler.initial-allocation.interval", "200ms", YARN_CONFIG, S, "the AM's allocate calls"),
    key("spark.yarn.scheduler.reporterThread.maxFailures", "5", YARN_CONFIG, S, "the RM's failures in a row after which the AM's Reporter gives up (exit 12)"),
    key("spark.yarn.submit.waitAppCompletion", "true", YARN_CONFIG, S, "the Client"),
    key("spark.yarn.tags", "-", YARN_CONFIG, S, "the application's tags in YARN"),
    key("yarn.am.liveness-monitor.expiry-interval-ms", "600000", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.cluster.max-application-priority", "0", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.http.policy", "HTTP_ONLY", YARN_SITE, S, "fixed"),
    key("yarn.nm.liveness-monitor.expiry-interval-ms", "600000", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.node-labels.enabled", "false", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.nodemanager.resource.cpu-vcores", "8", YARN_SITE, S, "the cluster file's [[nodes]]"),
    key("yarn.nodemanager.resource.memory-mb", "8192", YARN_SITE, S, "the cluster file's [[nodes]]"),
    key("yarn.nodemanager.runtime.linux.docker.stop.grace-period", "10", YARN_SITE, R, "a replayed log's value is named in its Docker note; the simulated grace is the cluster file's [costs] docker_stop_grace_ms"),
    key("yarn.nodemanager.sleep-delay-before-sigkill.ms", "250", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.resource-types", "-", "ResourceUtils", S, "the cluster file's [yarn]: yarn.io/gpu only"),
    key("yarn.resource-types.yarn.io/gpu.maximum-allocation", "9223372036854775807", "ResourceUtils", S, "the cluster file's [yarn]"),
    key("yarn.resourcemanager.address", "${yarn.resourcemanager.hostname}:8032", YARN_SITE, S, "fixed"),
    key("yarn.resourcemanager.admin.address", "${yarn.resourcemanager.hostname}:8033", YARN_SITE, S, "fixed"),
    key("yarn.resourcemanager.am.max-attempts", "2", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.resourcemanager.connect.max-wait.ms", "900000", YARN_SITE, S, "the timeout named by asks to the RM"),
    key("yarn.resourcemanager.hostname", "the cluster file's rm_host", YARN_SITE, S, "the cluster file"),
    key("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", "1000", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.resourcemanager.resource-tracker.address", "${yarn.resourcemanager.hostname}:8031", YARN_SITE, S, "fixed"),
    key("yarn.resourcemanager.scheduler.address", "${yarn.resourcemanager.hostname}:8030", YARN_SITE, S, "fixed"),
    key("yarn.resourcemanager.webapp.address", "${yarn.resourcemanager.hostname}:8088", YARN_SITE, S, "fixed"),
    key("yarn.resourcemanager.webapp.https.address", "${yarn.resourcemanager.hostname}:8090", YARN_SITE, S, "fixed"),
    key("yarn.scheduler.capacity.node-locality-delay", "40", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments", "100", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments", "1", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled", "true", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.capacity.rack-locality-additional-delay", "-1", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.capacity.rack-locality-full-reset", "true", CAPACITY, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.maximum-allocation-mb", "8192", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.maximum-allocation-vcores", "4", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.minimum-allocation-mb", "1024", YARN_SITE, S, "the cluster file's [yarn]"),
    key("yarn.scheduler.minimum-allocation-vcores", "1", YARN_SITE, S, "the cluster file's [yarn]"),
];

/// Every key under a prefix (a key of [`KEYS`] under it wins), sorted by prefix.
#[rustfmt::skip]
pub const FAMILIES: &[Key] = &[
    key("spark.auth", "-", "SparkConf.isExecutorStartupConf", R, "passed to the executors' command lines; no authentication is simulated"),
    key("spark.blacklist.", "-", CONFIG, R, "the exclusion keys' names before Spark 3.1 (their alternatives): those above are simulated; no other"),
    key("spark.driver.resource.", "-", "ResourceUtils", S, "the driver's custom resources (`<name>.amount`, `.discoveryScript`, `.vendor`): its SparkContext discovers them first (the script reports the addresses 0..n-1 of what the AM container holds; without a script the context fails, as Spark's ResourceDiscoveryScriptPlugin does)"),
    key("spark.dynamicAllocation.", "-", CONFIG, R, "the dynamic allocation keys above are simulated; no other"),
    key("spark.excludeOnFailure.", "-", CONFIG, R, "the exclusion on failure keys above are simulated; no other"),
    key("spark.executor.resource.", "-", "ResourceUtils", S, "custom executor resources (`<name>.amount`, `.discoveryScript`, `.vendor`): the default ResourceProfile, Spark's checks, executor discovery (the script reports the addresses 0..n-1 of what the container holds), task slots and addresses"),
    key("spark.executorEnv.", "-", CONFIG, S, "the executors' environment"),
    key("spark.hadoop.", "-", "SparkHadoopUtil", R, "in the Hadoop configuration a Spark JVM sees: only ${hadoopconf-KEY} in spark.yarn.historyServer.address reads it; the event log's Hadoop Properties record it"),
    key("spark.hive.", "-", "SparkHadoopUtil", R, "recorded in the event log's Hadoop Properties without its spark. prefix"),
    key("spark.network", "-", "SparkConf.isExecutorStartupConf", R, "passed to the executors' command lines"),
    key("spark.port.", "-", "SparkConf.isExecutorStartupConf", R, "passed to the executors' command lines"),
    key("spark.rpc", "-", "SparkConf.isExecutorStartupConf", R, "passed to the executors' command lines"),
    key("spark.ssl", "-", "SparkConf.isExecutorStartupConf", R, "passed to the executors' command lines; no TLS is simulated"),
    key("spark.task.resource.", "-", "ResourceUtils", S, "custom task resources (`<name>.amount`, a fraction <= 1 or a whole number): the default ResourceProfile's limit and each task's addresses"),
    key("spark.yarn.am.resource.", "-", YARN_CONFIG, R, "custom YARN resources are not simulated"),
    key("spark.yarn.appMasterEnv.", "-", YARN_CONFIG, S, "the AM's environment"),
    key("spark.yarn.driver.resource.", "-", YARN_CONFIG, R, "custom YARN resources are not simulated"),
    key("spark.yarn.executor.resource.", "-", YARN_CONFIG, R, "custom YARN resources are not simulated"),
];

/// Keys the code builds with `format!`, and the keys each stands for.
pub const TEMPLATES: &[(&str, &[&str])] = &[
    (
        "spark.{role}.memoryOverhead",
        &[
            "spark.driver.memoryOverhead",
            "spark.executor.memoryOverhead",
        ],
    ),
    (
        "spark.{role}.memoryOverheadFactor",
        &[
            "spark.driver.memoryOverheadFactor",
            "spark.executor.memoryOverheadFactor",
        ],
    ),
    (
        "spark.{role}.minMemoryOverhead",
        &[
            "spark.driver.minMemoryOverhead",
            "spark.executor.minMemoryOverhead",
        ],
    ),
    ("spark.hadoop.{key}", &["spark.hadoop."]),
];

/// The registry's entry for `name`: the key itself, else the longest family prefix.
pub fn lookup(name: &str) -> Option<&'static Key> {
    if let Ok(i) = KEYS.binary_search_by(|k| k.name.cmp(name)) {
        return Some(&KEYS[i]);
    }
    FAMILIES
        .iter()
        .filter(|f| name.starts_with(f.name))
        .max_by_key(|f| f.name.len())
}

/// A key the user set that sparkyard does not simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyNotice {
    pub key: String,
    /// The registry's entry, `None` for a key sparkyard does not read at all.
    pub entry: Option<&'static Key>,
}

impl KeyNotice {
    /// The console warning (the value is not shown: it may be a secret).
    pub fn warning(&self) -> String {
        match self.entry {
            Some(k) => format!(
                "Warning: {} is not simulated by sparkyard yet ({}); it has no effect on this run",
                self.key, k.note
            ),
            None => format!(
                "Warning: {} is not read by sparkyard; it has no effect on this run (it is only \
                 recorded in the event log's environment)",
                self.key
            ),
        }
    }
}

/// The keys of `props` the run will not act on: recorded-only keys and keys sparkyard does not
/// read, once each, in key order. Refused keys fail the submission elsewhere, and keys that
/// spark-submit's own warnings name are left to them.
pub fn not_simulated<'a>(props: impl IntoIterator<Item = &'a String>) -> Vec<KeyNotice> {
    props
        .into_iter()
        .filter_map(|k| match lookup(k) {
            Some(e) if e.status != KeyStatus::Recorded || e.warned_elsewhere => None,
            entry => Some(KeyNotice {
                key: k.clone(),
                entry,
            }),
        })
        .collect()
}

/// The run summary's line naming the keys the run did not act on (`None` when there are none).
pub fn summary_note(props: &BTreeMap<String, String>) -> Option<String> {
    let notices = not_simulated(props.keys());
    if notices.is_empty() {
        return None;
    }
    let names: Vec<&str> = notices.iter().map(|n| n.key.as_str()).collect();
    Some(format!(
        "keys set but not simulated (no effect on this run): {}",
        names.join(", ")
    ))
}

/// Markdown's `|` inside a cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The registry as a Markdown table (what `sparkyard keys` prints and the README holds), keys
/// then families (`prefix*`), optionally of one status.
pub fn markdown_table(status: Option<KeyStatus>) -> String {
    let mut out = String::from("| Key | Default | From | Status | What sparkyard does |\n");
    out.push_str("|---|---|---|---|---|\n");
    let families = FAMILIES.iter().map(|f| (format!("{}*", f.name), f));
    let keys = KEYS.iter().map(|k| (k.name.to_string(), k));
    for (name, k) in keys.chain(families) {
        if status.is_some_and(|s| s != k.status) {
            continue;
        }
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            cell(&name),
            cell(k.default),
            k.source,
            k.status,
            cell(k.note)
        ));
    }
    out
}

/// The README's markers around its copy of the table.
pub const README_BEGIN: &str = "<!-- keys table: generated by `sparkyard keys`; begin -->";
pub const README_END: &str = "<!-- keys table: end -->";

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
