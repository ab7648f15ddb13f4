//! The Executor's heartbeater: a fixed-rate `Heartbeat` ask to the driver, its failures counted
//! up to exit 56, and a `reregisterBlockManager` answer's re-registration (Spark's
//! `Executor.reportHeartBeat` run by its `Heartbeater`, and `BlockManager.reregister`).

use super::{
    BackendAnswer, CoarseGrainedExecutorBackend, EXECUTOR, executor_jvm, parse_driver_url,
};
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::kernel::timers;
use crate::rpc::{AskTimeout, Asker};
use crate::spark_core::executor_state::{
    BLOCK_MANAGER_REREGISTRATION_FAILED, HeartbeatAction, HeartbeatOutcome,
    heartbeat_initial_delay_ms, seeded_unit,
};
use crate::{error, info, warn};
use actix::Context;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::HeartbeatResponse;
use sparkyard_messages::rpc::RpcAddress;

impl CoarseGrainedExecutorBackend {
    /// The Executor's heartbeater (`Heartbeater.start`): every `spark.executor.heartbeatInterval`
    /// at a fixed rate, after an initial delay of one interval plus a random fraction of one,
    /// drawn from the run's seed and the executor JVM (Spark's `math.random` is unseeded).
    pub(super) fn start_heartbeater(&mut self, ctx: &mut Context<Self>) {
        let interval = self.conf.heartbeat_interval_ms.max(1);
        let jvm = crate::kernel::trace::fnv1a(executor_jvm(&self.args).as_bytes());
        let random = seeded_unit(self.sim.config.seed, jvm);
        let first = clock::ms(heartbeat_initial_delay_ms(interval, random));
        timers::notify_later_with(ctx, first, || ExecutorMsg::HeartbeatTick);
    }

    /// A fixed-rate tick: the next is armed; a heartbeat still unanswered has timed out now
    /// (its timeout is the interval), and `reportHeartBeat` asks again.
    pub(super) fn on_heartbeat_tick(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() {
            return;
        }
        let interval = self.conf.heartbeat_interval_ms.max(1);
        timers::notify_later_with(ctx, clock::ms(interval), || ExecutorMsg::HeartbeatTick);
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.heartbeater.tick().is_some() {
            let failure = self.heartbeat_timeout().failure(&self.driver_address());
            self.on_heartbeat(Err(failure), ctx);
            if self.state.stopping() {
                return;
            }
        }
        self.report_heartbeat(ctx);
    }

    /// `RpcTimeout(HEARTBEAT_INTERVAL_MS.millis, EXECUTOR_HEARTBEAT_INTERVAL.key)`.
    fn heartbeat_timeout(&self) -> AskTimeout {
        let interval = self.conf.heartbeat_interval_ms.max(1);
        AskTimeout::in_millis(interval, "spark.executor.heartbeatInterval")
    }

    /// The driver's RPC address (its URL's), named by a timed-out ask.
    fn driver_address(&self) -> RpcAddress {
        parse_driver_url(&self.args.driver_url).unwrap_or_else(|| RpcAddress {
            host: String::new(),
            port: 0,
        })
    }

    /// `reportHeartBeat`'s `heartbeatReceiverRef.askSync[HeartbeatResponse](message, timeout)`:
    /// posted with no timer of its own (the next tick is its timeout; see `Heartbeater`).
    fn report_heartbeat(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone() else {
            return self.on_heartbeat(Err(RpcFailure::spark("no driver")), ctx);
        };
        let id = self.args.executor_id;
        let ask_id = self
            .env
            .ask(self.me.id, &driver, |a| DriverEndpointMsg::Heartbeat(a, id));
        if let Some(executor) = self.executor.as_mut() {
            executor.heartbeater.asked(ask_id);
        }
    }

    /// The heartbeat's outcome: a reply resets the failure count (and may ask the block
    /// manager to register again); a failure is counted, warned, and at
    /// `spark.executor.heartbeat.maxFailures` the JVM exits 56.
    pub(super) fn on_heartbeat(
        &mut self,
        result: Result<HeartbeatResponse, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        let shutting_down = self.state.stopping();
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let outcome = match &result {
            Ok(r) => HeartbeatOutcome::Replied {
                reregister_block_manager: r.reregister_block_manager,
            },
            Err(_) => HeartbeatOutcome::Failed,
        };
        let action = executor.heartbeater.answered(outcome, shutting_down);
        let log = self.env.log().clone();
        match action {
            HeartbeatAction::Reset => {}
            HeartbeatAction::Reregister => {
                info!(log, EXECUTOR, "Told to re-register on heartbeat");
                self.reregister_block_manager(ctx);
            }
            HeartbeatAction::Warn => warn_heartbeat_failure(&log, result.err()),
            HeartbeatAction::Exit { max, code } => {
                warn_heartbeat_failure(&log, result.err());
                error!(
                    log,
                    EXECUTOR, "Exit as unable to send heartbeats to driver more than {max} times"
                );
                self.system_exit(code);
            }
        }
    }

    /// `BlockManager.reregister`: `BlockManager <id> re-registering with master`, then
    /// `master.registerBlockManager(..., isReRegister = true)`.
    fn reregister_block_manager(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone() else {
            return;
        };
        let id = self.block_manager_id();
        info!(
            self.env.log(),
            "executor::BlockManager", "BlockManager {id} re-registering with master"
        );
        let t = self.conf.ask_timeout();
        let me = self.me.id;
        self.ask(ctx, me, &driver, BackendAnswer::Reregistered, &t, |a| {
            DriverEndpointMsg::ReregisterBlockManager(a, id)
        });
    }

    /// The master's answer: refused (the executor is lost, or pending removal) ends the JVM
    /// with `ExecutorExitCode.BLOCK_MANAGER_REREGISTRATION_FAILED` (58). Taken (a fetch failure
    /// had removed the block manager of a live executor), the master registers it again;
    /// `reportAllBlocks` would report its blocks, which nothing here tracks, so nothing else
    /// follows. A failed ask is the heartbeater thread's `NonFatal` (counted by the next
    /// heartbeat, not here).
    pub(super) fn on_reregistered(&mut self, result: Result<bool, RpcFailure>) {
        if result == Ok(false) && !self.state.stopping() {
            error!(
                self.env.log(),
                "executor::BlockManager",
                "Exiting executor due to block manager re-registration failure"
            );
            self.system_exit(BLOCK_MANAGER_REREGISTRATION_FAILED);
        }
    }
}

/// `reportHeartBeat`'s catch: its WARN line with the `askSync`'s failure as `awaitResult`
/// rethrows it, printed with its causes.
fn warn_heartbeat_failure(log: &ProcessLog, failure: Option<RpcFailure>) {
    let e = failure.unwrap_or_else(|| RpcFailure::spark("heartbeat failed"));
    let trace = crate::rpc::awaited(e).stack_text();
    warn!(
        log,
        EXECUTOR, "Issue communicating with driver in heartbeater\n{trace}"
    );
}
