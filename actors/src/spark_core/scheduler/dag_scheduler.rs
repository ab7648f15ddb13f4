//! `DAGScheduler` (Spark: `scheduler/DAGScheduler.scala`): jobs, stages and their parents,
//! stage submission, completion and abort, and the event log's `StageInfo`.

use super::*;

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
    pub(super) fn submit_stage(&mut self, id: u32) {
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

    pub(super) fn submit_missing_tasks(&mut self, id: u32) {
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

    pub(super) fn stage_completed(&mut self, key: (u32, u32)) -> Vec<SchedulerEvent> {
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
    pub(super) fn waiting_stages(&self, job_id: u32) -> Vec<u32> {
        let Some(&(first, last)) = self.job_stages.get(&job_id) else {
            return Vec::new();
        };
        self.stages
            .range(first..=last)
            .filter(|(_, s)| s.job_id == job_id && !s.submitted)
            .map(|(id, _)| *id)
            .collect()
    }

    /// `TaskSetManager.abort` (zombie; leaves its pool once nothing runs), then
    /// `DAGScheduler.abortStage` -> `failJobAndIndependentStages` ->
    /// `cancelRunningIndependentStages`: `killAllTaskAttempts` with the job's error message, and
    /// `markStageAsFinished` (`failed in <ms> ms due to ...`).
    pub(super) fn abort_stage(&mut self, key: (u32, u32), message: String) -> Vec<SchedulerEvent> {
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
