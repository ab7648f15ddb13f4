//! Dynamic allocation on the driver: the target number of executors and the idle executors to
//! remove, driven by the listener bus's stage and task events and a 100 ms `schedule()`. A plain
//! state machine (time passed in; the backend reached through [`ExecutorAllocationClient`]),
//! mirroring Spark's `org.apache.spark.ExecutorAllocationManager` and its
//! `ExecutorAllocationListener` for the default resource profile (id 0), with
//! `Utils.getDynamicAllocationInitialExecutors` and `validateSettings`.
//!
//! Speculative copies count as Spark 4.0 counts them (`SpeculativeTaskSubmitted`, speculative
//! TaskStart/TaskEnd). The executor placement hints (`numLocalityAwareTasksPerResourceProfileId`,
//! `rpIdToHostToLocalTaskCount`) come from each submitted stage attempt's task locality
//! preferences and go with every request. Unschedulable task sets (every executor excluded
//! for a task: `SparkListenerUnschedulableTaskSetAdded`) ask for more executors. Not modelled
//! (nothing in the run produces them yet): cached RDD blocks (so `cachedExecutorIdleTimeout`
//! never applies).

use crate::kernel::bitset::BitSet;
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::spark_core::executor_monitor::{
    ExecutorMonitor, MonitorSettings, NEVER, RemovedAs, ShuffleStage,
};
use crate::world::config::DynamicAllocationSettings;
use crate::world::listener::{BlockEvent, ManagementListener, TaskEvent, TaskEventKind};
use crate::{debug, info, warn};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::ListenerEvent;
use std::cell::{RefCell, RefMut};
use std::collections::{BTreeMap, BTreeSet};

const EAM: &str = "driver::ExecutorAllocationManager";
const MONITOR: &str = "driver::ExecutorMonitor";
const UTILS: &str = "driver::Utils";

/// `schedule()`'s period (`intervalMillis`).
pub const INTERVAL_MS: u64 = 100;

/// The executor placement hints of resource profile 0 that go with every request
/// (`numLocalityAwareTasksPerResourceProfileId(0)`, `rpIdToHostToLocalTaskCount(0)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementHints {
    /// Tasks of the active stage attempts that prefer some host.
    pub num_locality_aware_tasks: u32,
    /// For each preferred host, how many of those tasks prefer it.
    pub host_to_local_task_count: BTreeMap<String, u32>,
}

impl PlacementHints {
    /// The hosts and their task counts as `RequestExecutors` carries them:
    /// `YarnSchedulerBackend.prepareRequestExecutors` leaves out the excluded nodes ("ignore
    /// preferences for nodes that are excluded").
    pub fn hosts_without(&self, excluded: &BTreeSet<String>) -> Vec<(String, u32)> {
        self.host_to_local_task_count
            .iter()
            .filter(|(h, _)| !excluded.contains(*h))
            .map(|(h, n)| (h.clone(), *n))
            .collect()
    }
}

/// `stageAttemptToExecutorPlacementHints` for one stage attempt: its tasks with a preference
/// and how many prefer each host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct StageHints {
    num_tasks_pending: u32,
    host_to_count: BTreeMap<String, u32>,
}

impl StageHints {
    /// `onStageSubmitted`'s count over `stageInfo.taskLocalityPreferences`.
    fn from_preferences(prefs: &[Vec<String>]) -> Self {
        let mut hints = StageHints::default();
        for hosts in prefs.iter().filter(|h| !h.is_empty()) {
            hints.num_tasks_pending += 1;
            for h in hosts {
                *hints.host_to_count.entry(h.clone()).or_default() += 1;
            }
        }
        hints
    }
}

/// What the allocation manager asks of the scheduler backend (`ExecutorAllocationClient`).
pub trait ExecutorAllocationClient {
    /// `requestTotalExecutors` for resource profile 0 with the placement hints; whether the
    /// request was acknowledged.
    fn request_total_executors(&mut self, total: u32, hints: &PlacementHints) -> bool;
    /// `killExecutors(ids, adjustTargetNumExecutors = false, countFailures = false, force =
    /// false)`: the executors actually being killed.
    fn kill_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId>;
    /// `decommissionExecutors(ids with "spark scale down", adjustTargetNumExecutors = false,
    /// triggeredByExecutor = false)`: the executors being decommissioned.
    fn decommission_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId>;
}

pub use crate::world::listener::TaskEndKind;

/// `validateSettings` (and the ConfigEntry checks behind its getters): the `SparkException`
/// message when dynamic allocation cannot start; `Ok` carries the INFO/WARN lines to log.
pub fn validate_settings(
    s: &DynamicAllocationSettings,
    executor_cores: u32,
    task_cpus: u32,
) -> Result<Vec<(log::Level, String)>, String> {
    const MIN: &str = "spark.dynamicAllocation.minExecutors";
    const MAX: &str = "spark.dynamicAllocation.maxExecutors";
    let mut lines = Vec::new();
    if s.max_executors == 0 {
        return Err(format!("{MAX} cannot be 0!"));
    }
    if s.min_executors > s.max_executors {
        return Err(format!(
            "{MIN} ({}) must be less than or equal to {MAX} ({})!",
            s.min_executors, s.max_executors
        ));
    }
    if s.scheduler_backlog_timeout_s == 0 {
        return Err("spark.dynamicAllocation.schedulerBacklogTimeout must be > 0!".into());
    }
    if s.sustained_scheduler_backlog_timeout_s == 0 {
        // Spark's text has a stray `s` before the key.
        return Err(
            "sspark.dynamicAllocation.sustainedSchedulerBacklogTimeout must be > 0!".into(),
        );
    }
    let shuffle_decommission = s.decommission_enabled && s.storage_decommission_shuffle_blocks;
    if !s.shuffle_service_enabled {
        if s.shuffle_tracking_enabled {
            let line = "Dynamic allocation is enabled without a shuffle service.";
            lines.push((log::Level::Info, line.to_string()));
        } else if shuffle_decommission {
            let line = "Shuffle data decommission is enabled without a shuffle service.";
            lines.push((log::Level::Info, line.to_string()));
        } else {
            return Err(
                "Dynamic allocation of executors requires one of the following \
                 conditions: 1) enabling external shuffle service through \
                 spark.shuffle.service.enabled. 2) enabling shuffle tracking through \
                 spark.dynamicAllocation.shuffleTracking.enabled. 3) enabling shuffle blocks \
                 decommission through spark.decommission.enabled and \
                 spark.storage.decommission.shuffleBlocks.enabled. 4) (Experimental) \
                 configuring spark.shuffle.sort.io.plugin.class to use a custom ShuffleDataIO \
                 who's ShuffleDriverComponents supports reliable storage."
                    .into(),
            );
        }
    }
    if s.shuffle_tracking_enabled && shuffle_decommission {
        let line = "You are enabling both shuffle tracking and other DA supported mechanism, \
                    which will cause idle executors not to be released in a timely, please \
                    check the configurations.";
        lines.push((log::Level::Warn, line.to_string()));
    }
    if s.executor_allocation_ratio > 1.0 || s.executor_allocation_ratio <= 0.0 {
        return Err(
            "spark.dynamicAllocation.executorAllocationRatio must be > 0 and <= 1.0".into(),
        );
    }
    if task_cpus > executor_cores {
        // ResourceProfile.maxTasksPerExecutor's check on the default profile.
        return Err(format!(
            "The number of cores per executor (={executor_cores}) has to be >= the number of \
             cpus per task = {task_cpus}."
        ));
    }
    Ok(lines)
}

