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
    /// The YarnAllocator processed the completion of a container it had released
    /// (`processCompletedContainers` with `alreadyReleased`). Last: the fingerprint hashes
    /// the variant's index, and the runs without releases keep theirs.
    ReleasedContainerCompleted {
        container: ContainerId,
        exit_status: i32,
    },
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
            StateChange::ReleasedContainerCompleted {
                container,
                exit_status,
            } => write!(f, "{container} released: {exit_status}"),
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

/// The trace of one run; recording can be switched off for benchmarks, and a run that needs
/// only the fingerprint (a sweep's seed) keeps no events.
pub struct Trace {
    pub enabled: bool,
    /// Keep the events (outputs and tests read them); without, each is only hashed.
    keep: bool,
    events: Vec<TraceEvent>,
    /// The fingerprint of the events recorded so far (see [`Trace::fingerprint`]).
    hash: u64,
    next_seq: u64,
    next_msg: u64,
    /// The message the next `record` calls belong to (set by the Dispatcher around a post).
    current_msg: u64,
}

impl Default for Trace {
    fn default() -> Self {
        Trace::new(false)
    }
}

impl Trace {
    pub fn new(enabled: bool) -> Self {
        Trace {
            enabled,
            keep: enabled,
            events: Vec::new(),
            hash: FNV_OFFSET,
            next_seq: 0,
            next_msg: 0,
            current_msg: 0,
        }
    }

