//! `TaskSchedulerImpl` (Spark: `scheduler/TaskSchedulerImpl.scala`): resource offers, status
//! updates, `taskSetFinished`, `killAllTaskAttempts` and `executorLost`.

use super::locality::TaskLocality;
use super::task_set_manager::{Dequeued, LocalityContext, StartedCopy};
use super::*;
use std::ops::Bound::{Excluded, Unbounded};

impl Scheduler {
    /// `resourceOffers` for one executor (`makeOffers(executorId)`, `isAllFreeResources =
    /// false`).
    pub fn resource_offer(&mut self, offer: &mut WorkerOffer) -> LaunchedTasks {
        let mut launched = Vec::new();
        self.resource_offers(std::slice::from_mut(offer), false, &mut launched);
        launched
    }

    /// `TaskSchedulerImpl.resourceOffers(offers, isAllFreeResources)`: executors not seen
    /// before become alive (every task set recomputes its locality levels), the offers are
    /// shuffled (`shuffleOffers`; seeded here), then each task set in FIFO order, level by level
    /// of its `myLocalityLevels`, takes at most one task per offer per pass over the offers,
    /// passing again while a pass launched anything. Delay scheduling's timer is reset when no
    /// offer was rejected for locality. The launched tasks come out grouped by offer, in the
    /// shuffled order (`launchTasks(tasks.flatten)`); `offers[i].cores` is what is left.
    pub fn resource_offers(
        &mut self,
        offers: &mut [WorkerOffer],
        all_free: bool,
        launched: &mut LaunchedTasks,
    ) {
        if let [offer] = offers {
            self.resource_offers_one(offer, all_free, launched);
            return;
        }
        if self.any_executor_added(offers) {
            self.recompute_locality_all();
        }
        if offers.len() > 1 {
            self.shuffle_offers(offers);
        }
        let now_ms = clock::now_ms();
        let first = launched.len();
        let mut order = std::mem::take(&mut self.launch_order);
        // The runnable sets in FIFO order; offering to one only ever removes it from the set.
        let mut next = self.runnable.first().copied();
        while let Some(key) = next {
            // With no offer able to take a task, the remaining passes would launch and reject
            // nothing, and change nothing.
            if offers.iter().all(|o| o.cores < self.task_cpus) {
                break;
            }
            self.offer_task_set(key, offers, all_free, now_ms, launched, &mut order);
            next = self.runnable_after(key);
        }
        if offers.len() > 1 {
            group_by_offer(launched, first, &order);
        }
        order.clear();
        self.launch_order = order;
    }

    /// `resourceOffers` with one offer (`makeOffers(executorId)`, the per-task path): the same
    /// rounds as the general path, which for a single offer come down to taking tasks from each
    /// task set, level by level, while the offer has cores and the set hands one out (a pass
    /// over one offer launches at most one task, and passes go on while one launches). Nothing
    /// to shuffle or regroup, so none of that code runs per task.
    fn resource_offers_one(
        &mut self,
        offer: &mut WorkerOffer,
        all_free: bool,
        launched: &mut LaunchedTasks,
    ) {
        if self.topology.executor_added(offer.executor_id, &offer.host) {
            self.recompute_locality_all();
        }
        let now_ms = clock::now_ms();
        let mut next = self.runnable.first().copied();
        while let Some(key) = next {
            if offer.cores < self.task_cpus {
                break;
            }
            self.offer_one_task_set(key, offer, all_free, now_ms, launched);
            next = self.runnable_after(key);
        }
    }

