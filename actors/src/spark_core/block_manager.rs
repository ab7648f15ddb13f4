//! An executor's `BlockManager` (Spark: `storage/BlockManager.scala`, with its
//! `storage/memory/MemoryStore.scala`) as far as its cached RDD blocks and its peers go: where
//! `getOrElseUpdate` finds a task's partition (here, on a peer, or nowhere: computed), whether
//! `MemoryStore.putIteratorAsValues` keeps a block, `removeBlock`, `shuffleServerId`, and
//! `getPeers`' cache (`spark.storage.cachedPeersTtl`), and the failures a peer's upload meets.
//! No actix, no clock: the executor passes
//! the time and what its network can reach, then logs and sends what these return.

use crate::spark_core::block_manager_master::RddBlockId;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::RpcAddress;
use sparkyard_messages::task::{BlockManagerId, BlockManagerPeer, CachedRddRead, ReplayedCache};

/// Remote reads of cached blocks: bytes per ms (100 MB/s, the event log's shuffle fetch rate).
pub const FETCH_BYTES_PER_MS: u64 = 100_000;

/// Where `getOrElseUpdate` found a task's cached partition, and what it adds to the task's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachedRead<'a> {
    /// `getLocalValues`: `Found block <id> locally`; nothing added.
    Local,
    /// `getRemoteValues` from the peer the master named: `Found block <id> remotely`; a round
    /// trip and the transfer, not stored here (MEMORY_ONLY keeps one replica).
    Remote { extra_ms: u64 },
    /// Nowhere: the partition is computed (and stored when the task ends). `unreachable` is the
    /// peer whose fetch failed first (`Failed to fetch remote block`), if the master named one.
    Compute {
        unreachable: Option<&'a BlockManagerId>,
        extra_ms: u64,
    },
}

impl CachedRead<'_> {
    /// The time the read adds to the task's own work.
    pub fn extra_ms(&self) -> u64 {
        match self {
            CachedRead::Local => 0,
            CachedRead::Remote { extra_ms } | CachedRead::Compute { extra_ms, .. } => *extra_ms,
        }
    }

    /// Whether the task stores the block it computed when it ends.
    pub fn stores_block(&self) -> bool {
        matches!(self, CachedRead::Compute { .. })
    }
}

/// What `putIteratorAsValues` did with an RDD block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RddPut {
    /// The store holds it already (another copy of the task, or a second replica): nothing new.
    AlreadyHeld,
    /// Stored; the block manager tells the master (`UpdateBlockInfo`, `tellMaster`).
    Stored,
    /// It does not fit: MEMORY_ONLY has no disk to fall back to, and the only cached RDD's own
    /// blocks cannot be evicted for it (`Not enough space to cache ... in memory!`).
    NoSpace { used: u64, capacity: u64 },
}

/// The cached RDD blocks in an executor's MemoryStore, with their sizes (empty unless the
/// program caches).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RddBlocks {
    blocks: Vec<(RddBlockId, u64)>,
}

impl RddBlocks {
    /// Whether the store holds `block`.
    pub fn holds(&self, block: RddBlockId) -> bool {
        self.blocks.iter().any(|(b, _)| *b == block)
    }

    /// The bytes its blocks take.
    pub fn used(&self) -> u64 {
        self.blocks.iter().map(|(_, n)| n).sum()
    }

