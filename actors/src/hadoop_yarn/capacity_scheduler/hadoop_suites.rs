//! Cases of Hadoop 3.4's own CapacityScheduler suites (`TestLeafQueue`, `TestApplicationLimits`,
//! `TestCapacityScheduler`) run against the `CapacityScheduler` state machine: capacity, maximum
//! capacity, user limits (user-limit-factor, -1 included, and minimum-user-limit-percent), the
//! AM resource limits per queue and per user. Each test names its Hadoop test method; the
//! expected numbers are the Hadoop test's assertions, and each comment says where sparkyard's
//! model differs and how the case was adapted.
//!
//! Adaptations common to the `TestLeafQueue` cases: Hadoop's hierarchy is root.newRoot.{a, b,
//! c.c1, d, e} with newRoot at 100 %, so the leaves here are a (8.5 %, max 20 %), b (80 %,
//! 99 %), c1 (1.5 %, max 10 %), d (9 %, 11 %) and e (1 %, 1 %) under root; its applications are
//! `FiCaSchedulerApp`s submitted to the leaf queue whose AM request is the test's mocked
//! `<memory:0, vCores:0>` and whose AM container is never allocated (`submit_without_am`); one
//! `LeafQueue.assignContainers` call is one NodeManager heartbeat here (every ask is ANY, so
//! Hadoop's default off-switch limit gives one container a heartbeat); `a.setUserLimit(x)`,
//! `setUserLimitFactor`, `setMaxCapacity` change the queue's spec in place, as the test does on
//! the live queue.

use super::test_support::{GB, attempt, res};
use super::*;

fn node(i: usize) -> NodeId {
    NodeId {
        host: format!("127.0.0.{}", i + 1),
        port: 8041,
    }
}

/// TestLeafQueue.setUp's CapacitySchedulerContext: minimum <1 GB, 1>, maximum <16 GB, 32>.
fn leaf_queue_limits() -> AllocationLimits {
    AllocationLimits {
        minimum_mb: GB,
        maximum_mb: 16 * GB,
        minimum_vcores: 1,
        maximum_vcores: 32,
    }
}

fn spec(name: &str, capacity: f64, maximum: f64) -> QueueSpec {
    let mut q = QueueSpec::with_capacity(name, capacity);
    q.maximum_capacity = maximum;
    q
}

/// TestLeafQueue.setupQueueConfiguration's leaves, with `nodes` NodeManagers of `node_mb`.
fn leaf_queues(nodes: usize, node_mb: u64) -> CapacityScheduler {
    let queues = [
        spec("a", 8.5, 20.0),
        spec("b", 80.0, 99.0),
        spec("c1", 1.5, 10.0),
        spec("d", 9.0, 11.0),
        spec("e", 1.0, 1.0),
    ];
    with_nodes(
        CapacityScheduler::with_queues(leaf_queue_limits(), &queues),
        nodes,
        node_mb,
    )
}

fn with_nodes(mut cs: CapacityScheduler, nodes: usize, node_mb: u64) -> CapacityScheduler {
    for i in 0..nodes {
        cs.add_node(node(i), "/default".into(), res(node_mb, 16));
    }
    cs
}

fn q(cs: &CapacityScheduler, name: &str) -> usize {
    cs.queue_index(name).expect("queue")
}

fn spec_mut<'a>(cs: &'a mut CapacityScheduler, name: &str) -> &'a mut QueueSpec {
    let i = q(cs, name);
    &mut cs.queues[i].spec
}

/// `leafQueue.submitApplicationAttempt(new FiCaSchedulerApp(...))` with TestLeafQueue's mocked
/// AM request of <0, 0>: activated at once, no AM container to place.
fn submit_without_am(cs: &mut CapacityScheduler, a: ApplicationAttemptId, queue: &str, user: &str) {
    let qi = q(cs, queue);
    cs.insert_attempt(a, res(0, 0), qi, user, 0);
    assert!(cs.attempts[&a].active, "an AM of 0 always fits");
    cs.pending_am.retain(|(x, _)| *x != a);
    cs.refresh_asking(a);
    cs.take_activated();
}

/// `app.updateResourceRequests(createResourceRequest(ANY, mb, n, ...))`: `n` outstanding.
fn ask(cs: &mut CapacityScheduler, a: ApplicationAttemptId, mb: u64, n: u32) {
    let left = cs.outstanding(a);
    cs.update_requests(a, res(mb, 1), n, left, &[], &[]);
}

