//! The ApplicationMaster's order of work, against Spark 4.0's
//! resource-managers/yarn/src/main/scala/org/apache/spark/deploy/yarn/ApplicationMaster.scala.

use crate::common::{bundled_scenario, spark_pi};
use sparkyard::runner::{RunOptions, RunResult};
use sparkyard_actors::simulation::trace::{StateChange, TraceEvent, TraceKind};
use sparkyard_messages::ids::ExecutorId;

/// Deliveries of the message `name` to mailboxes whose label starts with `endpoint@`.
fn deliveries<'a>(r: &'a RunResult, endpoint: &str, name: &str) -> Vec<&'a TraceEvent> {
    let prefix = format!("{endpoint}@");
    r.trace
        .iter()
        .filter(|e| e.kind == TraceKind::Deliver && e.name == name)
        .filter(|e| {
            e.to.is_some_and(|t| r.labels[t.0 as usize].starts_with(&prefix))
        })
        .collect()
}

fn am_stderr(r: &RunResult) -> String {
    let cid = r.counters.driver_containers.last().expect("an AM ran");
    r.logs.output(cid).expect("the AM logged").stderr.clone()
}

/// runDriver: `createAllocator(...)` (RetrieveLastAllocatedExecutorId, the YarnAM endpoint's
/// onStart RegisterClusterManager, `allocator.allocateResources()`, launchReporterThread) runs
/// before `resumeDriver()`; the Reporter loop's first pass allocates again back to back
/// (allocationThreadImpl: the check, then `allocateResources()`, then the sleep).
#[test]
fn the_driver_resumes_after_create_allocator_and_the_first_pass_allocates_back_to_back() {
    let r = spark_pi(2, 2);
    let resume = deliveries(&r, "Driver", "ResumeDriver");
    assert_eq!(resume.len(), 1);
    let resume = resume[0];
    let allocates = deliveries(&r, "ResourceManager", "Allocate");
    assert!(allocates.len() >= 2, "{}", allocates.len());
    let first_reply = r
        .trace
        .iter()
        .filter(|e| e.seq > allocates[0].seq && e.kind == TraceKind::Deliver)
        .find(|e| {
            e.name == "AskReply"
                && e.to
                    .is_some_and(|t| r.labels[t.0 as usize].starts_with("YarnAllocator@"))
        })
        .expect("the first allocate is answered");
    assert!(resume.seq > first_reply.seq, "the driver resumed first");
    for name in ["RetrieveLastAllocatedExecutorId", "RegisterClusterManager"] {
        let d = deliveries(&r, "YarnScheduler", name);
        assert!(d[0].seq < resume.seq, "{name} after resumeDriver");
    }
    // The loop's first pass: no sleep between createAllocator's call and the next one.
    assert_eq!(allocates[1].time_ms - allocates[0].time_ms, {
        // the second request leaves when the first reply arrives
        first_reply.time_ms - allocates[0].time_ms
    });
    let stderr = am_stderr(&r);
    let started = "INFO ApplicationMaster: Started progress reporter thread with (heartbeat: 3000, initial allocation: 200) intervals";
    assert!(stderr.contains(started), "{stderr}");
}

/// allocationThreadImpl checks `getNumExecutorsFailed >= maxNumExecutorFailures` at the start
/// of a loop pass, after the sleep that follows the allocate call which saw the failure; it
/// does not finish as soon as that allocate call returns.
#[test]
fn max_executor_failures_is_checked_after_the_reporter_sleep() {
    let r = bundled_scenario("max-executor-failures", RunOptions::default());
    let fourth_loss = r
        .trace
        .iter()
        .find(|e| {
            matches!(&e.kind, TraceKind::State(StateChange::ExecutorLost { executor, .. })
                if *executor == ExecutorId(4))
        })
        .expect("executor 4 is lost");
    let finish = deliveries(&r, "ResourceManager", "FinishApplicationMaster");
    let finish = finish.first().expect("the last attempt unregisters");
    assert!(
        finish.time_ms >= fourth_loss.time_ms + 200,
        "finished {} ms after the loss",
        finish.time_ms - fourth_loss.time_ms
    );
}

