//! The Dispatcher: the one simulated network every message between processes crosses (Spark
//! `Dispatcher` + `NettyRpcEnv` outboxes). It applies Spark's posting rules ("Could not find
//! <name>.", "RpcEnv already stopped."), the network's latency and fault verdicts over FIFO
//! links, records the trace, and tells peers when a process dies. Its state is three tables,
//! each owning its own facts: the process table (`processes`), the mailbox registry
//! (`registry`) and the network's links and rules (`network`).

use super::connection::{ResolveHost, connection_refused};
use super::endpoint::{EndpointRef, StopEndpoint};
use super::network::{Deliver, FaultInjector, LinkKey, LinkRule, Links, Verdict};
use super::processes::{AliveFlag, ProcessTable};
pub use super::processes::{ProcessId, ProcessKind};
use super::registry::Registry;
use crate::kernel::logs::{LogStore, ProcessLog};
use crate::kernel::trace::{DropReason, FaultEvent, Sender, StateChange, Trace, TraceKind};
use actix::{Actor, Addr, Context, Handler, Message};
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{
    AskContext, AskReply, EndpointId, RemoteRef, RpcAddress, RpcEndpointAddress,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use super::endpoint::Post;

/// Where the network sends a message that passed the posting rules.
enum Route {
    /// Deliver now (inside the process, or an idle link without latency).
    Now,
    /// The network dropped it.
    Dropped,
    /// Over the link with this delay.
    Link(u64),
    /// Over the link with this delay, twice.
    Twice(u64),
}

struct State {
    processes: ProcessTable,
    registry: Registry,
    links: Links,
    faults: FaultInjector,
    trace: Trace,
    logs: Rc<RefCell<LogStore>>,
    hosts: Rc<dyn ResolveHost>,
    next_ask_id: u64,
}

/// A cloneable handle on the network; every RpcEnv holds one.
#[derive(Clone)]
pub struct Dispatcher {
    state: Rc<RefCell<State>>,
}

/// Why a post could not be made, as Spark words it.
fn could_not_find(name: &str) -> RpcFailure {
    RpcFailure::spark(format!("Could not find {name}."))
}

/// Spark's `NettyRpcEnv` after `shutdown()`: every post fails with this.
fn env_stopped() -> RpcFailure {
    RpcFailure::new(
        "org.apache.spark.rpc.RpcEnvStoppedException",
        "RpcEnv already stopped.",
    )
}

impl Dispatcher {
    pub fn new(
        trace: Trace,
        faults: FaultInjector,
        logs: Rc<RefCell<LogStore>>,
        latency_ms: u64,
        hosts: Rc<dyn ResolveHost>,
    ) -> Self {
        let state = State {
            processes: ProcessTable::default(),
            registry: Registry::default(),
            links: Links::new(latency_ms),
            faults,
            trace,
            logs,
            hosts,
            next_ask_id: 0,
        };
        Dispatcher {
            state: Rc::new(RefCell::new(state)),
        }
    }

    /// Creates a process (its RpcEnv's address is `host:port`); `log_key` names its output.
    pub fn add_process(
        &self,
        name: &str,
        address: RpcAddress,
        kind: ProcessKind,
        log_key: &str,
    ) -> ProcessId {
        let mut st = self.state.borrow_mut();
        let name: Rc<str> = Rc::from(name);
        // A container's process and its logs share one name (its container id).
        let log = if log_key == &*name {
            ProcessLog::shared(name.clone(), st.logs.clone())
        } else {
            ProcessLog::new(log_key, st.logs.clone())
        };
        st.processes.add(name, address, kind, log)
    }

    pub(crate) fn alive_flag(&self, process: ProcessId) -> AliveFlag {
        self.state.borrow().processes.alive_flag(process)
    }

    pub fn process_log(&self, process: ProcessId) -> ProcessLog {
        self.state.borrow().processes[process].log.clone()
    }

    /// The IPv4 address `host` resolves to.
    pub fn host_ip(&self, host: &str) -> String {
        let hosts = self.state.borrow().hosts.clone();
        hosts.ip(host)
    }

    pub fn process_address(&self, process: ProcessId) -> RpcAddress {
        self.state.borrow().processes[process].address.clone()
    }

    pub fn process_name(&self, process: ProcessId) -> String {
        self.state.borrow().processes[process].name.to_string()
    }

    pub fn is_process_alive(&self, process: ProcessId) -> bool {
        self.state.borrow().processes.is_up(process)
    }

    /// Installs the process's SIGTERM handling (a JVM's signal logger and shutdown hooks).
    pub fn on_process_term(&self, process: ProcessId, f: Rc<dyn Fn()>) {
        self.state.borrow_mut().processes.set_on_term(process, f);
    }

    /// SIGTERM: runs the process's handler and answers true; a process without one (or a dead
    /// one) is not handled here: the caller ends it (`false`).
    pub fn signal_term(&self, process: ProcessId) -> bool {
        let handler = self.state.borrow().processes.on_term(process);
        match handler {
            Some(f) => {
                f();
                true
            }
            None => false,
        }
    }

    /// Runs `f(exit_code)` when the process ends (the NodeManager watching its child).
    pub fn on_process_exit(&self, process: ProcessId, f: Box<dyn Fn(i32)>) {
        self.state.borrow_mut().processes.set_on_exit(process, f);
    }

    /// Registers a mailbox. A `name` makes it a Spark endpoint others can look up; `None` is a
    /// thread's private queue (asks' replies, local notifications).
    ///
    /// One rule for a process that is already dead (its JVM was killed while a thread of it was
    /// starting): the endpoint gets a reference that goes nowhere, a mailbox of that dead
    /// process that nothing reaches (posts to it are dropped as posts to a dead process are),
    /// never an error its caller must handle. A name registered twice in one process is a
    /// simulator bug (Spark throws `IllegalArgumentException`): it panics, and the run reports
    /// the panic as a failure.
    pub fn register<A, M>(
        &self,
        process: ProcessId,
        name: Option<&str>,
        label: &'static str,
        addr: Addr<A>,
        reply: Option<fn(AskReply) -> M>,
    ) -> EndpointRef<M>
    where
        A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
        M: Message<Result = ()> + Send + 'static,
    {
        let mut st = self.state.borrow_mut();
        let proc = &st.processes[process];
        if !st.processes.is_up(process) {
            // Nothing reaches it: no name, no replies, inactive from the start.
            return st.registry.push(
                process,
                None,
                "detached",
                addr,
                None::<fn(AskReply) -> M>,
                false,
            );
        }
        if let Some(n) = name
            && proc.name_index(n).is_some()
        {
            panic!(
                "java.lang.IllegalArgumentException: There is already an RpcEndpoint called {n} (in {})",
                proc.name
            );
        }
        let name: Option<Rc<str>> = name.map(|n| st.registry.intern(n));
        let id = st.registry.next_id();
        let proc = &mut st.processes[process];
        if let Some(n) = &name {
            proc.names.reserve_exact(1);
            proc.names.push((n.clone(), id));
        }
        proc.mailboxes.push(id);
        st.registry.push(process, name, label, addr, reply, true)
    }

    /// Asks for `RemoteProcessDisconnected` events: `make(address)` is posted when a peer dies.
    pub fn on_disconnect<M>(&self, id: EndpointId, make: fn(RpcAddress) -> M)
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let mut st = self.state.borrow_mut();
        if !st.registry.set_disconnect(id, make) {
            return;
        }
        let process = st.registry.hot(id).process;
        // Only a mailbox its process still lists gets the events (as when scanning them all).
        let proc = &mut st.processes[process];
        if proc.mailboxes.contains(&id)
            && let Err(at) = proc.listeners.binary_search(&id)
        {
            proc.listeners.insert(at, id);
        }
    }

    /// `RpcEnv.setupEndpointRef` done locally: the named endpoint of a process, if registered.
    pub fn lookup<M>(&self, process: ProcessId, name: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let st = self.state.borrow();
        let proc = &st.processes[process];
        let id = proc.names[proc.name_index(name)?].1;
        st.registry.typed(id)
    }

    /// The named endpoint of the newest process called `process_name` (YARN daemons are found by name).
    pub fn lookup_named<M>(&self, process_name: &str, endpoint: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let process = self.process_named(process_name)?;
        self.lookup(process, endpoint)
    }

    /// The newest process with this name.
    pub fn process_named(&self, process_name: &str) -> Option<ProcessId> {
        self.state.borrow().processes.named(process_name)
    }

    /// The mailbox registered under `name` in a process, if any.
    pub fn lookup_id(&self, process: ProcessId, name: &str) -> Option<EndpointId> {
        let st = self.state.borrow();
        let proc = &st.processes[process];
        proc.name_index(name).map(|i| proc.names[i].1)
    }

    /// The live Spark server process listening at `address` (what a `spark://` URI names).
    pub fn process_at(&self, address: &RpcAddress) -> Option<ProcessId> {
        self.state.borrow().processes.live_server_at(address)
    }

    /// Turns a reference that arrived in a message into a typed one (None if the type is wrong).
    pub fn resolve<M>(&self, remote: &RemoteRef) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        self.state.borrow().registry.typed(remote.id)
    }

    /// The serialisable form of a reference, with the address people see.
    pub fn remote_ref(&self, id: EndpointId) -> RemoteRef {
        let st = self.state.borrow();
        let process = st.registry.hot(id).process;
        let proc = &st.processes[process];
        let rpc_address =
            (st.processes.kind(process) != ProcessKind::SparkClient).then(|| proc.address.clone());
        let name = st.registry[id]
            .name
            .as_deref()
            .unwrap_or_default()
            .to_string();
        RemoteRef {
            id,
            address: RpcEndpointAddress { rpc_address, name },
        }
    }

    /// The process a mailbox belongs to.
    pub fn process_of(&self, id: EndpointId) -> ProcessId {
        self.state.borrow().registry.hot(id).process
    }

    /// The address of the process a mailbox lives in.
    pub fn address_of(&self, id: EndpointId) -> RpcAddress {
        let st = self.state.borrow();
        st.processes[st.registry.hot(id).process].address.clone()
    }

    /// The id the next ask will get (so a caller can record it before posting).
    pub fn next_ask_id_peek(&self) -> u64 {
        self.state.borrow().next_ask_id + 1
    }

    pub fn next_ask_id(&self) -> u64 {
        let mut st = self.state.borrow_mut();
        st.next_ask_id += 1;
        st.next_ask_id
    }

    /// Posts a one-way message (Spark `send`). A failure is returned for the sender to log.
    pub fn send<M>(
        &self,
        sender: Sender,
        to: &EndpointRef<M>,
        msg: M,
        name: &'static str,
    ) -> Result<(), RpcFailure>
    where
        M: Message<Result = ()> + Send + Clone + 'static,
    {
        let mut st = self.state.borrow_mut();
        let key = LinkKey {
            from: sender_process(sender),
            to: to.id,
        };
        match self.route(&mut st, sender, to.id, name)? {
            Route::Now => {
                drop(st);
                to.recipient.do_send(msg);
            }
            Route::Dropped => {}
            Route::Link(delay) => self.enqueue_send(st, key, delay, name, &to.recipient, msg),
            Route::Twice(delay) => {
                // The copy follows the original on the same link; the receiver handles both.
                let copy = msg.clone();
                self.enqueue_send(st, key, delay, name, &to.recipient, msg);
                let st = self.state.borrow_mut();
                self.enqueue_send(st, key, delay, name, &to.recipient, copy);
            }
        }
        Ok(())
    }

    /// A message over a link: at once if the link is idle and has no delay, else queued.
    fn enqueue_send<M>(
        &self,
        mut st: std::cell::RefMut<'_, State>,
        key: LinkKey,
        delay_ms: u64,
        name: &'static str,
        recipient: &Arc<dyn Post<M>>,
        msg: M,
    ) where
        M: Message<Result = ()> + Send + 'static,
    {
        if Self::deliver_at_once(&mut st, key, delay_ms, name) {
            drop(st);
            recipient.do_send(msg);
        } else {
            let r = recipient.clone();
            self.queue(st, key, delay_ms, name, Box::new(move || r.do_send(msg)));
        }
    }

    /// Posts an ask's reply back to the asker's mailbox.
    pub fn reply(
        &self,
        sender: Sender,
        ctx: AskContext,
        result: Result<sparkyard_messages::rpc::ReplyValue, RpcFailure>,
    ) {
        let mut st = self.state.borrow_mut();
        let to = ctx.reply_to;
        if !st.registry[to].takes_replies {
            return;
        }
        let reply = AskReply {
            ask_id: ctx.ask_id,
            result,
        };
        let key = LinkKey {
            from: sender_process(sender),
            to,
        };
        match self.route(&mut st, sender, to, "AskReply") {
            Err(_) | Ok(Route::Dropped) => {}
            Ok(Route::Now) => Self::post_reply(&st, to, reply),
            Ok(Route::Link(delay)) => self.enqueue_reply(st, key, delay, reply),
            Ok(Route::Twice(delay)) => {
                let copy = reply.clone();
                self.enqueue_reply(st, key, delay, reply);
                let st = self.state.borrow_mut();
                self.enqueue_reply(st, key, delay, copy);
            }
        }
    }

    fn enqueue_reply(
        &self,
        mut st: std::cell::RefMut<'_, State>,
        key: LinkKey,
        delay_ms: u64,
        reply: AskReply,
    ) {
        if Self::deliver_at_once(&mut st, key, delay_ms, "AskReply") {
            Self::post_reply(&st, key.to, reply);
        } else {
            let this = self.clone();
            let deliver = move || Self::post_reply(&this.state.borrow(), key.to, reply);
            self.queue(st, key, delay_ms, "AskReply", Box::new(deliver));
        }
    }

    /// Hands a reply to the asker's mailbox (posting never calls back into the Dispatcher).
    fn post_reply(st: &State, to: EndpointId, reply: AskReply) {
        st.registry[to].senders.post_reply(reply);
    }

    /// Fails an ask at once without a network hop (the post itself failed at the sender).
    pub fn fail_ask_locally(&self, ctx: AskContext, failure: RpcFailure) {
        let reply = AskReply {
            ask_id: ctx.ask_id,
            result: Err(failure),
        };
        Self::post_reply(&self.state.borrow(), ctx.reply_to, reply);
    }

    /// Spark's posting rules, the trace and the fault verdict for one message.
    fn route(
        &self,
        st: &mut State,
        sender: Sender,
        to: EndpointId,
        name: &'static str,
    ) -> Result<Route, RpcFailure> {
        st.trace.begin_message();
        let from = sender_process(sender);
        if !st.processes.is_up(from) {
            // A dead JVM sends nothing (an actor of it may still run until its stop arrives);
            // Spark's stopped RpcEnv refuses the post.
            st.trace.record(
                TraceKind::Drop(DropReason::SenderDead),
                sender,
                Some(to),
                name,
            );
            return Err(env_stopped());
        }
        let hot = st.registry.hot(to);
        let target_process = hot.process;
        if !st.processes.is_up(target_process) {
            st.trace.record(
                TraceKind::Drop(DropReason::ConnectionRefused),
                sender,
                Some(to),
                name,
            );
            return Err(if from == target_process {
                env_stopped()
            } else {
                let address = &st.processes[target_process].address;
                connection_refused(address, &st.hosts.ip(&address.host))
            });
        }
        if !hot.active {
            let n = st.registry[to]
                .name
                .as_deref()
                .unwrap_or_default()
                .to_string();
            st.trace.record(
                TraceKind::Drop(DropReason::NotFound {
                    endpoint: n.clone(),
                }),
                sender,
                Some(to),
                name,
            );
            return Err(could_not_find(&n));
        }
        st.trace.record(TraceKind::Send, sender, Some(to), name);
        if from == target_process {
            st.trace.record(TraceKind::Deliver, sender, Some(to), name);
            return Ok(Route::Now);
        }
        st.processes.connect(from, target_process);
        let verdict = if st.faults.has_rules() {
            let now = crate::kernel::clock::now_ms();
            let st = &mut *st;
            let (f, t) = (&st.processes[from].name, &st.processes[target_process].name);
            st.faults.verdict(now, f, t, name)
        } else {
            Verdict::Deliver { extra_delay_ms: 0 }
        };
        let delay = st.links.latency_ms;
        Ok(match verdict {
            Verdict::Drop => {
                st.trace
                    .record(TraceKind::Drop(DropReason::Network), sender, Some(to), name);
                Route::Dropped
            }
            Verdict::Deliver { extra_delay_ms } => Route::Link(delay + extra_delay_ms),
            Verdict::Duplicate => {
                st.trace.record(
                    TraceKind::Fault(FaultEvent::Duplicated),
                    sender,
                    Some(to),
                    name,
                );
                Route::Twice(delay)
            }
        })
    }

    /// Whether a message goes through at once: nothing in flight on the link and no delay (the
    /// delivery is traced then); otherwise it queues behind what is in flight (TCP order).
    fn deliver_at_once(st: &mut State, key: LinkKey, delay_ms: u64, name: &'static str) -> bool {
        if st.links.at_once(key, delay_ms) {
            st.trace
                .record(TraceKind::Deliver, link_sender(key), Some(key.to), name);
            return true;
        }
        false
    }

    /// Queues a delivery on its link and wakes a timer at its due time.
    fn queue(
        &self,
        mut st: std::cell::RefMut<'_, State>,
        key: LinkKey,
        delay_ms: u64,
        name: &'static str,
        deliver: Deliver,
    ) {
        let now = crate::kernel::clock::now_ms();
        let msg = st.trace.current_msg();
        let due = st.links.push(key, now, delay_ms, msg, name, deliver);
        drop(st);
        let this = self.clone();
        actix::spawn(async move {
            tokio::time::sleep(crate::kernel::clock::ms(due.saturating_sub(now))).await;
            this.deliver_front(key);
        });
    }

    /// A link timer fired: deliver the oldest message in flight on that link (each timer
    /// delivers one, so order is the link's, whatever order equal-time timers fire in).
    fn deliver_front(&self, key: LinkKey) {
        let mut st = self.state.borrow_mut();
        let Some(front) = st.links.pop_front(key) else {
            return;
        };
        let name = front.name;
        st.trace.resume_message(front.msg);
        let hot = st.registry.hot(key.to);
        if !st.processes.is_up(hot.process) {
            st.trace.record(
                TraceKind::Drop(DropReason::ReceiverDied),
                link_sender(key),
                Some(key.to),
                name,
            );
            return;
        }
        if !hot.active {
            let reason = DropReason::EndpointStopped {
                message: name,
                endpoint: st.registry[key.to]
                    .name
                    .as_deref()
                    .unwrap_or_default()
                    .to_string(),
            };
            let text = reason.to_string();
            let log = st.processes[hot.process].log.clone();
            st.trace
                .record(TraceKind::Drop(reason), Sender::NONE, Some(key.to), name);
            drop(st);
            crate::warn!(log, "spark::Inbox", "{text}");
            return;
        }
        st.trace
            .record(TraceKind::Deliver, link_sender(key), Some(key.to), name);
        drop(st);
        (front.deliver)();
    }

    /// Spark's `stop(ref)`: unregisters the name (later posts fail "Could not find"), then the
    /// endpoint handles what is already queued and OnStop last.
    pub fn stop_endpoint(&self, id: EndpointId) {
        let mut st = self.state.borrow_mut();
        if !st.registry.hot(id).active {
            return;
        }
        let stop = st.registry.deactivate(id);
        let process = st.registry.hot(id).process;
        if let Some(n) = st.registry[id].name.clone() {
            let proc = &mut st.processes[process];
            if let Some(i) = proc.name_index(&n) {
                proc.names.remove(i);
            }
        }
        if let Some(stop) = stop {
            stop.stop(StopEndpoint { kill: false });
        }
    }

    /// Ends a process with an exit code: every endpoint stops at once (a dead JVM handles
    /// nothing more), peers get `RemoteProcessDisconnected`, and whoever watches the process
    /// (its NodeManager) learns the exit code.
    pub fn exit_process(&self, process: ProcessId, exit_code: i32) {
        let mut st = self.state.borrow_mut();
        let Some(ended) = st.processes.mark_dead(process) else {
            return;
        };
        let mut stops = Vec::with_capacity(ended.mailboxes.len());
        for id in &ended.mailboxes {
            stops.extend(st.registry.kill(*id));
        }
        if st.trace.enabled {
            st.trace.record(
                TraceKind::State(StateChange::ProcessExited {
                    process: process.0,
                    exit_code,
                }),
                Sender::NONE,
                None,
                "Process",
            );
        }
        drop(st);
        for stop in stops {
            stop.stop(StopEndpoint { kill: true });
        }
        for id in ended.disconnects {
            let st = self.state.borrow();
            st.registry[id]
                .senders
                .post_disconnect(ended.address.clone());
        }
        if let Some(f) = ended.on_exit {
            f(exit_code);
        }
    }

    /// Whether the trace records (so a caller can skip building a record nobody keeps).
    pub fn tracing(&self) -> bool {
        self.state.borrow().trace.enabled
    }

    /// Records a state change or fault in the trace (as `by`); `kind` is built only when
    /// recording.
    pub fn record(&self, by: Sender, subject: &'static str, kind: impl FnOnce() -> TraceKind) {
        let mut st = self.state.borrow_mut();
        if st.trace.enabled {
            st.trace.record(kind(), by, None, subject);
        }
    }

    /// Runs `f` over the trace (tests, outputs).
    pub fn with_trace<R>(&self, f: impl FnOnce(&Trace) -> R) -> R {
        f(&self.state.borrow().trace)
    }

    /// The trace recorded so far, taken out (a finished run's, without copying its events);
    /// recording goes on into an empty, disabled trace.
    pub fn take_trace(&self) -> Trace {
        std::mem::replace(&mut self.state.borrow_mut().trace, Trace::new(false))
    }

    /// A label for a mailbox in traces: `<endpoint or thread name>@<process name>`.
    pub fn mailbox_label(&self, id: EndpointId) -> String {
        let st = self.state.borrow();
        let mb = &st.registry[id];
        let proc = &st.processes[st.registry.hot(id).process];
        format!("{}@{}", mb.name.as_deref().unwrap_or(mb.label), proc.name)
    }

    /// A fault delivered inside a process (not over the network): recorded and handed over now.
    pub fn deliver_local<M>(&self, to: &EndpointRef<M>, msg: M)
    where
        M: Message<Result = ()> + Send + 'static,
        for<'a> &'a M: Into<&'static str>,
    {
        let name: &'static str = (&msg).into();
        self.state.borrow_mut().trace.record(
            TraceKind::Fault(FaultEvent::Injected),
            Sender::NONE,
            Some(to.id),
            name,
        );
        to.recipient.do_send(msg);
    }

    /// Adds a network rule (a fault that fired).
    pub fn add_rule(&self, rule: LinkRule) {
        self.state.borrow_mut().faults.add_rule(rule);
    }

    /// A machine dies: every live process on `host` ends (the NodeManager and its containers).
    pub fn exit_host(&self, host: &str, exit_code: i32) {
        let victims = self.state.borrow().processes.live_on_host(host);
        for p in victims {
            self.exit_process(p, exit_code);
        }
    }

    /// Every process's name, indexed by process id.
    pub fn process_names(&self) -> Vec<String> {
        self.state.borrow().processes.names()
    }

    /// Every mailbox's label, indexed by endpoint id.
    pub fn mailbox_labels(&self) -> Vec<String> {
        let n = self.state.borrow().registry.len();
        (0..n)
            .map(|i| self.mailbox_label(EndpointId(i as u32)))
            .collect()
    }

    pub fn logs(&self) -> Rc<RefCell<LogStore>> {
        self.state.borrow().logs.clone()
    }
}

/// The process a sender speaks for; every message is sent by some process.
fn sender_process(sender: Sender) -> ProcessId {
    ProcessId(sender.process.expect("a message is sent by a process"))
}

/// A link's sending process, as its deliveries and drops record it.
fn link_sender(key: LinkKey) -> Sender {
    Sender {
        process: Some(key.from.0),
        mailbox: None,
    }
}

impl From<ProcessId> for Sender {
    /// A process speaking for none of its mailboxes (tests, and the simulator's own posts).
    fn from(p: ProcessId) -> Sender {
        Sender {
            process: Some(p.0),
            mailbox: None,
        }
    }
}
