//! Spark core (Spark: `core/src/main/scala/org/apache/spark`): the driver's user-class thread and
//! SparkContext, the CoarseGrainedSchedulerBackend's DriverEndpoint, the DAGScheduler /
//! TaskSchedulerImpl / TaskSetManager, and the CoarseGrainedExecutorBackend with its Executor.
//! It knows nothing of YARN: the cluster manager's backend is handed to it by `boot`.

pub mod block_fetch;
pub mod block_manager;
pub mod block_manager_decommissioner;
pub mod block_manager_master;
pub mod block_manager_replication;
pub mod coarse_grained_backend;
pub mod driver;
pub mod driver_endpoint;
pub mod driver_endpoint_state;
pub mod exec_request_times;
pub mod executor;
pub mod executor_allocation_manager;
pub mod executor_backend_state;
pub mod executor_conf;
pub mod executor_env;
pub mod executor_failure_tracker;
pub mod executor_log_url_handler;
pub mod executor_monitor;
pub mod executor_resource_info;
pub mod executor_state;
pub mod heartbeat_receiver;
pub mod java_options;
pub mod map_output_tracker_worker;
pub mod memory_store;
pub mod resource_profile;
pub mod scheduler;
pub mod shuffle_block_updates;
pub mod spark_env;
pub mod task_result_getter;
pub mod task_runner;
pub mod unified_memory_manager;
