//! One NodeManager's `ContainerManagerImpl` event dispatcher (Hadoop's `AsyncDispatcher`, "NM
//! ContainerManager dispatcher"): a single thread that handles its queue's events in order, as a
//! plain state machine in virtual time. It matters only while a handler blocks it.
//!
//! What it mirrors (hadoop-yarn-server-nodemanager 3.1, `containermanager/`):
//! - `ContainerManagerImpl` registers every container, application, localization and launcher
//!   event type on one `AsyncDispatcher`, whose one thread takes its `eventQueue` in order.
//! - `ContainersLauncher.handle(CLEANUP_CONTAINER)` runs `ContainerLaunch.cleanupContainer()`
//!   inline, on that thread (Hadoop 3.1.x; 3.2 submits a `ContainerCleanup` to the launcher's
//!   pool instead). For a Docker container the cleanup's TERM becomes
//!   `DockerLinuxContainerRuntime.handleContainerStop`, a `docker stop` that returns when the
//!   container is gone: after its grace when PID 1 ignores SIGTERM (`container_runtime`). Until
//!   then no other event of the node is handled: a second kill waits for the first one's stop,
//!   a new container's localization and launch wait for both.
//!
//! The NodeManager offers each such event here: handled at once while the thread is free, else
//! queued, and handed back in order once the blocking stop has ended.

use std::collections::VecDeque;

/// The dispatcher's thread and its queue of events `E` that arrived while it was blocked.
#[derive(Debug)]
pub struct ContainerManagerEvents<E> {
    /// Virtual ms at which the handler running now returns (0: free).
    busy_until_ms: u64,
    queue: VecDeque<E>,
}

impl<E> Default for ContainerManagerEvents<E> {
    fn default() -> Self {
        ContainerManagerEvents {
            busy_until_ms: 0,
            queue: VecDeque::new(),
        }
    }
}

impl<E> ContainerManagerEvents<E> {
    /// An event arriving at `now_ms`: returned to be handled now if the thread is free and no
    /// earlier event waits, else queued behind them.
    pub fn offer(&mut self, now_ms: u64, event: E) -> Option<E> {
        if self.is_free(now_ms) && self.queue.is_empty() {
            return Some(event);
        }
        self.queue.push_back(event);
        None
    }

    /// The handler running at `now_ms` blocks the thread for `ms` (a `docker stop`); returns
    /// when it is free again, the instant to call `next` at.
    pub fn block(&mut self, now_ms: u64, ms: u64) -> u64 {
        self.busy_until_ms = self.busy_until_ms.max(now_ms + ms);
        self.busy_until_ms
    }

    /// Whether the thread handles an event at `now_ms`.
    pub fn is_free(&self, now_ms: u64) -> bool {
        now_ms >= self.busy_until_ms
    }

    /// The next queued event to handle at `now_ms`: none while the thread is blocked (a handler
    /// that blocks again holds the rest back) or when the queue is empty.
    pub fn next(&mut self, now_ms: u64) -> Option<E> {
        if !self.is_free(now_ms) {
            return None;
        }
        self.queue.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ContainersLauncher.handle(CLEANUP_CONTAINER) in Hadoop 3.1.2 calls
    // launcher.cleanupContainer() on the dispatcher's thread: two Docker containers killed on
    // one node stop one after the other, and a container started meanwhile launches after both.
    #[test]
    fn a_blocking_stop_holds_every_later_event_in_order() {
        let mut d = ContainerManagerEvents::default();
        assert_eq!(d.offer(100, "kill a"), Some("kill a"));
        assert_eq!(d.block(100, 10_000), 10_100);
        assert_eq!(d.offer(200, "kill b"), None);
        assert_eq!(d.offer(300, "start c"), None);
        assert_eq!(d.next(10_099), None, "a's docker stop still runs");
        assert_eq!(d.next(10_100), Some("kill b"));
        assert_eq!(d.block(10_100, 10_000), 20_100, "b's stop blocks in turn");
        assert_eq!(d.next(10_100), None, "c waits for b's stop too");
        assert_eq!(d.offer(15_000, "start d"), None, "behind c");
        assert_eq!(d.next(20_100), Some("start c"));
        assert_eq!(d.next(20_100), Some("start d"));
        assert_eq!(d.next(20_100), None);
        assert_eq!(d.offer(20_200, "start e"), Some("start e"), "free again");
    }

    // A handler that does not block (a default container's TERM, whose SIGKILL a
    // DelayedProcessKiller thread sends) leaves the thread free.
    #[test]
    fn without_a_blocking_stop_events_are_handled_at_once() {
        let mut d = ContainerManagerEvents::default();
        assert_eq!(d.offer(0, 1), Some(1));
        assert_eq!(d.offer(0, 2), Some(2));
        assert_eq!(d.next(0), None, "nothing waits");
        assert!(d.is_free(0));
    }
}
