//! Speculative execution (Spark 4.0: `scheduler/TaskSetManager.scala` checkSpeculatableTasks,
//! checkAndSubmitSpeculatableTasks, dequeueTask's speculative half, handleSuccessfulTask's kill of
//! the other attempts and `killedByOtherAttempt`; `TaskSchedulerImpl`'s speculation thread;
//! `util/collection/PercentileHeap`): the state a TaskSetManager and TaskSchedulerImpl keep for
//! it, and the set-level decisions over that state. Nothing here exists when `spark.speculation`
//! is off: TaskSchedulerImpl holds `None` and every hook is one `Option` test. The
//! TaskSetManager calls in; nothing here calls out.

use super::events::{RunningTask, TsKey};
use super::locality::TaskLocality;
use crate::world::config::SpeculationSettings;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::rc::Rc;

/// `TaskSchedulerImpl`'s speculation state: the settings and the task sets it checks.
pub(super) struct Speculation {
    pub(super) settings: SpeculationSettings,
    /// Task sets not yet zombie, checked every `spark.speculation.interval`.
    pub(super) active: BTreeSet<TsKey>,
}

impl Speculation {
    pub(super) fn new(settings: SpeculationSettings) -> Self {
        Speculation {
            settings,
            active: BTreeSet::new(),
        }
    }
}

/// `PercentileHeap(0.5)` (Spark 4.0, which replaced `MedianHeap`): the smaller half in a max
/// heap, the rest in a min heap; the percentile is the min heap's top, so of an even count the
/// upper of the two middle values.
#[derive(Default)]
pub(super) struct PercentileHeap {
    small: BinaryHeap<u64>,
    large: BinaryHeap<Reverse<u64>>,
}

impl PercentileHeap {
    pub(super) fn len(&self) -> usize {
        self.small.len() + self.large.len()
    }

    /// `insert`, as PercentileHeap.insert balances its two heaps.
    pub(super) fn insert(&mut self, x: u64) {
        let Some(&Reverse(p)) = self.large.peek() else {
            self.large.push(Reverse(x));
            return;
        };
        let grow_small = ((self.len() + 1) as f64 * 0.5) as usize > self.small.len();
        if grow_small {
            if x < p {
                self.small.push(x);
            } else {
                self.large.push(Reverse(x));
                let Reverse(top) = self.large.pop().expect("just pushed");
                self.small.push(top);
            }
        } else if x < p {
            self.small.push(x);
            let top = self.small.pop().expect("just pushed");
            self.large.push(Reverse(top));
        } else {
            self.large.push(Reverse(x));
        }
    }

    pub(super) fn percentile(&self) -> Option<u64> {
        self.large.peek().map(|r| r.0)
    }
}

/// One attempt of a task (`TaskInfo`): what `hasAttemptOnHost` and the kill of the other
/// attempts read.
pub(super) struct Attempt {
    pub(super) task_id: TaskId,
    pub(super) attempt: u32,
    pub(super) executor_id: ExecutorId,
    pub(super) host: Rc<str>,
    launch_ms: u64,
    running: bool,
}

/// A TaskSetManager's speculation state (only when speculation is on).
pub(super) struct TaskSetSpeculation {
    /// `minFinishedForSpeculation`: max(floor(quantile x numTasks), 1).
    min_finished: usize,
    /// `successfulTaskDurations`.
    durations: PercentileHeap,
    /// `runningTasksSet`: running attempt -> its task index.
    running: BTreeMap<TaskId, u32>,
    /// `taskAttempts`, newest first.
    attempts: Vec<Vec<Attempt>>,
    /// `speculatableTasks`.
    speculatable: BTreeSet<u32>,
    /// `pendingSpeculatableTasks`, as one stack taken from its end: each of Spark's lists
    /// (forHost, noPrefs, forRack, all) is this stack filtered by the task's preferences, since
    /// `addPendingTask(index, speculatable = true)` appends to all of them at once.
    pub(super) pending: Vec<u32>,
    /// `killedByOtherAttempt`.
    killed_by_other_attempt: BTreeSet<TaskId>,
}

impl TaskSetSpeculation {
    pub(super) fn new(num_tasks: usize, s: &SpeculationSettings) -> Self {
        TaskSetSpeculation {
            min_finished: ((s.quantile * num_tasks as f64).floor() as usize).max(1),
            durations: PercentileHeap::default(),
            running: BTreeMap::new(),
            attempts: (0..num_tasks).map(|_| Vec::new()).collect(),
            speculatable: BTreeSet::new(),
            pending: Vec::new(),
            killed_by_other_attempt: BTreeSet::new(),
        }
    }

