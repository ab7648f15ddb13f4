//! Unit tests of speculative execution (TaskSetManagerSuite speculation cases, PercentileHeapSuite).

use super::driver_scheduler::DriverScheduler;
use super::events::{LaunchedTasks, SchedulerEvent, WorkerOffer};
use super::speculation::PercentileHeap;
use super::tests::{advance, lines, logged_scheduler, run, waiter};
use crate::kernel::logs::LogStore;
use crate::kernel::logs::ProcessLog;
use crate::spark_core::task_result_getter::EndKind;
use crate::world::config::SpeculationSettings;
use crate::world::listener::ContextBus;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::double_to_string as java_double;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::StageSpec;
use sparkyard_messages::task::{JobSpec, TaskDescription, TaskResultData, TaskWork};
use std::cell::RefCell;
use std::rc::Rc;

// PercentileHeapSuite: the percentile of 0.5 is the upper middle value, whatever the
// insertion order.
#[test]
fn percentile_heap_is_the_upper_median() {
    let mut h = PercentileHeap::default();
    assert_eq!(h.percentile(), None);
    for (x, want) in [(5, 5), (1, 5), (9, 5), (3, 5), (7, 5), (2, 5), (4, 4)] {
        h.insert(x);
        assert_eq!(h.percentile(), Some(want), "after {x}");
    }
    let mut h = PercentileHeap::default();
    for x in (0..100).rev() {
        h.insert(x);
    }
    assert_eq!((h.len(), h.percentile()), (100, Some(50)));
}

// An MDC of a Double prints Java's Double.toString (Logging.LogStringContext: toString).
#[test]
fn thresholds_print_as_java_doubles() {
    assert_eq!(java_double(3084.0), "3084.0");
    assert_eq!(java_double(100.0), "100.0");
    assert_eq!(java_double(1500.5), "1500.5");
    assert_eq!(java_double(1.5e7), "1.5E7");
    assert_eq!(java_double(2e7), "2.0E7");
}

fn speculating(settings: SpeculationSettings) -> (DriverScheduler, Rc<RefCell<LogStore>>) {
    let (s, store) = logged_scheduler();
    (s.with_speculation(Some(settings)), store)
}

fn job(tasks: usize) -> JobSpec {
    JobSpec {
        call_site: "count at X.scala:1".into(),
        stages: vec![StageSpec {
            rdd_description: "ParallelCollectionRDD[0] at X.scala:1".into(),
            num_partitions: tasks as u32,
            parents: vec![],
            tasks: vec![
                TaskWork::Sleep {
                    duration_ms: 1,
                    fail: None,
                };
                tasks
            ]
            .into(),
            shuffle_write: Default::default(),
            input: Default::default(),
            lineage: None,
            preferred_hosts: Vec::new(),
            input_path: None,
            result_bytes: Default::default(),
            barrier: false,
        }],
    }
}

fn offer(s: &mut DriverScheduler, executor: u32, host: &str) -> LaunchedTasks {
    s.resource_offer(&mut WorkerOffer {
        executor_id: ExecutorId(executor),
        host: Rc::from(host),
        cores: 1,
        held_back: 0,
        resources: None,
    })
}

fn finish(s: &mut DriverScheduler, t: &TaskDescription) -> Vec<SchedulerEvent> {
    s.status_update(t.task_id, TaskState::Finished, TaskResultData::None)
        .1
}

/// Four tasks on two hosts; three succeed after 1 s; task 0 (on host1) runs on. Returns
/// the scheduler, its log and task 0's first attempt.
async fn straggler() -> (DriverScheduler, Rc<RefCell<LogStore>>, Box<TaskDescription>) {
    let (mut s, store) = speculating(SpeculationSettings::default());
    s.submit_job(job(4), waiter());
    let t0 = offer(&mut s, 1, "host1").remove(0);
    let t1 = offer(&mut s, 2, "host1").remove(0);
    let t2 = offer(&mut s, 3, "host2").remove(0);
    let t3 = offer(&mut s, 4, "host2").remove(0);
    advance(1000).await;
    for t in [&t1, &t2, &t3] {
        finish(&mut s, t);
    }
    (s, store, t0)
}

