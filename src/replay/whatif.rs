//! `sparkyard what-if`: the replay of one log for every configuration of a grid (Spark
//! properties, spark-submit options and cluster keys) under every seed (a scenario's `[chaos]` faults drawn
//! per seed), on worker threads (`sweep::parallel_indexed`), summarised per configuration:
//! runtime p10/p50/p90/max, executor-hours, cost, utilisation, failed runs, Sparklens'
//! prediction, and the cheapest configuration whose p90 meets a target.

use super::analysis;
use super::cluster_keys;
use super::model::{self, Application};
use super::simulate::{self, Prepared, ReplaySetup, SimOutcome};
use crate::conf::submit::SubmitArgs;
use crate::error::UserError;
use serde::Serialize;
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
        return Err(UserError::usage(
            "what-if needs at least one --grid KEY=V1,V2,... (e.g. --grid spark.executor.instances=2,4,8)",
        ));
    }
    let mut keys: Vec<GridKey> = Vec::new();
    for spec in specs {
        let bad = |why: &str| UserError::usage(format!("--grid {spec}: {why}"));
        let (k, vs) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=V1,V2,..."))?;
        let name = k.trim().trim_start_matches("--").to_string();
        let cluster = cluster_keys::is_cluster_key(&name);
        if !name.starts_with("spark.") && !cluster && !OPTIONS.iter().any(|(o, _)| *o == name) {
            let known: Vec<&str> = OPTIONS.iter().map(|(o, _)| *o).collect();
            return Err(bad(&format!(
                "'{name}' is neither a Spark property (spark.*), one of {} nor a cluster key ({})",
                known.join(", "),
                cluster_keys::KEYS.join(", ")
            )));
        }
        let values: Vec<String> = vs.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad("a value is empty"));
        }
        if name == "spark.eventLog.enabled" && values.iter().any(|v| v.eq_ignore_ascii_case("true"))
        {
            return Err(bad(
                "what-if writes no event logs (every configuration and seed is its own run); `sparkyard replay LOG --conf spark.eventLog.enabled=true` with one configuration's options writes its event log",
            ));
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

/// A duration as Spark reads one (`JavaUtils.timeStringAsMs`: 90s, 30min, 2h; ms without unit).
pub fn parse_duration(text: &str) -> Result<u64, UserError> {
    crate::conf::memory::time_string_as_ms(text)
        .map_err(|e| UserError::usage(format!("--target-p90 {text}: {e}")))
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

/// One configuration's results over every seed.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigRow {
    pub values: Vec<String>,
    pub runs: u64,
    pub failed_runs: u64,
    pub p10_ms: u64,
    pub p50_ms: u64,
    pub p90_ms: u64,
    pub max_ms: u64,
    /// Mean over the seeds.
    pub executor_hours: f64,
    pub core_hours: f64,
    pub gb_hours: f64,
    pub cost: f64,
    pub utilization: f64,
    /// Sparklens' prediction for this configuration's executors x cores.
    pub sparklens_ms: u64,
    pub meets_target: Option<bool>,
    pub cheapest_meeting_target: bool,
}

/// The what-if's result.
#[derive(Clone, Debug, Serialize)]
pub struct WhatIfTable {
    pub log: String,
    pub recorded_ms: u64,
    pub keys: Vec<String>,
    pub seeds: (u64, u64),
    pub target_p90_ms: Option<u64>,
    pub rows: Vec<ConfigRow>,
}

/// Every combination of the grid's values, the first key varying slowest.
fn combinations(grid: &[GridKey]) -> Vec<Vec<String>> {
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

/// The user's options with one configuration applied on top.
fn with_config(base: &SubmitArgs, grid: &[GridKey], values: &[String]) -> SubmitArgs {
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

/// Runs the what-if.
pub fn run(path: &Path, setup: &ReplaySetup, w: &WhatIf) -> Result<WhatIfTable, UserError> {
    let app = model::load(path)?;
    let configs = combinations(&w.grid);
    let prepared: Vec<Prepared> = configs
        .iter()
        .map(|values| {
            let s = ReplaySetup {
                submit: with_config(&setup.submit, &w.grid, values),
                scenario: setup.scenario.clone(),
            };
            simulate::prepare_on(&app, &s, |cluster| {
                for (k, v) in w.grid.iter().zip(values) {
                    if cluster_keys::is_cluster_key(&k.name) {
                        cluster_keys::apply(cluster, &k.name, v)?;
                    }
                }
                Ok(())
            })
        })
        .collect::<Result<_, _>>()?;
    let seeds = w.seeds.clone();
    let per = seeds.end - seeds.start;
    let n = per * configs.len() as u64;
    let outcomes = crate::sweep::parallel_indexed(n, w.jobs, |i| {
        simulate::run(&prepared[(i / per) as usize], seeds.start + i % per)
    })?;
    let mut rows: Vec<ConfigRow> = configs
        .iter()
        .zip(outcomes.chunks(per as usize))
        .map(|(values, runs)| row(values.clone(), runs, &app, w))
        .collect();
    mark_cheapest(&mut rows, w.target_p90_ms);
    Ok(WhatIfTable {
        log: path.display().to_string(),
        recorded_ms: app.duration_ms(),
        keys: w.grid.iter().map(|g| g.name.clone()).collect(),
        seeds: (w.seeds.start, w.seeds.end),
        target_p90_ms: w.target_p90_ms,
        rows,
    })
}

/// The `q`-quantile of sorted values (nearest rank).
fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn row(values: Vec<String>, runs: &[SimOutcome], app: &Application, w: &WhatIf) -> ConfigRow {
    let mut times: Vec<u64> = runs.iter().map(|r| r.app_ms).collect();
    times.sort_unstable();
    let n = runs.len().max(1) as f64;
    let hour = 3_600_000.0;
    let core_hours = runs.iter().map(|r| r.record.executor_core_ms).sum::<f64>() / hour / n;
    let executor_hours = runs
        .iter()
        .map(|r| r.record.executor_core_ms / r.executor_cores.max(1) as f64)
        .sum::<f64>()
        / hour
        / n;
    let gb_hours = runs
        .iter()
        .map(|r| {
            r.record.executor_core_ms / r.executor_cores.max(1) as f64
                * r.container_memory_mb as f64
                / 1024.0
        })
        .sum::<f64>()
        / hour
        / n;
    let utilization = runs
        .iter()
        .map(|r| analysis::ratio(r.record.busy_core_ms, r.record.executor_core_ms))
        .sum::<f64>()
        / n;
    let first = &runs[0];
    let p90 = quantile(&times, 0.9);
    ConfigRow {
        values,
        runs: runs.len() as u64,
        failed_runs: runs.iter().filter(|r| !r.succeeded).count() as u64,
        p10_ms: quantile(&times, 0.1),
        p50_ms: quantile(&times, 0.5),
        p90_ms: p90,
        max_ms: times.last().copied().unwrap_or(0),
        executor_hours,
        core_hours,
        gb_hours,
        cost: core_hours * w.price_core_hour + gb_hours * w.price_gb_hour,
        utilization,
        sparklens_ms: analysis::sparklens_estimate_ms(
            app,
            first.executor_instances.unwrap_or(2),
            first.executor_cores,
        ),
        meets_target: w.target_p90_ms.map(|t| p90 <= t),
        cheapest_meeting_target: false,
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

/// The table `sparkyard what-if` prints.
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
    let mut head: Vec<String> = t.keys.clone();
    for h in [
        "p10 s",
        "p50 s",
        "p90 s",
        "max s",
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
    let widths: Vec<usize> = head.iter().map(|h| h.len().max(9)).collect();
    let line = |o: &mut String, cells: &[String]| {
        let s: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        let _ = writeln!(o, "{}", s.join(" ").trim_end());
    };
    line(&mut o, &head);
    for r in &t.rows {
        let mut cells = r.values.clone();
        cells.extend([
            secs(r.p10_ms),
            secs(r.p50_ms),
            secs(r.p90_ms),
            secs(r.max_ms),
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
    o
}

/// The table as JSON.
pub fn json(t: &WhatIfTable) -> String {
    serde_json::to_string_pretty(t).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
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
        assert!(parse_grid(&["spark.x=1,,2".into()]).is_err());
        assert!(parse_grid(&[]).is_err());
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(
            (quantile(&v, 0.1), quantile(&v, 0.5), quantile(&v, 0.9)),
            (1, 5, 9)
        );
        assert_eq!(quantile(&[7], 0.9), 7);
    }
}
