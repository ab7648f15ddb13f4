//! Spark's `ExecutorRunnable`: builds the executor container's launch context and command line
//! exactly as Spark does and calls `startContainer` on the container's NodeManager, reporting
//! success or `Failed to launch executor` back to the allocator.

use crate::debug;
use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::java_options::{
    conf_iteration_bin, is_executor_startup_conf, substitute_app_n_exec_ids,
};
use crate::spark_yarn::yarn_spark_hadoop_util::{escape_for_shell, join_escaped};
use crate::world::context::SimContext;
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::executor_runnable::ExecutorRunnableMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::split_command_string;
use sparkyard_messages::node_manager::{NodeManagerMsg, StartContainerRequest};
use sparkyard_messages::records::{
    Container, ContainerLaunchContext, ContainerMain, ExecutorArguments, LocalResource, RpcFailure,
};
use sparkyard_messages::rpc::{EndpointId, StartContainersResponse};
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use std::borrow::Cow;
use std::collections::BTreeMap;
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
    java_options: Arc<ExecutorJavaOptions>,
    /// What the container localizes (the AM's `--dist-cache-conf`).
    dist_cache: Arc<[LocalResource]>,
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
        java_options: Arc<ExecutorJavaOptions>,
        dist_cache: Arc<[LocalResource]>,
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
                java_options,
                dist_cache,
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
            container_id: Some(self.container.id),
        }
    }

    fn launch_context(&self) -> ContainerLaunchContext {
        let args = self.arguments();
        // The command line and the environment are read by the NodeManager's
        // `launch_container.sh`, written when container logs are captured; a run without logs
        // (the scale bench, sweeps) skips building their 1.5 KB of strings per executor but
        // keeps the one variable the NodeManager itself reads (its container runtime).
        let (commands, environment) = if self.env.log().captures() {
            let command = executor_command(
                self.sim.config.spark.executor_memory_mb,
                &self.java_options,
                &args,
            );
            let user = &self.sim.config.user;
            let env = executor_environment(&self.sim.config.spark, &self.container, user);
            (vec![command], env)
        } else {
            (Vec::new(), runtime_environment(&self.sim.config.spark))
        };
        ContainerLaunchContext {
            commands,
            environment,
            main: ContainerMain::Executor(args),
            local_resources: self.dist_cache.clone(),
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
            crate::spark_yarn::client_launch_context::CONTAINER_CLASSPATH.to_string(),
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
    crate::spark_yarn::client_launch_context::add_prefixed_env(
        &mut env,
        &s.properties,
        "spark.executorEnv.",
    );
    env
}

/// Of [`executor_environment`], only `YARN_CONTAINER_RUNTIME_TYPE` (from
/// `spark.executorEnv.`): what picks the NodeManager's container runtime.
fn runtime_environment(s: &crate::world::config::SparkSettings) -> Vec<(String, String)> {
    use sparkyard_messages::records::ENV_CONTAINER_TYPE;
    let key = ["spark.executorEnv.", ENV_CONTAINER_TYPE].concat();
    let value = s.properties.get(&key);
    value
        .map(|v| vec![(ENV_CONTAINER_TYPE.to_string(), v.clone())])
        .unwrap_or_default()
}

/// The NodeManager log URL Spark passes in `SPARK_LOG_URL_*`.
pub fn log_url(c: &Container, user: &str, file: &str) -> String {
    format!(
        "http://{}/node/containerlogs/{}/{user}/{file}?start=-4096",
        c.node_http_address, c.id
    )
}

/// The executor's command line as `ExecutorRunnable.prepareCommand` builds it: `-Xmx`, the
/// driver's `spark.executor.extraJavaOptions` (supplemented by the SparkContext, split and
/// escaped), the temp dir, the startup confs, the log dir and the OOM kill.
pub fn executor_command(
    executor_memory_mb: u64,
    opts: &ExecutorJavaOptions,
    a: &ExecutorArguments,
) -> String {
    format!(
        "{{{{JAVA_HOME}}}}/bin/java -server -Xmx{executor_memory_mb}m {} -Djava.io.tmpdir={{{{PWD}}}}/tmp{} -Dspark.yarn.app.container.log.dir=<LOG_DIR> -XX:OnOutOfMemoryError='kill %p' org.apache.spark.executor.YarnCoarseGrainedExecutorBackend --driver-url {} --executor-id {} --hostname {} --cores {} --app-id {} --resourceProfileId {} 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr",
        opts.extra_java_options(&a.app_id, a.executor_id),
        opts.startup,
        a.driver_url,
        a.executor_id,
        a.hostname,
        a.cores,
        a.app_id,
        a.resource_profile_id
    )
}

/// What every executor the allocator launches is told about the driver: its URL and the JVM
/// options its conf decides.
pub struct DriverLink {
    pub url: String,
    pub java_options: Arc<ExecutorJavaOptions>,
    /// The AM's `--dist-cache-conf`: what every executor's container localizes.
    pub dist_cache: Arc<[LocalResource]>,
}

/// What of `prepareCommand` the driver's conf decides, worked out once per application (the
/// allocator launches up to 100,000 executors with it): `spark.executor.extraJavaOptions` as
/// the SparkContext left it, and `SparkConf.isExecutorStartupConf`'s `-Dkey=value`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorJavaOptions {
    extra: ExtraJavaOptions,
    /// ` '-Dspark.driver.port=N' '-Dspark.ui.port=0'`..., each with its leading space.
    startup: String,
}

