//! The fault kinds of a scenario's `[[faults]]`, each declared once ([`KINDS`]): its name, the
//! keys it takes (and why it refuses one it would ignore, where a reason helps), how an entry of
//! it becomes the simulator's `FaultAction` (or a driver fault), what it acts on when it fires,
//! its words in a shrunk file's label, and the names `[chaos]` draws it under with their draws.
//! The schemas' enums, the error for an unknown kind, the key check, `[chaos]`'s drawing,
//! shrink's labels, docs/scenarios.md's kind table and chaos row (checked by a test) and the
//! "every kind acts" test all read this one list. No Spark class: sparkyard's fault injection.

use super::fault_entry::{
    RawFault, container_end, need, node_target, parse_node_target, pattern, slow_factor,
};
use crate::conf::cluster::ClusterConfig;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sparkyard_actors::simulation::faults::NodeTarget;
use sparkyard_actors::simulation::faults::{DriverFault, FaultAction};
use sparkyard_actors::simulation::faults::{LinkRule, RuleAction};
use sparkyard_actors::simulation::trace::FaultTarget;

/// What a kind acts on when it fires: the class of `Firing::target` it must report (or the
/// driver's `main`, which a driver fault changes before the application starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActsOn {
    /// An executor's container (`FaultTarget::Container`).
    ExecutorContainer,
    /// The AM's container, with the driver (`FaultTarget::Container`).
    AmContainer,
    /// A NodeManager's node (`FaultTarget::Node`).
    Node,
    /// Messages between processes: network rules armed (`FaultTarget::Network`).
    Network,
    /// Reduce tasks' fetches: no container or node of its own (`FaultTarget::Nothing`).
    Fetches,
    /// The user class's `main` in the driver (a driver fault: no firing is recorded).
    UserMain,
    /// The whole application, through the RM (`FaultTarget::Container`: its running AM
    /// container, or `FaultTarget::Nothing` while it waits for one).
    Application,
}

impl ActsOn {
    /// Whether a fired fault's target is of this class.
    pub fn matches(self, target: &FaultTarget) -> bool {
        matches!(
            (self, target),
            (
                ActsOn::ExecutorContainer | ActsOn::AmContainer,
                FaultTarget::Container(_)
            ) | (ActsOn::Node, FaultTarget::Node(_))
                | (ActsOn::Network, FaultTarget::Network(_))
                | (ActsOn::Fetches, FaultTarget::Nothing)
                | (
                    ActsOn::Application,
                    FaultTarget::Container(_) | FaultTarget::Nothing
                )
        )
    }
}

/// What one `[[faults]]` entry plans: an action fired by its trigger, or a driver fault keyed by
/// its AM attempt.
pub enum KindPlan {
    Action(FaultAction),
    Driver(DriverFault),
}

/// One fault kind.
pub struct FaultKind {
    /// The `kind` value.
    pub name: &'static str,
    /// The keys it takes besides the trigger keys; for a driver kind, every key it takes.
    pub keys: &'static [&'static str],
    /// A driver fault: it fires when its AM attempt starts, takes no time trigger or label.
    pub driver: bool,
    /// What it acts on when it fires.
    pub acts_on: ActsOn,
    /// The names `[chaos]` draws it under (none: never drawn), each with its draw.
    pub chaos: &'static [ChaosDraw],
    /// Keys it does not use whose refusal says why (beyond naming the keys it takes).
    pub refused: &'static [RefusedKey],
    plan: fn(&RawFault, &ClusterConfig) -> Result<KindPlan, String>,
    describe: fn(&RawFault) -> String,
}

/// A key a kind does not use, and why (appended to the refusal in parentheses).
pub struct RefusedKey {
    pub key: &'static str,
    pub why: &'static str,
}

/// What a `[chaos]` draw draws from: the table's lists and ranges, and what every drawn fault
/// drew before its kind's own draws (an executor number, a host).
pub struct ChaosInput<'a> {
    pub exit_codes: &'a [i32],
    pub statuses: &'a [i32],
    pub delay_ms: [u64; 2],
    pub partition_ms: [u64; 2],
    pub executor: u32,
    pub host: &'a str,
}

/// A drawn fault: the `[[faults]]` entry that does the same, and its label's words (before
/// its time).
pub struct ChaosDrawn {
    pub entry: RawFault,
    pub what: String,
}

