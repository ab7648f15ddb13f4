//! The `SparkListenerEvent`s the replay reads, as `JsonProtocol` writes them (Spark 3.x and
//! 4.x field names; fields the replay does not need are skipped unread, absent optional ones
//! default). Mirrors `org.apache.spark.util.JsonProtocol.sparkEventFromJson`.

use serde::Deserialize;
use std::collections::BTreeMap;

/// One parsed event.
pub enum Event {
    LogStart {
        spark_version: String,
    },
    ApplicationStart(ApplicationStart),
    ApplicationEnd {
        timestamp: u64,
    },
    EnvironmentUpdate(Box<EnvironmentUpdate>),
    /// `SparkListenerResourceProfileAdded`: a stage-level resource profile (Spark 3.1+).
    ResourceProfileAdded(ResourceProfile),
    ExecutorAdded(ExecutorAdded),
    ExecutorRemoved(ExecutorRemoved),
    JobStart(JobStart),
    JobEnd(JobEnd),
    StageSubmitted(StageInfo),
    StageCompleted(StageInfo),
    TaskEnd(Box<TaskEnd>),
    /// A Spark event that does not change the replay (task start, block manager, SQL...).
    Ignored,
    /// A Spark event of an older release whose name Spark 3.1 replaced (the blacklisting
    /// events, `*Excluded*` since SPARK-32037), which the replay reads nothing from.
    Older(String),
    /// An event this version does not know (a newer Spark, a custom listener event).
    Unknown(String),
}

/// The package Jackson names the scheduler's events by when `JsonProtocol` has no case for
/// them (`SparkListenerEvent` is `@JsonTypeInfo(use = CLASS, property = "Event")`).
const SCHEDULER_PACKAGE: &str = "org.apache.spark.scheduler.";

/// Events of Spark 2.x and 3.0 that Spark 3.1 renamed (SPARK-32037, blacklist -> exclude;
/// the classes are still in 4.0.0's spark-core, deprecated): known, older, nothing to replay.
const OLDER: &[&str] = &[
    "SparkListenerExecutorBlacklisted",
    "SparkListenerExecutorUnblacklisted",
    "SparkListenerNodeBlacklisted",
    "SparkListenerNodeUnblacklisted",
    "SparkListenerExecutorBlacklistedForStage",
    "SparkListenerNodeBlacklistedForStage",
];

/// Events Spark writes that the replay reads nothing from.
const IGNORED: &[&str] = &[
    "SparkListenerTaskStart",
    "SparkListenerTaskGettingResult",
    "SparkListenerBlockManagerAdded",
    "SparkListenerBlockManagerRemoved",
    "SparkListenerUnpersistRDD",
    "SparkListenerBlockUpdated",
    "SparkListenerExecutorMetricsUpdate",
    "SparkListenerStageExecutorMetrics",
    "SparkListenerExecutorExcluded",
    "SparkListenerExecutorUnexcluded",
    "SparkListenerNodeExcluded",
    "SparkListenerNodeUnexcluded",
    "SparkListenerExecutorExcludedForStage",
    "SparkListenerNodeExcludedForStage",
    "SparkListenerSpeculativeTaskSubmitted",
    "SparkListenerUnschedulableTaskSetAdded",
    "SparkListenerUnschedulableTaskSetRemoved",
    "SparkListenerMiscellaneousProcessAdded",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate",
    "org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveSQLMetricUpdates",
    "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates",
    "org.apache.spark.sql.execution.ui.SparkListenerEffectiveSQLConf",
    "org.apache.spark.sql.streaming.StreamingQueryListener$QueryStartedEvent",
    "org.apache.spark.sql.streaming.StreamingQueryListener$QueryProgressEvent",
    "org.apache.spark.sql.streaming.StreamingQueryListener$QueryTerminatedEvent",
];

#[derive(Deserialize)]
pub struct ApplicationStart {
    #[serde(rename = "App Name", default)]
    pub app_name: String,
    #[serde(rename = "App ID")]
    pub app_id: Option<String>,
    #[serde(rename = "Timestamp")]
    pub timestamp: u64,
    /// The user the application ran as (`SparkContext.sparkUser`).
    #[serde(rename = "User", default)]
    pub user: String,
}

#[derive(Deserialize)]
struct ApplicationEnd {
    #[serde(rename = "Timestamp")]
    timestamp: u64,
}

#[derive(Deserialize)]
struct LogStart {
    #[serde(rename = "Spark Version", default)]
    spark_version: String,
}

