//! What a user sees after a run: the JVM's closing exception as spark-submit prints it, the
//! spark-submit shutdown lines, the container logs written in YARN's layout, and a short
//! summary with the driver's stdout and the command that reproduces the run.

use crate::record::RunResult;
use sparkyard_actors::simulation::clock;
use sparkyard_actors::simulation::logs::{Level, LogStore, format_line};
use sparkyard_actors::simulation::observer::{LossDeclaredBy, RemovalCause};
use sparkyard_messages::ids::ContainerId;
use std::collections::BTreeSet;
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
    if let Some(exception) = &result.outcome.exception {
        let _ = writeln!(out, "Exception in thread \"main\" {exception}");
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

/// Removes what an earlier run with the same application id left under
/// `<dir>/<host>/userlogs/<appId>/` (every host), so a rerun never mixes its containers with
/// older ones; returns the directories it replaced, for the console notice. (Application ids
/// repeat because the cluster timestamp is the cluster file's `start_time_ms`.) A container
/// directory this run writes again is kept for [`write_logs`] to overwrite: removing and
/// recreating a hundred directories cost more than the whole run on a busy disk.
pub fn clear_previous_logs(result: &RunResult, dir: &Path) -> io::Result<Vec<PathBuf>> {
    let Some(app) = result.outcome.application_id else {
        return Ok(Vec::new());
    };
    let app = app.to_string();
    clear_previous(&result.logs, dir, std::slice::from_ref(&app), |_| {
        Some(app.clone())
    })
}

/// [`clear_previous_logs`] for a run of many applications (`run` of a scenario's
/// `[[workload.applications]]`): each of `apps` (application ids), each container under the
/// application its id names.
pub fn clear_previous_cluster_logs(
    logs: &LogStore,
    dir: &Path,
    apps: &[String],
) -> io::Result<Vec<PathBuf>> {
    clear_previous(logs, dir, apps, container_application)
}

/// The application id a container's id names (`container_<ts>_<app>_..` of
/// `application_<ts>_<app>`); `None` for a key that is not a container's.
fn container_application(key: &str) -> Option<String> {
    key.parse::<ContainerId>()
        .ok()
        .map(|c| c.attempt.application_id.to_string())
}

fn clear_previous(
    logs: &LogStore,
    dir: &Path,
    apps: &[String],
    app_of: impl Fn(&str) -> Option<String>,
) -> io::Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut hosts: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    hosts.sort();
    let rewritten: BTreeSet<PathBuf> = logs
        .outputs()
        .iter()
        .filter_map(|(key, out)| Some(container_dir(dir, out.host.as_deref()?, &app_of(key)?, key)))
        .collect();
    let mut removed = Vec::new();
    for host in hosts {
        for app in apps {
            let old = host.join("userlogs").join(app);
            if old.is_dir() {
                remove_all_but(&old, |p| rewritten.contains(p) && p.is_dir())?;
                if !rewritten.iter().any(|c| c.starts_with(&old)) {
                    std::fs::remove_dir(&old)?;
                }
                removed.push(old);
            }
        }
    }
    Ok(removed)
}

/// `<dir>/<host>/userlogs/<appId>/<containerId>/`: where a container's files go.
fn container_dir(dir: &Path, host: &str, app: &str, container: &str) -> PathBuf {
    dir.join(host).join("userlogs").join(app).join(container)
}

/// The files [`write_logs`] writes in a container's directory.
const CONTAINER_FILES: [&str; 3] = ["stdout", "stderr", "launch_container.sh"];

