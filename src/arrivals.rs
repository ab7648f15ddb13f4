//! Runs a scenario's `[[workload.applications]]` (validated by `scenario::arrivals`): every
//! application planned under the run's seed (its arrival times, its program: a bundled class
//! through the submit pipeline, a synthetic workload drawn from its own seed, an event log
//! prepared as `replay-cluster` prepares it) and all of them run on the scenario's one cluster
//! in one simulation (`runner::run_cluster`), as Hadoop's Scheduler Load Simulator (`SLSRunner`)
//! runs a trace on one ResourceManager; then the per-application report and `[expect]`'s counts.
//! With faults, the same applications run once more without them, so each one's cost shows
//! (`cluster_report::FaultCost`, as `replay-cluster --scenario` measures it); each application
//! writes what a single run writes (`outputs`: container logs, event logs, timeline, diagram).

pub mod outputs;
pub mod probes;

use crate::conf::cluster::ClusterConfig;
use crate::conf::submit::DefaultsFile;
use crate::error::UserError;
use crate::outputs::eventlog::RecordedTaskSizes;
use crate::pipeline::{ClusterChoice, RunPlan, Submission};
use crate::record::TaskCostModel;
use crate::replay::cluster::{DayLog, application_event_logs, day_run, prepare_replay};
use crate::replay::cluster_report::{AppTimes, FaultCost};
use crate::replay::simulate::WrittenEventLog;
use crate::runner::{ApplicationPlan, ClusterRunResult, RunOptions};
use crate::scenario::arrivals::{Entry, Program, arrival_times, derived_seed};
use crate::scenario::expect::{ApplicationCounts, check_arrivals};
use crate::scenario::{SYNTHETIC_CLASS, Scenario};
use sparkyard_actors::simulation::clock;
use sparkyard_actors::simulation::config::SimConfig;
use sparkyard_actors::simulation::context::ObserverHook;
use sparkyard_actors::simulation::faults::FaultController;
use sparkyard_actors::simulation::invariants::Violation;
use sparkyard_actors::simulation::observer::RunEvent;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// The scenario's arrivals, to plan and run.
struct Planner<'a>(&'a crate::scenario::arrivals::Arrivals);

/// One application of the run: which entry, when, and what the run needs of it.
struct Arrival {
    entry: usize,
    /// The application's name (a synthetic workload's `app_name`, else spark.app.name).
    name: String,
    submit_at_ms: u64,
    config: SimConfig,
    observer: Option<ObserverHook>,
    times: Rc<RefCell<AppTimes>>,
    /// The task sizes its event log recorded (an event-log entry whose event log is on).
    recorded: Option<Arc<RecordedTaskSizes>>,
}

/// What a run of the arrivals keeps besides its report: what `run` writes (container logs,
/// listener events for event logs, the trace for a timeline or diagram), or only a sweep's
/// trace fingerprint.
#[derive(Clone, Copy, Debug, Default)]
pub struct ArrivalsOptions {
    pub capture_logs: bool,
    /// Record each application's listener events where its event log is on, and write them.
    pub event_logs: bool,
    /// Record every application's listener events (the timeline draws tasks from them).
    pub listener_events: bool,
    /// Trace the run (its fingerprint); `keep_trace` keeps the events for the outputs.
    pub trace: bool,
    pub keep_trace: bool,
    /// Leave out the run without the faults (no [`FaultCost`]): a sweep's seeds and shrink's
    /// probes read outcomes and invariants only.
    pub skip_fault_cost: bool,
}

impl ArrivalsOptions {
    /// A sweep's seed or a shrink probe: outcomes and invariants only, the trace's fingerprint
    /// when `fingerprint`.
    pub fn probe(fingerprint: bool) -> Self {
        ArrivalsOptions {
            trace: fingerprint,
            skip_fault_cost: true,
            ..ArrivalsOptions::default()
        }
    }
}

