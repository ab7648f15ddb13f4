//! `sparkyard what-if-cluster` on the committed real Spark 4.0 logs: one configuration under
//! one seed is `replay-cluster`'s day to the millisecond; a small grid of nodes and a queue's
//! capacity marks the cheapest configuration meeting every deadline; Spark keys reach the
//! applications their glob names; bad grids are clear errors; the same seeds give the same
//! bytes, and `--json` prints only JSON.

use crate::common::{TestDir, assert_user_error, binary, data, text};
use sparkyard::replay::cluster::{self, DaySetup};
use sparkyard::replay::cluster_grid;
use sparkyard::replay::cluster_whatif::{self, DayWhatIf, DayWhatIfTable};
use std::path::{Path, PathBuf};

/// Two queues on `nodes` NodeManagers of 8 GiB and 4 vcores: `default` (70 %) and `etl`
/// (30 %, up to the whole cluster, half of it for AMs).
fn two_queues(dir: &Path, nodes: u32) -> PathBuf {
    let path = dir.join("two-queues.toml");
    let toml = format!(
        "[[nodes]]\nhost = \"nm-{{n}}.sparkyard.internal\"\ncount = {nodes}\nmemory_mb = 8192\nvcores = 4\n\n\
         [[queues]]\nname = \"default\"\ncapacity = 70\n\n\
         [[queues]]\nname = \"etl\"\ncapacity = 30\nmaximum-capacity = 100\nmaximum-am-resource-percent = 0.5\n"
    );
    std::fs::write(&path, toml).expect("cluster file written");
    path
}

/// Five committed logs, submitted over five minutes.
fn five_logs() -> Vec<PathBuf> {
    [
        "skew_n1_r1.zstd",
        "skew_n1_r2.zstd",
        "multijob_n1_r1.zstd",
        "multijob_n1_r2.zstd",
        "skew_n2_r1.zstd",
    ]
    .iter()
    .map(|n| data(n))
    .collect()
}

fn setup(cluster: &Path, seed: u64) -> DaySetup {
    DaySetup {
        cluster: Some(cluster.to_path_buf()),
        scenario: None,
        seed,
        queue_map: Default::default(),
        skip_bad: false,
        deadlines: Vec::new(),
        conf: Vec::new(),
    }
}

fn what_if(grid: &[&str], seeds: std::ops::Range<u64>) -> DayWhatIf {
    let specs: Vec<String> = grid.iter().map(|s| s.to_string()).collect();
    DayWhatIf {
        grid: cluster_grid::parse(&specs).expect("grid parses"),
        seeds,
        jobs: 2,
    }
}

#[test]
fn one_configuration_under_one_seed_is_replay_clusters_day_to_the_millisecond() {
    let dir = TestDir::new("wic-same");
    let cluster = two_queues(dir.path(), 2);
    let logs = five_logs();
    let s = setup(&cluster, 42);
    let day = cluster::replay_cluster(&logs, &s).expect("the day runs");
    // `nodes=2` is the cluster file's own size: the configuration is the day as it is.
    let t = cluster_whatif::run(&logs, &s, &what_if(&["nodes=2"], 42..43)).expect("runs");
    let row = &t.rows[0];
    assert_eq!(row.runs, 1);
    let seed = &row.seeds[0];
    assert_eq!(seed.day_ms, day.day_ms);
    for (a, b) in day.applications.iter().zip(&seed.applications) {
        assert_eq!(a.simulated_ms, b.simulated_ms, "{}", a.path);
        assert_eq!(a.accepted_ms, b.accepted_ms, "{}", a.path);
    }
    assert_eq!(
        row.applications[2].p50_ms,
        Some(day.applications[2].simulated_ms)
    );
}

fn grid_table(dir: &Path) -> DayWhatIfTable {
    let cluster = two_queues(dir, 2);
    let mut s = setup(&cluster, 42);
    s.queue_map = [("default".to_string(), "etl".to_string())].into();
    s.deadlines = sparkyard::replay::cluster_deadline::parse_deadlines(&["*multijob=2min".into()])
        .expect("deadline parses");
    let w = what_if(&["nodes=1,2,4", "queue.etl.capacity=30,60"], 1..3);
    cluster_whatif::run(&five_logs(), &s, &w).expect("runs")
}

#[test]
fn the_cheapest_configuration_meeting_every_deadline_is_the_least_memory_that_does() {
    let dir = TestDir::new("wic-grid");
    let t = grid_table(dir.path());
    assert_eq!(t.rows.len(), 6);
    // Every application in `etl` (mapped): with 30 % of the cluster, half of it for AMs, one AM
    // runs at a time (CapacityScheduler's AM resource limit, as the README's one-node day), so
    // the multijob applications wait ACCEPTED behind the skew ones and miss their 2 min.
    let misses: Vec<u64> = t.rows.iter().map(|r| r.deadline_misses).collect();
    let cheapest: Vec<bool> = t
        .rows
        .iter()
        .map(|r| r.cheapest_meeting_deadlines)
        .collect();
    assert!(misses[0] > 0 && misses[2] > 0, "{misses:?}");
    let first_met = t
        .rows
        .iter()
        .position(|r| r.meets_every_deadline == Some(true))
        .expect("some configuration meets every deadline");
    // Of those meeting every deadline, the marked one has the least memory.
    let marked = cheapest.iter().position(|&c| c).expect("one is marked");
    assert_eq!(cheapest.iter().filter(|&&c| c).count(), 1);
    for r in t
        .rows
        .iter()
        .filter(|r| r.meets_every_deadline == Some(true))
    {
        assert!(t.rows[marked].memory_mb <= r.memory_mb);
    }
    assert!(marked >= first_met);
    // The queue's capacity moved the other queue's: they add up to 100.
    let r = &t.rows[1];
    let caps: Vec<f64> = r.queues.iter().map(|q| q.capacity_percent).collect();
    assert_eq!(caps, [40.0, 60.0]);
    // Per queue and per application figures over the two seeds.
    let etl = &r.queues[1];
    assert!(etl.app_p50_ms.is_some() && etl.done_p90_ms >= etl.done_p50_ms);
    assert!(r.applications.iter().all(|a| a.p50_ms <= a.p90_ms));
}

