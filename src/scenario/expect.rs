//! `[expect]`: what must hold at the end of a run (state, final status, exit codes, counts,
//! texts in the diagnostics and logs), checked against the run's typed record, and the words
//! for a planned fault that never fired.

use crate::record::RunResult;
use schemars::JsonSchema;
use serde::Deserialize;
use sparkyard_actors::simulation::faults::Trigger;
use sparkyard_actors::simulation::observer::RunCounters;
/// What must hold at the end of the run: the `[expect]` table as written; `load` checks the
/// state names (kept as strings so that a wrong one can be quoted in the error).
#[derive(Deserialize, Default, Debug, Clone, JsonSchema)]
// `expecting` words the error for a non-table `expect = 3` for the user, not after a Rust type.
#[serde(deny_unknown_fields, expecting = "a table of expectations")]
pub struct Expectations {
    /// The YARN application state at the end (NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING,
    /// FINISHED, FAILED, KILLED).
    pub state: Option<String>,
    /// The final status (UNDEFINED, SUCCEEDED, FAILED, KILLED).
    pub final_status: Option<String>,
    /// The exit codes of the AM attempts, in order.
    pub am_exit_codes: Option<Vec<i32>>,
    /// The number of AM attempts.
    pub attempts: Option<u32>,
    /// Executor failures counted toward spark.executor.maxNumFailures.
    pub executor_failures: Option<u32>,
    /// Executors launched (containers started), all attempts.
    pub executors_launched: Option<u32>,
    /// Executors Spark declared lost: the driver removed it for a loss (`Lost executor N on
    /// host`), or a fetch from it failed (the DAGScheduler's `Executor lost: N`), before the
    /// application ended. Executors removed idle, killed by the driver or decommissioned are not
    /// lost.
    pub executors_lost: Option<u32>,
    /// Failed task attempts (a TaskEnd with a failure reason; kills are not failures).
    pub tasks_failed: Option<u64>,
    /// Killed task attempts (a TaskEnd with `TaskKilled`: a speculative copy that lost, a task
    /// of an aborted stage).
    pub tasks_killed: Option<u64>,
    /// Finished (successful) task attempts.
    pub tasks_finished: Option<u64>,
    /// Texts the final diagnostics must contain.
    #[serde(default)]
    pub diagnostics_contain: Vec<String>,
    /// Texts some container or daemon log must contain.
    #[serde(default)]
    pub logs_contain: Vec<String>,
    /// Texts no log may contain.
    #[serde(default)]
    pub logs_not_contain: Vec<String>,
    /// Labels of planned faults the scenario means to fire without effect (Spark ignores them
    /// here, or their target is gone by then); any other fault that did nothing is unmet.
    #[serde(default)]
    pub faults_may_do_nothing: Vec<String>,
    /// With `[[workload.applications]]`: how many applications ended FINISHED / SUCCEEDED.
    pub applications_succeeded: Option<u32>,
    /// With `[[workload.applications]]`: how many applications did not end FINISHED /
    /// SUCCEEDED (failed, killed, or never ended).
    pub applications_failed: Option<u32>,
}

impl Expectations {
    /// The keys set that describe one application (`state`, counts, logs), by name.
    fn one_application_keys(&self) -> Vec<&'static str> {
        let set = [
            ("state", self.state.is_some()),
            ("final_status", self.final_status.is_some()),
            ("am_exit_codes", self.am_exit_codes.is_some()),
            ("attempts", self.attempts.is_some()),
            ("executor_failures", self.executor_failures.is_some()),
            ("executors_launched", self.executors_launched.is_some()),
            ("executors_lost", self.executors_lost.is_some()),
            ("tasks_failed", self.tasks_failed.is_some()),
            ("tasks_killed", self.tasks_killed.is_some()),
            ("tasks_finished", self.tasks_finished.is_some()),
            ("diagnostics_contain", !self.diagnostics_contain.is_empty()),
            ("logs_contain", !self.logs_contain.is_empty()),
            ("logs_not_contain", !self.logs_not_contain.is_empty()),
            (
                "faults_may_do_nothing",
                !self.faults_may_do_nothing.is_empty(),
            ),
        ];
        set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
    }
}

