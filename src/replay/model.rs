//! The application an event log records, as typed data: jobs in submission order with the
//! driver's time between them, stages with their parents, each task's recorded duration split as
//! Spark's UI splits it (run, deserialise, result serialisation, GC, getting result, scheduler
//! delay: `AppStatusUtils.schedulerDelay`), input and shuffle sizes, failed attempts, executors,
//! and the original configuration (`SparkListenerEnvironmentUpdate`). Built by folding the
//! events `JsonProtocol` writes, one line at a time (`ReplayListenerBus.replay`).

use super::events::{self, Event};
use super::executor_loss::{self, LostAttempt, LostAttemptReplay, LostExecutor, RecordedLoss};
use super::reader::{self, LogFiles};
use super::slot_release::{self, AttemptKey, SlotUse};
use crate::error::UserError;
use sparkyard_messages::task::ContainerEnd;
use std::collections::{BTreeMap, BTreeSet};

/// One recorded attempt of a task that did not finish its index (a `TaskFailedReason` the
/// replay runs again: a task that threw or was killed, or one lost with its executor whose
/// index ran again, `executor_loss`; fetch-failed attempts are the cluster's doing, which a
/// scenario's faults replay, so they are only counted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedAttempt {
    pub attempt: u32,
    /// The stage attempt it ran in (`Stage Attempt ID`): a retried stage numbers its tasks'
    /// attempts from 0 again.
    pub stage_attempt: u32,
    /// The executor it ran on and when it launched (epoch ms), as `TaskRecord`'s: an attempt
    /// that threw may be its executor's first task, which paid the executor's warm-up.
    pub executor_id: u32,
    pub launch_ms: u64,
    /// Launch to its end (for a killed attempt: to the kill, a lower bound of its work).
    pub duration_ms: u64,
    /// A speculative copy (`TaskInfo.speculative`).
    pub speculative: bool,
    pub end: AttemptEnd,
    /// How long before its recorded end its slot took the next task (`slot_release`).
    pub released_early_ms: u64,
}

/// How a [`FailedAttempt`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptEnd {
    /// `ExceptionFailure`: the task threw.
    Threw { class: String, description: String },
    /// `TaskKilled(reason)`: the scheduler killed it, e.g. the loser of a speculative race
    /// ("another attempt succeeded", TaskSetManager.handleSuccessfulTask).
    Killed { reason: String },
    /// `ExecutorLostFailure`: its executor was lost while it ran, and its index ran again
    /// (`executor_loss`). `dies`: the executor's end, on the one attempt per lost executor
    /// whose end the replayed executor dies at; the others run until it does.
    LostWithExecutor { dies: Option<ContainerEnd> },
    /// `Success` in a later stage attempt than the index's first success: a resubmitted stage
    /// ran the index again (its map output was lost). The simulated DAGScheduler decides on
    /// its own whether to run it again; when it does, in that stage attempt, it takes this
    /// run's recorded time.
    Rerun,
}

/// One task index of a stage: the attempt that finished it, as recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskRecord {
    /// Launch to finish (`TaskInfo.duration`).
    pub duration_ms: u64,
    pub run_ms: u64,
    pub deserialize_ms: u64,
    pub result_serialization_ms: u64,
    pub gc_ms: u64,
    pub getting_result_ms: u64,
    /// The serialized result's size (`Result Size`; 0: none recorded).
    pub result_bytes: u64,
    /// `AppStatusUtils.schedulerDelay`: what the duration holds beyond the other parts.
    pub scheduler_delay_ms: u64,
    pub input_bytes: u64,
    pub shuffle_read_bytes: u64,
    pub shuffle_write_bytes: u64,
    /// `Input Metrics.Records Read`, `Shuffle Read Metrics.Total Records Read` and
    /// `Shuffle Write Metrics.Shuffle Records Written`.
    pub input_records: u64,
    pub shuffle_read_records: u64,
    pub shuffle_write_records: u64,
    pub executor_id: u32,
    pub launch_ms: u64,
    /// The level it was launched at (`TaskInfo.taskLocality`): with `executor_id`'s host, what
    /// the log says of the task's preferred locations (`replay::locality`).
    pub locality: events::RecordedLocality,
    /// The attempt number of this record (the successful attempt's, if any), and the stage
    /// attempt it ran in.
    pub attempt: u32,
    pub stage_attempt: u32,
    /// The record is a speculative copy's (it won its race).
    pub speculative: bool,
    /// Whether the index ever succeeded (a failed job leaves some that did not).
    pub succeeded: bool,
    /// Its attempts that threw or were killed, in attempt order (before or, for a speculative
    /// race's loser, after the successful one); `None` for the usual case (no memory).
    pub failures: Option<Box<[FailedAttempt]>>,
    /// How long before its recorded finish its executor slot took the next task: the
    /// TaskResultGetter's time after the driver had freed the slot (`slot_release`).
    pub released_early_ms: u64,
}

/// One attempt of a task index in the order the replay runs them (see
/// [`TaskRecord::replayed_attempts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayedAttempt<'a> {
    /// A recorded attempt that threw (thrown again) or was killed (run to its kill time).
    Failed(&'a FailedAttempt),
    /// The index's successful attempt, `TaskRecord::duration_ms`.
    Success,
}

impl TaskRecord {
    /// The attempts the replay runs for this index, in (stage attempt, attempt) order: the
    /// recorded attempts that threw or were killed, with the successful one among them by its
    /// stage attempt and attempt number (a speculative race's killed copy comes after it). An
    /// index that never succeeded has no `Success` (its job aborted after the last attempt
    /// threw).
    pub fn replayed_attempts(&self) -> impl Iterator<Item = ReplayedAttempt<'_>> {
        let failed = self.failures.as_deref().unwrap_or(&[]);
        let own = (self.stage_attempt, self.attempt);
        let before = failed
            .iter()
            .take_while(|f| !self.succeeded || (f.stage_attempt, f.attempt) <= own)
            .count();
        let (head, tail) = failed.split_at(before);
        let success = self.succeeded.then_some(ReplayedAttempt::Success);
        head.iter()
            .map(ReplayedAttempt::Failed)
            .chain(success)
            .chain(tail.iter().map(ReplayedAttempt::Failed))
    }

    /// Every attempt of the index the log shows launched: the record's and its failed ones'.
    pub fn attempts_ran(&self) -> impl Iterator<Item = AttemptRan> + '_ {
        let failed = self.failures.iter().flat_map(|f| f.iter());
        let of = |executor_id, launch_ms, duration_ms| AttemptRan {
            executor_id,
            launch_ms,
            end_ms: launch_ms + duration_ms,
        };
        std::iter::once(of(self.executor_id, self.launch_ms, self.duration_ms))
            .chain(failed.map(move |f| of(f.executor_id, f.launch_ms, f.duration_ms)))
            .filter(|a| a.launch_ms > 0)
    }

    /// The index's time on an idle cluster (infinitely many executors) as the replay runs its
    /// attempts when no copy is speculated: an attempt that threw is followed by its retry, so
    /// its time is on the path (TaskSetManager.handleFailedTask re-queues the index and the
    /// retry launches at the next offer, which an idle cluster makes at once); the first attempt
    /// that does not throw ends the index: the successful one after its recorded duration, a
    /// killed one after its recorded time to the kill, which the replay runs as the index's
    /// work (for a speculative race the copy won, that is the race's recorded length: the
    /// original's launch to its kill when the copy succeeded). An attempt lost with its
    /// executor is followed by its retry too; fetch-failed attempts are not replayed (a
    /// scenario's faults are), so not counted. An index whose
    /// every attempt threw takes them all (the job aborts after the last).
    pub fn path_ms(&self) -> u64 {
        let mut threw = 0;
        for a in self.replayed_attempts() {
            match a {
                // A lost attempt is followed by its retry as a thrown one is.
                ReplayedAttempt::Failed(f)
                    if matches!(
                        f.end,
                        AttemptEnd::Threw { .. } | AttemptEnd::LostWithExecutor { .. }
                    ) =>
                {
                    threw += f.duration_ms
                }
                ReplayedAttempt::Failed(f) => return threw + f.duration_ms,
                ReplayedAttempt::Success => return threw + self.duration_ms,
            }
        }
        threw
    }
}

