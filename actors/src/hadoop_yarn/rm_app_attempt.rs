//! One application attempt's lifecycle in the ResourceManager as a plain state machine (Hadoop
//! 3.4's `RMAppAttemptImpl`, RMAppAttemptImpl.java): SCHEDULED, ALLOCATED, LAUNCHED, RUNNING,
//! FINISHING, FINISHED, FAILED and KILLED; its AM's host, port and tracking URLs; the AM
//! container's exit and the text the RM shows for it; the KILL event (the application killed by
//! its user), the EXPIRE event (`AMLivelinessMonitor`: the AM's last allocate is older than the
//! expiry interval) with the AM's last ping; and whether the ApplicationMasterService still knows
//! the attempt. No actix, no clock: the RM passes times in and acts on what it gets back.
//!
//! The simulator has no state store and no unmanaged AM, so the saving states
//! (ALLOCATED_SAVING, FINAL_SAVING) are passed through at once.

use sparkyard_messages::ids::{ApplicationAttemptId, ContainerId};
use sparkyard_messages::records::{ContainerStatus, RpcFailure, exit_status};
use std::fmt;

/// Hadoop's `N/A` (`RMAppAttemptImpl`'s initial original tracking URL, `ApplicationReport`
/// defaults).
pub const NOT_AVAILABLE: &str = "N/A";

/// `RMAppAttemptState`, as far as the simulator reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmAppAttemptState {
    /// Added to the scheduler, waiting for its AM container (NEW and SUBMITTED pass at once:
    /// START and ATTEMPT_ADDED come in the same call).
    Scheduled,
    /// The AM container is placed; the AMLauncher starts it.
    Allocated,
    /// The NodeManager started the AM container.
    Launched,
    /// The AM registered.
    Running,
    /// The AM unregistered; its container has not exited yet.
    Finishing,
    Finished,
    Failed,
    /// KILL (the application was killed): `BaseFinalTransition(KILLED)`.
    Killed,
}

impl RmAppAttemptState {
    /// Past `BaseFinalTransition`: the ApplicationMasterService has unregistered the attempt.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Finished | Self::Failed | Self::Killed)
    }
}

impl fmt::Display for RmAppAttemptState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Scheduled => "SCHEDULED",
            Self::Allocated => "ALLOCATED",
            Self::Launched => "LAUNCHED",
            Self::Running => "RUNNING",
            Self::Finishing => "FINISHING",
            Self::Finished => "FINISHED",
            Self::Failed => "FAILED",
            Self::Killed => "KILLED",
        })
    }
}

/// Why the ApplicationMasterService refuses an AM's call for an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MasterServiceRefusal {
    /// `allocate` for an attempt that is not the application's current one, or has ended
    /// (`responseMap` no longer holds it: `unregisterAttempt` in `BaseFinalTransition`).
    NotFound,
    /// The same for `registerApplicationMaster` and `finishApplicationMaster`
    /// (`throwApplicationDoesNotExistInCacheException`).
    NotInCache,
    /// `allocate` before `registerApplicationMaster`, or after `finishApplicationMaster`.
    AllocateBeforeRegistering,
    /// `finishApplicationMaster` before `registerApplicationMaster`.
    UnregisterBeforeRegistering,
    /// A second `registerApplicationMaster` (`AMRMClientUtils.APP_ALREADY_REGISTERED_MESSAGE`).
    AlreadyRegistered,
}

impl MasterServiceRefusal {
    /// The exception the AM gets (ApplicationMasterService.java).
    pub fn failure(self, attempt: ApplicationAttemptId) -> RpcFailure {
        const EXCEPTIONS: &str = "org.apache.hadoop.yarn.exceptions";
        let app = attempt.application_id;
        let (class, message) = match self {
            Self::NotFound => (
                "ApplicationAttemptNotFoundException",
                format!(
                    "Application attempt {attempt} doesn't exist in ApplicationMasterService cache."
                ),
            ),
            Self::NotInCache => (
                "InvalidApplicationMasterRequestException",
                format!("Application doesn't exist in cache {attempt}"),
            ),
            Self::AllocateBeforeRegistering => (
                "ApplicationMasterNotRegisteredException",
                format!(
                    "Application Master is trying to allocate before registering for: {attempt}"
                ),
            ),
            Self::UnregisterBeforeRegistering => (
                "ApplicationMasterNotRegisteredException",
                format!("Application Master is trying to unregister before registering for: {app}"),
            ),
            Self::AlreadyRegistered => (
                "InvalidApplicationMasterRequestException",
                format!("Application Master is already registered : {app}"),
            ),
        };
        RpcFailure::new(&format!("{EXCEPTIONS}.{class}"), message)
    }
}

