//! The spark-submit command line and how it becomes one application's Spark properties: owns the
//! flags, the precedence of flags / `--conf` / properties files, spark-submit's validation texts
//! and the `--verbose` report; mirrors `org.apache.spark.deploy.SparkSubmitArguments` (Spark 4.0).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::option_parser::{self, ExtraOption};
use super::properties::{load_properties_file, load_properties_text, retain_spark_properties};
use super::spark_conf::SparkConf;
use crate::error::UserError;
use sparkyard_actors::simulation::spark_conf::Redactor;

/// sparkyard's own `spark-defaults.conf`, used when no `--properties-file` is given.
pub const EMBEDDED_SPARK_DEFAULTS: &str = include_str!("../../config/spark-defaults.conf");

/// How the embedded defaults file is named in messages and `--verbose` output.
pub const EMBEDDED_DEFAULTS_LABEL: &str = "config/spark-defaults.conf (embedded)";

/// The warning for `--supervise`, which only Spark's standalone master acts on.
pub const SUPERVISE_WARNING: &str = "Warning: --supervise applies to Spark standalone with \
cluster deploy mode only and is ignored on YARN (driver restarts on YARN are new AM attempts, \
see spark.yarn.maxAppAttempts)";

/// `--seed` when not given.
pub const DEFAULT_SEED: u64 = 42;

/// `--log-dir` when not given.
pub const DEFAULT_LOG_DIR: &str = "sparkyard-logs";

/// The `spark-defaults.conf` spark-submit reads when there is no `--properties-file`
/// (or also with `--load-spark-defaults`); `$SPARK_CONF_DIR/spark-defaults.conf` in Spark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefaultsFile {
    /// Text compiled into the binary (normally [`EMBEDDED_SPARK_DEFAULTS`]).
    Embedded(&'static str),
    /// A file on disk; like Spark, a path that is not a regular file is silently skipped.
    Path(PathBuf),
}

impl DefaultsFile {
    /// The defaults file that ships with sparkyard.
    pub fn embedded() -> Self {
        DefaultsFile::Embedded(EMBEDDED_SPARK_DEFAULTS)
    }
}

/// sparkyard's own flags of `sparkyard submit` (spark-submit has none of them).
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct SimFlags {
    /// sparkyard's cluster file (TOML); default: the embedded 8-node cluster.
    #[arg(long, value_name = "FILE", help_heading = "Simulator options")]
    pub cluster: Option<PathBuf>,
    /// The seed every random choice of the run derives from.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_SEED,
        help_heading = "Simulator options"
    )]
    pub seed: u64,
    /// Where container logs are written (the event log goes to spark.eventLog.dir).
    #[arg(
        long = "log-dir",
        value_name = "DIR",
        default_value = DEFAULT_LOG_DIR,
        help_heading = "Simulator options"
    )]
    pub log_dir: PathBuf,
    /// Only spark-submit's warnings and errors on the console, then the summary.
    #[arg(long, help_heading = "Simulator options")]
    pub quiet: bool,
}

impl Default for SimFlags {
    fn default() -> Self {
        SimFlags {
            cluster: None,
            seed: DEFAULT_SEED,
            log_dir: PathBuf::from(DEFAULT_LOG_DIR),
            quiet: false,
        }
    }
}

/// What spark-submit does besides submitting (`SparkSubmitAction`), or the usage it prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubmitAction {
    Submit,
    /// `--kill SUBMISSION_ID`.
    Kill(String),
    /// `--status SUBMISSION_ID`.
    RequestStatus(String),
    /// `--version`.
    PrintVersion,
    /// `--help` (exit 0) or `--usage-error` (exit 1): the usage text.
    Usage {
        exit_code: u8,
    },
}

/// spark-submit's words, as `SparkSubmitArguments.handle` stores them (each `None` is Spark's
/// `null`), plus sparkyard's own flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmitArgs {
    pub master: Option<String>,
    pub remote: Option<String>,
    pub deploy_mode: Option<String>,
    pub main_class: Option<String>,
    pub name: Option<String>,
    pub jars: Option<String>,
    pub packages: Option<String>,
    pub exclude_packages: Option<String>,
    pub repositories: Option<String>,
    pub py_files: Option<String>,
    pub files: Option<String>,
    pub archives: Option<String>,
    pub conf: Vec<String>,
    pub properties_file: Option<PathBuf>,
    pub load_spark_defaults: bool,
    pub driver_memory: Option<String>,
    pub driver_java_options: Option<String>,
    pub driver_library_path: Option<String>,
    pub driver_class_path: Option<String>,
    pub executor_memory: Option<String>,
    pub proxy_user: Option<String>,
    pub driver_cores: Option<String>,
    pub total_executor_cores: Option<String>,
    pub executor_cores: Option<String>,
    pub num_executors: Option<String>,
    pub principal: Option<String>,
    pub keytab: Option<String>,
    pub queue: Option<String>,
    pub verbose: bool,
    pub supervise: bool,
    pub action: SubmitAction,
    pub sim: SimFlags,
    /// The primary resource, then the application's arguments.
    pub app: Vec<String>,
}

/// No flags given.
impl Default for SubmitArgs {
    fn default() -> Self {
        SubmitArgs {
            master: None,
            remote: None,
            deploy_mode: None,
            main_class: None,
            name: None,
            jars: None,
            packages: None,
            exclude_packages: None,
            repositories: None,
            py_files: None,
            files: None,
            archives: None,
            conf: Vec::new(),
            properties_file: None,
            load_spark_defaults: false,
            driver_memory: None,
            driver_java_options: None,
            driver_library_path: None,
            driver_class_path: None,
            executor_memory: None,
            proxy_user: None,
            driver_cores: None,
            total_executor_cores: None,
            executor_cores: None,
            num_executors: None,
            principal: None,
            keytab: None,
            queue: None,
            verbose: false,
            supervise: false,
            action: SubmitAction::Submit,
            sim: SimFlags::default(),
            app: Vec::new(),
        }
    }
}

/// What `--verbose` needs beyond the request itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerboseInfo {
    /// Each properties file read, in order, with its entries (`Using properties file:` and
    /// `Adding default property:` lines).
    pub loaded_files: Vec<LoadedFile>,
    /// Spark's `sparkProperties`: `--conf` and the files, `spark.*` only, before dedicated flags.
    pub submit_properties: BTreeMap<String, String>,
    /// `--supervise` was given.
    pub supervise: bool,
}

/// A validated submission: everything the simulator needs from the command line.
#[derive(Clone, Debug)]
pub struct SubmitRequest {
    /// Every Spark property after precedence, including those the dedicated flags set.
    pub conf: SparkConf,
    pub main_class: String,
    pub primary_resource: String,
    pub app_args: Vec<String>,
    pub verbose: bool,
    /// Warnings spark-submit would print (non-Spark keys, `--supervise`); not printed here.
    pub warnings: Vec<String>,
    /// The properties file named in `--verbose` output (`--properties-file`, else the defaults
    /// file when one was read).
    pub properties_file: Option<String>,
    pub cluster: Option<PathBuf>,
    pub seed: u64,
    pub log_dir: PathBuf,
    pub quiet: bool,
    /// Detail for [`SubmitRequest::verbose_report`].
    pub verbose_info: VerboseInfo,
    /// The arguments as `SparkSubmitArguments` resolved them (`--verbose`'s "Parsed arguments").
    pub parsed: ParsedArguments,
    /// Where a relative `spark.scheduler.allocation.file` is read from: a scenario's directory
    /// (`None`: the working directory).
    pub files_dir: Option<PathBuf>,
}

/// The properties whose paths `prepareSubmitEnvironment` resolves (SparkSubmit.scala).
const PATH_CONFIGS: [&str; 6] = [
    "spark.jars",
    "spark.files",
    "spark.archives",
    "spark.yarn.dist.files",
    "spark.yarn.dist.archives",
    "spark.yarn.dist.jars",
];

/// A Python or R primary resource: `SparkSubmit.isPython` / `isR`. sparkyard runs JVM programs
/// only, so these are refused before anything is submitted.
fn check_primary_resource(primary: &str) -> Result<(), UserError> {
    let python = primary.ends_with(".py");
    let r = primary.ends_with(".R") || primary.ends_with(".r");
    if python || r {
        let kind = if python { "Python" } else { "R" };
        return Err(UserError::usage(format!(
            "{primary} is a {kind} application: sparkyard simulates only JVM applications (a \
             jar with --class; see the README's table of what is simulated)"
        )));
    }
    Ok(())
}

