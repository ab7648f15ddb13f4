//! A decommissioning executor's block migration: Spark's `BlockManagerDecommissioner`
//! (storage/BlockManagerDecommissioner.scala) as a plain state machine. Its refresh threads
//! (RDD and shuffle, every `spark.storage.decommission.replicationReattemptInterval`), its
//! `ShuffleMigrationRunnable`s (one per peer, at most `shuffleBlocks.maxThreads` at a time,
//! all pulling from one queue), Spark's retry counting (`maxReplicationFailuresPerBlock`) and
//! `lastMigrationInfo`, which the executor's shutdown thread waits on. The executor backend
//! owns the timers and the asks; this type says what to do next and logs Spark's lines.

use crate::info;
use crate::kernel::logs::ProcessLog;
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::block_manager_replication::{self, Prioritized};
use crate::{error, warn};
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::task::{
    BlockManagerId, BlockManagerPeer, ReplicateBlock, ShuffleBlockInfo,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

const LOGGER: &str = "executor::BlockManagerDecommissioner";
const BLOCK_MANAGER: &str = "executor::BlockManager";
const POLICY: &str = "executor::RandomBlockReplicationPolicy";

/// How fast a migration moves bytes to a peer: the data model's network throughput
/// (100 MB/s, as `task_metrics`' shuffle fetch wait).
const TRANSFER_BYTES_PER_MS: u64 = 100_000;

/// How long a `ShuffleMigrationRunnable` sleeps on an empty queue
/// (`nextShuffleBlockToMigrate`'s `Thread.sleep(1000)`).
pub const POLL_MS: u64 = 1000;

/// The class a peer's refusal carries (`BlockManager.putBlockDataAsStream` on a
/// decommissioning block manager).
pub const SAVED_ON_DECOMMISSIONED: &str =
    "org.apache.spark.storage.BlockSavedOnDecommissionedBlockManagerException";

/// The `spark.storage.decommission.*` settings the decommissioner reads (Spark 4.0 defaults in
/// `ExecutorConf`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecommissionerConf {
    /// `spark.storage.decommission.shuffleBlocks.enabled` (true).
    pub shuffle_blocks: bool,
    /// `spark.storage.decommission.rddBlocks.enabled` (true).
    pub rdd_blocks: bool,
    /// `spark.storage.decommission.shuffleBlocks.maxThreads` (8).
    pub max_threads: u32,
    /// `spark.storage.decommission.maxReplicationFailuresPerBlock` (3).
    pub max_failures: u32,
    /// `spark.storage.decommission.replicationReattemptInterval` (30 s), ms.
    pub reattempt_interval_ms: u64,
    /// `spark.storage.cachedPeersTtl` (60 s), ms: how long `BlockManager.getPeers` keeps its list.
    pub cached_peers_ttl_ms: u64,
}

/// A map output in this executor's local dirs (`IndexShuffleBlockResolver.getStoredShuffles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredShuffle {
    pub info: ShuffleBlockInfo,
    pub data_bytes: u64,
    pub num_reduces: u32,
}

impl StoredShuffle {
    /// The index file: one offset per reduce partition plus one, 8 bytes each.
    pub fn index_bytes(&self) -> u64 {
        8 * (u64::from(self.num_reduces) + 1)
    }
}

/// What the executor must do for the decommissioner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Ask the BlockManagerMaster for peers, then call `round`.
    FetchPeers,
    /// Call `round` again after this long.
    NextRoundAfter(u64),
    /// Call `poll(slot)` after this long.
    PollAfter { slot: u32, ms: u64 },
    /// The transfer takes this long: then upload the slot's block to its peer and report the
    /// outcome with `upload_finished`.
    UploadAfter { slot: u32, ms: u64 },
    /// The RDD thread's round: `BlockManager.getPeers(false)` (cached), then `rdd_round`.
    RddRound,
    /// The RDD thread sleeps this long, then `RddRound`.
    RddRoundAfter(u64),
    /// Ask the BlockManagerMaster `GetReplicateInfoForRDDBlocks`, then `rdd_blocks`.
    RddFetchBlocks,
    /// `getPeers(forceFetch = true)` (the master's list), then `rdd_peers`.
    RddFetchPeers,
    /// The transfer takes this long: then upload the block to `rdd_peer()` and report the
    /// outcome with `rdd_upload_finished`.
    RddUploadAfter(u64),
    /// `BlockManager.removeBlock`: drop the migrated block from the MemoryStore and tell the
    /// master (`UpdateBlockInfo` with `StorageLevel.NONE`).
    RddRemoveBlock(RddBlockId),
}

/// The block `replicateBlock` is placing (`BlockManager.replicate`'s loop state).
#[derive(Debug)]
struct Replicating {
    block: ReplicateBlock,
    /// The peer being uploaded to, and when the upload started.
    peer: Option<BlockManagerPeer>,
    /// `peersFailedToReplicateTo`.
    failed_peers: Vec<BlockManagerId>,
    /// `numFailures`.
    failures: u32,
}

impl Replicating {
    fn id(&self) -> RddBlockId {
        RddBlockId {
            rdd_id: self.block.rdd_id,
            partition: self.block.partition,
        }
    }
}

/// `rddBlockMigrationRunnable`'s round in progress (`decommissionRddCacheBlocks`): the blocks
/// still to place, one at a time as Spark's thread does, and those that failed.
#[derive(Debug, Default)]
struct RddPass {
    started_ms: u64,
    pending: VecDeque<ReplicateBlock>,
    failed: Vec<RddBlockId>,
    current: Option<Replicating>,
}

/// A block a migration thread is moving.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    block: StoredShuffle,
    retry: u32,
    started_ms: u64,
}

/// One `ShuffleMigrationRunnable`.
#[derive(Debug)]
struct Runner {
    peer: BlockManagerPeer,
    keep_running: bool,
    /// Submitted to the pool and not finished.
    active: bool,
    in_flight: Option<InFlight>,
}

