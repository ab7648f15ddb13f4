//! `[[workload.applications]]` (issue 28 item 4): applications that arrive without event logs
//! (fixed times or a seeded Poisson rate; a bundled program, a synthetic workload or an event
//! log) all run on the scenario's one cluster; `run` reports each; `[expect]` counts them.

use crate::common::{binary, text};
use sparkyard::arrivals;
use sparkyard::scenario;
use std::path::{Path, PathBuf};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sparkyard-arrivals-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenarios/adhoc-on-nightly.toml")
}

/// A scenario file in `dir` with a 16-node cluster (one `default` queue) and `body`.
fn scenario_file(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("s.toml");
    let text = format!(
        "name = \"t\"\n[[cluster.nodes]]\nhost = \"nm-{{n}}.sparkyard.internal\"\ncount = 16\nmemory_mb = 65536\nvcores = 16\n{body}"
    );
    std::fs::write(&path, text).expect("scenario written");
    path
}

/// The bundled day: nightly ETL at fixed times in `etl`, ad-hoc queries at a Poisson rate in
/// `adhoc`, every application ends SUCCEEDED; the run is deterministic, and `--seed` draws
/// other arrivals (issue 30 item 1).
#[test]
fn the_bundled_day_runs_every_application_and_the_seed_draws_its_arrivals() {
    let s = scenario::load(&bundled()).expect("loads");
    let a = arrivals::run_scenario(&s, None).expect("runs");
    assert!(a.failures.is_empty(), "{:?}", a.failures);
    let apps = &a.run.applications;
    let etl = apps.iter().filter(|x| x.queue == "etl").count();
    let adhoc = apps.iter().filter(|x| x.queue == "adhoc").count();
    assert_eq!(etl, 3);
    assert!(
        (70..130).contains(&adhoc),
        "{adhoc} ad-hoc queries for ~100 an hour"
    );
    assert_eq!(a.run.succeeded(), apps.len());
    // YARN numbers the applications in submission order.
    let ids: Vec<String> = apps.iter().filter_map(|x| x.yarn_app_id.clone()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(ids.len(), apps.len());
    // The ETL holds the cluster while it runs: some ad-hoc query waits ACCEPTED for it.
    assert!(
        apps.iter()
            .any(|x| x.queue == "adhoc" && x.accepted_ms.unwrap_or(0) > 10_000),
        "no ad-hoc query waited"
    );
    let again = arrivals::run_scenario(&s, None).expect("runs again");
    let text = arrivals::report_text;
    assert_eq!(text(&a.run), text(&again.run), "not deterministic");
    let other = arrivals::run_scenario(&s, Some(7)).expect("seed 7");
    let times = |r: &arrivals::ArrivalsRun| -> Vec<u64> {
        r.applications.iter().map(|x| x.submitted_at_ms).collect()
    };
    assert_ne!(times(&a.run), times(&other.run));
}

/// A synthetic workload, a bundled program and an event log in one run: each is what it
/// says (the log's tasks, SparkPi's slices, the workload's tasks), with its own settings, and
/// where nothing competes two arrivals of one log take the same time.
#[test]
fn each_kind_of_program_runs_with_its_own_settings() {
    let dir = temp_dir("kinds");
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/eventlogs/multijob_n2_r1.zstd");
    let body = format!(
        "[[workload.applications]]\nname = \"synthetic\"\nqueue = \"default\"\nat_ms = [0]\napp_name = \"Synth\"\nnum_executors = 3\n[[workload.applications.jobs]]\ncall_site = \"count at S.scala:1\"\n[[workload.applications.jobs.stages]]\nname = \"map at S.scala:1\"\ntasks = 12\nduration = {{ fixed_ms = 1000 }}\n\n[[workload.applications]]\nname = \"pi\"\nqueue = \"default\"\nuser = \"ann\"\nat_ms = [1000]\nclass = \"org.apache.spark.examples.SparkPi\"\nargs = [\"5\"]\n\n[[workload.applications]]\nname = \"logged\"\nqueue = \"default\"\nat_ms = [2000, 600000]\nevent_log = \"{}\"\n\n[expect]\napplications_succeeded = 4\napplications_failed = 0\n",
        log.display()
    );
    let s = scenario::load(&scenario_file(&dir, &body)).expect("loads");
    let a = arrivals::run_scenario(&s, None).expect("runs");
    assert!(a.failures.is_empty(), "{:?}", a.failures);
    let apps = &a.run.applications;
    let entries: Vec<&str> = apps.iter().map(|x| x.entry.as_str()).collect();
    assert_eq!(entries, ["synthetic", "pi", "logged", "logged"]);
    assert_eq!(
        (apps[0].name.as_str(), apps[0].tasks_finished),
        ("Synth", 12)
    );
    assert_eq!((apps[1].user.as_str(), apps[1].tasks_finished), ("ann", 5));
    let took = |x: &arrivals::ArrivedApp| x.ended_at_ms - x.submitted_at_ms;
    assert!(apps[2].tasks_finished > 0);
    assert_eq!(apps[2].tasks_finished, apps[3].tasks_finished);
    assert_eq!(took(&apps[2]), took(&apps[3]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `[expect]` counts the applications that succeeded and failed; a failing task fails its
/// application only.
#[test]
fn expect_counts_succeeded_and_failed_applications() {
    let dir = temp_dir("expect");
    let body = "[[workload.applications]]\nname = \"bad\"\nqueue = \"default\"\nat_ms = [0]\n[[workload.applications.jobs]]\ncall_site = \"c\"\n[[workload.applications.jobs.stages]]\nname = \"s\"\ntasks = 2\nduration = { fixed_ms = 100 }\nfail = { indices = [0], message = \"java.lang.RuntimeException: boom\" }\n\n[[workload.applications]]\nname = \"good\"\nqueue = \"default\"\nat_ms = [0]\nclass = \"org.apache.spark.examples.SparkPi\"\n\n[expect]\napplications_succeeded = 2\napplications_failed = 0\n";
    let s = scenario::load(&scenario_file(&dir, body)).expect("loads");
    let a = arrivals::run_scenario(&s, None).expect("runs");
    assert_eq!(
        a.failures,
        [
            "applications_succeeded: expected 2, got 1",
            "applications_failed: expected 0, got 1"
        ]
    );
    let bad = &a.run.applications[0];
    assert_eq!((bad.entry.as_str(), bad.succeeded), ("bad", false));
    assert!(a.run.applications[1].succeeded);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-application key in `[expect]`, a `[submit]` table or `[[workload.jobs]]` beside the
/// applications is refused with what to do instead; so are run's spark-submit overrides.
#[test]
fn one_application_keys_beside_arrivals_are_refused() {
    let dir = temp_dir("refused");
    let entry = "[[workload.applications]]\nqueue = \"default\"\nat_ms = [0]\nclass = \"org.apache.spark.examples.SparkPi\"\n";
    let cases = [
        (
            format!("{entry}[expect]\nstate = \"FINISHED\"\n"),
            "expect.state: describes one application",
        ),
        (
            format!("[submit]\nnum_executors = 2\n{entry}"),
            "submit: with [[workload.applications]] each entry carries its own spark-submit settings",
        ),
        (
            format!(
                "[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 1\nduration = {{ fixed_ms = 1 }}\n{entry}"
            ),
            "workload.jobs: with [[workload.applications]] each entry carries its own `jobs`",
        ),
    ];
    for (body, needle) in cases {
        let e = scenario::load(&scenario_file(&dir, &body))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(needle), "{e}");
    }
    let one = scenario_file(
        &dir,
        "[submit]\nclass = \"org.apache.spark.examples.SparkPi\"\n[expect]\napplications_failed = 0\n",
    );
    let e = scenario::load(&one)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("expect.applications_succeeded / applications_failed: count the applications of [[workload.applications]]"), "{e}");
    let path = scenario_file(&dir, entry);
    let out = binary(&["run", path.to_str().expect("utf-8"), "--num-executors", "3"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("each with its own settings; set them in its entries"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sparkyard run` prints one line per application and the expectations.
#[test]
fn run_prints_every_application() {
    let out = binary(&["run", bundled().to_str().expect("utf-8"), "--seed", "3"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("scenario: adhoc-on-nightly\nsparkyard: "),
        "{stdout}"
    );
    assert!(stdout.contains("(seed 3)"), "{stdout}");
    assert!(
        stdout.contains("queue etl: 3 applications, 3 succeeded"),
        "{stdout}"
    );
    assert!(
        stdout.contains("nightly-etl      etl      etl      application_1764662400000_0001"),
        "{stdout}"
    );
    assert!(stdout.contains("reproduce: sparkyard run"), "{stdout}");
    assert!(stdout.ends_with("expectations: all met\n"), "{stdout}");
}
