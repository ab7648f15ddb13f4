//! The replay benchmark (issue 16): `cargo bench --bench replay` generates Spark event logs
//! (zstd-compressed, as Spark 4 writes them, with a TaskStart and a TaskEnd line per task) and
//! measures, each in a fresh child process so its peak RSS is its own:
//! - (a) a 1,000,000-task log (two stages of 500,000 tasks, a shuffle between them, 100
//!   executors of one core) read and replayed: parse time, replay time, peak RSS;
//! - (b) `what-if` on a 10,000-task log: 12 configurations (num-executors 2,4,8,16 x
//!   executor-cores 1,2,4) x 100 seeds with `--jobs 2`, wall time.
//!
//! Flags (after `--`): `--quick` runs 10 % sizes; `--json` prints the figures as one JSON object;
//! `--keep` keeps the generated logs (for a profiler: `replay --child replay LOG` reads and
//! replays one).

// A benchmark measures wall time: the determinism bans (virtual clock only) do not apply.
#![allow(clippy::disallowed_methods)]

#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use sparkyard::replay::simulate::{self, ReplaySetup};
use sparkyard::replay::whatif::{self, WhatIf};
use sparkyard::replay::{model, reader};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// `/proc/self/status` `VmHWM`, bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Writes a synthetic application's log: one job of a map stage and a result stage of
/// `tasks / 2` tasks each on `executors` one-core executors, task durations 1-20 ms.
fn generate(path: &Path, tasks: u64, executors: u32) {
    let file = std::fs::File::create(path).expect("create the log");
    let mut z = zstd::stream::write::Encoder::new(file, 3).expect("zstd");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut z);
    let t0: u64 = 1_764_662_400_000;
    let line = |w: &mut std::io::BufWriter<_>, s: String| {
        w.write_all(s.as_bytes()).expect("write");
        w.write_all(b"\n").expect("write");
    };
    line(
        &mut w,
        r#"{"Event":"SparkListenerLogStart","Spark Version":"4.0.0"}"#.into(),
    );
    line(
        &mut w,
        format!(
            r#"{{"Event":"SparkListenerEnvironmentUpdate","JVM Information":{{}},"Spark Properties":{{"spark.master":"yarn","spark.executor.instances":"{executors}","spark.executor.cores":"1","spark.executor.memory":"1g"}},"Hadoop Properties":{{}},"System Properties":{{}},"Metrics Properties":{{}},"Classpath Entries":{{}}}}"#
        ),
    );
    line(
        &mut w,
        format!(
            r#"{{"Event":"SparkListenerApplicationStart","App Name":"bench","App ID":"application_1_0001","Timestamp":{t0},"User":"spark","App Attempt ID":"1"}}"#
        ),
    );
    for e in 1..=executors {
        line(
            &mut w,
            format!(
                r#"{{"Event":"SparkListenerExecutorAdded","Timestamp":{},"Executor ID":"{e}","Executor Info":{{"Host":"nm-{e}","Total Cores":1,"Log Urls":{{}},"Attributes":{{}},"Resources":{{}},"Resource Profile Id":0}}}}"#,
                t0 + 4000
            ),
        );
    }
    let half = tasks / 2;
    let stage = |id: u32, parents: &str| {
        format!(
            r#"{{"Stage ID":{id},"Stage Attempt ID":0,"Stage Name":"stage {id} at bench.py:1","Number of Tasks":{half},"RDD Info":[],"Parent IDs":[{parents}],"Details":"","Accumulables":[],"Resource Profile Id":0}}"#
        )
    };
    let start = t0 + 5000;
    line(
        &mut w,
        format!(
            r#"{{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":{start},"Stage Infos":[{},{}],"Stage IDs":[0,1],"Properties":{{}}}}"#,
            stage(0, ""),
            stage(1, "0")
        ),
    );
    let mut clock = start;
    let mut tid = 0u64;
    for (sid, ty) in [(0u32, "ShuffleMapTask"), (1, "ResultTask")] {
        line(
            &mut w,
            format!(
                r#"{{"Event":"SparkListenerStageSubmitted","Stage Info":{},"Properties":{{}}}}"#,
                stage(sid, if sid == 1 { "0" } else { "" })
            ),
        );
        let mut free = vec![clock; executors as usize];
        for i in 0..half {
            let e = (i % executors as u64) as usize;
            let d = 1 + (i * 7919 + sid as u64 * 31) % 20;
            let (launch, finish) = (free[e], free[e] + d);
            free[e] = finish;
            line(
                &mut w,
                format!(
                    r#"{{"Event":"SparkListenerTaskStart","Stage ID":{sid},"Stage Attempt ID":0,"Task Info":{{"Task ID":{tid},"Index":{i},"Attempt":0,"Partition ID":{i},"Launch Time":{launch},"Executor ID":"{}","Host":"nm-{}","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false,"Accumulables":[]}}}}"#,
                    e + 1,
                    e + 1
                ),
            );
            line(
                &mut w,
                format!(
                    r#"{{"Event":"SparkListenerTaskEnd","Stage ID":{sid},"Stage Attempt ID":0,"Task Type":"{ty}","Task End Reason":{{"Reason":"Success"}},"Task Info":{{"Task ID":{tid},"Index":{i},"Attempt":0,"Partition ID":{i},"Launch Time":{launch},"Executor ID":"{}","Host":"nm-{}","Locality":"PROCESS_LOCAL","Speculative":false,"Getting Result Time":0,"Finish Time":{finish},"Failed":false,"Killed":false,"Accumulables":[]}},"Task Executor Metrics":{{}},"Task Metrics":{{"Executor Deserialize Time":1,"Executor Deserialize CPU Time":100000,"Executor Run Time":{},"Executor CPU Time":100000,"Peak Execution Memory":0,"Result Size":1000,"JVM GC Time":0,"Result Serialization Time":0,"Memory Bytes Spilled":0,"Disk Bytes Spilled":0,"Shuffle Read Metrics":{{"Remote Blocks Fetched":0,"Local Blocks Fetched":1,"Fetch Wait Time":0,"Remote Bytes Read":0,"Local Bytes Read":{},"Total Records Read":10}},"Shuffle Write Metrics":{{"Shuffle Bytes Written":{},"Shuffle Write Time":1000,"Shuffle Records Written":10}},"Input Metrics":{{"Bytes Read":0,"Records Read":0}},"Output Metrics":{{"Bytes Written":0,"Records Written":0}},"Updated Blocks":[]}}}}"#,
                    e + 1,
                    e + 1,
                    d - 1,
                    if sid == 1 { 100 } else { 0 },
                    if sid == 0 { 100 } else { 0 }
                ),
            );
            tid += 1;
        }
        clock = free.iter().copied().max().unwrap_or(clock);
        line(
            &mut w,
            format!(
                r#"{{"Event":"SparkListenerStageCompleted","Stage Info":{}}}"#,
                stage(sid, if sid == 1 { "0" } else { "" })
            ),
        );
    }
    line(
        &mut w,
        format!(
            r#"{{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":{clock},"Job Result":{{"Result":"JobSucceeded"}}}}"#
        ),
    );
    line(
        &mut w,
        format!(
            r#"{{"Event":"SparkListenerApplicationEnd","Timestamp":{}}}"#,
            clock + 200
        ),
    );
    w.flush().expect("flush");
    drop(w);
    z.finish().expect("zstd end");
}

