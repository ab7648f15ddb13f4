//! Running a recorded application on the simulated cluster through the one submit pipeline:
//! the log's own resources and settings as spark-submit options unless the user's override them,
//! the executors' start-up calibrated to the log's, a scenario's faults, and a typed record of
//! the run (SparkContext start and stop, each job, executors over time, busy cores) taken from
//! the run's observer events, stamped with the virtual clock.

use super::cold_start;
use super::gpus;
use super::locality::{self, HostMap};
use super::model::{Application, OriginalConfig, ProfileRecord, Recoveries, TaskRecord};
use super::placement;
use super::program::{self, REPLAY_CLASS, RecordedDraws};
use crate::conf::cluster::{ClusterConfig, ClusterSource, load_cluster};
use crate::conf::submit::{DefaultsFile, SubmitArgs};
use crate::error::UserError;
use crate::pipeline::{ClusterChoice, RunPlan, Submission};
use crate::runner::RunOptions;
use crate::scenario::Scenario;
use sparkyard_actors::simulation::clock;
use sparkyard_actors::simulation::config::{
    CostModel, FirstExecutorsExtra, JobAnchor, ReplayedJob, UserProgram,
};
use sparkyard_actors::simulation::faults::{FaultAction, FaultController, PlannedFault, Trigger};
use sparkyard_actors::simulation::listener::AttemptEvents;
use sparkyard_actors::simulation::observer::{Recovery, RemovalCause, RunEvent};
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::task::{JobSpec, StageSpec, TaskWork};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// Spark properties of the log that change how the application runs on the cluster, and so are
/// replayed (prefixes); the rest (paths, UI, the local master) are not the cluster's business.
const REPLAYED_KEYS: &[&str] = &[
    "spark.dynamicAllocation.",
    // Exclusion on failure (and its names before 3.1, which Spark 4.0 still reads).
    "spark.excludeOnFailure.",
    "spark.blacklist.",
    "spark.task.cpus",
    "spark.task.maxFailures",
    "spark.speculation",
    "spark.locality.wait",
    "spark.executor.memoryOverhead",
    "spark.scheduler.minRegisteredResourcesRatio",
    "spark.scheduler.maxRegisteredResourcesWaitingTime",
    "spark.scheduler.mode",
    // What the driver takes of task results and how they travel.
    "spark.driver.maxResultSize",
    "spark.task.maxDirectResultSize",
    "spark.rpc.message.maxSize",
    // The stage retries a fetch failure or a barrier stage's failure may take.
    "spark.stage.maxConsecutiveAttempts",
];

/// `spark.scheduler.minRegisteredResourcesRatio`.
const MIN_REGISTERED_RATIO: &str = "spark.scheduler.minRegisteredResourcesRatio";

/// What a replay runs with besides the log.
#[derive(Clone)]
pub struct ReplaySetup {
    /// The user's spark-submit options (override the log's).
    pub submit: SubmitArgs,
    /// A scenario whose faults (and `[chaos]` faults, drawn per seed) the run gets.
    pub scenario: Option<Arc<Scenario>>,
}

/// The user's spark-submit words for a replay, parsed by spark-submit's grammar. No words is
/// a replay under the log's own configuration (for spark-submit itself it would be the usage).
pub fn user_submit_args<T: AsRef<str>>(words: &[T]) -> Result<SubmitArgs, UserError> {
    let (args, _) = user_submit_words(words)?;
    Ok(args)
}

/// [`user_submit_args`] for the command `command` ("replay" or "what-if"): the flags that come
/// with spark-submit's options but that a replay has no use for are refused, never ignored:
/// `--log-dir` (a replay writes no container logs), `--quiet` (it prints only its report and
/// warnings), and `--verbose` for what-if (one spark-submit per configuration; `replay
/// --verbose` prints the one it runs, see [`verbose_report`]).
pub fn user_submit_args_for<T: AsRef<str>>(
    command: &str,
    words: &[T],
) -> Result<SubmitArgs, UserError> {
    let (args, matches) = user_submit_words(words).map_err(|e| match e {
        // spark-submit's usage lists --verbose, which a grid refuses (below): name the command's
        // own help instead of printing it.
        UserError::Launcher { message, .. } if command != "replay" => UserError::usage(format!(
            "{message} ({command} takes spark-submit's options but --verbose, and its own)"
        )),
        other => other,
    })?;
    let from_user =
        |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let unused = |flag: &str, why: &str| {
        Err(UserError::usage(format!(
            "{flag} is not used by {command}: {why}; remove it"
        )))
    };
    if from_user("log_dir") {
        return unused(
            "--log-dir",
            "a replay keeps no container logs (its report is the output; `sparkyard submit` writes container logs)",
        );
    }
    if args.sim.quiet {
        return unused(
            "--quiet",
            "it prints nothing but its report and warnings already",
        );
    }
    let event_log = args.conf.iter().rev().find_map(|kv| {
        kv.strip_prefix("spark.eventLog.enabled=")
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
    });
    if event_log == Some(true) && command != "replay" {
        return unused(
            "--conf spark.eventLog.enabled=true",
            "every configuration and seed of the grid is its own run (`sparkyard replay LOG --conf spark.eventLog.enabled=true` with one configuration's options writes its event log)",
        );
    }
    if args.verbose && command != "replay" {
        return unused(
            "--verbose",
            "every configuration of the grid is its own spark-submit (`sparkyard replay LOG --verbose` with one configuration's options prints its parsed arguments)",
        );
    }
    Ok(args)
}

fn user_submit_words<T: AsRef<str>>(
    words: &[T],
) -> Result<(SubmitArgs, clap::ArgMatches), UserError> {
    let command = clap::Command::new("sparkyard replay");
    let (mut args, matches) =
        SubmitArgs::from_words_with(words.iter().map(AsRef::as_ref), command)?;
    if words.is_empty() {
        args.action = crate::conf::submit::SubmitAction::Submit;
    }
    Ok((args, matches))
}

/// spark-submit's `--verbose` output for the submit a replay runs (the log's resources and
/// settings as options under the user's): what `replay --verbose` prints on stderr.
pub fn verbose_report(p: &Prepared) -> Result<String, UserError> {
    let submission = Submission::from_args(p.args.clone(), DefaultsFile::embedded())?;
    Ok(submission.request.verbose_report())
}

/// The cores a `local[*]` / `local[N]` application ran its tasks on: the driver's own
/// executor's `Total Cores` (`LocalSchedulerBackend` posts it as `ExecutorAdded("driver")`),
/// else N of `local[N]`, else 1 (`local`).
pub fn local_cores(app: &Application) -> Option<u32> {
    if !app.config.is_local() {
        return None;
    }
    let posted = app
        .executors
        .iter()
        .find(|e| e.is_driver())
        .map(|e| e.cores);
    let named = app
        .config
        .master
        .strip_prefix("local[")
        .and_then(|r| r.split([',', ']']).next())
        .and_then(|n| n.trim().parse().ok());
    Some(posted.filter(|&c| c > 0).or(named).unwrap_or(1))
}

/// The one resource profile every executor of the log was of, when it is not the default one:
/// Spark runs a stage only on executors of the stage's profile, so every stage that ran used it.
pub fn single_stage_profile(app: &Application) -> Option<&ProfileRecord> {
    let mut ids = app.executors.iter().map(|e| e.resource_profile_id);
    let first = ids.next()?;
    if first == 0 || ids.any(|i| i != first) {
        return None;
    }
    app.profiles.iter().find(|p| p.id == first)
}

/// A static application's executors: how many it asked for and how many ever registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Registered {
    pub requested: u32,
    pub registered: u32,
}

/// `Some` when, without dynamic allocation, fewer executors ever registered than the
/// application asked for (`spark.executor.instances`), and at least one did.
pub fn fewer_registered(app: &Application) -> Option<Registered> {
    let c = &app.config;
    if c.dynamic_allocation || c.is_local() {
        return None;
    }
    let requested = c.executor_instances?;
    let registered = app.executors.iter().filter(|e| !e.is_driver()).count() as u32;
    (registered > 0 && registered < requested).then_some(Registered {
        requested,
        registered,
    })
}

/// Under dynamic allocation, more executors registered at once before the first job ended than
/// its jobs' tasks could use and than Spark's initial target from the log's properties
/// (`Utils.getDynamicAllocationInitialExecutors`: max of `minExecutors`, `initialExecutors`,
/// `spark.executor.instances`) gives: the cluster's own start-up (an EMR build's, say) the log
/// does not explain. The replay starts as many as the log shows (as it runs the executors that
/// registered where fewer did, [`fewer_registered`]) unless the user set the initial target, and
/// says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EarlyExecutors {
    /// The most executors registered at once before the first job ended.
    pub registered: u32,
    /// What the jobs submitted by then could use: their tasks over an executor's task slots.
    pub usable: u32,
    /// Spark's initial target from the log's properties.
    pub initial: u32,
}