/// `SparkListenerEnvironmentUpdate`: the properties the application ran with. Spark 3.0+
/// writes `Hadoop Properties` (the driver's Hadoop configuration: the YARN limits the cluster's
/// client config holds); every version writes `Classpath Entries` (a Spark 1.x log's only sign
/// of its version).
#[derive(Deserialize)]
pub struct EnvironmentUpdate {
    #[serde(rename = "Spark Properties", default)]
    pub spark_properties: BTreeMap<String, String>,
    #[serde(rename = "Hadoop Properties", default)]
    pub hadoop_properties: BTreeMap<String, String>,
    #[serde(rename = "Classpath Entries", default)]
    pub classpath_entries: BTreeMap<String, String>,
}

/// One resource of a profile's executor requests (`ExecutorResourceRequest`).
#[derive(Deserialize, Clone, Debug, PartialEq)]
pub struct ExecutorResourceRequest {
    #[serde(rename = "Amount", default)]
    pub amount: f64,
}

/// One resource of a profile's task requests (`TaskResourceRequest`).
#[derive(Deserialize, Clone, Debug, PartialEq)]
pub struct TaskResourceRequest {
    #[serde(rename = "Amount", default)]
    pub amount: f64,
}

/// `SparkListenerResourceProfileAdded`: a `ResourceProfile` by its id (0 is the default one,
/// built from the application's own `spark.executor.*` settings).
#[derive(Deserialize, Clone, Debug, PartialEq)]
pub struct ResourceProfile {
    #[serde(rename = "Resource Profile Id")]
    pub id: u32,
    /// By resource name: `cores`, `memory`, `offHeap`, `memoryOverhead`, `pyspark.memory`,
    /// or a custom resource (`gpu`, `fpga`...).
    #[serde(rename = "Executor Resource Requests", default)]
    pub executor: BTreeMap<String, ExecutorResourceRequest>,
    /// By resource name: `cpus` or a custom resource.
    #[serde(rename = "Task Resource Requests", default)]
    pub task: BTreeMap<String, TaskResourceRequest>,
}

#[derive(Deserialize)]
pub struct ExecutorInfo {
    #[serde(rename = "Host", default)]
    pub host: String,
    #[serde(rename = "Total Cores", default)]
    pub total_cores: u32,
    /// Custom resources the executor found (`ResourceInformation` by name: GPUs and the like).
    #[serde(rename = "Resources", default)]
    pub resources: BTreeMap<String, ResourceInformation>,
    /// Its resource profile (Spark 3.1+; the default profile 0 before).
    #[serde(rename = "Resource Profile Id", default)]
    pub resource_profile_id: u32,
}

/// `ResourceInformation`: a resource's addresses on one executor.
#[derive(Deserialize, Default)]
pub struct ResourceInformation {
    #[serde(rename = "addresses", default)]
    pub addresses: Vec<String>,
}

#[derive(Deserialize)]
pub struct ExecutorAdded {
    #[serde(rename = "Timestamp")]
    pub timestamp: u64,
    #[serde(rename = "Executor ID")]
    pub executor_id: String,
    #[serde(rename = "Executor Info")]
    pub info: ExecutorInfo,
}

#[derive(Deserialize)]
pub struct ExecutorRemoved {
    #[serde(rename = "Timestamp")]
    pub timestamp: u64,
    #[serde(rename = "Executor ID")]
    pub executor_id: String,
    #[serde(rename = "Removed Reason", default)]
    pub removed_reason: String,
}

#[derive(Deserialize, Clone)]
pub struct StageInfo {
    #[serde(rename = "Stage ID")]
    pub stage_id: u32,
    #[serde(rename = "Stage Attempt ID", default)]
    pub stage_attempt_id: u32,
    #[serde(rename = "Stage Name", default)]
    pub stage_name: String,
    #[serde(rename = "Number of Tasks", default)]
    pub number_of_tasks: u32,
    #[serde(rename = "Parent IDs", default)]
    pub parent_ids: Vec<u32>,
    #[serde(rename = "Submission Time")]
    pub submission_time: Option<u64>,
    #[serde(rename = "Completion Time")]
    pub completion_time: Option<u64>,
    /// The stage's resource profile (Spark 3.1+; 0, the default, before).
    #[serde(rename = "Resource Profile Id", default)]
    pub resource_profile_id: u32,
    /// The stage's RDD and its narrow ancestors, the stage's own first
    /// (`StageInfo.fromStage`: `RDDInfo.fromRdd(stage.rdd) +: getNarrowAncestors`).
    #[serde(rename = "RDD Info", default)]
    pub rdd_info: Vec<RddInfo>,
}

