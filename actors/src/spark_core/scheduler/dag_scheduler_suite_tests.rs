//! Cases of Spark's DAGSchedulerSuite (core/src/test/scala/org/apache/spark/scheduler/
//! DAGSchedulerSuite.scala) run the way the suite runs them: a DAGScheduler fed
//! `CompletionEvent`s, `ExecutorLost` and `ResubmitFailedStages` directly (`runEvent`,
//! `complete`), the task sets it submits read back in submission order (`taskSets`), the
//! listener events it posts recorded (`EventInfoRecordingListener`) and each job's end kept
//! (`jobListener`). Each test is named after its Spark case; a comment cites it.

use super::driver_scheduler::DriverScheduler;
use super::events::{CompletionEvent, Ending, RunningTask, SchedulerEvent, TsKey};
use super::locality::TaskLocality;
use super::map_output_tracker::RegisteredOutput;
use super::task_scheduler_impl::DagEvents;
use super::task_set_manager::TaskSetManager;
use super::tests::waiter;
use crate::kernel::logs::{LogStore, ProcessLog};
use crate::world::config::ShuffleSettings;
use crate::world::invariants::TaskOutput;
use crate::world::listener::{
    ContextBus, ManagementListener, TaskEndKind, TaskEvent, TaskEventKind,
};
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::{ListenerEvent, TaskEndReason};
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, JobResult, JobSpec, MapStatusData, StageLineage, StageSpec,
    TaskResultData, TaskWork,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The suite's `EventInfoRecordingListener`: every listener event, and the typed task ends.
#[derive(Default)]
struct Recorder {
    events: RefCell<Vec<ListenerEvent>>,
    task_ends: RefCell<Vec<TaskEvent>>,
}

impl ManagementListener for Recorder {
    fn on_event(&self, event: &ListenerEvent) {
        self.events.borrow_mut().push(event.clone());
    }

    fn on_task(&self, event: &TaskEvent) {
        if matches!(event.kind, TaskEventKind::End(_)) {
            self.task_ends.borrow_mut().push(*event);
        }
    }
}