/// AMEndpoint (ApplicationMaster.scala): `resetAllocatorInterval()` wakes the Reporter for a
/// RequestExecutors only when `requestTotalExecutorsWithPreferredLocalities` answered true, and
/// for every GetExecutorLossReason. The AM logs nothing on `Shutdown`. Without dynamic
/// allocation the driver's only RequestExecutors is YarnSchedulerBackend.stop's
/// `requestTotalExecutors(Map.empty, ...)` (SPARK-12009), which YarnAllocator answers true
/// without logging "Driver requested a total number of 0 executor(s)" (its `isEmpty` branch).
#[test]
fn the_reporter_is_woken_only_when_the_target_changed() {
    for name in [
        "exclude-node",
        "node-lost",
        "heartbeat-partition",
        "executor-sigkill",
    ] {
        let r = bundled_scenario(name, RunOptions::default());
        let stderr = am_stderr(&r);
        assert!(
            !stderr.contains("Driver requested a total number of"),
            "{name}: the stop's empty request logs no total"
        );
        let requests = deliveries(&r, "YarnAM", "RequestExecutors").len();
        let loss_asks = deliveries(&r, "YarnAM", "GetExecutorLossReason").len();
        let wakes = deliveries(&r, "ApplicationMaster", "WakeReporter").len();
        assert!(requests >= 1, "{name}: the stop asks for 0 executors");
        assert_eq!(wakes, requests + loss_asks, "{name}");
        assert!(!stderr.contains("Driver requested shutdown"), "{name}");
    }
}

/// Spark 4.0.0's YarnAllocator.updateResourceRequests, read from its jar: one space before
/// "ResourceProfile Id", and its own typo "Submitted N} unlocalized container requests.".
#[test]
fn the_container_request_lines_are_spark_4_0_0s_text() {
    let stderr = am_stderr(&spark_pi(2, 2));
    for line in [
        "INFO YarnAllocator: Will request 2 executor container(s) for ResourceProfile Id: 0, each with 1 core(s) and 2432 MB memory. with custom resources: <memory:2432, vCores:1>",
        "INFO YarnAllocator: Submitted 2} unlocalized container requests.",
    ] {
        assert!(stderr.contains(line), "missing {line:?} in\n{stderr}");
    }
}

/// The position of `needle` in `text` (the test fails if it is missing).
fn at(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("missing {needle:?} in\n{text}"))
}

/// `System.exit(15)` runs the JVM's shutdown hooks in priority order: SparkContext's
/// (`ShutdownHookManager.SPARK_CONTEXT_SHUTDOWN_PRIORITY`, 50; SparkContext.scala: "Invoking
/// stop() from shutdown hook") stops the context before the AM's (priority 49,
/// ApplicationMaster.scala `run`) unregisters; `finish` logged the final status before the exit.
#[test]
fn the_spark_context_hook_runs_before_the_am_hook() {
    let r = bundled_scenario("user-class-throws", RunOptions::default());
    let am = am_stderr(&r);
    let finish = at(&am, "Final app status: FAILED, exitCode: 15");
    let sc_hook = at(&am, "INFO SparkContext: Invoking stop() from shutdown hook");
    let unregister = at(&am, "Unregistering ApplicationMaster with FAILED");
    assert!(finish < sc_hook && sc_hook < unregister, "{am}");
}

/// SIGTERM from the NodeManager (the AM container preempted): SignalUtils logs it, the hooks
/// run, and an AM that had not finished reports EXIT_EARLY (16) with "Shutdown hook called
/// before final status was reported.". On the last attempt by attempt *id* (Spark 4.0's hook:
/// `appAttemptId.getAttemptId() >= maxAppAttempts`) it cleans the staging directory *before*
/// unregistering FAILED.
#[test]
fn a_sigterm_runs_the_hooks_and_the_last_attempt_cleans_up_before_unregistering() {
    let r = bundled_scenario("am-preempted", RunOptions::default());
    let am = am_stderr(&r);
    let term = at(&am, "ERROR ApplicationMaster: RECEIVED SIGNAL TERM");
    let sc_hook = at(&am, "Invoking stop() from shutdown hook");
    let early = at(
        &am,
        "Final app status: FAILED, exitCode: 16, (reason: Shutdown hook called before final status was reported.)",
    );
    let staging = at(&am, "Deleting staging directory");
    let unregister = at(&am, "Unregistering ApplicationMaster with FAILED");
    assert!(term < sc_hook && sc_hook < early, "{am}");
    assert!(early < staging && staging < unregister, "{am}");
}

/// Spark 4.0.0's `SparkContext.stop(exitCode)` (read from spark-core_2.13-4.0.0.jar) logs its
/// stop site: SparkPi's `spark.stop()` (SparkPi.scala:40); from the shutdown hook, the JDK's
/// hook executor frame (`run at Executors.java:539`).
#[test]
fn the_spark_context_logs_where_it_was_stopped_from() {
    let am = am_stderr(&spark_pi(2, 2));
    assert!(
        am.contains("INFO SparkContext: SparkContext is stopping with exitCode 0 from stop at SparkPi.scala:40."),
        "{am}"
    );
    let r = bundled_scenario("user-class-throws", RunOptions::default());
    let am = am_stderr(&r);
    assert!(
        am.contains("SparkContext is stopping with exitCode 0 from run at Executors.java:539."),
        "{am}"
    );
}

