//! The executor JVM's main thread before its backend exists: the `driverPropsFetcher` looks the
//! driver up (up to 3 tries), fetches `SparkAppConfig`, builds the executor's conf and starts the
//! `Executor` endpoint (Spark's `CoarseGrainedExecutorBackend.main` / `run`).

use super::{
    BACKEND, CoarseGrainedExecutorBackend, DRIVER_ENDPOINT, driver_ref, executor_jvm,
    parse_driver_url, verifier,
};
use crate::kernel::clock;
use crate::kernel::logs::Level;
use crate::kernel::timers;
use crate::rpc::{AskTable, AskTimeout, Asker, RpcEnv};
use crate::spark_core::executor_backend_state::{DriverLookup, LookupFailed};
use crate::spark_core::executor_conf::ExecutorConf;
use crate::spark_core::executor_env;
use crate::world::context::SimContext;
use crate::{error, info};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::endpoint_verifier::EndpointVerifierMsg;
use sparkyard_messages::executor::ExecutorMainMsg;
use sparkyard_messages::records::{ExecutorArguments, RpcFailure};
use sparkyard_messages::rpc::{EndpointId, RpcAddress, SparkAppConfig};
use std::rc::Rc;

/// What the fetcher holds once it handed its arguments to the backend.
fn no_arguments() -> ExecutorArguments {
    ExecutorArguments {
        driver_url: "".into(),
        executor_id: sparkyard_messages::ids::ExecutorId(0),
        hostname: String::new(),
        cores: 0,
        app_id: "".into(),
        resource_profile_id: 0,
        container_id: None,
    }
}

/// The answers the fetcher waits for.
pub enum MainAnswer {
    /// The endpoint-verifier's `CheckExistence`: whether the driver's endpoint exists.
    Lookup(Result<bool, RpcFailure>),
    Config(Result<SparkAppConfig, RpcFailure>),
}

/// The executor JVM's main thread (`driverPropsFetcher`).
pub struct ExecutorMain {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    args: ExecutorArguments,
    /// The GPUs its container was assigned (the NodeManager's `GpuResourceAllocator`), if any:
    /// what its GPU discovery script finds.
    container_gpus: Option<u32>,
    asks: AskTable<MainAnswer>,
    lookup: DriverLookup,
}

