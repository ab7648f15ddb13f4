//! Plans a scenario's `[[faults]]`: each entry's trigger (exactly one), the keys its kind
//! would ignore refused, and the entry turned into the simulator's planned fault through its
//! kind's declaration (`fault_kinds`).

use super::fault_entry::RawFault;
use super::fault_kinds::{self, KindPlan};
use crate::conf::cluster::ClusterConfig;
use sparkyard_actors::simulation::faults::{PlannedDriverFault, PlannedFault, Trigger};

/// Keys of a `[[faults]]` entry that every timed or event-triggered kind takes.
pub(super) const TRIGGER_KEYS: &[&str] = &[
    "kind",
    "label",
    "at_ms",
    "on_executor_registered",
    "on_task_started",
    "on_tasks_finished",
    "on_attempt_started",
    "after_ms",
    "attempt",
    "app",
    "running_app",
];

/// The keys given to a fault of `kind` that it does not use, with the keys it does take; `None`
/// for an unknown kind (refused when it is planned).
fn ignored_keys(kind: &str, given: &[String]) -> Option<(Vec<String>, Vec<&'static str>)> {
    let k = fault_kinds::kind(kind)?;
    let takes: Vec<&'static str> = if k.driver {
        // A driver fault fires when its AM attempt starts, in the application `app` names.
        k.keys.iter().chain(&["app"]).copied().collect()
    } else {
        TRIGGER_KEYS.iter().chain(k.keys).copied().collect()
    };
    let ignored: Vec<String> = given
        .iter()
        .filter(|g| !takes.contains(&g.as_str()))
        .cloned()
        .collect();
    Some((ignored, if k.driver { takes } else { k.keys.to_vec() }))
}

