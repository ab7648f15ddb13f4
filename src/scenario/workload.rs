//! `[workload]`: a synthetic application (jobs of stages of tasks with drawn durations, inputs
//! placed as HDFS places blocks, shuffle writes, skew, failing tasks), drawn from a run's seed
//! into the program `org.sparkyard.examples.SyntheticJob` plays.

use super::cluster::known_host;
use crate::conf::cluster::ClusterConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::Deserialize;
use sparkyard_actors::simulation::config::{JobAnchor, ReplayedJob, UserProgram};
use sparkyard_messages::task::{
    HotPartitions, InputSize, JobSpec, ShuffleWriteSize, StageSpec, TaskWork,
};
use std::collections::BTreeMap;

/// The class name that runs a scenario's synthetic workload.
pub const SYNTHETIC_CLASS: &str = "org.sparkyard.examples.SyntheticJob";

fn one_partition() -> u32 {
    1
}

/// A synthetic application: its jobs run one after the other.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Workload")]
pub(super) struct RawWorkload {
    /// spark.app.name of the synthetic application (default "Synthetic Job").
    #[serde(default = "default_app_name")]
    app_name: String,
    /// The jobs (`[[workload.jobs]]`), at least one, unless the workload is `applications`.
    #[serde(default)]
    pub(super) jobs: Vec<RawJob>,
    /// Applications arriving on the cluster (`[[workload.applications]]`), each with its queue,
    /// arrival times and program; the scenario then runs all of them instead of `[submit]`.
    #[serde(default)]
    pub(super) applications: Vec<RawApplication>,
}

impl RawWorkload {
    /// The synthetic application of one `[[workload.applications]]` entry: its `app_name` and
    /// `jobs` in the `[workload]` form.
    pub(super) fn of_jobs(app_name: Option<String>, jobs: Vec<RawJob>) -> RawWorkload {
        RawWorkload {
            app_name: app_name.unwrap_or_else(default_app_name),
            jobs,
            applications: Vec::new(),
        }
    }

    /// spark.app.name of the synthetic application.
    pub(super) fn app_name(&self) -> &str {
        &self.app_name
    }
}

fn default_app_name() -> String {
    "Synthetic Job".into()
}

/// One `[[workload.applications]]` entry: who submits what, to which queue, when.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Application")]
pub(super) struct RawApplication {
    /// The entry's name in the report and in errors (default `applications[i]`).
    pub(super) name: Option<String>,
    /// The YARN queue its applications are submitted to (`--queue`): a queue of the cluster.
    pub(super) queue: String,
    /// The submitting user (default: the cluster's user; an event log's recorded user).
    pub(super) user: Option<String>,
    /// Fixed arrivals: each spark-submit starts this many ms after the cluster started.
    pub(super) at_ms: Option<Vec<u64>>,
    /// Random arrivals: a Poisson process drawn from the run's seed (`run --seed` changes it).
    pub(super) poisson: Option<RawPoisson>,
    /// A bundled program's `--class` (as `[submit] class`), run with `args`.
    pub(super) class: Option<String>,
    /// The bundled program's arguments.
    #[serde(default)]
    pub(super) args: Vec<String>,
    /// A synthetic workload (`[[workload.applications.jobs]]`, the `[[workload.jobs]]` form),
    /// its task durations drawn per application from the run's seed.
    pub(super) jobs: Option<Vec<RawJob>>,
    /// spark.app.name of the synthetic workload (default "Synthetic Job").
    pub(super) app_name: Option<String>,
    /// An event log (path relative to the scenario file), replayed as `replay-cluster` does:
    /// its recorded program, start-up and configuration.
    pub(super) event_log: Option<String>,
    /// `--num-executors`.
    pub(super) num_executors: Option<u32>,
    /// `--executor-memory`, a JVM memory string ("1g").
    pub(super) executor_memory: Option<String>,
    /// `--executor-cores`.
    pub(super) executor_cores: Option<u32>,
    /// `--driver-memory`, a JVM memory string.
    pub(super) driver_memory: Option<String>,
    /// `--conf KEY=VALUE`, as a table of Spark properties.
    #[serde(default)]
    pub(super) conf: BTreeMap<String, String>,
}

