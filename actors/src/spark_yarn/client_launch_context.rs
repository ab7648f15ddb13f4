//! The AM container's launch context as plain functions of the run's settings (Spark 4.0.0's
//! `org.apache.spark.deploy.yarn.Client`: `prepareLocalResources`' distributed files and their
//! lines, `setupLaunchEnv`'s environment, the AM's command): what the Client actor logs and
//! what `client_submission` puts in the submission; the AM and the executors' launch share the
//! environment's prefixing (`add_prefixed_env`).

use crate::{info, warn};
use sparkyard_messages::records::{LocalResource, RpcFailure};
use std::collections::BTreeMap;

/// The Client's logger (its lines are the spark-submit process's).
const TARGET: &str = "submit::Client";

/// A file of `spark.yarn.dist.*` as `Client.distribute` handles it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributedFile {
    pub resource: LocalResource,
    /// The local file the Client uploads (`Uploading resource ...`); `None` for a file already
    /// on a remote file system (`Source and destination file systems are the same`).
    pub upload_from: Option<String>,
}

/// Which of `Client.addDistributedUri`'s sets already held an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeated {
    /// The same URI (`distributedUris`).
    Path,
    /// Another URI with the same file name (`distributedNames`).
    Name,
}

/// One `spark.yarn.dist.*` entry in `prepareLocalResources`' order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DistEntry {
    Distributed(DistributedFile),
    /// Skipped with a warning (`addDistributedUri` returned false): `Same path resource <uri>
    /// added multiple times to distributed cache.` or `Same name resource ...`.
    Repeated {
        repeated: Repeated,
        uri: String,
    },
}

/// What `prepareLocalResources` makes of the user's files: the entries in order, up to the
/// file or archive added twice that makes it throw (then `refused`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributedCache {
    pub entries: Vec<DistEntry>,
    /// `IllegalArgumentException: Attempt to add (<entry>) multiple times to the distributed
    /// cache.`: a repeated `spark.yarn.dist.files` / `.archives` entry (a repeated jar or pyFile
    /// is only skipped).
    pub refused: Option<RpcFailure>,
}

impl DistributedCache {
    /// The files that become LocalResources.
    pub fn distributed(&self) -> impl Iterator<Item = &DistributedFile> {
        self.entries.iter().filter_map(|e| match e {
            DistEntry::Distributed(d) => Some(d),
            DistEntry::Repeated { .. } => None,
        })
    }
}

/// `Client.addDistributedUri`'s two sets, shared by every `distribute` call of one
/// `prepareLocalResources`.
struct DistributedUris {
    uris: Vec<String>,
    names: Vec<String>,
}

impl DistributedUris {
    /// `addDistributedUri`: the URI string first, then `new File(uri.getPath).getName`.
    fn add(&mut self, uri: &str, name: &str) -> Result<(), Repeated> {
        if self.uris.iter().any(|u| u == uri) {
            return Err(Repeated::Path);
        }
        if self.names.iter().any(|n| n == name) {
            return Err(Repeated::Name);
        }
        self.uris.push(uri.to_string());
        self.names.push(name.to_string());
        Ok(())
    }
}

/// `Utils.resolveURI`: an entry with a scheme as written, a bare path as a `file:` URI of its
/// absolute path (spark-submit runs in `/opt/spark`), the fragment kept.
fn resolve_uri(entry: &str) -> String {
    let (path, fragment) = match entry.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (entry, None),
    };
    if path.contains(':') {
        return entry.to_string();
    }
    let frag = fragment.map(|f| format!("#{f}")).unwrap_or_default();
    format!("file:{}{frag}", absolute(path))
}

