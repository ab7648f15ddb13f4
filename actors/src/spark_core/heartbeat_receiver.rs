//! The driver's `HeartbeatReceiver` (core/HeartbeatReceiver.scala) as a plain state machine:
//! `executorLastSeen` kept from an executor's registration to its removal, moved on by each
//! heartbeat, and `expireDeadHosts`, which finds the executors silent for longer than the
//! timeout (the DriverEndpoint then removes and replaces them); and the answer to a heartbeat.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::records::ExecutorLossReason;
use sparkyard_messages::rpc::HeartbeatResponse;
use std::collections::BTreeMap;

/// `executorLastSeen`: when each tracked executor was last heard of (ms).
#[derive(Default, Debug)]
pub struct HeartbeatReceiver {
    last_seen: BTreeMap<ExecutorId, u64>,
}

/// An executor `expireDeadHosts` gives up on, and how long it was silent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadExecutor {
    pub id: ExecutorId,
    pub silent_ms: u64,
}

impl DeadExecutor {
    /// `expireDeadHosts`' WARN line (its pieces read from Spark 4.0.0's jar).
    pub fn removing_line(&self, timeout_ms: u64) -> String {
        format!(
            "Removing executor {} with no recent heartbeats: {} ms exceeds timeout {timeout_ms} ms",
            self.id, self.silent_ms
        )
    }

    /// The `ExecutorProcessLost(message)` it is removed with (`causedByApp` true: the
    /// default), which `killAndReplaceExecutor` follows.
    pub fn loss_reason(&self) -> ExecutorLossReason {
        ExecutorLossReason::ProcessLost {
            message: format!("Executor heartbeat timed out after {} ms", self.silent_ms),
            caused_by_app: true,
        }
    }
}

impl HeartbeatReceiver {
    /// `onExecutorAdded` -> `addExecutor`: tracked from its registration.
    pub fn executor_added(&mut self, id: ExecutorId, now: u64) {
        self.last_seen.insert(id, now);
    }

    /// `onExecutorRemoved` -> `removeExecutor`: `executorLastSeen -= id`, so
    /// `expireDeadHosts` never times out an executor that is already gone.
    pub fn executor_removed(&mut self, id: ExecutorId) {
        self.last_seen.remove(&id);
    }

    /// A heartbeat: a tracked executor's last-seen time moves on; false for one the receiver
    /// does not track (never registered, or removed: its in-flight heartbeat after removal).
    pub fn heartbeat(&mut self, id: ExecutorId, now: u64) -> bool {
        match self.last_seen.get_mut(&id) {
            Some(t) => {
                *t = now;
                true
            }
            None => false,
        }
    }

    /// `expireDeadHosts`: the executors whose last heartbeat is more than `timeout_ms` old, in
    /// id order, no longer tracked once returned.
    pub fn expire_dead_hosts(&mut self, now: u64, timeout_ms: u64) -> Vec<DeadExecutor> {
        let dead: Vec<DeadExecutor> = (self.last_seen.iter())
            .filter(|(_, seen)| now.saturating_sub(**seen) > timeout_ms)
            .map(|(id, seen)| DeadExecutor {
                id: *id,
                silent_ms: now - seen,
            })
            .collect();
        for d in &dead {
            self.last_seen.remove(&d.id);
        }
        dead
    }

    #[cfg(test)]
    fn tracks(&self, id: ExecutorId) -> bool {
        self.last_seen.contains_key(&id)
    }
}

