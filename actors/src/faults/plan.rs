//! Faults as data: a plan of (trigger, action) pairs, applied by the controller the roles notify
//! at the events a trigger can name.

use crate::kernel::trace::FaultTarget;
use crate::rpc::network::{LinkRule, ProcessPattern};
use std::cell::RefCell;

/// When a planned fault fires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// At this virtual time (ms since the submission began).
    At { ms: u64 },
    /// When executor `executor` of AM attempt `attempt` has registered with its driver.
    ExecutorRegistered { attempt: u32, executor: u32 },
    /// When task `index` of stage `stage` starts (its first attempt), in AM attempt `attempt`.
    TaskStarted {
        attempt: u32,
        stage: u32,
        index: u32,
    },
    /// When `count` tasks have finished successfully in AM attempt `attempt`.
    TasksFinished { attempt: u32, count: u64 },
    /// When AM attempt `attempt` starts.
    AttemptStarted { attempt: u32 },
}

/// How a container is ended by a fault (the messages' type: a replayed task's executor loss
/// ends its container so too).
pub use sparkyard_messages::task::ContainerEnd;

/// What a planned fault does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultAction {
    /// End executor `executor`'s container (of the current AM attempt).
    KillExecutor { executor: u32, end: ContainerEnd },
    /// End the container of the executor that registered `rank`-th (from 1) with the current
    /// AM attempt's driver (a replayed log's executor lost while it ran nothing: the k-th to
    /// register stands for the log's k-th).
    KillRegisteredExecutor { rank: u32, end: ContainerEnd },
    /// The AM container (with the driver) of the current attempt ends.
    KillApplicationMaster { end: ContainerEnd },
    /// The NodeManager on the node dies with its containers.
    KillNode { node: NodeTarget },
    /// The RM gracefully decommissions the node (`yarn rmadmin -refreshNodes -g`): it goes
    /// DECOMMISSIONING, takes no new containers, and leaves once its work is done.
    DecommissionNode { node: NodeTarget },
    /// The next `count` containers that start on the node fail to launch (exit status -1000).
    FailLaunches { node: NodeTarget, count: u32 },
    /// The driver's scheduler excludes the node: executors registering from it are rejected.
    ExcludeNode { node: NodeTarget },
    /// Add network rules from now on (drop, delay, duplicate, partition).
    Network(Vec<LinkRule>),
    /// The next `count` attempts of reduce partition `partition` of stage `stage` fail to fetch
    /// their first map output block (`FetchFailedException`), whatever its server's state.
    FailFetches {
        stage: u32,
        partition: u32,
        count: u32,
    },
    /// The NodeManager on the node keeps running but its `spark_shuffle` aux service stops.
    KillShuffleService { node: NodeTarget },
    /// The node turns slow (a straggler node: a bad disk, a noisy neighbour): tasks launched
    /// there for `duration_ms` (`None`: until the end) run `factor_milli / 1000` times as long.
    SlowNode {
        node: NodeTarget,
        factor_milli: u64,
        duration_ms: Option<u64>,
    },
    /// Every task run on executor `executor` (of the current AM attempt) from now on throws
    /// `exception` (a bad executor: a broken local disk, a bad library on its node).
    FailTasksOnExecutor { executor: u32, exception: String },
    /// The application's user kills it (`yarn application -kill <id>` on the submitting host):
    /// the RM's KILL.
    KillApplication,
}

/// Which node a node fault acts on: a host, or a node of the application, resolved when the
/// fault fires (`world::injector`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeTarget {
    /// This NodeManager's host.
    Host(String),
    /// The node of the current AM attempt's container (the driver's, in cluster mode).
    AmNode,
    /// The node of executor N of the current AM attempt.
    ExecutorNode(u32),
    /// The node of the K-th running executor of the current AM attempt, in executor id order
    /// (K counts from 1 and wraps around the running ones), so it always hits the application
    /// while any executor runs.
    RunningExecutor(u32),
}

