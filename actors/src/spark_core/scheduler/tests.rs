//! The scheduler's unit tests (TaskSetManagerSuite, DAGSchedulerSuite cases ported).

use super::allocation_client::RecordedAllocations;
use super::dag_scheduler::JobResults;
use super::driver_scheduler::DriverScheduler;
use super::events::{RunningTask, SchedulerEvent, WorkerOffer};
use super::locality::TaskLocality;
use super::task_scheduler_impl::RunningTasks;
use crate::kernel::clock;
use crate::kernel::logs::LogStore;
use crate::kernel::logs::ProcessLog;
use crate::spark_core::task_result_getter::EndKind;
use crate::world::config::ShuffleSettings;
use crate::world::listener::ContextBus;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::rpc::{EndpointId, RpcEndpointAddress};
use sparkyard_messages::task::StageSpec;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, JobResult, JobSpec, TaskDescription, TaskResultData, TaskWork,
};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

fn scheduler() -> DriverScheduler {
    let store = Rc::new(RefCell::new(LogStore::new(false)));
    DriverScheduler::new(
        ProcessLog::new("driver", store),
        ContextBus::disabled(),
        4,
        1,
    )
}

/// A scheduler whose log lines are kept, and a way to read them.
pub(super) fn logged_scheduler() -> (DriverScheduler, Rc<RefCell<LogStore>>) {
    let store = Rc::new(RefCell::new(LogStore::new(true)));
    let s = DriverScheduler::new(
        ProcessLog::new("driver", store.clone()),
        ContextBus::disabled(),
        4,
        1,
    );
    (s, store)
}

/// The logged lines without their timestamps (`LEVEL Logger: text`).
pub(super) fn lines(store: &Rc<RefCell<LogStore>>) -> Vec<String> {
    let store = store.borrow();
    let Some(out) = store.output("driver") else {
        return Vec::new();
    };
    out.stderr
        .lines()
        .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l).to_string())
        .collect()
}

/// A one-stage job of two tasks.
fn two_task_job() -> JobSpec {
    let mut spec = stage("ParallelCollectionRDD[0] at X.scala:1", vec![]);
    spec.num_partitions = 2;
    let first = spec.tasks[0].clone();
    spec.tasks.to_mut().push(first);
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![spec],
    }
}

pub(super) fn waiter() -> RemoteRef {
    RemoteRef {
        id: EndpointId(0),
        address: RpcEndpointAddress {
            rpc_address: None,
            name: "Driver".into(),
        },
    }
}

fn stage(rdd: &str, parents: Vec<usize>) -> StageSpec {
    StageSpec {
        rdd_description: rdd.into(),
        num_partitions: 1,
        parents,
        tasks: vec![TaskWork::Sleep {
            duration_ms: 1,
            fail: None,
        }]
        .into(),
        shuffle_write: Default::default(),
        input: Default::default(),
        lineage: None,
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    }
}

/// A two-stage job: a shuffle-map stage and the result stage reading it.
fn two_stage_job() -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![
            stage("MapPartitionsRDD[1] at map at X.scala:1", vec![]),
            stage("ShuffledRDD[2] at count at X.scala:1", vec![0]),
        ],
    }
}

/// DAGScheduler.submitStage: a job's result stage waits (`waitingStages`) while its map stage
/// runs (`runningStages`), whatever other jobs were submitted before it.
#[test]
fn a_result_stage_waits_for_its_map_stage() {
    let mut s = scheduler();
    for _ in 0..3 {
        s.submit_job(two_stage_job(), waiter());
    }
    // Stage 2j is job j's map stage (running), 2j + 1 its result stage (waiting).
    assert_eq!(s.dag.waiting_stages, BTreeSet::from([1, 3, 5]));
    assert_eq!(s.dag.running_stages, BTreeSet::from([0, 2, 4]));
    assert_eq!(s.dag.job_stages[&2], (4, 5));
}

/// A one-stage job of one task.
fn one_task_job() -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![stage("ParallelCollectionRDD[0] at X.scala:1", vec![])],
    }
}

fn offer(executor: u32) -> WorkerOffer {
    WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from("host1"),
        cores: 1,
        held_back: 0,
        resources: None,
    }
}

/// Offers one core of executor 1 and returns the task launched there.
fn launch_one(s: &mut DriverScheduler) -> Box<TaskDescription> {
    let mut launched = s.resource_offer(&mut offer(1));
    assert_eq!(launched.len(), 1, "one task pending");
    launched.remove(0)
}

/// The failure every scheduler test throws: an `ExceptionFailure` (counts toward the task's
/// failures and toward exclusion).
pub(super) fn boom() -> TaskResultData {
    TaskResultData::Exception {
        class: "java.lang.RuntimeException".into(),
        description: "boom".into(),
    }
}

/// Ports TaskSetManagerSuite "repeated failures lead to task set abortion": the 4th failure
/// of a task (spark.task.maxFailures = 4) aborts the job with Spark's message; the three
/// before re-queue it.
#[test]
fn repeated_failures_lead_to_task_set_abortion() {
    let mut s = scheduler();
    s.submit_job(one_task_job(), waiter());
    for attempt in 0..3 {
        let task = launch_one(&mut s);
        assert_eq!(task.attempt_number, attempt);
        let (known, events) = s.status_update(task.task_id, TaskState::Failed, boom());
        assert!(known);
        assert!(matches!(events.as_slice(), [SchedulerEvent::Revive]));
    }
    let task = launch_one(&mut s);
    let (_, events) = s.status_update(task.task_id, TaskState::Failed, boom());
    let [SchedulerEvent::JobEnded { result, .. }] = events.as_slice() else {
        panic!("the job ends: {events:?}");
    };
    assert_eq!(
        *result,
        JobResult::Failed(
            "Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times, most recent failure: Lost task 0.3 in stage 0.0 (TID 3) (host1 executor 1): java.lang.RuntimeException: boom\nDriver stacktrace:".into()
        )
    );
    assert!(
        s.resource_offer(&mut offer(1)).is_empty(),
        "an aborted set launches nothing"
    );
}

