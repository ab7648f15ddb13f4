//! The Executor's own rules as plain data (Spark's `org.apache.spark.executor.Executor` and its
//! `TaskRunner`, Executor.scala in spark-core 4.0.0): the running tasks (`runningTasks`), the
//! kill marks a `killTask` leaves for a task not launched yet (`killMarks`, honoured for
//! `KILL_MARK_TTL_MS`), `killAllTasks`, the `decommissioned` flag's error line at launch, the
//! heartbeater (`Heartbeater`: its seeded initial delay, one ask at a time, the failure count
//! of `spark.executor.heartbeat.maxFailures` and exit 56, a re-registration) and which
//! state and result a task's end sends (FINISHED / FAILED / KILLED). No actix, no clock: the
//! backend passes times in and acts on what it gets back.

use sparkyard_messages::ids::TaskId;
use sparkyard_messages::records::TaskState;
use sparkyard_messages::task::TaskResultData;

/// `Executor.KILL_MARK_TTL_MS`: a kill mark older than this is cleaned up, so a launch that
/// comes later runs.
pub const KILL_MARK_TTL_MS: u64 = 10_000;

/// `ExecutorExitCode.HEARTBEAT_FAILURE`.
pub const HEARTBEAT_FAILURE_EXIT_CODE: i32 = 56;

/// `ExecutorExitCode.BLOCK_MANAGER_REREGISTRATION_FAILED`: the master refused a block
/// manager's re-registration (its executor is lost).
pub const BLOCK_MANAGER_REREGISTRATION_FAILED: i32 = 58;

/// `spark.executor.heartbeat.maxFailures`' default.
pub const DEFAULT_HEARTBEAT_MAX_FAILURES: u32 = 60;

/// `Executor.launchTask`'s line when the executor already decommissions (its own logger's
/// `log.error`).
pub const LAUNCH_WHILE_DECOMMISSIONED: &str = "Launching a task while in decommissioned state.";

/// A `KillTask` that found no running task: `(interruptThread, reason, time)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KillMark {
    pub task_id: TaskId,
    pub interrupt_thread: bool,
    pub reason: String,
    pub at_ms: u64,
}

/// When a kill ends a running task (Spark 4.0.0's `Executor.TaskRunner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KillTakesEffect {
    /// At once: the task meets it at its next interruption check (`TaskKilledException`), or,
    /// blocked on a fetch, as the interrupt's `InterruptedException`.
    Now,
    /// When the task's current wait ends: `TaskRunner.kill` without `interruptThread` only
    /// marks `reasonIfKilled`, and a thread blocked in `ShuffleBlockFetcherIterator`'s
    /// `results.take()` wakes with the fetch's failure (a NonFatal, reported KILLED); or a
    /// replayed attempt the recording ended by a kill, which runs its recorded time first.
    AtItsEnd,
}

impl KillTakesEffect {
    pub fn of(waits_on_fetch: bool, interrupt_thread: bool, runs_until_killed: bool) -> Self {
        if runs_until_killed || (waits_on_fetch && !interrupt_thread) {
            KillTakesEffect::AtItsEnd
        } else {
            KillTakesEffect::Now
        }
    }
}

/// What `launchTask` found when it put the task among the running ones.
#[derive(Debug, PartialEq, Eq)]
pub struct Launched {
    /// The executor decommissions: `Launching a task while in decommissioned state.`
    pub decommissioned: bool,
    /// A `KillTask` came first: the new runner is killed at once (`tr.kill(...)`).
    pub kill: Option<KillMark>,
}

/// The Executor's tasks: at most `cores` run at a time, so they sit in a short list (a map's
/// first node alone is 800 bytes per executor). `T` is what the backend keeps per task.
#[derive(Debug)]
pub struct ExecutorTasks<T> {
    running: Vec<(TaskId, T)>,
    launched: u64,
    kill_marks: Vec<KillMark>,
    decommissioned: bool,
}

impl<T> Default for ExecutorTasks<T> {
    fn default() -> Self {
        ExecutorTasks {
            running: Vec::new(),
            launched: 0,
            kill_marks: Vec::new(),
            decommissioned: false,
        }
    }
}

impl<T> ExecutorTasks<T> {
    /// No task was launched here yet (the executor's first task pays the JVM's warm-up).
    pub fn first_task(&self) -> bool {
        self.launched == 0
    }

    pub fn running(&self) -> usize {
        self.running.len()
    }

    #[cfg(test)]
    pub fn is_running(&self, tid: TaskId) -> bool {
        self.running.iter().any(|(t, _)| *t == tid)
    }

