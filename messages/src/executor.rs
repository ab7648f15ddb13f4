//! What an executor JVM receives: its `Executor` endpoint (CoarseGrainedExecutorBackend) and
//! the `driverPropsFetcher` main thread that fetches the driver's config first.

use crate::ids::TaskId;
use crate::rpc::{AskReply, RpcAddress};
use crate::task::TaskDescription;
use serde::{Deserialize, Serialize};

/// The `Executor` endpoint's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ExecutorMsg {
    AskReply(AskReply),
    RegisteredExecutor,
    LaunchTask(Box<TaskDescription>),
    KillTask {
        task_id: TaskId,
        interrupt_thread: bool,
        reason: String,
    },
    StopExecutor,
    Shutdown,
    /// A running task's virtual duration is over.
    TaskDone(TaskId),
    /// The Executor's heartbeater thread: time to send a heartbeat.
    HeartbeatTick,
    /// `onDisconnected(remoteAddress)`.
    RemoteProcessDisconnected(RpcAddress),
    /// SIGTERM reached the executor's JVM (`SignalUtils`' handler; a signal, not an RPC).
    SignalTerm,
    /// `DecommissionExecutor` from the driver.
    DecommissionExecutor,
    /// One pass of the `wait-for-blocks-to-migrate` thread (every second).
    DecommissionCheck,
}

/// The executor JVM's main thread (`CoarseGrainedExecutorBackend.run`): the fetcher's replies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ExecutorMainMsg {
    AskReply(AskReply),
}