/// The decommissioner of one executor's block manager.
#[derive(Debug)]
pub struct BlockManagerDecommissioner {
    conf: DecommissionerConf,
    latency_ms: u64,
    /// `DiskBlockManager`'s `blockmgr-<uuid>` directory (where the shuffle files are).
    block_dir: String,
    /// `migratingShuffles`: queued or migrated.
    migrating: BTreeSet<ShuffleBlockInfo>,
    /// `shufflesToMigrate`, with each block's failures so far.
    queue: VecDeque<(StoredShuffle, u32)>,
    /// `numMigratedShuffles` (a block given up on counts too, as in Spark).
    num_migrated: u32,
    runners: Vec<Runner>,
    /// `migrationPeers`: peer -> slot in `runners`.
    peers: BTreeMap<BlockManagerId, u32>,
    /// Runners submitted while `max_threads` ran (the cached pool's queue).
    pool_queue: VecDeque<u32>,
    threads: u32,
    stopped: bool,
    stopped_rdd: bool,
    stopped_shuffle: bool,
    rdd_left: bool,
    shuffle_left: bool,
    last_rdd_ms: u64,
    last_shuffle_ms: u64,
    /// Shuffle blocks migrated successfully (figures; Spark's counter includes give-ups).
    pub migrated_ok: u32,
    /// This block manager's id (`Using <id> to pro-actively replicate ...`).
    me: BlockManagerId,
    /// The RDD thread's round in progress, if any.
    rdd_pass: Option<Box<RddPass>>,
    /// RDD blocks migrated (figures).
    pub rdd_migrated: u32,
}

impl BlockManagerDecommissioner {
    pub fn new(
        conf: DecommissionerConf,
        latency_ms: u64,
        block_dir: String,
        me: BlockManagerId,
    ) -> Self {
        BlockManagerDecommissioner {
            block_dir,
            me,
            rdd_pass: None,
            rdd_migrated: 0,
            stopped_rdd: !conf.rdd_blocks,
            stopped_shuffle: !conf.shuffle_blocks,
            conf,
            latency_ms,
            migrating: BTreeSet::new(),
            queue: VecDeque::new(),
            num_migrated: 0,
            runners: Vec::new(),
            peers: BTreeMap::new(),
            pool_queue: VecDeque::new(),
            threads: 0,
            stopped: false,
            rdd_left: true,
            shuffle_left: true,
            last_rdd_ms: 0,
            last_shuffle_ms: 0,
            migrated_ok: 0,
        }
    }

    /// `start()`: the refresh threads begin; their first round needs the peers.
    pub fn start(&mut self, log: &ProcessLog) -> Vec<Step> {
        info!(log, LOGGER, "Starting block migration");
        if !self.stopped_rdd {
            info!(log, LOGGER, "Attempting to migrate all RDD blocks");
        }
        if !self.stopped_shuffle {
            info!(log, LOGGER, "Attempting to migrate all shuffle blocks");
        }
        if self.threads_done() {
            return Vec::new();
        }
        let mut steps = Vec::new();
        if !self.stopped_rdd {
            steps.push(Step::RddRound);
        }
        if !self.stopped_shuffle {
            steps.push(Step::FetchPeers);
        }
        steps
    }

    fn threads_done(&self) -> bool {
        self.stopped || (self.stopped_rdd && self.stopped_shuffle)
    }

    /// One pass of the shuffle refresh thread at `now_ms` with the peers `BlockManager.getPeers`
    /// returned (the RDD thread runs on its own: `rdd_round`).
    pub fn round(
        &mut self,
        log: &ProcessLog,
        now_ms: u64,
        peers: &[BlockManagerPeer],
        stored: &[StoredShuffle],
    ) -> Vec<Step> {
        if self.stopped || self.stopped_shuffle {
            return Vec::new();
        }
        let interval = self.conf.reattempt_interval_ms;
        let mut steps = Vec::new();
        self.shuffle_round(log, now_ms, peers, stored, &mut steps);
        info!(
            log,
            LOGGER,
            "Finished current round refreshing migratable shuffle blocks, waiting for {interval}ms before the next round refreshing."
        );
        // A thread that stopped after its round still sleeps, then leaves its loop.
        if !self.stopped_shuffle {
            steps.push(Step::NextRoundAfter(interval));
        }
        steps
    }

    /// `rddBlockMigrationRunnable`'s loop head with `getPeers(false)`'s peers: no peer stops the
    /// thread; otherwise a round asks the master for this block manager's RDD blocks.
    pub fn rdd_round(
        &mut self,
        log: &ProcessLog,
        now_ms: u64,
        peers: &[BlockManagerPeer],
    ) -> Vec<Step> {
        if self.stopped || self.stopped_rdd || self.rdd_pass.is_some() {
            return Vec::new();
        }
        if peers.is_empty() {
            warn!(
                log,
                LOGGER, "No available peers to receive RDD blocks, stop migration."
            );
            self.stopped_rdd = true;
            return Vec::new();
        }
        info!(log, LOGGER, "Attempting to migrate all cached RDD blocks");
        self.rdd_pass = Some(Box::new(RddPass {
            started_ms: now_ms,
            ..RddPass::default()
        }));
        vec![Step::RddFetchBlocks]
    }

    /// `decommissionRddCacheBlocks` with the master's `getReplicateInfoForRDDBlocks` answer.
    pub fn rdd_blocks(&mut self, log: &ProcessLog, blocks: Vec<ReplicateBlock>) -> Vec<Step> {
        if self.stopped || self.stopped_rdd {
            return Vec::new();
        }
        let Some(pass) = self.rdd_pass.as_mut() else {
            return Vec::new();
        };
        if blocks.is_empty() {
            warn!(
                log,
                LOGGER, "Asked to decommission RDD cache blocks, but no blocks to migrate"
            );
            return self.finish_rdd_round(log, false);
        }
        info!(
            log,
            LOGGER,
            "Need to replicate {} RDD blocks for block manager decommissioning",
            blocks.len()
        );
        pass.pending = blocks.into();
        self.next_rdd_block(log)
    }

