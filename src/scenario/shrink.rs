//! `sparkyard shrink FILE --seed N`: from a seed whose run shows something (a broken invariant,
//! an outcome, a failed expectation), a minimal fault schedule that still shows it. The seed's
//! faults (the file's `[[faults]]` and the ones `[chaos]` draws for the seed) are reduced by
//! delta debugging (Zeller's ddmin over the list), then each remaining fault is simplified
//! (earlier and rounder times, lower executor numbers, shorter delays and partitions) while the
//! property holds. The result is a plain scenario, with `[[faults]]` and no `[chaos]`, that
//! `sparkyard run` reproduces at the same seed.

use super::Scenario;
use super::chaos::chaos_faults_for;
use super::fault_entry::RawFault;
use super::fault_kinds;
use super::fault_plan::{Planned, fault};
use crate::error::UserError;
use crate::runner::RunOptions;
use std::path::Path;

/// What the shrunk schedule must keep showing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Until {
    /// Some invariant is broken.
    Violation,
    /// The application ends in this state or final status (`FAILED`, `FINISHED/FAILED`).
    Outcome(String),
    /// Some `[expect]` entry fails.
    Expect,
}

impl Until {
    pub fn parse(text: &str) -> Result<Until, UserError> {
        match text.split_once('=') {
            None if text == "violation" => Ok(Until::Violation),
            None if text == "expect" => Ok(Until::Expect),
            Some(("outcome", o)) if !o.is_empty() => Ok(Until::Outcome(o.to_string())),
            _ => Err(UserError::file(
                "sparkyard shrink",
                format!(
                    "--until {text}: expected violation, expect or outcome=STATE (e.g. outcome=FAILED or outcome=FINISHED/FAILED)"
                ),
            )),
        }
    }
}

impl std::fmt::Display for Until {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Until::Violation => f.write_str("violation"),
            Until::Expect => f.write_str("expect"),
            Until::Outcome(o) => write!(f, "outcome={o}"),
        }
    }
}

/// What one run showed, for the property.
struct Shown {
    violated: bool,
    expect_failed: bool,
    state: String,
    final_status: String,
    /// The run's trace fingerprint (0 when it kept no trace).
    fingerprint: u64,
    /// A many-application run's applications, in submission order; `state` and
    /// `final_status` are then the focused one's.
    applications: Vec<AppEnding>,
}

/// One application of a many-application run, as shrink reads it.
#[derive(Clone, Debug)]
pub struct AppEnding {
    pub entry: String,
    /// Its YARN application id (`None`: never submitted).
    pub id: Option<String>,
    /// YARN's state (`NOT-SUBMITTED` when never submitted) and final status (`NONE`).
    pub state: String,
    pub final_status: String,
}

/// What one run of a many-application scenario showed.
pub struct ManyShown {
    pub violated: bool,
    pub expect_failed: bool,
    pub fingerprint: u64,
    pub applications: Vec<AppEnding>,
}

/// Runs a many-application scenario (with the faults it holds) at a seed, with the trace's
/// fingerprint when asked: the arrivals room's `shrink_probe`, above this one.
pub type RunMany<'a> = &'a dyn Fn(&Scenario, u64, bool) -> Result<ManyShown, UserError>;

impl AppEnding {
    fn ends(&self, outcome: &str) -> bool {
        ends_as(outcome, &self.state, &self.final_status)
    }
}

/// Whether `outcome` (`STATE`, `FINAL_STATUS` or `STATE/FINAL_STATUS`) names this ending.
fn ends_as(outcome: &str, state: &str, final_status: &str) -> bool {
    outcome == state || outcome == final_status || outcome == format!("{state}/{final_status}")
}

impl Shown {
    fn holds(&self, until: &Until) -> bool {
        match until {
            Until::Violation => self.violated,
            Until::Expect => self.expect_failed,
            Until::Outcome(o) => ends_as(o, &self.state, &self.final_status),
        }
    }
}

/// The shrunk schedule.
pub struct Shrunk {
    pub until: Until,
    /// The seed's faults before shrinking.
    pub original: Vec<RawFault>,
    pub faults: Vec<RawFault>,
    /// Simulations run while shrinking.
    pub runs: usize,
    /// The observed end state (written into `[expect]` for an outcome).
    pub state: String,
    pub final_status: String,
    /// The trace fingerprint of the shrunk schedule's run, as written (its labels included):
    /// `sparkyard run` of the written file prints the same.
    pub fingerprint: u64,
    /// In a many-application scenario with `--until outcome=..`, the application whose outcome
    /// the schedule keeps (the first to end so in the seed's run): `entry (applicationId)`.
    pub application: Option<String>,
}

