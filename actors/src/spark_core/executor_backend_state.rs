//! The CoarseGrainedExecutorBackend's own rules as a plain state machine (Spark's
//! `org.apache.spark.executor.CoarseGrainedExecutorBackend`, spark-core 4.0.0): whether the
//! Executor exists (`RegisteredExecutor` creates it; `LaunchTask` / `KillTask` without it exit
//! the JVM), `exitExecutor` (the first call wins: its reason is recorded once, and the error
//! line and the driver's `RemoveExecutor` both read it), `Shutdown`'s exit code, SIGTERM's,
//! `decommissionSelf` and the `wait-for-blocks-to-migrate` thread's shutdown decision,
//! `statusUpdate`'s `lastTaskFinishTime`, and `onDisconnected`; before the backend, the
//! `driverPropsFetcher`'s lookup of the driver (`CoarseGrainedExecutorBackend$.run`: 3 tries).
//! No actix, no clock: the actor passes times in, logs and acts on what it gets back.

use crate::kernel::logs::Level;
use crate::spark_core::resource_profile::DiscoveryError;
use std::fmt;

/// `CoarseGrainedExecutorBackend$.run`'s `nTries`: the fetcher's `setupEndpointRefByURI` tries.
pub const DRIVER_LOOKUP_TRIES: u32 = 3;

/// What the fetcher does after a failed lookup of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupFailed {
    /// Another try.
    Retry,
    /// The last try's failure is thrown (`Exception in thread "main"`): the JVM exits 1.
    GiveUp,
}

/// The `driverPropsFetcher`'s tries at looking the driver up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DriverLookup {
    tries: u32,
}

impl DriverLookup {
    /// A try starts.
    pub fn start_try(&mut self) {
        self.tries += 1;
    }

    /// The try failed: `if (i == nTries - 1) throw e`, else the loop goes on.
    pub fn failed(&self) -> LookupFailed {
        if self.tries < DRIVER_LOOKUP_TRIES {
            LookupFailed::Retry
        } else {
            LookupFailed::GiveUp
        }
    }
}

/// What the backend reads of its conf to decommission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecommissionRules {
    /// `spark.decommission.enabled`.
    pub enabled: bool,
    /// `spark.storage.decommission.enabled`.
    pub storage: bool,
    /// `spark.storage.decommission.rddBlocks.enabled` or `.shuffleBlocks.enabled`.
    pub storage_blocks: bool,
}

impl DecommissionRules {
    /// `migrationEnabled`: storage decommissioning with at least one kind of block.
    pub fn migration_enabled(&self) -> bool {
        self.storage && self.storage_blocks
    }
}

/// Why the executor exits itself (`exitExecutor`'s reason): its text is the error line's and
/// the `ExecutorLossReason` the driver gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitReason {
    /// The lookup or `RegisterExecutor` failed; `cause` is the failure's text, if any.
    CannotRegister {
        driver_url: String,
        cause: String,
    },
    LaunchTaskWithoutExecutor,
    KillTaskWithoutExecutor,
    /// `onDisconnected` from the driver's address.
    DriverDisassociated(String),
    /// The shutdown thread saw no task and every block migrated
    /// (`ExecutorLossMessage.decommissionFinished`).
    FinishedDecommissioning,
    /// OnStart's `parseOrFindResources` threw (a custom resource without a discovery script,
    /// fewer addresses than asked): `Unable to create executor due to <message>`, the exception
    /// logged with it.
    UnableToCreate(DiscoveryError),
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitReason::CannotRegister { driver_url, cause } if cause.is_empty() => {
                write!(f, "Cannot register with driver: {driver_url}")
            }
            ExitReason::CannotRegister { driver_url, cause } => {
                write!(f, "Cannot register with driver: {driver_url}\n{cause}")
            }
            ExitReason::LaunchTaskWithoutExecutor => {
                f.write_str("Received LaunchTask command but executor was null")
            }
            ExitReason::KillTaskWithoutExecutor => {
                f.write_str("Received KillTask command but executor was null")
            }
            ExitReason::DriverDisassociated(address) => {
                write!(f, "Driver {address} disassociated! Shutting down.")
            }
            ExitReason::FinishedDecommissioning => f.write_str("Finished decommissioning"),
            ExitReason::UnableToCreate(e) => write!(
                f,
                "Unable to create executor due to {}\n{}: {}",
                e.message, e.class, e.message
            ),
        }
    }
}

