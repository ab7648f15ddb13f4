//! Exclusion of executors and nodes within one task set (stage attempt) after task failures:
//! owns the per-task (`spark.excludeOnFailure.task.*`) and per-stage
//! (`spark.excludeOnFailure.stage.*`) counts and the failures the application-level
//! [`super::health_tracker::HealthTracker`] is handed when the task set succeeds. Mirrors Spark
//! 4.0's `org.apache.spark.scheduler.TaskSetExcludelist` and `ExecutorFailuresInTaskSet`
//! (confirmed in spark-core_2.13-4.0.0.jar with `javap -c -p -constants`).
//!
//! A plain state machine: no actix, no clock (the time of a failure is passed in, as Spark's
//! `clock.getTimeMillis()`), no logging. Each update returns what Spark would log and post as a
//! typed [`StageExclusions`]; its caller (the TaskSetManager) writes the lines and posts the events.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::{ExclusionEventName, ListenerEvent};
use std::collections::{BTreeMap, BTreeSet};

/// The four limits, read once per task set as Spark's constructor reads them
/// (`internal/config/package$`, defaults confirmed in the 4.0.0 jar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskSetExcludeConf {
    /// `spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor` (legacy
    /// `spark.blacklist.task.maxTaskAttemptsPerExecutor`), default 1.
    pub max_task_attempts_per_executor: u32,
    /// `spark.excludeOnFailure.task.maxTaskAttemptsPerNode` (legacy `spark.blacklist.task.*`),
    /// default 2.
    pub max_task_attempts_per_node: u32,
    /// `spark.excludeOnFailure.stage.maxFailedTasksPerExecutor`, default 2.
    pub max_failures_per_exec_stage: u32,
    /// `spark.excludeOnFailure.stage.maxFailedExecutorsPerNode`, default 2.
    pub max_failed_exec_per_node_stage: u32,
}

impl Default for TaskSetExcludeConf {
    fn default() -> Self {
        TaskSetExcludeConf {
            max_task_attempts_per_executor: 1,
            max_task_attempts_per_node: 2,
            max_failures_per_exec_stage: 2,
            max_failed_exec_per_node_stage: 2,
        }
    }
}

/// How often one task index failed on one executor, and when it last failed (Spark's
/// `(failureCount, failureTime)` tuple).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskFailureCount {
    pub count: u32,
    /// The latest failure's time (`math.max` of the times seen: the clock may step back).
    pub failure_time_ms: u64,
}

/// `ExecutorFailuresInTaskSet`: every failure on one executor within one task set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorFailuresInTaskSet {
    /// The executor's host when it failed.
    pub node: String,
    /// `taskToFailureCountAndFailureTime`, by task index.
    task_to_failure_count_and_failure_time: BTreeMap<u32, TaskFailureCount>,
}

impl ExecutorFailuresInTaskSet {
    pub fn new(node: &str) -> Self {
        ExecutorFailuresInTaskSet {
            node: node.to_string(),
            task_to_failure_count_and_failure_time: BTreeMap::new(),
        }
    }

    /// `updateWithFailure(taskIndex, failureTime)`.
    pub fn update_with_failure(&mut self, task_index: u32, failure_time_ms: u64) {
        let entry = self
            .task_to_failure_count_and_failure_time
            .entry(task_index)
            .or_insert(TaskFailureCount {
                count: 0,
                failure_time_ms,
            });
        entry.count += 1;
        entry.failure_time_ms = entry.failure_time_ms.max(failure_time_ms);
    }

    /// `numUniqueTasksWithFailures`.
    pub fn num_unique_tasks_with_failures(&self) -> u32 {
        self.task_to_failure_count_and_failure_time.len() as u32
    }

    /// `getNumTaskFailures(index)`: 0 for an index that never failed here.
    pub fn get_num_task_failures(&self, index: u32) -> u32 {
        self.task_to_failure_count_and_failure_time
            .get(&index)
            .map_or(0, |f| f.count)
    }

    /// Each failed index with its count and latest time, by index.
    pub fn task_failures(&self) -> impl Iterator<Item = (u32, TaskFailureCount)> + '_ {
        self.task_to_failure_count_and_failure_time
            .iter()
            .map(|(i, f)| (*i, *f))
    }
}

