//! `sparkyard sweep`: one scenario under many seeds, each seed its own single-threaded
//! simulation (its own paused actix System), spread over worker threads. After each run every
//! invariant is checked (and with `--expect`, the scenario's `[expect]` table); the report lists
//! each violation and failed expectation with the command that reproduces it, the seeds of each
//! outcome, and the faults fired by kind, in seed order whatever the thread timing.
//!
//! A sweep can be split: `--shard K/N` runs the K-th of N contiguous parts of the seed range and
//! writes JSON lines (a header, then one line per seed); `sparkyard sweep-merge` reads the N
//! outputs back and prints the report of the whole range, byte for byte the report one unsharded
//! sweep prints (the report is a function of the seeds' records only).

use crate::error::UserError;
use crate::runner::RunOptions;
use crate::scenario::{self, Scenario};
use serde::{Deserialize, Serialize};
use sparkyard_actors::simulation::trace::FaultTarget;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many seeds of each outcome the report names.
const SEEDS_LISTED: usize = 20;

/// `A..B` (B excluded) or `A..=B`.
pub fn parse_seeds(text: &str) -> Result<std::ops::Range<u64>, UserError> {
    parse_seed_range(text).map_err(sweep_error)
}

/// [`parse_seeds`] with the bare reason, for a command to put in its own words (`what-if`).
pub fn parse_seed_range(text: &str) -> Result<std::ops::Range<u64>, String> {
    let bad = || format!("--seeds {text}: expected A..B or A..=B, e.g. 1..1001");
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
        return Err(format!("--seeds {text}: the range is empty"));
    }
    Ok(a..end)
}

/// A sweep usage error, with the hint `sweep` takes (not spark-submit's `--verbose`).
fn sweep_error(message: String) -> UserError {
    UserError::file(
        "sparkyard sweep",
        format!("{message}\n\nRun `sparkyard sweep --help` for usage help"),
    )
}

/// `K/N`: the K-th (1-based) of N parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard, UserError> {
        let bad = || {
            sweep_error(format!(
                "--shard {text}: expected K/N with 1 <= K <= N, e.g. 2/8"
            ))
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// This shard's part of `seeds`: contiguous, the parts of 1/N .. N/N tile the range.
    pub fn part(&self, seeds: &std::ops::Range<u64>) -> std::ops::Range<u64> {
        let len = u128::from(seeds.end - seeds.start);
        let at = |k: u64| seeds.start + (len * u128::from(k) / u128::from(self.count)) as u64;
        at(self.index - 1)..at(self.index)
    }
}

/// A fault that fired in a seed's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiredRecord {
    pub at_ms: u64,
    pub kind: String,
    pub label: String,
    /// What it acted on, resolved as it fired: a container id or a node's host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Why it did nothing, when it could not act.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_effect: Option<String>,
}

impl From<&scenario::FiredFault> for FiredRecord {
    fn from(f: &scenario::FiredFault) -> Self {
        FiredRecord {
            at_ms: f.at_ms,
            kind: f.kind.clone(),
            label: f.label.clone(),
            target: target_text(&f.target),
            no_effect: f.no_effect.clone(),
        }
    }
}

/// A fired fault's target in words (`None` for one without a target).
fn target_text(t: &FaultTarget) -> Option<String> {
    match t {
        FaultTarget::Container(cid) | FaultTarget::Network(Some(cid)) => Some(cid.to_string()),
        FaultTarget::Node(host) => Some(host.clone()),
        FaultTarget::Network(None) | FaultTarget::Nothing => None,
    }
}

/// What one seed left: its outcome, every broken invariant and (with `--expect`) every failed
/// expectation. Also one line of `--json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedReport {
    pub seed: u64,
    /// `STATE/FINAL_STATUS`, or `NOT-SUBMITTED`.
    pub outcome: String,
    /// Virtual time when the application ended, ms.
    pub end_ms: u64,
    pub faults_fired: Vec<FiredRecord>,
    pub violations: Vec<String>,
    /// Failed `[expect]` entries (checked only with `--expect`).
    pub expectation_failures: Vec<String>,
    /// The trace fingerprint (hex), as `run` prints it; made only for outputs that show it
    /// (`--json`, `--shard`): the text report does not, and tracing was a tenth of a seed's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// A many-application scenario's (`[[workload.applications]]`) applications, in submission
    /// order; empty for a one-application scenario.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applications: Vec<SeedApplication>,
}