/// How the AM container's exit ended the attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AmContainerExit {
    /// FINISHING -> FINISHED: the AM had unregistered (`FinalTransition` on
    /// AM_CONTAINER_FINISHED in FINISHING).
    Finished,
    /// -> FAILED (`AMContainerCrashedBeforeRunningTransition` /
    /// `ContainerFinishedTransition`): `Updating application attempt <id> with final state:
    /// FAILED, and exit status: <n>`, and the diagnostics the application gets.
    Failed {
        exit_status: i32,
        diagnostics: String,
    },
    /// The attempt had already ended (FINISHED, FAILED or KILLED): the event is ignored.
    Ignored,
}

/// What KILL did to the attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptKill {
    /// -> KILLED. `stop_am`: the AMLauncher's CLEANUP stops the AM container
    /// (`KillAllocatedAMTransition` in ALLOCATED, `FinalTransition` in LAUNCHED and RUNNING);
    /// a SCHEDULED attempt has none (`BaseFinalTransition`).
    Killed { stop_am: bool },
    /// FINISHING (its final state is stored already) or ended: KILL is ignored.
    Ignored,
}

/// One attempt (`RMAppAttemptImpl`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RmAppAttempt {
    id: ApplicationAttemptId,
    state: RmAppAttemptState,
    am_container: Option<ContainerId>,
    /// The AM's host and RPC port once it registered; `None` and -1 before and after it failed
    /// (`invalidateAMHostAndPort`).
    host: Option<String>,
    rpc_port: i32,
    /// `proxiedTrackingUrl`: the RM's proxy, or the RM's application page once it failed.
    tracking_url: String,
    /// `originalTrackingUrl`: `N/A` until the AM names one.
    original_tracking_url: String,
    /// The AM container's exit status once it completed (`getAMContainerExitStatus`).
    am_exit_status: Option<i32>,
    /// When the attempt failed (epoch ms, `getFinishTime`); 0 while it has not.
    finish_time: u64,
    /// `AMLivelinessMonitor`'s last ping (virtual ms): set when the AM container is launched,
    /// renewed by each register and allocate call; `None` while not monitored.
    last_ping_ms: Option<u64>,
}

impl RmAppAttempt {
    /// A new attempt, SCHEDULED (`RMAppAttemptImpl`'s constructor sets the proxy URL and
    /// `N/A`; START and ATTEMPT_ADDED follow in the same call here).
    pub fn scheduled(id: ApplicationAttemptId, proxy_url: String) -> Self {
        RmAppAttempt {
            id,
            state: RmAppAttemptState::Scheduled,
            am_container: None,
            host: None,
            rpc_port: -1,
            tracking_url: proxy_url,
            original_tracking_url: NOT_AVAILABLE.to_string(),
            am_exit_status: None,
            finish_time: 0,
            last_ping_ms: None,
        }
    }

    pub fn id(&self) -> ApplicationAttemptId {
        self.id
    }

    pub fn state(&self) -> RmAppAttemptState {
        self.state
    }

    pub fn host(&self) -> Option<&str> {
        self.host.as_deref()
    }

    pub fn rpc_port(&self) -> i32 {
        self.rpc_port
    }

    pub fn tracking_url(&self) -> &str {
        &self.tracking_url
    }

    pub fn original_tracking_url(&self) -> &str {
        &self.original_tracking_url
    }

    /// `(AM exit status, finish time)` once the AM container failed, what
    /// `RMAppImpl.getNumFailedAppAttempts` counts.
    pub fn failure(&self) -> Option<(i32, u64)> {
        self.am_exit_status.map(|s| (s, self.finish_time))
    }

    pub fn is_am_container(&self, id: ContainerId) -> bool {
        self.am_container == Some(id)
    }

    /// Whether completed containers are still reported to the AM: not after it unregistered
    /// (`FINISHING`'s `ContainerFinishedAtFinishingTransition` keeps them off the AM's lists)
    /// nor once the attempt has ended.
    pub fn reports_completed_containers(&self) -> bool {
        !matches!(
            self.state,
            RmAppAttemptState::Finishing
                | RmAppAttemptState::Finished
                | RmAppAttemptState::Failed
                | RmAppAttemptState::Killed
        )
    }

