//! The `Driver` thread: the user class's `main` running inside the AM container, with the
//! SparkContext it builds (endpoints, `postStartHook`, `waitBackendReady`), the jobs it runs and
//! `SparkContext.stop()`. Its `println` output goes to the container's stdout.

use crate::examples::program::{Due, JobTiming, Program, Started};
use crate::faults::DriverFault;
use crate::kernel::{clock, timers};
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::executor_allocation_manager as eam;
use crate::spark_core::resource_profile::{self, CustomResources};
use crate::spark_core::scheduler::pool;
use crate::spark_core::{
    executor_env, executor_log_url_handler, spark_env, unified_memory_manager,
};
use crate::world::config::{SchedulingMode, UserProgram};
use crate::world::context::SimContext;
use crate::world::listener::ContextBus;
use crate::world::observer::RunEvent;
use crate::{error, info, warn};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::application_master::{ApplicationMasterMsg, RequestExecutors};
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ApplicationAttemptId;
use sparkyard_messages::jvm_text::{bytes_to_string, double_to_string};
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::records::{FinalApplicationStatus, RpcFailure};
use sparkyard_messages::rpc::{EndpointId, ReplyTo};
use sparkyard_messages::task::{JobResult, JobSpec};
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::collections::BTreeMap;
use std::rc::Rc;

const SC: &str = "driver::SparkContext";

/// The Spark version sparkyard mirrors.
pub const SPARK_VERSION: &str = "4.0.0";

/// The scheduler backend's endpoints a SparkContext talks to.
pub struct SchedulerBackendRefs {
    /// `CoarseGrainedScheduler` (the DriverEndpoint).
    pub driver: EndpointRef<DriverEndpointMsg>,
    /// `YarnScheduler` (the YarnSchedulerBackend's endpoint).
    pub yarn: EndpointRef<YarnSchedulerMsg>,
}

/// Spark's `ExternalClusterManager.createSchedulerBackend`, handed to the Driver by whoever starts
/// it (the YARN ApplicationMaster): spark_core names no cluster manager's class.
pub type ClusterManager = Rc<dyn Fn(&Rc<SimContext>, &RpcEnv, ContextBus) -> SchedulerBackendRefs>;

/// The answers the Driver thread waits for while the SparkContext stops.
pub enum DriverAnswer {
    RequestExecutors(Result<bool, RpcFailure>),
    StopExecutors(Result<bool, RpcFailure>),
    StopDriver(Result<bool, RpcFailure>),
}

/// The Driver thread actor.
pub struct Driver {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    cluster_manager: ClusterManager,
    /// The user's `main` (the driver knows no program by name).
    program: Box<dyn Program>,
    args: Vec<String>,
    am: EndpointRef<ApplicationMasterMsg>,
    attempt_id: ApplicationAttemptId,
    /// `spark.app.submitTime` from the conf archive the AM localized (SparkSubmit's).
    submit_time_ms: Option<u64>,
    /// The JVM's command line (`DriverLaunch.jvm_command`).
    jvm_command: String,
    /// `DriverLaunch.container_gpus`.
    container_gpus: Option<u32>,
    bus: ContextBus,
    scheduler: Option<EndpointRef<DriverEndpointMsg>>,
    yarn_scheduler: Option<EndpointRef<YarnSchedulerMsg>>,
    asks: AskTable<DriverAnswer>,
    jobs: Vec<JobSpec>,
    /// When the program's jobs go (the program's, asked once its jobs are planned).
    timing: Option<Box<dyn JobTiming>>,
    /// `SparkContext.stop()` has begun (by the program or by the shutdown hook).
    stopping: bool,
    /// The shutdown hook stopped the context: its end goes to the AM's hook, not to `finish`.
    stopped_by_hook: bool,
    /// `SparkListenerApplicationEnd` was posted (once per context).
    application_ended: bool,
}

