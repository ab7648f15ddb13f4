//! The driver's `SparkEnv` masters the scheduler's classes share (Spark: `SparkEnv`'s
//! `mapOutputTracker` and `blockManager.master`): the `MapOutputTrackerMaster` (map outputs),
//! and the `BlockManagerMaster` (`BlockManagerMasterEndpoint`'s block managers and cached RDD
//! blocks). The DAGScheduler and TaskSchedulerImpl each get them for the length of a call, as
//! Spark's reach them through `SparkEnv`.

use super::map_output_tracker::{MapOutputTrackerMaster, MapOutputUpdate};
use crate::kernel::clock;
use crate::kernel::logs::ProcessLog;
use crate::kernel::small_map::DenseMap;
use crate::spark_core::block_manager_master::{BlockAdded, RddBlockId, RddBlocks};
use crate::spark_core::executor_env::block_manager_port;
use crate::world::listener::BlockEvent;
use crate::world::listener::ContextBus;
use crate::{error, info, warn};
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::listener::{BlockUpdatedInfo, ListenerEvent, StorageLevelInfo};
use sparkyard_messages::task::{BlockManagerId, ReplicateBlock, ShuffleBlockInfo};
use std::rc::Rc;

/// `SparkEnv` on the driver, as far as scheduling reads it.
pub struct DriverEnv {
    log: ProcessLog,
    pub map_output_tracker: MapOutputTrackerMaster,
    pub block_manager_master: BlockManagerMaster,
}

impl DriverEnv {
    pub fn new(log: ProcessLog, bus: ContextBus) -> Self {
        DriverEnv {
            block_manager_master: BlockManagerMaster::new(log.clone(), bus),
            log,
            map_output_tracker: MapOutputTrackerMaster::default(),
        }
    }

    /// The BlockManagerMaster heard a peer stored a migrated shuffle index block
    /// (`BlockManagerMasterEndpoint.updateBlockInfo` -> `MapOutputTrackerMaster.updateMapOutput`).
    pub fn update_map_output(&mut self, block: ShuffleBlockInfo, location: BlockManagerId) {
        let (shuffle_id, map_id) = (block.shuffle_id, block.map_id);
        match self
            .map_output_tracker
            .update_map_output(shuffle_id, map_id, location.clone())
        {
            MapOutputUpdate::Updated => info!(
                self.log,
                "driver::ShuffleStatus", "Updating map output for {map_id} to {location}"
            ),
            MapOutputUpdate::Recovered => info!(
                self.log,
                "driver::ShuffleStatus", "Recover {map_id} {location}"
            ),
            MapOutputUpdate::Untracked => warn!(
                self.log,
                "driver::ShuffleStatus",
                "Asked to update map output {map_id} for untracked map status."
            ),
            MapOutputUpdate::UnknownShuffle => error!(
                self.log,
                "driver::MapOutputTrackerMaster",
                "Asked to update map output for unknown shuffle {shuffle_id}"
            ),
        }
    }
}

/// `BlockManagerMaster` / `BlockManagerMasterEndpoint`: each executor's block manager (its
/// host) and the cached RDD blocks they hold.
pub struct BlockManagerMaster {
    log: ProcessLog,
    bus: ContextBus,
    /// The block managers: each executor's host.
    block_managers: DenseMap<ExecutorId, Rc<str>>,
    /// Executors whose block manager `removeExecutor` removed and that have not registered it
    /// again (an executor a fetch failure named lives on, and its heartbeat is told to
    /// re-register).
    removed: std::collections::BTreeSet<ExecutorId>,
    /// The cached RDD blocks (empty unless a program caches).
    rdd_blocks: RddBlocks,
    /// The driver's block manager, once its SparkContext registered it.
    driver: Option<DriverBlockManager>,
}

/// Where the driver's block manager listens (its executor id is `driver`).
struct DriverBlockManager {
    host: String,
    port: u16,
}

impl BlockManagerMaster {
    fn new(log: ProcessLog, bus: ContextBus) -> Self {
        BlockManagerMaster {
            log,
            bus,
            block_managers: DenseMap::default(),
            removed: std::collections::BTreeSet::new(),
            rdd_blocks: RddBlocks::default(),
            driver: None,
        }
    }

