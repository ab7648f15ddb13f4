//! `[chaos]`: random faults drawn per seed (`sparkyard sweep`, `shrink`, `run --seed N`), each
//! drawn kind written as the `[[faults]]` entry that does the same, so a seed's schedule can be
//! written out and shrunk. The drawn kinds are declared once in [`CHAOS_KINDS`].

use super::fault_entry::RawFault;
use crate::conf::cluster::ClusterConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::Deserialize;
use sparkyard_actors::faults::NodeTarget;

/// Random faults drawn per seed (`sparkyard sweep`, and `run --seed N` to reproduce one).
#[derive(Deserialize, Clone, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Chaos")]
pub(super) struct RawChaos {
    /// How many faults each seed draws: [min, max] (default [1, 3]).
    #[serde(default = "chaos_faults")]
    faults: [u32; 2],
    /// When the faults fire: [from, to], ms of virtual time after submission.
    window_ms: [u64; 2],
    /// The kinds drawn from (each equally likely).
    #[schemars(with = "Vec<ChaosKindSchema>")]
    kinds: Vec<String>,
    /// Executor numbers drawn for kill-executor, nm-kill, delay, partition: [min, max]
    /// (default [1, 4]). kill-node, decommission-node and kill-shuffle-service act on the node
    /// of the drawn number's running executor (`target = "running-executor:K"`: the K-th
    /// running executor in id order, wrapping), so they hit the application while any executor
    /// runs; launch-failure draws any node.
    #[serde(default = "chaos_executors")]
    executors: [u32; 2],
    /// Exit codes drawn for kill-executor (default [1, 52, 137, 143]).
    #[serde(default = "chaos_exits")]
    exit_codes: Vec<i32>,
    /// YARN ContainerExitStatus values drawn for nm-kill, -100 to -109 (default [-104, -103,
    /// -102, -101, -106]).
    #[serde(default = "chaos_statuses")]
    statuses: Vec<i32>,
    /// Delay of a `delay` fault: [min, max] ms (default [100, 5000]); it lasts 30 s.
    #[serde(default = "chaos_delay")]
    delay_ms: [u64; 2],
    /// Length of a `partition`: [min, max] ms (default [10000, 200000]).
    #[serde(default = "chaos_partition")]
    partition_ms: [u64; 2],
    /// Virtual time after which a run is a hang, ms (default 21600000, 6 h).
    #[serde(default = "chaos_deadline")]
    pub(super) deadline_ms: u64,
}

fn chaos_faults() -> [u32; 2] {
    [1, 3]
}
fn chaos_executors() -> [u32; 2] {
    [1, 4]
}
fn chaos_exits() -> Vec<i32> {
    vec![1, 52, 137, 143]
}
fn chaos_statuses() -> Vec<i32> {
    vec![-104, -103, -102, -101, -106]
}
fn chaos_delay() -> [u64; 2] {
    [100, 5000]
}
fn chaos_partition() -> [u64; 2] {
    [10_000, 200_000]
}
fn chaos_deadline() -> u64 {
    6 * 3_600_000
}

/// Labels of drawn faults start with this: a chaos fault that never fires is not a failure.
pub const CHAOS_LABEL: &str = "chaos: ";

/// What every drawn fault draws before its kind's own draws, in this order: when it fires, an
/// executor number and a host.
struct Drawn {
    at: u64,
    executor: u32,
    host: String,
}

/// A kind `[chaos]` draws: the `[[faults]]` entry it becomes (from the base entry with its
/// time) and the words of its label.
struct ChaosKind {
    name: &'static str,
    draw: fn(&RawChaos, &mut ChaCha8Rng, &Drawn, RawFault) -> (RawFault, String),
}

