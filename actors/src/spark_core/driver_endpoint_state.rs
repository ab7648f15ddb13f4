//! The DriverEndpoint's own executor rules as a plain struct (Spark 4.0.0's
//! `CoarseGrainedSchedulerBackend` and its `DriverEndpoint`): `executorDataMap` and
//! `addressToExecutorId`, `executorsPendingLossReason`, `executorsPendingToRemove`,
//! `executorsPendingDecommission`, the core and executor counts; `RegisterExecutor`'s refusals,
//! `removeExecutor`'s loss reason, `disableExecutor`, `killExecutors`' and
//! `decommissionExecutors`' choices, `executorIsAlive` / `isExecutorActive`, an executor's free
//! cores (`LaunchedExecutor`, `launchTasks`, a finished task's `StatusUpdate`). No actix, no clock,
//! no log: the actor passes times in and carries out what it gets back (replies, log lines, the
//! listener bus, the scheduler). The executor handle `R` is the actor's endpoint reference.

use crate::kernel::small_map::DenseMap;
use crate::spark_core::executor_resource_info::{self, ExecutorResources};
use crate::world::observer::RemovalCause;
use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::rpc::RpcAddress;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// `ExecutorData`: what the driver knows of a registered executor.
///
/// `repr(C, align(64))`: what a task's end and the next launch read (the cores, the host, the
/// reference) share the first cache line of the entry, and the address, read only when the
/// executor comes or goes, follows; with a thousand executors taking turns, an entry is cold
/// when its next task comes, and an entry straddling two lines cost two misses.
#[repr(C, align(64))]
pub struct ExecutorData<R> {
    pub free_cores: u32,
    pub total_cores: u32,
    /// Shared with every offer and running task on this executor (a task launch clones it).
    pub host: Rc<str>,
    pub executor: R,
    pub address: RpcAddress,
    /// `resourcesInfo`: its custom resources (GPUs), when its tasks ask for some; shared with
    /// the offers made of it, from which the scheduler takes a launched task's addresses.
    pub resources: Option<Rc<RefCell<ExecutorResources>>>,
}

impl<R> ExecutorData<R> {
    /// The cores an offer of this executor shows: its free cores, no more than its free custom
    /// resources let tasks use (`executor_resource_info::offer_cores`).
    #[inline]
    pub fn offer_cores(&self, task_cpus: u32) -> u32 {
        match &self.resources {
            None => self.free_cores,
            Some(r) => {
                executor_resource_info::offer_cores(self.free_cores, task_cpus, Some(&r.borrow()))
            }
        }
    }
}

/// `ExecutorDecommissionInfo(message, workerHost)`, with TaskSchedulerImpl's
/// `ExecutorDecommissionState.startTime`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecommissionInfo {
    pub message: String,
    /// Set only where the cluster manager says the whole worker goes (standalone's Worker); on
    /// YARN always `None`, a node's decommission included.
    pub worker_host: Option<String>,
    /// When `TaskSchedulerImpl.executorDecommission` recorded it (`clock.getTimeMillis()`).
    pub start_ms: u64,
}

/// Why `RegisterExecutor` is refused (`DriverEndpoint.receiveAndReply`, 4.0.0 jar's
/// `$anonfun$receiveAndReply$1`): the reply is an `IllegalStateException` with `message()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterRefusal {
    /// `executorDataMap.contains(executorId)`.
    Duplicate(ExecutorId),
    /// `scheduler.excludedNodes().contains(hostname)` (or `isExecutorExcluded`).
    Excluded(ExecutorId),
}

impl RegisterRefusal {
    /// The exception's text.
    pub fn message(self) -> String {
        match self {
            RegisterRefusal::Duplicate(id) => format!("Duplicate executor ID: {id}"),
            RegisterRefusal::Excluded(id) => format!("Executor is excluded due to failures: {id}"),
        }
    }

    /// The INFO line logged before the refusal (only an excluded executor's).
    pub fn log_line(self) -> Option<String> {
        match self {
            RegisterRefusal::Duplicate(_) => None,
            RegisterRefusal::Excluded(id) => {
                Some(format!("Rejecting {id} as it has been excluded."))
            }
        }
    }
}

