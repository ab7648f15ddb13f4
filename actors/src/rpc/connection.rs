//! A connection between two processes as Netty's `TransportClientFactory` opens it: the name
//! service that turns a host into the address Spark prints (`host/ip:port`), and the exception
//! a refused connection throws. Shared by the Dispatcher and the roles that open connections of
//! their own (block fetches, migrations).

use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::RpcAddress;

/// Name resolution as the JVM's `InetAddress` does it: the IPv4 address of a host name, which
/// Spark prints where Java's `InetSocketAddress` does (`host/ip:port`).
pub trait ResolveHost {
    fn ip(&self, host: &str) -> String;
}

/// `TransportClientFactory.createClient` to a port nobody listens on: the `IOException` and
/// its causes, as Spark 4.0.0's default NIO transport throws them on Java 17 (the text of a
/// real client's refused connection: `Failed to connect to localhost/127.0.0.1:1`, caused by
/// Netty's `AnnotatedConnectException: Connection refused: localhost/127.0.0.1:1`, caused by
/// `java.net.ConnectException: Connection refused`). The refusal comes at once.
pub fn connection_refused(address: &RpcAddress, ip: &str) -> RpcFailure {
    let (host, port) = (&address.host, address.port);
    RpcFailure::new(
        "java.io.IOException",
        format!("Failed to connect to {host}/{ip}:{port}"),
    )
    .caused_by(
        RpcFailure::new(
            "io.netty.channel.AbstractChannel$AnnotatedConnectException",
            format!("Connection refused: {host}/{ip}:{port}"),
        )
        .caused_by(RpcFailure::new(
            "java.net.ConnectException",
            "Connection refused",
        )),
    )
}
