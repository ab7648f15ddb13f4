//! Locality and delay scheduling (Spark: `scheduler/TaskLocality.scala`, `TaskSetManager`'s
//! `PendingTasksByLocality`, `computeValidLocalityLevels`, `getAllowedLocalityLevel`,
//! `dequeueTaskHelper`, and TaskSchedulerImpl's host/rack bookkeeping): where a task would like
//! to run, which executors and hosts are alive (a decommissioning one is not), and how long a task set waits for a better
//! level before it accepts a worse one.

use crate::kernel::bitset::BitSet;
use crate::kernel::small_map::DenseMap;
use crate::world::config::LocalitySettings;
use sparkyard_messages::ids::ExecutorId;
use std::collections::BTreeMap;
use std::rc::Rc;

/// `TaskLocality` (TaskLocality.scala): `PROCESS_LOCAL, NODE_LOCAL, NO_PREF, RACK_LOCAL, ANY`,
/// in this order (a lower level is more local).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TaskLocality {
    ProcessLocal,
    NodeLocal,
    NoPref,
    RackLocal,
    Any,
}

impl TaskLocality {
    /// The name Spark prints (`Starting task ... NODE_LOCAL ...`, TaskInfo's `Locality`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskLocality::ProcessLocal => "PROCESS_LOCAL",
            TaskLocality::NodeLocal => "NODE_LOCAL",
            TaskLocality::NoPref => "NO_PREF",
            TaskLocality::RackLocal => "RACK_LOCAL",
            TaskLocality::Any => "ANY",
        }
    }

    /// `TaskLocality.isAllowed(constraint, condition)`: `condition <= constraint`.
    pub fn is_allowed(constraint: TaskLocality, condition: TaskLocality) -> bool {
        condition <= constraint
    }
}

/// `TaskSetManager.getLocalityWait(level)`: `spark.locality.wait.process|node|rack` (each
/// defaulting to `spark.locality.wait`, 3 s); NO_PREF and ANY wait 0.
pub fn locality_wait(settings: &LocalitySettings, level: TaskLocality) -> u64 {
    match level {
        TaskLocality::ProcessLocal => settings.wait_process_ms,
        TaskLocality::NodeLocal => settings.wait_node_ms,
        TaskLocality::RackLocal => settings.wait_rack_ms,
        TaskLocality::NoPref | TaskLocality::Any => 0,
    }
}

/// `myLocalityLevels` with their waits: at most five levels, kept inline (copied out for the
/// offer loop without an allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalityLevels {
    levels: [TaskLocality; 5],
    waits: [u64; 5],
    len: u8,
}

impl LocalityLevels {
    fn push(&mut self, level: TaskLocality, wait: u64) {
        self.levels[self.len as usize] = level;
        self.waits[self.len as usize] = wait;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[TaskLocality] {
        &self.levels[..self.len as usize]
    }

    pub fn count(&self) -> usize {
        self.len as usize
    }

    pub fn get(&self, i: usize) -> TaskLocality {
        self.levels[i]
    }

    pub fn wait(&self, i: usize) -> u64 {
        self.waits[i]
    }

    /// `getLocalityIndex`: the first level at least as far as `locality`.
    pub fn index_of(&self, locality: TaskLocality) -> usize {
        let mut i = 0;
        while i + 1 < self.count() && locality > self.levels[i] {
            i += 1;
        }
        i
    }
}

/// The hosts and racks the scheduler knows alive (TaskSchedulerImpl's `hostToExecutors`,
/// `hostsByRack`), the rack of every host (`getRackForHost`: the cluster's topology; a host
/// it does not name is on `/default-rack`, as Hadoop's `ScriptBasedMapping` without a script
/// answers), and the executors being decommissioned (`executorsPendingDecommission`), which
/// Spark 4.0 does not count alive as locality targets.
#[derive(Default)]
pub struct Topology {
    rack_of: BTreeMap<String, Rc<str>>,
    default_rack: Option<Rc<str>>,
    executor_host: DenseMap<ExecutorId, Rc<str>>,
    /// The ids `executor_host` holds, one bit each: `resourceOffers` asks at every offer
    /// whether its executor is new, and a thousand executors' host slots (16 KB) are cold
    /// where their bits (125 bytes) stay in cache.
    known: BitSet,
    /// Every executor in the order it was first offered, removed ones too: the order of their
    /// `LaunchedExecutor`s (DriverEndpoint's `makeOffers(executorId)`), each right after its
    /// registration, so the order of the log's `SparkListenerExecutorAdded`s unless two
    /// registrations interleave. A replayed task's recorded draw names its executor by this
    /// place (`TaskWork::Replayed::recorded_executor`).
    arrivals: Vec<ExecutorId>,
    executors_on_host: BTreeMap<Rc<str>, u32>,
    hosts_on_rack: BTreeMap<Rc<str>, u32>,
    /// `executorsPendingDecommission`.
    decommissioning: BTreeMap<ExecutorId, ExecutorDecommissionState>,
    /// Of each host's live executors, how many are decommissioning, and with their host.
    decommissioning_on_host: BTreeMap<Rc<str>, HostDecommissions>,
    /// Of each rack's live hosts, how many are decommissioned (`isHostDecommissioned`).
    decommissioned_hosts_on_rack: BTreeMap<Rc<str>, u32>,
}

/// `ExecutorDecommissionState(startTime, workerHost)` (TaskSchedulerImpl.scala): when the
/// scheduler heard of the decommission (its clock), and the worker's host when the executor
/// goes with its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorDecommissionState {
    pub start_ms: u64,
    pub worker_host: Option<String>,
}

