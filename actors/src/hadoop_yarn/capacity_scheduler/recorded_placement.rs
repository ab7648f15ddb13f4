//! A replayed recording's placement of its executors' containers: which node the
//! CapacityScheduler gives each executor container of the application's first attempt, taken
//! from the event log. Not a Hadoop class: real YARN's choice came from the order its
//! NodeManagers heartbeated with room (`CapacityScheduler.allocateContainersToNode` places a
//! request without locality on whichever node reports first), which no log records and
//! sparkyard's heartbeat phases do not reproduce; the log does record where each executor ran
//! (`SparkListenerExecutorAdded`'s host). The replay takes that, as it takes the recorded draws
//! of Spark's unseeded `TaskSchedulerImpl.shuffleOffers`.
//!
//! The recording's hosts are labels (same label, same recorded host); a label is bound to a
//! simulated node at its first container: a node the application has not used yet (neither
//! another label's nor its AM's), as the recorded host was new to the application when its
//! first executor came there. A later container of the label goes to that node, so an executor
//! the log shows on a host the application had used finds the node's localized resources
//! (`hadoop_yarn::localization`) and its NodeManager's other containers, as recorded. A
//! container is placed when YARN would have placed one (the first heartbeat of a node while it
//! has room on its recorded node), on that node: waiting for the recorded node's own heartbeat
//! would add up to a heartbeat interval the recording did not wait (its host was the one that
//! heartbeated). Where that node cannot take it (lost, decommissioning, excluded, too small),
//! or has had no room for `RELAX_ROUNDS` rounds of the cluster's heartbeats, the container is
//! placed as YARN would place it without the recording.

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};

/// Rounds of every live node's heartbeat a container waits for its recorded node before it is
/// placed anywhere (YARN's own delay scheduling gives a node-local request about one round,
/// `yarn.scheduler.capacity.node-locality-delay` capped at the cluster's size).
const RELAX_ROUNDS: u64 = 3;

/// The recorded hosts still to place and the nodes their labels were given.
#[derive(Clone, Debug, Default)]
pub struct RecordedPlacement {
    /// The label of each executor container still to come, in the order the recording's
    /// executors were allocated (their ids); `None`: the log has no executor of that id.
    next: VecDeque<Option<u32>>,
    /// The node (index) each label was given.
    bound: BTreeMap<u32, usize>,
    /// Nodes offered in vain since the last container was placed.
    missed: Cell<u64>,
}

/// What the scheduler knows of the cluster when it asks [`RecordedPlacement::node_for`].
pub struct NodeView<'a> {
    /// The node the application's AM container is on, if it is running.
    pub am_node: Option<usize>,
    /// The cluster's nodes (indices `0..nodes`).
    pub nodes: usize,
    /// Nodes alive in the cluster.
    pub live_nodes: u32,
    /// Whether a node can ever take the container (alive, not decommissioning, not excluded
    /// by the application, big enough).
    pub usable: Box<dyn Fn(usize) -> bool + 'a>,
    /// Whether a node has room for the container now.
    pub fits: Box<dyn Fn(usize) -> bool + 'a>,
}

/// Where the next container goes: the node, and the place in the queue of the recorded
/// executor it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub node: usize,
    slot: usize,
}

impl RecordedPlacement {
    /// The placement of the executors whose recorded hosts are `labels`, in allocation order.
    pub fn new(labels: &[Option<u32>]) -> Self {
        RecordedPlacement {
            next: labels.iter().copied().collect(),
            ..RecordedPlacement::default()
        }
    }

    /// Where one of the next `window` containers (the attempt's outstanding asks) goes when
    /// node `idx` heartbeats: at the time YARN would have placed it (the first heartbeat of a
    /// node with room), on the node of its recorded host if that has room. `None`: none can go
    /// now (a missed opportunity while a recorded node has no room).
    pub fn node_for(&self, idx: usize, window: u32, view: &NodeView) -> Option<Placed> {
        if self.relaxed(view.live_nodes) {
            return free(idx, view).map(|node| Placed { node, slot: 0 });
        }
        let window = (window.max(1) as usize).min(self.next.len());
        for (slot, label) in self.next.iter().take(window).enumerate() {
            let node = match label.map(|l| self.bound.get(&l)) {
                // No executor of this id in the log, or its node is gone: YARN's own choice.
                None => free(idx, view),
                Some(Some(&b)) if !(view.usable)(b) => free(idx, view),
                Some(Some(&b)) => Some(b).filter(|&b| (view.fits)(b)),
                Some(None) => self.fresh_node(idx, view),
            };
            if let Some(node) = node {
                return Some(Placed { node, slot });
            }
        }
        self.missed.set(self.missed.get() + 1);
        None
    }

    /// A container was placed as [`node_for`](Self::node_for) said: the label it stands for
    /// is bound to its node (unless bound to a usable one already) and leaves the queue.
    pub fn placed(&mut self, p: Placed, view: &NodeView) {
        self.missed.set(0);
        let Some(Some(label)) = self.next.remove(p.slot) else {
            return;
        };
        match self.bound.get(&label) {
            Some(&b) if (view.usable)(b) => {}
            _ => {
                self.bound.insert(label, p.node);
            }
        }
    }

