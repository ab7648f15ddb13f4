//! Cases of Spark's TaskSchedulerImplSuite, TaskSetManagerSuite and DAGSchedulerSuite that run
//! one scheduler class through its typed calls and events: a TaskSchedulerImpl against a fake
//! DAGScheduler that records what it is told (as the suites' `FakeDAGScheduler` does), and a
//! DAGScheduler fed `CompletionEvent`s and `TaskSetFailed` directly (the suite's `runEvent`).

use super::allocation_client::{
    AllocationCall, AllocationClient, ExecutorDecommission, RecordedAllocations,
};
use super::dag_scheduler::RESUBMIT_TIMEOUT_MS;
use super::driver_scheduler::DriverScheduler;
use super::env::DriverEnv;
use super::events::{
    AttemptEnd, CompletionEvent, Ending, LaunchedTasks, RunningTask, SchedulerEvent,
    SpeculativeTask, StageCode, StageWorks, TaskSet, WorkerOffer,
};
use super::locality::{PreferredLocations, TaskLocality};
use super::task_scheduler_impl::{DagEvents, TaskSchedulerImpl};
use super::tests::{boom, waiter};
use crate::kernel::clock;
use crate::kernel::logs::{LogStore, ProcessLog};
use crate::spark_core::task_result_getter::EndKind;
use crate::world::config::SpeculationSettings;
use crate::world::listener::{ContextBus, ListenerBus};
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::{ListenerEvent, TaskEndReason};
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, JobResult, JobSpec, MapStatusData, RESULT_SIZE_EXCEEDED,
    ResultSizes, ShuffleWrite, StageSpec, TaskResultData, TaskWork,
};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// What the DAGScheduler was told, as the suites' `FakeDAGScheduler` records it
/// (`startedTasks`, `endedTasks`, `speculativeTasks`, `taskSetFailed`).
#[derive(Default)]
pub(super) struct FakeDag {
    pub(super) started: Vec<TaskId>,
    /// Each ended attempt: its id, its reason, and whether a success was counted.
    pub(super) ended: Vec<(TaskId, TaskEndReason, bool)>,
    /// Each ended attempt's id and when it ended (its record, or the TaskInfo it had
    /// already ended with: `Resubmitted`).
    pub(super) ended_infos: Vec<(TaskId, Ending)>,
    pub(super) added: Vec<ExecutorId>,
    pub(super) lost: Vec<ExecutorId>,
    pub(super) failed_sets: Vec<(u32, String)>,
    pub(super) speculative: Vec<SpeculativeTask>,
    /// `unschedulableTaskSetAdded` (true) and `...Removed` (false) calls.
    pub(super) unschedulable: Vec<(u32, u32, bool)>,
    /// Whether the attempt's set was a zombie when the DAGScheduler heard of each end.
    pub(super) zombie_at_end: Vec<bool>,
    /// Each `taskEnded`, in a journal a test may share with its allocation client.
    journal: Rc<RefCell<Vec<Seen>>>,
}

/// What a test saw happen, in order: the DAGScheduler told of an end, or a call on the
/// HealthTracker's allocation client.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    TaskEnded(TaskId),
    Allocation(AllocationCall),
}

/// An allocation client writing its calls into the journal the fake DAGScheduler writes in,
/// then acting as the unit tests' client does (a decommission calls the scheduler back).
struct JournalAllocations {
    journal: Rc<RefCell<Vec<Seen>>>,
    inner: RecordedAllocations,
}

impl JournalAllocations {
    fn note(&mut self) {
        if let Some(call) = self.inner.calls.last() {
            self.journal
                .borrow_mut()
                .push(Seen::Allocation(call.clone()));
        }
    }
}

impl AllocationClient for JournalAllocations {
    fn kill_executor(&mut self, id: ExecutorId) {
        self.inner.kill_executor(id);
        self.note();
    }

    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        ts: &mut dyn ExecutorDecommission,
    ) {
        self.inner.decommission_executor(id, message, ts);
        self.note();
    }

    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        self.inner.kill_executors_on_host(host, decommission);
        self.note();
    }
}

impl FakeDag {
    pub(super) fn ended_with(&self, tid: TaskId) -> Option<&TaskEndReason> {
        self.ended.iter().find(|e| e.0 == tid).map(|e| &e.1)
    }

    pub(super) fn resubmitted(&self) -> usize {
        self.ended
            .iter()
            .filter(|e| matches!(e.1, TaskEndReason::Resubmitted))
            .count()
    }
}

impl DagEvents for FakeDag {
    fn task_started(&mut self, task: &RunningTask) {
        self.started.push(task.task_id);
    }

    fn task_ended(
        &mut self,
        event: CompletionEvent<'_>,
        ts: &mut TaskSchedulerImpl,
        _: &mut DriverEnv,
        _: &mut Vec<SchedulerEvent>,
    ) {
        let zombie = ts.task_sets.get(&event.task.key).is_some_and(|t| t.zombie);
        self.zombie_at_end.push(zombie);
        let counted = event.result.is_some();
        let seen = Seen::TaskEnded(event.task.task_id);
        self.journal.borrow_mut().push(seen);
        self.ended_infos.push((event.task.task_id, event.ending));
        self.ended.push((event.task.task_id, event.reason, counted));
    }

    fn executor_added(&mut self, executor: ExecutorId, _: &str) {
        self.added.push(executor);
    }

    fn executor_lost(&mut self, executor: ExecutorId, _: &ExecutorLossReason) {
        self.lost.push(executor);
    }

    fn task_set_failed(
        &mut self,
        stage: u32,
        reason: &str,
        _: &mut TaskSchedulerImpl,
        _: &mut DriverEnv,
        _: &mut Vec<SchedulerEvent>,
    ) {
        self.failed_sets.push((stage, reason.to_string()));
    }

    fn speculative_task_submitted(&mut self, task: SpeculativeTask) {
        self.speculative.push(task);
    }

    fn unschedulable_task_set_added(&mut self, stage: u32, stage_attempt: u32) {
        self.unschedulable.push((stage, stage_attempt, true));
    }

    fn unschedulable_task_set_removed(&mut self, stage: u32, stage_attempt: u32) {
        self.unschedulable.push((stage, stage_attempt, false));
    }
}

/// A TaskSchedulerImpl alone, its SparkEnv and a fake DAGScheduler.
pub(super) struct Alone {
    pub(super) ts: TaskSchedulerImpl,
    pub(super) env: DriverEnv,
    pub(super) dag: FakeDag,
    /// The HealthTracker's allocation client: the calls it made.
    pub(super) alloc: RecordedAllocations,
}

impl Alone {
    pub(super) fn new(task_cpus: u32) -> Self {
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        Alone {
            ts: TaskSchedulerImpl::new(log.clone(), 4, task_cpus),
            env: DriverEnv::new(log, ContextBus::disabled()),
            dag: FakeDag::default(),
            alloc: RecordedAllocations::default(),
        }
    }

    pub(super) fn offer(&mut self, offers: &mut [WorkerOffer]) -> LaunchedTasks {
        let mut launched = Vec::new();
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts
            .resource_offers(offers, false, &mut launched, env, dag, alloc);
        launched
    }

    pub(super) fn update(&mut self, tid: TaskId, state: TaskState) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let data = TaskResultData::None;
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts
            .status_update_handled(tid, state, data, env, dag, alloc, &mut out);
        out
    }

    /// A failure that counts toward spark.task.maxFailures (an exception in the task).
    pub(super) fn fail(&mut self, tid: TaskId) {
        let data = boom();
        let mut out = Vec::new();
        self.ts.status_update_handled(
            tid,
            TaskState::Failed,
            data,
            &mut self.env,
            &mut self.dag,
            &mut self.alloc,
            &mut out,
        );
    }

    pub(super) fn lose(&mut self, executor: u32) {
        let reason = ExecutorLossReason::ProcessLost {
            message: "gone".into(),
            caused_by_app: false,
        };
        let mut out = Vec::new();
        let eid = ExecutorId(executor);
        let (env, dag, alloc) = (&mut self.env, &mut self.dag, &mut self.alloc);
        self.ts
            .executor_lost(eid, &reason, env, dag, alloc, &mut out);
    }

    /// The TaskSetManager of stage `stage`, attempt `attempt` (job = stage here).
    pub(super) fn tsm(
        &mut self,
        stage: u32,
        attempt: u32,
    ) -> &mut super::task_set_manager::TaskSetManager {
        self.ts
            .task_sets
            .get_mut(&(stage, stage, attempt))
            .expect("submitted")
    }
}

/// `FakeTask.createTaskSet(n, stageId, stageAttemptId)`: `n` tasks without preferences; the
/// job (FIFO priority) is the stage id. A shuffle-map set when `shuffle` names its shuffle.
pub(super) fn task_set(stage: u32, attempt: u32, n: u32, shuffle: Option<u32>) -> TaskSet {
    let work = TaskWork::Sleep {
        duration_ms: 1,
        fail: None,
    };
    TaskSet {
        job_id: stage,
        stage_id: stage,
        stage_attempt: attempt,
        partitions: (0..n).collect(),
        epoch: 0,
        prefs: PreferredLocations::default(),
        code: StageCode {
            works: StageWorks::new(vec![work; n as usize].into()),
            task_binary: 0,
            input: Default::default(),
            input_path: None,
            shuffle_write: shuffle.map(|shuffle_id| ShuffleWrite {
                shuffle_id,
                num_reduces: 1,
                bytes: 0,
                records: 0,
            }),
            shuffle_read: None,
            result_bytes: Default::default(),
            barrier: false,
        },
    }
}

pub(super) fn offer(executor: u32, host: &str, cores: u32) -> WorkerOffer {
    WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        cores,
        held_back: 0,
        resources: None,
    }
}

