//! Where shuffle blocks are served in the simulated cluster, the truth a fetch meets on the
//! network: each executor's block manager (Spark's `NettyBlockTransferService`, in the
//! executor's JVM) and each node's external shuffle service (the NodeManager's `spark_shuffle`
//! aux service, Spark's `YarnShuffleService`, which dies with its NodeManager or alone).

use crate::kernel::small_map::DenseMap;
use crate::rpc::{Dispatcher, ProcessId};
use crate::world::addresses::nm_process_name;
use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::task::BlockManagerId;
use std::cell::RefCell;
use std::collections::BTreeSet;

/// The block servers of one run.
#[derive(Default)]
pub struct BlockServers {
    /// Each executor's JVM, by executor id (the newest AM attempt's executor of that id).
    executors: RefCell<DenseMap<ExecutorId, ProcessId>>,
    /// Hosts whose shuffle service was stopped while the NodeManager lives on.
    services_down: RefCell<BTreeSet<String>>,
}

impl BlockServers {
    /// An executor's block manager starts serving blocks from its JVM.
    pub fn executor_started(&self, executor: ExecutorId, process: ProcessId) {
        self.executors.borrow_mut().insert(executor, process);
    }

    /// The `spark_shuffle` aux service on `host` stops (the NodeManager keeps running).
    pub fn stop_shuffle_service(&self, host: &str) {
        self.services_down.borrow_mut().insert(host.to_string());
    }

    /// Whether a fetch from `server` gets an answer: the node's shuffle service when the
    /// location is the shuffle service's port, else the executor's JVM.
    pub fn reachable(
        &self,
        dispatcher: &Dispatcher,
        server: &BlockManagerId,
        ess_port: u16,
    ) -> bool {
        if server.port == ess_port {
            if self.services_down.borrow().contains(&server.host) {
                return false;
            }
            return dispatcher
                .process_named(&nm_process_name(&server.host))
                .is_some_and(|p| dispatcher.is_process_alive(p));
        }
        self.executors
            .borrow()
            .get(server.executor_id)
            .is_some_and(|p| dispatcher.is_process_alive(*p))
    }
}