impl NodeTarget {
    /// Whether resolving it looks an executor up by id.
    fn names_executors(&self) -> bool {
        matches!(
            self,
            NodeTarget::ExecutorNode(_) | NodeTarget::RunningExecutor(_)
        )
    }
}

impl std::fmt::Display for NodeTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeTarget::Host(h) => f.write_str(h),
            NodeTarget::AmNode => f.write_str("the AM's node"),
            NodeTarget::ExecutorNode(n) => write!(f, "executor {n}'s node"),
            NodeTarget::RunningExecutor(k) => write!(f, "the node of running executor #{k}"),
        }
    }
}

/// A fault that fired: when, its label, what it acted on (resolved as it fired: a container, a
/// node's host) and, when it could not act, exactly why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Firing {
    pub at_ms: u64,
    /// The application it acted in (submission index).
    pub app: usize,
    pub label: String,
    pub target: FaultTarget,
    pub no_effect: Option<String>,
}

/// A planned fault that never fired: its label and the trigger that never happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfired {
    pub label: String,
    pub trigger: Trigger,
}

impl Trigger {
    /// The AM attempt an event trigger waits in (`None` for a time).
    pub fn attempt(&self) -> Option<u32> {
        match self {
            Trigger::At { .. } => None,
            Trigger::ExecutorRegistered { attempt, .. }
            | Trigger::TaskStarted { attempt, .. }
            | Trigger::TasksFinished { attempt, .. }
            | Trigger::AttemptStarted { attempt } => Some(*attempt),
        }
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::At { ms } => write!(f, "the time {ms} ms"),
            Trigger::ExecutorRegistered { attempt, executor } => {
                write!(f, "executor {executor} of AM attempt {attempt} registering")
            }
            Trigger::TaskStarted {
                attempt,
                stage,
                index,
            } => write!(
                f,
                "task {index} of stage {stage} starting in AM attempt {attempt}"
            ),
            Trigger::TasksFinished { attempt, count } => {
                write!(f, "{count} task(s) finishing in AM attempt {attempt}")
            }
            Trigger::AttemptStarted { attempt } => write!(f, "AM attempt {attempt} starting"),
        }
    }
}

/// A slow node in effect: its factor (thousandths) and until when (virtual ms; `None`: ever).
#[derive(Debug)]
struct SlowNode {
    host: String,
    factor_milli: u64,
    until_ms: Option<u64>,
}

impl FaultAction {
    /// Whether firing it looks an executor up by id.
    fn names_executors(&self) -> bool {
        let by_id = |p: &ProcessPattern| matches!(p, ProcessPattern::Executor(_));
        match self {
            FaultAction::KillExecutor { .. }
            | FaultAction::KillRegisteredExecutor { .. }
            | FaultAction::FailTasksOnExecutor { .. } => true,
            FaultAction::Network(rules) => rules.iter().any(|r| by_id(&r.from) || by_id(&r.to)),
            FaultAction::KillNode { node }
            | FaultAction::DecommissionNode { node }
            | FaultAction::FailLaunches { node, .. }
            | FaultAction::ExcludeNode { node }
            | FaultAction::KillShuffleService { node }
            | FaultAction::SlowNode { node, .. } => node.names_executors(),
            FaultAction::KillApplicationMaster { .. }
            | FaultAction::FailFetches { .. }
            | FaultAction::KillApplication => false,
        }
    }
}

/// A driver fault planned for one AM attempt of one application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedDriverFault {
    /// The application (submission index).
    pub app: usize,
    /// The AM attempt it acts in (from 1).
    pub attempt: u32,
    pub fault: DriverFault,
}

/// What the user program does wrong in an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverFault {
    /// `main` throws after the SparkContext exists (exit 15).
    ThrowAfterContext(String),
    /// `main` throws before creating a SparkContext (exit forced to 13).
    ThrowBeforeContext(String),
    /// `main` never creates a SparkContext (exit 13 after `spark.yarn.am.waitTime`).
    NeverCreateContext,
}