/// What one application did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArrivedApp {
    /// The entry it came from.
    pub entry: String,
    pub name: String,
    pub queue: String,
    pub user: String,
    pub yarn_app_id: Option<String>,
    /// When its spark-submit started, ms after the cluster started.
    pub submitted_at_ms: u64,
    /// How long it waited ACCEPTED for its AM container, ms.
    pub accepted_ms: Option<u64>,
    /// When its spark-submit returned, ms after the cluster started.
    pub ended_at_ms: u64,
    pub state: String,
    pub final_status: String,
    pub succeeded: bool,
    pub tasks_finished: u64,
    pub tasks_failed: u64,
    /// spark-submit's exception, when it ended with one.
    pub failure: Option<String>,
    /// What the run's faults cost it, against the same applications without them (a run
    /// with faults only).
    pub fault_cost: Option<FaultCost>,
    /// The event logs it wrote (its `spark.eventLog.enabled`).
    pub event_logs: Vec<WrittenEventLog>,
}

/// A run of the arrivals: every application in submission order, and what broke.
pub struct ArrivalsRun {
    pub seed: u64,
    pub applications: Vec<ArrivedApp>,
    /// When the last application ended, ms after the cluster started.
    pub end_ms: u64,
    /// Broken invariants, as text.
    pub violations: Vec<String>,
    pub faults_fired: usize,
    /// Each fault that fired: when, in which application, on what, or why it could not act.
    pub fired: Vec<sparkyard_actors::simulation::faults::Firing>,
    /// Planned faults that never fired, by label.
    pub faults_unfired: Vec<String>,
    /// The trace fingerprint (0 when the run was not traced).
    pub fingerprint: u64,
    /// How many simulations it took: 1, or 2 with faults (the second without them).
    pub simulations: usize,
}

impl ArrivedApp {
    /// Its YARN state and final status, `None` when it was never submitted (or never ended).
    pub fn ending(&self) -> Option<(&str, &str)> {
        let known = self.yarn_app_id.is_some() && self.state != "(none)";
        known.then_some((self.state.as_str(), self.final_status.as_str()))
    }
}

impl ArrivalsRun {
    /// Applications that ended FINISHED / SUCCEEDED.
    pub fn succeeded(&self) -> usize {
        self.applications.iter().filter(|a| a.succeeded).count()
    }
}