/// An executor's registration, recorded once by `register`: every output (the run's record,
/// the registers-once invariant, the HeartbeatReceiver's `addExecutor`, the fault injector's
/// trigger, `SparkListenerExecutorAdded`, which the allocation manager hears) reads it;
/// `coarse_grained_backend` derives each output from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorRegistration {
    pub id: ExecutorId,
    /// The host it registered from (shared with its `ExecutorData`).
    pub host: Rc<str>,
    pub total_cores: u32,
    /// The id registered with this driver before (an invariant: ids are never reused).
    pub seen_before: bool,
}

/// An executor's removal, recorded once by `remove` (and its lost tasks once the scheduler
/// failed them): every output (the run's record, the `TaskSchedulerImpl.logExecutorLoss` line,
/// `SparkListenerExecutorRemoved`, the HeartbeatReceiver, the scheduler's `executorLost`)
/// reads it; `coarse_grained_backend` derives each output from it.
pub struct Removal<R> {
    pub id: ExecutorId,
    pub data: Box<ExecutorData<R>>,
    /// The loss reason after `removeExecutor`'s rules.
    pub reason: ExecutorLossReason,
    /// `reason.toString` (the listener event's and the record's text).
    pub reason_text: String,
    /// When its decommission started, if it was decommissioning.
    pub decommission_started_ms: Option<u64>,
    /// How the run's summary counts it.
    pub cause: RemovalCause,
    /// The running task attempts that failed with it (`TaskSetManager.executorLost`'s
    /// `ExecutorLostFailure`s): 0 until `TaskSchedulerImpl.executorLost` has run.
    pub lost_tasks: u32,
}

/// `killExecutors`' choice: the ids it warns about and those it kills.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KillSelection {
    /// Not registered: `Executor to kill N does not exist!`.
    pub unknown: Vec<ExecutorId>,
    /// `Actual list of executor(s) to be killed is ...`, now in `executorsPendingToRemove`.
    pub to_kill: Vec<ExecutorId>,
}

/// A finished task's cores given back to its executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleasedCores {
    /// The free cores after the release, before they are capped at the total (more than the
    /// total means a task's cores came back twice: the free-cores invariant).
    pub free: u32,
    pub total: u32,
}

/// The DriverEndpoint's executor bookkeeping.
pub struct DriverEndpointState<R> {
    /// `executorDataMap`, by executor id: the allocator hands ids out in order, so a slot per
    /// id replaces the B-tree searches of the per-task path. Boxed, so a slot (and the hole a
    /// removed executor leaves) is one pointer.
    pub executors: DenseMap<ExecutorId, Box<ExecutorData<R>>>,
    /// `addressToExecutorId`.
    by_address: BTreeMap<RpcAddress, ExecutorId>,
    /// `executorsPendingLossReason`: disabled, waiting for the cluster manager's reason.
    pending_loss_reason: BTreeSet<ExecutorId>,
    /// `executorsPendingToRemove`: executors the driver asked to kill, with whether their loss
    /// is `ExecutorKilled` (`!countFailures`) rather than the cluster manager's reason.
    pending_to_remove: BTreeMap<ExecutorId, bool>,
    /// `executorsPendingDecommission`: each decommissioning executor's info.
    pending_decommission: BTreeMap<ExecutorId, DecommissionInfo>,
    /// `totalCoreCount`.
    pub total_core_count: u32,
    /// `totalRegisteredExecutors`.
    pub total_registered: u32,
    /// Every executor id that ever registered with this driver.
    ever_registered: BTreeSet<ExecutorId>,
    /// Dynamic allocation is on: the driver's kills are idle timeouts.
    dynamic_allocation: bool,
}

impl<R> DriverEndpointState<R> {
    pub fn new(dynamic_allocation: bool) -> Self {
        DriverEndpointState {
            executors: DenseMap::default(),
            by_address: BTreeMap::new(),
            pending_loss_reason: BTreeSet::new(),
            pending_to_remove: BTreeMap::new(),
            pending_decommission: BTreeMap::new(),
            total_core_count: 0,
            total_registered: 0,
            ever_registered: BTreeSet::new(),
            dynamic_allocation,
        }
    }

    /// `RegisterExecutor`'s refusals, in Spark's order: a duplicate id first, then an executor
    /// on an excluded node.
    pub fn check_registration(
        &self,
        id: ExecutorId,
        host_excluded: bool,
    ) -> Result<(), RegisterRefusal> {
        if self.executors.contains(id) {
            return Err(RegisterRefusal::Duplicate(id));
        }
        if host_excluded {
            return Err(RegisterRefusal::Excluded(id));
        }
        Ok(())
    }

