//! The Hadoop `Configuration` a Spark JVM on the cluster reads (`YarnConfiguration` over
//! `SparkHadoopUtil.newConfiguration`): yarn-default's ResourceManager addresses on the
//! cluster's RM host, `fs.defaultFS`, the cluster file's yarn-site values and, on top, every
//! `spark.hadoop.*` property (`appendSparkHadoopConfigs`); `get` expands `${var}` as Hadoop's
//! `Configuration.get` does, and `substitute_hadoop_variables` is Spark's
//! `SparkHadoopUtil.substituteHadoopVariables` (`${hadoopconf-KEY}`).

use super::config::{SimConfig, YarnSettings};
use std::collections::BTreeMap;

/// `Configuration.MAX_SUBST`: how many `${var}` expansions one `get` performs at most.
const MAX_SUBST: usize = 20;

/// A read-only view of the Hadoop configuration of one run.
pub struct HadoopConf<'a> {
    rm_host: &'a str,
    yarn: &'a YarnSettings,
    /// The Spark properties (`spark.hadoop.*` are read).
    properties: &'a BTreeMap<String, String>,
}

impl<'a> HadoopConf<'a> {
    pub fn new(config: &'a SimConfig) -> HadoopConf<'a> {
        HadoopConf::of(&config.rm_host, &config.yarn, &config.spark.properties)
    }

    pub fn of(
        rm_host: &'a str,
        yarn: &'a YarnSettings,
        properties: &'a BTreeMap<String, String>,
    ) -> HadoopConf<'a> {
        HadoopConf {
            rm_host,
            yarn,
            properties,
        }
    }

    /// `Configuration.getRaw`: the value as set, before `${var}` expansion.
    fn raw(&self, key: &str) -> Option<String> {
        if let Some(v) = self.properties.get(&format!("spark.hadoop.{key}")) {
            return Some(v.clone());
        }
        self.site(key).or_else(|| Self::default_value(key))
    }

    /// The cluster's own site values (`core-site.xml`, `yarn-site.xml`), by name, sorted:
    /// what overlays Hadoop's defaults in the driver's configuration (the event log's
    /// `Hadoop Properties`), before Spark's own settings.
    pub fn site_properties(&self) -> Vec<(String, String)> {
        SITE_KEYS
            .iter()
            .filter_map(|k| Some((k.to_string(), self.site(k)?)))
            .collect()
    }

    /// One of the cluster's site values (`SITE_KEYS`).
    fn site(&self, key: &str) -> Option<String> {
        let y = self.yarn;
        let value = match key {
            // The cluster's yarn-site.xml / core-site.xml.
            "yarn.resourcemanager.hostname" => self.rm_host.to_string(),
            "fs.defaultFS" => format!("hdfs://{}:8020", self.rm_host),
            "yarn.scheduler.minimum-allocation-mb" => y.minimum_allocation_mb.to_string(),
            "yarn.scheduler.maximum-allocation-mb" => y.maximum_allocation_mb.to_string(),
            "yarn.scheduler.minimum-allocation-vcores" => y.minimum_allocation_vcores.to_string(),
            "yarn.scheduler.maximum-allocation-vcores" => y.maximum_allocation_vcores.to_string(),
            "yarn.resourcemanager.am.max-attempts" => y.am_max_attempts.to_string(),
            "yarn.nm.liveness-monitor.expiry-interval-ms" => {
                y.nm_liveness_expiry_interval_ms.to_string()
            }
            "yarn.am.liveness-monitor.expiry-interval-ms" => {
                y.am_liveness_expiry_interval_ms.to_string()
            }
            "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms" => {
                y.nm_heartbeat_interval_ms.to_string()
            }
            "yarn.nodemanager.sleep-delay-before-sigkill.ms" => {
                y.sleep_delay_before_sigkill_ms.to_string()
            }
            "yarn.node-labels.enabled" => y.node_labels_enabled.to_string(),
            // Set only by a cluster whose [yarn] names the GPU type (Hadoop has no default).
            "yarn.resource-types" if y.gpu_resource_type => "yarn.io/gpu".to_string(),
            _ => return None,
        };
        Some(value)
    }
}

