//! Faults as data: a plan of (trigger, action) pairs and the network rules, applied by the
//! controller the roles notify at the events a trigger can name. Every random choice comes from
//! one seeded ChaCha RNG.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;

/// What the network does with one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deliver { extra_delay_ms: u64 },
    Drop,
    Duplicate,
}

/// Which processes a network rule applies to, by the Dispatcher's process names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessPattern {
    Any,
    /// Exactly this process name (`rm`, `nm:<host>`, `spark-submit`, a container id).
    Named(String),
    /// Any AM (driver) container: names ending `_000001`.
    Driver,
    /// Executor N's container in the attempt running when the fault fires (resolved then).
    Executor(u32),
}

impl ProcessPattern {
    pub fn matches(&self, name: &str) -> bool {
        match self {
            ProcessPattern::Any => true,
            ProcessPattern::Named(n) => n == name,
            ProcessPattern::Driver => name.starts_with("container_") && name.ends_with("_000001"),
            ProcessPattern::Executor(_) => false,
        }
    }
}

/// A network rule: applies to matching messages while active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkRule {
    pub from: ProcessPattern,
    pub to: ProcessPattern,
    /// Only messages with this variant name (None: any).
    pub message: Option<String>,
    pub active_from_ms: u64,
    pub active_until_ms: u64,
    pub action: RuleAction,
    /// Probability in parts per million that the rule fires for a matching message.
    pub probability_ppm: u32,
    /// Also the reverse direction (a partition cuts both ways).
    pub both_ways: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleAction {
    Drop,
    Delay {
        ms: u64,
    },
    Duplicate,
    /// A partition: TCP holds the bytes, so messages arrive when the rule ends (the heal).
    HoldUntilEnd,
}

impl LinkRule {
    fn applies(&self, now_ms: u64, from: &str, to: &str, message: &str) -> bool {
        let forward = self.from.matches(from) && self.to.matches(to);
        let backward = self.both_ways && self.from.matches(to) && self.to.matches(from);
        (forward || backward)
            && self.message.as_deref().is_none_or(|m| m == message)
            && (self.active_from_ms..self.active_until_ms).contains(&now_ms)
    }
}

/// The seeded source of network verdicts.
pub struct FaultInjector {
    rng: ChaCha8Rng,
    rules: Vec<LinkRule>,
}

impl FaultInjector {
    pub fn new(seed: u64, rules: Vec<LinkRule>) -> Self {
        FaultInjector {
            rng: ChaCha8Rng::seed_from_u64(seed),
            rules,
        }
    }

    pub fn has_rules(&self) -> bool {
        !self.rules.is_empty()
    }

    pub fn add_rule(&mut self, rule: LinkRule) {
        self.rules.push(rule);
    }

    /// The verdict for one message; the first rule that matches and fires decides.
    pub fn verdict(&mut self, now_ms: u64, from: &str, to: &str, message: &str) -> Verdict {
        for rule in &self.rules {
            if rule.applies(now_ms, from, to, message)
                && self.rng.random_range(0..1_000_000) < rule.probability_ppm
            {
                return match rule.action {
                    RuleAction::Drop => Verdict::Drop,
                    RuleAction::Delay { ms } => Verdict::Deliver { extra_delay_ms: ms },
                    RuleAction::Duplicate => Verdict::Duplicate,
                    RuleAction::HoldUntilEnd => Verdict::Deliver {
                        extra_delay_ms: rule.active_until_ms.saturating_sub(now_ms),
                    },
                };
            }
        }
        Verdict::Deliver { extra_delay_ms: 0 }
    }
}

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

/// How a container is ended by a fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContainerEnd {
    /// The JVM exits by itself with this code (1, 52 OutOfMemoryError, 137 SIGKILL, 143 ...).
    ProcessExit(i32),
    /// The NodeManager kills it and reports this ContainerExitStatus (-100 .. -107) with YARN's
    /// diagnostics for it.
    NodeManagerKill(i32),
}

/// What a planned fault does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultAction {
    /// End executor `executor`'s container (of the current AM attempt).
    KillExecutor { executor: u32, end: ContainerEnd },
    /// The AM container (with the driver) of the current attempt ends.
    KillApplicationMaster { end: ContainerEnd },
    /// The NodeManager on `host` dies with its containers.
    KillNode { host: String },
    /// The next `count` containers that start on `host` fail to launch (exit status -1000).
    FailLaunches { host: String, count: u32 },
    /// The driver's scheduler excludes `host`: executors registering from it are rejected.
    ExcludeNode { host: String },
    /// Add network rules from now on (drop, delay, duplicate, partition).
    Network(Vec<LinkRule>),
}

impl FaultAction {
    /// Whether firing it looks an executor up by id.
    fn names_executors(&self) -> bool {
        let by_id = |p: &ProcessPattern| matches!(p, ProcessPattern::Executor(_));
        match self {
            FaultAction::KillExecutor { .. } => true,
            FaultAction::Network(rules) => rules.iter().any(|r| by_id(&r.from) || by_id(&r.to)),
            _ => false,
        }
    }
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
}

/// The run's fault plan; the roles report events, and faults whose trigger matches fire once.
#[derive(Default)]
pub struct FaultController {
    planned: RefCell<Vec<(PlannedFault, bool)>>,
    /// Driver faults by AM attempt number.
    pub driver_faults: Vec<(u32, DriverFault)>,
    /// Launch failures still to inject, by host.
    launch_failures: RefCell<Vec<(String, u32)>>,
    /// Faults that fired, in order: (virtual ms, label).
    pub fired: RefCell<Vec<(u64, String)>>,
    /// Whether a planned fault names an executor by id (a kill, or `executor:N` in a network
    /// rule): only then is each launched executor's container recorded (`SimContext::executors`).
    pub names_executors: bool,
}

impl FaultController {
    pub fn new(planned: Vec<PlannedFault>, driver_faults: Vec<(u32, DriverFault)>) -> Self {
        let names_executors = planned.iter().any(|f| f.action.names_executors());
        FaultController {
            names_executors,
            planned: RefCell::new(planned.into_iter().map(|f| (f, false)).collect()),
            driver_faults,
            launch_failures: RefCell::new(Vec::new()),
            fired: RefCell::new(Vec::new()),
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

    /// Faults whose trigger is `event` and that have not fired yet; marks them fired.
    pub fn take_matching(&self, event: &Trigger) -> Vec<PlannedFault> {
        let mut planned = self.planned.borrow_mut();
        let mut out = Vec::new();
        for (f, fired) in planned.iter_mut() {
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

    /// Labels of planned faults that never fired (their trigger never happened).
    pub fn unfired(&self) -> Vec<String> {
        self.planned
            .borrow()
            .iter()
            .filter(|(_, fired)| !fired)
            .map(|(f, _)| f.label.clone())
            .collect()
    }

    pub fn has_event_triggers(&self) -> bool {
        self.planned
            .borrow()
            .iter()
            .any(|(f, fired)| !fired && !matches!(f.trigger, Trigger::At { .. }))
    }

    pub fn driver_fault(&self, attempt: u32) -> Option<DriverFault> {
        self.driver_faults
            .iter()
            .find(|(a, _)| *a == attempt)
            .map(|(_, f)| f.clone())
    }

    pub fn add_launch_failures(&self, host: &str, count: u32) {
        self.launch_failures
            .borrow_mut()
            .push((host.to_string(), count));
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