impl Planner<'_> {
    /// Every application of the run under `seed`, with its config, in submission order (ties in
    /// entry order, then time order).
    fn plan(&self, cluster: &ClusterConfig, seed: u64) -> Result<Vec<Arrival>, UserError> {
        let mut out = Vec::new();
        for (i, e) in self.0.entries.iter().enumerate() {
            let at = arrival_times(&e.times, seed, i);
            out.extend(plan_entry(e, i, &at, cluster, seed)?);
        }
        out.sort_by_key(|a| a.submit_at_ms);
        Ok(out)
    }

    /// Runs every application on the scenario's cluster in one simulation under `seed`, and
    /// with faults once more without them (each application's [`FaultCost`]).
    pub fn run(
        &self,
        cluster: &ClusterConfig,
        seed: u64,
        faults: FaultController,
        deadline_ms: Option<u64>,
        opts: ArrivalsOptions,
    ) -> Result<(ArrivalsRun, Ran), UserError> {
        let arrivals = self.plan(cluster, seed)?;
        if arrivals.is_empty() {
            return Err(UserError::file(
                "workload.applications",
                format!(
                    "no application arrives under seed {seed} (every Poisson draw fell after its until_ms); raise per_hour or widen from_ms..until_ms"
                ),
            ));
        }
        let has_faults = faults.last_app_aimed_at().is_some();
        let ran = simulate(&arrivals, seed, faults, deadline_ms, opts, true)?;
        let costs = TaskCostModel::from(&arrivals[0].config.costs);
        let mut run = self.report(&arrivals, &ran, seed);
        run.violations
            .extend(end_of_run_violations(&arrivals, &ran, costs));
        if has_faults && !opts.skip_fault_cost {
            // The same applications (the same arrivals, seeds and settings), unobserved.
            let quiet = ArrivalsOptions::default();
            let none = FaultController::default();
            let without = simulate(&arrivals, seed, none, deadline_ms, quiet, false)?;
            run.simulations += 1;
            for (row, (w, wo)) in run
                .applications
                .iter_mut()
                .zip(ran.applications.iter().zip(&without.applications))
            {
                row.fault_cost = Some(FaultCost::between(w, wo));
            }
        }
        let spark = arrivals.iter().map(|a| a.config.spark.clone()).collect();
        let recorded = arrivals.iter().map(|a| a.recorded.clone()).collect();
        Ok((
            run,
            Ran {
                result: ran,
                spark,
                recorded,
                costs,
            },
        ))
    }

    fn report(&self, arrivals: &[Arrival], ran: &ClusterRunResult, seed: u64) -> ArrivalsRun {
        let applications = arrivals
            .iter()
            .zip(&ran.applications)
            .map(|(a, r)| {
                let o = &r.outcome;
                let times = a.times.borrow();
                ArrivedApp {
                    entry: self.0.entries[a.entry].label.clone(),
                    name: a.name.clone(),
                    queue: a.config.spark.queue.clone(),
                    user: a.config.user.clone(),
                    yarn_app_id: o.application_id.map(|id| id.to_string()),
                    submitted_at_ms: a.submit_at_ms,
                    accepted_ms: times
                        .submitted_ms
                        .zip(times.am_allocated_ms)
                        .map(|(s, at)| at.saturating_sub(s)),
                    ended_at_ms: r.end_ms,
                    state: o.state.map_or("(none)".into(), |s| s.to_string()),
                    final_status: o.final_status.map_or("(none)".into(), |s| s.to_string()),
                    succeeded: o.exception.is_none()
                        && o.final_status.is_some_and(|s| s.to_string() == "SUCCEEDED"),
                    tasks_finished: r.counters.tasks_finished,
                    tasks_failed: r.counters.tasks_failed,
                    failure: o
                        .exception
                        .as_ref()
                        .map(|e| format!("{}: {}", e.class, e.message)),
                    fault_cost: None,
                    event_logs: Vec::new(),
                }
            })
            .collect();
        ArrivalsRun {
            seed,
            applications,
            end_ms: ran.end_ms,
            violations: ran.violation_texts(),
            faults_fired: ran.faults_fired.len(),
            fired: ran.faults_fired.clone(),
            faults_unfired: ran.faults_unfired.iter().map(|f| f.label.clone()).collect(),
            fingerprint: ran.fingerprint,
            simulations: 1,
        }
    }
}

/// The end-of-run invariants (`crate::invariants`, as a single run checks them) of each
/// application under its own settings' limits, each naming its application.
fn end_of_run_violations(
    arrivals: &[Arrival],
    ran: &ClusterRunResult,
    costs: TaskCostModel,
) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in arrivals.iter().enumerate() {
        let Some(record) = outputs::application_record(ran, i, costs) else {
            continue;
        };
        let limits = crate::invariants::Limits::of(&a.config);
        for v in crate::invariants::check(&record, &limits) {
            // The record is the i-th application's, checked as a single run's.
            let v = Violation {
                application: Some(i),
                ..v
            };
            out.push(ran.violation_text(&v));
        }
    }
    out
}

/// Runs the arrivals in one simulation; `observed`: with their observers (the report's YARN
/// times), else unwatched (the run without the faults reads only ends and counters).
fn simulate(
    arrivals: &[Arrival],
    seed: u64,
    faults: FaultController,
    deadline_ms: Option<u64>,
    opts: ArrivalsOptions,
    observed: bool,
) -> Result<ClusterRunResult, UserError> {
    let last = arrivals.iter().map(|a| a.submit_at_ms).max().unwrap_or(0);
    let mut options = RunOptions {
        seed,
        capture_logs: opts.capture_logs,
        trace: opts.trace,
        keep_trace: opts.keep_trace,
        ..RunOptions::default()
    };
    options.deadline_ms = deadline_ms.unwrap_or(last + options.deadline_ms);
    let plans: Vec<ApplicationPlan> = arrivals
        .iter()
        .map(|a| ApplicationPlan {
            config: a.config.clone(),
            submit_at_ms: a.submit_at_ms,
            record_events: opts.listener_events
                || (opts.event_logs && a.config.spark.event_log_enabled),
            observer: if observed { a.observer.clone() } else { None },
        })
        .collect();
    let cluster_config = plans[0].config.clone();
    crate::runner::run_cluster(cluster_config, plans, &options, faults)
}