/// Ports TaskSetManagerSuite "Executors exit for reason unrelated to currently running
/// tasks": losses not caused by the app re-queue the running task without counting toward
/// spark.task.maxFailures, so more losses than that never abort.
#[test]
fn executor_losses_unrelated_to_the_tasks_do_not_abort() {
    let mut s = scheduler();
    s.submit_job(one_task_job(), waiter());
    let preempted = ExecutorLossReason::Exited {
        exit_code: -102,
        exit_caused_by_app: false,
        reason: "Container container_1 on host: host1 was preempted.".into(),
    };
    for _ in 0..6 {
        let task = launch_one(&mut s);
        let events = s.executor_lost(task.executor_id, &preempted);
        assert!(
            matches!(events.as_slice(), [SchedulerEvent::Revive]),
            "{events:?}"
        );
    }
    assert_eq!(s.failed_attempts(), 6);
    assert!(s.has_pending_tasks());
}

/// An executor lost while running a task, for a reason caused by the app, re-queues the
/// task and counts the failure (Spark's TaskSetManager.executorLost -> handleFailedTask with
/// ExecutorLostFailure(exitCausedByApp = true)): the 4th such loss aborts.
#[test]
fn executor_lost_resubmits_its_running_task_and_counts_app_failures() {
    let mut s = scheduler();
    s.submit_job(one_task_job(), waiter());
    let oom = ExecutorLossReason::Exited {
        exit_code: 52,
        exit_caused_by_app: true,
        reason: "Container from a bad node".into(),
    };
    let mut last = Vec::new();
    for _ in 0..4 {
        let task = launch_one(&mut s);
        // Running (no longer launching): the loss is blamed on the task.
        s.status_update(task.task_id, TaskState::Running, TaskResultData::None);
        last = s.executor_lost(task.executor_id, &oom);
    }
    let [SchedulerEvent::JobEnded { result, .. }] = last.as_slice() else {
        panic!("the 4th loss aborts: {last:?}");
    };
    let JobResult::Failed(message) = result else {
        panic!("{result:?}");
    };
    assert!(
        message.contains("failed 4 times, most recent failure: Lost task 0.3 in stage 0.0 (TID 3) (host1 executor 1): ExecutorLostFailure (executor 1 exited caused by one of the running tasks) Reason: Container from a bad node"),
        "{message}"
    );
}

/// A task that finished is not run again: a late failure report for it is ignored, and
/// losing its executor (a result stage keeps no map output there) re-queues nothing
/// (Spark's TaskSetManager.handleFailedTask: "Task ... was already successful";
/// executorLost resubmits only shuffle-map outputs).
#[test]
fn a_finished_task_is_not_relaunched() {
    let mut s = scheduler();
    s.submit_job(one_task_job(), waiter());
    let task = launch_one(&mut s);
    let (_, events) = s.status_update(task.task_id, TaskState::Finished, TaskResultData::Count(7));
    let [SchedulerEvent::JobEnded { result, .. }] = events.as_slice() else {
        panic!("the job ends: {events:?}");
    };
    assert_eq!(
        *result,
        JobResult::Succeeded(vec![TaskResultData::Count(7)])
    );
    let (known, _) = s.status_update(task.task_id, TaskState::Failed, boom());
    assert!(!known, "a duplicate update for a finished task is ignored");
    let lost = ExecutorLossReason::Exited {
        exit_code: 1,
        exit_caused_by_app: true,
        reason: "gone".into(),
    };
    assert!(s.executor_lost(task.executor_id, &lost).is_empty());
    assert!(s.resource_offer(&mut offer(2)).is_empty());
    assert_eq!(s.failed_attempts(), 0);
}

/// Spark 4.0 TaskSchedulerImpl.killAllTaskAttempts and DAGScheduler
/// cancelRunningIndependentStages / markStageAsFinished: aborting a stage whose other task
/// still runs logs `Canceling stage`, `Killing all running tasks in stage 0: <the job's
/// error>` (no `Stage cancelled: ` prefix in that line), kills that task on its executor with
/// the reason `Stage cancelled: <the job's error>` (`$anonfun$killAllTaskAttempts$6` in the
/// 4.0.0 jar; a real local-cluster run's executor printed it), logs `Stage 0.0 was
/// cancelled`, and the set leaves its pool (`Removed TaskSet`) only once the killed task
/// reports back, with TaskKilled carrying the kill's reason.
#[test]
fn a_stage_abort_kills_its_running_tasks() {
    let (mut s, store) = logged_scheduler();
    s.submit_job(two_task_job(), waiter());
    let t0 = s.resource_offer(&mut offer(1)).remove(0);
    let t1 = s.resource_offer(&mut offer(2)).remove(0);
    assert_eq!((t0.index, t1.index), (0, 1));
    let mut tid = t0.task_id;
    let mut events = Vec::new();
    for _ in 0..4 {
        events = s.status_update(tid, TaskState::Failed, boom()).1;
        if let [SchedulerEvent::Revive] = events.as_slice() {
            tid = launch_one(&mut s).task_id;
        }
    }
    let [
        SchedulerEvent::KillTask {
            task_id,
            executor_id,
            reason,
            ..
        },
        SchedulerEvent::JobEnded { .. },
    ] = events.as_slice()
    else {
        panic!("a kill for the running task, then the job's end: {events:?}");
    };
    assert_eq!((*task_id, *executor_id), (t1.task_id, ExecutorId(2)));
    assert!(
        reason.starts_with(
            "Stage cancelled: Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times"
        ),
        "{reason}"
    );
    let logged = lines(&store);
    let at = |text: &str| {
        logged
            .iter()
            .position(|l| l.starts_with(text))
            .unwrap_or_else(|| panic!("no line {text:?} in {logged:#?}"))
    };
    let cancel = at("INFO YarnClusterScheduler: Canceling stage 0");
    let kill = at(
        "INFO YarnClusterScheduler: Killing all running tasks in stage 0: Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times",
    );
    let cancelled = at("INFO YarnClusterScheduler: Stage 0.0 was cancelled");
    let failed = at(
        "INFO DAGScheduler: ResultStage 0 (count at X.scala:1) failed in 0 ms due to Job aborted",
    );
    assert!(cancel < kill && kill < cancelled && cancelled < failed);
    assert!(
        !logged.iter().any(|l| l.contains("Removed TaskSet")),
        "task 1 still runs"
    );
    let data = TaskResultData::Killed {
        reason: reason.clone(),
    };
    let (known, events) = s.status_update(t1.task_id, TaskState::Killed, data);
    assert!(known && events.is_empty(), "{events:?}");
    let logged = lines(&store);
    let lost = format!(
        "WARN TaskSetManager: Lost task 1.0 in stage 0.0 (TID {}) (host1 executor 2): TaskKilled (Stage cancelled: Job aborted due to stage failure: ",
        t1.task_id
    );
    assert!(logged.iter().any(|l| l.starts_with(&lost)), "{logged:#?}");
    assert_eq!(
        logged.last().map(String::as_str),
        Some(
            "INFO YarnClusterScheduler: Removed TaskSet 0.0 whose tasks have all completed, from pool "
        )
    );
}

