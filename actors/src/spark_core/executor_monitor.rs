//! Which executors dynamic allocation may remove for idleness: a plain state machine fed the
//! listener bus's events (task start/end, executor added/removed, job start/end), mirroring
//! Spark's `org.apache.spark.scheduler.dynalloc.ExecutorMonitor` (idle deadlines, pending
//! removal, decommissioning, shuffle tracking, the remove-reason statistics).
//!
//! Shuffle tracking follows Spark: an executor that finished a successful task of a shuffle-map
//! stage, or stored a shuffle data block migrated to it by a decommissioning peer, holds that
//! shuffle's data; while a running job uses the shuffle it is never idle, and
//! afterwards its deadline is `spark.dynamicAllocation.shuffleTracking.timeout` (forever by
//! default, since no ContextCleaner is simulated). The run's own record of where shuffle data
//! lives (the MapOutputTracker, built separately) is reached through [`ShuffleDataQuery`]; until
//! it exists the query answers `false`, and the invariant that no executor holding live shuffle
//! data is killed for idleness checks against it.

use crate::kernel::small_map::DenseMap;
use sparkyard_messages::ids::ExecutorId;
use std::collections::BTreeMap;

/// A time that never comes (`Long.MaxValue` in Spark).
pub const NEVER: u64 = u64::MAX;

/// "Does executor E hold shuffle data that someone may still fetch?" Answered by the
/// MapOutputTracker.
pub trait ShuffleDataQuery {
    fn holds_shuffle_data(&self, executor: ExecutorId) -> bool;
}

/// The timeouts and switches the monitor reads from the conf (milliseconds; [`NEVER`] = unset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonitorSettings {
    /// `spark.dynamicAllocation.executorIdleTimeout` (60 s).
    pub idle_timeout_ms: u64,
    /// `spark.dynamicAllocation.cachedExecutorIdleTimeout` (infinity).
    pub storage_timeout_ms: u64,
    /// `spark.dynamicAllocation.shuffleTracking.timeout` (infinity).
    pub shuffle_timeout_ms: u64,
    /// `!spark.shuffle.service.enabled && spark.dynamicAllocation.shuffleTracking.enabled`.
    pub shuffle_tracking: bool,
}

/// Why the removed executor went away, counted as Spark's `ExecutorAllocationManagerSource` does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemoveReasonStats {
    pub gracefully_decommissioned: u64,
    pub decommission_unfinished: u64,
    pub driver_killed: u64,
    pub exited_unexpectedly: u64,
}

/// How an `ExecutorRemoved` event's reason reads (`ExecutorLossMessage.decommissionFinished` or
/// an `ExecutorDecommission` message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemovedAs {
    DecommissionFinished,
    Other,
}

/// `Tracker`: one executor's state.
#[derive(Clone, Debug)]
struct Tracker {
    timeout_at: u64,
    timed_out: bool,
    pending_removal: bool,
    decommissioning: bool,
    has_active_shuffle: bool,
    /// `idleStart` (`None` = `-1`: running tasks).
    idle_start: Option<u64>,
    running_tasks: u32,
    /// The shuffles whose data this executor holds (few: a Vec).
    shuffle_ids: Vec<u32>,
    /// `cachedBlocks`: the cached partitions of each RDD this executor holds.
    cached_blocks: BTreeMap<u32, std::collections::BTreeSet<u32>>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            timeout_at: NEVER,
            timed_out: false,
            pending_removal: false,
            decommissioning: false,
            has_active_shuffle: false,
            idle_start: None,
            running_tasks: 0,
            shuffle_ids: Vec::new(),
            cached_blocks: BTreeMap::new(),
        }
    }
}

impl Tracker {
    fn is_idle(&self) -> bool {
        self.idle_start.is_some() && !self.has_active_shuffle
    }
}

/// A shuffle-map stage of a starting job and the shuffle it writes (`StageInfo.shuffleDepId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShuffleStage {
    pub stage_id: u32,
    pub shuffle_id: u32,
}

