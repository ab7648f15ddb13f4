//! The backend as an allocation client: the ExecutorAllocationManager it runs, and its kills and
//! decommissions, for dynamic allocation, the HealthTracker and the endpoint's own messages
//! (Spark's `ExecutorAllocationClient` as `CoarseGrainedSchedulerBackend` implements it:
//! `requestTotalExecutors`, `killExecutors`, `decommissionExecutors`, `killExecutorsOnHost`).

use super::{BACKEND, DriverEndpoint, Offerable, yarn_scheduler};
use crate::kernel::clock;
use crate::rpc::{EndpointRef, RpcEnv};
use crate::spark_core::coarse_grained_backend::{
    self as backend_rules, DecommissionOutcome, HostDecommission, HostRequest,
};
use crate::spark_core::driver_endpoint_state::{DecommissionInfo, DriverEndpointState};
use crate::spark_core::executor_allocation_manager::{
    self as eam, AllocationListener, ExecutorAllocationClient, ExecutorAllocationManager,
};
use crate::spark_core::executor_monitor::ShuffleDataQuery;
use crate::spark_core::resource_profile;
use crate::spark_core::scheduler::DriverScheduler;
use crate::spark_core::scheduler::allocation_client::{AllocationClient, ExecutorDecommission};
use crate::world::context::SimContext;
use crate::world::invariants::{self, name as inv};
use crate::{info, warn};
use actix::{AsyncContext, Context};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::rpc::EndpointId;
use sparkyard_messages::yarn_scheduler::YarnSchedulerMsg;
use std::rc::Rc;

/// The ExecutorAllocationManager for this SparkContext when dynamic allocation is on and its
/// settings are valid (the Driver fails the application on invalid ones before this runs).
pub(super) fn allocation_manager(sim: &SimContext, env: &RpcEnv) -> Option<Rc<AllocationListener>> {
    let s = &sim.config.spark;
    let d = s.dynamic_allocation?;
    eam::validate_settings(&d, s.executor_cores, s.task_cpus).ok()?;
    let initial = s.initial_target_executors();
    let m = ExecutorAllocationManager::new(
        d,
        initial,
        s.executor_cores,
        s.task_cpus,
        env.log().clone(),
    )
    .with_tasks_per_executor(profile_max_tasks_per_executor(sim));
    Some(Rc::new(AllocationListener::new(m)))
}

/// `ResourceProfile.maxTasksPerExecutor` of the default profile: its limiting resource's tasks
/// (cores over `spark.task.cpus`, or fewer when a GPU limits them).
fn profile_max_tasks_per_executor(sim: &SimContext) -> u32 {
    let s = &sim.config.spark;
    resource_profile::default_max_tasks_per_executor(s.executor_cores, s.task_cpus, &s.properties)
}

/// The scheduler's map outputs answer "does this executor hold shuffle data".
impl ShuffleDataQuery for DriverScheduler {
    fn holds_shuffle_data(&self, executor: ExecutorId) -> bool {
        self.holds_map_output(executor)
    }
}

impl DriverEndpoint {
    /// One `schedule()` of the allocation manager, then the target's bounds invariant.
    pub(super) fn schedule_allocation(&mut self) {
        if self.shared.borrow().stopping {
            return;
        }
        let Some(m) = self.allocation.clone() else {
            return;
        };
        let mut m = m.manager();
        m.schedule(clock::now_ms(), self);
        let (min, max) = m.bounds();
        let check = invariants::allocation_target(m.target(), min, max);
        self.sim
            .violations
            .check(inv::ALLOCATION_TARGET_BOUNDED, check);
    }

    /// `decommissionExecutors`' cleanup task (`cleanup-decommission-execs`): after
    /// `spark.executor.decommission.forceKillTimeout`, the executors still decommissioning
    /// are killed (force, not counted as failures).
    pub(super) fn schedule_force_kills(&mut self, ctx: &mut Context<Self>) {
        let Some(timeout_s) = self.force_kill_timeout_s else {
            return;
        };
        for ids in std::mem::take(&mut self.force_kills_due) {
            ctx.run_later(clock::ms(timeout_s.saturating_mul(1000)), move |act, _| {
                act.force_kill_stragglers(&ids, timeout_s)
            });
        }
    }

