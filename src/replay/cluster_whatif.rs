//! `sparkyard what-if-cluster`: a day of event logs (`replay-cluster`'s) for every
//! configuration of a grid (`cluster_grid`: cluster keys, queue fields, Spark keys for every
//! or for matching applications) under every seed (a scenario's `[chaos]` faults drawn per
//! seed), on worker threads (`sweep::parallel_indexed`). Per configuration: the day's length,
//! each application's and each queue's p50/p90 of simulated time, deadline misses, and the
//! cheapest configuration meeting every deadline. What Hadoop's Scheduler Load Simulator
//! (`SLSRunner`) answers one configuration at a time, with Spark's own scheduling in each
//! application.

use super::cluster::{self, Day, DayContext, DaySetup, day_offset_ms, day_run, run_day};
use super::cluster_grid::{self, DayGridKey};
use super::simulate::{FiredFault, Prepared};
use super::whatif::{quantile, reason};
use crate::conf::cluster::ClusterConfig;
use crate::error::UserError;
use serde::Serialize;
use sparkyard_actors::simulation::faults::FaultController;
use std::path::PathBuf;

/// What to run.
pub struct DayWhatIf {
    pub grid: Vec<DayGridKey>,
    pub seeds: std::ops::Range<u64>,
    /// Simulations (and start-up calibrations) run at once.
    pub jobs: usize,
}

/// The rule that picks the cheapest configuration, as the table and the JSON state it.
pub const CHEAPEST_RULE: &str = "cheapest: of the configurations where, in every seed, every application with a --deadline ended by it and no application failed, the one with the least NodeManager memory in total (nodes x yarn.nodemanager.resource.memory-mb), then the fewest vcores in total, then the first in grid order";

/// One application in one seed.
#[derive(Clone, Debug, Serialize)]
pub struct AppSeed {
    /// Its time as its event log would show it (SparkContext start to stop).
    pub simulated_ms: u64,
    /// When its spark-submit returned, ms after the day's first submission.
    pub ended_ms: u64,
    /// Time ACCEPTED (submitted to the RM until its AM container was allocated).
    pub accepted_ms: Option<u64>,
    pub succeeded: bool,
    /// Whether it ended by its `--deadline` (`None`: it has none).
    pub deadline_met: Option<bool>,
}

/// One seed's day under one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct DaySeed {
    pub seed: u64,
    /// Why the day could not run at all in this seed (its applications are then empty).
    pub error: Option<String>,
    /// When the last application ended, ms after the first was submitted.
    pub day_ms: u64,
    /// In the day's submission order.
    pub applications: Vec<AppSeed>,
    /// Each queue's most memory held at once, MiB, in the cluster's queue order.
    pub queue_peak_used_mb: Vec<u64>,
    pub faults_fired: Vec<FiredFault>,
    pub violations: Vec<String>,
}

/// One application over the seeds of one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct AppStats {
    /// Simulated time over the seeds it succeeded in (nearest rank; `None`: it never did).
    pub p50_ms: Option<u64>,
    pub p90_ms: Option<u64>,
    /// Seeds in which it did not succeed.
    pub failed_runs: u64,
    /// Seeds in which it missed its deadline.
    pub deadline_misses: u64,
}

/// One queue over the seeds of one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct QueueStats {
    pub name: String,
    /// Its `capacity` in this configuration, percent.
    pub capacity_percent: f64,
    /// Its guaranteed memory in this configuration, MiB.
    pub guaranteed_mb: u64,
    /// Its applications' simulated times, pooled over the seeds (succeeded runs).
    pub app_p50_ms: Option<u64>,
    pub app_p90_ms: Option<u64>,
    /// When its last application ended, ms after the day's first submission, over the seeds.
    pub done_p50_ms: Option<u64>,
    pub done_p90_ms: Option<u64>,
    /// The p90 over the seeds of the most memory it held at once, MiB.
    pub peak_used_p90_mb: Option<u64>,
}

