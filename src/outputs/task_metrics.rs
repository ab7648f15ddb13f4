//! The task metrics the event log writes (Spark: `executor/TaskMetrics.scala`,
//! `InternalAccumulator.scala`, `JsonProtocol.taskMetricsToJson`), computed from a small,
//! documented data model when the log is written: nothing is kept per task during the run.
//!
//! The model (every figure is a function of the task's recorded run, its stage's data model and
//! where the map outputs it reads were written):
//! - `executorDeserializeTime` = the executor's launch overhead (`task_launch_overhead_ms`), plus
//!   `first_task_warmup_ms` for the first task an executor runs (class loading), capped at the
//!   task's duration; `executorRunTime` is the rest of the duration. CPU times are the wall times
//!   in ns, the run's CPU time less the fetch wait.
//! - A map task writes its stage's `shuffle_write` bytes/records; its write time (ns) is a 1 ms
//!   commit plus 5 ns per byte (200 MB/s to local disk).
//! - A reduce task reads one block from every map output of its parent stages (when those write
//!   bytes): `bytes_per_task / reduces` bytes and `records_per_task / reduces` records each (a
//!   hot reduce partition, `ShuffleWriteSize.hot`, its weighted share: the exact size
//!   HighlyCompressedMapStatus keeps for blocks above `spark.shuffle.accurateBlockThreshold`). A
//!   block is local when its map task ran on the reducer's executor (host-local reads are not
//!   modelled), remote otherwise; the fetch wait and the remote requests' duration are the
//!   remote bytes at 100 MB/s, capped at the run time.
//! - A task of a stage with input (a HadoopRDD split, a cached RDD block) reads its stage's
//!   `input` bytes/records (`Input Metrics`, `internal.metrics.input.*`), `factor` times them
//!   for a hot task (`InputSize.hot`).
//! - `jvmGCTime` is 1 ms per 10 MB the task moved (read + written); `resultSerializationTime` is
//!   1 ms for an executor's first task (the serializer's warm-up), else 0.
//! - A reduce task aggregates what it reads (groupByKey's `Aggregator.updateMetrics`): its
//!   `memoryBytesSpilled` / `diskBytesSpilled` are reported (0: the model never spills) and its
//!   peak execution memory is the bytes it read.
//!
//! Which accumulators a task reports is Spark's rule (`TaskMetrics.nonZeroInternalAccums`: every
//! accumulator that was added to, plus `resultSize`), so zero figures are left out as Spark does.

pub use crate::record::TaskCostModel;

/// What an executor's task returns to the driver (the executor logs the same figure).
pub const RESULT_SIZE: u64 = 1000;
/// Shuffle write: a file commit, ns.
const WRITE_COMMIT_NS: u64 = 1_000_000;
/// Shuffle write: ns per byte (200 MB/s).
const WRITE_NS_PER_BYTE: u64 = 5;
/// Remote shuffle reads: bytes per ms (100 MB/s).
const FETCH_BYTES_PER_MS: u64 = 100_000;
/// GC: bytes moved per ms of collection (10 MB).
const GC_BYTES_PER_MS: u64 = 10_000_000;

/// `TaskMetrics.nameToAccums` in Spark 4.0's order: the internal accumulators every stage
/// attempt registers (`Stage.makeNewStageAttempt` -> `TaskMetrics.registered`), so their ids are
/// consecutive from the attempt's first id.
pub const ACCUMULATORS: [&str; 37] = [
    "internal.metrics.executorDeserializeTime",
    "internal.metrics.executorDeserializeCpuTime",
    "internal.metrics.executorRunTime",
    "internal.metrics.executorCpuTime",
    "internal.metrics.resultSize",
    "internal.metrics.jvmGCTime",
    "internal.metrics.resultSerializationTime",
    "internal.metrics.memoryBytesSpilled",
    "internal.metrics.diskBytesSpilled",
    "internal.metrics.peakExecutionMemory",
    "internal.metrics.peakOnHeapExecutionMemory",
    "internal.metrics.peakOffHeapExecutionMemory",
    "internal.metrics.updatedBlockStatuses",
    "internal.metrics.shuffle.read.remoteBlocksFetched",
    "internal.metrics.shuffle.read.localBlocksFetched",
    "internal.metrics.shuffle.read.remoteBytesRead",
    "internal.metrics.shuffle.read.remoteBytesReadToDisk",
    "internal.metrics.shuffle.read.localBytesRead",
    "internal.metrics.shuffle.read.fetchWaitTime",
    "internal.metrics.shuffle.read.recordsRead",
    "internal.metrics.shuffle.push.read.corruptMergedBlockChunks",
    "internal.metrics.shuffle.push.read.mergedFetchFallbackCount",
    "internal.metrics.shuffle.push.read.remoteMergedBlocksFetched",
    "internal.metrics.shuffle.push.read.localMergedBlocksFetched",
    "internal.metrics.shuffle.push.read.remoteMergedChunksFetched",
    "internal.metrics.shuffle.push.read.localMergedChunksFetched",
    "internal.metrics.shuffle.push.read.remoteMergedBytesRead",
    "internal.metrics.shuffle.push.read.localMergedBytesRead",
    "internal.metrics.shuffle.read.remoteReqsDuration",
    "internal.metrics.shuffle.push.read.remoteMergedReqsDuration",
    "internal.metrics.shuffle.write.bytesWritten",
    "internal.metrics.shuffle.write.recordsWritten",
    "internal.metrics.shuffle.write.writeTime",
    "internal.metrics.input.bytesRead",
    "internal.metrics.input.recordsRead",
    "internal.metrics.output.bytesWritten",
    "internal.metrics.output.recordsWritten",
];

