//! The Spark event log (`spark.eventLog.enabled`): one log per SparkContext (one per AM attempt
//! in cluster mode), with Spark 4's `JsonProtocol` field names, order and types. Spark 4.0's
//! default is the rolling layout of `RollingEventLogFilesWriter` ([`super::eventlog_rolling`]);
//! with `spark.eventLog.rolling.enabled=false` it is one file named as
//! `SingleEventLogFileWriter` names it (`<appId>_<attemptId>[.zstd]`, `.inprogress` while the
//! attempt has not posted ApplicationEnd). A real Spark History Server reads both.

use super::eventlog_file_writer::{CHUNK, set_log_permissions};
use super::eventlog_rolling::{self, RollingFiles};
use super::json::{Obj, object};
use super::stack_traces::{self, Frame};
use super::task_metrics::{
    self, ACCUMULATORS, RESULT_SIZE_ACCUM, ShuffleRead, TaskCostModel, TaskMetrics, TaskRun,
};
use crate::error::UserError;
use crate::record::RunResult;
use sparkyard_actors::simulation::addresses::app_cache_dir;
use sparkyard_actors::simulation::config::SparkSettings;
use sparkyard_actors::simulation::listener::AttemptEvents;
use sparkyard_messages::jvm_text::{double_to_string, java_concurrent_map_order, scala_map_order};
use sparkyard_messages::listener::{
    BlockUpdatedInfo, DefaultExecutorRequests, ExclusionEventName, ExecutorResourceRequest,
    ListenerEvent, StageInfo, TaskEndReason, TaskInfo, TaskResourceRequest,
};
use sparkyard_messages::task::{DeterministicLevel, InputSize, RddScope, ShuffleWriteSize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `ExecutorMetricType.metricToOffset` names, in Spark's order (`Task Executor Metrics`).
const EXECUTOR_METRICS: &[&str] = &[
    "JVMHeapMemory",
    "JVMOffHeapMemory",
    "OnHeapExecutionMemory",
    "OffHeapExecutionMemory",
    "OnHeapStorageMemory",
    "OffHeapStorageMemory",
    "OnHeapUnifiedMemory",
    "OffHeapUnifiedMemory",
    "DirectPoolMemory",
    "MappedPoolMemory",
    "ProcessTreeJVMVMemory",
    "ProcessTreeJVMRSSMemory",
    "ProcessTreePythonVMemory",
    "ProcessTreePythonRSSMemory",
    "ProcessTreeOtherVMemory",
    "ProcessTreeOtherRSSMemory",
    "MinorGCCount",
    "MinorGCTime",
    "MajorGCCount",
    "MajorGCTime",
    "TotalGCTime",
    "ConcurrentGCCount",
    "ConcurrentGCTime",
];

/// Writes one event log per recorded SparkContext; returns the files written (none when
/// `spark.eventLog.enabled` is false or no SparkContext was created).
pub fn write_event_logs(
    result: &RunResult,
    spark: &SparkSettings,
) -> Result<Vec<PathBuf>, UserError> {
    let logs = write_event_logs_reporting(result, spark)?;
    Ok(logs.into_iter().map(|w| w.path).collect())
}

/// One event log written, and Spark's error when an earlier log of the same name was kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenLog {
    pub path: PathBuf,
    /// Spark's error when an earlier log is in the way and `spark.eventLog.overwrite` is off
    /// (EventLogFileWriters.scala). Single file: `java.io.IOException: Target log file already
    /// exists (<path>)` from `renameFile` at stop: the earlier, completed log is kept and this
    /// run's stays `.inprogress` (Spark logs it and the application still succeeds). Rolling:
    /// `java.io.IOException: Target log directory already exists (<dir>)` from `start`: nothing
    /// of this run is written and the earlier folder is kept untouched.
    pub refused: Option<String>,
}

/// The line a run prints for one event log: its path, or, when Spark's writer refused it
/// (`refused`), one line that says so, so the path is never printed as if this run's log were
/// there. Single file: `path` is this run's log left `.inprogress` (the rename was refused);
/// rolling: `path` is the earlier folder, kept untouched.
pub fn written_line(path: &str, refused: Option<&str>) -> String {
    match refused {
        None => format!("event log: {path}"),
        Some(why) => format!(
            "event log: {path} refused by Spark's writer: {why}; the earlier log is kept (set \
             spark.eventLog.overwrite=true to replace it)"
        ),
    }
}

/// [`write_event_logs`], saying which logs Spark would not rename over an earlier one.
pub fn write_event_logs_reporting(
    result: &RunResult,
    spark: &SparkSettings,
) -> Result<Vec<WrittenLog>, UserError> {
    write_event_logs_sized(result, spark, None)
}

/// Each task's data sizes as a program recorded them elsewhere (a replay: the task metrics of
/// the event log it replays), by stage id and task index. Stage ids are the DAGScheduler's,
/// handed out in submission order from 0 in each SparkContext (`nextStageId`), so entry `k` is
/// the program's `k`-th stage; `None` for a stage without sizes of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedTaskSizes {
    pub stages: Vec<Option<Box<[TaskSizes]>>>,
}

/// One task's recorded sizes (its `Input`, `Shuffle Write` and `Shuffle Read Metrics`, and
/// the serialized result it sent: `Result Size`, 0 when the program gives none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSizes {
    pub result_bytes: u64,
    pub input: DataSize,
    pub shuffle_write: DataSize,
    pub shuffle_read: DataSize,
}

/// Bytes and records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataSize {
    pub bytes: u64,
    pub records: u64,
}

impl RecordedTaskSizes {
    fn task(&self, stage: u32, index: u32) -> Option<&TaskSizes> {
        self.stages
            .get(stage as usize)?
            .as_deref()?
            .get(index as usize)
    }
}

/// [`write_event_logs_reporting`], each task's metrics taking its sizes from `sized` where it
/// has them (the data model's even spread otherwise): a replay's own event log keeps the skew
/// of the log it replays.
pub fn write_event_logs_sized(
    result: &RunResult,
    spark: &SparkSettings,
    sized: Option<std::sync::Arc<RecordedTaskSizes>>,
) -> Result<Vec<WrittenLog>, UserError> {
    write_attempts_sized(&result.events, result.task_costs, spark, sized)
}

/// [`write_event_logs_sized`] for one application's SparkContexts (`events`) among others of a
/// run (`replay-cluster` writes each application's own logs).
pub fn write_attempts_sized(
    events: &[AttemptEvents],
    costs: crate::record::TaskCostModel,
    spark: &SparkSettings,
    sized: Option<std::sync::Arc<RecordedTaskSizes>>,
) -> Result<Vec<WrittenLog>, UserError> {
    if !spark.event_log_enabled || events.is_empty() {
        return Ok(Vec::new());
    }
    let dir = crate::conf::event_log_dir::log_dir(&spark.event_log_dir)?;
    let codec = codec_extension(spark)?;
    let flag = |key: &str| {
        spark
            .properties
            .get(key)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    };
    let overwrite = flag("spark.eventLog.overwrite");
    std::fs::create_dir_all(&dir).map_err(|e| dir_error(&dir, "cannot create it", &e))?;
    let seed = LogSeed {
        zstd_level: zstd_level(spark)?,
        costs,
        main_object: stack_traces::object_class(&spark.main_class),
        sized,
        log_block_updates: flag("spark.eventLog.logBlockUpdates.enabled"),
        spark: spark.clone(),
    };
    let mut written = Vec::new();
    for attempt in events {
        let log = match spark.event_log_rolling_max_file_size {
            Some(max) => write_rolling(&dir, codec, max, attempt, overwrite, &seed),
            None => write_attempt(&dir, codec, attempt, overwrite, &seed),
        };
        written.push(log?);
    }
    Ok(written)
}

/// `spark.eventLog.dir` as a local path: `file:///x`, `file:/x` or a plain path.
/// `.zstd` when `spark.eventLog.compress` (zstd is Spark 4's default codec), else nothing.
fn codec_extension(spark: &SparkSettings) -> Result<Option<&'static str>, UserError> {
    if !spark.event_log_compress {
        return Ok(None);
    }
    let codec = spark
        .properties
        .get("spark.eventLog.compression.codec")
        .map_or("zstd", |c| c.trim());
    if codec.eq_ignore_ascii_case("zstd") {
        Ok(Some("zstd"))
    } else {
        Err(UserError::file(
            "spark.eventLog.compression.codec",
            format!("{codec}: sparkyard compresses event logs with zstd only (Spark 4's default)"),
        ))
    }
}

/// `spark.io.compression.zstd.level` (`intConf`, default 1), the level ZStdCompressionCodec
/// compresses the event log with.
fn zstd_level(spark: &SparkSettings) -> Result<i32, UserError> {
    const KEY: &str = "spark.io.compression.zstd.level";
    let Some(v) = spark.properties.get(KEY) else {
        return Ok(1);
    };
    v.trim()
        .parse()
        .map_err(|_| UserError::illegal_argument(format!("{KEY} should be int, but was {v}")))
}

fn dir_error(dir: &Path, what: &str, e: &std::io::Error) -> UserError {
    UserError::file(
        crate::conf::event_log_dir::DIR_KEY,
        format!("{}: {what}: {e}", dir.display()),
    )
}

/// `Utils.sanitizeDirName`.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' | ':' | '/' => '-',
            '.' | '$' | '{' | '}' | '\'' | '"' => '_',
            c => c,
        })
        .collect::<String>()
        .to_lowercase()
}