/// What a run of the arrivals leaves for its outputs: the run's record, each application's
/// Spark settings and recorded task sizes (in submission order), the task cost model.
pub struct Ran {
    pub result: ClusterRunResult,
    pub spark: Vec<sparkyard_actors::simulation::config::SparkSettings>,
    recorded: Vec<Option<Arc<RecordedTaskSizes>>>,
    pub costs: TaskCostModel,
}

impl Ran {
    /// Writes each application's event logs where its settings turn them on (as
    /// `replay-cluster` writes its applications'), and notes them in `run`'s rows.
    pub fn write_event_logs(&self, run: &mut ArrivalsRun) -> Result<(), UserError> {
        let each = self.result.applications.iter().zip(&self.spark);
        for (i, (a, spark)) in each.enumerate() {
            let label = format!("workload.applications ({})", run.applications[i].entry);
            let sizes = self.recorded[i].clone();
            run.applications[i].event_logs =
                application_event_logs(&a.events, self.costs, spark, sizes, &label)?;
        }
        Ok(())
    }
}

/// The applications of entry `index` arriving at `at`, each with its settings.
fn plan_entry(
    e: &Entry,
    index: usize,
    at: &[u64],
    cluster: &ClusterConfig,
    seed: u64,
) -> Result<Vec<Arrival>, UserError> {
    let fail = |m: String| UserError::file(format!("workload.applications[{index}]"), m);
    let app_seed = |n: usize| derived_seed(seed, ((index as u64) << 32) | n as u64);
    let mut out = Vec::new();
    match &e.program {
        Program::EventLog(path) => {
            let app = crate::replay::model::load(path)
                .map_err(|m| fail(format!("event_log: cannot replay it: {m}")))?;
            let d = &DayLog {
                path: path.display().to_string(),
                app,
                queue: e.queue.clone(),
                submit_epoch_ms: 0,
                deadline: None,
            };
            let mut words = e.flags.clone();
            words.extend(["--queue".to_string(), e.queue.clone()]);
            let mut submit = crate::replay::simulate::user_submit_args(&words)
                .map_err(|m| fail(m.to_string()))?;
            // The start-up calibration's seed, as replay-cluster's (`day_submit_args`).
            submit.sim.seed = seed;
            let prepared = prepare_replay(d, cluster, submit)?;
            for (n, &t) in at.iter().enumerate() {
                // Observed by day_run into its YARN times, as replay-cluster's applications.
                let run = day_run(d, &prepared, app_seed(n), t)?;
                let mut config = run.run.prepared.config.clone();
                if let Some(u) = &e.user {
                    config.user = u.clone();
                }
                let recorded = config
                    .spark
                    .event_log_enabled
                    .then(|| Arc::new(crate::replay::program::recorded_sizes(&d.app)));
                out.push(Arrival {
                    entry: index,
                    name: d.app.app_name.clone(),
                    submit_at_ms: t,
                    config,
                    observer: run.run.prepared.options.observer.clone(),
                    times: run.times,
                    recorded,
                });
            }
        }
        Program::Bundled { class, args } => {
            let base = submitted(e, class, args, cluster, seed).map_err(fail)?;
            for (n, &t) in at.iter().enumerate() {
                let mut config = base.clone();
                config.seed = app_seed(n);
                out.push(arrival(e, index, t, config));
            }
        }
        Program::Synthetic(w) => {
            let base = submitted(e, SYNTHETIC_CLASS, &[], cluster, seed).map_err(fail)?;
            for (n, &t) in at.iter().enumerate() {
                let mut config = base.clone();
                config.seed = app_seed(n);
                let program = w.draw(config.seed, cluster).map_err(fail)?;
                config.synthetic = Some(program);
                let mut a = arrival(e, index, t, config);
                a.name = w.app_name().to_string();
                out.push(a);
            }
        }
    }
    Ok(out)
}

