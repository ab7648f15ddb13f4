//! spark-submit's own command-line grammar: owns the table of options and switches and the walk
//! over the words; mirrors `org.apache.spark.launcher.SparkSubmitOptionParser` (Spark 4.0) and the
//! launcher's `SparkSubmitCommandBuilder.OptionParser` (`Unrecognized option: %s`), plus
//! `SparkSubmitArguments.printUsageAndExit`'s usage text.
//!
//! The rules (SparkSubmitOptionParser.parse): `--opt=value` splits on the first `=` (the regex
//! `(--[^=]+)=(.+)`); an option with a value takes the next word whatever it looks like; a
//! switch takes none; the first word that is neither is the primary resource (an unknown word
//! starting with `-` is refused) and every word after it is an application argument.

/// Options that take a value, each with its aliases; the first name is the one handled.
/// SparkSubmitOptionParser.opts (Spark 4.0 adds `--remote`).
pub const OPTS: &[&[&str]] = &[
    &["--archives"],
    &["--class"],
    &["--conf", "-c"],
    &["--deploy-mode"],
    &["--driver-class-path"],
    &["--driver-cores"],
    &["--driver-java-options"],
    &["--driver-library-path"],
    &["--driver-memory"],
    &["--executor-cores"],
    &["--executor-memory"],
    &["--files"],
    &["--jars"],
    &["--keytab"],
    &["--kill"],
    &["--master"],
    &["--name"],
    &["--num-executors"],
    &["--packages"],
    &["--exclude-packages"],
    &["--principal"],
    &["--properties-file"],
    &["--proxy-user"],
    &["--py-files"],
    &["--queue"],
    &["--repositories"],
    &["--status"],
    &["--total-executor-cores"],
    &["--remote"],
];

/// Options without a value. SparkSubmitOptionParser.switches (Spark 4.0 adds
/// `--load-spark-defaults`).
pub const SWITCHES: &[&[&str]] = &[
    &["--help", "-h"],
    &["--supervise"],
    &["--usage-error"],
    &["--verbose", "-v"],
    &["--version"],
    &["--load-spark-defaults"],
];

/// One option sparkyard adds to spark-submit's (its simulator and output flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtraOption {
    /// `--seed`, `--log-dir`, ...
    pub long: String,
    pub takes_value: bool,
}

/// What the walk found, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedWords {
    /// Spark's options and switches: (official name, value; `None` for a switch).
    pub handled: Vec<HandledOption>,
    /// sparkyard's own flags, as words for clap (`--seed`, `7`).
    pub extra_words: Vec<String>,
    /// The primary resource, then the application arguments.
    pub app: Vec<String>,
    /// A switch that ends the parse as soon as it is seen (`--help`, `--usage-error`,
    /// `--version`): SparkSubmitArguments.handle returns false or exits for these.
    pub stopped_by: Option<&'static str>,
}

/// A Spark option as `handle(opt, value)` receives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandledOption {
    pub name: &'static str,
    pub value: Option<String>,
}

/// Why the words were refused, with the launcher's text (`Main` prints it as `Error: <text>`
/// followed by the usage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LauncherError(pub String);

