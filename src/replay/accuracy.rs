//! How far a replay's or what-if's time can be trusted: a p10-p90 band around the simulated
//! time from three things the log itself shows — the replay's own-configuration error on it
//! (the log replayed under its own resources, against its recorded application time), the
//! spread of its task times (each task against its stage's median) and the spread of its
//! executors' start-ups. No Spark class has this; Sparklens and FauxSpark give a single number.

use super::analysis::union_ms;
use super::model::Application;
use super::simulate::{self, ReplaySetup, SimOutcome};
use crate::conf::submit::SubmitArgs;
use crate::error::UserError;
use serde::Serialize;

/// Stages with fewer successful tasks than this give no task-time spread (no median to speak of).
const MIN_STAGE_TASKS: usize = 3;

/// What every band of one log is made of, measured once.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BandBasis {
    /// The replay's own-configuration error on this log, (simulated - recorded) / recorded;
    /// `None` when the log could not be replayed under its own configuration.
    pub own_config_error: Option<f64>,
    /// The log's 10th / 90th percentile task time against its stage's median (each executor's
    /// first task, its warm-up, left out); 1.0 when the log has no stage of 3 or more tasks.
    pub task_factor_p10: f64,
    pub task_factor_p90: f64,
    /// The log's 10th / 90th percentile executor start-up (ApplicationStart to ExecutorAdded)
    /// minus its median, ms (0 with fewer than two executors).
    pub startup_p10_ms: i64,
    pub startup_p90_ms: i64,
}

/// A p10-p90 band of the application time, ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Band {
    pub p10_ms: u64,
    pub p90_ms: u64,
}

impl Band {
    pub fn contains(&self, ms: u64) -> bool {
        (self.p10_ms..=self.p90_ms).contains(&ms)
    }
}

/// A replay's band, what it is made of, and what it covers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayAccuracy {
    /// `None` when the simulated run did not go as far as the recording (it failed where the
    /// recorded attempt did not).
    pub band: Option<Band>,
    pub basis: BandBasis,
    pub covers: String,
}

/// The band of one replay (`sim` under `setup`); the replay is its own own-configuration run
/// when `setup` leaves the log's configuration as it is.
pub fn of_replay(
    app: &Application,
    setup: &ReplaySetup,
    sim: &SimOutcome,
) -> Result<ReplayAccuracy, UserError> {
    let own = is_own_config(setup)?.then_some(sim);
    let basis = basis(app, &setup.submit, own)?;
    let runs: Vec<&SimOutcome> = [sim]
        .into_iter()
        .filter(|s| s.ran_as_recorded(app))
        .collect();
    Ok(ReplayAccuracy {
        band: band(&basis, &runs),
        covers: covers(&basis),
        basis,
    })
}

/// What a band covers, printed under every table that has one.
pub fn covers(b: &BandBasis) -> String {
    let own = b.own_config_error.map_or_else(
        || "the own-configuration error (not measured: the log did not replay under its own configuration)".to_string(),
        |e| format!("the replay's own-configuration error on this log ({:+.1} %)", 100.0 * e),
    );
    format!(
        "band p10-p90: the simulated time (over the seeds), widened by every task running as fast / as slow as the log's 10th / 90th percentile task against its stage's median (x{:.2} / x{:.2}), the executors starting as early / as late as the log's 10th / 90th percentile start-up ({:+.1} s / {:+.1} s), and {own}. It does not cover a cluster that behaves unlike the recording's (contention that changes with the number of executors, other tenants, data that changed): see the README's accuracy per kind of what-if.",
        b.task_factor_p10,
        b.task_factor_p90,
        b.startup_p10_ms as f64 / 1000.0,
        b.startup_p90_ms as f64 / 1000.0,
    )
}

