//! Cases of Spark 4.0's TaskSetManagerSuite and TaskSchedulerImplSuite
//! (core/src/test/scala/org/apache/spark/scheduler/), ported against `TaskSetManager` and
//! `TaskSchedulerImpl` alone: the harness of `suite_tests` (a TaskSchedulerImpl and a fake
//! DAGScheduler), with the suite's `manager.resourceOffer(execId, host, maxLocality)` as
//! `TaskSchedulerImpl::task_set_resource_offer` and its ManualClock as the paused clock.

use super::events::{SchedulerEvent, TaskSet};
use super::locality::{PreferredLocations, TaskLocality};
use super::suite_tests::{Alone, offer, run, task_set, with_exclusion};
use crate::kernel::clock;
use crate::world::config::{LocalitySettings, SpeculationSettings};
use TaskLocality::{Any, NoPref, NodeLocal, ProcessLocal, RackLocal};
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::TaskEndReason;
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::task::{TaskDescription, TaskResultData};
use std::collections::BTreeSet;
use std::rc::Rc;

/// The suite's `LOCALITY_WAIT_MS`: `spark.locality.wait`'s default, 3 s.
const LOCALITY_WAIT_MS: u64 = 3000;

/// A `TaskLocation`: a host, and for `TaskLocation(host, executor)` (an
/// `ExecutorCacheTaskLocation`) the executor holding the task's partition.
struct Loc(&'static str, Option<u32>);

/// `FakeTask.createTaskSet(n, stage, attempt, prefLocs*)`: each task's preferred locations.
fn located_in(stage: u32, attempt: u32, locs: &[&[Loc]]) -> TaskSet {
    let mut set = task_set(stage, attempt, locs.len() as u32, None);
    set.prefs = PreferredLocations {
        hosts: locs
            .iter()
            .map(|l| l.iter().map(|x| Rc::from(x.0)).collect())
            .collect(),
        executors: locs
            .iter()
            .map(|l| l.iter().find_map(|x| x.1).map(ExecutorId))
            .collect(),
    };
    set
}

/// `located_in` for stage 0, attempt 0.
fn located(locs: &[&[Loc]]) -> TaskSet {
    located_in(0, 0, locs)
}

/// The suite's `FakeTaskScheduler(sc, liveExecutors*)`: a TaskSchedulerImpl alone
/// (spark.task.maxFailures 4) that knows these executors alive.
fn live(executors: &[(u32, &str)]) -> Alone {
    let mut a = Alone::new(1);
    a.add_executors(executors);
    a
}

/// `live` with delay scheduling's settings and the cluster's racks (host, rack).
fn live_with(mut a: Alone, locality: LocalitySettings, racks: &[(&str, &str)]) -> Alone {
    a.ts = a.ts.with_locality(locality, racks.iter().copied(), 0);
    a
}

/// `spark.locality.wait` = 0.
fn no_wait() -> LocalitySettings {
    LocalitySettings {
        wait_process_ms: 0,
        wait_node_ms: 0,
        wait_rack_ms: 0,
        ..LocalitySettings::default()
    }
}

impl Alone {
    /// `sched.addExecutor(execId, host)` then `manager.executorAdded()`.
    fn add_executors(&mut self, executors: &[(u32, &str)]) {
        for &(e, host) in executors {
            let host: Rc<str> = Rc::from(host);
            self.ts
                .executor_offered(ExecutorId(e), &host, &mut self.dag);
        }
    }

    /// `manager.resourceOffer(execId, host, maxLocality)` on the stage-0 set.
    fn tsm_offer(&mut self, e: u32, host: &str, max: TaskLocality) -> Option<Box<TaskDescription>> {
        self.tsm_offer_to((0, 0, 0), e, host, max)
    }

    /// `manager.resourceOffer(execId, host, maxLocality)` on the set `key`.
    fn tsm_offer_to(
        &mut self,
        key: (u32, u32, u32),
        e: u32,
        host: &str,
        max: TaskLocality,
    ) -> Option<Box<TaskDescription>> {
        let o = offer(e, host, 1);
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts
            .task_set_resource_offer(key, &o, max, env, dag, alloc)
    }

    /// The index `tsm_offer` launches, if any.
    fn index_at(&mut self, e: u32, host: &str, max: TaskLocality) -> Option<u32> {
        self.tsm_offer(e, host, max).map(|t| t.index)
    }

    /// `manager.myLocalityLevels` of the stage-0 set.
    fn levels(&mut self) -> Vec<TaskLocality> {
        self.tsm(0, 0).levels.as_slice().to_vec()
    }

    /// `taskScheduler.resourceOffers(offers, isAllFreeResources)`: the tasks launched.
    fn offers(&mut self, offers: &mut [super::events::WorkerOffer], all_free: bool) -> Vec<u32> {
        let mut launched = Vec::new();
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts
            .resource_offers(offers, all_free, &mut launched, env, dag, alloc);
        launched.iter().map(|t| t.stage_id).collect()
    }

    /// The indices the fake DAGScheduler was told are speculatable (`speculativeTasks`).
    fn speculated(&self) -> BTreeSet<u32> {
        self.dag.speculative.iter().map(|t| t.index).collect()
    }
}

// ---- Delay scheduling and locality levels (TaskSetManagerSuite). ----

// TaskSetManagerSuite "skip unsatisfiable locality levels": the task's cache executor (execB)
// is not alive, so its base level is NODE_LOCAL: an offer on another host waits, one on its
// host gets it before any wait has passed.
#[test]
fn skip_unsatisfiable_locality_levels() {
    let mut a = live(&[(1, "host1"), (3, "host2")]);
    a.ts.submit_tasks(located(&[&[Loc("host1", Some(2))]]));
    assert_eq!(a.levels(), [NodeLocal, Any]);
    assert_eq!(a.index_at(3, "host2", Any), None);
    assert_eq!(a.index_at(1, "host1", Any), Some(0));
}

// TaskSetManagerSuite "we do not need to delay scheduling when we only have noPref tasks in the
// queue": once the process-local tasks run, a NO_PREF offer gets the task without a preference
// at once (a NODE_LOCAL one gets nothing).
#[test]
fn no_delay_when_only_no_pref_tasks_are_left() {
    let mut a = live(&[(1, "host1"), (3, "host2")]);
    a.ts.submit_tasks(located(&[
        &[Loc("host1", Some(1))],
        &[Loc("host2", Some(3))],
        &[],
    ]));
    assert_eq!(a.index_at(1, "host1", ProcessLocal), Some(0));
    assert_eq!(a.index_at(3, "host2", ProcessLocal), Some(1));
    assert_eq!(a.index_at(3, "host2", NodeLocal), None);
    assert_eq!(a.index_at(3, "host2", NoPref), Some(2));
}

// TaskSetManagerSuite "delay scheduling with failed hosts": a task whose host died is not a
// task without preference; after two waits tasks 1 and 2 run off their hosts.
#[test]
fn delay_scheduling_with_failed_hosts() {
    run(async {
        let mut a = live(&[(1, "host1"), (2, "host2"), (3, "host3")]);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", None)],
            &[Loc("host2", None)],
            &[Loc("host3", None)],
        ]));
        assert_eq!(a.index_at(1, "host1", Any), Some(0));
        assert_eq!(a.index_at(1, "host1", Any), None);
        a.lose(2);
        assert_eq!(a.index_at(1, "host1", Any), None);
        clock::advance(clock::ms(LOCALITY_WAIT_MS * 2)).await;
        assert_eq!(a.index_at(1, "host1", Any), Some(1));
        assert_eq!(a.index_at(1, "host1", Any), Some(2));
        assert_eq!(a.index_at(1, "host1", Any), None);
        assert_eq!(a.index_at(2, "host2", Any), None);
    });
}

// TaskSetManagerSuite "SPARK-31837: Shift to the new highest locality level if there is when
// recomputeLocality": with no executor alive only ANY is valid; once execA joins, the set moves
// to PROCESS_LOCAL, so an offer elsewhere gets nothing and execA's gets the task.
#[test]
fn shift_to_the_new_highest_locality_level_when_recomputing_locality() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(located(&[
        &[Loc("host1", Some(1))],
        &[Loc("host1", Some(1))],
    ]));
    assert_eq!(a.levels(), [Any]);
    assert!(a.tsm_offer(2, "host2", Any).is_some());
    a.add_executors(&[(1, "host1")]);
    assert_eq!(a.levels(), [ProcessLocal, NodeLocal, Any]);
    assert!(a.tsm_offer(3, "host3", Any).is_none());
    assert!(a.tsm_offer(1, "host1", Any).is_some());
}

