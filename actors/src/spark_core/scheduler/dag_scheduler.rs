//! `DAGScheduler` (Spark: `scheduler/DAGScheduler.scala`): jobs, stages and their parents,
//! stage submission (`submitStage`, `submitMissingTasks` -> `taskScheduler.submitTasks`),
//! the events TaskSchedulerImpl posts (`DAGSchedulerEventProcessLoop`: `BeginEvent`,
//! `CompletionEvent` -> `handleTaskCompletion`, `ExecutorAdded`, `ExecutorLost`,
//! `TaskSetFailed`, `SpeculativeTaskSubmitted`), fetch failures and the resubmission of failed
//! stages, executor loss (`removeExecutorAndUnregisterOutputs`), aborts, and the event log's
//! `StageInfo`. It calls TaskSchedulerImpl (`submitTasks`, `killAllTaskAttempts`,
//! `notifyPartitionCompletion`, `getExecutorDecommissionState`) and reads SparkEnv's masters.
//!
//! Spark's loop runs the events on its own thread, after the call that posted them; here each
//! is handled as it is posted (the driver is one thread), which keeps the order of log lines
//! and listener events sparkyard has always printed, except `ExecutorLost`: it waits in
//! `queued` until the DriverEndpoint has posted `ExecutorRemoved`, as Spark's backend posts it
//! before the loop reaches the loss (`run_queued_events`).

use super::barrier_job_check::{
    self, BarrierJobAllocationFailed, BarrierJobChecks, SlotCheckFailed, WaitingBarrierJob,
};
use super::env::DriverEnv;
use super::events::{
    CompletionEvent, Ending, RunningTask, SchedulerEvent, SpeculativeTask, StageCode, StageWorks,
    TaskSet,
};
use super::locality::PreferredLocations;
use super::task_scheduler_impl::{DagEvents, TaskSchedulerImpl};
use crate::kernel::bitset::BitSet;
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::spark_core::executor_env::block_manager_port;
use crate::spark_core::memory_store::{DRIVER_STORE, MemoryStore, TASK_BINARY_PIECE_BYTES};
use crate::world::config::{BarrierCheckSettings, ShuffleSettings};
use crate::world::invariants::TaskOutput;
use crate::world::listener::{ContextBus, TaskEndKind, TaskEvent, TaskEventKind};
use crate::world::observer::Recovery;
use crate::{info, warn};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::scala_mutable_hash_set;
use sparkyard_messages::listener::{ListenerEvent, StageInfo, TaskEndReason};
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, InputSize, JobResult, JobSpec, MapStatusData, ResultSizes,
    ShuffleWrite, ShuffleWriteSize, StageLineage, TaskResultData,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

const DAG: &str = "driver::DAGScheduler";

/// `DAGScheduler.RESUBMIT_TIMEOUT`: the wait before failed stages are resubmitted, so the
/// fetch failures one lost node causes arrive before the resubmission.
pub const RESUBMIT_TIMEOUT_MS: u64 = 200;

pub(super) struct Stage {
    id: u32,
    pub(super) job_id: u32,
    name: String,
    rdd: String,
    is_result: bool,
    pub(super) parents: Vec<u32>,
    /// Each partition's work (shared with the stage's task sets).
    tasks: StageWorks,
    /// The latest attempt's task count (`latestInfo.numTasks`): every partition until the stage
    /// is submitted, then the partitions that attempt computes.
    attempt_tasks: u32,
    /// The shuffle a shuffle-map stage writes.
    shuffle_id: Option<u32>,
    shuffle_write: ShuffleWriteSize,
    /// What each task reads from its input (the event log's input metrics).
    input: InputSize,
    /// The file the input splits come from (HadoopRDD's path), if the program names one.
    input_path: Option<Arc<str>>,
    /// Each task's serialized result size.
    result_bytes: Rc<ResultSizes>,
    /// `isBarrier`: a barrier stage (see `handle_barrier_failure`).
    barrier: bool,
    /// The event log's RDD lineage and call stack, when the program gives them.
    lineage: Option<Box<StageLineage>>,
    /// Each partition's preferred hosts from its input (empty: none).
    preferred: Vec<Vec<Rc<str>>>,
    /// The latest attempt's number and the next one's.
    pub(super) attempt: u32,
    next_attempt: u32,
    submitted_ms: u64,
    submitted_epoch: u64,
    /// The latest attempt has ended (finished or failed).
    done: bool,
    /// An attempt has been submitted.
    submitted: bool,
    /// `failedAttemptIds`: attempts failed by a fetch failure since the last success.
    failed_attempt_ids: BTreeSet<u32>,
    /// `ShuffleMapStage.pendingPartitions`: partitions of the running attempt not yet done.
    pending_partitions: BTreeSet<u32>,
    /// The broadcast holding the latest attempt's task binary (`taskBinary`).
    task_binary: u32,
}

struct ActiveJob {
    waiter: RemoteRef,
    results: JobResults,
}

/// A job's results as `JobWaiter` collects them (`taskSucceeded(index, result)`): which
/// partitions have finished, a bit each (every result task's end reads one), and the results
/// that carry data, put in partition order once, at the job's end. A synthetic task's
/// `TaskResultData::None` is the absence of one. (A slot per partition, 48 bytes, made every
/// task end of a million-task job a cache miss.)
pub(super) struct JobResults {
    partitions: u32,
    finished: BitSet,
    data: Vec<(u32, TaskResultData)>,
}

impl JobResults {
    pub(super) fn new(partitions: u32) -> Self {
        JobResults {
            partitions,
            finished: BitSet::with_capacity(partitions),
            data: Vec::new(),
        }
    }

    /// Records partition `p`'s result; `false` when it already had one (a speculative or
    /// resubmitted copy's late result is ignored).
    pub(super) fn record(&mut self, p: u32, data: TaskResultData) -> bool {
        if !self.finished.insert(p) {
            return false;
        }
        if !matches!(data, TaskResultData::None) {
            self.data.push((p, data));
        }
        true
    }

    pub(super) fn is_complete(&self) -> bool {
        self.finished.len() == self.partitions
    }

    /// The partitions with no result yet, ascending.
    pub(super) fn missing(&self) -> Vec<u32> {
        (0..self.partitions)
            .filter(|p| !self.finished.contains(*p))
            .collect()
    }

    /// Every partition's result in partition order (`None` where a task returned nothing).
    pub(super) fn into_ordered(self) -> Vec<TaskResultData> {
        let mut out = vec![TaskResultData::None; self.partitions as usize];
        for (p, data) in self.data {
            out[p as usize] = data;
        }
        out
    }
}

/// What a DAGScheduler call is given: the task scheduler it calls, SparkEnv's masters, and what
/// the DriverEndpoint must do after.
pub(super) struct Cx<'a> {
    pub(super) ts: &'a mut TaskSchedulerImpl,
    pub(super) env: &'a mut DriverEnv,
    pub(super) out: &'a mut Vec<SchedulerEvent>,
}

/// An event posted to the loop and not handled yet (`ExecutorLost`, see the file's head).
struct QueuedExecutorLost {
    executor: ExecutorId,
    reason: ExecutorLossReason,
}

/// `DAGScheduler` of one SparkContext.
pub struct DAGScheduler {
    log: ProcessLog,
    bus: ContextBus,
    shuffle: ShuffleSettings,
    /// `spark.shuffle.reduceLocality.enabled`.
    reduce_locality: bool,
    next_job: u32,
    next_stage: u32,
    next_shuffle: u32,
    pub(super) stages: BTreeMap<u32, Stage>,
    /// Each job's stage ids, `first..=last` (a job's stages get consecutive ids): the stages
    /// of one job without a walk over every stage of every earlier job.
    pub(super) job_stages: BTreeMap<u32, (u32, u32)>,
    jobs: BTreeMap<u32, ActiveJob>,
    /// `waitingStages`, `runningStages`, `failedStages`.
    pub(super) waiting_stages: BTreeSet<u32>,
    pub(super) running_stages: BTreeSet<u32>,
    pub(super) failed_stages: BTreeSet<u32>,
    /// `executorFailureEpoch` and `shuffleFileLostEpoch`.
    executor_failure_epoch: BTreeMap<ExecutorId, u64>,
    shuffle_file_lost_epoch: BTreeMap<ExecutorId, u64>,
    /// The driver's block manager's memory store (the task binaries' broadcasts).
    memory_store: MemoryStore,
    /// `SparkContext.nextBroadcastId`.
    next_broadcast: u32,
    /// Task outputs won and lost, drained by the DriverEndpoint into the invariant checker.
    pub(super) task_outputs: Vec<TaskOutput>,
    /// Work run again to recover, drained by the DriverEndpoint into the run's observer.
    pub(super) recoveries: Vec<Recovery>,
    /// Events posted and not yet handled.
    queued: Vec<QueuedExecutorLost>,
    /// `barrierJobIdToNumTasksCheckFailures` and the jobs waiting for another slot check.
    barrier_checks: BarrierJobChecks,
    /// `Utils.isDynamicAllocationEnabled`: a barrier stage is refused.
    dynamic_allocation: bool,
}

