//! Owns the YarnAllocator's bookkeeping as a plain state machine: the executor target, the
//! pending / starting / running counts, the containers executors run in, and the decisions of
//! `updateResourceRequests`, `handleAllocatedContainers` / `runAllocatedContainers`,
//! `killExecutor` and `processCompletedContainers`; mirrors the state of Spark's
//! `org.apache.spark.deploy.yarn.YarnAllocator`. No actor, no clock, no log: each call returns
//! what happened and the actor logs it, sends the messages and starts the executors.

use crate::kernel::small_map::DenseMap;
use crate::spark_core::executor_failure_tracker::ExecutorFailureTracker;
use crate::spark_yarn::locality_preferred_container_placement_strategy::{
    self as strategy, ContainerPlacement, Name, PlacementInputs,
};
use crate::spark_yarn::yarn_allocator_node_health_tracker::{
    AllocationFailure, ExclusionSync, NodeHealthSettings, PendingBlacklist,
    YarnAllocatorNodeHealthTracker,
};
use crate::spark_yarn::yarn_allocator_requests::PendingRequests;
use sparkyard_messages::ids::{ContainerId, ExecutorId};
use sparkyard_messages::records::{Container, ContainerStatus, ExecutorLossReason, exit_status};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A container an executor was launched in, from allocation until YARN reports it completed:
/// Spark's `allocatedContainerToHostMap`, `containerIdToExecutorIdAndResourceProfileId` and the
/// launching / running sets, as one entry.
struct AllocatedContainer {
    host: Rc<str>,
    /// `None` once its launch failed.
    executor: Option<ExecutorId>,
    launching: bool,
    running: bool,
    /// Counted in `allocatedHostToContainersMap` (kept only once locality hints came).
    on_host_map: bool,
}

/// What `updateResourceRequests` decided for the default resource profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestUpdate {
    /// Ask the RM for `missing` more containers.
    Request(NewRequests),
    /// Withdraw `cancel` pending requests to come down to `target`.
    Cancel { cancel: u32, target: u32 },
}

/// The requests `updateResourceRequests` added (and the stale ones it cancelled) when
/// executors were missing, for the lines Spark logs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewRequests {
    pub missing: u32,
    /// Locality requests naming none of the preferred hosts, cancelled: `Canceled N container
    /// request(s) (locality no longer needed)`.
    pub stale_cancelled: u32,
    /// `numToCancel` of `Canceled N unlocalized container requests to resubmit with locality`.
    pub unlocalized_to_cancel: u32,
    /// New requests without a preference (`Submitted N} unlocalized container requests.`).
    pub unlocalized: u32,
    /// New locality requests, consecutive ones with the same nodes together (`Submitted
    /// container request for host h1,h2.` once per request).
    pub localized: Vec<(u32, Rc<[Name]>)>,
}

impl NewRequests {
    fn unlocalized(missing: u32) -> Self {
        NewRequests {
            missing,
            unlocalized: missing,
            ..NewRequests::default()
        }
    }
}

/// The driver's placement hints for the default resource profile
/// (`numLocalityAwareTasksPerResourceProfileId`, `hostToLocalTaskCountPerResourceProfileId`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalityHints {
    pub num_locality_aware_tasks: u32,
    pub host_to_local_task_count: BTreeMap<Name, u32>,
}

/// What to do with one allocated container that matched an outstanding request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchDecision {
    Launch,
    /// `running` executors already reach the `target`: the container stays unused.
    SkipAtTarget {
        running: u32,
        target: u32,
    },
}

/// One matched container with the executor id it was given.
#[derive(Clone, Debug)]
pub struct ContainerLaunch {
    pub container: Container,
    pub executor_id: ExecutorId,
    pub host: Rc<str>,
    pub decision: LaunchDecision,
}

/// `handleAllocatedContainers`' outcome: the unmatched containers went to the releases.
#[derive(Clone, Debug)]
pub struct AllocatedContainers {
    pub received: usize,
    pub launches: Vec<ContainerLaunch>,
}

impl AllocatedContainers {
    /// `containersToUse.size` ("launching executors on N of them"): every matched container,
    /// the ones that then took the "Skip launching executorRunnable" path too.
    pub fn launched(&self) -> usize {
        self.launches.len()
    }
}

/// Spark's table row for a container YARN reports completed that the allocator did not release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerExit {
    /// `exitCausedByApp`: logged as a warning and counted toward task failures.
    pub caused_by_app: bool,
    pub text: String,
    /// A bad-node exit, handed to the node health tracker (counts as an executor failure).
    pub allocation_failure: Option<AllocationFailure>,
}

/// How a completed container ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The allocator had released it: "exited from explicit termination request".
    Released,
    /// It ended by itself (or YARN ended it).
    Exited {
        /// ` on host: <host>` when the host is known, else empty (Spark's `onHostStr`).
        on_host: String,
        /// Whether the container held an executor (else Spark warns "Cannot find executorId").
        executor_known: bool,
        exit: ContainerExit,
    },
}

/// `processCompletedContainers` for one container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletedContainer {
    pub completion: Completion,
    pub reason: ExecutorLossReason,
    /// The executor the container ran, once forgotten here; `None` when there was none.
    pub executor: Option<ExecutorId>,
}

impl CompletedContainer {
    /// Whether the driver must hear of the loss (`RemoveExecutor`): an executor the allocator
    /// did not release itself.
    pub fn lost_executor(&self) -> Option<ExecutorId> {
        match self.completion {
            Completion::Released => None,
            Completion::Exited { .. } => self.executor,
        }
    }
}

/// The YarnAllocator's state for the default resource profile.
pub struct YarnAllocatorState {
    /// `targetNumExecutorsPerResourceProfileId`.
    target: u32,
    /// Container requests not yet allocated (`getPendingAllocate`).
    requests: PendingRequests,
    /// The driver's last placement hints.
    hints: LocalityHints,
    /// `allocatedHostToContainersMap` as counts; `None` until hints with hosts arrive (nothing
    /// is kept per container before).
    host_containers: Option<BTreeMap<Name, u32>>,
    /// The cluster's host -> rack (`SparkRackResolver`) and tasks per executor, for the
    /// placement strategy.
    topology: BTreeMap<Name, Name>,
    tasks_per_executor: u32,
    /// Requests to add / remove at the next allocate call.
    add_requests: u32,
    remove_requests: u32,
    /// Containers to release at the next allocate call.
    releases: Vec<ContainerId>,
    /// `numExecutorsStartingPerResourceProfileId`.
    starting: u32,
    /// Executors whose container is running (`runningExecutorsPerResourceProfileId`).
    running: u32,
    executor_id_counter: u32,
    /// The containers executors were launched in, until YARN reports them completed.
    containers: BTreeMap<ContainerId, AllocatedContainer>,
    /// `executorIdToContainer`, by executor id (ids are handed out in order).
    executor_to_container: DenseMap<ExecutorId, ContainerId>,
    /// One copy of each host name, shared by the containers on it.
    hosts: BTreeSet<Rc<str>>,
    /// `releasedContainers`: released, not yet reported completed.
    released: BTreeSet<ContainerId>,
    failures: ExecutorFailureTracker,
    health: YarnAllocatorNodeHealthTracker,
    /// The exclusion changes the AMRMClient sends with the next allocate call.
    blacklist: PendingBlacklist,
    /// The constructor's sync of `spark.yarn.exclude.nodes`, for the actor to log once.
    startup_exclusions: Option<ExclusionSync>,
    shutdown: bool,
}

/// What `requestTotalExecutorsWithPreferredLocalities` did: whether the target moved, the
/// answer the driver gets (the AM resets its allocation interval on true), and the change it
/// made to the RM's excluded nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TotalRequested {
    pub target_changed: bool,
    pub answer: bool,
    pub exclusion: Option<ExclusionSync>,
}