/// Removes every entry of `dir` (files and whole directories) but those `keep` names.
fn remove_all_but(dir: &Path, keep: impl Fn(&Path) -> bool) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if keep(&path) {
            continue;
        }
        if path.is_dir() {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// The console notice for [`clear_previous_logs`].
pub fn replaced_logs_notice(removed: &[PathBuf]) -> Option<String> {
    let first = removed.first()?;
    let more = match removed.len() - 1 {
        0 => String::new(),
        1 => " and 1 more host directory".to_string(),
        n => format!(" and {n} more host directories"),
    };
    Some(format!(
        "notice: {}{more} held container logs of an earlier run with the same application id; \
         they were replaced. Pass another --log-dir, or another [resourcemanager] start_time_ms \
         in the cluster file (YARN's cluster timestamp in the application id), to keep both runs.",
        first.display()
    ))
}

/// Writes each container's files under `<dir>/<host>/userlogs/<appId>/<containerId>/` (a
/// NodeManager's `yarn.nodemanager.log-dirs` layout) and the daemons' logs under `<dir>/daemons/`.
/// Returns the application's log directory.
pub fn write_logs(result: &RunResult, dir: &Path) -> io::Result<Option<PathBuf>> {
    let Some(app) = result.outcome.application_id else {
        return Ok(None);
    };
    let app = app.to_string();
    write_store(&result.logs, dir, |_| Some(app.clone()))
}

/// [`write_logs`] for a run of many applications: each container under the application its id
/// names (`<dir>/<host>/userlogs/<appId>/<containerId>/`, as each NodeManager lays them out),
/// the daemons' logs once. Returns `dir` when a container's files were written.
pub fn write_cluster_logs(logs: &LogStore, dir: &Path) -> io::Result<Option<PathBuf>> {
    write_store(logs, dir, container_application)
}

fn write_store(
    logs: &LogStore,
    dir: &Path,
    app_of: impl Fn(&str) -> Option<String>,
) -> io::Result<Option<PathBuf>> {
    let mut written = false;
    for (key, out) in logs.outputs() {
        if let Some(host) = &out.host {
            let Some(app) = app_of(key) else {
                continue;
            };
            let cdir = container_dir(dir, host, &app, key);
            if cdir.is_dir() {
                // An earlier run's directory: its files are overwritten, anything else goes.
                remove_all_but(&cdir, |p| {
                    p.file_name()
                        .is_some_and(|n| CONTAINER_FILES.iter().any(|f| n == *f))
                })?;
            } else {
                std::fs::create_dir_all(&cdir)?;
            }
            std::fs::write(cdir.join("stdout"), &out.stdout)?;
            std::fs::write(cdir.join("stderr"), &out.stderr)?;
            // The NodeManager wrote the script (hadoop_yarn::node_manager); what is left of
            // YARN's placeholders is expanded as ContainerLaunch.expandEnvironment does.
            let script = expand_launch(out.launch_command.as_deref().unwrap_or_default(), &cdir);
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

/// `head: first line of reason`, and where the rest of a long reason is.
fn reason_line(
    s: &mut String,
    head: &str,
    reason: &str,
    result: &RunResult,
    attempt: u32,
    log_dir: Option<&Path>,
) {
    let mut lines = reason.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.count();
    let _ = write!(s, "{head}: {first}");
    if more > 0 {
        let _ = write!(
            s,
            " [{more} more line(s): {}]",
            am_log(result, attempt, log_dir)
        );
    }
    s.push('\n');
}

/// The executors the driver removed on purpose, by cause (nothing when none was).
fn removed_counts(c: &sparkyard_actors::simulation::observer::RunCounters) -> String {
    [
        RemovalCause::Idle,
        RemovalCause::KilledByDriver,
        RemovalCause::Decommissioned,
    ]
    .iter()
    .filter_map(|cause| {
        let n = c.removed(*cause);
        (n > 0).then(|| format!(", {n} {}", cause.words()))
    })
    .collect()
}

/// Every launched task attempt, by how it ended: finished, failed, killed, or never ended (lost
/// with its executor or driver before Spark heard of its end, or still running when a hung run
/// was cut); the last two only when there are some.
fn task_counts(c: &sparkyard_actors::simulation::observer::RunCounters) -> String {
    let mut out = format!(
        "{} launched, {} finished, {} failed",
        c.tasks_launched, c.tasks_finished, c.tasks_failed
    );
    if c.tasks_killed > 0 {
        let _ = write!(out, ", {} killed", c.tasks_killed);
    }
    let lost = c.tasks_lost();
    if lost > 0 {
        let _ = write!(out, ", {lost} never ended");
    }
    out
}

/// The run was cut at its virtual deadline: the runner recorded the termination violation.
fn is_hang(result: &RunResult) -> bool {
    use sparkyard_actors::simulation::invariants::name::TERMINATES;
    result.violations.iter().any(|v| v.invariant == TERMINATES)
}

/// What a hung run was doing at its deadline, from the run's counters.
fn still_running(c: &sparkyard_actors::simulation::observer::RunCounters) -> String {
    let jobs = &c.driver_jobs;
    format!(
        "AM attempt {}, executors {} launched / {} registered / {} lost, job(s) {} started / {} succeeded, {} of {} task(s) finished ({} launched, {} failed)",
        c.am_attempts,
        c.executors_launched,
        c.executors_registered,
        c.executors_lost.len(),
        jobs.started,
        jobs.succeeded,
        c.tasks_finished,
        c.tasks_total,
        c.tasks_launched,
        c.tasks_failed
    )
}

/// What the NodeManager does to a launch context before writing `launch_container.sh` on Linux
/// (Hadoop's `ContainerLaunch.expandEnvironment`): `<LOG_DIR>` becomes the container's log
/// directory, `<CPS>` the path separator, and `{{VAR}}` the shell's `$VAR`.
fn expand_launch(script: &str, log_dir: &Path) -> String {
    script
        .replace("<LOG_DIR>", &log_dir.display().to_string())
        .replace("<CPS>", ":")
        .replace("{{", "$")
        .replace("}}", "")
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
        _ if is_hang(result) => {
            let app = o
                .application_id
                .map_or("the application".to_string(), |a| a.to_string());
            let _ = writeln!(
                s,
                "sparkyard: {app} did not end within {:.3} s of virtual time (at {t}); still running then: {}",
                result.end_ms as f64 / 1000.0,
                still_running(c)
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
    // What YARN links the ended application to (the RM UI's tracking link, `yarn application
    // -status`'s Tracking-URL): Spark's history server URL, or the RM's app page after a
    // failed attempt; nothing when YARN has none (`N/A`).
    if let Some(url) = o.original_tracking_url.as_deref().filter(|u| *u != "N/A") {
        let _ = writeln!(s, "tracking URL in YARN (yarn application -status): {url}");
    }
    if !o.diagnostics.is_empty() && o.exception.is_some() {
        let first = o.diagnostics.lines().next().unwrap_or("");
        let _ = writeln!(s, "diagnostics: {first}");
    }
    let _ = writeln!(
        s,
        "executors: {} launched, {} registered, {} lost{}, {} failures counted; AM attempts: {} (exit codes {:?}); tasks: {}",
        c.executors_launched,
        c.executors_registered,
        c.executors_lost.len(),
        removed_counts(c),
        c.executor_failures_counted,
        c.am_attempts,
        c.am_exit_codes.values().collect::<Vec<_>>(),
        task_counts(c)
    );
    for lost in &c.executors_lost {
        let how = match (lost.exit_status, lost.declared_by) {
            (Some(code), _) => format!("exit status {code}"),
            (None, LossDeclaredBy::Backend) => "removed by the driver".to_string(),
            (None, LossDeclaredBy::FetchFailure) => "declared lost by the DAGScheduler".to_string(),
        };
        let head = format!(
            "  lost executor {} (attempt {}) {how}",
            lost.executor, lost.attempt
        );
        reason_line(&mut s, &head, &lost.reason, result, lost.attempt, log_dir);
    }
    // Containers YARN ended that Spark never declared lost (they never registered, or the
    // application ended before the driver heard): the AM's record of them.
    for exit in c.executor_exits.iter().filter(|e| {
        !c.executors_lost
            .iter()
            .any(|l| (l.attempt, l.executor) == (e.attempt, e.executor))
    }) {
        let how = exit
            .exit_status
            .map_or("with no exit status".to_string(), |code| {
                format!("exit status {code}")
            });
        let removed = c
            .executors_removed
            .iter()
            .find(|r| (r.attempt, r.executor) == (exit.attempt, exit.executor))
            .map(|r| format!(" after it was {}", r.cause.words()))
            .unwrap_or_default();
        let head = format!(
            "  container of executor {} (attempt {}) ended{removed}, {how}",
            exit.executor, exit.attempt
        );
        reason_line(&mut s, &head, &exit.reason, result, exit.attempt, log_dir);
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

/// Where the full text of an executor's loss is: the AM's log of that attempt (its YarnAllocator
/// logs each completed container's diagnostics).
fn am_log(result: &RunResult, attempt: u32, log_dir: Option<&Path>) -> String {
    let c = &result.counters;
    let am = attempt
        .checked_sub(1)
        .and_then(|i| c.driver_containers.get(i as usize));
    let (Some(am), Some(app)) = (am, result.outcome.application_id) else {
        return "see the AM's log".into();
    };
    let host = result.logs.output(am).and_then(|o| o.host.clone());
    match (log_dir, host) {
        (Some(dir), Some(host)) => format!(
            "the AM's log {}/{host}/userlogs/{app}/{am}/stderr",
            dir.display()
        ),
        _ => format!("the AM's log of {am}"),
    }
}

/// Why fewer executors were launched than the application asked for, from what the run
/// recorded (never from its logs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unallocated {
    /// No ApplicationMaster ever ran (the submission failed, or YARN kept it ACCEPTED).
    NoApplicationMaster,
    /// The AMs ran but none created its YarnAllocator (each ended before registering with
    /// the RM, e.g. its SparkContext failed to start).
    NoAllocator,
    /// The ResourceManager refused the AM's executor asks with this exception.
    Refused(&'static str),
    /// Every AM attempt that asked ended by itself failing or being killed (its exit codes):
    /// the asks were cut short with it, whatever room YARN had.
    AmEnded,
    /// The asks stayed pending: YARN had no room (the cluster's or the queue's).
    NoRoom,
}

impl Unallocated {
    fn of(c: &sparkyard_actors::simulation::observer::RunCounters) -> Self {
        if let Some(class) = c.executor_asks_refused {
            Unallocated::Refused(class)
        } else if c.driver_containers.is_empty() {
            Unallocated::NoApplicationMaster
        } else if !c.executor_target_set {
            Unallocated::NoAllocator
        } else if !c.am_exit_codes.is_empty() && c.am_exit_codes.values().all(|code| *code != 0) {
            Unallocated::AmEnded
        } else {
            Unallocated::NoRoom
        }
    }

    fn text(self) -> String {
        match self {
            Unallocated::NoApplicationMaster => "no ApplicationMaster ever ran to ask for them".into(),
            Unallocated::NoAllocator => {
                "every AM attempt ended before creating its YarnAllocator (before registering with the ResourceManager), so YARN was never asked for them".into()
            }
            Unallocated::Refused(class) => format!(
                "the ResourceManager refused the AM's requests for them ({}, see the diagnostics)",
                class.rsplit('.').next().unwrap_or(class)
            ),
            Unallocated::AmEnded => "every AM attempt ended (killed or failed) while its requests for them were pending".into(),
            Unallocated::NoRoom => "YARN had no room for them while the application ran".into(),
        }
    }
}

/// A note when fewer executors were ever launched than the application asked for, with the
/// reason the run recorded ([`Unallocated`]), or `None`.
pub fn unallocated(
    result: &RunResult,
    spark: &sparkyard_actors::simulation::config::SparkSettings,
) -> Option<String> {
    unallocated_of(&result.counters, spark)
}

/// [`unallocated`] from an application's counters (one of a cluster run's applications).
pub fn unallocated_of(
    counters: &sparkyard_actors::simulation::observer::RunCounters,
    spark: &sparkyard_actors::simulation::config::SparkSettings,
) -> Option<String> {
    let requested = spark.initial_target_executors();
    let launched = counters.executors_launched;
    (launched < requested).then(|| {
        format!(
            "note: {} of the {requested} executors requested (spark.executor.instances) were never allocated: {} ({launched} launched)",
            requested - launched,
            Unallocated::of(counters).text()
        )
    })
}

/// Where a big SparkPi's wall time goes: its estimate comes from real darts (100,000 per slice,
/// at most 2^31 - 1: SparkPi.scala's `math.min(100000L * slices, Int.MaxValue)`; JavaSparkPi's
/// `100000 * slices` wraps as a Java `int`, one dart per element of its list), thrown by this
/// process whatever the simulated cluster; the cluster's virtual time charges `sparkpi_dart_ns`
/// per dart. `None` below 200 million darts (well under a second), and for an argument the
/// program refuses; a JavaSparkPi list of [`JAVA_LIST_NOTE_ELEMENTS`] or more has its own note.
pub fn sparkpi_note(class: &str, args: &[String]) -> Option<String> {
    use sparkyard_actors::simulation::facts::{java_spark_pi, spark_pi};
    let (name, darts) = match class {
        spark_pi::CLASS => (
            "SparkPi",
            spark_pi::total_darts(spark_pi::parse_slices(args).ok()?),
        ),
        java_spark_pi::CLASS => ("JavaSparkPi", java_spark_pi::total_darts(args).ok()?),
        _ => return None,
    };
    let list = (class == java_spark_pi::CLASS && darts >= JAVA_LIST_NOTE_ELEMENTS)
        .then(|| java_list_note(darts));
    if darts < 200_000_000 {
        return list;
    }
    let darts_note = format!(
        "note: {name} throws {darts} real darts for its estimate; that computation (roughly 5 ns a dart, ~{} s here) is most of this run's wall time, whatever the cluster. Fewer slices (the application's argument) make it shorter, or a cluster file with [costs] sparkpi_real_darts = false counts the expected hits instead; the virtual time is [costs] sparkpi_dart_ns per dart.",
        darts * 5 / 1_000_000_000
    );
    Some(match list {
        Some(l) => format!("{darts_note}\n{l}"),
        None => darts_note,
    })
}

/// From 10 million elements (100 slices) a JavaSparkPi list takes a good part of a default
/// (1g) driver's heap.
const JAVA_LIST_NOTE_ELEMENTS: u64 = 10_000_000;

/// JavaSparkPi.java's driver fills an `ArrayList<Integer>` with its `n` elements before its job,
/// and `JavaSparkContext.parallelize` (`asScala.toSeq`) and `ParallelCollectionRDD.slice`
/// (`toArray`) copy it. Measured on Spark 4.0.0 (pyspark's spark-submit, local-cluster, the
/// default 1g driver): 150 slices ran, 200 slices (20 million elements) ended the driver with
/// `java.lang.OutOfMemoryError: Java heap space` in `ParallelCollectionRDD.slice`'s `toArray`,
/// so the peak is some 55 to 70 bytes an element. sparkyard does not charge the driver's heap
/// for it: the note says so.
fn java_list_note(elements: u64) -> String {
    format!(
        "note: in Spark, JavaSparkPi's driver holds its {elements} list elements as boxed Integers, copied twice by parallelize (~{} MB of driver heap at the peak; Spark 4.0.0's default 1g driver ends with java.lang.OutOfMemoryError: Java heap space from 200 slices on). sparkyard does not charge the driver's heap for the list: this run completes where Spark's driver may not.",
        elements * 55 / 1_000_000
    )
}

/// The recovery summary of a fault scenario: which faults fired (with a note where the bare
/// time would mislead), and what recovered.
pub fn recovery(result: &RunResult, fired: &[crate::scenario::FiredFault]) -> String {
    let mut s = String::new();
    for f in fired {
        let _ = write!(s, "fault at {:.3} s: {}", f.at_ms as f64 / 1000.0, f.label);
        match &f.note {
            Some(note) => {
                let _ = writeln!(s, " ({note})");
            }
            None => s.push('\n'),
        }
    }
    for f in &result.faults_unfired {
        let _ = writeln!(s, "fault never fired: {}", f.label);
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

#[cfg(test)]
mod tests {
    // A rewritten container directory keeps only the files about to be overwritten; whatever
    // else an earlier run (or anyone) left in it goes, directories included.
    #[test]
    fn only_the_kept_entries_stay() {
        let tmp = crate::test_dir::TestDir::new("keep");
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("old-dir/inner")).expect("mkdir");
        for f in ["stdout", "stderr", "prelaunch.out", "old-dir/inner/x"] {
            std::fs::write(dir.join(f), "earlier").expect("write");
        }
        super::remove_all_but(dir, |p| {
            p.file_name()
                .is_some_and(|n| super::CONTAINER_FILES.iter().any(|f| n == *f))
        })
        .expect("clears");
        let mut left: Vec<String> = std::fs::read_dir(dir)
            .expect("lists")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["stderr", "stdout"]);
    }

    #[test]
    fn a_big_sparkpi_says_where_its_time_goes() {
        let args = |a: &str| vec![a.to_string()];
        let class = "org.apache.spark.examples.SparkPi";
        assert_eq!(super::sparkpi_note(class, &args("1000")), None);
        let note = super::sparkpi_note(class, &args("100000")).expect("a note");
        assert!(
            note.starts_with("note: SparkPi throws 2147483647 real darts"),
            "{note}"
        );
        assert_eq!(super::sparkpi_note("com.x.App", &args("100000")), None);
        // JavaSparkPi.java's `int n = 100000 * slices` wraps: 100000 slices make 1410065408
        // darts, one per element of the driver's list, which a second note names.
        let java = "org.apache.spark.examples.JavaSparkPi";
        let note = super::sparkpi_note(java, &args("100000")).expect("a note");
        assert!(
            note.starts_with("note: JavaSparkPi throws 1410065408 real darts"),
            "{note}"
        );
        assert!(
            note.contains("\nnote: in Spark, JavaSparkPi's driver holds its 1410065408 list"),
            "{note}"
        );
        // 200 slices (20 million elements) ended a real Spark 4.0.0 1g driver with an
        // OutOfMemoryError (ParallelCollectionRDD.slice): the list note alone, no dart note.
        let list = super::sparkpi_note(java, &args("200")).expect("a note");
        assert!(
            list.starts_with(
                "note: in Spark, JavaSparkPi's driver holds its 20000000 list elements"
            ),
            "{list}"
        );
        assert!(list.contains("~1100 MB"), "{list}");
        assert_eq!(super::sparkpi_note(java, &args("99")), None);
        // 21475 slices wrap n below 0: `new ArrayList<>(n)` throws, no darts, no note.
        assert_eq!(super::sparkpi_note(java, &args("21475")), None);
        assert_eq!(super::sparkpi_note(class, &args("200")), None);
    }

    /// The note's reason comes from the run's typed record: the RM's refusal
    /// (ApplicationMasterService.allocate -> SchedulerUtils.normalizeAndValidateRequest throws
    /// InvalidResourceRequestException; Hadoop 3.4), no AM, no YarnAllocator (Spark 4.0
    /// ApplicationMaster.runDriver creates it only after the SparkContext is up and the AM
    /// registered), or asks left pending.
    #[test]
    fn the_unallocated_note_says_the_recorded_reason() {
        use super::Unallocated;
        use sparkyard_actors::simulation::observer::{RunCounters, RunEvent};
        let mut c = RunCounters::default();
        assert_eq!(Unallocated::of(&c), Unallocated::NoApplicationMaster);
        let container = "container_1764662400000_0001_01_000001"
            .parse()
            .expect("an id");
        c.apply(&RunEvent::AmStarted {
            attempt: 1,
            container,
        });
        assert_eq!(Unallocated::of(&c), Unallocated::NoAllocator);
        c.apply(&RunEvent::ExecutorTargetChanged {
            attempt: 1,
            target: 2,
        });
        assert_eq!(Unallocated::of(&c), Unallocated::NoRoom);
        // Every AM attempt killed while its asks were pending: not "no room" (issue 30).
        let mut killed = c.clone();
        killed.apply(&RunEvent::AmContainerCompleted {
            attempt: 1,
            exit_status: 137,
        });
        assert_eq!(Unallocated::of(&killed), Unallocated::AmEnded);
        let class = "org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException";
        c.apply(&RunEvent::ExecutorAsksRefused {
            attempt: 1,
            exception: class,
        });
        assert_eq!(Unallocated::of(&c), Unallocated::Refused(class));
        assert!(Unallocated::of(&c)
            .text()
            .starts_with("the ResourceManager refused the AM's requests for them (InvalidResourceRequestException"));
    }

    #[test]
    fn launch_scripts_are_expanded_as_the_node_manager_does() {
        let script = "export PRELAUNCH_OUT=\"<LOG_DIR>/prelaunch.out\"\nexec /bin/bash -c \"{{JAVA_HOME}}/bin/java -cp {{PWD}}<CPS>x 1><LOG_DIR>/stdout\"";
        let got = super::expand_launch(script, std::path::Path::new("/logs/c1"));
        assert_eq!(
            got,
            "export PRELAUNCH_OUT=\"/logs/c1/prelaunch.out\"\nexec /bin/bash -c \"$JAVA_HOME/bin/java -cp $PWD:x 1>/logs/c1/stdout\""
        );
    }
}
