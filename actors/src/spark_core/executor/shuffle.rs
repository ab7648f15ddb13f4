//! A task's shuffle: the epoch and map statuses a reduce task needs, its block fetch's start and
//! failure, and a map task's `MapStatus` (Spark's `MapOutputTrackerWorker.updateEpoch` /
//! `getStatuses`, `ShuffleBlockFetcherIterator`, `BlockManager.shuffleServerId`).

use super::{
    BLOCK_FETCHER, BackendAnswer, CoarseGrainedExecutorBackend, TRACKER_WORKER, executor_jvm,
    parse_driver_url,
};
use crate::kernel::logs::{Level, ProcessLog};
use crate::kernel::{clock, timers};
use crate::rpc::Asker;
use crate::spark_core::block_fetch::{self, AfterConnectFailure, FailedFetch};
use crate::spark_core::block_manager::{connect_refused, shuffle_server_port};
use crate::spark_core::executor_env::{self, block_manager_port};
use crate::spark_core::map_output_tracker_worker::Statuses;
use crate::{error, info};
use actix::Context;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::RpcAddress;
use sparkyard_messages::task::{
    BlockManagerId, FetchFailure, FetchSource, MapStatusData, ShuffleReadPlan, TaskDescription,
    TaskResultData,
};
use std::sync::Arc;

const RETRYING_TRANSFEROR: &str = "executor::RetryingBlockTransferor";

/// How a reduce task's fetch fails, when it does (`fetch_shuffle_input`).
pub(super) enum FailingFetch {
    /// Before any server is tried (a missing map output).
    Now(FetchFailure),
    /// A server does not answer: tried as `RetryingBlockTransferor` tries it.
    Retried(Box<FetchRetries>),
}

/// One reduce task's `RetryingBlockTransferor` for the server that does not answer: the
/// request's blocks and the retries made.
pub(super) struct FetchRetries {
    source: FetchSource,
    /// The server is a node's external shuffle service (`ExternalBlockStoreClient`), not an
    /// executor's block manager (`NettyBlockTransferService`).
    service: bool,
    shuffle_id: u32,
    reduce_id: u32,
    retries_done: u32,
    /// `Started N remote fetches in X ms`, held until the first attempt's lines.
    pub(super) started_line: Option<String>,
}

impl FetchRetries {
    /// The request's blocks: the server's non-empty blocks for this reduce partition (a
    /// failing source always has some: `block_fetch::failed_fetch` fails only those).
    fn outstanding_blocks(&self) -> u32 {
        self.source.non_empty_blocks
    }

    fn log_started_line(&mut self, log: &ProcessLog) {
        if let Some(line) = self.started_line.take() {
            info!(log, BLOCK_FETCHER, "{line}");
        }
    }

    /// The exception an attempt's connection failed with: `ExecutorDeadException` when the
    /// master answered that the executor is not `alive`, else the refused connection to the
    /// server (at `ip`).
    fn attempt_exception(&self, alive: bool, ip: &str) -> RpcFailure {
        let server = &self.source.location;
        if alive {
            connect_refused(&server.host, ip, server.port)
        } else {
            block_fetch::executor_dead(server.executor_id)
        }
    }