// TaskSetManagerSuite "TaskSet with no preferences": the offer gets the task at once (the
// DAGScheduler hears `taskStarted`); its success reaches the DAGScheduler as `taskEnded(Success)`
// with the result, and the set leaves its pool (`finishedManagers`).
#[test]
fn a_task_set_with_no_preferences() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    assert_eq!(a.dag.started, vec![t.task_id]);
    assert_eq!(
        a.dag.added,
        vec![ExecutorId(1)],
        "executorAdded on the first offer"
    );
    a.update(t.task_id, TaskState::Finished);
    assert_eq!(a.dag.ended, vec![(t.task_id, TaskEndReason::Success, true)]);
    assert!(a.tsm(0, 0).finished);
}

// TaskSetManagerSuite "multiple offers with no preferences": three offers find the three tasks,
// a fourth finds none; the set is finished only once its last task has succeeded.
#[test]
fn multiple_offers_with_no_preferences() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 3, None));
    let tasks: LaunchedTasks = (0..3)
        .map(|_| a.offer(&mut [offer(1, "host1", 1)]).remove(0))
        .collect();
    assert!(tasks.iter().all(|t| t.executor_id == ExecutorId(1)));
    assert_eq!(a.dag.started, vec![TaskId(0), TaskId(1), TaskId(2)]);
    assert!(a.offer(&mut [offer(1, "host1", 1)]).is_empty());
    a.update(TaskId(0), TaskState::Finished);
    a.update(TaskId(1), TaskState::Finished);
    assert_eq!(a.dag.ended_with(TaskId(0)), Some(&TaskEndReason::Success));
    assert_eq!(a.dag.ended_with(TaskId(1)), Some(&TaskEndReason::Success));
    assert!(!a.tsm(0, 0).finished);
    a.update(TaskId(2), TaskState::Finished);
    assert_eq!(a.dag.ended_with(TaskId(2)), Some(&TaskEndReason::Success));
    assert!(a.tsm(0, 0).finished);
}

// TaskSetManager.handleSuccessfulTask (Spark 4.0.0, read from the jar) resets the index's
// failure count (`numFailures(index) = 0`): a map task that failed 3 times of
// spark.task.maxFailures = 4, then succeeded, and is resubmitted when its executor is lost
// while the set still runs, may fail again without aborting the job. Without the reset its
// 4th failure would abort (`Task 0 in stage 0.0 failed 4 times`).
#[test]
fn a_success_resets_the_index_failure_count() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 2, Some(0)));
    let held = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
    let mut last = None;
    for _ in 0..3 {
        let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
        assert_ne!(t.index, held.index);
        a.fail(t.task_id);
        last = Some(t.index);
    }
    let index = last.expect("three attempts") as usize;
    assert_eq!(a.tsm(0, 0).failures[index], 3);
    let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    a.update(t.task_id, TaskState::Finished);
    assert_eq!(a.tsm(0, 0).failures[index], 0, "numFailures(index) = 0");
    // Executor 1 is lost while the set still runs `held`: its output is resubmitted.
    a.lose(1);
    assert_eq!(a.dag.resubmitted(), 1);
    let t = a.offer(&mut [offer(3, "host3", 1)]).remove(0);
    assert_eq!(t.index as usize, index);
    a.fail(t.task_id);
    assert!(a.dag.failed_sets.is_empty(), "{:?}", a.dag.failed_sets);
    assert_eq!(a.tsm(0, 0).failures[index], 1);
}

/// A set of two tasks on one executor whose first task throws `class: description`; the
/// harness and that task's id.
fn first_task_throws(class: &str, description: &str) -> (Alone, TaskId) {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 2, None));
    let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    let data = TaskResultData::Exception {
        class: class.into(),
        description: description.into(),
    };
    let mut out = Vec::new();
    a.ts.status_update_handled(
        t.task_id,
        TaskState::Failed,
        data,
        &mut a.env,
        &mut a.dag,
        &mut a.alloc,
        &mut out,
    );
    (a, t.task_id)
}

// TaskSetManager.handleFailedTask (Spark 4.0.0's jar: the `className ==
// classOf[TaskOutputFileAlreadyExistException].getName` check and its texts): a task that cannot
// write its output file is not retried. Its first failure aborts the set (spark.task.maxFailures
// is 4 here), counts no failure and offers the index no more.
#[test]
fn an_output_file_that_already_exists_aborts_the_task_set_without_retry() {
    let (mut a, tid) = first_task_throws(
        "org.apache.spark.TaskOutputFileAlreadyExistException",
        "org.apache.hadoop.fs.FileAlreadyExistsException: /out/part-00000",
    );
    assert!(matches!(
        a.dag.ended_with(tid),
        Some(TaskEndReason::ExceptionFailure { .. })
    ));
    assert_eq!(
        a.dag.failed_sets,
        vec![(
            0,
            "Task 0.0 in stage 0.0 (TID 0) can not write to output file: org.apache.hadoop.fs.FileAlreadyExistsException: /out/part-00000".to_string()
        )]
    );
    assert_eq!(a.tsm(0, 0).failures[0], 0, "not counted");
    assert!(a.tsm(0, 0).zombie);
    assert!(
        a.offer(&mut [offer(1, "host1", 1)]).is_empty(),
        "not retried"
    );
}

// TaskSetManager.handleFailedTask (Spark 4.0.0's jar: the `className ==
// classOf[NotSerializableException].getName` check, before the output-file one, and its texts
// ` had a not serializable result: ` / `; not retrying`): a task whose result cannot be
// serialized is not re-executed; its first failure aborts the set with `taskName(tid)`'s
// lower-case `task 0.0 in stage 0.0 (TID 0)`, counts no failure and offers the index no more.
#[test]
fn a_not_serializable_result_aborts_the_task_set_without_retry() {
    let (mut a, _) = first_task_throws("java.io.NotSerializableException", "com.example.Record");
    assert_eq!(
        a.dag.failed_sets,
        vec![(
            0,
            "task 0.0 in stage 0.0 (TID 0) had a not serializable result: com.example.Record"
                .to_string()
        )]
    );
    assert_eq!(a.tsm(0, 0).failures[0], 0, "not counted");
    assert!(
        a.offer(&mut [offer(1, "host1", 1)]).is_empty(),
        "not retried"
    );
}

/// A TaskSchedulerImpl alone with `spark.driver.maxResultSize` = `max` bytes.
fn with_max_result_size(max: u64) -> Alone {
    let Alone {
        ts,
        env,
        dag,
        alloc,
    } = Alone::new(1);
    Alone {
        ts: ts.with_max_result_size(max),
        env,
        dag,
        alloc,
    }
}

/// Runs a set of `n` tasks (a map set when `map`) to the end on one executor of `n` cores.
fn finish_all(a: &mut Alone, stage: u32, n: u32, map: bool) -> Vec<TaskId> {
    a.ts.submit_tasks(task_set(stage, 0, n, map.then_some(stage)));
    let tids: Vec<TaskId> = a
        .offer(&mut [offer(1, "host1", n)])
        .iter()
        .map(|t| t.task_id)
        .collect();
    for &tid in &tids {
        a.update(tid, TaskState::Finished);
    }
    tids
}

// TaskSetManagerSuite "abort the job if total size of results is too large", with sparkyard's
// results of TASK_RESULT_BYTES (1000) each and spark.driver.maxResultSize = 2500 bytes: two
// results fit; the third result of a result set passes the limit and aborts the set with
// TaskSetManager.canFetchMoreResults' text (Spark 4.0.0's jar), and that task ends
// `TaskKilled (Tasks result size has exceeded maxResultSize)` (TaskResultGetter); a map set's
// results count but never abort; 0 is no limit.
#[test]
fn results_over_max_result_size_abort_the_result_set() {
    let mut a = with_max_result_size(2500);
    finish_all(&mut a, 0, 2, false);
    finish_all(&mut a, 1, 3, true);
    assert!(a.dag.failed_sets.is_empty(), "{:?}", a.dag.failed_sets);
    let tids = finish_all(&mut a, 2, 3, false);
    assert_eq!(
        a.dag.failed_sets,
        vec![(
            2,
            "Total size of serialized results of 3 tasks (2.9 KiB) is bigger than spark.driver.maxResultSize (2.4 KiB)".to_string()
        )]
    );
    assert_eq!(
        a.dag.ended_with(tids[2]),
        Some(&TaskEndReason::TaskKilled {
            reason: "Tasks result size has exceeded maxResultSize".into()
        })
    );
    assert!(a.tsm(2, 0).zombie && a.tsm(2, 0).finished);
    // Each FINISHED update's one record: the refused one is killed (what the run's record,
    // the `on_tasks_finished` trigger and the listener bus all read), the two before it
    // finished.
    let kind_of = |tid: TaskId| {
        a.ts.task_ends()
            .iter()
            .find(|e| e.task_id == tid)
            .map(|e| e.kind)
    };
    let kinds: Vec<Option<EndKind>> = tids.iter().map(|&t| kind_of(t)).collect();
    let (ok, killed) = (Some(EndKind::Success), Some(EndKind::TaskKilled));
    assert_eq!(kinds, vec![ok, ok, killed]);
    let mut unlimited = with_max_result_size(0);
    finish_all(&mut unlimited, 0, 3, false);
    assert!(unlimited.dag.failed_sets.is_empty());
}

