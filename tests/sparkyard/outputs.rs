//! The run outputs (issue 4): event logs named and shaped as Spark writes them, a complete and
//! valid Chrome trace, the Mermaid diagram and its filters, the progress hook, and byte-identical
//! outputs for the same seed.

use crate::common::TestDir;
use serde_json::Value;
use sparkyard::outputs::{self, SequenceFilter};
use sparkyard::pipeline::RunPlan;
use sparkyard::runner::{self, RunOptions, RunResult};
use sparkyard_actors::simulation::config::SparkSettings;
use sparkyard_actors::simulation::config::UserProgram;
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::task::{JobSpec, StageSpec, TaskWork};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A run as `sparkyard submit` makes it, with the listener recorded (or not) and an optional
/// synthetic program standing in for the user class.
fn run_with(
    args: &[&str],
    opts: RunOptions,
    program: Option<UserProgram>,
) -> (RunResult, SparkSettings) {
    let plan = RunPlan {
        options: opts,
        synthetic: program,
        ..RunPlan::default()
    };
    let run = crate::common::submit_with(args, plan).expect("a run");
    (run.result, run.spark)
}

fn recorded() -> RunOptions {
    RunOptions {
        record_events: true,
        ..RunOptions::default()
    }
}

/// `spark.eventLog.dir=<dir>`, a directory that exists: pi_args turns event logging on, and
/// Spark's SparkContext refuses a directory that is not there (EventLogFileWriter).
fn event_dir(dir: &TestDir) -> String {
    format!("spark.eventLog.dir={}", dir.path().display())
}

fn pi_args<'a>(dir: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "--class",
        "org.apache.spark.examples.SparkPi",
        "--num-executors",
        "2",
        "--executor-memory",
        "1g",
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        dir,
    ];
    if extra.contains(&"--num-executors") {
        v.drain(2..4);
    }
    v.extend_from_slice(extra);
    v.extend_from_slice(&["examples/jars/spark-examples.jar", "4"]);
    v
}

/// A log's JSON text: one file, or a rolling folder's `events_<n>_*` files in index order,
/// zstd-decoded when their name says so.
fn log_text(path: &Path) -> String {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<(u64, PathBuf)> = std::fs::read_dir(path)
            .expect("the log folder")
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let index = name
                    .strip_prefix("events_")?
                    .split('_')
                    .next()?
                    .parse()
                    .ok()?;
                Some((index, e.path()))
            })
            .collect();
        v.sort();
        v.into_iter().map(|(_, p)| p).collect()
    } else {
        vec![path.to_path_buf()]
    };
    let mut text = String::new();
    for f in files {
        let bytes = std::fs::read(&f).expect("the log");
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let bytes = if name.contains(".zstd") {
            zstd::decode_all(&bytes[..]).expect("a zstd log")
        } else {
            bytes
        };
        text.push_str(&String::from_utf8(bytes).expect("utf-8"));
    }
    text
}

/// The names in a directory, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("the dir")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

