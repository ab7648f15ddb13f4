//! Fires planned faults: roles report the events triggers can name (`notify`), timed faults are
//! armed at boot (`arm_timed`), and each fired fault acts on processes through the Dispatcher and
//! the NodeManagers, after the current handler (never re-entrantly). With several applications
//! on the cluster, a fault's application targets and event triggers are those of the
//! application it aims at (`PlannedFault::app`); a node fault acts on the node, so on every
//! application with containers there.

use crate::faults::{
    ContainerEnd, FaultAction, FetchFailureSpot, Firing, NodeTarget, PlannedFault, Trigger,
    WaitingRule,
};
use crate::kernel::clock;
use crate::kernel::trace::{FaultEvent, FaultTarget, Sender, TraceKind};
use crate::rpc::network::{LinkRule, ProcessPattern};
use crate::world::addresses::{RM_PROCESS, nm_process_name};
use crate::world::context::{ClusterContext, SimContext};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ContainerId;
use sparkyard_messages::node_manager::NodeManagerMsg;
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use std::rc::Rc;

/// Arms every time-triggered fault (at its time on the cluster's clock; each acts in the
/// application it aims at).
pub fn arm_timed(cluster: &Rc<ClusterContext>) {
    for (ms, index) in cluster.faults.timed() {
        let cluster = cluster.clone();
        actix::spawn(async move {
            tokio::time::sleep(clock::ms(ms)).await;
            let Some(f) = cluster.faults.take_index(index) else {
                return;
            };
            // The runner refuses a plan aiming past its applications, and owns them to the end.
            // `running_app = K` names whichever application runs K-th now; with none running
            // the fault fires in its `app` and says it has nothing to act on.
            let running = f.running_app.and_then(|k| cluster.running_application(k));
            if let Some(sim) = running.or_else(|| cluster.application_at(f.app)) {
                fire(&sim, f);
            }
        });
    }
}

/// A role saw `event`: fire the faults it triggers (after the current handler returns).
#[inline]
pub fn notify(sim: &Rc<SimContext>, event: Trigger) {
    // Inline: every task's launch and end notify, and most runs arm no trigger.
    if sim.faults.has_event_triggers() {
        notify_armed(sim, event);
    }
}

#[inline(never)]
fn notify_armed(sim: &Rc<SimContext>, event: Trigger) {
    for f in sim.faults.take_matching(sim.index, &event) {
        let sim = sim.clone();
        actix::spawn(async move {
            if f.after_ms > 0 {
                tokio::time::sleep(clock::ms(f.after_ms)).await;
            }
            fire(&sim, f)
        });
    }
}

fn fire(sim: &Rc<SimContext>, f: PlannedFault) {
    let resolved = resolve_target(sim, &f.action);
    let (target, no_effect) = match &resolved {
        Ok(t) => (t.trace_target(), ignored_by_spark(sim, &f.action)),
        Err(why) => (FaultTarget::Nothing, Some(why.clone())),
    };
    let firing = {
        let mut fired = sim.faults.fired.borrow_mut();
        fired.push(Firing {
            at_ms: clock::now_ms(),
            app: sim.index,
            label: f.label.clone(),
            target: target.clone(),
            no_effect,
        });
        fired.len() - 1
    };
    let label = f.label.clone();
    sim.dispatcher.record(Sender::NONE, "Fault", || {
        TraceKind::Fault(FaultEvent::Fired { label, target })
    });
    if let Ok(resolved) = resolved {
        act(sim, f.action, resolved, firing);
    }
}

/// What a fault acts on, resolved as it fires.
enum Resolved {
    /// A live container on its host (an executor's or the AM's).
    Container(ContainerId, String),
    /// A node, by host.
    Node(String),
    /// Network rules, with the first container they name (if launched).
    Network(Option<ContainerId>),
    /// The action needs no target of its own (fetch failures).
    Untargeted,
}

impl Resolved {
    fn trace_target(&self) -> FaultTarget {
        match self {
            Resolved::Container(cid, _) => FaultTarget::Container(*cid),
            Resolved::Node(host) => FaultTarget::Node(host.clone()),
            Resolved::Network(first) => FaultTarget::Network(*first),
            Resolved::Untargeted => FaultTarget::Nothing,
        }
    }

