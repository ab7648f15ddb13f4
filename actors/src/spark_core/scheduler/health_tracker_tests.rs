//! Cases of Spark 4.0's `HealthTrackerSuite` (core/src/test/scala/org/apache/spark/scheduler/)
//! on the pure [`HealthTracker`]: each test names the suite's test it ports. Executors "1",
//! "2", ... are `ExecutorId(1)`, ...; the ManualClock is the `now` passed to each call; the
//! mocked listener bus and allocation client are the returned steps and events.

use super::*;
use crate::spark_core::scheduler::task_set_exclude_list::TaskSetExcludelist;

const TIMEOUT: u64 = DEFAULT_TIMEOUT_MS;

fn e(n: u32) -> ExecutorId {
    ExecutorId(n)
}

/// The suite's tracker: `spark.excludeOnFailure.enabled=true`, defaults otherwise, no
/// allocation client.
fn tracker() -> HealthTracker {
    tracker_with(&ExcludeOnFailureConf {
        enabled: Some(true),
        ..ExcludeOnFailureConf::default()
    })
}

fn tracker_with(c: &ExcludeOnFailureConf) -> HealthTracker {
    let mut conf = HealthTrackerConf::from_conf(c).expect("valid");
    conf.has_allocation_client = false;
    HealthTracker::new(conf)
}

fn with_client(c: &ExcludeOnFailureConf) -> HealthTracker {
    HealthTracker::new(HealthTrackerConf::from_conf(c).expect("valid"))
}

fn task_set(stage: u32) -> TaskSetExcludelist {
    TaskSetExcludelist::new(ExcludeOnFailureConf::default().task_set_conf(), stage, 0)
}

/// `(0 until n).foreach(updateExcludedForFailedTask(host, exec, index))` at `now`.
fn fail_indices(list: &mut TaskSetExcludelist, host: &str, exec: u32, n: u32, now: u64) {
    for index in 0..n {
        list.update_excluded_for_failed_task(host, e(exec), index, "testing", now);
    }
}

fn excluded_set(t: &HealthTracker) -> Vec<u32> {
    (1..=100)
        .filter(|n| t.is_executor_excluded(e(*n)))
        .collect()
}

fn executor_excluded(time: u64, exec: u32, failures: u32) -> Vec<ListenerEvent> {
    [
        ExclusionEventName::Blacklisted,
        ExclusionEventName::Excluded,
    ]
    .map(|name| ListenerEvent::ExecutorExcluded {
        name,
        time,
        executor_id: exec.to_string(),
        task_failures: failures,
    })
    .to_vec()
}

fn node_excluded(time: u64, host: &str, failures: u32) -> Vec<ListenerEvent> {
    [
        ExclusionEventName::Blacklisted,
        ExclusionEventName::Excluded,
    ]
    .map(|name| ListenerEvent::NodeExcluded {
        name,
        time,
        host_id: host.to_string(),
        executor_failures: failures,
    })
    .to_vec()
}

/// HealthTrackerSuite "executors can be excluded with only a few failures per stage": one
/// failure in every other successful task set; the executor is excluded at the second, and
/// later successes do not include it again.
#[test]
fn executors_can_be_excluded_with_only_a_few_failures_per_stage() {
    let mut t = tracker();
    let until = 2;
    let mut so_far = 0;
    let mut events = Vec::new();
    for stage in 0..until * 10 {
        let mut list = task_set(stage);
        if stage % 2 == 0 {
            list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", 0);
            so_far += 1;
        }
        let u = t.update_excluded_for_successful_task_set(stage, 0, list.exec_to_failures(), 0);
        events.extend(u.listener_events());
        assert_eq!(so_far, stage / 2 + 1);
        let want: Vec<u32> = if so_far < until { vec![] } else { vec![1] };
        assert_eq!(excluded_set(&t), want, "stage {stage}");
    }
    assert_eq!(events, executor_excluded(0, 1, until));
}

/// HealthTrackerSuite "executors aren't excluded as a result of tasks in failed task sets".
#[test]
fn executors_are_not_excluded_for_tasks_in_failed_task_sets() {
    let t = tracker();
    for stage in 0..20 {
        let mut list = task_set(stage);
        list.update_excluded_for_failed_task("hostA", e(1), 0, "testing", 0);
    }
    assert!(excluded_set(&t).is_empty());
}

