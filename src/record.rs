//! The record of one run: everything a finished simulation leaves behind ([`RunResult`]: the
//! outcome, counters, logs, trace, listener events, faults and violations), what watches it run
//! ([`ProgressHook`]) and the executor costs its task metrics are modelled from. It sits below
//! the runner that makes it and the outputs, invariants, scenarios and reports that read it, so
//! none of them imports another to learn what happened.

use sparkyard_actors::kernel::logs::LogStore;
use sparkyard_actors::kernel::trace::TraceEvent;
use sparkyard_actors::world::config::CostModel;
use sparkyard_actors::world::context::{ClientOutcome, SimContext};
use sparkyard_actors::world::observer::RunCounters;
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
    pub events: Vec<sparkyard_actors::world::listener::AttemptEvents>,
    /// The faults that fired, in order, each with what it acted on or why it could not.
    pub faults_fired: Vec<sparkyard_actors::faults::Firing>,
    /// Planned faults whose trigger never happened.
    pub faults_unfired: Vec<sparkyard_actors::faults::Unfired>,
    /// Invariants broken during the run (the end-of-run ones are in `crate::invariants`).
    pub violations: Vec<sparkyard_actors::world::invariants::Violation>,
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
    pub events: Vec<sparkyard_actors::world::listener::AttemptEvents>,
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
    pub faults_fired: Vec<sparkyard_actors::faults::Firing>,
    pub faults_unfired: Vec<sparkyard_actors::faults::Unfired>,
    pub violations: Vec<sparkyard_actors::world::invariants::Violation>,
}