/// Spark 4.0's success path (TaskSchedulerImpl.taskSetFinished, DAGScheduler
/// markStageAsFinished and handleTaskCompletion, TaskSchedulerImpl.killAllTaskAttempts):
/// `Removed TaskSet 0.0 whose tasks have all completed, from pool ` (no comma), `finished in
/// <Long> ms`, and `Canceling stage 0` before the `Stage finished` kill line on the job's
/// end, with no `was cancelled` (the set has left its pool) and nothing to kill.
#[test]
fn a_job_end_logs_spark_4_lines() {
    let (mut s, store) = logged_scheduler();
    s.submit_job(one_task_job(), waiter());
    let t = launch_one(&mut s);
    let (_, events) = s.status_update(t.task_id, TaskState::Finished, TaskResultData::Count(1));
    assert!(
        matches!(events.as_slice(), [SchedulerEvent::JobEnded { .. }]),
        "{events:?}"
    );
    let logged = lines(&store);
    let tail: Vec<&str> = logged
        .iter()
        .rev()
        .take(5)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            "INFO YarnClusterScheduler: Removed TaskSet 0.0 whose tasks have all completed, from pool ",
            "INFO DAGScheduler: ResultStage 0 (count at X.scala:1) finished in 0 ms",
            "INFO DAGScheduler: Job 0 is finished. Cancelling potential speculative or zombie tasks for this job",
            "INFO YarnClusterScheduler: Canceling stage 0",
            "INFO YarnClusterScheduler: Killing all running tasks in stage 0: Stage finished",
        ]
    );
    let start = logged
        .iter()
        .find(|l| l.contains("Starting task"))
        .expect("started");
    assert!(
        start.ends_with("(host1,executor 1, partition 0, PROCESS_LOCAL, 7595 bytes) "),
        "Spark 4.0.0's TaskSetManager format has no space after the host's comma: {start}"
    );
}

/// TaskSetManager.handleFailedTask (Spark 4.0): an ExecutorLostFailure not caused by the app
/// is INFO `<task> failed because while it was being computed, its executor exited for a
/// reason unrelated to the task. ...`, not a WARN `Lost task`; an exception repeated within
/// spark.logging.exceptionPrintInterval is INFO `Lost task ... on <host>, executor N:
/// <class> (<desc>) [duplicate N]`.
#[test]
fn unrelated_losses_and_repeated_exceptions_are_info() {
    let (mut s, store) = logged_scheduler();
    s.submit_job(one_task_job(), waiter());
    let preempted = ExecutorLossReason::Exited {
        exit_code: -102,
        exit_caused_by_app: false,
        reason: "Container container_1 on host: host1 was preempted.".into(),
    };
    let t = launch_one(&mut s);
    s.executor_lost(t.executor_id, &preempted);
    let t = launch_one(&mut s);
    s.status_update(t.task_id, TaskState::Failed, boom());
    let t = launch_one(&mut s);
    s.status_update(t.task_id, TaskState::Failed, boom());
    let logged = lines(&store);
    let failures: Vec<&str> = logged
        .iter()
        .filter(|l| l.contains("TaskSetManager: Lost") || l.contains("failed because"))
        .map(String::as_str)
        .collect();
    assert_eq!(
        failures,
        [
            "INFO TaskSetManager: task 0.0 in stage 0.0 (TID 0) failed because while it was being computed, its executor exited for a reason unrelated to the task. Not counting this failure towards the maximum number of failures for the task.",
            "WARN TaskSetManager: Lost task 0.1 in stage 0.0 (TID 1) (host1 executor 1): java.lang.RuntimeException: boom",
            "INFO TaskSetManager: Lost task 0.2 in stage 0.0 (TID 2) on host1, executor 1: java.lang.RuntimeException (boom) [duplicate 1]",
        ]
    );
}

/// A two-stage job of two map and two reduce partitions.
fn shuffle_job() -> JobSpec {
    let mut map = stage("MapPartitionsRDD[1] at map at X.scala:1", vec![]);
    let mut reduce = stage("ShuffledRDD[2] at count at X.scala:2", vec![0]);
    for s in [&mut map, &mut reduce] {
        s.num_partitions = 2;
        let first = s.tasks[0].clone();
        s.tasks.to_mut().push(first);
    }
    JobSpec {
        call_site: "count at X.scala:2".into(),
        stages: vec![map, reduce],
    }
}

fn offer_on(executor: u32, host: &str) -> WorkerOffer {
    WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        cores: 1,
        held_back: 0,
        resources: None,
    }
}

/// Runs the map stage of `shuffle_job`: partition 0 on executor 1 (host1), 1 on executor 2
/// (host2); returns the first reduce task's description, launched on executor 3.
fn finish_map_stage(s: &mut DriverScheduler) -> Box<TaskDescription> {
    s.submit_job(shuffle_job(), waiter());
    for (e, h) in [(1, "host1"), (2, "host2"), (3, "host3")] {
        s.block_manager_added(ExecutorId(e), Rc::from(h));
    }
    let m0 = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
    let m1 = s.resource_offer(&mut offer_on(2, "host2")).remove(0);
    s.status_update(m0.task_id, TaskState::Finished, TaskResultData::None);
    s.status_update(m1.task_id, TaskState::Finished, TaskResultData::None);
    let r0 = s.resource_offer(&mut offer_on(3, "host3")).remove(0);
    assert_eq!((r0.stage_id, r0.partition_id), (1, 0));
    r0
}

/// The FetchFailed a reducer reports when executor 1's block manager does not answer.
fn fetch_failed(reduce_id: u32) -> TaskResultData {
    TaskResultData::FetchFailed(Box::new(FetchFailure {
        bm_address: Some(BlockManagerId {
            executor_id: ExecutorId(1),
            host: "host1".into(),
            port: 38001,
        }),
        shuffle_id: 0,
        map_id: 0,
        map_index: 0,
        reduce_id,
        message: "org.apache.spark.shuffle.FetchFailedException: Failed to connect to host1:38001"
            .into(),
    }))
}

