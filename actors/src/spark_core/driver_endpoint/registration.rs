//! An executor's registration: `RetrieveSparkAppConfig`, `RegisterExecutor` (refusals, the record
//! and its consumers), `LaunchedExecutor` (its block manager, its first offer), and the backend's
//! readiness (Spark's `CoarseGrainedSchedulerBackend.DriverEndpoint.receiveAndReply`'s
//! `RegisterExecutor` / `RetrieveSparkAppConfig`, `receive`'s `LaunchedExecutor`, and
//! `CoarseGrainedSchedulerBackend.isReady`).

use super::{BACKEND, DriverEndpoint, TARGET};
use crate::info;
use crate::kernel::clock;
use crate::kernel::trace::StateChange;
use crate::spark_core::block_manager_master;
use crate::spark_core::coarse_grained_backend::{self as backend_rules, ExecutorListing};
use crate::spark_core::driver_endpoint_state::{ExecutorData, ExecutorRegistration};
use crate::spark_core::executor_resource_info::ExecutorResources;
use crate::spark_core::{executor_env, unified_memory_manager};
use crate::world::injector;
use crate::world::observer::RunEvent;
use actix::{AsyncContext, Context};
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::driver_endpoint::RegisterExecutor;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::ListenerEvent;
use sparkyard_messages::records::RpcFailure;
use sparkyard_messages::rpc::{RemoteRef, ReplyTo, SparkAppConfig};
use std::cell::RefCell;
use std::rc::Rc;

impl DriverEndpoint {
    pub(super) fn on_retrieve_spark_app_config(
        &mut self,
        ask: ReplyTo<SparkAppConfig>,
        resource_profile_id: u32,
    ) {
        let props = self.app_properties.clone();
        let cfg = SparkAppConfig {
            spark_properties: props,
            io_encryption_key: None,
            hadoop_delegation_creds: None,
            resource_profile_id,
            log_level: None,
        };
        self.env.reply(ask, cfg);
    }

    /// `RegisterExecutor`: duplicate and excluded executors are refused with Spark's texts.
    pub(super) fn on_register_executor(&mut self, ask: ReplyTo<bool>, reg: RegisterExecutor) {
        let id = reg.executor_id;
        let excluded = self.scheduler.excluded_nodes().contains(&reg.hostname);
        if let Err(refusal) = self.core.check_registration(id, excluded) {
            if let Some(line) = refusal.log_line() {
                info!(self.env.log(), TARGET, "{line}");
            }
            let failure = RpcFailure::illegal_state(refusal.message());
            return self.env.reply_failure(ask, failure);
        }
        let Some(executor) = self.env.resolve::<ExecutorMsg>(&reg.executor_ref) else {
            return self.env.reply_failure(
                ask,
                RpcFailure::spark(format!("Could not find {}.", reg.executor_ref.address.name)),
            );
        };
        let executor_endpoint = executor.id;
        // Formatted only when the line is logged (the macro's arguments are lazy).
        info!(
            self.env.log(),
            TARGET,
            "{}",
            backend_rules::registered_line(
                &reg.executor_ref,
                &self.sim.host_ip(&reg.sender_address.host),
                reg.sender_address.port,
                id,
                reg.resource_profile_id,
            )
        );
        // ExecutorData's resourcesInfo: the addresses the executor found, as its tasks ask them.
        let resources = ExecutorResources::new(&reg.resources, &self.task_resources)
            .map(|r| Rc::new(RefCell::new(r)));
        let registration = self.core.register(
            id,
            ExecutorData {
                executor,
                address: reg.sender_address,
                host: Rc::from(reg.hostname.as_str()),
                free_cores: 0,
                total_cores: reg.cores,
                resources,
            },
        );
        // `logUrlHandler.applyPattern(logUrls, attributes)` (spark.ui.custom.executor.log.url).
        let rewritten = self
            .log_url_handler
            .rewrite(self.env.log(), &reg.attributes);
        let listing = ExecutorListing {
            request_time: self.request_times.take_for_registration(),
            log_urls: rewritten.unwrap_or(reg.log_urls),
            attributes: reg.attributes,
            resources: reg.resources,
        };
        self.publish_registration(&registration, listing);
        self.env
            .trace_state("DriverEndpoint", || StateChange::ExecutorRegistered {
                executor: id,
                endpoint: executor_endpoint,
            });
        self.env.reply(ask, true);
    }

