//! Scenario files (TOML): a cluster, a spark-submit line, an optional synthetic workload, the
//! faults with their triggers, and the expectations that must hold at the end. Parsed raw (serde,
//! unknown keys refused with their line), then validated into the simulator's types with errors
//! that name the file, the line and the key. The raw types derive `schemars::JsonSchema`, so
//! `config/scenario.schema.json` (module `schema`) follows every key added here; `docs/scenarios.md`
//! documents them. `shrink` minimises a seed's fault schedule into a plain scenario file.

pub mod schema;
pub mod shrink;

use crate::conf::cluster::{ClusterConfig, ClusterSource, read_config_file};
use crate::conf::submit::{DefaultsFile, SubmitArgs};
use crate::error::UserError;
use crate::pipeline::{ClusterChoice, CompletedRun, RunPlan, Submission};
use crate::runner::RunResult;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sparkyard_actors::faults::{
    ContainerEnd, DriverFault, FaultAction, FaultController, NodeTarget, PlannedFault, Trigger,
};
use sparkyard_actors::kernel::trace::{FaultTarget, StateChange, TraceKind};
use sparkyard_actors::rpc::network::{LinkRule, ProcessPattern, RuleAction};
use sparkyard_actors::world::config::UserProgram;
use sparkyard_messages::task::{
    HotPartitions, InputSize, JobSpec, ShuffleWriteSize, StageSpec, TaskWork,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The class name that runs a scenario's synthetic workload.
pub const SYNTHETIC_CLASS: &str = "org.sparkyard.examples.SyntheticJob";

/// A sparkyard scenario: a cluster, a spark-submit line, an optional synthetic workload, faults
/// and the expectations checked at the end (docs/scenarios.md).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "sparkyard scenario")]
pub(crate) struct RawScenario {
    /// The scenario's name, printed by `sparkyard run`.
    name: String,
    /// What the scenario shows (free text).
    #[serde(default)]
    description: String,
    /// The seed every random choice derives from (default 42); `run --seed N` overrides it.
    seed: Option<u64>,
    /// Virtual time after which a run that has not ended is a hang, ms (default: one day, or
    /// `[chaos].deadline_ms`).
    deadline_ms: Option<u64>,
    /// A cluster file (path relative to this file); give it or a `[cluster]` table, not both.
    /// Default: the embedded config/cluster.toml (8 NodeManagers on two racks).
    cluster_file: Option<String>,
    /// The cluster, written inline (the keys of a cluster file).
    cluster: Option<crate::conf::cluster::RawCluster>,
    /// The spark-submit line (`--master yarn --deploy-mode cluster` is implied).
    submit: RawSubmit,
    /// A synthetic application (jobs of stages of sleeping tasks) run as the user class.
    workload: Option<RawWorkload>,
    /// Faults, each with one trigger.
    #[serde(default)]
    #[schemars(with = "Vec<RawFault>")]
    faults: Vec<Spanned<RawFault>>,
    /// What must hold at the end of the run.
    #[serde(default)]
    expect: Expectations,
    /// Random faults drawn per seed (`sparkyard sweep`, `sparkyard shrink`).
    chaos: Option<RawChaos>,
}

/// Random faults drawn per seed (`sparkyard sweep`, and `run --seed N` to reproduce one).
#[derive(Deserialize, Clone, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Chaos")]
struct RawChaos {
    /// How many faults each seed draws: [min, max] (default [1, 3]).
    #[serde(default = "chaos_faults")]
    faults: [u32; 2],
    /// When the faults fire: [from, to], ms of virtual time after submission.
    window_ms: [u64; 2],
    /// The kinds drawn from (each equally likely).
    #[schemars(with = "Vec<ChaosKind>")]
    kinds: Vec<String>,
    /// Executor numbers drawn for kill-executor, nm-kill, delay, partition: [min, max]
    /// (default [1, 4]). kill-node, decommission-node and kill-shuffle-service act on the node
    /// of the drawn number's running executor (`target = "running-executor:K"`: the K-th
    /// running executor in id order, wrapping), so they hit the application while any executor
    /// runs; launch-failure draws any node.
    #[serde(default = "chaos_executors")]
    executors: [u32; 2],
    /// Exit codes drawn for kill-executor (default [1, 52, 137, 143]).
    #[serde(default = "chaos_exits")]
    exit_codes: Vec<i32>,
    /// YARN ContainerExitStatus values drawn for nm-kill, -100 to -109 (default [-104, -103,
    /// -102, -101, -106]).
    #[serde(default = "chaos_statuses")]
    statuses: Vec<i32>,
    /// Delay of a `delay` fault: [min, max] ms (default [100, 5000]); it lasts 30 s.
    #[serde(default = "chaos_delay")]
    delay_ms: [u64; 2],
    /// Length of a `partition`: [min, max] ms (default [10000, 200000]).
    #[serde(default = "chaos_partition")]
    partition_ms: [u64; 2],
    /// Virtual time after which a run is a hang, ms (default 21600000, 6 h).
    #[serde(default = "chaos_deadline")]
    deadline_ms: u64,
}

/// A string schema whose values are one of a list (the kinds' enums of the schema).
macro_rules! string_enum_schema {
    ($(#[$doc:meta])* $name:ident, $values:expr) => {
        $(#[$doc])*
        struct $name;

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": $values })
            }
        }
    };
}

string_enum_schema!(
    /// A fault kind `[chaos]` can draw (the schema's enum of [`CHAOS_KINDS`]).
    ChaosKind,
    CHAOS_KINDS
);
string_enum_schema!(
    /// A `[[faults]]` kind (the schema's enum of [`FAULT_KINDS`]).
    FaultKind,
    FAULT_KINDS
);

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
const CHAOS_KINDS: [&str; 10] = [
    "kill-executor",
    "nm-kill",
    "kill-am",
    "kill-node",
    "decommission-node",
    "delay",
    "partition",
    "launch-failure",
    "fetch-failure",
    "kill-shuffle-service",
];

/// The `kind`s of `[[faults]]`. A new kind goes here as well as in [`fault`]'s match (and in
/// [`KIND_KEYS`] when it takes keys beyond the trigger): the schema's enum and the error for an
/// unknown kind are made from this list.
pub const FAULT_KINDS: &[&str] = &[
    "kill-executor",
    "kill-am",
    "kill-node",
    "decommission-node",
    "launch-failure",
    "exclude-node",
    "fetch-failure",
    "kill-shuffle-service",
    "slow-node",
    "failing-executor",
    "drop",
    "delay",
    "duplicate",
    "partition",
    "user-class-throws",
    "user-class-throws-before-context",
    "no-spark-context",
];

/// Keys of a `[[faults]]` entry that every timed or event-triggered kind takes.
const TRIGGER_KEYS: &[&str] = &[
    "kind",
    "label",
    "at_ms",
    "on_executor_registered",
    "on_task_started",
    "on_tasks_finished",
    "on_attempt_started",
    "after_ms",
    "attempt",
];

/// The keys each kind takes besides [`TRIGGER_KEYS`] (a key given to a kind that ignores it is
/// an error). The driver faults are keyed by attempt only: they take no time trigger.
const KIND_KEYS: &[(&str, &[&str])] = &[
    ("kill-executor", &["executor", "exit", "status"]),
    ("kill-am", &["exit", "status"]),
    ("kill-node", &["host", "target"]),
    ("decommission-node", &["host", "target"]),
    ("fetch-failure", &["stage", "partition", "count"]),
    ("kill-shuffle-service", &["host", "target"]),
    ("slow-node", &["host", "target", "factor", "duration_ms"]),
    ("launch-failure", &["host", "target", "count"]),
    ("exclude-node", &["host", "target"]),
    ("failing-executor", &["executor", "exception"]),
    (
        "drop",
        &[
            "from",
            "to",
            "message",
            "probability",
            "duration_ms",
            "both_ways",
        ],
    ),
    (
        "delay",
        &[
            "from",
            "to",
            "message",
            "probability",
            "delay_ms",
            "duration_ms",
            "both_ways",
        ],
    ),
    (
        "duplicate",
        &[
            "from",
            "to",
            "message",
            "probability",
            "duration_ms",
            "both_ways",
        ],
    ),
    (
        "partition",
        &[
            "from",
            "to",
            "message",
            "probability",
            "duration_ms",
            "both_ways",
        ],
    ),
];

/// The keys of the driver faults (they fire when their AM attempt starts; they print no label).
const DRIVER_KIND_KEYS: &[(&str, &[&str])] = &[
    (
        "user-class-throws",
        &["kind", "attempt", "on_attempt_started", "exception"],
    ),
    (
        "user-class-throws-before-context",
        &["kind", "attempt", "on_attempt_started", "exception"],
    ),
    (
        "no-spark-context",
        &["kind", "attempt", "on_attempt_started"],
    ),
];

/// The keys given to a fault of `kind` that it does not use, with the keys it does take; `None`
/// for a kind without an entry in [`KIND_KEYS`] / [`DRIVER_KIND_KEYS`] (not checked).
fn ignored_keys(kind: &str, given: &[String]) -> Option<(Vec<String>, Vec<&'static str>)> {
    let (takes, driver) = match DRIVER_KIND_KEYS.iter().find(|(k, _)| *k == kind) {
        Some((_, keys)) => (keys.to_vec(), true),
        None => {
            let (_, own) = KIND_KEYS.iter().find(|(k, _)| *k == kind)?;
            (
                TRIGGER_KEYS.iter().chain(own.iter()).copied().collect(),
                false,
            )
        }
    };
    let ignored: Vec<String> = given
        .iter()
        .filter(|g| !takes.contains(&g.as_str()))
        .cloned()
        .collect();
    let own: Vec<&'static str> = if driver {
        takes
    } else {
        takes
            .into_iter()
            .filter(|k| !TRIGGER_KEYS.contains(k))
            .collect()
    };
    Some((ignored, own))
}