/// What `exitExecutor` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStep {
    /// Already stopping: `Skip exiting executor since it's been already asked to exit before.`
    Skip,
    /// `Executor self-exiting due to : <reason>`, `RemoveExecutor` to the driver if asked, then
    /// `Shutdown` (Spark 4.0 sends itself `Shutdown` instead of `System.exit(code)`).
    Exit { notify_driver: bool },
}

/// What `decommissionSelf` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecommissionStart {
    /// `Receive decommission request, but decommission feature is disabled.`
    Disabled,
    /// `Executor <id> already started decommissioning.`
    AlreadyStarted,
    /// `Decommission executor <id>.`; the block manager decommissions when `migrate`; with
    /// storage decommissioning on but no block kind, `storage_misconfigured` (an error line).
    Started {
        migrate: bool,
        storage_misconfigured: bool,
    },
}

/// What one pass of the `wait-for-blocks-to-migrate` thread decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShutdownCheck {
    /// The executor already stops: the thread has nothing to do.
    Stopping,
    /// `Blocked from shutdown by <n> running tasks`; again in a second.
    BlockedByTasks(usize),
    /// `All blocks not yet migrated.`; again in a second.
    BlocksNotMigrated,
    /// Exit (`Finished decommissioning`), after saying whether blocks were migrated.
    Exit { migrated: bool },
}

/// The last migration round, as `BlockManager.lastMigrationInfo` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MigrationInfo {
    /// When the last round that saw every block started.
    pub round_started_ms: u64,
    pub all_migrated: bool,
}

/// Who disconnected, for `onDisconnected`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disconnected {
    /// `Driver from <address> disconnected during shutdown` (INFO).
    DuringShutdown,
    /// The driver's address: the executor exits (`Driver <address> disassociated!`).
    Driver,
    /// `An unknown (<address>) driver disconnected.` (WARN).
    Unknown,
}

impl Disconnected {
    /// The level of `onDisconnected`'s own line (`logInfo` during shutdown, `logWarning` for an
    /// unknown address); the driver's is `exitExecutor`'s ERROR.
    pub fn level(self) -> Level {
        match self {
            Disconnected::DuringShutdown => Level::Info,
            Disconnected::Unknown => Level::Warn,
            Disconnected::Driver => Level::Error,
        }
    }
}

/// The backend's state.
#[derive(Clone, Debug)]
pub struct BackendState {
    rules: DecommissionRules,
    executor: bool,
    stopping: bool,
    decommissioned: bool,
    /// Boxed: one pointer per executor until it exits.
    exit: Option<Box<ExitReason>>,
    last_task_finish_ms: u64,
}

impl BackendState {
    /// A backend started at `now_ms` (`lastTaskFinishTime` starts at the start).
    pub fn new(rules: DecommissionRules, now_ms: u64) -> Self {
        BackendState {
            rules,
            executor: false,
            stopping: false,
            decommissioned: false,
            exit: None,
            last_task_finish_ms: now_ms,
        }
    }

    pub fn stopping(&self) -> bool {
        self.stopping
    }

    #[cfg(test)]
    pub fn decommissioned(&self) -> bool {
        self.decommissioned
    }

    /// Why the executor exits itself, once `exitExecutor` ran.
    pub fn exit_reason(&self) -> Option<&ExitReason> {
        self.exit.as_deref()
    }

    /// `RegisteredExecutor`: the Executor is created.
    pub fn registered(&mut self) {
        self.executor = true;
    }