    fn force_kill_stragglers(&mut self, ids: &[ExecutorId], timeout_s: u64) {
        let stopping = self.shared.borrow().stopping;
        let Some(kill) = backend_rules::force_kill_stragglers(&self.core, ids, timeout_s, stopping)
        else {
            return;
        };
        info!(self.env.log(), BACKEND, "{}", kill.line());
        self.kill_executors_with(&kill.stragglers, true);
    }

    /// The endpoint's parts other than its scheduler, and the scheduler beside them: what the
    /// scheduler's calls are given as the HealthTracker's `allocationClient`.
    pub(super) fn split(&mut self) -> (&mut DriverScheduler, Backend<'_>) {
        let backend = Backend {
            sim: &self.sim,
            env: &self.env,
            me: self.me,
            core: &mut self.core,
            offerable: &mut self.offerable,
            force_kill_timeout_s: self.force_kill_timeout_s,
            force_kills_due: &mut self.force_kills_due,
        };
        (&mut self.scheduler, backend)
    }

    /// `killExecutors(..., force)` (the scheduler's map outputs say which executor holds
    /// shuffle data).
    fn kill_executors_with(&mut self, ids: &[ExecutorId], force: bool) -> Vec<ExecutorId> {
        let (scheduler, mut backend) = self.split();
        backend.kill_executors_with(ids, force, &|id| scheduler.holds_shuffle_data(id))
    }

    /// A kill the scheduler deferred (a call Spark makes later, on another thread):
    /// HealthTracker's `killExecutor` through the backend, as `Backend`'s `AllocationClient`
    /// does at once.
    pub(super) fn kill_excluded_executor(
        &mut self,
        id: ExecutorId,
        decommission: bool,
        message: String,
    ) {
        let (scheduler, mut backend) = self.split();
        if decommission {
            backend.decommission_executor(id, &message, scheduler);
        } else {
            backend.kill_executor(id);
        }
    }

    /// A host's kill the scheduler deferred: `killExecutorsOnHost(host)` /
    /// `decommissionExecutorsOnHost(host)` through the backend.
    pub(super) fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        self.split().1.kill_executors_on_host(host, decommission);
    }

    /// DriverEndpoint.receive's `KillExecutorsOnHost(host)`: the executors alive there,
    /// `killExecutors(execs, adjustTargetNumExecutors = false, countFailures = false, force =
    /// true)` (the target is unchanged).
    pub(super) fn kill_alive_executors_on_host(&mut self, host: &str) {
        let ids = self.core.alive_executors_on(host);
        if !ids.is_empty() {
            self.kill_executors_with(&ids, true);
        }
    }

    /// `DecommissionExecutorsOnHost(host)`: every executor alive on the host is decommissioned
    /// (a walk over the executors: a node decommission is rare).
    pub(super) fn decommission_executors_on_host(&mut self, host: &str) {
        let now = clock::now_ms();
        let Some(HostDecommission { executors, info }) =
            backend_rules::decommission_on_host(&self.core, host, now)
        else {
            return;
        };
        let done = self.decommission(&executors, &info);
        // Not idle candidates any more (the manager marks its own scale-down decommissions).
        if let Some(m) = &self.allocation {
            m.manager().monitor.executors_decommissioned(&done);
        }
    }

    /// `CoarseGrainedSchedulerBackend.decommissionExecutors(..., adjustTargetNumExecutors =
    /// false, triggeredByExecutor = false)`, the scheduler told at once.
    fn decommission(&mut self, ids: &[ExecutorId], info: &DecommissionInfo) -> Vec<ExecutorId> {
        let (scheduler, mut backend) = self.split();
        backend.decommission(ids, info, &mut |id, host| {
            scheduler.executor_decommission(id, host)
        })
    }
}

