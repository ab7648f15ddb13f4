//! `what-if-cluster`'s grid keys: the cluster's (`nodes` and the NodeManagers' resources, as
//! `what-if`'s `cluster_keys`), a CapacityScheduler leaf queue's field by name
//! (`queue.<name>.<field>`, capacity-scheduler.xml's `yarn.scheduler.capacity.root.<name>.
//! <field>` as the cluster file's `[[queues]]` writes it), and Spark keys or spark-submit
//! options given to every application or, as `APP_GLOB:KEY`, to the applications whose name
//! matches. Spark keys are checked against the key registry as `what-if` checks them
//! (`whatif::spark_key_refusal`).

use super::cluster::DayLog;
use super::cluster_deadline::glob_matches;
use super::cluster_keys;
use super::whatif::{self, GridKey};
use crate::conf::cluster::{ClusterConfig, check_capacity_sum, check_queue_limits};
use crate::conf::submit::SubmitArgs;
use crate::error::UserError;
use serde::Serialize;
use sparkyard_actors::simulation::config::QueueSpec;

/// What the errors of `what-if-cluster` are about when no file is.
pub const COMMAND: &str = "sparkyard what-if-cluster";

/// The prefix of a queue key: `queue.<name>.<field>`.
const QUEUE_PREFIX: &str = "queue.";

/// A `[[queues]]` field a grid may vary, by its cluster-file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueField {
    Capacity,
    MaximumCapacity,
    MaximumAmResourcePercent,
    UserLimitFactor,
    MinimumUserLimitPercent,
}

const QUEUE_FIELDS: &[(&str, QueueField)] = &[
    ("capacity", QueueField::Capacity),
    ("maximum-capacity", QueueField::MaximumCapacity),
    (
        "maximum-am-resource-percent",
        QueueField::MaximumAmResourcePercent,
    ),
    ("user-limit-factor", QueueField::UserLimitFactor),
    (
        "minimum-user-limit-percent",
        QueueField::MinimumUserLimitPercent,
    ),
];

/// What a grid key changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// The cluster: `nodes` or a NodeManager resource (`cluster_keys`).
    Cluster,
    /// One field of one leaf queue.
    Queue { queue: String, field: QueueField },
    /// A Spark property or spark-submit option of the applications whose name matches `apps`
    /// (every application when `None`).
    Submit { apps: Option<String>, key: String },
}

/// One key of a day's grid and what it changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DayGridKey {
    /// Its name as the user wrote it, and its values.
    pub key: GridKey,
    pub target: Target,
}

/// A usage error of `what-if-cluster`, with where its help is.
pub fn usage_error(message: impl std::fmt::Display) -> UserError {
    UserError::file(
        COMMAND,
        format!("{message}\n\nRun `sparkyard what-if-cluster --help` for usage help"),
    )
}

/// `[APP_GLOB:]KEY=V1,V2,...` for each `--grid`.
pub fn parse(specs: &[String]) -> Result<Vec<DayGridKey>, UserError> {
    if specs.is_empty() {
        return Err(usage_error(
            "what-if-cluster needs at least one --grid KEY=V1,V2,... (e.g. --grid nodes=4,8)",
        ));
    }
    let mut keys: Vec<DayGridKey> = Vec::new();
    for spec in specs {
        let bad = |why: &str| usage_error(format!("--grid {spec}: {why}"));
        let (lhs, vs) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected [APP_GLOB:]KEY=V1,V2,..."))?;
        let name = lhs.trim().to_string();
        let values = whatif::grid_values(vs).map_err(&bad)?;
        let target = target_of(&name, &values).map_err(|m| bad(&m))?;
        if keys.iter().any(|k| k.key.name == name) {
            return Err(bad("the key is given twice"));
        }
        keys.push(DayGridKey {
            key: GridKey { name, values },
            target,
        });
    }
    Ok(keys)
}

