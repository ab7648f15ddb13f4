//! The RPC vocabulary shared by every receiver: addresses and endpoint references in their
//! Spark string forms, the ask context a reply goes back through (typed by what the asker waits
//! for), and the reply values.

use crate::ids::{ApplicationId, ContainerId};
use crate::records::{
    ApplicationReport, Container, ContainerStatus, ExecutorLossReason, Resource, RpcFailure,
};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;

// Addresses and references live below the reply values (which carry block-manager peers);
// every receiver names them through this module, as Spark's `org.apache.spark.rpc` package.
pub use crate::address::{EndpointId, RemoteRef, RpcAddress, RpcEndpointAddress};

/// Spark's `RpcCallContext` in serialisable form: which ask this is and where the reply goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskContext {
    pub ask_id: u64,
    pub reply_to: EndpointId,
}

/// The context an ask variant carries: an `AskContext` that says, in its type, what the asker
/// waits for (Spark's `ask[T]`), so the receiver can only `reply` with an `R`. On the wire it is
/// exactly an `AskContext`.
#[derive(Serialize, Deserialize)]
#[serde(transparent, bound = "")]
pub struct ReplyTo<R> {
    context: AskContext,
    #[serde(skip)]
    reply: PhantomData<fn() -> R>,
}

impl<R> ReplyTo<R> {
    pub fn new(context: AskContext) -> Self {
        ReplyTo {
            context,
            reply: PhantomData,
        }
    }
    /// The untyped context the reply travels back with.
    pub fn context(self) -> AskContext {
        self.context
    }
}

impl<R> Clone for ReplyTo<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for ReplyTo<R> {}
impl<R> PartialEq for ReplyTo<R> {
    fn eq(&self, other: &Self) -> bool {
        self.context == other.context
    }
}
impl<R> Eq for ReplyTo<R> {}
impl<R> fmt::Debug for ReplyTo<R> {
    /// As the `AskContext` it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.context.fmt(f)
    }
}

/// The answer to an ask: a value, or the failure the caller's future completes with. The
/// network carries one reply message type; the asker decodes the value to the type it asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskReply {
    pub ask_id: u64,
    pub result: Result<ReplyValue, RpcFailure>,
}

/// A type an ask is answered with: how it travels in the reply envelope, and the JVM class it
/// is (named in the `ClassCastException` a reply of another type completes the ask with).
pub trait Reply: Sized + 'static {
    const CLASS: &'static str;
    fn into_value(self) -> ReplyValue;
    /// The value back, or the envelope as it came when it holds another type.
    fn from_value(value: ReplyValue) -> Result<Self, ReplyValue>;
}

/// Every kind of value an ask is answered with: the reply envelope on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReplyValue {
    Unit,
    Bool(bool),
    Int(i64),
    /// `SparkAppConfig(sparkProperties, ioEncryptionKey, hadoopDelegationCreds, resourceProfile, logLevel)`.
    SparkAppConfig(SparkAppConfig),
    ClusterMetrics(GetClusterMetricsResponse),
    NewApplication(GetNewApplicationResponse),
    /// `GetApplicationReportResponse`.
    Report(Box<ApplicationReport>),
    RegisteredApplicationMaster(RegisterApplicationMasterResponse),
    Allocate(AllocateResponse),
    FinishedApplicationMaster(FinishApplicationMasterResponse),
    StartContainers(StartContainersResponse),
    /// The answer to `GetExecutorLossReason`.
    LossReason(ExecutorLossReason),
    /// The answer to `GetPeers`.
    Peers(Vec<crate::task::BlockManagerPeer>),
    /// The answer to `GetReplicateInfoForRDDBlocks`.
    ReplicateInfo(Vec<crate::task::ReplicateBlock>),
    /// The answer to a `Heartbeat`.
    Heartbeat(HeartbeatResponse),
}