/// The kinds `[chaos]` can draw, in the order the schema lists them. The node faults that hurt
/// the application pick a node holding one of its executors when they fire (a drawn node would
/// mostly hold none of its containers); `launch-failure` draws any node.
const CHAOS_KINDS: &[ChaosKind] = &[
    ChaosKind {
        name: "kill-executor",
        draw: |c, rng, d, base| {
            let code = pick(rng, &c.exit_codes);
            let entry = RawFault {
                kind: "kill-executor".into(),
                executor: Some(d.executor),
                exit: Some(code),
                ..base
            };
            (entry, format!("executor {} exits {code}", d.executor))
        },
    },
    ChaosKind {
        name: "nm-kill",
        draw: |c, rng, d, base| {
            let status = pick(rng, &c.statuses);
            let entry = RawFault {
                kind: "kill-executor".into(),
                executor: Some(d.executor),
                status: Some(status),
                ..base
            };
            let what = format!("NodeManager kills executor {} ({status})", d.executor);
            (entry, what)
        },
    },
    ChaosKind {
        name: "kill-am",
        draw: |_, _, _, base| {
            let entry = RawFault {
                kind: "kill-am".into(),
                exit: Some(137),
                ..base
            };
            (entry, "the AM is killed".into())
        },
    },
    ChaosKind {
        name: "kill-node",
        draw: |_, _, d, base| {
            let entry = running_executor_node("kill-node", d, base);
            (
                entry,
                format!("{} dies", NodeTarget::RunningExecutor(d.executor)),
            )
        },
    },
    ChaosKind {
        name: "decommission-node",
        draw: |_, _, d, base| {
            let entry = running_executor_node("decommission-node", d, base);
            let node = NodeTarget::RunningExecutor(d.executor);
            (entry, format!("{node} is decommissioned"))
        },
    },
    ChaosKind {
        name: "delay",
        draw: |c, rng, d, base| {
            let ms = rng.random_range(c.delay_ms[0]..=c.delay_ms[1]);
            let entry = RawFault {
                kind: "delay".into(),
                delay_ms: Some(ms),
                duration_ms: Some(30_000),
                ..executor_link(d.executor, base)
            };
            let what = format!(
                "executor {} <-> driver delayed {ms} ms for 30 s",
                d.executor
            );
            (entry, what)
        },
    },
    ChaosKind {
        name: "partition",
        draw: |c, rng, d, base| {
            let ms = rng.random_range(c.partition_ms[0]..=c.partition_ms[1]);
            let entry = RawFault {
                kind: "partition".into(),
                duration_ms: Some(ms),
                ..executor_link(d.executor, base)
            };
            let what = format!(
                "executor {} partitioned from the driver for {ms} ms",
                d.executor
            );
            (entry, what)
        },
    },
    ChaosKind {
        name: "launch-failure",
        draw: |_, _, d, base| {
            let entry = RawFault {
                kind: "launch-failure".into(),
                host: Some(d.host.clone()),
                count: Some(1),
                ..base
            };
            (entry, format!("a launch fails on {}", d.host))
        },
    },
    // A reduce partition of the second stage (the first that reads a shuffle in the bundled
    // workloads) fails its next fetch.
    ChaosKind {
        name: "fetch-failure",
        draw: |_, rng, _, base| {
            let partition = rng.random_range(0..4u32);
            let entry = RawFault {
                kind: "fetch-failure".into(),
                stage: Some(1),
                partition: Some(partition),
                count: Some(1),
                ..base
            };
            let what = format!("a fetch of stage 1 partition {partition} fails");
            (entry, what)
        },
    },
    ChaosKind {
        name: "kill-shuffle-service",
        draw: |_, _, d, base| {
            let entry = running_executor_node("kill-shuffle-service", d, base);
            let node = NodeTarget::RunningExecutor(d.executor);
            (entry, format!("the shuffle service on {node} stops"))
        },
    },
    // The user gives up on the application (`yarn application -kill`): it ends KILLED, and
    // every invariant must still hold as its containers are killed.
    ChaosKind {
        name: "kill-application",
        draw: |_, _, _, base| {
            let entry = RawFault {
                kind: "kill-application".into(),
                ..base
            };
            (entry, "the user kills the application".into())
        },
    },
];

/// The drawable kind named `name`.
fn chaos_kind(name: &str) -> Option<&'static ChaosKind> {
    CHAOS_KINDS.iter().find(|k| k.name == name)
}

/// Every kind `[chaos]` can draw, in [`CHAOS_KINDS`] order.
pub fn names() -> Vec<&'static str> {
    CHAOS_KINDS.iter().map(|k| k.name).collect()
}

super::string_enum_schema!(
    /// A fault kind `[chaos]` can draw (the schema's enum of [`CHAOS_KINDS`]).
    ChaosKindSchema,
    "ChaosKind",
    names()
);