    /// `Executor.decommission()`: from now on every launch logs an error (and still runs).
    pub fn decommission(&mut self) {
        self.decommissioned = true;
    }

    /// `launchTask`: the runner goes into `runningTasks` (a task id launched twice replaces
    /// the first, as the map's put does), then a kill mark left for it is taken (`now_ms` is
    /// read only when there are marks).
    pub fn launch(&mut self, tid: TaskId, task: T, now_ms: impl FnOnce() -> u64) -> Launched {
        self.launched += 1;
        match self.running.iter_mut().find(|(t, _)| *t == tid) {
            Some(slot) => slot.1 = task,
            None => self.running.push((tid, task)),
        }
        Launched {
            decommissioned: self.decommissioned,
            kill: self.take_kill_mark(tid, now_ms),
        }
    }

    /// A running task's entry, to change it in place.
    pub fn get_mut(&mut self, tid: TaskId) -> Option<&mut T> {
        self.running
            .iter_mut()
            .find(|(t, _)| *t == tid)
            .map(|(_, task)| task)
    }

    /// The task left `runningTasks` (it ended, or was killed): its entry.
    pub fn remove(&mut self, tid: TaskId) -> Option<T> {
        let i = self.running.iter().position(|(t, _)| *t == tid)?;
        Some(self.running.swap_remove(i).1)
    }

    /// `killTask`: the kill is marked (for a launch that comes after it: "Tasks not launched
    /// should always be cancelled"; marks older than `KILL_MARK_TTL_MS` are cleaned up), and
    /// the running task's entry, if any, leaves to be killed.
    pub fn kill(&mut self, mark: KillMark) -> Option<T> {
        let (tid, now) = (mark.task_id, mark.at_ms);
        self.kill_marks
            .retain(|m| now.saturating_sub(m.at_ms) <= KILL_MARK_TTL_MS);
        self.kill_marks.push(mark);
        self.remove(tid)
    }

    /// A killed task that runs on until the kill takes effect goes back among the running
    /// ones (its kill stays marked).
    pub fn put_back(&mut self, tid: TaskId, task: T) {
        self.running.push((tid, task));
    }

    /// `killAllTasks(interruptThread, reason)`: every running task, in launch order of the
    /// list, leaves to be killed.
    #[cfg(test)]
    pub fn kill_all(&mut self) -> Vec<(TaskId, T)> {
        std::mem::take(&mut self.running)
    }

    fn take_kill_mark(&mut self, tid: TaskId, now_ms: impl FnOnce() -> u64) -> Option<KillMark> {
        if self.kill_marks.is_empty() {
            return None;
        }
        let i = self.kill_marks.iter().position(|m| m.task_id == tid)?;
        let mark = self.kill_marks.swap_remove(i);
        (now_ms().saturating_sub(mark.at_ms) <= KILL_MARK_TTL_MS).then_some(mark)
    }
}

/// How a task's run ended (`TaskRunner.run`'s outcome) and what its last `statusUpdate` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEnd {
    /// The result is serialized and sent (`Finished ... bytes result sent to driver`).
    Finished,
    /// The task threw: `ExceptionFailure`, after `Exception in <task> (TID n)`.
    Exception,
    /// A `FetchFailedException` (even one user code caught): the `FetchFailed` reason, with no
    /// exception line.
    FetchFailed,
    /// `TaskKilledException`: `TaskKilled(reason)`.
    Killed,
}

impl TaskEnd {
    /// The end of a task whose run produced `result`.
    pub fn of(result: &TaskResultData) -> TaskEnd {
        match result {
            TaskResultData::Exception { .. } => TaskEnd::Exception,
            TaskResultData::FetchFailed(_) => TaskEnd::FetchFailed,
            TaskResultData::Killed { .. } => TaskEnd::Killed,
            _ => TaskEnd::Finished,
        }
    }

    /// The state the `statusUpdate` carries.
    pub fn state(self) -> TaskState {
        match self {
            TaskEnd::Finished => TaskState::Finished,
            TaskEnd::Exception | TaskEnd::FetchFailed => TaskState::Failed,
            TaskEnd::Killed => TaskState::Killed,
        }
    }
}

/// What the heartbeater does after a failed heartbeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeartbeatFailed {
    /// `Issue communicating with driver in heartbeater` (WARN); the next beat comes.
    Warn,
    /// `Exit as unable to send heartbeats to driver more than {max} times` (ERROR), then
    /// `System.exit(56)`.
    Exit { max: u32, code: i32 },
}

