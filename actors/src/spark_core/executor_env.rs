//! The lines an executor JVM logs while its SparkEnv, BlockManager and Executor start: mirrors
//! the start-up logging of `SparkEnv.createExecutorEnv` (`SecurityManager`, `DiskBlockManager`),
//! `ResourceUtils`, `Executor`'s constructor, `NettyBlockTransferService` and
//! `BlockManager.initialize`, in the order and wording of a real Spark 4.0.0 executor's stderr
//! (pyspark 4.0.0, `local-cluster[2,1,1024]`), with the YARN logger names.
//!
//! `TransportClientFactory`'s connection lines print `host/ip:port`, the address being the
//! node's own (`SimContext::host_ip`: its place in the cluster), and the connect's time
//! ([`connect_ms`]: a seeded set-up time plus the network round trip).

use crate::info;
use crate::kernel::logs::{Level, ProcessLog};
use crate::kernel::trace::fnv1a;
use crate::spark_core::resource_profile::{Discovered, custom_resources_line};
use crate::world::addresses::app_cache_dir;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::rpc::RpcAddress;

/// What `Logging.initializeLogging` prints to stderr (no log4j line) in a JVM whose classpath has
/// no log4j2 configuration: YARN containers get only `__spark_conf__`'s templates.
pub const DEFAULT_LOG4J_PROFILE_LINE: &str =
    "Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties";

/// The OS and JVM every simulated process reports (`Executor` and `SparkContext` log them).
pub const OS_INFO: &str = "Linux, 6.1.0, amd64";
pub const JAVA_VERSION: &str = "17.0.15";

/// The port an executor's `NettyBlockTransferService` listens on (Spark picks a free one; here
/// it is derived from the id, so the driver's BlockManagerMasterEndpoint line agrees).
pub fn block_manager_port(id: ExecutorId) -> u16 {
    38000 + (id.0 % 1000) as u16
}

/// The port the driver's `NettyBlockTransferService` listens on: the one after its RpcEnv's
/// (`sparkDriver`) port, so the driver's block manager, its BlockManagerAdded event and an
/// executor's first connection to it agree.
pub fn driver_block_manager_port(driver_rpc_port: u16) -> u16 {
    driver_rpc_port.wrapping_add(1)
}

/// How long `TransportClientFactory.createClient` takes, as it logs it: the network round trip
/// plus the client's set-up in this JVM. A real Spark 4.0.0 executor (pyspark 4.0.0,
/// `local-cluster`) logged 652 ms for its JVM's first connection (Netty's classes load then),
/// then 25, 7, 18 and 21 ms; on a warm YARN node the first is tens of ms. Here the first
/// (`nth == 0`) takes 40..=139 ms and later ones 2..=29 ms, drawn from the run's seed and
/// the connecting JVM (`jvm`), never more than `budget_ms`: the start-up cost of the cost
/// model that already holds the connect (the JVM start, the env's set-up, the first task's
/// warm-up), so the virtual clock and the printed time agree.
pub fn connect_ms(seed: u64, jvm: &str, nth: u32, budget_ms: u64, round_trip_ms: u64) -> u64 {
    let h = fnv1a(format!("{seed}/{jvm}/connect/{nth}").as_bytes());
    let setup = if nth == 0 { 40 + h % 100 } else { 2 + h % 28 };
    round_trip_ms + setup.min(budget_ms)
}

/// `TransportClientFactory.createClient` once a connection is up: the `InetSocketAddress`
/// prints as `host/ip:port`; with authentication off no bootstrap runs (0 ms).
pub fn log_connection_created(log: &ProcessLog, target: &'static str, to: &ConnectionTo) {
    if !log.enabled(target, Level::Info) {
        return;
    }
    info!(
        log,
        target,
        "Successfully created connection to {}/{}:{} after {} ms (0 ms spent in bootstraps)",
        to.address.host,
        to.ip,
        to.address.port,
        to.connect_ms
    );
}