/// `partitionsToCompute.take(15)` as Scala prints a `Vector`.
fn partitions_preview(partitions: &[u32]) -> String {
    let ids: Vec<String> = partitions.iter().take(15).map(|i| i.to_string()).collect();
    format!("Vector({})", ids.join(", "))
}

impl DAGScheduler {
    pub fn new(log: ProcessLog, bus: ContextBus) -> Self {
        DAGScheduler {
            log,
            bus,
            shuffle: ShuffleSettings::default(),
            reduce_locality: true,
            next_job: 0,
            next_stage: 0,
            next_shuffle: 0,
            stages: BTreeMap::new(),
            job_stages: BTreeMap::new(),
            jobs: BTreeMap::new(),
            waiting_stages: BTreeSet::new(),
            running_stages: BTreeSet::new(),
            failed_stages: BTreeSet::new(),
            executor_failure_epoch: BTreeMap::new(),
            shuffle_file_lost_epoch: BTreeMap::new(),
            memory_store: MemoryStore::new(DRIVER_STORE, 0),
            next_broadcast: 0,
            task_outputs: Vec::new(),
            recoveries: Vec::new(),
            queued: Vec::new(),
            barrier_checks: BarrierJobChecks::default(),
            dynamic_allocation: false,
        }
    }

    /// The barrier slot check's retries, and whether dynamic allocation is on.
    pub fn with_barrier_check(
        mut self,
        settings: BarrierCheckSettings,
        dynamic_allocation: bool,
    ) -> Self {
        self.barrier_checks.settings = settings;
        self.dynamic_allocation = dynamic_allocation;
        self
    }

    /// The driver's storage memory (`UnifiedMemoryManager.getMaxMemory` of its heap).
    pub fn with_driver_memory(mut self, max_memory: u64) -> Self {
        self.memory_store = MemoryStore::new(DRIVER_STORE, max_memory);
        self
    }

    /// The shuffle settings (`spark.shuffle.service.enabled`, ...); Spark's defaults otherwise.
    pub fn with_shuffle(mut self, shuffle: ShuffleSettings) -> Self {
        self.shuffle = shuffle;
        self
    }

    /// `spark.shuffle.reduceLocality.enabled`.
    pub fn with_reduce_locality(mut self, enabled: bool) -> Self {
        self.reduce_locality = enabled;
        self
    }

    /// The event log's `StageInfo` for a stage.
    pub(super) fn stage_info(&self, id: u32, failure_reason: Option<String>) -> StageInfo {
        let s = &self.stages[&id];
        let (rdd_name, rdd_id, rdd_callsite) = parse_rdd(&s.rdd);
        let done = s.done || failure_reason.is_some();
        StageInfo {
            stage_id: id,
            attempt_id: s.attempt,
            name: s.name.clone(),
            num_tasks: s.attempt_tasks,
            num_partitions: s.tasks.len() as u32,
            rdd_id,
            rdd_name,
            rdd_callsite,
            parent_ids: s.parents.clone(),
            submission_time: s.submitted.then_some(s.submitted_epoch),
            completion_time: done.then(clock::now_epoch_ms),
            failure_reason,
            is_shuffle_map: !s.is_result,
            shuffle_dep_id: s.shuffle_id,
            shuffle_write: s.shuffle_write,
            input: s.input,
            lineage: s.lineage.clone(),
            task_locality_preferences: Vec::new(),
            is_barrier: s.barrier,
        }
    }

    /// `Stage.toString`: `ResultStage 1`, `ShuffleMapStage 0`.
    fn stage_kind(&self, id: u32) -> String {
        let s = &self.stages[&id];
        format!(
            "{} {}",
            if s.is_result {
                "ResultStage"
            } else {
                "ShuffleMapStage"
            },
            s.id
        )
    }

    /// `Task.toString`: `ResultTask(1, 0)`, `ShuffleMapTask(0, 3)` (stage, partition).
    fn task_string(&self, stage: u32, partition: u32) -> String {
        let kind = if self.stages[&stage].is_result {
            "ResultTask"
        } else {
            "ShuffleMapTask"
        };
        format!("{kind}({stage}, {partition})")
    }

    /// DAGScheduler's `runningStages` / `waitingStages` / `failedStages` are Scala 2.13
    /// `mutable.HashSet[Stage]`s (the 4.0.0 jar's field types) and `Stage.hashCode` is its id,
    /// so the `running:`/`waiting:`/`failed:` lines print `HashSet(ResultStage 2, ...)` in the
    /// set's bucket order.
    fn stage_set(&self, set: &BTreeSet<u32>) -> String {
        scala_mutable_hash_set(set.iter().map(|s| (*s as i32, self.stage_kind(*s))))
    }

    /// The id the next submitted job gets (`nextJobId`).
    pub fn next_job_id(&self) -> u32 {
        self.next_job
    }

    /// `DAGScheduler.handleJobSubmitted`: stages get ids parents first, each shuffle-map stage
    /// its shuffle (registered with the MapOutputTracker); the final stage is submitted once
    /// its parents are.
    pub fn submit_job(&mut self, job: JobSpec, waiter: RemoteRef, slots: u32, cx: &mut Cx<'_>) {
        let job_id = self.next_job;
        self.next_job += 1;
        self.handle_job_submitted(job_id, job, waiter, slots, cx);
    }

    /// `JobSubmitted` again for a job whose barrier stage found too few slots (`slots`: the
    /// active executors' now).
    pub fn resubmit_barrier_job(&mut self, job_id: u32, slots: u32, cx: &mut Cx<'_>) {
        if let Some(w) = self.barrier_checks.waiting.remove(&job_id) {
            self.handle_job_submitted(job_id, w.job, w.waiter, slots, cx);
        }
    }

    /// `handleJobSubmitted`'s stage creation: a job with a barrier stage is checked first
    /// (`barrier_job_check`); one whose barrier stage has too few slots (`slots`,
    /// `sc.maxNumConcurrentTasks`) is submitted again later, up to
    /// `spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures` times, then fails; one
    /// under dynamic allocation fails at once. A failed job posts no JobStart nor JobEnd
    /// (`listener.jobFailed(e)`). Texts from Spark 4.0.0's jar.
    fn handle_job_submitted(
        &mut self,
        job_id: u32,
        job: JobSpec,
        waiter: RemoteRef,
        slots: u32,
        cx: &mut Cx<'_>,
    ) {
        let refusal = match barrier_job_check::check(&job, self.dynamic_allocation, slots) {
            Ok(()) => {
                self.barrier_checks.submitted(job_id);
                return self.create_job(job_id, job, waiter, cx);
            }
            Err(e) => e,
        };
        let BarrierJobAllocationFailed::SlotsNumber {
            required,
            available,
        } = refusal
        else {
            warn!(
                self.log,
                DAG,
                "Creating new stage failed due to exception - job: {job_id}\n{}: {}",
                refusal.class(),
                refusal.message()
            );
            return self.job_failed_at_submission(job_id, waiter, refusal, cx);
        };
        let failed = self.barrier_checks.slot_check_failed(job_id);
        let left = match failed {
            SlotCheckFailed::Retry { left, .. } | SlotCheckFailed::Fail { left } => left,
        };
        warn!(
            self.log,
            DAG,
            "Barrier stage in job {job_id} requires {required} slots, but only {available} are available. Will retry up to {left} more times"
        );
        match failed {
            SlotCheckFailed::Retry { interval_ms, .. } => {
                let w = WaitingBarrierJob { job, waiter };
                self.barrier_checks.waiting.insert(job_id, w);
                cx.out.push(SchedulerEvent::JobSubmittedAfter {
                    job_id,
                    ms: interval_ms,
                });
            }
            SlotCheckFailed::Fail { .. } => {
                self.job_failed_at_submission(job_id, waiter, refusal, cx)
            }
        }
    }

    /// `listener.jobFailed(e)` for a job whose stages could not be created: its waiter hears
    /// the exception; no listener event.
    fn job_failed_at_submission(
        &self,
        job_id: u32,
        waiter: RemoteRef,
        e: BarrierJobAllocationFailed,
        cx: &mut Cx<'_>,
    ) {
        cx.out.push(SchedulerEvent::JobEnded {
            waiter,
            job_id,
            result: JobResult::NotCreated {
                class: e.class().to_string(),
                message: e.message().to_string(),
            },
        });
    }