    /// `migrateBlock` of the next block: `replicateBlock` logs, then refreshes the peers.
    fn next_rdd_block(&mut self, log: &ProcessLog) -> Vec<Step> {
        let Some(pass) = self.rdd_pass.as_mut() else {
            return Vec::new();
        };
        let Some(block) = pass.pending.pop_front() else {
            let left = !pass.failed.is_empty();
            if left {
                let ids: Vec<String> = pass.failed.iter().map(ToString::to_string).collect();
                warn!(
                    log,
                    LOGGER,
                    "Blocks failed replication in cache decommissioning process: {}",
                    ids.join(",")
                );
            }
            return self.finish_rdd_round(log, left);
        };
        let current = Replicating {
            block,
            peer: None,
            failed_peers: Vec::new(),
            failures: 0,
        };
        info!(
            log,
            BLOCK_MANAGER,
            "Using {} to pro-actively replicate {}",
            self.me,
            current.id()
        );
        pass.current = Some(current);
        vec![Step::RddFetchPeers]
    }

    /// The round is over: `rddBlocksLeft`, `lastRDDMigrationTime` (the round's start), sleep.
    fn finish_rdd_round(&mut self, log: &ProcessLog, left: bool) -> Vec<Step> {
        let Some(pass) = self.rdd_pass.take() else {
            return Vec::new();
        };
        self.rdd_left = left;
        self.last_rdd_ms = pass.started_ms;
        let interval = self.conf.reattempt_interval_ms;
        info!(
            log,
            LOGGER,
            "Finished current round RDD blocks migration, waiting for {interval}ms before the next round migration."
        );
        vec![Step::RddRoundAfter(interval)]
    }

    /// `BlockManager.replicate`'s loop with the peers the forced `getPeers(true)` returned
    /// (sorted by hash): the peers that hold the block or failed are left out, the policy
    /// picks one; none left, or more than `maxReplicationFailuresPerBlock` failures, gives the
    /// block up.
    pub fn rdd_peers(&mut self, log: &ProcessLog, peers: &[BlockManagerPeer]) -> Vec<Step> {
        if self.stopped || self.stopped_rdd {
            return Vec::new();
        }
        let max = self.conf.max_failures;
        let latency = self.latency_ms;
        let Some(current) = self.rdd_pass.as_mut().and_then(|p| p.current.as_mut()) else {
            return Vec::new();
        };
        let mut candidates: Vec<BlockManagerPeer> = peers
            .iter()
            .filter(|p| !current.block.replicas.contains(&p.id))
            .filter(|p| !current.failed_peers.contains(&p.id))
            .cloned()
            .collect();
        block_manager_replication::sort_peers(&mut candidates);
        let choice = block_manager_replication::prioritize_one(current.id(), candidates.len());
        let wanted = current.block.max_replicas.saturating_sub(1);
        match choice {
            Prioritized::First(i) if current.failures <= max => {
                current.peer = Some(candidates.swap_remove(i));
                let ms = 2 * latency + current.block.mem_size.div_ceil(TRANSFER_BYTES_PER_MS);
                vec![Step::RddUploadAfter(ms)]
            }
            choice => {
                if choice == Prioritized::NoPeers {
                    warn!(
                        log,
                        POLICY, "Expecting {wanted} replicas with only 0 peer/s."
                    );
                }
                let id = current.id();
                // peersReplicatedTo starts with the existing replicas.
                let done = current.block.replicas.len();
                warn!(
                    log,
                    BLOCK_MANAGER,
                    "Block {id} replicated to only {done} peer(s) instead of {wanted} peers"
                );
                warn!(log, LOGGER, "Failed to migrate block {id}");
                self.block_done(log, id, false)
            }
        }
    }

    /// The peer the RDD thread is uploading to.
    pub fn rdd_peer(&self) -> Option<(&BlockManagerPeer, &ReplicateBlock)> {
        let current = self.rdd_pass.as_ref()?.current.as_ref()?;
        Some((current.peer.as_ref()?, &current.block))
    }

    /// `uploadBlockSync`'s outcome: migrated (`removeBlock`), or Spark's retry with the peers
    /// fetched again without the failed one.
    pub fn rdd_upload_finished(
        &mut self,
        log: &ProcessLog,
        result: Result<(), RpcFailure>,
    ) -> Vec<Step> {
        if self.stopped || self.stopped_rdd {
            return Vec::new();
        }
        let Some(current) = self.rdd_pass.as_mut().and_then(|p| p.current.as_mut()) else {
            return Vec::new();
        };
        let Some(peer) = current.peer.take() else {
            return Vec::new();
        };
        let id = current.id();
        match result {
            Ok(()) => {
                info!(
                    log,
                    LOGGER, "Block {id} migrated successfully, Removing block now"
                );
                self.rdd_migrated += 1;
                let mut steps = vec![Step::RddRemoveBlock(id)];
                info!(log, LOGGER, "Block {id} removed");
                steps.extend(self.block_done(log, id, true));
                steps
            }
            Err(e) => {
                warn!(
                    log,
                    BLOCK_MANAGER,
                    "Failed to replicate {id} to {}, failure #{}\n{}",
                    peer.id,
                    current.failures,
                    e.stack_text()
                );
                current.failed_peers.push(peer.id);
                current.failures += 1;
                vec![Step::RddFetchPeers]
            }
        }
    }

    /// One block's `migrateBlock` is over: the next one.
    fn block_done(&mut self, log: &ProcessLog, id: RddBlockId, migrated: bool) -> Vec<Step> {
        if let Some(pass) = self.rdd_pass.as_mut() {
            pass.current = None;
            if !migrated {
                pass.failed.push(id);
            }
        }
        self.next_rdd_block(log)
    }

