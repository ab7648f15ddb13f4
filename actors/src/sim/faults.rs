//! Network faults: the verdict the Dispatcher applies to each message (deliver after a delay,
//! drop, duplicate). Every random choice comes from one seeded ChaCha RNG.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What the network does with one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deliver { extra_delay_ms: u64 },
    Drop,
    Duplicate,
}

/// A rule that applies to messages matching it while it is active.
#[derive(Clone, Debug)]
pub struct LinkRule {
    /// Only messages from this process name (None: any).
    pub from: Option<String>,
    /// Only messages to this process name (None: any).
    pub to: Option<String>,
    /// Only messages with this variant name (None: any).
    pub message: Option<String>,
    pub active_from_ms: u64,
    pub active_until_ms: u64,
    pub action: RuleAction,
    /// Probability in parts per million that the rule fires for a matching message.
    pub probability_ppm: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleAction {
    Drop,
    Delay { ms: u64 },
    Duplicate,
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

    /// The verdict for one message; the first rule that matches and fires decides.
    pub fn verdict(&mut self, now_ms: u64, from: &str, to: &str, message: &str) -> Verdict {
        for rule in &self.rules {
            let matches = rule.from.as_deref().is_none_or(|f| f == from)
                && rule.to.as_deref().is_none_or(|t| t == to)
                && rule.message.as_deref().is_none_or(|m| m == message)
                && (rule.active_from_ms..rule.active_until_ms).contains(&now_ms);
            if matches && self.rng.random_range(0..1_000_000) < rule.probability_ppm {
                return match rule.action {
                    RuleAction::Drop => Verdict::Drop,
                    RuleAction::Delay { ms } => Verdict::Deliver { extra_delay_ms: ms },
                    RuleAction::Duplicate => Verdict::Duplicate,
                };
            }
        }
        Verdict::Deliver { extra_delay_ms: 0 }
    }

    /// A seeded draw for roles that need one (e.g. which dart lands where is per task, not here).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }
}