/// CoarseGrainedSchedulerBackend's kills and decommissions over the DriverEndpoint's parts
/// other than its scheduler (`DriverEndpoint::split`), so the scheduler can call them while it
/// runs: the HealthTracker's `allocationClient` (HealthTracker.scala's `killExecutor` and
/// `killExecutorsOnExcludedNode` call the backend synchronously), besides dynamic allocation's
/// and the endpoint's own kills.
pub(super) struct Backend<'a> {
    sim: &'a SimContext,
    env: &'a RpcEnv,
    me: EndpointId,
    core: &'a mut DriverEndpointState<EndpointRef<ExecutorMsg>>,
    offerable: &'a mut Offerable,
    force_kill_timeout_s: Option<u64>,
    force_kills_due: &'a mut Vec<Vec<ExecutorId>>,
}

impl Backend<'_> {
    /// `killExecutors(..., force)`: with `force` a busy executor is killed too (and it is no
    /// idle kill, so the shuffle-tracking invariant does not apply; `holds` is asked only
    /// without it).
    fn kill_executors_with(
        &mut self,
        ids: &[ExecutorId],
        force: bool,
        holds: &dyn Fn(ExecutorId) -> bool,
    ) -> Vec<ExecutorId> {
        let log = self.env.log().clone();
        let tracking = self
            .sim
            .config
            .spark
            .dynamic_allocation
            .is_some_and(|d| d.shuffle_tracking_enabled && !d.shuffle_service_enabled);
        let outcome = backend_rules::kill_executors(self.core, ids, force, tracking);
        info!(log, BACKEND, "{}", outcome.requesting_line());
        for line in outcome.unknown_lines() {
            warn!(log, BACKEND, "{line}");
        }
        for &id in &outcome.killed {
            self.offerable.update(self.sim, self.core, id);
            let holds = outcome.idle_under_shuffle_tracking && holds(id);
            let check = invariants::idle_kill_without_shuffle_data(id.0, holds);
            self.sim
                .violations
                .check(inv::NO_SHUFFLE_EXECUTOR_KILLED_IDLE, check);
        }
        info!(log, BACKEND, "{}", outcome.actual_line());
        if outcome.asks_cluster_manager()
            && let Some(yarn) = yarn_scheduler(self.env)
        {
            let ids = outcome.killed.clone();
            self.env
                .ask(self.me, &yarn, |a| YarnSchedulerMsg::KillExecutors(a, ids));
        }
        outcome.killed
    }

    /// `CoarseGrainedSchedulerBackend.decommissionExecutors(..., adjustTargetNumExecutors =
    /// false, triggeredByExecutor = false)`: active executors stop taking tasks (`mark`:
    /// `scheduler.executorDecommission`, then a ReviveOffers to this endpoint), their block
    /// managers are marked decommissioning and each is told to decommission itself.
    fn decommission(
        &mut self,
        ids: &[ExecutorId],
        info: &DecommissionInfo,
        mark: &mut dyn FnMut(ExecutorId, Option<&str>),
    ) -> Vec<ExecutorId> {
        let timeout = self.force_kill_timeout_s;
        let Some(outcome) = backend_rules::decommission_executors(self.core, ids, info, timeout)
        else {
            return Vec::new();
        };
        let me = self
            .env
            .local_endpoint_ref::<DriverEndpointMsg>("CoarseGrainedScheduler");
        for &id in &outcome.executors {
            // TaskSchedulerImpl.executorDecommission, which ends with `backend.reviveOffers()`
            // (a ReviveOffers to this endpoint): the task sets' levels changed, so the other
            // executors are offered again.
            mark(id, outcome.worker_host.as_deref());
            self.offerable.update(self.sim, self.core, id);
            if let Some(me) = &me {
                self.env.send(me, DriverEndpointMsg::ReviveOffers);
            }
        }
        let log = self.env.log().clone();
        info!(log, BACKEND, "{}", outcome.decommission_line());
        info!(
            log,
            "driver::BlockManagerMasterEndpoint",
            "{}",
            outcome.mark_block_managers_line()
        );
        if outcome.force_kill_check_due {
            self.force_kills_due.push(outcome.executors.clone());
        }
        for &id in &outcome.executors {
            info!(log, BACKEND, "{}", DecommissionOutcome::notify_line(id));
            if let Some(e) = self.core.executors.get(id) {
                let target = e.executor.clone();
                self.env.send(&target, ExecutorMsg::DecommissionExecutor);
            }
        }
        outcome.executors
    }
}

