//! The driver's start-up lines in `new SparkContext(conf)` before its task scheduler, as Spark
//! 4.0.0 prints them in a YARN cluster-mode ApplicationMaster: `ResourceUtils.logResourceInfo`,
//! the default `ResourceProfile` (`ResourceProfile.getOrCreateDefaultProfile`,
//! `calculateTasksAndLimitingResource`) and `ResourceProfileManager`, then
//! `SparkEnv.createDriverEnv` (its SecurityManager, the `sparkDriver` RpcEnv, the endpoints it
//! registers, `DiskBlockManager`) and the SparkUI's Jetty, whose port the stop line names again.

use crate::info;
use crate::kernel::logs::ProcessLog;
use crate::kernel::trace::fnv1a;
use crate::spark_core::executor_env;
use crate::world::addresses::app_cache_dir;
use crate::world::config::SparkSettings;
use sparkyard_messages::jvm_text::{double_to_string, scala_map_order};

const RESOURCE_PROFILE: &str = "driver::ResourceProfile";
const SPARK_ENV: &str = "driver::SparkEnv";
const UTILS: &str = "driver::Utils";

/// What the default `ResourceProfile` asks of an executor and a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultProfile {
    pub cores: u32,
    pub memory_mb: u64,
    /// `spark.executor.memoryOverhead`, when set.
    pub overhead_mb: Option<u64>,
    /// `spark.executor.pyspark.memory`, when set.
    pub pyspark_mb: Option<u64>,
    /// Off-heap memory (0 MiB when disabled).
    pub offheap_mb: u64,
    pub task_cpus: u32,
}

impl DefaultProfile {
    pub fn of(s: &SparkSettings) -> DefaultProfile {
        let set = |key: &str| s.properties.contains_key(key);
        DefaultProfile {
            cores: s.executor_cores,
            memory_mb: s.executor_memory_mb,
            overhead_mb: set("spark.executor.memoryOverhead")
                .then_some(s.executor_memory_overhead_mb),
            pyspark_mb: set("spark.executor.pyspark.memory")
                .then_some(s.executor_pyspark_memory_mb),
            offheap_mb: s.executor_offheap_mb,
            task_cpus: s.task_cpus,
        }
    }

    /// `ResourceProfile.getOrCreateDefaultProfile`'s line. The executor resources are
    /// `ExecutorResourceRequests.requests`, a `ConcurrentHashMap` turned into a Scala `Map`: for
    /// the keys Spark puts there, bins 2 (`memoryOverhead`), 3 (`cores`, then `memory`), 5
    /// (`pyspark.memory`) and 10 (`offHeap`) of its 16-bin table; beyond 4 entries the Scala
    /// map is a `HashMap`, printed as one, in its own order. On YARN `cores` is always there
    /// (`getDefaultExecutorResources` reads it with its default unless the master is standalone
    /// or `local-cluster`), `memoryOverhead` and `pyspark.memory` only when set, `offHeap` always.
    pub fn created_line(&self) -> String {
        let mut entries: Vec<(&str, u64)> = Vec::new();
        if let Some(mb) = self.overhead_mb {
            entries.push(("memoryOverhead", mb));
        }
        entries.push(("cores", u64::from(self.cores)));
        entries.push(("memory", self.memory_mb));
        if let Some(mb) = self.pyspark_mb {
            entries.push(("pyspark.memory", mb));
        }
        entries.push(("offHeap", self.offheap_mb));
        let class = if entries.len() > 4 { "HashMap" } else { "Map" };
        let executor: Vec<String> = scala_map_order(entries)
            .into_iter()
            .map(|(name, amount)| {
                format!("{name} -> name: {name}, amount: {amount}, script: , vendor: ")
            })
            .collect();
        format!(
            "Default ResourceProfile created, executor resources: {class}({}), task resources: Map(cpus -> name: cpus, amount: {})",
            executor.join(", "),
            double_to_string(f64::from(self.task_cpus))
        )
    }

    /// `calculateTasksAndLimitingResource`'s line: on YARN the executor's cores are known
    /// (`shouldCheckExecutorCores`), so CPUs limit the tasks an executor runs at once.
    pub fn limiting_line(&self) -> String {
        let tasks = self.cores / self.task_cpus.max(1);
        format!("Limiting resource is cpus at {tasks} tasks per executor")
    }
}

/// From `ResourceUtils.logResourceInfo` to the default profile's line: what comes before
/// `calculateTasksAndLimitingResource` can refuse `spark.task.cpus`.
pub fn log_resources(log: &ProcessLog, s: &SparkSettings) {
    info!(
        log,
        RESOURCE_PROFILE,
        "{}",
        DefaultProfile::of(s).created_line()
    );
}

/// The profile's limit and `ResourceProfileManager`'s registration of it.
pub fn log_profile_added(log: &ProcessLog, s: &SparkSettings) {
    info!(
        log,
        RESOURCE_PROFILE,
        "{}",
        DefaultProfile::of(s).limiting_line()
    );
    info!(
        log,
        "driver::ResourceProfileManager", "Added ResourceProfile id: 0"
    );
}

/// `SparkEnv.createDriverEnv` up to the MapOutputTracker's endpoint: the SecurityManager and
/// the `sparkDriver` RpcEnv on the driver's port. The UnifiedMemoryManager, made next, can
/// refuse the driver's memory.
pub fn log_driver_env_start(log: &ProcessLog, user: &str, driver_port: u16) {
    executor_env::log_security_manager_of(log, "driver::SecurityManager", user);
    info!(
        log,
        UTILS, "Successfully started service 'sparkDriver' on port {driver_port}."
    );
    info!(log, SPARK_ENV, "Registering MapOutputTracker");
}

