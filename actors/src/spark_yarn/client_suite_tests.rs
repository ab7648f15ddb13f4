//! Spark's `ClientSuite` (resource-managers/yarn/src/test/.../deploy/yarn/ClientSuite.scala)
//! cases the simulated Client can run, against its plain core `client_submission`
//! (`Client.createApplicationSubmissionContext` / `createContainerLaunchContext` /
//! `prepareLocalResources`), and the ApplicationMaster's attempt rules
//! (`application_master_state::am_rules`: its constructor, `YarnRMClient.getMaxRegAttempts`,
//! `isLastAttempt`; ApplicationMasterSuite's one case, the history URL, is in
//! application_master.rs). The settings come from `SparkSettingsBuilder`, whose defaults the
//! root crate proves equal to an empty spark-submit's; the cases that start from conf strings
//! (type truncation, tag parsing, refused resource keys, the AM's memory per deploy mode) run
//! there (src/conf/client_suite_tests.rs).

use crate::spark_yarn::application_master_state::{
    am_rules, is_last_attempt, max_reg_attempts, reporter_intervals,
};
use crate::spark_yarn::client_launch_context::{
    CONTAINER_CLASSPATH, DistEntry, Repeated, distributed_files,
};
use crate::spark_yarn::client_submission::{
    AmSubmission, am_container_launch_context, am_local_resources, am_resource,
    application_submission_context,
};
use crate::world::config::{SparkSettings, YarnSettings};
use crate::world::hadoop_conf::test_yarn_settings;
use crate::world::settings_builder::SparkSettingsBuilder;
use sparkyard_messages::ids::ApplicationId;
use sparkyard_messages::records::{ApplicationSubmissionContext, ContainerMain, LocalResource};

const STAGING: &str = "hdfs://rm:8020/user/alice/.sparkStaging/application_123456_0001";

fn app_id() -> ApplicationId {
    ApplicationId {
        cluster_timestamp: 123456,
        id: 1,
    }
}

fn builder() -> SparkSettingsBuilder {
    SparkSettingsBuilder::submit("org.example.Main", "/jobs/app.jar", &["10"])
}

fn submission() -> AmSubmission<'static> {
    AmSubmission {
        app_id: app_id(),
        user: "alice",
        staging_dir: STAGING,
        libs_stamp_ms: 1764662400123,
        submit_time_ms: Some(1764662400000),
        yarn_knows_gpu: true,
    }
}

fn context(s: &SparkSettings) -> ApplicationSubmissionContext {
    application_submission_context(s, &submission()).expect("no file is distributed twice")
}

fn links(resources: &[LocalResource]) -> Vec<&str> {
    resources.iter().map(|r| r.link.as_str()).collect()
}

fn env<'a>(c: &'a ApplicationSubmissionContext, name: &str) -> Option<&'a str> {
    let e = &c.am_container_spec.environment;
    e.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Ports ClientSuite "configuration and args propagate through
/// createApplicationSubmissionContext" whole (Client.createApplicationSubmissionContext):
/// `spark.yarn.tags` ",tag1, dup,tag2 , ,multi word , dup" as SparkConf's `toSequence` reads it
/// (the root crate's port checks that reading), maxAppAttempts 42, the app name, the queue,
/// priority 1; the type is "SPARK" and the AM container spec is the launch context built for it.
#[test]
fn configuration_and_args_propagate_through_create_application_submission_context() {
    let s = builder()
        .tags(&["tag1", "dup", "tag2", "multi word", "dup"])
        .max_app_attempts(42)
        .app_name("foo-test-app")
        .queue("staging-queue")
        .priority(1)
        .build();
    let c = context(&s);
    assert_eq!(c.application_name, "foo-test-app");
    assert_eq!(c.queue, "staging-queue");
    assert_eq!(
        c.am_container_spec,
        am_container_launch_context(&s, &submission()).unwrap()
    );
    assert_eq!(c.application_type, "SPARK");
    for t in ["tag1", "dup", "tag2", "multi word"] {
        assert!(c.application_tags.iter().any(|x| x == t), "{t}");
    }
    assert_eq!(
        c.application_tags.iter().filter(|t| !t.is_empty()).count(),
        4
    );
    assert_eq!(c.max_app_attempts, Some(42));
    assert_eq!(c.priority, Some(1));
}

