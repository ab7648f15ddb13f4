//! Scenario files (TOML): a cluster, a spark-submit line, an optional synthetic workload, the
//! faults with their triggers, and the expectations that must hold at the end. Parsed raw (serde,
//! unknown keys refused with their line), then validated into the simulator's types with errors
//! that name the file, the line and the key.

use crate::conf::cluster::{ClusterConfig, ClusterSource, parse_cluster, read_config_file};
use crate::conf::submit::{DefaultsFile, SubmitArgs};
use crate::error::UserError;
use crate::pipeline::{ClusterChoice, CompletedRun, RunPlan, Submission};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use sparkyard_actors::faults::{
    ContainerEnd, DriverFault, FaultAction, FaultController, PlannedFault, Trigger,
};
use sparkyard_actors::rpc::network::{LinkRule, ProcessPattern, RuleAction};
use sparkyard_actors::world::config::UserProgram;
use sparkyard_messages::task::{JobSpec, StageSpec, TaskWork};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The class name that runs a scenario's synthetic workload.
pub const SYNTHETIC_CLASS: &str = "org.sparkyard.examples.SyntheticJob";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: String,
    #[serde(default)]
    description: String,
    seed: Option<u64>,
    cluster_file: Option<String>,
    cluster: Option<toml::Table>,
    submit: RawSubmit,
    workload: Option<RawWorkload>,
    #[serde(default)]
    faults: Vec<Spanned<RawFault>>,
    #[serde(default)]
    expect: Expectations,
    chaos: Option<RawChaos>,
}

/// Random faults drawn per seed (`sparkyard sweep`, and `run --seed N` to reproduce one).
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawChaos {
    #[serde(default = "chaos_faults")]
    faults: [u32; 2],
    window_ms: [u64; 2],
    kinds: Vec<String>,
    #[serde(default = "chaos_executors")]
    executors: [u32; 2],
    #[serde(default = "chaos_exits")]
    exit_codes: Vec<i32>,
    #[serde(default = "chaos_statuses")]
    statuses: Vec<i32>,
    #[serde(default = "chaos_delay")]
    delay_ms: [u64; 2],
    #[serde(default = "chaos_partition")]
    partition_ms: [u64; 2],
    #[serde(default = "chaos_deadline")]
    deadline_ms: u64,
}

fn chaos_faults() -> [u32; 2] {
    [1, 3]
}
fn chaos_executors() -> [u32; 2] {
    [1, 4]
}
fn chaos_exits() -> Vec<i32> {
    vec![1, 52, 137, 143]
}
fn chaos_statuses() -> Vec<i32> {
    vec![-104, -103, -102, -101, -106]
}
fn chaos_delay() -> [u64; 2] {
    [100, 5000]
}
fn chaos_partition() -> [u64; 2] {
    [10_000, 200_000]
}
fn chaos_deadline() -> u64 {
    6 * 3_600_000
}

/// The fault kinds `[chaos]` can draw.
const CHAOS_KINDS: [&str; 7] = [
    "kill-executor",
    "nm-kill",
    "kill-am",
    "kill-node",
    "delay",
    "partition",
    "launch-failure",
];

