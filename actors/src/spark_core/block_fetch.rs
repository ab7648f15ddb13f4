//! What a reduce task's `ShuffleBlockFetcherIterator` (Spark: `storage/
//! ShuffleBlockFetcherIterator.scala`) decides before it fetches: which non-empty blocks are
//! local, host-local or remote (`partitionBlocksByFetchMode`, its `Getting ...` line), how the
//! remote ones group into requests (`collectFetchRequests` / `createFetchRequests`) and how many
//! of those go out at once or are deferred (`fetchUpToMaxBytes`, its `Started N remote fetches`
//! line), under the limits of [`FetchSettings`] (`spark.reducer.*`,
//! `spark.shuffle.readHostLocalDisk`), and whether the fetch fails before the task's work (a
//! missing map output, a server that never answers: `FetchFailed`). Plain functions over the
//! task's read plan; the executor logs what they return.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::task::{BlockManagerId, FetchFailure, FetchSource, ShuffleReadPlan};

use crate::world::config::FetchSettings;

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

/// `partitionBlocksByFetchMode`: a block this executor wrote is local (`localExecIds`); one
/// another executor of this host wrote is host-local when the BlockManager has a
/// `hostLocalDirManager` (BlockManager.initialize: `spark.shuffle.readHostLocalDisk`, true by
/// default; sparkyard reads neither `spark.shuffle.useOldFetchProtocol` nor push-based
/// shuffle, the other two terms), remote otherwise. With the external shuffle service the
/// location names the writing executor too.
pub fn split<'a>(
    plan: &'a ShuffleReadPlan,
    me: ExecutorId,
    host: &str,
    read_host_local_disk: bool,
) -> FetchSplit<'a> {
    let mut out = FetchSplit::default();
    for src in plan.sources.iter().filter(|s| s.non_empty_blocks > 0) {
        let (n, bytes) = (src.non_empty_blocks, src.non_empty_bytes);
        match fetch_mode(src, me, host, read_host_local_disk) {
            FetchMode::Local => out.local.add(n, bytes),
            FetchMode::HostLocal => out.host_local.add(n, bytes),
            FetchMode::Remote => out.remote.push(RemoteBlocks {
                location: &src.location,
                blocks: n,
                bytes,
            }),
        }
    }
    out
}

/// How `partitionBlocksByFetchMode` reads a source's blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FetchMode {
    /// Written by the reading executor: read from its own disk.
    Local,
    /// Written by another executor of the reading host: read from disk
    /// (`spark.shuffle.readHostLocalDisk`).
    HostLocal,
    /// Fetched from a server over the network.
    Remote,
}

/// [`FetchMode`] of `src` for executor `me` on `host`.
pub fn fetch_mode(
    src: &FetchSource,
    me: ExecutorId,
    host: &str,
    read_host_local_disk: bool,
) -> FetchMode {
    if src.location.executor_id == me {
        FetchMode::Local
    } else if read_host_local_disk && src.location.host == host {
        FetchMode::HostLocal
    } else {
        FetchMode::Remote
    }
}

/// The first source whose non-empty blocks executor `me` on `host` fetches from a server:
/// where an injected fetch failure (the `fetch-failure` fault: a server that does not answer)
/// can happen. Local and host-local blocks never go to a server.
pub fn first_remote<'a>(
    plan: &'a ShuffleReadPlan,
    me: ExecutorId,
    host: &str,
    read_host_local_disk: bool,
) -> Option<&'a FetchSource> {
    plan.sources.iter().find(|s| {
        s.non_empty_blocks > 0 && fetch_mode(s, me, host, read_host_local_disk) == FetchMode::Remote
    })
}

/// What `fetchUpToMaxBytes` does with the requests during `initialize`: how many it sends,
/// how many it defers (their address would pass `maxBlocksInFlightPerAddress`), and the
/// servers the sent ones go to (in order, each once in a row).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitialRequests<'a> {
    pub sent: u32,
    pub deferred: u32,
    pub peers: Vec<&'a BlockManagerId>,
}

impl InitialRequests<'_> {
    /// `initialize`'s INFO line after the first `fetchUpToMaxBytes` (Spark 4.0.0's jar:
    /// `Started $numFetches remote fetches in <Utils.getUsedTimeNs>` and, when some were
    /// deferred, `, deferred $numDeferredRequest requests`).
    pub fn started_line(&self, took_ms: u64) -> String {
        let mut line = format!("Started {} remote fetches in {took_ms} ms", self.sent);
        if self.deferred > 0 {
            line.push_str(&format!(", deferred {} requests", self.deferred));
        }
        line
    }
}

