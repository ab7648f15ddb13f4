//! The bundled fault scenarios: each meets its own expectations, is deterministic, and leaves
//! the trace that proves its recovery path ran. Bad scenario files fail with clear messages.

use crate::common::{TestDir, bundled};
use sparkyard::runner::{RunOptions, RunResult};
use sparkyard::scenario;
use sparkyard_actors::simulation::addresses;
use sparkyard_actors::simulation::trace::{FaultEvent, StateChange, TraceKind};
use sparkyard_messages::ids::{ContainerId, ExecutorId};
use std::path::Path;

fn run(name: &str) -> RunResult {
    crate::common::bundled_scenario(name, RunOptions::default())
}

/// Names of messages delivered to mailboxes whose label starts with `endpoint`.
fn delivered_to(r: &RunResult, endpoint: &str) -> Vec<&'static str> {
    r.trace
        .iter()
        .filter(|e| e.kind == TraceKind::Deliver)
        .filter(|e| {
            e.to.is_some_and(|t| r.labels[t.0 as usize].starts_with(&format!("{endpoint}@")))
        })
        .map(|e| e.name)
        .collect()
}

fn states(r: &RunResult) -> Vec<&StateChange> {
    r.trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::State(s) => Some(s),
            _ => None,
        })
        .collect()
}

fn am_registered(s: &StateChange, attempt: u32) -> bool {
    matches!(s, StateChange::AmRegistered { attempt: a } if a.attempt_id == attempt)
}

fn executor_registered(s: &StateChange, id: u32) -> bool {
    matches!(s, StateChange::ExecutorRegistered { executor, .. } if *executor == ExecutorId(id))
}

#[test]
fn there_are_at_least_twelve_bundled_scenarios_and_each_meets_its_expectations_deterministically() {
    let files = bundled();
    assert!(files.len() >= 12, "{files:?}");
    for f in files {
        let s = scenario::load(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if s.arrivals.is_some() {
            // Many applications: tests/sparkyard/arrivals.rs runs them.
            let a = sparkyard::arrivals::run_scenario(&s, None).expect("runs");
            assert!(a.failures.is_empty(), "{}: {:?}", f.display(), a.failures);
            continue;
        }
        let a = scenario::run(&s, None, RunOptions::default()).expect("runs");
        assert!(a.failures.is_empty(), "{}: {:?}", f.display(), a.failures);
        assert!(
            !a.result.faults_fired.is_empty() || s.faults.is_empty(),
            "{}: no fault fired",
            f.display()
        );
        assert_recovery_in_trace(&f, &a.result);
        let b = scenario::run(&s, None, RunOptions::default()).expect("runs again");
        assert_eq!(
            a.result.fingerprint,
            b.result.fingerprint,
            "{}: not deterministic",
            f.display()
        );
    }
}

/// The trace proves the recovery path: every fired fault is recorded; every lost executor's
/// removal reached the driver; a second AM attempt registered again.
fn assert_recovery_in_trace(f: &Path, r: &RunResult) {
    let f = f.display();
    let faults = r
        .trace
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::Fault(FaultEvent::Fired { .. })))
        .count();
    assert_eq!(
        faults,
        r.faults_fired.len(),
        "{f}: each fired fault is in the trace"
    );
    // Losses the AM saw as container exits (the driver's own heartbeat removals have none).
    if r.counters
        .executor_exits
        .iter()
        .any(|l| l.exit_status.is_some())
    {
        assert!(
            delivered_to(r, "YarnScheduler").contains(&"RemoveExecutor"),
            "{f}: the AM reports lost executors"
        );
    }
    if r.counters.am_attempts > 1 && r.counters.executors_registered > 0 {
        let second = states(r).iter().any(|s| am_registered(s, 2));
        let never_registered = r.counters.am_exit_codes.values().all(|c| *c == 13);
        assert!(
            second || never_registered,
            "{f}: attempt 2 registered with the RM"
        );
    }
}

#[test]
fn a_killed_executor_is_removed_through_the_am_report_and_the_disconnect_path() {
    let r = run("executor-sigkill");
    let yarn = delivered_to(&r, "YarnScheduler");
    assert!(
        yarn.contains(&"RemoveExecutor"),
        "the AM reports the completed container"
    );
    let am = delivered_to(&r, "YarnAM");
    assert!(
        am.contains(&"GetExecutorLossReason"),
        "the driver asks the AM after the disconnect"
    );
    let driver = delivered_to(&r, "CoarseGrainedScheduler");
    assert!(
        driver.iter().filter(|n| **n == "RemoveExecutor").count() >= 2,
        "both paths reach the DriverEndpoint"
    );
    assert!(states(&r).iter().any(|s| matches!(
        s,
        StateChange::ExecutorLost {
            executor: ExecutorId(1),
            exit_status: 137
        }
    )));
    assert!(
        states(&r).iter().any(|s| executor_registered(s, 3)),
        "the replacement gets the next id"
    );
}

#[test]
fn memory_kills_fail_tasks_but_are_not_counted_toward_max_executor_failures() {
    let r = run("yarn-pmem-kill");
    assert_eq!(r.counters.executor_failures_counted, 0);
    assert!(
        states(&r).iter().any(|s| matches!(
            s,
            StateChange::ContainerCompleted {
                exit_status: -104,
                ..
            }
        )),
        "{:?}",
        states(&r)
    );
}

#[test]
fn a_killed_am_gives_a_new_attempt_with_executor_ids_from_one() {
    let r = run("am-killed-retry");
    let st = states(&r);
    let second = st
        .iter()
        .position(|s| am_registered(s, 2))
        .expect("attempt 2 registered");
    assert!(
        st[second..].iter().any(|s| executor_registered(s, 1)),
        "ids restart at 1 after {st:?}"
    );
    assert_eq!(r.counters.am_attempts, 2);
}

#[test]
fn the_reporter_finishes_with_exit_11_once_max_executor_failures_is_reached() {
    let r = run("max-executor-failures");
    assert!(
        states(&r)
            .iter()
            .any(|s| matches!(s, StateChange::AmExited { exit_code: 11 }))
    );
    assert_eq!(r.counters.executor_failures_counted, 4);
}

/// The trace's process index of the first AM attempt's first executor container.
fn first_executor_process(r: &RunResult) -> u32 {
    r.processes
        .iter()
        .position(|p| p.ends_with("_01_000002"))
        .expect("executor 1's container") as u32
}

#[test]
fn a_partitioned_executor_is_held_by_the_network_and_expired_by_heartbeats() {
    let r = run("heartbeat-partition");
    let cut = r.faults_fired[0].at_ms;
    let executor_1 = first_executor_process(&r);
    let heartbeats_after_cut = r
        .trace
        .iter()
        .filter(|e| {
            e.kind == TraceKind::Deliver
                && e.name == "Heartbeat"
                && e.from == Some(executor_1)
                && e.time_ms > cut
        })
        .count();
    assert_eq!(
        heartbeats_after_cut, 0,
        "the partition holds executor 1's heartbeats"
    );
    assert!(
        delivered_to(&r, "YarnAM").contains(&"KillExecutors"),
        "killAndReplaceExecutor goes to the AM"
    );
}