    /// `handleJobSubmitted` once the job's stages can be created: the stages, the job's lines,
    /// its JobStart, and its final stage submitted.
    fn create_job(&mut self, job_id: u32, job: JobSpec, waiter: RemoteRef, cx: &mut Cx<'_>) {
        let n = job.stages.len();
        let mut ids = Vec::with_capacity(n);
        for (i, spec) in job.stages.into_iter().enumerate() {
            let id = self.next_stage;
            self.next_stage += 1;
            let is_result = i + 1 == n;
            let name = if is_result {
                job.call_site.clone()
            } else {
                call_site_of(&spec.rdd_description)
            };
            let parents = spec
                .parents
                .iter()
                .filter_map(|p| ids.get(*p).copied())
                .collect();
            let program_shuffle = spec.lineage.as_ref().and_then(|l| l.shuffle_id);
            let num_maps = spec.tasks.len() as u32;
            let shuffle_id = (!is_result)
                .then(|| self.shuffle_for(program_shuffle, &spec.rdd_description, num_maps, cx));
            self.stages.insert(
                id,
                Stage {
                    id,
                    job_id,
                    name,
                    rdd: spec.rdd_description,
                    is_result,
                    parents,
                    attempt_tasks: spec.tasks.len() as u32,
                    tasks: StageWorks::new(spec.tasks),
                    shuffle_id,
                    shuffle_write: spec.shuffle_write,
                    input: spec.input,
                    input_path: spec.input_path,
                    result_bytes: Rc::new(spec.result_bytes),
                    barrier: spec.barrier,
                    lineage: spec.lineage,
                    preferred: interned_hosts(spec.preferred_hosts),
                    attempt: 0,
                    next_attempt: 0,
                    submitted_ms: 0,
                    submitted_epoch: 0,
                    done: false,
                    submitted: false,
                    failed_attempt_ids: BTreeSet::new(),
                    pending_partitions: BTreeSet::new(),
                    task_binary: 0,
                },
            );
            ids.push(id);
        }
        let final_stage = *ids.last().expect("a job has a stage");
        self.job_stages.insert(job_id, (ids[0], final_stage));
        let partitions = self.stages[&final_stage].tasks.len();
        let log = self.log.clone();
        info!(
            log,
            DAG, "Got job {job_id} ({}) with {partitions} output partitions", job.call_site
        );
        info!(
            log,
            DAG,
            "Final stage: {} ({})",
            self.stage_kind(final_stage),
            job.call_site
        );
        let parents: Vec<String> = self.stages[&final_stage]
            .parents
            .iter()
            .map(|p| self.stage_kind(*p))
            .collect();
        info!(
            log,
            DAG,
            "Parents of final stage: List({})",
            parents.join(", ")
        );
        let missing: Vec<String> = self
            .missing_parents(final_stage, cx.env)
            .iter()
            .map(|p| self.stage_kind(*p))
            .collect();
        info!(log, DAG, "Missing parents: List({})", missing.join(", "));
        self.jobs.insert(
            job_id,
            ActiveJob {
                waiter,
                results: JobResults::new(partitions as u32),
            },
        );
        if self.bus.enabled() {
            let stages: Vec<StageInfo> = ids.iter().map(|i| self.stage_info(*i, None)).collect();
            let time = clock::now_epoch_ms();
            self.bus.post(|| ListenerEvent::JobStart {
                job_id,
                time,
                stages,
            });
        }
        self.submit_stage(final_stage, cx);
        cx.out.push(SchedulerEvent::Revive);
    }

    /// A new shuffle-map stage's shuffle: the program's `shuffleId` when it gives one (a
    /// shuffle an earlier job registered keeps its map outputs: `createShuffleMapStage` finds
    /// it in the MapOutputTracker and the stage is skipped unless outputs are missing), else
    /// the next id.
    fn shuffle_for(
        &mut self,
        program_shuffle: Option<u32>,
        rdd: &str,
        num_maps: u32,
        cx: &mut Cx<'_>,
    ) -> u32 {
        let sid = program_shuffle.unwrap_or(self.next_shuffle);
        self.next_shuffle = self.next_shuffle.max(sid + 1);
        let tracker = &mut cx.env.map_output_tracker;
        if !tracker.contains_shuffle(sid) {
            // DAGScheduler.createShuffleMapStage (Spark 4.0.0's jar): logInfo before
            // `mapOutputTracker.registerShuffle`, with the map-side RDD's creation site.
            let (_, rdd_id, creation_site) = parse_rdd(rdd);
            info!(
                self.log,
                DAG, "Registering RDD {rdd_id} ({creation_site}) as input to shuffle {sid}"
            );
        }
        // Registering a known shuffle keeps its statuses.
        tracker.register_shuffle(sid, num_maps);
        sid
    }

    /// `getMissingParentStages`: parents whose shuffle output is not all registered, by id.
    fn missing_parents(&self, id: u32, env: &DriverEnv) -> Vec<u32> {
        self.stages[&id]
            .parents
            .iter()
            .copied()
            .filter(|p| {
                self.stages[p]
                    .shuffle_id
                    .is_some_and(|sid| !env.map_output_tracker.is_available(sid))
            })
            .collect()
    }

    /// `submitStage`: a stage not waiting, running or failed is submitted if its parents'
    /// outputs are all there; otherwise its missing parents are, and it waits.
    fn submit_stage(&mut self, id: u32, cx: &mut Cx<'_>) {
        if !self.jobs.contains_key(&self.stages[&id].job_id)
            || self.waiting_stages.contains(&id)
            || self.running_stages.contains(&id)
            || self.failed_stages.contains(&id)
        {
            return;
        }
        // submitStage (Spark 4.0.0's jar): `stage.getNextAttemptId >= maxStageAttempts` aborts
        // the stage (abortStage, no exception), whatever failed its earlier attempts.
        let (next_attempt, max) = (
            self.stages[&id].next_attempt,
            self.shuffle.max_stage_attempts,
        );
        if next_attempt >= max {
            let reason = format!(
                "{} (name={}) has been resubmitted for the maximum allowable number of times: {max}, which is the max value of config `spark.stage.maxAttempts` and `spark.stage.maxConsecutiveAttempts`.",
                self.stage_kind(id),
                self.stages[&id].name
            );
            self.abort_stage(id, &reason, cx);
            return;
        }
        let missing = self.missing_parents(id, cx.env);
        self.skip_available_parents(id, &missing);
        if missing.is_empty() {
            let kind = self.stage_kind(id);
            info!(
                self.log,
                DAG, "Submitting {kind} ({}), which has no missing parents", self.stages[&id].rdd
            );
            self.submit_missing_tasks(id, cx);
            return;
        }
        for p in missing {
            self.submit_stage(p, cx);
        }
        self.waiting_stages.insert(id);
    }

    /// `getMissingParentStages` (Spark 4.0.0's jar): a parent found available is skipped, and
    /// `ShuffleMapStage.increaseAttemptIdOnFirstSkip` makes a stage skipped before it ever ran
    /// start its attempts at 1 (a later job's stage over a computed shuffle, resubmitted after
    /// a fetch failure, runs as attempt 1: DAGSchedulerSuite "shuffle fetch failure in a reused
    /// shuffle dependency").
    fn skip_available_parents(&mut self, id: u32, missing: &[u32]) {
        let parents = self.stages[&id].parents.clone();
        for p in parents.into_iter().filter(|p| !missing.contains(p)) {
            let parent = self.stages.get_mut(&p).expect("known stage");
            if parent.next_attempt == 0 {
                parent.next_attempt = 1;
            }
        }
    }

    /// `findMissingPartitions`: a shuffle-map stage's map indices with no registered output, a
    /// result stage's partitions its job has no result for.
    fn missing_partitions(&self, id: u32, env: &DriverEnv) -> Vec<u32> {
        let s = &self.stages[&id];
        if let Some(sid) = s.shuffle_id {
            return env.map_output_tracker.missing_partitions(sid);
        }
        self.jobs
            .get(&s.job_id)
            .map_or_else(Vec::new, |j| j.results.missing())
    }

