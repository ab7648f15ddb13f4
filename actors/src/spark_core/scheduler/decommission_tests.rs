//! Unit tests of Spark 4.0's decommissioning rules in the task scheduler: a decommissioning
//! executor (and a decommissioned host) is no locality target (TaskSchedulerImpl's
//! `isExecutorAlive`, `hasExecutorsAliveOnHost`, `hasHostAliveOnRack`, read by
//! TaskSetManager.computeValidLocalityLevels), and `spark.executor.decommission.killInterval`
//! makes a task that cannot finish before the kill speculatable (TaskSetManager's
//! `shouldSpeculateForExecutorDecommissioning`). TaskSchedulerImplSuite and TaskSetManagerSuite
//! cases, ported.

use super::driver_scheduler::DriverScheduler;
use super::events::{LaunchedTasks, WorkerOffer};
use super::locality::{ExecutorDecommissionState, PendingTasks, TaskLocality, Topology};
use super::tests::{advance, logged_scheduler, run, waiter};
use crate::kernel::clock;
use crate::world::config::{LocalitySettings, SpeculationSettings};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::{JobSpec, StageSpec, TaskDescription, TaskResultData, TaskWork};
use std::rc::Rc;

/// host1 and host2 on /rack-1, host3 on /rack-2.
const RACKS: [(&str, &str); 3] = [
    ("host1", "/rack-1"),
    ("host2", "/rack-1"),
    ("host3", "/rack-2"),
];

fn decommissioning(worker_host: Option<&str>) -> ExecutorDecommissionState {
    ExecutorDecommissionState {
        start_ms: 0,
        worker_host: worker_host.map(str::to_string),
    }
}

/// TaskSchedulerImplSuite "SPARK-32653: Decommissioned host/executor should be considered as
/// inactive" (Spark 4.0.0's TaskSchedulerImpl: `isExecutorAlive` is
/// `executorIdToRunningTaskIds.contains(e) && !isExecutorDecommissioned(e)`,
/// `hasExecutorsAliveOnHost` asks for one executor of the host not decommissioned), with the
/// suite's exec0/exec1 on host1 and exec2 on host3.
#[test]
fn decommissioned_host_and_executor_are_inactive() {
    let mut t = Topology::new(RACKS);
    let (host1, host3): (Rc<str>, Rc<str>) = (Rc::from("host1"), Rc::from("host3"));
    t.executor_added(ExecutorId(0), &host1);
    t.executor_added(ExecutorId(1), &host1);
    t.executor_added(ExecutorId(2), &host3);
    assert!((0..3).all(|e| t.is_executor_alive(ExecutorId(e))));
    assert!(t.has_executors_alive_on_host("host1") && t.has_executors_alive_on_host("host3"));

    assert!(t.executor_decommission(ExecutorId(1), decommissioning(None)));
    assert!(t.executor_decommission(ExecutorId(2), decommissioning(Some("host3"))));

    assert!(t.is_executor_alive(ExecutorId(0)));
    assert!(!t.is_executor_alive(ExecutorId(1)) && !t.is_executor_alive(ExecutorId(2)));
    assert!(t.has_executors_alive_on_host("host1"));
    assert!(!t.has_executors_alive_on_host("host3"));
}

/// TaskSchedulerImpl.hasHostAliveOnRack (Spark 4.0.0): a rack is alive while one of its hosts
/// is not `isHostDecommissioned`, which needs a decommission state with a worker host. An
/// executor decommissioned alone (no worker host) leaves its host's rack alive; one going
/// with its host takes the rack's last host. `executorDecommission` notes only an executor
/// the scheduler knows (`executorIdToHost.contains`), and the state goes with the executor
/// (`removeExecutor`; none retained by default).
#[test]
fn a_rack_is_alive_until_its_hosts_are_decommissioned() {
    let mut t = Topology::new(RACKS);
    let host3: Rc<str> = Rc::from("host3");
    assert!(!t.executor_decommission(ExecutorId(7), decommissioning(None)));
    assert!(t.decommission_state(ExecutorId(7)).is_none());
    t.executor_added(ExecutorId(2), &host3);
    t.executor_decommission(ExecutorId(2), decommissioning(None));
    assert!(!t.has_executors_alive_on_host("host3"));
    assert!(!t.is_host_decommissioned("host3"));
    assert!(
        t.has_host_alive_on_rack("/rack-2"),
        "no worker host: the host is not decommissioned"
    );
    // A second notice replaces the first (`executorsPendingDecommission(id) = state`).
    t.executor_decommission(ExecutorId(2), decommissioning(Some("host3")));
    assert!(t.is_host_decommissioned("host3"));
    assert!(!t.has_host_alive_on_rack("/rack-2"));
    t.executor_removed(ExecutorId(2));
    assert!(t.decommission_state(ExecutorId(2)).is_none());
    assert!(!t.is_host_decommissioned("host3"));
    t.executor_added(ExecutorId(3), &host3);
    assert!(t.has_executors_alive_on_host("host3") && t.has_host_alive_on_rack("/rack-2"));
}