/// See [`EarlyExecutors`]; `None` without dynamic allocation, jobs or such executors.
pub fn early_executors(app: &Application) -> Option<EarlyExecutors> {
    let c = &app.config;
    let first = app
        .jobs
        .first()
        .filter(|_| c.dynamic_allocation && !c.is_local())?;
    let until = first.completed_ms;
    let registered =
        super::model::executors_running(app.executors.iter().filter(|e| !e.is_driver()))
            .into_iter()
            .take_while(|&(t, _)| t <= until)
            .map(|(_, n)| n)
            .max()
            .unwrap_or(0);
    let tasks: u64 = app
        .jobs
        .iter()
        .filter(|j| j.submitted_ms <= until)
        .flat_map(|j| j.stages.iter())
        .map(|s| s.tasks.len() as u64)
        .sum();
    let slots = u64::from((c.executor_cores.unwrap_or(1) / c.task_cpus.max(1)).max(1));
    let usable = tasks.div_ceil(slots) as u32;
    let initial = cold_start::initial_target(c);
    (registered > usable.max(initial)).then_some(EarlyExecutors {
        registered,
        usable,
        initial,
    })
}

/// `spark.scheduler.minRegisteredResourcesRatio` for a replay that starts the recording's
/// early executors beyond Spark's initial target ([`EarlyExecutors`]): the recording's backend
/// waited for its ratio of the initial target its properties gave, not of the executors that
/// came beyond it (`YarnSchedulerBackend.sufficientResourcesRegistered`: registered >=
/// `totalExpectedExecutors` x `minRegisteredRatio`, the expected count being
/// `SchedulerBackendUtils.getInitialTargetExecutorNumber`, under dynamic allocation the
/// initial target). The replay's expected count is the registered one, so the ratio scales by
/// initial / registered (0 where the properties' target was 0: the EMR log's first job was
/// submitted before any executor registered and waited for them).
fn recorded_readiness_ratio(c: &OriginalConfig, e: &EarlyExecutors) -> f64 {
    let yarn_default = if c.backend_waits_for_executors() {
        0.8
    } else {
        0.0
    };
    let ratio = c
        .properties
        .get(MIN_REGISTERED_RATIO)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(yarn_default);
    ratio * f64::from(e.initial) / f64::from(e.registered.max(1))
}

/// The spark-submit words' values the log gives, under the user's.
pub fn submit_args(app: &Application, user: &SubmitArgs) -> SubmitArgs {
    let c = &app.config;
    let mut a = user.clone();
    a.master.get_or_insert_with(|| "yarn".into());
    a.deploy_mode.get_or_insert_with(|| "cluster".into());
    a.main_class.get_or_insert_with(|| REPLAY_CLASS.into());
    if a.name.is_none() && !app.app_name.is_empty() {
        a.name = Some(app.app_name.clone());
    }
    // A recorded value becomes a spark-submit option, which wins over any --conf of its key
    // (SparkSubmit's OptionAssigner sets the key from the option): where the user set the key
    // with --conf (a what-if grid of `spark.executor.instances`, say), the recording must not.
    let conf_sets = |key: &str| user.conf_value(key).is_some();
    // Under dynamic allocation too: Spark's initial target is max(minExecutors,
    // initialExecutors, spark.executor.instances) (Utils.getDynamicAllocationInitialExecutors).
    if a.num_executors.is_none() && !conf_sets("spark.executor.instances") {
        a.num_executors = c.executor_instances.map(|n| n.to_string());
        // Without dynamic allocation, fewer registered than it asked for (YARN had no room for
        // the rest): the replay runs those that ran, and the report says so.
        if let Some(n) = fewer_registered(app) {
            a.num_executors = Some(n.registered.to_string());
        }
    }
    // Executors the log shows at the start beyond Spark's initial target: started as recorded,
    // unless the user set the target (a what-if of it, or Spark's rule asked for by name).
    let target_set = user.num_executors.is_some()
        || cold_start::INITIAL_TARGET_KEYS.iter().any(|k| conf_sets(k));
    let recorded_start = early_executors(app).filter(|_| !target_set);
    let cores_set = conf_sets("spark.executor.cores");
    if a.executor_cores.is_none() && !cores_set {
        a.executor_cores = c.executor_cores.map(|n| n.to_string());
    }
    // A local application's tasks ran in the driver on its cores: one executor of as many.
    if let Some(cores) = local_cores(app) {
        if !conf_sets("spark.executor.instances") {
            a.num_executors.get_or_insert_with(|| "1".into());
        }
        if !cores_set {
            a.executor_cores.get_or_insert_with(|| cores.to_string());
        }
    }
    // Stage-level scheduling: the executors every stage ran on were of one profile.
    if let Some(p) = single_stage_profile(app) {
        if let Some(cores) = p.executor_cores.filter(|_| !cores_set) {
            a.executor_cores.get_or_insert_with(|| cores.to_string());
        }
        if let Some(mb) = p
            .executor_memory_mb
            .filter(|_| !conf_sets("spark.executor.memory"))
        {
            a.executor_memory.get_or_insert_with(|| format!("{mb}m"));
        }
        if let Some(cpus) = p.task_cpus.filter(|c| *c >= 1.0) {
            let key = "spark.task.cpus";
            if !a.conf.iter().any(|kv| kv.starts_with(&format!("{key}="))) {
                a.conf.push(format!("{key}={}", cpus as u32));
            }
        }
    }
    if a.executor_memory.is_none() && !conf_sets("spark.executor.memory") {
        a.executor_memory = c.executor_memory.clone();
    }
    if a.driver_memory.is_none() && !conf_sets("spark.driver.memory") {
        a.driver_memory = c.driver_memory.clone();
    }
    // The executors' GPUs, where the recording's YARN scheduled them (`gpus`).
    let gpu_keys: &[&str] = if gpus::yarn_scheduled_gpus(app) {
        gpus::GPU_KEYS
    } else {
        &[]
    };
    let mut conf: Vec<String> = c
        .properties
        .iter()
        .filter(|(k, _)| {
            REPLAYED_KEYS
                .iter()
                .chain(gpu_keys)
                .any(|p| k.starts_with(p))
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !c.backend_waits_for_executors() && !c.properties.contains_key(MIN_REGISTERED_RATIO) {
        // A standalone, local-cluster or local backend's minRegisteredRatio is 0: its driver
        // submitted the first job without waiting for executors (CoarseGrainedSchedulerBackend:
        // `conf.get(SCHEDULER_MIN_REGISTERED_RESOURCES_RATIO).getOrElse(0.0)`; only
        // YarnSchedulerBackend makes it 0.8), and its first job waited for them instead.
        conf.push(format!("{MIN_REGISTERED_RATIO}=0"));
    }
    if let Some(e) = recorded_start {
        conf.push(format!(
            "{}={}",
            cold_start::INITIAL_EXECUTORS,
            e.registered
        ));
        conf.push(format!(
            "{MIN_REGISTERED_RATIO}={}",
            recorded_readiness_ratio(c, &e)
        ));
    }
    if app.failed_last_job().is_some() {
        // The log is the one attempt whose user class threw: YARN's retry would be another
        // attempt, with its own event log.
        conf.push(format!("{MAX_APP_ATTEMPTS}=1"));
    }
    // The user's --conf come last: they win.
    conf.extend(a.conf);
    a.conf = conf;
    if a.app.is_empty() {
        a.app = vec!["sparkyard-replay.jar".into()];
    }
    a
}

/// `spark.yarn.maxAppAttempts`.
pub const MAX_APP_ATTEMPTS: &str = "spark.yarn.maxAppAttempts";

impl SimOutcome {
    /// The run went as far as its log's attempt did: it succeeded, or the log's last job failed
    /// (its driver threw, [`Application::failed_last_job`]) and every simulated job ended, that one too.
    pub fn ran_as_recorded(&self, app: &Application) -> bool {
        if self.succeeded {
            return true;
        }
        if app.stopped_while_running() {
            // Killed as the recording was (`recorded_stop`).
            return self.final_state == "KILLED/KILLED";
        }
        let jobs = &self.record.jobs;
        app.failed_last_job().is_some()
            && !jobs.is_empty()
            && jobs.iter().all(|j| j.ended_ms.is_some())
    }
}

/// The replay of a recording stopped while a job ran
/// ([`Application::stopped_while_running`]): the user's kill, once as many tasks have succeeded
/// as had at the stop, as long after the last of them.
pub fn recorded_stop(app: &Application) -> Option<PlannedFault> {
    if !app.stopped_while_running() {
        return None;
    }
    let done = as_far_into_the_work(app, app.end_ms)?;
    Some(PlannedFault {
        trigger: done.trigger(),
        after_ms: done.after_ms,
        action: FaultAction::KillApplication,
        label: format!("the recording's stop, {} tasks done", done.tasks),
        app: 0,
        running_app: None,
    })
}

/// How far into the application's work the recording was at a moment: `tasks` had
/// succeeded, the last of them `after_ms` before it.
struct WorkDone {
    tasks: u64,
    after_ms: u64,
}

impl WorkDone {
    /// The simulated run's point where it is as far: its `tasks`-th success (then `after_ms`).
    fn trigger(&self) -> Trigger {
        Trigger::TasksFinished {
            attempt: 1,
            count: self.tasks,
        }
    }
}

/// How far into the work the recording was at `at_ms` (epoch); `None` if no task had
/// succeeded by then.
fn as_far_into_the_work(app: &Application, at_ms: u64) -> Option<WorkDone> {
    let ends = app
        .stages()
        .flat_map(|s| &s.tasks)
        .filter(|t| t.succeeded)
        .map(|t| t.launch_ms + t.duration_ms)
        .filter(|&end| end <= at_ms);
    let (tasks, latest) = ends.fold((0u64, None), |(n, m), e| (n + 1, m.max(Some(e))));
    latest.map(|latest| WorkDone {
        tasks,
        after_ms: at_ms - latest,
    })
}

/// The replay of the recording's executors lost while they ran nothing and the application
/// went on (no lost attempt to end them at, `executor_loss`): each executor's container ends
/// as its removal reason says once as many tasks have succeeded as had at its loss, as long
/// after the last of them, on the executor that registered at its place (the k-th to register
/// stands for the log's k-th). Only where the executors are a fixed set (no dynamic
/// allocation in the log or the run): else no simulated executor stands for a recorded one.
pub fn recorded_idle_losses(app: &Application, args: &SubmitArgs) -> Vec<IdleLoss> {
    if app.config.dynamic_allocation || args.dynamic_allocation_enabled() {
        return Vec::new();
    }
    let registered: Vec<&str> = app
        .executors
        .iter()
        .filter(|e| !e.is_driver())
        .map(|e| e.executor_id.as_str())
        .collect();
    let last_launch = app
        .stages()
        .flat_map(|s| &s.tasks)
        .map(|t| t.launch_ms)
        .max();
    app.executor_losses
        .iter()
        .filter(|l| l.dies_after.is_none())
        .filter_map(|l| {
            let removed = app.start_ms + l.removed_at_ms;
            // The application went on: a task launched after the loss.
            if last_launch? <= removed {
                return None;
            }
            let rank = registered.iter().position(|&e| e == l.executor_id)? as u32 + 1;
            let done = as_far_into_the_work(app, removed)?;
            let fault = PlannedFault {
                trigger: done.trigger(),
                after_ms: done.after_ms,
                action: FaultAction::KillRegisteredExecutor {
                    rank,
                    end: l.cause.end(),
                },
                label: format!("the recording's loss of executor {}", l.executor_id),
                app: 0,
                running_app: None,
            };
            Some(IdleLoss {
                loss: l.clone(),
                fault,
            })
        })
        .collect()
}

/// A recorded executor lost while it ran nothing, as the replay loses it
/// ([`recorded_idle_losses`]).
#[derive(Clone, Debug)]
pub struct IdleLoss {
    pub loss: super::executor_loss::RecordedLoss,
    /// Its container's end on the executor that registered at its place
    /// (`FaultAction::KillRegisteredExecutor`).
    pub fault: PlannedFault,
}

/// What the run did, stamped with the virtual clock (ms since the cluster started).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimRecord {
    pub context_started_ms: Option<u64>,
    pub context_stopped_ms: Option<u64>,
    /// Each job: (started, ended) in submission order, over every AM attempt.
    pub jobs: Vec<JobSpan>,
    /// (time, executors registered and not lost) at each change.
    pub executors_running: Vec<(u64, u32)>,
    /// (time, containers launched so far) at each change.
    pub executors_launched: Vec<(u64, u32)>,
    /// (time, the YarnAllocator's executor target) at each change: what the application asks
    /// YARN for (under dynamic allocation, the ExecutorAllocationManager's target).
    pub executors_requested: Vec<(u64, u32)>,
    /// First registration of each executor, ms after the SparkContext started.
    pub registration_offsets_ms: Vec<u64>,
    /// The executor of each entry of `registration_offsets_ms`.
    pub registration_executors: Vec<u32>,
    /// Integral of running tasks x task cpus over time, core-ms.
    pub busy_core_ms: f64,
    /// Integral of registered executors x cores over time, core-ms.
    pub executor_core_ms: f64,
    pub tasks_failed: u64,
    pub executors_lost: u32,
    pub am_attempts: u32,
    /// What was run again while no job ran (an executor lost between jobs).
    pub recoveries_between_jobs: Recoveries,
    /// Executors already counted as gone (lost or released), by (AM attempt, executor): the
    /// driver's removal and the container's exit are one loss.
    lost: std::collections::BTreeSet<(u32, u32)>,
    /// The program's jobs running now, by index.
    running_jobs: std::collections::BTreeSet<usize>,
    /// Jobs started that no task launch has followed yet.
    awaiting_launch: Vec<usize>,
    running_tasks: u64,
    running_executors: u32,
    launched: u32,
    last_ms: u64,
}

/// One simulated job's span.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobSpan {
    pub started_ms: u64,
    pub ended_ms: Option<u64>,
    /// When the first task launched while it ran (the probe's: the simulation's own time
    /// from a job's submission to its first launch on an idle executor).
    pub first_launch_ms: Option<u64>,
    /// What the simulated schedulers ran again while the job ran.
    pub recoveries: Recoveries,
    /// It ended with JobFailed (aborted, cancelled, or still running at the stop).
    pub failed: bool,
}