    /// `refreshMigratableShuffleBlocks`: queue the new local shuffles, start a thread per new
    /// peer, stop the threads of peers gone or decommissioning.
    fn shuffle_round(
        &mut self,
        log: &ProcessLog,
        now_ms: u64,
        peers: &[BlockManagerPeer],
        stored: &[StoredShuffle],
        steps: &mut Vec<Step>,
    ) {
        info!(log, LOGGER, "Start refreshing migratable shuffle blocks");
        let mut new: Vec<StoredShuffle> = stored
            .iter()
            .filter(|s| !self.migrating.contains(&s.info))
            .copied()
            .collect();
        new.sort_by_key(|s| s.info);
        new.dedup_by_key(|s| s.info);
        for s in &new {
            self.migrating.insert(s.info);
            self.queue.push_back((*s, 0));
        }
        let remained = self.migrating.len() as u32 - self.num_migrated;
        info!(
            log,
            LOGGER,
            "{} of {} local shuffles are added. In total, {remained} shuffles are remained.",
            new.len(),
            stored.len()
        );
        let live: BTreeSet<&BlockManagerId> = peers.iter().map(|p| &p.id).collect();
        for (id, slot) in &self.peers {
            if !live.contains(id) {
                self.runners[*slot as usize].keep_running = false;
            }
        }
        for peer in peers {
            if !self.peers.contains_key(&peer.id) {
                let slot = self.runners.len() as u32;
                self.peers.insert(peer.id.clone(), slot);
                self.runners.push(Runner {
                    peer: peer.clone(),
                    keep_running: true,
                    active: false,
                    in_flight: None,
                });
                self.submit(log, slot, now_ms, steps);
            }
        }
        if !self.runners.iter().any(|r| r.keep_running) {
            warn!(
                log,
                LOGGER, "No available peers to receive Shuffle blocks, stop migration."
            );
            self.stopped_shuffle = true;
        }
        self.shuffle_left = !new.is_empty() || self.migrating.len() as u32 > self.num_migrated;
        self.last_shuffle_ms = now_ms;
    }

    /// `shuffleMigrationPool.submit(runnable)`: runs now if a pool thread is free.
    fn submit(&mut self, log: &ProcessLog, slot: u32, now_ms: u64, steps: &mut Vec<Step>) {
        if self.threads >= self.conf.max_threads.max(1) {
            self.pool_queue.push_back(slot);
            return;
        }
        self.threads += 1;
        let r = &mut self.runners[slot as usize];
        r.active = true;
        info!(
            log,
            LOGGER, "Starting shuffle block migration thread for {}", r.peer.id
        );
        self.next_block(log, slot, now_ms, steps);
    }

    /// The runnable's loop head: `while (keepRunning)` take the next block, or sleep.
    fn next_block(&mut self, log: &ProcessLog, slot: u32, now_ms: u64, steps: &mut Vec<Step>) {
        if !self.runners[slot as usize].keep_running {
            return self.thread_ends(log, now_ms, steps);
        }
        self.poll_into(log, slot, now_ms, steps);
    }

    /// `nextShuffleBlockToMigrate`: the queue's head, or sleep a second and look again.
    fn poll_into(&mut self, log: &ProcessLog, slot: u32, now_ms: u64, steps: &mut Vec<Step>) {
        let Some((block, retry)) = self.queue.pop_front() else {
            return steps.push(Step::PollAfter { slot, ms: POLL_MS });
        };
        let max = self.conf.max_failures;
        info!(
            log,
            LOGGER,
            "Got migration sub-blocks {}. Trying to migrate {} to {} ({retry} / {max})",
            SubBlocks(&self.block_dir, &block),
            block.info,
            self.runners[slot as usize].peer.id
        );
        self.runners[slot as usize].in_flight = Some(InFlight {
            block,
            retry,
            started_ms: now_ms,
        });
        // uploadBlockSync of the data block, then of the index block: one round trip each.
        let bytes = block.data_bytes + block.index_bytes();
        let ms = 2 * self.latency_ms + bytes.div_ceil(TRANSFER_BYTES_PER_MS);
        steps.push(Step::UploadAfter { slot, ms });
    }

    /// A sleeping runnable wakes up.
    pub fn poll(&mut self, log: &ProcessLog, slot: u32, now_ms: u64) -> Vec<Step> {
        let mut steps = Vec::new();
        if !self.stopped && self.runners.get(slot as usize).is_some_and(|r| r.active) {
            self.poll_into(log, slot, now_ms, &mut steps);
        }
        steps
    }

    /// The peer a slot's runnable uploads to.
    pub fn peer(&self, slot: u32) -> Option<&BlockManagerPeer> {
        self.runners.get(slot as usize).map(|r| &r.peer)
    }

    /// The block a slot's runnable is uploading.
    pub fn in_flight(&self, slot: u32) -> Option<StoredShuffle> {
        self.runners
            .get(slot as usize)
            .and_then(|r| r.in_flight.map(|f| f.block))
    }

    /// The upload's outcome: `Migrated ...`, or Spark's failure handling (stop this peer's
    /// thread, put the block back for another thread until it failed `max_failures` times).
    pub fn upload_finished(
        &mut self,
        log: &ProcessLog,
        slot: u32,
        now_ms: u64,
        result: Result<(), RpcFailure>,
    ) -> Vec<Step> {
        let mut steps = Vec::new();
        let Some(f) = self
            .runners
            .get_mut(slot as usize)
            .and_then(|r| r.in_flight.take())
        else {
            return steps;
        };
        if self.stopped {
            return steps;
        }
        let peer = self.runners[slot as usize].peer.id.clone();
        let mut target_decommissioned = false;
        match result {
            Ok(()) => {
                info!(
                    log,
                    LOGGER,
                    "Migrated {} (size: {}) to {peer} in {} ms",
                    f.block.info,
                    bytes_to_string(f.block.data_bytes + f.block.index_bytes()),
                    now_ms - f.started_ms
                );
                self.migrated_ok += 1;
            }
            Err(e)
                if e.class == SAVED_ON_DECOMMISSIONED
                    || e.message.contains(SAVED_ON_DECOMMISSIONED) =>
            {
                target_decommissioned = true;
                self.runners[slot as usize].keep_running = false;
            }
            Err(e) => {
                error!(
                    log,
                    LOGGER,
                    "Error occurred during migrating {}\n{}",
                    f.block.info,
                    e.stack_text()
                );
                self.runners[slot as usize].keep_running = false;
            }
        }
        if self.runners[slot as usize].keep_running {
            self.num_migrated += 1;
        } else {
            warn!(log, LOGGER, "Stop migrating shuffle blocks to {peer}");
            let retry = if target_decommissioned {
                f.retry
            } else {
                f.retry + 1
            };
            if !self.allow_retry(log, f.block, retry) {
                self.num_migrated += 1;
            }
        }
        self.next_block(log, slot, now_ms, &mut steps);
        steps
    }