/// HealthTrackerSuite "stage exclude updates correctly on stage success" and "... on stage
/// failure": only a successful task set counts its failures for the application.
#[test]
fn stage_exclude_updates_correctly_on_stage_success_and_failure() {
    for succeed in [true, false] {
        let mut t = tracker();
        let mut list = task_set(0);
        fail_indices(&mut list, "hostA", 1, 2, 0);
        assert!(list.is_executor_excluded_for_task_set(e(1)));
        assert!(excluded_set(&t).is_empty());
        if succeed {
            let u = t.update_excluded_for_successful_task_set(0, 0, list.exec_to_failures(), 0);
            assert_eq!(excluded_set(&t), vec![1]);
            assert_eq!(u.listener_events(), executor_excluded(0, 1, 2));
        } else {
            assert!(excluded_set(&t).is_empty());
        }
    }
}

/// HealthTrackerSuite "excluded executors and nodes get recovered with time".
#[test]
fn excluded_executors_and_nodes_get_recovered_with_time() {
    let mut t = tracker();
    let mut list0 = task_set(0);
    fail_indices(&mut list0, "hostA", 1, 4, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, list0.exec_to_failures(), 0);
    assert!(t.excluded_node_list().is_empty());
    assert_eq!(excluded_set(&t), vec![1]);
    assert_eq!(u.listener_events(), executor_excluded(0, 1, 4));

    let mut list1 = task_set(1);
    fail_indices(&mut list1, "hostA", 2, 4, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, list1.exec_to_failures(), 0);
    assert_eq!(
        t.excluded_node_list(),
        BTreeSet::from(["hostA".to_string()])
    );
    assert!(t.is_node_excluded("hostA"));
    assert_eq!(excluded_set(&t), vec![1, 2]);
    let mut want = executor_excluded(0, 2, 4);
    want.extend(node_excluded(0, "hostA", 2));
    assert_eq!(u.listener_events(), want);
    assert_eq!(
        u.log_lines(),
        vec![
            (
                HealthLogLevel::Info,
                "Excluding executor id: 2 because it has 4 task failures in successful task sets"
                    .to_string()
            ),
            (
                HealthLogLevel::Info,
                "Excluding node hostA because it has 2 executors excluded: HashSet(1, 2)"
                    .to_string()
            ),
        ]
    );

    let timeout = TIMEOUT + 1;
    let u = t.apply_exclude_on_failure_timeout(timeout);
    assert!(t.excluded_node_list().is_empty());
    assert!(!t.is_node_excluded("hostA"));
    assert!(excluded_set(&t).is_empty());
    let unexcluded: Vec<ListenerEvent> = u.listener_events();
    let name = |n| n;
    assert_eq!(
        unexcluded,
        vec![
            ListenerEvent::ExecutorUnexcluded {
                name: name(ExclusionEventName::Blacklisted),
                time: timeout,
                executor_id: "1".into()
            },
            ListenerEvent::ExecutorUnexcluded {
                name: ExclusionEventName::Excluded,
                time: timeout,
                executor_id: "1".into()
            },
            ListenerEvent::ExecutorUnexcluded {
                name: ExclusionEventName::Blacklisted,
                time: timeout,
                executor_id: "2".into()
            },
            ListenerEvent::ExecutorUnexcluded {
                name: ExclusionEventName::Excluded,
                time: timeout,
                executor_id: "2".into()
            },
            ListenerEvent::NodeUnexcluded {
                name: ExclusionEventName::Blacklisted,
                time: timeout,
                host_id: "hostA".into()
            },
            ListenerEvent::NodeUnexcluded {
                name: ExclusionEventName::Excluded,
                time: timeout,
                host_id: "hostA".into()
            },
        ]
    );
    assert_eq!(
        u.log_lines(),
        vec![
            (
                HealthLogLevel::Info,
                "Removing executors Set(1, 2) from exclude list because the executors have \
                 reached the timed out"
                    .to_string()
            ),
            (
                HealthLogLevel::Info,
                "Removing nodes Set(hostA) from exclude list because the nodes have reached has \
                 timed out"
                    .to_string()
            ),
        ]
    );

    // One more failure: its count started again from 0, so nothing is excluded.
    let mut list2 = task_set(2);
    list2.update_excluded_for_failed_task("hostA", e(1), 0, "testing", timeout);
    let u = t.update_excluded_for_successful_task_set(2, 0, list2.exec_to_failures(), timeout);
    assert!(u.is_empty());
    assert!(t.excluded_node_list().is_empty());
    assert!(excluded_set(&t).is_empty());
}