// TaskSetManagerSuite "SPARK-32653: Decommissioned host should not be used to calculate
// locality levels": both executors of host0 decommission with their host; only ANY is left.
#[test]
fn a_decommissioned_host_is_no_locality_level() {
    let mut a = live(&[(0, "host0"), (1, "host0")]);
    a.ts.submit_tasks(located(&[
        &[Loc("host0", Some(0))],
        &[Loc("host0", Some(1))],
    ]));
    assert_eq!(a.levels(), [ProcessLocal, NodeLocal, Any]);
    a.ts.executor_decommission(ExecutorId(0), Some("host0"));
    a.ts.executor_decommission(ExecutorId(1), Some("host0"));
    assert_eq!(a.levels(), [Any]);
}

// TaskSetManagerSuite "SPARK-32653: Decommissioned executor should not be used to calculate
// locality levels": the task's cache executor decommissions without its host: NODE_LOCAL stays.
#[test]
fn a_decommissioned_executor_is_no_locality_level() {
    let mut a = live(&[(0, "host0"), (1, "host0")]);
    a.ts.submit_tasks(located(&[&[Loc("host0", Some(0))]]));
    assert_eq!(a.levels(), [ProcessLocal, NodeLocal, Any]);
    a.ts.executor_decommission(ExecutorId(0), None);
    assert_eq!(a.levels(), [NodeLocal, Any]);
}

// TaskSetManagerSuite "test RACK_LOCAL tasks": host1 and host2 on rack1, host3 on rack2; after
// three waits, an offer on host3 gets nothing at RACK_LOCAL but task 0 at ANY, and one on host2
// gets task 1 at RACK_LOCAL.
#[test]
fn test_rack_local_tasks() {
    run(async {
        let racks = [("host1", "rack1"), ("host2", "rack1"), ("host3", "rack2")];
        let mut a = live_with(Alone::new(1), LocalitySettings::default(), &racks);
        a.add_executors(&[(1, "host1"), (2, "host2"), (3, "host3")]);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", Some(1))],
            &[Loc("host1", Some(1))],
        ]));
        assert_eq!(a.levels(), [ProcessLocal, NodeLocal, RackLocal, Any]);
        clock::advance(clock::ms(LOCALITY_WAIT_MS * 3)).await;
        assert_eq!(a.index_at(3, "host3", RackLocal), None);
        let t = a.tsm_offer(3, "host3", Any).expect("ANY");
        assert_eq!(
            (t.index, a.ts.running.get(t.task_id).map(|r| r.locality)),
            (0, Some(Any))
        );
        let t = a.tsm_offer(2, "host2", RackLocal).expect("RACK_LOCAL");
        let locality = a.ts.running.get(t.task_id).map(|r| r.locality);
        assert_eq!((t.index, locality), (1, Some(RackLocal)));
    });
}

// TaskSetManagerSuite "node-local tasks should be scheduled right away when there are only
// node-local and no-preference tasks": NODE_LOCAL is the set's first level, so its tasks go at
// once; the task without preference follows at NO_PREF.
#[test]
fn node_local_tasks_are_scheduled_right_away_beside_no_pref_tasks() {
    let mut a = live(&[(1, "host1"), (2, "host2"), (3, "host3")]);
    a.ts.submit_tasks(located(&[
        &[Loc("host1", None)],
        &[Loc("host2", None)],
        &[],
        &[Loc("host3", None)],
    ]));
    assert_eq!(a.index_at(1, "host1", NodeLocal), Some(0));
    assert_eq!(a.index_at(1, "host2", NodeLocal), Some(1));
    assert_eq!(a.index_at(1, "host3", NodeLocal), Some(3));
    assert_eq!(a.index_at(1, "host3", NodeLocal), None);
    assert_eq!(a.index_at(1, "host3", NoPref), Some(2));
}

// TaskSetManagerSuite "SPARK-4939: node-local tasks should be scheduled right after
// process-local tasks finished": with no process-local task left, NODE_LOCAL is allowed at once.
#[test]
fn node_local_tasks_follow_process_local_ones_at_once() {
    let mut a = live(&[(1, "host1"), (2, "host2")]);
    a.ts.submit_tasks(located(&[
        &[Loc("host1", None)],
        &[Loc("host2", None)],
        &[Loc("host1", Some(1))],
        &[Loc("host2", Some(2))],
    ]));
    assert_eq!(a.index_at(1, "host1", NodeLocal), Some(2));
    assert_eq!(a.index_at(2, "host2", NodeLocal), Some(3));
    assert_eq!(a.index_at(1, "host1", NodeLocal), Some(0));
    assert_eq!(a.index_at(2, "host2", NodeLocal), Some(1));
    assert_eq!(a.index_at(1, "host1", NodeLocal), None);
    assert_eq!(a.index_at(2, "host2", NodeLocal), None);
}

// TaskSetManagerSuite "SPARK-4939: no-pref tasks should be scheduled after process-local tasks
// finished": the task without preference runs at NO_PREF at once, not at a stricter level.
#[test]
fn no_pref_tasks_follow_process_local_ones_at_once() {
    let mut a = live(&[(1, "host1"), (2, "host2")]);
    a.ts.submit_tasks(located(&[
        &[],
        &[Loc("host1", Some(1))],
        &[Loc("host2", Some(2))],
    ]));
    assert_eq!(a.index_at(1, "host1", ProcessLocal), Some(1));
    assert_eq!(a.index_at(2, "host2", ProcessLocal), Some(2));
    assert_eq!(a.index_at(1, "host1", ProcessLocal), None);
    assert_eq!(a.index_at(1, "host1", NodeLocal), None);
    assert_eq!(a.index_at(1, "host1", NoPref), Some(0));
    assert_eq!(a.index_at(1, "host1", Any), None);
}

// TaskSetManagerSuite "Ensure TaskSetManager is usable after addition of levels" (SPARK-2931):
// levels added and lost again leave the set able to offer its failed tasks.
#[test]
fn a_task_set_manager_is_usable_after_levels_are_added() {
    run(async {
        let mut a = Alone::new(1);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", Some(1))],
            &[Loc("host2", Some(21))],
        ]));
        assert_eq!(a.levels(), [Any]);
        a.add_executors(&[(1, "host1"), (22, "host2")]);
        assert!(a.tsm(0, 0).pending.no_prefs.is_empty());
        assert_eq!(a.levels(), [ProcessLocal, NodeLocal, Any]);
        assert!(a.tsm_offer(1, "host1", Any).is_some());
        clock::advance(clock::ms(LOCALITY_WAIT_MS * 4)).await;
        assert!(a.tsm_offer(22, "host2", Any).is_some());
        a.lose(1);
        a.lose(22);
        clock::advance(clock::ms(LOCALITY_WAIT_MS * 4)).await;
        a.add_executors(&[(3, "host3")]);
        assert!(a.tsm_offer(3, "host3", Any).is_some());
    });
}

