//! The driver's `YarnScheduler` endpoint (`YarnSchedulerBackend.YarnSchedulerEndpoint`): the AM
//! registers here, executor requests and kills go through it to the AM, AM-reported losses go
//! through it to the DriverEndpoint, and on a disconnect it asks the AM for the loss reason.

use crate::rpc::{AskTable, AskTimeout, Asker, EndpointRef, RpcEnv};
use crate::spark_core::driver::SchedulerBackendRefs;
use crate::spark_core::driver_endpoint::{BackendState, DriverEndpoint};
use crate::world::context::SimContext;
use crate::world::listener::ContextBus;
use crate::{info, warn};
use actix::{Actor, AsyncContext, Context};
use sparkyard_messages::application_master::YarnAmMsg;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::{ExecutorLossReason, RpcFailure};
use sparkyard_messages::rpc::{EndpointId, ReplyTo};
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::cell::RefCell;
use std::rc::Rc;

const TARGET: &str = "driver::YarnSchedulerBackend$YarnSchedulerEndpoint";

/// The YarnSchedulerEndpoint actor.
pub struct YarnSchedulerEndpoint {
    sim: Rc<SimContext>,
    env: RpcEnv,
    me: EndpointId,
    shared: Rc<RefCell<BackendState>>,
    driver: EndpointRef<DriverEndpointMsg>,
    am: Option<EndpointRef<YarnAmMsg>>,
    asks: AskTable<LossReasonAnswer>,
}

/// The AM's answer to `GetExecutorLossReason` for an executor that disconnected from `address`.
pub struct LossReasonAnswer {
    executor_id: ExecutorId,
    address: String,
    result: Result<ExecutorLossReason, RpcFailure>,
}

impl YarnSchedulerEndpoint {
    pub fn start(
        sim: Rc<SimContext>,
        env: RpcEnv,
        shared: Rc<RefCell<BackendState>>,
        driver: EndpointRef<DriverEndpointMsg>,
    ) -> EndpointRef<YarnSchedulerMsg> {
        let mut out = None;
        YarnSchedulerEndpoint::create(|ctx| {
            let mut env = env;
            let me = env.setup_endpoint(
                "YarnScheduler",
                &ctx.address(),
                Some(YarnSchedulerMsg::AskReply),
            );
            out = Some(me.clone());
            YarnSchedulerEndpoint {
                sim,
                env,
                me: me.id,
                shared,
                driver,
                am: None,
                asks: AskTable::default(),
            }
        });
        out.expect("create runs its closure")
    }

    /// The AM answers `msg` (it holds `ask`); before the AM has registered, Spark warns and
    /// answers false itself.
    fn forward_to_am(&mut self, ask: ReplyTo<bool>, msg: YarnAmMsg, action: &str) {
        match &self.am {
            Some(am) => self.env.send(&am.clone(), msg),
            None => {
                warn!(
                    self.env.log(),
                    TARGET, "Attempted to {action} before the AM has registered!"
                );
                self.env.reply(ask, false);
            }
        }
    }

    fn on_message(&mut self, msg: YarnSchedulerMsg, ctx: &mut Context<Self>) {
        match msg {
            YarnSchedulerMsg::RegisterClusterManager(am) => {
                info!(
                    self.env.log(),
                    TARGET, "ApplicationMaster registered as {am}"
                );
                self.am = self.env.resolve(&am);
            }
            YarnSchedulerMsg::RetrieveLastAllocatedExecutorId(ask) => {
                let id = self.shared.borrow().max_executor_id;
                self.env.reply(ask, i64::from(id));
            }
            YarnSchedulerMsg::RequestExecutors(ask, mut req) => {
                // prepareRequestExecutors: `scheduler.excludedNodes()` goes with every
                // request, also the one `stop()` sends (which the Driver thread builds).
                {
                    let shared = self.shared.borrow();
                    if !shared.excluded_nodes.is_empty() {
                        let mut all: std::collections::BTreeSet<String> =
                            req.excluded_nodes.drain(..).collect();
                        all.extend(shared.excluded_nodes.iter().cloned());
                        req.excluded_nodes = all.into_iter().collect();
                    }
                }
                self.forward_to_am(
                    ask,
                    YarnAmMsg::RequestExecutors(ask, req),
                    "request executors",
                )
            }
            YarnSchedulerMsg::KillExecutors(ask, ids) => {
                self.forward_to_am(ask, YarnAmMsg::KillExecutors(ask, ids), "kill executors")
            }
            YarnSchedulerMsg::RemoveExecutor {
                executor_id,
                reason,
            } => self.remove_executor(executor_id, reason),
            YarnSchedulerMsg::SignalDriverStop { exit_code } => {
                self.shared.borrow_mut().stopping = true;
                self.signal_driver_stop(exit_code)
            }
            YarnSchedulerMsg::ExecutorDisconnected {
                executor_id,
                address,
            } => self.on_executor_disconnected(executor_id, address, ctx),
            YarnSchedulerMsg::AskReply(reply) => self.on_ask_reply(reply, ctx),
            // YarnSchedulerEndpoint.receive: forwarded to the DriverEndpoint.
            YarnSchedulerMsg::DecommissionExecutorsOnHost(host) => self.env.send(
                &self.driver,
                DriverEndpointMsg::DecommissionExecutorsOnHost(host),
            ),
        }
    }

