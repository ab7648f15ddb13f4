//! Runs one simulation: builds the settings, boots the cluster and the spark-submit Client on a
//! paused current-thread actix System (virtual time), runs until the Client is done (or a
//! virtual deadline passes, which is a simulator bug), and collects what happened.
//!
//! A panic inside the simulation (an actor's handler, a timer) is a simulator bug too. Tokio
//! would catch it, drop the task and go on, so the run would end as if nothing happened: the
//! run's panic hook records it instead (without Rust's panic text or backtrace), stops the
//! System, and the run ends with a `simulation-does-not-panic` violation and a
//! `sparkyard.SimulationPanic` exception, which every command reports with a non-zero exit.

use crate::error::UserError;
use sparkyard_actors::boot;
use sparkyard_actors::faults::FaultController;
use sparkyard_actors::kernel::clock;
use sparkyard_actors::kernel::logs::LogStore;
use sparkyard_actors::kernel::trace::{Trace, TraceEvent};
use sparkyard_actors::rpc::Dispatcher;
use sparkyard_actors::rpc::network::FaultInjector;
use sparkyard_actors::world::config::SimConfig;
use sparkyard_actors::world::context::{ClientOutcome, ObserverHook, SimContext};
use sparkyard_actors::world::injector;
use sparkyard_actors::world::invariants::{Violation, name as invariant};
use sparkyard_actors::world::observer::RunCounters;
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

/// A callback that looks at the running simulation (progress bars); it must not send messages.
pub type ProgressHook = Rc<dyn Fn(&SimContext)>;

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

/// Everything a finished run leaves behind.
pub struct RunResult {
    pub outcome: ClientOutcome,
    pub counters: RunCounters,
    pub logs: LogStore,
    pub trace: Vec<TraceEvent>,
    pub fingerprint: u64,
    /// Labels of the trace's mailboxes (`Executor@container_...`), by endpoint id.
    pub labels: Vec<String>,
    /// Names of the trace's processes (`container_...`, `nm:<host>`, `rm`), by process id.
    pub processes: Vec<String>,
    pub end_ms: u64,
    pub epoch_ms: u64,
    /// Every SparkContext's listener events (empty unless `record_events`).
    pub events: Vec<sparkyard_actors::world::listener::AttemptEvents>,
    /// The faults that fired, in order, each with what it acted on or why it could not.
    pub faults_fired: Vec<sparkyard_actors::faults::Firing>,
    /// Planned faults whose trigger never happened.
    pub faults_unfired: Vec<sparkyard_actors::faults::Unfired>,
    /// Invariants broken during the run (the end-of-run ones are in `crate::invariants`).
    pub violations: Vec<sparkyard_actors::world::invariants::Violation>,
    /// The executor costs the event log's task metrics are modelled from.
    pub task_costs: crate::outputs::task_metrics::TaskCostModel,
}

/// Runs the simulation with a fault plan to its end on the virtual clock (through
/// [`crate::pipeline`], which builds `config` from what the user gave).
pub fn run(
    config: SimConfig,
    opts: &RunOptions,
    faults: FaultController,
) -> Result<RunResult, UserError> {
    let epoch = config.rm_start_time_ms;
    let latency = config.costs.network_latency_ms;
    let task_costs = crate::outputs::task_metrics::TaskCostModel::from(&config.costs);
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
    let mut sim = SimContext::with_faults(config, dispatcher.clone(), opts.record_events, faults);
    sim.observer_hook = opts.observer.clone();
    let sim = Rc::new(sim);
    let runtime =
        clock::paused_runtime().map_err(|e| UserError::file("tokio runtime", e.to_string()))?;
    let system = actix::System::with_tokio_rt(move || runtime);
    let deadline = opts.deadline_ms;
    let (progress, progress_ms) = (opts.progress.clone(), opts.progress_interval_ms);
    let hung = Rc::new(RefCell::new(false));
    let (sim2, hung2) = (sim.clone(), hung.clone());
    let panic_at = opts.panic_at_ms;
    let capture = PanicCapture::start();
    // Tokio catches a panic in a task (the hook has recorded it); one while booting, outside
    // any task, unwinds to here and ends the run the same way.
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        system.block_on(async move {
            clock::start(epoch);
            let rm = boot::start_cluster(&sim2);
            boot::start_client(&sim2, rm);
            injector::arm_timed(&sim2);
            if let Some(tick) = progress {
                let sim3 = sim2.clone();
                actix::spawn(async move {
                    let mut every = tokio::time::interval(clock::ms(progress_ms.max(1)));
                    loop {
                        every.tick().await;
                        tick(&sim3);
                    }
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
    let mut end_ms = sim
        .outcome
        .borrow()
        .as_ref()
        .map_or(deadline, |o| o.finished_at_ms);
    let mut violations = sim.violations.take();
    let outcome = match sim.outcome.borrow_mut().take() {
        _ if !panics.is_empty() => {
            end_ms = panics[0].0;
            let texts: Vec<&str> = panics.iter().map(|(_, t)| t.as_str()).collect();
            let detail = format!(
                "the simulator panicked (a sparkyard bug; seed {}): {}",
                opts.seed,
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
        Some(o) if !*hung.borrow() => o,
        _ => {
            let detail = format!(
                "the application did not end within {deadline} virtual ms (seed {}); look for 'Initial job has not accepted any resources' in the driver's log if the cluster is too small",
                opts.seed
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
    let counters = sim.counters.borrow().clone();
    let trace = dispatcher.take_trace();
    let fingerprint = trace.fingerprint();
    let trace = trace.into_events();
    let labels = dispatcher.mailbox_labels();
    let processes = dispatcher.process_names();
    let events = sim.listener.take();
    let faults_fired = sim.faults.fired.borrow().clone();
    let faults_unfired = sim.faults.unfired();
    drop(sim);
    let logs = std::mem::take(&mut *logs.borrow_mut());
    Ok(RunResult {
        outcome,
        counters,
        logs,
        trace,
        fingerprint,
        processes,
        labels,
        end_ms,
        epoch_ms: epoch,
        events,
        faults_fired,
        faults_unfired,
        violations,
        task_costs,
    })
}