/// How a task of a task set ends (`complete(taskSet, Seq((reason, result)))`).
enum End {
    /// `(Success, makeMapStatus(host, ...))`: a map output on `host`'s executor.
    Map(&'static str),
    /// `(Success, makeMapStatus(host, 1, size))`: a map output of `size` bytes.
    MapSized(&'static str, u64),
    /// `(Success, MapStatus(bm, ...))`: a map output on a given block manager.
    MapOn(BlockManagerId),
    /// `(Success, 42)`: a result task's value.
    Result(u64),
    /// `(FetchFailed(makeBlockManagerId(host), shuffleId, mapIndex, mapIndex, reduceId), null)`;
    /// `from: None` is the suite's `FetchFailed(null, ...)`.
    Fetch {
        from: Option<&'static str>,
        shuffle: u32,
        map_index: u32,
        reduce: u32,
    },
    /// Any other end (`UnknownReason`, `TaskKilled`, `Resubmitted`).
    Other(TaskEndReason),
}

/// The suite's `hostA`, `hostB`, ... in task order (`completeShuffleMapStageSuccessfully`).
const HOSTS: [&str; 8] = [
    "hostA", "hostB", "hostC", "hostD", "hostE", "hostF", "hostG", "hostH",
];

/// `<host>-exec`'s id: `hostA` -> 1, `hostB` -> 2, ...; `host1` -> 101, ...
fn exec_of(host: &str) -> ExecutorId {
    let last = host.chars().last().expect("a host name");
    match last {
        'A'..='Z' => ExecutorId(u32::from(last) - u32::from('A') + 1),
        _ => ExecutorId(100 + last.to_digit(10).expect("hostX or hostN")),
    }
}

/// `makeBlockManagerId(host)`: `BlockManagerId(host + "-exec", host, 12345)`.
fn bm(host: &str) -> BlockManagerId {
    BlockManagerId {
        executor_id: exec_of(host),
        host: host.into(),
        port: 12345,
    }
}

/// `new MyRDD(sc, parts, deps)` for stage `i` of a job: map stages are `MapPartitionsRDD`s,
/// the last is the result stage.
fn stage(i: usize, last: bool, parts: usize, parents: &[usize]) -> StageSpec {
    let rdd = if last {
        format!("ShuffledRDD[{i}] at count at X.scala:9")
    } else {
        format!("MapPartitionsRDD[{i}] at map at X.scala:{i}")
    };
    StageSpec {
        rdd_description: rdd,
        num_partitions: parts as u32,
        parents: parents.to_vec(),
        tasks: vec![
            TaskWork::Sleep {
                duration_ms: 1,
                fail: None,
            };
            parts
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

/// A job of stages `(partitions, parent stages)`, parents first; the last is its result stage.
fn job(stages: &[(usize, &[usize])]) -> JobSpec {
    let n = stages.len();
    JobSpec {
        call_site: "count at X.scala:9".into(),
        stages: stages
            .iter()
            .enumerate()
            .map(|(i, (parts, parents))| stage(i, i + 1 == n, *parts, parents))
            .collect(),
    }
}

/// `MyRDD(maps)` -> ShuffleDependency -> `MyRDD(reduces)`.
fn shuffle_job(maps: usize, reduces: usize) -> JobSpec {
    job(&[(maps, &[]), (reduces, &[0])])
}

/// `job` whose map stage `i` writes the program's shuffle `shuffle_id` (a ShuffleDependency
/// object a later job can reuse).
fn over_shuffle(mut job: JobSpec, i: usize, shuffle_id: u32) -> JobSpec {
    job.stages[i].lineage = Some(Box::new(StageLineage {
        shuffle_id: Some(shuffle_id),
        ..Default::default()
    }));
    job
}

/// The suite's DAGScheduler with its fakes around it.
struct Suite {
    s: DriverScheduler,
    rec: Rc<Recorder>,
    store: Rc<RefCell<LogStore>>,
    /// `taskSets`: every task set the DAGScheduler submitted, in order.
    task_sets: Vec<TsKey>,
    /// Each ended job's result (`jobListener`), by job id.
    job_ends: BTreeMap<u32, JobResult>,
    /// `ResubmitFailedStages` events the DAGScheduler scheduled.
    resubmits_scheduled: u32,
    jobs: u32,
    next_tid: u64,
}

impl Suite {
    fn new() -> Self {
        Self::with_shuffle(ShuffleSettings::default())
    }

    fn with_shuffle(shuffle: ShuffleSettings) -> Self {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let rec = Rc::new(Recorder::default());
        let bus = ContextBus::disabled().with_listener(rec.clone());
        let s = DriverScheduler::new(ProcessLog::new("driver", store.clone()), bus, 4, 1)
            .with_shuffle(shuffle);
        Suite {
            s,
            rec,
            store,
            task_sets: Vec::new(),
            job_ends: BTreeMap::new(),
            resubmits_scheduled: 0,
            jobs: 0,
            next_tid: 0,
        }
    }

    /// What a call left to do: job ends and resubmissions noted, new task sets appended to
    /// `taskSets` in the order the DAGScheduler submitted them.
    fn after(&mut self, out: Vec<SchedulerEvent>) {
        for e in out {
            match e {
                SchedulerEvent::JobEnded { job_id, result, .. } => {
                    self.job_ends.insert(job_id, result);
                }
                SchedulerEvent::ResubmitFailedStagesAfter { .. } => self.resubmits_scheduled += 1,
                _ => {}
            }
        }
        let submitted: Vec<TaskOutput> = self.s.drain_task_outputs().collect();
        self.s.drain_recoveries().for_each(drop);
        for o in submitted {
            if let TaskOutput::StageSubmitted {
                stage,
                stage_attempt,
                ..
            } = o
            {
                let key = self
                    .s
                    .task_scheduler
                    .task_sets
                    .keys()
                    .find(|k| k.1 == stage && k.2 == stage_attempt)
                    .copied();
                // An attempt with no task to run has no task set (submitMissingTasks).
                if let Some(key) = key {
                    self.task_sets.push(key);
                }
            }
        }
    }

    /// `submit(rdd, partitions)`: the job's id.
    fn submit(&mut self, job: JobSpec) -> u32 {
        let out = self.s.submit_job(job, waiter());
        self.after(out);
        self.jobs += 1;
        self.jobs - 1
    }

    /// `taskSets(i)`.
    fn task_set(&self, i: usize) -> &TaskSetManager {
        &self.s.task_scheduler.task_sets[&self.task_sets[i]]
    }

    /// `taskSets(i)`'s (stage, attempt).
    fn stage_attempt(&self, i: usize) -> (u32, u32) {
        let k = self.task_sets[i];
        (k.1, k.2)
    }

    /// `taskSets(i)`'s partitions, task by task.
    fn partitions(&self, i: usize) -> Vec<u32> {
        self.task_set(i).partitions.clone()
    }

    /// The index in `taskSets` of the stage's attempt.
    fn find(&self, stage: u32, attempt: u32) -> usize {
        self.task_sets
            .iter()
            .position(|k| k.1 == stage && k.2 == attempt)
            .unwrap_or_else(|| {
                panic!(
                    "no task set for stage {stage}.{attempt}: {:?}",
                    self.task_sets
                )
            })
    }

    /// `taskSets(i).tasks(j)` run on `host` (`makeCompletionEvent`: the task's epoch is its
    /// set's).
    fn task(&mut self, i: usize, j: usize, host: &str) -> RunningTask {
        let key = self.task_sets[i];
        let (partition, epoch) = {
            let t = self.task_set(i);
            (t.partitions[j], t.epoch)
        };
        self.next_tid += 1;
        RunningTask {
            task_id: TaskId(self.next_tid),
            key,
            index: j as u32,
            partition,
            attempt: 0,
            executor_id: exec_of(host),
            host: Rc::from(host),
            launch_ms: 0,
            launch_epoch: 0,
            map_epoch: epoch,
            launching: false,
            speculative: false,
            locality: TaskLocality::Any,
        }
    }

    /// `runEvent(makeCompletionEvent(task, reason, result))`.
    fn run(&mut self, task: RunningTask, reason: TaskEndReason, result: Option<TaskResultData>) {
        let event = CompletionEvent {
            task: &task,
            ending: Ending::of_suite_event(&task, &reason),
            reason,
            result,
        };
        let mut out = Vec::new();
        let s = &mut self.s;
        s.dag
            .task_ended(event, &mut s.task_scheduler, &mut s.env, &mut out);
        self.after(out);
    }

    /// Ends `taskSets(i).tasks(j)` as `end` says.
    fn end(&mut self, i: usize, j: usize, end: End) {
        let map = |location: BlockManagerId, bytes: u64| {
            let status = MapStatusData {
                location,
                bytes,
                num_reduces: 1,
            };
            Some(TaskResultData::MapStatus(Box::new(status)))
        };
        let (host, reason, result) = match end {
            End::Map(h) => (h.to_string(), TaskEndReason::Success, map(bm(h), 100)),
            End::MapSized(h, size) => (h.to_string(), TaskEndReason::Success, map(bm(h), size)),
            End::MapOn(b) => (b.host.clone(), TaskEndReason::Success, map(b, 100)),
            End::Result(v) => (
                "hostZ".into(),
                TaskEndReason::Success,
                Some(TaskResultData::Count(v)),
            ),
            End::Fetch {
                from,
                shuffle,
                map_index,
                reduce,
            } => {
                let failure = FetchFailure {
                    bm_address: from.map(bm),
                    shuffle_id: shuffle,
                    map_id: i64::from(map_index),
                    map_index: map_index as i32,
                    reduce_id: reduce,
                    message: "ignored".into(),
                };
                let reason = TaskEndReason::FetchFailed(Box::new(failure));
                ("hostZ".into(), reason, None)
            }
            End::Other(reason) => ("hostZ".into(), reason, None),
        };
        let task = self.task(i, j, &host);
        self.run(task, reason, result);
    }

    /// `complete(taskSets(i), ends)`: task j ends as `ends[j]`.
    fn complete(&mut self, i: usize, ends: Vec<End>) {
        assert!(self.task_set(i).partitions.len() >= ends.len());
        for (j, e) in ends.into_iter().enumerate() {
            self.end(i, j, e);
        }
    }

    /// `completeShuffleMapStageSuccessfully(stage, attempt, _, hosts)`: every task of the
    /// attempt writes its output on `hosts[j]`, else on hostA, hostB, ... by task.
    fn complete_map_stage(&mut self, stage: u32, attempt: u32, hosts: &[&'static str]) {
        let i = self.find(stage, attempt);
        let n = self.partitions(i).len();
        let ends = (0..n)
            .map(|j| End::Map(hosts.get(j).copied().unwrap_or(HOSTS[j])))
            .collect();
        self.complete(i, ends);
    }

    /// `completeNextStageWithFetchFailure(stage, attempt, shuffleDep, src)`: the last task set
    /// is the stage's attempt; each of its tasks fails fetching map 0 of `shuffle` from `src`.
    fn complete_next_with_fetch_failure(&mut self, stage: u32, attempt: u32, shuffle: u32) {
        let i = self.task_sets.len() - 1;
        assert_eq!(self.stage_attempt(i), (stage, attempt));
        let n = self.partitions(i).len();
        let ends = (0..n)
            .map(|j| End::Fetch {
                from: Some("hostA"),
                shuffle,
                map_index: 0,
                reduce: j as u32,
            })
            .collect();
        self.complete(i, ends);
    }

    /// `completeNextResultStageWithSuccess(stage, attempt, f)`: the last task set is the result
    /// stage's attempt; task j returns `f(j)`.
    fn complete_next_result(&mut self, stage: u32, attempt: u32, f: impl Fn(u64) -> u64) {
        let i = self.task_sets.len() - 1;
        assert_eq!(self.stage_attempt(i), (stage, attempt));
        let n = self.partitions(i).len();
        let ends = (0..n).map(|j| End::Result(f(j as u64))).collect();
        self.complete(i, ends);
    }

    /// `scheduler.resubmitFailedStages()`.
    fn resubmit(&mut self) {
        let out = self.s.resubmit_failed_stages();
        self.after(out);
    }

    /// `runEvent(ExecutorLost(host + "-exec", reason))`.
    fn lose(&mut self, host: &str, reason: ExecutorLossReason) {
        let out = self.s.executor_lost(exec_of(host), &reason);
        self.after(out);
    }

    /// `results`: the job's values by partition, once it succeeded.
    fn results(&self, job: u32) -> BTreeMap<u32, u64> {
        match self.job_ends.get(&job) {
            Some(JobResult::Succeeded(values)) => values
                .iter()
                .enumerate()
                .filter_map(|(p, v)| match v {
                    TaskResultData::Count(n) => Some((p as u32, *n)),
                    _ => None,
                })
                .collect(),
            other => panic!("job {job} has not succeeded: {other:?}"),
        }
    }

    /// `failure.getMessage` of the job.
    fn failure(&self, job: u32) -> &str {
        match self.job_ends.get(&job) {
            Some(JobResult::Failed(m)) => m,
            other => panic!("job {job} has not failed: {other:?}"),
        }
    }

    /// Each StageCompleted's (stage, failed) in order.
    fn completed(&self) -> Vec<(u32, bool)> {
        self.rec
            .events
            .borrow()
            .iter()
            .filter_map(|e| match e {
                ListenerEvent::StageCompleted { stage } => {
                    Some((stage.stage_id, stage.failure_reason.is_some()))
                }
                _ => None,
            })
            .collect()
    }

    /// `sparkListener.failedStages`.
    fn failed_stages(&self) -> Vec<u32> {
        self.completed()
            .into_iter()
            .filter(|c| c.1)
            .map(|c| c.0)
            .collect()
    }

    /// `sparkListener.successfulStages`.
    fn successful_stages(&self) -> BTreeSet<u32> {
        self.completed()
            .into_iter()
            .filter(|c| !c.1)
            .map(|c| c.0)
            .collect()
    }

    /// `sparkListener.stageByOrderOfExecution`.
    fn stage_order(&self) -> Vec<u32> {
        self.completed().into_iter().map(|c| c.0).collect()
    }

    /// How many StageSubmitted events name the stage (`submittedStageInfos.count(_.stageId)`).
    fn submitted_attempts(&self, stage: u32) -> usize {
        self.rec
            .events
            .borrow()
            .iter()
            .filter(
                |e| matches!(e, ListenerEvent::StageSubmitted { stage: s } if s.stage_id == stage),
            )
            .count()
    }

    /// `mapOutputTracker.shuffleStatuses(shuffle).mapStatuses`.
    fn outputs(&self, shuffle: u32) -> Vec<Option<RegisteredOutput>> {
        self.s.env.map_output_tracker.outputs(shuffle)
    }

    /// `getMapSizesByExecutorId(shuffle, _).map(_._1.host).toSet`: every map output's host;
    /// panics where an output is missing (Spark's MetadataFetchFailedException).
    fn output_hosts(&self, shuffle: u32) -> BTreeSet<String> {
        self.outputs(shuffle)
            .into_iter()
            .map(|o| o.expect("every map output registered").location.host)
            .collect()
    }

    /// The driver's log lines equal to `line` (without the timestamp).
    fn logged(&self, line: &str) -> usize {
        super::tests::lines(&self.store)
            .iter()
            .filter(|l| *l == line)
            .count()
    }

    /// `assertDataStructuresEmpty`: no active job, no waiting, running or failed stage.
    fn assert_data_structures_empty(&self) {
        assert_eq!(self.s.dag.active_jobs(), 0);
        assert!(self.s.dag.waiting_stages.is_empty());
        assert!(self.s.dag.running_stages.is_empty());
        assert!(self.s.dag.failed_stages.is_empty());
    }
}

fn answers(pairs: &[(u32, u64)]) -> BTreeMap<u32, u64> {
    pairs.iter().copied().collect()
}

// DAGSchedulerSuite "[SPARK-3353] parent stage should have lower stage id": the map stage of
// a two-stage job has the lower id and completes first.
#[test]
fn spark_3353_parent_stage_should_have_lower_stage_id() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 4));
    t.complete_map_stage(0, 0, &[]);
    t.complete_next_result(1, 0, |_| 42);
    let order = t.stage_order();
    assert_eq!(order.len(), 2);
    assert!(order[0] < order[1]);
}

// DAGSchedulerSuite "[SPARK-13902] Ensure no duplicate stages are created": D reads C's
// shuffle, C reads A's and B's, B reads A's; each shuffle has one map stage, the parents are
// as the dependencies say, and the stages run A, B, C, then the result.
#[test]
fn spark_13902_ensure_no_duplicate_stages_are_created() {
    let mut t = Suite::new();
    t.submit(job(&[(1, &[]), (1, &[0]), (1, &[0, 1]), (1, &[2])]));
    assert_eq!(t.s.dag.active_jobs(), 1);
    let map_stages: Vec<u32> = (0..3)
        .filter_map(|sh| t.s.dag.map_stage_of(sh, 0))
        .collect();
    assert_eq!(map_stages, vec![0, 1, 2], "one map stage per shuffle");
    let parents = |id: u32| t.s.dag.stages[&id].parents.clone();
    assert!(parents(0).is_empty());
    assert_eq!(parents(1), vec![0]);
    assert_eq!(parents(2), vec![0, 1]);
    assert_eq!(parents(3), vec![2]);
    t.complete_map_stage(0, 0, &[]);
    t.complete_map_stage(1, 0, &[]);
    t.complete_map_stage(2, 0, &[]);
    assert_eq!(t.stage_attempt(3), (3, 0));
    t.complete(3, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    assert_eq!(t.task_sets.len(), 4, "no stage ran twice");
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "run trivial job".
#[test]
fn run_trivial_job() {
    let mut t = Suite::new();
    t.submit(job(&[(1, &[])]));
    t.complete(0, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    assert_eq!(t.successful_stages(), BTreeSet::from([0]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "trivial job cancellation": a job cancelled while its stage runs fails
// with the cancellation's message (Spark 4.0.0's `SparkCoreErrors.sparkJobCancelled`, as a real
// run's log records it), its stage is the listener's one failed stage, its task set a zombie
// (killAllTaskAttempts), and nothing of it is left; cancelling it again does nothing.
#[test]
fn trivial_job_cancellation() {
    let mut t = Suite::new();
    t.submit(job(&[(1, &[])]));
    let out = t.s.cancel_job(0, "part of cancelled job group g");
    t.after(out);
    assert_eq!(
        t.failure(0),
        "[SPARK_JOB_CANCELLED] Job 0 cancelled part of cancelled job group g SQLSTATE: XXKDA"
    );
    assert_eq!(t.failed_stages(), vec![0]);
    assert!(t.task_set(0).zombie, "killAllTaskAttempts(0)");
    t.assert_data_structures_empty();
    let again = t.s.cancel_job(0, "part of cancelled job group g");
    assert!(again.is_empty());
}

// DAGSchedulerSuite "run trivial shuffle": the tracker knows both map outputs' hosts, and the
// reduce stage's result ends the job.
#[test]
fn run_trivial_shuffle() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 1));
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
    t.complete(1, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "run trivial shuffle with fetch failure": the second result task fails
// fetching hostA's output; hostA's executor is removed once (`removeExecutorAsync`), the map
// stage reruns only the lost map, and the result stage's next attempt only the partition
// without a result.
#[test]
fn run_trivial_shuffle_with_fetch_failure() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    t.complete_map_stage(0, 0, &[]);
    t.complete(
        1,
        vec![
            End::Result(42),
            End::Fetch {
                from: Some("hostA"),
                shuffle: 0,
                map_index: 0,
                reduce: 0,
            },
        ],
    );
    assert_eq!(t.logged("INFO DAGScheduler: Executor lost: 1 (epoch 1)"), 1);
    t.resubmit();
    assert_eq!((t.stage_attempt(2), t.partitions(2)), ((0, 1), vec![0]));
    t.complete(2, vec![End::Map("hostA")]);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
    assert_eq!((t.stage_attempt(3), t.partitions(3)), ((1, 1), vec![1]));
    t.complete(3, vec![End::Result(43)]);
    assert_eq!(t.results(0), answers(&[(0, 42), (1, 43)]));
    t.assert_data_structures_empty();
}

/// DAGSchedulerSuite's `shuffleFileLossTests` body: a map stage done on hostA and hostB, then
/// `ExecutorLost(hostA-exec, reason)`; whether hostA's output is gone.
fn shuffle_files_lost_when(reason: ExecutorLossReason, shuffle_service: bool) -> Suite {
    let mut t = Suite::with_shuffle(ShuffleSettings {
        service_enabled: shuffle_service,
        ..ShuffleSettings::default()
    });
    t.submit(shuffle_job(2, 1));
    t.complete_map_stage(0, 0, &[]);
    t.lose("hostA", reason);
    // `removeExecutorAsync("hostA-exec")` once, whatever the files.
    assert_eq!(
        super::tests::lines(&t.store)
            .iter()
            .filter(|l| l.starts_with("INFO DAGScheduler: Executor lost: 1 "))
            .count(),
        1
    );
    t
}

// DAGSchedulerSuite "shuffle files not lost when executor process lost with shuffle service".
#[test]
fn shuffle_files_not_lost_when_executor_process_lost_with_shuffle_service() {
    let reason = ExecutorLossReason::ProcessLost {
        message: String::new(),
        caused_by_app: true,
    };
    let t = shuffle_files_lost_when(reason, true);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
}

// DAGSchedulerSuite "shuffle files not lost when executor failure with shuffle service".
#[test]
fn shuffle_files_not_lost_when_executor_failure_with_shuffle_service() {
    let t = shuffle_files_lost_when(ExecutorLossReason::Killed, true);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
}

// DAGSchedulerSuite "shuffle files lost when executor failure without shuffle service":
// `removeOutputsOnExecutor(hostA-exec)`, and reading the shuffle fails (map 0 missing).
#[test]
fn shuffle_files_lost_when_executor_failure_without_shuffle_service() {
    let t = shuffle_files_lost_when(ExecutorLossReason::Killed, false);
    assert_eq!(
        t.logged("INFO DAGScheduler: Shuffle files lost for executor: 1 (epoch 1)"),
        1
    );
    assert_eq!(t.s.env.map_output_tracker.missing_partitions(0), vec![0]);
}

// DAGSchedulerSuite "All shuffle files on the storage endpoint should be cleaned up when it is
// lost": with the shuffle service and `spark.files.fetchFailure.unRegisterOutputOnHost`, a
// fetch failure from one of hostA's two executors unregisters every output on hostA, of both
// shuffles; hostB's stay.
#[test]
fn all_shuffle_files_on_the_storage_endpoint_should_be_cleaned_up_when_it_is_lost() {
    let mut t = Suite::with_shuffle(ShuffleSettings {
        service_enabled: true,
        unregister_output_on_host_on_fetch_failure: true,
        ..ShuffleSettings::default()
    });
    t.submit(job(&[(3, &[]), (3, &[0]), (1, &[1])]));
    let on_a = |e: u32| BlockManagerId {
        executor_id: ExecutorId(e),
        host: "hostA".into(),
        port: 12345,
    };
    for i in 0..2 {
        t.complete(
            i,
            vec![
                End::MapOn(on_a(11)),
                End::MapOn(on_a(12)),
                End::Map("hostB"),
            ],
        );
    }
    for shuffle in 0..2 {
        let execs: BTreeSet<ExecutorId> = t
            .outputs(shuffle)
            .into_iter()
            .map(|o| o.expect("registered").location.executor_id)
            .collect();
        assert_eq!(
            execs,
            BTreeSet::from([ExecutorId(11), ExecutorId(12), exec_of("hostB")])
        );
    }
    let task = t.task(2, 0, "hostC");
    let failure = FetchFailure {
        bm_address: Some(on_a(12)),
        shuffle_id: 0,
        map_id: 0,
        map_index: 0,
        reduce_id: 0,
        message: "ignored".into(),
    };
    t.run(task, TaskEndReason::FetchFailed(Box::new(failure)), None);
    for shuffle in 0..2 {
        let left: Vec<RegisteredOutput> = t.outputs(shuffle).into_iter().flatten().collect();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].location.executor_id, exec_of("hostB"));
        assert_eq!(
            t.outputs(shuffle)[2]
                .as_ref()
                .map(|o| o.location.host.as_str()),
            Some("hostB")
        );
    }
}

// DAGSchedulerSuite "SPARK-32003: All shuffle files for executor should be cleaned up on fetch
// failure": with the shuffle service, losing hostA's executor keeps its outputs; a fetch
// failure from it then unregisters them (once: a second fetch failure at the same epoch does
// not remove again), and the executor is removed from the BlockManagerMaster only once.
#[test]
fn spark_32003_all_shuffle_files_for_executor_should_be_cleaned_up_on_fetch_failure() {
    let mut t = Suite::with_shuffle(ShuffleSettings {
        service_enabled: true,
        ..ShuffleSettings::default()
    });
    t.submit(shuffle_job(3, 3));
    t.complete_map_stage(0, 0, &["hostA", "hostA", "hostB"]);
    let exited = ExecutorLossReason::Exited {
        exit_code: -100,
        exit_caused_by_app: false,
        reason: "Container marked as failed".into(),
    };
    t.lose("hostA", exited);
    let on = |t: &Suite, host: &str| {
        t.outputs(0)
            .into_iter()
            .flatten()
            .filter(|o| o.location.executor_id == exec_of(host))
            .count()
    };
    assert_eq!((on(&t, "hostA"), on(&t, "hostB")), (2, 1));
    let removed = "INFO DAGScheduler: Shuffle files lost for executor: 1 (epoch 1)";
    assert_eq!(t.logged(removed), 0);
    for map in 0..2 {
        t.end(
            1,
            map as usize,
            End::Fetch {
                from: Some("hostA"),
                shuffle: 0,
                map_index: map,
                reduce: 0,
            },
        );
    }
    assert_eq!((on(&t, "hostA"), on(&t, "hostB")), (0, 1));
    assert_eq!(t.logged(removed), 1, "removeOutputsOnExecutor once");
    let lost = super::tests::lines(&t.store)
        .iter()
        .filter(|l| l.starts_with("INFO DAGScheduler: Executor lost: 1 "))
        .count();
    assert_eq!(lost, 1, "removeExecutorAsync once");
}

// DAGSchedulerSuite "Single stage fetch failure should not abort the stage.": every one of the
// 8 reduce tasks fails fetching; one resubmission reruns the lost map, then the reduce stage
// succeeds.
#[test]
fn single_stage_fetch_failure_should_not_abort_the_stage() {
    let mut t = Suite::new();
    t.submit(shuffle_job(8, 8));
    t.complete_map_stage(0, 0, &[]);
    t.complete_next_with_fetch_failure(1, 0, 0);
    t.resubmit();
    assert!(!t.s.dag.running_stages.is_empty());
    assert!(t.job_ends.is_empty());
    t.complete_map_stage(0, 1, &[]);
    t.complete_next_result(1, 1, |_| 42);
    assert_eq!(t.results(0), (0..8).map(|p| (p, 42)).collect());
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "Multiple consecutive stage fetch failures should lead to job being
// aborted.": the fourth consecutive fetch-failed attempt of the result stage aborts the job
// with `ResultStage 1 (<name>) has failed the maximum ...`. Beyond the case (Spark 4.0.0's
// jar, cancelRunningIndependentStages): the aborted stage, not running but with failed
// attempts, is marked failed once more, so the listener hears of it five times.
#[test]
fn multiple_consecutive_stage_fetch_failures_should_lead_to_job_being_aborted() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    for attempt in 0..4 {
        t.complete_map_stage(0, attempt, &[]);
        t.complete_next_with_fetch_failure(1, attempt, 0);
        t.resubmit();
        if attempt < 3 {
            assert!(!t.s.dag.running_stages.is_empty());
            assert!(t.job_ends.is_empty());
        } else {
            t.assert_data_structures_empty();
            assert!(
                t.failure(0)
                    .contains("ResultStage 1 (count at X.scala:9) has failed the maximum")
            );
        }
    }
    assert_eq!(t.failed_stages(), vec![1; 5]);
}

// DAGSchedulerSuite "Failures in different stages should not trigger an overall abort": stage
// 1 fails fetching twice, then stage 2 twice: four failures in the job, but no stage has four,
// so the job succeeds.
#[test]
fn failures_in_different_stages_should_not_trigger_an_overall_abort() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[]), (2, &[0]), (1, &[1])]));
    for attempt in 0..4 {
        t.complete_map_stage(0, attempt, &[]);
        if attempt < 2 {
            t.complete_next_with_fetch_failure(1, attempt, 0);
        } else {
            t.complete_map_stage(1, attempt, &[]);
            t.complete_next_with_fetch_failure(2, attempt - 2, 1);
        }
        t.resubmit();
    }
    t.complete_map_stage(0, 4, &[]);
    t.complete_map_stage(1, 4, &[]);
    t.complete_next_result(2, 2, |_| 42);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "Non-consecutive stage failures don't trigger abort": stage 1 fails
// fetching three times, succeeds, then fails again: its failed attempts were cleared by the
// success (markStageAsFinished), so the job does not abort and ends with its result.
#[test]
fn non_consecutive_stage_failures_dont_trigger_abort() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[]), (2, &[0]), (1, &[1])]));
    for attempt in 0..3 {
        t.complete_map_stage(0, attempt, &[]);
        t.complete_next_with_fetch_failure(1, attempt, 0);
        t.resubmit();
        assert!(!t.s.dag.running_stages.is_empty());
        assert!(t.job_ends.is_empty());
    }
    t.complete_map_stage(0, 3, &[]);
    t.complete_map_stage(1, 3, &[]);
    t.complete_next_with_fetch_failure(2, 0, 1);
    t.resubmit();
    t.complete_map_stage(0, 4, &[]);
    t.complete_next_with_fetch_failure(1, 4, 0);
    t.resubmit();
    assert!(!t.s.dag.running_stages.is_empty());
    assert!(t.job_ends.is_empty());
    t.complete_map_stage(0, 5, &[]);
    t.complete_map_stage(1, 5, &[]);
    t.complete_next_result(2, 1, |_| 42);
    t.assert_data_structures_empty();
    assert_eq!(t.results(0), answers(&[(0, 42)]));
}