/// One server's requests as `collectFetchRequests` builds them from blocks of one size: a
/// request closes once it holds `targetRemoteRequestSize` (`max(maxBytesInFlight / 5, 1)`)
/// bytes or `maxBlocksInFlightPerAddress` blocks (no batch fetch: `createFetchRequests` then
/// makes exactly one request of them); the blocks left make the last request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ServerRequests {
    /// Blocks (and bytes) of each full request, and how many full requests.
    full_blocks: u32,
    full_bytes: u64,
    full: u32,
    /// The last, smaller request's blocks (0: none).
    last_blocks: u32,
    last_bytes: u64,
}

impl ServerRequests {
    fn of(r: &RemoteBlocks<'_>, f: &FetchSettings) -> ServerRequests {
        let target = (f.max_bytes_in_flight / 5).max(1) as u64;
        let blocks = r.blocks.max(1);
        let block = r.bytes / u64::from(blocks);
        let per_request = target
            .div_ceil(block.max(1))
            .min(u64::from(f.max_blocks_in_flight_per_address))
            .clamp(1, u64::from(blocks)) as u32;
        let last_blocks = blocks % per_request;
        ServerRequests {
            full_blocks: per_request,
            full_bytes: u64::from(per_request) * block,
            full: blocks / per_request,
            last_blocks,
            last_bytes: u64::from(last_blocks) * block,
        }
    }
}

/// `fetchUpToMaxBytes`' state while `initialize` sends: bytes and requests in flight.
struct InFlight<'f> {
    limits: &'f FetchSettings,
    bytes: u64,
    reqs: i64,
}

impl InFlight<'_> {
    /// `isRemoteBlockFetchable`: nothing in flight, or one more request within
    /// `maxReqsInFlight` and its bytes within `maxBytesInFlight`.
    fn fetchable(&self, size: u64) -> bool {
        self.bytes == 0
            || (self.reqs < i64::from(self.limits.max_reqs_in_flight)
                && i128::from(self.bytes) + i128::from(size)
                    <= i128::from(self.limits.max_bytes_in_flight))
    }
}

/// One request `collectFetchRequests` built: the server it goes to (an index into the remote
/// blocks), its blocks and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FetchRequest {
    server: usize,
    blocks: u32,
    bytes: u64,
}

/// Every server's requests (see [`ServerRequests`]), server after server.
fn fetch_requests(remote: &[RemoteBlocks<'_>], limits: &FetchSettings) -> Vec<FetchRequest> {
    let mut out = Vec::new();
    for (server, r) in remote.iter().enumerate() {
        let reqs = ServerRequests::of(r, limits);
        let full = FetchRequest {
            server,
            blocks: reqs.full_blocks,
            bytes: reqs.full_bytes,
        };
        out.extend(std::iter::repeat_n(full, reqs.full as usize));
        if reqs.last_blocks > 0 {
            out.push(FetchRequest {
                server,
                blocks: reqs.last_blocks,
                bytes: reqs.last_bytes,
            });
        }
    }
    out
}

/// `Utils.randomizeInPlace` (Spark 4.0.0's jar: from the last index down to 1, swap with
/// `rand.nextInt(i + 1)`), drawing from a splitmix64 stream of `seed` where Spark's `new
/// Random` is unseeded, so a run repeats itself.
fn randomize_in_place<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    for i in (1..items.len()).rev() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        items.swap(i, (z % (i as u64 + 1)) as usize);
    }
}

/// The requests `fetchUpToMaxBytes` sends during `initialize`, those it defers, and the
/// servers they go to. Requests are built per server by `collectFetchRequests` (see
/// [`ServerRequests`]) and queued in `Utils.randomize` order (`fetchRequests ++=
/// Utils.randomize(remoteRequests)`, drawn from `order_seed`: the run's seed and the task);
/// sending stops at the first one `isRemoteBlockFetchable` refuses, and a request whose
/// address would pass `maxBlocksInFlightPerAddress` (`isRemoteAddressMaxedOut`) is deferred.
pub fn initial_requests<'a>(
    remote: &[RemoteBlocks<'a>],
    limits: &FetchSettings,
    order_seed: u64,
) -> InitialRequests<'a> {
    let mut out = InitialRequests::default();
    let mut flight = InFlight {
        limits,
        bytes: 0,
        reqs: 0,
    };
    let mut requests = fetch_requests(remote, limits);
    randomize_in_place(&mut requests, order_seed);
    // `numBlocksInFlightPerAddress`, per server.
    let mut address_blocks = vec![0u64; remote.len()];
    for req in requests {
        if !flight.fetchable(req.bytes) {
            break;
        }
        let in_flight = &mut address_blocks[req.server];
        if *in_flight + u64::from(req.blocks) > u64::from(limits.max_blocks_in_flight_per_address) {
            out.deferred += 1;
            continue;
        }
        *in_flight += u64::from(req.blocks);
        flight.bytes += req.bytes;
        flight.reqs += 1;
        out.sent += 1;
        let location = remote[req.server].location;
        if out.peers.last() != Some(&location) {
            out.peers.push(location);
        }
    }
    out
}

