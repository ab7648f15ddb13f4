//! What the ApplicationMaster receives: its main thread's inbox (RM answers, the Driver thread's
//! SparkContext promise and finish calls, the allocator's reports) and the `YarnAM` endpoint
//! (`AMEndpoint`) that the driver talks to.

use crate::ids::ExecutorId;
use crate::records::{ExecutorLossReason, FinalApplicationStatus, RpcFailure};
use crate::rpc::{AskReply, RemoteRef, ReplyTo};
use serde::{Deserialize, Serialize};

/// The AM's main thread and Reporter thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ApplicationMasterMsg {
    AskReply(AskReply),
    /// `sparkContextInitialized(sc)`: the promise completes; the Driver thread blocks until resumed.
    SparkContextInitialized {
        driver: RemoteRef,
    },
    /// The user class's `main` returned without creating a SparkContext (promise completed with null).
    SparkContextNotCreated,
    /// `finish(status, exitCode, msg)` called from another thread (the Driver thread).
    Finish {
        status: FinalApplicationStatus,
        exit_code: i32,
        message: Option<String>,
    },
    /// The allocator finished one `allocateResources()`; the Reporter decides what next.
    AllocatorReport(AllocatorReport),
    /// `Shutdown(exitCode)` from the driver (Spark 4.0): the application is shutting down.
    DriverShutdown {
        exit_code: i32,
    },
    /// A target change or a loss-reason request: wake the Reporter early.
    WakeReporter,
    /// SIGTERM reached the AM's JVM (`SignalUtils`' handler; a signal, not an RPC).
    SignalTerm,
    /// The SparkContext's shutdown hook (priority 50) returned; the AM's own hook (49) runs.
    SparkContextHookDone,
}

/// Which of the Reporter's checks at the start of a loop pass failed (`allocationThreadImpl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReporterStop {
    /// `getNumExecutorsFailed >= maxNumExecutorFailures`.
    MaxExecutorFailures,
    /// `isAllNodeExcluded`.
    AllNodesExcluded,
}

/// The allocator's answer to one `allocateResources()` or one Reporter pass: the counters the
/// Reporter sizes its sleep with, or the check that stopped the pass before it allocated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocatorReport {
    pub num_pending_allocate: u32,
    pub num_pending_loss_reason_requests: u32,
    /// Set when the pass stopped at a check (nothing was allocated).
    pub stop: Option<ReporterStop>,
    /// Set when the RM answered with a failure (e.g. `ApplicationAttemptNotFoundException`).
    pub rm_failure: Option<RpcFailure>,
}

/// `RequestExecutors(resourceProfileToTotalExecs, numLocalityAwareTasks, hostToLocalTaskCount, excludedNodes)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestExecutors {
    /// (resource profile id, total executors); empty means every target goes to 0.
    pub resource_profile_to_total_execs: Vec<(u32, u32)>,
    pub num_locality_aware_tasks_per_resource_profile_id: Vec<(u32, u32)>,
    pub excluded_nodes: Vec<String>,
    /// `hostToLocalTaskCount` (per resource profile id, Spark's `rpHostToLocalTaskCount`): the
    /// preferred hosts of the pending tasks with how many would run locally on each, sorted by
    /// host; the excluded nodes already filtered out (`YarnSchedulerBackend.
    /// prepareRequestExecutors`). Empty without dynamic allocation.
    #[serde(default)]
    pub host_to_local_task_count: Vec<(u32, Vec<(String, u32)>)>,
}

/// The `YarnAM` endpoint (`ApplicationMaster.AMEndpoint`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum YarnAmMsg {
    RequestExecutors(ReplyTo<bool>, RequestExecutors),
    KillExecutors(ReplyTo<bool>, Vec<ExecutorId>),
    GetExecutorLossReason(ReplyTo<ExecutorLossReason>, ExecutorId),
    /// `Shutdown(exitCode)`.
    Shutdown {
        exit_code: i32,
    },
}