/// DAGScheduler.handleTaskCompletion FetchFailed (DAGSchedulerSuite "trivial shuffle with
/// fetch failure"): the reduce stage's attempt fails (`Marking ... as failed due to a fetch
/// failure from ...`, `failed in <ms> ms due to <message>`), the map output and the executor's
/// outputs are unregistered (`Executor lost: 1 (epoch E)`, `Shuffle files lost for executor`),
/// both stages are resubmitted after RESUBMIT_TIMEOUT (200 ms), and the new map stage attempt
/// runs only the missing partition.
#[test]
fn a_fetch_failure_resubmits_the_map_stage_for_its_missing_partitions() {
    let (mut s, store) = logged_scheduler();
    let r0 = finish_map_stage(&mut s);
    let (known, events) = s.status_update(r0.task_id, TaskState::Failed, fetch_failed(0));
    assert!(known);
    // The attempt's one record names the executor whose block manager the fetch failed from
    // (TaskEndReason.scala's `FetchFailed(bmAddress, ...)`: BlockManagerId(1, host1, ...)),
    // not the executor the reduce task ran on (3).
    let end = *s.task_ends().last().expect("recorded");
    assert_eq!(
        (end.task_id, end.executor, end.kind),
        (
            r0.task_id,
            ExecutorId(3),
            EndKind::FetchFailed {
                from: Some(ExecutorId(1))
            }
        )
    );
    assert!(
        matches!(
            events.as_slice(),
            [SchedulerEvent::ResubmitFailedStagesAfter { ms: 200 }]
        ),
        "{events:?}"
    );
    assert_eq!(s.env.map_output_tracker.missing_partitions(0), vec![0]);
    let logged = lines(&store);
    // The FetchFailed message spans three lines, as Spark's does.
    let raw = store
        .borrow()
        .output("driver")
        .expect("logged")
        .stderr
        .clone();
    assert!(raw.contains(
        " WARN TaskSetManager: Lost task 0.0 in stage 1.0 (TID 2) (host3 executor 3): FetchFailed(BlockManagerId(1, host1, 38001, None), shuffleId=0, mapIndex=0, mapId=0, reduceId=0, message=\norg.apache.spark.shuffle.FetchFailedException: Failed to connect to host1:38001\n)\n"
    ), "{raw}");
    let tail: Vec<&str> = logged
        .iter()
        .rev()
        .take(9)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            // Its other partition never launched: the zombie set leaves its pool at once.
            "INFO YarnClusterScheduler: Removed TaskSet 1.0 whose tasks have all completed, from pool ",
            "INFO DAGScheduler: Marking ResultStage 1 (count at X.scala:2) as failed due to a fetch failure from ShuffleMapStage 0 (map at X.scala:1)",
            "INFO DAGScheduler: ResultStage 1 (count at X.scala:2) failed in 0 ms due to org.apache.spark.shuffle.FetchFailedException: Failed to connect to host1:38001",
            "INFO DAGScheduler: Resubmitting ShuffleMapStage 0 (map at X.scala:1) and ResultStage 1 (count at X.scala:2) due to fetch failure",
            "INFO DAGScheduler: Executor lost: 1 (epoch 1)",
            "INFO BlockManagerMasterEndpoint: Trying to remove executor 1 from BlockManagerMaster.",
            "INFO BlockManagerMasterEndpoint: Removing block manager BlockManagerId(1, host1, 38001, None)",
            "INFO BlockManagerMaster: Removed 1 successfully in removeExecutor",
            "INFO DAGScheduler: Shuffle files lost for executor: 1 (epoch 1)",
        ]
    );
    let events = s.resubmit_failed_stages();
    assert!(matches!(events.as_slice(), [SchedulerEvent::Revive]));
    // Stage.makeNewStageAttempt(partitionsToCompute.size) -> StageInfo.fromStage(stage,
    // attempt, Some(numPartitionsToCompute)) (Stage.scala, StageInfo.scala): the new
    // attempt's StageInfo (the event log's `Number of Tasks`) counts only the partition it
    // computes again; the RDD keeps its 2 partitions.
    let info = s.dag.stage_info(0, None);
    assert_eq!(
        (info.attempt_id, info.num_tasks, info.num_partitions),
        (1, 1, 2)
    );
    let logged = lines(&store);
    assert!(logged.contains(&"INFO DAGScheduler: Resubmitting failed stages".to_string()));
    assert!(
        logged.contains(
            &"INFO YarnClusterScheduler: Adding task set 0.1 with 1 tasks resource profile 0"
                .to_string()
        )
    );
    let m = s.resource_offer(&mut offer_on(2, "host2")).remove(0);
    assert_eq!(
        (m.stage_id, m.stage_attempt_id, m.index, m.partition_id),
        (0, 1, 0, 0)
    );
    s.status_update(m.task_id, TaskState::Finished, TaskResultData::None);
    // The reduce stage's second attempt runs both partitions (neither has a result yet).
    let r = s.resource_offer(&mut offer_on(2, "host2")).remove(0);
    assert_eq!((r.stage_id, r.stage_attempt_id), (1, 1));
    let plan = r.shuffle.read.expect("a reduce task reads the shuffle");
    assert_eq!(plan.missing_map, None);
    assert_eq!(s.failed_attempts(), 1);
}

/// DAGSchedulerSuite "Fail the job if a barrier/fetch-failed stage exceeds
/// spark.stage.maxConsecutiveAttempts": the 4th consecutive fetch-failed attempt aborts the
/// job with `<stage> (<name>) has failed the maximum allowable number of times: 4. Most recent
/// failure reason: <message>`; fetch failures never reach spark.task.maxFailures' abort.
#[test]
fn four_fetch_failed_attempts_abort_the_stage() {
    let (mut s, store) = logged_scheduler();
    let mut r = finish_map_stage(&mut s);
    let mut last = Vec::new();
    for attempt in 0..4 {
        assert_eq!(r.stage_attempt_id, attempt);
        last = s
            .status_update(r.task_id, TaskState::Failed, fetch_failed(0))
            .1;
        if attempt == 3 {
            break;
        }
        s.resubmit_failed_stages();
        // The lost output runs again on executor 1 (so the next failure names it again).
        let m = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
        assert_eq!((m.stage_id, m.stage_attempt_id), (0, attempt + 1));
        s.status_update(m.task_id, TaskState::Finished, TaskResultData::None);
        r = s.resource_offer(&mut offer_on(3, "host3")).remove(0);
    }
    let Some(SchedulerEvent::JobEnded { result, .. }) = last.last() else {
        panic!("the job ends: {last:?}");
    };
    assert_eq!(
        *result,
        JobResult::Failed(
            // DAGScheduler.handleTaskCompletion, Spark 4.0.0's jar: a line break after the colon.
            "Job aborted due to stage failure: ResultStage 1 (count at X.scala:2) has failed the maximum allowable number of times: 4. Most recent failure reason:\norg.apache.spark.shuffle.FetchFailedException: Failed to connect to host1:38001".into()
        )
    );
    assert!(
        !lines(&store).iter().any(|l| l.contains("aborting job")),
        "fetch failures do not count toward spark.task.maxFailures"
    );
}