// DAGSchedulerSuite "trivial shuffle with multiple fetch failures", as the suite feeds it: two
// fetch failures of the same result task attempt; the listener hears of one failed stage.
#[test]
fn trivial_shuffle_with_multiple_fetch_failures_fed_as_completion_events() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
    for map in 0..2 {
        let fetch = End::Fetch {
            from: Some("hostA"),
            shuffle: 0,
            map_index: map,
            reduce: map,
        };
        t.end(1, 0, fetch);
    }
    assert_eq!(t.failed_stages(), vec![1]);
    assert_eq!(t.resubmits_scheduled, 1);
}

// DAGSchedulerSuite "late fetch failures don't cause multiple concurrent attempts for the same
// map stage": a second fetch failure, arriving while the map stage's retry runs, does not
// submit another attempt of it.
#[test]
fn late_fetch_failures_dont_cause_multiple_concurrent_attempts_for_the_same_map_stage() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    assert_eq!(t.submitted_attempts(0), 1);
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostA".into(), "hostB".into()])
    );
    let fetch = |host, map| End::Fetch {
        from: Some(host),
        shuffle: 0,
        map_index: map,
        reduce: map,
    };
    t.end(1, 0, fetch("hostA", 0));
    assert!(t.failed_stages().contains(&1));
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
    t.end(1, 1, fetch("hostB", 1));
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
}