/// Indices into [`ACCUMULATORS`].
/// `internal.metrics.resultSize`'s index in [`ACCUMULATORS`].
pub const RESULT_SIZE_ACCUM: usize = k::RESULT_SIZE;

mod k {
    pub const DESER: usize = 0;
    pub const DESER_CPU: usize = 1;
    pub const RUN: usize = 2;
    pub const CPU: usize = 3;
    pub const RESULT_SIZE: usize = 4;
    pub const GC: usize = 5;
    pub const RESULT_SER: usize = 6;
    pub const MEM_SPILL: usize = 7;
    pub const DISK_SPILL: usize = 8;
    pub const PEAK: usize = 9;
    pub const PEAK_ON_HEAP: usize = 10;
    pub const READ_FIRST: usize = 13;
    pub const REMOTE_BLOCKS: usize = 13;
    pub const LOCAL_BLOCKS: usize = 14;
    pub const REMOTE_BYTES: usize = 15;
    pub const LOCAL_BYTES: usize = 17;
    pub const FETCH_WAIT: usize = 18;
    pub const RECORDS_READ: usize = 19;
    pub const REMOTE_REQS: usize = 28;
    pub const READ_LAST: usize = 29;
    pub const WRITE_BYTES: usize = 30;
    pub const WRITE_RECORDS: usize = 31;
    pub const WRITE_TIME: usize = 32;
    pub const INPUT_BYTES: usize = 33;
    pub const INPUT_RECORDS: usize = 34;
}

/// A task's metrics: each accumulator's value and whether the task reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskMetrics {
    pub values: [u64; 37],
    /// Bit `i` set: accumulator `i` was added to (Spark sends it even when 0).
    pub reported: u64,
}

impl Default for TaskMetrics {
    fn default() -> Self {
        TaskMetrics {
            values: [0; 37],
            reported: 0,
        }
    }
}

impl TaskMetrics {
    fn set(&mut self, i: usize, v: u64) {
        self.values[i] = v;
        self.reported |= 1 << i;
    }

    /// `set` for an accumulator Spark only sends when non-zero.
    fn set_non_zero(&mut self, i: usize, v: u64) {
        self.values[i] = v;
        if v > 0 {
            self.reported |= 1 << i;
        }
    }

    pub fn is_reported(&self, i: usize) -> bool {
        self.reported & (1 << i) != 0
    }

    pub fn get(&self, i: usize) -> u64 {
        self.values[i]
    }
}

/// The shuffle a reduce task reads: one block per map output of its parent stages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShuffleRead {
    pub local_blocks: u64,
    pub remote_blocks: u64,
    pub local_bytes: u64,
    pub remote_bytes: u64,
    pub records: u64,
}

/// What the model knows of one finished task attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskRun {
    pub duration_ms: u64,
    pub first_on_executor: bool,
    /// The task's output was computed (success); a failed attempt writes nothing.
    pub succeeded: bool,
    /// Bytes and records a map task writes (`None` for a result task).
    pub shuffle_write: Option<(u64, u64)>,
    pub shuffle_read: Option<ShuffleRead>,
    /// Bytes and records the task read from its input (`None`: no input).
    pub input: Option<(u64, u64)>,
    /// The serialized result it sent, when the program gives it (`None`: [`RESULT_SIZE`]).
    pub result_bytes: Option<u64>,
}

