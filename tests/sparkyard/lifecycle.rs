//! Whole SparkPi submissions: outcomes, the executor start sequence, failures before and after
//! submission, and determinism.

use crate::common::*;
use sparkyard_messages::records::{
    FinalApplicationStatus as Final, RpcFailure, YarnApplicationState as State,
};

fn assert_succeeded(r: &sparkyard::runner::RunResult) {
    assert_eq!(r.outcome.state, Some(State::Finished), "{:?}", r.outcome);
    assert_eq!(
        r.outcome.final_status,
        Some(Final::Succeeded),
        "{:?}",
        r.outcome
    );
    assert_eq!(r.outcome.exception, None);
}

fn pi_of(r: &sparkyard::runner::RunResult) -> f64 {
    let out = driver_stdout(r);
    let v = out
        .trim()
        .strip_prefix("Pi is roughly ")
        .unwrap_or_else(|| panic!("no estimate in {out:?}"));
    v.parse().expect("a number")
}

#[test]
fn the_issue_command_finishes_succeeded_within_a_hundredth_of_pi() {
    let r = spark_pi(4, 1000);
    assert_succeeded(&r);
    assert_eq!(r.counters.executors_registered, 4);
    assert_eq!(r.counters.tasks_finished, 1000);
    assert!(
        (pi_of(&r) - std::f64::consts::PI).abs() < 0.01,
        "{}",
        pi_of(&r)
    );
}

#[test]
fn one_four_and_fifty_executors_with_two_to_ten_thousand_slices_succeed() {
    for (executors, slices) in [(1, 2), (4, 2), (50, 10), (1, 100), (50, 10_000)] {
        let r = spark_pi(executors, slices);
        assert_succeeded(&r);
        // YARN assigns one container per node heartbeat (CapacityScheduler's off-switch limit,
        // 1 by default): 50 executors on 8 nodes take 7 heartbeats, and the job may end first.
        if executors <= 8 {
            assert_eq!(
                r.counters.executors_registered, executors,
                "{executors} executors"
            );
        } else {
            let n = r.counters.executors_registered;
            assert!((8..=executors).contains(&n), "{n} of {executors} executors");
        }
        assert_eq!(
            r.counters.tasks_finished,
            u64::from(slices),
            "{slices} slices"
        );
        assert!((pi_of(&r) - std::f64::consts::PI).abs() < 0.05);
    }
}

#[test]
fn executor_start_sequence_follows_spark_message_by_message() {
    let r = spark_pi(1, 2);
    assert_succeeded(&r);
    let driver = r.counters.driver_containers[0].clone();
    let executor = driver.replace("_000001", "_000002");
    let seq = conversation(&r, &executor, &driver);
    let expected = [
        "E->endpoint-verifier: CheckExistence",
        "D->main: AskReply",
        "E->CoarseGrainedScheduler: RetrieveSparkAppConfig",
        "D->main: AskReply",
        "E->endpoint-verifier: CheckExistence",
        "D->Executor: AskReply",
        "E->CoarseGrainedScheduler: RegisterExecutor",
        "D->Executor: AskReply",
        "E->Executor: RegisteredExecutor",
        "E->CoarseGrainedScheduler: LaunchedExecutor",
        "D->Executor: LaunchTask",
        "E->CoarseGrainedScheduler: StatusUpdate",
        // TaskRunner.run reports RUNNING, then deserializes the task: the task binary's
        // piece is fetched and reported to the BlockManagerMaster (`UpdateBlockInfo`,
        // TorrentBroadcast.readBlocks with tellMaster = true), once per broadcast.
        "E->CoarseGrainedScheduler: UpdateBroadcastBlockInfo",
        "E->CoarseGrainedScheduler: StatusUpdate",
        // The second task of the stage reads the cached broadcast: nothing to report.
        "D->Executor: LaunchTask",
        "E->CoarseGrainedScheduler: StatusUpdate",
        "E->CoarseGrainedScheduler: StatusUpdate",
    ];
    assert_eq!(&seq[..expected.len()], &expected, "{seq:#?}");
    assert!(
        seq.contains(&"D->Executor: StopExecutor".to_string()),
        "{seq:#?}"
    );
}