/// Labels of drawn faults start with this: a chaos fault that never fires is not a failure.
pub const CHAOS_LABEL: &str = "chaos: ";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSubmit {
    class: String,
    #[serde(default)]
    args: Vec<String>,
    name: Option<String>,
    num_executors: Option<u32>,
    executor_memory: Option<String>,
    executor_cores: Option<u32>,
    driver_memory: Option<String>,
    driver_cores: Option<u32>,
    queue: Option<String>,
    jar: Option<String>,
    #[serde(default)]
    conf: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkload {
    #[serde(default = "default_app_name")]
    app_name: String,
    jobs: Vec<RawJob>,
}

fn default_app_name() -> String {
    "Synthetic Job".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    call_site: String,
    stages: Vec<RawStage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStage {
    name: String,
    tasks: u32,
    duration: RawDuration,
    #[serde(default)]
    parents: Vec<usize>,
    fail: Option<RawFail>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDuration {
    fixed_ms: Option<u64>,
    uniform_ms: Option<[u64; 2]>,
    lognormal_median_ms: Option<u64>,
    lognormal_sigma: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFail {
    indices: Vec<u32>,
    message: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFault {
    kind: String,
    #[serde(default)]
    label: Option<String>,
    at_ms: Option<u64>,
    on_executor_registered: Option<u32>,
    on_task_started: Option<[u32; 2]>,
    on_tasks_finished: Option<u64>,
    on_attempt_started: Option<u32>,
    #[serde(default)]
    after_ms: u64,
    #[serde(default = "one")]
    attempt: u32,
    executor: Option<u32>,
    exit: Option<i32>,
    status: Option<i32>,
    host: Option<String>,
    count: Option<u32>,
    from: Option<String>,
    to: Option<String>,
    message: Option<String>,
    probability: Option<f64>,
    delay_ms: Option<u64>,
    duration_ms: Option<u64>,
    exception: Option<String>,
}

fn one() -> u32 {
    1
}

/// A validated scenario.
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub path: PathBuf,
    pub seed: Option<u64>,
    pub cluster: ClusterConfig,
    /// The spark-submit words (`--master yarn --deploy-mode cluster ...`).
    pub submit_words: Vec<String>,
    pub synthetic: Option<UserProgram>,
    pub faults: Vec<PlannedFault>,
    pub driver_faults: Vec<(u32, DriverFault)>,
    pub expect: Expectations,
    chaos: Option<RawChaos>,
    /// Test-only (no scenario key sets it): `RunOptions::panic_at_ms` for every run of it.
    #[doc(hidden)]
    pub panic_at_ms: Option<u64>,
}

impl Scenario {
    /// Whether the scenario draws random faults per seed.
    pub fn has_chaos(&self) -> bool {
        self.chaos.is_some()
    }

    /// The faults of one run under `seed`: the planned ones, the `[chaos]` ones drawn from the
    /// seed, and the `[chaos]` deadline (what `run` uses; `sparkyard replay --scenario` too).
    pub fn fault_plan(&self, seed: u64) -> (FaultController, Option<u64>) {
        let mut planned = self.faults.clone();
        if let Some(c) = &self.chaos {
            planned.extend(chaos_faults_for(c, seed, &self.cluster));
        }
        let deadline = self.chaos.as_ref().map(|c| c.deadline_ms);
        (
            FaultController::new(planned, self.driver_faults.clone()),
            deadline,
        )
    }

    /// The virtual deadline for one run (a run past it is a hang).
    pub fn deadline_ms(&self) -> Option<u64> {
        self.chaos.as_ref().map(|c| c.deadline_ms)
    }
}

/// What must hold at the end of the run: the `[expect]` table as written; `load` checks the
/// state names (kept as strings so that a wrong one can be quoted in the error).
#[derive(Deserialize, Default, Debug)]
// `expecting` words the error for a non-table `expect = 3` for the user, not after a Rust type.
#[serde(deny_unknown_fields, expecting = "a table of expectations")]
pub struct Expectations {
    pub state: Option<String>,
    pub final_status: Option<String>,
    pub am_exit_codes: Option<Vec<i32>>,
    pub attempts: Option<u32>,
    pub executor_failures: Option<u32>,
    pub executors_launched: Option<u32>,
    pub executors_lost: Option<u32>,
    pub tasks_failed: Option<u64>,
    pub tasks_finished: Option<u64>,
    #[serde(default)]
    pub diagnostics_contain: Vec<String>,
    #[serde(default)]
    pub logs_contain: Vec<String>,
    #[serde(default)]
    pub logs_not_contain: Vec<String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// Loads and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, UserError> {
    let label = path.display().to_string();
    let text = read_config_file(path, &label, "scenario")?;
    if text.trim().is_empty() {
        return Err(UserError::file(
            &label,
            "the file is empty; a scenario needs at least `name` and a [submit] table",
        ));
    }
    let raw: RawScenario =
        toml::from_str(&text).map_err(|e| UserError::file(&label, e.to_string()))?;
    let err = |m: String| UserError::file(&label, m);
    let dir = path.parent().unwrap_or(Path::new("."));
    let cluster = match (&raw.cluster_file, &raw.cluster) {
        (Some(_), Some(_)) => {
            return Err(err(
                "give either cluster_file or a [cluster] table, not both".into(),
            ));
        }
        (Some(f), None) => crate::conf::cluster::load_cluster(ClusterSource::Path(dir.join(f)))?,
        (None, Some(t)) => {
            let inline = toml::to_string(t).map_err(|e| err(format!("[cluster]: {e}")))?;
            parse_cluster(&inline, &format!("{label} (inline [cluster] table)"))?
        }
        (None, None) => crate::conf::cluster::load_cluster(ClusterSource::Embedded)?,
    };
    let seed = raw.seed.unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let synthetic = raw
        .workload
        .as_ref()
        .map(|w| workload(w, seed))
        .transpose()
        .map_err(err)?;
    if synthetic.is_some() && raw.submit.class != SYNTHETIC_CLASS {
        return Err(err(format!(
            "submit.class: a [workload] runs as `{SYNTHETIC_CLASS}`, not `{}`",
            raw.submit.class
        )));
    }
    let mut faults = Vec::new();
    let mut driver_faults = Vec::new();
    for (i, f) in raw.faults.iter().enumerate() {
        let line = line_of(&text, f.span().start);
        let at = format!("line {line}: faults[{i}]");
        match fault(f.get_ref(), &cluster).map_err(|m| err(format!("{at}: {m}")))? {
            Planned::Fault(p) => faults.push(p),
            Planned::Driver(attempt, d) => driver_faults.push((attempt, d)),
        }
    }
    validate_expectations(&raw.expect).map_err(err)?;
    if let Some(c) = &raw.chaos {
        validate_chaos(c).map_err(|m| err(format!("chaos.{m}")))?;
    }
    Ok(Scenario {
        name: raw.name,
        description: raw.description,
        path: path.to_path_buf(),
        seed: raw.seed,
        cluster,
        submit_words: submit_words(&raw.submit),
        synthetic,
        faults,
        driver_faults,
        expect: raw.expect,
        chaos: raw.chaos,
        panic_at_ms: None,
    })
}

fn validate_chaos(c: &RawChaos) -> Result<(), String> {
    let range = |[lo, hi]: [u64; 2], key: &str| {
        if lo <= hi {
            Ok(())
        } else {
            Err(format!("{key}: [{lo}, {hi}] is not a range"))
        }
    };
    range([u64::from(c.faults[0]), u64::from(c.faults[1])], "faults")?;
    range(c.window_ms, "window_ms")?;
    range(
        [u64::from(c.executors[0].max(1)), u64::from(c.executors[1])],
        "executors",
    )?;
    range(c.delay_ms, "delay_ms")?;
    range(c.partition_ms, "partition_ms")?;
    if c.kinds.is_empty() {
        return Err("kinds: name at least one fault kind".into());
    }
    if let Some(k) = c.kinds.iter().find(|k| !CHAOS_KINDS.contains(&k.as_str())) {
        return Err(format!(
            "kinds: `{k}` is not one of {}",
            CHAOS_KINDS.join(", ")
        ));
    }
    if c.exit_codes.is_empty() || c.statuses.is_empty() {
        return Err("exit_codes / statuses: may not be empty".into());
    }
    if let Some(s) = c.statuses.iter().find(|s| !(-109..=-100).contains(*s)) {
        return Err(format!(
            "statuses: {s} is not a YARN ContainerExitStatus the NodeManager reports (-100 to -109)"
        ));
    }
    if c.deadline_ms == 0 {
        return Err("deadline_ms: must be positive".into());
    }
    Ok(())
}

/// The random faults of one seed.
fn chaos_faults_for(c: &RawChaos, seed: u64, cluster: &ClusterConfig) -> Vec<PlannedFault> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc4a0_5eed);
    let n = rng.random_range(c.faults[0]..=c.faults[1]);
    (0..n).map(|_| chaos_fault(c, &mut rng, cluster)).collect()
}

fn pick<T: Clone>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.random_range(0..xs.len())].clone()
}

