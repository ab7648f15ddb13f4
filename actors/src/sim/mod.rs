//! The simulation kernel: the virtual clock, the trace, process logs and faults.

pub mod clock;
pub mod context;
pub mod faults;
pub mod injector;
pub mod invariants;
pub mod listener;
pub mod logs;
pub mod small_map;
pub mod supervisor;
pub mod timers;
pub mod trace;
