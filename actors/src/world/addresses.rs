//! Where the cluster's daemons listen: YARN's well-known ports, the names the Dispatcher knows
//! the daemons' processes by, and the NodeManagers' local directory. Shared by the daemons, the
//! roles that look them up and the fault injector, so none of them imports another's constants.

/// A NodeManager's process name in the simulation.
pub fn nm_process_name(host: &str) -> String {
    format!("nm:{host}")
}

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
