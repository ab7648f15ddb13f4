//! Ports of Spark 4.0's `ExecutorAllocationManagerSuite`
//! (core/src/test/scala/org/apache/spark/ExecutorAllocationManagerSuite.scala) over
//! [`ExecutorAllocationManager`], mirroring `org.apache.spark.ExecutorAllocationManager` for the
//! default resource profile. The suite's `createConf(min, max, initial)`: schedulerBacklogTimeout
//! 1 s, sustainedSchedulerBacklogTimeout 2 s, executorIdleTimeout 3 s, the shuffle service on;
//! its private-method helpers map onto the manager's own steps: `addExecutorsToTarget` then
//! `doUpdateRequest` is [`add`], `adjustRequestedExecutors` is `updateAndSyncNumExecutorsTarget(0)`,
//! `removeExecutors` is `remove_executors`. Executor names ("executor-1", "first") become ids.
//! Not ported: the multiple-resource-profile cases, "reset the state of allocation manager"
//! (no cluster-manager reset is simulated) and "initialize dynamic allocation in SparkContext".

use super::*;
use crate::kernel::logs::LogStore;
use std::rc::Rc;

/// The suite's mocked `ExecutorAllocationClient` (always acknowledging: `DYN_ALLOCATION_TESTING`),
/// recording what it was asked.
#[derive(Default)]
struct Client {
    totals: Vec<u32>,
    killed: Vec<Vec<ExecutorId>>,
    decommissioned: Vec<Vec<ExecutorId>>,
}

impl ExecutorAllocationClient for Client {
    fn request_total_executors(&mut self, total: u32, _hints: &PlacementHints) -> bool {
        self.totals.push(total);
        true
    }
    fn kill_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        self.killed.push(ids.to_vec());
        ids.to_vec()
    }
    fn decommission_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        self.decommissioned.push(ids.to_vec());
        ids.to_vec()
    }
}

/// The suite's `createConf(min, max, initial)`.
fn conf(min: u32, max: u32, initial: u32) -> DynamicAllocationSettings {
    DynamicAllocationSettings {
        min_executors: min,
        max_executors: max,
        initial_executors: Some(initial),
        scheduler_backlog_timeout_s: 1,
        sustained_scheduler_backlog_timeout_s: 2,
        executor_idle_timeout_s: 3,
        shuffle_service_enabled: true,
        ..DynamicAllocationSettings::default()
    }
}

/// The suite's `createManager(conf)` with `EXECUTOR_CORES = cores`: the initial target from
/// `Utils.getDynamicAllocationInitialExecutors`, then `start()`.
fn manager(s: DynamicAllocationSettings, cores: u32) -> (ExecutorAllocationManager, Client) {
    assert!(validate_settings(&s, cores, 1).is_ok());
    let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
    let (initial, _) = initial_executors(&s, None);
    let mut m = ExecutorAllocationManager::new(s, initial, cores, 1, log);
    let mut c = Client::default();
    m.start(&mut c);
    (m, c)
}

fn e(n: u32) -> ExecutorId {
    ExecutorId(n)
}

/// `addExecutorsToTargetForDefaultProfile` then `doUpdateRequest(updates, now)`: the change of
/// the target.
fn add(m: &mut ExecutorAllocationManager, c: &mut Client, now: u64) -> i64 {
    let old = m.target;
    let needed = m.max_needed();
    m.add_executors(needed);
    let delta = i64::from(m.target) - i64::from(old);
    if delta != 0 {
        m.do_update_request(old, now, c);
    }
    delta
}

/// `updateAndSyncNumExecutorsTarget(now)`: the change of the target.
fn update(m: &mut ExecutorAllocationManager, c: &mut Client, now: u64) -> i64 {
    let old = m.target;
    m.update_and_sync_target(now, c);
    i64::from(m.target) - i64::from(old)
}

/// `removeExecutorDefaultProfile`: whether exactly this executor was removed.
fn remove_one(m: &mut ExecutorAllocationManager, c: &mut Client, id: ExecutorId) -> bool {
    m.remove_executors(&[id], c).first() == Some(&id)
}

fn pending_removal(m: &ExecutorAllocationManager) -> Vec<ExecutorId> {
    m.monitor.pending_removal_ids()
}

fn ids(list: impl IntoIterator<Item = u32>) -> Vec<ExecutorId> {
    list.into_iter().map(e).collect()
}

/// `SparkListenerTaskStart(stage, attempt, createTaskInfo(_, index, executor, speculative))`.
fn start(m: &mut ExecutorAllocationManager, stage: u32, index: u32, exec: u32, spec: bool) {
    m.on_task_start(stage, 0, index, spec, e(exec), true);
}

/// `SparkListenerTaskEnd(stage, 0, _, reason, createTaskInfo(_, index, executor, spec))`.
fn end(m: &mut ExecutorAllocationManager, index: u32, exec: u32, spec: bool, kind: TaskEndKind) {
    m.on_task_end(0, 0, index, spec, e(exec), kind, 0);
}

/// The suite's `onExecutorBusy`: a task of stage 1 attempt 1 starts on the executor.
fn busy(m: &mut ExecutorAllocationManager, id: u32) {
    m.on_task_start(1, 1, 1, false, e(id), true);
}

/// The suite's `onExecutorIdle`: that task ends successfully at `now`.
fn idle(m: &mut ExecutorAllocationManager, id: u32, now: u64) {
    m.on_task_end(1, 1, 1, false, e(id), TaskEndKind::Success, now);
}