    /// `LaunchTask` / `KillTask` need the Executor: without it, the reason to exit.
    pub fn needs_executor(&self, launch: bool) -> Option<ExitReason> {
        match (self.executor, launch) {
            (true, _) => None,
            (false, true) => Some(ExitReason::LaunchTaskWithoutExecutor),
            (false, false) => Some(ExitReason::KillTaskWithoutExecutor),
        }
    }

    /// `exitExecutor(code, reason, notifyDriver)`: the first call records its reason.
    pub fn exit_executor(&mut self, reason: ExitReason, notify_driver: bool) -> ExitStep {
        if self.stopping {
            return ExitStep::Skip;
        }
        self.stopping = true;
        self.exit = Some(Box::new(reason));
        ExitStep::Exit { notify_driver }
    }

    /// `StopExecutor` (`Driver commanded a shutdown`): stopping, then `Shutdown`.
    pub fn stop_executor(&mut self) {
        self.stopping = true;
    }

    /// `Shutdown`: the JVM's exit code, 1 with no Executor, else 0 once it stopped.
    pub fn shutdown(&mut self) -> i32 {
        self.stopping = true;
        if self.executor { 0 } else { 1 }
    }

    /// `System.exit(code)` from one of the executor's own threads (the heartbeater's 56, the
    /// block manager's 58): the shutdown hooks run and the JVM ends with `code`.
    pub fn system_exit(&mut self, code: i32) -> i32 {
        self.stopping = true;
        code
    }

    /// SIGTERM: the JVM's default handler runs the shutdown hooks and exits 128 + 15.
    pub fn signal_term(&mut self) -> i32 {
        self.stopping = true;
        143
    }

    /// `decommissionSelf`.
    pub fn decommission(&mut self) -> DecommissionStart {
        if !self.rules.enabled {
            return DecommissionStart::Disabled;
        }
        if self.decommissioned {
            return DecommissionStart::AlreadyStarted;
        }
        self.decommissioned = true;
        let migrate = self.rules.migration_enabled();
        DecommissionStart::Started {
            migrate,
            storage_misconfigured: !migrate && self.rules.storage,
        }
    }

    /// `statusUpdate`: a finished state (`TaskState.isFinished`) sets `lastTaskFinishTime`
    /// (`now_ms` is read only when it is kept). Only the shutdown thread reads it, against a
    /// migration round that started after decommissioning did, so a task that finished before
    /// keeps the backend's start instead: in virtual ms it could share the round's ms and hold
    /// the exit back a second, where Spark's `nanoTime` puts the round strictly after it.
    pub fn task_finished(&mut self, now_ms: impl FnOnce() -> u64) {
        if self.decommissioned {
            self.last_task_finish_ms = now_ms();
        }
    }

    /// One pass of the shutdown thread, with `running` tasks and the last migration round
    /// (`None`: no block manager decommissioner, nothing to migrate). Only a round that
    /// started after the last task finished saw all its blocks.
    pub fn shutdown_check(
        &self,
        running: usize,
        migration: Option<MigrationInfo>,
    ) -> ShutdownCheck {
        if self.stopping {
            return ShutdownCheck::Stopping;
        }
        if running > 0 {
            return ShutdownCheck::BlockedByTasks(running);
        }
        if !self.rules.migration_enabled() {
            return ShutdownCheck::Exit { migrated: false };
        }
        let info = migration.unwrap_or(MigrationInfo {
            round_started_ms: u64::MAX,
            all_migrated: true,
        });
        if info.all_migrated && info.round_started_ms > self.last_task_finish_ms {
            ShutdownCheck::Exit { migrated: true }
        } else {
            ShutdownCheck::BlocksNotMigrated
        }
    }

    /// A block upload from a peer is refused while this block manager decommissions or stops.
    pub fn refuses_block_uploads(&self) -> bool {
        self.decommissioned || self.stopping
    }

