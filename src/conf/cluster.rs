//! sparkyard's cluster file (TOML): the ResourceManager, `yarn-site.xml` values, the virtual-time
//! cost model and the NodeManagers. Owns its schema, defaults and validation; the `[yarn]` keys
//! and checks mirror `org.apache.hadoop.yarn.conf.YarnConfiguration` and the ResourceManager's
//! start-up / NodeManager-registration checks (Hadoop 3).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Deserialize;
use sparkyard_actors::simulation::config::{
    CostModel, HeartbeatAssignments, LabelCapacity, LocalityDelays, NodeSpec, QueueSpec,
    TenantLoad, YarnSettings,
};
use sparkyard_actors::simulation::facts::{GPU_URI, resource_type_names};
use toml::Spanned;

use crate::error::UserError;

/// The cluster used when no `--cluster` is given.
pub const EMBEDDED_CLUSTER: &str = include_str!("../../config/cluster.toml");

/// How the embedded cluster file is named in messages.
pub const EMBEDDED_CLUSTER_LABEL: &str = "config/cluster.toml (embedded)";

/// Limits that keep a typo from allocating a billion nodes or overflowing the virtual clock.
const MAX_NODE_GROUPS: usize = 100_000;
const MAX_TOTAL_NODES: u64 = 1_000_000;
const MAX_FILE_BYTES: u64 = 64 << 20;
const MAX_NODE_MEMORY_MB: u64 = 1 << 30;
const MAX_NODE_VCORES: u64 = 1 << 20;
const MAX_NODE_GPUS: u64 = 1 << 10;
const MAX_COST_MS: u64 = 86_400_000;
const MAX_DART_NS: u64 = 1_000_000_000;
const MAX_START_TIME_MS: u64 = 9_999_999_999_999;

/// Where the cluster description comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterSource {
    /// [`EMBEDDED_CLUSTER`]: 8 NodeManagers on two racks.
    Embedded,
    /// A `--cluster FILE`.
    Path(PathBuf),
}

/// A validated cluster: what the simulated RM and NMs are built from.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub nodes: Vec<NodeSpec>,
    pub yarn: YarnSettings,
    pub costs: CostModel,
    pub rm_host: String,
    pub rm_start_time_ms: u64,
    pub user: String,
}

/// An optional key that remembers where it was written.
type Key<T> = Option<Spanned<T>>;

/// The `[cluster]` table of a scenario, or a whole cluster file.
#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Cluster")]
pub(crate) struct RawCluster {
    #[serde(default)]
    resourcemanager: RawResourceManager,
    #[serde(default)]
    yarn: RawYarn,
    #[serde(default)]
    costs: RawCosts,
    #[serde(default)]
    #[schemars(with = "Vec<RawNodeGroup>")]
    nodes: Vec<Spanned<RawNodeGroup>>,
    #[serde(default)]
    #[schemars(with = "Vec<RawQueue>")]
    queues: Vec<Spanned<RawQueue>>,
    #[serde(default)]
    #[schemars(with = "Vec<RawTenant>")]
    tenants: Vec<Spanned<RawTenant>>,
}

/// A `[[tenants]]` entry: another user's application in a queue, holding containers for a while.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Tenant")]
struct RawTenant {
    /// The tenant's YARN user.
    #[schemars(with = "Option<String>")]
    user: Key<String>,
    /// Its queue (one of `[[queues]]`; default `default`).
    #[schemars(with = "Option<String>")]
    queue: Key<String>,
    /// When it is submitted, ms of virtual time from the cluster's start (default 0).
    #[schemars(with = "Option<u64>")]
    start_ms: Key<u64>,
    /// How long it runs from its submission; then everything it holds is freed.
    #[schemars(with = "Option<u64>")]
    duration_ms: Key<u64>,
    /// Its AM container's memory (default 1024).
    #[schemars(with = "Option<u64>")]
    am_memory_mb: Key<u64>,
    /// How many containers it asks for once its AM runs (default 0).
    #[schemars(with = "Option<u32>")]
    containers: Key<u32>,
    /// Each container's memory (default 1024).
    #[schemars(with = "Option<u64>")]
    memory_mb: Key<u64>,
    /// Each container's vcores (default 1).
    #[schemars(with = "Option<u32>")]
    vcores: Key<u32>,
    /// The node label its containers ask for (default none: the default partition).
    #[schemars(with = "Option<String>")]
    node_label: Key<String>,
}

/// A `[[queues]]` entry: a CapacityScheduler leaf queue under `root`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Queue")]
struct RawQueue {
    /// The leaf queue's name (`--queue NAME` or `root.NAME`).
    #[schemars(with = "Option<String>")]
    name: Key<String>,
    /// `capacity`: percent of the cluster; the queues add up to 100.
    #[schemars(with = "Option<f64>")]
    capacity: Key<f64>,
    /// `maximum-capacity`, percent (default 100).
    #[serde(rename = "maximum-capacity")]
    #[schemars(with = "Option<f64>")]
    maximum_capacity: Key<f64>,
    /// `maximum-am-resource-percent`, a fraction (default 0.1).
    #[serde(rename = "maximum-am-resource-percent")]
    #[schemars(with = "Option<f64>")]
    maximum_am_resource_percent: Key<f64>,
    /// `user-limit-factor` (default 1; -1: no user limit).
    #[serde(rename = "user-limit-factor")]
    #[schemars(with = "Option<f64>")]
    user_limit_factor: Key<f64>,
    /// `minimum-user-limit-percent` (default 100): each active user's floor share, in percent.
    #[serde(rename = "minimum-user-limit-percent")]
    #[schemars(with = "Option<f64>")]
    minimum_user_limit_percent: Key<f64>,
    /// `accessible-node-labels`: comma-separated labels, or `*` (unset: every label, root's `*`).
    #[serde(rename = "accessible-node-labels")]
    #[schemars(with = "Option<String>")]
    accessible_node_labels: Key<String>,
    /// `accessible-node-labels.<label>.{capacity,maximum-capacity,maximum-am-resource-percent}`,
    /// one table per label: `[queues.node-labels.gpu]`.
    #[serde(rename = "node-labels", default)]
    node_labels: BTreeMap<String, RawLabelCapacity>,
    /// `default-node-label-expression`: the label of requests that carry none.
    #[serde(rename = "default-node-label-expression")]
    #[schemars(with = "Option<String>")]
    default_node_label_expression: Key<String>,
}

/// A queue's `accessible-node-labels.<label>.*` keys.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "QueueNodeLabel")]
struct RawLabelCapacity {
    /// Percent of the label's partition (default 0); the queues' add up to 100 per label.
    #[schemars(with = "Option<f64>")]
    capacity: Key<f64>,
    /// Percent (default 100).
    #[serde(rename = "maximum-capacity")]
    #[schemars(with = "Option<f64>")]
    maximum_capacity: Key<f64>,
    /// A fraction (default the queue's `maximum-am-resource-percent`).
    #[serde(rename = "maximum-am-resource-percent")]
    #[schemars(with = "Option<f64>")]
    maximum_am_resource_percent: Key<f64>,
}

#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ResourceManager")]
struct RawResourceManager {
    #[schemars(with = "Option<String>")]
    host: Key<String>,
    #[schemars(with = "Option<u64>")]
    start_time_ms: Key<u64>,
    #[schemars(with = "Option<String>")]
    user: Key<String>,
}