/// Shrinks seed `seed` of `s`; `until` defaults to a violation if the seed shows one, else a
/// failed expectation, else an error.
pub fn shrink(s: &Scenario, seed: u64, until: Option<Until>) -> Result<Shrunk, UserError> {
    shrink_with(s, seed, until, None)
}

/// [`shrink`], a many-application scenario's runs made by `many` (without it such a scenario
/// is refused, naming what runs it).
pub fn shrink_with(
    s: &Scenario,
    seed: u64,
    until: Option<Until>,
    many: Option<RunMany>,
) -> Result<Shrunk, UserError> {
    if s.arrivals.is_some() && many.is_none() {
        return Err(UserError::file(
            s.path.display().to_string(),
            "workload.applications: this scenario runs many applications; `sparkyard shrink` shrinks it (the arrivals room's `probes::shrink`)",
        ));
    }
    let mut original = s.raw_faults.clone();
    if let Some(c) = &s.chaos {
        original.extend(
            chaos_faults_for(c, seed, &s.cluster, s.applications(seed))
                .into_iter()
                .map(|(_, f)| f),
        );
    }
    let mut runs = 1;
    let first = show(s, seed, &original, false, 0, many)?;
    // Many applications: an outcome is kept by the application that first showed it (the
    // arrivals are the seed's whatever the faults, so it keeps its place in the order).
    let focus = match &until {
        Some(Until::Outcome(o)) if !first.applications.is_empty() => {
            match first.applications.iter().position(|a| a.ends(o)) {
                Some(i) => i,
                None => {
                    return Err(UserError::file(
                        s.path.display().to_string(),
                        format!(
                            "seed {seed}: no application ends {o} (its {} applications end {})",
                            first.applications.len(),
                            endings(&first.applications)
                        ),
                    ));
                }
            }
        }
        _ => 0,
    };
    let first = if focus == 0 {
        first
    } else {
        show(s, seed, &original, false, focus, many)?
    };
    let mut probe = |faults: &[RawFault]| -> Result<Shown, UserError> {
        runs += 1;
        show(s, seed, faults, false, focus, many)
    };
    let until = match until {
        Some(u) => u,
        None if first.violated => Until::Violation,
        None if first.expect_failed => Until::Expect,
        None => {
            return Err(UserError::file(
                s.path.display().to_string(),
                format!(
                    "seed {seed} breaks no invariant and meets every expectation (it ends {}/{}); say what to keep with --until outcome={}",
                    first.state, first.final_status, first.state
                ),
            ));
        }
    };
    if !first.holds(&until) {
        return Err(UserError::file(
            s.path.display().to_string(),
            format!(
                "seed {seed} does not show `{until}` (it ends {}/{}, {} broken invariant(s), expectations {})",
                first.state,
                first.final_status,
                if first.violated { "some" } else { "no" },
                if first.expect_failed { "failed" } else { "met" }
            ),
        ));
    }
    let mut error = None;
    let mut test = |faults: &[RawFault]| match probe(faults) {
        Ok(shown) => shown.holds(&until),
        Err(e) => {
            error.get_or_insert(e);
            false
        }
    };
    let kept = ddmin(original.clone(), &mut test);
    let faults = simplify(kept, &mut test);
    if let Some(e) = error {
        return Err(e);
    }
    // The file's run: the faults as written (labels are in the trace, so in the fingerprint).
    let faults: Vec<RawFault> = faults.into_iter().map(relabel).collect();
    let last = show(s, seed, &faults, true, focus, many)?;
    if !last.holds(&until) {
        return Err(UserError::file(
            s.path.display().to_string(),
            format!(
                "seed {seed}: the shrunk schedule stopped showing `{until}` once its faults were relabelled (it ends {}/{}); this is a sparkyard bug, please report it",
                last.state, last.final_status
            ),
        ));
    }
    let application = match (&until, last.applications.get(focus)) {
        (Until::Outcome(_), Some(a)) => Some(format!(
            "{} ({})",
            a.entry,
            a.id.as_deref().unwrap_or("not submitted")
        )),
        _ => None,
    };
    Ok(Shrunk {
        until,
        original,
        faults,
        runs: runs + 1,
        state: last.state,
        final_status: last.final_status,
        fingerprint: last.fingerprint,
        application,
    })
}

/// The distinct endings of a run's applications (`FINISHED/SUCCEEDED, FAILED/FAILED`).
fn endings(apps: &[AppEnding]) -> String {
    let set: std::collections::BTreeSet<String> = apps
        .iter()
        .map(|a| format!("{}/{}", a.state, a.final_status))
        .collect();
    set.into_iter().collect::<Vec<_>>().join(", ")
}