// TaskSetManagerSuite "executors should be excluded after task failure, in spite of locality
// preferences" (spark.locality.wait 0): each failed attempt excludes its executor for the task
// (and host1 after two), whatever the task prefers; the stage's exclusions never expire; the
// fourth failure aborts the set.
#[test]
fn executors_are_excluded_after_task_failure_in_spite_of_locality_preferences() {
    run(async {
        let mut a = live_with(with_exclusion(false, 120_000), no_wait(), &[]);
        a.add_executors(&[(1, "host1"), (11, "host1"), (2, "host2")]);
        a.ts.submit_tasks(located(&[&[Loc("host1", Some(1))]]));
        let t = a.tsm_offer(1, "host1", ProcessLocal).expect("exec1");
        a.fail(t.task_id);
        assert!(a.dag.failed_sets.is_empty());
        for level in [ProcessLocal, NodeLocal, RackLocal, Any] {
            assert!(a.tsm_offer(1, "host1", level).is_none(), "{level:?}");
        }
        let t = a.tsm_offer(11, "host1", NodeLocal).expect("exec1.1");
        assert_eq!((t.index, t.executor_id), (0, ExecutorId(11)));
        a.fail(t.task_id);
        assert!(a.dag.failed_sets.is_empty());
        assert!(a.tsm_offer(11, "host1", NodeLocal).is_none());
        let t = a.tsm_offer(2, "host2", Any).expect("exec2");
        a.fail(t.task_id);
        assert!(a.dag.failed_sets.is_empty());
        assert!(a.tsm_offer(2, "host2", Any).is_none());
        clock::advance(clock::ms(300)).await;
        assert!(a.tsm_offer(1, "host1", ProcessLocal).is_none());
        let t = a.tsm_offer(3, "host3", Any).expect("exec3");
        assert_eq!((t.index, t.executor_id), (0, ExecutorId(3)));
        assert!(a.tsm_offer(3, "host3", Any).is_none());
        a.fail(t.task_id);
        assert_eq!(a.dag.failed_sets.len(), 1);
    });
}

// ---- Speculation (TaskSetManagerSuite). ----

/// Speculation on with `spark.speculation.multiplier` 0 (copies as soon as a task runs longer
/// than the median) and this quantile; the suite's `checkSpeculatableTasks(0)` is a
/// `minTimeToSpeculation` of 0.
fn speculating(quantile: f64, executors: &[(u32, &str)]) -> Alone {
    with_speculation(
        SpeculationSettings {
            multiplier: 0.0,
            quantile,
            min_task_runtime_ms: 0,
            ..SpeculationSettings::default()
        },
        executors,
    )
}

fn with_speculation(settings: SpeculationSettings, executors: &[(u32, &str)]) -> Alone {
    let mut a = Alone::new(1);
    a.ts = a.ts.with_speculation(Some(settings));
    a.add_executors(executors);
    a
}

/// Offers each (executor, host) once at NO_PREF; each must launch there.
fn start_on(a: &mut Alone, places: &[(u32, &str)]) -> Vec<TaskDescription> {
    places
        .iter()
        .map(|&(e, h)| {
            let t = a.tsm_offer(e, h, NoPref).expect("a task");
            assert_eq!(t.executor_id, ExecutorId(e));
            *t
        })
        .collect()
}

/// Whether `events` kill `tid` on `executor` because another attempt succeeded.
fn kills(events: &[SchedulerEvent], tid: u64, executor: u32) -> bool {
    events.iter().any(|e| {
        matches!(e, SchedulerEvent::KillTask { task_id, executor_id, interrupt_thread: true, reason }
            if *task_id == TaskId(tid) && *executor_id == ExecutorId(executor)
                && reason == "another attempt succeeded")
    })
}

// TaskSetManagerSuite "Kill other task attempts when one attempt belonging to the same task
// succeeds": the copy of task 3 (TID 4, attempt 1, exec1) succeeds, which kills TID 3 on exec2.
#[test]
fn kill_other_task_attempts_when_one_attempt_of_the_same_task_succeeds() {
    run(async {
        let mut a = speculating(0.9, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 4, None));
        start_on(
            &mut a,
            &[(1, "host1"), (1, "host1"), (2, "host2"), (2, "host2")],
        );
        assert_eq!(a.dag.started, [TaskId(0), TaskId(1), TaskId(2), TaskId(3)]);
        clock::advance(clock::ms(1)).await;
        for tid in 0..3 {
            a.update(TaskId(tid), TaskState::Finished);
            assert_eq!(a.dag.ended_with(TaskId(tid)), Some(&TaskEndReason::Success));
        }
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([3]));
        let t = a.tsm_offer(1, "host1", NoPref).expect("the copy");
        let copy = (t.index, t.task_id, t.executor_id, t.attempt_number);
        assert_eq!(copy, (3, TaskId(4), ExecutorId(1), 1));
        let events = a.update(TaskId(4), TaskState::Finished);
        assert!(kills(&events, 3, 2), "{events:?}");
        assert_eq!(a.dag.ended_with(TaskId(4)), Some(&TaskEndReason::Success));
    });
}

// TaskSetManagerSuite "Killing speculative tasks does not count towards aborting the taskset":
// tasks 3 and 4 each fail three times (of 4 allowed), then their copies win; the originals'
// kills do not count, the set goes on and ends once both copies have succeeded.
#[test]
fn killing_speculative_tasks_does_not_count_towards_aborting_the_task_set() {
    run(async {
        let mut a = speculating(0.6, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 5, None));
        let mut tasks = start_on(
            &mut a,
            &[
                (1, "host1"),
                (1, "host1"),
                (1, "host1"),
                (2, "host2"),
                (2, "host2"),
            ],
        );
        clock::advance(clock::ms(1)).await;
        for tid in 0..3 {
            a.update(TaskId(tid), TaskState::Finished);
        }
        let running = |a: &Alone, tasks: &[TaskDescription], index: u32| {
            let t = tasks
                .iter()
                .find(|t| t.index == index && a.dag.ended.iter().all(|e| e.0 != t.task_id));
            t.expect("a running attempt").task_id
        };
        for attempt in 0..3 {
            for index in [3, 4] {
                let tid = running(&a, &tasks, index);
                a.fail(tid);
                assert!(!a.tsm(0, 0).zombie);
                let next = a.tsm_offer(2, "host2", NoPref);
                tasks.push(*next.unwrap_or_else(|| panic!("attempt {attempt} of {index}")));
            }
        }
        let originals = [running(&a, &tasks, 3), running(&a, &tasks, 4)];
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([3, 4]));
        let copy = a.tsm_offer(1, "host1", NoPref).expect("a copy");
        assert!(copy.index == 3 || copy.index == 4);
        let launched = (copy.task_id, copy.executor_id, copy.attempt_number);
        assert_eq!(launched, (TaskId(11), ExecutorId(1), 4));
        let original = originals[copy.index as usize - 3];
        let events = a.update(copy.task_id, TaskState::Finished);
        assert!(kills(&events, original.0, 2), "{events:?}");
        a.update(original, TaskState::Killed);
        assert_eq!(a.tsm(0, 0).num_successful, 4);
        assert!(!a.tsm(0, 0).zombie);
        let copy2 = a.tsm_offer(1, "host1", NoPref).expect("another copy");
        assert!(copy2.index == 3 || copy2.index == 4);
        assert_ne!(copy2.index, copy.index);
        assert_eq!(copy2.attempt_number, 4);
        let original2 = originals[copy2.index as usize - 3];
        let events = a.update(copy2.task_id, TaskState::Finished);
        assert!(kills(&events, original2.0, 2), "{events:?}");
        assert_eq!(a.tsm(0, 0).num_successful, 5);
        assert!(a.tsm(0, 0).zombie);
    });
}

// TaskSetManagerSuite "SPARK-19868: DagScheduler only notified of taskEnd when state is ready":
// the set's only task succeeding makes it a zombie before the DAGScheduler hears of the end.
#[test]
fn the_dag_scheduler_hears_of_a_task_end_once_the_state_is_ready() {
    let mut a = live(&[(1, "host1")]);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    let t = a.tsm_offer(1, "host1", NoPref).expect("a task");
    a.update(t.task_id, TaskState::Finished);
    assert_eq!(a.dag.zombie_at_end, [true]);
}

// TaskSetManagerSuite "SPARK-24677: Avoid NoSuchElementException from MedianHeap": a partition
// completed by another attempt (`markPartitionCompleted`) adds no duration, and checking for
// speculation with no duration yet marks nothing.
#[test]
fn a_partition_completed_elsewhere_leaves_speculation_without_a_median() {
    let mut a = speculating(0.1, &[]);
    a.ts.submit_tasks(task_set(0, 0, 10, None));
    let mut offers: Vec<_> = (0..8).map(|i| offer(i, &format!("host-{i}"), 1)).collect();
    assert_eq!(a.offers(&mut offers, false).len(), 8);
    assert_eq!(a.tsm(0, 0).running, 8);
    a.ts.notify_partition_completion(0, 0, 8, &mut Vec::new());
    assert!(a.tsm(0, 0).successful[8]);
    assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
    assert!(a.dag.speculative.is_empty());
}