/// One configuration's results over every seed.
#[derive(Clone, Debug, Serialize)]
pub struct DayConfigRow {
    pub values: Vec<String>,
    /// Why the configuration could not run at all (with the grid values); its seeds were not run.
    pub refused: Option<String>,
    /// Its cluster: NodeManagers, and their memory and vcores in total.
    pub nodes: usize,
    pub memory_mb: u64,
    pub vcores: u64,
    pub runs: u64,
    /// Seeds in which some application did not succeed (or the day could not run).
    pub failed_runs: u64,
    /// The first such seed's reason.
    pub failure: Option<String>,
    /// Deadline misses, summed over the applications and seeds.
    pub deadline_misses: u64,
    /// The day's length (the last application's end after the first submission) over the seeds.
    pub day_p10_ms: Option<u64>,
    pub day_p50_ms: Option<u64>,
    pub day_p90_ms: Option<u64>,
    /// Every deadline met in every seed with no application failed (`None`: no deadlines).
    pub meets_every_deadline: Option<bool>,
    pub cheapest_meeting_deadlines: bool,
    /// In the day's submission order.
    pub applications: Vec<AppStats>,
    /// In the cluster's queue order.
    pub queues: Vec<QueueStats>,
    /// Every seed's day, in seed order.
    pub seeds: Vec<DaySeed>,
}

/// An application of the day, as the table lists it.
#[derive(Clone, Debug, Serialize)]
pub struct DayApp {
    pub path: String,
    pub name: String,
    pub queue: String,
    /// Its `--deadline`, as given.
    pub deadline: Option<String>,
    /// When its spark-submit starts, ms after the day's first.
    pub submitted_at_ms: u64,
}

/// The what-if's result.
#[derive(Clone, Debug, Serialize)]
pub struct DayWhatIfTable {
    /// Where the cluster came from.
    pub cluster: String,
    pub keys: Vec<String>,
    pub seeds: (u64, u64),
    pub applications: Vec<DayApp>,
    pub cheapest_rule: &'static str,
    pub skipped: Vec<super::cluster_report::SkippedLog>,
    pub rows: Vec<DayConfigRow>,
}