#[test]
fn a_spark_key_with_a_glob_reaches_only_the_applications_it_names() {
    let dir = TestDir::new("wic-glob");
    let cluster = two_queues(dir.path(), 4);
    let s = setup(&cluster, 42);
    let logs = vec![data("skew_n2_r1.zstd"), data("multijob_n2_r1.zstd")];
    let w = what_if(&["*skew:num-executors=1,2"], 42..43);
    let t = cluster_whatif::run(&logs, &s, &w).expect("runs");
    let time = |row: usize, app: usize| t.rows[row].applications[app].p50_ms;
    let skew = t
        .applications
        .iter()
        .position(|a| a.name.ends_with("skew"))
        .expect("skew");
    let other = 1 - skew;
    assert_ne!(time(0, skew), time(1, skew), "the skew job's executors");
    assert_eq!(time(0, other), time(1, other), "multijob is not named");
}

#[test]
fn bad_grids_are_clear_errors_and_an_impossible_configuration_is_a_refused_row() {
    let dir = TestDir::new("wic-bad");
    let cluster = two_queues(dir.path(), 2);
    let c = cluster.to_str().expect("utf-8");
    let log = data("skew_n1_r1.zstd");
    let l = log.to_str().expect("utf-8");
    for (grid, needle) in [
        (
            "queue.adhoc.capacity=10",
            "queue 'adhoc' is not a queue of the cluster (its queues: default, etl)",
        ),
        (
            "etl-*:spark.executor.cores=2",
            "'etl-*' matches no application",
        ),
        ("spark.nosuch.key=1", "spark.nosuch.key"),
    ] {
        let out = binary(&["what-if-cluster", "--cluster", c, "--grid", grid, l]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_user_error(&["what-if-cluster", grid], out.status.code(), &all, needle);
    }
    // 120 % for etl cannot be; 50 % can: the first row says why, the second runs.
    let out = binary(&[
        "what-if-cluster",
        "--cluster",
        c,
        "--grid",
        "queue.etl.capacity=120,50",
        l,
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("row 1: refused: --grid queue.etl.capacity=120: the grid's queue capacities add up to 120, more than 100"),
        "{stdout}"
    );
    assert!(text(&out.stderr).contains("1 of 2 configurations could not run"));
}

#[test]
fn the_same_seeds_give_the_same_bytes_and_json_prints_only_json() {
    let dir = TestDir::new("wic-bytes");
    let cluster = two_queues(dir.path(), 2);
    let c = cluster.to_str().expect("utf-8");
    let (a, b) = (data("skew_n1_r1.zstd"), data("multijob_n1_r1.zstd"));
    let plot = dir.join("day.svg");
    let args = [
        "what-if-cluster",
        "--json",
        "--cluster",
        c,
        "--scenario",
        concat!(env!("CARGO_MANIFEST_DIR"), "/config/scenarios/chaos.toml"),
        "--grid",
        "nodes=2,3",
        "--seeds",
        "1..4",
        a.to_str().expect("utf-8"),
        b.to_str().expect("utf-8"),
    ];
    let with_plot = [&args[..], &["--plot", plot.to_str().expect("utf-8")]].concat();
    let first = binary(&with_plot);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let svg = std::fs::read_to_string(&plot).expect("the plot is written");
    let again = binary(&with_plot);
    assert_eq!(first.stdout, again.stdout, "same seeds, same bytes");
    assert_eq!(svg, std::fs::read_to_string(&plot).expect("again"));
    let json: serde_json::Value = serde_json::from_slice(&first.stdout).expect("only JSON");
    let rows = json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["seeds"].as_array().expect("seeds").len(), 3);
    // The chaos scenario's faults fired in some seed.
    assert!(
        rows.iter()
            .flat_map(|r| r["seeds"].as_array().expect("seeds"))
            .any(|s| !s["faults_fired"].as_array().expect("faults").is_empty())
    );
    assert!(svg.contains("<svg") && svg.contains("what-if-cluster"));
    // Without --plot, no plot.
    let _ = std::fs::remove_file(&plot);
    let out = binary(&args);
    assert_eq!(out.status.code(), Some(0));
    assert!(!plot.exists());
}

#[test]
fn the_help_says_how_the_cheapest_configuration_is_chosen() {
    let out = binary(&["what-if-cluster", "--help"]);
    let help = text(&out.stdout);
    assert!(
        help.contains("the least NodeManager memory in total")
            && help.contains("then the fewest vcores")
            && help.contains("queue.NAME.FIELD"),
        "{help}"
    );
}
