//! Hardening: random fault campaigns keep every invariant, a hang is caught as a named
//! violation, and bad input of every kind ends with a clear message and exit 1, never a panic.

use crate::common::{
    TestDir, assert_user_error, binary, not_yarn_cluster, submit_pi_words, submit_words, text,
};
use sparkyard::scenario;
use sparkyard_messages::records::RpcFailure;
use std::path::Path;

#[test]
fn a_chaos_sweep_keeps_every_invariant_and_reports_the_same_whatever_the_threads() {
    let s = scenario::load(Path::new("config/scenarios/chaos.toml")).expect("loads");
    let one = sparkyard::sweep::sweep(&s, 1..61, 1).expect("runs");
    let two = sparkyard::sweep::sweep(&s, 1..61, 2).expect("runs");
    let (a, broken) = sparkyard::sweep::report("chaos.toml", &one);
    let (b, _) = sparkyard::sweep::report("chaos.toml", &two);
    assert_eq!(broken, 0, "{a}");
    assert_eq!(a, b);
    assert!(
        a.contains("sweep: 60 seeds, 0 invariant violation(s)"),
        "{a}"
    );
}

#[test]
fn a_sweep_reads_the_submit_line_once_and_each_seed_runs_as_run_runs_it() {
    // The sweep parses `[submit]` and derives its settings once for all seeds
    // (`scenario::SubmitRead`): each seed's trace must still be the one `run` makes alone.
    let s = scenario::load(Path::new("config/scenarios/chaos.toml")).expect("loads");
    let config = sparkyard::sweep::SweepConfig {
        jobs: 1,
        expect: false,
        progress: false,
        fingerprints: true,
    };
    let swept = sparkyard::sweep::sweep_with(&s, 3..7, &config).expect("runs");
    for (seed, report) in swept {
        let opts = sparkyard::runner::RunOptions {
            keep_trace: false,
            ..Default::default()
        };
        let alone = scenario::run(&s, Some(seed), opts).expect("runs");
        let fingerprint = format!("{:016x}", alone.result.fingerprint);
        assert_eq!(
            report.fingerprint.as_deref(),
            Some(fingerprint.as_str()),
            "seed {seed}"
        );
    }
}

#[test]
fn a_run_that_never_ends_is_a_named_violation_with_its_seed() {
    let dir = TestDir::new("hang");
    let text = std::fs::read_to_string("config/scenarios/chaos.toml").expect("read")
        .replace("deadline_ms = 21600000", "deadline_ms = 600000")
        .replace("kinds = [\"kill-executor\", \"nm-kill\", \"kill-am\", \"kill-node\", \"delay\", \"partition\", \"launch-failure\"]", "kinds = [\"delay\"]")
        + "\n[[faults]]\nkind = \"drop\"\nlabel = \"lose every StatusUpdate\"\nat_ms = 0\nmessage = \"StatusUpdate\"\n";
    let p = dir.join("hang.toml");
    std::fs::write(&p, text).expect("write");
    let s = scenario::load(&p).expect("loads");
    let reports = sparkyard::sweep::sweep(&s, 5..6, 1).expect("runs");
    let (text, broken) = sparkyard::sweep::report("hang.toml", &reports);
    assert_eq!(broken, 1, "{text}");
    assert!(text.contains("seed 5: invariant application-terminates-before-deadline: the application did not end within 600000 virtual ms (seed 5)"), "{text}");
    assert!(
        text.contains("reproduce: sparkyard run hang.toml --seed 5"),
        "{text}"
    );
}

fn sparkyard(args: &[&str]) -> (Option<i32>, String) {
    let out = binary(args);
    (out.status.code(), text(&out.stderr) + &text(&out.stdout))
}

/// `bytes` written to `name` in `dir`; its path.
fn file(dir: &TestDir, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p.display().to_string()
}

