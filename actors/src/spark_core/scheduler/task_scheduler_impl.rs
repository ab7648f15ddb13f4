//! `TaskSchedulerImpl` (Spark: `scheduler/TaskSchedulerImpl.scala`): resource offers, status
//! updates, `taskSetFinished`, `killAllTaskAttempts` and `executorLost`.

use super::*;

impl Scheduler {
    /// `resourceOffers` for one executor: FIFO over the runnable task sets.
    pub fn resource_offer(&mut self, offer: &mut WorkerOffer) -> Vec<TaskDescription> {
        let mut launched = Vec::new();
        self.resource_offer_into(offer, &mut launched);
        launched
    }

    /// `resource_offer` into the caller's list (the driver reuses one for every offer).
    pub fn resource_offer_into(
        &mut self,
        offer: &mut WorkerOffer,
        launched: &mut Vec<TaskDescription>,
    ) {
        while offer.cores >= self.task_cpus {
            let Some(&key) = self.runnable.first() else {
                break;
            };
            let Some(index) = self
                .task_sets
                .get_mut(&key)
                .and_then(|t| t.pending.pop_front())
            else {
                self.runnable.remove(&key);
                continue;
            };
            if self.task_sets[&key].pending.is_empty() {
                self.runnable.remove(&key);
            }
            offer.cores -= self.task_cpus;
            launched.push(self.launch(key, index, offer));
        }
    }

    pub(super) fn launch(
        &mut self,
        key: (u32, u32),
        index: u32,
        offer: &WorkerOffer,
    ) -> TaskDescription {
        let task_id = TaskId(self.next_task);
        self.next_task += 1;
        self.tasks_launched += 1;
        let tsm = self.task_sets.get_mut(&key).expect("runnable task set");
        let attempt = tsm.launches[index as usize];
        tsm.launches[index as usize] += 1;
        tsm.running += 1;
        let stage_attempt = tsm.stage_attempt;
        let name = TaskName {
            index,
            attempt,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
        };
        info!(
            self.log,
            TSM,
            "Starting {name} (TID {task_id}) ({},executor {}, partition {index}, PROCESS_LOCAL, {TASK_BYTES} bytes) ",
            offer.host,
            offer.executor_id
        );
        let work = self.stages[&key.1].tasks[index as usize].clone();
        let launch_ms = clock::now_ms();
        self.running.insert(
            task_id,
            Box::new(RunningTask {
                task_id,
                key,
                index,
                attempt,
                executor_id: offer.executor_id,
                host: offer.host.clone(),
                launch_ms,
                launch_epoch: clock::epoch_ms() + launch_ms,
                launching: true,
            }),
        );
        self.by_executor
            .get_or_insert_default(offer.executor_id)
            .insert(task_id);
        if self.bus.enabled() {
            let mut info = Self::task_info(
                self.running.get(task_id).expect("just launched"),
                task_id,
                false,
                false,
            );
            info.finish_time = 0;
            self.bus.post(|| ListenerEvent::TaskStart {
                stage_id: key.1,
                stage_attempt_id: stage_attempt,
                info,
            });
        }
        TaskDescription {
            task_id,
            attempt_number: attempt,
            executor_id: offer.executor_id,
            index,
            partition_id: index,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
            cpus: self.task_cpus,
            work,
        }
    }

    /// `statusUpdate`: returns whether the task was known and finished (its cores come back).
    pub fn status_update(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
    ) -> (bool, Vec<SchedulerEvent>) {
        if state == TaskState::Running {
            if let Some(t) = self.running.get_mut(tid) {
                t.launching = false;
            }
            return (false, Vec::new());
        }
        if !state.is_finished() {
            return (false, Vec::new());
        }
        let Some(task) = self.running.remove(tid).map(|t| *t) else {
            info!(
                self.log,
                TS,
                "Ignoring update with state {state} for TID {tid} because its task set is gone (this is likely the result of receiving duplicate task finished status updates) or its executor has been marked as failed."
            );
            return (false, Vec::new());
        };
        if let Some(set) = self.by_executor.get_mut(task.executor_id) {
            set.remove(&tid);
        }
        self.task_ended(task.key);
        let events = match (state, data) {
            (TaskState::Finished, data) => self.handle_success(tid, task, data),
            (_, TaskResultData::Exception { class, description }) => {
                let reason = format!("{class}: {description}");
                let end = TaskEndReason::ExceptionFailure { class, description };
                self.handle_failure(tid, task, reason, end, true)
            }
            (_, data) => {
                // TaskKilled(reason): the reason the KillTask gave (TaskEndReason.scala:
                // `toErrorString = s"TaskKilled ($reason)"`); it does not count as a failure.
                let reason = match data {
                    TaskResultData::Killed { reason } => reason,
                    _ => "unknown reason".to_string(),
                };
                let text = format!("TaskKilled ({reason})");
                let end = TaskEndReason::TaskKilled { reason };
                self.handle_failure(tid, task, text, end, false)
            }
        };
        (true, events)
    }

