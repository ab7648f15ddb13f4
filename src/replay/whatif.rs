//! `sparkyard what-if`: the replay of one log for every configuration of a grid (Spark
//! properties, spark-submit options and cluster keys) under every seed (a scenario's `[chaos]`
//! faults drawn per seed), on worker threads (`sweep::parallel_indexed`), summarised per
//! configuration: runtime p10/p50/p90/max over the runs that succeeded with a p10-p90
//! uncertainty band (`accuracy`), executors used (peak, mean), executor-hours, cost,
//! utilisation, failed runs and why, Sparklens' prediction, the cheapest configuration whose
//! p90 meets a target, and per seed what happened (faults fired with their targets, executors
//! over time, the critical path, the end time) for `--explain`.

use super::accuracy::{self, Band, BandBasis};
use super::analysis;
use super::cluster_keys;
use super::model::{self, Application};
use super::simulate::{self, FiredFault, Prepared, ReplaySetup, SimOutcome};
use super::spark_keys;
use crate::conf::submit::SubmitArgs;
use crate::error::UserError;
use serde::Serialize;
use sparkyard_actors::simulation::trace::FaultTarget;
use std::fmt::Write as _;
use std::path::Path;

/// spark-submit options a grid key may name, and the property each sets.
const OPTIONS: &[(&str, &str)] = &[
    ("num-executors", "spark.executor.instances"),
    ("executor-cores", "spark.executor.cores"),
    ("executor-memory", "spark.executor.memory"),
    ("driver-memory", "spark.driver.memory"),
    ("driver-cores", "spark.driver.cores"),
];

/// Points kept of each seed's executors-over-time curve (evenly spread, the last kept).
const CURVE_POINTS: usize = 60;

const HOUR_MS: f64 = 3_600_000.0;

/// A what-if usage error: what is wrong and how to get what-if's own help (not spark-submit's
/// `--verbose`, which what-if does not take).
pub fn usage_error(message: impl std::fmt::Display) -> UserError {
    UserError::file(
        "sparkyard what-if",
        format!("{message}\n\nRun `sparkyard what-if --help` for usage help"),
    )
}

/// A user error as one line of text, without the hint a command adds (a row's reason).
pub fn reason(e: &UserError) -> String {
    match e {
        UserError::Java { class, message } => format!("{class}: {message}"),
        UserError::Usage(m) | UserError::Launcher { message: m, .. } => m.clone(),
        UserError::File { path, message } => format!("{path}: {message}"),
    }
}

/// One key of the grid and its values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridKey {
    /// As the user wrote it (shown in the table).
    pub name: String,
    pub values: Vec<String>,
}

/// `KEY=V1,V2,...` for each `--grid`.
pub fn parse_grid(specs: &[String]) -> Result<Vec<GridKey>, UserError> {
    if specs.is_empty() {
        return Err(usage_error(
            "what-if needs at least one --grid KEY=V1,V2,... (e.g. --grid spark.executor.instances=2,4,8)",
        ));
    }
    let mut keys: Vec<GridKey> = Vec::new();
    for spec in specs {
        let bad = |why: &str| usage_error(format!("--grid {spec}: {why}"));
        let (k, vs) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=V1,V2,..."))?;
        let name = k.trim().trim_start_matches("--").to_string();
        let cluster = cluster_keys::is_cluster_key(&name);
        let option = is_submit_option(&name);
        if !name.starts_with("spark.") && !cluster && !option {
            return Err(bad(&format!(
                "'{name}' is neither a Spark property (spark.*), one of {} nor a cluster key ({})",
                submit_options().join(", "),
                cluster_keys::KEYS.join(", ")
            )));
        }
        if let Some(why) = spark_key_refusal(&name) {
            return Err(bad(&why));
        }
        let values = grid_values(vs).map_err(&bad)?;
        if let Some(why) = event_log_refusal(&name, &values) {
            return Err(bad(why));
        }
        if cluster {
            for v in &values {
                cluster_keys::check_value(&name, v).map_err(|m| bad(&m))?;
            }
        }
        if keys.iter().any(|g| g.name == name) {
            return Err(bad("the key is given twice"));
        }
        keys.push(GridKey { name, values });
    }
    Ok(keys)
}

/// Why a grid may not vary Spark property `name` (the key registry's reason: unknown, not
/// simulated, or one that names files, logs or ids); `None` for a key it may vary, or for a
/// name that is not a Spark property.
pub fn spark_key_refusal(name: &str) -> Option<String> {
    spark_keys::refusal(name).filter(|_| name.starts_with("spark."))
}

/// A grid's `V1,V2,...`, each trimmed; an empty one is refused.
pub fn grid_values(text: &str) -> Result<Vec<String>, &'static str> {
    let values: Vec<String> = text.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err("a value is empty");
    }
    Ok(values)
}