/// `JsonProtocol.rddInfoToJson`: the parts of an RDD the replay needs to place its tasks where
/// Spark finds a persisted partition (`DAGScheduler.getCacheLocs`).
#[derive(Deserialize, Clone)]
pub struct RddInfo {
    #[serde(rename = "RDD ID")]
    pub rdd_id: u32,
    #[serde(rename = "Parent IDs", default)]
    pub parent_ids: Vec<u32>,
    #[serde(rename = "Storage Level", default)]
    pub storage_level: StorageLevel,
    #[serde(rename = "Number of Partitions", default)]
    pub num_partitions: u32,
    /// `RDDInfo.isBarrier` (Spark 2.4+): the RDD is a barrier RDD's (`rdd.barrier()`) or
    /// depends on one within the stage.
    #[serde(rename = "Barrier", default)]
    pub barrier: bool,
}

/// `JsonProtocol.storageLevelToJson` (`Use Off Heap` since Spark 3.0's logs).
#[derive(Deserialize, Clone, Default)]
pub struct StorageLevel {
    #[serde(rename = "Use Disk", default)]
    pub use_disk: bool,
    #[serde(rename = "Use Memory", default)]
    pub use_memory: bool,
    #[serde(rename = "Use Off Heap", default)]
    pub use_off_heap: bool,
}

impl StorageLevel {
    /// `StorageLevel.isValid` with a place to keep blocks: anything but `NONE`, the level of
    /// an RDD never persisted or unpersisted since (`RDD.unpersist` sets it back to NONE).
    pub fn persisted(&self) -> bool {
        self.use_disk || self.use_memory || self.use_off_heap
    }
}

#[derive(Deserialize)]
struct StageEvent {
    #[serde(rename = "Stage Info")]
    stage_info: StageInfo,
}

#[derive(Deserialize)]
pub struct JobStart {
    #[serde(rename = "Job ID")]
    pub job_id: u32,
    #[serde(rename = "Submission Time")]
    pub submission_time: Option<u64>,
    #[serde(rename = "Stage Infos", default)]
    pub stage_infos: Vec<StageInfo>,
    /// The job's local properties (`spark.scheduler.pool`, `spark.job.description`...).
    #[serde(rename = "Properties", default)]
    pub properties: BTreeMap<String, String>,
}

#[derive(Deserialize)]
pub struct JobResult {
    #[serde(rename = "Result")]
    pub result: String,
    #[serde(rename = "Exception")]
    pub exception: Option<JobException>,
}

#[derive(Deserialize)]
pub struct JobException {
    #[serde(rename = "Message", default)]
    pub message: String,
}

impl TaskInfo {
    /// The partition the task computed: `Partition ID`, else (older logs) its `Index`.
    pub fn partition(&self) -> u32 {
        match self.partition_id {
            Some(p) if (0..=i64::from(u32::MAX)).contains(&p) => p as u32,
            _ => self.index,
        }
    }
}

impl JobResult {
    /// `None` for JobSucceeded, else the failure's message.
    pub fn failure(&self) -> Option<String> {
        (self.result != "JobSucceeded").then(|| {
            self.exception
                .as_ref()
                .map_or_else(|| self.result.clone(), |e| e.message.clone())
        })
    }
}

#[derive(Deserialize)]
pub struct JobEnd {
    #[serde(rename = "Job ID")]
    pub job_id: u32,
    /// Spark 1.3+ (Spark 1.2 and older wrote none).
    #[serde(rename = "Completion Time")]
    pub completion_time: Option<u64>,
    #[serde(rename = "Job Result")]
    pub job_result: JobResult,
}

#[derive(Deserialize, Default)]
pub struct TaskInfo {
    #[serde(rename = "Index")]
    pub index: u32,
    /// The task's partition (Spark 3.3+; -1 or missing in older logs). A resubmitted stage
    /// attempt runs only its missing partitions, so its tasks' `Index` is their place in that
    /// attempt's task set, not their partition.
    #[serde(rename = "Partition ID")]
    pub partition_id: Option<i64>,
    #[serde(rename = "Attempt", default)]
    pub attempt: u32,
    /// A speculative copy (`TaskInfo.speculative`).
    #[serde(rename = "Speculative", default)]
    pub speculative: bool,
    #[serde(rename = "Launch Time")]
    pub launch_time: u64,
    #[serde(rename = "Executor ID", default)]
    pub executor_id: String,
    /// The level the TaskSetManager launched it at (`TaskInfo.taskLocality`, written by
    /// `JsonProtocol.taskInfoToJson` as the enumeration's name).
    #[serde(rename = "Locality", default)]
    pub locality: RecordedLocality,
    #[serde(rename = "Getting Result Time", default)]
    pub getting_result_time: u64,
    #[serde(rename = "Finish Time", default)]
    pub finish_time: u64,
}