// DAGSchedulerSuite "extremely late fetch failures don't cause multiple concurrent attempts for
// the same stage": a fetch failure from the reduce stage's first attempt, arriving after its
// second attempt started, is ignored.
#[test]
fn extremely_late_fetch_failures_dont_cause_multiple_concurrent_attempts_for_the_same_stage() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    assert_eq!(t.submitted_attempts(0), 1);
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(t.submitted_attempts(1), 1);
    let fetch = |host, map| End::Fetch {
        from: Some(host),
        shuffle: 0,
        map_index: map,
        reduce: map,
    };
    t.end(1, 0, fetch("hostA", 0));
    t.resubmit();
    t.complete(2, vec![End::Map("hostA")]);
    assert_eq!((t.submitted_attempts(0), t.submitted_attempts(1)), (2, 2));
    t.end(1, 1, fetch("hostB", 1));
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
    assert_eq!(
        t.logged("INFO DAGScheduler: Ignoring fetch failure from ResultTask(1, 1) as it's from ResultStage 1 attempt 0 and there is a more recent attempt for that stage (attempt 1) running"),
        1
    );
}

// DAGSchedulerSuite "task events always posted in speculation / when stage is killed": every
// completion posts a TaskEnd, even after the stage finished (a speculative copy's success, an
// `UnknownReason` failure).
#[test]
fn task_events_always_posted_in_speculation_when_stage_is_killed() {
    let mut t = Suite::new();
    t.submit(job(&[(4, &[])]));
    t.end(0, 0, End::Result(42));
    t.end(0, 1, End::Result(42));
    assert_eq!(t.rec.task_ends.borrow().len(), 2);
    assert!(t.s.dag.running_stages.contains(&0));
    t.end(0, 2, End::Result(42));
    t.end(0, 3, End::Result(42));
    assert_eq!(t.rec.task_ends.borrow().len(), 4);
    assert_eq!(t.s.dag.active_jobs(), 0);
    t.end(0, 3, End::Result(42));
    assert_eq!(t.rec.task_ends.borrow().len(), 5);
    let unknown = TaskEndReason::ExceptionFailure {
        class: "UnknownReason".into(),
        description: String::new(),
    };
    t.end(0, 3, End::Other(unknown));
    let ends = t.rec.task_ends.borrow();
    assert_eq!(ends.len(), 6);
    assert_eq!(ends[5].kind, TaskEventKind::End(TaskEndKind::Failed));
}