    /// `allocate`'s check: the AM registered and has not unregistered.
    pub fn check_allocate(&self) -> Result<(), MasterServiceRefusal> {
        match self.state {
            RmAppAttemptState::Running => Ok(()),
            s if s.is_final() => Err(MasterServiceRefusal::NotFound),
            _ => Err(MasterServiceRefusal::AllocateBeforeRegistering),
        }
    }

    /// CONTAINER_ALLOCATED (SCHEDULED -> ALLOCATED, `AMContainerAllocatedTransition`).
    pub fn am_container_allocated(&mut self, container: ContainerId) {
        if self.state == RmAppAttemptState::Scheduled {
            self.am_container = Some(container);
            self.state = RmAppAttemptState::Allocated;
        }
    }

    /// LAUNCHED (ALLOCATED -> LAUNCHED, `AMLaunchedTransition`): the `AMLivelinessMonitor`
    /// watches the attempt from now on (`attemptLaunched`). The AMLauncher's answer is a message
    /// of its own here, so the AM may already have registered: then it stays RUNNING.
    pub fn launched(&mut self, now_ms: u64) {
        match self.state {
            RmAppAttemptState::Allocated => self.state = RmAppAttemptState::Launched,
            RmAppAttemptState::Running => {}
            _ => return,
        }
        self.last_ping_ms.get_or_insert(now_ms);
    }

    /// `AMLivelinessMonitor.receivedPing` (ApplicationMasterService's register and allocate):
    /// one store, nothing allocated, as it runs on every AM heartbeat.
    #[inline]
    pub fn ping(&mut self, now_ms: u64) {
        if self.last_ping_ms.is_some() {
            self.last_ping_ms = Some(now_ms);
        }
    }

    /// `AbstractLivelinessMonitor.PingChecker`: monitored and silent for longer than
    /// `expiry_ms` (`currentTime > lastPing + expireInterval`).
    pub fn liveness_expired(&self, now_ms: u64, expiry_ms: u64) -> bool {
        self.last_ping_ms
            .is_some_and(|last| now_ms > last.saturating_add(expiry_ms))
    }

    /// KILL (`RMAppImpl.KillAttemptTransition` forwards the application's kill): any state
    /// before FINISHING -> KILLED (`BaseFinalTransition(KILLED)`: the AM's host and port
    /// invalidated, `rememberTargetTransitionsAndStoreState`'s `setTrackingUrlToRMAppPage`), no
    /// longer watched by the liveness monitor; FINISHING and the ended states ignore it.
    pub fn kill(&mut self, rm_web: &str) -> AttemptKill {
        let stop_am = match self.state {
            RmAppAttemptState::Scheduled => false,
            RmAppAttemptState::Allocated
            | RmAppAttemptState::Launched
            | RmAppAttemptState::Running => true,
            _ => return AttemptKill::Ignored,
        };
        self.end(RmAppAttemptState::Killed, rm_web);
        AttemptKill::Killed { stop_am }
    }

    /// EXPIRE from the `AMLivelinessMonitor` in LAUNCHED or RUNNING (`ExpiredTransition`):
    /// FAILED with `ApplicationMaster for attempt <id> timed out`; the AM container's exit status
    /// stays INVALID, so the failure counts toward the maximum of attempts. `None` in any other
    /// state (FINISHING is watched by the AMFinishingMonitor, not modelled).
    pub fn expire(&mut self, rm_web: &str, now: u64) -> Option<String> {
        if !matches!(
            self.state,
            RmAppAttemptState::Launched | RmAppAttemptState::Running
        ) {
            return None;
        }
        self.fail(exit_status::INVALID, rm_web, now);
        Some(am_expired_diagnostics(self.id))
    }

    /// LAUNCH_FAILED in ALLOCATED (`LaunchFailedTransition`): the AMLauncher could not start the
    /// AM container; FAILED with the launcher's text (`onAMLaunchFailed`) and an INVALID exit
    /// status, which counts. `None` in any other state (FINAL_SAVING, KILLED ignore it).
    pub fn launch_failed(&mut self, rm_web: &str, now: u64) -> bool {
        if self.state != RmAppAttemptState::Allocated {
            return false;
        }
        self.fail(exit_status::INVALID, rm_web, now);
        true
    }

    /// FAILED at `now` with the AM container's `exit_status` (`getAMContainerExitStatus`, what
    /// `shouldCountTowardsMaxAttemptRetry` reads).
    fn fail(&mut self, exit_status: i32, rm_web: &str, now: u64) {
        self.am_exit_status = Some(exit_status);
        self.finish_time = now;
        self.end(RmAppAttemptState::Failed, rm_web);
    }