/// `MavenUtils.loadIvySettings`: only a `file` URI (or a plain path) may name the Ivy settings,
/// and it must be a regular file.
fn check_ivy_settings(path: Option<&str>) -> Result<(), UserError> {
    let Some(path) = path else { return Ok(()) };
    if let Some((scheme, _)) = path.split_once("://").or_else(|| path.split_once(":/"))
        && scheme != "file"
    {
        return Err(UserError::illegal_argument(format!(
            "Scheme {scheme} not supported in spark.jars.ivySettings"
        )));
    }
    let file = path
        .strip_prefix("file://")
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path);
    let p = Path::new(file);
    if !p.exists() {
        return Err(UserError::illegal_argument(format!(
            "requirement failed: Ivy settings file {file} does not exist"
        )));
    }
    if !p.is_file() {
        return Err(UserError::illegal_argument(format!(
            "requirement failed: Ivy settings file {file} is not a normal file"
        )));
    }
    Ok(())
}

/// `prepareSubmitEnvironment`: with a principal and a local keytab path, the keytab must exist
/// (`require(new File(keytab).exists(), ...)`) before `loginUserFromKeytab`; sparkyard then
/// records both (`spark.kerberos.*`) and logs no one in (no KDC is simulated).
fn check_keytab(parsed: &ParsedArguments) -> Result<(), UserError> {
    let (Some(_), Some(keytab)) = (&parsed.principal, &parsed.keytab) else {
        return Ok(());
    };
    if keytab.starts_with("local:") || Path::new(keytab).exists() {
        return Ok(());
    }
    Err(UserError::illegal_argument(format!(
        "requirement failed: Keytab file: {keytab} does not exist"
    )))
}

/// The console's warning for a `--class` sparkyard has no program for (the AM will fail to load
/// it with `ClassNotFoundException`, as for a class missing from the jar); names the classes the
/// program registry (`sparkyard_actors::simulation::facts::simulated_classes`) simulates.
pub fn class_warning(main_class: &str) -> Option<String> {
    let simulated: Vec<&str> = sparkyard_actors::simulation::facts::simulated_classes().collect();
    (!simulated.contains(&main_class)).then(|| {
        format!(
            "Warning: sparkyard simulates only these classes: {}; --class {main_class} will fail \
             in the ApplicationMaster with java.lang.ClassNotFoundException (a scenario file can \
             run a synthetic workload under any class name)",
            simulated.join(", ")
        )
    })
}

/// Spark's ConfigReader resolves `${env:X}` and `${system:X}` in a value from the environment
/// and system properties of the JVM that reads the key (spark-submit's for the Client's keys,
/// the AM container's for the driver's and the allocator's); sparkyard models neither, so it
/// says so once per key (naming the references, never the value, which may be a secret) and
/// uses the value as written.
fn environment_reference_warnings(props: &BTreeMap<String, String>) -> Vec<String> {
    props
        .iter()
        .filter_map(|(key, value)| {
            let refs = crate::conf::spark_conf::environment_references(value);
            (!refs.is_empty()).then(|| {
                format!(
                    "Warning: {key} refers to {}: sparkyard does not resolve ${{env:...}} or \
                     ${{system:...}} references (Spark reads them from the environment and \
                     system properties of the JVM that reads the key, which sparkyard does not \
                     model); the value is used as written",
                    refs.join(", ")
                )
            })
        })
        .collect()
}

/// The flags Spark accepts and then ignores on YARN (no `OptionAssigner` for YARN), or that
/// sparkyard cannot act on: said once each on the console, so nothing is dropped silently.
fn yarn_ignored_warnings(
    args: &SubmitArgs,
    parsed: &ParsedArguments,
    props: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    if args.supervise {
        out.push(SUPERVISE_WARNING.to_string());
    }
    if let Some(n) = &parsed.total_executor_cores {
        out.push(format!(
            "Warning: --total-executor-cores {n} (spark.cores.max) applies to Spark standalone \
             only; on YARN, Spark ignores it (use --num-executors and --executor-cores)"
        ));
    }
    out.extend(environment_reference_warnings(props));
    if let Some(p) = &parsed.packages {
        out.push(format!(
            "Warning: --packages {p} is not resolved: sparkyard simulates no Ivy/Maven \
             resolution, so no jar is added to spark.yarn.dist.jars"
        ));
    }
    out
}

/// `SparkSubmitUtils.parseSparkConfProperty`: split on the first `=`.
fn parse_conf_arg(arg: &str) -> Result<(String, String), UserError> {
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| UserError::spark(format!("Spark config without '=': {arg}")))?;
    Ok((key.to_string(), value.to_string()))
}

/// `--conf` pairs into a map: a later `--conf` of the same key wins.
fn parse_conf_args(args: &[String]) -> Result<BTreeMap<String, String>, UserError> {
    args.iter().map(|a| parse_conf_arg(a)).collect()
}