    /// Every consumer of a registration, each reading the one record: the backend's highest
    /// id, the run's record, the registers-once invariant, the HeartbeatReceiver
    /// (`onExecutorAdded`), the fault injector, and the listener bus
    /// (`SparkListenerExecutorAdded`, which the allocation manager and its executor monitor
    /// hear). The `Registered executor` line reads the message, earlier: Spark logs it first.
    fn publish_registration(
        &mut self,
        registration: &ExecutorRegistration,
        listing: ExecutorListing,
    ) {
        let (id, attempt) = (registration.id, self.sim.current_attempt.get());
        {
            let mut shared = self.shared.borrow_mut();
            shared.max_executor_id = shared.max_executor_id.max(id.0);
        }
        self.sim.observe(registration.run_event(attempt));
        self.sim
            .violations
            .executor_registered(attempt, id.0, registration.seen_before);
        self.heartbeats.executor_added(id, clock::now_ms());
        injector::executor_registered(&self.sim, attempt, id.0);
        injector::notify(&self.sim, registration.trigger(attempt));
        self.bus
            .post(|| registration.listener_event(clock::now_epoch_ms(), listing));
    }

    /// `LaunchedExecutor`: the executor's cores become free and it gets offers at once.
    pub(super) fn on_launched_executor(&mut self, id: ExecutorId) {
        let Some(host) = self.core.launched(id) else {
            return;
        };
        self.sim.observe(RunEvent::ExecutorReady { executor: id });
        self.update_offerable(id);
        self.register_block_manager(id, host);
        self.make_offers(Some(id));
    }

    /// BlockManagerMasterEndpoint's `register`: the executor's BlockManager registers with what
    /// its UnifiedMemoryManager can use (its heap is `-Xmx<spark.executor.memory>`,
    /// ExecutorRunnable's command), at its start and again when it re-registers.
    pub(super) fn register_block_manager(&mut self, id: ExecutorId, host: Rc<str>) {
        let max_memory =
            unified_memory_manager::max_memory(self.sim.config.spark.executor_memory_mb);
        let port = executor_env::block_manager_port(id);
        info!(
            self.env.log(),
            "driver::BlockManagerMasterEndpoint",
            "{}",
            block_manager_master::registering_line(id, &host, port, max_memory)
        );
        self.scheduler.block_manager_added(id, host.clone());
        self.bus.post(|| ListenerEvent::BlockManagerAdded {
            time: clock::now_epoch_ms(),
            executor_id: id.to_string(),
            host: host.to_string(),
            port,
            max_memory,
        });
    }

    /// `isReady`: enough executors registered, or the waiting time passed; re-checked every 100 ms.
    pub(super) fn check_backend_ready(&mut self, waiter: RemoteRef, ctx: &mut Context<Self>) {
        let s = &self.sim.config.spark;
        let registration = backend_rules::Registration {
            registered: self.core.total_registered,
            expected: s.initial_target_executors(),
            min_ratio: s.min_registered_resources_ratio,
            waited_ms: clock::now_ms() - self.created_ms,
            max_wait_ms: s.max_registered_resources_waiting_time_ms,
        };
        if !self.ready
            && let Some(readiness) = backend_rules::is_ready(registration)
        {
            info!(self.env.log(), BACKEND, "{}", readiness.line());
            self.ready = true;
        }
        if self.ready {
            if let Some(w) = self.env.resolve::<DriverMsg>(&waiter) {
                self.env.send(&w, DriverMsg::BackendReady);
            }
            return;
        }
        ctx.run_later(clock::ms(100), move |act, ctx| {
            act.check_backend_ready(waiter, ctx)
        });
    }
}
