//! What the driver runs as the user's `main`: a program (Spark's user class, run by the AM's
//! user-class thread) plans its jobs from its arguments once its SparkContext is up, prints what
//! its `main` prints around them, and says when each job goes to the DAGScheduler
//! ([`JobTiming`]: `main`'s control flow between its `sc.runJob` calls). Each program
//! implements [`Program`] in its own file (the examples, `synthetic.rs`, `replayed.rs`); the
//! driver knows no program by name. Spark has no such trait: a user class is any `main`.

use sparkyard_messages::task::{JobSpec, TaskResultData};

/// A user program as the driver sees it.
pub trait Program {
    /// `spark.app.name` when the submission gives none (the program's `appName`).
    fn app_name(&self) -> String;

    /// What `main` writes to stderr before it builds its SparkSession (SparkLR's warning).
    fn before_context(&self) -> Option<&'static str> {
        None
    }

    /// Its jobs, planned from its arguments once the SparkContext is up (`seed` draws what its
    /// tasks compute), with the lines `main` prints first; an `Err` is the exception `main`
    /// throws.
    fn plan(&mut self, args: &[String], seed: u64) -> ProgramPlan;

    /// When its `jobs` planned jobs go to the DAGScheduler (asked once, after [`Program::plan`]):
    /// by default `main` runs them one after the other, each once the one before returned.
    fn timing(&mut self, jobs: usize) -> Box<dyn JobTiming> {
        Box::new(OneAfterAnother::new(jobs))
    }

    /// What `main` prints before it runs its job `k` (counting from 0).
    fn before_job(&self, _k: usize) -> Option<String> {
        None
    }

    /// What `main` prints after its job `k` succeeded with `results` (`last`: no job follows).
    fn after_job(&self, _k: usize, _results: &[TaskResultData], _last: bool) -> Vec<String> {
        Vec::new()
    }

    /// Whether `main` catches the `SparkException` of its job `k` failing and goes on; by
    /// default it throws (the user class fails, as SparkPi's would).
    fn catches_job_failure(&self, _k: usize) -> bool {
        false
    }

    /// `spark.stop()`'s call site in `main` (Utils.getCallSite's short form).
    fn stop_site(&self, jobs: &[JobSpec]) -> String;
}

/// What a program's `main` does before its first job.
pub struct ProgramPlan {
    /// The lines it prints to stdout first (whether or not it then throws).
    pub stdout: Vec<String>,
    /// Its jobs, or the exception it throws.
    pub jobs: Result<Vec<JobSpec>, String>,
}

impl ProgramPlan {
    /// A plan that prints nothing first.
    pub fn quiet(jobs: Result<Vec<JobSpec>, String>) -> Self {
        ProgramPlan {
            stdout: Vec::new(),
            jobs,
        }
    }
}

/// What the driver does next, as the program's timing says: each after `after_ms` of driver
/// time (the user code's own work between its calls; at once for 0), in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// `sc.runJob` of the program's job `k` (counting from 0).
    Job { k: usize, after_ms: u64 },
    /// `spark.stop()`.
    Stop { after_ms: u64 },
}

/// A job submitted: when its stages reach the DAGScheduler, in which pool, and what its
/// submission lets go (a job another thread of `main` submits while this one runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Time from "Starting job" to the DAGScheduler's `submitJob`.
    pub launch_delay_ms: u64,
    /// The job's `spark.scheduler.pool` local property (`None`: unset).
    pub pool: Option<String>,
    /// What is due once it is submitted.
    pub then: Vec<Due>,
    /// The user code cancels the job this long after "Starting job" (a replayed log's
    /// cancelled job); `None`: it does not.
    pub cancel: Option<JobCancel>,
}

/// A job the user code cancels (`SparkContext.cancelJob` / `cancelJobGroup` from a thread).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobCancel {
    /// The DAGScheduler's id of the job.
    pub job_id: u32,
    /// After "Starting job", ms.
    pub after_ms: u64,
    /// The cancellation's reason (`part of cancelled job group <g>`, ...).
    pub reason: String,
}

/// A submitted program job: its index in the program and when it started ("Starting job").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Started {
    pub k: usize,
    pub at_ms: u64,
}