/// An application of entry `index` at `t`, watched for its YARN times.
fn arrival(e: &Entry, index: usize, t: u64, mut config: SimConfig) -> Arrival {
    if let Some(u) = &e.user {
        config.user = u.clone();
    }
    // The observer folds the application's YARN events into its times.
    let times = Rc::new(RefCell::new(AppTimes::default()));
    let sink = times.clone();
    let observer: ObserverHook = Rc::new(move |e: &RunEvent| {
        sink.borrow_mut().apply(e, clock::now_ms());
    });
    Arrival {
        entry: index,
        name: config.spark.app_name.clone(),
        submit_at_ms: t,
        config,
        observer: Some(observer),
        times,
        recorded: None,
    }
}

/// An entry's spark-submit through the submit pipeline: its class, queue and settings on the
/// scenario's cluster.
fn submitted(
    e: &Entry,
    class: &str,
    args: &[String],
    cluster: &ClusterConfig,
    seed: u64,
) -> Result<SimConfig, String> {
    let mut words: Vec<String> = ["--master", "yarn", "--deploy-mode", "cluster", "--class"]
        .iter()
        .map(ToString::to_string)
        .collect();
    words.push(class.to_string());
    words.extend(["--queue".to_string(), e.queue.clone()]);
    words.extend(e.flags.iter().cloned());
    words.push("app.jar".into());
    words.extend(args.iter().cloned());
    let mut submission = Submission::from_words(&words, DefaultsFile::embedded())
        .map_err(|m| format!("spark-submit refuses the entry's settings: {m}"))?;
    submission.request.files_dir = Some(e.dir.clone());
    let prepared = submission
        .prepare(RunPlan {
            cluster: ClusterChoice::Loaded(Box::new(cluster.clone())),
            seed: Some(seed),
            options: RunOptions {
                capture_logs: false,
                trace: false,
                ..RunOptions::default()
            },
            // A synthetic entry's program is drawn per application (`plan_entry`).
            synthetic: None,
            faults: FaultController::default(),
        })
        .map_err(|m| format!("spark-submit refuses the entry's settings: {m}"))?;
    Ok(prepared.config)
}

/// One application of a run's schedule: its entry and when its spark-submit starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub entry: String,
    pub submit_at_ms: u64,
}

/// The applications planned under `seed`, in submission order.
pub fn schedule(
    a: &crate::scenario::arrivals::Arrivals,
    cluster: &ClusterConfig,
    seed: u64,
) -> Result<Vec<Scheduled>, UserError> {
    let planned = Planner(a).plan(cluster, seed)?;
    Ok(planned
        .iter()
        .map(|p| Scheduled {
            entry: a.entries[p.entry].label.clone(),
            submit_at_ms: p.submit_at_ms,
        })
        .collect())
}

/// A fired fault as the report says it: when, its label, the application it acted in (from 1,
/// submission order) and what it hit, or why it could not act.
fn fired_line(f: &sparkyard_actors::simulation::faults::Firing) -> String {
    let f = crate::replay::simulate::FiredFault::from(f);
    format!(
        "fault at {:.3} s: {} ({})",
        f.at_ms as f64 / 1000.0,
        f.label,
        f.outcome()
    )
}