/// An executor excluded for a stage by one failure (`SparkListenerExecutorExcludedForStage`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorExcludedForStage {
    pub executor_id: ExecutorId,
    /// `numFailures`: the unique task indices that failed on it in this task set.
    pub task_failures: u32,
}

/// A node excluded for a stage (`SparkListenerNodeExcludedForStage`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeExcludedForStage {
    pub host: String,
    /// The executors of the node excluded for this task set.
    pub executor_failures: u32,
}

/// What one `updateExcludedForFailedTask` newly excluded for the whole stage; empty when it only
/// added to the counts (or excluded a task index on an executor or node, which posts nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageExclusions {
    pub stage_id: u32,
    pub stage_attempt_id: u32,
    pub executor: Option<ExecutorExcludedForStage>,
    /// Only ever set together with `executor` (the node check follows an executor's exclusion).
    pub node: Option<NodeExcludedForStage>,
}

impl StageExclusions {
    pub fn is_empty(&self) -> bool {
        self.executor.is_none() && self.node.is_none()
    }

    /// The TaskSetManager's INFO lines, in Spark's order (the 4.0.0 jar's `LogEntry` pieces):
    /// `Excluding executor E for stage S`, then `Excluding H for stage S`.
    pub fn log_lines(&self) -> Vec<String> {
        let stage = self.stage_id;
        let mut out = Vec::new();
        if let Some(e) = &self.executor {
            out.push(format!(
                "Excluding executor {} for stage {stage}",
                e.executor_id.0
            ));
        }
        if let Some(n) = &self.node {
            out.push(format!("Excluding {} for stage {stage}", n.host));
        }
        out
    }

    /// The listener events, in the order Spark posts them: each deprecated `...Blacklisted...`
    /// event right before its `...Excluded...` twin ("post both to keep backward compatibility").
    pub fn listener_events(&self, time: u64) -> Vec<ListenerEvent> {
        let mut out = Vec::new();
        let (stage_id, stage_attempt_id) = (self.stage_id, self.stage_attempt_id);
        for name in [
            ExclusionEventName::Blacklisted,
            ExclusionEventName::Excluded,
        ] {
            if let Some(e) = &self.executor {
                out.push(ListenerEvent::ExecutorExcludedForStage {
                    name,
                    time,
                    executor_id: e.executor_id.0.to_string(),
                    task_failures: e.task_failures,
                    stage_id,
                    stage_attempt_id,
                });
            }
        }
        for name in [
            ExclusionEventName::Blacklisted,
            ExclusionEventName::Excluded,
        ] {
            if let Some(n) = &self.node {
                out.push(ListenerEvent::NodeExcludedForStage {
                    name,
                    time,
                    host_id: n.host.clone(),
                    executor_failures: n.executor_failures,
                    stage_id,
                    stage_attempt_id,
                });
            }
        }
        out
    }
}

/// `TaskSetExcludelist`: one per TaskSetManager.
#[derive(Clone, Debug)]
pub struct TaskSetExcludelist {
    conf: TaskSetExcludeConf,
    stage_id: u32,
    stage_attempt_id: u32,
    /// Spark 4.0's `isDryRun`: the list exists only to hand failures to the application-level
    /// HealthTracker (`spark.excludeOnFailure.application.enabled` on, task and stage exclusion
    /// off). It counts and posts as usual, but no query ever says "excluded".
    is_dry_run: bool,
    /// `execToFailures`, handed to `HealthTracker.updateExcludedForSuccessfulTaskSet`.
    exec_to_failures: BTreeMap<ExecutorId, ExecutorFailuresInTaskSet>,
    /// `nodeToExecsWithFailures`: kept after the executors die.
    node_to_execs_with_failures: BTreeMap<String, BTreeSet<ExecutorId>>,
    node_to_excluded_task_indexes: BTreeMap<String, BTreeSet<u32>>,
    excluded_execs: BTreeSet<ExecutorId>,
    excluded_nodes: BTreeSet<String>,
    /// `latestFailureReason`, for the abort of a task set no executor can run.
    latest_failure_reason: Option<String>,
}

