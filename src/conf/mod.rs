//! Configuration: owns turning a spark-submit command line, Spark properties files and
//! sparkyard's cluster file into validated settings; mirrors spark-submit's `SparkSubmitArguments`
//! / `SparkConf` and YARN's `yarn-site.xml` (see each module for the exact class).

pub mod allocation_file;
#[cfg(test)]
mod client_suite_tests;
pub mod cluster;
pub mod event_log_dir;
pub mod keys;
pub mod memory;
pub mod option_parser;
pub mod properties;
pub mod settings;
pub mod spark_conf;
pub mod submit;

pub use cluster::{ClusterConfig, ClusterSource, EMBEDDED_CLUSTER, load_cluster, parse_cluster};
pub use memory::{
    ByteUnit, TimeUnit, byte_string_as, byte_string_as_bytes, byte_string_as_mb, time_string_as,
    time_string_as_ms, time_string_as_sec,
};
pub use properties::{load_properties_file, parse_properties};
pub use settings::{memory_overhead_mb, spark_settings};
pub use spark_conf::SparkConf;
pub use submit::{DefaultsFile, EMBEDDED_SPARK_DEFAULTS, SubmitArgs, SubmitRequest, VerboseInfo};
