//! Spark's `ApplicationMaster` in cluster mode: runs the user class in the `Driver` thread,
//! waits for the SparkContext (`spark.yarn.am.waitTime`), registers with the RM, creates the
//! YarnAllocator and the `YarnAM` endpoint (`AMEndpoint`), runs the Reporter loop, and
//! `finish`es with Spark's exit codes, unregistering only when Spark would. Its rules (finish,
//! the Reporter's decisions, the shutdown hook's) are `application_master_state`'s; this actor
//! logs and acts on what they decide.

use crate::kernel::clock;
use crate::kernel::trace::StateChange;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::driver::{Driver, DriverLaunch};
use crate::spark_yarn::application_master_state::{AmState, HookStep, ReporterStep, am_rules};
use crate::spark_yarn::executor_runnable::{DriverLink, ExecutorJavaOptions};
use crate::spark_yarn::yarn_allocator::{RM_CONNECT_MAX_WAIT_MS, create_allocator};
use crate::spark_yarn::yarn_scheduler_endpoint::create_scheduler_backend;
use crate::world::context::SimContext;
use crate::world::hadoop_conf::{HadoopConf, substitute_hadoop_variables};
use crate::world::observer::RunEvent;
use crate::{error, info, warn};
use actix::{Actor, AsyncContext, Context, SpawnHandle};
use sparkyard_messages::application_master::{AllocatorReport, ApplicationMasterMsg, YarnAmMsg};
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::ids::ApplicationAttemptId;
use sparkyard_messages::records::{Container, FinalApplicationStatus as Final, RpcFailure};
use sparkyard_messages::resource_manager::{
    FinishApplicationMasterRequest, RegisterApplicationMasterRequest, ResourceManagerMsg,
};
use sparkyard_messages::rpc::{
    EndpointId, FinishApplicationMasterResponse, RegisterApplicationMasterResponse, RemoteRef,
};
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::rc::Rc;

const TARGET: &str = "am::ApplicationMaster";

pub use crate::spark_yarn::application_master_state::exit_code;

/// The RM's answers the AM waits for.
pub enum AmAnswer {
    Register(Result<RegisterApplicationMasterResponse, RpcFailure>),
    Unregister(Result<FinishApplicationMasterResponse, RpcFailure>),
}

/// The program the AM was asked to run.
#[derive(Clone, Debug)]
pub struct UserClass {
    pub name: String,
    pub args: Vec<String>,
}

/// What the AM reads from its localized conf archive: `--properties-file
/// __spark_conf__/__spark_conf__.properties` (SparkSubmit's `spark.app.submitTime`) and
/// `--dist-cache-conf __spark_conf__/__spark_dist_cache__.properties` (the resources every
/// executor's launch context localizes: `ExecutorRunnable.prepareLocalResources`).
pub struct AmConf {
    pub submit_time_ms: Option<u64>,
    /// The command its container's JVM was started with (the launch context's `commands`), as
    /// the JVM knows its own: the driver's system properties in the event log come from it.
    pub jvm_command: String,
    pub dist_cache: std::sync::Arc<[sparkyard_messages::records::LocalResource]>,
    /// The GPUs the NodeManager assigned the AM's container (its `yarn.io/gpu` from
    /// `spark.driver.resource.gpu.amount`), if any: what the driver's discovery script finds.
    pub container_gpus: Option<u32>,
}

/// The AM's main thread and Reporter thread.
pub struct ApplicationMaster {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: Option<EndpointRef<ApplicationMasterMsg>>,
    container: Container,
    attempt_id: ApplicationAttemptId,
    rm: EndpointRef<ResourceManagerMsg>,
    user_class: UserClass,
    conf: AmConf,
    asks: AskTable<AmAnswer>,
    driver_thread: Option<EndpointRef<DriverMsg>>,
    sc_initialized: bool,
    driver: Option<RemoteRef>,
    /// Spark's ApplicationMaster rules and what they decided (registered, finished, ...).
    state: AmState,
    allocator: Option<EndpointRef<YarnAllocatorMsg>>,
    reporter_started: bool,
    reporter_timer: Option<SpawnHandle>,
    /// When the Reporter's current `allocatorLock.wait(sleepInterval)` began.
    reporter_sleep_started_ms: u64,
    reporter_waiting: bool,
    /// The JVM is running its shutdown hooks (after `System.exit` or a SIGTERM).
    in_shutdown: bool,
    /// A SIGTERM started the shutdown: the JVM then ends with 128 + 15.
    signalled: bool,
    /// The driver's `Shutdown` arrived: its SparkContext is stopping, so the SparkContext's
    /// shutdown hook would find it stopped and do nothing.
    context_stopping: bool,
    /// `cleanupStagingDir` ran (its line is logged once).
    staging_deleted: bool,
}