// The same rule with each task's own result size (a replayed stage's recorded `Result Size`s,
// `StageSpec.result_bytes`): TaskSetManager.canFetchMoreResults adds the size the result came
// with (the DirectTaskResult's bytes, or an IndirectTaskResult's `size`), so two results of
// 600,000 bytes pass a 1 MiB spark.driver.maxResultSize at the second, whatever the third's;
// each task's description carries its partition's size, which its executor reports.
#[test]
fn each_tasks_own_result_size_counts_against_max_result_size() {
    let mut a = with_max_result_size(1 << 20);
    let mut set = task_set(0, 0, 3, None);
    set.code.result_bytes = Rc::new(ResultSizes(vec![600_000, 10, 600_000]));
    a.ts.submit_tasks(set);
    let launched = a.offer(&mut [offer(1, "host1", 3)]);
    let sizes: Vec<u64> = launched.iter().map(|t| t.result_bytes).collect();
    assert_eq!(sizes, vec![600_000, 10, 600_000]);
    let tids: Vec<TaskId> = launched.iter().map(|t| t.task_id).collect();
    a.update(tids[0], TaskState::Finished);
    a.update(tids[1], TaskState::Finished);
    assert!(a.dag.failed_sets.is_empty(), "{:?}", a.dag.failed_sets);
    a.update(tids[2], TaskState::Finished);
    assert_eq!(
        a.dag.failed_sets,
        vec![(
            0,
            "Total size of serialized results of 3 tasks (1171.9 KiB) is bigger than spark.driver.maxResultSize (1024.0 KiB)".to_string()
        )]
    );
    assert_eq!(
        a.dag.ended_with(tids[2]),
        Some(&TaskEndReason::TaskKilled {
            reason: RESULT_SIZE_EXCEEDED.into()
        })
    );
}

// TaskSetManager.executorLost walks `taskInfos`, a Scala 2.13 mutable.HashMap[Long, TaskInfo]
// (Spark 4.0.0's jar): the lost executor's outputs are resubmitted in the map's order of task
// ids, not in the order they finished. After 31 tasks of an earlier set, a map set's tasks 31
// and 32 finish on executor 1 in that order; its table of 16 buckets puts 32 (bucket 0) before
// 31 (bucket 15), as scala-library 2.13.16 iterates `HashMap(32 -> .., 33 -> .., 31 -> ..)`.
#[test]
fn a_lost_executor_resubmits_in_the_task_infos_order() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 31, None));
    let earlier: Vec<TaskId> = a
        .offer(&mut [offer(9, "host9", 31)])
        .iter()
        .map(|t| t.task_id)
        .collect();
    for tid in earlier {
        a.update(tid, TaskState::Finished);
    }
    a.ts.submit_tasks(task_set(1, 0, 3, Some(1)));
    let on_1: Vec<TaskId> = a
        .offer(&mut [offer(1, "host1", 2)])
        .iter()
        .map(|t| t.task_id)
        .collect();
    assert_eq!(on_1, vec![TaskId(31), TaskId(32)]);
    a.offer(&mut [offer(2, "host2", 1)]);
    a.update(TaskId(31), TaskState::Finished);
    a.update(TaskId(32), TaskState::Finished);
    a.lose(1);
    let resubmitted: Vec<TaskId> = a
        .dag
        .ended
        .iter()
        .filter(|e| matches!(e.1, TaskEndReason::Resubmitted))
        .map(|e| e.0)
        .collect();
    assert_eq!(resubmitted, vec![TaskId(32), TaskId(31)]);
}

// TaskSchedulerImplSuite "Scheduler correctly accounts for multiple CPUs per task": with
// spark.task.cpus = 2, offers of 0 or 1 free core launch nothing; an executor with 2 does.
#[test]
fn scheduler_accounts_for_multiple_cpus_per_task() {
    let mut a = Alone::new(2);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    let none = a.offer(&mut [offer(0, "host0", 0), offer(1, "host1", 0)]);
    assert!(none.is_empty());
    let none = a.offer(&mut [offer(0, "host0", 1), offer(1, "host1", 1)]);
    assert!(none.is_empty());
    let one = a.offer(&mut [offer(0, "host0", 2), offer(1, "host1", 1)]);
    assert_eq!(one.len(), 1);
    assert_eq!((one[0].executor_id, one[0].cpus), (ExecutorId(0), 2));
    assert!(a.dag.failed_sets.is_empty());
}

// TaskSchedulerImplSuite "Scheduler does not always schedule tasks on the same workers":
// `shuffleOffers` puts the offers in a random order (seeded here), so 1000 one-task sets
// offered the same two executors do not all land on the first one.
#[test]
fn scheduler_does_not_always_schedule_tasks_on_the_same_workers() {
    let mut a = Alone::new(1);
    let trials = 1000;
    let mut on_first = 0;
    for stage in 0..trials {
        a.ts.submit_tasks(task_set(stage, 0, 1, None));
        let t = a.offer(&mut [offer(0, "host0", 1), offer(1, "host1", 1)]);
        assert_eq!(t.len(), 1);
        on_first += u32::from(t[0].executor_id == ExecutorId(0));
    }
    assert!(on_first > 0 && on_first < trials, "{on_first} of {trials}");
}

// TaskSchedulerImplSuite "don't schedule more tasks after a taskset is zombie": a zombie set
// launches nothing more; the stage's next attempt does.
#[test]
fn no_more_tasks_after_a_task_set_is_zombie() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 10, None));
    assert_eq!(a.offer(&mut [offer(0, "host0", 1)]).len(), 1);
    a.tsm(0, 0).zombie = true;
    assert!(a.offer(&mut [offer(0, "host0", 1)]).is_empty());
    a.ts.submit_tasks(task_set(0, 1, 10, None));
    let t = a.offer(&mut [offer(0, "host0", 1)]);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].stage_attempt_id, 1);
    let running = a.ts.running.get(t[0].task_id).expect("running");
    assert_eq!(running.key, (0, 0, 1));
}

// TaskSchedulerImplSuite "if a zombie attempt finishes, continue scheduling tasks for non-zombie
// attempts": the zombie first attempt's tasks finishing (its set leaves the pool) does not stop
// the second attempt's ten tasks from all being scheduled.
#[test]
fn a_finished_zombie_attempt_leaves_the_next_attempt_scheduled() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 10, None));
    let first = a.offer(&mut [offer(0, "host0", 10)]);
    assert_eq!(first.len(), 10);
    a.tsm(0, 0).zombie = true;
    assert!(a.offer(&mut [offer(0, "host0", 10)]).is_empty());
    a.ts.submit_tasks(task_set(0, 1, 10, None));
    for t in &first {
        a.update(t.task_id, TaskState::Finished);
    }
    assert!(a.tsm(0, 0).finished);
    let second = a.offer(&mut [offer(0, "host0", 10)]);
    assert_eq!(second.len(), 10);
    assert!(second.iter().all(|t| t.stage_attempt_id == 1));
}

pub(super) fn run(body: impl std::future::Future<Output = ()>) {
    let rt = clock::paused_runtime().expect("runtime");
    rt.block_on(async {
        clock::start(0);
        body.await
    });
}

// TaskSetManagerSuite "[SPARK-13931] taskSetManager should not send Resubmitted tasks after
// being a zombie": a one-task shuffle-map set with its speculative copy running on execB; the
// first copy's success makes the set a zombie (one attempt still running), and losing execB
// resubmits nothing. Beyond Spark's case: losing execA, which holds the map output, resubmits
// nothing either (`executorLost` resubmits only for a set that is not a zombie).
#[test]
fn a_zombie_task_set_sends_no_resubmitted_tasks() {
    run(async {
        let settings = SpeculationSettings {
            task_duration_threshold_ms: Some(1),
            slots_per_executor: 1,
            ..SpeculationSettings::default()
        };
        let mut a = Alone::new(1);
        a.ts = a.ts.with_speculation(Some(settings));
        a.ts.submit_tasks(task_set(0, 0, 1, Some(0)));
        let t1 = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
        clock::advance(clock::ms(2)).await;
        assert!(a.ts.check_speculatable_tasks(&mut a.dag));
        assert_eq!(a.dag.speculative.len(), 1);
        let t2 = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
        assert_eq!((t2.index, t2.attempt_number), (0, 1));
        assert_eq!(a.tsm(0, 0).running, 2);
        assert!(!a.tsm(0, 0).zombie);
        a.update(t1.task_id, TaskState::Finished);
        assert!(a.tsm(0, 0).zombie);
        assert_eq!(a.tsm(0, 0).running, 1);
        assert_eq!(a.dag.resubmitted(), 0);
        a.lose(2);
        assert_eq!(a.tsm(0, 0).running, 0);
        assert_eq!(a.dag.resubmitted(), 0);
        a.lose(1);
        assert_eq!(a.dag.resubmitted(), 0);
        assert_eq!(a.dag.lost, vec![ExecutorId(2), ExecutorId(1)]);
    });
}

// The converse of SPARK-13931, from the same rule in TaskSetManager.executorLost: a set that is
// not a zombie resubmits the finished map task whose output its lost executor held
// (`Resubmitted`), and the task is pending again.
#[test]
fn a_running_map_set_resubmits_the_output_of_a_lost_executor() {
    let mut a = Alone::new(1);
    a.ts.submit_tasks(task_set(0, 0, 2, Some(0)));
    let t0 = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    a.update(t0.task_id, TaskState::Finished);
    assert!(a.tsm(0, 0).successful[0]);
    a.lose(1);
    assert_eq!(a.dag.resubmitted(), 1);
    assert!(!a.tsm(0, 0).successful[0]);
    let again = a.offer(&mut [offer(2, "host2", 2)]);
    let indices: BTreeSet<u32> = again.iter().map(|t| t.index).collect();
    assert_eq!(indices, BTreeSet::from([0, 1]));
}

