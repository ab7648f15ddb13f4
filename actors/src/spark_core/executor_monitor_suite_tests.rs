//! Ports of Spark 4.0's `ExecutorMonitorSuite`
//! (core/src/test/scala/org/apache/spark/scheduler/dynalloc/ExecutorMonitorSuite.scala) over
//! [`ExecutorMonitor`], mirroring `org.apache.spark.scheduler.dynalloc.ExecutorMonitor`. The
//! suite's conf: executorIdleTimeout 60 s, cachedExecutorIdleTimeout 120 s,
//! shuffleTracking.timeout 240 s, the shuffle service on (so no shuffle tracking) unless a case
//! turns it off. Every executor is of the default resource profile (the suite's rp 1 executor
//! is one more default one here: profiles beyond the default are not simulated).

use super::*;

const IDLE: u64 = 60_000;
const STORAGE: u64 = 120_000;
const SHUFFLE: u64 = 240_000;

fn e(n: u32) -> ExecutorId {
    ExecutorId(n)
}

/// The suite's monitor; `shuffle_tracking` = tracking on and the shuffle service off.
fn monitor(shuffle_tracking: bool, shuffle_timeout_ms: u64) -> ExecutorMonitor {
    ExecutorMonitor::new(MonitorSettings {
        idle_timeout_ms: IDLE,
        storage_timeout_ms: STORAGE,
        shuffle_timeout_ms,
        shuffle_tracking,
    })
}

fn shuffle(stage_id: u32, shuffle_id: u32) -> ShuffleStage {
    ShuffleStage {
        stage_id,
        shuffle_id,
    }
}

/// The suite's `timedOutExecutors(when)`: the idle executors (no task, no active shuffle) whose
/// deadline is at or before `when`, computed afresh, in Spark's (text) order.
fn timed_out_at(m: &ExecutorMonitor, when: u64) -> Vec<ExecutorId> {
    let mut out: Vec<ExecutorId> = m
        .executors
        .iter()
        .filter(|(_, t)| t.is_idle() && t.timeout_at <= when)
        .map(|(id, _)| id)
        .collect();
    out.sort_by_key(|id| id.to_string());
    out
}

/// A successful task of `stage` on `id`, started and ended at `now`.
fn run_task(m: &mut ExecutorMonitor, id: ExecutorId, stage: u32, success: bool, now: u64) {
    m.on_task_start(id, true);
    m.on_task_end(id, stage, success, now);
}

// ExecutorMonitorSuite "SPARK-4951, SPARK-26927: handle out of order task start events": a
// task start for an active executor not yet added tracks it; a late start for a removed
// (inactive) executor does not bring it back.
#[test]
fn handle_out_of_order_task_start_events() {
    let mut m = monitor(false, SHUFFLE);
    m.on_task_start(e(1), true);
    assert_eq!(m.executor_count(), 1);
    m.on_executor_added(e(1), 0);
    assert_eq!(m.executor_count(), 1);
    m.on_executor_added(e(2), 0);
    assert_eq!(m.executor_count(), 2);
    assert!(m.on_executor_removed(e(2), RemovedAs::Other));
    assert_eq!(m.executor_count(), 1);
    m.on_task_start(e(2), false);
    assert_eq!(m.executor_count(), 1);
    assert!(m.on_executor_removed(e(1), RemovedAs::Other));
    assert_eq!(m.executor_count(), 0);
}

// ExecutorMonitorSuite "track tasks running on executor": busy while any task runs, idle from
// the last end, timed out an idle timeout later.
#[test]
fn track_tasks_running_on_executor() {
    let mut m = monitor(false, SHUFFLE);
    m.on_executor_added(e(1), 0);
    m.on_task_start(e(1), true);
    assert!(!m.is_executor_idle(e(1)));
    for _ in 2..=10 {
        m.on_task_start(e(1), true);
        assert!(!m.is_executor_idle(e(1)));
        m.on_task_end(e(1), 1, true, 0);
        assert!(!m.is_executor_idle(e(1)));
    }
    m.on_task_end(e(1), 1, true, 0);
    assert!(m.is_executor_idle(e(1)));
    assert!(timed_out_at(&m, 0).is_empty());
    assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(1)]);
}