    /// `BaseFinalTransition` to `state`: the AM's host and port invalidated, both tracking URLs
    /// the RM's application page (`setTrackingUrlToRMAppPage`), the liveness monitor lets go.
    fn end(&mut self, state: RmAppAttemptState, rm_web: &str) {
        let app_page = format!("{rm_web}/cluster/app/{}", self.id.application_id);
        self.host = None;
        self.rpc_port = -1;
        self.tracking_url = app_page.clone();
        self.original_tracking_url = app_page;
        self.last_ping_ms = None;
        self.state = state;
    }

    /// REGISTERED (LAUNCHED -> RUNNING, `AMRegisteredTransition`): the AM's host, port and
    /// tracking URL (`sanitizeTrackingUrl`); the proxied URL stays the RM's proxy. An earlier
    /// state is accepted too: the AMLauncher's answer is a message of its own here and may
    /// still be on its way (the ApplicationMasterService knows the attempt from SCHEDULED on).
    pub fn register(
        &mut self,
        host: &str,
        rpc_port: i32,
        tracking_url: &str,
    ) -> Result<(), MasterServiceRefusal> {
        match self.state {
            RmAppAttemptState::Scheduled
            | RmAppAttemptState::Allocated
            | RmAppAttemptState::Launched => {}
            s if s.is_final() => return Err(MasterServiceRefusal::NotInCache),
            _ => return Err(MasterServiceRefusal::AlreadyRegistered),
        }
        self.host = Some(host.to_string());
        self.rpc_port = rpc_port;
        self.original_tracking_url = sanitize_tracking_url(tracking_url);
        self.state = RmAppAttemptState::Running;
        Ok(())
    }

    /// UNREGISTERED (RUNNING -> FINISHING, `AMUnregisteredTransition`): the AM's final tracking
    /// URL (`updateInfoOnAMUnregister`; Hadoop 3.x keeps the proxied one).
    pub fn unregister(&mut self, tracking_url: &str) -> Result<(), MasterServiceRefusal> {
        match self.state {
            RmAppAttemptState::Running => {}
            s if s.is_final() => return Err(MasterServiceRefusal::NotInCache),
            _ => return Err(MasterServiceRefusal::UnregisterBeforeRegistering),
        }
        self.original_tracking_url = sanitize_tracking_url(tracking_url);
        // AMUnregisteredTransition: the AMFinishingMonitor (not modelled) takes over from the
        // liveness monitor.
        self.last_ping_ms = None;
        self.state = RmAppAttemptState::Finishing;
        Ok(())
    }

    /// CONTAINER_FINISHED for the AM container: FINISHING -> FINISHED, any earlier state ->
    /// FAILED with the crash diagnostics, both tracking URLs the RM's application page
    /// (`setTrackingUrlToRMAppPage`) and the AM's host and port invalidated.
    pub fn am_container_finished(
        &mut self,
        status: &ContainerStatus,
        rm_web: &str,
        now: u64,
    ) -> AmContainerExit {
        match self.state {
            RmAppAttemptState::Finishing => {
                self.state = RmAppAttemptState::Finished;
                return AmContainerExit::Finished;
            }
            s if s.is_final() => return AmContainerExit::Ignored,
            _ => {}
        }
        let app = self.id.application_id;
        let app_page = format!("{rm_web}/cluster/app/{app}");
        let diagnostics = am_crashed_diagnostics(&app_page, self.id, status);
        self.fail(status.exit_status, rm_web, now);
        AmContainerExit::Failed {
            exit_status: status.exit_status,
            diagnostics,
        }
    }
}

/// `RMAppAttemptImpl.sanitizeTrackingUrl`: a null or blank URL is `N/A`.
pub fn sanitize_tracking_url(url: &str) -> String {
    if url.trim().is_empty() {
        NOT_AVAILABLE.to_string()
    } else {
        url.to_string()
    }
}

/// `RMAppAttemptImpl.getAMContainerCrashedDiagnostics`, as sparkyard has always shown it (note
/// YARN's double space in `with  exitCode`).
fn am_crashed_diagnostics(
    app_page: &str,
    attempt: ApplicationAttemptId,
    status: &ContainerStatus,
) -> String {
    format!(
        "AM Container for {attempt} exited with  exitCode: {}\nFailing this attempt.Diagnostics: {}\nFor more detailed output, check the application tracking page: {app_page} Then click on links to logs of each attempt.\n",
        status.exit_status, status.diagnostics
    )
}

