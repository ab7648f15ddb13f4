//! The Spark event log (`spark.eventLog.enabled`): one JSON-lines file per SparkContext (one per
//! AM attempt in cluster mode), with Spark 4's `JsonProtocol` field names, order and types, named
//! as `SingleEventLogFileWriter` names it (`<appId>_<attemptId>[.zstd]`, `.inprogress` while the
//! attempt has not posted ApplicationEnd). A real Spark History Server reads these files.

use super::json::{Obj, object};
use crate::error::UserError;
use crate::runner::RunResult;
use sparkyard_actors::world::config::SparkSettings;
use sparkyard_actors::world::listener::AttemptEvents;
use sparkyard_messages::listener::{ListenerEvent, StageInfo, TaskEndReason, TaskInfo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The key named in every event-log error.
const DIR_KEY: &str = "spark.eventLog.dir";
/// How much of a log is built in memory before it goes to the file, bytes.
const CHUNK: usize = 1 << 20;
/// What an executor's task returns to the driver (the executor logs the same figure).
const RESULT_SIZE: u64 = 1000;
/// The driver JVM's `java.home` in the environment tab (the simulated JVM is Java 17).
const JAVA_HOME: &str = "/usr/lib/jvm/java-17-openjdk-amd64";

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

/// The internal accumulators written per task and per stage (`internal.metrics.*`).
const ACCUMULATORS: &[&str] = &[
    "internal.metrics.executorDeserializeTime",
    "internal.metrics.executorDeserializeCpuTime",
    "internal.metrics.executorRunTime",
    "internal.metrics.executorCpuTime",
    "internal.metrics.resultSize",
];

/// `shuffleReadMetricsToJson` fields; the simulation has no shuffle, so each is 0.
const SHUFFLE_READ_METRICS: &[&str] = &[
    "Remote Blocks Fetched",
    "Local Blocks Fetched",
    "Fetch Wait Time",
    "Remote Bytes Read",
    "Remote Bytes Read To Disk",
    "Local Bytes Read",
    "Total Records Read",
    "Remote Requests Duration",
];

/// `shufflePushReadMetricsToJson` fields (push-based shuffle is off), each 0.
const SHUFFLE_PUSH_READ_METRICS: &[&str] = &[
    "Corrupt Merged Block Chunks",
    "Merged Fetch Fallback Count",
    "Merged Remote Blocks Fetched",
    "Merged Local Blocks Fetched",
    "Merged Remote Chunks Fetched",
    "Merged Local Chunks Fetched",
    "Merged Remote Bytes Read",
    "Merged Local Bytes Read",
    "Merged Remote Requests Duration",
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
    /// `java.io.IOException: Target log file already exists (<path>)`: the earlier, completed
    /// log is kept and this run's log stays `.inprogress` (EventLogFileWriters.scala renameFile,
    /// without `spark.eventLog.overwrite`). Spark logs it and the application still succeeds.
    pub refused: Option<String>,
}

/// [`write_event_logs`], saying which logs Spark would not rename over an earlier one.
pub fn write_event_logs_reporting(
    result: &RunResult,
    spark: &SparkSettings,
) -> Result<Vec<WrittenLog>, UserError> {
    if !spark.event_log_enabled || result.events.is_empty() {
        return Ok(Vec::new());
    }
    let dir = log_dir(&spark.event_log_dir)?;
    let codec = codec_extension(spark)?;
    let overwrite = spark
        .properties
        .get("spark.eventLog.overwrite")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    std::fs::create_dir_all(&dir).map_err(|e| dir_error(&dir, "cannot create it", &e))?;
    let mut written = Vec::new();
    for attempt in &result.events {
        written.push(write_attempt(&dir, codec, attempt, overwrite)?);
    }
    Ok(written)
}

/// `spark.eventLog.dir` as a local path: `file:///x`, `file:/x` or a plain path.
pub fn log_dir(value: &str) -> Result<PathBuf, UserError> {
    let v = value.trim();
    let path = if let Some(rest) = v.strip_prefix("file://") {
        rest
    } else if let Some(rest) = v.strip_prefix("file:") {
        rest
    } else if v.contains("://") {
        return Err(UserError::file(
            DIR_KEY,
            format!(
                "{v}: sparkyard writes event logs to the local file system only (file:/path or a plain path)"
            ),
        ));
    } else {
        v
    };
    if path.is_empty() {
        return Err(UserError::file(DIR_KEY, "the directory is empty"));
    }
    Ok(PathBuf::from(path))
}

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

fn dir_error(dir: &Path, what: &str, e: &std::io::Error) -> UserError {
    UserError::file(DIR_KEY, format!("{}: {what}: {e}", dir.display()))
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

/// The file name Spark gives this attempt's log: `<appId>_<attemptId>[.<codec>][.inprogress]`.
pub fn file_name(attempt: &AttemptEvents, codec: Option<&str>) -> String {
    let attempt_id = attempt
        .events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::ApplicationStart { attempt_id, .. } => Some(attempt_id.clone()),
            _ => None,
        })
        .unwrap_or_else(|| attempt.attempt_id.to_string());
    let mut name = format!("{}_{}", sanitize(&attempt.app_id), sanitize(&attempt_id));
    if let Some(c) = codec {
        name = format!("{name}.{c}");
    }
    let ended = attempt
        .events
        .iter()
        .any(|e| matches!(e, ListenerEvent::ApplicationEnd { .. }));
    if !ended {
        name.push_str(".inprogress");
    }
    name
}

