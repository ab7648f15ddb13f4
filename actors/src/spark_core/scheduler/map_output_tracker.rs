//! `MapOutputTrackerMaster` (Spark: `MapOutputTracker.scala`): where each map task's output
//! lives, per shuffle, and the epoch that changes whenever outputs are lost. A `MapStatus` is
//! kept as small as Spark's `HighlyCompressedMapStatus`: its server (an index into the
//! tracker's table of block servers), its map id and the average size of its blocks, so 100k
//! map outputs of 10k reduce partitions take a few MB, not 10^9 sizes.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::task::{BlockManagerId, FetchSource, ShuffleReadPlan};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One registered map output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MapStatus {
    /// Index into `MapOutputTrackerMaster::servers`.
    server: u32,
    /// The map task's attempt id (Spark's `mapId` is the task's TID).
    map_id: u64,
    /// The size of each of its blocks (HighlyCompressedMapStatus's `avgSize`).
    avg_block_bytes: u64,
}

/// A registered map output as a test reads it (`MapStatus.location` and `mapId`).
#[cfg(test)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisteredOutput {
    pub location: BlockManagerId,
    pub map_id: u64,
}

/// `ShuffleStatus`: the outputs of one shuffle, by map index.
#[derive(Debug)]
struct ShuffleStatus {
    statuses: Vec<Option<MapStatus>>,
    available: u32,
    /// The read plan built for the current epoch (rebuilt after a change).
    plan: Option<Arc<ShuffleReadPlan>>,
    /// `mapStatusesDeleted`: the last removed status of each map index, which a late
    /// migration can recover (`updateMapOutput`). Empty until an output is removed.
    deleted: Vec<Option<MapStatus>>,
}

impl ShuffleStatus {
    /// Remove the status at `i` (it must be set), keeping it in `deleted`.
    fn remove_at(&mut self, i: usize) -> Option<MapStatus> {
        let m = self.statuses[i].take()?;
        if self.deleted.is_empty() {
            self.deleted = vec![None; self.statuses.len()];
        }
        self.deleted[i] = Some(m);
        self.available -= 1;
        self.plan = None;
        Some(m)
    }
}

/// What `updateMapOutput` did (ShuffleStatus logs it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapOutputUpdate {
    /// `Updating map output for <mapId> to <bm>`.
    Updated,
    /// `Recover <mapId> <bm>`: a removed output came back at its new location.
    Recovered,
    /// `Asked to update map output <mapId> for untracked map status.`
    Untracked,
    /// `Asked to update map output for unknown shuffle <shuffleId>` (MapOutputTrackerMaster).
    UnknownShuffle,
}

/// The driver's tracker.
#[derive(Debug, Default)]
pub struct MapOutputTrackerMaster {
    shuffles: BTreeMap<u32, ShuffleStatus>,
    servers: Vec<BlockManagerId>,
    server_index: BTreeMap<BlockManagerId, u32>,
    /// Live outputs per executor the servers name (an executor's own block manager, or its
    /// node's shuffle service on its behalf): what shuffle tracking keeps an executor for.
    live_by_executor: BTreeMap<ExecutorId, u32>,
    epoch: u64,
}

impl MapOutputTrackerMaster {
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// `incrementEpoch`.
    pub fn increment_epoch(&mut self) {
        self.epoch += 1;
    }

    /// `registerShuffle(shuffleId, numMaps, numReduces)`.
    /// `containsShuffle`: whether the shuffle is registered (an earlier job's is kept).
    pub fn contains_shuffle(&self, shuffle_id: u32) -> bool {
        self.shuffles.contains_key(&shuffle_id)
    }

    pub fn register_shuffle(&mut self, shuffle_id: u32, num_maps: u32) {
        self.shuffles
            .entry(shuffle_id)
            .or_insert_with(|| ShuffleStatus {
                statuses: vec![None; num_maps as usize],
                available: 0,
                plan: None,
                deleted: Vec::new(),
            });
    }

    fn server(&mut self, location: BlockManagerId) -> u32 {
        if let Some(&i) = self.server_index.get(&location) {
            return i;
        }
        let i = self.servers.len() as u32;
        self.servers.push(location.clone());
        self.server_index.insert(location, i);
        i
    }