/// The four map tasks of SPARK-22074 and SPARK-24755: 0 and 1 on exec1, 2 on exec3, 3 on exec2
/// (each on its preferred executor), 0 and 1 succeed, and 2's copy (TID 4 on exec2) succeeds,
/// killing 2.0 on exec3.
fn copy_of_task_2_wins() -> Alone {
    let places = [(1, "host1"), (1, "host1"), (3, "host3"), (2, "host2")];
    let mut a = speculating(0.5, &[(1, "host1"), (2, "host2"), (3, "host3")]);
    let mut set = located(&[
        &[Loc("host1", Some(1))],
        &[Loc("host1", Some(1))],
        &[Loc("host3", Some(3))],
        &[Loc("host2", Some(2))],
    ]);
    set.code = task_set(0, 0, 4, Some(0)).code;
    a.ts.submit_tasks(set);
    let tasks = start_on(&mut a, &places);
    assert_eq!((tasks[2].index, tasks[2].attempt_number), (2, 0));
    a
}

// TaskSetManagerSuite "SPARK-24755 Executor loss can cause task to not be resubmitted": losing
// exec2, which holds the output of task 2's winning copy, resubmits index 2.
#[test]
fn an_executor_loss_resubmits_the_winning_copys_output() {
    run(async {
        let mut a = copy_of_task_2_wins();
        clock::advance(clock::ms(1)).await;
        a.update(TaskId(0), TaskState::Finished);
        a.update(TaskId(1), TaskState::Finished);
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([2, 3]));
        let t = a.tsm_offer(2, "host2", Any).expect("the copy of 2");
        let copy = (t.index, t.task_id, t.executor_id, t.attempt_number);
        assert_eq!(copy, (2, TaskId(4), ExecutorId(2), 1));
        let events = a.update(TaskId(4), TaskState::Finished);
        assert!(kills(&events, 2, 3), "{events:?}");
        assert_eq!(a.dag.resubmitted(), 0);
        a.lose(2);
        let resubmitted: Vec<TaskId> = a
            .dag
            .ended
            .iter()
            .filter(|e| e.1 == TaskEndReason::Resubmitted)
            .map(|e| e.0)
            .collect();
        assert_eq!(resubmitted, [TaskId(4)], "index 2's winning attempt");
    });
}

// TaskSetManagerSuite "SPARK-13343 speculative tasks that didn't commit shouldn't be marked as
// success": the original of task 3 wins; its copy (TID 4) finishing after the kill was sent ends
// `TaskKilled("Finish but did not commit due to another attempt succeeded")`, not Success.
#[test]
fn a_speculative_task_that_did_not_commit_is_not_a_success() {
    run(async {
        let mut a = speculating(0.9, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 4, None));
        start_on(
            &mut a,
            &[(1, "host1"), (1, "host1"), (2, "host2"), (2, "host2")],
        );
        clock::advance(clock::ms(1)).await;
        for tid in 0..3 {
            a.update(TaskId(tid), TaskState::Finished);
        }
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([3]));
        let t = a.tsm_offer(1, "host1", NoPref).expect("the copy");
        assert_eq!((t.index, t.task_id, t.attempt_number), (3, TaskId(4), 1));
        let events = a.update(TaskId(3), TaskState::Finished);
        assert!(kills(&events, 4, 1), "{events:?}");
        a.update(TaskId(4), TaskState::Finished);
        assert_eq!(a.dag.ended_with(TaskId(3)), Some(&TaskEndReason::Success));
        let killed = TaskEndReason::TaskKilled {
            reason: "Finish but did not commit due to another attempt succeeded".into(),
        };
        assert_eq!(a.dag.ended_with(TaskId(4)), Some(&killed));
        assert!(a.tsm(0, 0).successful[3]);
    });
}

// TaskSetManagerSuite "SPARK-26755 Ensure that a speculative task is submitted only once for
// execution": tasks 1 and 3 get one copy each (3 on exec1, 1 on exec2); checking again marks
// nothing, and no offer launches a third attempt.
#[test]
fn a_speculative_task_is_submitted_only_once() {
    run(async {
        let mut a = speculating(0.5, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 4, None));
        start_on(
            &mut a,
            &[(1, "host1"), (1, "host1"), (2, "host2"), (2, "host2")],
        );
        clock::advance(clock::ms(1)).await;
        a.update(TaskId(0), TaskState::Finished);
        a.update(TaskId(2), TaskState::Finished);
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([1, 3]));
        let copies = &a.tsm(0, 0).copies_running;
        assert_eq!((copies[1], copies[3]), (1, 1));
        let t2 = a.tsm_offer(1, "host1", NoPref).expect("a copy on exec1");
        let t3 = a.tsm_offer(2, "host2", NoPref).expect("a copy on exec2");
        let c2 = (t2.index, t2.task_id, t2.executor_id, t2.attempt_number);
        let c3 = (t3.index, t3.task_id, t3.executor_id, t3.attempt_number);
        assert_eq!(c2, (3, TaskId(4), ExecutorId(1), 1));
        assert_eq!(c3, (1, TaskId(5), ExecutorId(2), 1));
        clock::advance(clock::ms(1)).await;
        assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
        let copies = &a.tsm(0, 0).copies_running;
        assert_eq!((copies[1], copies[3]), (2, 2));
        assert!(a.tsm_offer(1, "host1", Any).is_none());
        assert!(a.tsm_offer(2, "host2", Any).is_none());
        assert!(a.tsm_offer(3, "host3", Any).is_none());
    });
}

// TaskSetManagerSuite "SPARK-26755 Ensure that a speculative task obeys original locality
// preferences": task 0 (host1, host3) and task 1 (host2) are speculatable; host4 gets no copy
// at NODE_LOCAL, host2 none (task 1 already runs there), host3 task 0's, and host4 task 1's at
// ANY; then nothing is left.
#[test]
fn a_speculative_task_obeys_original_locality_preferences() {
    run(async {
        let hosts = [(1, "host1"), (2, "host2"), (3, "host3"), (4, "host4")];
        let mut a = speculating(0.5, &hosts);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", None), Loc("host3", None)],
            &[Loc("host2", None)],
            &[Loc("host3", None)],
        ]));
        start_on(&mut a, &hosts[..3]);
        assert_eq!(a.dag.started, [TaskId(0), TaskId(1), TaskId(2)]);
        clock::advance(clock::ms(1)).await;
        a.update(TaskId(2), TaskState::Finished);
        clock::advance(clock::ms(1)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([0, 1]));
        assert!(a.tsm_offer(4, "host4", NodeLocal).is_none());
        assert!(a.tsm_offer(2, "host2", NodeLocal).is_none());
        assert_eq!(a.index_at(3, "host3", NodeLocal), Some(0));
        assert_eq!(a.index_at(4, "host4", Any), Some(1));
        assert!(a.tsm_offer(1, "host1", Any).is_none());
        assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
        assert!(a.tsm_offer(1, "host1", Any).is_none());
    });
}

/// TaskSetManagerSuite's `testSpeculationDurationThreshold(provided, numTasks, numSlots)`:
/// quantile 1.0 (no regular speculation), `spark.speculation.task.duration.threshold` 60min
/// when provided, `numSlots` slots per executor; `numTasks` tasks run on exec1.. After 60
/// minutes nothing is speculatable; one second later every task is, only if the threshold is
/// provided and the stage fits one executor's slots, and only once.
fn speculation_duration_threshold(provided: bool, num_tasks: u32, num_slots: u32) {
    run(async {
        let settings = SpeculationSettings {
            quantile: 1.0,
            min_task_runtime_ms: 0,
            task_duration_threshold_ms: provided.then_some(60 * 60 * 1000),
            slots_per_executor: num_slots,
            ..SpeculationSettings::default()
        };
        let mut a = with_speculation(settings, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, num_tasks, None));
        for i in 1..=num_tasks {
            assert!(a.tsm_offer(i, &format!("host{i}"), NoPref).is_some());
        }
        clock::advance(clock::ms(60 * 60 * 1000)).await;
        assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
        assert!(a.dag.speculative.is_empty());
        clock::advance(clock::ms(1000)).await;
        if provided && num_slots >= num_tasks {
            assert!(a.ts.check_speculatable_tasks(&mut a.dag));
            assert_eq!(a.dag.speculative.len(), num_tasks as usize);
            assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
            assert_eq!(a.dag.speculative.len(), num_tasks as usize);
        } else {
            assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
            assert!(a.dag.speculative.is_empty());
        }
    });
}