/// The model above, for one task.
pub fn task_metrics(run: &TaskRun, costs: &TaskCostModel) -> TaskMetrics {
    let mut m = TaskMetrics::default();
    let warmup = if run.first_on_executor {
        costs.first_task_warmup_ms
    } else {
        0
    };
    let deser = (costs.launch_ms + warmup).min(run.duration_ms);
    let run_ms = run.duration_ms - deser;
    // Executor$TaskRunner.run sets the deserialize times, the CPU time and the result's
    // serialization time only once the task returned; a failed attempt reports what
    // `collectAccumulatorsAndResetStatusOnFailure` sets, its run time and GC time (Spark 4.0.0's
    // jar), every internal accumulator counting failed values.
    if run.succeeded {
        m.set_non_zero(k::DESER, deser);
        m.set_non_zero(k::DESER_CPU, deser * 1_000_000);
    }
    m.set_non_zero(k::RUN, run_ms);
    let mut moved = 0;
    let mut fetch_wait = 0;
    if let (Some(r), true) = (run.shuffle_read, run.succeeded) {
        let (remote_bytes, local_bytes) = (r.remote_bytes, r.local_bytes);
        fetch_wait = (remote_bytes / FETCH_BYTES_PER_MS).min(run_ms);
        for i in k::READ_FIRST..=k::READ_LAST {
            m.set(i, 0);
        }
        m.set(k::REMOTE_BLOCKS, r.remote_blocks);
        m.set(k::LOCAL_BLOCKS, r.local_blocks);
        m.set(k::REMOTE_BYTES, remote_bytes);
        m.set(k::LOCAL_BYTES, local_bytes);
        m.set(k::FETCH_WAIT, fetch_wait);
        m.set(k::RECORDS_READ, r.records);
        m.set(k::REMOTE_REQS, fetch_wait);
        moved += remote_bytes + local_bytes;
        // Aggregator.updateMetrics: spills (none) and the in-memory map's peak.
        m.set(k::MEM_SPILL, 0);
        m.set(k::DISK_SPILL, 0);
        m.set(k::PEAK, remote_bytes + local_bytes);
        m.set_non_zero(k::PEAK_ON_HEAP, remote_bytes + local_bytes);
    }
    if run.succeeded {
        m.set_non_zero(k::CPU, (run_ms - fetch_wait) * 1_000_000);
    }
    let result = run.result_bytes.unwrap_or(RESULT_SIZE);
    m.set(k::RESULT_SIZE, if run.succeeded { result } else { 0 });
    if let (Some((bytes, records)), true) = (run.shuffle_write, run.succeeded) {
        m.set(k::WRITE_BYTES, bytes);
        m.set(k::WRITE_RECORDS, records);
        m.set(k::WRITE_TIME, WRITE_COMMIT_NS + bytes * WRITE_NS_PER_BYTE);
        moved += bytes;
    }
    if let (Some((bytes, records)), true) = (run.input, run.succeeded) {
        // HadoopRDD / RDD.getOrCompute: `setBytesRead` (sent when non-zero) and
        // `incRecordsRead` per record (sent once added to).
        m.set_non_zero(k::INPUT_BYTES, bytes);
        if records > 0 {
            m.set(k::INPUT_RECORDS, records);
        }
        moved += bytes;
    }
    m.set_non_zero(k::GC, moved / GC_BYTES_PER_MS);
    m.set_non_zero(
        k::RESULT_SER,
        u64::from(run.first_on_executor && run.succeeded),
    );
    m
}

/// `shuffleReadMetricsToJson` fields, each with its accumulator.
const SHUFFLE_READ_JSON: &[(&str, usize)] = &[
    ("Remote Blocks Fetched", 13),
    ("Local Blocks Fetched", 14),
    ("Fetch Wait Time", 18),
    ("Remote Bytes Read", 15),
    ("Remote Bytes Read To Disk", 16),
    ("Local Bytes Read", 17),
    ("Total Records Read", 19),
    ("Remote Requests Duration", 28),
];

/// `shufflePushReadMetricsToJson` fields (push-based shuffle is off: all 0).
const SHUFFLE_PUSH_READ_JSON: &[(&str, usize)] = &[
    ("Corrupt Merged Block Chunks", 20),
    ("Merged Fetch Fallback Count", 21),
    ("Merged Remote Blocks Fetched", 22),
    ("Merged Local Blocks Fetched", 23),
    ("Merged Remote Chunks Fetched", 24),
    ("Merged Local Chunks Fetched", 25),
    ("Merged Remote Bytes Read", 26),
    ("Merged Local Bytes Read", 27),
    ("Merged Remote Requests Duration", 29),
];

