//! A replayed application (`sparkyard replay`, or a scenario workload whose jobs name FAIR pools
//! or run concurrently): its jobs as its driver submitted them in the event log, each after what
//! it followed ([`JobAnchor`]) and the driver time the log shows since, so jobs a thread pool
//! submitted while others ran run concurrently (the DAGScheduler takes them in job order,
//! FIFO); `SparkContext.stop()` after the driver's time past the last job's end. No Spark
//! class: it stands for the user code the log recorded (`SparkListenerJobStart` times).

use super::program::{
    Due, JobCancel, JobTiming, Program, ProgramPlan, Started, Submission, stop_after_last_call_site,
};
use sparkyard_messages::task::JobSpec;

/// One job of a replayed application: what its submission follows and the driver time (ms)
/// the log shows between that and its submission.
#[derive(Clone, Debug)]
pub struct ReplayedJob {
    pub after: JobAnchor,
    pub driver_ms_before: u64,
    /// The log's time from the job's submission to its first task's launch that the
    /// simulation does not spend itself (the DAGScheduler's stage creation and task binary
    /// broadcast, the first offer): spent after the job starts, before the DAGScheduler gets it.
    pub launch_delay_ms: u64,
    /// The job's `spark.scheduler.pool` property as the log recorded it (`None`: unset).
    pub pool: Option<String>,
    /// The recorded driver caught this job's failure and went on (the log shows the job failed
    /// and later jobs): a failure of it does not fail the user class.
    pub failure_caught: bool,
    /// The recorded user code cancelled the job: this long after its submission, for this
    /// reason.
    pub cancelled: Option<RecordedCancel>,
    pub job: JobSpec,
}

/// A replayed job's recorded cancellation (its `JobFailed` was `SPARK_JOB_CANCELLED`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedCancel {
    pub after_ms: u64,
    pub reason: String,
}

/// What the driver submits a replayed job after (then its `driver_ms_before`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobAnchor {
    /// The backend is ready (`waitBackendReady` returned; the user code runs).
    Start,
    /// The end of the program's job at this index (the driver waited for it).
    End(usize),
    /// The submission of the program's job at this index (a thread of the driver submitted
    /// this one while that one ran).
    Submission(usize),
}

/// A replayed application as the driver runs it: prints nothing, stops on the line after its
/// last job's call site.
pub struct ReplayedApplication {
    app_name: String,
    /// Its jobs until [`Program::plan`] hands their specs over.
    jobs: Vec<ReplayedJob>,
    /// Each job's timing, kept from `plan` for [`Program::timing`].
    when: Vec<JobWhen>,
    /// Each job's `failure_caught`, kept from `plan`.
    caught: Vec<bool>,
    driver_ms_after_last_job: u64,
}

impl ReplayedApplication {
    pub fn new(app_name: String, jobs: Vec<ReplayedJob>, driver_ms_after_last_job: u64) -> Self {
        ReplayedApplication {
            app_name,
            jobs,
            when: Vec::new(),
            caught: Vec::new(),
            driver_ms_after_last_job,
        }
    }
}

impl Program for ReplayedApplication {
    fn app_name(&self) -> String {
        self.app_name.clone()
    }

    /// Hands its jobs' specs over (planned once per driver) and keeps when each is due.
    fn plan(&mut self, _args: &[String], _seed: u64) -> ProgramPlan {
        let jobs = std::mem::take(&mut self.jobs);
        self.caught = jobs.iter().map(|j| j.failure_caught).collect();
        let (when, specs) = jobs
            .into_iter()
            .map(|j| {
                let when = JobWhen {
                    after: j.after,
                    driver_ms: j.driver_ms_before,
                    launch_delay_ms: j.launch_delay_ms,
                    pool: j.pool,
                    cancelled: j.cancelled,
                };
                (when, j.job)
            })
            .unzip();
        self.when = when;
        ProgramPlan::quiet(Ok(specs))
    }

