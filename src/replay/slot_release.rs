//! When each recorded task attempt gave its executor slot back, read from the launches that
//! followed it on the same executor. Spark 4.0.0's `CoarseGrainedSchedulerBackend.DriverEndpoint`
//! frees a task's cores on its `StatusUpdate` and offers them at once (`makeOffers(executorId)`),
//! while `TaskSchedulerImpl.statusUpdate` hands the result to the `TaskResultGetter`'s threads,
//! which deserialise it and only then call `TaskSetManager.handleSuccessfulTask` (or
//! `handleFailedTask`), where `TaskInfo.markFinished` sets the `Finish Time` the log records. A
//! recorded duration (launch to finish) therefore holds the getter's time after the slot already
//! ran the next task; the simulated driver handles an end at its `StatusUpdate`, so a replay that
//! ran the whole duration in the slot would count that time twice (a few ms per task: 13 % of a
//! job of 50 short tasks in `sql_n1_r1`).

use std::collections::BTreeMap;

/// One recorded attempt's use of a slot: its executor, launch and finish (epoch ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotUse {
    pub executor_id: u32,
    pub launch_ms: u64,
    pub finish_ms: u64,
    pub attempt: AttemptKey,
}

/// Which attempt a [`SlotUse`] is: its stage, task index, attempt number and launch (a stage's
/// retry numbers its task attempts from 0 again, so the launch tells them apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct AttemptKey {
    pub stage_id: u32,
    pub index: u32,
    pub attempt: u32,
    pub launch_ms: u64,
}

/// For each attempt whose slot took another task before the attempt's recorded finish, how
/// long before: on an executor of `slots(executor)` task slots, the first `slots` launches took
/// free slots, and each later launch took the slot of the next attempt to end (ends in finish
/// order: the getter's threads may finish results out of order, which moves time between two
/// attempts' figures but keeps their sum). An attempt whose slot stayed idle until after its
/// finish (the end of a stage, or nothing pending) released nothing early. Executors whose
/// slots are unknown are left out.
pub fn released_early(
    uses: &[SlotUse],
    slots: &dyn Fn(u32) -> Option<u32>,
) -> BTreeMap<AttemptKey, u64> {
    let mut by_executor: BTreeMap<u32, Vec<&SlotUse>> = BTreeMap::new();
    for u in uses {
        by_executor.entry(u.executor_id).or_default().push(u);
    }
    let mut out = BTreeMap::new();
    for (executor, mut ends) in by_executor {
        let Some(slots) = slots(executor).filter(|&s| s > 0) else {
            continue;
        };
        let mut launches: Vec<u64> = ends.iter().map(|u| u.launch_ms).collect();
        launches.sort_unstable();
        ends.sort_by_key(|u| (u.finish_ms, u.launch_ms, u.attempt));
        for (k, u) in ends.iter().enumerate() {
            let Some(&next) = launches.get(slots as usize + k) else {
                break;
            };
            if (u.launch_ms..u.finish_ms).contains(&next) {
                out.insert(u.attempt, u.finish_ms - next);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(executor_id: u32, index: u32, launch_ms: u64, finish_ms: u64) -> SlotUse {
        SlotUse {
            executor_id,
            launch_ms,
            finish_ms,
            attempt: AttemptKey {
                stage_id: 0,
                index,
                attempt: 0,
                launch_ms,
            },
        }
    }

    fn early(uses: &[SlotUse], slots: u32) -> Vec<(u32, u64)> {
        released_early(uses, &|_| Some(slots))
            .into_iter()
            .map(|(k, v)| (k.index, v))
            .collect()
    }

    /// `sql_n1_r1`'s stage 2 as recorded (two slots): tasks 0 and 1 launched at 32-33 ms,
    /// tasks 2 and 3 at 212 ms while 0 and 1 were recorded finished at 243 and 230 ms; 4 and 5
    /// launched at 223 and 239 ms, before 2 and 3 were recorded finished.
    #[test]
    fn a_launch_before_an_attempts_finish_took_its_slot() {
        let uses = [
            run(0, 1, 33, 230),
            run(0, 0, 32, 243),
            run(0, 3, 212, 230),
            run(0, 2, 212, 243),
            run(0, 4, 223, 243),
            run(0, 5, 239, 252),
        ];
        // In finish order (1, 3, 0, 2, 4, 5) the ends took the third to sixth launches (212,
        // 212, 223, 239): 18, 18, 20 and 4 ms before their finishes; 4 and 5 had no successor.
        assert_eq!(early(&uses, 2), vec![(0, 20), (1, 18), (2, 4), (3, 18)]);
        // Read as three slots, the third launch took a free slot and the ends (1, 3, 0) took
        // the fourth to sixth launches (212, 223, 239).
        assert_eq!(early(&uses, 3), vec![(0, 4), (1, 18), (3, 7)]);
    }

    #[test]
    fn a_slot_idle_until_after_the_finish_released_nothing_early() {
        // One slot: the second task launched 5 ms after the first was recorded finished.
        let uses = [run(0, 0, 0, 100), run(0, 1, 105, 200)];
        assert!(early(&uses, 1).is_empty());
    }

    #[test]
    fn executors_are_apart_and_unknown_slots_are_left_out() {
        let uses = [
            run(1, 0, 0, 100),
            run(1, 1, 90, 200),
            run(2, 2, 0, 100),
            run(2, 3, 80, 200),
        ];
        let got = released_early(&uses, &|e| (e == 1).then_some(1));
        assert_eq!(got.len(), 1);
        assert_eq!(got.values().copied().collect::<Vec<_>>(), vec![10]);
    }

    #[test]
    fn results_finished_out_of_order_keep_their_sum() {
        // One slot each freed at 100 (a) and 110 (b), their results finished at 130 and 115:
        // the figures are moved between them (15 and 20, not 30 and 5), their sum kept.
        let uses = [
            run(0, 0, 0, 130),
            run(0, 1, 0, 115),
            run(0, 2, 100, 300),
            run(0, 3, 110, 300),
        ];
        let got = early(&uses, 2);
        assert_eq!(got.iter().map(|g| g.1).sum::<u64>(), 35);
    }
}