/// One planned fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedFault {
    pub trigger: Trigger,
    /// Fire this long after the trigger (ms of virtual time).
    pub after_ms: u64,
    pub action: FaultAction,
    /// A label for logs and the trace.
    pub label: String,
    /// The application it aims at, by submission index (0: the first, a single run's only):
    /// its event triggers are that application's events, and its application targets
    /// (`executor:N`, the AM, a running executor, the driver) are that application's. A node
    /// fault acts on the node, so on every application with containers there.
    pub app: usize,
    /// A timed fault's `running_app = K`: the K-th application running when it fires
    /// (submission order, wrapping), which then replaces `app`.
    pub running_app: Option<u32>,
}

/// Where a `fetch-failure` fault's failures happen: a reduce partition of one application's
/// stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchFailureSpot {
    /// The application (submission index).
    pub app: usize,
    pub stage: u32,
    pub partition: u32,
}

/// Armed fetch failures of one reduce partition.
#[derive(Debug)]
struct FetchFailures {
    /// The application whose stage it is (submission index).
    app: usize,
    stage: u32,
    partition: u32,
    /// Failures still to inject, of the `armed` ones.
    count: u32,
    armed: u32,
    /// The fault's firing (its place in `fired`).
    firing: usize,
}

/// The run's fault plan; the roles report events, and faults whose trigger matches fire once.
#[derive(Default)]
pub struct FaultController {
    planned: RefCell<Vec<(PlannedFault, bool)>>,
    /// Driver faults, by application and AM attempt.
    pub driver_faults: Vec<PlannedDriverFault>,
    /// Launch failures still to inject, by host.
    launch_failures: RefCell<Vec<(String, u32)>>,
    /// Fetch failures still to inject, by (stage, reduce partition).
    fetch_failures: RefCell<Vec<FetchFailures>>,
    /// Slow nodes in effect (`slow-node`).
    slow_nodes: RefCell<Vec<SlowNode>>,
    /// Executors whose tasks throw (`failing-executor`).
    failing_executors: RefCell<Vec<FailingExecutor>>,
    /// Faults that fired, in order.
    pub fired: RefCell<Vec<Firing>>,
    /// Whether a planned fault names an executor by id (a kill, or `executor:N` in a network
    /// rule): only then is each launched executor's container recorded (`SimContext::executors`).
    pub names_executors: bool,
    /// Network rules of faults that fired before the executor they name was launched: each
    /// takes effect when that executor's container is (`world::injector::executor_launched`).
    pub waiting_rules: RefCell<Vec<WaitingRule>>,
}

/// An executor whose tasks throw (`failing-executor`).
#[derive(Debug)]
struct FailingExecutor {
    /// Its application (submission index).
    app: usize,
    attempt: u32,
    executor: u32,
    exception: String,
}

/// A network rule waiting for the executor it names to be launched, in its application.
#[derive(Debug)]
pub struct WaitingRule {
    /// The application whose executor the rule names (submission index).
    pub app: usize,
    pub rule: LinkRule,
}

impl FaultController {
    /// Adds a planned fault before the run (a replay's recorded stop beside a scenario's).
    pub fn plan(&mut self, f: PlannedFault) {
        self.names_executors |= f.action.names_executors();
        self.planned.get_mut().push((f, false));
    }

    pub fn new(planned: Vec<PlannedFault>, driver_faults: Vec<PlannedDriverFault>) -> Self {
        let names_executors = planned.iter().any(|f| f.action.names_executors());
        FaultController {
            names_executors,
            planned: RefCell::new(planned.into_iter().map(|f| (f, false)).collect()),
            driver_faults,
            launch_failures: RefCell::new(Vec::new()),
            fetch_failures: RefCell::new(Vec::new()),
            slow_nodes: RefCell::new(Vec::new()),
            failing_executors: RefCell::new(Vec::new()),
            fired: RefCell::new(Vec::new()),
            waiting_rules: RefCell::new(Vec::new()),
        }
    }

