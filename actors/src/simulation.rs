//! The actors crate's front door: a [`Simulation`] is built from a plan (the cluster's settings,
//! its applications with their submit times, the fault plan, how the run is observed), run on a
//! paused current-thread actix System (virtual time) until every application's spark-submit is
//! done or a virtual deadline passes, and observed through what it returns ([`Finished`]). The
//! root crate names no role, no RpcEnv and no Dispatcher: it comes through here. Mirrors what
//! `spark-submit` and YARN's daemons are started by on a real cluster (no one Spark class).
//!
//! A panic inside the simulation (an actor's handler, a timer) is a simulator bug. Tokio would
//! catch it, drop the task and go on, so the run would end as if nothing happened: the run's
//! panic hook records it instead (without Rust's panic text or backtrace) and stops the System;
//! [`Finished::panics`] lists them, and the caller reports them.

use crate::boot;
use crate::faults::FaultController;
use crate::kernel::logs::LogStore;
use crate::kernel::trace::{Trace, TraceEvent};
use crate::rpc::network::FaultInjector;
use crate::rpc::{Dispatcher, EndpointRef};
use crate::world::addresses::HostAddresses;
use crate::world::config::SimConfig;
use crate::world::context::{ClusterContext, ObserverHook, SimContext};
use crate::world::injector;
use crate::world::invariants::Violation;
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use std::cell::RefCell;
use std::rc::Rc;

// What the door takes and gives back, under its one name (issue 29: `src/` names
// `sparkyard_actors::simulation` and the messages crate only). The plan: the cluster's and each
// application's settings (`config`, `settings_builder`, `addresses`), the fault plan (`faults`).
// What a run observed and checked: its record and outcome (`context`, `observer`), the listener
// bus's events (`listener`), the invariants (`invariants`), the trace and the processes' logs
// (`trace`, `logs`), the virtual clock the driver-side lines print (`clock`), Spark's
// `Redactor` (`spark_conf`). `facts`: the roles' constants and rules the root crate reads.
/// The roles' constants and rules the root crate reads (a module of re-exports).
pub mod facts {
    pub use crate::facts::*;
}
/// The fault plan (what a scenario's faults and `[chaos]` ask) and its controller.
pub mod faults {
    pub use crate::faults::*;
}
pub use crate::kernel::{clock, logs, trace};
pub use crate::world::{
    addresses, config, context, invariants, listener, observer, settings_builder, spark_conf,
};

thread_local! {
    /// The panics of the run going on this thread (`None`: no run captures them here).
    static PANICS: RefCell<Option<Vec<CaughtPanic>>> = const { RefCell::new(None) };
}

/// A panic the simulation caught: when, and what it said (with where), as one line.
#[derive(Clone, Debug)]
pub struct CaughtPanic {
    pub at_ms: u64,
    pub text: String,
}

/// How much of the trace a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceMode {
    /// No trace (and no fingerprint).
    Off,
    /// Only the fingerprint (a sweep's seeds, shrink's probes: nothing reads the events).
    Fingerprint,
    /// The events and the fingerprint.
    Kept,
}

/// Called every `every_ms` of virtual time with the first application's context (progress bars).
#[derive(Clone)]
pub struct Progress {
    pub hook: Rc<dyn Fn(&SimContext)>,
    pub every_ms: u64,
}

/// How a simulation runs and is observed (nothing of Spark's or YARN's).
#[derive(Clone)]
pub struct SimulationOptions {
    /// The network fault injector's seed (the run's seed).
    pub seed: u64,
    /// Keep the processes' logs.
    pub capture_logs: bool,
    pub trace: TraceMode,
    /// Virtual time after which a run that has not ended is a hang, ms.
    pub deadline_ms: u64,
    pub progress: Option<Progress>,
    /// Test-only: a task of the simulation panics at this virtual time.
    pub panic_at_ms: Option<u64>,
}

/// One application of a simulation: its settings, when its spark-submit starts, and who
/// watches it.
pub struct Application {
    pub config: SimConfig,
    /// When its spark-submit starts, virtual ms after the cluster started.
    pub submit_at_ms: u64,
    /// Record its SparkListener events (its event log needs them).
    pub record_events: bool,
    /// Sees every event its roles (and the RM, about it) report, as it is reported.
    pub observer: Option<ObserverHook>,
}