/// A what-if writes no event logs: `spark.eventLog.enabled=true` among a key's values is
/// refused with what to run instead.
pub fn event_log_refusal(name: &str, values: &[String]) -> Option<&'static str> {
    (name == "spark.eventLog.enabled" && values.iter().any(|v| v.eq_ignore_ascii_case("true")))
        .then_some(
            "what-if writes no event logs (every configuration and seed is its own run); `sparkyard replay LOG --conf spark.eventLog.enabled=true` with one configuration's options writes its event log",
        )
}

/// Whether `name` is a spark-submit option a grid may name (`num-executors`, ...).
pub fn is_submit_option(name: &str) -> bool {
    OPTIONS.iter().any(|(o, _)| *o == name)
}

/// The spark-submit options a grid may name.
pub fn submit_options() -> Vec<&'static str> {
    OPTIONS.iter().map(|(o, _)| *o).collect()
}

/// `--target-p90`: a duration with a unit, read as Spark reads time strings
/// (`JavaUtils.timeStringAsMs`: us, ms, s, m or min, h, d). A bare number is refused: Spark
/// would read it as milliseconds, which a runtime target never means.
pub fn parse_target_p90(text: &str) -> Result<u64, UserError> {
    let t = text.trim();
    let units = "give it a unit Spark reads: us, ms, s, m or min, h, d (e.g. 90s, 30min, 2h)";
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        return Err(usage_error(format!(
            "--target-p90 {text}: a number without a unit is milliseconds to Spark; {units}"
        )));
    }
    crate::conf::memory::time_string_as_ms(t)
        .map_err(|_| usage_error(format!("--target-p90 {text}: not a duration; {units}")))
}

/// `--seeds A..B` (B excluded) or `A..=B`, refused in what-if's own words.
pub fn parse_seeds(text: &str) -> Result<std::ops::Range<u64>, UserError> {
    crate::sweep::parse_seed_range(text).map_err(usage_error)
}

/// A price (`--price-core-hour`, `--price-gb-hour`): a finite number, 0 or more.
pub fn check_price(flag: &str, price: f64) -> Result<f64, UserError> {
    if price.is_finite() && price >= 0.0 {
        return Ok(price);
    }
    Err(usage_error(format!(
        "{flag} {price}: a price is a number of 0 or more"
    )))
}

/// What to run.
pub struct WhatIf {
    pub grid: Vec<GridKey>,
    pub seeds: std::ops::Range<u64>,
    pub jobs: usize,
    pub target_p90_ms: Option<u64>,
    pub price_core_hour: f64,
    pub price_gb_hour: f64,
}

/// Executors registered at a time of one run (ms since its SparkContext started).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ExecutorsAt {
    pub at_ms: u64,
    pub executors: u32,
}

/// One step of a run's critical path: the chain of waits whose lengths add up to the
/// application's time (SparkContext start to stop).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PathStep {
    /// From the SparkContext to the first job: the executors starting and registering.
    StartUp { ms: u64 },
    /// The driver's own time between jobs (and after the last one).
    Driver { ms: u64 },
    /// A job, as long as it ran past the one before; `stage_chain_ms` is its longest chain of
    /// recorded stages (what it needs on infinitely many executors) and `stage_chain` their
    /// ids, first to last; `None` / empty for a job of an AM attempt the log does not have.
    Job {
        job_id: Option<u32>,
        ms: u64,
        stage_chain_ms: Option<u64>,
        stage_chain: Vec<u32>,
    },
}

impl PathStep {
    fn ms(&self) -> u64 {
        match self {
            PathStep::StartUp { ms } | PathStep::Driver { ms } | PathStep::Job { ms, .. } => *ms,
        }
    }
}

/// What one seed's run did.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRun {
    pub seed: u64,
    pub succeeded: bool,
    pub final_state: String,
    /// Why it did not succeed: spark-submit's exception and YARN's diagnostics.
    pub failure: Option<String>,
    /// The application's time (SparkContext start to stop, as its event log would show).
    pub app_ms: u64,
    /// When the SparkContext started and when the run ended, virtual ms since the cluster
    /// started (the clock of `faults_fired`).
    pub context_started_ms: u64,
    pub end_ms: u64,
    pub faults_fired: Vec<FiredFault>,
    /// Planned faults whose trigger never happened in this seed.
    pub faults_unfired: Vec<String>,
    pub executors_peak: u32,
    /// Registered executors averaged over the application's time.
    pub executors_mean: f64,
    pub executor_hours: f64,
    /// Registered executors at each change (at most 60 points, the last kept).
    pub executors_running: Vec<ExecutorsAt>,
    /// The YarnAllocator's executor target at each change (dynamic allocation moves it; at
    /// most 60 points).
    pub executors_requested: Vec<ExecutorsAt>,
    pub critical_path: Vec<PathStep>,
}

