//! One simulation's world: its settings (`SimConfig`), the context every role shares (network,
//! RNG, the run's record), the recorded listener bus, the invariants checked during the run, and
//! the injector that applies fired faults. Roles depend on it; it names no role.

pub mod addresses;
pub mod block_servers;
pub mod config;
pub mod context;
pub mod hadoop_conf;
pub mod injector;
pub mod invariants;
pub mod listener;
pub mod observer;
pub mod settings_builder;
pub mod spark_conf;
