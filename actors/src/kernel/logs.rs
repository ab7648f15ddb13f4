//! Process logs: each simulated JVM or daemon writes log4j-style lines (`yy/MM/dd HH:mm:ss INFO
//! Logger: text`) to its own stderr and program output to its stdout, as a YARN container does.
//! Lines also go to the `log` facade, whose target (`am::ApplicationMaster`, `submit::Client`)
//! lets the console filter by process kind. Nothing here touches files: the root crate writes them.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, btree_map};
use std::fmt;
use std::rc::Rc;

use sparkyard_messages::ids::{ExecutorId, TaskId};
use sparkyard_messages::jvm_text::Decimal;
use sparkyard_messages::task::TaskName;

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
    /// Each process's output, in the order the processes first wrote; a `ProcessLog` keeps the
    /// index of its own, so a line finds its stderr without searching the keys (a search of
    /// 38-character container ids sharing their first 30 was a fifth of a line's cost).
    slots: Vec<Slot>,
    /// The slot of each key, in key order (what `outputs` walks).
    by_key: BTreeMap<String, usize>,
    stamp: StampCache,
}

/// One process's output and the key it is kept under.
struct Slot {
    key: Rc<str>,
    output: ProcessOutput,
}

/// Every process's output in key order, as `(key, output)` pairs.
#[derive(Clone, Copy)]
pub struct Outputs<'a> {
    store: &'a LogStore,
}

impl<'a> Outputs<'a> {
    pub fn iter(self) -> OutputsIter<'a> {
        OutputsIter {
            keys: self.store.by_key.iter(),
            slots: &self.store.slots,
        }
    }

    pub fn values(self) -> impl Iterator<Item = &'a ProcessOutput> {
        self.iter().map(|(_, out)| out)
    }
}

impl<'a> IntoIterator for Outputs<'a> {
    type Item = (&'a String, &'a ProcessOutput);
    type IntoIter = OutputsIter<'a>;
    fn into_iter(self) -> OutputsIter<'a> {
        self.iter()
    }
}

/// The walk of `Outputs`: the keys in order, each with its slot's output.
pub struct OutputsIter<'a> {
    keys: btree_map::Iter<'a, String, usize>,
    slots: &'a [Slot],
}

impl<'a> Iterator for OutputsIter<'a> {
    type Item = (&'a String, &'a ProcessOutput);
    fn next(&mut self) -> Option<Self::Item> {
        self.keys
            .next()
            .map(|(key, &slot)| (key, &self.slots[slot].output))
    }
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

impl LogStore {
    pub fn new(capture: bool) -> Self {
        LogStore {
            capture,
            ..LogStore::default()
        }
    }

    pub fn outputs(&self) -> Outputs<'_> {
        Outputs { store: self }
    }

    pub fn output(&self, key: &str) -> Option<&ProcessOutput> {
        self.by_key.get(key).map(|&slot| &self.slots[slot].output)
    }

    /// The slot of `key`'s output, created empty the first time (the key is copied only then).
    fn slot_of(&mut self, key: &Rc<str>) -> usize {
        if let Some(&slot) = self.by_key.get(&**key) {
            return slot;
        }
        let slot = self.slots.len();
        self.slots.push(Slot {
            key: key.clone(),
            output: ProcessOutput::default(),
        });
        self.by_key.insert(key.to_string(), slot);
        slot
    }

    /// The slot of `key`'s output through the slot its handle remembers (`known`), searching
    /// the keys only the first time or when `known` is another store's (a store is taken out
    /// of its run at the end, and a fresh one left in its place).
    fn slot_known(&mut self, key: &Rc<str>, known: &Cell<Option<usize>>) -> usize {
        if let Some(slot) = known.get()
            && self
                .slots
                .get(slot)
                .is_some_and(|s| Rc::ptr_eq(&s.key, key) || s.key == *key)
        {
            return slot;
        }
        let slot = self.slot_of(key);
        known.set(Some(slot));
        slot
    }

    /// Records where a container ran and what it ran (`launch_container.sh`).
    pub fn set_container(&mut self, key: &str, host: &str, command: &str) {
        if !self.capture {
            return;
        }
        let slot = self.slot_of(&Rc::from(key));
        let out = &mut self.slots[slot].output;
        out.host = Some(host.to_string());
        out.launch_command = Some(command.to_string());
    }
}