/// A host's decommissioning executors: all of them, and those whose state names a worker host.
#[derive(Clone, Copy, Default)]
struct HostDecommissions {
    executors: u32,
    with_host: u32,
}

/// `NetworkTopology.DEFAULT_RACK`.
pub const DEFAULT_RACK: &str = "/default-rack";

impl Topology {
    /// The racks of the cluster's hosts.
    pub fn new<'a>(hosts: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut racks: BTreeMap<&str, Rc<str>> = BTreeMap::new();
        let mut rack_of = BTreeMap::new();
        for (host, rack) in hosts {
            let r = racks.entry(rack).or_insert_with(|| Rc::from(rack)).clone();
            rack_of.insert(host.to_string(), r);
        }
        Topology {
            rack_of,
            default_rack: Some(Rc::from(DEFAULT_RACK)),
            ..Topology::default()
        }
    }

    /// `getRackForHost`.
    pub fn rack(&self, host: &str) -> Option<&Rc<str>> {
        self.rack_of.get(host).or(self.default_rack.as_ref())
    }

    /// `isExecutorAlive` (Spark 4.0.0): running tasks may be tracked for it and it is not
    /// being decommissioned (`!isExecutorDecommissioned`).
    pub fn is_executor_alive(&self, id: ExecutorId) -> bool {
        self.executor_host.contains(id) && !self.decommissioning.contains_key(&id)
    }

    /// The live executors and their hosts, in executor id order (`hostToExecutors`' content;
    /// a walk, for the rare exclusion checks only).
    pub fn executors(&self) -> impl Iterator<Item = (ExecutorId, &Rc<str>)> {
        self.executor_host.iter()
    }

    /// `hasExecutorsAliveOnHost` (Spark 4.0.0): `hostToExecutors.get(host).exists(_.exists(e
    /// => !isExecutorDecommissioned(e)))`: a host whose executors all decommission is no
    /// NODE_LOCAL target.
    pub fn has_executors_alive_on_host(&self, host: &str) -> bool {
        let live = self.executors_on_host.get(host).copied().unwrap_or(0);
        let leaving = self
            .decommissioning_on_host
            .get(host)
            .map_or(0, |d| d.executors);
        live > leaving
    }

    /// `hasHostAliveOnRack` (Spark 4.0.0): `hostsByRack.get(rack).exists(_.exists(h =>
    /// !isHostDecommissioned(h)))`: a rack whose live hosts are all decommissioned is no
    /// RACK_LOCAL target.
    pub fn has_host_alive_on_rack(&self, rack: &str) -> bool {
        let live = self.hosts_on_rack.get(rack).copied().unwrap_or(0);
        let leaving = self
            .decommissioned_hosts_on_rack
            .get(rack)
            .copied()
            .unwrap_or(0);
        live > leaving
    }

    /// `isHostDecommissioned` (Spark 4.0.0): an executor on the host is decommissioning with
    /// its worker host (`getExecutorDecommissionState(e).exists(_.workerHost.isDefined)`).
    #[cfg(test)]
    pub fn is_host_decommissioned(&self, host: &str) -> bool {
        self.decommissioning_on_host
            .get(host)
            .is_some_and(|d| d.with_host > 0)
    }

    /// `getExecutorDecommissionState` (executorsPendingDecommission; with
    /// `spark.scheduler.maxRetainedRemovedDecommissionExecutors` at its default 0 no removed
    /// executor's state is kept).
    pub fn decommission_state(&self, id: ExecutorId) -> Option<&ExecutorDecommissionState> {
        self.decommissioning.get(&id)
    }

    /// `TaskSchedulerImpl.executorDecommission`'s bookkeeping: only an executor the scheduler
    /// knows (`executorIdToHost.contains`) is noted; a second notice replaces the first.
    /// Returns whether it was noted.
    pub fn executor_decommission(
        &mut self,
        id: ExecutorId,
        state: ExecutorDecommissionState,
    ) -> bool {
        let Some(host) = self.executor_host.get(id).cloned() else {
            return false;
        };
        self.forget_decommission(id);
        let with_host = state.worker_host.is_some();
        self.decommissioning.insert(id, state);
        let d = self
            .decommissioning_on_host
            .entry(host.clone())
            .or_default();
        d.executors += 1;
        if with_host {
            d.with_host += 1;
            if d.with_host == 1
                && let Some(rack) = self.rack(&host).cloned()
            {
                *self.decommissioned_hosts_on_rack.entry(rack).or_insert(0) += 1;
            }
        }
        true
    }

    /// The executor's decommission state goes (it is removed, or a test clears
    /// `executorsPendingDecommission`).
    pub fn forget_decommission(&mut self, id: ExecutorId) {
        let Some(state) = self.decommissioning.remove(&id) else {
            return;
        };
        let Some(host) = self.executor_host.get(id).cloned() else {
            return;
        };
        let Some(d) = self.decommissioning_on_host.get_mut(&host) else {
            return;
        };
        d.executors -= 1;
        let host_went = state.worker_host.is_some() && {
            d.with_host -= 1;
            d.with_host == 0
        };
        if d.executors == 0 {
            self.decommissioning_on_host.remove(&host);
        }
        if host_went
            && let Some(rack) = self.rack(&host).cloned()
            && let Some(n) = self.decommissioned_hosts_on_rack.get_mut(&rack)
        {
            *n -= 1;
            if *n == 0 {
                self.decommissioned_hosts_on_rack.remove(&rack);
            }
        }
    }

    /// `executorsPendingDecommission.clear()` (the suites' reset between attempts).
    #[cfg(test)]
    pub fn clear_decommissions(&mut self) {
        let ids: Vec<ExecutorId> = self.decommissioning.keys().copied().collect();
        for id in ids {
            self.forget_decommission(id);
        }
    }

    /// `resourceOffers`' first part for an executor not seen before; returns whether it is new.
    pub fn executor_added(&mut self, id: ExecutorId, host: &Rc<str>) -> bool {
        if self.known.contains(id.0) {
            return false;
        }
        self.known.insert(id.0);
        self.arrivals.push(id);
        self.executor_host.insert(id, host.clone());
        let n = self.executors_on_host.entry(host.clone()).or_insert(0);
        *n += 1;
        if *n == 1
            && let Some(rack) = self.rack(host).cloned()
        {
            *self.hosts_on_rack.entry(rack).or_insert(0) += 1;
        }
        true
    }

    /// The executor that arrived `place`-th (0: the first), removed or not.
    pub fn arrived(&self, place: u32) -> Option<ExecutorId> {
        self.arrivals.get(place as usize).copied()
    }

    /// `TaskSchedulerImpl.removeExecutor`: the host leaves `hostToExecutors` with its last
    /// executor, and the rack with its last host.
    pub fn executor_removed(&mut self, id: ExecutorId) -> bool {
        self.forget_decommission(id);
        let Some(host) = self.executor_host.remove(id) else {
            return false;
        };
        self.known.remove(id.0);
        let Some(n) = self.executors_on_host.get_mut(&host) else {
            return true;
        };
        *n -= 1;
        if *n > 0 {
            return true;
        }
        self.executors_on_host.remove(&host);
        if let Some(rack) = self.rack(&host).cloned()
            && let Some(h) = self.hosts_on_rack.get_mut(&rack)
        {
            *h -= 1;
            if *h == 0 {
                self.hosts_on_rack.remove(&rack);
            }
        }
        true
    }
}