// Issue 27, from TaskSetManager.executorLost in Spark 4.0.0's jar (`$anonfun$executorLost$3`):
// every finished attempt on the lost executor whose index is successful is resubmitted, without
// asking where the index's output is. Index 0 fails on exec1, then succeeds on exec2; losing
// exec1 re-runs index 0 (`Resubmitted` for the failed attempt, whose TaskInfo is reported as it
// ended: `failed`, its finish time), although its map output is on exec2.
#[test]
fn an_executor_loss_resubmits_an_index_whose_failed_attempt_ran_there() {
    run(async {
        let mut a = Alone::new(1);
        a.ts.submit_tasks(task_set(0, 0, 2, Some(0)));
        let t0 = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
        assert_eq!(t0.index, 0);
        let t1 = a.offer(&mut [offer(3, "host3", 1)]).remove(0);
        assert_eq!(t1.index, 1);
        clock::advance(clock::ms(5)).await;
        a.fail(t0.task_id);
        let failed_at = clock::now_epoch_ms();
        clock::advance(clock::ms(5)).await;
        let retry = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
        assert_eq!((retry.index, retry.attempt_number), (0, 1));
        a.update(retry.task_id, TaskState::Finished);
        assert!(a.tsm(0, 0).successful[0]);
        clock::advance(clock::ms(5)).await;
        a.lose(1);
        assert_eq!(a.dag.resubmitted(), 1);
        let last = a.dag.ended.last().expect("ended");
        assert_eq!(
            (last.0, &last.1),
            (t0.task_id, &TaskEndReason::Resubmitted),
            "the failed attempt's TaskInfo is the one reported"
        );
        let info = a.dag.ended_infos.last().expect("ended");
        let want = AttemptEnd {
            finish_epoch: failed_at,
            failed: true,
            killed: false,
        };
        assert_eq!(*info, (t0.task_id, Ending::Before(want)));
        assert!(!a.tsm(0, 0).successful[0]);
        assert_eq!(a.tsm(0, 0).num_successful, 0);
        // Index 0 is pending again: the next offer runs it.
        let again = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
        assert_eq!((again.index, again.attempt_number), (0, 2));
        // Losing exec2 now resubmits nothing: index 0 is running again there (its finished
        // attempt on exec2 is not successful any more) and index 1 runs on exec3.
        let before = a.dag.resubmitted();
        a.lose(2);
        assert_eq!(a.dag.resubmitted(), before);
        a.update(t1.task_id, TaskState::Finished);
    });
}

// TaskSetManagerSuite "[SPARK-22074] Task killed by other attempt task should not be
// resubmitted": four map tasks (0 and 1 on exec1, 2 on exec3, 3 on exec2); 0 and 1 succeed,
// 2 and 3 are speculatable (multiplier 0, quantile 0.5), the copy of 2 runs on exec2 and
// succeeds, which kills 2.0 on exec3; losing exec3 resubmits nothing. Beyond Spark's case: the
// killed attempt reports back first (so it is a finished attempt on exec3, the one
// `killedByOtherAttempt` keeps out), and losing exec1 then resubmits 0 and 1.
#[test]
fn a_task_killed_by_another_attempt_is_not_resubmitted() {
    for killed_reported in [false, true] {
        run(async {
            let settings = SpeculationSettings {
                multiplier: 0.0,
                quantile: 0.5,
                min_task_runtime_ms: 0,
                slots_per_executor: 1,
                ..SpeculationSettings::default()
            };
            let mut a = Alone::new(1);
            a.ts = a.ts.with_speculation(Some(settings));
            a.ts.submit_tasks(task_set(0, 0, 4, Some(0)));
            let mut tasks = Vec::new();
            for (e, host) in [(1, "host1"), (1, "host1"), (3, "host3"), (2, "host2")] {
                let t = a.offer(&mut [offer(e, host, 1)]).remove(0);
                assert_eq!(t.executor_id, ExecutorId(e));
                tasks.push(t);
            }
            assert_eq!((tasks[2].index, tasks[2].attempt_number), (2, 0));
            clock::advance(clock::ms(1)).await;
            for t in &tasks[..2] {
                a.update(t.task_id, TaskState::Finished);
            }
            clock::advance(clock::ms(1)).await;
            assert!(a.ts.check_speculatable_tasks(&mut a.dag));
            let speculated: BTreeSet<u32> = a.dag.speculative.iter().map(|t| t.index).collect();
            assert_eq!(speculated, BTreeSet::from([2, 3]));
            let t4 = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
            assert_eq!((t4.index, t4.attempt_number, t4.task_id), (2, 1, TaskId(4)));
            let kills = a.update(t4.task_id, TaskState::Finished);
            assert!(
                kills.iter().any(
                    |e| matches!(e, SchedulerEvent::KillTask { task_id, executor_id, .. }
                    if *task_id == tasks[2].task_id && *executor_id == ExecutorId(3))
                ),
                "2.0 on exec3 is killed: {kills:?}"
            );
            if killed_reported {
                a.update(tasks[2].task_id, TaskState::Killed);
            }
            a.lose(3);
            assert_eq!(a.dag.resubmitted(), 0, "killed reported: {killed_reported}");
            a.lose(1);
            assert_eq!(a.dag.resubmitted(), 2, "killed reported: {killed_reported}");
            assert_eq!(a.tsm(0, 0).num_successful, 1);
        });
    }
}

/// A driver scheduler whose listener events are recorded.
fn recorded() -> (DriverScheduler, ListenerBus) {
    let listeners = ListenerBus::new(true);
    let s = DriverScheduler::new(
        ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false)))),
        listeners.context("app".into(), 1),
        4,
        1,
    );
    (s, listeners)
}

/// The stages whose `StageCompleted` carried a failure (`sparkListener.failedStages`).
fn failed_stages(listeners: &ListenerBus) -> Vec<u32> {
    listeners
        .take()
        .remove(0)
        .events
        .iter()
        .filter_map(|e| match e {
            ListenerEvent::StageCompleted { stage } if stage.failure_reason.is_some() => {
                Some(stage.stage_id)
            }
            _ => None,
        })
        .collect()
}

pub(super) fn stage(rdd: &str, partitions: usize, parents: Vec<usize>) -> StageSpec {
    StageSpec {
        rdd_description: rdd.into(),
        num_partitions: partitions as u32,
        parents,
        tasks: vec![
            TaskWork::Sleep {
                duration_ms: 1,
                fail: None,
            };
            partitions
        ]
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

/// `MyRDD(sc, maps)` -> ShuffleDependency -> `MyRDD(sc, reduces)`.
fn shuffle_job(maps: usize, reduces: usize) -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:2".into(),
        stages: vec![
            stage("MapPartitionsRDD[1] at map at X.scala:1", maps, vec![]),
            stage("ShuffledRDD[2] at count at X.scala:2", reduces, vec![0]),
        ],
    }
}

/// `failed(taskSets(i), message)`: TaskSchedulerImpl's `taskSetFailed` for the stage.
fn fail_task_set(s: &mut DriverScheduler, stage: u32, message: &str) -> Vec<SchedulerEvent> {
    let mut out = Vec::new();
    s.dag
        .task_set_failed(stage, message, &mut s.task_scheduler, &mut s.env, &mut out);
    out
}

/// `assertDataStructuresEmpty`: no job, no waiting, running or failed stage.
fn assert_data_structures_empty(s: &DriverScheduler) {
    assert!(s.dag.waiting_stages.is_empty());
    assert!(s.dag.running_stages.is_empty());
    assert!(s.dag.failed_stages.is_empty());
}

fn job_failure(events: &[SchedulerEvent]) -> &str {
    match events.last() {
        Some(SchedulerEvent::JobEnded {
            result: JobResult::Failed(m),
            ..
        }) => m,
        _ => panic!("the job fails: {events:?}"),
    }
}

// DAGSchedulerSuite "trivial job failure": `TaskSetFailed` aborts the job with `Job aborted due
// to stage failure: <reason>`; the listener hears of one failed stage, and nothing is left.
#[test]
fn trivial_job_failure() {
    let (mut s, listeners) = recorded();
    let job = JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![stage("ParallelCollectionRDD[0] at X.scala:1", 1, vec![])],
    };
    s.submit_job(job, waiter());
    let events = fail_task_set(&mut s, 0, "some failure");
    assert_eq!(
        job_failure(&events),
        "Job aborted due to stage failure: some failure"
    );
    assert_eq!(failed_stages(&listeners), vec![0]);
    assert_data_structures_empty(&s);
}

// DAGSchedulerSuite "run shuffle with map stage failure": failing the map stage fails the job;
// the listener hears of the map stage's failure only (the reduce stage never started).
#[test]
fn run_shuffle_with_map_stage_failure() {
    let (mut s, listeners) = recorded();
    s.submit_job(shuffle_job(2, 2), waiter());
    let message = "Exception failure in map stage";
    let events = fail_task_set(&mut s, 0, message);
    assert_eq!(
        job_failure(&events),
        format!("Job aborted due to stage failure: {message}")
    );
    assert_eq!(failed_stages(&listeners), vec![0]);
    assert_data_structures_empty(&s);
}

fn bm(executor: u32, host: &str) -> BlockManagerId {
    BlockManagerId {
        executor_id: ExecutorId(executor),
        host: host.into(),
        port: 38000 + executor as u16,
    }
}

/// A task of stage `stage`'s attempt 0 (job 0) on `executor`/`host`, as a CompletionEvent
/// carries it (`taskSets(stage).tasks(partition)`).
fn task_of(stage: u32, partition: u32, executor: u32, host: &str, epoch: u64) -> RunningTask {
    RunningTask {
        task_id: TaskId(u64::from(stage * 100 + partition)),
        key: (0, stage, 0),
        index: partition,
        partition,
        attempt: 0,
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        launch_ms: 0,
        launch_epoch: 0,
        map_epoch: epoch,
        launching: false,
        speculative: false,
        locality: TaskLocality::ProcessLocal,
    }
}

/// `runEvent(makeCompletionEvent(task, reason, result))`.
fn run_event(s: &mut DriverScheduler, task: RunningTask, reason: TaskEndReason) {
    let result = match &reason {
        TaskEndReason::Success => Some(TaskResultData::MapStatus(Box::new(MapStatusData {
            location: bm(task.executor_id.0, &task.host),
            bytes: 100,
            num_reduces: 2,
        }))),
        _ => None,
    };
    let event = CompletionEvent {
        task: &task,
        ending: Ending::of_suite_event(&task, &reason),
        reason,
        result,
    };
    let mut out = Vec::new();
    s.dag
        .task_ended(event, &mut s.task_scheduler, &mut s.env, &mut out);
}