/// ClientSuite "configuration and args propagate ...", the keys the suite leaves unset:
/// createApplicationSubmissionContext calls setMaxAppAttempts (`case None => logDebug`),
/// setAttemptFailuresValidityInterval, setPriority and setApplicationTags only through
/// `Option.foreach`, so an empty submission sets none of them (YARN's defaults apply).
#[test]
fn unset_submission_keys_leave_yarn_its_defaults() {
    let c = context(&builder().build());
    assert_eq!(c.max_app_attempts, None);
    assert_eq!(c.attempt_failures_validity_interval_ms, None);
    assert_eq!(c.priority, None);
    assert!(c.application_tags.is_empty());
    assert_eq!(c.am_node_label_expression, None);
    assert_eq!(
        (c.application_name.as_str(), c.queue.as_str()),
        ("org.example.Main", "default")
    );
}

/// Client.createApplicationSubmissionContext: `AM_ATTEMPT_FAILURE_VALIDITY_INTERVAL_MS.foreach(
/// setAttemptFailuresValidityInterval)`, in ms.
#[test]
fn the_attempt_failures_validity_interval_propagates() {
    let s = builder()
        .am_attempt_failures_validity_interval_ms(3_600_000)
        .build();
    assert_eq!(
        context(&s).attempt_failures_validity_interval_ms,
        Some(3_600_000)
    );
}

/// Client.createApplicationSubmissionContext: `setApplicationTags(new java.util.HashSet(tags))`:
/// a repeated tag is kept once (the set's order is YARN's; sparkyard keeps the first
/// occurrence's).
#[test]
fn tags_are_a_set() {
    let s = builder().tags(&["a", "b", "a", "c", "b"]).build();
    assert_eq!(context(&s).application_tags, ["a", "b", "c"]);
}

/// The AM's capability in Client.createApplicationSubmissionContext (spark-yarn_2.13-4.0.0.jar;
/// the 4.0 ClientSuite's "resource request (cluster mode)" case, whose text the searchable
/// index does not hold): `amMemory + amMemoryOverhead` MiB and `amCores` vcores, in cluster
/// mode spark.driver.memory, its overhead and spark.driver.cores.
#[test]
fn resource_request_cluster_mode() {
    let s = builder()
        .driver_memory_mb(4096, 409)
        .driver_cores(3)
        .build();
    let r = context(&s).am_resource;
    assert_eq!((r.memory_mb, r.vcores), (4505, 3));
}

/// Client.createApplicationSubmissionContext with its defaults: a 1g driver and the 384 MiB
/// minimum overhead (ResourceProfile.MEMORY_OVERHEAD_MIN_MIB), one core.
#[test]
fn the_default_am_resource_is_1408_mib_and_one_core() {
    let r = context(&builder().build()).am_resource;
    assert_eq!((r.memory_mb, r.vcores), (1408, 1));
}

/// Client.createApplicationSubmissionContext (Spark 4.0): in cluster mode `amResources` adds
/// `getYarnResourcesFromSparkResources(SPARK_DRIVER_PREFIX)`, so spark.driver.resource.gpu.amount
/// reaches the AM's capability as yarn.io/gpu; a client whose YARN lacks the type asks without
/// it (setResourceRequests' ResourceNotFoundException warning).
#[test]
fn the_drivers_gpus_reach_the_am_capability_when_yarn_knows_the_type() {
    let s = builder()
        .with(|s| {
            s.properties
                .insert("spark.driver.resource.gpu.amount".into(), "1".into());
        })
        .build();
    let r = context(&s).am_resource;
    assert_eq!((r.memory_mb, r.vcores, r.gpus), (1408, 1, 1));
    let unknown = AmSubmission {
        yarn_knows_gpu: false,
        ..submission()
    };
    let c = application_submission_context(&s, &unknown).unwrap();
    assert_eq!(c.am_resource.gpus, 0);
    assert_eq!(am_resource(&s, false).warnings.len(), 1);
}

