//! The environment's `Hadoop Properties` as a YARN cluster-mode Spark 4.0.0 driver reports them
//! (`SparkEnv.environmentDetails`: every entry of the SparkContext's `hadoopConfiguration`,
//! which `SparkHadoopUtil.newConfiguration` builds), and the order `JsonProtocol` writes each map
//! of a `SparkListenerEnvironmentUpdate` in (`environmentUpdateToJson`: `toMap` on the sorted
//! sequence, so Scala 2.13's `immutable.HashMap` iteration order).
//!
//! The defaults are `core-default.xml`, `yarn-default.xml` and `mapred-default.xml` of pyspark
//! 4.0.0's `hadoop-client-api-3.4.1.jar`, as `scripts/hadoop-defaults.py` extracted them into
//! `hadoop_defaults.tsv.zst`. Read only when an event log is written. The `System Properties`
//! are the driver JVM's, the AM container's (`system_properties`).

use sparkyard_messages::jvm_text::split_command_string;
use std::collections::BTreeMap;

/// `name<TAB>value` lines (values escaped), sorted, zstd-compressed.
const HADOOP_DEFAULTS: &[u8] = include_bytes!("hadoop_defaults.tsv.zst");

/// `spark.buffer.size`'s default (`internal.config.BUFFER_SIZE`).
const DEFAULT_BUFFER_SIZE: &str = "65536";

/// The driver's Hadoop configuration: Hadoop's defaults, the cluster's site values over them,
/// then what `SparkHadoopUtil.appendS3AndSparkHadoopHiveConfigurations` sets (in its order),
/// sorted by name. `site` is the cluster's core-site / yarn-site (`HadoopConf::site_properties`),
/// `spark` the SparkContext's conf (its `spark.hadoop.fs.s3a.vectored.read.*` defaults included).
pub fn hadoop_properties(
    site: &[(String, String)],
    spark: &[(String, String)],
) -> Vec<(String, String)> {
    let mut conf = hadoop_defaults();
    conf.extend(site.iter().cloned());
    // appendSparkHadoopConfigs: its two "Set by Spark to default values" apply only when no
    // `spark.hadoop.` key names them, the same as setting them before the copy below.
    conf.insert(
        "mapreduce.fileoutputcommitter.algorithm.version".into(),
        "1".into(),
    );
    conf.insert("fs.s3a.downgrade.syncable.exceptions".into(), "true".into());
    for (k, v) in spark {
        if let Some(name) = k.strip_prefix("spark.hadoop.") {
            conf.insert(name.into(), v.clone());
        }
    }
    // appendSparkHiveConfigs: `spark.hive.*` as `hive.*`.
    for (k, v) in spark {
        if let Some(name) = k.strip_prefix("spark.hive.") {
            conf.insert(format!("hive.{name}"), v.clone());
        }
    }
    // Last, over any `spark.hadoop.io.file.buffer.size`: `conf.get(BUFFER_SIZE).toString`.
    let buffer = spark
        .iter()
        .find(|(k, _)| k == "spark.buffer.size")
        .map_or(DEFAULT_BUFFER_SIZE, |(_, v)| v.trim());
    conf.insert("io.file.buffer.size".into(), buffer.into());
    conf.into_iter().collect()
}

/// The three default files' properties, by name (the generator wrote them unique and sorted).
fn hadoop_defaults() -> BTreeMap<String, String> {
    let text = zstd::decode_all(HADOOP_DEFAULTS).expect("the bundled Hadoop defaults decode");
    let text = String::from_utf8(text).expect("the bundled Hadoop defaults are UTF-8");
    text.lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(k, v)| (k.to_string(), unescape(v)))
        .collect()
}

