//! The RDD blocks the driver's `BlockManagerMasterEndpoint` knows of (Spark:
//! `storage/BlockManagerMasterEndpoint.scala`, its `blockLocations` and each `BlockManagerInfo`'s
//! blocks and remaining memory): where each cached partition (`rdd_<rdd>_<partition>`,
//! MEMORY_ONLY, one replica) lives, what an executor's loss takes with it, and the lines the
//! driver logs. A plain state machine; the scheduler owns it (it already owns the registered
//! block managers) and logs what it returns.
//!
//! Only RDD blocks are kept: the driver's own broadcast pieces and the executors' copies are
//! not reported here, so the `free` figure is the executor's storage memory less its RDD blocks.
//! An application that caches nothing never adds an entry (an empty map, no per-task cost).
//!
//! Also the endpoint's two answers about block managers that the DriverEndpoint gives from its
//! executors: `getPeers`' choice and order ([`get_peers`]), a registration's line
//! ([`registering_line`]) and a re-registration's refusal ([`reregister_refusal`]).

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::bytes_to_string;
use std::collections::BTreeMap;

/// `RDDBlockId(rddId, splitIndex)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RddBlockId {
    pub rdd_id: u32,
    pub partition: u32,
}

impl std::fmt::Display for RddBlockId {
    /// `RDDBlockId.name`: `rdd_1_0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rdd_{}_{}", self.rdd_id, self.partition)
    }
}

/// Where one cached block lives and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Location {
    executor: ExecutorId,
    mem_size: u64,
}

/// What `updateBlockInfo` did (BlockManagerInfo.updateBlockInfo's two lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockAdded {
    /// `Added <block> in memory on <hostPort> (size: .., free: ..)`.
    Added { free: u64 },
    /// The same block reported again by its block manager: `Updated ... (current size: ..,
    /// original size: .., free: ..)`.
    Updated { original: u64, free: u64 },
    /// The block manager is not registered (removed meanwhile): Spark ignores the update
    /// (`updateBlockInfo` returns false for an unknown block manager).
    UnknownBlockManager,
}

/// The cached RDD blocks of the application.
#[derive(Debug, Default)]
pub struct RddBlocks {
    blocks: BTreeMap<RddBlockId, Location>,
    /// Bytes of RDD blocks per executor (its `BlockManagerInfo` remaining memory is the
    /// storage memory less these).
    used: BTreeMap<ExecutorId, u64>,
}

impl RddBlocks {
    /// `BlockManagerMasterEndpoint.updateBlockInfo` of a MEMORY_ONLY RDD block: `max_memory` is
    /// the block manager's storage memory, `registered` whether it is still registered.
    pub fn update_block_info(
        &mut self,
        block: RddBlockId,
        executor: ExecutorId,
        mem_size: u64,
        max_memory: u64,
        registered: bool,
    ) -> BlockAdded {
        if !registered {
            return BlockAdded::UnknownBlockManager;
        }
        let previous = self.blocks.insert(block, Location { executor, mem_size });
        // A block computed again elsewhere (its holder died unnoticed, or was unreachable)
        // moves: one replica is kept, the newest (Spark would list both until the old block
        // manager is removed).
        if let Some(p) = previous.filter(|p| p.executor != executor)
            && let Some(u) = self.used.get_mut(&p.executor)
        {
            *u = u.saturating_sub(p.mem_size);
        }
        let used = self.used.entry(executor).or_default();
        let original = match previous {
            Some(p) if p.executor == executor => {
                *used = used.saturating_sub(p.mem_size);
                Some(p.mem_size)
            }
            _ => None,
        };
        *used += mem_size;
        let free = max_memory.saturating_sub(*used);
        match original {
            Some(original) => BlockAdded::Updated { original, free },
            None => BlockAdded::Added { free },
        }
    }

    /// `getLocations(blockId)`: the executor holding the block, if any.
    pub fn location(&self, block: RddBlockId) -> Option<ExecutorId> {
        self.blocks.get(&block).map(|l| l.executor)
    }