/// What `name` changes, its values checked as far as they can be without the cluster.
fn target_of(name: &str, values: &[String]) -> Result<Target, String> {
    let (apps, key) = match name.rsplit_once(':') {
        Some((glob, key)) if !glob.is_empty() => (Some(glob.to_string()), key),
        Some(_) => return Err("an application glob before ':' is empty".into()),
        None => (None, name),
    };
    let key = key.trim_start_matches("--");
    if cluster_keys::is_cluster_key(key) || key.starts_with(QUEUE_PREFIX) {
        if apps.is_some() {
            return Err(format!(
                "'{key}' is the cluster's, shared by every application: it takes no APP_GLOB:"
            ));
        }
        if cluster_keys::is_cluster_key(key) {
            for v in values {
                cluster_keys::check_value(key, v)?;
            }
            return Ok(Target::Cluster);
        }
        return queue_target(key, values);
    }
    if !key.starts_with("spark.") && !whatif::is_submit_option(key) {
        return Err(format!(
            "'{key}' is neither a Spark property (spark.*), one of {}, a cluster key ({}) nor a queue's field (queue.<name>.<field>, the field one of {})",
            whatif::submit_options().join(", "),
            cluster_keys::KEYS.join(", "),
            field_names().join(", ")
        ));
    }
    if let Some(why) = whatif::spark_key_refusal(key) {
        return Err(why);
    }
    if let Some(why) = whatif::event_log_refusal(key, values) {
        return Err(why.into());
    }
    Ok(Target::Submit {
        apps,
        key: key.to_string(),
    })
}

fn field_names() -> Vec<&'static str> {
    QUEUE_FIELDS.iter().map(|(n, _)| *n).collect()
}

/// `queue.<name>.<field>` with numeric values.
fn queue_target(key: &str, values: &[String]) -> Result<Target, String> {
    let rest = &key[QUEUE_PREFIX.len()..];
    let Some((queue, field)) = rest.rsplit_once('.').filter(|(q, _)| !q.is_empty()) else {
        return Err(format!("'{key}': expected queue.<name>.<field>"));
    };
    let Some(&(_, field)) = QUEUE_FIELDS.iter().find(|(n, _)| *n == field) else {
        return Err(format!(
            "'{field}' is not a queue field a grid may vary (one of {})",
            field_names().join(", ")
        ));
    };
    for v in values {
        number(v).map_err(|e| format!("{key}: {e}"))?;
    }
    Ok(Target::Queue {
        queue: queue.to_string(),
        field,
    })
}

fn number(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("'{v}' is not a number"))
}

