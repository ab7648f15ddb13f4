//! The network between processes: its links (latency, FIFO per link, the messages in flight)
//! and its conditions: rules that drop, delay, duplicate or hold messages (a partition), with
//! the seeded source of each message's verdict. The Dispatcher asks it once per message; the
//! fault plan (`faults`) adds rules when a network fault fires.

use super::processes::ProcessId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::rpc::EndpointId;
use std::collections::{BTreeMap, VecDeque};

/// What the network does with one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deliver { extra_delay_ms: u64 },
    Drop,
    Duplicate,
}

/// Which processes a network rule applies to, by the Dispatcher's process names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessPattern {
    Any,
    /// Exactly this process name (`rm`, `nm:<host>`, `spark-submit`, a container id).
    Named(String),
    /// The fault's own application's AM (driver) containers: `world::injector` resolves it to
    /// `AmOf` once that application has its id; unresolved, it matches nothing.
    Driver,
    /// The AM (driver) containers of one application, every attempt's.
    AmOf {
        cluster_timestamp: u64,
        id: u32,
    },
    /// Executor N's container in the attempt running when the fault fires, or, when that
    /// attempt has no executor N yet, the next executor N launched (`world::injector` resolves
    /// it to a `Named` container; unresolved, it matches nothing).
    Executor(u32),
}

impl ProcessPattern {
    pub fn matches(&self, name: &str) -> bool {
        match self {
            ProcessPattern::Any => true,
            ProcessPattern::Named(n) => n == name,
            ProcessPattern::AmOf {
                cluster_timestamp,
                id,
            } => {
                name.ends_with("_000001")
                    && container_application(name) == Some((*cluster_timestamp, *id))
            }
            ProcessPattern::Driver | ProcessPattern::Executor(_) => false,
        }
    }
}

/// The application (cluster timestamp, sequence number) of a container's name
/// (`container_[eNN_]<ts>_<seq>_<attempt>_<id>`), if it is one.
fn container_application(name: &str) -> Option<(u64, u32)> {
    let rest = name.strip_prefix("container_")?;
    let rest = match rest.strip_prefix('e') {
        Some(epoch) => epoch.split_once('_')?.1,
        None => rest,
    };
    let mut parts = rest.split('_');
    let ts = parts.next()?.parse().ok()?;
    let seq = parts.next()?.parse().ok()?;
    Some((ts, seq))
}

/// A network rule: applies to matching messages while active.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkRule {
    pub from: ProcessPattern,
    pub to: ProcessPattern,
    /// Only messages with this variant name (None: any).
    pub message: Option<String>,
    pub active_from_ms: u64,
    pub active_until_ms: u64,
    pub action: RuleAction,
    /// Probability in parts per million that the rule fires for a matching message.
    pub probability_ppm: u32,
    /// Also the reverse direction (a partition cuts both ways).
    pub both_ways: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleAction {
    Drop,
    Delay {
        ms: u64,
    },
    Duplicate,
    /// A partition: TCP holds the bytes, so messages arrive when the rule ends (the heal).
    HoldUntilEnd,
}

impl LinkRule {
    fn applies(&self, now_ms: u64, from: &str, to: &str, message: &str) -> bool {
        let forward = self.from.matches(from) && self.to.matches(to);
        let backward = self.both_ways && self.from.matches(to) && self.to.matches(from);
        (forward || backward)
            && self.message.as_deref().is_none_or(|m| m == message)
            && (self.active_from_ms..self.active_until_ms).contains(&now_ms)
    }
}

/// The seeded source of network verdicts.
pub struct FaultInjector {
    rng: ChaCha8Rng,
    rules: Vec<LinkRule>,
}

impl FaultInjector {
    pub fn new(seed: u64, rules: Vec<LinkRule>) -> Self {
        FaultInjector {
            rng: ChaCha8Rng::seed_from_u64(seed),
            rules,
        }
    }

    pub fn has_rules(&self) -> bool {
        !self.rules.is_empty()
    }

    pub fn add_rule(&mut self, rule: LinkRule) {
        self.rules.push(rule);
    }

