//! The recorded application as a program the simulated driver runs
//! (`UserProgram::Replay`): each job's stages with their parents in the job, each task's
//! recorded duration (`TaskWork::Replayed`, failed attempts included), and the driver's time
//! before each job and after the last. A task keeps its own duration whatever the executors
//! (Sparklens' assumption).

use super::model::{Application, Stage};
use sparkyard_actors::world::config::{ReplayedJob, UserProgram};
use sparkyard_messages::task::{JobSpec, ReplayedFailure, StageSpec, TaskWork};
use std::collections::BTreeMap;

/// The `--class` a replayed application runs as.
pub const REPLAY_CLASS: &str = "org.sparkyard.replay.ReplayedApplication";

/// How the driver's time before the first job is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverTime {
    /// Driver time before the first job that the log shows overlapping the executors' start-up;
    /// on YARN the user code waits for the backend first (`waitBackendReady`), so this part is
    /// not spent again after it.
    pub overlapped_startup_ms: u64,
}

/// The first task of each executor in the log and the warm-up it paid, which belongs to the
/// executor, not to the task: Executor.TaskRunner's first task on a fresh executor fetches the
/// task binary's broadcast (TorrentBroadcast.readBroadcastBlock, cached in the executor's
/// BlockManager afterwards), loads and JIT-compiles the classes, and for PySpark starts the
/// executor's Python worker (PythonWorkerFactory, reused by later tasks with
/// spark.python.worker.reuse). A replay on fewer executors pays it fewer times, on more
/// executors more often: the program takes it off those tasks and the simulated executor adds
/// it to whatever task it runs first (`CostModel.first_task_warmup_ms`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FirstTaskWarmup {
    /// The median over executors of the first task's excess over its stage's median task.
    pub warmup_ms: u64,
    /// Each executor's first task: (job, stage) indices into the application -> the task
    /// indices in that stage, sorted.
    pub first_tasks: BTreeMap<(usize, usize), Vec<usize>>,
}

/// Where a task is in the application and when it launched: ordered by launch, then by job,
/// stage and index (the order the TaskSetManager offers tasks launched in the same ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct TaskAt {
    launch_ms: u64,
    job: usize,
    stage: usize,
    task: usize,
}

/// Finds each executor's first task (earliest launch; ties by job, stage, index) and the
/// warm-up the log shows for it.
pub fn first_task_warmup(app: &Application) -> FirstTaskWarmup {
    let mut first: BTreeMap<u32, TaskAt> = BTreeMap::new();
    for (job, j) in app.jobs.iter().enumerate() {
        for (stage, s) in j.stages.iter().enumerate() {
            for (task, t) in s.tasks.iter().enumerate() {
                let at = TaskAt {
                    launch_ms: t.launch_ms,
                    job,
                    stage,
                    task,
                };
                let e = first.entry(t.executor_id).or_insert(at);
                *e = (*e).min(at);
            }
        }
    }
    let mut medians: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    let mut excess: Vec<u64> = Vec::with_capacity(first.len());
    let mut first_tasks: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for at in first.values() {
        first_tasks
            .entry((at.job, at.stage))
            .or_default()
            .push(at.task);
        let stage = &app.jobs[at.job].stages[at.stage];
        if stage.tasks.len() < 3 {
            // Too few tasks to tell a warm-up from the task's own work.
            continue;
        }
        let median = *medians
            .entry((at.job, at.stage))
            .or_insert_with(|| median_duration(stage));
        excess.push(stage.tasks[at.task].duration_ms.saturating_sub(median));
    }
    excess.sort_unstable();
    first_tasks.values_mut().for_each(|v| v.sort_unstable());
    FirstTaskWarmup {
        warmup_ms: excess
            .get(excess.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0),
        first_tasks,
    }
}

fn median_duration(stage: &Stage) -> u64 {
    let mut d: Vec<u64> = stage.tasks.iter().map(|t| t.duration_ms).collect();
    let mid = (d.len() - 1) / 2;
    *d.select_nth_unstable(mid).1
}

