//! The driver's `LiveListenerBus`, recorded: the `SparkListener` events the event log is made of
//! (application, environment, executors, block managers, jobs, stages, tasks), stamped with the
//! virtual wall clock. Recording is off unless an output needs it.

use std::cell::RefCell;
use std::rc::Rc;

/// `TaskInfo` as the event log writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskInfo {
    pub task_id: u64,
    pub index: u32,
    pub attempt: u32,
    pub partition_id: u32,
    pub launch_time: u64,
    pub executor_id: String,
    pub host: String,
    /// `PROCESS_LOCAL`, `NODE_LOCAL`, `RACK_LOCAL`, `ANY`.
    pub locality: &'static str,
    pub finish_time: u64,
    pub failed: bool,
    pub killed: bool,
}

/// `TaskEndReason`.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskEndReason {
    Success,
    Resubmitted,
    ExceptionFailure {
        class: String,
        description: String,
    },
    ExecutorLostFailure {
        executor_id: String,
        exit_caused_by_app: bool,
        loss_reason: String,
    },
    TaskKilled {
        reason: String,
    },
}

/// `StageInfo`.
#[derive(Clone, Debug, PartialEq)]
pub struct StageInfo {
    pub stage_id: u32,
    pub attempt_id: u32,
    pub name: String,
    pub num_tasks: u32,
    pub rdd_id: u32,
    /// The RDD's name (`MapPartitionsRDD`) and call site (`map at SparkPi.scala:34`).
    pub rdd_name: String,
    pub rdd_callsite: String,
    pub parent_ids: Vec<u32>,
    pub submission_time: Option<u64>,
    pub completion_time: Option<u64>,
    pub failure_reason: Option<String>,
    pub is_shuffle_map: bool,
}

/// One `SparkListenerEvent`.
#[derive(Clone, Debug, PartialEq)]
pub enum ListenerEvent {
    LogStart {
        spark_version: String,
    },
    ResourceProfileAdded {
        executor_cores: u32,
        executor_memory_mb: u64,
        task_cpus: u32,
    },
    BlockManagerAdded {
        time: u64,
        executor_id: String,
        host: String,
        port: u16,
        max_memory: u64,
    },
    EnvironmentUpdate {
        spark_properties: Vec<(String, String)>,
        hadoop_properties: Vec<(String, String)>,
    },
    ApplicationStart {
        app_name: String,
        app_id: String,
        time: u64,
        user: String,
        attempt_id: String,
        driver_logs: Vec<(String, String)>,
    },
    ExecutorAdded {
        time: u64,
        executor_id: String,
        host: String,
        total_cores: u32,
        log_urls: Vec<(String, String)>,
    },
    ExecutorRemoved {
        time: u64,
        executor_id: String,
        reason: String,
    },
    JobStart {
        job_id: u32,
        time: u64,
        stages: Vec<StageInfo>,
    },
    StageSubmitted {
        stage: StageInfo,
    },
    TaskStart {
        stage_id: u32,
        stage_attempt_id: u32,
        info: TaskInfo,
    },
    TaskEnd {
        stage_id: u32,
        stage_attempt_id: u32,
        shuffle_map: bool,
        reason: TaskEndReason,
        info: TaskInfo,
        run_time_ms: u64,
    },
    StageCompleted {
        stage: StageInfo,
    },
    /// `result`: `None` for JobSucceeded, `Some(message)` for JobFailed.
    JobEnd {
        job_id: u32,
        time: u64,
        result: Option<String>,
    },
    ApplicationEnd {
        time: u64,
        exit_code: i32,
    },
}

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

/// One SparkContext's handle on the bus.
#[derive(Clone)]
pub struct ContextBus {
    enabled: bool,
    index: usize,
    attempts: Rc<RefCell<Vec<AttemptEvents>>>,
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
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// `post(event)`; `make` runs only when recording.
    pub fn post(&self, make: impl FnOnce() -> ListenerEvent) {
        if self.enabled {
            let event = make();
            if let Some(a) = self.attempts.borrow_mut().get_mut(self.index) {
                a.events.push(event);
            }
        }
    }
}
