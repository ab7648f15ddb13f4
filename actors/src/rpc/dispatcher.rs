//! The Dispatcher: the one simulated network every message between processes crosses (Spark
//! `Dispatcher` + `NettyRpcEnv` outboxes). It resolves references, applies Spark's posting rules
//! ("Could not find <name>.", "RpcEnv already stopped."), the network latency and fault verdicts,
//! keeps each link FIFO, records the trace, and tells peers when a process dies.

use super::network::{FaultInjector, LinkRule, Verdict};
use crate::kernel::logs::{LogStore, ProcessLog};
use crate::kernel::small_map::SmallSet;
use crate::kernel::trace::{DropReason, FaultEvent, Sender, StateChange, Trace, TraceKind};
use actix::{Actor, Addr, Context, Handler, Message};
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{
    AskContext, AskReply, EndpointId, RemoteRef, RpcAddress, RpcEndpointAddress,
};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use super::endpoint::{Dead, EndpointRef, Post, Sink, Stop, StopEndpoint};

/// One simulated process: a container's JVM, a NodeManager, the RM, the submitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcessId(pub u32);

/// What kind of process it is; Spark processes get disconnect events, YARN daemons do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessKind {
    /// A Spark RpcEnv in server mode (the driver).
    SparkServer,
    /// A Spark RpcEnv in client mode (executors: no listening port).
    SparkClient,
    /// A YARN daemon or the submitting client.
    Yarn,
}

type Deliver = Box<dyn FnOnce()>;

/// A mailbox's senders, typed for its messages behind one pointer: `Live` while its actor runs,
/// `Retired` (zero-sized, so it allocates nothing) once the actor has stopped.
trait Senders {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn post_reply(&self, reply: AskReply);
    fn post_disconnect(&self, address: RpcAddress);
    /// The stop path, to use after the state is released (`None` once retired: nothing to stop).
    fn stop_handle(&self) -> Option<Arc<dyn Stop>>;
    /// Whether the actor is still there (its mailbox receiver not yet dropped).
    fn connected(&self) -> bool;
    /// The same mailbox once its actor is gone.
    fn retired(&self) -> Box<dyn Senders>;
}

/// A running actor's senders: one `Arc` shared by every `EndpointRef` to the mailbox, and how
/// to build its reply and disconnect messages.
struct Live<M: Message<Result = ()> + Send> {
    recipient: Arc<dyn Post<M>>,
    stop: Arc<dyn Stop>,
    reply: Option<fn(AskReply) -> M>,
    disconnect: Option<fn(RpcAddress) -> M>,
}

/// A stopped actor's mailbox: ids stay valid, references resolve to a sender that drops what it
/// is given (as the closed channel did), and the channel itself is freed.
struct Retired<M>(PhantomData<fn() -> M>);

impl<M: Message<Result = ()> + Send + 'static> Senders for Live<M> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn post_reply(&self, reply: AskReply) {
        if let Some(make) = self.reply {
            self.recipient.do_send(make(reply));
        }
    }
    fn post_disconnect(&self, address: RpcAddress) {
        if let Some(make) = self.disconnect {
            self.recipient.do_send(make(address));
        }
    }
    fn stop_handle(&self) -> Option<Arc<dyn Stop>> {
        Some(self.stop.clone())
    }
    fn connected(&self) -> bool {
        self.stop.connected()
    }
    fn retired(&self) -> Box<dyn Senders> {
        Box::new(Retired::<M>(PhantomData))
    }
}

impl<M: Message<Result = ()> + Send + 'static> Senders for Retired<M> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn post_reply(&self, _: AskReply) {}
    fn post_disconnect(&self, _: RpcAddress) {}
    fn stop_handle(&self) -> Option<Arc<dyn Stop>> {
        None
    }
    fn connected(&self) -> bool {
        false
    }
    fn retired(&self) -> Box<dyn Senders> {
        Box::new(Retired::<M>(PhantomData))
    }
}