pub(super) fn validate_chaos(c: &RawChaos) -> Result<(), String> {
    let range = |[lo, hi]: [u64; 2], key: &str| {
        if lo <= hi {
            Ok(())
        } else {
            Err(format!("{key}: [{lo}, {hi}] is not a range"))
        }
    };
    range([u64::from(c.faults[0]), u64::from(c.faults[1])], "faults")?;
    range(c.window_ms, "window_ms")?;
    range(
        [u64::from(c.executors[0].max(1)), u64::from(c.executors[1])],
        "executors",
    )?;
    range(c.delay_ms, "delay_ms")?;
    range(c.partition_ms, "partition_ms")?;
    if c.kinds.is_empty() {
        return Err("kinds: name at least one fault kind".into());
    }
    if let Some(k) = c.kinds.iter().find(|k| chaos_kind(k).is_none()) {
        return Err(format!("kinds: `{k}` is not one of {}", names().join(", ")));
    }
    if c.exit_codes.is_empty() || c.statuses.is_empty() {
        return Err("exit_codes / statuses: may not be empty".into());
    }
    if let Some(s) = c.statuses.iter().find(|s| !(-109..=-100).contains(*s)) {
        return Err(format!(
            "statuses: {s} is not a YARN ContainerExitStatus the NodeManager reports (-100 to -109)"
        ));
    }
    if c.deadline_ms == 0 {
        return Err("deadline_ms: must be positive".into());
    }
    Ok(())
}

/// The random faults of one seed, as `[[faults]]` entries (kind as drawn, entry), for a run
/// of `applications` applications (with several, each fault names one running when it fires).
pub(super) fn chaos_faults_for(
    c: &RawChaos,
    seed: u64,
    cluster: &ClusterConfig,
    applications: usize,
) -> Vec<(String, RawFault)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc4a0_5eed);
    // A stream of its own: the faults' draws are the same however many applications run.
    let mut aim = ChaCha8Rng::seed_from_u64(seed ^ 0xa991_1ca7);
    let n = rng.random_range(c.faults[0]..=c.faults[1]);
    (0..n)
        .filter_map(|_| {
            let (kind, raw) = chaos_fault(c, &mut rng, cluster)?;
            Some((kind, aim_at_running(&mut aim, raw, applications)))
        })
        .collect()
}

/// With several applications, the fault acts in one of those running when it fires
/// (`running_app = K`, K drawn in 1..=applications; the K-th running one, wrapping): a drawn
/// fixed application would often have ended before its time. The label says which K.
fn aim_at_running(rng: &mut ChaCha8Rng, raw: RawFault, applications: usize) -> RawFault {
    if applications < 2 {
        return raw;
    }
    let k = rng.random_range(1..=applications as u32);
    let label = raw
        .label
        .as_ref()
        .map(|l| format!("{l}, running_app = {k}"));
    RawFault {
        running_app: Some(k),
        label,
        ..raw
    }
}

fn pick<T: Clone>(rng: &mut ChaCha8Rng, xs: &[T]) -> T {
    xs[rng.random_range(0..xs.len())].clone()
}

/// One drawn fault, as the `[[faults]]` entry that does the same (so a seed's schedule can be
/// written out, and shrunk). The draws are made in a fixed order: kind, time, executor, host,
/// then the kind's own. `None` for a kind `[chaos]` cannot draw (refused when the file loads).
fn chaos_fault(
    c: &RawChaos,
    rng: &mut ChaCha8Rng,
    cluster: &ClusterConfig,
) -> Option<(String, RawFault)> {
    let kind = pick(rng, &c.kinds);
    let at = rng.random_range(c.window_ms[0]..=c.window_ms[1]);
    let executor = rng.random_range(c.executors[0].max(1)..=c.executors[1].max(1));
    let host = pick(rng, &cluster.nodes).host;
    let base = RawFault {
        at_ms: Some(at),
        attempt: 1,
        ..RawFault::default()
    };
    let drawn = Drawn { at, executor, host };
    let (raw, what) = (chaos_kind(&kind)?.draw)(c, rng, &drawn, base);
    let label = Some(format!("{CHAOS_LABEL}{what} at {} ms", drawn.at));
    Some((kind, RawFault { label, ..raw }))
}

/// A node fault on the node of the drawn number's running executor.
fn running_executor_node(kind: &str, d: &Drawn, base: RawFault) -> RawFault {
    RawFault {
        kind: kind.into(),
        target: Some(format!("running-executor:{}", d.executor)),
        ..base
    }
}