// TaskSetManager.checkSpeculatableTasks (Spark 4.0): after max(floor(0.9 x 4), 1) = 3
// successes the threshold is max(3.0 x median 1000, minTaskRuntime 100) = 3000 ms; a task
// is marked only once it ran longer; dequeueTaskFromList(speculative) never launches the
// copy on a host that ran an attempt (hasAttemptOnHost), and the copy is attempt 1,
// `Speculative: true`.
#[test]
fn a_straggler_is_marked_after_the_quantile_and_copied_on_another_host() {
    run(async {
        let (mut s, store, t0) = straggler().await;
        advance(2000).await; // t0 ran 3000 ms: not more than the threshold
        assert!(!s.check_speculatable_tasks());
        assert!(!s.has_pending_tasks());
        advance(500).await;
        assert!(s.check_speculatable_tasks());
        assert!(!s.check_speculatable_tasks(), "marked once");
        assert!(lines(&store).contains(
            &"INFO TaskSetManager: Marking task 0 in stage 0.0 (on host1) as speculatable because it ran more than 3000.0 ms(1speculatable tasks in this taskset now)".to_string()
        ));
        assert!(s.has_pending_tasks());
        assert!(offer(&mut s, 2, "host1").is_empty(), "host1 ran attempt 0");
        let copy = offer(&mut s, 3, "host2").remove(0);
        assert_eq!((copy.index, copy.attempt_number), (0, 1));
        assert!(
            s.task_scheduler
                .running
                .get(copy.task_id)
                .expect("running")
                .speculative
        );
        assert!(!s.has_pending_tasks());
        assert!(lines(&store).contains(
            &"INFO TaskSetManager: Starting task 0.1 in stage 0.0 (TID 4) (host2,executor 3, partition 0, PROCESS_LOCAL, 7595 bytes) ".to_string()
        ));
        assert_ne!(copy.task_id, t0.task_id);
    });
}

// TaskSetManager.dequeueTask (Spark 4.0): a speculatable copy comes from
// dequeueTaskHelper(speculative = true) over the same lists as regular tasks, so a copy of a
// task preferring host1 and host2 that ran on host1 starts NODE_LOCAL on host2, and is
// refused on host1 (hasAttemptOnHost).
#[test]
fn a_copy_of_a_task_with_preferences_runs_node_local_on_its_other_host() {
    run(async {
        let (mut s, store) = speculating(SpeculationSettings::default());
        let mut j = job(4);
        j.stages[0].preferred_hosts = vec![vec!["host1".into(), "host2".into()]; 4];
        s.submit_job(j, waiter());
        let t0 = offer(&mut s, 1, "host1").remove(0);
        let rest: LaunchedTasks = [(2, "host1"), (3, "host2"), (4, "host2")]
            .into_iter()
            .map(|(e, h)| offer(&mut s, e, h).remove(0))
            .collect();
        advance(1000).await;
        for t in &rest {
            finish(&mut s, t);
        }
        advance(2500).await;
        assert!(s.check_speculatable_tasks());
        assert!(offer(&mut s, 2, "host1").is_empty(), "host1 ran attempt 0");
        let copy = offer(&mut s, 4, "host2").remove(0);
        assert_eq!((copy.index, copy.attempt_number), (t0.index, 1));
        assert!(
            s.task_scheduler
                .running
                .get(copy.task_id)
                .expect("running")
                .speculative
        );
        assert!(lines(&store).contains(
            &"INFO TaskSetManager: Starting task 0.1 in stage 0.0 (TID 4) (host2,executor 4, partition 0, NODE_LOCAL, 7595 bytes) ".to_string()
        ));
    });
}