/// The senders of a new mailbox, and the reference that shares them.
fn live_senders<A, M>(
    addr: Addr<A>,
    reply: Option<fn(AskReply) -> M>,
) -> (Box<dyn Senders>, Arc<dyn Post<M>>)
where
    A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
    M: Message<Result = ()> + Send + 'static,
{
    let sink = Arc::new(Sink(addr));
    let recipient: Arc<dyn Post<M>> = sink.clone();
    let live = Live {
        recipient: recipient.clone(),
        stop: sink,
        reply,
        disconnect: None,
    };
    (Box::new(live), recipient)
}

struct Process {
    name: Rc<str>,
    address: RpcAddress,
    kind: ProcessKind,
    /// Shared with the process's RpcEnv (its handlers check it).
    alive: Rc<Cell<bool>>,
    /// The same flag kept inline (every post reads it; the shared cell is another cache line).
    up: bool,
    /// A peer this process is known to be connected to (`peers` holds it): the common case,
    /// an executor talking to its driver, then needs no set lookup.
    peer_hint: Option<ProcessId>,
    /// Named endpoints (a handful per process: a list, not a map).
    names: Vec<(Rc<str>, EndpointId)>,
    mailboxes: Vec<EndpointId>,
    /// The mailboxes that get `RemoteProcessDisconnected` events, in registration order.
    listeners: Vec<EndpointId>,
    peers: SmallSet<ProcessId>,
    on_exit: Option<Box<dyn Fn(i32)>>,
    log: ProcessLog,
}

impl Process {
    fn name_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|(n, _)| &**n == name)
    }
}

struct Mailbox {
    process: ProcessId,
    active: bool,
    /// Whether asks' replies can come here (a reply to a mailbox without is not even sent).
    takes_replies: bool,
    /// The endpoint name, or the thread's name for a private queue (traces only).
    label: &'static str,
    name: Option<Rc<str>>,
    senders: Box<dyn Senders>,
}

/// How many stopped mailboxes a registration checks for retirement (amortised O(1)).
const RETIRE_PER_REGISTER: usize = 4;

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

#[derive(Default)]
struct Link {
    /// (due time, trace message id, message name, delivery).
    queue: VecDeque<(u64, u64, &'static str, Deliver)>,
    last_due_ms: u64,
}

/// An append-only list kept in fixed-size chunks: at a hundred thousand processes a `Vec`
/// would copy itself on every doubling and leave up to half its capacity unused.
struct Slab<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

const SLAB_CHUNK: usize = 1024;

impl<T> Slab<T> {
    fn new() -> Self {
        Slab {
            chunks: Vec::new(),
            len: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, value: T) {
        if self.len.is_multiple_of(SLAB_CHUNK) {
            self.chunks.push(Vec::with_capacity(SLAB_CHUNK));
        }
        self.chunks
            .last_mut()
            .expect("a chunk with room")
            .push(value);
        self.len += 1;
    }

    fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / SLAB_CHUNK)?.get(i % SLAB_CHUNK)
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

impl<T> std::ops::Index<usize> for Slab<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / SLAB_CHUNK][i % SLAB_CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Slab<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / SLAB_CHUNK][i % SLAB_CHUNK]
    }
}

/// What every post reads of a mailbox, packed apart from the rest (one cache line holds eight).
#[derive(Clone, Copy)]
struct MailboxHot {
    process: ProcessId,
    active: bool,
}

