//! Speculative execution (Spark 4.0: `scheduler/TaskSetManager.scala` checkSpeculatableTasks,
//! checkAndSubmitSpeculatableTasks, dequeueTask's speculative half, handleSuccessfulTask's kill of
//! the other attempts and `killedByOtherAttempt`; `TaskSchedulerImpl`'s speculation thread;
//! `util/collection/PercentileHeap`). Nothing here exists when `spark.speculation` is off: the
//! scheduler holds `None` and every hook is one `Option` test.

use super::locality::{TaskLocality, Topology};
use super::task_set_manager::{Dequeued, TaskSetManager};
use super::*;
use crate::world::config::SpeculationSettings;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

/// `TaskSchedulerImpl`'s speculation state: the settings and the task sets it checks.
pub(super) struct Speculation {
    pub(super) settings: SpeculationSettings,
    /// Task sets not yet zombie, checked every `spark.speculation.interval`.
    active: BTreeSet<TsKey>,
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
struct Attempt {
    task_id: TaskId,
    attempt: u32,
    executor_id: ExecutorId,
    host: Rc<str>,
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
    fn on_end(&mut self, tid: TaskId, index: u32) {
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
}

/// Java's `Double.toString` (what an MDC of a Double prints): `3084.0`, `1.5E7`.
pub(super) fn java_double(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e7 {
        return format!("{v:.1}");
    }
    if v.abs() >= 1e7 {
        let s = format!("{v:E}");
        return match s.split_once('E') {
            Some((m, e)) if !m.contains('.') => format!("{m}.0E{e}"),
            _ => s,
        };
    }
    v.to_string()
}

/// A kill of the losing attempt: `backend.killTask(tid, execId, interruptThread = true,
/// reason = "another attempt succeeded")`.
const ANOTHER_ATTEMPT_SUCCEEDED: &str = "another attempt succeeded";
/// handleSuccessfulTask: a killed attempt's late success is handled as this kill.
const FINISHED_BUT_NOT_COMMITTED: &str =
    "Finish but did not commit due to another attempt succeeded";

impl Scheduler {
    /// Speculation on (`spark.speculation`): set before the first job.
    pub fn with_speculation(mut self, settings: Option<SpeculationSettings>) -> Self {
        self.speculation = settings.map(|s| Box::new(Speculation::new(s)));
        self
    }

    /// `spark.speculation.interval` when speculation is on.
    pub fn speculation_interval_ms(&self) -> Option<u64> {
        self.speculation.as_ref().map(|s| s.settings.interval_ms)
    }

    /// A new task set's speculation state (`None` when speculation is off).
    pub(super) fn speculation_for_new_set(&mut self, key: TsKey, num_tasks: usize) {
        let Some(spec) = self.speculation.as_mut() else {
            return;
        };
        spec.active.insert(key);
        let state = TaskSetSpeculation::new(num_tasks, &spec.settings);
        if let Some(tsm) = self.task_sets.get_mut(&key) {
            tsm.spec = Some(Box::new(state));
        }
    }

    /// `resourceOffer`'s bookkeeping of a launch (`copiesRunning`, `taskAttempts`); a launch
    /// while another copy runs is the speculative one.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn speculation_on_launch(&mut self, key: TsKey, index: u32, tid: TaskId) {
        let Some(task) = self.running.get(tid) else {
            return;
        };
        if let Some(spec) = self.task_sets.get_mut(&key).and_then(|t| t.spec.as_mut()) {
            spec.on_launch(index, task);
        }
    }

    /// Whether the attempt was killed because another attempt of its task succeeded.
    pub(super) fn killed_by_other_attempt(&self, task: &RunningTask) -> bool {
        self.task_sets
            .get(&task.key)
            .and_then(|t| t.spec.as_ref())
            .is_some_and(|s| s.killed_by_other_attempt.contains(&task.task_id))
    }

    /// An attempt ended without success (failure, kill, executor loss).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn speculation_task_failed(&mut self, task: &RunningTask) {
        if let Some(spec) = self
            .task_sets
            .get_mut(&task.key)
            .and_then(|t| t.spec.as_mut())
        {
            spec.on_end(task.task_id, task.index);
        }
    }

