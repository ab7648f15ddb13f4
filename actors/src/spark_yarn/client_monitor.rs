//! The rules of Spark's YARN `Client` after submission (Client.scala, spark-yarn 4.0.0) as plain
//! code: `monitorApplication`'s logging (the state line on a change or every
//! `spark.yarn.report.loggingFrequency` reports, the details on a change) and when it stops,
//! and `run`'s checks of the final report, in Spark's order (failed, killed, undefined), with
//! their exceptions. The `Client` actor polls the RM and logs and acts on what they decide.

use sparkyard_messages::records::{
    ApplicationReport, FinalApplicationStatus as Final, RpcFailure, YarnApplicationState as State,
};

/// What `monitorApplication` logs for one report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportLines {
    /// `Application report for <app> (state: <state>)`.
    pub state_line: bool,
    /// The report's details (`formatReportDetails`): on a change of state.
    pub details: bool,
}

/// `monitorApplication`'s memory between reports.
#[derive(Clone, Debug)]
pub struct ReportMonitor {
    last_state: Option<State>,
    reports_since_log: u32,
    logging_frequency: u32,
}

impl ReportMonitor {
    /// `logging_frequency`: `spark.yarn.report.loggingFrequency`.
    pub fn new(logging_frequency: u32) -> Self {
        ReportMonitor {
            last_state: None,
            reports_since_log: 0,
            logging_frequency,
        }
    }

    /// A report in state `state` arrived: what to log.
    pub fn on_report(&mut self, state: State) -> ReportLines {
        let changed = self.last_state != Some(state);
        self.reports_since_log += 1;
        let state_line = changed || self.reports_since_log >= self.logging_frequency;
        if state_line {
            self.reports_since_log = 0;
        }
        self.last_state = Some(state);
        ReportLines {
            state_line,
            details: changed,
        }
    }
}

/// What the Client does after a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterReport {
    /// Not done: poll again after `spark.yarn.report.interval`.
    PollAgain,
    /// spark-submit ends: after deleting the staging directory (`delete_staging`) and logging
    /// the diagnostics as an error (`diagnostics`), with `exception` (none: success).
    Finish {
        delete_staging: bool,
        diagnostics: Option<String>,
        exception: Option<RpcFailure>,
    },
}

/// After a report: without `spark.yarn.submit.waitAppCompletion` the first report ends the
/// Client (a FAILED or KILLED one with an exception); else a terminal state does, with `run`'s
/// checks.
pub fn after_report(report: &ApplicationReport, wait_app_completion: bool) -> AfterReport {
    let (app, state) = (report.application_id, report.state);
    if !wait_app_completion {
        let exception = matches!(state, State::Failed | State::Killed)
            .then(|| spark_exception(format!("Application {app} finished with status: {state}")));
        return AfterReport::Finish {
            delete_staging: false,
            diagnostics: None,
            exception,
        };
    }
    if !state.is_terminal() {
        return AfterReport::PollAgain;
    }
    let (diagnostics, exception) = outcome(report);
    AfterReport::Finish {
        delete_staging: client_deletes_staging_dir(state),
        diagnostics,
        exception,
    }
}

/// `Client.run()` after monitoring, in Spark's order: failed (its diagnostics logged as an
/// error when there are any), killed, undefined; else success.
fn outcome(report: &ApplicationReport) -> (Option<String>, Option<RpcFailure>) {
    let app = report.application_id;
    if report.state == State::Failed || report.final_status == Final::Failed {
        let diagnostics = (!report.diagnostics.is_empty()).then(|| report.diagnostics.clone());
        let e = format!("Application {app} finished with failed status");
        return (diagnostics, Some(spark_exception(e)));
    }
    if report.state == State::Killed || report.final_status == Final::Killed {
        return (
            None,
            Some(spark_exception(format!("Application {app} is killed"))),
        );
    }
    if report.final_status == Final::Undefined {
        let e = format!("The final status of application {app} is undefined");
        return (None, Some(spark_exception(e)));
    }
    (None, None)
}