/// One configuration's results over every seed.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigRow {
    pub values: Vec<String>,
    /// Why the configuration could not run at all (Spark's or YARN's reason, with the grid
    /// values); its seeds were not run.
    pub refused: Option<String>,
    pub runs: u64,
    pub failed_runs: u64,
    /// The first failed seed's reason (every seed's is in `seeds`).
    pub failure: Option<String>,
    /// Over the runs that succeeded (`None` when none did).
    pub p10_ms: Option<u64>,
    pub p50_ms: Option<u64>,
    pub p90_ms: Option<u64>,
    pub max_ms: Option<u64>,
    /// Where the real application's time is likely to be (`accuracy::band`).
    pub band: Option<Band>,
    /// Means over the seeds.
    pub executor_hours: f64,
    pub core_hours: f64,
    pub gb_hours: f64,
    pub cost: f64,
    pub utilization: f64,
    /// The most executors registered at once in any seed, and the mean over the seeds of
    /// each seed's time-averaged count (with dynamic allocation, what was used; the
    /// configuration's num-executors is only the initial count).
    pub executors_peak: Option<u32>,
    pub executors_mean: f64,
    /// Sparklens' prediction for this configuration's executors x cores.
    pub sparklens_ms: u64,
    pub meets_target: Option<bool>,
    pub cheapest_meeting_target: bool,
    /// Every seed's run, in seed order.
    pub seeds: Vec<SeedRun>,
}

/// The what-if's result.
#[derive(Clone, Debug, Serialize)]
pub struct WhatIfTable {
    pub log: String,
    pub recorded_ms: u64,
    pub keys: Vec<String>,
    pub seeds: (u64, u64),
    pub target_p90_ms: Option<u64>,
    /// What every row's band is made of, and what it covers.
    pub band_basis: BandBasis,
    pub band_covers: String,
    pub rows: Vec<ConfigRow>,
}

impl WhatIfTable {
    /// The configurations that could not run, with why.
    pub fn refused(&self) -> impl Iterator<Item = (usize, &str)> {
        self.rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.refused.as_deref().map(|why| (i + 1, why)))
    }
}