// TaskSetManagerSuite "SPARK-29976 when a speculation time threshold is provided, should
// speculative run the task even if there are not enough successful runs, total tasks: 1".
#[test]
fn a_duration_threshold_speculates_a_one_task_stage() {
    speculation_duration_threshold(true, 1, 1);
}

// TaskSetManagerSuite "SPARK-29976: when the speculation time threshold is not provided,don't
// speculative run if there are not enough successful runs, total tasks: 1".
#[test]
fn no_duration_threshold_no_speculation_of_a_one_task_stage() {
    speculation_duration_threshold(false, 1, 1);
}

// TaskSetManagerSuite "SPARK-29976 when a speculation time threshold is provided, should
// speculative run the task even if there are not enough successful runs, total tasks: 2".
#[test]
fn a_duration_threshold_speculates_a_two_task_stage() {
    speculation_duration_threshold(true, 2, 2);
}

// TaskSetManagerSuite "SPARK-29976: when the speculation time threshold is not provided,don't
// speculative run if there are not enough successful runs, total tasks: 2".
#[test]
fn no_duration_threshold_no_speculation_of_a_two_task_stage() {
    speculation_duration_threshold(false, 2, 2);
}

// TaskSetManagerSuite "SPARK-29976 when a speculation time threshold is provided, should not
// speculative if there are too many tasks in the stage even though time threshold is provided".
#[test]
fn a_duration_threshold_does_not_speculate_a_stage_larger_than_the_slots() {
    speculation_duration_threshold(true, 2, 1);
}

// ---- TaskSchedulerImplSuite. ----

/// TaskSchedulerImplSuite's `setupTaskSchedulerForLocalityTests`: exec1 on host1 is known
/// first, then stage 1 attempt 1's eight tasks all prefer exec1 (the set starts at
/// PROCESS_LOCAL).
fn locality_tests_scheduler() -> Alone {
    let mut a = live(&[(1, "host1")]);
    let locs: Vec<&[Loc]> = vec![&[Loc("host1", Some(1))]; 8];
    a.ts.submit_tasks(located_in(1, 1, &locs));
    a
}

/// One offer of one core, all free resources or not: the stages of the tasks launched.
fn offer_one(a: &mut Alone, e: u32, all_free: bool) -> Vec<u32> {
    a.offers(&mut [offer(e, "host1", 1)], all_free)
}

// TaskSchedulerImplSuite "SPARK-18886 - partial offers (isAllFreeResources = false) reset timer
// before any resources have been rejected": after the wait, an accepted partial offer resets
// the set to PROCESS_LOCAL, so exec2 (NODE_LOCAL) gets nothing.
#[test]
fn partial_offers_reset_the_timer_before_any_resources_have_been_rejected() {
    run(async {
        let mut a = locality_tests_scheduler();
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, false).len(), 1);
        assert!(offer_one(&mut a, 2, false).is_empty());
    });
}

// TaskSchedulerImplSuite "SPARK-18886 - delay scheduling timer is reset when it accepts all
// resources offered when isAllFreeResources = true".
#[test]
fn the_timer_is_reset_when_all_free_resources_offered_are_accepted() {
    run(async {
        let mut a = locality_tests_scheduler();
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, true).len(), 1);
        assert!(offer_one(&mut a, 2, false).is_empty());
    });
}

// TaskSchedulerImplSuite "SPARK-18886 - task set with no locality requirements should not
// starve one with them": stage 2 (no preferences) takes exec2's offers while stage 1 waits; a
// full offer of 0 cores resets nothing, so after the wait stage 1 takes exec2 at NODE_LOCAL.
#[test]
fn a_task_set_without_locality_does_not_starve_one_with_it() {
    run(async {
        let mut a = locality_tests_scheduler();
        a.ts.submit_tasks(task_set(2, 0, 8, None));
        assert_eq!(offer_one(&mut a, 2, false), [2]);
        clock::advance(clock::ms(2000)).await;
        assert_eq!(offer_one(&mut a, 2, false), [2]);
        assert!(a.offers(&mut [offer(2, "host1", 0)], true).is_empty());
        clock::advance(clock::ms(2000)).await;
        assert_eq!(offer_one(&mut a, 2, false), [1]);
    });
}

// TaskSchedulerImplSuite "SPARK-18886 - partial resource offers (isAllFreeResources = false)
// reset time if last full resource offer (isAllResources = true) was accepted as well as any
// following partial resource offers".
#[test]
fn partial_offers_reset_the_timer_after_an_accepted_full_offer() {
    run(async {
        let mut a = locality_tests_scheduler();
        assert!(a.offers(&mut [offer(1, "host1", 0)], true).is_empty());
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, false).len(), 1);
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, false).len(), 1);
        assert!(offer_one(&mut a, 2, false).is_empty());
    });
}

// TaskSchedulerImplSuite "SPARK-18886 - partial resource offers (isAllFreeResources = false) do
// not reset time if any offer was rejected since last full offer was fully accepted": a
// rejected full offer, then a partial offer with a reject, each keep the set at NODE_LOCAL.
#[test]
fn partial_offers_do_not_reset_the_timer_after_a_reject() {
    run(async {
        let mut a = locality_tests_scheduler();
        assert!(offer_one(&mut a, 2, true).is_empty());
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, false).len(), 1);
        assert_eq!(offer_one(&mut a, 2, false).len(), 1);
        assert_eq!(offer_one(&mut a, 1, true).len(), 1);
        let both = a.offers(&mut [offer(2, "host1", 1), offer(1, "host1", 1)], false);
        assert_eq!(both.len(), 1);
        clock::advance(clock::ms(3000)).await;
        assert_eq!(offer_one(&mut a, 1, false).len(), 1);
        assert_eq!(offer_one(&mut a, 2, false).len(), 1);
    });
}

// TaskSchedulerImplSuite "concurrent attempts for the same stage only have one active taskset":
// submitting a stage's next attempt makes every earlier attempt of it a zombie
// (TaskSchedulerImpl.submitTasks, Spark 4.0.0's `$anonfun$submitTasks$3`).
#[test]
fn concurrent_attempts_of_a_stage_have_one_active_task_set() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    assert!(!a.tsm(0, 0).zombie);
    a.ts.submit_tasks(task_set(0, 1, 1, None));
    assert!(a.tsm(0, 0).zombie);
    assert!(!a.tsm(0, 1).zombie);
    a.ts.submit_tasks(task_set(0, 2, 1, None));
    assert!(a.tsm(0, 0).zombie && a.tsm(0, 1).zombie);
    assert!(!a.tsm(0, 2).zombie);
}

// TaskSchedulerImplSuite "don't abort if there is an executor available, though it hasn't had
// scheduled tasks yet" (SPARK-15865, SPARK-16106): both tasks prefer host0 and fail on
// executor0; executor1 could run them, so the set is not aborted though nothing launches yet.
#[test]
fn no_abort_while_an_executor_without_tasks_is_available() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(located(&[&[Loc("host0", None)], &[Loc("host0", None)]]));
    let mut offers = [offer(0, "host0", 4), offer(1, "host1", 4)];
    let first = a.offers(&mut offers, false);
    assert_eq!(first.len(), 2);
    let tids: Vec<TaskId> = a.ts.running.values().map(|t| t.task_id).collect();
    assert!(
        a.ts.running
            .values()
            .all(|t| t.executor_id == ExecutorId(0))
    );
    for tid in tids {
        a.fail(tid);
    }
    let mut offers = [offer(0, "host0", 4), offer(1, "host1", 4)];
    assert!(a.offers(&mut offers, false).is_empty());
    assert!(a.dag.failed_sets.is_empty(), "{:?}", a.dag.failed_sets);
}