#[test]
fn forty_bad_inputs_each_exit_one_with_a_clear_message_and_no_panic() {
    let dir = TestDir::new("bad");
    let empty = file(&dir, "empty.toml", b"");
    let garbage = file(&dir, "garbage.toml", &[0xff, 0xfe, 0x00, 0x9c, 0x13]);
    let malformed = file(&dir, "malformed.toml", b"[[nodes]\nhost = ");
    let tiny = file(&dir, "tiny.toml", b"[yarn]\n\"yarn.scheduler.maximum-allocation-mb\" = 1024\n[[nodes]]\nhost = \"n1\"\nmemory_mb = 2048\nvcores = 2\n");
    let unknown_key = file(
        &dir,
        "unknown.toml",
        b"[[nodes]]\nhost = \"n1\"\ncolour = \"red\"\n",
    );
    let huge = file(
        &dir,
        "huge.toml",
        b"[[nodes]]\nhost = \"n1\"\nmemory_mb = 99999999999999999999\n",
    );
    let props_dir = std::env::temp_dir().display().to_string();
    let bad_props = file(&dir, "bad.conf", b"spark.executor.memory 10q\n");
    let scen_unknown_exec = file(
        &dir,
        "s1.toml",
        b"name = \"x\"\n[submit]\nclass = \"c\"\n[[faults]]\nkind = \"kill-executor\"\nat_ms = 1\n",
    );
    let scen_bad_host = file(&dir, "s2.toml", b"name = \"x\"\n[submit]\nclass = \"c\"\n[[faults]]\nkind = \"exclude-node\"\nat_ms = 1\nhost = \"ghost\"\n");
    let scen_bad_prob = file(&dir, "s3.toml", b"name = \"x\"\n[submit]\nclass = \"c\"\n[[faults]]\nkind = \"drop\"\nat_ms = 1\nprobability = 2.0\n");
    let scen_two_triggers = file(&dir, "s4.toml", b"name = \"x\"\n[submit]\nclass = \"c\"\n[[faults]]\nkind = \"kill-am\"\nat_ms = 1\non_attempt_started = 1\n");
    let scen_bad_parent = file(&dir, "s5.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 1\nduration = { fixed_ms = 1 }\nparents = [0]\n");
    let scen_zero_tasks = file(&dir, "s6.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 0\nduration = { fixed_ms = 1 }\n");
    let scen_no_bytes = file(&dir, "s6b.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 2\nduration = { mb_per_s = 100 }\n");
    let scen_bad_rate = file(&dir, "s6c.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 2\nduration = { mb_per_s = -1 }\ninput = { bytes_per_task = 10 }\n");
    let scen_bad_hot = file(&dir, "s6d.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"m\"\ntasks = 2\nduration = { fixed_ms = 1 }\nshuffle_write = { bytes_per_task = 10, hot_partitions = { first = 3, factor = 4 } }\n[[workload.jobs.stages]]\nname = \"r\"\ntasks = 2\nduration = { fixed_ms = 1 }\nparents = [0]\n");
    let scen_bad_factor = file(&dir, "s6e.toml", b"name = \"x\"\n[submit]\nclass = \"org.sparkyard.examples.SyntheticJob\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 2\nduration = { fixed_ms = 1 }\ninput = { bytes_per_task = 10, hot_tasks = { first = 0, factor = 1 } }\n");
    let scen_bad_chaos = file(&dir, "s7.toml", b"name = \"x\"\n[submit]\nclass = \"c\"\n[chaos]\nwindow_ms = [5, 1]\nkinds = [\"kill-am\"]\n");
    let scen_bad_kind = file(&dir, "s8.toml", b"name = \"x\"\n[submit]\nclass = \"c\"\n[chaos]\nwindow_ms = [1, 5]\nkinds = [\"meteor\"]\n");
    let scen_bad_submit = file(
        &dir,
        "s9.toml",
        b"name = \"x\"\n[submit]\nclass = \"c\"\nexecutor_memory = \"1.5g\"\n",
    );
    let [local_master, client_mode] = not_yarn_cluster();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            submit_pi_words(&["--executor-memory", "1.5g", "a.jar"]),
            "Executor memory must be a positive number",
        ),
        (
            submit_pi_words(&["--executor-memory", "-1g", "a.jar"]),
            "Executor memory must be a positive number",
        ),
        (
            submit_pi_words(&["--executor-memory", "10q", "a.jar"]),
            "Executor memory must be a positive number",
        ),
        (
            submit_pi_words(&["--driver-memory", "0", "a.jar"]),
            "Driver memory must be a positive number",
        ),
        (
            submit_pi_words(&["--driver-memory", "1.5g", "a.jar"]),
            "Driver memory must be a positive number",
        ),
        (
            submit_pi_words(&["--executor-cores", "0", "a.jar"]),
            "Executor cores must be a positive number",
        ),
        (
            submit_pi_words(&["--executor-cores", "-2", "a.jar"]),
            "Executor cores must be a positive number",
        ),
        (
            submit_pi_words(&["--driver-cores", "x", "a.jar"]),
            "Driver cores must be a positive number",
        ),
        (
            submit_pi_words(&["--num-executors", "0", "a.jar"]),
            "Number of executors must be a positive number",
        ),
        (
            submit_pi_words(&["--num-executors", "99999999999999999999", "a.jar"]),
            "Number of executors must be a positive number",
        ),
        (
            submit_pi_words(&["--executor-memory", "10g", "a.jar"]),
            "Required executor memory (10240 MB)",
        ),
        (
            submit_pi_words(&["--driver-memory", "9g", "a.jar"]),
            "Required AM memory (9216+921 MB)",
        ),
        (
            submit_pi_words(&["--conf", "spark.executor.memoryOverhead=1.5g", "a.jar"]),
            "Fractional values are not supported. Input was: 1.5",
        ),
        (
            submit_pi_words(&["--conf", "spark.yarn.am.waitTime=soon", "a.jar"]),
            "spark.yarn.am.waitTime",
        ),
        (
            submit_pi_words(&["--conf", "spark.task.maxFailures=many", "a.jar"]),
            "spark.task.maxFailures should be int, but was many",
        ),
        (
            submit_pi_words(&[
                "--conf",
                "spark.yarn.submit.waitAppCompletion=maybe",
                "a.jar",
            ]),
            "should be boolean, but was maybe",
        ),
        (
            submit_pi_words(&["--conf", "novalue", "a.jar"]),
            "Spark config without '=': novalue",
        ),
        (
            submit_pi_words(&["--properties-file", "/nonexistent/x.conf", "a.jar"]),
            "does not exist",
        ),
        (
            submit_pi_words(&["--properties-file", &props_dir, "a.jar"]),
            "is not a normal file",
        ),
        (
            submit_pi_words(&["--properties-file", &bad_props, "a.jar"]),
            "Executor memory must be a positive number",
        ),
        (
            submit_pi_words(&["--cluster", "/nonexistent/c.toml", "a.jar"]),
            "/nonexistent/c.toml",
        ),
        (
            submit_pi_words(&["--cluster", &props_dir, "a.jar"]),
            "is a directory, not a cluster file",
        ),
        (
            submit_pi_words(&["--cluster", &empty, "a.jar"]),
            "the file is empty",
        ),
        (
            submit_pi_words(&["--cluster", &garbage, "a.jar"]),
            "not UTF-8",
        ),
        (
            submit_pi_words(&["--cluster", &malformed, "a.jar"]),
            "malformed.toml",
        ),
        (
            submit_pi_words(&["--cluster", &unknown_key, "a.jar"]),
            "unknown field `colour`",
        ),
        (submit_pi_words(&["--cluster", &huge, "a.jar"]), "huge.toml"),
        (
            submit_pi_words(&["--cluster", &tiny, "a.jar"]),
            "is above the max threshold",
        ),
        (
            submit_pi_words(&[]),
            "Must specify a primary resource (JAR or Python or R file)",
        ),
        local_master,
        client_mode,
        (
            vec![
                "submit",
                "--master",
                "yarn",
                "--deploy-mode",
                "sideways",
                "a.jar",
            ],
            "--deploy-mode must be either \"client\" or \"cluster\"",
        ),
        (
            submit_words(&["a.jar"]),
            "No main class set in JAR; please specify one with --class.",
        ),
        (vec!["submit", "--seed", "minus-one"], "minus-one"),
        (
            vec!["run", "/nonexistent/s.toml"],
            "cannot read the scenario",
        ),
        (vec!["run", &empty], "the file is empty"),
        (vec!["run", &garbage], "not UTF-8"),
        (
            vec!["run", &scen_unknown_exec],
            "kind 'kill-executor' needs `executor`",
        ),
        (
            vec!["run", &scen_bad_host],
            "host: `ghost` is not a NodeManager of this cluster",
        ),
        (
            vec!["run", &scen_bad_prob],
            "probability: must be within 0 and 1",
        ),
        (vec!["run", &scen_two_triggers], "give exactly one trigger"),
        (
            vec!["run", &scen_bad_parent],
            "parents: 0 is not an earlier stage of this job",
        ),
        (
            vec!["run", &scen_zero_tasks],
            "tasks: must be between 1 and 10000000",
        ),
        (
            vec!["run", &scen_no_bytes],
            "stages[0].duration.mb_per_s: the stage reads no bytes",
        ),
        (
            vec!["run", &scen_bad_rate],
            "duration.mb_per_s: must be a positive number of MB/s, got -1",
        ),
        (
            vec!["run", &scen_bad_hot],
            "stages[0].shuffle_write.hot_partitions: partitions 3 .. 3 are not among the 2 partitions",
        ),
        (
            vec!["run", &scen_bad_factor],
            "stages[0].input.hot_tasks.factor: must be between 2 and 1000000",
        ),
        (
            vec!["run", &scen_bad_chaos],
            "chaos.window_ms: [5, 1] is not a range",
        ),
        (
            vec!["run", &scen_bad_kind],
            "chaos.kinds: `meteor` is not one of",
        ),
        (
            vec!["run", &scen_bad_submit],
            "Executor memory must be a positive number",
        ),
        (
            vec!["sweep", "config/scenarios/chaos.toml", "--seeds", "9..3"],
            "the range is empty",
        ),
        (
            vec!["sweep", "config/scenarios/chaos.toml", "--seeds", "lots"],
            "expected A..B or A..=B",
        ),
        (vec!["explode"], "unrecognized subcommand"),
    ];
    assert!(cases.len() >= 40, "{}", cases.len());
    for (args, needle) in &cases {
        let (code, output) = sparkyard(args);
        assert_user_error(args, code, &output, needle);
    }
}