/// Client.createApplicationSubmissionContext: with AM_NODE_LABEL_EXPRESSION set, the AM's
/// resource goes in an ANY ResourceRequest carrying the expression
/// (`setAMContainerResourceRequests`) with the same capability.
#[test]
fn the_am_node_label_expression_reaches_the_am_request() {
    let s = builder()
        .am_node_label_expression("gpu")
        .driver_memory_mb(2048, 384)
        .build();
    let c = context(&s);
    assert_eq!(c.am_node_label_expression.as_deref(), Some("gpu"));
    assert_eq!(c.am_resource.memory_mb, 2432);
}

/// Client.createContainerLaunchContext (cluster mode): the AM's JVM gets `-Xmx` of
/// spark.driver.memory (not the container's size) and ApplicationMaster's arguments.
#[test]
fn the_am_command_carries_the_driver_heap_and_the_user_class() {
    let s = builder().driver_memory_mb(4096, 409).build();
    let c = context(&s);
    let cmd = &c.am_container_spec.commands[0];
    assert!(cmd.contains(" -Xmx4096m "), "{cmd}");
    assert!(
        cmd.contains(
            "ApplicationMaster --class 'org.example.Main' --jar /jobs/app.jar --arg '10' "
        ),
        "{cmd}"
    );
    assert_eq!(
        c.am_container_spec.main,
        ContainerMain::ApplicationMaster {
            user_class: "org.example.Main".into(),
            jar: "/jobs/app.jar".into(),
            args: vec!["10".into()],
            submit_time_ms: Some(1764662400000),
        }
    );
}

/// Client.createContainerLaunchContext: spark.driver.extraJavaOptions in the AM's command with
/// `{{APP_ID}}` replaced by the application's id (Utils.substituteAppId).
#[test]
fn driver_java_options_get_the_application_id() {
    let s = builder()
        .conf("spark.driver.extraJavaOptions", "-Dlog={{APP_ID}}.log")
        .build();
    let cmd = &context(&s).am_container_spec.commands[0];
    assert!(
        cmd.contains(" '-Dlog=application_123456_0001.log' "),
        "{cmd}"
    );
}

/// Client.setupLaunchEnv for the AM: the container classpath, the staging directory, the
/// submitting user, and spark.yarn.appMasterEnv.* entries.
#[test]
fn the_am_environment_names_the_staging_dir_and_the_user() {
    let s = builder().conf("spark.yarn.appMasterEnv.TZ", "UTC").build();
    let c = context(&s);
    assert_eq!(env(&c, "CLASSPATH"), Some(CONTAINER_CLASSPATH));
    assert_eq!(env(&c, "SPARK_YARN_STAGING_DIR"), Some(STAGING));
    assert_eq!(env(&c, "SPARK_USER"), Some("alice"));
    assert_eq!(env(&c, "TZ"), Some("UTC"));
    assert_eq!(c.user, "alice");
}

/// Client.prepareLocalResources (cluster mode, neither spark.yarn.jars nor spark.yarn.archive):
/// `__spark_libs__` (the SPARK_HOME jars' archive), `__app__.jar`, then the conf archive last.
#[test]
fn local_resources_are_the_libs_the_app_jar_and_the_conf_archive() {
    let s = builder().build();
    let r = am_local_resources(&s, STAGING, 7).unwrap();
    assert_eq!(
        links(&r),
        ["__spark_libs__", "__app__.jar", "__spark_conf__"]
    );
    assert_eq!(r[0].source, format!("{STAGING}/__spark_libs__7.zip"));
    assert!(r[0].archive && !r[1].archive && r[2].archive);
    assert_eq!(r[1].source, format!("{STAGING}/app.jar"));
    assert_eq!(r[2].source, format!("{STAGING}/__spark_conf__.zip"));
}