fn chaos_fault(c: &RawChaos, rng: &mut ChaCha8Rng, cluster: &ClusterConfig) -> PlannedFault {
    let kind = pick(rng, &c.kinds);
    let at = rng.random_range(c.window_ms[0]..=c.window_ms[1]);
    let executor = rng.random_range(c.executors[0].max(1)..=c.executors[1].max(1));
    let host = pick(rng, &cluster.nodes).host;
    let (action, what) = match kind.as_str() {
        "kill-executor" => {
            let code = pick(rng, &c.exit_codes);
            (
                FaultAction::KillExecutor {
                    executor,
                    end: ContainerEnd::ProcessExit(code),
                },
                format!("executor {executor} exits {code}"),
            )
        }
        "nm-kill" => {
            let status = pick(rng, &c.statuses);
            (
                FaultAction::KillExecutor {
                    executor,
                    end: ContainerEnd::NodeManagerKill(status),
                },
                format!("NodeManager kills executor {executor} ({status})"),
            )
        }
        "kill-am" => (
            FaultAction::KillApplicationMaster {
                end: ContainerEnd::ProcessExit(137),
            },
            "the AM is killed".into(),
        ),
        "kill-node" => (
            FaultAction::KillNode { host: host.clone() },
            format!("{host} dies"),
        ),
        "launch-failure" => (
            FaultAction::FailLaunches {
                host: host.clone(),
                count: 1,
            },
            format!("a launch fails on {host}"),
        ),
        "delay" => {
            let ms = rng.random_range(c.delay_ms[0]..=c.delay_ms[1]);
            let rule = LinkRule {
                from: ProcessPattern::Executor(executor),
                to: ProcessPattern::Driver,
                message: None,
                active_from_ms: 0,
                active_until_ms: 30_000,
                action: RuleAction::Delay { ms },
                probability_ppm: 1_000_000,
                both_ways: true,
            };
            (
                FaultAction::Network(vec![rule]),
                format!("executor {executor} <-> driver delayed {ms} ms for 30 s"),
            )
        }
        _ => {
            let ms = rng.random_range(c.partition_ms[0]..=c.partition_ms[1]);
            let rule = LinkRule {
                from: ProcessPattern::Executor(executor),
                to: ProcessPattern::Driver,
                message: None,
                active_from_ms: 0,
                active_until_ms: ms,
                action: RuleAction::HoldUntilEnd,
                probability_ppm: 1_000_000,
                both_ways: true,
            };
            (
                FaultAction::Network(vec![rule]),
                format!("executor {executor} partitioned from the driver for {ms} ms"),
            )
        }
    };
    PlannedFault {
        trigger: Trigger::At { ms: at },
        after_ms: 0,
        action,
        label: format!("{CHAOS_LABEL}{what} at {at} ms"),
    }
}

