//! `TaskSetManager` (Spark: `scheduler/TaskSetManager.scala`): one stage attempt's pending,
//! running and successful tasks and their counts, its pending lists by locality and delay
//! scheduling (`resourceOffer`, `dequeueTask`, `getAllowedLocalityLevel`, `recomputeLocality`),
//! the speculative half of `dequeueTask` and `checkSpeculatableTasks`. Owned by
//! TaskSchedulerImpl, which calls in; it calls nothing back.
//!
//! Its `TaskSetExcludelist` (`taskSetExcludelistHelperOpt`, when exclusion is on): `resourceOffer`
//! refuses an executor or node excluded for the stage, `dequeueTaskFromList` skips an index
//! excluded on the offer's executor or host (`isTaskExcludededOnExecOrNode`) and leaves it in
//! the list, and `getCompletelyExcludedTaskIfAny` / `abortSinceCompletelyExcludedOnFailure` find
//! and abort a task no executor may run. `handleFailedTask`'s report to the list
//! (`updateExcludedForFailedTask`) is in `TaskSchedulerImpl::handle_failure`.

use super::events::{RunningTask, StageCode, TsKey};
use super::locality::{
    LocalityLevels, PendingTasks, PreferredLocations, TaskLocality, Topology, dequeue_from_list,
    more_tasks_to_run_in,
};
use super::speculation::{SPECULATIVE_LISTS, TaskSetSpeculation};
use super::task_set_exclude_list::{ApplicationExclusions, HostExecutors, TaskSetExcludelist};
use crate::world::config::{LocalitySettings, SpeculationSettings};
use sparkyard_messages::ids::ExecutorId;
use std::collections::BTreeMap;
use std::rc::Rc;

/// `spark.logging.exceptionPrintInterval` (TaskSetManager's `EXCEPTION_PRINT_INTERVAL`, default
/// 10 s): a repeat of the same exception within it is logged as a one-line duplicate.
const EXCEPTION_PRINT_INTERVAL_MS: u64 = 10_000;