fn setup(words: &[&str]) -> ReplaySetup {
    ReplaySetup {
        // As `sparkyard replay` parses them: no words is the log's own configuration (for
        // spark-submit's grammar alone it would be the usage).
        submit: simulate::user_submit_args(words).expect("options"),
        scenario: None,
    }
}

/// (a) in this process: parse, replay, peak RSS.
fn child_replay(log: &Path) {
    let t = Instant::now();
    let files = reader::locate(log).expect("locate");
    let app = model::read(&files).expect("read");
    let parse = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let prepared = simulate::prepare(&app, &setup(&[])).expect("prepare");
    let sim = simulate::run(&prepared, 42).expect("run");
    let replay = t.elapsed().as_secs_f64();
    assert_eq!(sim.final_state, "FINISHED/SUCCEEDED");
    println!(
        "RESULT {} {parse:.3} {replay:.3} {} {}",
        app.task_count(),
        peak_rss(),
        sim.app_ms
    );
}

/// (b) in this process: the 12 x seeds grid on 2 threads.
fn child_whatif(log: &Path, seeds: u64) {
    let t = Instant::now();
    let w = WhatIf {
        grid: whatif::parse_grid(&[
            "num-executors=2,4,8,16".into(),
            "executor-cores=1,2,4".into(),
        ])
        .expect("grid"),
        seeds: 1..seeds + 1,
        jobs: 2,
        target_p90_ms: None,
        price_core_hour: 0.0,
        price_gb_hour: 0.0,
    };
    let table = whatif::run(log, &setup(&[]), &w).expect("what-if");
    let wall = t.elapsed().as_secs_f64();
    assert_eq!(table.rows.len(), 12);
    println!(
        "RESULT {} {wall:.3} {}",
        table.rows.len() as u64 * seeds,
        peak_rss()
    );
}