#[test]
fn executor_logs_show_registration_then_tasks() {
    let r = spark_pi(1, 2);
    let executor = r.counters.driver_containers[0].replace("_000001", "_000002");
    let stderr = &r.logs.output(&executor).expect("executor logged").stderr;
    let order = [
        "INFO YarnCoarseGrainedExecutorBackend: Connecting to driver: spark://CoarseGrainedScheduler@",
        "INFO YarnCoarseGrainedExecutorBackend: Successfully registered with driver",
        "INFO Executor: Starting executor ID 1 on host ",
        "INFO YarnCoarseGrainedExecutorBackend: Got assigned task 0",
        "INFO Executor: Finished task 0.0 in stage 0.0 (TID 0). 1000 bytes result sent to driver",
        "INFO YarnCoarseGrainedExecutorBackend: Driver commanded a shutdown",
    ];
    let mut at = 0;
    for line in order {
        let found = stderr[at..]
            .find(line)
            .unwrap_or_else(|| panic!("missing {line:?} after byte {at} in\n{stderr}"));
        at += found + line.len();
    }
}

#[test]
fn an_unknown_class_fails_the_application_after_both_attempts() {
    let r = submit(&["--class", "com.example.Missing", "app.jar"]).expect("submits");
    assert_eq!(r.outcome.state, Some(State::Failed));
    assert_eq!(r.outcome.final_status, Some(Final::Failed));
    let app = r.outcome.application_id.expect("submitted").to_string();
    let RpcFailure { class, message, .. } = r.outcome.exception.clone().expect("fails");
    assert_eq!(class, "org.apache.spark.SparkException");
    assert_eq!(
        message,
        format!("Application {app} finished with failed status")
    );
    assert_eq!(am_exit_codes(&r), [13, 13]);
    let attempt2 = format!(
        "AM Container for appattempt_{}_000002 exited with  exitCode: 13",
        &app["application_".len()..]
    );
    assert!(
        r.outcome.diagnostics.starts_with(&format!(
            "Application {app} failed 2 times due to {attempt2}"
        )),
        "{}",
        r.outcome.diagnostics
    );
    let am = &r
        .logs
        .output(&r.counters.driver_containers[0])
        .expect("AM logged")
        .stderr;
    assert!(am.contains("ERROR ApplicationMaster: Uncaught exception: \njava.lang.ClassNotFoundException: com.example.Missing"), "{am}");
    assert!(am.contains("INFO ApplicationMaster: Final app status: FAILED, exitCode: 13, (reason: Uncaught exception: java.lang.ClassNotFoundException: com.example.Missing)"), "{am}");
}

#[test]
fn spark_max_app_attempts_one_fails_after_a_single_attempt() {
    let r = submit(&[
        "--class",
        "com.example.Missing",
        "--conf",
        "spark.yarn.maxAppAttempts=1",
        "app.jar",
    ])
    .expect("submits");
    assert_eq!(r.outcome.state, Some(State::Failed));
    assert_eq!(am_exit_codes(&r), [13]);
}

#[test]
fn verify_cluster_resources_refuses_oversized_executors_and_ams_before_submitting() {
    let r = submit_pi(&["--executor-memory", "10g", "app.jar"]).expect("runs");
    assert_eq!(r.outcome.state, None, "nothing is submitted");
    assert_eq!(
        r.outcome.exception,
        Some(RpcFailure::new(
            "java.lang.IllegalArgumentException",
            "Required executor memory (10240 MB), offHeap memory (0) MB, overhead (1024 MB), and PySpark memory (0 MB) is above the max threshold (8192 MB) of this cluster! Please check the values of 'yarn.scheduler.maximum-allocation-mb' and/or 'yarn.nodemanager.resource.memory-mb'."
        ))
    );
    let r = submit_pi(&["--driver-memory", "9g", "app.jar"]).expect("runs");
    let message = r.outcome.exception.expect("refused").message;
    assert_eq!(
        message,
        "Required AM memory (9216+921 MB) is above the max threshold (8192 MB) of this cluster! Please check the values of 'yarn.scheduler.maximum-allocation-mb' and/or 'yarn.nodemanager.resource.memory-mb'."
    );
}

#[test]
fn a_bad_slice_count_is_a_user_class_exception_with_exit_15() {
    let r = submit_pi(&["--conf", "spark.yarn.maxAppAttempts=1", "app.jar", "many"]).expect("runs");
    assert_eq!(r.outcome.state, Some(State::Finished));
    assert_eq!(r.outcome.final_status, Some(Final::Failed));
    assert_eq!(
        r.outcome.diagnostics,
        "User class threw exception: java.lang.NumberFormatException: For input string: \"many\""
    );
    assert_eq!(am_exit_codes(&r), [15]);
}