/// DAGSchedulerSuite "SPARK-42577: fail the job if a shuffle map stage attempts beyond the
/// limitation" (the suite stubs `maxStageAttempts` to 2, as these settings do): the reduce
/// stage fails fetching twice (below spark.stage.maxConsecutiveAttempts), so the map stage is
/// resubmitted once; the second resubmission would be its third attempt, and submitStage
/// aborts it with Spark 4.0.0's text (DAGScheduler.submitStage, read from the jar).
#[test]
fn a_stage_resubmitted_up_to_max_stage_attempts_aborts_its_job() {
    let store = Rc::new(RefCell::new(LogStore::new(true)));
    let mut s = DriverScheduler::new(
        ProcessLog::new("driver", store),
        ContextBus::disabled(),
        4,
        1,
    )
    .with_shuffle(ShuffleSettings {
        max_stage_attempts: 2,
        ..ShuffleSettings::default()
    });
    let r = finish_map_stage(&mut s);
    s.status_update(r.task_id, TaskState::Failed, fetch_failed(0));
    let resubmitted = s.resubmit_failed_stages();
    assert!(
        !resubmitted
            .iter()
            .any(|e| matches!(e, SchedulerEvent::JobEnded { .. })),
        "the second attempt is allowed: {resubmitted:?}"
    );
    let m = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
    assert_eq!((m.stage_id, m.stage_attempt_id), (0, 1));
    s.status_update(m.task_id, TaskState::Finished, TaskResultData::None);
    let r = s.resource_offer(&mut offer_on(3, "host3")).remove(0);
    assert_eq!((r.stage_id, r.stage_attempt_id), (1, 1));
    let (_, failed) = s.status_update(r.task_id, TaskState::Failed, fetch_failed(0));
    assert!(
        !failed
            .iter()
            .any(|e| matches!(e, SchedulerEvent::JobEnded { .. })),
        "two fetch-failed attempts stay below spark.stage.maxConsecutiveAttempts"
    );
    let out = s.resubmit_failed_stages();
    let Some(result) = out.iter().find_map(|e| match e {
        SchedulerEvent::JobEnded { result, .. } => Some(result),
        _ => None,
    }) else {
        panic!("the job ends: {out:?}");
    };
    assert_eq!(
        *result,
        JobResult::Failed(
            "Job aborted due to stage failure: ShuffleMapStage 0 (name=map at X.scala:1) has been resubmitted for the maximum allowable number of times: 2, which is the max value of config `spark.stage.maxAttempts` and `spark.stage.maxConsecutiveAttempts`.".into()
        )
    );
    assert!(s.resource_offer(&mut offer_on(1, "host1")).is_empty());
}

/// Runs the reduce stage of `finish_map_stage` to four fetch-failed attempts, executor 1 being
/// decommissioned during the first only; returns whether the job ended and the log.
fn four_fetch_failures_first_from_a_decommissioned_executor(ignore: bool) -> (bool, Vec<String>) {
    let (s, store) = logged_scheduler();
    let mut s = s.with_shuffle(ShuffleSettings {
        ignore_decommission_fetch_failure: ignore,
        ..ShuffleSettings::default()
    });
    let mut r = finish_map_stage(&mut s);
    s.executor_decommission(ExecutorId(1), None);
    let mut ended = false;
    for attempt in 0..4 {
        if attempt > 0 {
            // The suite's `taskScheduler.executorsPendingDecommission.clear()`.
            s.task_scheduler.topology.clear_decommissions();
            s.resubmit_failed_stages();
            let m = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
            s.status_update(m.task_id, TaskState::Finished, TaskResultData::None);
            r = s.resource_offer(&mut offer_on(3, "host3")).remove(0);
        }
        assert_eq!((r.stage_id, r.stage_attempt_id), (1, attempt));
        let (_, out) = s.status_update(r.task_id, TaskState::Failed, fetch_failed(0));
        ended |= out
            .iter()
            .any(|e| matches!(e, SchedulerEvent::JobEnded { .. }));
    }
    (ended, lines(&store))
}

/// DAGSchedulerSuite "SPARK-40481: Multiple consecutive stage fetch failures from decommissioned
/// executor should not fail job when ignoreDecommissionFetchFailure is enabled.": with
/// `spark.stage.ignoreDecommissionFetchFailure` (true in 4.0) the first attempt's fetch failure,
/// from an executor being decommissioned, is not counted, so four fetch-failed attempts stay
/// below spark.stage.maxConsecutiveAttempts; with it off the fourth aborts the job. The INFO
/// text is DAGScheduler.handleTaskCompletion's (Spark 4.0.0's jar).
#[test]
fn a_fetch_failure_from_a_decommissioned_executor_does_not_count_toward_stage_attempts() {
    let (ended, log) = four_fetch_failures_first_from_a_decommissioned_executor(true);
    assert!(!ended, "three counted attempts do not abort");
    let ignored = "INFO DAGScheduler: Ignoring fetch failure from ResultTask(1, 0) of ResultStage 1 attempt 0 when count spark.stage.maxConsecutiveAttempts as executor 1 is decommissioned and spark.stage.ignoreDecommissionFetchFailure=true";
    assert_eq!(log.iter().filter(|l| *l == ignored).count(), 1, "{log:#?}");
    let (ended, log) = four_fetch_failures_first_from_a_decommissioned_executor(false);
    assert!(ended, "the fourth counted attempt aborts");
    assert!(
        !log.iter()
            .any(|l| l.contains("Ignoring fetch failure from"))
    );
}