/// The user's jars on an executor's class path, as `YarnCoarseGrainedExecutorBackend.
/// getUserClassPath` computes them with `Client.getUserClasspathUrls(conf, useClusterPath =
/// true)`: the primary jar (`__app__.jar`, localized in the container's directory, or a
/// `local:` jar's own path), then `spark.yarn.secondary.jars` (each `--jars` entry's link name
/// in the container's directory, or its `local:` path).
pub struct UserClassPath<'a> {
    pub primary_resource: &'a str,
    /// `spark.yarn.dist.jars` (the `--jars` list), comma-separated.
    pub dist_jars: Option<&'a str>,
    /// `spark.executor.userClassPathFirst`.
    pub user_class_path_first: bool,
    /// The container's working directory (`Paths.get(..).toAbsolutePath` resolves against it).
    pub container_dir: String,
}

impl UserClassPath<'_> {
    /// The URLs joined with `:` as `Executor.createClassLoader` logs them (`URL.toString` of
    /// `Path.toUri`: `file:/abs/path`).
    pub fn urls(&self) -> String {
        let primary = local_path(self.primary_resource)
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}/__app__.jar", self.container_dir));
        let mut urls = vec![format!("file:{primary}")];
        for jar in self.dist_jars.unwrap_or("").split(',') {
            let jar = jar.trim();
            if jar.is_empty() {
                continue;
            }
            let path = match local_path(jar) {
                Some(p) => p.to_string(),
                None => {
                    let (uri, fragment) = jar.split_once('#').unwrap_or((jar, ""));
                    let name = uri.rsplit('/').next().unwrap_or(uri);
                    let link = if fragment.is_empty() { name } else { fragment };
                    format!("{}/{link}", self.container_dir)
                }
            };
            urls.push(format!("file:{path}"));
        }
        urls.join(":")
    }
}

/// The path of a `local:` URI (a file already on every node: not distributed).
fn local_path(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("local:")?;
    Some(rest.trim_start_matches("//"))
}

/// A `SecurityManager`'s constructor: the ACL lines, as Spark 4.0 prints them with
/// authentication, UI ACLs and RPC SSL off (their defaults).
pub fn log_security_manager(log: &ProcessLog, user: &str) {
    log_security_manager_of(log, "executor::SecurityManager", user);
}

/// The SecurityManager's lines under `target` (a process's `SecurityManager` logger).
pub fn log_security_manager_of(log: &ProcessLog, target: &'static str, user: &str) {
    if !log.enabled(target, Level::Info) {
        return;
    }
    for what in [
        "view acls",
        "modify acls",
        "view acls groups",
        "modify acls groups",
    ] {
        info!(log, target, "Changing {what} to: {user}");
    }
    info!(
        log,
        target,
        "SecurityManager: authentication disabled; ui acls disabled; users with view permissions: {user} groups with view permissions: EMPTY; users with modify permissions: {user}; groups with modify permissions: EMPTY; RPC SSL disabled"
    );
}

/// `SparkEnv.createExecutorEnv`: its SecurityManager, then `DiskBlockManager` creating the
/// block manager's directory under the NodeManager's application cache (YARN's default
/// `yarn.nodemanager.local-dirs`, `${hadoop.tmp.dir}/nm-local-dir`, for an NM run as `yarn`).
/// Its `RpcEnv` then looks the driver's MapOutputTracker up (`RpcUtils.makeDriverRef`), which
/// opens the first connection to the driver.
pub fn log_create_executor_env(
    log: &ProcessLog,
    user: &str,
    app_id: &str,
    id: ExecutorId,
    driver: impl FnOnce() -> ConnectionTo,
) {
    log_security_manager(log, user);
    // Nothing is built for a line nobody keeps (100k executors in the scale bench).
    if log.enabled(CONNECTIONS, Level::Info) {
        log_connection_created(log, CONNECTIONS, &driver());
    }
    info!(
        log,
        "executor::DiskBlockManager",
        "Created local directory at {}",
        block_manager_dir(user, app_id, id)
    );
}