impl TaskSetExcludelist {
    pub fn new(conf: TaskSetExcludeConf, stage_id: u32, stage_attempt_id: u32) -> Self {
        Self::with_dry_run(conf, stage_id, stage_attempt_id, false)
    }

    /// The list a TaskSetManager makes when only application-level exclusion is on
    /// (`new TaskSetExcludelist(..., isDryRun = true)` in TaskSetManager's constructor).
    pub fn dry_run(conf: TaskSetExcludeConf, stage_id: u32, stage_attempt_id: u32) -> Self {
        Self::with_dry_run(conf, stage_id, stage_attempt_id, true)
    }

    fn with_dry_run(conf: TaskSetExcludeConf, stage_id: u32, attempt: u32, dry: bool) -> Self {
        TaskSetExcludelist {
            conf,
            stage_id,
            stage_attempt_id: attempt,
            is_dry_run: dry,
            exec_to_failures: BTreeMap::new(),
            node_to_execs_with_failures: BTreeMap::new(),
            node_to_excluded_task_indexes: BTreeMap::new(),
            excluded_execs: BTreeSet::new(),
            excluded_nodes: BTreeSet::new(),
            latest_failure_reason: None,
        }
    }

    pub fn is_dry_run(&self) -> bool {
        self.is_dry_run
    }

    /// `getLatestFailureReason` (Spark's `null` before any failure).
    #[cfg(test)]
    pub fn latest_failure_reason(&self) -> Option<&str> {
        self.latest_failure_reason.as_deref()
    }

    /// `execToFailures`.
    pub fn exec_to_failures(&self) -> &BTreeMap<ExecutorId, ExecutorFailuresInTaskSet> {
        &self.exec_to_failures
    }

    /// `isExecutorExcludedForTask`: this index failed `maxTaskAttemptsPerExecutor` times here.
    /// Says nothing of stage- or application-level exclusion (the scheduler checks those first).
    pub fn is_executor_excluded_for_task(&self, executor: ExecutorId, index: u32) -> bool {
        !self.is_dry_run
            && self.exec_to_failures.get(&executor).is_some_and(|f| {
                f.get_num_task_failures(index) >= self.conf.max_task_attempts_per_executor
            })
    }

    /// `isNodeExcludedForTask`.
    pub fn is_node_excluded_for_task(&self, node: &str, index: u32) -> bool {
        !self.is_dry_run
            && self
                .node_to_excluded_task_indexes
                .get(node)
                .is_some_and(|indices| indices.contains(&index))
    }

    /// `isExecutorExcludedForTaskSet` (false for an executor whose node is excluded: the
    /// scheduler checks the node first).
    pub fn is_executor_excluded_for_task_set(&self, executor: ExecutorId) -> bool {
        !self.is_dry_run && self.excluded_execs.contains(&executor)
    }

    /// `isNodeExcludedForTaskSet`.
    pub fn is_node_excluded_for_task_set(&self, node: &str) -> bool {
        !self.is_dry_run && self.excluded_nodes.contains(node)
    }

    /// `updateExcludedForFailedTask(host, exec, index, failureReason)` at `now_ms`.
    pub fn update_excluded_for_failed_task(
        &mut self,
        host: &str,
        exec: ExecutorId,
        index: u32,
        failure_reason: &str,
        now_ms: u64,
    ) -> StageExclusions {
        self.latest_failure_reason = Some(failure_reason.to_string());
        let exec_failures = self
            .exec_to_failures
            .entry(exec)
            .or_insert_with(|| ExecutorFailuresInTaskSet::new(host));
        exec_failures.update_with_failure(index, now_ms);
        let num_failures = exec_failures.num_unique_tasks_with_failures();
        let execs_on_node = self
            .node_to_execs_with_failures
            .entry(host.to_string())
            .or_default();
        execs_on_node.insert(exec);
        // Task attempts, not executors, count against the node (Spark: jobs abort on attempts).
        let failures_on_host: u32 = execs_on_node
            .iter()
            .filter_map(|e| self.exec_to_failures.get(e))
            .map(|f| f.get_num_task_failures(index))
            .sum();
        if failures_on_host >= self.conf.max_task_attempts_per_node {
            self.node_to_excluded_task_indexes
                .entry(host.to_string())
                .or_default()
                .insert(index);
        }
        let mut out = StageExclusions {
            stage_id: self.stage_id,
            stage_attempt_id: self.stage_attempt_id,
            ..StageExclusions::default()
        };
        if num_failures < self.conf.max_failures_per_exec_stage || !self.excluded_execs.insert(exec)
        {
            return out;
        }
        out.executor = Some(ExecutorExcludedForStage {
            executor_id: exec,
            task_failures: num_failures,
        });
        out.node = self.exclude_node_if_enough(host);
        out
    }

