//! The roles of Spark on YARN in cluster mode as actix actors, the simulated Spark RPC layer
//! (RpcEnv, Dispatcher, Inbox rules) and the simulation kernel (virtual clock, trace, faults).
//! Nothing here reads files, environment variables or prints: the root crate does that.
//!
//! # Layout
//!
//! Rooms mirror Spark's and Hadoop's source trees, and imports go one way, down this list
//! (`tests/layering.rs` fails on any `crate::` path that goes up, or sideways between
//! `hadoop_yarn` and `spark_core`):
//!
//! ```text
//! simulation    the front door: build a Simulation from a plan, run it, read what it left
//!   ^
//! boot          the only module that names every role; hands launch closures down
//!   ^
//! spark_yarn    Client, ApplicationMaster + YarnAM, YarnAllocator, ExecutorRunnable, YarnScheduler
//!   ^
//! hadoop_yarn   ResourceManager, NodeManager        spark_core   driver, DriverEndpoint,
//!   ^                                                             scheduler, executor
//!   +-----------------------+----------------------------+
//! examples      SparkPi     |
//! world         settings, the shared context and run record, listener bus, invariants, injector
//!   ^
//! faults        the fault plan and its controller (data)
//!   ^
//! rpc           RpcEnv, endpoints, asks, the Dispatcher and the network's rules
//!   ^
//! kernel        virtual clock, timers, trace, process logs, small collections
//! ```
//!
//! Below all of them is the `sparkyard_messages` crate (ids, records, messages, listener events).
//!
//! Every room is crate-private: the root crate names `simulation` only, which runs a simulation
//! and re-exports the data it takes and gives back (the plan, the fault plan, the run's record,
//! events, trace and logs) and `facts`, the few constants and rules of the roles the root crate
//! reads.

pub(crate) mod boot;
pub(crate) mod examples;
pub(crate) mod facts;
pub(crate) mod faults;
pub(crate) mod hadoop_yarn;
pub(crate) mod kernel;
pub(crate) mod rpc;
pub mod simulation;
pub(crate) mod spark_core;
pub(crate) mod spark_yarn;
pub(crate) mod world;