/// Labels of drawn faults start with this: a chaos fault that never fires is not a failure.
pub const CHAOS_LABEL: &str = "chaos: ";

/// The spark-submit line; each key is the spark-submit flag of the same name.
#[derive(Deserialize, Clone, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Submit")]
struct RawSubmit {
    /// `--class`: the user class. With a `[workload]` it may be left out (it is then
    /// `org.sparkyard.examples.SyntheticJob`, the only class that runs a workload).
    class: Option<String>,
    /// The application's arguments (after the jar).
    #[serde(default)]
    args: Vec<String>,
    /// `--name`.
    name: Option<String>,
    /// `--num-executors` (spark.executor.instances; YARN's default is 2).
    num_executors: Option<u32>,
    /// `--executor-memory`, a JVM memory string ("1g", "512m").
    executor_memory: Option<String>,
    /// `--executor-cores`.
    executor_cores: Option<u32>,
    /// `--driver-memory`, a JVM memory string.
    driver_memory: Option<String>,
    /// `--driver-cores`.
    driver_cores: Option<u32>,
    /// `--queue` (YARN queue).
    queue: Option<String>,
    /// The application jar (default "app.jar").
    jar: Option<String>,
    /// `--conf KEY=VALUE`, as a table of Spark properties (values are strings).
    #[serde(default)]
    conf: BTreeMap<String, String>,
}

/// A synthetic application: its jobs run one after the other.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Workload")]
struct RawWorkload {
    /// spark.app.name of the synthetic application (default "Synthetic Job").
    #[serde(default = "default_app_name")]
    app_name: String,
    /// The jobs (`[[workload.jobs]]`), at least one.
    jobs: Vec<RawJob>,
}

fn default_app_name() -> String {
    "Synthetic Job".into()
}

/// One job (`[[workload.jobs]]`): a DAG of stages; the last stage is the one the action runs,
/// and every other stage must be one of its ancestors (through `parents`).
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Job")]
struct RawJob {
    /// The action's call site, shown as the job's name ("count at App.scala:42").
    call_site: String,
    /// The stages (`[[workload.jobs.stages]]`), in order; the last one is the result stage.
    stages: Vec<RawStage>,
}

/// One stage (`[[workload.jobs.stages]]`).
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Stage")]
struct RawStage {
    /// The stage's name ("map at App.scala:30").
    name: String,
    /// Number of tasks (partitions), 1 to 10000000.
    tasks: u32,
    /// How long each task runs: exactly one of fixed_ms, uniform_ms, lognormal_median_ms.
    duration: RawDuration,
    /// Indices of earlier stages of this job whose shuffle output this stage reads.
    #[serde(default)]
    parents: Vec<usize>,
    /// Tasks that throw (every attempt of them).
    fail: Option<RawFail>,
    /// What each task of a shuffle-map stage writes to its shuffle.
    shuffle_write: Option<RawShuffleWrite>,
    /// What each task reads from the stage's input (a file split, as a HadoopRDD reads it):
    /// its size and where its block lives.
    input: Option<RawInput>,
}

/// `input` of a stage: what each of its tasks reads (the event log's `Input Metrics`) and
/// where its input block lives (HadoopRDD's preferred locations: the hosts of its split), at
/// most one of `replication` and `hosts`.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Input")]
struct RawInput {
    /// Bytes each task reads (its split of the input; default 0).
    #[serde(default)]
    bytes_per_task: u64,
    /// Records each task reads (default 0).
    #[serde(default)]
    records_per_task: u64,
    /// Each task reads one block with this many replicas, placed from the seed as HDFS's
    /// default policy does: a random node, then a node on another rack, then another node on
    /// that second rack (1 to 10).
    replication: Option<u32>,
    /// Explicit hosts: task i reads a block on the hosts `hosts[i % len]` (cluster hosts).
    hosts: Option<Vec<Vec<String>>>,
    /// Skewed input: these tasks read `factor` times `bytes_per_task` and `records_per_task`.
    hot_tasks: Option<RawHot>,
    /// The file the splits come from (e.g. `hdfs://nn-1:8020/data/events.txt`): each task
    /// logs HadoopRDD's `Task (TID n) input split: <path>:<start>+<bytes>` on its executor.
    path: Option<String>,
}

/// Explicit hot partitions (skew): `count` partitions from `first` weigh `factor`, the others 1.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HotPartitions")]
struct RawHot {
    /// The first hot partition (task index, counting from 0).
    first: u32,
    /// How many consecutive partitions are hot (default 1).
    #[serde(default = "one")]
    count: u32,
    /// How many times a normal partition's size a hot one has (2 to 1000000).
    factor: u32,
}

impl RawHot {
    /// Checked against the `n` partitions it names.
    fn to_hot(&self, n: u32, key: &str) -> Result<HotPartitions, String> {
        if !(2..=1_000_000).contains(&self.factor) {
            return Err(format!(
                "{key}.factor: must be between 2 and 1000000 (how many times a normal partition's size a hot one has), got {}",
                self.factor
            ));
        }
        let end = u64::from(self.first) + u64::from(self.count);
        if self.count == 0 || end > u64::from(n) {
            return Err(format!(
                "{key}: partitions {} .. {} are not among the {n} partitions (give first < {n} and count >= 1 with first + count <= {n})",
                self.first,
                end.saturating_sub(1)
            ));
        }
        Ok(HotPartitions {
            first: self.first,
            count: self.count,
            factor: self.factor,
        })
    }
}

