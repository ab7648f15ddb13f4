//! The `sparkyard` binary as a user runs it: exit codes, what goes to stdout and stderr, and
//! byte-identical output for the same seed.

use crate::common::{
    SPARK_PI, TestDir, assert_user_error, binary, not_yarn_cluster, submit_words, text,
};
use std::process::Output;

fn sparkyard(args: &[&str], tmp: &TestDir) -> Output {
    let dir = log_dir(tmp);
    let mut all = args.to_vec();
    all.extend(["--log-dir", &dir]);
    binary(&all)
}

/// A test's `--log-dir`: `logs` in its temp dir, not there until the binary makes it.
fn log_dir(tmp: &TestDir) -> String {
    tmp.join("logs").to_string_lossy().to_string()
}

fn submit(extra: &[&str], tmp: &TestDir) -> Output {
    let args = submit_words(extra);
    // `--log-dir` goes before the jar, so pass the jar last.
    let (flags, app): (Vec<&str>, Vec<&str>) = split_app(&args);
    let mut all = flags;
    let dir = log_dir(tmp);
    all.push("--log-dir");
    all.push(&dir);
    all.extend(app);
    binary(&all)
}

/// Splits at the first word ending in `.jar`: flags before, the jar and its arguments after.
fn split_app<'a>(args: &[&'a str]) -> (Vec<&'a str>, Vec<&'a str>) {
    let at = args
        .iter()
        .position(|a| a.ends_with(".jar"))
        .unwrap_or(args.len());
    (args[..at].to_vec(), args[at..].to_vec())
}

/// SparkPi through the binary: `submit <BASE> <SPARK_PI> <extra>`.
fn submit_pi(extra: &[&str], tmp: &TestDir) -> Output {
    submit(&[SPARK_PI, extra].concat(), tmp)
}

#[test]
fn success_exits_zero_with_client_lines_on_stderr_and_the_estimate_on_stdout() {
    let out = submit_pi(
        &["examples/jars/spark-examples.jar", "10"],
        &TestDir::new("cli-ok"),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("Pi is roughly 3.1"), "{stdout}");
    assert!(
        stderr
            .contains("INFO Client: Requesting a new application from cluster with 8 NodeManagers")
    );
    assert!(stderr.contains(
        "INFO Client: Application report for application_1764662400000_0001 (state: FINISHED)"
    ));
    assert!(stderr.contains("\t final status: SUCCEEDED\n"));
    assert!(
        !stderr.contains("ApplicationMaster:"),
        "AM lines stay in the container log by default"
    );
}

#[test]
fn a_failed_application_exits_one_with_spark_closing_exception() {
    let out = submit(
        &["--class", "com.example.Missing", "app.jar"],
        &TestDir::new("cli-fail"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("ERROR Client: Application diagnostics message: Application application_1764662400000_0001 failed 2 times"), "{stderr}");
    assert!(stderr.contains("Exception in thread \"main\" org.apache.spark.SparkException: Application application_1764662400000_0001 finished with failed status\n\tat org.apache.spark.deploy.yarn.Client.run(Client.scala:1309)"), "{stderr}");
}

#[test]
fn user_errors_exit_one_with_a_clear_message_and_no_panic() {
    let [local_master, client_mode] = not_yarn_cluster();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        local_master,
        client_mode,
        // spark-submit's own validation text for a flag value it cannot parse.
        (
            submit_words(&["--class", "X", "--executor-memory", "1.5g", "a.jar"]),
            "Exception in thread \"main\" org.apache.spark.SparkException: Executor memory must be a positive number",
        ),
        // The same string in a property reaches JavaUtils' own text.
        (
            submit_words(&[
                "--class",
                "X",
                "--conf",
                "spark.executor.memoryOverhead=1.5g",
                "a.jar",
            ]),
            "Fractional values are not supported. Input was: 1.5",
        ),
        (
            submit_words(&["--class", "X", "--conf", "novalue", "a.jar"]),
            "Spark config without '=': novalue",
        ),
        (
            submit_words(&[
                "--class",
                "X",
                "--cluster",
                "/nonexistent/cluster.toml",
                "a.jar",
            ]),
            "/nonexistent/cluster.toml",
        ),
        (vec!["submit", "--bogus-flag"], "--bogus-flag"),
    ];
    for (i, (args, needle)) in cases.iter().enumerate() {
        let out = sparkyard(args, &TestDir::new(&format!("cli-err{i}")));
        assert_user_error(args, out.status.code(), &text(&out.stderr), needle);
    }
}

