//! What an ExecutorRunnable receives: the NodeManager's answer to `startContainers`.

use crate::rpc::AskReply;
use serde::{Deserialize, Serialize};

/// An ExecutorRunnable's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum ExecutorRunnableMsg {
    AskReply(AskReply),
}