/// `app.getCurrentConsumption()`: its live containers' memory.
fn consumption(cs: &CapacityScheduler, a: ApplicationAttemptId) -> u64 {
    cs.attempts[&a]
        .live
        .values()
        .map(|(_, r)| r.memory_mb)
        .sum()
}

fn used(cs: &CapacityScheduler, queue: &str) -> u64 {
    cs.queue_used_mb(queue).expect("queue")
}

/// `completedContainer` for each of the attempt's live containers.
fn release_all(cs: &mut CapacityScheduler, a: ApplicationAttemptId) {
    for (cid, n) in cs.live_containers(a) {
        assert!(cs.complete_container(n, cid));
    }
}

/// One `assignContainers` on `node`, then (queue used, each app's consumption), in GB.
fn beat(cs: &mut CapacityScheduler, node: usize, apps: &[ApplicationAttemptId]) -> Vec<u64> {
    cs.node_update(node);
    let mut v = vec![used(cs, "a") / GB];
    v.extend(apps.iter().map(|a| consumption(cs, *a) / GB));
    v
}

// TestLeafQueue#testSingleQueueWithOneUser: queue a (8.5 % of one 8 GB node, maximum unset to
// 100 %), two applications of user_0 asking 3 and 2 x 1 GB. The first container, then a second
// (the user limit is at least one minimum allocation, and canAssignToUser lets a user reach one
// container past it), not a third; user-limit-factor 10 lets app_0 take its third and app_1 one;
// maximum capacity 50 % (4 GB) stops the queue; completions give everything back.
#[test]
fn test_single_queue_with_one_user() {
    let mut cs = leaf_queues(1, 8 * GB);
    spec_mut(&mut cs, "a").maximum_capacity = 100.0;
    let (a0, a1) = (attempt(0), attempt(1));
    submit_without_am(&mut cs, a0, "a", "user_0");
    submit_without_am(&mut cs, a1, "a", "user_0");
    ask(&mut cs, a0, GB, 3);
    ask(&mut cs, a1, GB, 2);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [1, 1, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [2, 2, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [2, 2, 0], "user-limit");
    spec_mut(&mut cs, "a").user_limit_factor = 10.0;
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [3, 3, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [4, 3, 1]);
    spec_mut(&mut cs, "a").maximum_capacity = 50.0;
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [4, 3, 1], "max-capacity");
    release_all(&mut cs, a0);
    assert_eq!((used(&cs, "a"), consumption(&cs, a0)), (GB, 0));
    release_all(&mut cs, a1);
    assert_eq!(used(&cs, "a"), 0);
}

// TestLeafQueue#testUserLimits: minimum-user-limit-percent 50, user-limit-factor 2, two 8 GB
// nodes, user_0 asking 2 x 3 GB and user_1 2 x 1 GB: both users are active; user_0 gets 3 GB;
// the next container goes to user_1 although app_0 is older (user_0 is above its limit, 2 GB);
// then user_0 gets its second (limit ceil((4 + 1) / 2) = 2.5 GB, rounded up to 3 GB, and 3 GB
// used is not above it); app_0 has nothing more to ask: one active user.
#[test]
fn test_user_limits() {
    let mut cs = leaf_queues(2, 8 * GB);
    let a = spec_mut(&mut cs, "a");
    (
        a.maximum_capacity,
        a.minimum_user_limit_percent,
        a.user_limit_factor,
    ) = (100.0, 50.0, 2.0);
    let (a0, a1) = (attempt(0), attempt(1));
    submit_without_am(&mut cs, a0, "a", "user_0");
    submit_without_am(&mut cs, a1, "a", "user_1");
    ask(&mut cs, a0, 3 * GB, 2);
    ask(&mut cs, a1, GB, 2);
    let qa = q(&cs, "a");
    assert_eq!(cs.num_active_users(qa), 2);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [3, 3, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [4, 3, 1]);
    assert_eq!(beat(&mut cs, 1, &[a0, a1]), [7, 6, 1]);
    assert_eq!(
        cs.num_active_users(qa),
        1,
        "There should only be 1 active user!"
    );
}