/// A process's logger handle.
#[derive(Clone)]
pub struct ProcessLog {
    key: Rc<str>,
    store: Rc<RefCell<LogStore>>,
    /// The store's slot of this process's output, once found (`LogStore::slot_known`).
    slot: Cell<Option<usize>>,
}

impl ProcessLog {
    pub fn new(key: &str, store: Rc<RefCell<LogStore>>) -> Self {
        ProcessLog {
            key: key.into(),
            store,
            slot: Cell::new(None),
        }
    }

    /// A logger whose key is already shared (a container's process name is its log key).
    pub fn shared(key: Rc<str>, store: Rc<RefCell<LogStore>>) -> Self {
        ProcessLog {
            key,
            store,
            slot: Cell::new(None),
        }
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
        self.capture(target, level, |out| match args.as_str() {
            Some(text) => out.push_str(text),
            None => {
                use std::fmt::Write as _;
                let _ = out.write_fmt(args);
            }
        });
    }

    /// Writes one log line whose text `text` pushes piece by piece (`info_parts!`): the same
    /// line as `log` with `format_args!`, without `core::fmt`'s walk over its arguments.
    pub fn log_parts(&self, target: &'static str, level: Level, text: impl Fn(&mut String)) {
        if log::log_enabled!(target: target, level) {
            let mut line = String::new();
            text(&mut line);
            log::log!(target: target, level, "{}", line);
        }
        self.capture(target, level, text);
    }

