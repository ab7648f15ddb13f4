//! Endpoint plumbing (Spark `RpcEndpoint`, `Inbox`): the typed reference peers hold, the stop
//! message that puts OnStop last, and the handler macro that drops messages to a dead process.
//!
//! OnStart is each actor's `started()`: actix runs it on the first poll, before any queued
//! message, which is exactly Spark's "OnStart is enqueued first" rule (`ctx.notify` would run
//! after queued messages, so it is never used for OnStart).

use actix::{Actor, Addr, Context, Handler, Message};
use sparkyard_messages::rpc::EndpointId;
use std::sync::Arc;

/// A reference to an endpoint that receives messages of type `M` (Spark `RpcEndpointRef`).
/// Every reference to one mailbox shares its one actix sender: cloning a reference allocates
/// nothing (an actix `Recipient` or `Addr` clone allocates a sender task each time).
pub struct EndpointRef<M: Message<Result = ()> + Send> {
    pub id: EndpointId,
    pub(crate) recipient: Arc<dyn Post<M>>,
}

/// Where messages of type `M` can be posted (what a typed reference holds).
pub(crate) trait Post<M>: Send + Sync {
    fn do_send(&self, msg: M);
}

/// Where a mailbox's `StopEndpoint` goes.
pub(crate) trait Stop {
    fn stop(&self, msg: StopEndpoint);
    /// Whether the actor is still there (its mailbox receiver not yet dropped).
    fn connected(&self) -> bool;
}

/// The sender of a mailbox whose actor has stopped: posting to it does nothing, which is what
/// posting to a stopped actor's closed channel does.
pub(crate) struct Dead;

impl<M> Post<M> for Dead {
    fn do_send(&self, _: M) {}
}

impl Stop for Dead {
    fn stop(&self, _: StopEndpoint) {}
    fn connected(&self) -> bool {
        false
    }
}

/// A mailbox's sender: the actor's address, shared by its typed references and its stop path.
pub(crate) struct Sink<A: Actor>(pub(crate) Addr<A>);

impl<A, M> Post<M> for Sink<A>
where
    A: Actor<Context = Context<A>> + Handler<M>,
    M: Message<Result = ()> + Send + 'static,
{
    fn do_send(&self, msg: M) {
        self.0.do_send(msg);
    }
}

impl<A> Stop for Sink<A>
where
    A: Actor<Context = Context<A>> + Handler<StopEndpoint>,
{
    fn stop(&self, msg: StopEndpoint) {
        self.0.do_send(msg);
    }
    fn connected(&self) -> bool {
        self.0.connected()
    }
}

impl<M: Message<Result = ()> + Send> Clone for EndpointRef<M> {
    fn clone(&self) -> Self {
        EndpointRef {
            id: self.id,
            recipient: self.recipient.clone(),
        }
    }
}

impl<M: Message<Result = ()> + Send> std::fmt::Debug for EndpointRef<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EndpointRef({})", self.id.0)
    }
}

/// Stops an endpoint. `kill: false` is Spark's `stop(ref)`: messages already queued are still
/// handled, then OnStop. `kill: true` is the process dying: nothing more is handled.
#[derive(Message, Clone, Copy, Debug)]
#[rtype(result = "()")]
pub struct StopEndpoint {
    pub kill: bool,
}

/// What every simulated endpoint or thread implements on top of `actix::Actor`.
pub trait Endpoint: actix::Actor<Context = actix::Context<Self>> {
    /// The RpcEnv of the process this endpoint lives in.
    fn env(&self) -> &crate::rpc::RpcEnv;
    /// Spark's `onStop`, called once, last.
    fn on_stop(&mut self, _ctx: &mut actix::Context<Self>) {}
}

/// Implements `Handler<$msg>` for `$actor` by calling `$actor::$method(msg, ctx)`, dropping the
/// message if the process died after it was queued (a dead JVM handles nothing).
#[macro_export]
macro_rules! endpoint_handler {
    ($actor:ty, $msg:ty, $method:ident) => {
        impl actix::Handler<$msg> for $actor {
            type Result = ();
            fn handle(&mut self, msg: $msg, ctx: &mut actix::Context<Self>) {
                if $crate::rpc::Endpoint::env(self).is_alive() {
                    self.$method(msg, ctx);
                }
            }
        }
    };
}

/// Implements `Handler<StopEndpoint>`: OnStop once (skipped when the process was killed), then
/// the actor stops.
#[macro_export]
macro_rules! endpoint_lifecycle {
    ($actor:ty) => {
        impl actix::Handler<$crate::rpc::StopEndpoint> for $actor {
            type Result = ();
            fn handle(&mut self, msg: $crate::rpc::StopEndpoint, ctx: &mut actix::Context<Self>) {
                use actix::ActorContext;
                if !msg.kill && ctx.state() == actix::ActorState::Running {
                    $crate::rpc::Endpoint::on_stop(self, ctx);
                }
                ctx.stop();
            }
        }
    };
}

/// Everything an endpoint writes the same way, written once: `Endpoint` (its RpcEnv is the
/// field `env`), the handler of its messages (`endpoint_handler!`), its stop
/// (`endpoint_lifecycle!`) and, for an endpoint that asks, `Asker` (its asks in the field
/// `asks`, its answers to an inherent method). An actor names only what differs:
///
/// ```ignore
/// crate::endpoint!(Client {
///     messages: ClientMsg => on_message,
///     answers: ClientAnswer => answered,
///     on_stop: stopped, // optional: Spark's `onStop`
/// });
/// ```
#[macro_export]
macro_rules! endpoint {
    ($actor:ty {
        messages: $msg:ty => $method:ident
        $(, answers: $answer:ty => $answered:ident)?
        $(, on_stop: $on_stop:ident)?
        $(,)?
    }) => {
        impl $crate::rpc::Endpoint for $actor {
            fn env(&self) -> &$crate::rpc::RpcEnv {
                &self.env
            }
            $(
                fn on_stop(&mut self, ctx: &mut actix::Context<Self>) {
                    <$actor>::$on_stop(self, ctx)
                }
            )?
        }
        $(
            impl $crate::rpc::Asker for $actor {
                type Answer = $answer;
                fn asks(&mut self) -> &mut $crate::rpc::AskTable<$answer> {
                    &mut self.asks
                }
                fn on_answer(&mut self, answer: $answer, ctx: &mut actix::Context<Self>) {
                    <$actor>::$answered(self, answer, ctx)
                }
            }
        )?
        $crate::endpoint_handler!($actor, $msg, $method);
        $crate::endpoint_lifecycle!($actor);
    };
}