fn submit_words(s: &RawSubmit) -> Vec<String> {
    let mut w: Vec<String> = [
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--class",
        &s.class,
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    let mut flag = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            w.push(name.to_string());
            w.push(v);
        }
    };
    flag("--name", s.name.clone());
    flag("--num-executors", s.num_executors.map(|n| n.to_string()));
    flag("--executor-memory", s.executor_memory.clone());
    flag("--executor-cores", s.executor_cores.map(|n| n.to_string()));
    flag("--driver-memory", s.driver_memory.clone());
    flag("--driver-cores", s.driver_cores.map(|n| n.to_string()));
    flag("--queue", s.queue.clone());
    for (k, v) in &s.conf {
        w.push("--conf".into());
        w.push(format!("{k}={v}"));
    }
    w.push(s.jar.clone().unwrap_or_else(|| "app.jar".into()));
    w.extend(s.args.iter().cloned());
    w
}

/// The synthetic application: each stage's task durations drawn from the seed.
fn workload(w: &RawWorkload, seed: u64) -> Result<UserProgram, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x00c0_ffee);
    let mut jobs = Vec::new();
    for (j, job) in w.jobs.iter().enumerate() {
        if job.stages.is_empty() {
            return Err(format!(
                "workload.jobs[{j}].stages: a job needs at least one stage"
            ));
        }
        let mut stages = Vec::new();
        for (s, st) in job.stages.iter().enumerate() {
            let at = format!("workload.jobs[{j}].stages[{s}]");
            if st.tasks == 0 || st.tasks > 10_000_000 {
                return Err(format!(
                    "{at}.tasks: must be between 1 and 10000000, got {}",
                    st.tasks
                ));
            }
            if let Some(p) = st.parents.iter().find(|p| **p >= s) {
                return Err(format!(
                    "{at}.parents: {p} is not an earlier stage of this job"
                ));
            }
            let tasks = (0..st.tasks)
                .map(|i| task(st, i, &mut rng))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| format!("{at}.{m}"))?;
            stages.push(StageSpec {
                rdd_description: format!("MapPartitionsRDD[{}] at {}", s + 1, st.name),
                num_partitions: st.tasks,
                parents: st.parents.clone(),
                tasks,
            });
        }
        jobs.push(JobSpec {
            call_site: job.call_site.clone(),
            stages,
        });
    }
    if jobs.is_empty() {
        return Err("workload.jobs: a workload needs at least one job".into());
    }
    Ok(UserProgram::Synthetic {
        class: SYNTHETIC_CLASS.into(),
        app_name: w.app_name.clone(),
        jobs,
    })
}