    fn host(self) -> String {
        match self {
            Resolved::Container(_, host) | Resolved::Node(host) => host,
            Resolved::Network(_) | Resolved::Untargeted => String::new(),
        }
    }
}

/// Applies a fired fault to what it resolved to.
/// Carries out a fault that fired (`firing`: its record in `fired`).
fn act(sim: &Rc<SimContext>, action: FaultAction, resolved: Resolved, firing: usize) {
    match action {
        FaultAction::KillExecutor { end, .. }
        | FaultAction::KillRegisteredExecutor { end, .. }
        | FaultAction::KillApplicationMaster { end } => {
            if let Resolved::Container(cid, host) = resolved {
                end_container(sim, cid, &host, end);
            }
        }
        FaultAction::KillNode { .. } => sim.dispatcher.exit_host(&resolved.host(), 137),
        FaultAction::DecommissionNode { .. } => {
            let rm = sim
                .dispatcher
                .lookup_named::<ResourceManagerMsg>(RM_PROCESS, "ResourceManager");
            if let Some(rm) = rm {
                let host = resolved.host();
                sim.dispatcher
                    .deliver_local(&rm, ResourceManagerMsg::DecommissionNode { host });
            }
        }
        FaultAction::FailLaunches { count, .. } => {
            sim.faults.add_launch_failures(&resolved.host(), count)
        }
        FaultAction::FailFetches {
            stage,
            partition,
            count,
        } => sim.faults.add_fetch_failures(
            FetchFailureSpot {
                app: sim.index,
                stage,
                partition,
            },
            count,
            firing,
        ),
        FaultAction::KillShuffleService { .. } => {
            // The node's shuffle service served every application's blocks there.
            let host = resolved.host();
            for app in sim.cluster.applications() {
                app.block_servers.stop_shuffle_service(&host);
            }
        }
        FaultAction::SlowNode {
            factor_milli,
            duration_ms,
            ..
        } => {
            let until = duration_ms.map(|d| clock::now_ms().saturating_add(d));
            sim.faults
                .add_slow_node(&resolved.host(), factor_milli, until)
        }
        FaultAction::FailTasksOnExecutor {
            executor,
            exception,
        } => {
            let attempt = sim.current_attempt.get();
            sim.faults
                .add_failing_executor(sim.index, attempt, executor, exception)
        }
        FaultAction::ExcludeNode { .. } => {
            if let Some(d) = driver(sim) {
                let host = resolved.host();
                sim.dispatcher
                    .deliver_local(&d, DriverEndpointMsg::ExcludeNode(host));
            }
        }
        FaultAction::Network(rules) => arm_rules(sim, rules),
        FaultAction::KillApplication => kill_application(sim),
    }
}

/// `yarn application -kill <id>`: the user runs YARN's CLI where spark-submit runs.
fn kill_application(sim: &SimContext) {
    let rm = sim
        .dispatcher
        .lookup_named::<ResourceManagerMsg>(RM_PROCESS, "ResourceManager");
    if let (Some(rm), Some(id)) = (rm, sim.application_id()) {
        let from_host = crate::world::addresses::CLIENT_HOST.to_string();
        sim.dispatcher
            .deliver_local(&rm, ResourceManagerMsg::KillApplication { id, from_host });
    }
}

/// The running driver's endpoint (in the AM container), if any.
fn driver(sim: &SimContext) -> Option<crate::rpc::EndpointRef<DriverEndpointMsg>> {
    let am = sim.am_container.borrow().clone();
    am.and_then(|(cid, _)| {
        sim.dispatcher
            .lookup_named::<DriverEndpointMsg>(&cid.to_string(), "CoarseGrainedScheduler")
    })
}

