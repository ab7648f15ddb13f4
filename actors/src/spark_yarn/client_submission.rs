//! The AM's submission as a plain function of the run's settings: Spark's
//! `Client.createContainerLaunchContext` (the AM container's command, environment and local
//! resources, cluster mode) and `Client.createApplicationSubmissionContext` (name, queue, type,
//! attempts, attempt-failure window, tags, priority, the AM's resource or its node-label
//! request), spark-yarn_2.13-4.0.0.jar's `org.apache.spark.deploy.yarn.Client`. The Client actor
//! logs the upload lines, then sends what this returns; ClientSuite's cases run against it
//! (`client_suite_tests`).

use crate::spark_yarn::client_launch_context::{am_command, am_environment, distributed_files};
use crate::spark_yarn::resource_request_helper::{Component, CustomRequest, set_resource_requests};
use crate::world::config::SparkSettings;
use sparkyard_messages::ids::ApplicationId;
use sparkyard_messages::records::{
    ApplicationSubmissionContext, ContainerLaunchContext, ContainerMain, LocalResource, Resource,
    RpcFailure,
};

/// What the submission needs besides the settings: the RM's application id, who submits, where
/// the staging directory is and the two times the Client stamps.
#[derive(Clone, Copy, Debug)]
pub struct AmSubmission<'a> {
    pub app_id: ApplicationId,
    /// The submitting user (`UserGroupInformation.getCurrentUser`).
    pub user: &'a str,
    /// `<fs>/user/<user>/.sparkStaging/<app id>`.
    pub staging_dir: &'a str,
    /// The epoch ms in `__spark_libs__<ms>.zip` (`Client.prepareLocalResources` names the
    /// archive of SPARK_HOME's jars after `System.currentTimeMillis`).
    pub libs_stamp_ms: u64,
    /// `spark.app.submitTime` as SparkSubmit set it, written into the conf archive.
    pub submit_time_ms: Option<u64>,
    /// Whether the client's `ResourceUtils` knows `yarn.io/gpu` (`yarn.resource-types`).
    pub yarn_knows_gpu: bool,
}

/// The application jar's name in the staging directory (`new Path(...).getName`).
pub fn app_jar_name(s: &SparkSettings) -> &str {
    s.primary_resource
        .rsplit('/')
        .next()
        .unwrap_or(&s.primary_resource)
}

/// `Client.prepareLocalResources` in cluster mode without `spark.yarn.jars` /
/// `spark.yarn.archive`: SPARK_HOME's jars as the `__spark_libs__` archive, the user's jar as
/// `__app__.jar`, the `spark.yarn.dist.*` files in Spark's order, then the `__spark_conf__`
/// archive; a file or archive given twice throws as Spark's does.
pub fn am_local_resources(
    s: &SparkSettings,
    staging: &str,
    libs_stamp_ms: u64,
) -> Result<Vec<LocalResource>, RpcFailure> {
    let cache = distributed_files(s, staging, libs_stamp_ms);
    if let Some(e) = cache.refused {
        return Err(e);
    }
    let mut resources = vec![
        LocalResource {
            link: "__spark_libs__".into(),
            source: format!("{staging}/__spark_libs__{libs_stamp_ms}.zip"),
            archive: true,
        },
        LocalResource {
            link: "__app__.jar".into(),
            source: format!("{staging}/{}", app_jar_name(s)),
            archive: false,
        },
    ];
    resources.extend(cache.distributed().map(|d| d.resource.clone()));
    resources.push(LocalResource {
        link: "__spark_conf__".into(),
        source: format!("{staging}/__spark_conf__.zip"),
        archive: true,
    });
    Ok(resources)
}

/// `Client.createContainerLaunchContext` for the AM (cluster mode): its command, the
/// environment of `setupLaunchEnv`, the local resources, and the user class it runs.
pub fn am_container_launch_context(
    s: &SparkSettings,
    a: &AmSubmission,
) -> Result<ContainerLaunchContext, RpcFailure> {
    Ok(ContainerLaunchContext {
        commands: vec![am_command(s, &a.app_id.to_string())],
        environment: am_environment(s, a.staging_dir.to_string(), a.user),
        local_resources: am_local_resources(s, a.staging_dir, a.libs_stamp_ms)?.into(),
        main: ContainerMain::ApplicationMaster {
            user_class: s.main_class.clone(),
            jar: s.primary_resource.clone(),
            args: s.app_args.clone(),
            submit_time_ms: a.submit_time_ms,
        },
    })
}

/// `Client.createApplicationSubmissionContext` (spark-yarn_2.13-4.0.0.jar), cluster mode:
/// `setApplicationName` / `setQueue` / `setApplicationType`, then `setApplicationTags` (a java
/// HashSet), `setMaxAppAttempts`, `setAttemptFailuresValidityInterval` and `setPriority` only
/// when their keys are set; the AM's resource is `amMemory + amMemoryOverhead` MiB and
/// `amCores` vcores, which in cluster mode are the driver's (`spark.driver.memory`, its
/// overhead, `spark.driver.cores`); with `spark.yarn.am.nodeLabelExpression` it goes in an ANY
/// ResourceRequest (priority 0, one container) carrying the expression instead of
/// `setResource`.
pub fn application_submission_context(
    s: &SparkSettings,
    a: &AmSubmission,
) -> Result<ApplicationSubmissionContext, RpcFailure> {
    Ok(ApplicationSubmissionContext {
        application_id: a.app_id,
        application_name: s.app_name.clone(),
        queue: s.queue.clone(),
        application_type: s.application_type.clone(),
        max_app_attempts: s.max_app_attempts,
        application_tags: distinct(&s.application_tags),
        priority: s.application_priority,
        attempt_failures_validity_interval_ms: s.am_attempt_failures_validity_interval_ms,
        am_resource: am_resource(s, a.yarn_knows_gpu).capability,
        am_node_label_expression: s.am_node_label_expression.clone(),
        am_container_spec: am_container_launch_context(s, a)?,
        user: a.user.to_string(),
    })
}

/// `Client.createApplicationSubmissionContext`'s capability: `amMemory + amMemoryOverhead`
/// (`setMemorySize`) and `amCores` (`setVirtualCores`); in cluster mode `amMemory` is
/// `spark.driver.memory`, `amCores` `spark.driver.cores` (the Client's constructor picks the
/// driver's entries when `isClusterMode`; `spark.yarn.am.memory` / `.cores` are client mode's).
/// Then `setResourceRequests(amResources, capability)`: in cluster mode the driver's GPUs
/// (`getYarnResourcesFromSparkResources(SPARK_DRIVER_PREFIX)`), with Spark's warning when YARN
/// (`yarn_knows_gpu`: `yarn.resource-types`) does not know the type.
pub fn am_resource(s: &SparkSettings, yarn_knows_gpu: bool) -> CustomRequest {
    let base = Resource {
        memory_mb: s.am_container_memory_mb(),
        vcores: s.driver_cores,
        gpus: 0,
    };
    set_resource_requests(base, &s.properties, Component::Driver, yarn_knows_gpu)
}

/// The tags without repeats, first occurrence first (YARN keeps them in a set).
pub fn distinct(tags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}