/// Spark 4.0.0's Client.prepareLocalResources warning as its jar has it (the structured-logging
/// rewrite left a stray `}`): "Neither spark.yarn.jars nor spark.yarn.archive} is set, ...".
#[test]
fn the_client_warns_with_spark_4_0_0s_text_for_missing_yarn_jars() {
    let r = spark_pi(1, 1);
    let client = r.logs.output("spark-submit").expect("the client logged");
    assert!(
        client.stderr.contains("WARN Client: Neither spark.yarn.jars nor spark.yarn.archive} is set, falling back to uploading libraries under SPARK_HOME."),
        "{}",
        client.stderr
    );
}

/// Every container log's stderr, joined.
fn all_stderr(r: &RunResult) -> String {
    r.logs
        .outputs()
        .values()
        .map(|o| o.stderr.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

// SparkContext's constructor refuses what UnifiedMemoryManager.getMaxMemory and
// ResourceUtils.validateTaskCpusLargeEnough refuse; in cluster mode that is the user class
// failing in the AM before the context exists (no executor is ever requested).
#[test]
fn spark_context_refusals_fail_the_user_class_in_the_am() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["--conf", "spark.task.cpus=2"],
            "User class threw exception: org.apache.spark.SparkException: The number of cores per executor (=1) has to be >= the number of cpus per task = 2.",
        ),
        (
            &["--executor-memory", "100m"],
            "[INVALID_EXECUTOR_MEMORY] Executor memory 104857600 must be at least 471859200.",
        ),
        (
            &["--driver-memory", "100m"],
            "[INVALID_DRIVER_MEMORY] System memory 104857600 must be at least 471859200.",
        ),
    ];
    for (extra, text) in cases {
        let r = crate::common::submit_pi(&[extra, &["app.jar", "2"]].concat()).expect("a run");
        let logs = all_stderr(&r);
        assert!(
            logs.contains("ERROR SparkContext: Error initializing SparkContext."),
            "{extra:?}"
        );
        assert!(logs.contains(text), "{extra:?}: {text}");
        assert_eq!(r.counters.executors_launched, 0, "{extra:?}");
        assert!(r.outcome.exception.is_some(), "{extra:?}");
    }
}

// SchedulerUtils.validateResourceRequest refuses executor containers above
// yarn.scheduler.maximum-allocation-vcores (InvalidResourceRequestException). The AM's first
// allocate runs in createAllocator on its main thread (ApplicationMaster.scala), so the exception
// is `Uncaught exception` (exit 10) on each attempt, not the Reporter thread's exit 12: Spark's
// Client checks only memory before submitting, so this fails after submission, as on a cluster.
#[test]
fn executor_cores_above_the_maximum_allocation_fail_the_am() {
    let r = crate::common::submit(&[
        "--class",
        "org.apache.spark.examples.SparkPi",
        "--executor-cores",
        "8",
        "app.jar",
        "2",
    ])
    .expect("a run");
    assert_eq!(crate::common::am_exit_codes(&r), vec![10, 10]);
    assert_eq!(r.counters.executors_launched, 0);
    assert!(r.outcome.diagnostics.starts_with("Uncaught exception: org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException: Invalid resource request! Cannot allocate containers as requested resource is greater than maximum allowed allocation. Requested resource type=[vcores], Requested resource=<memory:1408, vCores:8>, maximum allowed allocation=<memory:8192, vCores:4>"), "{}", r.outcome.diagnostics);
}

/// The AM's JVM, like an executor's, starts with Logging.initializeLogging's line (no log4j2
/// configuration in a YARN container), before SignalUtils' first line.
#[test]
fn the_am_log_starts_with_the_default_log4j_profile_line() {
    let am = am_stderr(&spark_pi(1, 1));
    let mut lines = am.lines();
    // The JVM's own warning first: the Client puts JavaModuleOptions.defaultModuleOptions()
    // (--add-modules=jdk.incubator.vector) on the AM's command line (Client.scala
    // createContainerLaunchContext, Spark 4.0).
    assert_eq!(
        lines.next(),
        Some("WARNING: Using incubator modules: jdk.incubator.vector")
    );
    assert_eq!(
        lines.next(),
        Some("Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties")
    );
    assert!(
        lines
            .next()
            .is_some_and(|l| l.ends_with("INFO SignalUtils: Registering signal handler for TERM")),
        "{am}"
    );
}