/// Executor.reportHeartBeat (Spark 4.0.0 jar): each heartbeat is an ask that waits
/// `spark.executor.heartbeatInterval` (2 s here); after `spark.executor.heartbeat.maxFailures`
/// (3) failures in a row the executor exits with ExecutorExitCode.HEARTBEAT_FAILURE (56), three
/// intervals after the cut, long before the driver's HeartbeatReceiver would expire it
/// (`spark.network.timeout` 120 s): the driver never kills it, and the AM counts the exit.
#[test]
fn a_partitioned_executor_exits_56_after_max_heartbeat_failures() {
    let r = run("heartbeat-max-failures");
    let cut = r.faults_fired[0].at_ms;
    let executor_1 = first_executor_process(&r);
    let exit = r
        .trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::State(StateChange::ProcessExited { process, exit_code })
                if *process == executor_1 =>
            {
                Some((e.time_ms, *exit_code))
            }
            _ => None,
        })
        .expect("executor 1 exits");
    assert_eq!(exit.1, 56);
    // The heartbeat in flight at the cut, then two more: the third failure is at most four
    // intervals after the cut.
    assert!(
        exit.0 > cut + 2 * 2_000 && exit.0 <= cut + 4 * 2_000,
        "exit at {} ms, cut at {cut} ms",
        exit.0
    );
    assert!(
        !delivered_to(&r, "YarnAM").contains(&"KillExecutors"),
        "the driver did not expire it"
    );
    assert_eq!(r.counters.executor_failures_counted, 1);
}

#[test]
fn a_lost_node_is_declared_lost_by_the_rm_and_its_containers_aborted() {
    let r = run("node-lost");
    assert!(
        states(&r).iter().any(
            |s| matches!(s, StateChange::NodeLost { host } if host == "nm-6.sparkyard.internal")
        )
    );
    assert!(delivered_to(&r, "YarnAM").contains(&"GetExecutorLossReason"));
}