// ExecutorAllocationManagerSuite "verify min/max executors" (the negative values are conf
// parse errors, left to the conf tests): min > max is refused, min == max and min < max start.
#[test]
fn verify_min_max_executors() {
    assert!(validate_settings(&conf(2, 1, 1), 1, 1).is_err());
    assert!(validate_settings(&conf(1, 1, 1), 1, 1).is_ok());
    assert!(validate_settings(&conf(1, 2, 1), 1, 1).is_ok());
}

// ExecutorAllocationManagerSuite "starting state".
#[test]
fn starting_state() {
    let (m, c) = manager(conf(1, 5, 1), 1);
    assert_eq!(m.target(), 1);
    assert!(pending_removal(&m).is_empty());
    assert_eq!(m.add_time, NEVER);
    assert_eq!(c.totals, vec![1]);
}

// ExecutorAllocationManagerSuite "add executors default profile": 1, 2, 4 then capped by max;
// registering executors (duplicates included) changes nothing.
#[test]
fn add_executors_default_profile() {
    let (mut m, mut c) = manager(conf(1, 10, 1), 1);
    m.on_stage_submitted(0, 0, 1000, 0);
    assert_eq!((m.target(), m.to_add), (1, 1));
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (2, 2));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (4, 4));
    assert_eq!(add(&mut m, &mut c, 0), 4);
    assert_eq!((m.target(), m.to_add), (8, 8));
    assert_eq!(add(&mut m, &mut c, 0), 2, "reached the limit of 10");
    assert_eq!((m.target(), m.to_add), (10, 1));
    assert_eq!(add(&mut m, &mut c, 0), 0);
    assert_eq!((m.target(), m.to_add), (10, 1));
    for id in [1, 2, 3, 4, 1, 2] {
        m.on_executor_added(e(id), 0);
        assert_eq!(m.target(), 10);
    }
    for _ in 0..2 {
        assert_eq!(add(&mut m, &mut c, 0), 0);
        assert_eq!((m.target(), m.to_add), (10, 1));
    }
}

/// The suite's `testAllocationRatio(cores, divisor, expected)`: createConf(3, 15) with the
/// ratio, a stage of 20 tasks, six rounds of adding.
fn allocation_ratio(cores: u32, ratio: f64, expected: u32) {
    let mut s = conf(3, 15, 1);
    s.executor_allocation_ratio = ratio;
    let (mut m, mut c) = manager(s, cores);
    m.on_stage_submitted(0, 0, 20, 0);
    for _ in 0..=5 {
        add(&mut m, &mut c, 0);
    }
    assert_eq!(m.target(), expected, "cores {cores}, ratio {ratio}");
}

// ExecutorAllocationManagerSuite "executionAllocationRatio is correctly handled".
#[test]
fn execution_allocation_ratio_is_correctly_handled() {
    allocation_ratio(1, 0.5, 10);
    allocation_ratio(1, 1.0 / 3.0, 7);
    allocation_ratio(2, 1.0 / 3.0, 4);
    allocation_ratio(1, 0.385, 8);
    // Should be 20 but capped by max; should be 2 but elevated by min.
    allocation_ratio(1, 1.0, 15);
    allocation_ratio(4, 1.0 / 3.0, 3);
}

// ExecutorAllocationManagerSuite "add executors capped by num pending tasks".
#[test]
fn add_executors_capped_by_num_pending_tasks() {
    let (mut m, mut c) = manager(conf(0, 10, 0), 1);
    m.on_stage_submitted(0, 0, 5, 0);
    assert_eq!((m.target(), m.to_add), (0, 1));
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (1, 2));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (3, 4));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (5, 1));
    // Running a task does not affect the target.
    m.on_stage_submitted(1, 0, 3, 0);
    m.on_executor_added(e(1), 0);
    start(&mut m, 1, 0, 1, false);
    assert_eq!(m.target(), 5);
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (6, 2));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (8, 4));
    assert_eq!(add(&mut m, &mut c, 0), 0);
    assert_eq!((m.target(), m.to_add), (8, 1));
    // Re-running a task does not blow things up.
    m.on_stage_submitted(2, 0, 3, 0);
    start(&mut m, 2, 0, 1, false);
    start(&mut m, 2, 1, 1, false);
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (9, 2));
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (10, 1));
    // Running a task once at the limit does not either.
    start(&mut m, 2, 0, 1, false);
    assert_eq!(add(&mut m, &mut c, 0), 0);
    assert_eq!(m.target(), 10);
}

// ExecutorAllocationManagerSuite "add executors when speculative tasks added": pending copies
// count in the need; starting the original or a copy does not raise the target.
#[test]
fn add_executors_when_speculative_tasks_added() {
    let (mut m, mut c) = manager(conf(0, 10, 0), 1);
    m.on_stage_submitted(1, 0, 2, 0);
    m.on_speculative_task_submitted(1, 0, 0, 0);
    assert_eq!((m.target(), m.to_add), (0, 1));
    assert_eq!(add(&mut m, &mut c, 0), 1);
    m.on_speculative_task_submitted(1, 0, 1, 0);
    m.on_speculative_task_submitted(1, 0, 2, 0);
    assert_eq!((m.target(), m.to_add), (1, 2));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (3, 4));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!((m.target(), m.to_add), (5, 1));
    start(&mut m, 1, 0, 1, false);
    assert_eq!(m.target(), 5);
    assert_eq!(add(&mut m, &mut c, 0), 0);
    assert_eq!(m.to_add, 1);
    start(&mut m, 1, 0, 2, true);
    assert_eq!(m.target(), 5);
    assert_eq!(add(&mut m, &mut c, 0), 0);
    assert_eq!(m.to_add, 1);
}

