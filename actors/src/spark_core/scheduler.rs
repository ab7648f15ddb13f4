//! The driver's scheduling core, owned by the DriverEndpoint: `DAGScheduler` (jobs, stages and
//! their parents), `TaskSchedulerImpl.resourceOffers` (FIFO over task sets) and
//! `TaskSetManager` (pending indices, retries up to `spark.task.maxFailures`, executor loss).
//! Plain structs called synchronously, as in Spark; every lookup is a map or a queue, never a
//! scan over all tasks or executors.

use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::kernel::small_map::{DenseMap, SmallSet};
use crate::world::invariants::TaskOutput;
use crate::world::listener::ContextBus;
use crate::{error, info, warn};
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::listener::{ListenerEvent, StageInfo, TaskEndReason, TaskInfo};
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::rpc::RemoteRef;
use sparkyard_messages::task::{
    JobResult, JobSpec, TaskDescription, TaskName, TaskResultData, TaskWork,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const DAG: &str = "driver::DAGScheduler";
const TSM: &str = "driver::TaskSetManager";
const TS: &str = "driver::YarnClusterScheduler";

/// The serialised size sparkyard reports for a task (what `Starting task` prints).
const TASK_BYTES: u64 = 7595;

/// An executor's free cores, offered to the task sets.
pub struct WorkerOffer {
    pub executor_id: ExecutorId,
    /// The executor's host, shared (every task launched on it keeps a copy).
    pub host: std::rc::Rc<str>,
    pub cores: u32,
}

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
        reason: String,
    },
}

/// `spark.logging.exceptionPrintInterval` (TaskSetManager's `EXCEPTION_PRINT_INTERVAL`, default
/// 10 s): a repeat of the same exception within it is logged as a one-line duplicate.
const EXCEPTION_PRINT_INTERVAL_MS: u64 = 10_000;

struct Stage {
    id: u32,
    job_id: u32,
    name: String,
    rdd: String,
    is_result: bool,
    parents: Vec<u32>,
    tasks: Vec<TaskWork>,
    attempt: u32,
    submitted_ms: u64,
    submitted_epoch: u64,
    done: bool,
    submitted: bool,
}

struct ActiveJob {
    waiter: RemoteRef,
    final_stage: u32,
    results: Vec<Option<TaskResultData>>,
}

struct TaskSetManager {
    stage_attempt: u32,
    pending: VecDeque<u32>,
    successful: Vec<bool>,
    num_successful: u32,
    failures: Vec<u32>,
    launches: Vec<u32>,
    /// The executor holding each successful map task's output (shuffle-map stages).
    output_on: Vec<Option<ExecutorId>>,
    zombie: bool,
    /// `runningTasks`: attempts launched and not ended (a zombie set stays registered until
    /// this reaches 0: `maybeFinishTaskSet`).
    running: u32,
    /// `taskSetFinished` ran ("Removed TaskSet"): the set is no longer the stage's.
    finished: bool,
    /// `recentExceptions`: an exception's description -> (duplicates, when last printed).
    recent_exceptions: BTreeMap<String, (u32, u64)>,
}

/// A finished map task's output: (task set key (job, stage), partition).
type MapOutput = ((u32, u32), u32);

struct RunningTask {
    /// Its own id (an abort's KillTask names it).
    task_id: TaskId,
    key: (u32, u32),
    index: u32,
    attempt: u32,
    executor_id: ExecutorId,
    host: std::rc::Rc<str>,
    launch_ms: u64,
    launch_epoch: u64,
    launching: bool,
}

/// DAGScheduler + TaskSchedulerImpl + TaskSetManagers of one SparkContext.
pub struct Scheduler {
    log: ProcessLog,
    bus: ContextBus,
    max_failures: u32,
    task_cpus: u32,
    next_job: u32,
    next_stage: u32,
    next_task: u64,
    stages: BTreeMap<u32, Stage>,
    /// Each job's stage ids, `first..=last` (a job's stages get consecutive ids): the stages
    /// of one job without a walk over every stage of every earlier job.
    job_stages: BTreeMap<u32, (u32, u32)>,
    jobs: BTreeMap<u32, ActiveJob>,
    task_sets: BTreeMap<(u32, u32), TaskSetManager>,
    /// Task sets with pending tasks, in FIFO order (job, stage).
    runnable: BTreeSet<(u32, u32)>,
    /// Running tasks by task id, looked up (never iterated) at each status update: task ids
    /// are handed out in order, so a slot per id from the oldest running task. Boxed, so a task
    /// that runs while a million later ones finish holds the window open at 8 bytes a slot.
    running: DenseMap<TaskId, Box<RunningTask>>,
    /// Each executor's running tasks, by executor id (ids are handed out in order; a task's
    /// launch and end each look its executor up), iterated in task id order when it is lost.
    by_executor: DenseMap<ExecutorId, SmallSet<TaskId>>,
    /// Map outputs each executor holds: (task set, partition).
    outputs_by_executor: BTreeMap<ExecutorId, Vec<MapOutput>>,
    pub tasks_launched: u64,
    /// Failed task attempts so far (every cause).
    pub failed_attempts: u64,
    /// Task outputs won and lost, drained by the DriverEndpoint into the invariant checker.
    pub task_outputs: Vec<TaskOutput>,
}

