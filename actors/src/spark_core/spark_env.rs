//! The driver's start-up lines in `new SparkContext(conf)` before its task scheduler, as Spark
//! 4.0.0 prints them in a YARN cluster-mode ApplicationMaster: `ResourceUtils.logResourceInfo`,
//! the default `ResourceProfile` (`ResourceProfile.getOrCreateDefaultProfile`,
//! `calculateTasksAndLimitingResource`) and `ResourceProfileManager`, then
//! `SparkEnv.createDriverEnv` (its SecurityManager, the `sparkDriver` RpcEnv, the endpoints it
//! registers, `DiskBlockManager`) and the SparkUI's Jetty, whose port the stop line names again.

use crate::kernel::logs::ProcessLog;
use crate::kernel::trace::fnv1a;
use crate::spark_core::executor_env;
use crate::spark_core::resource_profile::{self, CustomResources, Limits};
use crate::world::addresses::app_cache_dir;
use crate::world::config::SparkSettings;
use crate::{info, warn};
use sparkyard_messages::jvm_text::{double_to_string, java_concurrent_map_order, scala_map_order};
use sparkyard_messages::listener::DefaultExecutorRequests;

const RESOURCE_PROFILE: &str = "driver::ResourceProfile";
const SPARK_ENV: &str = "driver::SparkEnv";
const UTILS: &str = "driver::Utils";

/// `ResourceProfile.getDefaultExecutorResources`' built-in requests: cores and memory,
/// memoryOverhead and pyspark.memory only when their keys are set, offHeap (0 MiB when
/// disabled). The driver's line and the event log's `SparkListenerResourceProfileAdded` list them.
pub fn default_executor_requests(s: &SparkSettings) -> DefaultExecutorRequests {
    let set = |key: &str| s.properties.contains_key(key);
    DefaultExecutorRequests {
        cores: s.executor_cores,
        memory_mb: s.executor_memory_mb,
        memory_overhead_mb: set("spark.executor.memoryOverhead")
            .then_some(s.executor_memory_overhead_mb),
        pyspark_memory_mb: set("spark.executor.pyspark.memory")
            .then_some(s.executor_pyspark_memory_mb),
        offheap_mb: s.executor_offheap_mb,
    }
}

/// What the default `ResourceProfile` asks of an executor and a task.
#[derive(Clone, Debug, PartialEq)]
pub struct DefaultProfile {
    /// The built-in executor requests ([`default_executor_requests`]).
    pub executor: DefaultExecutorRequests,
    pub task_cpus: u32,
    /// `spark.executor.resource.*` and `spark.task.resource.*` (GPUs, FPGAs).
    pub custom: CustomResources,
}

impl DefaultProfile {
    /// The profile `getOrCreateDefaultProfile` makes, or the exception reading the custom
    /// resources' keys throws before its line.
    pub fn of(s: &SparkSettings) -> Result<DefaultProfile, String> {
        Ok(DefaultProfile {
            executor: default_executor_requests(s),
            task_cpus: s.task_cpus,
            custom: CustomResources::of(&s.properties)?,
        })
    }

    /// `ResourceProfile.getOrCreateDefaultProfile`'s line. Each side is a request map
    /// (`ExecutorResourceRequests` / `TaskResourceRequests`) kept in a `ConcurrentHashMap`, put
    /// in `getDefaultExecutorResources`' order (cores, memory, memoryOverhead and
    /// pyspark.memory when set, offHeap, then the custom resources) and turned into a Scala
    /// `Map`: up to 4 entries it keeps the hash map's order; beyond, it is a `HashMap`, printed
    /// as one, in its own order. On YARN `cores` is always there (`getDefaultExecutorResources`
    /// reads it with its default unless the master is standalone or `local-cluster`).
    pub fn created_line(&self) -> String {
        format!(
            "Default ResourceProfile created, executor resources: {}, task resources: {}",
            request_map(self.executor_entries()),
            request_map(self.task_entries())
        )
    }

    /// The executor's requests as `getDefaultExecutorResources` puts them, each with its text.
    fn executor_entries(&self) -> Vec<(&str, String)> {
        let mut entries: Vec<(&str, String)> = Vec::new();
        let builtin = |name, amount: u64| (name, format!("{amount}, script: , vendor: "));
        let e = &self.executor;
        entries.push(builtin("cores", u64::from(e.cores)));
        entries.push(builtin("memory", e.memory_mb));
        if let Some(mb) = e.memory_overhead_mb {
            entries.push(builtin("memoryOverhead", mb));
        }
        if let Some(mb) = e.pyspark_memory_mb {
            entries.push(builtin("pyspark.memory", mb));
        }
        entries.push(builtin("offHeap", e.offheap_mb));
        for r in &self.custom.executor {
            let text = format!(
                "{}, script: {}, vendor: {}",
                r.amount, r.discovery_script, r.vendor
            );
            entries.push((r.name.as_str(), text));
        }
        entries
    }