// ExecutorMonitorSuite "handle timeouts correctly with multiple executors": each executor's
// deadline runs from its own idle start, a cached block moves it to the storage timeout, and
// dropping the block moves it back to the idle one (already past here).
#[test]
fn handle_timeouts_correctly_with_multiple_executors() {
    let mut m = monitor(false, SHUFFLE);
    m.on_executor_added(e(1), 0);
    assert!(m.is_executor_idle(e(1)));
    m.on_executor_added(e(2), 30_000);
    m.on_block_updated(e(2), 1, 0, true);
    assert!(m.is_executor_idle(e(2)));
    assert!(!timed_out_at(&m, 30_000 + IDLE + 1).contains(&e(2)));
    m.on_executor_added(e(3), 60_000);
    assert_eq!(timed_out_at(&m, 60_000), vec![e(1)]);
    m.on_block_updated(e(3), 1, 0, true);
    assert!(m.is_executor_idle(e(3)));
    assert!(!timed_out_at(&m, 60_000 + IDLE + 1).contains(&e(3)));
    m.on_block_updated(e(3), 1, 0, false);
    assert_eq!(timed_out_at(&m, 140_000), vec![e(1), e(3)]);
    assert_eq!(timed_out_at(&m, 150_000), vec![e(1), e(2), e(3)]);
}

// ExecutorMonitorSuite "SPARK-38019: timedOutExecutors should be deterministic": the timed-out
// executors come sorted by id (ExecutorMonitor.timedOutExecutors' `sortBy(_._1)`).
#[test]
fn timed_out_executors_should_be_deterministic() {
    let mut m = monitor(false, SHUFFLE);
    for id in 1..=3 {
        m.on_executor_added(e(id), 0);
        assert!(m.is_executor_idle(e(id)));
    }
    assert_eq!(m.timed_out_executors(150_000), vec![e(1), e(2), e(3)]);
}

// SPARK-38019's order is Scala's `Ordering.String` over the ids (Spark 4.0.0 jar,
// ExecutorMonitor.timedOutExecutors): executor 10 sorts before executor 2.
#[test]
fn timed_out_executors_sort_by_id_text() {
    let mut m = monitor(false, SHUFFLE);
    for id in [2, 10, 11, 3] {
        m.on_executor_added(e(id), 0);
    }
    assert_eq!(m.timed_out_executors(IDLE), vec![e(10), e(11), e(2), e(3)]);
}

// ExecutorMonitorSuite "track executors pending for removal": a killed executor is no longer
// offered, the others stay offered across calls with no event, a task start takes one off,
// and it comes back an idle timeout after its task ends.
#[test]
fn track_executors_pending_for_removal() {
    let mut m = monitor(false, SHUFFLE);
    for id in 1..=3 {
        m.on_executor_added(e(id), 0);
    }
    let now = IDLE + 1;
    assert_eq!(m.timed_out_executors(now), vec![e(1), e(2), e(3)]);
    assert_eq!(m.pending_removal_count(), 0);
    m.executors_killed(&[e(1)]);
    assert_eq!(m.timed_out_executors(now), vec![e(2), e(3)]);
    assert_eq!(m.pending_removal_count(), 1);
    assert_eq!(m.timed_out_executors(now), vec![e(2), e(3)]);
    m.on_task_start(e(2), true);
    assert_eq!(m.timed_out_executors(now), vec![e(3)]);
    m.executors_killed(&[e(3)]);
    assert_eq!(m.pending_removal_count(), 2);
    m.on_task_end(e(2), 1, true, now);
    assert!(m.timed_out_executors(now).is_empty());
    assert_eq!(m.timed_out_executors(now + now), vec![e(2)]);
}

// ExecutorMonitorSuite "shuffle tracking with multiple executors and concurrent jobs" (up to
// its ContextCleaner steps: no `shuffleCleaned` is simulated): a job's end frees only the
// executors holding data of its own shuffles.
#[test]
fn shuffle_tracking_with_multiple_executors_and_concurrent_jobs() {
    let mut m = monitor(true, SHUFFLE);
    m.on_executor_added(e(1), 0);
    m.on_executor_added(e(2), 0);
    m.on_job_start(1, &[shuffle(1, 0)]);
    m.on_job_start(2, &[shuffle(3, 1)]);
    run_task(&mut m, e(1), 1, true, 0);
    assert_eq!(timed_out_at(&m, IDLE + 1), vec![e(2)]);
    run_task(&mut m, e(2), 3, true, 0);
    assert!(timed_out_at(&m, IDLE + 1).is_empty());
    m.on_job_end(1, 0);
    assert!(m.is_executor_idle(e(1)));
    assert!(!m.is_executor_idle(e(2)));
    m.on_job_end(2, 0);
    assert!(m.is_executor_idle(e(2)));
    assert!(timed_out_at(&m, IDLE + 1).is_empty());
    assert_eq!(timed_out_at(&m, SHUFFLE + 1), vec![e(1), e(2)]);
}

