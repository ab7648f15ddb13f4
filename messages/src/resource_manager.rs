//! What the ResourceManager receives: ApplicationClientProtocol calls from the Client,
//! ApplicationMasterProtocol calls from AMs, NodeManager heartbeats, and AMLauncher replies.

use crate::ids::{ApplicationAttemptId, ApplicationId, ContainerId, NodeId};
use crate::records::{
    ApplicationReport, ApplicationSubmissionContext, ContainerStatus, FinalApplicationStatus,
    Resource,
};
use crate::rpc::{
    AllocateResponse, AskReply, FinishApplicationMasterResponse, GetClusterMetricsResponse,
    GetNewApplicationResponse, RegisterApplicationMasterResponse, ReplyTo,
};
use serde::{Deserialize, Serialize};

/// The ResourceManager's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ResourceManagerMsg {
    /// `getYarnClusterMetrics`.
    GetClusterMetrics(ReplyTo<GetClusterMetricsResponse>),
    /// `createApplication` / `getNewApplication`.
    GetNewApplication(ReplyTo<GetNewApplicationResponse>),
    /// `submitApplication`.
    SubmitApplication(ReplyTo<()>, Box<ApplicationSubmissionContext>),
    /// `getApplicationReport`.
    GetApplicationReport(ReplyTo<Box<ApplicationReport>>, ApplicationId),
    /// `registerApplicationMaster(host, port, trackingUrl)`.
    RegisterApplicationMaster(
        ReplyTo<RegisterApplicationMasterResponse>,
        RegisterApplicationMasterRequest,
    ),
    /// `allocate(progress)`: the AM-RM heartbeat.
    Allocate(ReplyTo<AllocateResponse>, AllocateRequest),
    /// `finishApplicationMaster(status, diagnostics, historyUrl)`.
    FinishApplicationMaster(
        ReplyTo<FinishApplicationMasterResponse>,
        FinishApplicationMasterRequest,
    ),
    /// `ResourceTracker.registerNodeManager`.
    RegisterNodeManager(RegisterNodeManagerRequest),
    /// `ResourceTracker.nodeHeartbeat`.
    NodeHeartbeat(NodeHeartbeatRequest),
    /// Replies to the AMLauncher's `startContainers` calls.
    AskReply(AskReply),
    /// `yarn rmadmin -refreshNodes -g` with the host in the exclude file: graceful
    /// decommissioning of the node.
    DecommissionNode { host: String },
    /// `yarn application -kill <id>` (ApplicationClientProtocol `forceKillApplication`), run by
    /// the application's user on `from_host`.
    KillApplication {
        id: ApplicationId,
        from_host: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterApplicationMasterRequest {
    pub attempt_id: ApplicationAttemptId,
    pub host: String,
    pub rpc_port: i32,
    pub tracking_url: String,
}

/// One AM-RM heartbeat. Container requests travel as changes to the outstanding count, as
/// AMRMClient's `addContainerRequest` / `removeContainerRequest` bookkeeping does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocateRequest {
    pub attempt_id: ApplicationAttemptId,
    pub response_id: u64,
    pub progress_permille: u32,
    pub priority: u32,
    pub capability: Resource,
    /// Any-host container requests added since the last heartbeat.
    pub add_requests: u32,
    /// Outstanding requests removed since the last heartbeat.
    pub remove_requests: u32,
    /// `releaseAssignedContainer` calls since the last heartbeat.
    pub releases: Vec<ContainerId>,
    /// `updateBlacklist(additions, removals)`.
    pub blacklist_additions: Vec<String>,
    pub blacklist_removals: Vec<String>,
    /// The node label expression of the container requests (`spark.yarn.executor.
    /// nodeLabelExpression`, YarnAllocator's `ContainerRequest(..., labelExpression.orNull)`).
    pub node_label_expression: Option<String>,
    /// The node- and rack-specific asks whose count changed since the last heartbeat, with
    /// their new count (AMRMClient sends the `ResourceRequest` of each changed resource name;
    /// the `*` ask travels as `add_requests` / `remove_requests`). Empty without locality.
    #[serde(default)]
    pub locality_asks: Vec<LocalityAsk>,
}

/// A resource name other than `*` in a `ResourceRequest`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ResourceName {
    Node(String),
    Rack(String),
}

/// One `ResourceRequest` for a node or a rack: how many containers the AM still wants there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalityAsk {
    pub resource_name: ResourceName,
    pub num_containers: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishApplicationMasterRequest {
    pub attempt_id: ApplicationAttemptId,
    pub final_status: FinalApplicationStatus,
    pub diagnostics: String,
    pub tracking_url: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterNodeManagerRequest {
    pub node_id: NodeId,
    pub http_port: u16,
    pub rack: String,
    pub total_resource: Resource,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeHeartbeatRequest {
    pub node_id: NodeId,
    pub response_id: u64,
    /// Containers that completed since the last heartbeat.
    pub completed_containers: Vec<ContainerStatus>,
    /// Containers reported RUNNING for the first time (`RMNodeImpl.handleContainerStatus`'s
    /// `newlyLaunchedContainers`): the scheduler's node then keeps a released one's room until
    /// the NM reports it complete (`SchedulerNode.containerStarted`).
    pub launched_containers: Vec<ContainerId>,
}