/// `loadPropertiesFromFile`: entries fill only keys not already set (by `--conf` or an earlier
/// file).
fn merge_missing(props: &mut BTreeMap<String, String>, entries: &BTreeMap<String, String>) {
    for (k, v) in entries {
        props.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// The absolute path Spark prints for the defaults file (`getAbsolutePath`).
fn absolute_label(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// A properties file that was read: its name as `--verbose` prints it, and its entries.
pub type LoadedFile = (String, BTreeMap<String, String>);

/// Reads the defaults file, `None` when a path is not a regular file (Spark skips it).
fn read_defaults(defaults: &DefaultsFile) -> Result<Option<LoadedFile>, UserError> {
    let (label, entries) = match defaults {
        DefaultsFile::Embedded(text) => (
            EMBEDDED_DEFAULTS_LABEL.to_string(),
            load_properties_text(text)?,
        ),
        DefaultsFile::Path(path) if path.is_file() => {
            (absolute_label(path), load_properties_file(path)?)
        }
        DefaultsFile::Path(_) => return Ok(None),
    };
    Ok(Some((label, entries.into_iter().collect())))
}

/// `--deploy-mode` is checked as soon as it is parsed, with Spark's text.
fn check_deploy_mode_flag(value: Option<&str>) -> Result<(), UserError> {
    match value {
        None | Some("client") | Some("cluster") => Ok(()),
        Some(_) => Err(UserError::spark(
            "--deploy-mode must be either \"client\" or \"cluster\"",
        )),
    }
}

/// sparkyard runs only what YARN would run: `--master yarn` (or `spark.master=yarn`).
/// `prepareSubmitEnvironment`'s cluster manager: Spark 4.0 knows `yarn` and the prefixes
/// `spark`, `k8s` and `local`; anything else, the old `yarn-cluster` / `yarn-client` forms
/// included (Spark 4.0 removed them), is its `Master must either be ...` error (SparkSubmit.scala).
fn check_master(master: Option<&str>) -> Result<(), UserError> {
    match master {
        Some("yarn") => Ok(()),
        Some(m) if !["spark", "k8s", "local"].iter().any(|p| m.starts_with(p)) => Err(
            UserError::spark("Master must either be yarn or start with spark, k8s, or local"),
        ),
        Some(other) => Err(UserError::usage(format!(
            "sparkyard simulates only --master yarn, not '{other}'"
        ))),
        None => Err(UserError::usage(
            "sparkyard simulates only --master yarn; no master was given (spark-submit's \
             default is local[*])",
        )),
    }
}

/// Cluster deploy mode only; a bad `spark.submit.deployMode` gets SparkSubmit's own text.
fn check_deploy_mode(mode: Option<&str>) -> Result<(), UserError> {
    match mode.unwrap_or("client") {
        "cluster" => Ok(()),
        "client" => Err(UserError::usage(
            "sparkyard simulates cluster deploy mode only: pass --deploy-mode cluster \
             (spark-submit's default is client)",
        )),
        _ => Err(UserError::spark(
            "Deploy mode must be either client or cluster",
        )),
    }
}

/// `SparkSubmitArguments` after `loadEnvironmentArguments`: each flag, else its Spark property
/// (`None` is Spark's `null`). Environment variables are not read, so runs are reproducible.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedArguments {
    pub master: Option<String>,
    pub remote: Option<String>,
    pub deploy_mode: Option<String>,
    pub executor_memory: Option<String>,
    pub executor_cores: Option<String>,
    pub total_executor_cores: Option<String>,
    pub driver_memory: Option<String>,
    pub driver_cores: Option<String>,
    pub driver_class_path: Option<String>,
    pub driver_library_path: Option<String>,
    pub driver_java_options: Option<String>,
    pub queue: Option<String>,
    pub num_executors: Option<String>,
    pub files: Option<String>,
    pub py_files: Option<String>,
    pub archives: Option<String>,
    pub name: Option<String>,
    pub jars: Option<String>,
    pub packages: Option<String>,
    pub packages_exclusions: Option<String>,
    pub repositories: Option<String>,
    pub ivy_settings: Option<String>,
    pub proxy_user: Option<String>,
    pub principal: Option<String>,
    pub keytab: Option<String>,
    pub dynamic_allocation: bool,
}

fn pick(flag: &Option<String>, props: &BTreeMap<String, String>, key: &str) -> Option<String> {
    flag.clone().or_else(|| props.get(key).cloned())
}

/// `Utils.resolveURIs` on a flag's value (`handle` resolves `--jars`, `--files`, `--py-files`
/// and `--archives` as it stores them).
fn resolved_flag(flag: &Option<String>) -> Option<String> {
    flag.as_deref().map(resolve_uris)
}

impl ParsedArguments {
    fn new(args: &SubmitArgs, props: &BTreeMap<String, String>) -> Self {
        let dynamic = props.get("spark.dynamicAllocation.enabled");
        let either = |a: &str, b: &str| props.get(a).or_else(|| props.get(b)).cloned();
        ParsedArguments {
            master: pick(&args.master, props, "spark.master"),
            remote: pick(&args.remote, props, "spark.remote"),
            deploy_mode: pick(&args.deploy_mode, props, "spark.submit.deployMode"),
            executor_memory: pick(&args.executor_memory, props, "spark.executor.memory"),
            executor_cores: pick(&args.executor_cores, props, "spark.executor.cores"),
            total_executor_cores: pick(&args.total_executor_cores, props, "spark.cores.max"),
            driver_memory: pick(&args.driver_memory, props, "spark.driver.memory"),
            driver_cores: pick(&args.driver_cores, props, "spark.driver.cores"),
            driver_class_path: pick(
                &args.driver_class_path,
                props,
                "spark.driver.extraClassPath",
            ),
            driver_library_path: pick(
                &args.driver_library_path,
                props,
                "spark.driver.extraLibraryPath",
            ),
            driver_java_options: pick(
                &args.driver_java_options,
                props,
                "spark.driver.extraJavaOptions",
            ),
            queue: pick(&args.queue, props, "spark.yarn.queue"),
            num_executors: pick(&args.num_executors, props, "spark.executor.instances"),
            files: pick(&resolved_flag(&args.files), props, "spark.files"),
            py_files: pick(
                &resolved_flag(&args.py_files),
                props,
                "spark.submit.pyFiles",
            ),
            archives: pick(&resolved_flag(&args.archives), props, "spark.archives"),
            name: pick(&args.name, props, "spark.app.name"),
            jars: pick(&resolved_flag(&args.jars), props, "spark.jars"),
            packages: pick(&args.packages, props, "spark.jars.packages"),
            packages_exclusions: pick(&args.exclude_packages, props, "spark.jars.excludes"),
            repositories: pick(&args.repositories, props, "spark.jars.repositories"),
            ivy_settings: props.get("spark.jars.ivySettings").cloned(),
            proxy_user: args.proxy_user.clone(),
            principal: args
                .principal
                .clone()
                .or_else(|| either("spark.kerberos.principal", "spark.yarn.principal")),
            keytab: args
                .keytab
                .clone()
                .or_else(|| either("spark.kerberos.keytab", "spark.yarn.keytab")),
            dynamic_allocation: dynamic.is_some_and(|v| v.eq_ignore_ascii_case("true")),
        }
    }

    /// `master`: `maybeMaster.getOrElse("local[*]")`.
    fn master(&self) -> &str {
        self.master.as_deref().unwrap_or("local[*]")
    }

    /// The (key, value) pairs `prepareSubmitEnvironment`'s `OptionAssigner`s set for YARN
    /// cluster mode (SparkSubmit.scala); the `spark.yarn.dist.*` ones merge with a value already
    /// there (`mergeFileLists`).
    fn assigned(&self) -> Vec<(&'static str, &String, bool)> {
        let fields = [
            (
                "spark.driver.extraClassPath",
                &self.driver_class_path,
                false,
            ),
            (
                "spark.driver.extraJavaOptions",
                &self.driver_java_options,
                false,
            ),
            (
                "spark.driver.extraLibraryPath",
                &self.driver_library_path,
                false,
            ),
            ("spark.kerberos.principal", &self.principal, false),
            ("spark.kerberos.keytab", &self.keytab, false),
            ("spark.submit.pyFiles", &self.py_files, false),
            ("spark.yarn.queue", &self.queue, false),
            ("spark.yarn.dist.pyFiles", &self.py_files, true),
            ("spark.yarn.dist.jars", &self.jars, true),
            ("spark.yarn.dist.files", &self.files, true),
            ("spark.yarn.dist.archives", &self.archives, true),
            ("spark.executor.instances", &self.num_executors, false),
            ("spark.executor.cores", &self.executor_cores, false),
            ("spark.executor.memory", &self.executor_memory, false),
            ("spark.driver.memory", &self.driver_memory, false),
            ("spark.driver.cores", &self.driver_cores, false),
        ];
        fields
            .into_iter()
            .filter_map(|(k, v, merge)| v.as_ref().map(|v| (k, v, merge)))
            .collect()
    }
}

/// The directory relative paths resolve against (`new File(path).getAbsoluteFile`): the
/// simulated spark-submit runs in `/opt/spark`, as the Client's upload lines say, so a run does
/// not depend on the directory sparkyard was started in.
pub const SUBMIT_CWD: &str = "/opt/spark";

/// `Utils.resolveURI`: a word with a scheme stays as it is; a path becomes `file:` and its
/// absolute form (a `#fragment` is kept, as for YARN's distributed cache).
pub fn resolve_uri(path: &str) -> String {
    let scheme = path.split_once(':').is_some_and(|(s, _)| {
        s.len() > 1
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    if scheme {
        return path.to_string();
    }
    let (file, fragment) = match path.split_once('#') {
        Some((f, frag)) => (f, Some(frag)),
        None => (path, None),
    };
    let joined = if file.starts_with('/') {
        file.to_string()
    } else {
        format!("{SUBMIT_CWD}/{file}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut out = format!("file:/{}", parts.join("/"));
    if let Some(frag) = fragment {
        out.push('#');
        out.push_str(frag);
    }
    out
}

/// `Utils.resolveURIs`: each comma-separated, non-blank entry resolved.
pub fn resolve_uris(paths: &str) -> String {
    paths
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(resolve_uri)
        .collect::<Vec<_>>()
        .join(",")
}

/// `mergeFileLists`: the non-blank entries of both lists, joined by commas.
fn merge_file_lists(a: &str, b: &str) -> String {
    a.split(',')
        .chain(b.split(','))
        .filter(|p| !p.trim().is_empty())
        .collect::<Vec<_>>()
        .join(",")
}

/// `Try(JavaUtils.byteStringAsBytes(s)).getOrElse(-1L) <= 0`.
fn positive_bytes(value: &str) -> bool {
    super::memory::byte_string_as_bytes(value).is_ok_and(|b| b > 0)
}

/// `Try(s.toInt).getOrElse(-1) <= 0` (Scala's toInt does not trim).
fn positive_int(value: &str) -> bool {
    value.parse::<i32>().is_ok_and(|n| n > 0)
}

/// Fails with `message` when the value is set and not positive.
fn require_positive(
    value: &Option<String>,
    ok: fn(&str) -> bool,
    message: &str,
) -> Result<(), UserError> {
    match value {
        Some(v) if !ok(v) => Err(UserError::spark(message)),
        _ => Ok(()),
    }
}

/// One of spark-submit's positivity checks: the value, its test, the text when it fails.
type PositiveCheck<'a> = (&'a Option<String>, fn(&str) -> bool, &'static str);

/// `validateSubmitArguments` (SparkSubmitArguments.scala), in Spark's order.
fn validate(r: &ParsedArguments, has_primary: bool) -> Result<(), UserError> {
    if r.remote.is_some() && (r.master.is_some() || r.deploy_mode.is_some()) {
        return Err(UserError::spark(
            "Remote cannot be specified with master and/or deploy mode.",
        ));
    }
    if !has_primary {
        let message = "Must specify a primary resource (JAR or Python or R file)";
        return Err(UserError::spark(message));
    }
    let checks: [PositiveCheck; 5] = [
        (
            &r.driver_memory,
            positive_bytes,
            "Driver memory must be a positive number",
        ),
        (
            &r.executor_memory,
            positive_bytes,
            "Executor memory must be a positive number",
        ),
        (
            &r.driver_cores,
            positive_int,
            "Driver cores must be a positive number",
        ),
        (
            &r.executor_cores,
            positive_int,
            "Executor cores must be a positive number",
        ),
        (
            &r.total_executor_cores,
            positive_int,
            "Total executor cores must be a positive number",
        ),
    ];
    for (value, ok, message) in checks {
        require_positive(value, ok, message)?;
    }
    // With dynamic allocation the executor count is only a starting point and may be 0.
    if !r.dynamic_allocation {
        let message = "Number of executors must be a positive number";
        require_positive(&r.num_executors, positive_int, message)?;
    }
    if r.proxy_user.is_some() && r.principal.is_some() {
        return Err(UserError::spark(
            "Only one of --proxy-user or --principal can be provided.",
        ));
    }
    Ok(())
}

/// `new File(primaryResource).getName()`: the last path segment.
fn file_name(resource: &str) -> String {
    resource.rsplit('/').next().unwrap_or(resource).to_string()
}

/// `Utils.redact(kvs)`: the redaction pattern is the map's own `spark.redaction.regex` (else
/// its default).
fn redactor(props: &BTreeMap<String, String>) -> Redactor {
    Redactor::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// The clap command that parses sparkyard's own flags of `sparkyard submit`: `extra`'s and
/// [`SimFlags`].
pub fn sim_command(extra: clap::Command) -> clap::Command {
    use clap::Args;
    SimFlags::augment_args(extra)
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
}

/// A sparkyard flag clap refused (`--seed x`): clap's own first line, without its `error: `.
fn clap_error(e: clap::Error) -> UserError {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    UserError::usage(first.trim_start_matches("error: ").to_string())
}

impl SubmitAction {
    /// The name `SparkSubmitAction`'s enumeration prints.
    fn spark_name(&self) -> &'static str {
        match self {
            SubmitAction::Submit => "SUBMIT",
            SubmitAction::Kill(_) => "KILL",
            SubmitAction::RequestStatus(_) => "REQUEST_STATUS",
            SubmitAction::PrintVersion => "PRINT_VERSION",
            SubmitAction::Usage { .. } => "USAGE",
        }
    }
}

impl SubmitArgs {
    /// Whether the run's `spark.dynamicAllocation.enabled` (its last `--conf`) turns dynamic
    /// allocation on, read as Spark reads the boolean (`true` in any case).
    pub fn dynamic_allocation_enabled(&self) -> bool {
        self.conf_value("spark.dynamicAllocation.enabled")
            .and_then(super::spark_conf::parse_bool)
            .unwrap_or(false)
    }

    /// The value of the last `--conf` that sets `key` (key and value trimmed): the one that
    /// wins, as SparkSubmit applies `--conf` pairs in order.
    pub fn conf_value(&self, key: &str) -> Option<&str> {
        self.conf.iter().rev().find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k.trim() == key).then(|| v.trim())
        })
    }

    /// Parses spark-submit's words (what follows `sparkyard submit`, as a scenario file or a
    /// test writes them) with sparkyard's simulator flags.
    pub fn from_words<I, T>(words: I) -> Result<SubmitArgs, UserError>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let command = clap::Command::new("sparkyard submit");
        Self::from_words_with(words, command).map(|(args, _)| args)
    }

    /// [`SubmitArgs::from_words`] with more sparkyard flags (`extra`'s arguments, e.g. the output
    /// options): spark-submit's own grammar (`option_parser`) walks the words, and the
    /// sparkyard flags it set aside are parsed by clap; returns clap's matches for `extra`.
    pub fn from_words_with<I, T>(
        words: I,
        extra: clap::Command,
    ) -> Result<(SubmitArgs, clap::ArgMatches), UserError>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        use clap::FromArgMatches;
        let words: Vec<String> = words.into_iter().map(|w| w.as_ref().to_string()).collect();
        let command = sim_command(extra);
        let extras: Vec<ExtraOption> = command
            .get_arguments()
            .filter_map(|a| {
                a.get_long().map(|long| ExtraOption {
                    long: format!("--{long}"),
                    takes_value: a.get_action().takes_values(),
                })
            })
            .collect();
        let parsed = option_parser::parse(&words, &extras)
            .map_err(|e| UserError::launcher(e.0, option_parser::USAGE))?;
        let matches = command
            .try_get_matches_from(&parsed.extra_words)
            .map_err(clap_error)?;
        let sim = SimFlags::from_arg_matches(&matches).map_err(clap_error)?;
        let mut args = SubmitArgs {
            sim,
            app: parsed.app,
            ..SubmitArgs::default()
        };
        // validateSubmitArguments: no words at all is the usage and exit code -1 (255).
        if words.is_empty() {
            args.action = SubmitAction::Usage { exit_code: 255 };
        }
        for h in parsed.handled {
            args.handle(h.name, h.value)?;
        }
        Ok((args, matches))
    }

    /// `SparkSubmitArguments.handle`: stores one option's value.
    fn handle(&mut self, opt: &str, value: Option<String>) -> Result<(), UserError> {
        let v = value;
        match opt {
            "--master" => self.master = v,
            "--remote" => self.remote = v,
            "--deploy-mode" => {
                check_deploy_mode_flag(v.as_deref())?;
                self.deploy_mode = v;
            }
            "--class" => self.main_class = v,
            "--name" => self.name = v,
            "--jars" => self.jars = v,
            "--packages" => self.packages = v,
            "--exclude-packages" => self.exclude_packages = v,
            "--repositories" => self.repositories = v,
            "--py-files" => self.py_files = v,
            "--files" => self.files = v,
            "--archives" => self.archives = v,
            "--conf" => self.conf.extend(v),
            "--properties-file" => self.properties_file = v.map(PathBuf::from),
            "--load-spark-defaults" => self.load_spark_defaults = true,
            "--driver-memory" => self.driver_memory = v,
            "--driver-java-options" => self.driver_java_options = v,
            "--driver-library-path" => self.driver_library_path = v,
            "--driver-class-path" => self.driver_class_path = v,
            "--executor-memory" => self.executor_memory = v,
            "--proxy-user" => self.proxy_user = v,
            "--driver-cores" => self.driver_cores = v,
            "--total-executor-cores" => self.total_executor_cores = v,
            "--executor-cores" => self.executor_cores = v,
            "--num-executors" => self.num_executors = v,
            "--principal" => self.principal = v,
            "--keytab" => self.keytab = v,
            "--queue" => self.queue = v,
            "--verbose" => self.verbose = true,
            "--supervise" => self.supervise = true,
            "--kill" => self.set_action(SubmitAction::Kill(v.unwrap_or_default()))?,
            "--status" => self.set_action(SubmitAction::RequestStatus(v.unwrap_or_default()))?,
            "--version" => self.action = SubmitAction::PrintVersion,
            "--help" => self.action = SubmitAction::Usage { exit_code: 0 },
            "--usage-error" => self.action = SubmitAction::Usage { exit_code: 1 },
            other => {
                return Err(UserError::illegal_argument(format!(
                    "Unexpected argument '{other}'."
                )));
            }
        }
        Ok(())
    }

    /// `--kill` / `--status`: `Action cannot be both KILL and REQUEST_STATUS.`
    fn set_action(&mut self, action: SubmitAction) -> Result<(), UserError> {
        if self.action != SubmitAction::Submit {
            return Err(UserError::spark(format!(
                "Action cannot be both {} and {}.",
                self.action.spark_name(),
                action.spark_name()
            )));
        }
        self.action = action;
        Ok(())
    }

    /// Merges flags, `--conf`, the properties file and the defaults file (conventions 1.3), then
    /// validates as spark-submit does, plus sparkyard's own limits (yarn, cluster mode).
    pub fn into_request(self, defaults: DefaultsFile) -> Result<SubmitRequest, UserError> {
        check_deploy_mode_flag(self.deploy_mode.as_deref())?;
        let mut props = parse_conf_args(&self.conf)?;
        let mut info = VerboseInfo {
            supervise: self.supervise,
            ..VerboseInfo::default()
        };
        let shown_file = self.load_files(&defaults, &mut props, &mut info)?;
        let mut warnings = retain_spark_properties(&mut props);
        let parsed = ParsedArguments::new(&self, &props);
        self.check_action(&parsed)?;
        validate(&parsed, !self.app.is_empty())?;
        check_master(parsed.master.as_deref())?;
        check_deploy_mode(parsed.deploy_mode.as_deref())?;
        check_primary_resource(&self.app[0])?;
        let main_class = self.main_class.clone().ok_or_else(|| {
            UserError::spark("No main class set in JAR; please specify one with --class.")
        })?;
        check_ivy_settings(parsed.ivy_settings.as_deref())?;
        check_keytab(&parsed)?;
        warnings.extend(yarn_ignored_warnings(&self, &parsed, &props));
        info.submit_properties = props.clone();
        let conf = self.final_conf(props, &parsed, &main_class);
        // Every key the run will not act on, set by a flag or a property, once
        // (src/conf/keys.rs): never silence.
        let notices = super::keys::not_simulated(conf.as_map().keys());
        warnings.extend(notices.iter().map(super::keys::KeyNotice::warning));
        Ok(self.request(conf, main_class, warnings, shown_file, info, parsed))
    }

    /// `--kill` / `--status` on YARN: Spark 4.0 has no `SparkSubmitOperation` for YARN (only
    /// Kubernetes registers one), so `SparkSubmitUtils.getSubmitOperations` throws
    /// (SparkSubmit.scala); `--version` and `--help` never reach here (the caller prints them).
    fn check_action(&self, parsed: &ParsedArguments) -> Result<(), UserError> {
        match &self.action {
            SubmitAction::Submit => Ok(()),
            SubmitAction::Kill(_) | SubmitAction::RequestStatus(_)
                if parsed.master().starts_with("spark://") =>
            {
                Err(UserError::usage(format!(
                    "sparkyard simulates only --master yarn, not '{}'",
                    parsed.master()
                )))
            }
            SubmitAction::Kill(_) | SubmitAction::RequestStatus(_) => {
                Err(UserError::illegal_argument(format!(
                    "No external SparkSubmitOperations clients found for master url: '{}'",
                    parsed.master()
                )))
            }
            SubmitAction::PrintVersion | SubmitAction::Usage { .. } => Err(UserError::usage(
                "--help, --usage-error and --version print and exit; they submit nothing",
            )),
        }
    }

    /// `mergeDefaultSparkProperties`: the properties file, then (if there was none, or with
    /// `--load-spark-defaults`) the defaults file, each filling only missing keys. Returns the
    /// file `--verbose` names.
    fn load_files(
        &self,
        defaults: &DefaultsFile,
        props: &mut BTreeMap<String, String>,
        info: &mut VerboseInfo,
    ) -> Result<Option<String>, UserError> {
        if let Some(path) = &self.properties_file {
            let entries = load_properties_file(path)?.into_iter().collect();
            info.loaded_files
                .push((path.display().to_string(), entries));
        }
        let wants_defaults = self.properties_file.is_none() || self.load_spark_defaults;
        if wants_defaults && let Some(file) = read_defaults(defaults)? {
            info.loaded_files.push(file);
        }
        for (_, entries) in &info.loaded_files {
            merge_missing(props, entries);
        }
        let shown = info.loaded_files.first().map(|(name, _)| name.clone());
        Ok(shown)
    }

    /// `spark.app.name`: `--name`, else the property, else the main class, else the jar's name.
    fn app_name(&self, props: &BTreeMap<String, String>, main_class: &str) -> String {
        let named = self
            .name
            .clone()
            .or_else(|| props.get("spark.app.name").cloned());
        let jar_name = || {
            self.app
                .first()
                .map(|jar| file_name(jar))
                .unwrap_or_default()
        };
        let fallback = || {
            if main_class.is_empty() {
                jar_name()
            } else {
                main_class.to_string()
            }
        };
        named.unwrap_or_else(fallback)
    }

    /// The conf the application sees: merged properties, then what the flags assign, then the
    /// master and deploy mode SparkSubmit fixes.
    fn final_conf(
        &self,
        props: BTreeMap<String, String>,
        parsed: &ParsedArguments,
        main_class: &str,
    ) -> SparkConf {
        let name = self.app_name(&props, main_class);
        let mut conf = SparkConf::from_map(props);
        for (key, value, merge) in parsed.assigned() {
            let merged = match conf.get(key) {
                Some(old) if merge => merge_file_lists(old, value),
                _ => value.clone(),
            };
            conf.set(key, merged);
        }
        conf.set("spark.app.name", name);
        conf.set("spark.master", "yarn");
        conf.set("spark.submit.deployMode", "cluster");
        // "Resolve paths in certain spark properties" (prepareSubmitEnvironment).
        for key in PATH_CONFIGS {
            if let Some(old) = conf.get(key) {
                let resolved = resolve_uris(old);
                conf.set(key, resolved);
            }
        }
        conf
    }

    fn request(
        self,
        conf: SparkConf,
        main_class: String,
        warnings: Vec<String>,
        properties_file: Option<String>,
        verbose_info: VerboseInfo,
        parsed: ParsedArguments,
    ) -> SubmitRequest {
        let mut app = self.app.into_iter();
        let primary_resource = app.next().unwrap_or_default();
        SubmitRequest {
            conf,
            main_class,
            primary_resource,
            app_args: app.collect(),
            verbose: self.verbose,
            warnings,
            properties_file,
            cluster: self.sim.cluster,
            seed: self.sim.seed,
            log_dir: self.sim.log_dir,
            quiet: self.sim.quiet,
            verbose_info,
            parsed,
            files_dir: None,
        }
    }
}

impl SubmitRequest {
    /// The `--verbose` output, one log message per element, in the order spark-submit logs them
    /// (INFO from SparkSubmitArguments): `Using properties file: <path>` and its
    /// `Adding default property: k=v` lines, then `SparkSubmitArguments.toString`.
    pub fn verbose_messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (path, entries) in &self.verbose_info.loaded_files {
            out.push(format!("Using properties file: {path}"));
            let r = redactor(entries);
            for (k, v) in entries {
                out.push(format!("Adding default property: {k}={}", r.redact(k, v)));
            }
        }
        out.push(self.parsed_arguments());
        out
    }

    /// [`Self::verbose_messages`] joined into one text, each message on its own line(s).
    pub fn verbose_report(&self) -> String {
        let mut text = self.verbose_messages().join("\n");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// `(name, value)` rows of `Parsed arguments:`, as SparkSubmitArguments resolved them
    /// (`SparkSubmitArguments.toString`; `null` where Spark has none).
    fn parsed_rows(&self) -> Vec<(&'static str, String)> {
        let p = &self.parsed;
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".to_string());
        let file = self
            .properties_file
            .clone()
            .unwrap_or_else(|| "null".to_string());
        vec![
            ("master", p.master().to_string()),
            ("remote", show(&p.remote)),
            ("deployMode", show(&p.deploy_mode)),
            ("executorMemory", show(&p.executor_memory)),
            ("executorCores", show(&p.executor_cores)),
            ("totalExecutorCores", show(&p.total_executor_cores)),
            ("propertiesFile", file),
            ("driverMemory", show(&p.driver_memory)),
            ("driverCores", show(&p.driver_cores)),
            ("driverExtraClassPath", show(&p.driver_class_path)),
            ("driverExtraLibraryPath", show(&p.driver_library_path)),
            ("driverExtraJavaOptions", show(&p.driver_java_options)),
            ("supervise", self.verbose_info.supervise.to_string()),
            ("queue", show(&p.queue)),
            ("numExecutors", show(&p.num_executors)),
            ("files", show(&p.files)),
            ("pyFiles", show(&p.py_files)),
            ("archives", show(&p.archives)),
            ("mainClass", self.main_class.clone()),
            ("primaryResource", resolve_uri(&self.primary_resource)),
            (
                "name",
                self.conf
                    .get("spark.app.name")
                    .unwrap_or("null")
                    .to_string(),
            ),
            ("childArgs", format!("[{}]", self.app_args.join(" "))),
            ("jars", show(&p.jars)),
            ("packages", show(&p.packages)),
            ("packagesExclusions", show(&p.packages_exclusions)),
            ("repositories", show(&p.repositories)),
            ("verbose", self.verbose.to_string()),
        ]
    }

    /// `SparkSubmitArguments.toString`: 24-column names, then the sorted, redacted
    /// `sparkProperties` as `  (k,v)` (Scala's `mkString("  ", "\n  ", "\n")`).
    fn parsed_arguments(&self) -> String {
        let mut s = String::from("Parsed arguments:\n");
        for (name, value) in self.parsed_rows() {
            s.push_str(&format!("  {name:<24}{value}\n"));
        }
        let file = self.properties_file.as_deref().unwrap_or("null");
        s.push_str("\nSpark properties used, including those specified through\n");
        s.push_str(&format!(
            " --conf and those from the properties file {file}:\n"
        ));
        let props = &self.verbose_info.submit_properties;
        let r = redactor(props);
        let lines: Vec<String> = props
            .iter()
            .map(|(k, v)| format!("({k},{})", r.redact(k, v)))
            .collect();
        s.push_str(&format!("  {}\n", lines.join("\n  ")));
        s
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::test_dir::TestDir;

    const BASE: &[&str] = &[
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--class",
        "org.example.Pi",
    ];

    /// `sparkyard submit --master yarn --deploy-mode cluster --class org.example.Pi <extra>`.
    pub(in crate::conf) fn parse(extra: &[&str]) -> SubmitArgs {
        parse_raw(&[BASE, extra].concat())
    }

    fn parse_raw(argv: &[&str]) -> SubmitArgs {
        SubmitArgs::from_words(argv).expect("test arguments parse")
    }

    fn no_defaults() -> DefaultsFile {
        DefaultsFile::Embedded("")
    }

    fn request(extra: &[&str]) -> Result<SubmitRequest, UserError> {
        parse(extra).into_request(no_defaults())
    }

    /// `text` written to `name` in `dir`.
    fn temp_file(dir: &TestDir, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("temp file writes");
        path
    }

    #[test]
    fn app_args_after_jar_even_with_dashes() {
        let req = request(&["app.jar", "100", "--verbose", "--conf", "a=b"]).unwrap();
        assert_eq!(req.primary_resource, "app.jar");
        assert_eq!(req.app_args, vec!["100", "--verbose", "--conf", "a=b"]);
        assert!(!req.verbose);
    }

    #[test]
    fn default_matches_clap_defaults() {
        let parsed = parse_raw(&[]);
        let default = SubmitArgs::default();
        assert_eq!(
            (parsed.sim.seed, &parsed.sim.log_dir),
            (default.sim.seed, &default.sim.log_dir)
        );
    }

    #[test]
    fn simulator_flag_defaults() {
        let req = request(&["app.jar"]).unwrap();
        assert_eq!(req.seed, 42);
        assert_eq!(req.log_dir, PathBuf::from("sparkyard-logs"));
        assert!(!req.quiet && req.cluster.is_none());
        assert_eq!(req.conf.get("spark.master"), Some("yarn"));
        assert_eq!(req.conf.get("spark.submit.deployMode"), Some("cluster"));
        assert_eq!(req.conf.get("spark.app.name"), Some("org.example.Pi"));
    }

    #[test]
    fn precedence_flag_over_conf_over_file_over_defaults() {
        let dir = TestDir::new("submit-prec");
        let file = temp_file(
            &dir,
            "prec.conf",
            "spark.executor.memory 3g\nspark.executor.cores 3\nspark.yarn.queue fileq\n",
        );
        let defaults = temp_file(
            &dir,
            "prec-defaults.conf",
            "spark.executor.memory 4g\nspark.executor.cores 4\nspark.yarn.queue defq\nspark.task.cpus 2\n",
        );
        let args = parse(&[
            "--executor-memory",
            "1g",
            "--conf",
            "spark.executor.memory=2g",
            "--conf",
            "spark.executor.cores=5",
            "--conf",
            "spark.executor.cores=2",
            "--properties-file",
            file.to_str().unwrap(),
            "--load-spark-defaults",
            "app.jar",
        ]);
        let req = args
            .into_request(DefaultsFile::Path(defaults.clone()))
            .unwrap();
        assert_eq!(req.conf.get("spark.executor.memory"), Some("1g"));
        assert_eq!(req.conf.get("spark.executor.cores"), Some("2"));
        assert_eq!(req.conf.get("spark.yarn.queue"), Some("fileq"));
        assert_eq!(req.conf.get("spark.task.cpus"), Some("2"));
    }

    #[test]
    fn defaults_file_skipped_when_properties_file_given() {
        let dir = TestDir::new("submit-only");
        let file = temp_file(&dir, "only.conf", "spark.yarn.queue fileq\n");
        let args = parse(&["--properties-file", file.to_str().unwrap(), "app.jar"]);
        let req = args
            .into_request(DefaultsFile::Embedded("spark.task.cpus 2\n"))
            .unwrap();
        assert_eq!(req.conf.get("spark.task.cpus"), None);
        assert_eq!(req.properties_file, Some(file.display().to_string()));
    }

    #[test]
    fn embedded_defaults_are_read_without_properties_file() {
        let args = parse(&["app.jar"]);
        let req = args
            .into_request(DefaultsFile::Embedded("spark.task.cpus 2\n"))
            .unwrap();
        assert_eq!(req.conf.get("spark.task.cpus"), Some("2"));
        assert_eq!(
            req.properties_file.as_deref(),
            Some(EMBEDDED_DEFAULTS_LABEL)
        );
    }

    #[test]
    fn missing_defaults_path_is_skipped_like_spark() {
        let path = PathBuf::from("/nonexistent/sparkyard/spark-defaults.conf");
        let req = parse(&["app.jar"])
            .into_request(DefaultsFile::Path(path))
            .unwrap();
        assert_eq!(req.properties_file, None);
    }

    #[test]
    fn missing_properties_file_is_spark_error() {
        let args = parse(&["--properties-file", "/nonexistent/p.conf", "app.jar"]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::illegal_argument(
                "requirement failed: Properties file /nonexistent/p.conf does not exist"
            )
        );
    }

    #[test]
    fn master_and_deploy_mode_may_come_from_properties() {
        let args = parse_raw(&[
            "--class",
            "K",
            "--conf",
            "spark.master=yarn",
            "--conf",
            "spark.submit.deployMode=cluster",
            "app.jar",
        ]);
        assert!(args.into_request(no_defaults()).is_ok());
    }

    #[test]
    fn non_spark_keys_warn() {
        let req = request(&["--conf", "foo=1", "--conf", "spark.a=2", "app.jar"]).unwrap();
        // spark.a is kept (a Spark property) but nothing reads it: src/conf/keys.rs says so.
        assert_eq!(
            req.warnings,
            vec![
                "Warning: Ignoring non-Spark config property: foo",
                "Warning: spark.a is not read by sparkyard; it has no effect on this run (it is \
                 only recorded in the event log's environment)"
            ]
        );
        assert_eq!(req.conf.get("foo"), None);
    }

    #[test]
    fn supervise_is_ignored_with_warning() {
        let req = request(&["--supervise", "app.jar"]).unwrap();
        assert_eq!(req.warnings, vec![SUPERVISE_WARNING.to_string()]);
    }

    #[test]
    fn conf_without_equals() {
        assert_eq!(
            request(&["--conf", "spark.executor.memory", "app.jar"]).unwrap_err(),
            UserError::spark("Spark config without '=': spark.executor.memory")
        );
    }

    #[test]
    fn conf_splits_on_first_equals() {
        let req = request(&["--conf", "spark.x=a=b", "app.jar"]).unwrap();
        assert_eq!(req.conf.get("spark.x"), Some("a=b"));
    }

    fn spark_err(extra: &[&str]) -> UserError {
        request(extra).unwrap_err()
    }

    #[test]
    fn validation_texts() {
        let cases: &[(&[&str], &str)] = &[
            (
                &[],
                "Must specify a primary resource (JAR or Python or R file)",
            ),
            (
                &["--driver-memory", "0", "a.jar"],
                "Driver memory must be a positive number",
            ),
            (
                &["--driver-memory", "1.5g", "a.jar"],
                "Driver memory must be a positive number",
            ),
            (
                &["--executor-memory", "-1g", "a.jar"],
                "Executor memory must be a positive number",
            ),
            (
                &["--conf", "spark.executor.memory=10q", "a.jar"],
                "Executor memory must be a positive number",
            ),
            (
                &["--driver-cores", "0", "a.jar"],
                "Driver cores must be a positive number",
            ),
            (
                &["--executor-cores", "x", "a.jar"],
                "Executor cores must be a positive number",
            ),
            (
                &["--num-executors", "0", "a.jar"],
                "Number of executors must be a positive number",
            ),
        ];
        for (extra, text) in cases {
            assert_eq!(spark_err(extra), UserError::spark(*text), "{extra:?}");
        }
    }

    #[test]
    fn bare_memory_number_passes_as_bytes() {
        assert!(request(&["--executor-memory", "4096", "a.jar"]).is_ok());
    }

    /// The run's dynamic allocation is its last `--conf`'s, read as Scala's `toBoolean` (the
    /// replay's report and its recorded draws both ask it).
    #[test]
    fn dynamic_allocation_is_the_last_confs_boolean_in_any_case() {
        let on = |words: &[&str]| {
            let mut all = words.to_vec();
            all.push("a.jar");
            parse_raw(&all).dynamic_allocation_enabled()
        };
        let conf = "--conf";
        assert!(on(&[conf, "spark.dynamicAllocation.enabled=TRUE"]));
        assert!(on(&[conf, "spark.dynamicAllocation.enabled= true "]));
        assert!(!on(&[]));
        assert!(!on(&[
            conf,
            "spark.dynamicAllocation.enabled=true",
            conf,
            "spark.dynamicAllocation.enabled=false",
        ]));
    }

    #[test]
    fn num_executors_zero_allowed_with_dynamic_allocation() {
        let extra = [
            "--conf",
            "spark.dynamicAllocation.enabled=TRUE",
            "--num-executors",
            "0",
            "a.jar",
        ];
        assert!(request(&extra).is_ok());
    }

    #[test]
    fn master_must_be_yarn() {
        let args = parse_raw(&[
            "--master",
            "local[*]",
            "--deploy-mode",
            "cluster",
            "--class",
            "K",
            "a.jar",
        ]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::usage("sparkyard simulates only --master yarn, not 'local[*]'")
        );
        let args = parse_raw(&["--deploy-mode", "cluster", "--class", "K", "a.jar"]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::usage(
                "sparkyard simulates only --master yarn; no master was given (spark-submit's \
                 default is local[*])"
            )
        );
    }

    #[test]
    fn client_mode_is_refused() {
        let expected = UserError::usage(
            "sparkyard simulates cluster deploy mode only: pass --deploy-mode cluster \
             (spark-submit's default is client)",
        );
        let explicit = parse_raw(&[
            "--master",
            "yarn",
            "--deploy-mode",
            "client",
            "--class",
            "K",
            "a.jar",
        ]);
        assert_eq!(explicit.into_request(no_defaults()).unwrap_err(), expected);
        let implicit = parse_raw(&["--master", "yarn", "--class", "K", "a.jar"]);
        assert_eq!(implicit.into_request(no_defaults()).unwrap_err(), expected);
    }

    #[test]
    fn bad_deploy_mode_values() {
        // SparkSubmitArguments.handle checks --deploy-mode as it parses it.
        assert_eq!(
            SubmitArgs::from_words(["--master", "yarn", "--deploy-mode", "yarn", "a.jar"])
                .unwrap_err(),
            UserError::spark("--deploy-mode must be either \"client\" or \"cluster\"")
        );
        let args = parse_raw(&[
            "--master",
            "yarn",
            "--conf",
            "spark.submit.deployMode=x",
            "a.jar",
        ]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::spark("Deploy mode must be either client or cluster")
        );
    }

    #[test]
    fn main_class_is_required() {
        let args = parse_raw(&["--master", "yarn", "--deploy-mode", "cluster", "a.jar"]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::spark("No main class set in JAR; please specify one with --class.")
        );
    }

    #[test]
    fn dedicated_flags_map_to_keys() {
        let req = request(&[
            "--num-executors",
            "3",
            "--executor-memory",
            "2g",
            "--executor-cores",
            "2",
            "--driver-memory",
            "3g",
            "--driver-cores",
            "2",
            "--queue",
            "q1",
            "--name",
            "Pi",
            "a.jar",
        ])
        .unwrap();
        let expect = [
            ("spark.executor.instances", "3"),
            ("spark.executor.memory", "2g"),
            ("spark.executor.cores", "2"),
            ("spark.driver.memory", "3g"),
            ("spark.driver.cores", "2"),
            ("spark.yarn.queue", "q1"),
            ("spark.app.name", "Pi"),
        ];
        for (k, v) in expect {
            assert_eq!(req.conf.get(k), Some(v), "{k}");
        }
    }

    #[test]
    fn verbose_report_shape() {
        let args = parse(&[
            "-v",
            "--conf",
            "spark.b=2",
            "--conf",
            "spark.my.password=x",
            "a.jar",
            "7",
        ]);
        let req = args
            .into_request(DefaultsFile::Embedded("spark.a 1\n"))
            .unwrap();
        let report = req.verbose_report();
        let expected_start = "Using properties file: config/spark-defaults.conf (embedded)\n\
                              Adding default property: spark.a=1\n\
                              Parsed arguments:\n  master                  yarn\n  remote                  null\n";
        assert!(report.starts_with(expected_start), "{report}");
        assert!(
            report.contains("\n  childArgs               [7]\n"),
            "{report}"
        );
        assert!(
            report.contains("\n  executorMemory          null\n"),
            "{report}"
        );
        let expected_end = "  verbose                 true\n\n\
                            Spark properties used, including those specified through\n \
                            --conf and those from the properties file \
                            config/spark-defaults.conf (embedded):\n  (spark.a,1)\n  (spark.b,2)\n  \
                            (spark.my.password,*********(redacted))\n";
        assert!(report.ends_with(expected_end), "{report}");
    }

    // SparkSubmit.scala prepareSubmitEnvironment: Spark 4.0 dropped `yarn-cluster`; any master
    // that is not `yarn` nor starts with spark/k8s/local is this error.
    #[test]
    fn yarn_cluster_master_is_spark_4_error() {
        let args = parse_raw(&["--master", "yarn-cluster", "--class", "K", "a.jar"]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
            UserError::spark("Master must either be yarn or start with spark, k8s, or local")
        );
    }

    // SparkSubmit.scala kill/requestStatus -> SparkSubmitUtils.getSubmitOperations: no
    // SparkSubmitOperation is registered for YARN in Spark 4.0.
    #[test]
    fn kill_and_status_are_refused_for_yarn() {
        for flag in ["--kill", "--status"] {
            let args = parse_raw(&["--master", "yarn", flag, "application_1_0001"]);
            assert_eq!(
                args.into_request(no_defaults()).unwrap_err(),
                UserError::illegal_argument(
                    "No external SparkSubmitOperations clients found for master url: 'yarn'"
                ),
                "{flag}"
            );
        }
        // SparkSubmitArguments.handle: one action only.
        assert_eq!(
            SubmitArgs::from_words(["--kill", "a", "--status", "b"]).unwrap_err(),
            UserError::spark("Action cannot be both KILL and REQUEST_STATUS.")
        );
    }

    // SparkSubmitArguments.validateSubmitArguments.
    #[test]
    fn more_validation_texts() {
        let cases: &[(&[&str], UserError)] = &[
            (
                &["--total-executor-cores", "0", "a.jar"],
                UserError::spark("Total executor cores must be a positive number"),
            ),
            (
                &["--proxy-user", "bob", "--principal", "bob@EX", "a.jar"],
                UserError::spark("Only one of --proxy-user or --principal can be provided."),
            ),
            (
                &["--remote", "sc://h:15002", "a.jar"],
                UserError::spark("Remote cannot be specified with master and/or deploy mode."),
            ),
        ];
        for (extra, err) in cases {
            assert_eq!(&spark_err(extra), err, "{extra:?}");
        }
    }

    // SparkSubmit.prepareSubmitEnvironment: the keytab must exist before the (Kerberos) login.
    #[test]
    fn keytab_must_exist() {
        let err = spark_err(&[
            "--principal",
            "u@EX",
            "--keytab",
            "/nonexistent/u.keytab",
            "a.jar",
        ]);
        assert_eq!(
            err,
            UserError::illegal_argument(
                "requirement failed: Keytab file: /nonexistent/u.keytab does not exist"
            )
        );
        let dir = TestDir::new("submit-keytab");
        let keytab = temp_file(&dir, "u.keytab", "k");
        let k = keytab.to_str().unwrap();
        let req = request(&["--principal", "u@EX", "--keytab", k, "a.jar"]).unwrap();
        assert_eq!(req.conf.get("spark.kerberos.principal"), Some("u@EX"));
        assert_eq!(req.conf.get("spark.kerberos.keytab"), Some(k));
    }

    // MavenUtils.loadIvySettings: `Scheme $scheme not supported in spark.jars.ivySettings`.
    #[test]
    fn ivy_settings_scheme() {
        for (value, scheme) in [
            ("local:///opt/ivy.xml", "local"),
            ("hdfs://nn/ivy.xml", "hdfs"),
        ] {
            let conf = format!("spark.jars.ivySettings={value}");
            assert_eq!(
                spark_err(&["--conf", &conf, "a.jar"]),
                UserError::illegal_argument(format!(
                    "Scheme {scheme} not supported in spark.jars.ivySettings"
                ))
            );
        }
        assert_eq!(
            spark_err(&[
                "--conf",
                "spark.jars.ivySettings=/nonexistent/ivy.xml",
                "a.jar"
            ]),
            UserError::illegal_argument(
                "requirement failed: Ivy settings file /nonexistent/ivy.xml does not exist"
            )
        );
    }

    // SparkSubmit.prepareSubmitEnvironment's OptionAssigners for YARN cluster mode: --jars,
    // --files, --archives and --py-files become spark.yarn.dist.* (merged with the property),
    // resolved to URIs (Utils.resolveURIs); the driver flags become spark.driver.extra*.
    #[test]
    fn yarn_option_assigners() {
        let req = request(&[
            "--jars",
            "lib/a.jar,hdfs://nn/b.jar",
            "--files",
            "conf/app.conf#app.conf",
            "--archives",
            "env.tgz#env",
            "--py-files",
            "deps.zip",
            "--conf",
            "spark.yarn.dist.jars=/x/c.jar",
            "--driver-java-options",
            "-Dx=1",
            "--driver-class-path",
            "/opt/extra/*",
            "--driver-library-path",
            "/opt/native",
            "--queue",
            "q1",
            "a.jar",
        ])
        .unwrap();
        let expect = [
            (
                "spark.yarn.dist.jars",
                "file:/x/c.jar,file:/opt/spark/lib/a.jar,hdfs://nn/b.jar",
            ),
            (
                "spark.yarn.dist.files",
                "file:/opt/spark/conf/app.conf#app.conf",
            ),
            ("spark.yarn.dist.archives", "file:/opt/spark/env.tgz#env"),
            ("spark.yarn.dist.pyFiles", "file:/opt/spark/deps.zip"),
            ("spark.submit.pyFiles", "file:/opt/spark/deps.zip"),
            ("spark.driver.extraJavaOptions", "-Dx=1"),
            ("spark.driver.extraClassPath", "/opt/extra/*"),
            ("spark.driver.extraLibraryPath", "/opt/native"),
            ("spark.yarn.queue", "q1"),
        ];
        for (k, v) in expect {
            assert_eq!(req.conf.get(k), Some(v), "{k}");
        }
        assert_eq!(req.conf.get("spark.jars"), None);
        let report = req.verbose_report();
        assert!(
            report.contains(
                "\n  jars                    file:/opt/spark/lib/a.jar,hdfs://nn/b.jar\n"
            ),
            "{report}"
        );
        assert!(
            report.contains("\n  primaryResource         file:/opt/spark/a.jar\n"),
            "{report}"
        );
        assert!(
            report.contains("\n  driverExtraJavaOptions  -Dx=1\n"),
            "{report}"
        );
    }

    // Utils.resolveURI.
    #[test]
    fn resolve_uri_rules() {
        assert_eq!(resolve_uri("a.jar"), "file:/opt/spark/a.jar");
        assert_eq!(resolve_uri("../x/./a.jar"), "file:/opt/x/a.jar");
        assert_eq!(resolve_uri("/abs/a.jar#b"), "file:/abs/a.jar#b");
        assert_eq!(resolve_uri("hdfs://nn:8020/a.jar"), "hdfs://nn:8020/a.jar");
        assert_eq!(resolve_uri("local:/opt/a.jar"), "local:/opt/a.jar");
        assert_eq!(
            resolve_uris("a.jar,, b.jar"),
            "file:/opt/spark/a.jar,file:/opt/spark/ b.jar"
        );
    }

    // ConfigReader (spark-common-utils 4.0.0): `${env:X}` / `${system:X}` come from the
    // reading JVM's environment and system properties, which sparkyard does not model: said
    // once per key, naming the references but not the value.
    #[test]
    fn environment_references_are_said_not_resolved() {
        let req = request(&[
            "--conf",
            "spark.yarn.historyServer.address=${env:HISTORY_HOST}:18080",
            "--conf",
            "spark.executorEnv.TOKEN=${system:user.name}-secret-${spark.app.name}",
            "--conf",
            "spark.app.name=${spark.driver.memory}",
            "a.jar",
        ])
        .unwrap();
        let env: Vec<&String> = req
            .warnings
            .iter()
            .filter(|w| w.contains("does not resolve"))
            .collect();
        assert_eq!(env.len(), 2, "{:?}", req.warnings);
        assert!(
            env[0].starts_with("Warning: spark.executorEnv.TOKEN refers to ${system:user.name}:")
        );
        assert!(!env[0].contains("secret"));
        assert!(env[1].starts_with(
            "Warning: spark.yarn.historyServer.address refers to ${env:HISTORY_HOST}:"
        ));
    }

    // Spark ignores --total-executor-cores on YARN (no OptionAssigner): sparkyard says so.
    #[test]
    fn standalone_only_flags_warn() {
        let req = request(&[
            "--total-executor-cores",
            "8",
            "--packages",
            "g:a:1",
            "a.jar",
        ])
        .unwrap();
        assert_eq!(req.conf.get("spark.cores.max"), None);
        assert_eq!(req.warnings.len(), 2, "{:?}", req.warnings);
        assert!(req.warnings[0].contains("--total-executor-cores 8"));
        assert!(req.warnings[1].contains("--packages g:a:1"));
        let report = req.verbose_report();
        assert!(
            report.contains("\n  totalExecutorCores      8\n"),
            "{report}"
        );
        assert!(
            report.contains("\n  packages                g:a:1\n"),
            "{report}"
        );
    }

    #[test]
    fn python_and_r_are_not_simulated() {
        for primary in ["pi.py", "pi.R"] {
            let err = spark_err(&[primary]);
            assert!(
                matches!(&err, UserError::Usage(m) if m.contains("sparkyard simulates only JVM")),
                "{err:?}"
            );
        }
    }

    #[test]
    fn proxy_user_is_recorded() {
        let req = request(&["--proxy-user", "alice", "a.jar"]).unwrap();
        assert_eq!(req.parsed.proxy_user.as_deref(), Some("alice"));
    }

    // SparkSubmitCommandBuilder: every Spark 4.0 option is accepted (none of clap's refusals).
    #[test]
    fn every_spark_option_parses() {
        for aliases in super::option_parser::OPTS {
            for name in *aliases {
                let value = if *name == "--deploy-mode" {
                    "cluster"
                } else {
                    "v"
                };
                let args = SubmitArgs::from_words([*name, value, "a.jar"]);
                assert!(args.is_ok(), "{name}: {args:?}");
            }
        }
        for aliases in super::option_parser::SWITCHES {
            for name in *aliases {
                assert!(SubmitArgs::from_words([*name, "a.jar"]).is_ok(), "{name}");
            }
        }
        assert_eq!(
            SubmitArgs::from_words(["--foo", "a.jar"]).unwrap_err(),
            UserError::launcher("Unrecognized option: --foo", option_parser::USAGE)
        );
    }

    #[test]
    fn class_warning_names_the_registry() {
        assert_eq!(class_warning("org.apache.spark.examples.SparkPi"), None);
        assert_eq!(class_warning("org.apache.spark.examples.JavaSparkPi"), None);
        let w = class_warning("com.acme.Etl").expect("a warning");
        for class in sparkyard_actors::simulation::facts::simulated_classes() {
            assert!(w.contains(class), "{w}");
        }
        assert!(w.contains("--class com.acme.Etl"), "{w}");
    }

    // spark.yarn.historyServer.address acts (the AM's final tracking URL): no warning.
    #[test]
    fn the_history_server_address_is_simulated_without_a_warning() {
        let req = request(&[
            "--conf",
            "spark.yarn.historyServer.address=h:18080",
            "a.jar",
        ])
        .unwrap();
        assert!(req.warnings.is_empty(), "{:?}", req.warnings);
    }

    // Decommissioning migrates to peers only: a fallback storage path is said, not swallowed.
    #[test]
    fn keys_not_simulated_yet_warn() {
        let req = request(&[
            "--conf",
            "spark.storage.decommission.fallbackStorage.path=hdfs:///fb/",
            "a.jar",
        ])
        .unwrap();
        assert_eq!(
            req.warnings,
            vec![
                "Warning: spark.storage.decommission.fallbackStorage.path is not simulated by sparkyard yet (decommissioning migrates to peers only); it has no effect on this run".to_string()
            ]
        );
    }
}
