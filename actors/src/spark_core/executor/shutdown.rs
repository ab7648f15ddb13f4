//! How the executor JVM ends: `Shutdown`, SIGTERM, `exitExecutor` (first call only, its reason
//! told to the driver), a disconnected driver, and `System.exit` from an executor thread
//! (Spark's `CoarseGrainedExecutorBackend.exitExecutor`, `onDisconnected`, `Shutdown`).

use super::{BACKEND, CoarseGrainedExecutorBackend, parse_driver_url};
use crate::spark_core::executor_backend_state::{Disconnected, ExitReason, ExitStep};
use crate::{error, info};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::rpc::RpcAddress;

impl CoarseGrainedExecutorBackend {
    /// `System.exit(code)` from an executor thread: the JVM runs its shutdown hooks (Spark's
    /// ShutdownHookManager logs its line) and ends with `code`; the driver learns of the loss
    /// from the disconnect and the AM's loss reason.
    pub(super) fn system_exit(&mut self, code: i32) {
        let code = self.state.system_exit(code);
        info!(
            self.env.log(),
            "executor::ShutdownHookManager", "Shutdown hook called"
        );
        self.env.exit(code);
    }

    /// `Shutdown`: with no Executor the JVM exits 1; otherwise the Executor stops and the JVM exits 0.
    pub(super) fn on_shutdown(&mut self) {
        let code = self.state.shutdown();
        if code != 0 {
            return self.env.exit(code);
        }
        let log = self.env.log().clone();
        // BlockManager.stop: the decommissioner first, then the stores.
        if let Some(d) = self.decommissioner.as_mut() {
            d.stop(&log);
        }
        info!(log, "executor::MemoryStore", "MemoryStore cleared");
        info!(log, "executor::BlockManager", "BlockManager stopped");
        info!(log, "executor::ShutdownHookManager", "Shutdown hook called");
        self.env.exit(code);
    }

    /// SIGTERM (a NodeManager stopping the container): SignalUtils logs it and hands it to the
    /// JVM's default handler, which runs the shutdown hooks and exits 128 + 15. Nothing tells
    /// the driver: it learns of the loss from the disconnect and the AM.
    pub(super) fn on_signal_term(&mut self) {
        let log = self.env.log().clone();
        error!(log, BACKEND, "RECEIVED SIGNAL TERM");
        let code = self.state.signal_term();
        info!(log, "executor::ShutdownHookManager", "Shutdown hook called");
        self.env.exit(code);
    }

    /// `Cannot register with driver: <url>` (and the failure's text, if any).
    pub(super) fn cannot_register(&self, cause: String) -> ExitReason {
        ExitReason::CannotRegister {
            driver_url: self.args.driver_url.to_string(),
            cause,
        }
    }

    /// `exitExecutor(code, reason, notifyDriver)`: first call only. Its reason is recorded
    /// once; the error line and the driver's `RemoveExecutor` read that record.
    pub(super) fn exit_executor(&mut self, reason: ExitReason, notify_driver: bool) {
        let notify_driver = match self.state.exit_executor(reason, notify_driver) {
            ExitStep::Skip => {
                return info!(
                    self.env.log(),
                    BACKEND, "Skip exiting executor since it's been already asked to exit before."
                );
            }
            ExitStep::Exit { notify_driver } => notify_driver,
        };
        let Some(reason) = self.state.exit_reason() else {
            return;
        };
        error!(
            self.env.log(),
            BACKEND, "Executor self-exiting due to : {reason}"
        );
        if notify_driver && let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::RemoveExecutor {
                executor_id: self.args.executor_id,
                reason: ExecutorLossReason::Other(reason.to_string()),
            };
            self.env.send(d, msg);
        }
        // Spark 4.0 sends itself `Shutdown` (no `System.exit(code)`): it exits 1 without an
        // Executor, else 0.
        self.on_shutdown();
    }

    pub(super) fn on_disconnected(&mut self, address: RpcAddress) {
        // The driver's address is the URL's (parsed here: disconnects are rare).
        let is_driver = Some(&address) == parse_driver_url(&self.args.driver_url).as_ref();
        let seen = self.state.disconnected(is_driver);
        let log = self.env.log();
        match seen {
            Disconnected::Driver => {
                self.exit_executor(ExitReason::DriverDisassociated(address.to_string()), false)
            }
            Disconnected::DuringShutdown => crate::sim_log!(
                log,
                BACKEND,
                seen.level(),
                "Driver from {address} disconnected during shutdown"
            ),
            Disconnected::Unknown => crate::sim_log!(
                log,
                BACKEND,
                seen.level(),
                "An unknown ({address}) driver disconnected."
            ),
        }
    }
}