/// A simulation that ran: each application's context (its outcome, counters and listener
/// events), and what the cluster's run left behind.
pub struct Finished {
    pub applications: Vec<FinishedApplication>,
    /// The panics the run caught, in order (empty: none).
    pub panics: Vec<CaughtPanic>,
    /// The deadline passed before every application ended.
    pub hung: bool,
    /// Invariants broken while the run went on (the caller adds the end-of-run ones).
    pub violations: Vec<Violation>,
    pub logs: LogStore,
    pub trace: Vec<TraceEvent>,
    pub fingerprint: u64,
    /// The processes by number, as the trace names them.
    pub processes: Vec<String>,
    /// The mailbox labels of the trace's messages, by number.
    pub labels: Vec<String>,
    /// The cluster's start, epoch ms.
    pub epoch_ms: u64,
    pub faults_fired: Vec<crate::faults::Firing>,
    pub faults_unfired: Vec<crate::faults::Unfired>,
}

/// One application of a finished simulation.
pub struct FinishedApplication {
    pub context: Rc<SimContext>,
    /// Its spark-submit's process in the trace (when the trace was kept).
    pub client_process: Option<u32>,
}

/// The simulation could not start or run (the runtime's error, not Spark's or YARN's).
#[derive(Debug)]
pub struct StartError {
    /// What failed (`tokio runtime`, `actix system`).
    pub what: &'static str,
    pub detail: String,
}

/// A simulation of one cluster and its applications.
pub struct Simulation {
    cluster: Rc<ClusterContext>,
    dispatcher: Dispatcher,
    logs: Rc<RefCell<LogStore>>,
    starts: Vec<(u64, Rc<SimContext>)>,
    options: SimulationOptions,
}

impl Simulation {
    /// A cluster (`cluster`'s nodes, YARN and costs) with its fault plan; no application yet.
    pub fn new(cluster: SimConfig, faults: FaultController, options: SimulationOptions) -> Self {
        let latency = cluster.costs.network_latency_ms;
        let logs = Rc::new(RefCell::new(LogStore::new(options.capture_logs)));
        let trace = match options.trace {
            TraceMode::Fingerprint => Trace::fingerprint_only(),
            mode => Trace::new(mode == TraceMode::Kept),
        };
        let injector = FaultInjector::new(options.seed, Vec::new());
        let hosts = HostAddresses::new(cluster.nodes.iter().map(|n| n.host.as_str()));
        let dispatcher = Dispatcher::new(trace, injector, logs.clone(), latency, Rc::new(hosts));
        let cluster = Rc::new(ClusterContext::with_faults(
            cluster,
            dispatcher.clone(),
            faults,
        ));
        Simulation {
            cluster,
            dispatcher,
            logs,
            starts: Vec::new(),
            options,
        }
    }

    /// Adds an application (its own Spark settings, user and program; submitted at its time).
    pub fn add_application(&mut self, app: Application) {
        let context = self
            .cluster
            .add_application(app.config, app.record_events, app.observer);
        self.starts.push((app.submit_at_ms, context));
    }

    /// Runs until every application's spark-submit is done or the deadline passes.
    pub fn run(self) -> Result<Finished, StartError> {
        let Simulation {
            cluster,
            dispatcher,
            logs,
            starts,
            options,
        } = self;
        let apps: Vec<Rc<SimContext>> = starts.iter().map(|(_, a)| a.clone()).collect();
        let clients = ClientProcesses {
            dispatcher: (options.trace == TraceMode::Kept).then(|| dispatcher.clone()),
            found: Rc::new(RefCell::new(vec![None; apps.len()])),
        };
        let hung = Rc::new(RefCell::new(false));
        let panics = run_system(&cluster, starts, &options, &clients, &hung)?;
        let violations = cluster.violations.take();
        let found = clients.found.borrow().clone();
        let applications = apps
            .into_iter()
            .zip(found)
            .map(|(context, client_process)| FinishedApplication {
                context,
                client_process,
            })
            .collect();
        let trace = dispatcher.take_trace();
        let fingerprint = trace.fingerprint();
        let faults_fired = cluster.faults.fired_report();
        let faults_unfired = cluster.faults.unfired();
        let epoch_ms = cluster.config.rm_start_time_ms;
        let (labels, processes) = (dispatcher.mailbox_labels(), dispatcher.process_names());
        drop(cluster);
        let logs = std::mem::take(&mut *logs.borrow_mut());
        let hung = *hung.borrow();
        Ok(Finished {
            applications,
            panics,
            hung,
            violations,
            logs,
            trace: trace.into_events(),
            fingerprint,
            processes,
            labels,
            epoch_ms,
            faults_fired,
            faults_unfired,
        })
    }
}

