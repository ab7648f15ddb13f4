//! The roles of Spark on YARN in cluster mode as actix actors, the simulated Spark RPC layer
//! (RpcEnv, Dispatcher, Inbox rules) and the simulation kernel (virtual clock, trace, faults).
//! Nothing here reads files, environment variables or prints: the root crate does that.

pub mod application_master;
pub mod client;
pub mod config;
pub mod driver;
pub mod driver_endpoint;
pub mod executor;
pub mod executor_runnable;
pub mod node_manager;
pub mod resource_manager;
pub mod rpc;
pub mod scheduler;
pub mod sim;
pub mod spark_pi;
pub mod yarn_allocator;
pub mod yarn_scheduler_endpoint;
