//! An executor's removal: `RemoveExecutor` recorded once and handed to its consumers, and a
//! disconnect that disables the executor and asks the AM why (Spark's
//! `DriverEndpoint.removeExecutor`, `YarnDriverEndpoint.onDisconnected`).

use super::{BACKEND, DriverEndpoint, TARGET, TS, yarn_scheduler};
use crate::kernel::clock;
use crate::rpc::EndpointRef;
use crate::spark_core::coarse_grained_backend::{self as backend_rules};
use crate::spark_core::driver_endpoint_state::Removal;
use crate::spark_core::task_result_getter::{EndKind, TaskEnded};
use crate::{debug, info, sim_log};
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::rpc::RpcAddress;

impl DriverEndpoint {
    /// `removeExecutor`: the core records the removal once ([`Removal`]), the scheduler adds
    /// the tasks lost with it, and [`Self::publish_removal`] hands the record to its consumers.
    pub(super) fn on_remove_executor(&mut self, id: ExecutorId, reason: ExecutorLossReason) {
        let mut removal = match backend_rules::remove_executor(&mut self.core, id, reason) {
            Ok(removal) => removal,
            Err(unknown) => return info!(self.env.log(), TARGET, "{}", unknown.line()),
        };
        // In case the executor is still alive (AM report path), tell it to stop.
        self.env
            .send(&removal.data.executor, ExecutorMsg::StopExecutor);
        self.update_offerable(id);
        // TaskSchedulerImpl.executorLost: `logExecutorLoss` first, then its task sets fail the
        // tasks running there (their TaskEnds), which the record counts.
        let loss = backend_rules::executor_loss_line(&removal, clock::now_ms());
        sim_log!(self.env.log(), TS, loss.level, "{}", loss.text);
        let (scheduler, mut backend) = self.split();
        let events = scheduler.task_scheduler_executor_lost(id, &removal.reason, &mut backend);
        removal.lost_tasks = self.lost_with(id);
        self.publish_removal(&removal);
        // Then the DAGScheduler's handleExecutorLost (BlockManagerRemoved, map outputs).
        self.scheduler.run_queued_dag_events();
        self.handle_events(events);
    }

    /// The running attempts the scheduler just ended with executor `id`'s loss (their records
    /// are published with the events that follow the removal).
    fn lost_with(&self, id: ExecutorId) -> u32 {
        let lost = |e: &&TaskEnded| e.executor == id && e.kind == EndKind::ExecutorLost;
        self.scheduler.task_ends().iter().filter(lost).count() as u32
    }

    /// Every consumer of a removal, each reading the one record: the run's record (the removal
    /// and the running tasks lost with it), the HeartbeatReceiver (`onExecutorRemoved`) and
    /// the listener bus (`SparkListenerExecutorRemoved`). The loss line reads it too, earlier:
    /// Spark logs it before the lost tasks are known.
    fn publish_removal(&mut self, removal: &Removal<EndpointRef<ExecutorMsg>>) {
        for event in removal.run_events(self.sim.current_attempt.get()) {
            self.sim.observe(event);
        }
        self.heartbeats.executor_removed(removal.id);
        self.bus
            .post(|| removal.listener_event(clock::now_epoch_ms()));
    }

    /// `YarnDriverEndpoint.onDisconnected`: disable the executor and ask the AM why it went away.
    pub(super) fn on_disconnected(&mut self, address: RpcAddress) {
        let shutting_down = self.shared.borrow().stopped || self.executors_told_to_stop;
        let Some(gone) = backend_rules::disconnected(&mut self.core, address, shutting_down) else {
            return;
        };
        self.update_offerable(gone.id);
        // CoarseGrainedSchedulerBackend.disableExecutor (INFO), then
        // TaskSchedulerImpl.executorLost(id, LossReasonPending) -> logExecutorLoss.
        info!(self.env.log(), BACKEND, "{}", gone.disabling_line());
        if let Some(line) = gone.reason_pending_line() {
            debug!(self.env.log(), TS, "{line}");
        }
        if let Some(yarn) = yarn_scheduler(&self.env) {
            self.env.send(&yarn, gone.message());
        }
    }
}