/// The SparkUI's port: the one asked for (`spark.ui.port` as a system property: the user's, or
/// the `0` the cluster-mode ApplicationMaster sets when the user set none, ApplicationMaster.run)
/// and the one Jetty bound (an ephemeral port for `0`: derived from the application attempt,
/// not drawn from the run's random stream, so the UI changes no other draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UiPort {
    pub requested: u16,
    pub bound: u16,
}

impl UiPort {
    pub fn new(user_port: Option<&str>, app_id: &str, attempt: u32, driver_port: u16) -> UiPort {
        let requested = user_port
            .and_then(|v| v.trim().parse::<u16>().ok())
            .unwrap_or(0);
        if requested != 0 {
            return UiPort {
                requested,
                bound: requested,
            };
        }
        let mut h = fnv1a(format!("{app_id}/{attempt}/SparkUI").as_bytes());
        let bound = loop {
            let port = 30000 + (h % 30000) as u16;
            // Not the driver's RPC port nor its block manager's.
            let block_manager = executor_env::driver_block_manager_port(driver_port);
            if port != driver_port && port != block_manager {
                break port;
            }
            h = h.wrapping_add(1);
        };
        UiPort { requested, bound }
    }
}

/// The rest of `SparkEnv.createDriverEnv` (the BlockManagerMaster's endpoints, the block
/// manager's directory in the AM container's application cache, the OutputCommitCoordinator),
/// then the SparkUI's Jetty.
pub fn log_driver_env_end(log: &ProcessLog, user: &str, app_id: &str, attempt: u32, ui: UiPort) {
    info!(log, SPARK_ENV, "Registering BlockManagerMaster");
    let master = "driver::BlockManagerMasterEndpoint";
    info!(
        log,
        master,
        "Using org.apache.spark.storage.DefaultTopologyMapper for getting topology information"
    );
    info!(log, master, "BlockManagerMasterEndpoint up");
    info!(log, SPARK_ENV, "Registering BlockManagerMasterHeartbeat");
    info!(
        log,
        "driver::DiskBlockManager",
        "Created local directory at {}/blockmgr-{}",
        app_cache_dir(user, app_id),
        executor_env::uuid_from(&format!("{app_id}/driver/{attempt}"))
    );
    info!(log, SPARK_ENV, "Registering OutputCommitCoordinator");
    info!(
        log,
        "driver::JettyUtils", "Start Jetty 0.0.0.0:{} for SparkUI", ui.requested
    );
    info!(
        log,
        UTILS, "Successfully started service 'SparkUI' on port {}.", ui.bound
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real pyspark 4.0.0 driver (`spark-submit --master local-cluster[1,1,1024]` with these
    /// `--conf`s, 2026-12-05): `spark.executor.cores` set explicitly, so `cores` is in the
    /// profile on that master as on YARN (ResourceProfile.getDefaultExecutorResources).
    #[test]
    fn default_profile_lines_as_a_real_driver_printed_them() {
        // --conf spark.executor.cores=1 --conf spark.executor.memoryOverhead=512
        let four = DefaultProfile {
            cores: 1,
            memory_mb: 1024,
            overhead_mb: Some(512),
            pyspark_mb: None,
            offheap_mb: 0,
            task_cpus: 1,
        };
        assert_eq!(
            four.created_line(),
            "Default ResourceProfile created, executor resources: Map(memoryOverhead -> name: memoryOverhead, amount: 512, script: , vendor: , cores -> name: cores, amount: 1, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 1.0)"
        );
        // ... and --conf spark.executor.pyspark.memory=300m: five entries, a HashMap.
        let five = DefaultProfile {
            pyspark_mb: Some(300),
            ..four
        };
        assert_eq!(
            five.created_line(),
            "Default ResourceProfile created, executor resources: HashMap(cores -> name: cores, amount: 1, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: , memoryOverhead -> name: memoryOverhead, amount: 512, script: , vendor: , pyspark.memory -> name: pyspark.memory, amount: 300, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 1.0)"
        );
        assert_eq!(
            five.limiting_line(),
            "Limiting resource is cpus at 1 tasks per executor"
        );
        // --conf spark.executor.cores=2 --conf spark.task.cpus=2 --conf spark.executor.memory=2g
        let two = DefaultProfile {
            cores: 2,
            memory_mb: 2048,
            overhead_mb: None,
            pyspark_mb: None,
            offheap_mb: 0,
            task_cpus: 2,
        };
        assert_eq!(
            two.created_line(),
            "Default ResourceProfile created, executor resources: Map(cores -> name: cores, amount: 2, script: , vendor: , memory -> name: memory, amount: 2048, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 2.0)"
        );
        assert_eq!(
            two.limiting_line(),
            "Limiting resource is cpus at 1 tasks per executor"
        );
    }

    /// ApplicationMaster.run (4.0.0 jar): `spark.ui.port` becomes 0 unless set, so the UI binds
    /// an ephemeral port; a port the user set is kept.
    #[test]
    fn the_ui_binds_an_ephemeral_port_unless_one_is_set() {
        let plain = UiPort::new(None, "application_1_0001", 1, 40000);
        assert_eq!(plain.requested, 0);
        assert!((30000..60000).contains(&plain.bound));
        assert_ne!(plain, UiPort::new(None, "application_1_0001", 2, 40000));
        let set = UiPort::new(Some("4050"), "a", 1, 40000);
        assert_eq!((set.requested, set.bound), (4050, 4050));
    }
}
