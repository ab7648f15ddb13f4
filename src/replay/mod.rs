//! `sparkyard replay` and `sparkyard what-if`: a real Spark event log becomes a typed
//! application model (`model`, read by `reader` and `events` as Spark's `EventLogFileReader` and
//! `JsonProtocol` write it), a program the simulated driver runs (`program`; the recording's
//! task locality as its stages' preferred hosts: `locality`), a run through the
//! full YARN lifecycle (`simulate`), a report next to the recorded figures and Sparklens' model
//! (`analysis`, `report`), and a grid of configurations under many seeds (`whatif`,
//! `cluster_keys`, `plot`); `cluster` and `cluster_report`: many logs replayed together on one
//! cluster (`sparkyard replay-cluster`); `cluster_grid` and `cluster_whatif`: that day for every
//! configuration of a grid under many seeds (`sparkyard what-if-cluster`).

pub mod accuracy;
pub mod analysis;
pub mod cluster;
pub mod cluster_deadline;
pub mod cluster_grid;
pub mod cluster_keys;
pub mod cluster_plot;
pub mod cluster_report;
pub mod cluster_whatif;
pub mod cluster_whatif_report;
pub mod cold_start;
pub mod events;
pub mod executor_loss;
pub mod gpus;
pub mod locality;
pub mod model;
pub mod placement;
pub mod plot;
pub mod program;
pub mod reader;
pub mod report;
pub mod simulate;
pub mod slot_release;
pub mod spark_keys;
pub mod whatif;

use crate::error::UserError;
use std::path::Path;

/// Reads the log, replays it once under `setup` and `seed`, and reports.
pub fn replay(
    path: &Path,
    setup: &simulate::ReplaySetup,
) -> Result<report::ReplayReport, UserError> {
    replay_inspecting(path, setup, |_| Ok(()))
}

/// [`replay`], handing the prepared run to `inspect` before it runs (`replay --verbose` prints
/// its spark-submit arguments).
pub fn replay_inspecting(
    path: &Path,
    setup: &simulate::ReplaySetup,
    inspect: impl FnOnce(&simulate::Prepared) -> Result<(), UserError>,
) -> Result<report::ReplayReport, UserError> {
    let app = model::load(path)?;
    let prepared = simulate::prepare(&app, setup)?;
    inspect(&prepared)?;
    let sim = simulate::run_writing_log(&prepared, setup.submit.sim.seed, &app)?;
    let mut report = report::build(&path.display().to_string(), &app, &prepared, &sim);
    report.accuracy = Some(accuracy::of_replay(&app, setup, &sim)?);
    if setup.scenario.is_some() {
        report.faults_fired = Some(sim.faults_fired.clone());
    }
    Ok(report)
}