/// `Client.prepareLocalResources` for the user's files, in Spark's order (spark-yarn_2.13-4.0.0
/// jar: the `(JARS_TO_DISTRIBUTE, FILE) :: (FILES_TO_DISTRIBUTE, FILE) ::
/// (ARCHIVES_TO_DISTRIBUTE, ARCHIVE)` list, then `PY_FILES`): `spark.yarn.dist.jars`,
/// `spark.yarn.dist.files`, `spark.yarn.dist.archives` (ARCHIVE), then `spark.yarn.dist.pyFiles`,
/// a `.py` one under `__pyfiles__/` (`LOCALIZED_PYTHON_DIR`), a `.zip` / `.egg` at the top;
/// each linked under its `#fragment` or file name; `local:` URIs are left on the nodes. The
/// SPARK_HOME archive (`__spark_libs__<libs_stamp_ms>.zip`) and the application jar were
/// distributed first, so their names count as taken.
pub fn distributed_files(
    s: &crate::world::config::SparkSettings,
    staging: &str,
    libs_stamp_ms: u64,
) -> DistributedCache {
    const PY_FILES: &str = "spark.yarn.dist.pyFiles";
    let lists = [
        ("spark.yarn.dist.jars", false),
        ("spark.yarn.dist.files", false),
        ("spark.yarn.dist.archives", true),
        (PY_FILES, false),
    ];
    let jar = resolve_uri(&s.primary_resource);
    let mut seen = DistributedUris {
        names: vec![
            format!("__spark_libs__{libs_stamp_ms}.zip"),
            file_name(&jar).to_string(),
        ],
        uris: vec![jar],
    };
    let mut entries = Vec::new();
    for (key, archive) in lists {
        let Some(value) = s.properties.get(key) else {
            continue;
        };
        for uri in value.split(',').map(str::trim).filter(|u| !u.is_empty()) {
            // Client.distribute: a `local:` URI is already on every node; it returns `(true,
            // path)` without adding a resource or uploading.
            if uri.starts_with("local:") {
                continue;
            }
            let (path, fragment) = match uri.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (uri, None),
            };
            let name = file_name(path);
            let resolved = resolve_uri(uri);
            if let Err(repeated) = seen.add(&resolved, name) {
                entries.push(DistEntry::Repeated {
                    repeated,
                    uri: resolved,
                });
                // prepareLocalResources: `if (addToClasspath) { if (localizedPath != null) ... }
                // else if (localizedPath == null) throw new IllegalArgumentException(...)` for
                // the three lists; the PY_FILES loop ignores what distribute returns.
                if key != PY_FILES && key != "spark.yarn.dist.jars" {
                    let refused = RpcFailure::new(
                        "java.lang.IllegalArgumentException",
                        format!("Attempt to add ({uri}) multiple times to the distributed cache."),
                    );
                    return DistributedCache {
                        entries,
                        refused: Some(refused),
                    };
                }
                continue;
            }
            // prepareLocalResources: `targetDir = if (f.endsWith(".py"))
            // Some(LOCALIZED_PYTHON_DIR) else None`, on the whole entry.
            let dir = if key == PY_FILES && uri.ends_with(".py") {
                "__pyfiles__/"
            } else {
                ""
            };
            let link = format!("{dir}{}", fragment.unwrap_or(name));
            let local = path.starts_with("file:") || !path.contains(':');
            let (source, upload_from) = if local {
                (format!("{staging}/{name}"), Some(path.to_string()))
            } else {
                (path.to_string(), None)
            };
            entries.push(DistEntry::Distributed(DistributedFile {
                resource: LocalResource {
                    link,
                    source,
                    archive,
                },
                upload_from,
            }));
        }
    }
    DistributedCache {
        entries,
        refused: None,
    }
}

/// What `Client.distribute` logs for an entry: its upload, that it stays on its remote file
/// system, or (`addDistributedUri`) that it was added before.
pub fn log_dist_entry(log: &crate::kernel::logs::ProcessLog, entry: &DistEntry) {
    match entry {
        DistEntry::Distributed(d) => match &d.upload_from {
            Some(local) => info!(
                log,
                TARGET, "Uploading resource {local} -> {}", d.resource.source
            ),
            None => info!(
                log,
                TARGET,
                "Source and destination file systems are the same. Not copying {}",
                d.resource.source
            ),
        },
        DistEntry::Repeated { repeated, uri } => {
            let what = match repeated {
                Repeated::Path => "path",
                Repeated::Name => "name",
            };
            warn!(
                log,
                TARGET, "Same {what} resource {uri} added multiple times to distributed cache."
            );
        }
    }
}

