//! Spark's YARN `Client` as spark-submit runs it in cluster mode: asks the RM for an
//! application, `verifyClusterResources`, builds the AM container's launch context and command,
//! `submitApplication`, then `monitorApplication` every `spark.yarn.report.interval` and maps the
//! final report to spark-submit's outcome (those rules: `client_monitor`).

use crate::kernel::clock;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_yarn::client_launch_context::{absolute, distributed_files, log_dist_entry};
use crate::spark_yarn::client_monitor::{
    AfterReport, ReportMonitor, after_report, spark_exception,
};
use crate::spark_yarn::client_submission::{
    AmSubmission, am_resource, app_jar_name, application_submission_context,
};
use crate::world::context::{ClientOutcome, SimContext};
use crate::world::observer::RunEvent;
use crate::{debug, error, info, warn};
use actix::{Actor, AsyncContext, Context, System};
use sparkyard_messages::client::ClientMsg;
use sparkyard_messages::ids::{ApplicationId, ContainerId};
use sparkyard_messages::records::{
    ApplicationReport, ApplicationSubmissionContext, Resource, RpcFailure,
    YarnApplicationState as State,
};
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use sparkyard_messages::rpc::{
    EndpointId, GetClusterMetricsResponse, GetNewApplicationResponse, Reply, ReplyTo,
};
use std::rc::Rc;

const TARGET: &str = "submit::Client";

/// The RM's answers the Client waits for.
pub enum ClientAnswer {
    ClusterMetrics(Result<GetClusterMetricsResponse, RpcFailure>),
    NewApplication(Result<GetNewApplicationResponse, RpcFailure>),
    Submit(Result<(), RpcFailure>),
    Report(Result<Box<ApplicationReport>, RpcFailure>),
}

/// The spark-submit Client actor.
pub struct Client {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    rm: EndpointRef<ResourceManagerMsg>,
    asks: AskTable<ClientAnswer>,
    app_id: Option<ApplicationId>,
    /// `monitorApplication`'s memory (which reports it logs).
    monitor: ReportMonitor,
    temp_dir: String,
    /// `spark.app.submitTime` as SparkSubmit sets it when missing (epoch ms): written into
    /// the conf archive the AM localizes.
    submit_time_ms: Option<u64>,
}

impl Client {
    pub fn start(sim: Rc<SimContext>, env: RpcEnv, rm: EndpointRef<ResourceManagerMsg>) {
        Client::create(|ctx| {
            let mut env = env;
            let me = env
                .setup_thread("Client", &ctx.address(), Some(ClientMsg::AskReply))
                .id;
            let temp_dir = format!("/tmp/spark-{}", sim.uuid());
            let monitor = ReportMonitor::new(sim.config.spark.report_logging_frequency);
            Client {
                sim,
                env,
                me,
                rm,
                asks: AskTable::default(),
                app_id: None,
                monitor,
                temp_dir,
                submit_time_ms: None,
            }
        });
    }

    fn timeout(&self) -> AskTimeout {
        // Hadoop IPC calls, not Spark RPC: YARN's client retries for minutes.
        AskTimeout::new(900_000, "yarn.resourcemanager.connect.max-wait.ms")
    }

    fn call<R: Reply>(
        &mut self,
        ctx: &mut Context<Self>,
        answer: fn(Result<R, RpcFailure>) -> ClientAnswer,
        make: impl FnOnce(ReplyTo<R>) -> ResourceManagerMsg,
    ) {
        let (rm, me, t) = (self.rm.clone(), self.me, self.timeout());
        self.ask(ctx, me, &rm, answer, &t, make);
    }

    fn on_message(&mut self, msg: ClientMsg, ctx: &mut Context<Self>) {
        match msg {
            ClientMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
        }
    }

    fn on_cluster_metrics(&mut self, num_node_managers: u32, ctx: &mut Context<Self>) {
        info!(
            self.env.log(),
            TARGET,
            "Requesting a new application from cluster with {num_node_managers} NodeManagers"
        );
        self.call(
            ctx,
            ClientAnswer::NewApplication,
            ResourceManagerMsg::GetNewApplication,
        );
    }