#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Yarn")]
struct RawYarn {
    #[serde(rename = "yarn.scheduler.minimum-allocation-mb")]
    #[schemars(with = "Option<u64>")]
    min_mb: Key<u64>,
    #[serde(rename = "yarn.scheduler.maximum-allocation-mb")]
    #[schemars(with = "Option<u64>")]
    max_mb: Key<u64>,
    #[serde(rename = "yarn.scheduler.minimum-allocation-vcores")]
    #[schemars(with = "Option<u32>")]
    min_vcores: Key<u32>,
    #[serde(rename = "yarn.scheduler.maximum-allocation-vcores")]
    #[schemars(with = "Option<u32>")]
    max_vcores: Key<u32>,
    #[serde(rename = "yarn.resourcemanager.am.max-attempts")]
    #[schemars(with = "Option<u32>")]
    am_max_attempts: Key<u32>,
    #[serde(rename = "yarn.nm.liveness-monitor.expiry-interval-ms")]
    #[schemars(with = "Option<u64>")]
    nm_expiry_ms: Key<u64>,
    #[serde(rename = "yarn.am.liveness-monitor.expiry-interval-ms")]
    #[schemars(with = "Option<u64>")]
    am_expiry_ms: Key<u64>,
    #[serde(rename = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms")]
    #[schemars(with = "Option<u64>")]
    nm_heartbeat_ms: Key<u64>,
    #[serde(rename = "yarn.nodemanager.sleep-delay-before-sigkill.ms")]
    #[schemars(with = "Option<u64>")]
    sigkill_delay_ms: Key<u64>,
    /// `yarn.node-labels.enabled` (false): whether YARN accepts label expressions and node
    /// labels (`[[nodes]] label`) at all.
    #[serde(rename = "yarn.node-labels.enabled")]
    #[schemars(with = "Option<bool>")]
    node_labels_enabled: Key<bool>,
    /// `yarn.resource-types` (none): resource types beyond memory and vcores, comma-separated;
    /// sparkyard simulates `yarn.io/gpu` only. Needed by any `[[nodes]] gpus`.
    #[serde(rename = "yarn.resource-types")]
    #[schemars(with = "Option<String>")]
    resource_types: Key<String>,
    /// `yarn.resource-types.yarn.io/gpu.maximum-allocation` (`Long.MAX_VALUE`): the largest
    /// `yarn.io/gpu` one container may ask for.
    #[serde(rename = "yarn.resource-types.yarn.io/gpu.maximum-allocation")]
    #[schemars(with = "Option<u64>")]
    gpu_max: Key<u64>,
    /// `yarn.cluster.max-application-priority` (0): application priorities above it are lowered
    /// to it, so with the default every application has priority 0.
    #[serde(rename = "yarn.cluster.max-application-priority")]
    #[schemars(with = "Option<u32>")]
    max_app_priority: Key<u32>,
    /// capacity-scheduler.xml: whether a node heartbeat may get more than one container.
    #[serde(rename = "yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled")]
    #[schemars(with = "Option<bool>")]
    assign_multiple: Key<bool>,
    /// capacity-scheduler.xml: containers per node heartbeat (100; -1 for no limit).
    #[serde(rename = "yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments")]
    #[schemars(with = "Option<i64>")]
    max_assign: Key<i64>,
    /// capacity-scheduler.xml: OFF_SWITCH containers per node heartbeat (1).
    #[serde(rename = "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments")]
    #[schemars(with = "Option<u32>")]
    max_offswitch: Key<u32>,
    /// capacity-scheduler.xml: missed scheduling opportunities before a container with a node
    /// preference may go rack-local (40).
    #[serde(rename = "yarn.scheduler.capacity.node-locality-delay")]
    #[schemars(with = "Option<u64>")]
    node_locality_delay: Key<u64>,
    /// capacity-scheduler.xml: further missed opportunities before off-switch (-1: scaled by
    /// the application's asks over the cluster's nodes).
    #[serde(rename = "yarn.scheduler.capacity.rack-locality-additional-delay")]
    #[schemars(with = "Option<i64>")]
    rack_locality_additional_delay: Key<i64>,
    /// capacity-scheduler.xml: whether a rack-local container resets the missed opportunities
    /// (true).
    #[serde(rename = "yarn.scheduler.capacity.rack-locality-full-reset")]
    #[schemars(with = "Option<bool>")]
    rack_locality_full_reset: Key<bool>,
}

#[derive(Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Costs")]
struct RawCosts {
    #[schemars(with = "Option<u64>")]
    network_latency_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    container_launch_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    localization_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    docker_stop_grace_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    jvm_start_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    spark_context_init_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    executor_env_init_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    task_launch_overhead_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    first_task_warmup_ms: Key<u64>,
    #[schemars(with = "Option<u64>")]
    sparkpi_dart_ns: Key<u64>,
    #[schemars(with = "Option<bool>")]
    sparkpi_real_darts: Key<bool>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "NodeGroup")]
struct RawNodeGroup {
    #[schemars(with = "Option<String>")]
    host: Key<String>,
    #[schemars(with = "Option<u64>")]
    count: Key<u64>,
    #[schemars(with = "Option<u64>")]
    first: Key<u64>,
    #[schemars(with = "Option<String>")]
    rack: Key<String>,
    #[schemars(with = "Option<u64>")]
    memory_mb: Key<u64>,
    #[schemars(with = "Option<u32>")]
    vcores: Key<u32>,
    /// The node label (partition) of these NodeManagers (`yarn rmadmin -replaceLabelsOnNode`);
    /// needs `yarn.node-labels.enabled`.
    #[schemars(with = "Option<String>")]
    label: Key<String>,
    /// The `yarn.io/gpu` count each of these NodeManagers registers (its GPU plugin,
    /// `yarn.nodemanager.resource-plugins = yarn.io/gpu`, discovers them); 0: no plugin.
    /// Needs `yarn.resource-types` naming `yarn.io/gpu`.
    #[schemars(with = "Option<u32>")]
    gpus: Key<u32>,
}

/// Turns byte offsets into `line N: ` prefixes for validation messages.
struct Lines<'a> {
    text: &'a str,
}

