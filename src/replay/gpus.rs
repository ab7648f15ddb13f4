//! How many GPUs the recording's NodeManagers had, as far as its log shows: a replay's cluster
//! needs GPUs on its nodes for executors that ask for `spark.executor.resource.gpu.amount` (YARN's
//! `yarn.io/gpu`, Hadoop's `GpuResourceAllocator` on each NodeManager). The log does not record a
//! node's GPU count (the GPU plugin detects it, `yarn.nodemanager.resource-plugins.gpu
//! .allowed-gpu-devices = auto`); it records each executor's host, its GPU addresses
//! (`SparkListenerExecutorAdded`'s `Resources`) and when it came and went. A host had at least as
//! many GPUs as its executors held at once, so that peak is the count taken.
//!
//! Only where the recording's YARN scheduled GPUs (its Hadoop properties' `yarn.resource-types`
//! names `yarn.io/gpu`): there each container held its GPUs and a node had no more than it
//! registered. A YARN without the type asked for none (Spark's `ResourceRequestHelper` warned)
//! and its executors' scripts found whatever their nodes had, unisolated: the replay leaves
//! such GPUs out and says so.

use super::model::{Application, ExecutorSpan};
use crate::conf::cluster::ClusterConfig;
use std::collections::BTreeMap;

pub use sparkyard_actors::simulation::facts::GPU;
use sparkyard_actors::simulation::facts::{GPU_URI, resource_type_names};

/// `yarn.resource-types`.
const RESOURCE_TYPES: &str = "yarn.resource-types";
/// The GPU type's largest allocation, as the log's Hadoop properties may record it.
pub const GPU_MAXIMUM: &str = "yarn.resource-types.yarn.io/gpu.maximum-allocation";
/// The Spark keys of the executors' GPUs that a replay passes on where YARN scheduled them.
pub const GPU_KEYS: &[&str] = &["spark.executor.resource.", "spark.task.resource."];

/// The GPUs a replay's cluster gets from its log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuNodes {
    /// Each node's `yarn.io/gpu`: the most the log's executors held at once on one host.
    pub per_node: u32,
    /// The type's maximum allocation where the log records it.
    pub maximum_allocation: Option<u64>,
}

/// Whether the recording's YARN scheduled GPUs: `yarn.resource-types` names `yarn.io/gpu`.
pub fn yarn_scheduled_gpus(app: &Application) -> bool {
    app.config
        .hadoop_yarn
        .get(RESOURCE_TYPES)
        .is_some_and(|t| resource_type_names(t).any(|t| t == GPU_URI))
}

/// `spark.executor.resource.gpu.amount` of the log's properties (0 when absent or malformed).
fn executor_amount(app: &Application) -> u32 {
    app.config
        .properties
        .get("spark.executor.resource.gpu.amount")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The nodes' GPUs for a replay of `app` on a cluster sized from its log: none unless its
/// YARN scheduled GPUs and its executors asked for some.
pub fn from_log(app: &Application) -> Option<GpuNodes> {
    let amount = executor_amount(app);
    if amount == 0 || !yarn_scheduled_gpus(app) {
        return None;
    }
    let peak = host_peaks(&app.executors, app.end_ms, amount)
        .into_values()
        .max()
        .unwrap_or(0);
    let maximum_allocation = app
        .config
        .hadoop_yarn
        .get(GPU_MAXIMUM)
        .and_then(|v| v.trim().parse().ok());
    Some(GpuNodes {
        per_node: peak.max(amount),
        maximum_allocation,
    })
}

/// Gives `cluster` the GPU resource type and every node `g.per_node` GPUs.
pub fn size_cluster(cluster: &mut ClusterConfig, g: &GpuNodes) {
    cluster.yarn.gpu_resource_type = true;
    if let Some(max) = g.maximum_allocation {
        cluster.yarn.gpu_maximum_allocation = max;
    }
    for node in &mut cluster.nodes {
        node.gpus = g.per_node;
    }
}

/// The GPUs one recorded executor held: the addresses it found, else its profile's amount.
fn held(e: &ExecutorSpan, amount: u32) -> u32 {
    e.resources.get(GPU).copied().unwrap_or(amount)
}

/// Per recorded host, the most GPUs its executors held at once (an executor holds its GPUs from
/// its `ExecutorAdded` to its `ExecutorRemoved`, or the application's end, `end_ms`). `amount`
/// is the default profile's `spark.executor.resource.gpu.amount`, for executors whose event
/// names no addresses. Hosts whose executors held none are left out.
pub fn host_peaks(executors: &[ExecutorSpan], end_ms: u64, amount: u32) -> BTreeMap<String, u32> {
    let mut edges: BTreeMap<&str, Vec<(u64, i64)>> = BTreeMap::new();
    for e in executors.iter().filter(|e| !e.is_driver()) {
        let n = held(e, amount);
        if n == 0 {
            continue;
        }
        let end = e.removed_ms.unwrap_or(end_ms).max(e.added_ms);
        let host = edges.entry(e.host.as_str()).or_default();
        host.push((e.added_ms, i64::from(n)));
        host.push((end, -i64::from(n)));
    }
    edges
        .into_iter()
        .map(|(host, mut changes)| {
            // A removal and an addition at the same instant: the removal first (the GPU is
            // free again), so a hand-over does not count twice.
            changes.sort_unstable();
            let (mut now, mut peak) = (0i64, 0i64);
            for (_, d) in changes {
                now += d;
                peak = peak.max(now);
            }
            (host.to_string(), u32::try_from(peak).unwrap_or(0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exec(id: &str, host: &str, added: u64, removed: Option<u64>, gpus: u32) -> ExecutorSpan {
        ExecutorSpan {
            executor_id: id.into(),
            host: host.into(),
            cores: 4,
            added_ms: added,
            removed_ms: removed,
            removed_reason: None,
            resources: [(GPU.to_string(), gpus)].into_iter().collect(),
            resource_profile_id: 0,
        }
    }

    #[test]
    fn a_hosts_peak_is_the_most_gpus_its_executors_held_at_once() {
        let a = vec![
            exec("1", "a", 0, Some(100), 1),
            exec("2", "a", 50, Some(300), 1),
            exec("3", "a", 200, None, 1),
            exec("4", "b", 10, Some(20), 2),
        ];
        let peaks = host_peaks(&a, 1_000, 1);
        assert_eq!(peaks.get("a"), Some(&2));
        assert_eq!(peaks.get("b"), Some(&2));
    }

    #[test]
    fn an_executor_removed_as_another_is_added_hands_its_gpu_over() {
        let a = vec![
            exec("1", "a", 0, Some(100), 1),
            exec("2", "a", 100, None, 1),
        ];
        assert_eq!(host_peaks(&a, 1_000, 1).get("a"), Some(&1));
    }

    #[test]
    fn an_executor_without_addresses_holds_the_profiles_amount_and_none_leaves_its_host_out() {
        let mut e = exec("1", "a", 0, None, 0);
        e.resources.clear();
        let a = vec![e, exec("2", "b", 0, None, 0)];
        assert_eq!(host_peaks(&a, 1_000, 2).get("a"), Some(&2));
        assert_eq!(host_peaks(&a, 1_000, 2).get("b"), None);
    }
}