/// JavaSparkPi.java's own rules, end to end: two arguments mean 2 slices (`args.length == 1`),
/// the estimate divides the hits by `n = 100000 * slices`, and `-1` slices make `new
/// ArrayList<>(-100000)` throw before any job (a real Spark 4.0.0 run of the same class with
/// `-1` ends with `IllegalArgumentException: Illegal Capacity: -100000`).
#[test]
fn java_spark_pi_follows_java_spark_pi_dot_java() {
    let java = ["--class", "org.apache.spark.examples.JavaSparkPi"];
    let two = submit(&[&java[..], &["--num-executors", "2", "app.jar", "3", "5"]].concat())
        .expect("runs");
    assert_succeeded(&two);
    assert_eq!(two.counters.tasks_finished, 2);
    let pi = pi_of(&two);
    assert!((pi - std::f64::consts::PI).abs() < 0.05, "{pi}");
    let hits = pi * 200_000.0 / 4.0;
    assert!(
        (hits - hits.round()).abs() < 1e-6,
        "{pi} is a count over n = 200000"
    );
    let bad = submit(
        &[
            &java[..],
            &["--conf", "spark.yarn.maxAppAttempts=1", "app.jar", "-1"],
        ]
        .concat(),
    )
    .expect("runs");
    assert_eq!(bad.outcome.final_status, Some(Final::Failed));
    assert_eq!(
        bad.outcome.diagnostics,
        "User class threw exception: java.lang.IllegalArgumentException: Illegal Capacity: -100000"
    );
    assert_eq!(bad.counters.tasks_finished, 0);
    assert_eq!(am_exit_codes(&bad), [15]);
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_a_different_one() {
    let args = ["--num-executors", "3", "app.jar", "20"];
    let a = submit_pi(&args).expect("runs");
    let b = submit_pi(&args).expect("runs");
    assert_eq!(a.fingerprint, b.fingerprint);
    let logs = |r: &sparkyard::runner::RunResult| {
        r.logs
            .outputs()
            .iter()
            .map(|(k, v)| format!("{k}\n{}\n{}", v.stdout, v.stderr))
            .collect::<Vec<_>>()
    };
    assert_eq!(logs(&a), logs(&b));
    let c = submit_pi(&[&["--seed", "7"][..], &args[..]].concat()).expect("runs");
    // Without faults the seed changes the darts and, through the offer shuffle
    // (TaskSchedulerImpl.shuffleOffers: Random.shuffle in Spark, seeded here), which executor
    // runs which task: the message flow differs, the outcome does not.
    assert_ne!(a.fingerprint, c.fingerprint);
    assert_ne!(driver_stdout(&a), driver_stdout(&c));
    assert_eq!(c.outcome.final_status, Some(Final::Succeeded));
}

/// A Spark 4.0.0 executor's start-up lines in the order a real one prints them (pyspark 4.0.0,
/// `local-cluster[2,1,1024]`, executor stderr; YARN logger names): SignalUtils, the fetcher's
/// SecurityManager and its connection to the driver, the default profile line again, the
/// executor env's SecurityManager, connection and DiskBlockManager, `Connecting to driver`,
/// ResourceUtils, registration, the Executor's OS/Java lines, the block transfer service and the
/// BlockManager's registration, the user class path, the session class loader, then the first
/// task.
#[test]
fn an_executor_starts_with_spark_4_0s_lines_in_order() {
    let r = spark_pi(1, 1);
    let (_, out) = r
        .logs
        .outputs()
        .iter()
        .find(|(k, _)| k.ends_with("_000002"))
        .expect("executor 1's container");
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l))
        .collect();
    let expected = [
        "INFO SignalUtils: Registering signal handler for INT",
        "INFO SecurityManager: Changing view acls to: spark",
        // The fetcher's RpcEnv reaches the driver (InetSocketAddress prints host/ip:port).
        "INFO TransportClientFactory: Successfully created connection to nm-",
        // Logging initialized again with the driver's conf (a raw line: the map above keeps
        // its words from the third on), then the executor's SparkEnv.
        "default log4j profile: org/apache/spark/log4j2-defaults.properties",
        "INFO SecurityManager: Changing view acls to: spark",
        // SparkEnv's MapOutputTracker lookup opens the executor RpcEnv's first connection.
        "INFO TransportClientFactory: Successfully created connection to nm-",
        "INFO DiskBlockManager: Created local directory at /tmp/hadoop-yarn/nm-local-dir/usercache/spark/appcache/application_1764662400000_0001/blockmgr-",
        "INFO YarnCoarseGrainedExecutorBackend: Connecting to driver: ",
        // CoarseGrainedExecutorBackend.onStart's SecurityManager (its direct-memory check).
        "INFO SecurityManager: Changing view acls to: spark",
        "INFO ResourceUtils: No custom resources configured for spark.executor.",
        "INFO YarnCoarseGrainedExecutorBackend: Successfully registered with driver",
        "INFO Executor: Starting executor ID 1 on host ",
        "INFO Executor: OS info Linux, 6.1.0, amd64",
        "INFO Executor: Java version 17.0.15",
        "INFO Utils: Successfully started service 'org.apache.spark.network.netty.NettyBlockTransferService' on port 38001.",
        "INFO BlockManagerMaster: Registering BlockManager BlockManagerId(1, ",
        "INFO BlockManager: Initialized BlockManager: BlockManagerId(1, ",
        // YarnCoarseGrainedExecutorBackend.getUserClassPath = Client.getUserClasspathUrls:
        // the localized __app__.jar in the container's directory.
        "INFO Executor: Starting executor with user classpath (userClassPathFirst = false): 'file:/tmp/hadoop-yarn/nm-local-dir/usercache/spark/appcache/application_1764662400000_0001/container_1764662400000_0001_01_000002/__app__.jar'",
        "INFO Executor: Created or updated repl class loader org.apache.spark.util.MutableURLClassLoader@",
        // env.initializeShuffleManager(): IndexShuffleBlockResolver's SecurityManager.
        "INFO SecurityManager: Changing view acls to: spark",
        "INFO YarnCoarseGrainedExecutorBackend: Got assigned task 0",
        "INFO Executor: Running task 0.0 in stage 0.0 (TID 0)",
        "INFO TorrentBroadcast: Started reading broadcast variable 0 with 1 pieces (estimated total size 4.0 MiB)",
        "INFO TransportClientFactory: Successfully created connection to nm-",
        "INFO MemoryStore: MemoryStore started with capacity ",
        // Spark 4.0.0's SparkPi task binary (memory_store.rs says how it was measured).
        "INFO MemoryStore: Block broadcast_0_piece0 stored as bytes in memory (estimated size 2.2 KiB, free ",
        "INFO TorrentBroadcast: Reading broadcast variable 0 took ",
        "INFO MemoryStore: Block broadcast_0 stored as values in memory (estimated size 4.0 KiB, free ",
    ];
    let mut at = 0;
    for want in expected {
        let found = lines[at..].iter().position(|l| l.starts_with(want));
        let Some(i) = found else {
            panic!("{want:?} missing after line {at}:\n{}", out.stderr);
        };
        at += i + 1;
    }
    // A real Spark 4.0 executor's stderr opens with the JVM's warning for the --add-modules
    // the SparkContext put in spark.executor.extraJavaOptions (SparkContext.scala
    // supplementJavaModuleOptions), then log4j's default profile line.
    let mut first = out.stderr.lines();
    assert_eq!(
        first.next(),
        Some("WARNING: Using incubator modules: jdk.incubator.vector")
    );
    assert_eq!(
        first.next(),
        Some("Using Spark's default log4j profile: org/apache/spark/log4j2-defaults.properties")
    );
    // TransportClientFactory.createClient: `host/ip:port after N ms`; the default cluster's
    // nm-K is its K-th node, 10.0.1.K; connects take time (a real 4.0.0 executor logged 652,
    // 25 and 21 ms for these three), the JVM's first the longest.
    let connects: Vec<(String, u64)> = lines
        .iter()
        .filter_map(|l| {
            l.strip_prefix("INFO TransportClientFactory: Successfully created connection to ")
        })
        .map(|rest| {
            let (to, after) = rest.split_once(" after ").expect("after");
            let ms = after.split(' ').next().unwrap().parse().expect("ms");
            (to.to_string(), ms)
        })
        .collect();
    assert_eq!(connects.len(), 3, "{connects:?}");
    for (to, ms) in &connects {
        let (host, rest) = to.split_once('/').expect("host/ip");
        let k = host
            .strip_prefix("nm-")
            .and_then(|h| h.split('.').next())
            .expect("nm-K");
        assert!(rest.starts_with(&format!("10.0.1.{k}:")), "{to}");
        assert!(*ms > 0, "{to} after {ms} ms");
    }
    assert!(
        connects[0].1 >= 40 && connects[0].1 > connects[1].1,
        "{connects:?}"
    );
}

