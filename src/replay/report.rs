//! `sparkyard replay`'s report: the recorded run next to the simulated one (application and
//! per-job time, utilisation, wasted core-hours, critical path and ideal time, executors over
//! time, failures and recoveries, Sparklens' prediction), as a typed record printed as a table
//! or as JSON (`--json`).

use super::analysis::{self, ratio};
use super::model::{Application, FailureCounts, ReadNote, Recoveries, Removal};
use super::simulate::{ClusterOrigin, Prepared, SimOutcome};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const ALLOCATION_FILE: &str = "spark.scheduler.allocation.file";

/// Points kept per executor curve (evenly spread over the run).
const CURVE_POINTS: usize = 60;

#[derive(Clone, Debug, Serialize)]
pub struct ReplayReport {
    /// Why the simulation could not run the application (Spark's or YARN's reason): the
    /// replay is then an error (`sparkyard replay` exits 1), its figures meaningless.
    pub error: Option<String>,
    pub log: LogSummary,
    /// Where the simulated cluster came from (and what the log gave of it).
    pub cluster: ClusterOrigin,
    /// What the replay simulates differently from the recording, or could not read.
    pub notes: Vec<ReplayNote>,
    pub original: Resources,
    pub simulated: Resources,
    pub time: Comparison,
    pub jobs: Vec<JobRow>,
    pub utilization: Comparison,
    pub wasted_core_hours: Comparison,
    /// Driver time plus each job's longest chain of stages, each as long as its longest task
    /// index with the attempts that threw before it and a killed attempt's time to its kill
    /// (`TaskRecord::path_ms`: the attempts as the replay runs them).
    pub critical_path_ms: u64,
    /// The application on infinitely many executors that start at once: the critical path.
    pub ideal_ms: u64,
    /// Sparklens' simple-scheduler prediction for the simulated executors x cores.
    pub sparklens_ms: u64,
    pub task_time: TaskTime,
    pub data: DataSizes,
    pub executors: ExecutorCurves,
    pub failures: Failures,
    pub seed: u64,
    /// The replay's own event logs (`--conf spark.eventLog.enabled=true`).
    pub event_logs: Vec<super::simulate::WrittenEventLog>,
    /// The application time's p10-p90 band and what it covers (`accuracy::of_replay`).
    pub accuracy: Option<super::accuracy::ReplayAccuracy>,
    /// With a scenario: the faults that fired, with their times (virtual ms since the cluster
    /// started) and what each acted on; `None` without a scenario.
    pub faults_fired: Option<Vec<super::simulate::FiredFault>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LogSummary {
    pub path: String,
    pub app_id: String,
    pub app_name: String,
    pub spark_version: String,
    pub events: u64,
    pub jobs: usize,
    pub stages: usize,
    pub tasks: u64,
    /// Unknown events skipped, by name (a warning each).
    pub unknown_events: BTreeMap<String, u64>,
    /// Spark's own events of older releases skipped (nothing to replay), by name.
    pub older_events: BTreeMap<String, u64>,
    pub ignored_events: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Resources {
    pub master: String,
    pub executor_instances: Option<u32>,
    pub executor_cores: Option<u32>,
    pub executor_memory: Option<String>,
    pub dynamic_allocation: bool,
    pub task_cpus: u32,
    pub speculation: bool,
    pub locality_wait: Option<String>,
}

/// A recorded figure, its simulated counterpart and the relative error (simulated - recorded).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Comparison {
    pub recorded: f64,
    pub simulated: f64,
    pub error_pct: f64,
}

impl Comparison {
    pub fn of(recorded: f64, simulated: f64) -> Self {
        Comparison {
            recorded,
            simulated,
            error_pct: 100.0 * ratio(simulated - recorded, recorded),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct JobRow {
    pub job_id: u32,
    pub stages: usize,
    pub tasks: u64,
    pub driver_ms_before: u64,
    pub recorded_ms: u64,
    pub simulated_ms: Option<u64>,
    pub critical_path_ms: u64,
    /// What Spark ran again in the job to recover from lost executors and shuffle outputs.
    pub recorded_recoveries: Recoveries,
    /// The same in the simulated job (`None`: the job ran no task, so was not simulated).
    pub simulated_recoveries: Option<Recoveries>,
    /// How the job ended in the log (its JobEnd's `Job Result`).
    pub recorded_result: JobEnded,
    /// How it ended in the simulation (`None`: not simulated, or it never ended).
    pub simulated_result: Option<JobEnded>,
}

/// A job's `JobResult`: `JobSucceeded` or `JobFailed` (aborted, cancelled, or failed by the
/// application's stop).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobEnded {
    Succeeded,
    Failed,
}

impl JobEnded {
    fn of(failed: bool) -> Self {
        if failed {
            JobEnded::Failed
        } else {
            JobEnded::Succeeded
        }
    }
}

/// Totals over every successful task attempt, ms (Spark UI's split of a task's duration).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TaskTime {
    pub duration: u64,
    pub run: u64,
    pub deserialize: u64,
    pub result_serialization: u64,
    pub gc: u64,
    pub getting_result: u64,
    pub scheduler_delay: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DataSizes {
    pub input_bytes: u64,
    pub shuffle_read_bytes: u64,
    pub shuffle_write_bytes: u64,
}

/// (seconds since the application started, executors) at changes.
#[derive(Clone, Debug, Serialize)]
pub struct ExecutorCurves {
    /// What the configuration asks YARN for at the start (static allocation's target).
    pub requested: Option<u32>,
    /// The simulated YarnAllocator's executor target over time (dynamic allocation moves it;
    /// an event log does not record Spark's target, so there is no recorded counterpart).
    pub simulated_requested: Vec<(f64, u32)>,
    pub recorded_running: Vec<(f64, u32)>,
    pub simulated_launched: Vec<(f64, u32)>,
    pub simulated_running: Vec<(f64, u32)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Failures {
    pub recorded_task_exceptions: u64,
    pub recorded_executor_lost: u64,
    pub recorded_fetch_failed: u64,
    pub recorded_killed: u64,
    /// Speculative copies the log shows launched, and how many of them won their race.
    pub recorded_speculative: u64,
    pub recorded_speculative_won: u64,
    pub recorded_stage_retries: u64,
    pub recorded_executors_removed: usize,
    /// Of those, the ones the application released (dynamic allocation's idle timeout, a
    /// kill: "exited from explicit termination request"), not lost.
    pub recorded_executors_released: usize,
    /// Of those, the ones lost (the rest are released or removed at shutdown).
    pub recorded_executors_lost: usize,
    pub simulated_task_failures: u64,
    pub simulated_executors_lost: u32,
    pub simulated_am_attempts: u32,
    pub simulated_final_state: String,
    pub simulated_violations: Vec<String>,
    /// Every job's recoveries added up.
    pub recorded_recoveries: Recoveries,
    /// Every simulated job's, with those while no job ran.
    pub simulated_recoveries: Recoveries,
    /// What the simulation ran again while no job ran (an executor lost between jobs).
    pub simulated_recoveries_between_jobs: Recoveries,
}

/// Builds the report of one replay.
pub fn build(path: &str, app: &Application, prepared: &Prepared, sim: &SimOutcome) -> ReplayReport {
    let rec = analysis::recorded(app);
    let sim_exec_core_ms = sim.record.executor_core_ms;
    let sim_util = ratio(sim.record.busy_core_ms, sim_exec_core_ms);
    let cores = sim.executor_cores.max(1);
    let executors = sim.executor_instances.unwrap_or(2).max(1);
    let ms_per_hour = 3_600_000.0;
    let wasted = |exec: f64, busy: f64| (exec - busy).max(0.0) / ms_per_hour;
    let c = &app.config;
    let jobs = job_rows(app, sim);
    let failures = failures(&app.failures, app, sim, &jobs);
    ReplayReport {
        error: sim.not_run.clone(),
        cluster: prepared.cluster_source.clone(),
        notes: notes(app, prepared),
        log: LogSummary {
            path: path.to_string(),
            app_id: app.app_id.clone(),
            app_name: app.app_name.clone(),
            spark_version: app.spark_version.clone(),
            events: app.events_read,
            jobs: app.jobs.len(),
            stages: app.stages().count(),
            tasks: app.task_count(),
            unknown_events: app.skipped.unknown.clone(),
            older_events: app.skipped.older.clone(),
            ignored_events: app.skipped.ignored,
        },
        original: Resources {
            master: c.master.clone(),
            executor_instances: c.executor_instances,
            executor_cores: c.executor_cores,
            executor_memory: c.executor_memory.clone(),
            dynamic_allocation: c.dynamic_allocation,
            task_cpus: c.task_cpus,
            speculation: c.speculation,
            locality_wait: c.locality_wait.clone(),
        },
        simulated: Resources {
            master: "yarn (cluster mode, simulated)".into(),
            executor_instances: sim.executor_instances,
            executor_cores: Some(sim.executor_cores),
            executor_memory: Some(format!("{}m", sim.executor_memory_mb)),
            dynamic_allocation: prepared.args.dynamic_allocation_enabled(),
            task_cpus: c.task_cpus,
            speculation: c.speculation,
            locality_wait: c.locality_wait.clone(),
        },
        time: Comparison::of(rec.app_ms as f64, sim.app_ms as f64),
        jobs,
        utilization: Comparison::of(rec.utilization(), sim_util),
        wasted_core_hours: Comparison::of(
            wasted(rec.executor_core_ms as f64, rec.task_core_ms as f64),
            wasted(sim_exec_core_ms, sim.record.busy_core_ms),
        ),
        critical_path_ms: rec.critical_path_ms,
        ideal_ms: rec.critical_path_ms,
        sparklens_ms: analysis::sparklens_estimate_ms(app, executors, cores),
        task_time: task_time(app),
        data: data_sizes(app),
        executors: curves(app, sim),
        failures,
        seed: sim.seed,
        event_logs: sim.event_logs.clone(),
        accuracy: None,
        faults_fired: None,
    }
}

fn job_rows(app: &Application, sim: &SimOutcome) -> Vec<JobRow> {
    let mut spans = sim.record.jobs.iter();
    app.jobs
        .iter()
        .map(|j| {
            let runs = j.stages.iter().any(|s| !s.tasks.is_empty());
            let span = if runs { spans.next() } else { None };
            let simulated_ms =
                span.and_then(|s| s.ended_ms.map(|e| e.saturating_sub(s.started_ms)));
            JobRow {
                job_id: j.job_id,
                stages: j.stages.len(),
                tasks: j.stages.iter().map(|s| s.tasks.len() as u64).sum(),
                driver_ms_before: j.driver_ms_before,
                recorded_ms: j.duration_ms(),
                simulated_ms,
                critical_path_ms: analysis::critical_path_ms(j),
                recorded_recoveries: j.recoveries(&app.executors),
                simulated_recoveries: span.map(|s| s.recoveries),
                recorded_result: JobEnded::of(j.failure.is_some()),
                simulated_result: span
                    .filter(|s| s.ended_ms.is_some())
                    .map(|s| JobEnded::of(s.failed)),
            }
        })
        .collect()
}

fn task_time(app: &Application) -> TaskTime {
    let mut t = TaskTime::default();
    for r in app.stages().flat_map(|s| s.tasks.iter()) {
        t.duration += r.duration_ms;
        t.run += r.run_ms;
        t.deserialize += r.deserialize_ms;
        t.result_serialization += r.result_serialization_ms;
        t.gc += r.gc_ms;
        t.getting_result += r.getting_result_ms;
        t.scheduler_delay += r.scheduler_delay_ms;
    }
    t
}

fn data_sizes(app: &Application) -> DataSizes {
    DataSizes {
        input_bytes: app.stages().map(|s| s.input_bytes()).sum(),
        shuffle_read_bytes: app.stages().map(|s| s.shuffle_read_bytes()).sum(),
        shuffle_write_bytes: app.stages().map(|s| s.shuffle_write_bytes()).sum(),
    }
}

/// Keeps at most [`CURVE_POINTS`] points, the last included.
fn thin(points: Vec<(f64, u32)>) -> Vec<(f64, u32)> {
    if points.len() <= CURVE_POINTS {
        return points;
    }
    let step = points.len().div_ceil(CURVE_POINTS);
    let last = points.last().copied();
    let mut out: Vec<(f64, u32)> = points.into_iter().step_by(step).collect();
    if out.last().copied() != last {
        out.extend(last);
    }
    out
}

fn curves(app: &Application, sim: &SimOutcome) -> ExecutorCurves {
    let secs = |t: u64, zero: u64| t.saturating_sub(zero) as f64 / 1000.0;
    let recorded = super::model::executors_running(&app.executors)
        .into_iter()
        .map(|(t, n)| (secs(t, app.start_ms), n))
        .collect();
    let zero = sim.record.context_started_ms.unwrap_or(0);
    let sim_curve = |v: &Vec<(u64, u32)>| v.iter().map(|&(t, n)| (secs(t, zero), n)).collect();
    ExecutorCurves {
        requested: sim.executor_instances,
        simulated_requested: thin(sim_curve(&sim.record.executors_requested)),
        recorded_running: thin(recorded),
        simulated_launched: thin(sim_curve(&sim.record.executors_launched)),
        simulated_running: thin(sim_curve(&sim.record.executors_running)),
    }
}

fn failures(f: &FailureCounts, app: &Application, sim: &SimOutcome, jobs: &[JobRow]) -> Failures {
    let mut recorded_recoveries = Recoveries::default();
    let mut simulated_recoveries = sim.record.recoveries_between_jobs;
    for j in jobs {
        recorded_recoveries.add(&j.recorded_recoveries);
        if let Some(r) = &j.simulated_recoveries {
            simulated_recoveries.add(r);
        }
    }
    Failures {
        recorded_task_exceptions: f.exception,
        recorded_executor_lost: f.executor_lost,
        recorded_fetch_failed: f.fetch_failed,
        recorded_killed: f.killed,
        recorded_speculative: f.speculative,
        recorded_speculative_won: f.speculative_won,
        recorded_stage_retries: f.stage_retries,
        recorded_executors_removed: app
            .executors
            .iter()
            .filter(|e| e.removed_ms.is_some())
            .count(),
        recorded_executors_released: removed(app, Removal::Released),
        recorded_executors_lost: removed(app, Removal::Lost),
        simulated_task_failures: sim.record.tasks_failed,
        simulated_executors_lost: sim.record.executors_lost,
        simulated_am_attempts: sim.record.am_attempts,
        simulated_final_state: sim.final_state.clone(),
        simulated_violations: sim.violations.clone(),
        recorded_recoveries,
        simulated_recoveries,
        simulated_recoveries_between_jobs: sim.record.recoveries_between_jobs,
    }
}

fn removed(app: &Application, how: Removal) -> usize {
    app.executors
        .iter()
        .filter(|e| e.removal() == Some(how))
        .count()
}

/// What the replay simulates differently from the recording, or could not read; each is a
/// line of the report, so nothing is dropped silently.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ReplayNote {
    /// The reader's own notes (events it could not use, or took something in place of).
    Read(ReadNote),
    /// The log ran in client mode (the driver outside YARN); the replay runs it in cluster
    /// mode, the driver in the AM's container.
    ClientMode,
    /// The log ran `local[*]`: its tasks ran in the driver on `cores` cores; the replay runs
    /// them on one YARN executor of as many cores.
    Local { master: String, cores: u32 },
    /// The log ran on another cluster manager (standalone, local-cluster, Kubernetes): replayed
    /// on YARN; `waits` whether its backend waited for executors before the first job (the
    /// replay's does as it did).
    OtherMaster { master: String, waits: bool },
    /// `spark.scheduler.mode=FAIR` (with these pools), replayed as Spark 4.0.0 builds the pools
    /// from `given_file` (an allocation file the user gave the replay with `--conf`), else
    /// without one; `allocation_file`: the log's `spark.scheduler.allocation.file`, which the
    /// replay does not read (its contents are not in the log).
    FairScheduler {
        pools: Vec<String>,
        allocation_file: Option<String>,
        given_file: Option<String>,
    },
    /// The log's `spark.yarn.queue`, which the embedded cluster lacks: replayed in `default`.
    QueueNotInCluster { queue: String },
    /// Custom resources (GPUs and the like) the executors asked for, by name and amount per
    /// executor, and what the replay does with its GPUs.
    CustomResources {
        resources: BTreeMap<String, f64>,
        gpus: GpuReplay,
    },
    /// Stage-level resource profiles: `simulated` is the one whose executors the replay runs
    /// (every stage used it), `ignored` the others.
    ResourceProfiles {
        simulated: Option<u32>,
        ignored: Vec<u32>,
    },
    /// Fewer executors ever registered than the application asked for (YARN had no room for
    /// the rest); the replay runs `simulated` (those that registered, unless the user said).
    FewerRegistered {
        requested: u32,
        registered: u32,
        simulated: Option<String>,
    },
    /// The log's last job failed: the log is that one attempt's, so the replay runs one
    /// attempt (`spark.yarn.maxAppAttempts=1` unless the user set it). `stopped_first`: the
    /// log's `ApplicationEnd` came before the job's end (the application was stopped or killed
    /// while the job ran, and the job failed for it: the replay kills it too,
    /// `simulate::recorded_stop`), else its `main` threw.
    EndedByFailedJob {
        job_id: u32,
        max_attempts: String,
        stopped_first: bool,
    },
    /// The recording's executors ran in Docker (`spark.executorEnv.YARN_CONTAINER_RUNTIME_TYPE
    /// =docker`): whether the replay stops them as a Hadoop 3.1 NodeManager does.
    DockerExecutors {
        /// The recorded `yarn.nodemanager.runtime.linux.docker.stop.grace-period` (seconds).
        recorded_grace: Option<String>,
        /// The replay's `[costs] docker_stop_grace_ms`, when its executors run in Docker too
        /// (the user's `--conf`); `None` when they do not or the grace is 0.
        replayed_grace_ms: Option<u64>,
    },
    /// The log's executors started faster on hosts the application had used than on new ones:
    /// the replay places them on nodes standing for their recorded hosts
    /// (`replay::placement`), and a node new to the application downloads its resources for
    /// `localization_ms` (`[costs] localization_ms`).
    PlacedAsRecorded {
        /// The recorded hosts (distinct).
        hosts: u32,
        /// The executors placed (the log's highest executor id).
        executors: u32,
        localization_ms: u64,
        /// Whether the replay derived `localization_ms` from the log (else the cluster's).
        derived: bool,
    },
    /// The recording lost executors while tasks ran on them and ran those tasks again: the
    /// replay's executor running each loss's last lost attempt dies as it ends
    /// (`replay::executor_loss`); `not_replayed`: the other recorded losses.
    ExecutorLosses {
        replayed: Vec<super::executor_loss::RecordedLoss>,
        /// Losses of executors that ran nothing then, replayed at the recorded point of the
        /// work on the executor registered at the same place (`simulate::recorded_idle_losses`).
        idle: Vec<super::executor_loss::RecordedLoss>,
        not_replayed: u32,
        /// Whether the recording ran on YARN (else its cluster manager replaced the executors,
        /// without YARN's allocation loop).
        yarn: bool,
    },
    /// Under dynamic allocation, more executors at the start than Spark's rule explains
    /// (`simulate::early_executors`): the replay follows the rule.
    EarlyExecutors {
        early: super::simulate::EarlyExecutors,
        /// The initial target the replay ran with (the recorded count unless the user set it).
        replayed: u32,
    },
}

impl std::fmt::Display for ReplayNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayNote::Read(ReadNote::JobEndWithoutStart { jobs }) => write!(
                f,
                "{} SparkListenerJobEnd(s) without their JobStart (jobs {}: failed before their start was posted, or the start was dropped): not replayed",
                jobs.len(),
                list(jobs)
            ),
            ReplayNote::Read(ReadNote::StagesWithoutJob { stages, tasks }) => write!(
                f,
                "{} stage(s) that ran in no job of the log (stages {}, {tasks} task events; their job's start is missing): not replayed",
                stages.len(),
                list(stages)
            ),
            ReplayNote::Read(ReadNote::TasksWithoutEvents {
                stage,
                tasks,
                each_ms,
            }) => write!(
                f,
                "stage {stage} ran with no SparkListenerTaskEnd: its {tasks} tasks are replayed as its recorded span, {} each",
                secs(*each_ms as f64)
            ),
            ReplayNote::ClientMode => f.write_str(
                "recorded in client mode (the driver outside YARN): replayed in cluster mode, the driver in the AM's container; the executors' start-up is calibrated to the log's (ApplicationStart to ExecutorAdded), so the mode's other start-up path is not added",
            ),
            ReplayNote::Local { master, cores } => write!(
                f,
                "recorded with master {master}: its tasks ran in the driver on {cores} core(s); replayed on YARN as one executor of {cores} core(s), the executor's start-up calibrated to the log's driver executor"
            ),
            ReplayNote::OtherMaster { master, waits: false } => write!(
                f,
                "recorded with master {master}: replayed on YARN in cluster mode; like the recorded backend (CoarseGrainedSchedulerBackend's minRegisteredResourcesRatio 0, not YARN's 0.8), the driver does not wait for executors before its first job"
            ),
            ReplayNote::OtherMaster { master, waits: true } => write!(
                f,
                "recorded with master {master}: replayed on YARN in cluster mode (its backend, like YARN's, waited for executors before the first job)"
            ),
            ReplayNote::QueueNotInCluster { queue } => write!(
                f,
                "submitted to queue '{queue}' (spark.yarn.queue), which the embedded cluster lacks: replayed in its 'default' queue (give --cluster FILE with that queue to replay it there)"
            ),
            ReplayNote::FairScheduler {
                pools,
                allocation_file,
                given_file,
            } => {
                let with = if pools.is_empty() {
                    String::new()
                } else {
                    format!(" with pools {}", pools.join(", "))
                };
                match given_file {
                    Some(file) => write!(
                        f,
                        "spark.scheduler.mode=FAIR{with}: replayed with the pools of {file} (spark.scheduler.allocation.file, given to the replay), 'default' from it or FIFO when it has none, and each pool a job names that it lacks created FIFO, minShare 0, weight 1"
                    )?,
                    None => write!(
                        f,
                        "spark.scheduler.mode=FAIR{with}: replayed with Spark 4.0's pools, the 'default' pool FAIR (no allocation file: Spark 4.0 gives it spark.scheduler.mode, where older Sparks made it FIFO) and each pool a job names created FIFO, minShare 0, weight 1"
                    )?,
                }
                match allocation_file {
                    Some(file) if given_file.as_ref() != Some(file) => write!(
                        f,
                        "; the log's spark.scheduler.allocation.file {file} is not read (its pools' modes, minShares and weights are not in the log)"
                    ),
                    _ => Ok(()),
                }
            }
            ReplayNote::CustomResources { resources, gpus } => {
                custom_resources_note(f, resources, gpus)
            }
            ReplayNote::ResourceProfiles { simulated, ignored } => {
                if let Some(id) = simulated {
                    write!(
                        f,
                        "every stage ran on executors of resource profile {id}: the replay's executors have its cores, memory and task cpus"
                    )?;
                }
                if !ignored.is_empty() {
                    write!(
                        f,
                        "{}resource profile(s) {} not simulated (the replay's executors are the application's default ones)",
                        if simulated.is_some() { "; " } else { "" },
                        list(ignored)
                    )?;
                }
                Ok(())
            }
            ReplayNote::FewerRegistered {
                requested,
                registered,
                simulated,
            } => write!(
                f,
                "only {registered} of the {requested} executors requested (spark.executor.instances) ever registered in the recording; the replay runs {} (--num-executors {requested} to give it all)",
                simulated.as_deref().unwrap_or("the default")
            ),
            ReplayNote::DockerExecutors {
                recorded_grace,
                replayed_grace_ms,
            } => docker_note(f, recorded_grace.as_deref(), *replayed_grace_ms),
            ReplayNote::EndedByFailedJob {
                job_id,
                max_attempts,
                stopped_first,
            } => {
                if *stopped_first {
                    write!(
                        f,
                        "the recording's application stopped while its last job ({job_id}) ran \
                         (its ApplicationEnd came before the job's end, which failed: killed or \
                         stopped); the replay kills it as far into the same work (yarn \
                         application -kill once as many tasks have succeeded, as long after the \
                         last of them), the tasks the stop cut short running until then"
                    )?;
                } else {
                    write!(
                        f,
                        "the recording's last job ({job_id}) failed and its driver ended with it"
                    )?;
                }
                write!(
                    f,
                    ": the log is that one attempt's (a YARN retry of the AM writes its own), so \
                     the replay runs with spark.yarn.maxAppAttempts={max_attempts}"
                )
            }
            ReplayNote::PlacedAsRecorded {
                hosts,
                executors,
                localization_ms,
                derived,
            } => write!(
                f,
                "the recording's executors started sooner on hosts the application had used than on hosts new to it (its cold starts): the replay puts its first {executors} executors on nodes standing for their {hosts} recorded hosts, and a node new to the application downloads its resources for {:.1} s first ({})",
                *localization_ms as f64 / 1000.0,
                if *derived {
                    "the recorded cold start beyond the simulated start-up; a cluster file's [costs] localization_ms overrides it"
                } else {
                    "the cluster's [costs] localization_ms"
                }
            ),
            ReplayNote::ExecutorLosses {
                replayed,
                idle,
                not_replayed,
                yarn,
            } => executor_losses_note(f, replayed, idle, *not_replayed, *yarn),
            ReplayNote::EarlyExecutors { early: e, replayed } => {
                write!(
                    f,
                    "{} executors registered at once before the first job ended, more than its jobs' tasks could use ({}) and than Spark's initial target from the log's properties ({}: the largest of spark.dynamicAllocation.minExecutors, initialExecutors and spark.executor.instances); ",
                    e.registered, e.usable, e.initial
                )?;
                if *replayed == e.registered {
                    write!(
                        f,
                        "the replay starts them as recorded (spark.dynamicAllocation.initialExecutors={}; --conf spark.dynamicAllocation.initialExecutors={} replays Spark's rule)",
                        e.registered, e.initial
                    )
                } else {
                    write!(
                        f,
                        "the replay starts {replayed} as its arguments say (--conf spark.dynamicAllocation.initialExecutors={} starts them as recorded)",
                        e.registered
                    )
                }
            }
        }
    }
}

