//! Helpers: a submission through the library exactly as `sparkyard submit` runs it, or through
//! the binary, and the checks the CLI tests share.

use sparkyard::conf::submit::DefaultsFile;
use sparkyard::error::UserError;
use sparkyard::pipeline::{CompletedRun, RunPlan, Submission};
use sparkyard::runner::{RunOptions, RunResult};
use sparkyard_actors::simulation::trace::TraceKind;

// The one temp-dir guard, shared with the crate's unit tests (see the file's opening doc).
#[path = "../../src/test_dir.rs"]
mod test_dir;
pub use test_dir::TestDir;

/// The spark-submit flags every test starts from.
pub const BASE: &[&str] = &["--master", "yarn", "--deploy-mode", "cluster"];

/// The `--class` flag of SparkPi, the example most tests submit.
pub const SPARK_PI: &[&str] = &["--class", "org.apache.spark.examples.SparkPi"];

/// The command line `sparkyard submit <BASE> <extra>`, for the binary.
pub fn submit_words<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    ["submit"]
        .iter()
        .chain(BASE)
        .chain(extra)
        .copied()
        .collect()
}

/// The command line `sparkyard submit <BASE> <SPARK_PI> <extra>`, for the binary.
pub fn submit_pi_words<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    submit_words(&[SPARK_PI, extra].concat())
}

/// Runs `sparkyard submit <BASE> <args>` in-process, through the pipeline `sparkyard submit`
/// uses (with the embedded spark-defaults.conf), with what `plan` adds.
pub fn submit_with(args: &[&str], plan: RunPlan) -> Result<CompletedRun, UserError> {
    let words = BASE.iter().chain(args);
    Submission::from_words(words, DefaultsFile::embedded())?.run(plan)
}

/// Runs `sparkyard submit <BASE> <args>` in-process.
pub fn submit(args: &[&str]) -> Result<RunResult, UserError> {
    Ok(submit_with(args, RunPlan::default())?.result)
}

/// Runs the bundled scenario `config/scenarios/<name>.toml` under its own seed, and checks that
/// it met its expectations.
/// The events file of a rolling event log's directory (`eventlog_v2_<app>/events_1_<app>...`),
/// as a replay that writes its own event log leaves it.
pub fn events_file(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .expect("the rolling event log's directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("events_"))
        })
        .expect("its events file")
}

/// Every bundled scenario file (`config/scenarios/*.toml`), sorted.
pub fn bundled() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenarios");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .expect("config/scenarios exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

pub fn bundled_scenario(name: &str, opts: RunOptions) -> RunResult {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/scenarios")
        .join(format!("{name}.toml"));
    let s = sparkyard::scenario::load(&path).expect("a bundled scenario");
    let run = sparkyard::scenario::run(&s, None, opts).expect("a run");
    assert!(run.failures.is_empty(), "{name}: {:?}", run.failures);
    run.result
}

/// Runs SparkPi in-process: `sparkyard submit <BASE> <SPARK_PI> <args>`.
pub fn submit_pi(args: &[&str]) -> Result<RunResult, UserError> {
    submit(&[SPARK_PI, args].concat())
}

/// SparkPi with `executors` executors and `slices` slices.
pub fn spark_pi(executors: u32, slices: u32) -> RunResult {
    let n = executors.to_string();
    let s = slices.to_string();
    let args = [
        "--num-executors",
        &n,
        "--executor-memory",
        "2g",
        "--driver-memory",
        "4g",
        "examples/jars/spark-examples.jar",
        &s,
    ];
    submit_pi(&args).expect("a valid submission")
}

/// The exit codes of the AM attempts, in attempt order.
pub fn am_exit_codes(r: &RunResult) -> Vec<i32> {
    r.counters.am_exit_codes.values().copied().collect()
}

/// The driver's stdout (the AM container of the last attempt).
pub fn driver_stdout(r: &RunResult) -> String {
    let cid = r.counters.driver_containers.last().expect("an AM ran");
    r.logs
        .output(cid)
        .map(|o| o.stdout.clone())
        .unwrap_or_default()
}

/// The process a mailbox lives in, from its label `<name>@<process>`.
pub fn mailbox_process(r: &RunResult, id: u32) -> &str {
    r.labels[id as usize]
        .rsplit_once('@')
        .map_or("", |(_, p)| p)
}

