//! `[chaos]`: random faults drawn per seed (`sparkyard sweep`, `shrink`, `run --seed N`), each
//! drawn kind written as the `[[faults]]` entry that does the same, so a seed's schedule can be
//! written out and shrunk. The names it draws and their draws are the fault kinds' own, declared
//! in the registry (`fault_kinds::KINDS`, each kind's `chaos`); this file draws what every
//! fault shares (kind, time, executor, host) and aims faults at running applications.

use super::fault_entry::RawFault;
use super::fault_kinds::{self, ChaosInput, pick};
use crate::conf::cluster::ClusterConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::Deserialize;

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

/// Every name `[chaos]` can draw, in the registry's order (`fault_kinds::KINDS`).
pub fn names() -> Vec<&'static str> {
    fault_kinds::chaos_choices().map(|c| c.draw.name).collect()
}

super::string_enum_schema!(
    /// A fault kind `[chaos]` can draw (the schema's enum of the registry's chaos names).
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
    if let Some(k) = c
        .kinds
        .iter()
        .find(|k| fault_kinds::chaos_choice(k).is_none())
    {
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
    let choice = fault_kinds::chaos_choice(&kind)?;
    let base = RawFault {
        kind: choice.kind.name.into(),
        at_ms: Some(at),
        attempt: 1,
        ..RawFault::default()
    };
    let input = ChaosInput {
        exit_codes: &c.exit_codes,
        statuses: &c.statuses,
        delay_ms: c.delay_ms,
        partition_ms: c.partition_ms,
        executor,
        host: &host,
    };
    let drawn = choice.draw.draw(&input, rng, base);
    let label = Some(format!("{CHAOS_LABEL}{} at {at} ms", drawn.what));
    Some((
        kind,
        RawFault {
            label,
            ..drawn.entry
        },
    ))
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

    /// A seed's draws are recorded (the chaos sweeps' outputs): the labels seeds 1 to 4 draw
    /// over every name, listed in the order `CHAOS_KINDS` had before the draws moved into the
    /// registry, may not change (a sweep of chaos.toml with this list, seeds 1 to 100, was
    /// byte-identical before and after that move).
    #[test]
    fn recorded_seeds_draw_what_they_drew() {
        let c = chaos(&[
            "kill-executor",
            "nm-kill",
            "kill-am",
            "kill-node",
            "decommission-node",
            "delay",
            "partition",
            "launch-failure",
            "fetch-failure",
            "kill-shuffle-service",
            "kill-application",
        ]);
        let labels: Vec<String> = (1..=4)
            .flat_map(|seed| chaos_faults_for(&c, seed, &embedded(), 1))
            .map(|(_, entry)| entry.label.unwrap_or_default())
            .collect();
        let recorded = [
            "chaos: a fetch of stage 1 partition 0 fails at 1391 ms",
            "chaos: the user kills the application at 1246 ms",
            "chaos: a fetch of stage 1 partition 3 fails at 1153 ms",
            "chaos: the node of running executor #2 dies at 1372 ms",
            "chaos: a launch fails on nm-7.sparkyard.internal at 1675 ms",
            "chaos: the user kills the application at 1381 ms",
            "chaos: the user kills the application at 1921 ms",
        ];
        assert_eq!(labels, recorded);
    }

    /// Every name the registry draws is unique, and each draw writes an entry of the kind it
    /// is declared under that the kind's own plan accepts (a drawn fault is a `[[faults]]`
    /// entry one could write).
    #[test]
    fn every_drawn_entry_is_of_its_kind_and_plans() {
        let all = names();
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), all.len(), "{all:?}");
        let cluster = embedded();
        for name in all {
            for (drawn, entry) in chaos_faults_for(&chaos(&[name]), 11, &cluster, 1) {
                assert_eq!(drawn, name);
                let choice = fault_kinds::chaos_choice(&drawn).expect("a drawn name");
                assert_eq!(entry.kind, choice.kind.name);
                let plan = choice.kind.plan(&entry, &cluster);
                assert!(plan.is_ok(), "{drawn}: {entry:?}");
            }
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