    /// The BlockManager registered for an executor (BlockManagerMasterEndpoint.register).
    pub fn block_manager_added(&mut self, eid: ExecutorId, host: Rc<str>) {
        self.removed.remove(&eid);
        self.block_managers.insert(eid, host);
    }

    /// Whether `removeExecutor` removed the executor's block manager since it last registered.
    pub fn was_removed(&self, eid: ExecutorId) -> bool {
        self.removed.contains(&eid)
    }

    /// The host of an executor's registered block manager.
    pub fn host_of(&self, eid: ExecutorId) -> Option<&Rc<str>> {
        self.block_managers.get(eid)
    }

    /// Whether no cached RDD block is known (no program caches).
    pub fn has_no_rdd_blocks(&self) -> bool {
        self.rdd_blocks.is_empty()
    }

    /// `getCacheLocs(rdd)(partition)`: `TaskLocation(bm.host, bm.executorId)` of the block
    /// manager holding `rdd_<rdd>_<partition>` (one replica: MEMORY_ONLY).
    pub fn cache_location(&self, rdd_id: u32, partition: u32) -> Option<(ExecutorId, Rc<str>)> {
        let block = RddBlockId { rdd_id, partition };
        let executor = self.rdd_blocks.location(block)?;
        let host = self.block_managers.get(executor)?;
        Some((executor, host.clone()))
    }