fn task(st: &RawStage, index: u32, rng: &mut ChaCha8Rng) -> Result<TaskWork, String> {
    let d = &st.duration;
    let duration_ms = match (d.fixed_ms, d.uniform_ms, d.lognormal_median_ms) {
        (Some(ms), None, None) => ms,
        (None, Some([lo, hi]), None) if lo <= hi => rng.random_range(lo..=hi),
        (None, Some([lo, hi]), None) => {
            return Err(format!("duration.uniform_ms: [{lo}, {hi}] is not a range"));
        }
        (None, None, Some(median)) => {
            let sigma = d.lognormal_sigma.unwrap_or(0.5);
            if !(0.0..=5.0).contains(&sigma) {
                return Err(format!(
                    "duration.lognormal_sigma: must be within 0 and 5, got {sigma}"
                ));
            }
            lognormal(rng, median as f64, sigma)
        }
        _ => {
            return Err(
                "duration: give exactly one of fixed_ms, uniform_ms, lognormal_median_ms".into(),
            );
        }
    };
    if duration_ms > 30 * 86_400_000 {
        return Err(format!("duration: {duration_ms} ms is more than 30 days"));
    }
    let fail = st
        .fail
        .as_ref()
        .filter(|f| f.indices.contains(&index))
        .map(|f| f.message.clone());
    Ok(TaskWork::Sleep { duration_ms, fail })
}

/// A log-normal draw (Box-Muller) with the given median.
fn lognormal(rng: &mut ChaCha8Rng, median: f64, sigma: f64) -> u64 {
    let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    (median * (sigma * z).exp())
        .round()
        .clamp(0.0, 30.0 * 86_400_000.0) as u64
}

enum Planned {
    Fault(PlannedFault),
    Driver(u32, DriverFault),
}

fn trigger(f: &RawFault) -> Result<Trigger, String> {
    let attempt = f.attempt;
    let t = [
        f.at_ms.map(|ms| Trigger::At { ms }),
        f.on_executor_registered
            .map(|executor| Trigger::ExecutorRegistered { attempt, executor }),
        f.on_task_started
            .map(|[stage, index]| Trigger::TaskStarted {
                attempt,
                stage,
                index,
            }),
        f.on_tasks_finished
            .map(|count| Trigger::TasksFinished { attempt, count }),
        f.on_attempt_started
            .map(|attempt| Trigger::AttemptStarted { attempt }),
    ];
    let mut given = t.into_iter().flatten();
    match (given.next(), given.next()) {
        (Some(t), None) => Ok(t),
        (None, _) => Err("needs a trigger: at_ms, on_executor_registered, on_task_started, on_tasks_finished or on_attempt_started".into()),
        (Some(_), Some(_)) => Err("give exactly one trigger".into()),
    }
}