/// The driver's SparkConf once the AM (cluster mode) and the SparkContext have added theirs,
/// before anything only the running driver knows: the user's properties, the supplemented
/// `spark.{driver,executor}.extraJavaOptions` (SparkContext `supplementJavaModuleOptions` /
/// `supplementJavaIPv6Options`), `spark.driver.port` (the driver's RPC port),
/// `spark.executor.id=driver`, and if missing `spark.ui.port=0` (ApplicationMaster, cluster
/// mode) and the two s3a vectored-read defaults (SparkContext `setIfMissing`). Checked against
/// the 4.0.0 jars and a real 4.0.0 event log (tests/data/eventlogs). The event log shows it, and
/// the AM's ExecutorRunnables build the executors' commands from it (`sc.getConf`).
pub fn context_conf(user: &BTreeMap<String, String>, driver_port: u16) -> BTreeMap<String, String> {
    use crate::spark_core::java_options::supplemented;
    let mut conf = user.clone();
    for k in [
        "spark.driver.extraJavaOptions",
        "spark.executor.extraJavaOptions",
    ] {
        conf.insert(k.into(), supplemented(user.get(k).map(String::as_str)));
    }
    conf.insert("spark.driver.port".into(), driver_port.to_string());
    conf.insert("spark.executor.id".into(), "driver".into());
    for (k, v) in [
        ("spark.ui.port", "0"),
        ("spark.hadoop.fs.s3a.vectored.read.min.seek.size", "128K"),
        ("spark.hadoop.fs.s3a.vectored.read.max.merged.size", "2M"),
    ] {
        conf.entry(k.into()).or_insert_with(|| v.into());
    }
    conf
}

/// What the driver's JVM was started with in the AM's container: the user class's arguments,
/// its application attempt (the container's), spark-submit's submission time
/// (`spark.app.submitTime`) and the JVM's own command line (its system properties).
pub struct DriverLaunch {
    pub args: Vec<String>,
    pub attempt_id: ApplicationAttemptId,
    pub submit_time_ms: Option<u64>,
    pub jvm_command: String,
    /// The GPUs YARN gave the AM's container, if any (`AmConf.container_gpus`).
    pub container_gpus: Option<u32>,
}