/// The keys the cluster's site files set (`HadoopConf::site`), sorted.
const SITE_KEYS: [&str; 13] = [
    "fs.defaultFS",
    "yarn.am.liveness-monitor.expiry-interval-ms",
    "yarn.nm.liveness-monitor.expiry-interval-ms",
    "yarn.node-labels.enabled",
    "yarn.nodemanager.sleep-delay-before-sigkill.ms",
    "yarn.resource-types",
    "yarn.resourcemanager.am.max-attempts",
    "yarn.resourcemanager.hostname",
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms",
    "yarn.scheduler.maximum-allocation-mb",
    "yarn.scheduler.maximum-allocation-vcores",
    "yarn.scheduler.minimum-allocation-mb",
    "yarn.scheduler.minimum-allocation-vcores",
];

impl HadoopConf<'_> {
    /// yarn-default.xml's values `get` expands, for the keys no site file sets.
    fn default_value(key: &str) -> Option<String> {
        let value = match key {
            // yarn-default.xml, literally (expanded by `get`).
            "yarn.resourcemanager.address" => "${yarn.resourcemanager.hostname}:8032".into(),
            "yarn.resourcemanager.scheduler.address" => {
                "${yarn.resourcemanager.hostname}:8030".into()
            }
            "yarn.resourcemanager.resource-tracker.address" => {
                "${yarn.resourcemanager.hostname}:8031".into()
            }
            "yarn.resourcemanager.admin.address" => "${yarn.resourcemanager.hostname}:8033".into(),
            "yarn.resourcemanager.webapp.address" => "${yarn.resourcemanager.hostname}:8088".into(),
            "yarn.resourcemanager.webapp.https.address" => {
                "${yarn.resourcemanager.hostname}:8090".into()
            }
            "yarn.http.policy" => "HTTP_ONLY".into(),
            _ => return None,
        };
        Some(value)
    }

    /// `Configuration.get`: the raw value with `${var}` references to other keys expanded, at
    /// most `MAX_SUBST` times; an unknown reference stops the expansion and stays as written.
    pub fn get(&self, key: &str) -> Option<String> {
        let mut value = self.raw(key)?;
        for _ in 0..MAX_SUBST {
            let Some((start, end)) = next_var(&value, "${", |c| c != '}' && c != '$' && c != ' ')
            else {
                break;
            };
            let name = &value[start + 2..end - 1];
            let Some(v) = self.raw(name) else { break };
            value = format!("{}{v}{}", &value[..start], &value[end..]);
        }
        Some(value)
    }
}

/// The first `${name}` of `text` whose name is non-empty and made of `ok` characters: its
/// byte range, braces included.
fn next_var(text: &str, open: &str, ok: impl Fn(char) -> bool) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = text[from..].find(open) {
        let start = from + i;
        let rest = &text[start + open.len()..];
        let len = rest.find(|c: char| !ok(c)).unwrap_or(rest.len());
        if len > 0 && rest[len..].starts_with('}') {
            return Some((start, start + open.len() + len + 1));
        }
        from = start + 1;
    }
    None
}

/// `SparkHadoopUtil.substituteHadoopVariables`: the first `${hadoopconf-KEY}` (Spark's pattern
/// `(\$\{hadoopconf-[^}$\s]+})`) is replaced, everywhere it occurs, by the Hadoop value of KEY
/// and the result substituted again; when KEY has no value the text is returned as it stands,
/// later references included (Spark stops at the first unknown one).
pub fn substitute_hadoop_variables(text: &str, conf: &HadoopConf) -> String {
    let mut text = text.to_string();
    // Each round removes one distinct reference; a value naming itself would loop forever in
    // Spark as well, so rounds are capped at the text's own bound.
    for _ in 0..=text.len() {
        let Some((start, end)) = next_var(&text, "${hadoopconf-", |c| {
            c != '}' && c != '$' && !c.is_whitespace()
        }) else {
            break;
        };
        let matched = text[start..end].to_string();
        let key = &matched["${hadoopconf-".len()..matched.len() - 1];
        match conf.get(key) {
            Some(v) => text = text.replace(&matched, &v),
            None => break,
        }
    }
    text
}