fn find(name: &str, table: &[&[&'static str]]) -> Option<&'static str> {
    table
        .iter()
        .find(|aliases| aliases.contains(&name))
        .map(|aliases| aliases[0])
}

/// `(--[^=]+)=(.+)`: an option word with its value attached.
fn split_eq(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    (name.starts_with("--") && name.len() > 2 && !value.is_empty()).then_some((name, value))
}

/// SparkSubmitOptionParser.parse over `words`, with sparkyard's `extra` options recognised
/// (their words kept for clap).
pub fn parse(words: &[String], extra: &[ExtraOption]) -> Result<ParsedWords, LauncherError> {
    let mut out = ParsedWords::default();
    let mut idx = 0;
    while idx < words.len() {
        let word = &words[idx];
        let (arg, attached) = match split_eq(word) {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (word.as_str(), None),
        };
        if let Some(name) = find(arg, OPTS) {
            let value = match attached {
                Some(v) => v,
                None if idx + 1 == words.len() => {
                    return Err(LauncherError(format!(
                        "Missing argument for option '{arg}'."
                    )));
                }
                None => {
                    idx += 1;
                    words[idx].clone()
                }
            };
            out.handled.push(HandledOption {
                name,
                value: Some(value),
            });
        } else if let Some(name) = find(arg, SWITCHES) {
            out.handled.push(HandledOption { name, value: None });
            if matches!(name, "--help" | "--usage-error" | "--version") {
                out.stopped_by = Some(name);
                return Ok(out);
            }
        } else if let Some(opt) = extra.iter().find(|o| o.long == arg) {
            out.extra_words.push(word.clone());
            if opt.takes_value && attached.is_none() && idx + 1 < words.len() {
                idx += 1;
                out.extra_words.push(words[idx].clone());
            }
        } else if word.starts_with('-') {
            // SparkSubmitCommandBuilder.OptionParser.handleUnknown (errorOnUnknownArgs).
            return Err(LauncherError(format!("Unrecognized option: {word}")));
        } else {
            out.app = words[idx..].to_vec();
            return Ok(out);
        }
        idx += 1;
    }
    Ok(out)
}

/// `SparkSubmitArguments.printUsageAndExit`: the usage lines and the options (Spark 4.0), with
/// the default driver memory (`Utils.DEFAULT_DRIVER_MEM_MB`, 1024).
pub const USAGE: &str = r#"Usage: spark-submit [options] <app jar | python file | R file> [app arguments]
Usage: spark-submit --kill [submission ID] --master [spark://...]
Usage: spark-submit --status [submission ID] --master [spark://...]
Usage: spark-submit run-example [options] example-class [example args]

Options:
  --master MASTER_URL         spark://host:port, yarn,
                              k8s://https://host:port, or local (Default: local[*]).
  --deploy-mode DEPLOY_MODE   Whether to launch the driver program locally ("client") or
                              on one of the worker machines inside the cluster ("cluster")
                              (Default: client).
  --class CLASS_NAME          Your application's main class (for Java / Scala apps).
  --name NAME                 A name of your application.
  --jars JARS                 Comma-separated list of jars to include on the driver
                              and executor classpaths.
  --packages                  Comma-separated list of maven coordinates of jars to include
                              on the driver and executor classpaths. Will search the local
                              maven repo, then maven central and any additional remote
                              repositories given by --repositories. The format for the
                              coordinates should be groupId:artifactId:version.
  --exclude-packages          Comma-separated list of groupId:artifactId, to exclude while
                              resolving the dependencies provided in --packages to avoid
                              dependency conflicts.
  --repositories              Comma-separated list of additional remote repositories to
                              search for the maven coordinates given with --packages.
  --py-files PY_FILES         Comma-separated list of .zip, .egg, or .py files to place
                              on the PYTHONPATH for Python apps.
  --files FILES               Comma-separated list of files to be placed in the working
                              directory of each executor. File paths of these files
                              in executors can be accessed via SparkFiles.get(fileName).
  --archives ARCHIVES         Comma-separated list of archives to be extracted into the
                              working directory of each executor.

  --conf, -c PROP=VALUE       Arbitrary Spark configuration property.
  --properties-file FILE      Path to a file from which to load extra properties. If not
                              specified, this will look for conf/spark-defaults.conf.
  --load-spark-defaults       Whether to load properties from conf/spark-defaults.conf,
                              even if --properties-file is specified. Configurations
                              specified in --properties-file will take precedence over
                              those in conf/spark-defaults.conf.

  --driver-memory MEM         Memory for driver (e.g. 1000M, 2G) (Default: 1024M).
  --driver-java-options       Extra Java options to pass to the driver.
  --driver-library-path       Extra library path entries to pass to the driver.
  --driver-class-path         Extra class path entries to pass to the driver. Note that
                              jars added with --jars are automatically included in the
                              classpath.

  --executor-memory MEM       Memory per executor (e.g. 1000M, 2G) (Default: 1G).

  --proxy-user NAME           User to impersonate when submitting the application.
                              This argument does not work with --principal / --keytab.

  --help, -h                  Show this help message and exit.
  --verbose, -v               Print additional debug output.
  --version,                  Print the version of current Spark.

 Spark Connect only:
   --remote CONNECT_URL       URL to connect to the server for Spark Connect, e.g.,
                              sc://host:port. --master and --deploy-mode cannot be set
                              together with this option.

 Cluster deploy mode only:
  --driver-cores NUM          Number of cores used by the driver, only in cluster mode
                              (Default: 1).

 Spark standalone with cluster deploy mode only:
  --supervise                 If given, restarts the driver on failure.

 Spark standalone or K8s with cluster deploy mode only:
  --kill SUBMISSION_ID        If given, kills the driver specified.
  --status SUBMISSION_ID      If given, requests the status of the driver specified.

 Spark standalone only:
  --total-executor-cores NUM  Total cores for all executors.

 Spark standalone, YARN and Kubernetes only:
  --executor-cores NUM        Number of cores used by each executor. (Default: 1 in
                              YARN and K8S modes, or all available cores on the worker
                              in standalone mode).

 Spark on YARN and Kubernetes only:
  --num-executors NUM         Number of executors to launch (Default: 2).
                              If dynamic allocation is enabled, the initial number of
                              executors will be at least NUM.
  --principal PRINCIPAL       Principal to be used to login to KDC.
  --keytab KEYTAB             The full path to the file that contains the keytab for the
                              principal specified above.

 Spark on YARN only:
  --queue QUEUE_NAME          The YARN queue to submit to (Default: "default").
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn seed() -> Vec<ExtraOption> {
        vec![
            ExtraOption {
                long: "--seed".into(),
                takes_value: true,
            },
            ExtraOption {
                long: "--quiet".into(),
                takes_value: false,
            },
        ]
    }

    // SparkSubmitOptionParser.parse: `--opt=value`, aliases, the primary resource and its args.
    #[test]
    fn equals_form_aliases_and_app_args() {
        let p = parse(
            &words(&["--master=yarn", "-c", "a=b", "-v", "app.jar", "--x", "1"]),
            &[],
        )
        .unwrap();
        let names: Vec<_> = p.handled.iter().map(|h| h.name).collect();
        assert_eq!(names, vec!["--master", "--conf", "--verbose"]);
        assert_eq!(p.handled[0].value.as_deref(), Some("yarn"));
        assert_eq!(p.handled[1].value.as_deref(), Some("a=b"));
        assert_eq!(p.app, words(&["app.jar", "--x", "1"]));
    }

    // A value option takes the next word even when it starts with `-`.
    #[test]
    fn value_may_start_with_dash() {
        let p = parse(&words(&["--executor-memory", "-1g", "a.jar"]), &[]).unwrap();
        assert_eq!(p.handled[0].value.as_deref(), Some("-1g"));
    }

    // SparkSubmitCommandBuilder.OptionParser.handleUnknown: `Unrecognized option: %s`.
    #[test]
    fn unknown_option_is_the_launchers_error() {
        assert_eq!(
            parse(&words(&["--foo", "a.jar"]), &[]).unwrap_err(),
            LauncherError("Unrecognized option: --foo".into())
        );
        // `--total-executor-cores` is Spark's own option: never refused, never "similar".
        assert!(parse(&words(&["--total-executor-cores", "8", "a.jar"]), &[]).is_ok());
    }

    // SparkSubmitOptionParser.parse: `Missing argument for option '%s'.`
    #[test]
    fn missing_value() {
        assert_eq!(
            parse(&words(&["--master"]), &[]).unwrap_err(),
            LauncherError("Missing argument for option '--master'.".into())
        );
    }

    #[test]
    fn sparkyard_flags_are_kept_for_clap() {
        let p = parse(
            &words(&["--seed", "7", "--quiet", "--seed=8", "a.jar", "--seed", "9"]),
            &seed(),
        )
        .unwrap();
        assert_eq!(
            p.extra_words,
            words(&["--seed", "7", "--quiet", "--seed=8"])
        );
        assert_eq!(p.app, words(&["a.jar", "--seed", "9"]));
    }

    #[test]
    fn help_and_version_stop_the_parse() {
        let p = parse(&words(&["--version", "--foo"]), &[]).unwrap();
        assert_eq!(p.stopped_by, Some("--version"));
        let p = parse(&words(&["-h"]), &[]).unwrap();
        assert_eq!(p.stopped_by, Some("--help"));
    }
}
