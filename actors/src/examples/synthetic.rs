//! A scenario's synthetic workload (`[workload]` jobs run one after the other): a program that
//! is only its jobs. It prints nothing and stops on the line after its last job's call site.
//! No Spark class: it stands for any user `main` that runs a list of actions in turn.

use super::program::{Program, ProgramPlan, stop_after_last_call_site};
use sparkyard_messages::task::JobSpec;

/// A program that is only its jobs, run one after the other (the default timing).
pub struct SyntheticWorkload {
    pub app_name: String,
    pub jobs: Vec<JobSpec>,
}

impl Program for SyntheticWorkload {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn job(call_site: &str) -> JobSpec {
        JobSpec {
            call_site: call_site.into(),
            stages: Vec::new(),
        }
    }

    #[test]
    fn a_synthetic_workload_stops_after_its_last_call_site() {
        let p = SyntheticWorkload {
            app_name: "x".into(),
            jobs: Vec::new(),
        };
        assert_eq!(
            p.stop_site(&[job("count at App.scala:41")]),
            "stop at App.scala:42"
        );
        assert_eq!(p.stop_site(&[job("somewhere")]), "stop at <unknown>:0");
    }

    /// Its jobs are handed over once: a second plan (none is made) would find none.
    #[test]
    fn its_plan_hands_its_jobs_over() {
        let mut p = SyntheticWorkload {
            app_name: "x".into(),
            jobs: vec![job("count at App.scala:41")],
        };
        let plan = p.plan(&[], 1);
        assert!(plan.stdout.is_empty());
        assert_eq!(plan.jobs.map(|j| j.len()), Ok(1));
        assert_eq!(p.plan(&[], 1).jobs.map(|j| j.len()), Ok(0));
    }
}