    /// `RegisterExecutor`'s bookkeeping: `addressToExecutorId`, `totalCoreCount`,
    /// `totalRegisteredExecutors`, `executorDataMap` (free cores 0 until `LaunchedExecutor`).
    pub fn register(&mut self, id: ExecutorId, data: ExecutorData<R>) -> ExecutorRegistration {
        self.total_core_count += data.total_cores;
        self.total_registered += 1;
        self.by_address.insert(data.address.clone(), id);
        let registration = ExecutorRegistration {
            id,
            host: data.host.clone(),
            total_cores: data.total_cores,
            seen_before: !self.ever_registered.insert(id),
        };
        self.executors.insert(id, Box::new(data));
        registration
    }

    /// `LaunchedExecutor`: `executorData.freeCores = executorData.totalCores` (the executor
    /// takes tasks from now on); its host, `None` for an executor not registered.
    pub fn launched(&mut self, id: ExecutorId) -> Option<Rc<str>> {
        let e = self.executors.get_mut(id)?;
        e.free_cores = e.total_cores;
        Some(e.host.clone())
    }

    /// `launchTasks`' `executorData.freeCores -= task.cpus`, given as the free cores the
    /// scheduler's offer left: whether they changed (false for an unknown executor).
    #[inline]
    pub fn set_free_cores(&mut self, id: ExecutorId, free: u32) -> bool {
        match self.executors.get_mut(id) {
            Some(e) if e.free_cores != free => {
                e.free_cores = free;
                true
            }
            _ => false,
        }
    }

    /// `StatusUpdate` of a finished task: `executorInfo.freeCores += taskCpus`, capped at the
    /// executor's cores; `None` for an executor not registered.
    #[inline]
    pub fn release_task_cores(&mut self, id: ExecutorId, task_cpus: u32) -> Option<ReleasedCores> {
        let e = self.executors.get_mut(id)?;
        let free = e.free_cores + task_cpus;
        e.free_cores = free.min(e.total_cores);
        Some(ReleasedCores {
            free,
            total: e.total_cores,
        })
    }

    /// `StatusUpdate` of a finished task: the custom resource addresses it held are free again
    /// (`executorInfo.resourcesInfo(rName).release(addressAmounts)`).
    pub fn release_task_resources(&mut self, id: ExecutorId, task: TaskId) {
        if let Some(r) = self.executors.get(id).and_then(|e| e.resources.as_ref()) {
            r.borrow_mut().release(task);
        }
    }

    /// The executor connected from `address`.
    pub fn executor_at(&self, address: &RpcAddress) -> Option<ExecutorId> {
        self.by_address.get(address).copied()
    }

    /// The registered executors' ids, in id order.
    pub fn executor_ids(&self) -> Vec<ExecutorId> {
        let mut ids: Vec<ExecutorId> = self.by_address.values().copied().collect();
        ids.sort();
        ids
    }

    /// The executors alive on `host`, in id order: TaskSchedulerImpl's
    /// `getExecutorsAliveOnHost` (4.0.0 jar) is its `hostToExecutors(host)` less the
    /// decommissioned executors, and an executor leaves `hostToExecutors` on its
    /// `executorLost`, which `disableExecutor` calls (`LossReasonPending`) before its loss
    /// reason is known; one the driver is killing is still there. A walk over the executors:
    /// killing or decommissioning a whole host is rare.
    pub fn alive_executors_on(&self, host: &str) -> Vec<ExecutorId> {
        let mut ids = self.executor_ids();
        ids.retain(|id| {
            !self.pending_loss_reason.contains(id)
                && !self.pending_decommission.contains_key(id)
                && self.executors.get(*id).is_some_and(|e| &*e.host == host)
        });
        ids
    }