impl SimRecord {
    /// The application's time as the event log would show it (ApplicationStart to End).
    pub fn app_ms(&self, run_end_ms: u64) -> u64 {
        let start = self.context_started_ms.unwrap_or(0);
        self.context_stopped_ms
            .unwrap_or(run_end_ms)
            .saturating_sub(start)
    }

    fn advance(&mut self, now: u64, task_cpus: u32, cores: u32) {
        let dt = now.saturating_sub(self.last_ms) as f64;
        self.busy_core_ms += dt * (self.running_tasks * task_cpus as u64) as f64;
        self.executor_core_ms += dt * (self.running_executors as u64 * cores as u64) as f64;
        self.last_ms = now;
    }

    fn apply(&mut self, e: &RunEvent, now: u64, task_cpus: u32, cores: u32) {
        self.advance(now, task_cpus, cores);
        match e {
            RunEvent::SparkContextStarted { .. } => {
                self.context_started_ms.get_or_insert(now);
            }
            RunEvent::SparkContextStopped { .. } => {
                // The application's time ends here, as its event log's does: what its executors
                // do while they shut down is not the application's (nor is it in a recorded log).
                self.context_stopped_ms = Some(now);
                self.running_executors = 0;
                self.running_tasks = 0;
                // The stop fails each job still running ("cancelled because SparkContext was
                // shut down": a JobEnd with JobFailed, as a killed recording shows).
                for &k in &self.running_jobs {
                    if let Some(j) = self.jobs.get_mut(k)
                        && j.ended_ms.is_none()
                    {
                        j.ended_ms = Some(now);
                        j.failed = true;
                    }
                }
            }
            RunEvent::AmAttemptStarted { attempt } => {
                self.am_attempts = *attempt;
                self.running_jobs.clear();
                self.awaiting_launch.clear();
            }
            RunEvent::JobStarted { job, .. } => {
                let k = *job as usize;
                if self.jobs.len() <= k {
                    self.jobs.resize(k + 1, JobSpan::default());
                }
                // A later AM attempt's driver runs the jobs again: the last run counts.
                self.jobs[k] = JobSpan {
                    started_ms: now,
                    ended_ms: None,
                    first_launch_ms: None,
                    recoveries: Recoveries::default(),
                    failed: false,
                };
                self.running_jobs.insert(k);
                self.awaiting_launch.push(k);
            }
            // A failed job ends too (the recording's JobEnd with JobFailed).
            RunEvent::JobSucceeded { job, .. } | RunEvent::JobFailed { job, .. } => {
                let k = *job as usize;
                if let Some(j) = self.jobs.get_mut(k) {
                    j.ended_ms = Some(now);
                    j.failed = matches!(e, RunEvent::JobFailed { .. });
                }
                self.running_jobs.remove(&k);
            }
            RunEvent::ExecutorLaunched { .. } => {
                self.launched += 1;
                self.executors_launched.push((now, self.launched));
            }
            RunEvent::ExecutorTargetChanged { target, .. } => {
                self.executors_requested.push((now, *target));
            }
            RunEvent::ExecutorRegistered { executor, .. } => {
                self.running_executors += 1;
                self.executors_running.push((now, self.running_executors));
                let since = now.saturating_sub(self.context_started_ms.unwrap_or(0));
                self.registration_offsets_ms.push(since);
                self.registration_executors.push(executor.0);
            }
            // Released (dynamic allocation's idle timeout, the driver's kill, a decommission):
            // no longer running, not lost.
            RunEvent::ExecutorRemoved(r) if r.cause != RemovalCause::Lost => {
                self.gone(r.attempt, r.executor.0, now);
            }
            // The driver's removal (a heartbeat timeout) and the container's exit are one loss
            // of one running executor.
            RunEvent::ExecutorLost(lost) => self.lost_one(lost.attempt, lost.executor.0, now),
            RunEvent::TasksLaunched { count } => {
                self.running_tasks += count;
                // Once per job (this is the per-launch path): the jobs waiting for a launch.
                for k in self.awaiting_launch.drain(..) {
                    if let Some(j) = self.jobs.get_mut(k) {
                        j.first_launch_ms.get_or_insert(now);
                    }
                }
            }
            // Any end of a launched attempt: a success or a kill here, a failure below.
            RunEvent::TaskFinished | RunEvent::TaskKilled => {
                self.running_tasks = self.running_tasks.saturating_sub(1)
            }
            RunEvent::TasksFailed { count } => {
                self.tasks_failed += count;
                self.running_tasks = self.running_tasks.saturating_sub(*count);
            }
            RunEvent::Recovery(r) => self.recovered(r),
            _ => {}
        }
    }

