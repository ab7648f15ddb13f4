//! What the recorded application itself says, without a simulation: task time and executor
//! core time (utilisation), the critical path and the ideal time on infinitely many executors,
//! and what Sparklens' simple scheduler predicts for a number of executors
//! (qubole/sparklens `CompletionEstimator.estimateAppWallClockTimeWithJobLists` with its
//! `PQParallelStageScheduler`), ported so the two models can be compared on the same log.

use super::model::{Application, Job};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// Figures of the recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub app_ms: u64,
    /// Each job's duration, submission order.
    pub job_ms: Vec<u64>,
    /// Sum of every task attempt's duration x spark.task.cpus, core-ms.
    pub task_core_ms: u64,
    /// Sum over executors of (removed or app end - added) x cores, core-ms.
    pub executor_core_ms: u64,
    /// Driver time: the application's time outside every job.
    pub driver_ms: u64,
    /// Longest chain of stages (each its longest task index, failed and killed attempts as
    /// the replay runs them: `TaskRecord::path_ms`) per job, summed, plus driver time.
    pub critical_path_ms: u64,
}

impl Recorded {
    pub fn utilization(&self) -> f64 {
        ratio(self.task_core_ms as f64, self.executor_core_ms as f64)
    }
}

pub fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// The recorded figures of `app`.
pub fn recorded(app: &Application) -> Recorded {
    let cpus = app.config.task_cpus.max(1) as u64;
    let task_core_ms = app
        .stages()
        .flat_map(|s| s.tasks.iter())
        .map(|t| {
            let failed: u64 = t.failures.iter().flatten().map(|f| f.duration_ms).sum();
            (t.duration_ms + failed) * cpus
        })
        .sum();
    let executor_core_ms = app
        .executors
        .iter()
        .map(|e| {
            let end = e.removed_ms.unwrap_or(app.end_ms).min(app.end_ms);
            end.saturating_sub(e.added_ms) * e.cores as u64
        })
        .sum();
    let driver_ms = app.duration_ms().saturating_sub(jobs_span_ms(&app.jobs));
    let critical: u64 = app.jobs.iter().map(critical_path_ms).sum();
    Recorded {
        app_ms: app.duration_ms(),
        job_ms: app.jobs.iter().map(Job::duration_ms).collect(),
        task_core_ms,
        executor_core_ms,
        driver_ms,
        critical_path_ms: critical + driver_ms,
    }
}

/// The time the jobs cover (overlapping jobs counted once).
fn jobs_span_ms(jobs: &[Job]) -> u64 {
    union_ms(
        jobs.iter()
            .map(|j| (j.submitted_ms, j.completed_ms))
            .collect(),
    )
}