/// `poisson = { per_hour = N, from_ms = A, until_ms = B }`: arrivals at N an hour on average,
/// exponential gaps, from A (default 0) until B.
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Poisson")]
pub(super) struct RawPoisson {
    /// Mean arrivals per hour (positive).
    pub(super) per_hour: f64,
    /// The first arrival is drawn from here, ms after the cluster started (default 0).
    #[serde(default)]
    pub(super) from_ms: u64,
    /// No arrival at or after this time, ms after the cluster started.
    pub(super) until_ms: u64,
}

/// One job (`[[workload.jobs]]`): a DAG of stages; the last stage is the one the action runs,
/// and every other stage must be one of its ancestors (through `parents`).
#[derive(Deserialize, JsonSchema, Clone)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Job")]
pub(super) struct RawJob {
    /// The action's call site, shown as the job's name ("count at App.scala:42").
    call_site: String,
    /// The stages (`[[workload.jobs.stages]]`), in order; the last one is the result stage.
    stages: Vec<RawStage>,
    /// The job's FAIR scheduler pool: the driver sets `spark.scheduler.pool` before its action
    /// (`sc.setLocalProperty`). Under spark.scheduler.mode=FAIR its task sets join that pool
    /// (one the allocation file did not configure is created FIFO, with Spark's warning); FIFO
    /// mode has no pools.
    pool: Option<String>,
    /// Submitted from another driver thread `delay_ms` after the previous job's submission,
    /// while that job runs (default false: after the previous job's end). Not on the first job.
    #[serde(default)]
    concurrent: bool,
    /// The driver's time, ms, between what the job follows (the previous job's end, or its
    /// submission when `concurrent`) and the job's submission (default 0).
    #[serde(default)]
    delay_ms: u64,
}

impl RawJob {
    /// Whether the job needs more than "after the previous one, at once, no pool".
    fn is_plain(&self) -> bool {
        self.pool.is_none() && !self.concurrent && self.delay_ms == 0
    }