/// What goes to the RM with one allocate call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestsToSend {
    pub add_requests: u32,
    pub remove_requests: u32,
    pub releases: Vec<ContainerId>,
    /// The node and rack asks that changed, with their counts now.
    pub locality_asks: Vec<sparkyard_messages::resource_manager::LocalityAsk>,
}

impl YarnAllocatorState {
    pub fn new(
        initial_target: u32,
        failures_validity_interval_ms: Option<u64>,
        health: NodeHealthSettings,
    ) -> Self {
        let (health, startup_exclusions) = YarnAllocatorNodeHealthTracker::new(health);
        let mut blacklist = PendingBlacklist::default();
        if let Some(sync) = &startup_exclusions {
            blacklist.update(sync);
        }
        YarnAllocatorState {
            target: initial_target,
            requests: PendingRequests::default(),
            hints: LocalityHints::default(),
            host_containers: None,
            topology: BTreeMap::new(),
            tasks_per_executor: 1,
            add_requests: 0,
            remove_requests: 0,
            releases: Vec::new(),
            starting: 0,
            running: 0,
            executor_id_counter: 0,
            containers: BTreeMap::new(),
            executor_to_container: DenseMap::default(),
            hosts: BTreeSet::new(),
            released: BTreeSet::new(),
            failures: ExecutorFailureTracker::new(failures_validity_interval_ms),
            health,
            blacklist,
            startup_exclusions,
            shutdown: false,
        }
    }

