//! An application's lifecycle in the ResourceManager as a plain state machine (Hadoop 3.4's
//! `RMAppImpl`, RMAppImpl.java): SUBMITTED, ACCEPTED, RUNNING, FINISHING, FINISHED, FAILED and
//! KILLED, its attempts (`rm_app_attempt`), the retry rule with the attempt-failure validity
//! interval and the maximum of attempts, the user's KILL, an attempt's EXPIRE and LAUNCH_FAILED,
//! and the report's state, diagnostics, times and URLs. Each event returns the typed effects the
//! ResourceManager actor carries out in order (log, trace, start an attempt with the scheduler,
//! stop its asks, kill an attempt's containers). No actix, no clock: times are passed in.
//!
//! The simulator has no state store, so NEW and NEW_SAVING (START, APP_NEW_SAVED) and
//! FINAL_SAVING (APP_UPDATE_SAVED) are passed through at once, and so is KILLING: the attempt's
//! ATTEMPT_KILLED answers the application's KILL in the same call. Nothing moves an application.

use crate::hadoop_yarn::rm_app_attempt::{
    AmContainerExit, AttemptKill, MasterServiceRefusal, NOT_AVAILABLE, RmAppAttempt,
    should_count_towards_max_attempt_retry,
};
use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId, ContainerId};
use sparkyard_messages::records::{
    ContainerStatus, FinalApplicationStatus as Final, YarnApplicationState as Yarn, exit_status,
};

/// `SchedulerApplicationAttempt.AMState.LAUNCHED`'s diagnostic message.
pub const AM_LAUNCHED_DIAGNOSTICS: &str =
    "AM container is launched, waiting for AM container to Register with RM";

/// `RMAppState`, as far as the simulator reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmAppState {
    Submitted,
    Accepted,
    Running,
    /// The AM unregistered; its container has not exited yet (reported as FINISHED).
    Finishing,
    Finished,
    Failed,
    /// KILL, through KILLING (`KillAttemptTransition`) or at once from SUBMITTED
    /// (`AppKilledTransition`).
    Killed,
}

impl RmAppState {
    /// `RMServerUtils.createApplicationState`: what a report shows (FINISHING is FINISHED).
    pub fn yarn(self) -> Yarn {
        match self {
            Self::Submitted => Yarn::Submitted,
            Self::Accepted => Yarn::Accepted,
            Self::Running => Yarn::Running,
            Self::Finishing | Self::Finished => Yarn::Finished,
            Self::Failed => Yarn::Failed,
            Self::Killed => Yarn::Killed,
        }
    }
}

/// The attempt limits of one application (`RMAppImpl`'s constructor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppRules {
    /// `maxAppAttempts`: the application's own maximum, or the RM's.
    pub max_attempts: u32,
    /// `yarn.resourcemanager.am.max-attempts`.
    pub global_max_attempts: u32,
    /// `attemptFailuresValidityInterval` (ms), if the submission set one.
    pub validity_interval_ms: Option<u64>,
}

impl AppRules {
    /// `RMAppImpl`'s constructor: an individual maximum outside [1, global] means the global one.
    pub fn new(requested: Option<u32>, global: u32, validity_interval_ms: Option<u64>) -> Self {
        let max_attempts = match requested {
            Some(m) if m >= 1 && m <= global => m,
            _ => global.max(1),
        };
        AppRules {
            max_attempts,
            global_max_attempts: global,
            validity_interval_ms,
        }
    }
}

/// What the ResourceManager does after a transition, in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppEffect {
    /// `<app> State change from <from> to <to>`, in the states a report shows, and the trace's
    /// RMApp state.
    StateChanged { from: Yarn, to: Yarn },
    /// `createAndStartNewAttempt`: the attempt is SCHEDULED; the RM registers it with the
    /// ApplicationMasterService (`Registering app attempt : <id>`) and the scheduler.
    AttemptStarted(ApplicationAttemptId),
    /// The AM unregistered: the scheduler drops the attempt's asks and the RMAuditLogger writes
    /// `Application Finished - Succeeded|Failed`.
    Unregistered {
        attempt: ApplicationAttemptId,
        final_status: Final,
    },
    /// The attempt's `<attempt> State change from FINISHING to FINISHED` (its AM exited after
    /// unregistering).
    AttemptFinished(ApplicationAttemptId),
    /// `RMAppAttemptImpl.rememberTargetTransitionsAndStoreState`: `Updating application attempt
    /// <id> with final state: FAILED, and exit status: <n>`.
    AttemptFailed {
        attempt: ApplicationAttemptId,
        exit_status: i32,
    },
    /// What `AttemptFailedTransition` logs before it decides.
    FailedAttempts(FailedAttemptsLog),
    /// `Updating application attempt <id> with final state: KILLED, and exit status: -1000`:
    /// the attempt was killed with its application; the scheduler lets it go and its containers
    /// are killed (`AppAttemptRemovedSchedulerEvent`), its AM container stopped by the
    /// AMLauncher's CLEANUP when it had one (`stop_am`).
    AttemptKilled {
        attempt: ApplicationAttemptId,
        stop_am: bool,
    },
    /// `AttemptFailedFinalStateSavedTransition`: the application's diagnostics at INFO.
    FailedFinally,
}

/// What `RMAppImpl.AttemptFailedTransition` logs before deciding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedAttemptsLog {
    /// `Max app attempts is 1 for <app>, preventing further attempts.`
    MaxIsOne,
    /// `The number of failed attempts is N. The max attempts is M`
    Count(u32),
}

/// `RMAppImpl.AttemptFailedTransition`'s decision.
#[derive(Debug, PartialEq, Eq)]
pub struct AttemptFailedDecision {
    pub log: FailedAttemptsLog,
    /// A new attempt (`numberOfFailure < maxAppAttempts`), else the application FAILS.
    pub retry: bool,
}

/// One application (`RMAppImpl`).
#[derive(Clone, Debug)]
pub struct RmApp {
    id: ApplicationId,
    rules: AppRules,
    /// The RM's web address, `http://host:port` (proxy and application pages).
    rm_web: String,
    state: RmAppState,
    final_status: Final,
    /// What the report's diagnostics show: the scheduler's or AMLauncher's text for the current
    /// attempt (`amLaunchDiagnostics`), the AM's at unregistration, or why the app failed.
    diagnostics: String,
    start_time: u64,
    finish_time: u64,
    attempts: Vec<RmAppAttempt>,
}