/// `EventLogFileWriter.nameForAppAndAttempt`: `<appId>_<attemptId>`, sanitized.
pub fn app_and_attempt(attempt: &AttemptEvents) -> String {
    let attempt_id = attempt
        .events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::ApplicationStart { attempt_id, .. } => Some(attempt_id.clone()),
            _ => None,
        })
        .unwrap_or_else(|| attempt.attempt_id.to_string());
    format!("{}_{}", sanitize(&attempt.app_id), sanitize(&attempt_id))
}

/// Whether the attempt posted ApplicationEnd (its log is complete).
fn ended(attempt: &AttemptEvents) -> bool {
    attempt
        .events
        .iter()
        .any(|e| matches!(e, ListenerEvent::ApplicationEnd { .. }))
}

/// The file name Spark's single-file writer gives this attempt's log:
/// `<appId>_<attemptId>[.<codec>][.inprogress]`.
pub fn file_name(attempt: &AttemptEvents, codec: Option<&str>) -> String {
    let mut name = app_and_attempt(attempt);
    if let Some(c) = codec {
        name = format!("{name}.{c}");
    }
    if !ended(attempt) {
        name.push_str(".inprogress");
    }
    name
}

/// `RollingEventLogFilesWriter`: refuses an existing folder unless `overwrite` (then deletes
/// it, as `start` does), else writes the folder, its event files and its app status.
fn write_rolling(
    dir: &Path,
    codec: Option<&'static str>,
    max_file_size: u64,
    attempt: &AttemptEvents,
    overwrite: bool,
    seed: &LogSeed,
) -> Result<WrittenLog, UserError> {
    let name = app_and_attempt(attempt);
    let app_dir = eventlog_rolling::app_dir(dir, &name);
    if app_dir.exists() {
        if !overwrite {
            let refused = already_exists("directory", &app_dir);
            return Ok(WrittenLog {
                path: app_dir,
                refused: Some(refused),
            });
        }
        std::fs::remove_dir_all(&app_dir)
            .map_err(|e| dir_error(dir, "cannot replace an earlier log", &e))?;
    }
    let write = || -> std::io::Result<()> {
        let level = seed.zstd_level;
        let mut files = RollingFiles::start(app_dir.clone(), &name, codec, level, max_file_size)?;
        render(attempt, seed, |line, flush| files.write_event(line, flush))?;
        files.stop(ended(attempt))
    };
    write().map_err(|e| dir_error(dir, "cannot write the event log", &e))?;
    Ok(WrittenLog {
        path: app_dir,
        refused: None,
    })
}

/// EventLogFileWriters.scala's refusal of an earlier log (`what`: `file` from the single-file
/// writer's `renameFile`, `directory` from the rolling writer's `start`); `dest` is a qualified
/// Hadoop Path, `file:/...` on the local file system.
fn already_exists(what: &str, dest: &Path) -> String {
    format!(
        "java.io.IOException: Target log {what} already exists (file:{})",
        dest.display()
    )
}

fn write_attempt(
    dir: &Path,
    codec: Option<&'static str>,
    attempt: &AttemptEvents,
    overwrite: bool,
    seed: &LogSeed,
) -> Result<WrittenLog, UserError> {
    let name = file_name(attempt, codec);
    let path = dir.join(&name);
    let completed = !name.ends_with(".inprogress");
    if completed && !overwrite && path.exists() {
        // EventLogFileWriters.scala renameFile: `Target log file already exists ($dest)`.
        let inprogress = dir.join(format!("{name}.inprogress"));
        write_lines(&inprogress, codec.is_some(), attempt, seed)
            .map_err(|e| dir_error(dir, "cannot write the event log", &e))?;
        let refused = already_exists("file", &path);
        return Ok(WrittenLog {
            path: inprogress,
            refused: Some(refused),
        });
    }
    remove_stale(dir, &name).map_err(|e| dir_error(dir, "cannot replace an earlier log", &e))?;
    write_lines(&path, codec.is_some(), attempt, seed)
        .map_err(|e| dir_error(dir, "cannot write the event log", &e))?;
    Ok(WrittenLog {
        path,
        refused: None,
    })
}

/// Streams the JSON lines to the file (through zstd when compressed) in 1 MiB chunks, so a
/// 100,000-task log never sits in memory whole.
fn write_lines(
    path: &Path,
    compress: bool,
    attempt: &AttemptEvents,
    seed: &LogSeed,
) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut sink: Box<dyn std::io::Write> = if compress {
        Box::new(zstd::stream::write::Encoder::new(file, seed.zstd_level)?.auto_finish())
    } else {
        Box::new(file)
    };
    let mut text = String::with_capacity(CHUNK + 64 * 1024);
    render(attempt, seed, |line, _| {
        text.push_str(line);
        text.push('\n');
        if text.len() >= CHUNK {
            sink.write_all(text.as_bytes())?;
            text.clear();
        }
        Ok(())
    })?;
    sink.write_all(text.as_bytes())?;
    sink.flush()?;
    drop(sink);
    set_log_permissions(path)
}

/// Renders the attempt's events as Spark's JSON lines (one reused buffer, no per-event
/// allocation), handing each line and EventLoggingListener's `flushLogger` for it to `emit`.
fn render(
    attempt: &AttemptEvents,
    seed: &LogSeed,
    mut emit: impl FnMut(&str, bool) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut line = String::with_capacity(64 * 1024);
    let mut w = LogWriter {
        costs: seed.costs,
        main_object: seed.main_object.clone(),
        classpath: driver_classpath(attempt),
        system: driver_system_properties(attempt, &seed.spark),
        sized: seed.sized.clone(),
        read_host_local_disk: seed.spark.shuffle.fetch.read_host_local_disk,
        ..LogWriter::default()
    };
    for e in &attempt.events {
        // EventLoggingListener writes only the events it overrides a handler for.
        if matches!(
            e,
            ListenerEvent::SpeculativeTaskSubmitted { .. }
                | ListenerEvent::UnschedulableTaskSetAdded { .. }
                | ListenerEvent::UnschedulableTaskSetRemoved { .. }
        ) || (matches!(e, ListenerEvent::BlockUpdated(_)) && !seed.log_block_updates)
        {
            continue;
        }
        line.clear();
        w.event(&mut line, e);
        emit(&line, flushes(e))?;
    }
    Ok(())
}

/// EventLoggingListener's `flushLogger`: `initEventLog` and the `on*` handlers that call
/// `logEvent(event, flushLogger = true)` (4.0.0 jar); stage submissions, tasks and the
/// environment are written without a flush.
fn flushes(e: &ListenerEvent) -> bool {
    !matches!(
        e,
        ListenerEvent::StageSubmitted { .. }
            | ListenerEvent::TaskStart { .. }
            | ListenerEvent::TaskEnd { .. }
            | ListenerEvent::EnvironmentUpdate { .. }
            | ListenerEvent::SpeculativeTaskSubmitted { .. }
            | ListenerEvent::UnschedulableTaskSetAdded { .. }
            | ListenerEvent::UnschedulableTaskSetRemoved { .. }
    )
}

/// `JsonProtocol.blockUpdateToJson` (Spark 4.0.0; the field order of a real run's log).
fn block_updated(out: &mut String, b: &BlockUpdatedInfo) {
    object(out, |o| {
        o.str("Event", "SparkListenerBlockUpdated");
        o.obj("Block Updated Info", |i| {
            i.obj("Block Manager ID", |m| {
                m.str("Executor ID", &b.executor_id)
                    .str("Host", &b.host)
                    .num("Port", b.port);
            });
            i.str("Block ID", &b.block_id);
            i.obj("Storage Level", |l| {
                let s = &b.storage_level;
                l.bool("Use Disk", s.use_disk)
                    .bool("Use Memory", s.use_memory)
                    .bool("Use Off Heap", s.use_off_heap)
                    .bool("Deserialized", s.deserialized)
                    .num("Replication", s.replication);
            });
            i.num("Memory Size", b.memory_size)
                .num("Disk Size", b.disk_size);
        });
    });
}