/// The driver names a registering executor by the connection's remote address
/// (NettyRpcEnv.scala NettyRpcHandler.internalReceive: `RpcAddress(addr.getHostString,
/// addr.getPort)` of the accepted socket), so a real YARN driver prints the executor's IP:
/// here its node's, 10.0.1.K for nm-K of the default cluster.
#[test]
fn the_driver_names_a_registering_executor_by_its_ip() {
    let r = spark_pi(1, 1);
    let stderr = |suffix: &str| {
        let (_, out) = r
            .logs
            .outputs()
            .iter()
            .find(|(k, _)| k.ends_with(suffix))
            .expect("a container");
        out.stderr.clone()
    };
    let executor = stderr("_000002");
    let host = executor
        .lines()
        .find_map(|l| l.split("Starting executor ID 1 on host ").nth(1))
        .expect("the executor's host");
    let k = host
        .strip_prefix("nm-")
        .and_then(|h| h.split('.').next())
        .expect("nm-K");
    let am = stderr("_000001");
    let line = am
        .lines()
        .find(|l| l.contains("Registered executor"))
        .expect("registered");
    let want = format!(
        "INFO YarnSchedulerBackend$YarnDriverEndpoint: Registered executor NettyRpcEndpointRef(spark-client://Executor) (10.0.1.{k}:"
    );
    assert!(line.contains(&want), "{line}");
    assert!(line.ends_with(") with ID 1, ResourceProfileId 0"), "{line}");
}

