//! `sparkyard replay-cluster`'s report: per application its recorded and simulated time, its
//! time ACCEPTED (YARN's queue wait: submitted to its AM container's allocation) and its wait
//! for executors; per queue its applications and peak memory held against its guaranteed
//! capacity (the CapacityScheduler's `capacity`); the cluster's utilisation. A typed record,
//! printed as a table or as JSON (`--json`).

use super::simulate::FiredFault;
use crate::record::ApplicationResult;
use serde::Serialize;
use sparkyard_actors::simulation::observer::RunEvent;
use std::fmt::Write as _;

/// A log left out with `--skip-bad`, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SkippedLog {
    pub path: String,
    pub error: String,
}

/// When the YARN facts of one application happened, virtual ms since the cluster started.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppTimes {
    /// The Client submitted it to the RM (`submitApplication`).
    pub submitted_ms: Option<u64>,
    /// The RM allocated its first AM container (it left ACCEPTED).
    pub am_allocated_ms: Option<u64>,
    /// Its last AM container completed.
    pub am_completed_ms: Option<u64>,
}

impl AppTimes {
    /// Folds one of the application's events in, at `now`.
    pub fn apply(&mut self, e: &RunEvent, now: u64) {
        match e {
            RunEvent::ApplicationSubmitted(_) => {
                self.submitted_ms.get_or_insert(now);
            }
            RunEvent::AmContainerAllocated { .. } => {
                self.am_allocated_ms.get_or_insert(now);
            }
            RunEvent::AmContainerCompleted { .. } => self.am_completed_ms = Some(now),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct DayReport {
    /// Where the cluster came from (its file, the scenario's, the embedded one).
    pub cluster: String,
    pub nodes: usize,
    pub cluster_memory_mb: u64,
    pub cluster_vcores: u64,
    pub seed: u64,
    /// In submission order.
    pub applications: Vec<AppRow>,
    pub queues: Vec<QueueRow>,
    pub utilisation: Utilisation,
    /// When the last application ended, ms after the first was submitted.
    pub day_ms: u64,
    /// Logs left out (`--skip-bad`), each with why.
    pub skipped: Vec<SkippedLog>,
    /// Invariants the run broke (none in a healthy simulation).
    pub violations: Vec<String>,
    /// The scenario's faults that fired, with their times and targets.
    pub faults_fired: Vec<FiredFault>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AppRow {
    pub path: String,
    /// The recorded application id.
    pub app_id: String,
    /// The id the simulated RM gave it (application_<clusterTs>_NNNN, in submission order).
    pub yarn_app_id: Option<String>,
    pub name: String,
    pub user: String,
    pub queue: String,
    /// When its spark-submit started, ms after the first's.
    pub submitted_at_ms: u64,
    /// ApplicationStart to ApplicationEnd: recorded, and simulated as its event log would show.
    pub recorded_ms: u64,
    pub simulated_ms: u64,
    /// Time ACCEPTED: submitted to the RM until its AM container was allocated.
    pub accepted_ms: Option<u64>,
    /// From its SparkContext's start to its first executor's registration.
    pub executor_wait_ms: Option<u64>,
    /// The final YARN state/status (`FINISHED/SUCCEEDED`), or NOT-SUBMITTED.
    pub outcome: String,
    /// Why it did not succeed (spark-submit's exception and YARN's diagnostics).
    pub failure: Option<String>,
    /// Why the simulation could not run it at all (Spark's or YARN's reason).
    pub not_run: Option<String>,
    /// Its `--deadline` and whether its client returned by then.
    pub deadline: Option<super::cluster_deadline::DeadlineOutcome>,
    /// What the scenario's faults cost it (with `--scenario`).
    pub fault_cost: Option<FaultCost>,
    /// The event logs its simulation wrote (`--conf spark.eventLog.enabled=true`).
    pub event_logs: Vec<super::simulate::WrittenEventLog>,
}

/// What a scenario's faults cost one application: what it lost, and how much later its
/// spark-submit returned than in the same day replayed without the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultCost {
    /// Executors its driver lost (killed, on a lost node, exited).
    pub executors_lost: usize,
    /// Task attempts that failed.
    pub tasks_failed: u64,
    /// AM attempts it took (1 when its AM survived).
    pub am_attempts: u32,
    /// Its spark-submit's end with the faults minus without them, ms (negative: sooner).
    pub later_ms: i64,
    /// Task attempts launched beyond the day without the faults: retries of failed tasks and
    /// the tasks of resubmitted stages (negative: fewer, e.g. an application cut short).
    pub extra_task_attempts: i64,
}

impl FaultCost {
    /// What the faults cost an application: its losses in the run `with` them, and its end and
    /// task launches against the same application in the run `without` them. `replay-cluster
    /// --scenario` and a many-application `run` with faults both measure it so.
    pub fn between(with: &ApplicationResult, without: &ApplicationResult) -> FaultCost {
        FaultCost {
            executors_lost: with.counters.executors_lost.len(),
            tasks_failed: with.counters.tasks_failed,
            am_attempts: with.counters.am_attempts,
            later_ms: with.end_ms as i64 - without.end_ms as i64,
            extra_task_attempts: with.counters.tasks_launched as i64
                - without.counters.tasks_launched as i64,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueRow {
    pub name: String,
    /// `capacity`, percent of the cluster.
    pub capacity_percent: f64,
    /// Its guaranteed share of the cluster's memory, MiB.
    pub guaranteed_mb: u64,
    pub applications: usize,
    /// The most memory its applications held at once (AM containers and registered
    /// executors' containers, rounded as YARN normalises them), MiB.
    pub peak_used_mb: u64,
    /// `peak_used_mb` over `guaranteed_mb`, percent (above 100: it borrowed idle capacity).
    pub peak_percent_of_guaranteed: f64,
    /// Its usage over the day (`--json`): a point at each instant it changed.
    pub usage: Vec<QueueUsage>,
}

/// A queue's state from `at_ms` on (until the next point).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QueueUsage {
    pub at_ms: u64,
    /// Memory its applications held (as `peak_used_mb` counts it), MiB.
    pub used_mb: u64,
    /// `used_mb` over the queue's guaranteed memory, percent (above 100: it borrowed).
    pub percent_of_guaranteed: f64,
    /// Its applications submitted and still ACCEPTED (no AM container yet).
    pub pending_applications: u64,
    /// Containers its applications wait for: each ACCEPTED application's AM container, and
    /// the executors each YarnAllocator's target asks for beyond those registered (YARN's
    /// pending requests and the containers still starting).
    pub pending_containers: u64,
}

/// What a queue's steps count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Channel {
    Memory,
    Applications,
    Containers,
}

/// A queue's steps over the day, by what they count (each a `Held` whose `delta_mb` is MiB,
/// or applications or containers).
pub struct QueueSteps {
    /// Memory held.
    pub held: Vec<Held>,
    /// Applications ACCEPTED: +1 at a submission, -1 at its AM's allocation.
    pub pending_applications: Vec<Held>,
    /// Containers waited for.
    pub pending_containers: Vec<Held>,
}

/// The queue's usage over time from its steps, against its guarantee: one point per instant,
/// releases counted first.
pub fn usage_over_time(steps: QueueSteps, guaranteed_mb: u64) -> Vec<QueueUsage> {
    let tagged = |v: Vec<Held>, c: Channel| v.into_iter().map(move |h| (h, c));
    let mut all: Vec<(Held, Channel)> = tagged(steps.held, Channel::Memory).collect();
    all.extend(tagged(steps.pending_applications, Channel::Applications));
    all.extend(tagged(steps.pending_containers, Channel::Containers));
    all.sort();
    let (mut used, mut waiting, mut containers) = (0i64, 0i64, 0i64);
    let mut out: Vec<QueueUsage> = Vec::new();
    for (h, channel) in all {
        match channel {
            Channel::Memory => used += h.delta_mb,
            Channel::Applications => waiting += h.delta_mb,
            Channel::Containers => containers += h.delta_mb,
        }
        let used_mb = used.max(0) as u64;
        let point = QueueUsage {
            at_ms: h.at_ms,
            used_mb,
            percent_of_guaranteed: percent(used_mb, guaranteed_mb),
            pending_applications: waiting.max(0) as u64,
            pending_containers: containers.max(0) as u64,
        };
        match out.last_mut() {
            Some(last) if last.at_ms == h.at_ms => *last = point,
            _ => out.push(point),
        }
    }
    out
}

/// `part` over `whole`, percent (0 when `whole` is 0).
pub fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    100.0 * part as f64 / whole as f64
}

/// A queue's state at `at_ms`: its last point at or before it (nothing held before its first).
pub fn usage_at(usage: &[QueueUsage], at_ms: u64) -> Option<&QueueUsage> {
    let after = usage.partition_point(|u| u.at_ms <= at_ms);
    after.checked_sub(1).map(|i| &usage[i])
}

#[derive(Clone, Debug, Serialize)]
pub struct Utilisation {
    /// Task time x task cpus over every application, core-hours.
    pub busy_core_hours: f64,
    /// The cluster's vcores over the day, core-hours.
    pub available_core_hours: f64,
    /// `busy_core_hours` over `available_core_hours`, percent.
    pub percent: f64,
}

/// A step of a queue's memory held: at `at_ms`, `delta_mb` more (or less).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Held {
    pub at_ms: u64,
    pub delta_mb: i64,
}

/// YARN's normalisation of a request: up to a multiple of the minimum allocation.
pub fn normalised(mb: u64, minimum_mb: u64) -> i64 {
    let step = minimum_mb.max(1);
    (mb.div_ceil(step) * step) as i64
}

/// The most held at once over `steps` (releases at an instant counted before allocations).
pub fn peak_mb(mut steps: Vec<Held>) -> u64 {
    steps.sort();
    let (mut now, mut peak) = (0i64, 0i64);
    for s in steps {
        now += s.delta_mb;
        peak = peak.max(now);
    }
    peak.max(0) as u64
}

fn deadline_text(a: &AppRow) -> &'static str {
    match &a.deadline {
        None => "-",
        Some(d) if d.met => "met",
        Some(_) => "MISSED",
    }
}

fn secs(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

fn opt_secs(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".into(), secs)
}

/// The report as a table.
pub fn table(r: &DayReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "replay-cluster: {} application(s) on {} node(s) ({} MiB, {} vcores; {}), seed {}",
        r.applications.len(),
        r.nodes,
        r.cluster_memory_mb,
        r.cluster_vcores,
        r.cluster,
        r.seed
    );
    let _ = writeln!(
        o,
        "\n{:<3} {:<30} {:<10} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}  outcome",
        "#",
        "application",
        "user",
        "queue",
        "submit",
        "recorded",
        "simulated",
        "accepted",
        "exec wait",
        "deadline"
    );
    for (i, a) in r.applications.iter().enumerate() {
        let _ = writeln!(
            o,
            "{:<3} {:<30} {:<10} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}  {}",
            i + 1,
            a.yarn_app_id.as_deref().unwrap_or(&a.app_id),
            a.user,
            a.queue,
            secs(a.submitted_at_ms),
            secs(a.recorded_ms),
            secs(a.simulated_ms),
            opt_secs(a.accepted_ms),
            opt_secs(a.executor_wait_ms),
            deadline_text(a),
            a.outcome
        );
    }
    let _ = writeln!(o, "\n(logs, in that order:)");
    for (i, a) in r.applications.iter().enumerate() {
        let _ = writeln!(o, "{:<3} {} ({}, {})", i + 1, a.path, a.app_id, a.name);
        if let Some(why) = a.not_run.as_ref().or(a.failure.as_ref()) {
            let _ = writeln!(o, "    {why}");
        }
        for log in &a.event_logs {
            let _ = writeln!(o, "    event log: {}", log.path);
            if let Some(refused) = &log.refused {
                let _ = writeln!(o, "    {refused}");
            }
        }
    }
    let _ = writeln!(
        o,
        "\n{:<12} {:>9} {:>14} {:>5} {:>14} {:>12}",
        "queue", "capacity", "guaranteed", "apps", "peak held", "of guarantee"
    );
    for q in &r.queues {
        let _ = writeln!(
            o,
            "{:<12} {:>8.1}% {:>10} MiB {:>5} {:>10} MiB {:>11.1}%",
            q.name,
            q.capacity_percent,
            q.guaranteed_mb,
            q.applications,
            q.peak_used_mb,
            q.peak_percent_of_guaranteed
        );
    }
    usage_table(&mut o, r);
    let u = &r.utilisation;
    let _ = writeln!(
        o,
        "\nday: {}; cluster utilisation {:.1}% ({:.3} busy core-hours of {:.3})",
        secs(r.day_ms),
        u.percent,
        u.busy_core_hours,
        u.available_core_hours
    );
    let with: Vec<_> = r
        .applications
        .iter()
        .filter_map(|a| a.deadline.as_ref())
        .collect();
    if !with.is_empty() {
        let missed = with.iter().filter(|d| !d.met).count();
        let _ = writeln!(o, "deadlines: {} met, {missed} missed", with.len() - missed);
    }
    for s in &r.skipped {
        let _ = writeln!(o, "skipped {}: {}", s.path, s.error);
    }
    for f in &r.faults_fired {
        let _ = writeln!(
            o,
            "fault at {}: {} ({})",
            secs(f.at_ms),
            f.label,
            f.outcome()
        );
    }
    fault_costs(&mut o, r);
    for v in &r.violations {
        let _ = writeln!(o, "violation: {v}");
    }
    o
}

/// Rows of the usage table: the start of each twelfth of the day.
const USAGE_ROWS: u64 = 12;

/// Each queue's usage at the start of each twelfth of the day (`--json` has every change):
/// memory held against its guarantee, applications ACCEPTED, containers waited for.
fn usage_table(o: &mut String, r: &DayReport) {
    if r.day_ms == 0 || r.queues.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\nqueue usage over the day (memory held, % of guaranteed / applications ACCEPTED / containers pending):"
    );
    let width = 22;
    let mut head = format!("{:>9}", "at");
    for q in &r.queues {
        let _ = write!(head, " {:>width$}", q.name);
    }
    let _ = writeln!(o, "{head}");
    for k in 0..USAGE_ROWS {
        let at_ms = r.day_ms * k / USAGE_ROWS;
        let mut line = format!("{:>9}", secs(at_ms));
        for q in &r.queues {
            let cell = usage_at(&q.usage, at_ms).map_or_else(
                || "0.0%/0/0".to_string(),
                |u| {
                    format!(
                        "{:.1}%/{}/{}",
                        u.percent_of_guaranteed, u.pending_applications, u.pending_containers
                    )
                },
            );
            let _ = write!(line, " {cell:>width$}");
        }
        let _ = writeln!(o, "{line}");
    }
}