/// Why a reduce task's fetch fails before its work runs, if it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedFetch<'a> {
    /// `MapOutputTracker.validateStatus`: a map output has no location, so the tracker throws
    /// `MetadataFetchFailedException` at once.
    MissingOutput,
    /// A server that does not answer (or an injected failure, reported for the first server):
    /// each connection attempt fails, and [`after_connect_failure`] says what follows.
    Unreachable(&'a FetchSource),
}

/// What `RetryingBlockTransferor.transferAllOutstanding` does after an attempt at a server
/// failed to connect (Spark 4.0.0's jar): `NettyBlockTransferService`'s `createAndStart` asks
/// the BlockManagerMaster `IsExecutorAlive` on the `IOException`; a `false` throws
/// `ExecutorDeadException` (a `SparkException`, which `shouldRetry` does not retry), anything
/// else rethrows the `IOException`, retried while retries are left (`spark.shuffle.io.
/// maxRetries`, each after `spark.shuffle.io.retryWait`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterConnectFailure {
    /// `ExecutorDeadException`: the fetch fails now.
    ExecutorDead,
    /// `initiateRetry`: retry number `retry` after `retryWait`.
    Retry { retry: u32 },
    /// The retries are spent: the fetch fails with the `IOException`.
    GiveUp,
}

/// [`AfterConnectFailure`] after `retries_done` retries, the master knowing the executor's
/// block manager or not (`blockManagerIdByExecutor.contains`).
pub fn after_connect_failure(
    retries_done: u32,
    max_retries: u32,
    executor_alive: bool,
) -> AfterConnectFailure {
    if !executor_alive {
        AfterConnectFailure::ExecutorDead
    } else if retries_done < max_retries {
        AfterConnectFailure::Retry {
            retry: retries_done + 1,
        }
    } else {
        AfterConnectFailure::GiveUp
    }
}

/// `RetryingBlockTransferor`'s ERROR line for a failed attempt (the exception follows it).
pub fn beginning_failed_line(blocks: u32, retries_done: u32) -> String {
    if retries_done > 0 {
        format!(
            "Exception while beginning fetch of {blocks} outstanding blocks (after {retries_done} retries)"
        )
    } else {
        format!("Exception while beginning fetch of {blocks} outstanding blocks")
    }
}

/// `RetryingBlockTransferor.initiateRetry`'s INFO line.
pub fn retrying_line(retry: u32, max_retries: u32, blocks: u32, wait_ms: u64) -> String {
    format!(
        "Retrying fetch ({retry}/{max_retries}) for {blocks} outstanding blocks after {wait_ms} ms"
    )
}

/// Whether and how a reduce task's fetch over `plan` fails. A missing map output comes first
/// (`getMapSizesByExecutorId` throws before any server is asked); then an injected failure at
/// a server (the plan's [`first_remote`]); then, of the servers holding a non-empty block that
/// are `down`, the one the task's `Utils.randomize`d request order (the run's `seed` and its
/// `task_id`) meets first. An empty block is never fetched (`convertMapStatuses` skips a size
/// of 0), so a server holding only empty blocks cannot fail the fetch.
pub fn failed_fetch<'a>(
    plan: &'a ShuffleReadPlan,
    injected: Option<&'a FetchSource>,
    seed: u64,
    task_id: u64,
    down: impl Fn(&BlockManagerId) -> bool,
) -> Option<FailedFetch<'a>> {
    if plan.missing_map.is_some() {
        return Some(FailedFetch::MissingOutput);
    }
    if let Some(src) = injected {
        return Some(FailedFetch::Unreachable(src));
    }
    let is_down = |src: &&FetchSource| src.non_empty_blocks > 0 && down(&src.location);
    let n = plan.sources.iter().filter(is_down).count();
    let pick = randomized_index(seed, task_id, n)?;
    plan.sources
        .iter()
        .filter(is_down)
        .nth(pick)
        .map(FailedFetch::Unreachable)
}

/// The position a task's `Utils.randomize`d fetch order gives the first of `n` failing
/// servers: a function of the run's seed and the task id (splitmix64), `None` when `n` is 0.
pub fn randomized_index(seed: u64, task_id: u64, n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let mut z = seed ^ task_id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    Some((z % n as u64) as usize)
}

/// `MapOutputTracker.validateStatus`' text (Spark 4.0.0), which the tracker logs at ERROR.
pub fn missing_output_text(shuffle_id: u32, reduce_id: u32) -> String {
    format!("Missing an output location for shuffle {shuffle_id} partition {reduce_id}")
}