/// Ports ClientSuite "Jar path propagation through SparkConf" (Client.prepareLocalResources /
/// `distribute`): of spark.yarn.dist.jars "local:/addJar1,local:/addJar2,/addJar3" only the
/// non-local jar is distributed, by name into the staging directory; a `local:` URI is on
/// every node and becomes no LocalResource (`distribute` returns `(false, null)` for
/// Utils.LOCAL_SCHEME, read in spark-yarn_2.13-4.0.0.jar). sparkyard made resources of them
/// until this port.
#[test]
fn jar_path_propagation_through_spark_conf() {
    let s = builder()
        .conf(
            "spark.yarn.dist.jars",
            "local:/addJar1,local:/addJar2,/addJar3",
        )
        .build();
    let r = am_local_resources(&s, STAGING, 7).unwrap();
    assert_eq!(
        links(&r),
        ["__spark_libs__", "__app__.jar", "addJar3", "__spark_conf__"]
    );
    assert_eq!(r[2].source, format!("{STAGING}/addJar3"));
}

/// Client.prepareLocalResources' distributed cache in Spark's order (jars, files, archives as
/// ARCHIVE, then pyFiles), each linked under its `#fragment` or its name; a file already on a
/// remote file system is used in place (`copyFileToRemote` does not copy within one file
/// system).
#[test]
fn the_distributed_cache_keeps_spark_order_fragments_and_remote_sources() {
    let s = builder()
        .conf("spark.yarn.dist.archives", "/data/env.tgz#env")
        .conf(
            "spark.yarn.dist.files",
            "hdfs://nn:8020/conf/a.conf,/etc/b.conf#bee",
        )
        .conf("spark.yarn.dist.pyFiles", "/py/lib.py")
        .conf("spark.yarn.dist.jars", "/jars/x.jar")
        .build();
    let r = am_local_resources(&s, STAGING, 7).unwrap();
    assert_eq!(
        links(&r),
        [
            "__spark_libs__",
            "__app__.jar",
            "x.jar",
            "a.conf",
            "bee",
            "env",
            "__pyfiles__/lib.py",
            "__spark_conf__"
        ]
    );
    assert_eq!(r[3].source, "hdfs://nn:8020/conf/a.conf");
    assert_eq!(r[4].source, format!("{STAGING}/b.conf"));
    assert!(r[5].archive && !r[4].archive);
}

/// Client.prepareLocalResources (spark-yarn_2.13-4.0.0.jar, `$anonfun$prepareLocalResources$29`):
/// only a pyFile whose entry ends with ".py" goes under `__pyfiles__/`; a `.zip` or `.egg` is
/// linked at the container's top level. sparkyard put every pyFile under `__pyfiles__/`, before
/// the files, until this port.
#[test]
fn only_py_files_go_under_the_python_dir_after_the_archives() {
    let s = builder()
        .conf(
            "spark.yarn.dist.pyFiles",
            "/py/deps.zip,/py/main.py,/py/egg.egg",
        )
        .conf("spark.yarn.dist.files", "/etc/b.conf")
        .build();
    let r = am_local_resources(&s, STAGING, 7).unwrap();
    assert_eq!(
        links(&r),
        [
            "__spark_libs__",
            "__app__.jar",
            "b.conf",
            "deps.zip",
            "__pyfiles__/main.py",
            "egg.egg",
            "__spark_conf__"
        ]
    );
}

fn refusal(s: &SparkSettings) -> String {
    let e = am_local_resources(s, STAGING, 7).expect_err("refused");
    assert_eq!(e.class, "java.lang.IllegalArgumentException");
    e.message
}