// ExecutorAllocationManagerSuite "SPARK-31418: remove executors after unschedulable tasks end":
// an unschedulable set asks for one executor beyond those left, and once it runs and the
// stage ends the target falls to 0 and every executor can go.
#[test]
fn remove_executors_after_unschedulable_tasks_end() {
    let (mut m, mut c) = manager(conf(0, 6, 0), 2);
    m.on_stage_submitted(0, 0, 10, 0);
    for expected in [1, 2, 2, 0] {
        assert_eq!(add(&mut m, &mut c, 0), expected);
    }
    for id in 0..=4 {
        m.on_executor_added(e(id), 0);
    }
    for i in 0..=9 {
        m.on_task_start(0, 0, i, false, e(i / 2), true);
    }
    assert_eq!((m.target(), m.max_needed()), (5, 5));
    for i in 0..=7 {
        end(&mut m, i, i / 2, false, TaskEndKind::Success);
    }
    update(&mut m, &mut c, 1_000);
    assert_eq!((m.target(), m.max_needed()), (1, 1));
    for id in 0..=3 {
        assert!(remove_one(&mut m, &mut c, e(id)));
    }
    for id in 0..=3 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    m.on_unschedulable_task_set_added(0, 0, 1_000);
    update(&mut m, &mut c, 2_000);
    assert_eq!((m.target(), m.max_needed()), (2, 2));
    m.on_executor_added(e(5), 2_000);
    m.on_unschedulable_task_set_removed(0, 0);
    update(&mut m, &mut c, 3_000);
    assert_eq!((m.target(), m.max_needed()), (1, 1));
    end(&mut m, 9, 4, false, TaskEndKind::Success);
    end(&mut m, 8, 5, false, TaskEndKind::Success);
    update(&mut m, &mut c, 4_000);
    m.on_stage_completed(0, 0);
    update(&mut m, &mut c, 5_000);
    assert_eq!((m.target(), m.max_needed()), (0, 0));
    assert!(remove_one(&mut m, &mut c, e(4)));
    m.on_executor_removed(e(4), RemovedAs::Other);
    assert!(remove_one(&mut m, &mut c, e(5)));
    m.on_executor_removed(e(5), RemovedAs::Other);
}

// ExecutorAllocationManagerSuite "SPARK-41192: remove executors when task finished before
// speculative task scheduled": an original that ends before its pending copy starts takes the
// copy off the need.
#[test]
fn remove_executors_when_task_finished_before_speculative_task_scheduled() {
    let (mut m, mut c) = manager(conf(0, 10, 0), 4);
    m.on_stage_submitted(0, 0, 40, 0);
    for expected in [1, 2, 4, 3] {
        assert_eq!(add(&mut m, &mut c, 0), expected);
    }
    for id in 0..10 {
        m.on_executor_added(e(id), 0);
    }
    for i in 0..40 {
        start(&mut m, 0, i, i / 4, false);
    }
    assert_eq!((m.target(), m.max_needed()), (10, 10));
    for i in 0..30 {
        end(&mut m, i, i / 4, false, TaskEndKind::Success);
    }
    for index in 30..40 {
        m.on_speculative_task_submitted(0, 0, index, 0);
    }
    update(&mut m, &mut c, 1_000);
    assert_eq!((m.target(), m.max_needed()), (5, 5));
    for id in 0..5 {
        assert!(remove_one(&mut m, &mut c, e(id)));
    }
    for id in 0..5 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    // Originals 30 - 34 finish before their copies start: (5 + 5) / 4 rounded up.
    for i in 30..35 {
        end(&mut m, i, i / 4, false, TaskEndKind::Success);
    }
    update(&mut m, &mut c, 2_000);
    assert_eq!((m.target(), m.max_needed()), (3, 3));
    for task in 40..45 {
        start(&mut m, 0, task - 5, task / 4, true);
    }
    update(&mut m, &mut c, 3_000);
    assert_eq!((m.target(), m.max_needed()), (3, 3));
    for i in 35..39 {
        end(&mut m, i, i / 4, false, TaskEndKind::Success);
    }
    for i in 35..39 {
        end(&mut m, i, (i + 5) / 4, true, TaskEndKind::Killed);
    }
    update(&mut m, &mut c, 4_000);
    assert_eq!((m.target(), m.max_needed()), (1, 1));
}

