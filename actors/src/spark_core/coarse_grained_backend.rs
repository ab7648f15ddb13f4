//! The executor decisions of Spark 4.0.0's `CoarseGrainedSchedulerBackend` (with YARN's
//! `YarnSchedulerBackend.prepareRequestExecutors`) that the DriverEndpoint carries out:
//! `killExecutors`, `decommissionExecutors`, `killExecutorsOnHost` /
//! `decommissionExecutorsOnHost` and the DriverEndpoint's handling of their messages, the
//! `cleanup-decommission-execs` force kill, the `RequestExecutors` of `requestTotalExecutors`,
//! `removeExecutor`'s outcome with `TaskSchedulerImpl.logExecutorLoss`'s line and what the
//! run's record and the listener bus learn of it (from the one `Removal`), what they learn of
//! an executor's registration (from the one `ExecutorRegistration`), and
//! `YarnDriverEndpoint.onDisconnected`'s `disableExecutor`, and `isReady`. Plain functions over
//! `DriverEndpointState`, no actix, no clock, no log: each returns what it decided (the
//! executors, the facts its lines print, the message to send); the actor logs, sends and
//! schedules.

use crate::faults::Trigger;
use crate::kernel::logs::Level;
use crate::spark_core::driver_endpoint_state::{
    DecommissionInfo, DriverEndpointState, ExecutorRegistration, Removal,
};
use crate::spark_core::executor_allocation_manager::PlacementHints;
use crate::spark_core::executor_env::block_manager_port;
use crate::world::observer::{Recovery, RemovedExecutor, RunEvent};
use sparkyard_messages::application_master::RequestExecutors;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::jvm_text::{double_to_string, ms_duration_to_string, scala_list};
use sparkyard_messages::listener::{ListenerEvent, ResourceInformation};
use sparkyard_messages::records::{ExecutorLossReason, TaskState};
use sparkyard_messages::rpc::RpcAddress;
use sparkyard_messages::task::BlockManagerId;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The default resource profile's id: the only one sparkyard's applications run.
const DEFAULT_RESOURCE_PROFILE_ID: u32 = 0;

/// Scala's `mkString(", ")` of executor ids.
fn id_list(ids: &[ExecutorId]) -> String {
    let ids: Vec<String> = ids.iter().map(ExecutorId::to_string).collect();
    ids.join(", ")
}

/// One log line as Spark writes it: its level and text (the actor adds the logger).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub level: Level,
    pub text: String,
}

/// What `killExecutors(ids, adjustTargetNumExecutors = false, countFailures = false, force)`
/// did: every kill the DriverEndpoint makes counts no failure (the loss is `ExecutorKilled`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KillOutcome {
    /// The ids asked for, in the order asked (`Requesting to kill executor(s) ...`).
    pub requested: Vec<ExecutorId>,
    /// Not registered (`Executor to kill N does not exist!`).
    pub unknown: Vec<ExecutorId>,
    /// Now in `executorsPendingToRemove` (`Actual list of executor(s) to be killed is ...`),
    /// and what `doKillExecutors` asks the cluster manager to kill.
    pub killed: Vec<ExecutorId>,
    /// An idle kill under shuffle tracking without a shuffle service (dynamic allocation's,
    /// not forced): each executor killed must hold no shuffle data.
    pub idle_under_shuffle_tracking: bool,
}

impl KillOutcome {
    /// CoarseGrainedSchedulerBackend.killExecutors' first INFO line.
    pub fn requesting_line(&self) -> String {
        format!(
            "Requesting to kill executor(s) {}",
            id_list(&self.requested)
        )
    }

    /// Its WARN line for each unknown id.
    pub fn unknown_lines(&self) -> Vec<String> {
        let line = |id: &ExecutorId| format!("Executor to kill {id} does not exist!");
        self.unknown.iter().map(line).collect()
    }

    /// Its INFO line with the executors it kills (also when none).
    pub fn actual_line(&self) -> String {
        let killed = id_list(&self.killed);
        format!("Actual list of executor(s) to be killed is {killed}")
    }

    /// Whether `doKillExecutors` runs: with nothing to kill the jar answers
    /// `Future.successful(false)` and the cluster manager hears nothing.
    pub fn asks_cluster_manager(&self) -> bool {
        !self.killed.is_empty()
    }
}

/// `killExecutors(ids, adjustTargetNumExecutors = false, countFailures = false, force)`: the
/// unknown ids are warned about; a known one not already being removed is killed when
/// `force` or not busy. `shuffle_tracking`: dynamic allocation tracks shuffle data without an
/// external shuffle service.
pub fn kill_executors<R>(
    state: &mut DriverEndpointState<R>,
    ids: &[ExecutorId],
    force: bool,
    shuffle_tracking: bool,
) -> KillOutcome {
    let selection = state.select_kills(ids, false, force);
    KillOutcome {
        requested: ids.to_vec(),
        unknown: selection.unknown,
        killed: selection.to_kill,
        idle_under_shuffle_tracking: shuffle_tracking && !force,
    }
}

/// What `decommissionExecutors(..., adjustTargetNumExecutors = false, triggeredByExecutor =
/// false)` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecommissionOutcome {
    /// The active executors among those asked, now decommissioning, in the order asked: each
    /// is marked in the TaskScheduler (`executorDecommission`, then a `ReviveOffers`) and told
    /// to decommission itself.
    pub executors: Vec<ExecutorId>,
    /// Their block managers, which the BlockManagerMaster marks as decommissioning.
    pub block_managers: Vec<BlockManagerId>,
    /// The info's `workerHost` (the TaskScheduler's `executorDecommission` reads it).
    pub worker_host: Option<String>,
    /// `spark.executor.decommission.forceKillTimeout` is set: the `cleanup-decommission-execs`
    /// check of these executors is due after it.
    pub force_kill_check_due: bool,
}