#[test]
fn the_same_seed_gives_byte_identical_output() {
    let args = ["--num-executors", "2", "app.jar", "8"];
    // Same inputs includes the same (empty) --log-dir: a second run into a used one adds the
    // "earlier run ... replaced" notice (a_rerun_replaces_the_earlier_container_logs...).
    let tmp = TestDir::new("cli-det");
    let a = submit_pi(&args, &tmp);
    let _ = std::fs::remove_dir_all(log_dir(&tmp));
    let b = submit_pi(&args, &tmp);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(text(&a.stdout), text(&b.stdout));
    assert_eq!(text(&a.stderr), text(&b.stderr));
}

#[test]
fn verbose_shows_the_am_driver_and_executor_lines() {
    let out = submit_pi(&["--verbose", "app.jar", "2"], &TestDir::new("cli-verbose"));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("Parsed arguments:"), "{stderr}");
    assert!(stderr.contains(
        "INFO ApplicationMaster: ApplicationAttemptId: appattempt_1764662400000_0001_000001"
    ));
    assert!(stderr.contains("INFO YarnAllocator: Will request 2 executor container(s) for ResourceProfile Id: 0, each with 1 core(s) and 1408 MB memory. with custom resources: <memory:1408, vCores:1>"));
    assert!(
        stderr
            .contains("INFO YarnCoarseGrainedExecutorBackend: Successfully registered with driver")
    );
}

#[test]
fn spark_submit_version_prints_the_banner() {
    let out = sparkyard(&["submit", "--version"], &TestDir::new("cli-version"));
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("version 4.0.0"));
}

/// Every file under `dir`, recursively.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

// Utils.redact (spark.redaction.regex, `*********(redacted)`): the secret of a
// spark.executorEnv key never shows on the console, in the --verbose report, in the container
// logs, in the event log (EventLoggingListener.redactEvent) or in the trace. The one place it is
// written is launch_container.sh: YARN's ContainerLaunch exports the environment as given.
#[test]
fn a_secret_is_redacted_in_every_output() {
    let tmp = TestDir::new("cli-redact");
    let dir = std::path::PathBuf::from(log_dir(&tmp));
    std::fs::create_dir_all(&dir).expect("dir");
    let events = dir.join("events");
    // Spark's SparkContext refuses an event log directory that is not there.
    std::fs::create_dir_all(&events).expect("events dir");
    let trace = dir.join("trace.json");
    let ev = format!("spark.eventLog.dir={}", events.display());
    let out = submit_pi(
        &[
            "--verbose",
            "--conf",
            "spark.executorEnv.HADOOP_CREDSTORE_PASSWORD=secret_password",
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            &ev,
            // Plain JSON, so the check below reads the event log's text.
            "--conf",
            "spark.eventLog.compress=false",
            "--trace",
            trace.to_str().unwrap(),
            "app.jar",
            "2",
        ],
        &tmp,
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains("secret_password"), "{stdout}");
    assert!(!stderr.contains("secret_password"), "{stderr}");
    assert!(stderr.contains("(spark.executorEnv.HADOOP_CREDSTORE_PASSWORD,*********(redacted))"));
    assert!(
        stderr.contains("    HADOOP_CREDSTORE_PASSWORD -> *********(redacted)\n"),
        "{stderr}"
    );
    let files = files_under(&dir);
    assert!(files.iter().any(|f| f.starts_with(&events)), "an event log");
    assert!(files.contains(&trace), "a trace");
    let mut scripts = 0;
    for f in &files {
        let body = String::from_utf8_lossy(&std::fs::read(f).expect("readable")).to_string();
        if f.ends_with("launch_container.sh") {
            scripts +=
                usize::from(body.contains("export HADOOP_CREDSTORE_PASSWORD=\"secret_password\""));
            continue;
        }
        assert!(!body.contains("secret_password"), "{}", f.display());
    }
    // Only executors get spark.executorEnv.* (ExecutorRunnable.prepareEnvironment).
    assert_eq!(scripts, 2, "the two executors' launch_container.sh");
}