/// The basis of `app`'s bands, replaying it under its own configuration (seed `seed`, the
/// user's `--cluster`, no scenario) unless `own` is that replay already.
pub fn basis(
    app: &Application,
    user: &SubmitArgs,
    own: Option<&SimOutcome>,
) -> Result<BandBasis, UserError> {
    let measured;
    let own = match own {
        Some(o) => Some(o),
        None => {
            measured = own_config_run(app, user)?;
            measured.as_ref()
        }
    };
    let recorded = app.duration_ms();
    let own_config_error = own
        .filter(|o| o.ran_as_recorded(app) && recorded > 0)
        .map(|o| (o.app_ms as f64 - recorded as f64) / recorded as f64);
    let (task_factor_p10, task_factor_p90) = task_factors(app);
    let (startup_p10_ms, startup_p90_ms) = startup_spread(app);
    Ok(BandBasis {
        own_config_error,
        task_factor_p10,
        task_factor_p90,
        startup_p10_ms,
        startup_p90_ms,
    })
}

/// The log replayed under its own configuration: the user's `--cluster` and `--seed` kept,
/// every Spark option and the scenario dropped (`None` when that configuration cannot run,
/// e.g. its executors do not fit the cluster).
fn own_config_run(app: &Application, user: &SubmitArgs) -> Result<Option<SimOutcome>, UserError> {
    let mut submit = simulate::user_submit_args::<&str>(&[])?;
    submit.sim.cluster = user.sim.cluster.clone();
    submit.sim.seed = user.sim.seed;
    let setup = ReplaySetup {
        submit,
        scenario: None,
    };
    let Ok(prepared) = simulate::prepare(app, &setup) else {
        return Ok(None);
    };
    let seed = prepared.args.sim.seed;
    Ok(simulate::run(&prepared, seed).ok())
}

/// Whether `user`'s options leave the log's own configuration as it is (no Spark option, no
/// scenario): then a replay is its own own-configuration run.
pub fn is_own_config(setup: &ReplaySetup) -> Result<bool, UserError> {
    if setup.scenario.is_some() {
        return Ok(false);
    }
    let mut own = simulate::user_submit_args::<&str>(&[])?;
    own.sim = setup.submit.sim.clone();
    own.action = setup.submit.action.clone();
    Ok(own == setup.submit)
}