    fn timing(&mut self, _jobs: usize) -> Box<dyn JobTiming> {
        let when = std::mem::take(&mut self.when);
        Box::new(ReplayTiming::new(when, self.driver_ms_after_last_job))
    }

    fn catches_job_failure(&self, k: usize) -> bool {
        self.caught.get(k).copied().unwrap_or(false)
    }

    fn stop_site(&self, jobs: &[JobSpec]) -> String {
        stop_after_last_call_site(jobs)
    }
}

/// When one replayed job goes: after its anchor and `driver_ms` of driver time; its stages
/// reach the DAGScheduler `launch_delay_ms` after "Starting job", in `pool`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobWhen {
    pub after: JobAnchor,
    pub driver_ms: u64,
    pub launch_delay_ms: u64,
    pub pool: Option<String>,
    pub cancelled: Option<RecordedCancel>,
}

/// The replayed driver's submissions: which jobs each start, submission and end lets go,
/// which DAGScheduler job is which program job, and the stop once every job has ended.
pub struct ReplayTiming {
    when: Vec<JobWhen>,
    /// The program index of each job submitted, by DAGScheduler job id (ids are handed out in
    /// submission order from 0 in each SparkContext).
    by_job_id: Vec<usize>,
    /// When each program job was submitted (virtual ms), for its "took" line.
    started_ms: Vec<u64>,
    ended: usize,
    driver_ms_after: u64,
}

impl ReplayTiming {
    pub fn new(when: Vec<JobWhen>, driver_ms_after_last_job: u64) -> Self {
        ReplayTiming {
            started_ms: vec![0; when.len()],
            when,
            by_job_id: Vec::new(),
            ended: 0,
            driver_ms_after: driver_ms_after_last_job,
        }
    }

    /// The jobs that follow `anchor`, each after its driver time; once every job has ended,
    /// the stop after the driver's time past the last (a submission lets no stop go).
    fn release(&self, anchor: JobAnchor) -> Vec<Due> {
        let mut due: Vec<Due> = (self.when.iter().enumerate())
            .filter(|(_, w)| w.after == anchor)
            .map(|(k, w)| Due::Job {
                k,
                after_ms: w.driver_ms,
            })
            .collect();
        let all_ended = self.ended == self.when.len();
        if all_ended && !matches!(anchor, JobAnchor::Submission(_)) {
            due.push(Due::Stop {
                after_ms: self.driver_ms_after,
            });
        }
        due
    }
}

impl JobTiming for ReplayTiming {
    fn start(&mut self) -> Vec<Due> {
        self.release(JobAnchor::Start)
    }

    /// A thread of the replayed driver that wakes once the context is stopping submits
    /// nothing.
    fn submit(&mut self, k: usize, now_ms: u64, stopping: bool) -> Option<Submission> {
        if stopping {
            return None;
        }
        let job_id = self.by_job_id.len() as u32;
        self.by_job_id.push(k);
        if let Some(s) = self.started_ms.get_mut(k) {
            *s = now_ms;
        }
        let w = self.when.get(k);
        let cancel = w.and_then(|w| w.cancelled.as_ref()).map(|c| JobCancel {
            job_id,
            after_ms: c.after_ms,
            reason: c.reason.clone(),
        });
        Some(Submission {
            launch_delay_ms: w.map_or(0, |w| w.launch_delay_ms),
            pool: w.and_then(|w| w.pool.clone()),
            then: self.release(JobAnchor::Submission(k)),
            cancel,
        })
    }

    fn job_of(&self, job_id: u32) -> Started {
        let k = self.by_job_id.get(job_id as usize).copied().unwrap_or(0);
        let at_ms = self.started_ms.get(k).copied().unwrap_or(0);
        Started { k, at_ms }
    }

