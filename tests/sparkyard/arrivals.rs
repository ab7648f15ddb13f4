//! `[[workload.applications]]` (issue 28 item 4): applications that arrive without event logs
//! (fixed times or a seeded Poisson rate; a bundled program, a synthetic workload or an event
//! log) all run on the scenario's one cluster; `run` reports each; `[expect]` counts them.

use crate::common::{TestDir, binary, text};
use sparkyard::arrivals;
use sparkyard::scenario;
use std::path::{Path, PathBuf};

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
    let dir = TestDir::new("arrivals-kinds");
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/eventlogs/multijob_n2_r1.zstd");
    let body = format!(
        "[[workload.applications]]\nname = \"synthetic\"\nqueue = \"default\"\nat_ms = [0]\napp_name = \"Synth\"\nnum_executors = 3\n[[workload.applications.jobs]]\ncall_site = \"count at S.scala:1\"\n[[workload.applications.jobs.stages]]\nname = \"map at S.scala:1\"\ntasks = 12\nduration = {{ fixed_ms = 1000 }}\n\n[[workload.applications]]\nname = \"pi\"\nqueue = \"default\"\nuser = \"ann\"\nat_ms = [1000]\nclass = \"org.apache.spark.examples.SparkPi\"\nargs = [\"5\"]\n\n[[workload.applications]]\nname = \"logged\"\nqueue = \"default\"\nat_ms = [2000, 600000]\nevent_log = \"{}\"\n\n[expect]\napplications_succeeded = 4\napplications_failed = 0\n",
        log.display()
    );
    let s = scenario::load(&scenario_file(dir.path(), &body)).expect("loads");
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
}

/// `[expect]` counts the applications that succeeded and failed; a failing task fails its
/// application only.
#[test]
fn expect_counts_succeeded_and_failed_applications() {
    let dir = TestDir::new("arrivals-expect");
    let body = "[[workload.applications]]\nname = \"bad\"\nqueue = \"default\"\nat_ms = [0]\n[[workload.applications.jobs]]\ncall_site = \"c\"\n[[workload.applications.jobs.stages]]\nname = \"s\"\ntasks = 2\nduration = { fixed_ms = 100 }\nfail = { indices = [0], message = \"java.lang.RuntimeException: boom\" }\n\n[[workload.applications]]\nname = \"good\"\nqueue = \"default\"\nat_ms = [0]\nclass = \"org.apache.spark.examples.SparkPi\"\n\n[expect]\napplications_succeeded = 2\napplications_failed = 0\n";
    let s = scenario::load(&scenario_file(dir.path(), body)).expect("loads");
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
}

/// A one-application key in `[expect]`, a `[submit]` table or `[[workload.jobs]]` beside the
/// applications is refused with what to do instead; so are run's spark-submit overrides.
#[test]
fn one_application_keys_beside_arrivals_are_refused() {
    let dir = TestDir::new("arrivals-refused");
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
        let e = scenario::load(&scenario_file(dir.path(), &body))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(needle), "{e}");
    }
    let one = scenario_file(
        dir.path(),
        "[submit]\nclass = \"org.apache.spark.examples.SparkPi\"\n[expect]\napplications_failed = 0\n",
    );
    let e = scenario::load(&one)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("expect.applications_succeeded / applications_failed: count the applications of [[workload.applications]]"), "{e}");
    let path = scenario_file(dir.path(), entry);
    let out = binary(&["run", path.to_str().expect("utf-8"), "--num-executors", "3"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("each with its own settings; set them in its entries"),
        "{}",
        text(&out.stderr)
    );
}