    /// `submitMissingTasks`: a new stage attempt with a task per missing partition, handed to
    /// the task scheduler as a `TaskSet`.
    fn submit_missing_tasks(&mut self, id: u32, cx: &mut Cx<'_>) {
        let log = self.log.clone();
        let kind = self.stage_kind(id);
        let partitions = self.missing_partitions(id, cx.env);
        let epoch = cx.env.map_output_tracker.epoch();
        let missing_parents = self.missing_parents(id, cx.env).len() as u32;
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.attempt = stage.next_attempt;
        stage.next_attempt += 1;
        // submitMissingTasks (Spark 4.0.0's jar): the new attempt's StageInfo gets a submission
        // time only when it has partitions to compute.
        stage.submitted = !partitions.is_empty();
        stage.done = false;
        stage.submitted_ms = clock::now_ms();
        stage.submitted_epoch = clock::now_epoch_ms();
        stage.attempt_tasks = partitions.len() as u32;
        if !stage.is_result {
            stage.pending_partitions = partitions.iter().copied().collect();
        }
        self.running_stages.insert(id);
        let stage = &self.stages[&id];
        self.task_outputs.push(TaskOutput::StageSubmitted {
            stage: id,
            stage_attempt: stage.attempt,
            missing_parents,
        });
        let n = partitions.len();
        if stage.attempt > 0 {
            self.recoveries.push(Recovery::StageResubmitted {
                stage: id,
                stage_attempt: stage.attempt,
                tasks: n as u32,
            });
        }
        // `taskBinary = sc.broadcast(...)`: every attempt broadcasts its stage's task binary,
        // even one with no task left to run.
        let binary = self.next_broadcast;
        self.next_broadcast += 1;
        self.memory_store.write_task_binary(&log, binary);
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.task_binary = binary;
        let stage = &self.stages[&id];
        if n == 0 {
            // Every partition is already there (the outputs a fetch failure seemed to lose were
            // not): no task set. submitMissingTasks (Spark 4.0.0's jar): a map stage goes
            // through processShuffleMapStageCompletion (finished, the `looking for newly
            // runnable stages` lines, the epoch, its waiting children), a result stage through
            // markStageAsFinished and submitWaitingChildStages; neither has a submission time.
            if self.bus.enabled() {
                let stage = self.stage_info(id, None);
                self.bus.post(|| ListenerEvent::StageSubmitted { stage });
            }
            Self::report_task_binary(binary, cx);
            if self.stages[&id].is_result {
                self.mark_stage_as_finished(id, None);
                self.submit_waiting_child_stages(id, cx);
            } else {
                self.process_shuffle_map_stage_completion(id, cx);
            }
            return;
        }
        info!(
            log,
            DAG,
            "Submitting {n} missing tasks from {kind} ({}) (first 15 tasks are for partitions {})",
            stage.rdd,
            partitions_preview(&partitions)
        );
        let prefs = self.task_preferred_locations(id, &partitions, cx.env);
        // StageInfo.taskLocalityPreferences, for the listeners (dynamic allocation's hints).
        let hint_prefs = if self.bus.enabled() {
            stage_locality_preferences(&prefs.hosts)
        } else {
            Vec::new()
        };
        let task_set = TaskSet {
            job_id: stage.job_id,
            stage_id: id,
            stage_attempt: stage.attempt,
            partitions,
            epoch,
            prefs,
            code: self.stage_code(id),
        };
        // submitMissingTasks (Spark 4.0.0's jar) posts SparkListenerStageSubmitted before it
        // hands the task set to `taskScheduler.submitTasks`.
        if self.bus.enabled() {
            let mut stage = self.stage_info(id, None);
            stage.task_locality_preferences = hint_prefs;
            self.bus.post(|| ListenerEvent::StageSubmitted { stage });
        }
        Self::report_task_binary(self.stages[&id].task_binary, cx);
        cx.ts.submit_tasks(task_set);
    }

    /// The task binary's piece reaches the BlockManagerMaster. Spark posts the StageSubmitted
    /// event first and then broadcasts (`submitMissingTasks`), and the driver's `putBytes`
    /// waits for the master's answer (`askSync`), so the piece's `SparkListenerBlockUpdated`
    /// comes right after the StageSubmitted event, before any TaskStart (a real 4.0.0 event
    /// log). sparkyard writes the blocks before it posts, so the update is reported here.
    fn report_task_binary(binary: u32, cx: &mut Cx<'_>) {
        cx.env
            .block_manager_master
            .driver_broadcast_piece_stored(binary, TASK_BINARY_PIECE_BYTES);
    }

    /// What the latest attempt's tasks run: the partitions' work, the task binary, the input,
    /// the shuffle a ShuffleMapTask writes (for the partitions of its job's next stage reading
    /// it) and the one the stage reads (its first parent's).
    fn stage_code(&self, id: u32) -> StageCode {
        let s = &self.stages[&id];
        let shuffle_write = s.shuffle_id.map(|shuffle_id| ShuffleWrite {
            shuffle_id,
            num_reduces: self.num_reduces(id),
            bytes: s.shuffle_write.bytes_per_task,
            records: s.shuffle_write.records_per_task,
        });
        StageCode {
            works: s.tasks.clone(),
            task_binary: s.task_binary,
            input: s.input,
            input_path: s.input_path.clone(),
            result_bytes: Rc::clone(&s.result_bytes),
            shuffle_write,
            shuffle_read: s.parents.first().and_then(|p| self.stages[p].shuffle_id),
            barrier: s.barrier,
        }
    }

    /// The partitions of the stage reading a map stage's shuffle (its job's next stage that
    /// names it as a parent).
    fn num_reduces(&self, map_stage: u32) -> u32 {
        let job = self.stages[&map_stage].job_id;
        let Some(&(_, last)) = self.job_stages.get(&job) else {
            return 1;
        };
        self.stages
            .range(map_stage + 1..=last)
            .find(|(_, s)| s.parents.contains(&map_stage))
            .map_or(1, |(_, s)| s.tasks.len() as u32)
    }

    /// `getPreferredLocs` for each task of a new stage attempt (`taskIdToLocations`):
    /// `getPreferredLocsInternal` asks first where the partition is cached (`getCacheLocs`), then
    /// for the RDD's own preferences, then down its narrow dependencies. A task over a cached
    /// RDD's partition prefers the executor holding the block (`ExecutorCacheTaskLocation`);
    /// the others keep `stage_preferred_hosts`. Spark's `cacheLocs` is cleared at each job
    /// submission, map stage completion and executor loss, the moments a stage is submitted
    /// here, so the BlockManagerMaster's current locations are read at submission.
    fn task_preferred_locations(
        &self,
        id: u32,
        partitions: &[u32],
        env: &DriverEnv,
    ) -> PreferredLocations {
        let hosts = self.stage_preferred_hosts(id, partitions, env);
        let bmm = &env.block_manager_master;
        if bmm.has_no_rdd_blocks() {
            return PreferredLocations::hosts(hosts);
        }
        let stage = &self.stages[&id];
        let cached: Vec<Option<(ExecutorId, Rc<str>)>> = partitions
            .iter()
            .map(|&p| {
                let work = stage.tasks.get(p as usize)?;
                work.cached_rdds()
                    .iter()
                    .find_map(|&rdd| bmm.cache_location(rdd, p))
            })
            .collect();
        if cached.iter().all(Option::is_none) {
            return PreferredLocations::hosts(hosts);
        }
        let mut prefs = PreferredLocations {
            hosts: vec![Vec::new(); partitions.len()],
            executors: vec![None; partitions.len()],
        };
        for (i, c) in cached.into_iter().enumerate() {
            match c {
                Some((executor, host)) => {
                    prefs.hosts[i] = vec![host];
                    prefs.executors[i] = Some(executor);
                }
                None => prefs.hosts[i] = hosts.get(i).cloned().unwrap_or_default(),
            }
        }
        prefs
    }

    /// The hosts each task of a new stage attempt prefers without a cached partition: the hosts
    /// of the partition's input blocks, else, for a stage reading one shuffle (a ShuffledRDD),
    /// `MapOutputTrackerMaster.getPreferredLocationsForShuffle`: with
    /// `spark.shuffle.reduceLocality.enabled` and fewer than SHUFFLE_PREF_MAP_THRESHOLD (1000)
    /// maps and SHUFFLE_PREF_REDUCE_THRESHOLD (1000) reduces, the hosts holding at least
    /// REDUCER_PREF_LOCS_FRACTION (0.2) of its input. Empty when no task has a preference.
    fn stage_preferred_hosts(
        &self,
        id: u32,
        partitions: &[u32],
        env: &DriverEnv,
    ) -> Vec<Vec<Rc<str>>> {
        let stage = &self.stages[&id];
        if !stage.preferred.is_empty() {
            return partitions
                .iter()
                .map(|p| {
                    stage
                        .preferred
                        .get(*p as usize)
                        .cloned()
                        .unwrap_or_default()
                })
                .collect();
        }
        let [parent] = stage.parents[..] else {
            return Vec::new();
        };
        let Some(shuffle_id) = self.stages[&parent].shuffle_id else {
            return Vec::new();
        };
        let num_maps = self.stages[&parent].tasks.len();
        let num_reduces = stage.tasks.len();
        if !self.reduce_locality
            || num_maps >= SHUFFLE_PREF_MAP_THRESHOLD
            || num_reduces >= SHUFFLE_PREF_REDUCE_THRESHOLD
        {
            return Vec::new();
        }
        let Some(locations) = env
            .map_output_tracker
            .locations_with_largest_outputs(shuffle_id, REDUCER_PREF_LOCS_FRACTION)
        else {
            return Vec::new();
        };
        let hosts: Vec<Rc<str>> = locations
            .iter()
            .map(|b| Rc::from(b.host.as_str()))
            .collect();
        vec![hosts; partitions.len()]
    }

