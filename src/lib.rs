//! sparkyard: a deterministic simulator of Apache Spark running an application on YARN in
//! cluster mode. This crate is the CLI and the runner: it parses spark-submit flags, Spark
//! properties and sparkyard's own files, boots the simulated cluster on a paused actix System,
//! prints what spark-submit prints and writes the container logs.

pub mod arrivals;
pub mod conf;
pub mod error;
pub mod invariants;
pub mod logging;
pub mod outputs;
pub mod pipeline;
pub mod record;
pub mod replay;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod sweep;
#[cfg(test)]
mod test_dir;