/// The nearest-rank `q`-quantile of sorted values.
fn quantile<T: Copy + Default>(sorted: &[T], q: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The nearest-rank `q`-quantile of unsorted values, in linear time (a million-task log's
/// band costs no sort).
fn select<T: Copy>(v: &mut [T], q: f64, cmp: impl FnMut(&T, &T) -> std::cmp::Ordering) -> T {
    let rank = (q * v.len() as f64).ceil() as usize;
    *v.select_nth_unstable_by(rank.clamp(1, v.len()) - 1, cmp).1
}

/// p10 and p90 of every successful task's duration over its stage's median, each executor's
/// first task left out (its warm-up is the executor's, which the replay models apart), clamped
/// to at most 1 and at least 1 so the band always holds the simulated time.
pub fn task_factors(app: &Application) -> (f64, f64) {
    let mut first: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for t in app.stages().flat_map(|s| s.tasks.iter()) {
        let at = first.entry(t.executor_id).or_insert(t.launch_ms);
        *at = (*at).min(t.launch_ms);
    }
    let mut ratios: Vec<f64> = Vec::new();
    let mut d: Vec<u64> = Vec::new();
    for s in app.stages() {
        d.clear();
        d.extend(
            s.tasks
                .iter()
                .filter(|t| t.succeeded && first.get(&t.executor_id) != Some(&t.launch_ms))
                .map(|t| t.duration_ms),
        );
        if d.len() < MIN_STAGE_TASKS {
            continue;
        }
        let median = select(&mut d, 0.5, u64::cmp);
        if median == 0 {
            continue;
        }
        ratios.extend(d.iter().map(|&x| x as f64 / median as f64));
    }
    if ratios.is_empty() {
        return (1.0, 1.0);
    }
    let p10 = select(&mut ratios, 0.1, f64::total_cmp);
    let p90 = select(&mut ratios, 0.9, f64::total_cmp);
    (p10.min(1.0), p90.max(1.0))
}

/// The log's executor start-ups (ApplicationStart to ExecutorAdded) of the executors there
/// from the start (the first `spark.executor.instances`; with dynamic allocation, those added
/// before the first job was submitted): p10 and p90 minus the median, ms.
pub fn startup_spread(app: &Application) -> (i64, i64) {
    let first_job = app.jobs.iter().map(|j| j.submitted_ms).min();
    let mut offsets: Vec<i64> = app
        .executors
        .iter()
        .filter(|e| !app.config.dynamic_allocation || first_job.is_none_or(|j| e.added_ms <= j))
        .map(|e| e.added_ms.saturating_sub(app.start_ms) as i64)
        .collect();
    offsets.sort_unstable();
    if !app.config.dynamic_allocation {
        let n = app
            .config
            .executor_instances
            .map_or(offsets.len(), |n| n as usize);
        offsets.truncate(n.max(1));
    }
    if offsets.len() < 2 {
        return (0, 0);
    }
    let median = quantile(&offsets, 0.5);
    (
        (quantile(&offsets, 0.1) - median).min(0),
        (quantile(&offsets, 0.9) - median).max(0),
    )
}

/// The time the run's jobs took (the union of their spans), ms: the part that task times scale.
pub fn jobs_ms(o: &SimOutcome) -> u64 {
    union_ms(
        o.record
            .jobs
            .iter()
            .map(|j| (j.started_ms, j.ended_ms.unwrap_or(j.started_ms)))
            .collect(),
    )
}

/// The band over a configuration's successful runs: per run, its time with every task scaled
/// by the log's p10 (p90) factor and the start-up moved by its p10 (p90) spread; the p10 of the
/// low ends and the p90 of the high ends, then moved by the own-configuration error towards
/// what the recorded runs would have been (`simulated / (1 + error)`). `None` without a
/// successful run.
pub fn band(b: &BandBasis, runs: &[&SimOutcome]) -> Option<Band> {
    let ends = |factor: f64, shift: i64| -> Vec<u64> {
        let mut v: Vec<u64> = runs
            .iter()
            .map(|o| {
                let t = o.app_ms as f64 + (factor - 1.0) * jobs_ms(o) as f64 + shift as f64;
                t.max(0.0).round() as u64
            })
            .collect();
        v.sort_unstable();
        v
    };
    if runs.is_empty() {
        return None;
    }
    let lo = quantile(&ends(b.task_factor_p10, b.startup_p10_ms), 0.1);
    let hi = quantile(&ends(b.task_factor_p90, b.startup_p90_ms), 0.9);
    let corrected = |ms: u64| match b.own_config_error {
        Some(e) if e > -1.0 => (ms as f64 / (1.0 + e)).round() as u64,
        _ => ms,
    };
    Some(Band {
        p10_ms: lo.min(corrected(lo)),
        p90_ms: hi.max(corrected(hi)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(name: &str) -> Application {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/eventlogs")
            .join(name);
        crate::replay::model::load(&p).expect("reads")
    }

    #[test]
    fn the_spreads_bracket_one_and_zero() {
        let app = log("multijob_n2_r1.zstd");
        let (lo, hi) = task_factors(&app);
        assert!(lo <= 1.0 && hi >= 1.0 && lo > 0.0, "{lo} {hi}");
        let (a, b) = startup_spread(&app);
        assert!(a <= 0 && b >= 0, "{a} {b}");
    }

    #[test]
    fn the_band_holds_the_simulation_and_its_own_config_correction() {
        let app = log("skew_n2_r1.zstd");
        let user = simulate::user_submit_args::<&str>(&[]).expect("no words");
        let own = own_config_run(&app, &user)
            .expect("runs")
            .expect("own config runs");
        let b = BandBasis {
            own_config_error: Some(-0.10),
            task_factor_p10: 0.9,
            task_factor_p90: 1.2,
            startup_p10_ms: -500,
            startup_p90_ms: 1_000,
        };
        let band = band(&b, &[&own]).expect("a run");
        let jobs = jobs_ms(&own) as f64;
        assert!(jobs > 0.0 && jobs <= own.app_ms as f64);
        let hi = own.app_ms as f64 + 0.2 * jobs + 1_000.0;
        assert_eq!(band.p90_ms, (hi.round() / 0.9).round() as u64);
        let lo = own.app_ms as f64 - 0.1 * jobs - 500.0;
        assert_eq!(band.p10_ms, lo.round() as u64);
        assert!(band.contains(own.app_ms));
    }
}