// ExecutorAllocationManagerSuite "SPARK-30511 remove executors when speculative tasks end":
// copies count while they wait and while they run; an original killed because its copy won
// is done; a failed original is pending again; one copy waiting with a single executor needed
// asks for a second.
#[test]
fn remove_executors_when_speculative_tasks_end() {
    let (mut m, mut c) = manager(conf(0, 10, 0), 4);
    m.on_stage_submitted(0, 0, 40, 0);
    for expected in [1, 2, 4, 3] {
        assert_eq!(add(&mut m, &mut c, 0), expected);
    }
    for id in 0..=9 {
        m.on_executor_added(e(id), 0);
    }
    for i in 0..=39 {
        start(&mut m, 0, i, i / 4, false);
    }
    assert_eq!((m.target(), m.max_needed()), (10, 10));
    for i in 0..=29 {
        end(&mut m, i, i / 4, false, TaskEndKind::Success);
    }
    update(&mut m, &mut c, 1_000);
    assert_eq!((m.target(), m.max_needed()), (3, 3));
    for id in 0..=6 {
        assert!(remove_one(&mut m, &mut c, e(id)));
    }
    for id in 0..=6 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    for index in 30..=39 {
        m.on_speculative_task_submitted(0, 0, index, 1_000);
    }
    assert_eq!(add(&mut m, &mut c, 1_000), 1);
    assert_eq!(add(&mut m, &mut c, 1_000), 1);
    assert_eq!((m.target(), m.max_needed()), (5, 5));
    for id in 10..=12 {
        m.on_executor_added(e(id), 1_000);
    }
    for task in 40..=49 {
        start(&mut m, 0, task - 10, task / 4, true);
    }
    update(&mut m, &mut c, 2_000);
    assert_eq!((m.target(), m.max_needed()), (5, 5));
    // Copies 40 - 45 win.
    for task in 40..=45 {
        end(&mut m, task - 10, task / 4, true, TaskEndKind::Success);
    }
    update(&mut m, &mut c, 3_000);
    assert_eq!((m.target(), m.max_needed()), (4, 4));
    assert!(remove_one(&mut m, &mut c, e(10)));
    m.on_executor_removed(e(10), RemovedAs::Other);
    // Their originals 30 - 35 are killed.
    for i in 30..=35 {
        end(&mut m, i, i / 4, false, TaskEndKind::Killed);
    }
    update(&mut m, &mut c, 4_000);
    assert_eq!((m.target(), m.max_needed()), (2, 2));
    for id in 7..=8 {
        assert!(remove_one(&mut m, &mut c, e(id)));
    }
    for id in 7..=8 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    // Task 36 wins over copy 46.
    end(&mut m, 36, 9, false, TaskEndKind::Success);
    end(&mut m, 36, 11, true, TaskEndKind::Killed);
    update(&mut m, &mut c, 5_000);
    assert_eq!((m.target(), m.max_needed()), (2, 2));
    // Task 37 and copy 47 succeed together.
    end(&mut m, 37, 9, false, TaskEndKind::Success);
    end(&mut m, 37, 11, true, TaskEndKind::Success);
    update(&mut m, &mut c, 6_000);
    assert_eq!((m.target(), m.max_needed()), (1, 1));
    assert!(remove_one(&mut m, &mut c, e(11)));
    m.on_executor_removed(e(11), RemovedAs::Other);
    // Task 38 and copy 49 (of 39) fail; a new copy of 39 is submitted.
    end(&mut m, 38, 9, false, TaskEndKind::Failed);
    end(&mut m, 39, 12, true, TaskEndKind::Failed);
    m.on_speculative_task_submitted(0, 0, 39, 6_000);
    update(&mut m, &mut c, 7_000);
    assert_eq!((m.target(), m.max_needed()), (2, 2));
    start(&mut m, 0, 39, 12, true);
    update(&mut m, &mut c, 8_000);
    assert_eq!((m.target(), m.max_needed()), (1, 1));
    // Task 39 and copy 48 (of 38) succeed, copy 50 is killed.
    end(&mut m, 39, 9, false, TaskEndKind::Success);
    end(&mut m, 38, 12, true, TaskEndKind::Success);
    end(&mut m, 39, 12, true, TaskEndKind::Killed);
    m.on_stage_completed(0, 0);
    update(&mut m, &mut c, 9_000);
    assert_eq!((m.target(), m.max_needed()), (0, 0));
    assert!(remove_one(&mut m, &mut c, e(9)));
    m.on_executor_removed(e(9), RemovedAs::Other);
    assert!(remove_one(&mut m, &mut c, e(12)));
    m.on_executor_removed(e(12), RemovedAs::Other);
}

// ExecutorAllocationManagerSuite "properly handle task end events from completed stages": the
// tasks of a zombie attempt count as running until they end, beside the next attempt's.
#[test]
fn properly_handle_task_end_events_from_completed_stages() {
    let (mut m, _) = manager(conf(0, 10, 0), 1);
    m.on_stage_submitted(0, 0, 5, 0);
    m.on_task_start(0, 0, 0, false, e(1), true);
    m.on_task_start(0, 0, 1, false, e(1), true);
    m.on_stage_completed(0, 0);
    assert_eq!(m.running_tasks(), 2);
    m.on_stage_submitted(0, 1, 5, 0);
    m.on_task_end(0, 0, 0, false, e(1), TaskEndKind::Success, 0);
    assert_eq!(m.running_tasks(), 1);
    m.on_task_start(0, 1, 0, false, e(1), true);
    m.on_task_start(0, 1, 1, false, e(1), true);
    assert_eq!(m.running_tasks(), 3);
    m.on_task_end(0, 1, 0, false, e(1), TaskEndKind::Success, 0);
    assert_eq!(m.running_tasks(), 2);
    m.on_task_end(0, 0, 1, false, e(1), TaskEndKind::Success, 0);
    assert_eq!(m.running_tasks(), 1);
    m.on_task_end(0, 1, 1, false, e(1), TaskEndKind::Success, 0);
    assert_eq!(m.running_tasks(), 0);
}

// ExecutorAllocationManagerSuite "cancel pending executors when no longer needed".
#[test]
fn cancel_pending_executors_when_no_longer_needed() {
    let (mut m, mut c) = manager(conf(0, 10, 0), 1);
    m.on_stage_submitted(2, 0, 5, 0);
    assert_eq!((m.target(), m.to_add), (0, 1));
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!((m.target(), m.to_add), (1, 2));
    assert_eq!(add(&mut m, &mut c, 0), 2);
    assert_eq!(m.target(), 3);
    m.on_task_start(2, 0, 0, false, e(1), true);
    assert_eq!(m.to_add, 4);
    assert_eq!(add(&mut m, &mut c, 0), 2);
    // The suite's second task is another attempt of index 0: 4 tasks stay pending.
    m.on_task_start(2, 0, 0, false, e(1), true);
    m.on_task_end(2, 0, 0, false, e(1), TaskEndKind::Success, 0);
    m.on_task_end(2, 0, 0, false, e(1), TaskEndKind::Success, 0);
    assert_eq!(update(&mut m, &mut c, 0), -1);
}

