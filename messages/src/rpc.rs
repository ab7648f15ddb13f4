//! The RPC vocabulary shared by every receiver: addresses and endpoint references in their
//! Spark string forms, the ask context a reply goes back through, and the reply values.

use crate::ids::{ApplicationId, ContainerId};
use crate::records::{
    ApplicationReport, Container, ContainerStatus, ExecutorLossReason, Resource, RpcFailure,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// `host:port` of a process (Spark `RpcAddress`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RpcAddress {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for RpcAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// The simulator's handle for one mailbox; what a reference resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EndpointId(pub u32);

/// `spark://<name>@<host>:<port>`, or `spark-client://<name>` for an endpoint in a client-mode
/// RpcEnv (executors), which has no listening address (Spark `RpcEndpointAddress`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RpcEndpointAddress {
    pub rpc_address: Option<RpcAddress>,
    pub name: String,
}

impl fmt::Display for RpcEndpointAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rpc_address {
            Some(a) => write!(f, "spark://{}@{}:{}", self.name, a.host, a.port),
            None => write!(f, "spark-client://{}", self.name),
        }
    }
}

/// A serialisable endpoint reference (Spark's `NettyRpcEndpointRef`): the address people see,
/// plus the mailbox it reaches (for a client-mode endpoint, the connection it came over).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RemoteRef {
    pub id: EndpointId,
    pub address: RpcEndpointAddress,
}

impl fmt::Display for RemoteRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NettyRpcEndpointRef({})", self.address)
    }
}

/// Spark's `RpcCallContext` in serialisable form: which ask this is and where the reply goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskContext {
    pub ask_id: u64,
    pub reply_to: EndpointId,
}

/// The answer to an ask: a value, or the failure the caller's future completes with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskReply {
    pub ask_id: u64,
    pub result: Result<ReplyValue, RpcFailure>,
}

/// Every kind of value an ask is answered with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, strum::IntoStaticStr)]
pub enum ReplyValue {
    Unit,
    Bool(bool),
    Int(i64),
    /// `SparkAppConfig(sparkProperties, ioEncryptionKey, hadoopDelegationCreds, resourceProfile, logLevel)`.
    SparkAppConfig(SparkAppConfig),
    /// `GetClusterMetricsResponse`.
    ClusterMetrics {
        num_node_managers: u32,
    },
    /// `GetNewApplicationResponse`.
    NewApplication {
        application_id: ApplicationId,
        maximum_capability: Resource,
    },
    /// `GetApplicationReportResponse`.
    Report(Box<ApplicationReport>),
    /// `RegisterApplicationMasterResponse`.
    RegisteredApplicationMaster {
        maximum_capability: Resource,
        queue: String,
    },
    /// `AllocateResponse`.
    Allocate(AllocateResponse),
    /// `FinishApplicationMasterResponse`.
    FinishedApplicationMaster {
        is_unregistered: bool,
    },
    /// `StartContainersResponse`: the ones started and the ones that failed, with the error.
    StartContainers {
        succeeded: Vec<ContainerId>,
        failed: Vec<(ContainerId, String)>,
    },
    /// The answer to `GetExecutorLossReason`.
    LossReason(ExecutorLossReason),
}

/// What the driver hands an executor before it registers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SparkAppConfig {
    /// Shared: the driver hands every executor the same properties (it builds them once).
    pub spark_properties: std::sync::Arc<Vec<(String, String)>>,
    pub io_encryption_key: Option<Vec<u8>>,
    pub hadoop_delegation_creds: Option<Vec<u8>>,
    pub resource_profile_id: u32,
    pub log_level: Option<String>,
}

/// `AllocateResponse`: newly allocated containers, completed ones, and the cluster size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocateResponse {
    pub response_id: u64,
    pub allocated_containers: Vec<Container>,
    pub completed_containers: Vec<ContainerStatus>,
    pub num_cluster_nodes: u32,
}
