//! Asks with virtual-time timeouts (Spark `ask` + `RpcTimeout`). An ask is a message plus a
//! reply message plus a timer: never `Addr::send().await`, which bypasses the network and hangs
//! when the network drops the message. The receiver always handles an ask even if the caller has
//! timed out (Spark's semantics); a late reply is logged `Ignored message: ...`.
//!
//! Asks are typed: an ask variant carries a `ReplyTo<R>`, the replier can answer only with an
//! `R`, and the asker's answer gets a `Result<R, RpcFailure>`. The reply travels in one envelope
//! (`ReplyValue`) and is decoded here, once, when it reaches the asker.

use super::endpoint::{Endpoint, EndpointRef};
use crate::kernel::small_map::SmallMap;
use actix::{AsyncContext, Context, Message, SpawnHandle};
use sparkyard_messages::jvm_text::finite_duration;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{AskReply, Reply, ReplyTo, ReplyValue, RpcAddress};
use std::borrow::Cow;

/// The properties that name ask timeouts: kept as static strings, so an ask allocates nothing
/// for its timeout (every executor asks several times while it starts).
const KNOWN_PROPERTIES: [&str; 6] = [
    "spark.rpc.askTimeout",
    "spark.executor.heartbeatInterval",
    "spark.network.timeout",
    "spark.rpc.lookupTimeout",
    "ipc.client.rpc-timeout.ms",
    "yarn.resourcemanager.connect.max-wait.ms",
];

/// An ask's timeout and the property that controls it (for the exception text).
#[derive(Clone, Debug)]
pub struct AskTimeout {
    pub ms: u64,
    pub property: Cow<'static, str>,
    /// The `RpcTimeout`'s duration was built in milliseconds (`n.millis`), so Scala prints it
    /// as `n milliseconds` even when it is whole seconds (the executor's heartbeat ask).
    pub in_millis: bool,
}

impl AskTimeout {
    pub fn new(ms: u64, property: &str) -> Self {
        let property = match KNOWN_PROPERTIES.iter().find(|p| **p == property) {
            Some(p) => Cow::Borrowed(*p),
            None => Cow::Owned(property.to_string()),
        };
        AskTimeout {
            ms,
            property,
            in_millis: false,
        }
    }

    /// A timeout whose `FiniteDuration` is in milliseconds (`Executor.reportHeartBeat`'s
    /// `RpcTimeout(HEARTBEAT_INTERVAL_MS.millis, ...)`).
    pub fn in_millis(ms: u64, property: &str) -> Self {
        AskTimeout {
            in_millis: true,
            ..AskTimeout::new(ms, property)
        }
    }

    /// The duration as `FiniteDuration.toString` prints it.
    fn duration(&self) -> String {
        match (self.in_millis, self.ms) {
            (true, 1) => "1 millisecond".to_string(),
            (true, ms) => format!("{ms} milliseconds"),
            (false, ms) => finite_duration(ms),
        }
    }

    /// `RpcTimeoutException: Cannot receive any reply from <addr> in <duration>. This timeout is
    /// controlled by <property>`, caused by the `TimeoutException` NettyRpcEnv's ask failed
    /// with (`RpcTimeout.createRpcTimeoutException` adds the property to its message).
    pub fn failure(&self, remote: &RpcAddress) -> RpcFailure {
        let reply = format!(
            "Cannot receive any reply from {remote} in {}",
            self.duration()
        );
        let text = format!("{reply}. This timeout is controlled by {}", self.property);
        RpcFailure::new("org.apache.spark.rpc.RpcTimeoutException", text).caused_by(
            RpcFailure::new("java.util.concurrent.TimeoutException", reply),
        )
    }
}

/// How a pending ask turns the reply envelope into the asker's answer: decodes the value to the
/// type asked for, then wraps the typed result in the actor's answer.
type Decode<A> = Box<dyn FnOnce(Result<ReplyValue, RpcFailure>) -> A>;

/// The failure of an ask as its waiting caller sees it (`askSync`, `setupEndpointRefByURI`):
/// Spark 4.0.0's `SparkThreadUtils.awaitResult` rethrows a timeout (`RpcTimeoutException` is a
/// `TimeoutException`) as it is and wraps any other failure in
/// `SparkException("Exception thrown in awaitResult: ", cause)` (the jar's text).
pub fn awaited(failure: RpcFailure) -> RpcFailure {
    if failure.class == "org.apache.spark.rpc.RpcTimeoutException" {
        failure
    } else {
        RpcFailure::spark("Exception thrown in awaitResult: ").caused_by(failure)
    }
}

