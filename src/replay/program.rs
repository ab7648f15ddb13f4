//! The recorded application as a program the simulated driver runs
//! (`UserProgram::Replay`): each job's stages with their parents in the job, each task's
//! recorded duration (`TaskWork::Replayed`, failed attempts included), and the driver's time
//! before each job and after the last. A task keeps its own duration whatever the executors
//! (Sparklens' assumption).

use super::model::{Application, Stage};
use sparkyard_actors::world::config::{ReplayedJob, UserProgram};
use sparkyard_messages::task::{JobSpec, ReplayedFailure, StageSpec, TaskWork};

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

/// Builds the program; `startup` is how long the log's first job waited for nothing but the
/// driver while executors were starting (see [`DriverTime`]).
pub fn program(app: &Application, startup: DriverTime) -> UserProgram {
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
            .filter(|s| !s.tasks.is_empty())
            .map(|s| stage(s, j))
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

fn stage(s: &Stage, _job: &super::model::Job) -> StageSpec {
    let tasks = s
        .tasks
        .iter()
        .map(|t| TaskWork::Replayed {
            duration_ms: t.duration_ms,
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