fn lines(path: &Path) -> Vec<Value> {
    log_text(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The driver's container id (ApplicationStart's driver attributes).
fn start_attrs(log: &[Value]) -> String {
    let start = &events(log, "SparkListenerApplicationStart")[0];
    start["Driver Attributes"]["CONTAINER_ID"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn events<'a>(log: &'a [Value], name: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["Event"] == name).collect()
}

/// The fields `JsonProtocol.*FromJson` requires, with the JSON type it insists on.
fn assert_required(e: &Value) {
    let need = |path: &[&str], ty: fn(&Value) -> bool| {
        let mut v = e;
        for p in path {
            v = &v[*p];
        }
        assert!(ty(v), "{} needs {path:?}: {e}", e["Event"]);
    };
    let (num, s, obj, arr, b) = (
        Value::is_u64,
        Value::is_string,
        Value::is_object,
        Value::is_array,
        Value::is_boolean,
    );
    match e["Event"].as_str().expect("an Event") {
        "SparkListenerLogStart" => need(&["Spark Version"], s),
        "SparkListenerApplicationStart" => {
            for k in ["App Name", "App ID", "User", "App Attempt ID"] {
                need(&[k], s);
            }
            need(&["Timestamp"], num);
        }
        "SparkListenerEnvironmentUpdate" => {
            for k in [
                "JVM Information",
                "Spark Properties",
                "System Properties",
                "Classpath Entries",
            ] {
                need(&[k], obj);
            }
        }
        "SparkListenerBlockManagerAdded" => {
            need(&["Block Manager ID", "Executor ID"], s);
            need(&["Block Manager ID", "Port"], num);
            need(&["Maximum Memory"], num);
        }
        "SparkListenerExecutorAdded" => {
            need(&["Timestamp"], num);
            need(&["Executor ID"], s);
            need(&["Executor Info", "Host"], s);
            need(&["Executor Info", "Total Cores"], num);
            need(&["Executor Info", "Log Urls"], obj);
        }
        "SparkListenerExecutorRemoved" => need(&["Removed Reason"], s),
        "SparkListenerJobStart" => {
            need(&["Job ID"], num);
            need(&["Stage IDs"], arr);
            need(&["Stage Infos"], arr);
        }
        "SparkListenerStageSubmitted" | "SparkListenerStageCompleted" => {
            need(&["Stage Info", "Stage ID"], num);
            need(&["Stage Info", "Stage Name"], s);
            need(&["Stage Info", "Number of Tasks"], num);
            need(&["Stage Info", "RDD Info"], arr);
            need(
                &["Stage Info", "RDD Info", "0", "Storage Level", "Use Disk"],
                |_| true,
            );
        }
        "SparkListenerTaskStart" => task_info(e, false),
        "SparkListenerTaskEnd" => {
            need(&["Task Type"], s);
            need(&["Task End Reason", "Reason"], s);
            task_info(e, true);
            if e["Task Metrics"].is_object() {
                for k in [
                    "Executor Deserialize Time",
                    "Executor Run Time",
                    "Result Size",
                    "JVM GC Time",
                    "Result Serialization Time",
                    "Memory Bytes Spilled",
                    "Disk Bytes Spilled",
                ] {
                    need(&["Task Metrics", k], num);
                }
            }
        }
        "SparkListenerJobEnd" => need(&["Job Result", "Result"], s),
        "SparkListenerApplicationEnd" => need(&["Timestamp"], num),
        "SparkListenerBlockManagerRemoved" => {
            need(&["Block Manager ID", "Executor ID"], s);
            need(&["Timestamp"], num);
        }
        "SparkListenerResourceProfileAdded" => need(&["Executor Resource Requests"], obj),
        other => panic!("unexpected event {other}"),
    }
    let _ = b;
}

fn task_info(e: &Value, ended: bool) {
    let t = &e["Task Info"];
    for k in [
        "Task ID",
        "Index",
        "Launch Time",
        "Getting Result Time",
        "Finish Time",
    ] {
        assert!(t[k].is_u64(), "{k}: {e}");
    }
    for k in ["Executor ID", "Host", "Locality"] {
        assert!(t[k].is_string(), "{k}: {e}");
    }
    assert!(t["Failed"].is_boolean(), "{e}");
    assert_eq!(t["Finish Time"].as_u64().unwrap_or(0) > 0, ended, "{e}");
    assert!(e["Stage ID"].is_u64(), "{e}");
}

/// EventLoggingListener.start (SparkContext.scala, Spark 4.0.0): an event log directory that is
/// not there fails the SparkContext's constructor (a real local run: `ERROR SparkContext: Error
/// initializing SparkContext.` then `java.io.FileNotFoundException: File file:/... does not
/// exist`), so in cluster mode every AM attempt's user class throws before a SparkContext
/// exists (exit 13) and the application fails; nothing creates the directory.
#[test]
fn an_event_log_directory_that_is_not_there_fails_the_spark_context() {
    let tmp = TestDir::new("outputs-no-event-dir");
    let missing = tmp.join("missing");
    let conf = format!("spark.eventLog.dir=file://{}", missing.display());
    let (r, spark) = run_with(&pi_args(&conf, &[]), recorded(), None);
    assert_eq!(
        r.outcome.final_status,
        Some(sparkyard_messages::records::FinalApplicationStatus::Failed)
    );
    let exits: Vec<i32> = r.counters.am_exit_codes.values().copied().collect();
    assert_eq!(exits, [13, 13]);
    assert_eq!(r.counters.executors_launched, 0);
    let started = r
        .events
        .iter()
        .flat_map(|a| &a.events)
        .any(|e| matches!(e, ListenerEvent::ApplicationStart { .. }));
    assert!(!started, "no SparkContext, no ApplicationStart");
    assert!(
        outputs::write_event_logs(&r, &spark)
            .expect("nothing to write")
            .is_empty()
    );
    assert!(!missing.exists());
}

/// CoarseGrainedSchedulerBackend (4.0.0 jar): `requestTotalExecutors` queues each increase of
/// the total with its time (`updateExecRequestTimes`), `RegisterExecutor` takes the oldest
/// (`execRequestTimes`), and JsonProtocol.executorInfoToJson writes it as `Request Time` after
/// `Registration Time`. With dynamic allocation every executor was asked for by the backend;
/// with a static count the ApplicationMaster asks on its own, and there is no Request Time.
#[test]
fn executors_asked_for_by_dynamic_allocation_carry_their_request_time() {
    let dir = TestDir::new("outputs-eventlog-request-time");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let da = [
        "--conf",
        "spark.dynamicAllocation.enabled=true",
        "--conf",
        "spark.dynamicAllocation.initialExecutors=2",
    ];
    let (r, spark) = run_with(&pi_args(&conf, &da), recorded(), None);
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    let log = lines(&written[0]);
    let added = events(&log, "SparkListenerExecutorAdded");
    assert_eq!(added.len(), 2);
    let start = events(&log, "SparkListenerApplicationStart")[0]["Timestamp"]
        .as_u64()
        .expect("a time");
    for e in &added {
        let info = &e["Executor Info"];
        let requested = info["Request Time"].as_u64().expect("a request time");
        let registered = info["Registration Time"].as_u64().expect("a time");
        assert!(start <= requested && requested < registered, "{e}");
    }
    let dir = TestDir::new("outputs-eventlog-no-request-time");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let (r, spark) = run_with(&pi_args(&conf, &[]), recorded(), None);
    let log = lines(&outputs::write_event_logs(&r, &spark).expect("written")[0]);
    for e in events(&log, "SparkListenerExecutorAdded") {
        assert!(e["Executor Info"].get("Request Time").is_none(), "{e}");
    }
}

#[test]
fn event_log_is_named_as_spark_names_it_and_has_every_required_field() {
    let dir = TestDir::new("outputs-eventlog");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let (r, spark) = run_with(&pi_args(&conf, &[]), recorded(), None);
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    // Spark 4.0.0's defaults (the jar's internal/config/package$): rolling on, zstd; the
    // layout of EventLogFileWriters.scala RollingEventLogFilesWriter, as a real 4.0 run
    // leaves it (appstatus's checksum from Hadoop's ChecksumFileSystem included).
    let app_dir = dir.join("eventlog_v2_application_1764662400000_0001_1");
    assert_eq!(written, vec![app_dir.clone()]);
    assert_eq!(
        names_in(&app_dir),
        [
            ".appstatus_application_1764662400000_0001_1.crc",
            "appstatus_application_1764662400000_0001_1",
            "events_1_application_1764662400000_0001_1.zstd",
        ]
    );
    let log = lines(&written[0]);
    for e in &log {
        assert_required(e);
    }
    assert_eq!(log[0]["Event"], "SparkListenerLogStart");
    assert_eq!(
        log.last().map(|e| e["Event"].clone()),
        Some("SparkListenerApplicationEnd".into())
    );
    let start = events(&log, "SparkListenerApplicationStart");
    assert_eq!(start[0]["App ID"], "application_1764662400000_0001");
    assert_eq!(start[0]["App Attempt ID"], "1");
    assert_eq!(events(&log, "SparkListenerExecutorAdded").len(), 2);
    assert_eq!(events(&log, "SparkListenerTaskStart").len(), 4);
    let ends = events(&log, "SparkListenerTaskEnd");
    assert_eq!(ends.len(), 4);
    for t in &ends {
        assert_eq!(t["Task End Reason"]["Reason"], "Success");
        // The task's time is its deserialisation (launch overhead, warm-up on an executor's
        // first task) plus its run (src/outputs/task_metrics.rs).
        let m = &t["Task Metrics"];
        let run = m["Executor Run Time"].as_u64().expect("a number");
        let deser = m["Executor Deserialize Time"].as_u64().expect("a number");
        let info = &t["Task Info"];
        let span =
            info["Finish Time"].as_u64().unwrap_or(0) - info["Launch Time"].as_u64().unwrap_or(0);
        assert_eq!(run + deser, span, "{t}");
        assert!(
            m["Shuffle Read Metrics"]["Push Based Shuffle"].is_object(),
            "{t}"
        );
        let acc = &info["Accumulables"];
        assert!(
            acc.as_array().is_some_and(|a| a
                .iter()
                .any(|x| x["Name"] == "internal.metrics.executorRunTime")),
            "{t}"
        );
    }
    let job = &events(&log, "SparkListenerJobEnd")[0]["Job Result"];
    assert_eq!(job["Result"], "JobSucceeded");
    // EventLogFileWriter.LOG_FILE_PERMISSIONS is 660 in Spark 4.0.0, LOG_FOLDER_PERMISSIONS
    // 770; MetricsConfig's defaults.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| {
            std::fs::metadata(p)
                .map(|m| m.permissions().mode() & 0o777)
                .ok()
        };
        assert_eq!(mode(&app_dir), Some(0o770));
        let events = app_dir.join("events_1_application_1764662400000_0001_1.zstd");
        assert_eq!(mode(&events), Some(0o660));
    }
    let env = &events(&log, "SparkListenerEnvironmentUpdate")[0];
    assert_eq!(
        env["Metrics Properties"]["*.sink.servlet.class"],
        "org.apache.spark.metrics.sink.MetricsServlet"
    );
    // SparkEnv.environmentDetails: the AM container's java.class.path (Client.populateClasspath),
    // each a "System Classpath" entry.
    let cid = start_attrs(&log);
    let pwd = format!(
        "/tmp/hadoop-yarn/nm-local-dir/usercache/{}/appcache/application_1764662400000_0001/{cid}",
        events(&log, "SparkListenerApplicationStart")[0]["User"]
            .as_str()
            .unwrap_or("")
    );
    let cp = env["Classpath Entries"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        cp.get(&pwd).and_then(Value::as_str),
        Some("System Classpath"),
        "{pwd}"
    );
    assert!(cp.contains_key(&format!("{pwd}/__spark_libs__/spark-yarn_2.13-4.0.0.jar")));
    assert!(cp.contains_key(&format!("{pwd}/__spark_conf__/__hadoop_conf__")));
    // What SparkSubmit, the AM (cluster mode) and the SparkContext add to the driver's conf
    // (Spark 4.0.0 jars: SparkSubmit sets spark.app.submitTime when missing; ApplicationMaster
    // spark.ui.port=0 and spark.yarn.app.id; SparkContext startTime, driver host/port, executor
    // id, the s3a defaults and the supplemented java options), as a real 4.0.0 log shows them.
    let props = &env["Spark Properties"];
    let prop = |k: &str| props[k].as_str().unwrap_or("").to_string();
    assert_eq!(prop("spark.executor.id"), "driver");
    assert_eq!(prop("spark.ui.port"), "0");
    assert_eq!(prop("spark.yarn.app.id"), "application_1764662400000_0001");
    assert_eq!(
        prop("spark.hadoop.fs.s3a.vectored.read.min.seek.size"),
        "128K"
    );
    assert_eq!(
        prop("spark.hadoop.fs.s3a.vectored.read.max.merged.size"),
        "2M"
    );
    assert!(prop("spark.driver.host").ends_with(".sparkyard.internal"));
    assert!(prop("spark.driver.port").parse::<u16>().is_ok());
    let (submit, start) = (prop("spark.app.submitTime"), prop("spark.app.startTime"));
    let (submit, start) = (
        submit.parse::<u64>().unwrap_or(0),
        start.parse::<u64>().unwrap_or(0),
    );
    assert!(
        submit >= 1_764_662_400_000 && submit < start,
        "{submit} {start}"
    );
    for k in [
        "spark.driver.extraJavaOptions",
        "spark.executor.extraJavaOptions",
    ] {
        assert!(
            prop(k).starts_with(
                "-Djava.net.preferIPv6Addresses=false -XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector "
            ),
            "{k}"
        );
    }
    // SparkPi's lineage as StageInfo.fromStage records it: the stage's MapPartitionsRDD, then
    // its narrow ancestor, each with its RDDOperationScope (parallelize 0, map 1); the reduce
    // action's scope is the job's spark.rdd.scope (RDD.withScope around sc.runJob).
    let start = &events(&log, "SparkListenerJobStart")[0];
    let rdds = &start["Stage Infos"][0]["RDD Info"];
    assert_eq!(rdds[0]["Name"], "MapPartitionsRDD");
    assert_eq!(rdds[0]["Scope"], r#"{"id":"1","name":"map"}"#);
    assert_eq!(rdds[0]["Parent IDs"], serde_json::json!([0]));
    assert_eq!(rdds[1]["Name"], "ParallelCollectionRDD");
    assert_eq!(rdds[1]["Callsite"], "parallelize at SparkPi.scala:34");
    assert_eq!(
        start["Properties"]["spark.rdd.scope"],
        r#"{"id":"2","name":"reduce"}"#
    );
    assert_eq!(start["Properties"]["spark.rdd.scope.noOverride"], "true");
    let details = start["Stage Infos"][0]["Details"].as_str().unwrap_or("");
    assert!(
        details.starts_with("org.apache.spark.rdd.RDD.reduce(RDD.scala:1130)\norg.apache.spark.examples.SparkPi$.main(SparkPi.scala:38)"),
        "{details}"
    );
    // Spark's key order, field by field, for one line (what a diff against a real log sees).
    let raw = log_text(&written[0]);
    let bm = raw
        .lines()
        .find(|l| l.contains("BlockManagerAdded"))
        .expect("a block manager");
    assert!(bm.starts_with(r#"{"Event":"SparkListenerBlockManagerAdded","Block Manager ID":{"Executor ID":"driver","Host":"#), "{bm}");
}

#[test]
fn an_attempt_without_application_end_stays_inprogress_and_no_context_means_no_log() {
    let dir = TestDir::new("outputs-inprogress");
    let conf = format!("spark.eventLog.dir=file:{}", dir.path().display());
    let single = ["--conf", "spark.eventLog.rolling.enabled=false"];
    let single = [&single[..], &["--conf", "spark.eventLog.compress=false"]].concat();
    let (mut r, spark) = run_with(&pi_args(&conf, &single), recorded(), None);
    let (mut rolled, rolling) = run_with(&pi_args(&conf, &[]), recorded(), None);
    for a in r.events.iter_mut().chain(rolled.events.iter_mut()) {
        a.events
            .retain(|e| !matches!(e, ListenerEvent::ApplicationEnd { .. }));
    }
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    assert_eq!(
        written,
        vec![dir.join("application_1764662400000_0001_1.inprogress")]
    );
    // The rolling writer: the attempt's app status file keeps `.inprogress`.
    let app_dir = dir.join("eventlog_v2_application_1764662400000_0001_1");
    assert_eq!(
        outputs::write_event_logs(&rolled, &rolling).expect("written"),
        vec![app_dir.clone()]
    );
    assert!(
        app_dir
            .join("appstatus_application_1764662400000_0001_1.inprogress")
            .is_file()
    );
    std::fs::remove_dir_all(&app_dir).expect("removed");
    // A rerun of the same seed replaces the earlier file rather than adding a twin.
    r.events.clear();
    let (r2, _) = run_with(&pi_args(&conf, &single), recorded(), None);
    outputs::write_event_logs(&r2, &spark).expect("written");
    let names: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("the dir")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        BTreeSet::from(["application_1764662400000_0001_1".to_string()])
    );

    let empty = TestDir::new("outputs-noclass");
    let conf = format!("spark.eventLog.dir={}", empty.path().display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "com.example.Missing";
    let (r, spark) = run_with(&args, recorded(), None);
    assert!(r.events.is_empty(), "no SparkContext, no listener events");
    assert!(
        outputs::write_event_logs(&r, &spark)
            .expect("nothing to write")
            .is_empty()
    );
    assert_eq!(std::fs::read_dir(&empty).expect("the dir").count(), 0);
}

/// A job whose tasks all throw: four attempts per task, then the job fails; the AM retries.
fn failing_program() -> UserProgram {
    let fail = Some("java.lang.IllegalStateException: boom".to_string());
    let stage = StageSpec {
        rdd_description: "MapPartitionsRDD[1] at map at Failing.scala:10".into(),
        num_partitions: 2,
        parents: Vec::new(),
        tasks: vec![
            TaskWork::Sleep {
                duration_ms: 50,
                fail: fail.clone(),
            },
            TaskWork::Sleep {
                duration_ms: 50,
                fail,
            },
        ]
        .into(),
        shuffle_write: Default::default(),
        input: Default::default(),
        lineage: None,
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    };
    UserProgram::Synthetic {
        class: "com.example.Failing".into(),
        app_name: "Failing".into(),
        jobs: vec![JobSpec {
            call_site: "collect at Failing.scala:12".into(),
            stages: vec![stage],
        }],
    }
}

/// A job reading a text file: two tasks, each reading a split (HadoopRDD).
fn input_program() -> UserProgram {
    let stage = StageSpec {
        rdd_description: "MapPartitionsRDD[1] at textFile at Input.scala:10".into(),
        num_partitions: 2,
        parents: Vec::new(),
        tasks: vec![
            TaskWork::Sleep {
                duration_ms: 40,
                fail: None,
            };
            2
        ]
        .into(),
        shuffle_write: Default::default(),
        input: sparkyard_messages::task::InputSize {
            bytes_per_task: 589_824,
            records_per_task: 10_107,
            hot: Default::default(),
        },
        lineage: None,
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    };
    UserProgram::Synthetic {
        class: "com.example.Input".into(),
        app_name: "Input".into(),
        jobs: vec![JobSpec {
            call_site: "count at Input.scala:12".into(),
            stages: vec![stage],
        }],
    }
}

// JsonProtocol.taskMetricsToJson's "Input Metrics" and the internal.metrics.input.*
// accumulables of a task reading its split, and the stage's totals, as a real Spark 4.0.0 run
// of `sc.textFile(path, 2).count()` writes them (pyspark 4.0.0, local-cluster: TaskEnd
// "Input Metrics" {"Bytes Read": 589824, "Records Read": 10107}; StageCompleted's
// accumulables carry the sums).
#[test]
fn tasks_reading_input_carry_spark_input_metrics_and_the_stage_their_sums() {
    let dir = TestDir::new("outputs-input");
    let conf = format!("spark.eventLog.dir={}", dir.path().display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "com.example.Input";
    let (r, spark) = run_with(&args, recorded(), Some(input_program()));
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    let log = lines(&written[0]);
    let ends = events(&log, "SparkListenerTaskEnd");
    assert_eq!(ends.len(), 2);
    for e in &ends {
        assert_eq!(
            e["Task Metrics"]["Input Metrics"],
            serde_json::json!({"Bytes Read": 589_824, "Records Read": 10_107})
        );
        let names: Vec<&str> = e["Task Info"]["Accumulables"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["Name"].as_str()).collect())
            .unwrap_or_default();
        assert!(
            names.ends_with(&[
                "internal.metrics.input.bytesRead",
                "internal.metrics.input.recordsRead"
            ]),
            "{names:?}"
        );
    }
    let done = events(&log, "SparkListenerStageCompleted");
    let accums = done[0]["Stage Info"]["Accumulables"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let value = |name: &str| {
        accums
            .iter()
            .find(|a| a["Name"] == name)
            .map(|a| a["Value"].clone())
    };
    assert_eq!(
        value("internal.metrics.input.bytesRead"),
        Some(serde_json::json!(2 * 589_824))
    );
    assert_eq!(
        value("internal.metrics.input.recordsRead"),
        Some(serde_json::json!(2 * 10_107))
    );
}

#[test]
fn failed_tasks_and_jobs_carry_their_reasons_and_each_attempt_gets_a_log() {
    let dir = TestDir::new("outputs-failing");
    let conf = format!("spark.eventLog.dir={}", dir.path().display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "com.example.Failing";
    let (r, spark) = run_with(&args, recorded(), Some(failing_program()));
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    let names: Vec<String> = written
        .iter()
        .map(|p| {
            let status = names_in(p)
                .into_iter()
                .find(|n| n.starts_with("appstatus_"));
            let status = status.unwrap_or_default();
            let dir = p.file_name().unwrap_or_default().to_string_lossy();
            let name = status.trim_start_matches("appstatus_");
            assert_eq!(
                dir,
                format!("eventlog_v2_{}", name.trim_end_matches(".inprogress"))
            );
            name.to_string()
        })
        .collect();
    // One folder per attempt; its app status is `.inprogress` exactly when the attempt's
    // SparkContext never posted ApplicationEnd.
    let expected: Vec<String> = r
        .events
        .iter()
        .map(|a| {
            let ended = a
                .events
                .iter()
                .any(|e| matches!(e, ListenerEvent::ApplicationEnd { .. }));
            format!(
                "application_1764662400000_0001_{}{}",
                a.attempt_id,
                if ended { "" } else { ".inprogress" }
            )
        })
        .collect();
    assert_eq!(expected.len(), 2, "two AM attempts");
    assert_eq!(names, expected);
    let log = lines(&written[0]);
    for e in &log {
        assert_required(e);
    }
    let failed: Vec<&Value> = events(&log, "SparkListenerTaskEnd")
        .into_iter()
        .filter(|t| t["Task End Reason"]["Reason"] == "ExceptionFailure")
        .collect();
    assert!(failed.len() >= 4, "{}", failed.len());
    let reason = &failed[0]["Task End Reason"];
    assert_eq!(
        reason["Class Name"], "java.lang.IllegalStateException",
        "{reason}"
    );
    assert_eq!(failed[0]["Task Info"]["Failed"], true);
    // JsonProtocol.stackTraceToJson / Utils.exceptionString: the user's closure (the stage
    // RDD's call site), then ResultTask.runTask down to Thread.run, as a real 4.0 run writes.
    let frames = reason["Stack Trace"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        frames[0],
        serde_json::json!({"Declaring Class": "com.example.Failing$", "Method Name": "$anonfun$main$1",
            "File Name": "Failing.scala", "Line Number": 10})
    );
    assert_eq!(
        frames[1]["Declaring Class"],
        "org.apache.spark.scheduler.ResultTask"
    );
    assert_eq!(
        frames.last().map(|f| f["Declaring Class"].clone()),
        Some("java.lang.Thread".into())
    );
    let full = reason["Full Stack Trace"].as_str().unwrap_or("");
    assert!(full.starts_with("java.lang.IllegalStateException: boom\n\tat com.example.Failing$.$anonfun$main$1(Failing.scala:10)\n"), "{full}");
    assert!(
        full.ends_with("\tat java.base/java.lang.Thread.run(Thread.java:840)\n"),
        "{full}"
    );
    // Executor.collectAccumulatorsAndResetStatusOnFailure: the updates go with the reason
    // (no name, the update as a string, as a real 4.0 log); resultSize, never added to, is sent
    // but DAGScheduler.updateAccumulators leaves it out of the task's Accumulables.
    let updates = reason["Accumulator Updates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        updates.iter().all(|u| u.get("Name").is_none()
            && u["Update"].is_string()
            && u["Internal"] == false
            && u["Count Failed Values"] == true),
        "{updates:?}"
    );
    let infos = failed[0]["Task Info"]["Accumulables"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let info_ids: BTreeSet<u64> = infos.iter().filter_map(|a| a["ID"].as_u64()).collect();
    let only_sent: Vec<&Value> = updates
        .iter()
        .filter(|u| u["ID"].as_u64().is_some_and(|id| !info_ids.contains(&id)))
        .collect();
    assert_eq!(only_sent.len(), 1, "{updates:?} vs {infos:?}");
    assert_eq!(only_sent[0]["Update"], "0");
    assert!(
        infos
            .iter()
            .all(|a| a["Name"] != "internal.metrics.resultSize")
    );
    let job = &events(&log, "SparkListenerJobEnd")[0]["Job Result"];
    assert_eq!(job["Result"], "JobFailed");
    assert!(
        job["Exception"]["Message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Job aborted due to stage failure")),
        "{job}"
    );
    // The DAGScheduler's abort frames and the caller's runJob (a real 4.0 JobFailed).
    let trace = job["Exception"]["Stack Trace"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(trace[0]["Method Name"], "$anonfun$abortStage$3", "{job}");
    assert_eq!(trace[9]["Method Name"], "handleTaskSetFailed");
    assert_eq!(
        trace.last().map(|f| f["Declaring Class"].clone()),
        Some("org.apache.spark.SparkContext".into())
    );
    let stage = &events(&log, "SparkListenerStageCompleted")[0]["Stage Info"];
    assert!(stage["Failure Reason"].is_string(), "{stage}");
}

#[test]
fn compressed_logs_are_zstd_and_bad_directories_name_the_key() {
    let dir = TestDir::new("outputs-zstd");
    let conf = format!("spark.eventLog.dir={}", dir.path().display());
    let (r, spark) = run_with(
        &pi_args(&conf, &["--conf", "spark.eventLog.rolling.enabled=false"]),
        recorded(),
        None,
    );
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    assert_eq!(
        written,
        vec![dir.join("application_1764662400000_0001_1.zstd")]
    );
    let bytes = std::fs::read(&written[0]).expect("the log");
    assert_eq!(&bytes[..4], &[0x28, 0xb5, 0x2f, 0xfd], "a zstd frame");
    let plain = SparkSettings {
        event_log_compress: false,
        ..spark.clone()
    };
    let plain_path = outputs::write_event_logs(&r, &plain)
        .expect("written")
        .remove(0);
    let text = std::fs::read(&plain_path).expect("the log");
    assert_eq!(zstd::decode_all(&bytes[..]).expect("decodes"), text);
    // ZStdCompressionCodec: spark.io.compression.zstd.level (1 by default) is the level used.
    let mut strong = spark.clone();
    strong
        .properties
        .insert("spark.io.compression.zstd.level".into(), "19".into());
    strong.event_log_dir = dir.join("strong").display().to_string();
    let strong_path = outputs::write_event_logs(&r, &strong)
        .expect("written")
        .remove(0);
    let strong_bytes = std::fs::read(&strong_path).expect("the log");
    assert_ne!(strong_bytes, bytes, "another level, other bytes");
    assert_eq!(zstd::decode_all(&strong_bytes[..]).expect("decodes"), text);

    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("a file");
    for bad in [
        file.join("sub").display().to_string(),
        "hdfs://nn:8020/spark-events".into(),
    ] {
        let s = SparkSettings {
            event_log_dir: bad.clone(),
            ..spark.clone()
        };
        let e = outputs::write_event_logs(&r, &s).expect_err("cannot write");
        assert!(e.to_string().contains("spark.eventLog.dir"), "{bad}: {e}");
    }
}

/// The parts of a stage's StageSubmitted that come from the program: its name, its RDDs (id,
/// name, scope, call site, parents, partitions) and the first two lines of its Details (the
/// last Spark frame and the user's `main`; the frames below differ: the real run's driver ran in
/// spark-submit's JVM, sparkyard's in the YARN AM).
fn program_view(stage: &Value) -> Value {
    let info = &stage["Stage Info"];
    let rdds: Vec<Value> = info["RDD Info"]
        .as_array()
        .expect("RDD Info")
        .iter()
        .map(|r| {
            serde_json::json!([
                r["RDD ID"],
                r["Name"],
                r["Scope"],
                r["Callsite"],
                r["Parent IDs"],
                r["Number of Partitions"]
            ])
        })
        .collect();
    let details: Vec<&str> = info["Details"]
        .as_str()
        .expect("Details")
        .lines()
        .take(2)
        .collect();
    serde_json::json!([info["Stage Name"], rdds, details])
}

/// JavaSparkPi (issue 29: its own program) against a real Spark 4.0.0 run of it:
/// tests/data/examples/javasparkpi_n2_r1.zstd is the event log of JavaSparkPi.java (Spark's
/// examples/src/main/java/org/apache/spark/examples/JavaSparkPi.java) compiled with JDK 17
/// against pyspark 4.0.0's jars and run with its `spark-submit --master local-cluster[2,1,1024]`
/// and 2 slices. The application's name, the job's scope property and the stage's name, RDDs
/// and call sites must be the real run's.
#[test]
fn java_spark_pi_logs_the_stage_a_real_run_logs() {
    let real_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/examples/javasparkpi_n2_r1.zstd");
    let real = lines(&real_path);
    let dir = TestDir::new("outputs-javasparkpi");
    let conf = format!("spark.eventLog.dir={}", dir.path().display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "org.apache.spark.examples.JavaSparkPi";
    *args.last_mut().expect("the slices") = "2";
    let (r, spark) = run_with(&args, recorded(), None);
    let ours = lines(&outputs::write_event_logs(&r, &spark).expect("written")[0]);
    let first = |log: &[Value], name: &str| events(log, name)[0].clone();
    let start = "SparkListenerApplicationStart";
    assert_eq!(first(&ours, start)["App Name"], "JavaSparkPi");
    assert_eq!(
        first(&ours, start)["App Name"],
        first(&real, start)["App Name"]
    );
    let scope = |log: &[Value]| {
        first(log, "SparkListenerJobStart")["Properties"]["spark.rdd.scope"].clone()
    };
    assert_eq!(scope(&ours), scope(&real));
    let submitted = "SparkListenerStageSubmitted";
    assert_eq!(
        program_view(&first(&ours, submitted)),
        program_view(&first(&real, submitted))
    );
    assert_eq!(
        program_view(&first(&ours, submitted))[0],
        "reduce at JavaSparkPi.java:54"
    );
    assert_eq!(events(&ours, "SparkListenerTaskEnd").len(), 2);
}

/// A log's bytes: one file's, or every file of a rolling folder with its name, by name.
fn log_bytes(path: &Path) -> Vec<u8> {
    if !path.is_dir() {
        return std::fs::read(path).expect("the log");
    }
    let mut out = Vec::new();
    for name in names_in(path) {
        out.extend_from_slice(name.as_bytes());
        out.extend(std::fs::read(path.join(&name)).expect("a log file"));
    }
    out
}

/// Every output of one run, as bytes, written in `dir` (emptied first: the directory is in the
/// outputs, so runs compared must write to the same one, and a second run must find it empty).
fn all_outputs(dir: &Path) -> Vec<Vec<u8>> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("the run's dir");
    let conf = format!("spark.eventLog.dir={}", dir.display());
    let (r, spark) = run_with(&pi_args(&conf, &["--num-executors", "3"]), recorded(), None);
    let mut out: Vec<Vec<u8>> = outputs::write_event_logs(&r, &spark)
        .expect("written")
        .iter()
        .map(|p| log_bytes(p))
        .collect();
    let trace = dir.join("trace.json");
    outputs::write_chrome_trace(&r, &trace).expect("written");
    out.push(std::fs::read(&trace).expect("the trace"));
    out.push(outputs::sequence_diagram(&r, &SequenceFilter::default()).into_bytes());
    out
}

#[test]
fn every_output_is_byte_identical_for_the_same_seed() {
    let tmp = TestDir::new("outputs-same");
    let dir = tmp.join("run");
    let (a, b) = (all_outputs(&dir), all_outputs(&dir));
    assert_eq!(a.len(), 3);
    for (x, y) in a.iter().zip(&b) {
        assert!(x == y, "outputs differ between two runs of one seed");
    }
}

fn trace_json(r: &RunResult, name: &str) -> Value {
    let dir = TestDir::new(&format!("outputs-{name}"));
    let path = dir.join("trace.json");
    outputs::write_chrome_trace(r, &path).expect("written");
    let v: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the trace")).expect("valid JSON");
    v
}

/// Valid and complete: named processes and threads, X slices that nest on their thread, and
/// every flow with exactly one start and one finish after it.
fn assert_complete(v: &Value) -> Vec<Value> {
    assert_eq!(v["displayTimeUnit"], "ms");
    let evs = v["traceEvents"].as_array().expect("traceEvents").clone();
    let mut named_p = BTreeSet::new();
    let mut named_t = BTreeSet::new();
    let mut flows: BTreeMap<u64, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
    let mut slices: BTreeMap<(u64, u64), Vec<(u64, u64)>> = BTreeMap::new();
    let mut used = BTreeSet::new();
    for e in &evs {
        let (pid, tid) = (e["pid"].as_u64().expect("pid"), e["tid"].as_u64());
        match e["ph"].as_str().expect("ph") {
            "M" if e["name"] == "process_name" => {
                named_p.insert(pid);
            }
            "M" if e["name"] == "thread_name" => {
                named_t.insert((pid, tid.expect("tid")));
            }
            "M" => {}
            "X" => {
                let (ts, dur) = (
                    e["ts"].as_u64().expect("ts"),
                    e["dur"].as_u64().expect("dur"),
                );
                slices
                    .entry((pid, tid.expect("tid")))
                    .or_default()
                    .push((ts, ts + dur));
                used.insert((pid, tid.expect("tid")));
            }
            "s" | "f" => {
                let f = flows.entry(e["id"].as_u64().expect("id")).or_default();
                let ts = e["ts"].as_u64().expect("ts");
                if e["ph"] == "s" {
                    f.0.push(ts)
                } else {
                    f.1.push(ts)
                }
                used.insert((pid, tid.expect("tid")));
            }
            "i" => assert!(
                ["t", "p", "g"].contains(&e["s"].as_str().unwrap_or("")),
                "{e}"
            ),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for (id, (s, f)) in &flows {
        assert!(
            s.len() == 1 && f.len() == 1 && s[0] <= f[0],
            "flow {id}: {s:?} -> {f:?}"
        );
    }
    for (pid, tid) in &used {
        assert!(
            named_p.contains(pid) && named_t.contains(&(*pid, *tid)),
            "unnamed track {pid}/{tid}"
        );
    }
    for (track, mut spans) in slices {
        spans.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
        let mut open: Vec<u64> = Vec::new();
        for (a, b) in spans {
            while open.last().is_some_and(|end| *end <= a) {
                open.pop();
            }
            assert!(
                open.last().is_none_or(|end| b <= *end),
                "overlap on {track:?} at {a}"
            );
            open.push(b);
        }
    }
    assert!(!flows.is_empty());
    evs
}

fn names_of<'a>(evs: &'a [Value], cat: &str) -> Vec<&'a str> {
    evs.iter()
        .filter(|e| {
            e["cat"]
                .as_str()
                .is_some_and(|c| c.split(',').any(|x| x == cat))
        })
        .filter_map(|e| e["name"].as_str())
        .collect()
}

#[test]
fn the_timeline_is_valid_complete_and_has_tasks_phases_and_states() {
    let tmp = TestDir::new("outputs-timeline-events");
    let dir = event_dir(&tmp);
    let (r, _) = run_with(&pi_args(&dir, &[]), recorded(), None);
    let evs = assert_complete(&trace_json(&r, "timeline"));
    let tasks = names_of(&evs, "task");
    assert_eq!(tasks.len(), 4, "{tasks:?}");
    assert!(
        tasks.contains(&"task 0.0 in stage 0.0 (TID 0)"),
        "{tasks:?}"
    );
    let phases = names_of(&evs, "phase");
    for p in [
        "submission",
        "AM start (attempt 1)",
        "registration (attempt 1)",
        "executor bring-up (attempt 1)",
        "job 0 (attempt 1)",
        "shutdown (attempt 1)",
    ] {
        assert!(phases.contains(&p), "{p} missing from {phases:?}");
    }
    let states = names_of(&evs, "state");
    assert!(states.iter().any(|s| s.ends_with("RUNNING")), "{states:?}");
    let procs: Vec<&str> = evs
        .iter()
        .filter(|e| e["name"] == "process_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(
        procs
            .iter()
            .any(|p| p.starts_with("executor 1: container_")),
        "{procs:?}"
    );
    // Without listener events the tasks come from LaunchTask/StatusUpdate.
    let (plain, _) = run_with(&pi_args(&dir, &[]), RunOptions::default(), None);
    let evs = assert_complete(&trace_json(&plain, "timeline-derived"));
    assert_eq!(names_of(&evs, "task").len(), 4);
}

#[test]
fn failed_tasks_are_marked_in_the_timeline() {
    let tmp = TestDir::new("outputs-failed-timeline-events");
    let dir = event_dir(&tmp);
    let mut args = pi_args(&dir, &[]);
    args[1] = "com.example.Failing";
    let (r, _) = run_with(&args, recorded(), Some(failing_program()));
    let evs = assert_complete(&trace_json(&r, "timeline-failing"));
    assert!(
        names_of(&evs, "failed").len() >= 8,
        "two attempts, four failures each"
    );
}

fn arrows(d: &str) -> Vec<&str> {
    d.lines()
        .map(str::trim)
        .filter(|l| l.contains(">>") || l.contains("-x"))
        .collect()
}

#[test]
fn the_sequence_diagram_and_its_filters() {
    let tmp = TestDir::new("outputs-sequence-events");
    let (r, _) = run_with(
        &pi_args(&event_dir(&tmp), &["--num-executors", "3"]),
        RunOptions::default(),
        None,
    );
    let all = outputs::sequence_diagram(&r, &SequenceFilter::default());
    assert!(all.starts_with("sequenceDiagram\n"), "{all}");
    for p in [
        "Client",
        "ResourceManager",
        "NodeManager",
        "ApplicationMaster",
        "YarnAllocator",
        "ExecutorRunnable",
        "DriverEndpoint",
        "Executor",
    ] {
        assert!(all.contains(&format!(" as {p}\n")), "{p} missing:\n{all}");
    }
    for step in [
        "C->>RM: SubmitApplication",
        "AM->>RM: RegisterApplicationMaster",
        "YA->>RM: Allocate",
        "ER->>NM: StartContainers",
        "E->>DE: RegisterExecutor (executor 1)",
        "DE->>E: LaunchTask",
    ] {
        assert!(all.contains(step), "{step} missing:\n{all}");
    }
    assert!(!all.contains("NodeHeartbeat"));
    let no_tasks = outputs::sequence_diagram(
        &r,
        &SequenceFilter {
            no_tasks: true,
            ..Default::default()
        },
    );
    assert!(
        !no_tasks.contains("LaunchTask") && !no_tasks.contains("StatusUpdate"),
        "{no_tasks}"
    );
    assert!(no_tasks.contains("RegisterExecutor"));

    let one = outputs::sequence_diagram(
        &r,
        &SequenceFilter {
            executor: Some(2),
            ..Default::default()
        },
    );
    assert!(one.contains("as Executor 2\n"), "{one}");
    assert_eq!(
        arrows(&one)
            .iter()
            .filter(|l| l.ends_with(": RegisterExecutor"))
            .count(),
        1,
        "{one}"
    );
    assert_eq!(
        arrows(&one)
            .iter()
            .filter(|l| l.starts_with("ER->>") && l.contains("StartContainers"))
            .count(),
        1,
        "{one}"
    );
    assert!(
        one.lines()
            .filter(|l| l.contains("participant NM_"))
            .count()
            >= 2,
        "one NodeManager per host:\n{one}"
    );
    assert!(
        one.contains("C->>RM: SubmitApplication"),
        "the application's own steps stay:\n{one}"
    );

    let first = outputs::sequence_diagram(
        &r,
        &SequenceFilter {
            limit: Some(5),
            ..Default::default()
        },
    );
    assert_eq!(arrows(&first).len(), 5, "{first}");
    assert!(first.contains("more messages"), "{first}");
}

#[test]
fn mermaid_text_is_escaped() {
    let t = outputs::sequence::text("stage end; #1 <b>\nEnd");
    assert_eq!(t, "stage [end]#59; #35;1 #lt;b#gt; [End]");
}

#[test]
fn the_progress_hook_is_hidden_when_quiet_and_never_changes_the_run() {
    assert!(outputs::progress_hook(true, None).is_none());
    use std::io::IsTerminal as _;
    if !std::io::stderr().is_terminal() {
        assert!(outputs::progress_hook(false, None).is_none());
    }
    let ticks = Rc::new(std::cell::Cell::new(0u32));
    let t = ticks.clone();
    let hook: runner::ProgressHook = Rc::new(move |sim| {
        let _ = sim.counters.borrow().tasks_finished;
        t.set(t.get() + 1);
    });
    let with = RunOptions {
        progress: Some(hook),
        progress_interval_ms: 100,
        ..RunOptions::default()
    };
    let (a, _) = run_with(&pi_args("spark.eventLog.dir=/x", &[]), with, None);
    let (b, _) = run_with(
        &pi_args("spark.eventLog.dir=/x", &[]),
        RunOptions::default(),
        None,
    );
    assert!(ticks.get() > 10, "{}", ticks.get());
    assert_eq!(a.fingerprint, b.fingerprint);
}

/// A bundled fault scenario (config/scenarios), run with the listener recorded.
fn scenario(name: &str) -> RunResult {
    crate::common::bundled_scenario(name, recorded())
}

/// Settings that write event logs to `dir` (the log's content comes from the run).
fn log_settings(dir: &Path) -> SparkSettings {
    let conf = format!("spark.eventLog.dir={}", dir.display());
    let (_, spark) = run_with(&pi_args(&conf, &[]), RunOptions::default(), None);
    spark
}

#[test]
fn a_killed_am_leaves_its_attempt_inprogress_and_the_next_attempt_completes() {
    let dir = TestDir::new("outputs-am-killed");
    let r = scenario("am-killed-retry");
    let written = outputs::write_event_logs(&r, &log_settings(dir.path())).expect("written");
    assert_eq!(
        written,
        vec![
            dir.join("eventlog_v2_application_1764662400000_0001_1"),
            dir.join("eventlog_v2_application_1764662400000_0001_2"),
        ]
    );
    let status: Vec<Vec<String>> = written
        .iter()
        .map(|p| {
            let names = names_in(p).into_iter();
            names.filter(|n| n.starts_with("appstatus_")).collect()
        })
        .collect();
    assert_eq!(
        status,
        [
            ["appstatus_application_1764662400000_0001_1.inprogress"],
            ["appstatus_application_1764662400000_0001_2"],
        ]
    );
    for p in &written {
        for e in &lines(p) {
            assert_required(e);
        }
    }
    let evs = assert_complete(&trace_json(&r, "am-killed-trace"));
    let phases = names_of(&evs, "phase");
    assert!(
        phases.contains(&"AM start (attempt 2)") && phases.contains(&"new attempt 2"),
        "{phases:?}"
    );
}

#[test]
fn a_killed_executor_shows_in_every_output() {
    let dir = TestDir::new("outputs-sigkill");
    let r = scenario("executor-sigkill");
    let written = outputs::write_event_logs(&r, &log_settings(dir.path())).expect("written");
    let log = lines(&written[0]);
    for e in &log {
        assert_required(e);
    }
    let removed = events(&log, "SparkListenerExecutorRemoved");
    assert_eq!(removed.len(), 1, "{removed:?}");
    assert_eq!(removed[0]["Executor ID"], "1");
    assert!(
        removed[0]["Removed Reason"]
            .as_str()
            .is_some_and(|r| r.contains("137")),
        "{}",
        removed[0]
    );
    let lost: Vec<&Value> = events(&log, "SparkListenerTaskEnd")
        .into_iter()
        .filter(|t| t["Task End Reason"]["Reason"] == "ExecutorLostFailure")
        .collect();
    assert!(!lost.is_empty());
    assert_eq!(lost[0]["Task End Reason"]["Executor ID"], "1");
    assert_eq!(lost[0]["Task End Reason"]["Exit Caused By App"], true);
    assert!(
        lost[0].get("Task Metrics").is_none(),
        "no metrics for a lost executor's task"
    );
    let evs = assert_complete(&trace_json(&r, "sigkill-trace"));
    assert!(
        !names_of(&evs, "fault").is_empty(),
        "the fault is an instant event"
    );
    let d = outputs::sequence_diagram(
        &r,
        &SequenceFilter {
            executor: Some(1),
            no_tasks: true,
            limit: None,
        },
    );
    assert!(d.contains("Note over YA: executor 1 lost"), "{d}");
}

/// Not a test: writes event logs for `scripts/check-history-server.sh` until the CLI has the
/// flags. `SPARKYARD_EVENTLOG_OUT=DIR cargo test --test sparkyard export_event_logs -- --ignored`
#[test]
#[ignore]
fn export_event_logs() {
    let Some(out) = std::env::var_os("SPARKYARD_EVENTLOG_OUT") else {
        return;
    };
    let out = PathBuf::from(out);
    let conf = format!("spark.eventLog.dir={}", out.join("pi").display());
    let (r, spark) = run_with(
        &pi_args(
            &conf,
            &["--num-executors", "3", "--conf", "spark.app.name=Spark Pi"],
        ),
        recorded(),
        None,
    );
    outputs::write_event_logs(&r, &spark).expect("written");
    let conf = format!("spark.eventLog.dir={}", out.join("failing").display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "com.example.Failing";
    let (r, spark) = run_with(&args, recorded(), Some(failing_program()));
    outputs::write_event_logs(&r, &spark).expect("written");
    let conf = format!("spark.eventLog.dir={}", out.join("zstd").display());
    let (r, spark) = run_with(
        &pi_args(&conf, &["--conf", "spark.eventLog.compress=true"]),
        recorded(),
        None,
    );
    outputs::write_event_logs(&r, &spark).expect("written");
    let extra = out.join("diagrams");
    std::fs::create_dir_all(&extra).expect("a dir");
    for name in [
        "executor-sigkill",
        "am-killed-retry",
        "node-lost",
        "yarn-pmem-kill",
        "chaos",
    ] {
        let r = scenario(name);
        outputs::write_event_logs(&r, &log_settings(&out.join(name))).expect("written");
        // Diagrams and timelines beside the logs, for checking them with real tools.
        outputs::write_chrome_trace(&r, &extra.join(format!("{name}.json"))).expect("written");
        let filters = [
            ("all", SequenceFilter::default()),
            (
                "exec1",
                SequenceFilter {
                    executor: Some(1),
                    no_tasks: true,
                    limit: None,
                },
            ),
            (
                "first20",
                SequenceFilter {
                    limit: Some(20),
                    ..Default::default()
                },
            ),
        ];
        for (tag, f) in filters {
            let path = extra.join(format!("{name}-{tag}.mmd"));
            outputs::write_sequence(&r, &path, &f).expect("written");
        }
    }
}

// EventLogFileWriters.scala SingleEventLogFileWriter.stop -> renameFile: a completed log of the
// same name is kept (`Target log file already exists (...)`, the new log stays .inprogress)
// unless spark.eventLog.overwrite=true.
#[test]
fn an_existing_event_log_is_not_clobbered_without_overwrite() {
    let dir = TestDir::new("outputs-overwrite");
    let conf = format!("spark.eventLog.dir=file:{}", dir.path().display());
    let single = [
        "--conf",
        "spark.eventLog.rolling.enabled=false",
        "--conf",
        "spark.eventLog.compress=false",
    ];
    let (r, spark) = run_with(&pi_args(&conf, &single), recorded(), None);
    let first = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    let done = dir.join("application_1764662400000_0001_1");
    assert_eq!(first[0].path, done);
    assert_eq!(first[0].refused, None);
    std::fs::write(&done, "an earlier run's log\n").expect("overwritten by hand");
    let again = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    assert_eq!(
        again[0].refused.as_deref(),
        Some(
            format!(
                "java.io.IOException: Target log file already exists (file:{})",
                done.display()
            )
            .as_str()
        )
    );
    assert_eq!(
        again[0].path,
        dir.join("application_1764662400000_0001_1.inprogress")
    );
    assert_eq!(
        std::fs::read_to_string(&done).expect("kept"),
        "an earlier run's log\n"
    );
    let over = format!("spark.eventLog.dir=file:{}", dir.path().display());
    let overwrite = [&single[..], &["--conf", "spark.eventLog.overwrite=true"]].concat();
    let (r, spark) = run_with(&pi_args(&over, &overwrite), recorded(), None);
    let third = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    assert_eq!(
        (third[0].path.clone(), third[0].refused.clone()),
        (done.clone(), None)
    );
    assert_ne!(
        std::fs::read_to_string(&done).expect("replaced"),
        "an earlier run's log\n"
    );
}

// EventLogFileWriters.scala RollingEventLogFilesWriter.start: an existing attempt folder is
// refused (`Target log directory already exists (...)`) and left as it was, unless
// spark.eventLog.overwrite=true deletes it first.
#[test]
fn an_existing_rolling_log_folder_is_refused_without_overwrite() {
    let dir = TestDir::new("outputs-overwrite-rolling");
    let conf = format!("spark.eventLog.dir=file:{}", dir.path().display());
    let (r, spark) = run_with(&pi_args(&conf, &[]), recorded(), None);
    let first = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    let app_dir = dir.join("eventlog_v2_application_1764662400000_0001_1");
    assert_eq!(
        (first[0].path.clone(), first[0].refused.clone()),
        (app_dir.clone(), None)
    );
    let before = log_bytes(&app_dir);
    let marker = app_dir.join("events_9_by_hand");
    std::fs::write(&marker, "an earlier run's file\n").expect("written by hand");
    let again = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    let refused = format!(
        "java.io.IOException: Target log directory already exists (file:{})",
        app_dir.display()
    );
    assert_eq!(again[0].refused.as_deref(), Some(refused.as_str()));
    assert!(marker.is_file(), "the earlier folder is left alone");
    let over = ["--conf", "spark.eventLog.overwrite=true"];
    let (r, spark) = run_with(&pi_args(&conf, &over), recorded(), None);
    let third = outputs::eventlog::write_event_logs_reporting(&r, &spark).expect("written");
    assert_eq!(
        (third[0].path.clone(), third[0].refused.clone()),
        (app_dir.clone(), None)
    );
    assert!(!marker.exists(), "overwrite deletes the folder first");
    assert_eq!(names_in(&app_dir).len(), 3, "a fresh folder");
    assert_ne!(
        log_bytes(&app_dir),
        before,
        "this run's log (with spark.eventLog.overwrite)"
    );
}

/// `spark.ui.custom.executor.log.url` (CoarseGrainedSchedulerBackend's DriverEndpoint applies
/// ExecutorLogUrlHandler.applyPattern to each RegisterExecutor's log URLs with its attributes,
/// YarnContainerInfoHelper.getAttributes): the event log's ExecutorAdded shows the rewritten URLs
/// and the attributes the executor sent; no "not simulated" warning any more.
#[test]
fn a_custom_executor_log_url_rewrites_the_executors_log_urls() {
    let dir = TestDir::new("outputs-custom-log-url");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let pattern = "spark.ui.custom.executor.log.url={{HTTP_SCHEME}}logs.example:9999/{{CONTAINER_ID}}/{{FILE_NAME}}";
    let (r, spark) = run_with(&pi_args(&conf, &["--conf", pattern]), recorded(), None);
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    let log = lines(&written[0]);
    let added = events(&log, "SparkListenerExecutorAdded");
    let info = &added[0]["Executor Info"];
    let cid = info["Attributes"]["CONTAINER_ID"]
        .as_str()
        .expect("a container id");
    assert!(cid.starts_with("container_1764662400000_0001_01_"), "{cid}");
    assert_eq!(
        info["Log Urls"]["stdout"],
        format!("http://logs.example:9999/{cid}/stdout")
    );
    assert_eq!(
        info["Log Urls"]["stderr"],
        format!("http://logs.example:9999/{cid}/stderr")
    );
}

/// A two-stage job with skew: map task 0 reads 3 x the input of the others (hot input task),
/// and reduce partition 1 gets 5 x the others' share of every map output (hot key).
fn skewed_program() -> UserProgram {
    use sparkyard_messages::task::{HotPartitions, InputSize, ShuffleWriteSize};
    let sleep = TaskWork::Sleep {
        duration_ms: 40,
        fail: None,
    };
    let map = StageSpec {
        rdd_description: "MapPartitionsRDD[1] at map at Skew.scala:10".into(),
        num_partitions: 4,
        parents: Vec::new(),
        tasks: vec![sleep.clone(); 4].into(),
        shuffle_write: ShuffleWriteSize {
            bytes_per_task: 8_000_000,
            records_per_task: 8_000,
            hot: HotPartitions {
                first: 1,
                count: 1,
                factor: 5,
            },
        },
        input: InputSize {
            bytes_per_task: 1_000_000,
            records_per_task: 100,
            hot: HotPartitions {
                first: 0,
                count: 1,
                factor: 3,
            },
        },
        lineage: None,
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    };
    let reduce = StageSpec {
        rdd_description: "ShuffledRDD[2] at groupByKey at Skew.scala:11".into(),
        num_partitions: 4,
        parents: vec![0],
        tasks: vec![sleep; 4].into(),
        shuffle_write: Default::default(),
        input: Default::default(),
        lineage: None,
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    };
    UserProgram::Synthetic {
        class: "com.example.Skew".into(),
        app_name: "Skew".into(),
        jobs: vec![JobSpec {
            call_site: "count at Skew.scala:12".into(),
            stages: vec![map, reduce],
        }],
    }
}

// ShuffleReadMetrics (remote + local bytes, records) count the blocks a reducer fetched: with a
// hot reduce partition its blocks are `factor` times the others' (8 MB per map over weights
// 1, 5, 1, 1: 1 MB and 5 MB), and a hot input split's InputMetrics are `factor` times the
// others'. HighlyCompressedMapStatus would keep such blocks' exact sizes (above
// spark.shuffle.accurateBlockThreshold), which the metrics here are.
#[test]
fn skewed_partitions_read_their_share_in_the_event_log() {
    let dir = TestDir::new("outputs-skew");
    let conf = format!("spark.eventLog.dir={}", dir.path().display());
    let mut args = pi_args(&conf, &[]);
    args[1] = "com.example.Skew";
    let (r, spark) = run_with(&args, recorded(), Some(skewed_program()));
    let written = outputs::write_event_logs(&r, &spark).expect("written");
    let log = lines(&written[0]);
    let ends = events(&log, "SparkListenerTaskEnd");
    assert_eq!(ends.len(), 8);
    let of = |stage: u64, partition: u64| {
        ends.iter()
            .find(|e| e["Stage ID"] == stage && e["Task Info"]["Partition ID"] == partition)
            .map(|e| e["Task Metrics"].clone())
            .expect("a task end")
    };
    for (p, bytes) in [
        (0, 4_000_000u64),
        (1, 20_000_000),
        (2, 4_000_000),
        (3, 4_000_000),
    ] {
        let read = &of(1, p)["Shuffle Read Metrics"];
        let total = read["Remote Bytes Read"].as_u64().unwrap_or(0)
            + read["Local Bytes Read"].as_u64().unwrap_or(0);
        assert_eq!(total, bytes, "reduce partition {p}: {read}");
        let records = if p == 1 { 4 * 5_000 } else { 4 * 1_000 };
        assert_eq!(read["Total Records Read"], records);
    }
    assert_eq!(
        of(0, 0)["Input Metrics"],
        serde_json::json!({"Bytes Read": 3_000_000, "Records Read": 300})
    );
    assert_eq!(
        of(0, 2)["Input Metrics"],
        serde_json::json!({"Bytes Read": 1_000_000, "Records Read": 100})
    );
}

/// `spark.eventLog.logBlockUpdates.enabled` (EventLoggingListener.onBlockUpdated): the
/// BlockManagerMasterEndpoint's `SparkListenerBlockUpdated` events, written as
/// `JsonProtocol.blockUpdateToJson` writes them. A real Spark 4.0.0 run (local-cluster, one
/// shuffle, the key on) logged, per stage, the driver's task-binary piece right after the
/// StageSubmitted event, then each executor's piece once it read the broadcast, e.g.
/// `{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor
/// ID":"driver","Host":"192.0.2.2","Port":35631},"Block ID":"broadcast_0_piece0","Storage
/// Level":{"Use Disk":false,"Use Memory":true,"Use Off Heap":false,"Deserialized":false,
/// "Replication":1},"Memory Size":7952,"Disk Size":0}}` (sparkyard's piece is SparkPi's 2267 B,
/// memory_store.rs); no `broadcast_N` value block (put with `tellMaster = false`). Off (the
/// default), none is written.
#[test]
fn block_updates_are_logged_only_with_log_block_updates() {
    let dir = TestDir::new("outputs-eventlog-block-updates");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let args = pi_args(
        &conf,
        &["--conf", "spark.eventLog.logBlockUpdates.enabled=true"],
    );
    let (r, spark) = run_with(&args, recorded(), None);
    let text = log_text(&outputs::write_event_logs(&r, &spark).expect("written")[0]);
    let kinds: Vec<String> = text
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            let e = v["Event"].as_str().unwrap_or("").to_string();
            match v["Block Updated Info"]["Block Manager ID"]["Executor ID"].as_str() {
                Some(id) => format!("{e} {id}"),
                None => e,
            }
        })
        .collect();
    let submitted = kinds
        .iter()
        .position(|k| k == "SparkListenerStageSubmitted")
        .expect("a stage");
    assert_eq!(kinds[submitted + 1], "SparkListenerBlockUpdated driver");
    let updates: Vec<&String> = kinds
        .iter()
        .filter(|k| k.starts_with("SparkListenerBlockUpdated"))
        .collect();
    // The driver's piece and one per executor that ran a task of the stage.
    assert_eq!(updates.len(), 3, "{kinds:?}");
    for id in ["1", "2"] {
        let update = format!("SparkListenerBlockUpdated {id}");
        let at = kinds.iter().position(|k| *k == update).expect("its piece");
        assert!(
            kinds[..at].iter().any(|k| k == "SparkListenerTaskStart"),
            "{kinds:?}"
        );
    }
    let driver = text
        .lines()
        .find(|l| l.contains("SparkListenerBlockUpdated"))
        .expect("an update");
    assert!(
        driver.starts_with(
            r#"{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor ID":"driver","Host":"nm-"#
        ),
        "{driver}"
    );
    assert!(
        driver.ends_with(
            r#"},"Block ID":"broadcast_0_piece0","Storage Level":{"Use Disk":false,"Use Memory":true,"Use Off Heap":false,"Deserialized":false,"Replication":1},"Memory Size":2267,"Disk Size":0}}"#
        ),
        "{driver}"
    );
    let dir = TestDir::new("outputs-eventlog-no-block-updates");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let (r, spark) = run_with(&pi_args(&conf, &[]), recorded(), None);
    let text = log_text(&outputs::write_event_logs(&r, &spark).expect("written")[0]);
    assert!(!text.contains("SparkListenerBlockUpdated"));
}

/// A cached RDD block (GroupByTest's `pairs1.cache()`, MEMORY_ONLY) is reported with its
/// level as BlockManager.getCurrentBlockStatus gives it (deserialized, in memory) and the
/// MemoryStore's size; BlockManagerMasterEndpoint posts the update for it as for any block.
#[test]
fn cached_rdd_blocks_are_logged_as_memory_only() {
    let dir = TestDir::new("outputs-eventlog-rdd-block-updates");
    let conf = format!("spark.eventLog.dir=file://{}", dir.path().display());
    let args = [
        "--class",
        "org.apache.spark.examples.GroupByTest",
        "--num-executors",
        "2",
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        &conf,
        "--conf",
        "spark.eventLog.logBlockUpdates.enabled=true",
        "examples/jars/spark-examples.jar",
        "4",
        "100",
        "1000",
        "4",
    ];
    let (r, spark) = run_with(&args, recorded(), None);
    let log = lines(&outputs::write_event_logs(&r, &spark).expect("written")[0]);
    let rdd: Vec<&Value> = events(&log, "SparkListenerBlockUpdated")
        .into_iter()
        .filter(|e| {
            e["Block Updated Info"]["Block ID"]
                .as_str()
                .is_some_and(|b| b.starts_with("rdd_1_"))
        })
        .collect();
    assert_eq!(rdd.len(), 4, "one per cached partition");
    for e in rdd {
        let info = &e["Block Updated Info"];
        let level = &info["Storage Level"];
        assert_eq!(level["Use Memory"], true, "{e}");
        assert_eq!(level["Deserialized"], true, "{e}");
        assert_eq!(level["Use Disk"], false, "{e}");
        assert!(info["Memory Size"].as_u64().is_some_and(|m| m > 0), "{e}");
        assert_eq!(info["Disk Size"], 0, "{e}");
    }
}
