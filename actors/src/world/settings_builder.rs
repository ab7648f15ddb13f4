//! A builder of [`SparkSettings`] for tests: the settings sparkyard derives from
//! `spark-submit --master yarn --deploy-mode cluster --class C JAR ARGS` with no other flag and
//! no defaults file (Spark 4.0's ConfigEntry defaults, as `src/conf/settings.rs` reads them),
//! changed a few fields at a time ("defaults, with queue X, maxAppAttempts 2, tags ...").
//!
//! The one source of these defaults is the root crate's `conf::settings::spark_settings`; the
//! actors crate cannot call it, so the root crate's `builder_defaults_equal_an_empty_spark_submit`
//! test compares this builder with that derivation, field for field, for an empty submission and
//! for one that sets every key a setter below writes. Each typed setter writes the field and the
//! Spark property the derivation would have read it from, so `properties` (what the driver hands
//! the executors) stays the merged conf of the same submission.

use super::config::{
    ExcludeOnFailureConf, LocalitySettings, SchedulingMode, ShuffleSettings, SparkSettings,
};
use std::collections::BTreeMap;

/// [`SparkSettings`] of an otherwise empty cluster-mode spark-submit, changed by its setters.
#[derive(Clone, Debug)]
pub struct SparkSettingsBuilder {
    settings: SparkSettings,
}

/// `spark.memory.offHeap.size` etc. are 0 and `spark.driver.memory` / `spark.executor.memory`
/// 1g (`DRIVER_MEMORY` / `EXECUTOR_MEMORY`, `createWithDefaultString("1g")`), MiB.
const DEFAULT_MEMORY_MB: u64 = 1024;

/// `ResourceProfile.MEMORY_OVERHEAD_MIN_MIB` (384): max(0.10 x 1024, 384) for a 1g JVM.
const DEFAULT_OVERHEAD_MB: u64 = 384;