    /// `registerMapOutput(shuffleId, mapIndex, status)`: returns whether the map index had no
    /// output (a second registration replaces the first, as `ShuffleStatus.addMapOutput` does).
    pub fn register_map_output(
        &mut self,
        shuffle_id: u32,
        map_index: u32,
        location: BlockManagerId,
        map_id: u64,
        bytes: u64,
        num_reduces: u32,
    ) -> bool {
        let server = self.server(location);
        let Some(s) = self.shuffles.get_mut(&shuffle_id) else {
            return false;
        };
        let Some(slot) = s.statuses.get_mut(map_index as usize) else {
            return false;
        };
        let new = slot.is_none();
        let replaced = slot.map(|m| m.server);
        *slot = Some(MapStatus {
            server,
            map_id,
            avg_block_bytes: bytes / u64::from(num_reduces.max(1)),
        });
        if new {
            s.available += 1;
        }
        s.plan = None;
        if let Some(old) = replaced {
            self.count_live(old, false);
        }
        self.count_live(server, true);
        new
    }

    /// Whether any live output names `executor` (`ExecutorMonitor`'s shuffle tracking).
    pub fn has_outputs_of(&self, executor: ExecutorId) -> bool {
        self.live_by_executor.get(&executor).is_some_and(|n| *n > 0)
    }

    fn count_live(&mut self, server: u32, added: bool) {
        let id = self.servers[server as usize].executor_id;
        let n = self.live_by_executor.entry(id).or_insert(0);
        if added {
            *n += 1;
        } else {
            *n = n.saturating_sub(1);
        }
    }

    /// `unregisterMapOutput(shuffleId, mapIndex, bmAddress)`: only if the output is still the
    /// one at `location`; bumps the epoch.
    pub fn unregister_map_output(
        &mut self,
        shuffle_id: u32,
        map_index: u32,
        location: &BlockManagerId,
    ) {
        let server = self.server_index.get(location).copied();
        if let Some(s) = self.shuffles.get_mut(&shuffle_id)
            && let Some(slot) = s.statuses.get_mut(map_index as usize)
            && slot.is_some_and(|m| Some(m.server) == server)
        {
            s.remove_at(map_index as usize);
            if let Some(server) = server {
                self.count_live(server, false);
            }
        }
        self.increment_epoch();
    }

    /// `unregisterAllMapAndMergeOutput(shuffleId)` (a failed barrier map stage: every task of
    /// its next attempt runs again): every output of the shuffle removed, then
    /// `incrementEpoch`.
    pub fn unregister_all_map_output(&mut self, shuffle_id: u32) {
        let mut freed: Vec<u32> = Vec::new();
        if let Some(s) = self.shuffles.get_mut(&shuffle_id) {
            for i in 0..s.statuses.len() {
                if let Some(m) = s.remove_at(i) {
                    freed.push(m.server);
                }
            }
        }
        for server in freed {
            self.count_live(server, false);
        }
        self.increment_epoch();
    }

    /// `removeOutputsOnExecutor`: every output whose location names the executor (served by
    /// its block manager, or by its node's shuffle service on the executor's behalf).
    pub fn remove_outputs_on_executor(&mut self, executor: ExecutorId) -> u32 {
        self.remove_outputs_by(|b| b.executor_id == executor)
    }

    /// `removeOutputsOnHost`: every output served from `host`.
    pub fn remove_outputs_on_host(&mut self, host: &str) -> u32 {
        self.remove_outputs_by(|b| b.host == host)
    }

    /// `removeOutputsByFilter` over every shuffle (Spark walks every map status too; this runs
    /// on an executor or host loss only), then `incrementEpoch`.
    fn remove_outputs_by(&mut self, f: impl Fn(&BlockManagerId) -> bool) -> u32 {
        let lost: Vec<bool> = self.servers.iter().map(&f).collect();
        let mut removed = 0;
        let mut freed: Vec<u32> = Vec::new();
        if lost.iter().any(|l| *l) {
            for s in self.shuffles.values_mut() {
                for i in 0..s.statuses.len() {
                    if s.statuses[i].is_some_and(|m| lost[m.server as usize])
                        && let Some(m) = s.remove_at(i)
                    {
                        freed.push(m.server);
                        removed += 1;
                    }
                }
            }
        }
        for server in freed {
            self.count_live(server, false);
        }
        self.increment_epoch();
        removed
    }

