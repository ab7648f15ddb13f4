//! An RMContainer's end as the RM decides it early (YARN's `RMContainerImpl`): the state a live
//! container is in, where the KILL of its attempt's end and the RELEASED of the AM's release
//! take it, whether the NM is told to clean it (`KillTransition`) and the line `handle` writes.

use sparkyard_messages::ids::ContainerId;
use std::fmt;

/// The `RMContainerState`s a container the RM completes early passes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmContainerState {
    /// Placed by the scheduler; the AM has not pulled it yet.
    Allocated,
    /// Pulled by its AM's allocate (an AM container: by `AMContainerAllocatedTransition`);
    /// its NM has not reported it running.
    Acquired,
    /// Its NM reported it running (the LAUNCHED event).
    Running,
    Killed,
    Released,
}

impl RmContainerState {
    /// A live container's state: ALLOCATED until `pulled` by the AM's allocate, then ACQUIRED
    /// until its NM reports it `running`.
    pub fn live(pulled: bool, running: bool) -> Self {
        match (pulled, running) {
            (_, true) => Self::Running,
            (true, false) => Self::Acquired,
            (false, false) => Self::Allocated,
        }
    }

    /// `RMContainerState.name()`.
    fn name(self) -> &'static str {
        match self {
            Self::Allocated => "ALLOCATED",
            Self::Acquired => "ACQUIRED",
            Self::Running => "RUNNING",
            Self::Killed => "KILLED",
            Self::Released => "RELEASED",
        }
    }
}

impl fmt::Display for RmContainerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where an event took a live container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    pub from: RmContainerState,
    pub to: RmContainerState,
    /// `KillTransition` ran: the container goes in its node's `containersToClean`
    /// (`RMNodeCleanContainerEvent`), so the NM kills it.
    pub cleans_node: bool,
}

/// The KILL event `CapacityScheduler.doneApplicationAttempt` sends each live container of an
/// ended attempt: ALLOCATED -> KILLED by `FinishedTransition` (no NM ever had it), ACQUIRED
/// and RUNNING -> KILLED by `KillTransition`.
pub fn kill(from: RmContainerState) -> Transition {
    Transition {
        from,
        to: RmContainerState::Killed,
        cleans_node: from != RmContainerState::Allocated,
    }
}

/// The RELEASED event of a container its AM gave back (the AM knows only containers it
/// pulled: ACQUIRED or RUNNING): RELEASED by `KillTransition`.
pub fn release(from: RmContainerState) -> Transition {
    Transition {
        from,
        to: RmContainerState::Released,
        cleans_node: true,
    }
}

/// `RMContainerImpl.handle`'s INFO line when the state changed; no diagnostics.
pub fn transition_line(cid: ContainerId, t: Transition) -> String {
    format!("{cid} Container Transitioned from {} to {}", t.from, t.to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId};

    fn cid() -> ContainerId {
        let app = ApplicationId {
            cluster_timestamp: 1_700_000_000_000,
            id: 1,
        };
        ContainerId {
            attempt: ApplicationAttemptId::new(app, 1),
            epoch: 0,
            id: 3,
        }
    }

    // RMContainerImpl's state table (Hadoop 3.4): ALLOCATED --KILL--> KILLED with
    // FinishedTransition (no RMNodeCleanContainerEvent), ACQUIRED/RUNNING --KILL--> KILLED and
    // --RELEASED--> RELEASED with KillTransition (which sends it). The states a container
    // passes through, START -> ALLOCATED, ACQUIRED -> ACQUIRED, LAUNCHED -> RUNNING, then
    // RELEASED: TestRMContainerImpl testReleaseWhileRunning.
    #[test]
    fn a_kill_cleans_the_node_only_for_a_pulled_container() {
        use RmContainerState::*;
        assert_eq!(RmContainerState::live(false, false), Allocated);
        assert_eq!(RmContainerState::live(true, false), Acquired);
        assert_eq!(RmContainerState::live(true, true), Running);
        assert!(!kill(Allocated).cleans_node);
        assert!(kill(Acquired).cleans_node);
        assert!(kill(Running).cleans_node);
        assert_eq!(kill(Running).to, Killed);
        assert!(release(Running).cleans_node);
        assert_eq!(release(Acquired).to, Released);
    }

    // RMContainerImpl.handle: LOG.info(containerId + " Container Transitioned from " +
    // oldState + " to " + getState()), with no diagnostics.
    #[test]
    fn the_line_is_hadoops() {
        let c = cid();
        assert_eq!(
            transition_line(c, kill(RmContainerState::Running)),
            format!("{c} Container Transitioned from RUNNING to KILLED")
        );
        assert_eq!(
            transition_line(c, release(RmContainerState::Acquired)),
            format!("{c} Container Transitioned from ACQUIRED to RELEASED")
        );
    }
}