// DAGSchedulerSuite "shuffle fetch failure in a reused shuffle dependency": a second job over
// the first job's shuffle skips its map stage (a new stage, 2); a fetch failure then reruns
// that skipped stage, as attempt 1 (getMissingParentStages' increaseAttemptIdOnFirstSkip), and
// the result stage's second attempt ends the job.
#[test]
fn shuffle_fetch_failure_in_a_reused_shuffle_dependency() {
    let mut t = Suite::new();
    t.submit(over_shuffle(shuffle_job(2, 2), 0, 0));
    t.complete_map_stage(0, 0, &[]);
    t.complete_next_result(1, 0, |_| 42);
    assert_eq!(t.results(0), answers(&[(0, 42), (1, 42)]));
    t.assert_data_structures_empty();
    t.submit(over_shuffle(shuffle_job(2, 2), 0, 0));
    t.complete_next_with_fetch_failure(3, 0, 0);
    assert_eq!(
        t.logged("INFO DAGScheduler: Resubmitting ShuffleMapStage 2 (map at X.scala:0) and ResultStage 3 (count at X.scala:9) due to fetch failure"),
        1,
        "the second job's own map stage, not the finished job's"
    );
    t.resubmit();
    t.complete_map_stage(2, 1, &[]);
    t.complete_next_result(3, 1, |p| p + 1234);
    assert_eq!(t.results(1), answers(&[(0, 1234), (1, 1235)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "don't submit stage until its dependencies map outputs are registered
// (SPARK-5259)": completions from the first and second attempts of stage 1 together register
// all of its outputs; stage 2 is submitted then, once, as attempt 0.
#[test]
fn dont_submit_stage_until_its_dependencies_map_outputs_are_registered_spark_5259() {
    let mut t = Suite::new();
    t.submit(job(&[(3, &[]), (3, &[0]), (1, &[1])]));
    t.complete_map_stage(0, 0, &["hostB", "hostB", "hostA"]);
    t.lose("hostA", ExecutorLossReason::Killed);
    let no_address = End::Fetch {
        from: None,
        shuffle: 0,
        map_index: 2,
        reduce: 0,
    };
    t.end(1, 0, no_address);
    t.resubmit();
    assert_eq!((t.stage_attempt(2), t.partitions(2)), ((0, 1), vec![2]));
    t.complete(2, vec![End::Map("hostC")]);
    assert_eq!(t.stage_attempt(3), (1, 1));
    assert_eq!(t.partitions(3).len(), 3);
    t.end(3, 0, End::Map("hostC"));
    t.end(3, 1, End::Map("hostC"));
    // A late task of the first attempt.
    t.end(1, 2, End::Map("hostB"));
    for shuffle in 0..2 {
        assert!(t.outputs(shuffle).iter().all(Option::is_some));
    }
    assert_eq!(t.task_sets.len(), 5);
    assert_eq!(t.stage_attempt(4), (2, 0));
}

// DAGSchedulerSuite "register map outputs correctly after ExecutorLost and task Resubmitted",
// as the suite feeds it: two maps done on hostA, hostA lost, both `Resubmitted`, then all
// three complete on hostB (attempt 0 still); every output is registered and stage 1 is the
// second task set, attempt 0.
#[test]
fn register_map_outputs_correctly_after_executor_lost_and_task_resubmitted() {
    let mut t = Suite::new();
    t.submit(shuffle_job(3, 5));
    t.end(0, 0, End::Map("hostA"));
    t.end(0, 1, End::Map("hostA"));
    t.lose("hostA", ExecutorLossReason::Killed);
    t.end(0, 0, End::Other(TaskEndReason::Resubmitted));
    t.end(0, 1, End::Other(TaskEndReason::Resubmitted));
    t.complete_map_stage(0, 0, &["hostB", "hostB", "hostB"]);
    assert!(t.outputs(0).iter().all(Option::is_some));
    assert_eq!(t.task_sets.len(), 2);
    assert_eq!(t.stage_attempt(1), (1, 0));
}

// DAGSchedulerSuite "run trivial shuffle with out-of-band executor failure and retry": hostA's
// executor is lost while the map stage runs; its late completion there is ignored (its epoch
// is not newer than the loss), so the stage is resubmitted with the one map task, and only
// then the reduce stage runs.
#[test]
fn run_trivial_shuffle_with_out_of_band_executor_failure_and_retry() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 1));
    t.lose("hostA", ExecutorLossReason::Killed);
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(t.task_sets.len(), 2);
    assert_eq!((t.stage_attempt(1), t.partitions(1)), ((0, 1), vec![0]));
    t.complete(1, vec![End::Map("hostC")]);
    assert_eq!(
        t.output_hosts(0),
        BTreeSet::from(["hostB".into(), "hostC".into()])
    );
    assert_eq!(t.task_sets.len(), 3);
    assert_eq!(t.stage_attempt(2).0, 1, "the result stage");
    t.complete(2, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "recursive shuffle failures": a fetch failure of the last stage from hostA
// loses hostA's outputs of both shuffles; the resubmission reruns stage 0's lost map, then
// stage 1's, then the result stage.
#[test]
fn recursive_shuffle_failures() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[]), (2, &[0]), (1, &[1])]));
    t.complete_map_stage(0, 0, &[]);
    t.complete_map_stage(1, 0, &["hostA", "hostC"]);
    t.complete_next_with_fetch_failure(2, 0, 1);
    t.resubmit();
    assert_eq!((t.stage_attempt(3), t.partitions(3)), ((0, 1), vec![0]));
    t.complete(3, vec![End::Map("hostA")]);
    assert_eq!((t.stage_attempt(4), t.partitions(4)), ((1, 1), vec![0]));
    t.complete(4, vec![End::Map("hostA")]);
    assert_eq!(t.stage_attempt(5), (2, 1));
    t.complete(5, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "SPARK-30388: shuffle fetch failed on speculative task, but original task
// succeed": a speculative copy's fetch failure fails the result stage and resubmits the map
// stage; the original copy's success then ends the job, which marks the result stage finished
// and cancels the map stage still running (cancelRunningIndependentStages, Spark 4.0.0's jar):
// the listener hears of stages 0, 1, 1, 0.
#[test]
fn spark_30388_shuffle_fetch_failed_on_speculative_task_but_original_task_succeed() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(t.stage_order(), vec![0]);
    t.end(1, 0, End::Result(42));
    let fetch = End::Fetch {
        from: Some("hostA"),
        shuffle: 0,
        map_index: 0,
        reduce: 1,
    };
    t.end(1, 1, fetch);
    assert_eq!(t.stage_order(), vec![0, 1]);
    t.resubmit();
    assert_eq!(t.s.dag.running_stages, BTreeSet::from([0]));
    t.end(1, 1, End::Result(42));
    assert_eq!(
        t.completed(),
        vec![(0, false), (1, true), (1, false), (0, true)]
    );
    assert_eq!(t.s.dag.active_jobs(), 0);
    let map_retry = t.find(0, 1);
    assert!(t.task_set(map_retry).zombie, "killAllTaskAttempts(0)");
    assert_eq!(
        t.logged(
            "INFO YarnClusterScheduler: Killing all running tasks in stage 0: Job 0 is finished."
        ),
        1
    );
}