fn lost_killed(s: &mut DriverScheduler, executor: u32) {
    s.executor_lost(ExecutorId(executor), &ExecutorLossReason::Killed);
}

fn missing_maps(s: &DriverScheduler) -> Vec<u32> {
    s.env.map_output_tracker.missing_partitions(0)
}

// DAGSchedulerSuite "ignore late map task completions": after `ExecutorLost(hostA-exec,
// ExecutorKilled)` bumps the epoch, a map completion from that executor with the old epoch is
// ignored (twice), one from another host counts, and one from hostA with the new epoch counts
// and finishes the stage (its reduce stage is submitted).
#[test]
fn ignore_late_map_task_completions() {
    let (mut s, _) = recorded();
    s.submit_job(shuffle_job(2, 2), waiter());
    let old_epoch = s.env.map_output_tracker.epoch();
    lost_killed(&mut s, 1);
    let new_epoch = s.env.map_output_tracker.epoch();
    assert!(new_epoch > old_epoch);
    assert_eq!(missing_maps(&s), vec![0, 1]);
    run_event(
        &mut s,
        task_of(0, 0, 1, "hostA", old_epoch),
        TaskEndReason::Success,
    );
    assert_eq!(missing_maps(&s), vec![0, 1], "too old");
    run_event(
        &mut s,
        task_of(0, 0, 2, "hostB", old_epoch),
        TaskEndReason::Success,
    );
    assert_eq!(missing_maps(&s), vec![1]);
    run_event(
        &mut s,
        task_of(0, 0, 1, "hostA", old_epoch),
        TaskEndReason::Success,
    );
    assert_eq!(missing_maps(&s), vec![1], "too old");
    run_event(
        &mut s,
        task_of(0, 1, 1, "hostA", new_epoch),
        TaskEndReason::Success,
    );
    assert!(missing_maps(&s).is_empty());
    let plan = s.env.map_output_tracker.read_plan(0).expect("registered");
    let hosts: BTreeSet<&str> = plan
        .sources
        .iter()
        .map(|f| f.location.host.as_str())
        .collect();
    assert_eq!(hosts, BTreeSet::from(["hostA", "hostB"]));
    assert!(
        s.task_scheduler.task_sets.contains_key(&(0, 1, 0)),
        "the reduce stage runs"
    );
}

// DAGSchedulerSuite "register map outputs correctly after ExecutorLost and task Resubmitted":
// two map outputs on hostA, hostA lost (its outputs unregistered), both `Resubmitted`, then all
// three maps complete on hostB: every output is registered and the reduce stage (attempt 0) is
// submitted once the last one is.
#[test]
fn map_outputs_register_after_executor_lost_and_resubmitted() {
    let (mut s, _) = recorded();
    s.submit_job(shuffle_job(3, 5), waiter());
    run_event(&mut s, task_of(0, 0, 1, "hostA", 0), TaskEndReason::Success);
    run_event(&mut s, task_of(0, 1, 1, "hostA", 0), TaskEndReason::Success);
    lost_killed(&mut s, 1);
    run_event(
        &mut s,
        task_of(0, 0, 1, "hostA", 0),
        TaskEndReason::Resubmitted,
    );
    run_event(
        &mut s,
        task_of(0, 1, 1, "hostA", 0),
        TaskEndReason::Resubmitted,
    );
    assert_eq!(missing_maps(&s), vec![0, 1, 2]);
    // Beyond Spark's case (which completes them in order): the map not resubmitted first;
    // the two resubmitted partitions are pending again, so the stage neither finishes nor
    // runs a new attempt.
    run_event(&mut s, task_of(0, 2, 2, "hostB", 1), TaskEndReason::Success);
    assert!(!s.task_scheduler.task_sets.contains_key(&(0, 1, 0)));
    assert!(!s.task_scheduler.task_sets.contains_key(&(0, 0, 1)));
    for p in 0..2 {
        run_event(&mut s, task_of(0, p, 2, "hostB", 1), TaskEndReason::Success);
    }
    assert!(missing_maps(&s).is_empty());
    assert!(s.task_scheduler.task_sets.contains_key(&(0, 1, 0)));
    assert!(!s.task_scheduler.task_sets.contains_key(&(0, 1, 1)));
}

// The `Resubmitted` TaskEnd the DAGScheduler posts (DAGScheduler.postTaskEnd) carries the
// TaskInfo TaskSetManager.executorLost handed it: `taskInfos(tid)` as the attempt ended (its
// finish time, `failed`, `killed`; TaskInfo.cloneWithEmptyAccumulables keeps them), not the
// time of the loss. Here the attempt had failed at epoch ms 1234.
#[test]
fn a_resubmitted_task_end_carries_the_task_info_the_attempt_ended_with() {
    let (mut s, listeners) = recorded();
    s.submit_job(shuffle_job(2, 1), waiter());
    let task = task_of(0, 0, 1, "hostA", 0);
    let event = CompletionEvent {
        task: &task,
        reason: TaskEndReason::Resubmitted,
        result: None,
        ending: Ending::Before(AttemptEnd {
            finish_epoch: 1234,
            failed: true,
            killed: false,
        }),
    };
    let mut out = Vec::new();
    s.dag
        .task_ended(event, &mut s.task_scheduler, &mut s.env, &mut out);
    let events = listeners.take().remove(0).events;
    let (reason, info) = events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::TaskEnd { reason, info, .. } => Some((reason, info)),
            _ => None,
        })
        .expect("a TaskEnd");
    assert_eq!(*reason, TaskEndReason::Resubmitted);
    assert_eq!(
        (info.finish_time, info.failed, info.killed),
        (1234, true, false)
    );
    assert_eq!((info.task_id, info.executor_id.as_str()), (0, "1"));
}

/// The FetchFailed of a reduce task reading map `map` from hostA's executor 1.
fn fetch_failed(map: u32, reduce: u32) -> TaskResultData {
    TaskResultData::FetchFailed(Box::new(FetchFailure {
        bm_address: Some(bm(1, "hostA")),
        shuffle_id: 0,
        map_id: i64::from(map),
        map_index: map as i32,
        reduce_id: reduce,
        message: "ignored".into(),
    }))
}

// DAGSchedulerSuite "trivial shuffle with multiple fetch failures": after the map stage, both
// reduce tasks fail fetching; the listener hears of the reduce stage's failure once, and one
// `ResubmitFailedStages` is scheduled, not two.
#[test]
fn trivial_shuffle_with_multiple_fetch_failures() {
    let (mut s, listeners) = recorded();
    s.submit_job(shuffle_job(2, 2), waiter());
    for (e, h) in [(1, "hostA"), (2, "hostB")] {
        s.block_manager_added(ExecutorId(e), Rc::from(h));
        let m = s.resource_offer(&mut offer(e, h, 1)).remove(0);
        s.status_update(m.task_id, TaskState::Finished, TaskResultData::None);
    }
    let reduces = s.resource_offer(&mut offer(3, "hostC", 2));
    assert_eq!(reduces.len(), 2);
    let mut resubmits = 0;
    for (map, t) in reduces.iter().enumerate() {
        let data = fetch_failed(map as u32, t.partition_id);
        let (_, events) = s.status_update(t.task_id, TaskState::Failed, data);
        resubmits += events
            .iter()
            .filter(|e| {
                matches!(e, SchedulerEvent::ResubmitFailedStagesAfter { ms } if *ms == RESUBMIT_TIMEOUT_MS)
            })
            .count();
    }
    assert_eq!(failed_stages(&listeners), vec![1]);
    assert_eq!(resubmits, 1);
}

// ---- Exclusion on failure (issue 27): TaskSetExcludelist and HealthTracker wired into the
// scheduler, cases of TaskSchedulerImplSuite and TaskSetManagerSuite. ----

/// `spark.excludeOnFailure.enabled=true` (both levels), with `killExcludedExecutors` as given,
/// an unschedulable timeout of `timeout_ms`.
pub(super) fn with_exclusion(kill: bool, timeout_ms: u64) -> Alone {
    with_exclusion_and(kill, timeout_ms, false)
}

/// `with_exclusion`, with or without dynamic allocation.
fn with_exclusion_and(kill: bool, timeout_ms: u64, dynamic_allocation: bool) -> Alone {
    let conf = super::health_tracker::ExcludeOnFailureConf {
        enabled: Some(true),
        kill_excluded_executors: kill,
        ..Default::default()
    };
    with_exclusion_conf(&conf, timeout_ms, dynamic_allocation)
}

/// A TaskSchedulerImpl alone with these exclusion keys.
fn with_exclusion_conf(
    conf: &super::health_tracker::ExcludeOnFailureConf,
    timeout_ms: u64,
    dynamic_allocation: bool,
) -> Alone {
    let mut a = Alone::new(1);
    let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
    a.ts = TaskSchedulerImpl::new(log, 4, 1).with_exclusion(
        conf,
        timeout_ms,
        dynamic_allocation,
        ContextBus::disabled(),
    );
    a
}

/// `with_exclusion_conf` (no timeout, no dynamic allocation) whose allocation calls and the
/// DAGScheduler's task ends go into one journal, in the order they happen.
fn journaled(conf: &super::health_tracker::ExcludeOnFailureConf) -> (Alone, JournalAllocations) {
    let a = with_exclusion_conf(conf, 120_000, false);
    let alloc = JournalAllocations {
        journal: a.dag.journal.clone(),
        inner: RecordedAllocations::default(),
    };
    (a, alloc)
}

impl Alone {
    /// A status update whose allocation calls go to `alloc` (not the harness's own client).
    fn update_via(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
        alloc: &mut impl AllocationClient,
    ) {
        let mut out = Vec::new();
        let (env, dag) = (&mut self.env, &mut self.dag);
        self.ts
            .status_update_handled(tid, state, data, env, dag, alloc, &mut out);
    }