impl Driver {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        cluster_manager: ClusterManager,
        program: UserProgram,
        am: EndpointRef<ApplicationMasterMsg>,
        launch: DriverLaunch,
    ) -> EndpointRef<DriverMsg> {
        let mut out = None;
        let program = program.into_program();
        Driver::create(|ctx| {
            let mut env = env;
            let me = env.setup_thread("Driver", &ctx.address(), Some(DriverMsg::AskReply));
            out = Some(me.clone());
            Driver {
                sim,
                env,
                me: me.id,
                cluster_manager,
                program,
                args: launch.args,
                am,
                attempt_id: launch.attempt_id,
                submit_time_ms: launch.submit_time_ms,
                jvm_command: launch.jvm_command,
                container_gpus: launch.container_gpus,
                bus: ContextBus::disabled(),
                scheduler: None,
                yarn_scheduler: None,
                asks: AskTable::default(),
                jobs: Vec::new(),
                timing: None,
                stopping: false,
                stopped_by_hook: false,
                application_ended: false,
            }
        });
        out.expect("create runs its closure")
    }

    fn app_name(&self) -> String {
        self.program.app_name()
    }

    /// What a SparkContext posts first: LogStart, the resource profile, the driver's block
    /// manager, the environment and ApplicationStart.
    fn post_application_start(&self) {
        if !self.bus.enabled() {
            return;
        }
        let s = &self.sim.config.spark;
        let time = clock::now_epoch_ms();
        let host = self.env.address().host;
        let app_id = self.attempt_id.application_id.to_string();
        // The conf as the SparkContext holds it when it posts the environment: the AM's and
        // its own settings, then what only the driver knows (SparkContext.scala: the app's
        // id and name, `spark.driver.host`, `spark.app.startTime`; SparkSubmit's
        // `spark.app.submitTime` and the AM's `spark.yarn.app.id` come with it).
        let mut conf = context_conf(&s.properties, self.env.address().port);
        conf.insert("spark.app.id".into(), app_id.clone());
        conf.insert("spark.app.name".into(), self.app_name());
        conf.insert("spark.driver.host".into(), host.clone());
        conf.insert("spark.app.startTime".into(), time.to_string());
        if let Some(submitted) = self.submit_time_ms {
            conf.insert("spark.app.submitTime".into(), submitted.to_string());
        }
        conf.insert("spark.yarn.app.id".into(), app_id.clone());
        let props: Vec<(String, String)> = conf.into_iter().collect();
        // The cluster's site values only: the event log writer lays them over Hadoop's
        // defaults and Spark's own settings when it writes the log, not during the run.
        let hadoop = crate::world::hadoop_conf::HadoopConf::new(&self.sim.config).site_properties();
        let user = self.sim.config.user.clone();
        // YarnClusterSchedulerBackend.getDriverLogUrls / getDriverAttributes: the AM container's.
        let cid = self.env.log().key();
        let logs = executor_log_url_handler::yarn_log_urls(&host, cid, &user);
        let attributes = executor_log_url_handler::yarn_attributes(&host, cid, &user);
        // The profile's keys were read without error: the SparkContext got this far.
        let custom = CustomResources::of(&s.properties).unwrap_or_default();
        let executor = spark_env::default_executor_requests(s);
        for e in [
            ListenerEvent::LogStart {
                spark_version: SPARK_VERSION.into(),
            },
            ListenerEvent::ResourceProfileAdded {
                executor,
                task_cpus: s.task_cpus,
                executor_custom: custom.executor,
                task_custom: custom.task,
            },
            ListenerEvent::BlockManagerAdded {
                time,
                executor_id: "driver".into(),
                host: host.clone(),
                port: executor_env::driver_block_manager_port(self.env.address().port),
                // The driver's heap in cluster mode is the AM container's `-Xmx<spark.driver.memory>`.
                max_memory: unified_memory_manager::max_memory(s.driver_memory_mb),
            },
            ListenerEvent::EnvironmentUpdate {
                spark_properties: props,
                hadoop_properties: hadoop,
                jvm_command: self.jvm_command.clone(),
            },
            ListenerEvent::ApplicationStart {
                app_name: self.app_name(),
                app_id,
                time,
                user,
                attempt_id: self.attempt_id.attempt_id.to_string(),
                driver_logs: logs,
                driver_attributes: attributes,
            },
        ] {
            self.bus.post(|| e);
        }
    }

    /// `new SparkContext(conf)`: the scheduler backend's endpoints exist from here on.
    fn create_spark_context(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        info!(log, SC, "Running Spark version {SPARK_VERSION}");
        info!(log, SC, "OS info {}", executor_env::OS_INFO);
        info!(log, SC, "Java version {}", executor_env::JAVA_VERSION);
        if let Err(cause) = self.discover_driver_resources() {
            error!(log, SC, "Error initializing SparkContext.\n{cause}");
            return self.user_class_threw(cause, ctx);
        }
        info!(log, SC, "Submitted application: {}", self.app_name());
        if let Err(cause) = self.create_spark_env() {
            // SparkContext's constructor: logError("Error initializing SparkContext.", e), then
            // the exception reaches the user class.
            error!(log, SC, "Error initializing SparkContext.\n{cause}");
            return self.user_class_threw(cause, ctx);
        }
        let app_id = self.attempt_id.application_id.to_string();
        self.bus = self
            .sim
            .listener
            .context(app_id, self.attempt_id.attempt_id);
        self.post_application_start();
        let attempt = self.attempt_id.attempt_id;
        self.sim.observe(RunEvent::SparkContextStarted { attempt });
        let bus = self.bus.clone();
        let backend = (self.cluster_manager)(&self.sim, &self.env, bus);
        self.scheduler = Some(backend.driver);
        self.yarn_scheduler = Some(backend.yarn);
        info!(
            log,
            "driver::YarnClusterScheduler", "Created YarnClusterScheduler"
        );
        // TaskSchedulerImpl.initialize: FAIR's pools (FIFO builds none and logs nothing).
        if self.sim.config.spark.scheduler_mode == SchedulingMode::Fair {
            pool::log_built_pools(&log, self.sim.config.spark.allocation_file.as_ref());
        }
        // TaskSchedulerImpl.start() (not local, spark.speculation on).
        if self.sim.config.spark.speculation.is_some() {
            info!(
                log,
                "driver::YarnClusterScheduler", "Starting speculative execution thread"
            );
        }
        // `_env.blockManager.initialize(_applicationId)`, once the task scheduler started.
        let addr = self.env.address();
        let max = unified_memory_manager::max_memory(self.sim.config.spark.driver_memory_mb);
        executor_env::log_driver_block_manager(
            &log,
            &addr.host,
            executor_env::driver_block_manager_port(addr.port),
            &bytes_to_string(max),
        );
        if let Err(e) = self.check_dynamic_allocation() {
            error!(log, SC, "Error initializing SparkContext.");
            return self.user_class_threw(format!("org.apache.spark.SparkException: {e}"), ctx);
        }
        let init = self.sim.config.costs.spark_context_init_ms;
        ctx.notify_later(DriverMsg::SparkContextCreated, clock::ms(init));
    }

    /// `ResourceUtils.getOrDiscoverAllResources(conf, "spark.driver", resourcesFile)` then
    /// `logResourceInfo`: the driver's own custom resources, each found by its discovery script
    /// (the GPUs YARN gave the AM's container where it scheduled them, else what is asked). The
    /// error is the exception the SparkContext's constructor throws (`Class: message`).
    fn discover_driver_resources(&self) -> Result<(), String> {
        let (log, to) = (self.env.log(), &executor_env::DRIVER_RESOURCES);
        let requests = resource_profile::driver_requests(&self.sim.config.spark.properties)?;
        if requests.is_empty() {
            executor_env::log_resource_info(log, to, None);
            return Ok(());
        }
        let gpus = self.container_gpus;
        let found = resource_profile::discover(&requests, |r| {
            resource_profile::container_resource_count(r, gpus)
        })
        .map_err(|e| format!("{}: {}", e.class, e.message))?;
        executor_env::log_resource_info(log, to, Some(&found));
        self.sim.observe(RunEvent::DriverResources {
            attempt: self.attempt_id.attempt_id,
            resources: found.resources,
        });
        Ok(())
    }

    fn on_message(&mut self, msg: DriverMsg, ctx: &mut Context<Self>) {
        match msg {
            DriverMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            DriverMsg::SparkContextCreated => self.post_start_hook(),
            DriverMsg::ResumeDriver => self.wait_backend_ready(),
            DriverMsg::BackendReady => self.on_backend_ready(ctx),
            DriverMsg::JobEnded { job_id, result } => self.on_job_ended(job_id, result, ctx),
            DriverMsg::RunShutdownHook => self.run_shutdown_hook(ctx),
        }
    }

    /// `YarnClusterScheduler.postStartHook`: hand the context to the AM and block until resumed.
    fn post_start_hook(&mut self) {
        let scheduler = self.scheduler.as_ref().expect("created with the context");
        let driver = self.env.remote_ref(scheduler.id);
        self.env.send(
            &self.am,
            ApplicationMasterMsg::SparkContextInitialized { driver },
        );
    }

    /// `TaskSchedulerImpl.waitBackendReady`.
    fn wait_backend_ready(&mut self) {
        let waiter = self.env.remote_ref(self.me);
        if let Some(s) = &self.scheduler {
            self.env
                .send(s, DriverEndpointMsg::CheckBackendReady { waiter });
        }
    }

    fn on_backend_ready(&mut self, ctx: &mut Context<Self>) {
        info!(
            self.env.log(),
            "driver::YarnClusterScheduler", "YarnClusterScheduler.postStartHook done"
        );
        if let Some(DriverFault::ThrowAfterContext(cause)) = self
            .sim
            .faults
            .driver_fault(self.sim.index, self.attempt_id.attempt_id)
        {
            return self.user_class_threw(cause, ctx);
        }
        let plan = self.program.plan(&self.args, self.sim.config.seed);
        for line in &plan.stdout {
            self.env.log().stdout(line);
        }
        match plan.jobs {
            Ok(jobs) => self.jobs = jobs,
            Err(e) => return self.user_class_threw(e, ctx),
        }
        let mut timing = self.program.timing(self.jobs.len());
        let due = timing.start();
        self.timing = Some(timing);
        self.run_due(due, ctx);
    }

    /// Does what the program's timing says is due, in its order.
    fn run_due(&mut self, due: Vec<Due>, ctx: &mut Context<Self>) {
        for d in due {
            match d {
                Due::Job { k, after_ms } => {
                    self.after_driver_time(after_ms, ctx, move |d, ctx| d.submit_job(k, ctx))
                }
                Due::Stop { after_ms } => {
                    self.after_driver_time(after_ms, ctx, |d, ctx| d.stop_spark_context(ctx))
                }
            }
        }
    }

    /// Runs `then` after `ms` of driver time (at once for 0).
    fn after_driver_time(
        &mut self,
        ms: u64,
        ctx: &mut Context<Self>,
        then: impl FnOnce(&mut Self, &mut Context<Self>) + 'static,
    ) {
        if ms == 0 {
            return then(self, ctx);
        }
        timers::run_later(ctx, clock::ms(ms), then);
    }

    /// `sc.runJob` of the program's job `k` (if its timing still submits it): what `main`
    /// prints first, "Starting job", the job to the DAGScheduler after its launch delay, then
    /// what its submission lets go.
    fn submit_job(&mut self, k: usize, ctx: &mut Context<Self>) {
        let now = clock::now_ms();
        let stopping = self.stopping;
        let Some(submission) = self
            .timing
            .as_mut()
            .and_then(|t| t.submit(k, now, stopping))
        else {
            return;
        };
        let Some(job) = self.take_job(k) else {
            return;
        };
        if let Some(line) = self.program.before_job(k) {
            self.env.log().stdout(&line);
        }
        self.start_job(&job, k);
        let pool = submission.pool;
        let delay = submission.launch_delay_ms;
        self.after_driver_time(delay, ctx, move |d, _| d.send_job(job, pool));
        if let Some(cancel) = submission.cancel {
            // A thread of the user code cancels it (`sc.cancelJobGroup`) that long after.
            timers::run_later(ctx, clock::ms(cancel.after_ms), move |d: &mut Self, _| {
                d.cancel_job(cancel)
            });
        }
        self.run_due(submission.then, ctx);
    }

    /// `DAGScheduler.cancelJob(jobId, reason)` from the user's thread.
    fn cancel_job(&mut self, cancel: crate::examples::program::JobCancel) {
        if let Some(s) = &self.scheduler {
            let msg = DriverEndpointMsg::CancelJob {
                job_id: cancel.job_id,
                reason: cancel.reason.into(),
            };
            self.env.send(s, msg);
        }
    }

    /// Job `k`'s spec for its submission: its stages move to the DAGScheduler (a job is
    /// submitted once; copying a million tasks' works cost 40 MB), its call site stays for
    /// `spark.stop()`'s.
    fn take_job(&mut self, k: usize) -> Option<JobSpec> {
        let job = self.jobs.get_mut(k)?;
        Some(JobSpec {
            call_site: job.call_site.clone(),
            stages: std::mem::take(&mut job.stages),
        })
    }

    /// "Starting job": the job's time starts here.
    fn start_job(&mut self, job: &JobSpec, k: usize) {
        info!(self.env.log(), SC, "Starting job: {}", job.call_site);
        let attempt = self.attempt_id.attempt_id;
        self.sim.observe(RunEvent::JobStarted {
            attempt,
            job: k as u32,
        });
    }

    /// `DAGScheduler.submitJob`, with the job's `spark.scheduler.pool` local property.
    fn send_job(&mut self, job: JobSpec, pool: Option<String>) {
        let waiter = self.env.remote_ref(self.me);
        if let Some(s) = &self.scheduler {
            let msg = DriverEndpointMsg::SubmitJob {
                job: Box::new(job),
                waiter: Box::new(waiter),
                pool,
            };
            self.env.send(s, msg);
        }
    }

    fn on_job_ended(&mut self, job_id: u32, result: JobResult, ctx: &mut Context<Self>) {
        let Started { k, at_ms } = self
            .timing
            .as_ref()
            .map_or_else(Started::default, |t| t.job_of(job_id));
        let call_site = self
            .jobs
            .get(k)
            .map(|j| j.call_site.clone())
            .unwrap_or_default();
        // DAGScheduler.runJob (4.0): `took ${(System.nanoTime - start) / 1e6} ms`, a Double.
        let took = double_to_string((clock::now_ms() - at_ms) as f64);
        match result {
            JobResult::Succeeded(results) => {
                self.sim.observe(RunEvent::JobSucceeded {
                    attempt: self.attempt_id.attempt_id,
                    job: k as u32,
                });
                info!(
                    self.env.log(),
                    "driver::DAGScheduler", "Job {job_id} finished: {call_site}, took {took} ms"
                );
                // The program's own output (SparkPi's estimate, SparkLR's final w, ...).
                let last = k + 1 == self.jobs.len();
                for line in self.program.after_job(k, &results, last) {
                    self.env.log().stdout(&line);
                }
                let due = self.timing.as_mut().map(|t| t.ended(k)).unwrap_or_default();
                self.run_due(due, ctx);
            }
            JobResult::NotCreated { class, message } => {
                let e = format!("{class}: {message}");
                self.job_failed(k, job_id, &call_site, &took, e, ctx)
            }
            JobResult::Failed(message) => {
                let e = format!("org.apache.spark.SparkException: {message}");
                self.job_failed(k, job_id, &call_site, &took, e, ctx)
            }
        }
    }

    /// `runJob`'s failed end: `Job N failed` and the exception `main` gets (caught by a
    /// program that catches it, else the user class throws it).
    fn job_failed(
        &mut self,
        k: usize,
        job_id: u32,
        call_site: &str,
        took: &str,
        exception: String,
        ctx: &mut Context<Self>,
    ) {
        self.sim.observe(RunEvent::JobFailed {
            attempt: self.attempt_id.attempt_id,
            job: k as u32,
        });
        info!(
            self.env.log(),
            "driver::DAGScheduler", "Job {job_id} failed: {call_site}, took {took} ms"
        );
        if self.program.catches_job_failure(k) {
            // `main` caught the job's exception: its next jobs go as planned.
            let due = self.timing.as_mut().map(|t| t.ended(k)).unwrap_or_default();
            return self.run_due(due, ctx);
        }
        self.user_class_threw(exception, ctx);
    }

    /// The ExecutorAllocationManager's constructor: its initial executors and `validateSettings`
    /// (the DriverEndpoint runs the manager itself once these pass).
    fn check_dynamic_allocation(&self) -> Result<(), String> {
        let s = &self.sim.config.spark;
        let Some(d) = &s.dynamic_allocation else {
            return Ok(());
        };
        let log = self.env.log();
        let (_, lines) = eam::initial_executors(d, s.executor_instances);
        eam::log_lines(log, eam::UTILS_TARGET, &lines);
        let lines = eam::validate_settings(d, s.executor_cores, s.task_cpus)?;
        eam::log_lines(log, "driver::ExecutorAllocationManager", &lines);
        Ok(())
    }

    /// What `new SparkContext` refuses, in its order: the memory manager's minimum heap
    /// (SparkEnv), then the cpus per task against the executor cores (createTaskScheduler).
    /// The SparkUI's port in this attempt's AM.
    fn ui_port(&self) -> spark_env::UiPort {
        let app_id = self.attempt_id.application_id.to_string();
        let attempt = self.attempt_id.attempt_id;
        let port = self.env.address().port;
        let user_port = self.sim.config.spark.properties.get("spark.ui.port");
        spark_env::UiPort::new(user_port.map(String::as_str), &app_id, attempt, port)
    }

    /// From `new ResourceProfileManager` to the SparkUI (SparkContext's constructor), with the
    /// checks Spark makes on the way, each where it throws: `spark.task.cpus` against the
    /// executor's cores in the default profile's `calculateTasksAndLimitingResource`, the
    /// memories in `SparkEnv`'s `UnifiedMemoryManager` (after the MapOutputTracker's endpoint),
    /// and the event log's directory.
    fn create_spark_env(&self) -> Result<(), String> {
        let s = &self.sim.config.spark;
        let log = self.env.log();
        let profile = spark_env::log_resources(log, s)?;
        unified_memory_manager::check_task_cpus(s.executor_cores, s.task_cpus)?;
        spark_env::log_profile_added(log, &profile)?;
        let user = &self.sim.config.user;
        let driver_port = self.env.address().port;
        spark_env::log_driver_env_start(log, user, driver_port);
        let executor = s
            .properties
            .contains_key("spark.executor.memory")
            .then_some(s.executor_memory_mb << 20);
        unified_memory_manager::check_min_memory(s.driver_memory_mb, executor)?;
        let app_id = self.attempt_id.application_id.to_string();
        let attempt = self.attempt_id.attempt_id;
        spark_env::log_driver_env_end(log, user, &app_id, attempt, self.ui_port());
        // EventLoggingListener.start: the log's directory must be there (SparkContext.scala).
        match &s.event_log_dir_error {
            Some(e) if s.event_log_enabled => Err(e.clone()),
            _ => Ok(()),
        }
    }

    /// `main` threw: the AM records `User class threw exception` with exit 15.
    fn user_class_threw(&mut self, cause: String, _ctx: &mut Context<Self>) {
        // The JVM's shutdown hook then stops the SparkContext, which posts the
        // ApplicationEnd and completes its event log: with exit code 0, as the hook calls
        // `stop()`, i.e. `stop(0)` (Spark 4.0.0's jar: SparkContext's hook and
        // `postApplicationEnd(exitCode)` inside `stop(int)`), whatever the AM's exit code.
        let attempt = self.attempt_id.attempt_id;
        self.sim.observe(RunEvent::SparkContextStopped { attempt });
        error!(
            self.env.log(),
            "driver::ApplicationMaster", "User class threw exception: {cause}"
        );
        let message = Some(format!("User class threw exception: {cause}"));
        let finish = ApplicationMasterMsg::Finish {
            status: FinalApplicationStatus::Failed,
            exit_code: 15,
            message,
        };
        self.env.send(&self.am, finish);
    }

    /// `SparkListenerApplicationEnd`, once.
    fn post_application_end(&mut self, exit_code: i32) {
        if std::mem::replace(&mut self.application_ended, true) {
            return;
        }
        self.bus.post(|| ListenerEvent::ApplicationEnd {
            time: clock::now_epoch_ms(),
            exit_code,
        });
    }

    /// SparkContext's shutdown hook (`SPARK_CONTEXT_SHUTDOWN_PRIORITY`, 50: before the AM's
    /// hook at 49): a context created and not yet stopped is stopped now; then the AM's hook.
    fn run_shutdown_hook(&mut self, ctx: &mut Context<Self>) {
        if self.scheduler.is_none() || self.stopping {
            return self
                .env
                .send(&self.am, ApplicationMasterMsg::SparkContextHookDone);
        }
        info!(self.env.log(), SC, "Invoking stop() from shutdown hook");
        self.stopped_by_hook = true;
        self.stop_spark_context(ctx);
    }

    /// `stop(exitCode)`'s `stopSite.shortForm` (Utils.getCallSite: the last Spark or Scala
    /// method before the first other frame). From the shutdown hook that frame is the JDK's
    /// hook executor (`SparkShutdownHookManager$$anon$2.run` under
    /// `Executors$RunnableAdapter.call`, Executors.java:539 in Java 17). From the program,
    /// `spark.stop()` in its main: SparkPi.scala:40; a synthetic program stops on the line
    /// after its last job's call site.
    fn stop_site(&self) -> String {
        if self.stopped_by_hook {
            return "run at Executors.java:539".into();
        }
        self.program.stop_site(&self.jobs)
    }

    /// `SparkContext.stop()` (4.0): Shutdown to the AM, targets to 0, StopExecutors, StopDriver.
    fn stop_spark_context(&mut self, ctx: &mut Context<Self>) {
        self.stopping = true;
        let log = self.env.log().clone();
        // Spark 4.0.0's SparkContext.stop(exitCode), read from its jar: "... from <site>.".
        info!(
            log,
            SC,
            "SparkContext is stopping with exitCode 0 from {}.",
            self.stop_site()
        );
        info!(
            log,
            "driver::SparkUI",
            "Stopped Spark web UI at http://{}:{}",
            self.env.address().host,
            self.ui_port().bound
        );
        let Some(yarn) = self.yarn_scheduler.clone() else {
            return;
        };
        self.env
            .send(&yarn, YarnSchedulerMsg::SignalDriverStop { exit_code: 0 });
        let req = RequestExecutors {
            resource_profile_to_total_execs: Vec::new(),
            num_locality_aware_tasks_per_resource_profile_id: Vec::new(),
            excluded_nodes: Vec::new(),
            host_to_local_task_count: Vec::new(),
        };
        let t = self.ask_timeout();
        let me = self.me;
        self.ask(ctx, me, &yarn, DriverAnswer::RequestExecutors, &t, |a| {
            YarnSchedulerMsg::RequestExecutors(a, req)
        });
    }

    fn ask_timeout(&self) -> AskTimeout {
        let s = &self.sim.config.spark;
        AskTimeout::new(s.ask_timeout_ms, &s.ask_timeout_property)
    }

    fn ask_scheduler(
        &mut self,
        ctx: &mut Context<Self>,
        answer: fn(Result<bool, RpcFailure>) -> DriverAnswer,
        make: fn(ReplyTo<bool>) -> DriverEndpointMsg,
    ) {
        let Some(s) = self.scheduler.clone() else {
            return;
        };
        let t = self.ask_timeout();
        let me = self.me;
        self.ask(ctx, me, &s, answer, &t, make);
    }

    fn on_context_stopped(&mut self) {
        let log = self.env.log().clone();
        for (logger, line) in [
            (
                "driver::MapOutputTrackerMasterEndpoint",
                "MapOutputTrackerMasterEndpoint stopped!",
            ),
            ("driver::MemoryStore", "MemoryStore cleared"),
            ("driver::BlockManager", "BlockManager stopped"),
            ("driver::BlockManagerMaster", "BlockManagerMaster stopped"),
            (
                "driver::OutputCommitCoordinator$OutputCommitCoordinatorEndpoint",
                "OutputCommitCoordinator stopped!",
            ),
            (SC, "Successfully stopped SparkContext"),
        ] {
            info!(log, logger, "{line}");
        }
        self.post_application_end(0);
        let attempt = self.attempt_id.attempt_id;
        self.sim.observe(RunEvent::SparkContextStopped { attempt });
        if self.stopped_by_hook {
            return self
                .env
                .send(&self.am, ApplicationMasterMsg::SparkContextHookDone);
        }
        let finish = ApplicationMasterMsg::Finish {
            status: FinalApplicationStatus::Succeeded,
            exit_code: 0,
            message: None,
        };
        self.env.send(&self.am, finish);
    }
}

