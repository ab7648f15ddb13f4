//! YARN and Spark records that travel inside messages: Resource, Container, ContainerStatus and
//! ContainerExitStatus, application states and final statuses, application reports, task states,
//! executor loss reasons and RPC failures.

use crate::ids::{ApplicationAttemptId, ApplicationId, ContainerId, ExecutorId, NodeId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A YARN `Resource`; prints as YARN does: `<memory:2048, vCores:1>`, with `, yarn.io/gpu: 1`
/// when it has GPUs (Hadoop's `Resource.toString` skips a resource type whose value is 0).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Resource {
    pub memory_mb: u64,
    pub vcores: u32,
    /// The `yarn.io/gpu` resource type (`yarn.resource-types`), the one countable type beyond
    /// memory and vcores sparkyard simulates.
    pub gpus: u32,
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<memory:{}, vCores:{}", self.memory_mb, self.vcores)?;
        if self.gpus != 0 {
            write!(f, ", yarn.io/gpu: {}", self.gpus)?;
        }
        f.write_str(">")
    }
}

/// Hadoop's `ContainerExitStatus` constants.
pub mod exit_status {
    pub const SUCCESS: i32 = 0;
    pub const INVALID: i32 = -1000;
    pub const ABORTED: i32 = -100;
    pub const DISKS_FAILED: i32 = -101;
    pub const PREEMPTED: i32 = -102;
    pub const KILLED_EXCEEDED_VMEM: i32 = -103;
    pub const KILLED_EXCEEDED_PMEM: i32 = -104;
    pub const KILLED_BY_APPMASTER: i32 = -105;
    pub const KILLED_BY_RESOURCEMANAGER: i32 = -106;
    pub const KILLED_AFTER_APP_COMPLETION: i32 = -107;
}

/// A container allocated by the RM (Hadoop `Container`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    pub id: ContainerId,
    pub node_id: NodeId,
    /// `host:8042`, the NM web address used in log URLs.
    pub node_http_address: String,
    pub rack: String,
    pub resource: Resource,
    pub priority: u32,
}

/// `ContainerState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerState {
    New,
    Running,
    Complete,
}

impl fmt::Display for ContainerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContainerState::New => "NEW",
            ContainerState::Running => "RUNNING",
            ContainerState::Complete => "COMPLETE",
        })
    }
}

/// `ContainerStatus`: what the RM tells the AM about a finished container.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerStatus {
    pub container_id: ContainerId,
    pub state: ContainerState,
    pub exit_status: i32,
    pub diagnostics: String,
}

/// `YarnApplicationState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum YarnApplicationState {
    New,
    NewSaving,
    Submitted,
    Accepted,
    Running,
    Finished,
    Failed,
    Killed,
}

impl YarnApplicationState {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Finished | Self::Failed | Self::Killed)
    }
}

impl fmt::Display for YarnApplicationState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::New => "NEW",
            Self::NewSaving => "NEW_SAVING",
            Self::Submitted => "SUBMITTED",
            Self::Accepted => "ACCEPTED",
            Self::Running => "RUNNING",
            Self::Finished => "FINISHED",
            Self::Failed => "FAILED",
            Self::Killed => "KILLED",
        })
    }
}

/// `FinalApplicationStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FinalApplicationStatus {
    Undefined,
    Succeeded,
    Failed,
    Killed,
}

impl fmt::Display for FinalApplicationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Undefined => "UNDEFINED",
            Self::Succeeded => "SUCCEEDED",
            Self::Failed => "FAILED",
            Self::Killed => "KILLED",
        })
    }
}

/// What the Client sends with `submitApplication` (`ApplicationSubmissionContext`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApplicationSubmissionContext {
    pub application_id: ApplicationId,
    pub application_name: String,
    pub queue: String,
    pub application_type: String,
    /// Only when `spark.yarn.maxAppAttempts` is set; otherwise the RM's own maximum.
    pub max_app_attempts: Option<u32>,
    /// `spark.yarn.tags` (`setApplicationTags`), in the order given, without repeats.
    pub application_tags: Vec<String>,
    /// `spark.yarn.priority` (`setPriority`), only when set.
    pub priority: Option<u32>,
    /// `spark.yarn.am.attemptFailuresValidityInterval`, ms (`setAttemptFailuresValidityInterval`),
    /// only when set; YARN's default is -1, failures never expire.
    pub attempt_failures_validity_interval_ms: Option<u64>,
    pub am_resource: Resource,
    /// `spark.yarn.am.nodeLabelExpression`: Spark's Client then sends the AM's `ANY`
    /// ResourceRequest with this expression (`setAMContainerResourceRequests`).
    pub am_node_label_expression: Option<String>,
    pub am_container_spec: ContainerLaunchContext,
    pub user: String,
}

