//! The network's conditions: rules that drop, delay, duplicate or hold the messages between
//! processes (a partition), and the seeded source of each message's verdict. The Dispatcher asks
//! it once per message; the fault plan (`faults`) adds rules when a network fault fires.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    /// Any AM (driver) container: names ending `_000001`.
    Driver,
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
            ProcessPattern::Driver => name.starts_with("container_") && name.ends_with("_000001"),
            ProcessPattern::Executor(_) => false,
        }
    }
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