impl Lines<'_> {
    fn line_of(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text.as_bytes()[..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// `line N: ` when the key was written, nothing when it took its default.
    fn at<T>(&self, key: &Key<T>) -> String {
        key.as_ref().map_or_else(String::new, |k| {
            format!("line {}: ", self.line_of(k.span().start))
        })
    }
}

/// The value of an optional key, or its default.
fn value<T: Clone>(key: &Key<T>, default: T) -> T {
    key.as_ref().map_or(default, |k| k.get_ref().clone())
}

/// Hostnames as YARN accepts them in node ids: letters, digits, `-` and `.`.
fn valid_host(host: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    !host.is_empty() && host.len() <= 253 && host.chars().all(ok)
}

fn check_range(
    lines: &Lines,
    key: &Key<u64>,
    name: &str,
    min: u64,
    max: u64,
) -> Result<(), String> {
    let v = value(key, min);
    if v < min || v > max {
        return Err(format!(
            "{}{name}: must be between {min} and {max}, got {v}",
            lines.at(key)
        ));
    }
    Ok(())
}

fn resourcemanager(
    raw: &RawResourceManager,
    lines: &Lines,
) -> Result<(String, u64, String), String> {
    let host = value(&raw.host, "rm-1.sparkyard.internal".to_string());
    if !valid_host(&host) {
        let at = lines.at(&raw.host);
        return Err(format!(
            "{at}resourcemanager.host: not a valid host name: {host:?}"
        ));
    }
    let start_key = &raw.start_time_ms;
    check_range(
        lines,
        start_key,
        "resourcemanager.start_time_ms",
        1,
        MAX_START_TIME_MS,
    )?;
    let user = value(&raw.user, "spark".to_string());
    let user_ok = |c: char| c.is_ascii_alphanumeric() || "._-".contains(c);
    if user.is_empty() || user.len() > 64 || !user.chars().all(user_ok) {
        let at = lines.at(&raw.user);
        return Err(format!(
            "{at}resourcemanager.user: not a valid user name: {user:?}"
        ));
    }
    Ok((host, value(start_key, 1_764_662_400_000), user))
}

/// `yarn."<name>": must be at least <floor_name> (<floor>), got <v>` for a max below its min.
fn at_least(at: String, name: &str, floor_name: &str, floor: u64, v: u64) -> Result<(), String> {
    if v >= floor {
        return Ok(());
    }
    Err(format!(
        "{at}yarn.\"{name}\": must be at least {floor_name} ({floor}), got {v}"
    ))
}

/// `yarn-site.xml` names, as written in `[yarn]` and quoted in messages.
const MIN_MB: &str = "yarn.scheduler.minimum-allocation-mb";
const MAX_MB: &str = "yarn.scheduler.maximum-allocation-mb";
const MIN_VCORES: &str = "yarn.scheduler.minimum-allocation-vcores";
const MAX_VCORES: &str = "yarn.scheduler.maximum-allocation-vcores";
const AM_MAX_ATTEMPTS: &str = "yarn.resourcemanager.am.max-attempts";
const RESOURCE_TYPES: &str = "yarn.resource-types";
const NM_EXPIRY: &str = "yarn.nm.liveness-monitor.expiry-interval-ms";
const AM_EXPIRY: &str = "yarn.am.liveness-monitor.expiry-interval-ms";
const NM_HEARTBEAT: &str = "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms";
const MAX_ASSIGN: &str = "yarn.scheduler.capacity.per-node-heartbeat.maximum-container-assignments";
const MAX_OFFSWITCH: &str =
    "yarn.scheduler.capacity.per-node-heartbeat.maximum-offswitch-assignments";
const RACK_ADDITIONAL_DELAY: &str = "yarn.scheduler.capacity.rack-locality-additional-delay";

/// A `[yarn]` value that must be at least 1 (a zero minimum, interval or attempt count would
/// stall or divide by zero in the simulated RM).
fn yarn_positive<T: Copy + Into<u64>>(
    lines: &Lines,
    key: &Key<T>,
    name: &str,
    default: T,
) -> Result<T, String> {
    let v = value(key, default);
    if v.into() == 0 {
        return Err(format!(
            "{}yarn.\"{name}\": must be at least 1, got 0",
            lines.at(key)
        ));
    }
    Ok(v)
}

/// The `[yarn]` section with YARN's defaults; maximum allocations may exceed every node (YARN
/// allows it) but not fall below the minimums.
fn yarn(raw: &RawYarn, lines: &Lines) -> Result<YarnSettings, String> {
    let min_mb = yarn_positive(lines, &raw.min_mb, MIN_MB, 1024)?;
    let max_mb = value(&raw.max_mb, 8192);
    at_least(lines.at(&raw.max_mb), MAX_MB, MIN_MB, min_mb, max_mb)?;
    let min_vcores = yarn_positive(lines, &raw.min_vcores, MIN_VCORES, 1)?;
    let max_vcores = value(&raw.max_vcores, 4);
    let (min_vc, max_vc) = (u64::from(min_vcores), u64::from(max_vcores));
    at_least(
        lines.at(&raw.max_vcores),
        MAX_VCORES,
        MIN_VCORES,
        min_vc,
        max_vc,
    )?;
    Ok(YarnSettings {
        minimum_allocation_mb: min_mb,
        maximum_allocation_mb: max_mb,
        minimum_allocation_vcores: min_vcores,
        maximum_allocation_vcores: max_vcores,
        am_max_attempts: yarn_positive(lines, &raw.am_max_attempts, AM_MAX_ATTEMPTS, 2)?,
        nm_liveness_expiry_interval_ms: yarn_positive(
            lines,
            &raw.nm_expiry_ms,
            NM_EXPIRY,
            600_000,
        )?,
        am_liveness_expiry_interval_ms: yarn_positive(
            lines,
            &raw.am_expiry_ms,
            AM_EXPIRY,
            600_000,
        )?,
        nm_heartbeat_interval_ms: yarn_positive(lines, &raw.nm_heartbeat_ms, NM_HEARTBEAT, 1000)?,
        // YarnConfiguration.DEFAULT_NM_SLEEP_DELAY_BEFORE_SIGKILL_MS; 0 is allowed (SIGKILL
        // right after SIGTERM, no time for shutdown hooks).
        sleep_delay_before_sigkill_ms: value(&raw.sigkill_delay_ms, 250),
        node_labels_enabled: value(&raw.node_labels_enabled, false),
        gpu_resource_type: gpu_resource_type(raw, lines)?,
        gpu_maximum_allocation: value(&raw.gpu_max, i64::MAX as u64),
        max_application_priority: value(&raw.max_app_priority, 0),
        queues: Vec::new(),
        tenants: Vec::new(),
        heartbeat_assignments: heartbeat_assignments(raw, lines)?,
        locality_delays: locality_delays(raw, lines)?,
    })
}

/// Whether `yarn.resource-types` names `yarn.io/gpu` (`ResourceUtils.getResourceTypes` splits
/// it on ',' and trims each name). Another type Hadoop would accept, but sparkyard does not
/// simulate it, so it refuses it rather than ignore it.
fn gpu_resource_type(raw: &RawYarn, lines: &Lines) -> Result<bool, String> {
    let Some(types) = &raw.resource_types else {
        return Ok(false);
    };
    let mut gpu = false;
    for t in resource_type_names(types.get_ref()) {
        if t != GPU_URI {
            return Err(format!(
                "{}yarn.\"{RESOURCE_TYPES}\": resource type {t} is not simulated (only \
                 {GPU_URI} is)",
                lines.at(&raw.resource_types)
            ));
        }
        gpu = true;
    }
    Ok(gpu)
}

/// The leaf queues' locality delays with CapacitySchedulerConfiguration's defaults
/// (`DEFAULT_NODE_LOCALITY_DELAY` 40, `DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY` -1,
/// `DEFAULT_RACK_LOCALITY_FULL_RESET` true). Hadoop takes -1 for the additional delay as "scale
/// it by the asks"; below -1 it has no meaning, so sparkyard refuses it.
fn locality_delays(raw: &RawYarn, lines: &Lines) -> Result<LocalityDelays, String> {
    let d = LocalityDelays::default();
    let additional = match value(&raw.rack_locality_additional_delay, -1) {
        -1 => None,
        v if v >= 0 => Some(v as u64),
        v => {
            return Err(format!(
                "{}yarn.\"{RACK_ADDITIONAL_DELAY}\": must be -1 (scaled by the asks) or at least 0, got {v}",
                lines.at(&raw.rack_locality_additional_delay)
            ));
        }
    };
    Ok(LocalityDelays {
        node_locality_delay: value(&raw.node_locality_delay, d.node_locality_delay),
        rack_locality_additional_delay: additional,
        rack_locality_full_reset: value(&raw.rack_locality_full_reset, d.rack_locality_full_reset),
    })
}

/// The `per-node-heartbeat.*` keys with CapacitySchedulerConfiguration's defaults. Hadoop reads
/// an off-switch limit below 1 as 1 (with a warning) and any negative container limit as "no
/// limit"; sparkyard refuses both rather than change what was written.
fn heartbeat_assignments(raw: &RawYarn, lines: &Lines) -> Result<HeartbeatAssignments, String> {
    let d = HeartbeatAssignments::default();
    let max_assign = value(&raw.max_assign, d.maximum_container_assignments);
    if max_assign == 0 || max_assign < -1 {
        return Err(format!(
            "{}yarn.\"{MAX_ASSIGN}\": must be -1 (no limit) or at least 1, got {max_assign}",
            lines.at(&raw.max_assign)
        ));
    }
    Ok(HeartbeatAssignments {
        multiple_assignments_enabled: value(&raw.assign_multiple, d.multiple_assignments_enabled),
        maximum_container_assignments: max_assign,
        maximum_offswitch_assignments: yarn_positive(
            lines,
            &raw.max_offswitch,
            MAX_OFFSWITCH,
            d.maximum_offswitch_assignments,
        )?,
    })
}

/// The `[[queues]]`: each named once, percentages in range, capacities adding up to 100 as the
/// CapacityScheduler requires of `root`'s children; none at all is one `default` queue at 100 %.
fn queues(raw: &[Spanned<RawQueue>], lines: &Lines) -> Result<Vec<QueueSpec>, String> {
    if raw.is_empty() {
        return Ok(vec![QueueSpec::with_capacity("default", 100.0)]);
    }
    let mut out: Vec<QueueSpec> = Vec::new();
    for q in raw {
        let at = format!("line {}: ", lines.line_of(q.span().start));
        let q = q.get_ref();
        let name = q
            .name
            .as_ref()
            .map(|n| n.get_ref().clone())
            .ok_or_else(|| format!("{at}[[queues]]: a queue needs a name"))?;
        if name.is_empty() || name.contains('.') || out.iter().any(|o| o.name == name) {
            return Err(format!(
                "{at}[[queues]]: queue name '{name}' must be non-empty, without '.', and unique"
            ));
        }
        let mut spec = QueueSpec::with_capacity(&name, value(&q.capacity, 0.0));
        spec.maximum_capacity = value(&q.maximum_capacity, 100.0);
        spec.maximum_am_resource_percent = value(&q.maximum_am_resource_percent, 0.1);
        spec.user_limit_factor = value(&q.user_limit_factor, 1.0);
        spec.minimum_user_limit_percent = value(&q.minimum_user_limit_percent, 100.0);
        queue_labels(&mut spec, q, &at)?;
        check_queue_limits(&spec).map_err(|why| format!("{at}{why}"))?;
        out.push(spec);
    }
    label_capacity_sums(&out)?;
    check_capacity_sum(&out)?;
    Ok(out)
}

/// A leaf queue's percentages in range, as the cluster file requires them (what-if-cluster
/// checks a grid's queue values with it).
pub fn check_queue_limits(spec: &QueueSpec) -> Result<(), String> {
    // UsersManager.computeUserLimit reads a user-limit-factor of -1 as "no user limit".
    let bad = !(0.0..=100.0).contains(&spec.capacity)
        || !(spec.capacity..=100.0).contains(&spec.maximum_capacity)
        || !(0.0..=1.0).contains(&spec.maximum_am_resource_percent)
        || (spec.user_limit_factor <= 0.0 && spec.user_limit_factor != -1.0)
        || spec.minimum_user_limit_percent < 0.0;
    if bad {
        return Err(format!(
            "[[queues]] '{}': capacity must be 0-100, maximum-capacity between the \
             capacity and 100, maximum-am-resource-percent 0-1, user-limit-factor above 0 \
             or -1 (no user limit) and minimum-user-limit-percent at least 0",
            spec.name
        ));
    }
    Ok(())
}

/// The leaf queues' capacities add up to 100 %.
pub fn check_capacity_sum(queues: &[QueueSpec]) -> Result<(), String> {
    let total: f64 = queues.iter().map(|q| q.capacity).sum();
    if (total - 100.0).abs() > 1e-6 {
        // CapacityScheduler (ParentQueue.setChildQueues): children must add up to 100 %.
        return Err(format!(
            "[[queues]]: Illegal capacity of {} for children of queue root; the queues' \
             capacities must add up to 100",
            total / 100.0
        ));
    }
    Ok(())
}

/// A queue's node-label keys: `accessible-node-labels` split on ',' as Hadoop does (a `*`
/// keeps only `*`), and each `accessible-node-labels.<label>.*` in range
/// (CapacitySchedulerConfiguration.internalGetLabeledQueueCapacity's text).
fn queue_labels(spec: &mut QueueSpec, q: &RawQueue, at: &str) -> Result<(), String> {
    if let Some(list) = &q.accessible_node_labels {
        let mut labels: Vec<String> = Vec::new();
        for l in list
            .get_ref()
            .split(',')
            .map(str::trim)
            .filter(|l| !l.is_empty())
        {
            check_label_name(l).map_err(|m| format!("{at}accessible-node-labels: {m}"))?;
            if !labels.iter().any(|x| x == l) {
                labels.push(l.to_string());
            }
        }
        if labels.iter().any(|l| l == "*") {
            labels = vec!["*".to_string()];
        }
        spec.accessible_node_labels = Some(labels);
    }
    for (label, raw) in &q.node_labels {
        let at = format!("{at}node-labels.{label}: ");
        check_label_name(label).map_err(|m| format!("{at}{m}"))?;
        let c = LabelCapacity {
            capacity: value(&raw.capacity, 0.0),
            maximum_capacity: value(&raw.maximum_capacity, 100.0),
            maximum_am_resource_percent: value(
                &raw.maximum_am_resource_percent,
                spec.maximum_am_resource_percent,
            ),
        };
        for v in [c.capacity, c.maximum_capacity] {
            if !(0.0..=100.0).contains(&v) {
                return Err(format!(
                    "{at}Illegal capacity of {v} for node-label={label} in queue=root.{}, valid \
                     capacity should in range of [0, 100].",
                    spec.name
                ));
            }
        }
        if !(0.0..=1.0).contains(&c.maximum_am_resource_percent) {
            return Err(format!("{at}maximum-am-resource-percent must be 0-1"));
        }
        if !spec.can_access_label(label) {
            return Err(format!(
                "{at}queue '{}' sets a capacity for label {label} but its accessible-node-labels \
                 do not include it",
                spec.name
            ));
        }
        spec.label_capacities.insert(label.clone(), c);
    }
    if let Some(e) = &q.default_node_label_expression {
        let e = e.get_ref().trim();
        if !e.is_empty() {
            spec.default_node_label_expression = Some(e.to_string());
        }
    }
    Ok(())
}

/// Hadoop's label names (`CommonNodeLabelsManager.checkAndThrowLabelName`): a letter or digit,
/// then letters, digits, '-' and '_', at most 255 characters (`*` allowed in access lists).
fn check_label_name(label: &str) -> Result<(), String> {
    let mut chars = label.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if label == "*" || (first_ok && rest_ok && label.len() <= 255) {
        return Ok(());
    }
    Err(format!(
        "label name={label} is not valid: a node label starts with a letter or digit and \
         contains only letters, digits, '-' and '_' (at most 255)"
    ))
}

/// `ParentQueue.setChildQueues`' check per label: for a label some queue gives a capacity,
/// root's children add up to 100 % of that partition (root has 100 % of every label).
fn label_capacity_sums(queues: &[QueueSpec]) -> Result<(), String> {
    let labels: BTreeSet<&String> = queues
        .iter()
        .flat_map(|q| q.label_capacities.keys())
        .collect();
    for label in labels {
        let sum: f64 = queues
            .iter()
            .map(|q| q.label_capacity(label).capacity)
            .sum();
        if (sum - 100.0).abs() > 1e-6 {
            return Err(format!(
                "[[queues]]: Illegal capacity of {} for children of queue root for label={label}; \
                 the queues' node-labels.{label}.capacity must add up to 100",
                sum / 100.0
            ));
        }
    }
    Ok(())
}

/// Node labels need `yarn.node-labels.enabled`, and every label a queue names or defaults to
/// must be on some NodeManager (the cluster's labels are its nodes' labels here).
fn check_cluster_labels(yarn: &YarnSettings, nodes: &[NodeSpec]) -> Result<(), String> {
    let cluster: BTreeSet<&str> = nodes.iter().filter_map(|n| n.label.as_deref()).collect();
    if let Some(first) = cluster.first()
        && !yarn.node_labels_enabled
    {
        return Err(format!(
            "nodes carry node label {first} but [yarn] \"yarn.node-labels.enabled\" is false: \
                 YARN refuses node labels then (Node-label-based scheduling is disabled); set it \
                 to true"
        ));
    }
    for q in &yarn.queues {
        let named = q
            .label_capacities
            .keys()
            .map(String::as_str)
            .chain(
                q.accessible_node_labels
                    .iter()
                    .flatten()
                    .map(String::as_str),
            )
            .chain(q.default_node_label_expression.as_deref());
        for l in named {
            if l != "*" && !cluster.contains(l) {
                return Err(format!(
                    "[[queues]] '{}': node label {l} is not on any NodeManager (give some \
                     [[nodes]] label = \"{l}\")",
                    q.name
                ));
            }
        }
        if let Some(d) = &q.default_node_label_expression
            && !q.can_access_label(d)
        {
            return Err(format!(
                "[[queues]] '{}': Invalid default label expression of queue=root.{} doesn't \
                     have permission to access all labels in default label expression. \
                     labelExpression of resource request={d}",
                q.name, q.name
            ));
        }
    }
    Ok(())
}

/// A tenant's node label is one a NodeManager carries and its queue may access (YARN would
/// refuse its requests otherwise; a tenant is only load, so the file is refused instead).
fn check_tenant_labels(yarn: &YarnSettings, nodes: &[NodeSpec]) -> Result<(), String> {
    for t in &yarn.tenants {
        let Some(l) = &t.node_label else {
            continue;
        };
        let on_node = nodes.iter().any(|n| n.label.as_deref() == Some(l));
        let access = yarn.queue(&t.queue).is_some_and(|q| q.can_access_label(l));
        if !on_node || !access {
            return Err(format!(
                "[[tenants]] user '{}': node_label {l} must be on some [[nodes]] entry and \
                 accessible to queue '{}' (accessible-node-labels)",
                t.user, t.queue
            ));
        }
    }
    Ok(())
}

/// The `[[tenants]]`: each in a known queue, with a user and a positive duration.
fn tenants(
    raw: &[Spanned<RawTenant>],
    lines: &Lines,
    yarn: &YarnSettings,
) -> Result<Vec<TenantLoad>, String> {
    let mut out = Vec::new();
    for t in raw {
        let at = format!("line {}: [[tenants]]", lines.line_of(t.span().start));
        let t = t.get_ref();
        let user = value(&t.user, String::new());
        let queue = value(&t.queue, "default".to_string());
        let load = TenantLoad {
            user,
            queue,
            start_ms: value(&t.start_ms, 0),
            duration_ms: value(&t.duration_ms, 0),
            am_memory_mb: value(&t.am_memory_mb, 1024),
            containers: value(&t.containers, 0),
            memory_mb: value(&t.memory_mb, 1024),
            vcores: value(&t.vcores, 1),
            node_label: t
                .node_label
                .as_ref()
                .map(|l| l.get_ref().trim().to_string())
                .filter(|l| !l.is_empty()),
        };
        if load.user.is_empty() {
            return Err(format!("{at}: a tenant needs a user"));
        }
        if yarn.queue(&load.queue).is_none() {
            return Err(format!(
                "{at}: unknown queue '{}'; the queues are {}",
                load.queue,
                yarn.queues
                    .iter()
                    .map(|q| q.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if load.duration_ms == 0 || load.am_memory_mb == 0 || load.memory_mb == 0 {
            return Err(format!(
                "{at}: duration_ms, am_memory_mb and memory_mb must be above 0"
            ));
        }
        out.push(load);
    }
    Ok(out)
}

/// One cost with its default, capped so sums on the virtual clock cannot overflow.
fn cost(lines: &Lines, key: &Key<u64>, name: &str, default: u64, max: u64) -> Result<u64, String> {
    let v = value(key, default);
    if v > max {
        return Err(format!(
            "{}costs.{name}: must be at most {max}, got {v}",
            lines.at(key)
        ));
    }
    Ok(v)
}

fn costs(raw: &RawCosts, lines: &Lines) -> Result<CostModel, String> {
    let ms =
        |key: &Key<u64>, name: &str, default: u64| cost(lines, key, name, default, MAX_COST_MS);
    Ok(CostModel {
        network_latency_ms: ms(&raw.network_latency_ms, "network_latency_ms", 0)?,
        container_launch_ms: ms(&raw.container_launch_ms, "container_launch_ms", 400)?,
        localization_ms: ms(&raw.localization_ms, "localization_ms", 0)?,
        docker_stop_grace_ms: ms(&raw.docker_stop_grace_ms, "docker_stop_grace_ms", 0)?,
        jvm_start_ms: ms(&raw.jvm_start_ms, "jvm_start_ms", 1200)?,
        spark_context_init_ms: ms(&raw.spark_context_init_ms, "spark_context_init_ms", 1800)?,
        executor_env_init_ms: ms(&raw.executor_env_init_ms, "executor_env_init_ms", 600)?,
        task_launch_overhead_ms: ms(&raw.task_launch_overhead_ms, "task_launch_overhead_ms", 5)?,
        first_task_warmup_ms: ms(&raw.first_task_warmup_ms, "first_task_warmup_ms", 350)?,
        sparkpi_dart_ns: cost(
            lines,
            &raw.sparkpi_dart_ns,
            "sparkpi_dart_ns",
            25,
            MAX_DART_NS,
        )?,
        sparkpi_real_darts: value(&raw.sparkpi_real_darts, true),
        executor_start_spread_ms: Vec::new(),
        first_executors_extra: Default::default(),
        executor_init_ms: 0,
    })
}

/// A `[[nodes]]` entry with its defaults applied (YARN's NodeManager defaults).
struct NodeGroup {
    host: String,
    count: u64,
    first: u64,
    rack: String,
    memory_mb: u64,
    vcores: u32,
    label: Option<String>,
    gpus: u32,
    /// `line N: nodes[i].host` for host errors found while expanding.
    host_at: String,
}

/// Error prefixes for one `[[nodes]]` entry: `line N: nodes[i].<field>: `.
struct NodeAt<'a> {
    lines: &'a Lines<'a>,
    i: usize,
    /// Where the entry starts: the line named when a key was left to its default.
    table_offset: usize,
}

impl NodeAt<'_> {
    /// `line N: nodes[i].<field>`, N being the key's line or else the entry's.
    fn prefix<T>(&self, key: &Key<T>, field: &str) -> String {
        let offset = key.as_ref().map_or(self.table_offset, |k| k.span().start);
        format!(
            "line {}: nodes[{}].{field}",
            self.lines.line_of(offset),
            self.i
        )
    }

    fn err<T>(&self, key: &Key<T>, field: &str, message: impl std::fmt::Display) -> String {
        format!("{}: {message}", self.prefix(key, field))
    }
}

/// A NodeManager resource: the RM refuses nodes below the minimum allocation
/// ("doesn't satisfy minimum allocations"); the cap keeps cluster totals from overflowing.
fn node_resource<T: Copy + Into<u64> + std::fmt::Display>(
    at: &NodeAt,
    key: &Key<T>,
    (field, default): (&str, T),
    (min_name, min): (&str, T),
    max: u64,
) -> Result<T, String> {
    let v = value(key, default);
    if v.into() < min.into() {
        return Err(at.err(
            key,
            field,
            format!("must be at least {min_name} ({min}), got {v}"),
        ));
    }
    if v.into() > max {
        return Err(at.err(key, field, format!("must be at most {max}, got {v}")));
    }
    Ok(v)
}

/// `count`, `host` and `first` of one entry: how many NodeManagers and their names.
fn node_names(raw: &RawNodeGroup, at: &NodeAt) -> Result<(String, u64, u64), String> {
    let count = value(&raw.count, 1);
    if count == 0 || count > MAX_TOTAL_NODES {
        let message = format!("must be between 1 and {MAX_TOTAL_NODES}, got {count}");
        return Err(at.err(&raw.count, "count", message));
    }
    let host = value(&raw.host, "nm-{n}.sparkyard.internal".to_string());
    if count > 1 && !host.contains("{n}") {
        let message = format!("must contain {{n}} when count > 1 (got {host:?})");
        return Err(at.err(&raw.host, "host", message));
    }
    let first = value(&raw.first, 1);
    if first.checked_add(count - 1).is_none() {
        return Err(at.err(
            &raw.first,
            "first",
            "first + count - 1 does not fit in 64 bits",
        ));
    }
    Ok((host, count, first))
}

/// Checks one entry's own keys, with YARN's NodeManager defaults for the missing ones.
fn node_group(raw: &RawNodeGroup, at: &NodeAt, yarn: &YarnSettings) -> Result<NodeGroup, String> {
    let (host, count, first) = node_names(raw, at)?;
    let rack = value(&raw.rack, "/default-rack".to_string());
    if !rack.starts_with('/') || rack.chars().any(char::is_whitespace) {
        let message = format!("must start with '/' and contain no spaces (got {rack:?})");
        return Err(at.err(&raw.rack, "rack", message));
    }
    let min_mb = (
        "yarn.scheduler.minimum-allocation-mb",
        yarn.minimum_allocation_mb,
    );
    let memory_mb = node_resource(
        at,
        &raw.memory_mb,
        ("memory_mb", 8192),
        min_mb,
        MAX_NODE_MEMORY_MB,
    )?;
    let min_vcores = (
        "yarn.scheduler.minimum-allocation-vcores",
        yarn.minimum_allocation_vcores,
    );
    let vcores = node_resource(at, &raw.vcores, ("vcores", 8), min_vcores, MAX_NODE_VCORES)?;
    let label = match &raw.label {
        Some(l) if !l.get_ref().trim().is_empty() => {
            let l = l.get_ref().trim();
            if l == "*" {
                return Err(at.err(&raw.label, "label", "'*' is not a node label"));
            }
            check_label_name(l).map_err(|m| at.err(&raw.label, "label", m))?;
            Some(l.to_string())
        }
        _ => None,
    };
    let gpus = node_gpus(raw, at, yarn)?;
    let host_at = at
        .err(&raw.host, "host", "")
        .trim_end_matches(": ")
        .to_string();
    Ok(NodeGroup {
        host,
        count,
        first,
        rack,
        memory_mb,
        vcores,
        label,
        gpus,
        host_at,
    })
}

/// `gpus` of one entry. A NodeManager whose GPU plugin finds GPUs when the cluster's
/// `yarn.resource-types` lacks `yarn.io/gpu` does not start: Hadoop's
/// `GpuNodeResourceUpdateHandler.updateConfiguredResource` (hadoop-yarn-server-nodemanager,
/// `containermanager/resourceplugin/gpu/`) warns, then its `res.setResourceValue(GPU_URI, n)`
/// throws `ResourceNotFoundException` for the unknown type, so the NodeManager fails in
/// `serviceInit` and never registers. sparkyard refuses the file with that warning's text.
fn node_gpus(raw: &RawNodeGroup, at: &NodeAt, yarn: &YarnSettings) -> Result<u32, String> {
    let gpus = value(&raw.gpus, 0);
    if u64::from(gpus) > MAX_NODE_GPUS {
        let message = format!("must be at most {MAX_NODE_GPUS}, got {gpus}");
        return Err(at.err(&raw.gpus, "gpus", message));
    }
    if gpus > 0 && !yarn.gpu_resource_type {
        let message = format!(
            "Found {gpus} usable GPUs, however {GPU_URI} resource-type is not configured inside \
             resource-types.xml, please configure it to enable GPU feature or remove {GPU_URI} \
             from yarn.nodemanager.resource-plugins (the NodeManager then fails to start); set \
             [yarn] \"{RESOURCE_TYPES}\" = \"{GPU_URI}\""
        );
        return Err(at.err(&raw.gpus, "gpus", message));
    }
    Ok(gpus)
}

/// Expands every group into NodeManagers, refusing bad and duplicate host names.
fn expand(groups: &[NodeGroup]) -> Result<Vec<NodeSpec>, String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut nodes = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        for n in g.first..=g.first + (g.count - 1) {
            let host = g.host.replace("{n}", &n.to_string());
            if !valid_host(&host) {
                return Err(format!("{}: not a valid host name: {host:?}", g.host_at));
            }
            if let Some(other) = seen.insert(host.clone(), i) {
                let at = &g.host_at;
                return Err(format!(
                    "{at}: duplicate host {host} (also in nodes[{other}])"
                ));
            }
            let rack = g.rack.clone();
            nodes.push(NodeSpec {
                host,
                rack,
                memory_mb: g.memory_mb,
                vcores: g.vcores,
                label: g.label.clone(),
                gpus: g.gpus,
            });
        }
    }
    Ok(nodes)
}

fn nodes(
    raw: &[Spanned<RawNodeGroup>],
    lines: &Lines,
    yarn: &YarnSettings,
) -> Result<Vec<NodeSpec>, String> {
    if raw.is_empty() {
        return Err("no [[nodes]] entry: the cluster needs at least one NodeManager".to_string());
    }
    if raw.len() > MAX_NODE_GROUPS {
        return Err(format!(
            "nodes: at most {MAX_NODE_GROUPS} [[nodes]] entries, got {}",
            raw.len()
        ));
    }
    let mut groups = Vec::with_capacity(raw.len());
    let mut total: u64 = 0;
    for (i, entry) in raw.iter().enumerate() {
        let group = node_group(
            entry.get_ref(),
            &NodeAt {
                lines,
                i,
                table_offset: entry.span().start,
            },
            yarn,
        )?;
        total = total.saturating_add(group.count);
        if total > MAX_TOTAL_NODES {
            return Err(format!(
                "nodes: at most {MAX_TOTAL_NODES} NodeManagers in total (nodes[{i}] goes past it)"
            ));
        }
        groups.push(group);
    }
    expand(&groups)
}

/// A hint for the most likely TOML mistake: dotted YARN keys written without quotes.
pub(crate) fn toml_hint(message: &str) -> &'static str {
    if message.contains("unknown field `yarn`") {
        "\nhint: quote YARN property names: \"yarn.scheduler.minimum-allocation-mb\" = 1024"
    } else {
        ""
    }
}