    /// `removeExecutor(id, reason)`: the executor leaves every map; a kill the driver asked for
    /// is `ExecutorKilled` (when `!countFailures`), else a decommissioning executor's loss is
    /// `ExecutorDecommission(workerHost, message)`, else the reason given. `None`: `Asked to
    /// remove non-existent executor`.
    pub fn remove(&mut self, id: ExecutorId, reason: ExecutorLossReason) -> Option<Removal<R>> {
        let data = self.executors.remove(id)?;
        self.by_address.remove(&data.address);
        self.pending_loss_reason.remove(&id);
        let killed_by_driver = self.pending_to_remove.remove(&id).unwrap_or(false);
        let decommission = self.pending_decommission.remove(&id);
        let decommission_started_ms = decommission.as_ref().map(|d| d.start_ms);
        let reason = match decommission {
            _ if killed_by_driver => ExecutorLossReason::Killed,
            Some(info) => ExecutorLossReason::Decommission {
                reason: info.message,
                worker_host: info.worker_host,
            },
            None => reason,
        };
        self.total_core_count -= data.total_cores;
        self.total_registered -= 1;
        let cause = self.removal_cause(&reason, decommission_started_ms.is_some());
        Some(Removal {
            id,
            data,
            reason_text: reason.to_string(),
            reason,
            decommission_started_ms,
            cause,
            lost_tasks: 0,
        })
    }

    /// How the run's summary counts a removal: the driver's kill (dynamic allocation's idle
    /// timeout, or a decommissioning executor killed after its timeout) or a decommission is
    /// no loss.
    fn removal_cause(&self, reason: &ExecutorLossReason, decommissioned: bool) -> RemovalCause {
        match reason {
            ExecutorLossReason::Killed if decommissioned => RemovalCause::Decommissioned,
            ExecutorLossReason::Killed if self.dynamic_allocation => RemovalCause::Idle,
            ExecutorLossReason::Killed => RemovalCause::KilledByDriver,
            ExecutorLossReason::Decommission { .. } => RemovalCause::Decommissioned,
            _ => RemovalCause::Lost,
        }
    }

    /// `disableExecutor`: an active executor waits for its loss reason (true); one the driver
    /// is killing is disabled too, without waiting (true); any other (unknown, already
    /// disabled, decommissioning) is not (false). True: `Disabling executor N.` and
    /// `executorLost(N, LossReasonPending)`.
    pub fn disable(&mut self, id: ExecutorId) -> bool {
        if self.is_active(id) {
            self.pending_loss_reason.insert(id);
            return true;
        }
        self.pending_to_remove.contains_key(&id)
    }

    /// `killExecutors(ids, ..., countFailures, force)`: unknown ids are warned about; a known
    /// one not already being removed is killed when `force` or not busy, and its loss will be
    /// `ExecutorKilled` unless `count_failures`.
    pub fn select_kills(
        &mut self,
        ids: &[ExecutorId],
        count_failures: bool,
        force: bool,
    ) -> KillSelection {
        let mut out = KillSelection::default();
        for &id in ids {
            if !self.executors.contains(id) {
                out.unknown.push(id);
            } else if !self.pending_to_remove.contains_key(&id) && (force || !self.is_busy(id)) {
                out.to_kill.push(id);
            }
        }
        for &id in &out.to_kill {
            self.pending_to_remove.insert(id, !count_failures);
        }
        out
    }

    /// `decommissionExecutors`: the active ones among `ids` become decommissioning with `info`
    /// (returned in the given order); the others are left alone.
    pub fn start_decommission(
        &mut self,
        ids: &[ExecutorId],
        info: &DecommissionInfo,
    ) -> Vec<ExecutorId> {
        let active: Vec<ExecutorId> = ids
            .iter()
            .copied()
            .filter(|id| self.is_active(*id))
            .collect();
        for &id in &active {
            self.pending_decommission.insert(id, info.clone());
        }
        active
    }

    /// `isExecutorActive`: registered, not being removed, lost or decommissioned.
    pub fn is_active(&self, id: ExecutorId) -> bool {
        self.executors.contains(id) && self.is_alive(id)
    }

    /// `executorIsAlive` (makeOffers' filter): not being removed, waiting for its loss reason
    /// or decommissioned.
    #[inline]
    pub fn is_alive(&self, id: ExecutorId) -> bool {
        !self.pending_to_remove.contains_key(&id)
            && !self.pending_loss_reason.contains(&id)
            && !self.pending_decommission.contains_key(&id)
    }

    pub fn is_decommissioning(&self, id: ExecutorId) -> bool {
        self.pending_decommission.contains_key(&id)
    }

    /// `scheduler.isExecutorBusy`: its cores are held by running tasks.
    pub fn is_busy(&self, id: ExecutorId) -> bool {
        self.executors
            .get(id)
            .is_some_and(|e| e.free_cores < e.total_cores)
    }

