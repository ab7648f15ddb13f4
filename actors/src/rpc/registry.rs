//! The mailbox registry (Spark: the Dispatcher's endpoint tables and each Inbox's active
//! flag): every mailbox with its process, name, senders and whether it still takes messages.
//! `deactivate` is the one place a mailbox stops taking messages; stopped mailboxes are retired
//! (their channel freed) once their actor is gone.

use super::endpoint::{Dead, EndpointRef, Post, Sink, Stop, StopEndpoint};
use super::processes::ProcessId;
use crate::kernel::slab::Slab;
use actix::{Actor, Addr, Context, Handler, Message};
use sparkyard_messages::rpc::{AskReply, EndpointId, RpcAddress};
use std::any::Any;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

/// A mailbox's senders, typed for its messages behind one pointer: `Live` while its actor runs,
/// `Retired` (zero-sized, so it allocates nothing) once the actor has stopped.
pub(super) trait Senders {
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

/// A mailbox: where it lives and how to reach it.
pub(super) struct Mailbox {
    /// Whether asks' replies can come here (a reply to a mailbox without is not even sent).
    pub(super) takes_replies: bool,
    /// The endpoint name, or the thread's name for a private queue (traces only).
    pub(super) label: &'static str,
    pub(super) name: Option<Rc<str>>,
    pub(super) senders: Box<dyn Senders>,
}

/// What every post reads of a mailbox, packed apart from the rest (one cache line holds eight):
/// the only copy of a mailbox's process and active flag.
#[derive(Clone, Copy)]
pub(super) struct MailboxHot {
    pub(super) process: ProcessId,
    pub(super) active: bool,
}

/// How many stopped mailboxes a registration checks for retirement (amortised O(1)).
const RETIRE_PER_REGISTER: usize = 4;

/// Every mailbox of the run, by endpoint id.
#[derive(Default)]
pub(super) struct Registry {
    mailboxes: Slab<Mailbox>,
    hot: Vec<MailboxHot>,
    /// Mailboxes made inactive whose actor may not have stopped yet (oldest first).
    retiring: VecDeque<EndpointId>,
    /// Every endpoint name registered so far (a handful), shared by the mailboxes.
    endpoint_names: Vec<Rc<str>>,
}

impl Registry {
    pub(super) fn len(&self) -> usize {
        self.mailboxes.len()
    }

    /// The id the next mailbox gets.
    pub(super) fn next_id(&self) -> EndpointId {
        EndpointId(self.mailboxes.len() as u32)
    }

    /// Endpoint names repeat in every process (`Executor`): one shared copy of each.
    pub(super) fn intern(&mut self, name: &str) -> Rc<str> {
        match self.endpoint_names.iter().find(|k| &***k == name) {
            Some(k) => k.clone(),
            None => {
                let k: Rc<str> = Rc::from(name);
                self.endpoint_names.push(k.clone());
                k
            }
        }
    }

    /// A new mailbox of `process` for the actor at `addr`, active or not.
    pub(super) fn push<A, M>(
        &mut self,
        process: ProcessId,
        name: Option<Rc<str>>,
        label: &'static str,
        addr: Addr<A>,
        reply: Option<fn(AskReply) -> M>,
        active: bool,
    ) -> EndpointRef<M>
    where
        A: Actor<Context = Context<A>> + Handler<M> + Handler<StopEndpoint>,
        M: Message<Result = ()> + Send + 'static,
    {
        let id = self.next_id();
        let takes_replies = reply.is_some();
        let (senders, recipient) = live_senders(addr, reply);
        self.hot.push(MailboxHot { process, active });
        self.mailboxes.push(Mailbox {
            takes_replies,
            label,
            name,
            senders,
        });
        if active {
            self.retire_stopped();
        }
        EndpointRef { id, recipient }
    }

    /// The mailbox stops taking messages (its endpoint stopped or its process died); its
    /// senders are retired once its actor is gone. Returns its stop path if it was active.
    pub(super) fn deactivate(&mut self, id: EndpointId) -> Option<Arc<dyn Stop>> {
        let hot = &mut self.hot[id.0 as usize];
        if !hot.active {
            return None;
        }
        hot.active = false;
        self.retiring.push_back(id);
        self.mailboxes[id.0 as usize].senders.stop_handle()
    }

    /// The mailbox's process died: it takes nothing more, and its actor is stopped at once
    /// even if it was already draining after a `stop` (a dead JVM handles nothing).
    pub(super) fn kill(&mut self, id: EndpointId) -> Option<Arc<dyn Stop>> {
        self.hot[id.0 as usize].active = false;
        self.retiring.push_back(id);
        self.mailboxes[id.0 as usize].senders.stop_handle()
    }

    /// Retires the oldest stopped mailboxes whose actor is gone (a handful per call).
    fn retire_stopped(&mut self) {
        for _ in 0..RETIRE_PER_REGISTER {
            let Some(id) = self.retiring.pop_front() else {
                return;
            };
            let mb = &mut self.mailboxes[id.0 as usize];
            if mb.senders.connected() {
                // Still draining its mailbox: look again later.
                self.retiring.push_back(id);
                return;
            }
            mb.senders = mb.senders.retired();
        }
    }

    pub(super) fn hot(&self, id: EndpointId) -> MailboxHot {
        self.hot[id.0 as usize]
    }

    pub(super) fn get(&self, id: EndpointId) -> Option<&Mailbox> {
        self.mailboxes.get(id.0 as usize)
    }

    /// Sets the disconnect message of a live mailbox; false if it is not a live `M` mailbox.
    pub(super) fn set_disconnect<M>(&mut self, id: EndpointId, make: fn(RpcAddress) -> M) -> bool
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let mb = &mut self.mailboxes[id.0 as usize];
        let Some(live) = mb.senders.as_any_mut().downcast_mut::<Live<M>>() else {
            return false;
        };
        live.disconnect = Some(make);
        true
    }

    /// A typed reference to a mailbox (None if its messages are not `M`).
    pub(super) fn typed<M>(&self, id: EndpointId) -> Option<EndpointRef<M>>
    where
        M: Message<Result = ()> + Send + 'static,
    {
        let senders = self.get(id)?.senders.as_any();
        let recipient: Arc<dyn Post<M>> = match senders.downcast_ref::<Live<M>>() {
            Some(live) => live.recipient.clone(),
            None => {
                senders.downcast_ref::<Retired<M>>()?;
                Arc::new(Dead)
            }
        };
        Some(EndpointRef { id, recipient })
    }
}

impl std::ops::Index<EndpointId> for Registry {
    type Output = Mailbox;
    fn index(&self, id: EndpointId) -> &Mailbox {
        &self.mailboxes[id.0 as usize]
    }
}