/// Runs `s` at `seed` with `faults` instead of its own and its chaos draws (with the trace when
/// `fingerprint`: the probes skip it, the trace changes nothing else). Of many applications,
/// the state shown is application `focus`'s (in submission order).
fn show(
    s: &Scenario,
    seed: u64,
    faults: &[RawFault],
    fingerprint: bool,
    focus: usize,
    many: Option<RunMany>,
) -> Result<Shown, UserError> {
    let v = s.with_faults(faults)?;
    if let (Some(run), Some(_)) = (many, &v.arrivals) {
        return Ok(focused(run(&v, seed, fingerprint)?, focus));
    }
    let opts = RunOptions {
        capture_logs: !s.expect.logs_contain.is_empty() || !s.expect.logs_not_contain.is_empty(),
        trace: fingerprint,
        ..RunOptions::default()
    };
    let run = super::run(&v, Some(seed), opts)?;
    let o = &run.result.outcome;
    Ok(Shown {
        violated: !run.result.violations.is_empty(),
        expect_failed: !run.expect_failures.is_empty(),
        state: o.state.map_or("NOT-SUBMITTED".into(), |x| x.to_string()),
        final_status: o.final_status.map_or("NONE".into(), |x| x.to_string()),
        fingerprint: run.result.fingerprint,
        applications: Vec::new(),
    })
}

/// What a many-application run showed, its state the `focus`-th application's.
fn focused(m: ManyShown, focus: usize) -> Shown {
    let (state, final_status) = match m.applications.get(focus) {
        Some(a) => (a.state.clone(), a.final_status.clone()),
        None => ("NOT-SUBMITTED".into(), "NONE".into()),
    };
    Shown {
        violated: m.violated,
        expect_failed: m.expect_failed,
        state,
        final_status,
        fingerprint: m.fingerprint,
        applications: m.applications,
    }
}

impl Scenario {
    /// This scenario with `faults` as its whole fault schedule (no `[chaos]`).
    pub(crate) fn with_faults(&self, faults: &[RawFault]) -> Result<Scenario, UserError> {
        let mut planned = Vec::new();
        let mut kinds = Vec::new();
        let mut driver_faults = Vec::new();
        for (i, f) in faults.iter().enumerate() {
            match fault(f, &self.cluster) {
                Ok(Planned::Fault(p)) => {
                    planned.push(p);
                    kinds.push(f.kind.clone());
                }
                Ok(Planned::Driver(d)) => driver_faults.push(d),
                Err(m) => {
                    return Err(UserError::file(
                        self.path.display().to_string(),
                        format!("faults[{i}]: {m}"),
                    ));
                }
            }
        }
        Ok(Scenario {
            name: self.name.clone(),
            description: self.description.clone(),
            path: self.path.clone(),
            seed: self.seed,
            cluster: self.cluster.clone(),
            submit_words: self.submit_words.clone(),
            synthetic: self.synthetic.clone(),
            workload: self.workload.clone(),
            faults: planned,
            driver_faults,
            expect: self.expect.clone(),
            chaos: None,
            submit: self.submit.clone(),
            raw_faults: faults.to_vec(),
            fault_kinds: kinds,
            deadline: self.deadline_ms(),
            notes: Vec::new(),
            arrivals: self.arrivals.clone(),
            panic_at_ms: self.panic_at_ms,
        })
    }
}

/// Zeller's ddmin: a 1-minimal sublist of `items` for which `test` holds (it holds for
/// `items`). Tries the empty list first (the property may need no fault at all).
fn ddmin<T: Clone>(items: Vec<T>, test: &mut impl FnMut(&[T]) -> bool) -> Vec<T> {
    if items.is_empty() || test(&[]) {
        return Vec::new();
    }
    let mut c = items;
    let mut n = 2;
    while c.len() >= 2 {
        let chunks = split(&c, n);
        if let Some(sub) = chunks.iter().find(|ch| test(ch)) {
            c = sub.clone();
            n = 2;
            continue;
        }
        let complements: Vec<Vec<T>> = (0..chunks.len())
            .map(|i| {
                chunks
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, ch)| ch.iter().cloned())
                    .collect()
            })
            .collect();
        if n > 2
            && let Some(comp) = complements.iter().find(|co| test(co))
        {
            c = comp.clone();
            n = (n - 1).max(2);
            continue;
        }
        if n >= c.len() {
            break;
        }
        n = (n * 2).min(c.len());
    }
    c
}

