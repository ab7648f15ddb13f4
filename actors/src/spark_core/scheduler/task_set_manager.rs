//! `TaskSetManager` (Spark: `scheduler/TaskSetManager.scala`): one stage attempt's pending,
//! running and successful tasks, success and failure handling, and the map outputs lost with an
//! executor (`Resubmitted`); its pending lists by locality and delay scheduling
//! (`resourceOffer`, `dequeueTask`, `getAllowedLocalityLevel`, `recomputeLocality`).

use super::locality::{
    LocalityLevels, PendingTasks, PreferredLocations, TaskLocality, Topology, dequeue_from_list,
    more_tasks_to_run_in,
};
use super::task_scheduler_impl::OfferRound;
use super::*;
use crate::world::config::LocalitySettings;

pub(super) struct TaskSetManager {
    pub(super) stage_attempt: u32,
    /// Each task's partition (a retried stage attempt runs only the missing partitions).
    pub(super) partitions: Vec<u32>,
    /// The MapOutputTracker's epoch when the set was created (`Task.epoch` of its tasks).
    pub(super) epoch: u64,
    /// `pendingTasks`: the stacks by locality.
    pub(super) pending: PendingTasks,
    /// Each task's preferred hosts and cache executor (`Task.preferredLocations`).
    pub(super) prefs: PreferredLocations,
    /// `copiesRunning`.
    pub(super) copies_running: Vec<u16>,
    /// `myLocalityLevels` and `localityWaits`.
    pub(super) levels: LocalityLevels,
    /// `currentLocalityIndex`.
    pub(super) current_level: usize,
    /// `lastLocalityWaitResetTime`, virtual ms.
    last_reset_ms: u64,
    /// TaskSchedulerImpl's `noRejectsSinceLastReset` entry for this set (absent = true).
    pub(super) no_rejects_since_last_reset: bool,
    pub(super) successful: Vec<bool>,
    pub(super) num_successful: u32,
    pub(super) failures: Vec<u32>,
    pub(super) launches: Vec<u32>,
    /// The executor holding each successful map task's output (shuffle-map stages).
    pub(super) output_on: Vec<Option<ExecutorId>>,
    pub(super) zombie: bool,
    /// `runningTasks`: attempts launched and not ended (a zombie set stays registered until
    /// this reaches 0: `maybeFinishTaskSet`).
    pub(super) running: u32,
    /// `taskSetFinished` ran ("Removed TaskSet"): the set is no longer the stage's.
    pub(super) finished: bool,
    /// `recentExceptions`: an exception's description -> (duplicates, when last printed).
    pub(super) recent_exceptions: BTreeMap<String, (u32, u64)>,
    /// Speculation's state of the set (`None` when speculation is off).
    pub(super) spec: Option<Box<speculation::TaskSetSpeculation>>,
}

/// What `dequeueTask` hands out: the task, the level it runs at, and whether it is a
/// speculative copy (`TaskInfo.speculative`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dequeued {
    pub index: u32,
    pub locality: TaskLocality,
    pub speculative: bool,
}

/// A copy of a task the set has counted as launched (`prepareLaunchingTask`'s bookkeeping).
#[derive(Clone, Copy, Debug)]
pub(super) struct StartedCopy {
    /// Its attempt number (the index's launches before it).
    pub attempt: u32,
    pub stage_attempt: u32,
    pub partition: u32,
    /// The MapOutputTracker's epoch of the set (`Task.epoch`).
    pub map_epoch: u64,
}

/// What a task set needs to know about where its tasks would like to run.
pub(super) struct LocalityContext<'a> {
    pub topology: &'a Topology,
    pub settings: &'a LocalitySettings,
    pub now_ms: u64,
}

