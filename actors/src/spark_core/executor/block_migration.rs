//! A decommissioning block manager's migration, carried out: the decommissioner's shuffle and RDD
//! threads' timers, `getPeers` and block asks, uploads and removals, and a peer's uploads as they
//! arrive here (Spark's `BlockManager.decommissionSelf` driving `BlockManagerDecommissioner`;
//! the receiving side is `NettyBlockRpcServer`'s `UploadBlock` / `putBlockDataAsStream`).

use super::{BackendAnswer, CoarseGrainedExecutorBackend};
use crate::info;
use crate::kernel::clock;
use crate::rpc::{Asker, EndpointRef};
use crate::spark_core::block_manager::{connect_refused, upload_refused_for_space};
use crate::spark_core::block_manager_decommissioner::{
    BlockManagerDecommissioner, SAVED_ON_DECOMMISSIONED, Step, StoredShuffle,
};
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::executor_env::{self, block_manager_port};
use actix::{AsyncContext, Context};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::ReplyTo;
use sparkyard_messages::task::{
    BlockManagerPeer, MigratedRddBlock, MigratedShuffleBlock, ShuffleBlockInfo,
};

impl CoarseGrainedExecutorBackend {
    /// BlockManager.decommissionSelf: the decommissioner starts its threads.
    pub(super) fn start_block_manager_decommission(
        &mut self,
        log: &crate::kernel::logs::ProcessLog,
        ctx: &mut Context<Self>,
    ) {
        info!(
            log,
            "executor::BlockManager", "Starting block manager decommissioning process..."
        );
        let dir = executor_env::block_manager_dir(
            &self.sim.config.user,
            &self.args.app_id,
            self.args.executor_id,
        );
        let latency = self.sim.config.costs.network_latency_ms;
        let me = self.block_manager_id();
        let mut d =
            BlockManagerDecommissioner::new(self.conf.decommissioner.clone(), latency, dir, me);
        let steps = d.start(log);
        self.decommissioner = Some(Box::new(d));
        self.run_steps(steps, ctx);
    }

    pub(super) fn with_decommissioner(
        &mut self,
        f: impl FnOnce(
            &mut BlockManagerDecommissioner,
            &crate::kernel::logs::ProcessLog,
            u64,
        ) -> Vec<Step>,
    ) -> Vec<Step> {
        if self.state.stopping() {
            return Vec::new();
        }
        let log = self.env.log().clone();
        let now = clock::now_ms();
        self.decommissioner
            .as_mut()
            .map_or_else(Vec::new, |d| f(d, &log, now))
    }