// handleSuccessfulTask: the copy wins; the other running attempt is killed
// (interruptThread = true, "another attempt succeeded"; the job's end then cancels the
// stage's running attempts too, as Spark does), and its TaskKilled end neither
// counts as a failure nor re-queues the task.
#[test]
fn the_first_success_wins_and_the_other_attempt_is_killed() {
    run(async {
        let (mut s, store, t0) = straggler().await;
        advance(2500).await;
        s.check_speculatable_tasks();
        let copy = offer(&mut s, 3, "host2").remove(0);
        advance(1000).await;
        let events = finish(&mut s, &copy);
        let [
            SchedulerEvent::KillTask {
                task_id,
                executor_id,
                interrupt_thread: true,
                reason,
            },
            // DAGScheduler: the job is finished, "Cancelling potential speculative or
            // zombie tasks": killAllTaskAttempts(stage, false, "Stage finished").
            SchedulerEvent::KillTask {
                interrupt_thread: false,
                ..
            },
            SchedulerEvent::JobEnded { .. },
        ] = events.as_slice()
        else {
            panic!("a kill of attempt 0, the stage's cancel, the job's end: {events:?}");
        };
        assert_eq!((*task_id, *executor_id), (t0.task_id, ExecutorId(1)));
        assert_eq!(reason, "another attempt succeeded");
        let killed = TaskResultData::Killed {
            reason: reason.clone(),
        };
        let (_, events) = s.status_update(t0.task_id, TaskState::Killed, killed);
        assert!(events.is_empty(), "{events:?}");
        assert!(!s.has_pending_tasks());
        let log = lines(&store);
        for want in [
            "INFO TaskSetManager: Killing attempt 0 for task 0.0 in stage 0.0 (TID 0) on host1 as the attempt 1 succeeded on host2",
            "WARN TaskSetManager: Lost task 0.0 in stage 0.0 (TID 0) (host1 executor 1): TaskKilled (another attempt succeeded)",
            "INFO TaskSetManager: task 0.0 in stage 0.0 (TID 0) failed, but the task will not be re-executed (either because the task failed with a shuffle data fetch failure, so the previous stage needs to be re-run, or because a different copy of the task has already succeeded).",
        ] {
            assert!(log.contains(&want.to_string()), "{want}\n{log:#?}");
        }
    });
}

// handleSuccessfulTask's first check: the killed attempt finished before the kill reached
// it; its success is handled as TaskKilled("Finish but did not commit due to another
// attempt succeeded").
#[test]
fn a_late_success_of_the_killed_attempt_is_a_kill() {
    run(async {
        let (mut s, store, t0) = straggler().await;
        advance(2500).await;
        s.check_speculatable_tasks();
        let copy = offer(&mut s, 3, "host2").remove(0);
        finish(&mut s, &copy);
        let events = finish(&mut s, &t0);
        assert!(events.is_empty(), "{events:?}");
        assert_eq!(s.failed_attempts(), 0, "a kill, not a failure");
        // Its FINISHED update's one record says killed, as the TaskEnd the listener hears.
        let end = s.task_ends().last().expect("recorded");
        assert_eq!((end.task_id, end.kind), (t0.task_id, EndKind::TaskKilled));
        assert!(lines(&store).contains(
            &"WARN TaskSetManager: Lost task 0.0 in stage 0.0 (TID 0) (host1 executor 1): TaskKilled (Finish but did not commit due to another attempt succeeded)".to_string()
        ));
    });
}

// SPARK-29976: with spark.speculation.task.duration.threshold and a stage no larger than
// one executor's slots, a task is speculated on the threshold before any success; a
// one-task stage is never speculated without it.
#[test]
fn a_duration_threshold_speculates_small_stages() {
    run(async {
        let (mut s, _) = speculating(SpeculationSettings::default());
        s.submit_job(job(1), waiter());
        offer(&mut s, 1, "host1");
        advance(60_000).await;
        assert!(!s.check_speculatable_tasks(), "one task, no threshold");
        let settings = SpeculationSettings {
            task_duration_threshold_ms: Some(5000),
            slots_per_executor: 4,
            ..SpeculationSettings::default()
        };
        let (mut s, store) = speculating(settings);
        s.submit_job(job(2), waiter());
        offer(&mut s, 1, "host1");
        offer(&mut s, 2, "host2");
        advance(5000).await;
        assert!(!s.check_speculatable_tasks());
        advance(1).await;
        assert!(s.check_speculatable_tasks());
        assert!(lines(&store).iter().any(|l| l.contains(
            "as speculatable because it ran more than 5000.0 ms(2speculatable tasks in this taskset now)"
        )));
    });
}

// Speculation off (the default): no state, nothing ever marked.
#[test]
fn nothing_is_speculated_when_off() {
    run(async {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let mut s = DriverScheduler::new(
            ProcessLog::new("driver", store),
            ContextBus::disabled(),
            4,
            1,
        );
        s.submit_job(job(4), waiter());
        let t0 = offer(&mut s, 1, "host1").remove(0);
        for e in 2..5 {
            let t = offer(&mut s, e, "host2").remove(0);
            advance(10).await;
            finish(&mut s, &t);
        }
        advance(100_000).await;
        assert!(!s.check_speculatable_tasks());
        assert!(
            s.task_scheduler
                .task_sets
                .values()
                .all(|t| t.spec.is_none())
        );
        assert_eq!(s.speculation_interval_ms(), None);
        assert!(s.task_scheduler.running.get(t0.task_id).is_some());
    });
}
