//! What the driver runs as the user's `main`: a program (Spark's user class, run by the AM's
//! user-class thread) plans its jobs from its arguments once its SparkContext is up, and prints
//! what its `main` prints around them. Each example implements [`Program`] in its own file; a
//! synthetic or replayed application is [`Jobs`]. The driver knows no program by name.

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

    /// What `main` prints before it runs its job `k` (counting from 0).
    fn before_job(&self, _k: usize) -> Option<String> {
        None
    }

    /// What `main` prints after its job `k` succeeded with `results` (`last`: no job follows).
    fn after_job(&self, _k: usize, _results: &[TaskResultData], _last: bool) -> Vec<String> {
        Vec::new()
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

/// A program that is only its jobs (a scenario's synthetic workload, a replayed log): it prints
/// nothing and stops on the line after its last job's call site.
pub struct Jobs {
    pub app_name: String,
    pub jobs: Vec<JobSpec>,
}

impl Program for Jobs {
    fn app_name(&self) -> String {
        self.app_name.clone()
    }

    /// Hands its jobs over: a driver plans its program once (each AM attempt makes its own),
    /// and a million-task workload is not worth a copy.
    fn plan(&mut self, _args: &[String], _seed: u64) -> ProgramPlan {
        ProgramPlan::quiet(Ok(std::mem::take(&mut self.jobs)))
    }

    fn stop_site(&self, jobs: &[JobSpec]) -> String {
        stop_after_last_call_site(jobs)
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
