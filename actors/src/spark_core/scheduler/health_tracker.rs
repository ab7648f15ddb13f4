//! Application-level exclusion on failure: owns which executors and nodes are excluded for the
//! whole application, until when (`spark.excludeOnFailure.timeout`), the failures counted
//! against each executor from successful task sets, fetch-failure exclusion, the kill (or
//! decommission) of excluded executors and nodes, and the node list the driver sends YARN with
//! every `RequestExecutors`. Also the configuration rules: `isExcludeOnFailureEnabled` with the
//! legacy-timeout fallback and its warnings, `getExcludeOnFailureTimeout` and
//! `validateExcludeOnFailureConfs` with Spark's texts. Mirrors Spark 4.0's
//! `org.apache.spark.scheduler.HealthTracker` (class and companion object, and its
//! `ExecutorFailureList`), confirmed in spark-core_2.13-4.0.0.jar with `javap -c -p -constants`.
//!
//! A plain state machine: no actix, no clock (every call takes `now_ms`, Spark's
//! `clock.getTimeMillis()`), no logging, no backend. Each call returns a [`HealthUpdate`]: the
//! steps Spark takes, in its order, each with its log line and listener events; the caller
//! (TaskSchedulerImpl) writes, posts and asks the allocation client to kill or decommission.

use super::task_set_exclude_list::{
    ApplicationExclusions, ExecutorFailuresInTaskSet, TaskSetExcludeConf,
};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::{ExclusionEventName, ListenerEvent};
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// `spark.excludeOnFailure.enabled` (legacy `spark.blacklist.enabled`).
pub const EXCLUDE_ON_FAILURE_ENABLED: &str = "spark.excludeOnFailure.enabled";
/// `spark.excludeOnFailure.killExcludedExecutors`, which the kill lines name.
pub const EXCLUDE_ON_FAILURE_KILL_ENABLED: &str = "spark.excludeOnFailure.killExcludedExecutors";
/// `spark.excludeOnFailure.timeout` (legacy `spark.blacklist.timeout`).
pub const EXCLUDE_ON_FAILURE_TIMEOUT: &str = "spark.excludeOnFailure.timeout";
/// `EXCLUDE_ON_FAILURE_LEGACY_TIMEOUT_CONF` (alternate `spark.scheduler.executorTaskBlacklistTime`).
pub const EXCLUDE_ON_FAILURE_LEGACY_TIMEOUT: &str =
    "spark.scheduler.executorTaskExcludeOnFailureTime";
/// `HealthTracker.DEFAULT_TIMEOUT` ("1h").
pub const DEFAULT_TIMEOUT_MS: u64 = 3_600_000;

/// The exclusion keys as typed settings (`world::config`, where the run's settings live); the
/// rules that read them are here.
pub use crate::world::config::ExcludeOnFailureConf;

/// Whether application-level exclusion is on, and the WARN HealthTracker logs when the legacy
/// timeout decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExclusionEnabled {
    pub enabled: bool,
    /// `Turning on/off excludeOnFailure due to legacy configuration: ...`.
    pub legacy_warning: Option<String>,
}

impl ExcludeOnFailureConf {
    /// `HealthTracker.isExcludeOnFailureEnabled` (4.0.0): `application.enabled`, else `enabled`,
    /// else a legacy timeout that is set turns it on (off when 0), else off.
    pub fn is_exclude_on_failure_enabled(&self) -> ExclusionEnabled {
        if let Some(enabled) = self.application_enabled.or(self.enabled) {
            return ExclusionEnabled {
                enabled,
                legacy_warning: None,
            };
        }
        let key = EXCLUDE_ON_FAILURE_LEGACY_TIMEOUT;
        match self.legacy_timeout_ms {
            None => ExclusionEnabled {
                enabled: false,
                legacy_warning: None,
            },
            Some(0) => ExclusionEnabled {
                enabled: false,
                legacy_warning: Some(format!(
                    "Turning off excludeOnFailure due to legacy configuration: {key} == 0"
                )),
            },
            Some(_) => ExclusionEnabled {
                enabled: true,
                legacy_warning: Some(format!(
                    "Turning on excludeOnFailure due to legacy configuration: {key} > 0"
                )),
            },
        }
    }

    /// `TaskSetExcludelist.isExcludeOnFailureEnabled` (4.0.0): `taskAndStage.enabled`, else
    /// `enabled`, else off (no legacy fallback). When off while the HealthTracker exists, the
    /// TaskSetManager keeps a dry-run list for it.
    pub fn task_and_stage_enabled(&self) -> bool {
        self.task_and_stage_enabled
            .or(self.enabled)
            .unwrap_or(false)
    }