/// TaskSetManager.computeValidLocalityLevels over Spark 4.0.0's liveness: a task preferring
/// host1 whose only executor decommissions has no NODE_LOCAL level; with the host going too
/// (worker host set) and host1 the rack's only live host, no RACK_LOCAL either.
#[test]
fn valid_levels_leave_out_decommissioning_executors_and_hosts() {
    let settings = LocalitySettings::default();
    let mut t = Topology::new(RACKS);
    let host1: Rc<str> = Rc::from("host1");
    let mut pending = PendingTasks::default();
    pending.add(0, std::slice::from_ref(&host1), Some(ExecutorId(1)), &t);
    t.executor_added(ExecutorId(1), &host1);
    let levels = |t: &Topology| pending.valid_levels(t, &settings).as_slice().to_vec();
    use TaskLocality::*;
    assert_eq!(levels(&t), [ProcessLocal, NodeLocal, RackLocal, Any]);
    t.executor_decommission(ExecutorId(1), decommissioning(None));
    assert_eq!(levels(&t), [RackLocal, Any]);
    t.executor_decommission(ExecutorId(1), decommissioning(Some("host1")));
    assert_eq!(levels(&t), [Any]);
}

fn scheduler() -> DriverScheduler {
    logged_scheduler()
        .0
        .with_locality(LocalitySettings::default(), RACKS, 7)
}

fn job(n: usize, prefs: Vec<Vec<String>>) -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![StageSpec {
            rdd_description: "HadoopRDD[0] at textFile at X.scala:1".into(),
            num_partitions: n as u32,
            parents: Vec::new(),
            tasks: vec![
                TaskWork::Sleep {
                    duration_ms: 1,
                    fail: None,
                };
                n
            ]
            .into(),
            shuffle_write: Default::default(),
            input: Default::default(),
            preferred_hosts: prefs,
            input_path: None,
            lineage: None,
            result_bytes: Default::default(),
            barrier: false,
        }],
    }
}

fn offer(s: &mut DriverScheduler, executor: u32, host: &str, cores: u32) -> LaunchedTasks {
    s.resource_offer(&mut WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        cores,
        held_back: 0,
        resources: None,
    })
}

/// TaskSchedulerImpl.executorDecommission -> rootPool.executorDecommission ->
/// TaskSetManager.executorDecommission = recomputeLocality (Spark 4.0.0): a task set waiting
/// for busy host1 (its NODE_LOCAL level) stops waiting when host1's executor decommissions:
/// host2, on the same rack, gets the task at once at RACK_LOCAL, where without the
/// decommission it would wait `spark.locality.wait` (3 s; locality_tests'
/// delay_scheduling_waits_for_node_local_then_rack_local_then_any).
#[test]
fn a_task_set_stops_waiting_for_a_decommissioning_executor() {
    run(async {
        let mut s = scheduler();
        assert!(offer(&mut s, 1, "host1", 0).is_empty(), "host1 busy");
        s.submit_job(job(2, vec![vec!["host1".to_string()]; 2]), waiter());
        let key = *s.task_scheduler.runnable.first().expect("runnable");
        assert!(offer(&mut s, 2, "host2", 1).is_empty(), "waits for host1");
        s.executor_decommission(ExecutorId(1), None);
        let levels = s.task_scheduler.task_sets[&key].levels;
        assert_eq!(
            levels.as_slice(),
            [TaskLocality::RackLocal, TaskLocality::Any]
        );
        let t = offer(&mut s, 2, "host2", 1).remove(0);
        let r = s.task_scheduler.running.get(t.task_id).expect("running");
        assert_eq!(
            (t.executor_id, r.locality),
            (ExecutorId(2), TaskLocality::RackLocal)
        );
        assert_eq!(clock::now_ms(), 0);
    });
}

fn finish(s: &mut DriverScheduler, t: &TaskDescription) {
    s.status_update(t.task_id, TaskState::Finished, TaskResultData::None);
}