/// Undoes the generator's `\\`, `\n`, `\t`, `\r`.
fn unescape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The JDK build of the driver's JVM: the constants a real pyspark 4.0.0 run's driver reported
/// (OpenJDK 17.0.15+6-Debian-1deb12u1 at `JAVA_HOME`), sorted by name.
const JDK_BUILD: [(&str, &str); 35] = [
    ("file.encoding", "UTF-8"),
    ("file.separator", "/"),
    ("java.class.version", "61.0"),
    ("java.home", JAVA_HOME),
    (
        "java.library.path",
        "/usr/java/packages/lib:/usr/lib/x86_64-linux-gnu/jni:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/usr/lib/jni:/lib:/usr/lib",
    ),
    ("java.runtime.name", "OpenJDK Runtime Environment"),
    ("java.runtime.version", "17.0.15+6-Debian-1deb12u1"),
    ("java.specification.maintenance.version", "1"),
    ("java.specification.name", "Java Platform API Specification"),
    ("java.specification.vendor", "Oracle Corporation"),
    ("java.specification.version", "17"),
    ("java.vendor", JAVA_VENDOR),
    ("java.vendor.url", "https://tracker.debian.org/openjdk-17"),
    ("java.vendor.url.bug", "https://bugs.debian.org/openjdk-17"),
    ("java.version", JAVA_VERSION),
    ("java.version.date", "2025-04-15"),
    ("java.vm.info", "mixed mode, sharing"),
    ("java.vm.name", "OpenJDK 64-Bit Server VM"),
    (
        "java.vm.specification.name",
        "Java Virtual Machine Specification",
    ),
    ("java.vm.specification.vendor", "Oracle Corporation"),
    ("java.vm.specification.version", "17"),
    ("java.vm.vendor", "Debian"),
    ("java.vm.version", "17.0.15+6-Debian-1deb12u1"),
    ("jdk.debug", "release"),
    ("line.separator", "\n"),
    ("native.encoding", "UTF-8"),
    ("path.separator", ":"),
    ("sun.arch.data.model", "64"),
    (
        "sun.boot.library.path",
        "/usr/lib/jvm/java-17-openjdk-amd64/lib",
    ),
    ("sun.cpu.endian", "little"),
    ("sun.io.unicode.encoding", "UnicodeLittle"),
    ("sun.java.launcher", "SUN_STANDARD"),
    ("sun.jnu.encoding", "UTF-8"),
    ("sun.management.compiler", "HotSpot 64-Bit Tiered Compilers"),
    ("user.language", "en"),
];

/// Set when the driver's UI starts Jetty (the Jetty of Spark 4.0.0's jars), as in the real run.
const JETTY_GIT_HASH: &str = "5dfc59a691b748796f922208956bd1f2794bcd16";

/// The node the driver runs on, as the real run's host reported it (a simulated node has no
/// kernel of its own).
const NODE: [(&str, &str); 4] = [
    ("os.arch", "amd64"),
    ("os.name", "Linux"),
    ("os.version", "6.18.44-fc-v1252"),
    ("user.timezone", "Etc/UTC"),
];

/// The driver JVM's `JAVA_HOME` (the JDK of `JDK_BUILD`).
pub const JAVA_HOME: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
/// `java.version` and `java.vendor` of `JDK_BUILD` (the JVM Information's `Java Version`).
pub const JAVA_VERSION: &str = "17.0.15";
pub const JAVA_VENDOR: &str = "Debian";

/// The OS user a YARN container runs as: `DefaultContainerExecutor` runs it as the
/// NodeManager's own user, `yarn` (the user of `NM_LOCAL_DIR`, `/tmp/hadoop-${user.name}`).
const CONTAINER_USER: &str = "yarn";

/// What the driver's JVM was started with: the AM container's launch command (as the Client
/// wrote it, `{{PWD}}` unexpanded) and its working directory.
pub struct DriverJvm<'a> {
    pub command: &'a str,
    pub working_dir: &'a str,
    /// `-Xmx` (`spark.driver.memory`), which decides HotSpot's compressed oops mode.
    pub heap_mb: u64,
}