    /// An executor stopped running (each once); whether this was the first report of it.
    fn gone(&mut self, attempt: u32, executor: u32, now: u64) -> bool {
        if !self.lost.insert((attempt, executor)) {
            return false;
        }
        self.running_executors = self.running_executors.saturating_sub(1);
        self.executors_running.push((now, self.running_executors));
        true
    }

    /// An executor lost: counted once, in the job running now.
    fn lost_one(&mut self, attempt: u32, executor: u32, now: u64) {
        if self.gone(attempt, executor, now) {
            self.recoveries_now().executors_lost += 1;
            self.executors_lost += 1;
        }
    }

    /// The recoveries of the job running now (the earliest submitted of those running when
    /// jobs run concurrently: FIFO runs its tasks first), else those between jobs.
    fn recoveries_now(&mut self) -> &mut Recoveries {
        let running = self.running_jobs.iter().next().copied();
        match running.and_then(|k| self.jobs.get_mut(k)) {
            Some(j) => &mut j.recoveries,
            None => &mut self.recoveries_between_jobs,
        }
    }

    fn recovered(&mut self, r: &Recovery) {
        let now = self.recoveries_now();
        match *r {
            Recovery::StageResubmitted { tasks, .. } => {
                now.stage_resubmissions += 1;
                now.resubmitted_tasks += u64::from(tasks);
            }
            Recovery::MapOutputResubmitted { .. } => now.map_outputs_resubmitted += 1,
            Recovery::RunningTasksLost { tasks, .. } => {
                now.tasks_lost_with_executors += u64::from(tasks)
            }
        }
    }
}

/// A finished simulated replay.
#[derive(Clone, Debug)]
pub struct SimOutcome {
    pub record: SimRecord,
    pub app_ms: u64,
    /// The application ended FINISHED / SUCCEEDED.
    pub succeeded: bool,
    pub final_state: String,
    pub executor_cores: u32,
    pub executor_memory_mb: u64,
    /// What YARN gives each executor: heap, overhead, off-heap and PySpark memory, MiB.
    pub container_memory_mb: u64,
    pub executor_instances: Option<u32>,
    pub seed: u64,
    pub violations: Vec<String>,
    /// The event logs the run wrote (`spark.eventLog.enabled`), one per SparkContext.
    pub event_logs: Vec<WrittenEventLog>,
    /// Why the application did not succeed: spark-submit's closing exception and YARN's
    /// diagnostics (`None` when it succeeded).
    pub failure: Option<String>,
    /// The faults that fired, in order, with what each acted on.
    pub faults_fired: Vec<FiredFault>,
    /// Labels of planned faults whose trigger never happened.
    pub faults_unfired: Vec<String>,
    /// When the run ended (the client returned), virtual ms since the cluster started.
    pub end_ms: u64,
    /// Why the simulated application could not run at all, in Spark's and YARN's words (see
    /// [`could_not_run`]); `None` when it ran.
    pub not_run: Option<String>,
}

/// A fault that fired in a replay: when (virtual ms since the cluster started), its label and
/// what it acted on (the typed record the run keeps).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FiredFault {
    pub at_ms: u64,
    pub label: String,
    /// The application it acted in, from 1 in submission order.
    pub application: usize,
    pub target: sparkyard_actors::simulation::trace::FaultTarget,
    /// Why the fault could not act when it fired (`None`: it acted on `target`).
    pub no_effect: Option<String>,
}

impl FiredFault {
    /// What it did, as a report says it: `application N: on <container or node>`, or why it
    /// had nothing to act on.
    pub fn outcome(&self) -> String {
        use sparkyard_actors::simulation::trace::FaultTarget;
        let on = match (&self.no_effect, &self.target) {
            (Some(why), _) => format!("nothing to act on ({why})"),
            (None, FaultTarget::Container(c)) => format!("on {c}"),
            (None, FaultTarget::Node(h)) => format!("on node {h}"),
            (None, FaultTarget::Network(_)) => "network rule armed".to_string(),
            (None, FaultTarget::Nothing) => "acted".to_string(),
        };
        format!("application {}: {on}", self.application)
    }
}

impl From<&sparkyard_actors::simulation::faults::Firing> for FiredFault {
    fn from(f: &sparkyard_actors::simulation::faults::Firing) -> Self {
        FiredFault {
            at_ms: f.at_ms,
            label: f.label.clone(),
            application: f.app + 1,
            target: f.target.clone(),
            no_effect: f.no_effect.clone(),
        }
    }
}

/// spark-submit's closing exception, with the first line of YARN's diagnostics when it has any.
fn failure_reason(o: &sparkyard_actors::simulation::context::ClientOutcome) -> Option<String> {
    let e = o.exception.as_ref()?;
    let mut why = format!("{}: {}", e.class, e.message);
    let first = o.diagnostics.lines().next().unwrap_or("");
    if !first.is_empty() && !why.contains(first) {
        why.push_str(&format!(" (diagnostics: {first})"));
    }
    Some(why)
}

/// Whether a simulation ran the application: `None` if it did, else Spark's or YARN's reason
/// it could not. It could not when its SparkContext never started (spark-submit refused the
/// submission, e.g. `Client.verifyClusterResources`' "Required executor memory ... is above
/// the max threshold", or no ApplicationMaster ever ran), or when the application failed
/// without any executor ever registering (the ResourceManager refused the executors' asks,
/// `InvalidResourceRequestException`, or YARN had no room). An application that ran and
/// failed as its recording did is not this.
fn could_not_run(
    record: &SimRecord,
    outcome: &sparkyard_actors::simulation::context::ClientOutcome,
    unallocated: Option<String>,
) -> Option<String> {
    let started = record.context_started_ms.is_some();
    let registered = !record.registration_offsets_ms.is_empty();
    let failed = outcome.exception.is_some();
    if started && (registered || !failed) {
        return None;
    }
    let mut why = match &outcome.exception {
        Some(e) => format!("{}: {}", e.class, e.message),
        None => "the application never started its SparkContext".into(),
    };
    let diagnostics = outcome.diagnostics.trim();
    if !diagnostics.is_empty() && !why.contains(diagnostics) {
        why.push_str(&format!(" (diagnostics: {diagnostics})"));
    }
    if let Some(note) = unallocated {
        why.push_str(&format!("; {}", note.trim_start_matches("note: ")));
    }
    Some(why)
}

/// An event log the replay wrote, and Spark's refusal when an earlier one was in the way.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WrittenEventLog {
    pub path: String,
    pub refused: Option<String>,
}

