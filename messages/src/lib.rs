//! The Spark and YARN protocol of sparkyard: ids, records and one message enum per receiving
//! role. Data only (serde + actix `Message`), no behaviour and no clock, so every message can
//! cross a real wire later.

pub mod address;
pub mod application_master;
pub mod client;
pub mod driver;
pub mod driver_endpoint;
pub mod endpoint_verifier;
pub mod executor;
pub mod executor_runnable;
pub mod ids;
pub mod jvm_text;
pub mod listener;
pub mod node_manager;
pub mod records;
pub mod resource_manager;
pub mod rpc;
pub mod task;
pub mod yarn_allocator;
pub mod yarn_scheduler;

/// A message's variant name, for traces and `Drop <msg> because endpoint <name> is stopped`.
pub fn message_name<M>(message: &M) -> &'static str
where
    for<'a> &'a M: Into<&'static str>,
{
    message.into()
}

#[cfg(test)]
mod wire_tests;