/// HealthTrackerSuite "exclude can handle lost executors": a removed executor's exclusion
/// stays, so a second bad executor on the node excludes the node; each exclusion times out on
/// its own, and the node's timeout posts no executor event.
#[test]
fn exclude_can_handle_lost_executors() {
    let mut t = tracker();
    let mut list0 = task_set(0);
    fail_indices(&mut list0, "hostA", 1, 4, 0);
    t.handle_removed_executor(e(1));
    let u = t.update_excluded_for_successful_task_set(0, 0, list0.exec_to_failures(), 0);
    assert!(t.is_executor_excluded(e(1)));
    assert_eq!(u.listener_events(), executor_excluded(0, 1, 4));
    let t1 = TIMEOUT / 2;

    let mut list1 = task_set(1);
    fail_indices(&mut list1, "hostA", 2, 4, t1);
    t.handle_removed_executor(e(2));
    let u = t.update_excluded_for_successful_task_set(1, 0, list1.exec_to_failures(), t1);
    assert!(t.is_executor_excluded(e(1)) && t.is_executor_excluded(e(2)));
    assert!(t.is_node_excluded("hostA"));
    let mut want = executor_excluded(t1, 2, 4);
    want.extend(node_excluded(t1, "hostA", 2));
    assert_eq!(u.listener_events(), want);

    let t2 = TIMEOUT / 2 + 1;
    let u = t.apply_exclude_on_failure_timeout(t1 + t2);
    assert!(!t.is_executor_excluded(e(1)));
    assert_eq!(
        u.steps,
        vec![HealthStep::ExecutorsUnexcluded {
            executors: vec![e(1)]
        }]
    );
    assert!(t.is_executor_excluded(e(2)));
    assert!(t.is_node_excluded("hostA"));
    assert!(t.excluded_status(e(1)).is_none());
    assert!(
        !t.excluded_executors_on_node("hostA")
            .unwrap()
            .contains(&e(1))
    );

    let u = t.apply_exclude_on_failure_timeout(t1 + t2 + t1);
    assert_eq!(t.node_expiry_ms("hostA"), None);
    let nodes: Vec<_> = u
        .listener_events()
        .into_iter()
        .filter(|ev| matches!(ev, ListenerEvent::NodeUnexcluded { .. }))
        .collect();
    assert_eq!(nodes.len(), 2);
}

/// HealthTrackerSuite "task failures expire with time".
#[test]
fn task_failures_expire_with_time() {
    let mut t = tracker();
    let mut stage = 0;
    let mut fail_one = |t: &mut HealthTracker, exec: u32, now: u64| {
        let mut list = task_set(stage);
        list.update_excluded_for_failed_task(&format!("host-{exec}"), e(exec), 0, "testing", now);
        let u = t.update_excluded_for_successful_task_set(stage, 0, list.exec_to_failures(), now);
        stage += 1;
        u
    };
    fail_one(&mut t, 1, 0);
    fail_one(&mut t, 2, 0);
    assert!(excluded_set(&t).is_empty());
    assert_eq!(t.next_expiry_ms(), None);

    let t0 = TIMEOUT + 1;
    t.apply_exclude_on_failure_timeout(t0);
    assert_eq!(t.next_expiry_ms(), None);
    fail_one(&mut t, 1, t0);
    assert!(excluded_set(&t).is_empty());

    let t1 = t0 + TIMEOUT - 1;
    let u = fail_one(&mut t, 1, t1);
    t.apply_exclude_on_failure_timeout(t1);
    assert_eq!(excluded_set(&t), vec![1]);
    assert_eq!(u.listener_events(), executor_excluded(t1, 1, 2));
    assert_eq!(t.next_expiry_ms(), Some(t1 + TIMEOUT));

    let t2 = t1 + TIMEOUT - 1;
    fail_one(&mut t, 3, t2);
    let u = fail_one(&mut t, 3, t2);
    t.apply_exclude_on_failure_timeout(t2);
    assert_eq!(excluded_set(&t), vec![1, 3]);
    assert_eq!(u.listener_events(), executor_excluded(t2, 3, 2));
    assert_eq!(t.next_expiry_ms(), Some(t1 + TIMEOUT));

    let now = t1 + TIMEOUT + 1;
    let u = t.apply_exclude_on_failure_timeout(now);
    assert_eq!(excluded_set(&t), vec![3]);
    assert_eq!(u.listener_events().len(), 2);
    assert_eq!(t.next_expiry_ms(), Some(t2 + TIMEOUT));

    let now = t2 + TIMEOUT - 1;
    fail_one(&mut t, 4, now);
    t.apply_exclude_on_failure_timeout(now);
    assert_eq!(excluded_set(&t), vec![3]);
    assert_eq!(t.next_expiry_ms(), Some(t2 + TIMEOUT));

    let now = t2 + TIMEOUT + 1;
    let u = t.apply_exclude_on_failure_timeout(now);
    assert!(excluded_set(&t).is_empty());
    assert_eq!(
        u.steps,
        vec![HealthStep::ExecutorsUnexcluded {
            executors: vec![e(3)]
        }]
    );
    // One task failure is still counted, but nextExpiryTime does not track task failures.
    assert_eq!(t.next_expiry_ms(), None);
}

