//! Each application's outputs of a many-application run (`run` of a scenario's
//! `[[workload.applications]]`): the run's record seen from one application (its spark-submit,
//! its AM and executor containers, and what the ResourceManager and NodeManagers say to them),
//! so the single run's writers draw its timeline and sequence diagram; and the file names, each
//! with its application id as YARN names its log directory (`userlogs/<applicationId>/`). Of the
//! cluster's traffic among its daemons, which names no application in the trace, a view draws
//! the RM's calls launching its AM containers (paired with their LOCALIZING), not the rest
//! (NodeManager heartbeats).

use crate::record::{ClusterRunResult, RunResult, TaskCostModel};
use sparkyard_actors::simulation::logs::LogStore;
use sparkyard_actors::simulation::trace::{
    FaultEvent, FaultTarget, StateChange, TraceEvent, TraceKind,
};
use sparkyard_messages::ids::{ApplicationId, ContainerId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Whose a process or a mailbox is, seen from one application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// The application's own (its Client, its containers).
    Own,
    /// The cluster's (the ResourceManager, a NodeManager), shared by every application.
    Cluster,
    /// Another application's.
    Other,
}

/// The run's processes and mailboxes sorted by owner, for application `app`.
struct Owners {
    processes: Vec<Owner>,
    mailboxes: Vec<Owner>,
    /// The RM's calls launching the application's AM containers and their answers (messages
    /// between daemons, which name no application), by message id.
    am_launches: BTreeSet<u64>,
}

impl Owners {
    fn new(ran: &ClusterRunResult, app: ApplicationId, client: Option<u32>) -> Owners {
        let processes: Vec<Owner> = ran
            .processes
            .iter()
            .enumerate()
            .map(|(p, name)| process_owner(name, Some(p as u32) == client, app))
            .collect();
        // The Client's mailboxes are the ones its process sends from (every Client's process
        // is named `spark-submit`, so its labels do not tell them apart).
        let client_mailboxes: BTreeSet<u32> = ran
            .trace
            .iter()
            .filter(|e| e.from.is_some() && e.from == client)
            .filter_map(|e| e.from_mailbox.map(|m| m.0))
            .collect();
        let mailboxes: Vec<Owner> = ran
            .labels
            .iter()
            .enumerate()
            .map(|(m, label)| {
                let proc_name = label.split_once('@').map_or("", |(_, p)| p);
                if proc_name == "spark-submit" {
                    return if client_mailboxes.contains(&(m as u32)) {
                        Owner::Own
                    } else {
                        Owner::Other
                    };
                }
                process_owner(proc_name, false, app)
            })
            .collect();
        let am_launches = am_launches(ran, app, &mailboxes);
        Owners {
            processes,
            mailboxes,
            am_launches,
        }
    }

    fn process(&self, p: Option<u32>) -> Option<Owner> {
        p.and_then(|p| self.processes.get(p as usize).copied())
    }

    fn mailbox(&self, m: Option<u32>) -> Option<Owner> {
        m.and_then(|m| self.mailboxes.get(m as usize).copied())
    }

    /// Whether the application's view keeps `e`: what concerns it (its messages, its state
    /// changes, faults on its containers or on any node), never another application's.
    fn keeps(&self, e: &TraceEvent, app: ApplicationId) -> bool {
        let of_container = |c: &ContainerId| c.attempt.application_id == app;
        match &e.kind {
            TraceKind::State(s) => match s {
                StateChange::AppState { app: a, .. } => *a == app,
                StateChange::AmRegistered { attempt } => attempt.application_id == app,
                StateChange::ContainerLocalizing { container, .. }
                | StateChange::ContainerCompleted { container, .. }
                | StateChange::ReleasedContainerCompleted { container, .. } => {
                    of_container(container)
                }
                StateChange::NodeLost { .. } => true,
                StateChange::ProcessExited { process, .. } => {
                    self.process(Some(*process)) != Some(Owner::Other)
                }
                StateChange::AmExited { .. }
                | StateChange::ExecutorLost { .. }
                | StateChange::ExecutorRegistered { .. }
                | StateChange::ExecutorCreated { .. } => self.process(e.from) == Some(Owner::Own),
            },
            TraceKind::Fault(FaultEvent::Fired { target, .. }) => match target {
                FaultTarget::Container(c) | FaultTarget::Network(Some(c)) => of_container(c),
                FaultTarget::Node(_) => true,
                FaultTarget::Network(None) | FaultTarget::Nothing => {
                    self.process(e.from) != Some(Owner::Other)
                }
            },
            // A message (sent, delivered, dropped, duplicated or injected): one of its ends is
            // the application's. The cluster's own traffic (NodeManager heartbeats, the RM's AM
            // launches) serves every application and names none: it is left out.
            _ => {
                let ends = [
                    self.process(e.from),
                    self.mailbox(e.from_mailbox.map(|m| m.0)),
                    self.mailbox(e.to.map(|m| m.0)),
                ];
                ends.contains(&Some(Owner::Own)) || self.am_launches.contains(&e.msg)
            }
        }
    }
}