/// `items` in `n` nearly equal contiguous chunks.
fn split<T: Clone>(items: &[T], n: usize) -> Vec<Vec<T>> {
    let len = items.len();
    (0..n)
        .map(|k| items[len * k / n..len * (k + 1) / n].to_vec())
        .filter(|ch| !ch.is_empty())
        .collect()
}

/// Simpler versions of one fault, simplest first: an earlier, rounder time; a lower executor
/// number; a shorter delay or partition.
fn candidates(f: &RawFault) -> Vec<RawFault> {
    let mut out = Vec::new();
    if let Some(at) = f.at_ms {
        for t in [0, at / 2, at / 1000 * 1000, at / 100 * 100] {
            if t < at {
                out.push(RawFault {
                    at_ms: Some(t),
                    ..f.clone()
                });
            }
        }
    }
    if let Some(e) = f.executor {
        for x in 1..e {
            out.push(RawFault {
                executor: Some(x),
                from: f.from.as_ref().map(|_| format!("executor:{x}")),
                ..f.clone()
            });
        }
    }
    for (ms, set) in [
        (
            f.delay_ms,
            (|g: &mut RawFault, v| g.delay_ms = Some(v)) as fn(&mut RawFault, u64),
        ),
        (f.duration_ms, |g: &mut RawFault, v| g.duration_ms = Some(v)),
    ] {
        if let Some(ms) = ms.filter(|ms| *ms > 1) {
            let mut g = f.clone();
            set(&mut g, ms / 2);
            out.push(g);
        }
    }
    // A lower running-executor number (the node of an earlier running executor).
    if let Some(k) = f
        .target
        .as_deref()
        .and_then(|t| t.strip_prefix("running-executor:"))
        .and_then(|k| k.parse::<u32>().ok())
    {
        for j in 1..k {
            out.push(RawFault {
                target: Some(format!("running-executor:{j}")),
                ..f.clone()
            });
        }
    }
    if let Some(x) = f
        .from
        .as_deref()
        .and_then(|p| p.strip_prefix("executor:"))
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|_| f.executor.is_none())
    {
        for y in 1..x {
            out.push(RawFault {
                from: Some(format!("executor:{y}")),
                ..f.clone()
            });
        }
    }
    out
}

/// Greedily replaces each fault by its simplest variant that keeps the property, until none
/// does (bounded: each accepted step makes a number smaller).
fn simplify(
    mut faults: Vec<RawFault>,
    test: &mut impl FnMut(&[RawFault]) -> bool,
) -> Vec<RawFault> {
    for i in 0..faults.len() {
        for _ in 0..32 {
            let found = candidates(&faults[i]).into_iter().find(|c| {
                let mut trial = faults.clone();
                trial[i] = c.clone();
                test(&trial)
            });
            match found {
                Some(c) => faults[i] = c,
                None => break,
            }
        }
    }
    faults
}

/// A label saying what the (possibly simplified) fault does and when, made afresh from its keys
/// for every kind (never the drawn label, whose time and `chaos: ` prefix may no longer hold):
/// an unfired fault of the shrunk file is an expectation failure, as for any `[[faults]]`.
fn relabel(f: RawFault) -> RawFault {
    let Some(kind) = fault_kinds::kind(&f.kind).filter(|k| !k.driver) else {
        // A driver fault takes no label (the file would not load with one).
        return f;
    };
    let label = Some(format!("{}{}", kind.describe(&f), when(&f)));
    RawFault { label, ..f }
}

/// When a fault fires, in words (its trigger and delay).
fn when(f: &RawFault) -> String {
    let after = match f.after_ms {
        0 => String::new(),
        ms => format!(" {ms} ms after"),
    };
    let attempt = if f.attempt == 1 {
        String::new()
    } else {
        format!(" of AM attempt {}", f.attempt)
    };
    if let Some(ms) = f.at_ms {
        return format!(" at {} ms", ms.saturating_add(f.after_ms));
    }
    if let Some(n) = f.on_executor_registered {
        return format!("{after} executor {n}{attempt} registered");
    }
    if let Some([stage, index]) = f.on_task_started {
        return format!("{after} task {index} of stage {stage}{attempt} started");
    }
    if let Some(n) = f.on_tasks_finished {
        return format!("{after} {n} task(s){attempt} finished");
    }
    if let Some(a) = f.on_attempt_started {
        return format!("{after} AM attempt {a} started");
    }
    String::new()
}

