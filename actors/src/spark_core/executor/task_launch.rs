//! A task's launch: `LaunchTask` runs the task for its virtual duration after reading its
//! stage's task binary, its cached partition and its shuffle input (Spark's
//! `Executor.launchTask` and the start of `Executor.TaskRunner.run`).

use super::shuffle::FailingFetch;
use super::{
    BACKEND, BLOCK_FETCHER, CoarseGrainedExecutorBackend, EXECUTOR, RunningTask, executor_jvm,
    parse_driver_url,
};
use crate::kernel::clock;
use crate::kernel::timers;
use crate::spark_core::executor_env;
use crate::spark_core::executor_state::LAUNCH_WHILE_DECOMMISSIONED;
use crate::spark_core::memory_store::TASK_BINARY_PIECE_BYTES;
use crate::spark_core::task_runner::{DartCost, exception_result, run_task};
use crate::{error, info, info_parts};
use actix::Context;
use sparkyard_messages::driver_endpoint::DriverEndpointMsg;
use sparkyard_messages::executor::ExecutorMsg;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::{TaskDescription, TaskResultData, TaskWork};

impl CoarseGrainedExecutorBackend {
    /// `Task.run` deserializes its stage's task binary: the executor's first task of a stage
    /// attempt reads the broadcast from the driver's block manager (port = the driver's RPC
    /// port + 1, as the driver logs it). The first read opens the JVM's third connection; the
    /// read's time is that connect plus the fetch, within the task's start-up budget (the
    /// executor's first task's warm-up, else the launch overhead).
    fn read_task_binary(&mut self, id: u32) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        let costs = &self.sim.config.costs;
        let budget = if executor.tasks.first_task() {
            costs.first_task_warmup_ms
        } else {
            costs.task_launch_overhead_ms
        };
        let Some(blocks) = executor.blocks.as_mut() else {
            return;
        };
        if blocks.read.contains(&id) {
            return;
        }
        blocks.read.insert(id);
        let round_trip = 2 * costs.network_latency_ms;
        let seed = self.sim.config.seed;
        let jvm = executor_jvm(&self.args);
        let first = !std::mem::replace(&mut blocks.connected, true);
        let connection = parse_driver_url(&self.args.driver_url)
            .filter(|_| first)
            .map(|mut address| {
                address.port = executor_env::driver_block_manager_port(address.port);
                executor_env::ConnectionTo {
                    ip: self.sim.host_ip(&address.host),
                    address,
                    connect_ms: executor_env::connect_ms(seed, &jvm, 2, budget, round_trip),
                }
            });
        let connect = connection.as_ref().map_or(0, |c| c.connect_ms);
        let fetch = executor_env::connect_ms(seed, &jvm, 3 + id, budget, round_trip);
        let took = (connect + fetch).min(budget + 2 * round_trip);
        blocks
            .store
            .read_task_binary(self.env.log(), id, took, |log| {
                if let Some(c) = &connection {
                    executor_env::log_connection_created(log, executor_env::CONNECTIONS, c);
                }
            });
    }

    /// `TorrentBroadcast.readBlocks` puts the fetched piece with `tellMaster = true`: the
    /// block manager reports it (`UpdateBlockInfo`) once per broadcast, whether or not its log
    /// shows the read. Sent after the task's RUNNING update: TaskRunner.run reports RUNNING
    /// before it deserializes the task, which reads the broadcast.
    fn report_broadcast_piece(&mut self, id: u32) {
        let Some(executor) = self.executor.as_mut() else {
            return;
        };
        if executor.latest_piece == Some(id) {
            return;
        }
        executor.latest_piece = Some(id);
        if executor.broadcast_pieces.contains(&id) {
            return;
        }
        executor.broadcast_pieces.insert(id);
        if let Some(d) = &self.driver {
            let msg = DriverEndpointMsg::UpdateBroadcastBlockInfo {
                block_manager: self.block_manager_id(),
                broadcast_id: id,
                mem_size: TASK_BINARY_PIECE_BYTES,
            };
            self.env.send(d, msg);
        }
    }

    pub(super) fn on_launch_task(
        &mut self,
        mut desc: Box<TaskDescription>,
        ctx: &mut Context<Self>,
    ) {
        if let Some(reason) = self.state.needs_executor(true) {
            return self.exit_executor(reason, true);
        }
        // The log is borrowed at each line, not cloned: a clone touches this process's key (a
        // cache line of its own) on every task.
        // `Got assigned task {}` and `Running {} (TID {})`, in pieces (two lines of every task).
        info_parts!(self.env.log(), BACKEND, "Got assigned task ", desc.task_id);
        info_parts!(
            self.env.log(),
            EXECUTOR,
            "Running ",
            desc.name(),
            " (TID ",
            desc.task_id,
            ")"
        );
        self.update_epoch(desc.epoch);
        self.read_task_binary(desc.task_binary);
        if let Some(split) = &desc.input_split {
            // HadoopRDD.compute (Spark 4.0.0 jar): logInfo at the split's reader creation.
            let tid = desc.task_id;
            info!(
                self.env.log(),
                "executor::HadoopRDD", "Task (TID {tid}) input split: {split}"
            );
        }
        let sim = self.sim.clone();
        let costs = &sim.config.costs;
        let executor = self.executor.as_mut().expect("checked above");
        // A replayed task that was its recorded executor's first pays its own warm-up back.
        let warmup = if executor.tasks.first_task() {
            desc.work
                .own_first_task_warmup_ms(desc.stage_attempt_id, desc.attempt_number)
                .unwrap_or(costs.first_task_warmup_ms)
        } else {
            0
        };
        let darts = DartCost {
            ns: costs.sparkpi_dart_ns,
            real: costs.sparkpi_real_darts,
        };
        let (work_ms, result) = run_task(
            &desc.work,
            desc.stage_attempt_id,
            desc.attempt_number,
            darts,
        );
        // A bad executor: a `failing-executor` fault makes every task here throw.
        let attempt = self.sim.current_attempt.get();
        let result =
            match self
                .sim
                .faults
                .task_exception(self.sim.index, attempt, self.args.executor_id.0)
            {
                Some(message) => exception_result(&message),
                None => result,
            };
        // A straggler: a `slow-node` fault stretches the work of tasks launched on its host.
        let work_ms = self
            .sim
            .faults
            .stretch_task_ms(&self.args.hostname, work_ms);
        let (work_ms, stores_block) = self.read_cached_partition(&desc, work_ms);
        let mut ask_statuses = None;
        let mut started_line = None;
        if let Some(current) = desc.shuffle.read.clone() {
            let statuses = self.get_map_statuses(&current);
            ask_statuses = statuses.fetched.then_some(current.shuffle_id);
            if statuses.plan.missing_map.is_none() {
                started_line = self.start_block_fetch(&statuses.plan, desc.task_id);
            }
            // The task reads the statuses its worker holds.
            desc.shuffle.read = Some(statuses.plan);
        }
        // The fetch comes first: a failed one ends the task before its work; one from a server
        // that does not answer is tried after the task's deserialisation (the timer below).
        let (work_ms, result, fetch_retries) = match self.fetch_shuffle_input(&desc) {
            Some(FailingFetch::Now(failure)) => {
                (0, TaskResultData::FetchFailed(Box::new(failure)), None)
            }
            Some(FailingFetch::Retried(mut retries)) => {
                retries.started_line = started_line.take();
                (0, TaskResultData::None, Some(retries))
            }
            None => (work_ms, self.write_shuffle_output(&desc, result), None),
        };
        if let Some(line) = started_line {
            info!(self.env.log(), BLOCK_FETCHER, "{line}");
        }
        // A replayed task's recorded duration already holds its launch cost; the executor's
        // first-task warm-up is the replay's (taken off the log's first tasks, see
        // sparkyard's replay::program::FirstTaskWarmup), paid by whatever task runs first here:
        // that task's own when it was its recorded executor's first, else the log's median.
        let duration = match desc.work {
            TaskWork::Replayed { .. } => warmup + work_ms,
            _ => costs.task_launch_overhead_ms + warmup + work_ms,
        };
        let tid = desc.task_id;
        self.status_update(tid, TaskState::Running, TaskResultData::None, desc.cpus);
        self.report_broadcast_piece(desc.task_binary);
        if let Some(shuffle_id) = ask_statuses {
            self.ask_map_statuses(shuffle_id);
        }
        // The timer holds the id, not a whole 96-byte message.
        let after = clock::ms(duration);
        let timer = match fetch_retries {
            Some(_) => {
                timers::notify_later_with(ctx, after, move || ExecutorMsg::FetchAttempt(tid))
            }
            None => timers::notify_later_with(ctx, after, move || ExecutorMsg::TaskDone(tid)),
        };
        let executor = self.executor.as_mut().expect("checked above");
        let task = RunningTask {
            desc,
            timer,
            result,
            stores_block,
            kill_at_end: None,
            fetch_retries,
        };
        let launched = executor.tasks.launch(tid, task, clock::now_ms);
        if launched.decommissioned {
            error!(self.env.log(), EXECUTOR, "{LAUNCH_WHILE_DECOMMISSIONED}");
        }
        // A KillTask came before this LaunchTask: the new runner is killed at once.
        if let Some(mark) = launched.kill {
            self.kill_launched(mark, ctx);
        }
    }
}