    /// `getOrElseUpdate(rdd_<rdd>_<partition>)` for a task over a cached RDD on executor `me`:
    /// a block held here is read locally; one the master placed on another executor whose block
    /// server answers is fetched at [`FETCH_BYTES_PER_MS`]; otherwise
    /// (`fetchRemoteManagedBuffer` finds no location left) the partition is computed.
    pub fn get_or_compute<'a>(
        &self,
        block: RddBlockId,
        read: &'a CachedRddRead,
        me: ExecutorId,
        network_latency_ms: u64,
        reachable: impl Fn(&BlockManagerId) -> bool,
    ) -> CachedRead<'a> {
        if self.holds(block) {
            return CachedRead::Local;
        }
        let peer = read.location.as_ref().filter(|bm| bm.executor_id != me);
        match peer {
            Some(bm) if reachable(bm) => CachedRead::Remote {
                extra_ms: 2 * network_latency_ms + read.block_bytes / FETCH_BYTES_PER_MS,
            },
            unreachable => CachedRead::Compute {
                unreachable,
                extra_ms: read.compute_ms,
            },
        }
    }

    /// `MemoryStore.putIteratorAsValues` of a block of `size` bytes into a store of `capacity`.
    pub fn put(&mut self, block: RddBlockId, size: u64, capacity: u64) -> RddPut {
        if self.holds(block) {
            return RddPut::AlreadyHeld;
        }
        let used = self.used();
        if used + size > capacity {
            return RddPut::NoSpace { used, capacity };
        }
        self.blocks.push((block, size));
        RddPut::Stored
    }

    /// Keeps a block not held yet, with no capacity check: a replayed task's block, whose size
    /// the log does not give (kept at 0). Whether it is new (the master is then told).
    pub fn insert_new(&mut self, block: RddBlockId, size: u64) -> bool {
        if self.holds(block) {
            return false;
        }
        self.blocks.push((block, size));
        true
    }

    /// `removeBlock` (a migrated block): its size, if the store held it.
    pub fn remove(&mut self, block: RddBlockId) -> Option<u64> {
        let i = self.blocks.iter().position(|(b, _)| *b == block)?;
        Some(self.blocks.swap_remove(i).1)
    }
}

/// The RDDs whose block of its partition a replayed task computed (and stores): the first
/// `missing` of its stage's cached RDDs, those no block manager held at its launch.
pub fn replayed_computed_rdds(cache: &ReplayedCache) -> &[u32] {
    &cache.rdd_ids[..(cache.missing as usize).min(cache.rdd_ids.len())]
}

/// `BlockManager.shuffleServerId`'s port: the node's external shuffle service when it is
/// enabled, else the executor's own block manager's.
pub fn shuffle_server_port(service_enabled: bool, service_port: u16, block_manager: u16) -> u16 {
    if service_enabled {
        service_port
    } else {
        block_manager
    }
}

/// `BlockManager.getPeers`' cache: the peers the master last named and when.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerCache {
    fetched_at_ms: Option<u64>,
    peers: Vec<BlockManagerPeer>,
}

impl PeerCache {
    /// Whether `getPeers(forceFetch = false)` at `now_ms` uses the cache: there is one and it
    /// is at most `spark.storage.cachedPeersTtl` old (`timeout = elapsed > ttl` refetches).
    pub fn fresh(&self, now_ms: u64, ttl_ms: u64) -> bool {
        self.fetched_at_ms
            .is_some_and(|at| now_ms.saturating_sub(at) <= ttl_ms)
    }

    /// The master's answer, fetched at `now_ms`.
    pub fn set(&mut self, now_ms: u64, peers: Vec<BlockManagerPeer>) {
        self.fetched_at_ms = Some(now_ms);
        self.peers = peers;
    }

    /// The cached peers (none before the first answer).
    pub fn peers(&self) -> &[BlockManagerPeer] {
        &self.peers
    }
}

/// `TransportClientFactory.createClient`'s failure on a block server that does not answer:
/// the connection is refused (`Failed to connect to host/ip:port` and its causes).
pub fn connect_refused(host: &str, ip: &str, port: u16) -> RpcFailure {
    let address = RpcAddress {
        host: host.to_string(),
        port,
    };
    crate::rpc::connection::connection_refused(&address, ip)
}