/// `am-killed-retry` with a test-only panic at 2 s of virtual time (no flag or key sets one).
fn panicking_scenario() -> scenario::Scenario {
    let mut s = scenario::load(Path::new("config/scenarios/am-killed-retry.toml")).expect("loads");
    s.panic_at_ms = Some(2_000);
    s
}

#[test]
fn a_panic_in_the_simulation_fails_the_run_with_a_named_violation_and_an_exception() {
    let s = panicking_scenario();
    let run = scenario::run(&s, Some(3), sparkyard::runner::RunOptions::default()).expect("runs");
    let o = &run.result.outcome;
    // `submit` exits 1 on an exception and prints it as spark-submit's closing line.
    let RpcFailure { class, message, .. } = o
        .exception
        .clone()
        .expect("the panic is the run's exception");
    assert_eq!(class, "sparkyard.SimulationPanic");
    assert!(
        message.starts_with("the simulator panicked (a sparkyard bug; seed 3): 'a test asked for a panic at 2000 ms' at actors/src/simulation.rs:"),
        "{message}"
    );
    assert!(message.ends_with(", 2000 ms into the run"), "{message}");
    let stderr = sparkyard::report::closing_stderr(&run.result, true);
    assert!(
        stderr.starts_with(
            "Exception in thread \"main\" sparkyard.SimulationPanic: the simulator panicked"
        ),
        "{stderr}"
    );
    // `run` exits 1 on a failure.
    assert!(
        run.failures
            .iter()
            .any(|f| f
                .starts_with("invariant simulation-does-not-panic broken: the simulator panicked")),
        "{:?}",
        run.failures
    );
    assert_eq!(run.result.end_ms, 2_000, "the run stops at the panic");
}