    /// The task throws (an `ExceptionFailure`, which counts toward the task's failures).
    pub(super) fn throw(&mut self, tid: TaskId) -> Vec<SchedulerEvent> {
        let mut out = Vec::new();
        let data = boom();
        self.ts.status_update_handled(
            tid,
            TaskState::Failed,
            data,
            &mut self.env,
            &mut self.dag,
            &mut self.alloc,
            &mut out,
        );
        out
    }

    /// Executor 1 excluded for the application: stage 0's set of three tasks, two of which
    /// throw on it (`application.maxFailedTasksPerExecutor` 2), succeeds on executor 2.
    pub(super) fn exclude_executor_1_for_the_application(&mut self) {
        self.ts.submit_tasks(task_set(0, 0, 3, None));
        for _ in 0..2 {
            let t = self.offer(&mut [offer(1, "host1", 1)]).remove(0);
            self.throw(t.task_id);
        }
        for _ in 0..3 {
            let t = self.offer(&mut [offer(2, "host2", 1)]).remove(0);
            self.update(t.task_id, TaskState::Finished);
        }
    }

    /// The set's exclude list's failures on `executor` (unique task indices).
    fn failures_on(&mut self, stage: u32, executor: u32) -> u32 {
        let list = self.tsm(stage, 0).exclude_list.as_deref().expect("a list");
        list.exec_to_failures()
            .get(&ExecutorId(executor))
            .map_or(0, |f| f.num_unique_tasks_with_failures())
    }
}

// TaskSchedulerImplSuite "scheduled tasks obey task and stage excludelist": a task that failed
// on an executor is not offered there again (maxTaskAttemptsPerExecutor 1), but other tasks
// are; after two failed tasks the executor is excluded for the stage and takes nothing, while
// another executor gets the failed task.
#[test]
fn scheduled_tasks_obey_task_and_stage_excludelist() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 4, None));
    let first = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    a.throw(first.task_id);
    let second = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    assert_ne!(
        second.index, first.index,
        "excluded on executor 1 for the task"
    );
    a.throw(second.task_id);
    assert_eq!(a.failures_on(0, 1), 2);
    assert!(
        a.offer(&mut [offer(1, "host1", 1)]).is_empty(),
        "excluded for the stage"
    );
    let elsewhere = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
    assert_eq!(elsewhere.executor_id, ExecutorId(2));
    assert!(
        [first.index, second.index].contains(&elsewhere.index),
        "a failed task runs again elsewhere"
    );
    // The no-task-launched-where-excluded invariant's input: the launch on executor 2 is
    // allowed; the same task placed on executor 1 now would not be.
    assert_eq!(a.ts.launch_exclusion(&elsewhere, "host2"), None);
    let mut there = elsewhere.clone();
    there.executor_id = ExecutorId(1);
    assert_eq!(
        a.ts.launch_exclusion(&there, "host1"),
        Some("executor excluded for the stage attempt")
    );
}

// The backend's free cores after a round are each offer's cores left (`launchTasks`'
// `executorData.freeCores -= task.cpus`), so an excluded executor's offer, taken out of the
// round, must come back to that executor's offer whatever order `shuffleOffers` put the offers
// in. (It came back by its place before the shuffle: an executor that had just taken a task got
// the excluded one's free core, and ran two tasks on one core; found replaying a real Spark 4.0
// run with spark.excludeOnFailure.enabled.)
#[test]
fn an_excluded_executors_offer_comes_back_to_it_after_the_shuffle() {
    for round in 0..16 {
        let mut a = with_exclusion(false, 120_000);
        a.exclude_executor_1_for_the_application();
        a.ts.submit_tasks(task_set(1, 0, 16, None));
        let mut offers = [
            offer(1, "host1", 1),
            offer(2, "host2", 1),
            offer(3, "host3", 1),
            offer(4, "host4", 1),
        ];
        let launched = a.offer(&mut offers);
        assert_eq!(launched.len(), 3, "round {round}");
        for o in &offers {
            let ran = launched
                .iter()
                .filter(|t| t.executor_id == o.executor_id)
                .count();
            let left = if o.executor_id == ExecutorId(1) { 1 } else { 0 };
            assert_eq!(
                (o.cores, ran),
                (left, 1 - left as usize),
                "round {round}: {}",
                o.executor_id.0
            );
        }
    }
}

// TaskSetManagerSuite "don't update excludelist for shuffle-fetch failures, preemption, denied
// commits, or killed tasks": failures that do not count toward the task's failures
// (`countTowardsTaskFailures` false: a kill, an executor lost for a reason unrelated to the
// task, a fetch failure) add nothing to the set's exclude list; an exception does.
#[test]
fn dont_update_excludelist_for_failures_that_do_not_count() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 4, Some(0)));
    let killed = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    a.update(killed.task_id, TaskState::Killed);
    let lost = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
    a.lose(2);
    assert!(a.dag.ended_with(lost.task_id).is_some());
    assert_eq!((a.failures_on(0, 1), a.failures_on(0, 2)), (0, 0));
    let thrown = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    a.throw(thrown.task_id);
    assert_eq!(a.failures_on(0, 1), 1, "an exception counts");
    let fetch = a.offer(&mut [offer(3, "host3", 1)]).remove(0);
    let mut out = Vec::new();
    a.ts.status_update_handled(
        fetch.task_id,
        TaskState::Failed,
        fetch_failed(0, 0),
        &mut a.env,
        &mut a.dag,
        &mut a.alloc,
        &mut out,
    );
    assert_eq!(a.failures_on(0, 3), 0, "a fetch failure does not count");
}

// TaskSchedulerImplSuite "Excluded node for entire task set prevents per-task exclusion
// checks": once two executors of a node are excluded for the stage
// (stage.maxFailedExecutorsPerNode 2), the node is excluded for the task set and a third
// executor there is offered nothing, whatever the task.
#[test]
fn excluded_node_for_entire_task_set_prevents_per_task_exclusion_checks() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 8, None));
    for executor in [1, 2] {
        for _ in 0..2 {
            let t = a.offer(&mut [offer(executor, "host1", 1)]).remove(0);
            a.throw(t.task_id);
        }
    }
    let list = a.tsm(0, 0).exclude_list.as_deref().expect("a list");
    assert!(list.is_node_excluded_for_task_set("host1"));
    assert!(a.offer(&mut [offer(3, "host1", 4)]).is_empty());
    assert_eq!(a.offer(&mut [offer(4, "host2", 1)]).len(), 1);
}

// TaskSchedulerImplSuite "abort stage if executor loss results in unschedulability from
// previously failed tasks": a task failed on executor 0 could still run on executor 1; once
// executor 1 is lost and executor 0 is busy with the other task, the failed task can run
// nowhere and, without an idle executor or dynamic allocation, the set is aborted at once with
// `abortSinceCompletelyExcludedOnFailure`'s message.
#[test]
fn abort_stage_if_executor_loss_results_in_unschedulability() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 2, None));
    let first = a.offer(&mut [offer(0, "host0", 1), offer(1, "host1", 1)]);
    assert_eq!(first.len(), 2);
    let on0 = first
        .iter()
        .find(|t| t.executor_id == ExecutorId(0))
        .unwrap();
    let failed_index = on0.index;
    a.throw(on0.task_id);
    assert!(a.dag.failed_sets.is_empty(), "executor 1 could run it");
    a.lose(1);
    assert!(a.dag.failed_sets.is_empty());
    let second = a.offer(&mut [offer(0, "host0", 1)]);
    assert_eq!(second.len(), 1, "executor 0 takes the lost executor's task");
    assert_ne!(second[0].index, failed_index);
    assert!(a.dag.failed_sets.is_empty());
    a.offer(&mut [offer(0, "host0", 0)]);
    assert_eq!(a.dag.failed_sets.len(), 1);
    let (stage, reason) = &a.dag.failed_sets[0];
    assert_eq!(*stage, 0);
    assert!(
        reason.starts_with(&format!(
            "\nAborting TaskSet 0.0 because task {failed_index} (partition {failed_index})\ncannot run anywhere due to node and executor excludeOnFailure.\nMost recent failure:\nLost task {failed_index}.0 in stage 0.0 (TID"
        )),
        "{reason}"
    );
    assert!(a.tsm(0, 0).zombie);
}

// TaskSchedulerImplSuite "SPARK-22148 try to acquire a new executor when task is unschedulable
// with 1 executor" and "... abort timer should kick in when task is completely excluded & no
// new executor can be acquired": with an idle executor the HealthTracker kills it
// (killExcludedIdleExecutor, whatever killExcludedExecutors says) and an abort timer starts; a
// task launched meanwhile clears it; once it expires the set is aborted.
#[test]
fn an_unschedulable_task_set_kills_an_idle_executor_then_aborts_when_its_timer_expires() {
    let mut a = with_exclusion(false, 0);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    let t = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    a.throw(t.task_id);
    assert!(a.offer(&mut [offer(0, "host0", 1)]).is_empty());
    assert_eq!(a.alloc.calls, vec![AllocationCall::Kill(ExecutorId(0))]);
    let deferred = a.ts.take_deferred();
    let timer = deferred.iter().find_map(|e| match e {
        SchedulerEvent::UnschedulableAbortAfter { ms, key, index } => Some((*ms, *key, *index)),
        _ => None,
    });
    assert_eq!(timer, Some((0, (0, 0, 0), 0)));
    assert!(a.dag.failed_sets.is_empty(), "it waits for a new executor");
    // Offered again while waiting: no second kill, no second timer.
    a.offer(&mut [offer(0, "host0", 1)]);
    assert!(a.ts.take_deferred().is_empty());
    assert_eq!(a.alloc.calls.len(), 1);
    let mut out = Vec::new();
    a.ts.unschedulable_task_set_timer((0, 0, 0), 0, &mut a.env, &mut a.dag, &mut a.alloc, &mut out);
    assert_eq!(a.dag.failed_sets.len(), 1, "the timer expired");
}