    /// BlockManagerMasterEndpoint.getLocations of a cached RDD block, as the executor's
    /// `BlockManager.getRemoteValues` would ask it.
    pub fn rdd_block_location(&self, rdd_id: u32, partition: u32) -> Option<BlockManagerId> {
        let (executor_id, host) = self.cache_location(rdd_id, partition)?;
        Some(BlockManagerId {
            executor_id,
            host: host.to_string(),
            port: block_manager_port(executor_id),
        })
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo of an RDD block an executor stored
    /// (BlockManagerInfo's `Added <block> in memory on <host:port> (size: .., free: ..)`).
    pub fn update_rdd_block_info(
        &mut self,
        location: &BlockManagerId,
        block: RddBlockId,
        mem_size: u64,
        max_memory: u64,
    ) {
        let eid = location.executor_id;
        let registered = self.block_managers.get(eid).is_some();
        if registered {
            self.post_block(location, block, StorageLevelInfo::MEMORY_ONLY, mem_size);
        }
        let hp = format!("{}:{}", location.host, location.port);
        let size = bytes_to_string(mem_size);
        match self
            .rdd_blocks
            .update_block_info(block, eid, mem_size, max_memory, registered)
        {
            // logDebug in Spark 4.0.0 (BlockManagerInfo.updateBlockInfo's bytecode).
            BlockAdded::Added { free } => crate::debug!(
                self.log,
                "driver::BlockManagerInfo",
                "Added {block} in memory on {hp} (size: {size}, free: {})",
                bytes_to_string(free)
            ),
            BlockAdded::Updated { original, free } => crate::debug!(
                self.log,
                "driver::BlockManagerInfo",
                "Updated {block} in memory on {hp} (current size: {size}, original size: {}, free: {})",
                bytes_to_string(original),
                bytes_to_string(free)
            ),
            BlockAdded::UnknownBlockManager => {}
        }
    }

    /// BlockManagerMasterEndpoint.updateBlockInfo with `StorageLevel.NONE`: the block manager
    /// removed an RDD block (a decommissioned executor's migrated block).
    pub fn remove_rdd_block_info(&mut self, location: &BlockManagerId, block: RddBlockId) {
        self.rdd_blocks.remove_block(block, location.executor_id);
        if self.block_managers.get(location.executor_id).is_some() {
            self.post_block(location, block, StorageLevelInfo::NONE, 0);
        }
    }

    /// `SparkListenerBlockUpdated`, posted for every update the master accepts (SPARK-30594:
    /// never for one it refuses, an unregistered block manager's).
    fn post_block(
        &self,
        location: &BlockManagerId,
        block: RddBlockId,
        level: StorageLevelInfo,
        mem_size: u64,
    ) {
        let rdd = BlockEvent {
            executor: location.executor_id,
            rdd_id: block.rdd_id,
            split_index: block.partition,
            stored: level != StorageLevelInfo::NONE,
        };
        self.bus.post_block(Some(rdd), || {
            BlockUpdatedInfo::from_executor(location, block.to_string(), level, mem_size, 0)
        });
    }

    /// The driver's own block manager (`BlockManagerId(driver, host, port)`), which registers
    /// with the master when the SparkContext starts.
    pub fn driver_block_manager_added(&mut self, host: String, port: u16) {
        self.driver = Some(DriverBlockManager { host, port });
    }

    /// `UpdateBlockInfo` of the one piece of broadcast `id` the driver's `TorrentBroadcast.
    /// writeBlocks` put (`tellMaster = true`); the value block itself is put with `tellMaster =
    /// false` and never reported.
    pub fn driver_broadcast_piece_stored(&self, id: u32, size: u64) {
        let Some(d) = &self.driver else {
            return;
        };
        self.bus.post_block(None, || BlockUpdatedInfo {
            executor_id: "driver".into(),
            host: d.host.clone(),
            port: d.port,
            block_id: format!("broadcast_{id}_piece0"),
            storage_level: StorageLevelInfo::BROADCAST_PIECE,
            memory_size: size,
            disk_size: 0,
        });
    }

    /// `UpdateBlockInfo` of the broadcast piece an executor fetched (`TorrentBroadcast.
    /// readBlocks`); refused, with no event, from a block manager the master does not know.
    pub fn executor_broadcast_piece_stored(&self, location: &BlockManagerId, id: u32, size: u64) {
        if self.block_managers.get(location.executor_id).is_none() {
            return;
        }
        self.bus.post_block(None, || {
            let block = format!("broadcast_{id}_piece0");
            let level = StorageLevelInfo::BROADCAST_PIECE;
            BlockUpdatedInfo::from_executor(location, block, level, size, 0)
        });
    }

    /// BlockManagerMasterEndpoint.getReplicateInfoForRDDBlocks: the block manager's RDD blocks
    /// (one replica each, so no other location and `maxReplicas` 2); none for one that left.
    pub fn replicate_info_for_rdd_blocks(&self, location: &BlockManagerId) -> Vec<ReplicateBlock> {
        let eid = location.executor_id;
        if self.block_managers.get(eid).is_none() {
            return Vec::new();
        }
        self.rdd_blocks
            .replicate_info(eid)
            .into_iter()
            .map(|(b, mem_size)| ReplicateBlock {
                rdd_id: b.rdd_id,
                partition: b.partition,
                replicas: Vec::new(),
                max_replicas: 2,
                mem_size,
            })
            .collect()
    }

    /// `BlockManagerMaster.removeExecutor` -> BlockManagerMasterEndpoint.removeExecutor /
    /// removeBlockManager (which posts `SparkListenerBlockManagerRemoved`).
    pub fn remove_executor(&mut self, eid: ExecutorId) {
        info!(
            self.log,
            "driver::BlockManagerMasterEndpoint",
            "Trying to remove executor {eid} from BlockManagerMaster."
        );
        if let Some(host) = self.block_managers.remove(eid) {
            self.removed.insert(eid);
            let port = block_manager_port(eid);
            for block in self.rdd_blocks.remove_executor(eid) {
                warn!(
                    self.log,
                    "driver::BlockManagerMasterEndpoint", "No more replicas available for {block}!"
                );
            }
            info!(
                self.log,
                "driver::BlockManagerMasterEndpoint",
                "Removing block manager BlockManagerId({eid}, {host}, {port}, None)"
            );
            let time = clock::now_epoch_ms();
            self.bus.post(|| ListenerEvent::BlockManagerRemoved {
                time,
                executor_id: eid.to_string(),
                host: host.to_string(),
                port,
            });
        }
        info!(
            self.log,
            "driver::BlockManagerMaster", "Removed {eid} successfully in removeExecutor"
        );
    }
}