/// The backend as the HealthTracker's `allocationClient`, called while the scheduler runs.
impl AllocationClient for Backend<'_> {
    /// `killExecutors(Seq(id), adjustTargetNumExecutors = false, countFailures = false, force =
    /// true)` (YARN replaces it: the target is unchanged).
    fn kill_executor(&mut self, id: ExecutorId) {
        self.kill_executors_with(&[id], true, &|_| false);
    }

    /// `decommissionExecutor(id, ExecutorDecommissionInfo(message), adjustTargetNumExecutors =
    /// false)`: the scheduler making the call is told through `ts`, the one it lent.
    fn decommission_executor(
        &mut self,
        id: ExecutorId,
        message: &str,
        ts: &mut dyn ExecutorDecommission,
    ) {
        let info = DecommissionInfo {
            message: message.to_string(),
            worker_host: None,
            start_ms: clock::now_ms(),
        };
        self.decommission(&[id], &info, &mut |id, host| {
            ts.executor_decommission(id, host)
        });
    }

    /// `killExecutorsOnHost(host)` / `decommissionExecutorsOnHost(host)` (the 4.0.0 jar): the
    /// line, then `KillExecutorsOnHost` / `DecommissionExecutorsOnHost` to this endpoint,
    /// which kills or decommissions the host's executors when it handles the message.
    fn kill_executors_on_host(&mut self, host: &str, decommission: bool) {
        let request = HostRequest {
            host: host.to_string(),
            decommission,
        };
        info!(self.env.log(), BACKEND, "{}", request.line());
        if let Some(me) = self
            .env
            .local_endpoint_ref::<DriverEndpointMsg>("CoarseGrainedScheduler")
        {
            self.env.send(&me, request.message());
        }
    }
}

impl ExecutorAllocationClient for DriverEndpoint {
    /// `requestTotalExecutors` -> `doRequestTotalExecutors`: `RequestExecutors` to the
    /// YarnScheduler endpoint (which warns and answers false before the AM registered).
    fn request_total_executors(&mut self, total: u32, hints: &eam::PlacementHints) -> bool {
        // The backend's bookkeeping comes before `doRequestTotalExecutors`, whatever it answers.
        self.request_times
            .request_total(total, clock::now_epoch_ms());
        let Some(yarn) = yarn_scheduler(&self.env) else {
            return false;
        };
        // `scheduler.excludedNodes()` (the HealthTracker's).
        let excluded = self.scheduler.excluded_nodes();
        let req = backend_rules::prepare_request_executors(total, hints, excluded);
        self.env.ask(self.me, &yarn, |a| {
            YarnSchedulerMsg::RequestExecutors(a, req)
        });
        true
    }

    /// `CoarseGrainedSchedulerBackend.killExecutors(ids, adjustTargetNumExecutors = false,
    /// countFailures = false, force = false)`: known, not already pending, not busy.
    fn kill_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        self.kill_executors_with(ids, false)
    }

    /// `decommissionExecutors(ids with ExecutorDecommissionInfo("spark scale down"), ...)`.
    fn decommission_executors(&mut self, ids: &[ExecutorId]) -> Vec<ExecutorId> {
        let info = DecommissionInfo {
            message: "spark scale down".to_string(),
            worker_host: None,
            start_ms: clock::now_ms(),
        };
        self.decommission(ids, &info)
    }
}
