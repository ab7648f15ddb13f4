//! The process table of the simulated network: every process (a container's JVM with its
//! `NettyRpcEnv`, a YARN daemon, spark-submit) with its address, liveness, named endpoints,
//! connected peers and exit watcher. It owns each process's liveness: `mark_dead` is the one
//! place that ends it.

use crate::kernel::bitset::BitSet;
use crate::kernel::logs::ProcessLog;
use crate::kernel::slab::Slab;
use crate::kernel::small_map::SmallSet;
use sparkyard_messages::rpc::{EndpointId, RpcAddress};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One simulated process: a container's JVM, a NodeManager, the RM, the submitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcessId(pub u32);

/// What kind of process it is; Spark processes get disconnect events, YARN daemons do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessKind {
    /// A Spark RpcEnv in server mode (the driver).
    SparkServer,
    /// A Spark RpcEnv in client mode (executors: no listening port).
    SparkClient,
    /// A YARN daemon or the submitting client.
    Yarn,
}

pub(super) struct Process {
    pub(super) name: Rc<str>,
    pub(super) address: RpcAddress,
    /// Named endpoints (a handful per process: a list, not a map).
    pub(super) names: Vec<(Rc<str>, EndpointId)>,
    pub(super) mailboxes: Vec<EndpointId>,
    /// The mailboxes that get `RemoteProcessDisconnected` events, in registration order.
    pub(super) listeners: Vec<EndpointId>,
    peers: SmallSet<ProcessId>,
    on_exit: Option<Box<dyn Fn(i32)>>,
    /// The JVM's SIGTERM handling (SignalUtils' logger, then the shutdown hooks), if the
    /// process installed one; without it SIGTERM ends the process at once (exit 143).
    on_term: Option<Rc<dyn Fn()>>,
    pub(super) log: ProcessLog,
}

/// What every message's routing reads of a process, kept apart from the rest in a dense
/// table (8 bytes a process): the messages of a thousand executors, visited in the order
/// Spark's shuffled offers launched their tasks, then read L1-resident entries instead of a
/// cache line of each executor's `Process`.
#[derive(Clone, Copy)]
struct ProcessHot {
    /// Whether the process runs (also in `live`, for the RpcEnvs); only `mark_dead` changes it.
    up: bool,
    kind: ProcessKind,
    /// A peer this process is known to be connected to (`peers` holds it): the common case,
    /// an executor talking to its driver, then needs no set lookup. `u32::MAX`: none.
    peer_hint: u32,
}

const NO_PEER: u32 = u32::MAX;

impl Process {
    pub(super) fn name_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|(n, _)| &**n == name)
    }
}

/// Which processes run, one bit each, shared by the process table (which clears a bit when its
/// process ends) and every actor's RpcEnv (which reads its own at every message). One small
/// set for all processes, not a cell per process: with a thousand executors taking turns, a
/// per-process cell was a cache miss at every message an executor handled.
#[derive(Clone, Default)]
pub struct LiveProcesses(Rc<RefCell<BitSet>>);

impl LiveProcesses {
    /// Whether `process` runs.
    pub fn contains(&self, process: ProcessId) -> bool {
        self.0.borrow().contains(process.0)
    }
}

/// One process's liveness, as its RpcEnv reads it (`NettyRpcEnv.stopped`'s negation).
#[derive(Clone)]
pub struct AliveFlag {
    live: LiveProcesses,
    process: ProcessId,
}

impl AliveFlag {
    pub fn get(&self) -> bool {
        self.live.contains(self.process)
    }
}

/// What a process leaves behind when it ends, for the Dispatcher to stop and announce.
pub(super) struct Ended {
    pub(super) mailboxes: Vec<EndpointId>,
    pub(super) address: RpcAddress,
    pub(super) on_exit: Option<Box<dyn Fn(i32)>>,
    /// The live peers' disconnect listeners, in peer order.
    pub(super) disconnects: Vec<EndpointId>,
}

/// Every process of the run, by id, name and (for Spark servers) listening address.
#[derive(Default)]
pub(super) struct ProcessTable {
    list: Slab<Process>,
    /// Each process's routing state, by id.
    hot: Vec<ProcessHot>,
    /// Spark server envs by listening address (the newest process at an address wins).
    servers: BTreeMap<RpcAddress, ProcessId>,
    /// Processes by name (the newest process of a name wins).
    by_name: BTreeMap<Rc<str>, ProcessId>,
    /// The `up` bits again, shared with the RpcEnvs (see `LiveProcesses`).
    live: LiveProcesses,
}

impl ProcessTable {
    pub(super) fn add(
        &mut self,
        name: Rc<str>,
        address: RpcAddress,
        kind: ProcessKind,
        log: ProcessLog,
    ) -> ProcessId {
        let id = ProcessId(self.list.len() as u32);
        self.hot.push(ProcessHot {
            up: true,
            kind,
            peer_hint: NO_PEER,
        });
        if kind == ProcessKind::SparkServer {
            self.servers.insert(address.clone(), id);
        }
        self.by_name.insert(name.clone(), id);
        self.live.0.borrow_mut().insert(id.0);
        self.list.push(Process {
            name,
            address,
            names: Vec::new(),
            mailboxes: Vec::new(),
            listeners: Vec::new(),
            peers: SmallSet::default(),
            on_exit: None,
            on_term: None,
            log,
        });
        id
    }

