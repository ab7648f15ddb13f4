//! The example applications a submission can name (Spark: `examples/`): SparkPi.

pub mod spark_pi;

/// Every `--class` sparkyard runs as a real program (the registry the console's warning names).
pub const SIMULATED_CLASSES: &[&str] = &[spark_pi::CLASS, spark_pi::JAVA_CLASS];