impl TaskSetManager {
    /// `new TaskSetManager`: `addPendingTasks` adds the indices in reverse, so index 0 is on top
    /// of each stack; then `computeValidLocalityLevels`.
    pub(super) fn new(
        stage_attempt: u32,
        partitions: Vec<u32>,
        epoch: u64,
        prefs: PreferredLocations,
        cx: &LocalityContext,
    ) -> Self {
        let n = partitions.len();
        let mut pending = PendingTasks::default();
        for i in (0..n as u32).rev() {
            pending.add(i, prefs.hosts_of(i), prefs.executor_of(i), cx.topology);
        }
        let levels = pending.valid_levels(cx.topology, cx.settings);
        TaskSetManager {
            stage_attempt,
            pending,
            prefs,
            copies_running: vec![0; n],
            levels,
            current_level: 0,
            last_reset_ms: cx.now_ms,
            no_rejects_since_last_reset: true,
            partitions,
            epoch,
            successful: vec![false; n],
            num_successful: 0,
            failures: vec![0; n],
            launches: vec![0; n],
            output_on: vec![None; n],
            zombie: false,
            running: 0,
            finished: false,
            recent_exceptions: BTreeMap::new(),
            spec: None,
        }
    }

    /// The task index of `partition`, if this set runs it.
    fn index_of(&self, partition: u32) -> Option<usize> {
        self.partitions.binary_search(&partition).ok()
    }

    /// `addPendingTask(index)` (a retry, a resubmitted map output).
    pub(super) fn add_pending_task(&mut self, index: u32, topology: &Topology) {
        let (hosts, executor) = (self.prefs.hosts_of(index), self.prefs.executor_of(index));
        self.pending.add(index, hosts, executor, topology);
    }

    /// Whether the index still needs a copy launched (`copiesRunning(index) == 0 &&
    /// !successful(index)`).
    fn schedulable(&self, index: u32) -> bool {
        self.copies_running[index as usize] == 0 && !self.successful[index as usize]
    }

    /// `pendingTasks.all.nonEmpty` once what runs or is done is dropped from its top: whether
    /// the set still has a task to offer.
    pub(super) fn has_pending(&mut self) -> bool {
        if self.has_speculative_pending() {
            return true;
        }
        while let Some(&i) = self.pending.all().last() {
            if self.schedulable(i) {
                return true;
            }
            self.pending.all_mut().pop();
        }
        false
    }

    /// A speculatable copy waits in `pendingSpeculatableTasks`.
    fn has_speculative_pending(&self) -> bool {
        self.spec.as_ref().is_some_and(|s| !s.pending.is_empty())
    }

