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

use sparkyard_messages::ids::ExecutorId;
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
}