    /// `handleSuccessfulTask`'s first check: a success of an attempt killed because another
    /// succeeded is handled as `TaskKilled("Finish but did not commit due to another attempt
    /// succeeded")`. Returns the reason when it is.
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn speculation_late_success(&mut self, task: &RunningTask) -> Option<String> {
        let tsm = self.task_sets.get_mut(&task.key)?;
        let spec = tsm.spec.as_mut()?;
        if !tsm.successful[task.index as usize]
            || !spec.killed_by_other_attempt.contains(&task.task_id)
        {
            return None;
        }
        spec.on_end(task.task_id, task.index);
        Some(FINISHED_BUT_NOT_COMMITTED.to_string())
    }

    /// `handleSuccessfulTask`: the duration joins `successfulTaskDurations`, and every other
    /// running attempt of the task is killed (`Killing attempt A for task N.A in stage S.A (TID
    /// T) on HOST as the attempt B succeeded on HOST`, Spark 4.0's text from its jar).
    // Off the per-task path: out of line, so it does not crowd the instruction cache.
    #[cold]
    #[inline(never)]
    pub(super) fn speculation_task_succeeded(
        &mut self,
        task: &RunningTask,
        events: &mut Vec<SchedulerEvent>,
    ) {
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return;
        };
        let stage_attempt = tsm.stage_attempt;
        let Some(spec) = tsm.spec.as_mut() else {
            return;
        };
        spec.durations
            .insert(clock::now_ms().saturating_sub(task.launch_ms));
        spec.on_end(task.task_id, task.index);
        for a in spec.attempts[task.index as usize]
            .iter()
            .filter(|a| a.running)
        {
            info!(
                self.log,
                TSM,
                "Killing attempt {} for task {}.{} in stage {}.{stage_attempt} (TID {}) on {} as the attempt {} succeeded on {}",
                a.attempt,
                task.index,
                a.attempt,
                task.key.1,
                a.task_id,
                a.host,
                task.attempt,
                task.host
            );
            spec.killed_by_other_attempt.insert(a.task_id);
            events.push(SchedulerEvent::KillTask {
                task_id: a.task_id,
                executor_id: a.executor_id,
                interrupt_thread: true,
                reason: ANOTHER_ATTEMPT_SUCCEEDED.to_string(),
            });
        }
    }

    /// `TaskSchedulerImpl.checkSpeculatableTasks` (every `spark.speculation.interval`):
    /// `rootPool.checkSpeculatableTasks(MIN_TIME_TO_SPECULATION)` over the running task sets;
    /// true when a task was marked (the backend then revives offers).
    pub fn check_speculatable_tasks(&mut self) -> bool {
        let Some(spec) = self.speculation.as_ref() else {
            return false;
        };
        let keys: Vec<TsKey> = spec.active.iter().copied().collect();
        let mut found = false;
        for key in keys {
            found |= self.check_task_set(key);
        }
        found
    }

    /// `TaskSetManager.checkSpeculatableTasks(minTimeToSpeculation)` for one set.
    fn check_task_set(&mut self, key: TsKey) -> bool {
        let settings = self.speculation.as_ref().expect("checked").settings;
        let Some(tsm) = self.task_sets.get(&key) else {
            return false;
        };
        if tsm.zombie {
            let spec = self.speculation.as_mut().expect("checked");
            spec.active.remove(&key);
            return false;
        }
        let Some(state) = tsm.spec.as_ref() else {
            return false;
        };
        let num_tasks = tsm.successful.len();
        // isSpeculationThresholdSpecified: the threshold is set and > 0.
        let fixed = settings.task_duration_threshold_ms.filter(|&t| t > 0);
        if num_tasks == 1 && fixed.is_none() {
            return false;
        }
        let min_time = settings.min_task_runtime_ms as f64;
        if state.durations.len() >= state.min_finished {
            let median = state.durations.percentile().unwrap_or(0) as f64;
            let threshold = (settings.multiplier * median).max(min_time);
            self.submit_speculatable_tasks(key, threshold, false)
        } else if let Some(t) = fixed
            && num_tasks <= settings.slots_per_executor as usize
        {
            // speculationTasksLessEqToSlots: a stage no larger than one executor's slots.
            self.submit_speculatable_tasks(key, t as f64, true)
        } else {
            false
        }
    }

    /// `checkAndSubmitSpeculatableTasks`: every running attempt that is the only copy of an
    /// unfinished task and ran longer than the threshold (and, with
    /// `spark.speculation.efficiency.enabled` and no customized threshold, is inefficient).
    fn submit_speculatable_tasks(&mut self, key: TsKey, threshold: f64, customized: bool) -> bool {
        let settings = self.speculation.as_ref().expect("checked").settings;
        let now = clock::now_ms();
        let tsm = self.task_sets.get_mut(&key).expect("checked");
        let stage_attempt = tsm.stage_attempt;
        let successful = &tsm.successful;
        let copies_running = &tsm.copies_running;
        let spec = tsm.spec.as_mut().expect("checked");
        let mut marked: Vec<(u32, Rc<str>, usize)> = Vec::new();
        for (&tid, &index) in &spec.running {
            let i = index as usize;
            if successful[i] || copies_running[i] != 1 || spec.speculatable.contains(&index) {
                continue;
            }
            let Some(a) = spec.attempts[i].iter().find(|a| a.task_id == tid) else {
                continue;
            };
            let runtime = now.saturating_sub(a.launch_ms) as f64;
            if runtime > threshold && (customized || may_speculate(&settings, runtime, threshold)) {
                let host = a.host.clone();
                spec.pending.push(index);
                spec.speculatable.insert(index);
                marked.push((index, host, spec.speculatable.len()));
            }
        }
        for (index, host, count) in &marked {
            // Spark 4.0's text (the MDC pieces join without a space before "speculatable").
            info!(
                self.log,
                TSM,
                "Marking task {index} in stage {}.{stage_attempt} (on {host}) as speculatable because it ran more than {} ms({count}speculatable tasks in this taskset now)",
                key.1,
                java_double(threshold)
            );
            self.post_speculative_task_submitted(key, stage_attempt, *index);
        }
        if marked.is_empty() {
            return false;
        }
        // The set has copies to offer again, even once its regular tasks are all out.
        self.runnable.insert(key);
        true
    }

    /// `DAGScheduler.speculativeTaskSubmitted` -> `SparkListenerSpeculativeTaskSubmitted`.
    fn post_speculative_task_submitted(&self, key: TsKey, stage_attempt: u32, index: u32) {
        let partition_id = self.task_sets[&key].partitions[index as usize];
        self.bus.post(|| ListenerEvent::SpeculativeTaskSubmitted {
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
            task_index: index,
            partition_id,
        });
    }
}