impl ApplicationMaster {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        container: Container,
        rm: EndpointRef<ResourceManagerMsg>,
        user_class: UserClass,
        conf: AmConf,
    ) {
        let attempt_id = container.id.attempt;
        let state = AmState::new(am_rules(
            &sim.config.spark,
            &sim.config.yarn,
            attempt_id.attempt_id,
        ));
        ApplicationMaster::create(|ctx| {
            let mut env = env;
            let me = env.setup_thread(
                "ApplicationMaster",
                &ctx.address(),
                Some(ApplicationMasterMsg::AskReply),
            );
            // ApplicationMaster.main: `SignalUtils.registerLogger(log)`; the signal reaches the
            // JVM, not the network.
            let addr = ctx.address();
            env.on_sigterm(move || addr.do_send(ApplicationMasterMsg::SignalTerm));
            ApplicationMaster {
                sim,
                env,
                me: Some(me),
                container,
                attempt_id,
                rm,
                user_class,
                conf,
                asks: AskTable::default(),
                driver_thread: None,
                sc_initialized: false,
                driver: None,
                state,
                allocator: None,
                reporter_started: false,
                reporter_timer: None,
                reporter_sleep_started_ms: 0,
                reporter_waiting: false,
                in_shutdown: false,
                signalled: false,
                context_stopping: false,
                staging_deleted: false,
            }
        });
    }

    fn me(&self) -> EndpointRef<ApplicationMasterMsg> {
        self.me.clone().expect("registered at creation")
    }

    fn finished(&self) -> bool {
        self.state.finished().is_some()
    }

    /// `ApplicationMaster.run()` once the JVM is up.
    fn run(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        // The JVM's own warning for the module options the Client put on the command line.
        log.stderr_raw(crate::spark_core::java_options::INCUBATOR_MODULES_WARNING);
        // SignalUtils.registerLogger is the first thing that logs: it initializes logging.
        log.stderr_raw(crate::spark_core::executor_env::DEFAULT_LOG4J_PROFILE_LINE);
        info!(
            log,
            "am::SignalUtils", "Registering signal handler for TERM"
        );
        info!(log, "am::SignalUtils", "Registering signal handler for HUP");
        info!(log, "am::SignalUtils", "Registering signal handler for INT");
        info!(log, TARGET, "ApplicationAttemptId: {}", self.attempt_id);
        self.sim.observe(RunEvent::AmStarted {
            attempt: self.attempt_id.attempt_id,
            container: self.container.id,
        });
        self.sim.current_attempt.set(self.attempt_id.attempt_id);
        let here = (self.container.id, self.container.node_id.host.clone());
        *self.sim.am_container.borrow_mut() = Some(here);
        let attempt = self.attempt_id.attempt_id;
        crate::world::injector::notify(
            &self.sim,
            crate::faults::Trigger::AttemptStarted { attempt },
        );
        self.run_driver(ctx);
    }

    /// `runDriver()`: start the user class, then wait for its SparkContext.
    fn run_driver(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        info!(
            log,
            TARGET, "Starting the user application in a separate Thread"
        );
        let Some(program) = self.sim.config.load_class(&self.user_class.name) else {
            // `loadClass` fails in the AM thread, before the Driver thread exists.
            let cause = format!("java.lang.ClassNotFoundException: {}", self.user_class.name);
            error!(
                log,
                TARGET,
                "Uncaught exception: \n{cause}\n\tat java.net.URLClassLoader.findClass(URLClassLoader.java:445)\n\tat org.apache.spark.deploy.yarn.ApplicationMaster.startUserApplication(ApplicationMaster.scala:740)"
            );
            let msg = format!("Uncaught exception: {cause}");
            return self.finish(Final::Failed, exit_code::UNCAUGHT_EXCEPTION, Some(msg), ctx);
        };
        let driver = Driver::start(
            self.sim.clone(),
            self.env.clone(),
            Rc::new(create_scheduler_backend),
            program,
            self.me(),
            DriverLaunch {
                args: self.user_class.args.clone(),
                attempt_id: self.attempt_id,
                submit_time_ms: self.conf.submit_time_ms,
                jvm_command: self.conf.jvm_command.clone(),
                container_gpus: self.conf.container_gpus,
            },
        );
        self.driver_thread = Some(driver);
        info!(log, TARGET, "Waiting for spark context initialization...");
        let wait = self.sim.config.spark.am_wait_time_ms;
        ctx.run_later(clock::ms(wait), move |act, ctx| {
            act.on_spark_context_wait_timeout(wait, ctx)
        });
    }

    fn on_spark_context_wait_timeout(&mut self, wait: u64, ctx: &mut Context<Self>) {
        if self.sc_initialized || self.finished() {
            return;
        }
        error!(
            self.env.log(),
            TARGET,
            "SparkContext did not initialize after waiting for {wait} ms. Please check earlier log output for errors. Failing the application."
        );
        self.finish(
            Final::Failed,
            exit_code::SC_NOT_INITED,
            Some("Timed out waiting for SparkContext.".into()),
            ctx,
        );
    }

    fn on_message(&mut self, msg: ApplicationMasterMsg, ctx: &mut Context<Self>) {
        match msg {
            ApplicationMasterMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            ApplicationMasterMsg::SparkContextInitialized { driver } => {
                self.on_spark_context_initialized(driver, ctx)
            }
            ApplicationMasterMsg::SparkContextNotCreated => {
                // The promise completed with null: `IllegalStateException` escapes runDriver.
                let text =
                    "java.lang.IllegalStateException: User did not initialize spark context!";
                error!(self.env.log(), TARGET, "Uncaught exception: \n{text}");
                self.finish(
                    Final::Failed,
                    exit_code::UNCAUGHT_EXCEPTION,
                    Some(format!("Uncaught exception: {text}")),
                    ctx,
                );
            }
            ApplicationMasterMsg::Finish {
                status,
                exit_code,
                message,
            } => self.finish(status, exit_code, message, ctx),
            ApplicationMasterMsg::AllocatorReport(report) => self.on_allocator_report(report, ctx),
            ApplicationMasterMsg::DriverShutdown { exit_code: _ } => {
                // AMEndpoint.receive(Shutdown) (ApplicationMaster.scala) logs nothing: it sets
                // the exit code and `allocator.setShutdown(true)`.
                self.context_stopping = true;
                if let Some(a) = &self.allocator {
                    self.env.send(a, YarnAllocatorMsg::SetShutdown);
                }
            }
            ApplicationMasterMsg::WakeReporter => self.wake_reporter(ctx),
            ApplicationMasterMsg::SignalTerm => self.on_signal_term(ctx),
            ApplicationMasterMsg::SparkContextHookDone => self.am_shutdown_hook(ctx),
        }
    }

    /// SIGTERM (YARN stopping the AM container): SignalUtils logs it, then the JVM runs its
    /// shutdown hooks as `System.exit` would.
    fn on_signal_term(&mut self, ctx: &mut Context<Self>) {
        error!(self.env.log(), TARGET, "RECEIVED SIGNAL TERM");
        self.signalled = true;
        self.run_shutdown_hooks(ctx);
    }

    /// The JVM's shutdown hooks in priority order: the SparkContext's (50) stops a running
    /// context first, then the AM's (49).
    fn run_shutdown_hooks(&mut self, ctx: &mut Context<Self>) {
        if std::mem::replace(&mut self.in_shutdown, true) {
            return;
        }
        if let Some(reporter) = self.reporter_timer.take() {
            ctx.cancel_future(reporter);
        }
        match &self.driver_thread {
            Some(driver) if !self.context_stopping => {
                self.env.send(driver, DriverMsg::RunShutdownHook)
            }
            _ => self.am_shutdown_hook(ctx),
        }
    }

    /// The AM's shutdown hook (ApplicationMaster.scala `run`): a final status not reported yet
    /// becomes `finish(finalStatus, EXIT_EARLY, "Shutdown hook called before final status was
    /// reported.")` (finalStatus is FAILED in cluster mode until something sets it); then
    /// unregister on success or on the last attempt, and exit.
    fn am_shutdown_hook(&mut self, ctx: &mut Context<Self>) {
        if !self.finished() {
            // finalStatus is FAILED in cluster mode until something sets it.
            self.record_finish(
                Final::Failed,
                exit_code::EARLY,
                Some("Shutdown hook called before final status was reported.".into()),
                ctx,
            );
        }
        self.shutdown_hook(ctx);
    }

    /// `sparkContextInitialized`: register with the RM, then create the allocator.
    fn on_spark_context_initialized(&mut self, driver: RemoteRef, ctx: &mut Context<Self>) {
        if self.finished() {
            return;
        }
        self.sc_initialized = true;
        let address = driver
            .address
            .rpc_address
            .clone()
            .expect("the driver listens");
        self.driver = Some(driver);
        info!(
            self.env.log(),
            "am::YarnRMClient", "Registering the ApplicationMaster"
        );
        let req = RegisterApplicationMasterRequest {
            attempt_id: self.attempt_id,
            host: address.host.clone(),
            rpc_port: i32::from(address.port),
            tracking_url: format!("http://{}:4040", address.host),
        };
        let me = self.me().id;
        let rm = self.rm.clone();
        // AMRMClient calls go through YARN's RM retry proxy (RMProxy).
        let t = AskTimeout::new(
            RM_CONNECT_MAX_WAIT_MS,
            "yarn.resourcemanager.connect.max-wait.ms",
        );
        self.ask(ctx, me, &rm, AmAnswer::Register, &t, |a| {
            ResourceManagerMsg::RegisterApplicationMaster(a, req)
        });
    }

    fn on_registered(&mut self, ctx: &mut Context<Self>) {
        self.state.registered = true;
        let attempt = self.attempt_id;
        self.env
            .trace_state("ApplicationMaster", || StateChange::AmRegistered {
                attempt,
            });
        let driver = self
            .driver
            .clone()
            .expect("registered after the SparkContext");
        let address = driver
            .address
            .rpc_address
            .clone()
            .expect("the driver listens");
        let driver_url = format!("spark://CoarseGrainedScheduler@{address}");
        // The allocator launches executors from the driver's conf (`sc.getConf`).
        let conf = crate::spark_core::driver::context_conf(
            &self.sim.config.spark.properties,
            address.port,
        );
        let java_options = std::sync::Arc::new(ExecutorJavaOptions::from_driver_conf(&conf));
        self.log_launch_context(&driver_url, &java_options);
        let Some(yarn_scheduler) = self
            .env
            .local_endpoint_ref::<YarnSchedulerMsg>("YarnScheduler")
        else {
            let msg = "Uncaught exception: org.apache.spark.SparkException: Could not find YarnScheduler.".to_string();
            return self.finish(Final::Failed, exit_code::UNCAUGHT_EXCEPTION, Some(msg), ctx);
        };
        let allocator = create_allocator(
            &self.sim,
            &self.env,
            self.attempt_id,
            DriverLink {
                url: driver_url,
                java_options,
                dist_cache: self.conf.dist_cache.clone(),
            },
            self.rm.clone(),
            yarn_scheduler.clone(),
            self.me(),
        );
        self.allocator = Some(allocator.clone());
        AmEndpoint::start(
            self.env.clone(),
            allocator.clone(),
            self.me(),
            yarn_scheduler,
        );
        // createAllocator (ApplicationMaster.scala) calls `allocator.allocateResources()` once
        // and starts the Reporter thread; runDriver calls `resumeDriver()` only after
        // createAllocator returned (on_allocator_report goes on).
        self.reporter_waiting = true;
        self.env
            .send(&allocator, YarnAllocatorMsg::AllocateResources);
    }

    fn log_launch_context(&self, driver_url: &str, java_options: &ExecutorJavaOptions) {
        // The text costs a command line, the redacted env and their formatting per attempt:
        // built only when the line goes somewhere (a sweep keeps no logs).
        if !self.env.log().enabled(TARGET, log::Level::Info) {
            return;
        }
        let s = &self.sim.config.spark;
        let args = sparkyard_messages::records::ExecutorArguments {
            driver_url: driver_url.into(),
            executor_id: sparkyard_messages::ids::ExecutorId(0),
            hostname: "<hostname>".into(),
            cores: s.executor_cores,
            app_id: self.attempt_id.application_id.to_string().into(),
            resource_profile_id: 0,
            container_id: None,
        };
        let command = crate::spark_yarn::executor_runnable::executor_command(
            s.executor_memory_mb,
            java_options,
            &args,
        )
        .replace("--executor-id 0", "--executor-id <executorId>");
        let rule = "=".repeat(79);
        // ExecutorRunnable.launchContextDebugInfo: the env through Utils.redact(sparkConf, env).
        let mut env = vec![("SPARK_USER".to_string(), self.sim.config.user.clone())];
        crate::spark_yarn::client_launch_context::add_prefixed_env(
            &mut env,
            &s.properties,
            "spark.executorEnv.",
        );
        let r = crate::world::spark_conf::Redactor::from_properties(
            s.properties.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
        let env: String = env
            .iter()
            .map(|(k, v)| format!("    {k} -> {}\n", r.redact(k, v)))
            .collect();
        info!(
            self.env.log(),
            TARGET,
            "\n{rule}\nDefault YARN executor launch context:\n  env:\n{env}\n  command:\n    {command}\n{rule}"
        );
    }

    /// One pass of the Reporter loop (`allocationThreadImpl`): the allocator runs the checks on
    /// its counters as they are now, after the sleep, and allocates only if they pass.
    fn reporter_tick(&mut self, _ctx: &mut Context<Self>) {
        self.reporter_timer = None;
        if self.finished() {
            return;
        }
        self.reporter_waiting = true;
        let max_executor_failures = self.state.rules().max_executor_failures;
        if let Some(a) = &self.allocator {
            self.env.send(
                a,
                YarnAllocatorMsg::ReporterPass {
                    max_executor_failures,
                },
            );
        }
    }

    fn on_allocator_report(&mut self, report: AllocatorReport, ctx: &mut Context<Self>) {
        if self.finished() || !self.reporter_waiting {
            return;
        }
        self.reporter_waiting = false;
        if !self.reporter_started {
            return self.on_allocator_created(report, ctx);
        }
        match self.state.after_pass(&report) {
            ReporterStep::Finish {
                status,
                code,
                message,
                error,
            } => {
                if let Some(line) = error {
                    error!(self.env.log(), TARGET, "{line}");
                }
                self.finish(status, code, Some(message), ctx)
            }
            ReporterStep::Sleep { ms, failures } => {
                if let Some(n) = failures {
                    warn!(
                        self.env.log(),
                        TARGET, "Reporter thread fails {n} time(s) in a row."
                    );
                }
                // The sleep after a pass, failed or not (allocationThreadImpl's second `try`).
                self.sleep_then_pass(ms, ctx);
            }
        }
    }

    /// createAllocator's own `allocateResources()` returned: the Reporter thread starts (its
    /// line), runDriver resumes the Driver thread, and the loop's first pass runs at once,
    /// back to back with that first allocate call (ApplicationMaster.scala, createAllocator,
    /// launchReporterThread, runDriver). An exception from that first call escapes runDriver.
    fn on_allocator_created(&mut self, report: AllocatorReport, ctx: &mut Context<Self>) {
        if let Some(e) = report.rm_failure {
            error!(self.env.log(), TARGET, "Uncaught exception: \n{e}");
            return self.finish(
                Final::Failed,
                exit_code::UNCAUGHT_EXCEPTION,
                Some(format!("Uncaught exception: {e}")),
                ctx,
            );
        }
        self.reporter_started = true;
        info!(
            self.env.log(),
            TARGET,
            "Started progress reporter thread with (heartbeat: {}, initial allocation: {}) intervals",
            self.state.rules().intervals.heartbeat_ms,
            self.state.rules().intervals.initial_ms
        );
        if let Some(d) = &self.driver_thread {
            self.env.send(d, DriverMsg::ResumeDriver);
        }
        self.reporter_tick(ctx);
    }

    fn sleep_then_pass(&mut self, sleep: u64, ctx: &mut Context<Self>) {
        self.reporter_sleep_started_ms = clock::now_ms();
        self.reporter_timer =
            Some(ctx.run_later(clock::ms(sleep), |act, ctx| act.reporter_tick(ctx)));
    }

    /// `resetAllocatorInterval()`: the interval starts again from the initial one and
    /// `notifyAll` ends the Reporter's wait; a wait cut short still lasts the initial interval
    /// in all ("if sleep was less than the minimum interval, sleep for the rest of it":
    /// allocationThreadImpl, ApplicationMaster.scala).
    fn wake_reporter(&mut self, ctx: &mut Context<Self>) {
        let slept = clock::now_ms().saturating_sub(self.reporter_sleep_started_ms);
        let rest = self.state.wake(slept);
        if let Some(handle) = self.reporter_timer.take() {
            ctx.cancel_future(handle);
            self.reporter_timer =
                Some(ctx.run_later(clock::ms(rest), |act, ctx| act.reporter_tick(ctx)));
        }
    }

    /// `finish(status, code, msg)`: first call wins; before registration cluster mode forces
    /// (FAILED, 13). Then the JVM exits (`System.exit`) through its shutdown hooks.
    fn finish(&mut self, status: Final, code: i32, msg: Option<String>, ctx: &mut Context<Self>) {
        if self.record_finish(status, code, msg, ctx) {
            self.run_shutdown_hooks(ctx);
        }
    }

    /// `finish`'s bookkeeping and its log line; false when the AM had already finished.
    fn record_finish(
        &mut self,
        status: Final,
        code: i32,
        msg: Option<String>,
        ctx: &mut Context<Self>,
    ) -> bool {
        let Some(f) = self.state.finish(status, code, msg) else {
            return false;
        };
        let reason = f
            .message
            .as_ref()
            .map(|m| format!(", (reason: {m})"))
            .unwrap_or_default();
        info!(
            self.env.log(),
            TARGET, "Final app status: {}, exitCode: {}{reason}", f.status, f.code
        );
        if let Some(h) = self.reporter_timer.take() {
            ctx.cancel_future(h);
        }
        true
    }

    /// The AM's shutdown hook: unregister on success or on the last attempt, then exit. Spark
    /// 4.0 (ApplicationMaster.run's hook) cleans the staging directory *before* unregistering
    /// on the last attempt, and after a successful unregister on an earlier one.
    fn shutdown_hook(&mut self, ctx: &mut Context<Self>) {
        let HookStep::Unregister {
            status,
            diagnostics: diag,
            clean_staging_first,
        } = self.state.shutdown_hook()
        else {
            return self.exit();
        };
        if clean_staging_first {
            self.cleanup_staging_dir();
        }
        let suffix = if diag.is_empty() {
            String::new()
        } else {
            format!(" (diag message: {diag})")
        };
        info!(
            self.env.log(),
            TARGET, "Unregistering ApplicationMaster with {status}{suffix}"
        );
        let req = FinishApplicationMasterRequest {
            attempt_id: self.attempt_id,
            final_status: status,
            diagnostics: diag,
            // YarnRMClient.unregister: the final tracking URL is the history URL ("" unset).
            tracking_url: history_server_address(
                self.sim.config.spark.history_server_address.as_deref(),
                &HadoopConf::new(&self.sim.config),
                self.attempt_id,
            ),
        };
        let (me, rm) = (self.me().id, self.rm.clone());
        // AMRMClient calls go through YARN's RM retry proxy (RMProxy).
        let t = AskTimeout::new(
            RM_CONNECT_MAX_WAIT_MS,
            "yarn.resourcemanager.connect.max-wait.ms",
        );
        self.ask(ctx, me, &rm, AmAnswer::Unregister, &t, |a| {
            ResourceManagerMsg::FinishApplicationMaster(a, req)
        });
    }

    fn exit(&mut self) {
        let attempt = self.attempt_id.attempt_id;
        let exit_code = self.state.finished().map_or(0, |f| f.code);
        self.sim.observe(RunEvent::AmExited { attempt, exit_code });
        if self.state.unregistered {
            self.cleanup_staging_dir();
        }
        let log = self.env.log().clone();
        info!(log, "am::ShutdownHookManager", "Shutdown hook called");
        self.env
            .trace_state("ApplicationMaster", || StateChange::AmExited { exit_code });
        // A JVM ended by SIGTERM exits 128 + 15 whatever `finish` recorded.
        self.env.exit(if self.signalled { 143 } else { exit_code });
    }

    /// `cleanupStagingDir`, once.
    fn cleanup_staging_dir(&mut self) {
        if std::mem::replace(&mut self.staging_deleted, true) {
            return;
        }
        let staging = format!(
            "hdfs://{}:8020/user/{}/.sparkStaging/{}",
            self.sim.config.rm_host, self.sim.config.user, self.attempt_id.application_id
        );
        info!(
            self.env.log(),
            TARGET, "Deleting staging directory {staging}"
        );
    }
}