impl DecommissionOutcome {
    /// CoarseGrainedSchedulerBackend's INFO line once the executors are marked.
    pub fn decommission_line(&self) -> String {
        format!("Decommission executors: {}", id_list(&self.executors))
    }

    /// BlockManagerMasterEndpoint's INFO line (`decommissionBlockManagers`).
    pub fn mark_block_managers_line(&self) -> String {
        let ids: Vec<String> = self.block_managers.iter().map(|b| b.to_string()).collect();
        format!(
            "Mark BlockManagers ({}) as being decommissioning.",
            ids.join(", ")
        )
    }

    /// The INFO line before each executor is sent `DecommissionExecutor`.
    pub fn notify_line(id: ExecutorId) -> String {
        format!("Notify executor {id} to decommission.")
    }
}

/// `decommissionExecutors(ids with info, adjustTargetNumExecutors = false,
/// triggeredByExecutor = false)`: only active executors are decommissioned (an unknown one is
/// dropped: `spark.scheduler.maxRetainedUnknownDecommissionExecutors` is 0 by default); none
/// active is `None`, nothing logged or sent.
pub fn decommission_executors<R>(
    state: &mut DriverEndpointState<R>,
    ids: &[ExecutorId],
    info: &DecommissionInfo,
    force_kill_timeout_s: Option<u64>,
) -> Option<DecommissionOutcome> {
    let executors = state.start_decommission(ids, info);
    if executors.is_empty() {
        return None;
    }
    let block_managers = executors
        .iter()
        .filter_map(|id| {
            let e = state.executors.get(*id)?;
            Some(BlockManagerId {
                executor_id: *id,
                host: e.host.to_string(),
                port: block_manager_port(*id),
            })
        })
        .collect();
    Some(DecommissionOutcome {
        executors,
        block_managers,
        worker_host: info.worker_host.clone(),
        force_kill_check_due: force_kill_timeout_s.is_some(),
    })
}

/// The HealthTracker's `killExecutorsOnHost(host)` / `decommissionExecutorsOnHost(host)` on
/// the backend (4.0.0 jar): a line, then a message to the DriverEndpoint, which acts on the
/// host's executors when it handles it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRequest {
    pub host: String,
    pub decommission: bool,
}

impl HostRequest {
    /// The INFO line (the same for a kill and a decommission).
    pub fn line(&self) -> String {
        format!(
            "Requesting to kill any and all executors on host {}",
            self.host
        )
    }

    /// `DecommissionExecutorsOnHost(host)` or `KillExecutorsOnHost(host)`.
    pub fn message(self) -> DriverEndpointMsg {
        if self.decommission {
            DriverEndpointMsg::DecommissionExecutorsOnHost(self.host)
        } else {
            DriverEndpointMsg::KillExecutorsOnHost(self.host)
        }
    }
}

/// DriverEndpoint.receive's `DecommissionExecutorsOnHost(host)`: the executors alive there,
/// with `ExecutorDecommissionInfo(s"Decommissioning all executors on $host.")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDecommission {
    pub executors: Vec<ExecutorId>,
    pub info: DecommissionInfo,
}

/// The host's alive executors and the info they are decommissioned with; none alive is
/// `None`. The info's `workerHost` is the default, None (the 4.0.0 jar:
/// `ExecutorDecommissionInfo$.apply$default$2`), so the DAGScheduler drops only each
/// executor's own map outputs when it is lost.
pub fn decommission_on_host<R>(
    state: &DriverEndpointState<R>,
    host: &str,
    now_ms: u64,
) -> Option<HostDecommission> {
    let executors = state.alive_executors_on(host);
    if executors.is_empty() {
        return None;
    }
    let info = DecommissionInfo {
        message: format!("Decommissioning all executors on {host}."),
        worker_host: None,
        start_ms: now_ms,
    };
    Some(HostDecommission { executors, info })
}

/// The `cleanup-decommission-execs` task's kill: the executors still decommissioning after
/// `spark.executor.decommission.forceKillTimeout`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForceKill {
    pub stragglers: Vec<ExecutorId>,
    pub timeout_s: u64,
}

impl ForceKill {
    /// Its INFO line (`stragglers` is a Scala `List`).
    pub fn line(&self) -> String {
        let ids = scala_list(self.stragglers.iter().map(ExecutorId::to_string));
        format!(
            "{ids} failed to decommission in {}, killing.",
            self.timeout_s
        )
    }
}

/// Which of `ids` the cleanup task kills (force, no failure counted): those still
/// decommissioning, unless the SparkContext is stopping; none is `None`.
pub fn force_kill_stragglers<R>(
    state: &DriverEndpointState<R>,
    ids: &[ExecutorId],
    timeout_s: u64,
    stopping: bool,
) -> Option<ForceKill> {
    let stragglers: Vec<ExecutorId> = (ids.iter().copied())
        .filter(|id| state.is_decommissioning(*id))
        .collect();
    if stragglers.is_empty() || stopping {
        return None;
    }
    Some(ForceKill {
        stragglers,
        timeout_s,
    })
}

/// `requestTotalExecutors(Map(defaultProfile -> total), numLocalityAwareTasks,
/// hostToLocalTaskCount)` -> `doRequestTotalExecutors` -> YarnSchedulerBackend's
/// `prepareRequestExecutors`: the message for the AM, with the HealthTracker's excluded
/// nodes (`scheduler.excludedNodes()`) and the preferred hosts less those excluded ("ignore
/// preferences for nodes that are excluded").
pub fn prepare_request_executors(
    total: u32,
    hints: &PlacementHints,
    excluded: BTreeSet<String>,
) -> RequestExecutors {
    let local = hints.hosts_without(&excluded);
    let profile = DEFAULT_RESOURCE_PROFILE_ID;
    RequestExecutors {
        resource_profile_to_total_execs: vec![(profile, total)],
        num_locality_aware_tasks_per_resource_profile_id: vec![(
            profile,
            hints.num_locality_aware_tasks,
        )],
        excluded_nodes: excluded.into_iter().collect(),
        host_to_local_task_count: vec![(profile, local)],
    }
}

