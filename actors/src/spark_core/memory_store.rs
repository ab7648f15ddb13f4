//! A block manager's `MemoryStore` (Spark: `storage/memory/MemoryStore.scala`) as far as its
//! log shows it, and the `TorrentBroadcast` of each stage's task binary (Spark:
//! `broadcast/TorrentBroadcast.scala`, written by `DAGScheduler.submitMissingTasks`, read by an
//! executor's first task of the stage).
//!
//! The store is created on its first block (the `MemoryStore started with capacity` line comes
//! with the first broadcast, on the driver and on each executor, as a real Spark 4.0 logs it);
//! its capacity is `UnifiedMemoryManager.getMaxMemory`. Blocks are never removed: Spark's
//! ContextCleaner removes a broadcast once the JVM's garbage collector finds it unreachable (at
//! the latest at `spark.cleaner.periodicGC.interval`, 30 min), which sparkyard does not
//! simulate. Nothing of that shows at INFO in Spark 4.0.0 (read in its jar's bytecode):
//! ContextCleaner's `Cleaned broadcast/shuffle/accumulator N`, BlockManagerInfo's `Added` /
//! `Removed ... in memory on`, BlockManager's `Removing broadcast N`, the storage endpoint's
//! `removing broadcast N` and MemoryStore's removal are all `logDebug`; a real SparkPi prints
//! none of them. What differs is the `free` figure after such a removal in a long application.
//!
//! Sizes: a task binary's broadcast holds the stage's serialized RDD and function; sparkyard
//! logs the sizes of Spark 4.0.0's SparkPi for every stage (4048 B as values, 2267 B as its one
//! lz4 piece: `4.0 KiB` and `2.2 KiB` in the log). Measured on a real run: SparkPi.scala of
//! Spark 4.0.0 compiled with Scala 2.13.16 (the compiler in pyspark 4.0.0's jars; Maven
//! Central, which has the examples jar, cannot be reached from here), run by pyspark 4.0.0's
//! spark-submit on `local-cluster[2,1,1024]`; the piece's size from the event log's
//! `SparkListenerBlockUpdated` (`spark.eventLog.logBlockUpdates.enabled`), the value's from
//! `MemoryStore.getSize` read by a listener at the job's end. The same at 2 and 10 slices (the
//! range is transient in ParallelCollectionRDD, so the binary does not grow with it).

use crate::info;
use crate::kernel::logs::{Level, ProcessLog};
use sparkyard_messages::jvm_text::bytes_to_string;

/// The estimated in-memory size of a stage's task binary (`SizeEstimator` of the byte array):
/// Spark 4.0.0's SparkPi.
pub const TASK_BINARY_VALUES_BYTES: u64 = 4048;
/// Its one piece, compressed (`spark.broadcast.compress`, lz4): Spark 4.0.0's SparkPi.
pub const TASK_BINARY_PIECE_BYTES: u64 = 2267;
/// `spark.broadcast.blockSize` (4m): the "estimated total size" of a one-piece broadcast.
pub const BROADCAST_BLOCK_SIZE: u64 = 4 << 20;

/// The loggers of one JVM's store and broadcasts (`<process kind>::<Spark logger>`).
#[derive(Clone, Copy)]
pub struct StoreTargets {
    pub memory_store: &'static str,
    pub torrent_broadcast: &'static str,
}

pub const DRIVER_STORE: StoreTargets = StoreTargets {
    memory_store: "driver::MemoryStore",
    torrent_broadcast: "driver::TorrentBroadcast",
};

pub const EXECUTOR_STORE: StoreTargets = StoreTargets {
    memory_store: "executor::MemoryStore",
    torrent_broadcast: "executor::TorrentBroadcast",
};

/// One block manager's memory store.
pub struct MemoryStore {
    targets: StoreTargets,
    capacity: u64,
    used: u64,
    started: bool,
}

impl MemoryStore {
    pub fn new(targets: StoreTargets, capacity: u64) -> Self {
        MemoryStore {
            targets,
            capacity,
            used: 0,
            started: false,
        }
    }

    /// `putIteratorAsValues` of a deserialized block.
    pub fn put_values(&mut self, log: &ProcessLog, block: &str, size: u64) {
        self.put(log, block, size, "values");
    }

    /// `putBytes` of a serialized block.
    pub fn put_bytes(&mut self, log: &ProcessLog, block: &str, size: u64) {
        self.put(log, block, size, "bytes");
    }

    fn put(&mut self, log: &ProcessLog, block: &str, size: u64, form: &str) {
        let t = self.targets.memory_store;
        if !self.started {
            self.started = true;
            info!(
                log,
                t,
                "MemoryStore started with capacity {}",
                bytes_to_string(self.capacity)
            );
        }
        self.used = self.used.saturating_add(size);
        if !log.enabled(t, Level::Info) {
            return;
        }
        info!(
            log,
            t,
            "Block {block} stored as {form} in memory (estimated size {}, free {})",
            bytes_to_string(size),
            bytes_to_string(self.capacity.saturating_sub(self.used))
        );
    }