fn arm_rules(sim: &Rc<SimContext>, rules: Vec<LinkRule>) {
    let now = clock::now_ms();
    let attempt = sim.current_attempt.get();
    for mut rule in rules {
        rule.from = resolve(sim, attempt, rule.from);
        rule.to = resolve(sim, attempt, rule.to);
        rule.active_from_ms += now;
        rule.active_until_ms = rule.active_until_ms.saturating_add(now);
        if unresolved(&rule) {
            // Its executor is not launched yet (a rule armed at 0 ms): it waits for it.
            let app = sim.index;
            sim.faults
                .waiting_rules
                .borrow_mut()
                .push(WaitingRule { app, rule });
        } else {
            sim.dispatcher.add_rule(rule);
        }
    }
}

/// Whether container `cid`'s process is running.
fn running(sim: &SimContext, cid: &ContainerId) -> bool {
    sim.dispatcher
        .process_named(&cid.to_string())
        .is_some_and(|pid| sim.dispatcher.alive_flag(pid).get())
}

/// Executor `n` of the current attempt as a live container, or exactly why not.
fn executor_container(sim: &SimContext, n: u32) -> Result<(ContainerId, String), String> {
    let attempt = sim.current_attempt.get();
    if attempt == 0 {
        return Err(format!(
            "no AM attempt had started yet, so executor {n} was not launched"
        ));
    }
    let found = sim.executors.borrow().get(&(attempt, n)).cloned();
    match found {
        None => Err(format!(
            "executor {n} of AM attempt {attempt} was never launched (by then)"
        )),
        Some((cid, _)) if !running(sim, &cid) => Err(format!(
            "executor {n} of AM attempt {attempt} had already ended (container {cid})"
        )),
        Some(found) => Ok(found),
    }
}

/// The executor that registered `rank`-th (from 1) with the current attempt's driver, or why
/// none did.
fn registered_executor(sim: &SimContext, rank: u32) -> Result<u32, String> {
    let attempt = sim.current_attempt.get();
    let registered = sim.registered.borrow();
    let mut of_attempt = registered.iter().filter(|(a, _)| *a == attempt);
    of_attempt
        .nth((rank.max(1) - 1) as usize)
        .map(|&(_, n)| n)
        .ok_or_else(|| {
            format!("fewer than {rank} executors had registered with AM attempt {attempt}'s driver")
        })
}

/// An executor registered with its driver: kept in order when a planned fault names
/// executors.
pub fn executor_registered(sim: &SimContext, attempt: u32, executor: u32) {
    if sim.faults.names_executors {
        sim.registered.borrow_mut().push((attempt, executor));
    }
}

/// The current AM attempt's container, running, or exactly why not.
fn am_container(sim: &SimContext) -> Result<(ContainerId, String), String> {
    let attempt = sim.current_attempt.get();
    match sim.am_container.borrow().clone() {
        None => Err("no AM container had started yet".into()),
        Some((cid, _)) if !running(sim, &cid) => Err(format!(
            "the AM container of attempt {attempt} ({cid}) had already ended and no new attempt had started"
        )),
        Some(found) => Ok(found),
    }
}

/// The host a node target names now, or exactly why none.
fn node_host(sim: &SimContext, node: &NodeTarget) -> Result<String, String> {
    match node {
        NodeTarget::Host(h) => Ok(h.clone()),
        NodeTarget::AmNode => am_container(sim).map(|(_, h)| h),
        NodeTarget::ExecutorNode(n) => executor_container(sim, *n).map(|(_, h)| h),
        NodeTarget::RunningExecutor(k) => {
            let attempt = sim.current_attempt.get();
            let live: Vec<String> = sim
                .executors
                .borrow()
                .range((attempt, 0)..=(attempt, u32::MAX))
                .filter(|(_, (cid, _))| running(sim, cid))
                .map(|(_, (_, host))| host.clone())
                .collect();
            if attempt == 0 {
                return Err("no AM attempt had started yet, so no executor was running".into());
            }
            if live.is_empty() {
                return Err(format!("no executor of AM attempt {attempt} was running"));
            }
            let i = (k.max(&1) - 1) as usize % live.len();
            Ok(live[i].clone())
        }
    }
}

