//! The timeline (`--trace FILE`): Chrome Trace Event JSON that Perfetto UI and chrome://tracing
//! load. A process per simulated daemon or container, a thread per endpoint or thread mailbox
//! (plus an `Outbox` thread for what the process sends, since the trace records the sending
//! process, not the sending endpoint), a slice per task on task-slot threads, a slice per
//! lifecycle phase, a flow arrow per delivered message, and instant events for state changes,
//! drops and faults. Only complete (`X`) slices are written, so every begin has its end, and a
//! flow's start is written together with its finish, so every flow has both ends.

use super::json::Obj;
use super::runmap::{ProcKind, RunMap};
use crate::error::UserError;
use crate::record::RunResult;
use sparkyard_actors::simulation::trace::{FaultEvent, StateChange, TraceEvent, TraceKind};
use sparkyard_messages::listener::{ListenerEvent, TaskEndReason};
use sparkyard_messages::task::TaskName;
use std::collections::BTreeMap;
use std::path::Path;

/// The application's own track (phases).
const APP_PID: u32 = 1;
const APP_TID: u32 = 1;
const PHASE_TID: u32 = 2;
/// A process's outgoing messages.
const OUTBOX_TID: u32 = 1;
/// A container's lifetime.
const CONTAINER_TID: u32 = 2;
/// Task slots are 10, 11, ...; mailboxes 1000 + mailbox id.
const SLOT_TID: u32 = 10;
const MAILBOX_TID: u32 = 1000;
/// Flush the buffer to the file past this size.
const FLUSH_BYTES: usize = 1 << 20;

fn pid(process: u32) -> u32 {
    10 + process
}

fn us(ms: u64) -> u64 {
    ms * 1000
}

/// Writes the timeline of `result` to `path`.
pub fn write_chrome_trace(result: &RunResult, path: &Path) -> Result<(), UserError> {
    let err = |e: std::io::Error| {
        UserError::file(
            path.display().to_string(),
            format!("cannot write the timeline: {e}"),
        )
    };
    let file = std::fs::File::create(path).map_err(err)?;
    let mut t = Timeline::new(result, std::io::BufWriter::new(file));
    t.write_all().map_err(err)
}

/// A task's slice.
struct TaskSlice {
    process: u32,
    start_ms: u64,
    end_ms: u64,
    name: String,
    /// `(key, value)` shown in the details pane.
    args: Vec<(&'static str, String)>,
    failed: bool,
}

struct Timeline<'a, W: std::io::Write> {
    r: &'a RunResult,
    map: RunMap,
    out: String,
    sink: W,
    first: bool,
    /// Next free microsecond on each (pid, tid), so message slices on a thread never overlap.
    cursor: BTreeMap<(u32, u32), u64>,
    threads: BTreeMap<(u32, u32), String>,
    /// Where each message's send slice is, by trace message id.
    sent: Vec<Option<(u64, u32, u32)>>,
    next_flow: u64,
}

impl<'a, W: std::io::Write> Timeline<'a, W> {
    fn new(r: &'a RunResult, sink: W) -> Self {
        let msgs = r.trace.iter().map(|e| e.msg).max().unwrap_or(0) as usize + 1;
        Timeline {
            r,
            map: RunMap::new(r),
            out: String::with_capacity(FLUSH_BYTES + 4096),
            sink,
            first: true,
            cursor: BTreeMap::new(),
            threads: BTreeMap::new(),
            sent: vec![None; msgs],
            next_flow: 1,
        }
    }

    fn write_all(&mut self) -> std::io::Result<()> {
        self.out.push_str("{\"traceEvents\":[\n");
        self.phases()?;
        self.containers()?;
        self.tasks()?;
        let r = self.r;
        let mut current_am = None;
        for e in &r.trace {
            self.trace_event(e, &mut current_am)?;
        }
        self.metadata()?;
        self.out.push_str("\n],\"displayTimeUnit\":\"ms\"}\n");
        self.sink.write_all(self.out.as_bytes())?;
        self.out.clear();
        self.sink.flush()
    }

