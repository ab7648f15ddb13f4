//! The structured record of a run: every send, delivery, drop, state change and fault, stamped
//! with virtual time and a sequence number. It feeds the tests, the determinism fingerprint and
//! the outputs (timeline, diagram).

use serde::Serialize;
use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId, ContainerId, ExecutorId};
use sparkyard_messages::records::YarnApplicationState;
use sparkyard_messages::rpc::EndpointId;

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TraceKind {
    /// A message left its sender.
    Send,
    /// A message reached its receiver's mailbox.
    Deliver,
    /// The network or a dead/stopped receiver dropped it.
    Drop(DropReason),
    /// A role changed state (application state, container exit, executor registered, ...).
    State(StateChange),
    /// A fault was injected.
    Fault(FaultEvent),
}

/// Why a message was dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum DropReason {
    /// The receiving process is down: the connection is refused.
    ConnectionRefused,
    /// The sending process is dead: nothing leaves it.
    SenderDead,
    /// The named endpoint is not registered (Spark: `Could not find <name>.`).
    NotFound { endpoint: String },
    /// A network rule dropped it.
    Network,
    /// The receiving process died while the message was on the wire.
    ReceiverDied,
    /// It reached a stopped endpoint's inbox (Spark's `Inbox` drops it with this warning).
    EndpointStopped {
        message: &'static str,
        endpoint: String,
    },
}

/// A role's state change, with the ids it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StateChange {
    /// `RMAppImpl`'s state machine moved (`RMApp`).
    AppState {
        app: ApplicationId,
        state: YarnApplicationState,
    },
    /// The AM's `registerApplicationMaster` call was answered.
    AmRegistered { attempt: ApplicationAttemptId },
    /// The AM's JVM exits with its own exit code.
    AmExited { exit_code: i32 },
    /// The YarnAllocator processed a completed executor container.
    ExecutorLost {
        executor: ExecutorId,
        exit_status: i32,
    },
    /// A NodeManager accepted a container and starts localizing it.
    ContainerLocalizing {
        container: ContainerId,
        host: String,
        /// The mailbox that asked for the container (the RM's AM launcher or an
        /// ExecutorRunnable), which the NodeManager answers.
        caller: EndpointId,

        /// The executor the container runs (its launch command's `--executor-id`), for
        /// executor containers.
        executor: Option<ExecutorId>,
    },
    /// A NodeManager saw its container complete.
    ContainerCompleted {
        container: ContainerId,
        exit_status: i32,
    },
    /// The RM declared a node lost.
    NodeLost { host: String },
    /// The DriverEndpoint registered an executor (`RegisterExecutor` accepted).
    ExecutorRegistered {
        executor: ExecutorId,
        /// The executor's endpoint, which the registration is answered to.
        endpoint: EndpointId,
    },
    /// The executor backend created its `Executor` (after `RegisteredExecutor`).
    ExecutorCreated { executor: ExecutorId },
    /// A process ended with this exit code.
    ProcessExited { process: u32, exit_code: i32 },
}

/// A fault, as the network or the injector applied it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum FaultEvent {
    /// A network rule duplicated a message.
    Duplicated,
    /// A fault delivered a message inside a process (not over the network).
    Injected,
    /// A planned fault fired; `target` is what it acted on, resolved when it fired.
    Fired { label: String, target: FaultTarget },
}

/// What a fired fault acted on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum FaultTarget {
    /// A container (an executor's or the AM's).
    Container(ContainerId),
    /// A node, by host.
    Node(String),
    /// Network rules between processes (the first container they name, if any).
    Network(Option<ContainerId>),
    /// Nothing was there to act on (e.g. no executor N in this attempt).
    Nothing,
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DropReason::ConnectionRefused => f.write_str("connection refused"),
            DropReason::SenderDead => f.write_str("sender died"),
            DropReason::NotFound { endpoint } => write!(f, "Could not find {endpoint}."),
            DropReason::Network => f.write_str("network"),
            DropReason::ReceiverDied => f.write_str("receiver died"),
            DropReason::EndpointStopped { message, endpoint } => {
                write!(f, "Drop {message} because endpoint {endpoint} is stopped")
            }
        }
    }
}

impl std::fmt::Display for StateChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateChange::AppState { app, state } => write!(f, "{app} {state}"),
            StateChange::AmRegistered { attempt } => write!(f, "{attempt} registered"),
            StateChange::AmExited { exit_code } => write!(f, "AM exit {exit_code}"),
            StateChange::ExecutorLost {
                executor,
                exit_status,
            } => write!(f, "executor {executor} lost: {exit_status}"),
            StateChange::ContainerLocalizing { container, .. } => {
                write!(f, "{container} LOCALIZING")
            }
            StateChange::ContainerCompleted {
                container,
                exit_status,
            } => write!(f, "{container} COMPLETE {exit_status}"),
            StateChange::NodeLost { host } => write!(f, "node {host} LOST"),
            StateChange::ExecutorRegistered { executor, .. } => {
                write!(f, "executor {executor} registered")
            }
            StateChange::ExecutorCreated { executor } => write!(f, "executor {executor} created"),
            StateChange::ProcessExited { exit_code, .. } => {
                write!(f, "process exited with {exit_code}")
            }
        }
    }
}