// TaskSchedulerImplSuite "SPARK-16106 locality levels updated if executor added to existing
// host": executor2 joining host0 adds PROCESS_LOCAL; an offer that launches nothing still makes
// its executor known.
#[test]
fn locality_levels_follow_an_executor_added_to_a_known_host() {
    let mut a = Alone::new(1);
    let locs: Vec<&[Loc]> = vec![&[Loc("host0", Some(2))]; 2];
    a.ts.submit_tasks(located(&locs));
    let first = a.offers(&mut [offer(0, "host0", 1), offer(1, "host1", 1)], false);
    assert_eq!(first.len(), 1);
    assert_eq!(a.levels(), [NodeLocal, Any]);
    assert!(a.ts.topology.is_executor_alive(ExecutorId(1)));
    assert_eq!(a.offers(&mut [offer(2, "host0", 1)], false).len(), 1);
    assert_eq!(a.levels(), [ProcessLocal, NodeLocal, Any]);
    assert!(a.offers(&mut [offer(3, "host1", 1)], false).is_empty());
    assert!(a.ts.topology.is_executor_alive(ExecutorId(3)));
}

// TaskSchedulerImplSuite "if an executor is lost then the state for its running tasks is cleaned
// up (SPARK-18553)": the executor and its host are dead, and no task is left running.
#[test]
fn a_lost_executors_running_task_state_is_cleaned_up() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    assert_eq!(a.offers(&mut [offer(0, "host0", 1)], false).len(), 1);
    a.lose(0);
    assert!(!a.ts.topology.is_executor_alive(ExecutorId(0)));
    assert!(!a.ts.topology.has_executors_alive_on_host("host0"));
    assert_eq!(a.ts.running.values().count(), 0);
}

// TaskSchedulerImplSuite "Locality should be used for bulk offers even with delay scheduling
// off": whatever the offers' order, the task goes to its preferred exec1. (Spark submits stage
// 1 attempt 0 twice; here each round is its own stage.)
#[test]
fn locality_is_used_for_bulk_offers_with_delay_scheduling_off() {
    let mut a = live_with(Alone::new(1), no_wait(), &[]);
    for (stage, swap) in [(1, false), (2, true)] {
        a.ts.submit_tasks(located_in(stage, 0, &[&[Loc("host1", Some(1))]]));
        let mut offers = [offer(1, "host1", 1), offer(2, "host2", 1)];
        if swap {
            offers.reverse();
        }
        assert_eq!(a.offers(&mut offers, false), [stage], "swap {swap}");
        let t = a.ts.running.values().last().expect("launched");
        assert_eq!(t.executor_id, ExecutorId(1), "swap {swap}");
    }
}

// TaskSchedulerImplSuite "With delay scheduling off, tasks can be run at any locality level
// immediately": the set could run NODE_LOCAL, but exec2's offer runs it at once.
#[test]
fn with_delay_scheduling_off_tasks_run_at_any_level_at_once() {
    let mut a = live_with(Alone::new(1), no_wait(), &[]);
    assert!(a.offers(&mut [offer(1, "host1", 1)], false).is_empty());
    a.ts.submit_tasks(located_in(1, 0, &[&[Loc("host1", Some(1))]]));
    assert!(a.tsm(1, 0).levels.as_slice().contains(&NodeLocal));
    assert_eq!(a.offers(&mut [offer(2, "host2", 1)], false), [1]);
    let t = a.ts.running.values().next().expect("launched");
    assert_eq!(t.executor_id, ExecutorId(2));
}

// TaskSchedulerImplSuite "killAllTaskAttempts shall kill all the running tasks and not fail the
// stage": both running tasks are killed and the stage is not failed (no `taskSetFailed`). The
// suite we read (Spark 3.x) also expects the set not to be a zombie; Spark 4.0.0's jar
// (`$anonfun$killAllTaskAttempts$4`) calls `tsm.suspend()` after the kills, so it is one, and
// stays registered while its killed tasks have not reported back.
#[test]
fn kill_all_task_attempts_kills_the_running_tasks_and_does_not_fail_the_stage() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 10, None));
    let launched = a.offers(&mut [offer(0, "host0", 1), offer(1, "host1", 1)], false);
    assert_eq!(launched.len(), 2);
    assert_eq!(a.tsm(0, 0).running, 2);
    let mut out = Vec::new();
    a.ts.kill_all_task_attempts(0, "test", &mut out);
    let killed: BTreeSet<TaskId> = out
        .iter()
        .filter_map(|e| match e {
            SchedulerEvent::KillTask { task_id, .. } => Some(*task_id),
            _ => None,
        })
        .collect();
    assert_eq!(killed, BTreeSet::from([TaskId(0), TaskId(1)]));
    assert!(a.tsm(0, 0).zombie);
    assert!(!a.tsm(0, 0).finished);
    assert!(a.dag.failed_sets.is_empty());
}

// TaskSchedulerImplSuite "Excluded executor for entire task set prevents per-task exclusion
// checks": once executor3 has two failed tasks of the stage (stage.maxFailedTasksPerExecutor
// 2) it is excluded for the task set and gets nothing; the other two executors get a task each.
#[test]
fn excluded_executor_for_entire_task_set_prevents_per_task_exclusion_checks() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 500, None));
    for _ in 0..2 {
        let t = a.offer(&mut [offer(3, "host2", 1)]).remove(0);
        a.throw(t.task_id);
    }
    let list = a.tsm(0, 0).exclude_list.as_deref().expect("a list");
    assert!(list.is_executor_excluded_for_task_set(ExecutorId(3)));
    assert!(!list.is_node_excluded_for_task_set("host2"));
    let mut offers = [
        offer(1, "host1", 1),
        offer(2, "host1", 1),
        offer(3, "host2", 1),
    ];
    assert_eq!(a.offers(&mut offers, false).len(), 2);
    assert!(
        a.ts.running
            .values()
            .all(|t| t.executor_id != ExecutorId(3))
    );
}

// TaskSetManagerSuite "SPARK-32470: do not check total size of intermediate stages"
// (spark.driver.maxResultSize 20k): 2000 map tasks' results (1000 bytes each here) pass the
// limit without aborting their set (`canFetchMoreResults` aborts only a result stage's); the
// final stage's ten results fit.
#[test]
fn the_total_result_size_of_intermediate_stages_is_not_checked() {
    let mut a = Alone::new(1);
    a.ts = a.ts.with_max_result_size(20 * 1024);
    for (stage, n, map) in [(0, 2000, true), (1, 10, false)] {
        a.ts.submit_tasks(task_set(stage, 0, n, map.then_some(stage)));
        let launched = a.offers(&mut [offer(1, "host1", n)], false).len();
        assert_eq!(launched, n as usize);
        let tids: Vec<TaskId> = a.ts.running.values().map(|t| t.task_id).collect();
        for tid in tids {
            a.update(tid, TaskState::Finished);
        }
        assert!(a.tsm(stage, 0).finished, "stage {stage}");
    }
    assert!(a.dag.failed_sets.is_empty(), "{:?}", a.dag.failed_sets);
    assert!(a.tsm(0, 0).total_result_size > 20 * 1024);
}

// TaskSetManagerSuite "speculative and noPref task should be scheduled after node-local": task
// 1 (host2 or host1) is marked speculatable by hand; after a wait the task without preference
// goes first at NO_PREF on host1, then task 1's copy on host2, and the process-local task 3
// (execC) runs on host2 only at ANY, three waits later.
#[test]
fn speculative_and_no_pref_tasks_are_scheduled_after_node_local_ones() {
    run(async {
        let executors = [(1, "host1"), (2, "host2"), (3, "host3")];
        let mut a = with_speculation(SpeculationSettings::default(), &executors);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", Some(1))],
            &[Loc("host2", None), Loc("host1", None)],
            &[],
            &[Loc("host3", Some(3))],
        ]));
        assert_eq!(a.index_at(1, "host1", ProcessLocal), Some(0));
        assert_eq!(a.index_at(1, "host1", NodeLocal), None);
        assert_eq!(a.index_at(1, "host1", NoPref), Some(1));
        // manager.speculatableTasks += 1; manager.addPendingTask(1, speculatable = true)
        let spec = a.tsm(0, 0).spec.as_mut().expect("speculation on");
        spec.pending.push(1);
        clock::advance(clock::ms(LOCALITY_WAIT_MS)).await;
        assert_eq!(a.index_at(1, "host1", NoPref), Some(2));
        let copy = a.tsm_offer(2, "host2", NoPref).expect("task 1's copy");
        assert_eq!((copy.index, copy.attempt_number), (1, 1));
        clock::advance(clock::ms(LOCALITY_WAIT_MS * 3)).await;
        assert_eq!(a.index_at(2, "host2", Any), Some(3));
    });
}