    /// The node check after an executor's exclusion: its executors with failures that are
    /// excluded for the task set (`execsWithFailuresOnNode.intersect(excludedExecs)`).
    fn exclude_node_if_enough(&mut self, host: &str) -> Option<NodeExcludedForStage> {
        let excluded_on_node = self
            .node_to_execs_with_failures
            .get(host)
            .map_or(0, |execs| {
                execs
                    .iter()
                    .filter(|e| self.excluded_execs.contains(e))
                    .count() as u32
            });
        if excluded_on_node < self.conf.max_failed_exec_per_node_stage
            || !self.excluded_nodes.insert(host.to_string())
        {
            return None;
        }
        Some(NodeExcludedForStage {
            host: host.to_string(),
            executor_failures: excluded_on_node,
        })
    }
}

/// One host of `hostToExecutors`: the executors TaskSchedulerImpl knows on it.
#[derive(Clone, Copy, Debug)]
pub struct HostExecutors<'a> {
    pub host: &'a str,
    pub executors: &'a [ExecutorId],
}

/// What the application-level exclusion answers (Spark's `HealthTracker`, which this file does
/// not name: the HealthTracker builds on this file's `ExecutorFailuresInTaskSet`, never the
/// other way round).
pub trait ApplicationExclusions {
    fn is_node_excluded(&self, host: &str) -> bool;
    fn is_executor_excluded(&self, executor: ExecutorId) -> bool;
}