    /// `TaskSetManager.maybeFinishTaskSet` -> `TaskSchedulerImpl.taskSetFinished`: a zombie set
    /// with no running task leaves its pool. Spark 4.0.0's text (TaskSchedulerImpl.scala,
    /// taskSetFinished): `Removed TaskSet 0.0 whose tasks have all completed, from pool ` (no
    /// comma after the id; the root pool's name is empty).
    pub(super) fn maybe_finish_task_set(&mut self, key: (u32, u32)) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        if !tsm.zombie || tsm.running > 0 || tsm.finished {
            return;
        }
        tsm.finished = true;
        info!(
            self.log,
            TS,
            "Removed TaskSet {}.{} whose tasks have all completed, from pool ",
            key.1,
            tsm.stage_attempt
        );
    }

    /// `TaskSchedulerImpl.killAllTaskAttempts` (Spark 4.0): `Canceling stage N`, `Killing all
    /// running tasks in stage N: <reason>`, a KillTask for each running attempt of each set of
    /// the stage still registered, which is suspended (zombie) and logs `Stage N.A was
    /// cancelled`. A set leaves its pool only when its last attempt ends.
    pub(super) fn kill_all_task_attempts(
        &mut self,
        key: (u32, u32),
        reason: &str,
        events: &mut Vec<SchedulerEvent>,
    ) {
        info!(self.log, TS, "Canceling stage {}", key.1);
        info!(
            self.log,
            TS, "Killing all running tasks in stage {}: {reason}", key.1
        );
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        if tsm.finished {
            return;
        }
        let stage_attempt = tsm.stage_attempt;
        if tsm.running > 0 {
            // Rare (an abort with attempts still out): the running table's window, in task id
            // order, for this set's attempts.
            let mut kills: Vec<(TaskId, ExecutorId)> = Vec::new();
            for t in self.running.values() {
                if t.key == key {
                    kills.push((t.task_id, t.executor_id));
                }
            }
            for (task_id, executor_id) in kills {
                events.push(SchedulerEvent::KillTask {
                    task_id,
                    executor_id,
                    reason: reason.to_string(),
                });
            }
        }
        // `tsm.suspend()`: zombie, and finished at once if nothing runs.
        if let Some(t) = self.task_sets.get_mut(&key) {
            t.zombie = true;
            t.pending.clear();
        }
        self.runnable.remove(&key);
        self.maybe_finish_task_set(key);
        info!(
            self.log,
            TS, "Stage {}.{stage_attempt} was cancelled", key.1
        );
    }

    /// `TaskSetManager.executorLost` for every task set: running tasks fail with
    /// ExecutorLostFailure; finished map outputs held there are re-run ("Resubmitted").
    pub fn executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
    ) -> Vec<SchedulerEvent> {
        let mut events = Vec::new();
        let tids: Vec<TaskId> = self
            .by_executor
            .remove(eid)
            .map(SmallSet::into_sorted)
            .unwrap_or_default();
        for tid in tids {
            let Some(task) = self.running.remove(tid).map(|t| *t) else {
                continue;
            };
            self.task_ended(task.key);
            let by_app = reason.exit_caused_by_app() && !task.launching;
            let cause = if by_app {
                "caused by one of the running tasks"
            } else {
                "unrelated to the running tasks"
            };
            let text =
                format!("ExecutorLostFailure (executor {eid} exited {cause}) Reason: {reason}");
            let end = TaskEndReason::ExecutorLostFailure {
                executor_id: eid.to_string(),
                exit_caused_by_app: by_app,
                loss_reason: reason.to_string(),
            };
            events.extend(self.handle_failure(tid, task, text, end, by_app));
        }
        self.resubmit_lost_outputs(eid, &mut events);
        events
    }
}