/// The run's inputs once the log and the options are known (reused by every seed of a what-if).
#[derive(Clone)]
pub struct Prepared {
    pub args: SubmitArgs,
    pub cluster: ClusterConfig,
    pub program: UserProgram,
    pub scenario: Option<Arc<Scenario>>,
    /// Where the simulated cluster came from, and what of it the log gave.
    pub cluster_source: ClusterOrigin,
    /// The recording's stop while a job ran, replayed as the user's kill ([`recorded_stop`]).
    pub stop: Option<PlannedFault>,
    /// The recording's executors lost while they ran nothing, replayed as their containers'
    /// ends ([`recorded_idle_losses`]).
    pub idle_losses: Vec<IdleLoss>,
    /// Where the recording's YARN put each executor ([`placement::recorded_placement`]): the
    /// simulated RM places the first attempt's executors there.
    pub placement: Option<Arc<[Option<u32>]>>,
    /// Whether the calibration derived the cluster's `localization_ms` from the log's cold
    /// start (see `time_startup`).
    pub localization_derived: bool,
}

/// Where the simulated cluster came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ClusterOrigin {
    /// The user's `--cluster FILE`.
    File(String),
    /// The scenario's `[cluster]`.
    Scenario,
    /// The embedded cluster, sized by the log's own recorded YARN limits (its `Hadoop
    /// Properties`), each listed as `key = value`; empty when the log records none.
    Log { taken: Vec<(String, String)> },
    /// The embedded cluster, resized so one executor of a `local[*]` application's cores fits
    /// (`vcores`): a local log's Hadoop properties are the client's defaults, not a cluster's.
    Local { vcores: u32 },
}

/// The YARN limits a log's `Hadoop Properties` record that size the simulated cluster.
const LOG_LIMITS: &[&str] = &[
    "yarn.scheduler.minimum-allocation-mb",
    "yarn.scheduler.maximum-allocation-mb",
    "yarn.scheduler.minimum-allocation-vcores",
    "yarn.scheduler.maximum-allocation-vcores",
    "yarn.nodemanager.resource.memory-mb",
    "yarn.nodemanager.resource.cpu-vcores",
];

/// Sizes the cluster by the log's recorded YARN limits: the scheduler's minimum and maximum
/// allocations, and every NodeManager's memory and vcores when recorded (a value of -1 is
/// YARN's "detect the hardware", which the log cannot tell: the nodes keep the cluster file's
/// size). A NodeManager holds at least the largest container the scheduler allows, so an
/// application that fit the recorded cluster fits the simulated one. Returns what was taken.
fn size_from_log(cluster: &mut ClusterConfig, app: &Application) -> Vec<(String, String)> {
    let mut taken = Vec::new();
    for &key in LOG_LIMITS {
        let Some(v) = app.config.hadoop_yarn.get(key) else {
            continue;
        };
        let Ok(n) = v.trim().parse::<i64>() else {
            continue;
        };
        let Ok(n) = u64::try_from(n) else {
            continue; // -1: detected by the NodeManager from its hardware
        };
        if n == 0 {
            continue;
        }
        let y = &mut cluster.yarn;
        let vcores = u32::try_from(n).unwrap_or(u32::MAX);
        match key {
            "yarn.scheduler.minimum-allocation-mb" => y.minimum_allocation_mb = n,
            "yarn.scheduler.maximum-allocation-mb" => y.maximum_allocation_mb = n,
            "yarn.scheduler.minimum-allocation-vcores" => y.minimum_allocation_vcores = vcores,
            "yarn.scheduler.maximum-allocation-vcores" => y.maximum_allocation_vcores = vcores,
            "yarn.nodemanager.resource.memory-mb" => {
                cluster.nodes.iter_mut().for_each(|x| x.memory_mb = n)
            }
            _ => cluster.nodes.iter_mut().for_each(|x| x.vcores = vcores),
        }
        taken.push((key.to_string(), n.to_string()));
    }
    if let Some(g) = gpus::from_log(app) {
        gpus::size_cluster(cluster, &g);
        taken.push(("yarn.resource-types".into(), "yarn.io/gpu".into()));
        if let Some(max) = g.maximum_allocation {
            taken.push((gpus::GPU_MAXIMUM.into(), max.to_string()));
        }
    }
    if let Some(rule) = single_rack(app) {
        for node in &mut cluster.nodes {
            node.rack = DEFAULT_RACK.into();
        }
        taken.push((TOPOLOGY_SCRIPT.to_string(), rule.to_string()));
    }
    if !taken.is_empty() {
        let (mb, vcores) = (
            cluster.yarn.maximum_allocation_mb,
            cluster.yarn.maximum_allocation_vcores,
        );
        for node in &mut cluster.nodes {
            node.memory_mb = node.memory_mb.max(mb);
            node.vcores = node.vcores.max(vcores);
        }
    }
    taken
}

/// `NetworkTopology.DEFAULT_RACK`.
const DEFAULT_RACK: &str = "/default-rack";
/// `net.topology.script.file.name`.
const TOPOLOGY_SCRIPT: &str = "net.topology.script.file.name";

/// Whether the recording's cluster had every node in one rack: its Hadoop configuration names
/// Hadoop's default mapping (`net.topology.node.switch.mapping.impl` = `ScriptBasedMapping`)
/// and no script, so `ScriptBasedMapping.RawScriptBasedMapping.resolve` put every host in
/// `/default-rack` (and a task could run RACK_LOCAL anywhere). Returns how the report says it.
fn single_rack(app: &Application) -> Option<&'static str> {
    let conf = &app.config.hadoop_yarn;
    let mapping = conf.get("net.topology.node.switch.mapping.impl")?;
    if !mapping.ends_with(".ScriptBasedMapping") {
        return None;
    }
    let script = conf.get(TOPOLOGY_SCRIPT).map_or("", |s| s.trim());
    script
        .is_empty()
        .then_some("(none): every node in /default-rack")
}

/// The recorded `spark.yarn.queue` (what `--queue` gave the recording's spark-submit), unless
/// the user's `--queue` says otherwise. The embedded cluster has only YARN's `default` queue:
/// there the application goes to it and the report says so. A cluster the user gave (a file
/// or the scenario's) gets the recorded queue whether it has it or not: the simulated RM
/// refuses an unknown queue with YARN's own diagnostics, after spark-submit's own checks, as
/// the real submission would fail.
fn recorded_queue(
    app: &Application,
    args: &mut SubmitArgs,
    cluster: &ClusterConfig,
    origin: &ClusterOrigin,
) {
    let Some(queue) = app.config.properties.get(QUEUE_KEY) else {
        return;
    };
    let embedded = matches!(
        origin,
        ClusterOrigin::Log { .. } | ClusterOrigin::Local { .. }
    );
    if args.queue.is_none() && (cluster.yarn.queue(queue).is_some() || !embedded) {
        args.queue = Some(queue.clone());
    }
}

/// `spark.yarn.queue`.
pub const QUEUE_KEY: &str = "spark.yarn.queue";

/// Lets one executor of `cores` fit a node and the scheduler's maximum allocation.
fn fit_local(cluster: &mut ClusterConfig, cores: u32) {
    let y = &mut cluster.yarn;
    y.maximum_allocation_vcores = y.maximum_allocation_vcores.max(cores);
    for node in &mut cluster.nodes {
        node.vcores = node.vcores.max(cores);
    }
}

/// Builds the run's inputs: submit options, the cluster (the user's `--cluster`, the scenario's,
/// else the embedded one) with the executors' start-up calibrated to the log's, the program.
pub fn prepare(app: &Application, setup: &ReplaySetup) -> Result<Prepared, UserError> {
    prepare_on(app, setup, |_| Ok(()))
}

/// [`prepare`], with `adjust` changing the cluster before the start-up is calibrated on it (a
/// what-if grid's cluster keys).
pub fn prepare_on(
    app: &Application,
    setup: &ReplaySetup,
    adjust: impl FnOnce(&mut ClusterConfig) -> Result<(), UserError>,
) -> Result<Prepared, UserError> {
    let args = submit_args(app, &setup.submit);
    let (mut cluster, cluster_source) = match (&args.sim.cluster, &setup.scenario) {
        (Some(path), _) => (
            load_cluster(ClusterSource::Path(path.clone()))?,
            ClusterOrigin::File(path.display().to_string()),
        ),
        (None, Some(s)) => (s.cluster.clone(), ClusterOrigin::Scenario),
        (None, None) => {
            let mut c = load_cluster(ClusterSource::Embedded)?;
            let origin = match local_cores(app) {
                Some(cores) => {
                    fit_local(&mut c, cores);
                    ClusterOrigin::Local { vcores: cores }
                }
                None => ClusterOrigin::Log {
                    taken: size_from_log(&mut c, app),
                },
            };
            (c, origin)
        }
    };
    adjust(&mut cluster)?;
    let mut args = args;
    recorded_queue(app, &mut args, &cluster, &cluster_source);
    // The probe runs without the scenario's faults: it times the healthy start-up.
    let mut p = Prepared {
        args,
        cluster,
        program: probe_program(app),
        scenario: None,
        cluster_source,
        stop: None,
        idle_losses: Vec::new(),
        placement: placement::taken_from_log(
            &app.executors,
            &cold_start::recorded_cold_start_executors(app),
        ),
        localization_derived: false,
    };
    let probe = calibrate(app, &mut p)?;
    let warmup = program::first_task_warmup(app);
    p.cluster.costs.first_task_warmup_ms = warmup.warmup_ms;
    // After the probes: their jobs start on executors already launched.
    p.cluster.costs.executor_init_ms = recorded_executor_init_ms(app);
    let driver = program::driver_time(app, probe.ready_ms, probe.first_launch_ms);
    let hosts = HostMap::new(&app.executors, &probe.executor_hosts, &p.cluster.nodes);
    let draws = recorded_draws(app, &p.args);
    p.program = program::program(app, &driver, &warmup, &hosts, draws);
    p.scenario = setup.scenario.clone();
    // After the probes, which time a healthy start-up.
    p.stop = recorded_stop(app);
    p.idle_losses = recorded_idle_losses(app, &p.args);
    Ok(p)
}