/// A recorded attempt that ran (see [`TaskRecord::attempts_ran`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttemptRan {
    pub executor_id: u32,
    /// Epoch ms.
    pub launch_ms: u64,
    pub end_ms: u64,
}

/// A stage that ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    pub stage_id: u32,
    pub name: String,
    /// Stage ids of the parents that ran in the same job (skipped parents are dropped).
    pub parents: Vec<u32>,
    /// Every parent id the log names (shuffle dependencies, skipped or not).
    pub shuffle_deps: Vec<u32>,
    pub shuffle_map: bool,
    pub submitted_ms: Option<u64>,
    pub completed_ms: Option<u64>,
    /// Stage attempts (more than one after a fetch failure).
    pub attempts: u32,
    /// One record per partition, index order.
    pub tasks: Vec<TaskRecord>,
    /// The work Spark ran again in this stage to recover from lost executors and outputs.
    pub recoveries: Recoveries,
    /// The persisted RDDs a task of this stage reads its partition from, or computes and
    /// stores it in, in the order `DAGScheduler.getPreferredLocsInternal` asks for their
    /// blocks ([`persisted_rdds`]); empty when the stage passes through none.
    pub cached_rdds: Vec<u32>,
    /// A barrier stage (`Stage.isBarrier`: one of its RDDs is a barrier RDD, the RDD Info's
    /// `Barrier`).
    pub barrier: bool,
}

/// Work run again to recover from lost executors and shuffle outputs (Spark's recovery paths:
/// DAGScheduler `resubmitFailedStages` / `submitMissingTasks` of a new stage attempt,
/// `handleResubmittedFailure`, TaskSetManager `executorLost`), recorded or simulated alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Recoveries {
    /// Stage attempts after the first: a stage resubmitted after a fetch failure, or a map
    /// stage resubmitted because outputs went missing while it ran.
    pub stage_resubmissions: u64,
    /// The partitions those attempts computed again (`Number of Tasks` of each new attempt:
    /// `makeNewStageAttempt(partitionsToCompute.size)`).
    pub resubmitted_tasks: u64,
    /// Finished map tasks whose output went with their executor, re-run (`Resubmitted`).
    pub map_outputs_resubmitted: u64,
    /// Running tasks that failed with their lost executor (`ExecutorLostFailure`), re-run.
    pub tasks_lost_with_executors: u64,
    /// Executors lost while the job ran (recorded: removed while it ran, from
    /// `SparkListenerExecutorRemoved`; simulated: containers lost, each executor once).
    pub executors_lost: u64,
}

impl Recoveries {
    pub fn add(&mut self, o: &Recoveries) {
        self.stage_resubmissions += o.stage_resubmissions;
        self.resubmitted_tasks += o.resubmitted_tasks;
        self.map_outputs_resubmitted += o.map_outputs_resubmitted;
        self.tasks_lost_with_executors += o.tasks_lost_with_executors;
        self.executors_lost += o.executors_lost;
    }

    /// Nothing was run again.
    pub fn is_empty(&self) -> bool {
        *self == Recoveries::default()
    }
}

impl Stage {
    /// A stage of one attempt with these tasks, no parents, not yet submitted (tests build
    /// theirs from it).
    #[cfg(test)]
    pub fn of_tasks(stage_id: u32, name: &str, tasks: Vec<TaskRecord>) -> Stage {
        Stage {
            stage_id,
            name: name.into(),
            parents: Vec::new(),
            shuffle_deps: Vec::new(),
            shuffle_map: false,
            submitted_ms: None,
            completed_ms: None,
            attempts: 1,
            tasks,
            recoveries: Recoveries::default(),
            cached_rdds: Vec::new(),
            barrier: false,
        }
    }

    pub fn input_bytes(&self) -> u64 {
        self.tasks.iter().map(|t| t.input_bytes).sum()
    }
    pub fn shuffle_read_bytes(&self) -> u64 {
        self.tasks.iter().map(|t| t.shuffle_read_bytes).sum()
    }
    pub fn shuffle_write_bytes(&self) -> u64 {
        self.tasks.iter().map(|t| t.shuffle_write_bytes).sum()
    }
    pub fn input_records(&self) -> u64 {
        self.tasks.iter().map(|t| t.input_records).sum()
    }
    pub fn shuffle_write_records(&self) -> u64 {
        self.tasks.iter().map(|t| t.shuffle_write_records).sum()
    }
    /// The longest task index, its failed and killed attempts included as the replay runs
    /// them ([`TaskRecord::path_ms`]): what the stage takes on infinitely many executors. A
    /// stage that ended with an index unfinished (its job aborted, or the application stopped)
    /// ended when it did, no later than its recorded span: an attempt that ran on after the
    /// abort (killed then, or lost with its executor later, as a failed barrier stage's other
    /// task) is on no path of the stage.
    pub fn longest_task_ms(&self) -> u64 {
        let longest = self
            .tasks
            .iter()
            .map(TaskRecord::path_ms)
            .max()
            .unwrap_or(0);
        let aborted = self.tasks.iter().any(|t| !t.succeeded);
        match (aborted, self.submitted_ms, self.completed_ms) {
            (true, Some(submitted), Some(completed)) => {
                longest.min(completed.saturating_sub(submitted))
            }
            _ => longest,
        }
    }
}

/// A job, with the stages it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub job_id: u32,
    pub submitted_ms: u64,
    pub completed_ms: u64,
    /// `None`: JobSucceeded; else JobFailed's message.
    pub failure: Option<String>,
    /// Driver time before the job: from the previous job's end (or the application's start)
    /// to this job's submission, 0 when jobs overlapped.
    pub driver_ms_before: u64,
    /// When the driver submitted it, relative to what came before it (see [`Submission`]).
    pub submission: Submission,
    /// Its `spark.scheduler.pool` local property, if it set one.
    pub pool: Option<String>,
    pub stages: Vec<Stage>,
}

/// What a job's submission followed in the log: the driver thread that submitted it reacted to
/// the latest of the earlier jobs' submissions and ends before it (ties go to an end: a
/// job submitted when the previous one ended waited for it). Jobs submitted while others ran
/// (from a thread pool) follow a submission, and run concurrently, as Spark's DAGScheduler runs
/// them (`spark.scheduler.mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Submission {
    /// `delay_ms` after the application's start (the first job, or jobs before any ended).
    AfterStart { delay_ms: u64 },
    /// `delay_ms` after job `job` (an index into `Application::jobs`) ended.
    AfterEnd { job: usize, delay_ms: u64 },
    /// `delay_ms` after job `job` was submitted, while it still ran.
    AfterSubmission { job: usize, delay_ms: u64 },
}

impl Job {
    /// The reason the recorded user code cancelled the job (`SparkContext.cancelJob`,
    /// `cancelJobGroup`): its `JobFailed` carries `SparkCoreErrors.sparkJobCancelled`'s
    /// message, `[SPARK_JOB_CANCELLED] Job N cancelled <reason> SQLSTATE: XXKDA` in Spark 4
    /// (`Job N cancelled <reason>` before). `None` for any other end, and for a job cancelled
    /// because the SparkContext was shut down (the application's stop, not a cancel).
    pub fn cancelled_reason(&self) -> Option<&str> {
        let m = self.failure.as_deref()?;
        let head = format!("Job {} cancelled ", self.job_id);
        let rest = &m[m.find(&head)? + head.len()..];
        let reason = rest.split(" SQLSTATE: ").next().unwrap_or(rest).trim_end();
        (!reason.contains("SparkContext was shut down")).then_some(reason)
    }

    pub fn duration_ms(&self) -> u64 {
        self.completed_ms.saturating_sub(self.submitted_ms)
    }

    /// What the job ran again, over its stages, with the executors removed while it ran.
    pub fn recoveries(&self, executors: &[ExecutorSpan]) -> Recoveries {
        let mut r = Recoveries::default();
        for s in &self.stages {
            r.add(&s.recoveries);
        }
        // An executor the application released (dynamic allocation's idle timeout) was not
        // lost: only removals for a loss count.
        r.executors_lost = executors
            .iter()
            .filter(|e| e.removal() == Some(Removal::Lost))
            .filter_map(|e| e.removed_ms)
            .filter(|t| (self.submitted_ms..=self.completed_ms).contains(t))
            .count() as u64;
        r
    }
}