    /// `transferAllOutstanding`'s catch after an attempt failed to connect, the master having
    /// answered whether the executor is `alive`: its ERROR line with the exception, then either
    /// the retry's INFO line (`None`: try again after `wait_ms`) or the listener's
    /// `onBlockFetchFailure` line (with the exception) for each outstanding block and the
    /// task's failure.
    fn attempt_failed(
        &mut self,
        log: &ProcessLog,
        alive: bool,
        server_ip: &str,
        retry: RetrySettings,
    ) -> Option<FetchFailure> {
        let blocks = self.outstanding_blocks();
        let exception = self.attempt_exception(alive, server_ip);
        let trace = exception.stack_text();
        if retry.max_retries == 0 {
            // No RetryingBlockTransferor: `fetchBlocks` calls `createAndStart` itself and logs
            // its failure (the 4.0.0 jar's NettyBlockTransferService / ExternalBlockStoreClient).
            let client = match self.service {
                true => "executor::ExternalBlockStoreClient",
                false => "executor::NettyBlockTransferService",
            };
            error!(
                log,
                client, "Exception while beginning fetchBlocks\n{trace}"
            );
        } else {
            let failed = block_fetch::beginning_failed_line(blocks, self.retries_done);
            error!(log, RETRYING_TRANSFEROR, "{failed}\n{trace}");
        }
        let next = block_fetch::after_connect_failure(self.retries_done, retry.max_retries, alive);
        if let AfterConnectFailure::Retry { retry: n } = next {
            let line = block_fetch::retrying_line(n, retry.max_retries, blocks, retry.wait_ms);
            info!(log, RETRYING_TRANSFEROR, "{line}");
            self.retries_done = n;
            self.log_started_line(log);
            return None;
        }
        let (host, port) = (&self.source.location.host, self.source.location.port);
        for _ in 0..blocks {
            error!(
                log,
                BLOCK_FETCHER, "Failed to get block(s) from {host}:{port}\n{trace}"
            );
        }
        self.log_started_line(log);
        let (shuffle, reduce) = (self.shuffle_id, self.reduce_id);
        Some(block_fetch::fetch_failure(
            shuffle,
            reduce,
            &self.source,
            exception,
        ))
    }
}