    /// `removeBlockManager`: the executor's blocks lose their only replica (MEMORY_ONLY keeps
    /// one), so each is de-registered; returns them in block order for the `No more replicas
    /// available for <block>!` lines. Nothing is scanned for an application without blocks.
    pub fn remove_executor(&mut self, executor: ExecutorId) -> Vec<RddBlockId> {
        if self.used.remove(&executor).is_none() {
            return Vec::new();
        }
        let lost: Vec<RddBlockId> = self
            .blocks
            .iter()
            .filter(|(_, l)| l.executor == executor)
            .map(|(b, _)| *b)
            .collect();
        for b in &lost {
            self.blocks.remove(b);
        }
        lost
    }

    /// `getReplicateInfoForRDDBlocks(blockManagerId)`: each RDD block of that block manager,
    /// with the other locations (none: one replica is kept per block) and `maxReplicas` =
    /// locations + 1, in block order (Spark walks a `JHashMap`'s key set). Only a
    /// decommissioning executor asks, so the scan is not on any per-task path.
    pub fn replicate_info(&self, executor: ExecutorId) -> Vec<(RddBlockId, u64)> {
        if !self.used.contains_key(&executor) {
            return Vec::new();
        }
        self.blocks
            .iter()
            .filter(|(_, l)| l.executor == executor)
            .map(|(b, l)| (*b, l.mem_size))
            .collect()
    }

