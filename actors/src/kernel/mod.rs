//! The simulation kernel: the virtual clock, timers, the trace, process logs and the small
//! collections every role uses. It knows no role and no Spark or YARN rule; everything above
//! depends on it and it depends on nothing in this crate.

pub mod bitset;
pub mod clock;
pub mod logs;
pub mod slab;
pub mod small_map;
pub mod timers;
pub mod trace;