fn write_attempt(
    dir: &Path,
    codec: Option<&str>,
    attempt: &AttemptEvents,
    overwrite: bool,
) -> Result<WrittenLog, UserError> {
    let name = file_name(attempt, codec);
    let path = dir.join(&name);
    let completed = !name.ends_with(".inprogress");
    if completed && !overwrite && path.exists() {
        // EventLogFileWriters.scala renameFile: `Target log file already exists ($dest)`.
        let inprogress = dir.join(format!("{name}.inprogress"));
        write_lines(&inprogress, codec.is_some(), attempt)
            .map_err(|e| dir_error(dir, "cannot write the event log", &e))?;
        // `dest` is a qualified Hadoop Path: `file:/...` on the local file system.
        let refused = format!(
            "java.io.IOException: Target log file already exists (file:{})",
            path.display()
        );
        return Ok(WrittenLog {
            path: inprogress,
            refused: Some(refused),
        });
    }
    remove_stale(dir, &name).map_err(|e| dir_error(dir, "cannot replace an earlier log", &e))?;
    write_lines(&path, codec.is_some(), attempt)
        .map_err(|e| dir_error(dir, "cannot write the event log", &e))?;
    Ok(WrittenLog {
        path,
        refused: None,
    })
}

/// Streams the JSON lines to the file (through zstd when compressed) in 1 MiB chunks, so a
/// 100,000-task log never sits in memory whole.
fn write_lines(path: &Path, compress: bool, attempt: &AttemptEvents) -> std::io::Result<()> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut sink: Box<dyn std::io::Write> = if compress {
        Box::new(zstd::stream::write::Encoder::new(file, 3)?.auto_finish())
    } else {
        Box::new(file)
    };
    let mut text = String::with_capacity(CHUNK + 64 * 1024);
    let mut w = LogWriter::default();
    for e in &attempt.events {
        // EventLoggingListener writes only the events it overrides a handler for.
        if matches!(e, ListenerEvent::SpeculativeTaskSubmitted { .. }) {
            continue;
        }
        w.event(&mut text, e);
        text.push('\n');
        if text.len() >= CHUNK {
            sink.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    sink.write_all(text.as_bytes())?;
    sink.flush()?;
    drop(sink);
    set_log_permissions(path)
}

/// `EventLogFileWriter.LOG_FILE_PERMISSIONS` (770).
fn set_log_permissions(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o770))?;
    }
    let _ = path;
    Ok(())
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

/// Per-log state: accumulator ids per stage attempt and their running totals.
#[derive(Default)]
struct LogWriter {
    user: String,
    accum_base: BTreeMap<(u32, u32), u64>,
    totals: BTreeMap<(u32, u32), [u64; 5]>,
    next_accum: u64,
}