    /// `dequeueTask(execId, host, maxLocality)` for the regular (not speculative) tasks
    /// (TaskSetManager.dequeueTaskHelper): the executor's list (PROCESS_LOCAL, at any
    /// `max_locality`), the host's (NODE_LOCAL), then tasks without a preference (reported
    /// PROCESS_LOCAL, as Spark does), the host's rack (RACK_LOCAL), then any (ANY), each but the
    /// first only if `max_locality` allows it. Speculative tasks have their own hook.
    pub(super) fn dequeue_task(
        &mut self,
        executor: ExecutorId,
        host: &str,
        max_locality: TaskLocality,
        topology: &Topology,
    ) -> Option<(u32, TaskLocality)> {
        let copies = &self.copies_running;
        let successful = &self.successful;
        let ok = |i: u32| copies[i as usize] == 0 && !successful[i as usize];
        let pending = &mut self.pending;
        if !pending.for_executor.is_empty()
            && let Some(list) = pending.for_executor.get_mut(&executor)
            && let Some(i) = dequeue_from_list(list, ok)
        {
            return Some((i, TaskLocality::ProcessLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::NodeLocal)
            && let Some(list) = pending.for_host.get_mut(host)
            && let Some(i) = dequeue_from_list(list, ok)
        {
            return Some((i, TaskLocality::NodeLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::NoPref)
            && let Some(i) = dequeue_from_list(&mut pending.no_prefs, ok)
        {
            return Some((i, TaskLocality::ProcessLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::RackLocal)
            && !pending.for_rack.is_empty()
            && let Some(rack) = topology.rack(host)
            && let Some(list) = pending.for_rack.get_mut(rack)
            && let Some(i) = dequeue_from_list(list, ok)
        {
            return Some((i, TaskLocality::RackLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::Any)
            && let Some(i) = dequeue_from_list(pending.all_mut(), ok)
        {
            return Some((i, TaskLocality::Any));
        }
        None
    }

    /// `getAllowedLocalityLevel(curTime)`: moves past a level with nothing left to run at once
    /// (SPARK-4939), past one whose wait has run out since the last reset (advancing the reset
    /// time by that wait), and stops at the first level still worth waiting for.
    fn allowed_locality_level(&mut self, now_ms: u64) -> TaskLocality {
        while self.current_level + 1 < self.levels.count() {
            let level = self.levels.get(self.current_level);
            let copies = &self.copies_running;
            let successful = &self.successful;
            let ok = |i: u32| copies[i as usize] == 0 && !successful[i as usize];
            let more = match level {
                TaskLocality::ProcessLocal => {
                    more_tasks_to_run_in(&mut self.pending.for_executor, ok)
                }
                TaskLocality::NodeLocal => more_tasks_to_run_in(&mut self.pending.for_host, ok),
                TaskLocality::NoPref => !self.pending.no_prefs.is_empty(),
                TaskLocality::RackLocal => more_tasks_to_run_in(&mut self.pending.for_rack, ok),
                TaskLocality::Any => false,
            };
            let wait = self.levels.wait(self.current_level);
            if !more {
                self.last_reset_ms = now_ms;
                self.current_level += 1;
            } else if now_ms.saturating_sub(self.last_reset_ms) >= wait {
                self.last_reset_ms += wait;
                self.current_level += 1;
            } else {
                return level;
            }
        }
        self.levels.get(self.current_level)
    }

    /// `resourceOffer(execId, host, maxLocality)` up to the choice of a task: the level delay
    /// scheduling allows (never farther than `max_locality`; NO_PREF offers skip the timer),
    /// the task, and whether the offer was rejected by delay scheduling (`hasScheduleDelayReject`:
    /// nothing launched at ANY while tasks are pending).
    pub(super) fn resource_offer(
        &mut self,
        executor: ExecutorId,
        host: &str,
        max_locality: TaskLocality,
        cx: &LocalityContext,
    ) -> (Option<Dequeued>, bool) {
        if self.zombie {
            return (None, false);
        }
        let mut allowed = max_locality;
        if max_locality != TaskLocality::NoPref {
            allowed = self.allowed_locality_level(cx.now_ms).min(max_locality);
        }
        // dequeueTask: a regular task first, else a speculative copy.
        let task = match self.dequeue_task(executor, host, allowed, cx.topology) {
            Some((index, locality)) => Some(Dequeued {
                index,
                locality,
                speculative: false,
            }),
            None => self.dequeue_speculative_task(executor, host, allowed, cx.topology),
        };
        if cx.settings.legacy_reset_on_task_launch
            && max_locality != TaskLocality::NoPref
            && let Some(d) = task
        {
            self.reset_delay_schedule_timer(Some(d.locality), cx.now_ms);
        }
        // hasScheduleDelayReject: `pendingTasks.all` or `pendingSpeculatableTasks.all` left.
        let rejected = task.is_none()
            && max_locality == TaskLocality::Any
            && (!self.pending.all().is_empty() || self.has_speculative_pending());
        (task, rejected)
    }

    /// A copy of `index` launches: its attempt number, and the set's running counts.
    pub(super) fn start_copy(&mut self, index: u32) -> StartedCopy {
        let i = index as usize;
        let attempt = self.launches[i];
        self.launches[i] += 1;
        self.running += 1;
        self.copies_running[i] += 1;
        StartedCopy {
            attempt,
            stage_attempt: self.stage_attempt,
            partition: self.partitions[i],
            map_epoch: self.epoch,
        }
    }

    /// TaskSchedulerImpl's delay-scheduling reset after the set's share of a `resourceOffers`
    /// round (`legacyLocalityWaitReset` false, Spark's default): the timer is reset when no
    /// offer was rejected and something launched, if the round offered all free resources or
    /// nothing was rejected since the last reset (`noRejectsSinceLastReset`).
    pub(super) fn end_offer_round(
        &mut self,
        round: &OfferRound,
        all_free: bool,
        now_ms: u64,
        settings: &LocalitySettings,
    ) {
        if settings.legacy_reset_on_task_launch {
            // The timer was reset at each launch (TaskSetManager.resourceOffer).
        } else if round.no_rejects {
            if round.min_locality.is_some() && (all_free || self.no_rejects_since_last_reset) {
                self.reset_delay_schedule_timer(round.min_locality, now_ms);
                self.no_rejects_since_last_reset = true;
            }
        } else {
            self.no_rejects_since_last_reset = false;
        }
    }

    /// `resetDelayScheduleTimer(minLocality)`.
    pub(super) fn reset_delay_schedule_timer(&mut self, min: Option<TaskLocality>, now_ms: u64) {
        self.last_reset_ms = now_ms;
        if let Some(l) = min {
            self.current_level = self.levels.index_of(l);
        }
    }

    /// `recomputeLocality` (executorAdded / executorLost): the valid levels again, staying at
    /// the level it was at, or moving to the first new level if that is more local (SPARK-31837).
    pub(super) fn recompute_locality(&mut self, cx: &LocalityContext) {
        if self.zombie {
            return;
        }
        let previous_index = self.current_level;
        let previous_level = self.levels.get(self.current_level);
        let previous = self.levels;
        self.levels = self.pending.valid_levels(cx.topology, cx.settings);
        self.current_level = self.levels.index_of(previous_level);
        if self.current_level > previous_index
            && let Some(new) = self
                .levels
                .as_slice()
                .iter()
                .find(|l| !previous.as_slice().contains(l))
        {
            self.current_level = self.levels.index_of(*new);
        }
    }
}

impl Scheduler {
    pub(super) fn task_info(
        task: &RunningTask,
        tid: TaskId,
        failed: bool,
        killed: bool,
    ) -> TaskInfo {
        TaskInfo {
            task_id: tid.0,
            index: task.index,
            attempt: task.attempt,
            partition_id: task.partition,
            launch_time: task.launch_epoch,
            executor_id: task.executor_id.to_string(),
            host: task.host.to_string(),
            locality: task.locality.as_str(),
            finish_time: clock::now_epoch_ms(),
            failed,
            killed,
            speculative: task.speculative,
        }
    }

    pub(super) fn post_task_end(&self, tid: TaskId, task: &RunningTask, reason: TaskEndReason) {
        if !self.bus.enabled() {
            return;
        }
        let (failed, killed) = match &reason {
            TaskEndReason::Success | TaskEndReason::Resubmitted => (false, false),
            // TaskInfo.markFinished (Spark 4.0): FAILED sets `failed`, KILLED only `killed`, so
            // the History Server shows a killed attempt as KILLED, not FAILED.
            TaskEndReason::TaskKilled { .. } => (false, true),
            _ => (true, false),
        };
        let end = match &reason {
            TaskEndReason::Success => TaskEndKind::Success,
            TaskEndReason::TaskKilled { .. } => TaskEndKind::Killed,
            _ => TaskEndKind::Failed,
        };
        let typed = TaskEvent {
            stage_id: task.key.1,
            stage_attempt_id: task.key.2,
            index: task.index,
            speculative: task.speculative,
            executor: task.executor_id,
            kind: TaskEventKind::End(end),
        };
        // The recorded event (the clock, two stages, the TaskInfo's strings) only when the
        // bus records.
        self.bus.post_task(typed, || ListenerEvent::TaskEnd {
            stage_id: task.key.1,
            stage_attempt_id: task.key.2,
            shuffle_map: !self.stages[&task.key.1].is_result,
            reason,
            info: Self::task_info(task, tid, failed, killed),
            run_time_ms: clock::now_ms().saturating_sub(task.launch_ms),
        });
    }

    /// `TaskSetManager.removeRunningTask`: one attempt of the set ended.
    pub(super) fn task_ended(&mut self, key: TsKey, index: u32) {
        if let Some(tsm) = self.task_sets.get_mut(&key) {
            tsm.running = tsm.running.saturating_sub(1);
            let c = &mut tsm.copies_running[index as usize];
            *c = c.saturating_sub(1);
        }
    }

    /// `TaskSetManager.handleSuccessfulTask`, then `DAGScheduler.handleTaskCompletion`: a
    /// result for the job, or a MapStatus for the MapOutputTracker.
    pub(super) fn handle_success(
        &mut self,
        tid: TaskId,
        task: RunningTask,
        data: TaskResultData,
    ) -> Vec<SchedulerEvent> {
        if self.speculation.is_some()
            && let Some(reason) = self.speculation_late_success(&task)
        {
            let text = format!("TaskKilled ({reason})");
            let end = TaskEndReason::TaskKilled { reason };
            return self.handle_failure(tid, task, text, end, false);
        }
        let mut kills = Vec::new();
        if self.speculation.is_some() {
            self.speculation_task_succeeded(&task, &mut kills);
        }
        self.post_task_end(tid, &task, TaskEndReason::Success);
        // The stage and the set are each looked up once: this runs once per task.
        let stage = task.key.1;
        let (is_map, job_id, current_attempt) = {
            let s = &self.stages[&stage];
            (!s.is_result, s.job_id, s.attempt)
        };
        let keeps_output = is_map && !self.shuffle.service_enabled;
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return Vec::new();
        };
        let idx = task.index as usize;
        if tsm.successful[idx] {
            // Spark 4.0.0's text (TaskSetManager.handleSuccessfulTask, read from its jar).
            let name = task.name();
            info!(
                self.log,
                TSM,
                "Ignoring task-finished event for {name} (TID {tid}) because it has already completed successfully"
            );
            return kills;
        }
        self.task_outputs.push(TaskOutput::Succeeded {
            stage,
            stage_attempt: tsm.stage_attempt,
            index: task.index,
            already: tsm.successful[idx],
        });
        tsm.successful[idx] = true;
        tsm.num_successful += 1;
        let (successful, total) = (tsm.num_successful, tsm.successful.len());
        let (done, stage_attempt) = (successful as usize == total, tsm.stage_attempt);
        if done {
            tsm.zombie = true;
        }
        if keeps_output {
            tsm.output_on[idx] = Some(task.executor_id);
            self.outputs_by_executor
                .entry(task.executor_id)
                .or_default()
                .push(MapOutput {
                    key: task.key,
                    index: task.index,
                    attempt: task.attempt,
                    task_id: tid,
                    launch_epoch: task.launch_epoch,
                    locality: task.locality,
                });
        }
        info!(
            self.log,
            TSM,
            "Finished task {}.{} in stage {stage}.{stage_attempt} (TID {tid}) in {} ms on {} (executor {}) ({successful}/{total})",
            task.index,
            task.attempt,
            clock::now_ms() - task.launch_ms,
            task.host,
            task.executor_id,
        );
        if done {
            self.maybe_finish_task_set(task.key);
        }
        if task.key.2 < current_attempt {
            self.notify_partition_completion(stage, task.partition);
        }
        let events = if is_map {
            let status = match data {
                TaskResultData::MapStatus(m) => Some(*m),
                _ => None,
            };
            self.map_task_succeeded(&task, status)
        } else {
            self.result_task_succeeded(job_id, stage, task.partition, data)
        };
        if kills.is_empty() {
            return events;
        }
        kills.extend(events);
        kills
    }

    /// `TaskSchedulerImpl.notifyPartitionCompletion` -> `TaskSetManager.markPartitionCompleted`:
    /// a partition an earlier attempt finished is done in the latest attempt too.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    fn notify_partition_completion(&mut self, stage: u32, partition: u32) {
        let s = &self.stages[&stage];
        let key = (s.job_id, stage, s.attempt);
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        let Some(i) = tsm.index_of(partition) else {
            return;
        };
        if tsm.successful[i] {
            return;
        }
        tsm.successful[i] = true;
        tsm.num_successful += 1;
        if tsm.num_successful as usize == tsm.successful.len() {
            tsm.zombie = true;
            tsm.pending.clear();
            self.runnable.remove(&key);
            self.maybe_finish_task_set(key);
        }
    }

    /// `TaskSetManager.handleFailedTask` for `FetchFailed`: WARN `Lost task ...: FetchFailed(...)`,
    /// the partition counts as done and the set becomes a zombie (its stage attempt has
    /// failed), the failure does not count toward `spark.task.maxFailures`; then the
    /// DAGScheduler's handling.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn fetch_failed(
        &mut self,
        tid: TaskId,
        task: RunningTask,
        failure: FetchFailure,
    ) -> Vec<SchedulerEvent> {
        self.post_task_end(
            tid,
            &task,
            TaskEndReason::FetchFailed(Box::new(failure.clone())),
        );
        self.failed_attempts += 1;
        if let Some(tsm) = self.task_sets.get_mut(&task.key) {
            let name = task.name();
            warn!(
                self.log,
                TSM,
                "Lost {name} (TID {tid}) ({} executor {}): {}",
                task.host,
                task.executor_id,
                failure.to_error_string()
            );
            let idx = task.index as usize;
            if !tsm.successful[idx] {
                tsm.successful[idx] = true;
                tsm.num_successful += 1;
            }
            tsm.zombie = true;
            tsm.pending.clear();
            self.runnable.remove(&task.key);
            self.maybe_finish_task_set(task.key);
        }
        self.handle_fetch_failed(&task, &failure)
    }

    /// A failed attempt: retry, or abort the job after `spark.task.maxFailures`.
    /// `TaskSetManager.handleFailedTask` (Spark 4.0): the `Lost task` line is WARN, except an
    /// executor loss not caused by the app (INFO, not counted) and a repeat of an exception
    /// within `spark.logging.exceptionPrintInterval` (INFO, `[duplicate N]`).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn handle_failure(
        &mut self,
        tid: TaskId,
        task: RunningTask,
        reason: String,
        end: TaskEndReason,
        counts: bool,
    ) -> Vec<SchedulerEvent> {
        self.post_task_end(tid, &task, end.clone());
        // The loser of a speculative race is no failed attempt (TaskKilled does not count).
        if !(self.speculation.is_some() && self.killed_by_other_attempt(&task)) {
            self.failed_attempts += 1;
        }
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return Vec::new();
        };
        let idx = task.index as usize;
        let stage_attempt = tsm.stage_attempt;
        let name = task.name();
        let lost = format!(
            "Lost {name} (TID {tid}) ({} executor {}): {reason}",
            task.host, task.executor_id
        );
        match &end {
            TaskEndReason::ExecutorLostFailure {
                exit_caused_by_app: false,
                ..
            } => info!(
                self.log,
                TSM,
                "{name} (TID {tid}) failed because while it was being computed, its executor exited for a reason unrelated to the task. Not counting this failure towards the maximum number of failures for the task."
            ),
            TaskEndReason::ExceptionFailure { class, description } => {
                let now = clock::now_ms();
                let dup = match tsm.recent_exceptions.get_mut(description) {
                    Some((count, printed)) if now - *printed <= EXCEPTION_PRINT_INTERVAL_MS => {
                        *count += 1;
                        Some(*count)
                    }
                    Some(entry) => {
                        *entry = (0, now);
                        None
                    }
                    None => {
                        tsm.recent_exceptions.insert(description.clone(), (0, now));
                        None
                    }
                };
                match dup {
                    Some(n) => info!(
                        self.log,
                        TSM,
                        "Lost {name} (TID {tid}) on {}, executor {}: {class} ({description}) [duplicate {n}]",
                        task.host,
                        task.executor_id
                    ),
                    None => warn!(self.log, TSM, "{lost}"),
                }
            }
            _ => warn!(self.log, TSM, "{lost}"),
        }
        if tsm.successful[idx] || tsm.zombie {
            if tsm.successful[idx] {
                // handleFailedTask (Spark 4.0.0's text, read from its jar): a copy already
                // succeeded (or a fetch failure marked the partition done).
                info!(
                    self.log,
                    TSM,
                    "{name} (TID {tid}) failed, but the task will not be re-executed (either because the task failed with a shuffle data fetch failure, so the previous stage needs to be re-run, or because a different copy of the task has already succeeded)."
                );
            }
            self.maybe_finish_task_set(task.key);
            return Vec::new();
        }
        if counts {
            tsm.failures[idx] += 1;
        }
        if tsm.failures[idx] >= self.max_failures {
            let n = tsm.failures[idx];
            error!(
                self.log,
                TSM,
                "Task {} in stage {}.{stage_attempt} failed {n} times; aborting job",
                task.index,
                task.key.1
            );
            let reason = format!(
                "Task {} in stage {}.{stage_attempt} failed {n} times, most recent failure: {lost}\nDriver stacktrace:",
                task.index, task.key.1
            );
            if let Some(t) = self.task_sets.get_mut(&task.key) {
                t.zombie = true;
                t.pending.clear();
            }
            self.runnable.remove(&task.key);
            self.maybe_finish_task_set(task.key);
            return self.abort_stage(task.key.1, &reason);
        }
        // TaskSetManager.addPendingTask: the pending lists are stacks (dequeueTaskFromList
        // takes from the end), so a failed index runs next.
        tsm.add_pending_task(task.index, &self.topology);
        self.runnable.insert(task.key);
        vec![SchedulerEvent::Revive]
    }

    /// Whether a map output of a lost executor lives on another host now (migrated by
    /// decommissioning): `getMapOutputLocation(shuffleId, mapId)`, map id = the task id.
    fn output_migrated_off(&self, out: &MapOutput, host: Option<&str>) -> bool {
        let Some(shuffle_id) = self.stages.get(&out.key.1).and_then(|s| s.shuffle_id) else {
            return false;
        };
        self.tracker
            .map_output_location(shuffle_id, out.task_id.0)
            .is_some_and(|l| Some(l.host.as_str()) != host)
    }

    /// `TaskSetManager.executorLost`, first part: without the external shuffle service, the
    /// finished map tasks of a running (non-zombie) set whose output the executor served are
    /// pending again, each reported as `Resubmitted` to the DAGScheduler.
    pub(super) fn resubmit_lost_outputs(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
        events: &mut Vec<SchedulerEvent>,
    ) {
        let decommission = matches!(reason, ExecutorLossReason::Decommission { .. });
        if self.shuffle.service_enabled && !decommission {
            return;
        }
        let host = self.block_managers.get(eid).cloned();
        for out in self.outputs_by_executor.remove(&eid).unwrap_or_default() {
            // TaskSetManager.executorLost: a decommissioned executor's output that migrated
            // to another host stays available (`locationOpt.exists(_.host != host)`).
            if decommission && self.output_migrated_off(&out, host.as_deref()) {
                continue;
            }
            let Some(tsm) = self.task_sets.get_mut(&out.key) else {
                continue;
            };
            let idx = out.index as usize;
            if tsm.zombie || !tsm.successful[idx] || tsm.output_on[idx] != Some(eid) {
                continue;
            }
            tsm.successful[idx] = false;
            tsm.num_successful -= 1;
            tsm.output_on[idx] = None;
            tsm.add_pending_task(out.index, &self.topology);
            let partition = tsm.partitions[idx];
            self.task_outputs.push(TaskOutput::Lost {
                stage: out.key.1,
                stage_attempt: tsm.stage_attempt,
                index: out.index,
            });
            self.runnable.insert(out.key);
            let task = RunningTask {
                task_id: out.task_id,
                key: out.key,
                index: out.index,
                partition,
                attempt: out.attempt,
                executor_id: eid,
                host: host.clone().unwrap_or_else(|| std::rc::Rc::from("")),
                launch_ms: 0,
                launch_epoch: out.launch_epoch,
                map_epoch: 0,
                launching: false,
                speculative: false,
                locality: out.locality,
            };
            self.post_task_end(out.task_id, &task, TaskEndReason::Resubmitted);
            self.handle_resubmitted(out.key.1, partition);
            events.push(SchedulerEvent::Revive);
        }
    }
}