/// One name `[chaos]` draws a kind under, and its draw: from the base entry (the kind, its
/// time and attempt 1) to the kind's entry, with the kind's own draws made from `rng` in a
/// fixed order (a seed's faults are recorded: the draws may not change).
pub struct ChaosDraw {
    pub name: &'static str,
    draw: fn(&ChaosInput, &mut ChaCha8Rng, RawFault) -> ChaosDrawn,
}

impl ChaosDraw {
    pub fn draw(&self, input: &ChaosInput, rng: &mut ChaCha8Rng, base: RawFault) -> ChaosDrawn {
        (self.draw)(input, rng, base)
    }
}

/// A name `[chaos]` can draw: the kind it draws and how.
#[derive(Clone, Copy)]
pub struct ChaosChoice {
    pub kind: &'static FaultKind,
    pub draw: &'static ChaosDraw,
}

impl FaultKind {
    /// The entry as the simulator's fault (the kind's keys checked; not its trigger).
    pub fn plan(&self, f: &RawFault, cluster: &ClusterConfig) -> Result<KindPlan, String> {
        (self.plan)(f, cluster)
    }

    /// What the entry does, in words (a shrunk fault's label, before its time).
    pub fn describe(&self, f: &RawFault) -> String {
        (self.describe)(f)
    }
}

const NODE: &[&str] = &["host", "target"];
const LINK: &[&str] = &[
    "from",
    "to",
    "message",
    "probability",
    "duration_ms",
    "both_ways",
];
const DRIVER_KEYS: &[&str] = &["kind", "attempt", "on_attempt_started", "exception"];

