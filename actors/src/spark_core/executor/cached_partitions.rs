//! A task's cached RDD partition: read here, fetched from a peer, or computed and stored in the
//! MemoryStore and reported to the BlockManagerMaster (Spark's `RDD.getOrCompute` ->
//! `BlockManager.getOrElseUpdate`, `MemoryStore.putIteratorAsValues`).

use super::CoarseGrainedExecutorBackend;
use crate::spark_core::block_manager::{
    CachedRead, RddBlocks, RddPut, connect_refused, replayed_computed_rdds,
};
use crate::spark_core::block_manager_master::RddBlockId;
use crate::spark_core::unified_memory_manager::max_memory;
use crate::{info, warn};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::task::{TaskDescription, TaskWork};

impl CoarseGrainedExecutorBackend {
    /// `RDD.getOrCompute` -> `BlockManager.getOrElseUpdate(rdd_<rdd>_<partition>)` for a task
    /// over a cached RDD: a block in this executor's MemoryStore is read locally; one the
    /// BlockManagerMaster placed on another live executor is fetched (`getRemoteValues`, at the
    /// shuffle fetch throughput, not stored here: MEMORY_ONLY keeps one replica); otherwise the
    /// partition is computed and stored when the task ends. Returns the task's time and whether
    /// it stores the block. One enum test for any other task.
    pub(super) fn read_cached_partition(
        &self,
        desc: &TaskDescription,
        work_ms: u64,
    ) -> (u64, bool) {
        let read = match &desc.work {
            TaskWork::CachedRdd(read) => read,
            // A replayed task keeps its recorded time; it stores what no one held at launch.
            TaskWork::Replayed { cache: Some(c), .. } => return (work_ms, c.missing > 0),
            _ => return (work_ms, false),
        };
        // (An empty store allocates nothing; the launch made sure the Executor exists.)
        let none_held = RddBlocks::default();
        let held = self.executor.as_ref().map_or(&none_held, |e| &e.rdd_blocks);
        let block = RddBlockId {
            rdd_id: read.rdd_id,
            partition: desc.partition_id,
        };
        let port = self.sim.config.spark.shuffle.service_port;
        let latency = self.sim.config.costs.network_latency_ms;
        let found = held.get_or_compute(block, read, self.args.executor_id, latency, |bm| {
            self.sim.block_server_reachable(bm, port)
        });
        let log = self.env.log();
        match found {
            CachedRead::Local => {
                info!(log, "executor::BlockManager", "Found block {block} locally");
            }
            CachedRead::Remote { .. } => {
                info!(
                    log,
                    "executor::BlockManager", "Found block {block} remotely"
                );
            }
            CachedRead::Compute {
                unreachable: Some(bm),
                ..
            } => {
                // `fetchBlockSync` waits in `ThreadUtils.awaitResult`, which wraps the
                // fetch's failure (the 4.0.0 jar's SparkThreadUtils).
                let ip = self.sim.host_ip(&bm.host);
                let refused = crate::rpc::awaited(connect_refused(&bm.host, &ip, bm.port));
                warn!(
                    log,
                    "executor::BlockManager",
                    "Failed to fetch remote block {block} from [{bm}] (failed attempt 1)\n{}",
                    refused.stack_text()
                )
            }
            CachedRead::Compute { .. } => {}
        }
        (work_ms + found.extra_ms(), found.stores_block())
    }

    /// `MemoryStore.putIteratorAsValues` of a computed partition, then the block manager's
    /// `UpdateBlockInfo` to the BlockManagerMaster (`tellMaster`).
    pub(super) fn store_cached_partition(&mut self, desc: &TaskDescription) {
        let partition = desc.partition_id;
        match &desc.work {
            TaskWork::CachedRdd(read) => {
                let block = RddBlockId {
                    rdd_id: read.rdd_id,
                    partition,
                };
                self.put_rdd_block(block, read.block_bytes);
            }
            TaskWork::Replayed { cache: Some(c), .. } => {
                for &rdd_id in replayed_computed_rdds(c) {
                    // Another copy of the task may have stored it here since this one launched.
                    self.register_rdd_block(RddBlockId { rdd_id, partition }, 0);
                }
            }
            _ => {}
        }
    }

    /// `MemoryStore.putIteratorAsValues` of an RDD block (computed here or replicated from a
    /// peer; see [`RddBlocks::put`]), then the block manager's `UpdateBlockInfo` to the
    /// BlockManagerMaster (`tellMaster`). Returns whether the block is in the store.
    pub(super) fn put_rdd_block(&mut self, block: RddBlockId, size: u64) -> bool {
        let Some(executor) = self.executor.as_mut() else {
            return false;
        };
        let capacity = max_memory(self.sim.config.spark.executor_memory_mb);
        let log = self.env.log();
        match executor.rdd_blocks.put(block, size, capacity) {
            RddPut::AlreadyHeld => return true,
            RddPut::NoSpace { used, capacity } => {
                // The task goes on with the values it unrolled.
                let computed = bytes_to_string(capacity - used);
                warn!(
                    log,
                    "executor::MemoryStore",
                    "Not enough space to cache {block} in memory! (computed {computed} so far)"
                );
                info!(
                    log,
                    "executor::MemoryStore",
                    "Memory use = {} (blocks) + {computed} (scratch space shared across 1 tasks(s)) = {}. Storage limit = {}.",
                    bytes_to_string(used),
                    bytes_to_string(capacity),
                    bytes_to_string(capacity)
                );
                return false;
            }
            RddPut::Stored => {}
        }
        if let Some(blocks) = executor.blocks.as_mut() {
            blocks.store.put_values(log, &block.to_string(), size);
        }
        self.report_rdd_block(block, size);
        true
    }

    /// A replayed task's block, kept if not held yet. Its level and size are the recording's,
    /// which the log does not give per block: it is kept at size 0, with no MemoryStore line.
    fn register_rdd_block(&mut self, block: RddBlockId, size: u64) {
        let kept = self
            .executor
            .as_mut()
            .is_some_and(|e| e.rdd_blocks.insert_new(block, size));
        if kept {
            self.report_rdd_block(block, size);
        }
    }

    /// The block manager's `UpdateBlockInfo` of a block it now holds, to the BlockManagerMaster.
    fn report_rdd_block(&self, block: RddBlockId, size: u64) {
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateRddBlockInfo {
                block_manager: self.block_manager_id(),
                rdd_id: block.rdd_id,
                partition: block.partition,
                mem_size: size,
            };
            self.env.send(d, msg);
        }
    }
}
