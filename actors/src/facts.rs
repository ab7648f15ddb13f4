//! Spark's and YARN's constants and rules that the root crate reads besides running a
//! simulation: the version string, the containers' classpath, the example programs sparkyard
//! simulates, the executor's settings as it reads them back, the attempt-retry rule its
//! invariants check runs against, the default ResourceProfile's tasks per executor. Re-exported from the roles, whose modules stay crate-private
//! (the front door is `simulation`).

pub use crate::examples::{java_spark_pi, simulated_classes, spark_pi};
pub use crate::hadoop_yarn::rm_app_attempt::should_count_towards_max_attempt_retry;
pub use crate::spark_core::driver::SPARK_VERSION;
pub use crate::spark_core::executor::ExecutorConf;
pub use crate::spark_core::resource_profile::{GPU, default_max_tasks_per_executor};
pub use crate::spark_yarn::client_launch_context::CONTAINER_CLASSPATH;
pub use crate::spark_yarn::resource_request_helper::{GPU_URI, resource_type_names};