// SparkSubmitCommandBuilder.OptionParser.handleUnknown + launcher Main: `Error: Unrecognized
// option: --foo`, a blank line and spark-submit's usage (SparkSubmitArguments.printUsageAndExit).
#[test]
fn an_unknown_option_gets_the_launchers_error_and_sparks_usage() {
    let out = binary(&["submit", "--master", "yarn", "--files-x", "a", "app.jar"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.starts_with("Error: Unrecognized option: --files-x\n\nUsage: spark-submit [options] <app jar | python file | R file> [app arguments]\n"), "{stderr}");
    assert!(!stderr.contains("tip:"), "{stderr}");
    let help = binary(&["submit", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stderr).contains(" Spark on YARN only:\n  --queue QUEUE_NAME "));
    let version = binary(&["submit", "--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(
        text(&version.stdout).contains("version 4.0"),
        "{}",
        text(&version.stdout)
    );
}

// Spark 4.0 Client.getDriverLogsLink / formatReportDetails: with
// spark.yarn.includeDriverLogsLink the RUNNING report (and only it) ends with the AM container's
// `Driver Logs (stdout)` / `(stderr)` links (YarnClusterSuite "running Spark in yarn-cluster mode
// displays driver log links"); without it, no such line.
#[test]
fn include_driver_logs_link_adds_the_links_to_the_running_report() {
    let out = submit_pi(
        &[
            "--conf",
            "spark.yarn.includeDriverLogsLink=true",
            "app.jar",
            "2",
        ],
        &TestDir::new("cli-driver-links"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr.contains("includeDriverLogsLink"),
        "no warning: {stderr}"
    );
    let cid = "container_1764662400000_0001_01_000001";
    for f in ["stdout", "stderr"] {
        let line = format!(
            "\n\t Driver Logs ({f}): http://nm-2.sparkyard.internal:8042/node/containerlogs/{cid}/spark/{f}?start=-4096"
        );
        assert_eq!(stderr.matches(&line).count(), 1, "{f}: {stderr}");
    }
    let running = stderr
        .split("(state: RUNNING)")
        .nth(1)
        .expect("a RUNNING report");
    let finished = running.split("(state: FINISHED)").nth(1).expect("FINISHED");
    assert!(!finished.contains("Driver Logs"), "{finished}");
    let plain = submit_pi(&["app.jar", "2"], &TestDir::new("cli-driver-links-off"));
    assert!(!text(&plain.stderr).contains("Driver Logs"));
}

// Spark 4.0 ApplicationMaster.getHistoryServerAddress (substituteHadoopVariables, then
// "/history/<app>/<attempt>") -> YarnRMClient.unregister's final tracking URL; Hadoop 3.4
// RMAppAttemptImpl.updateInfoOnAMUnregister keeps it as the original tracking URL (what
// ApplicationCLI's `yarn application -status` prints as Tracking-URL) while the Client's report
// keeps the RM proxy URL.
#[test]
fn the_history_server_address_becomes_the_tracking_url_after_the_end() {
    let out = submit_pi(
        &[
            "--conf",
            "spark.yarn.historyServer.address=${hadoopconf-yarn.resourcemanager.hostname}:18080",
            "app.jar",
            "2",
        ],
        &TestDir::new("cli-history-address"),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("not simulated"), "no warning: {stderr}");
    assert!(
        stdout.contains(
            "\ntracking URL in YARN (yarn application -status): rm-1.sparkyard.internal:18080/history/application_1764662400000_0001/1\n"
        ),
        "{stdout}"
    );
    let finished = stderr.split("(state: FINISHED)").nth(1).expect("FINISHED");
    assert!(
        finished.contains(
            "tracking URL: http://rm-1.sparkyard.internal:8088/proxy/application_1764662400000_0001/\n"
        ),
        "{finished}"
    );
    // Unset, YARN has no URL for the ended application (`N/A`): no line.
    let plain = submit_pi(&["app.jar", "2"], &TestDir::new("cli-history-address-off"));
    assert!(!text(&plain.stdout).contains("tracking URL in YARN"));
}

// Hadoop 3.4 RMAppManager.validateAndCreateResourceRequest -> SchedulerUtils
// .validateResourceRequest: an AM (driver) asking more vcores than the maximum allocation fails
// submitApplication itself with InvalidResourceRequestException (Spark's Client checks memory
// only); Spark 4.0 Client.submitApplication's catch deletes the staging directory and rethrows.
#[test]
fn driver_cores_above_the_maximum_allocation_are_refused_at_submission() {
    let out = submit_pi(
        &["--driver-cores", "8", "app.jar", "2"],
        &TestDir::new("cli-driver-cores"),
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Exception in thread \"main\" org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException: Invalid resource request! Cannot allocate containers as requested resource is greater than maximum allowed allocation. Requested resource type=[vcores], Requested resource=<memory:1408, vCores:8>, maximum allowed allocation=<memory:8192, vCores:4>"),
        "{stderr}"
    );
    assert!(
        stderr.contains("INFO Client: Deleted staging directory "),
        "{stderr}"
    );
    assert!(!stderr.contains("Application report for"), "{stderr}");
}

// Application ids repeat between runs (the cluster timestamp is the cluster file's
// start_time_ms): a rerun into the same --log-dir replaces the earlier run's container
// directories of that application (none of them is left mixed in) and says so.
#[test]
fn a_rerun_replaces_the_earlier_container_logs_with_a_notice() {
    let tmp = TestDir::new("cli-rerun");
    let dir = std::path::PathBuf::from(log_dir(&tmp));
    let first = submit_pi(&["--num-executors", "3", "app.jar", "2"], &tmp);
    assert_eq!(first.status.code(), Some(0));
    assert!(!text(&first.stderr).contains("notice:"));
    let cids = |d: &std::path::Path| -> Vec<String> {
        let mut all: Vec<String> = files_under(d)
            .iter()
            .filter_map(|p| {
                let s = p.to_string_lossy().to_string();
                s.split("/userlogs/application_1764662400000_0001/")
                    .nth(1)
                    .map(|r| r.split('/').next().unwrap_or_default().to_string())
            })
            .collect();
        all.sort();
        all.dedup();
        all
    };
    assert_eq!(cids(&dir).len(), 4, "AM + 3 executors");
    let second = submit_pi(&["--num-executors", "1", "app.jar", "2"], &tmp);
    let stderr = text(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("held container logs of an earlier run with the same application id; they were replaced."),
        "{stderr}"
    );
    assert_eq!(
        cids(&dir).len(),
        2,
        "AM + 1 executor, nothing left of the first run"
    );
}

// Spark 4.0 Client.createApplicationSubmissionContext sends spark.yarn.am.nodeLabelExpression
// on the AM's ANY ResourceRequest; Hadoop 3.4 RMAppManager.validateAndCreateResourceRequest ->
// SchedulerUtils.normalizeAndValidateRequest refuses it in submitApplication: with
// yarn.node-labels.enabled false (the default) any label; with it on, a label no NodeManager
// carries (checkQueueLabelInLabelManager; every queue inherits root's "*").
#[test]
fn an_am_node_label_is_refused_at_submission_as_yarn_does() {
    let off = submit_pi(
        &[
            "--conf",
            "spark.yarn.am.nodeLabelExpression=gpu",
            "app.jar",
            "2",
        ],
        &TestDir::new("cli-am-label-off"),
    );
    let stderr = text(&off.stderr);
    assert_eq!(off.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Exception in thread \"main\" org.apache.hadoop.yarn.exceptions.InvalidLabelResourceRequestException: Invalid resource request, node label not enabled but request contains label expression"),
        "{stderr}"
    );
    assert!(!stderr.contains("Application report for"), "{stderr}");
    let tmp = TestDir::new("cli-labels");
    let cluster = tmp.join("labels.toml");
    std::fs::write(
        &cluster,
        "[yarn]\n\"yarn.node-labels.enabled\" = true\n\n[[nodes]]\nhost = \"nm-1.sparkyard.internal\"\n",
    )
    .expect("cluster file");
    let on = submit_pi(
        &[
            "--cluster",
            cluster.to_str().expect("utf-8"),
            "--conf",
            "spark.yarn.am.nodeLabelExpression=gpu",
            "app.jar",
            "2",
        ],
        &TestDir::new("cli-am-label-on"),
    );
    let stderr = text(&on.stderr);
    assert_eq!(on.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("org.apache.hadoop.yarn.exceptions.InvalidLabelResourceRequestException: Invalid label resource request, cluster do not contain , label= gpu"),
        "{stderr}"
    );
}

/// The README's synopsis `sparkyard replay EVENTLOG [spark-submit options] [--cluster FILE]
/// [--scenario FILE] [--seed N] [--json]` works as written (issue 30, item 5): sparkyard's own
/// options are taken anywhere, before or after the event log and spark-submit's options, and
/// give the same report in every order; what-if's too.
#[test]
fn replay_and_what_if_take_their_own_options_anywhere() {
    let log = "tests/data/eventlogs/multijob_n2_r1.zstd";
    let scenario = "config/scenarios/executor-sigkill.toml";
    let orders: [&[&str]; 4] = [
        &[
            log,
            "--num-executors",
            "3",
            "--seed",
            "7",
            "--scenario",
            scenario,
            "--json",
        ],
        &[
            "--scenario",
            scenario,
            "--json",
            log,
            "--num-executors",
            "3",
            "--seed",
            "7",
        ],
        &[
            "--num-executors",
            "3",
            "--json",
            log,
            "--seed",
            "7",
            "--scenario",
            scenario,
        ],
        &[
            "--json",
            "--num-executors=3",
            "--scenario",
            scenario,
            "--seed=7",
            log,
        ],
    ];
    let mut outs = Vec::new();
    for words in orders {
        let mut args = vec!["replay"];
        args.extend(words);
        let out = binary(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let stdout = text(&out.stdout);
        let json: serde_json::Value = serde_json::from_str(&stdout).expect("--json is JSON");
        assert!(json.is_object(), "{stdout}");
        outs.push(stdout);
    }
    assert!(
        outs.windows(2).all(|w| w[0] == w[1]),
        "every order, one report"
    );
    // An unknown option is still spark-submit's error, wherever it is.
    let bad = binary(&["replay", "--bogus", log, "--scenario", scenario]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("Unrecognized option: --bogus"),
        "{}",
        text(&bad.stderr)
    );
    // what-if: its grid and seeds after the log and spark-submit's options.
    let tmp = TestDir::new("cli-anywhere");
    let plot = tmp.join("anywhere.svg").display().to_string();
    let what_if = binary(&[
        "what-if",
        log,
        "--conf",
        "spark.task.cpus=1",
        "--grid",
        "num-executors=1,2",
        "--seeds",
        "1..2",
        "--plot",
        &plot,
    ]);
    assert_eq!(what_if.status.code(), Some(0), "{}", text(&what_if.stderr));
}
