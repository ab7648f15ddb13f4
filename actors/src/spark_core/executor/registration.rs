//! The backend's registration: `RegisterExecutor` asked of the driver once OnStart found it, then
//! `RegisteredExecutor` creates the Executor and sends `LaunchedExecutor` (Spark's
//! `CoarseGrainedExecutorBackend.onStart` and its `RegisteredExecutor` case in `receive`).

use super::{
    BACKEND, BackendAnswer, CoarseGrainedExecutorBackend, EXECUTOR, Executor, ExecutorBlocks,
    driver_ref,
};
use crate::info;
use crate::kernel::logs::Level;
use crate::kernel::small_map::SmallSet;
use crate::kernel::trace::StateChange;
use crate::kernel::{clock, timers};
use crate::rpc::Asker;
use crate::spark_core::block_fetch::FetchClients;
use crate::spark_core::block_manager::RddBlocks;
use crate::spark_core::executor_env;
use crate::spark_core::executor_log_url_handler;
use crate::spark_core::executor_state::{ExecutorTasks, Heartbeater};
use crate::spark_core::map_output_tracker_worker::MapStatusCache;
use crate::spark_core::memory_store::{EXECUTOR_STORE, MemoryStore};
use crate::spark_core::unified_memory_manager::max_memory;
use crate::world::addresses::app_cache_dir;
use actix::Context;
use sparkyard_messages::driver_endpoint::{DriverEndpointMsg, RegisterExecutor};

impl CoarseGrainedExecutorBackend {
    pub(super) fn register(&mut self, ctx: &mut Context<Self>) {
        let Some(driver) = driver_ref(&self.env, &self.args.driver_url) else {
            return self.exit_executor(self.cannot_register(String::new()), false);
        };
        self.driver = Some(driver.clone());
        let me = self.me.clone();
        let reg = RegisterExecutor {
            executor_id: self.args.executor_id,
            executor_ref: self.env.remote_ref(me.id),
            sender_address: self.env.address(),
            hostname: self.args.hostname.clone(),
            cores: self.args.cores,
            log_urls: self.log_urls(),
            // YarnCoarseGrainedExecutorBackend.extractAttributes.
            attributes: executor_log_url_handler::yarn_attributes(
                &self.args.hostname,
                self.env.log().key(),
                &self.sim.config.user,
            ),
            resources: self.resources.clone(),
            resource_profile_id: self.args.resource_profile_id,
        };
        let t = self.conf.ask_timeout();
        self.ask(ctx, me.id, &driver, BackendAnswer::Register, &t, |a| {
            DriverEndpointMsg::RegisterExecutor(a, Box::new(reg))
        });
    }

    /// `RegisteredExecutor`: create the Executor, then `LaunchedExecutor`.
    pub(super) fn on_registered_executor(&mut self, ctx: &mut Context<Self>) {
        self.start_heartbeater(ctx);
        let log = self.env.log().clone();
        info!(log, BACKEND, "Successfully registered with driver");
        info!(
            log,
            EXECUTOR,
            "Starting executor ID {} on host {}",
            self.args.executor_id,
            self.args.hostname
        );
        let spark = &self.sim.config.spark;
        let class_path = || executor_env::UserClassPath {
            primary_resource: &spark.primary_resource,
            dist_jars: spark
                .properties
                .get("spark.yarn.dist.jars")
                .map(String::as_str),
            user_class_path_first: spark
                .properties
                .get("spark.executor.userClassPathFirst")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
            container_dir: format!(
                "{}/{}",
                app_cache_dir(&self.sim.config.user, &self.args.app_id),
                log.key()
            ),
        };
        executor_env::log_executor_started(
            &log,
            self.args.executor_id,
            &self.args.hostname,
            &self.sim.config.user,
            class_path,
        );
        let blocks = log
            .enabled(EXECUTOR_STORE.torrent_broadcast, Level::Info)
            .then(|| {
                let heap = self.sim.config.spark.executor_memory_mb;
                Box::new(ExecutorBlocks {
                    store: MemoryStore::new(EXECUTOR_STORE, max_memory(heap)),
                    read: SmallSet::default(),
                    connected: false,
                    fetch_clients: FetchClients::default(),
                })
            });
        self.state.registered();
        self.executor = Some(Executor {
            tasks: ExecutorTasks::default(),
            heartbeater: Heartbeater::new(self.conf.heartbeat_max_failures),
            rdd_blocks: RddBlocks::default(),
            latest_piece: None,
            broadcast_pieces: SmallSet::default(),
            map_statuses: MapStatusCache::default(),
            blocks,
        });
        let id = self.args.executor_id;
        // Its BlockManager serves shuffle blocks from this JVM from now on.
        self.sim
            .block_servers
            .executor_started(id, self.env.process);
        self.env
            .trace_state("Executor", || StateChange::ExecutorCreated { executor: id });
        // The Executor's construction (`CostModel::executor_init_ms`) ends with
        // `LaunchedExecutor`: the driver offers it tasks from then on.
        match self.sim.config.costs.executor_init_ms {
            0 => self.send_launched_executor(),
            ms => {
                timers::run_later(ctx, clock::ms(ms), |act: &mut Self, _| {
                    act.send_launched_executor()
                });
            }
        }
    }

    /// `LaunchedExecutor` to the driver, once the Executor exists.
    fn send_launched_executor(&self) {
        if let Some(d) = &self.driver {
            self.env.send(
                d,
                DriverEndpointMsg::LaunchedExecutor(self.args.executor_id),
            );
        }
    }
}
