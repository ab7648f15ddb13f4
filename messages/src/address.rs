//! Spark's `RpcAddress`, `RpcEndpointAddress` and `NettyRpcEndpointRef` (core/.../rpc/): where a
//! process listens and the serialisable reference to one of its endpoints. Below `rpc` and
//! `task`, which both carry references.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `host:port` of a process (Spark `RpcAddress`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RpcAddress {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for RpcAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// The simulator's handle for one mailbox; what a reference resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct EndpointId(pub u32);

/// `spark://<name>@<host>:<port>`, or `spark-client://<name>` for an endpoint in a client-mode
/// RpcEnv (executors), which has no listening address (Spark `RpcEndpointAddress`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RpcEndpointAddress {
    pub rpc_address: Option<RpcAddress>,
    pub name: String,
}

impl fmt::Display for RpcEndpointAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rpc_address {
            Some(a) => write!(f, "spark://{}@{}:{}", self.name, a.host, a.port),
            None => write!(f, "spark-client://{}", self.name),
        }
    }
}

/// A serialisable endpoint reference (Spark's `NettyRpcEndpointRef`): the address people see,
/// plus the mailbox it reaches (for a client-mode endpoint, the connection it came over).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RemoteRef {
    pub id: EndpointId,
    pub address: RpcEndpointAddress,
}

impl fmt::Display for RemoteRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NettyRpcEndpointRef({})", self.address)
    }
}
