//! Spark's `ExecutorRunnable`: builds the executor container's launch context and command line
//! exactly as Spark does and calls `startContainer` on the container's NodeManager, reporting
//! success or `Failed to launch executor` back to the allocator.

use crate::debug;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::world::context::SimContext;
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::executor_runnable::ExecutorRunnableMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::node_manager::{NodeManagerMsg, StartContainerRequest};
use sparkyard_messages::records::{
    Container, ContainerLaunchContext, ContainerMain, ExecutorArguments, RpcFailure,
};
use sparkyard_messages::rpc::{EndpointId, StartContainersResponse};
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use std::rc::Rc;
use std::sync::Arc;

const TARGET: &str = "am::ExecutorRunnable";

/// One container launch, on the AM's `ContainerLauncher` pool.
pub struct ExecutorRunnable {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    container: Container,
    executor_id: ExecutorId,
    app_id: Arc<str>,
    driver_url: Arc<str>,
    nm: Option<EndpointRef<NodeManagerMsg>>,
    allocator: EndpointRef<YarnAllocatorMsg>,
    asks: AskTable<Result<StartContainersResponse, RpcFailure>>,
}

impl ExecutorRunnable {
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        container: Container,
        executor_id: ExecutorId,
        app_id: Arc<str>,
        driver_url: Arc<str>,
        nm: Option<EndpointRef<NodeManagerMsg>>,
        allocator: EndpointRef<YarnAllocatorMsg>,
    ) {
        ExecutorRunnable::create(|ctx| {
            let mut env = env;
            let me = env
                .setup_thread(
                    "ContainerLauncher",
                    &ctx.address(),
                    Some(ExecutorRunnableMsg::AskReply),
                )
                .id;
            ExecutorRunnable {
                sim,
                env,
                me,
                container,
                executor_id,
                app_id,
                driver_url,
                nm,
                allocator,
                asks: AskTable::default(),
            }
        });
    }

    fn arguments(&self) -> ExecutorArguments {
        ExecutorArguments {
            driver_url: self.driver_url.clone(),
            executor_id: self.executor_id,
            hostname: self.container.node_id.host.clone(),
            cores: self.sim.config.spark.executor_cores,
            app_id: self.app_id.clone(),
            resource_profile_id: 0,
        }
    }

    fn launch_context(&self) -> ContainerLaunchContext {
        let args = self.arguments();
        let command = executor_command(self.sim.config.spark.executor_memory_mb, &args);
        let user = self.sim.config.user.clone();
        ContainerLaunchContext {
            commands: vec![command],
            environment: executor_environment(&self.sim.config.spark, &self.container, &user),
            main: ContainerMain::Executor(args),
            local_resources: self
                .sim
                .dist_cache
                .borrow()
                .clone()
                .unwrap_or_else(|| Arc::from([])),
        }
    }

    fn on_message(&mut self, msg: ExecutorRunnableMsg, ctx: &mut Context<Self>) {
        match msg {
            ExecutorRunnableMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
        }
    }

    fn report(&mut self, error: Option<String>, ctx: &mut Context<Self>) {
        let (executor_id, container_id) = (self.executor_id, self.container.id);
        let msg = match error {
            None => YarnAllocatorMsg::ExecutorLaunched {
                executor_id,
                container_id,
            },
            Some(error) => YarnAllocatorMsg::ExecutorLaunchFailed {
                executor_id,
                container_id,
                error,
            },
        };
        self.env.send(&self.allocator, msg);
        self.env.stop_endpoint(self.me);
        let _ = ctx;
    }
}

/// `ExecutorRunnable.prepareEnvironment`: the classpath (`Client.populateClasspath`),
/// `SPARK_USER`, the log URLs, then every `spark.executorEnv.NAME` (`getExecutorEnv`).
pub fn executor_environment(
    s: &crate::world::config::SparkSettings,
    c: &Container,
    user: &str,
) -> Vec<(String, String)> {
    let mut env = vec![
        (
            "CLASSPATH".to_string(),
            crate::spark_yarn::client::CONTAINER_CLASSPATH.to_string(),
        ),
        ("SPARK_USER".to_string(), user.to_string()),
        (
            "SPARK_LOG_URL_STDOUT".to_string(),
            log_url(c, user, "stdout"),
        ),
        (
            "SPARK_LOG_URL_STDERR".to_string(),
            log_url(c, user, "stderr"),
        ),
    ];
    crate::spark_yarn::client::add_prefixed_env(&mut env, s, "spark.executorEnv.");
    env
}

