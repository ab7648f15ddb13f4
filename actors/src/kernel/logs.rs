//! Process logs: each simulated JVM or daemon writes log4j-style lines (`yy/MM/dd HH:mm:ss INFO
//! Logger: text`) to its own stderr and program output to its stdout, as a YARN container does.
//! Lines also go to the `log` facade, whose target (`am::ApplicationMaster`, `submit::Client`)
//! lets the console filter by process kind. Nothing here touches files: the root crate writes them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

pub use log::Level;

/// A process's captured output.
#[derive(Default, Clone, Debug)]
pub struct ProcessOutput {
    pub stdout: String,
    pub stderr: String,
    /// For a container: the NodeManager host it ran on and its `launch_container.sh`.
    pub host: Option<String>,
    pub launch_command: Option<String>,
}

/// Container logs keep what log4j's default `INFO` root logger keeps.
pub const CAPTURE_LEVEL: Level = Level::Info;

/// Every process's captured output, by process key (a container id, `spark-submit`, ...).
#[derive(Default)]
pub struct LogStore {
    pub capture: bool,
    outputs: BTreeMap<String, ProcessOutput>,
}

impl LogStore {
    pub fn new(capture: bool) -> Self {
        LogStore {
            capture,
            outputs: BTreeMap::new(),
        }
    }

    pub fn outputs(&self) -> &BTreeMap<String, ProcessOutput> {
        &self.outputs
    }

    pub fn output(&self, key: &str) -> Option<&ProcessOutput> {
        self.outputs.get(key)
    }

    /// Records where a container ran and what it ran (`launch_container.sh`).
    pub fn set_container(&mut self, key: &str, host: &str, command: &str) {
        if !self.capture {
            return;
        }
        let out = self.outputs.entry(key.to_string()).or_default();
        out.host = Some(host.to_string());
        out.launch_command = Some(command.to_string());
    }
}

/// A process's logger handle.
#[derive(Clone)]
pub struct ProcessLog {
    key: Rc<str>,
    store: Rc<RefCell<LogStore>>,
}

impl ProcessLog {
    pub fn new(key: &str, store: Rc<RefCell<LogStore>>) -> Self {
        ProcessLog {
            key: key.into(),
            store,
        }
    }

    /// A logger whose key is already shared (a container's process name is its log key).
    pub fn shared(key: Rc<str>, store: Rc<RefCell<LogStore>>) -> Self {
        ProcessLog { key, store }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether the run captures outputs (process logs, container files such as
    /// `launch_container.sh`); a run without them need not build what only they show.
    pub fn captures(&self) -> bool {
        self.store.borrow().capture
    }

    /// Whether a line at this level for this target would go anywhere.
    pub fn enabled(&self, target: &'static str, level: Level) -> bool {
        (self.store.borrow().capture && level <= CAPTURE_LEVEL)
            || log::log_enabled!(target: target, level)
    }

    /// Writes one log line; `target` is `<process kind>::<Spark logger name>`.
    pub fn log(&self, target: &'static str, level: Level, args: fmt::Arguments<'_>) {
        if log::log_enabled!(target: target, level) {
            log::log!(target: target, level, "{}", args);
        }
        let mut store = self.store.borrow_mut();
        if store.capture && level <= CAPTURE_LEVEL {
            let line = format_line(
                super::clock::now_epoch_ms(),
                level,
                logger_name(target),
                args,
            );
            store
                .outputs
                .entry(self.key.to_string())
                .or_default()
                .stderr
                .push_str(&line);
        }
    }

    /// Writes a line to the process's stderr as it is, outside log4j (what a JVM prints with
    /// `System.err.println` before its logging is set up).
    pub fn stderr_raw(&self, line: &str) {
        self.append_line(line, |out| &mut out.stderr);
    }

    /// Writes program output (`println` in the user program) to the process's stdout.
    pub fn stdout(&self, line: &str) {
        self.append_line(line, |out| &mut out.stdout);
    }

    /// Appends `line` and a newline to one of the process's captured streams.
    fn append_line(&self, line: &str, stream: impl FnOnce(&mut ProcessOutput) -> &mut String) {
        let mut store = self.store.borrow_mut();
        if !store.capture {
            return;
        }
        let text = stream(store.outputs.entry(self.key.to_string()).or_default());
        text.push_str(line);
        text.push('\n');
    }
}

/// The Spark logger name in a target (`am::YarnAllocator` -> `YarnAllocator`).
pub fn logger_name(target: &str) -> &str {
    target.rsplit("::").next().unwrap_or(target)
}

/// One log4j line, `%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n`.
pub fn format_line(epoch_ms: u64, level: Level, logger: &str, args: fmt::Arguments<'_>) -> String {
    format!(
        "{} {} {}: {}\n",
        super::clock::format_log4j(epoch_ms),
        level,
        logger,
        args
    )
}

/// Runs `f` in a function of its own, kept out of its caller's code: a log line's formatting
/// (or a recorded event's construction) sits behind a test that is false on the hot paths of
/// a bench run, and inlined it would spread those paths over more instruction-cache lines
/// than they execute (the 1 M-task path's code no longer fits the first-level cache).
#[cold]
#[inline(never)]
pub fn out_of_line<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `info!(log, TARGET, "...", args)`: a Spark-style log line from a role.
#[macro_export]
macro_rules! sim_log {
    ($log:expr, $target:expr, $level:expr, $($arg:tt)+) => {{
        let log: &$crate::kernel::logs::ProcessLog = &$log;
        if log.enabled($target, $level) {
            $crate::kernel::logs::out_of_line(|| log.log($target, $level, format_args!($($arg)+)));
        }
    }};
}

#[macro_export]
macro_rules! info {
    ($log:expr, $target:expr, $($arg:tt)+) => { $crate::sim_log!($log, $target, $crate::kernel::logs::Level::Info, $($arg)+) };
}

#[macro_export]
macro_rules! warn {
    ($log:expr, $target:expr, $($arg:tt)+) => { $crate::sim_log!($log, $target, $crate::kernel::logs::Level::Warn, $($arg)+) };
}

#[macro_export]
macro_rules! error {
    ($log:expr, $target:expr, $($arg:tt)+) => { $crate::sim_log!($log, $target, $crate::kernel::logs::Level::Error, $($arg)+) };
}

#[macro_export]
macro_rules! debug {
    ($log:expr, $target:expr, $($arg:tt)+) => { $crate::sim_log!($log, $target, $crate::kernel::logs::Level::Debug, $($arg)+) };
}