    /// Appends the line to the process's captured stderr when the run captures this level.
    fn capture(&self, target: &'static str, level: Level, text: impl FnOnce(&mut String)) {
        let mut store = self.store.borrow_mut();
        if store.capture && level <= CAPTURE_LEVEL {
            // Written in place: no line, date or key string is built per line.
            let slot = store.slot_known(&self.key, &self.slot);
            let LogStore { slots, stamp, .. } = &mut *store;
            let stamp = stamp.at(super::clock::now_epoch_ms());
            let stderr = &mut slots[slot].output.stderr;
            write_line(stderr, stamp, level, logger_name(target), text);
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
        let slot = store.slot_known(&self.key, &self.slot);
        let text = stream(&mut store.slots[slot].output);
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
    use std::fmt::Write as _;
    let mut line = String::new();
    let stamp = super::clock::format_log4j(epoch_ms);
    write_line(&mut line, &stamp, level, logger, |out| {
        let _ = out.write_fmt(args);
    });
    line
}

/// Appends one log4j line to `out`, its date already formatted (`stamp`), its message written
/// by `text`.
fn write_line(
    out: &mut String,
    stamp: &str,
    level: Level,
    logger: &str,
    text: impl FnOnce(&mut String),
) {
    out.push_str(stamp);
    out.push(' ');
    // `Level`'s Display pads its name; without a width that is the name itself.
    out.push_str(level.as_str());
    out.push(' ');
    out.push_str(logger);
    out.push_str(": ");
    text(out);
    out.push('\n');
}

/// A piece of a log line pushed as it is (`info_parts!`): text, or an integer or id in the
/// digits `{}` prints, without `core::fmt`. The per-task lines (`Starting task`, `Running task`,
/// `Finished task`, `Got assigned task`) are most of a run's captured lines, and `core::fmt`'s
/// walk over their arguments (each a `Display` call, each integer through its padding code) was
/// most of what a line cost.
pub trait LinePart {
    fn put(&self, out: &mut String);
}

impl<T: LinePart + ?Sized> LinePart for &T {
    fn put(&self, out: &mut String) {
        (**self).put(out);
    }
}

impl LinePart for str {
    fn put(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl LinePart for String {
    fn put(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl LinePart for Rc<str> {
    fn put(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// The digits `{}` prints, pushed as characters (`Decimal::chars`).
impl LinePart for u64 {
    fn put(&self, out: &mut String) {
        out.extend(Decimal::new(*self).chars());
    }
}

impl LinePart for u32 {
    fn put(&self, out: &mut String) {
        u64::from(*self).put(out);
    }
}

impl LinePart for usize {
    fn put(&self, out: &mut String) {
        (*self as u64).put(out);
    }
}

impl LinePart for TaskId {
    fn put(&self, out: &mut String) {
        self.0.put(out);
    }
}

impl LinePart for ExecutorId {
    fn put(&self, out: &mut String) {
        self.0.put(out);
    }
}

/// `task <index>.<attempt> in stage <stage>.<stage attempt>`, as `TaskName`'s `Display`.
impl LinePart for TaskName {
    fn put(&self, out: &mut String) {
        out.push_str("task ");
        self.index.put(out);
        out.push('.');
        self.attempt.put(out);
        out.push_str(" in stage ");
        self.stage_id.put(out);
        out.push('.');
        self.stage_attempt_id.put(out);
    }
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

/// `info_parts!(log, TARGET, "Got assigned task ", task_id)`: an INFO line whose text is its
/// pieces (`LinePart`s) one after the other, for the lines written once or more per task.
#[macro_export]
macro_rules! info_parts {
    ($log:expr, $target:expr, $($part:expr),+ $(,)?) => {{
        let log: &$crate::kernel::logs::ProcessLog = &$log;
        let level = $crate::kernel::logs::Level::Info;
        if log.enabled($target, level) {
            $crate::kernel::logs::out_of_line(|| {
                log.log_parts($target, level, |out: &mut String| {
                    $($crate::kernel::logs::LinePart::put(&$part, out);)+
                })
            });
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

    // A line of pieces is the line `format_args!` makes of the same values, at every digit
    // count, for each kind of piece the per-task lines use.
    #[test]
    fn a_line_of_parts_is_the_formatted_line() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        let host: Rc<str> = "nm-3.example.internal".into();
        let mut want = String::new();
        for n in [0u32, 7, 10, 99, 1_000, 65_535, u32::MAX] {
            let big = u64::from(n) * 1_000_003 + u64::MAX / 2 * u64::from(n % 2);
            let name = TaskName {
                index: n,
                attempt: n / 7,
                stage_id: n % 13,
                stage_attempt_id: n % 3,
            };
            let (tid, exec, count) = (TaskId(big), ExecutorId(n), n as usize);
            crate::info_parts!(
                log,
                "x::TaskSetManager",
                "Starting ",
                name,
                " (TID ",
                tid,
                ") (",
                host,
                ",executor ",
                exec,
                ", ",
                big,
                " ",
                count,
                " ",
                "end".to_string(),
                ")"
            );
            want.push_str(&format!(
                "70/01/01 00:00:00 INFO TaskSetManager: Starting {name} (TID {tid}) ({host},executor {exec}, {big} {count} end)\n"
            ));
        }
        assert_eq!(store.borrow().output("driver").unwrap().stderr, want);
        for n in [0, 9, 10, u64::MAX] {
            let mut text = String::new();
            n.put(&mut text);
            assert_eq!(text, n.to_string());
        }
    }

    // A handle's remembered slot serves only its own key: in a store put in the first one's
    // place (the run's end takes the store and leaves a fresh one), each handle finds its own
    // output again, and `outputs` walks the keys in order whatever order they first wrote in.
    #[test]
    fn a_remembered_slot_serves_only_its_key() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let a = ProcessLog::new("container_2", store.clone());
        let b = ProcessLog::new("container_1", store.clone());
        let a_again = ProcessLog::new("container_2", store.clone());
        a.stdout("a1");
        b.stdout("b1");
        a_again.stdout("a2");
        let first = std::mem::replace(&mut *store.borrow_mut(), LogStore::new(true));
        b.stdout("b3");
        a.stdout("a3");
        let stdouts = |s: &LogStore| {
            s.outputs()
                .iter()
                .map(|(k, o)| format!("{k}={}", o.stdout))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            stdouts(&first),
            ["container_1=b1\n", "container_2=a1\na2\n"]
        );
        assert_eq!(
            stdouts(&store.borrow()),
            ["container_1=b3\n", "container_2=a3\n"]
        );
        let values: Vec<&str> = first
            .outputs()
            .values()
            .map(|o| o.stdout.as_str())
            .collect();
        assert_eq!(values, ["b1\n", "a1\na2\n"]);
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