/// Ports ClientSuite "distribute archive multiple times" (Client.prepareLocalResources:
/// `addDistributedUri` refuses a URI or a file name seen before, and a refused file or archive
/// throws): the same file in spark.yarn.dist.files and .archives, twice in .files, twice in
/// .archives are refused; once in either is accepted.
#[test]
fn distribute_archive_multiple_times() {
    let jar = "file:/tmp/userLib1/testJar.jar";
    let both = builder()
        .conf("spark.yarn.dist.files", jar)
        .conf("spark.yarn.dist.archives", jar)
        .build();
    assert_eq!(
        refusal(&both),
        "Attempt to add (file:/tmp/userLib1/testJar.jar) multiple times to the distributed cache."
    );
    let twice = format!("{jar},{jar}");
    for key in ["spark.yarn.dist.files", "spark.yarn.dist.archives"] {
        let s = builder().conf(key, &twice).build();
        assert!(refusal(&s).starts_with("Attempt to add ("), "{key}");
        let once = builder().conf(key, jar).build();
        assert!(am_local_resources(&once, STAGING, 7).is_ok(), "{key}");
    }
}

/// Ports ClientSuite "ignore same name jars" (Client.prepareLocalResources): a second jar of
/// the same file name is skipped with `addDistributedUri`'s warning, not refused; only the
/// first is distributed.
#[test]
fn ignore_same_name_jars() {
    let s = builder()
        .conf(
            "spark.yarn.dist.jars",
            "file:/tmp/userLib1/jar2.jar,file:/tmp/userLib2/jar2.jar",
        )
        .build();
    let cache = distributed_files(&s, STAGING, 7);
    assert_eq!(cache.refused, None);
    let sources: Vec<&str> = cache
        .distributed()
        .map(|d| d.resource.source.as_str())
        .collect();
    assert_eq!(sources, [format!("{STAGING}/jar2.jar")]);
    assert_eq!(
        cache.entries[1],
        DistEntry::Repeated {
            repeated: Repeated::Name,
            uri: "file:/tmp/userLib2/jar2.jar".into()
        }
    );
}

/// Client.prepareLocalResources distributes the application jar before the user's files
/// (`distribute(userJar, destName = __app__.jar)`), so a file of the jar's name is a repeated
/// name; a bare path is compared as Utils.resolveURI makes it (`file:` + its absolute path).
#[test]
fn a_file_named_like_the_app_jar_is_a_repeat() {
    let s = builder()
        .conf("spark.yarn.dist.files", "/other/app.jar")
        .build();
    assert!(refusal(&s).contains("(/other/app.jar)"));
    let cache = distributed_files(&s, STAGING, 7);
    assert_eq!(
        cache.entries,
        [DistEntry::Repeated {
            repeated: Repeated::Name,
            uri: "file:/other/app.jar".into()
        }]
    );
    let same = builder()
        .conf("spark.yarn.dist.pyFiles", "/jobs/app.jar,/py/a.py")
        .build();
    let cache = distributed_files(&same, STAGING, 7);
    assert_eq!(cache.refused, None, "a repeated pyFile is only skipped");
    assert!(matches!(
        cache.entries[0],
        DistEntry::Repeated {
            repeated: Repeated::Path,
            ..
        }
    ));
    assert_eq!(cache.distributed().count(), 1);
}

/// The launch context's resources are the submission's (one list the NodeManager localizes).
#[test]
fn the_am_container_spec_localizes_the_local_resources() {
    let s = builder()
        .conf("spark.yarn.dist.files", "/etc/b.conf")
        .build();
    let c = context(&s);
    assert_eq!(
        &*c.am_container_spec.local_resources,
        am_local_resources(&s, STAGING, 1764662400123)
            .unwrap()
            .as_slice()
    );
}

fn yarn(am_max_attempts: u32) -> YarnSettings {
    YarnSettings {
        am_max_attempts,
        ..test_yarn_settings()
    }
}