    /// `markStageAsFinished`: `<stage> (<name>) finished in <Long> ms` (or `failed in ... due
    /// to ...`), the StageCompleted event, and the stage leaves `runningStages`. A success
    /// clears the stage's fetch-failed attempts (only consecutive failures abort).
    fn mark_stage_as_finished(&mut self, id: u32, error: Option<&str>) {
        let kind = self.stage_kind(id);
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.done = true;
        // markStageAsFinished (Spark 4.0.0's jar): `serviceTime` is `Unknown` for an attempt
        // without a submission time (one with no task to run).
        let ms = if stage.submitted {
            (clock::now_ms() - stage.submitted_ms).to_string()
        } else {
            "Unknown".to_string()
        };
        match error {
            None => {
                stage.failed_attempt_ids.clear();
                info!(self.log, DAG, "{kind} ({}) finished in {ms} ms", stage.name);
            }
            Some(e) => info!(
                self.log,
                DAG, "{kind} ({}) failed in {ms} ms due to {e}", stage.name
            ),
        }
        if self.bus.enabled() {
            let stage = self.stage_info(id, error.map(str::to_string));
            self.bus.post(|| ListenerEvent::StageCompleted { stage });
        }
        self.running_stages.remove(&id);
    }

    /// `BeginEvent` -> `handleBeginEvent`: the TaskStart (the listener hears the typed event;
    /// the recorded one is built only when the bus records).
    fn handle_begin_event(&mut self, task: &RunningTask) {
        if !self.bus.enabled() {
            return;
        }
        let typed = task_event(task, TaskEventKind::Start);
        self.bus.post_task(typed, || {
            let mut info = task.task_info(false, false);
            info.finish_time = 0;
            ListenerEvent::TaskStart {
                stage_id: task.key.1,
                stage_attempt_id: task.key.2,
                info,
            }
        });
    }

    /// `postTaskEnd(event)`: the TaskEnd of an attempt, its kind read from the attempt's record
    /// (`ending`: now, or a `Resubmitted` one's TaskInfo as it ended before, with its finish
    /// time and flags, not the loss's time).
    fn post_task_end(&self, task: &RunningTask, reason: TaskEndReason, ending: Ending) {
        if !self.bus.enabled() {
            return;
        }
        // A `Resubmitted` end is neither a Success nor a TaskKilled (ExecutorAllocationListener.
        // onTaskEnd's split).
        let end = match ending {
            Ending::Now(record) => record.kind.listener_kind(),
            Ending::Before(_) => TaskEndKind::Failed,
        };
        let typed = task_event(task, TaskEventKind::End(end));
        // The recorded event (the clock, two stages, the TaskInfo's strings) only when the
        // bus records.
        self.bus.post_task(typed, || ListenerEvent::TaskEnd {
            stage_id: task.key.1,
            stage_attempt_id: task.key.2,
            shuffle_map: !self.stages[&task.key.1].is_result,
            reason,
            info: match ending {
                Ending::Before(e) => {
                    let mut info = task.task_info(e.failed, e.killed);
                    info.finish_time = e.finish_epoch;
                    info
                }
                // TaskInfo.markFinished (Spark 4.0): FAILED sets `failed`, KILLED only
                // `killed`, so the History Server shows a killed attempt as KILLED, not FAILED.
                Ending::Now(_) => {
                    task.task_info(end == TaskEndKind::Failed, end == TaskEndKind::Killed)
                }
            },
            run_time_ms: clock::now_ms().saturating_sub(task.launch_ms),
        });
    }

    /// `CompletionEvent` -> `handleTaskCompletion`: the TaskEnd, then what the end means for
    /// the stage and its job: a success's result or MapStatus, a fetch failure, a map output
    /// lost with its executor (`Resubmitted`). Other failures only post (the TaskSetManager
    /// retries them, or posts `TaskSetFailed`).
    fn handle_task_completion(&mut self, event: CompletionEvent<'_>, cx: &mut Cx<'_>) {
        let CompletionEvent {
            task,
            reason,
            result,
            ending,
        } = event;
        match reason {
            TaskEndReason::Success => {
                self.post_task_end(task, reason, ending);
                if let Some(data) = result {
                    self.task_succeeded(task, data, cx);
                }
            }
            TaskEndReason::FetchFailed(failure) => {
                self.post_task_end(task, TaskEndReason::FetchFailed(failure.clone()), ending);
                self.handle_fetch_failed(task, &failure, cx);
            }
            TaskEndReason::Resubmitted => {
                self.post_task_end(task, TaskEndReason::Resubmitted, ending);
                self.handle_resubmitted(task);
                if self.is_barrier(task) {
                    self.handle_barrier_failure(task, &TaskEndReason::Resubmitted, cx);
                }
            }
            other if self.is_barrier(task) => {
                self.post_task_end(task, other.clone(), ending);
                self.handle_barrier_failure(task, &other, cx);
            }
            other => self.post_task_end(task, other, ending),
        }
    }

    /// `task.isBarrier`, of a stage still registered (a removed stage's ends are only posted).
    fn is_barrier(&self, task: &RunningTask) -> bool {
        self.stages.get(&task.key.1).is_some_and(|s| s.barrier)
    }

    /// `handleTaskCompletion`'s `case failure: TaskFailedReason if task.isBarrier` (Spark
    /// 4.0.0's jar; its texts read from the constant pool): a failed, killed or lost task of a
    /// barrier stage's latest attempt fails the whole attempt. Its other tasks are killed
    /// (`killAllTaskAttempts`), the stage is marked failed; past
    /// `spark.stage.maxConsecutiveAttempts` failed attempts the stage aborts, else a map stage
    /// loses every map output of its shuffle (its next attempt runs every task) and a result
    /// stage aborts (its tasks may have committed output), and the stage is resubmitted after
    /// `RESUBMIT_TIMEOUT` (the aborted one finds no job then).
    fn handle_barrier_failure(
        &mut self,
        task: &RunningTask,
        reason: &TaskEndReason,
        cx: &mut Cx<'_>,
    ) {
        let (id, attempt) = (task.key.1, task.key.2);
        let (kind, t) = (self.stage_kind(id), self.task_string(id, task.partition));
        let stage = &self.stages[&id];
        let (name, latest) = (stage.name.clone(), stage.attempt);
        if latest != attempt {
            info!(
                self.log,
                DAG,
                "Ignoring task failure from {t} as it's from {kind} attempt {attempt} and there is a more recent attempt for that stage (attempt {latest}) running"
            );
            return;
        }
        info!(
            self.log,
            DAG, "Marking {kind} ({name}) as failed due to a barrier task failed."
        );
        let message = format!(
            "Stage failed because barrier task {t} finished unsuccessfully.\n{}",
            reason.to_error_string()
        );
        let kill = format!("Task {t} from barrier stage {kind} ({name}) failed.");
        cx.ts.kill_all_task_attempts(id, &kill, cx.out);
        self.mark_stage_as_finished(id, Some(&message));
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.failed_attempt_ids.insert(attempt);
        let max = self.shuffle.max_consecutive_stage_attempts;
        if stage.failed_attempt_ids.len() as u32 >= max {
            let reason = format!(
                "{kind} ({name}) has failed the maximum allowable number of times: {max}. Most recent failure reason: {message}"
            );
            return self.abort_stage(id, &reason, cx);
        }
        self.fail_barrier_stage(id, &message, cx);
        if self.failed_stages.insert(id) {
            info!(
                self.log,
                DAG, "Resubmitting {kind} ({name}) due to barrier stage failure."
            );
            cx.out.push(SchedulerEvent::ResubmitFailedStagesAfter {
                ms: RESUBMIT_TIMEOUT_MS,
            });
        }
    }

    /// `handleTaskCompletion` for a success the TaskSetManager counted: a partition an earlier
    /// attempt finished is done in the latest attempt too (`notifyPartitionCompletion`), then
    /// the result or the MapStatus.
    fn task_succeeded(&mut self, task: &RunningTask, data: TaskResultData, cx: &mut Cx<'_>) {
        let stage = task.key.1;
        self.task_outputs.push(TaskOutput::Succeeded {
            stage,
            stage_attempt: task.key.2,
            index: task.index,
            already: false,
        });
        // The stage is looked up once: this runs once per task.
        let (is_result, job_id, current_attempt) = {
            let s = &self.stages[&stage];
            (s.is_result, s.job_id, s.attempt)
        };
        if task.key.2 < current_attempt {
            cx.ts
                .notify_partition_completion(stage, current_attempt, task.partition, cx.out);
        }
        if is_result {
            self.result_task_succeeded(job_id, stage, task.partition, data, cx);
        } else {
            let status = match data {
                TaskResultData::MapStatus(m) => Some(*m),
                _ => None,
            };
            self.map_task_succeeded(task, status, cx);
        }
    }

