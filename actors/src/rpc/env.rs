//! RpcEnv: one per simulated process (Spark `NettyRpcEnv`). It registers the process's
//! endpoints and threads, posts sends, asks and replies through the Dispatcher, and ends the
//! process.

use super::dispatcher::{Dispatcher, ProcessId};
use super::endpoint::{EndpointRef, StopEndpoint};
use super::processes::AliveFlag;
use crate::kernel::logs::ProcessLog;
use crate::kernel::trace::{Sender, StateChange, TraceKind};
use actix::{Actor, Addr, Context, Handler, Message};
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{
    AskContext, AskReply, EndpointId, RemoteRef, Reply, ReplyTo, RpcAddress,
};
use std::rc::Rc;

/// A process's RpcEnv handle. Cheap to clone; every actor of the process holds one.
#[derive(Clone)]
pub struct RpcEnv {
    /// The network; only the RPC layer reaches it (roles use this env's Spark-shaped methods).
    pub(super) dispatcher: Dispatcher,
    pub process: ProcessId,
    /// The mailbox of the actor holding this handle, set when it registers: what the trace
    /// records as the sender of its sends and replies.
    speaker: Option<EndpointId>,
    alive: AliveFlag,
    log: ProcessLog,
}

impl RpcEnv {
    pub fn new(dispatcher: Dispatcher, process: ProcessId) -> Self {
        let alive = dispatcher.alive_flag(process);
        let log = dispatcher.process_log(process);
        RpcEnv {
            dispatcher,
            process,
            speaker: None,
            alive,
            log,
        }
    }

    /// False once the process has exited or was killed.
    pub fn is_alive(&self) -> bool {
        self.alive.get()
    }

    pub fn log(&self) -> &ProcessLog {
        &self.log
    }

    pub fn address(&self) -> RpcAddress {
        self.dispatcher.process_address(self.process)
    }

    /// The address of the process endpoint `id` lives in: where an RPC from it comes from
    /// (Hadoop's `Server.getRemoteIp()` is the caller's address).
    pub fn address_of(&self, id: EndpointId) -> RpcAddress {
        self.dispatcher.address_of(id)
    }

    /// `setupEndpoint(name, endpoint)`: registers a named endpoint for an actor being created;
    /// this handle then speaks for it. In a process that has died meanwhile it yields a
    /// reference that goes nowhere (`Dispatcher::register`), as every registration does.
    pub fn setup_endpoint<A, M>(
        &mut self,
        name: &str,
        addr: &Addr<A>,
        reply: Option<fn(AskReply) -> M>,
    ) -> EndpointRef<M>
    where
        A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
        M: Message<Result = ()> + Send + 'static,
    {
        let r = self
            .dispatcher
            .register(self.process, Some(name), "", addr.clone(), reply);
        self.speaker = Some(r.id);
        r
    }

    /// Registers a thread's private queue (not visible to lookups), e.g. the Driver thread;
    /// this handle then speaks for it. In a dead process, a reference that goes nowhere (as
    /// `setup_endpoint`).
    pub fn setup_thread<A, M>(
        &mut self,
        label: &'static str,
        addr: &Addr<A>,
        reply: Option<fn(AskReply) -> M>,
    ) -> EndpointRef<M>
    where
        A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
        M: Message<Result = ()> + Send + 'static,
    {
        let r = self
            .dispatcher
            .register(self.process, None, label, addr.clone(), reply);
        self.speaker = Some(r.id);
        r
    }

    /// One-way `send`; a failed post is logged at the sender as Spark does.
    pub fn send<M>(&self, to: &EndpointRef<M>, msg: M)
    where
        M: Message<Result = ()> + Send + Clone + 'static,
        for<'a> &'a M: Into<&'static str>,
    {
        let name: &'static str = (&msg).into();
        if let Err(e) = self.dispatcher.send(self.sender(), to, msg, name) {
            crate::debug!(self.log, "spark::NettyRpcEnv", "Failed to send {name}: {e}");
        }
    }

    /// Posts an ask and returns its id; a post that fails at once fails the ask through the
    /// asker's reply path, as Spark fails the caller's future.
    pub fn ask<M, R>(
        &self,
        me: EndpointId,
        to: &EndpointRef<M>,
        make: impl FnOnce(ReplyTo<R>) -> M,
    ) -> u64
    where
        M: Message<Result = ()> + Send + Clone + 'static,
        for<'a> &'a M: Into<&'static str>,
    {
        let ask_id = self.dispatcher.next_ask_id();
        let ctx = AskContext {
            ask_id,
            reply_to: me,
        };
        let msg = make(ReplyTo::new(ctx));
        let name: &'static str = (&msg).into();
        if let Err(failure) = self.dispatcher.send(self.sender(), to, msg, name) {
            self.dispatcher.fail_ask_locally(ctx, failure);
        }
        ask_id
    }

