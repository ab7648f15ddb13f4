//! A task's kill: `KillTask` marks the task and kills its runner, and a launch that meets an
//! earlier mark is killed at once (Spark's `Executor.killTask` and `TaskRunner.kill`).

use super::{CoarseGrainedExecutorBackend, EXECUTOR, RunningTask};
use crate::info;
use crate::kernel::clock;
use crate::spark_core::executor_state::KillMark;
use actix::{AsyncContext, Context};
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::TaskResultData;

impl CoarseGrainedExecutorBackend {
    pub(super) fn on_kill_task(
        &mut self,
        task_id: TaskId,
        interrupt_thread: bool,
        reason: String,
        ctx: &mut Context<Self>,
    ) {
        if let Some(exit) = self.state.needs_executor(false) {
            return self.exit_executor(exit, true);
        }
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let mark = KillMark {
            task_id,
            interrupt_thread,
            reason,
            at_ms: clock::now_ms(),
        };
        // Executor.killTask marks the kill (for a launch still to come) and kills the runner.
        if let Some(task) = executor.tasks.kill(mark.clone()) {
            self.killed(task, mark, ctx);
        }
    }

    /// `launchTask` found a kill mark: the runner it just put is killed.
    pub(super) fn kill_launched(&mut self, mark: KillMark, ctx: &mut Context<Self>) {
        let task = self
            .executor
            .as_mut()
            .and_then(|e| e.tasks.remove(mark.task_id));
        if let Some(task) = task {
            self.killed(task, mark, ctx);
        }
    }

    /// `TaskRunner.kill`: the task's timer stops and its KILLED status carries
    /// `TaskKilled(killReason)`.
    fn killed(&mut self, task: RunningTask, mark: KillMark, ctx: &mut Context<Self>) {
        ctx.cancel_future(task.timer);
        let (tid, interrupt, reason) = (mark.task_id, mark.interrupt_thread, mark.reason);
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor is trying to kill {} (TID {tid}), interruptThread: {interrupt}, reason: {reason}",
            task.desc.name()
        );
        // The TaskRunner's thread then meets the kill (TaskKilledException at its next
        // interruption check) and logs it before its KILLED status (Spark 4.0.0's
        // Executor$TaskRunner.run: `Executor killed <taskName>, reason: <reason>`).
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor killed {} (TID {tid}), reason: {reason}",
            task.desc.name()
        );
        let data = TaskResultData::Killed { reason };
        self.status_update(tid, TaskState::Killed, data, task.desc.cpus);
    }
}
