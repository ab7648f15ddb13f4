//! `sparkyard sweep`: one scenario under many seeds, each seed its own single-threaded
//! simulation (its own paused actix System), spread over worker threads. After each run every
//! invariant is checked; the report lists each violation with the command that reproduces it,
//! in seed order whatever the thread timing.

use crate::error::UserError;
use crate::runner::RunOptions;
use crate::scenario::{self, Scenario};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// `A..B` (B excluded) or `A..=B`.
pub fn parse_seeds(text: &str) -> Result<std::ops::Range<u64>, UserError> {
    let bad = || {
        UserError::usage(format!(
            "--seeds {text}: expected A..B or A..=B, e.g. 1..1001"
        ))
    };
    let (a, b, inclusive) = match text.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => text
            .split_once("..")
            .map(|(a, b)| (a, b, false))
            .ok_or_else(bad)?,
    };
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b: u64 = b.trim().parse().map_err(|_| bad())?;
    let end = if inclusive {
        b.checked_add(1).ok_or_else(bad)?
    } else {
        b
    };
    if end <= a {
        return Err(UserError::usage(format!(
            "--seeds {text}: the range is empty"
        )));
    }
    Ok(a..end)
}

/// What one seed left: its outcome and every broken invariant.
pub struct SeedReport {
    pub outcome: String,
    pub violations: Vec<String>,
}

/// Runs every seed of `seeds` on `jobs` threads; reports by seed.
pub fn sweep(
    s: &Scenario,
    seeds: std::ops::Range<u64>,
    jobs: usize,
) -> Result<BTreeMap<u64, SeedReport>, UserError> {
    let n = seeds.end - seeds.start;
    let reports = parallel_indexed(n, jobs, |i| run_seed(s, seeds.start + i))?;
    Ok(seeds.zip(reports).collect())
}

/// Runs `run(i)` for every `i` in `0..n` on `jobs` worker threads, each run its own
/// single-threaded simulation; the results come back in index order whatever the thread timing
/// (so the report is the same bytes for any `jobs`). A worker stops at its first error; the
/// error of the lowest index is returned. `sweep` and `sparkyard what-if` run through it.
pub fn parallel_indexed<R: Send>(
    n: u64,
    jobs: usize,
    run: impl Fn(u64) -> Result<R, UserError> + Sync,
) -> Result<Vec<R>, UserError> {
    let next = AtomicU64::new(0);
    let results = Mutex::new(BTreeMap::new());
    let errors = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    match run(i) {
                        Ok(r) => {
                            results
                                .lock()
                                .expect("no panics while holding the lock")
                                .insert(i, r);
                        }
                        Err(e) => {
                            errors
                                .lock()
                                .expect("no panics while holding the lock")
                                .insert(i, e);
                            break;
                        }
                    }
                }
            });
        }
    });
    let errors = errors.into_inner().expect("threads joined");
    if let Some((_, e)) = errors.into_iter().next() {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .expect("threads joined")
        .into_values()
        .collect())
}

fn run_seed(s: &Scenario, seed: u64) -> Result<SeedReport, UserError> {
    let opts = RunOptions {
        capture_logs: false,
        trace: false,
        ..RunOptions::default()
    };
    let run = scenario::run(s, Some(seed), opts)?;
    let o = &run.result.outcome;
    let outcome = match (o.state, o.final_status) {
        (Some(state), Some(fs)) => format!("{state}/{fs}"),
        _ => "NOT-SUBMITTED".to_string(),
    };
    let violations = run
        .result
        .violations
        .iter()
        .map(|v| format!("{}: {}", v.invariant, v.detail))
        .collect();
    Ok(SeedReport {
        outcome,
        violations,
    })
}

/// The sweep's report: violations with their reproduction commands, then outcome counts.
pub fn report(file: &str, reports: &BTreeMap<u64, SeedReport>) -> (String, usize) {
    let mut out = String::new();
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    let mut broken = 0;
    for (seed, r) in reports {
        *outcomes.entry(r.outcome.as_str()).or_default() += 1;
        for v in &r.violations {
            broken += 1;
            out.push_str(&format!(
                "seed {seed}: invariant {v}\n  reproduce: sparkyard run {file} --seed {seed}\n"
            ));
        }
    }
    let counts: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    out.push_str(&format!(
        "sweep: {} seeds, {broken} invariant violation(s); outcomes: {}\n",
        reports.len(),
        counts.join(", ")
    ));
    (out, broken)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_parse_like_rust_ranges() {
        assert_eq!(parse_seeds("1..4").expect("ok"), 1..4);
        assert_eq!(parse_seeds("1..=4").expect("ok"), 1..5);
        assert!(parse_seeds("4..4").is_err());
        assert!(parse_seeds("x..4").is_err());
        assert!(parse_seeds("5").is_err());
        assert!(parse_seeds("1..=18446744073709551615").is_err());
    }
}