/// Every combination of the grid's values, the first key varying slowest.
pub fn combinations(grid: &[GridKey]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    for k in grid {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                k.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

/// The user's options with one configuration applied on top (its cluster keys left out: they
/// change the cluster).
pub fn with_config(base: &SubmitArgs, grid: &[GridKey], values: &[String]) -> SubmitArgs {
    let mut a = base.clone();
    for (k, v) in grid.iter().zip(values) {
        match OPTIONS.iter().find(|(o, _)| *o == k.name) {
            Some(("num-executors", _)) => a.num_executors = Some(v.clone()),
            Some(("executor-cores", _)) => a.executor_cores = Some(v.clone()),
            Some(("executor-memory", _)) => a.executor_memory = Some(v.clone()),
            Some(("driver-memory", _)) => a.driver_memory = Some(v.clone()),
            Some(("driver-cores", _)) => a.driver_cores = Some(v.clone()),
            _ if cluster_keys::is_cluster_key(&k.name) => {} // applied to the cluster
            _ => a.conf.push(format!("{}={v}", k.name)),
        }
    }
    a
}

/// `--grid K=V` for each key of a configuration, as the user would write them.
fn config_words(grid: &[GridKey], values: &[String]) -> String {
    grid.iter()
        .zip(values)
        .map(|(k, v)| format!("--grid {}={v}", k.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why one configuration cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Refusal {
    /// What the row and the error say (naming the configuration's grid values).
    text: String,
    /// Spark's or YARN's reason alone, when the submission was refused (not a grid value of
    /// a cluster key, whose text is its own).
    reason: Option<String>,
}

/// One configuration's prepared run, or why it cannot run (naming its grid values).
fn prepare(
    app: &Application,
    setup: &ReplaySetup,
    grid: &[GridKey],
    values: &[String],
) -> Result<Prepared, Refusal> {
    let s = ReplaySetup {
        submit: with_config(&setup.submit, grid, values),
        scenario: setup.scenario.clone(),
    };
    simulate::prepare_on(app, &s, |cluster| {
        for (k, v) in grid.iter().zip(values) {
            if cluster_keys::is_cluster_key(&k.name) {
                cluster_keys::apply(cluster, &k.name, v)
                    .map_err(|m| UserError::usage(format!("--grid {}={v}: {m}", k.name)))?;
            }
        }
        Ok(())
    })
    .map_err(|e| match e {
        UserError::Usage(m) if m.starts_with("--grid ") => Refusal {
            text: m,
            reason: None,
        },
        e => Refusal {
            text: format!("{}: {}", config_words(grid, values), reason(&e)),
            reason: Some(reason(&e)),
        },
    })
}

/// When every configuration is refused for the reason the options they all start from (the
/// log's configuration and the user's spark-submit options, no grid value) are refused for
/// by themselves, that reason, saying it is theirs: naming the first grid value instead
/// (`--grid num-executors=1: ... Executor memory must be a positive number` for a bad
/// `--conf spark.executor.memory`) sends the user to the wrong option.
fn refused_without_the_grid(
    app: &Application,
    setup: &ReplaySetup,
    refusals: &[&Refusal],
) -> Option<String> {
    let base = simulate::prepare(app, setup).err()?;
    let why = reason(&base);
    refusals
        .iter()
        .all(|r| r.reason.as_deref() == Some(why.as_str()))
        .then(|| {
            format!(
                "every configuration: {why} (from the options every configuration starts from, \
                 not from a --grid value)"
            )
        })
}

/// Runs the what-if. Configurations that cannot run are rows with their reason; when none
/// can, the first reason is the error.
pub fn run(path: &Path, setup: &ReplaySetup, w: &WhatIf) -> Result<WhatIfTable, UserError> {
    let app = model::load(path)?;
    let configs = combinations(&w.grid);
    let prepared: Vec<Result<Prepared, Refusal>> = configs
        .iter()
        .map(|values| prepare(&app, setup, &w.grid, values))
        .collect();
    let refusals: Vec<&Refusal> = prepared.iter().filter_map(|p| p.as_ref().err()).collect();
    if let Some(first) = refusals
        .first()
        .filter(|_| refusals.len() == prepared.len())
    {
        let why = refused_without_the_grid(&app, setup, &refusals);
        return Err(UserError::usage(why.unwrap_or_else(|| first.text.clone())));
    }
    let seeds = w.seeds.clone();
    let per = seeds.end - seeds.start;
    // (configuration, seed) of every run, in order, refused configurations left out.
    let work: Vec<(usize, u64)> = prepared
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_ok())
        .flat_map(|(c, _)| seeds.clone().map(move |s| (c, s)))
        .collect();
    let outcomes = crate::sweep::parallel_indexed(work.len() as u64, w.jobs, |i| {
        let (c, seed) = work[i as usize];
        let p = prepared[c]
            .as_ref()
            .map_err(|r| UserError::usage(r.text.clone()))?;
        Ok(simulate::run(p, seed).map_err(|e| reason(&e)))
    })?;
    let basis = accuracy::basis(&app, &setup.submit, None)?;
    let chains = job_chains(&app);
    let mut runs = outcomes.into_iter();
    let mut rows: Vec<ConfigRow> = Vec::with_capacity(configs.len());
    for (values, p) in configs.into_iter().zip(&prepared) {
        let row = match p {
            Err(refusal) => refused_row(values, refusal.text.clone()),
            Ok(_) => {
                let mine: Vec<Result<SimOutcome, String>> =
                    runs.by_ref().take(per as usize).collect();
                row(values, &mine, &app, &chains, w, &basis)
            }
        };
        rows.push(row);
    }
    mark_cheapest(&mut rows, w.target_p90_ms);
    Ok(WhatIfTable {
        log: path.display().to_string(),
        recorded_ms: app.duration_ms(),
        keys: w.grid.iter().map(|g| g.name.clone()).collect(),
        seeds: (w.seeds.start, w.seeds.end),
        target_p90_ms: w.target_p90_ms,
        band_covers: accuracy::covers(&basis),
        band_basis: basis,
        rows,
    })
}

/// The `q`-quantile of sorted values (nearest rank).
pub fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

fn refused_row(values: Vec<String>, why: String) -> ConfigRow {
    ConfigRow {
        values,
        refused: Some(why),
        runs: 0,
        failed_runs: 0,
        failure: None,
        p10_ms: None,
        p50_ms: None,
        p90_ms: None,
        max_ms: None,
        band: None,
        executor_hours: 0.0,
        core_hours: 0.0,
        gb_hours: 0.0,
        cost: 0.0,
        utilization: 0.0,
        executors_peak: None,
        executors_mean: 0.0,
        sparklens_ms: 0,
        meets_target: None,
        cheapest_meeting_target: false,
        seeds: Vec::new(),
    }
}

/// Keeps at most [`CURVE_POINTS`] points, the last included.
fn thin(points: Vec<ExecutorsAt>) -> Vec<ExecutorsAt> {
    if points.len() <= CURVE_POINTS {
        return points;
    }
    let step = points.len().div_ceil(CURVE_POINTS);
    let last = points.last().copied();
    let mut out: Vec<ExecutorsAt> = points.into_iter().step_by(step).collect();
    if out.last().copied() != last {
        out.extend(last);
    }
    out
}

/// A recorded job's longest chain of stages (`analysis::critical_path_ms`'s, with the stages
/// on it).
#[derive(Clone, Debug, PartialEq, Eq)]
struct JobChain {
    job_id: u32,
    ms: u64,
    stages: Vec<u32>,
}

/// The log's jobs that ran tasks, in submission order (the simulated job spans' jobs), each
/// with its longest chain of recorded stages, computed once per what-if: each stage is as long
/// as its longest task index and starts when its last parent ends.
fn job_chains(app: &Application) -> Vec<JobChain> {
    app.jobs
        .iter()
        .filter(|j| j.stages.iter().any(|s| !s.tasks.is_empty()))
        .map(|j| {
            let mut finish: std::collections::BTreeMap<u32, (u64, Option<u32>)> =
                std::collections::BTreeMap::new();
            for s in &j.stages {
                let (ready, parent) = s
                    .parents
                    .iter()
                    .filter_map(|p| finish.get(p).map(|f| (f.0, Some(*p))))
                    .max()
                    .unwrap_or((0, None));
                finish.insert(s.stage_id, (ready + s.longest_task_ms(), parent));
            }
            let last = finish
                .iter()
                .max_by_key(|(id, f)| (f.0, std::cmp::Reverse(**id)));
            let ms = last.map_or(0, |(_, f)| f.0);
            let mut stages = Vec::new();
            let mut at = last.map(|(id, _)| *id);
            while let Some(id) = at {
                stages.push(id);
                at = finish.get(&id).and_then(|f| f.1);
            }
            stages.reverse();
            JobChain {
                job_id: j.job_id,
                ms,
                stages,
            }
        })
        .collect()
}

/// The run's critical path: the start-up to the first job, then each job as long as it ran
/// past the path so far (a job inside another's span is not on it), the driver's time in the
/// gaps and after the last job. The steps add up to the application's time.
fn critical_path(o: &SimOutcome, jobs: &[JobChain]) -> Vec<PathStep> {
    let r = &o.record;
    let start = r.context_started_ms.unwrap_or(0);
    let stop = start + o.app_ms;
    let mut steps: Vec<PathStep> = Vec::new();
    let mut at = start;
    for (k, span) in r.jobs.iter().enumerate() {
        let end = span.ended_ms.unwrap_or(stop).min(stop);
        if end <= at {
            continue;
        }
        let gap = span.started_ms.saturating_sub(at);
        if gap > 0 || steps.is_empty() {
            steps.push(if steps.is_empty() {
                PathStep::StartUp { ms: gap }
            } else {
                PathStep::Driver { ms: gap }
            });
        }
        let job = jobs.get(k);
        steps.push(PathStep::Job {
            job_id: job.map(|j| j.job_id),
            ms: end - at.max(span.started_ms),
            stage_chain_ms: job.map(|j| j.ms),
            stage_chain: job.map(|j| j.stages.clone()).unwrap_or_default(),
        });
        at = end;
    }
    let tail = stop.saturating_sub(at);
    if steps.is_empty() {
        steps.push(PathStep::StartUp { ms: tail });
    } else if tail > 0 {
        steps.push(PathStep::Driver { ms: tail });
    }
    steps
}

fn seed_run(o: &SimOutcome, jobs: &[JobChain]) -> SeedRun {
    let r = &o.record;
    let start = r.context_started_ms.unwrap_or(0);
    let cores = o.executor_cores.max(1) as f64;
    let curve = |points: &[(u64, u32)]| {
        thin(
            points
                .iter()
                .map(|&(t, n)| ExecutorsAt {
                    at_ms: t.saturating_sub(start),
                    executors: n,
                })
                .collect(),
        )
    };
    SeedRun {
        seed: o.seed,
        succeeded: o.succeeded,
        final_state: o.final_state.clone(),
        failure: o.failure.clone(),
        app_ms: o.app_ms,
        context_started_ms: start,
        end_ms: o.end_ms,
        faults_fired: o.faults_fired.clone(),
        faults_unfired: o.faults_unfired.clone(),
        executors_peak: r
            .executors_running
            .iter()
            .map(|&(_, n)| n)
            .max()
            .unwrap_or(0),
        executors_mean: analysis::ratio(r.executor_core_ms / cores, o.app_ms as f64),
        executor_hours: r.executor_core_ms / cores / HOUR_MS,
        executors_running: curve(&r.executors_running),
        executors_requested: curve(&r.executors_requested),
        critical_path: critical_path(o, jobs),
    }
}

/// A run that could not even start (a user error for this seed): failed, with its reason.
fn unstarted(seed: u64, why: &str) -> SeedRun {
    SeedRun {
        seed,
        succeeded: false,
        final_state: "NOT-SUBMITTED".into(),
        failure: Some(why.to_string()),
        app_ms: 0,
        context_started_ms: 0,
        end_ms: 0,
        faults_fired: Vec::new(),
        faults_unfired: Vec::new(),
        executors_peak: 0,
        executors_mean: 0.0,
        executor_hours: 0.0,
        executors_running: Vec::new(),
        executors_requested: Vec::new(),
        critical_path: Vec::new(),
    }
}

fn row(
    values: Vec<String>,
    outcomes: &[Result<SimOutcome, String>],
    app: &Application,
    jobs: &[JobChain],
    w: &WhatIf,
    basis: &BandBasis,
) -> ConfigRow {
    let runs: Vec<&SimOutcome> = outcomes.iter().filter_map(|o| o.as_ref().ok()).collect();
    let seeds: Vec<SeedRun> = outcomes
        .iter()
        .zip(w.seeds.clone())
        .map(|(o, seed)| match o {
            Ok(o) => seed_run(o, jobs),
            Err(why) => unstarted(seed, why),
        })
        .collect();
    let ok: Vec<&SimOutcome> = runs
        .iter()
        .copied()
        .filter(|r| r.ran_as_recorded(app))
        .collect();
    let mut times: Vec<u64> = ok.iter().map(|r| r.app_ms).collect();
    times.sort_unstable();
    let n = outcomes.len().max(1) as f64;
    let core_hours = runs.iter().map(|r| r.record.executor_core_ms).sum::<f64>() / HOUR_MS / n;
    let executor_hours = seeds.iter().map(|s| s.executor_hours).sum::<f64>() / n;
    let gb_hours = runs
        .iter()
        .map(|r| {
            r.record.executor_core_ms / r.executor_cores.max(1) as f64
                * r.container_memory_mb as f64
                / 1024.0
        })
        .sum::<f64>()
        / HOUR_MS
        / n;
    let utilization = runs
        .iter()
        .map(|r| analysis::ratio(r.record.busy_core_ms, r.record.executor_core_ms))
        .sum::<f64>()
        / n;
    let p90 = quantile(&times, 0.9);
    let (executor_instances, executor_cores) = runs
        .first()
        .map_or((None, 1), |r| (r.executor_instances, r.executor_cores));
    ConfigRow {
        values,
        refused: None,
        runs: outcomes.len() as u64,
        failed_runs: seeds.iter().filter(|s| !s.succeeded).count() as u64,
        failure: seeds.iter().find_map(|s| s.failure.clone()),
        p10_ms: quantile(&times, 0.1),
        p50_ms: quantile(&times, 0.5),
        p90_ms: p90,
        max_ms: times.last().copied(),
        band: accuracy::band(basis, &ok),
        executor_hours,
        core_hours,
        gb_hours,
        cost: core_hours * w.price_core_hour + gb_hours * w.price_gb_hour,
        utilization,
        executors_peak: seeds.iter().map(|s| s.executors_peak).max(),
        executors_mean: seeds.iter().map(|s| s.executors_mean).sum::<f64>() / n,
        sparklens_ms: analysis::sparklens_estimate_ms(
            app,
            executor_instances.unwrap_or(2),
            executor_cores,
        ),
        meets_target: w.target_p90_ms.map(|t| p90.is_some_and(|p| p <= t)),
        cheapest_meeting_target: false,
        seeds,
    }
}

/// Marks the configuration meeting the target with the lowest cost (then the lowest
/// executor-hours, then the first in grid order).
fn mark_cheapest(rows: &mut [ConfigRow], target: Option<u64>) {
    if target.is_none() {
        return;
    }
    let best = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.meets_target == Some(true) && r.failed_runs == 0)
        .min_by(|(i, a), (j, b)| {
            a.cost
                .total_cmp(&b.cost)
                .then(a.executor_hours.total_cmp(&b.executor_hours))
                .then(i.cmp(j))
        })
        .map(|(i, _)| i);
    if let Some(i) = best {
        rows[i].cheapest_meeting_target = true;
    }
}

fn secs(ms: u64) -> String {
    format!("{:.2}", ms as f64 / 1000.0)
}

fn opt_secs(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".into(), secs)
}

/// The table `sparkyard what-if` prints: one numbered row per configuration (the number
/// `--explain` takes), then why each failed row failed and what the band covers.
pub fn text(t: &WhatIfTable) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "what-if of {} (recorded {} s), seeds {}..{}",
        t.log,
        secs(t.recorded_ms),
        t.seeds.0,
        t.seeds.1
    );
    let mut head: Vec<String> = vec!["row".into()];
    head.extend(t.keys.iter().cloned());
    for h in [
        "p10 s",
        "p50 s",
        "p90 s",
        "max s",
        "band p10-p90 s",
        "exec peak",
        "exec mean",
        "exec-h",
        "core-h",
        "GB-h",
        "cost",
        "util",
        "failed",
        "sparklens s",
        "",
    ] {
        head.push(h.into());
    }
    let widths: Vec<usize> = head
        .iter()
        .enumerate()
        .map(|(i, h)| if i == 0 { 3 } else { h.len().max(9) })
        .collect();
    let line = |o: &mut String, cells: &[String]| {
        let s: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        let _ = writeln!(o, "{}", s.join(" ").trim_end());
    };
    line(&mut o, &head);
    for (i, r) in t.rows.iter().enumerate() {
        let mut cells = vec![(i + 1).to_string()];
        cells.extend(r.values.iter().cloned());
        if r.refused.is_some() {
            cells.push("refused (below)".into());
            line(&mut o, &cells);
            continue;
        }
        cells.extend([
            opt_secs(r.p10_ms),
            opt_secs(r.p50_ms),
            opt_secs(r.p90_ms),
            opt_secs(r.max_ms),
            r.band.map_or_else(
                || "-".into(),
                |b| format!("{}-{}", secs(b.p10_ms), secs(b.p90_ms)),
            ),
            r.executors_peak
                .map_or_else(|| "-".into(), |n| n.to_string()),
            format!("{:.1}", r.executors_mean),
            format!("{:.4}", r.executor_hours),
            format!("{:.4}", r.core_hours),
            format!("{:.4}", r.gb_hours),
            format!("{:.4}", r.cost),
            format!("{:.1}%", 100.0 * r.utilization),
            format!("{}/{}", r.failed_runs, r.runs),
            secs(r.sparklens_ms),
            if r.cheapest_meeting_target {
                "<- cheapest meeting target".into()
            } else {
                String::new()
            },
        ]);
        line(&mut o, &cells);
    }
    failures(&mut o, t);
    match (
        t.target_p90_ms,
        t.rows.iter().any(|r| r.cheapest_meeting_target),
    ) {
        (Some(ms), false) => {
            let _ = writeln!(o, "no configuration meets p90 <= {} s", secs(ms));
        }
        (Some(ms), true) => {
            let _ = writeln!(o, "target: p90 <= {} s", secs(ms));
        }
        _ => {}
    }
    let _ = writeln!(o, "{}", t.band_covers);
    o
}

/// Under the table: each refused configuration and each row with failed runs, with the reason.
fn failures(o: &mut String, t: &WhatIfTable) {
    for (i, r) in t.rows.iter().enumerate() {
        if let Some(why) = &r.refused {
            let _ = writeln!(o, "row {}: refused: {why}", i + 1);
        } else if let Some(why) = r.failure.as_deref().filter(|_| r.failed_runs > 0) {
            let _ = writeln!(
                o,
                "row {}: {} of {} runs failed (`--explain {}` for each): {why}",
                i + 1,
                r.failed_runs,
                r.runs,
                i + 1
            );
        }
    }
}

/// The table as JSON (every row with its seeds' runs).
pub fn json(t: &WhatIfTable) -> String {
    serde_json::to_string_pretty(t).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The row `--explain ROW` names (1-based, as the table numbers them).
pub fn explained_row(t: &WhatIfTable, row: usize) -> Result<&ConfigRow, UserError> {
    row.checked_sub(1)
        .and_then(|i| t.rows.get(i))
        .ok_or_else(|| {
            usage_error(format!(
                "--explain {row}: the table has rows 1 to {}",
                t.rows.len()
            ))
        })
}

/// What a fired fault acted on, in words (the explanation's and the replay report's).
/// What a fired fault acted on, or why it could not act.
pub fn fired_text(f: &FiredFault) -> String {
    match &f.no_effect {
        Some(why) => format!("nothing ({why})"),
        None => target_text(&f.target),
    }
}

pub fn target_text(t: &FaultTarget) -> String {
    match t {
        FaultTarget::Container(c) => format!("container {c}"),
        FaultTarget::Node(h) => format!("node {h}"),
        FaultTarget::Network(Some(c)) => format!("network rules (from container {c})"),
        FaultTarget::Network(None) => "network rules".into(),
        FaultTarget::Nothing => "nothing to act on".into(),
    }
}

fn signed_secs(ms: i64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

/// `--explain ROW`: per seed, slowest first (the seeds behind the p90 at the top): the end
/// time, the outcome, the faults fired with their times and targets, executors over time and
/// the critical path. Times are seconds since the seed's SparkContext started.
pub fn explain(t: &WhatIfTable, row: usize) -> Result<String, UserError> {
    let r = explained_row(t, row)?;
    let mut o = String::new();
    let config = t
        .keys
        .iter()
        .zip(&r.values)
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(o, "\nrow {row} ({config}):");
    if let Some(why) = &r.refused {
        let _ = writeln!(o, "  refused: {why}");
        return Ok(o);
    }
    let _ = writeln!(
        o,
        "  {} runs, {} failed; p50 {} s, p90 {} s; times are s since the seed's SparkContext started",
        r.runs,
        r.failed_runs,
        opt_secs(r.p50_ms),
        opt_secs(r.p90_ms)
    );
    let mut order: Vec<&SeedRun> = r.seeds.iter().collect();
    order.sort_by_key(|s| (s.succeeded, std::cmp::Reverse(s.app_ms), s.seed));
    for s in order {
        explain_seed(&mut o, s, r.p90_ms);
    }
    Ok(o)
}

fn explain_seed(o: &mut String, s: &SeedRun, p90: Option<u64>) {
    let mark = match p90 {
        Some(p) if s.succeeded && s.app_ms >= p => " (at or above the p90)",
        _ => "",
    };
    let _ = writeln!(
        o,
        "seed {}: {} s, {}{mark}",
        s.seed,
        secs(s.app_ms),
        s.final_state
    );
    if let Some(why) = &s.failure {
        let _ = writeln!(o, "  failed: {why}");
    }
    let zero = s.context_started_ms as i64;
    if s.faults_fired.is_empty() {
        let _ = writeln!(o, "  faults fired: none");
    }
    for label in &s.faults_unfired {
        let _ = writeln!(
            o,
            "  fault never fired (its trigger did not happen): {label}"
        );
    }
    for f in &s.faults_fired {
        let _ = writeln!(
            o,
            "  fault at {} s ({} s after the cluster started): {} -> {}",
            signed_secs(f.at_ms as i64 - zero),
            signed_secs(f.at_ms as i64),
            f.label,
            fired_text(f)
        );
    }
    let curve = |points: &[ExecutorsAt]| {
        if points.is_empty() {
            return "-".to_string();
        }
        points
            .iter()
            .map(|p| format!("{:.1}s:{}", p.at_ms as f64 / 1000.0, p.executors))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        o,
        "  executors: peak {}, mean {:.1}, {:.4} executor-hours; running {}; requested {}",
        s.executors_peak,
        s.executors_mean,
        s.executor_hours,
        curve(&s.executors_running),
        curve(&s.executors_requested)
    );
    let path: Vec<String> = s
        .critical_path
        .iter()
        .map(|p| match p {
            PathStep::StartUp { ms } => format!("start-up {}", secs(*ms)),
            PathStep::Driver { ms } => format!("driver {}", secs(*ms)),
            PathStep::Job {
                job_id,
                ms,
                stage_chain_ms,
                stage_chain,
            } => {
                let id = job_id.map_or_else(|| "?".into(), |j| j.to_string());
                let ids: Vec<String> = stage_chain.iter().map(u32::to_string).collect();
                match stage_chain_ms {
                    Some(c) => format!(
                        "job {id} {} (stage chain {}: stage {})",
                        secs(*ms),
                        secs(*c),
                        ids.join(" -> ")
                    ),
                    None => format!("job {id} {}", secs(*ms)),
                }
            }
        })
        .collect();
    let total: u64 = s.critical_path.iter().map(PathStep::ms).sum();
    let _ = writeln!(
        o,
        "  critical path: {} = {} s; run ended at {} s",
        path.join(", "),
        secs(total),
        signed_secs(s.end_ms as i64 - zero)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_parse_and_combine_first_key_slowest() {
        let g = parse_grid(&[
            "spark.executor.instances=1,2".into(),
            "--executor-cores=1,4".into(),
        ])
        .expect("parses");
        assert_eq!(g[1].name, "executor-cores");
        let c = combinations(&g);
        assert_eq!(c.len(), 4);
        assert_eq!(c[1], vec!["1".to_string(), "4".to_string()]);
        assert!(parse_grid(&["foo=1".into()]).is_err());
        assert!(parse_grid(&["spark.executor.cores=1,,2".into()]).is_err());
        assert!(parse_grid(&[]).is_err());
    }

    #[test]
    fn a_jobs_stage_chain_is_its_critical_path_with_the_stages_on_it() {
        let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/eventlogs/skew_n2_r1.zstd");
        let app = model::load(&log).expect("reads");
        let chains = job_chains(&app);
        let jobs: Vec<&model::Job> = app
            .jobs
            .iter()
            .filter(|j| j.stages.iter().any(|s| !s.tasks.is_empty()))
            .collect();
        assert_eq!(chains.len(), jobs.len());
        for (c, j) in chains.iter().zip(jobs) {
            assert_eq!(c.ms, analysis::critical_path_ms(j), "job {}", j.job_id);
            // The chain's stages, each a parent of the next, add up to its length.
            let stage = |id: u32| j.stages.iter().find(|s| s.stage_id == id).expect("stage");
            let sum: u64 = c.stages.iter().map(|id| stage(*id).longest_task_ms()).sum();
            assert_eq!(sum, c.ms);
            for w in c.stages.windows(2) {
                assert!(stage(w[1]).parents.contains(&w[0]), "{:?}", c.stages);
            }
        }
        // skew: a map stage feeding the hot reduce stage.
        assert!(chains.iter().any(|c| c.stages.len() == 2), "{chains:?}");
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(
            (quantile(&v, 0.1), quantile(&v, 0.5), quantile(&v, 0.9)),
            (Some(1), Some(5), Some(9))
        );
        assert_eq!(quantile(&[7], 0.9), Some(7));
        assert_eq!(quantile(&[], 0.9), None);
    }

    #[test]
    fn a_target_needs_a_unit_spark_reads() {
        // JavaUtils.timeStringAsMs reads "40" as 40 ms and refuses "40sec" with a
        // NumberFormatException; what-if refuses both in its own words.
        for bad in ["40", "40sec", "", "fast"] {
            let e = parse_target_p90(bad).expect_err(bad).to_string();
            assert!(e.contains("--target-p90") && e.contains("min, h, d"), "{e}");
            assert!(
                !e.contains("NumberFormatException") && !e.contains("--verbose"),
                "{e}"
            );
        }
        assert_eq!(parse_target_p90("40s").expect("40s"), 40_000);
        assert_eq!(parse_target_p90("2min").expect("2min"), 120_000);
        assert_eq!(parse_target_p90("1h").expect("1h"), 3_600_000);
    }

    #[test]
    fn prices_and_seeds_are_refused_in_what_ifs_words() {
        for p in [-1.0, f64::NAN, f64::INFINITY] {
            let e = check_price("--price-core-hour", p)
                .expect_err("bad")
                .to_string();
            assert!(
                e.contains("sparkyard what-if") && e.contains("0 or more"),
                "{e}"
            );
        }
        assert_eq!(check_price("--price-gb-hour", 0.0).expect("0"), 0.0);
        let e = parse_seeds("5..1").expect_err("empty").to_string();
        assert!(
            e.contains("sparkyard what-if") && !e.contains("sweep"),
            "{e}"
        );
        assert!(e.contains("--seeds 5..1"), "{e}");
        assert_eq!(parse_seeds("1..=3").expect("seeds"), 1..4);
    }
}