/// HealthTrackerSuite "task failure timeout works as expected for long-running tasksets": each
/// failure expires from its own time, not from its task set's end.
#[test]
fn task_failure_timeout_works_for_long_running_task_sets() {
    let mut t = tracker();
    let mut list1 = task_set(1);
    let mut list2 = task_set(2);
    list1.update_excluded_for_failed_task("host-1", e(1), 0, "testing", 0);
    let mut now = TIMEOUT * 5;
    list2.update_excluded_for_failed_task("host-1", e(1), 0, "testing", now);
    now += 1;
    t.update_excluded_for_successful_task_set(2, 0, list2.exec_to_failures(), now);
    now += 1;
    t.update_excluded_for_successful_task_set(1, 0, list1.exec_to_failures(), now);
    assert!(excluded_set(&t).is_empty());
}

/// HealthTrackerSuite "only exclude nodes for the application when enough executors have
/// failed on that specific host".
#[test]
fn only_exclude_nodes_when_enough_executors_failed_on_that_host() {
    let mut t = tracker();
    let mut list0 = task_set(0);
    fail_indices(&mut list0, "hostA", 1, 2, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, list0.exec_to_failures(), 0);
    assert_eq!(excluded_set(&t), vec![1]);
    assert_eq!(u.listener_events(), executor_excluded(0, 1, 2));
    assert!(t.excluded_node_list().is_empty());

    let mut list1 = task_set(1);
    fail_indices(&mut list1, "hostB", 2, 2, 0);
    let u = t.update_excluded_for_successful_task_set(1, 0, list1.exec_to_failures(), 0);
    assert_eq!(excluded_set(&t), vec![1, 2]);
    assert_eq!(u.listener_events(), executor_excluded(0, 2, 2));
    assert!(t.excluded_node_list().is_empty());

    let mut list2 = task_set(0);
    fail_indices(&mut list2, "hostA", 3, 2, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, list2.exec_to_failures(), 0);
    assert_eq!(excluded_set(&t), vec![1, 2, 3]);
    let mut want = executor_excluded(0, 3, 2);
    want.extend(node_excluded(0, "hostA", 2));
    assert_eq!(u.listener_events(), want);
    assert_eq!(
        t.excluded_node_list(),
        BTreeSet::from(["hostA".to_string()])
    );
}

/// HealthTrackerSuite "exclude still respects legacy configs" (and the two WARN lines of
/// HealthTracker.isExcludeOnFailureEnabled in the 4.0.0 jar).
#[test]
fn exclude_still_respects_legacy_configs() {
    let mut c = ExcludeOnFailureConf::default();
    assert!(!c.is_exclude_on_failure_enabled().enabled);
    c.legacy_timeout_ms = Some(5000);
    let on = c.is_exclude_on_failure_enabled();
    assert!(on.enabled);
    assert_eq!(
        on.legacy_warning.as_deref(),
        Some(
            "Turning on excludeOnFailure due to legacy configuration: \
             spark.scheduler.executorTaskExcludeOnFailureTime > 0"
        )
    );
    assert_eq!(c.exclude_on_failure_timeout_ms(), 5000);
    c.timeout_ms = Some(1000);
    assert_eq!(c.exclude_on_failure_timeout_ms(), 1000);
    c.legacy_timeout_ms = Some(0);
    let off = c.is_exclude_on_failure_enabled();
    assert!(!off.enabled);
    assert_eq!(
        off.legacy_warning.as_deref(),
        Some(
            "Turning off excludeOnFailure due to legacy configuration: \
             spark.scheduler.executorTaskExcludeOnFailureTime == 0"
        )
    );
    c.enabled = Some(true);
    assert_eq!(c.is_exclude_on_failure_enabled().legacy_warning, None);
    assert!(c.is_exclude_on_failure_enabled().enabled);
    assert_eq!(c.exclude_on_failure_timeout_ms(), 1000);
}