/// TaskSchedulerImplSuite's `setupSchedulerForDecommissionTests(clock, numTasks)`: one task on
/// each of executor0.. (host0..), at the clock's 10 s.
fn decommission_tests(num_tasks: u32) -> Alone {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, num_tasks, None));
    for i in 0..num_tasks {
        let t = a.offers(&mut [offer(i, &format!("host{i}"), 1)], false);
        assert_eq!(t.len(), 1);
        let running = a.ts.running.values().last().expect("launched");
        assert_eq!((running.executor_id, running.index), (ExecutorId(i), i));
    }
    a
}

// TaskSchedulerImplSuite "scheduler should keep the decommission state where host was
// decommissioned": each executor's state keeps when the scheduler heard of it and the worker
// host when the host goes too; an unknown executor has none.
#[test]
fn the_decommission_state_keeps_whether_the_host_was_decommissioned() {
    run(async {
        clock::advance(clock::ms(10_000)).await;
        let mut a = decommission_tests(2);
        let decom_time = clock::now_ms();
        a.ts.executor_decommission(ExecutorId(0), None);
        a.ts.executor_decommission(ExecutorId(1), Some("host1"));
        let state = |a: &Alone, e: u32| a.ts.topology.decommission_state(ExecutorId(e)).cloned();
        let s0 = state(&a, 0).expect("executor0");
        assert_eq!((s0.start_ms, s0.worker_host), (decom_time, None));
        let s1 = state(&a, 1).expect("executor1");
        assert_eq!(
            (s1.start_ms, s1.worker_host),
            (decom_time, Some("host1".into()))
        );
        assert!(state(&a, 2).is_none());
        assert!(a.ts.is_host_decommissioned(ExecutorId(1)));
        assert!(!a.ts.is_host_decommissioned(ExecutorId(0)));
    });
}

// TaskSchedulerImplSuite "test full decommissioning flow": executor0 lost first then
// decommissioned keeps no state; executor1 decommissioned then lost drops its state; both
// tasks have no copy running, and two new executors rerun both.
#[test]
fn the_full_decommissioning_flow() {
    run(async {
        clock::advance(clock::ms(10_000)).await;
        let mut a = decommission_tests(2);
        assert_eq!(a.tsm(0, 0).copies_running[..2], [1, 1]);
        let exited = ExecutorLossReason::Exited {
            exit_code: 0,
            exit_caused_by_app: false,
            reason: "normal".into(),
        };
        a.lose_for(0, &exited);
        assert!(!a.ts.is_executor_decommissioning(ExecutorId(0)));
        a.ts.executor_decommission(ExecutorId(0), None);
        assert!(!a.ts.is_executor_decommissioning(ExecutorId(0)));
        assert_eq!(a.tsm(0, 0).copies_running[..2], [0, 1]);
        clock::advance(clock::ms(5000)).await;
        assert!(!a.ts.is_executor_decommissioning(ExecutorId(1)));
        a.ts.executor_decommission(ExecutorId(1), None);
        assert!(a.ts.is_executor_decommissioning(ExecutorId(1)));
        clock::advance(clock::ms(2000)).await;
        a.lose_for(1, &exited);
        assert!(!a.ts.is_executor_decommissioning(ExecutorId(1)));
        assert_eq!(a.tsm(0, 0).copies_running[..2], [0, 0]);
        clock::advance(clock::ms(2000)).await;
        let mut offers = [offer(2, "host2", 1), offer(3, "host3", 1)];
        assert_eq!(a.offers(&mut offers, false).len(), 2);
        let indices: BTreeSet<u32> = a.ts.running.values().map(|t| t.index).collect();
        assert_eq!(indices, BTreeSet::from([0, 1]));
        assert_eq!(a.tsm(0, 0).copies_running[..2], [1, 1]);
    });
}

/// TaskSchedulerImplSuite's SPARK-39955 case: spark.task.maxFailures 1, one task on executor0,
/// which is lost (`ExecutorProcessLost()`, caused by the app) after the task reported RUNNING
/// or while it is still launching.
fn executor_lost_while(has_launched: bool) -> Alone {
    let mut a = Alone::new(1);
    let log = crate::kernel::logs::ProcessLog::new(
        "driver",
        Rc::new(std::cell::RefCell::new(crate::kernel::logs::LogStore::new(
            false,
        ))),
    );
    a.ts = super::task_scheduler_impl::TaskSchedulerImpl::new(log, 1, 1);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    assert!(!a.tsm(0, 0).zombie);
    assert_eq!(a.offers(&mut [offer(0, "host0", 1)], false).len(), 1);
    if has_launched {
        a.update(TaskId(0), TaskState::Running);
        assert!(!a.ts.running.get(TaskId(0)).expect("running").launching);
    }
    let lost = ExecutorLossReason::ProcessLost {
        message: "Executor Process Lost".into(),
        caused_by_app: true,
    };
    a.lose_for(0, &lost);
    a
}

// TaskSchedulerImplSuite "SPARK-39955: executor lost could fail task set if task is running":
// the loss counts toward the task's one allowed failure, and the set is aborted.
#[test]
fn an_executor_loss_can_fail_the_task_set_of_a_running_task() {
    let mut a = executor_lost_while(true);
    assert!(a.tsm(0, 0).zombie);
    assert_eq!(a.dag.failed_sets.len(), 1);
}

// TaskSchedulerImplSuite "SPARK-39955: executor lost should not fail task set if task is
// launching": a task that never reported RUNNING is not to blame for its executor's loss.
#[test]
fn an_executor_loss_does_not_fail_the_task_set_of_a_launching_task() {
    let mut a = executor_lost_while(false);
    assert!(!a.tsm(0, 0).zombie);
    assert!(a.dag.failed_sets.is_empty());
}

// TaskSchedulerImplSuite "SPARK-37300: TaskSchedulerImpl should ignore task finished event if
// its task was finished state": task 0 reports FINISHED, its executor is lost before the
// TaskResultGetter handles the result; the loss fails the attempt (TaskSetManager.executorLost
// finds its TaskInfo still running), and the late success is ignored (handleSuccessfulTask's
// `info.finished` check): nothing succeeded.
#[test]
fn a_task_finished_event_of_an_already_finished_attempt_is_ignored() {
    let mut a = Alone::new(1);
    let mut set = located(&[&[Loc("host0", Some(0))], &[Loc("host1", Some(1))]]);
    set.code = task_set(0, 0, 2, Some(0)).code;
    a.ts.submit_tasks(set);
    let mut offers = [offer(0, "host0", 1), offer(1, "host1", 1)];
    assert_eq!(a.offers(&mut offers, false).len(), 2);
    let on_0 =
        a.ts.running
            .values()
            .find(|t| t.executor_id == ExecutorId(0));
    let (tid, index) = on_0
        .map(|t| (t.task_id, t.index))
        .expect("a task on executor0");
    assert!(a.ts.status_update(tid, TaskState::Finished, TaskResultData::None));
    let lost = ExecutorLossReason::ProcessLost {
        message: "Executor heartbeat timed out".into(),
        caused_by_app: false,
    };
    a.lose_for(0, &lost);
    let (env, dag, alloc) = (&mut a.env, &mut a.dag, &mut a.alloc);
    a.ts.task_result_getter(env, dag, alloc, &mut Vec::new());
    assert_eq!(a.tsm(0, 0).num_successful, 0);
    assert!(!a.tsm(0, 0).successful[index as usize]);
    assert!(matches!(
        a.dag.ended_with(tid),
        Some(TaskEndReason::ExecutorLostFailure { .. })
    ));
}

