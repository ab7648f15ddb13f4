//! Every fault kind of the registry (`scenario::fault_kinds::KINDS`) acts when it fires, proven
//! on a run: it reports a target of the class it declares, and the run differs from the same
//! run without it (a kind that fires and does nothing is the bug this guards against). The
//! registry's kinds and keys are the ones docs/scenarios.md documents.

use crate::common::TestDir;
use sparkyard::runner::{RunOptions, RunResult};
use sparkyard::scenario::{self, fault_kinds};
use sparkyard_actors::simulation::trace::{StateChange, TraceKind};

/// A shuffle application long enough for a fault 3 s after executor 1 registered to hit running
/// tasks, on the embedded cluster, with decommissioning on (so a decommissioned node's executors
/// have their part to play).
const BASE: &str = r#"name = "kinds"
[submit]
num_executors = 4
executor_cores = 1
[submit.conf]
"spark.decommission.enabled" = "true"
[workload]
[[workload.jobs]]
call_site = "count at Kinds.scala:1"
[[workload.jobs.stages]]
name = "map at Kinds.scala:1"
tasks = 24
duration = { fixed_ms = 4000 }
shuffle_write = { bytes_per_task = 1000000 }
[[workload.jobs.stages]]
name = "count at Kinds.scala:1"
tasks = 24
parents = [0]
duration = { fixed_ms = 4000 }
"#;

/// The `[[faults]]` entry that aims kind `kind` at this application (a trigger and its keys).
pub(crate) fn entry(kind: &str, executor_1_host: &str) -> String {
    let later = "on_executor_registered = 1\nafter_ms = 3000\n";
    let keys = match kind {
        "kill-executor" | "failing-executor" => "executor = 1\n".to_string(),
        "kill-am" | "kill-application" => String::new(),
        "kill-node" | "decommission-node" | "exclude-node" => "target = \"executor:1\"\n".into(),
        // The shuffle service stops while the reduce stage fetches from it.
        "kill-shuffle-service" => {
            return "on_task_started = [1, 0]\ntarget = \"executor:1\"\n".into();
        }
        // Executor 1's own container is the launch that fails.
        "launch-failure" => return format!("at_ms = 0\nhost = \"{executor_1_host}\"\n"),
        "slow-node" => "target = \"executor:1\"\nfactor = 3.0\n".into(),
        "fetch-failure" => return "on_task_started = [1, 0]\nstage = 1\n".into(),
        "drop" | "duplicate" => "from = \"executor:1\"\nto = \"driver\"\nboth_ways = true\n".into(),
        "delay" => "from = \"executor:1\"\nto = \"driver\"\ndelay_ms = 2000\n".into(),
        "partition" => "from = \"executor:1\"\nto = \"driver\"\nduration_ms = 60000\n".into(),
        "user-class-throws" | "user-class-throws-before-context" | "no-spark-context" => {
            return "attempt = 1\n".into();
        }
        other => panic!("no entry for kind {other}: add one here when adding a kind"),
    };
    format!("{later}{keys}")
}

pub(crate) fn run_text(name: &str, text: &str) -> RunResult {
    let dir = TestDir::new("kinds");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    let s = scenario::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = RunOptions {
        deadline_ms: 6 * 3_600_000,
        ..RunOptions::default()
    };
    scenario::run(&s, None, opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .result
}

/// The run's trace without the fault records themselves: what the simulated processes did.
pub(crate) fn what_happened(r: &RunResult) -> Vec<String> {
    r.trace
        .iter()
        .filter(|e| !matches!(e.kind, TraceKind::Fault(_)))
        .map(|e| {
            format!(
                "{} {:?} {} {:?} {:?}",
                e.time_ms, e.kind, e.name, e.from, e.to
            )
        })
        .collect()
}

/// The host of the first executor container the baseline launched.
pub(crate) fn first_executor_host(r: &RunResult) -> String {
    let am = r
        .counters
        .driver_containers
        .first()
        .cloned()
        .unwrap_or_default();
    r.trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::State(StateChange::ContainerLocalizing {
                container, host, ..
            }) if container.to_string() != am => Some(host.clone()),
            _ => None,
        })
        .expect("an executor container")
}

/// Kinds that fire and change nothing a process does today, each with why; the list may only
/// shrink (the test fails when one of them starts to act, so it is kept true). Empty: every
/// kind acts.
const ACTS_ON_NOTHING_YET: &[&str] = &[];

/// The `[submit.conf]` line a kind needs to act at all, if any.
fn conf_for(kind: &str) -> Option<&'static str> {
    match kind {
        // The shuffle service's kind needs the service on; with it on, Spark's YarnAllocator
        // ignores YARN's decommissioning (SPARK-39018), so the other kinds run without it.
        "kill-shuffle-service" => Some("\"spark.shuffle.service.enabled\" = \"true\"\n"),
        // Spark excludes a node for the application only in its HealthTracker.
        "exclude-node" => Some("\"spark.excludeOnFailure.enabled\" = \"true\"\n"),
        _ => None,
    }
}