/// Whether the replayed tasks carry the recording's picks of Spark's offer order
/// (`TaskWork::Replayed::recorded_executor`): only where the executors are a fixed set in both
/// runs, so that the k-th to register in the simulation stands for the log's k-th. Under
/// dynamic allocation (the log's or the run's) executors come and go at the simulation's own
/// times, and a registration place names no recorded executor.
fn recorded_draws(app: &Application, args: &SubmitArgs) -> RecordedDraws {
    if app.config.dynamic_allocation || args.dynamic_allocation_enabled() {
        RecordedDraws::Seeded
    } else {
        RecordedDraws::Taken
    }
}

/// An empty job (one task of 0 ms): the probe that times the simulated start-up.
fn probe_program(app: &Application) -> UserProgram {
    let job = JobSpec {
        call_site: "start-up probe".into(),
        stages: vec![StageSpec {
            rdd_description: "start-up probe".into(),
            num_partitions: 1,
            parents: Vec::new(),
            tasks: vec![TaskWork::Replayed {
                duration_ms: 0,
                failures: None,
                cache: None,
                own_warmup_ms: None,
                recorded_executor: None,
            }]
            .into(),
            shuffle_write: Default::default(),
            input: Default::default(),
            lineage: None,
            preferred_hosts: Vec::new(),
            input_path: None,
            result_bytes: Default::default(),
            barrier: false,
        }],
    };
    UserProgram::Replay {
        class: REPLAY_CLASS.into(),
        app_name: app.app_name.clone(),
        jobs: vec![ReplayedJob {
            after: JobAnchor::Start,
            driver_ms_before: 0,
            launch_delay_ms: 0,
            pool: None,
            failure_caught: false,
            cancelled: None,
            job,
        }],
        driver_ms_after_last_job: 0,
    }
}

/// The log's executors' time from their registration to their first task where a stage's tasks
/// were waiting for them (the stage of the executor's first task was submitted before it
/// registered): Spark's `Executor` construction after `RegisteredExecutor` (its BlockManager's
/// registration with the driver, the log's `SparkListenerBlockManagerAdded` in between) until
/// `LaunchedExecutor` and the offer that follows. The median over those executors; 0 with none
/// (every executor came before the work, as on YARN's waiting backend). An executor whose first
/// task was a barrier stage's is left out: `LaunchedExecutor` offers that executor alone
/// (`makeOffers(executorId)`), which a barrier set skips when its tasks outnumber that
/// executor's slots, so the launch may have waited for a round of offers on every executor (the
/// revive timer, 1 s), which the log cannot tell from the executor's construction.
pub fn recorded_executor_init_ms(app: &Application) -> u64 {
    // Each executor's first launch, and when the stage of that task was submitted.
    let mut first: BTreeMap<u32, FirstLaunch> = BTreeMap::new();
    for s in app.stages() {
        for a in s.tasks.iter().flat_map(TaskRecord::attempts_ran) {
            let launch = FirstLaunch {
                launch_ms: a.launch_ms,
                stage_submitted_ms: s.submitted_ms.filter(|_| !s.barrier),
            };
            let e = first.entry(a.executor_id).or_insert(launch);
            if a.launch_ms < e.launch_ms {
                *e = launch;
            }
        }
    }
    let mut gaps: Vec<u64> = app
        .executors
        .iter()
        .filter_map(|e| {
            let id: u32 = e.executor_id.parse().ok()?;
            let f = first.get(&id)?;
            let waiting = f.stage_submitted_ms.is_some_and(|s| s <= e.added_ms);
            let after = f.launch_ms.checked_sub(e.added_ms);
            after.filter(|_| waiting)
        })
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}

/// An executor's first task in the log (`recorded_executor_init_ms`).
#[derive(Clone, Copy)]
struct FirstLaunch {
    launch_ms: u64,
    /// When that task's stage was submitted (`None`: not known, or a barrier stage's).
    stage_submitted_ms: Option<u64>,
}

/// The executors' start-up in the log, median ms from ApplicationStart to ExecutorAdded of the
/// executors present from the start (`None` without executors).
pub fn recorded_startup_ms(app: &Application) -> Option<u64> {
    let offsets = startup_offsets(app);
    offsets.get(offsets.len().checked_sub(1)? / 2).copied()
}

/// ApplicationStart to ExecutorAdded of the executors present from the start, sorted.
fn startup_offsets(app: &Application) -> Vec<u64> {
    let mut offsets: Vec<u64> = app
        .executors
        .iter()
        .map(|e| e.added_ms.saturating_sub(app.start_ms))
        .collect();
    offsets.sort_unstable();
    let c = &app.config;
    let n = c
        .executor_instances
        .or(c.local_cluster_workers)
        .map_or(offsets.len(), |n| n as usize);
    offsets.truncate(n.max(1));
    offsets
}

/// The extra JVM start of each simulated executor (`CostModel.executor_start_spread_ms`, by
/// executor id) that spreads their registrations as the log's: the k-th of `simulated` executors
/// (the probe's registration offsets, sorted) should register at the log's start-up offsets'
/// (k + 1/2)/n quantile (nearest rank: the log's own offsets when the counts are equal, its
/// median for one executor), later than the first by what the simulation does not already
/// spread them. `None` when there is nothing to spread, or the log's executors came and went
/// with dynamic allocation (its later executors are not start-up latencies).
pub fn startup_spread_ms(app: &Application, simulated: &[u64]) -> Option<Vec<u64>> {
    let recorded = startup_offsets(app);
    if app.config.dynamic_allocation || recorded.len() < 2 || simulated.len() < 2 {
        return None;
    }
    let n = simulated.len();
    let target = |k: usize| {
        let rank = ((2 * k + 1) * recorded.len()).div_ceil(2 * n);
        recorded[rank.clamp(1, recorded.len()) - 1]
    };
    let spread: Vec<u64> = (0..n)
        .map(|k| {
            let wanted = target(k).saturating_sub(target(0));
            wanted.saturating_sub(simulated[k] - simulated[0])
        })
        .collect();
    spread.iter().any(|&e| e > 0).then_some(spread)
}

/// Moves the cost model's start-up steps so the simulated executors register when the log's
/// did: one run of the probe (`probe_program`, no faults) measures the simulated start-up (a
/// second one after spreading the executors' starts as the log's, [`startup_spread_ms`]), and
/// the difference goes to the JVM start (longer), or comes off the JVM start, container launch,
/// executor env and SparkContext init in turn (shorter). Returns when the calibrated backend is
/// ready (a probe run under the run's own settings), the simulation's own time from a job's
/// submission to its first launch, and where the calibrated start-up places the executors (a
/// last probe run that waits for all of them).
fn calibrate(app: &Application, p: &mut Prepared) -> Result<Probe, UserError> {
    // The start-up is timed with the backend waiting for every executor, so the probe's job,
    // which ends at once, does not stop the context before the last one registers (under a
    // minRegisteredResourcesRatio of 0 it would start with none).
    let waiting = waiting_for_every_executor(&p.args);
    let first_launch_ms = under_args(p, waiting, |p| time_startup(app, p))?;
    // Then the backend's readiness under the run's own settings: `waitBackendReady` ends when
    // enough executors registered or after spark.scheduler.maxRegisteredResourcesWaitingTime,
    // whichever is first, so it does not simply move with the executors.
    let out = run(p, p.args.sim.seed)?;
    Ok(Probe {
        ready_ms: ready_ms(&out.record),
        first_launch_ms,
        executor_hosts: placed_hosts(app, p)?,
    })
}