/// `removeExecutor` of an executor the backend does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownExecutor(pub ExecutorId);

impl UnknownExecutor {
    /// DriverEndpoint's INFO line.
    pub fn line(self) -> String {
        format!("Asked to remove non-existent executor {}", self.0)
    }
}

/// `removeExecutor(id, reason)`: the removal, recorded once (`DriverEndpointState::remove`),
/// or the unknown executor.
pub fn remove_executor<R>(
    state: &mut DriverEndpointState<R>,
    id: ExecutorId,
    reason: ExecutorLossReason,
) -> Result<Removal<R>, UnknownExecutor> {
    state.remove(id, reason).ok_or(UnknownExecutor(id))
}

/// `TaskSchedulerImpl.logExecutorLoss` (4.0.0) for a removal at `now_ms`: the driver's kill is
/// INFO `killed by driver.`, a decommission INFO `is decommissioned after
/// <Utils.msDurationToString>.` (only `is decommissioned.` without a recorded start), any
/// other reason ERROR `Lost executor`.
pub fn executor_loss_line<R>(removal: &Removal<R>, now_ms: u64) -> LogLine {
    let (id, host) = (removal.id, &removal.data.host);
    let (level, text) = match &removal.reason {
        ExecutorLossReason::Killed => (
            Level::Info,
            format!("Executor {id} on {host} killed by driver."),
        ),
        ExecutorLossReason::Decommission { .. } => {
            let after = (removal.decommission_started_ms)
                .map(|t| format!(" after {}", ms_duration_to_string(now_ms - t)))
                .unwrap_or_default();
            let text = format!("Executor {id} on {host} is decommissioned{after}.");
            (Level::Info, text)
        }
        reason => (
            Level::Error,
            format!("Lost executor {id} on {host}: {reason}"),
        ),
    };
    LogLine { level, text }
}

impl<R> Removal<R> {
    /// What the run's record learns of the removal: the removal with its cause, then the
    /// running tasks lost with it (when there were any).
    pub fn run_events(&self, attempt: u32) -> impl Iterator<Item = RunEvent> {
        let removed = RunEvent::ExecutorRemoved(RemovedExecutor {
            attempt,
            executor: self.id,
            cause: self.cause,
            reason: self.reason_text.clone(),
        });
        let lost =
            (self.lost_tasks > 0).then_some(RunEvent::Recovery(Recovery::RunningTasksLost {
                executor: self.id,
                tasks: self.lost_tasks,
            }));
        std::iter::once(removed).chain(lost)
    }

    /// `SparkListenerExecutorRemoved(time, executorId, reason.toString)`, which
    /// `CoarseGrainedSchedulerBackend.removeExecutor` posts after `scheduler.executorLost`.
    pub fn listener_event(&self, time: u64) -> ListenerEvent {
        ListenerEvent::ExecutorRemoved {
            time,
            executor_id: self.id.to_string(),
            reason: self.reason_text.clone(),
        }
    }
}

/// What an executor's `RegisterExecutor` listed for the UI, beside the facts the
/// registration recorded: `ExecutorInfo`'s log URLs (after `spark.ui.custom.executor.log.url`)
/// and attributes, and when the backend asked for it (`requestTime`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecutorListing {
    pub request_time: Option<u64>,
    pub log_urls: Vec<(String, String)>,
    pub attributes: Vec<(String, String)>,
    /// `ExecutorInfo.resourcesInfo`: the custom resources it found.
    pub resources: Vec<ResourceInformation>,
}

impl ExecutorRegistration {
    /// What the run's record learns of the registration in AM attempt `attempt`.
    pub fn run_event(&self, attempt: u32) -> RunEvent {
        RunEvent::ExecutorRegistered {
            attempt,
            executor: self.id,
        }
    }

    /// The fault injector's trigger (`executor_registered` faults of attempt `attempt`).
    pub fn trigger(&self, attempt: u32) -> Trigger {
        Trigger::ExecutorRegistered {
            attempt,
            executor: self.id.0,
        }
    }

    /// `SparkListenerExecutorAdded(time, executorId, ExecutorInfo(host, totalCores, logUrls,
    /// attributes, resourcesInfo, resourceProfileId, registrationTime, requestTime))`, which
    /// DriverEndpoint posts once the executor is in `executorDataMap`.
    pub fn listener_event(&self, time: u64, listing: ExecutorListing) -> ListenerEvent {
        ListenerEvent::ExecutorAdded {
            time,
            request_time: listing.request_time,
            executor_id: self.id.to_string(),
            host: self.host.to_string(),
            total_cores: self.total_cores,
            log_urls: listing.log_urls,
            attributes: listing.attributes,
            resources: listing.resources,
        }
    }
}

/// DriverEndpoint.receive's WARN for a `StatusUpdate` from an executor it does not know (one
/// removed while its task's end was on the way).
pub fn unknown_status_update_line(task: TaskId, state: TaskState, executor: ExecutorId) -> String {
    format!(
        "Ignored task status update ({task} state {state}) from unknown executor with ID {executor}"
    )
}

/// DriverEndpoint.receive's WARN for a `KillTask` naming an executor it does not know.
pub fn unknown_kill_line(task: TaskId, executor: ExecutorId) -> String {
    format!("Attempted to kill task {task} for unknown executor {executor}.")
}