/// Whether `Client.cleanupStagingDir` finds the staging directory still there and logs `Deleted
/// staging directory` (Spark 4.0 Client.scala logs only `if (fs.delete(stagingDirPath, true))`).
/// In cluster mode the AM's shutdown hook deletes it together with unregistering (on success or
/// on its last attempt: ApplicationMaster.scala, `cleanupStagingDir` next to `unregister`), and
/// only an unregistered application ends FINISHED; a FAILED or KILLED one never unregistered, so
/// the directory is still there for the client.
pub fn client_deletes_staging_dir(state: State) -> bool {
    matches!(state, State::Failed | State::Killed)
}

/// A `org.apache.spark.SparkException` with `message`.
pub fn spark_exception(message: String) -> RpcFailure {
    RpcFailure::spark(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;

    fn report(state: State, final_status: Final, diagnostics: &str) -> ApplicationReport {
        ApplicationReport {
            application_id: ApplicationId {
                cluster_timestamp: 1,
                id: 1,
            },
            current_attempt: None,
            user: "spark".into(),
            queue: "default".into(),
            name: "x".into(),
            host: None,
            rpc_port: -1,
            client_token: None,
            state,
            diagnostics: diagnostics.into(),
            tracking_url: None,
            original_tracking_url: "N/A".into(),
            start_time: 0,
            finish_time: 0,
            final_status,
            application_type: "SPARK".into(),
            application_tags: Vec::new(),
            priority: 0,
        }
    }

    /// monitorApplication: the state line on every change and every loggingFrequency-th report
    /// in between; the details only on a change.
    #[test]
    fn the_state_line_comes_on_a_change_or_every_logging_frequency_reports() {
        let mut m = ReportMonitor::new(3);
        let lines: Vec<(bool, bool)> = [
            State::Accepted,
            State::Accepted,
            State::Accepted,
            State::Accepted,
            State::Running,
            State::Running,
        ]
        .into_iter()
        .map(|s| {
            let l = m.on_report(s);
            (l.state_line, l.details)
        })
        .collect();
        let want = [
            (true, true),
            (false, false),
            (false, false),
            (true, false),
            (true, true),
            (false, false),
        ];
        assert_eq!(lines, want);
    }

    /// Client.run's checks in Spark's order: a FAILED state or final status first (its
    /// diagnostics logged as an error), then KILLED, then an UNDEFINED final status.
    #[test]
    fn the_final_report_maps_to_sparks_exceptions_in_its_order() {
        let finish = |r: &ApplicationReport| match after_report(r, true) {
            AfterReport::Finish {
                delete_staging,
                diagnostics,
                exception,
            } => (delete_staging, diagnostics, exception.map(|e| e.message)),
            AfterReport::PollAgain => panic!("a final report"),
        };
        let failed = finish(&report(State::Failed, Final::Failed, "AM exited 13"));
        assert_eq!(
            failed,
            (
                true,
                Some("AM exited 13".into()),
                Some("Application application_1_0001 finished with failed status".into())
            )
        );
        let killed = finish(&report(State::Killed, Final::Killed, ""));
        assert_eq!(
            killed.2.as_deref(),
            Some("Application application_1_0001 is killed")
        );
        let undefined = finish(&report(State::Finished, Final::Undefined, ""));
        assert!(undefined.2.is_some_and(|e| e.ends_with("is undefined")));
        assert_eq!(
            finish(&report(State::Finished, Final::Succeeded, "")),
            (false, None, None)
        );
        assert_eq!(
            after_report(&report(State::Running, Final::Undefined, ""), true),
            AfterReport::PollAgain
        );
    }

    /// Without waitAppCompletion the first report ends spark-submit; a FAILED one with
    /// `finished with status: FAILED`.
    #[test]
    fn without_waiting_the_first_report_ends_the_client() {
        let AfterReport::Finish { exception, .. } =
            after_report(&report(State::Accepted, Final::Undefined, ""), false)
        else {
            panic!("finishes");
        };
        assert!(exception.is_none());
        let AfterReport::Finish { exception, .. } =
            after_report(&report(State::Failed, Final::Failed, ""), false)
        else {
            panic!("finishes");
        };
        assert_eq!(
            exception.map(|e| e.message).as_deref(),
            Some("Application application_1_0001 finished with status: FAILED")
        );
    }
}