/// `HeartbeatReceiver`'s answer to a heartbeat: `reregisterBlockManager = !sc.isStopped`,
/// kept only when the receiver does not know the executor (`executorLastSeen`) or the task
/// scheduler's `executorHeartbeatReceived` is false (the master lost its block manager).
pub fn heartbeat_response(
    sc_stopped: bool,
    last_seen: bool,
    block_manager_known: bool,
) -> HeartbeatResponse {
    let known = last_seen && block_manager_known;
    HeartbeatResponse {
        reregister_block_manager: !sc_stopped && !known,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reregister(sc_stopped: bool, last_seen: bool, block_manager_known: bool) -> bool {
        heartbeat_response(sc_stopped, last_seen, block_manager_known).reregister_block_manager
    }

    // HeartbeatReceiverSuite "normal heartbeat": a registered executor is not told to
    // re-register.
    #[test]
    fn a_registered_executor_is_not_told_to_reregister() {
        assert!(!reregister(false, true, true));
    }

    // HeartbeatReceiverSuite "reregister if heartbeat from unregistered executor" and
    // "reregister if heartbeat from removed executor": the receiver does not track it.
    #[test]
    fn an_unknown_or_removed_executor_is_told_to_reregister() {
        assert!(reregister(false, false, false));
        assert!(reregister(false, false, true));
    }

    // HeartbeatReceiver.receiveAndReply (4.0.0 jar): a tracked executor whose block manager
    // the master does not know (`executorHeartbeatReceived` false) re-registers too.
    #[test]
    fn an_executor_whose_block_manager_is_unknown_is_told_to_reregister() {
        assert!(reregister(false, true, false));
    }

    // HeartbeatReceiverSuite "SPARK-34273: Do not reregister BlockManager when SparkContext is
    // stopped".
    #[test]
    fn nobody_reregisters_once_the_spark_context_stopped() {
        assert!(!reregister(true, false, false));
        assert!(!reregister(true, true, false));
    }

    fn e(n: u32) -> ExecutorId {
        ExecutorId(n)
    }

    // HeartbeatReceiverSuite "normal heartbeat": two registered executors; a heartbeat from one
    // moves its last-seen time and keeps it tracked.
    #[test]
    fn a_heartbeat_moves_a_registered_executors_last_seen_time() {
        let mut r = HeartbeatReceiver::default();
        r.executor_added(e(1), 0);
        r.executor_added(e(2), 0);
        assert!(r.heartbeat(e(1), 5_000));
        assert_eq!(
            r.expire_dead_hosts(125_000, 120_000),
            [DeadExecutor {
                id: e(2),
                silent_ms: 125_000
            }]
        );
        assert!(
            r.tracks(e(1)),
            "heard of 120 s ago: not yet past the timeout"
        );
    }

    // HeartbeatReceiverSuite "reregister if heartbeat from unregistered executor" / "... from
    // removed executor": the receiver does not track it, and the heartbeat does not add it.
    #[test]
    fn a_heartbeat_from_an_unregistered_or_removed_executor_is_not_tracked() {
        let mut r = HeartbeatReceiver::default();
        assert!(!r.heartbeat(e(1), 0));
        r.executor_added(e(2), 0);
        r.executor_removed(e(2));
        assert!(!r.heartbeat(e(2), 10));
        assert!(!r.tracks(e(1)) && !r.tracks(e(2)));
    }

    // HeartbeatReceiverSuite "expire dead hosts": executors silent for longer than the
    // timeout are expired (and no longer tracked, so a second pass expires nothing); one heard
    // of exactly `timeout` ago is not (`now - lastSeenMs > executorTimeoutMs`).
    #[test]
    fn dead_hosts_expire_once_past_the_timeout() {
        let mut r = HeartbeatReceiver::default();
        r.executor_added(e(1), 0);
        r.executor_added(e(2), 1_000);
        assert!(
            r.expire_dead_hosts(121_000, 120_000)
                .iter()
                .all(|d| d.id != e(2))
        );
        let dead = r.expire_dead_hosts(122_000, 120_000);
        assert_eq!(
            dead,
            [DeadExecutor {
                id: e(2),
                silent_ms: 121_000
            }]
        );
        assert!(r.expire_dead_hosts(500_000, 120_000).is_empty());
    }

    // HeartbeatReceiver.expireDeadHosts (4.0.0 jar: "Removing executor ", " with no recent
    // heartbeats: ", " ms exceeds timeout "; the loss message "Executor heartbeat timed out
    // after N ms" of HeartbeatReceiverSuite "expire dead hosts should kill executors with
    // replacement (SPARK-8119)"): an expired executor's WARN line and loss reason, caused by
    // the app (ExecutorProcessLost's default).
    #[test]
    fn an_expired_executors_line_and_loss_message() {
        let dead = DeadExecutor {
            id: e(3),
            silent_ms: 121_000,
        };
        assert_eq!(
            dead.removing_line(120_000),
            "Removing executor 3 with no recent heartbeats: 121000 ms exceeds timeout 120000 ms"
        );
        assert_eq!(
            dead.loss_reason(),
            ExecutorLossReason::ProcessLost {
                message: "Executor heartbeat timed out after 121000 ms".to_string(),
                caused_by_app: true,
            }
        );
    }
}