/// An executor as the log saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorSpan {
    pub executor_id: String,
    pub host: String,
    pub cores: u32,
    pub added_ms: u64,
    pub removed_ms: Option<u64>,
    pub removed_reason: Option<String>,
    /// Custom resources it found, by name, with how many addresses (GPUs and the like).
    pub resources: BTreeMap<String, u32>,
    /// Its resource profile (0: the application's default one).
    pub resource_profile_id: u32,
}

/// Why the log's executor went away, from `SparkListenerExecutorRemoved`'s reason (the
/// `ExecutorLossReason` the driver recorded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Removal {
    /// The application released it: YarnAllocator's "Container ... exited from explicit
    /// termination request." for a container it had released (dynamic allocation's idle
    /// timeout, a kill), `ExecutorKilled`'s "Executor killed by driver.", or
    /// `ExecutorDecommission`. Not a loss: nothing had to be recovered.
    Released,
    /// The application was shutting down ("exited after Application shutdown").
    Shutdown,
    /// Anything else: the executor was lost (its node, a crash, a heartbeat timeout).
    Lost,
}

/// How many of `executors` were registered after each addition or removal (epoch ms, count),
/// in time order; at one instant removals come before additions, so a count is one that
/// really was alive at once.
pub fn executors_running<'a>(
    executors: impl IntoIterator<Item = &'a ExecutorSpan>,
) -> Vec<(u64, u32)> {
    let mut changes: Vec<(u64, i32)> = Vec::new();
    for e in executors {
        changes.push((e.added_ms, 1));
        changes.extend(e.removed_ms.map(|r| (r, -1)));
    }
    changes.sort_unstable();
    let mut n = 0i32;
    changes
        .into_iter()
        .map(|(t, d)| {
            n += d;
            (t, n.max(0) as u32)
        })
        .collect()
}

impl ExecutorSpan {
    /// What its removal was, `None` while it ran to the end.
    pub fn removal(&self) -> Option<Removal> {
        self.removed_ms?;
        let reason = self.removed_reason.as_deref().unwrap_or_default();
        Some(removal_of(reason))
    }

    /// The driver's own executor of a `local[*]` application (`SparkContext.DRIVER_IDENTIFIER`).
    pub fn is_driver(&self) -> bool {
        self.executor_id == "driver" || self.executor_id == "<driver>"
    }
}

/// Classifies a removal reason (the texts of Spark 2.x to 4.0: YarnAllocator
/// `processCompletedContainers`, `ExecutorKilled`, `ExecutorDecommission`).
pub fn removal_of(reason: &str) -> Removal {
    const RELEASED: &[&str] = &[
        "exited from explicit termination request",
        "Executor killed by driver",
        "Executor decommission",
        "executor decommission",
    ];
    if RELEASED.iter().any(|r| reason.contains(r)) {
        Removal::Released
    } else if reason.contains("exited after Application shutdown") {
        Removal::Shutdown
    } else {
        Removal::Lost
    }
}

/// Failures other than a task throwing, counted by `Task End Reason`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailureCounts {
    pub exception: u64,
    pub executor_lost: u64,
    pub fetch_failed: u64,
    pub killed: u64,
    pub other: u64,
    /// Speculative copies launched (TaskEnd with `"Speculative": true`, whatever their end).
    pub speculative: u64,
    /// Of those, the ones that finished their index first.
    pub speculative_won: u64,
    /// Stage attempts beyond the first (fetch-failure recoveries).
    pub stage_retries: u64,
}

/// The resources and settings the application ran with (EnvironmentUpdate).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OriginalConfig {
    pub master: String,
    pub executor_instances: Option<u32>,
    /// A `local-cluster[N,C,M]` master's N: its workers, so the executors it could run (under
    /// dynamic allocation not Spark's initial target, which `executor_instances` is not set
    /// from then).
    pub local_cluster_workers: Option<u32>,
    pub executor_cores: Option<u32>,
    pub executor_memory: Option<String>,
    pub driver_memory: Option<String>,
    pub dynamic_allocation: bool,
    pub task_cpus: u32,
    pub speculation: bool,
    pub locality_wait: Option<String>,
    /// `spark.submit.deployMode` (client or cluster), if recorded.
    pub deploy_mode: Option<String>,
    /// `spark.scheduler.mode` (FIFO or FAIR), if recorded.
    pub scheduler_mode: Option<String>,
    /// Every Spark property, by key.
    pub properties: BTreeMap<String, String>,
    /// The YARN settings of the driver's Hadoop configuration (`Hadoop Properties`, keys
    /// starting `yarn.` and the rack mapping's `net.topology.`): the cluster's limits and
    /// topology as its client config records them.
    pub hadoop_yarn: BTreeMap<String, String>,
}

impl OriginalConfig {
    /// The log ran on YARN (`yarn`, or Spark 1.x/2.x's `yarn-client` / `yarn-cluster`); an
    /// unrecorded master counts as YARN (what the replay runs).
    pub fn is_yarn(&self) -> bool {
        self.master.is_empty() || self.master.starts_with("yarn")
    }

    /// Its scheduler backend waited for executors before the first job: YARN's and
    /// Kubernetes' make `spark.scheduler.minRegisteredResourcesRatio` 0.8 when unset
    /// (YarnSchedulerBackend, KubernetesClusterSchedulerBackend in the 4.0.0 jars), the others
    /// leave CoarseGrainedSchedulerBackend's 0.
    pub fn backend_waits_for_executors(&self) -> bool {
        self.is_yarn() || self.master.starts_with("k8s://")
    }

    /// The log's master runs tasks in the driver (`local`, `local[N]`, `local[*]`).
    pub fn is_local(&self) -> bool {
        self.master == "local" || self.master.starts_with("local[")
    }
}

/// What the reader could not use as Spark wrote it, or took in place of something missing:
/// each says so in the report, never silently.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ReadNote {
    /// `SparkListenerJobEnd`s for jobs whose `SparkListenerJobStart` the log lacks (a job that
    /// failed before its start was posted, or an event the listener bus dropped): not replayed.
    JobEndWithoutStart { jobs: Vec<u32> },
    /// Stages that ran but belong to no job of the log (their job's start is missing): not
    /// replayed.
    StagesWithoutJob { stages: Vec<u32>, tasks: u64 },
    /// Stages that ran with no `SparkListenerTaskEnd` for some of their tasks: each such task
    /// is replayed as the stage's recorded span (submission to completion).
    TasksWithoutEvents {
        stage: u32,
        tasks: u64,
        each_ms: u64,
    },
}

/// A stage-level resource profile the log records (`SparkListenerResourceProfileAdded`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProfileRecord {
    pub id: u32,
    pub executor_cores: Option<u32>,
    pub executor_memory_mb: Option<u64>,
    pub task_cpus: Option<f64>,
    /// Custom executor resources (GPUs, FPGAs...), name and amount per executor.
    pub custom: BTreeMap<String, f64>,
}

/// What was skipped while reading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Events sparkyard does not know (newer Spark versions, other listeners), by name.
    pub unknown: BTreeMap<String, u64>,
    /// Spark's own events of older releases (the blacklisting events), by name.
    pub older: BTreeMap<String, u64>,
    /// Known events that do not change the replay (SQL, block updates...).
    pub ignored: u64,
}

/// The recorded application.
#[derive(Clone, Debug, PartialEq)]
pub struct Application {
    pub app_id: String,
    pub app_name: String,
    /// The user it ran as (ApplicationStart's `User`; empty when the log has none).
    pub user: String,
    pub spark_version: String,
    pub start_ms: u64,
    pub end_ms: u64,
    /// Driver time after the last job's end until the application ended.
    pub driver_ms_after: u64,
    pub config: OriginalConfig,
    pub jobs: Vec<Job>,
    pub executors: Vec<ExecutorSpan>,
    pub failures: FailureCounts,
    pub skipped: Skipped,
    pub events_read: u64,
    /// The stage-level resource profiles besides the default (id 0), in id order.
    pub profiles: Vec<ProfileRecord>,
    /// What the reader could not use or took instead.
    pub notes: Vec<ReadNote>,
    /// The executors the log lost (not released by the application), in removal order, and
    /// which of them the replay loses too (`executor_loss`).
    pub executor_losses: Vec<RecordedLoss>,
}