/// `Executor.heartbeatFailures`: failures in a row of `reportHeartBeat`'s ask (a timeout of
/// `spark.executor.heartbeatInterval`, or any failure of the ask); a reply resets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeartbeatFailures {
    max: u32,
    failures: u32,
}

impl HeartbeatFailures {
    /// `spark.executor.heartbeat.maxFailures`.
    pub fn new(max: u32) -> Self {
        HeartbeatFailures { max, failures: 0 }
    }

    /// The driver answered: the count starts again.
    pub fn succeeded(&mut self) {
        self.failures = 0;
    }

    /// The ask failed (`NonFatal`): one more in a row; at the limit the JVM exits.
    pub fn failed(&mut self) -> HeartbeatFailed {
        self.failures += 1;
        if self.failures >= self.max {
            return HeartbeatFailed::Exit {
                max: self.max,
                code: HEARTBEAT_FAILURE_EXIT_CODE,
            };
        }
        HeartbeatFailed::Warn
    }

    #[cfg(test)]
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

/// `Heartbeater.start`'s initial delay: `intervalMs + (math.random * intervalMs).toInt`, with
/// `random` in [0, 1) drawn from the run's seed (Spark draws it unseeded).
pub fn heartbeat_initial_delay_ms(interval_ms: u64, random: f64) -> u64 {
    // d2i: the JVM's double-to-int conversion saturates, as Rust's `as` does.
    let jitter = (random * interval_ms as f64) as i32;
    interval_ms + u64::try_from(jitter).unwrap_or(0)
}

/// A draw in [0, 1) from the run's seed and a key (splitmix64's finalizer; the top 53 bits).
pub fn seeded_unit(seed: u64, key: u64) -> f64 {
    let mut z = seed ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// How a heartbeat ask ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeartbeatOutcome {
    /// `HeartbeatResponse(reregisterBlockManager)`.
    Replied { reregister_block_manager: bool },
    /// The ask failed: no reply within `spark.executor.heartbeatInterval`, or an error.
    Failed,
}

/// What the executor does with a heartbeat's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeartbeatAction {
    /// A reply: the count is reset, nothing to log.
    Reset,
    /// A reply that asks for it (and the executor is not shutting down): `Told to re-register
    /// on heartbeat` and `BlockManager.reregister()`; the count is reset too.
    Reregister,
    /// `Issue communicating with driver in heartbeater` (WARN, with the failure).
    Warn,
    /// `Exit as unable to send heartbeats to driver more than {max} times` (ERROR), then
    /// `System.exit(code)`.
    Exit { max: u32, code: i32 },
}

/// The Executor's heartbeater thread (`Heartbeater`, a one-thread `ScheduledExecutorService`
/// running `reportHeartBeat` at a fixed rate of `spark.executor.heartbeatInterval`): one
/// `askSync` at a time, whose timeout is that same interval, and `heartbeatFailures`. So an ask
/// still unanswered when the next tick comes has timed out at that very instant: the tick fails
/// it, then asks again (a fixed-rate run that overruns its period starts the next one at once).
/// No timer per heartbeat: heartbeats run for the whole life of every executor. Plain data: the
/// backend sends, and acts on what it gets back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heartbeater {
    failures: HeartbeatFailures,
    /// The ask waiting for its `HeartbeatResponse`.
    in_flight: Option<u64>,
}

impl Heartbeater {
    /// `spark.executor.heartbeat.maxFailures`.
    pub fn new(max_failures: u32) -> Self {
        Heartbeater {
            failures: HeartbeatFailures::new(max_failures),
            in_flight: None,
        }
    }

    /// The fixed-rate tick: the ask it finds still waiting (timed out now), if any.
    pub fn tick(&mut self) -> Option<u64> {
        self.in_flight.take()
    }

    /// The heartbeat asked now waits for its answer.
    pub fn asked(&mut self, ask_id: u64) {
        self.in_flight = Some(ask_id);
    }

    /// Whether an answer is the waiting heartbeat's (then it no longer waits); a late one,
    /// after its timeout, is not (NettyRpcEnv logs it `Ignored message`).
    pub fn answers(&mut self, ask_id: u64) -> bool {
        let ours = self.in_flight == Some(ask_id);
        if ours {
            self.in_flight = None;
        }
        ours
    }