impl RmApp {
    /// A submitted application (START and APP_NEW_SAVED: `RMAppManager.submitApplication`).
    pub fn submitted(id: ApplicationId, rules: AppRules, rm_web: String, now: u64) -> Self {
        RmApp {
            id,
            rules,
            rm_web,
            state: RmAppState::Submitted,
            final_status: Final::Undefined,
            diagnostics: String::new(),
            start_time: now,
            finish_time: 0,
            attempts: Vec::new(),
        }
    }

    pub fn rules(&self) -> &AppRules {
        &self.rules
    }

    #[cfg(test)]
    pub fn state(&self) -> RmAppState {
        self.state
    }

    /// `createApplicationState`: the state a report shows.
    pub fn yarn_state(&self) -> Yarn {
        self.state.yarn()
    }

    pub fn final_status(&self) -> Final {
        self.final_status
    }

    pub fn diagnostics(&self) -> &str {
        &self.diagnostics
    }

    pub fn start_time(&self) -> u64 {
        self.start_time
    }

    pub fn finish_time(&self) -> u64 {
        self.finish_time
    }

    pub fn current_attempt(&self) -> Option<&RmAppAttempt> {
        self.attempts.last()
    }

    pub fn current_attempt_id(&self) -> Option<ApplicationAttemptId> {
        self.attempts.last().map(RmAppAttempt::id)
    }

    pub fn attempt(&self, id: ApplicationAttemptId) -> Option<&RmAppAttempt> {
        self.attempts.iter().find(|a| a.id() == id)
    }

    /// The report's tracking URL: the current attempt's, else the RM's proxy.
    pub fn tracking_url(&self) -> String {
        match self.current_attempt() {
            Some(a) => a.tracking_url().to_string(),
            None => self.proxy_url(),
        }
    }

    /// The report's original tracking URL: the current attempt's, else `N/A`.
    pub fn original_tracking_url(&self) -> &str {
        self.current_attempt()
            .map_or(NOT_AVAILABLE, RmAppAttempt::original_tracking_url)
    }

    /// The AM's host and RPC port (the current attempt's, once registered).
    pub fn am_host(&self) -> Option<&str> {
        self.current_attempt().and_then(RmAppAttempt::host)
    }

    pub fn am_rpc_port(&self) -> i32 {
        self.current_attempt().map_or(-1, RmAppAttempt::rpc_port)
    }

    /// `RMAppAttemptImpl.updateAMLaunchDiagnostics`: what the scheduler or the AMLauncher says of
    /// the current attempt's AM container.
    pub fn set_am_launch_diagnostics(&mut self, text: String) {
        self.diagnostics = text;
    }

    /// The ApplicationMasterService's `responseMap`: the current attempt, while it has not
    /// ended.
    pub fn master_service(
        &self,
        attempt: ApplicationAttemptId,
    ) -> Result<&RmAppAttempt, MasterServiceRefusal> {
        self.current_attempt()
            .filter(|a| a.id() == attempt && !a.state().is_final())
            .ok_or(MasterServiceRefusal::NotFound)
    }

    /// `allocate`'s checks: the attempt is the current one, has not ended, and its AM is
    /// registered and has not unregistered.
    pub fn check_allocate(
        &self,
        attempt: ApplicationAttemptId,
    ) -> Result<(), MasterServiceRefusal> {
        self.master_service(attempt)?.check_allocate()
    }

    /// The current attempt for `registerApplicationMaster` / `finishApplicationMaster`.
    fn master_service_mut(
        &mut self,
        attempt: ApplicationAttemptId,
    ) -> Result<&mut RmAppAttempt, MasterServiceRefusal> {
        self.attempts
            .last_mut()
            .filter(|a| a.id() == attempt && !a.state().is_final())
            .ok_or(MasterServiceRefusal::NotInCache)
    }

    /// The scheduler placed the AM container of `attempt` (CONTAINER_ALLOCATED). The report
    /// says the AM container is launched from then on (`AMState.LAUNCHED`'s text, which Hadoop
    /// sets on LAUNCHED; the AMLauncher starts it at once here).
    pub fn am_container_allocated(
        &mut self,
        attempt: ApplicationAttemptId,
        container: ContainerId,
    ) {
        if let Some(a) = self.attempt_mut(attempt) {
            a.am_container_allocated(container);
            self.diagnostics = AM_LAUNCHED_DIAGNOSTICS.to_string();
        }
    }

    /// The AMLauncher started the AM container of `attempt` (LAUNCHED); the liveness monitor
    /// watches it from `now_ms` (virtual ms).
    pub fn am_launched(&mut self, attempt: ApplicationAttemptId, now_ms: u64) {
        if let Some(a) = self.attempt_mut(attempt) {
            a.launched(now_ms);
        }
    }

    /// `AMLivelinessMonitor.receivedPing` for the current attempt (register, allocate).
    #[inline]
    pub fn ping(&mut self, attempt: ApplicationAttemptId, now_ms: u64) {
        if let Some(a) = self.attempts.last_mut().filter(|a| a.id() == attempt) {
            a.ping(now_ms);
        }
    }

    /// The current attempt, if the liveness monitor finds it silent for longer than
    /// `expiry_ms` at `now_ms`.
    pub fn expired_attempt(&self, now_ms: u64, expiry_ms: u64) -> Option<ApplicationAttemptId> {
        self.current_attempt()
            .filter(|a| a.liveness_expired(now_ms, expiry_ms))
            .map(RmAppAttempt::id)
    }