struct State {
    processes: Slab<Process>,
    mailboxes: Slab<Mailbox>,
    /// `mailboxes[i].process` and `.active`, by endpoint id (kept in step with them).
    hot: Vec<MailboxHot>,
    /// Mailboxes made inactive whose actor may not have stopped yet (oldest first).
    retiring: VecDeque<EndpointId>,
    links: BTreeMap<(ProcessId, EndpointId), Link>,
    /// Spark server envs by listening address (the newest process at an address wins).
    servers: BTreeMap<RpcAddress, ProcessId>,
    /// Processes by name (the newest process of a name wins).
    by_name: BTreeMap<Rc<str>, ProcessId>,
    trace: Trace,
    faults: FaultInjector,
    logs: Rc<RefCell<LogStore>>,
    latency_ms: u64,
    next_ask_id: u64,
    /// Every endpoint name registered so far (a handful), shared by the mailboxes.
    endpoint_names: Vec<Rc<str>>,
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

fn connect_failure(address: &RpcAddress) -> RpcFailure {
    RpcFailure::new(
        "java.io.IOException",
        format!("Failed to connect to {address}"),
    )
}

impl Dispatcher {
    pub fn new(
        trace: Trace,
        faults: FaultInjector,
        logs: Rc<RefCell<LogStore>>,
        latency_ms: u64,
    ) -> Self {
        let state = State {
            processes: Slab::new(),
            mailboxes: Slab::new(),
            hot: Vec::new(),
            retiring: VecDeque::new(),
            links: BTreeMap::new(),
            servers: BTreeMap::new(),
            by_name: BTreeMap::new(),
            trace,
            faults,
            logs,
            latency_ms,
            next_ask_id: 0,
            endpoint_names: Vec::new(),
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
        let id = ProcessId(st.processes.len() as u32);
        let name: Rc<str> = Rc::from(name);
        // A container's process and its logs share one name (its container id).
        let log = if log_key == &*name {
            ProcessLog::shared(name.clone(), st.logs.clone())
        } else {
            ProcessLog::new(log_key, st.logs.clone())
        };
        if kind == ProcessKind::SparkServer {
            st.servers.insert(address.clone(), id);
        }
        st.by_name.insert(name.clone(), id);
        st.processes.push(Process {
            name,
            address,
            kind,
            alive: Rc::new(Cell::new(true)),
            up: true,
            peer_hint: None,
            names: Vec::new(),
            mailboxes: Vec::new(),
            listeners: Vec::new(),
            peers: SmallSet::default(),
            on_exit: None,
            log,
        });
        id
    }

    pub(crate) fn alive_flag(&self, process: ProcessId) -> Rc<Cell<bool>> {
        self.state.borrow().processes[process.0 as usize]
            .alive
            .clone()
    }

    pub fn process_log(&self, process: ProcessId) -> ProcessLog {
        self.state.borrow().processes[process.0 as usize]
            .log
            .clone()
    }

    pub fn process_address(&self, process: ProcessId) -> RpcAddress {
        self.state.borrow().processes[process.0 as usize]
            .address
            .clone()
    }

    pub fn process_name(&self, process: ProcessId) -> String {
        self.state.borrow().processes[process.0 as usize]
            .name
            .to_string()
    }

    pub fn is_process_alive(&self, process: ProcessId) -> bool {
        self.state.borrow().processes[process.0 as usize]
            .alive
            .get()
    }

    /// Runs `f(exit_code)` when the process ends (the NodeManager watching its child).
    pub fn on_process_exit(&self, process: ProcessId, f: Box<dyn Fn(i32)>) {
        self.state.borrow_mut().processes[process.0 as usize].on_exit = Some(f);
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
        let id = EndpointId(st.mailboxes.len() as u32);
        let proc = &mut st.processes[process.0 as usize];
        if !proc.alive.get() {
            drop(st);
            return self.register_detached(process, addr);
        }
        if let Some(n) = name
            && proc.name_index(n).is_some()
        {
            panic!(
                "java.lang.IllegalArgumentException: There is already an RpcEndpoint called {n} (in {})",
                proc.name
            );
        }
        // Endpoint names repeat in every process (`Executor`): one shared copy of each.
        let name: Option<Rc<str>> =
            name.map(|n| match st.endpoint_names.iter().find(|k| &***k == n) {
                Some(k) => k.clone(),
                None => {
                    let k: Rc<str> = Rc::from(n);
                    st.endpoint_names.push(k.clone());
                    k
                }
            });
        let proc = &mut st.processes[process.0 as usize];
        if let Some(n) = &name {
            proc.names.reserve_exact(1);
            proc.names.push((n.clone(), id));
        }
        proc.mailboxes.push(id);
        let takes_replies = reply.is_some();
        let (senders, recipient) = live_senders(addr, reply);
        st.hot.push(MailboxHot {
            process,
            active: true,
        });
        st.mailboxes.push(Mailbox {
            process,
            active: true,
            takes_replies,
            label,
            name,
            senders,
        });
        Self::retire_stopped(&mut st);
        EndpointRef { id, recipient }
    }

    /// Retires the oldest stopped mailboxes whose actor is gone (a handful per call).
    fn retire_stopped(st: &mut State) {
        for _ in 0..RETIRE_PER_REGISTER {
            let Some(id) = st.retiring.pop_front() else {
                return;
            };
            let mb = &mut st.mailboxes[id.0 as usize];
            if mb.senders.connected() {
                // Still draining its mailbox: look again later.
                st.retiring.push_back(id);
                return;
            }
            mb.senders = mb.senders.retired();
        }
    }

    /// Asks for `RemoteProcessDisconnected` events: `make(address)` is posted when a peer dies.
    pub fn on_disconnect<M>(&self, id: EndpointId, make: fn(RpcAddress) -> M)
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let mut st = self.state.borrow_mut();
        let mb = &mut st.mailboxes[id.0 as usize];
        let Some(live) = mb.senders.as_any_mut().downcast_mut::<Live<M>>() else {
            return;
        };
        live.disconnect = Some(make);
        let process = mb.process;
        // Only a mailbox its process still lists gets the events (as when scanning them all).
        let proc = &mut st.processes[process.0 as usize];
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
        let proc = &st.processes[process.0 as usize];
        let id = proc.names[proc.name_index(name)?].1;
        Self::typed(&st, id)
    }