    /// `allowRetry`: back in the queue while it failed fewer than `max_failures` times.
    fn allow_retry(&mut self, log: &ProcessLog, block: StoredShuffle, failures: u32) -> bool {
        let max = self.conf.max_failures;
        if failures < max {
            info!(
                log,
                LOGGER, "Add {} back to migration queue for retry ({failures} / {max})", block.info
            );
            self.queue.push_back((block, failures));
            true
        } else {
            warn!(
                log,
                LOGGER, "Give up migrating {} since it's been failed for {max} times", block.info
            );
            false
        }
    }

    /// A runnable left its loop: its pool thread takes the next submitted runnable.
    fn thread_ends(&mut self, log: &ProcessLog, now_ms: u64, steps: &mut Vec<Step>) {
        self.threads = self.threads.saturating_sub(1);
        if let Some(next) = self.pool_queue.pop_front() {
            self.submit(log, next, now_ms, steps);
        }
    }

    /// `BlockManager.getPeers` failed (the master's ask): the shuffle refresh thread stops on
    /// the error, as its `NonFatal` case does (the RDD thread's asks: `rdd_failed`).
    pub fn peers_failed(&mut self, log: &ProcessLog, failure: &RpcFailure) {
        if !self.stopped_shuffle {
            error!(
                log,
                LOGGER,
                "Error occurred during shuffle blocks migration.\n{}",
                failure.stack_text()
            );
            self.stopped_shuffle = true;
        }
    }

    /// An ask of the RDD thread failed (the master's `getReplicateInfoForRDDBlocks` or
    /// `getPeers`): the runnable's `NonFatal` case stops the thread.
    pub fn rdd_failed(&mut self, log: &ProcessLog, failure: &RpcFailure) {
        if self.stopped || self.stopped_rdd {
            return;
        }
        error!(
            log,
            LOGGER,
            "Error occurred during RDD blocks migration.\n{}",
            failure.stack_text()
        );
        self.stopped_rdd = true;
        self.rdd_pass = None;
    }

    /// `lastMigrationInfo`: when the last complete round started, and whether every block
    /// that round saw is migrated (or can never be).
    pub fn last_migration_info(&self) -> (u64, bool) {
        if self.threads_done() {
            return (u64::MAX, true);
        }
        let time = match (self.stopped_rdd, self.stopped_shuffle) {
            (false, false) => self.last_rdd_ms.min(self.last_shuffle_ms),
            (true, false) => self.last_shuffle_ms,
            _ => self.last_rdd_ms,
        };
        let done =
            (!self.shuffle_left || self.stopped_shuffle) && (!self.rdd_left || self.stopped_rdd);
        (time, done)
    }

    /// `stop()` (the block manager stops with the executor): the threads are interrupted.
    pub fn stop(&mut self, log: &ProcessLog) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        if self.conf.rdd_blocks && !self.stopped_rdd {
            info!(log, LOGGER, "Stop RDD blocks migration.");
        }
        if self.conf.shuffle_blocks {
            if !self.stopped_shuffle {
                info!(log, LOGGER, "Stop refreshing migratable shuffle blocks.");
            }
            info!(log, LOGGER, "Stopping migrating shuffle blocks.");
            for r in self.runners.iter_mut().filter(|r| r.active) {
                r.keep_running = false;
                info!(log, LOGGER, "Stop shuffle block migration.");
            }
        }
        info!(log, LOGGER, "Stopped block migration");
    }
}

/// `getMigrationBlocks`' list as Scala prints it: the data block, then the index block, each
/// with its `FileSegmentManagedBuffer` (ToStringBuilder's short-prefix style) on the file
/// `DiskBlockManager.getFile` picks.
struct SubBlocks<'a>(&'a str, &'a StoredShuffle);

impl std::fmt::Display for SubBlocks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (dir, s) = (self.0, self.1);
        let (id, map) = (s.info.shuffle_id, s.info.map_id);
        let data = format!("shuffle_{id}_{map}_0.data");
        let index = format!("shuffle_{id}_{map}_0.index");
        write!(
            f,
            "List(({data},FileSegmentManagedBuffer[file={},offset=0,length={}]), ({index},FileSegmentManagedBuffer[file={},offset=0,length={}]))",
            block_file(dir, &data),
            s.data_bytes,
            block_file(dir, &index),
            s.index_bytes()
        )
    }
}