    /// `MemoryStore.remove` (`BlockManager.removeBlock`): the block's memory is free again.
    pub fn remove(&mut self, log: &ProcessLog, block: &str, size: u64) {
        self.used = self.used.saturating_sub(size);
        crate::debug!(
            log,
            self.targets.memory_store,
            "Block {block} of size {size} dropped from memory (free {})",
            self.capacity.saturating_sub(self.used)
        );
    }

    /// `TorrentBroadcast.writeBlocks` on the driver, then `SparkContext.broadcast`'s line: the
    /// task binary of a stage attempt becomes broadcast `id`.
    pub fn write_task_binary(&mut self, log: &ProcessLog, id: u32) {
        self.put_values(log, &format!("broadcast_{id}"), TASK_BINARY_VALUES_BYTES);
        self.put_bytes(
            log,
            &format!("broadcast_{id}_piece0"),
            TASK_BINARY_PIECE_BYTES,
        );
        info!(
            log,
            "driver::SparkContext",
            "Created broadcast {id} from broadcast at DAGScheduler.scala:1676"
        );
    }

    /// `TorrentBroadcast.readBroadcastBlock` on an executor: the piece is fetched from the
    /// driver's block manager (`connect` logs the connection the first fetch opens), stored,
    /// then the value. `took_ms` is the fetch's time.
    pub fn read_task_binary(
        &mut self,
        log: &ProcessLog,
        id: u32,
        took_ms: u64,
        connect: impl FnOnce(&ProcessLog),
    ) {
        let t = self.targets.torrent_broadcast;
        info!(
            log,
            t,
            "Started reading broadcast variable {id} with 1 pieces (estimated total size {})",
            bytes_to_string(BROADCAST_BLOCK_SIZE)
        );
        connect(log);
        self.put_bytes(
            log,
            &format!("broadcast_{id}_piece0"),
            TASK_BINARY_PIECE_BYTES,
        );
        info!(log, t, "Reading broadcast variable {id} took {took_ms} ms");
        self.put_values(log, &format!("broadcast_{id}"), TASK_BINARY_VALUES_BYTES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn lines(store: &Rc<RefCell<LogStore>>, key: &str) -> Vec<String> {
        let s = store.borrow();
        let out = s.output(key).expect("logged");
        out.stderr
            .lines()
            .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l).to_string())
            .collect()
    }

    /// The driver's lines of a real Spark 4.0.0 SparkPi (its SparkPi.scala compiled with Scala
    /// 2.13.16, pyspark 4.0.0's spark-submit, local-cluster, 1g driver), copied from its log:
    /// `MemoryStore started with capacity 434.4 MiB` only before the first block, then the
    /// value, the piece and SparkContext's line (DAGScheduler.scala:1676 in 4.0.0).
    #[test]
    fn the_driver_starts_its_store_with_the_first_task_binary() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        let mut ms = MemoryStore::new(DRIVER_STORE, 455_501_414);
        ms.write_task_binary(&log, 0);
        ms.write_task_binary(&log, 1);
        let l = lines(&store, "driver");
        assert_eq!(
            l[..4],
            [
                "INFO MemoryStore: MemoryStore started with capacity 434.4 MiB",
                "INFO MemoryStore: Block broadcast_0 stored as values in memory (estimated size 4.0 KiB, free 434.4 MiB)",
                "INFO MemoryStore: Block broadcast_0_piece0 stored as bytes in memory (estimated size 2.2 KiB, free 434.4 MiB)",
                "INFO SparkContext: Created broadcast 0 from broadcast at DAGScheduler.scala:1676",
            ]
        );
        assert_eq!(l.len(), 7, "one start line: {l:?}");
    }

    /// An executor's first task of a stage (real Spark 4.0.0 SparkPi executor stderr, 1g
    /// executor: capacity 434.4 MiB): the read starts, the first fetch's connection, the store
    /// starts, the piece, the time, the value.
    #[test]
    fn an_executor_reads_a_task_binary_in_spark_4_0s_order() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("exec", store.clone());
        let mut ms = MemoryStore::new(EXECUTOR_STORE, 455_501_414);
        ms.read_task_binary(&log, 0, 539, |log| {
            info!(log, "executor::TransportClientFactory", "connected")
        });
        assert_eq!(
            lines(&store, "exec"),
            [
                "INFO TorrentBroadcast: Started reading broadcast variable 0 with 1 pieces (estimated total size 4.0 MiB)",
                "INFO TransportClientFactory: connected",
                "INFO MemoryStore: MemoryStore started with capacity 434.4 MiB",
                "INFO MemoryStore: Block broadcast_0_piece0 stored as bytes in memory (estimated size 2.2 KiB, free 434.4 MiB)",
                "INFO TorrentBroadcast: Reading broadcast variable 0 took 539 ms",
                "INFO MemoryStore: Block broadcast_0 stored as values in memory (estimated size 4.0 KiB, free 434.4 MiB)",
            ]
        );
    }
}
