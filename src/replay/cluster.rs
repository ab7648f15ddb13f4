//! `sparkyard replay-cluster`: many Spark event logs replayed together on one simulated YARN
//! cluster, a day of the cluster. Each application is the single-log replay's (`simulate::
//! prepare`: its program, its calibrated start-up, its recorded configuration), submitted at its
//! recorded time by its recorded user to its recorded queue (`spark.yarn.queue`), all on one RM
//! whose CapacityScheduler arbitrates between them, as Hadoop's Scheduler Load Simulator
//! (`SLSRunner`) replays a trace of applications on one ResourceManager.

use super::cluster_deadline::{COMMAND, Deadline, DeadlineOutcome, deadline_of, due_at_ms};
use super::cluster_report::{
    AppRow, AppTimes, DayReport, FaultCost, Held, QueueRow, QueueSteps, SkippedLog, Utilisation,
    normalised, peak_mb, percent, usage_over_time,
};
use super::model::{self, Application};
use super::simulate::{self, Prepared, ReplayRun, ReplaySetup};
use super::simulate::{FiredFault, Ran, SimOutcome, WrittenEventLog};
use crate::conf::cluster::{ClusterConfig, ClusterSource, load_cluster};
use crate::conf::submit::SubmitArgs;
use crate::error::UserError;
use crate::runner::ClusterRunResult;
use crate::runner::{ApplicationPlan, RunOptions};
use crate::scenario::Scenario;
use sparkyard_actors::simulation::clock;
use sparkyard_actors::simulation::faults::FaultController;
use sparkyard_actors::simulation::observer::RunEvent;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// Spark's `spark.yarn.queue` (YARN's `default` when unset).
use super::simulate::QUEUE_KEY;
/// SparkSubmit's `spark.app.submitTime` (epoch ms), when the log records it.
const SUBMIT_TIME_KEY: &str = "spark.app.submitTime";

/// What a day's replay runs with besides the logs.
pub struct DaySetup {
    /// The cluster file (`--cluster`); else the scenario's cluster, else the embedded one.
    pub cluster: Option<PathBuf>,
    /// A scenario whose faults (and `[chaos]` faults, drawn from the seed) the day gets.
    pub scenario: Option<Arc<Scenario>>,
    pub seed: u64,
    /// `--queue-map old=new`: a recorded queue the cluster lacks, submitted to another.
    pub queue_map: BTreeMap<String, String>,
    /// `--skip-bad`: a log that cannot be read is reported and left out.
    pub skip_bad: bool,
    /// `--deadline GLOB=WHEN`: which applications must end by when.
    pub deadlines: Vec<Deadline>,
    /// `--conf KEY=VALUE`: Spark properties every application gets, as spark-submit's `--conf`
    /// (`spark.eventLog.enabled=true` and `spark.eventLog.dir=DIR` write each one's event log).
    pub conf: Vec<String>,
}

/// One application of the day, read from its log.
pub struct DayLog {
    pub path: String,
    pub app: Application,
    /// The queue it is submitted to (recorded, or mapped).
    pub queue: String,
    /// Its recorded submission, epoch ms (`spark.app.submitTime`, else its start).
    pub submit_epoch_ms: u64,
    /// The `--deadline` its name falls under.
    pub deadline: Option<Deadline>,
}

/// A log read, by its path.
#[derive(Clone)]
pub struct ReadLog {
    pub path: String,
    pub app: Application,
}

/// The logs read, and those left out.
pub struct ReadLogs {
    pub logs: Vec<ReadLog>,
    pub skipped: Vec<SkippedLog>,
}

/// `--queue-map old=new` values.
pub fn parse_queue_map(words: &[String]) -> Result<BTreeMap<String, String>, UserError> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((old, new)) if !old.is_empty() && !new.is_empty() => {
                Ok((old.to_string(), new.to_string()))
            }
            _ => Err(UserError::file(COMMAND, format!(
                "--queue-map {w}: expected OLD=NEW (a recorded queue and the cluster's queue to submit to instead)"
            ))),
        })
        .collect()
}