/// `ContainerRuntimeConstants.ENV_CONTAINER_TYPE`: the launch environment's variable that picks
/// the NodeManager's container runtime (`docker` for `DockerLinuxContainerRuntime`).
pub const ENV_CONTAINER_TYPE: &str = "YARN_CONTAINER_RUNTIME_TYPE";

/// `ContainerLaunchContext`: the command and environment a NodeManager runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerLaunchContext {
    pub commands: Vec<String>,
    /// Ordered environment variables.
    pub environment: Vec<(String, String)>,
    /// What program the container runs: the simulated JVM main class and its arguments.
    pub main: ContainerMain,
    /// The files the NodeManager localizes into the container's directory, each linked under
    /// its name (`setLocalResources`); shared by every executor of an application.
    pub local_resources: std::sync::Arc<[LocalResource]>,
}

/// A `LocalResource` of a launch context: where it comes from and the link name the container
/// sees (`__app__.jar`, `__spark_conf__`, a `--files` entry's name or `#fragment`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalResource {
    pub link: String,
    /// The resource's URL (the staging directory copy, or a remote file used in place).
    pub source: String,
    /// `LocalResourceType`: ARCHIVE (unpacked into a directory) or FILE.
    pub archive: bool,
}

/// Which simulated JVM program a container runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ContainerMain {
    /// `org.apache.spark.deploy.yarn.ApplicationMaster --class <cls> --jar <jar> [--arg a]*`.
    ApplicationMaster {
        user_class: String,
        jar: String,
        args: Vec<String>,
        /// `spark.app.submitTime` in `__spark_conf__/__spark_conf__.properties` (SparkSubmit
        /// sets it when the user did not), which the AM's SparkConf, and so the driver's,
        /// reads from its localized conf archive.
        submit_time_ms: Option<u64>,
    },
    /// `org.apache.spark.executor.YarnCoarseGrainedExecutorBackend`.
    Executor(ExecutorArguments),
}

/// The arguments of `YarnCoarseGrainedExecutorBackend`.
///
/// `repr(C)`: the executor id and host, which the executor reads at every task, sit together
/// in declaration order (one cache line of the backend's state).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C)]
pub struct ExecutorArguments {
    /// Shared by every executor of the application (as are `app_id`'s bytes).
    pub driver_url: std::sync::Arc<str>,
    pub executor_id: ExecutorId,
    pub hostname: String,
    pub cores: u32,
    pub app_id: std::sync::Arc<str>,
    pub resource_profile_id: u32,
    /// The container it runs in: YARN's `CONTAINER_ID` in its environment (not an argument;
    /// `None` where no container is meant, as in the AM's launch-context line).
    pub container_id: Option<ContainerId>,
}

/// `ApplicationReport` as `getApplicationReport` returns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplicationReport {
    pub application_id: ApplicationId,
    pub current_attempt: Option<ApplicationAttemptId>,
    pub user: String,
    pub queue: String,
    pub name: String,
    /// The AM host; `N/A` while no AM has registered.
    pub host: Option<String>,
    /// The AM RPC port; -1 while no AM has registered.
    pub rpc_port: i32,
    pub client_token: Option<String>,
    pub state: YarnApplicationState,
    pub diagnostics: String,
    pub tracking_url: Option<String>,
    /// `getOriginalTrackingUrl`: what the AM registered or unregistered with (Spark: its UI,
    /// then the history server's URL), the RM's app page after a failed attempt, else `N/A`
    /// (what `yarn application -status` prints as Tracking-URL).
    pub original_tracking_url: String,
    pub start_time: u64,
    pub finish_time: u64,
    pub final_status: FinalApplicationStatus,
    /// From the submission context (`getApplicationType`, `getApplicationTags`, `getPriority`).
    pub application_type: String,
    pub application_tags: Vec<String>,
    pub priority: u32,
}

/// Spark's `TaskState`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskState {
    Launching,
    Running,
    Finished,
    Failed,
    Killed,
    Lost,
}

impl TaskState {
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            Self::Finished | Self::Failed | Self::Killed | Self::Lost
        )
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Launching => "LAUNCHING",
            Self::Running => "RUNNING",
            Self::Finished => "FINISHED",
            Self::Failed => "FAILED",
            Self::Killed => "KILLED",
            Self::Lost => "LOST",
        })
    }
}