fn validate(raw: &RawCluster, lines: &Lines) -> Result<ClusterConfig, String> {
    let (rm_host, rm_start_time_ms, user) = resourcemanager(&raw.resourcemanager, lines)?;
    let mut yarn = yarn(&raw.yarn, lines)?;
    yarn.queues = queues(&raw.queues, lines)?;
    yarn.tenants = tenants(&raw.tenants, lines, &yarn)?;
    let costs = costs(&raw.costs, lines)?;
    let nodes = nodes(&raw.nodes, lines, &yarn)?;
    check_cluster_labels(&yarn, &nodes)?;
    check_tenant_labels(&yarn, &nodes)?;
    Ok(ClusterConfig {
        nodes,
        yarn,
        costs,
        rm_host,
        rm_start_time_ms,
        user,
    })
}

/// Parses and validates cluster-file text; `label` names the file in errors.
pub fn parse_cluster(text: &str, label: &str) -> Result<ClusterConfig, UserError> {
    if text.trim().is_empty() {
        let message = "the file is empty; a cluster file needs at least one [[nodes]] entry";
        return Err(UserError::file(label, message));
    }
    let raw: RawCluster = toml::from_str(text).map_err(|e| {
        let message = e.to_string();
        let hint = toml_hint(&message);
        UserError::file(label, format!("{}{hint}", message.trim_end()))
    })?;
    validate(&raw, &Lines { text }).map_err(|m| UserError::file(label, m))
}

