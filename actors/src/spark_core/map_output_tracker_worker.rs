//! An executor's `MapOutputTrackerWorker` (Spark: `MapOutputTracker.scala`) as far as its cache
//! goes: which shuffles' statuses it fetched (`getStatuses` asks the driver's
//! MapOutputTrackerMasterEndpoint once per shuffle) and the `epoch` that clears them
//! (`updateEpoch`). No actix: the executor logs and sends what it decides.

use crate::kernel::small_map::SmallMap;
use sparkyard_messages::task::ShuffleReadPlan;
use std::sync::Arc;

/// `MapOutputTrackerWorker`'s `mapStatuses` and `epoch`: the shuffles whose statuses it
/// fetched, as the read plans they were, cleared when a task brings a newer epoch
/// (`updateEpoch`).
#[derive(Default)]
#[repr(C)]
pub struct MapStatusCache {
    epoch: u64,
    shuffles: SmallMap<u32, Arc<ShuffleReadPlan>>,
}

/// What `getStatuses` gives a reduce task: the statuses it reads, and whether the worker
/// fetched them from the driver for it.
pub struct Statuses {
    pub plan: Arc<ShuffleReadPlan>,
    pub fetched: bool,
}

impl MapStatusCache {
    /// `updateEpoch` (Spark 4.0.0's `MapOutputTrackerWorker`): a task's newer epoch clears the
    /// cached statuses. Whether it did (the worker logs it).
    pub fn update_epoch(&mut self, epoch: u64) -> bool {
        if epoch <= self.epoch {
            return false;
        }
        self.epoch = epoch;
        self.shuffles = SmallMap::default();
        true
    }

    /// `getMapSizesByExecutorId`'s catch of a `MetadataFetchFailedException` (the 4.0.0 jar):
    /// "our mapStatuses cache is outdated": every cached shuffle goes (the epoch stays).
    pub fn clear(&mut self) {
        self.shuffles = SmallMap::default();
    }

    /// `getStatuses`: the shuffle's cached statuses, else the driver's `current` ones, fetched
    /// and cached until a newer epoch. Cached ones may predate an executor's loss: a
    /// TaskSetManager stamps its tasks with the epoch of its creation (the 4.0.0 jar sets
    /// `Task.epoch` nowhere else), so a task it runs again after the loss clears nothing and
    /// reads the lost executor's outputs as they were.
    pub fn get_statuses(&mut self, current: &Arc<ShuffleReadPlan>) -> Statuses {
        let sid = current.shuffle_id;
        if let Some(plan) = self.shuffles.get(&sid) {
            let plan = plan.clone();
            return Statuses {
                plan,
                fetched: false,
            };
        }
        self.shuffles.insert(sid, current.clone());
        Statuses {
            plan: current.clone(),
            fetched: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(shuffle_id: u32, epoch: u64) -> Arc<ShuffleReadPlan> {
        Arc::new(ShuffleReadPlan {
            shuffle_id,
            epoch,
            sources: Vec::new(),
            missing_map: None,
            bytes_per_reduce: 0,
        })
    }

    /// MapOutputTrackerWorker.getStatuses fetches a shuffle's statuses once and caches them;
    /// updateEpoch clears the cache when a task brings a newer epoch (an older or equal one
    /// changes nothing). MapOutputTrackerSuite "remote fetch" / "epoch change clears cache".
    #[test]
    fn map_statuses_are_fetched_once_per_epoch() {
        let mut c = MapStatusCache::default();
        let fetched = |c: &mut MapStatusCache, sid| c.get_statuses(&plan(sid, 0)).fetched;
        assert!(!c.update_epoch(0), "a task of epoch 0 on a new worker");
        assert!(c.update_epoch(1), "Updating epoch to 1 and clearing cache");
        assert!(fetched(&mut c, 0));
        assert!(!fetched(&mut c, 0));
        assert!(fetched(&mut c, 1), "another shuffle");
        assert!(!c.update_epoch(0), "an older epoch keeps the cache");
        assert!(!c.update_epoch(1), "so does the same one");
        assert!(!fetched(&mut c, 0));
        assert!(c.update_epoch(2), "a newer epoch clears it");
        assert!(fetched(&mut c, 0));
        assert!(fetched(&mut c, 1));
        assert!(!fetched(&mut c, 1));
    }

    /// A task of an epoch no newer than the cache's reads the statuses cached before, not the
    /// driver's newer ones (which an executor's loss changed): the real shufflelost run's retry
    /// of the lost task fetched from the dead executor again (ExecutorDeadException).
    #[test]
    fn a_task_of_an_old_epoch_reads_the_cached_statuses() {
        let mut c = MapStatusCache::default();
        let before = plan(0, 0);
        assert!(c.get_statuses(&before).fetched);
        let after_loss = plan(0, 1);
        assert!(
            !c.update_epoch(0),
            "the task set's epoch, from before the loss"
        );
        let s = c.get_statuses(&after_loss);
        assert!(!s.fetched);
        assert!(Arc::ptr_eq(&s.plan, &before));
        assert!(c.update_epoch(1), "a new stage attempt's task");
        assert!(Arc::ptr_eq(&c.get_statuses(&after_loss).plan, &after_loss));
        // A missing output found in the cached statuses clears them all: the next read
        // fetches again, whatever its epoch.
        c.clear();
        assert!(!c.update_epoch(1));
        assert!(c.get_statuses(&after_loss).fetched);
    }
}