/// The asks an actor is waiting on, keyed by ask id, with how each is answered and its timeout
/// timer. Most actors wait on one or two at a time (a short list); a driver can wait on one per
/// executor (a map).
pub struct AskTable<A> {
    pending: SmallMap<u64, (Decode<A>, SpawnHandle)>,
}

impl<A> Default for AskTable<A> {
    fn default() -> Self {
        AskTable {
            pending: SmallMap::default(),
        }
    }
}

impl<A> AskTable<A> {
    /// How the ask is answered, and its timeout timer.
    fn take(&mut self, ask_id: u64) -> Option<(Decode<A>, SpawnHandle)> {
        self.pending.remove(&ask_id)
    }
    fn insert(&mut self, ask_id: u64, decode: Decode<A>, timer: SpawnHandle) {
        self.pending.insert(ask_id, (decode, timer));
    }
}

/// The reply envelope as the type `R` the ask waits for. A value of another type fails the ask
/// as Spark's `ask[T]` does (`Future.mapTo[T]`): with a `ClassCastException`.
pub fn decode<R: Reply>(result: Result<ReplyValue, RpcFailure>) -> Result<R, RpcFailure> {
    result.and_then(|value| {
        R::from_value(value).map_err(|other| {
            RpcFailure::new(
                "java.lang.ClassCastException",
                format!("Cannot cast {} to {}", other.class(), R::CLASS),
            )
        })
    })
}

/// An actor that asks. `Answer` is what an ask's outcome reaches it as: typically an enum with
/// one variant per kind of ask, each holding that ask's typed result.
pub trait Asker: Endpoint {
    type Answer: 'static;
    fn asks(&mut self) -> &mut AskTable<Self::Answer>;
    /// An ask's outcome: its typed reply, or its failure (remote exception, timeout, connect
    /// error, a reply of the wrong type), as `answer` wrapped it.
    fn on_answer(&mut self, answer: Self::Answer, ctx: &mut Context<Self>);

    /// Sends an ask from this actor's mailbox `me` and arms its timeout. `make` builds the
    /// message around the typed reply context; `answer` wraps the typed outcome.
    fn ask<M, R>(
        &mut self,
        ctx: &mut Context<Self>,
        me: sparkyard_messages::rpc::EndpointId,
        to: &EndpointRef<M>,
        answer: impl FnOnce(Result<R, RpcFailure>) -> Self::Answer + 'static,
        timeout: &AskTimeout,
        make: impl FnOnce(ReplyTo<R>) -> M,
    ) where
        M: Message<Result = ()> + Send + Clone + 'static,
        for<'a> &'a M: Into<&'static str>,
        R: Reply,
        Self: Sized,
    {
        let env = self.env().clone();
        // Register (with its armed timeout) before posting: a local failure answers through
        // the mailbox, after this.
        let ask_id = env.dispatcher.next_ask_id_peek();
        // The timeout text is written only if the timeout fires (a process's address never
        // changes, so it reads the same then as now).
        let (to_id, timeout) = (to.id, timeout.clone());
        let timer = crate::kernel::timers::run_later(
            ctx,
            crate::kernel::clock::ms(timeout.ms),
            move |act, ctx| {
                if let Some((decode, _)) = act.asks().take(ask_id) {
                    let remote = act.env().dispatcher.address_of(to_id);
                    act.on_answer(decode(Err(timeout.failure(&remote))), ctx);
                }
            },
        );
        let decode: Decode<Self::Answer> = Box::new(move |result| answer(decode::<R>(result)));
        self.asks().insert(ask_id, decode, timer);
        let posted = env.ask(me, to, make);
        debug_assert_eq!(posted, ask_id);
    }

    /// Routes an `AskReply` that reached the mailbox.
    fn on_ask_reply(&mut self, reply: AskReply, ctx: &mut Context<Self>)
    where
        Self: Sized,
    {
        match self.asks().take(reply.ask_id) {
            Some((decode, timer)) => {
                // Spark cancels the timeout when the reply comes: an answered ask holds nothing
                // (a starting executor would otherwise keep two 120 s timers).
                ctx.cancel_future(timer);
                let answer = decode(reply.result);
                self.on_answer(answer, ctx)
            }
            None => {
                let log = self.env().log().clone();
                crate::warn!(log, "spark::NettyRpcEnv", "{}", ignored_line(&reply.result));
            }
        }
    }
}