pub(super) fn validate_expectations(e: &Expectations, arrivals: bool) -> Result<(), String> {
    let many = e.applications_succeeded.is_some() || e.applications_failed.is_some();
    if many && !arrivals {
        return Err("expect.applications_succeeded / applications_failed: count the applications of [[workload.applications]]; this scenario runs one application (use state and final_status)".into());
    }
    if let Some(k) = e.one_application_keys().first().filter(|_| arrivals) {
        return Err(format!(
            "expect.{k}: describes one application, but this scenario runs [[workload.applications]]; expect applications_succeeded and applications_failed instead"
        ));
    }
    const STATES: [&str; 8] = [
        "NEW",
        "NEW_SAVING",
        "SUBMITTED",
        "ACCEPTED",
        "RUNNING",
        "FINISHED",
        "FAILED",
        "KILLED",
    ];
    const FINALS: [&str; 4] = ["UNDEFINED", "SUCCEEDED", "FAILED", "KILLED"];
    if let Some(s) = e.state.as_deref().filter(|s| !STATES.contains(s)) {
        return Err(format!(
            "expect.state: `{s}` is not a YARN application state ({})",
            STATES.join(", ")
        ));
    }
    if let Some(s) = e.final_status.as_deref().filter(|s| !FINALS.contains(s)) {
        return Err(format!(
            "expect.final_status: `{s}` is not a final status ({})",
            FINALS.join(", ")
        ));
    }
    Ok(())
}

/// A counted expectation: what is counted, the count the scenario expects, the run's count.
struct Count {
    what: &'static str,
    want: Option<u64>,
    got: u64,
}

impl Count {
    fn of(what: &'static str, want: Option<impl Into<u64>>, got: impl Into<u64>) -> Self {
        Count {
            what,
            want: want.map(Into::into),
            got: got.into(),
        }
    }
}

/// Why an event trigger never happened, from the run's AM attempts: the attempt it waits in
/// never started, or ended before the event (a later attempt's events do not fire it).
fn why_unfired(trigger: &Trigger, c: &RunCounters) -> String {
    let ran = c.am_attempts;
    match trigger.attempt() {
        Some(a) if a > ran => format!(
            "it waited for {trigger}, but AM attempt {a} never came (the application ran {ran} AM attempt(s))"
        ),
        Some(a) if a < ran && !matches!(trigger, Trigger::AttemptStarted { .. }) => {
            let exit = c
                .am_exit_codes
                .get(&a)
                .map(|code| format!(" (exit code {code})"))
                .unwrap_or_default();
            format!(
                "it waited for {trigger}, but AM attempt {a} ended{exit} before that happened; attempt {ran} does not fire it (its `attempt` key names the attempt)"
            )
        }
        _ => format!("its trigger ({trigger}) did not happen"),
    }
}

/// How many applications of a `[[workload.applications]]` run ended FINISHED / SUCCEEDED, and
/// how many did not.
pub struct ApplicationCounts {
    pub succeeded: u64,
    pub failed: u64,
}

/// Every expectation of a `[[workload.applications]]` run that does not hold, as a sentence;
/// a planned fault that never fired (`unfired`, by label) is one too.
pub fn check_arrivals(
    e: &Expectations,
    run: &ApplicationCounts,
    unfired: &[String],
) -> Vec<String> {
    let mut out: Vec<String> = unfired
        .iter()
        .filter(|f| !f.starts_with(super::chaos::CHAOS_LABEL))
        .map(|f| format!("fault `{f}` never fired"))
        .collect();
    let counts = [
        Count::of(
            "applications_succeeded",
            e.applications_succeeded,
            run.succeeded,
        ),
        Count::of("applications_failed", e.applications_failed, run.failed),
    ];
    for c in counts {
        if let Some(want) = c.want.filter(|w| *w != c.got) {
            out.push(format!("{}: expected {want}, got {}", c.what, c.got));
        }
    }
    out
}

/// Issue 27's "a fault either acts or the run says exactly why it could not, and `[expect]`
/// fails unless the scenario allows it": each planned fault (not a `[chaos]` draw) that fired
/// without effect and is not in `faults_may_do_nothing`, with its reason.
fn did_nothing(e: &Expectations, r: &RunResult) -> Vec<String> {
    r.faults_fired
        .iter()
        .filter(|f| !f.label.starts_with(super::chaos::CHAOS_LABEL))
        .filter(|f| !e.faults_may_do_nothing.contains(&f.label))
        .filter_map(|f| {
            let why = f.no_effect.as_ref()?;
            Some(format!(
                "fault `{}` did nothing: {why} (if the scenario means that, list its label in expect.faults_may_do_nothing)",
                f.label
            ))
        })
        .collect()
}

