//! `[submit]`: the spark-submit line of a scenario (each key the flag of the same name), the
//! `run` command's overrides of it, and the words spark-submit is given.

use crate::error::UserError;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The spark-submit line; each key is the spark-submit flag of the same name.
#[derive(Deserialize, Clone, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Submit")]
pub(super) struct RawSubmit {
    /// `--class`: the user class. With a `[workload]` it may be left out (it is then
    /// `org.sparkyard.examples.SyntheticJob`, the only class that runs a workload).
    class: Option<String>,
    /// The application's arguments (after the jar).
    #[serde(default)]
    args: Vec<String>,
    /// `--name`.
    name: Option<String>,
    /// `--num-executors` (spark.executor.instances; YARN's default is 2).
    num_executors: Option<u32>,
    /// `--executor-memory`, a JVM memory string ("1g", "512m").
    executor_memory: Option<String>,
    /// `--executor-cores`.
    executor_cores: Option<u32>,
    /// `--driver-memory`, a JVM memory string.
    driver_memory: Option<String>,
    /// `--driver-cores`.
    driver_cores: Option<u32>,
    /// `--queue` (YARN queue).
    queue: Option<String>,
    /// The application jar (default "app.jar").
    jar: Option<String>,
    /// `--conf KEY=VALUE`, as a table of Spark properties (values are strings).
    #[serde(default)]
    conf: BTreeMap<String, String>,
}
/// `sparkyard run`'s overrides of the scenario's `[submit]` table (spark-submit's flags).
#[derive(Default, Debug, Clone)]
pub struct SubmitOverrides {
    pub conf: Vec<String>,
    pub name: Option<String>,
    pub num_executors: Option<u32>,
    pub executor_memory: Option<String>,
    pub executor_cores: Option<u32>,
    pub driver_memory: Option<String>,
    pub driver_cores: Option<u32>,
    pub queue: Option<String>,
}

impl SubmitOverrides {
    /// Whether no override was given.
    pub fn is_empty(&self) -> bool {
        let SubmitOverrides {
            conf,
            name,
            num_executors,
            executor_memory,
            executor_cores,
            driver_memory,
            driver_cores,
            queue,
        } = self;
        conf.is_empty()
            && name.is_none()
            && num_executors.is_none()
            && executor_memory.is_none()
            && executor_cores.is_none()
            && driver_memory.is_none()
            && driver_cores.is_none()
            && queue.is_none()
    }
}

/// The words spark-submit is given: `--master yarn --deploy-mode cluster`, the table's flags
/// and `--conf`s, the jar and the application's arguments.
pub(super) fn submit_words(s: &RawSubmit, synthetic: bool) -> Vec<String> {
    let class = match (&s.class, synthetic) {
        (Some(c), _) => c.as_str(),
        (None, _) => super::workload::SYNTHETIC_CLASS,
    };
    let mut w: Vec<String> = [
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--class",
        class,
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    let mut flag = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            w.push(name.to_string());
            w.push(v);
        }
    };
    flag("--name", s.name.clone());
    flag("--num-executors", s.num_executors.map(|n| n.to_string()));
    flag("--executor-memory", s.executor_memory.clone());
    flag("--executor-cores", s.executor_cores.map(|n| n.to_string()));
    flag("--driver-memory", s.driver_memory.clone());
    flag("--driver-cores", s.driver_cores.map(|n| n.to_string()));
    flag("--queue", s.queue.clone());
    for (k, v) in &s.conf {
        w.push("--conf".into());
        w.push(format!("{k}={v}"));
    }
    w.push(s.jar.clone().unwrap_or_else(|| "app.jar".into()));
    w.extend(s.args.iter().cloned());
    w
}

impl RawSubmit {
    /// Whether the table sets nothing (it was left out or written empty).
    pub(super) fn is_empty(&self) -> bool {
        submit_words(self, false) == submit_words(&RawSubmit::default(), false)
    }

    /// `--class`, when the table names one.
    pub(super) fn class(&self) -> Option<&String> {
        self.class.as_ref()
    }

    /// `sparkyard run`'s overrides on top of the table: a flag given replaces the table's value;
    /// each `--conf KEY=VALUE` sets its key.
    pub(super) fn apply(&mut self, o: &SubmitOverrides) -> Result<(), UserError> {
        let set = |slot: &mut Option<String>, v: &Option<String>| {
            if v.is_some() {
                slot.clone_from(v);
            }
        };
        set(&mut self.name, &o.name);
        set(&mut self.executor_memory, &o.executor_memory);
        set(&mut self.driver_memory, &o.driver_memory);
        set(&mut self.queue, &o.queue);
        self.num_executors = o.num_executors.or(self.num_executors);
        self.executor_cores = o.executor_cores.or(self.executor_cores);
        self.driver_cores = o.driver_cores.or(self.driver_cores);
        for kv in &o.conf {
            let Some((k, v)) = kv.split_once('=') else {
                return Err(UserError::file(
                    "--conf",
                    format!("`{kv}`: expected KEY=VALUE, e.g. --conf spark.eventLog.enabled=true"),
                ));
            };
            self.conf.insert(k.to_string(), v.to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submit(text: &str) -> RawSubmit {
        toml::from_str(text).expect("a [submit] table")
    }

    /// A workload with no `class` runs as the synthetic class; flags come before the jar, the
    /// application's arguments after it.
    #[test]
    fn the_words_are_spark_submits_in_order() {
        let s = submit("num_executors = 3\nargs = [\"10\"]\nconf = { \"spark.a\" = \"1\" }");
        let words = submit_words(&s, true).join(" ");
        assert!(
            words.starts_with("--master yarn --deploy-mode cluster"),
            "{words}"
        );
        assert!(
            words.contains("--class org.sparkyard.examples.SyntheticJob"),
            "{words}"
        );
        assert!(
            words.contains("--num-executors 3") && words.contains("--conf spark.a=1"),
            "{words}"
        );
        assert!(words.ends_with("app.jar 10"), "{words}");
    }

    /// `run`'s overrides replace the table's values; a `--conf` without `=` is an error.
    #[test]
    fn overrides_replace_the_tables_values() {
        let mut s = submit("num_executors = 3\nqueue = \"etl\"");
        let o = SubmitOverrides {
            num_executors: Some(5),
            conf: vec!["spark.b=2".into()],
            ..SubmitOverrides::default()
        };
        s.apply(&o).expect("applies");
        assert_eq!(
            (s.num_executors, s.queue.as_deref()),
            (Some(5), Some("etl"))
        );
        assert_eq!(s.conf.get("spark.b").map(String::as_str), Some("2"));
        let bad = SubmitOverrides {
            conf: vec!["spark.b".into()],
            ..SubmitOverrides::default()
        };
        let e = s
            .apply(&bad)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("`spark.b`: expected KEY=VALUE"), "{e}");
    }
}