    /// The task's requests as `getDefaultTaskResources` puts them, each with its amount.
    fn task_entries(&self) -> Vec<(&str, String)> {
        let mut task: Vec<(&str, String)> =
            vec![("cpus", double_to_string(f64::from(self.task_cpus)))];
        for r in &self.custom.task {
            task.push((r.name.as_str(), double_to_string(r.amount)));
        }
        task
    }

    /// `calculateTasksAndLimitingResource` for this profile (the cores check passed). It walks
    /// the custom resources in their maps' order (`getCustomExecutorResources`,
    /// `getCustomTaskResources`): of two resources allowing as few tasks, the first limits.
    pub fn limits(&self) -> Result<Limits, String> {
        let position = |entries: Vec<(&str, String)>, name: &str| {
            scala_map_order(java_concurrent_map_order(entries))
                .iter()
                .position(|(n, _)| *n == name)
        };
        let mut custom = self.custom.clone();
        custom
            .executor
            .sort_by_key(|r| position(self.executor_entries(), &r.name));
        custom
            .task
            .sort_by_key(|r| position(self.task_entries(), &r.name));
        resource_profile::calculate(self.executor.cores, self.task_cpus, &custom)
    }
}

/// A request map's `toString`: `name -> name: <name>, amount: <text>` in the map's order.
fn request_map(entries: Vec<(&str, String)>) -> String {
    let class = if entries.len() > 4 { "HashMap" } else { "Map" };
    let shown: Vec<String> = scala_map_order(java_concurrent_map_order(entries))
        .into_iter()
        .map(|(name, amount)| format!("{name} -> name: {name}, amount: {amount}"))
        .collect();
    format!("{class}({})", shown.join(", "))
}

/// From `ResourceUtils.logResourceInfo` to the default profile's line: what comes before
/// `calculateTasksAndLimitingResource` can refuse `spark.task.cpus`. Reading the custom
/// resources' keys can throw first.
pub fn log_resources(log: &ProcessLog, s: &SparkSettings) -> Result<DefaultProfile, String> {
    let profile = DefaultProfile::of(s)?;
    info!(log, RESOURCE_PROFILE, "{}", profile.created_line());
    Ok(profile)
}