/// `shuffle_write` of a stage: what each of its map tasks writes.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ShuffleWrite")]
struct RawShuffleWrite {
    /// Bytes each map task writes (spread evenly over the reduce partitions, but for
    /// `hot_partitions`).
    bytes_per_task: u64,
    /// Records each map task writes (default 0).
    #[serde(default)]
    records_per_task: u64,
    /// Skewed keys: these reduce partitions get `factor` times the others' share of every map
    /// output (and so fetch that much more).
    hot_partitions: Option<RawHot>,
}

/// A task duration distribution, drawn per task from the seed.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with one distribution: { fixed_ms = 5000 }, { uniform_ms = [2000, 6000] }, { lognormal_median_ms = 2000, lognormal_sigma = 0.5 } or { mb_per_s = 100 }"
)]
#[schemars(rename = "Duration")]
struct RawDuration {
    /// Each task processes the bytes it reads (its `input` and the shuffle output it fetches
    /// from its parents) at this many MB/s (10^6 bytes) on one core.
    mb_per_s: Option<f64>,
    /// Every task runs this long, ms.
    fixed_ms: Option<u64>,
    /// Uniform between [lo, hi] ms.
    uniform_ms: Option<[u64; 2]>,
    /// Log-normal with this median, ms.
    lognormal_median_ms: Option<u64>,
    /// Log-normal sigma, 0 to 5 (default 0.5).
    lognormal_sigma: Option<f64>,
}

/// Tasks of a stage that throw.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Fail")]
struct RawFail {
    /// Task indices (partitions) that throw on every attempt.
    indices: Vec<u32>,
    /// The exception the task throws ("java.lang.RuntimeException: boom").
    message: String,
}

/// One fault (`[[faults]]`): a `kind`, exactly one trigger (at_ms or one on_* key; driver faults
/// take `attempt` / `on_attempt_started` only) and the kind's own keys.
#[derive(Deserialize, Serialize, Default, Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Fault")]
pub struct RawFault {
    /// What happens (docs/scenarios.md lists each kind with its keys).
    #[schemars(with = "FaultKind")]
    pub kind: String,
    /// A name for the fault in the summary (default: the kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Trigger: at this virtual time, ms after submission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// Trigger: when executor N (of `attempt`) has registered with the driver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_executor_registered: Option<u32>,
    /// Trigger: when task [stage, index] starts (its first attempt), stage ids counting from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_task_started: Option<[u32; 2]>,
    /// Trigger: when this many tasks have finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_tasks_finished: Option<u64>,
    /// Trigger: when AM attempt N starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_attempt_started: Option<u32>,
    /// Fire this long after the trigger, ms (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub after_ms: u64,
    /// The AM attempt the on_* triggers (and driver faults) refer to (default 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub attempt: u32,
    /// kill-executor: the executor id (1, 2, ...) of the current AM attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executor: Option<u32>,
    /// kill-executor / kill-am: the JVM's exit code, 0 to 255 (default 137, SIGKILL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// kill-executor / kill-am: the NodeManager kills the container with this YARN
    /// ContainerExitStatus, -100 to -109 (instead of `exit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// Node faults (kill-node, decommission-node, launch-failure, exclude-node,
    /// kill-shuffle-service, slow-node): a NodeManager's host name (or give `target`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Node faults: a node of the application instead of a `host`, resolved when the fault
    /// fires: `am` (the AM's node), `executor:N` (executor N's node), `running-executor` or
    /// `running-executor:K` (the node of the K-th running executor, in executor id order,
    /// wrapping; K defaults to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// launch-failure: how many container launches fail on `host` (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Network faults: the sender: *, driver (or am), rm, client, executor:N, nm:HOST.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Network faults: the receiver, as `from`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Network faults: only messages of this name (e.g. "RegisterExecutor").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Network faults: the chance each matching message is hit, 0 to 1 (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// delay: how long each matching message is held, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Network faults: how long the rule lasts once fired, ms (default: to the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Network faults: the rule applies in both directions (default: only for partition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub both_ways: Option<bool>,
    /// user-class-throws*: the exception `main` throws; failing-executor: the exception every
    /// task on the executor throws (default "java.lang.RuntimeException: injected failure").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// fetch-failure: the reduce stage (its id, counting from 0) whose fetch fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    /// fetch-failure: the reduce partition whose fetch fails (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<u32>,
    /// slow-node: how many times as long tasks launched on `host` run (at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
}

