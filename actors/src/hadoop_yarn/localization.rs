//! One NodeManager's localized resources per application, as a plain state machine: Hadoop's
//! `ResourceLocalizationService` with its `LocalResourcesTrackerImpl` and each resource's
//! `LocalizedResource` states (INIT, DOWNLOADING, LOCALIZED), in virtual time.
//!
//! What it mirrors (hadoop-yarn-server-nodemanager, `containermanager/localizer/`):
//! - `ResourceLocalizationService.handleInitContainerResources` hands each of a container's
//!   `LocalResource`s to the tracker of its visibility (`getLocalResourcesTracker`: PUBLIC one
//!   per node, PRIVATE one per user, APPLICATION one per application). Spark's resources
//!   (`__spark_libs__`, `__spark_conf__`, the application jar, uploaded by
//!   `Client.prepareLocalResources` into the application's staging directory) are PRIVATE unless
//!   world-readable, and their paths name the application, so no other application's request
//!   matches them: the cache is, in effect, per application per node.
//! - `LocalResourcesTrackerImpl.handle(REQUEST)` creates a `LocalizedResource` on the first
//!   request; `LocalizedResource`'s `FetchResourceTransition` (INIT -> DOWNLOADING) starts the
//!   download; a request while DOWNLOADING only joins its `ref` list (the same transition, no
//!   second download) and `FetchSuccessTransition` notifies every waiting container at once; a
//!   request once LOCALIZED is answered at once (`LocalizedResourceTransition`).
//! - The executors' resources are the AM's: Spark's `ApplicationMaster.prepareLocalResources`
//!   rebuilds them from the same cached files (`CACHED_FILES`, their timestamps and visibilities)
//!   and the same `__spark_conf__` archive that `Client.prepareLocalResources` gave the AM
//!   container, so an executor on the AM's node finds them LOCALIZED.
//! - A NodeManager that restarts without recovery (`yarn.nodemanager.recovery.enabled` false, the
//!   default) deletes its local directories in `ResourceLocalizationService.serviceInit`
//!   (`cleanUpLocalDirs` when `!stateStore.canRecover()`): the tracker lives and dies with the
//!   NodeManager actor that owns it.

use crate::kernel::small_map::SmallMap;
use sparkyard_messages::ids::ApplicationId;

/// Where an application's resources are on this node (`ResourceState`; INIT is absence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ResourceState {
    /// Being downloaded until `done_at_ms` (virtual ms).
    Downloading { done_at_ms: u64 },
    /// On the node's disk.
    Localized,
}

/// One NodeManager's localization state, by application.
#[derive(Default)]
pub struct LocalizationTracker {
    apps: SmallMap<ApplicationId, ResourceState>,
}

impl LocalizationTracker {
    /// A container of `app` asks for its resources at `now_ms`; a download takes `download_ms`.
    /// Returns when they are on the node: `now_ms` if localized (or free to download), the
    /// running download's end if one is under way, else `now_ms + download_ms` (a new one).
    pub fn request(&mut self, app: ApplicationId, now_ms: u64, download_ms: u64) -> u64 {
        if download_ms == 0 {
            // Nothing to download (a cluster without a localization cost): no state to keep.
            return now_ms;
        }
        match self.apps.get(&app).copied() {
            Some(ResourceState::Localized) => now_ms,
            // FetchSuccessTransition has run by then: every later request is answered at once.
            Some(ResourceState::Downloading { done_at_ms }) if done_at_ms <= now_ms => {
                self.apps.insert(app, ResourceState::Localized);
                now_ms
            }
            Some(ResourceState::Downloading { done_at_ms }) => done_at_ms,
            None => {
                let done_at_ms = now_ms + download_ms;
                self.apps
                    .insert(app, ResourceState::Downloading { done_at_ms });
                done_at_ms
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(id: u32) -> ApplicationId {
        ApplicationId {
            cluster_timestamp: 1,
            id,
        }
    }

    // Hadoop TestLocalizedResource.testNotification: a second container's REQUEST while the
    // resource is DOWNLOADING joins its ref list and both are notified by the one LOCALIZED
    // event; a REQUEST once LOCALIZED is notified at once.
    #[test]
    fn the_first_request_downloads_a_second_waits_for_it_a_later_one_pays_nothing() {
        let mut t = LocalizationTracker::default();
        assert_eq!(t.request(app(1), 1_000, 5_000), 6_000);
        assert_eq!(t.request(app(1), 2_500, 5_000), 6_000, "joins the download");
        assert_eq!(t.request(app(1), 6_000, 5_000), 6_000);
        assert_eq!(t.request(app(1), 9_000, 5_000), 9_000, "LOCALIZED");
    }

    // ResourceLocalizationService.getLocalResourcesTracker: an application's PRIVATE resources
    // under its own staging paths are no other application's.
    #[test]
    fn another_application_downloads_its_own() {
        let mut t = LocalizationTracker::default();
        assert_eq!(t.request(app(1), 0, 4_000), 4_000);
        assert_eq!(t.request(app(2), 1_000, 4_000), 5_000);
        assert_eq!(t.request(app(1), 10_000, 4_000), 10_000);
    }

    #[test]
    fn no_cost_keeps_no_state() {
        let mut t = LocalizationTracker::default();
        assert_eq!(t.request(app(1), 7, 0), 7);
        assert_eq!(
            t.request(app(1), 8, 3),
            11,
            "still INIT: the first costed request downloads"
        );
    }
}