impl std::fmt::Display for FaultEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FaultEvent::Duplicated => f.write_str("duplicate"),
            FaultEvent::Injected => f.write_str("injected"),
            FaultEvent::Fired { label, .. } => f.write_str(label),
        }
    }
}

/// One trace record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceEvent {
    pub seq: u64,
    pub time_ms: u64,
    pub kind: TraceKind,
    /// The sending process (for messages).
    pub from: Option<u32>,
    /// The sending mailbox, on a message's Send, its immediate delivery and its drops at the
    /// sender or by the network (`None` for deliveries off a link queue, and for what the
    /// simulator itself posts, e.g. a fault's local delivery or a process's death notice).
    pub from_mailbox: Option<EndpointId>,
    /// The receiving mailbox (for messages).
    pub to: Option<EndpointId>,
    /// The message's variant name (for messages), or the subject (for state changes).
    pub name: &'static str,
    /// Which message this is (the same on its Send and its Deliver or Drop); 0 for non-messages.
    pub msg: u64,
}

/// Who recorded an event: the process and, where known, the mailbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sender {
    pub process: Option<u32>,
    pub mailbox: Option<EndpointId>,
}

impl Sender {
    /// Nobody: the simulator itself (a state change's record, a local fault delivery).
    pub const NONE: Sender = Sender {
        process: None,
        mailbox: None,
    };
}

/// The trace of one run; recording can be switched off for benchmarks.
#[derive(Default)]
pub struct Trace {
    pub enabled: bool,
    events: Vec<TraceEvent>,
    next_seq: u64,
    next_msg: u64,
    /// The message the next `record` calls belong to (set by the Dispatcher around a post).
    current_msg: u64,
}

impl Trace {
    pub fn new(enabled: bool) -> Self {
        Trace {
            enabled,
            events: Vec::new(),
            next_seq: 0,
            next_msg: 0,
            current_msg: 0,
        }
    }

    /// Records one event when the trace is on. Inline: with the trace off (every bench run),
    /// a message's Send and Deliver records cost one test each and no drop of their kind.
    #[inline]
    pub fn record(
        &mut self,
        kind: TraceKind,
        from: Sender,
        to: Option<EndpointId>,
        name: &'static str,
    ) {
        if self.enabled {
            self.push(kind, from, to, name);
        } else if matches!(kind, TraceKind::Send | TraceKind::Deliver) {
            // Nothing to drop; saying so lets the inlined call skip the drop glue's call.
            std::mem::forget(kind);
        }
    }

    #[inline(never)]
    fn push(&mut self, kind: TraceKind, from: Sender, to: Option<EndpointId>, name: &'static str) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let time_ms = super::clock::now_ms();
        // Only messages (which always have a receiver) belong to a message id.
        let msg = if to.is_some() { self.current_msg } else { 0 };
        self.events.push(TraceEvent {
            seq,
            time_ms,
            kind,
            from: from.process,
            from_mailbox: from.mailbox,
            to,
            name,
            msg,
        });
    }

    /// Starts a new message: the following records carry its id; returns it.
    pub fn begin_message(&mut self) -> u64 {
        self.next_msg += 1;
        self.current_msg = self.next_msg;
        self.current_msg
    }

    /// The message being recorded now.
    pub fn current_msg(&self) -> u64 {
        self.current_msg
    }

    /// Continues an earlier message (its delayed delivery).
    pub fn resume_message(&mut self, msg: u64) {
        self.current_msg = msg;
    }

    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    /// The events, moved out.
    pub fn into_events(self) -> Vec<TraceEvent> {
        self.events
    }

    /// A stable 64-bit FNV-1a fingerprint of the whole trace (the determinism check), over a
    /// fixed binary encoding of every event (bincode 2, standard configuration), so it does not
    /// move when a `Debug` or `Display` text does.
    pub fn fingerprint(&self) -> u64 {
        let mut h = FnvWriter(FNV_OFFSET);
        for e in &self.events {
            bincode::serde::encode_into_std_write(e, &mut h, bincode::config::standard())
                .expect("a trace event encodes into a hash");
        }
        h.0
    }
}

/// Hashes the bytes written to it (the same bytes, in the same order, as encoding each event
/// into a buffer and hashing that, without the buffer).
struct FnvWriter(u64);

impl std::io::Write for FnvWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 = fnv1a_extend(self.0, bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a, continued from `h` over `bytes`.
fn fnv1a_extend(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// 64-bit FNV-1a of `bytes` (stable ids derived from names, the trace fingerprint).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(FNV_OFFSET, bytes)
}