#[test]
fn a_sweep_reports_a_panic_as_a_violation_with_its_seed() {
    let s = panicking_scenario();
    let reports = sparkyard::sweep::sweep(&s, 1..3, 2).expect("runs");
    let (text, broken) = sparkyard::sweep::report("p.toml", &reports);
    assert_eq!(broken, 2, "{text}");
    assert!(
        text.contains("seed 2: invariant simulation-does-not-panic: the simulator panicked (a sparkyard bug; seed 2)"),
        "{text}"
    );
    assert!(
        text.contains("reproduce: sparkyard run p.toml --seed 2"),
        "{text}"
    );
}

#[test]
fn a_panic_outside_a_run_still_reaches_the_default_hook() {
    // The run's hook captures only on a thread running a simulation.
    let s = panicking_scenario();
    let _ = scenario::run(&s, Some(1), sparkyard::runner::RunOptions::default()).expect("runs");
    let caught = std::panic::catch_unwind(|| panic!("outside"));
    assert!(caught.is_err());
}

/// A run cut at its deadline says which application hung and what it was doing (issue 13 item
/// 13), not "nothing was submitted": here every StatusUpdate is lost, so the first tasks never
/// finish (real Spark would wait as long).
#[test]
fn a_hung_run_says_what_was_running() {
    let dir = TestDir::new("hung");
    let text = std::fs::read_to_string("config/scenarios/launch-failure.toml").expect("read")
        + "\n[[faults]]\nkind = \"drop\"\nlabel = \"lose every StatusUpdate\"\nat_ms = 0\nmessage = \"StatusUpdate\"\n";
    let p = dir.join("hung.toml");
    std::fs::write(&p, text).expect("write");
    let s = scenario::load(&p).expect("loads");
    let opts = sparkyard::runner::RunOptions {
        deadline_ms: 600_000,
        ..Default::default()
    };
    let r = scenario::run(&s, None, opts).expect("runs").result;
    assert!(r.outcome.application_id.is_some());
    let text = sparkyard::report::summary(&r, None, "reproduce");
    assert!(
        text.contains(
            "sparkyard: application_1764662400000_0001 did not end within 600.000 s of virtual time"
        ),
        "{text}"
    );
    assert!(
        // The failed launch's executor never registered: YARN's exit, not a loss Spark declared
        // (issue 30); the two tasks whose StatusUpdates were dropped never ended.
        text.contains("still running then: AM attempt 1, executors 3 launched / 2 registered / 0 lost, job(s) 1 started / 0 succeeded, 0 of 12 task(s) finished (2 launched, 0 failed)"),
        "{text}"
    );
    assert!(
        text.contains("tasks: 2 launched, 0 finished, 0 failed, 2 never ended"),
        "{text}"
    );
}