/// `new File(uri.getPath).getName`: the last segment of the path, without a fragment.
fn file_name(uri: &str) -> &str {
    let path = uri.split_once('#').map_or(uri, |(p, _)| p);
    path.rsplit('/').next().unwrap_or(path)
}

/// `Client.populateClasspath` (cluster mode, no user-classpath-first): the working directory,
/// the localized conf, Spark's jars, the cluster's Hadoop classpath and the localized Hadoop
/// conf; `{{PWD}}` and `<CPS>` are expanded by the NodeManager.
pub const CONTAINER_CLASSPATH: &str = "{{PWD}}<CPS>{{PWD}}/__spark_conf__<CPS>{{PWD}}/__spark_libs__/*<CPS>$HADOOP_CONF_DIR<CPS>$HADOOP_COMMON_HOME/share/hadoop/common/*<CPS>$HADOOP_COMMON_HOME/share/hadoop/common/lib/*<CPS>$HADOOP_HDFS_HOME/share/hadoop/hdfs/*<CPS>$HADOOP_HDFS_HOME/share/hadoop/hdfs/lib/*<CPS>$HADOOP_YARN_HOME/share/hadoop/yarn/*<CPS>$HADOOP_YARN_HOME/share/hadoop/yarn/lib/*<CPS>{{PWD}}/__spark_conf__/__hadoop_conf__";

/// `Client.setupLaunchEnv` for the AM (cluster mode) from the run's settings.
pub fn am_environment(
    s: &crate::world::config::SparkSettings,
    staging: String,
    user: &str,
) -> Vec<(String, String)> {
    am_launch_environment(staging, user, &s.properties)
}

/// `Client.setupLaunchEnv` (spark-yarn_2.13-4.0.0.jar) for the AM in cluster mode: the
/// classpath, `SPARK_YARN_STAGING_DIR`, `SPARK_PREFER_IPV6` (`Utils.preferIPv6`: the client
/// JVM's `java.net.preferIPv6Addresses`, unset so "false"), then every
/// `spark.yarn.appMasterEnv.NAME` through `YarnSparkHadoopUtil.addPathToEnvironment` (a name
/// already set, whichever it is, gets `<CPS>` and the value appended), and `SPARK_USER` only
/// when no appMasterEnv entry set it. The list keeps `SPARK_USER` third (YARN gets a map).
pub fn am_launch_environment(
    staging: String,
    user: &str,
    properties: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    const PREFIX: &str = "spark.yarn.appMasterEnv.";
    let user_set = properties.contains_key(&format!("{PREFIX}SPARK_USER"));
    let mut env = vec![
        ("CLASSPATH".to_string(), CONTAINER_CLASSPATH.to_string()),
        ("SPARK_YARN_STAGING_DIR".to_string(), staging),
    ];
    if !user_set {
        env.push(("SPARK_USER".to_string(), user.to_string()));
    }
    env.push(("SPARK_PREFER_IPV6".to_string(), "false".to_string()));
    for (name, value) in prefixed(properties, PREFIX) {
        add_path_to_environment(&mut env, name, value);
    }
    env
}

/// `YarnSparkHadoopUtil.addPathToEnvironment`: a variable already set gets
/// `ApplicationConstants.CLASS_PATH_SEPARATOR` (`<CPS>`) and the value appended.
fn add_path_to_environment(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    match env.iter_mut().find(|(k, _)| k == name) {
        Some((_, old)) => {
            old.push_str("<CPS>");
            old.push_str(value);
        }
        None => env.push((name.to_string(), value.to_string())),
    }
}

/// The `prefix + NAME` properties as (NAME, value), in key order.
fn prefixed<'a>(
    properties: &'a BTreeMap<String, String>,
    prefix: &'a str,
) -> impl Iterator<Item = (&'a str, &'a str)> {
    properties
        .range(prefix.to_string()..)
        .map_while(move |(k, v)| k.strip_prefix(prefix).map(|name| (name, v.as_str())))
}