/// `JsonProtocol.taskMetricsToJson` (Spark 4.0: the push-based metrics under
/// `"Push Based Shuffle"`).
pub fn write_json(o: &mut super::json::Obj<'_>, m: &TaskMetrics) {
    let v = &m.values;
    o.num("Executor Deserialize Time", v[k::DESER])
        .num("Executor Deserialize CPU Time", v[k::DESER_CPU])
        .num("Executor Run Time", v[k::RUN])
        .num("Executor CPU Time", v[k::CPU])
        .num("Peak Execution Memory", v[k::PEAK])
        .num("Peak On Heap Execution Memory", v[k::PEAK_ON_HEAP])
        .num("Peak Off Heap Execution Memory", v[11])
        .num("Result Size", v[k::RESULT_SIZE])
        .num("JVM GC Time", v[k::GC])
        .num("Result Serialization Time", v[k::RESULT_SER])
        .num("Memory Bytes Spilled", v[k::MEM_SPILL])
        .num("Disk Bytes Spilled", v[k::DISK_SPILL]);
    o.obj("Shuffle Read Metrics", |r| {
        for &(name, i) in SHUFFLE_READ_JSON {
            r.num(name, v[i]);
        }
        r.obj("Push Based Shuffle", |p| {
            for &(name, i) in SHUFFLE_PUSH_READ_JSON {
                p.num(name, v[i]);
            }
        });
    });
    o.obj("Shuffle Write Metrics", |w| {
        w.num("Shuffle Bytes Written", v[k::WRITE_BYTES])
            .num("Shuffle Write Time", v[k::WRITE_TIME])
            .num("Shuffle Records Written", v[k::WRITE_RECORDS]);
    });
    o.obj("Input Metrics", |i| {
        i.num("Bytes Read", v[k::INPUT_BYTES])
            .num("Records Read", v[k::INPUT_RECORDS]);
    });
    o.obj("Output Metrics", |w| {
        w.num("Bytes Written", v[35]).num("Records Written", v[36]);
    });
    o.arr("Updated Blocks", |_| {});
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(m: &TaskMetrics) -> Vec<&'static str> {
        (0..ACCUMULATORS.len())
            .filter(|i| m.is_reported(*i))
            .map(|i| ACCUMULATORS[i].trim_start_matches("internal.metrics."))
            .collect()
    }

    // A real Spark 4.0 map task (tests/data/eventlogs/skew_n2_r1.zstd, TID 3) reports these
    // accumulators, in this order (TaskMetrics.nonZeroInternalAccums: jvmGCTime and
    // resultSerializationTime only when non-zero); the spill pair there comes from PythonRunner.
    #[test]
    fn a_map_task_reports_what_spark_reports() {
        let run = TaskRun {
            duration_ms: 1200,
            first_on_executor: false,
            succeeded: true,
            shuffle_write: Some((740, 8)),
            shuffle_read: None,
            input: None,
            result_bytes: None,
        };
        let m = task_metrics(&run, &TaskCostModel::default());
        assert_eq!(
            names(&m),
            [
                "executorDeserializeTime",
                "executorDeserializeCpuTime",
                "executorRunTime",
                "executorCpuTime",
                "resultSize",
                "shuffle.write.bytesWritten",
                "shuffle.write.recordsWritten",
                "shuffle.write.writeTime",
            ]
        );
        assert_eq!(m.get(k::DESER), 5);
        assert_eq!(m.get(k::RUN), 1195);
        assert_eq!(m.get(k::WRITE_TIME), 1_000_000 + 740 * 5);
    }

    // The same log's reduce task (TID 9): all 17 shuffle-read accumulators, zero or not
    // (ShuffleReadMetrics.setMergeValues adds to each), local blocks from its own executor.
    #[test]
    fn a_reduce_task_reports_every_shuffle_read_accumulator() {
        let run = TaskRun {
            duration_ms: 2000,
            first_on_executor: true,
            succeeded: true,
            shuffle_write: None,
            shuffle_read: Some(ShuffleRead {
                local_blocks: 5,
                remote_blocks: 3,
                local_bytes: 5_000_000,
                remote_bytes: 3_000_000,
                records: 16,
            }),
            input: None,
            result_bytes: None,
        };
        let m = task_metrics(&run, &TaskCostModel::default());
        let n = names(&m);
        assert_eq!(n.len(), 4 + 1 + 1 + 2 + 2 + 17);
        assert!(n.contains(&"shuffle.push.read.remoteMergedReqsDuration"));
        assert!(n.contains(&"resultSerializationTime"));
        assert_eq!(m.get(k::REMOTE_BYTES), 3_000_000);
        assert_eq!(m.get(k::LOCAL_BYTES), 5_000_000);
        assert_eq!(m.get(k::RECORDS_READ), 16);
        assert_eq!(m.get(k::FETCH_WAIT), 30);
        assert_eq!(m.get(k::DESER), 355);
        assert_eq!(m.get(k::CPU), (2000 - 355 - 30) * 1_000_000);
    }

    // A real Spark 4.0.0 task reading a text file split (pyspark 4.0.0, local-cluster,
    // `sc.textFile(path, 2).count()`, TID 0): `Input Metrics` {"Bytes Read": 589824,
    // "Records Read": 10107}, and the two `internal.metrics.input.*` accumulables after the
    // times and resultSize (TaskMetrics.nameToAccums' order; HadoopRDD sets bytesRead from the
    // file system's statistics and adds each record).
    #[test]
    fn a_task_reading_input_reports_its_input_metrics() {
        let run = TaskRun {
            duration_ms: 900,
            first_on_executor: false,
            succeeded: true,
            shuffle_write: None,
            shuffle_read: None,
            input: Some((589_824, 10_107)),
            result_bytes: None,
        };
        let m = task_metrics(&run, &TaskCostModel::default());
        assert_eq!(
            names(&m),
            [
                "executorDeserializeTime",
                "executorDeserializeCpuTime",
                "executorRunTime",
                "executorCpuTime",
                "resultSize",
                "input.bytesRead",
                "input.recordsRead",
            ]
        );
        assert_eq!(m.get(k::INPUT_BYTES), 589_824);
        assert_eq!(m.get(k::INPUT_RECORDS), 10_107);
        let mut out = String::new();
        super::super::json::object(&mut out, |o| write_json(o, &m));
        assert!(
            out.contains(r#""Input Metrics":{"Bytes Read":589824,"Records Read":10107}"#),
            "{out}"
        );
        // A failed attempt reports no input (the model's attempts fail before reading).
        let failed = task_metrics(
            &TaskRun {
                succeeded: false,
                ..run
            },
            &TaskCostModel::default(),
        );
        assert!(!failed.is_reported(k::INPUT_BYTES));
    }

    /// Executor$TaskRunner (Spark 4.0.0's jar): a failed attempt's metrics are those
    /// `collectAccumulatorsAndResetStatusOnFailure` sets, run time and GC time; the deserialize
    /// and CPU times are set only on the success path.
    #[test]
    fn a_failed_task_reports_only_its_run_time_and_result_size() {
        let run = TaskRun {
            duration_ms: 3_000,
            first_on_executor: false,
            succeeded: false,
            shuffle_write: Some((10, 1)),
            shuffle_read: None,
            input: None,
            result_bytes: None,
        };
        let m = task_metrics(&run, &TaskCostModel::default());
        assert_eq!(names(&m), ["executorRunTime", "resultSize"]);
        assert_eq!(m.get(k::RESULT_SIZE), 0);
    }

    // Hot partitions (the data model's skew): a hot reduce partition's block is `factor` times
    // the others' in every map output and the blocks still add up to the map task's bytes
    // (rounded down); no skew is `bytes / reduces` exactly as before; a hot input task reads
    // `factor` times the stage's split.
    #[test]
    fn hot_partitions_weigh_their_share() {
        use sparkyard_messages::task::{HotPartitions, InputSize, ShuffleWriteSize};
        let hot = HotPartitions {
            first: 2,
            count: 1,
            factor: 10,
        };
        let w = ShuffleWriteSize {
            bytes_per_task: 13_000,
            records_per_task: 130,
            hot,
        };
        assert_eq!(w.block(0, 4), (1_000, 10));
        assert_eq!(w.block(2, 4), (10_000, 100));
        let sum: u64 = (0..4).map(|r| w.block(r, 4).0).sum();
        assert_eq!(sum, 13_000);
        let even = ShuffleWriteSize {
            hot: HotPartitions::default(),
            ..w
        };
        assert_eq!(even.block(2, 4), (3_250, 32));
        let input = InputSize {
            bytes_per_task: 100,
            records_per_task: 7,
            hot: HotPartitions {
                first: 0,
                count: 2,
                factor: 3,
            },
        };
        assert_eq!(input.of_task(1), (300, 21));
        assert_eq!(input.of_task(2), (100, 7));
        // HadoopRDD's splits follow each other in the file: 0+300, 300+300, 600+100, 700+100.
        let starts: Vec<u64> = (0..4).map(|i| input.split_start(i)).collect();
        assert_eq!(starts, [0, 300, 600, 700]);
    }
}