/// The messages of the RM's `StartContainers` calls that launched `app`'s containers from a
/// daemon (its AM containers: the RM's AMLauncher is the caller), and of the NodeManagers'
/// answers. A NodeManager handles its calls in order and records LOCALIZING as it handles one
/// (so the oldest call delivered to it and not yet handled is the one LOCALIZING names, as
/// `outputs::runmap` pairs them), then answers its caller at once.
fn am_launches(ran: &ClusterRunResult, app: ApplicationId, mailboxes: &[Owner]) -> BTreeSet<u64> {
    let mut by_name: BTreeMap<&str, u32> = BTreeMap::new();
    for (i, p) in ran.processes.iter().enumerate() {
        by_name.insert(p.as_str(), i as u32);
    }
    let process_of = |m: u32| {
        let label = ran.labels.get(m as usize)?;
        by_name.get(label.split_once('@')?.1).copied()
    };
    let from_daemon = |m: u32| mailboxes.get(m as usize) == Some(&Owner::Cluster);
    let mut unhandled: BTreeMap<u32, VecDeque<u64>> = BTreeMap::new();
    let mut unanswered: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut out = BTreeSet::new();
    for e in &ran.trace {
        match &e.kind {
            TraceKind::Deliver if e.name == "StartContainers" => {
                if let Some(nm) = e.to.and_then(|m| process_of(m.0)) {
                    unhandled.entry(nm).or_default().push_back(e.msg);
                }
            }
            TraceKind::State(StateChange::ContainerLocalizing {
                container, caller, ..
            }) => {
                let Some(nm) = e.from else { continue };
                let call = unhandled.get_mut(&nm).and_then(VecDeque::pop_front);
                if container.attempt.application_id == app && from_daemon(caller.0) {
                    out.extend(call);
                    unanswered.insert((nm, caller.0));
                }
            }
            TraceKind::Send if e.name == "AskReply" => {
                if let (Some(nm), Some(to)) = (e.from, e.to)
                    && unanswered.remove(&(nm, to.0))
                {
                    out.insert(e.msg);
                }
            }
            _ => {}
        }
    }
    out
}

/// Whose the process named `name` is: the application's when it is its Client (`is_client`)
/// or one of its containers, the cluster's for the RM and a NodeManager, else another's.
fn process_owner(name: &str, is_client: bool, app: ApplicationId) -> Owner {
    if is_client {
        return Owner::Own;
    }
    if name == "rm" || name.starts_with("nm:") {
        return Owner::Cluster;
    }
    match name.parse::<ContainerId>() {
        Ok(c) if c.attempt.application_id == app => Owner::Own,
        _ => Owner::Other,
    }
}

/// Application `i` of `ran` as a one-application run's record: its outcome, counters and
/// listener events; the trace's events that concern it; the processes of other applications
/// renamed (`other:<name>`) so that its spark-submit is the one named `spark-submit`. No
/// container logs (`write_cluster_logs` writes every application's). `None` when it was never
/// submitted (no application id) or its spark-submit was not noted (the trace was not kept).
pub fn application_view(
    ran: &ClusterRunResult,
    i: usize,
    task_costs: TaskCostModel,
) -> Option<RunResult> {
    let a = ran.applications.get(i)?;
    let app = a.outcome.application_id?;
    let client = a.client_process?;
    let owners = Owners::new(ran, app, Some(client));
    let trace: Vec<TraceEvent> = ran
        .trace
        .iter()
        .filter(|e| owners.keeps(e, app))
        .cloned()
        .collect();
    let processes = ran
        .processes
        .iter()
        .zip(&owners.processes)
        .map(|(name, owner)| match owner {
            Owner::Other => format!("other:{name}"),
            _ => name.clone(),
        })
        .collect();
    Some(RunResult {
        trace,
        processes,
        labels: ran.labels.clone(),
        events: a.events.clone(),
        ..application_record(ran, i, task_costs)?
    })
}

/// Application `i` of `ran` as a one-application run's record of its ending only: its outcome,
/// counters and end, the run's faults; no trace, events or logs (what the end-of-run invariants
/// and the fired faults' report read).
pub fn application_record(
    ran: &ClusterRunResult,
    i: usize,
    task_costs: TaskCostModel,
) -> Option<RunResult> {
    let a = ran.applications.get(i)?;
    Some(RunResult {
        outcome: a.outcome.clone(),
        counters: a.counters.clone(),
        logs: LogStore::new(false),
        trace: Vec::new(),
        fingerprint: ran.fingerprint,
        processes: Vec::new(),
        labels: Vec::new(),
        end_ms: a.end_ms,
        epoch_ms: ran.epoch_ms,
        events: Vec::new(),
        faults_fired: ran.faults_fired.clone(),
        faults_unfired: ran.faults_unfired.clone(),
        violations: Vec::new(),
        task_costs,
    })
}

/// `path` with the application id before its extension: `trace.json` of
/// `application_1764662400000_0002` is `trace.application_1764662400000_0002.json`.
pub fn per_application_path(path: &Path, app: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{app}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{app}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace or diagram file per application: its id before the extension.
    #[test]
    fn each_applications_file_names_its_application_id() {
        let app = "application_1764662400000_0002";
        assert_eq!(
            per_application_path(Path::new("out/trace.json"), app),
            Path::new("out/trace.application_1764662400000_0002.json")
        );
        assert_eq!(
            per_application_path(Path::new("diagram"), app),
            Path::new("diagram.application_1764662400000_0002")
        );
    }

    /// A process is the application's when it is its Client or one of its containers (by the
    /// container id's application, as YARN's `ContainerId` names it), the cluster's for the RM
    /// and the NodeManagers, another application's otherwise.
    #[test]
    fn a_process_is_owned_by_the_application_its_container_id_names() {
        let app: ApplicationId = "application_1764662400000_0002".parse().expect("an id");
        let own = "container_1764662400000_0002_01_000003";
        let other = "container_1764662400000_0003_01_000001";
        assert_eq!(process_owner(own, false, app), Owner::Own);
        assert_eq!(process_owner(other, false, app), Owner::Other);
        assert_eq!(process_owner("rm", false, app), Owner::Cluster);
        assert_eq!(process_owner("nm:nm-1.x", false, app), Owner::Cluster);
        assert_eq!(process_owner("spark-submit", false, app), Owner::Other);
        assert_eq!(process_owner("spark-submit", true, app), Owner::Own);
    }
}