/// BASE with `conf` added to its `[submit.conf]`.
fn base_with(conf: Option<&str>) -> String {
    match conf {
        Some(line) => BASE.replace("[submit.conf]\n", &format!("[submit.conf]\n{line}")),
        None => BASE.to_string(),
    }
}

/// Spark's and YARN's answer to each kind is covered by its own scenario tests; this one proves
/// the registry's promise for every kind at once: what it declares it acts on is what it hit,
/// and the run is not the run without it (the same configuration, without the fault).
#[test]
fn every_fault_kind_acts_on_what_it_declares_when_it_fires() {
    let baseline = run_text("kinds-base.toml", BASE);
    let host = first_executor_host(&baseline);
    let mut baselines = std::collections::BTreeMap::new();
    baselines.insert(None, baseline);
    for kind in fault_kinds::KINDS {
        let conf = conf_for(kind.name);
        let base = base_with(conf);
        let baseline = baselines
            .entry(conf)
            .or_insert_with(|| run_text(&format!("kinds-base-{}.toml", kind.name), &base));
        let before = what_happened(baseline);
        let text = format!(
            "{base}[[faults]]\nkind = \"{}\"\n{}",
            kind.name,
            entry(kind.name, &host)
        );
        let r = run_text(&format!("kinds-{}.toml", kind.name), &text);
        if kind.driver {
            assert_ne!(
                r.counters.am_exit_codes, baseline.counters.am_exit_codes,
                "{}: the driver fault changed no AM exit",
                kind.name
            );
            continue;
        }
        let [fired] = r.faults_fired.as_slice() else {
            panic!("{}: fired {:?}", kind.name, r.faults_fired);
        };
        assert_eq!(fired.no_effect, None, "{}", kind.name);
        assert!(
            kind.acts_on.matches(&fired.target),
            "{}: declared {:?}, hit {:?}",
            kind.name,
            kind.acts_on,
            fired.target
        );
        let acted = what_happened(&r) != before;
        assert_eq!(
            acted,
            !ACTS_ON_NOTHING_YET.contains(&kind.name),
            "{}: fired at {} ms; acted: {acted} (ACTS_ON_NOTHING_YET may only shrink)",
            kind.name,
            fired.at_ms
        );
    }
}

/// Without exclusion on failure Spark has no HealthTracker (`HealthTracker.
/// isExcludeOnFailureEnabled`, SparkContext's `healthTrackerOpt`), so nothing in Spark can
/// exclude a node for the application: the `exclude-node` fault records why it did nothing,
/// and the run is the run without it.
#[test]
fn exclude_node_without_exclusion_on_failure_records_no_effect() {
    let baseline = run_text("kinds-noexcl-base.toml", BASE);
    let host = first_executor_host(&baseline);
    let text = format!(
        "{BASE}[[faults]]\nkind = \"exclude-node\"\n{}",
        entry("exclude-node", &host)
    );
    let r = run_text("kinds-noexcl.toml", &text);
    let [fired] = r.faults_fired.as_slice() else {
        panic!("fired {:?}", r.faults_fired);
    };
    let why = fired.no_effect.as_deref().expect("a no_effect reason");
    assert!(why.contains("no HealthTracker"), "{why}");
    assert_eq!(what_happened(&r), what_happened(&baseline));
}