/// TaskSetManagerSuite "SPARK-21040: Check speculative tasks are launched when an executor is
/// decommissioned and the tasks running on it cannot finish within
/// EXECUTOR_DECOMMISSION_KILL_INTERVAL", ported (Spark 4.0.0's TaskSetManager
/// `checkAndSubmitSpeculatableTasks`: speculatable when the runtime passes the threshold, or
/// when `shouldSpeculateForExecutorDecommissioning`: `startTime + killInterval <
/// launchTime + median successful duration`). The suite's exec1 is executor 1 on host1,
/// exec2 executor 2 on host2, exec3 executor 3 on host3.
#[test]
fn a_task_that_cannot_finish_before_the_kill_interval_is_speculated() {
    run(async {
        let settings = SpeculationSettings {
            multiplier: 1.5,
            quantile: 0.5,
            decommission_kill_interval_ms: Some(5000),
            ..SpeculationSettings::default()
        };
        let mut s = logged_scheduler().0.with_speculation(Some(settings));
        s.submit_job(job(4, Vec::new()), waiter());
        // Tasks 0 and 1 on exec1, task 2 on exec2 at t = 0; task 3 on exec2 at t = 6 s.
        let t0 = offer(&mut s, 1, "host1", 1).remove(0);
        let t1 = offer(&mut s, 1, "host1", 1).remove(0);
        let t2 = offer(&mut s, 2, "host2", 1).remove(0);
        advance(6000).await;
        let t3 = offer(&mut s, 2, "host2", 1).remove(0);
        let tasks = [&t0, &t1, &t2, &t3];
        assert_eq!(
            tasks.map(|t| (t.index, t.executor_id.0)),
            [(0, 1), (1, 1), (2, 2), (3, 2)]
        );
        advance(4000).await; // t = 10 s: tasks 0 and 1 succeed, median 10 s
        finish(&mut s, &t0);
        finish(&mut s, &t1);
        // Threshold 1.5 x 10 s = 15 s: nothing ran that long.
        assert!(!s.check_speculatable_tasks());

        s.executor_decommission(ExecutorId(2), None);
        let state = s.task_scheduler.topology.decommission_state(ExecutorId(2));
        assert_eq!(state.map(|d| d.start_ms), Some(10_000));
        // Killed at 15 s: task 2 (0 + 10 s) can finish, task 3 (6 + 10 s) cannot.
        assert!(s.check_speculatable_tasks());
        let copy3 = offer(&mut s, 3, "host3", 1).remove(0);
        assert!(
            offer(&mut s, 3, "host3", 1).is_empty(),
            "only task 3 is speculatable"
        );
        assert_eq!(
            (
                copy3.index,
                copy3.task_id.0,
                copy3.executor_id.0,
                copy3.attempt_number
            ),
            (3, 4, 3, 1)
        );

        advance(1000).await; // t = 11 s
        assert!(!s.check_speculatable_tasks());
        let copies = |s: &DriverScheduler| {
            let tsm = s
                .task_scheduler
                .task_sets
                .values()
                .next()
                .expect("task set");
            (tsm.copies_running[2], tsm.copies_running[3])
        };
        assert_eq!(copies(&s), (1, 2));

        advance(5000).await; // t = 16 s: task 2 ran 16 s > 15 s, the regular rule
        assert!(s.check_speculatable_tasks());
        let copy2 = offer(&mut s, 3, "host3", 1).remove(0);
        assert_eq!(
            (
                copy2.index,
                copy2.task_id.0,
                copy2.executor_id.0,
                copy2.attempt_number
            ),
            (2, 5, 3, 1)
        );
        assert_eq!(copies(&s), (2, 2));
        assert!(offer(&mut s, 1, "host1", 1).is_empty());
    });
}

/// Without `spark.executor.decommission.killInterval` (TaskSetManager's
/// `executorDecommissionKillInterval` is None) a decommissioning executor's tasks are
/// speculated by the regular rule only: the same run marks nothing at t = 10 s.
#[test]
fn without_a_kill_interval_decommissioning_speculates_nothing() {
    run(async {
        let settings = SpeculationSettings {
            multiplier: 1.5,
            quantile: 0.5,
            ..SpeculationSettings::default()
        };
        let mut s = logged_scheduler().0.with_speculation(Some(settings));
        s.submit_job(job(4, Vec::new()), waiter());
        let t0 = offer(&mut s, 1, "host1", 1).remove(0);
        let t1 = offer(&mut s, 1, "host1", 1).remove(0);
        offer(&mut s, 2, "host2", 1);
        advance(6000).await;
        offer(&mut s, 2, "host2", 1);
        advance(4000).await;
        finish(&mut s, &t0);
        finish(&mut s, &t1);
        s.executor_decommission(ExecutorId(2), None);
        assert!(!s.check_speculatable_tasks());
        assert!(offer(&mut s, 3, "host3", 1).is_empty());
    });
}