    /// The timed faults (armed at boot).
    pub fn timed(&self) -> Vec<(u64, usize)> {
        let planned = self.planned.borrow();
        planned
            .iter()
            .enumerate()
            .filter_map(|(i, (f, _))| match f.trigger {
                Trigger::At { ms } => Some((ms, i)),
                _ => None,
            })
            .collect()
    }

    /// Faults aimed at application `app` whose trigger is `event` (one of its events) and that
    /// have not fired yet; marks them fired.
    pub fn take_matching(&self, app: usize, event: &Trigger) -> Vec<PlannedFault> {
        let mut planned = self.planned.borrow_mut();
        let mut out = Vec::new();
        for (f, fired) in planned.iter_mut().filter(|(f, _)| f.app == app) {
            let hit = match (&f.trigger, event) {
                (
                    Trigger::TasksFinished { attempt, count },
                    Trigger::TasksFinished {
                        attempt: a,
                        count: c,
                    },
                ) => attempt == a && c >= count,
                (t, e) => t == e,
            };
            if hit && !*fired {
                *fired = true;
                out.push(f.clone());
            }
        }
        out
    }

    /// The fault at `index` (a timed one), if it has not fired.
    pub fn take_index(&self, index: usize) -> Option<PlannedFault> {
        let mut planned = self.planned.borrow_mut();
        let (f, fired) = planned.get_mut(index)?;
        if *fired {
            return None;
        }
        *fired = true;
        Some(f.clone())
    }

    /// The faults that fired, each saying why it did nothing where it did nothing: a
    /// `fetch-failure` none of whose failures happened (no task of its partition fetched from a
    /// server after it fired: blocks read from disk cannot fail so, and the partition may not
    /// have run again).
    pub fn fired_report(&self) -> Vec<Firing> {
        let mut fired = self.fired.borrow().clone();
        for f in self.fetch_failures.borrow().iter() {
            let firing = fired.get_mut(f.firing).filter(|x| x.no_effect.is_none());
            if let Some(firing) = firing.filter(|_| f.count == f.armed) {
                firing.no_effect = Some(format!(
                    "no task of stage {}'s partition {} fetched a block from another executor's server after it fired",
                    f.stage, f.partition
                ));
            }
        }
        fired
    }

    /// Planned faults that never fired (their trigger never happened), with their triggers.
    pub fn unfired(&self) -> Vec<Unfired> {
        self.planned
            .borrow()
            .iter()
            .filter(|(_, fired)| !fired)
            .map(|(f, _)| Unfired {
                label: f.label.clone(),
                trigger: f.trigger.clone(),
            })
            .collect()
    }

    pub fn has_event_triggers(&self) -> bool {
        self.planned
            .borrow()
            .iter()
            .any(|(f, fired)| !fired && !matches!(f.trigger, Trigger::At { .. }))
    }

    /// The latest application a planned fault aims at (submission index), if any fault does.
    pub fn last_app_aimed_at(&self) -> Option<usize> {
        let planned = self.planned.borrow().iter().map(|(f, _)| f.app).max();
        let driver = self.driver_faults.iter().map(|d| d.app).max();
        planned.max(driver)
    }

    /// The driver fault of AM attempt `attempt` of application `app` (a `[[faults]]` entry's
    /// `app = N`, the first application when it has none).
    pub fn driver_fault(&self, app: usize, attempt: u32) -> Option<DriverFault> {
        self.driver_faults
            .iter()
            .find(|d| d.app == app && d.attempt == attempt)
            .map(|d| d.fault.clone())
    }

    pub fn add_launch_failures(&self, host: &str, count: u32) {
        self.launch_failures
            .borrow_mut()
            .push((host.to_string(), count));
    }

    pub fn add_failing_executor(&self, app: usize, attempt: u32, executor: u32, exception: String) {
        self.failing_executors.borrow_mut().push(FailingExecutor {
            app,
            attempt,
            executor,
            exception,
        });
    }