/// The default cluster's YARN settings with one `default` queue, for unit tests.
#[cfg(test)]
pub(crate) fn test_yarn_settings() -> YarnSettings {
    use crate::world::config::QueueSpec;
    YarnSettings {
        minimum_allocation_mb: 1024,
        maximum_allocation_mb: 8192,
        minimum_allocation_vcores: 1,
        maximum_allocation_vcores: 4,
        am_max_attempts: 2,
        nm_liveness_expiry_interval_ms: 600_000,
        am_liveness_expiry_interval_ms: 600_000,
        nm_heartbeat_interval_ms: 1000,
        sleep_delay_before_sigkill_ms: 250,
        node_labels_enabled: false,
        gpu_resource_type: false,
        gpu_maximum_allocation: i64::MAX as u64,
        max_application_priority: 0,
        queues: vec![QueueSpec::with_capacity("default", 100.0)],
        tenants: Vec::new(),
        heartbeat_assignments: Default::default(),
        locality_delays: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yarn() -> YarnSettings {
        test_yarn_settings()
    }

    fn props(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // yarn.resource-types has no default in Hadoop: the site sets it only when the cluster's
    // [yarn] names the GPU type, so a cluster without it lists what it always did.
    #[test]
    fn the_gpu_resource_type_is_a_site_value_only_when_set() {
        let p = props(&[]);
        let plain = yarn();
        let keys = |y: &YarnSettings| -> Vec<String> {
            HadoopConf::of("rm", y, &p)
                .site_properties()
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        assert!(!keys(&plain).iter().any(|k| k == "yarn.resource-types"));
        let typed = YarnSettings {
            gpu_resource_type: true,
            ..yarn()
        };
        let site = HadoopConf::of("rm", &typed, &p).site_properties();
        assert!(site.contains(&("yarn.resource-types".into(), "yarn.io/gpu".into())));
        assert_eq!(keys(&typed).len(), keys(&plain).len() + 1);
    }

    // Configuration.get expands yarn-default's `${yarn.resourcemanager.hostname}:8088`;
    // SparkHadoopUtil.newConfiguration (appendSparkHadoopConfigs) puts spark.hadoop.* on top.
    #[test]
    fn get_expands_yarn_defaults_and_spark_hadoop_keys_win() {
        let y = yarn();
        let none = props(&[]);
        let conf = HadoopConf::of("rm-1", &y, &none);
        assert_eq!(
            conf.get("yarn.resourcemanager.webapp.address").as_deref(),
            Some("rm-1:8088")
        );
        assert_eq!(
            conf.get("yarn.scheduler.maximum-allocation-vcores")
                .as_deref(),
            Some("4")
        );
        assert_eq!(conf.get("no.such.key"), None);
        let p = props(&[
            ("spark.hadoop.yarn.resourcemanager.hostname", "rm-ha"),
            (
                "spark.hadoop.my.history",
                "${yarn.resourcemanager.hostname}:18080",
            ),
            ("spark.hadoop.my.broken", "${no.such}:1"),
        ]);
        let conf = HadoopConf::of("rm-1", &y, &p);
        assert_eq!(
            conf.get("yarn.resourcemanager.webapp.address").as_deref(),
            Some("rm-ha:8088")
        );
        assert_eq!(conf.get("my.history").as_deref(), Some("rm-ha:18080"));
        assert_eq!(conf.get("my.broken").as_deref(), Some("${no.such}:1"));
    }

    // SparkHadoopUtil.scala substituteHadoopVariables: HADOOP_CONF_PATTERN
    // `(\$\{hadoopconf-[^}$\s]+})`, replace and recurse; an unknown key returns the text
    // as it stands (a later known reference is left too).
    #[test]
    fn hadoopconf_references_follow_spark() {
        let y = yarn();
        let none = props(&[]);
        let conf = HadoopConf::of("rm-1", &y, &none);
        let sub = |t: &str| substitute_hadoop_variables(t, &conf);
        assert_eq!(
            sub("${hadoopconf-yarn.resourcemanager.hostname}:18080"),
            "rm-1:18080"
        );
        assert_eq!(
            sub(
                "${hadoopconf-yarn.resourcemanager.hostname}:1/${hadoopconf-yarn.resourcemanager.hostname}"
            ),
            "rm-1:1/rm-1"
        );
        assert_eq!(
            sub("${hadoopconf-a.b}:1${hadoopconf-yarn.resourcemanager.hostname}"),
            "${hadoopconf-a.b}:1${hadoopconf-yarn.resourcemanager.hostname}"
        );
        assert_eq!(sub("history:18080"), "history:18080");
        assert_eq!(
            sub("${hadoopconf-}x${hadoopconf- a}"),
            "${hadoopconf-}x${hadoopconf- a}"
        );
    }
}