/// An executor's `TransportClientFactory` logger.
pub const CONNECTIONS: &str = "executor::TransportClientFactory";

/// A connection a process opens: where to (and the address the host resolves to), and how
/// long the connect takes.
pub struct ConnectionTo {
    pub address: RpcAddress,
    pub ip: String,
    pub connect_ms: u64,
}

/// Where a component's resource discovery logs: `ResourceDiscoveryScriptPlugin` (a line per
/// script that ran) and `ResourceUtils` (`logResourceInfo`), each under its process kind.
pub struct ResourceLoggers {
    pub plugin: &'static str,
    pub utils: &'static str,
    /// Its `spark.<component>.` prefix: `driver` or `executor`.
    pub component: &'static str,
}

pub const EXECUTOR_RESOURCES: ResourceLoggers = ResourceLoggers {
    plugin: "executor::ResourceDiscoveryScriptPlugin",
    utils: "executor::ResourceUtils",
    component: "executor",
};

pub const DRIVER_RESOURCES: ResourceLoggers = ResourceLoggers {
    plugin: "driver::ResourceDiscoveryScriptPlugin",
    utils: "driver::ResourceUtils",
    component: "driver",
};

/// The lines of `parseOrFindResources` / `getOrDiscoverAllResources`: each discovery script's,
/// then `ResourceUtils.logResourceInfo` between its rules: the resources `found`, or none
/// configured (`None`: the component asked for none).
pub fn log_resource_info(log: &ProcessLog, to: &ResourceLoggers, found: Option<&Discovered>) {
    for line in found.map_or(&[][..], |f| &f.script_lines) {
        info!(log, to.plugin, "{line}");
    }
    // Nothing is built for lines nobody keeps (100k executors in the scale bench).
    if !log.enabled(to.utils, Level::Info) {
        return;
    }
    let rule = "=".repeat(62);
    info!(log, to.utils, "{rule}");
    match found {
        Some(f) => info!(
            log,
            to.utils,
            "{}",
            custom_resources_line(to.component, &f.resources)
        ),
        None => info!(
            log,
            to.utils, "No custom resources configured for spark.{}.", to.component
        ),
    }
    info!(log, to.utils, "{rule}");
}

/// `Executor`'s constructor after `Starting executor ID ...`: the OS and JVM, the block
/// transfer service, the BlockManager's registration with the driver's master, the user class
/// path (`createClassLoader`), the session class loader, then `env.initializeShuffleManager()`
/// (Spark 4.0 makes an executor's ShuffleManager once the user's jars are loaded): the sort
/// shuffle manager's `IndexShuffleBlockResolver` builds a `SecurityManager` in its constructor
/// (the 4.0.0 jar's bytecode), so its ACL block comes last.
pub fn log_executor_started<'a>(
    log: &ProcessLog,
    id: ExecutorId,
    host: &str,
    user: &str,
    class_path: impl FnOnce() -> UserClassPath<'a>,
) {
    // Nothing is built for lines nobody keeps (100k executors in the scale bench).
    if !log.enabled("executor::Executor", Level::Info) {
        return;
    }
    info!(log, "executor::Executor", "OS info {OS_INFO}");
    info!(log, "executor::Executor", "Java version {JAVA_VERSION}");
    let bm = BlockManagerLines {
        targets: EXECUTOR_TARGETS,
        id: id.to_string(),
        host,
        port: block_manager_port(id),
    };
    bm.log_initialize(log, None);
    let cp = class_path();
    info!(
        log,
        "executor::Executor",
        "Starting executor with user classpath (userClassPathFirst = {}): '{}'",
        cp.user_class_path_first,
        cp.urls()
    );
    info!(
        log,
        "executor::Executor",
        "Created or updated repl class loader org.apache.spark.util.MutableURLClassLoader@{:x} for default.",
        fnv1a(format!("classloader-{id}").as_bytes()) & 0x7fff_ffff
    );
    log_security_manager(log, user);
}