fn need<T: Clone>(v: &Option<T>, key: &str, kind: &str) -> Result<T, String> {
    v.clone()
        .ok_or_else(|| format!("kind '{kind}' needs `{key}`"))
}

fn known_host(host: &str, cluster: &ClusterConfig) -> Result<String, String> {
    if cluster.nodes.iter().any(|n| n.host == host) {
        Ok(host.to_string())
    } else {
        Err(format!(
            "host: `{host}` is not a NodeManager of this cluster"
        ))
    }
}

/// How the container ends: `exit` (the JVM exits with it) or `status` (the NM kills it).
fn container_end(f: &RawFault, default_exit: i32) -> Result<ContainerEnd, String> {
    match (f.exit, f.status) {
        (Some(_), Some(_)) => Err(
            "give `exit` (the JVM's exit code) or `status` (a YARN ContainerExitStatus), not both"
                .into(),
        ),
        (None, Some(s)) if (-109..=-100).contains(&s) => Ok(ContainerEnd::NodeManagerKill(s)),
        (None, Some(s)) => Err(format!(
            "status: {s} is not a YARN ContainerExitStatus the NodeManager reports (-100 to -109)"
        )),
        (Some(e), None) if (0..=255).contains(&e) => Ok(ContainerEnd::ProcessExit(e)),
        (Some(e), None) => Err(format!("exit: {e} is not a process exit code (0 to 255)")),
        (None, None) => Ok(ContainerEnd::ProcessExit(default_exit)),
    }
}

fn pattern(
    v: &Option<String>,
    key: &str,
    cluster: &ClusterConfig,
) -> Result<ProcessPattern, String> {
    let Some(v) = v.as_deref() else {
        return Ok(ProcessPattern::Any);
    };
    match v {
        "*" => Ok(ProcessPattern::Any),
        "driver" | "am" => Ok(ProcessPattern::Driver),
        "rm" => Ok(ProcessPattern::Named("rm".into())),
        "client" => Ok(ProcessPattern::Named("spark-submit".into())),
        _ => match v.split_once(':') {
            Some(("executor", n)) => n
                .parse()
                .map(ProcessPattern::Executor)
                .map_err(|_| format!("{key}: `{v}` needs an executor number")),
            Some(("nm", h)) => {
                known_host(h, cluster).map(|h| ProcessPattern::Named(format!("nm:{h}")))
            }
            _ => Err(format!(
                "{key}: `{v}` is not one of *, driver, rm, client, executor:<n>, nm:<host>"
            )),
        },
    }
}

fn network(f: &RawFault, cluster: &ClusterConfig) -> Result<FaultAction, String> {
    let p = f.probability.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("probability: must be within 0 and 1, got {p}"));
    }
    let action = match f.kind.as_str() {
        "drop" => RuleAction::Drop,
        "partition" => RuleAction::HoldUntilEnd,
        "delay" => RuleAction::Delay {
            ms: need(&f.delay_ms, "delay_ms", &f.kind)?,
        },
        _ => RuleAction::Duplicate,
    };
    let rule = LinkRule {
        from: pattern(&f.from, "from", cluster)?,
        to: pattern(&f.to, "to", cluster)?,
        message: f.message.clone(),
        active_from_ms: 0,
        active_until_ms: f.duration_ms.unwrap_or(u64::MAX / 4),
        action,
        probability_ppm: (p * 1_000_000.0).round() as u32,
        both_ways: f.kind == "partition",
    };
    if f.kind == "partition" && (f.from.is_none() || f.to.is_none() || f.duration_ms.is_none()) {
        return Err("kind 'partition' needs `from`, `to` and `duration_ms`".into());
    }
    Ok(FaultAction::Network(vec![rule]))
}

