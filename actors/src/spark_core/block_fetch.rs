//! What a reduce task's `ShuffleBlockFetcherIterator` (Spark: `storage/
//! ShuffleBlockFetcherIterator.scala`) decides before it fetches: which non-empty blocks are
//! local, host-local or remote (`partitionBlocksByFetchMode`, its `Getting ...` line), how the
//! remote ones group into requests (`collectFetchRequests`) and how many of those go out at once
//! (`fetchUpToMaxBytes`, its `Started N remote fetches` line). Plain functions over the task's
//! read plan; the executor logs what they return.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::task::{BlockManagerId, ShuffleReadPlan};

/// `spark.reducer.maxSizeInFlight`'s default (48m); sparkyard does not read the key.
pub const MAX_BYTES_IN_FLIGHT: u64 = 48 << 20;

/// Blocks of one fetch mode: how many, how many bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCount {
    pub blocks: u32,
    pub bytes: u64,
}

impl BlockCount {
    fn add(&mut self, blocks: u32, bytes: u64) {
        self.blocks += blocks;
        self.bytes += bytes;
    }
}

/// The remote blocks one server holds for this reduce partition (equal sizes: a
/// HighlyCompressedMapStatus's average).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteBlocks<'a> {
    pub location: &'a BlockManagerId,
    pub blocks: u32,
    pub bytes: u64,
}

/// `partitionBlocksByFetchMode`'s split of the non-empty blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchSplit<'a> {
    pub local: BlockCount,
    pub host_local: BlockCount,
    pub remote: Vec<RemoteBlocks<'a>>,
}

impl FetchSplit<'_> {
    fn remote_count(&self) -> BlockCount {
        let mut c = BlockCount::default();
        for r in &self.remote {
            c.add(r.blocks, r.bytes);
        }
        c
    }

    /// ShuffleBlockFetcherIterator's INFO line (Spark 4.0.0's jar; push-merged blocks are
    /// never there: push-based shuffle is off on YARN by default).
    pub fn getting_line(&self) -> String {
        let remote = self.remote_count();
        let total = self.local.blocks + self.host_local.blocks + remote.blocks;
        let bytes = self.local.bytes + self.host_local.bytes + remote.bytes;
        format!(
            "Getting {total} ({}) non-empty blocks including {} ({}) local and {} ({}) \
             host-local and 0 (0.0 B) push-merged-local and {} ({}) remote blocks",
            bytes_to_string(bytes),
            self.local.blocks,
            bytes_to_string(self.local.bytes),
            self.host_local.blocks,
            bytes_to_string(self.host_local.bytes),
            remote.blocks,
            bytes_to_string(remote.bytes),
        )
    }
}

/// `partitionBlocksByFetchMode`: a block this executor wrote is local (`localExecIds`), one
/// another executor of this host wrote is host-local (the BlockManager has a
/// `hostLocalDirManager` as `spark.shuffle.readHostLocalDisk` is true by default), the rest
/// remote. With the external shuffle service the location names the writing executor too.
pub fn split<'a>(plan: &'a ShuffleReadPlan, me: ExecutorId, host: &str) -> FetchSplit<'a> {
    let mut out = FetchSplit::default();
    for src in plan.sources.iter().filter(|s| s.non_empty_blocks > 0) {
        let (n, bytes) = (src.non_empty_blocks, src.non_empty_bytes);
        if src.location.executor_id == me {
            out.local.add(n, bytes);
        } else if src.location.host == host {
            out.host_local.add(n, bytes);
        } else {
            out.remote.push(RemoteBlocks {
                location: &src.location,
                blocks: n,
                bytes,
            });
        }
    }
    out
}

/// The requests `fetchUpToMaxBytes` sends during `initialize`, and the servers they go to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitialRequests<'a> {
    pub count: u32,
    pub peers: Vec<&'a BlockManagerId>,
}

