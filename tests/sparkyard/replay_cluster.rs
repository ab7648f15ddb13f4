//! `sparkyard replay-cluster`: where nothing competes, each application of the day is exactly
//! its single replay (issue 28's must-hold, on the committed real Spark 4.0 logs); ids are
//! YARN's in submission order; bad input is a clear error naming the file.

use crate::common::{binary, text};
use sparkyard::replay::cluster::{self, DaySetup};
use sparkyard::replay::simulate::{self, ReplaySetup};
use sparkyard::replay::{cluster_deadline, cluster_report};
use sparkyard::replay::{model, report};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/eventlogs")
        .join(name)
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sparkyard-day-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A cluster of 16 nodes of 64 GiB and 16 vcores: room for every application at once.
fn big_cluster(dir: &Path) -> PathBuf {
    let path = dir.join("big.toml");
    let toml = "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 16\nmemory_mb = 65536\nvcores = 16\n";
    std::fs::write(&path, toml).expect("cluster file written");
    path
}

fn day_setup(cluster: &Path) -> DaySetup {
    DaySetup {
        cluster: Some(cluster.to_path_buf()),
        scenario: None,
        seed: 42,
        queue_map: Default::default(),
        skip_bad: false,
        deadlines: Vec::new(),
    }
}

/// The single `sparkyard replay LOG --cluster FILE`'s simulated application time.
fn single_replay_ms(log: &Path, cluster: &Path) -> u64 {
    let words = ["--cluster", cluster.to_str().expect("utf-8 path")];
    let setup = ReplaySetup {
        submit: simulate::user_submit_args(&words).expect("options parse"),
        scenario: None,
    };
    let app = model::load(log).expect("log reads");
    let prepared = simulate::prepare(&app, &setup).expect("prepared");
    let sim = simulate::run(&prepared, setup.submit.sim.seed).expect("runs");
    let r = report::build(&log.display().to_string(), &app, &prepared, &sim);
    r.time.simulated as u64
}

#[test]
fn where_nothing_competes_each_application_is_its_single_replay_to_the_millisecond() {
    let dir = temp_dir("exact");
    let cluster = big_cluster(&dir);
    // Every committed log of the directory (its subdirectory of other tools' logs left out):
    // 18 applications over 100 minutes, every codec and layout. Without the submissions'
    // alignment to the NodeManagers' heartbeats (`cluster::submit_offset_ms`), multijob_n4_r1
    // takes 184 ms less than its single replay.
    let logs = [data("")];
    let day = cluster::replay_cluster(&logs, &day_setup(&cluster)).expect("the day runs");
    assert_eq!(day.applications.len(), 18);
    for a in &day.applications {
        let log = Path::new(&a.path);
        assert_eq!(a.outcome, "FINISHED/SUCCEEDED", "{}", a.path);
        assert_eq!(
            a.simulated_ms,
            single_replay_ms(log, &cluster),
            "{}: the day's simulated time differs from its single replay",
            a.path
        );
    }
}

#[test]
fn applications_get_yarn_ids_in_submission_order_and_each_its_own_queue_wait() {
    let dir = temp_dir("ids");
    let cluster = big_cluster(&dir);
    let logs = [data("multijob_n2_r1.zstd"), data("skew_n2_r1.zstd")];
    let day = cluster::replay_cluster(&logs, &day_setup(&cluster)).expect("the day runs");
    // The report lists them in submission order.
    let submitted: Vec<u64> = day.applications.iter().map(|a| a.submitted_at_ms).collect();
    assert!(submitted.is_sorted(), "{submitted:?}");
    let ids: Vec<String> = day
        .applications
        .iter()
        .map(|a| a.yarn_app_id.clone().expect("submitted"))
        .collect();
    // ResourceManager: application_<clusterTimestamp>_<sequence>, the sequence in
    // submission order (ApplicationId.newInstance, RMAppManager).
    assert!(
        ids[0].ends_with("_0001") && ids[1].ends_with("_0002"),
        "{ids:?}"
    );
    for a in &day.applications {
        assert!(
            a.accepted_ms.is_some(),
            "{}: no AM container allocated",
            a.path
        );
    }
}