// ExecutorMonitorSuite "SPARK-28455: avoid overflow in timeout calculation": a shuffle timeout
// of Long.MaxValue ms is forever, not a wrapped-around past deadline.
#[test]
fn avoid_overflow_in_timeout_calculation() {
    let mut m = monitor(true, i64::MAX as u64);
    m.on_job_start(1, &[shuffle(1, 0)]);
    m.on_executor_added(e(1), 1_000);
    run_task(&mut m, e(1), 1, true, 1_000);
    m.on_job_end(1, 1_000);
    assert!(timed_out_at(&m, 1_000 + IDLE + 1).is_empty());
}

// ExecutorMonitorSuite "SPARK-37688: ignore SparkListenerBlockUpdated event if executor was not
// active": a block update of a removed executor does not track it again.
#[test]
fn ignore_block_updated_event_if_executor_was_not_active() {
    let mut m = monitor(true, i64::MAX as u64);
    m.on_executor_added(e(1), 0);
    assert!(m.on_executor_removed(e(1), RemovedAs::Other));
    m.on_block_updated(e(1), 1, 1, true);
    assert_eq!(m.executor_count(), 0);
}

/// ExecutorMonitorSuite "SPARK-43398: executor timeout should be max of shuffle and rdd timeout
/// with shuffleTrackingEnabled as ...": an executor holding a cached block and (with tracking)
/// shuffle data of a finished job waits the longer of the two timeouts.
fn executor_timeout_is_max_of_shuffle_and_rdd_timeout(tracking: bool) {
    let mut m = monitor(tracking, SHUFFLE);
    m.on_executor_added(e(1), 0);
    m.on_job_start(1, &[shuffle(1, 0)]);
    m.on_block_updated(e(1), 1, 0, true);
    run_task(&mut m, e(1), 1, true, 0);
    m.on_job_end(1, 0);
    if tracking {
        assert!(timed_out_at(&m, STORAGE + 1).is_empty());
        assert_eq!(timed_out_at(&m, SHUFFLE + 1), vec![e(1)]);
    } else {
        assert!(timed_out_at(&m, IDLE + 1).is_empty());
        assert_eq!(timed_out_at(&m, STORAGE + 1), vec![e(1)]);
    }
}

// ExecutorMonitorSuite "SPARK-43398: executor timeout should be max of shuffle and rdd timeout
// with shuffleTrackingEnabled as true".
#[test]
fn executor_timeout_is_max_of_shuffle_and_rdd_timeout_with_shuffle_tracking() {
    executor_timeout_is_max_of_shuffle_and_rdd_timeout(true);
}

// ExecutorMonitorSuite "SPARK-43398: executor timeout should be max of shuffle and rdd timeout
// with shuffleTrackingEnabled as false".
#[test]
fn executor_timeout_is_max_of_shuffle_and_rdd_timeout_without_shuffle_tracking() {
    executor_timeout_is_max_of_shuffle_and_rdd_timeout(false);
}

// Tracker.updateTimeout (Spark 4.0.0 jar: `Seq(storageTimeout, shuffleTimeout,
// idleTimeoutNs).max`): a storage timeout shorter than the idle one does not cut it short.
#[test]
fn a_short_storage_timeout_does_not_cut_the_idle_timeout() {
    let mut m = ExecutorMonitor::new(MonitorSettings {
        idle_timeout_ms: IDLE,
        storage_timeout_ms: 10_000,
        shuffle_timeout_ms: NEVER,
        shuffle_tracking: false,
    });
    m.on_executor_added(e(1), 0);
    m.on_block_updated(e(1), 1, 0, true);
    assert!(m.timed_out_executors(10_000).is_empty());
    assert_eq!(m.timed_out_executors(IDLE), vec![e(1)]);
}