/// Checks the grid against the day: each queue it names is one of the cluster's, each
/// application glob matches an application.
pub fn check_against_day(
    grid: &[DayGridKey],
    cluster: &ClusterConfig,
    logs: &[DayLog],
) -> Result<(), UserError> {
    for k in grid {
        match &k.target {
            Target::Queue { queue, .. } if cluster.yarn.queue(queue).is_none() => {
                return Err(usage_error(format!(
                    "--grid {}: queue '{queue}' is not a queue of the cluster (its queues: {})",
                    k.key.name,
                    cluster.yarn.queue_names()
                )));
            }
            Target::Submit {
                apps: Some(glob), ..
            } if !logs.iter().any(|d| glob_matches(glob, &d.app.app_name)) => {
                let mut names: Vec<&str> = logs.iter().map(|d| d.app.app_name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                return Err(usage_error(format!(
                    "--grid {}: '{glob}' matches no application of the day (their names: {})",
                    k.key.name,
                    names.join(", ")
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The day's cluster with one configuration's cluster and queue keys applied. Queues whose
/// capacity the grid does not set share what the others leave of 100 % in their own
/// proportions (the CapacityScheduler's leaf queues must add up to 100 %); the error says
/// why the configuration cannot be.
pub fn apply_cluster(
    base: &ClusterConfig,
    grid: &[DayGridKey],
    values: &[String],
) -> Result<ClusterConfig, String> {
    let mut c = base.clone();
    let mut set_capacity: Vec<String> = Vec::new();
    for (k, v) in grid.iter().zip(values) {
        let at = |m: String| format!("--grid {}={v}: {m}", k.key.name);
        match &k.target {
            Target::Cluster => cluster_keys::apply(&mut c, &k.key.name, v).map_err(at)?,
            Target::Queue { queue, field } => {
                let q = c
                    .yarn
                    .queues
                    .iter_mut()
                    .find(|q| &q.name == queue)
                    .ok_or_else(|| at(format!("no queue '{queue}'")))?;
                set_field(q, *field, number(v).map_err(at)?);
                if *field == QueueField::Capacity {
                    set_capacity.push(queue.clone());
                }
            }
            Target::Submit { .. } => {}
        }
    }
    if !set_capacity.is_empty() {
        share_the_rest(&mut c.yarn.queues, &set_capacity)?;
    }
    for q in &c.yarn.queues {
        check_queue_limits(q)?;
    }
    check_capacity_sum(&c.yarn.queues)?;
    Ok(c)
}

fn set_field(q: &mut QueueSpec, field: QueueField, x: f64) {
    match field {
        QueueField::Capacity => q.capacity = x,
        QueueField::MaximumCapacity => q.maximum_capacity = x,
        QueueField::MaximumAmResourcePercent => q.maximum_am_resource_percent = x,
        QueueField::UserLimitFactor => q.user_limit_factor = x,
        QueueField::MinimumUserLimitPercent => q.minimum_user_limit_percent = x,
    }
}

/// The queues not in `set` get what `set` leaves of 100 %, in proportion to their capacities.
fn share_the_rest(queues: &mut [QueueSpec], set: &[String]) -> Result<(), String> {
    let given: f64 = queues
        .iter()
        .filter(|q| set.contains(&q.name))
        .map(|q| q.capacity)
        .sum();
    let others: f64 = queues
        .iter()
        .filter(|q| !set.contains(&q.name))
        .map(|q| q.capacity)
        .sum();
    let rest = 100.0 - given;
    if rest < -1e-9 {
        return Err(format!(
            "the grid's queue capacities add up to {given}, more than 100"
        ));
    }
    if others <= 0.0 {
        // Nothing to scale: every queue is set (the sum is checked next) or the rest have 0.
        return Ok(());
    }
    for q in queues.iter_mut().filter(|q| !set.contains(&q.name)) {
        q.capacity = q.capacity * rest / others;
        // A queue's maximum capacity is at least its capacity.
        q.maximum_capacity = q.maximum_capacity.max(q.capacity);
    }
    Ok(())
}

/// `base` with one configuration's Spark keys and spark-submit options for the application
/// named `app_name` applied (the keys of every application and those whose glob matches, in
/// grid order).
pub fn submit_for(
    base: &SubmitArgs,
    grid: &[DayGridKey],
    values: &[String],
    app_name: &str,
) -> SubmitArgs {
    let (keys, vals): (Vec<GridKey>, Vec<String>) = grid
        .iter()
        .zip(values)
        .filter_map(|(k, v)| match &k.target {
            Target::Submit { apps, key }
                if apps.as_deref().is_none_or(|g| glob_matches(g, app_name)) =>
            {
                let key = GridKey {
                    name: key.clone(),
                    values: k.key.values.clone(),
                };
                Some((key, v.clone()))
            }
            _ => None,
        })
        .unzip();
    whatif::with_config(base, &keys, &vals)
}

/// Every configuration of the grid (`whatif::combinations`: the first key varying slowest).
pub fn configurations(grid: &[DayGridKey]) -> Vec<Vec<String>> {
    let keys: Vec<GridKey> = grid.iter().map(|k| k.key.clone()).collect();
    whatif::combinations(&keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conf::cluster::{ClusterSource, load_cluster};

    fn two_queues() -> ClusterConfig {
        let mut c = load_cluster(ClusterSource::Embedded).expect("embedded");
        let mut etl = QueueSpec::with_capacity("etl", 30.0);
        etl.maximum_capacity = 50.0;
        c.yarn.queues = vec![QueueSpec::with_capacity("default", 70.0), etl];
        c
    }

    #[test]
    fn keys_are_the_clusters_a_queues_field_or_spark_keys_for_every_or_matching_application() {
        let g = parse(&[
            "nodes=4,8".into(),
            "queue.etl.capacity=30,40".into(),
            "spark.executor.cores=1,2".into(),
            "etl-*:spark.executor.instances=2".into(),
            "--num-executors=3".into(),
        ])
        .expect("parses");
        assert_eq!(g[0].target, Target::Cluster);
        assert_eq!(
            g[1].target,
            Target::Queue {
                queue: "etl".into(),
                field: QueueField::Capacity
            }
        );
        assert_eq!(
            g[3].target,
            Target::Submit {
                apps: Some("etl-*".into()),
                key: "spark.executor.instances".into()
            }
        );
        assert_eq!(configurations(&g).len(), 8);
    }

    #[test]
    fn unknown_or_misplaced_keys_are_refused_saying_why() {
        for (spec, says) in [
            ("foo=1", "neither a Spark property"),
            ("spark.nosuch.key=1", "spark.nosuch.key"),
            ("queue.etl.weight=1", "not a queue field"),
            ("queue.etl=1", "queue.<name>.<field>"),
            ("queue.etl.capacity=lots", "not a number"),
            ("etl-*:nodes=2", "takes no APP_GLOB"),
            (":spark.executor.cores=2", "glob before ':' is empty"),
            ("nodes=0", "at least 1"),
            ("spark.eventLog.enabled=true", "no event logs"),
            ("spark.executor.cores=1,,2", "a value is empty"),
        ] {
            let e = parse(&[spec.into()]).expect_err(spec).to_string();
            assert!(
                e.contains(says) && e.contains(&format!("--grid {spec}")),
                "{e}"
            );
            assert!(e.contains("what-if-cluster --help"), "{e}");
        }
        let e = parse(&["nodes=1".into(), "nodes=2".into()]).expect_err("twice");
        assert!(e.to_string().contains("given twice"), "{e}");
    }

    #[test]
    fn a_queues_capacity_leaves_the_rest_to_the_others_in_their_proportions() {
        let base = two_queues();
        let mut c = base.clone();
        c.yarn.queues.push(QueueSpec::with_capacity("adhoc", 0.0));
        c.yarn.queues[0].capacity = 50.0;
        c.yarn.queues[2].capacity = 20.0;
        let g = parse(&["queue.etl.capacity=40".into()]).expect("parses");
        let out = apply_cluster(&c, &g, &["40".into()]).expect("applies");
        let caps: Vec<f64> = out.yarn.queues.iter().map(|q| q.capacity).collect();
        // 60 % left for default and adhoc, 50:20 as before.
        assert!((caps[0] - 60.0 * 50.0 / 70.0).abs() < 1e-9, "{caps:?}");
        assert!((caps[2] - 60.0 * 20.0 / 70.0).abs() < 1e-9, "{caps:?}");
        assert_eq!(caps[1], 40.0);
        // Above its maximum capacity (50): the cluster file's own rule refuses it.
        let e = apply_cluster(&base, &g, &["60".into()]).expect_err("above max");
        assert!(e.contains("'etl'") && e.contains("maximum-capacity"), "{e}");
        let e = apply_cluster(&base, &g, &["120".into()]).expect_err("over 100");
        assert!(e.contains("more than 100"), "{e}");
    }

    #[test]
    fn spark_keys_reach_every_application_or_those_their_glob_matches() {
        let g = parse(&[
            "spark.executor.cores=2".into(),
            "*skew:spark.executor.instances=5".into(),
            "nodes=3".into(),
        ])
        .expect("parses");
        let values: Vec<String> = vec!["2".into(), "5".into(), "3".into()];
        let base = crate::replay::simulate::user_submit_args::<&str>(&[]).expect("no words");
        let skew = submit_for(&base, &g, &values, "sparkyard-skew");
        assert_eq!(
            skew.conf,
            [
                "spark.executor.cores=2".to_string(),
                "spark.executor.instances=5".to_string()
            ]
        );
        let other = submit_for(&base, &g, &values, "sparkyard-multijob");
        assert_eq!(other.conf, ["spark.executor.cores=2".to_string()]);
    }
}