/// The keys written in each `[[faults]]` entry, in order (serde fills defaults, so the typed
/// entry cannot tell a key the user wrote from one left out).
pub(super) fn fault_keys(text: &str) -> Vec<Vec<String>> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let Some(toml::Value::Array(faults)) = table.get("faults") else {
        return Vec::new();
    };
    faults
        .iter()
        .map(|f| {
            f.as_table()
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect()
}

/// Refuses keys the fault's kind would ignore (`count` on kill-executor, `at_ms` on a driver
/// fault), naming the keys the kind takes.
pub(super) fn check_keys(f: &RawFault, given: &[String]) -> Result<(), String> {
    let Some((ignored, takes)) = ignored_keys(&f.kind, given) else {
        return Ok(());
    };
    let Some(first) = ignored.first() else {
        return Ok(());
    };
    // The kind's own reason first (its declaration's `refused`), then a driver kind's.
    let reason = fault_kinds::refusal_reason(&f.kind, first);
    let why = match (reason, f.kind.as_str(), first.as_str()) {
        (Some(why), _, _) => format!(" ({why})"),
        (None, k, "label") if fault_kinds::is_driver(k) => {
            " (a driver fault is not printed with a label)".to_string()
        }
        (None, k, key) if fault_kinds::is_driver(k) && TRIGGER_KEYS.contains(&key) => {
            " (a driver fault fires when its AM attempt starts: use `attempt` or `on_attempt_started`)".to_string()
        }
        _ => String::new(),
    };
    let takes: Vec<&str> = takes.into_iter().filter(|k| *k != "kind").collect();
    let takes = if takes.is_empty() {
        "only a trigger".to_string()
    } else {
        takes.join(", ")
    };
    let lead = if fault_kinds::is_driver(&f.kind) {
        "the keys it takes"
    } else {
        "besides its trigger it takes"
    };
    Err(format!(
        "kind '{}' does not use `{}`{why}; {lead}: {takes}",
        f.kind,
        ignored.join("`, `"),
    ))
}

pub(super) enum Planned {
    Fault(PlannedFault),
    Driver(PlannedDriverFault),
}

fn trigger(f: &RawFault) -> Result<Trigger, String> {
    let attempt = f.attempt;
    let t = [
        f.at_ms.map(|ms| Trigger::At { ms }),
        f.on_executor_registered
            .map(|executor| Trigger::ExecutorRegistered { attempt, executor }),
        f.on_task_started
            .map(|[stage, index]| Trigger::TaskStarted {
                attempt,
                stage,
                index,
            }),
        f.on_tasks_finished
            .map(|count| Trigger::TasksFinished { attempt, count }),
        f.on_attempt_started
            .map(|attempt| Trigger::AttemptStarted { attempt }),
    ];
    let mut given = t.into_iter().flatten();
    match (given.next(), given.next()) {
        (Some(t), None) => Ok(t),
        (None, _) => Err("needs a trigger: at_ms, on_executor_registered, on_task_started, on_tasks_finished or on_attempt_started".into()),
        (Some(_), Some(_)) => Err("give exactly one trigger".into()),
    }
}

/// One `[[faults]]` entry as the simulator's fault: its kind's action with its trigger and
/// label, or a driver fault keyed by the AM attempt it acts in.
pub(super) fn fault(f: &RawFault, cluster: &ClusterConfig) -> Result<Planned, String> {
    if f.attempt == 0 {
        return Err("attempt: AM attempts count from 1".into());
    }
    if f.app == Some(0) {
        return Err("app: applications count from 1 (in submission order)".into());
    }
    let Some(kind) = fault_kinds::kind(&f.kind) else {
        return Err(format!(
            "kind: unknown fault kind `{}`; valid kinds: {}",
            f.kind,
            fault_kinds::names().join(", ")
        ));
    };
    if f.running_app == Some(0) {
        return Err("running_app: counts from 1 (the first application running)".into());
    }
    if f.running_app.is_some() && f.app.is_some() {
        return Err("give `app` (a fixed application) or `running_app` (one running when the fault fires), not both".into());
    }
    if f.running_app.is_some() && f.at_ms.is_none() {
        return Err("running_app: needs at_ms (the application is chosen when the time comes; an on_* trigger is already one application's event)".into());
    }
    let app = f.app.map_or(0, |a| a as usize - 1);
    let action = match kind.plan(f, cluster)? {
        KindPlan::Driver(fault) => {
            return Ok(Planned::Driver(PlannedDriverFault {
                app,
                attempt: f.on_attempt_started.unwrap_or(f.attempt),
                fault,
            }));
        }
        KindPlan::Action(a) => a,
    };
    Ok(Planned::Fault(PlannedFault {
        trigger: trigger(f)?,
        after_ms: f.after_ms,
        action,
        label: f.label.clone().unwrap_or_else(|| f.kind.clone()),
        app,
        running_app: f.running_app,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_actors::simulation::faults::DriverFault;

    fn embedded() -> ClusterConfig {
        crate::conf::cluster::load_cluster(crate::conf::cluster::ClusterSource::Embedded)
            .expect("the embedded cluster")
    }

    fn entry(kind: &str) -> RawFault {
        RawFault {
            kind: kind.into(),
            attempt: 1,
            ..RawFault::default()
        }
    }

    #[test]
    fn a_timed_kind_needs_exactly_one_trigger() {
        let mut f = RawFault {
            executor: Some(1),
            ..entry("kill-executor")
        };
        let none = fault(&f, &embedded()).err();
        assert!(none.is_some_and(|e| e.starts_with("needs a trigger")));
        f.at_ms = Some(5);
        f.on_tasks_finished = Some(3);
        let two = fault(&f, &embedded()).err();
        assert_eq!(two.as_deref(), Some("give exactly one trigger"));
        f.on_tasks_finished = None;
        let Ok(Planned::Fault(p)) = fault(&f, &embedded()) else {
            panic!("a timed kill-executor plans");
        };
        assert_eq!(
            (p.trigger, p.label.as_str()),
            (Trigger::At { ms: 5 }, "kill-executor")
        );
    }

    /// A driver fault is keyed by its attempt (`on_attempt_started` wins) and needs no trigger.
    #[test]
    fn a_driver_fault_is_keyed_by_its_attempt() {
        let f = RawFault {
            on_attempt_started: Some(2),
            ..entry("no-spark-context")
        };
        let Ok(Planned::Driver(d)) = fault(&f, &embedded()) else {
            panic!("a driver fault for attempt 2");
        };
        let want = PlannedDriverFault {
            app: 0,
            attempt: 2,
            fault: DriverFault::NeverCreateContext,
        };
        assert_eq!(d, want);
    }

    /// A driver fault takes `app = N` as every other fault does (issue 28: a day's driver
    /// faults used to act on its first application only).
    #[test]
    fn a_driver_fault_aims_at_its_application() {
        let f = RawFault {
            app: Some(3),
            ..entry("no-spark-context")
        };
        let Ok(Planned::Driver(d)) = fault(&f, &embedded()) else {
            panic!("a driver fault");
        };
        assert_eq!((d.app, d.attempt), (2, 1));
    }

    #[test]
    fn an_unknown_kind_and_attempt_zero_are_refused_with_the_fix() {
        let unknown = fault(&entry("kill-everything"), &embedded())
            .err()
            .unwrap_or_default();
        assert!(
            unknown.starts_with(
                "kind: unknown fault kind `kill-everything`; valid kinds: kill-executor, kill-am"
            ),
            "{unknown}"
        );
        let zero = RawFault {
            attempt: 0,
            ..entry("kill-am")
        };
        let zero = fault(&zero, &embedded()).err();
        assert_eq!(zero.as_deref(), Some("attempt: AM attempts count from 1"));
    }

    /// A key the kind would ignore is an error naming what the kind takes, with the reason
    /// where one helps.
    #[test]
    fn keys_a_kind_ignores_are_refused() {
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let count = check_keys(&entry("kill-executor"), &keys(&["kind", "at_ms", "count"]));
        assert_eq!(
            count.err().as_deref(),
            Some(
                "kind 'kill-executor' does not use `count` (it kills one executor: write one [[faults]] entry per executor); besides its trigger it takes: executor, exit, status"
            )
        );
        let driver = check_keys(&entry("user-class-throws"), &keys(&["kind", "at_ms"]));
        assert_eq!(
            driver.err().as_deref(),
            Some(
                "kind 'user-class-throws' does not use `at_ms` (a driver fault fires when its AM attempt starts: use `attempt` or `on_attempt_started`); the keys it takes: attempt, on_attempt_started, exception, app"
            )
        );
        assert!(check_keys(&entry("kill-am"), &keys(&["kind", "at_ms", "exit"])).is_ok());
        assert!(check_keys(&entry("no-such-kind"), &keys(&["bogus"])).is_ok());
    }

    #[test]
    fn the_keys_written_are_read_in_order() {
        let text =
            "name = \"x\"\n[[faults]]\nkind = \"kill-am\"\nat_ms = 1\n[[faults]]\nexit = 3\n";
        assert_eq!(
            fault_keys(text),
            vec![
                vec!["at_ms".to_string(), "kind".into()],
                vec!["exit".to_string()]
            ]
        );
        assert!(fault_keys("not toml [").is_empty());
    }

    /// `running_app` picks an application when a timed fault fires; it cannot be given with a
    /// fixed `app`, counts from 1, and needs `at_ms`.
    #[test]
    fn running_app_is_checked() {
        let base = RawFault {
            kind: "kill-executor".into(),
            executor: Some(1),
            at_ms: Some(5),
            attempt: 1,
            ..RawFault::default()
        };
        let plan = |f: RawFault| fault(&f, &embedded());
        let ok = plan(RawFault {
            running_app: Some(2),
            ..base.clone()
        });
        assert!(matches!(
            ok,
            Ok(Planned::Fault(PlannedFault {
                running_app: Some(2),
                ..
            }))
        ));
        for (bad, says) in [
            (
                RawFault {
                    running_app: Some(0),
                    ..base.clone()
                },
                "counts from 1",
            ),
            (
                RawFault {
                    running_app: Some(1),
                    app: Some(1),
                    ..base.clone()
                },
                "not both",
            ),
            (
                RawFault {
                    running_app: Some(1),
                    at_ms: None,
                    on_tasks_finished: Some(3),
                    ..base.clone()
                },
                "needs at_ms",
            ),
        ] {
            let e = plan(bad).err().unwrap_or_default();
            assert!(e.contains(says), "{e}");
        }
    }
}
