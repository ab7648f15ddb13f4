//! The environment's "Classpath Entries" as a YARN cluster-mode Spark 4.0 driver reports them
//! (`SparkEnv.environmentDetails`: `java.class.path` split on `:`, empty entries dropped, each
//! `(entry, "System Classpath")`, sorted). The AM's JVM gets its class path from the container's
//! `CLASSPATH` (`Client.populateClasspath`, [`CONTAINER_CLASSPATH`]), which the java launcher
//! expands: `{{PWD}}` is the container's working directory, `dir/*` every jar in `dir`.

use sparkyard_actors::simulation::addresses::app_cache_dir;
use sparkyard_actors::simulation::facts::CONTAINER_CLASSPATH;

/// The jars of Spark 4.0.0's `jars/` directory (the pyspark 4.0.0 wheel's copy of it), which
/// the Client uploads as `__spark_libs__` when neither `spark.yarn.jars` nor
/// `spark.yarn.archive` is set (`Client.prepareLocalResources`: every readable `.jar` file).
const SPARK_JARS: &str = include_str!("spark_4_0_0_jars.txt");

/// The driver container's class path entries, sorted (`environmentDetails` sorts them).
/// `$HADOOP_*` entries expand to nothing: the simulated NodeManagers pass no Hadoop install
/// (`HADOOP_CONF_DIR`, `HADOOP_COMMON_HOME`, ... are unset), so the empty entry is dropped and a
/// wildcard under a missing directory adds no jar.
pub fn driver_classpath(user: &str, app_id: &str, container_id: &str) -> Vec<(String, String)> {
    let pwd = format!("{}/{container_id}", app_cache_dir(user, app_id));
    let mut entries: Vec<String> = Vec::new();
    for raw in CONTAINER_CLASSPATH.split("<CPS>") {
        if raw.starts_with('$') {
            continue;
        }
        let entry = raw.replace("{{PWD}}", &pwd);
        match entry.strip_suffix("/*") {
            Some(dir) if dir.ends_with("/__spark_libs__") => {
                entries.extend(SPARK_JARS.lines().map(|jar| format!("{dir}/{jar}")));
            }
            _ => entries.push(entry),
        }
    }
    entries.sort();
    entries
        .into_iter()
        .map(|e| (e, "System Classpath".to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Client.populateClasspath (cluster mode, spark.driver.userClassPathFirst off: no
    // __app__.jar) and SparkEnv.environmentDetails (System Classpath, sorted).
    #[test]
    fn the_driver_sees_its_container_dir_conf_and_sparks_jars() {
        let cp = driver_classpath("spark", "application_1_0001", "container_1_0001_01_000001");
        let pwd = "/tmp/hadoop-yarn/nm-local-dir/usercache/spark/appcache/application_1_0001/container_1_0001_01_000001";
        let paths: Vec<&str> = cp.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths[0], pwd);
        assert!(paths.contains(&format!("{pwd}/__spark_conf__").as_str()));
        assert!(paths.contains(&format!("{pwd}/__spark_conf__/__hadoop_conf__").as_str()));
        let core = format!("{pwd}/__spark_libs__/spark-core_2.13-4.0.0.jar");
        assert!(paths.contains(&core.as_str()), "{paths:?}");
        assert!(paths.iter().all(|p| !p.contains('$') && !p.ends_with('*')));
        assert!(paths.windows(2).all(|w| w[0] < w[1]));
        assert!(cp.iter().all(|(_, v)| v == "System Classpath"));
        assert_eq!(cp.len(), 3 + SPARK_JARS.lines().count());
    }
}