/// Every kind, in the order the schema and the unknown-kind error list them.
pub const KINDS: &[FaultKind] = &[
    FaultKind {
        name: "kill-executor",
        keys: &["executor", "exit", "status"],
        driver: false,
        acts_on: ActsOn::ExecutorContainer,
        chaos: &[
            ChaosDraw {
                name: "kill-executor",
                draw: |c, rng, base| {
                    let code = pick(rng, c.exit_codes);
                    let entry = RawFault {
                        executor: Some(c.executor),
                        exit: Some(code),
                        ..base
                    };
                    let what = format!("executor {} exits {code}", c.executor);
                    ChaosDrawn { entry, what }
                },
            },
            ChaosDraw {
                name: "nm-kill",
                draw: |c, rng, base| {
                    let status = pick(rng, c.statuses);
                    let entry = RawFault {
                        executor: Some(c.executor),
                        status: Some(status),
                        ..base
                    };
                    let what = format!("NodeManager kills executor {} ({status})", c.executor);
                    ChaosDrawn { entry, what }
                },
            },
        ],
        refused: &[RefusedKey {
            key: "count",
            why: "it kills one executor: write one [[faults]] entry per executor",
        }],
        plan: |f, _| {
            Ok(KindPlan::Action(FaultAction::KillExecutor {
                executor: need(&f.executor, "executor", &f.kind)?,
                end: container_end(f, 137)?,
            }))
        },
        describe: |f| {
            let n = f.executor.unwrap_or(0);
            match (f.exit, f.status) {
                (_, Some(s)) => format!("NodeManager kills executor {n} ({s})"),
                (e, None) => format!("executor {n} exits {}", e.unwrap_or(137)),
            }
        },
    },
    FaultKind {
        name: "kill-am",
        keys: &["exit", "status"],
        driver: false,
        acts_on: ActsOn::AmContainer,
        chaos: &[ChaosDraw {
            name: "kill-am",
            draw: |_, _, base| ChaosDrawn {
                entry: RawFault {
                    exit: Some(137),
                    ..base
                },
                what: "the AM is killed".into(),
            },
        }],
        refused: &[],
        plan: |f, _| {
            Ok(KindPlan::Action(FaultAction::KillApplicationMaster {
                end: container_end(f, 137)?,
            }))
        },
        describe: |f| match f.status {
            Some(s) => format!("the NodeManager kills the AM ({s})"),
            None => "the AM is killed".into(),
        },
    },
    FaultKind {
        name: "kill-application",
        keys: &[],
        driver: false,
        acts_on: ActsOn::Application,
        chaos: &[ChaosDraw {
            name: "kill-application",
            // The user gives up on the application (`yarn application -kill`): it ends
            // KILLED, and every invariant must still hold as its containers are killed.
            draw: |_, _, base| ChaosDrawn {
                entry: base,
                what: "the user kills the application".into(),
            },
        }],
        refused: &[],
        plan: |_, _| Ok(KindPlan::Action(FaultAction::KillApplication)),
        describe: |_| "the user kills the application (yarn application -kill)".into(),
    },
    FaultKind {
        name: "kill-node",
        keys: NODE,
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[ChaosDraw {
            name: "kill-node",
            draw: |c, _, base| running_executor_node(c, base, "dies"),
        }],
        refused: &[],
        plan: |f, c| {
            let node = node_target(f, c)?;
            Ok(KindPlan::Action(FaultAction::KillNode { node }))
        },
        describe: |f| format!("{} dies", node_words(f)),
    },
    FaultKind {
        name: "decommission-node",
        keys: NODE,
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[ChaosDraw {
            name: "decommission-node",
            draw: |c, _, base| running_executor_node(c, base, "is decommissioned"),
        }],
        refused: &[],
        plan: |f, c| {
            let node = node_target(f, c)?;
            Ok(KindPlan::Action(FaultAction::DecommissionNode { node }))
        },
        describe: |f| format!("{} is decommissioned", node_words(f)),
    },
    FaultKind {
        name: "launch-failure",
        keys: &["host", "target", "count"],
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[ChaosDraw {
            name: "launch-failure",
            // Any node: a launch fails wherever the next container goes.
            draw: |c, _, base| ChaosDrawn {
                entry: RawFault {
                    host: Some(c.host.to_string()),
                    count: Some(1),
                    ..base
                },
                what: format!("a launch fails on {}", c.host),
            },
        }],
        refused: &[],
        plan: |f, c| {
            Ok(KindPlan::Action(FaultAction::FailLaunches {
                node: node_target(f, c)?,
                count: f.count.unwrap_or(1),
            }))
        },
        describe: |f| match f.count.unwrap_or(1) {
            1 => format!("a launch fails on {}", node_words(f)),
            n => format!("{n} launches fail on {}", node_words(f)),
        },
    },
    FaultKind {
        name: "exclude-node",
        keys: NODE,
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[],
        refused: &[],
        plan: |f, c| {
            let node = node_target(f, c)?;
            Ok(KindPlan::Action(FaultAction::ExcludeNode { node }))
        },
        describe: |f| format!("the driver excludes {}", node_words(f)),
    },
    FaultKind {
        name: "fetch-failure",
        keys: &["stage", "partition", "count"],
        driver: false,
        acts_on: ActsOn::Fetches,
        chaos: &[ChaosDraw {
            name: "fetch-failure",
            // A reduce partition of the second stage (the first that reads a shuffle in the
            // bundled workloads) fails its next fetch.
            draw: |_, rng, base| {
                let partition = rng.random_range(0..4u32);
                let entry = RawFault {
                    stage: Some(1),
                    partition: Some(partition),
                    count: Some(1),
                    ..base
                };
                let what = format!("a fetch of stage 1 partition {partition} fails");
                ChaosDrawn { entry, what }
            },
        }],
        refused: &[],
        plan: |f, _| {
            Ok(KindPlan::Action(FaultAction::FailFetches {
                stage: need(&f.stage, "stage", &f.kind)?,
                partition: f.partition.unwrap_or(0),
                count: f.count.unwrap_or(1),
            }))
        },
        describe: |f| {
            format!(
                "{} fetch(es) of stage {} partition {} fail",
                f.count.unwrap_or(1),
                f.stage.unwrap_or(0),
                f.partition.unwrap_or(0)
            )
        },
    },
    FaultKind {
        name: "kill-shuffle-service",
        keys: NODE,
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[ChaosDraw {
            name: "kill-shuffle-service",
            draw: |c, _, base| {
                let node = NodeTarget::RunningExecutor(c.executor);
                let what = format!("the shuffle service on {node} stops");
                ChaosDrawn {
                    entry: running_executor_target(c, base),
                    what,
                }
            },
        }],
        refused: &[],
        plan: |f, c| {
            let node = node_target(f, c)?;
            Ok(KindPlan::Action(FaultAction::KillShuffleService { node }))
        },
        describe: |f| format!("the shuffle service on {} stops", node_words(f)),
    },
    FaultKind {
        name: "slow-node",
        keys: &["host", "target", "factor", "duration_ms"],
        driver: false,
        acts_on: ActsOn::Node,
        chaos: &[],
        refused: &[],
        plan: |f, c| {
            Ok(KindPlan::Action(FaultAction::SlowNode {
                node: node_target(f, c)?,
                factor_milli: slow_factor(need(&f.factor, "factor", &f.kind)?)?,
                duration_ms: f.duration_ms,
            }))
        },
        describe: |f| {
            format!(
                "{} runs tasks {}x as long{}",
                node_words(f),
                f.factor.unwrap_or(1.0),
                lasting(f)
            )
        },
    },
    FaultKind {
        name: "failing-executor",
        keys: &["executor", "exception"],
        driver: false,
        acts_on: ActsOn::ExecutorContainer,
        chaos: &[],
        refused: &[],
        plan: |f, _| {
            Ok(KindPlan::Action(FaultAction::FailTasksOnExecutor {
                executor: need(&f.executor, "executor", &f.kind)?,
                exception: exception(f),
            }))
        },
        describe: |f| format!("every task on executor {} throws", f.executor.unwrap_or(0)),
    },
    FaultKind {
        name: "drop",
        keys: LINK,
        driver: false,
        acts_on: ActsOn::Network,
        chaos: &[],
        refused: &[],
        plan: |f, c| network(f, c, Ok(RuleAction::Drop)),
        describe: |f| one_way(f, "dropped"),
    },
    FaultKind {
        name: "delay",
        keys: &[
            "from",
            "to",
            "message",
            "probability",
            "delay_ms",
            "duration_ms",
            "both_ways",
        ],
        driver: false,
        acts_on: ActsOn::Network,
        chaos: &[ChaosDraw {
            name: "delay",
            draw: |c, rng, base| {
                let ms = rng.random_range(c.delay_ms[0]..=c.delay_ms[1]);
                let entry = RawFault {
                    delay_ms: Some(ms),
                    duration_ms: Some(30_000),
                    ..executor_link(c.executor, base)
                };
                let what = format!(
                    "executor {} <-> driver delayed {ms} ms for 30 s",
                    c.executor
                );
                ChaosDrawn { entry, what }
            },
        }],
        refused: &[],
        plan: |f, c| {
            let ms = need(&f.delay_ms, "delay_ms", &f.kind);
            network(f, c, ms.map(|ms| RuleAction::Delay { ms }))
        },
        describe: |f| {
            let (from, to) = link(f);
            let ms = f.delay_ms.unwrap_or(0);
            format!("{from} <-> {to} delayed {ms} ms{}", lasting(f))
        },
    },
    FaultKind {
        name: "duplicate",
        keys: LINK,
        driver: false,
        acts_on: ActsOn::Network,
        chaos: &[],
        refused: &[],
        plan: |f, c| network(f, c, Ok(RuleAction::Duplicate)),
        describe: |f| one_way(f, "duplicated"),
    },
    FaultKind {
        name: "partition",
        keys: LINK,
        driver: false,
        acts_on: ActsOn::Network,
        chaos: &[ChaosDraw {
            name: "partition",
            draw: |c, rng, base| {
                let ms = rng.random_range(c.partition_ms[0]..=c.partition_ms[1]);
                let entry = RawFault {
                    duration_ms: Some(ms),
                    ..executor_link(c.executor, base)
                };
                let what = format!(
                    "executor {} partitioned from the driver for {ms} ms",
                    c.executor
                );
                ChaosDrawn { entry, what }
            },
        }],
        refused: &[],
        plan: |f, c| {
            let rule = network(f, c, Ok(RuleAction::HoldUntilEnd))?;
            if f.from.is_none() || f.to.is_none() || f.duration_ms.is_none() {
                return Err("kind 'partition' needs `from`, `to` and `duration_ms`".into());
            }
            Ok(rule)
        },
        describe: |f| {
            let (from, to) = link(f);
            format!("{from} partitioned from {to}{}", lasting(f))
        },
    },
    FaultKind {
        name: "user-class-throws",
        keys: DRIVER_KEYS,
        driver: true,
        acts_on: ActsOn::UserMain,
        chaos: &[],
        refused: &[],
        plan: |f, _| {
            Ok(KindPlan::Driver(DriverFault::ThrowAfterContext(exception(
                f,
            ))))
        },
        describe: |f| f.kind.clone(),
    },
    FaultKind {
        name: "user-class-throws-before-context",
        keys: DRIVER_KEYS,
        driver: true,
        acts_on: ActsOn::UserMain,
        chaos: &[],
        refused: &[],
        plan: |f, _| {
            Ok(KindPlan::Driver(DriverFault::ThrowBeforeContext(
                exception(f),
            )))
        },
        describe: |f| f.kind.clone(),
    },
    FaultKind {
        name: "no-spark-context",
        keys: &["kind", "attempt", "on_attempt_started"],
        driver: true,
        acts_on: ActsOn::UserMain,
        chaos: &[],
        refused: &[],
        plan: |_, _| Ok(KindPlan::Driver(DriverFault::NeverCreateContext)),
        describe: |f| f.kind.clone(),
    },
];