/// `spark.executor.extraJavaOptions` split into words.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ExtraJavaOptions {
    /// Escaped and joined once: the words name no `{{APP_ID}}` / `{{EXECUTOR_ID}}`.
    Escaped(String),
    /// The words before `Utils.substituteAppNExecIds`, escaped per executor.
    PerExecutor(Vec<String>),
}

thread_local! {
    /// The options `ExtraJavaOptions::shared_for` split last on this thread: every AM attempt
    /// of a sweep's seeds hands the same `spark.executor.extraJavaOptions` (Spark's default
    /// `--add-opens` options), and splitting and escaping them was most of an attempt's set-up.
    static LAST_EXTRA: std::cell::RefCell<Option<(String, ExtraJavaOptions)>> =
        const { std::cell::RefCell::new(None) };
}

impl ExtraJavaOptions {
    /// `split(opts)`, copied from the previous call on this thread when `opts` was the same.
    fn shared_for(opts: &str) -> Self {
        LAST_EXTRA.with(|last| {
            let mut last = last.borrow_mut();
            if let Some((_, extra)) = last.as_ref().filter(|(seen, _)| seen == opts) {
                return extra.clone();
            }
            let extra = Self::split(opts);
            *last = Some((opts.to_string(), extra.clone()));
            extra
        })
    }

    fn split(opts: &str) -> Self {
        let words = split_command_string(opts);
        if words.iter().any(|w| w.contains("{{")) {
            ExtraJavaOptions::PerExecutor(words)
        } else {
            ExtraJavaOptions::Escaped(join_escaped(&words))
        }
    }
}

impl ExecutorJavaOptions {
    /// From the driver's conf (`driver::context_conf`: `sc.getConf` as the AM hands it to the
    /// allocator).
    pub fn from_driver_conf(conf: &BTreeMap<String, String>) -> Self {
        let opts = conf
            .get("spark.executor.extraJavaOptions")
            .map_or("", String::as_str);
        let extra = ExtraJavaOptions::shared_for(opts);
        let mut confs: Vec<(&String, &String)> = conf
            .iter()
            .filter(|(k, _)| is_executor_startup_conf(k))
            .collect();
        confs.sort_by_key(|(k, _)| conf_iteration_bin(k));
        let startup = confs
            .iter()
            .map(|(k, v)| format!(" {}", escape_for_shell(&format!("-D{k}={v}"))))
            .collect();
        ExecutorJavaOptions { extra, startup }
    }