    /// `reportHeartBeat` after its `askSync` (`shutting_down`: `executorShutdown` is set, so a
    /// re-registration is not asked for).
    pub fn answered(&mut self, outcome: HeartbeatOutcome, shutting_down: bool) -> HeartbeatAction {
        match outcome {
            HeartbeatOutcome::Replied {
                reregister_block_manager,
            } => {
                self.failures.succeeded();
                if reregister_block_manager && !shutting_down {
                    HeartbeatAction::Reregister
                } else {
                    HeartbeatAction::Reset
                }
            }
            HeartbeatOutcome::Failed => match self.failures.failed() {
                HeartbeatFailed::Warn => HeartbeatAction::Warn,
                HeartbeatFailed::Exit { max, code } => HeartbeatAction::Exit { max, code },
            },
        }
    }

    #[cfg(test)]
    pub fn failures(&self) -> u32 {
        self.failures.failures()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::task::FetchFailure;

    fn mark(tid: u64, at_ms: u64) -> KillMark {
        KillMark {
            task_id: TaskId(tid),
            interrupt_thread: false,
            reason: "test".into(),
            at_ms,
        }
    }

    // CoarseGrainedExecutorBackendSuite "track allocated resources by taskId": a launched task
    // is tracked until its end takes it out; a RUNNING update leaves it in.
    #[test]
    fn a_launched_task_is_tracked_until_it_ends() {
        let mut tasks = ExecutorTasks::<&str>::default();
        assert!(tasks.first_task());
        let launched = tasks.launch(TaskId(1_000_000), "task", || 0);
        assert_eq!(
            launched,
            Launched {
                decommissioned: false,
                kill: None
            }
        );
        assert!(!tasks.first_task());
        assert!(tasks.is_running(TaskId(1_000_000)));
        // runningTasks.put: a second launch of the same id replaces the first runner.
        tasks.launch(TaskId(1_000_000), "again", || 0);
        assert_eq!(tasks.running(), 1);
        assert_eq!(tasks.remove(TaskId(1_000_000)), Some("again"));
        assert_eq!(tasks.running(), 0);
        assert_eq!(tasks.remove(TaskId(1_000_000)), None);
    }

    // CoarseGrainedExecutorBackendSuite "Tasks launched should always be cancelled.": every
    // launched task that is then killed leaves the running tasks, and only those.
    #[test]
    fn tasks_launched_then_killed_are_all_cancelled() {
        let mut tasks = ExecutorTasks::default();
        for tid in 1..=1000 {
            tasks.launch(TaskId(tid), tid, || tid);
            assert_eq!(tasks.kill(mark(tid, tid)), Some(tid));
        }
        assert_eq!(tasks.running(), 0);
        // Only the marks of the last TTL are kept.
        assert_eq!(tasks.kill_marks.len(), 1000);
        tasks.kill(mark(1, 1000 + KILL_MARK_TTL_MS));
        assert_eq!(tasks.kill_marks.len(), 2);
    }

    // CoarseGrainedExecutorBackendSuite "Tasks not launched should always be cancelled.":
    // Executor.killTask puts a kill mark; launchTask takes it and kills the new runner.
    #[test]
    fn tasks_killed_before_their_launch_are_cancelled_at_launch() {
        let mut tasks = ExecutorTasks::default();
        for tid in 1..=1000 {
            assert_eq!(tasks.kill(mark(tid, tid)), None);
            let launched = tasks.launch(TaskId(tid), tid, || tid);
            assert_eq!(launched.kill, Some(mark(tid, tid)));
        }
        assert!(tasks.kill_marks.is_empty());
    }

    // Executor.KILL_MARK_TTL_MS (10000 in the 4.0.0 jar): the cleanup thread drops older marks,
    // so a launch after them runs.
    #[test]
    fn a_kill_mark_older_than_its_ttl_is_not_honoured() {
        let mut tasks = ExecutorTasks::default();
        tasks.kill(mark(7, 0));
        assert_eq!(
            tasks.launch(TaskId(7), (), || KILL_MARK_TTL_MS + 1).kill,
            None
        );
        tasks.kill(mark(8, 0));
        tasks.kill(mark(9, KILL_MARK_TTL_MS + 1));
        assert_eq!(tasks.kill_marks, vec![mark(9, KILL_MARK_TTL_MS + 1)]);
        // A running task is killed and its mark kept too (Executor.killTask puts it first).
        tasks.launch(TaskId(10), (), || KILL_MARK_TTL_MS + 1);
        assert_eq!(tasks.kill(mark(10, KILL_MARK_TTL_MS + 2)), Some(()));
        assert_eq!(tasks.kill_marks.len(), 2);
    }

    // ExecutorSuite "SPARK-15963: Catch `TaskKilledException` correctly in
    // Executor.TaskRunner": killAllTasks kills the running task, which ends KILLED with
    // TaskKilled(reason).
    #[test]
    fn kill_all_tasks_ends_every_running_task_killed() {
        let mut tasks = ExecutorTasks::default();
        tasks.launch(TaskId(0), "a", || 0);
        tasks.launch(TaskId(1), "b", || 0);
        let killed = tasks.kill_all();
        assert_eq!(killed, vec![(TaskId(0), "a"), (TaskId(1), "b")]);
        assert_eq!(tasks.running(), 0);
        let end = TaskEnd::of(&TaskResultData::Killed {
            reason: "test".into(),
        });
        assert_eq!(end.state(), TaskState::Killed);
    }

    // Executor.launchTask (4.0.0 jar): `if (decommissioned) log.error("Launching a task while
    // in decommissioned state.")`, and the task still runs.
    #[test]
    fn a_launch_after_decommission_runs_and_reports_it() {
        let mut tasks = ExecutorTasks::default();
        assert!(!tasks.launch(TaskId(1), (), || 0).decommissioned);
        tasks.decommission();
        assert!(tasks.launch(TaskId(2), (), || 0).decommissioned);
        assert_eq!(tasks.running(), 2);
    }

    // ExecutorSuite "SPARK-19276: Handle FetchFailedExceptions that are hidden by user
    // exceptions" (the reason is FetchFailed) and "Gracefully handle error in task
    // deserialization" (an ExceptionFailure): both end FAILED; a result ends FINISHED.
    #[test]
    fn a_task_ends_in_the_state_its_result_names() {
        let fetch = TaskResultData::FetchFailed(Box::new(FetchFailure {
            bm_address: None,
            shuffle_id: 0,
            map_id: -1,
            map_index: -1,
            reduce_id: 0,
            message: "m".into(),
        }));
        assert_eq!(TaskEnd::of(&fetch), TaskEnd::FetchFailed);
        assert_eq!(TaskEnd::FetchFailed.state(), TaskState::Failed);
        let thrown = TaskResultData::Exception {
            class: "java.lang.RuntimeException".into(),
            description: "boom".into(),
        };
        assert_eq!(TaskEnd::of(&thrown), TaskEnd::Exception);
        assert_eq!(TaskEnd::Exception.state(), TaskState::Failed);
        assert_eq!(TaskEnd::of(&TaskResultData::Count(3)), TaskEnd::Finished);
        assert_eq!(
            TaskEnd::of(&TaskResultData::None).state(),
            TaskState::Finished
        );
    }

    // Executor.reportHeartBeat (4.0.0 jar): `heartbeatFailures += 1; if (heartbeatFailures >=
    // HEARTBEAT_MAX_FAILURES) System.exit(ExecutorExitCode.HEARTBEAT_FAILURE)` (56); a reply
    // resets the count.
    #[test]
    fn heartbeat_failures_in_a_row_exit_56_at_the_limit() {
        let mut h = HeartbeatFailures::new(3);
        assert_eq!(h.failed(), HeartbeatFailed::Warn);
        assert_eq!(h.failed(), HeartbeatFailed::Warn);
        h.succeeded();
        assert_eq!(h.failures(), 0);
        assert_eq!(h.failed(), HeartbeatFailed::Warn);
        assert_eq!(h.failed(), HeartbeatFailed::Warn);
        assert_eq!(h.failed(), HeartbeatFailed::Exit { max: 3, code: 56 });
        assert_eq!(
            HeartbeatFailures::new(DEFAULT_HEARTBEAT_MAX_FAILURES).max,
            60
        );
    }

    fn failed_ask() -> HeartbeatOutcome {
        HeartbeatOutcome::Failed
    }

    fn reply(reregister_block_manager: bool) -> HeartbeatOutcome {
        HeartbeatOutcome::Replied {
            reregister_block_manager,
        }
    }

    // SPARK-13522 (Executor.reportHeartBeat in the 4.0.0 jar): failures in a row are warned
    // until the count reaches spark.executor.heartbeat.maxFailures, then the executor exits
    // with ExecutorExitCode.HEARTBEAT_FAILURE (56); a reply between resets the count.
    #[test]
    fn the_heartbeater_warns_then_exits_56_after_max_failures_in_a_row() {
        let mut h = Heartbeater::new(3);
        let outcomes = [
            failed_ask(),
            failed_ask(),
            reply(false),
            failed_ask(),
            failed_ask(),
        ];
        let actions: Vec<HeartbeatAction> =
            outcomes.into_iter().map(|o| h.answered(o, false)).collect();
        use HeartbeatAction::*;
        assert_eq!(actions, vec![Warn, Warn, Reset, Warn, Warn]);
        assert_eq!(h.failures(), 2);
        assert_eq!(h.answered(failed_ask(), false), Exit { max: 3, code: 56 });
        // maxFailures 0 or 1: the first failure already reaches it (`>=`).
        assert_eq!(
            Heartbeater::new(1).answered(failed_ask(), false),
            Exit { max: 1, code: 56 }
        );
    }

    // Heartbeater (4.0.0 jar): a one-thread ScheduledExecutorService runs reportHeartBeat at a
    // fixed rate; its askSync waits RpcTimeout(HEARTBEAT_INTERVAL_MS): the tick after an
    // unanswered ask is that ask's timeout, and a reply after it is not the heartbeat's.
    #[test]
    fn the_next_tick_times_out_an_unanswered_heartbeat() {
        let mut h = Heartbeater::new(60);
        assert_eq!(h.tick(), None, "nothing waits at the first tick");
        h.asked(7);
        assert!(h.answers(7), "a reply within the interval");
        assert_eq!(h.tick(), None);
        h.asked(8);
        assert_eq!(h.tick(), Some(8), "no reply by the next tick: timed out");
        assert!(!h.answers(8), "the late reply is ignored");
        h.asked(9);
        assert!(!h.answers(8));
        assert!(h.answers(9));
    }

    // ExecutorSuite "SPARK-34949: do not re-register BlockManager when executor is shutting
    // down": HeartbeatResponse(reregisterBlockManager = true) re-registers the block manager,
    // unless the executor is stopping; either way the reply resets the count.
    #[test]
    fn a_reregister_reply_reregisters_unless_the_executor_is_shutting_down() {
        let mut h = Heartbeater::new(60);
        h.answered(failed_ask(), false);
        assert_eq!(h.answered(reply(true), false), HeartbeatAction::Reregister);
        assert_eq!(h.failures(), 0);
        assert_eq!(h.answered(reply(true), true), HeartbeatAction::Reset);
    }

    // Heartbeater.start (4.0.0 jar): `initialDelay = intervalMs + (math.random * intervalMs)
    // .toInt`, here with a draw from the run's seed: the first heartbeat comes within
    // [interval, 2 x interval), the same for the same seed and executor.
    #[test]
    fn the_first_heartbeat_comes_after_one_interval_plus_a_seeded_jitter() {
        assert_eq!(heartbeat_initial_delay_ms(10_000, 0.0), 10_000);
        assert_eq!(heartbeat_initial_delay_ms(10_000, 0.25), 12_500);
        assert_eq!(heartbeat_initial_delay_ms(10_000, 0.999_999_9), 19_999);
        for key in 0..1000 {
            let u = seeded_unit(42, key);
            assert!((0.0..1.0).contains(&u), "{u}");
            assert_eq!(u.to_bits(), seeded_unit(42, key).to_bits());
        }
        assert_ne!(seeded_unit(42, 1), seeded_unit(42, 2));
        assert_ne!(seeded_unit(1, 1), seeded_unit(7, 1));
        // The draws spread over the interval (not one fixed offset).
        let delays: std::collections::BTreeSet<u64> = (0..100)
            .map(|k| heartbeat_initial_delay_ms(10_000, seeded_unit(7, k)) / 1000)
            .collect();
        assert_eq!(delays.len(), 10);
    }

    /// Executor.TaskRunner (Spark 4.0.0's jar): a kill without `interruptThread` (a job's
    /// cancellation by default, a barrier stage's `killAllTaskAttempts`) only marks a task
    /// blocked on a fetch being retried, which ends KILLED when the fetch fails; with it (a
    /// speculative race's loser) the wait is interrupted at once. A task not waiting on a fetch
    /// meets either kill at its next check.
    #[test]
    fn a_kill_without_interrupt_waits_for_a_blocked_fetch() {
        use KillTakesEffect::*;
        assert_eq!(KillTakesEffect::of(true, false, false), AtItsEnd);
        assert_eq!(KillTakesEffect::of(true, true, false), Now);
        assert_eq!(KillTakesEffect::of(false, false, false), Now);
        assert_eq!(KillTakesEffect::of(false, true, false), Now);
        assert_eq!(KillTakesEffect::of(false, true, true), AtItsEnd);
    }
}