/// What a fault acts on, resolved as it fires (the trace records it with the fault), or
/// exactly why it can act on nothing.
fn resolve_target(sim: &SimContext, action: &FaultAction) -> Result<Resolved, String> {
    match action {
        FaultAction::KillExecutor { executor: n, .. }
        | FaultAction::FailTasksOnExecutor { executor: n, .. } => {
            executor_container(sim, *n).map(|(cid, h)| Resolved::Container(cid, h))
        }
        FaultAction::KillRegisteredExecutor { rank, .. } => registered_executor(sim, *rank)
            .and_then(|n| executor_container(sim, n))
            .map(|(cid, h)| Resolved::Container(cid, h)),
        FaultAction::KillApplicationMaster { .. } => {
            am_container(sim).map(|(cid, h)| Resolved::Container(cid, h))
        }
        FaultAction::KillNode { node }
        | FaultAction::DecommissionNode { node }
        | FaultAction::FailLaunches { node, .. }
        | FaultAction::KillShuffleService { node }
        | FaultAction::SlowNode { node, .. } => node_host(sim, node).map(Resolved::Node),
        FaultAction::ExcludeNode { node } => {
            if driver(sim).is_none() {
                return Err("no driver was running to exclude the node".into());
            }
            // HealthTracker.isExcludeOnFailureEnabled: without it Spark has no HealthTracker,
            // and nothing in Spark excludes a node for the application.
            let conf = &sim.config.spark.exclude_on_failure;
            if !conf.is_exclude_on_failure_enabled().enabled {
                return Err(
                    "Spark has no HealthTracker to exclude the node: exclusion on \
                            failure is not enabled (spark.excludeOnFailure.enabled)"
                        .into(),
                );
            }
            node_host(sim, node).map(Resolved::Node)
        }
        FaultAction::FailFetches { .. } => Ok(Resolved::Untargeted),
        // The RM kills the whole application; the trace names its running AM container (none
        // while it waits for one).
        FaultAction::KillApplication => match sim.application_id() {
            None => Err("the application had not been submitted yet".into()),
            Some(_) => Ok(am_container(sim)
                .map_or(Resolved::Untargeted, |(cid, h)| Resolved::Container(cid, h))),
        },
        FaultAction::Network(rules) => {
            let executor = |n: u32| {
                let attempt = sim.current_attempt.get();
                sim.executors
                    .borrow()
                    .get(&(attempt, n))
                    .map(|(cid, _)| *cid)
            };
            let first = rules
                .iter()
                .flat_map(|r| [&r.from, &r.to])
                .find_map(|p| match p {
                    ProcessPattern::Executor(n) => executor(*n),
                    _ => None,
                });
            Ok(Resolved::Network(first))
        }
    }
}

/// Why a fault that acts on its node (YARN decommissions it, the NodeManager's service stops)
/// changes nothing any application on the cluster sees, as Spark 4.0.0 decides it; `None` when
/// one application does react. The fault still acts: the node's YARN state is YARN's.
fn ignored_by_spark(sim: &SimContext, action: &FaultAction) -> Option<String> {
    let why: fn(&SimContext) -> Option<String> = match action {
        FaultAction::DecommissionNode { .. } => decommission_ignored,
        FaultAction::KillShuffleService { .. } => shuffle_service_unused,
        _ => return None,
    };
    let apps = sim.cluster.applications();
    let all = apps.iter().all(|app| why(app).is_some());
    all.then(|| why(sim)).flatten()
}

/// YarnAllocator's `isYarnExecutorDecommissionEnabled` (spark-yarn 4.0.0, javap: the
/// constructor's match on `(DECOMMISSION_ENABLED, SHUFFLE_SERVICE_ENABLED)`): only `(true,
/// false)` is true, and `allocateResources` calls `handleNodesInDecommissioningState` only
/// then, so a DECOMMISSIONING node reaches no executor of the application.
fn decommission_ignored(sim: &SimContext) -> Option<String> {
    let s = &sim.config.spark;
    let reason = if !s.decommission_enabled {
        "spark.decommission.enabled is false"
    } else if s.shuffle.service_enabled {
        "spark.shuffle.service.enabled is true, and YARN executor decommissioning is supported only without the external shuffle service (SPARK-39018)"
    } else {
        return None;
    };
    Some(format!(
        "YARN put the node in DECOMMISSIONING, but Spark's YarnAllocator ignores decommissioning nodes: {reason}"
    ))
}

