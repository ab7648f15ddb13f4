//! The spark-submit command line and how it becomes one application's Spark properties: owns the
//! flags, the precedence of flags / `--conf` / properties files, spark-submit's validation texts
//! and the `--verbose` report; mirrors `org.apache.spark.deploy.SparkSubmitArguments` (Spark 4.0).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::properties::{load_properties_file, load_properties_text, retain_spark_properties};
use super::spark_conf::SparkConf;
use crate::error::UserError;

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

/// Spark's `Utils.REDACTION_REPLACEMENT_TEXT`.
const REDACTED: &str = "*********(redacted)";

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

// `spark-submit` options (help texts are Spark's usage text, shortened), plus sparkyard's own.
// Value options take the next word even when it starts with `-` (`--executor-memory -1g`), as
// Spark's launcher parser does, so the value reaches Spark's own validation text.
// (Plain comments, not doc comments: clap would turn a doc comment into the `about` text of
// whatever command flattens these arguments.)
#[derive(clap::Args, Debug, Clone)]
pub struct SubmitArgs {
    /// spark://host:port, yarn, k8s://https://host:port, or local (Default: local[*]).
    /// sparkyard simulates only yarn.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "MASTER_URL",
        help_heading = "Spark options"
    )]
    pub master: Option<String>,
    /// Whether to launch the driver program locally ("client") or on one of the worker machines
    /// inside the cluster ("cluster") (Default: client). sparkyard simulates only cluster.
    #[arg(
        long = "deploy-mode",
        allow_hyphen_values = true,
        value_name = "DEPLOY_MODE",
        help_heading = "Spark options"
    )]
    pub deploy_mode: Option<String>,
    /// Your application's main class (for Java / Scala apps).
    #[arg(
        long = "class",
        allow_hyphen_values = true,
        value_name = "CLASS_NAME",
        help_heading = "Spark options"
    )]
    pub main_class: Option<String>,
    /// A name of your application.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "NAME",
        help_heading = "Spark options"
    )]
    pub name: Option<String>,
    /// Arbitrary Spark configuration property.
    #[arg(
        long = "conf",
        short = 'c',
        allow_hyphen_values = true,
        value_name = "PROP=VALUE",
        help_heading = "Spark options"
    )]
    pub conf: Vec<String>,
    /// Path to a file from which to load extra properties. If not specified, this will look for
    /// conf/spark-defaults.conf.
    #[arg(
        long = "properties-file",
        allow_hyphen_values = true,
        value_name = "FILE",
        help_heading = "Spark options"
    )]
    pub properties_file: Option<PathBuf>,
    /// Whether to load properties from conf/spark-defaults.conf, even if --properties-file is
    /// specified.
    #[arg(long = "load-spark-defaults", help_heading = "Spark options")]
    pub load_spark_defaults: bool,
    /// Memory for driver (e.g. 1000M, 2G) (Default: 1024M).
    #[arg(
        long = "driver-memory",
        allow_hyphen_values = true,
        value_name = "MEM",
        help_heading = "Spark options"
    )]
    pub driver_memory: Option<String>,
    /// Number of cores used by the driver, only in cluster mode (Default: 1).
    #[arg(
        long = "driver-cores",
        allow_hyphen_values = true,
        value_name = "NUM",
        help_heading = "Spark options"
    )]
    pub driver_cores: Option<String>,
    /// Memory per executor (e.g. 1000M, 2G) (Default: 1G).
    #[arg(
        long = "executor-memory",
        allow_hyphen_values = true,
        value_name = "MEM",
        help_heading = "Spark options"
    )]
    pub executor_memory: Option<String>,
    /// Number of cores used by each executor (Default: 1 in YARN mode).
    #[arg(
        long = "executor-cores",
        allow_hyphen_values = true,
        value_name = "NUM",
        help_heading = "Spark options"
    )]
    pub executor_cores: Option<String>,
    /// Number of executors to launch (Default: 2). If dynamic allocation is enabled, the initial
    /// number of executors will be at least NUM.
    #[arg(
        long = "num-executors",
        allow_hyphen_values = true,
        value_name = "NUM",
        help_heading = "Spark options"
    )]
    pub num_executors: Option<String>,
    /// The YARN queue to submit to (Default: "default").
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "QUEUE_NAME",
        help_heading = "Spark options"
    )]
    pub queue: Option<String>,
    /// Print additional debug output.
    #[arg(long, short = 'v', help_heading = "Spark options")]
    pub verbose: bool,
    /// Spark standalone with cluster deploy mode only: accepted and ignored (with a warning).
    #[arg(long, help_heading = "Spark options")]
    pub supervise: bool,
    /// sparkyard's cluster file (TOML); default: the embedded 8-node cluster.
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "FILE",
        help_heading = "Simulator options"
    )]
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
    /// The application jar, then its arguments. Everything after the jar goes to the application,
    /// even words starting with `--`, as with spark-submit.
    #[arg(value_name = "APP_JAR [APP_ARGS]", trailing_var_arg = true, num_args = 0..)]
    pub app: Vec<String>,
}

