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
            let Some(tsm) = self.task_sets.get_mut(&key) else {
                self.runnable.remove(&key);
                continue;
            };
            let Some(index) = tsm.pending.pop_front() else {
                self.runnable.remove(&key);
                continue;
            };
            if tsm.pending.is_empty() {
                self.runnable.remove(&key);
            }
            // A partition an earlier stage attempt finished meanwhile is not run again.
            if tsm.successful[index as usize] {
                continue;
            }
            offer.cores -= self.task_cpus;
            launched.push(self.launch(key, index, offer));
        }
        // dequeueTask: speculative copies only once no regular task is left to take.
        self.offer_speculative_tasks(offer, launched);
    }

    pub(super) fn launch(
        &mut self,
        key: TsKey,
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
        let partition = tsm.partitions[index as usize];
        let map_epoch = tsm.epoch;
        let name = TaskName {
            index,
            attempt,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
        };
        info!(
            self.log,
            TSM,
            "Starting {name} (TID {task_id}) ({},executor {}, partition {partition}, PROCESS_LOCAL, {TASK_BYTES} bytes) ",
            offer.host,
            offer.executor_id
        );
        let mut work = self.stages[&key.1].tasks[partition as usize].clone();
        if let TaskWork::CachedRdd(read) = &mut work {
            read.location = self.rdd_block_location(read.rdd_id, partition);
        }
        let shuffle = self.shuffle_io(key.1);
        let launch_ms = clock::now_ms();
        self.running.insert(
            task_id,
            Box::new(RunningTask {
                task_id,
                key,
                index,
                partition,
                attempt,
                executor_id: offer.executor_id,
                host: offer.host.clone(),
                launch_ms,
                launch_epoch: clock::epoch_ms() + launch_ms,
                map_epoch,
                launching: true,
                speculative: false,
            }),
        );
        if self.speculation.is_some() {
            self.speculation_on_launch(key, index, task_id);
        }
        self.by_executor
            .get_or_insert_default(offer.executor_id)
            .insert(task_id);
        if self.bus.enabled() {
            let task = self.running.get(task_id).expect("just launched");
            let typed = TaskEvent {
                stage_id: key.1,
                stage_attempt_id: stage_attempt,
                index,
                speculative: task.speculative,
                executor: offer.executor_id,
                kind: TaskEventKind::Start,
            };
            self.bus.post_task(typed, || {
                let mut info = Self::task_info(task, task_id, false, false);
                info.finish_time = 0;
                ListenerEvent::TaskStart {
                    stage_id: key.1,
                    stage_attempt_id: stage_attempt,
                    info,
                }
            });
        }
        TaskDescription {
            task_id,
            attempt_number: attempt,
            executor_id: offer.executor_id,
            index,
            partition_id: partition,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
            cpus: self.task_cpus,
            work,
            shuffle,
            task_binary: self.stages[&key.1].task_binary,
        }
    }

    /// A task's shuffle side: the output a ShuffleMapTask writes, and the map outputs a task
    /// of a stage reading a shuffle fetches (its first parent's; the tracker's current plan).
    fn shuffle_io(&mut self, stage: u32) -> ShuffleIo {
        let s = &self.stages[&stage];
        if s.parents.is_empty() && s.shuffle_id.is_none() {
            return ShuffleIo::default();
        }
        let write = s.shuffle_id.map(|shuffle_id| ShuffleWrite {
            shuffle_id,
            num_reduces: self.num_reduces(stage),
            bytes: s.shuffle_write.bytes_per_task,
            records: s.shuffle_write.records_per_task,
        });
        let read = s
            .parents
            .first()
            .and_then(|p| self.stages[p].shuffle_id)
            .and_then(|sid| self.tracker.read_plan(sid));
        ShuffleIo { write, read }
    }

    /// The partitions of the stage reading a map stage's shuffle (its job's next stage that
    /// names it as a parent).
    fn num_reduces(&self, map_stage: u32) -> u32 {
        let job = self.stages[&map_stage].job_id;
        let Some(&(_, last)) = self.job_stages.get(&job) else {
            return 1;
        };
        self.stages
            .range(map_stage + 1..=last)
            .find(|(_, s)| s.parents.contains(&map_stage))
            .map_or(1, |(_, s)| s.tasks.len() as u32)
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
            // logError in Spark 4.0.0's TaskSchedulerImpl.statusUpdate (read from its jar).
            error!(
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
        if self.speculation.is_some() && state != TaskState::Finished {
            self.speculation_task_failed(&task);
        }
        let events = match (state, data) {
            (TaskState::Finished, data) => self.handle_success(tid, task, data),
            (_, TaskResultData::FetchFailed(f)) => self.fetch_failed(tid, task, *f),
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
    pub(super) fn maybe_finish_task_set(&mut self, key: TsKey) {
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
        stage: u32,
        reason: &str,
        events: &mut Vec<SchedulerEvent>,
    ) {
        info!(self.log, TS, "Canceling stage {stage}");
        info!(
            self.log,
            TS, "Killing all running tasks in stage {stage}: {reason}"
        );
        let job = self.stages[&stage].job_id;
        let keys: Vec<TsKey> = self
            .task_sets
            .range((job, stage, 0)..=(job, stage, u32::MAX))
            .filter(|(_, t)| !t.finished)
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            self.kill_task_set(key, reason, events);
        }
    }

    /// One attempt's share of `killAllTaskAttempts`.
    fn kill_task_set(&mut self, key: TsKey, reason: &str, events: &mut Vec<SchedulerEvent>) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
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
                    interrupt_thread: false,
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

    /// `TaskSchedulerImpl.executorDecommission(executorId, decommissionInfo)`: remembers the
    /// worker host, which a fetch failure from the executor reads
    /// (`getExecutorDecommissionState`). Without `spark.scheduler.maxRetainedRemovedDecommissionExecutors`
    /// (0 by default) the state goes with the executor.
    pub fn executor_decommission(&mut self, eid: ExecutorId, worker_host: Option<&str>) {
        if let Some(h) = worker_host {
            self.decommissioned_hosts.insert(eid, h.to_string());
        }
    }

    /// `TaskSchedulerImpl.removeExecutor` + `executorLost`, then the DAGScheduler's
    /// `handleExecutorLost` (the DriverEndpoint calls the two halves itself, with the
    /// ExecutorRemoved event between them, as Spark's listener bus orders them).
    pub fn executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
    ) -> Vec<SchedulerEvent> {
        let events = self.task_sets_executor_lost(eid, reason);
        self.dag_executor_lost(eid, reason);
        events
    }

    /// `TaskSetManager.executorLost` for every task set: finished map outputs the executor
    /// served are re-run (`Resubmitted`, first), then its running tasks fail with
    /// ExecutorLostFailure.
    pub fn task_sets_executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
    ) -> Vec<SchedulerEvent> {
        let mut events = Vec::new();
        self.decommissioned_hosts.remove(&eid);
        self.resubmit_lost_outputs(eid, reason, &mut events);
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
            if self.speculation.is_some() {
                self.speculation_task_failed(&task);
            }
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
        events
    }
}