    /// KILL (`yarn application -kill`, ClientRMService.forceKillApplication with its message
    /// `diagnostics`): SUBMITTED -> KILLED (`AppKilledTransition`); ACCEPTED or RUNNING ->
    /// KILLING, the current attempt KILLED (`KillAttemptTransition`), and on its ATTEMPT_KILLED
    /// -> KILLED (`AppKilledTransition`: the message as the diagnostics, final status KILLED, a
    /// finish time). Once the final state is stored (FINISHING, FINISHED, FAILED, KILLED) it
    /// changes nothing (`isAppFinalStateStored`).
    pub fn kill(&mut self, diagnostics: &str, now: u64) -> Vec<AppEffect> {
        let mut effects = Vec::new();
        match self.state {
            RmAppState::Submitted => {}
            RmAppState::Accepted | RmAppState::Running => {
                let rm_web = &self.rm_web;
                let Some(a) = self.attempts.last_mut() else {
                    return effects;
                };
                if let AttemptKill::Killed { stop_am } = a.kill(rm_web) {
                    let attempt = a.id();
                    effects.push(AppEffect::AttemptKilled { attempt, stop_am });
                }
            }
            _ => return effects,
        }
        // The report's diagnostics are the kill's message (the simulator keeps one text for
        // the application's and the attempt's launch diagnostics).
        self.diagnostics = diagnostics.to_string();
        self.final_status = Final::Killed;
        self.finish_time = now;
        self.move_to(RmAppState::Killed, &mut effects);
        effects
    }

    /// EXPIRE of `attempt` (`ExpiredTransition`): it FAILS with `ApplicationMaster for attempt
    /// <id> timed out`, and the application retries or fails (`AttemptFailedTransition`).
    pub fn expire(&mut self, attempt: ApplicationAttemptId, now: u64) -> Vec<AppEffect> {
        let rm_web = self.rm_web.clone();
        let expired = self
            .attempt_mut(attempt)
            .and_then(|a| a.expire(&rm_web, now));
        self.attempt_ended_failed(attempt, expired, now)
    }

    /// LAUNCH_FAILED of `attempt` (`LaunchFailedTransition`): the AMLauncher's text
    /// (`onAMLaunchFailed`) is the attempt's diagnostics; it FAILS and the application retries
    /// or fails.
    pub fn launch_failed(
        &mut self,
        attempt: ApplicationAttemptId,
        diagnostics: String,
        now: u64,
    ) -> Vec<AppEffect> {
        let rm_web = self.rm_web.clone();
        let failed = self
            .attempt_mut(attempt)
            .is_some_and(|a| a.launch_failed(&rm_web, now));
        self.attempt_ended_failed(attempt, failed.then_some(diagnostics), now)
    }

    /// An attempt that FAILED with `diagnostics` (`None`: the event was ignored) and an INVALID
    /// AM exit status: `Updating application attempt ...`, then `AttemptFailedTransition` if it
    /// is the current one.
    fn attempt_ended_failed(
        &mut self,
        attempt: ApplicationAttemptId,
        diagnostics: Option<String>,
        now: u64,
    ) -> Vec<AppEffect> {
        let mut effects = Vec::new();
        let Some(diagnostics) = diagnostics else {
            return effects;
        };
        effects.push(AppEffect::AttemptFailed {
            attempt,
            exit_status: exit_status::INVALID,
        });
        if self.current_attempt_id() == Some(attempt) {
            self.attempt_failed(diagnostics, now, &mut effects);
        }
        effects
    }

    fn attempt_mut(&mut self, id: ApplicationAttemptId) -> Option<&mut RmAppAttempt> {
        self.attempts.iter_mut().find(|a| a.id() == id)
    }

    /// SUBMITTED -> FAILED on APP_REJECTED (`AppRejectedTransition`): the scheduler's message,
    /// without any attempt.
    pub fn reject(&mut self, message: String, now: u64) -> Vec<AppEffect> {
        let mut effects = Vec::new();
        if self.state != RmAppState::Submitted {
            return effects;
        }
        self.diagnostics = message;
        self.final_status = Final::Failed;
        self.finish_time = now;
        self.move_to(RmAppState::Failed, &mut effects);
        effects
    }

    /// SUBMITTED -> ACCEPTED on APP_ACCEPTED (`StartAppAttemptTransition`): the first attempt.
    pub fn accept(&mut self) -> Vec<AppEffect> {
        let mut effects = Vec::new();
        if self.state != RmAppState::Submitted {
            return effects;
        }
        self.move_to(RmAppState::Accepted, &mut effects);
        self.start_attempt(&mut effects);
        effects
    }

    /// ATTEMPT_REGISTERED (ACCEPTED -> RUNNING): the AM's host, port and tracking URL; the
    /// launch diagnostics are cleared.
    pub fn attempt_registered(
        &mut self,
        attempt: ApplicationAttemptId,
        host: &str,
        rpc_port: i32,
        tracking_url: &str,
    ) -> Result<Vec<AppEffect>, MasterServiceRefusal> {
        self.master_service_mut(attempt)?
            .register(host, rpc_port, tracking_url)?;
        self.diagnostics.clear();
        let mut effects = Vec::new();
        self.move_to(RmAppState::Running, &mut effects);
        Ok(effects)
    }

    /// ATTEMPT_UNREGISTERED (RUNNING -> FINISHING, `AttemptUnregisteredTransition`): the AM's
    /// final status and diagnostics. Once the final state is stored the call changes nothing
    /// (`finishApplicationMaster`: `isAppFinalStateStored`).
    pub fn attempt_unregistered(
        &mut self,
        attempt: ApplicationAttemptId,
        final_status: Final,
        diagnostics: &str,
        tracking_url: &str,
        now: u64,
    ) -> Result<Vec<AppEffect>, MasterServiceRefusal> {
        let mut effects = Vec::new();
        if matches!(
            self.state,
            RmAppState::Finishing | RmAppState::Finished | RmAppState::Failed | RmAppState::Killed
        ) {
            return Ok(effects);
        }
        self.master_service_mut(attempt)?.unregister(tracking_url)?;
        self.final_status = final_status;
        self.diagnostics = diagnostics.to_string();
        self.finish_time = now;
        self.move_to(RmAppState::Finishing, &mut effects);
        effects.push(AppEffect::Unregistered {
            attempt,
            final_status,
        });
        Ok(effects)
    }

    /// The attempt's AM container exited: the attempt FINISHES (it had unregistered: the app
    /// goes FINISHING -> FINISHED on ATTEMPT_FINISHED) or FAILS, and then the application
    /// retries or fails (`AttemptFailedTransition`).
    pub fn am_container_finished(
        &mut self,
        attempt: ApplicationAttemptId,
        status: &ContainerStatus,
        now: u64,
    ) -> Vec<AppEffect> {
        let mut effects = Vec::new();
        let rm_web = &self.rm_web;
        let Some(a) = self.attempts.iter_mut().find(|a| a.id() == attempt) else {
            return effects;
        };
        match a.am_container_finished(status, rm_web, now) {
            AmContainerExit::Ignored => {}
            AmContainerExit::Finished => {
                effects.push(AppEffect::AttemptFinished(attempt));
                if self.state == RmAppState::Finishing {
                    self.move_to(RmAppState::Finished, &mut effects);
                }
            }
            AmContainerExit::Failed {
                exit_status,
                diagnostics,
            } => {
                effects.push(AppEffect::AttemptFailed {
                    attempt,
                    exit_status,
                });
                if self.current_attempt_id() == Some(attempt) {
                    self.attempt_failed(diagnostics, now, &mut effects);
                }
            }
        }
        effects
    }

