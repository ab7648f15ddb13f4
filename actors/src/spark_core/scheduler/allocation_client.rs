//! What exclusion on failure asks of the cluster backend while a scheduler call runs: the
//! HealthTracker's `allocationClient` (Spark: `ExecutorAllocationClient`, which YARN's
//! `CoarseGrainedSchedulerBackend` is). `HealthTracker.killExecutor` and
//! `killExecutorsOnExcludedNode` (HealthTracker.scala) call it synchronously, from inside
//! `updateExcludedForSuccessfulTaskSet`, `updateExcludedForFetchFailure` and
//! `killExcludedIdleExecutor`, so the backend's lines (`Requesting to kill executor(s) N`, ...)
//! come right after the HealthTracker's, before anything else of the same call (the
//! DAGScheduler's lines included). The scheduler's entry points are handed a client: the
//! DriverEndpoint's kills at once, unit tests record the calls (`RecordedAllocations`), and a
//! path Spark runs later on another thread defers them to the DriverEndpoint
//! (`DeferredAllocations`).

use super::events::SchedulerEvent;
use sparkyard_messages::ids::ExecutorId;

/// The scheduler a decommission calls back: `TaskSchedulerImpl.executorDecommission(id,
/// ExecutorDecommissionInfo(message, workerHost))` (what the backend's
/// `decommissionExecutors` calls for each active executor).
pub trait ExecutorDecommission {
    fn executor_decommission(&mut self, id: ExecutorId, worker_host: Option<&str>);
}

/// The backend as the HealthTracker's `allocationClient`.
pub trait AllocationClient {
    /// `killExecutors(Seq(id), adjustTargetNumExecutors = false, countFailures = false,
    /// force = true)`.
    fn kill_executor(&mut self, id: ExecutorId);
    /// `decommissionExecutor(id, ExecutorDecommissionInfo(message), adjustTargetNumExecutors =
    /// false)`. The backend's `decommissionExecutors` calls the scheduler back
    /// (`scheduler.executorDecommission`, under TaskSchedulerImpl's re-entrant lock): `ts` is
    /// the scheduler making this call, lent for it, so the call back reaches the same state
    /// the call is changing (no second copy to go stale, no borrow held across it).
    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        ts: &mut dyn ExecutorDecommission,
    );
    /// `killExecutorsOnHost(host)` / `decommissionExecutorsOnHost(host)`: the backend logs
    /// `Requesting to kill any and all executors on host H` and sends its DriverEndpoint
    /// `KillExecutorsOnHost` / `DecommissionExecutorsOnHost` (handled after this call); both
    /// answer true, so HealthTracker's ERROR for a refusal is never logged.
    fn kill_executors_on_host(&mut self, host: &str, decommission: bool);
}

/// A client for a call Spark makes on another thread, later (TaskResultGetter's
/// `enqueuePartitionCompletionNotification`), or from the DAGScheduler's call into the task
/// scheduler: what is asked becomes events the DriverEndpoint acts on after the call.
pub struct DeferredAllocations<'a>(pub &'a mut Vec<SchedulerEvent>);

impl AllocationClient for DeferredAllocations<'_> {
    fn kill_executor(&mut self, id: ExecutorId) {
        self.0.push(SchedulerEvent::KillExcludedExecutor {
            executor_id: id,
            decommission: false,
            message: String::new(),
        });
    }

    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        _: &mut dyn ExecutorDecommission,
    ) {
        self.0.push(SchedulerEvent::KillExcludedExecutor {
            executor_id: id,
            decommission: true,
            message: message.to_string(),
        });
    }

    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        self.0.push(SchedulerEvent::KillExecutorsOnHost {
            host: host.to_string(),
            decommission,
        });
    }
}

/// One call the scheduler made on its allocation client.
#[cfg(test)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocationCall {
    Kill(ExecutorId),
    Decommission { id: ExecutorId, message: String },
    KillOnHost { host: String, decommission: bool },
}

/// The unit tests' client: records each call, in order; a decommission calls the scheduler
/// back as the backend does.
#[cfg(test)]
#[derive(Default)]
pub struct RecordedAllocations {
    pub calls: Vec<AllocationCall>,
}

#[cfg(test)]
impl AllocationClient for RecordedAllocations {
    fn kill_executor(&mut self, id: ExecutorId) {
        self.calls.push(AllocationCall::Kill(id));
    }

    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        ts: &mut dyn ExecutorDecommission,
    ) {
        let message = message.to_string();
        self.calls
            .push(AllocationCall::Decommission { id, message });
        ts.executor_decommission(id, None);
    }

    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        let host = host.to_string();
        self.calls
            .push(AllocationCall::KillOnHost { host, decommission });
    }
}
