//! A replay's GPUs (`src/replay/gpus.rs`): where the recording's YARN scheduled them (its Hadoop
//! properties' `yarn.resource-types` names `yarn.io/gpu`), the replay asks for the executors'
//! GPUs as recorded, on nodes given the most GPUs the log's executors held at once on one host;
//! where it did not (no GPU type: Spark's `ResourceRequestHelper` only warned), it leaves them
//! out and says why.

use crate::common::TestDir;
use sparkyard::replay::simulate::{ReplaySetup, user_submit_args};
use sparkyard::replay::{self, model, report::GpuReplay, report::ReplayNote};
use std::path::{Path, PathBuf};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/eventlogs")
        .join(path)
}

/// The replay's own event log, read back.
fn replayed(log: &Path, dir: &Path) -> (replay::report::ReplayReport, model::Application) {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).expect("event log dir");
    let words = [
        "--conf".to_string(),
        "spark.eventLog.enabled=true".into(),
        "--conf".into(),
        format!("spark.eventLog.dir={}", logs.display()),
    ];
    let setup = ReplaySetup {
        submit: user_submit_args(&words).expect("options parse"),
        scenario: None,
    };
    let report = replay::replay(log, &setup).expect("replays");
    let written = PathBuf::from(&report.event_logs.first().expect("an event log").path);
    let file = crate::common::events_file(&written);
    (
        report,
        model::load(&file).expect("the replay's event log reads"),
    )
}

fn gpu_note(r: &replay::report::ReplayReport) -> Option<&GpuReplay> {
    r.notes.iter().find_map(|n| match n {
        ReplayNote::CustomResources { gpus, .. } => Some(gpus),
        _ => None,
    })
}

/// The committed GPU log (Spark 3.2.1 on a YARN with `yarn.resource-types = yarn.io/gpu`, one GPU
/// an executor, a quarter a task): its executors held at most two GPUs at once on one host
/// (executors 6 and 10 on one node), so each simulated node has two; every simulated executor
/// asked YARN for one, found it at address 0 (`ExecutorAdded`'s `Resources`, as the recording's
/// did) and no node ran more executors at once than its GPUs.
#[test]
fn the_gpu_logs_executors_ask_yarn_for_their_gpus_as_recorded() {
    let dir = TestDir::new("replay-gpus");
    let log = data("rapids/eventlog_4nodes_8cores_dynamic_alloc.zstd");
    let (report, sim) = replayed(&log, dir.path());
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(
        gpu_note(&report),
        Some(&GpuReplay::SizedFromLog { per_node: 2 })
    );
    let executors: Vec<_> = sim.executors.iter().filter(|e| !e.is_driver()).collect();
    assert!(executors.len() >= 10, "{}", executors.len());
    for e in &executors {
        assert_eq!(e.resources.get("gpu"), Some(&1), "{e:?}");
    }
    let peaks = replay::gpus::host_peaks(&sim.executors, sim.end_ms, 1);
    assert!(peaks.values().all(|&p| p <= 2), "{peaks:?}");
    assert!(peaks.values().any(|&p| p == 2), "{peaks:?}");
}

/// Spark 3.0's shell on a YARN without the GPU type (its executors' script found thirteen
/// devices, unscheduled): the replay leaves the GPUs out and its executors find none.
#[test]
fn a_log_whose_yarn_had_no_gpu_type_replays_without_gpus_and_says_why() {
    let dir = TestDir::new("replay-no-gpu-type");
    let log = data("apache/application_1555004656427_0144");
    let (report, sim) = replayed(&log, dir.path());
    assert_eq!(gpu_note(&report), Some(&GpuReplay::Unscheduled));
    let note = report
        .notes
        .iter()
        .find(|n| matches!(n, ReplayNote::CustomResources { .. }))
        .expect("the note")
        .to_string();
    assert!(note.contains("had no yarn.io/gpu resource type"), "{note}");
    assert!(
        sim.executors.iter().all(|e| e.resources.is_empty()),
        "{:?}",
        sim.executors
    );
}