impl Actor for Driver {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        match self
            .sim
            .faults
            .driver_fault(self.sim.index, self.attempt_id.attempt_id)
        {
            Some(DriverFault::ThrowBeforeContext(cause)) => self.user_class_threw(cause, ctx),
            // `main` blocks forever without a SparkContext: the AM's wait times out.
            Some(DriverFault::NeverCreateContext) => {}
            _ => {
                // SparkLR's `showWarning()` runs before its SparkSession.
                if let Some(text) = self.program.before_context() {
                    self.env.log().stderr_raw(text);
                }
                self.create_spark_context(ctx)
            }
        }
    }
}

impl Driver {
    fn answered(&mut self, answer: DriverAnswer, ctx: &mut Context<Self>) {
        let (DriverAnswer::RequestExecutors(result)
        | DriverAnswer::StopExecutors(result)
        | DriverAnswer::StopDriver(result)) = &answer;
        if let Err(e) = result {
            warn!(self.env.log(), "driver::YarnClusterSchedulerBackend", "{e}");
        }
        match answer {
            DriverAnswer::RequestExecutors(_) => {
                info!(
                    self.env.log(),
                    "driver::YarnClusterSchedulerBackend", "Shutting down all executors"
                );
                self.ask_scheduler(
                    ctx,
                    DriverAnswer::StopExecutors,
                    DriverEndpointMsg::StopExecutors,
                );
            }
            DriverAnswer::StopExecutors(_) => {
                self.ask_scheduler(ctx, DriverAnswer::StopDriver, DriverEndpointMsg::StopDriver)
            }
            DriverAnswer::StopDriver(_) => self.on_context_stopped(),
        }
    }
}

crate::endpoint!(Driver {
    messages: DriverMsg => on_message,
    answers: DriverAnswer => answered,
});
