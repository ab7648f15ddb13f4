//! A task's shuffle: the epoch and map statuses a reduce task needs, its block fetch's start and
//! failure, and a map task's `MapStatus` (Spark's `MapOutputTrackerWorker.updateEpoch` /
//! `getStatuses`, `ShuffleBlockFetcherIterator`, `BlockManager.shuffleServerId`).

use super::{
    BLOCK_FETCHER, CoarseGrainedExecutorBackend, TRACKER_WORKER, executor_jvm, parse_driver_url,
};
use crate::kernel::logs::Level;
use crate::spark_core::block_fetch::{self, FailedFetch};
use crate::spark_core::block_manager::shuffle_server_port;
use crate::spark_core::executor_env::{self, block_manager_port};
use crate::{error, info};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::rpc::RpcAddress;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, MapStatusData, ShuffleReadPlan, TaskDescription, TaskResultData,
};

impl CoarseGrainedExecutorBackend {
    /// Executor.TaskRunner.run's `updateEpoch(task.epoch)` (Spark 4.0.0), after the task is
    /// deserialized and before it runs: the worker's INFO line when the epoch moves on.
    pub(super) fn update_epoch(&mut self, epoch: u64) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.map_statuses.update_epoch(epoch) {
            info!(
                self.env.log(),
                TRACKER_WORKER, "Updating epoch to {epoch} and clearing cache"
            );
        }
    }

    /// `MapOutputTrackerWorker.getStatuses` for a reduce task: statuses not cached for the
    /// task's epoch are asked of the driver's MapOutputTrackerMasterEndpoint. The answer is the
    /// task's read plan (already here), so the three lines come at the launch; the ask is
    /// sent after the task's RUNNING update (as the task runs) and reaches the driver a network
    /// latency later. Returns the shuffle to ask for.
    pub(super) fn get_map_statuses(&mut self, plan: &ShuffleReadPlan) -> Option<u32> {
        let executor = self.executor.as_mut()?;
        if !executor.map_statuses.must_fetch(plan.shuffle_id) {
            return None;
        }
        let log = self.env.log().clone();
        let sid = plan.shuffle_id;
        info!(
            log,
            TRACKER_WORKER, "Don't have map outputs for shuffle {sid}, fetching them"
        );
        if let Some(driver) = parse_driver_url(&self.args.driver_url) {
            info!(
                log,
                TRACKER_WORKER,
                "Doing the fetch; tracker endpoint = NettyRpcEndpointRef(spark://MapOutputTracker@{}:{})",
                driver.host,
                driver.port
            );
        }
        info!(log, TRACKER_WORKER, "Got the map output locations");
        Some(sid)
    }

    /// The `GetMapOutputStatuses` ask [`Self::get_map_statuses`] decided on.
    pub(super) fn ask_map_statuses(&self, shuffle_id: u32) {
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::GetMapOutputStatuses {
                shuffle_id,
                sender: self.env.address(),
            };
            self.env.send(d, msg);
        }
    }

    /// `ShuffleBlockFetcherIterator.initialize` over a complete read plan: how the non-empty
    /// blocks split into local (this executor's), host-local (another executor's on this host,
    /// with `spark.shuffle.readHostLocalDisk`) and remote, then the remote requests
    /// `fetchUpToMaxBytes` sends at once or defers under `spark.reducer.*` (see
    /// [`block_fetch::initial_requests`], in the order the run's seed and the task draw for
    /// Spark's unseeded `Utils.randomize`) and the time it took (the first connection to each
    /// peer: `TransportClientFactory`).
    pub(super) fn start_block_fetch(&mut self, plan: &ShuffleReadPlan, task_id: TaskId) {
        let log = self.env.log().clone();
        if !log.enabled(BLOCK_FETCHER, Level::Info) {
            return;
        }
        let me = self.args.executor_id;
        let s = &self.sim.config.spark.shuffle;
        let split = block_fetch::split(plan, me, &self.args.hostname, s.fetch.read_host_local_disk);
        info!(log, BLOCK_FETCHER, "{}", split.getting_line());
        let order_seed = self.sim.config.seed ^ task_id.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let started = block_fetch::initial_requests(&split.remote, &s.fetch, order_seed);
        let costs = &self.sim.config.costs;
        let (round_trip, budget) = (2 * costs.network_latency_ms, costs.task_launch_overhead_ms);
        let (seed, jvm) = (self.sim.config.seed, executor_jvm(&self.args));
        let mut took = 0;
        for &src in &started.peers {
            let reachable = self.sim.block_server_reachable(src, s.service_port);
            let Some(blocks) = self.executor.as_mut().and_then(|e| e.blocks.as_mut()) else {
                break;
            };
            if !reachable {
                continue;
            }
            let Some(nth) = blocks.fetch_clients.connect(&src.host, src.port) else {
                continue;
            };
            let to = executor_env::ConnectionTo {
                ip: self.sim.host_ip(&src.host),
                address: RpcAddress {
                    host: src.host.clone(),
                    port: src.port,
                },
                connect_ms: executor_env::connect_ms(seed, &jvm, nth, budget, round_trip),
            };
            executor_env::log_connection_created(&log, executor_env::CONNECTIONS, &to);
            took += to.connect_ms;
        }
        info!(log, BLOCK_FETCHER, "{}", started.started_line(took));
    }

    /// `ShuffleBlockFetcherIterator` over the map outputs the task's read plan names: a missing
    /// output fails at once (`MetadataFetchFailedException` from the MapOutputTracker); a
    /// server that does not answer fails after `spark.shuffle.io.maxRetries` waits of
    /// `spark.shuffle.io.retryWait` (`FetchFailedException`); so does an injected fetch failure.
    /// Returns how long the failed fetch took and the failure.
    pub(super) fn fetch_shuffle_input(
        &self,
        desc: &TaskDescription,
    ) -> Option<(u64, FetchFailure)> {
        let plan = desc.shuffle.read.as_ref()?;
        let s = &self.sim.config.spark.shuffle;
        let reduce_id = desc.partition_id;
        let injected = self
            .sim
            .faults
            .take_fetch_failure(self.sim.index, desc.stage_id, reduce_id);
        let seed = self.sim.config.seed;
        let down = |bm: &BlockManagerId| !self.sim.block_server_reachable(bm, s.service_port);
        let log = self.env.log();
        match block_fetch::failed_fetch(plan, injected, seed, desc.task_id.0, down)? {
            FailedFetch::MissingOutput => {
                let text = block_fetch::missing_output_text(plan.shuffle_id, reduce_id);
                error!(log, "executor::MapOutputTracker", "{text}");
                let failure =
                    block_fetch::metadata_fetch_failure(plan.shuffle_id, reduce_id, &text);
                Some((0, failure))
            }
            FailedFetch::Unreachable(src) => {
                // ShuffleBlockFetcherIterator's `onBlockFetchFailure` line.
                let (host, port) = (&src.location.host, src.location.port);
                error!(
                    log,
                    "executor::ShuffleBlockFetcherIterator",
                    "Failed to get block(s) from {host}:{port}"
                );
                let retry_ms = block_fetch::retry_ms(s.io_max_retries, s.io_retry_wait_ms);
                let failure = block_fetch::connect_failure(plan.shuffle_id, reduce_id, src);
                Some((retry_ms, failure))
            }
        }
    }

    /// A ShuffleMapTask's result is its `MapStatus`, at `BlockManager.shuffleServerId`.
    pub(super) fn write_shuffle_output(
        &self,
        desc: &TaskDescription,
        result: TaskResultData,
    ) -> TaskResultData {
        let Some(w) = desc.shuffle.write else {
            return result;
        };
        if matches!(result, TaskResultData::Exception { .. }) {
            return result;
        }
        let s = &self.sim.config.spark.shuffle;
        let own = block_manager_port(self.args.executor_id);
        TaskResultData::MapStatus(Box::new(MapStatusData {
            location: BlockManagerId {
                executor_id: self.args.executor_id,
                host: self.args.hostname.clone(),
                port: shuffle_server_port(s.service_enabled, s.service_port, own),
            },
            bytes: w.bytes,
            num_reduces: w.num_reduces,
        }))
    }
}