impl ExecutorMain {
    /// `container_gpus`: the GPUs the NodeManager assigned its container, if any.
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        args: ExecutorArguments,
        container_gpus: Option<u32>,
    ) {
        ExecutorMain::create(|ctx| {
            let mut env = env;
            let me = env
                .setup_thread("main", &ctx.address(), Some(ExecutorMainMsg::AskReply))
                .id;
            ExecutorMain {
                sim,
                env,
                me,
                args,
                container_gpus,
                asks: AskTable::default(),
                lookup: DriverLookup::default(),
            }
        });
    }

    fn lookup_timeout(&self) -> AskTimeout {
        let s = &self.sim.config.spark;
        AskTimeout::new(s.lookup_timeout_ms, &s.lookup_timeout_property)
    }

    fn run(&mut self, ctx: &mut Context<Self>) {
        let log = self.env.log().clone();
        // The JVM's own warning for the supplemented extraJavaOptions' --add-modules (a real
        // Spark 4.0 executor's stderr starts with it).
        log.stderr_raw(crate::spark_core::java_options::INCUBATOR_MODULES_WARNING);
        // Logging.initializeLogging prints this with no log4j2 configuration in the container
        // (SPARK_CONF_DIR ships only templates).
        log.stderr_raw(
            "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties",
        );
        let addr = self.env.address();
        info!(
            log,
            BACKEND,
            "Started daemon with process name: {}@{}",
            10_000 + addr.port as u32,
            addr.host
        );
        for sig in ["TERM", "HUP", "INT"] {
            info!(
                log,
                "executor::SignalUtils", "Registering signal handler for {sig}"
            );
        }
        // The fetcher's SparkEnv (`RpcEnv.create` with a new SecurityManager).
        executor_env::log_security_manager(&log, &self.sim.config.user);
        self.try_lookup(ctx);
    }

    /// The driver's RPC address, and the connect's time: the fetcher's is the JVM's first
    /// connection (inside the JVM's start-up), the executor env's the second (inside its set-up).
    fn driver_connection(&self, from_fetcher: bool) -> executor_env::ConnectionTo {
        let address = parse_driver_url(&self.args.driver_url).unwrap_or_else(|| RpcAddress {
            host: String::new(),
            port: 0,
        });
        let costs = &self.sim.config.costs;
        let (nth, budget) = if from_fetcher {
            (0, costs.jvm_start_ms)
        } else {
            (1, costs.executor_env_init_ms)
        };
        let jvm = executor_jvm(&self.args);
        executor_env::ConnectionTo {
            ip: self.sim.host_ip(&address.host),
            address,
            connect_ms: executor_env::connect_ms(
                self.sim.config.seed,
                &jvm,
                nth,
                budget,
                2 * costs.network_latency_ms,
            ),
        }
    }

    /// The fetcher's `RpcEnv` reached the driver: its `TransportClientFactory` line.
    fn log_driver_connection(&self) {
        if !self
            .env
            .log()
            .enabled(executor_env::CONNECTIONS, Level::Info)
        {
            return;
        }
        let c = self.driver_connection(true);
        executor_env::log_connection_created(self.env.log(), executor_env::CONNECTIONS, &c);
    }

    /// `setupEndpointRefByURI`, up to 3 tries; the last failure kills the JVM.
    fn try_lookup(&mut self, ctx: &mut Context<Self>) {
        self.lookup.start_try();
        match verifier(&self.env, &self.args.driver_url) {
            Ok(v) => {
                let (me, t) = (self.me, self.lookup_timeout());
                self.ask(ctx, me, &v, MainAnswer::Lookup, &t, |a| {
                    EndpointVerifierMsg::CheckExistence(a, DRIVER_ENDPOINT.into())
                });
            }
            Err(e) => self.lookup_failed(e, ctx),
        }
    }

    fn lookup_failed(&mut self, e: RpcFailure, ctx: &mut Context<Self>) {
        if self.lookup.failed() == LookupFailed::Retry {
            return self.try_lookup(ctx);
        }
        self.main_threw(e);
    }

    /// The backend's `main` dies of a failed ask it waited for (`awaitResult`): the JVM prints
    /// the uncaught exception and exits 1. `run` is inside `SparkHadoopUtil.runAsSparkUser`,
    /// whose `UserGroupInformation.doAs` rethrows a checked exception (the `SparkException`,
    /// the `RpcTimeoutException`) wrapped in an `UndeclaredThrowableException` (no message).
    fn main_threw(&mut self, e: RpcFailure) {
        let thrown = RpcFailure::new("java.lang.reflect.UndeclaredThrowableException", "")
            .caused_by(crate::rpc::awaited(e));
        let trace = thrown.stack_text();
        error!(
            self.env.log(),
            BACKEND, "Exception in thread \"main\" {trace}"
        );
        self.env.exit(1);
    }

    /// The fetched `SparkAppConfig`: as `CoarseGrainedExecutorBackend.run`, the executor's
    /// conf is built from its `sparkProperties`, and what the backend does after this point
    /// (its timeouts, its heartbeat) comes from them.
    fn on_config(&mut self, cfg: SparkAppConfig, ctx: &mut Context<Self>) {
        // `CoarseGrainedExecutorBackend.run` initializes logging again with the driver's conf
        // (structured logging on or off): the default profile line comes a second time.
        self.env
            .log()
            .stderr_raw(executor_env::DEFAULT_LOG4J_PROFILE_LINE);
        executor_env::log_create_executor_env(
            self.env.log(),
            &self.sim.config.user,
            &self.args.app_id,
            self.args.executor_id,
            || self.driver_connection(false),
        );
        let init = self.sim.config.costs.executor_env_init_ms;
        let (sim, env) = (self.sim.clone(), self.env.clone());
        let conf = ExecutorConf::from_properties(&cfg.spark_properties);
        timers::run_later(ctx, clock::ms(init), move |act: &mut Self, _| {
            // The fetcher's work is done: its arguments move to the backend.
            let args = std::mem::replace(&mut act.args, no_arguments());
            CoarseGrainedExecutorBackend::start(sim, env, args, conf, act.container_gpus);
            act.env.stop_endpoint(act.me);
        });
    }

    fn on_message(&mut self, msg: ExecutorMainMsg, ctx: &mut Context<Self>) {
        let ExecutorMainMsg::AskReply(reply) = msg;
        self.on_ask_reply(reply, ctx);
    }
}

impl Actor for ExecutorMain {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        let costs = &self.sim.config.costs;
        let start = costs.executor_jvm_start_ms(self.args.executor_id.0);
        timers::run_later(ctx, clock::ms(start), |act: &mut Self, ctx| act.run(ctx));
    }
}

impl ExecutorMain {
    fn answered(&mut self, answer: MainAnswer, ctx: &mut Context<Self>) {
        match answer {
            MainAnswer::Lookup(Ok(true)) => {
                self.log_driver_connection();
                let Some(driver) = driver_ref(&self.env, &self.args.driver_url) else {
                    return self.lookup_failed(RpcFailure::spark("driver vanished"), ctx);
                };
                let s = &self.sim.config.spark;
                let (me, t) = (
                    self.me,
                    AskTimeout::new(s.ask_timeout_ms, &s.ask_timeout_property),
                );
                let rp = self.args.resource_profile_id;
                self.ask(ctx, me, &driver, MainAnswer::Config, &t, |a| {
                    DriverEndpointMsg::RetrieveSparkAppConfig(a, rp)
                });
            }
            MainAnswer::Lookup(Ok(false)) => {
                self.log_driver_connection();
                let text = format!("Cannot find endpoint: {}", self.args.driver_url);
                self.lookup_failed(
                    RpcFailure::new("org.apache.spark.rpc.RpcEndpointNotFoundException", text),
                    ctx,
                )
            }
            MainAnswer::Lookup(Err(e)) => self.lookup_failed(e, ctx),
            MainAnswer::Config(Ok(cfg)) => self.on_config(cfg, ctx),
            MainAnswer::Config(Err(e)) => self.main_threw(e),
        }
    }
}

crate::endpoint!(ExecutorMain {
    messages: ExecutorMainMsg => on_message,
    answers: MainAnswer => answered,
});
