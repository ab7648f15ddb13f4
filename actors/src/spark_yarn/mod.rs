//! Spark on YARN (Spark: `resource-managers/yarn/src/main/scala/org/apache/spark/deploy/yarn` and
//! `scheduler/cluster/YarnSchedulerBackend`): spark-submit's Client, the ApplicationMaster with its
//! YarnAM endpoint, the YarnAllocator, ExecutorRunnable and the YarnScheduler endpoint.

pub mod application_master;
pub mod application_master_state;
pub mod client;
pub mod client_launch_context;
pub mod client_monitor;
pub mod client_submission;
#[cfg(test)]
mod client_suite_tests;
pub mod executor_runnable;
pub mod locality_preferred_container_placement_strategy;
pub mod resource_request_helper;
pub mod yarn_allocator;
pub mod yarn_allocator_node_health_tracker;
pub mod yarn_allocator_requests;
pub mod yarn_allocator_state;
pub mod yarn_scheduler_endpoint;
pub mod yarn_spark_hadoop_util;