    /// `getLocationsWithLargestOutputs(shuffleId, reducerId, numReducers, fractionThreshold)`:
    /// the block servers holding at least `fraction` of the reducer's input, in the order the
    /// tracker first saw them (Spark's is a HashMap's). A map status's blocks are its average
    /// size (HighlyCompressedMapStatus), so every reducer gets the same answer; a zero-sized
    /// block counts nowhere.
    pub fn locations_with_largest_outputs(
        &self,
        shuffle_id: u32,
        fraction: f64,
    ) -> Option<Vec<&BlockManagerId>> {
        let s = self.shuffles.get(&shuffle_id)?;
        let mut by_server: BTreeMap<u32, u64> = BTreeMap::new();
        let mut total = 0u64;
        for m in s.statuses.iter().flatten() {
            if m.avg_block_bytes > 0 {
                *by_server.entry(m.server).or_insert(0) += m.avg_block_bytes;
                total += m.avg_block_bytes;
            }
        }
        let top: Vec<&BlockManagerId> = by_server
            .into_iter()
            .filter(|(_, size)| *size as f64 / total as f64 >= fraction)
            .map(|(server, _)| &self.servers[server as usize])
            .collect();
        (!top.is_empty()).then_some(top)
    }

    /// `updateMapOutput(shuffleId, mapId, bmAddress)` (SPARK-36782: the BlockManagerMaster
    /// calls it when a peer reports a migrated shuffle index block): the output of map task
    /// `map_id` now lives at `location`; a removed one is recovered there. No epoch change,
    /// as in Spark. A walk over the shuffle's maps: migrations are rare.
    pub fn update_map_output(
        &mut self,
        shuffle_id: u32,
        map_id: u64,
        location: BlockManagerId,
    ) -> MapOutputUpdate {
        if !self.shuffles.contains_key(&shuffle_id) {
            return MapOutputUpdate::UnknownShuffle;
        }
        let server = self.server(location);
        let s = self.shuffles.get_mut(&shuffle_id).expect("checked above");
        let found = s
            .statuses
            .iter()
            .position(|m| m.is_some_and(|m| m.map_id == map_id));
        let (old, outcome) = if let Some(i) = found {
            let m = s.statuses[i].as_mut().expect("found");
            (
                Some(std::mem::replace(&mut m.server, server)),
                MapOutputUpdate::Updated,
            )
        } else if let Some(i) = s
            .deleted
            .iter()
            .position(|m| m.is_some_and(|m| m.map_id == map_id))
            .filter(|i| s.statuses[*i].is_none())
        {
            let mut m = s.deleted[i].take().expect("found");
            m.server = server;
            s.statuses[i] = Some(m);
            s.available += 1;
            (None, MapOutputUpdate::Recovered)
        } else {
            return MapOutputUpdate::Untracked;
        };
        s.plan = None;
        if let Some(old) = old {
            self.count_live(old, false);
        }
        self.count_live(server, true);
        outcome
    }

    /// `getMapOutputLocation(shuffleId, mapId)`: where map task `map_id`'s output lives.
    pub fn map_output_location(&self, shuffle_id: u32, map_id: u64) -> Option<&BlockManagerId> {
        let s = self.shuffles.get(&shuffle_id)?;
        let m = s.statuses.iter().flatten().find(|m| m.map_id == map_id)?;
        Some(&self.servers[m.server as usize])
    }

    /// `ShuffleMapStage.isAvailable`: every map index has an output.
    pub fn is_available(&self, shuffle_id: u32) -> bool {
        self.shuffles
            .get(&shuffle_id)
            .is_some_and(|s| s.available as usize == s.statuses.len())
    }

    /// `findMissingPartitions`: map indices without an output, in order.
    pub fn missing_partitions(&self, shuffle_id: u32) -> Vec<u32> {
        let Some(s) = self.shuffles.get(&shuffle_id) else {
            return Vec::new();
        };
        s.statuses
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_none())
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// `shuffleStatuses(shuffleId).mapStatuses` as the suites read it: each map index's output
    /// (its location and map id), `None` where there is none.
    #[cfg(test)]
    pub fn outputs(&self, shuffle_id: u32) -> Vec<Option<RegisteredOutput>> {
        let Some(s) = self.shuffles.get(&shuffle_id) else {
            return Vec::new();
        };
        s.statuses
            .iter()
            .map(|m| {
                m.map(|m| RegisteredOutput {
                    location: self.servers[m.server as usize].clone(),
                    map_id: m.map_id,
                })
            })
            .collect()
    }

    /// Whether map `map_index` of the shuffle has an output.
    #[cfg(test)]
    pub fn has_output(&self, shuffle_id: u32, map_index: u32) -> bool {
        self.shuffles
            .get(&shuffle_id)
            .and_then(|s| s.statuses.get(map_index as usize))
            .is_some_and(Option::is_some)
    }