/// YarnRMClient.getMaxRegAttempts (spark-yarn_2.13-4.0.0.jar): spark.yarn.maxAppAttempts when
/// it is at most yarn.resourcemanager.am.max-attempts, YARN's otherwise, YARN's when unset.
#[test]
fn max_app_attempts_is_capped_by_yarn_am_max_attempts() {
    let unset = builder().build();
    assert_eq!(max_reg_attempts(&unset, &yarn(2)), 2);
    assert_eq!(max_reg_attempts(&unset, &yarn(4)), 4);
    let one = builder().max_app_attempts(1).build();
    assert_eq!(max_reg_attempts(&one, &yarn(2)), 1);
    let five = builder().max_app_attempts(5).build();
    assert_eq!(max_reg_attempts(&five, &yarn(2)), 2);
    assert_eq!(max_reg_attempts(&five, &yarn(5)), 5);
    assert_eq!(max_reg_attempts(&five, &yarn(7)), 5);
}

/// ApplicationMaster.run's shutdown hook: `isLastAttempt = attemptId >= maxAppAttempts`.
#[test]
fn is_last_attempt_compares_the_attempt_id_with_the_maximum() {
    assert!(!is_last_attempt(1, 2));
    assert!(is_last_attempt(2, 2));
    assert!(is_last_attempt(1, 1));
    assert!(is_last_attempt(3, 2));
}

/// ApplicationMaster: the attempt rules from the settings: with maxAppAttempts 1 the first
/// attempt is the last (so its shutdown hook unregisters even on failure); unset, YARN's 2
/// leaves the first attempt a retry.
#[test]
fn the_first_attempt_is_last_only_when_the_maximum_is_one() {
    let y = yarn(2);
    assert!(!am_rules(&builder().build(), &y, 1).last_attempt);
    assert!(am_rules(&builder().build(), &y, 2).last_attempt);
    assert!(am_rules(&builder().max_app_attempts(1).build(), &y, 1).last_attempt);
    assert!(!am_rules(&builder().max_app_attempts(3).build(), &yarn(4), 2).last_attempt);
}

/// ApplicationMaster's constructor (spark-yarn_2.13-4.0.0.jar): `heartbeatInterval = max(0,
/// min(expiryInterval / 2, spark.yarn.scheduler.heartbeat.interval-ms))`, and the initial
/// allocation interval at most that.
#[test]
fn the_heartbeat_is_at_most_half_the_am_expiry() {
    let s = builder().build();
    let i = reporter_intervals(&s, &test_yarn_settings());
    assert_eq!((i.heartbeat_ms, i.initial_ms), (3000, 200));
    let short = YarnSettings {
        am_liveness_expiry_interval_ms: 4001,
        ..test_yarn_settings()
    };
    assert_eq!(reporter_intervals(&s, &short).heartbeat_ms, 2000);
    let slow_start = builder()
        .with(|s| s.initial_allocation_interval_ms = 5000)
        .build();
    let i = reporter_intervals(&slow_start, &short);
    assert_eq!((i.heartbeat_ms, i.initial_ms), (2000, 2000));
}

/// ApplicationMaster: `spark.yarn.scheduler.reporterThread.maxFailures` (5) and the allocator's
/// executor-failure limit (ExecutorFailureTracker.maxNumExecutorFailures: max(3, 2 x
/// spark.executor.instances) when unset) reach the AM's rules.
#[test]
fn reporter_and_executor_failure_limits_reach_the_rules() {
    let y = test_yarn_settings();
    let r = am_rules(&builder().build(), &y, 1);
    assert_eq!((r.max_reporter_failures, r.max_executor_failures), (5, 3));
    let s = builder()
        .with(|s| {
            s.executor_instances = Some(8);
            s.reporter_max_failures = 2;
        })
        .build();
    let r = am_rules(&s, &y, 1);
    assert_eq!((r.max_reporter_failures, r.max_executor_failures), (2, 16));
}