    /// `HealthTracker.getExcludeOnFailureTimeout`: the timeout, else the legacy one, else 1h.
    pub fn exclude_on_failure_timeout_ms(&self) -> i64 {
        self.timeout_ms
            .or(self.legacy_timeout_ms)
            .unwrap_or(DEFAULT_TIMEOUT_MS as i64)
    }

    /// `HealthTracker.validateExcludeOnFailureConfs` (run by HealthTracker's constructor), with
    /// the 4.0.0 jar's `IllegalArgumentException` texts (the error-class texts of later Spark
    /// sources are not in 4.0.0).
    pub fn validate(&self) -> Result<(), ExcludeConfError> {
        let ints = [
            (
                "spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor",
                self.max_task_attempts_per_executor,
            ),
            (
                "spark.excludeOnFailure.task.maxTaskAttemptsPerNode",
                self.max_task_attempts_per_node,
            ),
            (
                "spark.excludeOnFailure.stage.maxFailedTasksPerExecutor",
                self.max_failures_per_exec_stage,
            ),
            (
                "spark.excludeOnFailure.stage.maxFailedExecutorsPerNode",
                self.max_failed_exec_per_node_stage,
            ),
            (
                "spark.excludeOnFailure.application.maxFailedTasksPerExecutor",
                self.max_failures_per_exec,
            ),
            (
                "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
                self.max_failed_exec_per_node,
            ),
        ];
        for (key, v) in ints {
            if v <= 0 {
                return Err(ExcludeConfError::must_be_positive(key, &v.to_string()));
            }
        }
        let timeout = self.exclude_on_failure_timeout_ms();
        if timeout <= 0 {
            let key = match self.timeout_ms {
                Some(_) => EXCLUDE_ON_FAILURE_TIMEOUT,
                None => EXCLUDE_ON_FAILURE_LEGACY_TIMEOUT,
            };
            return Err(ExcludeConfError::must_be_positive(
                key,
                &timeout.to_string(),
            ));
        }
        self.check_node_attempts()
    }

    /// The node-attempts check: with `maxTaskAttemptsPerNode >= spark.task.maxFailures` one bad
    /// node can fail the job before exclusion moves its tasks.
    fn check_node_attempts(&self) -> Result<(), ExcludeConfError> {
        let (node, max) = (self.max_task_attempts_per_node, self.task_max_failures);
        if node < max {
            return Ok(());
        }
        let nk = "spark.excludeOnFailure.task.maxTaskAttemptsPerNode";
        let tk = "spark.task.maxFailures";
        Err(ExcludeConfError {
            message: format!(
                "{nk} ( = {node}) was >= {tk} ( = {max} ). Though excludeOnFailure is enabled, \
                 with this configuration, Spark will not be robust to one bad node. Decrease \
                 {nk}, increase {tk}, or disable excludeOnFailure with {EXCLUDE_ON_FAILURE_ENABLED}"
            ),
        })
    }

    /// The per-task-set limits (validated positive when the HealthTracker exists; a task-set
    /// list alone reads them unchecked, as Spark does: a value <= 0 then excludes at once).
    pub fn task_set_conf(&self) -> TaskSetExcludeConf {
        let n = |v: i32| v.max(0) as u32;
        TaskSetExcludeConf {
            max_task_attempts_per_executor: n(self.max_task_attempts_per_executor),
            max_task_attempts_per_node: n(self.max_task_attempts_per_node),
            max_failures_per_exec_stage: n(self.max_failures_per_exec_stage),
            max_failed_exec_per_node_stage: n(self.max_failed_exec_per_node_stage),
        }
    }
}

/// A refused exclusion configuration: `java.lang.IllegalArgumentException` with Spark's text,
/// which fails the SparkContext.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExcludeConfError {
    pub message: String,
}

impl ExcludeConfError {
    /// The exception's class as Spark prints it.
    pub const CLASS: &'static str = "java.lang.IllegalArgumentException";

    /// `mustBePos(k, v)`: `$k was $v, but must be > 0.`
    fn must_be_positive(key: &str, value: &str) -> Self {
        ExcludeConfError {
            message: format!("{key} was {value}, but must be > 0."),
        }
    }
}

