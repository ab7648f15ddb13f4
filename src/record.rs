//! The record of one run: everything a finished simulation leaves behind ([`RunResult`]: the
//! outcome, counters, logs, trace, listener events, faults and violations), what watches it run
//! ([`ProgressHook`]) and the executor costs its task metrics are modelled from. It sits below
//! the runner that makes it and the outputs, invariants, scenarios and reports that read it, so
//! none of them imports another to learn what happened.

use sparkyard_actors::simulation::config::CostModel;
use sparkyard_actors::simulation::context::{ClientOutcome, SimContext};
use sparkyard_actors::simulation::invariants::Violation;
use sparkyard_actors::simulation::logs::LogStore;
use sparkyard_actors::simulation::observer::RunCounters;
use sparkyard_actors::simulation::trace::TraceEvent;
use std::rc::Rc;

/// A callback that looks at the running simulation (progress bars); it must not send messages.
pub type ProgressHook = Rc<dyn Fn(&SimContext)>;

/// Everything a finished run leaves behind.
pub struct RunResult {
    pub outcome: ClientOutcome,
    pub counters: RunCounters,
    pub logs: LogStore,
    pub trace: Vec<TraceEvent>,
    pub fingerprint: u64,
    /// Labels of the trace's mailboxes (`Executor@container_...`), by endpoint id.
    pub labels: Vec<String>,
    /// Names of the trace's processes (`container_...`, `nm:<host>`, `rm`), by process id.
    pub processes: Vec<String>,
    pub end_ms: u64,
    pub epoch_ms: u64,
    /// Every SparkContext's listener events (empty unless `record_events`).
    pub events: Vec<sparkyard_actors::simulation::listener::AttemptEvents>,
    /// The faults that fired, in order, each with what it acted on or why it could not.
    pub faults_fired: Vec<sparkyard_actors::simulation::faults::Firing>,
    /// Planned faults whose trigger never happened.
    pub faults_unfired: Vec<sparkyard_actors::simulation::faults::Unfired>,
    /// Invariants broken during the run (the end-of-run ones are in `crate::invariants`).
    pub violations: Vec<sparkyard_actors::simulation::invariants::Violation>,
    /// The executor costs the event log's task metrics are modelled from.
    pub task_costs: TaskCostModel,
}

/// The executor costs the model needs (from the run's `[costs]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskCostModel {
    pub launch_ms: u64,
    pub first_task_warmup_ms: u64,
}

impl Default for TaskCostModel {
    /// The cluster file's defaults (`src/conf/cluster.rs`).
    fn default() -> Self {
        TaskCostModel {
            launch_ms: 5,
            first_task_warmup_ms: 350,
        }
    }
}

impl From<&CostModel> for TaskCostModel {
    fn from(c: &CostModel) -> Self {
        TaskCostModel {
            launch_ms: c.task_launch_overhead_ms,
            first_task_warmup_ms: c.first_task_warmup_ms,
        }
    }
}

/// What one application of a run left behind.
pub struct ApplicationResult {
    pub outcome: ClientOutcome,
    pub counters: RunCounters,
    /// When its client returned (the run's end if it never did), virtual ms.
    pub end_ms: u64,
    /// Its SparkContexts' listener events (empty unless recorded).
    pub events: Vec<sparkyard_actors::simulation::listener::AttemptEvents>,
    /// Its spark-submit's process in the run's trace (noted only when the trace is kept).
    pub client_process: Option<u32>,
}

/// Everything a finished run of one or more applications on one cluster leaves behind.
pub struct ClusterRunResult {
    /// In submission order.
    pub applications: Vec<ApplicationResult>,
    pub logs: LogStore,
    pub trace: Vec<TraceEvent>,
    pub fingerprint: u64,
    pub labels: Vec<String>,
    pub processes: Vec<String>,
    /// When the last application ended (or the run was cut short), virtual ms.
    pub end_ms: u64,
    pub epoch_ms: u64,
    pub faults_fired: Vec<sparkyard_actors::simulation::faults::Firing>,
    pub faults_unfired: Vec<sparkyard_actors::simulation::faults::Unfired>,
    pub violations: Vec<Violation>,
}

impl ClusterRunResult {
    /// The `i`-th application (in submission order) as a report names it: its YARN id, or its
    /// place when it was never submitted.
    pub fn application_name(&self, i: usize) -> String {
        let id = self
            .applications
            .get(i)
            .and_then(|a| a.outcome.application_id);
        id.map_or_else(
            || format!("application {} (not submitted)", i + 1),
            |id| id.to_string(),
        )
    }

    /// The invariants broken while the run went on, each naming the application it is about
    /// (or the cluster), as `invariant: who: detail`.
    pub fn violation_texts(&self) -> Vec<String> {
        self.violations
            .iter()
            .map(|v| self.violation_text(v))
            .collect()
    }

    /// One broken invariant as `invariant: who: detail` (who: [`Self::application_name`] of
    /// its application, or the cluster).
    pub fn violation_text(&self, v: &Violation) -> String {
        let who = v
            .application
            .map_or_else(|| "the cluster".to_string(), |i| self.application_name(i));
        format!("{}: {who}: {}", v.invariant, v.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;

    fn app(id: Option<u32>) -> ApplicationResult {
        ApplicationResult {
            outcome: ClientOutcome {
                application_id: id.map(|id| ApplicationId {
                    cluster_timestamp: 1764662400000,
                    id,
                }),
                state: None,
                final_status: None,
                diagnostics: String::new(),
                original_tracking_url: None,
                exception: None,
                finished_at_ms: 0,
                temp_dir: String::new(),
            },
            counters: RunCounters::default(),
            end_ms: 0,
            events: Vec::new(),
            client_process: None,
        }
    }

    fn violation(application: Option<usize>) -> Violation {
        Violation {
            invariant: "executor-registers-once",
            detail: "executor 1 registered twice".into(),
            time_ms: 5,
            application,
        }
    }

    /// Issue 28: in a run of several applications, a broken invariant names the application
    /// it is about (its YARN id, or its place when it was never submitted), or the cluster.
    #[test]
    fn a_broken_invariant_names_its_application_or_the_cluster() {
        let ran = ClusterRunResult {
            applications: vec![app(Some(1)), app(None)],
            logs: LogStore::new(false),
            trace: Vec::new(),
            fingerprint: 0,
            labels: Vec::new(),
            processes: Vec::new(),
            end_ms: 0,
            epoch_ms: 0,
            faults_fired: Vec::new(),
            faults_unfired: Vec::new(),
            violations: vec![violation(Some(0)), violation(Some(1)), violation(None)],
        };
        assert_eq!(
            ran.violation_texts(),
            [
                "executor-registers-once: application_1764662400000_0001: executor 1 registered twice",
                "executor-registers-once: application 2 (not submitted): executor 1 registered twice",
                "executor-registers-once: the cluster: executor 1 registered twice",
            ]
        );
    }
}