    fn ended(&mut self, k: usize) -> Vec<Due> {
        self.ended += 1;
        self.release(JobAnchor::End(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn when(after: JobAnchor, driver_ms: u64) -> JobWhen {
        JobWhen {
            after,
            driver_ms,
            launch_delay_ms: 0,
            pool: None,
            cancelled: None,
        }
    }

    /// Job 0 at the start after 100 ms; job 1 on job 0's submission after 50 ms (a second
    /// thread), in pool `etl` with 7 ms before the DAGScheduler; job 2 once job 1 ended; the
    /// stop 30 ms after the third end. Job ids follow submissions, not the program's order.
    #[test]
    fn each_replayed_job_is_due_after_its_anchor_and_its_driver_time() {
        let mut t = ReplayTiming::new(
            vec![
                when(JobAnchor::Start, 100),
                JobWhen {
                    launch_delay_ms: 7,
                    pool: Some("etl".into()),
                    ..when(JobAnchor::Submission(0), 50)
                },
                when(JobAnchor::End(1), 0),
            ],
            30,
        );
        assert_eq!(
            t.start(),
            [Due::Job {
                k: 0,
                after_ms: 100
            }]
        );
        let s0 = t.submit(0, 100, false).expect("submitted");
        assert_eq!(s0.then, [Due::Job { k: 1, after_ms: 50 }]);
        assert_eq!((s0.launch_delay_ms, s0.pool), (0, None));
        let s1 = t.submit(1, 150, false).expect("submitted");
        assert_eq!(
            (s1.launch_delay_ms, s1.pool.as_deref(), s1.then),
            (7, Some("etl"), vec![])
        );
        assert_eq!(t.job_of(1), Started { k: 1, at_ms: 150 });
        assert_eq!(t.ended(1), [Due::Job { k: 2, after_ms: 0 }]);
        assert!(t.ended(0).is_empty());
        let s2 = t.submit(2, 400, false).expect("submitted");
        assert!(s2.then.is_empty(), "a submission lets no stop go");
        assert_eq!(t.job_of(2), Started { k: 2, at_ms: 400 });
        assert_eq!(t.ended(2), [Due::Stop { after_ms: 30 }]);
    }

    /// A job due once the context is stopping is not submitted (and takes no job id).
    #[test]
    fn a_job_due_while_the_context_stops_is_not_submitted() {
        let mut t = ReplayTiming::new(vec![when(JobAnchor::Start, 5)], 0);
        assert!(t.submit(0, 5, true).is_none());
        assert_eq!(t.job_of(0), Started { k: 0, at_ms: 0 });
    }

    /// With no job the stop is due at the start, after the driver's time.
    #[test]
    fn an_application_of_no_job_stops_after_its_driver_time() {
        let mut t = ReplayTiming::new(Vec::new(), 250);
        assert_eq!(t.start(), [Due::Stop { after_ms: 250 }]);
    }

    /// Its plan hands the jobs' specs over in program order, and its timing keeps each job's
    /// anchor.
    #[test]
    fn the_program_plans_its_jobs_and_times_them() {
        let job = |after, call_site: &str| ReplayedJob {
            after,
            driver_ms_before: 3,
            launch_delay_ms: 0,
            pool: None,
            failure_caught: false,
            cancelled: None,
            job: JobSpec {
                call_site: call_site.into(),
                stages: Vec::new(),
            },
        };
        let mut p = ReplayedApplication::new(
            "app".into(),
            vec![
                job(JobAnchor::Start, "a at A.scala:1"),
                job(JobAnchor::End(0), "b at A.scala:9"),
            ],
            0,
        );
        let jobs = p.plan(&[], 1).jobs.expect("jobs");
        assert_eq!(p.stop_site(&jobs), "stop at A.scala:10");
        let mut t = p.timing(jobs.len());
        assert_eq!(t.start(), [Due::Job { k: 0, after_ms: 3 }]);
        assert_eq!(t.ended(0), [Due::Job { k: 1, after_ms: 3 }]);
    }
}