// TestLeafQueue#testDecimalUserLimits: as testUserLimits with minimum-user-limit-percent 50.1:
// the floor share passes half of the queue's usage plus one allocation, so user_0 gets its
// second 3 GB container at once; then user_1's.
#[test]
fn test_decimal_user_limits() {
    let mut cs = leaf_queues(2, 8 * GB);
    let a = spec_mut(&mut cs, "a");
    (
        a.maximum_capacity,
        a.minimum_user_limit_percent,
        a.user_limit_factor,
    ) = (100.0, 50.1, 2.0);
    let (a0, a1) = (attempt(0), attempt(1));
    submit_without_am(&mut cs, a0, "a", "user_0");
    submit_without_am(&mut cs, a1, "a", "user_1");
    ask(&mut cs, a0, 3 * GB, 2);
    ask(&mut cs, a1, GB, 2);
    assert_eq!(cs.num_active_users(q(&cs, "a")), 2);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [3, 3, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [6, 6, 0]);
    assert_eq!(beat(&mut cs, 1, &[a0, a1]), [7, 6, 1]);
    assert_eq!(cs.num_active_users(q(&cs, "a")), 1);
}

// TestLeafQueue#testDisabledUserLimitFactor: minimum-user-limit-percent 50 and user-limit-factor
// 1 keep user_0 at one 3 GB container while user_1 gets 1 GB; with user-limit-factor -1
// (UsersManager.computeUserLimit: the cap is the queue's maximum capacity instead of capacity x
// factor) user_0 gets its second container on the other node.
#[test]
fn test_disabled_user_limit_factor() {
    let mut cs = leaf_queues(2, 8 * GB);
    let a = spec_mut(&mut cs, "a");
    (
        a.maximum_capacity,
        a.minimum_user_limit_percent,
        a.user_limit_factor,
    ) = (100.0, 50.0, 1.0);
    let (a0, a1) = (attempt(0), attempt(1));
    submit_without_am(&mut cs, a0, "a", "user0");
    submit_without_am(&mut cs, a1, "a", "user1");
    ask(&mut cs, a0, 3 * GB, 2);
    ask(&mut cs, a1, GB, 2);
    assert_eq!(cs.num_active_users(q(&cs, "a")), 2);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [3, 3, 0]);
    assert_eq!(beat(&mut cs, 0, &[a0, a1]), [4, 3, 1]);
    spec_mut(&mut cs, "a").user_limit_factor = -1.0;
    assert_eq!(beat(&mut cs, 1, &[a0, a1]), [7, 6, 1]);
}

// TestLeafQueue#testSingleQueueWithMultipleUsers: one 8 GB node; user_0's two applications ask
// 10 x 1 GB each; user_0 gets two (its limit is one minimum allocation); with
// minimum-user-limit-percent 25 not a third; once user_1 (3 GB) and user_2 (2 x 1 GB) ask, the
// next goes to user_1 although user-limit-factor is 10 (three active users share the queue),
// then user_0 gets one (at its limit, not above); at maximum capacity 50 % nothing; back at 100
// % with factor 1, user_2 gets two containers. Releasing each application's containers empties
// the queue.
#[test]
fn test_single_queue_with_multiple_users() {
    let mut cs = leaf_queues(1, 8 * GB);
    spec_mut(&mut cs, "a").maximum_capacity = 100.0;
    let apps = [attempt(0), attempt(1), attempt(2), attempt(3)];
    for (a, u) in apps.iter().zip(["user_0", "user_0", "user_1", "user_2"]) {
        submit_without_am(&mut cs, *a, "a", u);
    }
    ask(&mut cs, apps[0], GB, 10);
    ask(&mut cs, apps[1], GB, 10);
    assert_eq!(beat(&mut cs, 0, &apps), [1, 1, 0, 0, 0]);
    assert_eq!(beat(&mut cs, 0, &apps), [2, 2, 0, 0, 0]);
    spec_mut(&mut cs, "a").minimum_user_limit_percent = 25.0;
    assert_eq!(beat(&mut cs, 0, &apps), [2, 2, 0, 0, 0], "user-limit");
    ask(&mut cs, apps[2], 3 * GB, 1);
    ask(&mut cs, apps[3], GB, 2);
    spec_mut(&mut cs, "a").user_limit_factor = 10.0;
    assert_eq!(beat(&mut cs, 0, &apps), [5, 2, 0, 3, 0]);
    assert_eq!(beat(&mut cs, 0, &apps), [6, 3, 0, 3, 0]);
    spec_mut(&mut cs, "a").maximum_capacity = 50.0;
    assert_eq!(beat(&mut cs, 0, &apps), [6, 3, 0, 3, 0], "max-capacity");
    let a = spec_mut(&mut cs, "a");
    (a.maximum_capacity, a.user_limit_factor) = (100.0, 1.0);
    assert_eq!(beat(&mut cs, 0, &apps), [7, 3, 0, 3, 1]);
    assert_eq!(beat(&mut cs, 0, &apps), [8, 3, 0, 3, 2]);
    release_all(&mut cs, apps[0]);
    assert_eq!(used(&cs, "a"), 5 * GB);
    release_all(&mut cs, apps[2]);
    assert_eq!(used(&cs, "a"), 2 * GB);
    release_all(&mut cs, apps[3]);
    assert_eq!(used(&cs, "a"), 0);
}