    /// `resourceOffer`'s bookkeeping of a launch (`runningTasksSet`, `taskAttempts`).
    pub(super) fn on_launch(&mut self, index: u32, task: &RunningTask) {
        let i = index as usize;
        self.running.insert(task.task_id, index);
        self.attempts[i].insert(
            0,
            Attempt {
                task_id: task.task_id,
                attempt: task.attempt,
                executor_id: task.executor_id,
                host: task.host.clone(),
                launch_ms: task.launch_ms,
                running: true,
            },
        );
    }

    /// An attempt ended (any way): `removeRunningTask` (the set's `copiesRunning` follows in
    /// `task_ended`).
    pub(super) fn on_end(&mut self, tid: TaskId, index: u32) {
        self.running.remove(&tid);
        let i = index as usize;
        if let Some(a) = self.attempts[i].iter_mut().find(|a| a.task_id == tid) {
            a.running = false;
        }
    }

    fn has_attempt_on_host(&self, index: u32, host: &str) -> bool {
        self.attempts[index as usize]
            .iter()
            .any(|a| &*a.host == host)
    }

    /// `killedByOtherAttempt.contains(tid)`.
    pub(super) fn killed_by_other_attempt(&self, tid: TaskId) -> bool {
        self.killed_by_other_attempt.contains(&tid)
    }

    /// `handleSuccessfulTask`'s first check: a success of an attempt killed because another
    /// succeeded (`successful` = its task already has a success) is handled as
    /// `TaskKilled("Finish but did not commit due to another attempt succeeded")`. Returns the
    /// reason when it is.
    pub(super) fn late_success(&mut self, task: &RunningTask, successful: bool) -> Option<String> {
        if !successful || !self.killed_by_other_attempt.contains(&task.task_id) {
            return None;
        }
        self.on_end(task.task_id, task.index);
        Some(FINISHED_BUT_NOT_COMMITTED.to_string())
    }

    /// `handleSuccessfulTask`: the duration joins `successfulTaskDurations`, and every other
    /// running attempt of the task is to be killed (each marked `killedByOtherAttempt`).
    pub(super) fn task_succeeded(&mut self, task: &RunningTask, duration_ms: u64) -> Vec<&Attempt> {
        self.durations.insert(duration_ms);
        self.on_end(task.task_id, task.index);
        let attempts = &self.attempts[task.index as usize];
        for a in attempts.iter().filter(|a| a.running) {
            self.killed_by_other_attempt.insert(a.task_id);
        }
        attempts.iter().filter(|a| a.running).collect()
    }

    /// `checkSpeculatableTasks`' threshold for a set of `num_tasks`: with enough successes
    /// (`minFinishedForSpeculation`), max(multiplier x the median duration, minTaskRuntime);
    /// before, `spark.speculation.task.duration.threshold` for a stage no larger than one
    /// executor's slots (SPARK-29976). With the threshold, whether it is the customized one.
    pub(super) fn threshold(
        &self,
        num_tasks: usize,
        s: &SpeculationSettings,
    ) -> Option<(f64, bool)> {
        // isSpeculationThresholdSpecified: the threshold is set and > 0.
        let fixed = s.task_duration_threshold_ms.filter(|&t| t > 0);
        if num_tasks == 1 && fixed.is_none() {
            return None;
        }
        if self.durations.len() >= self.min_finished {
            let median = self.durations.percentile().unwrap_or(0) as f64;
            return Some((
                (s.multiplier * median).max(s.min_task_runtime_ms as f64),
                false,
            ));
        }
        match fixed {
            // speculationTasksLessEqToSlots: a stage no larger than one executor's slots.
            Some(t) if num_tasks <= s.slots_per_executor as usize => Some((t as f64, true)),
            _ => None,
        }
    }