impl SparkSettingsBuilder {
    /// `spark-submit --master yarn --deploy-mode cluster --class main_class primary_resource
    /// app_args...`: `spark.app.name` is the main class (SparkSubmit's `name` falls back to it),
    /// and the conf holds only what SparkSubmit sets itself.
    pub fn submit(main_class: &str, primary_resource: &str, app_args: &[&str]) -> Self {
        let properties: BTreeMap<String, String> = [
            ("spark.app.name", main_class),
            ("spark.master", "yarn"),
            ("spark.submit.deployMode", "cluster"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        SparkSettingsBuilder {
            settings: spark_submit_defaults(main_class, primary_resource, app_args, properties),
        }
    }

    /// `--name` / `spark.app.name`.
    pub fn app_name(mut self, name: &str) -> Self {
        self.settings.app_name = name.to_string();
        self.conf("spark.app.name", name)
    }

    /// `--queue` / `spark.yarn.queue`.
    pub fn queue(mut self, queue: &str) -> Self {
        self.settings.queue = queue.to_string();
        self.conf("spark.yarn.queue", queue)
    }

    /// `spark.yarn.maxAppAttempts`.
    pub fn max_app_attempts(mut self, attempts: u32) -> Self {
        self.settings.max_app_attempts = Some(attempts);
        self.conf("spark.yarn.maxAppAttempts", &attempts.to_string())
    }

    /// `spark.yarn.am.attemptFailuresValidityInterval`, written in ms.
    pub fn am_attempt_failures_validity_interval_ms(mut self, ms: u64) -> Self {
        self.settings.am_attempt_failures_validity_interval_ms = Some(ms);
        self.conf(
            "spark.yarn.am.attemptFailuresValidityInterval",
            &format!("{ms}ms"),
        )
    }

    /// `spark.yarn.tags`, written comma-separated (give them as SparkConf's `toSequence` reads
    /// them: trimmed, none empty).
    pub fn tags(mut self, tags: &[&str]) -> Self {
        self.settings.application_tags = tags.iter().map(|t| t.to_string()).collect();
        self.conf("spark.yarn.tags", &tags.join(","))
    }

    /// `spark.yarn.priority`.
    pub fn priority(mut self, priority: u32) -> Self {
        self.settings.application_priority = Some(priority);
        self.conf("spark.yarn.priority", &priority.to_string())
    }

    /// `spark.yarn.am.nodeLabelExpression`.
    pub fn am_node_label_expression(mut self, expression: &str) -> Self {
        self.settings.am_node_label_expression = Some(expression.to_string());
        self.conf("spark.yarn.am.nodeLabelExpression", expression)
    }

    /// `spark.driver.memory` and `spark.driver.memoryOverhead`, both written in MiB: the
    /// overhead is explicit because its default (max(factor x memory, minimum)) is derived in
    /// the root crate, not here.
    pub fn driver_memory_mb(mut self, memory_mb: u64, overhead_mb: u64) -> Self {
        self.settings.driver_memory_mb = memory_mb;
        self.settings.driver_memory_overhead_mb = overhead_mb;
        self.conf("spark.driver.memory", &format!("{memory_mb}m"))
            .conf("spark.driver.memoryOverhead", &format!("{overhead_mb}m"))
    }

    /// `--driver-cores` / `spark.driver.cores`.
    pub fn driver_cores(mut self, cores: u32) -> Self {
        self.settings.driver_cores = cores;
        self.conf("spark.driver.cores", &cores.to_string())
    }

    /// A property only: for the keys the actors read from `properties` themselves
    /// (`spark.yarn.dist.*`, `spark.yarn.appMasterEnv.*`, `spark.driver.extraJavaOptions`).
    pub fn conf(mut self, key: &str, value: &str) -> Self {
        self.settings
            .properties
            .insert(key.to_string(), value.to_string());
        self
    }

    /// Any other field, set directly (its property is left as it was).
    pub fn with(mut self, change: impl FnOnce(&mut SparkSettings)) -> Self {
        change(&mut self.settings);
        self
    }

    pub fn build(self) -> SparkSettings {
        self.settings
    }
}

/// Every field as `spark_settings` derives it from an empty conf (the values of its
/// `get_*(key, default)` calls, Spark 4.0's ConfigEntry defaults).
fn spark_submit_defaults(
    main_class: &str,
    primary_resource: &str,
    app_args: &[&str],
    properties: BTreeMap<String, String>,
) -> SparkSettings {
    SparkSettings {
        app_name: main_class.to_string(),
        main_class: main_class.to_string(),
        primary_resource: primary_resource.to_string(),
        app_args: app_args.iter().map(|a| a.to_string()).collect(),
        queue: "default".into(),
        include_driver_logs_link: false,
        history_server_address: None,
        am_node_label_expression: None,
        executor_node_label_expression: None,
        application_type: "SPARK".into(),
        driver_memory_mb: DEFAULT_MEMORY_MB,
        driver_memory_overhead_mb: DEFAULT_OVERHEAD_MB,
        driver_cores: 1,
        executor_memory_mb: DEFAULT_MEMORY_MB,
        executor_memory_overhead_mb: DEFAULT_OVERHEAD_MB,
        executor_offheap_mb: 0,
        executor_pyspark_memory_mb: 0,
        executor_cores: 1,
        executor_instances: None,
        task_cpus: 1,
        task_max_failures: 4,
        driver_max_result_size: 1 << 30,
        max_direct_result_size: 1 << 20,
        scheduler_mode: SchedulingMode::default(),
        allocation_file: None,
        shuffle: ShuffleSettings::default(),
        barrier_check: Default::default(),
        locality: LocalitySettings::default(),
        am_wait_time_ms: 100_000,
        max_app_attempts: None,
        am_attempt_failures_validity_interval_ms: None,
        application_tags: Vec::new(),
        application_priority: None,
        max_executor_failures: None,
        executor_failures_validity_interval_ms: None,
        report_interval_ms: 1000,
        report_logging_frequency: 30,
        wait_app_completion: true,
        am_heartbeat_interval_ms: 3000,
        initial_allocation_interval_ms: 200,
        reporter_max_failures: 5,
        min_registered_resources_ratio: 0.8,
        max_registered_resources_waiting_time_ms: 30_000,
        revive_interval_ms: 1000,
        ask_timeout_ms: 120_000,
        ask_timeout_property: "spark.rpc.askTimeout".into(),
        lookup_timeout_ms: 120_000,
        lookup_timeout_property: "spark.rpc.lookupTimeout".into(),
        network_timeout_ms: 120_000,
        executor_heartbeat_interval_ms: 10_000,
        exclude_nodes: Vec::new(),
        launch_exclude_on_failure: false,
        max_failed_executors_per_node: 2,
        exclude_on_failure_timeout_ms: 3_600_000,
        event_log_enabled: false,
        event_log_dir: "file:///tmp/spark-events".into(),
        event_log_dir_error: None,
        event_log_compress: true,
        event_log_rolling_max_file_size: None,
        properties,
        dynamic_allocation: None,
        decommission_enabled: false,
        decommission_force_kill_timeout_s: None,
        speculation: None,
        exclude_on_failure: ExcludeOnFailureConf::default(),
        unschedulable_task_set_timeout_ms: 120_000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The setters change their field and its property, nothing else.
    #[test]
    fn a_setter_writes_its_field_and_its_property() {
        let base = SparkSettingsBuilder::submit("org.example.Main", "app.jar", &[]).build();
        let s = SparkSettingsBuilder::submit("org.example.Main", "app.jar", &[])
            .queue("staging")
            .max_app_attempts(2)
            .tags(&["a", "b"])
            .build();
        assert_eq!(
            (
                s.queue.as_str(),
                s.max_app_attempts,
                s.application_tags.len()
            ),
            ("staging", Some(2), 2)
        );
        let p = |k: &str| s.properties.get(k).map(String::as_str);
        assert_eq!(p("spark.yarn.queue"), Some("staging"));
        assert_eq!(p("spark.yarn.maxAppAttempts"), Some("2"));
        assert_eq!(p("spark.yarn.tags"), Some("a,b"));
        let restored = SparkSettings {
            queue: base.queue.clone(),
            max_app_attempts: None,
            application_tags: Vec::new(),
            properties: base.properties.clone(),
            ..s
        };
        assert_eq!(restored, base);
    }
}
