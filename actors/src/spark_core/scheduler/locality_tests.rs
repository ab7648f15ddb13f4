//! Unit tests of offers, locality levels and delay scheduling (TaskSchedulerImplSuite and
//! TaskSetManagerSuite cases, ported).

use super::allocation_client::RecordedAllocations;
use super::driver_scheduler::DriverScheduler;
use super::events::{LaunchedTasks, WorkerOffer};
use super::locality::TaskLocality;
use super::locality::{PendingTasks, Topology};
use crate::kernel::clock;
use crate::kernel::logs::LogStore;
use crate::kernel::logs::ProcessLog;
use crate::world::config::LocalitySettings;
use crate::world::listener::ContextBus;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::rpc::{EndpointId, RpcEndpointAddress};
use sparkyard_messages::task::StageSpec;
use sparkyard_messages::task::{
    BlockManagerId, JobSpec, TaskDescription, TaskResultData, TaskWork,
};
use sparkyard_messages::task::{MapStatusData, ShuffleWriteSize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// host1 and host2 on /rack-1, host3 on /rack-2.
const RACKS: [(&str, &str); 3] = [
    ("host1", "/rack-1"),
    ("host2", "/rack-1"),
    ("host3", "/rack-2"),
];

fn scheduler(task_cpus: u32) -> (DriverScheduler, Rc<RefCell<LogStore>>) {
    let store = Rc::new(RefCell::new(LogStore::new(true)));
    let s = DriverScheduler::new(
        ProcessLog::new("driver", store.clone()),
        ContextBus::disabled(),
        4,
        task_cpus,
    )
    .with_locality(LocalitySettings::default(), RACKS, 7);
    (s, store)
}

fn waiter() -> RemoteRef {
    RemoteRef {
        id: EndpointId(0),
        address: RpcEndpointAddress {
            rpc_address: None,
            name: "Driver".into(),
        },
    }
}

/// A one-stage job of `n` tasks, each preferring `prefs[i]` (empty: no preference).
fn job(n: u32, prefs: Vec<Vec<String>>) -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![StageSpec {
            rdd_description: "HadoopRDD[0] at textFile at X.scala:1".into(),
            num_partitions: n,
            parents: Vec::new(),
            tasks: vec![
                TaskWork::Sleep {
                    duration_ms: 1,
                    fail: None,
                };
                n as usize
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

fn offer(executor: u32, host: &str, cores: u32) -> WorkerOffer {
    WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        cores,
        held_back: 0,
        resources: None,
    }
}

/// (executor, partition, locality) of each launched task, in launch order.
fn placed(s: &DriverScheduler, tasks: &[Box<TaskDescription>]) -> Vec<(u32, u32, TaskLocality)> {
    tasks
        .iter()
        .map(|t| {
            let r = s.task_scheduler.running.get(t.task_id).expect("running");
            (t.executor_id.0, t.partition_id, r.locality)
        })
        .collect()
}

fn offers(s: &mut DriverScheduler, list: &mut [WorkerOffer], all_free: bool) -> LaunchedTasks {
    let mut out = Vec::new();
    s.resource_offers(
        list,
        all_free,
        &mut out,
        &mut RecordedAllocations::default(),
    );
    out
}

fn run<F: std::future::Future<Output = ()>>(f: F) {
    let rt = clock::paused_runtime().expect("runtime");
    rt.block_on(async {
        clock::start(0);
        f.await
    });
}

async fn sleep_until(ms: u64) {
    let now = clock::now_ms();
    tokio::time::sleep(clock::ms(ms.saturating_sub(now))).await;
}

/// TaskSetManagerSuite "basic delay scheduling" / "delay scheduling with fallback": a task
/// preferring host1 (busy) is not launched elsewhere before spark.locality.wait.node (3 s);
/// then on host2, same rack, at RACK_LOCAL; host3 (another rack) only after the rack wait too
/// (ANY). TaskSetManager.getAllowedLocalityLevel, TaskLocality.isAllowed.
#[test]
fn delay_scheduling_waits_for_node_local_then_rack_local_then_any() {
    run(async {
        let (mut s, store) = scheduler(1);
        let prefs = vec![vec!["host1".to_string()]; 3];
        // Executor 1 on host1 is alive but busy (0 free cores).
        offers(&mut s, &mut [offer(1, "host1", 0)], true);
        s.submit_job(job(3, prefs), waiter());
        let key = *s.task_scheduler.runnable.first().expect("runnable");
        let levels = s.task_scheduler.task_sets[&key].levels;
        assert_eq!(
            levels.as_slice(),
            [
                TaskLocality::NodeLocal,
                TaskLocality::RackLocal,
                TaskLocality::Any
            ]
        );
        let both = || [offer(2, "host2", 1), offer(3, "host3", 1)];
        assert!(offers(&mut s, &mut both(), true).is_empty(), "t=0: waits");
        sleep_until(2999).await;
        assert!(offers(&mut s, &mut both(), true).is_empty(), "t=2999");
        sleep_until(3000).await;
        let t = offers(&mut s, &mut both(), true);
        assert_eq!(placed(&s, &t), [(2, 0, TaskLocality::RackLocal)]);
        // The move to RACK_LOCAL at 3 s started its wait (host3's offer was a delay-scheduling
        // reject, so no reset): host3, on another rack, waits until 6 s.
        sleep_until(5999).await;
        assert!(offers(&mut s, &mut [offer(3, "host3", 1)], true).is_empty());
        sleep_until(6000).await;
        let t = offers(&mut s, &mut [offer(3, "host3", 1)], true);
        assert_eq!(placed(&s, &t), [(3, 1, TaskLocality::Any)]);
        // The line Spark prints (TaskSetManager.prepareLaunchingTask).
        let log = store.borrow().output("driver").expect("log").stderr.clone();
        assert!(
            log.contains("Starting task 0.0 in stage 0.0 (TID 0) (host2,executor 2, partition 0, RACK_LOCAL, 7595 bytes) "),
            "{log}"
        );
        assert!(log.contains("(host3,executor 3, partition 1, ANY, 7595 bytes) "));
    });
}

/// A free executor on the preferred host gets its tasks at once, NODE_LOCAL; tasks without a
/// preference are reported PROCESS_LOCAL (TaskSetManager.dequeueTaskHelper: noPrefs tasks
/// return PROCESS_LOCAL) and go after the host's own tasks.
#[test]
fn node_local_tasks_first_then_no_pref_tasks_as_process_local() {
    run(async {
        let (mut s, _) = scheduler(1);
        let prefs = vec![Vec::new(), vec!["host1".to_string()], Vec::new()];
        s.submit_job(job(3, prefs), waiter());
        let t = offers(&mut s, &mut [offer(1, "host1", 3)], false);
        assert_eq!(
            placed(&s, &t),
            [
                (1, 1, TaskLocality::NodeLocal),
                (1, 0, TaskLocality::ProcessLocal),
                (1, 2, TaskLocality::ProcessLocal)
            ]
        );
    });
}

/// TaskSchedulerImpl.resourceOffers: one task per offer per pass (resourceOfferSingleTaskSet),
/// so 4 tasks over two 4-core executors go 2 and 2, not 4 on the first offer.
#[test]
fn offers_take_one_task_per_executor_per_round() {
    run(async {
        let (mut s, _) = scheduler(1);
        s.submit_job(job(4, Vec::new()), waiter());
        let t = offers(
            &mut s,
            &mut [offer(1, "host1", 4), offer(2, "host2", 4)],
            true,
        );
        let mut per_executor = BTreeMap::new();
        for (e, _, l) in placed(&s, &t) {
            assert_eq!(l, TaskLocality::ProcessLocal);
            *per_executor.entry(e).or_insert(0) += 1;
        }
        assert_eq!(per_executor, BTreeMap::from([(1, 2), (2, 2)]));
    });
}

/// shuffleOffers is seeded: the same seed places the same tasks on the same executors, and the
/// launched tasks come out grouped by offer (launchTasks(tasks.flatten)).
#[test]
fn the_offer_shuffle_is_deterministic_and_groups_tasks_by_offer() {
    let placement = || {
        let mut result = Vec::new();
        run(async {
            let (mut s, _) = scheduler(1);
            s.submit_job(job(6, Vec::new()), waiter());
            let mut list: Vec<WorkerOffer> = (1..=6).map(|e| offer(e, "host1", 1)).collect();
            let t = offers(&mut s, &mut list, true);
            result = placed(&s, &t);
        });
        result
    };
    let a = placement();
    assert_eq!(a, placement());
    assert_eq!(a.len(), 6);
    // Partition i went to the i-th offer after the shuffle, which is not the id order for
    // every seed: this one (7) shuffles.
    let executors: Vec<u32> = a.iter().map(|p| p.0).collect();
    assert_ne!(executors, [1, 2, 3, 4, 5, 6]);
}

/// computeValidLocalityLevels: NODE_LOCAL only while a preferred host has a live executor,
/// RACK_LOCAL while a preferred rack has a live host, NO_PREF when a task has no preference,
/// always ANY; an executor lost on the last preferred host drops NODE_LOCAL (recomputeLocality).
#[test]
fn valid_levels_follow_the_live_hosts() {
    let settings = LocalitySettings::default();
    let mut topology = Topology::new(RACKS);
    let mut pending = PendingTasks::default();
    let host1: Rc<str> = Rc::from("host1");
    pending.add(0, std::slice::from_ref(&host1), None, &topology);
    pending.add(1, &[], None, &topology);
    let levels = |p: &PendingTasks, t: &Topology| p.valid_levels(t, &settings).as_slice().to_vec();
    use TaskLocality::*;
    assert_eq!(levels(&pending, &topology), [NoPref, Any]);
    topology.executor_added(ExecutorId(5), &Rc::from("host2"));
    assert_eq!(levels(&pending, &topology), [NoPref, RackLocal, Any]);
    topology.executor_added(ExecutorId(6), &host1);
    assert_eq!(
        levels(&pending, &topology),
        [NodeLocal, NoPref, RackLocal, Any]
    );
    topology.executor_removed(ExecutorId(6));
    assert_eq!(levels(&pending, &topology), [NoPref, RackLocal, Any]);
    // A host the cluster does not name is on /default-rack (ScriptBasedMapping's answer).
    assert_eq!(
        &**topology.rack("elsewhere").expect("a rack"),
        "/default-rack"
    );
}

/// A failed task goes back on its host's stack and is the next one launched there
/// (addPendingTask; the lists are stacks: dequeueTaskFromList takes from the end).
#[test]
fn a_failed_task_with_a_preference_runs_next_on_its_host() {
    run(async {
        let (mut s, _) = scheduler(1);
        s.submit_job(job(3, vec![vec!["host1".to_string()]; 3]), waiter());
        let t = offers(&mut s, &mut [offer(1, "host1", 1)], false);
        let first = t[0].task_id;
        s.status_update(first, TaskState::Failed, super::tests::boom());
        let t = offers(&mut s, &mut [offer(1, "host1", 1)], false);
        assert_eq!((t[0].partition_id, t[0].attempt_number), (0, 1));
        assert_eq!(placed(&s, &t), [(1, 0, TaskLocality::NodeLocal)]);
    });
}

/// MapOutputTrackerMaster.getPreferredLocationsForShuffle: a reduce task prefers the hosts
/// holding at least REDUCER_PREF_LOCS_FRACTION (20 %) of the map output; a host with less is
/// not preferred. MapOutputTracker.scala (SHUFFLE_PREF_MAP_THRESHOLD = 1000,
/// SHUFFLE_PREF_REDUCE_THRESHOLD = 1000, REDUCER_PREF_LOCS_FRACTION = 0.2).
#[test]
fn reduce_tasks_prefer_the_hosts_with_most_map_output() {
    run(async {
        let (mut s, _) = scheduler(1);
        let map = StageSpec {
            rdd_description: "MapPartitionsRDD[1] at map at X.scala:1".into(),
            num_partitions: 6,
            parents: Vec::new(),
            tasks: vec![
                TaskWork::Sleep {
                    duration_ms: 1,
                    fail: None,
                };
                6
            ]
            .into(),
            shuffle_write: ShuffleWriteSize {
                bytes_per_task: 1 << 20,
                records_per_task: 10,
                hot: Default::default(),
            },
            input: Default::default(),
            preferred_hosts: Vec::new(),
            input_path: None,
            lineage: None,
            result_bytes: Default::default(),
            barrier: false,
        };
        let reduce = StageSpec {
            rdd_description: "ShuffledRDD[2] at count at X.scala:2".into(),
            num_partitions: 2,
            parents: vec![0],
            tasks: map.tasks.iter().take(2).cloned().collect(),
            shuffle_write: Default::default(),
            input: Default::default(),
            preferred_hosts: Vec::new(),
            input_path: None,
            lineage: None,
            result_bytes: Default::default(),
            barrier: false,
        };
        s.submit_job(
            JobSpec {
                call_site: "count at X.scala:2".into(),
                stages: vec![map, reduce],
            },
            waiter(),
        );
        for (e, h) in [(1, "host1"), (2, "host2"), (3, "host3")] {
            s.block_manager_added(ExecutorId(e), Rc::from(h));
        }
        // 5 maps on host1 (83 %), 1 on host2 (17 %: below 20 %).
        let mut ran = Vec::new();
        for _ in 0..5 {
            ran.extend(offers(&mut s, &mut [offer(1, "host1", 1)], false));
            let t = ran.last().expect("a map task").task_id;
            let status = map_status(1, "host1", 1 << 20);
            s.status_update(t, TaskState::Finished, status);
        }
        let t = offers(&mut s, &mut [offer(2, "host2", 1)], false).remove(0);
        s.status_update(
            t.task_id,
            TaskState::Finished,
            map_status(2, "host2", 1 << 20),
        );
        let key = *s.task_scheduler.runnable.first().expect("the reduce set");
        assert_eq!(key.1, 1);
        assert_eq!(
            s.task_scheduler.task_sets[&key].levels.as_slice(),
            [
                TaskLocality::NodeLocal,
                TaskLocality::RackLocal,
                TaskLocality::Any
            ]
        );
        // host2 holds too little: its offer waits; host1's takes a reduce task NODE_LOCAL.
        assert!(offers(&mut s, &mut [offer(2, "host2", 1)], false).is_empty());
        let t = offers(&mut s, &mut [offer(1, "host1", 1)], false);
        assert_eq!(placed(&s, &t), [(1, 0, TaskLocality::NodeLocal)]);
    });
}

fn map_status(executor: u32, host: &str, bytes: u64) -> TaskResultData {
    TaskResultData::MapStatus(Box::new(MapStatusData {
        location: BlockManagerId {
            executor_id: ExecutorId(executor),
            host: host.into(),
            port: 38001,
        },
        bytes,
        num_reduces: 2,
    }))
}

/// A one-stage job over a cached RDD (id 1): every task reads `rdd_1_<partition>`.
fn cached_job(n: u32) -> JobSpec {
    let mut j = job(n, Vec::new());
    j.stages[0].rdd_description = "MapPartitionsRDD[2] at map at X.scala:2".into();
    j.stages[0].tasks = (0..n)
        .map(|_| {
            TaskWork::CachedRdd(Box::new(sparkyard_messages::task::CachedRddRead {
                rdd_id: 1,
                block_bytes: 1000,
                records: 10,
                compute_ms: 5,
                work_ms: 1,
                location: None,
            }))
        })
        .collect();
    j
}

/// The BlockManagerMaster hears that `executor` on `host` stored `rdd_1_<partition>`.
fn cache_block(s: &mut DriverScheduler, executor: u32, host: &str, partition: u32) {
    let id = ExecutorId(executor);
    s.block_manager_added(id, Rc::from(host));
    let location = sparkyard_messages::task::BlockManagerId {
        executor_id: id,
        host: host.into(),
        port: 38000,
    };
    let block = crate::spark_core::block_manager_master::RddBlockId {
        rdd_id: 1,
        partition,
    };
    s.update_rdd_block_info(&location, block, 1000, 1 << 30);
}

/// DAGScheduler.getPreferredLocsInternal asks getCacheLocs first: a task over a cached
/// partition prefers the executor holding it (ExecutorCacheTaskLocation), so the set's levels
/// start at PROCESS_LOCAL (TaskSetManager.computeValidLocalityLevels: forExecutor with a live
/// executor). Another executor, even on the same host, waits spark.locality.wait.process (3 s)
/// before taking it NODE_LOCAL; the holder takes it at once, PROCESS_LOCAL
/// (dequeueTaskHelper's forExecutor list). TaskSetManagerSuite "basic delay scheduling" with
/// `TaskLocation("host1", "exec1")` preferences.
#[test]
fn a_cached_partition_runs_process_local_on_its_executor() {
    run(async {
        let (mut s, store) = scheduler(1);
        // Executors 1 (host1) and 2 (host2) are alive and busy; each holds one block.
        offers(
            &mut s,
            &mut [offer(1, "host1", 0), offer(2, "host2", 0)],
            true,
        );
        cache_block(&mut s, 1, "host1", 0);
        cache_block(&mut s, 2, "host2", 1);
        s.submit_job(cached_job(2), waiter());
        let key = *s.task_scheduler.runnable.first().expect("runnable");
        use TaskLocality::*;
        assert_eq!(
            s.task_scheduler.task_sets[&key].levels.as_slice(),
            [ProcessLocal, NodeLocal, RackLocal, Any]
        );
        // Executor 3 shares host1 with the holder of partition 0: it waits for PROCESS_LOCAL.
        assert!(offers(&mut s, &mut [offer(3, "host1", 1)], true).is_empty());
        let t = offers(&mut s, &mut [offer(1, "host1", 1)], true);
        assert_eq!(placed(&s, &t), [(1, 0, ProcessLocal)]);
        // After the process wait, partition 1 (cached on host2) is still only rack-local to
        // host1; after the node wait too, executor 3 takes it RACK_LOCAL.
        sleep_until(3000).await;
        assert!(offers(&mut s, &mut [offer(3, "host1", 1)], true).is_empty());
        sleep_until(6000).await;
        let t = offers(&mut s, &mut [offer(3, "host1", 1)], true);
        assert_eq!(placed(&s, &t), [(3, 1, RackLocal)]);
        let log = store.borrow().output("driver").expect("log").stderr.clone();
        assert!(
            log.contains("(host1,executor 1, partition 0, PROCESS_LOCAL, 7595 bytes) "),
            "{log}"
        );
    });
}

/// A replayed task over persisted RDDs (sparkyard's replay of a log whose stage lists a
/// persisted RDD) is placed as Spark places it: getPreferredLocsInternal asks getCacheLocs of
/// each persisted RDD down the lineage and the first located block is the preference
/// (DAGScheduler.scala). Here the stage's own RDD 5 is persisted but not yet computed, RDD 1
/// below it is held: the task prefers RDD 1's holder, and is launched knowing it must compute
/// and store RDD 5's block only (`missing` = 1).
#[test]
fn a_replayed_task_prefers_the_first_held_persisted_rdd() {
    run(async {
        let (mut s, _) = scheduler(1);
        offers(
            &mut s,
            &mut [offer(1, "host1", 0), offer(2, "host2", 0)],
            true,
        );
        cache_block(&mut s, 2, "host2", 0);
        let mut j = job(1, Vec::new());
        j.stages[0].tasks = vec![TaskWork::Replayed {
            duration_ms: 10,
            failures: None,
            cache: Some(Box::new(sparkyard_messages::task::ReplayedCache {
                rdd_ids: vec![5, 1],
                missing: 2,
            })),
            own_warmup_ms: None,
            recorded_executor: None,
        }]
        .into();
        s.submit_job(j, waiter());
        let key = *s.task_scheduler.runnable.first().expect("runnable");
        use TaskLocality::*;
        assert_eq!(
            s.task_scheduler.task_sets[&key].levels.as_slice(),
            [ProcessLocal, NodeLocal, RackLocal, Any]
        );
        // Executor 1 does not hold it: no launch at PROCESS_LOCAL; the holder takes it.
        assert!(offers(&mut s, &mut [offer(1, "host1", 1)], true).is_empty());
        let t = offers(&mut s, &mut [offer(2, "host2", 1)], true);
        assert_eq!(placed(&s, &t), [(2, 0, ProcessLocal)]);
        let TaskWork::Replayed { cache: Some(c), .. } = &t[0].work else {
            panic!("a replayed task: {:?}", t[0].work);
        };
        assert_eq!(c.missing, 1, "only RDD 5's block is computed here");
    });
}

/// Without a cached block (the job that caches, or a block lost with its executor) the same
/// tasks have no preference: getCacheLocs is empty and the RDD has no preferred locations.
#[test]
fn uncached_partitions_keep_no_preference() {
    run(async {
        let (mut s, _) = scheduler(1);
        offers(&mut s, &mut [offer(1, "host1", 0)], true);
        s.submit_job(cached_job(2), waiter());
        let key = *s.task_scheduler.runnable.first().expect("runnable");
        assert_eq!(
            s.task_scheduler.task_sets[&key].levels.as_slice(),
            [TaskLocality::NoPref, TaskLocality::Any]
        );
    });
}

/// computeValidLocalityLevels: PROCESS_LOCAL only while an executor in `forExecutor` is alive
/// (TaskSchedulerImpl.isExecutorAlive); its host's list keeps NODE_LOCAL while the host has
/// another executor.
#[test]
fn process_local_follows_the_holding_executor() {
    let settings = LocalitySettings::default();
    let mut topology = Topology::new(RACKS);
    let host1: Rc<str> = Rc::from("host1");
    topology.executor_added(ExecutorId(1), &host1);
    topology.executor_added(ExecutorId(2), &host1);
    let mut pending = PendingTasks::default();
    pending.add(
        0,
        std::slice::from_ref(&host1),
        Some(ExecutorId(1)),
        &topology,
    );
    let levels = |p: &PendingTasks, t: &Topology| p.valid_levels(t, &settings).as_slice().to_vec();
    use TaskLocality::*;
    assert_eq!(
        levels(&pending, &topology),
        [ProcessLocal, NodeLocal, RackLocal, Any]
    );
    topology.executor_removed(ExecutorId(1));
    assert_eq!(levels(&pending, &topology), [NodeLocal, RackLocal, Any]);
}

/// TaskSetManagerSuite "new executors get added and lost": tasks preferring execA/execB on
/// host1 and execC on host2 (ExecutorCacheTaskLocation) and one without a preference. The levels
/// grow as executors come (execD on host1: NODE_LOCAL; execC itself: PROCESS_LOCAL) and shrink
/// as they go. Spark's test leaves host1 without a rack (FakeRackUtil); on YARN a host the
/// topology does not name is on /default-rack, so here host1 is on /rack-1 and host2 on
/// /rack-2, and RACK_LOCAL is valid while either rack has a live host.
#[test]
fn new_executors_get_added_and_lost() {
    let settings = LocalitySettings::default();
    let mut topology = Topology::new([("host1", "/rack-1"), ("host2", "/rack-2")]);
    let (host1, host2): (Rc<str>, Rc<str>) = (Rc::from("host1"), Rc::from("host2"));
    let (exec_a, exec_b, exec_c, exec_d) =
        (ExecutorId(1), ExecutorId(2), ExecutorId(3), ExecutorId(4));
    let mut pending = PendingTasks::default();
    for (i, host, exec) in [
        (0, &host1, exec_a),
        (1, &host1, exec_b),
        (2, &host2, exec_c),
    ] {
        pending.add(i, std::slice::from_ref(host), Some(exec), &topology);
    }
    pending.add(3, &[], None, &topology);
    let levels = |p: &PendingTasks, t: &Topology| p.valid_levels(t, &settings).as_slice().to_vec();
    use TaskLocality::*;
    assert_eq!(levels(&pending, &topology), [NoPref, Any]);
    topology.executor_added(exec_d, &host1);
    assert_eq!(
        levels(&pending, &topology),
        [NodeLocal, NoPref, RackLocal, Any]
    );
    topology.executor_added(exec_c, &host2);
    assert_eq!(
        levels(&pending, &topology),
        [ProcessLocal, NodeLocal, NoPref, RackLocal, Any]
    );
    topology.executor_removed(exec_c);
    assert_eq!(
        levels(&pending, &topology),
        [NodeLocal, NoPref, RackLocal, Any]
    );
    topology.executor_removed(exec_d);
    assert_eq!(levels(&pending, &topology), [NoPref, Any]);
}

/// A finished task whose end the TaskResultGetter has not handled yet keeps its copy (Spark
/// 4.0.0's TaskSetManager.removeRunningTask leaves `copiesRunning` alone; only handleFailedTask
/// and executorLost's resubmission give it back): a task launched NODE_LOCAL from its host's
/// list is still in its rack's list, and a RACK_LOCAL offer between its StatusUpdate and the
/// getter's handleSuccessfulTask must not run it again: the offer takes the other task (ANY).
#[test]
fn a_finished_index_is_not_offered_again_before_its_result_is_handled() {
    run(async {
        let (mut s, _) = scheduler(1);
        offers(&mut s, &mut [offer(2, "host2", 0)], true);
        let prefs = vec![vec!["host1".to_string()], vec!["host3".to_string()]];
        s.submit_job(job(2, prefs), waiter());
        let t = offers(&mut s, &mut [offer(1, "host1", 1)], true).remove(0);
        assert_eq!(t.index, 0);
        sleep_until(10_000).await;
        let (known, _) =
            s.status_update_before_getter(t.task_id, TaskState::Finished, TaskResultData::None);
        assert!(known);
        let next = offers(&mut s, &mut [offer(2, "host2", 1)], true);
        assert_eq!(placed(&s, &next), vec![(2, 1, TaskLocality::Any)]);
        let mut alloc = RecordedAllocations::default();
        assert!(s.task_result_getter(&mut alloc).is_empty());
    });
}

/// A one-task stage without preferences, replayed: its task recorded on the executor that
/// registered `place`-th (`TaskWork::Replayed::recorded_executor`).
fn replayed_one_task(place: Option<u32>) -> JobSpec {
    let mut j = job(1, Vec::new());
    j.stages[0].tasks = vec![TaskWork::Replayed {
        duration_ms: 10,
        failures: None,
        cache: None,
        own_warmup_ms: None,
        recorded_executor: place,
    }]
    .into();
    j
}

/// Where a one-task stage's task goes under seed `seed`, executors 4, 2, 6 and 1 having
/// registered in that order (each offered alone first, as a registration offers it).
fn one_task_executor(seed: u64, place: Option<u32>) -> u32 {
    let mut placed_on = 0;
    run(async {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let mut s = DriverScheduler::new(
            ProcessLog::new("driver", store),
            ContextBus::disabled(),
            4,
            1,
        )
        .with_locality(LocalitySettings::default(), RACKS, seed);
        for e in [4, 2, 6, 1] {
            offers(&mut s, &mut [offer(e, "host1", 1)], true);
        }
        s.submit_job(replayed_one_task(place), waiter());
        let mut all: Vec<WorkerOffer> = [1, 2, 4, 6].map(|e| offer(e, "host1", 1)).into();
        let t = offers(&mut s, &mut all, true);
        placed_on = placed(&s, &t)[0].0;
    });
    placed_on
}

/// TaskSchedulerImpl.resourceOffers shuffles the offers (`shuffleOffers`: `Random.shuffle`,
/// unseeded; core/src/main/scala/org/apache/spark/scheduler/TaskSchedulerImpl.scala), so a
/// task without a preference goes to whichever executor comes first: the replay seeds that
/// draw, and where the log shows Spark's pick the replay takes it. Over ten seeds the seeded
/// draw alone spreads the task over the executors; with the recorded pick (the executor that
/// registered third, 6) every seed runs it there, and a place no executor took yet leaves the
/// seeded draw.
#[test]
fn a_replayed_task_without_preferences_takes_the_recorded_pick_of_the_offer_order() {
    let seeded: std::collections::BTreeSet<u32> =
        (1..=10).map(|seed| one_task_executor(seed, None)).collect();
    assert!(seeded.len() > 1, "the seeded draw varies: {seeded:?}");
    for seed in 1..=10 {
        assert_eq!(one_task_executor(seed, Some(2)), 6, "seed {seed}");
        assert_eq!(
            one_task_executor(seed, Some(9)),
            one_task_executor(seed, None),
            "seed {seed}"
        );
    }
}

/// `FakeTask.createBarrierTaskSet(n, prefs)`: a one-stage job of `n` barrier tasks.
fn barrier_job(n: u32, prefs: Vec<Vec<String>>) -> JobSpec {
    let mut j = job(n, prefs);
    j.stages[0].barrier = true;
    j
}

/// The suites' `workerOffers` of three executors with 3 free cores each.
fn three_offers_of_3_cores() -> [WorkerOffer; 3] {
    [
        offer(0, "host1", 3),
        offer(1, "host2", 3),
        offer(2, "host3", 3),
    ]
}

fn driver_log(store: &Rc<RefCell<LogStore>>) -> String {
    store.borrow().output("driver").expect("log").stderr.clone()
}

// TaskSchedulerImplSuite "don't schedule for a barrier taskSet if available slots are less
// than pending tasks": spark.task.cpus 2, two offers of 3 free cores (2 slots) for 3 barrier
// tasks: nothing launches, with Spark 4.0.0's line (read from its jar).
#[test]
fn dont_schedule_a_barrier_task_set_if_available_slots_are_less_than_pending_tasks() {
    run(async {
        let (mut s, store) = scheduler(2);
        s.submit_job(barrier_job(3, Vec::new()), waiter());
        let t = offers(
            &mut s,
            &mut [offer(0, "host1", 3), offer(1, "host2", 3)],
            true,
        );
        assert!(t.is_empty());
        assert!(driver_log(&store).contains(
            "INFO YarnClusterScheduler: Skip current round of resource offers for barrier stage 0 because the barrier taskSet requires 3 slots, while the total number of available slots is 2."
        ));
    });
}

// TaskSchedulerImplSuite "schedule tasks for a barrier taskSet if all tasks can be launched
// together": three offers of 3 free cores, spark.task.cpus 2: one task on each executor, and
// the BarrierCoordinator's and the launch's lines.
#[test]
fn schedule_a_barrier_task_set_if_all_tasks_can_be_launched_together() {
    run(async {
        let (mut s, store) = scheduler(2);
        s.submit_job(barrier_job(3, Vec::new()), waiter());
        let t = offers(&mut s, &mut three_offers_of_3_cores(), true);
        let mut executors: Vec<u32> = t.iter().map(|d| d.executor_id.0).collect();
        executors.sort_unstable();
        assert_eq!(executors, vec![0, 1, 2]);
        let log = driver_log(&store);
        assert!(log.contains("INFO YarnClusterScheduler: Registered BarrierCoordinator endpoint"));
        assert!(log.contains(
            "INFO YarnClusterScheduler: Successfully scheduled all the 3 tasks for barrier stage 0."
        ));
    });
}

/// An offer as the backend makes it of an executor of 3 free cores and GPU "0", a GPU a task
/// (`spark.executor.resource.gpu.amount` and `spark.task.resource.gpu.amount` 1): its cores
/// no more than its free GPUs let tasks use (`executor_resource_info::offer_cores`).
fn offer_with_one_gpu(executor: u32, host: &str) -> WorkerOffer {
    use crate::spark_core::executor_resource_info::{gpus, offer_cores};
    let r = gpus(&["0"], 1.0);
    let cores = offer_cores(3, 1, Some(&r));
    WorkerOffer {
        held_back: 3 - cores,
        resources: Some(Rc::new(RefCell::new(r))),
        ..offer(executor, host, cores)
    }
}

// TaskSchedulerImplSuite "don't schedule for a barrier taskSet if available slots are less
// than pending tasks gpus limiting": two offers of 3 free cores and one GPU each, a GPU a
// task: 2 slots for 3 barrier tasks, nothing launches (`calculateAvailableSlots` counts the
// GPUs, the limiting resource).
#[test]
fn dont_schedule_a_barrier_task_set_if_available_slots_are_less_than_pending_tasks_gpus_limiting() {
    run(async {
        let (mut s, store) = scheduler(1);
        s.submit_job(barrier_job(3, Vec::new()), waiter());
        let t = offers(
            &mut s,
            &mut [
                offer_with_one_gpu(0, "host0"),
                offer_with_one_gpu(1, "host1"),
            ],
            true,
        );
        assert!(t.is_empty());
        assert!(driver_log(&store).contains(
            "Skip current round of resource offers for barrier stage 0 because the barrier taskSet requires 3 slots, while the total number of available slots is 2."
        ));
    });
}

// TaskSchedulerImplSuite "schedule tasks for a barrier taskSet if all tasks can be launched
// together gpus": three such offers launch the 3 barrier tasks, each with GPU "0" of its
// executor.
#[test]
fn schedule_a_barrier_task_set_if_all_tasks_can_be_launched_together_gpus() {
    run(async {
        let (mut s, store) = scheduler(1);
        s.submit_job(barrier_job(3, Vec::new()), waiter());
        let mut gpu_offers = [
            offer_with_one_gpu(0, "host0"),
            offer_with_one_gpu(1, "host1"),
            offer_with_one_gpu(2, "host2"),
        ];
        let t = offers(&mut s, &mut gpu_offers, true);
        assert_eq!(t.len(), 3);
        for o in &gpu_offers {
            let r = o.resources.as_ref().expect("GPUs");
            assert_eq!(r.borrow().free_task_slots(), 0, "{}", o.executor_id);
        }
        assert!(
            driver_log(&store)
                .contains("taskResourceAssignments Map(gpu -> Map(0 -> 10000000000000000))")
        );
    });
}

// TaskSchedulerImplSuite "SPARK-29263: barrier TaskSet can't schedule when higher prio taskset
// takes the slots": a task set of higher priority (an earlier job) takes one of the three
// slots first; the barrier set of 3 then finds 2 and launches nothing.
#[test]
fn a_barrier_task_set_cant_schedule_when_a_higher_priority_set_takes_the_slots() {
    run(async {
        let (mut s, _) = scheduler(2);
        s.submit_job(job(1, Vec::new()), waiter());
        s.submit_job(barrier_job(3, Vec::new()), waiter());
        let t = offers(&mut s, &mut three_offers_of_3_cores(), true);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].stage_id, 0);
    });
}

// TaskSchedulerImplSuite "SPARK-24818: test delay scheduling for barrier TaskSetManager" and
// "test resource revert of barrier TaskSetManager", with two tasks preferring host1: at 0 s
// only host1's offer takes one (delay scheduling holds host2's back), so the one taken is
// released (its core back on its offer, its index pending again) and nothing launches; after
// spark.locality.wait (3 s) both launch together, one NODE_LOCAL on host1, one RACK_LOCAL on
// host2 (same rack).
#[test]
fn a_barrier_task_set_taken_in_part_releases_its_offers_until_all_can_launch() {
    run(async {
        let (mut s, store) = scheduler(1);
        let prefs = vec![vec!["host1".to_string()]; 2];
        s.submit_job(barrier_job(2, prefs), waiter());
        let both = || [offer(1, "host1", 1), offer(2, "host2", 1)];
        let mut list = both();
        assert!(offers(&mut s, &mut list, true).is_empty());
        assert_eq!((list[0].cores, list[1].cores), (1, 1));
        // The release's line waits a minute from the set's creation (lastResourceOfferFailLogTime).
        assert!(!driver_log(&store).contains("Releasing the assigned resource offers"));
        sleep_until(3000).await;
        let t = offers(&mut s, &mut both(), true);
        let mut placed_now = placed(&s, &t);
        placed_now.sort();
        assert_eq!(
            placed_now,
            [
                (1, 0, TaskLocality::NodeLocal),
                (2, 1, TaskLocality::RackLocal)
            ]
        );
    });
}
