//! The `SparkListenerBlockUpdated` events a migrated map output posts (Spark 4.0.0's jar):
//! `IndexShuffleBlockResolver.getMigrationBlocks` uploads the data block, then the index block
//! (the data only when its file exists, which a sort-shuffle map task always writes); the peer's
//! `putShuffleBlockAsStream` reports each, once stored, as `BlockStatus(DISK_ONLY, 0, file
//! length)`; and BlockManagerMasterEndpoint's `UpdateBlockInfo` takes a shuffle block to
//! `updateShuffleBlockInfo`, which answers true for both (the index one after
//! `MapOutputTracker.updateMapOutput`), so `handleResult` posts both. ContextCleaner's removals
//! post only broadcast pieces' (`removeRdd` removes with `tellMaster = false`, shuffles are no
//! BlockInfo); sparkyard runs no ContextCleaner (it acts on driver GCs), so none is posted.

use sparkyard_messages::listener::{BlockUpdatedInfo, StorageLevelInfo};
use sparkyard_messages::task::{BlockManagerId, MigratedShuffleBlock};

/// The two files of a map output a decommissioning executor uploads, in upload order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleFile {
    /// `ShuffleDataBlockId(shuffleId, mapId, NOOP_REDUCE_ID)`: the data file.
    Data,
    /// `ShuffleIndexBlockId(shuffleId, mapId, NOOP_REDUCE_ID)`: one long offset per reduce
    /// partition, plus one.
    Index,
}

impl ShuffleFile {
    /// `getMigrationBlocks`' order: `List((dataBlockId, ...), (indexBlockId, ...))`.
    pub const UPLOAD_ORDER: [ShuffleFile; 2] = [ShuffleFile::Data, ShuffleFile::Index];

    fn suffix(self) -> &'static str {
        match self {
            ShuffleFile::Data => "data",
            ShuffleFile::Index => "index",
        }
    }

    /// The file's length: the map task's bytes, or `(numPartitions + 1) * 8` for the index
    /// (`IndexShuffleBlockResolver.writeMetadataFileAndCommit` writes one long per offset).
    fn length(self, block: &MigratedShuffleBlock) -> u64 {
        match self {
            ShuffleFile::Data => block.data_bytes,
            ShuffleFile::Index => (u64::from(block.num_reduces) + 1) * 8,
        }
    }
}

/// The `BlockUpdatedInfo` of one migrated file stored on `at`: `shuffle_<shuffle>_<mapId>_0.
/// data` / `.index` (`ShuffleDataBlockId.name`, NOOP_REDUCE_ID 0), DISK_ONLY, no memory.
pub fn block_updated(
    at: &BlockManagerId,
    block: &MigratedShuffleBlock,
    file: ShuffleFile,
) -> BlockUpdatedInfo {
    let id = format!(
        "shuffle_{}_{}_0.{}",
        block.info.shuffle_id,
        block.info.map_id,
        file.suffix()
    );
    let level = StorageLevelInfo::DISK_ONLY;
    BlockUpdatedInfo::from_executor(at, id, level, 0, file.length(block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ExecutorId;
    use sparkyard_messages::task::ShuffleBlockInfo;

    /// IndexShuffleBlockResolver.getMigrationBlocks (data, then index) and its stream's
    /// `onComplete` (`reportBlockStatus(blockId, BlockStatus(StorageLevel.DISK_ONLY, 0,
    /// diskSize))`), Spark 4.0.0's jar: a map output of 3000 bytes over 4 reduce partitions,
    /// map task 7 of shuffle 1, stored on executor 2.
    #[test]
    fn a_migrated_map_output_posts_its_data_then_its_index_block_disk_only() {
        let at = BlockManagerId {
            executor_id: ExecutorId(2),
            host: "nm-2".into(),
            port: 38002,
        };
        let block = MigratedShuffleBlock {
            info: ShuffleBlockInfo {
                shuffle_id: 1,
                map_id: 7,
            },
            data_bytes: 3000,
            num_reduces: 4,
        };
        let [data, index] = ShuffleFile::UPLOAD_ORDER.map(|f| block_updated(&at, &block, f));
        assert_eq!(data.block_id, "shuffle_1_7_0.data");
        assert_eq!((data.memory_size, data.disk_size), (0, 3000));
        assert_eq!(index.block_id, "shuffle_1_7_0.index");
        assert_eq!(index.disk_size, 40);
        for b in [&data, &index] {
            assert_eq!(b.storage_level, StorageLevelInfo::DISK_ONLY);
            assert_eq!((b.executor_id.as_str(), b.port), ("2", 38002));
        }
    }
}