/// Spark 4.0.0's split keys (internal/config/package$, version 4.0.0):
/// `spark.excludeOnFailure.application.enabled` wins over `spark.excludeOnFailure.enabled` for
/// the HealthTracker, `...taskAndStage.enabled` for the task-set lists (which have no legacy
/// fallback).
#[test]
fn application_and_task_and_stage_keys_override_enabled() {
    let c = ExcludeOnFailureConf {
        enabled: Some(true),
        application_enabled: Some(false),
        ..ExcludeOnFailureConf::default()
    };
    assert!(!c.is_exclude_on_failure_enabled().enabled);
    assert!(c.task_and_stage_enabled());
    let c = ExcludeOnFailureConf {
        task_and_stage_enabled: Some(false),
        enabled: Some(true),
        ..ExcludeOnFailureConf::default()
    };
    assert!(!c.task_and_stage_enabled());
    let legacy = ExcludeOnFailureConf {
        legacy_timeout_ms: Some(5000),
        ..ExcludeOnFailureConf::default()
    };
    assert!(legacy.is_exclude_on_failure_enabled().enabled && !legacy.task_and_stage_enabled());
}

/// HealthTrackerSuite "check exclude configuration invariants", with the 4.0.0 jar's texts
/// (HealthTracker$.mustBePos$1 and the node-attempts check: plain IllegalArgumentException).
#[test]
fn check_exclude_configuration_invariants() {
    let base = ExcludeOnFailureConf::default();
    for (max_task_failures, node_attempts) in [(2, 2), (2, 3)] {
        let c = ExcludeOnFailureConf {
            task_max_failures: max_task_failures,
            max_task_attempts_per_node: node_attempts,
            ..base
        };
        assert_eq!(
            c.validate().unwrap_err().message,
            format!(
                "spark.excludeOnFailure.task.maxTaskAttemptsPerNode ( = {node_attempts}) was >= \
                 spark.task.maxFailures ( = {max_task_failures} ). Though excludeOnFailure is \
                 enabled, with this configuration, Spark will not be robust to one bad node. \
                 Decrease spark.excludeOnFailure.task.maxTaskAttemptsPerNode, increase \
                 spark.task.maxFailures, or disable excludeOnFailure with \
                 spark.excludeOnFailure.enabled"
            )
        );
    }
    type Set = fn(&mut ExcludeOnFailureConf);
    let zeros: [(&str, Set); 7] = [
        (
            "spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor",
            |c| c.max_task_attempts_per_executor = 0,
        ),
        ("spark.excludeOnFailure.task.maxTaskAttemptsPerNode", |c| {
            c.max_task_attempts_per_node = 0
        }),
        (
            "spark.excludeOnFailure.stage.maxFailedTasksPerExecutor",
            |c| c.max_failures_per_exec_stage = 0,
        ),
        (
            "spark.excludeOnFailure.stage.maxFailedExecutorsPerNode",
            |c| c.max_failed_exec_per_node_stage = 0,
        ),
        (
            "spark.excludeOnFailure.application.maxFailedTasksPerExecutor",
            |c| c.max_failures_per_exec = 0,
        ),
        (
            "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
            |c| c.max_failed_exec_per_node = 0,
        ),
        ("spark.excludeOnFailure.timeout", |c| c.timeout_ms = Some(0)),
    ];
    for (key, set) in zeros {
        let mut c = base;
        set(&mut c);
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            format!("{key} was 0, but must be > 0."),
        );
    }
    let legacy = ExcludeOnFailureConf {
        legacy_timeout_ms: Some(-5),
        ..base
    };
    assert_eq!(
        legacy.validate().unwrap_err().message,
        "spark.scheduler.executorTaskExcludeOnFailureTime was -5, but must be > 0."
    );
    assert_eq!(base.validate(), Ok(()));
}

fn kill_conf(kill: bool) -> ExcludeOnFailureConf {
    ExcludeOnFailureConf {
        enabled: Some(true),
        kill_excluded_executors: kill,
        ..ExcludeOnFailureConf::default()
    }
}

fn kills(u: &HealthUpdate) -> Vec<HealthStep> {
    u.steps
        .iter()
        .filter(|s| {
            matches!(
                s,
                HealthStep::KillExecutor { .. } | HealthStep::KillExecutorsOnHost { .. }
            )
        })
        .cloned()
        .collect()
}

