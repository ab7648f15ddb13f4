//! `sparkyard what-if-cluster`'s table: one numbered row per configuration (its cluster's
//! size, the day's length p10/p50/p90, failed seeds, deadline misses, the cheapest meeting
//! every deadline marked), then per queue and per application their p50/p90 under each row,
//! then why refused or failed rows are so. The plot (`--plot`) is `plot`'s, of the day's length.

use super::cluster_whatif::{DayConfigRow, DayWhatIfTable};
use super::plot::{Plot, PlotRow};
use std::fmt::Write as _;

fn secs(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

fn opt_secs(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".into(), secs)
}

/// `p50/p90` in seconds.
fn pair(p50: Option<u64>, p90: Option<u64>) -> String {
    format!("{}/{}", opt_secs(p50), opt_secs(p90))
}

/// Right-aligned cells, each column as wide as its widest cell, trailing blanks trimmed.
fn columns(o: &mut String, rows: &[Vec<String>]) {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(s, w)| {
                if s.starts_with("<-") || s.starts_with("refused") {
                    s.clone() // a mark, not a figure: as it is
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        let _ = writeln!(o, "{}", cells.join("  ").trim_end());
    }
}

/// The table `sparkyard what-if-cluster` prints.
pub fn text(t: &DayWhatIfTable) -> String {
    let mut o = String::new();
    let queues: Vec<&str> = {
        let mut q: Vec<&str> = t.applications.iter().map(|a| a.queue.as_str()).collect();
        q.sort_unstable();
        q.dedup();
        q
    };
    let _ = writeln!(
        o,
        "what-if-cluster: {} application(s) in {} queue(s) on {}, seeds {}..{}",
        t.applications.len(),
        queues.len(),
        t.cluster,
        t.seeds.0,
        t.seeds.1
    );
    configurations(&mut o, t);
    per_queue(&mut o, t);
    per_application(&mut o, t);
    failures(&mut o, t);
    let deadlines = t.applications.iter().any(|a| a.deadline.is_some());
    let cheapest = t.rows.iter().any(|r| r.cheapest_meeting_deadlines);
    let _ = writeln!(o);
    match (deadlines, cheapest) {
        (false, _) => {
            let _ = writeln!(
                o,
                "no --deadline given: no configuration is marked cheapest"
            );
        }
        (true, false) => {
            let _ = writeln!(
                o,
                "no configuration meets every deadline in every seed with no application failed"
            );
        }
        (true, true) => {
            let _ = writeln!(o, "{}", t.cheapest_rule);
        }
    }
    for s in &t.skipped {
        let _ = writeln!(o, "skipped {}: {}", s.path, s.error);
    }
    o
}

fn configurations(o: &mut String, t: &DayWhatIfTable) {
    let mut head: Vec<String> = vec!["row".into()];
    head.extend(t.keys.iter().cloned());
    for h in [
        "NMs",
        "memory MiB",
        "vcores",
        "day p10 s",
        "day p50 s",
        "day p90 s",
        "failed",
        "missed",
    ] {
        head.push(h.into());
    }
    let mut rows = vec![head];
    for (i, r) in t.rows.iter().enumerate() {
        let mut cells = vec![(i + 1).to_string()];
        cells.extend(r.values.iter().cloned());
        if r.refused.is_some() {
            cells.push("refused (below)".into());
            rows.push(cells);
            continue;
        }
        cells.extend([
            r.nodes.to_string(),
            r.memory_mb.to_string(),
            r.vcores.to_string(),
            opt_secs(r.day_p10_ms),
            opt_secs(r.day_p50_ms),
            opt_secs(r.day_p90_ms),
            format!("{}/{}", r.failed_runs, r.runs),
            r.deadline_misses.to_string(),
        ]);
        if r.cheapest_meeting_deadlines {
            cells.push("<- cheapest meeting every deadline".into());
        }
        rows.push(cells);
    }
    let _ = writeln!(o);
    columns(o, &rows);
    let _ = writeln!(
        o,
        "(day: the last application's end after the first submission; failed: seeds with an application that did not succeed; missed: deadline misses over every application and seed)"
    );
}

fn ran(t: &DayWhatIfTable) -> impl Iterator<Item = (usize, &DayConfigRow)> {
    t.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.refused.is_none())
        .map(|(i, r)| (i + 1, r))
}

fn per_queue(o: &mut String, t: &DayWhatIfTable) {
    let _ = writeln!(
        o,
        "\nper queue: its applications' simulated time, p50/p90 s; when its last one ended, p50/p90 s after the first submission"
    );
    let mut rows = vec![vec![
        "row".to_string(),
        "queue".into(),
        "capacity".into(),
        "apps p50/p90".into(),
        "done p50/p90".into(),
        "peak held p90 MiB".into(),
    ]];
    for (n, r) in ran(t) {
        for q in &r.queues {
            rows.push(vec![
                n.to_string(),
                q.name.clone(),
                format!("{:.1}%", q.capacity_percent),
                pair(q.app_p50_ms, q.app_p90_ms),
                pair(q.done_p50_ms, q.done_p90_ms),
                q.peak_used_p90_mb
                    .map_or_else(|| "-".into(), |m| m.to_string()),
            ]);
        }
    }
    columns(o, &rows);
}

fn per_application(o: &mut String, t: &DayWhatIfTable) {
    let _ = writeln!(
        o,
        "\nper application: simulated time p50/p90 s under each row (`!N`: missed its deadline in N seeds; `xN`: failed in N)"
    );
    let mut head = vec![
        "#".to_string(),
        "application".into(),
        "queue".into(),
        "deadline".into(),
    ];
    head.extend(ran(t).map(|(n, _)| format!("row {n}")));
    let mut rows = vec![head];
    for (i, a) in t.applications.iter().enumerate() {
        let mut cells = vec![
            (i + 1).to_string(),
            a.name.clone(),
            a.queue.clone(),
            a.deadline
                .as_deref()
                .and_then(|d| d.rsplit_once('=').map(|(_, w)| w.to_string()))
                .unwrap_or_else(|| "-".into()),
        ];
        for (_, r) in ran(t) {
            let Some(s) = r.applications.get(i) else {
                cells.push("-".into());
                continue;
            };
            let mut cell = pair(s.p50_ms, s.p90_ms);
            if s.deadline_misses > 0 {
                let _ = write!(cell, " !{}", s.deadline_misses);
            }
            if s.failed_runs > 0 {
                let _ = write!(cell, " x{}", s.failed_runs);
            }
            cells.push(cell);
        }
        rows.push(cells);
    }
    columns(o, &rows);
    let _ = writeln!(o, "(logs, in that order:)");
    for (i, a) in t.applications.iter().enumerate() {
        let _ = writeln!(o, "{:<3} {}", i + 1, a.path);
    }
}

/// Each refused configuration and each with failed seeds, with the reason.
fn failures(o: &mut String, t: &DayWhatIfTable) {
    for (i, r) in t.rows.iter().enumerate() {
        if let Some(why) = &r.refused {
            let _ = writeln!(o, "row {}: refused: {why}", i + 1);
        } else if let Some(why) = r.failure.as_deref().filter(|_| r.failed_runs > 0) {
            let _ = writeln!(
                o,
                "row {}: {} of {} seeds had an application that did not succeed (--json has each seed's): {why}",
                i + 1,
                r.failed_runs,
                r.runs
            );
        }
    }
}

/// The plot's data: the day's length p10/p50/p90 against the first key.
pub fn plot(t: &DayWhatIfTable) -> Plot {
    Plot {
        title: format!(
            "what-if-cluster: {} application(s), seeds {}..{}",
            t.applications.len(),
            t.seeds.0,
            t.seeds.1
        ),
        y_desc: "day's length, s (p10 / p50 / p90 over the seeds, shaded between)".into(),
        keys: t.keys.clone(),
        rows: t
            .rows
            .iter()
            .map(|r| PlotRow {
                values: r.values.clone(),
                p10_ms: r.day_p10_ms,
                p50_ms: r.day_p50_ms,
                p90_ms: r.day_p90_ms,
                band_ms: None,
            })
            .collect(),
    }
}
