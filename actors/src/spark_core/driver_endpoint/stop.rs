//! Stopping: `StopExecutors`, `StopDriver`, and the abort timers of unschedulable task sets that
//! `TaskSchedulerImpl.stop` waits for (Spark's `CoarseGrainedSchedulerBackend.stopExecutors` /
//! `stop`, and `TaskSchedulerImpl`'s `task-abort-timer`).

use super::{DriverEndpoint, TARGET};
use crate::info;
use crate::kernel::clock;
use crate::rpc::EndpointRef;
use actix::{AsyncContext, Context};
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::rpc::ReplyTo;

/// `ThreadUtils.shutdown`'s default grace period (`shutdown$default$2`: `FiniteDuration(30,
/// SECONDS)` in Spark 4.0.0's jar).
const THREAD_POOL_SHUTDOWN_GRACE_MS: u64 = 30_000;

/// How long `TaskSchedulerImpl.stop` blocks on `ThreadUtils.shutdown(abortTimer)` (Spark 4.0.0's
/// jar): the pool is a `ScheduledThreadPoolExecutor` that keeps delayed tasks after
/// `shutdown()` (the JDK's default), `updateUnschedulableTaskSetTimeoutAndStartAbortTimer` drops
/// the future it schedules (nothing cancels it, not even a launch that clears
/// `unschedulableTaskSetToExpiryTime`), and `awaitTermination` waits up to 30 s for the pool to
/// run them all: until the last pending timer, at most 30 s. A real local-cluster run whose
/// task set had been unschedulable 21 s before `sc.stop()` took 30 s to stop.
pub fn abort_timer_shutdown_wait_ms(pending: &[u64], now_ms: u64) -> u64 {
    pending.iter().max().map_or(0, |last| {
        last.saturating_sub(now_ms)
            .min(THREAD_POOL_SHUTDOWN_GRACE_MS)
    })
}

impl DriverEndpoint {
    /// TaskSchedulerImpl's abortTimer (`task-abort-timer`) for each unschedulable task set a
    /// round of offers found (also after the timers' own callbacks, which are no messages).
    #[inline]
    pub(super) fn schedule_abort_timers(&mut self, ctx: &mut Context<Self>) {
        // Runs after every message: nothing to do unless exclusion found a set unschedulable.
        if self.abort_timers_due.is_empty() {
            return;
        }
        self.start_abort_timers(ctx);
    }

    #[inline(never)]
    fn start_abort_timers(&mut self, ctx: &mut Context<Self>) {
        for (ms, key, index) in std::mem::take(&mut self.abort_timers_due) {
            let at = clock::now_ms() + ms;
            self.abort_timers_pending.push(at);
            ctx.run_later(clock::ms(ms), move |act, ctx| {
                if let Some(i) = act.abort_timers_pending.iter().position(|t| *t == at) {
                    act.abort_timers_pending.swap_remove(i);
                }
                let stopped = act.stopped;
                let (scheduler, mut backend) = act.split();
                if stopped {
                    // Run by `stop`'s wait: the DAGScheduler's loop has stopped.
                    return scheduler.unschedulable_task_set_timer_after_stop(
                        key,
                        index,
                        &mut backend,
                    );
                }
                let events = scheduler.unschedulable_task_set_timer(key, index, &mut backend);
                act.handle_events(events);
                act.schedule_abort_timers(ctx);
            });
        }
    }

    /// `StopDriver` (`CoarseGrainedSchedulerBackend.stop`'s last ask), then what
    /// `TaskSchedulerImpl.stop` does after the backend's stop: it waits for the abort timers
    /// still queued ([`abort_timer_shutdown_wait_ms`]) before `SparkContext.stop` goes on, so
    /// the answer the Driver waits for comes after that wait.
    pub(super) fn on_stop_driver(&mut self, ask: ReplyTo<bool>, ctx: &mut Context<Self>) {
        self.shared.borrow_mut().stopped = true;
        self.stopped = true;
        let wait = abort_timer_shutdown_wait_ms(&self.abort_timers_pending, clock::now_ms());
        if wait == 0 {
            self.env.reply(ask, true);
            return self.env.stop_endpoint(self.me);
        }
        ctx.run_later(clock::ms(wait), move |act, _| {
            act.env.reply(ask, true);
            act.env.stop_endpoint(act.me);
        });
    }

    pub(super) fn on_stop_executors(&mut self, ask: ReplyTo<bool>) {
        self.executors_told_to_stop = true;
        self.check_total_cores();
        info!(self.env.log(), TARGET, "Asking each executor to shut down");
        let targets: Vec<EndpointRef<ExecutorMsg>> = self
            .core
            .executors
            .values()
            .map(|e| e.executor.clone())
            .collect();
        for t in targets {
            self.env.send(&t, ExecutorMsg::StopExecutor);
        }
        self.env.reply(ask, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TaskSchedulerImpl.stop's `ThreadUtils.shutdown(abortTimer)` (Spark 4.0.0's jar; the real
    /// run is in docs/worklog/2026-12-05-afternoon/issue-27-audit.md): no pending timer, no
    /// wait; otherwise until the last one runs, at most the 30 s grace period (a timer 99 s
    /// away: 30 s, as the real driver waited between `Stopped Spark web UI` and
    /// `MapOutputTrackerMasterEndpoint stopped!`); a timer already due is no wait.
    #[test]
    fn stop_waits_for_pending_abort_timers_up_to_thirty_seconds() {
        assert_eq!(abort_timer_shutdown_wait_ms(&[], 5_000), 0);
        assert_eq!(abort_timer_shutdown_wait_ms(&[12_000, 8_000], 5_000), 7_000);
        assert_eq!(abort_timer_shutdown_wait_ms(&[104_000], 5_000), 30_000);
        assert_eq!(abort_timer_shutdown_wait_ms(&[5_000], 5_000), 0);
    }
}