// TestLeafQueue#testUserLimitCacheActiveUsersChanged (the limits it asserts, not the cache):
// one queue a at 100 % of four 6 GB nodes, minimum-user-limit-percent 0, user-limit-factor 1;
// app_9 of user_0 holds 10 GB; with three active users (user_0 to user_2 each asking 4 GB) each
// user's limit is 4 GB (an equal share of the active users' 10 GB plus one allocation, rounded
// up), with a fourth user 3 GB. Adapted: the limits are read with `user_limit_mb` rather than
// from LeafQueue.userLimitsCache, and app_9 asks ANY rather than host_0/host_1.
#[test]
fn test_user_limit_cache_active_users_changed() {
    let mut a = QueueSpec::with_capacity("a", 100.0);
    (a.minimum_user_limit_percent, a.user_limit_factor) = (0.0, 1.0);
    let mut cs = with_nodes(
        CapacityScheduler::with_queues(leaf_queue_limits(), &[a]),
        4,
        6 * GB,
    );
    let a9 = attempt(9);
    submit_without_am(&mut cs, a9, "a", "user_0");
    ask(&mut cs, a9, GB, 10);
    assert_eq!(cs.num_active_users(0), 1);
    for n in [0, 0, 0, 0, 0, 1, 1, 1, 1, 1] {
        cs.node_update(n);
    }
    assert_eq!((used(&cs, "a"), consumption(&cs, a9)), (10 * GB, 10 * GB));
    for (i, u) in ["user_0", "user_1", "user_2"].into_iter().enumerate() {
        let x = attempt(i as u32);
        submit_without_am(&mut cs, x, "a", u);
        ask(&mut cs, x, 4 * GB, 10);
    }
    assert_eq!(cs.num_active_users(0), 3);
    assert_eq!(cs.user_limit_mb(0), 4 * GB);
    let a3 = attempt(3);
    submit_without_am(&mut cs, a3, "a", "user_3");
    ask(&mut cs, a3, 4 * GB, 10);
    assert_eq!(cs.num_active_users(0), 4);
    assert_eq!(cs.user_limit_mb(0), 3 * GB);
}

// ---- TestApplicationLimits ----
//
// TestApplicationLimits.setUp: queues a (10 %) and b (90 %) under root, a with
// minimum-user-limit-percent 50 and user-limit-factor 5; minimum allocation <1 GB, 1>. Its
// applications are mocks with an AM resource and no asks. Adapted: here an activated
// application's AM container is an outstanding ask, which makes its user active (as the real
// RM's AM ResourceRequest does); where the Hadoop test relies on no user being active, the AM
// containers are placed right after activation (`place_ams`).

fn application_limits(nodes: usize) -> CapacityScheduler {
    let mut a = QueueSpec::with_capacity("a", 10.0);
    (a.minimum_user_limit_percent, a.user_limit_factor) = (50.0, 5.0);
    let queues = [a, QueueSpec::with_capacity("b", 90.0)];
    with_nodes(
        CapacityScheduler::with_queues(leaf_queue_limits(), &queues),
        nodes,
        16 * GB,
    )
}

/// Heartbeats every node until no AM container waits.
fn place_ams(cs: &mut CapacityScheduler) {
    while !cs.pending_am.is_empty() {
        let placed: usize = (0..cs.node_count()).map(|n| cs.node_update(n).len()).sum();
        assert!(placed > 0, "an AM container does not fit");
    }
}

