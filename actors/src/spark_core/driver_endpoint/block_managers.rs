//! What the driver's BlockManagerMaster and MapOutputTrackerMaster answer through this
//! endpoint: a block manager's re-registration, a migrated shuffle block's update, a cached RDD
//! block's update, a decommissioning executor's peers and a reduce task's map statuses (Spark's
//! `BlockManagerMasterEndpoint.register`, `updateShuffleBlockInfo`, `updateBlockInfo`,
//! `getPeers`, `MapOutputTrackerMasterEndpoint`'s `GetMapOutputStatuses`).

use super::DriverEndpoint;
use crate::info;
use crate::spark_core::block_manager_master::{self, RddBlockId};
use crate::spark_core::executor_env::block_manager_port;
use crate::spark_core::shuffle_block_updates::{self, ShuffleFile};
use crate::spark_core::unified_memory_manager;
use sparkyard_messages::rpc::{ReplyTo, RpcAddress};
use sparkyard_messages::task::{BlockManagerId, BlockManagerPeer, MigratedShuffleBlock};
use std::rc::Rc;

impl DriverEndpoint {
    /// BlockManagerMasterEndpoint's `register` for `isReRegister = true`: taken only while the
    /// backend still has the executor (SPARK-41360, `IsExecutorAlive`), and registered again
    /// when the master had removed it (a fetch failure naming it: the DAGScheduler's
    /// `removeExecutorAndUnregisterOutputs`). Refused: Spark's INFO line, and the `invalid` id
    /// that makes the executor exit 58.
    pub(super) fn on_reregister_block_manager(&mut self, ask: ReplyTo<bool>, id: BlockManagerId) {
        let eid = id.executor_id;
        // The backend's `isExecutorActive`: registered, and not pending removal, its loss
        // reason or decommissioning.
        let alive = self.core.is_active(eid);
        if let Some(line) = block_manager_master::reregister_refusal(&id, eid, alive) {
            info!(
                self.env.log(),
                "driver::BlockManagerMasterEndpoint", "{line}"
            );
        } else if self.scheduler.block_manager_removed(eid) {
            self.register_block_manager(eid, Rc::from(id.host.as_str()));
        }
        self.env.reply(ask, alive);
    }

    /// A peer stored a migrated map output, data block then index block
    /// (`shuffle_block_updates`): the master accepts both (`updateShuffleBlockInfo`) and posts
    /// each as SparkListenerBlockUpdated, the index after it moved the map output
    /// (`MapOutputTrackerMaster.updateMapOutput`). Dynamic allocation's ExecutorMonitor learns
    /// from the data block's update that the receiver holds the shuffle (told directly, as the
    /// management queue would be; the bus records the event only for the event log).
    pub(super) fn update_shuffle_block_info(
        &mut self,
        block: MigratedShuffleBlock,
        at: BlockManagerId,
    ) {
        let receiver = at.executor_id;
        let [data, index] = ShuffleFile::UPLOAD_ORDER;
        self.bus.post_block(None, || {
            shuffle_block_updates::block_updated(&at, &block, data)
        });
        if let Some(m) = &self.allocation {
            let active = self.core.is_active(receiver);
            m.manager()
                .monitor
                .on_shuffle_block_updated(receiver, block.info.shuffle_id, active);
        }
        self.scheduler.update_map_output(block.info, at.clone());
        self.bus.post_block(None, || {
            shuffle_block_updates::block_updated(&at, &block, index)
        });
    }

    /// `BlockManagerMasterEndpoint.getPeers` ([`block_manager_master::get_peers`]) over the
    /// registered executors, each with its block manager's endpoint. A walk over the executors:
    /// only a decommissioning executor asks.
    pub(super) fn block_manager_peers(&self, asker: &BlockManagerId) -> Vec<BlockManagerPeer> {
        let registered = self.core.executor_ids();
        let ids = block_manager_master::get_peers(asker.executor_id, registered, |id| {
            self.core.is_decommissioning(id)
        });
        ids.iter()
            .filter_map(|id| {
                let e = self.core.executors.get(*id)?;
                Some(BlockManagerPeer {
                    id: BlockManagerId {
                        executor_id: *id,
                        host: e.host.to_string(),
                        port: block_manager_port(*id),
                    },
                    endpoint: self.env.remote_ref(e.executor.id),
                })
            })
            .collect()
    }

    /// BlockManagerMasterEndpoint's `updateBlockInfo` for an RDD block a MemoryStore stored,
    /// against the executor's storage memory (`UnifiedMemoryManager`'s maximum).
    pub(super) fn update_rdd_block_info(
        &mut self,
        block_manager: &BlockManagerId,
        block: RddBlockId,
        mem_size: u64,
    ) {
        let max = unified_memory_manager::max_memory(self.sim.config.spark.executor_memory_mb);
        self.scheduler
            .update_rdd_block_info(block_manager, block, mem_size, max)
    }

    /// MapOutputTrackerMasterEndpoint.receiveAndReply's `GetMapOutputStatuses` (Spark 4.0.0's
    /// jar): the sender's address is the connection's remote end, the executor's IP.
    pub(super) fn get_map_output_statuses(&self, shuffle_id: u32, sender: &RpcAddress) {
        info!(
            self.env.log(),
            "driver::MapOutputTrackerMasterEndpoint",
            "Asked to send map output locations for shuffle {shuffle_id} to {}:{}",
            self.sim.host_ip(&sender.host),
            sender.port
        );
    }
}