/// `sparkyard run` prints one line per application and the expectations.
#[test]
fn run_prints_every_application() {
    let out = binary(&[
        "run",
        bundled().to_str().expect("utf-8"),
        "--seed",
        "3",
        "--no-container-logs",
    ]);
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

/// Two applications of 16 four-second tasks on two nodes of 16 GiB, the second 10 s after the
/// first, so both have containers on both nodes; then `faults`.
fn two_applications(dir: &Path, faults: &str) -> PathBuf {
    let app = |name: &str, at: u64| {
        format!(
            "[[workload.applications]]\nname = \"{name}\"\nqueue = \"default\"\nat_ms = [{at}]\nnum_executors = 2\nexecutor_memory = \"1g\"\n[[workload.applications.jobs]]\ncall_site = \"count at A.scala:1\"\n[[workload.applications.jobs.stages]]\nname = \"map at A.scala:1\"\ntasks = 16\nduration = {{ fixed_ms = 4000 }}\n"
        )
    };
    let path = dir.join("two.toml");
    let text = format!(
        "name = \"two\"\n[[cluster.nodes]]\nhost = \"nm-{{n}}.sparkyard.internal\"\ncount = 2\nmemory_mb = 16384\nvcores = 8\n{}{}{faults}",
        app("first", 0),
        app("second", 10_000)
    );
    std::fs::write(&path, text).expect("scenario written");
    path
}

/// A node lost under the second application's executor 1.
const LOST_NODE: &str = "[[faults]]\nkind = \"kill-node\"\ntarget = \"executor:1\"\napp = 2\non_executor_registered = 1\nafter_ms = 2000\n";

/// Issue 28 item 5: a lost node hits every application with containers there, and the report
/// shows what it cost each one against the same applications without the fault (a second
/// simulation, run only when there are faults).
#[test]
fn a_lost_node_hits_every_application_there_and_the_report_shows_each_ones_cost() {
    let dir = TestDir::new("arrivals-lost-node");
    let s = scenario::load(&two_applications(dir.path(), LOST_NODE)).expect("loads");
    let a = arrivals::run_scenario(&s, None).expect("runs");
    assert_eq!(a.run.faults_fired, 1);
    assert_eq!(a.run.simulations, 2);
    for app in &a.run.applications {
        let c = app.fault_cost.as_ref().expect("a cost with faults");
        // Each had an executor on the node; its running task failed and ran again, later.
        assert!(c.executors_lost >= 1, "{}: {c:?}", app.entry);
        assert!(c.tasks_failed >= 1, "{}: {c:?}", app.entry);
        assert!(c.extra_task_attempts >= 1, "{}: {c:?}", app.entry);
        assert!(c.later_ms > 0, "{}: {c:?}", app.entry);
        assert!(app.succeeded, "{}", app.entry);
    }
    let text = arrivals::report_text(&a.run);
    assert!(
        text.contains("fault cost (vs the same applications without the faults):"),
        "{text}"
    );
    // Without faults: one simulation, no cost.
    let s = scenario::load(&two_applications(dir.path(), "")).expect("loads");
    let plain = arrivals::run_scenario(&s, None).expect("runs");
    assert_eq!(plain.run.simulations, 1);
    assert!(
        plain
            .run
            .applications
            .iter()
            .all(|x| x.fault_cost.is_none())
    );
}

/// `run` in `dir` with every output: container logs, the event logs (`--conf`, given to every
/// application), a timeline and a sequence diagram.
fn run_with_outputs(scenario: &Path, dir: &Path) -> std::process::Output {
    std::fs::create_dir_all(dir.join("ev")).expect("event log dir");
    std::process::Command::new(env!("CARGO_BIN_EXE_sparkyard"))
        .current_dir(dir)
        .args(["run", scenario.to_str().expect("utf-8")])
        .args([
            "--log-dir",
            "logs",
            "--trace",
            "trace.json",
            "--sequence",
            "seq.mmd",
        ])
        .args(["--conf", "spark.eventLog.enabled=true"])
        .args(["--conf", "spark.eventLog.dir=ev", "--no-progress"])
        .env_remove("RUST_LOG")
        .env_remove("SPARK_CONF_DIR")
        .output()
        .expect("the binary runs")
}

/// Every file under `dir`, relative, with its bytes.
fn files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir").to_path_buf();
                out.insert(rel, std::fs::read(&p).expect("readable"));
            }
        }
    }
    out
}