impl LogWriter {
    fn event(&mut self, out: &mut String, e: &ListenerEvent) {
        match e {
            ListenerEvent::LogStart { spark_version } => object(out, |o| {
                o.str("Event", "SparkListenerLogStart")
                    .str("Spark Version", spark_version);
            }),
            ListenerEvent::ResourceProfileAdded {
                executor_cores,
                executor_memory_mb,
                task_cpus,
            } => resource_profile(out, *executor_cores, *executor_memory_mb, *task_cpus),
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
            } => environment(out, spark_properties, hadoop_properties),
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
                object(out, |o| {
                    o.str("Event", "SparkListenerStageSubmitted");
                    o.obj("Stage Info", |s| stage_info(s, stage, None));
                    o.obj("Properties", |_| {});
                });
            }
            // Never written (skipped by the caller, as Spark's EventLoggingListener does).
            ListenerEvent::SpeculativeTaskSubmitted { .. } => {}
            ListenerEvent::TaskStart {
                stage_id,
                stage_attempt_id,
                info,
            } => object(out, |o| {
                o.str("Event", "SparkListenerTaskStart")
                    .num("Stage ID", stage_id)
                    .num("Stage Attempt ID", stage_attempt_id);
                o.obj("Task Info", |t| task_info(t, info, &[]));
            }),
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
            executor_id,
            host,
            total_cores,
            log_urls,
        } = e
        else {
            return;
        };
        let attributes = yarn_attributes(host, &self.user, log_urls);
        object(out, |o| {
            o.str("Event", "SparkListenerExecutorAdded")
                .num("Timestamp", time)
                .str("Executor ID", executor_id);
            o.obj("Executor Info", |i| {
                i.str("Host", host).num("Total Cores", total_cores);
                i.map("Log Urls", log_urls);
                i.map("Attributes", &attributes);
                i.obj("Resources", |_| {});
                i.num("Resource Profile Id", 0)
                    .num("Registration Time", time);
            });
        });
    }

    fn job_start(&mut self, out: &mut String, job_id: u32, time: u64, stages: &[StageInfo]) {
        for s in stages {
            self.accum_ids(s.stage_id, s.attempt_id);
        }
        object(out, |o| {
            o.str("Event", "SparkListenerJobStart")
                .num("Job ID", job_id)
                .num("Submission Time", time);
            o.arr("Stage Infos", |a| {
                for s in stages {
                    a.obj(|o| stage_info(o, s, Some(&[])));
                }
            });
            o.arr("Stage IDs", |a| {
                for s in stages {
                    a.num(s.stage_id);
                }
            });
            o.obj("Properties", |_| {});
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
        let values = metric_values(*run_time_ms);
        let mut accums = Vec::new();
        if has_metrics {
            let base = self.accum_ids(*stage_id, *stage_attempt_id);
            let totals = self
                .totals
                .entry((*stage_id, *stage_attempt_id))
                .or_default();
            for (k, v) in values.iter().enumerate() {
                totals[k] += v;
                accums.push((base + k as u64, k, *v, totals[k]));
            }
        }
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
            o.obj("Task End Reason", |r| end_reason(r, reason));
            o.obj("Task Info", |t| task_info(t, info, &accums));
            o.obj("Task Executor Metrics", |m| zeros(m, EXECUTOR_METRICS));
            if has_metrics {
                o.obj("Task Metrics", |m| task_metrics(m, &values));
            }
        });
    }

    fn stage_completed(&mut self, out: &mut String, stage: &StageInfo) {
        let key = (stage.stage_id, stage.attempt_id);
        let base = self.accum_ids(key.0, key.1);
        let totals = self.totals.get(&key).copied();
        let accums: Vec<(u64, usize, u64)> = totals
            .map(|t| {
                t.iter()
                    .enumerate()
                    .map(|(k, v)| (base + k as u64, k, *v))
                    .collect()
            })
            .unwrap_or_default();
        object(out, |o| {
            o.str("Event", "SparkListenerStageCompleted");
            o.obj("Stage Info", |s| stage_info(s, stage, Some(&accums)));
        });
    }
}

