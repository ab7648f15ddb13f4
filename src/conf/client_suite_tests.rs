//! Spark's `ClientSuite` cases that start from a SparkConf (ClientSuite.scala,
//! resource-managers/yarn/src/test/.../deploy/yarn), run through sparkyard's derivation of the
//! settings (`settings::spark_settings`, mirroring the ConfigEntries and the Client's
//! constructor), and the proof that the actors' `SparkSettingsBuilder` starts from the same
//! settings an empty spark-submit gets. The submission context built from those settings is
//! tested in actors/src/spark_yarn/client_suite_tests.rs.

use super::settings::spark_settings;
use super::submit::DefaultsFile;
use crate::error::UserError;
use sparkyard_actors::simulation::config::SparkSettings;
use sparkyard_actors::simulation::settings_builder::SparkSettingsBuilder;

/// `spark-submit --master yarn --deploy-mode cluster --class org.example.Pi <extra> app.jar 10`.
fn settings(extra: &[&str]) -> Result<SparkSettings, UserError> {
    let args = super::submit::tests::parse(&[extra, &["app.jar", "10"]].concat());
    spark_settings(&args.into_request(DefaultsFile::Embedded(""))?)
}

fn conf(pairs: &[(&str, &str)]) -> SparkSettings {
    let words: Vec<String> = pairs
        .iter()
        .flat_map(|(k, v)| ["--conf".to_string(), format!("{k}={v}")])
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    settings(&words).expect("the conf is accepted")
}

fn builder() -> SparkSettingsBuilder {
    SparkSettingsBuilder::submit("org.example.Pi", "app.jar", &["10"])
}

/// The builder's defaults are an empty spark-submit's, every field (the test builder's one
/// source of defaults is this derivation).
#[test]
fn builder_defaults_equal_an_empty_spark_submit() {
    assert_eq!(builder().build(), settings(&[]).unwrap());
}

/// Each typed setter of the builder gives what the derivation reads from its key.
#[test]
fn builder_setters_equal_the_keys_they_write() {
    let built = builder()
        .app_name("foo-test-app")
        .queue("staging-queue")
        .max_app_attempts(42)
        .am_attempt_failures_validity_interval_ms(3_600_000)
        .tags(&["tag1", "dup", "multi word"])
        .priority(1)
        .am_node_label_expression("gpu")
        .driver_memory_mb(4096, 500)
        .driver_cores(3)
        .build();
    let derived = conf(&[
        ("spark.app.name", "foo-test-app"),
        ("spark.yarn.queue", "staging-queue"),
        ("spark.yarn.maxAppAttempts", "42"),
        ("spark.yarn.am.attemptFailuresValidityInterval", "3600000ms"),
        ("spark.yarn.tags", "tag1,dup,multi word"),
        ("spark.yarn.priority", "1"),
        ("spark.yarn.am.nodeLabelExpression", "gpu"),
        ("spark.driver.memory", "4096m"),
        ("spark.driver.memoryOverhead", "500m"),
        ("spark.driver.cores", "3"),
    ]);
    assert_eq!(built, derived);
}

/// Ports ClientSuite "configuration and args propagate through
/// createApplicationSubmissionContext", its SparkConf: `spark.yarn.tags` ",tag1, dup,tag2 ,
/// ,multi word , dup" (APPLICATION_TAGS is `toSequence`: split on commas, trimmed, empties
/// dropped), MAX_APP_ATTEMPTS 42, spark.app.name, QUEUE_NAME, APPLICATION_PRIORITY 1, type
/// "SPARK" by default. The context these settings give is checked in the actors' port.
#[test]
fn configuration_and_args_propagate_through_create_application_submission_context() {
    let s = conf(&[
        ("spark.yarn.tags", ",tag1, dup,tag2 , ,multi word , dup"),
        ("spark.yarn.maxAppAttempts", "42"),
        ("spark.app.name", "foo-test-app"),
        ("spark.yarn.queue", "staging-queue"),
        ("spark.yarn.priority", "1"),
    ]);
    assert_eq!(
        s.application_tags,
        ["tag1", "dup", "tag2", "multi word", "dup"]
    );
    assert_eq!(s.max_app_attempts, Some(42));
    assert_eq!(
        (s.app_name.as_str(), s.queue.as_str()),
        ("foo-test-app", "staging-queue")
    );
    assert_eq!(s.application_priority, Some(1));
    assert_eq!(s.application_type, "SPARK");
}