/// `spark.shuffle.io.maxRetries` and `spark.shuffle.io.retryWait`.
#[derive(Clone, Copy)]
struct RetrySettings {
    max_retries: u32,
    wait_ms: u64,
}

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

    /// `MapOutputTrackerWorker.getStatuses` for a reduce task: the statuses the worker cached
    /// for an earlier task (`MapStatusCache::get_statuses`), or the driver's `current`
    /// ones, asked of its MapOutputTrackerMasterEndpoint. The answer is the task's read plan
    /// (already here), so the three lines come at the launch; the ask is sent after the task's
    /// RUNNING update (as the task runs) and reaches the driver a network latency later.
    pub(super) fn get_map_statuses(&mut self, current: &Arc<ShuffleReadPlan>) -> Statuses {
        let Some(executor) = self.executor.as_mut() else {
            return Statuses {
                plan: current.clone(),
                fetched: false,
            };
        };
        let statuses = executor.map_statuses.get_statuses(current);
        if !statuses.fetched {
            return statuses;
        }
        let log = self.env.log().clone();
        let sid = current.shuffle_id;
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
        statuses
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
    ///
    /// Returns the `Started N remote fetches in X ms` line, which Spark logs after the first
    /// attempt at every server (`fetchUpToMaxBytes`): the caller logs it, or holds it until a
    /// failing server's first attempt is logged.
    pub(super) fn start_block_fetch(
        &mut self,
        plan: &ShuffleReadPlan,
        task_id: TaskId,
    ) -> Option<String> {
        let log = self.env.log().clone();
        if !log.enabled(BLOCK_FETCHER, Level::Info) {
            return None;
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
        Some(started.started_line(took))
    }

    /// `ShuffleBlockFetcherIterator` over the map outputs the task's read plan names: a missing
    /// output fails at once (`MetadataFetchFailedException` from the MapOutputTracker); a
    /// server that does not answer, or an injected fetch failure, is tried as
    /// `RetryingBlockTransferor` tries it ([`Self::on_fetch_attempt`]).
    pub(super) fn fetch_shuffle_input(&mut self, desc: &TaskDescription) -> Option<FailingFetch> {
        let plan = desc.shuffle.read.as_ref()?;
        let s = &self.sim.config.spark.shuffle;
        let reduce_id = desc.partition_id;
        // An injected failure is a server's: a fetch that reads only from disk, or that fails
        // on a missing output before asking any server, leaves it armed for the partition's
        // next fetch.
        let (me, host) = (self.args.executor_id, self.args.hostname.as_str());
        let injected = block_fetch::first_remote(plan, me, host, s.fetch.read_host_local_disk)
            .filter(|_| plan.missing_map.is_none())
            .filter(|_| {
                let faults = &self.sim.faults;
                faults.take_fetch_failure(self.sim.index, desc.stage_id, reduce_id)
            });
        let seed = self.sim.config.seed;
        let down = |bm: &BlockManagerId| !self.sim.block_server_reachable(bm, s.service_port);
        match block_fetch::failed_fetch(plan, injected, seed, desc.task_id.0, down)? {
            FailedFetch::MissingOutput => {
                let text = block_fetch::missing_output_text(plan.shuffle_id, reduce_id);
                error!(self.env.log(), "executor::MapOutputTracker", "{text}");
                if let Some(e) = self.executor.as_mut() {
                    e.map_statuses.clear();
                }
                let failure =
                    block_fetch::metadata_fetch_failure(plan.shuffle_id, reduce_id, &text);
                Some(FailingFetch::Now(failure))
            }
            FailedFetch::Unreachable(src) => Some(FailingFetch::Retried(Box::new(FetchRetries {
                source: src.clone(),
                service: src.location.port == s.service_port,
                shuffle_id: plan.shuffle_id,
                reduce_id,
                retries_done: 0,
                started_line: None,
            }))),
        }
    }

    /// A failing server's next attempt (`RetryingBlockTransferor.transferAllOutstanding`):
    /// the connection fails again (a server that stopped answering never comes back), so
    /// `NettyBlockTransferService`'s `createAndStart` asks the BlockManagerMaster whether the
    /// executor is alive (an external shuffle service's client does not).
    pub(super) fn on_fetch_attempt(&mut self, tid: TaskId, ctx: &mut Context<Self>) {
        let executor = self.executor.as_mut().and_then(|e| e.tasks.get_mut(tid));
        let Some(f) = executor.and_then(|t| t.fetch_retries.as_ref()) else {
            return;
        };
        let server = f.source.location.executor_id;
        // The external shuffle service's client (ExternalBlockStoreClient, network-shuffle)
        // asks nobody: its IOException is retried until the retries are spent.
        let Some(driver) = self.driver.clone().filter(|_| !f.service) else {
            // No master to ask: `Try(askSync)` fails and the IOException stands.
            return self.on_fetch_executor_alive(tid, Ok(true), ctx);
        };
        let (me, timeout) = (self.me.id, self.conf.ask_timeout());
        let answer = move |r| BackendAnswer::FetchExecutorAlive(tid, r);
        self.ask(ctx, me, &driver, answer, &timeout, |a| {
            DriverEndpointMsg::BlockManagerIsExecutorAlive(a, server)
        });
    }

    /// The master's answer to a failed attempt's `IsExecutorAlive` (a failed ask rethrows the
    /// `IOException`, as `Try` does): a retry after `spark.shuffle.io.retryWait`, or the task's
    /// `FetchFailed` ([`FetchRetries::attempt_failed`]).
    pub(super) fn on_fetch_executor_alive(
        &mut self,
        tid: TaskId,
        alive: Result<bool, RpcFailure>,
        ctx: &mut Context<Self>,
    ) {
        let s = &self.sim.config.spark.shuffle;
        let retry = RetrySettings {
            max_retries: s.io_max_retries,
            wait_ms: s.io_retry_wait_ms,
        };
        let log = self.env.log().clone();
        let task = self.executor.as_mut().and_then(|e| e.tasks.get_mut(tid));
        let Some(task) = task else { return };
        let Some(f) = task.fetch_retries.as_mut() else {
            return;
        };
        let ip = self.sim.host_ip(&f.source.location.host);
        match f.attempt_failed(&log, alive != Ok(false), &ip, retry) {
            None => {
                let after = clock::ms(retry.wait_ms);
                task.timer =
                    timers::notify_later_with(ctx, after, move || ExecutorMsg::FetchAttempt(tid));
            }
            Some(failure) => {
                task.result = TaskResultData::FetchFailed(Box::new(failure));
                self.on_task_done(tid);
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