    /// The cluster's racks (host -> rack) and `numTasksPerExecutor`, for the placement
    /// strategy.
    pub fn set_topology<'a>(
        &mut self,
        topology: impl IntoIterator<Item = (&'a str, &'a str)>,
        tasks_per_executor: u32,
    ) {
        self.topology = topology
            .into_iter()
            .map(|(h, r)| (Name::from(h), Name::from(r)))
            .collect();
        self.tasks_per_executor = tasks_per_executor.max(1);
    }

    /// Whether the placement strategy knows the cluster's racks yet.
    pub fn has_topology(&self) -> bool {
        !self.topology.is_empty()
    }

    /// `getNumContainersPendingAllocate`.
    pub fn num_pending(&self) -> u32 {
        self.requests.len()
    }

    /// The pending requests (for tests and the actor's checks).
    #[cfg(test)]
    pub fn pending_requests(&self) -> &PendingRequests {
        &self.requests
    }

    /// `allocatedHostToContainersMap` as counts (empty before any locality hint).
    #[cfg(test)]
    pub fn host_containers(&self) -> BTreeMap<Name, u32> {
        self.host_containers.clone().unwrap_or_default()
    }

    /// `getNumExecutorsRunning`.
    #[cfg(test)]
    pub fn num_running(&self) -> u32 {
        self.running
    }

    /// `getNumExecutorsStarting`.
    #[cfg(test)]
    pub fn num_starting(&self) -> u32 {
        self.starting
    }

    /// `getNumExecutorsFailed`.
    pub fn num_executors_failed(&mut self, now_ms: u64) -> u32 {
        self.failures.num_failed_executors(now_ms)
    }

    /// The hosts the RM was last told to exclude (`isAllNodeExcluded` compares them with the
    /// cluster's node count).
    pub fn num_excluded_nodes(&self) -> u32 {
        self.health.num_excluded_nodes()
    }

    /// The exclusion sync the tracker's constructor made (`spark.yarn.exclude.nodes`), once.
    pub fn take_startup_exclusions(&mut self) -> Option<ExclusionSync> {
        self.startup_exclusions.take()
    }

    /// `setSchedulerExcludedNodes`, from a `RequestExecutors` that changed the target; the
    /// sync, if any, goes with the next allocate call.
    pub fn set_scheduler_excluded_nodes(
        &mut self,
        nodes: BTreeSet<String>,
        now_ms: u64,
    ) -> Option<ExclusionSync> {
        let sync = self.health.set_scheduler_excluded_nodes(nodes, now_ms);
        if let Some(sync) = &sync {
            self.blacklist.update(sync);
        }
        sync
    }

    /// The executor's container is known (not yet reported completed, launch not failed).
    pub fn has_executor(&self, id: ExecutorId) -> bool {
        self.executor_to_container.contains(id)
    }

    /// The constructor's `RetrieveLastAllocatedExecutorId`: new ids continue after it.
    pub fn set_last_executor_id(&mut self, id: u32) {
        self.executor_id_counter = id;
    }

    /// `setShutdown(true)`: later exits are the application's shutdown, not failures.
    pub fn set_shutdown(&mut self) {
        self.shutdown = true;
    }

    /// `requestTotalExecutorsWithPreferredLocalities` for the default profile: whether the
    /// target changed.
    pub fn request_total(&mut self, total: u32) -> bool {
        let changed = total != self.target;
        self.target = total;
        changed
    }

    /// `requestTotalExecutorsWithPreferredLocalities` (YarnAllocator.scala) for the default
    /// profile: no total (an empty map) sets the target to 0 and answers true; a total answers
    /// whether it changed the target. Both true paths, and only they, pass the driver's
    /// excluded nodes to `setSchedulerExcludedNodes`.
    pub fn request_total_executors(
        &mut self,
        total: Option<u32>,
        excluded_nodes: BTreeSet<String>,
        now_ms: u64,
    ) -> TotalRequested {
        let (target_changed, answer) = match total {
            None => (self.request_total(0), true),
            Some(total) => {
                let changed = self.request_total(total);
                (changed, changed)
            }
        };
        let exclusion = if answer {
            self.set_scheduler_excluded_nodes(excluded_nodes, now_ms)
        } else {
            None
        };
        TotalRequested {
            target_changed,
            answer,
            exclusion,
        }
    }

    /// `requestTotalExecutorsWithPreferredLocalities` stores the hints first, whether or not
    /// the target changes. The first hint naming a host starts `allocatedHostToContainersMap`
    /// from the containers already launched.
    pub fn set_locality_hints(&mut self, hints: LocalityHints) {
        if self.host_containers.is_none() && !hints.host_to_local_task_count.is_empty() {
            let mut map = BTreeMap::new();
            for c in self.containers.values_mut() {
                if !c.launching {
                    c.on_host_map = true;
                    *map.entry(c.host.clone()).or_default() += 1;
                }
            }
            self.host_containers = Some(map);
        }
        self.hints = hints;
    }

    /// `updateResourceRequests()`: missing = target - pending - running - starting; ask for the
    /// missing ones (with locality from the placement strategy), or cancel pending requests
    /// above the target.
    pub fn update_resource_requests(&mut self) -> Option<RequestUpdate> {
        let pending = self.requests.len();
        let have = pending + self.running + self.starting;
        let no_locality =
            self.hints.host_to_local_task_count.is_empty() && self.requests.local().is_empty();
        if self.target > have && no_locality {
            // The strategy would place every container without a preference: no per-request work.
            let missing = self.target - have;
            self.requests.add_any(missing);
            self.add_requests += missing;
            Some(RequestUpdate::Request(NewRequests::unlocalized(missing)))
        } else if self.target > have {
            Some(RequestUpdate::Request(
                self.request_with_locality(self.target - have),
            ))
        } else if have > self.target && pending > 0 {
            let cancel = pending.min(have - self.target);
            self.cancel_pending(cancel);
            Some(RequestUpdate::Cancel {
                cancel,
                target: self.target,
            })
        } else {
            None
        }
    }

    /// The `missing > 0` branch with locality: stale requests cancelled, the strategy's
    /// placement over the new, the cancelled and the any-host requests, any-host requests
    /// added for what locality does not use or cancelled to make room for it.
    fn request_with_locality(&mut self, missing: u32) -> NewRequests {
        let (matched, stale) = self.requests.split(&self.hints.host_to_local_task_count);
        let matched_nodes: Vec<Rc<[Name]>> = matched
            .iter()
            .map(|&i| self.requests.local()[i].nodes.clone())
            .collect();
        self.requests.remove_local(&stale);
        let cancelled = stale.len() as u32;
        self.remove_requests += cancelled;
        let available = missing + cancelled;
        let potential = available + self.requests.num_any();
        let placement = self.placement(potential, &matched_nodes);
        let new_local = placement.num_located();
        let mut out = NewRequests {
            missing,
            stale_cancelled: cancelled,
            ..NewRequests::default()
        };
        if available >= new_local {
            out.unlocalized = available - new_local;
        } else {
            out.unlocalized_to_cancel = new_local - available;
            let removed = self.requests.remove_any(out.unlocalized_to_cancel);
            self.remove_requests += removed;
        }
        for g in &placement.located {
            for _ in 0..g.count {
                self.requests.add_local(g.nodes.clone(), g.racks.clone());
            }
            out.localized.push((g.count, g.nodes.clone()));
        }
        self.requests.add_any(out.unlocalized);
        self.add_requests += new_local + out.unlocalized;
        out
    }

    /// `containerPlacementStrategy.localityOfRequestedContainers` with this allocator's hints,
    /// containers and racks.
    fn placement(&self, containers: u32, matched: &[Rc<[Name]>]) -> ContainerPlacement {
        let empty = BTreeMap::new();
        let inputs = PlacementInputs {
            num_locality_aware_tasks: self.hints.num_locality_aware_tasks,
            host_to_local_task_count: &self.hints.host_to_local_task_count,
            allocated_host_to_containers: self.host_containers.as_ref().unwrap_or(&empty),
            locality_matched_pending: matched,
            tasks_per_executor: self.tasks_per_executor,
        };
        strategy::locality_of_requested_containers(containers, &inputs, |h| {
            self.topology.get(h).cloned()
        })
    }

    /// The `missing < 0` branch: `(staleRequests ++ anyHostRequests ++ localRequests)
    /// .take(numToCancel)`.
    fn cancel_pending(&mut self, cancel: u32) {
        let (matched, stale) = if self.requests.local().is_empty() {
            (Vec::new(), Vec::new())
        } else {
            self.requests.split(&self.hints.host_to_local_task_count)
        };
        let mut left = cancel as usize;
        let stale_cut: Vec<usize> = stale.into_iter().take(left).collect();
        left -= stale_cut.len();
        left -= self.requests.remove_any(left as u32) as usize;
        let matched_cut: Vec<usize> = matched.into_iter().take(left).collect();
        let mut cut: Vec<usize> = stale_cut.into_iter().chain(matched_cut).collect();
        cut.sort_unstable();
        self.requests.remove_local(&cut);
        self.remove_requests += cancel;
    }

    /// The requests and releases gathered since the last allocate call.
    pub fn take_requests(&mut self) -> RequestsToSend {
        RequestsToSend {
            add_requests: std::mem::take(&mut self.add_requests),
            remove_requests: std::mem::take(&mut self.remove_requests),
            releases: std::mem::take(&mut self.releases),
            locality_asks: self.requests.take_asks(),
        }
    }

    /// The exclusion changes gathered since the last allocate call (`updateBlacklist`).
    pub fn take_blacklist(&mut self) -> ExclusionSync {
        self.blacklist.take()
    }

    /// `handleAllocatedContainers`: each container takes an outstanding request or is released;
    /// the matched ones get executor ids (`runAllocatedContainers`).
    pub fn handle_allocated_containers(
        &mut self,
        containers: Vec<Container>,
    ) -> AllocatedContainers {
        let received = containers.len();
        let matched = if self.requests.local().is_empty() {
            self.match_any_host(containers)
        } else {
            self.match_by_locality(containers)
        };
        let launches = matched
            .into_iter()
            .map(|c| self.run_allocated_container(c))
            .collect();
        AllocatedContainers { received, launches }
    }

    /// `matchContainerToRequest(container, ANY_HOST, ...)` for each container in turn; the
    /// ones left over are released.
    fn match_any_host(&mut self, containers: Vec<Container>) -> Vec<Container> {
        let mut matched = Vec::with_capacity(containers.len());
        for c in containers {
            if self.requests.match_any() {
                matched.push(c);
            } else {
                self.release(c.id);
            }
        }
        matched
    }

    /// `handleAllocatedContainers`' three passes: by host, by rack (`resolver.resolve(host)`),
    /// then `*`; the containers to use in the order they matched.
    fn match_by_locality(&mut self, containers: Vec<Container>) -> Vec<Container> {
        let mut matched = Vec::with_capacity(containers.len());
        let mut by_rack = Vec::new();
        for c in containers {
            if self.requests.match_node(&c.node_id.host) {
                matched.push(c);
            } else {
                by_rack.push(c);
            }
        }
        let mut rest = Vec::new();
        for c in by_rack {
            let rack = self
                .topology
                .get(c.node_id.host.as_str())
                .map_or(c.rack.as_str(), |r| &**r)
                .to_string();
            if self.requests.match_rack(&rack) {
                matched.push(c);
            } else {
                rest.push(c);
            }
        }
        matched.extend(self.match_any_host(rest));
        matched
    }

    /// `runAllocatedContainers` for one container: a new executor id; launched while the
    /// running executors are under the target.
    fn run_allocated_container(&mut self, container: Container) -> ContainerLaunch {
        self.executor_id_counter += 1;
        let executor_id = ExecutorId(self.executor_id_counter);
        let host = self.intern_host(&container.node_id.host);
        let decision = if self.running >= self.target {
            LaunchDecision::SkipAtTarget {
                running: self.running,
                target: self.target,
            }
        } else {
            self.starting += 1;
            let allocated = AllocatedContainer {
                host: host.clone(),
                executor: Some(executor_id),
                launching: true,
                running: false,
                on_host_map: false,
            };
            self.containers.insert(container.id, allocated);
            self.executor_to_container.insert(executor_id, container.id);
            LaunchDecision::Launch
        };
        ContainerLaunch {
            container,
            executor_id,
            host,
            decision,
        }
    }

    /// `updateInternalState` after the ExecutorRunnable started the container: the executor
    /// runs, unless YARN reported the container completed meanwhile (SPARK-43510).
    pub fn executor_launched(&mut self, container_id: ContainerId) {
        self.starting = self.starting.saturating_sub(1);
        if let Some(c) = self.containers.get_mut(&container_id)
            && c.launching
        {
            c.launching = false;
            if let Some(map) = self.host_containers.as_mut() {
                c.on_host_map = true;
                *map.entry(c.host.clone()).or_default() += 1;
            }
            self.set_running(&container_id, true);
        }
    }

    /// The ExecutorRunnable failed to start the container: it is released.
    pub fn executor_launch_failed(&mut self, executor_id: ExecutorId, container_id: ContainerId) {
        // runAllocatedContainers' catch: the starting count drops, the container leaves
        // `launchingExecutorContainerIds`, and `amClient.releaseAssignedContainer` releases it
        // without `internalReleaseContainer`: it is not in `releasedContainers`, and
        // `updateInternalState` never ran, so its completion finds no host and no executor
        // ("Cannot find executorId for container", exit status -100).
        self.starting = self.starting.saturating_sub(1);
        self.containers.remove(&container_id);
        self.executor_to_container.remove(executor_id);
        self.releases.push(container_id);
    }

    /// `killExecutor`: releases the executor's container; `false` for an unknown executor or
    /// one already released (Spark: `case Some(container) if !releasedContainers.contains`).
    pub fn kill_executor(&mut self, id: ExecutorId) -> bool {
        let Some(cid) = self.executor_to_container.get(id).copied() else {
            return false;
        };
        if self.released.contains(&cid) {
            return false;
        }
        self.set_running(&cid, false);
        self.release(cid);
        true
    }

    /// `processCompletedContainers` for one container: Spark's classification of its exit,
    /// and the executor forgotten.
    pub fn process_completed(
        &mut self,
        status: &ContainerStatus,
        now_ms: u64,
    ) -> CompletedContainer {
        let cid = status.container_id;
        if let Some(c) = self.containers.get_mut(&cid) {
            c.launching = false;
        }
        let completion = if self.released.remove(&cid) {
            Completion::Released
        } else {
            self.exited(status, now_ms)
        };
        let reason = loss_reason(status, &completion);
        // A released container leaves `running` as it was (the kill already took it out).
        let removed = self.containers.remove(&cid);
        if let Some(c) = &removed
            && c.on_host_map
        {
            self.forget_on_host(&c.host);
        }
        let executor = removed.and_then(|c| c.executor);
        if let Some(eid) = executor {
            self.executor_to_container.remove(eid);
        }
        CompletedContainer {
            completion,
            reason,
            executor,
        }
    }

    /// A container the allocator did not release: its executor stops running, its exit is
    /// classified.
    fn exited(&mut self, status: &ContainerStatus, now_ms: u64) -> Completion {
        let cid = status.container_id;
        let executor_known = self
            .containers
            .get(&cid)
            .is_some_and(|c| c.executor.is_some());
        if executor_known {
            self.set_running(&cid, false);
        }
        let host = self.containers.get(&cid).map(|c| c.host.clone());
        let on_host = host
            .as_ref()
            .map(|h| format!(" on host: {h}"))
            .unwrap_or_default();
        let mut exit = classify_exit(status, &on_host, self.shutdown);
        if exit.allocation_failure.is_some() {
            let failure = self.health.handle_resource_allocation_failure(
                host.as_deref(),
                &mut self.failures,
                now_ms,
            );
            if let AllocationFailure::HostExcluded {
                sync: Some(sync), ..
            } = &failure
            {
                self.blacklist.update(sync);
            }
            exit.allocation_failure = Some(failure);
        }
        Completion::Exited {
            on_host,
            executor_known,
            exit,
        }
    }

    /// `allocatedHostToContainersMap(host).remove(containerId)`, the host dropped when empty.
    fn forget_on_host(&mut self, host: &Name) {
        let Some(map) = self.host_containers.as_mut() else {
            return;
        };
        if let Some(n) = map.get_mut(host) {
            *n -= 1;
            if *n == 0 {
                map.remove(host);
            }
        }
    }

    fn release(&mut self, cid: ContainerId) {
        self.released.insert(cid);
        self.releases.push(cid);
    }

    /// Adds the container's executor to the running ones or takes it out (a set: twice is once).
    fn set_running(&mut self, cid: &ContainerId, running: bool) {
        let Some(c) = self.containers.get_mut(cid) else {
            return;
        };
        if c.running != running {
            c.running = running;
            if running {
                self.running += 1;
            } else {
                self.running -= 1;
            }
        }
    }

    fn intern_host(&mut self, host: &str) -> Rc<str> {
        if let Some(h) = self.hosts.get(host) {
            return h.clone();
        }
        let h: Rc<str> = Rc::from(host);
        self.hosts.insert(h.clone());
        h
    }
}

