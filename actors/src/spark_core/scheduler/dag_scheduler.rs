//! `DAGScheduler` (Spark: `scheduler/DAGScheduler.scala`): jobs, stages and their parents,
//! stage submission (`submitStage`, `submitMissingTasks`), completion of result and shuffle-map
//! tasks, fetch failures and the resubmission of failed stages, executor loss
//! (`removeExecutorAndUnregisterOutputs`), aborts, and the event log's `StageInfo`.

use super::locality::PreferredLocations;
use super::task_set_manager::LocalityContext;
use super::*;
use crate::spark_core::block_manager_master::{BlockAdded, RddBlockId};
use crate::spark_core::unified_memory_manager::bytes_to_string;
use crate::world::observer::Recovery;

impl Scheduler {
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
            shuffle_write: s.shuffle_write,
            input: s.input,
            lineage: s.lineage.clone(),
            task_locality_preferences: Vec::new(),
        }
    }

    /// `Stage.toString`: `ResultStage 1`, `ShuffleMapStage 0`.
    pub(super) fn stage_kind(&self, id: u32) -> String {
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
    pub(super) fn task_string(&self, stage: u32, partition: u32) -> String {
        let kind = if self.stages[&stage].is_result {
            "ResultTask"
        } else {
            "ShuffleMapTask"
        };
        format!("{kind}({stage}, {partition})")
    }

    /// Scala's `Set(...)` of stages, as the `running:`/`waiting:`/`failed:` lines print them.
    fn stage_set(&self, set: &BTreeSet<u32>) -> String {
        let names: Vec<String> = set.iter().map(|s| self.stage_kind(*s)).collect();
        format!("Set({})", names.join(", "))
    }

    /// `DAGScheduler.handleJobSubmitted`: stages get ids parents first, each shuffle-map stage
    /// its shuffle (registered with the MapOutputTracker); the final stage is submitted once
    /// its parents are.
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
            let program_shuffle = spec.lineage.as_ref().and_then(|l| l.shuffle_id);
            let num_maps = spec.tasks.len() as u32;
            let shuffle_id = (!is_result).then(|| self.shuffle_for(program_shuffle, num_maps));
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
                    tasks: spec.tasks,
                    shuffle_id,
                    shuffle_write: spec.shuffle_write,
                    input: spec.input,
                    input_path: spec.input_path,
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
            .missing_parents(final_stage)
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
        self.submit_stage(final_stage);
        vec![SchedulerEvent::Revive]
    }

    /// A new shuffle-map stage's shuffle: the program's `shuffleId` when it gives one (a
    /// shuffle an earlier job registered keeps its map outputs: `createShuffleMapStage` finds
    /// it in the MapOutputTracker and the stage is skipped unless outputs are missing), else
    /// the next id.
    fn shuffle_for(&mut self, program_shuffle: Option<u32>, num_maps: u32) -> u32 {
        let sid = program_shuffle.unwrap_or(self.next_shuffle);
        self.next_shuffle = self.next_shuffle.max(sid + 1);
        // Registering a known shuffle keeps its statuses.
        self.tracker.register_shuffle(sid, num_maps);
        sid
    }

    /// `getMissingParentStages`: parents whose shuffle output is not all registered, by id.
    pub(super) fn missing_parents(&self, id: u32) -> Vec<u32> {
        self.stages[&id]
            .parents
            .iter()
            .copied()
            .filter(|p| {
                self.stages[p]
                    .shuffle_id
                    .is_some_and(|sid| !self.tracker.is_available(sid))
            })
            .collect()
    }

    /// `submitStage`: a stage not waiting, running or failed is submitted if its parents'
    /// outputs are all there; otherwise its missing parents are, and it waits.
    pub(super) fn submit_stage(&mut self, id: u32) {
        if !self.jobs.contains_key(&self.stages[&id].job_id)
            || self.waiting_stages.contains(&id)
            || self.running_stages.contains(&id)
            || self.failed_stages.contains(&id)
        {
            return;
        }
        let missing = self.missing_parents(id);
        if missing.is_empty() {
            let kind = self.stage_kind(id);
            info!(
                self.log,
                DAG, "Submitting {kind} ({}), which has no missing parents", self.stages[&id].rdd
            );
            self.submit_missing_tasks(id);
            return;
        }
        for p in missing {
            self.submit_stage(p);
        }
        self.waiting_stages.insert(id);
    }

    /// `findMissingPartitions`: a shuffle-map stage's map indices with no registered output, a
    /// result stage's partitions its job has no result for.
    fn missing_partitions(&self, id: u32) -> Vec<u32> {
        let s = &self.stages[&id];
        if let Some(sid) = s.shuffle_id {
            return self.tracker.missing_partitions(sid);
        }
        self.jobs
            .get(&s.job_id)
            .map_or_else(Vec::new, |j| j.results.missing())
    }

    /// `submitMissingTasks`: a new stage attempt with a task per missing partition.
    pub(super) fn submit_missing_tasks(&mut self, id: u32) {
        let log = self.log.clone();
        let kind = self.stage_kind(id);
        let partitions = self.missing_partitions(id);
        let epoch = self.tracker.epoch();
        let missing_parents = self.missing_parents(id).len() as u32;
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.attempt = stage.next_attempt;
        stage.next_attempt += 1;
        stage.submitted = true;
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
        let key = (stage.job_id, id, stage.attempt);
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
            // not): no task set; the stage finishes at once and its children are submitted.
            if self.bus.enabled() {
                let stage = self.stage_info(id, None);
                self.bus.post(|| ListenerEvent::StageSubmitted { stage });
            }
            self.mark_stage_as_finished(id, None);
            self.submit_waiting_child_stages(id);
            return;
        }
        info!(
            log,
            DAG,
            "Submitting {n} missing tasks from {kind} ({}) (first 15 tasks are for partitions {})",
            stage.rdd,
            partitions_preview(&partitions)
        );
        info!(
            log,
            TS, "Adding task set {id}.{} with {n} tasks resource profile 0", stage.attempt
        );
        let prefs = self.task_preferred_locations(id, &partitions);
        // StageInfo.taskLocalityPreferences, for the listeners (dynamic allocation's hints).
        let hint_prefs = if self.bus.enabled() {
            stage_locality_preferences(&prefs.hosts)
        } else {
            Vec::new()
        };
        let cx = LocalityContext {
            topology: &self.topology,
            settings: &self.locality,
            now_ms: clock::now_ms(),
        };
        let tsm = TaskSetManager::new(stage.attempt, partitions, epoch, prefs, &cx);
        self.task_sets.insert(key, tsm);
        self.speculation_for_new_set(key, n);
        if self.bus.enabled() {
            let mut stage = self.stage_info(id, None);
            stage.task_locality_preferences = hint_prefs;
            self.bus.post(|| ListenerEvent::StageSubmitted { stage });
        }
        self.runnable.insert(key);
    }

    /// `getPreferredLocs` for each task of a new stage attempt (`taskIdToLocations`):
    /// `getPreferredLocsInternal` asks first where the partition is cached (`getCacheLocs`), then
    /// for the RDD's own preferences, then down its narrow dependencies. A task over a cached
    /// RDD's partition prefers the executor holding the block (`ExecutorCacheTaskLocation`);
    /// the others keep `stage_preferred_hosts`. Spark's `cacheLocs` is cleared at each job
    /// submission, map stage completion and executor loss, the moments a stage is submitted
    /// here, so the BlockManagerMaster's current locations are read at submission.
    fn task_preferred_locations(&self, id: u32, partitions: &[u32]) -> PreferredLocations {
        let hosts = self.stage_preferred_hosts(id, partitions);
        if self.rdd_blocks.is_empty() {
            return PreferredLocations::hosts(hosts);
        }
        let stage = &self.stages[&id];
        let cached: Vec<Option<(ExecutorId, Rc<str>)>> = partitions
            .iter()
            .map(|&p| match stage.tasks.get(p as usize) {
                Some(TaskWork::CachedRdd(read)) => self.cache_location(read.rdd_id, p),
                _ => None,
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

    /// `getCacheLocs(rdd)(partition)`: `TaskLocation(bm.host, bm.executorId)` of the block
    /// manager holding `rdd_<rdd>_<partition>` (one replica: MEMORY_ONLY).
    fn cache_location(&self, rdd_id: u32, partition: u32) -> Option<(ExecutorId, Rc<str>)> {
        let block = RddBlockId { rdd_id, partition };
        let executor = self.rdd_blocks.location(block)?;
        let host = self.block_managers.get(executor)?;
        Some((executor, host.clone()))
    }

    /// The hosts each task of a new stage attempt prefers without a cached partition: the hosts
    /// of the partition's input blocks, else, for a stage reading one shuffle (a ShuffledRDD),
    /// `MapOutputTrackerMaster.getPreferredLocationsForShuffle`: with
    /// `spark.shuffle.reduceLocality.enabled` and fewer than SHUFFLE_PREF_MAP_THRESHOLD (1000)
    /// maps and SHUFFLE_PREF_REDUCE_THRESHOLD (1000) reduces, the hosts holding at least
    /// REDUCER_PREF_LOCS_FRACTION (0.2) of its input. Empty when no task has a preference.
    fn stage_preferred_hosts(&self, id: u32, partitions: &[u32]) -> Vec<Vec<Rc<str>>> {
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
        if !self.locality.reduce_locality_enabled
            || num_maps >= SHUFFLE_PREF_MAP_THRESHOLD
            || num_reduces >= SHUFFLE_PREF_REDUCE_THRESHOLD
        {
            return Vec::new();
        }
        let Some(locations) = self
            .tracker
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
    pub(super) fn mark_stage_as_finished(&mut self, id: u32, error: Option<&str>) {
        let kind = self.stage_kind(id);
        let stage = self.stages.get_mut(&id).expect("known stage");
        stage.done = true;
        let ms = clock::now_ms() - stage.submitted_ms;
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

    /// `handleTaskCompletion` for a successful ResultTask: its job's result; the last one ends
    /// the job.
    pub(super) fn result_task_succeeded(
        &mut self,
        job_id: u32,
        stage: u32,
        partition: u32,
        data: TaskResultData,
    ) -> Vec<SchedulerEvent> {
        let Some(job) = self.jobs.get_mut(&job_id) else {
            let task = self.task_string(stage, partition);
            info!(
                self.log,
                DAG, "Ignoring result from {task} because its job has finished"
            );
            return Vec::new();
        };
        if !job.results.record(partition, data) || !job.results.is_complete() {
            return Vec::new();
        }
        self.mark_stage_as_finished(stage, None);
        info!(
            self.log,
            DAG,
            "Job {job_id} is finished. Cancelling potential speculative or zombie tasks for this job"
        );
        // DAGScheduler.handleTaskCompletion: killAllTaskAttempts(stageId, _, "Stage finished")
        // on every job end (the set has already left its pool, so nothing is killed).
        let mut events = Vec::new();
        self.kill_all_task_attempts(stage, "Stage finished", &mut events);
        let job = self.jobs.remove(&job_id).expect("checked above");
        self.cleanup_job_stages(job_id);
        let results = job.results.into_ordered();
        let time = clock::now_epoch_ms();
        self.bus.post(|| ListenerEvent::JobEnd {
            job_id,
            time,
            result: None,
        });
        events.push(SchedulerEvent::JobEnded {
            waiter: job.waiter,
            job_id,
            result: JobResult::Succeeded(results),
        });
        events
    }

    /// `handleTaskCompletion` for a successful ShuffleMapTask: its MapStatus is registered
    /// (unless the executor failed after the task's epoch), and the stage finishes when no
    /// partition is pending: its children are submitted, or the stage again if outputs were
    /// lost meanwhile.
    // Out of line: the status update's per-task body stays compact for result stages.
    #[inline(never)]
    pub(super) fn map_task_succeeded(
        &mut self,
        task: &RunningTask,
        status: Option<MapStatusData>,
    ) -> Vec<SchedulerEvent> {
        let stage_id = task.key.1;
        let Some(shuffle_id) = self.stages[&stage_id].shuffle_id else {
            return Vec::new();
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
            self.tracker.register_map_output(
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
            return Vec::new();
        }
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
        self.tracker.increment_epoch();
        if !self.tracker.is_available(shuffle_id) {
            let missing: Vec<String> = self
                .tracker
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
            self.submit_stage(stage_id);
        } else {
            self.submit_waiting_child_stages(stage_id);
        }
        vec![SchedulerEvent::Revive]
    }

    /// `submitWaitingChildStages`: the waiting stages that read `parent`, by first job.
    fn submit_waiting_child_stages(&mut self, parent: u32) {
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
            self.submit_stage(c);
        }
    }

    /// `handleResubmittedFailure`: a finished map task's output went with its executor.
    pub(super) fn handle_resubmitted(&mut self, stage: u32, partition: u32) {
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
    pub(super) fn handle_fetch_failed(
        &mut self,
        task: &RunningTask,
        failure: &FetchFailure,
    ) -> Vec<SchedulerEvent> {
        let failed = task.key.1;
        let Some(map_stage) = self.map_stage_of(failure.shuffle_id) else {
            return Vec::new();
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
            return Vec::new();
        }
        let max = self.shuffle.max_consecutive_stage_attempts;
        let stage = self.stages.get_mut(&failed).expect("known stage");
        stage.failed_attempt_ids.insert(stage_attempt);
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
        if let (Ok(map_index), Some(bm)) = (u32::try_from(failure.map_index), &failure.bm_address) {
            self.tracker
                .unregister_map_output(failure.shuffle_id, map_index, bm);
        }
        let mut events = Vec::new();
        if should_abort {
            // DAGScheduler.scala: the message's line breaks (and those of the failure) become
            // spaces (`stripMargin.replaceAll("\n", " ")`).
            let reason = format!(
                "{kind} ({name}) has failed the maximum allowable number of times: {max}. Most recent failure reason: {}",
                failure.message
            )
            .replace('\n', " ");
            events.extend(self.abort_stage(failed, &reason));
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
                events.push(SchedulerEvent::ResubmitFailedStagesAfter {
                    ms: RESUBMIT_TIMEOUT_MS,
                });
            }
        }
        if let Some(bm) = &failure.bm_address {
            // The whole host's outputs are lost with the shuffle service, or when the host is
            // being decommissioned (`isHostDecommissioned`).
            let host_lost = self.shuffle.service_enabled
                || self.decommissioned_hosts.contains_key(&bm.executor_id);
            let host = (host_lost && self.shuffle.unregister_output_on_host_on_fetch_failure)
                .then(|| bm.host.clone());
            self.remove_executor_and_unregister_outputs(
                bm.executor_id,
                true,
                host.as_deref(),
                Some(task.map_epoch),
            );
        }
        events
    }

    /// The shuffle-map stage writing `shuffle_id` (`shuffleIdToMapStage`).
    fn map_stage_of(&self, shuffle_id: u32) -> Option<u32> {
        // Shuffle ids follow stage ids in order, so the stage is at or after the shuffle id.
        self.stages
            .range(shuffle_id..)
            .find(|(_, s)| s.shuffle_id == Some(shuffle_id))
            .map(|(id, _)| *id)
    }

    /// `resubmitFailedStages`, RESUBMIT_TIMEOUT after a fetch failure: every failed stage is
    /// submitted again, by first job (then id).
    pub fn resubmit_failed_stages(&mut self) -> Vec<SchedulerEvent> {
        if self.failed_stages.is_empty() {
            return Vec::new();
        }
        info!(self.log, DAG, "Resubmitting failed stages");
        let mut failed: Vec<u32> = std::mem::take(&mut self.failed_stages)
            .into_iter()
            .collect();
        failed.sort_by_key(|s| (self.stages[s].job_id, *s));
        for s in failed {
            self.submit_stage(s);
        }
        vec![SchedulerEvent::Revive]
    }

    /// `ExecutorLost(execId, reason)` -> `handleExecutorLost(execId, workerHost)`: the worker
    /// host is an `ExecutorDecommission`'s (DAGSchedulerEventProcessLoop.doOnReceive; YARN's
    /// `ExecutorProcessLost` has none). Without the external shuffle service the executor's map
    /// outputs are gone with it; with a worker host every output served from that host is
    /// (`fileLost = workerHost.isDefined || !externalShuffleServiceEnabled`).
    pub fn dag_executor_lost(&mut self, eid: ExecutorId, reason: &ExecutorLossReason) {
        let worker_host = match reason {
            ExecutorLossReason::Decommission { worker_host, .. } => worker_host.as_deref(),
            _ => None,
        };
        let file_lost = worker_host.is_some() || !self.shuffle.service_enabled;
        self.remove_executor_and_unregister_outputs(eid, file_lost, worker_host, None);
    }

    /// The BlockManagerMaster heard a peer stored a migrated shuffle index block
    /// (`BlockManagerMasterEndpoint.updateBlockInfo` -> `MapOutputTrackerMaster.updateMapOutput`).
    pub fn update_map_output(&mut self, block: ShuffleBlockInfo, location: BlockManagerId) {
        let (shuffle_id, map_id) = (block.shuffle_id, block.map_id);
        match self
            .tracker
            .update_map_output(shuffle_id, map_id, location.clone())
        {
            MapOutputUpdate::Updated => info!(
                self.log,
                "driver::ShuffleStatus", "Updating map output for {map_id} to {location}"
            ),
            MapOutputUpdate::Recovered => info!(
                self.log,
                "driver::ShuffleStatus", "Recover {map_id} {location}"
            ),
            MapOutputUpdate::Untracked => warn!(
                self.log,
                "driver::ShuffleStatus",
                "Asked to update map output {map_id} for untracked map status."
            ),
            MapOutputUpdate::UnknownShuffle => error!(
                self.log,
                "driver::MapOutputTrackerMaster",
                "Asked to update map output for unknown shuffle {shuffle_id}"
            ),
        }
    }

    /// `removeExecutorAndUnregisterOutputs` (DAGScheduler.scala): once per epoch, `Executor
    /// lost: N (epoch E)` and the BlockManagerMaster's removal; when its files are lost, `Shuffle
    /// files lost for executor: N (epoch E)` (or `for host: H`) and the outputs leave the
    /// MapOutputTracker.
    pub(super) fn remove_executor_and_unregister_outputs(
        &mut self,
        eid: ExecutorId,
        file_lost: bool,
        host: Option<&str>,
        maybe_epoch: Option<u64>,
    ) {
        let epoch = maybe_epoch.unwrap_or(self.tracker.epoch());
        if self
            .executor_failure_epoch
            .get(&eid)
            .is_none_or(|e| *e < epoch)
        {
            self.executor_failure_epoch.insert(eid, epoch);
            info!(self.log, DAG, "Executor lost: {eid} (epoch {epoch})");
            self.block_manager_master_remove_executor(eid);
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
                self.tracker.remove_outputs_on_host(h);
            }
            None => {
                info!(
                    self.log,
                    DAG, "Shuffle files lost for executor: {eid} (epoch {epoch})"
                );
                self.tracker.remove_outputs_on_executor(eid);
            }
        }
    }

    /// The BlockManager registered for an executor (BlockManagerMasterEndpoint.register).
    pub fn block_manager_added(&mut self, eid: ExecutorId, host: std::rc::Rc<str>) {
        self.block_managers.insert(eid, host);
    }

    /// BlockManagerMasterEndpoint.getLocations of a cached RDD block, as the executor's
    /// `BlockManager.getRemoteValues` would ask it.
    pub(super) fn rdd_block_location(&self, rdd_id: u32, partition: u32) -> Option<BlockManagerId> {
        let (executor_id, host) = self.cache_location(rdd_id, partition)?;
        Some(BlockManagerId {
            executor_id,
            host: host.to_string(),
            port: block_manager_port(executor_id),
        })
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo of an RDD block an executor stored
    /// (BlockManagerInfo's `Added <block> in memory on <host:port> (size: .., free: ..)`).
    pub fn update_rdd_block_info(
        &mut self,
        location: &BlockManagerId,
        block: RddBlockId,
        mem_size: u64,
        max_memory: u64,
    ) {
        let eid = location.executor_id;
        let registered = self.block_managers.get(eid).is_some();
        let hp = format!("{}:{}", location.host, location.port);
        let size = bytes_to_string(mem_size);
        match self
            .rdd_blocks
            .update_block_info(block, eid, mem_size, max_memory, registered)
        {
            // logDebug in Spark 4.0.0 (BlockManagerInfo.updateBlockInfo's bytecode).
            BlockAdded::Added { free } => crate::debug!(
                self.log,
                "driver::BlockManagerInfo",
                "Added {block} in memory on {hp} (size: {size}, free: {})",
                bytes_to_string(free)
            ),
            BlockAdded::Updated { original, free } => crate::debug!(
                self.log,
                "driver::BlockManagerInfo",
                "Updated {block} in memory on {hp} (current size: {size}, original size: {}, free: {})",
                bytes_to_string(original),
                bytes_to_string(free)
            ),
            BlockAdded::UnknownBlockManager => {}
        }
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo with `StorageLevel.NONE`: the block manager
    /// removed an RDD block (a decommissioned executor's migrated block).
    pub fn remove_rdd_block_info(&mut self, location: &BlockManagerId, block: RddBlockId) {
        self.rdd_blocks.remove_block(block, location.executor_id);
    }

    /// BlockManagerMasterEndpoint.getReplicateInfoForRDDBlocks: the block manager's RDD blocks
    /// (one replica each, so no other location and `maxReplicas` 2); none for one that left.
    pub fn replicate_info_for_rdd_blocks(
        &self,
        location: &BlockManagerId,
    ) -> Vec<sparkyard_messages::task::ReplicateBlock> {
        let eid = location.executor_id;
        if self.block_managers.get(eid).is_none() {
            return Vec::new();
        }
        self.rdd_blocks
            .replicate_info(eid)
            .into_iter()
            .map(|(b, mem_size)| sparkyard_messages::task::ReplicateBlock {
                rdd_id: b.rdd_id,
                partition: b.partition,
                replicas: Vec::new(),
                max_replicas: 2,
                mem_size,
            })
            .collect()
    }

    /// `BlockManagerMaster.removeExecutor` -> BlockManagerMasterEndpoint.removeExecutor /
    /// removeBlockManager (which posts `SparkListenerBlockManagerRemoved`).
    fn block_manager_master_remove_executor(&mut self, eid: ExecutorId) {
        info!(
            self.log,
            "driver::BlockManagerMasterEndpoint",
            "Trying to remove executor {eid} from BlockManagerMaster."
        );
        if let Some(host) = self.block_managers.remove(eid) {
            let port = block_manager_port(eid);
            for block in self.rdd_blocks.remove_executor(eid) {
                warn!(
                    self.log,
                    "driver::BlockManagerMasterEndpoint", "No more replicas available for {block}!"
                );
            }
            info!(
                self.log,
                "driver::BlockManagerMasterEndpoint",
                "Removing block manager BlockManagerId({eid}, {host}, {port}, None)"
            );
            let time = clock::now_epoch_ms();
            self.bus.post(|| ListenerEvent::BlockManagerRemoved {
                time,
                executor_id: eid.to_string(),
                host: host.to_string(),
                port,
            });
        }
        info!(
            self.log,
            "driver::BlockManagerMaster", "Removed {eid} successfully in removeExecutor"
        );
    }

    /// Where an executor's map output is served: its node's shuffle service, or its own block
    /// manager (`BlockManager.shuffleServerId`).
    pub(super) fn executor_block_manager(&self, eid: ExecutorId, host: &str) -> BlockManagerId {
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
    pub(super) fn abort_stage(&mut self, stage: u32, reason: &str) -> Vec<SchedulerEvent> {
        let job_id = self.stages[&stage].job_id;
        let mut events = Vec::new();
        let Some(job) = self.jobs.remove(&job_id) else {
            return events;
        };
        let message = format!("Job aborted due to stage failure: {reason}");
        let (first, last) = self.job_stages[&job_id];
        let running: Vec<u32> = self.running_stages.range(first..=last).copied().collect();
        for s in running {
            self.kill_all_task_attempts(s, &message, &mut events);
            self.mark_stage_as_finished(s, Some(&message));
        }
        self.cleanup_job_stages(job_id);
        let (time, failure) = (clock::now_epoch_ms(), message.clone());
        self.bus.post(|| ListenerEvent::JobEnd {
            job_id,
            time,
            result: Some(failure),
        });
        events.push(SchedulerEvent::JobEnded {
            waiter: job.waiter,
            job_id,
            result: JobResult::Failed(message),
        });
        events
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