    /// What a reduce task launched now reads (`getMapSizesByExecutorId` on the worker side):
    /// built once per change of the shuffle's outputs, shared by the reduce tasks.
    pub fn read_plan(&mut self, shuffle_id: u32) -> Option<Arc<ShuffleReadPlan>> {
        let epoch = self.epoch;
        let servers = &self.servers;
        let s = self.shuffles.get_mut(&shuffle_id)?;
        if let Some(plan) = &s.plan {
            return Some(plan.clone());
        }
        let mut by_server: BTreeMap<u32, FetchSource> = BTreeMap::new();
        let mut missing_map = None;
        let mut bytes_per_reduce = 0u64;
        for (i, m) in s.statuses.iter().enumerate() {
            let Some(m) = m else {
                missing_map.get_or_insert(i as u32);
                continue;
            };
            bytes_per_reduce += m.avg_block_bytes;
            let source = by_server
                .entry(m.server)
                .and_modify(|f| f.blocks += 1)
                .or_insert_with(|| FetchSource {
                    location: servers[m.server as usize].clone(),
                    first_map_index: i as u32,
                    first_map_id: m.map_id,
                    blocks: 1,
                    non_empty_blocks: 0,
                    non_empty_bytes: 0,
                });
            // ShuffleBlockFetcherIterator skips a block whose MapStatus size is 0.
            if m.avg_block_bytes > 0 {
                source.non_empty_blocks += 1;
                source.non_empty_bytes += m.avg_block_bytes;
            }
        }
        let mut sources: Vec<FetchSource> = by_server.into_values().collect();
        sources.sort_by_key(|f| f.first_map_index);
        let plan = Arc::new(ShuffleReadPlan {
            shuffle_id,
            epoch,
            sources,
            missing_map,
            bytes_per_reduce,
        });
        s.plan = Some(plan.clone());
        Some(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bm(e: u32, host: &str, port: u16) -> BlockManagerId {
        BlockManagerId {
            executor_id: ExecutorId(e),
            host: host.into(),
            port,
        }
    }

    /// MapOutputTrackerSuite "master register shuffle and fetch" / "master register and
    /// unregister shuffle": outputs register per map index, unregistering needs the same
    /// location, and each unregistration bumps the epoch.
    #[test]
    fn register_and_unregister_map_outputs() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(10, 2);
        assert!(!t.is_available(10));
        assert!(t.register_map_output(10, 0, bm(1, "a", 38001), 100, 1000, 10));
        assert!(t.register_map_output(10, 1, bm(2, "b", 38002), 101, 1000, 10));
        assert!(t.is_available(10));
        let plan = t.read_plan(10).expect("registered");
        assert_eq!(plan.sources.len(), 2);
        assert_eq!(plan.bytes_per_reduce, 200);
        assert_eq!(plan.missing_map, None);
        let e = t.epoch();
        t.unregister_map_output(10, 0, &bm(2, "b", 38002));
        assert!(t.is_available(10), "another location: nothing unregistered");
        t.unregister_map_output(10, 0, &bm(1, "a", 38001));
        assert_eq!(t.missing_partitions(10), vec![0]);
        assert_eq!(t.epoch(), e + 2);
        assert_eq!(t.read_plan(10).expect("registered").missing_map, Some(0));
    }

    /// MapOutputTrackerSuite "master register shuffle and unregister map output and fetch": two
    /// simultaneous fetch failures unregister the same output twice; the second finds nothing
    /// to remove (but bumps the epoch, as `unregisterMapOutput` always does), the other map's
    /// output stays, and a reduce task reading the shuffle now misses map 0 (Spark's
    /// FetchFailedException from `getMapSizesByExecutorId`).
    #[test]
    fn master_register_shuffle_and_unregister_map_output_and_fetch() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(10, 2);
        t.register_map_output(10, 0, bm(1, "hostA", 1000), 0, 3000, 3);
        t.register_map_output(10, 1, bm(2, "hostB", 1000), 1, 12000, 3);
        let e = t.epoch();
        t.unregister_map_output(10, 0, &bm(1, "hostA", 1000));
        t.unregister_map_output(10, 0, &bm(1, "hostA", 1000));
        assert_eq!(t.epoch(), e + 2);
        assert_eq!(t.missing_partitions(10), vec![0]);
        assert!(t.has_output(10, 1));
        assert!(
            !t.has_outputs_of(ExecutorId(1)),
            "counted once, not below zero"
        );
        assert!(t.has_outputs_of(ExecutorId(2)));
        assert_eq!(t.read_plan(10).expect("registered").missing_map, Some(0));
    }

