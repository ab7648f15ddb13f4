//! The typed values the scheduler's classes pass each other (Spark: `scheduler/TaskSet.scala`,
//! `TaskInfo.scala`, `WorkerOffer.scala`, `DAGSchedulerEvent.scala`'s `CompletionEvent`): what
//! the DAGScheduler hands the TaskSchedulerImpl (`TaskSet`), what comes back
//! (`CompletionEvent`, a running attempt), and what the DriverEndpoint must do after a call
//! (`SchedulerEvent`). Nothing here imports another scheduler file.

use super::locality::{PreferredLocations, TaskLocality};
use crate::kernel::clock;
use crate::spark_core::executor_resource_info::ExecutorResources;
use crate::spark_core::task_result_getter::{EndKind, TaskEnded};
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::{TaskEndReason, TaskInfo};
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::{
    InputSize, InputSplit, JobResult, ResultSizes, ShuffleWrite, StageTasks, TaskDescription,
    TaskName, TaskResultData,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// A task set's key: (job, stage, stage attempt); FIFO order (`FIFOSchedulingAlgorithm`:
/// priority = job id, then stage id) is the key's order.
pub type TsKey = (u32, u32, u32);

/// An executor's free cores, offered to the task sets.
pub struct WorkerOffer {
    pub executor_id: ExecutorId,
    /// The executor's host, shared (every task launched on it keeps a copy).
    pub host: Rc<str>,
    /// The cores offered: no more than its free custom resources let tasks use.
    pub cores: u32,
    /// Free cores not offered as the custom resources fall short (the executor's free cores
    /// after the round are `cores + held_back`).
    pub held_back: u32,
    /// The executor's custom resources, when its tasks ask for some: a launched task takes
    /// its addresses here (`None` on the common path, where cores alone count).
    pub resources: Option<Rc<RefCell<ExecutorResources>>>,
}

/// The tasks a `resourceOffers` round launched, each boxed as the LaunchTask message carries
/// it, so the description is not copied again on its way to the executor.
#[allow(clippy::vec_box)]
pub type LaunchedTasks = Vec<Box<TaskDescription>>;

/// What the DriverEndpoint must do after a scheduler call.
#[derive(Debug)]
pub enum SchedulerEvent {
    JobEnded {
        waiter: RemoteRef,
        job_id: u32,
        result: JobResult,
    },
    /// A task set has work again (e.g. a retry): offer resources.
    Revive,
    /// `backend.killTask(tid, execId, interruptThread, reason)` from
    /// `TaskSchedulerImpl.killAllTaskAttempts`.
    KillTask {
        task_id: TaskId,
        executor_id: ExecutorId,
        /// `interruptThread`: false for a cancelled stage (no `spark.job.interruptOnCancel`),
        /// true for the loser of a speculative race.
        interrupt_thread: bool,
        reason: String,
    },
    /// `messageScheduler.schedule(ResubmitFailedStages, RESUBMIT_TIMEOUT)`: call
    /// `resubmit_failed_stages` after this long.
    ResubmitFailedStagesAfter { ms: u64 },
    /// `messageScheduler.schedule(JobSubmitted(jobId, ...), timeIntervalNumTasksCheck)`: a
    /// job whose barrier stage found too few slots is submitted again after this long
    /// (`resubmit_barrier_job`).
    JobSubmittedAfter { job_id: u32, ms: u64 },
    /// HealthTracker's `killExecutor` from a call Spark makes later, on another thread
    /// (`DeferredAllocations`; otherwise the client is called at once):
    /// `allocationClient.killExecutors(Seq(exec), adjustTargetNumExecutors = false,
    /// countFailures = false, force = true)`, or with `decommission`
    /// `decommissionExecutor(exec, ExecutorDecommissionInfo(message), false)`.
    KillExcludedExecutor {
        executor_id: ExecutorId,
        decommission: bool,
        /// The decommission's message (empty for a kill).
        message: String,
    },
    /// HealthTracker's `killExecutorsOnExcludedNode`, deferred as `KillExcludedExecutor` is:
    /// `killExecutorsOnHost(host)` or `decommissionExecutorsOnHost(host)`.
    KillExecutorsOnHost { host: String, decommission: bool },
    /// `abortTimer.schedule(createUnschedulableTaskSetAbortTimer(taskSet, index), timeout)`:
    /// call `unschedulable_task_set_timer` after `ms`.
    UnschedulableAbortAfter { ms: u64, key: TsKey, index: u32 },
    /// The HealthTracker excluded a node or let one go: what the backend sends YARN changes.
    ExcludedNodesChanged,
}

/// What a stage attempt's tasks run, as `submitMissingTasks` builds its `Task`s: shared by the
/// stage's attempts (one copy of the per-partition work).
#[derive(Clone, Debug)]
pub struct StageCode {
    /// Each partition's work.
    pub works: StageWorks,
    /// The broadcast holding the attempt's task binary (`taskBinary`).
    pub task_binary: u32,
    /// What each task reads from its input (HadoopRDD's split sizes).
    pub input: InputSize,
    /// The file the input splits come from, if the program names one.
    pub input_path: Option<Arc<str>>,
    /// Each task's serialized result size (the program's, else `TASK_RESULT_BYTES`).
    pub result_bytes: Rc<ResultSizes>,
    /// Barrier tasks (`Task.isBarrier`): launched all at once, and the set a zombie when one
    /// fails.
    pub barrier: bool,
    /// The output a ShuffleMapTask writes (`None` for a ResultTask).
    pub shuffle_write: Option<ShuffleWrite>,
    /// The shuffle the stage reads (its first parent's), if any.
    pub shuffle_read: Option<u32>,
}

/// A stage's per-partition work (`works[p]` is partition `p`'s), shared by the stage and its
/// task sets: the program's `StageTasks`, an `Each` whose works are all equal folded to one
/// work and the count (`StageTasks::folded`), so a launch reads that one work, where reading
/// the next entry of a 1 M-entry array missed the cache on every launch (issue 29's profile: 6 %
/// of the 1 M-task bench).
#[derive(Clone, Debug)]
pub struct StageWorks(Rc<StageTasks>);

impl StageWorks {
    pub fn new(tasks: StageTasks) -> Self {
        StageWorks(Rc::new(tasks.folded()))
    }
}

impl std::ops::Deref for StageWorks {
    type Target = StageTasks;

    fn deref(&self) -> &StageTasks {
        &self.0
    }
}

impl StageCode {
    /// HadoopRDD's `FileSplit` of a partition of a stage reading a named file.
    #[inline]
    pub fn input_split(&self, partition: u32) -> Option<Box<InputSplit>> {
        let path = self.input_path.clone()?;
        Some(Box::new(InputSplit {
            path,
            start: self.input.split_start(partition),
            length: self.input.of_task(partition).0,
        }))
    }
}

/// `TaskSet`: what `DAGScheduler.submitMissingTasks` hands `TaskSchedulerImpl.submitTasks`.
pub struct TaskSet {
    /// `priority` (the job id).
    pub job_id: u32,
    pub stage_id: u32,
    pub stage_attempt: u32,
    /// Each task's partition (a retried attempt runs only the missing ones).
    pub partitions: Vec<u32>,
    /// The MapOutputTracker's epoch (`Task.epoch`).
    pub epoch: u64,
    /// Each task's preferred locations.
    pub prefs: PreferredLocations,
    pub code: StageCode,
}

/// A running attempt (`TaskInfo` and the `Task` it runs): what TaskSchedulerImpl keeps per task
/// id, and what a `CompletionEvent` carries to the DAGScheduler.
#[derive(Clone, Debug)]
pub struct RunningTask {
    /// Its own id (an abort's KillTask names it).
    pub task_id: TaskId,
    pub key: TsKey,
    pub index: u32,
    pub partition: u32,
    pub attempt: u32,
    pub executor_id: ExecutorId,
    pub host: Rc<str>,
    pub launch_ms: u64,
    pub launch_epoch: u64,
    /// The MapOutputTracker's epoch when its task set was created (`Task.epoch`).
    pub map_epoch: u64,
    pub launching: bool,
    /// A speculative copy (`TaskInfo.speculative`).
    pub speculative: bool,
    /// The level it was launched at (`TaskInfo.taskLocality`).
    pub locality: TaskLocality,
}

impl RunningTask {
    /// `task N.A in stage S.A`, as TaskSetManager names the attempt in its lines.
    pub fn name(&self) -> TaskName {
        TaskName {
            index: self.index,
            attempt: self.attempt,
            stage_id: self.key.1,
            stage_attempt_id: self.key.2,
        }
    }

    /// The event log's `TaskInfo`, finished now.
    pub fn task_info(&self, failed: bool, killed: bool) -> TaskInfo {
        TaskInfo {
            task_id: self.task_id.0,
            index: self.index,
            attempt: self.attempt,
            partition_id: self.partition,
            launch_time: self.launch_epoch,
            executor_id: self.executor_id.to_string(),
            host: self.host.to_string(),
            locality: self.locality.as_str(),
            finish_time: clock::now_epoch_ms(),
            failed,
            killed,
            speculative: self.speculative,
        }
    }
}

/// `CompletionEvent(task, reason, result, ...)`: an attempt ended. The DAGScheduler posts its
/// TaskEnd, then handles the completion (`handleTaskCompletion`) when there is one to handle.
#[derive(Debug)]
pub struct CompletionEvent<'a> {
    pub task: &'a RunningTask,
    pub reason: TaskEndReason,
    /// A success's result, when the TaskSetManager counted it (`None`: a copy of a task that
    /// had already succeeded, or one whose set is gone; only the TaskEnd is posted).
    pub result: Option<TaskResultData>,
    /// Whether the attempt ends now (its one record) or ended before.
    pub ending: Ending,
}