impl Alone {
    /// `taskScheduler.executorLost(execId, reason)`.
    fn lose_for(&mut self, executor: u32, reason: &ExecutorLossReason) {
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts.executor_lost(
            ExecutorId(executor),
            reason,
            env,
            dag,
            alloc,
            &mut Vec::new(),
        );
    }
}

// TaskSetManagerSuite "basic delay scheduling": exec1 gets its process-local task at once and
// nothing more at PROCESS_LOCAL; after a wait host1's NODE_LOCAL offer gets task 2 (before the
// task without preference), host2's task 1; host2 then gets nothing at NODE_LOCAL, and after
// another wait the task without preference at NO_PREF.
#[test]
fn basic_delay_scheduling() {
    run(async {
        let mut a = live(&[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", Some(1))],
            &[Loc("host2", Some(2))],
            &[Loc("host1", None), Loc("host2", Some(2))],
            &[],
        ]));
        assert_eq!(a.index_at(1, "host1", Any), Some(0));
        assert_eq!(a.index_at(1, "host1", ProcessLocal), None);
        clock::advance(clock::ms(LOCALITY_WAIT_MS)).await;
        assert_eq!(a.index_at(1, "host1", NodeLocal), Some(2));
        assert_eq!(a.index_at(2, "host2", NodeLocal), Some(1));
        assert_eq!(a.index_at(2, "host2", NodeLocal), None);
        clock::advance(clock::ms(LOCALITY_WAIT_MS)).await;
        assert_eq!(a.index_at(2, "host2", NoPref), Some(3));
    });
}

/// `manager.resourceOffer(execId, host, ANY)`'s second value on the stage-0 set: whether delay
/// scheduling rejected the offer (`hasScheduleDelayReject`).
fn delay_rejected(a: &mut Alone, e: u32, host: &str, settings: &LocalitySettings) -> bool {
    let cx = super::task_set_manager::LocalityContext {
        topology: &a.ts.topology,
        settings,
        now_ms: clock::now_ms(),
    };
    let tsm = a.ts.task_sets.get_mut(&(0, 0, 0)).expect("submitted");
    let (task, rejected) = tsm.resource_offer(ExecutorId(e), host, Any, &cx);
    assert!(task.is_none(), "only asked when nothing launches");
    rejected
}

// TaskSetManagerSuite "delay scheduling with fallback" (spark.locality.wait.legacyResetOnTaskLaunch
// true: each launch resets the timer): after a wait host1 takes host2's tasks 1 and 2; host2's
// own task 4 then resets the timer, so host3's task waits one more wait before it runs on host2.
// An offer refused because the set is a zombie, or because nothing is pending, is no delay
// scheduling reject. (The suite's mocked TaskSetExcludelist step is left out.)
#[test]
fn delay_scheduling_with_fallback() {
    run(async {
        let legacy = LocalitySettings {
            legacy_reset_on_task_launch: true,
            ..LocalitySettings::default()
        };
        let mut a = live_with(Alone::new(1), legacy, &[]);
        a.add_executors(&[(1, "host1"), (2, "host2"), (3, "host3")]);
        a.ts.submit_tasks(located(&[
            &[Loc("host1", None)],
            &[Loc("host2", None)],
            &[Loc("host2", None)],
            &[Loc("host3", None)],
            &[Loc("host2", None)],
        ]));
        assert_eq!(a.index_at(1, "host1", Any), Some(0));
        assert_eq!(a.index_at(1, "host1", Any), None);
        clock::advance(clock::ms(LOCALITY_WAIT_MS)).await;
        assert_eq!(a.index_at(1, "host1", Any), Some(1));
        assert_eq!(a.index_at(1, "host1", Any), Some(2));
        assert_eq!(a.index_at(2, "host2", Any), Some(4));
        assert_eq!(a.index_at(2, "host2", Any), None);
        clock::advance(clock::ms(LOCALITY_WAIT_MS)).await;
        a.tsm(0, 0).zombie = true;
        assert!(!delay_rejected(&mut a, 2, "host2", &legacy));
        a.tsm(0, 0).zombie = false;
        assert_eq!(a.index_at(2, "host2", Any), Some(3));
        assert!(!delay_rejected(&mut a, 2, "host2", &legacy));
    });
}

// TaskSchedulerImplSuite "scheduler checks for executors that can be expired from
// excludeOnFailure": every resourceOffers first lets the HealthTracker expire its exclusions
// (`applyExcludeOnFailureTimeout`): executor 1, excluded for the application after a successful
// set with two of its failures, takes a task again once spark.excludeOnFailure.timeout passed.
#[test]
fn resource_offers_expire_exclusions_from_the_health_tracker() {
    run(async {
        let conf = crate::world::config::ExcludeOnFailureConf {
            enabled: Some(true),
            timeout_ms: Some(60_000),
            ..Default::default()
        };
        let mut a = Alone::new(1);
        let log = crate::kernel::logs::ProcessLog::new(
            "driver",
            Rc::new(std::cell::RefCell::new(crate::kernel::logs::LogStore::new(
                false,
            ))),
        );
        let bus = crate::world::listener::ContextBus::disabled();
        a.ts = super::task_scheduler_impl::TaskSchedulerImpl::new(log, 4, 1)
            .with_exclusion(&conf, 120_000, false, bus);
        a.exclude_executor_1_for_the_application();
        a.ts.submit_tasks(task_set(1, 0, 2, None));
        assert!(a.offer(&mut [offer(1, "host1", 1)]).is_empty(), "excluded");
        clock::advance(clock::ms(60_001)).await;
        assert_eq!(a.offer(&mut [offer(1, "host1", 1)]).len(), 1, "expired");
    });
}

// TaskSetManagerSuite "SPARK-33741 Test minimum amount of time a task runs before being
// considered for speculation" (spark.speculation.minTaskRuntime 3min, quantile 0.5): with one
// of two tasks done in 1 s, the other is not speculatable after 2 s, as the threshold is
// max(multiplier x median, minTimeToSpeculation) (TaskSetManager.checkSpeculatableTasks in
// Spark 4.0.0's jar, given TaskSchedulerImpl's MIN_TIME_TO_SPECULATION); past 3 min it is.
#[test]
fn a_task_runs_the_minimum_time_before_it_is_considered_for_speculation() {
    run(async {
        let settings = SpeculationSettings {
            quantile: 0.5,
            min_task_runtime_ms: 3 * 60 * 1000,
            ..SpeculationSettings::default()
        };
        let mut a = with_speculation(settings, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 2, None));
        start_on(&mut a, &[(1, "host1"), (2, "host2")]);
        clock::advance(clock::ms(1000)).await;
        a.update(TaskId(0), TaskState::Finished);
        clock::advance(clock::ms(1000)).await;
        assert!(!a.ts.check_speculatable_tasks(&mut a.dag));
        assert!(a.dag.speculative.is_empty());
        clock::advance(clock::ms(3 * 60 * 1000)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.speculated(), BTreeSet::from([1]));
    });
}

// TaskSetManagerSuite "SPARK-29976 Regular speculation configs should still take effect even
// when a threshold is provided": with the 60min duration threshold set, one of two tasks done
// after 1 s (quantile 0.5) makes the median path apply first (checkSpeculatableTasks tries
// `numSuccessfulTasks >= minFinishedForSpeculation` before the threshold): the other task, 2 s
// in, is speculatable. The suite ran it under Spark 3.x's spark.speculation.multiplier default,
// 1.5, set here (Spark 4.0.0's is 3.0, which puts the median threshold at 3 s).
#[test]
fn regular_speculation_configs_take_effect_beside_a_duration_threshold() {
    run(async {
        let settings = SpeculationSettings {
            multiplier: 1.5,
            quantile: 0.5,
            min_task_runtime_ms: 0,
            task_duration_threshold_ms: Some(60 * 60 * 1000),
            slots_per_executor: 2,
            ..SpeculationSettings::default()
        };
        let mut a = with_speculation(settings, &[(1, "host1"), (2, "host2")]);
        a.ts.submit_tasks(task_set(0, 0, 2, None));
        start_on(&mut a, &[(1, "host1"), (2, "host2")]);
        clock::advance(clock::ms(1000)).await;
        a.update(TaskId(0), TaskState::Finished);
        clock::advance(clock::ms(1000)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.dag.speculative.len(), 1);
    });
}