#[test]
fn a_queue_the_cluster_lacks_names_the_queue_and_its_logs_unless_mapped() {
    let dir = temp_dir("queue");
    let cluster = big_cluster(&dir);
    let log = data("multijob_n1_r1.zstd");
    let mut app = model::load(&log).expect("log reads");
    app.config
        .properties
        .insert("spark.yarn.queue".into(), "etl".into());
    let logs = vec![cluster::ReadLog {
        path: log.display().to_string(),
        app,
    }];
    let c = cluster::day_cluster(&day_setup(&cluster))
        .expect("cluster")
        .config;
    let e = cluster::assign_queues(logs.clone(), &c, &Default::default())
        .err()
        .expect("unknown queue refused")
        .to_string();
    assert!(
        e.contains("queue 'etl'") && e.contains("multijob_n1_r1.zstd"),
        "{e}"
    );
    let map = cluster::parse_queue_map(&["etl=default".into()]).expect("map parses");
    let day = cluster::assign_queues(logs, &c, &map).expect("mapped");
    assert_eq!(day[0].queue, "default");
}

#[test]
fn an_unreadable_log_is_named_and_skip_bad_goes_on_without_it() {
    let dir = temp_dir("bad");
    let bad = dir.join("broken.zstd");
    std::fs::write(&bad, b"not an event log").expect("written");
    let good = data("multijob_n1_r1.zstd");
    let cluster = big_cluster(&dir);
    let (c, g) = (cluster.to_str().unwrap(), good.to_str().unwrap());
    let out = binary(&["replay-cluster", "--cluster", c, g, bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("broken.zstd"),
        "{}",
        text(&out.stderr)
    );
    let out = binary(&[
        "replay-cluster",
        "--skip-bad",
        "--cluster",
        c,
        g,
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("skipped") && stdout.contains("broken.zstd"),
        "{stdout}"
    );
    // Two logs of one application: the second is named with the first.
    let out = binary(&["replay-cluster", "--cluster", c, g, g]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("a second log of application"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn on_a_one_node_cluster_a_later_application_waits_accepted_for_the_earlier_ones_am() {
    let dir = temp_dir("small");
    let small = dir.join("small.toml");
    let toml = "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 1\nmemory_mb = 8192\nvcores = 4\n";
    std::fs::write(&small, toml).expect("cluster file written");
    // Submitted 85.6 s and 177 s after the first, each running a minute or more.
    let logs = [
        data("skew_n1_r1.zstd"),
        data("skew_n1_r2.zstd"),
        data("multijob_n1_r1.zstd"),
    ];
    let day = cluster::replay_cluster(&logs, &day_setup(&small)).expect("the day runs");
    let waits = |d: &cluster_report::DayReport| -> Vec<u64> {
        d.applications
            .iter()
            .map(|a| a.accepted_ms.expect("allocated"))
            .collect()
    };
    let shared = waits(&day);
    // The first application waits for the node's next heartbeat at most; a later one also
    // while another application's AM holds the queue's AM resource limit
    // (LeafQueue.activateApplications, maximum-am-resource-percent 0.1 of 8 GiB).
    assert!(shared[0] <= 1_000, "{shared:?}");
    assert!(shared[1..].iter().any(|&w| w > 5_000), "{shared:?}");
    assert!(day.queues[0].peak_used_mb <= 8192, "{:?}", day.queues);
}

#[test]
fn a_deadline_is_met_by_an_application_that_ends_in_time_and_missed_by_one_that_does_not() {
    let dir = temp_dir("deadline");
    let cluster = big_cluster(&dir);
    let logs = [data("skew_n1_r1.zstd"), data("multijob_n1_r1.zstd")];
    let mut setup = day_setup(&cluster);
    // skew runs about 65 s after its start-up; multijob must end within 10 s: it cannot.
    setup.deadlines =
        cluster_deadline::parse_deadlines(&["*skew=10min".into(), "*multijob=10s".into()])
            .expect("deadlines parse");
    let day = cluster::replay_cluster(&logs, &setup).expect("the day runs");
    let met: Vec<(String, bool)> = day
        .applications
        .iter()
        .map(|a| (a.name.clone(), a.deadline.as_ref().expect("has one").met))
        .collect();
    assert_eq!(
        met,
        [
            ("sparkyard-skew".to_string(), true),
            ("sparkyard-multijob".to_string(), false)
        ]
    );
}