/// One application of a many-application seed: which entry, its YARN id, how it ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedApplication {
    pub entry: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application: Option<String>,
    /// `STATE/FINAL_STATUS`, or `NOT-SUBMITTED`.
    pub outcome: String,
    /// When its spark-submit returned, virtual ms.
    pub end_ms: u64,
}

/// What a sweep checks and how it shows its progress.
#[derive(Clone, Debug, Default)]
pub struct SweepConfig {
    pub jobs: usize,
    /// Check the scenario's `[expect]` on every seed.
    pub expect: bool,
    /// Draw a progress bar on stderr (when it is a terminal).
    pub progress: bool,
    /// Make each seed's trace fingerprint ([`SeedReport::fingerprint`]).
    pub fingerprints: bool,
}

/// Runs every seed of `seeds` on `jobs` threads; reports by seed (invariants only).
pub fn sweep(
    s: &Scenario,
    seeds: std::ops::Range<u64>,
    jobs: usize,
) -> Result<BTreeMap<u64, SeedReport>, UserError> {
    sweep_with(
        s,
        seeds,
        &SweepConfig {
            jobs,
            fingerprints: true,
            ..SweepConfig::default()
        },
    )
}

/// Runs every seed of `seeds` as `config` says; reports by seed.
pub fn sweep_with(
    s: &Scenario,
    seeds: std::ops::Range<u64>,
    config: &SweepConfig,
) -> Result<BTreeMap<u64, SeedReport>, UserError> {
    // Every seed runs the same spark-submit line: it is read once.
    let submit = scenario::SubmitRead::of(s);
    sweep_seeds_with(s, seeds, config, |s, seed, expect, fingerprint| {
        run_seed(s, &submit, seed, expect, fingerprint)
    })
}