    /// Whether a revive should offer this executor's cores: alive, with a task's cores (and
    /// custom resources, when its tasks ask for some) free.
    #[inline]
    pub fn offerable(&self, id: ExecutorId, task_cpus: u32) -> bool {
        self.is_alive(id)
            && self
                .executors
                .get(id)
                .is_some_and(|e| e.offer_cores(task_cpus) >= task_cpus)
    }

    /// `maxNumConcurrentTasks`: the task slots of every active executor, busy or free, what a
    /// barrier stage's slot check reads (`DAGScheduler.checkBarrierStageWithNumSlots`).
    /// `TaskSchedulerImpl.calculateAvailableSlots` counts the profile's limiting resource
    /// alone (the executor's cores are known on YARN): `totalCores / taskCpus` when it is
    /// `cpus` (`limiting` `None`), else the custom resource's total addresses.
    pub fn max_num_concurrent_tasks(&self, task_cpus: u32, limiting: Option<&str>) -> u32 {
        let task_cpus = task_cpus.max(1);
        self.executors
            .iter()
            .filter(|(id, _)| self.is_alive(*id))
            .map(|(_, e)| match (limiting, &e.resources) {
                (Some(name), Some(r)) => r.borrow().total_task_slots(name),
                // The resource is one tasks ask for, so every executor tracks it; one
                // without it found none (`resources.getOrElse(limitingResource, 0)`).
                (Some(_), None) => 0,
                (None, _) => e.total_cores / task_cpus,
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    //! Rules of Spark 4.0.0's CoarseGrainedSchedulerBackend.scala (confirmed in
    //! spark-core_2.13-4.0.0.jar), and the cases of CoarseGrainedSchedulerBackendSuite.scala
    //! the simulated parts run.
    use super::*;

    fn id(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    fn data(n: u32, cores: u32) -> ExecutorData<()> {
        ExecutorData {
            executor: (),
            address: RpcAddress {
                host: format!("10.0.0.{n}"),
                port: 40_000 + n as u16,
            },
            host: Rc::from(format!("node{n}").as_str()),
            free_cores: cores,
            total_cores: cores,
            resources: None,
        }
    }

    /// A state with executors 1..=n of `cores` cores each, all free.
    fn with_executors(n: u32, cores: u32, dynamic_allocation: bool) -> DriverEndpointState<()> {
        let mut s = DriverEndpointState::new(dynamic_allocation);
        for i in 1..=n {
            s.register(id(i), data(i, cores));
        }
        s
    }

    fn exited(reason: &str) -> ExecutorLossReason {
        ExecutorLossReason::Exited {
            exit_code: 143,
            exit_caused_by_app: false,
            reason: reason.to_string(),
        }
    }

    /// DriverEndpoint.receiveAndReply's RegisterExecutor: a duplicate id is refused first
    /// (even from an excluded node), with IllegalStateException's texts of the 4.0.0 jar.
    #[test]
    fn registration_refuses_duplicate_then_excluded_with_sparks_texts() {
        let s = with_executors(1, 2, false);
        let dup = s.check_registration(id(1), true).unwrap_err();
        assert_eq!(dup, RegisterRefusal::Duplicate(id(1)));
        assert_eq!(dup.message(), "Duplicate executor ID: 1");
        assert_eq!(dup.log_line(), None);
        let excluded = s.check_registration(id(2), true).unwrap_err();
        assert_eq!(
            excluded.message(),
            "Executor is excluded due to failures: 2"
        );
        assert_eq!(
            excluded.log_line().as_deref(),
            Some("Rejecting 2 as it has been excluded.")
        );
        assert_eq!(s.check_registration(id(2), false), Ok(()));
    }

    /// CoarseGrainedSchedulerBackendSuite "custom log url for Spark UI is applied": three
    /// RegisterExecutor asks, three executors added (each counted once, its cores summed).
    #[test]
    fn registrations_add_executors_cores_and_addresses() {
        let s = with_executors(3, 1, false);
        assert_eq!(s.total_registered, 3);
        assert_eq!(s.total_core_count, 3);
        assert_eq!(s.executor_ids(), vec![id(1), id(2), id(3)]);
        assert_eq!(s.executor_at(&data(2, 1).address), Some(id(2)));
        assert!((1..=3).all(|i| s.is_active(id(i))));
    }

    /// An id registering again after its removal is flagged (ids are never reused).
    #[test]
    fn a_reused_id_is_seen_before() {
        let mut s = DriverEndpointState::new(false);
        assert!(!s.register(id(1), data(1, 2)).seen_before);
        assert!(s.remove(id(1), exited("gone")).is_some());
        assert!(s.register(id(1), data(1, 2)).seen_before);
    }

    /// removeExecutor: an unknown executor is no removal ("Asked to remove non-existent
    /// executor"); a known one leaves every map and the counts.
    #[test]
    fn removal_of_an_unknown_executor_is_none_and_a_known_one_leaves_every_map() {
        let mut s = with_executors(2, 4, false);
        assert!(s.remove(id(9), exited("x")).is_none());
        assert!(s.disable(id(1)));
        let r = s.remove(id(1), exited("Container exited")).unwrap();
        assert_eq!(r.reason, exited("Container exited"));
        assert_eq!(r.reason_text, "Container exited");
        assert_eq!(r.cause, RemovalCause::Lost);
        assert_eq!(&*r.data.host, "node1");
        assert_eq!((s.total_core_count, s.total_registered), (4, 1));
        assert_eq!(s.executor_at(&data(1, 4).address), None);
        assert_eq!(s.executor_ids(), vec![id(2)]);
        // Removed once: a second report finds nothing.
        assert!(s.remove(id(1), exited("again")).is_none());
    }

    /// removeExecutor: `executorsPendingToRemove.remove(id).getOrElse(false)` makes the loss
    /// ExecutorKilled whatever the cluster manager said; with dynamic allocation it is an idle
    /// removal, without it the driver's kill.
    #[test]
    fn a_kill_the_driver_asked_for_is_executor_killed() {
        for (dynamic, cause) in [
            (true, RemovalCause::Idle),
            (false, RemovalCause::KilledByDriver),
        ] {
            let mut s = with_executors(1, 2, dynamic);
            assert_eq!(s.select_kills(&[id(1)], false, false).to_kill, vec![id(1)]);
            let r = s.remove(id(1), exited("Container killed")).unwrap();
            assert_eq!(r.reason, ExecutorLossReason::Killed);
            assert_eq!(r.reason_text, "Executor killed by driver.");
            assert_eq!(r.cause, cause);
        }
    }

    /// killExecutors(countFailures = true) records `executorsPendingToRemove(id) = false`: the
    /// cluster manager's reason stands and the loss counts.
    #[test]
    fn a_kill_that_counts_failures_keeps_the_reported_reason() {
        let mut s = with_executors(1, 2, false);
        s.select_kills(&[id(1)], true, true);
        assert!(!s.is_alive(id(1)));
        let r = s.remove(id(1), exited("heartbeat")).unwrap();
        assert_eq!(r.reason, exited("heartbeat"));
        assert_eq!(r.cause, RemovalCause::Lost);
    }

    /// removeExecutor: a decommissioning executor's loss is
    /// `ExecutorDecommission(workerHost, message)`, with its start kept for logExecutorLoss.
    #[test]
    fn a_decommissioning_executor_is_lost_as_decommissioned() {
        let mut s = with_executors(2, 2, true);
        let info = DecommissionInfo {
            message: "spark scale down".to_string(),
            worker_host: None,
            start_ms: 1_500,
        };
        assert_eq!(s.start_decommission(&[id(2)], &info), vec![id(2)]);
        let r = s.remove(id(2), exited("Container exited")).unwrap();
        assert_eq!(
            r.reason,
            ExecutorLossReason::Decommission {
                reason: "spark scale down".to_string(),
                worker_host: None
            }
        );
        assert_eq!(r.reason_text, "Executor decommission: spark scale down");
        assert_eq!(r.decommission_started_ms, Some(1_500));
        assert_eq!(r.cause, RemovalCause::Decommissioned);
    }

    /// A decommissioning executor force-killed after `forceKillTimeout`: the kill wins
    /// (ExecutorKilled), and the run counts it as decommissioned.
    #[test]
    fn a_decommissioning_executor_killed_is_killed_and_counted_decommissioned() {
        let mut s = with_executors(1, 2, true);
        let info = DecommissionInfo {
            message: "m".to_string(),
            worker_host: None,
            start_ms: 0,
        };
        s.start_decommission(&[id(1)], &info);
        assert_eq!(s.select_kills(&[id(1)], false, true).to_kill, vec![id(1)]);
        let r = s.remove(id(1), exited("x")).unwrap();
        assert_eq!(r.reason, ExecutorLossReason::Killed);
        assert_eq!(r.cause, RemovalCause::Decommissioned);
    }

    /// disableExecutor: an active executor waits for its loss reason; one being killed is
    /// disabled without waiting; a disabled, decommissioning or unknown one is not.
    #[test]
    fn disable_follows_spark_rules() {
        let mut s = with_executors(3, 2, false);
        assert!(s.disable(id(1)));
        assert!(!s.is_alive(id(1)) && !s.is_active(id(1)));
        assert!(!s.disable(id(1)), "already pending its loss reason");
        s.select_kills(&[id(2)], false, true);
        assert!(s.disable(id(2)));
        assert!(s.disable(id(2)), "still pending to remove");
        let info = DecommissionInfo {
            message: "m".to_string(),
            worker_host: None,
            start_ms: 0,
        };
        s.start_decommission(&[id(3)], &info);
        assert!(!s.disable(id(3)));
        assert!(!s.disable(id(7)));
    }

    /// killExecutors: unknown ids are warned about, an executor already pending removal or
    /// busy (without force) is left, in the order asked.
    #[test]
    fn kills_skip_unknown_pending_and_busy_executors() {
        let mut s = with_executors(4, 2, true);
        s.executors.get_mut(id(3)).unwrap().free_cores = 1;
        let first = s.select_kills(&[id(2), id(9), id(3), id(1)], false, false);
        assert_eq!(first.unknown, vec![id(9)]);
        assert_eq!(first.to_kill, vec![id(2), id(1)]);
        let again = s.select_kills(&[id(1), id(3)], false, false);
        assert_eq!(again.to_kill, Vec::<ExecutorId>::new());
        let forced = s.select_kills(&[id(1), id(3)], false, true);
        assert_eq!(forced.to_kill, vec![id(3)]);
        assert!(s.is_alive(id(4)) && !s.is_alive(id(3)));
    }

    /// decommissionExecutors keeps only active executors (not being removed, disabled or
    /// already decommissioning).
    #[test]
    fn decommission_takes_only_active_executors() {
        let mut s = with_executors(4, 2, true);
        s.select_kills(&[id(1)], false, true);
        s.disable(id(2));
        let info = DecommissionInfo {
            message: "Decommissioning all executors on node.".to_string(),
            worker_host: None,
            start_ms: 7,
        };
        assert_eq!(
            s.start_decommission(&[id(4), id(3)], &info),
            vec![id(4), id(3)]
        );
        let all = [id(1), id(2), id(3), id(4), id(5)];
        assert_eq!(s.start_decommission(&all, &info), Vec::<ExecutorId>::new());
        assert!(s.is_decommissioning(id(3)) && !s.is_decommissioning(id(2)));
    }

    /// getExecutorsAliveOnHost: the host's executors less those waiting for their loss reason
    /// (gone from TaskSchedulerImpl's `hostToExecutors`) and the decommissioning ones; an
    /// executor being killed is still there.
    #[test]
    fn alive_on_a_host_leaves_out_disabled_and_decommissioning_executors() {
        let mut s = DriverEndpointState::new(false);
        for i in 1..=5 {
            let mut d = data(i, 2);
            d.host = Rc::from("node1");
            s.register(id(i), d);
        }
        s.register(id(6), data(6, 2));
        s.disable(id(2));
        let info = DecommissionInfo {
            message: "m".to_string(),
            worker_host: None,
            start_ms: 0,
        };
        s.start_decommission(&[id(3)], &info);
        s.select_kills(&[id(4)], false, true);
        assert_eq!(s.alive_executors_on("node1"), vec![id(1), id(4), id(5)]);
        assert_eq!(s.alive_executors_on("node6"), vec![id(6)]);
        assert!(s.alive_executors_on("node9").is_empty());
    }

    /// makeOffers' `executorIsAlive` filter and the free cores a task needs.
    #[test]
    fn only_alive_executors_with_a_tasks_cores_are_offerable() {
        let mut s = with_executors(3, 2, false);
        s.executors.get_mut(id(3)).unwrap().free_cores = 1;
        s.disable(id(1));
        assert!(!s.offerable(id(1), 1));
        assert!(s.offerable(id(2), 2));
        assert!(s.offerable(id(3), 1) && !s.offerable(id(3), 2));
        assert!(!s.offerable(id(8), 1));
    }

    /// CoarseGrainedSchedulerBackendSuite "SPARK-41848: executor cores should be decreased
    /// based on taskCpus" (and the cores of "extra resources from executor"): an executor of 3
    /// cores registers with none free, has 3 once launched, 1 after a task of 2 cpus, and 3
    /// again once that task's FINISHED update gives its 2 cpus back.
    #[test]
    fn a_tasks_cpus_are_taken_and_given_back() {
        let mut s = DriverEndpointState::new(false);
        let mut d = data(1, 3);
        d.free_cores = 0;
        s.register(id(1), d);
        assert!(!s.offerable(id(1), 1), "no offer before LaunchedExecutor");
        assert_eq!(s.launched(id(1)).as_deref(), Some("node1"));
        assert_eq!(s.executors.get(id(1)).unwrap().free_cores, 3);
        assert!(s.set_free_cores(id(1), 3 - 2));
        assert!(!s.set_free_cores(id(1), 1), "unchanged");
        assert!(s.is_busy(id(1)) && !s.offerable(id(1), 2));
        let back = s.release_task_cores(id(1), 2);
        assert_eq!(back, Some(ReleasedCores { free: 3, total: 3 }));
        assert!(!s.is_busy(id(1)) && s.offerable(id(1), 3));
        assert_eq!(s.launched(id(9)), None);
        assert_eq!(s.release_task_cores(id(9), 1), None);
        assert!(!s.set_free_cores(id(9), 1));
    }

    /// A task's cores given back twice would make more cores free than the executor has:
    /// reported (the free-cores invariant) and capped.
    #[test]
    fn cores_given_back_twice_are_reported_and_capped() {
        let mut s = with_executors(1, 2, false);
        assert!(s.set_free_cores(id(1), 1));
        assert_eq!(s.release_task_cores(id(1), 1).unwrap().free, 2);
        let twice = s.release_task_cores(id(1), 1).unwrap();
        assert_eq!(twice, ReleasedCores { free: 3, total: 2 });
        assert_eq!(s.executors.get(id(1)).unwrap().free_cores, 2);
    }

    /// CoarseGrainedSchedulerBackendSuite "compute max number of concurrent tasks can be
    /// launched" (4 executors of 3 cores: 12) and "... when spark.task.cpus > 1" (2 cpus: 4).
    #[test]
    fn max_concurrent_tasks_counts_each_executors_slots() {
        let s = with_executors(4, 3, false);
        assert_eq!(s.max_num_concurrent_tasks(1, None), 12);
        assert_eq!(s.max_num_concurrent_tasks(2, None), 4);
    }

    /// CoarseGrainedSchedulerBackendSuite "compute max number of concurrent tasks can be
    /// launched when some executors are busy": busy and free executors' slots both count;
    /// an inactive executor's do not (maxNumConcurrentTasks filters `isExecutorActive`).
    #[test]
    fn max_concurrent_tasks_counts_busy_executors_not_inactive_ones() {
        let mut s = with_executors(4, 3, false);
        s.executors.get_mut(id(1)).unwrap().free_cores = 1;
        s.executors.get_mut(id(2)).unwrap().free_cores = 0;
        assert_eq!(s.max_num_concurrent_tasks(2, None), 4);
        s.disable(id(4));
        assert_eq!(s.max_num_concurrent_tasks(2, None), 3);
    }

    /// `calculateAvailableSlots` with a custom limiting resource (4.0.0 jar): executors of 4
    /// cores and 1 GPU, a GPU a task, give 1 slot each whatever their cores, their busy GPUs
    /// counted; with `cpus` limiting, the same executors give their cores' slots.
    #[test]
    fn max_concurrent_tasks_counts_the_limiting_resource() {
        let mut s = with_executors(3, 4, false);
        for i in 1..=3 {
            let r = executor_resource_info::gpus(&["0"], 1.0);
            s.executors.get_mut(id(i)).unwrap().resources = Some(Rc::new(RefCell::new(r)));
        }
        let busy = s.executors.get(id(1)).unwrap().resources.clone().unwrap();
        assert!(busy.borrow_mut().acquire(TaskId(7)).is_some());
        assert_eq!(s.max_num_concurrent_tasks(1, Some("gpu")), 3);
        assert_eq!(s.max_num_concurrent_tasks(1, None), 12);
        s.executors.get_mut(id(3)).unwrap().resources = None;
        assert_eq!(s.max_num_concurrent_tasks(1, Some("gpu")), 2);
    }
}