/// Where the calibrated start-up places the executors, in registration order (YARN's placement
/// follows the start-up's timing, so only the calibrated probe's matches the run's): one more
/// probe run that waits for every executor. Only a log with tasks placed by their input needs
/// it ([`locality::has_located_input`]); for the others, none.
fn placed_hosts(app: &Application, p: &mut Prepared) -> Result<Vec<String>, UserError> {
    if !locality::has_located_input(app) {
        return Ok(Vec::new());
    }
    let waiting = waiting_for_every_executor(&p.args);
    let placed = under_args(p, waiting, |p| run_probe(p, p.args.sim.seed));
    Ok(placed?.1)
}

/// Runs `f` on `p` with `args` in place of the run's own, which are back when it returns (the
/// probes run under changed arguments).
fn under_args<R>(p: &mut Prepared, args: SubmitArgs, f: impl FnOnce(&mut Prepared) -> R) -> R {
    let own = std::mem::replace(&mut p.args, args);
    let r = f(p);
    p.args = own;
    r
}

/// The run's arguments with the backend waiting for every executor before the first job.
fn waiting_for_every_executor(args: &SubmitArgs) -> SubmitArgs {
    let mut a = args.clone();
    a.conf.push(format!("{MIN_REGISTERED_RATIO}=1"));
    a
}

/// Moves the cost model so the probe's executors register when the log's did (see
/// [`calibrate`]); returns the simulation's own time from a job's submission to its first
/// launch, from the last probe run.
fn time_startup(app: &Application, p: &mut Prepared) -> Result<u64, UserError> {
    // A dynamic-allocation log that asked for executors again after they had gone times one
    // executor's start-up from its job (a cold start): that is what every executor the
    // allocation manager adds pays, so it sets the per-executor steps, and the first executors'
    // longer start-up stays theirs (below).
    let cold = cold_start::recorded_cold_start_ms(app);
    if let Some(recorded) = cold
        && let Some(simulated) = simulated_cold_start_ms(p)?
    {
        let beyond = recorded as i64 - simulated as i64;
        // Only where the log shows it: the placement is taken from the log then.
        if p.placement.is_some() && beyond > 0 && p.cluster.costs.localization_ms == 0 {
            // The simulated executor started on a node new to the application with nothing
            // to download: the rest is the recording's download of the application's
            // resources there, which its executors on hosts it had used did not wait for.
            p.cluster.costs.localization_ms = beyond as u64;
            p.localization_derived = true;
        } else {
            shift_startup(&mut p.cluster.costs, beyond);
        }
    }
    let mut out = run(p, p.args.sim.seed)?;
    // In registration order: the k-th to register gets the k-th share of the spread, whichever
    // executor it is (seeded connection times decide which registers first).
    let r = &out.record;
    let mut regs: Vec<(u64, u32)> = r
        .registration_offsets_ms
        .iter()
        .copied()
        .zip(r.registration_executors.iter().copied())
        .collect();
    regs.sort_unstable();
    let simulated: Vec<u64> = regs.iter().map(|&(at, _)| at).collect();
    if let Some(by_rank) = startup_spread_ms(app, &simulated) {
        // The log's executors registered over a while: spread the simulated ones as much, and
        // time the start-up again with the spread in it.
        p.cluster.costs.executor_start_spread_ms = spread_by_executor(&regs, &by_rank);
        out = run(p, p.args.sim.seed)?;
    }
    let mut offsets = out.record.registration_offsets_ms.clone();
    offsets.sort_unstable();
    if let (Some(target), Some(&sim)) = (
        recorded_startup_ms(app),
        offsets.get(offsets.len().saturating_sub(1) / 2),
    ) {
        let delta = target as i64 - sim as i64;
        let count = cold_start::initial_target(&app.config);
        match cold {
            Some(_) if delta > 0 && count > 0 => {
                p.cluster.costs.first_executors_extra = FirstExecutorsExtra {
                    count,
                    ms: delta as u64,
                };
            }
            _ => shift_startup(&mut p.cluster.costs, delta),
        }
    }
    Ok(own_first_launch_ms(&out.record))
}

/// The simulation's own cold-start time, ms: the probe run with no initial executors
/// ([`cold_start::cold_probe_args`]), from its job's submission to its first executor's
/// registration. `None` if no executor registered.
fn simulated_cold_start_ms(p: &mut Prepared) -> Result<Option<u64>, UserError> {
    let probe = cold_start::cold_probe_args(&p.args);
    let r = under_args(p, probe, |p| run(p, p.args.sim.seed))?.record;
    let job = r.jobs.first().map(|j| j.started_ms);
    let registered = r.executors_running.first().map(|&(t, _)| t);
    Ok(job
        .zip(registered)
        .map(|(job, reg)| reg.saturating_sub(job)))
}

/// The simulation's own time from a job's submission to its first task's launch on an idle
/// executor (the probe's), ms.
fn own_first_launch_ms(r: &SimRecord) -> u64 {
    // Only a job submitted once an executor had registered times the launch path.
    let first_registered = r.executors_running.first().map(|&(t, _)| t);
    r.jobs
        .first()
        .map_or(0, |j| match (j.first_launch_ms, first_registered) {
            (Some(l), Some(reg)) if reg <= j.started_ms => l.saturating_sub(j.started_ms),
            _ => 0,
        })
}

/// When the probe's job started (the backend was ready), ms after the SparkContext started.
fn ready_ms(r: &SimRecord) -> u64 {
    let started = r.context_started_ms.unwrap_or(0);
    r.jobs
        .first()
        .map_or(0, |j| j.started_ms.saturating_sub(started))
}

/// What the probe measured of the calibrated simulation.
struct Probe {
    /// When the backend was ready, ms after the SparkContext started.
    ready_ms: u64,
    /// Its own time from a job's submission to its first launch.
    first_launch_ms: u64,
    /// Its executors' hosts in registration order (see [`HostMap`]).
    executor_hosts: Vec<String>,
}

/// The spread by executor id (`CostModel.executor_start_spread_ms`), from the spread by
/// registration rank and the executors in registration order.
fn spread_by_executor(regs: &[(u64, u32)], by_rank: &[u64]) -> Vec<u64> {
    let ids = regs.iter().map(|&(_, id)| id as usize).max().unwrap_or(0);
    let mut by_id = vec![0; ids];
    for (&(_, id), &extra) in regs.iter().zip(by_rank) {
        by_id[(id as usize).saturating_sub(1)] = extra;
    }
    by_id
}

fn shift_startup(costs: &mut CostModel, delta: i64) {
    if delta >= 0 {
        costs.jvm_start_ms += delta as u64;
        return;
    }
    let mut left = delta.unsigned_abs();
    for step in [
        &mut costs.jvm_start_ms,
        &mut costs.container_launch_ms,
        &mut costs.executor_env_init_ms,
        &mut costs.spark_context_init_ms,
    ] {
        let cut = left.min(*step);
        *step -= cut;
        left -= cut;
    }
}

/// Runs the prepared replay under `seed` (a scenario's `[chaos]` faults are drawn from it).
pub fn run(p: &Prepared, seed: u64) -> Result<SimOutcome, UserError> {
    Ok(run_with_log(p, seed, None, false)?.0)
}

/// [`run`] for the start-up probe, with the hosts its executors registered on, in
/// registration order (the listener's `SparkListenerExecutorAdded`s of its last AM attempt).
fn run_probe(p: &Prepared, seed: u64) -> Result<(SimOutcome, Vec<String>), UserError> {
    let (out, events) = run_with_log(p, seed, None, true)?;
    let hosts = events.last().map_or_else(Vec::new, |a| {
        a.events
            .iter()
            .filter_map(|e| match e {
                ListenerEvent::ExecutorAdded { host, .. } => Some(host.clone()),
                _ => None,
            })
            .collect()
    });
    Ok((out, hosts))
}

/// [`run`], writing the run's event log when its options turn it on (`spark.eventLog.enabled`,
/// `spark.eventLog.dir`), each task's metrics with its own sizes from `app`'s log.
pub fn run_writing_log(
    p: &Prepared,
    seed: u64,
    app: &Application,
) -> Result<SimOutcome, UserError> {
    Ok(run_with_log(p, seed, Some(app), false)?.0)
}

