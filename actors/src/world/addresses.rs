//! Where the cluster's daemons listen: YARN's well-known ports, the names the Dispatcher knows
//! the daemons' processes by, the NodeManagers' local directory, and the hosts' IPv4 addresses
//! (`HostAddresses`, the network's name service, as the JVM's `InetAddress` resolves them).
//! Shared by the daemons, the roles that look them up and the fault injector, so none of them
//! imports another's constants.

/// A NodeManager's process name in the simulation.
pub fn nm_process_name(host: &str) -> String {
    format!("nm:{host}")
}

/// The host spark-submit (and the user's YARN CLI) runs on: the gateway outside the cluster.
pub const CLIENT_HOST: &str = "spark-submit";

/// The ResourceManager's process name in the simulation.
pub const RM_PROCESS: &str = "rm";

/// The well-known RM ports (`yarn.resourcemanager.address`, `.webapp.address`).
pub const RM_PORT: u16 = 8032;
pub const RM_WEB_PORT: u16 = 8088;
/// The NM's container-manager port (`yarn.nodemanager.address`).
pub const NM_PORT: u16 = 8041;
/// The NodeManager's web port (log URLs).
pub const NM_WEB_PORT: u16 = 8042;

/// `yarn.nodemanager.local-dirs`' default for an NM run as `yarn`
/// (`${hadoop.tmp.dir}/nm-local-dir`).
pub const NM_LOCAL_DIR: &str = "/tmp/hadoop-yarn/nm-local-dir";

/// An application's directory in a user's cache: its containers' working directories and its
/// executors' block manager directories are inside it.
pub fn app_cache_dir(user: &str, app_id: &str) -> String {
    format!("{NM_LOCAL_DIR}/usercache/{user}/appcache/{app_id}")
}

/// The IPv4 address of the cluster's `index`-th node (its place in the cluster's node list):
/// one private `10.0.0.0/8` network, 254 hosts per `/24`, the first node at `10.0.1.1`. Spark
/// prints it where Java's `InetSocketAddress` does (`host/ip:port`). Other hosts (the RM, the
/// client) sit in `10.0.0.0/24`.
pub fn node_ip(index: usize) -> String {
    let subnet = index / 254 + 1;
    format!(
        "10.{}.{}.{}",
        (subnet >> 8) & 0xff,
        subnet & 0xff,
        index % 254 + 1
    )
}

/// The cluster's name service: a node's address from its place in the cluster's node list,
/// any other host's from its name (what the Dispatcher prints in a refused connection and the
/// roles log).
pub struct HostAddresses {
    nodes: std::collections::BTreeMap<String, usize>,
}

impl HostAddresses {
    /// The addresses of a cluster whose nodes are `hosts`, in the cluster's order.
    pub fn new<'a>(hosts: impl IntoIterator<Item = &'a str>) -> Self {
        let nodes = hosts.into_iter().enumerate();
        HostAddresses {
            nodes: nodes.map(|(i, h)| (h.to_string(), i)).collect(),
        }
    }
}

impl crate::rpc::connection::ResolveHost for HostAddresses {
    fn ip(&self, host: &str) -> String {
        match self.nodes.get(host) {
            Some(&i) => node_ip(i),
            None => other_host_ip(host),
        }
    }
}

/// The address of a host that is not a NodeManager: a fixed one per name in `10.0.0.0/24`
/// (`10.0.0.2` .. `10.0.0.254`; stable across runs).
pub fn other_host_ip(host: &str) -> String {
    let h = crate::kernel::trace::fnv1a(host.as_bytes());
    format!("10.0.0.{}", h % 253 + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node of a 10,000-node cluster has its own address, 254 to a /24, none ending in
    /// .0 or .255, and none in the other hosts' 10.0.0.0/24.
    #[test]
    fn node_addresses_are_distinct_and_valid() {
        assert_eq!(node_ip(0), "10.0.1.1");
        assert_eq!(node_ip(253), "10.0.1.254");
        assert_eq!(node_ip(254), "10.0.2.1");
        assert_eq!(node_ip(254 * 300), "10.1.45.1");
        let all: std::collections::BTreeSet<String> = (0..10_000).map(node_ip).collect();
        assert_eq!(all.len(), 10_000);
        for ip in &all {
            assert!(!ip.starts_with("10.0.0."), "{ip}");
            let last: u32 = ip.rsplit('.').next().unwrap().parse().unwrap();
            assert!((1..=254).contains(&last), "{ip}");
        }
        let rm = other_host_ip("rm.sparkyard.internal");
        assert!(rm.starts_with("10.0.0."), "{rm}");
        assert_eq!(rm, other_host_ip("rm.sparkyard.internal"));
    }
}