/// The ExecutorMonitor.
pub struct ExecutorMonitor {
    s: MonitorSettings,
    /// By id: executor ids are handed out in increasing order (a lookup is an index).
    executors: DenseMap<ExecutorId, Tracker>,
    /// When the next executor times out (`0` = recompute at the next call).
    next_timeout: u64,
    timed_out: Vec<ExecutorId>,
    shuffle_to_active_jobs: BTreeMap<u32, Vec<u32>>,
    stage_to_shuffle: BTreeMap<u32, u32>,
    job_to_stages: BTreeMap<u32, Vec<u32>>,
    pub stats: RemoveReasonStats,
}

impl ExecutorMonitor {
    pub fn new(s: MonitorSettings) -> Self {
        ExecutorMonitor {
            s,
            executors: DenseMap::default(),
            next_timeout: NEVER,
            timed_out: Vec::new(),
            shuffle_to_active_jobs: BTreeMap::new(),
            stage_to_shuffle: BTreeMap::new(),
            job_to_stages: BTreeMap::new(),
            stats: RemoveReasonStats::default(),
        }
    }

    /// `timedOutExecutors()`: rescans only when a deadline is due or an event invalidated the
    /// list; pending-removal, decommissioning and active-shuffle executors never time out.
    pub fn timed_out_executors(&mut self, now: u64) -> Vec<ExecutorId> {
        if now >= self.next_timeout {
            let mut next = NEVER;
            let mut out = Vec::new();
            for (id, e) in self.executors.iter_mut() {
                if e.pending_removal || e.has_active_shuffle || e.decommissioning {
                    continue;
                }
                if e.timeout_at > now {
                    next = next.min(e.timeout_at);
                    e.timed_out = false;
                } else {
                    e.timed_out = true;
                    out.push(id);
                }
            }
            // SPARK-38019 (Spark 4.0.0 jar: `timedOutExecs.sortBy(_._1)` with
            // `Ordering.String`): by the id's text, so "10" comes before "2"; the order decides
            // which executors removeExecutors keeps when min or the target stops it.
            out.sort_by_cached_key(|id| id.to_string());
            self.timed_out = out;
            self.next_timeout = next;
        }
        self.timed_out.clone()
    }

    /// `executorsKilled`: pending removal; the list is recomputed next time.
    pub fn executors_killed(&mut self, ids: &[ExecutorId]) {
        for id in ids {
            if let Some(e) = self.executors.get_mut(*id) {
                e.pending_removal = true;
            }
        }
        self.next_timeout = 0;
    }

    /// `executorsDecommissioned`.
    pub fn executors_decommissioned(&mut self, ids: &[ExecutorId]) {
        for id in ids {
            if let Some(e) = self.executors.get_mut(*id) {
                e.decommissioning = true;
            }
        }
        self.next_timeout = 0;
    }

    pub fn executor_count(&self) -> u32 {
        self.executors.len() as u32
    }

    pub fn pending_removal_count(&self) -> u32 {
        self.executors
            .values()
            .filter(|e| e.pending_removal)
            .count() as u32
    }

    pub fn decommissioning_count(&self) -> u32 {
        self.executors
            .values()
            .filter(|e| e.decommissioning)
            .count() as u32
    }

    /// `executorsPendingToRemove()`, in id order.
    #[cfg(test)]
    pub fn pending_removal_ids(&self) -> Vec<ExecutorId> {
        let pending = self.executors.iter().filter(|(_, e)| e.pending_removal);
        pending.map(|(id, _)| id).collect()
    }

    /// `executorsDecommissioning()`, in id order.
    #[cfg(test)]
    pub fn decommissioning_ids(&self) -> Vec<ExecutorId> {
        let decommissioning = self.executors.iter().filter(|(_, e)| e.decommissioning);
        decommissioning.map(|(id, _)| id).collect()
    }

    /// `isExecutorIdle`: no running task and no active shuffle.
    #[cfg(test)]
    pub fn is_executor_idle(&self, id: ExecutorId) -> bool {
        self.executors.get(id).is_some_and(Tracker::is_idle)
    }

    #[cfg(test)]
    pub fn is_tracked(&self, id: ExecutorId) -> bool {
        self.executors.contains(id)
    }

    /// Whether the executor holds data of a shuffle (any, active or not).
    #[cfg(test)]
    pub fn holds_shuffle(&self, id: ExecutorId) -> bool {
        self.executors
            .get(id)
            .is_some_and(|e| !e.shuffle_ids.is_empty())
    }