/// Each task's preferred locations (`Task.preferredLocations`, from
/// `DAGScheduler.getPreferredLocs`): its hosts (`HostTaskLocation`), and for a partition cached
/// on an executor that executor (`ExecutorCacheTaskLocation`, whose host is among `hosts`). Both
/// lists are per task index, or empty when no task has one (a set without preferences holds no
/// per-task list).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreferredLocations {
    pub hosts: Vec<Vec<Rc<str>>>,
    pub executors: Vec<Option<ExecutorId>>,
}

impl PreferredLocations {
    /// Only host preferences (input blocks, shuffle outputs).
    pub fn hosts(hosts: Vec<Vec<Rc<str>>>) -> Self {
        PreferredLocations {
            hosts,
            executors: Vec::new(),
        }
    }

    /// Task `index`'s preferred hosts.
    pub fn hosts_of(&self, index: u32) -> &[Rc<str>] {
        self.hosts
            .get(index as usize)
            .map_or(&[][..], Vec::as_slice)
    }

    /// The executor holding task `index`'s cached partition, if any.
    pub fn executor_of(&self, index: u32) -> Option<ExecutorId> {
        self.executors.get(index as usize).copied().flatten()
    }
}

/// `PendingTasksByLocality`: task indices by the executor, host and rack they prefer, those
/// without a preference, and all of them. Each list is a stack (Spark adds at the end and
/// dequeues from the end), cleaned lazily: an index that is running or done is dropped when met.
#[derive(Default)]
pub struct PendingTasks {
    /// `forExecutor`: tasks over a partition cached on that executor (empty unless a program
    /// caches and a later stage reads the cached blocks).
    pub for_executor: BTreeMap<ExecutorId, Vec<u32>>,
    pub for_host: BTreeMap<Rc<str>, Vec<u32>>,
    pub for_rack: BTreeMap<Rc<str>, Vec<u32>>,
    pub no_prefs: Vec<u32>,
    /// `all`; `None` while no task has a preference: then every task is on `noPrefs` and on
    /// `all` in the same order, so `noPrefs` stands for both (a set without preferences, the
    /// 1 M-task case, keeps one stack instead of two).
    all: Option<Vec<u32>>,
}