/// The `ExecutorExited` reason the driver (or a pending loss-reason ask) is given.
fn loss_reason(status: &ContainerStatus, completion: &Completion) -> ExecutorLossReason {
    match completion {
        Completion::Released => ExecutorLossReason::Exited {
            exit_code: status.exit_status,
            exit_caused_by_app: false,
            reason: format!(
                "Container {} exited from explicit termination request.",
                status.container_id
            ),
        },
        Completion::Exited { exit, .. } => ExecutorLossReason::Exited {
            exit_code: status.exit_status,
            exit_caused_by_app: exit.caused_by_app,
            reason: exit.text.clone(),
        },
    }
}

/// The first matching row of Spark's table in `processCompletedContainers`. A bad-node exit
/// comes back with `allocation_failure` set to a placeholder the caller replaces with what the
/// health tracker did.
pub fn classify_exit(status: &ContainerStatus, on_host: &str, shutdown: bool) -> ContainerExit {
    let cid = status.container_id;
    let code = status.exit_status;
    let row = |caused_by_app: bool, text: String| ContainerExit {
        caused_by_app,
        text,
        allocation_failure: None,
    };
    if shutdown {
        return row(
            false,
            format!("Executor for container {cid} exited after Application shutdown."),
        );
    }
    match code {
        exit_status::SUCCESS => row(
            false,
            format!(
                "Executor for container {cid} exited because of a YARN event (e.g., preemption) and not because of an error in the running job."
            ),
        ),
        exit_status::PREEMPTED => row(false, format!("Container {cid}{on_host} was preempted.")),
        exit_status::KILLED_EXCEEDED_VMEM => row(
            true,
            format!(
                "Container killed by YARN for exceeding virtual memory limits. {} Consider boosting spark.executor.memoryOverhead or boosting yarn.nodemanager.vmem-pmem-ratio or disabling yarn.nodemanager.vmem-check-enabled because of YARN-4714.",
                memory_usage(&status.diagnostics, "virtual")
            ),
        ),
        exit_status::KILLED_EXCEEDED_PMEM => row(
            true,
            format!(
                "Container killed by YARN for exceeding physical memory limits. {} Consider boosting spark.executor.memoryOverhead.",
                memory_usage(&status.diagnostics, "physical")
            ),
        ),
        // SPARK-26269: YARN's `NOT_APP_AND_SYSTEM_FAULT_EXIT_STATUS`, not the node's fault.
        exit_status::KILLED_BY_RESOURCEMANAGER
        | exit_status::KILLED_BY_APPMASTER
        | exit_status::KILLED_AFTER_APP_COMPLETION
        | exit_status::ABORTED
        | exit_status::DISKS_FAILED => row(
            false,
            format!(
                "Container marked as failed: {cid}{on_host}. Exit status: {code}. Possible causes: {} Diagnostics: {}.",
                explain_exit_code(code),
                status.diagnostics
            ),
        ),
        _ => ContainerExit {
            caused_by_app: true,
            text: format!(
                "Container from a bad node: {cid}{on_host}. Exit status: {code}. Possible causes: {} Diagnostics: {}.",
                explain_exit_code(code),
                status.diagnostics
            ),
            allocation_failure: Some(AllocationFailure::Counted),
        },
    }
}

/// The `X GB of Y GB <kind> memory used.` fragment of a NodeManager memory-kill diagnostic.
pub fn memory_usage(diagnostics: &str, kind: &str) -> String {
    let needle = format!(" {kind} memory used");
    let Some(end) = diagnostics.find(&needle) else {
        return String::new();
    };
    let head = &diagnostics[..end];
    // Walk back over "<n> <u>B of <n> <u>B".
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == ' '))
        .map_or(0, |i| i + 1);
    format!(
        "{} {kind} memory used.",
        head[start..].trim_start_matches(|c: char| !c.is_ascii_digit())
    )
}