/// The kind named `name`.
pub fn kind(name: &str) -> Option<&'static FaultKind> {
    KINDS.iter().find(|k| k.name == name)
}

/// Every kind's name, in [`KINDS`] order.
pub fn names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name).collect()
}

super::string_enum_schema!(
    /// A `[[faults]]` kind (the schema's enum of [`KINDS`]).
    KindSchema,
    "FaultKind",
    names()
);

/// Every name `[chaos]` can draw, with its kind, in [`KINDS`] order.
pub fn chaos_choices() -> impl Iterator<Item = ChaosChoice> {
    KINDS.iter().flat_map(|kind| {
        kind.chaos
            .iter()
            .map(move |draw| ChaosChoice { kind, draw })
    })
}

/// The name `[chaos]` draws as `name`.
pub fn chaos_choice(name: &str) -> Option<ChaosChoice> {
    chaos_choices().find(|c| c.draw.name == name)
}

/// Why kind `name` refuses `key`, if its declaration says.
pub fn refusal_reason(name: &str, key: &str) -> Option<&'static str> {
    let refused = kind(name)?.refused;
    refused.iter().find(|r| r.key == key).map(|r| r.why)
}

/// One of `xs`, drawn.
pub(super) fn pick<T: Clone>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.random_range(0..xs.len())].clone()
}

