//! One `[[faults]]` entry as written (`RawFault`, the schema's `Fault`) and the parsers of its
//! values every kind shares: a node (`host` or `target`), a container's end (`exit` or
//! `status`), a network end, a slowdown factor.

use super::cluster::known_host;
use crate::conf::cluster::ClusterConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sparkyard_actors::simulation::faults::ProcessPattern;
use sparkyard_actors::simulation::faults::{ContainerEnd, NodeTarget};

/// One fault (`[[faults]]`): a `kind`, exactly one trigger (at_ms or one on_* key; driver faults
/// take `attempt` / `on_attempt_started` only) and the kind's own keys.
#[derive(Deserialize, Serialize, Default, Clone, Debug, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Fault")]
pub struct RawFault {
    /// What happens (docs/scenarios.md lists each kind with its keys).
    #[schemars(with = "super::fault_kinds::KindSchema")]
    pub kind: String,
    /// A name for the fault in the summary (default: the kind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Trigger: at this virtual time, ms after submission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
    /// Trigger: when executor N (of `attempt`) has registered with the driver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_executor_registered: Option<u32>,
    /// Trigger: when task [stage, index] starts (its first attempt), stage ids counting from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_task_started: Option<[u32; 2]>,
    /// Trigger: when this many tasks have finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_tasks_finished: Option<u64>,
    /// Trigger: when AM attempt N starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_attempt_started: Option<u32>,
    /// Fire this long after the trigger, ms (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub after_ms: u64,
    /// The AM attempt the on_* triggers (and driver faults) refer to (default 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub attempt: u32,
    /// `replay-cluster`: the application the fault aims at, counting from 1 in submission
    /// order (default 1): its executor/am/running-executor targets and its on_* triggers are
    /// that application's. A node fault hits every application with containers on the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<u32>,
    /// A fault at a time (`at_ms`) in a many-application run: the K-th application RUNNING
    /// (its AM started, not yet ended) when it fires, in submission order (K counts from 1 and
    /// wraps around the running ones), instead of a fixed `app`. `[chaos]` draws it when a scenario runs
    /// several applications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running_app: Option<u32>,
    /// kill-executor: the executor id (1, 2, ...) of the current AM attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executor: Option<u32>,
    /// kill-executor / kill-am: the JVM's exit code, 0 to 255 (default 137, SIGKILL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// kill-executor / kill-am: the NodeManager kills the container with this YARN
    /// ContainerExitStatus, -100 to -109 (instead of `exit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// Node faults (kill-node, decommission-node, launch-failure, exclude-node,
    /// kill-shuffle-service, slow-node): a NodeManager's host name (or give `target`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Node faults: a node of the application instead of a `host`, resolved when the fault
    /// fires: `am` (the AM's node), `executor:N` (executor N's node), `running-executor` or
    /// `running-executor:K` (the node of the K-th running executor, in executor id order,
    /// wrapping; K defaults to 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// launch-failure: how many container launches fail on `host` (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Network faults: the sender: *, driver (or am), rm, client, executor:N, nm:HOST.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Network faults: the receiver, as `from`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Network faults: only messages of this name (e.g. "RegisterExecutor").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Network faults: the chance each matching message is hit, 0 to 1 (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f64>,
    /// delay: how long each matching message is held, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Network faults: how long the rule lasts once fired, ms (default: to the end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Network faults: the rule applies in both directions (default: only for partition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub both_ways: Option<bool>,
    /// user-class-throws*: the exception `main` throws; failing-executor: the exception every
    /// task on the executor throws (default "java.lang.RuntimeException: injected failure").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// fetch-failure: the reduce stage (its id, counting from 0) whose fetch fails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<u32>,
    /// fetch-failure: the reduce partition whose fetch fails (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<u32>,
    /// slow-node: how many times as long tasks launched on `host` run (at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
}

