//! What a user sees after a run: the JVM's closing exception as spark-submit prints it, the
//! spark-submit shutdown lines, the container logs written in YARN's layout, and a short
//! summary with the driver's stdout and the command that reproduces the run.

use crate::runner::RunResult;
use sparkyard_actors::kernel::clock;
use sparkyard_actors::kernel::logs::{Level, format_line};
use sparkyard_messages::records::RpcFailure;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// The stack spark-submit prints under `Exception in thread "main"` for a failed application.
const CLIENT_STACK: &[&str] = &[
    "org.apache.spark.deploy.yarn.Client.run(Client.scala:1309)",
    "org.apache.spark.deploy.yarn.YarnClusterApplication.start(Client.scala:1742)",
    "org.apache.spark.deploy.SparkSubmit.org$apache$spark$deploy$SparkSubmit$$runMain(SparkSubmit.scala:1029)",
    "org.apache.spark.deploy.SparkSubmit.doRunMain$1(SparkSubmit.scala:194)",
    "org.apache.spark.deploy.SparkSubmit.submit(SparkSubmit.scala:217)",
    "org.apache.spark.deploy.SparkSubmit.doSubmit(SparkSubmit.scala:91)",
    "org.apache.spark.deploy.SparkSubmit$$anon$2.doSubmit(SparkSubmit.scala:1120)",
    "org.apache.spark.deploy.SparkSubmit$.main(SparkSubmit.scala:1129)",
    "org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)",
];

/// spark-submit's stderr after the Client returns: the exception (if any), then the shutdown hook.
pub fn closing_stderr(result: &RunResult, quiet: bool) -> String {
    let mut out = String::new();
    if let Some(RpcFailure { class, message }) = &result.outcome.exception {
        let _ = writeln!(out, "Exception in thread \"main\" {class}: {message}");
        if result.outcome.application_id.is_some() {
            for frame in CLIENT_STACK {
                let _ = writeln!(out, "\tat {frame}");
            }
        }
    }
    if !quiet {
        let now = result.epoch_ms + result.end_ms;
        out.push_str(&format_line(
            now,
            Level::Info,
            "ShutdownHookManager",
            format_args!("Shutdown hook called"),
        ));
        out.push_str(&format_line(
            now,
            Level::Info,
            "ShutdownHookManager",
            format_args!("Deleting directory {}", result.outcome.temp_dir),
        ));
    }
    out
}

/// Writes each container's files under `<dir>/<host>/userlogs/<appId>/<containerId>/` (a
/// NodeManager's `yarn.nodemanager.log-dirs` layout) and the daemons' logs under `<dir>/daemons/`.
/// Returns the application's log directory.
pub fn write_logs(result: &RunResult, dir: &Path) -> io::Result<Option<PathBuf>> {
    let Some(app) = result.outcome.application_id else {
        return Ok(None);
    };
    let app = app.to_string();
    let mut written = false;
    for (key, out) in result.logs.outputs() {
        if let Some(host) = &out.host {
            let cdir = dir.join(host).join("userlogs").join(&app).join(key);
            if cdir.exists() {
                std::fs::remove_dir_all(&cdir)?;
            }
            std::fs::create_dir_all(&cdir)?;
            std::fs::write(cdir.join("stdout"), &out.stdout)?;
            std::fs::write(cdir.join("stderr"), &out.stderr)?;
            // The NodeManager wrote the script (hadoop_yarn::node_manager).
            let script = out.launch_command.as_deref().unwrap_or_default();
            std::fs::write(cdir.join("launch_container.sh"), script)?;
            written = true;
        } else {
            let ddir = dir.join("daemons");
            std::fs::create_dir_all(&ddir)?;
            std::fs::write(ddir.join(format!("{key}.log")), &out.stderr)?;
        }
    }
    Ok(written.then(|| dir.to_path_buf()))
}

/// The summary printed on stdout at the end of a run.
pub fn summary(result: &RunResult, log_dir: Option<&Path>, reproduce: &str) -> String {
    let o = &result.outcome;
    let c = &result.counters;
    let mut s = String::new();
    let t = clock::format_yarn(result.epoch_ms + result.end_ms);
    match (o.application_id, o.state, o.final_status) {
        (Some(app), Some(state), Some(fs)) => {
            let _ = writeln!(
                s,
                "sparkyard: {app} ended {state} / {fs} after {:.3} s of virtual time (at {t})",
                result.end_ms as f64 / 1000.0
            );
        }
        (Some(app), _, _) => {
            let _ = writeln!(s, "sparkyard: {app} did not complete (at {t})");
        }
        _ => {
            let _ = writeln!(s, "sparkyard: nothing was submitted (at {t})");
        }
    }
    for cid in &c.driver_containers {
        let stdout = result
            .logs
            .output(cid)
            .map(|o| o.stdout.as_str())
            .unwrap_or("");
        let _ = writeln!(s, "driver stdout ({cid}):");
        if stdout.is_empty() {
            let _ = writeln!(s, "  (empty)");
        }
        for line in stdout.lines() {
            let _ = writeln!(s, "  {line}");
        }
    }
    if !o.diagnostics.is_empty() && o.exception.is_some() {
        let first = o.diagnostics.lines().next().unwrap_or("");
        let _ = writeln!(s, "diagnostics: {first}");
    }
    let _ = writeln!(
        s,
        "executors: {} launched, {} registered, {} lost, {} failures counted; AM attempts: {} (exit codes {:?}); tasks: {} launched, {} finished, {} failed",
        c.executors_launched,
        c.executors_registered,
        c.executors_lost.len(),
        c.executor_failures_counted,
        c.am_attempts,
        c.am_exit_codes.values().collect::<Vec<_>>(),
        c.tasks_launched,
        c.tasks_finished,
        c.tasks_failed
    );
    for lost in &c.executors_lost {
        let _ = writeln!(
            s,
            "  lost executor {} (attempt {}) exit status {}: {}",
            lost.executor, lost.attempt, lost.exit_status, lost.reason
        );
    }
    if let Some(dir) = log_dir {
        let _ = writeln!(
            s,
            "container logs: {}/<host>/userlogs/{}/",
            dir.display(),
            o.application_id.map(|a| a.to_string()).unwrap_or_default()
        );
    }
    let _ = writeln!(s, "trace fingerprint: {:016x}", result.fingerprint);
    let _ = writeln!(s, "reproduce: {reproduce}");
    s
}

/// The recovery summary of a fault scenario: which faults fired, and what recovered.
pub fn recovery(result: &RunResult) -> String {
    let mut s = String::new();
    for (ms, label) in &result.faults_fired {
        let _ = writeln!(s, "fault at {:.3} s: {label}", *ms as f64 / 1000.0);
    }
    for label in &result.faults_unfired {
        let _ = writeln!(s, "fault never fired: {label}");
    }
    let c = &result.counters;
    let replaced = c
        .executors_launched
        .saturating_sub(c.executors_registered.min(c.executors_launched));
    let _ = writeln!(
        s,
        "recovery: {} executor(s) lost, {} launched in all, {} failure(s) counted toward spark.executor.maxNumFailures, {} failed task attempt(s) retried or aborted, {} AM attempt(s){}",
        c.executors_lost.len(),
        c.executors_launched,
        c.executor_failures_counted,
        c.tasks_failed,
        c.am_attempts,
        if replaced > 0 {
            format!(", {replaced} launched executor(s) never registered")
        } else {
            String::new()
        }
    );
    s
}