impl TaskSetExcludelist {
    /// `TaskSetManager.getCompletelyExcludedTaskIfAny`'s test of one pending task index (4.0.0
    /// jar): every host is excluded for it (application, task set or this index) or has only
    /// executors excluded for it (application, task set or this index). `app` is the
    /// HealthTracker when application-level exclusion is on. With no executor registered
    /// yet nothing counts as unschedulable (Spark's `hostToExecutors.nonEmpty`).
    pub fn is_excluded_everywhere(
        &self,
        index: u32,
        hosts: &[HostExecutors<'_>],
        app: Option<&dyn ApplicationExclusions>,
    ) -> bool {
        !hosts.is_empty()
            && hosts.iter().all(|h| {
                let node = app.is_some_and(|t| t.is_node_excluded(h.host))
                    || self.is_node_excluded_for_task_set(h.host)
                    || self.is_node_excluded_for_task(h.host, index);
                node || h.executors.iter().all(|e| {
                    app.is_some_and(|t| t.is_executor_excluded(*e))
                        || self.is_executor_excluded_for_task_set(*e)
                        || self.is_executor_excluded_for_task(*e, index)
                })
            })
    }

    /// `TaskSetManager.abortSinceCompletelyExcludedOnFailure`'s message (the jar's template,
    /// interpolated, then `stripMargin`), naming the task set as `TaskSet.toString` does.
    pub fn completely_excluded_abort_message(&self, index: u32, partition: u32) -> String {
        let reason = self.latest_failure_reason.as_deref().unwrap_or("null");
        let text = format!(
            "\n         |Aborting TaskSet {}.{} because task {index} (partition {partition})\n         \
             |cannot run anywhere due to node and executor excludeOnFailure.\n         |Most \
             recent failure:\n         |{reason}\n         |\n         |ExcludeOnFailure behavior \
             can be configured via spark.excludeOnFailure.*.\n         |",
            self.stage_id, self.stage_attempt_id
        );
        strip_margin(&text)
    }
}

/// Scala's `StringOps.stripMargin`: on each line, a prefix of blanks or control characters
/// followed by `|` is removed.
fn strip_margin(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let rest = line.trim_start_matches(|c: char| c <= ' ' && c != '\n');
            rest.strip_prefix('|').unwrap_or(line)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    fn stage_events(x: &StageExclusions, time: u64) -> Vec<ListenerEvent> {
        x.listener_events(time)
    }

    fn executor_excluded(time: u64, exec: u32, failures: u32, attempt: u32) -> Vec<ListenerEvent> {
        [
            ExclusionEventName::Blacklisted,
            ExclusionEventName::Excluded,
        ]
        .into_iter()
        .map(|name| ListenerEvent::ExecutorExcludedForStage {
            name,
            time,
            executor_id: exec.to_string(),
            task_failures: failures,
            stage_id: 0,
            stage_attempt_id: attempt,
        })
        .collect()
    }

    fn node_excluded(time: u64, host: &str, failures: u32, attempt: u32) -> Vec<ListenerEvent> {
        [
            ExclusionEventName::Blacklisted,
            ExclusionEventName::Excluded,
        ]
        .into_iter()
        .map(|name| ListenerEvent::NodeExcludedForStage {
            name,
            time,
            host_id: host.to_string(),
            executor_failures: failures,
            stage_id: 0,
            stage_attempt_id: attempt,
        })
        .collect()
    }

    /// Ports TaskSetExcludelistSuite "Excluding tasks, executors, and nodes" (exec1..exec4 are
    /// executors 1..4): one failure excludes the task index on the executor only; a second index
    /// excludes the executor for the stage; two such executors exclude the node.
    #[test]
    fn excluding_tasks_executors_and_nodes() {
        let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 0, 0);
        let first = list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", 0);
        assert!(first.is_empty());
        for exec in 1..=4 {
            for index in 0..10 {
                let should = exec == 1 && index == 0;
                assert_eq!(list.is_executor_excluded_for_task(e(exec), index), should);
            }
        }
        assert!(!list.is_executor_excluded_for_task_set(e(1)));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        let second = list.update_excluded_for_failed_task("hostA", e(1), 1, "testing", 0);
        assert!(list.is_executor_excluded_for_task_set(e(1)));
        assert_eq!(stage_events(&second, 0), executor_excluded(0, 1, 2, 0));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        let third = list.update_excluded_for_failed_task("hostA", e(2), 0, "testing", 0);
        assert!(third.is_empty());
        assert!(list.is_executor_excluded_for_task_set(e(1)));
        assert!(!list.is_executor_excluded_for_task_set(e(2)));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        let fourth = list.update_excluded_for_failed_task("hostA", e(2), 1, "testing", 0);
        assert!(list.is_executor_excluded_for_task_set(e(2)));
        assert!(list.is_node_excluded_for_task_set("hostA"));
        let mut want = executor_excluded(0, 2, 2, 0);
        want.extend(node_excluded(0, "hostA", 2, 0));
        assert_eq!(stage_events(&fourth, 0), want);
        assert_eq!(
            fourth.log_lines(),
            vec![
                "Excluding executor 2 for stage 0",
                "Excluding hostA for stage 0"
            ]
        );

        for exec in 1..=4 {
            for index in 0..10 {
                let bad_exec = exec == 1 || exec == 2;
                let bad_index = index == 0 || index == 1;
                assert_eq!(
                    list.is_executor_excluded_for_task(e(exec), index),
                    bad_exec && bad_index,
                    "exec {exec} index {index}"
                );
                assert_eq!(list.is_executor_excluded_for_task_set(e(exec)), bad_exec);
            }
        }
        let failures = list.exec_to_failures();
        assert_eq!(
            failures.keys().copied().collect::<Vec<_>>(),
            vec![e(1), e(2)]
        );
        for f in failures.values() {
            let got: Vec<_> = f.task_failures().collect();
            let once = TaskFailureCount {
                count: 1,
                failure_time_ms: 0,
            };
            assert_eq!(got, vec![(0, once), (1, once)]);
        }
    }