    /// ATTEMPT_FAILED in ACCEPTED or RUNNING (`AttemptFailedTransition`): a new attempt while the
    /// counted failures stay below the maximum, else FAILED with `getAppAttemptFailedDiagnostics`.
    fn attempt_failed(&mut self, attempt_diag: String, now: u64, effects: &mut Vec<AppEffect>) {
        let failed: Vec<(i32, u64)> = self.attempts.iter().filter_map(|a| a.failure()).collect();
        let interval = self.rules.validity_interval_ms;
        let counted = num_failed_app_attempts(&failed, now, interval);
        let decision = attempt_failed(counted, self.rules.max_attempts);
        effects.push(AppEffect::FailedAttempts(decision.log));
        if decision.retry {
            self.diagnostics = attempt_diag;
            self.move_to(RmAppState::Accepted, effects);
            self.start_attempt(effects);
            return;
        }
        self.diagnostics = app_attempt_failed_diagnostics(
            self.id,
            self.rules.max_attempts,
            self.rules.global_max_attempts,
            interval,
            &attempt_diag,
        );
        self.final_status = Final::Failed;
        self.finish_time = now;
        effects.push(AppEffect::FailedFinally);
        self.move_to(RmAppState::Failed, effects);
    }

    /// `createAndStartNewAttempt`: the next attempt, SCHEDULED at once.
    fn start_attempt(&mut self, effects: &mut Vec<AppEffect>) {
        let id = ApplicationAttemptId::new(self.id, self.attempts.len() as u32 + 1);
        self.attempts
            .push(RmAppAttempt::scheduled(id, self.proxy_url()));
        effects.push(AppEffect::AttemptStarted(id));
    }

    /// Moves to `to`. `RMAppImpl.handle` writes its state-change line only when the state
    /// changed (`oldState != getState()`): none for ACCEPTED -> ACCEPTED on a retried attempt.
    /// The line names the states a report shows, so FINISHING -> FINISHED writes none either.
    fn move_to(&mut self, to: RmAppState, effects: &mut Vec<AppEffect>) {
        let from = self.state.yarn();
        self.state = to;
        if from != to.yarn() {
            effects.push(AppEffect::StateChanged {
                from,
                to: to.yarn(),
            });
        }
    }

    /// The RM's web proxy for the application (`rmContext.getAppProxyUrl`).
    fn proxy_url(&self) -> String {
        format!("{}/proxy/{}/", self.rm_web, self.id)
    }
}

/// `RMAppImpl.getNumFailedAppAttempts` (Hadoop 3.4, RMAppImpl.java): the failed attempts that
/// count, each `(AM exit status, finish time)`, and only those that finished within the last
/// `attemptFailuresValidityInterval` ms when one is set (`finishTime > now - interval`).
pub fn num_failed_app_attempts(failed: &[(i32, u64)], now: u64, interval: Option<u64>) -> u32 {
    failed
        .iter()
        .filter(|(status, finish)| {
            should_count_towards_max_attempt_retry(*status)
                && interval.is_none_or(|ms| ms == 0 || *finish as i128 > now as i128 - ms as i128)
        })
        .count() as u32
}

/// `RMAppImpl.AttemptFailedTransition.transition` (Hadoop 3.4): with a maximum of 1 the app
/// never retries, whatever the exit status; otherwise it retries while the counted failures stay
/// below the maximum.
pub fn attempt_failed(counted: u32, max_attempts: u32) -> AttemptFailedDecision {
    if max_attempts == 1 {
        return AttemptFailedDecision {
            log: FailedAttemptsLog::MaxIsOne,
            retry: false,
        };
    }
    AttemptFailedDecision {
        log: FailedAttemptsLog::Count(counted),
        retry: counted < max_attempts,
    }
}

