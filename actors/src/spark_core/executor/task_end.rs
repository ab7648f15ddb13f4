//! A task's end: its time is over, its end state and result are logged and sent to the driver
//! as a `StatusUpdate` (Spark's end of `Executor.TaskRunner.run` and
//! `CoarseGrainedExecutorBackend.statusUpdate`).

use super::{CoarseGrainedExecutorBackend, EXECUTOR, RunningTask};
use crate::kernel::clock;
use crate::spark_core::block_manager_decommissioner::StoredShuffle;
use crate::spark_core::executor_state::TaskEnd;
use crate::spark_core::task_runner::ResultSend;
use crate::world::injector;
use crate::{error, info, info_parts, warn};
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::ids::TaskId;
use sparkyard_messages::jvm_text::bytes_to_string;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::{
    ContainerEnd, ShuffleBlockInfo, StatusUpdate, TaskDescription, TaskResultData,
};

impl CoarseGrainedExecutorBackend {
    /// The task's time is over: `TaskRunner.run`'s end, whose state and result `TaskEnd` names.
    pub(super) fn on_task_done(&mut self, tid: TaskId) {
        let Some(mut task) = self.executor.as_mut().and_then(|e| e.tasks.remove(tid)) else {
            return;
        };
        // A replayed attempt the recording lost with its executor: the executor dies with it
        // (whether or not a kill came meanwhile), and the driver learns of the loss as Spark's
        // did (disconnect, the AM's reason).
        let d = &task.desc;
        if let Some(end) = d
            .work
            .executor_dies_after(d.stage_attempt_id, d.attempt_number)
        {
            return self.die(end);
        }
        if let Some(mark) = task.kill_at_end.take() {
            return self.kill_takes_effect(task, *mark);
        }
        let end = TaskEnd::of(&task.result);
        match end {
            TaskEnd::Exception => self.log_exception(tid, &task),
            TaskEnd::Finished => self.finished(tid, &task),
            // A FetchFailedException is reported as its FetchFailed reason, with no
            // `Exception in task` line.
            TaskEnd::FetchFailed | TaskEnd::Killed => {}
        }
        self.status_update(tid, end.state(), task.result, task.desc.cpus);
    }

    /// The executor's container ends as `end` says (its JVM exits, or its NodeManager kills
    /// it), with whatever else it ran.
    fn die(&mut self, end: ContainerEnd) {
        match (end, self.args.container_id) {
            (ContainerEnd::NodeManagerKill(_), Some(cid)) => {
                injector::end_container(&self.sim, cid, &self.args.hostname, end)
            }
            (ContainerEnd::ProcessExit(code), _) => self.env.exit(code),
            // No container to ask a NodeManager about (not a YARN launch): the JVM dies.
            (ContainerEnd::NodeManagerKill(_), None) => self.env.exit(137),
        }
    }

    /// `Exception in <task> (TID n)` with the exception's class and message.
    fn log_exception(&self, tid: TaskId, task: &RunningTask) {
        if let TaskResultData::Exception { class, description } = &task.result {
            error!(
                self.env.log(),
                EXECUTOR,
                "Exception in {} (TID {tid})\n{class}: {description}",
                task.desc.name()
            );
        }
    }

    /// A finished task stores its computed cached partition, keeps its map output for a
    /// decommission's migration, and sends its result.
    fn finished(&mut self, tid: TaskId, task: &RunningTask) {
        if task.stores_block {
            self.store_cached_partition(&task.desc);
        }
        if let (TaskResultData::MapStatus(m), Some(w)) = (&task.result, task.desc.shuffle.write)
            && self.conf.keeps_shuffle_files()
        {
            self.stored_shuffles.push(StoredShuffle {
                info: ShuffleBlockInfo {
                    shuffle_id: w.shuffle_id,
                    map_id: tid.0,
                },
                data_bytes: m.bytes,
                num_reduces: m.num_reduces,
            });
        }
        self.log_result_sent(&task.desc);
    }

    /// Executor.TaskRunner's line for a serialized result (Spark 4.0.0's texts, read from the
    /// jar): over `spark.driver.maxResultSize` it is dropped with a WARN and only its size goes
    /// to the driver, over `maxDirectResultSize` it goes via the BlockManager, else it is sent.
    fn log_result_sent(&self, desc: &TaskDescription) {
        let log = self.env.log();
        let (name, tid, bytes) = (desc.name(), desc.task_id, desc.result_bytes);
        let spark = &self.sim.config.spark;
        let max = spark.driver_max_result_size;
        match ResultSend::of(bytes, max, spark.max_direct_result_size) {
            ResultSend::Dropped => warn!(
                log,
                EXECUTOR,
                "Finished {name} (TID {tid}). Result is larger than maxResultSize ({} > {}), dropping it.",
                bytes_to_string(bytes),
                bytes_to_string(max)
            ),
            // The closing parenthesis is Spark's own.
            ResultSend::ViaBlockManager => info!(
                log,
                EXECUTOR,
                "Finished {name} (TID {tid}). {bytes} bytes result sent via BlockManager)"
            ),
            // `Finished {name} (TID {tid}). {bytes} bytes result sent to driver`.
            ResultSend::Direct => info_parts!(
                log,
                EXECUTOR,
                "Finished ",
                name,
                " (TID ",
                tid,
                "). ",
                bytes,
                " bytes result sent to driver"
            ),
        }
    }

    pub(super) fn status_update(
        &mut self,
        task_id: TaskId,
        state: TaskState,
        data: TaskResultData,
        task_cpus: u32,
    ) {
        if state.is_finished() {
            self.state.task_finished(clock::now_ms);
        }
        if let Some(d) = &self.driver {
            let u = StatusUpdate {
                executor_id: self.args.executor_id,
                task_id,
                state,
                data,
                task_cpus,
            };
            self.env.send(d, DriverEndpointMsg::StatusUpdate(u));
        }
    }
}