    /// `onJobStart` (Spark 4.0.0, javap: `stageInfos` flat-mapped by `shuffleDepId`): the job's
    /// shuffles become active, keyed by shuffle id (a later job's stage over an earlier job's
    /// shuffle has a new stage id and the same shuffle). A shuffle the monitor has seen before
    /// (`shuffleToActiveJobs.get(shuffle)` is `Some`, even with no job left: only a
    /// ShuffleCleanedEvent, which no ContextCleaner sends here, removes it) is a reuse: the
    /// executors holding its data become shuffle-busy again.
    pub fn on_job_start(&mut self, job_id: u32, shuffle_stages: &[ShuffleStage]) {
        if !self.s.shuffle_tracking {
            return;
        }
        let mut reused = false;
        for s in shuffle_stages {
            match self.shuffle_to_active_jobs.get_mut(&s.shuffle_id) {
                Some(jobs) => {
                    reused = true;
                    jobs.push(job_id);
                }
                None => {
                    self.shuffle_to_active_jobs
                        .insert(s.shuffle_id, vec![job_id]);
                }
            }
        }
        if reused {
            let mut changed = false;
            for e in self.executors.values_mut() {
                if !e.has_active_shuffle {
                    e.has_active_shuffle = shuffle_stages
                        .iter()
                        .any(|s| e.shuffle_ids.contains(&s.shuffle_id));
                    changed |= e.has_active_shuffle;
                }
            }
            if changed {
                self.next_timeout = 0;
            }
        }
        for s in shuffle_stages {
            self.stage_to_shuffle.insert(s.stage_id, s.shuffle_id);
        }
        let stages = shuffle_stages.iter().map(|s| s.stage_id).collect();
        self.job_to_stages.insert(job_id, stages);
    }

    /// `onJobEnd`: shuffles no running job uses any more stop keeping their executors busy.
    pub fn on_job_end(&mut self, job_id: u32, now: u64) {
        if !self.s.shuffle_tracking {
            return;
        }
        let mut went_idle = false;
        let mut active = Vec::new();
        for (shuffle, jobs) in self.shuffle_to_active_jobs.iter_mut() {
            jobs.retain(|j| *j != job_id);
            if jobs.is_empty() {
                went_idle = true;
            } else {
                active.push(*shuffle);
            }
        }
        if went_idle {
            let s = self.s;
            let mut next = self.next_timeout;
            for e in self.executors.values_mut() {
                if e.has_active_shuffle {
                    e.has_active_shuffle = active.iter().any(|a| e.shuffle_ids.contains(a));
                    if !e.has_active_shuffle && e.is_idle() {
                        update_timeout(e, &s, &mut next, now);
                    }
                }
            }
            self.next_timeout = next;
        }
        if let Some(stages) = self.job_to_stages.remove(&job_id) {
            for s in stages {
                self.stage_to_shuffle.remove(&s);
            }
        }
    }

    /// `onTaskStart` (only for an active executor: SPARK-26927). The executor now runs a
    /// task, so it has no idle start and the time is not needed (the scheduler posts one start
    /// per task: reading the clock would cost the task phase).
    #[inline]
    #[cfg(test)]
    pub fn on_task_start(&mut self, id: ExecutorId, executor_active: bool) {
        if executor_active {
            self.track_running(id, 1, NEVER);
        }
    }

    /// `onTaskStart` for an executor that is active exactly when tracked (the allocation
    /// listener applies task events before any later event): one lookup.
    #[inline]
    pub fn on_task_start_if_tracked(&mut self, id: ExecutorId) {
        let s = self.s;
        if let Some(e) = self.executors.get_mut(id) {
            update_running(e, 1, &s, &mut self.next_timeout, NEVER);
        }
    }

    /// `onTaskEnd`: a successful map task leaves shuffle data on its executor.
    #[inline]
    pub fn on_task_end(&mut self, id: ExecutorId, stage: u32, success: bool, now: u64) {
        let s = self.s;
        let Some(e) = self.executors.get_mut(id) else {
            return;
        };
        if s.shuffle_tracking
            && success
            && let Some(&shuffle) = self.stage_to_shuffle.get(&stage)
            && !e.shuffle_ids.contains(&shuffle)
        {
            e.shuffle_ids.push(shuffle);
            e.has_active_shuffle = true;
        }
        update_running(e, -1, &s, &mut self.next_timeout, now);
    }