/// When a `CompletionEvent`'s attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Now: the record of its end, which the TaskEnd's kind and TaskInfo flags read.
    Now(TaskEnded),
    /// Before: a `Resubmitted` one, which TaskSetManager.executorLost reports with the
    /// attempt's `taskInfos` entry as it ended (its finish time and `failed`/`killed` flags).
    Before(AttemptEnd),
}

impl Ending {
    /// The record of an attempt of `task` ending now with `reason` (anything but
    /// `Resubmitted`, which ends no attempt: [`Ending::Before`]).
    pub fn record(task: &RunningTask, reason: &TaskEndReason) -> TaskEnded {
        let kind = EndKind::of(reason).expect("Resubmitted ends no attempt: Ending::Before");
        TaskEnded {
            task_id: task.task_id,
            executor: task.executor_id,
            attempt: task.attempt,
            kind,
        }
    }

    /// What the suites' `makeCompletionEvent(task, reason, ...)` carries: an attempt ending
    /// now, or a `Resubmitted` one with a TaskInfo that ended now and neither failed nor was
    /// killed.
    #[cfg(test)]
    pub fn of_suite_event(task: &RunningTask, reason: &TaskEndReason) -> Ending {
        match reason {
            TaskEndReason::Resubmitted => Ending::Before(AttemptEnd {
                finish_epoch: clock::now_epoch_ms(),
                failed: false,
                killed: false,
            }),
            _ => Ending::Now(Ending::record(task, reason)),
        }
    }
}

