//! `sparkyard replay-cluster`: where nothing competes, each application of the day is exactly
//! its single replay (issue 28's must-hold, on the committed real Spark 4.0 logs); ids are
//! YARN's in submission order; bad input is a clear error naming the file.

use crate::common::{TestDir, binary, data, text};
use sparkyard::replay::cluster::{self, DaySetup};
use sparkyard::replay::simulate::{self, ReplaySetup};
use sparkyard::replay::{cluster_deadline, cluster_report};
use sparkyard::replay::{model, report};
use std::path::{Path, PathBuf};

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
        conf: Vec::new(),
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
    let dir = TestDir::new("day-exact");
    let cluster = big_cluster(dir.path());
    // Every committed log of the directory (its subdirectory of other tools' logs left out):
    // 21 applications over 100 minutes (the two SQL ones of 2,051 short tasks among them, one
    // under dynamic allocation), every codec and layout. Without the submissions'
    // alignment to the NodeManagers' heartbeats (`cluster::submit_offset_ms`), multijob_n4_r1
    // takes 184 ms less than its single replay.
    let logs = [data("")];
    let day = cluster::replay_cluster(&logs, &day_setup(&cluster)).expect("the day runs");
    assert_eq!(day.applications.len(), 21);
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

/// A day of real Spark 4.0.0 applications recorded in two YARN queues
/// (`scripts/make-eventlogs.py --day`: `spark.yarn.queue` etl / adhoc, pyspark 4.0.0 on
/// local-cluster). Each goes to its recorded queue (the CapacityScheduler's leaf, no
/// `--queue-map`), and where nothing competes each is exactly its single replay.
#[test]
fn a_day_recorded_in_two_queues_replays_each_application_in_its_own_queue() {
    let dir = TestDir::new("day-two-queues");
    let cluster = dir.join("two-queues.toml");
    let toml = "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 16\nmemory_mb = 65536\nvcores = 16\n\n[[queues]]\nname = \"etl\"\ncapacity = 60\n\n[[queues]]\nname = \"adhoc\"\ncapacity = 40\n";
    std::fs::write(&cluster, toml).expect("cluster file written");
    let logs = [data("day-two-queues")];
    let day = cluster::replay_cluster(&logs, &day_setup(&cluster)).expect("the day runs");
    let queues: Vec<&str> = day.applications.iter().map(|a| a.queue.as_str()).collect();
    assert_eq!(queues, ["etl", "adhoc", "etl", "adhoc"]);
    for a in &day.applications {
        assert_eq!(a.outcome, "FINISHED/SUCCEEDED", "{}", a.path);
        assert!(a.path.contains(&format!("_{}_", a.queue)), "{}", a.path);
        assert_eq!(
            a.simulated_ms,
            single_replay_ms(Path::new(&a.path), &cluster),
            "{}",
            a.path
        );
    }
    let per_queue: Vec<(&str, usize)> = day
        .queues
        .iter()
        .map(|q| (q.name.as_str(), q.applications))
        .collect();
    assert_eq!(per_queue, [("etl", 2), ("adhoc", 2)]);
    // The single replay submits to the recorded queue too: a cluster without it refuses it
    // as YARN does (RMAppManager's diagnostics); the embedded cluster (only `default`) replays
    // it there and says so; `--queue` chooses.
    let log = data("day-two-queues/day_multijob_n2_etl_1.zstd");
    let app = model::load(&log).expect("log reads");
    let no_etl = dir.join("no-etl.toml");
    std::fs::write(&no_etl, "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 2\nmemory_mb = 65536\nvcores = 16\n").expect("written");
    let setup = |words: &[&str]| ReplaySetup {
        submit: simulate::user_submit_args(words).expect("options parse"),
        scenario: None,
    };
    let c = no_etl.to_str().expect("utf-8");
    let refused = sparkyard::replay::replay(&log, &setup(&["--cluster", c])).expect("report");
    let message = refused.error.unwrap_or_default();
    assert!(message.contains("to unknown queue: etl"), "{message}");
    let chosen = simulate::prepare(&app, &setup(&["--cluster", c, "--queue", "default"]));
    assert_eq!(
        chosen.expect("prepared").args.queue.as_deref(),
        Some("default")
    );
    let embedded = simulate::prepare(&app, &setup(&[])).expect("prepared");
    assert_eq!(embedded.args.queue, None);
}