/// The shrunk scenario file: the original's tables without `[chaos]`, its seed fixed, the
/// shrunk `[[faults]]`, the chaos deadline kept as `deadline_ms`, a relative `cluster_file` made
/// to point at the same file from `out`, and for an outcome, `[expect]` naming it (so `run`
/// says "expectations: all met" when it reproduces).
pub fn scenario_file(
    s: &Scenario,
    text: &str,
    seed: u64,
    shrunk: &Shrunk,
    out: &Path,
) -> Result<String, UserError> {
    let err = |m: String| UserError::file(s.path.display().to_string(), m);
    let mut t: toml::Table = toml::from_str(text).map_err(|e| err(e.to_string()))?;
    t.remove("chaos");
    t.insert("seed".into(), toml::Value::Integer(seed as i64));
    if let Some(ms) = s.deadline_ms() {
        t.insert("deadline_ms".into(), toml::Value::Integer(ms as i64));
    }
    t.insert(
        "name".into(),
        toml::Value::String(format!("{}-seed-{seed}-shrunk", s.name)),
    );
    t.insert(
        "description".into(),
        toml::Value::String(format!(
            "{} seed {seed} shrunk by `sparkyard shrink --until {}`: {} of its {} fault(s) keep showing it.",
            s.path.display(),
            shrunk.until,
            shrunk.faults.len(),
            shrunk.original.len()
        ) + &shrunk.application.as_ref().map_or(String::new(), |a| {
            format!(
                " The application kept: {a}, ending {}/{}.",
                shrunk.state, shrunk.final_status
            )
        })),
    );
    if let Some(toml::Value::String(f)) = t.get("cluster_file") {
        let from_here = s.path.parent().unwrap_or(Path::new(".")).join(f);
        let abs = std::fs::canonicalize(&from_here).unwrap_or(from_here);
        t.insert(
            "cluster_file".into(),
            toml::Value::String(abs.display().to_string()),
        );
    }
    let faults = toml::Value::try_from(&shrunk.faults).map_err(|e| err(e.to_string()))?;
    t.insert("faults".into(), faults);
    // A many-application scenario's [expect] counts applications; the kept application's
    // outcome is in the description.
    if let (Until::Outcome(_), None) = (&shrunk.until, &shrunk.application) {
        let expect = t
            .entry("expect")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if let Some(e) = expect.as_table_mut() {
            e.insert("state".into(), toml::Value::String(shrunk.state.clone()));
            e.insert(
                "final_status".into(),
                toml::Value::String(shrunk.final_status.clone()),
            );
        }
    }
    let body = toml::to_string(&t).map_err(|e| err(e.to_string()))?;
    Ok(format!(
        "# Written by `sparkyard shrink {} --seed {seed} --until {}`.\n# Reproduce: sparkyard run {}\n{body}",
        s.path.display(),
        shrunk.until,
        out.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simplified fault's label says its new time, for every kind (a drawn fetch-failure
    /// kept "chaos: ... at 45259 ms" when it had moved to 0 ms), and no `chaos: ` prefix.
    #[test]
    fn a_relabelled_fault_says_its_own_time_for_every_kind() {
        for kind in fault_kinds::names()
            .iter()
            .filter(|k| !fault_kinds::is_driver(k))
        {
            let f = RawFault {
                kind: kind.to_string(),
                label: Some("chaos: something at 45259 ms".into()),
                at_ms: Some(0),
                ..RawFault::default()
            };
            let label = relabel(f).label.expect("a label");
            assert!(label.ends_with(" at 0 ms"), "{kind}: {label}");
            assert!(
                !label.contains("45259") && !label.contains("chaos"),
                "{kind}: {label}"
            );
        }
        let on_task = RawFault {
            kind: "kill-am".into(),
            on_task_started: Some([1, 3]),
            after_ms: 500,
            attempt: 1,
            ..RawFault::default()
        };
        assert_eq!(
            relabel(on_task).label.as_deref(),
            Some("the AM is killed 500 ms after task 3 of stage 1 started")
        );
    }

    #[test]
    fn ddmin_finds_the_two_items_that_matter() {
        let items: Vec<u32> = (0..9).collect();
        let mut calls = 0;
        let kept = ddmin(items, &mut |xs: &[u32]| {
            calls += 1;
            xs.contains(&2) && xs.contains(&7)
        });
        assert_eq!(kept, vec![2, 7]);
        assert!(calls < 40, "{calls}");
        assert!(ddmin(vec![1, 2], &mut |_: &[u32]| true).is_empty());
    }

    #[test]
    fn until_parses_its_three_forms() {
        assert_eq!(Until::parse("violation").ok(), Some(Until::Violation));
        assert_eq!(Until::parse("expect").ok(), Some(Until::Expect));
        assert_eq!(
            Until::parse("outcome=FAILED").ok(),
            Some(Until::Outcome("FAILED".into()))
        );
        assert!(Until::parse("outcome=").is_err());
        assert!(Until::parse("crash").is_err());
    }
}