/// `[costs] sparkpi_real_darts = false` (issue 15's switch): SparkPi counts each task's
/// expected hits instead of throwing its darts; the virtual run is the same message for
/// message, only the estimate differs (and no longer depends on the seed).
#[test]
fn sparkpi_can_count_expected_hits_instead_of_throwing_darts() {
    let dir = TestDir::new("darts");
    let text = std::fs::read_to_string("config/cluster.toml")
        .expect("read")
        .replace("[costs]\n", "[costs]\nsparkpi_real_darts = false\n");
    assert!(text.contains("sparkpi_real_darts = false"));
    let file = dir.join("cluster.toml");
    std::fs::write(&file, text).expect("write");
    let cluster = file.display().to_string();
    let real = submit_pi(&["--num-executors", "2", "app.jar", "20"]).expect("runs");
    let expected = submit_pi(&[
        "--cluster",
        &cluster,
        "--num-executors",
        "2",
        "app.jar",
        "20",
    ])
    .expect("runs");
    assert_eq!(real.fingerprint, expected.fingerprint);
    assert_eq!(real.end_ms, expected.end_ms);
    let darts = sparkyard_actors::simulation::facts::spark_pi::total_darts(20);
    let hits: u64 = (0..20)
        .map(|i| {
            let (lo, hi) = ((darts - 1) * i / 20, (darts - 1) * (i + 1) / 20);
            sparkyard_actors::simulation::facts::spark_pi::expected_hits(hi - lo)
        })
        .sum();
    let want = 4.0 * hits as f64 / (darts - 1) as f64;
    assert!(
        (pi_of(&expected) - want).abs() < 1e-9,
        "{}",
        pi_of(&expected)
    );
    assert_ne!(pi_of(&real), pi_of(&expected));
}

/// The lines of one container's stderr without their date and time.
fn container_lines<'a>(r: &'a sparkyard::runner::RunResult, suffix: &str) -> Vec<&'a str> {
    let (_, out) = r
        .logs
        .outputs()
        .iter()
        .find(|(k, _)| k.ends_with(suffix))
        .unwrap_or_else(|| panic!("a container ending {suffix}"));
    out.stderr
        .lines()
        .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l))
        .collect()
}