fn fault(f: &RawFault, cluster: &ClusterConfig) -> Result<Planned, String> {
    let kind = f.kind.as_str();
    if f.attempt == 0 {
        return Err("attempt: AM attempts count from 1".into());
    }
    let driver = |d: DriverFault| {
        Ok(Planned::Driver(
            f.on_attempt_started.unwrap_or(f.attempt),
            d,
        ))
    };
    let exception = || {
        f.exception
            .clone()
            .unwrap_or_else(|| "java.lang.RuntimeException: injected failure".into())
    };
    let action = match kind {
        "user-class-throws" => return driver(DriverFault::ThrowAfterContext(exception())),
        "user-class-throws-before-context" => {
            return driver(DriverFault::ThrowBeforeContext(exception()));
        }
        "no-spark-context" => return driver(DriverFault::NeverCreateContext),
        "kill-executor" => FaultAction::KillExecutor {
            executor: need(&f.executor, "executor", kind)?,
            end: container_end(f, 137)?,
        },
        "kill-am" => FaultAction::KillApplicationMaster {
            end: container_end(f, 137)?,
        },
        "kill-node" => FaultAction::KillNode {
            host: known_host(&need(&f.host, "host", kind)?, cluster)?,
        },
        "launch-failure" => FaultAction::FailLaunches {
            host: known_host(&need(&f.host, "host", kind)?, cluster)?,
            count: f.count.unwrap_or(1),
        },
        "exclude-node" => FaultAction::ExcludeNode {
            host: known_host(&need(&f.host, "host", kind)?, cluster)?,
        },
        "drop" | "delay" | "duplicate" | "partition" => network(f, cluster)?,
        other => {
            return Err(format!(
                "kind: unknown fault kind `{other}` (kill-executor, kill-am, kill-node, launch-failure, exclude-node, drop, delay, duplicate, partition, user-class-throws, user-class-throws-before-context, no-spark-context)"
            ));
        }
    };
    let trigger = trigger(f)?;
    let label = f.label.clone().unwrap_or_else(|| kind.to_string());
    Ok(Planned::Fault(PlannedFault {
        trigger,
        after_ms: f.after_ms,
        action,
        label,
    }))
}

fn validate_expectations(e: &Expectations) -> Result<(), String> {
    const STATES: [&str; 8] = [
        "NEW",
        "NEW_SAVING",
        "SUBMITTED",
        "ACCEPTED",
        "RUNNING",
        "FINISHED",
        "FAILED",
        "KILLED",
    ];
    const FINALS: [&str; 4] = ["UNDEFINED", "SUCCEEDED", "FAILED", "KILLED"];
    if let Some(s) = e.state.as_deref().filter(|s| !STATES.contains(s)) {
        return Err(format!(
            "expect.state: `{s}` is not a YARN application state ({})",
            STATES.join(", ")
        ));
    }
    if let Some(s) = e.final_status.as_deref().filter(|s| !FINALS.contains(s)) {
        return Err(format!(
            "expect.final_status: `{s}` is not a final status ({})",
            FINALS.join(", ")
        ));
    }
    Ok(())
}

/// A scenario that ran: what happened and which expectations failed.
pub struct ScenarioRun {
    pub result: crate::runner::RunResult,
    /// The Spark settings the run used (the event log needs them).
    pub spark: sparkyard_actors::world::config::SparkSettings,
    pub failures: Vec<String>,
    pub seed: u64,
}

