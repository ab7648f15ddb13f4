//! A task's updates and ends: `StatusUpdate` (cores freed, the executor offered again, the
//! TaskResultGetter's work), what a scheduler call left (ends published once, events handled,
//! a `KillTask` forwarded to its executor) (Spark's `DriverEndpoint.receive`'s `StatusUpdate`
//! and `KillTask`, `TaskSchedulerImpl.statusUpdate`, `TaskResultGetter`).

use super::{DriverEndpoint, TARGET};
use crate::faults::Trigger;
use crate::spark_core::coarse_grained_backend::{self as backend_rules};
use crate::spark_core::scheduler::SchedulerEvent;
use crate::spark_core::task_result_getter::{EndKind, TaskEnded};
use crate::warn;
use crate::world::injector;
use crate::world::invariants::{self, name as inv};
use crate::world::observer::RunEvent;
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::task::StatusUpdate;

impl DriverEndpoint {
    /// `DriverEndpoint.receive` `KillTask`: forward to the executor, or warn.
    pub(super) fn kill_task(
        &mut self,
        task_id: sparkyard_messages::ids::TaskId,
        executor_id: ExecutorId,
        interrupt_thread: bool,
        reason: String,
    ) {
        match self.core.executors.get(executor_id) {
            Some(e) => self.env.send(
                &e.executor.clone(),
                ExecutorMsg::KillTask {
                    task_id,
                    interrupt_thread,
                    reason,
                },
            ),
            None => warn!(
                self.env.log(),
                TARGET,
                "{}",
                backend_rules::unknown_kill_line(task_id, executor_id)
            ),
        }
    }

    pub(super) fn on_status_update(&mut self, u: StatusUpdate) {
        if !self.core.executors.contains(u.executor_id) {
            let (task, state, executor) = (u.task_id, u.state, u.executor_id);
            return warn!(
                self.env.log(),
                TARGET,
                "{}",
                backend_rules::unknown_status_update_line(task, state, executor)
            );
        }
        let (finished, events) = self
            .scheduler
            .status_update_before_getter(u.task_id, u.state, u.data);
        if finished {
            self.core.release_task_resources(u.executor_id, u.task_id);
            if let Some(cores) = self.core.release_task_cores(u.executor_id, u.task_cpus) {
                let check = invariants::free_cores(u.executor_id.0, cores.free, cores.total);
                self.sim.violations.check(inv::FREE_CORES, check);
            }
            // The offer below updates the executor's place among the offerable ones; before
            // it only a revive among the events would read that place.
            if !events.is_empty() {
                self.update_offerable(u.executor_id);
            }
            self.handle_events(events);
            // CoarseGrainedSchedulerBackend.DriverEndpoint's StatusUpdate: `makeOffers(executorId)`
            // right after `scheduler.statusUpdate`, before the TaskResultGetter's thread handles
            // the end (Spark 4.0.0's jar: statusUpdate hands it to `enqueueSuccessfulTask` /
            // `enqueueFailedTask`).
            self.make_offers(Some(u.executor_id));
            self.task_result_getter();
        } else if !events.is_empty() {
            // A RUNNING update changes no count and yields nothing to handle.
            self.handle_events(events);
        }
    }

    /// The TaskResultGetter's work on the end whose slot was just offered: a success recorded
    /// (the stage may complete), or a failure's retry queued and, unless the set is a zombie or
    /// another copy succeeded, offers revived. The end's record is published with the events.
    fn task_result_getter(&mut self) {
        let (scheduler, mut backend) = self.split();
        let events = scheduler.task_result_getter(&mut backend);
        self.handle_events(events);
    }

    /// What a scheduler call left: the attempts' ends it recorded first, then its recoveries,
    /// task outputs and events.
    pub(super) fn handle_events(&mut self, events: Vec<SchedulerEvent>) {
        self.publish_task_ends();
        for r in self.scheduler.drain_recoveries() {
            self.sim.observe(RunEvent::Recovery(r));
        }
        let attempt = self.sim.current_attempt.get();
        for output in self.scheduler.drain_task_outputs() {
            self.sim.violations.task_output(attempt, output);
        }
        let mut revive = false;
        for e in events {
            match e {
                SchedulerEvent::JobEnded {
                    waiter,
                    job_id,
                    result,
                } => {
                    if let Some(w) = self.env.resolve::<DriverMsg>(&waiter) {
                        self.env.send(&w, DriverMsg::JobEnded { job_id, result });
                    }
                }
                SchedulerEvent::Revive => revive = true,
                SchedulerEvent::ResubmitFailedStagesAfter { ms } => {
                    self.resubmit_after_ms = Some(ms)
                }
                SchedulerEvent::JobSubmittedAfter { job_id, ms } => {
                    self.barrier_jobs_due.push((job_id, ms))
                }
                // TaskSchedulerImpl.killAllTaskAttempts (interruptThread = false: no
                // spark.job.interruptOnCancel) or a speculative race's loser (true).
                SchedulerEvent::KillTask {
                    task_id,
                    executor_id,
                    interrupt_thread,
                    reason,
                } => self.kill_task(task_id, executor_id, interrupt_thread, reason),
                SchedulerEvent::KillExcludedExecutor {
                    executor_id,
                    decommission,
                    message,
                } => self.kill_excluded_executor(executor_id, decommission, message),
                SchedulerEvent::KillExecutorsOnHost { host, decommission } => {
                    self.kill_executors_on_host(&host, decommission)
                }
                SchedulerEvent::UnschedulableAbortAfter { ms, key, index } => {
                    self.abort_timers_due.push((ms, key, index))
                }
                SchedulerEvent::ExcludedNodesChanged => {
                    self.shared.borrow_mut().excluded_nodes = self.scheduler.excluded_nodes()
                }
            }
        }
        if revive {
            self.make_offers(None);
        }
    }

    /// Every end the scheduler recorded since the last call, in the order they ended, each
    /// handed to [`Self::publish_task_end`].
    fn publish_task_ends(&mut self) {
        let mut ends = std::mem::take(&mut self.task_ends);
        self.scheduler.take_task_ends(&mut ends);
        for end in &ends {
            self.publish_task_end(end);
        }
        ends.clear();
        self.task_ends = ends;
    }

    /// Every consumer of a task attempt's end, each reading the one record: the run's record
    /// (finished, failed or killed, and the executor a fetch failed from), and for a success
    /// this SparkContext's count, which `on_tasks_finished = N` of AM attempt k counts against
    /// (the run's count is over every attempt). The listener bus's TaskEnd reads the same
    /// record, earlier: the DAGScheduler posts it where Spark does (`handleTaskCompletion`).
    fn publish_task_end(&mut self, end: &TaskEnded) {
        let attempt = self.sim.current_attempt.get();
        for event in end.run_events(attempt) {
            self.sim.observe(event);
        }
        if end.kind == EndKind::Success {
            self.tasks_finished += 1;
            let count = self.tasks_finished;
            injector::notify(&self.sim, Trigger::TasksFinished { attempt, count });
        }
    }
}
