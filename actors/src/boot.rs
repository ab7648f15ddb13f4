//! Boot: the only module that names every role. It starts the cluster's daemons and spark-submit,
//! and hands the NodeManagers the `Launcher` that starts a container's JVM (the AM or an
//! executor) as a fresh actor with fresh state (OTP-style, never actix's `Supervisor`, which
//! restarts the same value with no limit). Recovery policy itself is Spark's and YARN's, in the
//! roles: the allocator asks for replacements, the RM starts new AM attempts.

use crate::hadoop_yarn::node_manager::{LaunchedContainer, Launcher, NodeManager};
use crate::hadoop_yarn::resource_manager::ResourceManager;
use crate::rpc::{EndpointRef, ProcessKind, RpcEnv};
use crate::spark_core::executor::ExecutorMain;
use crate::spark_yarn::application_master::{AmConf, ApplicationMaster, UserClass};
use crate::world::addresses::{NM_PORT, RM_PORT, RM_PROCESS, nm_process_name};
use crate::world::context::{ClusterContext, SimContext};
use crate::world::observer::RunEvent;
use rand::Rng;
use sparkyard_messages::node_manager::{NodeManagerMsg, StartContainerRequest};
use sparkyard_messages::records::ContainerMain;
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use sparkyard_messages::rpc::RpcAddress;
use std::rc::Rc;

/// At most this many distinct NodeManager heartbeat phases per interval.
const HEARTBEAT_PHASES: u64 = 100;

/// When node `i` of `n` heartbeats within each interval. Real NodeManagers heartbeat at the
/// phase their start gave them (`NodeStatusUpdaterImpl` sleeps the RM's
/// `nextHeartBeatInterval` after each response); sparkyard spreads them evenly, and on a cluster
/// of more than `HEARTBEAT_PHASES` nodes puts them on that many phases (nodes that started
/// within the same few milliseconds), because every distinct phase is a virtual-clock advance
/// every interval: 1,000 phases a second made a simulated 24-hour day of 1,000 nodes 86.4 M
/// advances.
fn heartbeat_phase(i: u64, n: u64, interval: u64) -> u64 {
    if n <= HEARTBEAT_PHASES {
        return (i * interval) / n.max(1);
    }
    (i * HEARTBEAT_PHASES / n) * interval / HEARTBEAT_PHASES
}

/// The YARN side of a cluster: the RM and one NodeManager per node.
pub fn start_cluster(sim: &Rc<ClusterContext>) -> EndpointRef<ResourceManagerMsg> {
    let d = &sim.dispatcher;
    let rm_host = sim.config.rm_host.clone();
    let rm_proc = d.add_process(
        RM_PROCESS,
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
        let offset = heartbeat_phase(i as u64, n, interval);
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
        host: crate::world::addresses::CLIENT_HOST.into(),
        port: 0,
    };
    let log = client_log_key(sim);
    let pid = d.add_process("spark-submit", address, ProcessKind::Yarn, &log);
    crate::spark_yarn::client::Client::start(sim.clone(), RpcEnv::new(d.clone(), pid), rm);
}

/// Where a spark-submit's output goes: `spark-submit` (the process's own name) when the run has
/// one application; with several, each spark-submit is its own process with its own output, so
/// each gets its own log, `spark-submit-N` (N: its place in submission order, from 1).
fn client_log_key(sim: &SimContext) -> String {
    if sim.cluster.application_count() > 1 {
        format!("spark-submit-{}", sim.index + 1)
    } else {
        "spark-submit".to_string()
    }
}