/// `DiskBlockManager.getFile(filename)` with one local dir and the default 64
/// `spark.diskStore.subDirectories`: `Utils.nonNegativeHash(filename) % 64`, as `%02x`.
pub fn block_file(block_manager_dir: &str, filename: &str) -> String {
    let hash = filename
        .encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
    let non_negative = if hash == i32::MIN { 0 } else { hash.abs() };
    format!("{block_manager_dir}/{:02x}/{filename}", non_negative % 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use sparkyard_messages::ids::ExecutorId;
    use sparkyard_messages::rpc::{EndpointId, RemoteRef, RpcEndpointAddress};
    use std::cell::RefCell;
    use std::rc::Rc;

    fn conf() -> DecommissionerConf {
        DecommissionerConf {
            shuffle_blocks: true,
            rdd_blocks: true,
            max_threads: 8,
            max_failures: 3,
            reattempt_interval_ms: 30_000,
            cached_peers_ttl_ms: 60_000,
        }
    }

    fn peer(e: u32) -> BlockManagerPeer {
        BlockManagerPeer {
            id: BlockManagerId {
                executor_id: ExecutorId(e),
                host: "nm-7".into(),
                port: 38000 + e as u16,
            },
            endpoint: RemoteRef {
                id: EndpointId(e),
                address: RpcEndpointAddress {
                    rpc_address: None,
                    name: "Executor".into(),
                },
            },
        }
    }

    fn me() -> BlockManagerId {
        BlockManagerId {
            executor_id: ExecutorId(1),
            host: "nm-6".into(),
            port: 38001,
        }
    }

    fn rdd(partition: u32, mem_size: u64) -> ReplicateBlock {
        ReplicateBlock {
            rdd_id: 1,
            partition,
            replicas: Vec::new(),
            max_replicas: 2,
            mem_size,
        }
    }

    fn stored(map_id: u64) -> StoredShuffle {
        StoredShuffle {
            info: ShuffleBlockInfo {
                shuffle_id: 0,
                map_id,
            },
            data_bytes: 1_000_000,
            num_reduces: 4,
        }
    }

    fn logged() -> (ProcessLog, Rc<RefCell<LogStore>>) {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        (ProcessLog::new("executor", store.clone()), store)
    }

    fn lines(store: &Rc<RefCell<LogStore>>) -> Vec<String> {
        let store = store.borrow();
        let Some(out) = store.output("executor") else {
            return Vec::new();
        };
        out.stderr
            .lines()
            .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l).to_string())
            .collect()
    }

    fn uploads(steps: &[Step]) -> Vec<u32> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::UploadAfter { slot, .. } => Some(*slot),
                _ => None,
            })
            .collect()
    }

    fn failure() -> RpcFailure {
        RpcFailure::new("java.io.IOException", "Failed to connect to nm-7:38003")
    }

    /// BlockManagerDecommissioner.scala refreshMigratableShuffleBlocks + ShuffleMigrationRunnable:
    /// a round queues every local shuffle in (shuffleId, mapId) order and starts one thread per
    /// peer; a migrated block counts, and the next round with nothing new reports no blocks
    /// left, so `lastMigrationInfo` says done from that round's start.
    #[test]
    fn a_round_queues_local_shuffles_and_migrates_them_over_one_thread_per_peer() {
        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(conf(), 1, "/bm".into(), me());
        assert_eq!(d.start(&log), vec![Step::RddRound, Step::FetchPeers]);
        let peers = [peer(3), peer(4)];
        assert_eq!(d.rdd_round(&log, 100, &peers), vec![Step::RddFetchBlocks]);
        assert_eq!(
            d.rdd_blocks(&log, vec![]),
            vec![Step::RddRoundAfter(30_000)]
        );
        let steps = d.round(&log, 100, &[peer(3), peer(4)], &[stored(5), stored(1)]);
        assert_eq!(uploads(&steps), vec![0, 1]);
        assert!(steps.contains(&Step::NextRoundAfter(30_000)));
        // 1 MB at 100 MB/s plus a round trip per sub-block.
        assert!(steps.contains(&Step::UploadAfter { slot: 0, ms: 13 }));
        assert_eq!(d.in_flight(0).map(|s| s.info.map_id), Some(1));
        assert_eq!(d.last_migration_info(), (100, false));
        let next = d.upload_finished(&log, 0, 113, Ok(()));
        assert_eq!(
            next,
            vec![Step::PollAfter {
                slot: 0,
                ms: POLL_MS
            }]
        );
        d.upload_finished(&log, 1, 113, Ok(()));
        d.round(&log, 30_100, &[peer(3), peer(4)], &[stored(5), stored(1)]);
        assert_eq!(
            d.last_migration_info(),
            (100, true),
            "the RDD thread's round is older"
        );
        d.rdd_round(&log, 30_100, &peers);
        d.rdd_blocks(&log, vec![]);
        assert_eq!(d.last_migration_info(), (30_100, true));
        let l = lines(&store);
        for want in [
            "INFO BlockManagerDecommissioner: Starting block migration",
            "WARN BlockManagerDecommissioner: Asked to decommission RDD cache blocks, but no blocks to migrate",
            "INFO BlockManagerDecommissioner: 2 of 2 local shuffles are added. In total, 2 shuffles are remained.",
            "INFO BlockManagerDecommissioner: Starting shuffle block migration thread for BlockManagerId(3, nm-7, 38003, None)",
            "INFO BlockManagerDecommissioner: Migrated ShuffleBlockInfo(0,1) (size: 976.6 KiB) to BlockManagerId(3, nm-7, 38003, None) in 13 ms",
            "INFO BlockManagerDecommissioner: 0 of 2 local shuffles are added. In total, 0 shuffles are remained.",
        ] {
            assert!(l.iter().any(|x| x == want), "{want}\n{l:#?}");
        }
    }

    /// ShuffleMigrationRunnable's failure path and allowRetry: a failed upload stops that
    /// peer's thread and puts the block back with one more failure; after
    /// maxReplicationFailuresPerBlock failures it is given up (and counted as done).
    #[test]
    fn a_block_that_keeps_failing_is_retried_then_given_up() {
        let (log, store) = logged();
        let mut c = conf();
        c.rdd_blocks = false;
        c.max_failures = 2;
        let mut d = BlockManagerDecommissioner::new(c, 0, "/bm".into(), me());
        d.start(&log);
        d.round(&log, 0, &[peer(3), peer(4)], &[stored(1)]);
        // Thread 0 took the block; thread 1 polls.
        assert_eq!(d.upload_finished(&log, 0, 10, Err(failure())), vec![]);
        let steps = d.poll(&log, 1, 1000);
        assert_eq!(uploads(&steps), vec![1]);
        assert_eq!(d.upload_finished(&log, 1, 1010, Err(failure())), vec![]);
        assert!(!d.last_migration_info().1, "no round since");
        // Both peers' threads stopped: the next round has no one to migrate to and stops.
        d.round(&log, 30_000, &[peer(3), peer(4)], &[stored(1)]);
        assert_eq!(d.last_migration_info(), (u64::MAX, true));
        let l = lines(&store);
        for want in [
            "WARN BlockManagerDecommissioner: No available peers to receive Shuffle blocks, stop migration.",
            "ERROR BlockManagerDecommissioner: Error occurred during migrating ShuffleBlockInfo(0,1)",
            "WARN BlockManagerDecommissioner: Stop migrating shuffle blocks to BlockManagerId(3, nm-7, 38003, None)",
            "INFO BlockManagerDecommissioner: Add ShuffleBlockInfo(0,1) back to migration queue for retry (1 / 2)",
            "WARN BlockManagerDecommissioner: Give up migrating ShuffleBlockInfo(0,1) since it's been failed for 2 times",
        ] {
            assert!(l.iter().any(|x| x == want), "{want}\n{l:#?}");
        }
    }

    /// A peer that is decommissioning itself refuses the block
    /// (BlockSavedOnDecommissionedBlockManagerException): the thread stops, the block goes
    /// back without counting a failure.
    #[test]
    fn a_refusal_by_a_decommissioning_peer_does_not_count_as_a_failure() {
        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(conf(), 0, "/bm".into(), me());
        d.start(&log);
        d.round(&log, 0, &[peer(3)], &[stored(1)]);
        let refused = RpcFailure::new(SAVED_ON_DECOMMISSIONED, "Block shuffle_0_1_0.data ...");
        d.upload_finished(&log, 0, 10, Err(refused));
        let l = lines(&store);
        assert!(l.iter().any(|x| x
            == "INFO BlockManagerDecommissioner: Add ShuffleBlockInfo(0,1) back to migration queue for retry (0 / 3)"));
        assert!(!l.iter().any(|x| x.contains("Error occurred")));
    }

    /// `spark.storage.decommission.shuffleBlocks.maxThreads` bounds the threads; a queued one
    /// starts when a running one ends. Without peers both refresh threads stop, and
    /// `lastMigrationInfo` is `(Long.MaxValue, true)`.
    #[test]
    fn max_threads_bound_the_migration_threads_and_no_peers_stop_migration() {
        let (log, _) = logged();
        let mut c = conf();
        c.max_threads = 1;
        let mut d = BlockManagerDecommissioner::new(c, 0, "/bm".into(), me());
        d.start(&log);
        let steps = d.round(&log, 0, &[peer(3), peer(4)], &[stored(1), stored(2)]);
        assert_eq!(uploads(&steps), vec![0]);
        let steps = d.upload_finished(&log, 0, 10, Err(failure()));
        assert_eq!(uploads(&steps), vec![1], "the queued thread starts");

        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(conf(), 0, "/bm".into(), me());
        d.start(&log);
        assert_eq!(d.round(&log, 0, &[], &[stored(1)]), vec![]);
        assert_eq!(d.rdd_round(&log, 0, &[]), vec![]);
        assert_eq!(d.last_migration_info(), (u64::MAX, true));
        let l = lines(&store);
        assert!(l.iter().any(|x| x
            == "WARN BlockManagerDecommissioner: No available peers to receive Shuffle blocks, stop migration."));
        assert!(l.iter().any(|x| x
            == "WARN BlockManagerDecommissioner: No available peers to receive RDD blocks, stop migration."));
    }

    fn rdd_only() -> DecommissionerConf {
        DecommissionerConf {
            shuffle_blocks: false,
            ..conf()
        }
    }

    /// The peer `replicate` picks: the policy's draw over the peers sorted by hash.
    fn picked(block: RddBlockId, peers: &[BlockManagerPeer]) -> BlockManagerId {
        let mut sorted = peers.to_vec();
        block_manager_replication::sort_peers(&mut sorted);
        match block_manager_replication::prioritize_one(block, sorted.len()) {
            Prioritized::First(i) => sorted[i].id.clone(),
            Prioritized::NoPeers => panic!("no peer"),
        }
    }

    /// BlockManagerDecommissioner.scala decommissionRddCacheBlocks / migrateBlock and
    /// BlockManager.scala replicateBlock / replicate: the master's blocks are placed one at a
    /// time; each refreshes the peers, uploads to the policy's pick, and a placed block is
    /// removed here (`removeBlock`). A failed upload refreshes the peers again without the
    /// failed one and tries the next pick. A round that placed everything leaves no RDD block.
    #[test]
    fn cached_blocks_are_replicated_one_at_a_time_and_removed_once_placed() {
        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(rdd_only(), 1, "/bm".into(), me());
        assert_eq!(d.start(&log), vec![Step::RddRound]);
        let peers = [peer(3), peer(4), peer(5)];
        assert_eq!(d.rdd_round(&log, 50, &peers), vec![Step::RddFetchBlocks]);
        let steps = d.rdd_blocks(&log, vec![rdd(0, 200_000_000), rdd(1, 100_000_000)]);
        assert_eq!(steps, vec![Step::RddFetchPeers]);
        // 200 MB at 100 MB/s plus a round trip.
        assert_eq!(d.rdd_peers(&log, &peers), vec![Step::RddUploadAfter(2002)]);
        let b0 = RddBlockId {
            rdd_id: 1,
            partition: 0,
        };
        let to = picked(b0, &peers);
        assert_eq!(d.rdd_peer().map(|(p, _)| p.id.clone()), Some(to.clone()));
        let steps = d.rdd_upload_finished(&log, Ok(()));
        assert_eq!(steps, vec![Step::RddRemoveBlock(b0), Step::RddFetchPeers]);
        // The second block's first pick refuses it; the retry leaves that peer out.
        d.rdd_peers(&log, &peers);
        let first = d.rdd_peer().map(|(p, _)| p.id.clone()).expect("a peer");
        let refused = RpcFailure::new("java.lang.RuntimeException", "Upload block failed");
        assert_eq!(
            d.rdd_upload_finished(&log, Err(refused)),
            vec![Step::RddFetchPeers]
        );
        assert_eq!(d.last_migration_info(), (0, false), "the round is not over");
        d.rdd_peers(&log, &peers);
        let second = d.rdd_peer().map(|(p, _)| p.id.clone()).expect("a peer");
        assert_ne!(first, second);
        let b1 = RddBlockId {
            rdd_id: 1,
            partition: 1,
        };
        let steps = d.rdd_upload_finished(&log, Ok(()));
        assert_eq!(
            steps,
            vec![Step::RddRemoveBlock(b1), Step::RddRoundAfter(30_000)]
        );
        assert_eq!(d.last_migration_info(), (50, true));
        assert_eq!(d.rdd_migrated, 2);
        let l = lines(&store);
        for want in [
            "INFO BlockManagerDecommissioner: Attempting to migrate all RDD blocks".to_string(),
            "INFO BlockManagerDecommissioner: Attempting to migrate all cached RDD blocks".into(),
            "INFO BlockManagerDecommissioner: Need to replicate 2 RDD blocks for block manager decommissioning".into(),
            "INFO BlockManager: Using BlockManagerId(1, nm-6, 38001, None) to pro-actively replicate rdd_1_0".into(),
            "INFO BlockManagerDecommissioner: Block rdd_1_0 migrated successfully, Removing block now".into(),
            "INFO BlockManagerDecommissioner: Block rdd_1_0 removed".into(),
            format!("WARN BlockManager: Failed to replicate rdd_1_1 to {first}, failure #0"),
            "INFO BlockManagerDecommissioner: Finished current round RDD blocks migration, waiting for 30000ms before the next round migration.".into(),
        ] {
            assert!(l.contains(&want), "{want}\n{l:#?}");
        }
        assert!(l.iter().any(|x| x.ends_with("block failed")), "the cause");
        assert!(!l.iter().any(|x| x.contains("Blocks failed replication")));
    }

    /// BlockManager.replicate: with every other peer failed, the policy has no candidate
    /// (`Expecting 1 replicas with only 0 peer/s.`), the block is reported replicated to 0
    /// peers, `Failed to migrate block`, it stays here, and the round says which blocks failed
    /// (`rddBlocksLeft`: the shutdown thread keeps waiting). After more than
    /// `maxReplicationFailuresPerBlock` failures the block is given up with peers left.
    #[test]
    fn a_block_no_peer_takes_stays_and_the_round_reports_it() {
        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(rdd_only(), 0, "/bm".into(), me());
        d.start(&log);
        d.rdd_round(&log, 7, &[peer(3)]);
        d.rdd_blocks(&log, vec![rdd(2, 1000)]);
        d.rdd_peers(&log, &[peer(3)]);
        let refused = RpcFailure::new("java.io.IOException", "Failed to connect to nm-7:38003");
        d.rdd_upload_finished(&log, Err(refused.clone()));
        let steps = d.rdd_peers(&log, &[peer(3)]);
        assert_eq!(steps, vec![Step::RddRoundAfter(30_000)]);
        assert_eq!(d.last_migration_info(), (7, false));
        let l = lines(&store);
        for want in [
            "WARN RandomBlockReplicationPolicy: Expecting 1 replicas with only 0 peer/s.",
            "WARN BlockManager: Block rdd_1_2 replicated to only 0 peer(s) instead of 1 peers",
            "WARN BlockManagerDecommissioner: Failed to migrate block rdd_1_2",
            "WARN BlockManagerDecommissioner: Blocks failed replication in cache decommissioning process: rdd_1_2",
        ] {
            assert!(l.iter().any(|x| x == want), "{want}\n{l:#?}");
        }

        // maxReplicationFailures = 1: two attempts, then given up although peers remain.
        let (log, store) = logged();
        let mut c = rdd_only();
        c.max_failures = 1;
        let mut d = BlockManagerDecommissioner::new(c, 0, "/bm".into(), me());
        let peers = [peer(3), peer(4), peer(5)];
        d.start(&log);
        d.rdd_round(&log, 0, &peers);
        d.rdd_blocks(&log, vec![rdd(0, 1000), rdd(1, 1000)]);
        for _ in 0..2 {
            assert_eq!(uploads_rdd(&d.rdd_peers(&log, &peers)), 1);
            d.rdd_upload_finished(&log, Err(refused.clone()));
        }
        // Given up: the next block starts.
        assert_eq!(d.rdd_peers(&log, &peers), vec![Step::RddFetchPeers]);
        let l = lines(&store);
        assert!(!l.iter().any(|x| x.contains("Expecting")));
        assert!(
            l.iter()
                .any(|x| x == "WARN BlockManagerDecommissioner: Failed to migrate block rdd_1_0")
        );
    }

    fn uploads_rdd(steps: &[Step]) -> usize {
        steps
            .iter()
            .filter(|s| matches!(s, Step::RddUploadAfter(_)))
            .count()
    }

    /// The RDD thread's asks failing (`NonFatal` in rddBlockMigrationRunnable) stop it, which
    /// counts as done for the shutdown thread.
    #[test]
    fn a_failed_ask_stops_the_rdd_thread() {
        let (log, store) = logged();
        let mut d = BlockManagerDecommissioner::new(rdd_only(), 0, "/bm".into(), me());
        d.start(&log);
        d.rdd_round(&log, 0, &[peer(3)]);
        d.rdd_failed(&log, &failure());
        assert_eq!(d.rdd_blocks(&log, vec![rdd(0, 1)]), vec![]);
        assert_eq!(d.last_migration_info(), (u64::MAX, true));
        assert!(lines(&store).iter().any(|x| x
            == "ERROR BlockManagerDecommissioner: Error occurred during RDD blocks migration."));
    }

    /// DiskBlockManager.getFile: `Utils.nonNegativeHash(name) % 64` names the sub-directory
    /// (Java's String.hashCode of "shuffle_0_0_0.data" is 581811660, % 64 = 12 = 0x0c).
    #[test]
    fn shuffle_files_land_in_the_sub_directory_spark_hashes_them_to() {
        assert_eq!(
            block_file("/bm", "shuffle_0_0_0.data"),
            "/bm/0c/shuffle_0_0_0.data"
        );
    }
}