/// HealthTrackerSuite "excluding kills executors, configured by EXCLUDE_ON_FAILURE_KILL_ENABLED":
/// the node is on the excluded list before its executors are killed (its step comes first).
#[test]
fn excluding_kills_executors_when_configured() {
    let mut t = with_client(&kill_conf(false));
    let mut l0 = task_set(0);
    fail_indices(&mut l0, "hostA", 1, 4, 0);
    let u0 = t.update_excluded_for_successful_task_set(0, 0, l0.exec_to_failures(), 0);
    let mut l1 = task_set(1);
    fail_indices(&mut l1, "hostA", 2, 4, 0);
    let u1 = t.update_excluded_for_successful_task_set(0, 0, l1.exec_to_failures(), 0);
    assert!(kills(&u0).is_empty() && kills(&u1).is_empty());

    let mut t = with_client(&kill_conf(true));
    let mut l2 = task_set(0);
    fail_indices(&mut l2, "hostA", 1, 4, 0);
    let u2 = t.update_excluded_for_successful_task_set(0, 0, l2.exec_to_failures(), 0);
    let message =
        "Killing excluded executor id 1 since spark.excludeOnFailure.killExcludedExecutors is set.";
    assert_eq!(
        kills(&u2),
        vec![HealthStep::KillExecutor {
            executor_id: e(1),
            decommission: false,
            message: message.into()
        }]
    );
    let mut l3 = task_set(1);
    fail_indices(&mut l3, "hostA", 2, 4, 0);
    let u3 = t.update_excluded_for_successful_task_set(0, 0, l3.exec_to_failures(), 0);
    let node_at = u3
        .steps
        .iter()
        .position(|s| matches!(s, HealthStep::NodeExcluded { .. }));
    let kill_at = u3
        .steps
        .iter()
        .position(|s| matches!(s, HealthStep::KillExecutorsOnHost { .. }));
    assert!(node_at < kill_at && kill_at.is_some());
    assert_eq!(
        kills(&u3)[1],
        HealthStep::KillExecutorsOnHost {
            host: "hostA".into(),
            decommission: false
        }
    );
    assert_eq!(
        u3.steps[kill_at.unwrap()].log_line().unwrap().1,
        "Killing all executors on excluded host hostA since \
         spark.excludeOnFailure.killExcludedExecutors is set."
    );
}

/// HealthTrackerSuite "excluding decommission and kills executors when enabled".
#[test]
fn excluding_decommissions_executors_when_enabled() {
    let c = ExcludeOnFailureConf {
        kill_decommission: true,
        max_failures_per_exec: 1,
        max_failed_exec_per_node: 2,
        ..kill_conf(true)
    };
    let mut t = with_client(&c);
    let mut l2 = task_set(0);
    fail_indices(&mut l2, "hostA", 1, 4, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, l2.exec_to_failures(), 0);
    let msg1 = "Killing excluded executor id 1 since spark.excludeOnFailure.killExcludedExecutors \
                is set. (actually decommissioning)";
    assert_eq!(
        kills(&u),
        vec![HealthStep::KillExecutor {
            executor_id: e(1),
            decommission: true,
            message: msg1.into()
        }]
    );
    let mut l3 = task_set(1);
    fail_indices(&mut l3, "hostA", 2, 4, 0);
    let u = t.update_excluded_for_successful_task_set(0, 0, l3.exec_to_failures(), 0);
    let msg2 = msg1.replace("id 1", "id 2");
    assert_eq!(
        kills(&u),
        vec![
            HealthStep::KillExecutor {
                executor_id: e(2),
                decommission: true,
                message: msg2
            },
            HealthStep::KillExecutorsOnHost {
                host: "hostA".into(),
                decommission: true
            }
        ]
    );
    assert_eq!(
        u.steps.last().unwrap().log_line().unwrap().1,
        "Decommissioning all executors on excluded host hostA since \
         spark.excludeOnFailure.killExcludedExecutors is set."
    );
    assert_eq!(
        HealthStep::kill_on_host_failed_line("hostA", true),
        (
            HealthLogLevel::Error,
            "Decommissioning executors on hostA failed.".into()
        )
    );
}

