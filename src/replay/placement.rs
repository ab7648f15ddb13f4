//! Where the recording's YARN put its executors: each executor's `SparkListenerExecutorAdded`
//! host, in the order the ApplicationMaster was given their containers (Spark's
//! `YarnAllocator.runAllocatedContainers` numbers executors as their containers come, so the
//! log's executor ids are that order), for the simulated CapacityScheduler to follow
//! (`sparkyard_actors`' `capacity_scheduler::recorded_placement`, which says why a replay takes
//! it from the log).

use super::model::ExecutorSpan;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The placement the replay of a log takes from it: where its executors' start-up depended on
/// the host (see [`warm_and_cold_hosts`]), the recorded host of each executor
/// ([`recorded_placement`]); elsewhere `None`, YARN's own placement (the simulated heartbeat
/// order, with which the other committed logs replay at their figures).
pub fn taken_from_log(
    executors: &[ExecutorSpan],
    cold_executors: &[&ExecutorSpan],
) -> Option<Arc<[Option<u32>]>> {
    warm_and_cold_hosts(executors, cold_executors)
        .then(|| recorded_placement(executors))
        .flatten()
}

/// Whether the log shows executors starting both on hosts new to the application (its cold
/// starts, [`cold_starts_on_new_hosts`]) and on hosts it had used (an executor added where an
/// earlier one had been): YARN's choice of node then decided how long each took to start.
fn warm_and_cold_hosts(executors: &[ExecutorSpan], cold_executors: &[&ExecutorSpan]) -> bool {
    let warm = executors
        .iter()
        .any(|c| !c.is_driver() && used_before(executors, c));
    warm && cold_starts_on_new_hosts(executors, cold_executors)
}

/// Whether an executor other than the driver was added on `c`'s host before `c`.
fn used_before(executors: &[ExecutorSpan], c: &ExecutorSpan) -> bool {
    executors
        .iter()
        .any(|e| !e.is_driver() && e.host == c.host && e.added_ms < c.added_ms)
}

/// The recorded host of each executor id 1, 2, ... up to the log's highest, as labels (each
/// host its place among the hosts in that order); `None` for an id the log has no executor of
/// (a container that never registered). `None` when the log has no numbered executor.
pub fn recorded_placement(executors: &[ExecutorSpan]) -> Option<Arc<[Option<u32>]>> {
    let by_id: BTreeMap<u32, &ExecutorSpan> = executors
        .iter()
        .filter_map(|e| Some((e.executor_id.parse::<u32>().ok()?, e)))
        .filter(|&(id, _)| id > 0)
        .collect();
    let (&last, _) = by_id.last_key_value()?;
    let mut labels: BTreeMap<&str, u32> = BTreeMap::new();
    let placement: Vec<Option<u32>> = (1..=last)
        .map(|id| {
            let e = by_id.get(&id)?;
            let next = labels.len() as u32;
            Some(*labels.entry(e.host.as_str()).or_insert(next))
        })
        .collect();
    Some(placement.into())
}

/// Whether the log's cold-start executors (the first to register after a job found every
/// executor gone, `cold_start`) came to hosts the application had not used before: what the
/// start-up on a new host took beyond the simulation's own is then the download of the
/// application's resources there (`[costs] localization_ms`), which an executor on a host the
/// application had used skips.
fn cold_starts_on_new_hosts(executors: &[ExecutorSpan], cold_executors: &[&ExecutorSpan]) -> bool {
    !cold_executors.is_empty() && cold_executors.iter().all(|c| !used_before(executors, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executor(id: &str, host: &str, added_ms: u64) -> ExecutorSpan {
        ExecutorSpan {
            executor_id: id.into(),
            host: host.into(),
            cores: 1,
            added_ms,
            removed_ms: None,
            removed_reason: None,
            resources: BTreeMap::new(),
            resource_profile_id: 0,
        }
    }

    #[test]
    fn hosts_are_labelled_in_executor_id_order_and_a_missing_id_has_none() {
        // Registration order differs from the ids' (executor 3 came first).
        let mut executors = vec![
            executor("driver", "d", 0),
            executor("3", "b", 5),
            executor("1", "a", 7),
            executor("4", "a", 9),
        ];
        let p = recorded_placement(&executors).expect("numbered executors");
        assert_eq!(&p[..], &[Some(0), None, Some(1), Some(0)]);
        executors.truncate(1);
        assert_eq!(recorded_placement(&executors), None);
    }

    #[test]
    fn a_cold_start_on_a_host_used_before_is_not_on_a_new_host() {
        let mut e = vec![executor("1", "a", 10), executor("2", "b", 50)];
        assert!(cold_starts_on_new_hosts(&e, &[&e[1]]));
        e.push(executor("3", "a", 60));
        assert!(!cold_starts_on_new_hosts(&e, &[&e[2]]));
        assert!(cold_starts_on_new_hosts(&e, &[&e[0]]));
        assert!(!cold_starts_on_new_hosts(&e, &[]));
    }

    #[test]
    fn the_placement_is_taken_only_where_start_ups_on_new_and_used_hosts_differ() {
        let mut e = vec![executor("1", "a", 10), executor("2", "b", 50)];
        // A cold start on a new host, no executor on a used one: YARN's own placement.
        assert!(taken_from_log(&e, &[&e[1]]).is_none());
        e.push(executor("3", "a", 60));
        let p = taken_from_log(&e, &[&e[1]]).expect("warm and cold");
        assert_eq!(&p[..], &[Some(0), Some(1), Some(0)]);
        // The cold start came on a used host: no sign the host mattered.
        assert!(taken_from_log(&e, &[&e[2]]).is_none());
    }
}