/// Delivered messages between two processes (either way), as `from->to: name`, in order.
pub fn conversation(r: &RunResult, a: &str, b: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in &r.trace {
        let (Some(from), Some(to)) = (e.from, e.to) else {
            continue;
        };
        if e.kind != TraceKind::Deliver {
            continue;
        }
        let from = r.processes[from as usize].as_str();
        let to_proc = mailbox_process(r, to.0);
        let endpoint = r.labels[to.0 as usize].split('@').next().unwrap_or("");
        let pair = (from == a && to_proc == b)
            || (from == b && to_proc == a)
            || (from == a && to_proc == a);
        if pair {
            let dir = if from == a { "E" } else { "D" };
            out.push(format!("{dir}->{endpoint}: {}", e.name));
        }
    }
    out
}

/// Runs the `sparkyard` binary with `args`, without the caller's RUST_LOG or SPARK_CONF_DIR.
pub fn binary(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sparkyard"))
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("SPARK_CONF_DIR")
        .output()
        .expect("the binary runs")
}

/// The two submissions sparkyard refuses before anything runs, with the text each must give:
/// a master other than yarn, and client deploy mode.
pub fn not_yarn_cluster() -> [(Vec<&'static str>, &'static str); 2] {
    [
        (
            vec!["submit", "--master", "local[*]", "--class", "X", "a.jar"],
            "sparkyard simulates only --master yarn",
        ),
        (
            vec![
                "submit",
                "--master",
                "yarn",
                "--deploy-mode",
                "client",
                "--class",
                "X",
                "a.jar",
            ],
            "--deploy-mode cluster",
        ),
    ]
}

/// Output bytes as text, for assertions and their messages.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A user error as the binary must end it: exit 1, `needle` in `output`, and no panic.
pub fn assert_user_error(args: &[&str], code: Option<i32>, output: &str, needle: &str) {
    assert_eq!(code, Some(1), "{args:?}:\n{output}");
    assert!(
        output.contains(needle),
        "{args:?}: wanted {needle:?} in\n{output}"
    );
    assert!(
        !output.contains("panicked") && !output.contains("RUST_BACKTRACE"),
        "{args:?}:\n{output}"
    );
}

/// The run's `SparkListenerNodeBlacklisted` / `SparkListenerNodeExcluded` events, in the bus's
/// order: (which twin, host, executor failures).
pub fn node_exclusions(
    r: &RunResult,
) -> Vec<(sparkyard_messages::listener::ExclusionEventName, &str, u32)> {
    use sparkyard_messages::listener::ListenerEvent;
    r.events
        .iter()
        .flat_map(|a| &a.events)
        .filter_map(|e| match e {
            ListenerEvent::NodeExcluded {
                name,
                host_id,
                executor_failures,
                ..
            } => Some((*name, host_id.as_str(), *executor_failures)),
            _ => None,
        })
        .collect()
}

/// The AM container's stderr (the AM's and, in cluster mode, the driver's lines).
pub fn am_stderr_of(r: &RunResult) -> &str {
    &r.logs
        .output(&r.counters.driver_containers[0])
        .expect("the AM logged")
        .stderr
}

/// The embedded cluster file as the replay sizes it from issue 30's GPU log's Hadoop properties
/// (nodes and maximum allocation at 319488 MB and 51 vcores), with one `[costs]` line, given as
/// it stands in the embedded file (`localization_ms = 0`), set to `value`.
pub fn gpu_log_cluster_text(cost: &str, value: u64) -> String {
    let name = cost.split(" = ").next().unwrap_or(cost);
    include_str!("../../config/cluster.toml")
        .replace(cost, &format!("{name} = {value}"))
        .replace(
            "\"yarn.scheduler.maximum-allocation-mb\" = 8192",
            "\"yarn.scheduler.maximum-allocation-mb\" = 319488",
        )
        .replace(
            "\"yarn.scheduler.maximum-allocation-vcores\" = 4",
            "\"yarn.scheduler.maximum-allocation-vcores\" = 51",
        )
        .replace("memory_mb = 65536", "memory_mb = 319488")
        .replace("vcores = 16", "vcores = 51")
}

/// A committed event log (or directory of them) under `tests/data/eventlogs`.
pub fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/eventlogs")
        .join(name)
}

/// A replay's set-up from spark-submit words (no scenario).
pub fn setup(words: &[&str]) -> sparkyard::replay::simulate::ReplaySetup {
    sparkyard::replay::simulate::ReplaySetup {
        submit: sparkyard::replay::simulate::user_submit_args(words).expect("options parse"),
        scenario: None,
    }
}