/// Runs the scenario under `seed` (the file's own seed when `None`) and checks its expectations.
pub fn run(
    s: &Scenario,
    seed: Option<u64>,
    mut opts: crate::runner::RunOptions,
) -> Result<ScenarioRun, UserError> {
    let seed = seed.or(s.seed).unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let args = SubmitArgs::from_words(&s.submit_words).map_err(|e| {
        UserError::file(
            s.path.display().to_string(),
            format!("[submit]: {}", e.render()),
        )
    })?;
    let submission = Submission::from_args(args, DefaultsFile::embedded())?;
    opts.panic_at_ms = opts.panic_at_ms.or(s.panic_at_ms);
    let mut planned = s.faults.clone();
    if let Some(c) = &s.chaos {
        planned.extend(chaos_faults_for(c, seed, &s.cluster));
        opts.deadline_ms = c.deadline_ms;
    }
    let prepared = submission.prepare(RunPlan {
        cluster: ClusterChoice::Loaded(s.cluster.clone()),
        seed: Some(seed),
        options: opts,
        synthetic: s.synthetic.clone(),
        faults: FaultController::new(planned, s.driver_faults.clone()),
    })?;
    let limits = crate::invariants::Limits::of(&prepared.config);
    let CompletedRun {
        spark, mut result, ..
    } = prepared.run()?;
    let end = crate::invariants::check(&result, &limits);
    result.violations.extend(end);
    let mut failures = check(&s.expect, &result);
    failures.extend(
        result
            .violations
            .iter()
            .map(|v| format!("invariant {} broken: {}", v.invariant, v.detail)),
    );
    Ok(ScenarioRun {
        result,
        spark,
        failures,
        seed,
    })
}

/// A counted expectation: what is counted, the count the scenario expects, the run's count.
struct Count {
    what: &'static str,
    want: Option<u64>,
    got: u64,
}

impl Count {
    fn of(what: &'static str, want: Option<impl Into<u64>>, got: impl Into<u64>) -> Self {
        Count {
            what,
            want: want.map(Into::into),
            got: got.into(),
        }
    }
}

/// Every expectation that does not hold, as a sentence.
pub fn check(e: &Expectations, r: &crate::runner::RunResult) -> Vec<String> {
    let mut out: Vec<String> = r
        .faults_unfired
        .iter()
        .filter(|f| !f.starts_with(CHAOS_LABEL))
        .map(|f| format!("fault `{f}` never fired: its trigger did not happen"))
        .collect();
    let c = &r.counters;
    let state = r
        .outcome
        .state
        .map(|s| s.to_string())
        .unwrap_or_else(|| "(not submitted)".into());
    let fs = r
        .outcome
        .final_status
        .map(|s| s.to_string())
        .unwrap_or_else(|| "(none)".into());
    let mut eq = |what: &str, want: Option<String>, got: String| {
        if let Some(w) = want.filter(|w| *w != got) {
            out.push(format!("expected {what} {w}, got {got}"));
        }
    };
    eq("state", e.state.clone(), state);
    eq("final status", e.final_status.clone(), fs);
    let codes: Vec<i32> = c.am_exit_codes.values().copied().collect();
    eq(
        "AM exit codes",
        e.am_exit_codes.as_ref().map(|v| format!("{v:?}")),
        format!("{codes:?}"),
    );
    let counts = [
        Count::of("AM attempts", e.attempts, c.am_attempts),
        Count::of(
            "executor failures counted",
            e.executor_failures,
            c.executor_failures_counted,
        ),
        Count::of(
            "executors launched",
            e.executors_launched,
            c.executors_launched,
        ),
        Count::of(
            "executors lost",
            e.executors_lost,
            c.executors_lost.len() as u64,
        ),
        Count::of("failed task attempts", e.tasks_failed, c.tasks_failed),
        Count::of("finished tasks", e.tasks_finished, c.tasks_finished),
    ];
    for n in counts {
        eq(n.what, n.want.map(|v| v.to_string()), n.got.to_string());
    }
    for d in &e.diagnostics_contain {
        if !r.outcome.diagnostics.contains(d.as_str()) {
            out.push(format!(
                "expected the diagnostics to contain {d:?}; they are {:?}",
                r.outcome.diagnostics
            ));
        }
    }
    let in_logs = |needle: &str| {
        r.logs
            .outputs()
            .values()
            .any(|o| o.stderr.contains(needle) || o.stdout.contains(needle))
    };
    for l in &e.logs_contain {
        if !in_logs(l) {
            out.push(format!("expected a log line containing {l:?}"));
        }
    }
    for l in &e.logs_not_contain {
        if in_logs(l) {
            out.push(format!("expected no log line containing {l:?}"));
        }
    }
    out
}