impl Actor for ApplicationMaster {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let start = self.sim.config.costs.jvm_start_ms;
        ctx.run_later(clock::ms(start), |act, ctx| act.run(ctx));
    }
}

impl ApplicationMaster {
    fn answered(&mut self, answer: AmAnswer, ctx: &mut Context<Self>) {
        match answer {
            AmAnswer::Register(Ok(_)) => self.on_registered(ctx),
            AmAnswer::Register(Err(e)) => {
                error!(self.env.log(), TARGET, "Uncaught exception: \n{e}");
                self.finish(
                    Final::Failed,
                    exit_code::UNCAUGHT_EXCEPTION,
                    Some(format!("Uncaught exception: {e}")),
                    ctx,
                );
            }
            AmAnswer::Unregister(result) => {
                self.state.unregistered = result.is_ok();
                if let Err(e) = result {
                    warn!(
                        self.env.log(),
                        TARGET,
                        "Ignoring Exception while stopping ApplicationMaster from shutdown hook\n{e}"
                    );
                } else {
                    info!(
                        self.env.log(),
                        "am::AMRMClientImpl",
                        "Waiting for application to be successfully unregistered."
                    );
                }
                self.exit();
            }
        }
    }
}

crate::endpoint!(ApplicationMaster {
    messages: ApplicationMasterMsg => on_message,
    answers: AmAnswer => answered,
});