/// The driver's `BlockManager.initialize` in `new SparkContext` (after the task scheduler
/// started): its master endpoint is in the same JVM, so its registration line comes between
/// `Registering` and `Registered`.
pub fn log_driver_block_manager(log: &ProcessLog, host: &str, port: u16, max_memory: &str) {
    let bm = BlockManagerLines {
        targets: DRIVER_TARGETS,
        id: "driver".into(),
        host,
        port,
    };
    let master = format!(
        "Registering block manager {host}:{port} with {max_memory} RAM, {}",
        bm.id_text()
    );
    bm.log_initialize(log, Some(&master));
}

/// The loggers of one JVM's block manager lines (`<process kind>::<Spark logger>`).
struct Targets {
    utils: &'static str,
    transfer: &'static str,
    block_manager: &'static str,
    master: &'static str,
    master_endpoint: &'static str,
}

const EXECUTOR_TARGETS: Targets = Targets {
    utils: "executor::Utils",
    transfer: "executor::NettyBlockTransferService",
    block_manager: "executor::BlockManager",
    master: "executor::BlockManagerMaster",
    master_endpoint: "executor::BlockManagerMasterEndpoint",
};

const DRIVER_TARGETS: Targets = Targets {
    utils: "driver::Utils",
    transfer: "driver::NettyBlockTransferService",
    block_manager: "driver::BlockManager",
    master: "driver::BlockManagerMaster",
    master_endpoint: "driver::BlockManagerMasterEndpoint",
};

/// `BlockManager.initialize`'s lines for one block manager.
struct BlockManagerLines<'a> {
    targets: Targets,
    id: String,
    host: &'a str,
    port: u16,
}

impl BlockManagerLines<'_> {
    fn id_text(&self) -> String {
        format!(
            "BlockManagerId({}, {}, {}, None)",
            self.id, self.host, self.port
        )
    }

    /// The transfer service, the replication policy, then the registration; `master_line` is
    /// the master endpoint's own line when it runs in this JVM (the driver).
    fn log_initialize(&self, log: &ProcessLog, master_line: Option<&str>) {
        let t = &self.targets;
        let (host, port) = (self.host, self.port);
        info!(
            log,
            t.utils,
            "Successfully started service 'org.apache.spark.network.netty.NettyBlockTransferService' on port {port}."
        );
        info!(log, t.transfer, "Server created on {host}:{port}");
        info!(
            log,
            t.block_manager,
            "Using org.apache.spark.storage.RandomBlockReplicationPolicy for block replication policy"
        );
        let bm = self.id_text();
        info!(log, t.master, "Registering BlockManager {bm}");
        if let Some(line) = master_line {
            info!(log, t.master_endpoint, "{line}");
        }
        info!(log, t.master, "Registered BlockManager {bm}");
        info!(log, t.block_manager, "Initialized BlockManager: {bm}");
    }
}

/// The executor's `DiskBlockManager` directory, `.../blockmgr-<uuid>` (where its shuffle files
/// live).
pub fn block_manager_dir(user: &str, app_id: &str, id: ExecutorId) -> String {
    format!(
        "{}/blockmgr-{}",
        app_cache_dir(user, app_id),
        uuid_for(app_id, id)
    )
}

fn uuid_for(app_id: &str, id: ExecutorId) -> String {
    uuid_from(&format!("{app_id}/{id}"))
}