    /// `process`'s liveness, for its RpcEnv.
    pub(super) fn alive_flag(&self, process: ProcessId) -> AliveFlag {
        AliveFlag {
            live: self.live.clone(),
            process,
        }
    }

    /// The newest process with this name.
    pub(super) fn named(&self, name: &str) -> Option<ProcessId> {
        self.by_name.get(name).copied()
    }

    /// The live Spark server process listening at `address`.
    pub(super) fn live_server_at(&self, address: &RpcAddress) -> Option<ProcessId> {
        let id = *self.servers.get(address)?;
        self.is_up(id).then_some(id)
    }

    pub(super) fn set_on_exit(&mut self, process: ProcessId, f: Box<dyn Fn(i32)>) {
        self[process].on_exit = Some(f);
    }

    pub(super) fn set_on_term(&mut self, process: ProcessId, f: Rc<dyn Fn()>) {
        self[process].on_term = Some(f);
    }

    /// The live process's SIGTERM handler, if any.
    pub(super) fn on_term(&self, process: ProcessId) -> Option<Rc<dyn Fn()>> {
        if self.is_up(process) {
            self[process].on_term.clone()
        } else {
            None
        }
    }

    /// Records that two Spark processes talk (a connection both ends hold); YARN daemons hold
    /// no connections whose loss Spark would report.
    pub(super) fn connect(&mut self, a: ProcessId, b: ProcessId) {
        let (ha, hb) = (self.hot[a.0 as usize], self.hot[b.0 as usize]);
        if ha.kind == ProcessKind::Yarn || hb.kind == ProcessKind::Yarn {
            return;
        }
        // Connections are symmetric (`a` holds `b` exactly when `b` holds `a`), and a hint
        // is always one of the process's peers.
        if ha.peer_hint == b.0 || hb.peer_hint == a.0 {
            return;
        }
        if !self[a].peers.contains(&b) {
            self[a].peers.insert(b);
            self[b].peers.insert(a);
        }
        self.hot[a.0 as usize].peer_hint = b.0;
        self.hot[b.0 as usize].peer_hint = a.0;
    }

    /// Whether the process runs (every post asks).
    pub(super) fn is_up(&self, process: ProcessId) -> bool {
        self.hot[process.0 as usize].up
    }

    pub(super) fn kind(&self, process: ProcessId) -> ProcessKind {
        self.hot[process.0 as usize].kind
    }

    /// Ends a live process: it is no longer up, forgets its names and connections, and hands
    /// back what must be stopped and told. `None` if it had already ended.
    pub(super) fn mark_dead(&mut self, process: ProcessId) -> Option<Ended> {
        let hot = &mut self.hot[process.0 as usize];
        if !hot.up {
            return None;
        }
        hot.up = false;
        hot.peer_hint = NO_PEER;
        self.live.0.borrow_mut().remove(process.0);
        let proc = &mut self[process];
        proc.names.clear();
        let mailboxes = std::mem::take(&mut proc.mailboxes);
        let peers = std::mem::take(&mut proc.peers);
        let address = proc.address.clone();
        let on_exit = proc.on_exit.take();
        proc.on_term = None;
        // Only the peers' listeners: a driver talks to every executor, and each executor that
        // exits must not scan the driver's mailboxes (one per container launch).
        let mut disconnects = Vec::new();
        for peer in peers.into_sorted() {
            let hot = &mut self.hot[peer.0 as usize];
            if hot.peer_hint == process.0 {
                hot.peer_hint = NO_PEER;
            }
            let up = hot.up;
            let p = &mut self[peer];
            p.peers.remove(&process);
            if up {
                disconnects.extend(p.listeners.iter().copied());
            }
        }
        Some(Ended {
            mailboxes,
            address,
            on_exit,
            disconnects,
        })
    }

    /// The live processes on a host.
    pub(super) fn live_on_host(&self, host: &str) -> Vec<ProcessId> {
        self.list
            .iter()
            .enumerate()
            .filter(|(i, p)| p.address.host == host && self.hot[*i].up)
            .map(|(i, _)| ProcessId(i as u32))
            .collect()
    }

    pub(super) fn names(&self) -> Vec<String> {
        self.list.iter().map(|p| p.name.to_string()).collect()
    }
}

impl std::ops::Index<ProcessId> for ProcessTable {
    type Output = Process;
    fn index(&self, id: ProcessId) -> &Process {
        &self.list[id.0 as usize]
    }
}

impl std::ops::IndexMut<ProcessId> for ProcessTable {
    fn index_mut(&mut self, id: ProcessId) -> &mut Process {
        &mut self.list[id.0 as usize]
    }
}