/// The queue's (active, pending) applications, all users and one user's.
fn apps_of(cs: &CapacityScheduler, queue: &str, user: &str) -> (u32, usize, u32, u32) {
    let lq = &cs.queues[q(cs, queue)];
    let u = lq.users.get(user).cloned().unwrap_or_default();
    (
        lq.active_apps,
        lq.pending.len(),
        u.active_apps,
        u.pending_apps,
    )
}

// TestApplicationLimits#testLimitsComputation: 100 nodes of 16 GB: queue a's AM limit is 10 % of
// its current limit (the cluster, b being idle), 160 GB, and the user AM limit 160 GB x 0.1
// (capacity) x 1 (no active user: the effective user limit is max(50 %, 1 / 1)) x 5 = 80 GB; with
// 120 nodes 192 GB and 96 GB; with maximum-am-resource-percent 0.5 on 100 nodes 800 GB and 400 GB.
#[test]
fn test_limits_computation() {
    let mut cs = application_limits(100);
    let qa = q(&cs, "a");
    assert_eq!(cs.queue_am_limit(qa), res(160 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(80 * GB, 1));
    for i in 100..120 {
        cs.add_node(node(i), "/default".into(), res(16 * GB, 16));
    }
    assert_eq!(cs.queue_am_limit(qa), res(192 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(96 * GB, 1));
    let mut cs = application_limits(100);
    spec_mut(&mut cs, "a").maximum_am_resource_percent = 0.5;
    assert_eq!(cs.queue_am_limit(qa), res(800 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(400 * GB, 1));
}

// TestApplicationLimits#testAMResourceLimit: an 80 GB cluster (five 16 GB nodes): queue a's AM
// limit is 8 GB, the user AM limit 4 GB with one active user; two 2 GB AMs of user_0 start, one of
// user_1 starts; with two active users the user AM limit drops to 2 GB (50 %), so user_1's
// second application waits (User's AM resource limit exceeded) until its first finishes.
// Adapted: Hadoop mocks the active user count (1, then 2); here user_0 and user_1 are active
// because their AM containers are outstanding asks, and user_1, whose only application is still
// pending when it is checked, counts as Hadoop's activeUsersWithOnlyPendingApps.
#[test]
fn test_am_resource_limit() {
    let mut cs = application_limits(5);
    let qa = q(&cs, "a");
    assert_eq!(cs.queue_am_limit(qa), res(8 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(4 * GB, 1));
    let am = res(2 * GB, 1);
    assert_eq!(cs.add_attempt_in(attempt(0), am, "a", "user_0"), None);
    assert_eq!(apps_of(&cs, "a", "user_0"), (1, 0, 1, 0));
    assert_eq!(cs.add_attempt_in(attempt(1), am, "a", "user_0"), None);
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 0, 2, 0));
    assert_eq!(cs.queue_am_limit(qa), res(8 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(4 * GB, 1));
    assert_eq!(cs.add_attempt_in(attempt(2), am, "a", "user_1"), None);
    assert_eq!(apps_of(&cs, "a", "user_1"), (3, 0, 1, 0));
    assert_eq!(cs.num_active_users(qa), 2);
    assert_eq!(cs.user_am_limit(qa), res(2 * GB, 1));
    let why = cs
        .add_attempt_in(attempt(3), am, "a", "user_1")
        .expect("second user_1 app cannot start");
    assert_eq!(why.reason, AmLimitExceeded::User);
    assert_eq!(
        (why.queue_am_limit, why.user_am_limit),
        (res(8 * GB, 1), res(2 * GB, 1))
    );
    assert_eq!(apps_of(&cs, "a", "user_1"), (3, 1, 1, 1));
    cs.stop_attempt(attempt(2));
    assert_eq!(apps_of(&cs, "a", "user_1"), (3, 0, 1, 0));
}

// TestApplicationLimits#testActiveApplicationLimits: 160 GB (ten 16 GB nodes): AM limit 16 GB,
// user AM limit 8 GB. user_0's 4 GB applications: two start, the third waits on the user AM
// limit and starts when the first finishes, a fourth waits; user_1's 8 GB one starts (the queue
// is then at 16 GB); user_2's 8 GB one waits on the queue's limit and starts when user_1's
// finishes, while user_0's fourth still waits on its user limit.
#[test]
fn test_active_application_limits() {
    let mut cs = application_limits(10);
    let qa = q(&cs, "a");
    assert_eq!(cs.queue_am_limit(qa), res(16 * GB, 1));
    assert_eq!(cs.user_am_limit(qa), res(8 * GB, 1));
    let submit = |cs: &mut CapacityScheduler, id: u32, user: &str, gb: u64| {
        let why = cs.add_attempt_in(attempt(id), res(gb * GB, 1), "a", user);
        place_ams(cs);
        why.map(|w| w.reason)
    };
    assert_eq!(submit(&mut cs, 0, "user_0", 4), None);
    assert_eq!(submit(&mut cs, 1, "user_0", 4), None);
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 0, 2, 0));
    assert_eq!(submit(&mut cs, 2, "user_0", 4), Some(AmLimitExceeded::User));
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 1, 2, 1));
    cs.stop_attempt(attempt(0));
    place_ams(&mut cs);
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 0, 2, 0));
    assert_eq!(submit(&mut cs, 3, "user_0", 4), Some(AmLimitExceeded::User));
    assert_eq!(submit(&mut cs, 4, "user_1", 8), None);
    assert_eq!(apps_of(&cs, "a", "user_1"), (3, 1, 1, 0));
    assert_eq!(
        submit(&mut cs, 5, "user_2", 8),
        Some(AmLimitExceeded::Queue)
    );
    assert_eq!(apps_of(&cs, "a", "user_2"), (3, 2, 0, 1));
    cs.stop_attempt(attempt(4));
    place_ams(&mut cs);
    assert_eq!(apps_of(&cs, "a", "user_0"), (3, 1, 2, 1));
    assert_eq!(apps_of(&cs, "a", "user_1"), (3, 1, 0, 0));
    assert_eq!(apps_of(&cs, "a", "user_2"), (3, 1, 1, 0));
}