/// DriverEndpoint.receiveAndReply's INFO line for a `RegisterExecutor` it takes: the sender's
/// address is the connection's remote end (NettyRpcHandler.internalReceive's
/// `RpcAddress(addr.getHostString, addr.getPort)` of an accepted socket), the executor's IP
/// rather than its host name.
pub fn registered_line(
    executor_ref: &impl std::fmt::Display,
    sender_ip: &str,
    sender_port: u16,
    id: ExecutorId,
    resource_profile_id: u32,
) -> String {
    format!(
        "Registered executor {executor_ref} ({sender_ip}:{sender_port}) with ID {id}, ResourceProfileId {resource_profile_id}"
    )
}

/// Why `isReady` answered true, which SparkContext's `waitBackendReady` asks until it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Readiness {
    /// `sufficientResourcesRegistered`: YarnSchedulerBackend's `totalRegisteredExecutors >=
    /// totalExpectedExecutors * minRegisteredRatio`.
    RatioReached { ratio: f64 },
    /// The backend has waited `spark.scheduler.maxRegisteredResourcesWaitingTime`.
    WaitedLongEnough { max_wait_ms: u64 },
}

impl Readiness {
    /// CoarseGrainedSchedulerBackend.isReady's INFO line. Both values are Doubles in the 4.0.0
    /// jar (Java's `Double.toString`): the ratio, and the wait as `maxRegisteredWaitingTimeNs
    /// / 1000000.0`, so 30 s prints `30000.0(ms)`.
    pub fn line(&self) -> String {
        const SAID: &str = "SchedulerBackend is ready for scheduling beginning after";
        match *self {
            Readiness::RatioReached { ratio } => {
                let ratio = double_to_string(ratio);
                format!("{SAID} reached minRegisteredResourcesRatio: {ratio}")
            }
            Readiness::WaitedLongEnough { max_wait_ms } => {
                let ms = double_to_string(max_wait_ms as f64);
                format!("{SAID} waiting maxRegisteredResourcesWaitingTime: {ms}(ms)")
            }
        }
    }
}

/// The backend's registration so far, as `isReady` reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Registration {
    /// `totalRegisteredExecutors`.
    pub registered: u32,
    /// `totalExpectedExecutors` (`SchedulerBackendUtils.getInitialTargetExecutorNumber`).
    pub expected: u32,
    /// `spark.scheduler.minRegisteredResourcesRatio` (YARN's default 0.8).
    pub min_ratio: f64,
    /// Since the backend was created.
    pub waited_ms: u64,
    /// `spark.scheduler.maxRegisteredResourcesWaitingTime`.
    pub max_wait_ms: u64,
}

/// `isReady`: enough executors registered, else the waiting time passed; `None` while
/// neither holds.
pub fn is_ready(r: Registration) -> Option<Readiness> {
    if f64::from(r.registered) >= f64::from(r.expected) * r.min_ratio {
        return Some(Readiness::RatioReached { ratio: r.min_ratio });
    }
    (r.waited_ms >= r.max_wait_ms).then_some(Readiness::WaitedLongEnough {
        max_wait_ms: r.max_wait_ms,
    })
}

/// `YarnDriverEndpoint.onDisconnected`'s `disableExecutor`: the executor connected from the
/// address now waits for its loss reason (or was being killed), and the AM is asked why it
/// went away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disconnection {
    pub id: ExecutorId,
    /// Its host, for TaskSchedulerImpl's `executorLost(id, LossReasonPending)` line.
    pub host: Option<Rc<str>>,
    pub address: RpcAddress,
}

impl Disconnection {
    /// CoarseGrainedSchedulerBackend.disableExecutor's INFO line.
    pub fn disabling_line(&self) -> String {
        format!("Disabling executor {}.", self.id)
    }

    /// `TaskSchedulerImpl.logExecutorLoss` for `LossReasonPending` (DEBUG in Spark 4.0.0).
    pub fn reason_pending_line(&self) -> Option<String> {
        let host = self.host.as_ref()?;
        let id = self.id;
        Some(format!(
            "Executor {id} on {host} lost, but reason not yet known."
        ))
    }

    /// `handleExecutorDisconnectedFromDriver`'s message to the YarnScheduler endpoint.
    pub fn message(&self) -> YarnSchedulerMsg {
        YarnSchedulerMsg::ExecutorDisconnected {
            executor_id: self.id,
            address: self.address.to_string(),
        }
    }
}

/// `onDisconnected(address)`: the registered executor at `address` is disabled (`disable`'s
/// rules). Nothing once the endpoint is shutting down (Spark's endpoint is stopped by
/// `StopDriver` before the executors it stopped disconnect, so a real 4.0 run logs no
/// `Disabling executor` at shutdown), for an unknown address or for an executor not disabled.
pub fn disconnected<R>(
    state: &mut DriverEndpointState<R>,
    address: RpcAddress,
    shutting_down: bool,
) -> Option<Disconnection> {
    if shutting_down {
        return None;
    }
    let id = state.executor_at(&address)?;
    if !state.disable(id) {
        return None;
    }
    let host = state.executors.get(id).map(|e| e.host.clone());
    Some(Disconnection { id, host, address })
}

#[cfg(test)]
mod tests {
    //! Rules of Spark 4.0.0's CoarseGrainedSchedulerBackend.scala and YarnSchedulerBackend.scala
    //! (their texts confirmed in spark-core_2.13-4.0.0.jar and spark-yarn_2.13-4.0.0.jar), with
    //! the cases of CoarseGrainedSchedulerBackendSuite.scala, YarnSchedulerBackendSuite.scala
    //! and StandaloneDynamicAllocationSuite.scala the simulated parts run.
    use super::*;
    use crate::spark_core::driver_endpoint_state::ExecutorData;
    use crate::world::observer::RemovalCause;

