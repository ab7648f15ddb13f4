//! Where every SparkContext of the run posts its `SparkListener` events: the recorded
//! `LiveListenerBus` (Spark: `org.apache.spark.scheduler.LiveListenerBus`). The events themselves
//! are records of the messages crate (`sparkyard_messages::listener`). Recording is off unless an
//! output needs it; a SparkContext's management listener (dynamic allocation's
//! `ExecutorAllocationListener` and `ExecutorMonitor`, Spark's `addToManagementQueue`) hears
//! every event whether or not it is recorded.

use sparkyard_messages::ids::ExecutorId;
use sparkyard_messages::listener::ListenerEvent;
use std::cell::RefCell;
use std::rc::Rc;

/// The events of one application attempt's SparkContext.
#[derive(Clone, Debug, Default)]
pub struct AttemptEvents {
    pub app_id: String,
    pub attempt_id: u32,
    pub events: Vec<ListenerEvent>,
}

/// Where every SparkContext of the run posts its events.
#[derive(Clone, Default)]
pub struct ListenerBus {
    pub enabled: bool,
    attempts: Rc<RefCell<Vec<AttemptEvents>>>,
}

/// A listener on the management queue: told of each event as it is posted.
pub trait ManagementListener {
    /// Every event but a task's start and end.
    fn on_event(&self, event: &ListenerEvent);
    /// A task's start or end (`onTaskStart` / `onTaskEnd`), typed and allocation-free: the
    /// scheduler posts one per task, so the management queue must not pay for the recorded
    /// event's strings (the scale bench's task phase with dynamic allocation on).
    fn on_task(&self, event: &TaskEvent);
    /// A cached RDD block stored on or removed from an executor (`onBlockUpdated` of an
    /// `RDDBlockId`, the only blocks ExecutorMonitor reads); typed, so the management queue
    /// does not pay for the recorded `SparkListenerBlockUpdated`'s strings.
    fn on_block(&self, _event: &BlockEvent) {}
}

/// `SparkListenerBlockUpdated` of an RDD block, as `ExecutorMonitor.onBlockUpdated` reads it:
/// `stored` is a valid storage level (the block is cached there), `false` is `StorageLevel.NONE`
/// (removed). sparkyard caches MEMORY_ONLY blocks only, which count whether or not the external
/// shuffle service could serve disk blocks (SPARK-27677).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockEvent {
    pub executor: ExecutorId,
    pub rdd_id: u32,
    pub split_index: u32,
    pub stored: bool,
}

/// How a task ended, as `ExecutorAllocationListener.onTaskEnd` distinguishes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEndKind {
    Success,
    Killed,
    Failed,
}

/// What happened to the task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskEventKind {
    Start,
    End(TaskEndKind),
}

/// A task's start or end as the management queue hears it: the fields of SparkListenerTaskStart
/// / SparkListenerTaskEnd that dynamic allocation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskEvent {
    pub stage_id: u32,
    pub stage_attempt_id: u32,
    /// The task's index in its task set (`TaskInfo.index`).
    pub index: u32,
    /// A speculative copy (`TaskInfo.speculative`).
    pub speculative: bool,
    pub executor: ExecutorId,
    pub kind: TaskEventKind,
}

/// One SparkContext's handle on the bus.
#[derive(Clone)]
pub struct ContextBus {
    enabled: bool,
    index: usize,
    attempts: Rc<RefCell<Vec<AttemptEvents>>>,
    listener: Option<Rc<dyn ManagementListener>>,
}

impl ListenerBus {
    pub fn new(enabled: bool) -> Self {
        ListenerBus {
            enabled,
            attempts: Rc::default(),
        }
    }

    /// A new SparkContext (one per AM attempt in cluster mode).
    pub fn context(&self, app_id: String, attempt_id: u32) -> ContextBus {
        let mut a = self.attempts.borrow_mut();
        if self.enabled {
            a.push(AttemptEvents {
                app_id,
                attempt_id,
                events: Vec::new(),
            });
        }
        ContextBus {
            enabled: self.enabled,
            index: a.len().saturating_sub(1),
            attempts: self.attempts.clone(),
            listener: None,
        }
    }

    pub fn take(&self) -> Vec<AttemptEvents> {
        std::mem::take(&mut *self.attempts.borrow_mut())
    }
}

impl ContextBus {
    /// A bus that records nothing (tests, or when no output wants events).
    pub fn disabled() -> Self {
        ContextBus {
            enabled: false,
            index: 0,
            attempts: Rc::default(),
            listener: None,
        }
    }

    /// This bus with `listener` on its management queue (clones made after share it).
    pub fn with_listener(mut self, listener: Rc<dyn ManagementListener>) -> Self {
        self.listener = Some(listener);
        self
    }

    /// Whether anyone hears an event: the recording or a management listener.
    pub fn enabled(&self) -> bool {
        self.enabled || self.listener.is_some()
    }

    /// `post(event)`; `make` runs only when someone hears it.
    pub fn post(&self, make: impl FnOnce() -> ListenerEvent) {
        if !self.enabled() {
            return;
        }
        let event = make();
        if let Some(l) = &self.listener {
            l.on_event(&event);
        }
        self.record(event);
    }

    /// `post` of a TaskStart / TaskEnd: the management listener hears the typed `task`, and
    /// `make` builds the recorded event only when the bus records.
    pub fn post_task(&self, task: TaskEvent, make: impl FnOnce() -> ListenerEvent) {
        if let Some(l) = &self.listener {
            l.on_task(&task);
        }
        if self.enabled {
            crate::kernel::logs::out_of_line(|| self.record(make()));
        }
    }

    /// `post(SparkListenerBlockUpdated)`, as BlockManagerMasterEndpoint posts it for every
    /// successful `UpdateBlockInfo`: the management queue hears an RDD block's (`rdd`) typed,
    /// and `make` builds the recorded event only when the bus records (the event log writes
    /// it with `spark.eventLog.logBlockUpdates.enabled`).
    pub fn post_block(
        &self,
        rdd: Option<BlockEvent>,
        make: impl FnOnce() -> sparkyard_messages::listener::BlockUpdatedInfo,
    ) {
        if let (Some(l), Some(block)) = (&self.listener, rdd) {
            l.on_block(&block);
        }
        if self.enabled {
            self.record(ListenerEvent::BlockUpdated(Box::new(make())));
        }
    }

    fn record(&self, event: ListenerEvent) {
        if self.enabled
            && let Some(a) = self.attempts.borrow_mut().get_mut(self.index)
        {
            a.events.push(event);
        }
    }
}