/// HealthTrackerSuite "fetch failure excluding kills executors, configured by
/// EXCLUDE_ON_FAILURE_KILL_ENABLED": without the shuffle service the executor (one failure),
/// with it the whole node; expiries are the failure's time plus the timeout.
#[test]
fn fetch_failure_excluding_kills_executors_when_configured() {
    let fetch = |kill: bool, ess: bool| ExcludeOnFailureConf {
        fetch_failure_enabled: true,
        shuffle_service_enabled: ess,
        ..kill_conf(kill)
    };
    let mut t = with_client(&fetch(false, false));
    let u = t.update_excluded_for_fetch_failure("hostA", e(1), 0);
    assert!(kills(&u).is_empty());
    assert!(
        t.excluded_executors_on_node("hostA")
            .unwrap()
            .contains(&e(1))
    );
    assert_eq!(u.listener_events(), executor_excluded(0, 1, 1));
    assert_eq!(
        u.steps[0].log_line().unwrap().1,
        "Excluding executor 1 due to fetch failure"
    );

    let mut t = with_client(&fetch(true, false));
    let u = t.update_excluded_for_fetch_failure("hostA", e(1), 1000);
    assert_eq!(
        kills(&u),
        vec![HealthStep::KillExecutor {
            executor_id: e(1),
            decommission: false,
            message: "Killing excluded executor id 1 since \
                      spark.excludeOnFailure.killExcludedExecutors is set."
                .into()
        }]
    );
    let status = t.excluded_status(e(1)).unwrap();
    assert_eq!(
        (status.node.as_str(), status.expiry_ms),
        ("hostA", 1000 + TIMEOUT)
    );
    assert_eq!(t.next_expiry_ms(), Some(1000 + TIMEOUT));
    assert!(t.excluded_node_list().is_empty());

    // With the external shuffle service (a tracker of that conf, with executor 1's state).
    let mut t2 = with_client(&fetch(true, true));
    t2.update_excluded_for_fetch_failure("hostB", e(9), 1000);
    let u = t2.update_excluded_for_fetch_failure("hostA", e(2), 2000);
    assert_eq!(
        kills(&u),
        vec![HealthStep::KillExecutorsOnHost {
            host: "hostA".into(),
            decommission: false
        }]
    );
    assert_eq!(t2.node_expiry_ms("hostA"), Some(2000 + TIMEOUT));
    assert_eq!(t2.next_expiry_ms(), Some(1000 + TIMEOUT));
    assert_eq!(u.listener_events(), node_excluded(2000, "hostA", 1));
    assert_eq!(
        u.steps[0].log_line().unwrap().1,
        "excluding node hostA due to fetch failure of external shuffle service"
    );
    // A node already excluded is not excluded again.
    assert!(
        t2.update_excluded_for_fetch_failure("hostA", e(3), 2500)
            .is_empty()
    );
}

/// HealthTracker.updateExcludedForFetchFailure does nothing unless
/// `spark.excludeOnFailure.application.fetchFailure.enabled` (default false).
#[test]
fn fetch_failures_exclude_nothing_by_default() {
    let mut t = tracker();
    assert!(
        t.update_excluded_for_fetch_failure("hostA", e(1), 0)
            .is_empty()
    );
    assert!(!t.is_executor_excluded(e(1)));
}

/// killExecutor / killExecutorsOnExcludedNode without an allocation client: INFO for the
/// executor, WARN for the node, and nothing asked of a backend.
#[test]
fn without_an_allocation_client_spark_only_says_it_cannot_kill() {
    let mut conf = HealthTrackerConf::from_conf(&kill_conf(true)).unwrap();
    conf.has_allocation_client = false;
    let mut t = HealthTracker::new(conf);
    let mut l0 = task_set(0);
    fail_indices(&mut l0, "hostA", 1, 2, 0);
    t.update_excluded_for_successful_task_set(0, 0, l0.exec_to_failures(), 0);
    let mut l1 = task_set(1);
    fail_indices(&mut l1, "hostA", 2, 2, 0);
    let u = t.update_excluded_for_successful_task_set(1, 0, l1.exec_to_failures(), 0);
    let lines = u.log_lines();
    assert_eq!(
        lines[1],
        (
            HealthLogLevel::Info,
            "Not attempting to kill excluded executor id 2 since allocation client is not defined."
                .into()
        )
    );
    assert_eq!(
        lines[3],
        (
            HealthLogLevel::Warn,
            "Not attempting to kill executors on excluded host hostA since allocation client is \
             not defined."
                .into()
        )
    );
}

