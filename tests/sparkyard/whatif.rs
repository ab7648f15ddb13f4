//! `sparkyard what-if`: only JSON with `--json` and no plot unless asked, failed and refused
//! configurations with their reasons, categorical plot axes, per-seed results (`--explain`:
//! faults with targets, executors over time, critical path), executors used under dynamic
//! allocation, its CLI edges, and the README's accuracy statement per kind of what-if on the
//! committed real Spark 4.0 logs (local-cluster, N = 1, 2, 4).

use crate::common::{TestDir, data, setup};
use sparkyard::replay::simulate::ReplaySetup;
use sparkyard::replay::whatif::{self, WhatIf, WhatIfTable};
use std::path::Path;
use std::process::Output;

fn what_if(log: &Path, grid: &[&str], seeds: std::ops::Range<u64>, s: &ReplaySetup) -> WhatIfTable {
    let w = WhatIf {
        grid: whatif::parse_grid(&grid.iter().map(|g| g.to_string()).collect::<Vec<_>>())
            .expect("grid"),
        seeds,
        jobs: 2,
        target_p90_ms: None,
        price_core_hour: 0.0,
        price_gb_hour: 0.0,
    };
    whatif::run(log, s, &w).expect("runs")
}

/// The binary, run in `dir` (where a default plot would land).
fn binary_in(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sparkyard"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env_remove("SPARK_CONF_DIR")
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn json_is_only_json_and_no_plot_is_written_unless_asked() {
    let dir = TestDir::new("whatif-json");
    let log = data("multijob_n2_r1.zstd");
    let log = log.to_str().expect("utf-8");
    let out = binary_in(
        dir.path(),
        &["what-if", log, "--grid", "num-executors=1,2", "--json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(2));
    let files: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert!(files.is_empty(), "no --plot, yet {files:?} were written");
    let out = binary_in(
        dir.path(),
        &[
            "what-if",
            log,
            "--grid",
            "num-executors=1,2",
            "--json",
            "--plot",
            "p.svg",
        ],
    );
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("still only JSON");
    assert!(dir.join("p.svg").exists());
    let out = binary_in(
        dir.path(),
        &[
            "what-if",
            log,
            "--grid",
            "num-executors=1",
            "--plot",
            "q.svg",
        ],
    );
    assert!(
        text(&out.stdout).ends_with("plot: q.svg\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn cli_edges_are_refused_in_what_ifs_own_words() {
    let dir = TestDir::new("whatif-edges");
    let log = data("multijob_n2_r1.zstd");
    let log = log.to_str().expect("utf-8");
    let cases: [(&[&str], &str); 7] = [
        (
            &["--grid", "spark.executor.instancs=1,2"],
            "did you mean 'spark.executor.instances'",
        ),
        (
            &["--grid", "spark.sql.shuffle.partitions=1,2"],
            "sparkyard does not simulate 'spark.sql.shuffle.partitions'",
        ),
        (
            &["--grid", "num-executors=1", "--target-p90", "40"],
            "a number without a unit is milliseconds to Spark",
        ),
        (
            &["--grid", "num-executors=1", "--target-p90", "40sec"],
            "--target-p90 40sec: not a duration",
        ),
        (
            &["--grid", "num-executors=1", "--seeds", "5..1"],
            "sparkyard what-if: --seeds 5..1: the range is empty",
        ),
        (
            &["--grid", "num-executors=1", "--price-core-hour", "-1"],
            "--price-core-hour -1: a price is a number of 0 or more",
        ),
        (
            &["--grid", "num-executors=1", "--price-gb-hour", "-0.5"],
            "--price-gb-hour -0.5: a price is a number of 0 or more",
        ),
    ];
    for (args, expected) in cases {
        let mut all = vec!["what-if", log];
        all.extend_from_slice(args);
        let out = binary_in(dir.path(), &all);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        for wrong in ["--verbose", "NumberFormatException", "sweep"] {
            assert!(!err.contains(wrong), "{args:?} mentions {wrong}: {err}");
        }
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_refused_grid_value_is_named_and_the_other_rows_still_run() {
    let dir = TestDir::new("whatif-refused");
    let log = data("multijob_n2_r1.zstd");
    let out = binary_in(
        dir.path(),
        &[
            "what-if",
            log.to_str().expect("utf-8"),
            "--grid",
            "num-executors=0,1",
        ],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // SparkSubmitArguments.validateSubmitArguments: "Number of executors must be a positive
    // number" for --num-executors 0.
    let why = "row 1: refused: --grid num-executors=0: org.apache.spark.SparkException: Number of executors must be a positive number";
    assert!(stdout.contains(why), "{stdout}");
    assert!(
        stderr.contains("1 of 2 configurations could not run"),
        "{stderr}"
    );
    assert!(!stderr.contains("--verbose"), "{stderr}");
    let row2 = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("2 "))
        .expect("row 2");
    assert!(row2.contains("0/1"), "{stdout}");
    // Every configuration refused: the error is the first one's reason.
    let w = WhatIf {
        grid: whatif::parse_grid(&["num-executors=0".into()]).expect("grid"),
        seeds: 1..2,
        jobs: 1,
        target_p90_ms: None,
        price_core_hour: 0.0,
        price_gb_hour: 0.0,
    };
    let e = whatif::run(&log, &setup(&[]), &w)
        .expect_err("nothing runs")
        .to_string();
    assert!(
        e.contains("--grid num-executors=0: org.apache.spark.SparkException"),
        "{e}"
    );
}

#[test]
fn failed_configurations_say_why_and_are_not_drawn_as_zero() {
    let dir = TestDir::new("whatif-failed");
    let log = data("multijob_n2_r1.zstd");
    let t = what_if(
        &log,
        &[
            "executor-memory=512m,1g,100g",
            "spark.speculation=true,false",
        ],
        1..2,
        &setup(&[]),
    );
    let failed: Vec<&whatif::ConfigRow> = t.rows.iter().filter(|r| r.values[0] == "100g").collect();
    assert_eq!(failed.len(), 2);
    for r in failed {
        assert_eq!(
            (r.p50_ms, r.p90_ms, r.band, r.failed_runs),
            (None, None, None, 1)
        );
        // Client.verifyClusterResources: the executor does not fit YARN's largest container.
        let why = r.failure.as_deref().expect("a reason");
        assert!(
            why.starts_with(
                "java.lang.IllegalArgumentException: Required executor memory (102400 MB)"
            ) && why.contains("is above the max threshold (8192 MB) of this cluster!"),
            "{why}"
        );
    }
    let table = whatif::text(&t);
    assert!(
        table.contains(
            "1 of 1 runs failed (`--explain 5` for each): java.lang.IllegalArgumentException"
        ),
        "{table}"
    );
    assert!(!table.contains(" 0.00 "), "{table}");
    let svg = dir.join("plot.svg");
    sparkyard::replay::plot::write_svg(&t, &svg).expect("plot");
    let svg = std::fs::read_to_string(&svg).expect("svg");
    // The categorical axis is labelled by its values; the failed ones are counted, not drawn.
    for label in [
        "\n512m\n",
        "\n1g\n",
        "\n100g\n",
        "spark.speculation=true",
        "spark.speculation=false",
    ] {
        assert!(svg.contains(label), "{label:?} missing");
    }
    assert!(svg.contains("2 configuration(s) with no successful run not drawn"));
}

#[test]
fn explain_traces_a_p90_to_its_seeds_faults_executors_and_critical_path() {
    let log = data("multijob_n2_r1.zstd");
    let mut s = setup(&[]);
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenarios/chaos.toml");
    s.scenario = Some(std::sync::Arc::new(
        sparkyard::scenario::load(&scenario).expect("chaos scenario"),
    ));
    let t = what_if(&log, &["num-executors=1,2"], 1..9, &s);
    let r = &t.rows[1];
    assert_eq!(r.seeds.len(), 8);
    let p90 = r.p90_ms.expect("runs succeeded");
    assert!(r.seeds.iter().any(|x| x.succeeded && x.app_ms == p90));
    let mut targets = 0;
    for seed in &r.seeds {
        let total: u64 = seed
            .critical_path
            .iter()
            .map(|p| match p {
                whatif::PathStep::StartUp { ms } | whatif::PathStep::Driver { ms } => *ms,
                whatif::PathStep::Job { ms, .. } => *ms,
            })
            .sum();
        assert_eq!(
            total, seed.app_ms,
            "seed {}: {:?}",
            seed.seed, seed.critical_path
        );
        assert!(seed.executors_peak as f64 >= seed.executors_mean);
        assert!(seed.executors_running.len() <= 60);
        targets += seed
            .faults_fired
            .iter()
            .filter(|f| f.target != sparkyard_actors::simulation::trace::FaultTarget::Nothing)
            .count();
        assert!(
            seed.faults_fired
                .windows(2)
                .all(|w| w[0].at_ms <= w[1].at_ms)
        );
    }
    assert!(
        targets > 0,
        "chaos over 8 seeds fired no fault with a target"
    );
    let text = whatif::explain(&t, 2).expect("row 2");
    // Slowest first: the seed at the p90 comes before the p50's.
    let first = text
        .lines()
        .find(|l| l.starts_with("seed "))
        .expect("a seed line");
    assert!(first.contains("(at or above the p90)"), "{text}");
    assert!(text.contains("critical path: start-up "), "{text}");
    assert!(text.contains("fault at "), "{text}");
    assert!(whatif::explain(&t, 3).is_err());
    // The JSON carries the same per-seed records.
    let v: serde_json::Value = serde_json::from_str(&whatif::json(&t)).expect("json");
    assert_eq!(v["rows"][1]["seeds"].as_array().map(Vec::len), Some(8));
    assert!(v["rows"][1]["seeds"][0]["critical_path"][0]["kind"] == "start_up");
}

#[test]
fn dynamic_allocation_rows_show_the_executors_used() {
    // With dynamic allocation num-executors is only the initial target
    // (Utils.getDynamicAllocationInitialExecutors): the row says what was used.
    let log = data("skew_n2_r1.zstd");
    let s = setup(&[
        "--conf",
        "spark.dynamicAllocation.enabled=true",
        "--num-executors",
        "1",
    ]);
    let t = what_if(
        &log,
        &["spark.dynamicAllocation.maxExecutors=1,4"],
        1..3,
        &s,
    );
    let (one, four) = (&t.rows[0], &t.rows[1]);
    assert_eq!(one.executors_peak, Some(1));
    assert!(
        four.executors_peak.expect("ran") > 1,
        "{:?}",
        four.executors_peak
    );
    assert!(four.executors_peak.expect("ran") <= 4);
    for r in [one, four] {
        assert!(r.executors_mean > 0.0 && r.executors_mean <= r.executors_peak.unwrap_or(0) as f64);
        let mean_hours: f64 =
            r.seeds.iter().map(|x| x.executor_hours).sum::<f64>() / r.seeds.len() as f64;
        assert!((mean_hours - r.executor_hours).abs() < 1e-12);
    }
    let table = whatif::text(&t);
    assert!(
        table.contains("exec peak") && table.contains("exec mean"),
        "{table}"
    );
}

/// The committed real logs' zstd runs: (app, executors, run) -> file.
fn logs() -> Vec<(&'static str, u32, u32)> {
    let mut v = Vec::new();
    for app in ["skew", "multijob"] {
        for n in [1, 2, 4] {
            for r in [1, 2] {
                v.push((app, n, r));
            }
        }
    }
    v
}

/// Errors (%) of one kind of what-if, and how many of their bands held the recorded time.
#[derive(Debug, Default)]
struct Kind {
    errors: Vec<f64>,
    /// Each error's what-if: `app from -> to`.
    labels: Vec<String>,
    covered: usize,
}

impl Kind {
    fn add(
        &mut self,
        label: String,
        predicted_ms: u64,
        band: Option<sparkyard::replay::accuracy::Band>,
        recorded_ms: f64,
    ) {
        self.labels.push(label);
        self.errors
            .push(100.0 * (predicted_ms as f64 - recorded_ms) / recorded_ms);
        if band.is_some_and(|b| b.contains(recorded_ms.round() as u64)) {
            self.covered += 1;
        }
    }
    fn mean_abs(&self) -> f64 {
        self.errors.iter().map(|e| e.abs()).sum::<f64>() / self.errors.len() as f64
    }
    fn min(&self) -> f64 {
        self.errors.iter().copied().fold(f64::MAX, f64::min)
    }
    fn max(&self) -> f64 {
        self.errors.iter().copied().fold(f64::MIN, f64::max)
    }
}

/// Own configuration (replay), fewer and more executors (what-if from each log to each other
/// N, against the mean of the target N's two recorded runs).
fn accuracy_by_kind() -> [Kind; 3] {
    let mut recorded: std::collections::BTreeMap<(&str, u32), Vec<f64>> = Default::default();
    let apps: Vec<_> = logs()
        .into_iter()
        .map(|(app, n, r)| {
            let path = data(&format!("{app}_n{n}_r{r}.zstd"));
            let model = sparkyard::replay::model::load(&path).expect("reads");
            recorded
                .entry((app, n))
                .or_default()
                .push(model.duration_ms() as f64);
            (app, n, path)
        })
        .collect();
    let mean = |app: &str, n: u32| {
        let v = &recorded[&(app, n)];
        v.iter().sum::<f64>() / v.len() as f64
    };
    let [mut own, mut fewer, mut more] = [Kind::default(), Kind::default(), Kind::default()];
    for (app, n, path) in &apps {
        let r = sparkyard::replay::replay(path, &setup(&[])).expect("replays");
        let a = r.accuracy.expect("a band");
        own.add(
            format!("{app} {n} -> {n}"),
            r.time.simulated as u64,
            a.band,
            r.time.recorded,
        );
        let t = what_if(path, &["num-executors=1,2,4"], 1..2, &setup(&[]));
        for row in &t.rows {
            let to: u32 = row.values[0].parse().expect("n");
            let kind = match to.cmp(n) {
                std::cmp::Ordering::Less => &mut fewer,
                std::cmp::Ordering::Greater => &mut more,
                std::cmp::Ordering::Equal => continue,
            };
            kind.add(
                format!("{app} {n} -> {to}"),
                row.p50_ms.expect("ran"),
                row.band,
                mean(app, to),
            );
        }
    }
    [own, fewer, more]
}

/// One line of the README's statement: a kind of what-if, how many were measured, the mean
/// |error| at most, the signed errors' range, and how many bands held the recorded time.
struct Stated {
    kind: &'static str,
    count: usize,
    mean_abs_at_most: f64,
    errors_within: (f64, f64),
    bands_holding: usize,
}

const STATEMENT: [Stated; 3] = [
    Stated {
        kind: "own configuration",
        count: 12,
        mean_abs_at_most: 1.0,
        errors_within: (-2.0, 2.0),
        bands_holding: 12,
    },
    Stated {
        kind: "fewer executors",
        count: 12,
        mean_abs_at_most: 121.0,
        errors_within: (12.0, 278.0),
        bands_holding: 3,
    },
    Stated {
        kind: "more executors",
        count: 12,
        mean_abs_at_most: 41.0,
        errors_within: (-61.0, -7.0),
        bands_holding: 4,
    },
];

#[test]
fn the_readme_accuracy_per_kind_of_what_if_holds_on_the_committed_logs() {
    let kinds = accuracy_by_kind();
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    for (k, Stated { kind: name, .. }) in kinds.iter().zip(&STATEMENT) {
        println!(
            "{name}: {} what-ifs, mean |error| {:.1} %, errors {:+.1} % to {:+.1} %, band holds the recorded time in {} ({:?})",
            k.errors.len(),
            k.mean_abs(),
            k.min(),
            k.max(),
            k.covered,
            k.labels
                .iter()
                .zip(&k.errors)
                .map(|(l, e)| format!("{l}: {e:+.1}"))
                .collect::<Vec<_>>()
        );
    }
    for (k, stated) in kinds.iter().zip(&STATEMENT) {
        let Stated {
            kind: name,
            count,
            mean_abs_at_most: mean_abs,
            errors_within: (lo, hi),
            bands_holding: covered,
        } = *stated;
        assert_eq!(k.errors.len(), count, "{name}");
        assert!(
            k.mean_abs() <= mean_abs,
            "{name}: mean |error| {:.1} % > {mean_abs} %",
            k.mean_abs()
        );
        assert!(
            k.min() >= lo && k.max() <= hi,
            "{name}: errors {:+.1}..{:+.1} % outside {lo}..{hi} %",
            k.min(),
            k.max()
        );
        assert_eq!(
            k.covered, covered,
            "{name}: bands holding the recorded time"
        );
        // The README states exactly these bounds.
        let line = format!(
            "| {name} | {count} | at most {mean_abs:.0} % | {lo:+.0} % to {hi:+.0} % | {covered} of {count} |"
        );
        assert!(readme.contains(&line), "README lacks the line `{line}`");
    }
}

#[test]
fn a_replay_with_a_scenario_lists_the_faults_fired_and_carries_a_band() {
    let log = data("multijob_n2_r1.zstd");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenarios/chaos.toml");
    let mut s = setup(&["--seed", "3"]);
    s.scenario = Some(std::sync::Arc::new(
        sparkyard::scenario::load(&scenario).expect("chaos scenario"),
    ));
    let r = sparkyard::replay::replay(&log, &s).expect("replays");
    let fired = r.faults_fired.as_ref().expect("a scenario was given");
    assert!(!fired.is_empty(), "chaos seed 3 fired nothing");
    let table = sparkyard::replay::report::table(&r);
    for f in fired {
        assert!(table.contains(&f.label), "{table}");
    }
    // The band's own-configuration error comes from a run without the scenario's faults.
    let own = sparkyard::replay::replay(&log, &setup(&[])).expect("replays");
    assert_eq!(own.faults_fired, None);
    let (a, b) = (r.accuracy.expect("band"), own.accuracy.expect("band"));
    assert_eq!(a.basis, b.basis);
    assert!(b.band.expect("ran").contains(own.time.recorded as u64));
    assert!(table.contains("band p10-p90"), "{table}");
}

#[test]
fn explain_names_each_faults_target_and_the_faults_that_never_fired() {
    let dir = TestDir::new("whatif-faults");
    let file = dir.join("faults.toml");
    std::fs::write(
        &file,
        r#"name = "what-if faults"
[submit]
class = "org.sparkyard.examples.SyntheticJob"

[[faults]]
kind = "kill-executor"
label = "SIGKILL executor 1 once its first task starts"
on_task_started = [0, 0]
executor = 1
exit = 137

[[faults]]
kind = "kill-executor"
label = "never: the log has no stage 99"
on_task_started = [99, 0]
executor = 2
"#,
    )
    .expect("scenario written");
    let mut s = setup(&[]);
    s.scenario = Some(std::sync::Arc::new(
        sparkyard::scenario::load(&file).expect("scenario"),
    ));
    let t = what_if(&data("multijob_n2_r1.zstd"), &["num-executors=2"], 1..3, &s);
    for seed in &t.rows[0].seeds {
        assert_eq!(seed.faults_fired.len(), 1, "seed {}", seed.seed);
        let f = &seed.faults_fired[0];
        // The kill found executor 1's container: the typed target names it.
        let sparkyard_actors::simulation::trace::FaultTarget::Container(c) = &f.target else {
            panic!("seed {}: {:?}", seed.seed, f.target)
        };
        assert!(f.at_ms > seed.context_started_ms, "{f:?}");
        assert_eq!(
            seed.faults_unfired,
            vec!["never: the log has no stage 99".to_string()]
        );
        let text = whatif::explain(&t, 1).expect("row 1");
        assert!(
            text.contains(&format!(
                "SIGKILL executor 1 once its first task starts -> container {c}"
            )),
            "{text}"
        );
        assert!(
            text.contains(
                "fault never fired (its trigger did not happen): never: the log has no stage 99"
            ),
            "{text}"
        );
    }
}