    fn id(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    fn ids(ns: &[u32]) -> Vec<ExecutorId> {
        ns.iter().copied().map(ExecutorId).collect()
    }

    fn address(n: u32) -> RpcAddress {
        RpcAddress {
            host: format!("10.0.0.{n}"),
            port: 40_000 + n as u16,
        }
    }

    /// A state with executors 1..=n, `cores` free cores each, executor i on `hosts[i - 1]`.
    fn with_executors(hosts: &[&str], cores: u32) -> DriverEndpointState<()> {
        let mut s = DriverEndpointState::new(false);
        for (i, host) in (1..).zip(hosts) {
            let data = ExecutorData {
                executor: (),
                address: address(i),
                host: Rc::from(*host),
                free_cores: cores,
                total_cores: cores,
                resources: None,
            };
            s.register(id(i), data);
        }
        s
    }

    fn info(message: &str, start_ms: u64) -> DecommissionInfo {
        DecommissionInfo {
            message: message.to_string(),
            worker_host: None,
            start_ms,
        }
    }

    /// killExecutors' three lines, in the jar's words: the ids asked, each unknown one, the
    /// ones actually killed; the cluster manager is asked only when some are.
    #[test]
    fn kill_lines_name_the_asked_unknown_and_killed_executors() {
        let mut s = with_executors(&["a", "b", "c"], 2);
        let k = kill_executors(&mut s, &ids(&[3, 7, 1]), false, false);
        assert_eq!(
            k.requesting_line(),
            "Requesting to kill executor(s) 3, 7, 1"
        );
        assert_eq!(
            k.unknown_lines(),
            vec!["Executor to kill 7 does not exist!"]
        );
        assert_eq!(
            k.actual_line(),
            "Actual list of executor(s) to be killed is 3, 1"
        );
        assert!(k.asks_cluster_manager());
        let none = kill_executors(&mut s, &ids(&[9]), true, false);
        assert_eq!(
            none.actual_line(),
            "Actual list of executor(s) to be killed is "
        );
        assert!(!none.asks_cluster_manager(), "Future.successful(false)");
    }

    /// StandaloneDynamicAllocationSuite "kill the same executor twice (SPARK-9795)": the
    /// second kill of an executor already pending removal kills nothing and asks nothing.
    #[test]
    fn killing_the_same_executor_twice_kills_it_once() {
        let mut s = with_executors(&["a", "b"], 2);
        assert_eq!(
            kill_executors(&mut s, &ids(&[1]), false, false).killed,
            ids(&[1])
        );
        let again = kill_executors(&mut s, &ids(&[1]), false, false);
        assert!(again.killed.is_empty() && again.unknown.is_empty());
        assert!(!again.asks_cluster_manager());
        assert!(s.is_active(id(2)));
    }

    /// StandaloneDynamicAllocationSuite "disable force kill for busy executors (SPARK-9552)":
    /// a busy executor is not killed without force; with force (the HealthTracker's kill, a
    /// host's kill) it is.
    #[test]
    fn a_busy_executor_is_killed_only_with_force() {
        let mut s = with_executors(&["a", "b"], 2);
        s.executors.get_mut(id(1)).unwrap().free_cores = 1;
        let idle_kill = kill_executors(&mut s, &ids(&[1]), false, false);
        assert!(idle_kill.killed.is_empty());
        assert!(s.is_active(id(1)), "still offered tasks");
        let forced = kill_executors(&mut s, &ids(&[1]), true, false);
        assert_eq!(forced.killed, ids(&[1]));
        assert!(!s.is_alive(id(1)));
    }

    /// Only dynamic allocation's idle kill (not forced) under shuffle tracking carries the
    /// promise that the executor holds no shuffle data (ExecutorMonitor's shuffle timeout).
    #[test]
    fn only_an_unforced_kill_under_shuffle_tracking_is_an_idle_one() {
        let mut s = with_executors(&["a", "b", "c"], 2);
        assert!(kill_executors(&mut s, &ids(&[1]), false, true).idle_under_shuffle_tracking);
        assert!(!kill_executors(&mut s, &ids(&[2]), true, true).idle_under_shuffle_tracking);
        assert!(!kill_executors(&mut s, &ids(&[3]), false, false).idle_under_shuffle_tracking);
    }

    /// decommissionExecutors: the active executors, their block managers (BlockManagerId's
    /// toString and the executor's port) and the jar's lines; the force-kill check is due
    /// only with `spark.executor.decommission.forceKillTimeout`.
    #[test]
    fn decommission_marks_the_active_executors_and_their_block_managers() {
        let mut s = with_executors(&["a", "b", "c"], 2);
        kill_executors(&mut s, &ids(&[2]), true, false);
        let d = decommission_executors(&mut s, &ids(&[3, 2, 1]), &info("m", 5), Some(30)).unwrap();
        assert_eq!(d.executors, ids(&[3, 1]));
        assert_eq!(d.decommission_line(), "Decommission executors: 3, 1");
        assert_eq!(
            d.mark_block_managers_line(),
            "Mark BlockManagers (BlockManagerId(3, c, 38003, None), \
             BlockManagerId(1, a, 38001, None)) as being decommissioning."
        );
        assert_eq!(
            DecommissionOutcome::notify_line(id(3)),
            "Notify executor 3 to decommission."
        );
        assert!(d.force_kill_check_due && d.worker_host.is_none());
        assert!(s.is_decommissioning(id(1)) && !s.is_active(id(1)));
        let mut t = with_executors(&["a"], 2);
        let d = decommission_executors(&mut t, &ids(&[1]), &info("m", 5), None).unwrap();
        assert!(!d.force_kill_check_due);
    }

    /// CoarseGrainedSchedulerBackendSuite "SPARK-41766: New registered executor should receive
    /// decommission request sent before registration" sets
    /// `spark.scheduler.maxRetainedUnknownDecommissionExecutors` to 1; its default (0 in the
    /// 4.0.0 jar's config package) retains none: a decommission of an executor not yet
    /// registered is dropped, and the executor registers active.
    #[test]
    fn a_decommission_of_an_unregistered_executor_is_dropped_by_default() {
        let mut s = with_executors(&["a"], 1);
        let info = info("Executor 2 is decommissioned", 0);
        assert_eq!(
            decommission_executors(&mut s, &ids(&[2]), &info, None),
            None
        );
        s.register(
            id(2),
            ExecutorData {
                executor: (),
                address: address(2),
                host: Rc::from("b"),
                free_cores: 1,
                total_cores: 1,
                resources: None,
            },
        );
        assert!(s.is_active(id(2)) && !s.is_decommissioning(id(2)));
    }

    /// A decommission already under way is not started again (nothing to log or send).
    #[test]
    fn a_second_decommission_of_the_same_executors_does_nothing() {
        let mut s = with_executors(&["a", "b"], 2);
        assert!(decommission_executors(&mut s, &ids(&[1]), &info("m", 0), None).is_some());
        assert_eq!(
            decommission_executors(&mut s, &ids(&[1]), &info("m", 9), None),
            None
        );
    }

    /// The HealthTracker's host-wide calls: the same line for a kill and a decommission, and
    /// the matching DriverEndpoint message.
    #[test]
    fn a_host_request_is_one_line_and_one_message() {
        let kill = HostRequest {
            host: "node3".to_string(),
            decommission: false,
        };
        assert_eq!(
            kill.line(),
            "Requesting to kill any and all executors on host node3"
        );
        assert_eq!(
            kill.message(),
            DriverEndpointMsg::KillExecutorsOnHost("node3".to_string())
        );
        let decommission = HostRequest {
            host: "node3".to_string(),
            decommission: true,
        };
        assert_eq!(
            decommission.message(),
            DriverEndpointMsg::DecommissionExecutorsOnHost("node3".to_string())
        );
    }

    /// DriverEndpoint.receive's `DecommissionExecutorsOnHost`: the host's alive executors, in
    /// id order, with the jar's message and no workerHost; none alive is nothing.
    #[test]
    fn a_host_decommission_takes_its_alive_executors() {
        let mut s = with_executors(&["a", "b", "a", "a"], 2);
        s.disable(id(3));
        let d = decommission_on_host(&s, "a", 1_200).unwrap();
        assert_eq!(d.executors, ids(&[1, 4]));
        assert_eq!(d.info, info("Decommissioning all executors on a.", 1_200));
        assert_eq!(decommission_on_host(&s, "z", 0), None);
    }

    /// `cleanup-decommission-execs`: only the executors still decommissioning are killed
    /// (those already gone or never decommissioned are not), with the jar's line; nothing
    /// while the SparkContext stops.
    #[test]
    fn the_force_kill_takes_the_executors_still_decommissioning() {
        let mut s = with_executors(&["a", "b", "c"], 2);
        decommission_executors(&mut s, &ids(&[1, 2]), &info("m", 0), Some(60));
        assert!(s.remove(id(2), ExecutorLossReason::Killed).is_some());
        let k = force_kill_stragglers(&s, &ids(&[1, 2, 3]), 60, false).unwrap();
        assert_eq!(k.stragglers, ids(&[1]));
        assert_eq!(k.line(), "List(1) failed to decommission in 60, killing.");
        assert_eq!(force_kill_stragglers(&s, &ids(&[1]), 60, true), None);
        assert_eq!(force_kill_stragglers(&s, &ids(&[2, 3]), 60, false), None);
    }

    fn hints(counts: &[(&str, u32)]) -> PlacementHints {
        PlacementHints {
            num_locality_aware_tasks: counts.iter().map(|(_, n)| n).sum(),
            host_to_local_task_count: counts.iter().map(|(h, n)| (h.to_string(), *n)).collect(),
        }
    }

    /// YarnSchedulerBackendSuite "RequestExecutors reflects node excludelist and is
    /// serializable": for every excludelist, total and host preference, the message carries
    /// the total and the excluded nodes, no excluded host among the preferences, and survives
    /// serialization (bincode, the wire format of sparkyard's messages).
    #[test]
    fn request_executors_reflects_the_excluded_nodes_and_is_serializable() {
        let cfg = bincode::config::standard();
        let excludelists: [BTreeSet<String>; 2] = [
            BTreeSet::new(),
            ["a", "b", "c"].iter().map(|h| h.to_string()).collect(),
        ];
        for excluded in &excludelists {
            for total in 0..10 {
                for preferences in [hints(&[]), hints(&[("a", 1), ("b", 2)])] {
                    let req = prepare_request_executors(total, &preferences, excluded.clone());
                    assert_eq!(req.resource_profile_to_total_execs, vec![(0, total)]);
                    let nodes: BTreeSet<String> = req.excluded_nodes.iter().cloned().collect();
                    assert_eq!(&nodes, excluded);
                    let (_, hosts) = &req.host_to_local_task_count[0];
                    assert!(hosts.iter().all(|(h, _)| !excluded.contains(h)));
                    let bytes = bincode::serde::encode_to_vec(&req, cfg).expect("serializes");
                    let (back, _): (RequestExecutors, usize) =
                        bincode::serde::decode_from_slice(&bytes, cfg).expect("deserializes");
                    assert_eq!(back, req);
                }
            }
        }
    }

    /// prepareRequestExecutors keeps the locality-aware task count as the manager gave it
    /// (excluded hosts only leave the host map), for the default profile.
    #[test]
    fn request_executors_keeps_the_locality_aware_count() {
        let excluded: BTreeSet<String> = BTreeSet::from(["b".to_string()]);
        let req = prepare_request_executors(4, &hints(&[("a", 1), ("b", 2)]), excluded);
        assert_eq!(
            req.num_locality_aware_tasks_per_resource_profile_id,
            vec![(0, 3)]
        );
        assert_eq!(
            req.host_to_local_task_count,
            vec![(0, vec![("a".to_string(), 1)])]
        );
        assert_eq!(req.excluded_nodes, vec!["b".to_string()]);
    }

    /// removeExecutor: an unknown executor is the DriverEndpoint's INFO line; a known one's
    /// loss line follows TaskSchedulerImpl.logExecutorLoss (ERROR for a loss).
    #[test]
    fn an_unknown_removal_is_a_line_and_a_loss_is_an_error() {
        let mut s = with_executors(&["a"], 2);
        let unknown = remove_executor(&mut s, id(5), ExecutorLossReason::Killed).err();
        assert_eq!(
            unknown.map(UnknownExecutor::line).as_deref(),
            Some("Asked to remove non-existent executor 5")
        );
        let lost = ExecutorLossReason::Exited {
            exit_code: 143,
            exit_caused_by_app: false,
            reason: "Container killed".to_string(),
        };
        let r = remove_executor(&mut s, id(1), lost).ok().unwrap();
        assert_eq!(r.cause, RemovalCause::Lost);
        assert_eq!(
            executor_loss_line(&r, 0),
            LogLine {
                level: Level::Error,
                text: "Lost executor 1 on a: Container killed".to_string()
            }
        );
    }

    /// logExecutorLoss: the driver's kill is INFO `killed by driver.`; a decommission INFO
    /// `is decommissioned after` Utils.msDurationToString of the time since its start.
    #[test]
    fn a_kill_and_a_decommission_are_info_lines() {
        let mut s = with_executors(&["a", "b"], 2);
        kill_executors(&mut s, &ids(&[1]), true, false);
        let killed = remove_executor(&mut s, id(1), ExecutorLossReason::Killed).ok();
        assert_eq!(
            executor_loss_line(&killed.unwrap(), 0),
            LogLine {
                level: Level::Info,
                text: "Executor 1 on a killed by driver.".to_string()
            }
        );
        decommission_executors(&mut s, &ids(&[2]), &info("m", 1_000), None);
        let lost = ExecutorLossReason::Killed;
        let decommissioned = remove_executor(&mut s, id(2), lost).ok().unwrap();
        assert_eq!(
            executor_loss_line(&decommissioned, 3_500).text,
            "Executor 2 on b is decommissioned after 2.5 s."
        );
    }

    /// CoarseGrainedSchedulerBackendSuite "custom log url for Spark UI is applied": each
    /// RegisterExecutor posts one `SparkListenerExecutorAdded` whose ExecutorInfo carries the
    /// executor's host, cores and (rewritten) log URLs. The one record gives that event, the
    /// run's record, the fault trigger and the registers-once invariant's flag.
    #[test]
    fn a_registration_is_one_record_every_output_reads() {
        let mut s = with_executors(&["a"], 2);
        let data = |n: u32| ExecutorData {
            executor: (),
            address: address(n),
            host: Rc::from("b"),
            free_cores: 0,
            total_cores: 3,
            resources: None,
        };
        let r = s.register(id(2), data(2));
        assert_eq!(
            r,
            ExecutorRegistration {
                id: id(2),
                host: Rc::from("b"),
                total_cores: 3,
                seen_before: false,
            }
        );
        assert_eq!(
            r.run_event(2),
            RunEvent::ExecutorRegistered {
                attempt: 2,
                executor: id(2)
            }
        );
        assert_eq!(
            r.trigger(2),
            Trigger::ExecutorRegistered {
                attempt: 2,
                executor: 2
            }
        );
        let urls = vec![("stdout".to_string(), "http://b/stdout".to_string())];
        let listing = ExecutorListing {
            request_time: Some(7),
            log_urls: urls.clone(),
            attributes: vec![],
            resources: vec![],
        };
        assert_eq!(
            r.listener_event(100, listing),
            ListenerEvent::ExecutorAdded {
                time: 100,
                request_time: Some(7),
                executor_id: "2".to_string(),
                host: "b".to_string(),
                total_cores: 3,
                log_urls: urls,
                attributes: vec![],
                resources: vec![],
            }
        );
        // Removed and registered again under the same id: the record says so.
        remove_executor(&mut s, id(2), ExecutorLossReason::Killed).ok();
        assert!(s.register(id(2), data(2)).seen_before);
    }

    /// CoarseGrainedSchedulerBackend.DriverEndpoint.removeExecutor (4.0.0 jar): after
    /// `scheduler.executorLost` it posts `SparkListenerExecutorRemoved(time, executorId,
    /// lossReason.toString)`. The one record gives that event, the run's record (the removal
    /// with its cause, then the tasks lost with it) and the loss line the same reason text.
    #[test]
    fn a_removal_is_one_record_every_output_reads() {
        let mut s = with_executors(&["a"], 2);
        let lost = ExecutorLossReason::Exited {
            exit_code: 143,
            exit_caused_by_app: false,
            reason: "Container killed".to_string(),
        };
        let mut r = remove_executor(&mut s, id(1), lost).ok().unwrap();
        let removed = RunEvent::ExecutorRemoved(RemovedExecutor {
            attempt: 2,
            executor: id(1),
            cause: RemovalCause::Lost,
            reason: "Container killed".to_string(),
        });
        // No running task lost: the removal alone.
        assert_eq!(
            r.run_events(2).collect::<Vec<_>>(),
            std::slice::from_ref(&removed)
        );
        r.lost_tasks = 3;
        let tasks_lost = RunEvent::Recovery(Recovery::RunningTasksLost {
            executor: id(1),
            tasks: 3,
        });
        assert_eq!(r.run_events(2).collect::<Vec<_>>(), [removed, tasks_lost]);
        assert_eq!(
            r.listener_event(1_700_000_000_000),
            ListenerEvent::ExecutorRemoved {
                time: 1_700_000_000_000,
                executor_id: "1".to_string(),
                reason: "Container killed".to_string(),
            }
        );
        assert!(executor_loss_line(&r, 0).text.ends_with(&r.reason_text));
    }

    /// removeExecutor's reason after its rules: a kill the driver asked for is
    /// `ExecutorKilled` whatever the cluster manager said, and every output says so.
    #[test]
    fn a_kill_the_driver_asked_for_reads_as_killed_everywhere() {
        let mut s = with_executors(&["a"], 2);
        kill_executors(&mut s, &ids(&[1]), true, false);
        let exited = ExecutorLossReason::Exited {
            exit_code: 143,
            exit_caused_by_app: false,
            reason: "Container killed".to_string(),
        };
        let r = remove_executor(&mut s, id(1), exited).ok().unwrap();
        let text = ExecutorLossReason::Killed.to_string();
        let ListenerEvent::ExecutorRemoved { reason, .. } = r.listener_event(0) else {
            panic!("an ExecutorRemoved event");
        };
        assert_eq!(reason, text);
        let events: Vec<RunEvent> = r.run_events(1).collect();
        let [RunEvent::ExecutorRemoved(removed)] = events.as_slice() else {
            panic!("one ExecutorRemoved: {events:?}");
        };
        assert_eq!(
            (removed.cause, removed.reason.as_str()),
            (RemovalCause::KilledByDriver, text.as_str())
        );
    }

    /// DriverEndpoint.receive / receiveAndReply (the pieces of each line read from the 4.0.0
    /// jar's `$anonfun$receive$1` and `$anonfun$receiveAndReply$1`): an end or a kill for an
    /// unknown executor is a WARN, a registration an INFO line naming the sender's address.
    #[test]
    fn the_endpoints_own_lines() {
        assert_eq!(
            unknown_status_update_line(TaskId(7), TaskState::Finished, id(3)),
            "Ignored task status update (7 state FINISHED) from unknown executor with ID 3"
        );
        assert_eq!(
            unknown_kill_line(TaskId(7), id(3)),
            "Attempted to kill task 7 for unknown executor 3."
        );
        assert_eq!(
            registered_line(
                &"NettyRpcEndpointRef(spark-client://Executor)",
                "10.0.0.2",
                41_234,
                id(3),
                0
            ),
            "Registered executor NettyRpcEndpointRef(spark-client://Executor) (10.0.0.2:41234) with ID 3, ResourceProfileId 0"
        );
    }

    fn registration(registered: u32, waited_ms: u64) -> Registration {
        Registration {
            registered,
            expected: 4,
            min_ratio: 0.8,
            waited_ms,
            max_wait_ms: 30_000,
        }
    }

    /// isReady (YarnSchedulerBackend's sufficientResourcesRegistered): 4 expected at 0.8 are
    /// enough with 4 (3.2 needed), not 3; the ratio wins over the wait; the wait alone after
    /// maxRegisteredResourcesWaitingTime.
    #[test]
    fn the_backend_is_ready_at_the_ratio_or_after_the_wait() {
        let by_ratio = Readiness::RatioReached { ratio: 0.8 };
        assert_eq!(is_ready(registration(4, 0)), Some(by_ratio));
        assert_eq!(is_ready(registration(3, 29_999)), None);
        assert_eq!(is_ready(registration(4, 30_000)), Some(by_ratio));
        let waited = Readiness::WaitedLongEnough {
            max_wait_ms: 30_000,
        };
        assert_eq!(is_ready(registration(3, 30_000)), Some(waited));
        let none_expected = Registration {
            expected: 0,
            ..registration(0, 0)
        };
        assert!(is_ready(none_expected).is_some());
    }

    /// isReady's lines print Doubles as Java does (the 4.0.0 jar divides the wait in ns by
    /// 1000000.0): `0.8`, `1.0`, `30000.0(ms)`.
    #[test]
    fn the_ready_lines_print_doubles_as_java() {
        let said = "SchedulerBackend is ready for scheduling beginning after";
        assert_eq!(
            Readiness::RatioReached { ratio: 0.8 }.line(),
            format!("{said} reached minRegisteredResourcesRatio: 0.8")
        );
        assert_eq!(
            Readiness::RatioReached { ratio: 1.0 }.line(),
            format!("{said} reached minRegisteredResourcesRatio: 1.0")
        );
        let waited = Readiness::WaitedLongEnough {
            max_wait_ms: 30_000,
        };
        assert_eq!(
            waited.line(),
            format!("{said} waiting maxRegisteredResourcesWaitingTime: 30000.0(ms)")
        );
    }

    /// YarnDriverEndpoint.onDisconnected: the executor at the address is disabled once, with
    /// the jar's lines and `ExecutorDisconnected` for the AM; an unknown address, a second
    /// disconnect and a disconnect at shutdown are nothing.
    #[test]
    fn a_disconnect_disables_the_executor_once() {
        let mut s = with_executors(&["a", "b"], 2);
        assert_eq!(disconnected(&mut s, address(2), true), None);
        assert!(s.is_active(id(2)), "shutting down: left alone");
        let gone = disconnected(&mut s, address(2), false).unwrap();
        assert_eq!(gone.id, id(2));
        assert_eq!(gone.disabling_line(), "Disabling executor 2.");
        assert_eq!(
            gone.reason_pending_line().as_deref(),
            Some("Executor 2 on b lost, but reason not yet known.")
        );
        assert_eq!(
            gone.message(),
            YarnSchedulerMsg::ExecutorDisconnected {
                executor_id: id(2),
                address: "10.0.0.2:40002".to_string()
            }
        );
        assert!(!s.is_alive(id(2)));
        assert_eq!(disconnected(&mut s, address(2), false), None);
        assert_eq!(disconnected(&mut s, address(9), false), None);
    }
}