pub struct TaskSetManager {
    pub(super) stage_attempt: u32,
    /// What the set's tasks run (`TaskSet.tasks`).
    pub(super) code: StageCode,
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
    /// Its place in the pool's queue (`schedulableQueue`: submission order), which
    /// `Pool.executorLost` walks.
    pub(super) pool_seq: u64,
    pub(super) zombie: bool,
    /// `runningTasks`: attempts launched and not ended (a zombie set stays registered until
    /// this reaches 0: `maybeFinishTaskSet`).
    pub(super) running: u32,
    /// `taskSetFinished` ran ("Removed TaskSet"): the set is no longer the stage's.
    pub(super) finished: bool,
    /// `totalResultSize` and `calculatedTasks`: the serialized results fetched so far
    /// (canFetchMoreResults counts every task's, a map task's too).
    pub(super) total_result_size: u64,
    pub(super) calculated_tasks: u32,
    /// `recentExceptions`: an exception's description -> (duplicates, when last printed).
    pub(super) recent_exceptions: BTreeMap<String, (u32, u64)>,
    /// Speculation's state of the set (`None` when speculation is off).
    pub(super) spec: Option<Box<TaskSetSpeculation>>,
    /// `taskSetExcludelistHelperOpt` (`None` when exclusion is off).
    pub(super) exclude_list: Option<Box<TaskSetExcludelist>>,
    /// `lastResourceOfferFailLogTime` (a barrier set's; the set's creation at first), ms.
    pub(super) barrier_fail_logged_ms: u64,
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
        key: TsKey,
        code: StageCode,
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
            stage_attempt: key.2,
            code,
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
            pool_seq: 0,
            zombie: false,
            running: 0,
            finished: false,
            total_result_size: 0,
            calculated_tasks: 0,
            recent_exceptions: BTreeMap::new(),
            spec: None,
            exclude_list: None,
            barrier_fail_logged_ms: cx.now_ms,
        }
    }

    /// The task index of `partition`, if this set runs it.
    pub(super) fn index_of(&self, partition: u32) -> Option<usize> {
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
    pub(super) fn has_speculative_pending(&self) -> bool {
        self.spec.as_ref().is_some_and(|s| !s.pending.is_empty())
    }

    /// Where the recording ran the task a round would give first to an offer at NO_PREF (the
    /// top of `noPrefs` that still needs to run), as its executor's place in the log's
    /// registration order: `None` outside a replay or with no such task.
    pub(super) fn next_recorded_draw(&self) -> Option<u32> {
        let ok = |i: u32| self.copies_running[i as usize] == 0 && !self.successful[i as usize];
        let &i = self.pending.no_prefs.iter().rev().find(|&&i| ok(i))?;
        let partition = self.partitions[i as usize];
        self.code.works[partition as usize].recorded_executor()
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
        // A dry-run list excludes nothing: only a real one is asked.
        let list = self.exclude_list.as_deref().filter(|l| !l.is_dry_run());
        let take = |l: &mut Vec<u32>| match list {
            None => dequeue_from_list(l, ok),
            Some(x) => dequeue_from_list_excluding(l, ok, |i| {
                x.is_node_excluded_for_task(host, i) || x.is_executor_excluded_for_task(executor, i)
            }),
        };
        let pending = &mut self.pending;
        if !pending.for_executor.is_empty()
            && let Some(l) = pending.for_executor.get_mut(&executor)
            && let Some(i) = take(l)
        {
            return Some((i, TaskLocality::ProcessLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::NodeLocal)
            && let Some(l) = pending.for_host.get_mut(host)
            && let Some(i) = take(l)
        {
            return Some((i, TaskLocality::NodeLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::NoPref)
            && let Some(i) = take(&mut pending.no_prefs)
        {
            return Some((i, TaskLocality::ProcessLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::RackLocal)
            && !pending.for_rack.is_empty()
            && let Some(rack) = topology.rack(host)
            && let Some(l) = pending.for_rack.get_mut(rack)
            && let Some(i) = take(l)
        {
            return Some((i, TaskLocality::RackLocal));
        }
        if TaskLocality::is_allowed(max_locality, TaskLocality::Any)
            && let Some(i) = take(pending.all_mut())
        {
            return Some((i, TaskLocality::Any));
        }
        None
    }

    /// `resourceOffer`'s `offerExcluded`: the offer's node or executor is excluded for the
    /// whole task set (stage attempt).
    fn offer_excluded(&self, executor: ExecutorId, host: &str) -> bool {
        self.exclude_list.as_deref().is_some_and(|l| {
            l.is_node_excluded_for_task_set(host) || l.is_executor_excluded_for_task_set(executor)
        })
    }

    /// `getCompletelyExcludedTaskIfAny(hostToExecutors)`: the last pending task that still needs
    /// a copy (`pendingTasks.all.lastIndexWhere`), if every host and executor is excluded for it
    /// (`app`: the HealthTracker). `None` without an exclude list or executors.
    pub(super) fn completely_excluded_task(
        &self,
        hosts: &[HostExecutors<'_>],
        app: Option<&dyn ApplicationExclusions>,
    ) -> Option<u32> {
        let list = self.exclude_list.as_deref()?;
        if hosts.is_empty() {
            return None;
        }
        let index = *self
            .pending
            .all()
            .iter()
            .rev()
            .find(|i| self.schedulable(**i))?;
        list.is_excluded_everywhere(index, hosts, app)
            .then_some(index)
    }

    /// `abortSinceCompletelyExcludedOnFailure(index)`'s message (`None` without a list).
    pub(super) fn completely_excluded_abort_message(&self, index: u32) -> Option<String> {
        let list = self.exclude_list.as_deref()?;
        let partition = self.partitions[index as usize];
        Some(list.completely_excluded_abort_message(index, partition))
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
        if self.zombie || self.offer_excluded(executor, host) {
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

    /// A barrier task taken and held for the round (`barrierPendingLaunchTasks`): Spark 4.0.0's
    /// `dequeueTaskFromList` skips a held index as it skips one with a running copy, so it
    /// counts as one until the round releases it (`release_barrier_task`).
    pub(super) fn hold_barrier_task(&mut self, index: u32) {
        self.copies_running[index as usize] += 1;
    }

    /// The end of a round's hold on a barrier task (`barrierPendingLaunchTasks.clear()`).
    pub(super) fn release_barrier_task(&mut self, index: u32) {
        self.copies_running[index as usize] -= 1;
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

    /// `removeRunningTask`: one attempt of the set ended (`runningTasksSet`). Its index keeps
    /// its copy until `copy_ended`: Spark 4.0.0's removeRunningTask leaves `copiesRunning`
    /// alone, so an index whose end the TaskResultGetter has not handled yet is not offered
    /// again, and a success never gives its copy back.
    pub(super) fn remove_running_task(&mut self) {
        self.running = self.running.saturating_sub(1);
    }

    /// `handleFailedTask`'s `copiesRunning(index) -= 1`: the index may run again.
    pub(super) fn copy_ended(&mut self, index: u32) {
        let c = &mut self.copies_running[index as usize];
        *c = c.saturating_sub(1);
    }

    /// `successful(index) = true`, counted once; whether every task has now succeeded.
    pub(super) fn mark_successful(&mut self, index: usize) -> bool {
        if !self.successful[index] {
            self.successful[index] = true;
            self.num_successful += 1;
        }
        self.num_successful as usize == self.successful.len()
    }

    /// `isZombie = true` with nothing left to offer (`suspend`, an abort, a fetch failure).
    pub(super) fn suspend(&mut self) {
        self.zombie = true;
        self.pending.clear();
    }

    /// `recentExceptions` (handleFailedTask): the duplicate count of an exception seen again
    /// within `spark.logging.exceptionPrintInterval`, or `None` when it is printed in full.
    pub(super) fn duplicate_exception(&mut self, description: &str, now_ms: u64) -> Option<u32> {
        match self.recent_exceptions.get_mut(description) {
            Some((count, printed)) if now_ms - *printed <= EXCEPTION_PRINT_INTERVAL_MS => {
                *count += 1;
                Some(*count)
            }
            Some(entry) => {
                *entry = (0, now_ms);
                None
            }
            None => {
                self.recent_exceptions
                    .insert(description.to_string(), (0, now_ms));
                None
            }
        }
    }

    /// `dequeueTaskHelper(speculative = true)`, after the regular tasks gave nothing: the
    /// level lists in Spark's order (the executor's, the host's, no preference reported
    /// PROCESS_LOCAL, the rack's, all), each as far as `max_locality` allows (the executor's
    /// always). Out of line: off the per-task path unless speculation is on.
    #[inline(never)]
    pub(super) fn dequeue_speculative_task(
        &mut self,
        executor: ExecutorId,
        host: &str,
        max_locality: TaskLocality,
        topology: &Topology,
    ) -> Option<Dequeued> {
        let spec = self.spec.as_mut()?;
        if spec.pending.is_empty() {
            return None;
        }
        let prefs = &self.prefs;
        let pref = |i: u32| prefs.hosts_of(i);
        let rack = topology.rack(host);
        let successful = &self.successful;
        let copies = &self.copies_running;
        let list = self.exclude_list.as_deref().filter(|l| !l.is_dry_run());
        // dequeueTaskFromList(speculative = true) skips an index excluded on the offer too.
        let excluded = |i: u32| {
            list.is_some_and(|x| {
                x.is_node_excluded_for_task(host, i) || x.is_executor_excluded_for_task(executor, i)
            })
        };
        let launchable = |i: u32| !successful[i as usize] && copies[i as usize] <= 1;
        for (level, reported) in SPECULATIVE_LISTS {
            if !TaskLocality::is_allowed(max_locality, level) {
                continue;
            }
            let in_level = |i: u32| match level {
                TaskLocality::ProcessLocal => prefs.executor_of(i) == Some(executor),
                TaskLocality::NodeLocal => pref(i).iter().any(|h| &**h == host),
                TaskLocality::NoPref => pref(i).is_empty(),
                TaskLocality::RackLocal => {
                    rack.is_some_and(|r| pref(i).iter().any(|h| topology.rack(h) == Some(r)))
                }
                _ => true,
            };
            // An excluded index stays in the list, as one with an attempt on the host does.
            let in_list = |i: u32| in_level(i) && !excluded(i);
            if let Some(index) = spec.take(host, in_list, launchable) {
                return Some(Dequeued {
                    index,
                    locality: reported,
                    speculative: true,
                });
            }
        }
        None
    }

    /// `checkSpeculatableTasks(minTimeToSpeculation)`: the tasks marked speculatable now (see
    /// `TaskSetSpeculation::mark_speculatable`), with the threshold they passed; none for a
    /// set without speculation state or not yet past a threshold. `topology` answers
    /// `sched.getExecutorDecommissionState` for the kill interval.
    pub(super) fn check_speculatable_tasks(
        &mut self,
        now_ms: u64,
        settings: &SpeculationSettings,
        topology: &Topology,
    ) -> (f64, Vec<(u32, Rc<str>, usize)>) {
        let num_tasks = self.successful.len();
        let Some(spec) = self.spec.as_mut() else {
            return (0.0, Vec::new());
        };
        let Some(threshold) = spec.threshold(num_tasks, settings) else {
            return (0.0, Vec::new());
        };
        let kill_time = |e: ExecutorId| {
            let interval = settings.decommission_kill_interval_ms?;
            let state = topology.decommission_state(e)?;
            Some(state.start_ms.saturating_add(interval))
        };
        let marked = spec.mark_speculatable(
            &self.successful,
            &self.copies_running,
            now_ms,
            threshold,
            settings,
            kill_time,
        );
        (threshold.0, marked)
    }

    /// A copy's launch, for speculation's bookkeeping (`runningTasksSet`, `taskAttempts`).
    pub(super) fn speculation_on_launch(&mut self, task: &RunningTask) {
        if let Some(spec) = self.spec.as_mut() {
            spec.on_launch(task.index, task);
        }
    }

    /// An attempt ended without success (failure, kill, executor loss).
    pub(super) fn speculation_task_failed(&mut self, task: &RunningTask) {
        if let Some(spec) = self.spec.as_mut() {
            spec.on_end(task.task_id, task.index);
        }
    }
}

/// `dequeueTaskFromList` with an exclude list: from the end, an index excluded on the offer is
/// passed over and stays in the list; any other is taken out, and returned if it still needs a
/// copy (Spark 4.0's TaskSetManager).
fn dequeue_from_list_excluding(
    list: &mut Vec<u32>,
    schedulable: impl Fn(u32) -> bool,
    excluded: impl Fn(u32) -> bool,
) -> Option<u32> {
    let mut at = list.len();
    while at > 0 {
        at -= 1;
        let i = list[at];
        if excluded(i) {
            continue;
        }
        list.remove(at);
        if schedulable(i) {
            return Some(i);
        }
    }
    None
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
    pub(super) fn launched(&mut self, locality: TaskLocality) {
        self.min_locality = Some(self.min_locality.map_or(locality, |m| m.min(locality)));
    }
}