    /// `onDisconnected(remoteAddress)`: `is_driver` says whether it is the driver's address.
    pub fn disconnected(&self, is_driver: bool) -> Disconnected {
        match (self.stopping, is_driver) {
            (true, _) => Disconnected::DuringShutdown,
            (false, true) => Disconnected::Driver,
            (false, false) => Disconnected::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_ON: DecommissionRules = DecommissionRules {
        enabled: true,
        storage: true,
        storage_blocks: true,
    };

    // CoarseGrainedExecutorBackend$.run (4.0.0 jar): `for (i <- 0 until 3 if driver == null)`,
    // the last try's exception thrown; RetrieveSparkAppConfig itself is asked once.
    #[test]
    fn the_fetcher_tries_the_driver_three_times() {
        let mut lookup = DriverLookup::default();
        for _ in 0..2 {
            lookup.start_try();
            assert_eq!(lookup.failed(), LookupFailed::Retry);
        }
        lookup.start_try();
        assert_eq!(lookup.failed(), LookupFailed::GiveUp);
    }

    fn backend(rules: DecommissionRules) -> BackendState {
        BackendState::new(rules, 0)
    }

    // CoarseGrainedExecutorBackend.receive (4.0.0 jar): `LaunchTask` / `KillTask` before
    // `RegisteredExecutor` created the Executor call exitExecutor(1, "Received ... command but
    // executor was null"); after it they go to the Executor.
    #[test]
    fn launch_or_kill_before_registration_exits() {
        let mut b = backend(ALL_ON);
        let launch = b.needs_executor(true).expect("no executor yet");
        assert_eq!(
            launch.to_string(),
            "Received LaunchTask command but executor was null"
        );
        let kill = b.needs_executor(false).expect("no executor yet");
        assert_eq!(
            kill.to_string(),
            "Received KillTask command but executor was null"
        );
        b.registered();
        assert_eq!(b.needs_executor(true), None);
        assert_eq!(b.needs_executor(false), None);
    }

    // CoarseGrainedExecutorBackend.exitExecutor: `stopping.compareAndSet(false, true)` lets the
    // first call through; later ones log "Skip exiting executor ...". The reason is kept once.
    #[test]
    fn only_the_first_exit_counts_and_its_reason_is_kept() {
        let mut b = backend(ALL_ON);
        let first = ExitReason::DriverDisassociated("driver:7077".into());
        assert_eq!(
            b.exit_executor(first.clone(), false),
            ExitStep::Exit {
                notify_driver: false
            }
        );
        assert_eq!(
            b.exit_executor(ExitReason::FinishedDecommissioning, true),
            ExitStep::Skip
        );
        assert_eq!(b.exit_reason(), Some(&first));
        assert_eq!(
            first.to_string(),
            "Driver driver:7077 disassociated! Shutting down."
        );
    }

    // The onStart lookup's failure: `Cannot register with driver: <url>`, with the cause on the
    // next line when there is one.
    #[test]
    fn a_failed_registration_names_the_driver_and_its_cause() {
        let bare = ExitReason::CannotRegister {
            driver_url: "spark://CoarseGrainedScheduler@h:1".into(),
            cause: String::new(),
        };
        assert_eq!(
            bare.to_string(),
            "Cannot register with driver: spark://CoarseGrainedScheduler@h:1"
        );
        let caused = ExitReason::CannotRegister {
            driver_url: "u".into(),
            cause: "java.io.IOException: Failed to connect".into(),
        };
        assert_eq!(
            caused.to_string(),
            "Cannot register with driver: u\njava.io.IOException: Failed to connect"
        );
    }

    // `Shutdown`: `if (executor == null) System.exit(1)`, else the Executor stops and the JVM
    // ends normally; SIGTERM exits 128 + 15.
    #[test]
    fn shutdown_exits_1_without_an_executor_else_0() {
        let mut b = backend(ALL_ON);
        assert_eq!(b.shutdown(), 1);
        assert!(b.stopping());
        let mut b = backend(ALL_ON);
        b.registered();
        assert_eq!(b.shutdown(), 0);
        assert_eq!(backend(ALL_ON).signal_term(), 143);
    }

    // decommissionSelf (4.0.0 jar): disabled -> a warning only; a second request -> "already
    // started decommissioning."; storage on with no block kind -> the error line, no migration.
    #[test]
    fn decommission_starts_once_and_only_when_enabled() {
        let mut off = backend(DecommissionRules {
            enabled: false,
            ..ALL_ON
        });
        assert_eq!(off.decommission(), DecommissionStart::Disabled);
        assert!(!off.decommissioned());
        let mut b = backend(ALL_ON);
        assert_eq!(
            b.decommission(),
            DecommissionStart::Started {
                migrate: true,
                storage_misconfigured: false
            }
        );
        assert_eq!(b.decommission(), DecommissionStart::AlreadyStarted);
        assert!(b.refuses_block_uploads());
        let mut no_blocks = backend(DecommissionRules {
            storage_blocks: false,
            ..ALL_ON
        });
        assert_eq!(
            no_blocks.decommission(),
            DecommissionStart::Started {
                migrate: false,
                storage_misconfigured: true
            }
        );
    }

    // The shutdown thread (CoarseGrainedExecutorBackend$$anon$2): blocked while tasks run; with
    // migration, it waits for a round that started after the last task finished and saw every
    // block; without, it exits as soon as no task runs.
    #[test]
    fn the_shutdown_thread_waits_for_tasks_then_for_a_later_full_migration() {
        let mut b = backend(ALL_ON);
        // A task that ended before decommissioning started is not waited for, even in the
        // round's own ms.
        b.task_finished(|| 1_000);
        b.decommission();
        let same_ms = MigrationInfo {
            round_started_ms: 1_000,
            all_migrated: true,
        };
        assert_eq!(
            b.shutdown_check(0, Some(same_ms)),
            ShutdownCheck::Exit { migrated: true }
        );
        assert_eq!(b.shutdown_check(2, None), ShutdownCheck::BlockedByTasks(2));
        b.task_finished(|| 5_000);
        let stale = MigrationInfo {
            round_started_ms: 4_000,
            all_migrated: true,
        };
        assert_eq!(
            b.shutdown_check(0, Some(stale)),
            ShutdownCheck::BlocksNotMigrated
        );
        let partial = MigrationInfo {
            round_started_ms: 6_000,
            all_migrated: false,
        };
        assert_eq!(
            b.shutdown_check(0, Some(partial)),
            ShutdownCheck::BlocksNotMigrated
        );
        let done = MigrationInfo {
            round_started_ms: 6_000,
            all_migrated: true,
        };
        assert_eq!(
            b.shutdown_check(0, Some(done)),
            ShutdownCheck::Exit { migrated: true }
        );
        let no_storage = backend(DecommissionRules {
            storage: false,
            ..ALL_ON
        });
        assert_eq!(
            no_storage.shutdown_check(0, None),
            ShutdownCheck::Exit { migrated: false }
        );
        b.stop_executor();
        assert_eq!(b.shutdown_check(0, Some(done)), ShutdownCheck::Stopping);
    }

    // onDisconnected (4.0.0 jar): while stopping, "Driver from X disconnected during shutdown"
    // (logInfo); the driver's address exits; any other address is "An unknown (X) driver
    // disconnected." (logWarning).
    #[test]
    fn a_disconnect_exits_only_for_the_driver_and_not_while_stopping() {
        let mut b = backend(ALL_ON);
        assert_eq!(b.disconnected(true), Disconnected::Driver);
        assert_eq!(b.disconnected(false), Disconnected::Unknown);
        // Before, sparkyard logged the unknown address at INFO.
        assert_eq!(Disconnected::Unknown.level(), Level::Warn);
        assert_eq!(Disconnected::DuringShutdown.level(), Level::Info);
        b.exit_executor(ExitReason::FinishedDecommissioning, true);
        assert_eq!(b.disconnected(true), Disconnected::DuringShutdown);
        assert_eq!(b.disconnected(false), Disconnected::DuringShutdown);
    }
}