// ExecutorAllocationManagerSuite "remove executors": down to min, one at a time; removed
// executors leave the pending set, duplicates do not count.
#[test]
fn remove_executors() {
    let (mut m, mut c) = manager(conf(5, 10, 5), 1);
    for id in 1..=10 {
        m.on_executor_added(e(id), 0);
    }
    assert!(pending_removal(&m).is_empty());
    assert!(remove_one(&mut m, &mut c, e(1)));
    assert_eq!(pending_removal(&m), ids([1]));
    assert!(remove_one(&mut m, &mut c, e(2)));
    assert!(remove_one(&mut m, &mut c, e(3)));
    assert_eq!(pending_removal(&m), ids([1, 2, 3]));
    assert!(remove_one(&mut m, &mut c, e(4)));
    assert!(remove_one(&mut m, &mut c, e(5)));
    assert!(!remove_one(&mut m, &mut c, e(6)), "reached the limit of 5");
    assert_eq!(pending_removal(&m), ids(1..=5));
    m.on_executor_removed(e(1), RemovedAs::Other);
    assert_eq!(pending_removal(&m), ids(2..=5));
    m.on_executor_removed(e(2), RemovedAs::Other);
    m.on_executor_removed(e(3), RemovedAs::Other);
    assert_eq!(pending_removal(&m), ids([4, 5]));
    m.on_executor_removed(e(2), RemovedAs::Other);
    m.on_executor_removed(e(3), RemovedAs::Other);
    assert_eq!(pending_removal(&m), ids([4, 5]));
    m.on_executor_removed(e(4), RemovedAs::Other);
    m.on_executor_removed(e(5), RemovedAs::Other);
    assert!(pending_removal(&m).is_empty());
    assert!(!remove_one(&mut m, &mut c, e(7)));
    assert!(!remove_one(&mut m, &mut c, e(8)));
    assert!(pending_removal(&m).is_empty());
}

// ExecutorAllocationManagerSuite "SPARK-33763: metrics to track dynamic allocation
// (decommissionEnabled=false)": a killed executor's exit counts as driver-killed, any other
// as unexpected.
#[test]
fn metrics_to_track_dynamic_allocation_without_decommission() {
    let (mut m, mut c) = manager(conf(3, 5, 3), 1);
    for id in 1..=5 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.remove_executors(&ids([1, 2]), &mut c), ids([1, 2]));
    assert_eq!(pending_removal(&m), ids([1, 2]));
    m.on_executor_removed(e(1), RemovedAs::Other);
    let st = m.monitor.stats;
    assert_eq!((st.driver_killed, st.exited_unexpectedly), (1, 0));
    m.on_executor_removed(e(2), RemovedAs::Other);
    let st = m.monitor.stats;
    assert_eq!((st.driver_killed, st.exited_unexpectedly), (2, 0));
    m.on_executor_removed(e(3), RemovedAs::Other);
    let st = m.monitor.stats;
    assert_eq!((st.driver_killed, st.exited_unexpectedly), (2, 1));
}

// ExecutorAllocationManagerSuite "SPARK-33763: metrics to track dynamic allocation
// (decommissionEnabled = true)": removal decommissions; a finished decommission counts as
// graceful, another exit of a decommissioning executor as unfinished.
#[test]
fn metrics_to_track_dynamic_allocation_with_decommission() {
    let mut s = conf(3, 5, 3);
    s.decommission_enabled = true;
    let (mut m, mut c) = manager(s, 1);
    for id in 1..=5 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.remove_executors(&ids([1, 2]), &mut c), ids([1, 2]));
    assert_eq!(m.monitor.decommissioning_ids(), ids([1, 2]));
    assert!(c.killed.is_empty());
    m.on_executor_removed(e(1), RemovedAs::DecommissionFinished);
    let counts = |m: &ExecutorAllocationManager| {
        let st = m.monitor.stats;
        (
            st.gracefully_decommissioned,
            st.decommission_unfinished,
            st.exited_unexpectedly,
        )
    };
    assert_eq!(counts(&m), (1, 0, 0));
    m.on_executor_removed(e(2), RemovedAs::Other);
    assert_eq!(counts(&m), (1, 1, 0));
    m.on_executor_removed(e(3), RemovedAs::Other);
    assert_eq!(counts(&m), (1, 1, 1));
}

// ExecutorAllocationManagerSuite "remove multiple executors".
#[test]
fn remove_multiple_executors() {
    let (mut m, mut c) = manager(conf(5, 10, 5), 1);
    for id in 1..=10 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.remove_executors(&ids([1]), &mut c), ids([1]));
    assert_eq!(pending_removal(&m), ids([1]));
    assert_eq!(m.remove_executors(&ids([2, 3]), &mut c), ids([2, 3]));
    assert_eq!(pending_removal(&m), ids([1, 2, 3]));
    assert!(remove_one(&mut m, &mut c, e(4)));
    assert_eq!(m.remove_executors(&ids([5]), &mut c), ids([5]));
    assert!(!remove_one(&mut m, &mut c, e(6)), "reached the limit of 5");
    assert_eq!(pending_removal(&m), ids(1..=5));
    m.on_executor_removed(e(1), RemovedAs::Other);
    assert_eq!(pending_removal(&m), ids(2..=5));
    for id in [2, 3, 2, 3] {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    assert_eq!(pending_removal(&m), ids([4, 5]));
    m.on_executor_removed(e(4), RemovedAs::Other);
    m.on_executor_removed(e(5), RemovedAs::Other);
    assert!(pending_removal(&m).is_empty());
    assert!(!remove_one(&mut m, &mut c, e(7)));
    assert_ne!(m.remove_executors(&ids([8]), &mut c), ids([8]));
    assert!(pending_removal(&m).is_empty());
}