/// The `YarnAM` endpoint (`ApplicationMaster.AMEndpoint`) in the driver's RpcEnv.
pub struct AmEndpoint {
    env: RpcEnv,
    me: EndpointId,
    allocator: EndpointRef<YarnAllocatorMsg>,
    am: EndpointRef<ApplicationMasterMsg>,
    yarn_scheduler: EndpointRef<YarnSchedulerMsg>,
}

impl AmEndpoint {
    fn start(
        env: RpcEnv,
        allocator: EndpointRef<YarnAllocatorMsg>,
        am: EndpointRef<ApplicationMasterMsg>,
        yarn_scheduler: EndpointRef<YarnSchedulerMsg>,
    ) {
        AmEndpoint::create(|ctx| {
            let mut env = env;
            let me = env
                .setup_endpoint::<_, YarnAmMsg>("YarnAM", &ctx.address(), None)
                .id;
            AmEndpoint {
                env,
                me,
                allocator,
                am,
                yarn_scheduler,
            }
        });
    }

    fn on_message(&mut self, msg: YarnAmMsg, _ctx: &mut Context<Self>) {
        match msg {
            YarnAmMsg::RequestExecutors(ask, req) => {
                // The allocator wakes the Reporter itself, only when the target changed.
                self.env.send(
                    &self.allocator,
                    YarnAllocatorMsg::RequestTotalExecutors(ask, req),
                );
            }
            YarnAmMsg::KillExecutors(ask, ids) => {
                let list: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
                info!(
                    self.env.log(),
                    TARGET,
                    "Driver requested to kill executor(s) {}.",
                    list.join(", ")
                );
                self.env
                    .send(&self.allocator, YarnAllocatorMsg::KillExecutors(ask, ids));
            }
            YarnAmMsg::GetExecutorLossReason(ask, id) => {
                self.env.send(
                    &self.allocator,
                    YarnAllocatorMsg::GetExecutorLossReason(ask, id),
                );
                self.env.send(&self.am, ApplicationMasterMsg::WakeReporter);
            }
            YarnAmMsg::Shutdown { exit_code } => self
                .env
                .send(&self.am, ApplicationMasterMsg::DriverShutdown { exit_code }),
        }
    }
}