/// The `FetchFailed` of a missing map output: no block manager, no map. Its message is
/// `Utils.exceptionString` of the tracker's `MetadataFetchFailedException` (frames left out).
pub fn metadata_fetch_failure(shuffle_id: u32, reduce_id: u32, text: &str) -> FetchFailure {
    let exception = RpcFailure::new(
        "org.apache.spark.shuffle.MetadataFetchFailedException",
        text,
    );
    FetchFailure {
        bm_address: None,
        shuffle_id,
        map_id: -1,
        map_index: -1,
        reduce_id,
        message: exception_string(&exception),
    }
}

/// The exception a server whose executor the BlockManagerMaster no longer knows fails a
/// connection with: `ExecutorDeadException` (`INTERNAL_ERROR_NETWORK`, the 4.0.0 jar's text).
pub fn executor_dead(executor_id: ExecutorId) -> RpcFailure {
    RpcFailure::new(
        "org.apache.spark.ExecutorDeadException",
        format!(
            "[INTERNAL_ERROR_NETWORK] The relative remote executor(Id: {executor_id}), which maintains the block data to fetch is dead. SQLSTATE: XX000"
        ),
    )
}

/// The `FetchFailed` a failed fetch from `src` throws for the first block it serves, `cause`
/// being the fetch's exception (`ShuffleBlockFetcherIterator.throwFetchFailedException`).
/// Spark 4.0.0 passes `Some(errorMsg)`, null unless Netty ran out of direct memory, so the
/// `FetchFailedException` has no message: `Utils.exceptionString` prints its bare class, then
/// the cause on a `Caused by:` line (the real shufflelost run's reasons; frames left out here).
pub fn fetch_failure(
    shuffle_id: u32,
    reduce_id: u32,
    src: &FetchSource,
    cause: RpcFailure,
) -> FetchFailure {
    let exception = RpcFailure::new("org.apache.spark.shuffle.FetchFailedException", "");
    FetchFailure {
        bm_address: Some(src.location.clone()),
        shuffle_id,
        map_id: src.first_map_id as i64,
        map_index: src.first_map_index as i32,
        reduce_id,
        message: exception_string(&exception.caused_by(cause)),
    }
}

/// `Utils.exceptionString` (`printStackTrace` into a string) with the frames left out: each
/// throwable's line, and the newline `printStackTrace` ends with.
fn exception_string(exception: &RpcFailure) -> String {
    let mut text = exception.stack_text();
    text.push('\n');
    text
}

/// `TransportClientFactory`'s client pool as a reduce task's fetches meet it: one client per
/// `host:port`, so only the first fetch from a server opens a connection (and logs its
/// `Successfully created connection` line). Connections are numbered from 100 in the JVM's
/// seeded draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchClients {
    servers: std::collections::BTreeSet<(String, u16)>,
}

impl FetchClients {
    /// A fetch from `host:port`: the new connection's number, or `None` when a client to it
    /// exists already.
    pub fn connect(&mut self, host: &str, port: u16) -> Option<u32> {
        let key = (host.to_string(), port);
        if self.servers.contains(&key) {
            return None;
        }
        let nth = 100 + self.servers.len() as u32;
        self.servers.insert(key);
        Some(nth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spark_core::block_manager::connect_refused;

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

    fn limits() -> FetchSettings {
        FetchSettings::default()
    }

    /// A real Spark 4.0.0 run (pyspark's spark-submit, `local-cluster[2,1,1024]`, a groupByKey
    /// of 4 maps into 2 reduces; local-cluster sets `spark.shuffle.readHostLocalDisk=false`,
    /// so the other executor's blocks on the same host were remote there): executor 0 logged
    /// `Getting 4 (1838.0 B) non-empty blocks including 2 (858.0 B) local and 0 (0.0 B)
    /// host-local and 0 (0.0 B) push-merged-local and 2 (980.0 B) remote blocks` and `Started 1
    /// remote fetches`. ShuffleBlockFetcherIterator.partitionBlocksByFetchMode / initialize.
    #[test]
    fn getting_line_and_remote_fetches_as_spark_logs_them() {
        let p = plan(vec![source(0, "a", 2, 858), source(1, "a", 2, 980)]);
        let s = split(&p, ExecutorId(0), "a", false);
        assert_eq!(
            s.getting_line(),
            "Getting 4 (1838.0 B) non-empty blocks including 2 (858.0 B) local and 0 (0.0 B) \
             host-local and 0 (0.0 B) push-merged-local and 2 (980.0 B) remote blocks"
        );
        let r = initial_requests(&s.remote, &limits(), 42);
        assert_eq!(r.sent, 1);
        assert_eq!(r.peers.len(), 1);
        assert_eq!(r.started_line(3), "Started 1 remote fetches in 3 ms");
    }

    /// partitionBlocksByFetchMode: another executor's blocks on this host are host-local when
    /// the BlockManager has a `hostLocalDirManager` (`spark.shuffle.readHostLocalDisk`, true by
    /// default: BlockManager.initialize), remote without one; a map output with no bytes for
    /// this reduce partition is not a block to get.
    #[test]
    fn same_host_is_host_local_only_while_read_host_local_disk_and_empty_blocks_are_skipped() {
        let p = plan(vec![
            source(1, "a", 3, 300),
            source(2, "a", 2, 200),
            source(3, "b", 5, 0),
        ]);
        let s = split(&p, ExecutorId(1), "a", true);
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
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 0);
        let s = split(&p, ExecutorId(1), "a", false);
        assert_eq!(s.host_local, BlockCount::default());
        assert_eq!(s.remote.len(), 1);
        assert_eq!((s.remote[0].blocks, s.remote[0].bytes), (2, 200));
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 1);
    }