/// Builds the program; `startup` is how long the log's first job waited for nothing but the
/// driver while executors were starting (see [`DriverTime`]); each executor's first task
/// leaves `warmup.warmup_ms` to the simulated executor (see [`FirstTaskWarmup`]).
pub fn program(app: &Application, startup: DriverTime, warmup: &FirstTaskWarmup) -> UserProgram {
    let mut jobs = Vec::with_capacity(app.jobs.len());
    let mut carried = 0;
    for (k, j) in app.jobs.iter().enumerate() {
        let mut before = j.driver_ms_before + carried;
        if k == 0 {
            before = before.saturating_sub(startup.overlapped_startup_ms);
        }
        let stages: Vec<StageSpec> = j
            .stages
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.tasks.is_empty())
            .map(|(i, s)| {
                let firsts = warmup
                    .first_tasks
                    .get(&(k, i))
                    .map_or(&[][..], Vec::as_slice);
                stage(s, firsts, warmup.warmup_ms)
            })
            .collect();
        if stages.is_empty() {
            // A job that ran no task (all stages skipped, or an empty RDD) is driver time.
            carried = before + j.duration_ms();
            continue;
        }
        carried = 0;
        jobs.push(ReplayedJob {
            driver_ms_before: before,
            job: JobSpec {
                call_site: call_site(j.stages.last().map_or("", |s| s.name.as_str())),
                stages: reindex(stages, j),
            },
        });
    }
    UserProgram::Replay {
        class: REPLAY_CLASS.into(),
        app_name: app.app_name.clone(),
        jobs,
        driver_ms_after_last_job: app.driver_ms_after + carried,
    }
}

fn call_site(stage_name: &str) -> String {
    if stage_name.is_empty() {
        "replayed job".into()
    } else {
        stage_name.to_string()
    }
}

/// One stage's tasks; those in `firsts` (sorted; an executor's first task) leave `warmup_ms` out.
fn stage(s: &Stage, firsts: &[usize], warmup_ms: u64) -> StageSpec {
    let tasks = s
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| TaskWork::Replayed {
            duration_ms: if firsts.binary_search(&i).is_ok() {
                t.duration_ms.saturating_sub(warmup_ms)
            } else {
                t.duration_ms
            },
            failures: t.failures.as_ref().map(|f| {
                f.iter()
                    .map(|a| ReplayedFailure {
                        duration_ms: a.duration_ms,
                        class: a.class.clone(),
                        description: a.description.clone(),
                    })
                    .collect()
            }),
        })
        .collect::<Vec<_>>();
    StageSpec {
        rdd_description: format!("{} (stage {})", s.name, s.stage_id),
        num_partitions: tasks.len() as u32,
        parents: s.parents.iter().map(|&p| p as usize).collect(),
        tasks,
        // Shuffle sizes from the log are not replayed yet (the data model is not used).
        shuffle_write: Default::default(),
        lineage: None,
        preferred_hosts: Vec::new(),
    }
}

/// Turns parents given as stage ids into indices of the job's stage list.
fn reindex(mut stages: Vec<StageSpec>, job: &super::model::Job) -> Vec<StageSpec> {
    let ids: Vec<u32> = job
        .stages
        .iter()
        .filter(|s| !s.tasks.is_empty())
        .map(|s| s.stage_id)
        .collect();
    for s in &mut stages {
        s.parents = s
            .parents
            .iter()
            .filter_map(|&id| ids.iter().position(|&x| x as usize == id))
            .collect();
    }
    stages
}

/// The driver time before the first job that a YARN driver would spend waiting for its backend
/// anyway: the log's time from ApplicationStart to the first job, up to `ready_ms` (when the
/// simulated backend, its start-up calibrated to the log's, is ready).
pub fn startup_overlap(app: &Application, ready_ms: u64) -> DriverTime {
    let driver = app
        .jobs
        .first()
        .map_or(0, |j| j.submitted_ms.saturating_sub(app.start_ms));
    DriverTime {
        overlapped_startup_ms: driver.min(ready_ms),
    }
}