impl Application {
    pub fn duration_ms(&self) -> u64 {
        self.end_ms.saturating_sub(self.start_ms)
    }

    /// Its last job, when it failed (`JobFailed`): the recorded attempt ended with it, its
    /// driver's `main` getting the job's `SparkException` with nothing after it, or the stop
    /// that failed it ([`Self::stopped_while_running`]). (A job that failed before others did
    /// not end it: `ReplayedJob::failure_caught`.)
    pub fn failed_last_job(&self) -> Option<&Job> {
        self.jobs.last().filter(|j| j.failure.is_some())
    }

    /// Whether it was stopped while its last job ran: its `ApplicationEnd` came before that
    /// job's `JobEnd`, a `JobFailed` (a `yarn application -kill`, or a SIGTERM to the driver:
    /// its shutdown hook stopped the SparkContext, which failed the job).
    pub fn stopped_while_running(&self) -> bool {
        self.failed_last_job()
            .is_some_and(|j| j.completed_ms > self.end_ms)
    }
    pub fn task_count(&self) -> u64 {
        self.stages().map(|s| s.tasks.len() as u64).sum()
    }
    pub fn stages(&self) -> impl Iterator<Item = &Stage> {
        self.jobs.iter().flat_map(|j| j.stages.iter())
    }
}

/// Reads the log at `path` (file or rolling directory) into the application it records.
pub fn load(path: &std::path::Path) -> Result<Application, UserError> {
    let files = reader::locate(path)?;
    read(&files)
}

/// Reads located log files into the application.
pub fn read(files: &LogFiles) -> Result<Application, UserError> {
    let mut b = Builder::default();
    reader::for_each_line(files, |line| b.line(line))?;
    b.finish(&files.label)
}

/// Reads one log already opened (decompressed or not, see [`reader::decoder`]); the fuzz
/// target's entry.
pub fn from_reader(label: &str, input: impl std::io::BufRead) -> Result<Application, UserError> {
    let mut b = Builder::default();
    let mut number = 0;
    let path = std::path::Path::new(label);
    reader::lines_of(input, path, &mut number, &mut |line| b.line(line))?;
    b.finish(label)
}

#[derive(Default)]
struct StageBuild {
    /// `SparkListenerTaskEnd`s read for it.
    task_ends: u64,
    name: String,
    num_tasks: u32,
    parents: Vec<u32>,
    shuffle_map: bool,
    submitted_ms: Option<u64>,
    completed_ms: Option<u64>,
    attempts: u32,
    ran: bool,
    tasks: Vec<TaskRecord>,
    failures: BTreeMap<u32, Vec<FailedAttempt>>,
    recoveries: Recoveries,
    cached_rdds: Vec<u32>,
    barrier: bool,
}

/// An attempt lost with its executor, until the log is read (`Builder::replay_executor_losses`).
struct PendingLoss {
    stage_id: u32,
    index: u32,
    attempt: FailedAttempt,
}

struct JobBuild {
    job_id: u32,
    pool: Option<String>,
    submitted_ms: u64,
    completed_ms: Option<u64>,
    failure: Option<String>,
    stage_ids: Vec<u32>,
}

#[derive(Default)]
struct Builder {
    events: u64,
    saw_log_start: bool,
    spark_version: String,
    app_id: Option<String>,
    app_name: String,
    user: String,
    start_ms: Option<u64>,
    end_ms: Option<u64>,
    properties: BTreeMap<String, String>,
    stages: BTreeMap<u32, StageBuild>,
    jobs: Vec<JobBuild>,
    executors: Vec<ExecutorSpan>,
    failures: FailureCounts,
    skipped: Skipped,
    /// The Spark version a log without `SparkListenerLogStart` names on its classpath.
    classpath_version: Option<String>,
    hadoop_yarn: BTreeMap<String, String>,
    profiles: Vec<ProfileRecord>,
    job_ends_without_start: Vec<u32>,
    task_ends: u64,
    notes: Vec<ReadNote>,
    /// Each attempt's slot, for `slot_release`.
    slot_uses: Vec<SlotUse>,
    /// Attempts lost with their executor (`ExecutorLostFailure`), for `executor_loss`.
    lost_attempts: Vec<PendingLoss>,
}

/// The Spark version in a classpath entry: `spark-assembly-1.2.0-hadoop2.4.0.jar` (Spark 1.x)
/// or `spark-core_2.10-1.6.3.jar`.
fn classpath_spark_version(entry: &str) -> Option<String> {
    let name = entry.rsplit('/').next()?;
    let rest = name.strip_prefix("spark-assembly-").or_else(|| {
        name.strip_prefix("spark-core_")
            .and_then(|r| r.split_once('-').map(|x| x.1))
    })?;
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let version = version.trim_end_matches('.');
    (!version.is_empty()).then(|| version.to_string())
}

/// The major version of a `Spark Version` string ("3.1.1.119" -> 3).
fn major_version(v: &str) -> Option<u32> {
    v.split('.').next()?.trim().parse().ok()
}

/// The refusal of a log Spark 1.x wrote.
fn spark_1_refusal(version: Option<&str>) -> String {
    let who = match version {
        Some(v) => format!("Spark {v}"),
        None => "a Spark older than 1.3".into(),
    };
    format!(
        "this log was written by {who} (it has no SparkListenerLogStart, which Spark 1.3 and later write first): sparkyard replays the event logs of Spark 2.x, 3.x and 4.x; Spark 1.x events lack fields a replay needs (a job's Completion Time, executors' start-up); re-run the application on Spark 2.0 or later to replay it"
    )
}

impl Builder {
    /// One line of the log: parsed, then folded in; errors name the file and line.
    fn line(&mut self, line: reader::Line<'_>) -> Result<(), UserError> {
        let at = |m: String| {
            UserError::file(
                line.file.display().to_string(),
                format!("line {}: {m}", line.number),
            )
        };
        let event = match events::parse(line.text) {
            Ok(e) => e,
            Err(e) if line.unterminated => {
                return Err(at(format!(
                    "the log is truncated: its last line is cut off ({e}); was the application still running, or the copy incomplete?"
                )));
            }
            Err(_) if self.events > 0 && !self.saw_log_start => {
                return Err(at(spark_1_refusal(self.classpath_version.as_deref())));
            }
            Err(e) if line.number == 1 => {
                return Err(at(format!(
                    "not a Spark event log: {e} (Spark writes one JSON object per line with an \"Event\" field, starting with SparkListenerLogStart)"
                )));
            }
            Err(e) => return Err(at(e)),
        };
        self.events += 1;
        let first = self.events == 1;
        self.apply(event).map_err(|e| {
            // Spark 1.x wrote no LogStart and events this reader refuses: name the version.
            if !self.saw_log_start && !first {
                at(spark_1_refusal(self.classpath_version.as_deref()))
            } else {
                at(e)
            }
        })
    }