/// `--grid K=V` words of one configuration.
fn config_words(grid: &[DayGridKey], values: &[String]) -> String {
    grid.iter()
        .zip(values)
        .map(|(k, v)| format!("--grid {}={v}", k.key.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One configuration ready to run: its cluster and each application's prepared replay.
struct Ready {
    cluster: ClusterConfig,
    prepared: Vec<Prepared>,
    offsets: Vec<u64>,
}

/// Runs the what-if over the day's logs (`setup`: cluster, scenario, deadlines, queue map,
/// `--conf`; its seed is the one each application's start-up is calibrated under, as
/// `replay-cluster --seed` calibrates).
pub fn run(
    inputs: &[PathBuf],
    setup: &DaySetup,
    w: &DayWhatIf,
) -> Result<DayWhatIfTable, UserError> {
    let paths = cluster::log_paths(inputs)?;
    let day = cluster::plan_day(cluster::read_logs(&paths, setup.skip_bad)?, setup)?;
    cluster_grid::check_against_day(&w.grid, &day.cluster.config, &day.logs)?;
    let configs = cluster_grid::configurations(&w.grid);
    let ready = prepare_all(&day, setup, w, &configs)?;
    if let Some(Err(first)) = ready.first().filter(|_| ready.iter().all(Result::is_err)) {
        let why = refused_without_the_grid(&day, setup, &ready);
        return Err(cluster_grid::usage_error(
            why.unwrap_or_else(|| first.text.clone()),
        ));
    }
    let per = w.seeds.end - w.seeds.start;
    let work: Vec<(usize, u64)> = ready
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_ok())
        .flat_map(|(c, _)| w.seeds.clone().map(move |s| (c, s)))
        .collect();
    let scenario = setup.scenario.as_deref();
    let days = crate::sweep::parallel_indexed(work.len() as u64, w.jobs, |i| {
        let (c, seed) = work[i as usize];
        let Ok(r) = &ready[c] else {
            return Err(UserError::usage("a refused configuration has no runs"));
        };
        Ok(run_seed(&day, r, scenario, seed))
    })?;
    let mut days = days.into_iter();
    let mut rows: Vec<DayConfigRow> = Vec::with_capacity(configs.len());
    for (values, r) in configs.into_iter().zip(&ready) {
        rows.push(match r {
            Err(refusal) => refused_row(values, refusal.text.clone()),
            Ok(r) => {
                let mine: Vec<DaySeed> = days.by_ref().take(per as usize).collect();
                config_row(values, &day, r, mine)
            }
        });
    }
    mark_cheapest(&mut rows);
    Ok(DayWhatIfTable {
        cluster: day.cluster.label.clone(),
        keys: w.grid.iter().map(|k| k.key.name.clone()).collect(),
        seeds: (w.seeds.start, w.seeds.end),
        applications: day_apps(&day),
        cheapest_rule: CHEAPEST_RULE,
        skipped: day.skipped.clone(),
        rows,
    })
}

fn day_apps(day: &Day) -> Vec<DayApp> {
    day.logs
        .iter()
        .map(|d| DayApp {
            path: d.path.clone(),
            name: d.app.app_name.clone(),
            queue: d.queue.clone(),
            deadline: d.deadline.as_ref().map(|x| x.text.clone()),
            submitted_at_ms: day_offset_ms(d, &day.cluster.config, day.first_submit),
        })
        .collect()
}

/// Why one configuration of the day cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Refusal {
    /// What the row and the error say (naming the configuration's grid values).
    text: String,
    /// The first refused application's reason (its log, Spark's or YARN's words), when an
    /// application's submission was refused (not a grid value of a cluster key).
    reason: Option<String>,
}

/// When every configuration is refused for the reason an application is refused under the
/// options they all start from (the logs' configurations and `--conf`, no grid value), that
/// reason, saying it is theirs (as `what-if` does): naming the first grid value instead
/// (`--grid nodes=2: ...` for a bad `--conf spark.executor.memory`) sends the user to the
/// wrong option.
fn refused_without_the_grid(
    day: &Day,
    setup: &DaySetup,
    ready: &[Result<Ready, Refusal>],
) -> Option<String> {
    let why = day.logs.iter().find_map(|d| {
        let submit = cluster::day_submit_args(d, &setup.conf, setup.seed).ok()?;
        let base = cluster::prepare_replay(d, &day.cluster.config, submit);
        base.err().map(|e| reason(&e))
    })?;
    let same = |r: &Result<Ready, Refusal>| {
        r.as_ref()
            .err()
            .is_some_and(|x| x.reason.as_deref() == Some(why.as_str()))
    };
    ready.iter().all(same).then(|| {
        format!(
            "every configuration: {why} (from the options every configuration starts from, \
             not from a --grid value)"
        )
    })
}

/// Every configuration's cluster and its applications' calibrated replays (the start-up
/// calibration runs once per configuration and application, on worker threads), or why the
/// configuration cannot run.
fn prepare_all(
    day: &Day,
    setup: &DaySetup,
    w: &DayWhatIf,
    configs: &[Vec<String>],
) -> Result<Vec<Result<Ready, Refusal>>, UserError> {
    let clusters: Vec<Result<ClusterConfig, String>> = configs
        .iter()
        .map(|values| cluster_grid::apply_cluster(&day.cluster.config, &w.grid, values))
        .collect();
    let apps = day.logs.len();
    let work: Vec<(usize, usize)> = clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_ok())
        .flat_map(|(c, _)| (0..apps).map(move |a| (c, a)))
        .collect();
    let prepared = crate::sweep::parallel_indexed(work.len() as u64, w.jobs, |i| {
        let (c, a) = work[i as usize];
        let d = &day.logs[a];
        let Ok(cluster) = &clusters[c] else {
            return Err(UserError::usage("a refused configuration is not prepared"));
        };
        let base = cluster::day_submit_args(d, &setup.conf, setup.seed)?;
        let submit = cluster_grid::submit_for(&base, &w.grid, &configs[c], &d.app.app_name);
        Ok(cluster::prepare_replay(d, cluster, submit).map_err(|e| reason(&e)))
    })?;
    let mut prepared = prepared.into_iter();
    let ready = configs
        .iter()
        .zip(clusters)
        .map(|(values, c)| {
            let words = config_words(&w.grid, values);
            let cluster = c.map_err(|why| Refusal {
                text: format!("{words}: {why}"),
                reason: None,
            })?;
            let mine: Vec<Result<Prepared, String>> = prepared.by_ref().take(apps).collect();
            let prepared = mine
                .into_iter()
                .collect::<Result<Vec<_>, String>>()
                .map_err(|why| Refusal {
                    text: format!("{words}: {why}"),
                    reason: Some(why),
                })?;
            let offsets = day
                .logs
                .iter()
                .map(|d| day_offset_ms(d, &cluster, day.first_submit))
                .collect();
            Ok(Ready {
                cluster,
                prepared,
                offsets,
            })
        })
        .collect();
    Ok(ready)
}

