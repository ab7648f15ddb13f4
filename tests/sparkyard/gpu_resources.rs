//! Custom executor resources (GPUs) end to end: SparkPi whose executors ask for a GPU and
//! whose tasks ask for half of one (Spark 4.0.0's default ResourceProfile, executor discovery,
//! `TaskSchedulerImpl.resourceOffers`' custom resource check), with and without the discovery
//! script.

use sparkyard::runner::{RunOptions, RunResult};
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::records::FinalApplicationStatus;
use std::collections::BTreeMap;

const GPU_PI: &[&str] = &[
    "--class",
    "org.apache.spark.examples.SparkPi",
    "--executor-cores",
    "4",
    "--conf",
    "spark.executor.resource.gpu.amount=1",
    "--conf",
    "spark.task.resource.gpu.amount=0.5",
];

fn run(extra: &[&str]) -> RunResult {
    let mut args: Vec<&str> = GPU_PI.to_vec();
    args.extend_from_slice(extra);
    args.extend(["local:///x.jar", "40"]);
    let plan = sparkyard::pipeline::RunPlan {
        options: RunOptions {
            record_events: true,
            ..RunOptions::default()
        },
        ..Default::default()
    };
    crate::common::submit_with(&args, plan)
        .expect("a run")
        .result
}

/// The most tasks each executor ran at once, from the tasks' launch and finish times.
fn most_concurrent_tasks(r: &RunResult) -> BTreeMap<String, usize> {
    let mut spans: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for e in r.events.iter().flat_map(|a| &a.events) {
        if let ListenerEvent::TaskEnd { info, .. } = e {
            let span = (info.launch_time, info.finish_time);
            spans
                .entry(info.executor_id.clone())
                .or_default()
                .push(span);
        }
    }
    spans
        .into_iter()
        .map(|(executor, spans)| {
            let most = spans
                .iter()
                .map(|(at, _)| spans.iter().filter(|(s, f)| s <= at && at < f).count())
                .max()
                .unwrap_or(0);
            (executor, most)
        })
        .collect()
}

/// With a discovery script, each executor finds GPU "0" (the event log's `Resources`) and,
/// though it has 4 cores, runs at most 2 tasks at once: the GPU limits it (`Limiting resource
/// is gpu at 2 tasks per executor`).
#[test]
fn half_a_gpu_a_task_runs_two_tasks_at_once_on_four_cores() {
    let r = run(&[
        "--conf",
        "spark.executor.resource.gpu.discoveryScript=/opt/spark/getGpus.sh",
    ]);
    let outcome = &r.outcome;
    assert_eq!(
        outcome.final_status,
        Some(FinalApplicationStatus::Succeeded)
    );
    let most = most_concurrent_tasks(&r);
    assert!(!most.is_empty());
    assert!(most.values().all(|n| *n <= 2), "{most:?}");
    assert!(most.values().any(|n| *n == 2), "{most:?}");
    let found: Vec<Vec<String>> = r
        .events
        .iter()
        .flat_map(|a| &a.events)
        .filter_map(|e| match e {
            ListenerEvent::ExecutorAdded { resources, .. } => {
                Some(resources.iter().map(|i| i.addresses.concat()).collect())
            }
            _ => None,
        })
        .collect();
    assert!(!found.is_empty());
    assert!(found.iter().all(|f| f == &["0"]), "{found:?}");
}

/// Without the script every executor exits at start-up (`Unable to create executor due to
/// User is expecting to use resource: gpu, but didn't specify a discovery script!`, exit 1)
/// before registering; the AM counts each as a failure and gives up at
/// `spark.executor.maxNumFailures` (max(3, 2 x spark.executor.instances), the latter unset:
/// 3) with exit code 11 (`Max number of executor failures (3) reached`) in every attempt, and
/// the application FAILED.
#[test]
fn without_a_discovery_script_the_executors_fail_and_so_does_the_application() {
    let r = run(&[]);
    assert_eq!(r.outcome.final_status, Some(FinalApplicationStatus::Failed));
    let c = &r.counters;
    assert_eq!(c.executors_registered, 0);
    assert!(c.executor_exits.iter().all(|e| e.exit_status == Some(1)));
    assert!(
        c.am_exit_codes.values().all(|code| *code == 11),
        "{:?}",
        c.am_exit_codes
    );
    assert_eq!(c.tasks_launched, 0);
}

/// What `new SparkContext` refuses of the custom resources fails the user class in the AM, as
/// the task cpus check does, with the 4.0.0 driver's exception (each one a real pyspark 4.0.0
/// driver threw, local-cluster, 2026-12-06): no executor is ever launched, and YARN's
/// diagnostics carry the exception.
#[test]
fn spark_context_refusals_of_custom_resources_fail_the_user_class() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--conf", "spark.task.resource.gpu.amount=1.5"],
            "java.lang.AssertionError: assertion failed: The resource amount 1.5 must be either <= 1.0, or a whole number.",
        ),
        (
            &["--conf", "spark.executor.resource.gpu.amount=half"],
            "java.lang.NumberFormatException: For input string: \"half\"",
        ),
        (
            &["--conf", "spark.task.resource.gpu.amount=1"],
            "org.apache.spark.SparkException: No executor resource configs were specified for the following task configs: gpu",
        ),
        (
            &[
                "--conf",
                "spark.executor.resource.gpu.amount=1",
                "--conf",
                "spark.task.resource.gpu.amount=2",
            ],
            "org.apache.spark.SparkException: The executor resource: gpu, amount: 1 needs to be >= the task resource request amount of 2.0",
        ),
    ];
    for (extra, text) in cases {
        let r = crate::common::submit_pi(&[extra, &["app.jar", "2"]].concat()).expect("a run");
        assert_eq!(r.counters.executors_launched, 0, "{extra:?}");
        assert_eq!(
            r.outcome.final_status,
            Some(FinalApplicationStatus::Failed),
            "{extra:?}"
        );
        assert!(
            r.outcome.diagnostics.contains(text),
            "{extra:?}: {}",
            r.outcome.diagnostics
        );
    }
}