    fn apply(&mut self, e: Event) -> Result<(), String> {
        match e {
            Event::LogStart { spark_version } => {
                if major_version(&spark_version).is_some_and(|m| m < 2) {
                    return Err(format!(
                        "this log was written by Spark {spark_version}: sparkyard replays the event logs of Spark 2.x, 3.x and 4.x; Spark 1.x events lack fields a replay needs; re-run the application on Spark 2.0 or later to replay it"
                    ));
                }
                self.saw_log_start = true;
                self.spark_version = spark_version;
            }
            Event::ApplicationStart(a) => {
                self.app_id = Some(a.app_id.unwrap_or_default());
                self.app_name = a.app_name;
                self.user = a.user;
                self.start_ms = Some(a.timestamp);
            }
            Event::ApplicationEnd { timestamp } => self.end_ms = Some(timestamp),
            Event::EnvironmentUpdate(env) => {
                let env = *env;
                self.properties.extend(env.spark_properties);
                let yarn = env.hadoop_properties.into_iter();
                self.hadoop_yarn.extend(
                    yarn.filter(|(k, _)| k.starts_with("yarn.") || k.starts_with("net.topology.")),
                );
                if self.classpath_version.is_none() {
                    self.classpath_version = env
                        .classpath_entries
                        .keys()
                        .find_map(|k| classpath_spark_version(k));
                }
            }
            Event::ResourceProfileAdded(p) => self.profiles.push(profile_record(&p)),
            Event::ExecutorAdded(x) => self.executors.push(ExecutorSpan {
                executor_id: x.executor_id,
                host: x.info.host,
                cores: x.info.total_cores,
                added_ms: x.timestamp,
                removed_ms: None,
                removed_reason: None,
                resources: x
                    .info
                    .resources
                    .iter()
                    .map(|(k, r)| (k.clone(), r.addresses.len() as u32))
                    .collect(),
                resource_profile_id: x.info.resource_profile_id,
            }),
            Event::ExecutorRemoved(x) => {
                if let Some(s) = self
                    .executors
                    .iter_mut()
                    .rev()
                    .find(|s| s.executor_id == x.executor_id)
                {
                    s.removed_ms = Some(x.timestamp);
                    s.removed_reason = Some(x.removed_reason);
                }
            }
            Event::JobStart(j) => {
                for s in &j.stage_infos {
                    self.declare_stage(s);
                }
                self.jobs.push(JobBuild {
                    job_id: j.job_id,
                    pool: j.properties.get("spark.scheduler.pool").cloned(),
                    submitted_ms: j.submission_time.unwrap_or(0),
                    completed_ms: None,
                    failure: None,
                    stage_ids: j.stage_infos.iter().map(|s| s.stage_id).collect(),
                });
            }
            Event::JobEnd(j) => {
                let job = self.jobs.iter_mut().rev().find(|b| b.job_id == j.job_id);
                let Some(job) = job else {
                    // DAGScheduler posts a JobEnd for a job whose start never reached the log
                    // (it failed before JobStart was posted, or the event-log queue dropped
                    // the start): nothing of it can be replayed; the report says so.
                    self.job_ends_without_start.push(j.job_id);
                    return Ok(());
                };
                let Some(completed) = j.completion_time else {
                    return Err(format!(
                        "SparkListenerJobEnd of job {} has no Completion Time (Spark 1.3 and later write one)",
                        j.job_id
                    ));
                };
                job.completed_ms = Some(completed);
                job.failure = j.job_result.failure();
            }
            Event::StageSubmitted(s) => {
                let b = self.declare_stage(&s);
                b.ran = true;
                b.attempts += 1;
                if b.attempts > 1 {
                    b.recoveries.stage_resubmissions += 1;
                    b.recoveries.resubmitted_tasks += u64::from(s.number_of_tasks);
                    self.failures.stage_retries += 1;
                }
                let b = self.stages.get_mut(&s.stage_id).expect("declared");
                b.submitted_ms = b.submitted_ms.or(s.submission_time);
            }
            Event::StageCompleted(s) => {
                let b = self.declare_stage(&s);
                b.completed_ms = s.completion_time.or(b.completed_ms);
            }
            Event::TaskEnd(t) => self.task_end(*t)?,
            Event::Ignored => self.skipped.ignored += 1,
            Event::Older(name) => *self.skipped.older.entry(name).or_default() += 1,
            Event::Unknown(name) => *self.skipped.unknown.entry(name).or_default() += 1,
        }
        Ok(())
    }

    fn declare_stage(&mut self, s: &events::StageInfo) -> &mut StageBuild {
        let b = self.stages.entry(s.stage_id).or_default();
        if b.name.is_empty() {
            b.name = s.stage_name.clone();
            b.num_tasks = s.number_of_tasks;
            b.parents = s.parent_ids.clone();
        }
        if b.cached_rdds.is_empty() {
            b.cached_rdds = persisted_rdds(&s.rdd_info);
        }
        b.barrier |= s.rdd_info.iter().any(|r| r.barrier);
        b
    }

    fn task_end(&mut self, t: events::TaskEnd) -> Result<(), String> {
        self.task_ends += 1;
        let stage = self.stages.entry(t.stage_id).or_default();
        stage.ran = true;
        stage.task_ends += 1;
        stage.shuffle_map |= t.task_type == "ShuffleMapTask";
        let i = &t.task_info;
        let duration_ms = i.finish_time.saturating_sub(i.launch_time);
        let stage_attempt = t.stage_attempt_id;
        // This end as one of its index's recorded attempts (not the index's record).
        let attempt_of = |end| FailedAttempt {
            attempt: i.attempt,
            stage_attempt,
            executor_id: i.executor_id.parse().unwrap_or(0),
            launch_ms: i.launch_time,
            duration_ms,
            speculative: i.speculative,
            end,
            released_early_ms: 0,
        };
        let index = i.partition() as usize;
        if index >= 10_000_000 {
            return Err(format!("task index {index} is out of range"));
        }
        let reason = t.task_end_reason.reason.as_str();
        let succeeded = reason == "Success";
        self.slot_uses.extend(slot_use(&t));
        if i.speculative {
            self.failures.speculative += 1;
            self.failures.speculative_won += u64::from(succeeded);
        }
        let r = &t.task_end_reason;
        let end = match reason {
            "Success" => None,
            "ExceptionFailure" => {
                self.failures.exception += 1;
                Some(AttemptEnd::Threw {
                    class: r
                        .class_name
                        .clone()
                        .unwrap_or_else(|| "java.lang.Exception".into()),
                    description: r.description.clone().unwrap_or_default(),
                })
            }
            "TaskKilled" => {
                self.failures.killed += 1;
                Some(AttemptEnd::Killed {
                    reason: r.kill_reason.clone().unwrap_or_default(),
                })
            }
            "ExecutorLostFailure" => {
                self.failures.executor_lost += 1;
                stage.recoveries.tasks_lost_with_executors += 1;
                // Replayed if its index ran again (`executor_loss`, once the log is read);
                // until then it fills its index's record as any unreplayed end does.
                self.lost_attempts.push(PendingLoss {
                    stage_id: t.stage_id,
                    index: i.partition(),
                    attempt: attempt_of(AttemptEnd::LostWithExecutor { dies: None }),
                });
                None
            }
            // TaskSetManager.executorLost: a finished map output lost with its executor.
            "Resubmitted" => {
                self.failures.other += 1;
                stage.recoveries.map_outputs_resubmitted += 1;
                None
            }
            "FetchFailed" => {
                self.failures.fetch_failed += 1;
                None
            }
            _ => {
                self.failures.other += 1;
                None
            }
        };
        if let Some(end) = end {
            let failed = attempt_of(end);
            stage
                .failures
                .entry(i.partition())
                .or_default()
                .push(failed);
            // Replayed as an attempt of its own; the index's record stays the successful
            // attempt's (if none succeeded, the last of these: see `stage`).
            return Ok(());
        }
        if stage.tasks.len() <= index {
            stage.tasks.resize(index + 1, TaskRecord::default());
        }
        let slot = &mut stage.tasks[index];
        // The successful attempt is the one replayed; a failure only fills an empty slot. The
        // first success stays: a later one is a resubmitted stage's run of the index (its map
        // output lost with an executor, a fetch failure), which the simulated DAGScheduler
        // does again on its own, in its stage attempt for this run's time.
        if slot.succeeded {
            if stage_attempt > slot.stage_attempt {
                let rerun = attempt_of(AttemptEnd::Rerun);
                stage.failures.entry(i.partition()).or_default().push(rerun);
            }
            return Ok(());
        }
        let m = t.task_metrics.unwrap_or_default();
        let getting_result_ms = match i.getting_result_time {
            0 => 0,
            g => i.finish_time.saturating_sub(g),
        };
        let accounted = m.executor_run_time
            + m.executor_deserialize_time
            + m.result_serialization_time
            + getting_result_ms;
        *slot = TaskRecord {
            duration_ms,
            run_ms: m.executor_run_time,
            deserialize_ms: m.executor_deserialize_time,
            result_serialization_ms: m.result_serialization_time,
            gc_ms: m.jvm_gc_time,
            getting_result_ms,
            result_bytes: m.result_size,
            scheduler_delay_ms: duration_ms.saturating_sub(accounted),
            input_bytes: m.input_metrics.bytes_read,
            shuffle_read_bytes: m.shuffle_read_metrics.remote_bytes_read
                + m.shuffle_read_metrics.local_bytes_read,
            shuffle_write_bytes: m.shuffle_write_metrics.shuffle_bytes_written,
            input_records: m.input_metrics.records_read,
            shuffle_read_records: m.shuffle_read_metrics.total_records_read,
            shuffle_write_records: m.shuffle_write_metrics.shuffle_records_written,
            executor_id: i.executor_id.parse().unwrap_or(0),
            launch_ms: i.launch_time,
            locality: i.locality,
            attempt: i.attempt,
            stage_attempt: t.stage_attempt_id,
            speculative: i.speculative,
            succeeded,
            failures: None,
            released_early_ms: 0,
        };
        Ok(())
    }