fn partitions_preview(n: u32) -> String {
    let ids: Vec<String> = (0..n.min(15)).map(|i| i.to_string()).collect();
    format!("Vector({})", ids.join(", "))
}

impl Scheduler {
    pub fn new(log: ProcessLog, bus: ContextBus, max_failures: u32, task_cpus: u32) -> Self {
        Scheduler {
            log,
            bus,
            max_failures,
            task_cpus,
            next_job: 0,
            next_stage: 0,
            next_task: 0,
            stages: BTreeMap::new(),
            job_stages: BTreeMap::new(),
            jobs: BTreeMap::new(),
            task_sets: BTreeMap::new(),
            runnable: BTreeSet::new(),
            running: DenseMap::default(),
            by_executor: DenseMap::default(),
            outputs_by_executor: BTreeMap::new(),
            tasks_launched: 0,
            failed_attempts: 0,
            task_outputs: Vec::new(),
        }
    }

    pub fn has_pending_tasks(&self) -> bool {
        !self.runnable.is_empty()
    }

    /// Whether the executor holds a map output the scheduler still counts as live.
    pub fn holds_map_output(&self, id: ExecutorId) -> bool {
        self.outputs_by_executor
            .get(&id)
            .is_some_and(|v| !v.is_empty())
    }

    /// The event log's `StageInfo` for a stage.
    fn stage_info(&self, id: u32, failure_reason: Option<String>) -> StageInfo {
        let s = &self.stages[&id];
        let (rdd_name, rdd_id, rdd_callsite) = parse_rdd(&s.rdd);
        let done = s.done || failure_reason.is_some();
        StageInfo {
            stage_id: id,
            attempt_id: s.attempt,
            name: s.name.clone(),
            num_tasks: s.tasks.len() as u32,
            rdd_id,
            rdd_name,
            rdd_callsite,
            parent_ids: s.parents.clone(),
            submission_time: s.submitted.then_some(s.submitted_epoch),
            completion_time: done.then(clock::now_epoch_ms),
            failure_reason,
            is_shuffle_map: !s.is_result,
        }
    }

    fn task_info(task: &RunningTask, tid: TaskId, failed: bool, killed: bool) -> TaskInfo {
        TaskInfo {
            task_id: tid.0,
            index: task.index,
            attempt: task.attempt,
            partition_id: task.index,
            launch_time: task.launch_epoch,
            executor_id: task.executor_id.to_string(),
            host: task.host.to_string(),
            locality: "PROCESS_LOCAL",
            finish_time: clock::now_epoch_ms(),
            failed,
            killed,
        }
    }

    fn post_task_end(&self, tid: TaskId, task: &RunningTask, reason: TaskEndReason) {
        // Nothing below is needed unless the bus records (it reads the clock and two stages).
        if !self.bus.enabled() {
            return;
        }
        let (failed, killed) = match &reason {
            TaskEndReason::Success | TaskEndReason::Resubmitted => (false, false),
            TaskEndReason::TaskKilled { .. } => (true, true),
            _ => (true, false),
        };
        let shuffle_map = !self.stages[&task.key.1].is_result;
        let stage_attempt_id = self.stages[&task.key.1].attempt;
        let run_time_ms = clock::now_ms().saturating_sub(task.launch_ms);
        self.bus.post(|| ListenerEvent::TaskEnd {
            stage_id: task.key.1,
            stage_attempt_id,
            shuffle_map,
            reason,
            info: Self::task_info(task, tid, failed, killed),
            run_time_ms,
        });
    }

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

