//! What the driver's `CoarseGrainedScheduler` endpoint (DriverEndpoint) receives.

use crate::ids::{ExecutorId, TaskId};
use crate::listener::ResourceInformation;
use crate::records::ExecutorLossReason;
use crate::rpc::{HeartbeatResponse, RemoteRef, ReplyTo, RpcAddress, SparkAppConfig};
use crate::task::{
    BlockManagerId, BlockManagerPeer, JobSpec, MigratedShuffleBlock, ReplicateBlock, StatusUpdate,
};
use serde::{Deserialize, Serialize};

/// The DriverEndpoint's inbox (`CoarseGrainedClusterMessage`s plus the DAGScheduler's job submission).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum DriverEndpointMsg {
    /// `RetrieveSparkAppConfig(resourceProfileId)`.
    RetrieveSparkAppConfig(ReplyTo<SparkAppConfig>, u32),
    RegisterExecutor(ReplyTo<bool>, Box<RegisterExecutor>),
    LaunchedExecutor(ExecutorId),
    StatusUpdate(StatusUpdate),
    ReviveOffers,
    /// `KillTask(taskId, executor, interruptThread, reason)`.
    KillTask {
        task_id: TaskId,
        executor_id: ExecutorId,
        interrupt_thread: bool,
        reason: String,
    },
    StopExecutors(ReplyTo<bool>),
    StopDriver(ReplyTo<bool>),
    RemoveExecutor {
        executor_id: ExecutorId,
        reason: ExecutorLossReason,
    },
    IsExecutorAlive(ReplyTo<bool>, ExecutorId),
    /// `DAGScheduler.submitJob` from the user program (the Driver thread). Boxed: the inbox's
    /// every message is as large as its largest variant, and this rare one was the largest (a
    /// StatusUpdate, three per task, moved 136 bytes instead of 80).
    SubmitJob {
        job: Box<JobSpec>,
        waiter: Box<RemoteRef>,
        /// The job's `spark.scheduler.pool` local property (`None`: unset, the `default` pool).
        pool: Option<String>,
    },
    /// `DAGScheduler.cancelJob(jobId, reason)` from the user program (`SparkContext.cancelJob`,
    /// `cancelJobGroup`): the DAGScheduler's `JobCancelled` event.
    CancelJob {
        job_id: u32,
        reason: Box<str>,
    },
    /// `onDisconnected(remoteAddress)`.
    RemoteProcessDisconnected(RpcAddress),
    /// `HeartbeatReceiver`'s `Heartbeat(executorId, accumUpdates, blockManagerId,
    /// executorUpdates)`, asked by the executor's heartbeater: the receiver answers whether
    /// the executor's block manager must register again. Only the id travels: the driver
    /// knows the executor's block manager from its registration, and no accumulator or metric
    /// update is simulated.
    Heartbeat(ReplyTo<HeartbeatResponse>, ExecutorId),
    /// BlockManagerMaster's `RegisterBlockManager(..., isReRegister = true)` from
    /// `BlockManager.reregister`: the answer says whether the master took it (Spark answers
    /// the id, or one with the `invalid` executor id when the executor is lost).
    ReregisterBlockManager(ReplyTo<bool>, BlockManagerId),
    /// BlockManagerMessages' `IsExecutorAlive(executorId)`, which `NettyBlockTransferService`
    /// asks when a fetch fails to connect: whether the BlockManagerMaster still has the
    /// executor's block manager (`blockManagerIdByExecutor.contains`).
    BlockManagerIsExecutorAlive(ReplyTo<bool>, ExecutorId),
    /// `HeartbeatReceiver.expireDeadHosts`, every `spark.network.timeoutInterval`.
    ExpireDeadHosts,
    /// The scheduler's health tracker excludes a node (`excludeOnFailure`).
    ExcludeNode(String),
    /// `spark.scheduler.maxRegisteredResourcesWaitingTime` and readiness polling (`waitBackendReady`).
    CheckBackendReady {
        waiter: RemoteRef,
    },
    /// `DecommissionExecutorsOnHost(host)`.
    DecommissionExecutorsOnHost(String),
    /// `KillExecutorsOnHost(host)` (the backend's `killExecutorsOnHost`, for the HealthTracker's
    /// excluded node).
    KillExecutorsOnHost(String),
    /// BlockManagerMaster's `GetPeers(blockManagerId)`: the live, non-decommissioning block
    /// managers other than the asker's.
    GetPeers(ReplyTo<Vec<BlockManagerPeer>>, BlockManagerId),
    /// BlockManagerMaster's `UpdateBlockInfo`s for the data and index blocks of a map output a
    /// peer stored: each is posted as a block update, and the index moves the map output to
    /// `block_manager` (`MapOutputTracker.updateMapOutput`).
    UpdateShuffleBlockInfo {
        block_manager: BlockManagerId,
        block: MigratedShuffleBlock,
    },
    /// BlockManagerMaster's `UpdateBlockInfo` for an RDD block an executor's MemoryStore
    /// stored (`rdd_<rdd_id>_<partition>`, MEMORY_ONLY, `mem_size` bytes).
    UpdateRddBlockInfo {
        block_manager: BlockManagerId,
        rdd_id: u32,
        partition: u32,
        mem_size: u64,
    },
    /// BlockManagerMaster's `UpdateBlockInfo` for the one piece of a broadcast an executor
    /// fetched and stored (`broadcast_<id>_piece0`, `TorrentBroadcast.readBlocks` with
    /// `tellMaster = true`, `mem_size` bytes).
    UpdateBroadcastBlockInfo {
        block_manager: BlockManagerId,
        broadcast_id: u32,
        mem_size: u64,
    },
    /// `GetMapOutputStatuses(shuffleId)` from an executor's MapOutputTrackerWorker, as the
    /// driver's MapOutputTrackerMasterEndpoint hears it (`sender` is the connection's remote
    /// end). sparkyard ships the statuses in the task's read plan, so nothing is replied: the
    /// message is the request's time and the master's line.
    GetMapOutputStatuses {
        shuffle_id: u32,
        sender: RpcAddress,
    },
    /// BlockManagerMaster's `UpdateBlockInfo` with `StorageLevel.NONE`: the block manager
    /// removed the RDD block (`BlockManager.removeBlock`, a migrated block).
    RemoveRddBlockInfo {
        block_manager: BlockManagerId,
        rdd_id: u32,
        partition: u32,
    },
    /// BlockManagerMaster's `GetReplicateInfoForRDDBlocks(blockManagerId)`: the RDD blocks the
    /// master knows on that block manager, for its decommissioner.
    GetReplicateInfoForRddBlocks(ReplyTo<Vec<ReplicateBlock>>, BlockManagerId),
}

/// `RegisterExecutor(executorId, executorRef, hostname, cores, logUrls, attributes, resources, resourceProfileId)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterExecutor {
    pub executor_id: ExecutorId,
    pub executor_ref: RemoteRef,
    /// The address the connection came from (what the driver logs next to the ref).
    pub sender_address: RpcAddress,
    pub hostname: String,
    pub cores: u32,
    pub log_urls: Vec<(String, String)>,
    pub attributes: Vec<(String, String)>,
    /// The custom resources the executor found (`parseOrFindResources`), by name.
    pub resources: Vec<ResourceInformation>,
    pub resource_profile_id: u32,
}