    /// Carries the decommissioner's steps out: its timers and its asks.
    pub(super) fn run_steps(&mut self, steps: Vec<Step>, ctx: &mut Context<Self>) {
        for step in steps {
            match step {
                Step::FetchPeers => self.migration_round(ctx),
                Step::NextRoundAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::MigrationRound, clock::ms(ms));
                }
                Step::PollAfter { slot, ms } => {
                    ctx.notify_later(ExecutorMsg::MigrationPoll(slot), clock::ms(ms));
                }
                Step::UploadAfter { slot, ms } => {
                    ctx.notify_later(ExecutorMsg::MigrationUpload(slot), clock::ms(ms));
                }
                Step::RddRound => self.rdd_migration_round(ctx),
                Step::RddRoundAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::RddMigrationRound, clock::ms(ms));
                }
                Step::RddFetchBlocks => self.ask_rdd_blocks(ctx),
                Step::RddFetchPeers => self.ask_peers(ctx, true),
                Step::RddUploadAfter(ms) => {
                    ctx.notify_later(ExecutorMsg::RddMigrationUpload, clock::ms(ms));
                }
                Step::RddRemoveBlock(block) => self.remove_rdd_block(block),
            }
        }
    }

    /// A refresh round: `BlockManager.getPeers` (cached `spark.storage.cachedPeersTtl`), then
    /// both refresh threads' pass.
    pub(super) fn migration_round(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() || self.decommissioner.is_none() {
            return;
        }
        let ttl = self.conf.decommissioner.cached_peers_ttl_ms;
        if self.peers.fresh(clock::now_ms(), ttl) {
            return self.round_with_cached_peers(ctx);
        }
        let Some(driver) = self.driver.clone() else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = self.conf.ask_timeout();
        self.ask(ctx, me, &driver, BackendAnswer::Peers, &t, |a| {
            DriverEndpointMsg::GetPeers(a, asker)
        });
    }

    /// The RDD thread's round: `getPeers(false)` (cached `spark.storage.cachedPeersTtl`).
    pub(super) fn rdd_migration_round(&mut self, ctx: &mut Context<Self>) {
        if self.state.stopping() || self.decommissioner.is_none() {
            return;
        }
        let ttl = self.conf.decommissioner.cached_peers_ttl_ms;
        if !self.peers.fresh(clock::now_ms(), ttl) {
            return self.ask_peers(ctx, false);
        }
        let peers = std::mem::take(&mut self.peers);
        let steps = self.with_decommissioner(|d, log, now| d.rdd_round(log, now, peers.peers()));
        self.peers = peers;
        self.run_steps(steps, ctx);
    }

    /// `BlockManagerMaster.getPeers` for the RDD thread.
    fn ask_peers(&mut self, ctx: &mut Context<Self>, forced: bool) {
        let Some(driver) = self.driver.clone().filter(|_| !self.state.stopping()) else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = self.conf.ask_timeout();
        self.ask(
            ctx,
            me,
            &driver,
            move |result| BackendAnswer::RddPeers { forced, result },
            &t,
            |a| DriverEndpointMsg::GetPeers(a, asker),
        );
    }

    /// `BlockManagerMaster.getReplicateInfoForRDDBlocks(blockManagerId)`.
    fn ask_rdd_blocks(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = self.driver.clone().filter(|_| !self.state.stopping()) else {
            return;
        };
        let me = self.me_id();
        let asker = self.block_manager_id();
        let t = self.conf.ask_timeout();
        self.ask(ctx, me, &driver, BackendAnswer::RddBlocks, &t, |a| {
            DriverEndpointMsg::GetReplicateInfoForRddBlocks(a, asker)
        });
    }

    /// The RDD thread's asks come back; a failed one stops the thread (the runnable's
    /// `NonFatal` case: `Error occurred during RDD blocks migration.`).
    pub(super) fn on_rdd_answer(&mut self, answer: BackendAnswer, ctx: &mut Context<Self>) {
        let steps = match answer {
            BackendAnswer::RddPeers { forced, result } => match result {
                Ok(peers) => {
                    let steps = self.with_decommissioner(|d, log, now| {
                        if forced {
                            d.rdd_peers(log, &peers)
                        } else {
                            d.rdd_round(log, now, &peers)
                        }
                    });
                    self.peers.set(clock::now_ms(), peers);
                    steps
                }
                Err(e) => self.rdd_failed(&crate::rpc::awaited(e)),
            },
            BackendAnswer::RddBlocks(Ok(blocks)) => {
                self.with_decommissioner(|d, log, _| d.rdd_blocks(log, blocks))
            }
            BackendAnswer::RddBlocks(Err(e)) => self.rdd_failed(&crate::rpc::awaited(e)),
            BackendAnswer::RddUpload(result) => {
                self.with_decommissioner(|d, log, _| d.rdd_upload_finished(log, result))
            }
            _ => Vec::new(),
        };
        self.run_steps(steps, ctx);
    }

    fn rdd_failed(&mut self, failure: &RpcFailure) -> Vec<Step> {
        let log = self.env.log().clone();
        if let Some(d) = self
            .decommissioner
            .as_mut()
            .filter(|_| !self.state.stopping())
        {
            d.rdd_failed(&log, failure);
        }
        Vec::new()
    }

    /// A migration peer's executor endpoint, if its block server answers; one that does not
    /// fails the upload at once (`Failed to connect to host:port`: the connection is refused).
    fn reachable_peer(
        &self,
        peer: &BlockManagerPeer,
    ) -> Result<EndpointRef<ExecutorMsg>, RpcFailure> {
        let ess_port = self.sim.config.spark.shuffle.service_port;
        self.sim
            .block_server_reachable(&peer.id, ess_port)
            .then(|| self.env.resolve::<ExecutorMsg>(&peer.endpoint))
            .flatten()
            .ok_or_else(|| {
                let ip = self.sim.host_ip(&peer.id.host);
                connect_refused(&peer.id.host, &ip, peer.id.port)
            })
    }

    /// The RDD thread's transfer time is over: `uploadBlockSync` to its peer (a peer that does
    /// not answer fails at once: the connection is refused).
    pub(super) fn rdd_upload(&mut self, ctx: &mut Context<Self>) {
        let Some(d) = self
            .decommissioner
            .as_ref()
            .filter(|_| !self.state.stopping())
        else {
            return;
        };
        let Some((peer, block)) = d.rdd_peer().map(|(p, b)| (p.clone(), b.clone())) else {
            return;
        };
        let target = match self.reachable_peer(&peer) {
            Ok(target) => target,
            Err(failure) => {
                return self.on_rdd_answer(BackendAnswer::RddUpload(Err(failure)), ctx);
            }
        };
        let me = self.me_id();
        let t = self.conf.ask_timeout();
        let migrated = MigratedRddBlock {
            rdd_id: block.rdd_id,
            partition: block.partition,
            mem_size: block.mem_size,
        };
        self.ask(ctx, me, &target, BackendAnswer::RddUpload, &t, |a| {
            ExecutorMsg::UploadRddBlock(a, migrated)
        });
    }

    /// A peer's replicated RDD block arrives (NettyBlockRpcServer's `UploadBlock` ->
    /// `putBlockData`, MEMORY_ONLY deserialized: `MemoryStore.putIteratorAsValues`): stored and
    /// reported to the master, or refused when it does not fit (`putBlockData` false).
    pub(super) fn on_upload_rdd_block(&mut self, ask: ReplyTo<()>, block: MigratedRddBlock) {
        let id = RddBlockId {
            rdd_id: block.rdd_id,
            partition: block.partition,
        };
        if self.executor.is_none() || self.state.stopping() {
            let port = block_manager_port(self.args.executor_id);
            let ip = self.sim.host_ip(&self.args.hostname);
            let failure = connect_refused(&self.args.hostname, &ip, port);
            return self.env.reply_failure(ask, failure);
        }
        if !self.put_rdd_block(id, block.mem_size) {
            return self.env.reply_failure(ask, upload_refused_for_space(id));
        }
        self.env.reply(ask, ());
    }

    /// `BlockManager.removeBlock` of a migrated block: out of the MemoryStore, and the master
    /// told (`UpdateBlockInfo` with `StorageLevel.NONE`).
    fn remove_rdd_block(&mut self, block: RddBlockId) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let Some(size) = executor.rdd_blocks.remove(block) else {
            return;
        };
        if let Some(blocks) = executor.blocks.as_mut() {
            blocks
                .store
                .remove(self.env.log(), &block.to_string(), size);
        }
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::RemoveRddBlockInfo {
                block_manager: self.block_manager_id(),
                rdd_id: block.rdd_id,
                partition: block.partition,
            };
            self.env.send(d, msg);
        }
    }

    fn round_with_cached_peers(&mut self, ctx: &mut Context<Self>) {
        let peers = std::mem::take(&mut self.peers);
        let stored = std::mem::take(&mut self.stored_shuffles);
        let steps =
            self.with_decommissioner(|d, log, now| d.round(log, now, peers.peers(), &stored));
        self.peers = peers;
        self.stored_shuffles = stored;
        self.run_steps(steps, ctx);
    }

    pub(super) fn on_peers(
        &mut self,
        result: Result<Vec<BlockManagerPeer>, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        match result {
            Ok(peers) => {
                self.peers.set(clock::now_ms(), peers);
                self.round_with_cached_peers(ctx);
            }
            Err(e) => {
                let log = self.env.log().clone();
                if let Some(d) = self.decommissioner.as_mut() {
                    // `getPeers` is the master's `askSync`.
                    d.peers_failed(&log, &crate::rpc::awaited(e));
                }
            }
        }
    }

    /// A migration thread's transfer time is over: `uploadBlockSync` to its peer. A peer that
    /// does not answer fails at once (the connection is refused).
    pub(super) fn upload(&mut self, slot: u32, ctx: &mut Context<Self>) {
        let Some(d) = self
            .decommissioner
            .as_ref()
            .filter(|_| !self.state.stopping())
        else {
            return;
        };
        let (Some(block), Some(peer)) = (d.in_flight(slot), d.peer(slot).cloned()) else {
            return;
        };
        let target = match self.reachable_peer(&peer) {
            Ok(target) => target,
            Err(failure) => return self.on_answer(BackendAnswer::Upload(slot, Err(failure)), ctx),
        };
        let me = self.me_id();
        let t = self.conf.ask_timeout();
        let migrated = MigratedShuffleBlock {
            info: block.info,
            data_bytes: block.data_bytes,
            num_reduces: block.num_reduces,
        };
        self.ask(
            ctx,
            me,
            &target,
            move |r| BackendAnswer::Upload(slot, r),
            &t,
            |a| ExecutorMsg::UploadShuffleBlock(a, migrated),
        );
    }

    /// A peer's migrated map output arrives (`putBlockDataAsStream`): refused while this block
    /// manager decommissions; else stored, and reported to the BlockManagerMaster, whose
    /// `updateBlockInfo` moves the map output here.
    pub(super) fn on_upload_shuffle_block(
        &mut self,
        ask: ReplyTo<()>,
        block: MigratedShuffleBlock,
    ) {
        let info: ShuffleBlockInfo = block.info;
        if self.state.refuses_block_uploads() {
            let failure = RpcFailure::new(
                SAVED_ON_DECOMMISSIONED,
                format!(
                    "Block shuffle_{}_{}_0.data cannot be saved on decommissioned executor",
                    info.shuffle_id, info.map_id
                ),
            );
            return self.env.reply_failure(ask, failure);
        }
        if self.conf.keeps_shuffle_files() {
            self.stored_shuffles.push(StoredShuffle {
                info,
                data_bytes: block.data_bytes,
                num_reduces: block.num_reduces,
            });
        }
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateShuffleBlockInfo {
                block_manager: self.block_manager_id(),
                block,
            };
            self.env.send(d, msg);
        }
        self.env.reply(ask, ());
    }
}
