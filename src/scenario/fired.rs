//! What a run's fired faults did: each firing paired with its planned fault and kind, with the
//! notes a bare "fault at T" would hide (a network rule armed, the node a targeted fault hit, a
//! kill-node on a node without the application's containers, why a fault could not act).

use crate::record::RunResult;
use sparkyard_actors::simulation::faults::{FaultAction, NodeTarget, PlannedFault};
use sparkyard_actors::simulation::trace::{FaultTarget, StateChange, TraceKind};

/// A fault that fired: when, its label, its kind (`nm-kill` for a drawn NodeManager kill), what
/// it acted on (resolved as it fired) and what a reader should know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FiredFault {
    pub at_ms: u64,
    pub label: String,
    pub kind: String,
    /// The container or node it acted on (`FaultTarget::Nothing` when it could not act, or
    /// needs no target: a fetch failure).
    pub target: FaultTarget,
    /// Why it did nothing, when it could not act (no such executor, the AM had ended, ...).
    pub no_effect: Option<String>,
    pub note: Option<String>,
}

/// Pairs each fired fault with its planned fault (in plan order for equal labels) and adds the
/// notes a bare "fault at T" would hide: a network rule is armed then and acts on matching
/// messages later; a fault aimed at the application says which node it hit; a kill-node on a
/// node without containers of the application; a fault that could not act says why.
pub(super) fn fired_faults(
    planned: &[PlannedFault],
    kinds: &[String],
    r: &RunResult,
) -> Vec<FiredFault> {
    let mut used = vec![false; planned.len()];
    r.faults_fired
        .iter()
        .map(|fired| {
            let label = &fired.label;
            let i = (0..planned.len()).find(|i| !used[*i] && planned[*i].label == *label);
            let (kind, action) = match i {
                Some(i) => {
                    used[i] = true;
                    (
                        kinds.get(i).cloned().unwrap_or_default(),
                        Some(&planned[i].action),
                    )
                }
                None => (String::new(), None),
            };
            FiredFault {
                at_ms: fired.at_ms,
                label: label.clone(),
                kind,
                target: fired.target.clone(),
                no_effect: fired.no_effect.clone(),
                note: fired_note(action, fired, r),
            }
        })
        .collect()
}

/// What the summary says about a fired fault beyond its time and label.
fn fired_note(
    action: Option<&FaultAction>,
    fired: &sparkyard_actors::simulation::faults::Firing,
    r: &RunResult,
) -> Option<String> {
    if let Some(why) = &fired.no_effect {
        return Some(format!("it did nothing: {why}"));
    }
    let host = match &fired.target {
        FaultTarget::Node(h) => Some(h.as_str()),
        _ => None,
    };
    let aimed = action
        .and_then(node_of)
        .filter(|n| !matches!(n, NodeTarget::Host(_)));
    let on = match (aimed, host) {
        (Some(_), Some(h)) => Some(format!("on {h}")),
        _ => None,
    };
    let empty = match (action, host) {
        (Some(FaultAction::KillNode { .. }), Some(h)) if !containers_on(r, h, fired.at_ms) => Some(
            format!("no container of the application was running on {h}"),
        ),
        _ => None,
    };
    let armed = match action {
        Some(FaultAction::Network(rules)) => Some(match rules.first() {
            Some(r) if r.message.is_some() => format!(
                "network rule armed; it acts on each {} message from then on",
                r.message.as_deref().unwrap_or_default()
            ),
            _ => "network rule armed; it acts on matching messages from then on".into(),
        }),
        _ => None,
    };
    let parts: Vec<String> = [on, empty, armed].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The node a node fault names.
fn node_of(action: &FaultAction) -> Option<&NodeTarget> {
    match action {
        FaultAction::KillNode { node }
        | FaultAction::DecommissionNode { node }
        | FaultAction::FailLaunches { node, .. }
        | FaultAction::ExcludeNode { node }
        | FaultAction::KillShuffleService { node }
        | FaultAction::SlowNode { node, .. } => Some(node),
        _ => None,
    }
}

/// Whether a container was running on `host` at `ms` (from the typed trace; true when the run
/// kept no trace, so no note is made up).
fn containers_on(r: &RunResult, host: &str, ms: u64) -> bool {
    if r.trace.is_empty() {
        return true;
    }
    let mut live: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for e in r.trace.iter().take_while(|e| e.time_ms <= ms) {
        match &e.kind {
            TraceKind::State(StateChange::ContainerLocalizing {
                container, host: h, ..
            }) if h == host => {
                live.insert(container.to_string());
            }
            TraceKind::State(StateChange::ContainerCompleted { container, .. }) => {
                live.remove(&container.to_string());
            }
            _ => {}
        }
    }
    !live.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node kind names its node (the summary's `on HOST` and the kill-node note rest on
    /// it); the others name none.
    #[test]
    fn node_faults_name_their_node() {
        let node = NodeTarget::AmNode;
        let actions = [
            FaultAction::KillNode { node: node.clone() },
            FaultAction::DecommissionNode { node: node.clone() },
            FaultAction::ExcludeNode { node: node.clone() },
            FaultAction::KillShuffleService { node: node.clone() },
            FaultAction::FailLaunches {
                node: node.clone(),
                count: 1,
            },
        ];
        for a in &actions {
            assert_eq!(node_of(a), Some(&node), "{a:?}");
        }
        let fetch = FaultAction::FailFetches {
            stage: 1,
            partition: 0,
            count: 1,
        };
        assert_eq!(node_of(&fetch), None);
    }
}