/// The environment's `System Properties` of a YARN cluster-mode driver
/// (`SparkEnv.environmentDetails`: `Utils.getSystemProperties` without `java.class.path` and
/// `spark.*`), sorted: the JDK's and the node's constants, the launch command's `-D` options
/// (`{{PWD}}` expanded as the container's shell does), `user.dir` (the container's working
/// directory), `user.name`, `sun.java.command` (the main class and its arguments) and
/// `java.vm.compressedOopsMode`. `user.home` is left out: the node's passwd entry for the
/// container's user is nowhere in the simulation.
pub fn system_properties(jvm: &DriverJvm) -> Vec<(String, String)> {
    let mut props: BTreeMap<String, String> = JDK_BUILD
        .iter()
        .chain(NODE.iter())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let words = split_command_string(&jvm.command.replace("{{PWD}}", jvm.working_dir));
    // The java binary, its options, then the main class and its arguments up to the redirects.
    let mut rest = words.iter().skip(1).skip_while(|w| w.starts_with('-'));
    for w in words.iter().skip(1).take_while(|w| w.starts_with('-')) {
        if let Some(def) = w.strip_prefix("-D") {
            let (k, v) = def.split_once('=').unwrap_or((def, ""));
            props.insert(k.to_string(), v.to_string());
        }
    }
    let command: Vec<&str> = rest
        .by_ref()
        .take_while(|w| !w.starts_with("1>") && !w.starts_with("2>"))
        .map(String::as_str)
        .collect();
    props.insert("sun.java.command".into(), command.join(" "));
    props.insert("jetty.git.hash".into(), JETTY_GIT_HASH.into());
    props.insert("user.dir".into(), jvm.working_dir.to_string());
    props.insert("user.name".into(), CONTAINER_USER.into());
    if let Some(mode) = compressed_oops_mode(jvm.heap_mb) {
        props.insert("java.vm.compressedOopsMode".into(), mode.into());
    }
    props.retain(|k, _| k != "java.class.path" && !k.starts_with("spark."));
    props.into_iter().collect()
}