/// One seed's day under one configuration (an error of the run is the seed's, not the
/// what-if's).
fn run_seed(
    day: &Day,
    r: &Ready,
    scenario: Option<&crate::scenario::Scenario>,
    seed: u64,
) -> DaySeed {
    match try_seed(day, r, scenario, seed) {
        Ok(s) => s,
        Err(e) => DaySeed {
            seed,
            error: Some(reason(&e)),
            day_ms: 0,
            applications: Vec::new(),
            queue_peak_used_mb: Vec::new(),
            faults_fired: Vec::new(),
            violations: Vec::new(),
        },
    }
}

fn try_seed(
    day: &Day,
    r: &Ready,
    scenario: Option<&crate::scenario::Scenario>,
    seed: u64,
) -> Result<DaySeed, UserError> {
    let runs = day
        .logs
        .iter()
        .zip(&r.prepared)
        .zip(&r.offsets)
        .map(|((d, p), at)| day_run(d, p, seed, *at))
        .collect::<Result<Vec<_>, UserError>>()?;
    let (faults, deadline) = match scenario {
        Some(s) => s.fault_plan_for(seed, runs.len())?,
        None => (FaultController::default(), None),
    };
    let ran = run_day(&runs, seed, faults, deadline, false)?;
    let first = runs.iter().map(|x| x.submit_at_ms).min().unwrap_or(0);
    let report = cluster::build(
        &day.logs,
        &runs,
        &ran,
        DayContext {
            cluster: &r.cluster,
            cluster_label: String::new(),
            seed,
            skipped: Vec::new(),
            first_submit_epoch_ms: day.first_submit,
            without_faults: None,
        },
    );
    let applications = report
        .applications
        .iter()
        .zip(&ran.applications)
        .map(|(a, x)| AppSeed {
            simulated_ms: a.simulated_ms,
            ended_ms: x.end_ms.saturating_sub(first),
            accepted_ms: a.accepted_ms,
            succeeded: a.failure.is_none() && a.not_run.is_none(),
            deadline_met: a.deadline.as_ref().map(|d| d.met),
        })
        .collect();
    Ok(DaySeed {
        seed,
        error: None,
        day_ms: report.day_ms,
        applications,
        queue_peak_used_mb: report.queues.iter().map(|q| q.peak_used_mb).collect(),
        faults_fired: report.faults_fired,
        violations: report.violations,
    })
}

fn refused_row(values: Vec<String>, why: String) -> DayConfigRow {
    DayConfigRow {
        values,
        refused: Some(why),
        nodes: 0,
        memory_mb: 0,
        vcores: 0,
        runs: 0,
        failed_runs: 0,
        failure: None,
        deadline_misses: 0,
        day_p10_ms: None,
        day_p50_ms: None,
        day_p90_ms: None,
        meets_every_deadline: None,
        cheapest_meeting_deadlines: false,
        applications: Vec::new(),
        queues: Vec::new(),
        seeds: Vec::new(),
    }
}

/// Sorted, for [`quantile`].
fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// The first reason a seed failed: its run's error, or its first application that failed.
fn seed_failure(day: &Day, s: &DaySeed) -> Option<String> {
    if let Some(e) = &s.error {
        return Some(format!("seed {}: {e}", s.seed));
    }
    let i = s.applications.iter().position(|a| !a.succeeded)?;
    Some(format!(
        "seed {}: {} did not succeed",
        s.seed, day.logs[i].path
    ))
}