    /// collectFetchRequests / fetchUpToMaxBytes: with 48m in flight a request closes at 9.6 MiB
    /// (`maxBytesInFlight / 5`) and requests go out while 48 MiB are not passed: 10 blocks of 4
    /// MiB on one server are 3+3+3+1 blocks, of which the first four requests (40 MiB) fit.
    /// 20 such blocks make 7 requests, 4 of them sent first (the fifth would pass 48 MiB).
    #[test]
    fn requests_split_at_a_fifth_and_stop_at_max_in_flight() {
        let mib = 1u64 << 20;
        let p = plan(vec![source(1, "b", 10, 40 * mib)]);
        let s = split(&p, ExecutorId(0), "a", true);
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 4);
        let p = plan(vec![source(1, "b", 20, 80 * mib)]);
        let s = split(&p, ExecutorId(0), "a", true);
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 4);
    }

    /// `spark.reducer.maxSizeInFlight=10m` (BlockStoreShuffleReader: the MiB value times 1024 *
    /// 1024): requests close at 2 MiB, so 10 blocks of 1 MiB on each of two servers are 5
    /// requests per server; 10 MiB in flight take five of them (the sixth would pass it), from
    /// whichever servers the randomized queue puts first.
    #[test]
    fn a_smaller_max_size_in_flight_sends_fewer_requests_first() {
        let mib = 1u64 << 20;
        let p = plan(vec![
            source(1, "b", 10, 10 * mib),
            source(2, "c", 10, 10 * mib),
        ]);
        let s = split(&p, ExecutorId(0), "a", true);
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 2);
        let ten = FetchSettings {
            max_bytes_in_flight: 10 << 20,
            ..limits()
        };
        let r = initial_requests(&s.remote, &ten, 42);
        assert_eq!((r.sent, r.deferred), (5, 0));
        assert!(!r.peers.is_empty() && r.peers.len() <= 5, "{:?}", r.peers);
    }

    /// `ConfigHelpers.byteFromString` takes a leading `-`: a negative maxBytesInFlight makes
    /// `targetRemoteRequestSize` 1 (one block per request), and `isRemoteBlockFetchable` lets
    /// only the first request go (nothing in flight); a `maxReqsInFlight` of 1 does the same.
    #[test]
    fn a_negative_max_size_or_one_request_in_flight_sends_one_request() {
        let p = plan(vec![source(1, "b", 4, 4000), source(2, "c", 4, 4000)]);
        let s = split(&p, ExecutorId(0), "a", true);
        assert_eq!(initial_requests(&s.remote, &limits(), 42).sent, 2);
        let negative = FetchSettings {
            max_bytes_in_flight: -(1 << 20),
            ..limits()
        };
        assert_eq!(initial_requests(&s.remote, &negative, 42).sent, 1);
        let one = FetchSettings {
            max_reqs_in_flight: 1,
            ..limits()
        };
        assert_eq!(initial_requests(&s.remote, &one, 42).sent, 1);
    }

    /// `spark.reducer.maxBlocksInFlightPerAddress=2`: collectFetchRequests closes a request at
    /// 2 blocks, so 5 blocks per server are 2+2+1; fetchUpToMaxBytes sends one request per
    /// address and defers the others (`isRemoteAddressMaxedOut`), and initialize logs
    /// `Started 2 remote fetches in N ms, deferred 4 requests` (Spark 4.0.0's jar:
    /// `$anonfun$initialize$3`).
    #[test]
    fn requests_over_max_blocks_per_address_are_deferred() {
        let p = plan(vec![source(1, "b", 5, 500), source(2, "c", 5, 500)]);
        let s = split(&p, ExecutorId(0), "a", true);
        let two = FetchSettings {
            max_blocks_in_flight_per_address: 2,
            ..limits()
        };
        let r = initial_requests(&s.remote, &two, 42);
        assert_eq!((r.sent, r.deferred, r.peers.len()), (2, 4, 2));
        assert_eq!(
            r.started_line(7),
            "Started 2 remote fetches in 7 ms, deferred 4 requests"
        );
        // The check is per request: with 5 MiB blocks a request closes at 2 blocks (9.6 MiB
        // target), so 5 blocks are 2+2+1; at 3 blocks per address the second 2-block request
        // is deferred but the last 1-block one still fits.
        let three = FetchSettings {
            max_blocks_in_flight_per_address: 3,
            ..limits()
        };
        let p = plan(vec![source(1, "b", 5, 25 << 20)]);
        let s = split(&p, ExecutorId(0), "a", true);
        let r = initial_requests(&s.remote, &three, 42);
        assert_eq!((r.sent, r.deferred), (2, 1));
    }

    /// ShuffleBlockFetcherIterator.initialize queues the remote requests in a random order
    /// (Spark 4.0.0's jar: `fetchRequests ++= Utils.randomize(remoteRequests)`), so when they
    /// differ in size how many `fetchUpToMaxBytes` sends first depends on that order: with 48m
    /// in flight, a 40 MiB request on one server and two 10 MiB ones (5 blocks of 2 MiB) on
    /// another send 1 when the 40 MiB one comes first or second (40 + 10 passes 48 MiB) and 2
    /// when it comes last. The plan's order (server after server) always sent 1; the seeded
    /// order gives both across seeds, each seed the same every time.
    #[test]
    fn remote_requests_go_out_in_a_seeded_random_order() {
        let mib = 1u64 << 20;
        let p = plan(vec![
            source(1, "b", 1, 40 * mib),
            source(2, "c", 10, 20 * mib),
        ]);
        let s = split(&p, ExecutorId(0), "a", true);
        let sent: Vec<u32> = (0..64)
            .map(|seed| initial_requests(&s.remote, &limits(), seed).sent)
            .collect();
        assert!(sent.contains(&1) && sent.contains(&2), "{sent:?}");
        assert!(sent.iter().all(|n| *n == 1 || *n == 2), "{sent:?}");
        let again: Vec<u32> = (0..64)
            .map(|seed| initial_requests(&s.remote, &limits(), seed).sent)
            .collect();
        assert_eq!(sent, again, "a seed repeats its order");
        let first = initial_requests(&s.remote, &limits(), 3);
        let peers: Vec<u32> = first.peers.iter().map(|b| b.executor_id.0).collect();
        assert!(peers == [1] || peers == [2] || peers == [2, 1], "{peers:?}");
    }

    /// Utils.randomizeInPlace is a Fisher-Yates shuffle from the last index down: every order
    /// of three requests comes up across seeds, and each is a permutation.
    #[test]
    fn randomize_in_place_reaches_every_permutation() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut items = [0, 1, 2];
            randomize_in_place(&mut items, seed);
            let mut sorted = items;
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2]);
            seen.insert(items);
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        let mut one = [7];
        randomize_in_place(&mut one, 1);
        assert_eq!(one, [7]);
    }

    fn down_plan() -> ShuffleReadPlan {
        let mut sources: Vec<FetchSource> = (1..=4).map(|e| source(e, "h1", 1, 10)).collect();
        sources.push(source(5, "h2", 1, 10));
        for (i, s) in sources.iter_mut().enumerate() {
            s.first_map_index = i as u32;
            s.first_map_id = 100 + i as u64;
        }
        plan(sources)
    }

    /// ShuffleBlockFetcherIteratorSuite "fail all blocks if any of the remote request fails":
    /// a server that does not answer fails the task's fetch (`FetchFailedException` for the
    /// first block that server serves); with every server up, nothing fails.
    #[test]
    fn an_unreachable_server_fails_the_fetch_after_the_retries() {
        let p = down_plan();
        assert_eq!(failed_fetch(&p, None, 42, 7, |_| false), None);
        let Some(FailedFetch::Unreachable(src)) =
            failed_fetch(&p, None, 42, 7, |bm| bm.host == "h2")
        else {
            panic!("h2 is down");
        };
        assert_eq!(src.location.executor_id, ExecutorId(5));
        let refused = connect_refused(&src.location.host, "10.0.1.2", src.location.port);
        let f = fetch_failure(3, 9, src, refused);
        assert_eq!(
            (f.bm_address.as_ref(), f.map_id, f.map_index, f.reduce_id),
            (Some(&src.location), 104, 4, 9)
        );
        // The real shufflelost run's FetchFailed messages (Spark 4.0.0): the bare class, the
        // cause on a `Caused by:` line, the newline printStackTrace ends with.
        assert_eq!(
            f.message,
            "org.apache.spark.shuffle.FetchFailedException\n\
             Caused by: java.io.IOException: Failed to connect to h2/10.0.1.2:38005\n\
             Caused by: io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: h2/10.0.1.2:38005\n\
             Caused by: java.net.ConnectException: Connection refused\n"
        );
        let dead = fetch_failure(3, 9, src, executor_dead(src.location.executor_id));
        assert_eq!(dead.bm_address, f.bm_address);
        assert_eq!(
            dead.message,
            "org.apache.spark.shuffle.FetchFailedException\n\
             Caused by: org.apache.spark.ExecutorDeadException: [INTERNAL_ERROR_NETWORK] The relative remote executor(Id: 5), which maintains the block data to fetch is dead. SQLSTATE: XX000\n"
        );
    }

    /// The 4.0.0 jar's RetryingBlockTransferor and NettyBlockTransferService: a failed
    /// connection is retried `spark.shuffle.io.maxRetries` times (3) while the BlockManagerMaster
    /// still knows the executor; once it does not (`IsExecutorAlive` false), the attempt throws
    /// `ExecutorDeadException`, which is not retried (SPARK-27637; the real shufflelost run's
    /// two FetchFailed reasons are it). The ERROR and INFO lines are the jar's.
    #[test]
    fn a_failed_connection_is_retried_until_the_master_forgets_the_executor() {
        use AfterConnectFailure::*;
        assert_eq!(after_connect_failure(0, 3, true), Retry { retry: 1 });
        assert_eq!(after_connect_failure(2, 3, true), Retry { retry: 3 });
        assert_eq!(after_connect_failure(3, 3, true), GiveUp);
        assert_eq!(after_connect_failure(0, 0, true), GiveUp);
        assert_eq!(after_connect_failure(0, 3, false), ExecutorDead);
        assert_eq!(after_connect_failure(3, 3, false), ExecutorDead);
        assert_eq!(
            beginning_failed_line(2, 0),
            "Exception while beginning fetch of 2 outstanding blocks"
        );
        assert_eq!(
            beginning_failed_line(2, 3),
            "Exception while beginning fetch of 2 outstanding blocks (after 3 retries)"
        );
        assert_eq!(
            retrying_line(1, 3, 2, 5000),
            "Retrying fetch (1/3) for 2 outstanding blocks after 5000 ms"
        );
    }

    /// MapOutputTracker.convertMapStatuses (4.0.0 jar: `getSizeForBlock`, then `lcmp; ifeq`
    /// past a size of 0): an empty map output is not fetched, so its server being down fails
    /// nothing; the same server holding a non-empty block fails the fetch.
    #[test]
    fn a_down_server_with_only_empty_blocks_fails_no_fetch() {
        let mut p = down_plan();
        p.sources[4].non_empty_blocks = 0;
        p.sources[4].non_empty_bytes = 0;
        assert_eq!(failed_fetch(&p, None, 42, 7, |bm| bm.host == "h2"), None);
        p.sources[4].non_empty_blocks = 1;
        assert_eq!(
            failed_fetch(&p, None, 42, 7, |bm| bm.host == "h2"),
            Some(FailedFetch::Unreachable(&p.sources[4]))
        );
    }

    /// MapOutputTrackerSuite "master register shuffle and unregister map output and fetch": a
    /// map output with no location fails the reduce task's fetch at once
    /// (`MetadataFetchFailedException`, MapOutputTracker.validateStatus' text in the 4.0.0 jar),
    /// before any server is tried.
    #[test]
    fn a_missing_map_output_fails_the_fetch_at_once() {
        let mut p = down_plan();
        p.missing_map = Some(1);
        assert_eq!(
            failed_fetch(&p, None, 42, 7, |_| true),
            Some(FailedFetch::MissingOutput)
        );
        let text = missing_output_text(2, 5);
        assert_eq!(text, "Missing an output location for shuffle 2 partition 5");
        let f = metadata_fetch_failure(2, 5, &text);
        assert_eq!((f.bm_address, f.map_id, f.map_index), (None, -1, -1));
        assert_eq!(
            f.message,
            "org.apache.spark.shuffle.MetadataFetchFailedException: Missing an output location for shuffle 2 partition 5\n"
        );
    }

    /// An injected fetch failure (the `fetch-failure` fault) is reported for the plan's first
    /// server the task fetches from over the network, whatever is up or missing. A block of
    /// the task's own executor, or (with `spark.shuffle.readHostLocalDisk`) of another
    /// executor of its host, is read from disk (ShuffleBlockFetcherIterator's
    /// `partitionBlocksByFetchMode`): no server to fail; a plan with no remote block has none.
    #[test]
    fn an_injected_failure_names_the_first_remote_server() {
        let mut p = down_plan();
        let first = first_remote(&p, ExecutorId(9), "h3", true);
        assert_eq!(first, Some(&p.sources[0]));
        assert_eq!(
            failed_fetch(&p, first, 42, 7, |_| false),
            Some(FailedFetch::Unreachable(&p.sources[0]))
        );
        // A missing map output fails the fetch before any server is asked.
        let mut missing = down_plan();
        missing.missing_map = Some(0);
        let first_of_missing = first_remote(&missing, ExecutorId(9), "h3", true);
        assert_eq!(
            failed_fetch(&missing, first_of_missing, 42, 7, |_| false),
            Some(FailedFetch::MissingOutput)
        );
        // A source whose blocks are all empty is never fetched from.
        p.sources[0].non_empty_blocks = 0;
        assert_eq!(
            first_remote(&p, ExecutorId(9), "h3", true),
            Some(&p.sources[1])
        );
        p.sources[0].non_empty_blocks = 1;
        // Executor 1 on h1: its own blocks are local, executors 2-4's host-local; h2's remote.
        assert_eq!(
            first_remote(&p, ExecutorId(1), "h1", true),
            Some(&p.sources[4])
        );
        // Without host-local reading, executor 2's blocks are fetched from its server.
        assert_eq!(
            first_remote(&p, ExecutorId(1), "h1", false),
            Some(&p.sources[1])
        );
        // Executor 5 on h2 reads its own blocks; h1's are remote.
        assert_eq!(
            first_remote(&p, ExecutorId(5), "h2", true),
            Some(&p.sources[0])
        );
        let only_local = plan(vec![source(5, "h2", 1, 10)]);
        assert_eq!(first_remote(&only_local, ExecutorId(5), "h2", true), None);
        let empty = plan(Vec::new());
        assert_eq!(first_remote(&empty, ExecutorId(5), "h2", true), None);
        assert_eq!(failed_fetch(&empty, None, 42, 7, |_| true), None);
    }

    // ShuffleBlockFetcherIterator.initialize: `fetchRequests ++= Utils.randomize(remoteRequests)`,
    // so when a node with four executors' map outputs dies, its reducers report different
    // executors in their FetchFailed, and DAGScheduler.handleTaskCompletion unregisters each
    // reported executor's outputs (removeExecutorAndUnregisterOutputs) in the one stage attempt:
    // the map stage is not resubmitted once per executor until spark.stage.maxConsecutiveAttempts
    // (4) aborts the job. Before, every reducer reported the first output by map index.
    #[test]
    fn reducers_report_different_failing_servers() {
        let picks: Vec<usize> = (0..8)
            .map(|tid| randomized_index(42, tid, 4).expect("four servers"))
            .collect();
        let distinct: std::collections::BTreeSet<usize> = picks.iter().copied().collect();
        assert!(distinct.len() >= 3, "{picks:?}");
        assert!(picks.iter().all(|p| *p < 4));
        assert_eq!(
            picks,
            (0..8)
                .map(|t| randomized_index(42, t, 4).expect("same"))
                .collect::<Vec<_>>()
        );
        assert_eq!(randomized_index(42, 3, 0), None);
        assert_eq!(randomized_index(7, 3, 1), Some(0));
        // The pick is among the servers that are down, in the plan's order.
        let p = down_plan();
        let down = |bm: &BlockManagerId| bm.host == "h1";
        let reported: std::collections::BTreeSet<u32> = (0..8)
            .filter_map(|tid| match failed_fetch(&p, None, 42, tid, down) {
                Some(FailedFetch::Unreachable(src)) => Some(src.location.executor_id.0),
                _ => None,
            })
            .collect();
        assert!(
            reported.len() >= 3 && reported.iter().all(|e| *e <= 4),
            "{reported:?}"
        );
    }

    /// TransportClientFactory.createClient (Spark 4.0.0, `connectionPool` by address; no suite
    /// case runs it without a network): a cached client per address is reused, so a second
    /// fetch from a server opens nothing and new servers take the next connection numbers.
    #[test]
    fn one_client_per_server() {
        let mut c = FetchClients::default();
        assert_eq!(c.connect("h1", 7337), Some(100));
        assert_eq!(c.connect("h1", 7337), None);
        assert_eq!(
            c.connect("h1", 38001),
            Some(101),
            "another port is another server"
        );
        assert_eq!(c.connect("h2", 7337), Some(102));
        assert_eq!(c.connect("h2", 7337), None);
    }
}