/// DAGScheduler.submitMissingTasks (Spark 4.0.0's jar) for a stage attempt with no partition to
/// compute: a reduce task's fetch failure names a block manager that does not hold the map
/// output (so nothing is unregistered), and the map stage's resubmitted attempt has no task. It
/// gets no submission time (`finished in Unknown ms`, markStageAsFinished), goes through
/// processShuffleMapStageCompletion (`looking for newly runnable stages` and the three sets,
/// the epoch), and the reduce stage, resubmitted next, runs at once.
#[test]
fn a_stage_attempt_with_no_missing_task_finishes_and_submits_its_children() {
    let (mut s, store) = logged_scheduler();
    let r = finish_map_stage(&mut s);
    let elsewhere = TaskResultData::FetchFailed(Box::new(FetchFailure {
        bm_address: Some(BlockManagerId {
            executor_id: ExecutorId(9),
            host: "host9".into(),
            port: 38009,
        }),
        shuffle_id: 0,
        map_id: 0,
        map_index: 0,
        reduce_id: 0,
        message: "org.apache.spark.shuffle.FetchFailedException: Failed to connect to host9:38009"
            .into(),
    }));
    s.status_update(r.task_id, TaskState::Failed, elsewhere);
    assert!(s.env.map_output_tracker.is_available(0));
    let epoch = s.env.map_output_tracker.epoch();
    s.resubmit_failed_stages();
    assert_eq!(s.env.map_output_tracker.epoch(), epoch + 1);
    let logged = lines(&store);
    let from = logged
        .iter()
        .position(|l| l.contains("Resubmitting failed stages"))
        .expect("resubmitted");
    let after: Vec<&str> = logged[from + 1..].iter().map(String::as_str).collect();
    let finished = after
        .iter()
        .position(|l| l.contains("ShuffleMapStage 0 (map at X.scala:1) finished in"))
        .expect("the map stage finishes");
    assert_eq!(
        after[finished..finished + 5],
        [
            "INFO DAGScheduler: ShuffleMapStage 0 (map at X.scala:1) finished in Unknown ms",
            "INFO DAGScheduler: looking for newly runnable stages",
            "INFO DAGScheduler: running: HashSet()",
            // resubmitFailedStages clears failedStages and submits by first job, then id: the
            // reduce stage is neither failed nor waiting yet, and is submitted next.
            "INFO DAGScheduler: waiting: HashSet()",
            "INFO DAGScheduler: failed: HashSet()",
        ]
    );
    assert!(
        !after
            .iter()
            .any(|l| l.contains("missing tasks from ShuffleMapStage 0")),
        "no task set for the map stage: {after:?}"
    );
    let r = s.resource_offer(&mut offer_on(3, "host3")).remove(0);
    assert_eq!((r.stage_id, r.stage_attempt_id), (1, 1));
}

/// DAGScheduler.handleExecutorLost: without the external shuffle service a lost executor's
/// map outputs go with it (`Shuffle files lost for executor`); with it, they stay registered
/// (only `Executor lost`), as DAGSchedulerSuite "executor loss with/without external shuffle
/// service" checks.
#[test]
fn an_executor_loss_unregisters_outputs_only_without_the_shuffle_service() {
    for ess in [false, true] {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let mut s = DriverScheduler::new(
            ProcessLog::new("driver", store.clone()),
            ContextBus::disabled(),
            4,
            1,
        )
        .with_shuffle(ShuffleSettings {
            service_enabled: ess,
            ..ShuffleSettings::default()
        });
        finish_map_stage(&mut s);
        let lost = ExecutorLossReason::Exited {
            exit_code: 137,
            exit_caused_by_app: true,
            reason: "killed".into(),
        };
        s.executor_lost(ExecutorId(1), &lost);
        let logged = lines(&store);
        assert!(logged.contains(&"INFO DAGScheduler: Executor lost: 1 (epoch 1)".to_string()));
        let files_lost = logged
            .iter()
            .any(|l| l == "INFO DAGScheduler: Shuffle files lost for executor: 1 (epoch 1)");
        assert_eq!(files_lost, !ess);
        assert_eq!(s.env.map_output_tracker.is_available(0), ess);
    }
}

/// TaskSetManager.executorLost (Spark 4.0): a map task that finished on the lost executor is
/// reported `Resubmitted` (DAGScheduler: `Resubmitted ShuffleMapTask(0, 0), so marking it as
/// still running.`) before its running tasks are lost, and before the DAGScheduler's
/// `Executor lost` line; it runs again in the same stage attempt.
#[test]
fn a_lost_map_output_is_resubmitted_before_the_running_tasks_fail() {
    let (mut s, store) = logged_scheduler();
    s.submit_job(shuffle_job(), waiter());
    s.block_manager_added(ExecutorId(1), Rc::from("host1"));
    let m0 = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
    s.status_update(m0.task_id, TaskState::Finished, TaskResultData::None);
    let m1 = s.resource_offer(&mut offer_on(1, "host1")).remove(0);
    s.status_update(m1.task_id, TaskState::Running, TaskResultData::None);
    let lost = ExecutorLossReason::Exited {
        exit_code: -100,
        exit_caused_by_app: false,
        reason: "lost node".into(),
    };
    s.executor_lost(ExecutorId(1), &lost);
    let logged = lines(&store);
    let at = |text: &str| {
        logged
            .iter()
            .position(|l| l.contains(text))
            .unwrap_or_else(|| panic!("no {text:?} in {logged:#?}"))
    };
    let resubmitted =
        at("DAGScheduler: Resubmitted ShuffleMapTask(0, 0), so marking it as still running.");
    let failed = at("task 1.0 in stage 0.0 (TID 1) failed because");
    let lost_line = at("DAGScheduler: Executor lost: 1 (epoch 0)");
    assert!(resubmitted < failed && failed < lost_line);
    let again: Vec<u32> = [
        s.resource_offer(&mut offer_on(2, "host2")),
        s.resource_offer(&mut offer_on(3, "host3")),
    ]
    .into_iter()
    .flatten()
    .map(|t| t.partition_id)
    .collect();
    assert_eq!(
        again,
        vec![1, 0],
        "the failed task, then the resubmitted one"
    );
}