    /// A trace that records every event into its fingerprint and keeps none of them: the
    /// same fingerprint as [`Trace::new`]`(true)`, without the memory of the events.
    pub fn fingerprint_only() -> Self {
        Trace {
            keep: false,
            ..Trace::new(true)
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
        let event = TraceEvent {
            seq,
            time_ms,
            kind,
            from: from.process,
            from_mailbox: from.mailbox,
            to,
            name,
            msg,
        };
        self.hash = hash_event(self.hash, &event);
        if self.keep {
            self.events.push(event);
        }
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

    /// The events, moved out (none when the trace kept none).
    pub fn into_events(self) -> Vec<TraceEvent> {
        self.events
    }

    /// A stable 64-bit FNV-1a fingerprint of the whole trace (the determinism check), over a
    /// fixed binary encoding of every event (bincode 2, standard configuration), so it does not
    /// move when a `Debug` or `Display` text does. Made as the events are recorded.
    pub fn fingerprint(&self) -> u64 {
        self.hash
    }
}

/// `h` continued over one event's bincode bytes. A message's Send or Deliver (nearly every
/// event) is encoded here by hand, the same bytes as bincode's, at a third of the cost; the
/// rest go through bincode.
fn hash_event(h: u64, e: &TraceEvent) -> u64 {
    let variant = match e.kind {
        TraceKind::Send => 0,
        TraceKind::Deliver => 1,
        _ => {
            let mut w = FnvWriter(h);
            bincode::serde::encode_into_std_write(e, &mut w, bincode::config::standard())
                .expect("a trace event encodes into a hash");
            return w.0;
        }
    };
    let mut w = FnvWriter(h);
    w.varint(e.seq);
    w.varint(e.time_ms);
    w.varint(variant);
    w.option(e.from);
    w.option(e.from_mailbox.map(|m| m.0));
    w.option(e.to.map(|t| t.0));
    w.varint(e.name.len() as u64);
    w.0 = fnv1a_extend(w.0, e.name.as_bytes());
    w.varint(e.msg);
    w.0
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

impl FnvWriter {
    /// bincode 2's variable-length unsigned integer (standard configuration: little endian,
    /// one byte up to 250, else a marker byte and 2, 4 or 8 bytes).
    fn varint(&mut self, n: u64) {
        let h = match n {
            0..=250 => fnv1a_extend(self.0, &[n as u8]),
            251..=0xffff => fnv1a_extend(fnv1a_extend(self.0, &[251]), &(n as u16).to_le_bytes()),
            0x1_0000..=0xffff_ffff => {
                fnv1a_extend(fnv1a_extend(self.0, &[252]), &(n as u32).to_le_bytes())
            }
            _ => fnv1a_extend(fnv1a_extend(self.0, &[253]), &n.to_le_bytes()),
        };
        self.0 = h;
    }

    /// An `Option` of an unsigned integer: a 0 byte, or a 1 byte and the value.
    fn option(&mut self, v: Option<u32>) {
        match v {
            None => self.0 = fnv1a_extend(self.0, &[0]),
            Some(n) => {
                self.0 = fnv1a_extend(self.0, &[1]);
                self.varint(u64::from(n));
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a over bincode's own encoding of each event, as the fingerprint was first made.
    fn bincode_fingerprint(events: &[TraceEvent]) -> u64 {
        let mut w = FnvWriter(FNV_OFFSET);
        for e in events {
            bincode::serde::encode_into_std_write(e, &mut w, bincode::config::standard())
                .expect("encodes");
        }
        w.0
    }

    fn event(
        seq: u64,
        time_ms: u64,
        kind: TraceKind,
        ids: (Option<u32>, u32),
        msg: u64,
    ) -> TraceEvent {
        TraceEvent {
            seq,
            time_ms,
            kind,
            from: ids.0,
            from_mailbox: ids.0.map(|p| EndpointId(p.wrapping_mul(3))),
            to: (ids.1 != 0).then_some(EndpointId(ids.1)),
            name: "RegisterExecutor",
            msg,
        }
    }

    // The hand-made encoding of Send and Deliver is bincode's, byte for byte: every width of
    // bincode's variable-length integers (1, 3, 5 and 9 bytes), both options, and the other
    // kinds (which go through bincode) in between.
    #[test]
    fn the_fingerprint_is_bincodes_encoding_hashed() {
        let widths = [
            0,
            250,
            251,
            65_535,
            65_536,
            u64::from(u32::MAX),
            u64::from(u32::MAX) + 1,
            u64::MAX,
        ];
        let mut events = Vec::new();
        for (i, n) in widths.iter().enumerate() {
            let small = (*n).min(u64::from(u32::MAX)) as u32;
            events.push(event(*n, *n, TraceKind::Send, (Some(small), small), *n));
            events.push(event(i as u64, *n, TraceKind::Deliver, (None, 0), 0));
            events.push(event(*n, 1, TraceKind::Deliver, (Some(7), small.max(1)), 3));
            events.push(event(
                *n,
                2,
                TraceKind::State(StateChange::ProcessExited {
                    process: small,
                    exit_code: -100,
                }),
                (None, 0),
                0,
            ));
            events.push(event(
                *n,
                3,
                TraceKind::Drop(DropReason::Network),
                (Some(1), 2),
                9,
            ));
        }
        let mut hash = FNV_OFFSET;
        for (k, e) in events.iter().enumerate() {
            hash = hash_event(hash, e);
            assert_eq!(hash, bincode_fingerprint(&events[..=k]), "event {k}: {e:?}");
        }
    }

    // A trace that keeps no events has the fingerprint of one that keeps them all.
    #[test]
    fn a_fingerprint_only_trace_hashes_the_same_events() {
        let (mut full, mut only) = (Trace::new(true), Trace::fingerprint_only());
        for t in [&mut full, &mut only] {
            t.begin_message();
            let from = Sender {
                process: Some(3),
                mailbox: Some(EndpointId(12)),
            };
            t.record(TraceKind::Send, from, Some(EndpointId(300)), "StatusUpdate");
            t.record(
                TraceKind::Deliver,
                from,
                Some(EndpointId(300)),
                "StatusUpdate",
            );
            t.record(
                TraceKind::State(StateChange::NodeLost {
                    host: "nm-1".into(),
                }),
                Sender::NONE,
                None,
                "Node",
            );
        }
        assert_eq!(full.events().len(), 3);
        assert!(only.events().is_empty());
        assert_eq!(only.fingerprint(), full.fingerprint());
        assert_eq!(full.fingerprint(), bincode_fingerprint(full.events()));
        assert_eq!(Trace::new(false).fingerprint(), bincode_fingerprint(&[]));
    }
}