/// Boots the cluster and the applications' spark-submits on a paused actix System and runs it
/// to its end; returns the panics it caught.
fn run_system(
    cluster: &Rc<ClusterContext>,
    starts: Vec<(u64, Rc<SimContext>)>,
    options: &SimulationOptions,
    clients: &ClientProcesses,
    hung: &Rc<RefCell<bool>>,
) -> Result<Vec<CaughtPanic>, StartError> {
    let runtime = clock::paused_runtime().map_err(|e| StartError {
        what: "tokio runtime",
        detail: e.to_string(),
    })?;
    let system = actix::System::with_tokio_rt(move || runtime);
    let epoch = cluster.config.rm_start_time_ms;
    let deadline = options.deadline_ms;
    let (progress, panic_at) = (options.progress.clone(), options.panic_at_ms);
    let (cluster2, hung2, clients2) = (cluster.clone(), hung.clone(), clients.clone());
    let capture = PanicCapture::start();
    // Tokio catches a panic in a task (the hook has recorded it); one while booting, outside
    // any task, unwinds to here and ends the run the same way.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        system.block_on(async move {
            clock::start(epoch);
            let rm = boot::start_cluster(&cluster2);
            let (now, later): (Vec<_>, Vec<_>) = starts
                .into_iter()
                .enumerate()
                .partition(|(_, (at, _))| *at == 0);
            for (i, (_, app)) in &now {
                clients2.start(*i, app, rm.clone());
            }
            injector::arm_timed(&cluster2);
            if let (Some(first), Some(p)) = (cluster2.application_at(0), progress) {
                actix::spawn(async move {
                    let mut every = tokio::time::interval(clock::ms(p.every_ms.max(1)));
                    loop {
                        every.tick().await;
                        (p.hook)(&first);
                    }
                });
            }
            for (i, (at, app)) in later {
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
        Ok(r) => r.map_err(|e| StartError {
            what: "actix system",
            detail: e.to_string(),
        })?,
        Err(payload) if panics.is_empty() => std::panic::resume_unwind(payload),
        Err(_) => {}
    }
    Ok(panics)
}

/// Starts each application's spark-submit, noting its process when a kept trace will be drawn.
#[derive(Clone)]
struct ClientProcesses {
    dispatcher: Option<Dispatcher>,
    found: Rc<RefCell<Vec<Option<u32>>>>,
}

impl ClientProcesses {
    fn start(&self, app_index: usize, app: &Rc<SimContext>, rm: EndpointRef<ResourceManagerMsg>) {
        // The Dispatcher numbers processes in creation order: the Client's is the next one.
        let next = self
            .dispatcher
            .as_ref()
            .map(|d| d.process_names().len() as u32);
        boot::start_client(app, rm);
        self.found.borrow_mut()[app_index] = next;
    }
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
            let caught = CaughtPanic {
                at_ms: now,
                text: format!("'{text}'{at}, {now} ms into the run"),
            };
            let captured = PANICS
                .try_with(|p| match p.try_borrow_mut().as_deref_mut() {
                    Ok(Some(found)) => {
                        found.push(caught);
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

    fn panics(&self) -> Vec<CaughtPanic> {
        PANICS.with(|p| p.borrow().clone().unwrap_or_default())
    }
}

impl Drop for PanicCapture {
    fn drop(&mut self) {
        PANICS.with(|p| *p.borrow_mut() = None);
    }
}