// DAGSchedulerSuite "reduce tasks should be placed locally with map output": the one reduce
// task prefers the host of the one map output.
#[test]
fn reduce_tasks_should_be_placed_locally_with_map_output() {
    let mut t = Suite::new();
    t.submit(shuffle_job(1, 1));
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(t.output_hosts(0), BTreeSet::from(["hostA".into()]));
    let prefs: Vec<Vec<String>> = t
        .task_set(1)
        .prefs
        .hosts
        .iter()
        .map(|h| h.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(prefs, vec![vec!["hostA".to_string()]]);
    t.complete(1, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "reduce task locality preferences should only include machines with largest
// map outputs": of four map outputs of 10, 20, 30 and 40 bytes, the reduce task prefers the
// hosts holding at least 20% of its input (host4, host3, host2).
#[test]
fn reduce_task_locality_preferences_should_only_include_machines_with_largest_map_outputs() {
    let mut t = Suite::new();
    t.submit(shuffle_job(4, 1));
    let ends = (1..=4)
        .map(|i| End::MapSized(["host1", "host2", "host3", "host4"][i - 1], 10 * i as u64))
        .collect();
    t.complete(0, ends);
    let prefs: BTreeSet<String> = t.task_set(1).prefs.hosts[0]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        prefs,
        BTreeSet::from(["host2".into(), "host3".into(), "host4".into()])
    );
    t.complete(1, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "accumulator not calculated for resubmitted task in result stage" (its job
// results; sparkyard has no accumulators): a second success of partition 0 (a speculative or
// resubmitted copy) keeps the first result and does not end the job; partition 1 ends it.
#[test]
fn accumulator_not_calculated_for_resubmitted_task_in_result_stage() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[])]));
    t.end(0, 0, End::Result(42));
    assert!(t.s.dag.stages.contains_key(&0));
    t.end(0, 0, End::Result(43));
    assert!(t.job_ends.is_empty());
    t.end(0, 1, End::Result(42));
    assert_eq!(t.results(0), answers(&[(0, 42), (1, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "[SPARK-19263] DAGScheduler should not submit multiple active tasksets, even
// with late completions from earlier stage attempts": after a fetch failure from hostA, a late
// success of stage 1's first attempt on hostA is ignored (its epoch is not newer than hostA's
// loss), so stage 1's second attempt finishing its other partition leaves the stage incomplete:
// a third attempt runs the one partition, and only then the result stage.
#[test]
fn spark_19263_dag_scheduler_should_not_submit_multiple_active_tasksets() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[]), (2, &[0]), (2, &[1])]));
    assert_eq!(t.stage_attempt(0), (0, 0));
    t.complete_map_stage(0, 0, &["hostA", "hostA"]);
    assert_eq!(t.stage_attempt(1), (1, 0));
    let fetch = End::Fetch {
        from: Some("hostA"),
        shuffle: 0,
        map_index: 0,
        reduce: 0,
    };
    t.end(1, 0, fetch);
    t.resubmit();
    assert_eq!((t.stage_attempt(2), t.partitions(2).len()), ((0, 1), 2));
    t.complete(2, vec![End::Map("hostB"), End::Map("hostB")]);
    t.end(1, 1, End::Map("hostA"));
    assert_eq!((t.stage_attempt(3), t.partitions(3).len()), ((1, 1), 2));
    t.end(3, 0, End::Map("hostB"));
    assert_eq!(t.task_sets.len(), 5);
    assert_eq!((t.stage_attempt(4), t.partitions(4)), ((1, 2), vec![1]));
    t.end(4, 0, End::Map("hostB"));
    assert_eq!(t.task_sets.len(), 6);
    assert_eq!(t.stage_attempt(5), (2, 0));
    t.complete(5, vec![End::Result(1), End::Result(1)]);
    assert_eq!(t.results(0), answers(&[(0, 1), (1, 1)]));
}