/// Spark's `ExecutorLossReason` family.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExecutorLossReason {
    /// `ExecutorExited(exitCode, exitCausedByApp, reason)`.
    Exited {
        exit_code: i32,
        exit_caused_by_app: bool,
        reason: String,
    },
    /// `ExecutorProcessLost(message, workerHost, causedByApp)`.
    ProcessLost {
        message: String,
        caused_by_app: bool,
    },
    /// `ExecutorKilled`: "Executor killed by driver."
    Killed,
    /// `LossReasonPending`: "Pending loss reason."
    Pending,
    /// A plain `ExecutorLossReason(message)` (e.g. sent by an executor that exits by itself).
    Other(String),
    /// `ExecutorDecommission(workerHost, reason)`: "Executor decommission: <reason>".
    /// `worker_host` is set when the whole host goes (`DecommissionExecutorsOnHost`): the
    /// DAGScheduler then unregisters every map output served from it.
    Decommission {
        reason: String,
        worker_host: Option<String>,
    },
}

impl ExecutorLossReason {
    /// Whether tasks running on the executor failed because of the application (counts toward
    /// `spark.task.maxFailures`).
    pub fn exit_caused_by_app(&self) -> bool {
        match self {
            Self::Exited {
                exit_caused_by_app, ..
            } => *exit_caused_by_app,
            Self::ProcessLost { caused_by_app, .. } => *caused_by_app,
            Self::Killed | Self::Decommission { .. } => false,
            Self::Pending | Self::Other(_) => true,
        }
    }
}

impl fmt::Display for ExecutorLossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exited { reason, .. } => f.write_str(reason),
            Self::ProcessLost { message, .. } => f.write_str(message),
            Self::Killed => f.write_str("Executor killed by driver."),
            Self::Pending => f.write_str("Pending loss reason."),
            Self::Other(message) => f.write_str(message),
            Self::Decommission { reason, .. } => write!(f, "Executor decommission: {reason}"),
        }
    }
}

/// A failed ask as the caller sees it: the Java exception class, its message
/// (`RpcTimeoutException`, `SparkException`, `IllegalStateException`, ...) and its cause, if
/// the exception has one (`Throwable.getCause`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RpcFailure {
    pub class: String,
    pub message: String,
    pub cause: Option<Box<RpcFailure>>,
}

impl RpcFailure {
    pub fn new(class: &str, message: impl Into<String>) -> Self {
        RpcFailure {
            class: class.to_string(),
            message: message.into(),
            cause: None,
        }
    }

    /// The same exception thrown with `cause` (Java's `Throwable(String, Throwable)`).
    pub fn caused_by(self, cause: RpcFailure) -> Self {
        RpcFailure {
            cause: Some(Box::new(cause)),
            ..self
        }
    }

    /// `printStackTrace`'s text without its frames: the exception's `toString`, then each
    /// cause's on a `Caused by: ` line, as a logger prints a logged exception (no trailing
    /// newline).
    pub fn stack_text(&self) -> String {
        let mut text = self.to_string();
        let mut cause = self.cause.as_deref();
        while let Some(c) = cause {
            text.push_str("\nCaused by: ");
            text.push_str(&c.to_string());
            cause = c.cause.as_deref();
        }
        text
    }
    pub fn spark(message: impl Into<String>) -> Self {
        Self::new("org.apache.spark.SparkException", message)
    }
    pub fn illegal_state(message: impl Into<String>) -> Self {
        Self::new("java.lang.IllegalStateException", message)
    }
}

/// `Throwable.toString`: the class, then `: message` unless the message is null (an empty
/// `message` here).
impl fmt::Display for RpcFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(&self.class)
        } else {
            write!(f, "{}: {}", self.class, self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Resource;

    /// Hadoop's `Resource.toString` (hadoop-yarn-api, `api/records/Resource.java`) appends each
    /// resource type beyond memory and vcores as `, name: value` + its units, skipping a zero.
    #[test]
    fn a_resource_prints_its_gpus_only_when_it_has_some() {
        let r = Resource {
            memory_mb: 28672,
            vcores: 4,
            gpus: 0,
        };
        assert_eq!(r.to_string(), "<memory:28672, vCores:4>");
        let g = Resource { gpus: 1, ..r };
        assert_eq!(g.to_string(), "<memory:28672, vCores:4, yarn.io/gpu: 1>");
    }
}