/// The `exclude-node` fault as HealthTracker's node exclusion (HealthTracker.scala,
/// `updateExcludedForSuccessfulTaskSet`'s node branch; HealthTrackerSuite "executors can be
/// excluded with only a few failures per stage" checks the same events): the node's
/// `SparkListenerNodeBlacklisted` then `SparkListenerNodeExcluded` (its excluded executors so
/// far: none), `killExecutorsOnExcludedNode` with `killExcludedExecutors` (its INFO line), no
/// task starts on the node afterwards, and the node reaches YARN with the next
/// `RequestExecutors` (YarnSchedulerBackend.prepareRequestExecutors; at the latest stop's),
/// which the AM's YarnAllocatorNodeHealthTracker logs.
#[test]
fn exclude_node_is_a_health_tracker_node_exclusion() {
    use sparkyard_messages::listener::{ExclusionEventName, ListenerEvent};
    let host = first_executor_host(&run_text("kinds-excl-host.toml", BASE));
    let base = BASE.replace(
        "\"spark.decommission.enabled\" = \"true\"\n",
        "\"spark.excludeOnFailure.enabled\" = \"true\"\n\
         \"spark.excludeOnFailure.killExcludedExecutors\" = \"true\"\n",
    );
    let text = format!(
        "{base}[[faults]]\nkind = \"exclude-node\"\n{}",
        entry("exclude-node", &host)
    );
    let dir = TestDir::new("kinds-excl");
    let path = dir.join("kinds-excl.toml");
    std::fs::write(&path, text).expect("write");
    let s = scenario::load(&path).expect("loads");
    let opts = RunOptions {
        record_events: true,
        deadline_ms: 6 * 3_600_000,
        ..RunOptions::default()
    };
    let r = scenario::run(&s, None, opts).expect("runs").result;
    let [fired] = r.faults_fired.as_slice() else {
        panic!("fired {:?}", r.faults_fired);
    };
    assert_eq!(fired.no_effect, None);
    let events: Vec<&ListenerEvent> = r.events.iter().flat_map(|a| &a.events).collect();
    let nodes = crate::common::node_exclusions(&r);
    assert_eq!(
        nodes,
        vec![
            (ExclusionEventName::Blacklisted, host.as_str(), 0),
            (ExclusionEventName::Excluded, host.as_str(), 0)
        ]
    );
    // The bus's order: no TaskStart on the node after its exclusion was posted.
    let excluded_at = events
        .iter()
        .position(|e| matches!(e, ListenerEvent::NodeExcluded { .. }))
        .expect("posted");
    let late_starts_on_host = events[excluded_at..]
        .iter()
        .filter(|e| matches!(e, ListenerEvent::TaskStart { info, .. } if info.host == host))
        .count();
    assert_eq!(late_starts_on_host, 0, "tasks started on the excluded node");
    let driver = crate::common::am_stderr_of(&r);
    let kill = format!(
        "INFO HealthTracker: Killing all executors on excluded host {host} since \
         spark.excludeOnFailure.killExcludedExecutors is set."
    );
    assert!(driver.contains(&kill), "{kill}");
    let added = format!(
        "INFO YarnAllocatorNodeHealthTracker: adding nodes to YARN application master's \
         excluded node list: List({host})"
    );
    assert!(driver.contains(&added), "{added}");
    assert!(!driver.contains("for the application"));
}

/// docs/scenarios.md's kind table lists the registry's kinds in its order, each with exactly
/// the keys the kind takes; its key table has every key; the `[chaos]` kinds are all named.
#[test]
fn the_docs_kind_table_is_the_registry() {
    let docs = std::fs::read_to_string("docs/scenarios.md").expect("docs/scenarios.md");
    let table = section(&docs, "### Kinds", "Keys of the kinds:");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.split(" | ").collect())
        .collect();
    let names: Vec<String> = rows.iter().map(|r| ticked(r[0]).join("")).collect();
    assert_eq!(names, fault_kinds::names(), "the kinds, in order");
    for (row, kind) in rows.iter().zip(fault_kinds::KINDS) {
        let mut documented = ticked(row[1]);
        documented.sort_unstable();
        let mut keys: Vec<String> = kind
            .keys
            .iter()
            .filter(|k| **k != "kind")
            .map(|k| k.to_string())
            .collect();
        keys.sort_unstable();
        assert_eq!(documented, keys, "the keys of {}", kind.name);
    }
    let key_table = section(&docs, "Keys of the kinds:", "## `[expect]`");
    for key in fault_kinds::KINDS.iter().flat_map(|k| k.keys) {
        let in_driver_rows = ["attempt", "on_attempt_started"].contains(key);
        assert!(
            in_driver_rows || key_table.contains(&format!("`{key}`")),
            "key `{key}` is not in the docs' key table"
        );
    }
    let chaos = docs
        .lines()
        .find(|l| l.starts_with("| `kinds` |"))
        .expect("the [chaos] kinds row");
    // The row's kind names (its other words in backticks are `[chaos]` keys: `exit_codes`, ...).
    let kinds = fault_kinds::names();
    let drawn: Vec<String> = ticked(chaos)
        .into_iter()
        .filter(|t| t.contains('-') || kinds.contains(&t.as_str()))
        .collect();
    // Each drawn name once, in the order the row first names it: the registry's order.
    let mut named: Vec<String> = Vec::new();
    for d in drawn {
        if !named.contains(&d) {
            named.push(d);
        }
    }
    assert_eq!(
        named,
        scenario::chaos::names(),
        "the [chaos] kinds, in order"
    );
}

/// The text of `docs` from the heading `from` to the next `to`.
fn section<'a>(docs: &'a str, from: &str, to: &str) -> &'a str {
    let start = docs.find(from).unwrap_or_else(|| panic!("{from}"));
    let end = docs[start..].find(to).map_or(docs.len(), |e| start + e);
    &docs[start..end]
}

/// The identifiers written in backticks in `cell` (a key's or a kind's name; not a value such
/// as a default exception text).
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| {
            t.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
        })
        .map(str::to_string)
        .collect()
}