/// What a NodeManager runs when a container's JVM starts.
fn container_launcher(
    cluster: Rc<ClusterContext>,
    rm: EndpointRef<ResourceManagerMsg>,
) -> Launcher {
    Rc::new(
        move |launch: LaunchedContainer, nm: &EndpointRef<NodeManagerMsg>| {
            let d = &cluster.dispatcher;
            let LaunchedContainer {
                request,
                gpu_minors,
            } = launch;
            let StartContainerRequest {
                container: c,
                launch_context,
            } = *request;
            // The container's application: its JVM is one of that application's roles.
            let sim = cluster.application(c.id.attempt.application_id)?;
            // The devices its GPU isolation shows it (what an executor's GPU discovery finds).
            let container_gpus = (!gpu_minors.is_empty()).then_some(gpu_minors.len() as u32);
            if !gpu_minors.is_empty() {
                sim.observe(RunEvent::ContainerGpus {
                    container: c.id,
                    minors: gpu_minors,
                });
            }
            let host = c.node_id.host.clone();
            let key = c.id.to_string();
            let logs = d.logs();
            if logs.borrow().capture {
                let script = crate::hadoop_yarn::node_manager::launch_container_script(
                    &launch_context,
                    &sim.config.user,
                );
                logs.borrow_mut().set_container(&key, &host, &script);
            }
            let pid = match launch_context.main {
                ContainerMain::ApplicationMaster {
                    user_class,
                    // The user jar is on the AM's command line (`--jar`); no class is loaded.
                    jar: _,
                    args,
                    submit_time_ms,
                } => {
                    let port = free_port(&sim, &host);
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
                        args,
                    };
                    // `--dist-cache-conf`: the resources the Client listed, which are the
                    // AM's own launch context's (Client.prepareLocalResources).
                    let conf = AmConf {
                        submit_time_ms,
                        jvm_command: launch_context.commands.join(" "),
                        dist_cache: launch_context.local_resources.clone(),
                        container_gpus,
                    };
                    ApplicationMaster::start(sim.clone(), env, c.clone(), rm.clone(), uc, conf);
                    pid
                }
                ContainerMain::Executor(args) => {
                    let port = free_port(&sim, &host);
                    let pid = d.add_process(
                        &key,
                        RpcAddress { host, port },
                        ProcessKind::SparkClient,
                        &key,
                    );
                    ExecutorMain::start(
                        sim.clone(),
                        RpcEnv::new(d.clone(), pid),
                        args,
                        container_gpus,
                    );
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

/// The port a container's RpcEnv listens on: a random one (Spark binds port 0, the OS picks a
/// free ephemeral port), drawn again while another live process on the host has it (two
/// applications' JVMs on one node, whose streams draw alike under one seed).
fn free_port(sim: &SimContext, host: &str) -> u16 {
    loop {
        let port = sim.rng.borrow_mut().random_range(30000..60000);
        let address = RpcAddress {
            host: host.to_string(),
            port,
        };
        if sim.dispatcher.process_at(&address).is_none() {
            return port;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{HEARTBEAT_PHASES, heartbeat_phase};
    use std::collections::BTreeMap;

    #[test]
    fn small_clusters_keep_one_phase_per_node_spread_evenly() {
        let phases: Vec<u64> = (0..3).map(|i| heartbeat_phase(i, 3, 1000)).collect();
        assert_eq!(phases, [0, 333, 666]);
        let hundred: Vec<u64> = (0..100).map(|i| heartbeat_phase(i, 100, 1000)).collect();
        assert_eq!(hundred, (0..100).map(|i| i * 10).collect::<Vec<_>>());
    }

    #[test]
    fn large_clusters_share_a_hundred_phases_evenly_inside_the_interval() {
        for (n, interval) in [(1000, 1000), (10_000, 1000), (101, 1000), (250, 3000)] {
            let mut per_phase = BTreeMap::<u64, u64>::new();
            for i in 0..n {
                let p = heartbeat_phase(i, n, interval);
                assert!(p < interval, "node {i} of {n}: phase {p}");
                *per_phase.entry(p).or_default() += 1;
            }
            assert_eq!(per_phase.len() as u64, HEARTBEAT_PHASES, "{n} nodes");
            let (lo, hi) = (per_phase.values().min(), per_phase.values().max());
            assert!(
                hi.unwrap() - lo.unwrap() <= 1,
                "{n} nodes: uneven {per_phase:?}"
            );
        }
    }
}