/// `Utils.getDynamicAllocationInitialExecutors`: max(min, initial, spark.executor.instances),
/// with Spark's warnings for the settings it ignores, then its INFO line.
pub fn initial_executors(
    s: &DynamicAllocationSettings,
    executor_instances: Option<u32>,
) -> (u32, Vec<(log::Level, String)>) {
    let mut lines = Vec::new();
    let initial = s.initial_executors.unwrap_or(s.min_executors);
    if initial < s.min_executors {
        lines.push((
            log::Level::Warn,
            "spark.dynamicAllocation.initialExecutors less than \
             spark.dynamicAllocation.minExecutors is invalid, ignoring its setting, please \
             update your configs."
                .to_string(),
        ));
    }
    let instances = executor_instances.unwrap_or(0);
    if instances < s.min_executors {
        lines.push((
            log::Level::Warn,
            "spark.executor.instances less than spark.dynamicAllocation.minExecutors is \
             invalid, ignoring its setting, please update your configs."
                .to_string(),
        ));
    }
    let n = s.min_executors.max(initial).max(instances);
    // Spark 4.0's structured-logging version of the line has no space after the first comma.
    lines.push((
        log::Level::Info,
        format!(
            "Using initial executors = {n}, max of spark.dynamicAllocation.initialExecutors,\
             spark.dynamicAllocation.minExecutors and spark.executor.instances"
        ),
    ));
    (n, lines)
}

/// Writes lines from [`validate_settings`] / [`initial_executors`] under `target`.
pub fn log_lines(log: &ProcessLog, target: &'static str, lines: &[(log::Level, String)]) {
    for (level, line) in lines {
        log.log(target, *level, format_args!("{line}"));
    }
}

/// The `Utils` logger target (for [`initial_executors`]' lines).
pub const UTILS_TARGET: &str = UTILS;

/// What the listener keeps about one stage attempt; dropped once nothing refers to it
/// (`removeStageFromResourceProfileIfUnused`).
#[derive(Default)]
struct StageAttempt {
    /// `stageAttemptToNumTasks` (until the stage completes).
    num_tasks: Option<u32>,
    /// `stageAttemptToNumRunningTask`.
    running: u32,
    /// `stageAttemptToTaskIndices` (until the stage completes).
    indices: Option<BitSet>,
    /// `stageAttemptToPendingSpeculativeTasks`: speculatable copies not yet started.
    pending_speculative: Option<BTreeSet<u32>>,
    /// `stageAttemptToSpeculativeTaskIndices`: speculative copies running.
    speculative_indices: Option<BTreeSet<u32>>,
}

impl StageAttempt {
    fn pending(&self) -> u32 {
        let started = self.indices.as_ref().map_or(0, BitSet::len);
        self.num_tasks.unwrap_or(0).saturating_sub(started)
    }

    /// `getPendingSpeculativeTaskSum`.
    fn pending_speculative(&self) -> u32 {
        self.pending_speculative
            .as_ref()
            .map_or(0, |p| p.len() as u32)
    }

    fn unused(&self) -> bool {
        self.num_tasks.is_none()
            && self.running == 0
            && self.indices.is_none()
            && self.pending_speculative.is_none()
            && self.speculative_indices.is_none()
    }
}

/// The listener's per-stage-attempt maps (`stageAttemptToNumTasks`, `...ToTaskIndices`...),
/// as one table sorted by (stage, attempt): a handful of attempts are live at once, so a
/// binary search over a short list is what every task start and end pays, not a B-tree walk.
#[derive(Default)]
struct StageAttempts(Vec<((u32, u32), StageAttempt)>);

impl StageAttempts {
    #[inline]
    fn position(&self, key: (u32, u32)) -> Result<usize, usize> {
        self.0.binary_search_by_key(&key, |(k, _)| *k)
    }

    #[inline]
    fn get_mut(&mut self, key: (u32, u32)) -> Option<&mut StageAttempt> {
        self.position(key).ok().map(|i| &mut self.0[i].1)
    }

    /// The attempt's entry, created empty if absent (`getOrElseUpdate`).
    #[inline]
    fn entry(&mut self, key: (u32, u32)) -> &mut StageAttempt {
        let i = match self.position(key) {
            Ok(i) => i,
            Err(i) => self.insert_at(i, key),
        };
        &mut self.0[i].1
    }

    /// A new attempt's entry (once per stage attempt: out of line).
    #[inline(never)]
    fn insert_at(&mut self, i: usize, key: (u32, u32)) -> usize {
        self.0.insert(i, (key, StageAttempt::default()));
        i
    }

    fn remove(&mut self, key: (u32, u32)) {
        if let Ok(i) = self.position(key) {
            self.0.remove(i);
        }
    }

    /// In (stage, attempt) order.
    fn values(&self) -> impl Iterator<Item = &StageAttempt> {
        self.0.iter().map(|(_, a)| a)
    }
}

/// The ExecutorAllocationManager (with its listener and its ExecutorMonitor).
pub struct ExecutorAllocationManager {
    s: DynamicAllocationSettings,
    log: ProcessLog,
    tasks_per_executor: u32,
    /// `numExecutorsTargetPerResourceProfileId(0)`.
    target: u32,
    /// `numExecutorsToAddPerResourceProfileId(0)`.
    to_add: u32,
    /// `addTime` ([`NEVER`] = `NOT_SET`).
    add_time: u64,
    initializing: bool,
    stages: StageAttempts,
    /// `stageAttemptToExecutorPlacementHints` (stage attempts with a preferred host only).
    stage_hints: BTreeMap<(u32, u32), StageHints>,
    /// Their sum (`updateExecutorPlacementHints`).
    hints: PlacementHints,
    /// `unschedulableTaskSets`: stage attempts with a task every executor is excluded for.
    unschedulable: BTreeSet<(u32, u32)>,
    pub monitor: ExecutorMonitor,
}

impl ExecutorAllocationManager {
    /// The manager for settings [`validate_settings`] accepted, starting at `initial`.
    pub fn new(
        s: DynamicAllocationSettings,
        initial: u32,
        executor_cores: u32,
        task_cpus: u32,
        log: ProcessLog,
    ) -> Self {
        let monitor = ExecutorMonitor::new(MonitorSettings {
            idle_timeout_ms: s.executor_idle_timeout_s.saturating_mul(1000),
            storage_timeout_ms: s.cached_executor_idle_timeout_s.saturating_mul(1000),
            shuffle_timeout_ms: s.shuffle_tracking_timeout_ms.unwrap_or(NEVER),
            shuffle_tracking: !s.shuffle_service_enabled && s.shuffle_tracking_enabled,
        });
        ExecutorAllocationManager {
            s,
            log,
            tasks_per_executor: crate::world::config::max_tasks_per_executor(
                executor_cores,
                task_cpus,
            ),
            target: initial,
            to_add: 1,
            add_time: NEVER,
            initializing: true,
            stages: StageAttempts::default(),
            stage_hints: BTreeMap::new(),
            hints: PlacementHints::default(),
            unschedulable: BTreeSet::new(),
            monitor,
        }
    }

    /// `ResourceProfile.maxTasksPerExecutor` of the default profile when a custom resource
    /// (a GPU) limits an executor's tasks below its cores over `spark.task.cpus`.
    pub fn with_tasks_per_executor(mut self, tasks: u32) -> Self {
        self.tasks_per_executor = tasks.max(1);
        self
    }

