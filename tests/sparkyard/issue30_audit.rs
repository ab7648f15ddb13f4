//! Issue 30's findings that the audit of 2026-12-05 (docs/worklog/2026-12-05-afternoon/
//! issue-30-audit.md) found still reproducing or unpinned, each re-run through the binary as a
//! user types it: a re-run's refused event log (item 17), a shrunk run's note when its AM
//! attempts were killed (item 17), a replay that could not run (item 16), and `what-if` /
//! `what-if-cluster` blaming a grid value for the common options' refusal (beside item 14).

use super::common::{TestDir, binary, text};
use std::path::Path;

/// A SparkPi submission writing its event log into `dir` (`rolling`: Spark 4.0's default
/// layout, else `spark.eventLog.rolling.enabled=false`'s single file); stdout and stderr.
fn submit_logging_to(dir: &Path, rolling: bool) -> String {
    let log_dir = format!("spark.eventLog.dir=file://{}", dir.display());
    let rolling = format!("spark.eventLog.rolling.enabled={rolling}");
    let logs = dir.join("container-logs").display().to_string();
    let out = binary(&[
        "submit",
        "--log-dir",
        &logs,
        "--no-progress",
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        &log_dir,
        "--conf",
        &rolling,
        "--class",
        "org.apache.spark.examples.SparkPi",
        "--num-executors",
        "2",
        "local:///opt/spark/examples/jars/spark-examples_2.13-4.0.0.jar",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

fn event_log_lines(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|l| l.starts_with("event log: "))
        .collect()
}

/// Issue 30, item 17: "the refusal of a re-run is printed after an `event log:` line". A
/// re-run into the same directory meets the first run's log (the simulated application id
/// repeats) and Spark's writer refuses it (EventLogFileWriters.scala: the rolling writer's
/// `start`, `Target log directory already exists`, writes nothing; the single-file writer's
/// `renameFile`, `Target log file already exists`, leaves this run's log `.inprogress`). The
/// run used to print the kept path as if it were this run's log, then the refusal on a second
/// line; now one line names the path and says Spark's writer refused it.
#[test]
fn a_refused_event_log_is_one_line_that_says_so() {
    for rolling in [true, false] {
        let dir = TestDir::new(if rolling {
            "issue30-audit-rolling"
        } else {
            "issue30-audit-single"
        });
        let first = submit_logging_to(dir.path(), rolling);
        let (kept, this_run, what) = if rolling {
            let d = dir.join("eventlog_v2_application_1764662400000_0001_1");
            (d.clone(), d, "directory")
        } else {
            let f = dir.join("application_1764662400000_0001_1.zstd");
            let inprogress = dir.join("application_1764662400000_0001_1.zstd.inprogress");
            (f, inprogress, "file")
        };
        assert_eq!(
            event_log_lines(&first),
            [format!("event log: {}", kept.display())],
            "rolling {rolling}"
        );
        let again = submit_logging_to(dir.path(), rolling);
        assert_eq!(
            event_log_lines(&again),
            [format!(
                "event log: {} refused by Spark's writer: java.io.IOException: Target log {what} \
                 already exists (file:{}); the earlier log is kept (set \
                 spark.eventLog.overwrite=true to replace it)",
                this_run.display(),
                kept.display()
            )],
            "rolling {rolling}"
        );
    }
}

/// Two AM attempts, each killed `after_ms` after it started (a shrunk chaos seed's kill-am
/// faults, aimed by trigger so the test does not depend on when the AM comes up).
fn am_killed_after(after_ms: u64) -> String {
    format!(
        r#"name = "am-killed-before-executors"
[[cluster.nodes]]
host = "nm-{{n}}.example.internal"
count = 4
memory_mb = 16384
vcores = 8
[submit]
num_executors = 2
[workload]
[[workload.jobs]]
call_site = "count at A.scala:1"
[[workload.jobs.stages]]
name = "map at A.scala:1"
tasks = 8
duration = {{ fixed_ms = 4000 }}
[[faults]]
kind = "kill-am"
on_attempt_started = 1
after_ms = {after_ms}
[[faults]]
kind = "kill-am"
on_attempt_started = 2
attempt = 2
after_ms = {after_ms}
"#
    )
}

/// Issue 30, item 17: "a shrunk run's note blames 'YARN had no room' when the AM was killed".
/// The note on executors never allocated now gives the reason the run recorded: killed before
/// the YarnAllocator existed (100 ms after start: the user class is still starting the
/// SparkContext), or killed while its asks were pending (1.9 s: registered with the RM, no
/// container yet); never the cluster's room, which was ample (4 nodes of 8 vcores).
#[test]
fn a_note_on_unallocated_executors_names_the_am_kills_not_yarns_room() {
    for (after_ms, why) in [
        (
            100,
            "every AM attempt ended before creating its YarnAllocator (before registering with the ResourceManager), so YARN was never asked for them",
        ),
        (
            1900,
            "every AM attempt ended (killed or failed) while its requests for them were pending",
        ),
    ] {
        let dir = TestDir::new(&format!("issue30-audit-am-killed-{after_ms}"));
        let file = dir.join("am-killed.toml");
        std::fs::write(&file, am_killed_after(after_ms)).expect("written");
        let logs = dir.join("logs").display().to_string();
        let out = binary(&[
            "run",
            file.to_str().expect("utf-8"),
            "--log-dir",
            &logs,
            "--no-progress",
        ]);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        let note = format!(
            "note: 2 of the 2 executors requested (spark.executor.instances) were never allocated: {why} (0 launched)"
        );
        assert!(all.contains(&note), "after {after_ms} ms:\n{all}");
        assert!(!all.contains("YARN had no room"), "after {after_ms} ms");
    }
}

/// Issue 30, item 16: an invalid replay configuration "prints `0.000 s, -100 %,
/// NOT-SUBMITTED` without Spark's reason". The reason is printed (and the replay exits 1:
/// `replay::a_simulation_that_cannot_run_is_an_error_with_sparks_reason_and_exit_1`); the
/// table no longer shows the 0 s, -100 %, 0 % utilization a run that never ran would have as
/// if they were measured.
#[test]
fn a_replay_that_could_not_run_shows_no_simulated_figures() {
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/eventlogs/multijob_n2_r1.zstd");
    let out = binary(&[
        "replay",
        log.to_str().expect("utf-8"),
        "--executor-memory",
        "100g",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let table = text(&out.stdout);
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` row in:\n{table}"))
            .split_whitespace()
            .last()
            .expect("a simulated column")
            .to_string()
    };
    for name in [
        "application time",
        "  error",
        "utilization",
        "wasted core-hours",
    ] {
        assert_eq!(row(name), "-", "{name}");
    }
    assert!(
        table.contains(
            "error: the simulated application could not run: java.lang.IllegalArgumentException"
        ),
        "{table}"
    );
}

/// Found by the audit beside issue 30's item 14 (a grid value's refusal names it): when the
/// options every configuration starts from are refused by themselves (here a `--conf
/// spark.executor.memory=abc`: SparkSubmitArguments.validateSubmitArguments, `Executor memory
/// must be a positive number`), every configuration is refused for that reason, and the error
/// named the first grid value (`--grid num-executors=1: ...`), sending the user to the wrong
/// option. It now says the reason is the common options'; a grid value's own refusal still
/// names the value.
#[test]
fn a_refusal_of_the_common_options_is_not_blamed_on_a_grid_value() {
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/eventlogs/multijob_n2_r1.zstd");
    let log = log.to_str().expect("utf-8");
    let spark = "org.apache.spark.SparkException: Executor memory must be a positive number";
    let what_if = |args: &[&str]| {
        let mut all = vec!["what-if", log];
        all.extend(args);
        let out = binary(&all);
        (out.status.code(), text(&out.stderr))
    };
    let (code, err) = what_if(&[
        "--grid",
        "num-executors=1,2",
        "--conf",
        "spark.executor.memory=abc",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "every configuration: {spark} (from the options every configuration starts from, not from a --grid value)"
        )),
        "{err}"
    );
    assert!(!err.contains("--grid num-executors=1:"), "{err}");
    // Every grid value refused for its own sake: the first is named, as before.
    let (code, err) = what_if(&["--grid", "executor-memory=abc,xyz"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("--grid executor-memory=abc: {spark}")),
        "{err}"
    );
}

/// The same for `what-if-cluster`: a `--conf` every application of the day is refused for
/// names no grid value (before: `--grid nodes=2: <log>: ... Executor memory must be a
/// positive number`); a grid value's own refusal still names it.
#[test]
fn a_day_refused_for_its_common_options_is_not_blamed_on_a_grid_value() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let day = root.join("tests/data/eventlogs/day-two-queues");
    let mut logs: Vec<String> = std::fs::read_dir(&day)
        .expect("the day's logs")
        .map(|e| e.expect("an entry").path().display().to_string())
        .collect();
    logs.sort();
    let cluster = root.join("docs/examples/two-queues.toml");
    let what_if = |args: &[&str]| {
        let mut all = vec!["what-if-cluster"];
        all.extend(logs.iter().map(String::as_str));
        all.extend([
            "--cluster",
            cluster.to_str().expect("utf-8"),
            "--queue-map",
            "adhoc=etl",
        ]);
        all.extend(args);
        let out = binary(&all);
        (out.status.code(), text(&out.stderr))
    };
    let spark = "org.apache.spark.SparkException: Executor memory must be a positive number";
    let (code, err) = what_if(&["--grid", "nodes=2,3", "--conf", "spark.executor.memory=abc"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("every configuration: "), "{err}");
    assert!(
        err.contains(&format!(
            "{spark} (from the options every configuration starts from, not from a --grid value)"
        )),
        "{err}"
    );
    assert!(!err.contains("--grid nodes=2:"), "{err}");
    let (code, err) = what_if(&["--grid", "spark.executor.memory=abc,xyz"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("--grid spark.executor.memory=abc: "), "{err}");
    assert!(err.contains(spark), "{err}");
}