fn load_text(name: &str, text: &str) -> String {
    let dir = TestDir::new("scenario");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    match scenario::load(&p) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

const MINIMAL: &str = "name = \"x\"\n[submit]\nclass = \"org.apache.spark.examples.SparkPi\"\n";

/// A workload stage's `input` (its tasks' preferred hosts): exactly one of `replication` and
/// `hosts`, hosts of the cluster only, a replication between 1 and 10.
#[test]
fn stage_input_is_checked_and_names_the_key() {
    let with = |input: &str| {
        format!(
            "name = \"x\"\n[submit]\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 4\nduration = {{ fixed_ms = 1 }}\ninput = {input}\n"
        )
    };
    assert_eq!(load_text("input-ok.toml", &with("{ replication = 3 }")), "");
    let hosts = "{ hosts = [[\"nm-1.sparkyard.internal\"], [\"nm-5.sparkyard.internal\"]] }";
    assert_eq!(load_text("input-hosts.toml", &with(hosts)), "");
    for (input, needle) in [
        (
            "{ replication = 3, hosts = [[\"nm-1.sparkyard.internal\"]] }",
            "workload.jobs[0].stages[0].input: give at most one of `replication`",
        ),
        (
            "{}",
            "input: give what each task reads (bytes_per_task, records_per_task)",
        ),
        (
            "{ replication = 0 }",
            "input.replication: must be between 1 and 10, got 0",
        ),
        (
            "{ hosts = [[\"nope\"]] }",
            "input.hosts: host: `nope` is not a NodeManager of this cluster",
        ),
        (
            "{ hosts = [[]] }",
            "input.hosts: give at least one list of hosts",
        ),
    ] {
        let e = load_text("input-bad.toml", &with(input));
        assert!(e.contains(needle), "{input}: {e}");
    }
    // Blocks placed from the seed (3 replicas over the embedded cluster's 8 nodes on 2 racks)
    // make some tasks NODE_LOCAL to the executors' hosts, the others wait for them and then
    // run RACK_LOCAL or ANY (TaskSetManager.dequeueTaskHelper); none is a no-preference task.
    let text = with("{ replication = 3 }").replace("tasks = 4", "tasks = 24")
        + "[expect]\nlogs_contain = [\"NODE_LOCAL, 7595 bytes\"]\nlogs_not_contain = [\"PROCESS_LOCAL\"]\n";
    let dir = TestDir::new("input");
    let path = dir.join("input-run.toml");
    std::fs::write(&path, text).expect("write");
    let s = scenario::load(&path).expect("loads");
    let r = scenario::run(&s, None, RunOptions::default()).expect("runs");
    assert!(r.failures.is_empty(), "{:?}", r.failures);
}

#[test]
fn bad_scenario_files_are_errors_naming_the_file_the_line_and_the_key() {
    assert_eq!(load_text("ok.toml", MINIMAL), "");
    let cases: &[(&str, &str, &str)] = &[
        (
            "unknown.toml",
            "name = \"x\"\nbogus = 1\n[submit]\nclass = \"c\"\n",
            "unknown field `bogus`",
        ),
        (
            "kind.toml",
            &format!("{MINIMAL}[[faults]]\nkind = \"explode\"\nat_ms = 1\n"),
            "line 4: faults[0]: kind: unknown fault kind `explode`",
        ),
        (
            "host.toml",
            &format!("{MINIMAL}[[faults]]\nkind = \"kill-node\"\nat_ms = 1\nhost = \"nope\"\n"),
            "host: `nope` is not a NodeManager of this cluster",
        ),
        (
            "trigger.toml",
            &format!("{MINIMAL}[[faults]]\nkind = \"kill-am\"\n"),
            "needs a trigger",
        ),
        (
            "status.toml",
            &format!(
                "{MINIMAL}[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\nat_ms = 1\nstatus = -7\n"
            ),
            "status: -7 is not a YARN ContainerExitStatus",
        ),
        ("empty.toml", "", "the file is empty"),
        ("type.toml", "name = 3\n", "invalid type"),
        ("garbage.toml", "\u{0}\u{1}[[[", "error"),
        (
            "expect.toml",
            &format!("{MINIMAL}[expect]\nstate = \"DONE\"\n"),
            "expect.state: `DONE` is not a YARN application state",
        ),
        (
            "expect-key.toml",
            &format!("{MINIMAL}[expect]\ncolour = \"red\"\n"),
            "TOML parse error at line 5, column 1",
        ),
        (
            "expect-key.toml",
            &format!("{MINIMAL}[expect]\ncolour = \"red\"\n"),
            "unknown field `colour`, expected one of `state`",
        ),
    ];
    for (file, text, needle) in cases {
        let e = load_text(file, text);
        assert!(e.contains(file), "{file}: the message names the file: {e}");
        assert!(e.contains(needle), "{file}: {e}");
    }
    let missing = scenario::load(Path::new("/nonexistent/s.toml"))
        .err()
        .expect("missing file")
        .to_string();
    assert!(missing.contains("cannot read the scenario"), "{missing}");
    let dir = scenario::load(Path::new("config/scenarios"))
        .err()
        .expect("a directory")
        .to_string();
    assert!(dir.contains("is a directory, not a scenario"), "{dir}");
}

/// Runs a bundled scenario with `from` replaced by `to` in its text (written to a temp file);
/// the replacement must apply, or the variant would silently be the bundled scenario.
fn run_variant(name: &str, from: &str, to: &str) -> scenario::ScenarioRun {
    run_variant_of(name, &[(from, to)])
}

/// `run_variant` with several replacements, each of which must apply.
fn run_variant_of(name: &str, replacements: &[(&str, &str)]) -> scenario::ScenarioRun {
    let mut text = std::fs::read_to_string(format!("config/scenarios/{name}.toml")).expect("read");
    for (from, to) in replacements {
        assert!(text.contains(from), "{name}.toml has no `{from}`");
        text = text.replace(from, to);
    }
    let dir = TestDir::new("variant");
    let p = dir.join(format!("{name}-variant.toml"));
    std::fs::write(&p, text).expect("write");
    let s = scenario::load(&p).expect("loads");
    scenario::run(&s, None, RunOptions::default()).expect("runs")
}

/// HeartbeatReceiver.receiveAndReply / Executor.reportHeartBeat / BlockManager.reregister /
/// BlockManagerMasterEndpoint.register (Spark 4.0.0 jar): the driver expires a partitioned
/// executor, but its StopExecutor is lost and the partition heals before the AM's kill lands.
/// The executor's next heartbeat is answered `HeartbeatResponse(reregisterBlockManager =
/// true)` (the receiver no longer knows it); its block manager asks to register again, the
/// master refuses (SPARK-41360: the executor is lost) and the executor exits
/// BLOCK_MANAGER_REREGISTRATION_FAILED (58).
#[test]
fn an_executor_the_driver_lost_is_told_to_reregister_and_exits_58() {
    let run = run_variant_of(
        "heartbeat-partition",
        &[
            (
                r#"conf = { "spark.network.timeout" = "30s" }"#,
                r#"conf = { "spark.network.timeout" = "30s", "spark.executor.heartbeatInterval" = "2s" }"#,
            ),
            ("duration_ms = 200000", "duration_ms = 51000"),
            (
                "[expect]",
                "[[faults]]\nkind = \"drop\"\nlabel = \"StopExecutor to executor 1 is lost\"\nat_ms = 0\nmessage = \"StopExecutor\"\nto = \"executor:1\"\n\n[expect]",
            ),
        ],
    );
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let r = &run.result;
    assert!(
        delivered_to(r, "CoarseGrainedScheduler").contains(&"ReregisterBlockManager"),
        "the block manager asked to register again"
    );
    let executor_1 = first_executor_process(r);
    let exit = r.trace.iter().find_map(|e| match &e.kind {
        TraceKind::State(StateChange::ProcessExited { process, exit_code })
            if *process == executor_1 =>
        {
            Some(*exit_code)
        }
        _ => None,
    });
    assert_eq!(exit, Some(58));
}

#[test]
fn an_am_killed_as_its_attempt_starts_gives_a_new_attempt_without_a_panic() {
    // The kill lands while the AM is starting its Driver thread: the Driver's endpoints are
    // registered in a process that is already dead (once a panic the run swallowed).
    let r = run_variant(
        "am-killed-retry",
        "on_tasks_finished = 4",
        "on_attempt_started = 1",
    );
    assert!(r.result.violations.is_empty(), "{:?}", r.result.violations);
    assert_eq!(r.result.counters.am_attempts, 2);
    assert_eq!(common_exit_codes(&r.result), [137, 0]);
    let o = &r.result.outcome;
    assert_eq!(o.exception, None);
    assert!(
        states(&r.result).iter().any(|s| am_registered(s, 2)),
        "attempt 2 registers"
    );
    assert_eq!(r.result.counters.tasks_finished, 12);
}

fn common_exit_codes(r: &RunResult) -> Vec<i32> {
    crate::common::am_exit_codes(r)
}

/// One trace record without its sequence numbers: (ms, kind, from, to, name).
type Step = (u64, TraceKind, Option<u32>, Option<u32>, &'static str);

/// What a run did, without the trace's own markers of the faults that fired (a fault that
/// fires but changes nothing must not count as a difference).
fn behaviour(r: &RunResult) -> Vec<Step> {
    r.trace
        .iter()
        .filter(|e| !matches!(e.kind, TraceKind::Fault(_)))
        .map(|e| (e.time_ms, e.kind.clone(), e.from, e.to.map(|t| t.0), e.name))
        .collect()
}

#[test]
fn every_bundled_fault_changes_what_its_scenario_does() {
    let opts = RunOptions {
        capture_logs: false,
        ..RunOptions::default()
    };
    let mut checked = 0;
    for f in bundled() {
        let mut s = scenario::load(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if s.faults.is_empty() && s.driver_faults.is_empty() {
            continue;
        }
        let with = scenario::run(&s, None, opts.clone()).expect("runs");
        s.faults.clear();
        s.driver_faults.clear();
        let without = scenario::run(&s, None, opts.clone()).expect("runs");
        assert!(
            behaviour(&with.result) != behaviour(&without.result),
            "{}: the run is the same without its faults",
            f.display()
        );
        checked += 1;
    }
    assert!(checked >= 20, "{checked} scenarios with faults");
}

/// HeartbeatReceiver forgets an executor once it is removed (Spark: HeartbeatReceiver.scala,
/// `onExecutorRemoved` -> `removeExecutor`, `executorLastSeen -= executorId`), so
/// `expireDeadHosts` never times it out a second time: a killed executor, in a job that runs
/// well past `spark.network.timeout`, gets no `killAndReplaceExecutor` (no KillExecutors to the
/// AM) and no "with no recent heartbeats" removal.
#[test]
fn a_removed_executor_is_not_timed_out_again_by_the_heartbeat_receiver() {
    let r = run_variant("executor-sigkill", "fixed_ms = 4000", "fixed_ms = 300000");
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    let r = &r.result;
    assert!(
        r.end_ms > 300_000 + 120_000,
        "the job outlives the heartbeat timeout"
    );
    assert!(
        !delivered_to(r, "YarnAM").contains(&"KillExecutors"),
        "the lost executor was timed out again"
    );
    let am_log = r
        .logs
        .outputs()
        .iter()
        .filter(|(key, _)| key.ends_with("_01_000001"))
        .map(|(_, out)| out.stderr.clone())
        .collect::<String>();
    assert!(
        !am_log.contains("with no recent heartbeats"),
        "no heartbeat expiry after the executor was removed"
    );
}

/// BlockManagerMasterEndpoint's `receiveAndReply` (Spark 4.0.0's jar): an `UpdateBlockInfo`
/// of a shuffle block goes to `updateShuffleBlockInfo`, which answers true for a data and an
/// index block, and `handleResult` posts SparkListenerBlockUpdated for each;
/// IndexShuffleBlockResolver.getMigrationBlocks uploads the data block, then the index, and the
/// receiver's `putShuffleBlockAsStream` reports each DISK_ONLY with its file's length.
/// decommission-migrate's 4 migrated map outputs (64 MiB each, 16 reduce partitions) post 8
/// updates, each data block right before its index block, on the receiving executor.
#[test]
fn migrated_map_outputs_post_block_updates_for_data_then_index() {
    use sparkyard_messages::listener::{ListenerEvent, StorageLevelInfo};
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("decommission-migrate", opts);
    let shuffle: Vec<_> = r
        .events
        .iter()
        .flat_map(|a| &a.events)
        .filter_map(|e| match e {
            ListenerEvent::BlockUpdated(b) if b.block_id.starts_with("shuffle_") => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(shuffle.len(), 8, "{shuffle:?}");
    for pair in shuffle.chunks(2) {
        let (data, index) = (&pair[0], &pair[1]);
        assert!(data.block_id.ends_with("_0.data"), "{data:?}");
        assert_eq!(index.block_id, data.block_id.replace(".data", ".index"));
        assert_eq!((data.memory_size, data.disk_size), (0, 64 << 20));
        assert_eq!((index.memory_size, index.disk_size), (0, 17 * 8));
        for b in [data, index] {
            assert_eq!(b.storage_level, StorageLevelInfo::DISK_ONLY);
            assert_eq!(b.executor_id, data.executor_id);
            assert!(b.host.starts_with("nm-7"), "{b:?}");
        }
    }
}

/// BlockManagerDecommissioner.scala / MapOutputTracker.scala (ShuffleStatus.updateMapOutput) /
/// TaskSetManager.executorLost: with storage decommissioning, the decommissioned node's 4 map
/// outputs are uploaded to the peers on nm-7 and the driver moves each (one
/// `UpdateShuffleBlockInfo` per output); no map task runs twice. The reduce stage's attempt
/// still loses 3 reducers: the move bumps no epoch and the task set's tasks carry the epoch of
/// its creation (Spark 4.0.0's jar), so reducers launched after the executors exited read their
/// executors' cached statuses and fetch from the exited ones (FetchFailed); their partitions run
/// again in a new attempt of the reduce stage alone. Without migration (Spark's default), the
/// same node loss costs FetchFailed reducers and a resubmitted map stage: 4 more task attempts
/// and a later end.
#[test]
fn decommissioning_migrates_map_outputs_so_no_map_stage_reruns() {
    let with = run("decommission-migrate");
    let without = run("decommission-no-migration");
    let count = |r: &RunResult, endpoint: &str, msg: &str| {
        delivered_to(r, endpoint)
            .iter()
            .filter(|n| **n == msg)
            .count()
    };
    assert_eq!(count(&with, "Executor", "UploadShuffleBlock"), 4);
    assert_eq!(
        count(&with, "CoarseGrainedScheduler", "UpdateShuffleBlockInfo"),
        4
    );
    assert_eq!(
        count(&without, "CoarseGrainedScheduler", "UpdateShuffleBlockInfo"),
        0
    );
    // 8 map + 16 reduce tasks, 3 reducers failed with FetchFailed and run again, no map task.
    assert_eq!(with.counters.tasks_launched, 27);
    assert_eq!(with.counters.tasks_failed, 3);
    // Without migration: 3 reducers fail with FetchFailed (the slot the first frees takes the
    // next reducer before the TaskResultGetter marks the stage failed, as in Spark), the 4
    // lost maps and the failed reducers run again.
    assert_eq!(without.counters.tasks_launched, 31);
    assert_eq!(without.counters.tasks_failed, 3);
    assert!(
        with.end_ms < without.end_ms,
        "{} vs {}",
        with.end_ms,
        without.end_ms
    );
    for r in [&with, &without] {
        use sparkyard_actors::simulation::observer::RemovalCause;
        assert_eq!(r.counters.executor_failures_counted, 0);
        // Decommissioned, not lost (issue 30): a reducer's failed fetch from one afterwards
        // does not make it lost either.
        assert!(r.counters.executors_lost.is_empty());
        assert_eq!(r.counters.removed(RemovalCause::Decommissioned), 2);
    }
}

/// BlockManager.getOrElseUpdate / BlockManagerMasterEndpoint (updateBlockInfo,
/// removeBlockManager): GroupByTest caches its 4 pair partitions (4 `UpdateRddBlockInfo`s in
/// job 0). After executor 2 dies, its 2 partitions have no live copy: job 1's map tasks for
/// them compute the pairs again (on executor 1, whose storage memory is full, so nothing more
/// is stored or reported) and take the generation time again; without the loss every job-1
/// map task finds its block in memory and the job is shorter.
#[test]
fn a_lost_executors_cached_blocks_are_computed_again() {
    let lost = run("group-by-test-executor-lost");
    // The same run with the kill never firing (12 tasks in all).
    let kept = run_variant(
        "group-by-test-executor-lost",
        "on_tasks_finished = 4",
        "on_tasks_finished = 1000",
    )
    .result;
    let reports = |r: &RunResult| {
        delivered_to(r, "CoarseGrainedScheduler")
            .iter()
            .filter(|n| **n == "UpdateRddBlockInfo")
            .count()
    };
    assert_eq!(
        reports(&lost),
        4,
        "job 0 stores 4 blocks, the recomputed ones do not fit"
    );
    assert_eq!(reports(&kept), 4);
    assert_eq!(lost.counters.executors_lost.len(), 1);
    assert!(kept.counters.executors_lost.is_empty());
    assert!(
        lost.end_ms > kept.end_ms,
        "{} vs {}",
        lost.end_ms,
        kept.end_ms
    );
}

/// DAGScheduler.getPreferredLocsInternal asks getCacheLocs first, and TaskSetManager keeps a
/// task over a cached partition on its executor's list (`ExecutorCacheTaskLocation` ->
/// `forExecutor`, PROCESS_LOCAL): SparkLR's first job computes and caches the 4 slices of its
/// points; in each of the 4 later iterations every task runs on the executor holding its
/// partition, PROCESS_LOCAL (delay scheduling waits `spark.locality.wait.process` for it), so
/// no block is fetched from the other executor. Before sparkyard read cache locations, a
/// quarter of the iterations' reads went to the peer.
#[test]
fn spark_lr_iterations_run_where_their_partitions_are_cached() {
    use sparkyard_messages::listener::ListenerEvent;
    use std::collections::BTreeMap;
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("spark-lr", opts);
    let mut cached_on: BTreeMap<u32, String> = BTreeMap::new();
    let mut later = Vec::new();
    for e in r.events.iter().flat_map(|a| a.events.iter()) {
        let ListenerEvent::TaskStart { stage_id, info, .. } = e else {
            continue;
        };
        if *stage_id == 0 {
            cached_on.insert(info.partition_id, info.executor_id.clone());
        } else {
            later.push((info.partition_id, info.executor_id.clone(), info.locality));
        }
    }
    assert_eq!(cached_on.len(), 4);
    assert_eq!(
        later.len(),
        16,
        "4 iterations of 4 tasks after the first job"
    );
    for (partition, executor, locality) in &later {
        assert_eq!(
            (executor, *locality),
            (&cached_on[partition], "PROCESS_LOCAL"),
            "partition {partition}"
        );
    }
}

/// The hosts executors registered on and the (host, locality) of each task start, from the
/// run's typed listener events.
fn executor_hosts_and_task_localities(r: &RunResult) -> (Vec<String>, Vec<(String, &'static str)>) {
    use sparkyard_messages::listener::ListenerEvent;
    let mut hosts = Vec::new();
    let mut tasks = Vec::new();
    for e in r.events.iter().flat_map(|a| a.events.iter()) {
        match e {
            ListenerEvent::ExecutorAdded { host, .. } => hosts.push(host.clone()),
            ListenerEvent::TaskStart { info, .. } => tasks.push((info.host.clone(), info.locality)),
            _ => {}
        }
    }
    (hosts, tasks)
}

/// locality-aware-allocation: with dynamic allocation the stage's preferred hosts go with
/// every RequestExecutors (ExecutorAllocationManager.updateExecutorPlacementHints), the
/// YarnAllocator asks for containers on them (LocalityPreferredContainerPlacementStrategy) and
/// the CapacityScheduler places them NODE_LOCAL (RegularContainerAllocator.canAssign): every
/// executor runs where blocks are, and half the tasks run NODE_LOCAL. The same workload
/// without block locations asks for any host, and the executors spread over the cluster
/// (one OFF_SWITCH container per node heartbeat), onto nodes without data.
#[test]
fn locality_aware_requests_put_executors_on_the_data_nodes() {
    let data = [
        "nm-2.sparkyard.internal",
        "nm-3.sparkyard.internal",
        "nm-5.sparkyard.internal",
        "nm-6.sparkyard.internal",
    ];
    let opts = || RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("locality-aware-allocation", opts());
    let (hosts, tasks) = executor_hosts_and_task_localities(&r);
    assert_eq!(hosts.len(), 8);
    assert!(
        hosts.iter().all(|h| data.contains(&h.as_str())),
        "{hosts:?}"
    );
    let local = tasks.iter().filter(|(_, l)| *l == "NODE_LOCAL").count();
    assert_eq!((tasks.len(), local), (16, 8));

    let text = std::fs::read_to_string("config/scenarios/locality-aware-allocation.toml")
        .expect("bundled");
    let without: String = text[..text.find("[expect]").expect("has expectations")]
        .lines()
        .filter(|l| !l.starts_with("input = "))
        .collect::<Vec<_>>()
        .join("\n");
    let dir = TestDir::new("alloc5");
    let path = dir.join("no-locality.toml");
    std::fs::write(&path, without).expect("written");
    let s = scenario::load(&path).expect("loads");
    let plain = scenario::run(&s, None, opts()).expect("runs").result;
    let (hosts, tasks) = executor_hosts_and_task_localities(&plain);
    assert!(
        hosts.iter().any(|h| !data.contains(&h.as_str())),
        "{hosts:?}"
    );
    assert!(tasks.iter().all(|(_, l)| *l == "PROCESS_LOCAL"));
}

/// BlockManagerDecommissioner.scala (decommissionRddCacheBlocks / migrateBlock),
/// BlockManager.scala (replicateBlock / replicate / removeBlock) and
/// BlockManagerMasterEndpoint.scala (getReplicateInfoForRDDBlocks, updateBlockInfo): the
/// decommissioned executor's 4 cached blocks (3 in its first round, the one its last task
/// stored in the next) are each uploaded to a peer (which stores and reports it) and removed
/// from it (a removal report each), so its exit loses no block. With
/// `spark.storage.decommission.rddBlocks.enabled=false` nothing is asked, replicated or removed.
#[test]
fn decommissioning_replicates_cached_blocks_to_peers_before_the_executor_leaves() {
    let with = run("decommission-cached-blocks");
    let without = run_variant(
        "decommission-cached-blocks",
        "\"spark.storage.decommission.replicationReattemptInterval\" = \"5s\"",
        "\"spark.storage.decommission.replicationReattemptInterval\" = \"5s\", \"spark.storage.decommission.rddBlocks.enabled\" = \"false\"",
    );
    let count = |r: &RunResult, endpoint: &str, msg: &str| {
        delivered_to(r, endpoint)
            .iter()
            .filter(|n| **n == msg)
            .count()
    };
    assert_eq!(count(&with, "Executor", "UploadRddBlock"), 4);
    // 16 blocks cached by job 0, then the 4 replicas on the peers.
    assert_eq!(
        count(&with, "CoarseGrainedScheduler", "UpdateRddBlockInfo"),
        20
    );
    assert_eq!(
        count(&with, "CoarseGrainedScheduler", "RemoveRddBlockInfo"),
        4
    );
    assert!(
        count(
            &with,
            "CoarseGrainedScheduler",
            "GetReplicateInfoForRddBlocks"
        ) >= 2
    );
    let without = &without.result;
    assert_eq!(count(without, "Executor", "UploadRddBlock"), 0);
    assert_eq!(
        count(
            without,
            "CoarseGrainedScheduler",
            "GetReplicateInfoForRddBlocks"
        ),
        0
    );
    assert_eq!(
        count(without, "CoarseGrainedScheduler", "RemoveRddBlockInfo"),
        0
    );
    assert_eq!(with.counters.tasks_failed, 0);
    // Decommissioned, not lost (issue 30).
    assert!(with.counters.executors_lost.is_empty());
    let decommissioned = sparkyard_actors::simulation::observer::RemovalCause::Decommissioned;
    assert_eq!(with.counters.removed(decommissioned), 1);
}

/// How the run's listener events (typed records, each SparkContext's) end each launched task
/// attempt: (launched, finished, failed, killed, never ended). A `Resubmitted` TaskEnd is a
/// second end of a finished map task, not an attempt of its own.
fn task_ends(r: &RunResult) -> [u64; 5] {
    use sparkyard_messages::listener::ListenerEvent;
    use sparkyard_messages::listener::TaskEndReason;
    use std::collections::BTreeSet;
    let mut started = BTreeSet::new();
    let mut ended = BTreeSet::new();
    let [mut finished, mut failed, mut killed] = [0u64; 3];
    for a in &r.events {
        for e in &a.events {
            match e {
                ListenerEvent::TaskStart { info, .. } => {
                    started.insert((a.attempt_id, info.task_id));
                }
                ListenerEvent::TaskEnd { reason, info, .. } => {
                    if matches!(reason, TaskEndReason::Resubmitted)
                        || !ended.insert((a.attempt_id, info.task_id))
                    {
                        continue;
                    }
                    match reason {
                        TaskEndReason::Success => finished += 1,
                        TaskEndReason::TaskKilled { .. } => killed += 1,
                        _ => failed += 1,
                    }
                }
                _ => {}
            }
        }
    }
    let open = started.difference(&ended).count() as u64;
    [started.len() as u64, finished, failed, killed, open]
}

/// Every launched task attempt is counted once (issue 30, item 9): finished, failed, killed, or
/// lost with its executor or driver (no TaskEnd ever), each as Spark's listener events record
/// it; the counts add up to the launched ones. The scenarios lose an AM with running tasks, kill
/// the losers of speculation, kill a task of an aborted stage, and lose a node whose tasks never
/// report.
#[test]
fn every_launched_task_is_finished_failed_killed_or_lost_as_the_listener_events_say() {
    for name in [
        "am-killed-retry",
        "speculation",
        "task-max-failures",
        "shuffle-node-lost",
        "node-lost",
        "executor-sigkill",
    ] {
        let r = crate::common::bundled_scenario(
            name,
            RunOptions {
                record_events: true,
                ..RunOptions::default()
            },
        );
        let c = &r.counters;
        let counted = [
            c.tasks_launched,
            c.tasks_finished,
            c.tasks_failed,
            c.tasks_killed,
            c.tasks_lost(),
        ];
        assert_eq!(
            counted,
            task_ends(&r),
            "{name}: launched, finished, failed, killed, lost"
        );
        assert_eq!(
            c.tasks_launched,
            c.tasks_finished + c.tasks_failed + c.tasks_killed + c.tasks_lost(),
            "{name}"
        );
    }
}

/// Executors lost are the ones Spark declares lost (issue 30, items 9 and 24): a node lost with
/// its executors, whose fetch failures make the DAGScheduler log `Executor lost: N` before YARN
/// reports the node (the application ends first), counts them; executors dynamic allocation
/// removed for idleness (`Executor N on host killed by driver.`) and decommissioned ones
/// (`... is decommissioned`) are counted apart with their cause, never as lost.
#[test]
fn executors_lost_agree_with_sparks_declarations_and_removals_on_purpose_are_apart() {
    use sparkyard_actors::simulation::observer::{LossDeclaredBy, RemovalCause};
    let shuffle = run("shuffle-node-lost");
    let lost: Vec<(u32, LossDeclaredBy)> = shuffle
        .counters
        .executors_lost
        .iter()
        .map(|l| (l.executor.0, l.declared_by))
        .collect();
    assert_eq!(
        lost,
        [
            (1, LossDeclaredBy::FetchFailure),
            (2, LossDeclaredBy::FetchFailure)
        ]
    );
    let dag_lost = |r: &RunResult| {
        r.logs
            .outputs()
            .values()
            .flat_map(|o| o.stderr.lines())
            .filter(|l| l.contains("DAGScheduler: Executor lost: "))
            .count()
    };
    // The log is read here only to show the count agrees with it, never to make the count.
    assert_eq!(dag_lost(&shuffle), 2);
    let node = run("node-lost");
    assert!(
        node.counters
            .executors_lost
            .iter()
            .all(|l| l.declared_by == LossDeclaredBy::Backend && l.exit_status == Some(-100))
    );
    let dynamic = run("dynamic-allocation");
    assert!(dynamic.counters.executors_lost.is_empty());
    assert_eq!(dynamic.counters.removed(RemovalCause::Idle), 5);
    let decommission = run("decommission-node");
    assert!(decommission.counters.executors_lost.is_empty());
    assert_eq!(
        decommission.counters.removed(RemovalCause::Decommissioned),
        4
    );
}

/// Issue 27, end to end (`excluded-executor-killed`): every task on executor 1 throws; the
/// stage's TaskSetExcludelist excludes it for stage 0 after two failed tasks, the HealthTracker
/// excludes it for the application when the stage succeeds (its four failures: the slot its
/// second failure frees takes a third task before the TaskResultGetter excludes it), each posting
/// the deprecated `...Blacklisted...` event right before its `...Excluded...` twin (Spark 4.0),
/// and the driver kills it (`killExcludedExecutors`): removed as killed by the driver, not lost,
/// and YARN starts a replacement (the kill keeps the target).
#[test]
fn a_failing_executor_is_excluded_for_the_stage_then_the_application_and_killed() {
    use sparkyard::runner::RunOptions;
    use sparkyard_actors::simulation::observer::RemovalCause;
    use sparkyard_messages::listener::{ExclusionEventName, ListenerEvent};
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("excluded-executor-killed", opts);
    let events: Vec<&ListenerEvent> = r.events.iter().flat_map(|a| &a.events).collect();
    let for_stage: Vec<(ExclusionEventName, &str, u32, u32)> = events
        .iter()
        .filter_map(|e| match e {
            ListenerEvent::ExecutorExcludedForStage {
                name,
                executor_id,
                task_failures,
                stage_id,
                ..
            } => Some((*name, executor_id.as_str(), *task_failures, *stage_id)),
            _ => None,
        })
        .collect();
    assert_eq!(
        for_stage,
        vec![
            (ExclusionEventName::Blacklisted, "1", 2, 0),
            (ExclusionEventName::Excluded, "1", 2, 0)
        ]
    );
    let for_app: Vec<(ExclusionEventName, &str, u32)> = events
        .iter()
        .filter_map(|e| match e {
            ListenerEvent::ExecutorExcluded {
                name,
                executor_id,
                task_failures,
                ..
            } => Some((*name, executor_id.as_str(), *task_failures)),
            _ => None,
        })
        .collect();
    assert_eq!(
        for_app,
        vec![
            (ExclusionEventName::Blacklisted, "1", 4),
            (ExclusionEventName::Excluded, "1", 4)
        ]
    );
    let removed: Vec<(ExecutorId, RemovalCause)> = r
        .counters
        .executors_removed
        .iter()
        .map(|x| (x.executor, x.cause))
        .collect();
    assert_eq!(removed, vec![(ExecutorId(1), RemovalCause::KilledByDriver)]);
    assert!(r.counters.executors_lost.is_empty());
    assert_eq!(r.counters.executors_launched, 3, "a replacement");
    assert_eq!(r.counters.tasks_failed, 4);
}

/// Issue 27, the node and YARN half: the bundled scenario with
/// `application.maxFailedExecutorsPerNode = 1` (one excluded executor excludes its node),
/// dynamic allocation and a second, larger job. The HealthTracker excludes executor 1's node
/// (NodeBlacklisted then NodeExcluded, 1 executor failure), the driver kills every executor on
/// it, and the next RequestExecutors carries the node: the AM adds it to YARN's excluded list
/// (`YarnAllocatorNodeHealthTracker.setSchedulerExcludedNodes`) and never removes it, not
/// even with the request `stop()` sends.
#[test]
fn an_excluded_node_goes_to_yarn_with_the_next_request() {
    use sparkyard::runner::RunOptions;
    use sparkyard_messages::listener::ExclusionEventName;
    let text = std::fs::read_to_string("config/scenarios/excluded-executor-killed.toml")
        .expect("the scenario");
    let kill = "\"spark.excludeOnFailure.killExcludedExecutors\" = \"true\"\n";
    assert!(text.contains(kill) && text.contains("[[faults]]"));
    let text = text
        .replace(
            kill,
            &format!(
                "{kill}\"spark.excludeOnFailure.application.maxFailedExecutorsPerNode\" = \"1\"\n\
                 \"spark.dynamicAllocation.enabled\" = \"true\"\n\
                 \"spark.dynamicAllocation.shuffleTracking.enabled\" = \"true\"\n\
                 \"spark.dynamicAllocation.minExecutors\" = \"2\"\n\
                 \"spark.dynamicAllocation.maxExecutors\" = \"4\"\n"
            ),
        )
        .replace(
            "[[faults]]",
            "[[workload.jobs]]\ncall_site = \"collect at SyntheticJob.scala:50\"\n\n\
             [[workload.jobs.stages]]\nname = \"collect at SyntheticJob.scala:50\"\n\
             tasks = 16\nduration = { fixed_ms = 3000 }\n\n[[faults]]",
        );
    let dir = TestDir::new("node-excl");
    let p = dir.join("node-excluded.toml");
    std::fs::write(&p, text).expect("write");
    let s = scenario::load(&p).expect("loads");
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let run = scenario::run(&s, None, opts).expect("runs");
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let r = run.result;
    let nodes = crate::common::node_exclusions(&r);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    let host = nodes[0].1;
    assert_eq!(
        nodes,
        vec![
            (ExclusionEventName::Blacklisted, host, 1),
            (ExclusionEventName::Excluded, host, 1)
        ]
    );
    let am = crate::common::am_stderr_of(&r);
    let added = format!(
        "INFO YarnAllocatorNodeHealthTracker: adding nodes to YARN application master's excluded node list: List({host})"
    );
    assert!(am.contains(&added), "{added}");
    assert!(!am.contains("removing nodes from YARN application master's excluded node list"));
}

/// Issue 27 (seen side by side with real runs): when the user class throws, the SparkContext's
/// shutdown hook stops it with `stop()`, i.e. `stop(0)`, and `postApplicationEnd(exitCode)` is
/// part of `stop(int)` (Spark 4.0.0's jar), so the ApplicationEnd says ExitCode 0 whatever the
/// AM's exit code (15 here), and it comes after the TaskEnd of the tasks the abort killed (it
/// used to be posted at the failure, with 15, before them).
#[test]
fn an_aborted_applications_end_follows_its_killed_tasks_with_exit_code_zero() {
    use sparkyard::runner::RunOptions;
    use sparkyard_messages::listener::{ListenerEvent, TaskEndReason};
    let opts = RunOptions {
        record_events: true,
        ..RunOptions::default()
    };
    let r = crate::common::bundled_scenario("max-result-size", opts);
    assert_eq!(
        r.counters
            .am_exit_codes
            .values()
            .copied()
            .collect::<Vec<i32>>(),
        vec![15]
    );
    let events: Vec<&ListenerEvent> = r.events.iter().flat_map(|a| &a.events).collect();
    let end = events
        .iter()
        .position(|e| matches!(e, ListenerEvent::ApplicationEnd { .. }))
        .expect("an ApplicationEnd");
    let ListenerEvent::ApplicationEnd { exit_code, .. } = events[end] else {
        unreachable!()
    };
    assert_eq!(*exit_code, 0);
    let last_killed = events
        .iter()
        .rposition(|e| {
            matches!(
                e,
                ListenerEvent::TaskEnd {
                    reason: TaskEndReason::TaskKilled { .. },
                    ..
                }
            )
        })
        .expect("a killed task");
    assert!(
        last_killed < end,
        "TaskEnd at {last_killed}, ApplicationEnd at {end}"
    );
}

/// `yarn application -kill` (Hadoop 3.4 ClientRMService.forceKillApplication, RMAppImpl's
/// KillAttemptTransition and AppKilledTransition; TestRMAppTransitions testAppRunningKill) and
/// Spark 4.0.0's Client.run on a KILLED report (spark-yarn_2.13-4.0.0.jar: `Application %s is
/// killed`): the report ends KILLED / KILLED with the kill's message, and spark-submit throws.
#[test]
fn a_killed_application_ends_killed_and_spark_submit_throws() {
    use sparkyard_messages::records::{FinalApplicationStatus, YarnApplicationState};
    let r = run("application-killed");
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    let o = &r.outcome;
    assert_eq!(o.state, Some(YarnApplicationState::Killed));
    assert_eq!(o.final_status, Some(FinalApplicationStatus::Killed));
    assert!(
        o.diagnostics.starts_with(
            "Kill application application_1764662400000_0001 received from spark (auth:SIMPLE) at 10.0.0."
        ),
        "{}",
        o.diagnostics
    );
    let e = o.exception.as_ref().expect("the Client throws");
    assert_eq!(e.class, "org.apache.spark.SparkException");
    assert_eq!(
        e.message,
        "Application application_1764662400000_0001 is killed"
    );
    let killed = states(&r).iter().any(|s| {
        matches!(
            s,
            StateChange::AppState {
                state: YarnApplicationState::Killed,
                ..
            }
        )
    });
    assert!(killed, "the RMApp went KILLED");
    assert_eq!(r.counters.am_attempts, 1);
}

/// AMLivelinessMonitor (Hadoop 3.4 RMAppAttemptImpl.ExpiredTransition; TestRMAppAttempt
/// Transitions testRunningExpire): the AM cut off from the RM for longer than
/// yarn.am.liveness-monitor.expiry-interval-ms expires; the RM stops its container through its
/// NodeManager (KILLED_BY_APPMASTER, -105) and attempt 2 runs the application to success.
#[test]
fn an_am_silent_past_the_liveness_interval_expires_and_attempt_two_runs() {
    let r = run("am-liveness-expired");
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    assert_eq!(r.counters.am_attempts, 2);
    assert_eq!(common_exit_codes(&r), [-105, 0]);
    assert!(
        states(&r).iter().any(|s| am_registered(s, 2)),
        "attempt 2 registers"
    );
    assert_eq!(r.outcome.exception, None);
    // ContainerManagerImpl.stopContainerInternal (Hadoop 3.4) logs the stop and audits it
    // (NMAuditLogger STOP_CONTAINER, target "ContainerManageImpl") with the caller's address:
    // the AMLauncher's, so the RM's.
    let (_, am1) = first_state(&r, |s| match s {
        StateChange::ContainerCompleted {
            container,
            exit_status: -105,
        } => Some(*container),
        _ => None,
    })
    .expect("the stopped AM container");
    let app = am1.attempt.application_id;
    let rm_ip = addresses::other_host_ip("rm-1.sparkyard.internal");
    for line in [
        format!("Stopping container with container Id: {am1}"),
        format!(
            "USER=spark\tIP={rm_ip}\tOPERATION=Stop Container Request\tTARGET=ContainerManageImpl\tRESULT=SUCCESS\tAPPID={app}\tCONTAINERID={am1}"
        ),
    ] {
        assert!(logged(&r, &line), "no line ending with `{line}`");
    }
}

/// LAUNCH_FAILED (Hadoop 3.4 AMLauncher.onAMLaunchFailed, RMAppAttemptImpl
/// .LaunchFailedTransition; TestRMAppAttemptTransitions testAllocatedToFailed): the AMLauncher's
/// startContainers never answered, so attempt 1 fails without its AM ever running (exit status
/// -1000, which counts) and attempt 2 runs the application.
#[test]
fn an_am_container_that_never_launches_fails_its_attempt_and_attempt_two_runs() {
    let r = run("am-launch-failed");
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    assert_eq!(r.counters.am_attempts, 2);
    assert_eq!(common_exit_codes(&r), [-1000, 0]);
    let registered = states(&r);
    assert!(!registered.iter().any(|s| am_registered(s, 1)));
    assert!(registered.iter().any(|s| am_registered(s, 2)));
    assert_eq!(r.outcome.exception, None);
}

/// YARN completes a released container at the release (`AbstractYarnScheduler
/// .releaseContainers` -> `completedContainer(.., SchedulerUtils.RELEASED_CONTAINER, RELEASED)`)
/// and the AM hears of it in its next allocate (`RMAppAttemptImpl.justFinishedContainers`), not
/// from the NodeManager's report of the kill. In dynamic-allocation's idle removals the
/// YarnAllocator processes each released container's completion once, with ABORTED (-100),
/// and some before their NodeManager saw them end (before, always after: the NM's report was
/// the source). Spark's YarnAllocator.processCompletedContainers keeps that reason for the
/// driver's later GetExecutorLossReason (`releasedExecutorLossReasons`: "the result will be
/// returned in one AM-RM communication").
#[test]
fn a_released_container_completes_at_the_allocate_after_its_release() {
    let r = run("dynamic-allocation");
    let mut at_am = std::collections::BTreeMap::new();
    let mut at_nm = std::collections::BTreeMap::new();
    for e in &r.trace {
        match &e.kind {
            TraceKind::State(StateChange::ReleasedContainerCompleted {
                container,
                exit_status,
            }) => {
                assert_eq!(*exit_status, -100, "{container}");
                let again = at_am.insert(*container, e.time_ms);
                assert!(again.is_none(), "{container} completed twice at the AM");
            }
            TraceKind::State(StateChange::ContainerCompleted { container, .. }) => {
                at_nm.insert(*container, e.time_ms);
            }
            _ => {}
        }
    }
    assert_eq!(at_am.len(), 5, "the five idle removals: {at_am:?}");
    let before_nm = at_am
        .iter()
        .filter(|(c, t)| at_nm.get(*c).is_some_and(|n| *t < n))
        .count();
    assert!(before_nm > 0, "AM {at_am:?}, NM {at_nm:?}");
}

/// One 8 GB NodeManager and a `default` queue of 50 % at its maximum (4 GB: an AM and one
/// executor of 2 GB each), whose AMs may take all of it.
const A_FOUR_GB_QUEUE: &str = r#"[[cluster.nodes]]
host = "nm-1.sparkyard.internal"
memory_mb = 8192
vcores = 8

[[cluster.queues]]
name = "default"
capacity = 50
maximum-capacity = 50
maximum-am-resource-percent = 1.0

[[cluster.queues]]
name = "other"
capacity = 50

[submit]"#;

/// The first time the trace has a state change `pick` accepts, with what it picked.
fn first_state<T>(r: &RunResult, pick: impl Fn(&StateChange) -> Option<T>) -> Option<(u64, T)> {
    r.trace.iter().find_map(|e| match &e.kind {
        TraceKind::State(s) => pick(s).map(|t| (e.time_ms, t)),
        _ => None,
    })
}

/// YARN completes an ended attempt's containers at once: `RMAppAttemptImpl.BaseFinalTransition`
/// sends `AppAttemptRemovedSchedulerEvent` and `CapacityScheduler.doneApplicationAttempt`
/// (Hadoop 3.4, CapacityScheduler.java) completes every live container of the attempt
/// (`completedContainer(.., SchedulerUtils.COMPLETED_APPLICATION, KILL)`): its queue's room
/// at once, its node's once the NM reports a running one gone (`SchedulerNode
/// .releaseContainer`); the NM's later report finds no RMContainer (AbstractYarnScheduler
/// .completedContainer). am-liveness-expired in a 4 GB queue: attempt 1's first executor ends
/// with the job and the RM gives the partitioned AM its second one, which it never pulls, so at
/// the expiry the queue is full with a running AM and a container no NM has. Attempt 2's AM
/// container starts at the expiry, before attempt 1's AM has even ended on its NM, and attempt 2
/// gets an executor and finishes the application. Before, the queue's room came back only with
/// the NMs' reports, and the container no NM had kept its room for ever: attempt 2 never got an
/// executor and the application never ended.
#[test]
fn an_expired_attempts_room_takes_the_next_am_before_the_nm_reports_its_end() {
    let run = run_variant_of("am-liveness-expired", &[("[submit]", A_FOUR_GB_QUEUE)]);
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let r = &run.result;
    let container = |attempt: u32, id: u64| {
        move |c: &ContainerId| c.attempt.attempt_id == attempt && c.id == id
    };
    let (am2_at, _) = first_state(r, |s| match s {
        StateChange::ContainerLocalizing { container: c, .. } => container(2, 1)(c).then_some(()),
        _ => None,
    })
    .expect("attempt 2's AM container starts");
    let (am1_end, status) = first_state(r, |s| match s {
        StateChange::ContainerCompleted {
            container: c,
            exit_status,
        } if container(1, 1)(c) => Some(*exit_status),
        _ => None,
    })
    .expect("attempt 1's AM container ends on its NM");
    assert_eq!(
        status, -105,
        "the AMLauncher's stopContainers: KILLED_BY_APPMASTER"
    );
    assert!(
        am2_at < am1_end,
        "attempt 2's AM at {am2_at}, attempt 1's end {am1_end}"
    );
    let never_started = first_state(r, |s| match s {
        StateChange::ContainerLocalizing { container: c, .. } => container(1, 3)(c).then_some(()),
        _ => None,
    });
    assert_eq!(
        never_started, None,
        "attempt 1's second executor reached no NM"
    );
    let st = states(r);
    let second = st
        .iter()
        .position(|s| am_registered(s, 2))
        .expect("attempt 2");
    assert!(st[second..].iter().any(|s| executor_registered(s, 1)));
}

/// Whether some process logged a line ending with `text` (after its stamp, level and logger).
fn logged(r: &RunResult, text: &str) -> bool {
    r.logs
        .outputs()
        .values()
        .any(|o| o.stderr.lines().any(|l| l.ends_with(text)))
}

/// The default cluster's nodes with a 6 s download of an application's resources per node
/// (`[cluster.costs] localization_ms`), put before a scenario's `[expect]`.
const SLOW_LOCALIZATION: &str = r#"[cluster.costs]
localization_ms = 6000

[[cluster.nodes]]
host = "nm-{n}.sparkyard.internal"
count = 4
first = 1
rack = "/rack-1"
memory_mb = 65536
vcores = 16

[[cluster.nodes]]
host = "nm-{n}.sparkyard.internal"
count = 4
first = 5
rack = "/rack-2"
memory_mb = 65536
vcores = 16

[expect]"#;

/// A container killed before it ran: am-killed-retry with a 6 s download and the AM SIGKILLed
/// at 10 s, while its first executor's container still waits for the application's resources
/// on its node. The NM kills it on the heartbeat's containersToCleanup as
/// KILLED_BY_RESOURCEMANAGER (-106) without a process: Hadoop 3.4 ContainerImpl LOCALIZING ->
/// KILLING (KillBeforeRunningTransition: the kill's status, "Container is killed before being
/// launched.", unit-tested in node_manager), never SCHEDULED -> RUNNING. Its start request came
/// from the AM, so NMAuditLogger's IP is the AM's node's (Server.getRemoteIp()).
#[test]
fn a_container_killed_while_localizing_never_runs() {
    let run = run_variant_of(
        "am-killed-retry",
        &[
            ("on_tasks_finished = 4", "at_ms = 10000"),
            ("[expect]", SLOW_LOCALIZATION),
        ],
    );
    let r = &run.result;
    let localizing = |executor: bool| {
        first_state(r, move |s| match s {
            StateChange::ContainerLocalizing {
                container,
                host,
                executor: e,
                ..
            } if container.attempt.attempt_id == 1 && e.is_some() == executor => {
                Some((*container, host.clone()))
            }
            _ => None,
        })
        .map(|(_, found)| found)
    };
    let (_, am_host) = localizing(false).expect("attempt 1's AM container");
    let (cid, _) = localizing(true).expect("attempt 1's first executor container");
    let status = first_state(r, |s| match s {
        StateChange::ContainerCompleted {
            container,
            exit_status,
        } if *container == cid => Some(*exit_status),
        _ => None,
    });
    assert_eq!(
        status.map(|(_, s)| s),
        Some(-106),
        "KILLED_BY_RESOURCEMANAGER"
    );
    let running = format!("Container {cid} transitioned from SCHEDULED to RUNNING");
    assert!(!logged(r, &running), "{cid} ran");
    // The default cluster's nm-<n> is its (n - 1)-th node.
    let n: usize = am_host
        .strip_prefix("nm-")
        .and_then(|rest| rest.split('.').next())
        .and_then(|n| n.parse().ok())
        .expect("an nm-<n> host");
    let ip = addresses::node_ip(n - 1);
    let app = cid.attempt.application_id;
    let audit = format!(
        "USER=spark\tIP={ip}\tOPERATION=Start Container Request\tTARGET=ContainerManageImpl\tRESULT=SUCCESS\tAPPID={app}\tCONTAINERID={cid}"
    );
    assert!(logged(r, &audit), "no line ending with `{audit}`");
}

/// An attempt that ends while its executors are still starting: am-killed-retry with the AM
/// SIGKILLed at 4 s, when the AM has pulled its first executor's container (its NM is starting
/// the JVM) and not yet its second. `CapacityScheduler.doneApplicationAttempt` KILLs both
/// (Hadoop 3.4 RMContainerImpl: ACQUIRED -> KILLED by KillTransition, which puts it in its
/// node's containersToClean; ALLOCATED -> KILLED by FinishedTransition, which tells no NM);
/// RMContainerImpl.handle logs `<id> Container Transitioned from <old> to <new>`. The NM kills
/// the first on the heartbeat's containersToCleanup as KILLED_BY_RESOURCEMANAGER
/// (ContainerManagerImpl FINISH_CONTAINERS), and ContainerImpl goes RUNNING -> KILLING ->
/// CONTAINER_CLEANEDUP_AFTER_KILL. Attempt 2 then finishes the application.
#[test]
fn an_ended_attempts_starting_executor_is_killed_by_the_resourcemanager() {
    let run = run_variant_of(
        "am-killed-retry",
        &[("on_tasks_finished = 4", "at_ms = 4000")],
    );
    let r = &run.result;
    let c = |id: u64| {
        let am = r.counters.driver_containers[0].as_str();
        let prefix = am.strip_suffix("000001").expect("an AM container id");
        format!("{prefix}{id:06}")
    };
    let (starting, unpulled) = (c(2), c(3));
    let status = first_state(r, |s| match s {
        StateChange::ContainerCompleted {
            container,
            exit_status,
        } if container.to_string() == starting => Some(*exit_status),
        _ => None,
    });
    assert_eq!(
        status.map(|(_, s)| s),
        Some(-106),
        "KILLED_BY_RESOURCEMANAGER"
    );
    for line in [
        format!("{starting} Container Transitioned from ACQUIRED to KILLED"),
        format!("{unpulled} Container Transitioned from ALLOCATED to KILLED"),
        format!("Container {starting} transitioned from RUNNING to KILLING"),
        format!("Container {starting} transitioned from KILLING to CONTAINER_CLEANEDUP_AFTER_KILL"),
    ] {
        assert!(logged(r, &line), "no line ending with `{line}`");
    }
    let reached_a_nm = first_state(r, |s| match s {
        StateChange::ContainerLocalizing { container, .. } => {
            (container.to_string() == unpulled).then_some(())
        }
        _ => None,
    });
    assert_eq!(reached_a_nm, None, "the unpulled container reached no NM");
    assert_eq!(r.counters.am_attempts, 2);
}