    /// The exception a task run on executor `executor` of AM attempt `attempt` of application
    /// `app` throws, if a `failing-executor` fault fired for it (cheap when none did: every
    /// task asks).
    pub fn task_exception(&self, app: usize, attempt: u32, executor: u32) -> Option<String> {
        let failing = self.failing_executors.borrow();
        if failing.is_empty() {
            return None;
        }
        failing
            .iter()
            .rev()
            .find(|f| f.app == app && f.attempt == attempt && f.executor == executor)
            .map(|f| f.exception.clone())
    }

    pub fn add_slow_node(&self, host: &str, factor_milli: u64, until_ms: Option<u64>) {
        self.slow_nodes.borrow_mut().push(SlowNode {
            host: host.to_string(),
            factor_milli,
            until_ms,
        });
    }

    /// How long a task of `ms` launched on `host` now runs: stretched by the latest slow-node
    /// fault in effect there. Cheap when none fired (every launch asks; no clock read then).
    pub fn stretch_task_ms(&self, host: &str, ms: u64) -> u64 {
        let slow = self.slow_nodes.borrow();
        if slow.is_empty() {
            return ms;
        }
        let now_ms = crate::kernel::clock::now_ms();
        let factor = slow
            .iter()
            .rev()
            .find(|s| s.host == host && s.until_ms.is_none_or(|u| now_ms < u))
            .map(|s| s.factor_milli);
        match factor {
            Some(f) => ms.saturating_mul(f) / 1000,
            None => ms,
        }
    }

    /// Arms `count` fetch failures at `spot` for the fault recorded at `firing` in `fired`.
    pub fn add_fetch_failures(&self, spot: FetchFailureSpot, count: u32, firing: usize) {
        self.fetch_failures.borrow_mut().push(FetchFailures {
            app: spot.app,
            stage: spot.stage,
            partition: spot.partition,
            count,
            armed: count,
            firing,
        });
    }

    /// Whether this attempt of reduce partition `partition` of `stage` of application `app`
    /// fails its fetch (consumes one). Cheap when no fetch failure is armed (every reduce task
    /// asks).
    pub fn take_fetch_failure(&self, app: usize, stage: u32, partition: u32) -> bool {
        let mut ff = self.fetch_failures.borrow_mut();
        let armed =
            |f: &&mut FetchFailures| f.app == app && f.stage == stage && f.partition == partition;
        match ff.iter_mut().find(|f| armed(f) && f.count > 0) {
            Some(f) => {
                f.count -= 1;
                true
            }
            None => false,
        }
    }

    /// Whether the next container launch on `host` fails (consumes one).
    pub fn take_launch_failure(&self, host: &str) -> bool {
        let mut lf = self.launch_failures.borrow_mut();
        match lf.iter_mut().find(|(h, n)| h == host && *n > 0) {
            Some((_, n)) => {
                *n -= 1;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn firing(label: &str) -> Firing {
        Firing {
            at_ms: 1_000,
            app: 0,
            label: label.to_string(),
            target: FaultTarget::Nothing,
            no_effect: None,
        }
    }

    /// A `fetch-failure` that no fetch took says so; one that some fetch took acted.
    #[test]
    fn a_fetch_failure_no_fetch_took_says_it_did_nothing() {
        let c = FaultController::default();
        let spot = |partition| FetchFailureSpot {
            app: 0,
            stage: 1,
            partition,
        };
        c.fired.borrow_mut().push(firing("kill"));
        c.fired.borrow_mut().push(firing("unused"));
        c.add_fetch_failures(spot(2), 1, 1);
        c.fired.borrow_mut().push(firing("used"));
        c.add_fetch_failures(spot(3), 2, 2);
        assert!(!c.take_fetch_failure(0, 1, 4));
        assert!(c.take_fetch_failure(0, 1, 3));
        let report = c.fired_report();
        let why: Vec<Option<&str>> = report.iter().map(|f| f.no_effect.as_deref()).collect();
        assert_eq!(
            why,
            [
                None,
                Some(
                    "no task of stage 1's partition 2 fetched a block from another executor's server after it fired"
                ),
                None,
            ]
        );
    }
}
