//! Faults as data: the plan of (trigger, action) pairs a scenario or a chaos seed draws, and the
//! controller that hands out what fires. The network's own rules (drop, delay, partition) live in
//! `rpc::network`; applying a fired fault to the world is `world::injector`.

pub mod plan;

/// The network's rules a fault installs (the scenario file builds them).
pub use crate::rpc::network::{LinkRule, ProcessPattern, RuleAction};
pub use plan::*;