// TaskSchedulerImplSuite "scheduled tasks obey node and executor excludelists" (the
// application level): a successful task set hands its failures to the HealthTracker, which
// excludes executor 1 (2 failed tasks, application.maxFailedTasksPerExecutor 2) and asks for
// its kill; its offers are dropped from then on, and a removed executor's counted failures
// are forgotten (handleRemovedExecutor) while its exclusion stays.
#[test]
fn a_successful_task_set_excludes_its_bad_executor_for_the_application() {
    let mut a = with_exclusion(true, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 3, None));
    for _ in 0..2 {
        let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
        a.throw(t.task_id);
    }
    assert!(a.alloc.calls.is_empty(), "not before the set succeeds");
    for _ in 0..3 {
        let t = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
        a.update(t.task_id, TaskState::Finished);
    }
    assert!(a.tsm(0, 0).finished);
    assert_eq!(a.alloc.calls, vec![AllocationCall::Kill(ExecutorId(1))]);
    a.ts.submit_tasks(task_set(1, 0, 1, None));
    assert!(a.offer(&mut [offer(1, "host1", 1)]).is_empty(), "dropped");
    assert_eq!(a.offer(&mut [offer(2, "host2", 1)]).len(), 1);
    assert!(
        a.ts.excluded_nodes().is_empty(),
        "one executor does not exclude its node"
    );
}

// TaskSchedulerImplSuite "SPARK-22148 Ensure we don't abort the taskSet if we haven't been
// completely excluded": the task prefers executor 0 (an ExecutorCacheTaskLocation) and fails
// there; executor 1 on the same host is offered nothing while the set waits at PROCESS_LOCAL
// (the locality wait has not passed), but the task could run on executor 1, so the set is not
// unschedulable: no abort timer, no abort.
#[test]
fn a_set_waiting_for_locality_is_not_completely_excluded() {
    let mut a = with_exclusion(false, 0);
    let mut set = task_set(0, 0, 1, None);
    set.prefs = PreferredLocations {
        hosts: vec![vec![Rc::from("host0")]],
        executors: vec![Some(ExecutorId(0))],
    };
    a.ts.submit_tasks(set);
    let first = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    a.throw(first.task_id);
    assert!(
        a.offer(&mut [offer(1, "host0", 1)]).is_empty(),
        "PROCESS_LOCAL still"
    );
    assert!(a.ts.unschedulable_task_sets().is_empty());
    assert!(a.dag.failed_sets.is_empty());
    assert!(!a.tsm(0, 0).zombie);
}

// TaskSchedulerImplSuite "SPARK-31418 abort timer should kick in when task is completely
// excluded & allocation manager could not acquire a new executor before the timeout": with
// dynamic allocation and no idle executor (the only one runs the other task), the
// DAGScheduler hears `unschedulableTaskSetAdded` once and the abort timer starts; a task
// launched later clears it (`unschedulableTaskSetRemoved` for the set that launched).
#[test]
fn with_dynamic_allocation_an_unschedulable_task_set_asks_for_an_executor() {
    let mut a = with_exclusion_and(false, 120_000, true);
    a.ts.submit_tasks(task_set(0, 0, 2, None));
    let t = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    a.throw(t.task_id);
    let busy = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    assert_ne!(busy.index, t.index);
    a.offer(&mut [offer(0, "host0", 0)]);
    a.offer(&mut [offer(0, "host0", 0)]);
    assert_eq!(a.dag.unschedulable, vec![(0, 0, true)], "once");
    assert!(a.dag.failed_sets.is_empty(), "it waits for a new executor");
    let timers = a.ts.take_deferred();
    assert!(
        matches!(
            timers.as_slice(),
            [SchedulerEvent::UnschedulableAbortAfter { ms: 120_000, .. }]
        ),
        "{timers:?}"
    );
    let new = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
    assert_eq!(new.index, t.index);
    assert_eq!(a.dag.unschedulable, vec![(0, 0, true), (0, 0, false)]);
}

// TaskSchedulerImplSuite "SPARK-22148 abort timer should clear unschedulableTaskSetToExpiryTime
// for all TaskSets": two sets of one task on one executor. Set 0's task fails there; at the
// next offer set 0 waits (an idle executor: its timer starts) but set 1 launches, which clears
// every waiting set. Once set 1's task fails too, both wait on the idle executor 0; a task of
// set 0 launched on a new executor clears both, so set 1's timer does nothing when it fires.
#[test]
fn abort_timer_should_clear_unschedulable_task_sets_for_all_task_sets() {
    let mut a = with_exclusion(false, 120_000);
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    a.ts.submit_tasks(task_set(1, 0, 1, None));
    let first = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    assert_eq!(first.stage_id, 0);
    assert!(a.ts.unschedulable_task_sets().is_empty());
    a.throw(first.task_id);
    let second = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    assert_eq!(second.stage_id, 1, "set 1 launches");
    assert!(
        a.ts.unschedulable_task_sets().is_empty(),
        "a launch cleared set 0"
    );
    a.throw(second.task_id);
    assert!(a.offer(&mut [offer(0, "host0", 1)]).is_empty());
    assert_eq!(
        a.ts.unschedulable_task_sets(),
        vec![(0, 0, 0), (1, 1, 0)],
        "both wait"
    );
    assert_eq!(a.offer(&mut [offer(1, "host1", 1)]).len(), 1);
    assert!(a.ts.unschedulable_task_sets().is_empty(), "all cleared");
    let mut out = Vec::new();
    a.ts.unschedulable_task_set_timer((1, 1, 0), 0, &mut a.env, &mut a.dag, &mut a.alloc, &mut out);
    assert!(
        a.dag.failed_sets.is_empty(),
        "a cleared set's timer is cancelled"
    );
    assert!(!a.tsm(0, 0).zombie && !a.tsm(1, 0).zombie);
}

// TaskSchedulerImplSuite "SPARK-31418 abort timer should kick in when task is completely
// excluded & allocation manager could not acquire a new executor before the timeout": with
// dynamic allocation, a timeout of 0 and executor 0 busy with the set's other task, the set
// waits for the ExecutorAllocationManager (`unschedulableTaskSetAdded`, no idle executor to
// kill); no executor comes, the timer fires and the set is aborted with
// abortSinceCompletelyExcludedOnFailure's text.
#[test]
fn abort_timer_kicks_in_when_dynamic_allocation_brings_no_executor() {
    let mut a = with_exclusion_and(false, 0, true);
    a.ts.submit_tasks(task_set(0, 0, 2, None));
    let both = a.offer(&mut [offer(0, "host0", 2)]);
    assert_eq!(both.len(), 2);
    a.throw(both[0].task_id);
    assert!(a.offer(&mut [offer(0, "host0", 1)]).is_empty());
    assert_eq!(a.dag.unschedulable, vec![(0, 0, true)]);
    assert!(a.alloc.calls.is_empty(), "executor 0 is busy");
    assert_eq!(a.ts.unschedulable_task_sets(), vec![(0, 0, 0)]);
    let mut out = Vec::new();
    a.ts.unschedulable_task_set_timer(
        (0, 0, 0),
        both[0].index,
        &mut a.env,
        &mut a.dag,
        &mut a.alloc,
        &mut out,
    );
    assert_eq!(a.dag.failed_sets.len(), 1);
    assert!(
        a.dag.failed_sets[0]
            .1
            .contains("cannot run anywhere due to node and executor excludeOnFailure."),
        "{:?}",
        a.dag.failed_sets
    );
    assert!(a.tsm(0, 0).zombie);
}

// The timer of a set that turned zombie while it waited (TaskSchedulerImpl.scala,
// `createUnschedulableTaskSetAbortTimer`; `TaskSchedulerImpl$$anon$2.run` in the 4.0.0 jar tests
// only `unschedulableTaskSetToExpiryTime` and the expiry, then calls
// `TaskSetManager.abortSinceCompletelyExcludedOnFailure`, whose `abort` has no `isZombie`
// test): the set waits on the idle executor it had killed, its stage is cancelled (the set is
// a zombie and leaves its pool), no task launches anywhere, and when the timer fires the set
// is aborted all the same: the DAGScheduler hears `taskSetFailed` with the abort's text, and
// `Removed TaskSet` is logged a second time (`abort`'s `maybeFinishTaskSet`).
#[test]
fn a_zombie_task_sets_abort_timer_still_aborts_it() {
    let store = Rc::new(RefCell::new(LogStore::new(true)));
    let log = ProcessLog::new("driver", store.clone());
    let conf = super::health_tracker::ExcludeOnFailureConf {
        enabled: Some(true),
        ..Default::default()
    };
    let mut a = Alone::new(1);
    a.ts =
        TaskSchedulerImpl::new(log, 4, 1).with_exclusion(&conf, 0, false, ContextBus::disabled());
    a.ts.submit_tasks(task_set(0, 0, 1, None));
    let t = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
    a.throw(t.task_id);
    assert!(a.offer(&mut [offer(0, "host0", 1)]).is_empty());
    assert_eq!(a.ts.unschedulable_task_sets(), vec![(0, 0, 0)], "it waits");
    let mut out = Vec::new();
    a.ts.kill_all_task_attempts(0, "Stage cancelled", &mut out);
    assert!(a.tsm(0, 0).zombie && a.tsm(0, 0).finished);
    assert!(a.dag.failed_sets.is_empty());
    let removed =
        "INFO YarnClusterScheduler: Removed TaskSet 0.0 whose tasks have all completed, from pool ";
    let count = |store: &Rc<RefCell<LogStore>>, line: &str| {
        super::tests::lines(store)
            .iter()
            .filter(|l| *l == line)
            .count()
    };
    assert_eq!(count(&store, removed), 1);
    a.ts.unschedulable_task_set_timer((0, 0, 0), 0, &mut a.env, &mut a.dag, &mut a.alloc, &mut out);
    assert_eq!(a.dag.failed_sets.len(), 1, "the zombie is aborted");
    let (stage, reason) = &a.dag.failed_sets[0];
    assert_eq!(*stage, 0);
    assert!(
        reason.starts_with("\nAborting TaskSet 0.0 because task 0 (partition 0)\ncannot run anywhere due to node and executor excludeOnFailure."),
        "{reason}"
    );
    let expired = "INFO YarnClusterScheduler: Cannot schedule any task because all executors excluded due to failures. Wait time for scheduling expired. Aborting stage 0.";
    assert_eq!(count(&store, expired), 1);
    assert_eq!(count(&store, removed), 2, "taskSetFinished runs again");
}