    /// `handleTaskCompletion` for a successful ResultTask: its job's result; the last one ends
    /// the job.
    fn result_task_succeeded(
        &mut self,
        job_id: u32,
        stage: u32,
        partition: u32,
        data: TaskResultData,
        cx: &mut Cx<'_>,
    ) {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            let task = self.task_string(stage, partition);
            info!(
                self.log,
                DAG, "Ignoring result from {task} because its job has finished"
            );
            return;
        };
        if !job.results.record(partition, data) || !job.results.is_complete() {
            return;
        }
        self.mark_stage_as_finished(stage, None);
        // handleTaskCompletion (Spark 4.0.0's jar): `cancelRunningIndependentStages(job, "Job N
        // is finished.")` before the cleanup: a map stage still running (resubmitted after a
        // speculative copy's fetch failure) has its tasks killed and is marked failed.
        self.cancel_running_independent_stages(job_id, &format!("Job {job_id} is finished."), cx);
        info!(
            self.log,
            DAG,
            "Job {job_id} is finished. Cancelling potential speculative or zombie tasks for this job"
        );
        // DAGScheduler.handleTaskCompletion: killAllTaskAttempts(stageId, _, "Stage finished")
        // on every job end (the set has already left its pool, so nothing is killed).
        cx.ts
            .kill_all_task_attempts(stage, "Stage finished", cx.out);
        let job = self.jobs.remove(&job_id).expect("checked above");
        self.cleanup_job_stages(job_id);
        let results = job.results.into_ordered();
        let time = clock::now_epoch_ms();
        self.bus.post(|| ListenerEvent::JobEnd {
            job_id,
            time,
            result: None,
        });
        cx.out.push(SchedulerEvent::JobEnded {
            waiter: job.waiter,
            job_id,
            result: JobResult::Succeeded(results),
        });
    }

    /// `handleTaskCompletion` for a successful ShuffleMapTask: its MapStatus is registered
    /// (unless the executor failed after the task's epoch), and the stage finishes when no
    /// partition is pending: its children are submitted, or the stage again if outputs were
    /// lost meanwhile.
    // Out of line: the status update's per-task body stays compact for result stages.
    #[inline(never)]
    fn map_task_succeeded(
        &mut self,
        task: &RunningTask,
        status: Option<MapStatusData>,
        cx: &mut Cx<'_>,
    ) {
        let stage_id = task.key.1;
        let Some(shuffle_id) = self.stages[&stage_id].shuffle_id else {
            return;
        };
        self.stages
            .get_mut(&stage_id)
            .expect("known stage")
            .pending_partitions
            .remove(&task.partition);
        let exec = task.executor_id;
        if self
            .executor_failure_epoch
            .get(&exec)
            .is_some_and(|e| task.map_epoch <= *e)
        {
            let t = self.task_string(stage_id, task.partition);
            info!(
                self.log,
                DAG, "Ignoring possibly bogus {t} completion from executor {exec}"
            );
        } else {
            let status = status.unwrap_or_else(|| MapStatusData {
                location: self.executor_block_manager(exec, &task.host),
                bytes: 0,
                num_reduces: 1,
            });
            cx.env.map_output_tracker.register_map_output(
                shuffle_id,
                task.partition,
                status.location,
                task.task_id.0,
                status.bytes,
                status.num_reduces,
            );
            self.task_outputs.push(TaskOutput::MapOutputRegistered {
                stage: stage_id,
                stage_attempt: task.key.2,
                map_index: task.index,
            });
        }
        let stage = &self.stages[&stage_id];
        if !self.running_stages.contains(&stage_id) || !stage.pending_partitions.is_empty() {
            return;
        }
        self.process_shuffle_map_stage_completion(stage_id, cx);
        cx.out.push(SchedulerEvent::Revive);
    }

    /// `processShuffleMapStageCompletion`: the stage is finished, the DAGScheduler lists its
    /// sets, bumps the map output epoch, and resubmits the stage if an output is missing, or
    /// submits its waiting children.
    fn process_shuffle_map_stage_completion(&mut self, stage_id: u32, cx: &mut Cx<'_>) {
        let shuffle_id = self.stages[&stage_id]
            .shuffle_id
            .expect("a shuffle-map stage");
        self.mark_stage_as_finished(stage_id, None);
        info!(self.log, DAG, "looking for newly runnable stages");
        info!(
            self.log,
            DAG,
            "running: {}",
            self.stage_set(&self.running_stages)
        );
        info!(
            self.log,
            DAG,
            "waiting: {}",
            self.stage_set(&self.waiting_stages)
        );
        info!(
            self.log,
            DAG,
            "failed: {}",
            self.stage_set(&self.failed_stages)
        );
        let tracker = &mut cx.env.map_output_tracker;
        tracker.increment_epoch();
        if !tracker.is_available(shuffle_id) {
            let missing: Vec<String> = tracker
                .missing_partitions(shuffle_id)
                .iter()
                .map(u32::to_string)
                .collect();
            let (kind, name) = (
                self.stage_kind(stage_id),
                self.stages[&stage_id].name.clone(),
            );
            info!(
                self.log,
                DAG,
                "Resubmitting {kind} ({name}) because some of its tasks had failed: {}",
                missing.join(", ")
            );
            self.submit_stage(stage_id, cx);
        } else {
            self.submit_waiting_child_stages(stage_id, cx);
        }
    }

    /// `submitWaitingChildStages`: the waiting stages that read `parent`, by first job.
    fn submit_waiting_child_stages(&mut self, parent: u32, cx: &mut Cx<'_>) {
        let children: Vec<u32> = self
            .waiting_stages
            .iter()
            .copied()
            .filter(|w| self.stages[w].parents.contains(&parent))
            .collect();
        for c in &children {
            self.waiting_stages.remove(c);
        }
        for c in children {
            self.submit_stage(c, cx);
        }
    }

    /// `handleResubmittedFailure`: a finished map task's output went with its executor; its
    /// partition is pending again.
    fn handle_resubmitted(&mut self, task: &RunningTask) {
        let (stage, partition) = (task.key.1, task.partition);
        self.task_outputs.push(TaskOutput::Lost {
            stage,
            stage_attempt: task.key.2,
            index: task.index,
        });
        let t = self.task_string(stage, partition);
        info!(
            self.log,
            DAG, "Resubmitted {t}, so marking it as still running."
        );
        if let Some(s) = self.stages.get_mut(&stage)
            && !s.is_result
        {
            s.pending_partitions.insert(partition);
            self.recoveries
                .push(Recovery::MapOutputResubmitted { stage, partition });
        }
    }

    /// `handleTaskCompletion` for `FetchFailed`: the reading stage's attempt fails, the map
    /// output is unregistered, both stages are resubmitted after `RESUBMIT_TIMEOUT` (or the
    /// reading stage aborts after `spark.stage.maxConsecutiveAttempts` failed attempts), and
    /// the outputs of the executor (or, with the shuffle service and
    /// `spark.files.fetchFailure.unRegisterOutputOnHost`, the host) that failed are removed.
    fn handle_fetch_failed(&mut self, task: &RunningTask, failure: &FetchFailure, cx: &mut Cx<'_>) {
        let failed = task.key.1;
        let job_id = self.stages[&failed].job_id;
        let Some(map_stage) = self.map_stage_of(failure.shuffle_id, job_id) else {
            return;
        };
        let latest = self.stages[&failed].attempt;
        let stage_attempt = task.key.2;
        let (kind, name) = (self.stage_kind(failed), self.stages[&failed].name.clone());
        if latest != stage_attempt {
            let t = self.task_string(failed, task.partition);
            info!(
                self.log,
                DAG,
                "Ignoring fetch failure from {t} as it's from {kind} attempt {stage_attempt} and there is a more recent attempt for that stage (attempt {latest}) running"
            );
            return;
        }
        let max = self.shuffle.max_consecutive_stage_attempts;
        if self.ignores_decommission_fetch_failure(failure, cx) {
            let (t, eid) = (
                self.task_string(failed, task.partition),
                bm_executor(failure),
            );
            info!(
                self.log,
                DAG,
                "Ignoring fetch failure from {t} of {kind} attempt {stage_attempt} when count spark.stage.maxConsecutiveAttempts as executor {eid} is decommissioned and spark.stage.ignoreDecommissionFetchFailure=true"
            );
        } else {
            let stage = self.stages.get_mut(&failed).expect("known stage");
            stage.failed_attempt_ids.insert(stage_attempt);
        }
        let stage = &self.stages[&failed];
        let should_abort = stage.failed_attempt_ids.len() as u32 >= max;
        let (map_kind, map_name) = (
            self.stage_kind(map_stage),
            self.stages[&map_stage].name.clone(),
        );
        if self.running_stages.contains(&failed) {
            info!(
                self.log,
                DAG,
                "Marking {kind} ({name}) as failed due to a fetch failure from {map_kind} ({map_name})"
            );
            self.mark_stage_as_finished(failed, Some(&failure.message));
        }
        // A barrier map stage's outputs go all together, as its next attempt reruns every task.
        if self.stages[&map_stage].barrier {
            cx.env
                .map_output_tracker
                .unregister_all_map_output(failure.shuffle_id);
        } else if let (Ok(map_index), Some(bm)) =
            (u32::try_from(failure.map_index), &failure.bm_address)
        {
            cx.env
                .map_output_tracker
                .unregister_map_output(failure.shuffle_id, map_index, bm);
        }
        if self.stages[&failed].barrier {
            self.fail_barrier_stage(failed, &failure.message, cx);
        }
        if should_abort {
            // DAGScheduler.handleTaskCompletion (the 4.0.0 jar's concatenation, no replaceAll):
            // a line break after `Most recent failure reason:`, and the failure's own line breaks
            // kept (older sources joined it with `stripMargin.replaceAll("\n", " ")`).
            let reason = format!(
                "{kind} ({name}) has failed the maximum allowable number of times: {max}. Most recent failure reason:\n{}",
                failure.message
            );
            self.abort_stage(failed, &reason, cx);
        } else {
            let no_resubmit_enqueued = !self.failed_stages.contains(&failed);
            self.failed_stages.insert(failed);
            self.failed_stages.insert(map_stage);
            if no_resubmit_enqueued {
                info!(
                    self.log,
                    DAG,
                    "Resubmitting {map_kind} ({map_name}) and {kind} ({name}) due to fetch failure"
                );
                cx.out.push(SchedulerEvent::ResubmitFailedStagesAfter {
                    ms: RESUBMIT_TIMEOUT_MS,
                });
            }
        }
        if let Some(bm) = &failure.bm_address {
            // The whole host's outputs are lost with the shuffle service, or when the host is
            // being decommissioned (`isHostDecommissioned`).
            let host_lost =
                self.shuffle.service_enabled || cx.ts.is_host_decommissioned(bm.executor_id);
            let host = (host_lost && self.shuffle.unregister_output_on_host_on_fetch_failure)
                .then(|| bm.host.clone());
            self.remove_executor_and_unregister_outputs(
                bm.executor_id,
                true,
                host.as_deref(),
                Some(task.map_epoch),
                cx.env,
            );
        }
    }

    /// A failed barrier stage attempt that may be retried (Spark 4.0.0's jar, the barrier task
    /// failure's branch and the fetch-failure path's `failedStage.rdd.isBarrier()`): a map
    /// stage loses every output of its own shuffle (its next attempt runs every task), a result
    /// stage aborts (its tasks may have committed output).
    #[cold]
    fn fail_barrier_stage(&mut self, failed: u32, message: &str, cx: &mut Cx<'_>) {
        let stage = &self.stages[&failed];
        if stage.is_result {
            let reason = format!(
                "Could not recover from a failed barrier ResultStage. Most recent failure reason: {message}"
            );
            self.abort_stage(failed, &reason, cx);
        } else if let Some(shuffle) = stage.shuffle_id {
            cx.env.map_output_tracker.unregister_all_map_output(shuffle);
        }
    }

    /// `ignoreDecommissionFetchFailure && isExecutorDecommissioningOrDecommissioned(bmAddress)`
    /// (DAGScheduler.handleTaskCompletion, the 4.0.0 jar): such a fetch failure is not counted
    /// in the stage's `failedAttemptIds`, so it cannot abort the stage.
    fn ignores_decommission_fetch_failure(&self, failure: &FetchFailure, cx: &Cx<'_>) -> bool {
        self.shuffle.ignore_decommission_fetch_failure
            && failure
                .bm_address
                .as_ref()
                .is_some_and(|bm| cx.ts.is_executor_decommissioning(bm.executor_id))
    }

    /// `shuffleIdToMapStage(shuffleId)` for a stage of job `job_id`: the job's map stage writing
    /// the shuffle. Spark drops a shuffle's stage with the last job needing it
    /// (`cleanupStateForJobAndIndependentStages`), so a later job over the same shuffle has a
    /// stage of its own, and a fetch failure there resubmits that one, not the finished job's
    /// (DAGSchedulerSuite "shuffle fetch failure in a reused shuffle dependency").
    pub(super) fn map_stage_of(&self, shuffle_id: u32, job_id: u32) -> Option<u32> {
        let &(first, last) = self.job_stages.get(&job_id)?;
        self.stages
            .range(first..=last)
            .find(|(_, s)| s.shuffle_id == Some(shuffle_id))
            .map(|(id, _)| *id)
    }

    /// `resubmitFailedStages`, RESUBMIT_TIMEOUT after a fetch failure: every failed stage is
    /// submitted again, by first job (then id).
    pub fn resubmit_failed_stages(&mut self, cx: &mut Cx<'_>) {
        if self.failed_stages.is_empty() {
            return;
        }
        info!(self.log, DAG, "Resubmitting failed stages");
        // A stage aborted since (a failed barrier result stage) is no longer registered:
        // `submitStage` finds no active job for it and `abortStage` skips it.
        let mut failed: Vec<u32> = std::mem::take(&mut self.failed_stages)
            .into_iter()
            .filter(|s| self.stages.contains_key(s))
            .collect();
        failed.sort_by_key(|s| (self.stages[s].job_id, *s));
        for s in failed {
            self.submit_stage(s, cx);
        }
        cx.out.push(SchedulerEvent::Revive);
    }

    /// The events posted and not handled yet, handled now (the `ExecutorLost`s).
    pub fn run_queued_events(&mut self, env: &mut DriverEnv) {
        for QueuedExecutorLost { executor, reason } in std::mem::take(&mut self.queued) {
            self.handle_executor_lost(executor, &reason, env);
        }
    }

    /// `ExecutorLost(execId, reason)` -> `handleExecutorLost(execId, workerHost)`: the worker
    /// host is an `ExecutorDecommission`'s (DAGSchedulerEventProcessLoop.doOnReceive; YARN's
    /// `ExecutorProcessLost` has none). Without the external shuffle service the executor's map
    /// outputs are gone with it; with a worker host every output served from that host is
    /// (`fileLost = workerHost.isDefined || !externalShuffleServiceEnabled`).
    fn handle_executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
        env: &mut DriverEnv,
    ) {
        let worker_host = match reason {
            ExecutorLossReason::Decommission { worker_host, .. } => worker_host.as_deref(),
            _ => None,
        };
        let file_lost = worker_host.is_some() || !self.shuffle.service_enabled;
        self.remove_executor_and_unregister_outputs(eid, file_lost, worker_host, None, env);
    }

    /// `ExecutorAdded(execId, host)` -> `handleExecutorAdded` (Spark 4.0.0's bytecode): an
    /// executor that failed earlier is out of `executorFailureEpoch` (`Host added was in lost
    /// list earlier: <host>`), and out of `shuffleFileLostEpoch`.
    fn handle_executor_added(&mut self, eid: ExecutorId, host: &str) {
        if self.executor_failure_epoch.remove(&eid).is_some() {
            info!(self.log, DAG, "Host added was in lost list earlier: {host}");
        }
        self.shuffle_file_lost_epoch.remove(&eid);
    }

    /// `removeExecutorAndUnregisterOutputs` (DAGScheduler.scala): once per epoch, `Executor
    /// lost: N (epoch E)` and the BlockManagerMaster's removal; when its files are lost, `Shuffle
    /// files lost for executor: N (epoch E)` (or `for host: H`) and the outputs leave the
    /// MapOutputTracker.
    fn remove_executor_and_unregister_outputs(
        &mut self,
        eid: ExecutorId,
        file_lost: bool,
        host: Option<&str>,
        maybe_epoch: Option<u64>,
        env: &mut DriverEnv,
    ) {
        let epoch = maybe_epoch.unwrap_or(env.map_output_tracker.epoch());
        if self
            .executor_failure_epoch
            .get(&eid)
            .is_none_or(|e| *e < epoch)
        {
            self.executor_failure_epoch.insert(eid, epoch);
            info!(self.log, DAG, "Executor lost: {eid} (epoch {epoch})");
            env.block_manager_master.remove_executor(eid);
        }
        if !file_lost {
            return;
        }
        if self
            .shuffle_file_lost_epoch
            .get(&eid)
            .is_some_and(|e| *e >= epoch)
        {
            return;
        }
        self.shuffle_file_lost_epoch.insert(eid, epoch);
        match host {
            Some(h) => {
                info!(
                    self.log,
                    DAG, "Shuffle files lost for host: {h} (epoch {epoch})"
                );
                env.map_output_tracker.remove_outputs_on_host(h);
            }
            None => {
                info!(
                    self.log,
                    DAG, "Shuffle files lost for executor: {eid} (epoch {epoch})"
                );
                env.map_output_tracker.remove_outputs_on_executor(eid);
            }
        }
    }

    /// Where an executor's map output is served: its node's shuffle service, or its own block
    /// manager (`BlockManager.shuffleServerId`).
    fn executor_block_manager(&self, eid: ExecutorId, host: &str) -> BlockManagerId {
        let port = if self.shuffle.service_enabled {
            self.shuffle.service_port
        } else {
            block_manager_port(eid)
        };
        BlockManagerId {
            executor_id: eid,
            host: host.to_string(),
            port,
        }
    }

    /// `abortStage` -> `failJobAndIndependentStages`: every running stage of the job has its
    /// tasks killed (`killAllTaskAttempts`) and is marked failed (`cancelRunningIndependent
    /// Stages`), and the job ends with `Job aborted due to stage failure: <reason>`.
    fn abort_stage(&mut self, stage: u32, reason: &str, cx: &mut Cx<'_>) {
        // `if (!stageIdToStage.contains(failedStage.id)) return`: an aborted stage's job is gone.
        let Some(job_id) = self.stages.get(&stage).map(|s| s.job_id) else {
            return;
        };
        let message = format!("Job aborted due to stage failure: {reason}");
        self.fail_job_and_independent_stages(job_id, message, cx);
    }

    /// `handleJobCancellation(jobId, reason)` (`cancelJob`, `cancelJobGroup` from the user's
    /// thread): an active job fails with `SparkCoreErrors.sparkJobCancelled` as
    /// `failJobAndIndependentStages` fails it (its running stages' tasks killed with "Stage
    /// cancelled: <message>", the stages marked failed with the message); a job that is not
    /// active (it ended) is left alone (Spark only logs at debug).
    pub fn cancel_job(&mut self, job_id: u32, reason: &str, cx: &mut Cx<'_>) {
        self.fail_job_and_independent_stages(job_id, job_cancelled(job_id, reason), cx);
    }

    /// `failJobAndIndependentStages(job, error)`: the job's running stages cancelled, the job
    /// ended with `message` (its JobEnd posted, its waiter told).
    fn fail_job_and_independent_stages(&mut self, job_id: u32, message: String, cx: &mut Cx<'_>) {
        let Some(job) = self.jobs.remove(&job_id) else {
            return;
        };
        self.cancel_running_independent_stages(job_id, &message, cx);
        self.cleanup_job_stages(job_id);
        let (time, failure) = (clock::now_epoch_ms(), message.clone());
        self.bus.post(|| ListenerEvent::JobEnd {
            job_id,
            time,
            result: Some(failure),
        });
        cx.out.push(SchedulerEvent::JobEnded {
            waiter: job.waiter,
            job_id,
            result: JobResult::Failed(message),
        });
    }

    /// `cancelRunningIndependentStages(job, reason)` (Spark 4.0.0's jar): every stage of the job
    /// (a stage here belongs to one job) that is running, or whose fetch-failed attempts have
    /// not been cleared by a success (`runningStages.contains(stage) ||
    /// stage.failedAttemptIds.nonEmpty`), has its tasks killed (`killAllTaskAttempts`) and is
    /// marked finished with `reason` as its failure: a stage that failed fetching and was
    /// marked failed then is marked so again (a second StageCompleted).
    fn cancel_running_independent_stages(&mut self, job_id: u32, reason: &str, cx: &mut Cx<'_>) {
        let (first, last) = self.job_stages[&job_id];
        let cancelled: Vec<u32> = self
            .stages
            .range(first..=last)
            .filter(|(id, s)| self.running_stages.contains(id) || !s.failed_attempt_ids.is_empty())
            .map(|(id, _)| *id)
            .collect();
        for s in cancelled {
            cx.ts.kill_all_task_attempts(s, reason, cx.out);
            self.mark_stage_as_finished(s, Some(reason));
        }
    }

    /// The jobs still running (`activeJobs`).
    #[cfg(test)]
    pub(super) fn active_jobs(&self) -> usize {
        self.jobs.len()
    }

    /// `cleanupStateForJobAndIndependentStages`: the job's stages leave the DAG's sets.
    fn cleanup_job_stages(&mut self, job_id: u32) {
        let Some(&(first, last)) = self.job_stages.get(&job_id) else {
            return;
        };
        for s in first..=last {
            self.waiting_stages.remove(&s);
            self.running_stages.remove(&s);
            self.failed_stages.remove(&s);
        }
    }
}