/// [`sweep_with`], each seed run by `run_one` (the scenario, the seed, whether to check
/// `[expect]` and to make the trace fingerprint): [`run_seed`] runs one application; the
/// arrivals room, above this one, runs a scenario's `[[workload.applications]]` so.
pub fn sweep_seeds_with(
    s: &Scenario,
    seeds: std::ops::Range<u64>,
    config: &SweepConfig,
    run_one: impl Fn(&Scenario, u64, bool, bool) -> Result<SeedReport, UserError> + Sync,
) -> Result<BTreeMap<u64, SeedReport>, UserError> {
    let bar = config
        .progress
        .then(|| crate::outputs::progress::sweep_bar(seeds.end - seeds.start))
        .flatten();
    let n = seeds.end - seeds.start;
    let reports = parallel_indexed(n, config.jobs, |i| {
        let r = run_one(s, seeds.start + i, config.expect, config.fingerprints)?;
        if let Some(b) = &bar {
            b.inc(1);
        }
        Ok(r)
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(seeds.zip(reports?).collect())
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

/// One seed's run and its record (with its trace fingerprint when `fingerprint`), the
/// scenario's `[submit]` line already read.
fn run_seed(
    s: &Scenario,
    submit: &scenario::SubmitRead,
    seed: u64,
    expect: bool,
    fingerprint: bool,
) -> Result<SeedReport, UserError> {
    let opts = RunOptions {
        capture_logs: expect && needs_logs(s),
        // The trace changes nothing in a run; only its fingerprint is reported, never its events.
        trace: fingerprint,
        keep_trace: false,
        ..RunOptions::default()
    };
    let run = scenario::run_read(s, submit, Some(seed), opts)?;
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
    let faults_fired = run.fired.iter().map(FiredRecord::from).collect();
    Ok(SeedReport {
        seed,
        outcome,
        end_ms: run.result.end_ms,
        faults_fired,
        violations,
        expectation_failures: if expect {
            run.expect_failures
        } else {
            Vec::new()
        },
        fingerprint: fingerprint.then(|| format!("{:016x}", run.result.fingerprint)),
        applications: Vec::new(),
    })
}

/// Whether the expectations read the logs (capturing them costs memory on every seed).
fn needs_logs(s: &Scenario) -> bool {
    !s.expect.logs_contain.is_empty() || !s.expect.logs_not_contain.is_empty()
}

/// The sweep's report (invariants only): see [`report_with`].
pub fn report(file: &str, reports: &BTreeMap<u64, SeedReport>) -> (String, usize) {
    report_with(file, reports)
}

/// The sweep's report: each violation and failed expectation with its reproduction command,
/// the seeds of each outcome (the first 20 and the count) with the command for the first, the
/// faults fired by kind, and the totals. Returns the text and the number of problems.
pub fn report_with(file: &str, reports: &BTreeMap<u64, SeedReport>) -> (String, usize) {
    let mut out = String::new();
    let mut outcomes: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut idle: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut broken, mut unmet) = (0, 0);
    let again = |seed: u64| format!("sparkyard run {file} --seed {seed}");
    for (seed, r) in reports {
        outcomes.entry(r.outcome.as_str()).or_default().push(*seed);
        for f in &r.faults_fired {
            *kinds.entry(f.kind.as_str()).or_default() += 1;
            if f.no_effect.is_some() {
                *idle.entry(f.kind.as_str()).or_default() += 1;
            }
        }
        for v in &r.violations {
            broken += 1;
            let _ = writeln!(
                out,
                "seed {seed}: invariant {v}\n  reproduce: {}",
                again(*seed)
            );
        }
        for f in &r.expectation_failures {
            unmet += 1;
            let _ = writeln!(
                out,
                "seed {seed}: expectation failed: {f}\n  reproduce: {}",
                again(*seed)
            );
        }
    }
    for (outcome, seeds) in &outcomes {
        let listed: Vec<String> = seeds
            .iter()
            .take(SEEDS_LISTED)
            .map(u64::to_string)
            .collect();
        let more = seeds.len().saturating_sub(SEEDS_LISTED);
        let _ = write!(
            out,
            "outcome {outcome}: {} seed(s): {}",
            seeds.len(),
            listed.join(", ")
        );
        if more > 0 {
            let _ = write!(out, " and {more} more");
        }
        let _ = writeln!(out, "\n  reproduce: {}", again(seeds[0]));
    }
    if !kinds.is_empty() {
        let by_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let total: usize = kinds.values().sum();
        let _ = writeln!(out, "faults fired: {total} ({})", by_kind.join(", "));
    }
    if !idle.is_empty() {
        // Each seed's reasons are in `--json` (`no_effect`) and in `run --seed N`.
        let by_kind: Vec<String> = idle.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let total: usize = idle.values().sum();
        let _ = writeln!(
            out,
            "faults that fired but could not act: {total} ({}; `--json` or `run --seed N` says why)",
            by_kind.join(", ")
        );
    }
    let counts: Vec<String> = outcomes
        .iter()
        .map(|(k, v)| format!("{k} {}", v.len()))
        .collect();
    let _ = writeln!(
        out,
        "sweep: {} seeds, {broken} invariant violation(s), {unmet} failed expectation(s); outcomes: {}",
        reports.len(),
        counts.join(", ")
    );
    (out, broken + unmet)
}

/// The first line of a `--json` sweep: what was swept (sweep-merge checks the shards agree).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepHeader {
    /// The scenario as given on the command line (the report's reproduce commands use it).
    pub scenario: String,
    /// The whole seed range [start, end).
    pub seeds: [u64; 2],
    /// This output's part of the range (1/1 when not sharded).
    pub shard: Shard,
    pub expect: bool,
}

#[derive(Serialize, Deserialize)]
struct HeaderLine {
    sweep: SweepHeader,
}

/// The `--json` output: the header line, then one line per seed in seed order.
pub fn json_lines(header: &SweepHeader, reports: &BTreeMap<u64, SeedReport>) -> String {
    let line = |v: Result<String, serde_json::Error>| v.unwrap_or_default() + "\n";
    let mut out = line(serde_json::to_string(&HeaderLine {
        sweep: header.clone(),
    }));
    for r in reports.values() {
        out.push_str(&line(serde_json::to_string(r)));
    }
    out
}

/// One shard's output, read back.
pub struct ShardOutput {
    pub header: SweepHeader,
    pub reports: Vec<SeedReport>,
}

/// Parses one `--json` output; `name` names it in errors.
pub fn parse_json_lines(name: &str, text: &str) -> Result<ShardOutput, UserError> {
    let err = |line: usize, m: String| UserError::file(name, format!("line {line}: {m}"));
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(UserError::file(
            name,
            "empty; expected the output of `sparkyard sweep --json` or `--shard K/N`",
        ));
    };
    let header: HeaderLine = serde_json::from_str(first).map_err(|e| {
        err(1, format!("not a sweep header ({e}); expected the output of `sparkyard sweep --json` or `--shard K/N`"))
    })?;
    let h = &header.sweep;
    if h.shard.index == 0 || h.shard.index > h.shard.count || h.seeds[0] >= h.seeds[1] {
        return Err(err(
            1,
            format!(
                "not a sweep header: shard {}/{} of seeds {}..{}",
                h.shard.index, h.shard.count, h.seeds[0], h.seeds[1]
            ),
        ));
    }
    let mut reports = Vec::new();
    for (i, l) in lines {
        let r: SeedReport =
            serde_json::from_str(l).map_err(|e| err(i + 1, format!("not a seed record: {e}")))?;
        reports.push(r);
    }
    Ok(ShardOutput {
        header: header.sweep,
        reports,
    })
}