    /// `onExecutorAdded`: tracked and idle from now; the new total.
    pub fn on_executor_added(&mut self, id: ExecutorId, now: u64) -> u32 {
        self.track_running(id, 0, now);
        self.executors.len() as u32
    }

    /// `onBlockUpdated` of an RDD block: the executor's first cached block moves its idle
    /// deadline to `spark.dynamicAllocation.cachedExecutorIdleTimeout`, and removing its last
    /// one moves it back (Spark updates the timeout only on those two changes).
    pub fn on_block_updated(&mut self, id: ExecutorId, rdd: u32, split: u32, stored: bool) {
        let s = self.s;
        let Some(e) = self.executors.get_mut(id) else {
            return;
        };
        let had_blocks = !e.cached_blocks.is_empty();
        if stored {
            e.cached_blocks.entry(rdd).or_default().insert(split);
        } else if let Some(blocks) = e.cached_blocks.get_mut(&rdd) {
            blocks.remove(&split);
            if blocks.is_empty() {
                e.cached_blocks.remove(&rdd);
            }
        }
        let has_blocks = !e.cached_blocks.is_empty();
        if had_blocks != has_blocks {
            update_timeout(e, &s, &mut self.next_timeout, NEVER);
        }
    }

    /// `onBlockUpdated` of a `ShuffleDataBlockId` (Spark 4.0.0, javap): an active executor
    /// (`client.isExecutorActive`) that stored a data block of `shuffle` (a map output migrated
    /// to it by a decommissioning peer: IndexShuffleBlockResolver reports the block DISK_ONLY and
    /// BlockManagerMasterEndpoint posts SparkListenerBlockUpdated for it) holds that shuffle,
    /// with shuffle tracking on: `Tracker.addShuffle`, which marks it as having an active
    /// shuffle (it is no idle candidate) and leaves its deadline alone; a job end that finds no
    /// running job using the shuffle lets `spark.dynamicAllocation.shuffleTracking.timeout`
    /// apply. `shuffle` is the block's shuffle id. An untracked executor is
    /// left alone, as RDD blocks are (an active executor is tracked from ExecutorAdded).
    pub fn on_shuffle_block_updated(&mut self, id: ExecutorId, shuffle: u32, active: bool) {
        if !active || !self.s.shuffle_tracking {
            return;
        }
        let Some(e) = self.executors.get_mut(id) else {
            return;
        };
        if !e.shuffle_ids.contains(&shuffle) {
            e.shuffle_ids.push(shuffle);
            e.has_active_shuffle = true;
        }
    }

    /// Whether the executor holds cached RDD blocks.
    #[cfg(test)]
    pub fn holds_cached_blocks(&self, id: ExecutorId) -> bool {
        self.executors
            .get(id)
            .is_some_and(|e| !e.cached_blocks.is_empty())
    }

    /// `onExecutorRemoved`: counts why it went; `false` for an executor never tracked.
    pub fn on_executor_removed(&mut self, id: ExecutorId, removed_as: RemovedAs) -> bool {
        let Some(e) = self.executors.remove(id) else {
            return false;
        };
        if removed_as == RemovedAs::DecommissionFinished {
            self.stats.gracefully_decommissioned += 1;
        } else if e.decommissioning {
            self.stats.decommission_unfinished += 1;
        } else if e.pending_removal {
            self.stats.driver_killed += 1;
        } else {
            self.stats.exited_unexpectedly += 1;
        }
        if !e.pending_removal || !e.decommissioning {
            self.next_timeout = 0;
        }
        true
    }

    /// `ensureExecutorIsTracked(id).updateRunningTasks(delta)` (and its timeout).
    fn track_running(&mut self, id: ExecutorId, delta: i32, now: u64) {
        let s = self.s;
        let e = self.executors.get_or_insert_default(id);
        update_running(e, delta, &s, &mut self.next_timeout, now);
    }
}

/// `Tracker.updateRunningTasks(delta)`, then its timeout.
#[inline]
fn update_running(e: &mut Tracker, delta: i32, s: &MonitorSettings, next: &mut u64, now: u64) {
    e.running_tasks = (i64::from(e.running_tasks) + i64::from(delta)).max(0) as u32;
    e.idle_start = (e.running_tasks == 0).then_some(now);
    update_timeout(e, s, next, now);
}