    fn finish(mut self, label: &str) -> Result<Application, UserError> {
        let err = |m: &str| UserError::file(label, m.to_string());
        if self.events == 0 {
            return Err(err("the event log is empty"));
        }
        if !self.saw_log_start && self.app_id.is_none() {
            return Err(err(
                "not a Spark event log: no SparkListenerLogStart or SparkListenerApplicationStart event",
            ));
        }
        let Some(start_ms) = self.start_ms else {
            return Err(err(
                "the log has no SparkListenerApplicationStart event: it is truncated at its start or not an application's log",
            ));
        };
        let Some(end_ms) = self.end_ms else {
            return Err(err(
                "the log has no SparkListenerApplicationEnd event: the application never ended (it was killed or is still running) or the log is truncated; sparkyard replays only complete applications",
            ));
        };
        if !self.saw_log_start {
            return Err(err(&spark_1_refusal(self.classpath_version.as_deref())));
        }
        if self.task_ends == 0 && self.stages.values().any(|s| s.ran) {
            let stages = self.stages.values().filter(|s| s.ran).count();
            return Err(err(&format!(
                "the log records {stages} stage(s) that ran but no SparkListenerTaskEnd event: a replay runs each task for its recorded time, and none is recorded (was the log filtered, or written with the task events dropped?)"
            )));
        }
        let executor_losses = self.replay_executor_losses(start_ms);
        let mut jobs = Vec::with_capacity(self.jobs.len());
        let mut previous_end = start_ms;
        for j in std::mem::take(&mut self.jobs) {
            let Some(completed_ms) = j.completed_ms else {
                return Err(err(&format!(
                    "job {} has no SparkListenerJobEnd although the application ended: the log is incomplete",
                    j.job_id
                )));
            };
            let stages = self.take_stages(&j.stage_ids);
            let driver_ms_before = j.submitted_ms.saturating_sub(previous_end);
            previous_end = previous_end.max(completed_ms);
            let submission = submission_of(&jobs, j.submitted_ms, start_ms);
            jobs.push(Job {
                job_id: j.job_id,
                submitted_ms: j.submitted_ms,
                completed_ms,
                failure: j.failure,
                driver_ms_before,
                submission,
                pool: j.pool,
                stages,
            });
        }
        let mut notes = std::mem::take(&mut self.notes);
        if !self.job_ends_without_start.is_empty() {
            notes.push(ReadNote::JobEndWithoutStart {
                jobs: std::mem::take(&mut self.job_ends_without_start),
            });
        }
        let orphans: Vec<(u32, u64)> = self
            .stages
            .iter()
            .filter(|(_, s)| s.ran && s.task_ends > 0)
            .map(|(id, s)| (*id, s.task_ends))
            .collect();
        if !orphans.is_empty() {
            notes.push(ReadNote::StagesWithoutJob {
                stages: orphans.iter().map(|o| o.0).collect(),
                tasks: orphans.iter().map(|o| o.1).sum(),
            });
        }
        let config = original_config(&self.properties, self.hadoop_yarn);
        let slots = |e: u32| executor_slots(&self.executors, &self.profiles, config.task_cpus, e);
        let early = slot_release::released_early(&self.slot_uses, &slots);
        fill_released_early(&mut jobs, &early);
        Ok(Application {
            app_id: self.app_id.unwrap_or_default(),
            app_name: self.app_name,
            user: self.user,
            spark_version: self.spark_version,
            start_ms,
            end_ms,
            driver_ms_after: end_ms.saturating_sub(previous_end),
            config,
            jobs,
            executors: self.executors,
            failures: self.failures,
            skipped: self.skipped,
            events_read: self.events,
            profiles: self.profiles,
            notes,
            executor_losses,
        })
    }

    /// Puts the lost attempts the replay runs among their indexes' failed attempts
    /// (`executor_loss::replayed`: those whose index ran again after them, on executors the log
    /// lost); returns every recorded loss with what the replay does with it.
    fn replay_executor_losses(&mut self, start_ms: u64) -> Vec<RecordedLoss> {
        let pending = std::mem::take(&mut self.lost_attempts);
        let last_launch_ms = self.last_launch_ms();
        let attempts: Vec<LostAttempt> = pending
            .iter()
            .map(|p| self.lost_attempt(p, last_launch_ms))
            .collect();
        let lost: Vec<LostExecutor<'_>> = self
            .executors
            .iter()
            .filter(|e| e.removal() == Some(Removal::Lost))
            .map(|e| LostExecutor {
                executor_id: &e.executor_id,
                removed_ms: e.removed_ms.unwrap_or(start_ms),
                reason: e.removed_reason.as_deref().unwrap_or_default(),
            })
            .collect();
        let (replays, losses) = executor_loss::replayed(&attempts, &lost, start_ms);
        for (mut p, replay) in pending.into_iter().zip(replays) {
            let dies = match replay {
                LostAttemptReplay::NotReplayed => continue,
                LostAttemptReplay::RunsUntilDeath => None,
                LostAttemptReplay::EndsExecutor(end) => Some(end),
            };
            p.attempt.end = AttemptEnd::LostWithExecutor { dies };
            if let Some(s) = self.stages.get_mut(&p.stage_id) {
                s.failures.entry(p.index).or_default().push(p.attempt);
            }
        }
        losses
    }

    /// The last launch of any recorded attempt, epoch ms.
    fn last_launch_ms(&self) -> u64 {
        let stages = self.stages.values();
        let records = stages
            .clone()
            .flat_map(|s| s.tasks.iter().map(|t| t.launch_ms));
        let failed = stages.flat_map(|s| s.failures.values().flatten().map(|f| f.launch_ms));
        records.chain(failed).max().unwrap_or(0)
    }

    /// A lost attempt as `executor_loss` sees it: whether its index ran again after it (a
    /// later attempt that succeeded or failed, in this or a later stage attempt), or the
    /// application launched a task after its executor was removed.
    fn lost_attempt(&self, p: &PendingLoss, last_launch_ms: u64) -> LostAttempt {
        let stage = self.stages.get(&p.stage_id);
        let later = |launch_ms: u64| launch_ms > p.attempt.launch_ms;
        let succeeded_later = stage
            .and_then(|s| s.tasks.get(p.index as usize))
            .is_some_and(|t| t.succeeded && later(t.launch_ms));
        let failed_later = stage
            .and_then(|s| s.failures.get(&p.index))
            .is_some_and(|f| f.iter().any(|f| later(f.launch_ms)));
        let executor = p.attempt.executor_id.to_string();
        let went_on = self
            .executors
            .iter()
            .find(|e| e.executor_id == executor)
            .and_then(|e| e.removed_ms)
            .is_some_and(|removed| removed < last_launch_ms);
        LostAttempt {
            stage_id: p.stage_id,
            index: p.index,
            attempt: p.attempt.attempt,
            executor_id: p.attempt.executor_id,
            launch_ms: p.attempt.launch_ms,
            ran_again: succeeded_later || failed_later || went_on,
        }
    }

    /// The stages of a job that ran, in id order (parents are created, so numbered, first);
    /// a stage an earlier job already ran is that job's.
    fn take_stages(&mut self, ids: &[u32]) -> Vec<Stage> {
        let mut ids: Vec<u32> = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let ran: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|id| self.stages.get(id).is_some_and(|s| s.ran))
            .collect();
        let mut out = Vec::new();
        for id in &ran {
            let Some(b) = self.stages.remove(id) else {
                continue;
            };
            let (s, note) = stage(*id, b, &ran);
            self.notes.extend(note);
            out.push(s);
        }
        out
    }
}

