//! Which of a NodeManager's GPUs each container holds: Hadoop's `GpuResourceAllocator`
//! (hadoop-yarn-server-nodemanager, `containermanager/linux/resources/gpu/`, Hadoop 3.3+), which
//! `GpuResourceHandlerImpl.preStart` asks before a container's launch and `postComplete` tells
//! when it ends. A pure core the `NodeManager` actor drives; it keeps no clock: the actor
//! retries a waiting container every [`WAIT_MS_PER_LOOP`] until [`WAIT_PERIOD_MS`].
//!
//! What it mirrors:
//! - `addGpu`: the devices the GPU plugin discovered; sparkyard's are minor numbers `0..n`.
//! - `internalAssignGpus`: a container asking for none gets none. One asking for more than are
//!   free waits (returns null) when the free ones plus those held by containers in a final
//!   state (`getReleasingGpus`: KILLING, DONE, EXITED_*, ...) would do; otherwise it fails with
//!   "Failed to find enough GPUs, ...". Else it takes the lowest free devices, in order.
//! - `assignGpus`: while waiting, "Container : <id> is waiting for free GPU devices." then a
//!   sleep of `WAIT_MS_PER_LOOP` (1 s), at most `waitPeriodForResource` (120 s); then it fails
//!   with "Could not get valid GPU device for container '<id>' as some other containers might
//!   not releasing GPUs." (`LOG.warn`).
//! - `unassignGpus`: every device the container held is free again.

use sparkyard_messages::ids::ContainerId;
use std::collections::BTreeMap;

/// `GpuResourceAllocator.WAIT_MS_PER_LOOP`.
pub const WAIT_MS_PER_LOOP: u64 = 1000;
/// `waitPeriodForResource` of the NodeManager's allocator: `120 * WAIT_MS_PER_LOOP`.
pub const WAIT_PERIOD_MS: u64 = 120 * WAIT_MS_PER_LOOP;

/// What one `internalAssignGpus` call decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assignment {
    /// The devices (minor numbers, ascending) the container now holds; empty when it asked for
    /// none.
    Assigned(Vec<u32>),
    /// Not enough are free, but enough are held by containers in a final state: try again.
    Wait,
    /// A `ResourceHandlerException` with this message.
    Failed(String),
}

/// One NodeManager's GPUs and which container holds each (`usedDevices`).
#[derive(Clone, Debug, Default)]
pub struct GpuResourceAllocator {
    allowed: u32,
    used: BTreeMap<u32, ContainerId>,
}

impl GpuResourceAllocator {
    /// An allocator with the `gpus` devices the plugin discovered (minors `0..gpus`).
    pub fn new(gpus: u32) -> Self {
        GpuResourceAllocator {
            allowed: gpus,
            used: BTreeMap::new(),
        }
    }

    /// `getAvailableGpus`: allowed minus used.
    pub fn available(&self) -> u32 {
        self.allowed - self.used.len() as u32
    }

    /// The distinct containers holding devices, in id order (`usedDevices.values()`): the
    /// caller tells which are in a final state and how many GPUs each asked for.
    pub fn holders(&self) -> Vec<ContainerId> {
        let mut out: Vec<ContainerId> = self.used.values().copied().collect();
        out.sort();
        out.dedup();
        out
    }

    /// `internalAssignGpus` for container `cid` asking for `requested` GPUs, `releasing` of the
    /// held ones belonging to containers in a final state (`getReleasingGpus`: each such
    /// holder's requested value, once).
    pub fn assign(&mut self, cid: ContainerId, requested: u32, releasing: u64) -> Assignment {
        if requested == 0 {
            return Assignment::Assigned(Vec::new());
        }
        let available = self.available();
        if requested > available && u64::from(requested) <= releasing + u64::from(available) {
            return Assignment::Wait;
        }
        if requested > available {
            return Assignment::Failed(format!(
                "Failed to find enough GPUs, requestor={cid}, #RequestedGPUs={requested}, \
                 #AvailableGPUs={available}"
            ));
        }
        let free: Vec<u32> = (0..self.allowed)
            .filter(|m| !self.used.contains_key(m))
            .take(requested as usize)
            .collect();
        for &m in &free {
            self.used.insert(m, cid);
        }
        Assignment::Assigned(free)
    }

    /// `unassignGpus`: the container's devices are free again.
    pub fn unassign(&mut self, cid: ContainerId) {
        self.used.retain(|_, holder| *holder != cid);
    }
}

/// `assignGpus`' line each time a container waits another `WAIT_MS_PER_LOOP`.
pub fn waiting_line(cid: ContainerId) -> String {
    format!("Container : {cid} is waiting for free GPU devices.")
}

/// `assignGpus`' failure once `waitPeriodForResource` has passed.
pub fn gave_up_message(cid: ContainerId) -> String {
    format!(
        "Could not get valid GPU device for container '{cid}' as some other containers might \
         not releasing GPUs."
    )
}