/// `RMAppImpl.getAppAttemptFailedDiagnostics` (Hadoop 3.4): `Application %s failed %d times%s%s
/// due to %s. Failing the application.` with the app's maximum (not the number of attempts), the
/// validity window and, when the app's own limit differs from the RM's, both limits.
pub fn app_attempt_failed_diagnostics(
    id: ApplicationId,
    max_attempts: u32,
    global_limit: u32,
    interval: Option<u64>,
    attempt_diag: &str,
) -> String {
    let window = interval.filter(|ms| *ms > 0).map_or(String::new(), |ms| {
        format!(" in previous {ms} milliseconds")
    });
    let limits = if global_limit == max_attempts {
        String::new()
    } else {
        format!(" (global limit ={global_limit}; local limit is ={max_attempts})")
    };
    format!(
        "Application {id} failed {max_attempts} times{window}{limits} due to {attempt_diag}. Failing the application."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hadoop_yarn::rm_app_attempt::RmAppAttemptState;
    use sparkyard_messages::records::ContainerState;

    const RM_WEB: &str = "http://rm:8088";

    fn app_id() -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1764662400000,
            id: 1,
        }
    }

    fn attempt(n: u32) -> ApplicationAttemptId {
        ApplicationAttemptId::new(app_id(), n)
    }

    fn submitted(rules: AppRules) -> RmApp {
        RmApp::submitted(app_id(), rules, RM_WEB.into(), 100)
    }

    /// TestRMAppTransitions' testCreateAppAccepted (maxAppAttempts 4, as the suite sets it).
    fn accepted(max_attempts: u32, interval: Option<u64>) -> RmApp {
        let mut app = submitted(AppRules::new(Some(max_attempts), 4, interval));
        app.accept();
        assert_eq!(app.state(), RmAppState::Accepted);
        app
    }

    fn am_container(n: u32) -> ContainerId {
        ContainerId::new(attempt(n), 1)
    }

    /// The current attempt's AM container is placed and started.
    fn launch_current(app: &mut RmApp) -> ApplicationAttemptId {
        let id = app.current_attempt_id().expect("an attempt");
        app.am_container_allocated(id, am_container(id.attempt_id));
        app.am_launched(id, 0);
        id
    }

    /// TestRMAppTransitions' testCreateAppRunning.
    fn register_current(app: &mut RmApp) -> ApplicationAttemptId {
        let id = launch_current(app);
        app.attempt_registered(id, "host", 8042, "oldtrackingurl")
            .unwrap();
        assert_eq!(app.state(), RmAppState::Running);
        assert_eq!(app.final_status(), Final::Undefined);
        id
    }

    /// The current attempt's AM container exits with `exit` at `now`.
    fn fail_current(app: &mut RmApp, exit: i32, diag: &str, now: u64) -> Vec<AppEffect> {
        let id = app.current_attempt_id().expect("an attempt");
        let status = ContainerStatus {
            container_id: am_container(id.attempt_id),
            state: ContainerState::Complete,
            exit_status: exit,
            diagnostics: diag.into(),
        };
        app.am_container_finished(id, &status, now)
    }

    fn changed(from: Yarn, to: Yarn) -> AppEffect {
        AppEffect::StateChanged { from, to }
    }

    // TestRMAppTransitions createNewTestApp / testAppStartState: a new application has no
    // finish time, no diagnostics, UNDEFINED final status, the RM's proxy as tracking URL and
    // no original one yet.
    #[test]
    fn a_submitted_app_starts_empty() {
        let app = submitted(AppRules::new(None, 2, None));
        assert_eq!(app.state(), RmAppState::Submitted);
        assert_eq!(app.yarn_state(), Yarn::Submitted);
        assert_eq!((app.start_time(), app.finish_time()), (100, 0));
        assert_eq!(app.diagnostics(), "");
        assert_eq!(app.final_status(), Final::Undefined);
        assert_eq!(app.current_attempt_id(), None);
        assert_eq!(
            app.tracking_url(),
            "http://rm:8088/proxy/application_1764662400000_0001/"
        );
        assert_eq!(app.original_tracking_url(), "N/A");
        assert_eq!((app.am_host(), app.am_rpc_port()), (None, -1));
    }

    // RMAppImpl's constructor: an individual maximum outside [1, global] means the global one.
    #[test]
    fn an_invalid_individual_maximum_means_the_global_one() {
        assert_eq!(AppRules::new(Some(1), 2, None).max_attempts, 1);
        assert_eq!(AppRules::new(Some(2), 2, None).max_attempts, 2);
        assert_eq!(AppRules::new(Some(3), 2, None).max_attempts, 2);
        assert_eq!(AppRules::new(Some(0), 2, None).max_attempts, 2);
        assert_eq!(AppRules::new(None, 2, None).max_attempts, 2);
    }

    // TestRMAppTransitions testAppSubmittedRejected: SUBMITTED => FAILED on APP_REJECTED with
    // the rejection text as diagnostics, FAILED final status and a finish time.
    #[test]
    fn a_rejected_app_fails_with_the_message() {
        let mut app = submitted(AppRules::new(None, 2, None));
        let effects = app.reject("app rejected".into(), 150);
        assert_eq!(effects, vec![changed(Yarn::Submitted, Yarn::Failed)]);
        assert_eq!(app.state(), RmAppState::Failed);
        assert_eq!(app.diagnostics(), "app rejected");
        assert_eq!(app.final_status(), Final::Failed);
        assert_eq!(app.finish_time(), 150);
        assert_eq!(app.current_attempt_id(), None);
        // A rejected application is not accepted afterwards.
        assert_eq!(app.accept(), vec![]);
    }

    // TestRMAppTransitions testCreateAppAccepted: SUBMITTED => ACCEPTED on APP_ACCEPTED starts
    // attempt 1 (StartAppAttemptTransition), SCHEDULED with the proxy URL.
    #[test]
    fn accepting_starts_the_first_attempt() {
        let mut app = submitted(AppRules::new(None, 2, None));
        let effects = app.accept();
        assert_eq!(
            effects,
            vec![
                changed(Yarn::Submitted, Yarn::Accepted),
                AppEffect::AttemptStarted(attempt(1)),
            ]
        );
        let a = app.current_attempt().unwrap();
        assert_eq!(a.state(), RmAppAttemptState::Scheduled);
        assert_eq!(
            a.tracking_url(),
            "http://rm:8088/proxy/application_1764662400000_0001/"
        );
    }

    // TestRMAppTransitions testAppSuccessPath (testCreateAppFinished): ACCEPTED => RUNNING on
    // ATTEMPT_REGISTERED, RUNNING => FINISHING on ATTEMPT_UNREGISTERED (reported FINISHED) with
    // the AM's status and diagnostics and a finish time, FINISHING => FINISHED when its
    // container exits.
    #[test]
    fn the_success_path() {
        let mut app = accepted(2, None);
        app.set_am_launch_diagnostics("waiting for AM".into());
        let id = launch_current(&mut app);
        assert_eq!(app.diagnostics(), AM_LAUNCHED_DIAGNOSTICS);
        // ApplicationMasterService.allocate: not before the AM registered, not for another
        // attempt.
        assert_eq!(
            app.check_allocate(id),
            Err(MasterServiceRefusal::AllocateBeforeRegistering)
        );
        assert_eq!(
            app.check_allocate(attempt(2)),
            Err(MasterServiceRefusal::NotFound)
        );
        let effects = app
            .attempt_registered(id, "host", 8042, "oldtrackingurl")
            .unwrap();
        assert_eq!(effects, vec![changed(Yarn::Accepted, Yarn::Running)]);
        assert_eq!(app.check_allocate(id), Ok(()));
        assert_eq!(app.diagnostics(), "");
        assert_eq!((app.am_host(), app.am_rpc_port()), (Some("host"), 8042));
        assert_eq!(app.original_tracking_url(), "oldtrackingurl");
        let effects = app
            .attempt_unregistered(id, Final::Succeeded, "some diagnostics", "", 300)
            .unwrap();
        assert_eq!(
            effects,
            vec![
                changed(Yarn::Running, Yarn::Finished),
                AppEffect::Unregistered {
                    attempt: id,
                    final_status: Final::Succeeded
                },
            ]
        );
        assert_eq!(app.state(), RmAppState::Finishing);
        assert_eq!(
            app.check_allocate(id),
            Err(MasterServiceRefusal::AllocateBeforeRegistering)
        );
        assert_eq!(app.yarn_state(), Yarn::Finished);
        assert_eq!(app.final_status(), Final::Succeeded);
        assert_eq!(app.diagnostics(), "some diagnostics");
        assert_eq!(app.finish_time(), 300);
        assert_eq!(app.original_tracking_url(), "N/A");
        // The report's FINISHED does not change when the AM exits: no state-change line.
        let effects = fail_current(&mut app, 0, "", 310);
        assert_eq!(effects, vec![AppEffect::AttemptFinished(id)]);
        assert_eq!(app.state(), RmAppState::Finished);
        assert_eq!(app.final_status(), Final::Succeeded);
        assert_eq!(app.finish_time(), 300);
    }

    // ApplicationMasterService.finishApplicationMaster: once the final state is stored a second
    // unregister changes nothing (`isAppFinalStateStored`).
    #[test]
    fn a_second_unregister_changes_nothing() {
        let mut app = accepted(2, None);
        let id = register_current(&mut app);
        app.attempt_unregistered(id, Final::Succeeded, "ok", "", 300)
            .unwrap();
        let again = app.attempt_unregistered(id, Final::Failed, "late", "", 400);
        assert_eq!(again, Ok(vec![]));
        assert_eq!(app.final_status(), Final::Succeeded);
        assert_eq!(app.diagnostics(), "ok");
    }

    // TestRMAppTransitions testAppAcceptedFailed: ACCEPTED => ACCEPTED on ATTEMPT_FAILED with a
    // new attempt while attempts remain (and, as RMAppImpl.handle logs only `oldState !=
    // getState()`, no state-change line); after the last, FAILED with `... Failing the
    // application.` naming the attempt's diagnostics.
    #[test]
    fn accepted_failures_retry_then_fail() {
        let max = 4;
        let mut app = accepted(max, None);
        for i in 1..max {
            launch_current(&mut app);
            let effects = fail_current(&mut app, 1, "", 200 + u64::from(i));
            assert_eq!(
                effects,
                vec![
                    AppEffect::AttemptFailed {
                        attempt: attempt(i),
                        exit_status: 1
                    },
                    AppEffect::FailedAttempts(FailedAttemptsLog::Count(i)),
                    // RMAppImpl.handle: no state-change line, the state stays ACCEPTED.
                    AppEffect::AttemptStarted(attempt(i + 1)),
                ]
            );
            assert_eq!(app.state(), RmAppState::Accepted);
            assert_eq!(app.current_attempt_id(), Some(attempt(i + 1)));
            assert_eq!(app.final_status(), Final::Undefined);
        }
        launch_current(&mut app);
        let effects = fail_current(&mut app, 1, "Test fail", 300);
        assert_eq!(
            effects,
            vec![
                AppEffect::AttemptFailed {
                    attempt: attempt(max),
                    exit_status: 1
                },
                AppEffect::FailedAttempts(FailedAttemptsLog::Count(max)),
                AppEffect::FailedFinally,
                changed(Yarn::Accepted, Yarn::Failed),
            ]
        );
        assert_eq!(app.state(), RmAppState::Failed);
        assert_eq!(app.final_status(), Final::Failed);
        assert_eq!(app.finish_time(), 300);
        let diag = app.diagnostics();
        assert!(diag.starts_with("Application application_1764662400000_0001 failed 4 times due to AM Container for appattempt_1764662400000_0001_000004"));
        assert!(diag.contains("Test fail"));
        assert!(diag.ends_with("Failing the application."));
    }

    // TestRMAppTransitions testAppRunningFailed: RUNNING => ACCEPTED on ATTEMPT_FAILED with a
    // new attempt (ids counting up), RUNNING again on its registration, and FAILED after the
    // last; the new attempt starts without the old AM's host and with the proxy URL again.
    #[test]
    fn running_failures_retry_then_fail() {
        let max = 4;
        let mut app = accepted(max, None);
        register_current(&mut app);
        for i in 1..max {
            let effects = fail_current(&mut app, 1, "", 200);
            assert!(effects.contains(&changed(Yarn::Running, Yarn::Accepted)));
            assert_eq!(app.state(), RmAppState::Accepted);
            assert_eq!(app.current_attempt_id(), Some(attempt(i + 1)));
            assert_eq!((app.am_host(), app.am_rpc_port()), (None, -1));
            assert_eq!(app.original_tracking_url(), "N/A");
            assert_eq!(
                app.tracking_url(),
                "http://rm:8088/proxy/application_1764662400000_0001/"
            );
            register_current(&mut app);
        }
        let effects = fail_current(&mut app, 1, "", 300);
        assert!(effects.contains(&changed(Yarn::Running, Yarn::Failed)));
        assert_eq!(app.state(), RmAppState::Failed);
        assert!(app.diagnostics().ends_with("Failing the application."));
        // The last attempt failed: the report points to the RM's application page.
        assert_eq!(
            app.tracking_url(),
            "http://rm:8088/cluster/app/application_1764662400000_0001"
        );
    }

    // ApplicationMasterService: an AM whose attempt has failed (its container lost with a
    // partitioned node, the AM still alive) is not known any more: allocate, register and
    // unregister are refused, and the failed application stays FAILED.
    #[test]
    fn a_failed_attempt_is_not_known_to_the_master_service() {
        let mut app = accepted(1, None);
        let id = register_current(&mut app);
        fail_current(&mut app, exit_status::ABORTED, "lost", 200);
        assert_eq!(app.state(), RmAppState::Failed);
        assert_eq!(
            app.master_service(id).err(),
            Some(MasterServiceRefusal::NotFound)
        );
        assert_eq!(
            app.attempt_registered(id, "host", 1, ""),
            Err(MasterServiceRefusal::NotInCache)
        );
        assert_eq!(
            app.attempt_unregistered(id, Final::Succeeded, "", "", 300),
            Ok(vec![])
        );
        assert_eq!(app.state(), RmAppState::Failed);
        assert_eq!(app.final_status(), Final::Failed);
    }

    // RMAppImpl.AttemptFailedTransition: "Max app attempts is 1 for <app>, preventing further
    // attempts." even for a preempted AM, and the application fails.
    #[test]
    fn a_maximum_of_one_fails_even_a_preempted_am() {
        let mut app = accepted(1, None);
        register_current(&mut app);
        let effects = fail_current(&mut app, exit_status::PREEMPTED, "preempted", 200);
        assert!(effects.contains(&AppEffect::FailedAttempts(FailedAttemptsLog::MaxIsOne)));
        assert_eq!(app.state(), RmAppState::Failed);
        // The app's own limit (1) differs from the RM's (4): both are named.
        assert!(app.diagnostics().starts_with(
            "Application application_1764662400000_0001 failed 1 times (global limit =4; local limit is =1) due to"
        ));
    }

    // TestAMRestart testShouldNotCountFailureToMaxAttemptRetry: preempted, lost-node, disk and
    // RM-killed AM exits do not use up the attempts; a counted failure after them does.
    #[test]
    fn uncounted_exits_keep_retrying() {
        let mut app = accepted(2, None);
        for exit in [
            exit_status::PREEMPTED,
            exit_status::ABORTED,
            exit_status::DISKS_FAILED,
            exit_status::KILLED_BY_RESOURCEMANAGER,
        ] {
            register_current(&mut app);
            let effects = fail_current(&mut app, exit, "", 200);
            assert!(effects.contains(&AppEffect::FailedAttempts(FailedAttemptsLog::Count(0))));
            assert_eq!(app.state(), RmAppState::Accepted);
        }
        assert_eq!(app.current_attempt_id(), Some(attempt(5)));
        register_current(&mut app);
        fail_current(&mut app, 137, "", 300);
        assert_eq!(app.state(), RmAppState::Accepted);
        register_current(&mut app);
        fail_current(&mut app, 137, "", 400);
        assert_eq!(app.state(), RmAppState::Failed);
    }

    // TestAMRestart testRMAppAttemptFailuresValidityInterval: with a validity interval only the
    // failures inside the window count, so failures far apart never exhaust the attempts; two
    // inside it do.
    #[test]
    fn the_validity_interval_forgets_old_failures() {
        let mut app = accepted(2, Some(10_000));
        register_current(&mut app);
        fail_current(&mut app, 1, "", 1_000);
        register_current(&mut app);
        let effects = fail_current(&mut app, 1, "", 20_000);
        assert!(effects.contains(&AppEffect::FailedAttempts(FailedAttemptsLog::Count(1))));
        assert_eq!(app.state(), RmAppState::Accepted);
        register_current(&mut app);
        fail_current(&mut app, 1, "", 25_000);
        assert_eq!(app.state(), RmAppState::Failed);
        assert!(app.diagnostics().starts_with(
            "Application application_1764662400000_0001 failed 2 times in previous 10000 milliseconds (global limit =4; local limit is =2) due to"
        ));
    }

    /// The attempt's KILL message as ClientRMService.forceKillApplication builds it.
    const KILL_MSG: &str = "Kill application application_1764662400000_0001 received from fooTestAppRunningKill (auth:SIMPLE) at 10.0.0.2";

    // TestRMAppTransitions testAppSubmittedKill: SUBMITTED => KILLED on KILL, with the kill's
    // message as the diagnostics (assertKilled), final status KILLED and a finish time.
    #[test]
    fn a_submitted_app_is_killed_at_once() {
        let mut app = submitted(AppRules::new(None, 2, None));
        let effects = app.kill(KILL_MSG, 150);
        assert_eq!(effects, vec![changed(Yarn::Submitted, Yarn::Killed)]);
        assert_eq!(app.state(), RmAppState::Killed);
        assert_eq!(app.final_status(), Final::Killed);
        assert_eq!(app.diagnostics(), KILL_MSG);
        assert_eq!(app.finish_time(), 150);
        assert_eq!(app.current_attempt_id(), None);
    }

    // TestRMAppTransitions testAppAcceptedKill: ACCEPTED => KILLING on KILL, the attempt
    // KILLED (KillAttemptTransition), then KILLED on ATTEMPT_KILLED (assertAppAndAttemptKilled).
    #[test]
    fn an_accepted_app_is_killed_with_its_attempt() {
        let mut app = accepted(2, None);
        let id = app.current_attempt_id().unwrap();
        let effects = app.kill(KILL_MSG, 200);
        assert_eq!(
            effects,
            vec![
                AppEffect::AttemptKilled {
                    attempt: id,
                    stop_am: false
                },
                changed(Yarn::Accepted, Yarn::Killed),
            ]
        );
        assert_eq!(app.yarn_state(), Yarn::Killed);
        assert_eq!(app.final_status(), Final::Killed);
        assert_eq!(app.diagnostics(), KILL_MSG);
        assert_eq!(
            app.current_attempt().map(RmAppAttempt::state),
            Some(RmAppAttemptState::Killed)
        );
    }

    // TestRMAppTransitions testAppRunningKill: RUNNING => KILLING => KILLED with the attempt
    // KILLED and its AM container stopped; the killed application's AM is refused by the
    // ApplicationMasterService and its late unregister changes nothing (isAppFinalStateStored).
    #[test]
    fn a_running_app_is_killed_with_its_attempt() {
        let mut app = accepted(2, None);
        let id = register_current(&mut app);
        let effects = app.kill(KILL_MSG, 300);
        assert_eq!(
            effects,
            vec![
                AppEffect::AttemptKilled {
                    attempt: id,
                    stop_am: true
                },
                changed(Yarn::Running, Yarn::Killed),
            ]
        );
        assert_eq!(app.finish_time(), 300);
        assert_eq!((app.am_host(), app.am_rpc_port()), (None, -1));
        assert_eq!(
            app.tracking_url(),
            "http://rm:8088/cluster/app/application_1764662400000_0001"
        );
        assert_eq!(app.check_allocate(id), Err(MasterServiceRefusal::NotFound));
        let late = app.attempt_unregistered(id, Final::Failed, "late", "", 310);
        assert_eq!(late, Ok(vec![]));
        assert_eq!(app.final_status(), Final::Killed);
        // The AM container's exit afterwards neither fails the attempt nor retries.
        assert_eq!(fail_current(&mut app, 143, "", 320), vec![]);
        assert_eq!(app.state(), RmAppState::Killed);
    }

    // TestRMAppTransitions testAppFinishingKill, testAppFinishedFinished, testAppFailedFailed
    // and testAppKilledKilled: KILL changes nothing once the final state is stored.
    #[test]
    fn kill_changes_nothing_once_the_final_state_is_stored() {
        let mut app = accepted(2, None);
        let id = register_current(&mut app);
        app.attempt_unregistered(id, Final::Succeeded, "ok", "", 300)
            .unwrap();
        assert_eq!(app.kill(KILL_MSG, 310), vec![]);
        assert_eq!(app.state(), RmAppState::Finishing);
        assert_eq!(app.final_status(), Final::Succeeded);
        assert_eq!(app.diagnostics(), "ok");
        let mut app = accepted(1, None);
        register_current(&mut app);
        fail_current(&mut app, 1, "", 200);
        assert_eq!(app.kill(KILL_MSG, 210), vec![]);
        assert_eq!(app.final_status(), Final::Failed);
        let mut app = accepted(2, None);
        app.kill(KILL_MSG, 100);
        assert_eq!(app.kill("again", 110), vec![]);
        assert_eq!((app.diagnostics(), app.finish_time()), (KILL_MSG, 100));
    }

    // TestRMAppTransitions testAppRunningFailed with the attempt's EXPIRE
    // (RMAppAttemptImpl.ExpiredTransition): the expired attempt FAILS with an INVALID exit
    // status, which counts, and the application retries, then fails naming the timeout.
    #[test]
    fn expired_attempts_count_and_retry_then_fail() {
        let mut app = accepted(2, None);
        let first = register_current(&mut app);
        assert_eq!(app.expired_attempt(600_000, 600_000), None);
        let effects = app.expire(first, 700);
        assert_eq!(
            effects,
            vec![
                AppEffect::AttemptFailed {
                    attempt: first,
                    exit_status: exit_status::INVALID
                },
                AppEffect::FailedAttempts(FailedAttemptsLog::Count(1)),
                changed(Yarn::Running, Yarn::Accepted),
                AppEffect::AttemptStarted(attempt(2)),
            ]
        );
        assert_eq!(
            app.diagnostics(),
            "ApplicationMaster for attempt appattempt_1764662400000_0001_000001 timed out"
        );
        // A second EXPIRE of the ended attempt is ignored.
        assert_eq!(app.expire(first, 710), vec![]);
        let second = register_current(&mut app);
        app.expire(second, 800);
        assert_eq!(app.state(), RmAppState::Failed);
        assert!(app.diagnostics().starts_with(
            "Application application_1764662400000_0001 failed 2 times (global limit =4; local limit is =2) due to ApplicationMaster for attempt appattempt_1764662400000_0001_000002 timed out"
        ));
    }

    // TestRMAppTransitions testAppAcceptedFailed with the attempt's LAUNCH_FAILED
    // (LaunchFailedTransition): the AMLauncher's text is the attempt's diagnostics; it counts.
    #[test]
    fn a_failed_am_launch_fails_the_attempt_and_retries() {
        let mut app = accepted(2, None);
        let id = app.current_attempt_id().unwrap();
        app.am_container_allocated(id, am_container(1));
        let effects = app.launch_failed(id, "Error launching x".into(), 50);
        assert!(effects.contains(&AppEffect::FailedAttempts(FailedAttemptsLog::Count(1))));
        assert_eq!(app.current_attempt_id(), Some(attempt(2)));
        assert_eq!(app.diagnostics(), "Error launching x");
        // Once launched, LAUNCH_FAILED is not the attempt's event any more.
        let id = launch_current(&mut app);
        assert_eq!(app.launch_failed(id, "late".into(), 60), vec![]);
    }

    // RMAppImpl.AttemptFailedTransition: two preemptions with max-attempts 2 leave the app
    // ACCEPTED for a third attempt; a SIGKILL after them is the first counted failure.
    #[test]
    fn two_preemptions_still_leave_both_attempts() {
        let failed = [(exit_status::PREEMPTED, 10), (exit_status::PREEMPTED, 20)];
        let n = num_failed_app_attempts(&failed, 30, None);
        assert_eq!(n, 0);
        assert_eq!(
            attempt_failed(n, 2),
            AttemptFailedDecision {
                log: FailedAttemptsLog::Count(0),
                retry: true
            }
        );
        let failed = [(exit_status::PREEMPTED, 10), (137, 20), (137, 30)];
        let n = num_failed_app_attempts(&failed, 30, None);
        assert_eq!((n, attempt_failed(n, 2).retry), (2, false));
    }

    // RMAppImpl.AttemptFailedTransition: with a maximum of 1 the decision never retries.
    #[test]
    fn a_maximum_of_one_never_retries() {
        let n = num_failed_app_attempts(&[(exit_status::PREEMPTED, 1)], 2, None);
        assert_eq!(
            attempt_failed(n, 1),
            AttemptFailedDecision {
                log: FailedAttemptsLog::MaxIsOne,
                retry: false
            }
        );
    }

    // RMAppImpl.getNumFailedAppAttempts: with attemptFailuresValidityInterval set, only failures
    // with finishTime > now - interval count.
    #[test]
    fn the_validity_interval_expires_old_failures() {
        let failed = [(137, 1_000), (137, 70_000)];
        assert_eq!(num_failed_app_attempts(&failed, 70_000, None), 2);
        assert_eq!(num_failed_app_attempts(&failed, 70_000, Some(60_000)), 1);
        // Exactly at the window's edge the failure no longer counts (strict >).
        assert_eq!(
            num_failed_app_attempts(&[(137, 10_000)], 70_000, Some(60_000)),
            0
        );
        assert_eq!(
            num_failed_app_attempts(&[(137, 10_001)], 70_000, Some(60_000)),
            1
        );
    }

    // RMAppImpl.getAppAttemptFailedDiagnostics: the app's maximum, the window, both limits.
    #[test]
    fn failed_app_diagnostics_text() {
        assert_eq!(
            app_attempt_failed_diagnostics(app_id(), 2, 2, None, "X"),
            "Application application_1764662400000_0001 failed 2 times due to X. Failing the application."
        );
        assert_eq!(
            app_attempt_failed_diagnostics(app_id(), 1, 2, Some(60_000), "X"),
            "Application application_1764662400000_0001 failed 1 times in previous 60000 milliseconds (global limit =2; local limit is =1) due to X. Failing the application."
        );
    }
}
