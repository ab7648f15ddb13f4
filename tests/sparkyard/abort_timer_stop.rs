//! TaskSchedulerImpl.stop waits for the unschedulable task sets' abort timers still queued
//! (Spark 4.0.0: `ThreadUtils.shutdown(abortTimer)`, up to 30 s), even when a later launch
//! cleared their expiry times: the SparkContext finishes stopping that much later. The real
//! local-cluster run that shows it is in docs/worklog/2026-12-05-afternoon/issue-27-audit.md.

use sparkyard::runner::RunOptions;
use sparkyard_messages::listener::ListenerEvent;

/// `unschedulable-task-set.toml`: the abort timer starts at 8 s (120 s), a new executor takes
/// the task at 12 s, the job ends at 38 s and `sc.stop()` follows; the timer is 90 s away, so
/// the stop waits the whole 30 s grace period before the ApplicationEnd (posted at the end of
/// `SparkContext.stop`). Without the wait the ApplicationEnd came within a second of the job's
/// end.
#[test]
fn a_pending_abort_timer_holds_the_spark_context_stop_thirty_seconds() {
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("unschedulable-task-set", opts);
    let events: Vec<&ListenerEvent> = r.events.iter().flat_map(|a| &a.events).collect();
    let job_end = events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::JobEnd { time, .. } => Some(*time),
            _ => None,
        })
        .expect("a JobEnd");
    let app_end = events
        .iter()
        .find_map(|e| match e {
            ListenerEvent::ApplicationEnd { time, .. } => Some(*time),
            _ => None,
        })
        .expect("an ApplicationEnd");
    let stop_ms = app_end - job_end;
    assert!(
        (30_000..31_000).contains(&stop_ms),
        "the stop took {stop_ms} ms after the job's end"
    );
}