fn config_row(values: Vec<String>, day: &Day, r: &Ready, seeds: Vec<DaySeed>) -> DayConfigRow {
    let ran: Vec<&DaySeed> = seeds.iter().filter(|s| s.error.is_none()).collect();
    let failed: Vec<&DaySeed> = seeds
        .iter()
        .filter(|s| s.error.is_some() || s.applications.iter().any(|a| !a.succeeded))
        .collect();
    let applications: Vec<AppStats> = (0..day.logs.len()).map(|i| app_stats(&ran, i)).collect();
    let deadline_misses = applications.iter().map(|a| a.deadline_misses).sum();
    let days = sorted(ran.iter().map(|s| s.day_ms).collect());
    let has_deadlines = day.logs.iter().any(|d| d.deadline.is_some());
    let c = &r.cluster;
    DayConfigRow {
        values,
        refused: None,
        nodes: c.nodes.len(),
        memory_mb: c.nodes.iter().map(|n| n.memory_mb).sum(),
        vcores: c.nodes.iter().map(|n| u64::from(n.vcores)).sum(),
        runs: seeds.len() as u64,
        failed_runs: failed.len() as u64,
        failure: failed.first().and_then(|s| seed_failure(day, s)),
        deadline_misses,
        day_p10_ms: quantile(&days, 0.1),
        day_p50_ms: quantile(&days, 0.5),
        day_p90_ms: quantile(&days, 0.9),
        meets_every_deadline: has_deadlines
            .then_some(!seeds.is_empty() && failed.is_empty() && deadline_misses == 0),
        cheapest_meeting_deadlines: false,
        queues: queue_stats(day, c, &ran),
        applications,
        seeds,
    }
}

fn app_stats(ran: &[&DaySeed], i: usize) -> AppStats {
    let each: Vec<&AppSeed> = ran.iter().filter_map(|s| s.applications.get(i)).collect();
    let times = sorted(
        each.iter()
            .filter(|a| a.succeeded)
            .map(|a| a.simulated_ms)
            .collect(),
    );
    AppStats {
        p50_ms: quantile(&times, 0.5),
        p90_ms: quantile(&times, 0.9),
        failed_runs: each.iter().filter(|a| !a.succeeded).count() as u64,
        deadline_misses: each
            .iter()
            .filter(|a| a.deadline_met == Some(false))
            .count() as u64,
    }
}

fn queue_stats(day: &Day, c: &ClusterConfig, ran: &[&DaySeed]) -> Vec<QueueStats> {
    let memory: u64 = c.nodes.iter().map(|n| n.memory_mb).sum();
    c.yarn
        .queues
        .iter()
        .enumerate()
        .map(|(q, spec)| {
            let members: Vec<usize> = (0..day.logs.len())
                .filter(|&i| day.logs[i].queue == spec.name)
                .collect();
            let apps = sorted(
                ran.iter()
                    .flat_map(|s| {
                        of(s, &members)
                            .filter(|a| a.succeeded)
                            .map(|a| a.simulated_ms)
                    })
                    .collect(),
            );
            let done = sorted(
                ran.iter()
                    .filter_map(|s| of(s, &members).map(|a| a.ended_ms).max())
                    .collect(),
            );
            let peaks = sorted(
                ran.iter()
                    .filter_map(|s| s.queue_peak_used_mb.get(q).copied())
                    .collect(),
            );
            QueueStats {
                name: spec.name.clone(),
                capacity_percent: spec.capacity,
                guaranteed_mb: (memory as f64 * spec.capacity / 100.0) as u64,
                app_p50_ms: quantile(&apps, 0.5),
                app_p90_ms: quantile(&apps, 0.9),
                done_p50_ms: quantile(&done, 0.5),
                done_p90_ms: quantile(&done, 0.9),
                peak_used_p90_mb: quantile(&peaks, 0.9),
            }
        })
        .collect()
}

/// A queue's applications (`members`, by index) in one seed.
fn of<'a>(s: &'a DaySeed, members: &'a [usize]) -> impl Iterator<Item = &'a AppSeed> + 'a {
    members.iter().filter_map(|&i| s.applications.get(i))
}

/// Marks [`CHEAPEST_RULE`]'s configuration.
fn mark_cheapest(rows: &mut [DayConfigRow]) {
    let best = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.meets_every_deadline == Some(true))
        .min_by_key(|(i, r)| (r.memory_mb, r.vcores, *i))
        .map(|(i, _)| i);
    if let Some(i) = best {
        rows[i].cheapest_meeting_deadlines = true;
    }
}

/// The table as JSON (every row with its seeds' days).
pub fn json(t: &DayWhatIfTable) -> String {
    serde_json::to_string_pretty(t).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
