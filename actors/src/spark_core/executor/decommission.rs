//! The executor's own decommission: `DecommissionExecutor` stops new launches, starts the block
//! manager's migration if configured, and the shutdown thread exits once no task runs and the
//! blocks are migrated (Spark's `CoarseGrainedExecutorBackend.decommissionSelf` and its
//! `wait-for-blocks-to-migrate` thread).

use super::{BACKEND, CoarseGrainedExecutorBackend};
use crate::kernel::clock;
use crate::spark_core::executor_backend_state::{
    DecommissionStart, ExitReason, MigrationInfo, ShutdownCheck,
};
use crate::{error, info, warn};
use actix::{AsyncContext, Context};
use sparkyard_messages::executor::ExecutorMsg;

impl CoarseGrainedExecutorBackend {
    /// `decommissionSelf`: stop taking tasks, start migrating blocks if configured, and exit
    /// once no task runs (the `wait-for-blocks-to-migrate` thread, every second).
    pub(super) fn decommission_self(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        let id = self.args.executor_id;
        let (migrate, storage_misconfigured) = match self.state.decommission() {
            DecommissionStart::Disabled => {
                let line = "Receive decommission request, but decommission feature is disabled.";
                return warn!(log, BACKEND, "{line}");
            }
            DecommissionStart::AlreadyStarted => {
                return warn!(
                    log,
                    BACKEND, "Executor {id} already started decommissioning."
                );
            }
            DecommissionStart::Started {
                migrate,
                storage_misconfigured,
            } => (migrate, storage_misconfigured),
        };
        info!(log, BACKEND, "Decommission executor {id}.");
        if migrate {
            self.start_block_manager_decommission(&log, ctx);
        } else if storage_misconfigured {
            error!(
                log,
                BACKEND,
                "Storage decommissioning attempted but neither spark.storage.decommission.shuffleBlocks.enabled or spark.storage.decommission.rddBlocks.enabled is enabled "
            );
        }
        // `executor.decommission()`: its launches log an error from now on.
        if let Some(executor) = self.executor.as_mut() {
            executor.tasks.decommission();
        }
        ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
        info!(log, BACKEND, "Will exit when finished decommissioning");
    }

    /// One pass of the shutdown thread: exit with `Finished decommissioning` once idle.
    pub(super) fn decommission_check(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() {
            return;
        }
        let log = self.env.log().clone();
        info!(log, BACKEND, "Checking to see if we can shutdown.");
        let running = self.executor.as_ref().map_or(0, |e| e.tasks.running());
        let migration = self.decommissioner.as_ref().map(|d| {
            let (round_started_ms, all_migrated) = d.last_migration_info();
            MigrationInfo {
                round_started_ms,
                all_migrated,
            }
        });
        // With no task running and migration on, the thread checks the migrations first.
        let checking = "No running tasks, checking migrations";
        match self.state.shutdown_check(running, migration) {
            ShutdownCheck::Stopping => return,
            ShutdownCheck::BlockedByTasks(n) => {
                info!(log, BACKEND, "Blocked from shutdown by {n} running tasks");
                ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
                return;
            }
            ShutdownCheck::BlocksNotMigrated => {
                info!(log, BACKEND, "{checking}");
                info!(log, BACKEND, "All blocks not yet migrated.");
                ctx.notify_later(ExecutorMsg::DecommissionCheck, clock::ms(1000));
                return;
            }
            ShutdownCheck::Exit { migrated: true } => {
                info!(log, BACKEND, "{checking}");
                info!(
                    log,
                    BACKEND, "No running tasks, all blocks migrated, stopping."
                );
            }
            ShutdownCheck::Exit { migrated: false } => info!(
                log,
                BACKEND, "No running tasks, no block migration configured, stopping."
            ),
        }
        // ExecutorLossMessage.decommissionFinished.
        self.exit_executor(ExitReason::FinishedDecommissioning, true);
    }
}
