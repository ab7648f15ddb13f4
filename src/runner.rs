//! Runs one simulation through the actors crate's front door (`sparkyard_actors::simulation`):
//! the cluster and each application's spark-submit on virtual time until every Client is done
//! (or a virtual deadline passes, which is a simulator bug), then what happened as this crate's
//! records.
//!
//! A panic inside the simulation is a simulator bug too: the door catches it, and the run ends
//! with a `simulation-does-not-panic` violation and a `sparkyard.SimulationPanic` exception,
//! which every command reports with a non-zero exit.

pub use crate::record::{ApplicationResult, ClusterRunResult, ProgressHook, RunResult};

use crate::error::UserError;
use crate::record::TaskCostModel;
use sparkyard_actors::simulation::config::SimConfig;
use sparkyard_actors::simulation::context::{ClientOutcome, ObserverHook, SimContext};
use sparkyard_actors::simulation::faults::FaultController;
use sparkyard_actors::simulation::invariants::{Violation, name as invariant};
use sparkyard_actors::simulation::{
    Application, CaughtPanic, Progress, Simulation, SimulationOptions, TraceMode,
};
use sparkyard_messages::records::RpcFailure;

/// Options of a run that are not Spark's or YARN's.
#[derive(Clone)]
pub struct RunOptions {
    pub seed: u64,
    pub capture_logs: bool,
    pub trace: bool,
    /// Keep the trace's events (with `trace`); without, the run makes only the fingerprint
    /// (a sweep's seeds, shrink's probes: nothing of theirs reads the events).
    pub keep_trace: bool,
    /// Virtual time after which a run that has not ended is a hang, ms.
    pub deadline_ms: u64,
    /// Record the SparkListener events (the event log needs them).
    pub record_events: bool,
    /// Called every `progress_interval_ms` of virtual time with the run's state (progress bars).
    pub progress: Option<ProgressHook>,
    pub progress_interval_ms: u64,
    /// Sees every event the roles report to the run's record, as it is reported.
    pub observer: Option<ObserverHook>,
    /// Test-only (no flag or scenario key sets it): a task of the simulation panics at this
    /// virtual time, so tests can show a panic fails the run.
    #[doc(hidden)]
    pub panic_at_ms: Option<u64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: crate::conf::submit::DEFAULT_SEED,
            capture_logs: true,
            trace: true,
            keep_trace: true,
            // A day of virtual time: a run still going then is a hang (as real Spark would be).
            deadline_ms: 24 * 3_600_000,
            record_events: false,
            progress: None,
            progress_interval_ms: 1000,
            observer: None,
            panic_at_ms: None,
        }
    }
}

/// One application of a run: its settings, when its spark-submit starts, and who watches it.
pub struct ApplicationPlan {
    pub config: SimConfig,
    /// When its spark-submit starts, virtual ms after the cluster started.
    pub submit_at_ms: u64,
    /// Record its SparkListener events (its event log needs them).
    pub record_events: bool,
    /// Sees every event its roles (and the RM, about it) report, as it is reported.
    pub observer: Option<ObserverHook>,
}

/// Runs the simulation with a fault plan to its end on the virtual clock (through
/// [`crate::pipeline`], which builds `config` from what the user gave).
pub fn run(
    config: SimConfig,
    opts: &RunOptions,
    faults: FaultController,
) -> Result<RunResult, UserError> {
    let task_costs = TaskCostModel::from(&config.costs);
    let only = ApplicationPlan {
        config: config.clone(),
        submit_at_ms: 0,
        record_events: opts.record_events,
        observer: opts.observer.clone(),
    };
    let mut ran = run_cluster(config, vec![only], opts, faults)?;
    let app = ran.applications.pop().expect("the run's one application");
    Ok(RunResult {
        outcome: app.outcome,
        counters: app.counters,
        logs: ran.logs,
        trace: ran.trace,
        fingerprint: ran.fingerprint,
        processes: ran.processes,
        labels: ran.labels,
        end_ms: app.end_ms,
        epoch_ms: ran.epoch_ms,
        events: app.events,
        faults_fired: ran.faults_fired,
        faults_unfired: ran.faults_unfired,
        violations: ran.violations,
        task_costs,
    })
}

