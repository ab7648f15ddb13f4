//! What a NodeManager receives: ContainerManagementProtocol calls (from the RM's AMLauncher and
//! from ExecutorRunnable), heartbeat responses from the RM, and its own containers' exits.

use crate::ids::{ApplicationId, ContainerId};
use crate::records::{Container, ContainerLaunchContext};
use crate::rpc::{ReplyTo, StartContainersResponse};
use serde::{Deserialize, Serialize};

/// A NodeManager's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum NodeManagerMsg {
    /// `startContainers`.
    StartContainers(ReplyTo<StartContainersResponse>, Box<StartContainerRequest>),
    /// `NodeHeartbeatResponse`: containers and applications the RM wants cleaned up.
    NodeHeartbeatResponse(NodeHeartbeatResponse),
    /// The container's process ended (the NM's `ContainerExecutor` saw it exit).
    ContainerProcessExited {
        container_id: ContainerId,
        exit_code: i32,
    },
    /// Localisation is done and `launch_container.sh` runs: the JVM begins to start.
    ContainerLaunched(ContainerId),
    /// `stopContainers` from the RM's AMLauncher (its CLEANUP of an ended attempt's AM
    /// container): the NM kills it as `KILLED_BY_APPMASTER` (`ContainerManagerImpl
    /// .stopContainerInternal`). The NM audits the stop with the RM's address as the caller's:
    /// a sender other than the AMLauncher would need its own address here.
    StopContainer(ContainerId),
    /// The NodeManager kills a container itself (memory monitor, preemption, disk failure) and
    /// reports this ContainerExitStatus.
    KillContainer {
        container_id: ContainerId,
        exit_status: i32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartContainerRequest {
    pub container: Container,
    pub launch_context: ContainerLaunchContext,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeHeartbeatResponse {
    pub response_id: u64,
    /// Containers the RM completed (released, or killed with their attempt): the NM kills them
    /// as `KILLED_BY_RESOURCEMANAGER` (`RMNodeImpl.containersToClean`).
    pub containers_to_cleanup: Vec<ContainerId>,
    /// Applications that reached a final state and ran here: the NM kills what is left of them
    /// as `KILLED_AFTER_APP_COMPLETION` (`RMNodeImpl.finishedApplications`).
    pub applications_to_cleanup: Vec<ApplicationId>,
}