    /// Ports TaskSetExcludelistSuite "multiple attempts for the same task count once": the node
    /// counts task attempts for a task's exclusion, the stage counts unique tasks.
    #[test]
    fn multiple_attempts_for_the_same_task_count_once() {
        let conf = TaskSetExcludeConf {
            max_task_attempts_per_executor: 2,
            max_task_attempts_per_node: 3,
            max_failures_per_exec_stage: 2,
            max_failed_exec_per_node_stage: 3,
        };
        let mut list = TaskSetExcludelist::new(conf, 0, 0);
        let mut time = 0;
        let a = list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", time);
        let b = list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", time);
        assert!(a.is_empty() && b.is_empty());
        assert!(list.is_executor_excluded_for_task(e(1), 0));
        assert!(!list.is_node_excluded_for_task("hostA", 0));
        assert!(!list.is_executor_excluded_for_task_set(e(1)));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        time += 1;
        let c = list.update_excluded_for_failed_task("hostA", e(2), 0, "testing", time);
        assert!(c.is_empty());
        assert!(list.is_node_excluded_for_task("hostA", 0));
        assert!(!list.is_executor_excluded_for_task_set(e(2)));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        time += 1;
        let d = list.update_excluded_for_failed_task("hostA", e(1), 1, "testing", time);
        assert!(list.is_executor_excluded_for_task_set(e(1)));
        assert_eq!(stage_events(&d, time), executor_excluded(time, 1, 2, 0));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        time += 1;
        let f = list.update_excluded_for_failed_task("hostA", e(2), 2, "testing", time);
        assert!(list.is_executor_excluded_for_task_set(e(2)));
        assert_eq!(stage_events(&f, time), executor_excluded(time, 2, 2, 0));
        assert!(!list.is_node_excluded_for_task_set("hostA"));

        time += 1;
        let g = list.update_excluded_for_failed_task("hostA", e(3), 3, "testing", time);
        assert!(g.is_empty());
        let h = list.update_excluded_for_failed_task("hostA", e(3), 4, "testing", time);
        assert!(list.is_executor_excluded_for_task_set(e(3)));
        assert!(list.is_node_excluded_for_task_set("hostA"));
        let mut want = executor_excluded(time, 3, 2, 0);
        want.extend(node_excluded(time, "hostA", 3, 0));
        assert_eq!(stage_events(&h, time), want);
    }