impl std::fmt::Display for ExcludeConfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What HealthTracker's constructor fixes from the conf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HealthTrackerConf {
    pub max_failures_per_exec: u32,
    pub max_failed_exec_per_node: u32,
    /// `EXCLUDE_ON_FAILURE_TIMEOUT_MILLIS`.
    pub timeout_ms: u64,
    pub fetch_failure_enabled: bool,
    pub kill_enabled: bool,
    /// `EXCLUDE_ON_FAILURE_DECOMMISSION_ENABLED`: decommission instead of kill.
    pub decommission_enabled: bool,
    pub shuffle_service_enabled: bool,
    /// Whether the scheduler backend is an `ExecutorAllocationClient` (CoarseGrainedScheduler-
    /// Backend, so always on YARN); without one Spark only says it cannot kill.
    pub has_allocation_client: bool,
}

impl HealthTrackerConf {
    /// The HealthTracker's fields from a validated conf (`validate` first: Spark validates in
    /// the constructor, before reading them).
    pub fn from_conf(c: &ExcludeOnFailureConf) -> Result<Self, ExcludeConfError> {
        c.validate()?;
        Ok(HealthTrackerConf {
            max_failures_per_exec: c.max_failures_per_exec as u32,
            max_failed_exec_per_node: c.max_failed_exec_per_node as u32,
            timeout_ms: c.exclude_on_failure_timeout_ms() as u64,
            fetch_failure_enabled: c.fetch_failure_enabled,
            kill_enabled: c.kill_excluded_executors,
            decommission_enabled: c.kill_decommission,
            shuffle_service_enabled: c.shuffle_service_enabled,
            has_allocation_client: true,
        })
    }
}

/// Why an executor or node was excluded (which of Spark's lines says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExclusionCause {
    /// Failures in successful task sets (`updateExcludedForSuccessfulTaskSet`).
    TaskFailures,
    /// A fetch failure (`updateExcludedForFetchFailure`).
    FetchFailure,
    /// sparkyard's `exclude-node` fault: Spark has no such call, so no line of Spark's gives
    /// it a cause and none is logged (the run's fault record names it).
    Injected,
}

/// The log level of a HealthTracker line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HealthLogLevel {
    Info,
    Warn,
    /// Only the failed kill's line has it, and CoarseGrainedSchedulerBackend's
    /// `killExecutorsOnHost` / `decommissionExecutorsOnHost` always say true in 4.0.0.
    #[cfg_attr(not(test), allow(dead_code))]
    Error,
}

/// One step HealthTracker takes, in its order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HealthStep {
    /// An executor excluded for the application (until `expiry_ms`).
    ExecutorExcluded {
        executor_id: ExecutorId,
        node: String,
        /// The failures the events carry (1 for a fetch failure).
        task_failures: u32,
        cause: ExclusionCause,
    },
    /// A node excluded for the application.
    NodeExcluded {
        host: String,
        /// The node's excluded executors (`excludedExecsOnNode`); empty for a fetch failure
        /// with the external shuffle service (its event says 1).
        excluded_executors: Vec<ExecutorId>,
        cause: ExclusionCause,
    },
    /// Executors whose exclusion timed out (`applyExcludeOnFailureTimeout`).
    ExecutorsUnexcluded {
        executors: Vec<ExecutorId>,
    },
    /// Nodes whose exclusion timed out.
    NodesUnexcluded {
        hosts: Vec<String>,
    },
    /// `allocationClient.killExecutors(Seq(exec), adjustTargetNumExecutors = false,
    /// countFailures = false, force = true)`, or with `decommission` on
    /// `decommissionExecutor(exec, ExecutorDecommissionInfo(message), adjustTargetNumExecutors =
    /// false)`; `message` is also the INFO line.
    KillExecutor {
        executor_id: ExecutorId,
        decommission: bool,
        message: String,
    },
    /// `killExecutorsOnHost(node)` / `decommissionExecutorsOnHost(node)`; when the client says
    /// false, the caller logs [`HealthStep::kill_on_host_failed_line`] at ERROR.
    KillExecutorsOnHost {
        host: String,
        decommission: bool,
    },
    /// No allocation client: Spark only logs that it cannot kill.
    CannotKillExecutor {
        executor_id: ExecutorId,
    },
    CannotKillExecutorsOnHost {
        host: String,
    },
}

/// Scala 2.13's `toString` of a set of executor ids (`Set(1, 2)`, `HashSet(1, 2)`), in id order.
fn scala_set(prefix: &str, ids: impl Iterator<Item = String>) -> String {
    format!("{prefix}({})", ids.collect::<Vec<_>>().join(", "))
}