/// Removes this log's other forms before writing it (a stale `.inprogress` twin would show up
/// as a second attempt in the History Server); a completed log of the same name is only
/// replaced with `spark.eventLog.overwrite` ([`write_attempt`] keeps it otherwise, as Spark).
fn remove_stale(dir: &Path, name: &str) -> std::io::Result<()> {
    let base = name
        .trim_end_matches(".inprogress")
        .trim_end_matches(".zstd");
    for n in [
        base.to_string(),
        format!("{base}.inprogress"),
        format!("{base}.zstd"),
        format!("{base}.zstd.inprogress"),
    ] {
        match std::fs::remove_file(dir.join(n)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// The class an exclusion event is written under: Spark 4.0's JsonProtocol has no case for
/// these events, so Jackson writes them (`mapper.writeValue`) with the fully qualified class
/// name as `Event` (SparkListenerEvent's `@JsonTypeInfo(use = CLASS, property = "Event")`).
fn exclusion_class(kind: &str, name: ExclusionEventName, suffix: &str) -> String {
    let word = match name {
        ExclusionEventName::Excluded => "Excluded",
        ExclusionEventName::Blacklisted => "Blacklisted",
    };
    format!("org.apache.spark.scheduler.SparkListener{kind}{word}{suffix}")
}

/// `SparkListenerExecutorUnexcluded` / `...Unblacklisted` (the lower-case word after `Un`).
fn unexclusion_class(kind: &str, name: ExclusionEventName) -> String {
    let word = match name {
        ExclusionEventName::Excluded => "Unexcluded",
        ExclusionEventName::Blacklisted => "Unblacklisted",
    };
    format!("org.apache.spark.scheduler.SparkListener{kind}{word}")
}

/// The exclusion events as Jackson writes the case classes (fields in constructor order, camel
/// case): checked against `JsonProtocol.sparkEventToJsonString` of the 4.0.0 jars.
fn exclusion_event(out: &mut String, e: &ListenerEvent) {
    match e {
        ListenerEvent::ExecutorExcluded {
            name,
            time,
            executor_id,
            task_failures,
        } => object(out, |o| {
            o.str("Event", &exclusion_class("Executor", *name, ""))
                .num("time", time)
                .str("executorId", executor_id)
                .num("taskFailures", task_failures);
        }),
        ListenerEvent::ExecutorUnexcluded {
            name,
            time,
            executor_id,
        } => object(out, |o| {
            o.str("Event", &unexclusion_class("Executor", *name))
                .num("time", time)
                .str("executorId", executor_id);
        }),
        ListenerEvent::NodeExcluded {
            name,
            time,
            host_id,
            executor_failures,
        } => object(out, |o| {
            o.str("Event", &exclusion_class("Node", *name, ""))
                .num("time", time)
                .str("hostId", host_id)
                .num("executorFailures", executor_failures);
        }),
        ListenerEvent::NodeUnexcluded {
            name,
            time,
            host_id,
        } => object(out, |o| {
            o.str("Event", &unexclusion_class("Node", *name))
                .num("time", time)
                .str("hostId", host_id);
        }),
        ListenerEvent::ExecutorExcludedForStage {
            name,
            time,
            executor_id,
            task_failures,
            stage_id,
            stage_attempt_id,
        } => object(out, |o| {
            o.str("Event", &exclusion_class("Executor", *name, "ForStage"))
                .num("time", time)
                .str("executorId", executor_id)
                .num("taskFailures", task_failures)
                .num("stageId", stage_id)
                .num("stageAttemptId", stage_attempt_id);
        }),
        ListenerEvent::NodeExcludedForStage {
            name,
            time,
            host_id,
            executor_failures,
            stage_id,
            stage_attempt_id,
        } => object(out, |o| {
            o.str("Event", &exclusion_class("Node", *name, "ForStage"))
                .num("time", time)
                .str("hostId", host_id)
                .num("executorFailures", executor_failures)
                .num("stageId", stage_id)
                .num("stageAttemptId", stage_attempt_id);
        }),
        _ => {}
    }
}

/// What every log of a run shares besides its events.
#[derive(Clone, Debug)]
struct LogSeed {
    costs: TaskCostModel,
    /// `spark.io.compression.zstd.level`.
    zstd_level: i32,
    /// The user class's Scala object (`com.example.Job$`), whose closures throw in tasks.
    main_object: String,
    /// Each task's own sizes, when the program has them.
    sized: Option<std::sync::Arc<RecordedTaskSizes>>,
    /// `spark.eventLog.logBlockUpdates.enabled`: EventLoggingListener.onBlockUpdated writes
    /// the `SparkListenerBlockUpdated` events only then.
    log_block_updates: bool,
    /// The application's settings: the AM's launch command (the driver's System Properties).
    spark: SparkSettings,
}

/// The EnvironmentUpdate's "Classpath Entries": the driver's container, from the attempt's
/// ApplicationStart (posted after the environment, so looked up first).
fn driver_classpath(attempt: &AttemptEvents) -> Vec<(String, String)> {
    driver_container(attempt)
        .map(|c| super::classpath::driver_classpath(c.user, c.app_id, c.container))
        .unwrap_or_default()
}

/// The EnvironmentUpdate's "System Properties": the driver JVM's, from the command line its
/// container started it with (which the driver posts with the event), in the container's
/// working directory.
fn driver_system_properties(
    attempt: &AttemptEvents,
    spark: &SparkSettings,
) -> Vec<(String, String)> {
    let Some(c) = driver_container(attempt) else {
        return Vec::new();
    };
    let Some(command) = attempt.events.iter().find_map(|e| match e {
        ListenerEvent::EnvironmentUpdate { jvm_command, .. } => Some(jvm_command.as_str()),
        _ => None,
    }) else {
        return Vec::new();
    };
    let working_dir = format!("{}/{}", app_cache_dir(c.user, c.app_id), c.container);
    super::environment::system_properties(&super::environment::DriverJvm {
        command,
        working_dir: &working_dir,
        heap_mb: spark.driver_memory_mb,
    })
}

/// Where the driver ran: its user, application and container.
struct DriverContainer<'a> {
    user: &'a str,
    app_id: &'a str,
    container: &'a str,
}

/// The driver's container, from the attempt's ApplicationStart (posted after the environment,
/// so looked up first).
fn driver_container(attempt: &AttemptEvents) -> Option<DriverContainer<'_>> {
    attempt.events.iter().find_map(|e| match e {
        ListenerEvent::ApplicationStart {
            user,
            app_id,
            driver_attributes,
            ..
        } => {
            let container = driver_attributes
                .iter()
                .find(|(k, _)| k == "CONTAINER_ID")
                .map(|(_, v)| v.as_str())?;
            Some(DriverContainer {
                user,
                app_id,
                container,
            })
        }
        _ => None,
    })
}

/// Per-log state: accumulator ids per stage attempt and their running totals, and what the
/// task metrics model needs (per stage and per executor, never per task).
#[derive(Default)]
struct LogWriter {
    user: String,
    accum_base: BTreeMap<(u32, u32), u64>,
    totals: BTreeMap<(u32, u32), TaskMetrics>,
    next_accum: u64,
    costs: TaskCostModel,
    main_object: String,
    classpath: Vec<(String, String)>,
    /// The driver JVM's System Properties.
    system: Vec<(String, String)>,
    /// `spark.shuffle.service.enabled`: map outputs outlive their executor.
    shuffle_service: bool,
    stages: BTreeMap<u32, StageShape>,
    /// Live map outputs of each shuffle-map stage, counted per executor that wrote them, and
    /// per host (the executors' hosts from their ExecutorAdded).
    outputs: BTreeMap<u32, BTreeMap<String, u64>>,
    host_outputs: BTreeMap<u32, BTreeMap<String, u64>>,
    hosts: BTreeMap<String, String>,
    /// `spark.shuffle.readHostLocalDisk`: blocks of this host's other executors are read
    /// host-local, which ShuffleBlockFetcherIterator counts as local
    /// (`shuffleMetricsUpdate(..., local = true)` for `hostLocalBlocks`).
    read_host_local_disk: bool,
    /// The first task each executor ran (its warm-up task).
    first_task: BTreeMap<String, u64>,
    /// Each task's own sizes, when the program has them.
    sized: Option<std::sync::Arc<RecordedTaskSizes>>,
    /// The Accumulables of each successful map task of a running stage attempt, by (stage,
    /// attempt, TID): a `Resubmitted` TaskEnd posts that TaskInfo again.
    map_successes: BTreeMap<(u32, u32, u64), Box<[Accumulable]>>,
}

/// One entry of a TaskInfo's `Accumulables`: its id, metric (index into [`ACCUMULATORS`]),
/// the task's update and the stage's running value after it.
type Accumulable = (u64, usize, u64, u64);

/// What the metrics model needs of a stage.
#[derive(Clone, Debug, Default)]
struct StageShape {
    /// The stage's partitions (every attempt's shuffle is the whole stage's).
    num_partitions: u32,
    rdd_id: u32,
    parents: Vec<u32>,
    shuffle_write: ShuffleWriteSize,
    /// What each task reads from its input.
    input: InputSize,
    /// The stage RDD's call site (where its user closure is), for a failed task's frames.
    rdd_callsite: String,
    /// The scope of the action whose job runs the stage (its `Properties`).
    job_scope: Option<RddScope>,
}

impl LogWriter {
    fn event(&mut self, out: &mut String, e: &ListenerEvent) {
        self.observe(e);
        match e {
            ListenerEvent::BlockUpdated(info) => block_updated(out, info),
            ListenerEvent::LogStart { spark_version } => object(out, |o| {
                o.str("Event", "SparkListenerLogStart")
                    .str("Spark Version", spark_version);
            }),
            ListenerEvent::ResourceProfileAdded {
                executor,
                task_cpus,
                executor_custom,
                task_custom,
            } => resource_profile(out, executor, *task_cpus, executor_custom, task_custom),
            ListenerEvent::BlockManagerAdded {
                time,
                executor_id,
                host,
                port,
                max_memory,
            } => object(out, |o| {
                o.str("Event", "SparkListenerBlockManagerAdded");
                o.obj("Block Manager ID", |b| {
                    b.str("Executor ID", executor_id)
                        .str("Host", host)
                        .num("Port", port);
                });
                o.num("Maximum Memory", max_memory)
                    .num("Timestamp", time)
                    .num("Maximum Onheap Memory", max_memory)
                    .num("Maximum Offheap Memory", 0);
            }),
            // JsonProtocol.blockManagerRemovedToJson.
            ListenerEvent::BlockManagerRemoved {
                time,
                executor_id,
                host,
                port,
            } => object(out, |o| {
                o.str("Event", "SparkListenerBlockManagerRemoved");
                o.obj("Block Manager ID", |b| {
                    b.str("Executor ID", executor_id)
                        .str("Host", host)
                        .num("Port", port);
                });
                o.num("Timestamp", time);
            }),
            ListenerEvent::EnvironmentUpdate {
                spark_properties,
                hadoop_properties,
                ..
            } => environment(
                out,
                spark_properties,
                hadoop_properties,
                &self.system,
                &self.classpath,
            ),
            ListenerEvent::ApplicationStart { user, .. } => {
                self.user = user.clone();
                application_start(out, e);
            }
            ListenerEvent::ExecutorAdded { .. } => self.executor_added(out, e),
            ListenerEvent::ExecutorRemoved {
                time,
                executor_id,
                reason,
            } => object(out, |o| {
                o.str("Event", "SparkListenerExecutorRemoved")
                    .num("Timestamp", time)
                    .str("Executor ID", executor_id)
                    .str("Removed Reason", reason);
            }),
            ListenerEvent::JobStart {
                job_id,
                time,
                stages,
            } => self.job_start(out, *job_id, *time, stages),
            ListenerEvent::StageSubmitted { stage } => {
                self.accum_ids(stage.stage_id, stage.attempt_id);
                self.note_stage(stage);
                object(out, |o| {
                    o.str("Event", "SparkListenerStageSubmitted");
                    let parents = parent_rdds(&self.stages, stage);
                    o.obj("Stage Info", |s| stage_info(s, stage, &parents, None));
                    let scope = self.stages.get(&stage.stage_id);
                    properties(o, scope.and_then(|s| s.job_scope.as_ref()));
                });
            }
            // Never written (skipped by the caller, as Spark's EventLoggingListener does).
            ListenerEvent::SpeculativeTaskSubmitted { .. }
            | ListenerEvent::UnschedulableTaskSetAdded { .. }
            | ListenerEvent::UnschedulableTaskSetRemoved { .. } => {}
            ListenerEvent::TaskStart {
                stage_id,
                stage_attempt_id,
                info,
            } => {
                self.first_task
                    .entry(info.executor_id.clone())
                    .or_insert(info.task_id);
                object(out, |o| {
                    o.str("Event", "SparkListenerTaskStart")
                        .num("Stage ID", stage_id)
                        .num("Stage Attempt ID", stage_attempt_id);
                    o.obj("Task Info", |t| task_info(t, info, &[]));
                })
            }
            ListenerEvent::TaskEnd { .. } => self.task_end(out, e),
            ListenerEvent::StageCompleted { stage } => self.stage_completed(out, stage),
            ListenerEvent::JobEnd {
                job_id,
                time,
                result,
            } => job_end(out, *job_id, *time, result.as_deref()),
            ListenerEvent::ApplicationEnd { time, exit_code } => object(out, |o| {
                o.str("Event", "SparkListenerApplicationEnd")
                    .num("Timestamp", time)
                    .num("ExitCode", exit_code);
            }),
            ListenerEvent::ExecutorExcluded { .. }
            | ListenerEvent::ExecutorUnexcluded { .. }
            | ListenerEvent::NodeExcluded { .. }
            | ListenerEvent::NodeUnexcluded { .. }
            | ListenerEvent::ExecutorExcludedForStage { .. }
            | ListenerEvent::NodeExcludedForStage { .. } => exclusion_event(out, e),
        }
    }

    /// The first accumulator id of a stage attempt (each attempt registers its own, as
    /// `Stage.makeNewStageAttempt` does).
    fn accum_ids(&mut self, stage: u32, attempt: u32) -> u64 {
        let next = &mut self.next_accum;
        *self.accum_base.entry((stage, attempt)).or_insert_with(|| {
            let base = *next;
            *next += ACCUMULATORS.len() as u64;
            base
        })
    }

    fn executor_added(&mut self, out: &mut String, e: &ListenerEvent) {
        let ListenerEvent::ExecutorAdded {
            time,
            request_time,
            executor_id,
            host,
            total_cores,
            log_urls,
            attributes,
            resources,
        } = e
        else {
            return;
        };
        object(out, |o| {
            o.str("Event", "SparkListenerExecutorAdded")
                .num("Timestamp", time)
                .str("Executor ID", executor_id);
            o.obj("Executor Info", |i| {
                i.str("Host", host).num("Total Cores", total_cores);
                i.map("Log Urls", log_urls);
                i.map("Attributes", attributes);
                // JsonProtocol.resourcesMapToJson: each ResourceInformation's toJson.
                i.obj("Resources", |r| {
                    for info in resources {
                        r.obj(&info.name, |q| {
                            q.str("name", &info.name);
                            q.arr("addresses", |a| {
                                for address in &info.addresses {
                                    a.str(address);
                                }
                            });
                        });
                    }
                });
                i.num("Resource Profile Id", 0)
                    .num("Registration Time", time);
                if let Some(t) = request_time {
                    i.num("Request Time", t);
                }
            });
        });
    }

    fn job_start(&mut self, out: &mut String, job_id: u32, time: u64, stages: &[StageInfo]) {
        // The job's properties: the scope its action set around `sc.runJob`.
        let job_scope = stages
            .last()
            .and_then(|s| s.lineage.as_ref())
            .and_then(|l| l.action_scope.clone());
        for s in stages {
            self.accum_ids(s.stage_id, s.attempt_id);
            self.note_stage(s);
            if let Some(shape) = self.stages.get_mut(&s.stage_id) {
                shape.job_scope = job_scope.clone();
            }
        }
        object(out, |o| {
            o.str("Event", "SparkListenerJobStart")
                .num("Job ID", job_id)
                .num("Submission Time", time);
            o.arr("Stage Infos", |a| {
                for s in stages {
                    a.obj(|o| stage_info(o, s, &parent_rdds(&self.stages, s), Some(&[])));
                }
            });
            o.arr("Stage IDs", |a| {
                for s in stages {
                    a.num(s.stage_id);
                }
            });
            properties(o, job_scope.as_ref());
        });
    }

    fn task_end(&mut self, out: &mut String, e: &ListenerEvent) {
        let ListenerEvent::TaskEnd {
            stage_id,
            stage_attempt_id,
            shuffle_map,
            reason,
            info,
            run_time_ms,
        } = e
        else {
            return;
        };
        // DAGScheduler posts null metrics when the executor sent no accumulator updates (lost
        // executor, resubmitted map output): Spark 4 then omits "Task Metrics".
        let has_metrics = matches!(
            reason,
            TaskEndReason::Success
                | TaskEndReason::ExceptionFailure { .. }
                | TaskEndReason::TaskKilled { .. }
        );
        self.track_output(*stage_id, reason, &info.executor_id);
        let metrics = has_metrics.then(|| self.metrics_of(*stage_id, reason, info, *run_time_ms));
        let mut accums = Vec::new();
        // What the executor sent (`Accumulator Updates` of a failed or killed attempt).
        let mut updates = Vec::new();
        let succeeded = matches!(reason, TaskEndReason::Success);
        if let Some(m) = &metrics {
            let base = self.accum_ids(*stage_id, *stage_attempt_id);
            let totals = self
                .totals
                .entry((*stage_id, *stage_attempt_id))
                .or_default();
            for k in (0..ACCUMULATORS.len()).filter(|k| m.is_reported(*k)) {
                updates.push((base + k as u64, m.values[k]));
                // DAGScheduler.updateAccumulators skips an update that `isZero` (never added
                // to): a failed attempt's resultSize, which the executor sends regardless.
                if !succeeded && k == RESULT_SIZE_ACCUM {
                    continue;
                }
                totals.values[k] += m.values[k];
                totals.reported |= 1 << k;
                accums.push((base + k as u64, k, m.values[k], totals.values[k]));
            }
        }
        let key = (*stage_id, *stage_attempt_id, info.task_id);
        self.keep_or_recall_accums(key, *shuffle_map, reason, &mut accums);
        // A user exception's frames (JsonProtocol.stackTraceToJson), built for failures only.
        let frames = match reason {
            TaskEndReason::ExceptionFailure { .. } => {
                let callsite = self.stages.get(stage_id).map_or("", |s| &s.rdd_callsite);
                stack_traces::task_failure(&self.main_object, callsite, *shuffle_map)
            }
            _ => Vec::new(),
        };
        object(out, |o| {
            o.str("Event", "SparkListenerTaskEnd")
                .num("Stage ID", stage_id)
                .num("Stage Attempt ID", stage_attempt_id)
                .str(
                    "Task Type",
                    if *shuffle_map {
                        "ShuffleMapTask"
                    } else {
                        "ResultTask"
                    },
                );
            o.obj("Task End Reason", |r| {
                end_reason(r, reason, &frames, &updates)
            });
            o.obj("Task Info", |t| task_info(t, info, &accums));
            // DAGScheduler posts `new ExecutorMetrics(metricPeaks)`; with no peaks from the
            // executor (the same TaskEnds as no "Task Metrics") the no-arg constructor's
            // `metrics(0) = -1` stays: JVMHeapMemory -1 (ExecutorMetrics.scala).
            o.obj("Task Executor Metrics", |m| {
                executor_metrics(m, metrics.is_some())
            });
            if let Some(m) = &metrics {
                o.obj("Task Metrics", |o| task_metrics::write_json(o, m));
            }
        });
    }

    /// TaskSetManager.executorLost posts a `Resubmitted` TaskEnd with the successful attempt's
    /// TaskInfo, Accumulables included (`spark.scheduler.dropTaskInfoAccumulablesOnTaskCompletion.enabled`
    /// is false in 4.0.0), so a successful map task's are kept and a Resubmitted one gets them
    /// back; every other TaskEnd keeps its own (no copy).
    fn keep_or_recall_accums(
        &mut self,
        key: (u32, u32, u64),
        shuffle_map: bool,
        reason: &TaskEndReason,
        accums: &mut Vec<Accumulable>,
    ) {
        match reason {
            TaskEndReason::Success if shuffle_map => {
                self.map_successes.insert(key, accums.as_slice().into());
            }
            TaskEndReason::Resubmitted => {
                if let Some(kept) = self.map_successes.get(&key) {
                    *accums = kept.to_vec();
                }
            }
            _ => {}
        }
    }

    /// What the metrics model learns from an event besides the stages and tasks.
    fn observe(&mut self, e: &ListenerEvent) {
        match e {
            ListenerEvent::EnvironmentUpdate {
                spark_properties, ..
            } => {
                self.shuffle_service = spark_properties.iter().any(|(k, v)| {
                    k == "spark.shuffle.service.enabled" && v.trim().eq_ignore_ascii_case("true")
                });
            }
            ListenerEvent::ExecutorRemoved { executor_id, .. } => {
                self.executor_removed(executor_id)
            }
            ListenerEvent::ExecutorAdded {
                executor_id, host, ..
            } => {
                self.hosts.insert(executor_id.clone(), host.clone());
            }
            _ => {}
        }
    }

    /// Remembers a stage's shape (from JobStart and each StageSubmitted).
    fn note_stage(&mut self, s: &StageInfo) {
        let job_scope = self
            .stages
            .get(&s.stage_id)
            .and_then(|old| old.job_scope.clone());
        self.stages.insert(
            s.stage_id,
            StageShape {
                num_partitions: s.num_partitions,
                rdd_id: s.rdd_id,
                parents: s.parent_ids.clone(),
                shuffle_write: s.shuffle_write,
                input: s.input,
                rdd_callsite: s.rdd_callsite.clone(),
                job_scope,
            },
        );
    }

    /// Keeps each shuffle-map stage's live outputs per executor: a success adds one, a
    /// `Resubmitted` (its output was lost) removes it.
    fn track_output(&mut self, stage: u32, reason: &TaskEndReason, executor: &str) {
        let Some(shape) = self.stages.get(&stage) else {
            return;
        };
        if shape.shuffle_write == ShuffleWriteSize::default() {
            return;
        }
        let host = self.hosts.get(executor).cloned().unwrap_or_default();
        let per_exec = self.outputs.entry(stage).or_default();
        let per_host = self.host_outputs.entry(stage).or_default();
        match reason {
            TaskEndReason::Success => {
                *per_exec.entry(executor.to_string()).or_default() += 1;
                *per_host.entry(host).or_default() += 1;
            }
            TaskEndReason::Resubmitted => {
                if let Some(n) = per_exec.get_mut(executor).filter(|n| **n > 0) {
                    *n -= 1;
                    if let Some(h) = per_host.get_mut(&host) {
                        *h = h.saturating_sub(1);
                    }
                }
            }
            _ => {}
        }
    }

    /// Without the external shuffle service an executor's map outputs die with it.
    fn executor_removed(&mut self, executor: &str) {
        if self.shuffle_service {
            return;
        }
        let host = self.hosts.get(executor).cloned().unwrap_or_default();
        for (stage, per_exec) in &mut self.outputs {
            let Some(n) = per_exec.remove(executor) else {
                continue;
            };
            if let Some(h) = self
                .host_outputs
                .get_mut(stage)
                .and_then(|m| m.get_mut(&host))
            {
                *h = h.saturating_sub(n);
            }
        }
    }

    /// The live outputs of `stage` a reducer on `executor` reads without the network: its own,
    /// or its host's with `spark.shuffle.readHostLocalDisk`.
    fn local_outputs(&self, stage: u32, executor: &str) -> u64 {
        let count = |m: &BTreeMap<u32, BTreeMap<String, u64>>, key: &str| {
            m.get(&stage).and_then(|m| m.get(key)).copied().unwrap_or(0)
        };
        match self.hosts.get(executor) {
            Some(host) if self.read_host_local_disk => count(&self.host_outputs, host),
            _ => count(&self.outputs, executor),
        }
    }

    /// The model's inputs for one task attempt, then its metrics.
    fn metrics_of(
        &self,
        stage: u32,
        reason: &TaskEndReason,
        info: &TaskInfo,
        run_time_ms: u64,
    ) -> TaskMetrics {
        let default = StageShape::default();
        let shape = self.stages.get(&stage).unwrap_or(&default);
        let is_map = shape.shuffle_write != ShuffleWriteSize::default();
        let run = TaskRun {
            duration_ms: run_time_ms,
            first_on_executor: self.first_task.get(&info.executor_id) == Some(&info.task_id),
            succeeded: matches!(reason, TaskEndReason::Success),
            shuffle_write: is_map.then_some((
                shape.shuffle_write.bytes_per_task,
                shape.shuffle_write.records_per_task,
            )),
            shuffle_read: self.shuffle_read(shape, &info.executor_id, info.partition_id),
            input: (shape.input != InputSize::default())
                .then(|| shape.input.of_task(info.partition_id)),
            result_bytes: None,
        };
        let sized = self
            .sized
            .as_deref()
            .and_then(|s| s.task(stage, info.partition_id));
        task_metrics::task_metrics(&sized.map_or(run, |t| with_sizes(run, t)), &self.costs)
    }

    /// What reduce partition `partition` of `shape` fetches on `executor`: one block per map
    /// output of each parent stage that wrote bytes (the map task's bytes over the reduce
    /// partitions, a hot partition's block `factor` times the others'), local when that
    /// executor (or, reading host-local disks, its host) wrote it.
    fn shuffle_read(
        &self,
        shape: &StageShape,
        executor: &str,
        partition: u32,
    ) -> Option<ShuffleRead> {
        let mut read = ShuffleRead::default();
        let mut any = false;
        for p in &shape.parents {
            let Some(parent) = self.stages.get(p) else {
                continue;
            };
            let w = parent.shuffle_write;
            if w.bytes_per_task == 0 {
                continue;
            }
            any = true;
            let maps = u64::from(parent.num_partitions);
            let local = self.local_outputs(*p, executor).min(maps);
            let (block, records) = w.block(partition, shape.num_partitions);
            read.local_blocks += local;
            read.remote_blocks += maps - local;
            read.local_bytes += local * block;
            read.remote_bytes += (maps - local) * block;
            read.records += maps * records;
        }
        any.then_some(read)
    }

    fn stage_completed(&mut self, out: &mut String, stage: &StageInfo) {
        let key = (stage.stage_id, stage.attempt_id);
        // A finished stage attempt's task set is a zombie: no Resubmitted TaskEnd comes after
        // (TaskSetManager.executorLost checks !isZombie).
        self.map_successes.retain(|k, _| (k.0, k.1) != key);
        let base = self.accum_ids(key.0, key.1);
        let totals = self.totals.get(&key).copied();
        // JsonProtocol writes the stage's accumulables sorted by id: those its tasks updated.
        let accums: Vec<(u64, usize, u64)> = totals
            .map(|t| {
                (0..ACCUMULATORS.len())
                    .filter(|k| t.is_reported(*k))
                    .map(|k| (base + k as u64, k, t.values[k]))
                    .collect()
            })
            .unwrap_or_default();
        object(out, |o| {
            o.str("Event", "SparkListenerStageCompleted");
            let parents = parent_rdds(&self.stages, stage);
            o.obj("Stage Info", |s| {
                stage_info(s, stage, &parents, Some(&accums))
            });
        });
    }
}

/// A task's run with its own recorded sizes in place of its stage's even spread: what it wrote
/// and read from its input, and what it fetched, split between local and remote blocks as the
/// simulated run placed its map outputs.
fn with_sizes(mut run: TaskRun, t: &TaskSizes) -> TaskRun {
    let pair = |d: DataSize| (d.bytes, d.records);
    if t.result_bytes > 0 {
        run.result_bytes = Some(t.result_bytes);
    }
    if run.shuffle_write.is_some() {
        run.shuffle_write = Some(pair(t.shuffle_write));
    }
    if run.input.is_some() || t.input != DataSize::default() {
        run.input = Some(pair(t.input));
    }
    if let Some(r) = &mut run.shuffle_read {
        let blocks = (r.local_blocks + r.remote_blocks).max(1);
        let local = (u128::from(t.shuffle_read.bytes) * u128::from(r.local_blocks)
            / u128::from(blocks)) as u64;
        r.local_bytes = local;
        r.remote_bytes = t.shuffle_read.bytes - local;
        r.records = t.shuffle_read.records;
    }
    run
}

/// `SparkListenerResourceProfileAdded` of the default profile: each side's requests in its
/// Scala map's order (a `ConcurrentHashMap`'s, then `toMap`'s), as the driver's
/// `Default ResourceProfile created` line prints them, put in `getDefaultExecutorResources`'
/// order (cores, memory, memoryOverhead and pyspark.memory when set, offHeap, the custom ones).
fn resource_profile(
    out: &mut String,
    builtin: &DefaultExecutorRequests,
    task_cpus: u32,
    executor_custom: &[ExecutorResourceRequest],
    task_custom: &[TaskResourceRequest],
) {
    let mut executor: Vec<(&str, (u64, &str, &str))> = vec![
        ("cores", (u64::from(builtin.cores), "", "")),
        ("memory", (builtin.memory_mb, "", "")),
    ];
    if let Some(mb) = builtin.memory_overhead_mb {
        executor.push(("memoryOverhead", (mb, "", "")));
    }
    if let Some(mb) = builtin.pyspark_memory_mb {
        executor.push(("pyspark.memory", (mb, "", "")));
    }
    executor.push(("offHeap", (builtin.offheap_mb, "", "")));
    for r in executor_custom {
        let request = (r.amount, r.discovery_script.as_str(), r.vendor.as_str());
        executor.push((r.name.as_str(), request));
    }
    let cpus = format!("{task_cpus}.0");
    let mut task: Vec<(&str, String)> = vec![("cpus", cpus)];
    for r in task_custom {
        task.push((r.name.as_str(), double_to_string(r.amount)));
    }
    object(out, |o| {
        o.str("Event", "SparkListenerResourceProfileAdded")
            .num("Resource Profile Id", 0);
        o.obj("Executor Resource Requests", |r| {
            for (name, (amount, script, vendor)) in
                scala_map_order(java_concurrent_map_order(executor))
            {
                r.obj(name, |q| {
                    q.str("Resource Name", name)
                        .num("Amount", amount)
                        .str("Discovery Script", script)
                        .str("Vendor", vendor);
                });
            }
        });
        o.obj("Task Resource Requests", |r| {
            for (name, amount) in scala_map_order(java_concurrent_map_order(task)) {
                r.obj(name, |q| {
                    q.str("Resource Name", name).num("Amount", amount.as_str());
                });
            }
        });
    });
}

fn environment(
    out: &mut String,
    spark: &[(String, String)],
    hadoop: &[(String, String)],
    system: &[(String, String)],
    classpath: &[(String, String)],
) {
    use super::environment::{JAVA_HOME, JAVA_VENDOR, JAVA_VERSION};
    // SparkEnv.environmentDetails' jvmInformation, sorted.
    let java_version = format!("{JAVA_VERSION} ({JAVA_VENDOR})");
    let jvm = [
        ("Java Home", JAVA_HOME),
        ("Java Version", java_version.as_str()),
        ("Scala Version", "version 2.13.16"),
    ];
    // MetricsConfig's defaults (no metrics.properties), sorted by key as a real Spark 4.0
    // log writes them (tests/data/eventlogs).
    let metrics = [
        (
            "*.sink.servlet.class",
            "org.apache.spark.metrics.sink.MetricsServlet",
        ),
        ("*.sink.servlet.path", "/metrics/json"),
        (
            "applications.sink.servlet.path",
            "/metrics/applications/json",
        ),
        ("master.sink.servlet.path", "/metrics/master/json"),
    ];
    // EventLoggingListener.redactEvent: every map but the classpath goes through Utils.redact.
    let r = sparkyard_actors::simulation::spark_conf::Redactor::from_properties(
        spark.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let redacted = |kvs: &[(String, String)]| -> Vec<(String, String)> {
        kvs.iter()
            .map(|(k, v)| (k.clone(), r.redact(k, v).to_string()))
            .collect()
    };
    // `hadoop` is the cluster's site values: the driver's whole configuration is built here,
    // once, rather than during the run.
    let hadoop = super::environment::hadoop_properties(hadoop, spark);
    let (spark, hadoop) = (redacted(spark), redacted(&hadoop));
    // JsonProtocol.environmentUpdateToJson writes each sorted sequence through `toMap`.
    use sparkyard_messages::jvm_text::scala_map_order as order;
    object(out, |o| {
        o.str("Event", "SparkListenerEnvironmentUpdate");
        o.map("JVM Information", &order(jvm.to_vec()));
        o.map("Spark Properties", &order(spark));
        o.map("Hadoop Properties", &order(hadoop));
        o.map("System Properties", &order(redacted(system)));
        o.map("Metrics Properties", &order(metrics.to_vec()));
        o.map("Classpath Entries", &order(classpath.to_vec()));
    });
}

fn application_start(out: &mut String, e: &ListenerEvent) {
    let ListenerEvent::ApplicationStart {
        app_name,
        app_id,
        time,
        user,
        attempt_id,
        driver_logs,
        driver_attributes,
    } = e
    else {
        return;
    };
    object(out, |o| {
        o.str("Event", "SparkListenerApplicationStart")
            .str("App Name", app_name)
            .str("App ID", app_id)
            .num("Timestamp", time)
            .str("User", user)
            .str("App Attempt ID", attempt_id);
        o.map("Driver Logs", driver_logs);
        o.map("Driver Attributes", driver_attributes);
    });
}

/// The RDDs of a stage's parent stages, in its parents' order.
fn parent_rdds(stages: &BTreeMap<u32, StageShape>, s: &StageInfo) -> Vec<u32> {
    s.parent_ids
        .iter()
        .filter_map(|p| stages.get(p).map(|shape| shape.rdd_id))
        .collect()
}

/// `stageInfoToJson`; `accums` is `None` in StageSubmitted (SPARK-42205: no accumulables in
/// start events, written as `[]`), else the stage's `(id, metric, value)` totals.
fn stage_info(
    o: &mut Obj<'_>,
    s: &StageInfo,
    parent_rdds: &[u32],
    accums: Option<&[(u64, usize, u64)]>,
) {
    o.num("Stage ID", s.stage_id)
        .num("Stage Attempt ID", s.attempt_id)
        .str("Stage Name", &s.name)
        .num("Number of Tasks", s.num_tasks);
    o.arr("RDD Info", |a| match &s.lineage {
        Some(l) if !l.rdds.is_empty() => {
            for (k, rdd) in l.rdds.iter().enumerate() {
                let r = Rdd {
                    id: rdd.id,
                    name: &rdd.name,
                    scope: rdd.scope.as_ref(),
                    callsite: &rdd.callsite,
                    parents: &rdd.parent_ids,
                    cached: rdd.cached,
                    level: rdd.deterministic_level,
                    barrier: s.is_barrier && k == 0,
                };
                a.obj(|o| rdd_info(o, &r, s.num_partitions));
            }
        }
        _ => {
            let r = Rdd {
                id: s.rdd_id,
                name: &s.rdd_name,
                scope: None,
                callsite: &s.rdd_callsite,
                parents: parent_rdds,
                cached: false,
                level: DeterministicLevel::Determinate,
                barrier: s.is_barrier,
            };
            a.obj(|o| rdd_info(o, &r, s.num_partitions));
        }
    });
    o.arr("Parent IDs", |a| {
        for p in &s.parent_ids {
            a.num(p);
        }
    });
    o.str(
        "Details",
        s.lineage.as_ref().map_or("", |l| l.details.as_str()),
    );
    if let Some(t) = s.submission_time {
        o.num("Submission Time", t);
    }
    if let Some(t) = s.completion_time {
        o.num("Completion Time", t);
    }
    if let Some(f) = &s.failure_reason {
        o.str("Failure Reason", f);
    }
    o.arr("Accumulables", |a| {
        for &(id, k, v) in accums.unwrap_or(&[]) {
            a.obj(|acc| accumulable(acc, id, k, None, v));
        }
    });
    o.num("Resource Profile Id", 0)
        .bool("Shuffle Push Enabled", false)
        .num("Shuffle Push Mergers Count", 0);
}

/// One `RDDInfo` to write.
struct Rdd<'a> {
    id: u32,
    name: &'a str,
    scope: Option<&'a RddScope>,
    callsite: &'a str,
    parents: &'a [u32],
    cached: bool,
    level: DeterministicLevel,
    /// `RDDInfo.isBarrier`: a barrier stage's own RDD (`rdd.barrier().mapPartitions`); its
    /// narrow ancestors are written as not (those before `.barrier()` are not barrier RDDs in
    /// Spark, those between it and the stage's RDD are: a program's lineage does not say which).
    barrier: bool,
}

/// `propertiesToJson` of a job's local properties: `RDD.withScope` leaves the action's scope
/// and `spark.rdd.scope.noOverride` set while `sc.runJob` submits the job.
fn properties(o: &mut Obj<'_>, scope: Option<&RddScope>) {
    o.obj("Properties", |p| {
        if let Some(scope) = scope {
            p.str("spark.rdd.scope", &scope.to_json())
                .str("spark.rdd.scope.noOverride", "true");
        }
    });
}

/// `rddInfoToJson`; a stage's RDD depends on the RDDs of its parent stages (a ShuffledRDD on
/// the map side's RDD), which is what the History Server draws the DAG's edges from.
fn rdd_info(r: &mut Obj<'_>, rdd: &Rdd<'_>, partitions: u32) {
    r.num("RDD ID", rdd.id).str("Name", rdd.name);
    if let Some(scope) = rdd.scope {
        r.str("Scope", &scope.to_json());
    }
    r.str("Callsite", rdd.callsite);
    r.arr("Parent IDs", |a| {
        for p in rdd.parents {
            a.num(p);
        }
    });
    r.obj("Storage Level", |l| {
        l.bool("Use Disk", false)
            .bool("Use Memory", rdd.cached)
            .bool("Use Off Heap", false)
            .bool("Deserialized", rdd.cached)
            .num("Replication", 1);
    });
    r.bool("Barrier", rdd.barrier)
        .str("DeterministicLevel", rdd.level.name())
        .num("Number of Partitions", partitions)
        .num("Number of Cached Partitions", 0)
        .num("Memory Size", 0)
        .num("Disk Size", 0);
}

/// `taskInfoToJson`; `accums` are `(id, metric, update, value)`.
fn task_info(t: &mut Obj<'_>, i: &TaskInfo, accums: &[(u64, usize, u64, u64)]) {
    t.num("Task ID", i.task_id)
        .num("Index", i.index)
        .num("Attempt", i.attempt)
        .num("Partition ID", i.partition_id)
        .num("Launch Time", i.launch_time)
        .str("Executor ID", &i.executor_id)
        .str("Host", &i.host)
        .str("Locality", i.locality)
        .bool("Speculative", i.speculative)
        .num("Getting Result Time", 0)
        .num("Finish Time", i.finish_time)
        .bool("Failed", i.failed)
        .bool("Killed", i.killed);
    t.arr("Accumulables", |a| {
        for &(id, k, update, value) in accums {
            a.obj(|acc| accumulable(acc, id, k, Some(update), value));
        }
    });
}

/// `accumulableInfoToJson` for metric `k` of [`ACCUMULATORS`]; only a task's entry carries the
/// task's own `update` besides the running `value`.
fn accumulable(acc: &mut Obj<'_>, id: u64, k: usize, update: Option<u64>, value: u64) {
    acc.num("ID", id).str("Name", ACCUMULATORS[k]);
    if let Some(u) = update {
        acc.num("Update", u);
    }
    acc.num("Value", value)
        .bool("Internal", true)
        .bool("Count Failed Values", true);
}

/// `taskEndReasonToJson`; `updates` are the `(id, update)`s the executor sent with a failed or
/// killed attempt.
fn end_reason(
    r: &mut Obj<'_>,
    reason: &TaskEndReason,
    frames: &[Frame<'_>],
    updates: &[(u64, u64)],
) {
    match reason {
        TaskEndReason::Success => {
            r.str("Reason", "Success");
        }
        TaskEndReason::Resubmitted => {
            r.str("Reason", "Resubmitted");
        }
        // JsonProtocol.taskEndReasonToJson: the exception's frames and Utils.exceptionString.
        TaskEndReason::ExceptionFailure { class, description } => {
            let full = stack_traces::full_text(class, description, frames);
            r.str("Reason", "ExceptionFailure")
                .str("Class Name", class)
                .str("Description", description);
            r.arr("Stack Trace", |a| stack_traces::write_json(a, frames));
            r.str("Full Stack Trace", &full);
            accumulator_updates(r, updates);
        }
        TaskEndReason::ExecutorLostFailure {
            executor_id,
            exit_caused_by_app,
            loss_reason,
        } => {
            r.str("Reason", "ExecutorLostFailure")
                .str("Executor ID", executor_id)
                .bool("Exit Caused By App", *exit_caused_by_app)
                .str("Loss Reason", loss_reason);
        }
        TaskEndReason::TaskKilled { reason } => {
            r.str("Reason", "TaskKilled").str("Kill Reason", reason);
            accumulator_updates(r, updates);
        }
        // JsonProtocol.taskEndReasonToJson: FetchFailed (no address for a null bmAddress).
        TaskEndReason::FetchFailed(f) => {
            r.str("Reason", "FetchFailed");
            if let Some(b) = &f.bm_address {
                r.obj("Block Manager Address", |o| {
                    o.str("Executor ID", &b.executor_id.to_string())
                        .str("Host", &b.host)
                        .num("Port", b.port);
                });
            }
            r.num("Shuffle ID", f.shuffle_id)
                .num("Map ID", f.map_id)
                .num("Map Index", f.map_index)
                .num("Reduce ID", f.reduce_id)
                .str("Message", &f.message);
        }
    }
}

/// An ExceptionFailure's / TaskKilled's `Accumulator Updates` as a real Spark 4.0 log has them:
/// the executor's `toInfoUpdate`s of its task metrics carry no name, so `accumulableInfoToJson`
/// writes no "Name", the update as a string and `"Internal": false`.
fn accumulator_updates(r: &mut Obj<'_>, updates: &[(u64, u64)]) {
    r.arr("Accumulator Updates", |a| {
        for &(id, update) in updates {
            a.obj(|acc| {
                acc.num("ID", id)
                    .str("Update", &update.to_string())
                    .bool("Internal", false)
                    .bool("Count Failed Values", true);
            });
        }
    });
}

/// Metrics the simulation never moves off zero, in the order given.
/// `executorMetricsToJson` of a TaskEnd's peaks: zeros (sparkyard does not model them), or,
/// when the executor sent none, the no-arg `ExecutorMetrics`' -1 in its first metric.
fn executor_metrics(o: &mut Obj<'_>, from_executor: bool) {
    for (i, name) in EXECUTOR_METRICS.iter().enumerate() {
        o.num(name, if i == 0 && !from_executor { -1i32 } else { 0 });
    }
}

fn job_end(out: &mut String, job_id: u32, time: u64, failure: Option<&str>) {
    object(out, |o| {
        o.str("Event", "SparkListenerJobEnd")
            .num("Job ID", job_id)
            .num("Completion Time", time);
        o.obj("Job Result", |r| match failure {
            None => {
                r.str("Result", "JobSucceeded");
            }
            Some(message) => {
                r.str("Result", "JobFailed");
                // JsonProtocol.jobResultToJson -> exceptionToJson.
                r.obj("Exception", |x| {
                    x.str("Message", message);
                    let frames = stack_traces::job_failure(message);
                    x.arr("Stack Trace", |a| stack_traces::write_json(a, frames));
                });
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The default profile's event lists memoryOverhead (and pyspark.memory) when set, and
    /// offHeap's own size, as `getDefaultExecutorResources` puts them (the committed GPU log,
    /// `spark.executor.memoryOverhead=8g`, has `memoryOverhead` among its `Executor Resource
    /// Requests`); the keys come in the order the driver's `Default ResourceProfile created`
    /// line prints them.
    #[test]
    fn the_default_profile_event_lists_the_set_memory_overhead_and_off_heap() {
        let builtin = DefaultExecutorRequests {
            cores: 4,
            memory_mb: 20480,
            memory_overhead_mb: Some(8192),
            pyspark_memory_mb: None,
            offheap_mb: 0,
        };
        let gpu = ExecutorResourceRequest {
            name: "gpu".into(),
            amount: 1,
            discovery_script: "./getGpus".into(),
            vendor: String::new(),
        };
        let mut out = String::new();
        resource_profile(&mut out, &builtin, 1, &[gpu], &[]);
        let v: Value = serde_json::from_str(&out).expect("json");
        let requests = v["Executor Resource Requests"]
            .as_object()
            .expect("requests");
        let names: Vec<&str> = requests.keys().map(String::as_str).collect();
        let mut expected = vec!["cores", "memory", "memoryOverhead", "offHeap", "gpu"];
        expected.sort_unstable();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, expected);
        assert_eq!(requests["memoryOverhead"]["Amount"], 8192);
        let without = DefaultExecutorRequests {
            memory_overhead_mb: None,
            offheap_mb: 512,
            ..builtin
        };
        let mut out = String::new();
        resource_profile(&mut out, &without, 1, &[], &[]);
        let v: Value = serde_json::from_str(&out).expect("json");
        let requests = v["Executor Resource Requests"]
            .as_object()
            .expect("requests");
        assert!(!requests.contains_key("memoryOverhead"));
        assert_eq!(requests["offHeap"]["Amount"], 512);
    }

    fn stage(id: u32, tasks: u32, parents: Vec<u32>, bytes: u64) -> StageInfo {
        StageInfo {
            stage_id: id,
            attempt_id: 0,
            name: format!("stage {id}"),
            num_tasks: tasks,
            num_partitions: tasks,
            rdd_id: id,
            rdd_name: "MapPartitionsRDD".into(),
            rdd_callsite: "map at X.scala:1".into(),
            parent_ids: parents,
            submission_time: None,
            completion_time: None,
            failure_reason: None,
            is_shuffle_map: bytes > 0,
            shuffle_dep_id: (bytes > 0).then_some(id),
            shuffle_write: ShuffleWriteSize {
                bytes_per_task: bytes,
                records_per_task: bytes / 100,
                hot: Default::default(),
            },
            input: Default::default(),
            lineage: None,
            task_locality_preferences: Vec::new(),
            is_barrier: false,
        }
    }

    fn task(stage: u32, tid: u64, executor: &str, reason: TaskEndReason) -> [ListenerEvent; 2] {
        let info = TaskInfo {
            task_id: tid,
            index: tid as u32,
            attempt: 0,
            partition_id: tid as u32,
            launch_time: 1000,
            executor_id: executor.into(),
            host: "h".into(),
            locality: "PROCESS_LOCAL",
            finish_time: 2000,
            failed: false,
            killed: false,
            speculative: false,
        };
        [
            ListenerEvent::TaskStart {
                stage_id: stage,
                stage_attempt_id: 0,
                info: info.clone(),
            },
            ListenerEvent::TaskEnd {
                stage_id: stage,
                stage_attempt_id: 0,
                shuffle_map: stage == 0,
                reason,
                info,
                run_time_ms: 1000,
            },
        ]
    }

    fn write(events: &[ListenerEvent]) -> Vec<Value> {
        let mut w = LogWriter::default();
        events
            .iter()
            .map(|e| {
                let mut out = String::new();
                w.event(&mut out, e);
                serde_json::from_str(&out).expect("json")
            })
            .collect()
    }

    /// One event as the log writes it (a line, without the newline).
    fn line(e: &ListenerEvent) -> String {
        let mut out = String::new();
        LogWriter::default().event(&mut out, e);
        out
    }

    /// Both names of an exclusion event, Blacklisted (posted first) then Excluded.
    fn both(f: impl Fn(ExclusionEventName) -> ListenerEvent) -> [String; 2] {
        [
            line(&f(ExclusionEventName::Blacklisted)),
            line(&f(ExclusionEventName::Excluded)),
        ]
    }

    // The expected lines are what Spark 4.0.0's own writer prints:
    // `JsonProtocol.sparkEventToJsonString(new SparkListenerExecutorExcluded(1700000000123L, "3",
    // 2))` and its siblings, run with java 17 against pyspark 4.0.0's jars (no JsonProtocol
    // case for them: Jackson writes the case class with the class name as "Event").
    #[test]
    fn executor_excluded_json_is_jacksons() {
        let got = both(|name| ListenerEvent::ExecutorExcluded {
            name,
            time: 1700000000123,
            executor_id: "3".into(),
            task_failures: 2,
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorBlacklisted","time":1700000000123,"executorId":"3","taskFailures":2}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorExcluded","time":1700000000123,"executorId":"3","taskFailures":2}"#,
            ]
        );
    }

    #[test]
    fn executor_unexcluded_json_is_jacksons() {
        let got = both(|name| ListenerEvent::ExecutorUnexcluded {
            name,
            time: 1700000000124,
            executor_id: "3".into(),
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorUnblacklisted","time":1700000000124,"executorId":"3"}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorUnexcluded","time":1700000000124,"executorId":"3"}"#,
            ]
        );
    }

    #[test]
    fn node_excluded_json_is_jacksons() {
        let got = both(|name| ListenerEvent::NodeExcluded {
            name,
            time: 1700000000125,
            host_id: "nm-1".into(),
            executor_failures: 2,
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeBlacklisted","time":1700000000125,"hostId":"nm-1","executorFailures":2}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeExcluded","time":1700000000125,"hostId":"nm-1","executorFailures":2}"#,
            ]
        );
    }

    #[test]
    fn node_unexcluded_json_is_jacksons() {
        let got = both(|name| ListenerEvent::NodeUnexcluded {
            name,
            time: 1700000000126,
            host_id: "nm-1".into(),
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeUnblacklisted","time":1700000000126,"hostId":"nm-1"}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeUnexcluded","time":1700000000126,"hostId":"nm-1"}"#,
            ]
        );
    }

    #[test]
    fn executor_excluded_for_stage_json_is_jacksons() {
        let got = both(|name| ListenerEvent::ExecutorExcludedForStage {
            name,
            time: 1700000000127,
            executor_id: "3".into(),
            task_failures: 2,
            stage_id: 4,
            stage_attempt_id: 1,
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorBlacklistedForStage","time":1700000000127,"executorId":"3","taskFailures":2,"stageId":4,"stageAttemptId":1}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerExecutorExcludedForStage","time":1700000000127,"executorId":"3","taskFailures":2,"stageId":4,"stageAttemptId":1}"#,
            ]
        );
    }

    #[test]
    fn node_excluded_for_stage_json_is_jacksons() {
        let got = both(|name| ListenerEvent::NodeExcludedForStage {
            name,
            time: 1700000000128,
            host_id: "nm-1".into(),
            executor_failures: 2,
            stage_id: 4,
            stage_attempt_id: 1,
        });
        assert_eq!(
            got,
            [
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeBlacklistedForStage","time":1700000000128,"hostId":"nm-1","executorFailures":2,"stageId":4,"stageAttemptId":1}"#,
                r#"{"Event":"org.apache.spark.scheduler.SparkListenerNodeExcludedForStage","time":1700000000128,"hostId":"nm-1","executorFailures":2,"stageId":4,"stageAttemptId":1}"#,
            ]
        );
    }

    // ShuffleBlockFetcherIterator (Spark 4.0.0's jar): `next()` updates the metrics of a
    // block in `hostLocalBlocks` with `shuffleMetricsUpdate(..., local = true)`, so with
    // `spark.shuffle.readHostLocalDisk` (true) the outputs of another executor on the
    // reducer's host are "Local Blocks Fetched"; without it they are remote.
    #[test]
    fn host_local_blocks_count_as_local_only_while_reading_host_local_disks() {
        let added = |id: &str, host: &str| ListenerEvent::ExecutorAdded {
            time: 0,
            request_time: None,
            executor_id: id.into(),
            host: host.into(),
            total_cores: 1,
            log_urls: vec![],
            attributes: vec![],
            resources: vec![],
        };
        let mut events = vec![
            added("1", "nm-1"),
            added("2", "nm-1"),
            added("3", "nm-2"),
            ListenerEvent::JobStart {
                job_id: 0,
                time: 0,
                stages: vec![stage(0, 3, vec![], 3000), stage(1, 1, vec![0], 0)],
            },
        ];
        events.extend(task(0, 0, "1", TaskEndReason::Success));
        events.extend(task(0, 1, "2", TaskEndReason::Success));
        events.extend(task(0, 2, "3", TaskEndReason::Success));
        events.extend(task(1, 3, "1", TaskEndReason::Success));
        let read = |host_local: bool| {
            let mut w = LogWriter {
                read_host_local_disk: host_local,
                ..LogWriter::default()
            };
            let last = events.iter().fold(String::new(), |_, e| {
                let mut out = String::new();
                w.event(&mut out, e);
                out
            });
            let v: Value = serde_json::from_str(&last).expect("json");
            let r = &v["Task Metrics"]["Shuffle Read Metrics"];
            (
                r["Local Blocks Fetched"].clone(),
                r["Remote Blocks Fetched"].clone(),
            )
        };
        assert_eq!(read(true), (2.into(), 1.into()));
        assert_eq!(read(false), (1.into(), 2.into()));
    }

    // ShuffleBlockFetcherIterator: blocks whose map output lives on the reducer's own
    // executor are local, the others remote; without the shuffle service a removed executor's
    // outputs are gone. Stage accumulables are JsonProtocol's, sorted by id (37 per attempt).
    #[test]
    fn reduce_tasks_read_local_and_remote_blocks_from_where_the_maps_ran() {
        let mut events = vec![ListenerEvent::JobStart {
            job_id: 0,
            time: 0,
            stages: vec![stage(0, 3, vec![], 4000), stage(1, 2, vec![0], 0)],
        }];
        events.extend(task(0, 0, "1", TaskEndReason::Success));
        events.extend(task(0, 1, "1", TaskEndReason::Success));
        events.extend(task(0, 2, "2", TaskEndReason::Success));
        events.extend(task(1, 3, "1", TaskEndReason::Success));
        events.push(ListenerEvent::ExecutorRemoved {
            time: 0,
            executor_id: "1".into(),
            reason: "lost".into(),
        });
        events.extend(task(1, 4, "2", TaskEndReason::Success));
        events.push(ListenerEvent::StageCompleted {
            stage: stage(1, 2, vec![0], 0),
        });
        let log = write(&events);
        let read = |i: usize| log[i]["Task Metrics"]["Shuffle Read Metrics"].clone();
        // Task 3 on executor 1: two local blocks of 4000 / 2 bytes, one remote.
        let r3 = read(8);
        assert_eq!(r3["Local Blocks Fetched"], 2);
        assert_eq!(r3["Remote Blocks Fetched"], 1);
        assert_eq!(r3["Local Bytes Read"], 4000);
        assert_eq!(r3["Remote Bytes Read"], 2000);
        assert_eq!(r3["Total Records Read"], 60);
        // Task 4 on executor 2 after executor 1 left: its own block is local.
        let r4 = read(11);
        assert_eq!(r4["Local Blocks Fetched"], 1);
        assert_eq!(r4["Remote Blocks Fetched"], 2);
        let w = &log[2]["Task Metrics"]["Shuffle Write Metrics"];
        assert_eq!(w["Shuffle Bytes Written"], 4000);
        assert_eq!(log[1]["Task Info"]["Accumulables"], Value::Array(vec![]));
        let acc = log[12]["Stage Info"]["Accumulables"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let ids: Vec<u64> = acc.iter().filter_map(|a| a["ID"].as_u64()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        let blocks = acc
            .iter()
            .find(|a| a["Name"] == "internal.metrics.shuffle.read.localBlocksFetched")
            .expect("local blocks");
        assert_eq!(blocks["ID"], 37 + 14);
        assert_eq!(blocks["Value"], 3);
    }

    // TaskSetManager.executorLost posts `Resubmitted` with the successful attempt's TaskInfo
    // (emptyTaskInfoAccumulablesAndNotifyDagScheduler posts the info it finds; with
    // spark.scheduler.dropTaskInfoAccumulablesOnTaskCompletion.enabled false, 4.0.0's default,
    // it still holds its Accumulables), no accumulator updates and no metric peaks: no "Task
    // Metrics" and `new ExecutorMetrics(Array.empty)`, whose JVMHeapMemory stays -1
    // (ExecutorMetrics.scala; JsonProtocol.taskEndToJson). So for an ExecutorLostFailure.
    #[test]
    fn a_resubmitted_task_end_posts_the_successful_attempts_task_info_again() {
        let mut events = vec![ListenerEvent::JobStart {
            job_id: 0,
            time: 0,
            stages: vec![stage(0, 2, vec![], 4000), stage(1, 2, vec![0], 0)],
        }];
        events.extend(task(0, 0, "1", TaskEndReason::Success));
        let [_, lost] = task(
            0,
            1,
            "1",
            TaskEndReason::ExecutorLostFailure {
                executor_id: "1".into(),
                exit_caused_by_app: true,
                loss_reason: "lost".into(),
            },
        );
        events.push(lost);
        let [_, resubmitted] = task(0, 0, "1", TaskEndReason::Resubmitted);
        events.push(resubmitted);
        let log = write(&events);
        let success = &log[2];
        let again = &log[4];
        assert_eq!(again["Task End Reason"]["Reason"], "Resubmitted");
        assert_eq!(again["Task Info"], success["Task Info"]);
        assert_ne!(again["Task Info"]["Accumulables"], Value::Array(vec![]));
        for no_peaks in [again, &log[3]] {
            assert_eq!(no_peaks["Task Executor Metrics"]["JVMHeapMemory"], -1);
            assert_eq!(no_peaks["Task Executor Metrics"]["JVMOffHeapMemory"], 0);
            assert!(no_peaks.get("Task Metrics").is_none(), "{no_peaks}");
        }
        assert_eq!(success["Task Executor Metrics"]["JVMHeapMemory"], 0);
    }
}