/// DAGSchedulerEventProcessLoop ExecutorLost -> handleExecutorLost(execId, workerHost) and
/// ShuffleStatus.updateMapOutput (Spark 4.0): an `ExecutorDecommission` with a worker host
/// (`DecommissionExecutorsOnHost`) unregisters every output served from that host; an output
/// a peer reported as migrated (`Updating map output for <mapId> to <bm>`) lives elsewhere and
/// stays, so the reduce stage needs no map task again.
#[test]
fn a_decommissioned_host_loses_its_outputs_but_not_the_migrated_ones() {
    let (mut s, store) = logged_scheduler();
    finish_map_stage(&mut s);
    let peer = BlockManagerId {
        executor_id: ExecutorId(3),
        host: "host3".into(),
        port: 38003,
    };
    let map0 = sparkyard_messages::task::ShuffleBlockInfo {
        shuffle_id: 0,
        map_id: 0,
    };
    s.update_map_output(map0, peer);
    let decommission = |h: &str| ExecutorLossReason::Decommission {
        reason: format!("Decommissioning all executors on {h}."),
        worker_host: Some(h.into()),
    };
    s.executor_decommission(ExecutorId(1), Some("host1"));
    s.executor_lost(ExecutorId(1), &decommission("host1"));
    assert!(
        s.env.map_output_tracker.is_available(0),
        "map 0 migrated to host3"
    );
    s.executor_lost(ExecutorId(2), &decommission("host2"));
    assert_eq!(s.env.map_output_tracker.missing_partitions(0), vec![1]);
    let logged = lines(&store);
    for want in [
        "INFO ShuffleStatus: Updating map output for 0 to BlockManagerId(3, host3, 38003, None)",
        "INFO DAGScheduler: Shuffle files lost for host: host1 (epoch 1)",
        "INFO DAGScheduler: Shuffle files lost for host: host2 (epoch 2)",
    ] {
        assert!(
            logged.iter().any(|l| l == want),
            "{want}\n{}",
            logged.join("\n")
        );
    }
}
/// A two-stage job whose map stage is over the program's shuffle `shuffle_id`.
fn job_over_shuffle(shuffle_id: Option<u32>) -> JobSpec {
    let mut job = two_stage_job();
    job.stages[0].lineage = Some(Box::new(sparkyard_messages::task::StageLineage {
        shuffle_id,
        ..Default::default()
    }));
    job
}

/// Runs every task the scheduler launches on executor 1 to success until no task is left.
fn run_all(s: &mut DriverScheduler) {
    loop {
        let launched = s.resource_offer(&mut offer(1));
        if launched.is_empty() {
            return;
        }
        for t in launched {
            s.status_update(t.task_id, TaskState::Finished, TaskResultData::Count(1));
        }
    }
}

/// DAGScheduler.createShuffleMapStage: a later job over a shuffle an earlier job computed
/// gets a new stage (a new id) for it, finds its outputs in the MapOutputTracker
/// (`mapOutputTracker.containsShuffle`), and `submitStage` skips it: only the result stage runs
/// (the History Server's "skipped" stage; SparkTC's rounds reuse the earlier rounds' shuffles).
#[test]
fn a_later_job_skips_a_shuffle_an_earlier_job_computed() {
    let mut s = scheduler();
    s.submit_job(job_over_shuffle(Some(0)), waiter());
    run_all(&mut s);
    assert!(s.env.map_output_tracker.is_available(0));
    s.submit_job(job_over_shuffle(Some(0)), waiter());
    assert_eq!(s.dag.job_stages[&1], (2, 3));
    assert_eq!(
        s.dag.running_stages,
        BTreeSet::from([3]),
        "map stage 2 skipped"
    );
    assert!(s.dag.waiting_stages.is_empty());
    // A job over a new shuffle runs its map stage again.
    run_all(&mut s);
    s.submit_job(job_over_shuffle(Some(1)), waiter());
    assert_eq!(s.dag.running_stages, BTreeSet::from([4]));
}

/// TaskInfo.markFinished (Spark 4.0): a KILLED attempt sets only `killed`; `failed` stays false
/// (the event log's TaskEnd has `"Failed": false, "Killed": true`, and the History Server shows
/// the attempt KILLED, not FAILED).
#[test]
fn a_killed_attempt_is_killed_not_failed_in_its_task_info() {
    let listeners = crate::world::listener::ListenerBus::new(true);
    let mut s = DriverScheduler::new(
        ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false)))),
        listeners.context("app".into(), 1),
        4,
        1,
    );
    s.submit_job(two_stage_job(), waiter());
    let t = s.resource_offer(&mut offer(1)).remove(0);
    let data = TaskResultData::Killed {
        reason: "test".into(),
    };
    s.status_update(t.task_id, TaskState::Killed, data);
    let events = listeners.take().remove(0).events;
    let info = events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::TaskEnd { info, .. } => Some(info),
            _ => None,
        })
        .expect("a TaskEnd");
    assert_eq!((info.failed, info.killed), (false, true));
}

fn running_task(id: u64) -> RunningTask {
    RunningTask {
        task_id: TaskId(id),
        key: (0, 0, 0),
        index: id as u32,
        partition: id as u32,
        attempt: 0,
        executor_id: ExecutorId(1),
        host: Rc::from("host1"),
        launch_ms: id,
        launch_epoch: id,
        map_epoch: 0,
        launching: true,
        speculative: false,
        locality: TaskLocality::ProcessLocal,
    }
}

// The running-task table: places are reused as tasks end (a launch allocates nothing once
// the table has grown), iteration stays in task id order whatever place a task got, and a
// task id launched twice replaces the first.
#[test]
fn running_tasks_reuse_places_and_iterate_in_task_id_order() {
    let mut r = RunningTasks::default();
    for id in 0..4 {
        r.insert(TaskId(id), running_task(id));
    }
    assert_eq!(r.remove(TaskId(1)).map(|t| t.index), Some(1));
    assert!(r.remove(TaskId(1)).is_none());
    r.insert(TaskId(7), running_task(7));
    assert_eq!(r.places.len(), 4, "task 7 took task 1's place");
    r.get_mut(TaskId(7)).expect("running").launching = false;
    assert!(!r.get(TaskId(7)).expect("running").launching);
    let order: Vec<u64> = r.values().map(|t| t.task_id.0).collect();
    assert_eq!(order, vec![0, 2, 3, 7]);
    let mut again = running_task(7);
    again.attempt = 1;
    r.insert(TaskId(7), again);
    assert_eq!(r.get(TaskId(7)).map(|t| t.attempt), Some(1));
    assert_eq!(r.values().count(), 4);
}

// DAGScheduler.handleTaskCompletion (DAGScheduler.scala) hands a ResultTask's result to the
// JobWaiter only `if (!job.finished(rt.outputId))`: the first result of each partition counts,
// a later copy's is ignored; the job ends when `numFinished == numPartitions`. The results come
// back in partition order whatever order they arrived in, a task that returned nothing as None.
#[test]
fn job_results_keep_the_first_result_of_each_partition_in_partition_order() {
    let mut r = JobResults::new(4);
    assert_eq!(r.missing(), vec![0, 1, 2, 3]);
    assert!(r.record(2, TaskResultData::Count(20)));
    assert!(r.record(0, TaskResultData::None));
    assert!(!r.record(2, TaskResultData::Count(99)));
    assert_eq!(r.missing(), vec![1, 3]);
    assert!(r.record(3, TaskResultData::Count(30)));
    assert!(!r.is_complete());
    assert!(r.record(1, TaskResultData::Count(10)));
    assert!(r.is_complete());
    assert!(r.missing().is_empty());
    assert_eq!(
        r.into_ordered(),
        vec![
            TaskResultData::None,
            TaskResultData::Count(10),
            TaskResultData::Count(20),
            TaskResultData::Count(30),
        ]
    );
}