/// `ExecutorExitCode.explainExitCode`.
pub fn explain_exit_code(code: i32) -> String {
    match code {
        50 => "Uncaught exception".into(),
        51 => "Uncaught exception, and logging the exception failed".into(),
        52 => "OutOfMemoryError".into(),
        53 => "Failed to create local directory (bad spark.local.dir?)".into(),
        54 => "ExternalBlockStore failed to initialize.".into(),
        55 => "ExternalBlockStore failed to create a local temporary directory.".into(),
        56 => "Unable to send heartbeats to driver.".into(),
        57 => "Executor killed by TaskReaper.".into(),
        58 => "Executor killed due to a failure of block manager re-registration.".into(),
        n if n > 128 => format!(
            "Unknown executor exit code ({n}) (died from signal {}?)",
            n - 128
        ),
        n => format!("Unknown executor exit code ({n})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId, NodeId};
    use sparkyard_messages::records::{ContainerState, Resource};

    fn attempt() -> ApplicationAttemptId {
        ApplicationAttemptId {
            application_id: ApplicationId {
                cluster_timestamp: 0,
                id: 0,
            },
            attempt_id: 1,
        }
    }

    fn cid(n: u64) -> ContainerId {
        ContainerId {
            attempt: attempt(),
            epoch: 0,
            id: n,
        }
    }

    /// YarnAllocatorSuite's `createContainer(host)`: container number `n` on `host`.
    fn container(host: &str, n: u64) -> Container {
        Container {
            id: cid(n),
            node_id: NodeId {
                host: host.into(),
                port: 1000,
            },
            node_http_address: format!("{host}:8042"),
            rack: "/rack1".into(),
            resource: Resource {
                memory_mb: 3072,
                vcores: 6,
                gpus: 0,
            },
            priority: 0,
        }
    }

    fn status(n: u64, exit_status: i32, diagnostics: &str) -> ContainerStatus {
        ContainerStatus {
            container_id: cid(n),
            state: ContainerState::Complete,
            exit_status,
            diagnostics: diagnostics.into(),
        }
    }

    /// YarnAllocatorSuite's `createAllocator(maxExecutors)` with no failure window and no
    /// exclusion on failure.
    fn allocator(target: u32) -> YarnAllocatorState {
        YarnAllocatorState::new(target, None, NodeHealthSettings::default())
    }

    /// `handleAllocatedContainers` with `spark.yarn.launchContainers=false`, as the suite runs
    /// it: every launched executor starts at once (`updateInternalState`).
    fn allocate(st: &mut YarnAllocatorState, containers: &[Container]) -> AllocatedContainers {
        let out = st.handle_allocated_containers(containers.to_vec());
        for l in &out.launches {
            if l.decision == LaunchDecision::Launch {
                st.executor_launched(l.container.id);
            }
        }
        out
    }

    /// The executors launched, in order.
    fn executors(out: &AllocatedContainers) -> Vec<ExecutorId> {
        out.launches
            .iter()
            .filter(|l| l.decision == LaunchDecision::Launch)
            .map(|l| l.executor_id)
            .collect()
    }

    /// Ports YarnAllocatorSuite "single container allocated".
    #[test]
    fn single_container_allocated() {
        let mut st = allocator(1);
        assert_eq!(
            st.update_resource_requests(),
            Some(RequestUpdate::Request(NewRequests::unlocalized(1)))
        );
        assert_eq!((st.num_running(), st.num_pending()), (0, 1));
        let out = allocate(&mut st, &[container("host1", 1)]);
        assert_eq!(st.num_running(), 1);
        assert_eq!(&*out.launches[0].host, "host1");
        assert_eq!(executors(&out), vec![ExecutorId(1)]);
        assert_eq!(st.num_pending(), 0);
    }

    /// Ports YarnAllocatorSuite "container should not be created if requested number if met":
    /// the second container matches no request and is released.
    #[test]
    fn container_not_used_once_the_requested_number_is_met() {
        let mut st = allocator(1);
        st.update_resource_requests();
        allocate(&mut st, &[container("host1", 1)]);
        assert_eq!(st.num_running(), 1);
        let out = allocate(&mut st, &[container("host2", 2)]);
        assert_eq!((out.received, out.launched()), (1, 0));
        assert_eq!(st.num_running(), 1);
        assert_eq!(st.take_requests().releases, vec![cid(2)]);
    }

    /// YarnAllocator.handleAllocatedContainers logs `containersToUse.size` as "launching
    /// executors on N of them": a matched container that then takes runAllocatedContainers'
    /// "Skip launching executorRunnable" path counts too.
    #[test]
    fn launching_count_includes_the_skipped_containers() {
        let mut st = allocator(2);
        st.update_resource_requests();
        allocate(&mut st, &[container("host1", 1)]);
        st.request_total(1);
        let out = allocate(&mut st, &[container("host2", 2)]);
        let skipped = out
            .launches
            .iter()
            .filter(|l| matches!(l.decision, LaunchDecision::SkipAtTarget { .. }))
            .count();
        assert_eq!((out.received, out.launched(), skipped), (1, 1, 1));
        assert_eq!(st.num_running(), 1);
    }

    /// runAllocatedContainers' catch (YarnAllocator.scala): a failed launch is released with
    /// `amClient.releaseAssignedContainer`, not `internalReleaseContainer`, so YARN's completion
    /// (ABORTED, -100) goes through processCompletedContainers with no host and no executor
    /// ("Cannot find executorId for container") and is not counted as a failure.
    #[test]
    fn a_failed_launch_is_released_and_completes_as_unknown() {
        let mut st = allocator(1);
        st.update_resource_requests();
        let out = st.handle_allocated_containers(vec![container("host1", 1)]);
        let id = out.launches[0].executor_id;
        assert_eq!(st.num_starting(), 1);
        st.executor_launch_failed(id, cid(1));
        assert_eq!(st.num_starting(), 0);
        assert_eq!(st.take_requests().releases, vec![cid(1)]);
        let done = st.process_completed(
            &status(1, exit_status::ABORTED, "Container released by application"),
            0,
        );
        match done.completion {
            Completion::Exited {
                on_host,
                executor_known,
                exit,
            } => {
                assert_eq!((on_host.as_str(), executor_known), ("", false));
                assert_eq!(exit.allocation_failure, None);
            }
            Completion::Released => panic!("not an internal release"),
        }
        assert_eq!(done.executor, None);
        assert_eq!(st.num_executors_failed(0), 0);
    }

    /// Ports YarnAllocatorSuite "some containers allocated".
    #[test]
    fn some_containers_allocated() {
        let mut st = allocator(4);
        st.update_resource_requests();
        assert_eq!(st.num_pending(), 4);
        let out = allocate(
            &mut st,
            &[
                container("host1", 1),
                container("host1", 2),
                container("host2", 3),
            ],
        );
        assert_eq!(st.num_running(), 3);
        let hosts: Vec<&str> = out.launches.iter().map(|l| &*l.host).collect();
        assert_eq!(hosts, vec!["host1", "host1", "host2"]);
        assert_eq!(st.num_pending(), 1);
    }

    /// Ports YarnAllocatorSuite "receive more containers than requested".
    #[test]
    fn receive_more_containers_than_requested() {
        let mut st = allocator(2);
        st.update_resource_requests();
        let out = allocate(
            &mut st,
            &[
                container("host1", 1),
                container("host2", 2),
                container("host4", 3),
            ],
        );
        assert_eq!(st.num_running(), 2);
        assert_eq!(out.launched(), 2);
        assert_eq!(st.take_requests().releases, vec![cid(3)]);
    }

    /// Ports YarnAllocatorSuite "decrease total requested executors".
    #[test]
    fn decrease_total_requested_executors() {
        let mut st = allocator(4);
        st.update_resource_requests();
        assert_eq!(st.num_pending(), 4);
        assert!(st.request_total(3));
        assert_eq!(
            st.update_resource_requests(),
            Some(RequestUpdate::Cancel {
                cancel: 1,
                target: 3
            })
        );
        assert_eq!(st.num_pending(), 3);
        allocate(&mut st, &[container("host1", 1)]);
        assert_eq!(st.num_running(), 1);
        st.request_total(2);
        st.update_resource_requests();
        assert_eq!(st.num_pending(), 1);
    }

    /// Ports YarnAllocatorSuite "decrease total requested executors to less than currently
    /// running": pending requests go, running executors stay.
    #[test]
    fn decrease_total_below_running() {
        let mut st = allocator(4);
        st.update_resource_requests();
        st.request_total(3);
        st.update_resource_requests();
        assert_eq!(st.num_pending(), 3);
        allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        assert_eq!(st.num_running(), 2);
        st.request_total(1);
        st.update_resource_requests();
        assert_eq!((st.num_pending(), st.num_running()), (0, 2));
    }

    /// Ports YarnAllocatorSuite "kill executors": killed executors' containers complete as
    /// released (not failures), and one request stays pending for the target of 1.
    #[test]
    fn kill_executors() {
        let mut st = allocator(4);
        st.update_resource_requests();
        let out = allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        st.request_total(1);
        for id in executors(&out) {
            assert!(st.kill_executor(id));
        }
        st.update_resource_requests();
        for n in [1, 2] {
            let done = st.process_completed(&status(n, 0, "Finished"), 0);
            assert_eq!(done.completion, Completion::Released);
            assert_eq!(done.lost_executor(), None);
            assert_eq!(
                done.reason.to_string(),
                format!(
                    "Container {} exited from explicit termination request.",
                    cid(n)
                )
            );
        }
        assert_eq!((st.num_running(), st.num_pending()), (0, 1));
        assert_eq!(st.num_executors_failed(0), 0);
    }

    /// Ports YarnAllocatorSuite "kill same executor multiple times".
    #[test]
    fn kill_same_executor_multiple_times() {
        let mut st = allocator(2);
        st.update_resource_requests();
        let out = allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        assert_eq!((st.num_running(), st.num_pending()), (2, 0));
        let victim = executors(&out)[0];
        assert!(st.kill_executor(victim));
        assert_eq!(st.num_running(), 1);
        for _ in 0..3 {
            // Spark logs "Attempted to kill unknown executor" and releases nothing again.
            assert!(!st.kill_executor(victim));
        }
        assert_eq!(st.num_running(), 1);
        assert_eq!(st.take_requests().releases, vec![cid(1)]);
        st.request_total(2);
        st.update_resource_requests();
        assert_eq!(st.num_pending(), 1);
    }

    /// Ports YarnAllocatorSuite "process same completed container multiple times": the second
    /// report finds no executor (Spark warns "Cannot find executorId").
    #[test]
    fn process_same_completed_container_multiple_times() {
        let mut st = allocator(2);
        st.update_resource_requests();
        allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        let first = st.process_completed(&status(1, 0, "Finished"), 0);
        let again = st.process_completed(&status(1, 0, "Finished"), 0);
        st.process_completed(&status(2, 0, "Finished"), 0);
        assert_eq!(st.num_running(), 0);
        assert_eq!(first.lost_executor(), Some(ExecutorId(1)));
        assert_eq!(again.executor, None);
        let Completion::Exited { executor_known, .. } = again.completion else {
            panic!("not released: {:?}", again.completion);
        };
        assert!(!executor_known);
    }

    /// Ports YarnAllocatorSuite "lost executor removed from backend": two failed containers are
    /// two executor failures, two unexpected releases, and two new requests.
    #[test]
    fn lost_executor_removed_from_backend() {
        let mut st = allocator(4);
        st.update_resource_requests();
        allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        st.request_total(2);
        st.update_resource_requests();
        let lost: Vec<Option<ExecutorId>> = [1, 2]
            .iter()
            .map(|n| {
                st.process_completed(&status(*n, -1, "Failed"), 0)
                    .lost_executor()
            })
            .collect();
        st.update_resource_requests();
        assert_eq!(st.num_running(), 0);
        assert_eq!(st.num_pending(), 2);
        assert_eq!(st.num_executors_failed(0), 2);
        assert_eq!(lost, vec![Some(ExecutorId(1)), Some(ExecutorId(2))]);
    }

    fn hosts(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|h| h.to_string()).collect()
    }

    fn sync(additions: &[&str], removals: &[&str]) -> Option<ExclusionSync> {
        Some(ExclusionSync {
            additions: additions.iter().map(|h| h.to_string()).collect(),
            removals: removals.iter().map(|h| h.to_string()).collect(),
        })
    }

    /// Ports YarnAllocatorSuite "excluded nodes reflected in amClient requests": YARN is sent
    /// the changes of the driver's excluded nodes (`updateBlacklist(additions, removals)`),
    /// each with a request that changes the target.
    #[test]
    fn excluded_nodes_reflected_in_am_client_requests() {
        let mut st = allocator(4);
        let first = st.request_total_executors(Some(1), hosts(&["hostA"]), 0);
        assert_eq!(first.exclusion, sync(&["hostA"], &[]));
        let second = st.request_total_executors(Some(2), hosts(&["hostA", "hostB"]), 0);
        assert_eq!(second.exclusion, sync(&["hostB"], &[]));
        let third = st.request_total_executors(Some(3), hosts(&[]), 0);
        assert_eq!(third.exclusion, sync(&[], &["hostA", "hostB"]));
        // No allocate call in between: AMRMClientImpl.updateBlacklist's removals took the
        // additions back, so the next allocate call carries the two removals only.
        assert_eq!(Some(st.take_blacklist()), sync(&[], &["hostA", "hostB"]));
    }

    /// YarnAllocator.requestTotalExecutorsWithPreferredLocalities (Spark 4.0): an unchanged
    /// target answers false and leaves the excluded nodes alone; an empty map sets the target
    /// to 0, answers true and passes them on.
    #[test]
    fn only_a_changed_target_or_an_empty_map_passes_excluded_nodes() {
        let mut st = allocator(2);
        let same = st.request_total_executors(Some(2), hosts(&["hostA"]), 0);
        assert_eq!(
            same,
            TotalRequested {
                target_changed: false,
                answer: false,
                exclusion: None,
            }
        );
        let empty = st.request_total_executors(None, hosts(&["hostA"]), 0);
        assert_eq!(
            empty,
            TotalRequested {
                target_changed: true,
                answer: true,
                exclusion: sync(&["hostA"], &[]),
            }
        );
        assert_eq!(st.update_resource_requests(), None);
        let again = st.request_total_executors(None, hosts(&[]), 0);
        assert_eq!((again.target_changed, again.answer), (false, true));
        assert_eq!(again.exclusion, sync(&[], &["hostA"]));
    }

    /// Ports YarnAllocatorSuite "window based failure executor counting".
    #[test]
    fn window_based_failure_executor_counting() {
        let mut st = YarnAllocatorState::new(4, Some(100_000), NodeHealthSettings::default());
        st.update_resource_requests();
        let hosts = ["host1", "host2", "host3", "host4"];
        let containers: Vec<Container> =
            (1..=4).map(|n| container(hosts[n - 1], n as u64)).collect();
        allocate(&mut st, &containers);
        assert_eq!(st.num_executors_failed(0), 0);
        let fail = |st: &mut YarnAllocatorState, n: u64, now: u64| {
            st.process_completed(&status(n, -1, "Failed"), now);
        };
        fail(&mut st, 1, 100_000);
        assert_eq!(st.num_executors_failed(100_000), 1);
        assert_eq!(st.num_executors_failed(201_000), 0);
        fail(&mut st, 2, 201_000);
        fail(&mut st, 3, 201_000);
        assert_eq!(st.num_executors_failed(201_000), 2);
        fail(&mut st, 4, 251_000);
        assert_eq!(st.num_executors_failed(251_000), 3);
        assert_eq!(st.num_executors_failed(302_000), 1);
        assert_eq!(st.num_executors_failed(352_000), 0);
    }

    /// Ports YarnAllocatorSuite "SPARK-26269: YarnAllocator should have same excludeOnFailure
    /// behaviour with YARN": only INVALID and other exit codes blame (and here exclude) the node.
    #[test]
    fn only_bad_node_exits_exclude_the_node() {
        let health = NodeHealthSettings {
            launch_exclude_on_failure: true,
            max_failures_per_host: 0,
            exclude_timeout_ms: 3_600_000,
            exclude_nodes: Vec::new(),
        };
        let mut st = YarnAllocatorState::new(11, None, health);
        st.update_resource_requests();
        let containers: Vec<Container> =
            (0..11).map(|i| container(&format!("host{i}"), i)).collect();
        let not_the_node = [
            exit_status::SUCCESS,
            exit_status::PREEMPTED,
            exit_status::KILLED_EXCEEDED_VMEM,
            exit_status::KILLED_EXCEEDED_PMEM,
            exit_status::KILLED_BY_RESOURCEMANAGER,
            exit_status::KILLED_BY_APPMASTER,
            exit_status::KILLED_AFTER_APP_COMPLETION,
            exit_status::ABORTED,
            exit_status::DISKS_FAILED,
        ];
        allocate(&mut st, &containers[..9]);
        for (i, code) in not_the_node.iter().enumerate() {
            st.process_completed(&status(i as u64, *code, "diagnostics"), 0);
        }
        assert_eq!(st.take_blacklist(), ExclusionSync::default());
        allocate(&mut st, &containers[9..]);
        let excluded: Vec<Option<AllocationFailure>> = [(9, exit_status::INVALID), (10, 1)]
            .iter()
            .map(|(n, code)| {
                match st
                    .process_completed(&status(*n, *code, "diagnostics"), 0)
                    .completion
                {
                    Completion::Exited { exit, .. } => exit.allocation_failure,
                    Completion::Released => None,
                }
            })
            .collect();
        assert_eq!(
            excluded,
            vec![
                Some(AllocationFailure::HostExcluded {
                    host: "host9".into(),
                    failures_on_host: 1,
                    sync: Some(ExclusionSync {
                        additions: vec!["host9".into()],
                        removals: vec![],
                    }),
                }),
                Some(AllocationFailure::HostExcluded {
                    host: "host10".into(),
                    failures_on_host: 1,
                    sync: Some(ExclusionSync {
                        additions: vec!["host10".into()],
                        removals: vec![],
                    }),
                }),
            ]
        );
        assert_eq!(
            st.take_blacklist(),
            ExclusionSync {
                additions: vec!["host10".into(), "host9".into()],
                removals: vec![],
            }
        );
        assert_eq!(st.num_executors_failed(0), 2);
    }

    /// Ports YarnAllocatorSuite "SPARK-39601 YarnAllocator should not count executor failure
    /// after shutdown".
    #[test]
    fn no_executor_failure_counted_after_shutdown() {
        let mut st = allocator(5);
        st.update_resource_requests();
        assert_eq!(st.num_executors_failed(0), 0);
        allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        st.process_completed(&status(1, -1, "Failed"), 0);
        assert_eq!(st.num_executors_failed(0), 1);
        st.set_shutdown();
        let after = st.process_completed(&status(2, -1, "Failed"), 0);
        assert_eq!(st.num_executors_failed(0), 1);
        assert_eq!(
            after.reason,
            ExecutorLossReason::Exited {
                exit_code: -1,
                exit_caused_by_app: false,
                reason: format!(
                    "Executor for container {} exited after Application shutdown.",
                    cid(2)
                ),
            }
        );
    }

    /// Ports YarnAllocatorSuite "SPARK-43510: Running executors should be none when
    /// YarnAllocator adds running executors after processing completed containers".
    #[test]
    fn a_launch_reported_after_completion_does_not_run() {
        let mut st = allocator(1);
        st.update_resource_requests();
        let out = st.handle_allocated_containers(vec![container("host1", 1)]);
        assert_eq!(out.launched(), 1);
        assert_eq!(st.num_starting(), 1);
        st.process_completed(&status(1, 0, "Finished"), 0);
        st.executor_launched(cid(1));
        assert_eq!((st.num_running(), st.num_starting()), (0, 0));
    }

    /// One row of Spark's `processCompletedContainers` table: an exit status and diagnostics,
    /// and the loss reason the driver is sent.
    struct ExitRow {
        code: i32,
        diagnostics: &'static str,
        caused_by_app: bool,
        text: &'static str,
        counts_as_failure: bool,
    }

    /// Spark's exit-status texts, row by row (YarnAllocator.scala `processCompletedContainers`;
    /// the memory rows' fragments as YarnAllocatorSuite "memory exceeded diagnostic regexes").
    #[test]
    fn completed_container_texts_follow_spark() {
        let mem = "Container [pid=12465,containerID=container_1412887393566_0003_01_000002] is running beyond physical memory limits. Current usage: 2.1 MB of 2 GB physical memory used; 5.8 GB of 4.2 GB virtual memory used. Killing container.";
        let c = "container_0_0000_01_000001";
        let rows = [
            ExitRow {
                code: 0,
                diagnostics: "",
                caused_by_app: false,
                text: "Executor for container container_0_0000_01_000001 exited because of a YARN event (e.g., preemption) and not because of an error in the running job.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -102,
                diagnostics: "",
                caused_by_app: false,
                text: "Container container_0_0000_01_000001 on host: host1 was preempted.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -103,
                diagnostics: mem,
                caused_by_app: true,
                text: "Container killed by YARN for exceeding virtual memory limits. 5.8 GB of 4.2 GB virtual memory used. Consider boosting spark.executor.memoryOverhead or boosting yarn.nodemanager.vmem-pmem-ratio or disabling yarn.nodemanager.vmem-check-enabled because of YARN-4714.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -104,
                diagnostics: mem,
                caused_by_app: true,
                text: "Container killed by YARN for exceeding physical memory limits. 2.1 MB of 2 GB physical memory used. Consider boosting spark.executor.memoryOverhead.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -100,
                diagnostics: "aborted",
                caused_by_app: false,
                text: "Container marked as failed: container_0_0000_01_000001 on host: host1. Exit status: -100. Possible causes: Unknown executor exit code (-100) Diagnostics: aborted.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -101,
                diagnostics: "disks",
                caused_by_app: false,
                text: "Container marked as failed: container_0_0000_01_000001 on host: host1. Exit status: -101. Possible causes: Unknown executor exit code (-101) Diagnostics: disks.",
                counts_as_failure: false,
            },
            ExitRow {
                code: -106,
                diagnostics: "killed",
                caused_by_app: false,
                text: "Container marked as failed: container_0_0000_01_000001 on host: host1. Exit status: -106. Possible causes: Unknown executor exit code (-106) Diagnostics: killed.",
                counts_as_failure: false,
            },
            ExitRow {
                code: 143,
                diagnostics: "term",
                caused_by_app: true,
                text: "Container from a bad node: container_0_0000_01_000001 on host: host1. Exit status: 143. Possible causes: Unknown executor exit code (143) (died from signal 15?) Diagnostics: term.",
                counts_as_failure: true,
            },
            ExitRow {
                code: 52,
                diagnostics: "oom",
                caused_by_app: true,
                text: "Container from a bad node: container_0_0000_01_000001 on host: host1. Exit status: 52. Possible causes: OutOfMemoryError Diagnostics: oom.",
                counts_as_failure: true,
            },
        ];
        for row in rows {
            let mut st = allocator(1);
            st.update_resource_requests();
            allocate(&mut st, &[container("host1", 1)]);
            let done = st.process_completed(&status(1, row.code, row.diagnostics), 0);
            assert_eq!(
                done.reason,
                ExecutorLossReason::Exited {
                    exit_code: row.code,
                    exit_caused_by_app: row.caused_by_app,
                    reason: row.text.to_string(),
                },
                "exit {} of {c}",
                row.code
            );
            assert_eq!(
                st.num_executors_failed(0),
                u32::from(row.counts_as_failure),
                "exit {}",
                row.code
            );
        }
    }

    #[test]
    fn explains_exit_codes_like_spark() {
        assert_eq!(explain_exit_code(52), "OutOfMemoryError");
        assert_eq!(
            explain_exit_code(137),
            "Unknown executor exit code (137) (died from signal 9?)"
        );
        assert_eq!(explain_exit_code(-100), "Unknown executor exit code (-100)");
    }

    #[test]
    fn extracts_memory_usage() {
        let d = "Container [pid=1,containerID=c] is running 1B beyond the 'PHYSICAL' memory limit. Current usage: 2.8 GB of 2.5 GB physical memory used; 4.8 GB of 5.3 GB virtual memory used. Killing container.";
        assert_eq!(
            memory_usage(d, "physical"),
            "2.8 GB of 2.5 GB physical memory used."
        );
        assert_eq!(
            memory_usage(d, "virtual"),
            "4.8 GB of 5.3 GB virtual memory used."
        );
        assert_eq!(memory_usage("nothing", "virtual"), "");
    }

    // ---- locality (YarnAllocator.scala updateResourceRequests / handleAllocatedContainers) ----

    /// An allocator whose executors take 4 tasks (ContainerPlacementStrategySuite's) on two
    /// racks: host1, host2 on /rack1; host3, host4 on /rack2.
    fn located_allocator(target: u32) -> YarnAllocatorState {
        let mut st = allocator(target);
        let racks = [
            ("host1", "/rack1"),
            ("host2", "/rack1"),
            ("host3", "/rack2"),
            ("host4", "/rack2"),
        ];
        st.set_topology(racks, 4);
        st
    }

    fn hints(tasks: u32, hosts: &[(&str, u32)]) -> LocalityHints {
        LocalityHints {
            num_locality_aware_tasks: tasks,
            host_to_local_task_count: hosts.iter().map(|(h, n)| (Name::from(*h), *n)).collect(),
        }
    }

    fn request(update: Option<RequestUpdate>) -> NewRequests {
        match update {
            Some(RequestUpdate::Request(new)) => new,
            other => panic!("not a request: {other:?}"),
        }
    }

    fn node_lists(p: &PendingRequests) -> Vec<Vec<String>> {
        p.local()
            .iter()
            .map(|r| r.nodes.iter().map(|h| h.to_string()).collect())
            .collect()
    }

    // ContainerPlacementStrategySuite "allocate locality preferred containers with enough
    // resource and partially matched containers", through updateResourceRequests: host1
    // holds two executors and host2 one, so of 15 tasks' 4 executors host2 and host3 still
    // need one each; both new requests name them, and the RM is sent each name's count.
    #[test]
    fn new_requests_follow_the_strategy_and_the_allocated_hosts() {
        let mut st = located_allocator(3);
        st.update_resource_requests();
        let c = [
            container("host1", 1),
            container("host1", 2),
            container("host2", 3),
        ];
        st.set_locality_hints(hints(15, &[("host1", 15), ("host2", 15), ("host3", 10)]));
        allocate(&mut st, &c);
        assert_eq!(st.host_containers().len(), 2);
        st.take_requests();
        st.request_total(5);
        let new = request(st.update_resource_requests());
        assert_eq!(new.missing, 2);
        assert_eq!((new.unlocalized, new.localized.len()), (0, 1));
        assert_eq!(
            node_lists(st.pending_requests()),
            vec![vec!["host2", "host3"]; 2]
        );
        let sent = st.take_requests();
        assert_eq!(sent.add_requests, 2);
        let names: Vec<String> = sent
            .locality_asks
            .iter()
            .map(|a| format!("{:?}={}", a.resource_name, a.num_containers))
            .collect();
        assert_eq!(
            names,
            vec![
                "Node(\"host2\")=2",
                "Node(\"host3\")=2",
                "Rack(\"/rack1\")=2",
                "Rack(\"/rack2\")=2"
            ]
        );
    }

    // YarnAllocator.updateResourceRequests: pending requests naming none of the hosts the
    // tasks now prefer are stale and cancelled ("Canceled N container request(s) (locality no
    // longer needed)"), and their places go to the new placement.
    #[test]
    fn stale_locality_requests_are_cancelled() {
        let mut st = located_allocator(0);
        st.set_locality_hints(hints(8, &[("host1", 8)]));
        st.request_total(2);
        let first = request(st.update_resource_requests());
        assert_eq!((first.unlocalized, first.localized.len()), (0, 1));
        assert_eq!(node_lists(st.pending_requests()), vec![vec!["host1"]; 2]);
        st.take_requests();
        st.set_locality_hints(hints(8, &[("host4", 8)]));
        st.request_total(3);
        let next = request(st.update_resource_requests());
        assert_eq!(next.stale_cancelled, 2);
        assert_eq!(next.missing, 1);
        assert_eq!(node_lists(st.pending_requests()), vec![vec!["host4"]; 2]);
        assert_eq!(next.unlocalized, 1);
        let sent = st.take_requests();
        assert_eq!((sent.add_requests, sent.remove_requests), (3, 2));
        assert!(sent.locality_asks.iter().any(|a| a.num_containers == 0));
    }

    // YarnAllocator.updateResourceRequests: when locality needs more requests than are
    // missing, requests without a preference are cancelled to be resubmitted with locality
    // ("Canceled N unlocalized container requests to resubmit with locality").
    #[test]
    fn unlocalized_requests_make_room_for_locality() {
        let mut st = located_allocator(2);
        st.update_resource_requests();
        assert_eq!(st.pending_requests().num_any(), 2);
        st.set_locality_hints(hints(12, &[("host2", 12)]));
        st.request_total(3);
        let new = request(st.update_resource_requests());
        assert_eq!(new.missing, 1);
        assert_eq!(new.unlocalized_to_cancel, 2);
        assert_eq!(new.unlocalized, 0);
        assert_eq!(st.pending_requests().num_any(), 0);
        assert_eq!(node_lists(st.pending_requests()), vec![vec!["host2"]; 3]);
        assert_eq!(st.num_pending(), 3);
    }

    // YarnAllocator.handleAllocatedContainers: a container matches a request naming its host
    // first, then one naming its rack, then any request ("*", the oldest); matched requests
    // are removed, the rest released.
    #[test]
    fn containers_match_by_host_then_rack_then_any() {
        let mut st = located_allocator(0);
        st.set_locality_hints(hints(8, &[("host1", 4), ("host3", 4)]));
        st.request_total(2);
        st.update_resource_requests();
        assert_eq!(
            node_lists(st.pending_requests()),
            vec![vec!["host1", "host3"]; 2]
        );
        let out = allocate(
            &mut st,
            &[
                container("host4", 1),
                container("host3", 2),
                container("host2", 3),
            ],
        );
        let hosts: Vec<&str> = out.launches.iter().map(|l| &*l.host).collect();
        assert_eq!(hosts, vec!["host3", "host4"]);
        assert_eq!(st.num_pending(), 0);
        assert_eq!(st.take_requests().releases, vec![cid(3)]);
        assert_eq!(
            st.host_containers().into_iter().collect::<Vec<_>>(),
            vec![(Name::from("host3"), 1), (Name::from("host4"), 1)]
        );
    }

    // YarnAllocator.updateResourceRequests' missing < 0 branch: `(staleRequests ++
    // anyHostRequests ++ localRequests).take(numToCancel)`.
    #[test]
    fn cancelling_takes_stale_then_any_then_local() {
        let mut st = located_allocator(0);
        st.set_locality_hints(hints(4, &[("host1", 4)]));
        st.request_total(1);
        st.update_resource_requests();
        st.set_locality_hints(hints(4, &[("host2", 4)]));
        st.request_total(2);
        st.update_resource_requests();
        assert_eq!(node_lists(st.pending_requests()), vec![vec!["host2"]]);
        assert_eq!(st.pending_requests().num_any(), 1);
        st.set_locality_hints(hints(0, &[]));
        st.request_total(1);
        assert_eq!(
            st.update_resource_requests(),
            Some(RequestUpdate::Cancel {
                cancel: 1,
                target: 1
            })
        );
        // host2's request is stale now that no task prefers it: it goes first.
        assert!(st.pending_requests().local().is_empty());
        assert_eq!(st.pending_requests().num_any(), 1);
    }

    // Without hints nothing is kept per container: no host map, no locality request, the
    // requests are one run.
    #[test]
    fn no_hints_no_locality_bookkeeping() {
        let mut st = allocator(3);
        st.update_resource_requests();
        allocate(&mut st, &[container("host1", 1), container("host2", 2)]);
        assert!(st.host_containers.is_none());
        assert!(st.pending_requests().local().is_empty());
        assert!(st.take_requests().locality_asks.is_empty());
    }
}