/// No flags given: the same values clap fills in.
impl Default for SubmitArgs {
    fn default() -> Self {
        SubmitArgs {
            master: None,
            deploy_mode: None,
            main_class: None,
            name: None,
            conf: Vec::new(),
            properties_file: None,
            load_spark_defaults: false,
            driver_memory: None,
            driver_cores: None,
            executor_memory: None,
            executor_cores: None,
            num_executors: None,
            queue: None,
            verbose: false,
            supervise: false,
            cluster: None,
            seed: DEFAULT_SEED,
            log_dir: PathBuf::from(DEFAULT_LOG_DIR),
            quiet: false,
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
fn check_master(master: Option<&str>) -> Result<(), UserError> {
    match master {
        Some("yarn") => Ok(()),
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

/// The values spark-submit validates: the flag, else the Spark property (env vars are not read,
/// so runs are reproducible).
struct Resolved {
    driver_memory: Option<String>,
    driver_cores: Option<String>,
    executor_memory: Option<String>,
    executor_cores: Option<String>,
    num_executors: Option<String>,
    queue: Option<String>,
    dynamic_allocation: bool,
}

fn pick(flag: &Option<String>, props: &BTreeMap<String, String>, key: &str) -> Option<String> {
    flag.clone().or_else(|| props.get(key).cloned())
}

impl Resolved {
    fn new(args: &SubmitArgs, props: &BTreeMap<String, String>) -> Self {
        let dynamic = props.get("spark.dynamicAllocation.enabled");
        Resolved {
            driver_memory: pick(&args.driver_memory, props, "spark.driver.memory"),
            driver_cores: pick(&args.driver_cores, props, "spark.driver.cores"),
            executor_memory: pick(&args.executor_memory, props, "spark.executor.memory"),
            executor_cores: pick(&args.executor_cores, props, "spark.executor.cores"),
            num_executors: pick(&args.num_executors, props, "spark.executor.instances"),
            queue: pick(&args.queue, props, "spark.yarn.queue"),
            dynamic_allocation: dynamic.is_some_and(|v| v.eq_ignore_ascii_case("true")),
        }
    }

    /// The (key, value) pairs the dedicated flags put into the Spark conf (`OptionAssigner`).
    fn assigned(&self) -> Vec<(&'static str, &String)> {
        let fields = [
            ("spark.driver.memory", &self.driver_memory),
            ("spark.driver.cores", &self.driver_cores),
            ("spark.executor.memory", &self.executor_memory),
            ("spark.executor.cores", &self.executor_cores),
            ("spark.executor.instances", &self.num_executors),
            ("spark.yarn.queue", &self.queue),
        ];
        fields
            .into_iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
            .collect()
    }
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

/// `validateSubmitArguments`, in Spark's order.
fn validate(r: &Resolved, has_primary: bool) -> Result<(), UserError> {
    if !has_primary {
        let message = "Must specify a primary resource (JAR or Python or R file)";
        return Err(UserError::spark(message));
    }
    let checks: [PositiveCheck; 4] = [
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
    ];
    for (value, ok, message) in checks {
        require_positive(value, ok, message)?;
    }
    // With dynamic allocation the executor count is only a starting point and may be 0.
    if !r.dynamic_allocation {
        let message = "Number of executors must be a positive number";
        require_positive(&r.num_executors, positive_int, message)?;
    }
    Ok(())
}

/// `new File(primaryResource).getName()`: the last path segment.
fn file_name(resource: &str) -> String {
    resource.rsplit('/').next().unwrap_or(resource).to_string()
}

/// `Utils.redact` with the default `spark.redaction.regex`
/// `(?i)secret|password|token|access[.]?key`, matched against the key or the value.
fn is_sensitive(text: &str) -> bool {
    let lower = text.to_lowercase();
    ["secret", "password", "token", "accesskey", "access.key"]
        .iter()
        .any(|p| lower.contains(p))
}

fn redact<'a>(key: &str, value: &'a str) -> &'a str {
    if is_sensitive(key) || is_sensitive(value) {
        REDACTED
    } else {
        value
    }
}

/// `sparkyard submit`'s arguments as a command of their own (for [`SubmitArgs::from_words`]).
#[derive(clap::Parser)]
struct SubmitWords {
    #[command(flatten)]
    args: SubmitArgs,
}

impl SubmitArgs {
    /// Parses spark-submit's words (what follows `sparkyard submit`), as a scenario file or a
    /// test writes them. The caller words the error for where the words came from.
    pub fn from_words<I, T>(words: I) -> Result<SubmitArgs, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::Parser;
        let argv = std::iter::once(std::ffi::OsString::from("submit"))
            .chain(words.into_iter().map(Into::into));
        SubmitWords::try_parse_from(argv).map(|w| w.args)
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
        if self.supervise {
            warnings.push(SUPERVISE_WARNING.to_string());
        }
        let resolved = Resolved::new(&self, &props);
        validate(&resolved, !self.app.is_empty())?;
        check_master(
            self.master
                .as_deref()
                .or(props.get("spark.master").map(String::as_str)),
        )?;
        let mode = self
            .deploy_mode
            .as_deref()
            .or(props.get("spark.submit.deployMode").map(String::as_str));
        check_deploy_mode(mode)?;
        let main_class = self.main_class.clone().ok_or_else(|| {
            UserError::spark("No main class set in JAR; please specify one with --class.")
        })?;
        info.submit_properties = props.clone();
        let conf = self.final_conf(props, &resolved, &main_class);
        Ok(self.request(conf, main_class, warnings, shown_file, info))
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
        resolved: &Resolved,
        main_class: &str,
    ) -> SparkConf {
        let name = self.app_name(&props, main_class);
        let mut conf = SparkConf::from_map(props);
        for (key, value) in resolved.assigned() {
            conf.set(key, value.as_str());
        }
        conf.set("spark.app.name", name);
        conf.set("spark.master", "yarn");
        conf.set("spark.submit.deployMode", "cluster");
        conf
    }

    fn request(
        self,
        conf: SparkConf,
        main_class: String,
        warnings: Vec<String>,
        properties_file: Option<String>,
        verbose_info: VerboseInfo,
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
            cluster: self.cluster,
            seed: self.seed,
            log_dir: self.log_dir,
            quiet: self.quiet,
            verbose_info,
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
            for (k, v) in entries {
                out.push(format!("Adding default property: {k}={}", redact(k, v)));
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

    /// `(name, value)` rows of `Parsed arguments:`, as SparkSubmitArguments resolved them.
    fn parsed_rows(&self) -> Vec<(&'static str, String)> {
        let get = |key: &str| self.conf.get(key).unwrap_or("null").to_string();
        let file = self
            .properties_file
            .clone()
            .unwrap_or_else(|| "null".to_string());
        vec![
            ("master", "yarn".to_string()),
            ("remote", "null".to_string()),
            ("deployMode", "cluster".to_string()),
            ("executorMemory", get("spark.executor.memory")),
            ("executorCores", get("spark.executor.cores")),
            ("totalExecutorCores", get("spark.cores.max")),
            ("propertiesFile", file),
            ("driverMemory", get("spark.driver.memory")),
            ("driverCores", get("spark.driver.cores")),
            ("driverExtraClassPath", get("spark.driver.extraClassPath")),
            (
                "driverExtraLibraryPath",
                get("spark.driver.extraLibraryPath"),
            ),
            (
                "driverExtraJavaOptions",
                get("spark.driver.extraJavaOptions"),
            ),
            ("supervise", self.verbose_info.supervise.to_string()),
            ("queue", get("spark.yarn.queue")),
            ("numExecutors", get("spark.executor.instances")),
            ("files", get("spark.files")),
            ("pyFiles", get("spark.submit.pyFiles")),
            ("archives", get("spark.archives")),
            ("mainClass", self.main_class.clone()),
            ("primaryResource", self.primary_resource.clone()),
            ("name", get("spark.app.name")),
            ("childArgs", format!("[{}]", self.app_args.join(" "))),
            ("jars", get("spark.jars")),
            ("packages", get("spark.jars.packages")),
            ("packagesExclusions", get("spark.jars.excludes")),
            ("repositories", get("spark.jars.repositories")),
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
        let lines: Vec<String> = props
            .iter()
            .map(|(k, v)| format!("({k},{})", redact(k, v)))
            .collect();
        s.push_str(&format!("  {}\n", lines.join("\n  ")));
        s
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

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

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("sparkyard-{}-{name}", std::process::id()));
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
            (parsed.seed, &parsed.log_dir),
            (default.seed, &default.log_dir)
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
        let file = temp_file(
            "prec.conf",
            "spark.executor.memory 3g\nspark.executor.cores 3\nspark.yarn.queue fileq\n",
        );
        let defaults = temp_file(
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
        std::fs::remove_file(&file).unwrap();
        std::fs::remove_file(&defaults).unwrap();
        assert_eq!(req.conf.get("spark.executor.memory"), Some("1g"));
        assert_eq!(req.conf.get("spark.executor.cores"), Some("2"));
        assert_eq!(req.conf.get("spark.yarn.queue"), Some("fileq"));
        assert_eq!(req.conf.get("spark.task.cpus"), Some("2"));
    }

    #[test]
    fn defaults_file_skipped_when_properties_file_given() {
        let file = temp_file("only.conf", "spark.yarn.queue fileq\n");
        let args = parse(&["--properties-file", file.to_str().unwrap(), "app.jar"]);
        let req = args
            .into_request(DefaultsFile::Embedded("spark.task.cpus 2\n"))
            .unwrap();
        std::fs::remove_file(&file).unwrap();
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
        assert_eq!(
            req.warnings,
            vec!["Warning: Ignoring non-Spark config property: foo"]
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
        let args = parse_raw(&["--master", "yarn", "--deploy-mode", "yarn", "a.jar"]);
        assert_eq!(
            args.into_request(no_defaults()).unwrap_err(),
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
}
