//! The cluster keys a what-if grid may vary (the cluster file's `[[nodes]]` in YARN's own
//! property names, and the number of NodeManagers): parsed once with the grid, applied to the
//! loaded cluster of each configuration before its start-up is calibrated. Mirrors what a YARN
//! operator changes in yarn-site.xml (`yarn.nodemanager.resource.memory-mb`,
//! `yarn.nodemanager.resource.cpu-vcores`) or by adding NodeManagers.

use crate::conf::cluster::ClusterConfig;
use sparkyard_actors::simulation::config::NodeSpec;

/// The number of NodeManagers.
pub const NODES: &str = "nodes";
/// Every NodeManager's memory for containers (yarn-site.xml, YARN's NodeManager).
pub const NODE_MEMORY_MB: &str = "yarn.nodemanager.resource.memory-mb";
/// Every NodeManager's vcores for containers.
pub const NODE_VCORES: &str = "yarn.nodemanager.resource.cpu-vcores";

/// Every cluster key, as a grid names it.
pub const KEYS: &[&str] = &[NODES, NODE_MEMORY_MB, NODE_VCORES];

/// At most this many NodeManagers (the cluster file's own limit).
const MAX_NODES: u64 = 1_000_000;

/// Whether `name` is a cluster key.
pub fn is_cluster_key(name: &str) -> bool {
    KEYS.contains(&name)
}

/// Checks one grid value of a cluster key: a whole number of at least 1 (at most
/// [`MAX_NODES`] for `nodes`).
pub fn check_value(key: &str, value: &str) -> Result<u64, String> {
    let n: u64 = value
        .parse()
        .map_err(|_| format!("{key} takes a whole number, got '{value}'"))?;
    if n == 0 {
        return Err(format!("{key} must be at least 1, got 0"));
    }
    if key == NODES && n > MAX_NODES {
        return Err(format!("{key} must be at most {MAX_NODES}, got {n}"));
    }
    Ok(n)
}

/// Applies `key = value` (checked by [`check_value`]) to `cluster`; the error says why
/// (the caller names the grid value).
pub fn apply(cluster: &mut ClusterConfig, key: &str, value: &str) -> Result<(), String> {
    let n = check_value(key, value)?;
    match key {
        NODES => resize(&mut cluster.nodes, n as usize),
        NODE_MEMORY_MB => {
            let min = cluster.yarn.minimum_allocation_mb;
            if n < min {
                return Err(format!(
                    "a NodeManager with less than yarn.scheduler.minimum-allocation-mb ({min}) can run no container"
                ));
            }
            cluster.nodes.iter_mut().for_each(|x| x.memory_mb = n);
            Ok(())
        }
        NODE_VCORES => {
            let min = cluster.yarn.minimum_allocation_vcores as u64;
            let vcores = u32::try_from(n).map_err(|_| format!("{n} vcores is too many"))?;
            if n < min {
                return Err(format!(
                    "a NodeManager with less than yarn.scheduler.minimum-allocation-vcores ({min}) can run no container"
                ));
            }
            cluster.nodes.iter_mut().for_each(|x| x.vcores = vcores);
            Ok(())
        }
        _ => Err("not a cluster key".into()),
    }
}

/// Keeps the first `n` NodeManagers, or adds NodeManagers like the last one (its rack and
/// resources) named `nm-K.sparkyard.internal`, K counting on from the cluster's size (names in
/// use skipped).
fn resize(nodes: &mut Vec<NodeSpec>, n: usize) -> Result<(), String> {
    if n <= nodes.len() {
        nodes.truncate(n);
        return Ok(());
    }
    let Some(last) = nodes.last().cloned() else {
        return Err("the cluster has no NodeManager to copy".into());
    };
    let mut used: std::collections::BTreeSet<String> =
        nodes.iter().map(|x| x.host.clone()).collect();
    let mut k = nodes.len() as u64;
    while nodes.len() < n {
        k += 1;
        let host = format!("nm-{k}.sparkyard.internal");
        if used.insert(host.clone()) {
            nodes.push(NodeSpec {
                host,
                ..last.clone()
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::cluster::{ClusterSource, load_cluster};

    #[test]
    fn nodes_are_cut_or_added_like_the_last_one() {
        let mut c = load_cluster(ClusterSource::Embedded).expect("embedded");
        assert_eq!(c.nodes.len(), 8);
        apply(&mut c, NODES, "3").expect("fewer");
        assert_eq!(c.nodes.len(), 3);
        apply(&mut c, NODES, "5").expect("more");
        let hosts: Vec<&str> = c.nodes.iter().map(|x| x.host.as_str()).collect();
        assert_eq!(
            hosts,
            [
                "nm-1.sparkyard.internal",
                "nm-2.sparkyard.internal",
                "nm-3.sparkyard.internal",
                "nm-4.sparkyard.internal",
                "nm-5.sparkyard.internal"
            ]
        );
        assert_eq!(c.nodes[4].rack, c.nodes[2].rack);
        apply(&mut c, NODE_MEMORY_MB, "4096").expect("memory");
        apply(&mut c, NODE_VCORES, "2").expect("vcores");
        assert!(c.nodes.iter().all(|x| x.memory_mb == 4096 && x.vcores == 2));
    }

    #[test]
    fn bad_cluster_values_are_usage_errors() {
        let mut c = load_cluster(ClusterSource::Embedded).expect("embedded");
        for (k, v) in [
            (NODES, "0"),
            (NODES, "two"),
            (NODES, "2000000"),
            (NODE_MEMORY_MB, "512"),
            (NODE_VCORES, "-1"),
        ] {
            let e = apply(&mut c, k, v).expect_err(v);
            assert!(e.contains(k) || e.contains("minimum-allocation"), "{e}");
        }
    }
}