fn list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a replay does with the executors' GPUs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum GpuReplay {
    /// The recording's YARN did not schedule them (no `yarn.io/gpu` type): left out.
    Unscheduled,
    /// Asked for as recorded, on the embedded cluster sized from the log: each node this many.
    SizedFromLog { per_node: u32 },
    /// Asked for as recorded, on the user's or the scenario's cluster as it is.
    AsTheClusterHas,
}

/// The custom-resources note: the GPUs a cluster sized from the log got (YARN scheduled them in
/// the recording), and what is left unsimulated.
fn custom_resources_note(
    f: &mut std::fmt::Formatter<'_>,
    resources: &BTreeMap<String, f64>,
    gpus: &GpuReplay,
) -> std::fmt::Result {
    let list = |skip_gpu: bool| {
        resources
            .iter()
            .filter(|(k, _)| !(skip_gpu && k.as_str() == super::gpus::GPU))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match gpus {
        GpuReplay::Unscheduled => {
            return write!(
                f,
                "custom executor resources not simulated (the recording's YARN had no \
                 yarn.io/gpu resource type, so its executors' scripts found their nodes' devices \
                 unscheduled): {}",
                list(false)
            );
        }
        GpuReplay::SizedFromLog { per_node } => write!(
            f,
            "GPUs scheduled by YARN as recorded (yarn.io/gpu): {per_node} on each node, the most \
             the log's executors held at once on one host (the log does not record a node's GPUs)"
        )?,
        GpuReplay::AsTheClusterHas => write!(
            f,
            "GPUs scheduled by YARN as recorded (yarn.io/gpu), on the given cluster's nodes' GPUs"
        )?,
    }
    let rest = list(true);
    if !rest.is_empty() {
        write!(f, "; not simulated: {rest}")?;
    }
    Ok(())
}

/// `spark.executorEnv.` of YARN's container runtime variable.
const EXECUTOR_RUNTIME: &str = "spark.executorEnv.YARN_CONTAINER_RUNTIME_TYPE";
/// Hadoop 3.1's `docker stop` grace, seconds.
const DOCKER_STOP_GRACE: &str = "yarn.nodemanager.runtime.linux.docker.stop.grace-period";

/// The Docker note (see [`ReplayNote::DockerExecutors`]).
fn docker_note(
    f: &mut std::fmt::Formatter<'_>,
    recorded_grace: Option<&str>,
    replayed_grace_ms: Option<u64>,
) -> std::fmt::Result {
    write!(
        f,
        "the recording's executors ran in Docker ({EXECUTOR_RUNTIME}=docker"
    )?;
    if let Some(g) = recorded_grace {
        write!(f, ", {DOCKER_STOP_GRACE} = {g}")?;
    }
    match replayed_grace_ms {
        Some(ms) => write!(
            f,
            "): replayed in Docker with the cluster's docker_stop_grace_ms = {ms}: a killed \
             executor's JVM lives that long and its node's other container events wait for the \
             stop, as on Hadoop 3.1"
        ),
        None => write!(
            f,
            "): their stops are not simulated: the replay's containers stop at once, as Hadoop \
             3.2 and later stop Docker ones; on Hadoop 3.1 a killed executor's JVM lives for the \
             grace and its node's other container events wait for the stop (a cluster file's \
             [costs] docker_stop_grace_ms with --conf {EXECUTOR_RUNTIME}=docker replays that)"
        ),
    }
}

/// The Docker note of a replay of `app` as `prepared`, when the recording's executors ran in
/// Docker.
fn docker_executors(app: &Application, prepared: &Prepared) -> Option<ReplayNote> {
    let docker = |v: Option<&str>| v.is_some_and(|v| v == "docker");
    let recorded = app.config.properties.get(EXECUTOR_RUNTIME);
    if !docker(recorded.map(String::as_str)) {
        return None;
    }
    let grace = prepared.cluster.costs.docker_stop_grace_ms;
    let replayed = docker(prepared.args.conf_value(EXECUTOR_RUNTIME)) && grace > 0;
    Some(ReplayNote::DockerExecutors {
        recorded_grace: app.config.hadoop_yarn.get(DOCKER_STOP_GRACE).cloned(),
        replayed_grace_ms: replayed.then_some(grace),
    })
}

/// The executor-loss note (see [`ReplayNote::ExecutorLosses`]).
fn executor_losses_note(
    f: &mut std::fmt::Formatter<'_>,
    replayed: &[super::executor_loss::RecordedLoss],
    idle: &[super::executor_loss::RecordedLoss],
    not_replayed: u32,
    yarn: bool,
) -> std::fmt::Result {
    use super::executor_loss::{LossCause, RecordedLoss};
    use sparkyard_messages::task::ContainerEnd;
    let end = |e: ContainerEnd| match e {
        ContainerEnd::ProcessExit(code) => format!("its JVM exiting with {code}"),
        ContainerEnd::NodeManagerKill(status) => {
            format!("its NodeManager killing it, exit status {status}")
        }
    };
    let how = |l: &RecordedLoss| match l.cause {
        LossCause::Recorded(e) => end(e),
        LossCause::Unknown => format!("{} (the reason records no exit)", end(l.cause.end())),
    };
    let removed = |l: &RecordedLoss| {
        format!(
            "executor {} (removed {:.3} s into the log)",
            l.executor_id,
            l.removed_at_ms as f64 / 1000.0
        )
    };
    let mut each: Vec<String> = replayed
        .iter()
        .filter_map(|l| {
            let t = l.dies_after?;
            Some(format!(
                "{} as task {}.{} of stage {} ends, {}",
                removed(l),
                t.index,
                t.attempt,
                t.stage_id,
                how(l)
            ))
        })
        .collect();
    each.extend(idle.iter().map(|l| {
        format!(
            "{}, which ran nothing then, once as many tasks have succeeded as had at its loss, {}",
            removed(l),
            how(l)
        )
    }));
    write!(
        f,
        "the recording lost {} executor(s) while the application went on: the replay loses the executor standing for each ({}), and the simulated Spark and YARN recover on their own (the driver removes the executor, its tasks and map outputs run again, the AM asks YARN for a container in its place at its next heartbeat",
        each.len(),
        each.join("; ")
    )?;
    if !yarn {
        write!(
            f,
            "; the recording's cluster manager replaced it without YARN's allocation loop"
        )?;
    }
    write!(f, ")")?;
    if not_replayed > 0 {
        write!(
            f,
            "; {not_replayed} other lost executor(s) not replayed (lost at the application's end, or while idle under dynamic allocation, where no simulated executor stands for a recorded one)"
        )?;
    }
    Ok(())
}

/// The executor-loss note of a replay of `app` as `prepared`, when it replays a recorded loss.
fn executor_losses(app: &Application, prepared: &Prepared) -> Option<ReplayNote> {
    let (replayed, other): (Vec<_>, Vec<_>) = app
        .executor_losses
        .iter()
        .cloned()
        .partition(|l| l.dies_after.is_some());
    let idle: Vec<_> = prepared
        .idle_losses
        .iter()
        .map(|i| i.loss.clone())
        .collect();
    if replayed.is_empty() && idle.is_empty() {
        return None;
    }
    Some(ReplayNote::ExecutorLosses {
        not_replayed: (other.len() - idle.len()) as u32,
        replayed,
        idle,
        yarn: app.config.is_yarn(),
    })
}

/// The placement note, when the replay takes the recording's placement.
fn placed_as_recorded(prepared: &Prepared) -> Option<ReplayNote> {
    let labels = prepared.placement.as_deref()?;
    let hosts = labels.iter().flatten().max().map_or(0, |&l| l + 1);
    Some(ReplayNote::PlacedAsRecorded {
        hosts,
        executors: labels.len() as u32,
        localization_ms: prepared.cluster.costs.localization_ms,
        derived: prepared.localization_derived,
    })
}

/// The notes of a replay of `app` as `prepared`.
fn notes(app: &Application, prepared: &Prepared) -> Vec<ReplayNote> {
    let c = &app.config;
    let mut out: Vec<ReplayNote> = app.notes.iter().cloned().map(ReplayNote::Read).collect();
    if let Some(cores) = super::simulate::local_cores(app) {
        out.push(ReplayNote::Local {
            master: c.master.clone(),
            cores,
        });
    } else if !c.is_yarn() {
        out.push(ReplayNote::OtherMaster {
            master: c.master.clone(),
            waits: c.backend_waits_for_executors(),
        });
    } else if c.deploy_mode.as_deref() == Some("client") {
        out.push(ReplayNote::ClientMode);
    }
    if let Some(queue) = c.properties.get(super::simulate::QUEUE_KEY)
        && prepared.args.queue.is_none()
    {
        out.push(ReplayNote::QueueNotInCluster {
            queue: queue.clone(),
        });
    }
    if c.scheduler_mode
        .as_deref()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("FAIR"))
    {
        let mut pools: Vec<String> = app.jobs.iter().filter_map(|j| j.pool.clone()).collect();
        pools.sort();
        pools.dedup();
        let allocation_file = c.properties.get(ALLOCATION_FILE).cloned();
        // The user's --conf (the last wins), which the submission reads as Spark would.
        let given_file = prepared
            .args
            .conf_value(ALLOCATION_FILE)
            .map(str::to_string);
        out.push(ReplayNote::FairScheduler {
            pools,
            allocation_file,
            given_file,
        });
    }
    let mut custom: BTreeMap<String, f64> = BTreeMap::new();
    for p in &app.profiles {
        for (k, v) in &p.custom {
            let e = custom.entry(k.clone()).or_default();
            *e = e.max(*v);
        }
    }
    for (k, v) in &c.properties {
        let amount = k
            .strip_prefix("spark.executor.resource.")
            .and_then(|r| r.strip_suffix(".amount"));
        if let (Some(name), Ok(n)) = (amount, v.trim().parse::<f64>()) {
            let e = custom.entry(name.to_string()).or_default();
            *e = e.max(n);
        }
    }
    if !custom.is_empty() {
        // What the run's cluster got (`simulate::size_from_log` gave the embedded one its GPUs).
        let sized = &prepared.cluster;
        let gpus = match &prepared.cluster_source {
            _ if !super::gpus::yarn_scheduled_gpus(app) => GpuReplay::Unscheduled,
            ClusterOrigin::Log { .. } if sized.yarn.gpu_resource_type => GpuReplay::SizedFromLog {
                per_node: sized.nodes.iter().map(|n| n.gpus).max().unwrap_or(0),
            },
            _ => GpuReplay::AsTheClusterHas,
        };
        out.push(ReplayNote::CustomResources {
            resources: custom,
            gpus,
        });
    }
    let simulated = super::simulate::single_stage_profile(app).map(|p| p.id);
    let ignored: Vec<u32> = app
        .profiles
        .iter()
        .map(|p| p.id)
        .filter(|&id| id != 0 && Some(id) != simulated)
        .collect();
    if simulated.is_some() || !ignored.is_empty() {
        out.push(ReplayNote::ResourceProfiles { simulated, ignored });
    }
    out.extend(placed_as_recorded(prepared));
    out.extend(docker_executors(app, prepared));
    out.extend(executor_losses(app, prepared));
    if let Some(job_id) = app.failed_last_job().map(|j| j.job_id) {
        let max = prepared.args.conf_value(super::simulate::MAX_APP_ATTEMPTS);
        let stopped_first = app.stopped_while_running();
        out.push(ReplayNote::EndedByFailedJob {
            job_id,
            max_attempts: max.unwrap_or("1").to_string(),
            stopped_first,
        });
    }
    if let Some(r) = super::simulate::fewer_registered(app) {
        out.push(ReplayNote::FewerRegistered {
            requested: r.requested,
            registered: r.registered,
            simulated: prepared.args.num_executors.clone(),
        });
    }
    if let Some(e) = super::simulate::early_executors(app) {
        out.push(ReplayNote::EarlyExecutors {
            early: e,
            replayed: super::cold_start::submitted_initial_target(&prepared.args),
        });
    }
    out
}