/// The NodeManager log URL Spark passes in `SPARK_LOG_URL_*`.
pub fn log_url(c: &Container, user: &str, file: &str) -> String {
    format!(
        "http://{}/node/containerlogs/{}/{user}/{file}?start=-4096",
        c.node_http_address, c.id
    )
}

/// The executor's command line as `ExecutorRunnable.prepareCommand` builds it.
pub fn executor_command(executor_memory_mb: u64, a: &ExecutorArguments) -> String {
    format!(
        "{{{{JAVA_HOME}}}}/bin/java -server -Xmx{executor_memory_mb}m -Djava.io.tmpdir={{{{PWD}}}}/tmp -Dspark.yarn.app.container.log.dir=<LOG_DIR> -XX:OnOutOfMemoryError='kill %p' org.apache.spark.executor.YarnCoarseGrainedExecutorBackend --driver-url {} --executor-id {} --hostname {} --cores {} --app-id {} --resourceProfileId {} 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
        a.driver_url, a.executor_id, a.hostname, a.cores, a.app_id, a.resource_profile_id
    )
}

impl Actor for ExecutorRunnable {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        debug!(self.env.log(), TARGET, "Starting Executor Container");
        let Some(nm) = self.nm.clone() else {
            let error = self.start_failure("java.net.ConnectException: Connection refused");
            return self.report(Some(error), ctx);
        };
        let req = Box::new(StartContainerRequest {
            container: self.container.clone(),
            launch_context: self.launch_context(),
        });
        let timeout = AskTimeout::new(
            self.sim.config.spark.network_timeout_ms,
            "ipc.client.rpc-timeout.ms",
        );
        let me = self.me;
        self.ask(
            ctx,
            me,
            &nm,
            |result| result,
            &timeout,
            |a| NodeManagerMsg::StartContainers(a, req),
        );
    }
}

impl ExecutorRunnable {
    fn answered(
        &mut self,
        result: Result<StartContainersResponse, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        let failed = match result {
            Ok(response) => response.failed.into_iter().next().map(|f| f.error),
            Err(e) => Some(e.to_string()),
        };
        let error = failed.map(|cause| self.start_failure(&cause));
        self.report(error, ctx);
    }

    /// The exception `startContainer` throws when `nmClient.startContainer` fails, as
    /// `logError(msg, e)` prints it: `new SparkException("Exception while starting container
    /// <id> on host <host>", ex)` with its frames and the NMClient's exception as the cause
    /// (ExecutorRunnable.scala). Frames carry no line numbers: sparkyard does not know Spark
    /// 4.0.0's, and Java prints `(File.scala)` when a frame has none.
    fn start_failure(&self, cause: &str) -> String {
        format!(
            "org.apache.spark.SparkException: Exception while starting container {} on host {}\n\
             \tat org.apache.spark.deploy.yarn.ExecutorRunnable.startContainer(ExecutorRunnable.scala)\n\
             \tat org.apache.spark.deploy.yarn.ExecutorRunnable.run(ExecutorRunnable.scala)\n\
             \tat org.apache.spark.deploy.yarn.YarnAllocator$$anon$1.run(YarnAllocator.scala)\n\
             \tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)\n\
             \tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:635)\n\
             \tat java.base/java.lang.Thread.run(Thread.java:840)\n\
             Caused by: {cause}",
            self.container.id, self.container.node_id.host
        )
    }
}

crate::endpoint!(ExecutorRunnable {
    messages: ExecutorRunnableMsg => on_message,
    answers: Result<StartContainersResponse, RpcFailure> => answered,
});