/// What job `submitted_ms`'s submission followed (see [`Submission`]): the latest earlier
/// submission or end at or before it, an end on a tie.
fn submission_of(earlier: &[Job], submitted_ms: u64, start_ms: u64) -> Submission {
    let mut best = Submission::AfterStart {
        delay_ms: submitted_ms.saturating_sub(start_ms),
    };
    let mut at = start_ms;
    for (k, j) in earlier.iter().enumerate() {
        if j.submitted_ms <= submitted_ms && j.submitted_ms > at {
            at = j.submitted_ms;
            best = Submission::AfterSubmission {
                job: k,
                delay_ms: submitted_ms - j.submitted_ms,
            };
        }
        if j.completed_ms <= submitted_ms && j.completed_ms >= at {
            at = j.completed_ms;
            best = Submission::AfterEnd {
                job: k,
                delay_ms: submitted_ms - j.completed_ms,
            };
        }
    }
    best
}

/// The slot a TaskEnd's attempt held: every attempt that launched but a `Resubmitted` end's,
/// which repeats an earlier success's info.
fn slot_use(t: &events::TaskEnd) -> Option<SlotUse> {
    let i = &t.task_info;
    (t.task_end_reason.reason != "Resubmitted" && i.launch_time > 0).then(|| SlotUse {
        executor_id: i.executor_id.parse().unwrap_or(0),
        launch_ms: i.launch_time,
        finish_ms: i.finish_time,
        attempt: AttemptKey {
            stage_id: t.stage_id,
            index: i.partition(),
            attempt: i.attempt,
            launch_ms: i.launch_time,
        },
    })
}

/// The task slots of the log's executor `id` (its cores over its profile's `spark.task.cpus`),
/// if the log added it.
fn executor_slots(
    executors: &[ExecutorSpan],
    profiles: &[ProfileRecord],
    default_task_cpus: u32,
    id: u32,
) -> Option<u32> {
    let e = executors
        .iter()
        .find(|e| e.executor_id.parse::<u32>().unwrap_or(0) == id)?;
    let task_cpus = profiles
        .iter()
        .find(|p| p.id == e.resource_profile_id)
        .and_then(|p| p.task_cpus)
        .unwrap_or(f64::from(default_task_cpus.max(1)));
    Some((f64::from(e.cores) / task_cpus.max(1.0)).floor() as u32)
}

/// Writes each attempt's [`slot_release::released_early`] figure into its record.
fn fill_released_early(jobs: &mut [Job], early: &BTreeMap<AttemptKey, u64>) {
    for s in jobs.iter_mut().flat_map(|j| j.stages.iter_mut()) {
        let stage_id = s.stage_id;
        for (index, t) in s.tasks.iter_mut().enumerate() {
            let of = |attempt, launch_ms| {
                let key = AttemptKey {
                    stage_id,
                    index: index as u32,
                    attempt,
                    launch_ms,
                };
                early.get(&key).copied().unwrap_or(0)
            };
            t.released_early_ms = of(t.attempt, t.launch_ms);
            for f in t.failures.iter_mut().flat_map(|b| b.iter_mut()) {
                f.released_early_ms = of(f.attempt, f.launch_ms);
            }
        }
    }
}

/// The stage of the application; a stage that ran without any `SparkListenerTaskEnd` gets
/// its recorded span as each task's time, and a note says so.
fn stage(stage_id: u32, mut b: StageBuild, ran_in_job: &[u32]) -> (Stage, Option<ReadNote>) {
    let n = (b.num_tasks as usize).max(b.tasks.len());
    b.tasks.resize(n, TaskRecord::default());
    let mut note = None;
    if b.task_ends == 0 && n > 0 {
        let span = match (b.submitted_ms, b.completed_ms) {
            (Some(s), Some(c)) => c.saturating_sub(s),
            _ => 0,
        };
        for t in &mut b.tasks {
            t.duration_ms = span;
            t.run_ms = span;
            t.succeeded = true;
        }
        note = Some(ReadNote::TasksWithoutEvents {
            stage: stage_id,
            tasks: n as u64,
            each_ms: span,
        });
    }
    for (index, mut fails) in std::mem::take(&mut b.failures) {
        // Recorded in the order they ended (a speculative race's loser after its winner).
        fails.sort_by_key(|f| (f.stage_attempt, f.attempt));
        if let Some(t) = b.tasks.get_mut(index as usize) {
            if !t.succeeded && t.duration_ms == 0 {
                // Every recorded attempt threw: the last one is the index's own record.
                if let Some(last) = fails.last() {
                    t.duration_ms = last.duration_ms;
                }
            }
            t.failures = Some(fails.into_boxed_slice());
        }
    }
    let stage = Stage {
        stage_id,
        name: b.name,
        parents: b
            .parents
            .iter()
            .copied()
            .filter(|p| ran_in_job.contains(p))
            .collect(),
        shuffle_deps: b.parents,
        shuffle_map: b.shuffle_map,
        submitted_ms: b.submitted_ms,
        completed_ms: b.completed_ms,
        attempts: b.attempts.max(1),
        tasks: b.tasks,
        recoveries: b.recoveries,
        cached_rdds: b.cached_rdds,
        barrier: b.barrier,
    };
    (stage, note)
}

/// The persisted RDDs whose block of partition `p` a task of the stage over partition `p`
/// would read: `DAGScheduler.getPreferredLocsInternal` asks `getCacheLocs` of the stage's RDD,
/// then walks its narrow dependencies depth first, and the first RDD with a located block is
/// the task's preference (`ExecutorCacheTaskLocation`). The walk follows a parent only when
/// it has as many partitions as its child (a `OneToOneDependency`: partition `p` reads the
/// parent's `p`); a parent outside the stage's RDDs is across a shuffle. `rdd_info` lists the
/// stage's RDD first (`StageInfo.fromStage`).
pub(crate) fn persisted_rdds(rdd_info: &[events::RddInfo]) -> Vec<u32> {
    let mut found = Vec::new();
    let Some(top) = rdd_info.first() else {
        return found;
    };
    let mut visited = BTreeSet::new();
    let mut stack = vec![top];
    while let Some(rdd) = stack.pop() {
        if !visited.insert(rdd.rdd_id) {
            continue;
        }
        if rdd.storage_level.persisted() {
            found.push(rdd.rdd_id);
        }
        let parents = rdd.parent_ids.iter().rev().filter_map(|id| {
            rdd_info
                .iter()
                .find(|r| r.rdd_id == *id && r.num_partitions == rdd.num_partitions)
        });
        stack.extend(parents);
    }
    found
}

/// The profile as the report shows it.
fn profile_record(p: &events::ResourceProfile) -> ProfileRecord {
    const BUILT_IN: &[&str] = &[
        "cores",
        "memory",
        "offHeap",
        "memoryOverhead",
        "pyspark.memory",
    ];
    ProfileRecord {
        id: p.id,
        executor_cores: p.executor.get("cores").map(|r| r.amount as u32),
        executor_memory_mb: p.executor.get("memory").map(|r| r.amount as u64),
        task_cpus: p.task.get("cpus").map(|r| r.amount),
        custom: p
            .executor
            .iter()
            .filter(|(k, _)| !BUILT_IN.contains(&k.as_str()))
            .map(|(k, r)| (k.clone(), r.amount))
            .collect(),
    }
}

/// `local-cluster[N, C, M]`: N workers of C cores and M MB (what pyspark's tests run on).
fn local_cluster(master: &str) -> Option<(u32, u32, u64)> {
    let inner = master.strip_prefix("local-cluster[")?.strip_suffix(']')?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    match parts[..] {
        [n, c, m] => Some((n.parse().ok()?, c.parse().ok()?, m.parse().ok()?)),
        _ => None,
    }
}