/// `TaskLocality` as a log names it (`PROCESS_LOCAL`, `NODE_LOCAL`, `NO_PREF`, `RACK_LOCAL`,
/// `ANY`). What each says of the task's preferred locations is in `replay::locality`.
#[derive(Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordedLocality {
    #[serde(rename = "PROCESS_LOCAL")]
    ProcessLocal,
    #[serde(rename = "NODE_LOCAL")]
    NodeLocal,
    #[serde(rename = "NO_PREF")]
    NoPref,
    #[serde(rename = "RACK_LOCAL")]
    RackLocal,
    #[serde(rename = "ANY")]
    Any,
    /// Missing, or a name this version does not know: nothing is read from it.
    #[default]
    #[serde(other)]
    Unknown,
}

#[derive(Deserialize, Default)]
pub struct TaskEndReason {
    #[serde(rename = "Reason")]
    pub reason: String,
    #[serde(rename = "Class Name")]
    pub class_name: Option<String>,
    #[serde(rename = "Description")]
    pub description: Option<String>,
    /// `TaskKilled.reason` (JsonProtocol's "Kill Reason").
    #[serde(rename = "Kill Reason")]
    pub kill_reason: Option<String>,
}

#[derive(Deserialize, Default)]
pub struct InputMetrics {
    #[serde(rename = "Bytes Read", default)]
    pub bytes_read: u64,
    #[serde(rename = "Records Read", default)]
    pub records_read: u64,
}

#[derive(Deserialize, Default)]
pub struct ShuffleReadMetrics {
    #[serde(rename = "Remote Bytes Read", default)]
    pub remote_bytes_read: u64,
    #[serde(rename = "Local Bytes Read", default)]
    pub local_bytes_read: u64,
    #[serde(rename = "Total Records Read", default)]
    pub total_records_read: u64,
}

#[derive(Deserialize, Default)]
pub struct ShuffleWriteMetrics {
    #[serde(rename = "Shuffle Bytes Written", default)]
    pub shuffle_bytes_written: u64,
    #[serde(rename = "Shuffle Records Written", default)]
    pub shuffle_records_written: u64,
}

#[derive(Deserialize, Default)]
pub struct TaskMetrics {
    #[serde(rename = "Executor Deserialize Time", default)]
    pub executor_deserialize_time: u64,
    #[serde(rename = "Executor Run Time", default)]
    pub executor_run_time: u64,
    #[serde(rename = "Result Serialization Time", default)]
    pub result_serialization_time: u64,
    #[serde(rename = "JVM GC Time", default)]
    pub jvm_gc_time: u64,
    /// The serialized result's size (`Result Size`; 0 when the attempt sent none).
    #[serde(rename = "Result Size", default)]
    pub result_size: u64,
    #[serde(rename = "Input Metrics", default)]
    pub input_metrics: InputMetrics,
    #[serde(rename = "Shuffle Read Metrics", default)]
    pub shuffle_read_metrics: ShuffleReadMetrics,
    #[serde(rename = "Shuffle Write Metrics", default)]
    pub shuffle_write_metrics: ShuffleWriteMetrics,
}

#[derive(Deserialize)]
pub struct TaskEnd {
    #[serde(rename = "Stage ID")]
    pub stage_id: u32,
    #[serde(rename = "Stage Attempt ID", default)]
    pub stage_attempt_id: u32,
    #[serde(rename = "Task Type", default)]
    pub task_type: String,
    #[serde(rename = "Task End Reason", default)]
    pub task_end_reason: TaskEndReason,
    #[serde(rename = "Task Info")]
    pub task_info: TaskInfo,
    /// Spark 4 omits it for some failures.
    #[serde(rename = "Task Metrics")]
    pub task_metrics: Option<TaskMetrics>,
}

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "Event")]
    event: String,
}

