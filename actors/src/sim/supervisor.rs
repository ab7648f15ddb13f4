//! The process supervisor: starts every simulated process and role as a fresh actor with fresh
//! state (OTP-style, never actix's `Supervisor`, which restarts the same value with no limit).
//! Recovery policy itself is Spark's and YARN's, in the roles: the allocator asks for
//! replacements, the RM starts new AM attempts. Roles call these functions instead of naming
//! each other's types.

use crate::application_master::{ApplicationMaster, UserClass};
use crate::driver::{Driver, UserProgram};
use crate::driver_endpoint::{BackendState, DriverEndpoint};
use crate::executor::ExecutorMain;
use crate::executor_runnable::ExecutorRunnable;
use crate::node_manager::{Launcher, NM_PORT, NodeManager};
use crate::resource_manager::{RM_PORT, ResourceManager, nm_process_name};
use crate::rpc::{EndpointRef, ProcessKind, RpcEnv};
use crate::sim::context::SimContext;
use crate::yarn_allocator::{AllocatorPeers, YarnAllocator};
use crate::yarn_scheduler_endpoint::YarnSchedulerEndpoint;
use rand::Rng;
use sparkyard_messages::application_master::ApplicationMasterMsg;
use sparkyard_messages::driver::DriverMsg;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ApplicationAttemptId;
use sparkyard_messages::node_manager::{NodeManagerMsg, StartContainerRequest};
use sparkyard_messages::records::ContainerMain;
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use sparkyard_messages::rpc::RpcAddress;
use sparkyard_messages::yarn_allocator::YarnAllocatorMsg;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// The YARN side of a cluster: the RM and one NodeManager per node.
pub fn start_cluster(sim: &Rc<SimContext>) -> EndpointRef<ResourceManagerMsg> {
    let d = &sim.dispatcher;
    let rm_host = sim.config.rm_host.clone();
    let rm_proc = d.add_process(
        "rm",
        RpcAddress {
            host: rm_host,
            port: RM_PORT,
        },
        ProcessKind::Yarn,
        "yarn-resourcemanager",
    );
    let rm = ResourceManager::start(sim.clone(), RpcEnv::new(d.clone(), rm_proc));
    let n = sim.config.nodes.len() as u64;
    let interval = sim.config.yarn.nm_heartbeat_interval_ms.max(1);
    for (i, spec) in sim.config.nodes.iter().enumerate() {
        let name = nm_process_name(&spec.host);
        let address = RpcAddress {
            host: spec.host.clone(),
            port: NM_PORT,
        };
        let pid = d.add_process(
            &name,
            address,
            ProcessKind::Yarn,
            &format!("yarn-nodemanager-{}", spec.host),
        );
        let offset = (i as u64 * interval) / n.max(1);
        let launcher = container_launcher(sim.clone(), rm.clone());
        NodeManager::start(
            sim.clone(),
            RpcEnv::new(d.clone(), pid),
            spec.clone(),
            rm.clone(),
            launcher,
            offset,
        );
    }
    rm
}

/// The spark-submit process and its Client.
pub fn start_client(sim: &Rc<SimContext>, rm: EndpointRef<ResourceManagerMsg>) {
    let d = &sim.dispatcher;
    let address = RpcAddress {
        host: "spark-submit".into(),
        port: 0,
    };
    let pid = d.add_process("spark-submit", address, ProcessKind::Yarn, "spark-submit");
    crate::client::Client::start(sim.clone(), RpcEnv::new(d.clone(), pid), rm);
}