fn spawn(args: &[&str]) -> Vec<String> {
    let exe = std::env::current_exe().expect("exe");
    let out = Command::new(exe).args(args).output().expect("child");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .expect("a RESULT line")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let (kind, log) = (&args[i + 1], PathBuf::from(&args[i + 2]));
        match kind.as_str() {
            "replay" => child_replay(&log),
            _ => child_whatif(&log, args[i + 3].parse().expect("seeds")),
        }
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let json = args.iter().any(|a| a == "--json");
    let keep = args.iter().any(|a| a == "--keep");
    let scale = if quick { 10 } else { 1 };
    let dir = std::env::temp_dir().join(format!("sparkyard-replay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let big = dir.join("big.zstd");
    let small = dir.join("small.zstd");
    let t = Instant::now();
    generate(&big, 1_000_000 / scale, 100);
    generate(&small, 10_000 / scale, 8);
    let gen_s = t.elapsed().as_secs_f64();
    let size = std::fs::metadata(&big).map_or(0, |m| m.len());
    let a = spawn(&["--child", "replay", big.to_str().expect("utf-8")]);
    let seeds = (100 / scale as u64).max(1).to_string();
    let b = spawn(&["--child", "whatif", small.to_str().expect("utf-8"), &seeds]);
    let f = |s: &str| s.parse::<f64>().unwrap_or(0.0);
    let (parse, replay, rss) = (f(&a[1]), f(&a[2]), f(&a[3]));
    let (runs, grid) = (f(&b[0]), f(&b[1]));
    println!(
        "generated the logs in {gen_s:.1} s ({} tasks: {:.1} MB zstd)",
        a[0],
        size as f64 / 1e6
    );
    println!(
        "(a) {} tasks: parse {parse:.3} s + replay {replay:.3} s = {:.3} s (target <= 5 s); peak RSS {:.0} MB (target < 2048); simulated app {} ms",
        a[0],
        parse + replay,
        rss / 1048576.0,
        a[4]
    );
    println!(
        "(b) what-if 12 configs x {seeds} seeds ({runs} runs) on 10k/{scale} tasks, --jobs 2: {grid:.3} s (target <= 30 s)"
    );
    if json {
        println!(
            "{{\"tasks\": {}, \"parse_s\": {parse:.3}, \"replay_s\": {replay:.3}, \"peak_rss_mb\": {:.0}, \"whatif_runs\": {runs}, \"whatif_s\": {grid:.3}}}",
            a[0],
            rss / 1048576.0
        );
    }
    if keep {
        println!("logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