/// The events TaskSchedulerImpl posts, handled as they are posted (see the file's head).
impl DagEvents for DAGScheduler {
    fn task_started(&mut self, task: &RunningTask) {
        self.handle_begin_event(task);
    }

    fn task_ended(
        &mut self,
        event: CompletionEvent<'_>,
        ts: &mut TaskSchedulerImpl,
        env: &mut DriverEnv,
        out: &mut Vec<SchedulerEvent>,
    ) {
        self.handle_task_completion(event, &mut Cx { ts, env, out });
    }

    fn executor_added(&mut self, executor: ExecutorId, host: &str) {
        self.handle_executor_added(executor, host);
    }

    fn executor_lost(&mut self, executor: ExecutorId, reason: &ExecutorLossReason) {
        self.queued.push(QueuedExecutorLost {
            executor,
            reason: reason.clone(),
        });
    }

    /// `TaskSetFailed` -> `handleTaskSetFailed`: `abortStage`.
    fn task_set_failed(
        &mut self,
        stage: u32,
        reason: &str,
        ts: &mut TaskSchedulerImpl,
        env: &mut DriverEnv,
        out: &mut Vec<SchedulerEvent>,
    ) {
        if self.stages.contains_key(&stage) {
            self.abort_stage(stage, reason, &mut Cx { ts, env, out });
        }
    }