impl HealthStep {
    /// The line Spark logs for the step (the 4.0.0 jar's `LogEntry` pieces joined); `None` for
    /// an injected node exclusion, whose cause no line of Spark's names.
    pub fn log_line(&self) -> Option<(HealthLogLevel, String)> {
        match self {
            HealthStep::NodeExcluded {
                cause: ExclusionCause::Injected,
                ..
            } => None,
            _ => Some(self.spark_line()),
        }
    }

    fn spark_line(&self) -> (HealthLogLevel, String) {
        use HealthLogLevel::*;
        let kill_key = EXCLUDE_ON_FAILURE_KILL_ENABLED;
        match self {
            HealthStep::ExecutorExcluded {
                executor_id,
                task_failures,
                cause: ExclusionCause::TaskFailures,
                ..
            } => (
                Info,
                format!(
                    "Excluding executor id: {} because it has {task_failures} task failures in \
                     successful task sets",
                    executor_id.0
                ),
            ),
            HealthStep::ExecutorExcluded { executor_id, .. } => (
                Info,
                format!("Excluding executor {} due to fetch failure", executor_id.0),
            ),
            HealthStep::NodeExcluded {
                host,
                excluded_executors,
                cause: ExclusionCause::TaskFailures,
            } => (
                Info,
                format!(
                    "Excluding node {host} because it has {} executors excluded: {}",
                    excluded_executors.len(),
                    scala_set(
                        "HashSet",
                        excluded_executors.iter().map(|e| e.0.to_string())
                    )
                ),
            ),
            HealthStep::NodeExcluded { host, .. } => (
                Info,
                format!("excluding node {host} due to fetch failure of external shuffle service"),
            ),
            HealthStep::ExecutorsUnexcluded { executors } => (
                Info,
                format!(
                    "Removing executors {} from exclude list because the executors have reached \
                     the timed out",
                    scala_set("Set", executors.iter().map(|e| e.0.to_string()))
                ),
            ),
            HealthStep::NodesUnexcluded { hosts } => (
                Info,
                format!(
                    "Removing nodes {} from exclude list because the nodes have reached has \
                     timed out",
                    scala_set("Set", hosts.iter().cloned())
                ),
            ),
            HealthStep::KillExecutor { message, .. } => (Info, message.clone()),
            HealthStep::KillExecutorsOnHost {
                host,
                decommission: true,
            } => (
                Info,
                format!(
                    "Decommissioning all executors on excluded host {host} since {kill_key} is set."
                ),
            ),
            HealthStep::KillExecutorsOnHost { host, .. } => (
                Info,
                format!("Killing all executors on excluded host {host} since {kill_key} is set."),
            ),
            HealthStep::CannotKillExecutor { executor_id } => (
                Info,
                format!(
                    "Not attempting to kill excluded executor id {} since allocation client is \
                     not defined.",
                    executor_id.0
                ),
            ),
            HealthStep::CannotKillExecutorsOnHost { host } => (
                Warn,
                format!(
                    "Not attempting to kill executors on excluded host {host} since allocation \
                     client is not defined."
                ),
            ),
        }
    }

    /// The ERROR line when `killExecutorsOnHost` / `decommissionExecutorsOnHost` says false.
    #[cfg(test)]
    pub fn kill_on_host_failed_line(host: &str, decommission: bool) -> (HealthLogLevel, String) {
        let text = if decommission {
            format!("Decommissioning executors on {host} failed.")
        } else {
            format!("Killing executors on node {host} failed.")
        };
        (HealthLogLevel::Error, text)
    }