/// The length of the union of `(start, end)` spans, ms (time covered by at least one of them).
pub fn union_ms(mut spans: Vec<(u64, u64)>) -> u64 {
    spans.sort_unstable();
    let (mut total, mut cur): (u64, Option<(u64, u64)>) = (0, None);
    for (s, e) in spans {
        cur = match cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    total + cur.map_or(0, |(s, e)| e.saturating_sub(s))
}

/// The job's time on infinitely many executors: the longest chain of stages, each as long as
/// its longest task index (`Stage::longest_task_ms`: a retry after the attempts that threw, a
/// killed attempt to its kill).
pub fn critical_path_ms(job: &Job) -> u64 {
    let mut finish: BTreeMap<u32, u64> = BTreeMap::new();
    for s in &job.stages {
        let ready = s
            .parents
            .iter()
            .filter_map(|p| finish.get(p))
            .max()
            .copied()
            .unwrap_or(0);
        finish.insert(s.stage_id, ready + s.longest_task_ms());
    }
    finish.values().max().copied().unwrap_or(0)
}

/// Sparklens' prediction of the application's time on `executors` x `cores` (its
/// `estimateAppWallClockTimeWithJobLists`: overlapping jobs form one group, each group runs on
/// the PQ scheduler, plus the recorded driver time).
pub fn sparklens_estimate_ms(app: &Application, executors: u32, cores: u32) -> u64 {
    let total_cores = (executors * cores).max(1) as usize;
    let mut jobs: Vec<&Job> = app.jobs.iter().collect();
    jobs.sort_by_key(|j| (j.submitted_ms, j.job_id));
    let mut groups: Vec<Vec<&Job>> = Vec::new();
    for j in jobs {
        match groups.last_mut() {
            Some(g) if g.iter().any(|x| j.submitted_ms < x.completed_ms) => g.push(j),
            _ => groups.push(vec![j]),
        }
    }
    let driver = app.duration_ms() as i64 - jobs_span_ms(&app.jobs) as i64;
    let jobs_ms: i64 = groups.iter().map(|g| group_ms(g, total_cores) as i64).sum();
    (jobs_ms + driver).max(0) as u64
}

struct Pq {
    cores: usize,
    queue: BinaryHeap<Reverse<(u64, u32)>>,
    pending: BTreeMap<u32, usize>,
    wall: u64,
}

impl Pq {
    /// `dequeOne`: the earliest-finishing task ends; returns its stage if that was its last.
    fn deque_one(&mut self) -> Option<u32> {
        let Reverse((finish, stage)) = self.queue.pop()?;
        self.wall = finish;
        let left = self.pending.entry(stage).or_default();
        *left = left.saturating_sub(1);
        (*left == 0).then_some(stage)
    }

    fn schedule(&mut self, ms: u64, stage: u32) -> Option<u32> {
        let finished = if self.queue.len() == self.cores {
            self.deque_one()
        } else {
            None
        };
        self.queue.push(Reverse((self.wall + ms.max(1), stage)));
        finished
    }

    fn complete(&self, stage: u32) -> bool {
        self.pending.get(&stage).copied().unwrap_or(0) == 0
    }
}

/// `estimateJobListWallClockTime` for one group of jobs.
fn group_ms(jobs: &[&Job], cores: usize) -> u64 {
    let real: Vec<&&Job> = jobs.iter().filter(|j| !j.stages.is_empty()).collect();
    let empty: u64 = jobs
        .iter()
        .filter(|j| j.stages.is_empty())
        .map(|j| j.duration_ms())
        .sum();
    if real.is_empty() {
        return empty;
    }
    let mut data: BTreeMap<u32, (Vec<u64>, Vec<u32>)> = BTreeMap::new();
    for j in &real {
        for s in &j.stages {
            let times = s.tasks.iter().map(|t| t.duration_ms).collect();
            data.insert(s.stage_id, (times, s.shuffle_deps.clone()));
        }
    }
    let mut pq = Pq {
        cores,
        queue: BinaryHeap::new(),
        pending: data.iter().map(|(id, (t, _))| (*id, t.len())).collect(),
        wall: 0,
    };
    let mut st = State::default();
    let max_ids: Vec<u32> = real
        .iter()
        .filter_map(|j| j.stages.iter().map(|s| s.stage_id).max())
        .collect();
    for id in &max_ids {
        schedule_stage(*id, &data, &mut st);
    }
    let max_tries = data.len() + 1;
    let mut tries = 0;
    while !max_ids.iter().all(|id| pq.complete(*id)) && tries < max_tries {
        if let Some(id) = st
            .runnable
            .iter()
            .copied()
            .find(|s| !st.running.contains(s))
        {
            st.runnable.remove(&id);
            st.running.insert(id);
            for &ms in &data[&id].0 {
                if let Some(done) = pq.schedule(ms, id) {
                    st.finished(done, &data, &pq);
                }
            }
        } else {
            let mut done = None;
            while done.is_none() && !pq.queue.is_empty() {
                done = pq.deque_one();
            }
            match done {
                Some(d) => st.finished(d, &data, &pq),
                None => return empty,
            }
            tries += 1;
        }
    }
    let wall = pq
        .queue
        .iter()
        .map(|Reverse((f, _))| *f)
        .max()
        .unwrap_or(pq.wall);
    wall + empty
}

#[derive(Default)]
struct State {
    waiting: BTreeSet<u32>,
    runnable: BTreeSet<u32>,
    running: BTreeSet<u32>,
}

impl State {
    /// `onStageFinished`.
    fn finished(&mut self, stage: u32, data: &BTreeMap<u32, (Vec<u64>, Vec<u32>)>, pq: &Pq) {
        self.running.remove(&stage);
        let now: Vec<u32> = self
            .waiting
            .iter()
            .copied()
            .filter(|w| data[w].1.iter().all(|p| pq.complete(*p)))
            .collect();
        for w in now {
            self.waiting.remove(&w);
            self.runnable.insert(w);
        }
    }
}

/// `scheduleStage`: a stage with tasks is runnable when none of its parents ran, else waits.
fn schedule_stage(id: u32, data: &BTreeMap<u32, (Vec<u64>, Vec<u32>)>, st: &mut State) {
    let Some((tasks, parents)) = data.get(&id) else {
        return;
    };
    if tasks.is_empty() {
        return;
    }
    let ran: Vec<u32> = parents
        .iter()
        .copied()
        .filter(|p| data.contains_key(p))
        .collect();
    if ran.is_empty() {
        st.runnable.insert(id);
    } else {
        st.waiting.insert(id);
        for p in ran {
            schedule_stage(p, data, st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{Stage, TaskRecord};
    use super::*;

    fn stage(id: u32, parents: &[u32], tasks: &[u64]) -> Stage {
        let tasks = tasks
            .iter()
            .map(|&d| TaskRecord {
                duration_ms: d,
                succeeded: true,
                ..TaskRecord::default()
            })
            .collect();
        Stage {
            parents: parents.to_vec(),
            shuffle_deps: parents.to_vec(),
            ..Stage::of_tasks(id, &format!("s{id}"), tasks)
        }
    }

    fn job(stages: Vec<Stage>) -> Job {
        Job {
            job_id: 0,
            submitted_ms: 0,
            completed_ms: 100,
            failure: None,
            driver_ms_before: 0,
            submission: crate::replay::model::Submission::AfterStart { delay_ms: 0 },
            pool: None,
            stages,
        }
    }

    #[test]
    fn the_critical_path_is_the_longest_chain_of_longest_tasks() {
        let j = job(vec![
            stage(0, &[], &[10, 40]),
            stage(1, &[], &[70]),
            stage(2, &[0, 1], &[5]),
        ]);
        assert_eq!(critical_path_ms(&j), 75);
    }

    #[test]
    fn sparklens_packs_tasks_on_the_cores_stage_by_stage() {
        // Two cores: stage 0's four 10 ms tasks take 20 ms, then stage 1's 5 ms task.
        let j = job(vec![stage(0, &[], &[10, 10, 10, 10]), stage(1, &[0], &[5])]);
        assert_eq!(group_ms(&[&j], 2), 25);
        assert_eq!(group_ms(&[&j], 4), 15);
    }
}