    /// `signalDriverStop(exitCode)`: `Shutdown` to the AM.
    fn signal_driver_stop(&mut self, exit_code: i32) {
        match &self.am {
            Some(am) => self
                .env
                .send(&am.clone(), YarnAmMsg::Shutdown { exit_code }),
            None => warn!(
                self.env.log(),
                TARGET, "Attempted to send shutdown message before the AM has registered!"
            ),
        }
    }

    fn remove_executor(&mut self, executor_id: ExecutorId, reason: ExecutorLossReason) {
        if self.shared.borrow().stopped {
            return;
        }
        warn!(
            self.env.log(),
            TARGET, "Requesting driver to remove executor {executor_id} for reason {reason}"
        );
        self.env.send(
            &self.driver,
            DriverEndpointMsg::RemoveExecutor {
                executor_id,
                reason,
            },
        );
    }

    /// `handleExecutorDisconnectedFromDriver`: the AM knows why the container went away.
    fn on_executor_disconnected(
        &mut self,
        id: ExecutorId,
        address: String,
        ctx: &mut Context<Self>,
    ) {
        let Some(am) = self.am.clone() else {
            warn!(
                self.env.log(),
                TARGET,
                "Attempted to check for an executor loss reason before the AM has registered!"
            );
            let reason = ExecutorLossReason::ProcessLost {
                message: "AM is not yet registered.".into(),
                caused_by_app: true,
            };
            return self.remove_executor(id, reason);
        };
        let s = &self.sim.config.spark;
        let timeout = AskTimeout::new(s.ask_timeout_ms, &s.ask_timeout_property);
        let me = self.me;
        let answer = move |result| LossReasonAnswer {
            executor_id: id,
            address,
            result,
        };
        self.ask(ctx, me, &am, answer, &timeout, |a| {
            YarnAmMsg::GetExecutorLossReason(a, id)
        });
    }
}

impl Actor for YarnSchedulerEndpoint {
    type Context = Context<Self>;
}

impl YarnSchedulerEndpoint {
    fn answered(&mut self, answer: LossReasonAnswer, _ctx: &mut Context<Self>) {
        let LossReasonAnswer {
            executor_id: id,
            address,
            result,
        } = answer;
        let reason = match result {
            Ok(reason) => reason,
            Err(_) => {
                warn!(
                    self.env.log(),
                    TARGET,
                    "Attempted to get executor loss reason for executor id {id} at RPC address {address}, but got no response. Marking as agent lost."
                );
                ExecutorLossReason::ProcessLost {
                    message: "Executor Process Lost".into(),
                    caused_by_app: true,
                }
            }
        };
        // The loss reason goes straight to the DriverEndpoint (no "Requesting driver" warning).
        self.env.send(
            &self.driver,
            DriverEndpointMsg::RemoveExecutor {
                executor_id: id,
                reason,
            },
        );
    }
}

crate::endpoint!(YarnSchedulerEndpoint {
    messages: YarnSchedulerMsg => on_message,
    answers: LossReasonAnswer => answered,
});

/// `YarnClusterManager.createSchedulerBackend`: the scheduler backend's two endpoints,
/// `CoarseGrainedScheduler` and `YarnScheduler`, sharing the backend's state. The AM hands this
/// to the Driver as its `ClusterManager` (spark_core names no YARN class).
pub fn create_scheduler_backend(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    bus: ContextBus,
) -> SchedulerBackendRefs {
    let shared = Rc::new(RefCell::new(BackendState::default()));
    let driver = DriverEndpoint::start(sim.clone(), env.clone(), shared.clone(), bus);
    let yarn = YarnSchedulerEndpoint::start(sim.clone(), env.clone(), shared, driver.clone());
    SchedulerBackendRefs { driver, yarn }
}