// DAGSchedulerSuite "Completions in zombie tasksets update status of non-zombie taskset": the
// map stage's second attempt runs the three partitions without an output; successes of the
// first (zombie) attempt's tasks for partitions 2 and 3 mark them completed in the second
// (`notifyPartitionCompletion`), and count for the stage, which then finishes.
#[test]
fn completions_in_zombie_tasksets_update_status_of_non_zombie_taskset() {
    let mut t = Suite::new();
    t.submit(shuffle_job(4, 4));
    assert_eq!(t.task_sets.len(), 1);
    t.end(0, 0, End::Map("hostA"));
    let fetch = End::Fetch {
        from: Some("hostB"),
        shuffle: 0,
        map_index: 0,
        reduce: 0,
    };
    t.end(0, 1, fetch);
    t.resubmit();
    assert_eq!(t.task_sets.len(), 2);
    assert_eq!(t.partitions(1), vec![1, 2, 3]);
    t.end(1, 0, End::Map("hostA"));
    let marked = |t: &Suite| -> Vec<u32> {
        let set = t.task_set(1);
        set.partitions
            .iter()
            .zip(&set.successful)
            .filter(|(_, done)| **done)
            .map(|(p, _)| *p)
            .collect()
    };
    t.end(0, 2, End::Map("hostA"));
    assert_eq!(marked(&t), vec![2]);
    t.end(0, 3, End::Map("hostA"));
    assert_eq!(marked(&t), vec![2, 3]);
    assert_eq!(t.task_sets.len(), 3);
    t.complete(2, (0..4).map(|_| End::Result(42)).collect());
    t.assert_data_structures_empty();
}

/// DAGSchedulerSuite's `shuffleFileLossTests` "worker lost with/without shuffle service"
/// (`ExecutorProcessLost("", Some("hostA"))`). YARN's ExecutorProcessLost never names a worker
/// host, so the loss that does on YARN is used: `ExecutorDecommission(Some("hostA"))`, which
/// DAGSchedulerEventProcessLoop.doOnReceive maps to the same `handleExecutorLost(execId,
/// workerHost)` (Spark 4.0.0's jar). With a worker host the files are lost whatever the
/// shuffle service (`removeOutputsOnHost`).
fn worker_lost(shuffle_service: bool) {
    let reason = ExecutorLossReason::Decommission {
        reason: String::new(),
        worker_host: Some("hostA".into()),
    };
    let t = shuffle_files_lost_when(reason, shuffle_service);
    assert_eq!(
        t.logged("INFO DAGScheduler: Shuffle files lost for host: hostA (epoch 1)"),
        1
    );
    assert_eq!(t.s.env.map_output_tracker.missing_partitions(0), vec![0]);
}

// DAGSchedulerSuite "shuffle files lost when worker lost with shuffle service" (see
// `worker_lost`).
#[test]
fn shuffle_files_lost_when_worker_lost_with_shuffle_service() {
    worker_lost(true);
}

// DAGSchedulerSuite "shuffle files lost when worker lost without shuffle service" (see
// `worker_lost`).
#[test]
fn shuffle_files_lost_when_worker_lost_without_shuffle_service() {
    worker_lost(false);
}

// DAGSchedulerSuite "stages with both narrow and shuffle dependencies use narrow ones for
// locality": a reduce stage that also reads an RDD preferring hostB prefers hostB, not the
// host of its shuffle input (hostA).
#[test]
fn stages_with_both_narrow_and_shuffle_dependencies_use_narrow_ones_for_locality() {
    let mut t = Suite::new();
    let mut spec = shuffle_job(1, 1);
    spec.stages[1].preferred_hosts = vec![vec!["hostB".into()]];
    t.submit(spec);
    t.complete_map_stage(0, 0, &[]);
    assert_eq!(t.output_hosts(0), BTreeSet::from(["hostA".into()]));
    let prefs: Vec<String> = t.task_set(1).prefs.hosts[0]
        .iter()
        .map(|h| h.to_string())
        .collect();
    assert_eq!(prefs, vec!["hostB".to_string()]);
    t.complete(1, vec![End::Result(42)]);
    assert_eq!(t.results(0), answers(&[(0, 42)]));
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "failure of stage used by two jobs", for its second job (sparkyard's jobs
// do not share stages): the result stage reads two shuffles whose map stages run at once; the
// first map stage's TaskSetFailed aborts the job, and the other map stage, running and needed
// by no other job, is cancelled too (`cancelledStages` {0, 1}; the listener hears both fail).
#[test]
fn failure_of_stage_used_by_two_jobs() {
    let mut t = Suite::new();
    t.submit(job(&[(2, &[]), (2, &[]), (2, &[0, 1])]));
    assert_eq!(t.s.dag.running_stages, BTreeSet::from([0, 1]));
    let mut out = Vec::new();
    let message = "Exception failure in map stage";
    let s = &mut t.s;
    s.dag
        .task_set_failed(0, message, &mut s.task_scheduler, &mut s.env, &mut out);
    t.after(out);
    assert!(
        (0..2).all(|i| t.task_set(i).zombie),
        "killAllTaskAttempts(0) and (1)"
    );
    assert!(t.successful_stages().is_empty());
    assert_eq!(
        t.failed_stages().into_iter().collect::<BTreeSet<_>>(),
        BTreeSet::from([0, 1])
    );
    assert_eq!(
        t.failure(0),
        format!("Job aborted due to stage failure: {message}")
    );
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "SPARK-17644: After one stage is aborted for too many failed attempts,
// subsequent stages still behave correctly on fetch failures": a job aborted after four
// fetch-failed attempts leaves nothing behind, and the next job's single fetch failure is
// retried and succeeds.
#[test]
fn spark_17644_after_one_stage_is_aborted_subsequent_stages_behave_on_fetch_failures() {
    let mut t = Suite::new();
    t.submit(shuffle_job(2, 2));
    for attempt in 0..4 {
        t.complete_map_stage(0, attempt, &[]);
        t.complete_next_with_fetch_failure(1, attempt, 0);
        t.resubmit();
    }
    assert!(
        t.failure(0)
            .contains("Most recent failure reason:\nignored")
    );
    t.assert_data_structures_empty();
    t.submit(shuffle_job(2, 2));
    t.complete_map_stage(2, 0, &[]);
    t.complete_next_with_fetch_failure(3, 0, 1);
    t.resubmit();
    t.complete_map_stage(2, 1, &[]);
    t.complete_next_result(3, 1, |_| 7);
    assert_eq!(t.results(1), answers(&[(0, 7), (1, 7)]));
    t.assert_data_structures_empty();
}

/// `job` with stage `i` a barrier stage (`rdd.barrier().mapPartitions(iter => iter)`).
fn barrier(mut job: JobSpec, i: usize) -> JobSpec {
    job.stages[i].barrier = true;
    job
}

fn killed() -> End {
    End::Other(TaskEndReason::TaskKilled {
        reason: "test".into(),
    })
}

/// The outputs of `shuffle` still registered, by map index.
fn registered(t: &Suite, shuffle: u32) -> Vec<usize> {
    let outs = t.outputs(shuffle);
    (0..outs.len()).filter(|&m| outs[m].is_some()).collect()
}

// DAGSchedulerSuite "Fail the job if a barrier ResultTask failed": the map stage done, the
// barrier result stage's first task killed: the job aborts (a barrier result stage may have
// committed output, so it is not retried), with the 4.0.0 jar's message.
#[test]
fn fail_the_job_if_a_barrier_result_task_failed() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 1));
    t.complete(0, vec![End::Map("hostA"), End::Map("hostA")]);
    assert_eq!(registered(&t, 0), vec![0, 1]);
    t.end(1, 0, killed());
    assert!(
        t.failure(0).starts_with(
            "Job aborted due to stage failure: Could not recover from a failed barrier ResultStage. Most recent failure reason: Stage failed because barrier task ResultTask(1, 0) finished unsuccessfully.\nTaskKilled (test)"
        ),
        "{}",
        t.failure(0)
    );
    assert_eq!(
        t.logged("INFO DAGScheduler: Marking ResultStage 1 (count at X.scala:9) as failed due to a barrier task failed."),
        1
    );
    // The stage is marked failed twice: by the barrier failure, then by the job's abort
    // (cancelRunningIndependentStages: its failedAttemptIds is not empty), as a real Spark 4.0
    // run's event log shows.
    assert_eq!(t.failed_stages(), vec![1, 1]);
    t.resubmit();
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "Barrier task failures from the same stage attempt don't trigger multiple
// stage retries": both tasks of the barrier map stage's attempt killed; one resubmission, two
// attempts in all.
#[test]
fn barrier_task_failures_from_the_same_stage_attempt_dont_trigger_multiple_stage_retries() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 0));
    assert_eq!(t.submitted_attempts(0), 1);
    t.end(0, 0, killed());
    assert_eq!(t.failed_stages(), vec![0]);
    t.end(0, 1, killed());
    assert_eq!(t.resubmits_scheduled, 1);
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
    assert_eq!(
        t.logged("INFO DAGScheduler: Resubmitting ShuffleMapStage 0 (map at X.scala:0) due to barrier stage failure."),
        1
    );
}