/// Merges shard outputs into the whole sweep: they must be the same sweep (scenario, seed
/// range, `--expect`), one output per shard 1..N, and hold every seed of the range once.
pub fn merge(
    outputs: Vec<(String, ShardOutput)>,
) -> Result<(SweepHeader, BTreeMap<u64, SeedReport>), UserError> {
    let merge_err = |m: String| UserError::file("sparkyard sweep-merge", m);
    let Some((first_name, first)) = outputs.first() else {
        return Err(merge_err("no shard output given".into()));
    };
    let whole = SweepHeader {
        shard: Shard { index: 1, count: 1 },
        ..first.header.clone()
    };
    let count = first.header.shard.count;
    let mut seen_shards: BTreeMap<u64, &str> = BTreeMap::new();
    let mut reports = BTreeMap::new();
    for (name, o) in &outputs {
        let h = &o.header;
        if (h.scenario.as_str(), h.seeds, h.expect, h.shard.count)
            != (whole.scenario.as_str(), whole.seeds, whole.expect, count)
        {
            return Err(merge_err(format!(
                "{name} is from another sweep than {first_name}: {h:?} vs {:?}",
                first.header
            )));
        }
        if let Some(other) = seen_shards.insert(h.shard.index, name) {
            return Err(merge_err(format!(
                "{name} and {other} are both shard {}/{count}",
                h.shard.index
            )));
        }
        let part = h.shard.part(&(h.seeds[0]..h.seeds[1]));
        for r in &o.reports {
            if !part.contains(&r.seed) {
                return Err(merge_err(format!(
                    "{name}: seed {} is not in shard {}/{count} ({}..{})",
                    r.seed, h.shard.index, part.start, part.end
                )));
            }
            if reports.insert(r.seed, r.clone()).is_some() {
                return Err(merge_err(format!("{name}: seed {} appears twice", r.seed)));
            }
        }
    }
    let missing_shards: Vec<String> = (1..=count)
        .filter(|k| !seen_shards.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing_shards.is_empty() {
        return Err(merge_err(format!(
            "missing shard(s) {}",
            missing_shards.join(", ")
        )));
    }
    let expected = whole.seeds[1] - whole.seeds[0];
    if reports.len() as u64 != expected {
        let missing = (whole.seeds[0]..whole.seeds[1]).find(|s| !reports.contains_key(s));
        return Err(merge_err(format!(
            "{} of {expected} seeds present (first missing: {}); was a shard cut short?",
            reports.len(),
            missing.map_or("none".into(), |s| s.to_string())
        )));
    }
    Ok((whole, reports))
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

    #[test]
    fn shards_tile_the_range() {
        for (range, n) in [(1..1001u64, 7u64), (5..8, 5), (0..1, 1), (10..30, 20)] {
            let mut covered = Vec::new();
            for k in 1..=n {
                covered.extend(Shard { index: k, count: n }.part(&range));
            }
            assert_eq!(
                covered,
                range.clone().collect::<Vec<_>>(),
                "{range:?} / {n}"
            );
        }
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("3").is_err());
        assert_eq!(
            Shard::parse("2/3").expect("ok"),
            Shard { index: 2, count: 3 }
        );
    }

    #[test]
    fn a_bad_header_is_an_error_not_a_panic() {
        let bad = r#"{"sweep":{"scenario":"x","seeds":[1,5],"shard":{"index":1,"count":0},"expect":false}}"#;
        assert!(parse_json_lines("a.jsonl", bad).is_err());
        assert!(parse_json_lines("a.jsonl", "").is_err());
        assert!(parse_json_lines("a.jsonl", "{}").is_err());
    }

    #[test]
    fn an_error_hint_names_sweeps_own_help_not_verbose() {
        let e = parse_seeds("x").expect_err("bad").to_string();
        assert!(e.contains("sparkyard sweep --help"), "{e}");
        assert!(!e.contains("--verbose"), "{e}");
    }
}
