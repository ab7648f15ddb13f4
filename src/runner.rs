//! Runs one simulation: builds the settings, boots the cluster and the spark-submit Client on a
//! paused current-thread actix System (virtual time), runs until the Client is done (or a
//! virtual deadline passes, which is a simulator bug), and collects what happened.
//!
//! A panic inside the simulation (an actor's handler, a timer) is a simulator bug too. Tokio
//! would catch it, drop the task and go on, so the run would end as if nothing happened: the
//! run's panic hook records it instead (without Rust's panic text or backtrace), stops the
//! System, and the run ends with a `simulation-does-not-panic` violation and a
//! `sparkyard.SimulationPanic` exception, which every command reports with a non-zero exit.

pub use crate::record::{ApplicationResult, ClusterRunResult, ProgressHook, RunResult};

use crate::error::UserError;
use crate::record::TaskCostModel;
use sparkyard_actors::boot;
use sparkyard_actors::faults::FaultController;
use sparkyard_actors::kernel::clock;
use sparkyard_actors::kernel::logs::LogStore;
use sparkyard_actors::kernel::trace::Trace;
use sparkyard_actors::rpc::Dispatcher;
use sparkyard_actors::rpc::network::FaultInjector;
use sparkyard_actors::world::config::SimConfig;
use sparkyard_actors::world::context::{ClientOutcome, ClusterContext, ObserverHook, SimContext};
use sparkyard_actors::world::injector;
use sparkyard_actors::world::invariants::{Violation, name as invariant};
use sparkyard_messages::records::RpcFailure;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    /// The panics of the run going on this thread (`None`: no run captures them here).
    static PANICS: RefCell<Option<Vec<(u64, String)>>> = const { RefCell::new(None) };
}

/// Installs (once per program) the panic hook that hands a panic on a thread running a
/// simulation to that run, and leaves every other panic to the previous hook.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let text = match info.payload().downcast_ref::<&str>() {
                Some(s) => (*s).to_string(),
                None => info
                    .payload()
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| "(no message)".into()),
            };
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let now = clock::now_ms();
            let line = format!("'{text}'{at}, {now} ms into the run");
            let captured = PANICS
                .try_with(|p| match p.try_borrow_mut().as_deref_mut() {
                    Ok(Some(found)) => {
                        found.push((now, line));
                        true
                    }
                    _ => false,
                })
                .unwrap_or(false);
            if !captured {
                return previous(info);
            }
            // The rest of the simulation may depend on what the panicking task left undone.
            if let Some(system) = actix::System::try_current() {
                system.stop();
            }
        }));
    });
}

/// Captures the panics on this thread while it lives (the run's System runs on this thread).
struct PanicCapture;

impl PanicCapture {
    fn start() -> Self {
        install_panic_hook();
        PANICS.with(|p| *p.borrow_mut() = Some(Vec::new()));
        PanicCapture
    }

    fn panics(&self) -> Vec<(u64, String)> {
        PANICS.with(|p| p.borrow().clone().unwrap_or_default())
    }
}

