//! What a Spark server RpcEnv's `endpoint-verifier` receives (Spark `RpcEndpointVerifier`).

use crate::rpc::ReplyTo;
use serde::{Deserialize, Serialize};

/// The endpoint-verifier's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum EndpointVerifierMsg {
    /// `CheckExistence(name)`, answered with a Boolean.
    CheckExistence(ReplyTo<bool>, String),
}