// ExecutorAllocationManagerSuite "Removing with various numExecutorsTargetForDefaultProfileId
// condition": nothing goes while the executors are just the target; once the target falls, down
// to it; never below min.
#[test]
fn removing_with_various_num_executors_target_condition() {
    let (mut m, mut c) = manager(conf(5, 12, 5), 1);
    m.on_stage_submitted(0, 0, 8, 0);
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!(add(&mut m, &mut c, 0), 2);
    for id in 1..=8 {
        m.on_executor_added(e(id), 0);
    }
    for i in 1..=8 {
        m.on_task_start(0, 0, i, false, e(i), true);
    }
    assert_eq!(m.monitor.executor_count(), 8);
    assert_eq!((m.target(), m.max_needed()), (8, 8));
    assert!(!remove_one(&mut m, &mut c, e(1)));
    for i in 1..=3 {
        m.on_task_end(0, 0, i, false, e(i), TaskEndKind::Success, 0);
    }
    update(&mut m, &mut c, 0);
    assert_eq!(m.monitor.executor_count(), 8);
    assert_eq!((m.target(), m.max_needed()), (5, 5));
    assert!(remove_one(&mut m, &mut c, e(1)));
    assert_eq!(m.remove_executors(&ids([2, 3]), &mut c), ids([2, 3]));
    for id in 1..=3 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    m.on_task_end(0, 0, 4, false, e(4), TaskEndKind::Success, 0);
    assert_eq!(m.monitor.executor_count(), 5);
    assert_eq!((m.target(), m.max_needed()), (5, 4));
    assert!(!remove_one(&mut m, &mut c, e(4)), "lower limit");
    assert_eq!(add(&mut m, &mut c, 0), 0, "upper limit");
}

// ExecutorAllocationManagerSuite "interleaving add and remove".
#[test]
fn interleaving_add_and_remove() {
    let (mut m, mut c) = manager(conf(5, 12, 5), 1);
    m.on_stage_submitted(0, 0, 1000, 0);
    assert_eq!(add(&mut m, &mut c, 0), 1);
    assert_eq!(add(&mut m, &mut c, 0), 2);
    for id in 1..=8 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!((m.monitor.executor_count(), m.target()), (8, 8));
    // The executors are the target: nothing goes.
    assert!(!remove_one(&mut m, &mut c, e(1)));
    assert_ne!(m.remove_executors(&ids([2, 3]), &mut c), ids([2, 3]));
    for id in 9..=12 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!((m.monitor.executor_count(), m.target()), (12, 8));
    assert!(remove_one(&mut m, &mut c, e(1)));
    assert_eq!(m.remove_executors(&ids([2, 3, 4]), &mut c), ids([2, 3, 4]));
    assert!(!remove_one(&mut m, &mut c, e(5)), "lower limit reached");
    assert!(!remove_one(&mut m, &mut c, e(6)));
    for id in 1..=4 {
        m.on_executor_removed(e(id), RemovedAs::Other);
    }
    assert_eq!(m.monitor.executor_count(), 8);
    assert!(!remove_one(&mut m, &mut c, e(7)), "still at lower limit");
    for id in 13..=16 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.monitor.executor_count(), 12);
    assert_eq!(m.remove_executors(&ids([5, 6, 7]), &mut c), ids([5, 6, 7]));
    assert!(remove_one(&mut m, &mut c, e(8)));
    assert_eq!(m.monitor.executor_count(), 12);
    m.on_executor_removed(e(5), RemovedAs::Other);
    m.on_executor_removed(e(6), RemovedAs::Other);
    assert_eq!(m.monitor.executor_count(), 10);
    assert_eq!(m.to_add, 4);
    m.on_executor_removed(e(9), RemovedAs::Other);
    m.on_executor_removed(e(10), RemovedAs::Other);
    assert_eq!(add(&mut m, &mut c, 0), 4, "at upper limit");
    m.on_executor_added(e(17), 0);
    m.on_executor_added(e(18), 0);
    assert_eq!(m.monitor.executor_count(), 10);
    assert_eq!(add(&mut m, &mut c, 0), 0, "still at upper limit");
    m.on_executor_added(e(19), 0);
    m.on_executor_added(e(20), 0);
    assert_eq!((m.monitor.executor_count(), m.target()), (12, 12));
}

// ExecutorAllocationManagerSuite "starting/canceling add timer": starting is idempotent; a
// queue that empties cancels it; a restart sets a new time.
#[test]
fn starting_canceling_add_timer() {
    let (mut m, _) = manager(conf(2, 10, 2), 1);
    let mut now = 8_888;
    assert_eq!(m.add_time, NEVER);
    m.on_scheduler_backlogged(now);
    let first = m.add_time;
    assert_eq!(first, now + 1_000);
    now += 100;
    m.on_scheduler_backlogged(now);
    assert_eq!(m.add_time, first, "timer is already started");
    now += 200;
    m.on_scheduler_backlogged(now);
    assert_eq!(m.add_time, first);
    m.on_scheduler_queue_empty();
    now += 1_000;
    assert_eq!(m.add_time, NEVER);
    m.on_scheduler_backlogged(now);
    let second = m.add_time;
    assert_eq!(second, now + 1_000);
    now += 100;
    m.on_scheduler_backlogged(now);
    assert_eq!(m.add_time, second);
    assert_ne!(first, second);
}

// ExecutorAllocationManagerSuite "mock polling loop with no events".
#[test]
fn mock_polling_loop_with_no_events() {
    let (mut m, mut c) = manager(conf(0, 20, 0), 1);
    for now in [2_020, 2_120, 3_120, 13_120] {
        m.schedule(now, &mut c);
        assert_eq!(m.target(), 0);
        assert!(pending_removal(&m).is_empty());
    }
    assert_eq!(c.totals, vec![0], "only start()'s request");
}

