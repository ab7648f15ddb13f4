//! What the driver's `YarnScheduler` endpoint (YarnSchedulerEndpoint) receives.

use crate::application_master::RequestExecutors;
use crate::ids::ExecutorId;
use crate::records::ExecutorLossReason;
use crate::rpc::{AskReply, RemoteRef, ReplyTo};
use serde::{Deserialize, Serialize};

/// The YarnSchedulerEndpoint's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum YarnSchedulerMsg {
    /// `RegisterClusterManager(am)`, sent by the AM endpoint's `onStart`.
    RegisterClusterManager(RemoteRef),
    /// Asked by the YarnAllocator's constructor: the highest executor id the driver has seen.
    RetrieveLastAllocatedExecutorId(ReplyTo<i64>),
    RequestExecutors(ReplyTo<bool>, RequestExecutors),
    KillExecutors(ReplyTo<bool>, Vec<ExecutorId>),
    /// From the AM when a container completed.
    RemoveExecutor {
        executor_id: ExecutorId,
        reason: ExecutorLossReason,
    },
    /// `signalDriverStop(exitCode)`: forwarded to the AM as `Shutdown(exitCode)`.
    SignalDriverStop {
        exit_code: i32,
    },
    /// `handleExecutorDisconnectedFromDriver`: ask the AM why the executor went away.
    ExecutorDisconnected {
        executor_id: ExecutorId,
        address: String,
    },
    AskReply(AskReply),
    /// `DecommissionExecutorsOnHost(host)` from the YarnAllocator: the node is DECOMMISSIONING.
    DecommissionExecutorsOnHost(String),
}