/// `ExecutorRunnable.prepareEnvironment`'s `sparkConf.getExecutorEnv`: `prefix + NAME = value`
/// properties as `NAME=value`, a `CLASSPATH` one through `YarnSparkHadoopUtil
/// .addPathToEnvironment` (appended with `<CPS>`), any other replacing, in key order.
pub fn add_prefixed_env(
    env: &mut Vec<(String, String)>,
    properties: &BTreeMap<String, String>,
    prefix: &str,
) {
    for (name, value) in prefixed(properties, prefix) {
        if name == "CLASSPATH" {
            add_path_to_environment(env, name, value);
            continue;
        }
        match env.iter_mut().find(|(k, _)| k == name) {
            Some((_, old)) => *old = value.to_string(),
            None => env.push((name.to_string(), value.to_string())),
        }
    }
}

pub fn absolute(path: &str) -> String {
    if path.starts_with('/') || path.contains(':') {
        path.to_string()
    } else {
        format!("/opt/spark/{path}")
    }
}

/// The AM command as `Client.createContainerLaunchContext` builds it in cluster mode: `-Xmx`,
/// `JavaModuleOptions.defaultModuleOptions()` (one unescaped element), the temp dir, the user's
/// `spark.driver.extraJavaOptions` split, `{{APP_ID}}` substituted and escaped, the log dir.
pub fn am_command(s: &crate::world::config::SparkSettings, app_id: &str) -> String {
    let launch = AmLaunch {
        user_class: &s.main_class,
        user_jar: &s.primary_resource,
        user_args: &s.app_args,
        driver_memory_mb: s.driver_memory_mb,
        driver_java_options: s
            .properties
            .get("spark.driver.extraJavaOptions")
            .map(String::as_str),
    };
    am_launch_command(&launch, app_id)
}

/// What the AM's command is made of (`ClientArguments` and the driver's settings).
#[derive(Clone, Copy, Debug)]
pub struct AmLaunch<'a> {
    pub user_class: &'a str,
    pub user_jar: &'a str,
    pub user_args: &'a [String],
    pub driver_memory_mb: u64,
    /// `spark.driver.extraJavaOptions`.
    pub driver_java_options: Option<&'a str>,
}