/// Implements `Reply` for each type, carried in its `ReplyValue` variant.
macro_rules! replies {
    ($($ty:ty => $variant:ident, $class:literal;)*) => {
        $(
            impl Reply for $ty {
                const CLASS: &'static str = $class;
                fn into_value(self) -> ReplyValue {
                    ReplyValue::$variant(self)
                }
                fn from_value(value: ReplyValue) -> Result<Self, ReplyValue> {
                    match value {
                        ReplyValue::$variant(v) => Ok(v),
                        other => Err(other),
                    }
                }
            }
        )*

        impl ReplyValue {
            /// The JVM class of the value in the envelope.
            pub fn class(&self) -> &'static str {
                match self {
                    ReplyValue::Unit => <() as Reply>::CLASS,
                    $(ReplyValue::$variant(_) => <$ty as Reply>::CLASS,)*
                }
            }
        }
    };
}

replies! {
    bool => Bool, "java.lang.Boolean";
    i64 => Int, "java.lang.Long";
    SparkAppConfig => SparkAppConfig,
        "org.apache.spark.scheduler.cluster.CoarseGrainedClusterMessages$SparkAppConfig";
    GetClusterMetricsResponse => ClusterMetrics,
        "org.apache.hadoop.yarn.api.protocolrecords.GetClusterMetricsResponse";
    GetNewApplicationResponse => NewApplication,
        "org.apache.hadoop.yarn.api.protocolrecords.GetNewApplicationResponse";
    Box<ApplicationReport> => Report, "org.apache.hadoop.yarn.api.records.ApplicationReport";
    RegisterApplicationMasterResponse => RegisteredApplicationMaster,
        "org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse";
    AllocateResponse => Allocate, "org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse";
    FinishApplicationMasterResponse => FinishedApplicationMaster,
        "org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterResponse";
    StartContainersResponse => StartContainers,
        "org.apache.hadoop.yarn.api.protocolrecords.StartContainersResponse";
    ExecutorLossReason => LossReason, "org.apache.spark.scheduler.ExecutorLossReason";
    Vec<crate::task::BlockManagerPeer> => Peers, "scala.collection.immutable.Seq";
    Vec<crate::task::ReplicateBlock> => ReplicateInfo, "scala.collection.immutable.Seq";
    HeartbeatResponse => Heartbeat, "org.apache.spark.HeartbeatResponse";
}

/// `()`: an ask answered only by "done" (Scala's boxed `Unit`).
impl Reply for () {
    const CLASS: &'static str = "scala.runtime.BoxedUnit";
    fn into_value(self) -> ReplyValue {
        ReplyValue::Unit
    }
    fn from_value(value: ReplyValue) -> Result<Self, ReplyValue> {
        match value {
            ReplyValue::Unit => Ok(()),
            other => Err(other),
        }
    }
}

/// `HeartbeatResponse(reregisterBlockManager)`: the HeartbeatReceiver's answer to a heartbeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeartbeatResponse {
    /// The driver does not know the executor (or its block manager): `BlockManager.reregister`.
    pub reregister_block_manager: bool,
}

/// `GetClusterMetricsResponse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetClusterMetricsResponse {
    pub num_node_managers: u32,
}

/// `GetNewApplicationResponse`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetNewApplicationResponse {
    pub application_id: ApplicationId,
    pub maximum_capability: Resource,
}

/// `RegisterApplicationMasterResponse`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterApplicationMasterResponse {
    pub maximum_capability: Resource,
    pub queue: String,
}

/// `FinishApplicationMasterResponse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishApplicationMasterResponse {
    pub is_unregistered: bool,
}

/// `StartContainersResponse`: the containers started and the ones that failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartContainersResponse {
    pub succeeded: Vec<ContainerId>,
    pub failed: Vec<FailedContainer>,
}

/// One entry of `StartContainersResponse.getFailedRequests`: the container and its error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedContainer {
    pub container_id: ContainerId,
    pub error: String,
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
    /// `getUpdatedNodes`: nodes whose state changed since the application's last allocate.
    pub updated_nodes: Vec<NodeReport>,
}

/// `NodeReport` as an allocate response carries it: the node and its `NodeState`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReport {
    pub host: String,
    pub state: NodeState,
}

/// YARN's `NodeState` (the states a node report can show here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeState {
    Running,
    Decommissioning,
    Decommissioned,
    Lost,
}

impl std::fmt::Display for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NodeState::Running => "RUNNING",
            NodeState::Decommissioning => "DECOMMISSIONING",
            NodeState::Decommissioned => "DECOMMISSIONED",
            NodeState::Lost => "LOST",
        })
    }
}