/// Runs several applications on one cluster (`cluster`'s nodes, YARN and costs; each
/// application's own Spark settings, user and program), each spark-submit starting at its own
/// virtual time, until every one has ended. A fault acts on the application it aims at
/// (`PlannedFault::app`), a node fault on every application with containers on the node.
pub fn run_cluster(
    cluster: SimConfig,
    plans: Vec<ApplicationPlan>,
    opts: &RunOptions,
    faults: FaultController,
) -> Result<ClusterRunResult, UserError> {
    check_faults_aim(&faults, plans.len())?;
    let mut sim = Simulation::new(cluster, faults, simulation_options(opts));
    for p in plans {
        sim.add_application(Application {
            config: p.config,
            submit_at_ms: p.submit_at_ms,
            record_events: p.record_events,
            observer: p.observer,
        });
    }
    let ran = sim.run().map_err(|e| UserError::file(e.what, e.detail))?;
    let mut violations = ran.violations;
    let ending = Ending {
        panics: &ran.panics,
        hung: ran.hung,
        deadline: opts.deadline_ms,
        seed: opts.seed,
    };
    let applications: Vec<ApplicationResult> = ran
        .applications
        .iter()
        .map(|app| ApplicationResult {
            client_process: app.client_process,
            ..ending.result(&app.context, &mut violations)
        })
        .collect();
    let end_ms = applications.iter().map(|a| a.end_ms).max().unwrap_or(0);
    Ok(ClusterRunResult {
        applications,
        logs: ran.logs,
        trace: ran.trace,
        fingerprint: ran.fingerprint,
        processes: ran.processes,
        labels: ran.labels,
        end_ms,
        epoch_ms: ran.epoch_ms,
        faults_fired: ran.faults_fired,
        faults_unfired: ran.faults_unfired,
        violations,
    })
}

/// The door's options for a run's.
fn simulation_options(opts: &RunOptions) -> SimulationOptions {
    let trace = match (opts.trace, opts.keep_trace) {
        (false, _) => TraceMode::Off,
        (true, false) => TraceMode::Fingerprint,
        (true, true) => TraceMode::Kept,
    };
    SimulationOptions {
        seed: opts.seed,
        capture_logs: opts.capture_logs,
        trace,
        deadline_ms: opts.deadline_ms,
        progress: opts.progress.clone().map(|hook| Progress {
            hook,
            every_ms: opts.progress_interval_ms,
        }),
        panic_at_ms: opts.panic_at_ms,
    }
}

/// A fault aimed at an application the run does not have is the user's error (scenario key
/// `app`, counting from 1 in submission order).
fn check_faults_aim(faults: &FaultController, applications: usize) -> Result<(), UserError> {
    match faults.last_app_aimed_at() {
        Some(app) if app >= applications => Err(UserError::file(
            "scenario",
            format!(
                "a [[faults]] entry aims at application {} (app = {}) but the run has {applications} application{}",
                app + 1,
                app + 1,
                if applications == 1 { "" } else { "s" }
            ),
        )),
        _ => Ok(()),
    }
}

/// How the run ended: the panics it caught, whether the virtual deadline cut it short.
struct Ending<'a> {
    panics: &'a [CaughtPanic],
    hung: bool,
    deadline: u64,
    seed: u64,
}

impl Ending<'_> {
    /// An application's result: its client's outcome, or the panic's or the hang's (each a
    /// broken invariant).
    fn result(&self, sim: &SimContext, violations: &mut Vec<Violation>) -> ApplicationResult {
        let deadline = self.deadline;
        let mut end_ms = sim
            .outcome
            .borrow()
            .as_ref()
            .map_or(deadline, |o| o.finished_at_ms);
        let outcome = match sim.outcome.borrow_mut().take() {
            _ if !self.panics.is_empty() => {
                end_ms = self.panics[0].at_ms;
                let texts: Vec<&str> = self.panics.iter().map(|p| p.text.as_str()).collect();
                let detail = format!(
                    "the simulator panicked (a sparkyard bug; seed {}): {}",
                    self.seed,
                    texts.join("; then ")
                );
                violations.push(Violation {
                    invariant: invariant::NO_PANIC,
                    detail: detail.clone(),
                    time_ms: end_ms,
                    application: Some(sim.index),
                });
                ClientOutcome {
                    application_id: None,
                    state: None,
                    final_status: None,
                    original_tracking_url: None,
                    diagnostics: detail.clone(),
                    exception: Some(RpcFailure::new("sparkyard.SimulationPanic", detail)),
                    finished_at_ms: end_ms,
                    temp_dir: String::new(),
                }
            }
            Some(o) if !self.hung => o,
            _ => {
                let detail = format!(
                    "the application did not end within {deadline} virtual ms (seed {}); look for 'Initial job has not accepted any resources' in the driver's log if the cluster is too small",
                    self.seed
                );
                violations.push(Violation {
                    invariant: invariant::TERMINATES,
                    detail: detail.clone(),
                    time_ms: deadline,
                    application: Some(sim.index),
                });
                ClientOutcome {
                    // What was running is in the counters; the summary says it.
                    application_id: sim.counters.borrow().application_id,
                    state: None,
                    final_status: None,
                    original_tracking_url: None,
                    diagnostics: detail.clone(),
                    exception: Some(RpcFailure::new("sparkyard.SimulationHang", detail)),
                    finished_at_ms: deadline,
                    temp_dir: String::new(),
                }
            }
        };
        ApplicationResult {
            outcome,
            client_process: None,
            counters: sim.counters.borrow().clone(),
            end_ms,
            events: sim.listener.take(),
        }
    }
}