/// What `NettyRpcEnv.askAbortable` logs for a reply nobody waits for any more (its `onSuccess`
/// / `onFailure`, NettyRpcEnv.scala): `Ignored message: <reply>` with the reply's Scala
/// `toString`, or `Ignored failure: <exception>` with the Throwable's `toString`.
pub fn ignored_line(result: &Result<ReplyValue, RpcFailure>) -> String {
    match result {
        Err(e) => format!("Ignored failure: {e}"),
        Ok(ReplyValue::Unit) => "Ignored message: ()".to_string(),
        Ok(ReplyValue::Bool(b)) => format!("Ignored message: {b}"),
        Ok(ReplyValue::Int(i)) => format!("Ignored message: {i}"),
        Ok(ReplyValue::LossReason(r)) => format!("Ignored message: {r}"),
        // A case class's toString: `HeartbeatResponse(true)`.
        Ok(ReplyValue::Heartbeat(r)) => {
            format!(
                "Ignored message: HeartbeatResponse({})",
                r.reregister_block_manager
            )
        }
        // The records' own toString is not modelled: the class's simple name, never Rust Debug.
        Ok(other) => {
            let class = other.class();
            let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
            format!("Ignored message: {simple}")
        }
    }
}

#[cfg(test)]
mod ignored_tests {
    use super::*;

    /// NettyRpcEnv.scala (askAbortable's onSuccess/onFailure): a late reply is logged with the
    /// value's `toString` (`()` for a boxed Unit, `true`) and a late failure with the
    /// exception's, never Rust's `Ok(Unit)` / `Err(RpcFailure { .. })`.
    #[test]
    fn late_replies_are_logged_as_spark_prints_them() {
        assert_eq!(ignored_line(&Ok(ReplyValue::Unit)), "Ignored message: ()");
        assert_eq!(
            ignored_line(&Ok(ReplyValue::Bool(true))),
            "Ignored message: true"
        );
        let failure = RpcFailure::spark("Could not find CoarseGrainedScheduler.".to_string());
        assert_eq!(
            ignored_line(&Err(failure.clone())),
            format!("Ignored failure: {failure}")
        );
        assert!(!ignored_line(&Err(failure)).contains("RpcFailure {"));
        let late = ReplyValue::Heartbeat(sparkyard_messages::rpc::HeartbeatResponse {
            reregister_block_manager: true,
        });
        assert_eq!(
            ignored_line(&Ok(late)),
            "Ignored message: HeartbeatResponse(true)"
        );
    }

    /// Executor.reportHeartBeat builds `RpcTimeout(HEARTBEAT_INTERVAL_MS.millis, ...)`: Scala's
    /// FiniteDuration prints it in its own unit (`10000 milliseconds`), where an RpcTimeout read
    /// with `timeStringAsSeconds` prints `120 seconds`.
    #[test]
    fn a_millisecond_timeout_prints_in_milliseconds() {
        let remote = RpcAddress {
            host: "h".into(),
            port: 1,
        };
        let hb = AskTimeout::in_millis(10_000, "spark.executor.heartbeatInterval");
        assert_eq!(
            hb.failure(&remote).message,
            "Cannot receive any reply from h:1 in 10000 milliseconds. This timeout is controlled by spark.executor.heartbeatInterval"
        );
        assert!(matches!(hb.property, Cow::Borrowed(_)));
        let ask = AskTimeout::new(120_000, "spark.rpc.askTimeout");
        assert!(ask.failure(&remote).message.contains(" in 120 seconds."));
    }
}

#[cfg(test)]
mod awaited_tests {
    use super::*;

    /// SparkThreadUtils.awaitResult (Spark 4.0.0, spark-common-utils): a timeout is rethrown
    /// as it is; any other failure is wrapped, its text `Exception thrown in awaitResult: `
    /// (the jar's constant, trailing space), the failure its cause.
    #[test]
    fn an_awaited_failure_is_wrapped_unless_it_timed_out() {
        let timeout = AskTimeout::new(120_000, "spark.rpc.askTimeout");
        let remote = RpcAddress {
            host: "h".into(),
            port: 1,
        };
        let timed_out = timeout.failure(&remote);
        assert_eq!(awaited(timed_out.clone()), timed_out);
        assert_eq!(
            timed_out.stack_text(),
            "org.apache.spark.rpc.RpcTimeoutException: Cannot receive any reply from h:1 in 120 seconds. This timeout is controlled by spark.rpc.askTimeout\n\
             Caused by: java.util.concurrent.TimeoutException: Cannot receive any reply from h:1 in 120 seconds"
        );
        let refused = RpcFailure::new("java.io.IOException", "Failed to connect to h/10.0.0.9:1");
        assert_eq!(
            awaited(refused).stack_text(),
            "org.apache.spark.SparkException: Exception thrown in awaitResult: \n\
             Caused by: java.io.IOException: Failed to connect to h/10.0.0.9:1"
        );
    }
}
