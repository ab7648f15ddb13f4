//! The example applications a submission can name (Spark: `examples/`): SparkPi.

pub mod spark_pi;