    /// The named endpoint of the newest process called `process_name` (YARN daemons are found by name).
    pub fn lookup_named<M>(&self, process_name: &str, endpoint: &str) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let process = *self.state.borrow().by_name.get(process_name)?;
        self.lookup(process, endpoint)
    }

    /// The newest process with this name.
    pub fn process_named(&self, process_name: &str) -> Option<ProcessId> {
        self.state.borrow().by_name.get(process_name).copied()
    }

    /// The mailbox registered under `name` in a process, if any.
    pub fn lookup_id(&self, process: ProcessId, name: &str) -> Option<EndpointId> {
        let st = self.state.borrow();
        let proc = &st.processes[process.0 as usize];
        proc.name_index(name).map(|i| proc.names[i].1)
    }

    /// The live Spark server process listening at `address` (what a `spark://` URI names).
    pub fn process_at(&self, address: &RpcAddress) -> Option<ProcessId> {
        let st = self.state.borrow();
        let id = *st.servers.get(address)?;
        st.processes[id.0 as usize].alive.get().then_some(id)
    }

    /// Turns a reference that arrived in a message into a typed one (None if the type is wrong).
    pub fn resolve<M>(&self, remote: &RemoteRef) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        Self::typed(&self.state.borrow(), remote.id)
    }

    fn typed<M>(st: &State, id: EndpointId) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let senders = st.mailboxes.get(id.0 as usize)?.senders.as_any();
        let recipient: Arc<dyn Post<M>> = match senders.downcast_ref::<Live<M>>() {
            Some(live) => live.recipient.clone(),
            None => {
                senders.downcast_ref::<Retired<M>>()?;
                Arc::new(Dead)
            }
        };
        Some(EndpointRef { id, recipient })
    }

    /// The serialisable form of a reference, with the address people see.
    pub fn remote_ref(&self, id: EndpointId) -> RemoteRef {
        let st = self.state.borrow();
        let mb = &st.mailboxes[id.0 as usize];
        let proc = &st.processes[mb.process.0 as usize];
        let rpc_address = (proc.kind != ProcessKind::SparkClient).then(|| proc.address.clone());
        let name = mb.name.as_deref().unwrap_or_default().to_string();
        RemoteRef {
            id,
            address: RpcEndpointAddress { rpc_address, name },
        }
    }

    /// The process a mailbox belongs to.
    pub fn process_of(&self, id: EndpointId) -> ProcessId {
        self.state.borrow().mailboxes[id.0 as usize].process
    }

    /// The address of the process a mailbox lives in.
    pub fn address_of(&self, id: EndpointId) -> RpcAddress {
        let st = self.state.borrow();
        st.processes[st.mailboxes[id.0 as usize].process.0 as usize]
            .address
            .clone()
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
        let from = sender_process(sender);
        let key = (from, to.id);
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
        key: (ProcessId, EndpointId),
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
        if !st.mailboxes[to.0 as usize].takes_replies {
            return;
        }
        let reply = AskReply {
            ask_id: ctx.ask_id,
            result,
        };
        let key = (sender_process(sender), to);
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
        key: (ProcessId, EndpointId),
        delay_ms: u64,
        reply: AskReply,
    ) {
        if Self::deliver_at_once(&mut st, key, delay_ms, "AskReply") {
            Self::post_reply(&st, key.1, reply);
        } else {
            let this = self.clone();
            let deliver = move || Self::post_reply(&this.state.borrow(), key.1, reply);
            self.queue(st, key, delay_ms, "AskReply", Box::new(deliver));
        }
    }

    /// Hands a reply to the asker's mailbox (posting never calls back into the Dispatcher).
    fn post_reply(st: &State, to: EndpointId, reply: AskReply) {
        st.mailboxes[to.0 as usize].senders.post_reply(reply);
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
        let from_mailbox = sender;
        let hot = st.hot[to.0 as usize];
        let target_process = hot.process;
        if !st.processes[target_process.0 as usize].up {
            st.trace.record(
                TraceKind::Drop(DropReason::ConnectionRefused),
                from_mailbox,
                Some(to),
                name,
            );
            return Err(if from == target_process {
                RpcFailure::new(
                    "org.apache.spark.rpc.RpcEnvStoppedException",
                    "RpcEnv already stopped.",
                )
            } else {
                connect_failure(&st.processes[target_process.0 as usize].address)
            });
        }
        if !hot.active {
            let n = st.mailboxes[to.0 as usize]
                .name
                .as_deref()
                .unwrap_or_default()
                .to_string();
            st.trace.record(
                TraceKind::Drop(DropReason::NotFound {
                    endpoint: n.clone(),
                }),
                from_mailbox,
                Some(to),
                name,
            );
            return Err(could_not_find(&n));
        }
        st.trace.record(TraceKind::Send, sender, Some(to), name);
        if from == target_process {
            st.trace
                .record(TraceKind::Deliver, from_mailbox, Some(to), name);
            return Ok(Route::Now);
        }
        self.connect(st, from, target_process);
        let verdict = if st.faults.has_rules() {
            let now = crate::kernel::clock::now_ms();
            let st = &mut *st;
            let (f, t) = (
                &st.processes[from.0 as usize].name,
                &st.processes[target_process.0 as usize].name,
            );
            st.faults.verdict(now, f, t, name)
        } else {
            Verdict::Deliver { extra_delay_ms: 0 }
        };
        let delay = st.latency_ms;
        Ok(match verdict {
            Verdict::Drop => {
                st.trace.record(
                    TraceKind::Drop(DropReason::Network),
                    from_mailbox,
                    Some(to),
                    name,
                );
                Route::Dropped
            }
            Verdict::Deliver { extra_delay_ms } => Route::Link(delay + extra_delay_ms),
            Verdict::Duplicate => {
                st.trace.record(
                    TraceKind::Fault(FaultEvent::Duplicated),
                    from_mailbox,
                    Some(to),
                    name,
                );
                Route::Twice(delay)
            }
        })
    }

    fn connect(&self, st: &mut State, a: ProcessId, b: ProcessId) {
        let spark = |p: ProcessId| st.processes[p.0 as usize].kind != ProcessKind::Yarn;
        if !(spark(a) && spark(b)) {
            return;
        }
        // Connections are symmetric (`a` holds `b` exactly when `b` holds `a`), and a hint
        // is always one of the process's peers.
        if st.processes[a.0 as usize].peer_hint == Some(b)
            || st.processes[b.0 as usize].peer_hint == Some(a)
        {
            return;
        }
        if !st.processes[a.0 as usize].peers.contains(&b) {
            st.processes[a.0 as usize].peers.insert(b);
            st.processes[b.0 as usize].peers.insert(a);
        }
        st.processes[a.0 as usize].peer_hint = Some(b);
        st.processes[b.0 as usize].peer_hint = Some(a);
    }

    /// Whether a message goes through at once: nothing in flight on the link and no delay (the
    /// delivery is traced then); otherwise it queues behind what is in flight (TCP order).
    fn deliver_at_once(
        st: &mut State,
        key: (ProcessId, EndpointId),
        delay_ms: u64,
        name: &'static str,
    ) -> bool {
        let in_flight = st.links.get(&key).is_some_and(|l| !l.queue.is_empty());
        if delay_ms == 0 && !in_flight {
            st.trace
                .record(TraceKind::Deliver, link_sender(key), Some(key.1), name);
            return true;
        }
        false
    }

    /// Queues a delivery on its link and wakes a timer at its due time.
    fn queue(
        &self,
        mut st: std::cell::RefMut<'_, State>,
        key: (ProcessId, EndpointId),
        delay_ms: u64,
        name: &'static str,
        deliver: Deliver,
    ) {
        let now = crate::kernel::clock::now_ms();
        let msg_id = st.trace.current_msg();
        let link = st.links.entry(key).or_default();
        let due = (now + delay_ms).max(link.last_due_ms);
        link.last_due_ms = due;
        link.queue.push_back((due, msg_id, name, deliver));
        drop(st);
        let this = self.clone();
        actix::spawn(async move {
            tokio::time::sleep(crate::kernel::clock::ms(due.saturating_sub(now))).await;
            this.deliver_front(key);
        });
    }

    /// A link timer fired: deliver the oldest message in flight on that link (each timer
    /// delivers one, so order is the link's, whatever order equal-time timers fire in).
    fn deliver_front(&self, key: (ProcessId, EndpointId)) {
        let mut st = self.state.borrow_mut();
        let Some(link) = st.links.get_mut(&key) else {
            return;
        };
        let Some((_, msg_id, name, deliver)) = link.queue.pop_front() else {
            return;
        };
        if link.queue.is_empty() {
            st.links.remove(&key);
        }
        st.trace.resume_message(msg_id);
        let mb = &st.mailboxes[key.1.0 as usize];
        let alive = st.processes[mb.process.0 as usize].alive.get();
        if !alive {
            st.trace.record(
                TraceKind::Drop(DropReason::ReceiverDied),
                link_sender(key),
                Some(key.1),
                name,
            );
            return;
        }
        if !mb.active {
            let reason = DropReason::EndpointStopped {
                message: name,
                endpoint: mb.name.as_deref().unwrap_or_default().to_string(),
            };
            let text = reason.to_string();
            let log = st.processes[mb.process.0 as usize].log.clone();
            st.trace
                .record(TraceKind::Drop(reason), Sender::NONE, Some(key.1), name);
            drop(st);
            crate::warn!(log, "spark::Inbox", "{text}");
            return;
        }
        st.trace
            .record(TraceKind::Deliver, link_sender(key), Some(key.1), name);
        drop(st);
        deliver();
    }

    /// Spark's `stop(ref)`: unregisters the name (later posts fail "Could not find"), then the
    /// endpoint handles what is already queued and OnStop last.
    pub fn stop_endpoint(&self, id: EndpointId) {
        let mut st = self.state.borrow_mut();
        let mb = &mut st.mailboxes[id.0 as usize];
        if !mb.active {
            return;
        }
        mb.active = false;
        st.hot[id.0 as usize].active = false;
        st.retiring.push_back(id);
        let mb = &st.mailboxes[id.0 as usize];
        let (process, name) = (mb.process, mb.name.clone());
        if let Some(n) = name {
            let proc = &mut st.processes[process.0 as usize];
            if let Some(i) = proc.name_index(&n) {
                proc.names.remove(i);
            }
        }
        if let Some(stop) = st.mailboxes[id.0 as usize].senders.stop_handle() {
            stop.stop(StopEndpoint { kill: false });
        }
    }

    /// Ends a process with an exit code: every endpoint stops at once (a dead JVM handles
    /// nothing more), peers get `RemoteProcessDisconnected`, and whoever watches the process
    /// (its NodeManager) learns the exit code.
    pub fn exit_process(&self, process: ProcessId, exit_code: i32) {
        let mut st = self.state.borrow_mut();
        let proc = &mut st.processes[process.0 as usize];
        if !proc.alive.get() {
            return;
        }
        proc.alive.set(false);
        proc.up = false;
        proc.peer_hint = None;
        proc.names.clear();
        let mailboxes = std::mem::take(&mut proc.mailboxes);
        let peers = std::mem::take(&mut proc.peers);
        let address = proc.address.clone();
        let on_exit = proc.on_exit.take();
        let mut stops = Vec::with_capacity(mailboxes.len());
        for id in &mailboxes {
            let mb = &mut st.mailboxes[id.0 as usize];
            mb.active = false;
            stops.extend(mb.senders.stop_handle());
            st.hot[id.0 as usize].active = false;
            st.retiring.push_back(*id);
        }
        // Only the peers' listeners: a driver talks to every executor, and each executor that
        // exits must not scan the driver's mailboxes (one per container launch).
        let mut disconnects = Vec::new();
        for peer in peers.into_sorted() {
            let p = &mut st.processes[peer.0 as usize];
            p.peers.remove(&process);
            if p.peer_hint == Some(process) {
                p.peer_hint = None;
            }
            if !p.alive.get() {
                continue;
            }
            disconnects.extend(p.listeners.iter().copied());
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
        for id in disconnects {
            let st = self.state.borrow();
            st.mailboxes[id.0 as usize]
                .senders
                .post_disconnect(address.clone());
        }
        if let Some(f) = on_exit {
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

    /// A label for a mailbox in traces: `<endpoint or thread name>@<process name>`.
    pub fn mailbox_label(&self, id: EndpointId) -> String {
        let st = self.state.borrow();
        let mb = &st.mailboxes[id.0 as usize];
        let proc = &st.processes[mb.process.0 as usize];
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
        let victims: Vec<ProcessId> = {
            let st = self.state.borrow();
            st.processes
                .iter()
                .enumerate()
                .filter(|(_, p)| p.address.host == host && p.alive.get())
                .map(|(i, _)| ProcessId(i as u32))
                .collect()
        };
        for p in victims {
            self.exit_process(p, exit_code);
        }
    }

    /// Every process's name, indexed by process id.
    pub fn process_names(&self) -> Vec<String> {
        self.state
            .borrow()
            .processes
            .iter()
            .map(|p| p.name.to_string())
            .collect()
    }

    /// Every mailbox's label, indexed by endpoint id.
    pub fn mailbox_labels(&self) -> Vec<String> {
        let n = self.state.borrow().mailboxes.len();
        (0..n)
            .map(|i| self.mailbox_label(EndpointId(i as u32)))
            .collect()
    }

    pub fn logs(&self) -> Rc<RefCell<LogStore>> {
        self.state.borrow().logs.clone()
    }
}

impl Dispatcher {
    /// A mailbox for an actor of a process that is already dead: registered so ids stay valid,
    /// in that dead process and inactive, so every post to it is dropped ("connection refused").
    fn register_detached<A, M>(&self, process: ProcessId, addr: Addr<A>) -> EndpointRef<M>
    where
        A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
        M: Message<Result = ()> + Send + 'static,
    {
        let mut st = self.state.borrow_mut();
        let id = EndpointId(st.mailboxes.len() as u32);
        let (senders, recipient) = live_senders(addr, None);
        st.hot.push(MailboxHot {
            process,
            active: false,
        });
        st.mailboxes.push(Mailbox {
            process,
            active: false,
            takes_replies: false,
            label: "detached",
            name: None,
            senders,
        });
        EndpointRef { id, recipient }
    }
}

/// The process a sender speaks for; the simulator itself posts as process 0's peer never, so a
/// missing process is a bug in the caller.
fn sender_process(sender: Sender) -> ProcessId {
    ProcessId(sender.process.expect("a message is sent by a process"))
}

/// A link's sending process, as its deliveries and drops record it.
fn link_sender(key: (ProcessId, EndpointId)) -> Sender {
    Sender {
        process: Some(key.0.0),
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