/// The event name: `JsonProtocol` writes `"Event"` first, so it is read off the line's start
/// without parsing the rest; otherwise the whole line is searched.
fn event_name(line: &[u8]) -> Result<std::borrow::Cow<'_, str>, String> {
    const START: &[u8] = b"{\"Event\":\"";
    if let Some(rest) = line.strip_prefix(START)
        && let Some(end) = rest.iter().position(|&b| b == b'"' || b == b'\\')
        && rest[end] == b'"'
        && let Ok(name) = std::str::from_utf8(&rest[..end])
    {
        return Ok(name.into());
    }
    match serde_json::from_slice::<Head>(line) {
        Ok(h) => Ok(h.event.into()),
        Err(e) if e.is_data() => Err("a JSON object without an \"Event\" name".into()),
        Err(e) => Err(format!("not valid JSON ({e})")),
    }
}

fn typed<'a, T: Deserialize<'a>>(line: &'a [u8], name: &str) -> Result<T, String> {
    serde_json::from_slice(line).map_err(|e| format!("{name}: {e}"))
}

/// Parses one line of the log.
pub fn parse(line: &[u8]) -> Result<Event, String> {
    let full = event_name(line)?;
    let name = full.strip_prefix(SCHEDULER_PACKAGE).unwrap_or(&full);
    Ok(match name {
        "SparkListenerLogStart" => Event::LogStart {
            spark_version: typed::<LogStart>(line, name)?.spark_version,
        },
        "SparkListenerApplicationStart" => Event::ApplicationStart(typed(line, name)?),
        "SparkListenerApplicationEnd" => Event::ApplicationEnd {
            timestamp: typed::<ApplicationEnd>(line, name)?.timestamp,
        },
        "SparkListenerEnvironmentUpdate" => Event::EnvironmentUpdate(typed(line, name)?),
        "SparkListenerResourceProfileAdded" => Event::ResourceProfileAdded(typed(line, name)?),
        "SparkListenerExecutorAdded" => Event::ExecutorAdded(typed(line, name)?),
        "SparkListenerExecutorRemoved" => Event::ExecutorRemoved(typed(line, name)?),
        "SparkListenerJobStart" => Event::JobStart(typed(line, name)?),
        "SparkListenerJobEnd" => Event::JobEnd(typed(line, name)?),
        "SparkListenerStageSubmitted" => {
            Event::StageSubmitted(typed::<StageEvent>(line, name)?.stage_info)
        }
        "SparkListenerStageCompleted" => {
            Event::StageCompleted(typed::<StageEvent>(line, name)?.stage_info)
        }
        "SparkListenerTaskEnd" => Event::TaskEnd(Box::new(typed(line, name)?)),
        n if IGNORED.contains(&n) => Event::Ignored,
        n if OLDER.contains(&n) => Event::Older(full.to_string()),
        _ => Event::Unknown(full.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_event_name_is_read_without_parsing_the_line_when_it_comes_first() {
        let line = br#"{"Event":"SparkListenerApplicationEnd","Timestamp":5}"#;
        assert!(matches!(
            parse(line),
            Ok(Event::ApplicationEnd { timestamp: 5 })
        ));
        let later = br#"{"Timestamp":5,"Event":"SparkListenerApplicationEnd"}"#;
        assert!(matches!(
            parse(later),
            Ok(Event::ApplicationEnd { timestamp: 5 })
        ));
        assert!(matches!(
            parse(br#"{"Event":"SparkListenerFuture"}"#),
            Ok(Event::Unknown(_))
        ));
        // Jackson names the events JsonProtocol has no case for by their class.
        assert!(matches!(
            parse(br#"{"Event":"org.apache.spark.scheduler.SparkListenerMiscellaneousProcessAdded","time":1}"#),
            Ok(Event::Ignored)
        ));
        assert!(matches!(
            parse(br#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeBlacklistedForStage","time":1}"#),
            Ok(Event::Older(n)) if n == "org.apache.spark.scheduler.SparkListenerNodeBlacklistedForStage"
        ));
        assert!(matches!(
            parse(br#"{"Event":"org.apache.spark.scheduler.SparkListenerFromTheFuture"}"#),
            Ok(Event::Unknown(n)) if n == "org.apache.spark.scheduler.SparkListenerFromTheFuture"
        ));
        assert!(parse(br#"{"name":"x"}"#).is_err());
        assert!(parse(br#"{"Event":"SparkListenerJobEnd","Job ID":1"#).is_err());
        assert!(parse(b"[1,2]").is_err());
    }
}