/// Ports ClientSuite "specify a more specific type for the application": "" and " " stay as
/// they are, "SPARK-SQL" too, and YARN (ClientRMService.submitApplication) keeps 20 characters
/// of "012345678901234567890123".
#[test]
fn specify_a_more_specific_type_for_the_application() {
    for (source, target) in [
        ("", ""),
        (" ", " "),
        ("SPARK-SQL", "SPARK-SQL"),
        ("012345678901234567890123", "01234567890123456789"),
    ] {
        let s = conf(&[("spark.yarn.applicationType", source)]);
        assert_eq!(s.application_type, target, "{source:?}");
    }
}

/// Ports ClientSuite "custom driver resource request yarn config and spark config fails"
/// (ResourceRequestHelper.validateResources): spark.yarn.driver.resource.yarn.io/{gpu,fpga}
/// .amount next to spark.driver.resource.{gpu,fpga}.amount is refused, naming both keys.
#[test]
fn custom_driver_resource_request_yarn_config_and_spark_config_fails() {
    let e = settings(&[
        "--conf",
        "spark.yarn.driver.resource.yarn.io/gpu.amount=2",
        "--conf",
        "spark.yarn.driver.resource.yarn.io/fpga.amount=2",
        "--conf",
        "spark.driver.resource.gpu.amount=3",
        "--conf",
        "spark.driver.resource.fpga.amount=3",
    ])
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "Do not use spark.yarn.driver.resource.yarn.io/fpga.amount, please use spark.driver.resource.fpga.amount"
        ),
        "{e}"
    );
    assert!(
        e.contains(
            "Do not use spark.yarn.driver.resource.yarn.io/gpu.amount, please use spark.driver.resource.gpu.amount"
        ),
        "{e}"
    );
}

/// Ports ClientSuite "custom executor resource request yarn config and spark config fails"
/// (ResourceRequestHelper.validateResources), the executors' keys.
#[test]
fn custom_executor_resource_request_yarn_config_and_spark_config_fails() {
    let e = settings(&[
        "--conf",
        "spark.yarn.executor.resource.yarn.io/gpu.amount=2",
        "--conf",
        "spark.yarn.executor.resource.yarn.io/fpga.amount=2",
        "--conf",
        "spark.executor.resource.gpu.amount=3",
        "--conf",
        "spark.executor.resource.fpga.amount=3",
    ])
    .unwrap_err()
    .to_string();
    for name in ["fpga", "gpu"] {
        let text = format!(
            "Do not use spark.yarn.executor.resource.yarn.io/{name}.amount, please use spark.executor.resource.{name}.amount"
        );
        assert!(e.contains(&text), "{e}");
    }
}

/// Client's constructor (spark-yarn_2.13-4.0.0.jar), cluster mode: `amMemory` is
/// spark.driver.memory, `amMemoryOverhead` spark.driver.memoryOverhead or max(0.10 x memory,
/// spark.driver.minMemoryOverhead), `amCores` spark.driver.cores; spark.yarn.am.memory /
/// .memoryOverhead / .cores are client mode's and change nothing here.
#[test]
fn the_am_resource_is_the_drivers_in_cluster_mode() {
    let s = conf(&[
        ("spark.driver.memory", "4g"),
        ("spark.driver.cores", "2"),
        ("spark.yarn.am.memory", "8g"),
        ("spark.yarn.am.memoryOverhead", "1g"),
        ("spark.yarn.am.cores", "4"),
    ]);
    assert_eq!(
        (
            s.driver_memory_mb,
            s.driver_memory_overhead_mb,
            s.driver_cores
        ),
        (4096, 409, 2)
    );
    assert_eq!(s.am_container_memory_mb(), 4505);
}

/// Client.amMemoryOverhead (cluster mode): spark.driver.minMemoryOverhead raises the floor of
/// the factor's overhead, and an explicit spark.driver.memoryOverhead wins over both.
#[test]
fn the_am_overhead_has_the_drivers_minimum_unless_set() {
    let s = conf(&[("spark.driver.minMemoryOverhead", "500m")]);
    assert_eq!(s.am_container_memory_mb(), 1524);
    let s = conf(&[
        ("spark.driver.minMemoryOverhead", "500m"),
        ("spark.driver.memoryOverhead", "100m"),
    ]);
    assert_eq!(s.am_container_memory_mb(), 1124);
}

/// The AM runs only in cluster mode here: client mode (where spark.yarn.am.* size the AM) is
/// refused with how to fix it, rather than sized as cluster mode.
#[test]
fn resource_request_client_mode_is_refused() {
    let args = super::submit::tests::parse(&["--deploy-mode", "client", "app.jar"]);
    let e = args
        .into_request(DefaultsFile::Embedded(""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--deploy-mode cluster"), "{e}");
}