// DAGSchedulerSuite "Barrier task failures from a previous stage attempt don't trigger stage
// retry": the second task of attempt 0 fails after attempt 1 was submitted: ignored.
#[test]
fn barrier_task_failures_from_a_previous_stage_attempt_dont_trigger_stage_retry() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 0));
    t.end(0, 0, killed());
    assert_eq!(t.failed_stages(), vec![0]);
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
    t.end(0, 1, killed());
    t.resubmit();
    assert_eq!(t.submitted_attempts(0), 2);
    assert_eq!(
        t.logged("INFO DAGScheduler: Ignoring task failure from ShuffleMapTask(0, 1) as it's from ShuffleMapStage 0 attempt 0 and there is a more recent attempt for that stage (attempt 1) running"),
        1
    );
}

// DAGSchedulerSuite "Retry all the tasks on a resubmitted attempt of a barrier stage caused by
// FetchFailure": a fetch failure from the barrier map stage's first output unregisters both
// outputs; its next attempt runs both tasks, then the result stage finishes.
#[test]
fn retry_all_the_tasks_on_a_resubmitted_attempt_of_a_barrier_stage_caused_by_fetch_failure() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 0));
    t.complete(0, vec![End::Map("hostA"), End::Map("hostB")]);
    assert_eq!(registered(&t, 0), vec![0, 1]);
    t.end(
        1,
        0,
        End::Fetch {
            from: Some("hostA"),
            shuffle: 0,
            map_index: 0,
            reduce: 0,
        },
    );
    assert!(registered(&t, 0).is_empty());
    t.resubmit();
    assert_eq!(t.partitions(t.find(0, 1)), vec![0, 1]);
    t.complete_map_stage(0, 1, &[]);
    t.complete_next_result(1, 1, |j| j);
    t.assert_data_structures_empty();
}

// DAGSchedulerSuite "Retry all the tasks on a resubmitted attempt of a barrier stage caused by
// TaskKilled": the first map task done, the second killed: the first's output is unregistered
// too, and the next attempt runs both.
#[test]
fn retry_all_the_tasks_on_a_resubmitted_attempt_of_a_barrier_stage_caused_by_task_killed() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 0));
    t.complete(0, vec![End::Map("hostA")]);
    assert_eq!(registered(&t, 0), vec![0]);
    t.end(0, 1, killed());
    assert!(registered(&t, 0).is_empty());
    t.resubmit();
    assert_eq!(t.partitions(t.find(0, 1)), vec![0, 1]);
    t.complete_map_stage(0, 1, &[]);
    t.complete_next_result(1, 0, |j| j);
    t.assert_data_structures_empty();
}

// A barrier map stage failing spark.stage.maxConsecutiveAttempts (4) times aborts with the
// 4.0.0 jar's text (a space, not the fetch path's line break, before the reason).
#[test]
fn a_barrier_stage_failing_max_consecutive_attempts_times_aborts() {
    let mut t = Suite::new();
    t.submit(barrier(shuffle_job(2, 2), 0));
    for attempt in 0..4 {
        let i = t.find(0, attempt);
        t.end(i, 0, killed());
        t.resubmit();
    }
    assert!(
        t.failure(0).starts_with(
            "Job aborted due to stage failure: ShuffleMapStage 0 (map at X.scala:0) has failed the maximum allowable number of times: 4. Most recent failure reason: Stage failed because barrier task ShuffleMapTask(0, 0) finished unsuccessfully.\nTaskKilled (test)"
        ),
        "{}",
        t.failure(0)
    );
    t.assert_data_structures_empty();
}

// DAGScheduler.handleJobSubmitted's barrier slot check (BarrierStageOnSubmittedSuite "submit a
// barrier stage that requires more slots than current total", with
// spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures = 2): a barrier stage of 2 tasks
// with 1 slot is submitted again after the interval, twice, and the third failed check fails
// the job with `BarrierJobSlotsNumberCheckFailed` (no JobStart posted); once 2 slots exist a
// waiting job's stages are created.
#[test]
fn a_barrier_stage_without_enough_slots_is_checked_again_then_fails_the_job() {
    use crate::world::config::BarrierCheckSettings;
    let check = BarrierCheckSettings {
        interval_ms: 15_000,
        max_failures: 2,
    };
    let mut t = Suite::new();
    t.s = std::mem::replace(
        &mut t.s,
        DriverScheduler::new(
            ProcessLog::new("driver", t.store.clone()),
            ContextBus::disabled(),
            4,
            1,
        ),
    )
    .with_barrier_check(check, false);
    let out =
        t.s.submit_job_in_pool(barrier(shuffle_job(2, 2), 0), waiter(), None, 1);
    assert!(
        matches!(
            out[..],
            [SchedulerEvent::JobSubmittedAfter {
                job_id: 0,
                ms: 15_000
            }]
        ),
        "{out:?}"
    );
    let again = t.s.resubmit_barrier_job(0, 1);
    assert!(matches!(
        again[..],
        [SchedulerEvent::JobSubmittedAfter { .. }]
    ));
    let last = t.s.resubmit_barrier_job(0, 1);
    match &last[..] {
        [
            SchedulerEvent::JobEnded {
                job_id: 0,
                result: JobResult::NotCreated { class, message },
                ..
            },
        ] => {
            assert_eq!(
                class,
                "org.apache.spark.scheduler.BarrierJobSlotsNumberCheckFailed"
            );
            assert!(message.starts_with("[SPARK-24819]: Barrier execution mode does not allow"));
        }
        other => panic!("{other:?}"),
    }
    for left in [2, 1, 0] {
        assert_eq!(
            t.logged(&format!("WARN DAGScheduler: Barrier stage in job 0 requires 2 slots, but only 1 are available. Will retry up to {left} more times")),
            1
        );
    }
    assert!(t.rec.events.borrow().is_empty(), "no JobStart");
    // Job 1: the first check fails, the next finds the slots and creates the stages.
    t.s.submit_job_in_pool(barrier(shuffle_job(2, 2), 0), waiter(), None, 1);
    let created = t.s.resubmit_barrier_job(1, 2);
    assert!(created.iter().any(|e| matches!(e, SchedulerEvent::Revive)));
    assert_eq!(t.s.dag.active_jobs(), 1);
}