// ExecutorAllocationManagerSuite "mock polling loop add behavior": the backlog timer, then the
// sustained one doubling the step, a drained queue cancelling it, a new backlog restarting at 1.
#[test]
fn mock_polling_loop_add_behavior() {
    let (mut m, mut c) = manager(conf(0, 20, 0), 1);
    let mut now = 2_020;
    m.on_stage_submitted(0, 0, 1000, now);
    m.on_scheduler_backlogged(now);
    let mut step = |m: &mut ExecutorAllocationManager, now: &mut u64, advance: u64| {
        *now += advance;
        m.schedule(*now, &mut c);
        m.target()
    };
    assert_eq!(step(&mut m, &mut now, 500), 0, "timer not exceeded yet");
    assert_eq!(step(&mut m, &mut now, 1_000), 1, "first timer exceeded");
    let not_yet = step(&mut m, &mut now, 1_000);
    assert_eq!(not_yet, 1, "second timer not exceeded yet");
    assert_eq!(
        step(&mut m, &mut now, 2_000),
        1 + 2,
        "second timer exceeded"
    );
    assert_eq!(
        step(&mut m, &mut now, 2_000),
        1 + 2 + 4,
        "third timer exceeded"
    );
    m.on_scheduler_queue_empty();
    assert_eq!(step(&mut m, &mut now, 2_000), 7, "timer is canceled");
    assert_eq!(step(&mut m, &mut now, 2_000), 7);
    m.on_scheduler_backlogged(now);
    assert_eq!(step(&mut m, &mut now, 1_000), 7 + 1, "timer restarted");
    assert_eq!(step(&mut m, &mut now, 2_000), 7 + 1 + 2);
    assert_eq!(step(&mut m, &mut now, 2_000), 7 + 1 + 2 + 4);
    assert_eq!(step(&mut m, &mut now, 2_000), 20, "limit reached");
}

/// The suite's "mock polling loop remove behavior" and "... remove with decommissioning": idle
/// executors go on timeout down to min, busy ones stay until idle long enough; `removing` lists
/// the executors killed (or decommissioned).
fn polling_loop_remove(decommission: bool) {
    let mut s = conf(1, 20, 1);
    s.decommission_enabled = decommission;
    let (mut m, mut c) = manager(s, 1);
    let removing = |m: &ExecutorAllocationManager| {
        if decommission {
            assert!(m.monitor.pending_removal_ids().is_empty());
            m.monitor.decommissioning_ids()
        } else {
            assert!(m.monitor.decommissioning_ids().is_empty());
            m.monitor.pending_removal_ids()
        }
    };
    let mut now = 2_020;
    for id in 1..=3 {
        m.on_executor_added(e(id), now);
    }
    assert!(removing(&m).is_empty());
    now += 1_500;
    m.schedule(now, &mut c);
    assert!(m.monitor.timed_out_executors(now).is_empty());
    assert!(removing(&m).is_empty());
    now += 3_000;
    assert_eq!(m.monitor.timed_out_executors(now).len(), 3);
    m.schedule(now, &mut c);
    assert_eq!(
        removing(&m).len(),
        2,
        "limit reached (1 executor remaining)"
    );
    for id in 4..=7 {
        m.on_executor_added(e(id), now);
    }
    assert_eq!(m.monitor.executor_count(), 7);
    assert_eq!(removing(&m).len(), 2);
    for id in 4..=6 {
        busy(&mut m, id);
    }
    // The executor kept last time goes now that there are new active ones.
    m.schedule(now, &mut c);
    assert_eq!(removing(&m).len(), 3);
    now += 3_000;
    m.schedule(now, &mut c);
    let gone = removing(&m);
    assert_eq!(gone.len(), 4);
    assert!(ids(4..=6).iter().all(|id| !gone.contains(id)));
    for id in 4..=6 {
        idle(&mut m, id, now);
    }
    m.schedule(now, &mut c);
    assert_eq!(removing(&m).len(), 4);
    now += 3_000;
    m.schedule(now, &mut c);
    assert_eq!(
        removing(&m).len(),
        6,
        "limit reached (1 executor remaining)"
    );
}

// ExecutorAllocationManagerSuite "mock polling loop remove behavior".
#[test]
fn mock_polling_loop_remove_behavior() {
    polling_loop_remove(false);
}

// ExecutorAllocationManagerSuite "mock polling loop remove with decommissioning".
#[test]
fn mock_polling_loop_remove_with_decommissioning() {
    polling_loop_remove(true);
}

// ExecutorAllocationManagerSuite "listeners trigger add executors correctly": a stage starts
// the add timer; it stops only once every task of every stage has started.
#[test]
fn listeners_trigger_add_executors_correctly() {
    let (mut m, _) = manager(conf(1, 20, 1), 1);
    assert_eq!(m.add_time, NEVER);
    m.on_stage_submitted(0, 0, 10, 0);
    assert_ne!(m.add_time, NEVER);
    for i in 1..10 {
        start(&mut m, 0, i, 1, false);
    }
    assert_ne!(m.add_time, NEVER);
    start(&mut m, 0, 0, 1, false);
    assert_eq!(m.add_time, NEVER);
    m.on_stage_submitted(1, 0, 10, 0);
    m.on_stage_submitted(2, 0, 10, 0);
    assert_ne!(m.add_time, NEVER);
    for i in 0..10 {
        start(&mut m, 1, i, 1, false);
    }
    assert_ne!(m.add_time, NEVER);
    for i in 0..10 {
        start(&mut m, 2, i, 1, false);
    }
    assert_eq!(m.add_time, NEVER);
}