/// The scheduler's files in the one-way order of their imports (mod.rs's head): a file may
/// name only the files before it.
const IMPORT_ORDER: [(&str, &str); 14] = [
    ("locality", include_str!("locality.rs")),
    ("events", include_str!("events.rs")),
    ("map_output_tracker", include_str!("map_output_tracker.rs")),
    ("speculation", include_str!("speculation.rs")),
    ("env", include_str!("env.rs")),
    (
        "task_set_exclude_list",
        include_str!("task_set_exclude_list.rs"),
    ),
    ("health_tracker", include_str!("health_tracker.rs")),
    ("allocation_client", include_str!("allocation_client.rs")),
    ("pool", include_str!("pool.rs")),
    ("barrier_job_check", include_str!("barrier_job_check.rs")),
    ("task_set_manager", include_str!("task_set_manager.rs")),
    (
        "task_scheduler_impl",
        include_str!("task_scheduler_impl.rs"),
    ),
    ("dag_scheduler", include_str!("dag_scheduler.rs")),
    ("driver_scheduler", include_str!("driver_scheduler.rs")),
];

/// The sibling files `code` names (`super::<file>`), comments left out.
fn sibling_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut rest = line.split("//").next().unwrap_or("");
        while let Some(i) = rest.find("super::") {
            rest = &rest[i + "super::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

// Issue 29 ("no import circle between the scheduler's files"): every `super::` path of a
// scheduler file leads to a file before it in IMPORT_ORDER, so TaskSchedulerImpl and its
// TaskSetManagers, and the DAGScheduler and TaskSchedulerImpl, import each other one way only.
#[test]
fn the_scheduler_files_import_one_way() {
    let names: Vec<&str> = IMPORT_ORDER.iter().map(|(n, _)| *n).collect();
    for (i, (file, code)) in IMPORT_ORDER.iter().enumerate() {
        for used in sibling_paths(code) {
            let at = names.iter().position(|n| *n == used);
            assert!(
                at.is_some_and(|at| at < i),
                "{file}.rs names super::{used}, which is not below it"
            );
        }
    }
    assert_eq!(sibling_paths("use super::a::B; // super::c"), vec!["a"]);
}

/// A one-stage job of `n` one-partition-each tasks.
fn n_task_job(n: usize) -> JobSpec {
    let mut spec = stage("ParallelCollectionRDD[0] at X.scala:1", vec![]);
    spec.num_partitions = n as u32;
    spec.tasks = vec![spec.tasks[0].clone(); n].into();
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![spec],
    }
}

/// Where a failed task runs again (Spark 4.0.0's jar: TaskSchedulerImpl.statusUpdate hands a
/// failed end to `taskResultGetter.enqueueFailedTask`, a thread pool, and the DriverEndpoint's
/// StatusUpdate calls `makeOffers(executorId)` as soon as statusUpdate returns;
/// TaskSetManager.handleFailedTask puts the index back with `copiesRunning(index) -= 1` and
/// `addPendingTask`, and TaskSchedulerImpl.handleFailedTask revives). The slot the failure
/// frees takes the next pending task; the failed index, back on top of the pending stack, takes
/// the next slot. A real local-cluster run shows the same order (the work log of 2026-12-05).
#[test]
fn a_failed_tasks_slot_goes_to_the_next_pending_task_and_the_retry_to_the_next_slot() {
    let mut s = scheduler();
    s.submit_job(n_task_job(4), waiter());
    let first = s.resource_offer(&mut offer(1)).remove(0);
    let second = s.resource_offer(&mut offer(2)).remove(0);
    assert_eq!((first.index, second.index), (0, 1));
    let (known, _) = s.status_update_before_getter(first.task_id, TaskState::Failed, boom());
    assert!(known);
    let freed = s.resource_offer(&mut offer(1)).remove(0);
    assert_eq!(
        (freed.index, freed.attempt_number),
        (2, 0),
        "the next pending task"
    );
    let events = s.task_result_getter(&mut RecordedAllocations::default());
    assert!(matches!(events.as_slice(), [SchedulerEvent::Revive]));
    assert_eq!(s.failed_attempts(), 1);
    s.status_update(second.task_id, TaskState::Finished, TaskResultData::None);
    let retry = s.resource_offer(&mut offer(2)).remove(0);
    assert_eq!(
        (retry.index, retry.attempt_number),
        (0, 1),
        "the retry, next slot"
    );
}

/// Runs `body` on a paused runtime whose virtual clock starts at 0 (the timer-driven cases).
pub(super) fn run(body: impl std::future::Future<Output = ()>) {
    let rt = clock::paused_runtime().expect("runtime");
    rt.block_on(async {
        clock::start(0);
        body.await
    });
}

/// Moves the virtual clock `ms` forward, firing what falls due.
pub(super) async fn advance(ms: u64) {
    clock::advance(clock::ms(ms)).await;
}

/// TaskSetManager (Spark 4.0.0): every task of a task set takes the MapOutputTrackerMaster's
/// epoch when the set is created (`task.epoch = epoch`), which the executor's
/// `MapOutputTrackerWorker.updateEpoch(task.epoch)` reads in `Executor.TaskRunner.run`: after
/// a fetch failure bumps the epoch, the resubmitted map task carries the new one.
#[test]
fn a_task_carries_its_task_sets_map_output_epoch() {
    let (mut s, _store) = logged_scheduler();
    let r = finish_map_stage(&mut s);
    // The map stage's completion moved the epoch on before the reduce set was created.
    assert_eq!(r.epoch, s.env.map_output_tracker.epoch());
    assert_eq!(r.epoch, 1);
    s.status_update(r.task_id, TaskState::Failed, fetch_failed(0));
    s.resubmit_failed_stages();
    let epoch = s.env.map_output_tracker.epoch();
    assert!(epoch > r.epoch);
    let m = s.resource_offer(&mut offer_on(2, "host2")).remove(0);
    assert_eq!((m.stage_id, m.epoch), (0, epoch));
}