/// `Tracker.updateTimeout` (Spark 4.0.0 jar, SPARK-43398): the idle deadline is the idle start
/// plus the longest of the idle timeout, the storage timeout when the executor holds cached
/// blocks and the shuffle timeout when it holds shuffle data (with shuffle tracking), past the
/// end of time never; a later deadline for an executor thought timed out forces a rescan.
#[inline]
fn update_timeout(e: &mut Tracker, s: &MonitorSettings, next: &mut u64, _now: u64) {
    let old = e.timeout_at;
    let new = match e.idle_start {
        Some(start) => {
            let cached = !e.cached_blocks.is_empty();
            let shuffle = !e.shuffle_ids.is_empty() && s.shuffle_tracking;
            let storage_timeout = if cached { s.storage_timeout_ms } else { 0 };
            let shuffle_timeout = if shuffle { s.shuffle_timeout_ms } else { 0 };
            let timeout = storage_timeout.max(shuffle_timeout).max(s.idle_timeout_ms);
            start.saturating_add(timeout)
        }
        None => NEVER,
    };
    e.timeout_at = new;
    if new > old && e.timed_out {
        *next = 0;
    } else {
        *next = (*next).min(new);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: u64 = 60_000;

    fn monitor(shuffle_tracking: bool) -> ExecutorMonitor {
        ExecutorMonitor::new(MonitorSettings {
            idle_timeout_ms: IDLE,
            storage_timeout_ms: NEVER,
            shuffle_timeout_ms: NEVER,
            shuffle_tracking,
        })
    }

    fn e(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    fn shuffle(stage_id: u32, shuffle_id: u32) -> ShuffleStage {
        ShuffleStage {
            stage_id,
            shuffle_id,
        }
    }

    const STORAGE: u64 = 120_000;

    /// The suite's `timedOutExecutors(when)`: the idle executors whose deadline has passed at
    /// `when`, computed afresh (the monitor's own list is cached for a clock that only moves
    /// forward; these cases look at several instants).
    fn timed_out_at(m: &ExecutorMonitor, when: u64) -> Vec<ExecutorId> {
        (1..=4)
            .map(e)
            .filter(|id| {
                m.executors
                    .get(*id)
                    .is_some_and(|t| t.idle_start.is_some() && t.timeout_at <= when)
            })
            .collect()
    }

    fn caching_monitor() -> ExecutorMonitor {
        ExecutorMonitor::new(MonitorSettings {
            idle_timeout_ms: IDLE,
            storage_timeout_ms: STORAGE,
            shuffle_timeout_ms: NEVER,
            shuffle_tracking: false,
        })
    }

    // ExecutorMonitorSuite "use appropriate time out depending on whether blocks are stored"
    // (idle 60 s, cachedExecutorIdleTimeout 120 s as the suite sets them): a cached block moves
    // the idle executor's deadline to the storage timeout; removing it moves it back; a busy
    // executor stays busy whatever its blocks.
    #[test]
    fn the_time_out_depends_on_whether_blocks_are_stored() {
        let mut m = caching_monitor();
        m.on_executor_added(e(1), 0);
        assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
        m.on_block_updated(e(1), 1, 0, true);
        assert!(timed_out_at(&m, IDLE + 1).is_empty());
        assert_eq!(timed_out_at(&m, STORAGE + 1), vec![e(1)]);
        m.on_block_updated(e(1), 1, 0, false);
        assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
        m.on_task_start(e(1), true);
        m.on_block_updated(e(1), 1, 0, true);
        assert!(timed_out_at(&m, STORAGE + 1).is_empty());
        m.on_block_updated(e(1), 1, 0, false);
        assert!(timed_out_at(&m, STORAGE + 1).is_empty());
    }

    // ExecutorMonitorSuite "keeps track of stored blocks for each rdd and split": the storage
    // timeout holds until the executor's last block of every RDD is gone.
    #[test]
    fn stored_blocks_are_tracked_per_rdd_and_split() {
        let mut m = caching_monitor();
        m.on_executor_added(e(1), 0);
        m.on_block_updated(e(1), 1, 0, true);
        m.on_block_updated(e(1), 1, 1, true);
        m.on_block_updated(e(1), 2, 0, true);
        assert!(timed_out_at(&m, IDLE + 1).is_empty());
        assert_eq!(timed_out_at(&m, STORAGE + 1), vec![e(1)]);
        m.on_block_updated(e(1), 1, 0, false);
        assert!(timed_out_at(&m, IDLE + 1).is_empty());
        m.on_block_updated(e(1), 1, 1, false);
        assert!(timed_out_at(&m, IDLE + 1).is_empty());
        assert!(m.holds_cached_blocks(e(1)));
        m.on_block_updated(e(1), 2, 0, false);
        assert!(!m.holds_cached_blocks(e(1)));
        assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
    }

    // ExecutorMonitorSuite "basic executor timeout": idle from registration, busy while a task
    // runs, idle again after it ends.
    #[test]
    fn basic_executor_timeout() {
        let mut m = monitor(false);
        m.on_executor_added(e(1), 0);
        assert!(m.timed_out_executors(IDLE - 1).is_empty());
        m.on_task_start(e(1), true);
        assert!(m.timed_out_executors(IDLE + 1).is_empty());
        m.on_task_end(e(1), 0, true, 2_000);
        assert!(m.timed_out_executors(2_000 + IDLE - 1).is_empty());
        assert_eq!(m.timed_out_executors(2_000 + IDLE), vec![e(1)]);
    }

    // ExecutorMonitorSuite "SPARK-26927: ignore late task start for removed executor".
    #[test]
    fn late_task_start_for_inactive_executor_is_ignored() {
        let mut m = monitor(false);
        m.on_task_start(e(3), false);
        assert!(!m.is_tracked(e(3)));
    }

    // ExecutorMonitorSuite "keeps track of pending removals" and the remove-reason statistics.
    #[test]
    fn killed_executors_do_not_time_out_again_and_count_as_driver_killed() {
        let mut m = monitor(false);
        m.on_executor_added(e(1), 0);
        m.on_executor_added(e(2), 0);
        assert_eq!(m.timed_out_executors(IDLE), vec![e(1), e(2)]);
        m.executors_killed(&[e(1)]);
        assert_eq!(m.timed_out_executors(IDLE), vec![e(2)]);
        assert_eq!(m.pending_removal_count(), 1);
        assert!(m.on_executor_removed(e(1), RemovedAs::Other));
        assert!(m.on_executor_removed(e(2), RemovedAs::Other));
        assert!(!m.on_executor_removed(e(2), RemovedAs::Other));
        assert_eq!(
            m.stats,
            RemoveReasonStats {
                driver_killed: 1,
                exited_unexpectedly: 1,
                ..Default::default()
            }
        );
    }

    // ExecutorMonitorSuite "shuffle block tracking": an executor with data of an active shuffle
    // is never idle; when the job ends the shuffle timeout (infinite by default) applies.
    #[test]
    fn shuffle_tracking_keeps_executors_with_shuffle_data() {
        let mut m = monitor(true);
        m.on_executor_added(e(1), 0);
        m.on_executor_added(e(2), 0);
        m.on_job_start(1, &[shuffle(0, 0)]);
        m.on_task_start(e(1), true);
        m.on_task_end(e(1), 0, true, 20);
        assert!(m.holds_shuffle(e(1)));
        assert_eq!(m.timed_out_executors(10 * IDLE), vec![e(2)]);
        m.on_job_end(1, 30);
        assert_eq!(m.timed_out_executors(100 * IDLE), vec![e(2)]);
        // Without shuffle tracking the same executor times out.
        let mut plain = monitor(false);
        plain.on_executor_added(e(1), 0);
        plain.on_job_start(1, &[shuffle(0, 0)]);
        plain.on_task_start(e(1), true);
        plain.on_task_end(e(1), 0, true, 20);
        assert_eq!(plain.timed_out_executors(20 + IDLE), vec![e(1)]);
    }

    // ExecutorMonitorSuite "shuffle block tracking" (idle 60 s, storage 120 s, shuffle 240 s as
    // the suite sets them; its ContextCleaner steps left out, none is simulated): jobs 2 and 3
    // share shuffle 1 through different stages (3 and 5: Spark keys the active jobs by
    // `StageInfo.shuffleDepId`), so job 3's start makes the executor holding shuffle 1's data
    // shuffle-busy again though no task of stage 5 ran; a failed map task leaves no data.
    #[test]
    fn a_shuffle_shared_by_later_jobs_keeps_its_executor_busy() {
        const SHUFFLE: u64 = 240_000;
        let mut m = ExecutorMonitor::new(MonitorSettings {
            idle_timeout_ms: IDLE,
            storage_timeout_ms: STORAGE,
            shuffle_timeout_ms: SHUFFLE,
            shuffle_tracking: true,
        });
        m.on_job_start(1, &[shuffle(1, 0)]);
        m.on_job_start(2, &[shuffle(3, 1)]);
        m.on_executor_added(e(1), 0);
        assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
        m.on_task_start(e(1), true);
        m.on_task_end(e(1), 1, false, 0);
        assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
        m.on_task_start(e(1), true);
        m.on_task_end(e(1), 1, true, 0);
        m.on_task_start(e(1), true);
        m.on_task_end(e(1), 3, true, 0);
        assert!(m.timed_out_executors(IDLE + 1).is_empty());
        m.on_job_end(1, 0);
        assert!(
            m.timed_out_executors(STORAGE + 1).is_empty(),
            "job 2 still uses shuffle 1"
        );
        m.on_job_end(2, 0);
        assert_eq!(m.timed_out_executors(SHUFFLE + 1), vec![e(1)]);
        m.on_job_start(3, &[shuffle(5, 1)]);
        assert!(m.timed_out_executors(SHUFFLE + 1).is_empty());
        m.on_job_end(3, 0);
        assert_eq!(m.timed_out_executors(SHUFFLE + 1), vec![e(1)]);
    }

    // ExecutorMonitor.onBlockUpdated of a ShuffleDataBlockId (Spark 4.0.0 jar; no suite case):
    // with shuffle tracking, executor 2, which ran no map task, receives a migrated data block
    // of shuffle 0 while job 1 runs: Tracker.addShuffle makes it shuffle-busy (no idle
    // timeout), and after the job its deadline is the shuffle timeout (infinite here), as for
    // an executor that wrote the shuffle itself. A second block of the same shuffle changes
    // nothing; an inactive executor (client.isExecutorActive false) is not touched; without
    // shuffle tracking the block does not count.
    #[test]
    fn a_migrated_shuffle_data_block_keeps_its_receiver() {
        let mut m = monitor(true);
        m.on_executor_added(e(1), 0);
        m.on_executor_added(e(2), 0);
        m.on_executor_added(e(3), 0);
        m.on_job_start(1, &[shuffle(0, 0)]);
        m.on_shuffle_block_updated(e(2), 0, true);
        m.on_shuffle_block_updated(e(2), 0, true);
        m.on_shuffle_block_updated(e(3), 0, false);
        assert!(m.holds_shuffle(e(2)) && !m.holds_shuffle(e(3)));
        assert_eq!(m.timed_out_executors(IDLE), vec![e(1), e(3)]);
        m.on_job_end(1, 30);
        assert_eq!(m.timed_out_executors(100 * IDLE), vec![e(1), e(3)]);

        let mut plain = monitor(false);
        plain.on_executor_added(e(2), 0);
        plain.on_job_start(1, &[shuffle(0, 0)]);
        plain.on_shuffle_block_updated(e(2), 0, true);
        assert!(!plain.holds_shuffle(e(2)));
        assert_eq!(plain.timed_out_executors(IDLE), vec![e(2)]);
    }

    // ExecutorMonitorSuite "SPARK-4951, SPARK-26927: handle out of order task start events":
    // decommissioning executors are not idle candidates.
    #[test]
    fn decommissioning_executors_never_time_out() {
        let mut m = monitor(false);
        m.on_executor_added(e(1), 0);
        m.executors_decommissioned(&[e(1)]);
        assert!(m.timed_out_executors(10 * IDLE).is_empty());
        m.on_executor_removed(e(1), RemovedAs::DecommissionFinished);
        assert_eq!(m.stats.gracefully_decommissioned, 1);
    }
}

#[cfg(test)]
#[path = "executor_monitor_suite_tests.rs"]
mod suite_tests;