/// Every expectation that does not hold, as a sentence.
pub fn check(e: &Expectations, r: &RunResult) -> Vec<String> {
    let c = &r.counters;
    let mut out: Vec<String> = r
        .faults_unfired
        .iter()
        .filter(|f| !f.label.starts_with(super::chaos::CHAOS_LABEL))
        .map(|f| {
            format!(
                "fault `{}` never fired: {}",
                f.label,
                why_unfired(&f.trigger, c)
            )
        })
        .collect();
    out.extend(did_nothing(e, r));
    let state = r
        .outcome
        .state
        .map(|s| s.to_string())
        .unwrap_or_else(|| "(not submitted)".into());
    let fs = r
        .outcome
        .final_status
        .map(|s| s.to_string())
        .unwrap_or_else(|| "(none)".into());
    let mut eq = |what: &str, want: Option<String>, got: String| {
        if let Some(w) = want.filter(|w| *w != got) {
            out.push(format!("expected {what} {w}, got {got}"));
        }
    };
    eq("state", e.state.clone(), state);
    eq("final status", e.final_status.clone(), fs);
    let codes: Vec<i32> = c.am_exit_codes.values().copied().collect();
    eq(
        "AM exit codes",
        e.am_exit_codes.as_ref().map(|v| format!("{v:?}")),
        format!("{codes:?}"),
    );
    let counts = [
        Count::of("AM attempts", e.attempts, c.am_attempts),
        Count::of(
            "executor failures counted",
            e.executor_failures,
            c.executor_failures_counted,
        ),
        Count::of(
            "executors launched",
            e.executors_launched,
            c.executors_launched,
        ),
        Count::of(
            "executors lost",
            e.executors_lost,
            c.executors_lost.len() as u64,
        ),
        Count::of("failed task attempts", e.tasks_failed, c.tasks_failed),
        Count::of("killed task attempts", e.tasks_killed, c.tasks_killed),
        Count::of("finished tasks", e.tasks_finished, c.tasks_finished),
    ];
    for n in counts {
        eq(n.what, n.want.map(|v| v.to_string()), n.got.to_string());
    }
    for d in &e.diagnostics_contain {
        if !r.outcome.diagnostics.contains(d.as_str()) {
            out.push(format!(
                "expected the diagnostics to contain {d:?}; they are {:?}",
                r.outcome.diagnostics
            ));
        }
    }
    let in_logs = |needle: &str| {
        r.logs
            .outputs()
            .values()
            .any(|o| o.stderr.contains(needle) || o.stdout.contains(needle))
    };
    for l in &e.logs_contain {
        if !in_logs(l) {
            out.push(format!("expected a log line containing {l:?}"));
        }
    }
    for l in &e.logs_not_contain {
        if in_logs(l) {
            out.push(format!("expected no log line containing {l:?}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(text: &str) -> Expectations {
        toml::from_str(text).expect("an [expect] table")
    }

    #[test]
    fn state_names_are_yarns_and_a_wrong_one_is_quoted() {
        assert!(
            validate_expectations(
                &expect("state = \"FINISHED\"\nfinal_status = \"FAILED\""),
                false
            )
            .is_ok()
        );
        let state = validate_expectations(&expect("state = \"DONE\""), false).err();
        assert!(state.is_some_and(|e| {
            e.starts_with("expect.state: `DONE` is not a YARN application state")
        }));
        let fin = validate_expectations(&expect("final_status = \"OK\""), false).err();
        assert!(
            fin.is_some_and(|e| e.starts_with("expect.final_status: `OK` is not a final status"))
        );
    }

    /// An event trigger that never happened says which AM attempt it waited in.
    #[test]
    fn an_unfired_trigger_says_which_attempt_it_waited_for() {
        let mut c = RunCounters::default();
        c.am_attempts = 1;
        let later = Trigger::ExecutorRegistered {
            attempt: 2,
            executor: 1,
        };
        assert!(
            why_unfired(&later, &c)
                .contains("AM attempt 2 never came (the application ran 1 AM attempt(s))")
        );
        let at = Trigger::At { ms: 5 };
        assert!(why_unfired(&at, &c).starts_with("its trigger ("));
    }
}
