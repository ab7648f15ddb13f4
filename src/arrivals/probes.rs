//! A many-application scenario under `sparkyard sweep` and `sparkyard shrink`: one seed's record
//! (every application's outcome, the cluster's and each application's invariants, the faults
//! fired) and a shrink probe (every application's ending), made here, above `sweep` and
//! `scenario::shrink`, which run them through their runner parameters.

use super::{ArrivalsOptions, ArrivalsOutcome, run_scenario_with};
use crate::error::UserError;
use crate::scenario::Scenario;
use crate::scenario::shrink::{AppEnding, ManyShown, Shrunk, Until, shrink_with};
use crate::sweep::{FiredRecord, SeedApplication, SeedReport, SweepConfig, sweep_seeds_with};
use std::collections::BTreeMap;

/// Runs the scenario's applications under `seed`: outcomes and invariants, no fault cost.
fn probe(s: &Scenario, seed: u64, fingerprint: bool) -> Result<ArrivalsOutcome, UserError> {
    run_scenario_with(s, Some(seed), ArrivalsOptions::probe(fingerprint))
}

/// Every seed of `seeds` of a many-application scenario, as `config` says ([`sweep_seed`]).
pub fn sweep(
    s: &Scenario,
    seeds: std::ops::Range<u64>,
    config: &SweepConfig,
) -> Result<BTreeMap<u64, SeedReport>, UserError> {
    sweep_seeds_with(s, seeds, config, sweep_seed)
}

/// One seed of a many-application scenario: every application's outcome (the seed's is the set
/// of them, so seeds with the same kinds of ending group together), the invariants of the
/// cluster and of each application, the faults fired.
pub fn sweep_seed(
    s: &Scenario,
    seed: u64,
    expect: bool,
    fingerprint: bool,
) -> Result<SeedReport, UserError> {
    let done = probe(s, seed, fingerprint)?;
    let applications: Vec<SeedApplication> = done
        .run
        .applications
        .iter()
        .map(|a| SeedApplication {
            entry: a.entry.clone(),
            application: a.yarn_app_id.clone(),
            outcome: a
                .ending()
                .map_or("NOT-SUBMITTED".into(), |(st, fs)| format!("{st}/{fs}")),
            end_ms: a.ended_at_ms,
        })
        .collect();
    let kinds: std::collections::BTreeSet<&str> =
        applications.iter().map(|a| a.outcome.as_str()).collect();
    let outcome = format!(
        "applications: {}",
        kinds.into_iter().collect::<Vec<_>>().join(" + ")
    );
    // The faults are the cluster's: any application's record carries them.
    let record = super::outputs::application_record(&done.ran.result, 0, done.ran.costs);
    let fired = match &record {
        Some(r) => s.fired_in(seed, r)?,
        None => Vec::new(),
    };
    Ok(SeedReport {
        seed,
        outcome,
        end_ms: done.run.end_ms,
        faults_fired: fired.iter().map(FiredRecord::from).collect(),
        violations: done.run.violations.clone(),
        expectation_failures: if expect {
            done.expect_failures
        } else {
            Vec::new()
        },
        fingerprint: fingerprint.then(|| format!("{:016x}", done.run.fingerprint)),
        applications,
    })
}

/// Shrinks seed `seed` of a many-application scenario (`scenario::shrink`'s delta debugging);
/// an outcome is kept by the application that first showed it.
pub fn shrink(s: &Scenario, seed: u64, until: Option<Until>) -> Result<Shrunk, UserError> {
    shrink_with(s, seed, until, Some(&shrink_probe))
}

/// One shrink probe: every application's ending, whether an invariant broke or `[expect]`
/// failed.
pub fn shrink_probe(s: &Scenario, seed: u64, fingerprint: bool) -> Result<ManyShown, UserError> {
    let done = probe(s, seed, fingerprint)?;
    let applications = done
        .run
        .applications
        .iter()
        .map(|a| {
            let (state, final_status) = a.ending().unwrap_or(("NOT-SUBMITTED", "NONE"));
            AppEnding {
                entry: a.entry.clone(),
                id: a.yarn_app_id.clone(),
                state: state.to_string(),
                final_status: final_status.to_string(),
            }
        })
        .collect();
    Ok(ManyShown {
        violated: !done.run.violations.is_empty(),
        expect_failed: !done.expect_failures.is_empty(),
        fingerprint: done.run.fingerprint,
        applications,
    })
}