/// The shuffle path's lines as a real Spark 4.0.0 run logs them (pyspark's spark-submit,
/// `local-cluster[2,1,1024]`, a groupByKey of 4 maps into 2 reduces): the driver's
/// DAGScheduler.createShuffleMapStage `Registering RDD 2 (groupByKey at job.py:5) as input to
/// shuffle 0` before `Got job`, MapOutputTrackerMasterEndpoint's `Asked to send map output
/// locations for shuffle 0 to <executor ip:port>` once per executor, and on each executor's
/// first reduce task MapOutputTrackerWorker.getStatuses' three lines, then
/// ShuffleBlockFetcherIterator.initialize's `Getting ...` and `Started N remote fetches in M ms`
/// (every reduce task); a later reduce task on the same executor finds the statuses cached.
#[test]
fn the_shuffle_path_logs_spark_4_0s_lines() {
    let r = submit(&[
        "--class",
        "org.apache.spark.examples.GroupByTest",
        "--num-executors",
        "2",
        "examples/jars/spark-examples.jar",
        "4",
        "100",
        "1000",
        "4",
    ])
    .expect("a run");
    let driver: Vec<&str> = am_stderr_of(&r)
        .lines()
        .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l))
        .collect();
    let pos = |want: &str| driver.iter().position(|l| l.starts_with(want));
    let registering =
        pos("INFO DAGScheduler: Registering RDD 1 (flatMap at GroupByTest.scala:40) as input to shuffle 0")
            .expect("the shuffle's registration");
    assert!(registering < pos("INFO DAGScheduler: Got job 1 ").expect("job 1"));
    assert!(registering > pos("INFO DAGScheduler: Got job 0 ").expect("job 0"));
    let asked: Vec<&str> = driver
        .iter()
        .filter_map(|l| {
            l.strip_prefix(
                "INFO MapOutputTrackerMasterEndpoint: Asked to send map output locations for shuffle 0 to ",
            )
        })
        .collect();
    // The executors' addresses as the driver saw them register (`(ip:port)`).
    let registered: Vec<&str> = driver
        .iter()
        .filter(|l| l.contains("Registered executor"))
        .filter_map(|l| l.split_once(") (")?.1.split_once(')').map(|(a, _)| a))
        .collect();
    assert_eq!(asked.len(), 2, "{asked:?}");
    for a in &asked {
        assert!(registered.contains(a), "{a} not in {registered:?}");
    }
    for suffix in ["_000002", "_000003"] {
        let lines = container_lines(&r, suffix);
        let first_reduce = lines
            .iter()
            .position(|l| {
                l.starts_with("INFO Executor: Running task") && l.contains("in stage 2.0")
            })
            .expect("a reduce task");
        // The task binary's broadcast is read first (as in the real run).
        let fetching = lines[first_reduce..]
            .iter()
            .position(|l| {
                *l == "INFO MapOutputTrackerWorker: Don't have map outputs for shuffle 0, fetching them"
            })
            .expect("the statuses fetched");
        // ... within the first reduce task (no other task runs in between).
        assert!(
            lines[first_reduce + 1..first_reduce + fetching]
                .iter()
                .all(|l| !l.starts_with("INFO Executor: Running task")),
            "{lines:#?}"
        );
        let rest = &lines[first_reduce + fetching..];
        assert!(
            rest[1].starts_with(
                "INFO MapOutputTrackerWorker: Doing the fetch; tracker endpoint = NettyRpcEndpointRef(spark://MapOutputTracker@nm-"
            ),
            "{}",
            rest[1]
        );
        assert_eq!(
            rest[2],
            "INFO MapOutputTrackerWorker: Got the map output locations"
        );
        assert!(
            rest[3].starts_with("INFO ShuffleBlockFetcherIterator: Getting 4 (")
                && rest[3].contains(" push-merged-local and "),
            "{}",
            rest[3]
        );
        let count = |p: &str| lines.iter().filter(|l| l.starts_with(p)).count();
        let reduces = lines
            .iter()
            .filter(|l| l.starts_with("INFO Executor: Running task") && l.contains("in stage 2.0"))
            .count();
        assert_eq!(
            count("INFO MapOutputTrackerWorker: Got the map output locations"),
            1
        );
        assert_eq!(count("INFO ShuffleBlockFetcherIterator: Getting "), reduces);
        assert_eq!(count("INFO ShuffleBlockFetcherIterator: Started "), reduces);
    }
}
