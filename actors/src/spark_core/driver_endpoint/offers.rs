//! Offers: one executor's or every offerable executor's free cores to the scheduler's
//! `resourceOffers`, and the tasks it launched sent to their executors (Spark's
//! `DriverEndpoint.makeOffers` and `launchTasks`).

use super::DriverEndpoint;
use crate::faults::Trigger;
use crate::spark_core::scheduler::WorkerOffer;
use crate::world::injector;
use crate::world::invariants::{self, name as inv};
use crate::world::observer::RunEvent;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::ids::ExecutorId;

impl DriverEndpoint {
    /// Whether a revive should offer this executor's cores: an offer to any other executor
    /// launches nothing and changes nothing.
    pub(super) fn update_offerable(&mut self, id: ExecutorId) {
        self.offerable.update(&self.sim, &self.core, id);
    }

    /// `makeOffers`: one executor (`makeOffers(executorId)`, after a status update or a
    /// registration), or every active one (ReviveOffers), in one `resourceOffers` call.
    pub(super) fn make_offers(&mut self, only: Option<ExecutorId>) {
        match only {
            Some(id) => {
                self.make_offer(id);
                self.update_offerable(id);
            }
            None => self.make_offers_to_all(),
        }
    }

    /// `makeOffers(executorId)`: the per-task path, one offer on the stack and no walk. The
    /// caller updates the executor's place among the offerable ones.
    fn make_offer(&mut self, id: ExecutorId) {
        let Some(mut offer) = self.work_offer(id) else {
            return;
        };
        if !self.scheduler.has_pending_tasks() {
            // An active executor's host is known to the scheduler even with nothing pending
            // (resourceOffers registers it otherwise).
            self.scheduler
                .executor_offered(offer.executor_id, &offer.host);
            return;
        }
        let mut tasks = std::mem::take(&mut self.offered);
        let (scheduler, mut backend) = self.split();
        let offers = std::slice::from_mut(&mut offer);
        scheduler.resource_offers(offers, false, &mut tasks, &mut backend);
        if !tasks.is_empty() {
            self.core.set_free_cores(id, offer.cores + offer.held_back);
        }
        self.launch_tasks(tasks);
        self.handle_deferred();
    }

    /// What a round of offers asked for (exclusion's kills, abort timers, an abort).
    fn handle_deferred(&mut self) {
        let events = self.scheduler.take_deferred();
        if !events.is_empty() {
            self.handle_events(events);
        }
    }

    /// `makeOffers()` (ReviveOffers): every active executor with free cores.
    fn make_offers_to_all(&mut self) {
        if !self.scheduler.has_pending_tasks() {
            return;
        }
        let mut offers = std::mem::take(&mut self.offers);
        offers.clear();
        // The executors with free cores, as a walk over all of them would find them, less
        // those whose offer would launch nothing: waiting for a loss reason, or with fewer
        // free cores than a task needs.
        let mut at = None;
        while let Some(id) = self.offerable.next(at) {
            offers.extend(self.work_offer(id));
            at = Some(id);
        }
        if !offers.is_empty() {
            self.launch_offers(&mut offers);
        }
        self.offers = offers;
    }

    /// An executor's free cores as a `WorkerOffer` (`executorIsAlive`: not waiting for its
    /// loss reason, not being removed or decommissioned), no more than its free custom
    /// resources let tasks use.
    fn work_offer(&self, id: ExecutorId) -> Option<WorkerOffer> {
        if !self.core.is_alive(id) {
            return None;
        }
        let e = self.core.executors.get(id)?;
        let cores = e.offer_cores(self.sim.config.spark.task_cpus);
        Some(WorkerOffer {
            executor_id: id,
            host: e.host.clone(),
            cores,
            held_back: e.free_cores - cores,
            resources: e.resources.clone(),
        })
    }

    /// `scheduler.resourceOffers(workOffers, isAllFreeResources = true)` then `launchTasks`:
    /// the offers' cores left are the executors' free cores.
    fn launch_offers(&mut self, offers: &mut [WorkerOffer]) {
        let mut tasks = std::mem::take(&mut self.offered);
        let (scheduler, mut backend) = self.split();
        scheduler.resource_offers(offers, true, &mut tasks, &mut backend);
        if !tasks.is_empty() {
            for o in offers.iter() {
                if self
                    .core
                    .set_free_cores(o.executor_id, o.cores + o.held_back)
                {
                    self.update_offerable(o.executor_id);
                }
            }
        }
        self.launch_tasks(tasks);
        self.handle_deferred();
    }

    /// `launchTasks`: each task goes to its executor in the order the scheduler launched them
    /// (grouped by the shuffled offers); the drained list is kept for the next round.
    fn launch_tasks(&mut self, mut tasks: crate::spark_core::scheduler::LaunchedTasks) {
        if tasks.is_empty() {
            self.offered = tasks;
            return;
        }
        self.sim.observe(RunEvent::TasksLaunched {
            count: tasks.len() as u64,
        });
        let attempt = self.sim.current_attempt.get();
        for t in tasks.drain(..) {
            if t.attempt_number == 0 {
                let (stage, index) = (t.stage_id, t.index);
                injector::notify(
                    &self.sim,
                    Trigger::TaskStarted {
                        attempt,
                        stage,
                        index,
                    },
                );
            }
            let Some(e) = self.core.executors.get(t.executor_id) else {
                continue;
            };
            if let Some(why) = self.scheduler.launch_exclusion(&t, &e.host) {
                let name = t.name().to_string();
                let check =
                    invariants::launched_where_allowed(&name, t.executor_id.0, &e.host, Some(why));
                self.sim
                    .violations
                    .check(inv::NO_TASK_WHERE_EXCLUDED, check);
            }
            self.env.send(&e.executor, ExecutorMsg::LaunchTask(t));
        }
        self.offered = tasks;
    }
}