    pub fn target(&self) -> u32 {
        self.target
    }

    pub fn bounds(&self) -> (u32, u32) {
        (self.s.min_executors, self.s.max_executors)
    }

    /// `start()`: the first request, for the initial target.
    pub fn start(&mut self, client: &mut impl ExecutorAllocationClient) {
        client.request_total_executors(self.target, &self.hints);
    }

    /// The placement hints the next request carries.
    #[cfg(test)]
    pub fn placement_hints(&self) -> &PlacementHints {
        &self.hints
    }

    fn running_tasks(&self) -> u32 {
        self.stages.values().map(|a| a.running).sum()
    }

    fn pending_tasks(&self) -> u32 {
        self.stages.values().map(StageAttempt::pending).sum()
    }

    fn pending_speculative_tasks(&self) -> u32 {
        self.stages
            .values()
            .map(StageAttempt::pending_speculative)
            .sum()
    }

    /// `hasPendingTasks`: regular or speculative.
    #[inline]
    fn has_pending_tasks(&self) -> bool {
        self.stages
            .values()
            .any(|a| a.pending() > 0 || a.pending_speculative() > 0)
    }

    /// `maxNumExecutorsNeededPerResourceProfile` (Spark 4.0): every pending, pending
    /// speculative and running task at once, scaled by `executorAllocationRatio`; one more
    /// executor when a single one would do but a speculative copy waits (it cannot run beside
    /// its original's host).
    pub fn max_needed(&self) -> u32 {
        let speculative = self.pending_speculative_tasks();
        let tasks = f64::from(self.pending_tasks() + speculative + self.running_tasks());
        let needed = (tasks * self.s.executor_allocation_ratio / f64::from(self.tasks_per_executor))
            .ceil() as u32;
        let needed = if self.tasks_per_executor > 1 && needed == 1 && speculative > 0 {
            needed + 1
        } else {
            needed
        };
        // Spark 4.0: an unschedulable task set (its task excluded on every executor) asks for
        // executors beyond the ones it has (`executorCountWithResourceProfile`).
        let unschedulable = self.pending_unschedulable_task_sets();
        if unschedulable == 0 {
            return needed;
        }
        let ratio = self.s.executor_allocation_ratio;
        let more = (f64::from(unschedulable) * ratio / f64::from(self.tasks_per_executor)).ceil();
        needed.max(self.monitor.executor_count() + more as u32)
    }

    /// `pendingUnschedulableTaskSetsPerResourceProfile(0)`: the unschedulable sets whose stage
    /// attempt the listener still tracks (`resourceProfileIdToStageAttempt`). Nothing removes a
    /// set from `unschedulableTaskSets` but `UnschedulableTaskSetRemoved`, which names the set
    /// that launched, not the ones waiting, and an aborted set hears none: once its stage
    /// attempt is gone it no longer counts.
    fn pending_unschedulable_task_sets(&self) -> u32 {
        let tracked = |k: &&(u32, u32)| self.stages.position(**k).is_ok();
        self.unschedulable.iter().filter(tracked).count() as u32
    }

    /// `onUnschedulableTaskSetAdded`: the set waits for a new executor; the scheduler is
    /// backlogged.
    pub fn on_unschedulable_task_set_added(&mut self, stage: u32, attempt: u32, now: u64) {
        self.unschedulable.insert((stage, attempt));
        self.on_scheduler_backlogged(now);
    }

    /// `onUnschedulableTaskSetRemoved`.
    pub fn on_unschedulable_task_set_removed(&mut self, stage: u32, attempt: u32) {
        self.unschedulable.remove(&(stage, attempt));
    }

    /// `schedule()`: executors past their idle deadline, the target's update, then removals.
    pub fn schedule(&mut self, now: u64, client: &mut impl ExecutorAllocationClient) {
        let timed_out = self.monitor.timed_out_executors(now);
        if !timed_out.is_empty() {
            self.initializing = false;
        }
        self.update_and_sync_target(now, client);
        if !timed_out.is_empty() {
            self.remove_executors(&timed_out, client);
        }
    }

    /// `updateAndSyncNumExecutorsTarget`: lower the target to what the load needs, or raise it
    /// once the backlog timer has expired; tell the cluster manager when it changed.
    fn update_and_sync_target(&mut self, now: u64, client: &mut impl ExecutorAllocationClient) {
        if self.initializing {
            return;
        }
        let max_needed = self.max_needed();
        let old = self.target;
        if max_needed < self.target {
            // `decrementExecutors`: no kill here; idle executors go by their own timeout.
            self.target = max_needed.max(self.s.min_executors);
            self.to_add = 1;
        } else if self.add_time != NEVER && now >= self.add_time {
            self.add_executors(max_needed);
        }
        if self.target == old {
            return;
        }
        self.do_update_request(old, now, client);
    }

    /// `addExecutors`: grow by `to_add`, bounded by the need and [min, max].
    fn add_executors(&mut self, max_needed: u32) {
        let old = self.target;
        if old >= self.s.max_executors {
            self.to_add = 1;
            return;
        }
        let mut t = old.max(self.monitor.executor_count());
        t = t.saturating_add(self.to_add);
        t = t.min(max_needed);
        t = t.min(self.s.max_executors).max(self.s.min_executors);
        self.target = t;
        if t == old {
            self.to_add = 1;
        }
    }

    /// `doUpdateRequest`: one request for the new target; its log line and the ramp-up.
    fn do_update_request(
        &mut self,
        old: u32,
        now: u64,
        client: &mut impl ExecutorAllocationClient,
    ) {
        if !client.request_total_executors(self.target, &self.hints) {
            warn!(
                self.log,
                EAM, "Unable to reach the cluster manager to request more executors!"
            );
            self.target = old;
            return;
        }
        if self.target > old {
            let delta = self.target - old;
            let plural = if delta > 1 { "s" } else { "" };
            info!(
                self.log,
                EAM,
                "Requesting {delta} new executor{plural} because tasks are backlogged (new desired total will be {} for resource profile id: 0)",
                self.target
            );
            self.to_add = if delta == self.to_add {
                self.to_add.saturating_mul(2)
            } else {
                1
            };
            self.add_time = now + self.s.sustained_scheduler_backlog_timeout_s * 1000;
        } else {
            debug!(
                self.log,
                EAM,
                "Lowering target number of executors to {} (previously {old} for resource profile id: 0) because not all requested executors are actually needed",
                self.target
            );
        }
    }