    /// The events Spark posts for the step at `time`: each deprecated `...Blacklisted` event
    /// right before its `...Excluded` twin, per executor or node.
    pub fn listener_events(&self, time: u64) -> Vec<ListenerEvent> {
        const BOTH: [ExclusionEventName; 2] = [
            ExclusionEventName::Blacklisted,
            ExclusionEventName::Excluded,
        ];
        match self {
            HealthStep::ExecutorExcluded {
                executor_id,
                task_failures,
                ..
            } => BOTH
                .map(|name| ListenerEvent::ExecutorExcluded {
                    name,
                    time,
                    executor_id: executor_id.0.to_string(),
                    task_failures: *task_failures,
                })
                .to_vec(),
            HealthStep::NodeExcluded {
                host,
                excluded_executors,
                cause,
            } => {
                let executor_failures = match cause {
                    ExclusionCause::TaskFailures | ExclusionCause::Injected => {
                        excluded_executors.len() as u32
                    }
                    ExclusionCause::FetchFailure => 1,
                };
                BOTH.map(|name| ListenerEvent::NodeExcluded {
                    name,
                    time,
                    host_id: host.clone(),
                    executor_failures,
                })
                .to_vec()
            }
            HealthStep::ExecutorsUnexcluded { executors } => executors
                .iter()
                .flat_map(|e| {
                    BOTH.map(|name| ListenerEvent::ExecutorUnexcluded {
                        name,
                        time,
                        executor_id: e.0.to_string(),
                    })
                })
                .collect(),
            HealthStep::NodesUnexcluded { hosts } => hosts
                .iter()
                .flat_map(|h| {
                    BOTH.map(|name| ListenerEvent::NodeUnexcluded {
                        name,
                        time,
                        host_id: h.clone(),
                    })
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The steps of one HealthTracker call, at the time it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HealthUpdate {
    pub time: u64,
    pub steps: Vec<HealthStep>,
}

impl HealthUpdate {
    fn at(time: u64) -> Self {
        HealthUpdate {
            time,
            steps: Vec::new(),
        }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Every event of every step, in order.
    #[cfg(test)]
    pub fn listener_events(&self) -> Vec<ListenerEvent> {
        self.steps
            .iter()
            .flat_map(|s| s.listener_events(self.time))
            .collect()
    }

    /// Every line of every step, in order.
    #[cfg(test)]
    pub fn log_lines(&self) -> Vec<(HealthLogLevel, String)> {
        self.steps.iter().filter_map(HealthStep::log_line).collect()
    }
}

/// `ExcludedExecutor(node, expiryTime)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExcludedExecutor {
    pub node: String,
    pub expiry_ms: u64,
}

/// One failure counted against an executor: `(TaskId(stage, stageAttempt, taskIndex), expiry)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CountedFailure {
    stage_id: u32,
    stage_attempt_id: u32,
    task_index: u32,
    expiry_ms: u64,
}

/// `ExecutorFailureList`: one executor's failures in successful task sets, within the timeout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ExecutorFailureList {
    failures_and_expiry_times: Vec<CountedFailure>,
    /// Spark's `Long.MaxValue` when empty.
    min_expiry_ms: Option<u64>,
}

impl ExecutorFailureList {
    /// `addFailures`: each failed index expires `timeout` after its (latest) failure.
    fn add_failures(&mut self, stage: u32, attempt: u32, f: &ExecutorFailuresInTaskSet, t: u64) {
        for (index, failure) in f.task_failures() {
            let expiry_ms = failure.failure_time_ms.saturating_add(t);
            self.failures_and_expiry_times.push(CountedFailure {
                stage_id: stage,
                stage_attempt_id: attempt,
                task_index: index,
                expiry_ms,
            });
            self.min_expiry_ms = Some(self.min_expiry_ms.map_or(expiry_ms, |m| m.min(expiry_ms)));
        }
    }

    /// `dropFailuresWithTimeoutBefore(dropBefore)`: keeps failures expiring at or after it.
    fn drop_failures_with_timeout_before(&mut self, drop_before: u64) {
        if self.min_expiry_ms.is_none_or(|m| m >= drop_before) {
            return;
        }
        self.failures_and_expiry_times
            .retain(|f| f.expiry_ms >= drop_before);
        self.min_expiry_ms = self
            .failures_and_expiry_times
            .iter()
            .map(|f| f.expiry_ms)
            .min();
    }

    /// `numUniqueTaskFailures`.
    fn num_unique_task_failures(&self) -> u32 {
        self.failures_and_expiry_times.len() as u32
    }
}

/// `HealthTracker`: one per SparkContext when application-level exclusion is on.
#[derive(Clone, Debug)]
pub struct HealthTracker {
    conf: HealthTrackerConf,
    executor_id_to_failure_list: BTreeMap<ExecutorId, ExecutorFailureList>,
    executor_id_to_excluded_status: BTreeMap<ExecutorId, ExcludedExecutor>,
    node_id_to_excluded_expiry_time: BTreeMap<String, u64>,
    /// `nextExpiryTime`: Spark's `Long.MaxValue` is `None`.
    next_expiry_ms: Option<u64>,
    /// `nodeToExcludedExecs`: not cleared when executors are removed, so successive bad
    /// executors on one node add up; cleared as each executor's exclusion times out.
    node_to_excluded_execs: BTreeMap<String, BTreeSet<ExecutorId>>,
}

/// What a task set asks of the application-level exclusion (`TaskSetManager`'s
/// `healthTracker.isExecutorExcluded` / `isNodeExcluded`).
impl ApplicationExclusions for HealthTracker {
    fn is_node_excluded(&self, host: &str) -> bool {
        HealthTracker::is_node_excluded(self, host)
    }
    fn is_executor_excluded(&self, executor: ExecutorId) -> bool {
        HealthTracker::is_executor_excluded(self, executor)
    }
}

impl HealthTracker {
    pub fn new(conf: HealthTrackerConf) -> Self {
        HealthTracker {
            conf,
            executor_id_to_failure_list: BTreeMap::new(),
            executor_id_to_excluded_status: BTreeMap::new(),
            node_id_to_excluded_expiry_time: BTreeMap::new(),
            next_expiry_ms: None,
            node_to_excluded_execs: BTreeMap::new(),
        }
    }

    /// `nextExpiryTime` (`None`: nothing excluded, Spark's `Long.MaxValue`).
    #[cfg(test)]
    pub fn next_expiry_ms(&self) -> Option<u64> {
        self.next_expiry_ms
    }

    /// `isExecutorExcluded`.
    pub fn is_executor_excluded(&self, executor: ExecutorId) -> bool {
        self.executor_id_to_excluded_status.contains_key(&executor)
    }

    /// `isNodeExcluded`.
    pub fn is_node_excluded(&self, node: &str) -> bool {
        self.node_id_to_excluded_expiry_time.contains_key(node)
    }

    /// `excludedNodeList()`: what the driver sends YARN with every `RequestExecutors`
    /// (`TaskSchedulerImpl.excludedNodes`, read by `YarnSchedulerBackend.prepareRequestExecutors`).
    pub fn excluded_node_list(&self) -> BTreeSet<String> {
        self.node_id_to_excluded_expiry_time
            .keys()
            .cloned()
            .collect()
    }

    /// `executorIdToExcludedStatus(exec)`.
    #[cfg(test)]
    pub fn excluded_status(&self, executor: ExecutorId) -> Option<&ExcludedExecutor> {
        self.executor_id_to_excluded_status.get(&executor)
    }

    /// `nodeIdToExcludedExpiryTime(node)`.
    #[cfg(test)]
    pub fn node_expiry_ms(&self, node: &str) -> Option<u64> {
        self.node_id_to_excluded_expiry_time.get(node).copied()
    }

    /// `nodeToExcludedExecs(node)`.
    #[cfg(test)]
    pub fn excluded_executors_on_node(&self, node: &str) -> Option<&BTreeSet<ExecutorId>> {
        self.node_to_excluded_execs.get(node)
    }

    /// `applyExcludeOnFailureTimeout()` (TaskSchedulerImpl calls it before each round of offers):
    /// includes again the executors and nodes whose expiry is before `now_ms`.
    pub fn apply_exclude_on_failure_timeout(&mut self, now_ms: u64) -> HealthUpdate {
        let mut out = HealthUpdate::at(now_ms);
        if self.next_expiry_ms.is_none_or(|next| now_ms <= next) {
            return out;
        }
        let execs: Vec<ExecutorId> = self
            .executor_id_to_excluded_status
            .iter()
            .filter(|(_, s)| s.expiry_ms < now_ms)
            .map(|(e, _)| *e)
            .collect();
        for exec in &execs {
            let Some(status) = self.executor_id_to_excluded_status.remove(exec) else {
                continue;
            };
            if let Some(on_node) = self.node_to_excluded_execs.get_mut(&status.node) {
                on_node.remove(exec);
                if on_node.is_empty() {
                    self.node_to_excluded_execs.remove(&status.node);
                }
            }
        }
        if !execs.is_empty() {
            out.steps
                .push(HealthStep::ExecutorsUnexcluded { executors: execs });
        }
        let hosts: Vec<String> = self
            .node_id_to_excluded_expiry_time
            .iter()
            .filter(|(_, expiry)| **expiry < now_ms)
            .map(|(h, _)| h.clone())
            .collect();
        for h in &hosts {
            self.node_id_to_excluded_expiry_time.remove(h);
        }
        if !hosts.is_empty() {
            out.steps.push(HealthStep::NodesUnexcluded { hosts });
        }
        self.update_next_expiry_time();
        out
    }

    /// `updateNextExpiryTime`: the earliest expiry of an excluded executor or node.
    fn update_next_expiry_time(&mut self) {
        let execs = self
            .executor_id_to_excluded_status
            .values()
            .map(|s| s.expiry_ms);
        let nodes = self.node_id_to_excluded_expiry_time.values().copied();
        self.next_expiry_ms = execs.chain(nodes).min();
    }

    /// `killExecutor(exec, msg)`: kill or decommission through the allocation client.
    fn kill_executor(&self, exec: ExecutorId, msg: String) -> HealthStep {
        if !self.conf.has_allocation_client {
            return HealthStep::CannotKillExecutor { executor_id: exec };
        }
        let decommission = self.conf.decommission_enabled;
        let message = if decommission {
            format!("{msg} (actually decommissioning)")
        } else {
            msg
        };
        HealthStep::KillExecutor {
            executor_id: exec,
            decommission,
            message,
        }
    }

    /// `killExcludedExecutor`: only with `spark.excludeOnFailure.killExcludedExecutors`.
    fn kill_excluded_executor(&self, exec: ExecutorId) -> Option<HealthStep> {
        self.conf.kill_enabled.then(|| {
            let msg = format!(
                "Killing excluded executor id {} since {EXCLUDE_ON_FAILURE_KILL_ENABLED} is set.",
                exec.0
            );
            self.kill_executor(exec, msg)
        })
    }

    /// `killExcludedIdleExecutor`: TaskSchedulerImpl's way out of an unschedulable task set
    /// when dynamic allocation can ask for another executor (regardless of the kill key).
    pub fn kill_excluded_idle_executor(&self, exec: ExecutorId, now_ms: u64) -> HealthUpdate {
        let msg = format!(
            "Killing excluded idle executor id {} because of task unschedulability and trying \
             to acquire a new executor.",
            exec.0
        );
        HealthUpdate {
            time: now_ms,
            steps: vec![self.kill_executor(exec, msg)],
        }
    }

    /// `killExecutorsOnExcludedNode`: only with the kill key.
    fn kill_executors_on_excluded_node(&self, node: &str) -> Option<HealthStep> {
        if !self.conf.kill_enabled {
            return None;
        }
        Some(if self.conf.has_allocation_client {
            HealthStep::KillExecutorsOnHost {
                host: node.to_string(),
                decommission: self.conf.decommission_enabled,
            }
        } else {
            HealthStep::CannotKillExecutorsOnHost {
                host: node.to_string(),
            }
        })
    }

    /// `updateExcludedForFetchFailure(host, exec)` (with
    /// `spark.excludeOnFailure.application.fetchFailure.enabled`): the executor at once, or with
    /// the external shuffle service the whole node, since every executor there serves its
    /// shuffle files from the same failing service.
    pub fn update_excluded_for_fetch_failure(
        &mut self,
        host: &str,
        exec: ExecutorId,
        now_ms: u64,
    ) -> HealthUpdate {
        let mut out = HealthUpdate::at(now_ms);
        if !self.conf.fetch_failure_enabled {
            return out;
        }
        let expiry = now_ms.saturating_add(self.conf.timeout_ms);
        if self.conf.shuffle_service_enabled {
            if !self.node_id_to_excluded_expiry_time.contains_key(host) {
                self.node_id_to_excluded_expiry_time
                    .insert(host.to_string(), expiry);
                out.steps.push(HealthStep::NodeExcluded {
                    host: host.to_string(),
                    excluded_executors: Vec::new(),
                    cause: ExclusionCause::FetchFailure,
                });
                out.steps.extend(self.kill_executors_on_excluded_node(host));
                self.update_next_expiry_time();
            }
        } else if let Entry::Vacant(slot) = self.executor_id_to_excluded_status.entry(exec) {
            slot.insert(ExcludedExecutor {
                node: host.to_string(),
                expiry_ms: expiry,
            });
            // One failure: a fetch failure is not retried on the executor.
            out.steps.push(HealthStep::ExecutorExcluded {
                executor_id: exec,
                node: host.to_string(),
                task_failures: 1,
                cause: ExclusionCause::FetchFailure,
            });
            self.update_next_expiry_time();
            out.steps.extend(self.kill_excluded_executor(exec));
            self.node_to_excluded_execs
                .entry(host.to_string())
                .or_default()
                .insert(exec);
        }
        out
    }

    /// `updateExcludedForSuccessfulTaskSet(stageId, stageAttemptId, failuresByExec)`: a task
    /// set that succeeded counts its failures against their executors (a failed task set's do
    /// not count: the fault may be the job's). Executors are taken in id order (Spark: its
    /// HashMap's order).
    pub fn update_excluded_for_successful_task_set(
        &mut self,
        stage_id: u32,
        stage_attempt_id: u32,
        failures_by_exec: &BTreeMap<ExecutorId, ExecutorFailuresInTaskSet>,
        now_ms: u64,
    ) -> HealthUpdate {
        let mut out = HealthUpdate::at(now_ms);
        for (exec, failures) in failures_by_exec {
            let list = self.executor_id_to_failure_list.entry(*exec).or_default();
            list.add_failures(stage_id, stage_attempt_id, failures, self.conf.timeout_ms);
            list.drop_failures_with_timeout_before(now_ms);
            let new_total = list.num_unique_task_failures();
            if new_total < self.conf.max_failures_per_exec
                || self.executor_id_to_excluded_status.contains_key(exec)
            {
                continue;
            }
            self.exclude_executor(*exec, &failures.node, new_total, now_ms, &mut out);
        }
        out
    }

    /// An executor over `maxFailuresPerExec`: excluded, maybe killed, and its node excluded when
    /// it is the node's `maxFailedExecutorsPerNode`-th.
    fn exclude_executor(
        &mut self,
        exec: ExecutorId,
        node: &str,
        total: u32,
        now_ms: u64,
        out: &mut HealthUpdate,
    ) {
        let expiry = now_ms.saturating_add(self.conf.timeout_ms);
        self.executor_id_to_excluded_status.insert(
            exec,
            ExcludedExecutor {
                node: node.to_string(),
                expiry_ms: expiry,
            },
        );
        out.steps.push(HealthStep::ExecutorExcluded {
            executor_id: exec,
            node: node.to_string(),
            task_failures: total,
            cause: ExclusionCause::TaskFailures,
        });
        self.executor_id_to_failure_list.remove(&exec);
        self.update_next_expiry_time();
        out.steps.extend(self.kill_excluded_executor(exec));
        let on_node = self
            .node_to_excluded_execs
            .entry(node.to_string())
            .or_default();
        on_node.insert(exec);
        let excluded_executors: Vec<ExecutorId> = on_node.iter().copied().collect();
        if (excluded_executors.len() as u32) < self.conf.max_failed_exec_per_node
            || self.node_id_to_excluded_expiry_time.contains_key(node)
        {
            return;
        }
        self.node_id_to_excluded_expiry_time
            .insert(node.to_string(), expiry);
        out.steps.push(HealthStep::NodeExcluded {
            host: node.to_string(),
            excluded_executors,
            cause: ExclusionCause::TaskFailures,
        });
        // Spark does not refresh nextExpiryTime here: the node's expiry equals the executor's.
        out.steps.extend(self.kill_executors_on_excluded_node(node));
    }

    /// sparkyard's `exclude-node` fault as the HealthTracker's node exclusion (Spark has no call
    /// for it from outside): the steps `updateExcludedForSuccessfulTaskSet` takes once a node is
    /// over `maxFailedExecutorsPerNode` (the 4.0.0 jar: the expiry put, `SparkListenerNodeBlacklisted`
    /// then `SparkListenerNodeExcluded` with the node's excluded executors so far,
    /// `_excludedNodeList` set, `killExecutorsOnExcludedNode`), without its line. A node
    /// already excluded is left as it is, as Spark's `!contains(node)` test leaves it.
    pub fn exclude_node_by_fault(&mut self, node: &str, now_ms: u64) -> HealthUpdate {
        let mut out = HealthUpdate::at(now_ms);
        if self.node_id_to_excluded_expiry_time.contains_key(node) {
            return out;
        }
        let expiry = now_ms.saturating_add(self.conf.timeout_ms);
        self.node_id_to_excluded_expiry_time
            .insert(node.to_string(), expiry);
        let excluded_executors = self
            .node_to_excluded_execs
            .get(node)
            .map(|e| e.iter().copied().collect())
            .unwrap_or_default();
        out.steps.push(HealthStep::NodeExcluded {
            host: node.to_string(),
            excluded_executors,
            cause: ExclusionCause::Injected,
        });
        out.steps.extend(self.kill_executors_on_excluded_node(node));
        // Nothing else may be excluded, so the expiry is the node's own.
        self.update_next_expiry_time();
        out
    }

    /// `handleRemovedExecutor`: forgets the executor's counted failures only; its exclusion
    /// stays until it times out, so a next bad executor on the node still adds up.
    pub fn handle_removed_executor(&mut self, executor: ExecutorId) {
        self.executor_id_to_failure_list.remove(&executor);
    }
}

#[cfg(test)]
#[path = "health_tracker_tests.rs"]
mod tests;