/// A network fault between executor `executor` and the driver, both ways.
fn executor_link(executor: u32, base: RawFault) -> RawFault {
    RawFault {
        from: Some(format!("executor:{executor}")),
        to: Some("driver".into()),
        both_ways: Some(true),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chaos(kinds: &[&str]) -> RawChaos {
        let text = format!("window_ms = [1000, 2000]\nkinds = {kinds:?}\n");
        toml::from_str(&text).expect("a [chaos] table")
    }

    fn embedded() -> ClusterConfig {
        crate::conf::cluster::load_cluster(crate::conf::cluster::ClusterSource::Embedded)
            .expect("the embedded cluster")
    }

    /// A seed draws the same faults every time, each the `[[faults]]` entry of its kind with a
    /// `chaos: ` label that says when; another seed draws others.
    #[test]
    fn a_seed_draws_the_same_entries_with_their_time_in_the_label() {
        let c = chaos(&names());
        let a = chaos_faults_for(&c, 7, &embedded(), 1);
        assert_eq!(a, chaos_faults_for(&c, 7, &embedded(), 1));
        assert_ne!(a, chaos_faults_for(&c, 8, &embedded(), 1));
        for (drawn, entry) in &a {
            let label = entry.label.clone().unwrap_or_default();
            let at = entry.at_ms.expect("a time");
            assert!(label.starts_with(CHAOS_LABEL) && label.ends_with(&format!(" at {at} ms")));
            assert!((1000..=2000).contains(&at), "{drawn}: {at}");
            let kind = if drawn == "nm-kill" {
                "kill-executor"
            } else {
                drawn
            };
            assert_eq!(entry.kind, kind);
        }
    }

    /// The node kinds aim at the node of a running executor (a drawn node would mostly hold
    /// nothing of the application); an NM kill is a kill-executor with a YARN status.
    #[test]
    fn node_kinds_aim_at_a_running_executor_and_nm_kill_has_a_status() {
        for (drawn, entry) in chaos_faults_for(&chaos(&["kill-node"]), 3, &embedded(), 1) {
            assert_eq!(drawn, "kill-node");
            assert!(
                entry
                    .target
                    .is_some_and(|t| t.starts_with("running-executor:"))
            );
        }
        for (_, entry) in chaos_faults_for(&chaos(&["nm-kill"]), 3, &embedded(), 1) {
            assert!(entry.status.is_some_and(|s| (-109..=-100).contains(&s)));
            assert_eq!(entry.exit, None);
        }
    }

    #[test]
    fn a_bad_table_is_refused_naming_its_key() {
        let check = |c: RawChaos| validate_chaos(&c).err().unwrap_or_default();
        assert!(check(chaos(&[])).starts_with("kinds: name at least one"));
        assert!(
            check(chaos(&["slow-node"]))
                .starts_with("kinds: `slow-node` is not one of kill-executor, nm-kill")
        );
        let mut c = chaos(&["kill-am"]);
        c.window_ms = [5, 1];
        assert_eq!(check(c), "window_ms: [5, 1] is not a range");
        let mut c = chaos(&["kill-am"]);
        c.statuses = vec![-5];
        assert!(check(c).starts_with("statuses: -5 is not a YARN ContainerExitStatus"));
        assert!(validate_chaos(&chaos(&["kill-am"])).is_ok());
    }

    /// In a many-application run each drawn fault names an application running when it fires
    /// (`running_app`), from a stream of its own: the faults themselves (kinds, times,
    /// targets) are a one-application seed's draws.
    #[test]
    fn many_applications_aim_each_fault_at_a_running_one() {
        let c = chaos(&["kill-executor"]);
        let mut picks = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let one = chaos_faults_for(&c, seed, &embedded(), 1);
            let many = chaos_faults_for(&c, seed, &embedded(), 3);
            assert_eq!(one.len(), many.len());
            for ((_, a), (_, b)) in one.iter().zip(&many) {
                assert_eq!(a.running_app, None);
                let k = b.running_app.expect("aimed at a running application");
                assert!((1..=3).contains(&k), "{b:?}");
                assert_eq!(
                    RawFault {
                        running_app: None,
                        label: a.label.clone(),
                        ..b.clone()
                    },
                    *a
                );
                picks.insert(k);
            }
        }
        assert_eq!(picks.into_iter().collect::<Vec<_>>(), [1, 2, 3]);
    }
}