/// How an attempt's TaskInfo ended (`TaskInfo.markFinished`: `finishTime`, FAILED sets
/// `failed`, KILLED `killed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptEnd {
    pub finish_epoch: u64,
    pub failed: bool,
    pub killed: bool,
}

/// `SpeculativeTaskSubmitted(task, taskIndex)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpeculativeTask {
    pub stage_id: u32,
    pub stage_attempt: u32,
    pub index: u32,
    pub partition: u32,
}

#[cfg(test)]
mod stage_works_tests {
    use crate::spark_core::scheduler::events::StageWorks;
    use sparkyard_messages::task::{StageTasks, TaskWork};

    fn sleep(ms: u64) -> TaskWork {
        TaskWork::Sleep {
            duration_ms: ms,
            fail: None,
        }
    }

    /// One shared work or one per partition, a partition reads the work it was given.
    #[test]
    fn stage_works_give_each_partition_its_work() {
        let same = StageWorks::new(vec![sleep(5); 3].into());
        assert!(matches!(*same, StageTasks::Same { len: 3, .. }));
        assert_eq!(same.len(), 3);
        assert_eq!(same[2], sleep(5));
        assert_eq!(same.get(3), None);
        let each = StageWorks::new(vec![sleep(5), sleep(5), sleep(7)].into());
        assert!(matches!(*each, StageTasks::Each(_)));
        assert_eq!((each.len(), &each[1], &each[2]), (3, &sleep(5), &sleep(7)));
        assert_eq!(each.get(3), None);
        let none = StageWorks::new(StageTasks::default());
        assert_eq!((none.len(), none.get(0)), (0, None));
        // A program's stage of equal works is kept as it comes, with no pass over partitions.
        let handed = StageWorks::new(StageTasks::same(sleep(5), 1_000_000));
        assert!(matches!(*handed, StageTasks::Same { len: 1_000_000, .. }));
        assert_eq!(handed[999_999], sleep(5));
    }
}