/// `sparkyard run`'s report of an arrivals run: one line for the run, one per fired fault, one
/// per queue, one per application in submission order.
pub fn report_text(run: &ArrivalsRun) -> String {
    use std::fmt::Write;
    let apps = &run.applications;
    let ok = run.succeeded();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "sparkyard: {} applications (seed {}): {ok} ended FINISHED / SUCCEEDED, {} did not; the last ended {:.3} s into the run; {} fault(s) fired",
        apps.len(),
        run.seed,
        apps.len() - ok,
        run.end_ms as f64 / 1000.0,
        run.faults_fired
    );
    for f in &run.fired {
        let _ = writeln!(s, "{}", fired_line(f));
    }
    let mut queues: BTreeMap<&str, Vec<&ArrivedApp>> = BTreeMap::new();
    for a in apps {
        queues.entry(a.queue.as_str()).or_default().push(a);
    }
    for (q, members) in &queues {
        let mut waits: Vec<u64> = members.iter().filter_map(|a| a.accepted_ms).collect();
        waits.sort_unstable();
        let p50 = waits
            .get(waits.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0);
        let _ = writeln!(
            s,
            "queue {q}: {} applications, {} succeeded; ACCEPTED p50 {:.3} s, max {:.3} s",
            members.len(),
            members.iter().filter(|a| a.succeeded).count(),
            p50 as f64 / 1000.0,
            waits.last().copied().unwrap_or(0) as f64 / 1000.0
        );
    }
    let _ = writeln!(
        s,
        "{:<4} {:<16} {:<8} {:<8} {:<32} {:>11} {:>10} {:>11} {:>10} {:>8} outcome",
        "#",
        "entry",
        "queue",
        "user",
        "application",
        "submit s",
        "accept s",
        "ended s",
        "took s",
        "tasks"
    );
    for (i, a) in apps.iter().enumerate() {
        let secs = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
        let _ = writeln!(
            s,
            "{:<4} {:<16} {:<8} {:<8} {:<32} {:>11} {:>10} {:>11} {:>10} {:>8} {} / {}{}",
            i + 1,
            a.entry,
            a.queue,
            a.user,
            a.yarn_app_id.as_deref().unwrap_or("(not submitted)"),
            secs(a.submitted_at_ms),
            a.accepted_ms.map_or("-".into(), secs),
            secs(a.ended_at_ms),
            secs(a.ended_at_ms.saturating_sub(a.submitted_at_ms)),
            a.tasks_finished,
            a.state,
            a.final_status,
            a.failure
                .as_ref()
                .map_or(String::new(), |f| format!(" ({f})"))
        );
    }
    let costs: Vec<Option<&FaultCost>> = apps.iter().map(|a| a.fault_cost.as_ref()).collect();
    s.push_str(&crate::replay::cluster_report::fault_cost_table(
        &costs,
        "the same applications without the faults",
    ));
    s
}

/// A run of a scenario's `[[workload.applications]]`: what each application did, and the
/// expectations that failed (with broken invariants and faults that never fired).
pub struct ArrivalsOutcome {
    pub run: ArrivalsRun,
    pub failures: Vec<String>,
    /// The `[expect]` table's failures alone (a sweep's `--expect`).
    pub expect_failures: Vec<String>,
    /// What the run left for its outputs.
    pub ran: Ran,
}

/// Runs the scenario's `[[workload.applications]]` under `seed` (the file's own when `None`)
/// on its cluster, with its faults, and checks its `[expect]`.
pub fn run_scenario(s: &Scenario, seed: Option<u64>) -> Result<ArrivalsOutcome, UserError> {
    run_scenario_with(s, seed, ArrivalsOptions::default())
}