    /// Whether the containers still to come are placed freely: none left, or the recorded
    /// nodes were waited for long enough.
    fn relaxed(&self, live_nodes: u32) -> bool {
        self.next.is_empty() || self.missed.get() > RELAX_ROUNDS * u64::from(live_nodes.max(1))
    }

    /// A node new to the application with room: `idx` if it is one, else the first in the
    /// cluster's order; when every live node is taken, any node with room (`idx` first).
    fn fresh_node(&self, idx: usize, view: &NodeView) -> Option<usize> {
        let taken = |i: usize| self.bound.values().any(|&b| b == i) || view.am_node == Some(i);
        let ok = |i: usize| !taken(i) && (view.usable)(i) && (view.fits)(i);
        if ok(idx) {
            return Some(idx);
        }
        if let Some(i) = (0..view.nodes).find(|&i| ok(i)) {
            return Some(i);
        }
        let used = self.bound.len() + usize::from(view.am_node.is_some());
        free(idx, view).filter(|_| used >= view.live_nodes as usize)
    }
}

/// Node `idx` as YARN would take it without the recording: if it can take the container and
/// has room for it now.
fn free(idx: usize, view: &NodeView) -> Option<usize> {
    ((view.usable)(idx) && (view.fits)(idx)).then_some(idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nodes` nodes, all usable, with room on those `room` says.
    fn view(am: Option<usize>, nodes: usize, room: fn(usize) -> bool) -> NodeView<'static> {
        NodeView {
            am_node: am,
            nodes,
            live_nodes: nodes as u32,
            usable: Box::new(|_| true),
            fits: Box::new(room),
        }
    }

    fn any(_: usize) -> bool {
        true
    }

    /// The node the next container goes to when `idx` heartbeats, placed.
    fn place(p: &mut RecordedPlacement, idx: usize, window: u32, v: &NodeView) -> Option<usize> {
        let to = p.node_for(idx, window, v)?;
        p.placed(to, v);
        Some(to.node)
    }

    #[test]
    fn a_label_is_bound_to_a_node_new_to_the_application_and_its_later_containers_follow_it() {
        let v = view(Some(0), 4, any);
        // Recorded: executors 1 and 2 on hosts A and B, 3 on A again.
        let mut p = RecordedPlacement::new(&[Some(7), Some(9), Some(7)]);
        // The AM's node 0 heartbeats first: the container goes to the first new node.
        assert_eq!(place(&mut p, 0, 1, &v), Some(1));
        assert_eq!(place(&mut p, 3, 1, &v), Some(3));
        // Label 7 is node 1: whichever node heartbeats, the container goes there.
        assert_eq!(place(&mut p, 2, 1, &v), Some(1));
        // Nothing left: the heartbeating node.
        assert_eq!(place(&mut p, 0, 1, &v), Some(0));
    }

    #[test]
    fn a_batch_takes_the_first_of_its_recorded_nodes_with_room() {
        let mut p = RecordedPlacement::new(&[Some(1), Some(2), Some(1), Some(2)]);
        let v = view(None, 4, any);
        place(&mut p, 0, 1, &v);
        place(&mut p, 1, 1, &v);
        // Two asks out, label 1's node (0) full: label 2's node (1) takes one.
        let v = view(None, 4, |i| i != 0);
        assert_eq!(place(&mut p, 3, 2, &v), Some(1));
        assert_eq!(p.node_for(3, 1, &v), None);
    }

    #[test]
    fn a_gone_node_or_a_long_wait_lets_the_container_go_anywhere() {
        let mut p = RecordedPlacement::new(&[Some(1), Some(1), Some(1)]);
        place(&mut p, 0, 1, &view(None, 2, any));
        // Node 0 is lost: label 1 goes wherever YARN puts it.
        let lost = NodeView {
            usable: Box::new(|i| i != 0),
            ..view(None, 2, any)
        };
        assert_eq!(p.node_for(1, 1, &lost).map(|p| p.node), Some(1));
        // Node 0 alive but full: after RELAX_ROUNDS rounds of 2 nodes, node 1 takes it.
        let full = view(None, 2, |i| i != 0);
        let refused = (0..10)
            .take_while(|_| p.node_for(1, 1, &full).is_none())
            .count();
        assert_eq!(refused as u64, RELAX_ROUNDS * 2 + 1);
    }

    #[test]
    fn a_free_choice_never_takes_a_node_the_container_cannot_use() {
        // An id the log has no executor of: YARN's own choice, but not an excluded node.
        let p = RecordedPlacement::new(&[None]);
        let excluded = NodeView {
            usable: Box::new(|i| i != 1),
            ..view(None, 2, any)
        };
        assert_eq!(p.node_for(1, 1, &excluded), None);
        assert_eq!(p.node_for(0, 1, &excluded).map(|p| p.node), Some(0));
    }

    #[test]
    fn with_every_node_taken_a_new_label_takes_any_node() {
        let v = view(Some(0), 2, any);
        let mut p = RecordedPlacement::new(&[Some(1), Some(2), None]);
        assert_eq!(place(&mut p, 0, 1, &v), Some(1));
        // Label 2 would need a third node: the heartbeating one will do.
        assert_eq!(place(&mut p, 0, 1, &v), Some(0));
        // An id the log has no executor of: the heartbeating node.
        assert_eq!(place(&mut p, 1, 1, &v), Some(1));
    }
}