    /// `DAGScheduler.handleJobSubmitted`: stages get ids parents first; the final stage is submitted
    /// once its parents are.
    pub fn submit_job(&mut self, job: JobSpec, waiter: RemoteRef) -> Vec<SchedulerEvent> {
        let job_id = self.next_job;
        self.next_job += 1;
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
            self.stages.insert(
                id,
                Stage {
                    id,
                    job_id,
                    name,
                    rdd: spec.rdd_description,
                    is_result,
                    parents,
                    tasks: spec.tasks,
                    attempt: 0,
                    submitted_ms: 0,
                    submitted_epoch: 0,
                    done: false,
                    submitted: false,
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
        info!(log, DAG, "Missing parents: List({})", parents.join(", "));
        self.jobs.insert(
            job_id,
            ActiveJob {
                waiter,
                final_stage,
                results: vec![None; partitions],
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
        self.submit_stage(final_stage);
        vec![SchedulerEvent::Revive]
    }

    /// `submitStage`: parents first; a stage whose parents are done gets its task set.
    fn submit_stage(&mut self, id: u32) {
        let parents: Vec<u32> = self.stages[&id]
            .parents
            .iter()
            .copied()
            .filter(|p| !self.stages[p].done)
            .collect();
        if parents.is_empty() {
            if !self.stages[&id].submitted {
                self.submit_missing_tasks(id);
            }
            return;
        }
        for p in parents {
            self.submit_stage(p);
        }
    }

    fn submit_missing_tasks(&mut self, id: u32) {
        let log = self.log.clone();
        let kind = self.stage_kind(id);
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.submitted = true;
        stage.submitted_ms = clock::now_ms();
        stage.submitted_epoch = clock::now_epoch_ms();
        let n = stage.tasks.len() as u32;
        info!(
            log,
            DAG, "Submitting {kind} ({}), which has no missing parents", stage.rdd
        );
        info!(
            log,
            DAG,
            "Submitting {n} missing tasks from {kind} ({}) (first 15 tasks are for partitions {})",
            stage.rdd,
            partitions_preview(n)
        );
        let key = (stage.job_id, id);
        info!(
            log,
            TS, "Adding task set {id}.{} with {n} tasks resource profile 0", stage.attempt
        );
        let tsm = TaskSetManager {
            stage_attempt: stage.attempt,
            pending: (0..n).collect(),
            successful: vec![false; n as usize],
            num_successful: 0,
            failures: vec![0; n as usize],
            launches: vec![0; n as usize],
            output_on: vec![None; n as usize],
            zombie: false,
            running: 0,
            finished: false,
            recent_exceptions: BTreeMap::new(),
        };
        self.task_sets.insert(key, tsm);
        if self.bus.enabled() {
            let stage = self.stage_info(id, None);
            self.bus.post(|| ListenerEvent::StageSubmitted { stage });
        }
        if n > 0 {
            self.runnable.insert(key);
        }
    }

    /// `resourceOffers` for one executor: FIFO over the runnable task sets.
    pub fn resource_offer(&mut self, offer: &mut WorkerOffer) -> Vec<TaskDescription> {
        let mut launched = Vec::new();
        self.resource_offer_into(offer, &mut launched);
        launched
    }

    /// `resource_offer` into the caller's list (the driver reuses one for every offer).
    pub fn resource_offer_into(
        &mut self,
        offer: &mut WorkerOffer,
        launched: &mut Vec<TaskDescription>,
    ) {
        while offer.cores >= self.task_cpus {
            let Some(&key) = self.runnable.first() else {
                break;
            };
            let Some(index) = self
                .task_sets
                .get_mut(&key)
                .and_then(|t| t.pending.pop_front())
            else {
                self.runnable.remove(&key);
                continue;
            };
            if self.task_sets[&key].pending.is_empty() {
                self.runnable.remove(&key);
            }
            offer.cores -= self.task_cpus;
            launched.push(self.launch(key, index, offer));
        }
    }

    fn launch(&mut self, key: (u32, u32), index: u32, offer: &WorkerOffer) -> TaskDescription {
        let task_id = TaskId(self.next_task);
        self.next_task += 1;
        self.tasks_launched += 1;
        let tsm = self.task_sets.get_mut(&key).expect("runnable task set");
        let attempt = tsm.launches[index as usize];
        tsm.launches[index as usize] += 1;
        tsm.running += 1;
        let stage_attempt = tsm.stage_attempt;
        let name = TaskName {
            index,
            attempt,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
        };
        info!(
            self.log,
            TSM,
            "Starting {name} (TID {task_id}) ({},executor {}, partition {index}, PROCESS_LOCAL, {TASK_BYTES} bytes) ",
            offer.host,
            offer.executor_id
        );
        let work = self.stages[&key.1].tasks[index as usize].clone();
        let launch_ms = clock::now_ms();
        self.running.insert(
            task_id,
            Box::new(RunningTask {
                task_id,
                key,
                index,
                attempt,
                executor_id: offer.executor_id,
                host: offer.host.clone(),
                launch_ms,
                launch_epoch: clock::epoch_ms() + launch_ms,
                launching: true,
            }),
        );
        self.by_executor
            .get_or_insert_default(offer.executor_id)
            .insert(task_id);
        if self.bus.enabled() {
            let mut info = Self::task_info(
                self.running.get(task_id).expect("just launched"),
                task_id,
                false,
                false,
            );
            info.finish_time = 0;
            self.bus.post(|| ListenerEvent::TaskStart {
                stage_id: key.1,
                stage_attempt_id: stage_attempt,
                info,
            });
        }
        TaskDescription {
            task_id,
            attempt_number: attempt,
            executor_id: offer.executor_id,
            index,
            partition_id: index,
            stage_id: key.1,
            stage_attempt_id: stage_attempt,
            cpus: self.task_cpus,
            work,
        }
    }

    /// `statusUpdate`: returns whether the task was known and finished (its cores come back).
    pub fn status_update(
        &mut self,
        tid: TaskId,
        state: TaskState,
        data: TaskResultData,
    ) -> (bool, Vec<SchedulerEvent>) {
        if state == TaskState::Running {
            if let Some(t) = self.running.get_mut(tid) {
                t.launching = false;
            }
            return (false, Vec::new());
        }
        if !state.is_finished() {
            return (false, Vec::new());
        }
        let Some(task) = self.running.remove(tid).map(|t| *t) else {
            // logError in Spark 4.0.0's TaskSchedulerImpl.statusUpdate (read from its jar).
            error!(
                self.log,
                TS,
                "Ignoring update with state {state} for TID {tid} because its task set is gone (this is likely the result of receiving duplicate task finished status updates) or its executor has been marked as failed."
            );
            return (false, Vec::new());
        };
        if let Some(set) = self.by_executor.get_mut(task.executor_id) {
            set.remove(&tid);
        }
        self.task_ended(task.key);
        let events = match (state, data) {
            (TaskState::Finished, data) => self.handle_success(tid, task, data),
            (_, TaskResultData::Exception { class, description }) => {
                let reason = format!("{class}: {description}");
                let end = TaskEndReason::ExceptionFailure { class, description };
                self.handle_failure(tid, task, reason, end, true)
            }
            (_, data) => {
                // TaskKilled(reason): the reason the KillTask gave (TaskEndReason.scala:
                // `toErrorString = s"TaskKilled ($reason)"`); it does not count as a failure.
                let reason = match data {
                    TaskResultData::Killed { reason } => reason,
                    _ => "unknown reason".to_string(),
                };
                let text = format!("TaskKilled ({reason})");
                let end = TaskEndReason::TaskKilled { reason };
                self.handle_failure(tid, task, text, end, false)
            }
        };
        (true, events)
    }

    /// `TaskSetManager.removeRunningTask`: one attempt of the set ended.
    fn task_ended(&mut self, key: (u32, u32)) {
        if let Some(tsm) = self.task_sets.get_mut(&key) {
            tsm.running = tsm.running.saturating_sub(1);
        }
    }

    /// `TaskSetManager.maybeFinishTaskSet` -> `TaskSchedulerImpl.taskSetFinished`: a zombie set
    /// with no running task leaves its pool. Spark 4.0.0's text (TaskSchedulerImpl.scala,
    /// taskSetFinished): `Removed TaskSet 0.0 whose tasks have all completed, from pool ` (no
    /// comma after the id; the root pool's name is empty).
    fn maybe_finish_task_set(&mut self, key: (u32, u32)) {
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        if !tsm.zombie || tsm.running > 0 || tsm.finished {
            return;
        }
        tsm.finished = true;
        info!(
            self.log,
            TS,
            "Removed TaskSet {}.{} whose tasks have all completed, from pool ",
            key.1,
            tsm.stage_attempt
        );
    }

    /// `TaskSchedulerImpl.killAllTaskAttempts` (Spark 4.0): `Canceling stage N`, `Killing all
    /// running tasks in stage N: <reason>`, a KillTask for each running attempt of each set of
    /// the stage still registered, which is suspended (zombie) and logs `Stage N.A was
    /// cancelled`. A set leaves its pool only when its last attempt ends.
    fn kill_all_task_attempts(
        &mut self,
        key: (u32, u32),
        reason: &str,
        events: &mut Vec<SchedulerEvent>,
    ) {
        info!(self.log, TS, "Canceling stage {}", key.1);
        info!(
            self.log,
            TS, "Killing all running tasks in stage {}: {reason}", key.1
        );
        let Some(tsm) = self.task_sets.get_mut(&key) else {
            return;
        };
        if tsm.finished {
            return;
        }
        let stage_attempt = tsm.stage_attempt;
        if tsm.running > 0 {
            // Rare (an abort with attempts still out): the running table's window, in task id
            // order, for this set's attempts.
            let mut kills: Vec<(TaskId, ExecutorId)> = Vec::new();
            for t in self.running.values() {
                if t.key == key {
                    kills.push((t.task_id, t.executor_id));
                }
            }
            for (task_id, executor_id) in kills {
                events.push(SchedulerEvent::KillTask {
                    task_id,
                    executor_id,
                    reason: reason.to_string(),
                });
            }
        }
        // `tsm.suspend()`: zombie, and finished at once if nothing runs.
        if let Some(t) = self.task_sets.get_mut(&key) {
            t.zombie = true;
            t.pending.clear();
        }
        self.runnable.remove(&key);
        self.maybe_finish_task_set(key);
        info!(
            self.log,
            TS, "Stage {}.{stage_attempt} was cancelled", key.1
        );
    }

    fn handle_success(
        &mut self,
        tid: TaskId,
        task: RunningTask,
        data: TaskResultData,
    ) -> Vec<SchedulerEvent> {
        self.post_task_end(tid, &task, TaskEndReason::Success);
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return Vec::new();
        };
        let idx = task.index as usize;
        if tsm.successful[idx] {
            info!(
                self.log,
                TSM,
                "Ignoring task-finished event for {} in stage {}.{} because task {} has already completed successfully",
                task.index,
                task.key.1,
                tsm.stage_attempt,
                task.index
            );
            return Vec::new();
        }
        self.task_outputs.push(TaskOutput::Succeeded {
            stage: task.key.1,
            stage_attempt: tsm.stage_attempt,
            index: task.index,
            already: tsm.successful[idx],
        });
        tsm.successful[idx] = true;
        tsm.num_successful += 1;
        tsm.output_on[idx] = Some(task.executor_id);
        let total = tsm.successful.len();
        let (done, stage_attempt) = (tsm.num_successful as usize == total, tsm.stage_attempt);
        info!(
            self.log,
            TSM,
            "Finished task {}.{} in stage {}.{stage_attempt} (TID {tid}) in {} ms on {} (executor {}) ({}/{total})",
            task.index,
            task.attempt,
            task.key.1,
            clock::now_ms() - task.launch_ms,
            task.host,
            task.executor_id,
            tsm.num_successful
        );
        if let Some(job) = self
            .jobs
            .get_mut(&task.key.0)
            .filter(|j| j.final_stage == task.key.1)
        {
            job.results[idx] = Some(data);
        } else {
            self.outputs_by_executor
                .entry(task.executor_id)
                .or_default()
                .push((task.key, task.index));
        }
        if !done {
            return Vec::new();
        }
        if let Some(t) = self.task_sets.get_mut(&task.key) {
            t.zombie = true;
        }
        let _ = stage_attempt;
        self.maybe_finish_task_set(task.key);
        self.stage_completed(task.key)
    }

    fn stage_completed(&mut self, key: (u32, u32)) -> Vec<SchedulerEvent> {
        let log = self.log.clone();
        let kind = self.stage_kind(key.1);
        let stage = self.stages.get_mut(&key.1).expect("known stage");
        stage.done = true;
        // DAGScheduler.markStageAsFinished (4.0): `serviceTime` is a Long of ms.
        let ms = clock::now_ms() - stage.submitted_ms;
        info!(log, DAG, "{kind} ({}) finished in {ms} ms", stage.name);
        let is_result = stage.is_result;
        if self.bus.enabled() {
            let stage = self.stage_info(key.1, None);
            self.bus.post(|| ListenerEvent::StageCompleted { stage });
        }
        if is_result {
            let job_id = key.0;
            info!(
                log,
                DAG,
                "Job {job_id} is finished. Cancelling potential speculative or zombie tasks for this job"
            );
            // DAGScheduler.handleTaskCompletion: killAllTaskAttempts(stageId, _, "Stage finished")
            // on every job end (the set has already left its pool, so nothing is killed).
            let mut kills = Vec::new();
            self.kill_all_task_attempts(key, "Stage finished", &mut kills);
            let Some(job) = self.jobs.remove(&job_id) else {
                return kills;
            };
            let results = job
                .results
                .into_iter()
                .map(|r| r.unwrap_or(TaskResultData::None))
                .collect();
            let time = clock::now_epoch_ms();
            self.bus.post(|| ListenerEvent::JobEnd {
                job_id,
                time,
                result: None,
            });
            kills.push(SchedulerEvent::JobEnded {
                waiter: job.waiter,
                job_id,
                result: JobResult::Succeeded(results),
            });
            return kills;
        }
        info!(log, DAG, "looking for newly runnable stages");
        let waiting = self.waiting_stages(key.0);
        let names: Vec<String> = waiting.iter().map(|w| self.stage_kind(*w)).collect();
        info!(log, DAG, "running: Set()");
        info!(log, DAG, "waiting: Set({})", names.join(", "));
        info!(log, DAG, "failed: Set()");
        for w in waiting {
            self.submit_stage(w);
        }
        vec![SchedulerEvent::Revive]
    }

    /// The job's stages not submitted yet, in id order (`waitingStages` of that job).
    fn waiting_stages(&self, job_id: u32) -> Vec<u32> {
        let Some(&(first, last)) = self.job_stages.get(&job_id) else {
            return Vec::new();
        };
        self.stages
            .range(first..=last)
            .filter(|(_, s)| s.job_id == job_id && !s.submitted)
            .map(|(id, _)| *id)
            .collect()
    }

    /// A failed attempt: retry, or abort the job after `spark.task.maxFailures`.
    /// `TaskSetManager.handleFailedTask` (Spark 4.0): the `Lost task` line is WARN, except an
    /// executor loss not caused by the app (INFO, not counted) and a repeat of an exception
    /// within `spark.logging.exceptionPrintInterval` (INFO, `[duplicate N]`).
    fn handle_failure(
        &mut self,
        tid: TaskId,
        task: RunningTask,
        reason: String,
        end: TaskEndReason,
        counts: bool,
    ) -> Vec<SchedulerEvent> {
        self.post_task_end(tid, &task, end.clone());
        self.failed_attempts += 1;
        let Some(tsm) = self.task_sets.get_mut(&task.key) else {
            return Vec::new();
        };
        let idx = task.index as usize;
        let stage_attempt = tsm.stage_attempt;
        let name = TaskName {
            index: task.index,
            attempt: task.attempt,
            stage_id: task.key.1,
            stage_attempt_id: stage_attempt,
        };
        let lost = format!(
            "Lost {name} (TID {tid}) ({} executor {}): {reason}",
            task.host, task.executor_id
        );
        match &end {
            TaskEndReason::ExecutorLostFailure {
                exit_caused_by_app: false,
                ..
            } => info!(
                self.log,
                TSM,
                "{name} (TID {tid}) failed because while it was being computed, its executor exited for a reason unrelated to the task. Not counting this failure towards the maximum number of failures for the task."
            ),
            TaskEndReason::ExceptionFailure { class, description } => {
                let now = clock::now_ms();
                let dup = match tsm.recent_exceptions.get_mut(description) {
                    Some((count, printed)) if now - *printed <= EXCEPTION_PRINT_INTERVAL_MS => {
                        *count += 1;
                        Some(*count)
                    }
                    Some(entry) => {
                        *entry = (0, now);
                        None
                    }
                    None => {
                        tsm.recent_exceptions.insert(description.clone(), (0, now));
                        None
                    }
                };
                match dup {
                    Some(n) => info!(
                        self.log,
                        TSM,
                        "Lost {name} (TID {tid}) on {}, executor {}: {class} ({description}) [duplicate {n}]",
                        task.host,
                        task.executor_id
                    ),
                    None => warn!(self.log, TSM, "{lost}"),
                }
            }
            _ => warn!(self.log, TSM, "{lost}"),
        }
        if tsm.successful[idx] || tsm.zombie {
            self.maybe_finish_task_set(task.key);
            return Vec::new();
        }
        if counts {
            tsm.failures[idx] += 1;
        }
        if tsm.failures[idx] >= self.max_failures {
            let n = tsm.failures[idx];
            error!(
                self.log,
                TSM,
                "Task {} in stage {}.{stage_attempt} failed {n} times; aborting job",
                task.index,
                task.key.1
            );
            let message = format!(
                "Job aborted due to stage failure: Task {} in stage {}.{stage_attempt} failed {n} times, most recent failure: {lost}\nDriver stacktrace:",
                task.index, task.key.1
            );
            return self.abort_stage(task.key, message);
        }
        tsm.pending.push_back(task.index);
        self.runnable.insert(task.key);
        vec![SchedulerEvent::Revive]
    }

    /// `TaskSetManager.abort` (zombie; leaves its pool once nothing runs), then
    /// `DAGScheduler.abortStage` -> `failJobAndIndependentStages` ->
    /// `cancelRunningIndependentStages`: `killAllTaskAttempts` with the job's error message, and
    /// `markStageAsFinished` (`failed in <ms> ms due to ...`).
    fn abort_stage(&mut self, key: (u32, u32), message: String) -> Vec<SchedulerEvent> {
        let log = self.log.clone();
        if let Some(t) = self.task_sets.get_mut(&key) {
            t.zombie = true;
            t.pending.clear();
        }
        self.runnable.remove(&key);
        self.maybe_finish_task_set(key);
        let mut events = Vec::new();
        self.kill_all_task_attempts(key, &message, &mut events);
        let kind = self.stage_kind(key.1);
        let stage = &self.stages[&key.1];
        let ms = clock::now_ms() - stage.submitted_ms;
        info!(
            log,
            DAG, "{kind} ({}) failed in {ms} ms due to {message}", stage.name
        );
        if self.bus.enabled() {
            let stage = self.stage_info(key.1, Some(message.clone()));
            self.bus.post(|| ListenerEvent::StageCompleted { stage });
        }
        let Some(job) = self.jobs.remove(&key.0) else {
            return events;
        };
        let (job_id, time, failure) = (key.0, clock::now_epoch_ms(), message.clone());
        self.bus.post(|| ListenerEvent::JobEnd {
            job_id,
            time,
            result: Some(failure),
        });
        events.push(SchedulerEvent::JobEnded {
            waiter: job.waiter,
            job_id: key.0,
            result: JobResult::Failed(message),
        });
        events
    }

    /// `TaskSetManager.executorLost` for every task set: running tasks fail with
    /// ExecutorLostFailure; finished map outputs held there are re-run ("Resubmitted").
    pub fn executor_lost(
        &mut self,
        eid: ExecutorId,
        reason: &ExecutorLossReason,
    ) -> Vec<SchedulerEvent> {
        let mut events = Vec::new();
        let tids: Vec<TaskId> = self
            .by_executor
            .remove(eid)
            .map(SmallSet::into_sorted)
            .unwrap_or_default();
        for tid in tids {
            let Some(task) = self.running.remove(tid).map(|t| *t) else {
                continue;
            };
            self.task_ended(task.key);
            let by_app = reason.exit_caused_by_app() && !task.launching;
            let cause = if by_app {
                "caused by one of the running tasks"
            } else {
                "unrelated to the running tasks"
            };
            let text =
                format!("ExecutorLostFailure (executor {eid} exited {cause}) Reason: {reason}");
            let end = TaskEndReason::ExecutorLostFailure {
                executor_id: eid.to_string(),
                exit_caused_by_app: by_app,
                loss_reason: reason.to_string(),
            };
            events.extend(self.handle_failure(tid, task, text, end, by_app));
        }
        self.resubmit_lost_outputs(eid, &mut events);
        events
    }

    fn resubmit_lost_outputs(&mut self, eid: ExecutorId, events: &mut Vec<SchedulerEvent>) {
        for (key, index) in self.outputs_by_executor.remove(&eid).unwrap_or_default() {
            let Some(tsm) = self.task_sets.get_mut(&key) else {
                continue;
            };
            let idx = index as usize;
            if tsm.zombie || !tsm.successful[idx] || tsm.output_on[idx] != Some(eid) {
                continue;
            }
            tsm.successful[idx] = false;
            tsm.num_successful -= 1;
            tsm.output_on[idx] = None;
            self.task_outputs.push(TaskOutput::Lost {
                stage: key.1,
                stage_attempt: tsm.stage_attempt,
                index,
            });
            tsm.pending.push_back(index);
            info!(
                self.log,
                TSM,
                "Resubmitted ShuffleMapTask({}, {index}), so marking it as still running.",
                key.1
            );
            self.runnable.insert(key);
            events.push(SchedulerEvent::Revive);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use sparkyard_messages::rpc::{EndpointId, RpcEndpointAddress};
    use sparkyard_messages::task::StageSpec;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn scheduler() -> Scheduler {
        let store = Rc::new(RefCell::new(LogStore::new(false)));
        Scheduler::new(
            ProcessLog::new("driver", store),
            ContextBus::disabled(),
            4,
            1,
        )
    }

    /// A scheduler whose log lines are kept, and a way to read them.
    fn logged_scheduler() -> (Scheduler, Rc<RefCell<LogStore>>) {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let s = Scheduler::new(
            ProcessLog::new("driver", store.clone()),
            ContextBus::disabled(),
            4,
            1,
        );
        (s, store)
    }

    /// The logged lines without their timestamps (`LEVEL Logger: text`).
    fn lines(store: &Rc<RefCell<LogStore>>) -> Vec<String> {
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
        spec.tasks.push(spec.tasks[0].clone());
        JobSpec {
            call_site: "count at X.scala:1".into(),
            stages: vec![spec],
        }
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

    fn stage(rdd: &str, parents: Vec<usize>) -> StageSpec {
        StageSpec {
            rdd_description: rdd.into(),
            num_partitions: 1,
            parents,
            tasks: vec![TaskWork::Sleep {
                duration_ms: 1,
                fail: None,
            }],
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

    /// A job's waiting stages come from its own id range (a finished stage does not walk every
    /// stage of every earlier job), and are the ones a walk over all stages would find.
    #[test]
    fn waiting_stages_are_the_jobs_own_unsubmitted_stages() {
        let mut s = scheduler();
        for _ in 0..3 {
            s.submit_job(two_stage_job(), waiter());
        }
        for job in 0..3 {
            let walk: Vec<u32> = s
                .stages
                .values()
                .filter(|st| st.job_id == job && !st.submitted)
                .map(|st| st.id)
                .collect();
            assert_eq!(s.waiting_stages(job), walk);
            // Stage 2j is the map stage (submitted), 2j + 1 the result stage (waiting).
            assert_eq!(walk, vec![2 * job + 1]);
        }
        assert_eq!(s.job_stages[&2], (4, 5));
        assert!(s.waiting_stages(7).is_empty());
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
        }
    }

    /// Offers one core of executor 1 and returns the task launched there.
    fn launch_one(s: &mut Scheduler) -> TaskDescription {
        let mut launched = s.resource_offer(&mut offer(1));
        assert_eq!(launched.len(), 1, "one task pending");
        launched.remove(0)
    }

    fn boom() -> TaskResultData {
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
        assert_eq!(s.failed_attempts, 6);
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
        let (_, events) =
            s.status_update(task.task_id, TaskState::Finished, TaskResultData::Count(7));
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
        assert_eq!(s.failed_attempts, 0);
    }

    /// Spark 4.0 TaskSchedulerImpl.killAllTaskAttempts and DAGScheduler
    /// cancelRunningIndependentStages / markStageAsFinished: aborting a stage whose other task
    /// still runs logs `Canceling stage`, `Killing all running tasks in stage 0: <the job's
    /// error>` (no `Stage cancelled: ` prefix), kills that task on its executor, logs `Stage 0.0
    /// was cancelled`, and the set leaves its pool (`Removed TaskSet`) only once the killed
    /// task reports back, with TaskKilled carrying the kill's reason.
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
            },
            SchedulerEvent::JobEnded { .. },
        ] = events.as_slice()
        else {
            panic!("a kill for the running task, then the job's end: {events:?}");
        };
        assert_eq!((*task_id, *executor_id), (t1.task_id, ExecutorId(2)));
        assert!(
            reason.starts_with(
                "Job aborted due to stage failure: Task 0 in stage 0.0 failed 4 times"
            )
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
            "WARN TaskSetManager: Lost task 1.0 in stage 0.0 (TID {}) (host1 executor 2): TaskKilled (Job aborted due to stage failure: ",
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
}