    fn on_new_application(
        &mut self,
        app_id: ApplicationId,
        max: Resource,
        ctx: &mut Context<Self>,
    ) {
        self.app_id = Some(app_id);
        self.sim.register_application_id(app_id);
        crate::world::injector::application_submitted(&self.sim);
        if let Err(e) = self.verify_cluster_resources(max) {
            return self.fail_before_submit(e);
        }
        // Client.submitApplication's catch: prepareLocalResources threw after uploading, so
        // cleanupStagingDir deletes what it uploaded.
        let submission = match self.submission_context(app_id) {
            Ok(submission) => submission,
            Err(e) => return self.submit_refused(e),
        };
        self.sim.observe(RunEvent::ApplicationSubmitted(app_id));
        info!(
            self.env.log(),
            TARGET, "Submitting application {app_id} to ResourceManager"
        );
        self.call(ctx, ClientAnswer::Submit, |a| {
            ResourceManagerMsg::SubmitApplication(a, Box::new(submission))
        });
    }

    /// `verifyClusterResources`: fail before submitting if a container cannot fit, with Spark's texts.
    fn verify_cluster_resources(&self, max: Resource) -> Result<(), RpcFailure> {
        let s = &self.sim.config.spark;
        let log = self.env.log();
        info!(
            log,
            TARGET,
            "Verifying our application has not requested more than the maximum memory capability of the cluster ({} MB per container)",
            max.memory_mb
        );
        verify_cluster_resources(&RequiredMemory::of(s), max.memory_mb)?;
        info!(
            log,
            TARGET,
            "Will allocate AM container, with {} MB memory including {} MB overhead",
            s.am_container_memory_mb(),
            s.driver_memory_overhead_mb
        );
        Ok(())
    }

    fn staging_dir(&self) -> String {
        let app = self.app_id.map(|a| a.to_string()).unwrap_or_default();
        format!(
            "hdfs://{}:8020/user/{}/.sparkStaging/{app}",
            self.sim.config.rm_host, self.sim.config.user
        )
    }

    /// `createContainerLaunchContext` + `createApplicationSubmissionContext`: logs what Spark's
    /// Client logs on the way (the uploads, the SecurityManager's acls, the AM command), the
    /// context itself is `client_submission`'s.
    fn submission_context(
        &mut self,
        app_id: ApplicationId,
    ) -> Result<ApplicationSubmissionContext, RpcFailure> {
        let s = &self.sim.config.spark;
        let log = self.env.log().clone();
        info!(
            log,
            TARGET, "Setting up container launch context for our AM"
        );
        info!(
            log,
            TARGET, "Setting up the launch environment for our AM container"
        );
        info!(log, TARGET, "Preparing resources for our AM container");
        // Spark 4.0.0's text, read from spark-yarn_2.13-4.0.0.jar (Client.prepareLocalResources):
        // the structured-logging rewrite left a stray `}` after the second key.
        warn!(
            log,
            TARGET,
            "Neither spark.yarn.jars nor spark.yarn.archive}} is set, falling back to uploading libraries under SPARK_HOME."
        );
        let staging = self.staging_dir();
        let n = clock::now_epoch_ms();
        info!(
            log,
            TARGET,
            "Uploading resource file:{}/__spark_libs__{n}.zip -> {staging}/__spark_libs__{n}.zip",
            self.temp_dir
        );
        info!(
            log,
            TARGET,
            "Uploading resource file:{} -> {staging}/{}",
            absolute(&s.primary_resource),
            app_jar_name(s)
        );
        let cache = distributed_files(s, &staging, n);
        for entry in &cache.entries {
            log_dist_entry(&log, entry);
        }
        if let Some(e) = cache.refused {
            return Err(e);
        }
        info!(
            log,
            TARGET,
            "Uploading resource file:{}/__spark_conf__{n}.zip -> {staging}/__spark_conf__.zip",
            self.temp_dir
        );
        let user = &self.sim.config.user;
        for line in [
            format!("Changing view acls to: {user}"),
            format!("Changing modify acls to: {user}"),
            "Changing view acls groups to: ".into(),
            "Changing modify acls groups to: ".into(),
            format!(
                "SecurityManager: authentication disabled; ui acls disabled; users with view permissions: {user}; groups with view permissions: EMPTY; users with modify permissions: {user}; groups with modify permissions: EMPTY"
            ),
        ] {
            info!(log, "submit::SecurityManager", "{line}");
        }
        let submission = AmSubmission {
            app_id,
            user,
            staging_dir: &staging,
            libs_stamp_ms: n,
            submit_time_ms: self.submit_time_ms,
            yarn_knows_gpu: self.sim.config.yarn.gpu_resource_type,
        };
        let context = application_submission_context(s, &submission)?;
        debug!(log, TARGET, "    {}", context.am_container_spec.commands[0]);
        // createApplicationSubmissionContext's setResourceRequests, after the launch context.
        for w in &am_resource(s, submission.yarn_knows_gpu).warnings {
            crate::warn!(log, "submit::ResourceRequestHelper", "{w}");
        }
        Ok(context)
    }