    /// `offer_task_set` for a single offer. Without speculation (whose dequeue reads the
    /// attempts launched so far, which `launch` records), the set's whole share is taken under
    /// one borrow of it, and the tasks are launched after: the set's counts change at each
    /// take, so every later take sees what Spark's would.
    fn offer_one_task_set(
        &mut self,
        key: TsKey,
        offer: &mut WorkerOffer,
        all_free: bool,
        now_ms: u64,
        launched: &mut LaunchedTasks,
    ) {
        if self.speculation.is_some() {
            return self.offer_one_task_set_launching_each(key, offer, all_free, now_ms, launched);
        }
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            self.runnable.remove(&key);
            return;
        };
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms,
        };
        let mut taken = std::mem::take(&mut self.taken);
        let mut round = OfferRound::default();
        let mut cores = offer.cores;
        let levels = tsm.levels;
        for &level in levels.as_slice() {
            while cores >= self.task_cpus {
                let (task, rejected) =
                    tsm.resource_offer(offer.executor_id, &offer.host, level, &cx);
                round.no_rejects &= !rejected;
                let Some(d) = task else { break };
                cores -= self.task_cpus;
                round.launched(d.locality);
                taken.push((d, tsm.start_copy(d.index)));
            }
            if cores < self.task_cpus {
                break;
            }
        }
        tsm.end_offer_round(&round, all_free, now_ms, &self.locality);
        if !tsm.has_pending() {
            self.runnable.remove(&key);
        }
        offer.cores = cores;
        for (d, copy) in taken.drain(..) {
            launched.push(self.launch_copy(key, d, copy, offer, now_ms));
        }
        self.taken = taken;
    }

    /// `offer_one_task_set` with speculation on: each task is launched as it is taken.
    #[inline(never)]
    fn offer_one_task_set_launching_each(
        &mut self,
        key: TsKey,
        offer: &mut WorkerOffer,
        all_free: bool,
        now_ms: u64,
        launched: &mut LaunchedTasks,
    ) {
        let Some(tsm) = self.task_sets.get(&key) else {
            self.runnable.remove(&key);
            return;
        };
        let levels = tsm.levels;
        let mut round = OfferRound::default();
        for &level in levels.as_slice() {
            while offer.cores >= self.task_cpus {
                let Some((task, rejected)) = self.offer_to_set(key, offer, level, now_ms) else {
                    return;
                };
                round.no_rejects &= !rejected;
                let Some(d) = task else { break };
                offer.cores -= self.task_cpus;
                round.launched(d.locality);
                launched.push(self.launch(key, d, offer, now_ms));
            }
            if offer.cores < self.task_cpus {
                break;
            }
        }
        self.end_offer_round(key, round, all_free, now_ms);
    }

    /// Whether an offer comes from an executor not seen before (it is alive from now on).
    fn any_executor_added(&mut self, offers: &[WorkerOffer]) -> bool {
        let mut added = false;
        for o in offers {
            added |= self.topology.executor_added(o.executor_id, &o.host);
        }
        added
    }

    /// `shuffleOffers` (seeded). Out of line: only a round over all executors has more than one
    /// offer, and keeping the per-task path's code small keeps it in the instruction cache.
    #[inline(never)]
    fn shuffle_offers(&mut self, offers: &mut [WorkerOffer]) {
        use rand::seq::SliceRandom;
        offers.shuffle(&mut self.rng);
    }

    /// The next runnable set after `key`, in FIFO order. The common case, `key` the last one,
    /// needs no range search.
    fn runnable_after(&self, key: TsKey) -> Option<TsKey> {
        match self.runnable.last() {
            Some(&last) if last > key => self
                .runnable
                .range((Excluded(key), Unbounded))
                .next()
                .copied(),
            _ => None,
        }
    }

    /// `resourceOffers`' first part for one executor, also when no task is pending (Spark's
    /// `makeOffers(executorId)` calls `resourceOffers` whatever is pending): a new executor
    /// is alive on its host and rack, and the task sets' levels follow.
    pub fn executor_offered(&mut self, id: ExecutorId, host: &Rc<str>) {
        if self.topology.executor_added(id, host) {
            self.recompute_locality_all();
        }
    }

    /// One task set's share of `resourceOffers`: its locality levels in order, a
    /// `resourceOfferSingleTaskSet` pass over the offers while one launches, then the
    /// delay-scheduling reset (`legacyLocalityWaitReset` false, Spark's default).
    fn offer_task_set(
        &mut self,
        key: TsKey,
        offers: &mut [WorkerOffer],
        all_free: bool,
        now_ms: u64,
        launched: &mut LaunchedTasks,
        order: &mut Vec<u32>,
    ) {
        let Some(tsm) = self.task_sets.get(&key) else {
            self.runnable.remove(&key);
            return;
        };
        let levels = tsm.levels;
        let mut round = OfferRound::default();
        for level in levels.as_slice() {
            if offers.iter().all(|o| o.cores < self.task_cpus) {
                break;
            }
            loop {
                let (no_reject, min) = self
                    .resource_offer_single_task_set(key, *level, offers, now_ms, launched, order);
                round.no_rejects &= no_reject;
                let Some(min) = min else { break };
                round.launched(min);
            }
        }
        self.end_offer_round(key, round, all_free, now_ms);
    }

    /// The end of a task set's share of `resourceOffers`: the delay-scheduling reset, and the
    /// set leaves the runnable ones when nothing is pending.
    fn end_offer_round(&mut self, key: TsKey, round: OfferRound, all_free: bool, now_ms: u64) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        tsm.end_offer_round(&round, all_free, now_ms, &self.locality);
        if !tsm.has_pending() {
            self.runnable.remove(&key);
        }
    }

    /// `taskSet.resourceOffer(execId, host, maxLocality)` on a set still registered: the task
    /// it gives and whether delay scheduling rejected the offer; `None` once the set is gone.
    fn offer_to_set(
        &mut self,
        key: TsKey,
        offer: &WorkerOffer,
        max_locality: TaskLocality,
        now_ms: u64,
    ) -> Option<(Option<Dequeued>, bool)> {
        let tsm = self.task_sets.get_mut(&key)?;
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms,
        };
        Some(tsm.resource_offer(offer.executor_id, &offer.host, max_locality, &cx))
    }

    /// `resourceOfferSingleTaskSet`: one pass over the offers with enough free cores, at most one
    /// task each; whether no offer was rejected by delay scheduling, and the most local level
    /// launched (`None`: nothing launched).
    fn resource_offer_single_task_set(
        &mut self,
        key: TsKey,
        max_locality: TaskLocality,
        offers: &mut [WorkerOffer],
        now_ms: u64,
        launched: &mut LaunchedTasks,
        order: &mut Vec<u32>,
    ) -> (bool, Option<TaskLocality>) {
        let mut no_rejects = true;
        let mut min: Option<TaskLocality> = None;
        for (i, offer) in offers.iter_mut().enumerate() {
            if offer.cores < self.task_cpus {
                continue;
            }
            let Some((task, rejected)) = self.offer_to_set(key, offer, max_locality, now_ms) else {
                break;
            };
            no_rejects &= !rejected;
            if let Some(d) = task {
                offer.cores -= self.task_cpus;
                launched.push(self.launch(key, d, offer, now_ms));
                order.push(i as u32);
                min = Some(min.map_or(d.locality, |m| m.min(d.locality)));
            }
        }
        (no_rejects, min)
    }

    /// `executorAdded` / `executorLost` on every task set still in the pool: their valid
    /// locality levels change with the live hosts. Out of line: rare, and off the per-task path.
    #[inline(never)]
    pub(super) fn recompute_locality_all(&mut self) {
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms: clock::now_ms(),
        };
        for tsm in self.task_sets.values_mut() {
            if !tsm.finished {
                tsm.recompute_locality(&cx);
            }
        }
    }

    pub(super) fn launch(
        &mut self,
        key: TsKey,
        dequeued: Dequeued,
        offer: &WorkerOffer,
        launch_ms: u64,
    ) -> Box<TaskDescription> {
        let index = dequeued.index;
        let tsm = self.task_sets.get_mut(&key).expect("runnable task set");
        let copy = tsm.start_copy(index);
        self.launch_copy(key, dequeued, copy, offer, launch_ms)
    }

    /// `launch` once the task set has counted the copy: the task id, the `Starting task` line,
    /// the running task and its TaskStart, and the description the executor gets.
    fn launch_copy(
        &mut self,
        key: TsKey,
        dequeued: Dequeued,
        copy: StartedCopy,
        offer: &WorkerOffer,
        launch_ms: u64,
    ) -> Box<TaskDescription> {
        let Dequeued {
            index,
            locality,
            speculative,
        } = dequeued;
        let StartedCopy {
            attempt,
            stage_attempt,
            partition,
            map_epoch,
        } = copy;
        let task_id = TaskId(self.next_task);
        self.next_task += 1;
        self.tasks_launched += 1;
        let name = TaskName {
            index,
            attempt,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
        };
        info!(
            self.log,
            TSM,
            "Starting {name} (TID {task_id}) ({},executor {}, partition {partition}, {}, {TASK_BYTES} bytes) ",
            offer.host,
            offer.executor_id,
            locality.as_str()
        );
        let stage = &self.stages[&key.1];
        let task_binary = stage.task_binary;
        let mut work = stage.tasks[partition as usize].clone();
        let input_split = stage.input_split(partition);
        let reads_or_writes_shuffle = !stage.parents.is_empty() || stage.shuffle_id.is_some();
        if let TaskWork::CachedRdd(read) = &mut work {
            read.location = self.rdd_block_location(read.rdd_id, partition);
        }
        let shuffle = if reads_or_writes_shuffle {
            self.shuffle_io(key.1)
        } else {
            ShuffleIo::default()
        };
        self.running.insert(
            task_id,
            RunningTask {
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
                speculative,
                locality,
            },
        );
        if self.speculation.is_some() {
            self.speculation_on_launch(key, index, task_id);
        }
        self.by_executor
            .get_or_insert_default(offer.executor_id)
            .insert(task_id);
        if self.bus.enabled() {
            let typed = TaskEvent {
                stage_id: key.1,
                stage_attempt_id: stage_attempt,
                index,
                speculative,
                executor: offer.executor_id,
                kind: TaskEventKind::Start,
            };
            // The running task is looked up only when the recorded event is built.
            self.bus.post_task(typed, || {
                let task = self.running.get(task_id).expect("just launched");
                let mut info = Self::task_info(task, task_id, false, false);
                info.finish_time = 0;
                ListenerEvent::TaskStart {
                    stage_id: key.1,
                    stage_attempt_id: stage_attempt,
                    info,
                }
            });
        }
        // Boxed here, as the LaunchTask message carries it: the description is not copied
        // again on its way to the executor.
        Box::new(TaskDescription {
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
            task_binary,
            input_split,
        })
    }

    /// A task's shuffle side: the output a ShuffleMapTask writes, and the map outputs a task
    /// of a stage reading a shuffle fetches (its first parent's; the tracker's current plan).
    /// Out of line: a stage without a shuffle does not need it.
    #[inline(never)]
    fn shuffle_io(&mut self, stage: u32) -> ShuffleIo {
        let s = &self.stages[&stage];
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
        let Some(task) = self.running.remove(tid) else {
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
        self.task_ended(task.key, task.index);
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
        // removeExecutor: the host (and its rack) may go with it; every set's levels follow.
        if self.topology.executor_removed(eid) {
            self.recompute_locality_all();
        }
        self.decommissioned_hosts.remove(&eid);
        self.resubmit_lost_outputs(eid, reason, &mut events);
        let tids: Vec<TaskId> = self
            .by_executor
            .remove(eid)
            .map(SmallSet::into_sorted)
            .unwrap_or_default();
        for tid in tids {
            let Some(task) = self.running.remove(tid) else {
                continue;
            };
            self.task_ended(task.key, task.index);
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

/// A task set's share of one `resourceOffers` round so far.
pub(super) struct OfferRound {
    /// No offer was rejected by delay scheduling.
    pub(super) no_rejects: bool,
    /// The most local level launched at (`globalMinLocality`); `None` while nothing launched.
    pub(super) min_locality: Option<TaskLocality>,
}

impl Default for OfferRound {
    fn default() -> Self {
        OfferRound {
            no_rejects: true,
            min_locality: None,
        }
    }
}

impl OfferRound {
    fn launched(&mut self, locality: TaskLocality) {
        self.min_locality = Some(self.min_locality.map_or(locality, |m| m.min(locality)));
    }
}

/// `launchTasks(tasks.flatten)`: the tasks launched from `first` on, grouped by the offer they
/// went to (stable, in the shuffled offers' order); `order[k]` is the offer of task `first + k`.
/// Out of line: only a round over several offers needs it.
#[inline(never)]
fn group_by_offer(launched: &mut LaunchedTasks, first: usize, order: &[u32]) {
    let mut by_offer: Vec<(u32, Box<TaskDescription>)> =
        order.iter().copied().zip(launched.drain(first..)).collect();
    by_offer.sort_by_key(|(i, _)| *i);
    launched.extend(by_offer.into_iter().map(|(_, t)| t));
}