fn one() -> u32 {
    1
}
fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A slow node's factor in thousandths: a finite number from 1 (no slower) to 1000.
pub(super) fn slow_factor(factor: f64) -> Result<u64, String> {
    if factor.is_finite() && (1.0..=1000.0).contains(&factor) {
        return Ok((factor * 1000.0).round() as u64);
    }
    Err(format!(
        "factor: {factor} is not a slowdown; give a number from 1 (no slower) to 1000"
    ))
}

pub(super) fn need<T: Clone>(v: &Option<T>, key: &str, kind: &str) -> Result<T, String> {
    v.clone()
        .ok_or_else(|| format!("kind '{kind}' needs `{key}`"))
}

/// How the container ends: `exit` (the JVM exits with it) or `status` (the NM kills it).
pub(super) fn container_end(f: &RawFault, default_exit: i32) -> Result<ContainerEnd, String> {
    match (f.exit, f.status) {
        (Some(_), Some(_)) => Err(
            "give `exit` (the JVM's exit code) or `status` (a YARN ContainerExitStatus), not both"
                .into(),
        ),
        (None, Some(s)) if (-109..=-100).contains(&s) => Ok(ContainerEnd::NodeManagerKill(s)),
        (None, Some(s)) => Err(format!(
            "status: {s} is not a YARN ContainerExitStatus the NodeManager reports (-100 to -109)"
        )),
        (Some(e), None) if (0..=255).contains(&e) => Ok(ContainerEnd::ProcessExit(e)),
        (Some(e), None) => Err(format!("exit: {e} is not a process exit code (0 to 255)")),
        (None, None) => Ok(ContainerEnd::ProcessExit(default_exit)),
    }
}

pub(super) fn pattern(
    v: &Option<String>,
    key: &str,
    cluster: &ClusterConfig,
) -> Result<ProcessPattern, String> {
    let Some(v) = v.as_deref() else {
        return Ok(ProcessPattern::Any);
    };
    match v {
        "*" => Ok(ProcessPattern::Any),
        "driver" | "am" => Ok(ProcessPattern::Driver),
        "rm" => Ok(ProcessPattern::Named("rm".into())),
        "client" => Ok(ProcessPattern::Named("spark-submit".into())),
        _ => match v.split_once(':') {
            Some(("executor", n)) => n
                .parse()
                .map(ProcessPattern::Executor)
                .map_err(|_| format!("{key}: `{v}` needs an executor number")),
            Some(("nm", h)) => {
                known_host(h, cluster).map(|h| ProcessPattern::Named(format!("nm:{h}")))
            }
            _ => Err(format!(
                "{key}: `{v}` is not one of *, driver, rm, client, executor:<n>, nm:<host>"
            )),
        },
    }
}

/// The node a node fault acts on: exactly one of `host` (a NodeManager of the cluster) and
/// `target` (a node of the application, resolved when the fault fires).
pub(super) fn node_target(f: &RawFault, cluster: &ClusterConfig) -> Result<NodeTarget, String> {
    match (&f.host, &f.target) {
        (Some(h), None) => known_host(h, cluster).map(NodeTarget::Host),
        (None, Some(t)) => parse_node_target(t),
        (Some(_), Some(_)) => Err(format!(
            "kind '{}': give `host` (a NodeManager) or `target` (a node of the application), not both",
            f.kind
        )),
        (None, None) => Err(format!(
            "kind '{}' needs `host` (a NodeManager's host name) or `target` (am, executor:N, running-executor or running-executor:K)",
            f.kind
        )),
    }
}

pub(super) fn parse_node_target(t: &str) -> Result<NodeTarget, String> {
    let number = |n: &str| {
        n.parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("target: `{t}` needs a number from 1 after the colon"))
    };
    match t.split_once(':') {
        None if t == "am" => Ok(NodeTarget::AmNode),
        None if t == "running-executor" => Ok(NodeTarget::RunningExecutor(1)),
        Some(("executor", n)) => number(n).map(NodeTarget::ExecutorNode),
        Some(("running-executor", k)) => number(k).map(NodeTarget::RunningExecutor),
        _ => Err(format!(
            "target: `{t}` is not one of am (the AM's node), executor:N (executor N's node), running-executor or running-executor:K (the node of the K-th running executor)"
        )),
    }
}