    fn on_submitted(&mut self, ctx: &mut Context<Self>) {
        let app = self.app_id.expect("submitted after an id");
        info!(
            self.env.log(),
            "submit::YarnClientImpl", "Submitted application {app}"
        );
        if !self.sim.config.spark.wait_app_completion {
            return self.poll(ctx);
        }
        ctx.run_later(
            clock::ms(self.sim.config.spark.report_interval_ms),
            |act, ctx| act.poll(ctx),
        );
    }

    fn poll(&mut self, ctx: &mut Context<Self>) {
        let app = self.app_id.expect("polling after submission");
        self.call(ctx, ClientAnswer::Report, |a| {
            ResourceManagerMsg::GetApplicationReport(a, app)
        });
    }

    /// One `monitorApplication` iteration, then `run`'s checks once the report is final.
    fn on_report(&mut self, report: ApplicationReport, ctx: &mut Context<Self>) {
        let (state, app) = (report.state, report.application_id);
        let lines = self.monitor.on_report(state);
        let log = self.env.log().clone();
        if lines.state_line {
            info!(log, TARGET, "Application report for {app} (state: {state})");
        }
        if lines.details {
            let links = self.driver_logs_links(&report);
            info!(
                log,
                TARGET,
                "{}",
                format_report_details_with_links(&report, &links)
            );
        }
        let wait = self.sim.config.spark.wait_app_completion;
        let AfterReport::Finish {
            delete_staging,
            diagnostics,
            exception,
        } = after_report(&report, wait)
        else {
            let interval = clock::ms(self.sim.config.spark.report_interval_ms);
            ctx.run_later(interval, |act, ctx| act.poll(ctx));
            return;
        };
        if delete_staging {
            let dir = self.staging_dir();
            info!(log, TARGET, "Deleted staging directory {dir}");
        }
        if let Some(d) = diagnostics {
            error!(log, TARGET, "Application diagnostics message: {d}");
        }
        self.finish(Some(report), exception);
    }

    /// Spark 4.0 `Client.submitApplication`'s catch: the RM refused `submitApplication` (e.g.
    /// an AM above the maximum allocation); the staging directory the upload made is deleted
    /// (`cleanupStagingDir`) and the exception ends spark-submit.
    fn submit_refused(&mut self, e: RpcFailure) {
        info!(
            self.env.log(),
            TARGET,
            "Deleted staging directory {}",
            self.staging_dir()
        );
        self.fail_before_submit(e);
    }

    fn fail_before_submit(&mut self, e: RpcFailure) {
        self.finish(None, Some(e));
    }

    fn finish(&mut self, report: Option<ApplicationReport>, exception: Option<RpcFailure>) {
        let outcome = ClientOutcome {
            application_id: self.app_id,
            state: report.as_ref().map(|r| r.state),
            final_status: report.as_ref().map(|r| r.final_status),
            original_tracking_url: report.as_ref().map(|r| r.original_tracking_url.clone()),
            diagnostics: report.map(|r| r.diagnostics).unwrap_or_default(),
            exception,
            finished_at_ms: clock::now_ms(),
            temp_dir: self.temp_dir.clone(),
        };
        *self.sim.outcome.borrow_mut() = Some(outcome);
        // The run ends when the last of its applications has (one spark-submit, or a day's).
        if self.sim.every_application_ended() {
            System::current().stop();
        }
    }
}

/// The memory `Client.verifyClusterResources` compares with the cluster's largest container,
/// MiB: an executor's heap, off-heap, overhead and PySpark memory, and the AM's memory and
/// overhead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequiredMemory {
    pub executor_mb: u64,
    pub executor_offheap_mb: u64,
    pub executor_overhead_mb: u64,
    pub pyspark_mb: u64,
    pub am_mb: u64,
    pub am_overhead_mb: u64,
}

impl RequiredMemory {
    pub fn of(s: &crate::world::config::SparkSettings) -> Self {
        RequiredMemory {
            executor_mb: s.executor_memory_mb,
            executor_offheap_mb: s.executor_offheap_mb,
            executor_overhead_mb: s.executor_memory_overhead_mb,
            pyspark_mb: s.executor_pyspark_memory_mb,
            am_mb: s.driver_memory_mb,
            am_overhead_mb: s.driver_memory_overhead_mb,
        }
    }
}

