//! Fires planned faults: roles report the events triggers can name (`notify`), timed faults are
//! armed at boot (`arm_timed`), and each fired fault acts on processes through the Dispatcher and
//! the NodeManagers, after the current handler (never re-entrantly).

use crate::faults::{ContainerEnd, FaultAction, PlannedFault, Trigger};
use crate::kernel::clock;
use crate::kernel::trace::{FaultEvent, FaultTarget, Sender, TraceKind};
use crate::rpc::network::ProcessPattern;
use crate::world::addresses::{RM_PROCESS, nm_process_name};
use crate::world::context::SimContext;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ContainerId;
use sparkyard_messages::node_manager::NodeManagerMsg;
use sparkyard_messages::resource_manager::ResourceManagerMsg;
use std::rc::Rc;

/// Arms every time-triggered fault.
pub fn arm_timed(sim: &Rc<SimContext>) {
    for (ms, index) in sim.faults.timed() {
        let sim = sim.clone();
        actix::spawn(async move {
            tokio::time::sleep(clock::ms(ms)).await;
            if let Some(f) = sim.faults.take_index(index) {
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
    for f in sim.faults.take_matching(&event) {
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
    sim.faults
        .fired
        .borrow_mut()
        .push((clock::now_ms(), f.label.clone()));
    let target = target_of(sim, &f.action);
    sim.faults.fired_targets.borrow_mut().push(target.clone());
    let label = f.label.clone();
    sim.dispatcher.record(Sender::NONE, "Fault", || {
        TraceKind::Fault(FaultEvent::Fired { label, target })
    });
    match f.action {
        FaultAction::KillExecutor { executor, end } => {
            let attempt = sim.current_attempt.get();
            let found = sim.executors.borrow().get(&(attempt, executor)).cloned();
            if let Some((cid, host)) = found {
                end_container(sim, cid, &host, end);
            }
        }
        FaultAction::KillApplicationMaster { end } => {
            let am = sim.am_container.borrow().clone();
            if let Some((cid, host)) = am {
                end_container(sim, cid, &host, end);
            }
        }
        FaultAction::KillNode { host } => sim.dispatcher.exit_host(&host, 137),
        FaultAction::DecommissionNode { host } => {
            let rm = sim
                .dispatcher
                .lookup_named::<ResourceManagerMsg>(RM_PROCESS, "ResourceManager");
            if let Some(rm) = rm {
                sim.dispatcher
                    .deliver_local(&rm, ResourceManagerMsg::DecommissionNode { host });
            }
        }
        FaultAction::FailLaunches { host, count } => sim.faults.add_launch_failures(&host, count),
        FaultAction::FailFetches {
            stage,
            partition,
            count,
        } => sim.faults.add_fetch_failures(stage, partition, count),
        FaultAction::KillShuffleService { host } => sim.block_servers.stop_shuffle_service(&host),
        FaultAction::SlowNode {
            host,
            factor_milli,
            duration_ms,
        } => {
            let until = duration_ms.map(|d| clock::now_ms().saturating_add(d));
            sim.faults.add_slow_node(&host, factor_milli, until)
        }
        FaultAction::ExcludeNode { host } => {
            let am = sim.am_container.borrow().clone();
            let driver = am.and_then(|(cid, _)| {
                sim.dispatcher
                    .lookup_named::<DriverEndpointMsg>(&cid.to_string(), "CoarseGrainedScheduler")
            });
            if let Some(d) = driver {
                sim.dispatcher
                    .deliver_local(&d, DriverEndpointMsg::ExcludeNode(host));
            }
        }
        FaultAction::Network(rules) => {
            let now = clock::now_ms();
            let attempt = sim.current_attempt.get();
            for mut rule in rules {
                rule.from = resolve(sim, attempt, rule.from);
                rule.to = resolve(sim, attempt, rule.to);
                rule.active_from_ms += now;
                rule.active_until_ms = rule.active_until_ms.saturating_add(now);
                if names_an_executor(&rule) {
                    // Its executor is not launched yet (a rule armed at 0 ms): it waits for it.
                    sim.faults.waiting_rules.borrow_mut().push(rule);
                } else {
                    sim.dispatcher.add_rule(rule);
                }
            }
        }
    }
}

/// What a fault acts on, resolved as it fires (the trace records it with the fault).
fn target_of(sim: &SimContext, action: &FaultAction) -> FaultTarget {
    let executor = |n: u32| {
        let attempt = sim.current_attempt.get();
        sim.executors
            .borrow()
            .get(&(attempt, n))
            .map(|(cid, _)| *cid)
    };
    match action {
        FaultAction::KillExecutor { executor: n, .. } => {
            executor(*n).map_or(FaultTarget::Nothing, FaultTarget::Container)
        }
        FaultAction::KillApplicationMaster { .. } => sim
            .am_container
            .borrow()
            .as_ref()
            .map_or(FaultTarget::Nothing, |(cid, _)| {
                FaultTarget::Container(*cid)
            }),
        FaultAction::KillNode { host }
        | FaultAction::DecommissionNode { host }
        | FaultAction::FailLaunches { host, .. }
        | FaultAction::ExcludeNode { host }
        | FaultAction::KillShuffleService { host }
        | FaultAction::SlowNode { host, .. } => FaultTarget::Node(host.clone()),
        FaultAction::FailFetches { .. } => FaultTarget::Nothing,
        FaultAction::Network(rules) => {
            FaultTarget::Network(rules.iter().flat_map(|r| [&r.from, &r.to]).find_map(
                |p| match p {
                    ProcessPattern::Executor(n) => executor(*n),
                    _ => None,
                },
            ))
        }
    }
}

/// The YarnAllocator of `attempt` launched executor `executor`'s container: the network rules
/// waiting for it take effect now.
pub fn executor_launched(sim: &SimContext, attempt: u32, executor: u32) {
    let waiting = std::mem::take(&mut *sim.faults.waiting_rules.borrow_mut());
    if waiting.is_empty() {
        return;
    }
    let names = |p: &ProcessPattern| *p == ProcessPattern::Executor(executor);
    for mut rule in waiting {
        if names(&rule.from) || names(&rule.to) {
            rule.from = resolve(sim, attempt, rule.from);
            rule.to = resolve(sim, attempt, rule.to);
        }
        if names_an_executor(&rule) {
            sim.faults.waiting_rules.borrow_mut().push(rule);
        } else {
            sim.dispatcher.add_rule(rule);
        }
    }
}

/// Whether a rule still names an executor by id (not yet resolved to its container).
fn names_an_executor(rule: &crate::rpc::network::LinkRule) -> bool {
    matches!(rule.from, ProcessPattern::Executor(_))
        || matches!(rule.to, ProcessPattern::Executor(_))
}

/// `executor:N` becomes that executor's container in `attempt`, if it has been launched.
fn resolve(sim: &SimContext, attempt: u32, p: ProcessPattern) -> ProcessPattern {
    match p {
        ProcessPattern::Executor(n) => sim
            .executors
            .borrow()
            .get(&(attempt, n))
            .map_or(p, |(cid, _)| ProcessPattern::Named(cid.to_string())),
        other => other,
    }
}

fn end_container(sim: &Rc<SimContext>, cid: ContainerId, host: &str, end: ContainerEnd) {
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