#[test]
fn applications_get_yarn_ids_in_submission_order_and_each_its_own_queue_wait() {
    let dir = TestDir::new("day-ids");
    let cluster = big_cluster(dir.path());
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
    let dir = TestDir::new("day-queue");
    let cluster = big_cluster(dir.path());
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
    let dir = TestDir::new("day-bad");
    let bad = dir.join("broken.zstd");
    std::fs::write(&bad, b"not an event log").expect("written");
    let good = data("multijob_n1_r1.zstd");
    let cluster = big_cluster(dir.path());
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
    let dir = TestDir::new("day-small");
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
    // The queue over time: its peak is the peak held, an application waited ACCEPTED while
    // another held the AM limit, and the day ends with nothing held or waiting.
    let usage = &day.queues[0].usage;
    let most = usage.iter().map(|p| p.used_mb).max();
    assert_eq!(most, Some(day.queues[0].peak_used_mb), "{usage:?}");
    assert!(
        usage
            .iter()
            .any(|p| p.pending_applications >= 1 && p.used_mb > 0)
    );
    let last = usage.last().expect("points");
    assert_eq!(
        (last.used_mb, last.pending_applications),
        (0, 0),
        "{usage:?}"
    );
}

#[test]
fn a_deadline_is_met_by_an_application_that_ends_in_time_and_missed_by_one_that_does_not() {
    let dir = TestDir::new("day-deadline");
    let cluster = big_cluster(dir.path());
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

/// skew_n1_r1 and multijob_n1_r1, the second submitted 10 s after the first (its recorded
/// `spark.app.submitTime` moved), so both run at once on `cluster`.
fn overlapping_day(cluster: &Path, scenario: &str) -> cluster_report::DayReport {
    overlapping_day_counted(cluster, scenario).report
}

/// [`overlapping_day`] with how many simulations it took.
fn overlapping_day_counted(cluster: &Path, scenario: &str) -> cluster::DayReplay {
    let read = |name: &str| cluster::ReadLog {
        path: data(name).display().to_string(),
        app: model::load(&data(name)).expect("log reads"),
    };
    let (first, mut second) = (read("skew_n1_r1.zstd"), read("multijob_n1_r1.zstd"));
    let at = first.app.config.properties["spark.app.submitTime"]
        .parse::<u64>()
        .expect("recorded submit time");
    second
        .app
        .config
        .properties
        .insert("spark.app.submitTime".into(), (at + 10_000).to_string());
    let dir = cluster.parent().expect("in a directory");
    let path = dir.join("faults.toml");
    std::fs::write(&path, scenario).expect("scenario written");
    let mut setup = day_setup(cluster);
    let loaded = sparkyard::scenario::load_for_faults(&path).expect("scenario loads");
    setup.scenario = Some(std::sync::Arc::new(loaded));
    let logs = cluster::ReadLogs {
        logs: vec![first, second],
        skipped: Vec::new(),
    };
    cluster::replay_logs_counted(logs, &setup).expect("the day runs")
}

/// `--scenario` ran everything twice: the day without the faults prepared every application
/// again (its start-up probe), and ran even for a scenario without faults. Each application is
/// prepared once; the second day runs only when there are faults to measure against it.
#[test]
fn a_scenario_runs_the_day_once_more_only_when_it_has_faults_and_prepares_once() {
    let none = "name = \"cluster only\"\n[submit]\n";
    let tmp = TestDir::new("day-count-none");
    let plain = overlapping_day_counted(&two_nodes(&tmp), none);
    let once = cluster::DaySimulations { probes: 2, days: 1 };
    assert_eq!(plain.simulations, once);
    // Without faults nothing is lost and nothing is later.
    assert_eq!(cost(&plain.report, 1).later_ms, 0);
    let faults = "name = \"second\"\n[submit]\n[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\napp = 2\non_executor_registered = 1\nafter_ms = 2000\n";
    let tmp = TestDir::new("day-count-faults");
    let hit = overlapping_day_counted(&two_nodes(&tmp), faults);
    let twice = cluster::DaySimulations { probes: 2, days: 2 };
    assert_eq!(hit.simulations, twice);
    // The retried task and the lost executor's work are launched again.
    assert!(
        cost(&hit.report, 1).extra_task_attempts > 0,
        "{:?}",
        cost(&hit.report, 1)
    );
}

/// Two nodes of 16 GiB and 8 vcores: both applications' containers share them (a cluster file
/// in `dir`).
fn two_nodes(dir: &TestDir) -> PathBuf {
    let path = dir.join("two.toml");
    let toml = "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 2\nmemory_mb = 16384\nvcores = 8\n";
    std::fs::write(&path, toml).expect("cluster file written");
    path
}

fn cost(day: &cluster_report::DayReport, i: usize) -> cluster_report::FaultCost {
    day.applications[i]
        .fault_cost
        .clone()
        .expect("a scenario ran")
}

#[test]
fn an_application_fault_hits_the_application_its_app_key_names_on_that_applications_trigger() {
    // `app = 2`: executor 1 of the second application, when the second application's
    // executor 1 registers (the first's executor 1 registered long before).
    let scenario = "name = \"second\"\n[submit]\n[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\napp = 2\non_executor_registered = 1\nafter_ms = 2000\n";
    let tmp = TestDir::new("day-app-fault");
    let day = overlapping_day(&two_nodes(&tmp), scenario);
    assert_eq!(day.faults_fired.len(), 1, "{:?}", day.faults_fired);
    assert_eq!(cost(&day, 0).executors_lost, 0, "{:?}", cost(&day, 0));
    assert_eq!(cost(&day, 1).executors_lost, 1, "{:?}", cost(&day, 1));
    for a in &day.applications {
        assert_eq!(a.outcome, "FINISHED/SUCCEEDED", "{}", a.path);
    }
}

#[test]
fn a_lost_node_hits_every_application_with_containers_on_it_and_each_reports_its_cost() {
    // The node of the second application's executor 1, 5 s after it registers: both
    // applications' AM containers are there (the first's was allocated 10 s earlier).
    let scenario = "name = \"node\"\n[submit]\n[[faults]]\nkind = \"kill-node\"\ntarget = \"executor:1\"\napp = 2\non_executor_registered = 1\nafter_ms = 5000\n";
    let tmp = TestDir::new("day-node-fault");
    let day = overlapping_day(&two_nodes(&tmp), scenario);
    assert_eq!(day.faults_fired.len(), 1, "{:?}", day.faults_fired);
    // Each lost its AM with the node: its second attempt starts once the RM has declared the
    // node LOST (yarn.nm.liveness-monitor.expiry-interval-ms, 10 min), so it ends 10 min or
    // more later than in the day without the fault.
    for i in 0..2 {
        let c = cost(&day, i);
        assert_eq!(c.am_attempts, 2, "application {}: {c:?}", i + 1);
        assert!(c.later_ms >= 600_000, "application {}: {c:?}", i + 1);
    }
    for a in &day.applications {
        assert_eq!(a.outcome, "FINISHED/SUCCEEDED", "{}: {a:?}", a.path);
    }
    // Without a scenario there is no cost to report.
    let tmp = TestDir::new("day-no-fault");
    let plain = cluster::replay_cluster(&[data("skew_n1_r1.zstd")], &day_setup(&two_nodes(&tmp)))
        .expect("the day runs");
    assert!(plain.applications[0].fault_cost.is_none());
}

#[test]
fn a_fault_aimed_past_the_days_applications_is_refused_naming_its_app() {
    let scenario =
        "name = \"third\"\n[submit]\n[[faults]]\nkind = \"kill-am\"\napp = 3\nat_ms = 1000\n";
    let dir = TestDir::new("day-past");
    let path = dir.join("third.toml");
    std::fs::write(&path, scenario).expect("scenario written");
    let cluster = big_cluster(dir.path());
    let (log, other) = (data("skew_n1_r1.zstd"), data("skew_n1_r2.zstd"));
    let (c, s, l) = (
        cluster.to_str().unwrap(),
        path.to_str().unwrap(),
        log.to_str().unwrap(),
    );
    let o = other.to_str().unwrap();
    let out = binary(&["replay-cluster", "--cluster", c, "--scenario", s, l, o]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("application 3 (app = 3)"), "{err}");
    // A single replay has one application: app = 3 is refused there too, app = 0 everywhere.
    let out = binary(&["replay", l, "--cluster", c, "--scenario", s]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let zero = scenario.replace("app = 3", "app = 0");
    std::fs::write(&path, zero).expect("scenario written");
    let out = binary(&["replay", l, "--cluster", c, "--scenario", s]);
    let err = text(&out.stderr);
    assert!(err.contains("applications count from 1"), "{err}");
}

#[test]
fn with_event_logs_on_every_application_writes_its_own_log_under_its_simulated_id() {
    let dir = TestDir::new("day-eventlogs");
    let cluster = big_cluster(dir.path());
    let out = dir.join("logs");
    // Spark's SparkContext refuses an event log directory that is not there.
    std::fs::create_dir_all(&out).expect("logs dir");
    let logs = [data("skew_n1_r1.zstd"), data("multijob_n1_r1.zstd")];
    let mut setup = day_setup(&cluster);
    setup.conf = vec![
        "spark.eventLog.enabled=true".into(),
        format!("spark.eventLog.dir={}", out.display()),
    ];
    let day = cluster::replay_cluster(&logs, &setup).expect("the day runs");
    for a in &day.applications {
        // One SparkContext each: one log, named and identified by the id the simulated RM gave.
        assert_eq!(a.event_logs.len(), 1, "{}: {:?}", a.path, a.event_logs);
        let id = a.yarn_app_id.clone().expect("submitted");
        let written = Path::new(&a.event_logs[0].path);
        assert!(written.starts_with(&out), "{}", written.display());
        let back = model::load(written).expect("sparkyard reads its own log back");
        assert_eq!(back.app_id, id, "{}", written.display());
        assert_eq!(back.app_name, a.name, "{}", written.display());
    }
    let ids: std::collections::BTreeSet<_> = day
        .applications
        .iter()
        .map(|a| a.yarn_app_id.clone())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    // Without the option, no application writes one.
    let plain = cluster::replay_cluster(&logs[..1], &day_setup(&cluster)).expect("runs");
    assert!(plain.applications[0].event_logs.is_empty());
}

#[test]
fn each_queues_usage_over_the_day_is_held_against_its_guarantee_with_what_it_waits_for() {
    // The README's one-node day: each application waits ACCEPTED for the AM before it, and
    // each driver for its executor.
    let one_node = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/one-node.toml");
    let logs = [
        data("skew_n1_r1.zstd"),
        data("multijob_n1_r1.zstd"),
        data("skew_n2_r1.zstd"),
    ];
    let day = cluster::replay_cluster(&logs, &day_setup(&one_node)).expect("the day runs");
    let q = &day.queues[0];
    assert!(q.usage.len() > 3, "{:?}", q.usage);
    for u in &q.usage {
        // An ACCEPTED application waits for its AM container.
        assert!(u.pending_containers >= u.pending_applications, "{u:?}");
        let percent = 100.0 * u.used_mb as f64 / q.guaranteed_mb as f64;
        assert!((u.percent_of_guaranteed - percent).abs() < 1e-9, "{u:?}");
    }
    // Executors asked for and not yet registered: more containers pending than AMs.
    assert!(
        q.usage
            .iter()
            .any(|u| u.pending_containers > u.pending_applications),
        "{:?}",
        q.usage
    );
    let last = q.usage.last().expect("points");
    assert_eq!(
        (
            last.used_mb,
            last.pending_applications,
            last.pending_containers
        ),
        (0, 0, 0)
    );
    let table = cluster_report::table(&day);
    assert!(
        table.contains("queue usage over the day") && table.contains("0.0%/1/1"),
        "{table}"
    );
}

#[test]
fn the_plot_of_the_days_queues_is_written_only_with_plot() {
    let dir = TestDir::new("day-plot");
    let cluster = dir.join("two-queues.toml");
    let toml = "[[nodes]]\nhost = \"nm-{n}.sparkyard.internal\"\ncount = 2\nmemory_mb = 8192\nvcores = 4\n\n[[queues]]\nname = \"default\"\ncapacity = 70\n\n[[queues]]\nname = \"etl\"\ncapacity = 30\n";
    std::fs::write(&cluster, toml).expect("cluster file written");
    let c = cluster.to_str().expect("utf-8");
    let log = data("skew_n1_r1.zstd");
    let l = log.to_str().expect("utf-8");
    let plot = dir.join("day.svg");
    let p = plot.to_str().expect("utf-8");
    let out = binary(&["replay-cluster", "--cluster", c, "--json", "--plot", p, l]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // --json prints only JSON; the plot has both queues and their guarantees.
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("only JSON");
    let svg = std::fs::read_to_string(&plot).expect("plot written");
    assert!(
        svg.contains("default (70 % guaranteed: 11468 MiB)")
            && svg.contains("etl (30 % guaranteed: 4915 MiB)"),
        "{svg}"
    );
    let again = binary(&["replay-cluster", "--cluster", c, "--json", "--plot", p, l]);
    assert_eq!(out.stdout, again.stdout);
    assert_eq!(svg, std::fs::read_to_string(&plot).expect("again"));
    std::fs::remove_file(&plot).expect("removed");
    let out = binary(&["replay-cluster", "--cluster", c, l]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!plot.exists() && !text(&out.stdout).contains("plot:"));
}

/// `replay-cluster --json --scenario` of a scenario written from `text`, over skew_n1_r1 and
/// multijob_n1_r1 (submitted 176 s later): the day's JSON report.
fn day_with_scenario(name: &str, text: &str) -> serde_json::Value {
    let dir = TestDir::new(&format!("day-{name}"));
    let file = dir.join("scenario.toml");
    std::fs::write(&file, text).expect("writes");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sparkyard"))
        .args(["replay-cluster", "--json", "--scenario"])
        .arg(&file)
        .arg(data("skew_n1_r1.zstd"))
        .arg(data("multijob_n1_r1.zstd"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Each application's fault cost: (AM attempts, ms later than the day without the scenario).
fn costs(day: &serde_json::Value) -> Vec<(u64, u64)> {
    day["applications"]
        .as_array()
        .expect("applications")
        .iter()
        .map(|a| {
            let c = &a["fault_cost"];
            let n = |k: &str| c[k].as_u64().expect(k);
            (n("am_attempts"), n("later_ms"))
        })
        .collect()
}

const SUBMIT: &str = "[submit]\nclass = \"org.apache.spark.examples.SparkPi\"\n";

/// Issue 28: a driver fault aims at the application its `app` names (it used to act on the
/// first application only): `no-spark-context` in the second application's first AM attempt
/// costs that application a second attempt and leaves the first alone.
#[test]
fn a_driver_fault_acts_on_the_application_it_names() {
    let text = format!(
        "name = \"driver-fault\"\n{SUBMIT}[[faults]]\nkind = \"no-spark-context\"\napp = 2\n"
    );
    let day = day_with_scenario("driver-fault", &text);
    let attempts: Vec<u64> = costs(&day).iter().map(|c| c.0).collect();
    assert_eq!(attempts, vec![1, 2]);
}

/// Issue 28: a network rule's `driver` is its own application's AM (it matched every
/// application's): a 3 s delay on everything the second application's driver sends the RM,
/// armed at the day's start, waits for that application's id and slows only its AM; the first
/// application ends as in the day without it.
#[test]
fn a_network_rules_driver_is_its_own_applications_am() {
    let text = format!(
        "name = \"delay\"\n{SUBMIT}[[faults]]\nkind = \"delay\"\nfrom = \"driver\"\nto = \"rm\"\ndelay_ms = 3000\nat_ms = 0\nduration_ms = 100000000\napp = 2\n"
    );
    let day = day_with_scenario("delay", &text);
    let c = costs(&day);
    assert_eq!(c[0], (1, 0), "the first application is untouched");
    assert!(c[1].1 > 0, "the second application ends later: {c:?}");
}