/// `RMAppAttemptImpl.getAMExpiredDiagnostics` (Hadoop 3.4).
pub fn am_expired_diagnostics(attempt: ApplicationAttemptId) -> String {
    format!("ApplicationMaster for attempt {attempt} timed out")
}

/// `AMLauncher.onAMLaunchFailed` (Hadoop 3.4): the LAUNCH_FAILED event's text, with the
/// exception `StringUtils.stringifyException` prints (its class and message; the simulator has
/// no stack frames).
pub fn am_launch_failed_diagnostics(attempt: ApplicationAttemptId, exception: &str) -> String {
    format!("Error launching {attempt}. Got exception: {exception}")
}

/// `RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry` (Hadoop 3.4, RMAppAttemptImpl.java): an
/// AM container that was preempted, lost with its node (ABORTED), lost its disks, or was killed
/// by the RM does not use up an attempt.
pub fn should_count_towards_max_attempt_retry(am_exit_status: i32) -> bool {
    !matches!(
        am_exit_status,
        exit_status::PREEMPTED
            | exit_status::ABORTED
            | exit_status::DISKS_FAILED
            | exit_status::KILLED_BY_RESOURCEMANAGER
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::ApplicationId;
    use sparkyard_messages::records::ContainerState;

    const RM_WEB: &str = "http://rm:8088";

    fn attempt_id() -> ApplicationAttemptId {
        let app = ApplicationId {
            cluster_timestamp: 1764662400000,
            id: 1,
        };
        ApplicationAttemptId::new(app, 1)
    }

    fn am_container() -> ContainerId {
        ContainerId::new(attempt_id(), 1)
    }

    fn exited(container: ContainerId, exit_status: i32, diagnostics: &str) -> ContainerStatus {
        ContainerStatus {
            container_id: container,
            state: ContainerState::Complete,
            exit_status,
            diagnostics: diagnostics.into(),
        }
    }

    fn scheduled() -> RmAppAttempt {
        let proxy = format!("{RM_WEB}/proxy/{}/", attempt_id().application_id);
        RmAppAttempt::scheduled(attempt_id(), proxy)
    }

    /// TestRMAppAttemptTransitions' allocateApplicationAttempt + launchApplicationAttempt +
    /// runApplicationAttempt("host", 8042, url).
    fn running(url: &str) -> RmAppAttempt {
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        assert_eq!(a.state(), RmAppAttemptState::Allocated);
        a.launched(0);
        assert_eq!(a.state(), RmAppAttemptState::Launched);
        a.register("host", 8042, url).unwrap();
        assert_eq!(a.state(), RmAppAttemptState::Running);
        a
    }

    fn app_page() -> String {
        format!("{RM_WEB}/cluster/app/{}", attempt_id().application_id)
    }

    // RMAppAttemptImpl.sanitizeTrackingUrl: `(url == null || url.trim().isEmpty()) ? "N/A" :
    // url` (Spark's AM unregisters with "" when spark.yarn.historyServer.address is unset).
    #[test]
    fn blank_tracking_urls_are_not_available() {
        assert_eq!(sanitize_tracking_url(""), "N/A");
        assert_eq!(sanitize_tracking_url("  "), "N/A");
        assert_eq!(
            sanitize_tracking_url("h:18080/history/a/1"),
            "h:18080/history/a/1"
        );
    }

    // TestRMAppAttemptTransitions testNoTrackingUrl / testManagedAMWithEmptyTrackingUrl: an AM
    // registering without a tracking URL leaves `N/A`; the proxied URL stays the RM's proxy.
    #[test]
    fn an_am_without_tracking_url_registers_with_not_available() {
        let a = running("");
        assert_eq!(a.original_tracking_url(), "N/A");
        assert_eq!(
            a.tracking_url(),
            "http://rm:8088/proxy/application_1764662400000_0001/"
        );
        assert_eq!((a.host(), a.rpc_port()), (Some("host"), 8042));
    }

    // TestRMAppAttemptTransitions testUnregisterToSuccessfulFinishing and
    // testSuccessfulFinishingToFinished: RUNNING -> FINISHING on unregister with the AM's final
    // URL, FINISHING -> FINISHED when the AM container exits.
    #[test]
    fn unregister_then_am_exit_finishes() {
        let mut a = running("oldtrackingurl");
        a.unregister("mytrackingurl").unwrap();
        assert_eq!(a.state(), RmAppAttemptState::Finishing);
        assert_eq!(a.original_tracking_url(), "mytrackingurl");
        assert!(!a.reports_completed_containers());
        let exit = a.am_container_finished(&exited(am_container(), 0, ""), RM_WEB, 5);
        assert_eq!(exit, AmContainerExit::Finished);
        assert_eq!(a.state(), RmAppAttemptState::Finished);
        // A finished attempt does not fail afterwards, nor count as a failure.
        let again = a.am_container_finished(&exited(am_container(), 1, ""), RM_WEB, 6);
        assert_eq!(again, AmContainerExit::Ignored);
        assert_eq!(a.failure(), None);
    }

    // TestRMAppAttemptTransitions testFinishingToFinishing: only the AM container moves a
    // FINISHING attempt on; another container of the attempt is not it.
    #[test]
    fn only_the_am_container_finishes_the_attempt() {
        let mut a = running("oldtrackingurl");
        a.unregister("mytrackingurl").unwrap();
        assert!(a.is_am_container(am_container()));
        assert!(!a.is_am_container(ContainerId::new(attempt_id(), 42)));
        assert_eq!(a.state(), RmAppAttemptState::Finishing);
    }

    // TestRMAppAttemptTransitions testAMCrashAtAllocated
    // (verifyAMCrashAtAllocatedDiagnosticInfo): the diagnostics point to the logs and name the
    // attempt, the exit code and the tracking page.
    #[test]
    fn am_crash_at_allocated_fails_with_diagnostics() {
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        let exit = a.am_container_finished(&exited(am_container(), 123, "some error"), RM_WEB, 7);
        let AmContainerExit::Failed {
            exit_status,
            diagnostics,
        } = exit
        else {
            panic!("expected a failure, got {exit:?}");
        };
        assert_eq!(exit_status, 123);
        assert_eq!(a.state(), RmAppAttemptState::Failed);
        assert!(diagnostics.contains("logs"));
        assert!(diagnostics.contains(&attempt_id().to_string()));
        assert!(diagnostics.contains("exitCode: 123"));
        assert!(diagnostics.contains(a.tracking_url()));
        assert_eq!(
            diagnostics,
            "AM Container for appattempt_1764662400000_0001_000001 exited with  exitCode: 123\nFailing this attempt.Diagnostics: some error\nFor more detailed output, check the application tracking page: http://rm:8088/cluster/app/application_1764662400000_0001 Then click on links to logs of each attempt.\n"
        );
        assert_eq!(a.failure(), Some((123, 7)));
    }

    // TestRMAppAttemptTransitions testRunningToFailed: both tracking URLs become the RM's
    // application page, the AM's host and port are invalidated, and a later container-finished
    // event is ignored.
    #[test]
    fn running_to_failed_points_to_the_app_page() {
        let mut a = running("oldtrackingurl");
        a.am_container_finished(&exited(am_container(), 123, "some error"), RM_WEB, 9);
        assert_eq!(a.state(), RmAppAttemptState::Failed);
        assert_eq!(a.original_tracking_url(), app_page());
        assert_eq!(a.tracking_url(), app_page());
        assert_eq!((a.host(), a.rpc_port()), (None, -1));
        let later = a.am_container_finished(&exited(am_container(), 0, ""), RM_WEB, 10);
        assert_eq!(later, AmContainerExit::Ignored);
        assert_eq!(a.failure(), Some((123, 9)));
    }

    // ApplicationMasterService.allocate / registerApplicationMaster / finishApplicationMaster:
    // allocate only while registered, no second registration, no unregistering before
    // registering, and nothing once the attempt has ended (`unregisterAttempt`).
    #[test]
    fn the_master_service_refuses_out_of_order_calls() {
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        assert_eq!(
            a.check_allocate(),
            Err(MasterServiceRefusal::AllocateBeforeRegistering)
        );
        assert_eq!(
            a.unregister("u"),
            Err(MasterServiceRefusal::UnregisterBeforeRegistering)
        );
        a.register("host", 1, "").unwrap();
        assert_eq!(a.check_allocate(), Ok(()));
        assert_eq!(
            a.register("host", 1, ""),
            Err(MasterServiceRefusal::AlreadyRegistered)
        );
        a.am_container_finished(&exited(am_container(), 1, ""), RM_WEB, 1);
        assert_eq!(a.check_allocate(), Err(MasterServiceRefusal::NotFound));
        assert_eq!(a.unregister("u"), Err(MasterServiceRefusal::NotInCache));
        assert_eq!(
            a.register("host", 1, ""),
            Err(MasterServiceRefusal::NotInCache)
        );
    }

    // ApplicationMasterService's exception texts (allocate, throwApplicationDoesNotExistIn
    // CacheException, finishApplicationMaster, AMRMClientUtils.APP_ALREADY_REGISTERED_MESSAGE).
    #[test]
    fn master_service_refusal_texts() {
        let f = MasterServiceRefusal::NotFound.failure(attempt_id());
        assert_eq!(
            f.class,
            "org.apache.hadoop.yarn.exceptions.ApplicationAttemptNotFoundException"
        );
        assert_eq!(
            f.message,
            "Application attempt appattempt_1764662400000_0001_000001 doesn't exist in ApplicationMasterService cache."
        );
        let f = MasterServiceRefusal::NotInCache.failure(attempt_id());
        assert_eq!(
            f.class,
            "org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException"
        );
        assert_eq!(
            f.message,
            "Application doesn't exist in cache appattempt_1764662400000_0001_000001"
        );
        let f = MasterServiceRefusal::UnregisterBeforeRegistering.failure(attempt_id());
        assert_eq!(
            f.message,
            "Application Master is trying to unregister before registering for: application_1764662400000_0001"
        );
        let f = MasterServiceRefusal::AlreadyRegistered.failure(attempt_id());
        assert_eq!(
            f.class,
            "org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException"
        );
        assert_eq!(
            f.message,
            "Application Master is already registered : application_1764662400000_0001"
        );
    }

    // The AMLauncher's answer may come after the AM registered: the attempt stays RUNNING.
    #[test]
    fn a_late_launch_answer_keeps_the_attempt_running() {
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        a.register("host", 1, "").unwrap();
        a.launched(0);
        assert_eq!(a.state(), RmAppAttemptState::Running);
    }

    // TestRMAppAttemptTransitions testScheduledToKilled, testAllocatedToKilled and
    // testRunningToKilled (and LAUNCHED's FinalTransition(KILLED)): KILL before FINISHING ends
    // the attempt KILLED with the AM's host and port invalidated, the tracking URLs the RM's
    // application page, and the AM container stopped by the AMLauncher once one was allocated.
    #[test]
    fn kill_before_finishing_kills_the_attempt() {
        let mut a = scheduled();
        assert_eq!(a.kill(RM_WEB), AttemptKill::Killed { stop_am: false });
        assert_eq!(a.state(), RmAppAttemptState::Killed);
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        assert_eq!(a.kill(RM_WEB), AttemptKill::Killed { stop_am: true });
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        a.launched(0);
        assert_eq!(a.kill(RM_WEB), AttemptKill::Killed { stop_am: true });
        let mut a = running("oldtrackingurl");
        assert_eq!(a.kill(RM_WEB), AttemptKill::Killed { stop_am: true });
        assert_eq!(a.state(), RmAppAttemptState::Killed);
        assert_eq!((a.host(), a.rpc_port()), (None, -1));
        assert_eq!(a.tracking_url(), app_page());
        assert_eq!(a.original_tracking_url(), app_page());
        // Killed, not failed: it is not a failed attempt, and the AMS no longer knows it.
        assert_eq!(a.failure(), None);
        assert_eq!(a.check_allocate(), Err(MasterServiceRefusal::NotFound));
        assert!(!a.reports_completed_containers());
        // KILLED ignores the AM container's exit and a second KILL.
        let exit = a.am_container_finished(&exited(am_container(), 143, ""), RM_WEB, 5);
        assert_eq!(exit, AmContainerExit::Ignored);
        assert_eq!(a.kill(RM_WEB), AttemptKill::Ignored);
    }

    // TestRMAppAttemptTransitions testFinishingKill: KILL in FINISHING is ignored (the final
    // FINISHED state is stored), and FAILED ignores it too.
    #[test]
    fn kill_is_ignored_once_finishing_or_ended() {
        let mut a = running("oldtrackingurl");
        a.unregister("mytrackingurl").unwrap();
        assert_eq!(a.kill(RM_WEB), AttemptKill::Ignored);
        assert_eq!(a.state(), RmAppAttemptState::Finishing);
        assert_eq!(a.original_tracking_url(), "mytrackingurl");
        let mut a = running("u");
        a.am_container_finished(&exited(am_container(), 1, ""), RM_WEB, 1);
        assert_eq!(a.kill(RM_WEB), AttemptKill::Ignored);
        assert_eq!(a.state(), RmAppAttemptState::Failed);
    }

    // TestRMAppAttemptTransitions testLaunchedExpire and testRunningExpire: EXPIRE in LAUNCHED
    // or RUNNING fails the attempt with `ApplicationMaster for attempt <id> timed out`, the
    // tracking URLs point to the RM's application page, and the INVALID exit status counts.
    #[test]
    fn expire_in_launched_or_running_fails_the_attempt() {
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        a.launched(0);
        let diag = a.expire(RM_WEB, 700);
        assert_eq!(
            diag.as_deref(),
            Some("ApplicationMaster for attempt appattempt_1764662400000_0001_000001 timed out")
        );
        assert_eq!(a.state(), RmAppAttemptState::Failed);
        assert_eq!(a.failure(), Some((exit_status::INVALID, 700)));
        assert!(should_count_towards_max_attempt_retry(exit_status::INVALID));
        let mut a = running("oldtrackingurl");
        assert!(a.expire(RM_WEB, 800).is_some());
        assert_eq!(a.tracking_url(), app_page());
        assert_eq!(a.original_tracking_url(), app_page());
        assert_eq!((a.host(), a.rpc_port()), (None, -1));
        // FAILED ignores EXPIRE; a SCHEDULED attempt is not watched yet.
        assert_eq!(a.expire(RM_WEB, 900), None);
        assert_eq!(scheduled().expire(RM_WEB, 900), None);
    }

    // AbstractLivelinessMonitor: watched from AMLaunchedTransition's attemptLaunched on,
    // expired when `currentTime > lastPing + expireInterval`; every ping (register, allocate)
    // renews it; an unregistered or ended attempt is no longer watched.
    #[test]
    fn the_liveness_monitor_expires_a_silent_am_only() {
        let mut a = scheduled();
        a.ping(5);
        assert!(!a.liveness_expired(u64::MAX, 10));
        a.am_container_allocated(am_container());
        a.launched(1_000);
        assert!(!a.liveness_expired(601_000, 600_000));
        assert!(a.liveness_expired(601_001, 600_000));
        a.register("host", 1, "").unwrap();
        a.ping(500_000);
        assert!(!a.liveness_expired(1_100_000, 600_000));
        assert!(a.liveness_expired(1_100_001, 600_000));
        a.unregister("").unwrap();
        assert!(!a.liveness_expired(u64::MAX, 600_000));
        // An AM that registered before the launcher's answer is watched from that answer.
        let mut a = scheduled();
        a.am_container_allocated(am_container());
        a.register("host", 1, "").unwrap();
        a.launched(2_000);
        assert_eq!(a.state(), RmAppAttemptState::Running);
        assert!(a.liveness_expired(602_001, 600_000));
    }

    // TestRMAppAttemptTransitions testAllocatedToFailed (LAUNCH_FAILED in ALLOCATED,
    // LaunchFailedTransition): the attempt FAILS; LAUNCH_FAILED in any other state is ignored.
    // AMLauncher.onAMLaunchFailed's text names the attempt and the exception.
    #[test]
    fn launch_failed_in_allocated_fails_the_attempt() {
        let mut a = scheduled();
        assert!(!a.launch_failed(RM_WEB, 1));
        a.am_container_allocated(am_container());
        assert!(a.launch_failed(RM_WEB, 2));
        assert_eq!(a.state(), RmAppAttemptState::Failed);
        assert_eq!(a.failure(), Some((exit_status::INVALID, 2)));
        assert_eq!(a.tracking_url(), app_page());
        assert!(!a.launch_failed(RM_WEB, 3));
        assert_eq!(
            am_launch_failed_diagnostics(attempt_id(), "java.io.IOException: boom"),
            "Error launching appattempt_1764662400000_0001_000001. Got exception: java.io.IOException: boom"
        );
    }

    // Hadoop 3.4 RMAppAttemptImpl.shouldCountTowardsMaxAttemptRetry; TestAMRestart
    // testShouldNotCountFailureToMaxAttemptRetry: preempted (-102), lost-node ABORTED (-100),
    // DISKS_FAILED (-101) and KILLED_BY_RESOURCEMANAGER (-106) do not use up an attempt.
    #[test]
    fn preemption_hardware_and_rm_kills_do_not_count() {
        for s in [
            exit_status::PREEMPTED,
            exit_status::ABORTED,
            exit_status::DISKS_FAILED,
            exit_status::KILLED_BY_RESOURCEMANAGER,
        ] {
            assert!(!should_count_towards_max_attempt_retry(s), "{s}");
        }
        for s in [137, 143, 1, 10, 15, exit_status::KILLED_EXCEEDED_PMEM] {
            assert!(should_count_towards_max_attempt_retry(s), "{s}");
        }
    }
}
