//! A leaf queue's users in the CapacityScheduler: each user's usage and applications, which users
//! are active (an activated application with outstanding asks), the user limit and the user AM
//! limit; mirrors Hadoop 3.4's `UsersManager` (`computeUserLimit`, `activateApplication` /
//! `deactivateApplication`, `getNumActiveUsers`) with its `User`, and
//! `AbstractLeafQueue.getUserAMResourceLimitPerPartition`. Memory only is compared, as the
//! `DefaultResourceCalculator` does; every user's weight is 1 (`user-settings.<user>.weight` is
//! not read).

use super::*;

/// One user of a leaf queue (`UsersManager.User`), in the default partition.
#[derive(Clone, Debug, Default)]
pub(super) struct QueueUser {
    pub used_mb: u64,
    pub am_used_mb: u64,
    /// Its activated applications, and those waiting for activation.
    pub active_apps: u32,
    pub pending_apps: u32,
    /// Its activated applications with outstanding asks, the AM container's included: while one
    /// has any the user is active (`AppSchedulingInfo` calls `activateApplication` when an ask
    /// appears and `deactivateApplication` when the last one is gone).
    pub asking_apps: u32,
}

/// What `UsersManager.computeUserLimit` reads of a queue in one partition, in MB.
pub(super) struct UserLimitInputs {
    /// The partition's resource (`labelManager.getResourceByLabel`).
    pub partition_mb: u64,
    /// `getEffectiveCapacity(partition)`.
    pub capacity_mb: u64,
    /// `getEffectiveMaxCapacity(partition)`.
    pub max_capacity_mb: u64,
    /// `qUsageRatios`: every user's usage over the partition, summed as floats.
    pub usage_ratio: f32,
    /// `totalResUsageForActiveUsers` and `activeUsersTimesWeights`.
    pub active_used_mb: u64,
    pub active_users: u32,
}

/// `User.setAndUpdateUsageRatio` with the `DefaultResourceCalculator`: `(float) used / total`.
pub(super) fn usage_ratio(used_mb: u64, total_mb: u64) -> f32 {
    if total_mb == 0 {
        0.0
    } else {
        used_mb as f32 / total_mb as f32
    }
}

/// `ResourceCalculator.divideAndCeil(long, float)`: the float quotient rounded up, 0 for a zero
/// divisor.
fn divide_and_ceil(a: u64, b: f32) -> u64 {
    if b == 0.0 {
        return 0;
    }
    f64::from(a as f32 / b).ceil() as u64
}

impl CapacityScheduler {
    /// `UsersManager.computeUserLimit` for the active users (RESPECT_PARTITION_EXCLUSIVITY):
    /// the queue's capacity (at least one minimum allocation: a queue of miniscule capacity
    /// still progresses), or what the users consume plus one minimum allocation once they are
    /// above it; each active user gets the larger of an equal share of the active users' usage
    /// (plus one allocation) and `minimum-user-limit-percent` of that; capped by capacity x
    /// `user-limit-factor` (the maximum capacity, rounded down to the minimum allocation, when
    /// the factor is -1 or the queue has no capacity in the partition), rounded up to the
    /// minimum allocation.
    pub(super) fn compute_user_limit(&self, spec: &QueueSpec, i: &UserLimitInputs) -> u64 {
        let step = self.limits.minimum_mb.max(1);
        let required = self.limits.minimum_mb;
        let queue_capacity = i.capacity_mb.max(required);
        let consumed = self
            .multiply_and_normalize_up(i.partition_mb, f64::from(i.usage_ratio))
            .memory_mb;
        let current = if consumed < queue_capacity {
            queue_capacity
        } else {
            consumed + required
        };
        let equal_share = divide_and_ceil(i.active_used_mb + required, i.active_users as f32);
        let ulp = f64::from(spec.minimum_user_limit_percent as f32);
        let floor_share = divide_and_ceil((current as f64 * ulp) as u64, 100.0);
        let limit = equal_share.max(floor_share);
        let max_user = if spec.user_limit_factor == -1.0 || i.capacity_mb == 0 {
            i.max_capacity_mb / step * step
        } else {
            (queue_capacity as f64 * f64::from(spec.user_limit_factor as f32)) as u64
        };
        limit.min(max_user).div_ceil(step) * step
    }

    /// The user limit of queue `q` in the default partition.
    pub(super) fn user_limit_mb(&self, q: usize) -> u64 {
        let lq = &self.queues[q];
        let total = self.cluster_mb;
        let (mut ratio, mut active_used, mut active) = (0f32, 0u64, 0u32);
        for u in lq.users.values() {
            ratio += usage_ratio(u.used_mb, total);
            if u.asking_apps > 0 {
                active_used += u.used_mb;
                active += 1;
            }
        }
        let inputs = UserLimitInputs {
            partition_mb: total,
            capacity_mb: self.capacity_mb(q),
            max_capacity_mb: (total as f64 * lq.spec.maximum_capacity / 100.0) as u64,
            usage_ratio: ratio,
            active_used_mb: active_used,
            active_users: active,
        };
        self.compute_user_limit(&lq.spec, &inputs)
    }

    /// `UsersManager.getNumActiveUsers`: the active users and the users whose applications
    /// all wait for activation (`activeUsersWithOnlyPendingApps`; Hadoop refreshes that count
    /// when it recomputes a user limit, here it is always current).
    pub(super) fn num_active_users(&self, q: usize) -> u32 {
        let users = self.queues[q].users.values();
        users
            .filter(|u| u.asking_apps > 0 || (u.pending_apps > 0 && u.active_apps == 0))
            .count() as u32
    }

    /// `getUserAMResourceLimitPerPartition` for a partition where the queue has `capacity_mb`
    /// and `am_percent`: the capacity times the percent times the effective user limit (the
    /// larger of `minimum-user-limit-percent` and an equal share of the active users, at most
    /// one) times `user-limit-factor` (the factor and the share left out when it is -1),
    /// rounded up to the minimum allocation, at most the queue's AM limit.
    pub(super) fn user_am_limit_of(
        &self,
        q: usize,
        capacity_mb: u64,
        am_percent: f64,
        queue_limit: Resource,
    ) -> Resource {
        let spec = &self.queues[q].spec;
        let users = self.num_active_users(q).max(1);
        let ulp = spec.minimum_user_limit_percent as f32 / 100.0;
        let effective = ulp.max(1.0 / users as f32).min(1.0);
        let pct = am_percent as f32;
        let by = if spec.user_limit_factor == -1.0 {
            pct
        } else {
            pct * effective * spec.user_limit_factor as f32
        };
        let user = self.multiply_and_normalize_up(capacity_mb, f64::from(by));
        if user.memory_mb <= queue_limit.memory_mb {
            user
        } else {
            queue_limit
        }
    }

    /// Whether the attempt counts toward its user's active applications with asks: activated,
    /// and its AM container or some container still asked for; the user's count follows.
    pub(super) fn refresh_asking(&mut self, attempt: ApplicationAttemptId) {
        let Some(a) = self.attempts.get(&attempt) else {
            return;
        };
        let wants = a.active
            && (self.asking.contains(&attempt)
                || self.pending_am.iter().any(|(x, _)| *x == attempt));
        if wants == a.asking_user {
            return;
        }
        let (q, user) = (a.queue, a.user.clone());
        if let Some(a) = self.attempts.get_mut(&attempt) {
            a.asking_user = wants;
        }
        let u = self.queues[q].users.entry(user).or_default();
        if wants {
            u.asking_apps += 1;
        } else {
            u.asking_apps = u.asking_apps.saturating_sub(1);
        }
    }
}
