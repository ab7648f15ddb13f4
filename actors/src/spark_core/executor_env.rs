//! The lines an executor JVM logs while its SparkEnv, BlockManager and Executor start: mirrors
//! the start-up logging of `SparkEnv.createExecutorEnv` (`SecurityManager`, `DiskBlockManager`),
//! `ResourceUtils`, `Executor`'s constructor, `NettyBlockTransferService` and
//! `BlockManager.initialize`, in the order and wording of a real Spark 4.0.0 executor's stderr
//! (pyspark 4.0.0, `local-cluster[2,1,1024]`), with the YARN logger names.
//!
//! Not logged (sparkyard has no value for them): `TransportClientFactory: Successfully created
//! connection to <host>/<ip>:<port> after N ms` (the cluster has no IP addresses), the user
//! classpath line (the executor command carries no `--user-class-path`) and the first task's
//! TorrentBroadcast / MemoryStore lines (their sizes depend on the serialized task binary).

use crate::info;
use crate::kernel::logs::{Level, ProcessLog};
use crate::kernel::trace::fnv1a;
use sparkyard_messages::ids::ExecutorId;

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

/// A `SecurityManager`'s constructor: the ACL lines, as Spark 4.0 prints them with
/// authentication, UI ACLs and RPC SSL off (their defaults).
pub fn log_security_manager(log: &ProcessLog, user: &str) {
    if !log.enabled("executor::SecurityManager", Level::Info) {
        return;
    }
    for what in [
        "view acls",
        "modify acls",
        "view acls groups",
        "modify acls groups",
    ] {
        info!(
            log,
            "executor::SecurityManager", "Changing {what} to: {user}"
        );
    }
    info!(
        log,
        "executor::SecurityManager",
        "SecurityManager: authentication disabled; ui acls disabled; users with view permissions: {user} groups with view permissions: EMPTY; users with modify permissions: {user}; groups with modify permissions: EMPTY; RPC SSL disabled"
    );
}

/// `SparkEnv.createExecutorEnv`: its SecurityManager, then `DiskBlockManager` creating the
/// block manager's directory under the NodeManager's application cache (YARN's default
/// `yarn.nodemanager.local-dirs`, `${hadoop.tmp.dir}/nm-local-dir`, for an NM run as `yarn`).
pub fn log_create_executor_env(log: &ProcessLog, user: &str, app_id: &str, id: ExecutorId) {
    log_security_manager(log, user);
    info!(
        log,
        "executor::DiskBlockManager",
        "Created local directory at /tmp/hadoop-yarn/nm-local-dir/usercache/{user}/appcache/{app_id}/blockmgr-{}",
        uuid_for(app_id, id)
    );
}

/// `ResourceUtils.logResourceInfo` for an executor asking for no custom resources.
pub fn log_no_custom_resources(log: &ProcessLog) {
    if !log.enabled("executor::ResourceUtils", Level::Info) {
        return;
    }
    let rule = "=".repeat(62);
    info!(log, "executor::ResourceUtils", "{rule}");
    info!(
        log,
        "executor::ResourceUtils", "No custom resources configured for spark.executor."
    );
    info!(log, "executor::ResourceUtils", "{rule}");
}

/// `Executor`'s constructor after `Starting executor ID ...`: the OS and JVM, the block
/// transfer service, the BlockManager's registration with the driver's master, and the
/// session class loader.
pub fn log_executor_started(log: &ProcessLog, id: ExecutorId, host: &str) {
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
    info!(
        log,
        "executor::Executor",
        "Created or updated repl class loader org.apache.spark.util.MutableURLClassLoader@{:x} for default.",
        fnv1a(format!("classloader-{id}").as_bytes()) & 0x7fff_ffff
    );
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

/// A stable random-looking UUID for a directory name (Spark's `UUID.randomUUID`), derived from
/// the application and the executor so runs stay byte-identical.
fn uuid_for(app_id: &str, id: ExecutorId) -> String {
    let a = fnv1a(format!("{app_id}/{id}/a").as_bytes());
    let b = fnv1a(format!("{app_id}/{id}/b").as_bytes());
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