/// Each application's cost of the scenario's faults, when a scenario ran.
fn fault_costs(o: &mut String, r: &DayReport) {
    let costs: Vec<Option<&FaultCost>> = r
        .applications
        .iter()
        .map(|a| a.fault_cost.as_ref())
        .collect();
    o.push_str(&fault_cost_table(&costs, "the day without the scenario"));
}

/// The table of each application's cost of the faults (numbered in submission order), against
/// `baseline`; empty when no application has one. `replay-cluster` and a many-application `run`
/// print it.
pub fn fault_cost_table(costs: &[Option<&FaultCost>], baseline: &str) -> String {
    let mut o = String::new();
    if costs.iter().all(Option::is_none) {
        return o;
    }
    let _ = writeln!(
        o,
        "\nfault cost (vs {baseline}):\n{:<3} {:>14} {:>12} {:>14} {:>11} {:>10}",
        "#", "executors lost", "tasks failed", "extra attempts", "AM attempts", "later by"
    );
    for (i, c) in costs.iter().enumerate() {
        if let Some(c) = c {
            let later = format!("{:.1}s", c.later_ms as f64 / 1000.0);
            let _ = writeln!(
                o,
                "{:<3} {:>14} {:>12} {:>14} {:>11} {:>10}",
                i + 1,
                c.executors_lost,
                c.tasks_failed,
                c.extra_task_attempts,
                c.am_attempts,
                later
            );
        }
    }
    o
}