// TaskSetManagerSuite "update application healthTracker for shuffle-fetch": with
// `spark.excludeOnFailure.application.fetchFailure.enabled`, a FetchFailed excludes the
// executor whose block manager failed to serve (the failure's `bmAddress`, not the task's
// executor) for the application at once; its offers are dropped and, with
// killExcludedExecutors, the driver is asked to kill it. Without the key nothing is excluded.
#[test]
fn update_application_health_tracker_for_shuffle_fetch() {
    for enabled in [true, false] {
        let conf = super::health_tracker::ExcludeOnFailureConf {
            enabled: Some(true),
            kill_excluded_executors: true,
            fetch_failure_enabled: enabled,
            ..Default::default()
        };
        let mut a = with_exclusion_conf(&conf, 120_000, false);
        a.ts.submit_tasks(task_set(0, 0, 2, None));
        let t = a.offer(&mut [offer(2, "hostB", 1)]).remove(0);
        let mut out = Vec::new();
        a.ts.status_update_handled(
            t.task_id,
            TaskState::Failed,
            fetch_failed(0, 0),
            &mut a.env,
            &mut a.dag,
            &mut a.alloc,
            &mut out,
        );
        let killed: Vec<ExecutorId> = a
            .alloc
            .calls
            .iter()
            .filter_map(|c| match c {
                AllocationCall::Kill(id) => Some(*id),
                _ => None,
            })
            .collect();
        a.ts.submit_tasks(task_set(1, 0, 1, None));
        let from_1 = a.offer(&mut [offer(1, "hostA", 1)]);
        if enabled {
            assert_eq!(
                killed,
                vec![ExecutorId(1)],
                "the server, not the task's executor"
            );
            assert!(from_1.is_empty(), "excluded for the application");
        } else {
            assert!(killed.is_empty());
            assert_eq!(from_1.len(), 1);
        }
    }
}

// HealthTracker.scala: `updateExcludedForSuccessfulTaskSet` excludes the executor and, with
// spark.excludeOnFailure.killExcludedExecutors, `killExcludedExecutor` -> `killExecutor` calls
// `allocationClient.killExecutors(Seq(exec), false, false, force = true)` (or, with
// `...killExcludedExecutors.decommission`, `decommissionExecutor`) synchronously, inside
// TaskSetManager.maybeFinishTaskSet, before handleSuccessfulTask returns. So the backend hears
// of the kill before the DAGScheduler handles the last task's end (TaskEnded after the
// allocation call in one journal, typed); the decommission calls the scheduler back at once
// (TaskSchedulerImpl.executorDecommission, re-entered), which the scheduler survives: executor
// 1 is decommissioning when the call returns and the next set runs on executor 2.
#[test]
fn a_kill_of_an_excluded_executor_comes_before_the_dag_scheduler_hears_the_end() {
    for decommission in [false, true] {
        let conf = super::health_tracker::ExcludeOnFailureConf {
            enabled: Some(true),
            kill_excluded_executors: true,
            kill_decommission: decommission,
            ..Default::default()
        };
        let (mut a, mut alloc) = journaled(&conf);
        let journal = alloc.journal.clone();
        a.ts.submit_tasks(task_set(0, 0, 3, None));
        for _ in 0..2 {
            let t = a.offer(&mut [offer(1, "host1", 1)]).remove(0);
            a.throw(t.task_id);
        }
        let mut last = None;
        for _ in 0..3 {
            let t = a.offer(&mut [offer(2, "host2", 1)]).remove(0);
            a.update_via(
                t.task_id,
                TaskState::Finished,
                TaskResultData::None,
                &mut alloc,
            );
            last = Some(t.task_id);
        }
        let call = if decommission {
            AllocationCall::Decommission {
                id: ExecutorId(1),
                message: "Killing excluded executor id 1 since spark.excludeOnFailure.killExcludedExecutors is set. (actually decommissioning)".into(),
            }
        } else {
            AllocationCall::Kill(ExecutorId(1))
        };
        let seen = journal.borrow().clone();
        let tail = &seen[seen.len() - 2..];
        assert_eq!(
            tail,
            [Seen::Allocation(call), Seen::TaskEnded(last.expect("ran"))],
            "{seen:?}"
        );
        assert!(a.ts.take_deferred().is_empty(), "nothing left for later");
        assert_eq!(
            a.ts.is_executor_decommissioning(ExecutorId(1)),
            decommission
        );
        a.ts.submit_tasks(task_set(1, 0, 1, None));
        assert!(a.offer(&mut [offer(1, "host1", 1)]).is_empty(), "excluded");
        assert_eq!(a.offer(&mut [offer(2, "host2", 1)]).len(), 1);
    }
}

// HealthTracker.scala `updateExcludedForFetchFailure` (TaskSetManager.handleFailedTask's
// FetchFailed, with spark.excludeOnFailure.application.fetchFailure.enabled): the server's
// executor is excluded and, with killExcludedExecutors, killed through `allocationClient`
// inside handleFailedTask, so the backend hears of it before the DAGScheduler handles the
// fetch failure (`taskEnded`).
#[test]
fn a_fetch_failure_kill_comes_before_the_dag_scheduler_hears_the_failure() {
    let conf = super::health_tracker::ExcludeOnFailureConf {
        enabled: Some(true),
        kill_excluded_executors: true,
        fetch_failure_enabled: true,
        ..Default::default()
    };
    let (mut a, mut alloc) = journaled(&conf);
    let journal = alloc.journal.clone();
    a.ts.submit_tasks(task_set(0, 0, 2, None));
    let t = a.offer(&mut [offer(2, "hostB", 1)]).remove(0);
    a.update_via(t.task_id, TaskState::Failed, fetch_failed(0, 0), &mut alloc);
    assert_eq!(
        *journal.borrow(),
        [
            Seen::Allocation(AllocationCall::Kill(ExecutorId(1))),
            Seen::TaskEnded(t.task_id)
        ]
    );
}

// HealthTracker.scala `killExecutorsOnExcludedNode`: an excluded node's executors go through
// `allocationClient.killExecutorsOnHost(node)` (with `...killExcludedExecutors.decommission`,
// `decommissionExecutorsOnHost`), called at once; what YARN is sent (the excluded nodes)
// changes after the call.
#[test]
fn an_excluded_node_asks_the_allocation_client_to_kill_its_executors() {
    for decommission in [false, true] {
        let conf = super::health_tracker::ExcludeOnFailureConf {
            enabled: Some(true),
            kill_excluded_executors: true,
            kill_decommission: decommission,
            ..Default::default()
        };
        let mut a = with_exclusion_conf(&conf, 120_000, false);
        a.ts.exclude_node_by_fault("host1", &mut a.alloc);
        let host = "host1".to_string();
        assert_eq!(
            a.alloc.calls,
            vec![AllocationCall::KillOnHost { host, decommission }]
        );
        assert!(matches!(
            a.ts.take_deferred().as_slice(),
            [SchedulerEvent::ExcludedNodesChanged]
        ));
    }
}

/// `spark.scheduler.mode=FAIR` as a real Spark 4.0.0 run schedules two concurrent jobs on one
/// 2-core executor, the second in pool `p1` (pyspark, `local-cluster[1,2,1024]`, jobs of six
/// 0.3-s tasks submitted from two threads): the first job's set takes both cores, then each freed
/// core goes to the pool with fewer running tasks (`FairSchedulingAlgorithm` over `default`,
/// FAIR, and `p1`, created FIFO), so the two jobs' tasks alternate; in FIFO mode the first job's
/// tasks all go first (TaskSchedulerImpl's FIFO root pool).
#[test]
fn fair_pools_share_an_executor_between_concurrent_jobs_as_spark_does() {
    use crate::world::config::SchedulingMode;
    for mode in [SchedulingMode::Fair, SchedulingMode::Fifo] {
        let mut a = Alone::new(1);
        let log = ProcessLog::new("driver", Rc::new(RefCell::new(LogStore::new(false))));
        a.ts = TaskSchedulerImpl::new(log, 4, 1).with_scheduling_mode(mode);
        a.ts.submit_tasks(task_set(1, 0, 6, None));
        let mut running: Vec<TaskId> = a
            .offer(&mut [offer(0, "host0", 2)])
            .iter()
            .map(|t| t.task_id)
            .collect();
        a.ts.set_job_pool(2, Some("p1"));
        a.ts.submit_tasks(task_set(2, 0, 6, None));
        // Each freed core: which stage's task takes it.
        let mut stages = Vec::new();
        for _ in 0..6 {
            let done = running.remove(0);
            a.update(done, TaskState::Finished);
            let t = a.offer(&mut [offer(0, "host0", 1)]).remove(0);
            stages.push(t.stage_id);
            running.push(t.task_id);
        }
        match mode {
            SchedulingMode::Fair => assert_eq!(stages, vec![2, 1, 2, 1, 2, 1]),
            SchedulingMode::Fifo => assert_eq!(stages, vec![1, 1, 1, 1, 2, 2]),
        }
    }
}