// TestApplicationLimits#testActiveLimitsWithKilledApps: of user_0's four 4 GB applications two
// start and two wait (user AM limit 8 GB); killing the third (pending) leaves one pending;
// finishing the first starts the fourth; finishing the rest empties the queue.
#[test]
fn test_active_limits_with_killed_apps() {
    let mut cs = application_limits(10);
    for id in 0..4 {
        cs.add_attempt_in(attempt(id), res(4 * GB, 1), "a", "user_0");
        place_ams(&mut cs);
    }
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 2, 2, 2));
    cs.stop_attempt(attempt(2));
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 1, 2, 1));
    cs.stop_attempt(attempt(0));
    assert!(
        cs.attempts[&attempt(3)].active,
        "app_3 should become active"
    );
    assert_eq!(apps_of(&cs, "a", "user_0"), (2, 0, 2, 0));
    cs.stop_attempt(attempt(1));
    assert_eq!(apps_of(&cs, "a", "user_0"), (1, 0, 1, 0));
    cs.stop_attempt(attempt(3));
    assert_eq!(apps_of(&cs, "a", "user_0"), (0, 0, 0, 0));
}

// TestLeafQueue#testFifoAssignment: in queue a (one 16 GB node of a 64 GB cluster), app_1 of
// priority 5 is served before the older app_0 of priority 3 (FifoOrderingPolicy compares
// priorities first), each time both ask.
#[test]
fn test_fifo_assignment() {
    let mut cs = leaf_queues(4, 16 * GB);
    let (a0, a1) = (attempt(0), attempt(1));
    cs.set_application_priority(a0.application_id, 3);
    cs.set_application_priority(a1.application_id, 5);
    submit_without_am(&mut cs, a0, "a", "user_0");
    submit_without_am(&mut cs, a1, "a", "user_0");
    ask(&mut cs, a0, 2 * GB, 1);
    ask(&mut cs, a1, GB, 1);
    cs.node_update(0);
    assert_eq!(consumption(&cs, a1), GB);
    cs.node_update(0);
    assert_eq!(consumption(&cs, a0), 2 * GB);
    ask(&mut cs, a0, GB, 1);
    ask(&mut cs, a1, GB, 1);
    cs.node_update(0);
    assert_eq!(
        (consumption(&cs, a1), consumption(&cs, a0)),
        (2 * GB, 2 * GB)
    );
    cs.node_update(0);
    assert_eq!(consumption(&cs, a0), 3 * GB);
}