// ExecutorAllocationManagerSuite "avoid ramp up when target < running executors": after the
// target falls to 0 with 15 executors up, the next add starts from them (16), not from 1.
#[test]
fn avoid_ramp_up_when_target_below_running_executors() {
    let (mut m, mut c) = manager(conf(0, 100_000, 0), 1);
    m.on_stage_submitted(0, 0, 1000, 0);
    for expected in [1, 2, 4, 8] {
        assert_eq!(add(&mut m, &mut c, 0), expected);
    }
    assert_eq!(m.target(), 15);
    for id in 0..15 {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.monitor.executor_count(), 15);
    m.on_stage_completed(0, 0);
    update(&mut m, &mut c, 0);
    assert_eq!(m.target(), 0);
    m.on_stage_submitted(1, 0, 1000, 0);
    add(&mut m, &mut c, 0);
    assert_eq!(m.target(), 16);
}

// ExecutorAllocationManagerSuite "avoid ramp down initial executors until first job is
// submitted".
#[test]
fn avoid_ramp_down_initial_executors_until_first_job_is_submitted() {
    let (mut m, mut c) = manager(conf(2, 5, 3), 1);
    assert_eq!(m.target(), 3);
    m.schedule(10_000, &mut c);
    assert_eq!(m.target(), 3, "kept with no pending tasks");
    m.on_stage_submitted(1, 0, 2, 10_000);
    assert_eq!(m.max_needed(), 2);
    m.schedule(10_100, &mut c);
    assert_eq!(m.target(), 2);
}

// ExecutorAllocationManagerSuite "avoid ramp down initial executors until idle executor is
// timeout".
#[test]
fn avoid_ramp_down_initial_executors_until_idle_executor_is_timeout() {
    let (mut m, mut c) = manager(conf(2, 5, 3), 1);
    assert_eq!(m.target(), 3);
    m.schedule(10_000, &mut c);
    assert_eq!(m.target(), 3);
    for id in 0..3 {
        m.on_executor_added(e(id), 10_000);
    }
    assert_eq!(m.max_needed(), 0);
    m.schedule(13_000, &mut c);
    assert_eq!(m.target(), 2);
}

// ExecutorAllocationManagerSuite "SPARK-8366: maxNumExecutorsNeededPerResourceProfile should
// properly handle failed tasks": the failed task still needs its executor.
#[test]
fn max_num_executors_needed_should_properly_handle_failed_tasks() {
    let (mut m, _) = manager(conf(1, 5, 1), 1);
    assert_eq!(m.max_needed(), 0);
    m.on_stage_submitted(0, 0, 1, 0);
    assert_eq!(m.max_needed(), 1);
    m.on_task_start(0, 0, 1, false, e(1), true);
    assert_eq!(m.max_needed(), 1);
    m.on_task_end(0, 0, 1, false, e(1), TaskEndKind::Failed, 0);
    assert_eq!(m.max_needed(), 1);
}

// ExecutorAllocationManagerSuite "SPARK-23365 Don't update target num executors when killing
// idle executors": the idle executor is killed, and the request that follows the kill asks
// for the target (1), not one less.
#[test]
fn dont_update_target_num_executors_when_killing_idle_executors() {
    let (mut m, mut c) = manager(conf(1, 2, 1), 1);
    assert_eq!(m.target(), 1);
    m.on_executor_added(e(1), 0);
    m.on_stage_submitted(0, 0, 2, 0);
    update(&mut m, &mut c, 1_000);
    assert_eq!(m.target(), 2);
    start(&mut m, 0, 0, 1, false);
    m.on_executor_added(e(2), 1_000);
    start(&mut m, 0, 1, 2, false);
    assert_eq!(m.target(), 2);
    m.on_task_end(0, 0, 0, false, e(1), TaskEndKind::Success, 1_000);
    assert_eq!((m.max_needed(), m.target()), (1, 2));
    update(&mut m, &mut c, 2_000);
    assert_eq!(m.target(), 1);
    assert!(pending_removal(&m).is_empty());
    m.schedule(5_000, &mut c);
    assert_eq!((m.max_needed(), m.target()), (1, 1));
    assert_eq!(pending_removal(&m), ids([1]));
    assert_eq!(c.killed, vec![ids([1])]);
    assert_eq!(c.totals.last(), Some(&1));
}

// ExecutorAllocationManagerSuite "SPARK-26758 check executor target number after idle time out":
// once the initial executors time out idle, the target falls to min.
#[test]
fn check_executor_target_number_after_idle_time_out() {
    let (mut m, mut c) = manager(conf(1, 5, 3), 1);
    assert_eq!(m.target(), 3);
    for id in 1..=3 {
        m.on_executor_added(e(id), 10_000);
    }
    m.schedule(13_000, &mut c);
    assert_eq!(m.target(), 1);
}

// ResourceProfile.maxTasksPerExecutor with a custom resource (Spark 4.0.0's
// maxNumExecutorsNeededPerResourceProfile divides by the profile's tasks per executor): 4 cores
// but half a GPU a task on one GPU is 2 tasks an executor, so 10 pending tasks need 5 executors,
// not the 3 the cores alone would say.
#[test]
fn a_gpu_limited_profile_needs_executors_for_its_tasks_per_executor() {
    let (m, _) = manager(conf(0, 10, 0), 4);
    let mut m = m.with_tasks_per_executor(2);
    m.on_stage_submitted(0, 0, 10, 0);
    assert_eq!(m.max_needed(), 5);
    let (mut cores_only, _) = manager(conf(0, 10, 0), 4);
    cores_only.on_stage_submitted(0, 0, 10, 0);
    assert_eq!(cores_only.max_needed(), 3);
}