/// `collectFetchRequests` closes a request once its size reaches `targetRemoteRequestSize`
/// (`max(maxBytesInFlight / 5, 1)`); `fetchUpToMaxBytes` then sends requests while the bytes in
/// flight stay within `maxBytesInFlight` (the first always goes). Spark sends them in
/// `Utils.randomize` order; here they go in the plan's order, which gives the same count
/// whenever the requests are of one size or all fit.
pub fn initial_requests<'a>(
    remote: &[RemoteBlocks<'a>],
    max_in_flight: u64,
) -> InitialRequests<'a> {
    let target = (max_in_flight / 5).max(1);
    let mut out = InitialRequests::default();
    let mut in_flight = 0u64;
    for r in remote {
        let block = r.bytes / u64::from(r.blocks.max(1));
        // Blocks per request: enough to reach the target size.
        let per_request = target.div_ceil(block.max(1)).clamp(1, u64::from(r.blocks)) as u32;
        let mut left = r.blocks;
        while left > 0 {
            let n = per_request.min(left);
            let size = u64::from(n) * block;
            if in_flight > 0 && in_flight + size > max_in_flight {
                return out;
            }
            in_flight += size;
            left -= n;
            out.count += 1;
            if out.peers.last() != Some(&r.location) {
                out.peers.push(r.location);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::task::FetchSource;

    fn source(e: u32, host: &str, blocks: u32, bytes: u64) -> FetchSource {
        FetchSource {
            location: BlockManagerId {
                executor_id: ExecutorId(e),
                host: host.into(),
                port: 38000 + e as u16,
            },
            first_map_index: 0,
            first_map_id: 0,
            blocks,
            non_empty_blocks: if bytes > 0 { blocks } else { 0 },
            non_empty_bytes: bytes,
        }
    }

    fn plan(sources: Vec<FetchSource>) -> ShuffleReadPlan {
        ShuffleReadPlan {
            shuffle_id: 0,
            epoch: 1,
            sources,
            missing_map: None,
            bytes_per_reduce: 0,
        }
    }

    /// A real Spark 4.0.0 run (pyspark's spark-submit, `local-cluster[2,1,1024]`, a groupByKey
    /// of 4 maps into 2 reduces; local-cluster sets `spark.shuffle.readHostLocalDisk=false`,
    /// so the other executor's blocks on the same host were remote there): executor 0 logged
    /// `Getting 4 (1838.0 B) non-empty blocks including 2 (858.0 B) local and 0 (0.0 B)
    /// host-local and 0 (0.0 B) push-merged-local and 2 (980.0 B) remote blocks` and `Started 1
    /// remote fetches`. ShuffleBlockFetcherIterator.partitionBlocksByFetchMode / initialize.
    #[test]
    fn getting_line_and_remote_fetches_as_spark_logs_them() {
        let p = plan(vec![source(0, "a", 2, 858), source(1, "b", 2, 980)]);
        let s = split(&p, ExecutorId(0), "a");
        assert_eq!(
            s.getting_line(),
            "Getting 4 (1838.0 B) non-empty blocks including 2 (858.0 B) local and 0 (0.0 B) \
             host-local and 0 (0.0 B) push-merged-local and 2 (980.0 B) remote blocks"
        );
        let r = initial_requests(&s.remote, MAX_BYTES_IN_FLIGHT);
        assert_eq!(r.count, 1);
        assert_eq!(r.peers.len(), 1);
    }

    /// partitionBlocksByFetchMode: another executor's blocks on this host are host-local (the
    /// `hostLocalDirManager` branch), and a map output with no bytes for this reduce partition
    /// is not a block to get.
    #[test]
    fn same_host_is_host_local_and_empty_blocks_are_skipped() {
        let p = plan(vec![
            source(1, "a", 3, 300),
            source(2, "a", 2, 200),
            source(3, "b", 5, 0),
        ]);
        let s = split(&p, ExecutorId(1), "a");
        assert_eq!(
            s.local,
            BlockCount {
                blocks: 3,
                bytes: 300
            }
        );
        assert_eq!(
            s.host_local,
            BlockCount {
                blocks: 2,
                bytes: 200
            }
        );
        assert!(s.remote.is_empty());
        assert_eq!(initial_requests(&s.remote, MAX_BYTES_IN_FLIGHT).count, 0);
    }

    /// collectFetchRequests / fetchUpToMaxBytes: with 48m in flight a request closes at 9.6 MiB
    /// (`maxBytesInFlight / 5`) and requests go out while 48 MiB are not passed: 10 blocks of 4
    /// MiB on one server are 3+3+3+1 blocks, of which the first four requests (40 MiB) fit.
    /// 20 such blocks make 7 requests, 4 of them sent first (the fifth would pass 48 MiB).
    #[test]
    fn requests_split_at_a_fifth_and_stop_at_max_in_flight() {
        let mib = 1u64 << 20;
        let p = plan(vec![source(1, "b", 10, 40 * mib)]);
        let s = split(&p, ExecutorId(0), "a");
        assert_eq!(initial_requests(&s.remote, MAX_BYTES_IN_FLIGHT).count, 4);
        let p = plan(vec![source(1, "b", 20, 80 * mib)]);
        let s = split(&p, ExecutorId(0), "a");
        assert_eq!(initial_requests(&s.remote, MAX_BYTES_IN_FLIGHT).count, 4);
    }
}