    /// `updateBlockInfo` with `StorageLevel.NONE` (`BlockManager.removeBlock` tells the
    /// master): the block leaves that block manager. A block already reported by another
    /// block manager (a migrated block's new home) stays where it is. Returns whether the
    /// location was dropped.
    pub fn remove_block(&mut self, block: RddBlockId, executor: ExecutorId) -> bool {
        let Some(l) = self.blocks.get(&block).filter(|l| l.executor == executor) else {
            return false;
        };
        let size = l.mem_size;
        self.blocks.remove(&block);
        if let Some(u) = self.used.get_mut(&executor) {
            *u = u.saturating_sub(size);
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// `BlockManagerMasterEndpoint.getPeers(blockManagerId)` (Spark 4.0.0's jar): for an asker
/// whose block manager is registered, `blockManagerInfo.keySet` less the driver's, the asker's
/// and `decommissioningBlockManagerSet`; for any other asker, nothing. `registered` is the
/// executors' block managers in id order (the driver's is never among them). Spark's order is
/// its hash set's, which the decommissioner then shuffles; here id order rotated to start after
/// the asker, so decommissioning executors spread over different peers first.
pub fn get_peers(
    asker: ExecutorId,
    mut registered: Vec<ExecutorId>,
    decommissioning: impl Fn(ExecutorId) -> bool,
) -> Vec<ExecutorId> {
    if registered.binary_search(&asker).is_err() {
        return Vec::new();
    }
    registered.retain(|id| *id != asker && !decommissioning(*id));
    let start = registered.partition_point(|id| *id < asker);
    registered.rotate_left(start);
    registered
}

/// BlockManagerMasterEndpoint's `register` INFO line for an executor's block manager
/// (`Registering block manager <hostPort> with <Utils.bytesToString(maxMem)> RAM, <id>`).
pub fn registering_line(executor: ExecutorId, host: &str, port: u16, max_memory: u64) -> String {
    format!(
        "Registering block manager {host}:{port} with {} RAM, BlockManagerId({executor}, {host}, {port}, None)",
        bytes_to_string(max_memory)
    )
}

/// BlockManagerMasterEndpoint's `register` with `isReRegister = true` (SPARK-41360): refused
/// when the backend no longer has the executor (`IsExecutorAlive`), with this INFO line; the
/// executor then gets the `invalid` id and exits. `None`: taken.
pub fn reregister_refusal(
    block_manager: &impl std::fmt::Display,
    executor: ExecutorId,
    alive: bool,
) -> Option<String> {
    (!alive).then(|| {
        format!(
            "BlockManager ({block_manager}) re-registration is rejected since the executor ({executor}) has been lost"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(rdd_id: u32, partition: u32) -> RddBlockId {
        RddBlockId { rdd_id, partition }
    }

    // BlockManagerMasterEndpoint.scala (BlockManagerInfo.updateBlockInfo): the first report of
    // a block is `Added` with the block manager's remaining memory, a repeat `Updated` with the
    // original size; an unregistered block manager's report is ignored.
    #[test]
    fn blocks_are_added_with_the_remaining_memory_and_found_where_they_live() {
        let mut m = RddBlocks::default();
        let e1 = ExecutorId(1);
        assert_eq!(
            m.update_block_info(b(0, 0), e1, 300, 1000, true),
            BlockAdded::Added { free: 700 }
        );
        assert_eq!(
            m.update_block_info(b(0, 1), e1, 200, 1000, true),
            BlockAdded::Added { free: 500 }
        );
        assert_eq!(
            m.update_block_info(b(0, 1), e1, 250, 1000, true),
            BlockAdded::Updated {
                original: 200,
                free: 450
            }
        );
        assert_eq!(
            m.update_block_info(b(0, 2), ExecutorId(9), 1, 1000, false),
            BlockAdded::UnknownBlockManager
        );
        assert_eq!(m.location(b(0, 1)), Some(e1));
        assert_eq!(m.location(b(0, 2)), None);
        assert_eq!(b(3, 7).to_string(), "rdd_3_7");
    }

    // BlockManagerMasterEndpoint.getReplicateInfoForRDDBlocks + updateBlockInfo: a
    // decommissioning block manager learns its RDD blocks; once a block is replicated the
    // peer's report moves it (the peer's BlockManagerInfo holds it, its free memory shrinks)
    // and the source's removal (StorageLevel.NONE) does not take it from the peer.
    #[test]
    fn a_migrated_block_moves_to_its_peer_and_the_sources_removal_keeps_it_there() {
        let mut m = RddBlocks::default();
        let (e1, e3) = (ExecutorId(1), ExecutorId(3));
        m.update_block_info(b(1, 2), e1, 300, 1000, true);
        m.update_block_info(b(1, 0), e1, 200, 1000, true);
        m.update_block_info(b(1, 1), e3, 100, 1000, true);
        assert_eq!(m.replicate_info(e1), vec![(b(1, 0), 200), (b(1, 2), 300)]);
        assert!(m.replicate_info(ExecutorId(9)).is_empty());
        assert_eq!(
            m.update_block_info(b(1, 0), e3, 200, 1000, true),
            BlockAdded::Added { free: 700 }
        );
        assert!(!m.remove_block(b(1, 0), e1), "already moved to the peer");
        assert_eq!(m.location(b(1, 0)), Some(e3));
        assert_eq!(m.replicate_info(e1), vec![(b(1, 2), 300)]);
        assert!(m.remove_block(b(1, 2), e1));
        assert_eq!(m.location(b(1, 2)), None);
        assert!(m.replicate_info(e1).is_empty());
        assert_eq!(m.remove_executor(e3), vec![b(1, 0), b(1, 1)]);
    }

    // BlockManagerMasterEndpoint.removeBlockManager: a lost executor's blocks have no replica
    // left (MEMORY_ONLY), so they are de-registered (`No more replicas available for ...!`) and
    // the next job recomputes those partitions; other executors' blocks stay.
    #[test]
    fn an_executor_loss_deregisters_its_blocks_only() {
        let mut m = RddBlocks::default();
        m.update_block_info(b(0, 1), ExecutorId(2), 10, 100, true);
        m.update_block_info(b(0, 0), ExecutorId(1), 10, 100, true);
        m.update_block_info(b(1, 0), ExecutorId(1), 10, 100, true);
        assert_eq!(m.remove_executor(ExecutorId(1)), vec![b(0, 0), b(1, 0)]);
        assert_eq!(m.location(b(0, 0)), None);
        assert_eq!(m.location(b(0, 1)), Some(ExecutorId(2)));
        assert!(m.remove_executor(ExecutorId(1)).is_empty());
        assert!(m.remove_executor(ExecutorId(7)).is_empty());
        assert_eq!(m.remove_executor(ExecutorId(2)), vec![b(0, 1)]);
        assert!(m.is_empty());
    }

    fn ids(v: &[u32]) -> Vec<ExecutorId> {
        v.iter().map(|i| ExecutorId(*i)).collect()
    }

    // BlockManagerReplicationSuite.scala, "get peers with addition and removal of block
    // managers": every registered peer but the asker; a new block manager is a peer of all;
    // a removed one is nobody's peer and, as an asker, gets none; an unknown asker gets none.
    // (Its driver-store step has no counterpart: the driver's block manager is never among
    // the executors' ids passed in.)
    #[test]
    fn get_peers_is_every_other_registered_block_manager() {
        let none = |_: ExecutorId| false;
        let stores = ids(&[1, 2, 3]);
        for asker in &stores {
            let mut peers = get_peers(*asker, stores.clone(), none);
            peers.sort();
            let mut want = stores.clone();
            want.retain(|id| id != asker);
            assert_eq!(peers, want);
        }
        let with_new = ids(&[1, 2, 3, 4]);
        assert_eq!(
            get_peers(ExecutorId(4), with_new.clone(), none),
            ids(&[1, 2, 3])
        );
        assert!(get_peers(ExecutorId(1), with_new, none).contains(&ExecutorId(4)));
        // master.removeExecutor(store 1).
        let after_removal = ids(&[2, 3, 4]);
        for asker in [2, 3, 4] {
            let peers = get_peers(ExecutorId(asker), after_removal.clone(), none);
            assert!(!peers.contains(&ExecutorId(1)));
        }
        assert!(get_peers(ExecutorId(1), after_removal.clone(), none).is_empty());
        assert!(get_peers(ExecutorId(99), after_removal, none).is_empty());
    }

    // BlockManagerSuite.scala, "test decommission block manager should not be part of
    // peers": once exec3's block manager is decommissioning (`decommissionBlockManagers`),
    // exec1's peers are exec2 only.
    #[test]
    fn a_decommissioning_block_manager_is_no_peer() {
        let stores = ids(&[1, 2, 3]);
        let mut peers = get_peers(ExecutorId(1), stores.clone(), |_| false);
        peers.sort();
        assert_eq!(peers, ids(&[2, 3]));
        let decommissioning = |id: ExecutorId| id == ExecutorId(3);
        assert_eq!(get_peers(ExecutorId(1), stores, decommissioning), ids(&[2]));
    }

    // sparkyard's order (Spark's is a hash set's): the ids after the asker first, then those
    // before it, so two decommissioning executors start on different peers.
    #[test]
    fn peers_start_after_the_asker() {
        let stores = ids(&[1, 2, 3, 5, 8]);
        assert_eq!(
            get_peers(ExecutorId(3), stores.clone(), |_| false),
            ids(&[5, 8, 1, 2])
        );
        assert_eq!(
            get_peers(ExecutorId(8), stores.clone(), |_| false),
            ids(&[1, 2, 3, 5])
        );
        assert_eq!(
            get_peers(ExecutorId(1), stores, |_| false),
            ids(&[2, 3, 5, 8])
        );
    }

    // BlockManagerMasterEndpoint.register (isReRegister, SPARK-41360; the INFO line read from
    // the 4.0.0 jar): a lost executor's re-registration is refused with the line, a live
    // one's taken.
    #[test]
    fn a_lost_executors_reregistration_is_refused() {
        let bm = "BlockManagerId(2, host-1, 7002, None)";
        assert_eq!(reregister_refusal(&bm, ExecutorId(2), true), None);
        assert_eq!(
            reregister_refusal(&bm, ExecutorId(2), false).as_deref(),
            Some(
                "BlockManager (BlockManagerId(2, host-1, 7002, None)) re-registration is rejected since the executor (2) has been lost"
            )
        );
    }

    // BlockManagerMasterEndpoint.register (4.0.0 jar: "Registering block manager ", " with ",
    // " RAM, "): the block manager's host:port, its storage memory as Utils.bytesToString, its
    // BlockManagerId.
    #[test]
    fn a_block_managers_registration_line() {
        assert_eq!(
            registering_line(ExecutorId(1), "host-1", 7001, 384 * 1024 * 1024),
            "Registering block manager host-1:7001 with 384.0 MiB RAM, BlockManagerId(1, host-1, 7001, None)"
        );
    }
}