/// A node kind drawn on the node of the drawn number's running executor (`verb` in its words):
/// a drawn node would mostly hold none of the application's containers.
fn running_executor_node(c: &ChaosInput, base: RawFault, verb: &str) -> ChaosDrawn {
    let what = format!("{} {verb}", NodeTarget::RunningExecutor(c.executor));
    ChaosDrawn {
        entry: running_executor_target(c, base),
        what,
    }
}

/// The entry aimed at the node of the drawn number's running executor.
fn running_executor_target(c: &ChaosInput, base: RawFault) -> RawFault {
    RawFault {
        target: Some(format!("running-executor:{}", c.executor)),
        ..base
    }
}

/// A network fault between executor `executor` and the driver, both ways.
fn executor_link(executor: u32, base: RawFault) -> RawFault {
    RawFault {
        from: Some(format!("executor:{executor}")),
        to: Some("driver".into()),
        both_ways: Some(true),
        ..base
    }
}

/// Whether `name` is a driver fault's kind.
pub fn is_driver(name: &str) -> bool {
    kind(name).is_some_and(|k| k.driver)
}

/// The exception a driver fault's `main` or a failing executor's tasks throw.
fn exception(f: &RawFault) -> String {
    f.exception
        .clone()
        .unwrap_or_else(|| "java.lang.RuntimeException: injected failure".into())
}

/// A network kind's rule (drop, delay, duplicate, partition); `action` is the kind's own
/// (its error comes after the probability's, as the keys are checked in that order).
fn network(
    f: &RawFault,
    cluster: &ClusterConfig,
    action: Result<RuleAction, String>,
) -> Result<KindPlan, String> {
    let p = f.probability.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("probability: must be within 0 and 1, got {p}"));
    }
    let action = action?;
    let (from, to) = (
        pattern(&f.from, "from", cluster)?,
        pattern(&f.to, "to", cluster)?,
    );
    if from == to && from != sparkyard_actors::simulation::faults::ProcessPattern::Any {
        // A JVM's messages to itself never reach the network; in cluster mode the driver runs
        // inside the AM's container, so `driver` and `am` are one process too.
        return Err(format!(
            "from and to are the same process ({}): its messages to itself never cross the network, so the rule could never act; aim one side at another process (executor:N, rm, client, nm:<host>, *)",
            f.from.as_deref().unwrap_or("*")
        ));
    }
    let rule = LinkRule {
        from,
        to,
        message: f.message.clone(),
        active_from_ms: 0,
        active_until_ms: f.duration_ms.unwrap_or(u64::MAX / 4),
        action,
        probability_ppm: (p * 1_000_000.0).round() as u32,
        both_ways: f.both_ways.unwrap_or(f.kind == "partition"),
    };
    Ok(KindPlan::Action(FaultAction::Network(vec![rule])))
}

