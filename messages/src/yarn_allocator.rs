//! What the YarnAllocator receives: the Reporter's heartbeat ticks, the AM endpoint's requests,
//! the RM's allocate answers and the ExecutorRunnables' launch results.

use crate::application_master::RequestExecutors;
use crate::ids::{ContainerId, ExecutorId};
use crate::records::ExecutorLossReason;
use crate::rpc::{AskReply, ReplyTo};
use serde::{Deserialize, Serialize};

/// The YarnAllocator's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum YarnAllocatorMsg {
    /// `allocateResources()`, called once by `createAllocator`.
    AllocateResources,
    /// One pass of the Reporter loop (`allocationThreadImpl`): the checks on the allocator's
    /// counters at this instant (`getNumExecutorsFailed >= max`, `isAllNodeExcluded`), then
    /// `allocateResources()` if neither stops the application.
    ReporterPass {
        max_executor_failures: u32,
    },
    AskReply(AskReply),
    /// `requestTotalExecutorsWithPreferredLocalities`, answered `true` when the target is set.
    RequestTotalExecutors(ReplyTo<bool>, RequestExecutors),
    /// `killExecutor(id)` for each id; always answered `true`.
    KillExecutors(ReplyTo<bool>, Vec<ExecutorId>),
    /// A `GetExecutorLossReason` ask to answer now or after the container's completion is seen.
    GetExecutorLossReason(ReplyTo<ExecutorLossReason>, ExecutorId),
    /// `setShutdown(true)` after the driver's `Shutdown`.
    SetShutdown,
    /// An ExecutorRunnable started its container.
    ExecutorLaunched {
        executor_id: ExecutorId,
        container_id: ContainerId,
    },
    /// An ExecutorRunnable failed: `Failed to launch executor <id> on container <cid>`.
    ExecutorLaunchFailed {
        executor_id: ExecutorId,
        container_id: ContainerId,
        error: String,
    },
}