/// What a NodeManager runs when a container's JVM starts.
fn container_launcher(sim: Rc<SimContext>, rm: EndpointRef<ResourceManagerMsg>) -> Launcher {
    Rc::new(
        move |req: Box<StartContainerRequest>, nm: &EndpointRef<NodeManagerMsg>| {
            let d = &sim.dispatcher;
            let StartContainerRequest {
                container: c,
                launch_context,
            } = *req;
            let host = c.node_id.host.clone();
            let key = c.id.to_string();
            let logs = d.logs();
            if logs.borrow().capture {
                let command = launch_context.commands.join(" ");
                logs.borrow_mut().set_container(&key, &host, &command);
            }
            let pid = match launch_context.main {
                ContainerMain::ApplicationMaster {
                    user_class,
                    jar,
                    args,
                } => {
                    let port = sim.rng.borrow_mut().random_range(30000..60000);
                    let pid = d.add_process(
                        &key,
                        RpcAddress { host, port },
                        ProcessKind::SparkServer,
                        &key,
                    );
                    let env = RpcEnv::new(d.clone(), pid);
                    crate::rpc::verifier::RpcEndpointVerifier::start(&env);
                    let uc = UserClass {
                        name: user_class,
                        jar,
                        args,
                    };
                    ApplicationMaster::start(sim.clone(), env, c.clone(), rm.clone(), uc);
                    pid
                }
                ContainerMain::Executor(args) => {
                    let port = sim.rng.borrow_mut().random_range(30000..60000);
                    let pid = d.add_process(
                        &key,
                        RpcAddress { host, port },
                        ProcessKind::SparkClient,
                        &key,
                    );
                    ExecutorMain::start(sim.clone(), RpcEnv::new(d.clone(), pid), args);
                    pid
                }
            };
            let (nm, cid) = (nm.clone(), c.id);
            d.on_process_exit(
                pid,
                Box::new(move |exit_code| {
                    nm.recipient
                        .do_send(NodeManagerMsg::ContainerProcessExited {
                            container_id: cid,
                            exit_code,
                        });
                }),
            );
            Some(pid)
        },
    )
}

/// `loadClass(--class)`: SparkPi, or the run's synthetic application if its class is asked for.
pub fn user_program(sim: &SimContext, class: &str) -> Option<UserProgram> {
    if class == crate::spark_pi::CLASS {
        return Some(UserProgram::SparkPi);
    }
    match &sim.config.synthetic {
        Some(p @ UserProgram::Synthetic { class: c, .. }) if c == class => Some(p.clone()),
        _ => None,
    }
}

/// The user class's `Driver` thread in the AM's JVM.
pub fn start_driver_thread(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    program: UserProgram,
    args: Vec<String>,
    am: EndpointRef<ApplicationMasterMsg>,
    attempt_id: ApplicationAttemptId,
) -> EndpointRef<DriverMsg> {
    Driver::start(sim.clone(), env.clone(), program, args, am, attempt_id)
}

/// The scheduler backend's two endpoints: `CoarseGrainedScheduler` and `YarnScheduler`.
pub fn start_scheduler_backend(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    bus: crate::sim::listener::ContextBus,
) -> (
    EndpointRef<DriverEndpointMsg>,
    EndpointRef<YarnSchedulerMsg>,
) {
    let shared = Rc::new(RefCell::new(BackendState::default()));
    let driver = DriverEndpoint::start(sim.clone(), env.clone(), shared.clone(), bus);
    let yarn = YarnSchedulerEndpoint::start(sim.clone(), env.clone(), shared, driver.clone());
    (driver, yarn)
}

/// The AM's YarnAllocator, whose launches start ExecutorRunnables.
pub fn start_allocator(
    sim: &Rc<SimContext>,
    env: &RpcEnv,
    attempt_id: ApplicationAttemptId,
    driver_url: String,
    rm: EndpointRef<ResourceManagerMsg>,
    driver: EndpointRef<YarnSchedulerMsg>,
    am: EndpointRef<ApplicationMasterMsg>,
) -> EndpointRef<YarnAllocatorMsg> {
    let (sim2, env2) = (sim.clone(), env.clone());
    // One copy of the strings every executor's arguments carry.
    let driver_url: Arc<str> = driver_url.into();
    let app: Arc<str> = attempt_id.application_id.to_string().into();
    let launch = Rc::new(
        move |c: sparkyard_messages::records::Container,
              id,
              allocator: EndpointRef<YarnAllocatorMsg>| {
            let nm = env2
                .dispatcher
                .lookup_named(&nm_process_name(&c.node_id.host), "NodeManager");
            ExecutorRunnable::start(
                sim2.clone(),
                env2.clone(),
                c,
                id,
                app.clone(),
                driver_url.clone(),
                nm,
                allocator,
            );
        },
    );
    let peers = AllocatorPeers {
        rm,
        driver,
        am,
        launch,
    };
    YarnAllocator::start(sim.clone(), env.clone(), attempt_id, peers)
}