/// NettyBlockRpcServer's answer to an `UploadBlock` that `putBlockData` refused (the block does
/// not fit): INTERNAL_ERROR_NETWORK, as the uploading peer's RpcFailure shows it.
pub fn upload_refused_for_space(block: RddBlockId) -> RpcFailure {
    RpcFailure::new(
        "java.lang.RuntimeException",
        format!(
            "org.apache.spark.SparkException: [INTERNAL_ERROR_NETWORK] Upload block for {block} failed. This mostly happens when there is not sufficient space available to store the block. SQLSTATE: XX000"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bm(executor: u32, port: u16) -> BlockManagerId {
        BlockManagerId {
            executor_id: ExecutorId(executor),
            host: format!("host{executor}"),
            port,
        }
    }

    fn block(rdd_id: u32, partition: u32) -> RddBlockId {
        RddBlockId { rdd_id, partition }
    }

    fn read(location: Option<BlockManagerId>) -> CachedRddRead {
        CachedRddRead {
            rdd_id: 1,
            block_bytes: 4_000_000,
            records: 10,
            compute_ms: 700,
            work_ms: 5,
            location,
        }
    }

    /// BlockManager.getOrElseUpdate (Spark 4.0.0: `get` tries `getLocalValues` before
    /// `getRemoteValues`): a block this store holds is read locally, whatever the master says.
    #[test]
    fn a_held_block_is_read_locally() {
        let mut store = RddBlocks::default();
        assert_eq!(store.put(block(1, 0), 10, 100), RddPut::Stored);
        let r = read(Some(bm(2, 7337)));
        let got = store.get_or_compute(block(1, 0), &r, ExecutorId(1), 5, |_| true);
        assert_eq!(got, CachedRead::Local);
        assert_eq!((got.extra_ms(), got.stores_block()), (0, false));
    }

    /// BlockManagerSuite "SPARK-14252: getOrElseUpdate should still read from remote storage":
    /// a block the master placed on another live executor is fetched (here a round trip plus
    /// the bytes at 100 MB/s) and not stored here.
    #[test]
    fn a_block_on_a_live_peer_is_fetched_not_stored() {
        let store = RddBlocks::default();
        let r = read(Some(bm(2, 7337)));
        let got = store.get_or_compute(block(1, 0), &r, ExecutorId(1), 5, |_| true);
        assert_eq!(got, CachedRead::Remote { extra_ms: 10 + 40 });
        assert!(!got.stores_block());
    }

    /// BlockManager.fetchRemoteManagedBuffer (Spark 4.0.0) fails on a location that does not
    /// answer (`Failed to fetch remote block`), and with no location left `getOrElseUpdate`
    /// computes the partition (SPARK-17485: a failed remote read of a cached block recomputes
    /// it rather than failing the job), which the task then stores.
    #[test]
    fn an_unreachable_peer_fails_the_fetch_and_the_partition_is_computed() {
        let store = RddBlocks::default();
        let peer = bm(2, 7337);
        let r = read(Some(peer.clone()));
        let got = store.get_or_compute(block(1, 0), &r, ExecutorId(1), 5, |_| false);
        assert_eq!(
            got,
            CachedRead::Compute {
                unreachable: Some(&peer),
                extra_ms: 700
            }
        );
        assert!(got.stores_block());
        // No location, or a location that is this executor (its block was lost): computed,
        // with no failed fetch.
        for location in [None, Some(bm(1, 7337))] {
            let r = read(location);
            let got = store.get_or_compute(block(1, 0), &r, ExecutorId(1), 5, |_| true);
            assert_eq!(
                got,
                CachedRead::Compute {
                    unreachable: None,
                    extra_ms: 700
                }
            );
        }
    }

    /// BlockManagerSuite "in-memory LRU for partitions of same RDD" (MemoryStore
    /// .evictBlocksToFreeSpace never evicts a block of the RDD being put): with rdd_0_1 and
    /// rdd_0_2 stored, rdd_0_3 does not fit and is dropped (MEMORY_ONLY), partitions 1 and 2
    /// stay; a block that fits exactly is stored.
    #[test]
    fn a_block_that_does_not_fit_is_dropped_and_nothing_is_evicted() {
        let mut store = RddBlocks::default();
        assert_eq!(store.put(block(1, 0), 400, 1000), RddPut::Stored);
        assert_eq!(store.put(block(1, 1), 400, 1000), RddPut::Stored);
        assert_eq!(
            store.put(block(1, 2), 400, 1000),
            RddPut::NoSpace {
                used: 800,
                capacity: 1000
            }
        );
        assert!(store.holds(block(1, 0)) && store.holds(block(1, 1)));
        assert!(!store.holds(block(1, 2)));
        assert_eq!(store.put(block(1, 2), 200, 1000), RddPut::Stored);
        assert_eq!(store.used(), 1000);
        assert_eq!(store.put(block(1, 2), 200, 1000), RddPut::AlreadyHeld);
    }

    /// BlockManagerSuite "removing block" (BlockManager.removeBlock): the block leaves the
    /// store and frees its bytes; removing it again finds nothing.
    #[test]
    fn a_removed_block_frees_its_bytes() {
        let mut store = RddBlocks::default();
        store.put(block(1, 0), 300, 1000);
        store.put(block(1, 1), 500, 1000);
        assert_eq!(store.remove(block(1, 0)), Some(300));
        assert_eq!(store.remove(block(1, 0)), None);
        assert_eq!(store.used(), 500);
        assert!(store.insert_new(block(2, 0), 0));
        assert!(!store.insert_new(block(2, 0), 0), "held already");
    }

    /// A replayed task computed the blocks of the first `missing` cached RDDs of its stage
    /// (DAGScheduler.getPreferredLocsInternal's order), never more than the stage has.
    #[test]
    fn a_replayed_task_computes_the_missing_blocks_first() {
        let mut c = ReplayedCache {
            rdd_ids: vec![5, 3, 1],
            missing: 2,
        };
        assert_eq!(replayed_computed_rdds(&c), &[5, 3]);
        c.missing = 9;
        assert_eq!(replayed_computed_rdds(&c), &[5, 3, 1]);
        c.missing = 0;
        assert!(replayed_computed_rdds(&c).is_empty());
    }

    /// BlockManager.shuffleServerId (Spark 4.0.0): map outputs are served by the node's
    /// external shuffle service when `spark.shuffle.service.enabled`, else by the executor.
    #[test]
    fn map_outputs_are_served_by_the_shuffle_service_when_enabled() {
        assert_eq!(shuffle_server_port(true, 7337, 40001), 7337);
        assert_eq!(shuffle_server_port(false, 7337, 40001), 40001);
    }

    /// BlockManager.getPeers (Spark 4.0.0 bytecode: `cachedPeers == null || forceFetch ||
    /// elapsedMs > STORAGE_CACHED_PEERS_TTL` refetches): a cache at most the TTL old is used.
    /// BlockManagerReplicationSuite sets the TTL to 10 ms "to make cached peers refresh
    /// frequently" for "block replication - addition and deletion of block managers".
    #[test]
    fn cached_peers_are_used_until_the_ttl_passes() {
        let mut cache = PeerCache::default();
        assert!(!cache.fresh(0, 60_000), "nothing cached yet");
        assert!(cache.peers().is_empty());
        cache.set(1_000, Vec::new());
        assert!(cache.fresh(1_000, 60_000));
        assert!(cache.fresh(61_000, 60_000), "exactly the TTL old");
        assert!(!cache.fresh(61_001, 60_000));
        cache.set(61_001, Vec::new());
        assert!(cache.fresh(61_001, 0));
        assert!(!cache.fresh(61_002, 0));
    }

    /// The texts a migrating peer's upload fails with (Spark 4.0.0: TransportClientFactory's
    /// `Failed to connect to %s`; NettyBlockRpcServer's INTERNAL_ERROR_NETWORK condition,
    /// `Upload block for <blockId> failed. This mostly happens when there is not sufficient
    /// space available to store the block.`, in spark-common-utils' error-conditions.json).
    #[test]
    fn upload_failures_read_as_spark_4s() {
        let f = connect_refused("host2", "10.0.1.2", 38002);
        assert_eq!(
            (f.class.as_str(), f.message.as_str()),
            (
                "java.io.IOException",
                "Failed to connect to host2/10.0.1.2:38002"
            )
        );
        let f = upload_refused_for_space(block(3, 7));
        assert_eq!(f.class, "java.lang.RuntimeException");
        assert!(
            f.message
                .contains("[INTERNAL_ERROR_NETWORK] Upload block for rdd_3_7 failed."),
            "{}",
            f.message
        );
    }
}