    /// Ports TaskSetExcludelistSuite "only exclude nodes for the task set when all the excluded
    /// executors are all on same host".
    #[test]
    fn only_exclude_nodes_when_the_excluded_executors_share_a_host() {
        let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 0, 0);
        list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", 0);
        let a = list.update_excluded_for_failed_task("hostA", e(1), 1, "testing", 0);
        assert_eq!(stage_events(&a, 0), executor_excluded(0, 1, 2, 0));
        assert!(!list.is_node_excluded_for_task_set("hostA"));
        list.update_excluded_for_failed_task("hostB", e(2), 0, "testing", 1);
        let b = list.update_excluded_for_failed_task("hostB", e(2), 1, "testing", 1);
        assert_eq!(stage_events(&b, 1), executor_excluded(1, 2, 2, 0));
        assert!(list.is_executor_excluded_for_task_set(e(1)));
        assert!(list.is_executor_excluded_for_task_set(e(2)));
        assert!(!list.is_node_excluded_for_task_set("hostA"));
        assert!(!list.is_node_excluded_for_task_set("hostB"));
    }

    /// ExecutorFailuresInTaskSet.updateWithFailure keeps the latest time (`math.max`) and counts
    /// every attempt of the index; getNumTaskFailures is 0 for an index that never failed.
    #[test]
    fn executor_failures_keep_the_latest_time_and_count_attempts() {
        let mut f = ExecutorFailuresInTaskSet::new("hostA");
        f.update_with_failure(3, 50);
        f.update_with_failure(3, 20);
        f.update_with_failure(5, 10);
        assert_eq!(f.num_unique_tasks_with_failures(), 2);
        assert_eq!(f.get_num_task_failures(3), 2);
        assert_eq!(f.get_num_task_failures(4), 0);
        let got: Vec<_> = f.task_failures().collect();
        assert_eq!(
            got[0],
            (
                3,
                TaskFailureCount {
                    count: 2,
                    failure_time_ms: 50
                }
            )
        );
    }

    /// TaskSetExcludelist (4.0.0 jar): every `is...Excluded...` query starts with `!isDryRun`,
    /// while `updateExcludedForFailedTask` counts, logs and posts as usual; the latest failure
    /// reason is kept for TaskSetManager.abortSinceCompletelyExcludedOnFailure.
    #[test]
    fn a_dry_run_list_counts_and_posts_but_excludes_nothing() {
        let mut list = TaskSetExcludelist::dry_run(TaskSetExcludeConf::default(), 4, 1);
        assert_eq!(list.latest_failure_reason(), None);
        list.update_excluded_for_failed_task("hostA", e(1), 0, "first", 5);
        let x = list.update_excluded_for_failed_task("hostA", e(1), 1, "second", 6);
        assert_eq!(x.log_lines(), vec!["Excluding executor 1 for stage 4"]);
        assert_eq!(x.listener_events(6).len(), 2);
        assert!(!list.is_executor_excluded_for_task(e(1), 0));
        assert!(!list.is_executor_excluded_for_task_set(e(1)));
        assert!(!list.is_node_excluded_for_task("hostA", 0));
        assert_eq!(list.latest_failure_reason(), Some("second"));
        assert_eq!(
            list.exec_to_failures()[&e(1)].num_unique_tasks_with_failures(),
            2
        );
    }

    /// TaskSetManager.getCompletelyExcludedTaskIfAny (4.0.0 jar): a task is unschedulable only
    /// when every host is excluded for it or has only excluded executors; none registered yet
    /// is not "unschedulable".
    #[test]
    fn a_task_is_excluded_everywhere_only_when_no_host_can_run_it() {
        let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 2, 0);
        list.update_excluded_for_failed_task("hostA", e(1), 0, "boom", 0);
        let a = [e(1)];
        let ab = [e(1), e(2)];
        let one = [HostExecutors {
            host: "hostA",
            executors: &a,
        }];
        assert!(list.is_excluded_everywhere(0, &one, None));
        assert!(!list.is_excluded_everywhere(1, &one, None));
        let two = [HostExecutors {
            host: "hostA",
            executors: &ab,
        }];
        assert!(!list.is_excluded_everywhere(0, &two, None));
        assert!(!list.is_excluded_everywhere(0, &[], None));
    }

    /// TaskSetManager.abortSinceCompletelyExcludedOnFailure's text (the 4.0.0 jar's template
    /// through `stripMargin`; TaskSet.toString is `TaskSet <stage>.<attempt>`), with the latest
    /// failure reason's own lines kept.
    #[test]
    fn the_abort_message_names_the_task_and_the_latest_failure() {
        let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 3, 1);
        list.update_excluded_for_failed_task("hostA", e(1), 5, "first", 0);
        list.update_excluded_for_failed_task("hostA", e(1), 5, "java.lang.Exception: x\n\tat Y", 0);
        assert_eq!(
            list.completely_excluded_abort_message(5, 7),
            "\nAborting TaskSet 3.1 because task 5 (partition 7)\ncannot run anywhere due to node \
             and executor excludeOnFailure.\nMost recent failure:\njava.lang.Exception: x\n\tat \
             Y\n\nExcludeOnFailure behavior can be configured via spark.excludeOnFailure.*.\n"
        );
    }

    /// An executor already excluded for the stage is not excluded (nor posted) again.
    #[test]
    fn an_executor_is_excluded_for_a_stage_once() {
        let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 0, 0);
        list.update_excluded_for_failed_task("hostA", e(1), 0, "x", 0);
        assert!(
            !list
                .update_excluded_for_failed_task("hostA", e(1), 1, "x", 0)
                .is_empty()
        );
        assert!(
            list.update_excluded_for_failed_task("hostA", e(1), 2, "x", 0)
                .is_empty()
        );
    }
}
