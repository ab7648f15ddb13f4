//! Whether a DECOMMISSIONING node may leave (YARN's `DecommissioningNodesWatcher
//! .checkDecommissioningStatus`, Hadoop 3.4): it waits while its NodeManager reports a container
//! RUNNING or NEW (`update` counts them, `numActiveContainers`), then while an application that
//! ran there is not in a final state. The graceful-decommission timeout (TIMEOUT) is not
//! simulated: a node waits for its containers and applications however long they take.

/// `DecommissioningNodeStatus` of a node in DECOMMISSIONING.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecommissioningNodeStatus {
    /// A container is still active on the node.
    WaitContainer,
    /// No active container, but an application that ran there is still running.
    WaitApp,
    /// Nothing left: the node becomes DECOMMISSIONED.
    Ready,
}

/// What the watcher knows of a DECOMMISSIONING node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecommissioningNode {
    /// The containers its NM would report RUNNING or NEW: the scheduler's live containers there
    /// and the ones the RM completed early (a release, an attempt's end) that the NM still runs
    /// (their room held until it reports them: `SchedulerNode.releaseContainer(id, false)`).
    pub active_containers: usize,
    /// Applications that had containers on it and are not in a final state.
    pub running_apps: usize,
}

/// `checkDecommissioningStatus` without the timeout.
pub fn check_decommissioning_status(n: DecommissioningNode) -> DecommissioningNodeStatus {
    if n.active_containers > 0 {
        DecommissioningNodeStatus::WaitContainer
    } else if n.running_apps > 0 {
        DecommissioningNodeStatus::WaitApp
    } else {
        DecommissioningNodeStatus::Ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // TestDecommissioningNodesWatcher.testDecommissioningNodesWatcher (Hadoop 3.x): with 12, 11
    // and 1 containers RUNNING the node is not ready (WAIT_CONTAINER); with 0 and its
    // application still running, WAIT_APP; once the application is FINISHED, READY.
    #[test]
    fn a_node_waits_for_its_containers_then_its_applications() {
        let status = |active_containers, running_apps| {
            check_decommissioning_status(DecommissioningNode {
                active_containers,
                running_apps,
            })
        };
        use DecommissioningNodeStatus::*;
        for running in [12, 11, 1] {
            assert_eq!(status(running, 1), WaitContainer, "{running} running");
        }
        assert_eq!(status(0, 1), WaitApp);
        assert_eq!(status(0, 0), Ready);
        // A container the NM still runs keeps the node waiting after its application ended.
        assert_eq!(status(1, 0), WaitContainer);
    }
}