// TestLeafQueue#testMaxAMResourcePerQueuePercentAfterQueueRefresh (its first assertion): queue
// b (80 %, maximum 99 %) of 100 x 16 GB: its current limit is 99 % of 1600 GB, so the AM limit
// is 1600 GB x 0.99 x 0.1 normalized up: 162816 MB.
#[test]
fn test_max_am_resource_per_queue_percent_after_queue_refresh() {
    let cs = leaf_queues(100, 16 * GB);
    assert_eq!(cs.queue_am_limit(q(&cs, "b")), res(162816, 1));
}

// ---- TestParentQueue ----

// TestParentQueue#testSingleLevelQueues: a (30 %) and b (70 %) on two 10 GB nodes; each heartbeat
// offers the node to the queue of lower used capacity first (PriorityUtilizationQueueOrderingPolicy):
// b when a asks nothing, then a (0/6 GB against 1/14 GB), b (2/6 against 2/14), b again (a asks
// nothing), a (3/6 against 8/14). Adapted: Hadoop stubs each queue's assignContainers to return
// a container of a given size (0: nothing); here each queue runs one application asking that
// size, and the first container of each step shows which queue was offered the node first.
#[test]
fn test_single_level_queues() {
    let queues = [
        QueueSpec::with_capacity("a", 30.0),
        QueueSpec::with_capacity("b", 70.0),
    ];
    let mut cs = with_nodes(
        CapacityScheduler::with_queues(leaf_queue_limits(), &queues),
        2,
        10 * GB,
    );
    let (a, b) = (attempt(0), attempt(1));
    submit_without_am(&mut cs, a, "a", "user_a");
    submit_without_am(&mut cs, b, "b", "user_b");
    // (node, a's container in GB, b's, the queue served first)
    let steps = [
        (0, 0, 1, b),
        (1, 2, 1, a),
        (0, 1, 2, b),
        (0, 0, 4, b),
        (1, 1, 1, a),
    ];
    for (n, (node_idx, a_gb, b_gb, first)) in steps.into_iter().enumerate() {
        for (x, gb) in [(a, a_gb), (b, b_gb)] {
            if gb > 0 {
                ask(&mut cs, x, gb * GB, 1);
            }
        }
        let got = cs.node_update(node_idx);
        assert_eq!(got[0].attempt, first, "step {n}");
        cs.node_update(node_idx);
    }
    assert_eq!(
        (used(&cs, "a"), cs.queue_used_mb("b")),
        (4 * GB, Some(9 * GB))
    );
}

// TestLeafQueue#testGetTotalPendingResourcesConsideringUserLimitTwoUsers (the containers it
// asserts; getTotalPendingResourcesConsideringUserLimit is not simulated): queue e (1 % of one
// 100 GB node, maximum unset to 100 %, minimum-user-limit-percent 1000 so only the factor
// limits), user_0 asking 1 + 2 x 1 GB, user_1 2 + 1 x 1 GB: with user-limit-factor 1 each user
// gets its limit (1 GB) and one container past it, in FIFO order, then nothing; with factor 10
// app_1 and app_3 get their last containers.
#[test]
fn test_get_total_pending_resources_considering_user_limit_two_users() {
    let mut cs = leaf_queues(1, 100 * GB);
    let e = spec_mut(&mut cs, "e");
    (e.maximum_capacity, e.minimum_user_limit_percent) = (100.0, 1000.0);
    let apps = [attempt(0), attempt(1), attempt(2), attempt(3)];
    for (a, u) in apps.iter().zip(["user_0", "user_0", "user_1", "user_1"]) {
        submit_without_am(&mut cs, *a, "e", u);
    }
    for (a, n) in apps.iter().zip([1, 2, 2, 1]) {
        ask(&mut cs, *a, GB, n);
    }
    let step = |cs: &mut CapacityScheduler| {
        cs.node_update(0);
        apps.map(|a| consumption(cs, a) / GB)
    };
    assert_eq!(step(&mut cs), [1, 0, 0, 0]);
    assert_eq!(step(&mut cs), [1, 1, 0, 0]);
    assert_eq!(step(&mut cs), [1, 1, 1, 0]);
    assert_eq!(step(&mut cs), [1, 1, 2, 0]);
    assert_eq!(step(&mut cs), [1, 1, 2, 0], "both users above their limit");
    spec_mut(&mut cs, "e").user_limit_factor = 10.0;
    assert_eq!(step(&mut cs), [1, 2, 2, 0]);
    assert_eq!(step(&mut cs), [1, 2, 2, 1]);
}