/// The task's metrics in [`ACCUMULATORS`] order: deserialize ms and ns, run ms, CPU ns, result
/// bytes. The simulation times the whole task; it has no separate deserialisation step.
fn metric_values(run_time_ms: u64) -> [u64; 5] {
    [0, 0, run_time_ms, run_time_ms * 1_000_000, RESULT_SIZE]
}

fn resource_profile(out: &mut String, cores: u32, memory_mb: u64, task_cpus: u32) {
    object(out, |o| {
        o.str("Event", "SparkListenerResourceProfileAdded")
            .num("Resource Profile Id", 0);
        o.obj("Executor Resource Requests", |r| {
            for (name, amount) in [
                ("cores", u64::from(cores)),
                ("memory", memory_mb),
                ("offHeap", 0),
            ] {
                r.obj(name, |q| {
                    q.str("Resource Name", name)
                        .num("Amount", amount)
                        .str("Discovery Script", "")
                        .str("Vendor", "");
                });
            }
        });
        o.obj("Task Resource Requests", |r| {
            r.obj("cpus", |q| {
                q.str("Resource Name", "cpus")
                    .num("Amount", &*format!("{task_cpus}.0"));
            });
        });
    });
}

fn environment(out: &mut String, spark: &[(String, String)], hadoop: &[(String, String)]) {
    let jvm = [
        ("Java Home", JAVA_HOME),
        ("Java Version", "17.0.15 (Eclipse Adoptium)"),
        ("Scala Version", "version 2.13.16"),
    ];
    let system = [
        ("file.encoding", "UTF-8"),
        ("java.vm.name", "OpenJDK 64-Bit Server VM"),
        ("os.name", "Linux"),
        ("user.timezone", "UTC"),
    ];
    let empty: [(&str, &str); 0] = [];
    // EventLoggingListener.redactEvent: every map but the classpath goes through Utils.redact.
    let r = sparkyard_actors::world::spark_conf::Redactor::from_properties(
        spark.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let redacted = |kvs: &[(String, String)]| -> Vec<(String, String)> {
        kvs.iter()
            .map(|(k, v)| (k.clone(), r.redact(k, v).to_string()))
            .collect()
    };
    let (spark, hadoop) = (redacted(spark), redacted(hadoop));
    object(out, |o| {
        o.str("Event", "SparkListenerEnvironmentUpdate");
        o.map("JVM Information", &jvm);
        o.map("Spark Properties", &spark);
        o.map("Hadoop Properties", &hadoop);
        o.map("System Properties", &system);
        o.map("Metrics Properties", &empty);
        o.map("Classpath Entries", &empty);
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
    } = e
    else {
        return;
    };
    let host = driver_logs
        .first()
        .and_then(|(_, url)| url_host(url))
        .unwrap_or_default();
    let attributes = yarn_attributes(&host, user, driver_logs);
    object(out, |o| {
        o.str("Event", "SparkListenerApplicationStart")
            .str("App Name", app_name)
            .str("App ID", app_id)
            .num("Timestamp", time)
            .str("User", user)
            .str("App Attempt ID", attempt_id);
        o.map("Driver Logs", driver_logs);
        o.map("Driver Attributes", &attributes);
    });
}

/// `http://<host>:8042/...` -> host.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    Some(rest.split([':', '/']).next()?.to_string())
}

/// The container id in a NodeManager log URL (`.../containerlogs/<cid>/<user>/stdout`).
fn url_container(urls: &[(String, String)]) -> String {
    urls.iter()
        .find_map(|(_, u)| {
            let rest = u.split_once("/containerlogs/")?.1;
            rest.split('/').next().map(str::to_string)
        })
        .unwrap_or_default()
}

/// What `YarnContainerInfoHelper.getAttributes` reports for a container.
fn yarn_attributes(
    host: &str,
    user: &str,
    urls: &[(String, String)],
) -> Vec<(&'static str, String)> {
    vec![
        ("NM_HTTP_ADDRESS", format!("{host}:8042")),
        ("USER", user.to_string()),
        ("LOG_FILES", "stderr,stdout".to_string()),
        ("NM_HTTP_PORT", "8042".to_string()),
        ("CLUSTER_ID", String::new()),
        ("NM_PORT", "8041".to_string()),
        ("HTTP_SCHEME", "http://".to_string()),
        ("NM_HOST", host.to_string()),
        ("CONTAINER_ID", url_container(urls)),
    ]
}

/// `stageInfoToJson`; `accums` is `None` in StageSubmitted (SPARK-42205: no accumulables in
/// start events, written as `[]`), else the stage's `(id, metric, value)` totals.
fn stage_info(o: &mut Obj<'_>, s: &StageInfo, accums: Option<&[(u64, usize, u64)]>) {
    o.num("Stage ID", s.stage_id)
        .num("Stage Attempt ID", s.attempt_id)
        .str("Stage Name", &s.name)
        .num("Number of Tasks", s.num_tasks);
    o.arr("RDD Info", |a| a.obj(|r| rdd_info(r, s)));
    o.arr("Parent IDs", |a| {
        for p in &s.parent_ids {
            a.num(p);
        }
    });
    o.str("Details", "");
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

fn rdd_info(r: &mut Obj<'_>, s: &StageInfo) {
    r.num("RDD ID", s.rdd_id)
        .str("Name", &s.rdd_name)
        .str("Callsite", &s.rdd_callsite);
    r.arr("Parent IDs", |_| {});
    r.obj("Storage Level", |l| {
        l.bool("Use Disk", false)
            .bool("Use Memory", false)
            .bool("Use Off Heap", false)
            .bool("Deserialized", false)
            .num("Replication", 1);
    });
    r.bool("Barrier", false)
        .str("DeterministicLevel", "DETERMINATE")
        .num("Number of Partitions", s.num_tasks)
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

fn end_reason(r: &mut Obj<'_>, reason: &TaskEndReason) {
    match reason {
        TaskEndReason::Success => {
            r.str("Reason", "Success");
        }
        TaskEndReason::Resubmitted => {
            r.str("Reason", "Resubmitted");
        }
        TaskEndReason::ExceptionFailure { class, description } => {
            let full = format!("{class}: {description}\n");
            r.str("Reason", "ExceptionFailure")
                .str("Class Name", class)
                .str("Description", description);
            r.arr("Stack Trace", |_| {});
            r.str("Full Stack Trace", &full);
            r.arr("Accumulator Updates", |_| {});
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
            r.arr("Accumulator Updates", |_| {});
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

fn task_metrics(m: &mut Obj<'_>, v: &[u64; 5]) {
    m.num("Executor Deserialize Time", v[0])
        .num("Executor Deserialize CPU Time", v[1])
        .num("Executor Run Time", v[2])
        .num("Executor CPU Time", v[3])
        .num("Peak Execution Memory", 0)
        .num("Peak On Heap Execution Memory", 0)
        .num("Peak Off Heap Execution Memory", 0)
        .num("Result Size", v[4])
        .num("JVM GC Time", 0)
        .num("Result Serialization Time", 0)
        .num("Memory Bytes Spilled", 0)
        .num("Disk Bytes Spilled", 0);
    m.obj("Shuffle Read Metrics", |r| {
        zeros(r, SHUFFLE_READ_METRICS);
        r.obj("Shuffle Push Read Metrics", |p| {
            zeros(p, SHUFFLE_PUSH_READ_METRICS)
        });
    });
    m.obj("Shuffle Write Metrics", |w| {
        w.num("Shuffle Bytes Written", 0)
            .num("Shuffle Write Time", 0)
            .num("Shuffle Records Written", 0);
    });
    m.obj("Input Metrics", |i| {
        i.num("Bytes Read", 0).num("Records Read", 0);
    });
    m.obj("Output Metrics", |w| {
        w.num("Bytes Written", 0).num("Records Written", 0);
    });
    m.arr("Updated Blocks", |_| {});
}

/// Metrics the simulation never moves off zero, in the order given.
fn zeros(o: &mut Obj<'_>, names: &[&str]) {
    for name in names {
        o.num(name, 0);
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
                r.obj("Exception", |x| {
                    x.str("Message", message);
                    x.arr("Stack Trace", |_| {});
                });
            }
        });
    });
}