/// Issue 28 item 1: each application of a many-application run writes what a single run
/// writes, under its own application id as YARN and Spark name them: its containers' logs in
/// `userlogs/<applicationId>/`, its event log, its timeline and sequence diagram (its own
/// messages only); the same seed writes the same bytes.
#[test]
fn each_application_writes_what_a_single_run_writes_under_its_own_id() {
    let dir = TestDir::new("arrivals-outputs");
    let scenario = two_applications(dir.path(), LOST_NODE);
    let (one, two) = (dir.join("one"), dir.join("two"));
    let mut printed = Vec::new();
    for d in [&one, &two] {
        let out = run_with_outputs(&scenario, d);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        printed.push(text(&out.stdout));
    }
    // The run's trace fingerprint, as a single run prints it, the same for the same seed.
    let fingerprint = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("trace fingerprint: "))
            .map(str::to_string)
    };
    assert!(fingerprint(&printed[0]).is_some(), "{}", printed[0]);
    assert_eq!(fingerprint(&printed[0]), fingerprint(&printed[1]));
    let ids = [
        "application_1764662400000_0001",
        "application_1764662400000_0002",
    ];
    let written = files(&one);
    for (n, id) in ids.iter().enumerate() {
        let am = format!("container_{}_01_000001", &id["application_".len()..]);
        let logs = written.keys().filter(|p| {
            p.starts_with("logs")
                && p.to_string_lossy()
                    .contains(&format!("/userlogs/{id}/{am}/stderr"))
        });
        assert_eq!(logs.count(), 1, "{id}'s AM log: {:?}", written.keys());
        let eventlogs = written
            .keys()
            .filter(|p| p.starts_with("ev") && p.to_string_lossy().contains(id));
        assert!(
            eventlogs.count() >= 1,
            "{id}'s event log: {:?}",
            written.keys()
        );
        let trace = &written[&PathBuf::from(format!("trace.{id}.json"))];
        let parsed: serde_json::Value =
            serde_json::from_slice(trace).expect("the timeline is JSON");
        assert!(
            parsed.to_string().contains(&am),
            "{id}'s timeline draws its AM"
        );
        let seq =
            String::from_utf8_lossy(&written[&PathBuf::from(format!("seq.{id}.mmd"))]).into_owned();
        // Its AM's launch by the RM (a call between daemons) follows its ACCEPTED, as in a
        // single run's diagram.
        let accepted = seq.find(&format!("{id} ACCEPTED")).expect("ACCEPTED");
        let launch = seq
            .find("RM->>NM: StartContainers")
            .expect("its AM launched");
        assert!(accepted < launch, "{seq}");
        let other = ids[1 - n];
        assert!(!seq.contains(other), "{id}'s diagram shows {other}:\n{seq}");
        // Each spark-submit is its own process with its own output.
        let submit = String::from_utf8_lossy(
            &written[&PathBuf::from(format!("logs/daemons/spark-submit-{}.log", n + 1))],
        )
        .into_owned();
        assert!(
            submit.contains(&format!("Submitted application {id}")),
            "{submit}"
        );
        assert!(!submit.contains(other), "{id}'s spark-submit names {other}");
    }
    assert!(!written.contains_key(&PathBuf::from("logs/daemons/spark-submit.log")));
    assert_eq!(written, files(&two), "the same seed wrote other bytes");
}