    /// What the driver submits job `j` after: the start, the previous job's end, or (from
    /// another thread) its submission.
    fn anchor(&self, j: usize) -> Result<JobAnchor, String> {
        match (j, self.concurrent) {
            (0, true) => Err(
                "workload.jobs[0].concurrent: the first job has no previous job to run beside; set `concurrent = true` on a later job".into(),
            ),
            (0, false) => Ok(JobAnchor::Start),
            (_, true) => Ok(JobAnchor::Submission(j - 1)),
            (_, false) => Ok(JobAnchor::End(j - 1)),
        }
    }
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
    /// A barrier stage (`rdd.barrier().mapPartitions(...)`): its tasks launch all together
    /// or not at all, and one failed task fails the whole stage attempt (default false).
    #[serde(default)]
    barrier: bool,
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
    #[serde(default = "one_partition")]
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

/// The synthetic application: each stage's task durations drawn from the seed.
pub(super) fn workload(
    w: &RawWorkload,
    seed: u64,
    cluster: &ClusterConfig,
) -> Result<UserProgram, String> {
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
                tasks: tasks.into(),
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
                result_bytes: Default::default(),
                barrier: st.barrier,
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
    if w.jobs.iter().all(RawJob::is_plain) {
        return Ok(UserProgram::Synthetic {
            class: SYNTHETIC_CLASS.into(),
            app_name: w.app_name.clone(),
            jobs,
        });
    }
    scheduled_jobs(w, jobs)
}

/// A workload whose jobs name pools or run concurrently: the driver submits each job after
/// what it follows (as a replayed log's jobs are: `UserProgram::Replay`), from its own thread
/// when `concurrent`, with its `spark.scheduler.pool`.
fn scheduled_jobs(w: &RawWorkload, jobs: Vec<JobSpec>) -> Result<UserProgram, String> {
    let jobs = w
        .jobs
        .iter()
        .zip(jobs)
        .enumerate()
        .map(|(j, (raw, job))| {
            Ok(ReplayedJob {
                after: raw.anchor(j)?,
                driver_ms_before: raw.delay_ms,
                launch_delay_ms: 0,
                pool: raw.pool.clone(),
                failure_caught: false,
                cancelled: None,
                job,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(UserProgram::Replay {
        class: SYNTHETIC_CLASS.into(),
        app_name: w.app_name.clone(),
        jobs,
        driver_ms_after_last_job: 0,
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

/// A note for each stage a later stage reads (`parents`) that sets no `shuffle_write`: its map
/// tasks write an empty shuffle, so the readers fetch nothing (`Getting 0 (0.0 B) non-empty
/// blocks`, every reduce task PROCESS_LOCAL), as a Spark map stage over empty partitions would.
/// A job's map stage almost always writes something, so the scenario says so rather than
/// running it in silence.
pub(super) fn empty_shuffle_notes(w: &RawWorkload) -> Vec<String> {
    let mut notes = Vec::new();
    for (j, job) in w.jobs.iter().enumerate() {
        for (s, st) in job.stages.iter().enumerate() {
            let readers: Vec<String> = (s + 1..job.stages.len())
                .filter(|c| job.stages[*c].parents.contains(&s))
                .map(|c| format!("stages[{c}]"))
                .collect();
            if st.shuffle_write.is_some() || readers.is_empty() {
                continue;
            }
            notes.push(format!(
                "note: workload.jobs[{j}].stages[{s}] (`{}`) has no shuffle_write, so its map tasks write an empty shuffle and {} {} 0 bytes of it (every reduce task PROCESS_LOCAL); add `shuffle_write = {{ bytes_per_task = N }}` to that stage for what each map task writes",
                st.name,
                readers.join(", "),
                if readers.len() == 1 { "reads" } else { "read" }
            ));
        }
    }
    notes
}

/// A log-normal draw (Box-Muller) with the given median.
fn lognormal(rng: &mut ChaCha8Rng, median: f64, sigma: f64) -> u64 {
    let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    (median * (sigma * z).exp())
        .round()
        .clamp(0.0, 30.0 * 86_400_000.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &str) -> RawJob {
        toml::from_str(text).expect("a job")
    }

    const STAGE: &str = "duration = { fixed_ms = 1 }\ntasks = 2\n";

    /// A stage read through `parents` without a `shuffle_write` is named, with what to add; a
    /// stage that writes, or that no later stage reads, is not.
    #[test]
    fn a_read_stage_without_shuffle_write_gets_a_note() {
        let text = format!(
            "[[jobs]]\ncall_site = \"c\"\n[[jobs.stages]]\nname = \"a\"\n{STAGE}\
             [[jobs.stages]]\nname = \"b\"\n{STAGE}shuffle_write = {{ bytes_per_task = 5 }}\n\
             [[jobs.stages]]\nname = \"c\"\nparents = [0, 1]\n{STAGE}"
        );
        let w: RawWorkload = toml::from_str(&text).expect("a workload");
        assert_eq!(
            empty_shuffle_notes(&w),
            [
                "note: workload.jobs[0].stages[0] (`a`) has no shuffle_write, so its map tasks write \
              an empty shuffle and stages[2] reads 0 bytes of it (every reduce task PROCESS_LOCAL); \
              add `shuffle_write = { bytes_per_task = N }` to that stage for what each map task \
              writes"
            ]
        );
    }

    /// Every stage of a job must be an ancestor of its last (DAGScheduler only runs those).
    #[test]
    fn a_stage_no_later_stage_reads_is_refused() {
        let ok = format!(
            "call_site = \"c\"\n[[stages]]\nname = \"a\"\n{STAGE}[[stages]]\nname = \"b\"\nparents = [0]\n{STAGE}"
        );
        assert!(check_ancestors(&job(&ok)).is_ok());
        let orphan = format!(
            "call_site = \"c\"\n[[stages]]\nname = \"a\"\n{STAGE}[[stages]]\nname = \"b\"\n{STAGE}"
        );
        let e = check_ancestors(&job(&orphan)).err().unwrap_or_default();
        assert!(
            e.starts_with("stages[0] (`a`) is not an ancestor of the job's last stage (stages[1])"),
            "{e}"
        );
    }

    /// The log-normal draw has the median it is given (half the draws below it).
    #[test]
    fn lognormal_draws_around_their_median() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let below = (0..2000)
            .filter(|_| lognormal(&mut rng, 1000.0, 0.5) < 1000)
            .count();
        assert!((900..1100).contains(&below), "{below}");
    }

    /// The same seed draws the same workload; task durations come from the seed.
    #[test]
    fn a_seed_draws_one_workload() {
        let w: RawWorkload = toml::from_str(
            "[[jobs]]\ncall_site = \"c\"\n[[jobs.stages]]\nname = \"a\"\ntasks = 8\nduration = { uniform_ms = [1, 100000] }\n",
        )
        .expect("a workload");
        let cluster =
            crate::conf::cluster::load_cluster(crate::conf::cluster::ClusterSource::Embedded)
                .expect("cluster");
        let draw = |seed| format!("{:?}", workload(&w, seed, &cluster));
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    /// A job that names a pool or runs beside the previous one makes the driver submit each job
    /// after what it follows, with its pool (`sc.setLocalProperty("spark.scheduler.pool")`);
    /// the first job cannot be concurrent; plain jobs stay one after the other.
    #[test]
    fn pools_and_concurrent_jobs_are_scheduled() {
        let cluster =
            crate::conf::cluster::load_cluster(crate::conf::cluster::ClusterSource::Embedded)
                .expect("cluster");
        let stage = "[[jobs.stages]]\nname = \"a\"\ntasks = 2\nduration = { fixed_ms = 1 }\n";
        let w: RawWorkload = toml::from_str(&format!(
            "[[jobs]]\ncall_site = \"a\"\n{stage}[[jobs]]\ncall_site = \"b\"\npool = \"etl\"\nconcurrent = true\ndelay_ms = 50\n{stage}[[jobs]]\ncall_site = \"c\"\n{stage}"
        ))
        .expect("a workload");
        let Ok(UserProgram::Replay { jobs, class, .. }) = workload(&w, 1, &cluster) else {
            panic!("a scheduled program");
        };
        assert_eq!(class, SYNTHETIC_CLASS);
        let when: Vec<(JobAnchor, u64, Option<&str>)> = jobs
            .iter()
            .map(|j| (j.after, j.driver_ms_before, j.pool.as_deref()))
            .collect();
        assert_eq!(
            when,
            [
                (JobAnchor::Start, 0, None),
                (JobAnchor::Submission(0), 50, Some("etl")),
                (JobAnchor::End(1), 0, None),
            ]
        );
        let first: RawWorkload = toml::from_str(&format!(
            "[[jobs]]\ncall_site = \"a\"\nconcurrent = true\n{stage}"
        ))
        .expect("a workload");
        let e = workload(&first, 1, &cluster).err().unwrap_or_default();
        assert!(e.starts_with("workload.jobs[0].concurrent"), "{e}");
        let plain: RawWorkload =
            toml::from_str(&format!("[[jobs]]\ncall_site = \"a\"\n{stage}")).expect("a workload");
        assert!(matches!(
            workload(&plain, 1, &cluster),
            Ok(UserProgram::Synthetic { .. })
        ));
    }
}
