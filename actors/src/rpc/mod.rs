//! Spark's RPC layer, simulated: one RpcEnv per simulated process, named endpoints with Spark's
//! Inbox rules, and the Dispatcher that carries every message between processes (the network:
//! latency, FIFO links, fault verdicts, the trace).

pub mod ask;
pub mod connection;
pub mod dispatcher;
pub mod endpoint;
pub mod env;
pub mod network;
pub mod processes;
mod registry;
pub mod verifier;

pub use ask::{AskTable, AskTimeout, Asker, awaited};
pub use dispatcher::{Dispatcher, ProcessId, ProcessKind};
pub use endpoint::{Endpoint, EndpointRef, StopEndpoint};
pub use env::RpcEnv;

#[cfg(test)]
mod tests;
