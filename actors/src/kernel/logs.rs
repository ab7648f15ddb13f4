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
    stamp: StampCache,
}

/// log4j's date of the last second a captured line was stamped in: a run writes many lines in
/// each virtual second, and formatting the date was a third of what a captured line cost.
#[derive(Default)]
struct StampCache {
    /// Epoch seconds `text` shows (`None`: nothing stamped yet).
    second: Option<u64>,
    text: String,
}

impl StampCache {
    /// `yy/MM/dd HH:mm:ss` of `epoch_ms` (the layout shows whole seconds only).
    fn at(&mut self, epoch_ms: u64) -> &str {
        let second = epoch_ms / 1000;
        if self.second != Some(second) {
            self.text = super::clock::format_log4j(epoch_ms);
            self.second = Some(second);
        }
        &self.text
    }
}

/// The output kept under `key`, created empty the first time (the key is copied only then).
fn output_mut<'a>(
    outputs: &'a mut BTreeMap<String, ProcessOutput>,
    key: &str,
) -> &'a mut ProcessOutput {
    if !outputs.contains_key(key) {
        outputs.insert(key.to_owned(), ProcessOutput::default());
    }
    outputs.get_mut(key).expect("inserted above")
}

impl LogStore {
    pub fn new(capture: bool) -> Self {
        LogStore {
            capture,
            outputs: BTreeMap::new(),
            stamp: StampCache::default(),
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
        let out = output_mut(&mut self.outputs, key);
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
            // Written in place: no line, date or key string is built per line.
            let LogStore { outputs, stamp, .. } = &mut *store;
            let stamp = stamp.at(super::clock::now_epoch_ms());
            let logger = logger_name(target);
            // One search of the map for a process that has written before (nearly every line).
            match outputs.get_mut(&*self.key) {
                Some(out) => write_line(&mut out.stderr, stamp, level, logger, args),
                None => {
                    let mut out = ProcessOutput::default();
                    write_line(&mut out.stderr, stamp, level, logger, args);
                    outputs.insert(self.key.to_string(), out);
                }
            }
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
        let text = stream(output_mut(&mut store.outputs, &self.key));
        text.push_str(line);
        text.push('\n');
    }
}

/// The Spark logger name in a target (`am::YarnAllocator` -> `YarnAllocator`): what follows
/// the last `::`. A scan of the bytes: a `str` pattern search cost more than the rest of a line.
pub fn logger_name(target: &str) -> &str {
    let b = target.as_bytes();
    (2..=b.len())
        .rev()
        .find(|&end| &b[end - 2..end] == b"::")
        .map_or(target, |end| &target[end..])
}

/// One log4j line, `%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n`.
pub fn format_line(epoch_ms: u64, level: Level, logger: &str, args: fmt::Arguments<'_>) -> String {
    let mut line = String::new();
    write_line(
        &mut line,
        &super::clock::format_log4j(epoch_ms),
        level,
        logger,
        args,
    );
    line
}

/// Appends one log4j line to `out`, its date already formatted (`stamp`).
fn write_line(out: &mut String, stamp: &str, level: Level, logger: &str, args: fmt::Arguments<'_>) {
    use std::fmt::Write as _;
    out.push_str(stamp);
    out.push(' ');
    // `Level`'s Display pads its name; without a width that is the name itself.
    out.push_str(level.as_str());
    out.push(' ');
    out.push_str(logger);
    out.push_str(": ");
    match args.as_str() {
        Some(text) => out.push_str(text),
        None => {
            let _ = out.write_fmt(args);
        }
    }
    out.push('\n');
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

#[cfg(test)]
mod tests {
    use super::*;

    // The line written in place is the one `format!` made before: date, level, logger, text.
    #[test]
    fn a_line_is_log4j_layout() {
        let t = 1_741_618_776_804; // 2025-03-10 14:59:36.804 UTC
        for level in [Level::Error, Level::Warn, Level::Info, Level::Debug] {
            let n = 7;
            let line = format_line(t, level, "Client", format_args!("Application report {n}"));
            assert_eq!(
                line,
                format!("25/03/10 14:59:36 {level} Client: Application report 7\n")
            );
        }
        let plain = format_line(t, Level::Info, "Executor", format_args!("Told to stop"));
        assert_eq!(plain, "25/03/10 14:59:36 INFO Executor: Told to stop\n");
    }

    // The logger is what follows the last `::`, as `rsplit("::")` finds it.
    #[test]
    fn the_logger_is_the_targets_last_part() {
        for t in [
            "am::YarnAllocator",
            "spark::Inbox",
            "Client",
            "",
            "a::b::C",
            "x:::y",
            "::",
            "a:b",
        ] {
            assert_eq!(logger_name(t), t.rsplit("::").next().unwrap_or(t), "{t}");
        }
        assert_eq!(logger_name("executor::Executor"), "Executor");
    }

    // The kept date serves every line of its second and changes with the next one.
    #[test]
    fn the_kept_date_follows_the_second() {
        let mut cache = StampCache::default();
        let t = 1_741_618_776_000;
        assert_eq!(cache.at(t), "25/03/10 14:59:36");
        assert_eq!(cache.at(t + 999), "25/03/10 14:59:36");
        assert_eq!(cache.at(t + 1_000), "25/03/10 14:59:37");
        assert_eq!(cache.at(t + 86_400_000), "25/03/11 14:59:36");
        assert_eq!(cache.at(t), "25/03/10 14:59:36");
    }

    // Captured lines land in their own process's stderr, in order, and not in another's.
    #[test]
    fn captured_lines_go_to_their_process() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let a = ProcessLog::new("container_1", store.clone());
        let b = ProcessLog::new("container_2", store.clone());
        a.log("executor::Executor", Level::Info, format_args!("one"));
        b.log("executor::Executor", Level::Warn, format_args!("two {}", 2));
        a.log("executor::Executor", Level::Debug, format_args!("not kept"));
        a.log("executor::Executor", Level::Info, format_args!("three"));
        let s = store.borrow();
        let stderr = |k: &str| s.output(k).map(|o| o.stderr.clone()).unwrap_or_default();
        assert_eq!(
            stderr("container_1"),
            "70/01/01 00:00:00 INFO Executor: one\n70/01/01 00:00:00 INFO Executor: three\n"
        );
        assert_eq!(
            stderr("container_2"),
            "70/01/01 00:00:00 WARN Executor: two 2\n"
        );
    }
}