    /// The verdict for one message; the first rule that matches and fires decides.
    pub fn verdict(&mut self, now_ms: u64, from: &str, to: &str, message: &str) -> Verdict {
        for rule in &self.rules {
            if rule.applies(now_ms, from, to, message)
                && self.rng.random_range(0..1_000_000) < rule.probability_ppm
            {
                return match rule.action {
                    RuleAction::Drop => Verdict::Drop,
                    RuleAction::Delay { ms } => Verdict::Deliver { extra_delay_ms: ms },
                    RuleAction::Duplicate => Verdict::Duplicate,
                    RuleAction::HoldUntilEnd => Verdict::Deliver {
                        extra_delay_ms: rule.active_until_ms.saturating_sub(now_ms),
                    },
                };
            }
        }
        Verdict::Deliver { extra_delay_ms: 0 }
    }
}

/// A one-way connection: from a process to a mailbox. Messages on one link arrive in the
/// order they were sent (TCP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinkKey {
    pub from: ProcessId,
    pub to: EndpointId,
}

/// What delivering a message does, once it is due.
pub(super) type Deliver = Box<dyn FnOnce()>;

/// A message in flight on a link.
pub(super) struct InFlight {
    /// The trace's id of the message.
    pub(super) msg: u64,
    pub(super) name: &'static str,
    pub(super) deliver: Deliver,
}

/// The links with messages in flight, and the network's latency.
pub(super) struct Links {
    in_flight: BTreeMap<LinkKey, VecDeque<InFlight>>,
    /// When the newest message on each busy link is due (a later send never overtakes it).
    last_due_ms: BTreeMap<LinkKey, u64>,
    pub(super) latency_ms: u64,
}

impl Links {
    pub(super) fn new(latency_ms: u64) -> Self {
        Links {
            in_flight: BTreeMap::new(),
            last_due_ms: BTreeMap::new(),
            latency_ms,
        }
    }

    /// Whether a message with this delay goes through at once: nothing is in flight on its
    /// link and it has no delay; otherwise it queues behind what is in flight.
    pub(super) fn at_once(&self, key: LinkKey, delay_ms: u64) -> bool {
        delay_ms == 0 && !self.in_flight.contains_key(&key)
    }

    /// Queues a message on its link; returns when it is due (never before the one ahead).
    pub(super) fn push(
        &mut self,
        key: LinkKey,
        now_ms: u64,
        delay_ms: u64,
        msg: u64,
        name: &'static str,
        deliver: Deliver,
    ) -> u64 {
        let last = self.last_due_ms.entry(key).or_default();
        let due_ms = (now_ms + delay_ms).max(*last);
        *last = due_ms;
        self.in_flight
            .entry(key)
            .or_default()
            .push_back(InFlight { msg, name, deliver });
        due_ms
    }

    /// The oldest message in flight on a link (the link is forgotten once empty).
    pub(super) fn pop_front(&mut self, key: LinkKey) -> Option<InFlight> {
        let queue = self.in_flight.get_mut(&key)?;
        let front = queue.pop_front();
        if queue.is_empty() {
            self.in_flight.remove(&key);
            self.last_due_ms.remove(&key);
        }
        front
    }
}

#[cfg(test)]
mod am_of_tests {
    use super::ProcessPattern;

    /// `driver` resolved for one application matches its AM containers of every attempt (and
    /// after an RM restart's epoch), not another application's AM nor its own executors.
    #[test]
    fn an_applications_am_pattern_matches_only_its_am_containers() {
        let p = ProcessPattern::AmOf {
            cluster_timestamp: 1764662400000,
            id: 2,
        };
        assert!(p.matches("container_1764662400000_0002_01_000001"));
        assert!(p.matches("container_1764662400000_0002_02_000001"));
        assert!(p.matches("container_e01_1764662400000_0002_01_000001"));
        assert!(!p.matches("container_1764662400000_0001_01_000001"));
        assert!(!p.matches("container_1764662400000_0002_01_000002"));
        assert!(!p.matches("rm"));
    }
}
