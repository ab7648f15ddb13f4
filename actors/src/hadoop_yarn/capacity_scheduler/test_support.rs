//! What the CapacityScheduler's test modules share: Hadoop's test units and ids.

use super::Resource;
use sparkyard_messages::ids::{ApplicationAttemptId, ApplicationId};

pub const GB: u64 = 1024;

pub fn res(memory_mb: u64, vcores: u32) -> Resource {
    Resource {
        memory_mb,
        vcores,
        gpus: 0,
    }
}

/// Attempt 1 of application `app` (cluster timestamp 1), as the Hadoop suites build them.
pub fn attempt(app: u32) -> ApplicationAttemptId {
    let id = ApplicationId {
        cluster_timestamp: 1,
        id: app,
    };
    ApplicationAttemptId::new(id, 1)
}
