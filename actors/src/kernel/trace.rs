//! The structured record of a run: every send, delivery, drop, state change and fault, stamped
//! with virtual time and a sequence number. It feeds the tests, the determinism fingerprint and
//! the outputs (timeline, diagram).

use sparkyard_messages::rpc::EndpointId;

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// A message left its sender (`from` is the sending mailbox, if any).
    Send,
    /// A message reached its receiver's mailbox.
    Deliver,
    /// The network or a dead/stopped receiver dropped it; the text says why.
    Drop(String),
    /// A role changed state (application state, container exit, executor registered, ...).
    State(String),
    /// A fault was injected.
    Fault(String),
}

/// One trace record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub seq: u64,
    pub time_ms: u64,
    pub kind: TraceKind,
    /// The sending process (for messages).
    pub from: Option<u32>,
    /// The receiving mailbox (for messages).
    pub to: Option<EndpointId>,
    /// The message's variant name (for messages), or the subject (for state changes).
    pub name: &'static str,
    /// Which message this is (the same on its Send and its Deliver or Drop); 0 for non-messages.
    pub msg: u64,
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

    pub fn record(
        &mut self,
        kind: TraceKind,
        from: Option<u32>,
        to: Option<EndpointId>,
        name: &'static str,
    ) {
        if !self.enabled {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let time_ms = super::clock::now_ms();
        let msg = if from.is_some() || to.is_some() {
            self.current_msg
        } else {
            0
        };
        self.events.push(TraceEvent {
            seq,
            time_ms,
            kind,
            from,
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

    /// A stable 64-bit FNV-1a fingerprint of the whole trace (the determinism check).
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for e in &self.events {
            let line = format!("{:?}", e);
            for b in line.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        h
    }
}