    /// Appends one event object.
    fn ev(&mut self, f: impl FnOnce(&mut Obj<'_>)) -> std::io::Result<()> {
        if !self.first {
            self.out.push_str(",\n");
        }
        self.first = false;
        let mut o = Obj::new(&mut self.out);
        f(&mut o);
        o.end();
        if self.out.len() > FLUSH_BYTES {
            self.sink.write_all(self.out.as_bytes())?;
            self.out.clear();
        }
        Ok(())
    }

    fn thread(&mut self, pid: u32, tid: u32, name: impl FnOnce() -> String) {
        self.threads.entry((pid, tid)).or_insert_with(name);
    }

    /// A complete slice.
    #[allow(clippy::too_many_arguments)]
    fn slice(
        &mut self,
        name: &str,
        cat: &str,
        ts: u64,
        dur: u64,
        pid: u32,
        tid: u32,
        args: &[(&str, String)],
    ) -> std::io::Result<()> {
        self.ev(|o| {
            o.str("name", name)
                .str("cat", cat)
                .str("ph", "X")
                .num("ts", ts)
                .num("dur", dur)
                .num("pid", pid)
                .num("tid", tid);
            if !args.is_empty() {
                o.map("args", args);
            }
        })
    }

    /// An instant event; `scope` is `t`, `p` or `g`.
    fn instant(
        &mut self,
        name: &str,
        cat: &str,
        ts: u64,
        at: (u32, u32),
        scope: &str,
    ) -> std::io::Result<()> {
        self.ev(|o| {
            o.str("name", name)
                .str("cat", cat)
                .str("ph", "i")
                .str("s", scope)
                .num("ts", ts)
                .num("pid", at.0)
                .num("tid", at.1);
        })
    }

    /// The next free microsecond at or after `ms` on a thread, taken for a 1 µs slice.
    fn place(&mut self, pid: u32, tid: u32, ms: u64, after: u64) -> u64 {
        let c = self.cursor.entry((pid, tid)).or_insert(0);
        let ts = us(ms).max(*c).max(after);
        *c = ts + 1;
        ts
    }

    fn phases(&mut self) -> std::io::Result<()> {
        let list = phases(self.r, &self.map);
        self.thread(APP_PID, APP_TID, || "application".into());
        self.thread(APP_PID, PHASE_TID, || "lifecycle phases".into());
        let app = self
            .r
            .outcome
            .application_id
            .map_or_else(|| "no application".to_string(), |a| a.to_string());
        let end = us(self.r.end_ms);
        self.slice(&app, "phase", 0, end, APP_PID, APP_TID, &[])?;
        for (name, start, stop) in list {
            let dur = us(stop).saturating_sub(us(start));
            self.slice(&name, "phase", us(start), dur, APP_PID, PHASE_TID, &[])?;
        }
        Ok(())
    }

    fn containers(&mut self) -> std::io::Result<()> {
        let lives: Vec<(u32, u64, u64, Option<i32>)> = self
            .map
            .life
            .iter()
            .map(|(p, l)| {
                (
                    *p,
                    l.start_ms,
                    l.end_ms.unwrap_or(self.r.end_ms),
                    l.exit_status,
                )
            })
            .collect();
        for (p, start, end, exit) in lives {
            let name = match exit {
                Some(s) => format!("{} (exit status {s})", self.r.processes[p as usize]),
                None => self.r.processes[p as usize].clone(),
            };
            self.thread(pid(p), CONTAINER_TID, || "container".into());
            let dur = us(end).saturating_sub(us(start));
            self.slice(
                &name,
                "container",
                us(start),
                dur,
                pid(p),
                CONTAINER_TID,
                &[],
            )?;
        }
        Ok(())
    }

    fn tasks(&mut self) -> std::io::Result<()> {
        let mut tasks = if self.r.events.is_empty() {
            derived_tasks(self.r, &self.map)
        } else {
            listener_tasks(self.r, &self.map)
        };
        tasks.sort_by_key(|t| (t.process, t.start_ms, t.end_ms));
        // Greedy slot lanes per executor: a lane is free once its last task has ended.
        let mut lanes: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        for t in &tasks {
            let free = lanes.entry(t.process).or_default();
            let lane = match free.iter().position(|end| *end <= t.start_ms) {
                Some(l) => l,
                None => {
                    free.push(0);
                    free.len() - 1
                }
            };
            free[lane] = t.end_ms;
            let tid = SLOT_TID + lane as u32;
            self.thread(pid(t.process), tid, || format!("task slot {lane}"));
            let cat = if t.failed { "task,failed" } else { "task" };
            let dur = us(t.end_ms).saturating_sub(us(t.start_ms));
            self.slice(
                &t.name,
                cat,
                us(t.start_ms),
                dur,
                pid(t.process),
                tid,
                &t.args,
            )?;
        }
        Ok(())
    }

    fn trace_event(&mut self, e: &TraceEvent, current_am: &mut Option<u32>) -> std::io::Result<()> {
        match &e.kind {
            TraceKind::Send => self.on_send(e),
            TraceKind::Deliver => self.on_deliver(e),
            TraceKind::Drop(why) => {
                let why = why.to_string();
                let text = format!("drop {}: {why}", e.name);
                match e.to.and_then(|m| self.mailbox_thread(m.0)) {
                    Some(at) => self.instant(&text, "drop", us(e.time_ms), at, "t"),
                    None => self.instant(&text, "drop", us(e.time_ms), (APP_PID, APP_TID), "g"),
                }
            }
            TraceKind::State(change) => {
                if let StateChange::ContainerLocalizing { container, .. } = change
                    && let Some(p) = self.process_named(&container.to_string())
                    && matches!(self.map.kind(p), ProcKind::Am { .. })
                {
                    *current_am = Some(p);
                }
                let at = self.state_process(e, change);
                self.place_instant(&change.to_string(), "state", e, at)
            }
            TraceKind::Fault(fault) => {
                let at =
                    e.to.and_then(|m| self.map.proc_of(m.0))
                        .or_else(|| match fault {
                            FaultEvent::Fired { target, .. } => {
                                self.map.fault_process(&self.r.processes, target)
                            }
                            FaultEvent::Duplicated | FaultEvent::Injected => None,
                        });
                self.place_instant(&fault_text(e, fault), "fault", e, at)
            }
        }
    }

    fn place_instant(
        &mut self,
        text: &str,
        cat: &str,
        e: &TraceEvent,
        at: Option<u32>,
    ) -> std::io::Result<()> {
        match at {
            Some(p) => {
                self.thread(pid(p), OUTBOX_TID, || "Outbox".into());
                self.instant(text, cat, us(e.time_ms), (pid(p), OUTBOX_TID), "p")
            }
            None => self.instant(text, cat, us(e.time_ms), (APP_PID, APP_TID), "g"),
        }
    }

    fn process_named(&self, name: &str) -> Option<u32> {
        self.r
            .processes
            .iter()
            .rposition(|p| p == name)
            .map(|i| i as u32)
    }

    /// Which process a state change is shown in: a container's own process for the
    /// NodeManager's container states, none for process exits and lost nodes (shown on the
    /// application's track), else the process whose role recorded it.
    fn state_process(&self, e: &TraceEvent, change: &StateChange) -> Option<u32> {
        match change {
            StateChange::ContainerLocalizing { container, .. }
            | StateChange::ContainerCompleted { container, .. } => {
                self.process_named(&container.to_string())
            }
            StateChange::ProcessExited { .. } | StateChange::NodeLost { .. } => None,
            _ => e.from,
        }
    }

    fn mailbox_thread(&mut self, mailbox: u32) -> Option<(u32, u32)> {
        let p = self.map.proc_of(mailbox)?;
        let tid = MAILBOX_TID + mailbox;
        let name = &self.map.mailbox_name[mailbox as usize];
        self.threads
            .entry((pid(p), tid))
            .or_insert_with(|| name.clone());
        Some((pid(p), tid))
    }

    fn on_send(&mut self, e: &TraceEvent) -> std::io::Result<()> {
        let Some(from) = e.from else { return Ok(()) };
        let p = pid(from);
        self.thread(p, OUTBOX_TID, || "Outbox".into());
        let ts = self.place(p, OUTBOX_TID, e.time_ms, 0);
        if let Some(slot) = self.sent.get_mut(e.msg as usize) {
            *slot = Some((ts, p, OUTBOX_TID));
        }
        self.slice(e.name, "rpc", ts, 1, p, OUTBOX_TID, &[])
    }

    /// The receiver's slice, and the flow from the send slice to it.
    fn on_deliver(&mut self, e: &TraceEvent) -> std::io::Result<()> {
        let Some((p, tid)) = e.to.and_then(|m| self.mailbox_thread(m.0)) else {
            return Ok(());
        };
        let sent = self.sent.get(e.msg as usize).copied().flatten();
        let after = sent.map_or(0, |s| s.0 + 1);
        let ts = self.place(p, tid, e.time_ms, after);
        self.slice(e.name, "rpc", ts, 1, p, tid, &[])?;
        let Some((sts, spid, stid)) = sent else {
            return Ok(());
        };
        let id = self.next_flow;
        self.next_flow += 1;
        self.ev(|o| {
            o.str("name", e.name)
                .str("cat", "rpc")
                .str("ph", "s")
                .num("id", id)
                .num("ts", sts)
                .num("pid", spid)
                .num("tid", stid);
        })?;
        self.ev(|o| {
            o.str("name", e.name)
                .str("cat", "rpc")
                .str("ph", "f")
                .str("bp", "e")
                .num("id", id)
                .num("ts", ts)
                .num("pid", p)
                .num("tid", tid);
        })
    }

    fn metadata(&mut self) -> std::io::Result<()> {
        let mut pids: BTreeMap<u32, (String, u64)> = BTreeMap::new();
        pids.insert(APP_PID, ("application".into(), 0));
        for (pid_, _) in self.threads.keys() {
            if *pid_ != APP_PID {
                let p = pid_ - 10;
                pids.insert(*pid_, (self.process_label(p), self.sort_index(p)));
            }
        }
        for (p, (name, sort)) in pids {
            self.ev(|o| {
                o.str("name", "process_name").str("ph", "M").num("pid", p);
                o.obj("args", |a| {
                    a.str("name", &name);
                });
            })?;
            self.ev(|o| {
                o.str("name", "process_sort_index")
                    .str("ph", "M")
                    .num("pid", p);
                o.obj("args", |a| {
                    a.num("sort_index", sort);
                });
            })?;
        }
        let threads = std::mem::take(&mut self.threads);
        for ((p, t), name) in &threads {
            self.ev(|o| {
                o.str("name", "thread_name")
                    .str("ph", "M")
                    .num("pid", p)
                    .num("tid", t);
                o.obj("args", |a| {
                    a.str("name", name);
                });
            })?;
            self.ev(|o| {
                o.str("name", "thread_sort_index")
                    .str("ph", "M")
                    .num("pid", p)
                    .num("tid", t);
                o.obj("args", |a| {
                    a.num("sort_index", t);
                });
            })?;
        }
        Ok(())
    }

    fn process_label(&self, p: u32) -> String {
        let name = &self.r.processes[p as usize];
        let on = self
            .map
            .host
            .get(&p)
            .map(|h| format!(" on {h}"))
            .unwrap_or_default();
        match self.map.kind(p) {
            ProcKind::Client => "spark-submit (Client)".into(),
            ProcKind::ResourceManager => "ResourceManager".into(),
            ProcKind::NodeManager { host } => format!("NodeManager {host}"),
            ProcKind::Am { attempt } => format!("AM + driver, attempt {attempt}: {name}{on}"),
            ProcKind::Executor { .. } => match self.map.executor_id.get(&p) {
                Some(id) => format!("executor {id}: {name}{on}"),
                None => format!("executor container {name}{on}"),
            },
            ProcKind::Other => name.clone(),
        }
    }

    fn sort_index(&self, p: u32) -> u64 {
        let p64 = u64::from(p);
        match self.map.kind(p) {
            ProcKind::Client => 1,
            ProcKind::ResourceManager => 2,
            ProcKind::Am { attempt } => 10 + u64::from(*attempt),
            ProcKind::Executor { .. } => 1000 + p64,
            ProcKind::NodeManager { .. } => 100_000 + p64,
            ProcKind::Other => 200_000 + p64,
        }
    }
}

/// A fault's label; the Dispatcher's own (`duplicate`, `injected`) name their message.
pub fn fault_text(e: &TraceEvent, text: &FaultEvent) -> String {
    if e.to.is_some() && e.name != "Fault" {
        format!("fault: {text} {}", e.name)
    } else {
        format!("fault: {text}")
    }
}

/// Tasks from the listener's TaskStart/TaskEnd (exact ids, executors and reasons).
fn listener_tasks(r: &RunResult, map: &RunMap) -> Vec<TaskSlice> {
    let mut out = Vec::new();
    for a in &r.events {
        let mut open: BTreeMap<u64, usize> = BTreeMap::new();
        for e in &a.events {
            match e {
                ListenerEvent::TaskStart {
                    stage_id,
                    stage_attempt_id,
                    info,
                } => {
                    let Some(p) = info
                        .executor_id
                        .parse()
                        .ok()
                        .and_then(|id| map.executor_process(a.attempt_id, id))
                    else {
                        continue;
                    };
                    open.insert(info.task_id, out.len());
                    out.push(TaskSlice {
                        process: p,
                        start_ms: info.launch_time.saturating_sub(r.epoch_ms),
                        end_ms: r.end_ms,
                        name: format!(
                            "{} (TID {})",
                            TaskName {
                                index: info.index,
                                attempt: info.attempt,
                                stage_id: *stage_id,
                                stage_attempt_id: *stage_attempt_id,
                            },
                            info.task_id
                        ),
                        args: vec![
                            ("executor", info.executor_id.clone()),
                            ("partition", info.partition_id.to_string()),
                        ],
                        failed: false,
                    });
                }
                ListenerEvent::TaskEnd { reason, info, .. } => {
                    let Some(i) = open.remove(&info.task_id) else {
                        continue;
                    };
                    let t = &mut out[i];
                    t.end_ms = info.finish_time.saturating_sub(r.epoch_ms).max(t.start_ms);
                    t.failed = info.failed || info.killed;
                    t.args.push(("reason", reason_text(reason)));
                }
                _ => {}
            }
        }
    }
    out
}

fn reason_text(reason: &TaskEndReason) -> String {
    match reason {
        TaskEndReason::Success => "Success".into(),
        TaskEndReason::Resubmitted => "Resubmitted".into(),
        TaskEndReason::ExceptionFailure { class, description } => {
            format!("ExceptionFailure: {class}: {description}")
        }
        TaskEndReason::ExecutorLostFailure { loss_reason, .. } => {
            format!("ExecutorLostFailure: {loss_reason}")
        }
        TaskEndReason::TaskKilled { reason } => format!("TaskKilled: {reason}"),
        TaskEndReason::FetchFailed(f) => f.to_error_string(),
    }
}

/// Tasks read from the messages when no listener events were recorded: a `LaunchTask`
/// delivered to an executor starts one; the executor's first `StatusUpdate` after it is RUNNING
/// (sent as the task starts) and the next one ends the oldest running task. Exact for one core
/// per executor; with more cores, which of the running tasks ended is a guess.
fn derived_tasks(r: &RunResult, map: &RunMap) -> Vec<TaskSlice> {
    let mut out: Vec<TaskSlice> = Vec::new();
    // Per executor process: tasks waiting for RUNNING, and tasks running.
    let mut launched: BTreeMap<u32, std::collections::VecDeque<usize>> = BTreeMap::new();
    let mut running: BTreeMap<u32, std::collections::VecDeque<usize>> = BTreeMap::new();
    for e in &r.trace {
        match (&e.kind, e.name) {
            (TraceKind::Deliver, "LaunchTask") => {
                let Some(p) = e.to.and_then(|m| map.proc_of(m.0)) else {
                    continue;
                };
                launched.entry(p).or_default().push_back(out.len());
                let exec = map
                    .executor_id
                    .get(&p)
                    .map_or_else(String::new, |i| i.to_string());
                out.push(TaskSlice {
                    process: p,
                    start_ms: e.time_ms,
                    end_ms: r.end_ms,
                    name: String::new(),
                    args: vec![
                        ("executor", exec),
                        ("derived", "from LaunchTask/StatusUpdate".into()),
                    ],
                    failed: false,
                });
            }
            (TraceKind::Send, "StatusUpdate") => {
                let Some(p) = e.from else { continue };
                if let Some(i) = launched.get_mut(&p).and_then(|q| q.pop_front()) {
                    running.entry(p).or_default().push_back(i);
                } else if let Some(i) = running.get_mut(&p).and_then(|q| q.pop_front()) {
                    out[i].end_ms = e.time_ms.max(out[i].start_ms);
                }
            }
            _ => {}
        }
    }
    for (i, t) in out.iter_mut().enumerate() {
        t.name = format!("task #{i}");
    }
    out
}

/// The lifecycle phases `(name, start ms, end ms)`, in order and never overlapping.
fn phases(r: &RunResult, map: &RunMap) -> Vec<(String, u64, u64)> {
    let mut list = Vec::new();
    let client = map.kinds.iter().position(|k| *k == ProcKind::Client);
    let t0 = r
        .trace
        .iter()
        .find(|e| e.kind == TraceKind::Send && e.from.map(|f| f as usize) == client)
        .map_or(0, |e| e.time_ms);
    let mut prev = t0;
    let mut push = |name: String, start: u64, end: u64, list: &mut Vec<(String, u64, u64)>| {
        let s = start.max(prev);
        let e = end.max(s);
        prev = e;
        list.push((name, s, e));
    };
    for (attempt, am) in map.am_processes() {
        let Some(life) = map.life.get(&am) else {
            continue;
        };
        let am_end = life.end_ms.unwrap_or(r.end_ms);
        let first = if attempt == 1 {
            "submission".to_string()
        } else {
            format!("new attempt {attempt}")
        };
        push(first, t0, life.start_ms, &mut list);
        let marks = attempt_marks(r, map, am);
        let register = marks.register.unwrap_or(am_end);
        push(
            format!("AM start (attempt {attempt})"),
            life.start_ms,
            register,
            &mut list,
        );
        let registered = marks.registered.unwrap_or(register);
        push(
            format!("registration (attempt {attempt})"),
            register,
            registered,
            &mut list,
        );
        let ready = marks
            .backend_ready
            .unwrap_or(marks.jobs.first().map_or(am_end, |j| j.0));
        push(
            format!("executor bring-up (attempt {attempt})"),
            registered,
            ready,
            &mut list,
        );
        let mut last = ready;
        for (i, (start, end)) in marks.jobs.iter().enumerate() {
            let end = end.unwrap_or(am_end);
            push(
                format!("job {i} (attempt {attempt})"),
                *start,
                end,
                &mut list,
            );
            last = end;
        }
        push(
            format!("shutdown (attempt {attempt})"),
            last,
            am_end,
            &mut list,
        );
    }
    if list.is_empty() {
        push("submission".into(), t0, r.end_ms, &mut list);
    } else if let Some(last) = list.last().map(|l| l.2) {
        push("client finishing".into(), last, r.end_ms, &mut list);
    }
    list
}

/// Phase boundaries inside one AM attempt, read from its messages.
#[derive(Default)]
struct Marks {
    register: Option<u64>,
    registered: Option<u64>,
    backend_ready: Option<u64>,
    jobs: Vec<(u64, Option<u64>)>,
}

fn attempt_marks(r: &RunResult, map: &RunMap, am: u32) -> Marks {
    let mut m = Marks::default();
    let in_am = |e: &TraceEvent| e.to.and_then(|t| map.proc_of(t.0)) == Some(am);
    for e in &r.trace {
        match (&e.kind, e.name) {
            (TraceKind::Send, "RegisterApplicationMaster") if e.from == Some(am) => {
                m.register.get_or_insert(e.time_ms);
            }
            (TraceKind::State(StateChange::AmRegistered { .. }), _) if m.register.is_some() => {
                m.registered.get_or_insert(e.time_ms);
            }
            (TraceKind::Deliver, "BackendReady") if in_am(e) => {
                m.backend_ready.get_or_insert(e.time_ms);
            }
            (TraceKind::Deliver, "SubmitJob") if in_am(e) => m.jobs.push((e.time_ms, None)),
            (TraceKind::Deliver, "JobEnded") if in_am(e) => {
                if let Some(j) = m.jobs.iter_mut().find(|j| j.1.is_none()) {
                    j.1 = Some(e.time_ms);
                }
            }
            _ => {}
        }
    }
    m
}