    /// `checkAndSubmitSpeculatableTasks`: every running attempt that is the only copy of an
    /// unfinished task and ran longer than the threshold (and, with
    /// `spark.speculation.efficiency.enabled` and no customized threshold, is inefficient), or
    /// runs on a decommissioning executor it would not finish on before the kill
    /// (`shouldSpeculateForExecutorDecommissioning`), is marked speculatable and its task queued
    /// for a copy. `kill_time` is each executor's `startTime + executorDecommissionKillInterval`
    /// (none unless it decommissions and the interval is set). Returns each marked task's index,
    /// the host its attempt runs on and the count of speculatable tasks after it.
    pub(super) fn mark_speculatable(
        &mut self,
        successful: &[bool],
        copies_running: &[u16],
        now_ms: u64,
        (threshold, customized): (f64, bool),
        settings: &SpeculationSettings,
        kill_time: impl Fn(ExecutorId) -> Option<u64>,
    ) -> Vec<(u32, Rc<str>, usize)> {
        let median = self.durations.percentile();
        let mut marked = Vec::new();
        for (&tid, &index) in &self.running {
            let i = index as usize;
            if successful[i] || copies_running[i] != 1 || self.speculatable.contains(&index) {
                continue;
            }
            let Some(a) = self.attempts[i].iter().find(|a| a.task_id == tid) else {
                continue;
            };
            let runtime = now_ms.saturating_sub(a.launch_ms) as f64;
            let slow =
                runtime > threshold && (customized || may_speculate(settings, runtime, threshold));
            let killed_first = !customized
                && median
                    .is_some_and(|m| ends_after_kill(a.launch_ms, m, kill_time(a.executor_id)));
            if slow || killed_first {
                let host = a.host.clone();
                self.pending.push(index);
                self.speculatable.insert(index);
                marked.push((index, host, self.speculatable.len()));
            }
        }
        marked
    }
}

/// A kill of the losing attempt: `backend.killTask(tid, execId, interruptThread = true,
/// reason = "another attempt succeeded")`.
pub(super) const ANOTHER_ATTEMPT_SUCCEEDED: &str = "another attempt succeeded";
/// handleSuccessfulTask: a killed attempt's late success is handled as this kill.
const FINISHED_BUT_NOT_COMMITTED: &str =
    "Finish but did not commit due to another attempt succeeded";

/// dequeueTaskHelper's speculative lists in order, with the level each reports.
pub(super) const SPECULATIVE_LISTS: [(TaskLocality, TaskLocality); 5] = [
    (TaskLocality::ProcessLocal, TaskLocality::ProcessLocal),
    (TaskLocality::NodeLocal, TaskLocality::NodeLocal),
    (TaskLocality::NoPref, TaskLocality::ProcessLocal),
    (TaskLocality::RackLocal, TaskLocality::RackLocal),
    (TaskLocality::Any, TaskLocality::Any),
];

impl TaskSetSpeculation {
    /// `dequeueTaskFromList(speculative = true)` on the list `in_list` selects: from the end, an
    /// entry with an attempt on this host stays (`hasAttemptOnHost`); the first other one is
    /// removed, and returned if it can still run a copy (not successful, at most one copy
    /// running). One stack stands for all lists, so an entry dropped here is dropped from all.
    pub(super) fn take(
        &mut self,
        host: &str,
        in_list: impl Fn(u32) -> bool,
        launchable: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let mut at = self.pending.len();
        while at > 0 {
            at -= 1;
            let index = self.pending[at];
            if !in_list(index) || self.has_attempt_on_host(index, host) {
                continue;
            }
            self.pending.remove(at);
            if launchable(index) {
                self.speculatable.remove(&index);
                return Some(index);
            }
        }
        None
    }
}

/// `shouldSpeculateForExecutorDecommissioning`'s test (Spark 4.0.0, as doubles): the kill time
/// is before the attempt's expected end, its launch plus the median successful duration.
fn ends_after_kill(launch_ms: u64, median_ms: u64, kill_time: Option<u64>) -> bool {
    kill_time.is_some_and(|kill| (kill as f64) < launch_ms as f64 + median_ms as f64)
}

/// `checkMaySpeculate` with a calculator (efficiency on): `isInefficient` = the runtime passed
/// `longRunTaskFactor x threshold`, or the task's process rate is below `processRateMultiplier x`
/// the stage's average. sparkyard's heartbeats carry no task metrics, so a running task's rate
/// is never reported: Spark's `getRunningTasksProcessRate` default, 0.0, which is below any
/// average (Spark's average starts at Double.MaxValue), as in Spark before a task's first
/// heartbeat.
fn may_speculate(s: &SpeculationSettings, runtime: f64, threshold: f64) -> bool {
    if !s.efficiency_enabled {
        return true;
    }
    let running_rate = 0.0;
    let average_rate = f64::MAX;
    runtime > s.efficiency_long_run_task_factor * threshold
        || running_rate < average_rate * s.efficiency_process_rate_multiplier
}