/// `Client.createContainerLaunchContext` (spark-yarn_2.13-4.0.0.jar): `--class` and each
/// `--arg` go through `YarnSparkHadoopUtil.escapeForShell`, `--jar` as given.
pub fn am_launch_command(l: &AmLaunch, app_id: &str) -> String {
    use crate::spark_core::java_options::DEFAULT_MODULE_OPTIONS;
    use crate::spark_yarn::yarn_spark_hadoop_util::{escape_for_shell, join_escaped};
    use sparkyard_messages::jvm_text::split_command_string;
    let mut args = format!(
        "--class {} --jar {}",
        escape_for_shell(l.user_class),
        absolute(l.user_jar)
    );
    for a in l.user_args {
        args.push_str(&format!(" --arg {}", escape_for_shell(a)));
    }
    let driver_opts = l
        .driver_java_options
        .map(|o| {
            let words = split_command_string(o);
            // Utils.substituteAppId
            let words = words.iter().map(|w| w.replace("{{APP_ID}}", app_id));
            format!(" {}", join_escaped(words))
        })
        .unwrap_or_default();
    format!(
        "{{{{JAVA_HOME}}}}/bin/java -server -Xmx{}m {DEFAULT_MODULE_OPTIONS} -Djava.io.tmpdir={{{{PWD}}}}/tmp{driver_opts} -Dspark.yarn.app.container.log.dir=<LOG_DIR> org.apache.spark.deploy.yarn.ApplicationMaster {args} --properties-file {{{{PWD}}}}/__spark_conf__/__spark_conf__.properties --dist-cache-conf {{{{PWD}}}}/__spark_conf__/__spark_dist_cache__.properties 1> <LOG_DIR>/stdout 2> <LOG_DIR>/stderr",
        l.driver_memory_mb
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn value<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
        env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Client.setupLaunchEnv (spark-yarn_2.13-4.0.0.jar): the AM gets SPARK_PREFER_IPV6, its
    /// appMasterEnv entries go through addPathToEnvironment (any variable already set is
    /// appended to with <CPS>), and SPARK_USER is the submitter unless appMasterEnv set it.
    #[test]
    fn the_am_environment_follows_setup_launch_env() {
        let env = am_launch_environment("hdfs://s".into(), "alice", &BTreeMap::new());
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "CLASSPATH",
                "SPARK_YARN_STAGING_DIR",
                "SPARK_USER",
                "SPARK_PREFER_IPV6"
            ]
        );
        assert_eq!(value(&env, "SPARK_PREFER_IPV6"), Some("false"));
        let p = props(&[
            ("spark.yarn.appMasterEnv.CLASSPATH", "/extra/*"),
            ("spark.yarn.appMasterEnv.SPARK_USER", "bob"),
            ("spark.yarn.appMasterEnv.SPARK_YARN_STAGING_DIR", "/x"),
            ("spark.yarn.appMasterEnv.TZ", "UTC"),
            ("spark.yarn.appMasterEnvX", "no"),
        ]);
        let env = am_launch_environment("hdfs://s".into(), "alice", &p);
        assert_eq!(
            value(&env, "CLASSPATH"),
            Some(format!("{CONTAINER_CLASSPATH}<CPS>/extra/*").as_str())
        );
        assert_eq!(value(&env, "SPARK_USER"), Some("bob"));
        assert_eq!(
            value(&env, "SPARK_YARN_STAGING_DIR"),
            Some("hdfs://s<CPS>/x")
        );
        assert_eq!(value(&env, "TZ"), Some("UTC"));
        assert_eq!(env.len(), 5);
    }

    /// ExecutorRunnable.prepareEnvironment (Spark 4.0): of the spark.executorEnv entries only
    /// CLASSPATH is appended to; any other replaces the value.
    #[test]
    fn executor_env_entries_replace_all_but_the_classpath() {
        let mut env = vec![
            ("CLASSPATH".to_string(), "a".to_string()),
            ("SPARK_USER".to_string(), "alice".to_string()),
        ];
        let p = props(&[
            ("spark.executorEnv.CLASSPATH", "b"),
            ("spark.executorEnv.SPARK_USER", "bob"),
        ]);
        add_prefixed_env(&mut env, &p, "spark.executorEnv.");
        assert_eq!(value(&env, "CLASSPATH"), Some("a<CPS>b"));
        assert_eq!(value(&env, "SPARK_USER"), Some("bob"));
    }

    /// Client.createContainerLaunchContext (spark-yarn_2.13-4.0.0.jar): `--class` and every
    /// `--arg` through YarnSparkHadoopUtil.escapeForShell, `--jar` as given, and the driver's
    /// extraJavaOptions with {{APP_ID}} substituted.
    #[test]
    fn the_am_command_escapes_the_class_and_each_argument() {
        let args = ["10".to_string(), "it's $HOME".to_string()];
        let launch = AmLaunch {
            user_class: "org.example.Main",
            user_jar: "/jobs/app.jar",
            user_args: &args,
            driver_memory_mb: 1024,
            driver_java_options: Some("-Dapp={{APP_ID}}"),
        };
        let cmd = am_launch_command(&launch, "application_1_0001");
        assert!(
            cmd.starts_with("{{JAVA_HOME}}/bin/java -server -Xmx1024m "),
            "{cmd}"
        );
        assert!(
            cmd.contains(
                r"org.apache.spark.deploy.yarn.ApplicationMaster --class 'org.example.Main' --jar /jobs/app.jar --arg '10' --arg 'it'\''s \$HOME' --properties-file "
            ),
            "{cmd}"
        );
        assert!(
            cmd.contains(" '-Dapp=application_1_0001' -Dspark.yarn.app.container.log.dir="),
            "{cmd}"
        );
    }
}