/// Whether a container that has waited `waited_ms` may wait another loop (`assignGpus`:
/// `timeWaiting >= waitPeriodForResource` ends it).
pub fn may_wait_again(waited_ms: u64) -> bool {
    waited_ms < WAIT_PERIOD_MS
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId};

    fn cid(n: u64) -> ContainerId {
        let app = ApplicationId {
            cluster_timestamp: 1,
            id: 1,
        };
        ContainerId::new(ApplicationAttemptId::new(app, 1), n)
    }

    // TestGpuResourceAllocator#testRequestZeroGpu: no GPU asked, none assigned.
    #[test]
    fn a_container_asking_for_no_gpu_gets_none() {
        let mut a = GpuResourceAllocator::new(1);
        assert_eq!(a.assign(cid(5), 0, 0), Assignment::Assigned(vec![]));
        assert_eq!(a.available(), 1);
    }

    // TestGpuResourceAllocator#testRequestOneGpu.
    #[test]
    fn one_gpu_asked_one_assigned() {
        let mut a = GpuResourceAllocator::new(1);
        assert_eq!(a.assign(cid(5), 1, 0), Assignment::Assigned(vec![0]));
        assert_eq!(a.available(), 0);
        assert_eq!(a.holders(), [cid(5)]);
    }

    // TestGpuResourceAllocator#testRequestMoreThanAvailableGpu: "Failed to find enough GPUs".
    #[test]
    fn more_than_the_node_has_fails() {
        let mut a = GpuResourceAllocator::new(1);
        let c = cid(5);
        assert_eq!(
            a.assign(c, 2, 0),
            Assignment::Failed(format!(
                "Failed to find enough GPUs, requestor={c}, #RequestedGPUs=2, #AvailableGPUs=1"
            ))
        );
    }

    // TestGpuResourceAllocator#testRequestMoreThanAvailableGpuAndOneContainerIsReleasingGpus:
    // 3 GPUs, 2 held by a container in a final state, 2 asked: it waits (and, never released,
    // gives up with "... as some other containers might not releasing GPUs").
    #[test]
    fn gpus_held_by_a_finishing_container_are_waited_for() {
        let mut a = GpuResourceAllocator::new(3);
        assert_eq!(a.assign(cid(5), 2, 0), Assignment::Assigned(vec![0, 1]));
        assert_eq!(a.available(), 1);
        assert_eq!(a.assign(cid(6), 2, 2), Assignment::Wait);
        assert!(may_wait_again(WAIT_PERIOD_MS - WAIT_MS_PER_LOOP));
        assert!(!may_wait_again(WAIT_PERIOD_MS));
        assert!(
            gave_up_message(cid(6))
                .ends_with("' as some other containers might not releasing GPUs.")
        );
        // Not releasing: no wait, a failure.
        assert!(matches!(a.assign(cid(6), 2, 0), Assignment::Failed(_)));
    }

    // TestGpuResourceAllocator#testThreeContainersJustTwoOfThemSatisfied.
    #[test]
    fn three_containers_just_two_of_them_satisfied() {
        let mut a = GpuResourceAllocator::new(6);
        assert_eq!(a.assign(cid(5), 3, 0), Assignment::Assigned(vec![0, 1, 2]));
        assert_eq!(a.assign(cid(6), 2, 0), Assignment::Assigned(vec![3, 4]));
        assert_eq!(a.available(), 1);
        assert!(
            matches!(a.assign(cid(7), 2, 0), Assignment::Failed(m) if m.starts_with("Failed to find enough GPUs"))
        );
    }

    // TestGpuResourceAllocator#testReleaseAndAssignGpus: once the first container's GPUs are
    // unassigned the waiting one gets them, the lowest minors first.
    #[test]
    fn released_gpus_go_to_the_next_container() {
        let mut a = GpuResourceAllocator::new(3);
        assert_eq!(a.assign(cid(5), 2, 0), Assignment::Assigned(vec![0, 1]));
        assert_eq!(a.assign(cid(6), 2, 2), Assignment::Wait);
        assert_eq!(a.available(), 1);
        a.unassign(cid(5));
        assert_eq!(a.assign(cid(6), 2, 0), Assignment::Assigned(vec![0, 1]));
        assert_eq!(a.holders(), [cid(6)]);
    }

    // TestGpuResourceAllocator#testCreateLotsOfContainersVerifyGpuAssignmentsAreCorrect: 33
    // containers of 3 on 100 GPUs, no device twice.
    #[test]
    fn lots_of_containers_never_share_a_gpu() {
        let mut a = GpuResourceAllocator::new(100);
        let mut seen = std::collections::BTreeSet::new();
        for n in 0..33 {
            let Assignment::Assigned(m) = a.assign(cid(111 + n), 3, 0) else {
                panic!("3 of the free GPUs");
            };
            assert_eq!(m.len(), 3);
            assert!(m.iter().all(|x| seen.insert(*x)));
        }
        assert_eq!(a.available(), 1);
    }
}