/// killExcludedIdleExecutor (TaskSchedulerImpl's unschedulable task set with dynamic
/// allocation) kills whatever the kill key says.
#[test]
fn an_excluded_idle_executor_is_killed_regardless_of_the_kill_key() {
    let t = with_client(&kill_conf(false));
    let u = t.kill_excluded_idle_executor(e(4), 7);
    assert_eq!(
        u.steps,
        vec![HealthStep::KillExecutor {
            executor_id: e(4),
            decommission: false,
            message: "Killing excluded idle executor id 4 because of task unschedulability and \
                      trying to acquire a new executor."
                .into()
        }]
    );
}

/// HealthTracker.applyExcludeOnFailureTimeout (4.0.0 jar): `now > nextExpiryTime` and
/// `expiryTime < now` are strict (`lcmp; ifle` / `lcmp; ifge`), so an exclusion still holds at
/// its expiry instant and ends one millisecond later.
#[test]
fn an_exclusion_holds_through_its_expiry_instant() {
    let c = ExcludeOnFailureConf {
        enabled: Some(true),
        fetch_failure_enabled: true,
        ..ExcludeOnFailureConf::default()
    };
    let mut t = tracker_with(&c);
    t.update_excluded_for_fetch_failure("hostA", e(1), 10);
    t.update_excluded_for_fetch_failure("hostA", e(2), 11);
    assert!(t.apply_exclude_on_failure_timeout(10 + TIMEOUT).is_empty());
    assert!(t.is_executor_excluded(e(1)));
    let u = t.apply_exclude_on_failure_timeout(11 + TIMEOUT);
    assert!(!t.is_executor_excluded(e(1)) && t.is_executor_excluded(e(2)));
    assert_eq!(u.listener_events().len(), 2);
    assert_eq!(t.next_expiry_ms(), Some(11 + TIMEOUT));
}

/// TaskSetManager.getCompletelyExcludedTaskIfAny (4.0.0 jar) with application-level exclusion:
/// a host whose only other executor is excluded for the application leaves a task that failed
/// on the first one nowhere to run.
#[test]
fn an_executor_excluded_for_the_application_counts_in_excluded_everywhere() {
    use crate::spark_core::scheduler::task_set_exclude_list::{HostExecutors, TaskSetExcludeConf};
    let mut list = TaskSetExcludelist::new(TaskSetExcludeConf::default(), 2, 0);
    list.update_excluded_for_failed_task("hostA", e(1), 0, "boom", 0);
    let ab = [e(1), e(2)];
    let two = [HostExecutors {
        host: "hostA",
        executors: &ab,
    }];
    assert!(!list.is_excluded_everywhere(0, &two, None));
    let mut app = tracker_with(&ExcludeOnFailureConf {
        enabled: Some(true),
        fetch_failure_enabled: true,
        ..Default::default()
    });
    app.update_excluded_for_fetch_failure("hostA", e(2), 0);
    assert!(list.is_excluded_everywhere(0, &two, Some(&app)));
}

/// sparkyard's `exclude-node` fault (no call of Spark's): the node branch of
/// `updateExcludedForSuccessfulTaskSet` as the 4.0.0 jar orders it (expiry put,
/// `SparkListenerNodeBlacklisted` then `SparkListenerNodeExcluded` with the node's excluded
/// executors so far, `killExecutorsOnExcludedNode`), without a line; the node expires after the
/// timeout like any other (`applyExcludeOnFailureTimeout`), and a second exclusion of an
/// excluded node does nothing (`!nodeIdToExcludedExpiryTime.contains(node)`).
#[test]
fn an_injected_node_exclusion_is_the_node_branch_without_its_line() {
    let mut t = with_client(&kill_conf(true));
    let u = t.exclude_node_by_fault("hostA", 5);
    assert!(t.is_node_excluded("hostA"));
    assert_eq!(
        t.excluded_node_list().into_iter().collect::<Vec<_>>(),
        ["hostA"]
    );
    assert_eq!(u.listener_events(), node_excluded(5, "hostA", 0));
    assert!(
        u.log_lines()
            .iter()
            .all(|(_, l)| !l.contains("Excluding node"))
    );
    assert_eq!(
        kills(&u),
        vec![HealthStep::KillExecutorsOnHost {
            host: "hostA".into(),
            decommission: false
        }]
    );
    assert_eq!(t.next_expiry_ms(), Some(5 + TIMEOUT));
    assert!(t.exclude_node_by_fault("hostA", 6).is_empty());
    let later = t.apply_exclude_on_failure_timeout(5 + TIMEOUT + 1);
    assert!(!t.is_node_excluded("hostA"));
    assert_eq!(
        later.steps,
        vec![HealthStep::NodesUnexcluded {
            hosts: vec!["hostA".into()]
        }]
    );
}