impl Actor for AmEndpoint {
    type Context = Context<Self>;

    /// `onStart`: `RegisterClusterManager(self)` to the driver's `YarnScheduler`.
    fn started(&mut self, _ctx: &mut Context<Self>) {
        let me = self.env.remote_ref(self.me);
        self.env.send(
            &self.yarn_scheduler,
            YarnSchedulerMsg::RegisterClusterManager(me),
        );
    }
}

crate::endpoint!(AmEndpoint {
    messages: YarnAmMsg => on_message,
});

/// `ApplicationMaster.getHistoryServerAddress`: `spark.yarn.historyServer.address` with its
/// `${hadoopconf-KEY}` references resolved (`SparkHadoopUtil.substituteHadoopVariables`) and
/// `HistoryServer.UI_PATH_PREFIX/<appId>/<attemptId>` appended; "" when the key is unset. Spark
/// adds no scheme: YARN's proxy puts one in front of a tracking URL without it.
pub fn history_server_address(
    address: Option<&str>,
    conf: &HadoopConf,
    attempt: ApplicationAttemptId,
) -> String {
    address.map_or(String::new(), |a| {
        let a = substitute_hadoop_variables(a, conf);
        format!(
            "{a}/history/{}/{}",
            attempt.application_id, attempt.attempt_id
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;
    use std::collections::BTreeMap;

    // ApplicationMaster.scala getHistoryServerAddress (read in spark-yarn_2.13-4.0.0.jar:
    // substituteHadoopVariables, then the "\u0001\u0001/\u0001/\u0001" concat of the address,
    // HistoryServer.UI_PATH_PREFIX "/history", the app id and the attempt id; getOrElse "").
    #[test]
    fn the_history_address_gets_the_history_path_and_hadoop_values() {
        let yarn = crate::world::hadoop_conf::test_yarn_settings();
        let props = BTreeMap::new();
        let conf = HadoopConf::of("rm-1.example", &yarn, &props);
        let attempt = ApplicationAttemptId {
            application_id: ApplicationId {
                cluster_timestamp: 1764662400000,
                id: 1,
            },
            attempt_id: 2,
        };
        assert_eq!(history_server_address(None, &conf, attempt), "");
        assert_eq!(
            history_server_address(
                Some("${hadoopconf-yarn.resourcemanager.hostname}:18080"),
                &conf,
                attempt
            ),
            "rm-1.example:18080/history/application_1764662400000_0001/2"
        );
        assert_eq!(
            history_server_address(Some("http://hs:18080"), &conf, attempt),
            "http://hs:18080/history/application_1764662400000_0001/2"
        );
    }

    /// Ports ApplicationMasterSuite "history url with hadoop and spark substitutions". The
    /// `${spark.history.ui.port}` reference is expanded when the setting is read
    /// (`SparkConf.get(HISTORY_SERVER_ADDRESS)`'s ConfigReader, sparkyard's
    /// `get_substituted` in src/conf, default 18080), so the AM receives the value with the
    /// Hadoop reference left for `getHistoryServerAddress` to resolve. Spark's test passes
    /// free strings for the ids; here they are the attempt's own.
    #[test]
    fn history_url_with_hadoop_and_spark_substitutions() {
        let yarn = crate::world::hadoop_conf::test_yarn_settings();
        let props = BTreeMap::new();
        let conf = HadoopConf::of("rm.host.com", &yarn, &props);
        let attempt = ApplicationAttemptId {
            application_id: ApplicationId {
                cluster_timestamp: 123,
                id: 1,
            },
            attempt_id: 1,
        };
        assert_eq!(attempt.application_id.to_string(), "application_123_0001");
        let read = "http://${hadoopconf-yarn.resourcemanager.hostname}:18080";
        assert_eq!(
            history_server_address(Some(read), &conf, attempt),
            "http://rm.host.com:18080/history/application_123_0001/1"
        );
    }
}