/// HotSpot's `CompressedOops::mode_to_string` for a heap of `heap_mb` (JDK 17): unscaled
/// (`32-bit`) when the heap fits below 4 GiB, `Zero based` below 32 GiB; above, compressed
/// oops are off and the property is not set.
fn compressed_oops_mode(heap_mb: u64) -> Option<&'static str> {
    match heap_mb {
        0..4096 => Some("32-bit"),
        4096..32768 => Some("Zero based"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::jvm_text::scala_map_order;

    fn get<'a>(props: &'a [(String, String)], key: &str) -> Option<&'a str> {
        props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn pairs(kvs: &[(&str, &str)]) -> Vec<(String, String)> {
        kvs.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Hadoop 3.4.1 `Configuration.Parser`: names trimmed, values raw (`${...}` unexpanded,
    /// line breaks kept), value-less properties dropped, the deprecated `fs.default.name`
    /// loaded as `fs.defaultFS`; a real pyspark 4.0.0 run's log holds these 1072 and 2 more.
    #[test]
    fn the_defaults_are_the_three_files_as_configuration_loads_them() {
        let d = hadoop_defaults();
        assert_eq!(d.len(), 1072);
        assert_eq!(
            d["yarn.resourcemanager.address"],
            "${yarn.resourcemanager.hostname}:8032"
        );
        assert_eq!(
            d["hadoop.tags.system"],
            "YARN,HDFS,NAMENODE,DATANODE,REQUIRED,SECURITY,KERBEROS,PERFORMANCE,CLIENT\n      ,SERVER,DEBUG,DEPRECATED,COMMON,OPTIONAL"
        );
        assert!(!d.contains_key("fs.default.name"));
        assert_eq!(d["fs.defaultFS"], "file:///");
        assert!(!d.contains_key("hadoop.http.authentication.kerberos.principal.pattern"));
        assert!(d.keys().all(|k| k.trim() == k && !k.is_empty()));
        // mapred-default and yarn-default are there, hdfs-default is not.
        assert!(d.contains_key("mapreduce.job.maps"));
        assert!(d.contains_key("yarn.nodemanager.resource.memory-mb"));
        assert!(!d.keys().any(|k| k.starts_with("dfs.namenode.")));
    }

    /// SparkHadoopUtil.appendS3AndSparkHadoopHiveConfigurations (Spark 4.0.0): site over the
    /// defaults, then the committer and s3a defaults unless `spark.hadoop.` names them, the
    /// `spark.hadoop.*` and `spark.hive.*` copies, and `io.file.buffer.size` from
    /// `spark.buffer.size` last.
    #[test]
    fn site_and_spark_settings_overlay_the_defaults() {
        let site = pairs(&[("fs.defaultFS", "hdfs://rm:8020")]);
        let spark = pairs(&[
            ("spark.hadoop.fs.s3a.vectored.read.min.seek.size", "128K"),
            ("spark.hadoop.io.file.buffer.size", "1"),
            ("spark.hadoop.fs.s3a.downgrade.syncable.exceptions", "false"),
            ("spark.hive.metastore.uris", "thrift://m:9083"),
        ]);
        let p = hadoop_properties(&site, &spark);
        assert_eq!(get(&p, "fs.defaultFS"), Some("hdfs://rm:8020"));
        assert_eq!(get(&p, "fs.s3a.vectored.read.min.seek.size"), Some("128K"));
        assert_eq!(get(&p, "io.file.buffer.size"), Some("65536"));
        assert_eq!(
            get(&p, "mapreduce.fileoutputcommitter.algorithm.version"),
            Some("1")
        );
        assert_eq!(
            get(&p, "fs.s3a.downgrade.syncable.exceptions"),
            Some("false")
        );
        assert_eq!(get(&p, "hive.metastore.uris"), Some("thrift://m:9083"));
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0));
        let sized = hadoop_properties(&site, &pairs(&[("spark.buffer.size", "4096")]));
        assert_eq!(get(&sized, "io.file.buffer.size"), Some("4096"));
    }

    /// Spark 4.0.0's default `spark.redaction.regex` redacts 22 of the real run's Hadoop
    /// Properties (Utils.redact: a key or a value matching).
    #[test]
    fn the_default_regex_redacts_what_a_real_run_redacts() {
        let p = hadoop_properties(&[], &[]);
        let r = sparkyard_actors::simulation::spark_conf::Redactor::new(None).unwrap();
        let redacted: Vec<&str> = p
            .iter()
            .filter(|(k, v)| r.is_sensitive(k, v))
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(redacted.len(), 22, "{redacted:?}");
        assert!(redacted.contains(&"hadoop.security.sensitive-config-keys"));
        assert!(redacted.contains(&"fs.adl.oauth2.access.token.provider.type"));
    }

    /// JsonProtocol.environmentUpdateToJson writes `toMap` of each sorted sequence: the order
    /// of the System Properties of a real pyspark 4.0.0 run's event log (51 keys), and up to 4
    /// entries the sequence's own.
    #[test]
    fn maps_come_out_in_scala_hash_map_order() {
        #[rustfmt::skip]
        let real = [
            "java.io.tmpdir", "line.separator", "path.separator", "java.library.path",
            "file.separator", "jdk.reflect.useDirectMethodHandle", "user.timezone",
            "derby.connection.requireAuthentication", "java.vendor.url",
            "log4j2.configurationFile", "os.name", "sun.management.compiler", "SPARK_SUBMIT",
            "sun.cpu.endian", "java.vm.specification.name", "java.vendor",
            "java.vm.specification.version", "java.specification.maintenance.version",
            "java.specification.version", "io.netty.tryReflectionSetAccessible", "user.home",
            "sun.arch.data.model", "sun.boot.library.path", "user.dir", "os.arch",
            "java.vm.version", "jetty.git.hash", "java.runtime.version", "java.vm.info",
            "java.runtime.name", "java.version.date", "java.class.version",
            "java.specification.name", "file.encoding", "java.specification.vendor",
            "sun.java.launcher", "java.vm.compressedOopsMode", "os.version", "native.encoding",
            "java.vm.specification.vendor", "sun.jnu.encoding", "user.language",
            "java.vm.vendor", "jdk.debug", "java.vendor.url.bug", "user.name", "java.vm.name",
            "sun.java.command", "java.home", "java.version", "sun.io.unicode.encoding",
        ];
        let mut sorted: Vec<(&str, ())> = real.iter().map(|k| (*k, ())).collect();
        sorted.sort();
        let ordered: Vec<&str> = scala_map_order(sorted).into_iter().map(|p| p.0).collect();
        assert_eq!(ordered, real);
        let small = vec![("b", 1), ("a", 2), ("c", 3), ("d", 4)];
        assert_eq!(scala_map_order(small.clone()), small);
    }
    /// SparkEnv.environmentDetails (Spark 4.0.0): the JVM's system properties but
    /// `java.class.path` and `spark.*`; a YARN AM's JVM has its launch command's `-D` options
    /// (Client.createContainerLaunchContext, `{{PWD}}` expanded by the container's shell), its
    /// working directory as `user.dir`, its main class and arguments as `sun.java.command`; no
    /// `SPARK_SUBMIT` nor `derby.connection.requireAuthentication` (spark-submit's launcher,
    /// SparkSubmitCommandBuilder, sets those on its own JVM only). The JDK's constants are a
    /// real 4.0.0 driver's.
    #[test]
    fn the_drivers_system_properties_come_from_its_am_container() {
        let command = "{{JAVA_HOME}}/bin/java -server -Xmx1024m -XX:+IgnoreUnrecognizedVMOptions \
            --add-opens=java.base/java.lang=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false \
            -Dio.netty.tryReflectionSetAccessible=true -Djava.io.tmpdir={{PWD}}/tmp \
            '-Dlog4j2.configurationFile=file:/etc/l 4j.properties' \
            -Dspark.yarn.app.container.log.dir=<LOG_DIR> org.apache.spark.deploy.yarn.ApplicationMaster \
            --class 'com.example.Job' --jar /opt/job.jar --arg 'a b' \
            --properties-file {{PWD}}/__spark_conf__/__spark_conf__.properties \
            1> <LOG_DIR>/stdout 2> <LOG_DIR>/stderr";
        let pwd = "/nm/usercache/u/appcache/application_1_0001/container_1_0001_01_000001";
        let p = system_properties(&DriverJvm {
            command,
            working_dir: pwd,
            heap_mb: 1024,
        });
        assert_eq!(
            get(&p, "java.io.tmpdir"),
            Some(format!("{pwd}/tmp").as_str())
        );
        assert_eq!(get(&p, "user.dir"), Some(pwd));
        assert_eq!(get(&p, "jdk.reflect.useDirectMethodHandle"), Some("false"));
        assert_eq!(get(&p, "io.netty.tryReflectionSetAccessible"), Some("true"));
        assert_eq!(
            get(&p, "log4j2.configurationFile"),
            Some("file:/etc/l 4j.properties")
        );
        assert_eq!(
            get(&p, "sun.java.command"),
            Some(
                format!(
                    "org.apache.spark.deploy.yarn.ApplicationMaster --class com.example.Job \
                     --jar /opt/job.jar --arg a b --properties-file \
                     {pwd}/__spark_conf__/__spark_conf__.properties"
                )
                .as_str()
            )
        );
        assert_eq!(get(&p, "java.vm.compressedOopsMode"), Some("32-bit"));
        assert_eq!(
            get(&p, "java.runtime.version"),
            Some("17.0.15+6-Debian-1deb12u1")
        );
        assert_eq!(get(&p, "line.separator"), Some("\n"));
        assert_eq!(get(&p, "user.name"), Some("yarn"));
        for absent in ["SPARK_SUBMIT", "java.class.path", "user.home"] {
            assert_eq!(get(&p, absent), None, "{absent}");
        }
        assert!(p.iter().all(|(k, _)| !k.starts_with("spark.")));
        // The real driver's 51 less SPARK_SUBMIT, derby's and user.home.
        assert_eq!(p.len(), 48);
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0));
    }

    /// HotSpot (JDK 17) `CompressedOops::mode_to_string`: the heap's size decides the mode.
    #[test]
    fn the_compressed_oops_mode_follows_the_heap() {
        assert_eq!(compressed_oops_mode(1024), Some("32-bit"));
        assert_eq!(compressed_oops_mode(4096), Some("Zero based"));
        assert_eq!(compressed_oops_mode(32 * 1024), None);
    }
}