impl Drop for PanicCapture {
    fn drop(&mut self) {
        PANICS.with(|p| *p.borrow_mut() = None);
    }
}

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
    let epoch = cluster.rm_start_time_ms;
    let latency = cluster.costs.network_latency_ms;
    let logs = Rc::new(RefCell::new(LogStore::new(opts.capture_logs)));
    let trace = if opts.trace && !opts.keep_trace {
        Trace::fingerprint_only()
    } else {
        Trace::new(opts.trace)
    };
    let dispatcher = Dispatcher::new(
        trace,
        FaultInjector::new(opts.seed, Vec::new()),
        logs.clone(),
        latency,
    );
    let cluster = Rc::new(ClusterContext::with_faults(
        cluster,
        dispatcher.clone(),
        faults,
    ));
    let starts: Vec<(u64, Rc<SimContext>)> = plans
        .into_iter()
        .map(|p| {
            let app = cluster.add_application(p.config, p.record_events, p.observer);
            (p.submit_at_ms, app)
        })
        .collect();
    let apps: Vec<Rc<SimContext>> = starts.iter().map(|(_, a)| a.clone()).collect();
    // Each application's spark-submit process, for the outputs drawn from a kept trace (several
    // applications' Clients share the name `spark-submit`).
    let clients = ClientProcesses {
        dispatcher: (opts.trace && opts.keep_trace).then(|| dispatcher.clone()),
        found: Rc::new(RefCell::new(vec![None; apps.len()])),
    };
    let starts: Vec<(usize, u64, Rc<SimContext>)> = starts
        .into_iter()
        .enumerate()
        .map(|(i, (at, app))| (i, at, app))
        .collect();
    let clients2 = clients.clone();
    let runtime =
        clock::paused_runtime().map_err(|e| UserError::file("tokio runtime", e.to_string()))?;
    let system = actix::System::with_tokio_rt(move || runtime);
    let deadline = opts.deadline_ms;
    let (progress, progress_ms) = (opts.progress.clone(), opts.progress_interval_ms);
    let hung = Rc::new(RefCell::new(false));
    let (cluster2, hung2) = (cluster.clone(), hung.clone());
    let panic_at = opts.panic_at_ms;
    let capture = PanicCapture::start();
    // Tokio catches a panic in a task (the hook has recorded it); one while booting, outside
    // any task, unwinds to here and ends the run the same way.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        system.block_on(async move {
            clock::start(epoch);
            let rm = boot::start_cluster(&cluster2);
            let (now, later): (Vec<_>, Vec<_>) =
                starts.into_iter().partition(|(_, at, _)| *at == 0);
            for (i, _, app) in &now {
                clients2.start(*i, app, rm.clone());
            }
            injector::arm_timed(&cluster2);
            if let (Some(first), Some(tick)) = (cluster2.application_at(0), progress) {
                actix::spawn(async move {
                    let mut every = tokio::time::interval(clock::ms(progress_ms.max(1)));
                    loop {
                        every.tick().await;
                        tick(&first);
                    }
                });
            }
            for (i, at, app) in later {
                let (rm, clients) = (rm.clone(), clients2.clone());
                actix::spawn(async move {
                    tokio::time::sleep(clock::ms(at)).await;
                    clients.start(i, &app, rm);
                });
            }
            if let Some(ms) = panic_at {
                actix::spawn(async move {
                    tokio::time::sleep(clock::ms(ms)).await;
                    panic!("a test asked for a panic at {ms} ms");
                });
            }
            actix::spawn(async move {
                tokio::time::sleep(clock::ms(deadline)).await;
                *hung2.borrow_mut() = true;
                actix::System::current().stop();
            });
        });
        system.run()
    }));
    let panics = capture.panics();
    drop(capture);
    match ran {
        Ok(r) => r.map_err(|e| UserError::file("actix system", e.to_string()))?,
        Err(payload) if panics.is_empty() => std::panic::resume_unwind(payload),
        Err(_) => {}
    }
    let mut violations = cluster.violations.take();
    let ending = Ending {
        panics: &panics,
        hung: *hung.borrow(),
        deadline,
        seed: opts.seed,
    };
    let client_of = clients.found.borrow().clone();
    let applications: Vec<ApplicationResult> = apps
        .iter()
        .zip(client_of)
        .map(|(app, client)| ApplicationResult {
            client_process: client,
            ..ending.result(app, &mut violations)
        })
        .collect();
    let end_ms = applications.iter().map(|a| a.end_ms).max().unwrap_or(0);
    let trace = dispatcher.take_trace();
    let fingerprint = trace.fingerprint();
    let trace = trace.into_events();
    let labels = dispatcher.mailbox_labels();
    let processes = dispatcher.process_names();
    let faults_fired = cluster.faults.fired.borrow().clone();
    let faults_unfired = cluster.faults.unfired();
    drop(apps);
    drop(cluster);
    let logs = std::mem::take(&mut *logs.borrow_mut());
    Ok(ClusterRunResult {
        applications,
        logs,
        trace,
        fingerprint,
        processes,
        labels,
        end_ms,
        epoch_ms: epoch,
        faults_fired,
        faults_unfired,
        violations,
    })
}

/// Starts each application's spark-submit, noting its process when a kept trace will be drawn.
#[derive(Clone)]
struct ClientProcesses {
    dispatcher: Option<Dispatcher>,
    found: Rc<RefCell<Vec<Option<u32>>>>,
}

impl ClientProcesses {
    fn start(
        &self,
        app_index: usize,
        app: &Rc<SimContext>,
        rm: sparkyard_actors::rpc::EndpointRef<
            sparkyard_messages::resource_manager::ResourceManagerMsg,
        >,
    ) {
        // The Dispatcher numbers processes in creation order: the Client's is the next one.
        let next = self
            .dispatcher
            .as_ref()
            .map(|d| d.process_names().len() as u32);
        boot::start_client(app, rm);
        self.found.borrow_mut()[app_index] = next;
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
    panics: &'a [(u64, String)],
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
                end_ms = self.panics[0].0;
                let texts: Vec<&str> = self.panics.iter().map(|(_, t)| t.as_str()).collect();
                let detail = format!(
                    "the simulator panicked (a sparkyard bug; seed {}): {}",
                    self.seed,
                    texts.join("; then ")
                );
                violations.push(Violation {
                    invariant: invariant::NO_PANIC,
                    detail: detail.clone(),
                    time_ms: end_ms,
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