    /// The escaped options for one executor (`Utils.substituteAppNExecIds` first).
    fn extra_java_options(&self, app_id: &str, executor_id: ExecutorId) -> Cow<'_, str> {
        match &self.extra {
            ExtraJavaOptions::Escaped(joined) => Cow::Borrowed(joined),
            ExtraJavaOptions::PerExecutor(words) => {
                let id = executor_id.to_string();
                let subst = words
                    .iter()
                    .map(|w| substitute_app_n_exec_ids(w, app_id, &id));
                Cow::Owned(join_escaped(subst))
            }
        }
    }
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

#[cfg(test)]
mod command_tests {
    use super::*;

    /// ExecutorRunnable.prepareCommand (Spark 4.0): the supplemented extraJavaOptions split and
    /// escaped word by word ({{EXECUTOR_ID}} substituted), then the temp dir, then the startup
    /// confs (`'-Dspark.driver.port=N' '-Dspark.ui.port=0'` as a YARN executor's command shows
    /// them, in SparkConf.getAll's order), then the log dir.
    #[test]
    fn executor_command_carries_java_options_and_startup_confs() {
        let mut props = BTreeMap::new();
        props.insert(
            "spark.executor.extraJavaOptions".to_string(),
            "-Dname='a b' -Did={{EXECUTOR_ID}}".to_string(),
        );
        props.insert("spark.network.timeout".to_string(), "300s".to_string());
        props.insert("spark.executor.memory".to_string(), "2g".to_string());
        let conf = crate::spark_core::driver::context_conf(&props, 40123);
        let opts = ExecutorJavaOptions::from_driver_conf(&conf);
        let args = ExecutorArguments {
            driver_url: "spark://CoarseGrainedScheduler@nm-1:40123".into(),
            executor_id: ExecutorId(7),
            hostname: "nm-2".into(),
            cores: 1,
            app_id: "application_1_0001".into(),
            resource_profile_id: 0,
            container_id: None,
        };
        let cmd = executor_command(2048, &opts, &args);
        assert!(
            cmd.starts_with(
                "{{JAVA_HOME}}/bin/java -server -Xmx2048m '-Djava.net.preferIPv6Addresses=false' '-XX:+IgnoreUnrecognizedVMOptions' '--add-modules=jdk.incubator.vector' "
            ),
            "{cmd}"
        );
        assert!(
            cmd.contains("'-Dio.netty.tryReflectionSetAccessible=true' '-Dname=a b' '-Did=7' -Djava.io.tmpdir={{PWD}}/tmp "),
            "{cmd}"
        );
        let startup = cmd
            .split("-Djava.io.tmpdir={{PWD}}/tmp ")
            .nth(1)
            .and_then(|r| r.split(" -Dspark.yarn.app.container.log.dir").next())
            .unwrap();
        // Bins of a 64-bin ConcurrentHashMap: driver.port 1, network.timeout 8, ui.port 41.
        assert_eq!(
            startup,
            "'-Dspark.driver.port=40123' '-Dspark.network.timeout=300s' '-Dspark.ui.port=0'"
        );
        assert!(!cmd.contains("spark.executor.memory"));
        // A user's spark.driver.port gives way to the port the driver bound: one -D for it.
        props.insert("spark.driver.port".to_string(), "7078".to_string());
        let conf = crate::spark_core::driver::context_conf(&props, 40123);
        let cmd = executor_command(2048, &ExecutorJavaOptions::from_driver_conf(&conf), &args);
        assert_eq!(cmd.matches("-Dspark.driver.port=").count(), 1, "{cmd}");
        assert!(cmd.contains("'-Dspark.driver.port=40123'"), "{cmd}");
    }

    /// The options split for one `spark.executor.extraJavaOptions` are reused for the same
    /// string only: each answer is what splitting that string gives, in any order of calls.
    #[test]
    fn extra_java_options_are_shared_for_the_same_string_only() {
        let texts = ["-Da=1 '-Db=x y'", "-Did={{EXECUTOR_ID}}", "-Da=1 '-Db=x y'"];
        for opts in texts.iter().chain(texts.iter().rev()) {
            assert_eq!(
                ExtraJavaOptions::shared_for(opts),
                ExtraJavaOptions::split(opts)
            );
        }
    }
}