    /// `context.reply(value)`: only with the type the asker waits for.
    pub fn reply<R: Reply>(&self, ctx: ReplyTo<R>, value: R) {
        self.dispatcher
            .reply(self.sender(), ctx.context(), Ok(value.into_value()));
    }

    /// `context.sendFailure(e)`.
    pub fn reply_failure<R>(&self, ctx: ReplyTo<R>, failure: RpcFailure) {
        self.dispatcher
            .reply(self.sender(), ctx.context(), Err(failure));
    }

    /// An endpoint of this process by name (Spark: `RpcEnv.setupEndpointRef` to its own
    /// address); `None` if it is not registered.
    pub fn local_endpoint_ref<M>(&self, name: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        self.dispatcher.lookup(self.process, name)
    }

    /// `setupEndpointRef(address, name)`: the named endpoint of the live Spark server at
    /// `address` (what a `spark://name@host:port` URI names); `None` if nothing listens there
    /// or no such endpoint is registered.
    pub fn setup_endpoint_ref<M>(&self, address: &RpcAddress, name: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let process = self.dispatcher.process_at(address)?;
        self.dispatcher.lookup(process, name)
    }

    /// The IPv4 address `host` resolves to (the network's name service).
    pub fn host_ip(&self, host: &str) -> String {
        self.dispatcher.host_ip(host)
    }

    /// A YARN daemon's endpoint by the daemon's process name (YARN clients connect to a
    /// NodeManager by its NodeId).
    pub fn daemon_ref<M>(&self, process_name: &str, endpoint: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        self.dispatcher.lookup_named(process_name, endpoint)
    }

    /// Asks for `RemoteProcessDisconnected` events on this endpoint: `make(address)` is posted
    /// when a peer process of this one dies (Spark's `onDisconnected`).
    pub fn on_disconnect<M>(&self, endpoint: EndpointId, make: fn(RpcAddress) -> M)
    where
        M: Message<Result = ()> + Send + 'static,
    {
        self.dispatcher.on_disconnect(endpoint, make);
    }

    /// Installs this process's SIGTERM handling: `f` runs when another process signals it
    /// (SignalUtils' logger and the JVM's shutdown hooks, which then exit the process).
    pub fn on_sigterm(&self, f: impl Fn() + 'static) {
        self.dispatcher.on_process_term(self.process, Rc::new(f));
    }

    /// Sends SIGTERM to another process: its handler runs (`true`), or, with none installed,
    /// the process ends at once with 143 (128 + SIGTERM), as a JVM with no hooks would.
    pub fn signal_term(&self, process: ProcessId) -> bool {
        if self.dispatcher.signal_term(process) {
            return true;
        }
        self.dispatcher.exit_process(process, 143);
        false
    }

    /// Ends another process with `exit_code` (a NodeManager killing its container's JVM).
    pub fn kill_process(&self, process: ProcessId, exit_code: i32) {
        self.dispatcher.exit_process(process, exit_code);
    }

    /// The run's captured container output (what a NodeManager reads back into diagnostics).
    pub fn logs(&self) -> Rc<std::cell::RefCell<crate::kernel::logs::LogStore>> {
        self.dispatcher.logs()
    }

    /// This process and the mailbox this handle speaks for.
    fn sender(&self) -> Sender {
        Sender {
            process: Some(self.process.0),
            mailbox: self.speaker,
        }
    }

    /// Records a role's state change in the trace, as this process and mailbox; the change is
    /// built only when the trace records.
    pub fn trace_state(&self, subject: &'static str, change: impl FnOnce() -> StateChange) {
        self.dispatcher
            .record(self.sender(), subject, || TraceKind::State(change()));
    }

    pub fn remote_ref(&self, id: EndpointId) -> RemoteRef {
        self.dispatcher.remote_ref(id)
    }

    pub fn resolve<M>(&self, remote: &RemoteRef) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        self.dispatcher.resolve(remote)
    }

    /// Spark's `stop(ref)` for one of this process's endpoints.
    pub fn stop_endpoint(&self, id: EndpointId) {
        self.dispatcher.stop_endpoint(id);
    }

    /// `System.exit(code)`: the whole process ends.
    pub fn exit(&self, exit_code: i32) {
        self.dispatcher.exit_process(self.process, exit_code);
    }
}
