//! What a run leaves besides the console and the container logs (issue 4): Spark event logs the
//! real History Server reads (`eventlog`), a Chrome/Perfetto timeline (`timeline`), a Mermaid
//! sequence diagram (`sequence`) and a progress bar (`progress`), plus the flags that ask for
//! them (`OutputArgs`, flattened into `sparkyard submit`). Every file is a function of the run,
//! so the same seed gives the same bytes.

mod classpath;
mod environment;
pub mod eventlog;
mod eventlog_file_writer;
pub mod eventlog_rolling;
mod json;
pub mod progress;
pub mod runmap;
pub mod sequence;
mod stack_traces;
pub mod task_metrics;
pub mod timeline;

pub use eventlog::write_event_logs;
pub use progress::progress_hook;
pub use sequence::{SequenceFilter, sequence_diagram, write_sequence};
pub use timeline::write_chrome_trace;

use crate::error::UserError;
use crate::record::{ProgressHook, RunResult};
use sparkyard_actors::simulation::config::SparkSettings;
use std::cell::RefCell;
use std::path::PathBuf;

/// The output flags of `sparkyard submit` (the event log is Spark's own `--conf
/// spark.eventLog.*`).
#[derive(clap::Args, Debug, Default)]
pub struct OutputArgs {
    /// Write a timeline of the run (Chrome Trace Event JSON: open it in ui.perfetto.dev or
    /// chrome://tracing).
    #[arg(long = "trace", value_name = "FILE", help_heading = "Output options")]
    pub trace: Option<PathBuf>,
    /// Write a Mermaid sequence diagram of the lifecycle messages.
    #[arg(
        long = "sequence",
        value_name = "FILE",
        help_heading = "Output options"
    )]
    pub sequence: Option<PathBuf>,
    /// In the sequence diagram, only executor N's path (and the steps that launch it).
    #[arg(
        long = "sequence-executor",
        value_name = "N",
        requires = "sequence",
        help_heading = "Output options"
    )]
    pub sequence_executor: Option<u32>,
    /// In the sequence diagram, leave out task messages (LaunchTask, StatusUpdate, ReviveOffers, heartbeats).
    #[arg(
        long = "sequence-no-tasks",
        requires = "sequence",
        help_heading = "Output options"
    )]
    pub sequence_no_tasks: bool,
    /// In the sequence diagram, only the first N messages.
    #[arg(
        long = "sequence-limit",
        value_name = "N",
        requires = "sequence",
        help_heading = "Output options"
    )]
    pub sequence_limit: Option<usize>,
    /// Never draw the progress bar (it is drawn only when stderr is a terminal, and not with --quiet).
    #[arg(long = "no-progress", help_heading = "Output options")]
    pub no_progress: bool,
    /// Keep no container logs (no --log-dir files, no driver stdout in the summary): saves the
    /// memory and time of big runs.
    #[arg(long = "no-container-logs", help_heading = "Output options")]
    pub no_container_logs: bool,
    /// The bar drawn by [`OutputArgs::progress`], cleared before anything else is printed.
    #[arg(skip)]
    bar: RefCell<Option<indicatif::ProgressBar>>,
}

impl OutputArgs {
    /// Whether the outputs need the SparkListener events (the timeline draws exact tasks from
    /// them); the pipeline adds them for an enabled event log.
    pub fn wants_events(&self) -> bool {
        self.trace.is_some()
    }

    /// Whether the run keeps the container logs (`RunOptions::capture_logs`).
    pub fn keeps_container_logs(&self) -> bool {
        !self.no_container_logs
    }

    /// Refuses, before the run, an output file that could not be written at the end (a missing
    /// directory, a directory in its place), so a long run does not end without its summary.
    pub fn check_paths(&self) -> Result<(), UserError> {
        for (flag, path) in [("--trace", &self.trace), ("--sequence", &self.sequence)] {
            if let Some(p) = path {
                check_output_path(flag, p)?;
            }
        }
        Ok(())
    }

    /// Refuses flags a scenario cannot honour: its `[expect]` reads logs that
    /// `--no-container-logs` would not keep.
    pub fn check_scenario(&self, s: &crate::scenario::Scenario) -> Result<(), UserError> {
        let e = &s.expect;
        if self.no_container_logs && !(e.logs_contain.is_empty() && e.logs_not_contain.is_empty()) {
            return Err(UserError::file(
                s.path.display().to_string(),
                "expect.logs_contain / logs_not_contain read the container logs, which --no-container-logs does not keep; drop one of them",
            ));
        }
        Ok(())
    }

    /// The progress hook for `RunOptions.progress`.
    pub fn progress(&self, quiet: bool) -> Option<ProgressHook> {
        if self.no_progress {
            return None;
        }
        progress_hook(quiet, Some(&self.bar))
    }

    /// Clears the progress bar (call it once the run is over, before printing).
    pub fn finish_progress(&self) {
        if let Some(pb) = self.bar.borrow_mut().take() {
            pb.finish_and_clear();
        }
    }

    pub fn filter(&self) -> SequenceFilter {
        SequenceFilter {
            executor: self.sequence_executor,
            no_tasks: self.sequence_no_tasks,
            limit: self.sequence_limit,
        }
    }

    /// Writes every output asked for; returns the lines to print (`event log: <path>`, ...).
    pub fn write(
        &self,
        result: &RunResult,
        spark: &SparkSettings,
    ) -> Result<Vec<String>, UserError> {
        self.finish_progress();
        let mut lines = Vec::new();
        for w in eventlog::write_event_logs_reporting(result, spark)? {
            let path = w.path.display().to_string();
            lines.push(eventlog::written_line(&path, w.refused.as_deref()));
        }
        if let Some(path) = &self.trace {
            write_chrome_trace(result, path)?;
            lines.push(format!(
                "timeline: {} (open in https://ui.perfetto.dev or chrome://tracing)",
                path.display()
            ));
        }
        if let Some(path) = &self.sequence {
            let filter = self.filter();
            let text = sequence_diagram(result, &filter);
            std::fs::write(path, &text).map_err(|e| {
                UserError::file(
                    path.display().to_string(),
                    format!("cannot write the sequence diagram: {e}"),
                )
            })?;
            lines.push(format!("sequence diagram: {}", path.display()));
            lines.extend(sequence::warnings(result, &filter, text.len()));
        }
        Ok(lines)
    }
}

/// `flag`'s file can be created: its directory exists and it is not a directory.
fn check_output_path(flag: &str, path: &std::path::Path) -> Result<(), UserError> {
    let err = |m: String| UserError::file(path.display().to_string(), format!("{flag}: {m}"));
    if path.is_dir() {
        return Err(err("is a directory; give a file name".into()));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(err(format!(
            "the directory {} does not exist (checked before the run, so the run is not wasted)",
            dir.display()
        )));
    }
    Ok(())
}