    /// `SpeculativeTaskSubmitted` -> `handleSpeculativeTaskSubmitted`: the listener event.
    fn speculative_task_submitted(&mut self, task: SpeculativeTask) {
        self.bus.post(|| ListenerEvent::SpeculativeTaskSubmitted {
            stage_id: task.stage_id,
            stage_attempt_id: task.stage_attempt,
            task_index: task.index,
            partition_id: task.partition,
        });
    }

    /// `UnschedulableTaskSetAdded` -> `handleUnschedulableTaskSetAdded`: the listener event
    /// (the ExecutorAllocationManager asks for one more executor per such set).
    fn unschedulable_task_set_added(&mut self, stage: u32, stage_attempt: u32) {
        self.bus.post(|| ListenerEvent::UnschedulableTaskSetAdded {
            stage_id: stage,
            stage_attempt_id: stage_attempt,
        });
    }

    /// `UnschedulableTaskSetRemoved` -> `handleUnschedulableTaskSetRemoved`.
    fn unschedulable_task_set_removed(&mut self, stage: u32, stage_attempt: u32) {
        self.bus
            .post(|| ListenerEvent::UnschedulableTaskSetRemoved {
                stage_id: stage,
                stage_attempt_id: stage_attempt,
            });
    }
}

/// `MapPartitionsRDD[1] at map at X.scala:34` -> `map at X.scala:34`.
fn call_site_of(rdd: &str) -> String {
    rdd.split_once(" at ")
        .map_or(rdd.to_string(), |(_, cs)| cs.to_string())
}

/// `MapPartitionsRDD[1] at map at X.scala:34` -> (`MapPartitionsRDD`, 1, `map at X.scala:34`).
fn parse_rdd(rdd: &str) -> (String, u32, String) {
    let name = rdd.split('[').next().unwrap_or(rdd).to_string();
    let id = rdd
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0);
    (name, id, call_site_of(rdd))
}

/// MapOutputTrackerMaster's thresholds for reduce-task locality (MapOutputTracker.scala).
const SHUFFLE_PREF_MAP_THRESHOLD: usize = 1000;
const SHUFFLE_PREF_REDUCE_THRESHOLD: usize = 1000;
const REDUCER_PREF_LOCS_FRACTION: f64 = 0.2;

/// A stage's preferred hosts as shared strings (one allocation per distinct host).
fn interned_hosts(hosts: Vec<Vec<String>>) -> Vec<Vec<Rc<str>>> {
    let mut seen: BTreeMap<String, Rc<str>> = BTreeMap::new();
    hosts
        .into_iter()
        .map(|task| {
            task.into_iter()
                .map(|h| {
                    seen.entry(h)
                        .or_insert_with_key(|k| Rc::from(k.as_str()))
                        .clone()
                })
                .collect()
        })
        .collect()
}

/// `taskIdToLocations.values` as `StageInfo.taskLocalityPreferences` (hosts by name): empty
/// when no task prefers a host.
fn stage_locality_preferences(prefs: &[Vec<Rc<str>>]) -> Vec<Vec<String>> {
    if prefs.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    prefs
        .iter()
        .map(|hosts| hosts.iter().map(|h| h.to_string()).collect())
        .collect()
}

/// The typed TaskStart / TaskEnd the management queue hears for an attempt.
fn task_event(task: &RunningTask, kind: TaskEventKind) -> TaskEvent {
    TaskEvent {
        stage_id: task.key.1,
        stage_attempt_id: task.key.2,
        index: task.index,
        speculative: task.speculative,
        executor: task.executor_id,
        kind,
    }
}

/// The executor a fetch failure names (`bmAddress.executorId`), for the log line.
fn bm_executor(failure: &FetchFailure) -> String {
    failure
        .bm_address
        .as_ref()
        .map_or_else(String::new, |bm| bm.executor_id.to_string())
}

/// `SparkCoreErrors.sparkJobCancelled(jobId, reason, null)`'s message (Spark 4.0.0, as a real
/// run's event log records it: `[SPARK_JOB_CANCELLED] Job 0 cancelled part of cancelled job
/// group g SQLSTATE: XXKDA`).
pub fn job_cancelled(job_id: u32, reason: &str) -> String {
    format!("[SPARK_JOB_CANCELLED] Job {job_id} cancelled {reason} SQLSTATE: XXKDA")
}