impl PendingTasks {
    pub fn clear(&mut self) {
        *self = PendingTasks::default();
    }

    /// `addPendingTask(index)`: on its cached partition's executor's list
    /// (`ExecutorCacheTaskLocation`), on each preferred host's list and its rack's, else on
    /// `noPrefs`; always on `all`.
    pub fn add(
        &mut self,
        index: u32,
        prefs: &[Rc<str>],
        executor: Option<ExecutorId>,
        topology: &Topology,
    ) {
        if let Some(e) = executor {
            self.for_executor.entry(e).or_default().push(index);
        }
        for host in prefs {
            self.for_host.entry(host.clone()).or_default().push(index);
            if let Some(rack) = topology.rack(host) {
                self.for_rack.entry(rack.clone()).or_default().push(index);
            }
        }
        if !prefs.is_empty() && self.all.is_none() {
            self.all = Some(self.no_prefs.clone());
        }
        if prefs.is_empty() {
            self.no_prefs.push(index);
        }
        if let Some(all) = &mut self.all {
            all.push(index);
        }
    }

    /// `pendingTasks.all`.
    pub fn all(&self) -> &Vec<u32> {
        self.all.as_ref().unwrap_or(&self.no_prefs)
    }

    pub fn all_mut(&mut self) -> &mut Vec<u32> {
        match &mut self.all {
            Some(all) => all,
            None => &mut self.no_prefs,
        }
    }

    /// `computeValidLocalityLevels`: PROCESS_LOCAL if an executor holding a task's cached
    /// partition is alive, NODE_LOCAL if a preferred host has a live executor, NO_PREF if a task
    /// has no preference, RACK_LOCAL if a preferred rack has a live host, and always ANY. In
    /// Spark 4.0.0 a decommissioning executor is not alive here, nor a decommissioned host.
    pub fn valid_levels(&self, topology: &Topology, settings: &LocalitySettings) -> LocalityLevels {
        let mut levels = LocalityLevels {
            levels: [TaskLocality::Any; 5],
            waits: [0; 5],
            len: 0,
        };
        let mut add = |l: TaskLocality| levels.push(l, locality_wait(settings, l));
        if self
            .for_executor
            .keys()
            .any(|e| topology.is_executor_alive(*e))
        {
            add(TaskLocality::ProcessLocal);
        }
        if self
            .for_host
            .keys()
            .any(|h| topology.has_executors_alive_on_host(h))
        {
            add(TaskLocality::NodeLocal);
        }
        if !self.no_prefs.is_empty() {
            add(TaskLocality::NoPref);
        }
        if self
            .for_rack
            .keys()
            .any(|r| topology.has_host_alive_on_rack(r))
        {
            add(TaskLocality::RackLocal);
        }
        add(TaskLocality::Any);
        levels
    }
}

/// `moreTasksToRunIn`: whether any list of the map still holds a task to schedule; empty lists
/// are removed on the way (`tasksNeedToBeScheduledFrom` drops what runs or is done).
pub fn more_tasks_to_run_in<K: Ord + Clone>(
    lists: &mut BTreeMap<K, Vec<u32>>,
    schedulable: impl Fn(u32) -> bool,
) -> bool {
    let mut empty: Vec<K> = Vec::new();
    let mut found = false;
    for (key, list) in lists.iter_mut() {
        while let Some(&i) = list.last() {
            if schedulable(i) {
                found = true;
                break;
            }
            list.pop();
        }
        if found {
            break;
        }
        empty.push(key.clone());
    }
    for key in empty {
        lists.remove(&key);
    }
    found
}

/// `dequeueTaskFromList`: from the end, dropping each index met; the first that still needs
/// to run (no copy running, not successful) is the one.
pub fn dequeue_from_list(list: &mut Vec<u32>, schedulable: impl Fn(u32) -> bool) -> Option<u32> {
    while let Some(i) = list.pop() {
        if schedulable(i) {
            return Some(i);
        }
    }
    None
}