/// A run, with its SparkContexts' listener events when `events` (else none).
fn run_with_log(
    p: &Prepared,
    seed: u64,
    app: Option<&Application>,
    events: bool,
) -> Result<(SimOutcome, Vec<AttemptEvents>), UserError> {
    let (mut faults, deadline) = match &p.scenario {
        Some(s) => s.fault_plan(seed)?,
        None => (FaultController::default(), None),
    };
    if let Some(stop) = &p.stop {
        faults.plan(stop.clone());
    }
    for loss in &p.idle_losses {
        faults.plan(loss.fault.clone());
    }
    let mut options = RunOptions {
        capture_logs: false,
        trace: false,
        record_events: events,
        ..RunOptions::default()
    };
    if let Some(d) = deadline {
        options.deadline_ms = d;
    }
    let run = ReplayRun::build(p, seed, options, faults)?;
    let spark = run.spark.clone();
    let record = run.record.clone();
    let done = run.prepared.run()?;
    let event_logs = match app {
        Some(app) if done.spark.event_log_enabled => {
            let sizes = std::sync::Arc::new(program::recorded_sizes(app));
            crate::outputs::eventlog::write_event_logs_sized(
                &done.result,
                &done.spark,
                Some(sizes),
            )?
            .into_iter()
            .map(|w| WrittenEventLog {
                path: w.path.display().to_string(),
                refused: w.refused,
            })
            .collect()
        }
        _ => Vec::new(),
    };
    let r = &done.result;
    let ran = Ran {
        outcome: &r.outcome,
        counters: &r.counters,
        end_ms: r.end_ms,
        violations: &r.violations,
        faults_fired: &r.faults_fired,
        faults_unfired: &r.faults_unfired,
    };
    let outcome = outcome_of(&spark, record.take(), seed, &ran, event_logs);
    Ok((outcome, if events { r.events.clone() } else { Vec::new() }))
}

/// A replay's run put together through the submit pipeline and not yet run: the pipeline's
/// run (its config is what a cluster run of many replays takes) and the record its observer
/// keeps.
pub struct ReplayRun {
    pub prepared: crate::pipeline::PreparedRun,
    pub spark: sparkyard_actors::simulation::config::SparkSettings,
    pub record: Rc<RefCell<SimRecord>>,
}

impl ReplayRun {
    /// The prepared replay under `seed`, with `faults`, observed into its record.
    pub fn build(
        p: &Prepared,
        seed: u64,
        options: RunOptions,
        faults: FaultController,
    ) -> Result<ReplayRun, UserError> {
        let submission = Submission::from_args(p.args.clone(), DefaultsFile::embedded())?;
        let record = Rc::new(RefCell::new(SimRecord::default()));
        let mut prepared = submission.prepare(RunPlan {
            cluster: ClusterChoice::Loaded(Box::new(p.cluster.clone())),
            seed: Some(seed),
            options,
            synthetic: Some(p.program.clone()),
            faults,
        })?;
        prepared.config.recorded_placement = p.placement.as_deref().map(Rc::from);
        let (cpus, cores) = (prepared.spark.task_cpus, prepared.spark.executor_cores);
        let sink = record.clone();
        prepared.options.observer = Some(Rc::new(move |e: &RunEvent| {
            sink.borrow_mut().apply(e, clock::now_ms(), cpus, cores)
        }));
        Ok(ReplayRun {
            spark: prepared.spark.clone(),
            prepared,
            record,
        })
    }
}

/// What a run left of one replayed application (a single run's result, or its part of a
/// cluster run's).
pub struct Ran<'a> {
    pub outcome: &'a sparkyard_actors::simulation::context::ClientOutcome,
    pub counters: &'a sparkyard_actors::simulation::observer::RunCounters,
    /// When the application's client returned, virtual ms.
    pub end_ms: u64,
    pub violations: &'a [sparkyard_actors::simulation::invariants::Violation],
    pub faults_fired: &'a [sparkyard_actors::simulation::faults::Firing],
    pub faults_unfired: &'a [sparkyard_actors::simulation::faults::Unfired],
}

/// The replay's outcome from its record and what the run left of it.
pub fn outcome_of(
    spark: &sparkyard_actors::simulation::config::SparkSettings,
    mut record: SimRecord,
    seed: u64,
    ran: &Ran,
    event_logs: Vec<WrittenEventLog>,
) -> SimOutcome {
    let (cpus, cores) = (spark.task_cpus, spark.executor_cores);
    let unallocated = crate::report::unallocated_of(ran.counters, spark);
    record.advance(ran.end_ms, cpus, cores);
    let o = ran.outcome;
    let faults_fired = ran.faults_fired.iter().map(FiredFault::from).collect();
    let not_run = could_not_run(&record, o, unallocated);
    let final_state = match (o.state, o.final_status) {
        (Some(s), Some(f)) => format!("{s}/{f}"),
        _ => "NOT-SUBMITTED".into(),
    };
    SimOutcome {
        app_ms: record.app_ms(ran.end_ms),
        record,
        succeeded: o.exception.is_none(),
        final_state,
        executor_cores: cores,
        executor_memory_mb: spark.executor_memory_mb,
        container_memory_mb: spark.executor_container_memory_mb(),
        executor_instances: spark.executor_instances,
        seed,
        violations: ran
            .violations
            .iter()
            .map(|v| format!("{}: {}", v.invariant, v.detail))
            .collect(),
        event_logs,
        failure: failure_reason(o),
        faults_fired,
        faults_unfired: ran.faults_unfired.iter().map(|u| u.label.clone()).collect(),
        end_ms: ran.end_ms,
        not_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// YarnSchedulerBackend.sufficientResourcesRegistered: registered >= expected x ratio, the
    /// expected count `SchedulerBackendUtils.getInitialTargetExecutorNumber` (under dynamic
    /// allocation the initial target). A replay that starts 10 early executors where the
    /// properties' target was 0 (the EMR log) waits for none; one whose target was 4 waits for
    /// the recording's 0.8 x 4 = 3.2 of its 10, a ratio of 0.32; a log's own ratio scales alike;
    /// a backend that never waits (standalone, local-cluster) stays at 0.
    #[test]
    fn early_executors_wait_only_for_the_recorded_initial_targets_share() {
        let yarn = OriginalConfig::default();
        let early = |initial| EarlyExecutors {
            registered: 10,
            usable: 1,
            initial,
        };
        assert_eq!(recorded_readiness_ratio(&yarn, &early(0)), 0.0);
        assert!((recorded_readiness_ratio(&yarn, &early(4)) - 0.32).abs() < 1e-9);
        let mut own = OriginalConfig::default();
        own.properties
            .insert(MIN_REGISTERED_RATIO.into(), "0.5".into());
        assert!((recorded_readiness_ratio(&own, &early(4)) - 0.2).abs() < 1e-9);
        let standalone = OriginalConfig {
            master: "spark://h:7077".into(),
            ..OriginalConfig::default()
        };
        assert_eq!(recorded_readiness_ratio(&standalone, &early(4)), 0.0);
    }

    #[test]
    fn a_shorter_start_up_comes_off_the_steps_in_turn() {
        let mut c = load_cluster(ClusterSource::Embedded)
            .expect("embedded")
            .costs;
        let (jvm, launch) = (c.jvm_start_ms, c.container_launch_ms);
        shift_startup(&mut c, -((jvm + 100) as i64));
        assert_eq!((c.jvm_start_ms, c.container_launch_ms), (0, launch - 100));
        shift_startup(&mut c, 250);
        assert_eq!(c.jvm_start_ms, 250);
    }

    #[test]
    fn the_start_up_spread_follows_the_logs_quantiles_beyond_the_simulations_own() {
        let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/eventlogs/skew_n4_r1.zstd");
        let mut app = crate::replay::model::load(&log).expect("reads");
        // Four executors registered 0, 0.5, 2 and 4.9 s after the first.
        let at = [10_000, 10_500, 12_000, 14_900];
        for (e, ms) in app.executors.iter_mut().zip(at) {
            e.added_ms = app.start_ms + ms;
        }
        let flat = [5_000, 5_000, 5_000, 5_000];
        assert_eq!(
            startup_spread_ms(&app, &flat),
            Some(vec![0, 500, 2_000, 4_900])
        );
        // What the simulation already spreads is not added again.
        let natural = [5_000, 5_300, 5_300, 9_000];
        assert_eq!(
            startup_spread_ms(&app, &natural),
            Some(vec![0, 200, 1_700, 900])
        );
        // Two executors: the log's first and third quartiles (nearest rank), 10.0 and 12.0 s.
        assert_eq!(
            startup_spread_ms(&app, &[5_000, 5_000]),
            Some(vec![0, 2_000])
        );
        // Eight: each recorded start-up twice.
        assert_eq!(
            startup_spread_ms(&app, &[0; 8]),
            Some(vec![0, 0, 500, 500, 2_000, 2_000, 4_900, 4_900])
        );
        assert_eq!(startup_spread_ms(&app, &[5_000]), None);
        app.config.dynamic_allocation = true;
        assert_eq!(startup_spread_ms(&app, &flat), None);
    }
}