/// A stable random-looking UUID for a directory name (Spark's `UUID.randomUUID`), derived from
/// `seed` (the application and the JVM) so runs stay byte-identical.
pub fn uuid_from(seed: &str) -> String {
    let a = fnv1a(format!("{seed}/a").as_bytes());
    let b = fnv1a(format!("{seed}/b").as_bytes());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | ((b >> 48) & 0x3fff),
        b & 0xffff_ffff_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Executor.createClassLoader's line in YARN: `YarnCoarseGrainedExecutorBackend.
    /// getUserClassPath` = `Client.getUserClasspathUrls(conf, useClusterPath = true)`
    /// (Client.scala getMainJarUri: a non-`local:` primary jar is `__app__.jar`; secondary jars
    /// are their link names; `Paths.get(..).toAbsolutePath.toUri.toURL` prints `file:/abs`).
    #[test]
    fn user_class_path_is_the_localized_app_jar_then_the_jars() {
        let dir = "/nm/usercache/u/appcache/application_1_0001/container_1_0001_01_000002";
        let cp = UserClassPath {
            primary_resource: "examples/jars/spark-examples.jar",
            dist_jars: Some("hdfs:///libs/a.jar,file:/tmp/b.jar#bee.jar,local:/opt/c.jar"),
            user_class_path_first: false,
            container_dir: dir.into(),
        };
        assert_eq!(
            cp.urls(),
            format!("file:{dir}/__app__.jar:file:{dir}/a.jar:file:{dir}/bee.jar:file:/opt/c.jar")
        );
        let local = UserClassPath {
            primary_resource: "local:/opt/app.jar",
            dist_jars: None,
            ..cp
        };
        assert_eq!(local.urls(), "file:/opt/app.jar");
    }

    /// TransportClientFactory's time: seeded (same inputs, same time), the first connection of
    /// a JVM slower than later ones, never past the cost model's budget, plus the round trip.
    #[test]
    fn connect_times_are_seeded_and_bounded_by_their_budget() {
        let first = connect_ms(7, "app/1", 0, 1200, 0);
        assert_eq!(first, connect_ms(7, "app/1", 0, 1200, 0));
        assert!((40..140).contains(&first), "{first}");
        let later = connect_ms(7, "app/1", 1, 600, 0);
        assert!((2..30).contains(&later), "{later}");
        let spread: std::collections::BTreeSet<u64> = (0..50)
            .map(|s| connect_ms(s, "app/1", 0, 1200, 0))
            .collect();
        assert!(spread.len() > 10, "seeded, not constant: {spread:?}");
        assert_eq!(connect_ms(7, "app/1", 0, 0, 0), 0, "no budget, no time");
        assert_eq!(connect_ms(7, "app/1", 0, 0, 4), 4, "the round trip stays");
    }

    /// `InetSocketAddress.toString`: `host/ip:port`, with the address given.
    #[test]
    fn a_connection_line_prints_host_slash_ip() {
        use crate::kernel::logs::LogStore;
        let store = std::rc::Rc::new(std::cell::RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("exec", store.clone());
        let to = ConnectionTo {
            address: RpcAddress {
                host: "nm-2.sparkyard.internal".into(),
                port: 51451,
            },
            ip: "10.0.1.2".into(),
            connect_ms: 87,
        };
        log_connection_created(&log, CONNECTIONS, &to);
        let out = store
            .borrow()
            .output("exec")
            .expect("logged")
            .stderr
            .clone();
        assert!(
            out.ends_with("INFO TransportClientFactory: Successfully created connection to nm-2.sparkyard.internal/10.0.1.2:51451 after 87 ms (0 ms spent in bootstraps)\n"),
            "{out}"
        );
    }

    /// `UUID.toString` shape (8-4-4-4-12, version 4, IETF variant), stable for the same input.
    #[test]
    fn directory_uuids_are_stable_version_4_uuids() {
        let u = uuid_for("application_1_0001", ExecutorId(3));
        assert_eq!(u, uuid_for("application_1_0001", ExecutorId(3)));
        assert_ne!(u, uuid_for("application_1_0001", ExecutorId(4)));
        let parts: Vec<usize> = u.split('-').map(str::len).collect();
        assert_eq!(parts, [8, 4, 4, 4, 12]);
        assert!(u.as_bytes()[14] == b'4', "{u}");
        assert!(matches!(u.as_bytes()[19], b'8' | b'9' | b'a' | b'b'), "{u}");
    }
}