/// BlockManager (spark-core 4.0.0, javap: `initialize` calls `registerWithExternalShuffleServer`
/// and `blockStoreClient` is the `ExternalBlockStoreClient` only when
/// `externalShuffleServiceEnabled`): without `spark.shuffle.service.enabled` the executors
/// serve their own shuffle blocks and no NodeManager's service holds any of them.
fn shuffle_service_unused(sim: &SimContext) -> Option<String> {
    (!sim.config.spark.shuffle.service_enabled).then(|| {
        "no shuffle service serves the application: spark.shuffle.service.enabled is false, so its executors serve their own shuffle blocks"
            .to_string()
    })
}

/// The YarnAllocator of `attempt` launched executor `executor`'s container: the network rules
/// of its application waiting for it take effect now.
pub fn executor_launched(sim: &SimContext, attempt: u32, executor: u32) {
    let names = |p: &ProcessPattern| *p == ProcessPattern::Executor(executor);
    rearm_waiting(sim, attempt, |r| names(&r.from) || names(&r.to));
}

/// The Client got its application's id: network rules of this application waiting for its
/// driver take effect now.
pub fn application_submitted(sim: &SimContext) {
    rearm_waiting(sim, sim.current_attempt.get(), |_| true);
}

/// Resolves again the waiting rules of this application that `concerns`; each one that names
/// nothing unresolved any more takes effect.
fn rearm_waiting(sim: &SimContext, attempt: u32, concerns: impl Fn(&LinkRule) -> bool) {
    let waiting = std::mem::take(&mut *sim.faults.waiting_rules.borrow_mut());
    for WaitingRule { app, mut rule } in waiting {
        if app == sim.index && concerns(&rule) {
            rule.from = resolve(sim, attempt, rule.from);
            rule.to = resolve(sim, attempt, rule.to);
        }
        if unresolved(&rule) {
            sim.faults
                .waiting_rules
                .borrow_mut()
                .push(WaitingRule { app, rule });
        } else {
            sim.dispatcher.add_rule(rule);
        }
    }
}

/// Whether a rule still names an executor by id (not yet resolved to its container), or its
/// application's driver before the application has an id: it waits until it is resolved.
fn unresolved(rule: &LinkRule) -> bool {
    let unresolved =
        |p: &ProcessPattern| matches!(p, ProcessPattern::Executor(_) | ProcessPattern::Driver);
    unresolved(&rule.from) || unresolved(&rule.to)
}

/// `executor:N` becomes that executor's container in `attempt`, if it has been launched;
/// `driver` the AM containers of the fault's own application, once it has an id (on a cluster
/// of several applications, not every application's AM).
fn resolve(sim: &SimContext, attempt: u32, p: ProcessPattern) -> ProcessPattern {
    match p {
        ProcessPattern::Executor(n) => sim
            .executors
            .borrow()
            .get(&(attempt, n))
            .map_or(p, |(cid, _)| ProcessPattern::Named(cid.to_string())),
        ProcessPattern::Driver => sim.application_id().map_or(p, |id| ProcessPattern::AmOf {
            cluster_timestamp: id.cluster_timestamp,
            id: id.id,
        }),
        other => other,
    }
}

/// Ends container `cid` on `host` as `end` says: its process exits, or its NodeManager kills
/// it (a fault, or a replayed executor's loss).
pub fn end_container(sim: &Rc<SimContext>, cid: ContainerId, host: &str, end: ContainerEnd) {
    match end {
        ContainerEnd::ProcessExit(code) => {
            if let Some(pid) = sim.dispatcher.process_named(&cid.to_string()) {
                sim.dispatcher.exit_process(pid, code);
            }
        }
        ContainerEnd::NodeManagerKill(status) => {
            let nm = sim
                .dispatcher
                .lookup_named::<NodeManagerMsg>(&nm_process_name(host), "NodeManager");
            if let Some(nm) = nm {
                sim.dispatcher.deliver_local(
                    &nm,
                    NodeManagerMsg::KillContainer {
                        container_id: cid,
                        exit_status: status,
                    },
                );
            }
        }
    }
}