    /// `removeExecutors`: keep at least min and the target; kill (or decommission) the rest,
    /// then re-sync the target (killExecutors may have lowered it: SPARK-21834).
    fn remove_executors(
        &mut self,
        ids: &[ExecutorId],
        client: &mut impl ExecutorAllocationClient,
    ) -> Vec<ExecutorId> {
        let listed: Vec<String> = ids.iter().map(|i| format!("({i},0)")).collect();
        debug!(
            self.log,
            EAM,
            "Request to remove executorIds: {}",
            listed.join(", ")
        );
        let mut total = self.monitor.executor_count()
            - self.monitor.pending_removal_count()
            - self.monitor.decommissioning_count();
        let mut chosen = Vec::new();
        for &id in ids {
            if total.saturating_sub(1) < self.s.min_executors || total == 0 {
                debug!(
                    self.log,
                    EAM,
                    "Not removing idle executor {id} because there are only {total} executor(s) left (minimum number of executor limit {})",
                    self.s.min_executors
                );
            } else if total - 1 < self.target {
                debug!(
                    self.log,
                    EAM,
                    "Not removing idle executor {id} because there are only {total} executor(s) left (number of executor target {})",
                    self.target
                );
            } else {
                chosen.push(id);
                total -= 1;
            }
        }
        if chosen.is_empty() {
            return chosen;
        }
        let removed = if self.s.decommission_enabled {
            client.decommission_executors(&chosen)
        } else {
            client.kill_executors(&chosen)
        };
        client.request_total_executors(self.target, &self.hints);
        let joined = |v: &[ExecutorId]| {
            v.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        if removed.is_empty() {
            warn!(
                self.log,
                EAM,
                "Unable to reach the cluster manager to kill executor/s {} or no executor eligible to kill!",
                joined(&chosen)
            );
            return removed;
        }
        if self.s.decommission_enabled {
            self.monitor.executors_decommissioned(&removed);
        } else {
            self.monitor.executors_killed(&removed);
        }
        // The 4.0.0 jar's pieces are `Executors ` and `removed due to idle timeout.`: no space
        // after the ids (`Executors 1,2removed due to idle timeout.`).
        info!(
            self.log,
            EAM,
            "Executors {}removed due to idle timeout.",
            joined(&removed)
        );
        removed
    }

    /// `onSchedulerBacklogged`: start the add timer if it is not running.
    fn on_scheduler_backlogged(&mut self, now: u64) {
        if self.add_time == NEVER {
            self.add_time = now + self.s.scheduler_backlog_timeout_s * 1000;
        }
    }

    /// `onSchedulerQueueEmpty`.
    fn on_scheduler_queue_empty(&mut self) {
        self.add_time = NEVER;
        self.to_add = 1;
    }

    // ---- ExecutorAllocationListener and ExecutorMonitor callbacks ----

    pub fn on_stage_submitted(&mut self, stage: u32, attempt: u32, num_tasks: u32, now: u64) {
        self.initializing = false;
        let a = self.stages.entry((stage, attempt));
        a.num_tasks = Some(num_tasks);
        self.on_scheduler_backlogged(now);
    }

    /// `onStageSubmitted`'s placement hints from the attempt's `taskLocalityPreferences`, then
    /// `updateExecutorPlacementHints`.
    pub fn on_stage_placement(&mut self, stage: u32, attempt: u32, prefs: &[Vec<String>]) {
        let hints = StageHints::from_preferences(prefs);
        if hints.num_tasks_pending > 0 {
            self.stage_hints.insert((stage, attempt), hints);
            self.update_executor_placement_hints();
        }
    }

    /// `updateExecutorPlacementHints`: the sum over the stage attempts still running.
    fn update_executor_placement_hints(&mut self) {
        let mut hints = PlacementHints::default();
        for s in self.stage_hints.values() {
            hints.num_locality_aware_tasks += s.num_tasks_pending;
            for (h, n) in &s.host_to_count {
                *hints.host_to_local_task_count.entry(h.clone()).or_default() += n;
            }
        }
        self.hints = hints;
    }

    pub fn on_stage_completed(&mut self, stage: u32, attempt: u32) {
        let key = (stage, attempt);
        // `stageAttemptToExecutorPlacementHints -= stageAttempt; updateExecutorPlacementHints()`.
        if self.stage_hints.remove(&key).is_some() {
            self.update_executor_placement_hints();
        }
        if let Some(a) = self.stages.get_mut(key) {
            a.num_tasks = None;
            a.indices = None;
            a.pending_speculative = None;
            a.speculative_indices = None;
            if a.unused() {
                self.stages.remove(key);
            }
        }
        let nothing_left = |a: &StageAttempt| {
            a.num_tasks.is_none()
                && a.pending_speculative.is_none()
                && a.speculative_indices.is_none()
        };
        if self.stages.values().all(nothing_left) {
            self.on_scheduler_queue_empty();
        }
    }

    /// `onSpeculativeTaskSubmitted`: a copy waits to start; the scheduler is backlogged.
    pub fn on_speculative_task_submitted(
        &mut self,
        stage: u32,
        attempt: u32,
        index: u32,
        now: u64,
    ) {
        let a = self.stages.entry((stage, attempt));
        a.pending_speculative.get_or_insert_default().insert(index);
        self.on_scheduler_backlogged(now);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[cfg(test)]
    pub fn on_task_start(
        &mut self,
        stage: u32,
        attempt: u32,
        index: u32,
        speculative: bool,
        executor: ExecutorId,
        executor_active: bool,
    ) {
        self.stage_task_started(stage, attempt, index, speculative);
        self.monitor.on_task_start(executor, executor_active);
    }

    /// `onTaskStart` as the listener applies it (in order, before any later event): the
    /// executor is active exactly when the monitor tracks it (no removal can come between), so
    /// one lookup answers both.
    #[inline]
    fn on_task_start_on_tracked(&mut self, e: &TaskEvent) {
        self.stage_task_started(e.stage_id, e.stage_attempt_id, e.index, e.speculative);
        self.monitor.on_task_start_if_tracked(e.executor);
    }

    /// The listener's share of `onTaskStart`: the attempt's running count and started indices.
    #[inline]
    fn stage_task_started(&mut self, stage: u32, attempt: u32, index: u32, speculative: bool) {
        let a = self.stages.entry((stage, attempt));
        a.running += 1;
        if speculative {
            a.speculative_indices.get_or_insert_default().insert(index);
            if let Some(p) = a.pending_speculative.as_mut() {
                p.remove(&index);
            }
        } else {
            a.indices.get_or_insert_with(BitSet::default).insert(index);
        }
        if !self.has_pending_tasks() {
            self.on_scheduler_queue_empty();
        }
    }

    /// A task's start or end as the bus posted it at `now`.
    #[inline]
    fn on_task_event(&mut self, e: &TaskEvent, now: u64) {
        match e.kind {
            // Queued task events are applied before any later event, so a task never starts
            // on an executor the monitor has already seen removed (SPARK-26927 cannot happen
            // here).
            TaskEventKind::Start => self.on_task_start_on_tracked(e),
            TaskEventKind::End(kind) => {
                let (stage, attempt, spec) = (e.stage_id, e.stage_attempt_id, e.speculative);
                self.on_task_end(stage, attempt, e.index, spec, e.executor, kind, now)
            }
        }
    }

    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn on_task_end(
        &mut self,
        stage: u32,
        attempt: u32,
        index: u32,
        speculative: bool,
        executor: ExecutorId,
        kind: TaskEndKind,
        now: u64,
    ) {
        // One search: the attempt's slot does not move until its removal below.
        let slot = self.stages.position((stage, attempt)).ok();
        if let Some(i) = slot {
            let a = &mut self.stages.0[i].1;
            a.running = a.running.saturating_sub(1);
            if speculative && let Some(s) = a.speculative_indices.as_mut() {
                s.remove(&index);
            }
            // A success before its copy started: the copy is no longer pending.
            if kind == TaskEndKind::Success
                && let Some(p) = a.pending_speculative.as_mut()
            {
                p.remove(&index);
            }
        }
        if kind == TaskEndKind::Failed {
            // SPARK-8366: the failed task will be resubmitted; make room for it.
            if !self.has_pending_tasks() {
                self.on_scheduler_backlogged(now);
            }
            // SPARK-30511: a failed copy leaves its index started (the original runs on).
            if !speculative
                && let Some(i) = slot
                && let Some(ix) = self.stages.0[i].1.indices.as_mut()
            {
                ix.remove(index);
            }
        }
        if let Some(i) = slot
            && self.stages.0[i].1.unused()
        {
            self.stages.0.remove(i);
        }
        let success = kind == TaskEndKind::Success;
        self.monitor.on_task_end(executor, stage, success, now);
    }

    pub fn on_job_start(&mut self, job_id: u32, shuffle_stages: &[ShuffleStage]) {
        self.monitor.on_job_start(job_id, shuffle_stages);
    }

    pub fn on_job_end(&mut self, job_id: u32, now: u64) {
        self.monitor.on_job_end(job_id, now);
    }

    pub fn on_executor_added(&mut self, id: ExecutorId, now: u64) {
        let total = self.monitor.on_executor_added(id, now);
        info!(
            self.log,
            MONITOR, "New executor {id} has registered (new total is {total})"
        );
    }

    pub fn on_executor_removed(&mut self, id: ExecutorId, removed_as: RemovedAs) {
        if !self.monitor.on_executor_removed(id, removed_as) {
            return;
        }
        let st = self.monitor.stats;
        info!(
            self.log,
            MONITOR,
            "Executor {id} is removed. Remove reason statistics: (gracefully decommissioned: {}, decommission unfinished: {}, driver killed: {}, unexpectedly exited: {}).",
            st.gracefully_decommissioned,
            st.decommission_unfinished,
            st.driver_killed,
            st.exited_unexpectedly
        );
    }
}

/// The manager on the listener bus's management queue (`listenerBus.addToManagementQueue`):
/// maps each event onto the listener and monitor callbacks, at the virtual clock's time.
///
/// A task's start and end (two events per task, nearly all it hears) are queued and applied
/// in order, with the time each was posted at, before anything else reads or changes the
/// manager: its 100 ms `schedule()`, any other event, the driver's kills and decommissions
/// all go through [`AllocationListener::manager`]. Nothing reads the manager between two task
/// events, so this is what applying them one by one gives (Spark's management queue is
/// asynchronous anyway); a task then costs the scheduler a push, and the bookkeeping runs in
/// batches instead of interleaved with every launch and status update.
pub struct AllocationListener {
    manager: RefCell<ExecutorAllocationManager>,
    queued: RefCell<Vec<QueuedTask>>,
}

/// A task event waiting to be applied, and when it was posted.
struct QueuedTask {
    event: TaskEvent,
    now_ms: u64,
}

/// Task events applied at once when this many wait (a few KB: the batch stays in cache).
const QUEUED_TASKS: usize = 256;

impl AllocationListener {
    pub fn new(manager: ExecutorAllocationManager) -> Self {
        AllocationListener {
            manager: RefCell::new(manager),
            queued: RefCell::new(Vec::with_capacity(QUEUED_TASKS)),
        }
    }

    /// The manager, every queued task event applied first.
    pub fn manager(&self) -> RefMut<'_, ExecutorAllocationManager> {
        let mut m = self.manager.borrow_mut();
        self.apply_queued(&mut m);
        m
    }

    fn apply_queued(&self, m: &mut ExecutorAllocationManager) {
        for t in self.queued.borrow_mut().drain(..) {
            m.on_task_event(&t.event, t.now_ms);
        }
    }
}

/// The executor id a listener event names (Spark's events carry it as a string).
fn executor_id(id: &str) -> Option<ExecutorId> {
    id.parse().ok().map(ExecutorId)
}

impl ManagementListener for AllocationListener {
    fn on_event(&self, event: &ListenerEvent) {
        let now = clock::now_ms();
        let mut m = self.manager();
        match event {
            ListenerEvent::StageSubmitted { stage } => {
                let (id, attempt) = (stage.stage_id, stage.attempt_id);
                m.on_stage_submitted(id, attempt, stage.num_tasks, now);
                m.on_stage_placement(id, attempt, &stage.task_locality_preferences);
            }
            ListenerEvent::StageCompleted { stage } => {
                m.on_stage_completed(stage.stage_id, stage.attempt_id)
            }
            ListenerEvent::SpeculativeTaskSubmitted {
                stage_id,
                stage_attempt_id,
                task_index,
                ..
            } => m.on_speculative_task_submitted(*stage_id, *stage_attempt_id, *task_index, now),
            ListenerEvent::JobStart { job_id, stages, .. } => {
                let maps: Vec<ShuffleStage> = stages
                    .iter()
                    .filter_map(|s| {
                        let shuffle_id = s.shuffle_dep_id?;
                        Some(ShuffleStage {
                            stage_id: s.stage_id,
                            shuffle_id,
                        })
                    })
                    .collect();
                m.on_job_start(*job_id, &maps);
            }
            ListenerEvent::JobEnd { job_id, .. } => m.on_job_end(*job_id, now),
            ListenerEvent::UnschedulableTaskSetAdded {
                stage_id,
                stage_attempt_id,
            } => m.on_unschedulable_task_set_added(*stage_id, *stage_attempt_id, now),
            ListenerEvent::UnschedulableTaskSetRemoved {
                stage_id,
                stage_attempt_id,
            } => m.on_unschedulable_task_set_removed(*stage_id, *stage_attempt_id),
            ListenerEvent::ExecutorAdded { executor_id: e, .. } => {
                if let Some(id) = executor_id(e) {
                    m.on_executor_added(id, now);
                }
            }
            ListenerEvent::ExecutorRemoved {
                executor_id: e,
                reason,
                ..
            } => {
                // ExecutorMonitor.onExecutorRemoved compares the event's reason with
                // ExecutorLossMessage.decommissionFinished / ExecutorDecommission.msgPrefix.
                let removed_as =
                    if reason == DECOMMISSION_FINISHED || reason.starts_with(DECOMMISSION_PREFIX) {
                        RemovedAs::DecommissionFinished
                    } else {
                        RemovedAs::Other
                    };
                if let Some(id) = executor_id(e) {
                    m.on_executor_removed(id, removed_as);
                }
            }
            _ => {}
        }
    }

