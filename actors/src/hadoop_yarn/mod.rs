//! Hadoop YARN's daemons (Hadoop: `org.apache.hadoop.yarn.server`): the ResourceManager and the
//! NodeManagers. They know no Spark class; the NodeManager starts a container's JVM through the
//! `Launcher` that `boot` hands it.

pub mod capacity_scheduler;
pub mod container_manager_events;
pub mod container_runtime;
pub mod decommissioning_nodes_watcher;
pub mod gpu_resource_allocator;
pub mod localization;
pub mod node_manager;
pub mod resource_manager;
pub mod rm_app;
pub mod rm_app_attempt;
pub mod rm_container;