/// The rest of `calculateTasksAndLimitingResource` (its warnings, the limit, or the exception
/// a custom resource makes it throw) and `ResourceProfileManager`'s registration of the profile.
pub fn log_profile_added(log: &ProcessLog, profile: &DefaultProfile) -> Result<Limits, String> {
    let limits = profile.limits()?;
    for w in &limits.early_warnings {
        warn!(log, RESOURCE_PROFILE, "{w}");
    }
    info!(log, RESOURCE_PROFILE, "{}", limits.limiting_line());
    for w in &limits.wasted_warnings {
        warn!(log, "driver::ResourceUtils", "{w}");
    }
    info!(
        log,
        "driver::ResourceProfileManager", "Added ResourceProfile id: 0"
    );
    Ok(limits)
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
    use std::collections::BTreeMap;

    /// A real pyspark 4.0.0 driver (`spark-submit --master local-cluster[1,1,1024]` with these
    /// `--conf`s, 2026-12-05): `spark.executor.cores` set explicitly, so `cores` is in the
    /// profile on that master as on YARN (ResourceProfile.getDefaultExecutorResources).
    #[test]
    fn default_profile_lines_as_a_real_driver_printed_them() {
        // --conf spark.executor.cores=1 --conf spark.executor.memoryOverhead=512
        let four = DefaultProfile {
            executor: DefaultExecutorRequests {
                cores: 1,
                memory_mb: 1024,
                memory_overhead_mb: Some(512),
                pyspark_memory_mb: None,
                offheap_mb: 0,
            },
            task_cpus: 1,
            custom: CustomResources::default(),
        };
        assert_eq!(
            four.created_line(),
            "Default ResourceProfile created, executor resources: Map(memoryOverhead -> name: memoryOverhead, amount: 512, script: , vendor: , cores -> name: cores, amount: 1, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 1.0)"
        );
        // ... and --conf spark.executor.pyspark.memory=300m: five entries, a HashMap.
        let five = DefaultProfile {
            executor: DefaultExecutorRequests {
                pyspark_memory_mb: Some(300),
                ..four.executor
            },
            ..four.clone()
        };
        assert_eq!(
            five.created_line(),
            "Default ResourceProfile created, executor resources: HashMap(cores -> name: cores, amount: 1, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: , memoryOverhead -> name: memoryOverhead, amount: 512, script: , vendor: , pyspark.memory -> name: pyspark.memory, amount: 300, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 1.0)"
        );
        assert_eq!(
            five.limits().unwrap().limiting_line(),
            "Limiting resource is cpus at 1 tasks per executor"
        );
        // --conf spark.executor.cores=2 --conf spark.task.cpus=2 --conf spark.executor.memory=2g
        let two = DefaultProfile {
            executor: DefaultExecutorRequests {
                cores: 2,
                memory_mb: 2048,
                memory_overhead_mb: None,
                pyspark_memory_mb: None,
                offheap_mb: 0,
            },
            task_cpus: 2,
            custom: CustomResources::default(),
        };
        assert_eq!(
            two.created_line(),
            "Default ResourceProfile created, executor resources: Map(cores -> name: cores, amount: 2, script: , vendor: , memory -> name: memory, amount: 2048, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: ), task resources: Map(cpus -> name: cpus, amount: 2.0)"
        );
        assert_eq!(
            two.limits().unwrap().limiting_line(),
            "Limiting resource is cpus at 1 tasks per executor"
        );
    }

    /// The same driver with `--conf spark.executor.cores=4 --conf
    /// spark.executor.resource.gpu.amount=1 --conf
    /// spark.executor.resource.gpu.discoveryScript=/tmp/sparkgpu-real/gpu.sh --conf
    /// spark.task.resource.gpu.amount=0.5` (2026-12-06): the GPU last of four executor
    /// resources, after `cpus` in the task's.
    #[test]
    fn default_profile_line_with_a_gpu_as_a_real_driver_printed_it() {
        let props: BTreeMap<String, String> = [
            ("spark.executor.resource.gpu.amount", "1"),
            (
                "spark.executor.resource.gpu.discoveryScript",
                "/tmp/sparkgpu-real/gpu.sh",
            ),
            ("spark.task.resource.gpu.amount", "0.5"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let gpu = DefaultProfile {
            executor: DefaultExecutorRequests {
                cores: 4,
                memory_mb: 1024,
                memory_overhead_mb: None,
                pyspark_memory_mb: None,
                offheap_mb: 0,
            },
            task_cpus: 1,
            custom: CustomResources::of(&props).unwrap(),
        };
        assert_eq!(
            gpu.created_line(),
            "Default ResourceProfile created, executor resources: Map(cores -> name: cores, amount: 4, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: , offHeap -> name: offHeap, amount: 0, script: , vendor: , gpu -> name: gpu, amount: 1, script: /tmp/sparkgpu-real/gpu.sh, vendor: ), task resources: Map(cpus -> name: cpus, amount: 1.0, gpu -> name: gpu, amount: 0.5)"
        );
        assert_eq!(
            gpu.limits().unwrap().limiting_line(),
            "Limiting resource is gpu at 2 tasks per executor"
        );
    }

    /// The same driver with six executor resources (`--conf spark.executor.cores=4 --conf
    /// spark.executor.memoryOverhead=512`, 2 GPUs, 1 FPGA of vendor `xilinx`, a GPU and a
    /// quarter FPGA a task; 2026-12-06): a `HashMap` of executor resources, the FPGA first of the
    /// task's, and both wasted-resource warnings in that order.
    #[test]
    fn six_executor_resources_print_as_a_real_driver_printed_them() {
        let script = "/tmp/sparkgpu-real/gpu.sh";
        let props: BTreeMap<String, String> = [
            ("spark.executor.resource.gpu.amount", "2"),
            ("spark.executor.resource.gpu.discoveryScript", script),
            ("spark.executor.resource.fpga.amount", "1"),
            ("spark.executor.resource.fpga.discoveryScript", script),
            ("spark.executor.resource.fpga.vendor", "xilinx"),
            ("spark.task.resource.gpu.amount", "1"),
            ("spark.task.resource.fpga.amount", "0.25"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let p = DefaultProfile {
            executor: DefaultExecutorRequests {
                cores: 4,
                memory_mb: 1024,
                memory_overhead_mb: Some(512),
                pyspark_memory_mb: None,
                offheap_mb: 0,
            },
            task_cpus: 1,
            custom: CustomResources::of(&props).unwrap(),
        };
        assert_eq!(
            p.created_line(),
            "Default ResourceProfile created, executor resources: HashMap(gpu -> name: gpu, amount: 2, script: /tmp/sparkgpu-real/gpu.sh, vendor: , cores -> name: cores, amount: 4, script: , vendor: , fpga -> name: fpga, amount: 1, script: /tmp/sparkgpu-real/gpu.sh, vendor: xilinx, offHeap -> name: offHeap, amount: 0, script: , vendor: , memoryOverhead -> name: memoryOverhead, amount: 512, script: , vendor: , memory -> name: memory, amount: 1024, script: , vendor: ), task resources: Map(fpga -> name: fpga, amount: 0.25, cpus -> name: cpus, amount: 1.0, gpu -> name: gpu, amount: 1.0)"
        );
        let limits = p.limits().unwrap();
        assert_eq!(
            limits.limiting_line(),
            "Limiting resource is gpu at 2 tasks per executor"
        );
        assert_eq!(
            limits.wasted_warnings,
            [
                "The configuration of cores (exec = 4 task = 1, runnable tasks = 4) will result in wasted resources due to resource gpu limiting the number of runnable tasks per executor to: 2. Please adjust your configuration.",
                "The configuration of resource: fpga (exec = 1, task = 0.25/4, runnable tasks = 4) will result in wasted resources due to resource gpu limiting the number of runnable tasks per executor to: 2. Please adjust your configuration."
            ]
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