    /// MapOutputTrackerSuite "getLocationsWithLargestOutputs with multiple outputs in same
    /// machine": hostA's block manager serves two outputs of 2 bytes, hostB's one of 3; at a
    /// 50% threshold only hostA (4 of 7 bytes) is preferred, at 20% both are.
    #[test]
    fn get_locations_with_largest_outputs_with_multiple_outputs_in_same_machine() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(10, 3);
        t.register_map_output(10, 0, bm(1, "hostA", 1000), 0, 2, 1);
        t.register_map_output(10, 1, bm(1, "hostA", 1000), 1, 2, 1);
        t.register_map_output(10, 2, bm(2, "hostB", 1000), 2, 3, 1);
        let top50 = t
            .locations_with_largest_outputs(10, 0.5)
            .expect("a preferred location");
        assert_eq!(top50, vec![&bm(1, "hostA", 1000)]);
        let top20 = t
            .locations_with_largest_outputs(10, 0.2)
            .expect("preferred locations");
        assert_eq!(top20, vec![&bm(1, "hostA", 1000), &bm(2, "hostB", 1000)]);
    }

    /// MapOutputTrackerSuite "remove outputs on executor / host": `removeOutputsOnExecutor`
    /// matches the location's executor id (whoever serves it), `removeOutputsOnHost` the host.
    #[test]
    fn unregister_all_map_output_empties_the_shuffle_and_moves_the_epoch() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(0, 2);
        t.register_shuffle(1, 1);
        t.register_map_output(0, 0, bm(1, "a", 7337), 1, 10, 1);
        t.register_map_output(0, 1, bm(2, "b", 7337), 2, 10, 1);
        t.register_map_output(1, 0, bm(1, "a", 7337), 3, 10, 1);
        let epoch = t.epoch();
        t.unregister_all_map_output(0);
        assert_eq!(t.missing_partitions(0), vec![0, 1]);
        assert!(t.missing_partitions(1).is_empty());
        assert!(t.epoch() > epoch);
        assert!(t.has_outputs_of(ExecutorId(1)) && !t.has_outputs_of(ExecutorId(2)));
    }

    #[test]
    fn remove_outputs_on_executor_and_host() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(0, 3);
        t.register_map_output(0, 0, bm(1, "a", 7337), 1, 10, 1);
        t.register_map_output(0, 1, bm(3, "a", 7337), 2, 10, 1);
        t.register_map_output(0, 2, bm(2, "b", 7337), 3, 10, 1);
        assert_eq!(t.remove_outputs_on_executor(ExecutorId(1)), 1);
        assert_eq!(t.missing_partitions(0), vec![0]);
        assert_eq!(t.remove_outputs_on_host("a"), 1);
        assert_eq!(t.missing_partitions(0), vec![0, 1]);
        assert!(t.has_output(0, 2));
    }

    /// ShuffleStatus.updateMapOutput (MapOutputTracker.scala, Spark 4.0): a migrated
    /// output moves to its new block manager without an epoch change, a removed one is
    /// recovered (`mapStatusesDeleted`), an unknown map id or shuffle changes nothing.
    #[test]
    fn update_map_output_moves_and_recovers_outputs() {
        let mut t = MapOutputTrackerMaster::default();
        t.register_shuffle(0, 2);
        t.register_map_output(0, 0, bm(1, "a", 38001), 7, 100, 1);
        t.register_map_output(0, 1, bm(2, "a", 38002), 8, 100, 1);
        let e = t.epoch();
        assert_eq!(
            t.update_map_output(0, 7, bm(3, "b", 38003)),
            MapOutputUpdate::Updated
        );
        assert_eq!(t.epoch(), e);
        assert_eq!(t.map_output_location(0, 7), Some(&bm(3, "b", 38003)));
        assert!(!t.has_outputs_of(ExecutorId(1)));
        assert!(t.has_outputs_of(ExecutorId(3)));
        // The host goes: only map 1 (still on "a") is removed; its late migration recovers it.
        assert_eq!(t.remove_outputs_on_host("a"), 1);
        assert_eq!(t.missing_partitions(0), vec![1]);
        assert_eq!(
            t.update_map_output(0, 8, bm(4, "c", 38004)),
            MapOutputUpdate::Recovered
        );
        assert!(t.is_available(0));
        let plan = t.read_plan(0).expect("registered");
        assert_eq!(plan.sources.len(), 2);
        assert_eq!(
            t.update_map_output(0, 99, bm(4, "c", 38004)),
            MapOutputUpdate::Untracked
        );
        assert_eq!(
            t.update_map_output(5, 7, bm(4, "c", 38004)),
            MapOutputUpdate::UnknownShuffle
        );
    }

    /// A map status stays a few words whatever the number of reduce partitions (Spark's
    /// HighlyCompressedMapStatus keeps an average, not one size per block).
    #[test]
    fn a_map_status_is_small() {
        assert!(std::mem::size_of::<Option<MapStatus>>() <= 32);
    }
}
