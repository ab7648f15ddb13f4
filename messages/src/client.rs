//! What the spark-submit Client receives: the ResourceManager's answers to its calls.

use crate::rpc::AskReply;
use serde::{Deserialize, Serialize};

/// The Client's inbox (it is a caller of `ApplicationClientProtocol` only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ClientMsg {
    AskReply(AskReply),
}