fn secs(ms: f64) -> String {
    format!("{:.3} s", ms / 1000.0)
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".into(), |v| v.to_string())
}

/// The report as the table `sparkyard replay` prints.
pub fn table(r: &ReplayReport) -> String {
    let mut o = String::new();
    let l = &r.log;
    let _ = writeln!(
        o,
        "replay of {} ({}, \"{}\", Spark {})",
        l.path, l.app_id, l.app_name, l.spark_version
    );
    let _ = writeln!(
        o,
        "  {} events, {} jobs, {} stages, {} tasks",
        l.events, l.jobs, l.stages, l.tasks
    );
    if let Some(e) = &r.error {
        let _ = writeln!(o, "error: the simulated application could not run: {e}");
    }
    for (name, n) in &l.unknown_events {
        let _ = writeln!(o, "  warning: skipped {n} unknown event(s) {name}");
    }
    for (name, n) in &l.older_events {
        let _ = writeln!(
            o,
            "  skipped {n} {name} event(s) (Spark 2.x/3.0's name, Excluded since 3.1: nothing to replay)"
        );
    }
    let _ = writeln!(o, "  cluster: {}", cluster_text(&r.cluster));
    for n in &r.notes {
        let _ = writeln!(o, "  note: {n}");
    }
    let (a, b) = (&r.original, &r.simulated);
    let _ = writeln!(o, "\n{:<28}{:>22}{:>22}", "", "recorded", "simulated");
    let row = |o: &mut String, k: &str, x: String, y: String| {
        let _ = writeln!(o, "{k:<28}{x:>22}{y:>22}");
    };
    row(
        &mut o,
        "master",
        a.master.clone(),
        "yarn (simulated)".into(),
    );
    row(
        &mut o,
        "executors",
        opt(&a.executor_instances),
        opt(&b.executor_instances),
    );
    row(
        &mut o,
        "executor cores",
        opt(&a.executor_cores),
        opt(&b.executor_cores),
    );
    row(
        &mut o,
        "executor memory",
        opt(&a.executor_memory),
        opt(&b.executor_memory),
    );
    row(
        &mut o,
        "dynamic allocation",
        a.dynamic_allocation.to_string(),
        b.dynamic_allocation.to_string(),
    );
    // A simulation that could not run has no time, error or use of its own (the 0 s and
    // -100 % it would show are no measurement): "-", the error above says why.
    let if_ran = |figure: String| {
        if r.error.is_some() {
            "-".into()
        } else {
            figure
        }
    };
    row(
        &mut o,
        "application time",
        secs(r.time.recorded),
        if_ran(secs(r.time.simulated)),
    );
    let _ = writeln!(
        o,
        "{:<28}{:>44}",
        "  error",
        if_ran(format!("{:+.1} %", r.time.error_pct))
    );
    if let Some(a) = &r.accuracy {
        let band = a.band.map_or_else(
            || "- (the run did not go as far as the recording)".into(),
            |b| format!("{}-{}", secs(b.p10_ms as f64), secs(b.p90_ms as f64)),
        );
        let _ = writeln!(o, "{:<28}{:>44}", "  band p10-p90", band);
        let _ = writeln!(o, "  {}", a.covers);
    }
    row(
        &mut o,
        "utilization",
        format!("{:.1} %", 100.0 * r.utilization.recorded),
        if_ran(format!("{:.1} %", 100.0 * r.utilization.simulated)),
    );
    row(
        &mut o,
        "wasted core-hours",
        format!("{:.4}", r.wasted_core_hours.recorded),
        if_ran(format!("{:.4}", r.wasted_core_hours.simulated)),
    );
    let _ = writeln!(
        o,
        "critical path / ideal time  {:>22}  (infinite executors, no start-up)",
        secs(r.ideal_ms as f64)
    );
    let _ = writeln!(
        o,
        "Sparklens' prediction       {:>22}  (its simple scheduler, same executors)",
        secs(r.sparklens_ms as f64)
    );
    let _ = writeln!(
        o,
        "\n{:>6}{:>8}{:>9}{:>14}{:>14}{:>14}{:>14}",
        "job", "stages", "tasks", "driver before", "recorded", "simulated", "critical"
    );
    for j in &r.jobs {
        let sim = j
            .simulated_ms
            .map_or_else(|| "-".into(), |m| secs(m as f64));
        let _ = writeln!(
            o,
            "{:>6}{:>8}{:>9}{:>14}{:>14}{:>14}{:>14}",
            j.job_id,
            j.stages,
            j.tasks,
            secs(j.driver_ms_before as f64),
            secs(j.recorded_ms as f64),
            sim,
            secs(j.critical_path_ms as f64)
        );
    }
    failed_jobs(&mut o, &r.jobs);
    let t = &r.task_time;
    let _ = writeln!(
        o,
        "\ntask time {}: run {}, deserialize {}, result serialization {}, GC {}, getting result {}, scheduler delay {}",
        secs(t.duration as f64),
        secs(t.run as f64),
        secs(t.deserialize as f64),
        secs(t.result_serialization as f64),
        secs(t.gc as f64),
        secs(t.getting_result as f64),
        secs(t.scheduler_delay as f64)
    );
    let d = &r.data;
    let _ = writeln!(
        o,
        "data: input {} B, shuffle read {} B, shuffle write {} B",
        d.input_bytes, d.shuffle_read_bytes, d.shuffle_write_bytes
    );
    let e = &r.executors;
    let curve = |v: &[(f64, u32)]| {
        v.iter()
            .map(|(t, n)| format!("{t:.1}s:{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(o, "\nexecutors requested: {}", opt(&e.requested));
    let _ = writeln!(
        o,
        "executors requested (simulated): {}",
        curve(&e.simulated_requested)
    );
    let _ = writeln!(
        o,
        "executors running (recorded):  {}",
        curve(&e.recorded_running)
    );
    let _ = writeln!(
        o,
        "executors launched (simulated): {}",
        curve(&e.simulated_launched)
    );
    let _ = writeln!(
        o,
        "executors running (simulated): {}",
        curve(&e.simulated_running)
    );
    let f = &r.failures;
    let _ = writeln!(
        o,
        "\nfailures (recorded): {} task exceptions, {} executor-lost tasks, {} fetch failures, {} killed, {} speculative copies ({} won), {} stage retries, {} executors removed ({} lost, {} released by the application)",
        f.recorded_task_exceptions,
        f.recorded_executor_lost,
        f.recorded_fetch_failed,
        f.recorded_killed,
        f.recorded_speculative,
        f.recorded_speculative_won,
        f.recorded_stage_retries,
        f.recorded_executors_removed,
        f.recorded_executors_lost,
        f.recorded_executors_released
    );
    let _ = writeln!(
        o,
        "failures (simulated): {} failed task attempts, {} executors lost, {} AM attempt(s); ended {}",
        f.simulated_task_failures,
        f.simulated_executors_lost,
        f.simulated_am_attempts,
        f.simulated_final_state
    );
    for v in &f.simulated_violations {
        let _ = writeln!(o, "  invariant broken: {v}");
    }
    match &r.faults_fired {
        Some(fired) if fired.is_empty() => {
            let _ = writeln!(o, "faults fired: none");
        }
        Some(fired) => {
            for f in fired {
                let _ = writeln!(
                    o,
                    "fault at {} (since the cluster started): {} -> {}",
                    secs(f.at_ms as f64),
                    f.label,
                    super::whatif::fired_text(f)
                );
            }
        }
        None => {}
    }
    recoveries_table(&mut o, r);
    let _ = writeln!(o, "seed: {}", r.seed);
    for l in &r.event_logs {
        let line = crate::outputs::eventlog::written_line(&l.path, l.refused.as_deref());
        let _ = writeln!(o, "{line}");
    }
    o
}

fn cluster_text(c: &ClusterOrigin) -> String {
    match c {
        ClusterOrigin::File(path) => format!("{path} (--cluster)"),
        ClusterOrigin::Scenario => "the scenario's".into(),
        ClusterOrigin::Log { taken } if taken.is_empty() => {
            "config/cluster.toml (embedded; the log records no YARN limits)".into()
        }
        ClusterOrigin::Log { taken } => format!(
            "config/cluster.toml (embedded) sized by the log's Hadoop properties: {}",
            taken
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ClusterOrigin::Local { vcores } => format!(
            "config/cluster.toml (embedded), its maximum allocation and nodes at least {vcores} vcores for the local application's executor"
        ),
    }
}

/// Per job, what Spark ran again to recover (recorded, then simulated): only the jobs where
/// either did, and a line saying so when none did.
fn recoveries_table(o: &mut String, r: &ReplayReport) {
    let f = &r.failures;
    if f.recorded_recoveries.is_empty() && f.simulated_recoveries.is_empty() {
        let _ = writeln!(o, "recoveries: none recorded, none simulated");
        return;
    }
    let _ = writeln!(
        o,
        "\nrecoveries{:>14}{:>14}{:>14}{:>14}{:>14}",
        "stages", "their tasks", "map outputs", "tasks lost", "executors"
    );
    let _ = writeln!(
        o,
        "{:<10}{:>14}{:>14}{:>14}{:>14}{:>14}",
        "", "resubmitted", "", "resubmitted", "with executor", "lost"
    );
    let line = |o: &mut String, label: &str, x: &Recoveries| {
        let _ = writeln!(
            o,
            "{label:<10}{:>14}{:>14}{:>14}{:>14}{:>14}",
            x.stage_resubmissions,
            x.resubmitted_tasks,
            x.map_outputs_resubmitted,
            x.tasks_lost_with_executors,
            x.executors_lost
        );
    };
    for j in &r.jobs {
        let sim = j.simulated_recoveries.unwrap_or_default();
        if j.recorded_recoveries.is_empty() && sim.is_empty() {
            continue;
        }
        let _ = writeln!(o, "  job {}", j.job_id);
        line(o, "  recorded", &j.recorded_recoveries);
        line(o, "  simulated", &sim);
    }
    if !f.simulated_recoveries_between_jobs.is_empty() {
        let _ = writeln!(o, "  between jobs");
        line(o, "  simulated", &f.simulated_recoveries_between_jobs);
    }
}

/// The jobs that failed (JobFailed) in the log and in the simulation, when any did.
fn failed_jobs(o: &mut String, jobs: &[JobRow]) {
    let ids = |f: &dyn Fn(&JobRow) -> bool| {
        let v: Vec<String> = jobs
            .iter()
            .filter(|j| f(j))
            .map(|j| j.job_id.to_string())
            .collect();
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let recorded = |j: &JobRow| j.recorded_result == JobEnded::Failed;
    let simulated = |j: &JobRow| j.simulated_result == Some(JobEnded::Failed);
    if jobs.iter().any(|j| recorded(j) || simulated(j)) {
        let _ = writeln!(
            o,
            "failed jobs: recorded {}; simulated {}",
            ids(&recorded),
            ids(&simulated)
        );
    }
}

/// The report as JSON (`--json`): the same record, field order fixed by the types.
pub fn json(r: &ReplayReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