    fn on_block(&self, b: &BlockEvent) {
        let mut m = self.manager();
        m.monitor
            .on_block_updated(b.executor, b.rdd_id, b.split_index, b.stored);
    }

    fn on_task(&self, e: &TaskEvent) {
        let mut queued = self.queued.borrow_mut();
        queued.push(QueuedTask {
            event: *e,
            now_ms: clock::now_ms(),
        });
        if queued.len() < QUEUED_TASKS {
            return;
        }
        drop(queued);
        // Applied now unless the manager is being used (an event posted from inside its own
        // `schedule()`): then at the next read, still before it.
        if let Ok(mut m) = self.manager.try_borrow_mut() {
            self.apply_queued(&mut m);
        }
    }
}

/// `ExecutorLossMessage.decommissionFinished`.
pub const DECOMMISSION_FINISHED: &str = "Finished decommissioning";
/// `ExecutorDecommission.msgPrefix`.
pub const DECOMMISSION_PREFIX: &str = "Executor decommission: ";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use std::rc::Rc;

    /// A backend that acknowledges everything and records what it was asked.
    #[derive(Default)]
    struct Client {
        totals: Vec<u32>,
        hints: Vec<PlacementHints>,
        killed: Vec<Vec<ExecutorId>>,
    }

    impl ExecutorAllocationClient for Client {
        fn request_total_executors(&mut self, total: u32, hints: &PlacementHints) -> bool {
            self.totals.push(total);
            self.hints.push(hints.clone());
            true
        }
        fn kill_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
            self.killed.push(ids.to_vec());
            ids.to_vec()
        }
        fn decommission_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
            self.kill_executors(ids)
        }
    }

    fn settings(min: u32, max: u32) -> DynamicAllocationSettings {
        DynamicAllocationSettings {
            min_executors: min,
            max_executors: max,
            ..DynamicAllocationSettings::default()
        }
    }

    fn manager(min: u32, max: u32, initial: u32) -> ExecutorAllocationManager {
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        ExecutorAllocationManager::new(settings(min, max), initial, 1, 1, log)
    }

    fn e(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    // The listener queues task starts and ends and applies them, in order and at the times
    // they were posted, before anything reads the manager: ExecutorMonitor.onTaskEnd makes an
    // executor idle from its last task's end (ExecutorMonitor.scala, `updateRunningTasks`),
    // ExecutorAllocationListener.onTaskStart takes the index off the pending count.
    #[test]
    fn queued_task_events_apply_in_order_at_their_times_before_any_read() {
        let rt = clock::paused_runtime().expect("runtime");
        rt.block_on(async {
            clock::start(0);
            let l = AllocationListener::new(manager(0, 10, 1));
            l.manager().on_executor_added(e(1), 0);
            l.manager().on_stage_submitted(0, 0, 3, 0);
            let task = |index, kind| TaskEvent {
                stage_id: 0,
                stage_attempt_id: 0,
                index,
                speculative: false,
                executor: e(1),
                kind,
            };
            let end = TaskEventKind::End(TaskEndKind::Success);
            l.on_task(&task(0, TaskEventKind::Start));
            l.on_task(&task(1, TaskEventKind::Start));
            clock::advance(clock::ms(5_000)).await;
            l.on_task(&task(0, end));
            l.on_task(&task(1, end));
            assert_eq!(l.queued.borrow().len(), 4);
            let mut m = l.manager();
            assert!(l.queued.borrow().is_empty());
            // Two of three tasks started and ended: one pending, none running.
            assert_eq!(m.max_needed(), 1);
            // Idle from 5 s, the default 60 s timeout: out at 65 s, not at 60 s.
            assert!(m.monitor.timed_out_executors(64_999).is_empty());
            assert_eq!(m.monitor.timed_out_executors(65_000), vec![e(1)]);
        });
        // A full queue is applied without waiting for a read.
        let l = AllocationListener::new(manager(0, 10, 1));
        l.manager().on_stage_submitted(0, 0, 1_000, 0);
        for index in 0..QUEUED_TASKS as u32 + 10 {
            l.on_task(&TaskEvent {
                stage_id: 0,
                stage_attempt_id: 0,
                index,
                speculative: false,
                executor: e(1),
                kind: TaskEventKind::Start,
            });
        }
        assert_eq!(l.queued.borrow().len(), 10);
        assert_eq!(l.manager.borrow().running_tasks(), QUEUED_TASKS as u32);
        assert_eq!(l.manager().running_tasks(), QUEUED_TASKS as u32 + 10);
    }

    // ExecutorAllocationManagerSuite "add executors default profile": the backlog timer fires
    // after schedulerBacklogTimeout, then each sustained timeout adds 1, 2, 4... up to the need
    // and the maximum.
    #[test]
    fn ramps_up_exponentially_to_the_maximum() {
        let mut m = manager(0, 10, 1);
        let mut c = Client::default();
        m.on_stage_submitted(0, 0, 1000, 0);
        m.schedule(999, &mut c);
        assert_eq!(m.target(), 1);
        let mut targets = Vec::new();
        for t in [1_000, 2_000, 3_000, 4_000, 5_000] {
            m.schedule(t, &mut c);
            targets.push(m.target());
        }
        assert_eq!(targets, vec![2, 4, 8, 10, 10]);
        assert_eq!(c.totals, vec![2, 4, 8, 10]);
    }

    // ExecutorAllocationManagerSuite "add executors capped by num pending tasks".
    #[test]
    fn target_capped_by_pending_tasks() {
        let mut m = manager(0, 10, 0);
        let mut c = Client::default();
        m.on_stage_submitted(0, 0, 3, 0);
        for t in [1_000, 2_000, 3_000] {
            m.schedule(t, &mut c);
        }
        assert_eq!(m.target(), 3);
        // Tasks start: still needed (running); the queue is empty, so the add timer stops.
        for i in 0..3 {
            m.on_task_start(0, 0, i, false, e(1), true);
        }
        m.schedule(10_000, &mut c);
        assert_eq!(m.target(), 3);
        for i in 0..3 {
            m.on_task_end(0, 0, i, false, e(1), TaskEndKind::Success, 10_100);
        }
        m.on_stage_completed(0, 0);
        m.schedule(10_200, &mut c);
        assert_eq!(
            m.target(),
            0,
            "lowered to the minimum when nothing is needed"
        );
    }

    // ExecutorAllocationManagerSuite "executorAllocationRatio".
    #[test]
    fn allocation_ratio_scales_the_need() {
        let mut s = settings(0, 100);
        s.executor_allocation_ratio = 0.5;
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        let mut m = ExecutorAllocationManager::new(s, 0, 2, 1, log);
        m.on_stage_submitted(0, 0, 21, 0);
        assert_eq!(m.max_needed(), 6, "ceil(21 * 0.5 / 2)");
    }

    /// A manager of `cores`-core executors between `min` and `max`, starting at 0 (the suite's
    /// `createConf(min, max, 0).set(EXECUTOR_CORES, cores)`, whose timeouts are its object's
    /// `schedulerBacklogTimeout = 1`, `sustainedSchedulerBacklogTimeout = 2`,
    /// `executorIdleTimeout = 3` seconds: not Spark's defaults of 1, 1 and 60).
    fn manager_with_cores(min: u32, max: u32, cores: u32) -> ExecutorAllocationManager {
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        let s = DynamicAllocationSettings {
            scheduler_backlog_timeout_s: 1,
            sustained_scheduler_backlog_timeout_s: 2,
            executor_idle_timeout_s: 3,
            ..settings(min, max)
        };
        ExecutorAllocationManager::new(s, 0, cores, 1, log)
    }

    // ExecutorAllocationManagerSuite "SPARK-31418: one stage being unschedulable": an executor
    // of 2 cores runs the stage's 2 tasks; once the set is unschedulable (every executor
    // excluded for a task) the need is the executors there are plus one
    // (maxNumExecutorsNeededPerResourceProfile's `executorCountWithResourceProfile +
    // maxNeededForUnschedulables`), and the backlog timer (onUnschedulableTaskSetAdded calls
    // onSchedulerBacklogged) raises the target to it; once a task is scheduled again
    // (`...Removed`) the need and the target are 1 again.
    #[test]
    fn one_stage_being_unschedulable_asks_for_one_more_executor() {
        let mut m = manager_with_cores(0, 5, 2);
        let mut c = Client::default();
        m.on_stage_submitted(0, 0, 2, 0);
        m.schedule(1_000, &mut c);
        assert_eq!(m.target(), 1);
        m.on_executor_added(e(0), 1_000);
        for i in 0..2 {
            m.on_task_start(0, 0, i, false, e(0), true);
        }
        assert_eq!((m.target(), m.max_needed()), (1, 1));
        m.on_unschedulable_task_set_added(0, 0, 1_000);
        m.schedule(2_000, &mut c);
        assert_eq!((m.target(), m.max_needed()), (2, 2), "one more executor");
        m.on_executor_added(e(1), 2_000);
        m.on_unschedulable_task_set_removed(0, 0);
        m.schedule(3_000, &mut c);
        assert_eq!((m.target(), m.max_needed()), (1, 1));
        assert_eq!(c.totals, vec![1, 2, 1]);
    }

    // ExecutorAllocationManagerSuite "SPARK-31418: multiple stages being unschedulable": three
    // stages of 2 tasks on three 2-core executors; stage 0 completes and stages 1 and 2 become
    // unschedulable: ceil(2 sets / 2 tasks per executor) = 1 more executor than the 3 there
    // are. Once stage 1's set is schedulable again, stage 2's still asks for one beyond the 4,
    // but the target stays 4: the add at 3 s set the next add time a sustained backlog timeout
    // (the suite's 2 s) later (`updateAndSyncNumExecutorsTarget` adds only once `now >=
    // addTime`).
    #[test]
    fn multiple_stages_being_unschedulable() {
        let mut m = manager_with_cores(0, 10, 2);
        let mut c = Client::default();
        for stage in 0..3 {
            m.on_stage_submitted(stage, 0, 2, 0);
        }
        // The suite ramps up by calling addExecutors directly (1, then 2); here the backlog
        // timer does it: 1 executor at 1 s, 2 more after the sustained timeout.
        m.schedule(1_000, &mut c);
        m.schedule(3_000, &mut c);
        assert_eq!(m.target(), 3);
        for id in 0..3 {
            m.on_executor_added(e(id), 3_000);
        }
        for stage in 0..3 {
            for i in 0..2 {
                m.on_task_start(stage, 0, i, false, e(stage), true);
            }
        }
        assert_eq!((m.target(), m.max_needed()), (3, 3));
        for i in 0..2 {
            m.on_task_end(0, 0, i, false, e(0), TaskEndKind::Success, 3_000);
        }
        m.on_stage_completed(0, 0);
        m.on_unschedulable_task_set_added(1, 0, 3_000);
        m.on_unschedulable_task_set_added(2, 0, 3_000);
        m.schedule(4_000, &mut c);
        assert_eq!((m.target(), m.max_needed()), (4, 4));
        m.on_executor_added(e(3), 4_000);
        m.on_unschedulable_task_set_removed(1, 0);
        assert_eq!(m.max_needed(), 5, "4 executors, stage 2's set still waits");
        m.schedule(5_000, &mut c);
        assert_eq!((m.target(), m.max_needed()), (4, 5));
    }

    // ExecutorAllocationListener.pendingUnschedulableTaskSetsPerResourceProfile (Spark 4.0.0
    // jar: `resourceProfileIdToStageAttempt(rp).count(unschedulableTaskSets.contains)`): a set
    // counts only while the listener tracks its stage attempt. A set aborted by its
    // unschedulable timer hears no `...Removed` (TaskSchedulerImpl posts it only for a set
    // that launched); once its stage completes (failed) and its tasks ended, it asks for no
    // executor any more and the target falls back.
    #[test]
    fn an_aborted_unschedulable_stage_no_longer_asks_for_an_executor() {
        let mut m = manager_with_cores(0, 5, 2);
        let mut c = Client::default();
        m.on_stage_submitted(0, 0, 2, 0);
        m.schedule(1_000, &mut c);
        m.on_executor_added(e(0), 1_000);
        m.on_task_start(0, 0, 0, false, e(0), true);
        m.on_task_start(0, 0, 1, false, e(0), true);
        m.on_task_end(0, 0, 1, false, e(0), TaskEndKind::Failed, 1_000);
        m.on_unschedulable_task_set_added(0, 0, 1_000);
        m.schedule(2_000, &mut c);
        assert_eq!((m.target(), m.max_needed()), (2, 2));
        // The abort: the stage completes, its running task is killed.
        m.on_stage_completed(0, 0);
        assert_eq!(m.max_needed(), 2, "a task of the attempt still runs");
        m.on_task_end(0, 0, 0, false, e(0), TaskEndKind::Killed, 2_000);
        assert_eq!(m.max_needed(), 0);
        m.schedule(3_000, &mut c);
        assert_eq!(m.target(), 0);
    }

    // ExecutorAllocationManagerSuite "remove executors" / "interleaving add and remove": idle
    // executors above min and the target are killed; min is kept.
    #[test]
    fn removes_idle_executors_down_to_the_minimum() {
        let mut m = manager(1, 5, 3);
        let mut c = Client::default();
        for i in 1..=3 {
            m.on_executor_added(e(i), 0);
        }
        // Initializing: the target stays at 3 until an idle timeout passes.
        m.schedule(59_999, &mut c);
        assert!(c.killed.is_empty());
        m.schedule(60_000, &mut c);
        assert_eq!(m.target(), 1);
        assert_eq!(c.killed, vec![vec![e(1), e(2)]]);
        assert_eq!(c.totals, vec![1, 1]);
        assert_eq!(m.monitor.pending_removal_count(), 2);
        // Nothing is removed twice.
        m.schedule(70_000, &mut c);
        assert_eq!(c.killed.len(), 1);
    }

    // The per-attempt table stays sorted whatever order attempts arrive in (its lookups are
    // binary searches), and an attempt leaves it once nothing of it is left.
    #[test]
    fn stage_attempts_stay_sorted_and_leave_when_unused() {
        let mut t = StageAttempts::default();
        for key in [(3, 0), (1, 0), (3, 1), (2, 0)] {
            t.entry(key).running = key.0 * 10 + key.1;
        }
        let keys: Vec<(u32, u32)> = t.0.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, vec![(1, 0), (2, 0), (3, 0), (3, 1)]);
        assert_eq!(t.get_mut((3, 1)).map(|a| a.running), Some(31));
        t.remove((2, 0));
        assert!(t.get_mut((2, 0)).is_none());
        assert_eq!(
            t.values().map(|a| a.running).collect::<Vec<_>>(),
            vec![10, 30, 31]
        );
        let mut m = manager(0, 10, 0);
        m.on_stage_submitted(0, 0, 1, 0);
        m.on_task_start(0, 0, 0, false, e(1), true);
        m.on_stage_completed(0, 0);
        assert_eq!(m.stages.0.len(), 1, "a running task keeps its attempt");
        m.on_task_end(0, 0, 0, false, e(1), TaskEndKind::Success, 5);
        assert!(m.stages.0.is_empty());
    }

    // ExecutorAllocationManagerSuite "SPARK-8366: maxNumExecutorsNeeded should properly handle
    // failed tasks": a failure makes its index pending again.
    #[test]
    fn failed_tasks_are_pending_again() {
        let mut m = manager(0, 10, 0);
        m.on_stage_submitted(0, 0, 2, 0);
        m.on_task_start(0, 0, 0, false, e(1), true);
        m.on_task_start(0, 0, 1, false, e(1), true);
        assert_eq!(m.max_needed(), 2);
        m.on_task_end(0, 0, 0, false, e(1), TaskEndKind::Failed, 1);
        assert_eq!((m.pending_tasks(), m.running_tasks()), (1, 1));
        m.on_task_end(0, 0, 1, false, e(1), TaskEndKind::Killed, 1);
        assert_eq!((m.pending_tasks(), m.running_tasks()), (1, 0));
    }

    // ExecutorAllocationManagerSuite "add executors when speculative tasks added" and
    // SPARK-30511 (Spark 4.0 listener: stageAttemptToPendingSpeculativeTasks /
    // stageAttemptToSpeculativeTaskIndices): a submitted copy is pending, and counted by
    // maxNumExecutorsNeeded, until it starts; the original killed because its copy won does not
    // make its index pending again; a success before the copy started drops the copy.
    #[test]
    fn speculative_copies_count_until_they_start() {
        let mut m = manager(0, 10, 0);
        m.on_stage_submitted(0, 0, 2, 0);
        m.on_task_start(0, 0, 0, false, e(1), true);
        m.on_task_start(0, 0, 1, false, e(1), true);
        assert_eq!(m.max_needed(), 2);
        assert!(!m.has_pending_tasks());
        m.on_speculative_task_submitted(0, 0, 0, 10);
        assert_eq!(m.max_needed(), 3);
        assert!(m.has_pending_tasks());
        m.on_task_start(0, 0, 0, true, e(2), true);
        assert_eq!((m.pending_speculative_tasks(), m.running_tasks()), (0, 3));
        m.on_task_end(0, 0, 0, true, e(2), TaskEndKind::Success, 30);
        m.on_task_end(0, 0, 0, false, e(1), TaskEndKind::Killed, 31);
        assert_eq!((m.pending_tasks(), m.running_tasks()), (0, 1));
        m.on_speculative_task_submitted(0, 0, 1, 40);
        assert_eq!(m.max_needed(), 2);
        m.on_task_end(0, 0, 1, false, e(1), TaskEndKind::Success, 50);
        assert_eq!((m.pending_speculative_tasks(), m.max_needed()), (0, 0));
    }

    // maxNumExecutorsNeededPerResourceProfile: with several slots per executor, one executor
    // would hold every task, but a pending copy needs another host's executor: one more.
    #[test]
    fn a_pending_copy_needs_a_second_executor() {
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        let mut m = ExecutorAllocationManager::new(settings(0, 10), 0, 4, 1, log);
        m.on_stage_submitted(0, 0, 2, 0);
        m.on_task_start(0, 0, 0, false, e(1), true);
        m.on_task_start(0, 0, 1, false, e(1), true);
        assert_eq!(m.max_needed(), 1);
        m.on_speculative_task_submitted(0, 0, 1, 10);
        assert_eq!(m.max_needed(), 2);
    }

    // Utils.getDynamicAllocationInitialExecutors and the SparkException texts of validateSettings.
    #[test]
    fn initial_executors_and_validation() {
        let mut s = settings(2, 10);
        s.initial_executors = Some(1);
        let (n, lines) = initial_executors(&s, Some(4));
        assert_eq!(n, 4);
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1].1,
            "Using initial executors = 4, max of spark.dynamicAllocation.initialExecutors,spark.dynamicAllocation.minExecutors and spark.executor.instances"
        );
        assert_eq!(
            validate_settings(&settings(0, 0), 1, 1).unwrap_err(),
            "spark.dynamicAllocation.maxExecutors cannot be 0!"
        );
        assert_eq!(
            validate_settings(&settings(5, 2), 1, 1).unwrap_err(),
            "spark.dynamicAllocation.minExecutors (5) must be less than or equal to spark.dynamicAllocation.maxExecutors (2)!"
        );
        let mut no_tracking = settings(0, 2);
        no_tracking.shuffle_tracking_enabled = false;
        assert!(
            validate_settings(&no_tracking, 1, 1)
                .unwrap_err()
                .starts_with("Dynamic allocation of executors requires one of the following")
        );
        no_tracking.shuffle_service_enabled = true;
        assert_eq!(validate_settings(&no_tracking, 1, 1), Ok(vec![]));
        assert_eq!(
            validate_settings(&settings(0, 2), 1, 1).unwrap()[0].1,
            "Dynamic allocation is enabled without a shuffle service."
        );
    }

    fn prefs(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter()
            .map(|hosts| hosts.iter().map(|h| h.to_string()).collect())
            .collect()
    }

    fn counts(m: &ExecutorAllocationManager) -> Vec<(&str, u32)> {
        let h = &m.placement_hints().host_to_local_task_count;
        h.iter().map(|(k, v)| (k.as_str(), *v)).collect()
    }

    // ExecutorAllocationManagerSuite "get pending task number and related locality
    // preference": ExecutorAllocationListener.onStageSubmitted counts the tasks with a
    // preference and each host's tasks (updateExecutorPlacementHints sums the active stage
    // attempts), a completed stage's drop out, and every request carries the sums.
    #[test]
    fn pending_task_number_and_locality_preference() {
        let mut m = manager(2, 5, 3);
        let mut c = Client::default();
        m.on_stage_submitted(1, 0, 5, 0);
        m.on_stage_placement(
            1,
            0,
            &prefs(&[
                &["host1", "host2", "host3"],
                &["host1", "host2", "host4"],
                &["host2", "host3", "host4"],
                &[],
                &[],
            ]),
        );
        assert_eq!(m.placement_hints().num_locality_aware_tasks, 3);
        assert_eq!(
            counts(&m),
            vec![("host1", 2), ("host2", 3), ("host3", 2), ("host4", 2)]
        );
        m.on_stage_submitted(2, 0, 3, 0);
        m.on_stage_placement(
            2,
            0,
            &prefs(&[
                &["host2", "host3", "host5"],
                &["host3", "host4", "host5"],
                &[],
            ]),
        );
        assert_eq!(m.placement_hints().num_locality_aware_tasks, 5);
        assert_eq!(
            counts(&m),
            vec![
                ("host1", 2),
                ("host2", 4),
                ("host3", 4),
                ("host4", 3),
                ("host5", 2)
            ]
        );
        m.start(&mut c);
        assert_eq!(c.hints[0].num_locality_aware_tasks, 5);
        m.on_stage_completed(1, 0);
        assert_eq!(m.placement_hints().num_locality_aware_tasks, 2);
        assert_eq!(
            counts(&m),
            vec![("host2", 1), ("host3", 2), ("host4", 1), ("host5", 2)]
        );
        m.on_stage_completed(2, 0);
        assert_eq!(m.placement_hints(), &PlacementHints::default());
    }

    // YarnSchedulerBackendSuite "RequestExecutors reflects node excludelist and is
    // serializable": the request's hostToLocalTaskCount leaves out the excluded nodes.
    #[test]
    fn excluded_nodes_are_not_preferred_hosts() {
        let hints = PlacementHints {
            num_locality_aware_tasks: 3,
            host_to_local_task_count: [("a", 1), ("b", 2), ("d", 4)]
                .iter()
                .map(|(h, n)| (h.to_string(), *n))
                .collect(),
        };
        let excluded: BTreeSet<String> = ["a", "b", "c"].iter().map(|h| h.to_string()).collect();
        assert_eq!(hints.hosts_without(&excluded), vec![("d".to_string(), 4)]);
        assert_eq!(hints.hosts_without(&BTreeSet::new()).len(), 3);
    }
}

#[cfg(test)]
#[path = "executor_allocation_manager_suite_tests.rs"]
mod suite_tests;