fn one() -> u32 {
    1
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// The `[workload]` drawn from the file's seed (the default seed when it has none); a run
    /// under another seed draws its own (`program`).
    pub synthetic: Option<UserProgram>,
    /// The `[workload]` table as written: every run draws its tasks from its own seed.
    workload: Option<std::sync::Arc<RawWorkload>>,
    pub faults: Vec<PlannedFault>,
    pub driver_faults: Vec<(u32, DriverFault)>,
    pub expect: Expectations,
    chaos: Option<RawChaos>,
    /// The `[submit]` table (the run's overrides are applied to it).
    submit: RawSubmit,
    /// The `[[faults]]` entries as written, in order (shrink rebuilds schedules from them).
    raw_faults: Vec<RawFault>,
    /// The `kind` of each entry of `faults`, in the same order.
    pub fault_kinds: Vec<String>,
    /// The top-level `deadline_ms`.
    deadline: Option<u64>,
    /// Things the user should know about how the file was read (printed by `run`).
    pub notes: Vec<String>,
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
    pub fn fault_plan(&self, seed: u64) -> Result<(FaultController, Option<u64>), UserError> {
        let mut planned = self.faults.clone();
        planned.extend(self.chaos_planned(seed)?.into_iter().map(|(_, p)| p));
        Ok((
            FaultController::new(planned, self.driver_faults.clone()),
            self.deadline_ms(),
        ))
    }

    /// The `[chaos]` faults drawn from `seed`, planned (kind as drawn, fault).
    fn chaos_planned(&self, seed: u64) -> Result<Vec<(String, PlannedFault)>, UserError> {
        let Some(c) = &self.chaos else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (kind, raw) in chaos_faults_for(c, seed, &self.cluster) {
            match fault(&raw, &self.cluster) {
                Ok(Planned::Fault(p)) => out.push((kind, p)),
                other => {
                    let why = other.err().unwrap_or_else(|| "not a timed fault".into());
                    return Err(UserError::file(
                        self.path.display().to_string(),
                        format!("[chaos] drew a fault sparkyard cannot plan ({why}): {raw:?}"),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The synthetic application of a run under `seed`: its task durations and block placement
    /// drawn from that seed (the file's `seed =` is only the default), so the seeds of a sweep
    /// run different workloads where the durations are random.
    pub fn program(&self, seed: u64) -> Result<Option<UserProgram>, UserError> {
        let Some(w) = &self.workload else {
            return Ok(None);
        };
        if seed == self.seed.unwrap_or(crate::conf::submit::DEFAULT_SEED) {
            return Ok(self.synthetic.clone());
        }
        workload(w, seed, &self.cluster)
            .map(Some)
            .map_err(|m| UserError::file(self.path.display().to_string(), m))
    }

    /// The virtual deadline for one run (a run past it is a hang).
    pub fn deadline_ms(&self) -> Option<u64> {
        self.deadline.or(self.chaos.as_ref().map(|c| c.deadline_ms))
    }

    /// Applies `sparkyard run`'s submit overrides on top of the `[submit]` table.
    pub fn apply_overrides(&mut self, o: &SubmitOverrides) -> Result<(), UserError> {
        let s = &mut self.submit;
        let set = |slot: &mut Option<String>, v: &Option<String>| {
            if v.is_some() {
                slot.clone_from(v);
            }
        };
        set(&mut s.name, &o.name);
        set(&mut s.executor_memory, &o.executor_memory);
        set(&mut s.driver_memory, &o.driver_memory);
        set(&mut s.queue, &o.queue);
        s.num_executors = o.num_executors.or(s.num_executors);
        s.executor_cores = o.executor_cores.or(s.executor_cores);
        s.driver_cores = o.driver_cores.or(s.driver_cores);
        for kv in &o.conf {
            let Some((k, v)) = kv.split_once('=') else {
                return Err(UserError::file(
                    "--conf",
                    format!("`{kv}`: expected KEY=VALUE, e.g. --conf spark.eventLog.enabled=true"),
                ));
            };
            s.conf.insert(k.to_string(), v.to_string());
        }
        self.submit_words = submit_words(&self.submit, self.synthetic.is_some());
        Ok(())
    }
}

/// `sparkyard run`'s overrides of the scenario's `[submit]` table (spark-submit's flags).
#[derive(Default, Debug, Clone)]
pub struct SubmitOverrides {
    pub conf: Vec<String>,
    pub name: Option<String>,
    pub num_executors: Option<u32>,
    pub executor_memory: Option<String>,
    pub executor_cores: Option<u32>,
    pub driver_memory: Option<String>,
    pub driver_cores: Option<u32>,
    pub queue: Option<String>,
}

/// What must hold at the end of the run: the `[expect]` table as written; `load` checks the
/// state names (kept as strings so that a wrong one can be quoted in the error).
#[derive(Deserialize, Default, Debug, Clone, JsonSchema)]
// `expecting` words the error for a non-table `expect = 3` for the user, not after a Rust type.
#[serde(deny_unknown_fields, expecting = "a table of expectations")]
pub struct Expectations {
    /// The YARN application state at the end (NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING,
    /// FINISHED, FAILED, KILLED).
    pub state: Option<String>,
    /// The final status (UNDEFINED, SUCCEEDED, FAILED, KILLED).
    pub final_status: Option<String>,
    /// The exit codes of the AM attempts, in order.
    pub am_exit_codes: Option<Vec<i32>>,
    /// The number of AM attempts.
    pub attempts: Option<u32>,
    /// Executor failures counted toward spark.executor.maxNumFailures.
    pub executor_failures: Option<u32>,
    /// Executors launched (containers started), all attempts.
    pub executors_launched: Option<u32>,
    /// Executors Spark declared lost: the driver removed it for a loss (`Lost executor N on
    /// host`), or a fetch from it failed (the DAGScheduler's `Executor lost: N`), before the
    /// application ended. Executors removed idle, killed by the driver or decommissioned are not
    /// lost.
    pub executors_lost: Option<u32>,
    /// Failed task attempts (a TaskEnd with a failure reason; kills are not failures).
    pub tasks_failed: Option<u64>,
    /// Killed task attempts (a TaskEnd with `TaskKilled`: a speculative copy that lost, a task
    /// of an aborted stage).
    pub tasks_killed: Option<u64>,
    /// Finished (successful) task attempts.
    pub tasks_finished: Option<u64>,
    /// Texts the final diagnostics must contain.
    #[serde(default)]
    pub diagnostics_contain: Vec<String>,
    /// Texts some container or daemon log must contain.
    #[serde(default)]
    pub logs_contain: Vec<String>,
    /// Texts no log may contain.
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
    load_with(path, Use::Run)
}

/// Loads a scenario whose faults (its `[[faults]]`, `[chaos]`, cluster and deadline) go to a
/// replay or what-if of an event log, which runs the log's application: `[submit] class` may be
/// left out (the log names the application).
pub fn load_for_faults(path: &Path) -> Result<Scenario, UserError> {
    load_with(path, Use::FaultsOnly)
}

/// What a scenario is loaded for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// `run`, `sweep`, `shrink`: its submission runs.
    Run,
    /// `replay` / `what-if --scenario`: only its faults are used.
    FaultsOnly,
}

fn load_with(path: &Path, purpose: Use) -> Result<Scenario, UserError> {
    let label = path.display().to_string();
    let text = read_config_file(path, &label, "scenario")?;
    if text.trim().is_empty() {
        return Err(UserError::file(
            &label,
            "the file is empty; a scenario needs at least `name` and a [submit] table",
        ));
    }
    let raw: RawScenario = toml::from_str(&text).map_err(|e| {
        let message = plain_types(&e.to_string());
        let hint = crate::conf::cluster::toml_hint(&message);
        UserError::file(
            &label,
            format!(
                "{}{hint}\n(every table and key, with its type: docs/scenarios.md)",
                message.trim_end()
            ),
        )
    })?;
    let err = |m: String| UserError::file(&label, m);
    let dir = path.parent().unwrap_or(Path::new("."));
    let cluster = match (&raw.cluster_file, &raw.cluster) {
        (Some(_), Some(_)) => {
            return Err(err(
                "give either cluster_file or a [cluster] table, not both".into(),
            ));
        }
        (Some(f), None) => crate::conf::cluster::load_cluster(ClusterSource::Path(dir.join(f)))?,
        (None, Some(t)) => crate::conf::cluster::validate_table(t, &text, &label)?,
        (None, None) => crate::conf::cluster::load_cluster(ClusterSource::Embedded)?,
    };
    let seed = raw.seed.unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let synthetic = raw
        .workload
        .as_ref()
        .map(|w| workload(w, seed, &cluster))
        .transpose()
        .map_err(err)?;
    let mut notes = Vec::new();
    match (&raw.submit.class, synthetic.is_some()) {
        (Some(c), true) if c != SYNTHETIC_CLASS => {
            return Err(err(format!(
                "submit.class: a [workload] runs as `{SYNTHETIC_CLASS}` (the class that plays the workload), not `{c}`; leave `class` out or drop the [workload] table to run `{c}`"
            )));
        }
        (None, true) => notes.push(format!(
            "note: the [workload] runs as --class {SYNTHETIC_CLASS}"
        )),
        (None, false) if purpose == Use::Run => {
            return Err(err(
                "submit.class: missing; give the user class (e.g. class = \"org.apache.spark.examples.SparkPi\") or a [workload] table".into(),
            ));
        }
        _ => {}
    }
    let keys = fault_keys(&text);
    let mut faults = Vec::new();
    let mut fault_kinds = Vec::new();
    let mut driver_faults = Vec::new();
    for (i, f) in raw.faults.iter().enumerate() {
        let line = line_of(&text, f.span().start);
        let at = format!("line {line}: faults[{i}]");
        let given = keys.get(i).map(Vec::as_slice).unwrap_or_default();
        check_keys(f.get_ref(), given).map_err(|m| err(format!("{at}: {m}")))?;
        match fault(f.get_ref(), &cluster).map_err(|m| err(format!("{at}: {m}")))? {
            Planned::Fault(p) => {
                faults.push(p);
                fault_kinds.push(f.get_ref().kind.clone());
            }
            Planned::Driver(attempt, d) => driver_faults.push((attempt, d)),
        }
    }
    validate_expectations(&raw.expect).map_err(err)?;
    if let Some(c) = &raw.chaos {
        validate_chaos(c).map_err(|m| err(format!("chaos.{m}")))?;
    }
    if raw.deadline_ms == Some(0) {
        return Err(err("deadline_ms: must be positive".into()));
    }
    Ok(Scenario {
        name: raw.name,
        description: raw.description,
        path: path.to_path_buf(),
        seed: raw.seed,
        cluster,
        submit_words: submit_words(&raw.submit, synthetic.is_some()),
        synthetic,
        workload: raw.workload.map(std::sync::Arc::new),
        faults,
        driver_faults,
        expect: raw.expect,
        chaos: raw.chaos,
        submit: raw.submit,
        raw_faults: raw.faults.into_iter().map(Spanned::into_inner).collect(),
        fault_kinds,
        deadline: raw.deadline_ms,
        notes,
        panic_at_ms: None,
    })
}

/// serde's Rust type names in a TOML error, in the words of a TOML file.
fn plain_types(message: &str) -> String {
    const WORDS: [(&str, &str); 9] = [
        ("expected u64", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected i32", "expected an integer"),
        ("expected i64", "expected an integer"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a boolean", "expected true or false"),
        (
            "expected an array of length 2",
            "expected an array of two values, [a, b]",
        ),
    ];
    let mut out = message.to_string();
    for (rust, toml) in WORDS {
        out = out.replace(rust, toml);
    }
    out
}

/// The keys written in each `[[faults]]` entry, in order (serde fills defaults, so the typed
/// entry cannot tell a key the user wrote from one left out).
fn fault_keys(text: &str) -> Vec<Vec<String>> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let Some(toml::Value::Array(faults)) = table.get("faults") else {
        return Vec::new();
    };
    faults
        .iter()
        .map(|f| {
            f.as_table()
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect()
}

/// Refuses keys the fault's kind would ignore (`count` on kill-executor, `at_ms` on a driver
/// fault), naming the keys the kind takes.
fn check_keys(f: &RawFault, given: &[String]) -> Result<(), String> {
    let Some((ignored, takes)) = ignored_keys(&f.kind, given) else {
        return Ok(());
    };
    let Some(first) = ignored.first() else {
        return Ok(());
    };
    let why = match (f.kind.as_str(), first.as_str()) {
        ("kill-executor", "count") => {
            " (it kills one executor: write one [[faults]] entry per executor)".to_string()
        }
        (k, "label") if DRIVER_KIND_KEYS.iter().any(|(d, _)| *d == k) => {
            " (a driver fault is not printed with a label)".to_string()
        }
        (k, key) if DRIVER_KIND_KEYS.iter().any(|(d, _)| *d == k) && TRIGGER_KEYS.contains(&key) => {
            " (a driver fault fires when its AM attempt starts: use `attempt` or `on_attempt_started`)".to_string()
        }
        _ => String::new(),
    };
    let takes: Vec<&str> = takes.into_iter().filter(|k| *k != "kind").collect();
    let takes = if takes.is_empty() {
        "only a trigger".to_string()
    } else {
        takes.join(", ")
    };
    let driver = DRIVER_KIND_KEYS.iter().any(|(d, _)| *d == f.kind);
    let lead = if driver {
        "the keys it takes"
    } else {
        "besides its trigger it takes"
    };
    Err(format!(
        "kind '{}' does not use `{}`{why}; {lead}: {takes}",
        f.kind,
        ignored.join("`, `"),
    ))
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

/// The random faults of one seed, as `[[faults]]` entries (kind as drawn, entry).
fn chaos_faults_for(c: &RawChaos, seed: u64, cluster: &ClusterConfig) -> Vec<(String, RawFault)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc4a0_5eed);
    let n = rng.random_range(c.faults[0]..=c.faults[1]);
    (0..n).map(|_| chaos_fault(c, &mut rng, cluster)).collect()
}

fn pick<T: Clone>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.random_range(0..xs.len())].clone()
}

/// One drawn fault, as the `[[faults]]` entry that does the same (so a seed's schedule can be
/// written out, and shrunk). The draws are made in a fixed order: kind, time, executor, host,
/// then the kind's own.
fn chaos_fault(c: &RawChaos, rng: &mut ChaCha8Rng, cluster: &ClusterConfig) -> (String, RawFault) {
    let kind = pick(rng, &c.kinds);
    let at = rng.random_range(c.window_ms[0]..=c.window_ms[1]);
    let executor = rng.random_range(c.executors[0].max(1)..=c.executors[1].max(1));
    let host = pick(rng, &cluster.nodes).host;
    let base = RawFault {
        at_ms: Some(at),
        attempt: 1,
        ..RawFault::default()
    };
    let (raw, what) = match kind.as_str() {
        "kill-executor" => {
            let code = pick(rng, &c.exit_codes);
            (
                RawFault {
                    kind: "kill-executor".into(),
                    executor: Some(executor),
                    exit: Some(code),
                    ..base
                },
                format!("executor {executor} exits {code}"),
            )
        }
        "nm-kill" => {
            let status = pick(rng, &c.statuses);
            (
                RawFault {
                    kind: "kill-executor".into(),
                    executor: Some(executor),
                    status: Some(status),
                    ..base
                },
                format!("NodeManager kills executor {executor} ({status})"),
            )
        }
        "kill-am" => (
            RawFault {
                kind: "kill-am".into(),
                exit: Some(137),
                ..base
            },
            "the AM is killed".into(),
        ),
        // The node faults that hurt the application pick a node holding one of its executors
        // when they fire (a drawn node would mostly hold none of its containers).
        "kill-node" => (
            RawFault {
                kind: "kill-node".into(),
                target: Some(format!("running-executor:{executor}")),
                ..base
            },
            format!("{} dies", NodeTarget::RunningExecutor(executor)),
        ),
        "decommission-node" => (
            RawFault {
                kind: "decommission-node".into(),
                target: Some(format!("running-executor:{executor}")),
                ..base
            },
            format!(
                "{} is decommissioned",
                NodeTarget::RunningExecutor(executor)
            ),
        ),
        "launch-failure" => (
            RawFault {
                kind: "launch-failure".into(),
                host: Some(host.clone()),
                count: Some(1),
                ..base
            },
            format!("a launch fails on {host}"),
        ),
        // A reduce partition of the second stage (the first that reads a shuffle in the
        // bundled workloads) fails its next fetch.
        "fetch-failure" => {
            let partition = rng.random_range(0..4u32);
            (
                RawFault {
                    kind: "fetch-failure".into(),
                    stage: Some(1),
                    partition: Some(partition),
                    count: Some(1),
                    ..base
                },
                format!("a fetch of stage 1 partition {partition} fails"),
            )
        }
        "kill-shuffle-service" => (
            RawFault {
                kind: "kill-shuffle-service".into(),
                target: Some(format!("running-executor:{executor}")),
                ..base
            },
            format!(
                "the shuffle service on {} stops",
                NodeTarget::RunningExecutor(executor)
            ),
        ),
        "delay" => {
            let ms = rng.random_range(c.delay_ms[0]..=c.delay_ms[1]);
            (
                RawFault {
                    kind: "delay".into(),
                    delay_ms: Some(ms),
                    duration_ms: Some(30_000),
                    ..executor_link(executor, base)
                },
                format!("executor {executor} <-> driver delayed {ms} ms for 30 s"),
            )
        }
        _ => {
            let ms = rng.random_range(c.partition_ms[0]..=c.partition_ms[1]);
            (
                RawFault {
                    kind: "partition".into(),
                    duration_ms: Some(ms),
                    ..executor_link(executor, base)
                },
                format!("executor {executor} partitioned from the driver for {ms} ms"),
            )
        }
    };
    let label = Some(format!("{CHAOS_LABEL}{what} at {at} ms"));
    (kind, RawFault { label, ..raw })
}

/// A network fault between executor `executor` and the driver, both ways.
fn executor_link(executor: u32, base: RawFault) -> RawFault {
    RawFault {
        from: Some(format!("executor:{executor}")),
        to: Some("driver".into()),
        both_ways: Some(true),
        ..base
    }
}

fn submit_words(s: &RawSubmit, synthetic: bool) -> Vec<String> {
    let class = match (&s.class, synthetic) {
        (Some(c), _) => c.as_str(),
        (None, _) => SYNTHETIC_CLASS,
    };
    let mut w: Vec<String> = [
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--class",
        class,
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
fn workload(w: &RawWorkload, seed: u64, cluster: &ClusterConfig) -> Result<UserProgram, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x00c0_ffee);
    // Block placement draws from its own stream, so an `input` changes no task's duration.
    let mut blocks = ChaCha8Rng::seed_from_u64(seed ^ 0x0b10_c4ed);
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
                    "{at}.parents: {p} is not an earlier stage of this job (parents name stages by index, counting from 0, and only earlier ones)"
                ));
            }
            let (write_hot, input_hot) =
                stage_skew(&job.stages, s).map_err(|m| format!("{at}.{m}"))?;
            let tasks = (0..st.tasks)
                .map(|i| task(st, i, bytes_read(&job.stages, s, i), &mut rng))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|m| format!("{at}.{m}"))?;
            stages.push(StageSpec {
                rdd_description: format!("MapPartitionsRDD[{}] at {}", s + 1, st.name),
                num_partitions: st.tasks,
                parents: st.parents.clone(),
                tasks,
                shuffle_write: st
                    .shuffle_write
                    .as_ref()
                    .map(|w| ShuffleWriteSize {
                        bytes_per_task: w.bytes_per_task,
                        records_per_task: w.records_per_task,
                        hot: write_hot,
                    })
                    .unwrap_or_default(),
                input: st
                    .input
                    .as_ref()
                    .map(|i| InputSize {
                        bytes_per_task: i.bytes_per_task,
                        records_per_task: i.records_per_task,
                        hot: input_hot,
                    })
                    .unwrap_or_default(),
                lineage: None,
                preferred_hosts: match &st.input {
                    Some(input) => input_hosts(input, st.tasks, cluster, &mut blocks)
                        .map_err(|m| format!("{at}.{m}"))?,
                    None => Vec::new(),
                },
                input_path: st
                    .input
                    .as_ref()
                    .and_then(|i| i.path.as_deref())
                    .map(Into::into),
            });
        }
        check_ancestors(job).map_err(|m| format!("workload.jobs[{j}].{m}"))?;
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

/// Each task's preferred hosts from a stage's `input` (none when it names no location).
fn input_hosts(
    input: &RawInput,
    tasks: u32,
    cluster: &ClusterConfig,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Vec<String>>, String> {
    match (input.replication, &input.hosts) {
        (Some(r), None) => {
            if !(1..=10).contains(&r) {
                return Err(format!(
                    "input.replication: must be between 1 and 10, got {r}"
                ));
            }
            Ok((0..tasks)
                .map(|_| place_block(cluster, r as usize, rng))
                .collect())
        }
        (None, Some(hosts)) => {
            if hosts.is_empty() || hosts.iter().any(Vec::is_empty) {
                return Err(
                    "input.hosts: give at least one list of hosts, none empty (task i reads a block on hosts[i % len])".into(),
                );
            }
            for h in hosts.iter().flatten() {
                known_host(h, cluster).map_err(|m| format!("input.hosts: {m}"))?;
            }
            Ok((0..tasks as usize)
                .map(|i| hosts[i % hosts.len()].clone())
                .collect())
        }
        (None, None) if input.bytes_per_task > 0 || input.records_per_task > 0 => Ok(Vec::new()),
        (None, None) => Err(
            "input: give what each task reads (bytes_per_task, records_per_task), where its block lives (replication or hosts), or both".into(),
        ),
        (Some(_), Some(_)) => Err(
            "input: give at most one of `replication` (blocks placed from the seed) and `hosts` (explicit hosts per task)".into(),
        ),
    }
}

/// One block's replicas as HDFS's `BlockPlacementPolicyDefault` places a block written from
/// outside the cluster: a random node, the second on another rack (if the cluster has one),
/// the third on the second's rack, any more at random; never two on one node.
fn place_block(cluster: &ClusterConfig, replication: usize, rng: &mut ChaCha8Rng) -> Vec<String> {
    let nodes = &cluster.nodes;
    let want = replication.min(nodes.len());
    let mut chosen: Vec<usize> = Vec::with_capacity(want);
    let mut pick = |chosen: &mut Vec<usize>, ok: &dyn Fn(usize) -> bool| {
        let candidates: Vec<usize> = (0..nodes.len())
            .filter(|i| !chosen.contains(i) && ok(*i))
            .collect();
        if candidates.is_empty() {
            return false;
        }
        chosen.push(candidates[rng.random_range(0..candidates.len())]);
        true
    };
    while chosen.len() < want {
        let placed = match chosen.len() {
            1 => {
                let first = &nodes[chosen[0]].rack;
                pick(&mut chosen, &|i| nodes[i].rack != *first)
            }
            2 => {
                let second = &nodes[chosen[1]].rack;
                pick(&mut chosen, &|i| nodes[i].rack == *second)
            }
            _ => false,
        };
        if !placed {
            pick(&mut chosen, &|_| true);
        }
    }
    chosen.into_iter().map(|i| nodes[i].host.clone()).collect()
}

/// A job runs its last stage and that stage's ancestors only (Spark submits the action's RDD
/// and walks its lineage: DAGScheduler.getOrCreateParentStages), so any other stage would
/// silently never run: refuse it.
fn check_ancestors(job: &RawJob) -> Result<(), String> {
    let last = job.stages.len() - 1;
    let mut needed = vec![false; job.stages.len()];
    needed[last] = true;
    for s in (0..=last).rev() {
        if needed[s] {
            for p in &job.stages[s].parents {
                needed[*p] = true;
            }
        }
    }
    match needed.iter().position(|n| !n) {
        None => Ok(()),
        Some(s) => Err(format!(
            "stages[{s}] (`{}`) is not an ancestor of the job's last stage (stages[{last}]), so it would never run: a job runs its last stage and the stages that stage depends on; list {s} in the `parents` of a later stage, or put it in a job of its own",
            job.stages[s].name
        )),
    }
}

/// A stage's hot partitions: its shuffle output's hot reduce partitions (checked against every
/// stage that reads it) and its hot input tasks.
fn stage_skew(stages: &[RawStage], s: usize) -> Result<(HotPartitions, HotPartitions), String> {
    let st = &stages[s];
    let mut write = HotPartitions::default();
    if let Some(h) = st
        .shuffle_write
        .as_ref()
        .and_then(|w| w.hot_partitions.as_ref())
    {
        let readers: Vec<&RawStage> = stages.iter().filter(|c| c.parents.contains(&s)).collect();
        let Some(fewest) = readers.iter().map(|c| c.tasks).min() else {
            return Err("shuffle_write.hot_partitions: no later stage of this job reads this shuffle (list this stage in a later stage's `parents`)".into());
        };
        write = h.to_hot(fewest, "shuffle_write.hot_partitions")?;
    }
    let input = match st.input.as_ref().and_then(|i| i.hot_tasks.as_ref()) {
        Some(h) => h.to_hot(st.tasks, "input.hot_tasks")?,
        None => HotPartitions::default(),
    };
    Ok((write, input))
}

/// The bytes task `i` of `stages[s]` reads: its input split (times its weight when hot), and
/// its share of each parent's shuffle output (every map output spread over the reduce
/// partitions by their weight: evenly without hot partitions).
fn bytes_read(stages: &[RawStage], s: usize, i: u32) -> u64 {
    let st = &stages[s];
    let input = st.input.as_ref().map_or(0, |inp| {
        let hot = inp.hot_tasks.as_ref().map_or(1, |h| {
            let hot = h.first <= i && i - h.first < h.count;
            if hot { u64::from(h.factor) } else { 1 }
        });
        inp.bytes_per_task.saturating_mul(hot)
    });
    let shuffle: u64 = st
        .parents
        .iter()
        .filter_map(|p| stages.get(*p))
        .map(|p| {
            let per_map = p.shuffle_write.as_ref().map_or(0, |w| w.bytes_per_task);
            let total = u64::from(p.tasks).saturating_mul(per_map);
            let hot = p
                .shuffle_write
                .as_ref()
                .and_then(|w| w.hot_partitions.as_ref())
                .map_or(HotPartitions::default(), |h| HotPartitions {
                    first: h.first,
                    count: h.count,
                    factor: h.factor,
                });
            hot.share(total, i, st.tasks)
        })
        .fold(0u64, u64::saturating_add);
    input.saturating_add(shuffle)
}

fn task(
    st: &RawStage,
    index: u32,
    read_bytes: u64,
    rng: &mut ChaCha8Rng,
) -> Result<TaskWork, String> {
    let d = &st.duration;
    let throughput = match d.mb_per_s {
        None => None,
        Some(mb) if mb.is_finite() && mb > 0.0 => Some(mb),
        Some(mb) => {
            return Err(format!(
                "duration.mb_per_s: must be a positive number of MB/s, got {mb}"
            ));
        }
    };
    let duration_ms = match (d.fixed_ms, d.uniform_ms, d.lognormal_median_ms, throughput) {
        (None, None, None, Some(_)) if read_bytes == 0 => {
            return Err("duration.mb_per_s: the stage reads no bytes (give it an `input`, or parents that set `shuffle_write`), so its tasks' time cannot come from a throughput; use fixed_ms instead".into());
        }
        // bytes / (MB/s) = bytes / (mb x 1000 bytes per ms), at least 1 ms.
        (None, None, None, Some(mb)) => ((read_bytes as f64 / (mb * 1000.0)).ceil() as u64).max(1),
        (Some(ms), None, None, None) => ms,
        (None, Some([lo, hi]), None, None) if lo <= hi => rng.random_range(lo..=hi),
        (None, Some([lo, hi]), None, None) => {
            return Err(format!("duration.uniform_ms: [{lo}, {hi}] is not a range"));
        }
        (None, None, Some(median), None) => {
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
                "duration: give exactly one of fixed_ms, uniform_ms, lognormal_median_ms, mb_per_s"
                    .into(),
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

/// A slow node's factor in thousandths: a finite number from 1 (no slower) to 1000.
fn slow_factor(factor: f64) -> Result<u64, String> {
    if factor.is_finite() && (1.0..=1000.0).contains(&factor) {
        return Ok((factor * 1000.0).round() as u64);
    }
    Err(format!(
        "factor: {factor} is not a slowdown; give a number from 1 (no slower) to 1000"
    ))
}

fn need<T: Clone>(v: &Option<T>, key: &str, kind: &str) -> Result<T, String> {
    v.clone()
        .ok_or_else(|| format!("kind '{kind}' needs `{key}`"))
}

fn known_host(host: &str, cluster: &ClusterConfig) -> Result<String, String> {
    if cluster.nodes.iter().any(|n| n.host == host) {
        return Ok(host.to_string());
    }
    let hosts: Vec<&str> = cluster.nodes.iter().map(|n| n.host.as_str()).collect();
    let listed = match hosts.as_slice() {
        [] => String::new(),
        few if few.len() <= 10 => few.join(", "),
        many => format!(
            "{}, ... {} ({} NodeManagers)",
            many[..8].join(", "),
            many[many.len() - 1],
            many.len()
        ),
    };
    Err(format!(
        "host: `{host}` is not a NodeManager of this cluster; give a full host name: {listed}"
    ))
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
        both_ways: f.both_ways.unwrap_or(f.kind == "partition"),
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
            node: node_target(f, cluster)?,
        },
        "decommission-node" => FaultAction::DecommissionNode {
            node: node_target(f, cluster)?,
        },
        "launch-failure" => FaultAction::FailLaunches {
            node: node_target(f, cluster)?,
            count: f.count.unwrap_or(1),
        },
        "exclude-node" => FaultAction::ExcludeNode {
            node: node_target(f, cluster)?,
        },
        "fetch-failure" => FaultAction::FailFetches {
            stage: need(&f.stage, "stage", kind)?,
            partition: f.partition.unwrap_or(0),
            count: f.count.unwrap_or(1),
        },
        "slow-node" => FaultAction::SlowNode {
            node: node_target(f, cluster)?,
            factor_milli: slow_factor(need(&f.factor, "factor", kind)?)?,
            duration_ms: f.duration_ms,
        },
        "kill-shuffle-service" => FaultAction::KillShuffleService {
            node: node_target(f, cluster)?,
        },
        "failing-executor" => FaultAction::FailTasksOnExecutor {
            executor: need(&f.executor, "executor", kind)?,
            exception: exception(),
        },
        "drop" | "delay" | "duplicate" | "partition" => network(f, cluster)?,
        other => {
            return Err(format!(
                "kind: unknown fault kind `{other}`; valid kinds: {}",
                FAULT_KINDS.join(", ")
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

/// The node a node fault acts on: exactly one of `host` (a NodeManager of the cluster) and
/// `target` (a node of the application, resolved when the fault fires).
fn node_target(f: &RawFault, cluster: &ClusterConfig) -> Result<NodeTarget, String> {
    match (&f.host, &f.target) {
        (Some(h), None) => known_host(h, cluster).map(NodeTarget::Host),
        (None, Some(t)) => parse_node_target(t),
        (Some(_), Some(_)) => Err(format!(
            "kind '{}': give `host` (a NodeManager) or `target` (a node of the application), not both",
            f.kind
        )),
        (None, None) => Err(format!(
            "kind '{}' needs `host` (a NodeManager's host name) or `target` (am, executor:N, running-executor or running-executor:K)",
            f.kind
        )),
    }
}

fn parse_node_target(t: &str) -> Result<NodeTarget, String> {
    let number = |n: &str| {
        n.parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("target: `{t}` needs a number from 1 after the colon"))
    };
    match t.split_once(':') {
        None if t == "am" => Ok(NodeTarget::AmNode),
        None if t == "running-executor" => Ok(NodeTarget::RunningExecutor(1)),
        Some(("executor", n)) => number(n).map(NodeTarget::ExecutorNode),
        Some(("running-executor", k)) => number(k).map(NodeTarget::RunningExecutor),
        _ => Err(format!(
            "target: `{t}` is not one of am (the AM's node), executor:N (executor N's node), running-executor or running-executor:K (the node of the K-th running executor)"
        )),
    }
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
    /// Expectations that failed (the `[expect]` table's, unfired faults) and broken invariants.
    pub failures: Vec<String>,
    /// The `[expect]` failures alone (no invariants).
    pub expect_failures: Vec<String>,
    pub seed: u64,
    /// The faults that fired, in order, with their kinds.
    pub fired: Vec<FiredFault>,
}

/// A fault that fired: when, its label, its kind (`nm-kill` for a drawn NodeManager kill), what
/// it acted on (resolved as it fired) and what a reader should know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FiredFault {
    pub at_ms: u64,
    pub label: String,
    pub kind: String,
    /// The container or node it acted on (`FaultTarget::Nothing` when it could not act, or
    /// needs no target: a fetch failure).
    pub target: FaultTarget,
    /// Why it did nothing, when it could not act (no such executor, the AM had ended, ...).
    pub no_effect: Option<String>,
    pub note: Option<String>,
}

/// Pairs each fired fault with its planned fault (in plan order for equal labels) and adds the
/// notes a bare "fault at T" would hide: a network rule is armed then and acts on matching
/// messages later; a fault aimed at the application says which node it hit; a kill-node on a
/// node without containers of the application; a fault that could not act says why.
fn fired_faults(planned: &[PlannedFault], kinds: &[String], r: &RunResult) -> Vec<FiredFault> {
    let mut used = vec![false; planned.len()];
    r.faults_fired
        .iter()
        .map(|fired| {
            let label = &fired.label;
            let i = (0..planned.len()).find(|i| !used[*i] && planned[*i].label == *label);
            let (kind, action) = match i {
                Some(i) => {
                    used[i] = true;
                    (
                        kinds.get(i).cloned().unwrap_or_default(),
                        Some(&planned[i].action),
                    )
                }
                None => (String::new(), None),
            };
            FiredFault {
                at_ms: fired.at_ms,
                label: label.clone(),
                kind,
                target: fired.target.clone(),
                no_effect: fired.no_effect.clone(),
                note: fired_note(action, fired, r),
            }
        })
        .collect()
}

/// What the summary says about a fired fault beyond its time and label.
fn fired_note(
    action: Option<&FaultAction>,
    fired: &sparkyard_actors::faults::Firing,
    r: &RunResult,
) -> Option<String> {
    if let Some(why) = &fired.no_effect {
        return Some(format!("it did nothing: {why}"));
    }
    let host = match &fired.target {
        FaultTarget::Node(h) => Some(h.as_str()),
        _ => None,
    };
    let aimed = action
        .and_then(node_of)
        .filter(|n| !matches!(n, NodeTarget::Host(_)));
    let on = match (aimed, host) {
        (Some(_), Some(h)) => Some(format!("on {h}")),
        _ => None,
    };
    let empty = match (action, host) {
        (Some(FaultAction::KillNode { .. }), Some(h)) if !containers_on(r, h, fired.at_ms) => Some(
            format!("no container of the application was running on {h}"),
        ),
        _ => None,
    };
    let armed = match action {
        Some(FaultAction::Network(rules)) => Some(match rules.first() {
            Some(r) if r.message.is_some() => format!(
                "network rule armed; it acts on each {} message from then on",
                r.message.as_deref().unwrap_or_default()
            ),
            _ => "network rule armed; it acts on matching messages from then on".into(),
        }),
        _ => None,
    };
    let parts: Vec<String> = [on, empty, armed].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The node a node fault names.
fn node_of(action: &FaultAction) -> Option<&NodeTarget> {
    match action {
        FaultAction::KillNode { node }
        | FaultAction::DecommissionNode { node }
        | FaultAction::FailLaunches { node, .. }
        | FaultAction::ExcludeNode { node }
        | FaultAction::KillShuffleService { node }
        | FaultAction::SlowNode { node, .. } => Some(node),
        _ => None,
    }
}

/// Whether a container was running on `host` at `ms` (from the typed trace; true when the run
/// kept no trace, so no note is made up).
fn containers_on(r: &RunResult, host: &str, ms: u64) -> bool {
    if r.trace.is_empty() {
        return true;
    }
    let mut live: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for e in r.trace.iter().take_while(|e| e.time_ms <= ms) {
        match &e.kind {
            TraceKind::State(StateChange::ContainerLocalizing {
                container, host: h, ..
            }) if h == host => {
                live.insert(container.to_string());
            }
            TraceKind::State(StateChange::ContainerCompleted { container, .. }) => {
                live.remove(&container.to_string());
            }
            _ => {}
        }
    }
    !live.is_empty()
}

/// Runs the scenario under `seed` (the file's own seed when `None`) and checks its expectations.
pub fn run(
    s: &Scenario,
    seed: Option<u64>,
    mut opts: crate::runner::RunOptions,
) -> Result<ScenarioRun, UserError> {
    let seed = seed.or(s.seed).unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let args = SubmitArgs::from_words(s.submit_words.iter().cloned())
        .map_err(|e| UserError::file(s.path.display().to_string(), format!("[submit]: {e}")))?;
    let submission = Submission::from_args(args, DefaultsFile::embedded())?;
    opts.panic_at_ms = opts.panic_at_ms.or(s.panic_at_ms);
    let mut planned = s.faults.clone();
    let mut kinds = s.fault_kinds.clone();
    for (kind, p) in s.chaos_planned(seed)? {
        planned.push(p);
        kinds.push(kind);
    }
    if let Some(ms) = s.deadline_ms() {
        opts.deadline_ms = ms;
    }
    let prepared = submission.prepare(RunPlan {
        cluster: ClusterChoice::Loaded(Box::new(s.cluster.clone())),
        seed: Some(seed),
        options: opts,
        synthetic: s.program(seed)?,
        faults: FaultController::new(planned.clone(), s.driver_faults.clone()),
    })?;
    let planned_copy = planned;
    let limits = crate::invariants::Limits::of(&prepared.config);
    let CompletedRun {
        spark, mut result, ..
    } = prepared.run()?;
    let end = crate::invariants::check(&result, &limits);
    result.violations.extend(end);
    let mut failures = check(&s.expect, &result);
    let expect_failures = failures.clone();
    let fired = fired_faults(&planned_copy, &kinds, &result);
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
        expect_failures,
        seed,
        fired,
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

/// Why an event trigger never happened, from the run's AM attempts: the attempt it waits in
/// never started, or ended before the event (a later attempt's events do not fire it).
fn why_unfired(trigger: &Trigger, c: &sparkyard_actors::world::observer::RunCounters) -> String {
    let ran = c.am_attempts;
    match trigger.attempt() {
        Some(a) if a > ran => format!(
            "it waited for {trigger}, but AM attempt {a} never came (the application ran {ran} AM attempt(s))"
        ),
        Some(a) if a < ran && !matches!(trigger, Trigger::AttemptStarted { .. }) => {
            let exit = c
                .am_exit_codes
                .get(&a)
                .map(|code| format!(" (exit code {code})"))
                .unwrap_or_default();
            format!(
                "it waited for {trigger}, but AM attempt {a} ended{exit} before that happened; attempt {ran} does not fire it (its `attempt` key names the attempt)"
            )
        }
        _ => format!("its trigger ({trigger}) did not happen"),
    }
}

/// Every expectation that does not hold, as a sentence.
pub fn check(e: &Expectations, r: &crate::runner::RunResult) -> Vec<String> {
    let c = &r.counters;
    let mut out: Vec<String> = r
        .faults_unfired
        .iter()
        .filter(|f| !f.label.starts_with(CHAOS_LABEL))
        .map(|f| {
            format!(
                "fault `{}` never fired: {}",
                f.label,
                why_unfired(&f.trigger, c)
            )
        })
        .collect();
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
        Count::of("killed task attempts", e.tasks_killed, c.tasks_killed),
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