/// The report as JSON.
pub fn json(r: &DayReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_counts_a_release_before_an_allocation_at_the_same_instant() {
        let steps = vec![
            Held {
                at_ms: 0,
                delta_mb: 1024,
            },
            Held {
                at_ms: 10,
                delta_mb: 2048,
            },
            Held {
                at_ms: 10,
                delta_mb: -1024,
            },
            Held {
                at_ms: 20,
                delta_mb: -2048,
            },
        ];
        assert_eq!(peak_mb(steps), 2048);
    }

    #[test]
    fn usage_over_time_has_one_point_per_instant_with_what_was_held_and_waiting() {
        let at = |at_ms, delta_mb| Held { at_ms, delta_mb };
        let held = vec![at(5, 1024), at(10, 2048), at(10, -1024), at(20, -2048)];
        let pending = vec![at(0, 1), at(3, 1), at(5, -1), at(10, -1)];
        let containers = vec![at(0, 1), at(3, 1), at(5, 1), at(10, -3)];
        let steps = QueueSteps {
            held,
            pending_applications: pending,
            pending_containers: containers,
        };
        let usage = usage_over_time(steps, 4096);
        let points: Vec<(u64, u64, u64, u64)> = usage
            .iter()
            .map(|p| {
                let (t, mb, apps) = (p.at_ms, p.used_mb, p.pending_applications);
                (t, mb, apps, p.pending_containers)
            })
            .collect();
        assert_eq!(
            points,
            [
                (0, 0, 1, 1),
                (3, 0, 2, 2),
                (5, 1024, 1, 3),
                (10, 2048, 0, 0),
                (20, 0, 0, 0)
            ]
        );
        assert_eq!(usage[3].percent_of_guaranteed, 50.0);
        assert_eq!(usage_at(&usage, 4).map(|u| u.at_ms), Some(3));
        assert_eq!(usage_at(&usage, 25).map(|u| u.used_mb), Some(0));
        assert!(usage_at(&usage[1..], 2).is_none());
    }

    #[test]
    fn yarn_rounds_a_container_up_to_the_minimum_allocation() {
        // SchedulerUtils.normalizeResource: a multiple of yarn.scheduler.minimum-allocation-mb.
        assert_eq!(normalised(1408, 1024), 2048);
        assert_eq!(normalised(1024, 1024), 1024);
    }
}
