//! The JVM options Spark 4.0 adds to the driver's and executors' command lines: spark-launcher's
//! `JavaModuleOptions.defaultModuleOptions`, SparkContext's `supplementJavaModuleOptions` and
//! `supplementJavaIPv6Options`, and the `Utils` / `SparkConf` helpers the YARN commands use
//! (`splitCommandString`, `substituteAppNExecIds`, `isExecutorStartupConf`).

/// `JavaModuleOptions.defaultModuleOptions()` (spark-launcher 4.0.0): the options Spark needs on
/// Java 17, joined by single spaces. Read from the 4.0.0 jar; a real Spark 4.0 event log
/// (tests/data/eventlogs) shows them in `spark.*.extraJavaOptions`.
pub const DEFAULT_MODULE_OPTIONS: &str = "-XX:+IgnoreUnrecognizedVMOptions \
--add-modules=jdk.incubator.vector \
--add-opens=java.base/java.lang=ALL-UNNAMED \
--add-opens=java.base/java.lang.invoke=ALL-UNNAMED \
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED \
--add-opens=java.base/java.io=ALL-UNNAMED \
--add-opens=java.base/java.net=ALL-UNNAMED \
--add-opens=java.base/java.nio=ALL-UNNAMED \
--add-opens=java.base/java.util=ALL-UNNAMED \
--add-opens=java.base/java.util.concurrent=ALL-UNNAMED \
--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED \
--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED \
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
--add-opens=java.base/sun.nio.cs=ALL-UNNAMED \
--add-opens=java.base/sun.security.action=ALL-UNNAMED \
--add-opens=java.base/sun.util.calendar=ALL-UNNAMED \
--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED \
-Djdk.reflect.useDirectMethodHandle=false \
-Dio.netty.tryReflectionSetAccessible=true";

/// What the JVM prints on stderr at start when `--add-modules=jdk.incubator.vector` is on its
/// command line (the first line of a real Spark 4.0 executor's stderr).
pub const INCUBATOR_MODULES_WARNING: &str =
    "WARNING: Using incubator modules: jdk.incubator.vector";

/// `Utils.preferIPv6` is false unless the JVM runs with `java.net.preferIPv6Addresses=true`;
/// sparkyard's JVMs do not.
const PREFER_IPV6: &str = "-Djava.net.preferIPv6Addresses=false";

/// What the SparkContext leaves in `spark.driver.extraJavaOptions` or
/// `spark.executor.extraJavaOptions` given the user's value: the module options prepended
/// (`supplementJavaModuleOptions`), then the IPv6 preference (`supplementJavaIPv6Options`,
/// called second, so it ends up first).
pub fn supplemented(user: Option<&str>) -> String {
    match user {
        Some(v) => format!("{PREFER_IPV6} {DEFAULT_MODULE_OPTIONS} {v}"),
        None => format!("{PREFER_IPV6} {DEFAULT_MODULE_OPTIONS}"),
    }
}

/// `Utils.substituteAppNExecIds`: `{{APP_ID}}` and `{{EXECUTOR_ID}}` in a java options value.
pub fn substitute_app_n_exec_ids(opt: &str, app_id: &str, executor_id: &str) -> String {
    opt.replace("{{APP_ID}}", app_id)
        .replace("{{EXECUTOR_ID}}", executor_id)
}

/// `SparkConf.isExecutorStartupConf`: what an executor needs before it can fetch the driver's
/// configuration (authentication, RPC, network, SSL without passwords, and every port).
pub fn is_executor_startup_conf(key: &str) -> bool {
    (key.starts_with("spark.auth") && key != "spark.authenticate.secret")
        || key.starts_with("spark.rpc")
        || key.starts_with("spark.network")
        || (key.starts_with("spark.ssl") && !key.contains("Password"))
        || is_spark_port_conf(key)
}

/// `SparkConf.isSparkPortConf`.
fn is_spark_port_conf(key: &str) -> bool {
    (key.starts_with("spark.") && key.ends_with(".port")) || key.starts_with("spark.port.")
}

/// Where `SparkConf.getAll` lists a key: SparkConf keeps its settings in a `ConcurrentHashMap`,
/// whose iteration goes by bin (`spread(hashCode) & (n - 1)`); a driver's conf of 25 to 48
/// entries has a 64-bin table. Ties (same bin) keep the given order.
pub fn conf_iteration_bin(key: &str) -> u32 {
    let h = key
        .encode_utf16()
        .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)));
    (h ^ (h >> 16)) & 0x7fff_ffff & 63
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SparkContext.scala (4.0) supplementJavaModuleOptions / supplementJavaIPv6Options; the
    /// value is the one a real Spark 4.0.0 run wrote (tests/data/eventlogs/skew_n1_r1.zstd).
    #[test]
    fn supplemented_options_match_a_real_spark_4_event_log() {
        let real = "-Djava.net.preferIPv6Addresses=false -XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true";
        assert_eq!(supplemented(None), real);
        assert_eq!(supplemented(Some("-Dx=1")), format!("{real} -Dx=1"));
    }

    /// SparkConf.scala isExecutorStartupConf / isSparkPortConf.
    #[test]
    fn executor_startup_confs() {
        for k in [
            "spark.driver.port",
            "spark.ui.port",
            "spark.rpc.askTimeout",
            "spark.network.timeout",
            "spark.authenticate",
            "spark.ssl.enabled",
            "spark.port.maxRetries",
        ] {
            assert!(is_executor_startup_conf(k), "{k}");
        }
        for k in [
            "spark.authenticate.secret",
            "spark.ssl.keyPassword",
            "spark.executor.memory",
            "spark.driver.host",
        ] {
            assert!(!is_executor_startup_conf(k), "{k}");
        }
    }

    /// A ConcurrentHashMap of 16 to 256 bins lists spark.driver.port before spark.ui.port
    /// (String.hashCode; HashMap.spread).
    #[test]
    fn driver_port_comes_before_ui_port() {
        assert!(conf_iteration_bin("spark.driver.port") < conf_iteration_bin("spark.ui.port"));
        assert_eq!(conf_iteration_bin("spark.driver.port"), 1);
        assert_eq!(conf_iteration_bin("spark.ui.port"), 41);
    }
}