/// [`run_scenario`], keeping what `opts` asks for.
pub fn run_scenario_with(
    s: &Scenario,
    seed: Option<u64>,
    opts: ArrivalsOptions,
) -> Result<ArrivalsOutcome, UserError> {
    let seed = seed.or(s.seed).unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let Some(a) = &s.arrivals else {
        return Err(UserError::file(
            s.path.display().to_string(),
            "the scenario has no [[workload.applications]]",
        ));
    };
    let (faults, deadline) = s.fault_plan(seed)?;
    let (mut run, ran) = Planner(a).run(&s.cluster, seed, faults, deadline, opts)?;
    if opts.event_logs {
        ran.write_event_logs(&mut run)?;
    }
    let succeeded = run.succeeded() as u64;
    let counts = ApplicationCounts {
        succeeded,
        failed: run.applications.len() as u64 - succeeded,
    };
    let expect_failures = check_arrivals(&s.expect, &counts, &run.faults_unfired);
    let mut failures = expect_failures.clone();
    failures.extend(
        run.violations
            .iter()
            .map(|v| format!("invariant broken: {v}")),
    );
    Ok(ArrivalsOutcome {
        run,
        failures,
        expect_failures,
        ran,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::cluster::{ClusterSource, load_cluster};
    use crate::test_dir::TestDir;

    fn cluster() -> ClusterConfig {
        load_cluster(ClusterSource::Embedded).expect("the embedded cluster")
    }

    /// The scenario `body` (named "u"), written to a file in `dir` and loaded.
    fn scenario(dir: &TestDir, body: &str) -> Scenario {
        let path = dir.join(format!("{}.toml", body.len()));
        std::fs::write(&path, format!("name = \"u\"\n{body}")).expect("written");
        crate::scenario::load(&path).expect("loads")
    }

    const PI: &str = "class = \"org.apache.spark.examples.SparkPi\"\n";

    /// The applications of every entry run in submission order, ties in entry order.
    #[test]
    fn the_schedule_is_in_submission_order() {
        let tmp = TestDir::new("arrivals-unit");
        let s = scenario(
            &tmp,
            &format!(
                "[[workload.applications]]\nname = \"b\"\nqueue = \"default\"\nat_ms = [5000, 0]\n{PI}\n[[workload.applications]]\nname = \"c\"\nqueue = \"default\"\nat_ms = [0, 7000]\n{PI}"
            ),
        );
        let a = s.arrivals.as_ref().expect("arrivals");
        let s = schedule(a, &cluster(), 42).expect("planned");
        let got: Vec<(&str, u64)> = s
            .iter()
            .map(|x| (x.entry.as_str(), x.submit_at_ms))
            .collect();
        assert_eq!(got, [("b", 0), ("c", 0), ("b", 5000), ("c", 7000)]);
    }

    /// An entry's settings reach its applications' Spark settings, with its queue and user.
    #[test]
    fn an_entrys_settings_reach_its_applications() {
        let tmp = TestDir::new("arrivals-unit");
        let s = scenario(
            &tmp,
            &format!(
                "[[workload.applications]]\nqueue = \"default\"\nuser = \"ann\"\nat_ms = [0]\nnum_executors = 3\n{PI}"
            ),
        );
        let a = s.arrivals.as_ref().expect("arrivals");
        let planned = Planner(a).plan(&cluster(), 42).expect("planned");
        let c = &planned[0].config;
        assert_eq!(
            (
                c.spark.queue.as_str(),
                c.user.as_str(),
                c.spark.executor_instances
            ),
            ("default", "ann", Some(3))
        );
    }

    /// A relative spark.scheduler.allocation.file in an entry's `conf` is read from the
    /// scenario's directory, as a `[submit]` line's is.
    #[test]
    fn an_entrys_pools_file_is_the_scenarios_neighbour() {
        let tmp = TestDir::new("arrivals-unit");
        let s = scenario(
            &tmp,
            &format!(
                "[[workload.applications]]\nqueue = \"default\"\nat_ms = [0]\nconf = {{ \"spark.scheduler.mode\" = \"FAIR\", \"spark.scheduler.allocation.file\" = \"pools-unit.xml\" }}\n{PI}"
            ),
        );
        let dir = s.path.parent().expect("a directory").to_path_buf();
        std::fs::write(
            dir.join("pools-unit.xml"),
            "<allocations><pool name=\"etl\"><weight>2</weight></pool></allocations>",
        )
        .expect("written");
        let a = s.arrivals.as_ref().expect("arrivals");
        let planned = Planner(a).plan(&cluster(), 42).expect("planned");
        let file = planned[0].config.spark.allocation_file.as_ref();
        let pools: Vec<(&str, i32)> = file
            .map(|f| {
                f.pools
                    .iter()
                    .map(|p| (p.name.as_str(), p.weight))
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(pools, [("etl", 2)]);
    }
}