fn original_config(
    p: &BTreeMap<String, String>,
    hadoop_yarn: BTreeMap<String, String>,
) -> OriginalConfig {
    let get = |k: &str| p.get(k).cloned();
    let flag = |k: &str| get(k).is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let master = get("spark.master").unwrap_or_default();
    let mut c = OriginalConfig {
        executor_instances: get("spark.executor.instances").and_then(|v| v.trim().parse().ok()),
        executor_cores: get("spark.executor.cores").and_then(|v| v.trim().parse().ok()),
        executor_memory: get("spark.executor.memory"),
        driver_memory: get("spark.driver.memory"),
        dynamic_allocation: flag("spark.dynamicAllocation.enabled"),
        task_cpus: get("spark.task.cpus")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(1),
        speculation: flag("spark.speculation"),
        locality_wait: get("spark.locality.wait"),
        deploy_mode: get("spark.submit.deployMode"),
        scheduler_mode: get("spark.scheduler.mode"),
        properties: p.clone(),
        hadoop_yarn,
        master: master.clone(),
        local_cluster_workers: None,
    };
    if let Some((n, cores, mb)) = local_cluster(&master) {
        c.local_cluster_workers = Some(n);
        // Its N workers ran N executors, unless dynamic allocation chose how many: then Spark's
        // initial target comes from the properties alone (`Utils.
        // getDynamicAllocationInitialExecutors`; standalone sets no spark.executor.instances).
        if !c.dynamic_allocation {
            c.executor_instances = c.executor_instances.or(Some(n));
        }
        c.executor_cores = c.executor_cores.or(Some(cores));
        c.executor_memory = c.executor_memory.or(Some(format!("{mb}m")));
    }
    c
}

#[cfg(test)]
mod tests {

    fn rdd(id: u32, parents: &[u32], partitions: u32, persisted: bool) -> events::RddInfo {
        events::RddInfo {
            rdd_id: id,
            parent_ids: parents.to_vec(),
            storage_level: events::StorageLevel {
                use_disk: persisted,
                ..Default::default()
            },
            num_partitions: partitions,
            barrier: false,
        }
    }

    /// DAGScheduler.getPreferredLocsInternal's walk: the stage's RDD first, then its narrow
    /// dependencies depth first (a zip's first parent's lineage before its second); only the
    /// persisted RDDs are named; a parent with another partition count (a coalesce: partition
    /// p reads other partitions) or outside the stage (across a shuffle) is not followed.
    #[test]
    fn persisted_rdds_follow_spark_s_preferred_location_walk() {
        let infos = [
            rdd(9, &[7, 8], 4, true),
            rdd(7, &[3], 4, false),
            rdd(3, &[], 4, true),
            rdd(8, &[2, 1], 4, true),
            rdd(2, &[], 8, true),
        ];
        // 1 is across a shuffle (not in the stage's RDD Info); 2 has 8 partitions.
        assert_eq!(persisted_rdds(&infos), [9, 3, 8]);
        assert!(persisted_rdds(&[rdd(1, &[], 2, false)]).is_empty());
        assert!(persisted_rdds(&[]).is_empty());
    }
    use super::*;

    #[test]
    fn a_spark_1_classpath_names_its_version() {
        let v = |e: &str| classpath_spark_version(e);
        assert_eq!(
            v("/opt/spark/lib/spark-assembly-1.2.0-hadoop2.4.0.jar").as_deref(),
            Some("1.2.0")
        );
        assert_eq!(
            v("/opt/spark/jars/spark-core_2.10-1.6.3.jar").as_deref(),
            Some("1.6.3")
        );
        assert_eq!(v("/opt/hadoop/hadoop-common-2.4.0.jar"), None);
        assert_eq!(major_version("3.1.1.119"), Some(3));
        assert_eq!(major_version("1.6.3"), Some(1));
    }

    #[test]
    fn removals_the_application_asked_for_are_not_losses() {
        // YarnAllocator.processCompletedContainers: a container the allocator released ends
        // "exited from explicit termination request"; ExecutorKilled is "Executor killed by
        // driver."; anything else is a loss.
        let released = "Container container_e18_1628109047826_1317105_01_000002 exited from explicit termination request.";
        assert_eq!(removal_of(released), Removal::Released);
        assert_eq!(removal_of("Executor killed by driver."), Removal::Released);
        assert_eq!(
            removal_of("Executor for container c exited after Application shutdown."),
            Removal::Shutdown
        );
        let lost = "Container marked as failed: container_1 on host: h. Exit status: 137.";
        assert_eq!(removal_of(lost), Removal::Lost);
        assert_eq!(
            removal_of("Executor heartbeat timed out after 120000 ms"),
            Removal::Lost
        );
    }

    #[test]
    fn a_jobs_submission_follows_the_latest_start_end_or_submission_before_it() {
        let job = |submitted_ms, completed_ms| Job {
            job_id: 0,
            submitted_ms,
            completed_ms,
            failure: None,
            driver_ms_before: 0,
            submission: Submission::AfterStart { delay_ms: 0 },
            pool: None,
            stages: Vec::new(),
        };
        assert_eq!(
            submission_of(&[], 1_500, 1_000),
            Submission::AfterStart { delay_ms: 500 }
        );
        // Job 0 ran 2000-5000: a job at 5100 waited for it; one at 2015 ran beside it.
        let earlier = [job(2_000, 5_000)];
        assert_eq!(
            submission_of(&earlier, 5_100, 1_000),
            Submission::AfterEnd {
                job: 0,
                delay_ms: 100
            }
        );
        assert_eq!(
            submission_of(&earlier, 2_015, 1_000),
            Submission::AfterSubmission {
                job: 0,
                delay_ms: 15
            }
        );
        // A tie goes to the end: submitted when job 0 ended.
        assert_eq!(
            submission_of(&earlier, 5_000, 1_000),
            Submission::AfterEnd {
                job: 0,
                delay_ms: 0
            }
        );
    }

    #[test]
    fn local_cluster_masters_give_the_executors() {
        assert_eq!(local_cluster("local-cluster[2,1,1024]"), Some((2, 1, 1024)));
        assert_eq!(local_cluster("local-cluster[4, 2, 512]"), Some((4, 2, 512)));
        assert_eq!(local_cluster("yarn"), None);
    }

    /// A job the user code cancelled, as Spark 4.0 (a real run's log) and 3.x write it; a job
    /// cancelled by the SparkContext's stop and any other failure are no cancel.
    #[test]
    fn a_cancelled_jobs_reason_is_read_from_its_failure() {
        let job = |failure: &str| Job {
            job_id: 0,
            submitted_ms: 0,
            completed_ms: 0,
            failure: Some(failure.into()),
            driver_ms_before: 0,
            submission: Submission::AfterStart { delay_ms: 0 },
            pool: None,
            stages: Vec::new(),
        };
        let reason = |f: &str| job(f).cancelled_reason().map(str::to_string);
        assert_eq!(
            reason(
                "[SPARK_JOB_CANCELLED] Job 0 cancelled part of cancelled job group g SQLSTATE: XXKDA"
            )
            .as_deref(),
            Some("part of cancelled job group g")
        );
        assert_eq!(
            reason("Job 0 cancelled part of cancelled job group g").as_deref(),
            Some("part of cancelled job group g")
        );
        assert_eq!(
            reason("Job 0 cancelled because SparkContext was shut down"),
            None
        );
        assert_eq!(
            reason("Job aborted due to stage failure: Task 5 in stage 0.0 failed 4 times"),
            None
        );
    }

    /// A local-cluster[N] application's N workers ran its N executors; under dynamic
    /// allocation its initial target is Spark's rule from the properties
    /// (`Utils.getDynamicAllocationInitialExecutors`: standalone sets no
    /// spark.executor.instances), N only the most it could run.
    #[test]
    fn a_local_cluster_sets_the_executors_unless_dynamic_allocation_does() {
        let props = |da: bool| {
            let mut p = BTreeMap::new();
            p.insert(
                "spark.master".to_string(),
                "local-cluster[2,1,1024]".to_string(),
            );
            p.insert(
                "spark.dynamicAllocation.enabled".to_string(),
                da.to_string(),
            );
            p
        };
        let fixed = original_config(&props(false), BTreeMap::new());
        assert_eq!(fixed.executor_instances, Some(2));
        let dynamic = original_config(&props(true), BTreeMap::new());
        assert_eq!(dynamic.executor_instances, None);
        assert_eq!(dynamic.local_cluster_workers, Some(2));
    }
}
