//! An executor's `MapOutputTrackerWorker` (Spark: `MapOutputTracker.scala`) as far as its cache
//! goes: which shuffles' statuses it fetched (`getStatuses` asks the driver's
//! MapOutputTrackerMasterEndpoint once per shuffle) and the `epoch` that clears them
//! (`updateEpoch`). No actix: the executor logs and sends what it decides.

use crate::kernel::small_map::SmallSet;

/// `MapOutputTrackerWorker`'s `mapStatuses` and `epoch`: the shuffles whose statuses it
/// fetched, cleared when a task brings a newer epoch (`updateEpoch`).
#[derive(Default)]
#[repr(C)]
pub struct MapStatusCache {
    epoch: u64,
    shuffles: SmallSet<u32>,
}

impl MapStatusCache {
    /// `updateEpoch` (Spark 4.0.0's `MapOutputTrackerWorker`): a task's newer epoch clears the
    /// cached statuses. Whether it did (the worker logs it).
    pub fn update_epoch(&mut self, epoch: u64) -> bool {
        if epoch <= self.epoch {
            return false;
        }
        self.epoch = epoch;
        self.shuffles = SmallSet::default();
        true
    }

    /// `getStatuses`: whether the shuffle's statuses must be fetched (they are cached from
    /// then on, until a newer epoch).
    pub fn must_fetch(&mut self, shuffle_id: u32) -> bool {
        if self.shuffles.contains(&shuffle_id) {
            return false;
        }
        self.shuffles.insert(shuffle_id);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::MapStatusCache;

    /// MapOutputTrackerWorker.getStatuses fetches a shuffle's statuses once and caches them;
    /// updateEpoch clears the cache when a task brings a newer epoch (an older or equal one
    /// changes nothing). MapOutputTrackerSuite "remote fetch" / "epoch change clears cache".
    #[test]
    fn map_statuses_are_fetched_once_per_epoch() {
        let mut c = MapStatusCache::default();
        assert!(!c.update_epoch(0), "a task of epoch 0 on a new worker");
        assert!(c.update_epoch(1), "Updating epoch to 1 and clearing cache");
        assert!(c.must_fetch(0));
        assert!(!c.must_fetch(0));
        assert!(c.must_fetch(1), "another shuffle");
        assert!(!c.update_epoch(0), "an older epoch keeps the cache");
        assert!(!c.update_epoch(1), "so does the same one");
        assert!(!c.must_fetch(0));
        assert!(c.update_epoch(2), "a newer epoch clears it");
        assert!(c.must_fetch(0));
        assert!(c.must_fetch(1));
        assert!(!c.must_fetch(1));
    }
}