/// `Client.verifyClusterResources` (spark-yarn_2.13-4.0.0.jar): an executor container, then
/// the AM's, larger than `maxMem` (`lcmp; ifle`: equal fits) fails the submission with Spark's
/// IllegalArgumentException text.
pub fn verify_cluster_resources(
    req: &RequiredMemory,
    max_memory_mb: u64,
) -> Result<(), RpcFailure> {
    let check = "Please check the values of 'yarn.scheduler.maximum-allocation-mb' and/or 'yarn.nodemanager.resource.memory-mb'.";
    let executor =
        req.executor_mb + req.executor_offheap_mb + req.executor_overhead_mb + req.pyspark_mb;
    if executor > max_memory_mb {
        return Err(RpcFailure::new(
            "java.lang.IllegalArgumentException",
            format!(
                "Required executor memory ({} MB), offHeap memory ({}) MB, overhead ({} MB), and PySpark memory ({} MB) is above the max threshold ({max_memory_mb} MB) of this cluster! {check}",
                req.executor_mb, req.executor_offheap_mb, req.executor_overhead_mb, req.pyspark_mb
            ),
        ));
    }
    if req.am_mb + req.am_overhead_mb > max_memory_mb {
        return Err(RpcFailure::new(
            "java.lang.IllegalArgumentException",
            format!(
                "Required AM memory ({}+{} MB) is above the max threshold ({max_memory_mb} MB) of this cluster! {check}",
                req.am_mb, req.am_overhead_mb
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
use crate::spark_yarn::client_monitor::client_deletes_staging_dir;

/// `YarnContainerInfoHelper.getLogUrlsFromBaseUrl`: the NodeManager's `stdout` and `stderr`
/// pages, last 4 KiB.
pub fn log_urls_from_base_url(base: &str) -> [(&'static str, String); 2] {
    ["stdout", "stderr"].map(|f| (f, format!("{base}/{f}?start=-4096")))
}

/// The RM's `ContainerReport.getLogUrl` for a running container
/// (`WebAppUtils.getRunningLogURL`): `http://<node http address>/node/containerlogs/<id>/<user>`.
pub fn running_container_log_url(node_host: &str, container: ContainerId, user: &str) -> String {
    format!(
        "http://{node_host}:{}/node/containerlogs/{container}/{user}",
        crate::world::addresses::NM_WEB_PORT
    )
}

impl Client {
    /// Spark 4.0 `Client.getDriverLogsLink`: with `spark.yarn.includeDriverLogsLink` and the
    /// application RUNNING, the AM container's log URLs (its attempt's container 1, on the AM
    /// host) as `getLogUrlsFromBaseUrl` builds them; nothing otherwise.
    fn driver_logs_links(&self, report: &ApplicationReport) -> Vec<(&'static str, String)> {
        if !self.sim.config.spark.include_driver_logs_link || report.state != State::Running {
            return Vec::new();
        }
        let (Some(attempt), Some(host)) = (report.current_attempt, report.host.as_deref()) else {
            return Vec::new();
        };
        let base = running_container_log_url(host, ContainerId::new(attempt, 1), &report.user);
        log_urls_from_base_url(&base).into()
    }
}

/// `Client.formatReportDetails(report, driverLogsLinks)`: the fields, then one
/// `Driver Logs (<file>)` line per driver log link.
pub fn format_report_details_with_links(
    r: &ApplicationReport,
    links: &[(&'static str, String)],
) -> String {
    let absent = String::new();
    let fields = [
        ("client token", r.client_token.as_ref().unwrap_or(&absent)),
        ("diagnostics", &r.diagnostics),
        ("ApplicationMaster host", r.host.as_ref().unwrap_or(&absent)),
        ("ApplicationMaster RPC port", &r.rpc_port.to_string()),
        ("queue", &r.queue),
        ("start time", &r.start_time.to_string()),
        ("final status", &r.final_status.to_string()),
        ("tracking URL", r.tracking_url.as_ref().unwrap_or(&absent)),
        ("user", &r.user),
    ]
    .map(|(k, v)| (k.to_string(), v.clone()));
    let links = links
        .iter()
        .map(|(f, link)| (format!("Driver Logs ({f})"), link.clone()));
    // "Use more loggable format if value is null or empty": `Option(v).filter(_.nonEmpty)
    // .getOrElse("N/A")` on every value, the links' too (spark-yarn_2.13-4.0.0.jar).
    fields
        .into_iter()
        .chain(links)
        .map(|(k, v)| {
            let v = if v.is_empty() { "N/A" } else { v.as_str() };
            format!("\n\t {k}: {v}")
        })
        .collect()
}

impl Actor for Client {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        // SparkSubmit.prepareSubmitEnvironment: `spark.app.submitTime` unless the user set it
        // (SparkSubmit.scala, Spark 4.0.0 jar: set when missing, or always for Kubernetes).
        if !self
            .sim
            .config
            .spark
            .properties
            .contains_key("spark.app.submitTime")
        {
            self.submit_time_ms = Some(clock::now_epoch_ms());
        }
        self.call(
            ctx,
            ClientAnswer::ClusterMetrics,
            ResourceManagerMsg::GetClusterMetrics,
        );
    }
}

impl Client {
    fn answered(&mut self, answer: ClientAnswer, ctx: &mut Context<Self>) {
        match answer {
            ClientAnswer::ClusterMetrics(Ok(metrics)) => {
                self.on_cluster_metrics(metrics.num_node_managers, ctx)
            }
            ClientAnswer::NewApplication(Ok(new)) => {
                self.on_new_application(new.application_id, new.maximum_capability, ctx)
            }
            ClientAnswer::Submit(Ok(())) => self.on_submitted(ctx),
            ClientAnswer::Report(Ok(report)) => self.on_report(*report, ctx),
            ClientAnswer::Report(Err(e)) if e.class.ends_with("ApplicationNotFoundException") => {
                let app = self.app_id.expect("reports follow submission");
                // Client.monitorApplication: `logError(log"Application ${MDC(APP_ID, appId)} not
                // found.")` on ApplicationNotFoundException.
                error!(self.env.log(), TARGET, "Application {app} not found.");
                self.finish(
                    None,
                    Some(spark_exception(format!("Application {app} is killed"))),
                );
            }
            ClientAnswer::Report(Err(_)) => {
                let app = self.app_id.expect("reports follow submission");
                let text = format!("Failed to contact YARN for application {app}.");
                error!(self.env.log(), TARGET, "{text}");
                self.finish(
                    None,
                    Some(spark_exception(format!(
                        "Application {app} finished with failed status"
                    ))),
                );
            }
            ClientAnswer::ClusterMetrics(Err(e)) | ClientAnswer::NewApplication(Err(e)) => {
                self.fail_before_submit(e)
            }
            ClientAnswer::Submit(Err(e)) => self.submit_refused(e),
        }
    }
}

crate::endpoint!(Client {
    messages: ClientMsg => on_message,
    answers: ClientAnswer => answered,
});

#[cfg(test)]
mod tests {
    use super::*;

    // Spark 4.0 Client.scala cleanupStagingDir: `if (fs.delete(stagingDirPath, true))
    // logInfo("Deleted staging directory ...")`; ApplicationMaster.scala deletes the directory
    // when it unregisters, so after a FINISHED app the client's delete finds nothing.
    #[test]
    fn deleted_staging_directory_only_when_the_am_left_it() {
        assert!(!client_deletes_staging_dir(State::Finished));
        assert!(client_deletes_staging_dir(State::Failed));
        assert!(client_deletes_staging_dir(State::Killed));
    }

    /// ClientSuite's memory: 2 GiB executors and AM with Spark's 384 MiB minimum overhead.
    fn required() -> RequiredMemory {
        RequiredMemory {
            executor_mb: 2048,
            executor_offheap_mb: 0,
            executor_overhead_mb: 384,
            pyspark_mb: 0,
            am_mb: 2048,
            am_overhead_mb: 384,
        }
    }

    /// Client.verifyClusterResources (spark-yarn_2.13-4.0.0.jar): `executorMem > maxMem` and
    /// `amMem > maxMem` (`lcmp; ifle`), so a container exactly the cluster's maximum fits.
    #[test]
    fn a_container_of_exactly_the_maximum_fits() {
        assert_eq!(verify_cluster_resources(&required(), 2432), Ok(()));
        let e = verify_cluster_resources(&required(), 2431).unwrap_err();
        assert_eq!(e.class, "java.lang.IllegalArgumentException");
    }

    /// Client.verifyClusterResources: the executor's four parts each count and its check
    /// comes first, with Spark's text (the stray `)` after offHeap is Spark's).
    #[test]
    fn an_executor_above_the_maximum_names_each_part() {
        let req = RequiredMemory {
            executor_offheap_mb: 1024,
            pyspark_mb: 512,
            am_mb: 8192,
            ..required()
        };
        let e = verify_cluster_resources(&req, 3967).unwrap_err();
        assert_eq!(
            e.message,
            "Required executor memory (2048 MB), offHeap memory (1024) MB, overhead (384 MB), and PySpark memory (512 MB) is above the max threshold (3967 MB) of this cluster! Please check the values of 'yarn.scheduler.maximum-allocation-mb' and/or 'yarn.nodemanager.resource.memory-mb'."
        );
        assert_eq!(
            verify_cluster_resources(&req, 3968).map_err(|e| e.message.contains("AM")),
            Err(true)
        );
    }

    /// Client.verifyClusterResources: an AM container above the maximum, once the executors
    /// fit.
    #[test]
    fn an_am_above_the_maximum_is_refused() {
        let req = RequiredMemory {
            am_mb: 4096,
            am_overhead_mb: 409,
            ..required()
        };
        let e = verify_cluster_resources(&req, 4096).unwrap_err();
        assert_eq!(
            e.message,
            "Required AM memory (4096+409 MB) is above the max threshold (4096 MB) of this cluster! Please check the values of 'yarn.scheduler.maximum-allocation-mb' and/or 'yarn.nodemanager.resource.memory-mb'."
        );
        assert_eq!(verify_cluster_resources(&req, 4505), Ok(()));
    }

    /// Client.formatReportDetails (spark-yarn_2.13-4.0.0.jar): Spark's field order, then the
    /// driver log links; a null or empty value of any field prints N/A.
    #[test]
    fn report_details_print_na_for_every_empty_value() {
        let app = ApplicationId {
            cluster_timestamp: 1764662400000,
            id: 1,
        };
        let report = ApplicationReport {
            application_id: app,
            current_attempt: None,
            user: "spark".into(),
            queue: "default".into(),
            name: "Spark Pi".into(),
            host: Some(String::new()),
            rpc_port: -1,
            client_token: None,
            state: State::Accepted,
            diagnostics: String::new(),
            tracking_url: Some(String::new()),
            original_tracking_url: String::new(),
            start_time: 1764662400123,
            finish_time: 0,
            final_status: sparkyard_messages::records::FinalApplicationStatus::Undefined,
            application_type: "SPARK".into(),
            application_tags: Vec::new(),
            priority: 0,
        };
        let links = [("stdout", String::new())];
        assert_eq!(
            format_report_details_with_links(&report, &links),
            "\n\t client token: N/A\n\t diagnostics: N/A\n\t ApplicationMaster host: N/A\n\t ApplicationMaster RPC port: -1\n\t queue: default\n\t start time: 1764662400123\n\t final status: UNDEFINED\n\t tracking URL: N/A\n\t user: spark\n\t Driver Logs (stdout): N/A"
        );
    }

    // Spark 4.0 Client.formatReportDetails(report, driverLogsLinks) and
    // YarnContainerInfoHelper.getLogUrlsFromBaseUrl (`$baseUrl/$fname?start=-4096`, stdout then
    // stderr); YarnClusterSuite "running Spark in yarn-cluster mode displays driver log links"
    // matches `Driver Logs \(stdout\): https?://.+/stdout(\?\S+)?`.
    #[test]
    fn driver_log_links_follow_the_report_fields() {
        let app = ApplicationId {
            cluster_timestamp: 1764662400000,
            id: 1,
        };
        let attempt = sparkyard_messages::ids::ApplicationAttemptId::new(app, 1);
        let base = running_container_log_url("nm-2.x", ContainerId::new(attempt, 1), "spark");
        assert_eq!(
            base,
            "http://nm-2.x:8042/node/containerlogs/container_1764662400000_0001_01_000001/spark"
        );
        let links = log_urls_from_base_url(&base);
        assert_eq!(links[0].0, "stdout");
        assert_eq!(links[1].1, format!("{base}/stderr?start=-4096"));
        let text: String = links
            .iter()
            .map(|(f, l)| format!("\n\t Driver Logs ({f}): {l}"))
            .collect();
        assert!(text.starts_with("\n\t Driver Logs (stdout): http://nm-2.x:8042/"));
    }
}