impl TaskSetManager {
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
        let launchable = |i: u32| !successful[i as usize] && copies[i as usize] <= 1;
        for (level, reported) in SPECULATIVE_LISTS {
            if !TaskLocality::is_allowed(max_locality, level) {
                continue;
            }
            let in_list = |i: u32| match level {
                TaskLocality::ProcessLocal => prefs.executor_of(i) == Some(executor),
                TaskLocality::NodeLocal => pref(i).iter().any(|h| &**h == host),
                TaskLocality::NoPref => pref(i).is_empty(),
                TaskLocality::RackLocal => {
                    rack.is_some_and(|r| pref(i).iter().any(|h| topology.rack(h) == Some(r)))
                }
                _ => true,
            };
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
}

/// dequeueTaskHelper's speculative lists in order, with the level each reports.
const SPECULATIVE_LISTS: [(TaskLocality, TaskLocality); 5] = [
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
    fn take(
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

#[cfg(test)]
mod tests {
    use super::super::tests::{lines, logged_scheduler, waiter};
    use super::*;
    use crate::kernel::logs::LogStore;
    use sparkyard_messages::task::StageSpec;
    use std::cell::RefCell;

    // PercentileHeapSuite: the percentile of 0.5 is the upper middle value, whatever the
    // insertion order.
    #[test]
    fn percentile_heap_is_the_upper_median() {
        let mut h = PercentileHeap::default();
        assert_eq!(h.percentile(), None);
        for (x, want) in [(5, 5), (1, 5), (9, 5), (3, 5), (7, 5), (2, 5), (4, 4)] {
            h.insert(x);
            assert_eq!(h.percentile(), Some(want), "after {x}");
        }
        let mut h = PercentileHeap::default();
        for x in (0..100).rev() {
            h.insert(x);
        }
        assert_eq!((h.len(), h.percentile()), (100, Some(50)));
    }

    // An MDC of a Double prints Java's Double.toString (Logging.LogStringContext: toString).
    #[test]
    fn thresholds_print_as_java_doubles() {
        assert_eq!(java_double(3084.0), "3084.0");
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(1500.5), "1500.5");
        assert_eq!(java_double(1.5e7), "1.5E7");
        assert_eq!(java_double(2e7), "2.0E7");
    }

    fn speculating(settings: SpeculationSettings) -> (Scheduler, Rc<RefCell<LogStore>>) {
        let (s, store) = logged_scheduler();
        (s.with_speculation(Some(settings)), store)
    }

    fn job(tasks: usize) -> JobSpec {
        JobSpec {
            call_site: "count at X.scala:1".into(),
            stages: vec![StageSpec {
                rdd_description: "ParallelCollectionRDD[0] at X.scala:1".into(),
                num_partitions: tasks as u32,
                parents: vec![],
                tasks: vec![
                    TaskWork::Sleep {
                        duration_ms: 1,
                        fail: None,
                    };
                    tasks
                ],
                shuffle_write: Default::default(),
                input: Default::default(),
                lineage: None,
                preferred_hosts: Vec::new(),
                input_path: None,
            }],
        }
    }

    fn offer(s: &mut Scheduler, executor: u32, host: &str) -> LaunchedTasks {
        s.resource_offer(&mut WorkerOffer {
            executor_id: ExecutorId(executor),
            host: Rc::from(host),
            cores: 1,
        })
    }

    fn run(body: impl std::future::Future<Output = ()>) {
        let rt = clock::paused_runtime().expect("runtime");
        rt.block_on(async {
            clock::start(0);
            body.await
        });
    }

    async fn advance(ms: u64) {
        clock::advance(clock::ms(ms)).await;
    }

    fn finish(s: &mut Scheduler, t: &TaskDescription) -> Vec<SchedulerEvent> {
        s.status_update(t.task_id, TaskState::Finished, TaskResultData::None)
            .1
    }

    /// Four tasks on two hosts; three succeed after 1 s; task 0 (on host1) runs on. Returns
    /// the scheduler, its log and task 0's first attempt.
    async fn straggler() -> (Scheduler, Rc<RefCell<LogStore>>, Box<TaskDescription>) {
        let (mut s, store) = speculating(SpeculationSettings::default());
        s.submit_job(job(4), waiter());
        let t0 = offer(&mut s, 1, "host1").remove(0);
        let t1 = offer(&mut s, 2, "host1").remove(0);
        let t2 = offer(&mut s, 3, "host2").remove(0);
        let t3 = offer(&mut s, 4, "host2").remove(0);
        advance(1000).await;
        for t in [&t1, &t2, &t3] {
            finish(&mut s, t);
        }
        (s, store, t0)
    }

    // TaskSetManager.checkSpeculatableTasks (Spark 4.0): after max(floor(0.9 x 4), 1) = 3
    // successes the threshold is max(3.0 x median 1000, minTaskRuntime 100) = 3000 ms; a task
    // is marked only once it ran longer; dequeueTaskFromList(speculative) never launches the
    // copy on a host that ran an attempt (hasAttemptOnHost), and the copy is attempt 1,
    // `Speculative: true`.
    #[test]
    fn a_straggler_is_marked_after_the_quantile_and_copied_on_another_host() {
        run(async {
            let (mut s, store, t0) = straggler().await;
            advance(2000).await; // t0 ran 3000 ms: not more than the threshold
            assert!(!s.check_speculatable_tasks());
            assert!(!s.has_pending_tasks());
            advance(500).await;
            assert!(s.check_speculatable_tasks());
            assert!(!s.check_speculatable_tasks(), "marked once");
            assert!(lines(&store).contains(
                &"INFO TaskSetManager: Marking task 0 in stage 0.0 (on host1) as speculatable because it ran more than 3000.0 ms(1speculatable tasks in this taskset now)".to_string()
            ));
            assert!(s.has_pending_tasks());
            assert!(offer(&mut s, 2, "host1").is_empty(), "host1 ran attempt 0");
            let copy = offer(&mut s, 3, "host2").remove(0);
            assert_eq!((copy.index, copy.attempt_number), (0, 1));
            assert!(s.running.get(copy.task_id).expect("running").speculative);
            assert!(!s.has_pending_tasks());
            assert!(lines(&store).contains(
                &"INFO TaskSetManager: Starting task 0.1 in stage 0.0 (TID 4) (host2,executor 3, partition 0, PROCESS_LOCAL, 7595 bytes) ".to_string()
            ));
            assert_ne!(copy.task_id, t0.task_id);
        });
    }

    // TaskSetManager.dequeueTask (Spark 4.0): a speculatable copy comes from
    // dequeueTaskHelper(speculative = true) over the same lists as regular tasks, so a copy of a
    // task preferring host1 and host2 that ran on host1 starts NODE_LOCAL on host2, and is
    // refused on host1 (hasAttemptOnHost).
    #[test]
    fn a_copy_of_a_task_with_preferences_runs_node_local_on_its_other_host() {
        run(async {
            let (mut s, store) = speculating(SpeculationSettings::default());
            let mut j = job(4);
            j.stages[0].preferred_hosts = vec![vec!["host1".into(), "host2".into()]; 4];
            s.submit_job(j, waiter());
            let t0 = offer(&mut s, 1, "host1").remove(0);
            let rest: LaunchedTasks = [(2, "host1"), (3, "host2"), (4, "host2")]
                .into_iter()
                .map(|(e, h)| offer(&mut s, e, h).remove(0))
                .collect();
            advance(1000).await;
            for t in &rest {
                finish(&mut s, t);
            }
            advance(2500).await;
            assert!(s.check_speculatable_tasks());
            assert!(offer(&mut s, 2, "host1").is_empty(), "host1 ran attempt 0");
            let copy = offer(&mut s, 4, "host2").remove(0);
            assert_eq!((copy.index, copy.attempt_number), (t0.index, 1));
            assert!(s.running.get(copy.task_id).expect("running").speculative);
            assert!(lines(&store).contains(
                &"INFO TaskSetManager: Starting task 0.1 in stage 0.0 (TID 4) (host2,executor 4, partition 0, NODE_LOCAL, 7595 bytes) ".to_string()
            ));
        });
    }

    // handleSuccessfulTask: the copy wins; the other running attempt is killed
    // (interruptThread = true, "another attempt succeeded"; the job's end then cancels the
    // stage's running attempts too, as Spark does), and its TaskKilled end neither
    // counts as a failure nor re-queues the task.
    #[test]
    fn the_first_success_wins_and_the_other_attempt_is_killed() {
        run(async {
            let (mut s, store, t0) = straggler().await;
            advance(2500).await;
            s.check_speculatable_tasks();
            let copy = offer(&mut s, 3, "host2").remove(0);
            advance(1000).await;
            let events = finish(&mut s, &copy);
            let [
                SchedulerEvent::KillTask {
                    task_id,
                    executor_id,
                    interrupt_thread: true,
                    reason,
                },
                // DAGScheduler: the job is finished, "Cancelling potential speculative or
                // zombie tasks": killAllTaskAttempts(stage, false, "Stage finished").
                SchedulerEvent::KillTask {
                    interrupt_thread: false,
                    ..
                },
                SchedulerEvent::JobEnded { .. },
            ] = events.as_slice()
            else {
                panic!("a kill of attempt 0, the stage's cancel, the job's end: {events:?}");
            };
            assert_eq!((*task_id, *executor_id), (t0.task_id, ExecutorId(1)));
            assert_eq!(reason, "another attempt succeeded");
            let killed = TaskResultData::Killed {
                reason: reason.clone(),
            };
            let (_, events) = s.status_update(t0.task_id, TaskState::Killed, killed);
            assert!(events.is_empty(), "{events:?}");
            assert!(!s.has_pending_tasks());
            let log = lines(&store);
            for want in [
                "INFO TaskSetManager: Killing attempt 0 for task 0.0 in stage 0.0 (TID 0) on host1 as the attempt 1 succeeded on host2",
                "WARN TaskSetManager: Lost task 0.0 in stage 0.0 (TID 0) (host1 executor 1): TaskKilled (another attempt succeeded)",
                "INFO TaskSetManager: task 0.0 in stage 0.0 (TID 0) failed, but the task will not be re-executed (either because the task failed with a shuffle data fetch failure, so the previous stage needs to be re-run, or because a different copy of the task has already succeeded).",
            ] {
                assert!(log.contains(&want.to_string()), "{want}\n{log:#?}");
            }
        });
    }

    // handleSuccessfulTask's first check: the killed attempt finished before the kill reached
    // it; its success is handled as TaskKilled("Finish but did not commit due to another
    // attempt succeeded").
    #[test]
    fn a_late_success_of_the_killed_attempt_is_a_kill() {
        run(async {
            let (mut s, store, t0) = straggler().await;
            advance(2500).await;
            s.check_speculatable_tasks();
            let copy = offer(&mut s, 3, "host2").remove(0);
            finish(&mut s, &copy);
            let events = finish(&mut s, &t0);
            assert!(events.is_empty(), "{events:?}");
            assert_eq!(s.failed_attempts, 0, "a kill, not a failure");
            assert!(lines(&store).contains(
                &"WARN TaskSetManager: Lost task 0.0 in stage 0.0 (TID 0) (host1 executor 1): TaskKilled (Finish but did not commit due to another attempt succeeded)".to_string()
            ));
        });
    }

    // SPARK-29976: with spark.speculation.task.duration.threshold and a stage no larger than
    // one executor's slots, a task is speculated on the threshold before any success; a
    // one-task stage is never speculated without it.
    #[test]
    fn a_duration_threshold_speculates_small_stages() {
        run(async {
            let (mut s, _) = speculating(SpeculationSettings::default());
            s.submit_job(job(1), waiter());
            offer(&mut s, 1, "host1");
            advance(60_000).await;
            assert!(!s.check_speculatable_tasks(), "one task, no threshold");
            let settings = SpeculationSettings {
                task_duration_threshold_ms: Some(5000),
                slots_per_executor: 4,
                ..SpeculationSettings::default()
            };
            let (mut s, store) = speculating(settings);
            s.submit_job(job(2), waiter());
            offer(&mut s, 1, "host1");
            offer(&mut s, 2, "host2");
            advance(5000).await;
            assert!(!s.check_speculatable_tasks());
            advance(1).await;
            assert!(s.check_speculatable_tasks());
            assert!(lines(&store).iter().any(|l| l.contains(
                "as speculatable because it ran more than 5000.0 ms(2speculatable tasks in this taskset now)"
            )));
        });
    }

    // Speculation off (the default): no state, nothing ever marked.
    #[test]
    fn nothing_is_speculated_when_off() {
        run(async {
            let store = Rc::new(RefCell::new(LogStore::new(true)));
            let mut s = Scheduler::new(
                ProcessLog::new("driver", store),
                ContextBus::disabled(),
                4,
                1,
            );
            s.submit_job(job(4), waiter());
            let t0 = offer(&mut s, 1, "host1").remove(0);
            for e in 2..5 {
                let t = offer(&mut s, e, "host2").remove(0);
                advance(10).await;
                finish(&mut s, &t);
            }
            advance(100_000).await;
            assert!(!s.check_speculatable_tasks());
            assert!(s.task_sets.values().all(|t| t.spec.is_none()));
            assert_eq!(s.speculation_interval_ms(), None);
            assert!(s.running.get(t0.task_id).is_some());
        });
    }
}
