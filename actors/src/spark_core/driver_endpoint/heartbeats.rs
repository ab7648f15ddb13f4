//! The driver's HeartbeatReceiver as the endpoint runs it: an executor's `Heartbeat` answered,
//! and an executor silent for `spark.network.timeout` removed and replaced (Spark's
//! `HeartbeatReceiver.receiveAndReply` and `expireDeadHosts`).

use super::{DriverEndpoint, yarn_scheduler};
use crate::kernel::clock;
use crate::spark_core::heartbeat_receiver::heartbeat_response;
use crate::world::observer::{LostExecutor, RunEvent};
use crate::{debug, warn};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::rpc::HeartbeatResponse;
use sparkyard_messages::rpc::ReplyTo;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;

impl DriverEndpoint {
    /// `HeartbeatReceiver.receiveAndReply(Heartbeat)`: a known executor's last-seen time moves
    /// on, and the answer says whether its block manager must register again.
    pub(super) fn on_heartbeat(&mut self, ask: ReplyTo<HeartbeatResponse>, id: ExecutorId) {
        let tracked = self.heartbeats.heartbeat(id, clock::now_ms());
        if !tracked {
            debug!(
                self.env.log(),
                "driver::HeartbeatReceiver", "Received heartbeat from unknown executor {id}"
            );
        }
        // `scheduler.executorHeartbeatReceived` asks the BlockManagerMaster's heartbeat
        // endpoint whether it knows the executor's block manager (`BlockManagerHeartbeat`): not
        // once the executor is removed, nor after a fetch failure named it (the DAGScheduler
        // removed it from the master), when the executor registers it again. (Here a block
        // manager registers with `LaunchedExecutor`, which Spark's does just before.)
        let block_manager_known =
            self.core.executors.contains(id) && !self.scheduler.block_manager_removed(id);
        let sc_stopped = self.shared.borrow().stopping;
        let response = heartbeat_response(sc_stopped, tracked, block_manager_known);
        self.env.reply(ask, response);
    }

    /// `HeartbeatReceiver.expireDeadHosts`: an executor silent for `spark.network.timeout` is
    /// lost (caused by the app) and killed and replaced through the cluster manager.
    pub(super) fn expire_dead_hosts(&mut self) {
        self.check_total_cores();
        let timeout = self.sim.config.spark.network_timeout_ms;
        let dead = self.heartbeats.expire_dead_hosts(clock::now_ms(), timeout);
        for gone in dead {
            let id = gone.id;
            let log = self.env.log();
            warn!(
                log,
                "driver::HeartbeatReceiver",
                "{}",
                gone.removing_line(timeout)
            );
            let reason = gone.loss_reason();
            // The driver removes it now; the container then ends by explicit termination
            // (killAndReplaceExecutor), which the allocator does not report as a loss.
            self.sim.observe(RunEvent::ExecutorLost(LostExecutor {
                executor: id,
                attempt: self.sim.current_attempt.get(),
                exit_status: None,
                reason: reason.to_string(),
                counted_as_failure: false,
            }));
            self.on_remove_executor(id, reason);
            if let Some(yarn) = yarn_scheduler(&self.env) {
                // `killAndReplaceExecutor`: nobody waits for the answer.
                self.env.ask(self.me, &yarn, |a| {
                    YarnSchedulerMsg::KillExecutors(a, vec![id])
                });
            }
        }
    }
}