/// The node a node fault names, in words: its host, or its target (`the AM's node`, ...).
fn node_words(f: &RawFault) -> String {
    f.host
        .clone()
        .or_else(|| {
            f.target
                .as_deref()
                .and_then(|t| parse_node_target(t).ok())
                .map(|t| t.to_string())
        })
        .unwrap_or_default()
}

/// A network fault's two ends (`*` when left out).
fn link(f: &RawFault) -> (String, String) {
    (
        f.from.clone().unwrap_or_else(|| "*".into()),
        f.to.clone().unwrap_or_else(|| "*".into()),
    )
}

fn lasting(f: &RawFault) -> String {
    f.duration_ms
        .map(|d| format!(" for {d} ms"))
        .unwrap_or_default()
}

/// `drop` / `duplicate` in words.
fn one_way(f: &RawFault, verb: &str) -> String {
    let (from, to) = link(f);
    let what = f.message.clone().unwrap_or_else(|| "messages".into());
    format!("{what} {from} -> {to} {verb}{}", lasting(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kinds are unique, and a driver kind takes `kind` and `attempt` among its keys while a
    /// timed kind leaves the trigger keys to the trigger.
    #[test]
    fn every_kind_is_declared_once_with_keys_of_its_class() {
        let names = names();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        for k in KINDS {
            assert_eq!(k.driver, k.acts_on == ActsOn::UserMain, "{}", k.name);
            assert_eq!(k.keys.contains(&"kind"), k.driver, "{}", k.name);
            assert!(!k.keys.contains(&"at_ms"), "{}", k.name);
            // A reason for refusing a key the kind takes would never be shown.
            for r in k.refused {
                assert!(!k.keys.contains(&r.key), "{} refuses {}", k.name, r.key);
            }
        }
    }

    /// The old rule: a network kind's rule goes both ways by default only for a partition; a
    /// delay without `delay_ms` is refused with the key's name.
    #[test]
    fn network_kinds_plan_their_rule() {
        let cluster =
            crate::conf::cluster::load_cluster(crate::conf::cluster::ClusterSource::Embedded)
                .expect("embedded cluster");
        let entry = |kind: &str| RawFault {
            kind: kind.into(),
            from: Some("executor:1".into()),
            to: Some("driver".into()),
            duration_ms: Some(1000),
            ..RawFault::default()
        };
        let both = |kind: &str| match kind_plan(kind, &entry(kind), &cluster) {
            Ok(KindPlan::Action(FaultAction::Network(r))) => r[0].both_ways,
            _ => panic!("{kind}: not a network rule"),
        };
        assert!(both("partition"));
        assert!(!both("drop") && !both("duplicate"));
        // The driver and the AM are one JVM in cluster mode: a rule between them never acts.
        let to_itself = RawFault {
            from: Some("driver".into()),
            to: Some("am".into()),
            ..entry("drop")
        };
        let e = kind_plan("drop", &to_itself, &cluster)
            .err()
            .unwrap_or_default();
        assert!(e.contains("same process (driver)"), "{e}");
        let delay = kind_plan("delay", &entry("delay"), &cluster);
        assert_eq!(
            delay.err().as_deref(),
            Some("kind 'delay' needs `delay_ms`")
        );
    }

    fn kind_plan(name: &str, f: &RawFault, c: &ClusterConfig) -> Result<KindPlan, String> {
        kind(name).expect("a kind").plan(f, c)
    }

    #[test]
    fn acts_on_matches_its_target_class_only() {
        let node = FaultTarget::Node("h".into());
        assert!(ActsOn::Node.matches(&node));
        assert!(!ActsOn::ExecutorContainer.matches(&node));
        assert!(ActsOn::Fetches.matches(&FaultTarget::Nothing));
        assert!(!ActsOn::Network.matches(&FaultTarget::Nothing));
        assert!(!ActsOn::UserMain.matches(&FaultTarget::Nothing));
    }
}
