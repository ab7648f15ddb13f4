//! A task's kill: `KillTask` marks the task and kills its runner, and a launch that meets an
//! earlier mark is killed at once (Spark's `Executor.killTask` and `TaskRunner.kill`).

use super::{CoarseGrainedExecutorBackend, EXECUTOR, RunningTask};
use crate::info;
use crate::kernel::clock;
use crate::spark_core::executor_state::{KillMark, KillTakesEffect};
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
        let Some(mut task) = executor.tasks.kill(mark.clone()) else {
            return;
        };
        let d = &task.desc;
        let replayed_kill = d
            .work
            .runs_until_killed(d.stage_attempt_id, d.attempt_number);
        let waits_on_fetch = task.fetch_retries.is_some();
        let when = KillTakesEffect::of(waits_on_fetch, mark.interrupt_thread, replayed_kill);
        if when == KillTakesEffect::AtItsEnd {
            // A task blocked on a fetch being retried, killed without an interrupt, or a
            // replayed attempt the recording ended by a kill (its recorded time runs until the
            // kill took effect there): it meets this one at its end (`on_task_done`).
            self.log_trying_to_kill(&task, &mark);
            task.kill_at_end = Some(Box::new(mark));
            if let Some(e) = self.executor.as_mut() {
                e.tasks.put_back(task.desc.task_id, task);
            }
            return;
        }
        self.killed(task, mark, ctx);
    }

    /// `Executor.killTask`'s line as the kill reaches the runner.
    fn log_trying_to_kill(&self, task: &RunningTask, mark: &KillMark) {
        let (tid, interrupt, reason) = (mark.task_id, mark.interrupt_thread, &mark.reason);
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor is trying to kill {} (TID {tid}), interruptThread: {interrupt}, reason: {reason}",
            task.desc.name()
        );
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
        self.log_trying_to_kill(&task, &mark);
        self.kill_takes_effect(task, mark);
    }

    /// The runner meets its kill: its KILLED status with `TaskKilled(killReason)`.
    pub(super) fn kill_takes_effect(&mut self, task: RunningTask, mark: KillMark) {
        let (tid, reason) = (mark.task_id, mark.reason);
        // The TaskRunner's thread then meets the kill (TaskKilledException at its next
        // interruption check) and logs it before its KILLED status (Spark 4.0.0's
        // Executor$TaskRunner.run: `Executor killed <taskName>, reason: <reason>`); a thread
        // waiting on a fetch meets it as the interrupt's InterruptedException or the fetch's
        // failure instead (`Executor interrupted and killed ...`).
        let how = match task.fetch_retries {
            Some(_) => "interrupted and killed",
            None => "killed",
        };
        info!(
            self.env.log(),
            EXECUTOR,
            "Executor {how} {} (TID {tid}), reason: {reason}",
            task.desc.name()
        );
        let data = TaskResultData::Killed { reason };
        self.status_update(tid, TaskState::Killed, data, task.desc.cpus);
    }
}