/// Validates a `[cluster]` table parsed inside another file (a scenario), whose spans are
/// offsets into that file's `text`, so errors name the scenario's own lines.
pub(crate) fn validate_table(
    raw: &RawCluster,
    text: &str,
    label: &str,
) -> Result<ClusterConfig, UserError> {
    validate(raw, &Lines { text }).map_err(|m| UserError::file(label, format!("[cluster] {m}")))
}

/// Reads a sparkyard TOML file (`what` names it in errors: "cluster file", "scenario").
pub fn read_config_file(
    path: &std::path::Path,
    label: &str,
    what: &str,
) -> Result<String, UserError> {
    let err = |m: String| UserError::file(label, m);
    let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read the {what}: {e}")))?;
    if meta.is_dir() {
        return Err(err(format!("is a directory, not a {what}")));
    }
    if !meta.is_file() {
        return Err(err("is not a regular file".to_string()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(err(format!(
            "is {} bytes; a {what} is at most {MAX_FILE_BYTES}",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read the {what}: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = Lines {
            text: std::str::from_utf8(&e.as_bytes()[..offset]).unwrap_or(""),
        }
        .line_of(offset);
        err(format!(
            "line {line}: not UTF-8 text (byte {offset}); is this a binary file?"
        ))
    })
}

/// Loads the cluster: the embedded default or a `--cluster FILE`.
pub fn load_cluster(source: ClusterSource) -> Result<ClusterConfig, UserError> {
    match source {
        ClusterSource::Embedded => parse_cluster(EMBEDDED_CLUSTER, EMBEDDED_CLUSTER_LABEL),
        ClusterSource::Path(path) => {
            let label = path.display().to_string();
            let text = read_config_file(&path, &label, "cluster file")?;
            parse_cluster(&text, &label)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "[[nodes]]\nhost = \"nm-{n}.x\"\ncount = 2\n";

    fn parse(text: &str) -> Result<ClusterConfig, UserError> {
        parse_cluster(text, "test.toml")
    }

    fn message(text: &str) -> String {
        match parse(text) {
            Err(UserError::File { path, message }) => {
                assert_eq!(path, "test.toml");
                message
            }
            other => panic!("expected a file error, got {other:?}"),
        }
    }

    /// `[[nodes]] gpus` with `yarn.resource-types` naming `yarn.io/gpu` (ResourceUtils splits
    /// and trims the list; the maximum allocation defaults to Long.MAX_VALUE for a countable
    /// type); without the type the node is refused with GpuNodeResourceUpdateHandler's text
    /// (hadoop-yarn-server-nodemanager); a type sparkyard does not simulate is refused.
    #[test]
    fn gpus_need_the_gpu_resource_type() {
        let plain = parse(MINIMAL).unwrap();
        assert!(plain.nodes.iter().all(|n| n.gpus == 0));
        assert!(!plain.yarn.gpu_resource_type);
        assert_eq!(plain.yarn.gpu_maximum_allocation, 9_223_372_036_854_775_807);
        let typed = "[yarn]\n\"yarn.resource-types\" = \" yarn.io/gpu \"\n";
        let c = parse(&format!("{typed}{MINIMAL}gpus = 2\n")).unwrap();
        assert!(c.yarn.gpu_resource_type);
        assert_eq!(c.nodes.iter().map(|n| n.gpus).collect::<Vec<_>>(), [2, 2]);
        let capped =
            format!("{typed}\"yarn.resource-types.yarn.io/gpu.maximum-allocation\" = 1\n{MINIMAL}");
        assert_eq!(parse(&capped).unwrap().yarn.gpu_maximum_allocation, 1);
        let untyped = message(&format!("{MINIMAL}gpus = 2\n"));
        assert!(
            untyped.contains("line 4: nodes[0].gpus: Found 2 usable GPUs, however yarn.io/gpu resource-type is not configured inside resource-types.xml, please configure it to enable GPU feature or remove yarn.io/gpu from yarn.nodemanager.resource-plugins"),
            "{untyped}"
        );
        let fpga = message(&format!(
            "[yarn]\n\"yarn.resource-types\" = \"yarn.io/gpu,yarn.io/fpga\"\n{MINIMAL}"
        ));
        assert!(
            fpga.contains("resource type yarn.io/fpga is not simulated"),
            "{fpga}"
        );
    }

    #[test]
    fn embedded_cluster() {
        let c = load_cluster(ClusterSource::Embedded).unwrap();
        assert_eq!(c.nodes.len(), 8);
        assert_eq!(c.nodes[0].host, "nm-1.sparkyard.internal");
        assert_eq!(c.nodes[4].host, "nm-5.sparkyard.internal");
        assert_eq!(
            (c.nodes[3].rack.as_str(), c.nodes[4].rack.as_str()),
            ("/rack-1", "/rack-2")
        );
        assert!(
            c.nodes
                .iter()
                .all(|n| n.memory_mb == 65536 && n.vcores == 16)
        );
        assert_eq!(
            (c.rm_host.as_str(), c.rm_start_time_ms, c.user.as_str()),
            ("rm-1.sparkyard.internal", 1_764_662_400_000, "spark")
        );
        assert_eq!(
            (c.yarn.minimum_allocation_mb, c.yarn.maximum_allocation_mb),
            (1024, 8192)
        );
        assert_eq!(
            (
                c.yarn.minimum_allocation_vcores,
                c.yarn.maximum_allocation_vcores
            ),
            (1, 4)
        );
        assert_eq!(c.yarn.am_max_attempts, 2);
        assert_eq!(
            (
                c.yarn.nm_liveness_expiry_interval_ms,
                c.yarn.am_liveness_expiry_interval_ms
            ),
            (600_000, 600_000)
        );
        assert_eq!(c.yarn.nm_heartbeat_interval_ms, 1000);
        assert_eq!(
            (
                c.costs.container_launch_ms,
                c.costs.jvm_start_ms,
                c.costs.sparkpi_dart_ns
            ),
            (400, 1200, 25)
        );
    }

    #[test]
    fn defaults_fill_everything_but_nodes() {
        let c = parse(MINIMAL).unwrap();
        let hosts: Vec<_> = c.nodes.iter().map(|n| n.host.as_str()).collect();
        assert_eq!(hosts, vec!["nm-1.x", "nm-2.x"]);
        assert_eq!(
            (
                c.nodes[0].memory_mb,
                c.nodes[0].vcores,
                c.nodes[0].rack.as_str()
            ),
            (8192, 8, "/default-rack")
        );
        assert_eq!(c.yarn.maximum_allocation_mb, 8192);
        assert_eq!(c.costs.network_latency_ms, 0);
        assert_eq!(c.rm_host, "rm-1.sparkyard.internal");
    }

    #[test]
    fn host_template_with_first() {
        let c = parse("[[nodes]]\nhost = \"w{n}\"\ncount = 3\nfirst = 10\n").unwrap();
        let hosts: Vec<_> = c.nodes.iter().map(|n| n.host.as_str()).collect();
        assert_eq!(hosts, vec!["w10", "w11", "w12"]);
    }

    #[test]
    fn template_required_when_count_above_one() {
        assert_eq!(
            message("[[nodes]]\nhost = \"nm.x\"\ncount = 2\n"),
            "line 2: nodes[0].host: must contain {n} when count > 1 (got \"nm.x\")"
        );
    }

    #[test]
    fn unknown_key_names_line() {
        let m = message("[[nodes]]\ncount = 1\nram = 5\n");
        assert!(m.starts_with("TOML parse error at line 3, column 1"), "{m}");
        assert!(m.contains("unknown field `ram`"), "{m}");
    }

    #[test]
    fn unquoted_yarn_key_gets_hint() {
        let m = message("[yarn]\nyarn.scheduler.minimum-allocation-mb = 512\n[[nodes]]\n");
        assert!(m.contains("unknown field `yarn`"), "{m}");
        assert!(
            m.ends_with(
                "hint: quote YARN property names: \"yarn.scheduler.minimum-allocation-mb\" = 1024"
            ),
            "{m}"
        );
    }

    #[test]
    fn wrong_type_and_huge_and_negative_numbers() {
        let m = message("[[nodes]]\nmemory_mb = \"lots\"\n");
        assert!(
            m.contains("line 2") && m.contains("invalid type: string \"lots\""),
            "{m}"
        );
        let m = message("[[nodes]]\nmemory_mb = 99999999999999999999\n");
        assert!(m.contains("line 2"), "{m}");
        let m = message("[[nodes]]\nvcores = -1\n");
        assert!(m.contains("line 2") && m.contains("-1"), "{m}");
        let m = message("[[nodes]]\nvcores = 5000000000\n");
        assert!(m.contains("line 2"), "{m}");
    }

    #[test]
    fn malformed_toml() {
        let m = message("[[nodes]\ncount = 1\n");
        assert!(m.starts_with("TOML parse error at line 1"), "{m}");
    }

    #[test]
    fn empty_and_missing_nodes() {
        assert_eq!(
            message(""),
            "the file is empty; a cluster file needs at least one [[nodes]] entry"
        );
        assert_eq!(
            message(" \n# only a comment\n"),
            "no [[nodes]] entry: the cluster needs at least one NodeManager"
        );
        assert_eq!(
            message("[yarn]\n"),
            "no [[nodes]] entry: the cluster needs at least one NodeManager"
        );
    }

    #[test]
    fn duplicate_host() {
        let text = "[[nodes]]\nhost = \"nm-{n}\"\ncount = 3\n[[nodes]]\nhost = \"nm-2\"\n";
        assert_eq!(
            message(text),
            "line 5: nodes[1].host: duplicate host nm-2 (also in nodes[0])"
        );
        let defaulted = "[[nodes]]\ncount = 2\n\n[[nodes]]\n";
        assert_eq!(
            message(defaulted),
            "line 4: nodes[1].host: duplicate host nm-1.sparkyard.internal (also in nodes[0])"
        );
    }

    #[test]
    fn node_memory_below_minimum_allocation() {
        let text = "[[nodes]]\n[[nodes]]\n[[nodes]]\nmemory_mb = 512\n";
        assert_eq!(
            message(text),
            "line 4: nodes[2].memory_mb: must be at least yarn.scheduler.minimum-allocation-mb (1024), got 512"
        );
        let text = "[[nodes]]\nvcores = 0\n";
        assert_eq!(
            message(text),
            "line 2: nodes[0].vcores: must be at least yarn.scheduler.minimum-allocation-vcores (1), got 0"
        );
    }

    #[test]
    fn count_limits() {
        assert_eq!(
            message("[[nodes]]\ncount = 0\n"),
            "line 2: nodes[0].count: must be between 1 and 1000000, got 0"
        );
        let text = "[[nodes]]\nhost = \"a{n}\"\ncount = 600000\n[[nodes]]\nhost = \"b{n}\"\ncount = 600000\n";
        assert_eq!(
            message(text),
            "nodes: at most 1000000 NodeManagers in total (nodes[1] goes past it)"
        );
        let text = "[[nodes]]\nhost = \"a{n}\"\ncount = 2\nfirst = 18446744073709551615\n";
        assert!(message(text).starts_with("TOML parse error at line 4"));
        let text = "[[nodes]]\nhost = \"a{n}\"\ncount = 2\nfirst = 9223372036854775807\n";
        assert_eq!(parse(text).unwrap().nodes[1].host, "a9223372036854775808");
    }

    #[test]
    fn yarn_limits() {
        let text = "[yarn]\n\"yarn.scheduler.maximum-allocation-mb\" = 512\n[[nodes]]\n";
        assert_eq!(
            message(text),
            "line 2: yarn.\"yarn.scheduler.maximum-allocation-mb\": must be at least yarn.scheduler.minimum-allocation-mb (1024), got 512"
        );
        let text = "[yarn]\n\"yarn.resourcemanager.am.max-attempts\" = 0\n[[nodes]]\n";
        assert_eq!(
            message(text),
            "line 2: yarn.\"yarn.resourcemanager.am.max-attempts\": must be at least 1, got 0"
        );
        let text = "[yarn]\n\"yarn.scheduler.minimum-allocation-mb\" = 0\n[[nodes]]\n";
        assert_eq!(
            message(text),
            "line 2: yarn.\"yarn.scheduler.minimum-allocation-mb\": must be at least 1, got 0"
        );
    }

    #[test]
    fn max_allocation_may_exceed_node_memory() {
        let text = "[yarn]\n\"yarn.scheduler.maximum-allocation-mb\" = 100000\n[[nodes]]\nmemory_mb = 4096\n";
        assert_eq!(parse(text).unwrap().yarn.maximum_allocation_mb, 100_000);
    }

    #[test]
    fn resourcemanager_checks() {
        assert_eq!(
            message("[resourcemanager]\nhost = \"bad host\"\n[[nodes]]\n"),
            "line 2: resourcemanager.host: not a valid host name: \"bad host\""
        );
        assert_eq!(
            message("[resourcemanager]\nstart_time_ms = 0\n[[nodes]]\n"),
            "line 2: resourcemanager.start_time_ms: must be between 1 and 9999999999999, got 0"
        );
        assert_eq!(
            message("[resourcemanager]\nuser = \"\"\n[[nodes]]\n"),
            "line 2: resourcemanager.user: not a valid user name: \"\""
        );
    }

    #[test]
    fn cost_cap() {
        assert_eq!(
            message("[costs]\njvm_start_ms = 90000000\n[[nodes]]\n"),
            "line 2: costs.jvm_start_ms: must be at most 86400000, got 90000000"
        );
    }

    #[test]
    fn rack_check() {
        assert_eq!(
            message("[[nodes]]\nrack = \"rack1\"\n"),
            "line 2: nodes[0].rack: must start with '/' and contain no spaces (got \"rack1\")"
        );
    }

    #[test]
    fn file_errors() {
        let missing = PathBuf::from("/nonexistent/cluster.toml");
        let err = load_cluster(ClusterSource::Path(missing)).unwrap_err();
        assert_eq!(
            err,
            UserError::file(
                "/nonexistent/cluster.toml",
                "cannot read the cluster file: No such file or directory (os error 2)"
            )
        );
        let dir = std::env::temp_dir();
        let err = load_cluster(ClusterSource::Path(dir.clone())).unwrap_err();
        assert_eq!(
            err,
            UserError::file(
                dir.display().to_string(),
                "is a directory, not a cluster file"
            )
        );
        let err = load_cluster(ClusterSource::Path(PathBuf::from("/dev/null"))).unwrap_err();
        assert_eq!(err, UserError::file("/dev/null", "is not a regular file"));
    }

    #[test]
    fn binary_garbage() {
        let dir = crate::test_dir::TestDir::new("cluster");
        let path = dir.join("bin.toml");
        std::fs::write(&path, b"[[nodes]]\n\xff\xfe\x00garbage").unwrap();
        let err = load_cluster(ClusterSource::Path(path.clone()));
        let expected = "line 2: not UTF-8 text (byte 10); is this a binary file?";
        assert_eq!(
            err.unwrap_err(),
            UserError::file(path.display().to_string(), expected)
        );
        let m = message("[[nodes]]\n\u{0}\u{1}");
        assert!(m.starts_with("TOML parse error at line 2"), "{m}");
    }

    #[test]
    fn file_round_trip() {
        let dir = crate::test_dir::TestDir::new("cluster");
        let path = dir.join("ok.toml");
        std::fs::write(&path, MINIMAL).unwrap();
        let c = load_cluster(ClusterSource::Path(path.clone()));
        assert_eq!(c.unwrap().nodes.len(), 2);
    }

    // CapacityScheduler queues: none is one `default` queue at 100 %; root's children must add
    // up to 100 (ParentQueue: "Illegal capacity of ... for children of queue root").
    /// Node labels in the cluster file: a `[[nodes]]` label (an exclusive partition), a queue's
    /// `accessible-node-labels` (split on ',' as CapacitySchedulerConfiguration
    /// .getAccessibleNodeLabels, `*` alone), `accessible-node-labels.<l>.*` (capacity 0 and
    /// maximum 100 by default, range-checked with Hadoop's text), children adding up to 100 per
    /// label (ParentQueue.setChildQueues), and labels needing yarn.node-labels.enabled.
    #[test]
    fn node_labels_on_nodes_and_queues() {
        let base = "[yarn]\n\"yarn.node-labels.enabled\" = true\n[[nodes]]\n[[nodes]]\nhost = \"g-{n}\"\ncount = 2\nlabel = \"gpu\"\n";
        let ok = format!(
            "{base}[[queues]]\nname = \"default\"\ncapacity = 60\n[queues.node-labels.gpu]\ncapacity = 100\n[[queues]]\nname = \"etl\"\ncapacity = 40\naccessible-node-labels = \" gpu, ,gpu\"\ndefault-node-label-expression = \"gpu\"\n"
        );
        let c = parse_cluster(&ok, "c").unwrap();
        let labels: Vec<_> = c.nodes.iter().map(|n| n.label.as_deref()).collect();
        assert_eq!(labels, [None, Some("gpu"), Some("gpu")]);
        let d = c.yarn.queue("default").expect("default");
        assert_eq!(d.label_capacity("gpu").capacity, 100.0);
        assert_eq!(d.accessible_node_labels, None);
        let etl = c.yarn.queue("etl").expect("etl");
        assert_eq!(etl.accessible_node_labels, Some(vec!["gpu".to_string()]));
        assert_eq!(
            (
                etl.label_capacity("gpu").capacity,
                etl.label_capacity("gpu").maximum_capacity
            ),
            (0.0, 100.0)
        );
        assert_eq!(etl.default_node_label_expression.as_deref(), Some("gpu"));
        let err = |text: &str| parse_cluster(text, "c").unwrap_err().to_string();
        let off = ok.replace("= true", "= false");
        assert!(
            err(&off).contains("yarn.node-labels.enabled"),
            "{}",
            err(&off)
        );
        let half = ok.replace("capacity = 100\n", "capacity = 50\n");
        assert!(
            err(&half).contains("Illegal capacity of 0.5 for children of queue root for label=gpu"),
            "{}",
            err(&half)
        );
        let big = ok.replace("capacity = 100\n", "capacity = 120\n");
        assert!(
            err(&big).contains("Illegal capacity of 120 for node-label=gpu in queue=root.default, valid capacity should in range of [0, 100]."),
            "{}",
            err(&big)
        );
        let unknown = ok.replace("expression = \"gpu\"", "expression = \"ssd\"");
        assert!(
            err(&unknown).contains("node label ssd is not on any NodeManager"),
            "{}",
            err(&unknown)
        );
        let bad = ok.replace("label = \"gpu\"", "label = \"-x\"");
        assert!(
            err(&bad).contains("label name=-x is not valid"),
            "{}",
            err(&bad)
        );
    }

    #[test]
    fn queues_default_and_validation() {
        let c = parse_cluster("[[nodes]]\n", "c").unwrap();
        assert_eq!(
            c.yarn.queues,
            vec![QueueSpec::with_capacity("default", 100.0)]
        );
        let two = "[[nodes]]\n[[queues]]\nname = \"default\"\ncapacity = 60\n[[queues]]\nname = \"etl\"\ncapacity = 40\nmaximum-capacity = 80\nmaximum-am-resource-percent = 0.5\nuser-limit-factor = 2\n";
        let c = parse_cluster(two, "c").unwrap();
        let etl = c.yarn.queue("root.etl").expect("by full path");
        assert_eq!(
            (
                etl.capacity,
                etl.maximum_capacity,
                etl.maximum_am_resource_percent,
                etl.user_limit_factor
            ),
            (40.0, 80.0, 0.5, 2.0)
        );
        assert!(c.yarn.queue("nosuch").is_none());
        let short = "[[nodes]]\n[[queues]]\nname = \"default\"\ncapacity = 60\n";
        let err = parse_cluster(short, "c").unwrap_err().to_string();
        assert!(
            err.contains("Illegal capacity of 0.6 for children of queue root"),
            "{err}"
        );
        let dup = "[[nodes]]\n[[queues]]\nname = \"a\"\ncapacity = 50\n[[queues]]\nname = \"a\"\ncapacity = 50\n";
        assert!(parse_cluster(dup, "c").is_err());
    }

    // UsersManager.computeUserLimit and AbstractLeafQueue.getUserAMResourceLimitPerPartition
    // (Hadoop 3.4) read a user-limit-factor of -1 as "no user limit", so the cluster file takes
    // it; minimum-user-limit-percent is CapacitySchedulerConfiguration.getUserLimit (default
    // 100; AbstractLeafQueue.setupQueueConfigs takes min(100, percent), so above 100 is
    // accepted too). Other factors at or below 0, and a negative percent, are refused.
    #[test]
    fn user_limit_factor_minus_one_and_minimum_user_limit_percent_are_read() {
        let q = |extra: &str| {
            format!("[[nodes]]\n[[queues]]\nname = \"default\"\ncapacity = 100\n{extra}\n")
        };
        let c = parse_cluster(
            &q("user-limit-factor = -1\nminimum-user-limit-percent = 25"),
            "c",
        )
        .unwrap();
        let d = c.yarn.queue("default").expect("default");
        assert_eq!(
            (d.user_limit_factor, d.minimum_user_limit_percent),
            (-1.0, 25.0)
        );
        let c = parse_cluster(&q(""), "c").unwrap();
        assert_eq!(c.yarn.queues[0].minimum_user_limit_percent, 100.0);
        for bad in [
            "user-limit-factor = 0",
            "user-limit-factor = -2",
            "minimum-user-limit-percent = -1",
        ] {
            let err = parse_cluster(&q(bad), "c").unwrap_err().to_string();
            assert!(err.contains("-1 (no user limit)"), "{bad}: {err}");
        }
    }

    // [[tenants]]: other users' applications in a known queue, with defaults.
    #[test]
    fn tenants_parse_and_name_a_known_queue() {
        let ok = "[[nodes]]\n[[tenants]]\nuser = \"analyst\"\nduration_ms = 5000\ncontainers = 3\n";
        let c = parse_cluster(ok, "c").unwrap();
        assert_eq!(
            c.yarn.tenants,
            vec![TenantLoad {
                user: "analyst".into(),
                queue: "default".into(),
                start_ms: 0,
                duration_ms: 5000,
                am_memory_mb: 1024,
                containers: 3,
                memory_mb: 1024,
                vcores: 1,
                node_label: None,
            }]
        );
        let bad_queue = "[[nodes]]\n[[tenants]]\nuser = \"a\"\nqueue = \"etl\"\nduration_ms = 5\n";
        let err = parse_cluster(bad_queue, "c").unwrap_err().to_string();
        assert!(
            err.contains("unknown queue 'etl'; the queues are default"),
            "{err}"
        );
        let no_user = "[[nodes]]\n[[tenants]]\nduration_ms = 5\n";
        assert!(parse_cluster(no_user, "c").is_err());
        let no_duration = "[[nodes]]\n[[tenants]]\nuser = \"a\"\n";
        assert!(parse_cluster(no_duration, "c").is_err());
    }

    // CapacitySchedulerConfiguration: NODE_LOCALITY_DELAY ("node-locality-delay", default 40),
    // RACK_LOCALITY_ADDITIONAL_DELAY (default -1, scaled by the asks in
    // RegularContainerAllocator.getActualRackLocalityDelay), RACK_LOCALITY_FULL_RESET (true).
    #[test]
    fn locality_delay_keys_reach_the_scheduler_settings() {
        let defaults = parse(MINIMAL).unwrap().yarn.locality_delays;
        assert_eq!(defaults, LocalityDelays::default());
        assert_eq!(
            (
                defaults.node_locality_delay,
                defaults.rack_locality_additional_delay
            ),
            (40, None)
        );
        let set = "[yarn]\n\"yarn.scheduler.capacity.node-locality-delay\" = 3\n\
                   \"yarn.scheduler.capacity.rack-locality-additional-delay\" = 0\n\
                   \"yarn.scheduler.capacity.rack-locality-full-reset\" = false\n";
        let c = parse(&format!("{set}{MINIMAL}")).unwrap();
        assert_eq!(
            c.yarn.locality_delays,
            LocalityDelays {
                node_locality_delay: 3,
                rack_locality_additional_delay: Some(0),
                rack_locality_full_reset: false,
            }
        );
        let minus_one = "[yarn]\n\"yarn.scheduler.capacity.rack-locality-additional-delay\" = -1\n";
        let c = parse(&format!("{minus_one}{MINIMAL}")).unwrap();
        assert_eq!(c.yarn.locality_delays.rack_locality_additional_delay, None);
        let bad = "[yarn]\n\"yarn.scheduler.capacity.rack-locality-additional-delay\" = -2\n";
        assert_eq!(
            message(&format!("{bad}{MINIMAL}")),
            "line 2: yarn.\"yarn.scheduler.capacity.rack-locality-additional-delay\": must be -1 \
             (scaled by the asks) or at least 0, got -2"
        );
    }
}
