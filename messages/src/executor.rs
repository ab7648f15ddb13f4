//! What an executor JVM receives: its `Executor` endpoint (CoarseGrainedExecutorBackend) and
//! the `driverPropsFetcher` main thread that fetches the driver's config first.

use crate::ids::TaskId;
use crate::rpc::{AskReply, ReplyTo, RpcAddress};
use crate::task::{MigratedRddBlock, MigratedShuffleBlock, TaskDescription};
use serde::{Deserialize, Serialize};

/// The `Executor` endpoint's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ExecutorMsg {
    /// Boxed: the rare reply was the largest variant, and every message (a LaunchTask and a
    /// TaskDone per task) moved its 104 bytes.
    AskReply(Box<AskReply>),
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
    /// A running reduce task's `RetryingBlockTransferor` tries its failing server again (its
    /// first attempt comes after the task's deserialisation, each retry after
    /// `spark.shuffle.io.retryWait`).
    FetchAttempt(TaskId),
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
    /// `UploadBlock` of a migrating map output's blocks (NettyBlockRpcServer): answered once
    /// stored, or with `BlockSavedOnDecommissionedBlockManagerException`.
    UploadShuffleBlock(ReplyTo<()>, MigratedShuffleBlock),
    /// The decommissioner's refresh threads wake up (every `replicationReattemptInterval`).
    MigrationRound,
    /// A shuffle migration thread (by its peer's slot) polls its queue again.
    MigrationPoll(u32),
    /// A shuffle migration thread's transfer time is over: it uploads to its peer.
    MigrationUpload(u32),
    /// `UploadBlock` of a replicated RDD block (NettyBlockRpcServer -> `putBlockData`): answered
    /// once stored, or with the peer's failure.
    UploadRddBlock(ReplyTo<()>, MigratedRddBlock),
    /// The decommissioner's RDD thread wakes up (every `replicationReattemptInterval`).
    RddMigrationRound,
    /// The RDD thread's transfer time is over: it uploads the block to its peer.
    RddMigrationUpload,
}

/// The executor JVM's main thread (`CoarseGrainedExecutorBackend.run`): the fetcher's replies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ExecutorMainMsg {
    AskReply(AskReply),
}