/// When a program's jobs go to the DAGScheduler: a plain state machine the driver asks at the
/// start, at each submission and at each job's end (no actor, no clock of its own).
pub trait JobTiming {
    /// The backend is ready (`waitBackendReady` returned, the user code runs): what is due.
    fn start(&mut self) -> Vec<Due>;

    /// Job `k` is due now (`now_ms`, virtual); `stopping`: the SparkContext is stopping. `None`:
    /// `main` does not submit it.
    fn submit(&mut self, k: usize, now_ms: u64, stopping: bool) -> Option<Submission>;

    /// The program job the DAGScheduler numbered `job_id`, and when it started.
    fn job_of(&self, job_id: u32) -> Started;

    /// The program's job `k` succeeded: what is due next.
    fn ended(&mut self, k: usize) -> Vec<Due>;
}

/// `main` calling `sc.runJob` for each of its jobs in turn (each call returns when its job
/// ends), then `spark.stop()` at once.
pub struct OneAfterAnother {
    jobs: usize,
    last: Option<Started>,
}

impl OneAfterAnother {
    pub fn new(jobs: usize) -> Self {
        OneAfterAnother { jobs, last: None }
    }

    /// Job `k` if the program has it, else the stop.
    fn job_or_stop(&self, k: usize) -> Vec<Due> {
        if k < self.jobs {
            vec![Due::Job { k, after_ms: 0 }]
        } else {
            vec![Due::Stop { after_ms: 0 }]
        }
    }
}

impl JobTiming for OneAfterAnother {
    fn start(&mut self) -> Vec<Due> {
        self.job_or_stop(0)
    }

    /// `main`'s next `runJob` follows the last one's return directly (the context's stop does
    /// not hold it: sparkyard has always submitted it).
    fn submit(&mut self, k: usize, now_ms: u64, _stopping: bool) -> Option<Submission> {
        self.last = Some(Started { k, at_ms: now_ms });
        Some(Submission {
            launch_delay_ms: 0,
            pool: None,
            then: Vec::new(),
            cancel: None,
        })
    }

    /// One job runs at a time: the one that ended is the last submitted.
    fn job_of(&self, _job_id: u32) -> Started {
        self.last.unwrap_or_default()
    }

    fn ended(&mut self, k: usize) -> Vec<Due> {
        self.job_or_stop(k + 1)
    }
}

/// `stop at File.scala:N+1` after the last job's call site `... at File.scala:N`.
pub fn stop_after_last_call_site(jobs: &[JobSpec]) -> String {
    let at = jobs
        .last()
        .and_then(|j| j.call_site.rsplit_once(" at "))
        .and_then(|(_, file_line)| file_line.rsplit_once(':'))
        .and_then(|(file, line)| Some((file.to_string(), line.parse::<u32>().ok()?)));
    match at {
        Some((file, line)) => format!("stop at {file}:{}", line + 1),
        None => "stop at <unknown>:0".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each job is due once the one before ended, the stop once the last ended; a job's end
    /// is the last submitted job's, with its start time.
    #[test]
    fn one_after_another_submits_each_job_when_the_last_ended() {
        let mut t = OneAfterAnother::new(2);
        assert_eq!(t.start(), [Due::Job { k: 0, after_ms: 0 }]);
        let s = t.submit(0, 40, false).expect("submitted");
        assert_eq!((s.launch_delay_ms, s.pool, s.then), (0, None, vec![]));
        assert_eq!(t.job_of(0), Started { k: 0, at_ms: 40 });
        assert_eq!(t.ended(0), [Due::Job { k: 1, after_ms: 0 }]);
        assert!(
            t.submit(1, 90, true).is_some(),
            "main's next runJob follows at once, stopping or not"
        );
        assert_eq!(t.job_of(7), Started { k: 1, at_ms: 90 });
        assert_eq!(t.ended(1), [Due::Stop { after_ms: 0 }]);
    }

    /// A program of no job stops at once.
    #[test]
    fn a_program_of_no_job_stops_at_once() {
        let mut t = OneAfterAnother::new(0);
        assert_eq!(t.job_of(0), Started::default());
        assert_eq!(t.start(), [Due::Stop { after_ms: 0 }]);
    }
}