/// Issue 28: a sweep of a many-application scenario runs every seed with every application,
/// records each one's outcome and the faults fired, and its JSON lines read back.
#[test]
fn a_sweep_of_many_applications_reports_each_applications_outcome_per_seed() {
    let dir = TestDir::new("arrivals-sweep");
    let s = scenario::load(&two_applications(dir.path(), LOST_NODE)).expect("loads");
    let config = sparkyard::sweep::SweepConfig {
        jobs: 2,
        fingerprints: true,
        ..Default::default()
    };
    let reports = arrivals::probes::sweep(&s, 1..3, &config).expect("sweeps");
    for r in reports.values() {
        assert_eq!(r.outcome, "applications: FINISHED/SUCCEEDED", "{r:?}");
        let entries: Vec<&str> = r.applications.iter().map(|a| a.entry.as_str()).collect();
        assert_eq!(entries, ["first", "second"]);
        assert_eq!(r.faults_fired.len(), 1, "{r:?}");
        assert_eq!(r.faults_fired[0].kind, "kill-node");
        assert!(r.violations.is_empty(), "{r:?}");
    }
    let header = sparkyard::sweep::SweepHeader {
        scenario: "two.toml".into(),
        seeds: [1, 3],
        shard: sparkyard::sweep::Shard { index: 1, count: 1 },
        expect: false,
    };
    let lines = sparkyard::sweep::json_lines(&header, &reports);
    let back = sparkyard::sweep::parse_json_lines("out", &lines).expect("reads back");
    let again: Vec<_> = reports.values().cloned().collect();
    assert_eq!(back.reports, again);
}

/// Issue 28: shrink of a many-application scenario keeps the outcome of the application that
/// showed it (the second, whose AM is killed in both attempts) and drops the fault that only
/// touched the first.
#[test]
fn shrink_keeps_the_outcome_of_the_application_that_showed_it() {
    let dir = TestDir::new("arrivals-shrink");
    let am = |attempt: u32| {
        format!(
            "[[faults]]\nkind = \"kill-am\"\napp = 2\nattempt = {attempt}\non_executor_registered = 1\nafter_ms = 2000\nexit = 137\n"
        )
    };
    let faults = format!(
        "{}{}[[faults]]\nkind = \"kill-executor\"\napp = 1\nexecutor = 2\non_executor_registered = 2\nafter_ms = 1000\n",
        am(1),
        am(2)
    );
    let s = scenario::load(&two_applications(dir.path(), &faults)).expect("loads");
    let until = sparkyard::scenario::shrink::Until::Outcome("FAILED".into());
    let shrunk = arrivals::probes::shrink(&s, 42, Some(until)).expect("shrinks");
    assert_eq!(
        shrunk.application.as_deref(),
        Some("second (application_1764662400000_0002)")
    );
    let kinds: Vec<(&str, Option<u32>)> = shrunk
        .faults
        .iter()
        .map(|f| (f.kind.as_str(), f.app))
        .collect();
    assert_eq!(kinds, [("kill-am", Some(2)), ("kill-am", Some(2))]);
    assert_eq!(
        (shrunk.state.as_str(), shrunk.final_status.as_str()),
        ("FAILED", "FAILED")
    );
}

/// `kill-application` with `running_app` (Hadoop 3.4 ClientRMService.forceKillApplication on
/// a shared cluster): the user kills the second application running at 20 s; it alone ends
/// KILLED (its containers killed while the run goes on), and the first one succeeds.
#[test]
fn a_killed_application_on_a_shared_cluster_ends_alone() {
    let dir = TestDir::new("arrivals-killed");
    let kill = "[[faults]]\nkind = \"kill-application\"\nat_ms = 20000\nrunning_app = 2\n";
    let s = scenario::load(&two_applications(dir.path(), kill)).expect("loads");
    let a = arrivals::run_scenario(&s, None).expect("runs");
    let apps = &a.run.applications;
    let ended: Vec<(&str, bool)> = apps
        .iter()
        .map(|x| (x.entry.as_str(), x.succeeded))
        .collect();
    assert_eq!(ended, [("first", true), ("second", false)]);
    assert_eq!(a.run.faults_fired, 1);
}