/// The event logs the inputs name: a file or a rolling log directory (`eventlog_v2_*`) as it
/// is, any other directory's logs in name order (its files and rolling log directories; hidden
/// entries and other directories left out).
pub fn log_paths(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, UserError> {
    let mut out = Vec::new();
    for input in inputs {
        if !input.is_dir() || is_rolling_log(input) {
            out.push(input.clone());
            continue;
        }
        let entries = std::fs::read_dir(input)
            .map_err(|e| UserError::file(input.display().to_string(), e.to_string()))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| !hidden(p) && (!p.is_dir() || is_rolling_log(p)))
            .collect();
        if found.is_empty() {
            return Err(UserError::file(
                input.display().to_string(),
                "the directory holds no event log",
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn is_rolling_log(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with("eventlog_v2_")
}

fn hidden(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.')
}

/// Reads every log: an unreadable one, or a second log of an application id, is an error that
/// names the file (with `skip_bad`, it is reported and left out).
pub fn read_logs(paths: &[PathBuf], skip_bad: bool) -> Result<ReadLogs, UserError> {
    let mut read = Vec::new();
    let mut skipped = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for path in paths {
        let label = path.display().to_string();
        // The reader's errors name the file already.
        let found = model::load(path).and_then(|app| match seen.get(&app.app_id) {
            Some(first) => Err(UserError::file(
                label.clone(),
                format!(
                    "a second log of application {} (the first is {first})",
                    app.app_id
                ),
            )),
            None => Ok(app),
        });
        match found {
            Ok(app) => {
                seen.insert(app.app_id.clone(), label.clone());
                read.push(ReadLog { path: label, app });
            }
            Err(e) if skip_bad => skipped.push(SkippedLog {
                path: label,
                error: e.to_string(),
            }),
            Err(e) => return Err(e),
        }
    }
    if read.is_empty() {
        return Err(UserError::file(COMMAND, "no event log could be read"));
    }
    Ok(ReadLogs {
        logs: read,
        skipped,
    })
}

/// The cluster the day runs on, and where it came from.
pub struct DayCluster {
    pub config: ClusterConfig,
    /// Its file, the scenario's `[cluster]` or the embedded one.
    pub label: String,
}

/// The cluster the day runs on: `--cluster`, else the scenario's, else the embedded one.
pub fn day_cluster(setup: &DaySetup) -> Result<DayCluster, UserError> {
    let (config, label) = match (&setup.cluster, &setup.scenario) {
        (Some(path), _) => (
            load_cluster(ClusterSource::Path(path.clone()))?,
            path.display().to_string(),
        ),
        (None, Some(s)) => (s.cluster.clone(), "the scenario's [cluster]".into()),
        (None, None) => (
            load_cluster(ClusterSource::Embedded)?,
            "the embedded cluster".into(),
        ),
    };
    Ok(DayCluster { config, label })
}

/// Each application's queue: its recorded `spark.yarn.queue` (`default` when unset), mapped.
/// A queue the cluster lacks is an error naming it and the logs that use it.
pub fn assign_queues(
    logs: Vec<ReadLog>,
    cluster: &ClusterConfig,
    map: &BTreeMap<String, String>,
) -> Result<Vec<DayLog>, UserError> {
    let mut missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut day = Vec::new();
    for ReadLog { path, app } in logs {
        let recorded = app
            .config
            .properties
            .get(QUEUE_KEY)
            .map_or("default", |q| q.as_str());
        let queue = map
            .get(recorded)
            .map_or(recorded, |q| q.as_str())
            .to_string();
        if cluster.yarn.queue(&queue).is_none() {
            missing.entry(queue.clone()).or_default().push(path.clone());
        }
        let submit_epoch_ms = app
            .config
            .properties
            .get(SUBMIT_TIME_KEY)
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(app.start_ms);
        day.push(DayLog {
            path,
            app,
            queue,
            submit_epoch_ms,
            deadline: None,
        });
    }
    if let Some((queue, paths)) = missing.into_iter().next() {
        return Err(UserError::file(
            COMMAND,
            format!(
                "queue '{queue}' is not a queue of the cluster (its queues: {}); used by {}; give the cluster that queue or map it with --queue-map {queue}=QUEUE",
                cluster.yarn.queue_names(),
                paths.join(", ")
            ),
        ));
    }
    Ok(day)
}

/// Replays the day's logs together and reports.
pub fn replay_cluster(inputs: &[PathBuf], setup: &DaySetup) -> Result<DayReport, UserError> {
    let paths = log_paths(inputs)?;
    replay_logs(read_logs(&paths, setup.skip_bad)?, setup)
}

/// The day's applications, placed: each in its queue with its deadline, in submission order,
/// on the day's cluster.
pub struct Day {
    pub logs: Vec<DayLog>,
    pub skipped: Vec<SkippedLog>,
    pub cluster: DayCluster,
    /// The day's first recorded submission, epoch ms.
    pub first_submit: u64,
}

/// Places the logs read on the day's cluster: queues (a queue it lacks is an error),
/// submission order, deadlines.
pub fn plan_day(read: ReadLogs, setup: &DaySetup) -> Result<Day, UserError> {
    let ReadLogs { logs, skipped } = read;
    let cluster = day_cluster(setup)?;
    let mut day = assign_queues(logs, &cluster.config, &setup.queue_map)?;
    // Submission order: the RM numbers the applications in it (application_<ts>_0001, ...).
    day.sort_by_key(|d| d.submit_epoch_ms);
    for d in &mut day {
        d.deadline = deadline_of(&setup.deadlines, &d.app.app_name, &d.path)?.cloned();
    }
    let first_submit = day.iter().map(|d| d.submit_epoch_ms).min().unwrap_or(0);
    Ok(Day {
        logs: day,
        skipped,
        cluster,
        first_submit,
    })
}

/// How many simulations a day's replay ran: one start-up probe per application, one day with
/// the scenario's faults, and one more without them only when the scenario has faults (each
/// application's [`FaultCost`] is measured against it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DaySimulations {
    /// Start-up calibrations (`simulate::prepare_on`'s probe), one per application.
    pub probes: usize,
    /// Whole days simulated.
    pub days: usize,
}

/// A day's report and what it took to make it.
pub struct DayReplay {
    pub report: DayReport,
    pub simulations: DaySimulations,
}

/// Replays logs already read together and reports.
pub fn replay_logs(read: ReadLogs, setup: &DaySetup) -> Result<DayReport, UserError> {
    replay_logs_counted(read, setup).map(|d| d.report)
}

/// [`replay_logs`], saying how many simulations it ran.
pub fn replay_logs_counted(read: ReadLogs, setup: &DaySetup) -> Result<DayReplay, UserError> {
    let Day {
        logs: day,
        skipped,
        cluster:
            DayCluster {
                config: cluster,
                label: cluster_label,
            },
        first_submit,
    } = plan_day(read, setup)?;
    // Each application is prepared (its start-up probe run) once; the day without the faults
    // reuses the preparations, as its applications are the same.
    let prepared = prepare_all(&day, &cluster, setup)?;
    let mut simulations = DaySimulations {
        probes: prepared.len(),
        days: 0,
    };
    let runs = day_runs(&day, &prepared, &cluster, setup.seed, first_submit)?;
    let (faults, deadline) = match &setup.scenario {
        Some(s) => s.fault_plan_for(setup.seed, day.len())?,
        None => (FaultController::default(), None),
    };
    let has_faults = faults.last_app_aimed_at().is_some();
    let ran = run_day(&runs, setup.seed, faults, deadline, true)?;
    simulations.days += 1;
    let event_logs = write_event_logs(&day, &runs, &ran)?;
    // A scenario's cost to each application: the same day again without its faults. A
    // scenario without faults (only a cluster, say) costs nothing: the day is its own baseline.
    let baseline = if has_faults {
        let again = day_runs(&day, &prepared, &cluster, setup.seed, first_submit)?;
        let none = FaultController::default();
        simulations.days += 1;
        Some(run_day(&again, setup.seed, none, deadline, false)?)
    } else {
        None
    };
    let without_faults = match (&setup.scenario, &baseline) {
        (Some(_), Some(b)) => Some(b),
        (Some(_), None) => Some(&ran),
        (None, _) => None,
    };
    let mut report = build(
        &day,
        &runs,
        &ran,
        DayContext {
            cluster: &cluster,
            cluster_label,
            seed: setup.seed,
            skipped,
            first_submit_epoch_ms: first_submit,
            without_faults,
        },
    );
    for (row, logs) in report.applications.iter_mut().zip(event_logs) {
        row.event_logs = logs;
    }
    Ok(DayReplay {
        report,
        simulations,
    })
}

/// Each application's event logs, as its single replay writes them when its options turn
/// them on (`spark.eventLog.enabled`, `spark.eventLog.dir`): every SparkContext of it under its
/// own simulated application id, each task's sizes from its recorded log.
fn write_event_logs(
    day: &[DayLog],
    runs: &[DayRun],
    ran: &ClusterRunResult,
) -> Result<Vec<Vec<WrittenEventLog>>, UserError> {
    let costs = crate::record::TaskCostModel::from(&runs[0].run.prepared.config.costs);
    let each = day.iter().zip(runs).zip(&ran.applications);
    each.map(|((d, r), a)| {
        let sizes = r
            .run
            .spark
            .event_log_enabled
            .then(|| Arc::new(super::program::recorded_sizes(&d.app)));
        application_event_logs(&a.events, costs, &r.run.spark, sizes, &d.path)
    })
    .collect()
}

/// One application's event logs among a run's (`replay-cluster`, a many-application `run`), as
/// its single run writes them when its settings turn them on (`spark.eventLog.enabled`,
/// `spark.eventLog.dir`): each SparkContext under its own simulated application id, each
/// task's sizes from `sizes` where a recorded log gave them. Errors name `label`.
pub fn application_event_logs(
    events: &[sparkyard_actors::simulation::listener::AttemptEvents],
    costs: crate::record::TaskCostModel,
    spark: &sparkyard_actors::simulation::config::SparkSettings,
    sizes: Option<Arc<crate::outputs::eventlog::RecordedTaskSizes>>,
    label: &str,
) -> Result<Vec<WrittenEventLog>, UserError> {
    if !spark.event_log_enabled {
        return Ok(Vec::new());
    }
    let written = crate::outputs::eventlog::write_attempts_sized(events, costs, spark, sizes)
        .map_err(|e| UserError::file(label.to_string(), e.to_string()))?;
    Ok(written
        .into_iter()
        .map(|w| WrittenEventLog {
            path: w.path.display().to_string(),
            refused: w.refused,
        })
        .collect())
}

/// Every application of the day prepared as its single replay is (its start-up probe run).
fn prepare_all(
    day: &[DayLog],
    cluster: &ClusterConfig,
    setup: &DaySetup,
) -> Result<Vec<Prepared>, UserError> {
    day.iter()
        .map(|d| prepare_replay(d, cluster, day_submit_args(d, &setup.conf, setup.seed)?))
        .collect()
}

/// Every application of the day put together from its preparation, submitted at its recorded
/// offset.
fn day_runs(
    day: &[DayLog],
    prepared: &[Prepared],
    cluster: &ClusterConfig,
    seed: u64,
    first_submit: u64,
) -> Result<Vec<DayRun>, UserError> {
    day.iter()
        .zip(prepared)
        .map(|(d, p)| day_run(d, p, seed, day_offset_ms(d, cluster, first_submit)))
        .collect()
}

/// When `d`'s spark-submit starts on `cluster`, ms after the day's first submission
/// ([`submit_offset_ms`]).
pub fn day_offset_ms(d: &DayLog, cluster: &ClusterConfig, first_submit: u64) -> u64 {
    let interval = cluster.yarn.nm_heartbeat_interval_ms.max(1);
    submit_offset_ms(d.submit_epoch_ms - first_submit, interval)
}

/// When an application's spark-submit starts, ms after the first's: its recorded offset,
/// rounded down to the NodeManagers' heartbeat interval so it meets their heartbeats at the
/// phase its single replay does (containers are allocated on heartbeats), which keeps an
/// application that nothing delays exactly as long as its single replay.
pub fn submit_offset_ms(recorded_ms: u64, heartbeat_interval_ms: u64) -> u64 {
    recorded_ms - recorded_ms % heartbeat_interval_ms.max(1)
}

/// One application of the day, put together as its single replay is, waiting to run.
pub struct DayRun {
    pub run: ReplayRun,
    /// When its spark-submit starts, virtual ms after the cluster started.
    pub submit_at_ms: u64,
    /// When the day's YARN facts about it happened.
    pub times: Rc<RefCell<AppTimes>>,
}

/// The spark-submit options `d` is submitted with: the day's `--conf`s, its queue, and `seed`
/// (the start-up calibration's).
pub fn day_submit_args(d: &DayLog, conf: &[String], seed: u64) -> Result<SubmitArgs, UserError> {
    let words: Vec<&str> = conf.iter().flat_map(|kv| ["--conf", kv.as_str()]).collect();
    let mut submit = simulate::user_submit_args(&words)?;
    submit.sim.seed = seed;
    submit.queue = Some(d.queue.clone());
    Ok(submit)
}

/// The single replay's preparation of `d` (program, start-up calibrated under `submit`'s seed)
/// on the day's cluster; errors name its log.
pub fn prepare_replay(
    d: &DayLog,
    cluster: &ClusterConfig,
    submit: SubmitArgs,
) -> Result<Prepared, UserError> {
    let replay = ReplaySetup {
        submit,
        scenario: None,
    };
    simulate::prepare_on(&d.app, &replay, |c| {
        *c = cluster.clone();
        Ok(())
    })
    .map_err(|e| UserError::file(d.path.clone(), e.to_string()))
}

/// `d`'s prepared replay put together under `seed`, submitted by its recorded user, its YARN
/// facts observed.
pub fn day_run(
    d: &DayLog,
    prepared: &Prepared,
    seed: u64,
    submit_at_ms: u64,
) -> Result<DayRun, UserError> {
    let options = RunOptions {
        capture_logs: false,
        trace: false,
        ..RunOptions::default()
    };
    let mut run = ReplayRun::build(prepared, seed, options, FaultController::default())
        .map_err(|e| UserError::file(d.path.clone(), e.to_string()))?;
    if !d.app.user.is_empty() {
        run.prepared.config.user = d.app.user.clone();
    }
    let times = Rc::new(RefCell::new(AppTimes::default()));
    let record = run.prepared.options.observer.take();
    let sink = times.clone();
    run.prepared.options.observer = Some(Rc::new(move |e: &RunEvent| {
        if let Some(record) = &record {
            record(e);
        }
        sink.borrow_mut().apply(e, clock::now_ms());
    }));
    Ok(DayRun {
        run,
        submit_at_ms,
        times,
    })
}

/// Runs the day's applications on one cluster (the first application's settings of it; the
/// cluster part is the same for all) with a fault plan, until `deadline` if given; with
/// `record_events`, each application whose options write an event log records its events.
pub fn run_day(
    runs: &[DayRun],
    seed: u64,
    faults: FaultController,
    deadline: Option<u64>,
    record_events: bool,
) -> Result<crate::runner::ClusterRunResult, UserError> {
    let last_submit = runs.iter().map(|r| r.submit_at_ms).max().unwrap_or(0);
    let mut options = RunOptions {
        seed,
        capture_logs: false,
        trace: false,
        ..RunOptions::default()
    };
    options.deadline_ms = deadline.unwrap_or(last_submit + options.deadline_ms);
    let plans: Vec<ApplicationPlan> = runs
        .iter()
        .map(|r| ApplicationPlan {
            config: r.run.prepared.config.clone(),
            submit_at_ms: r.submit_at_ms,
            record_events: record_events && r.run.spark.event_log_enabled,
            observer: r.run.prepared.options.observer.clone(),
        })
        .collect();
    let cluster = plans[0].config.clone();
    crate::runner::run_cluster(cluster, plans, &options, faults)
}

/// What the report needs of the day besides its logs and runs.
pub struct DayContext<'a> {
    pub cluster: &'a ClusterConfig,
    pub cluster_label: String,
    pub seed: u64,
    pub skipped: Vec<SkippedLog>,
    /// The day's first recorded submission, epoch ms (a deadline's time of day is on its clock).
    pub first_submit_epoch_ms: u64,
    /// The same day replayed without the scenario (with `--scenario`): each application's
    /// cost of the faults is measured against it.
    pub without_faults: Option<&'a ClusterRunResult>,
}

/// Builds the report from the day's logs, its prepared runs and what the run left.
pub fn build(
    days: &[DayLog],
    runs: &[DayRun],
    ran: &ClusterRunResult,
    ctx: DayContext,
) -> DayReport {
    let outcomes: Vec<SimOutcome> = runs
        .iter()
        .zip(&ran.applications)
        .map(|(r, a)| {
            let left = Ran {
                outcome: &a.outcome,
                counters: &a.counters,
                end_ms: a.end_ms,
                violations: &[],
                faults_fired: &[],
                faults_unfired: &[],
            };
            let record = r.run.record.borrow().clone();
            simulate::outcome_of(&r.run.spark, record, ctx.seed, &left, Vec::new())
        })
        .collect();
    let applications: Vec<AppRow> = days
        .iter()
        .zip(runs)
        .zip(&outcomes)
        .zip(&ran.applications)
        .enumerate()
        .map(|(i, (((d, r), o), a))| {
            let mut row = app_row(d, r, o, a);
            let without = ctx.without_faults.and_then(|w| w.applications.get(i));
            row.fault_cost = without.map(|w| FaultCost::between(a, w));
            row.deadline = d.deadline.as_ref().map(|dl| {
                let due_at_ms = due_at_ms(dl, ctx.first_submit_epoch_ms, r.submit_at_ms);
                DeadlineOutcome {
                    deadline: dl.text.clone(),
                    due_at_ms,
                    met: a.end_ms <= due_at_ms,
                }
            });
            row
        })
        .collect();
    let first = runs.iter().map(|r| r.submit_at_ms).min().unwrap_or(0);
    let day_ms = ran.end_ms.saturating_sub(first);
    let c = ctx.cluster;
    let memory: u64 = c.nodes.iter().map(|n| n.memory_mb).sum();
    let vcores: u64 = c.nodes.iter().map(|n| u64::from(n.vcores)).sum();
    let busy_core_ms: f64 = outcomes.iter().map(|o| o.record.busy_core_ms).sum();
    let available = vcores as f64 * day_ms as f64;
    DayReport {
        cluster: ctx.cluster_label,
        nodes: c.nodes.len(),
        cluster_memory_mb: memory,
        cluster_vcores: vcores,
        seed: ctx.seed,
        queues: queue_rows(c, memory, days, runs, &outcomes, ran),
        applications,
        utilisation: Utilisation {
            busy_core_hours: busy_core_ms / 3_600_000.0,
            available_core_hours: available / 3_600_000.0,
            percent: if available > 0.0 {
                100.0 * busy_core_ms / available
            } else {
                0.0
            },
        },
        day_ms,
        skipped: ctx.skipped,
        violations: ran.violation_texts(),
        faults_fired: ran.faults_fired.iter().map(FiredFault::from).collect(),
    }
}

fn app_row(d: &DayLog, r: &DayRun, o: &SimOutcome, a: &crate::runner::ApplicationResult) -> AppRow {
    let times = r.times.borrow();
    let accepted_ms = match (times.submitted_ms, times.am_allocated_ms) {
        (Some(s), Some(at)) => Some(at.saturating_sub(s)),
        _ => None,
    };
    AppRow {
        path: d.path.clone(),
        app_id: d.app.app_id.clone(),
        yarn_app_id: a.outcome.application_id.map(|id| id.to_string()),
        name: d.app.app_name.clone(),
        user: r.run.prepared.config.user.clone(),
        queue: d.queue.clone(),
        submitted_at_ms: r.submit_at_ms,
        recorded_ms: d.app.duration_ms(),
        simulated_ms: o.app_ms,
        accepted_ms,
        executor_wait_ms: o.record.registration_offsets_ms.iter().min().copied(),
        outcome: o.final_state.clone(),
        failure: o.failure.clone(),
        not_run: o.not_run.clone(),
        deadline: None,
        fault_cost: None,
        event_logs: Vec::new(),
    }
}

/// What application `o` held over time: its AM container from allocation to completion, its
/// executors' containers while registered.
fn held_by(c: &ClusterConfig, r: &DayRun, o: &SimOutcome, end_ms: u64) -> Vec<Held> {
    let min = c.yarn.minimum_allocation_mb;
    let mut steps = Vec::new();
    let times = r.times.borrow();
    if let Some(at) = times.am_allocated_ms {
        let am = normalised(r.run.spark.am_container_memory_mb(), min);
        steps.push(Held {
            at_ms: at,
            delta_mb: am,
        });
        let until = times.am_completed_ms.unwrap_or(end_ms);
        steps.push(Held {
            at_ms: until,
            delta_mb: -am,
        });
    }
    let each = normalised(o.container_memory_mb, min);
    let mut before = 0i64;
    for &(at_ms, running) in &o.record.executors_running {
        let now = i64::from(running);
        steps.push(Held {
            at_ms,
            delta_mb: (now - before) * each,
        });
        before = now;
    }
    steps.push(Held {
        at_ms: end_ms,
        delta_mb: -before * each,
    });
    steps
}

fn queue_rows(
    c: &ClusterConfig,
    memory: u64,
    days: &[DayLog],
    runs: &[DayRun],
    outcomes: &[SimOutcome],
    ran: &ClusterRunResult,
) -> Vec<QueueRow> {
    c.yarn
        .queues
        .iter()
        .map(|q| {
            let members: Vec<usize> = (0..days.len())
                .filter(|&i| days[i].queue == q.name)
                .collect();
            let steps: Vec<Held> = members
                .iter()
                .flat_map(|&i| held_by(c, &runs[i], &outcomes[i], ran.applications[i].end_ms))
                .collect();
            let guaranteed_mb = (memory as f64 * q.capacity / 100.0) as u64;
            let pending_applications: Vec<Held> = members
                .iter()
                .flat_map(|&i| pending_steps(&runs[i]))
                .collect();
            let mut pending_containers = pending_applications.clone();
            for &i in &members {
                let end_ms = ran.applications[i].end_ms;
                pending_containers.extend(executors_waited_for(&outcomes[i], end_ms));
            }
            let queue_steps = QueueSteps {
                held: steps.clone(),
                pending_applications,
                pending_containers,
            };
            let usage = usage_over_time(queue_steps, guaranteed_mb);
            let peak_used_mb = peak_mb(steps);
            QueueRow {
                name: q.name.clone(),
                capacity_percent: q.capacity,
                guaranteed_mb,
                applications: members.len(),
                peak_used_mb,
                peak_percent_of_guaranteed: percent(peak_used_mb, guaranteed_mb),
                usage,
            }
        })
        .collect()
}

/// The executors an application waits for over time: its YarnAllocator's target beyond its
/// registered executors (YARN's pending requests and containers still starting), from its
/// first request until its SparkContext stopped (or its client returned).
fn executors_waited_for(o: &SimOutcome, end_ms: u64) -> Vec<Held> {
    let r = &o.record;
    let stop = r.context_stopped_ms.unwrap_or(end_ms).min(end_ms);
    // (time, is a registration count, value), in time order.
    let mut changes: Vec<(u64, bool, u32)> = r
        .executors_requested
        .iter()
        .map(|&(t, n)| (t, false, n))
        .chain(r.executors_running.iter().map(|&(t, n)| (t, true, n)))
        .filter(|&(t, _, _)| t < stop)
        .collect();
    changes.sort_by_key(|&(t, _, _)| t);
    let (mut target, mut running, mut waiting) = (0u32, 0u32, 0i64);
    let mut steps = Vec::new();
    for (k, &(at_ms, registered, n)) in changes.iter().enumerate() {
        if registered {
            running = n;
        } else {
            target = n;
        }
        // One step per instant, after every change at it.
        if changes.get(k + 1).is_some_and(|next| next.0 == at_ms) {
            continue;
        }
        let now = i64::from(target.saturating_sub(running));
        if now != waiting {
            steps.push(Held {
                at_ms,
                delta_mb: now - waiting,
            });
            waiting = now;
        }
    }
    if waiting != 0 {
        steps.push(Held {
            at_ms: stop,
            delta_mb: -waiting,
        });
    }
    steps
}

/// An application ACCEPTED: +1 when submitted, -1 when its first AM container is allocated.
fn pending_steps(r: &DayRun) -> Vec<Held> {
    let times = r.times.borrow();
    let Some(submitted) = times.submitted_ms else {
        return Vec::new();
    };
    let mut steps = vec![Held {
        at_ms: submitted,
        delta_mb: 1,
    }];
    if let Some(at_ms) = times.am_allocated_ms {
        steps.push(Held {
            at_ms,
            delta_mb: -1,
        });
    }
    steps
}
