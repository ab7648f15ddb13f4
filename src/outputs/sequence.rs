//! The sequence diagram (`--sequence FILE`): a Mermaid `sequenceDiagram` of the lifecycle
//! messages between Client, ResourceManager, NodeManager, ApplicationMaster, YarnAllocator,
//! ExecutorRunnable, DriverEndpoint and Executor, with filters that keep it readable (one
//! executor's path, no task messages, the first N messages) and repeated exchanges folded into
//! `loop` blocks. GitHub renders it in Markdown.

use super::runmap::{ProcKind, Role, RunMap};
use crate::error::UserError;
use crate::record::RunResult;
use sparkyard_actors::simulation::trace::{FaultEvent, StateChange, TraceEvent, TraceKind};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

/// What the diagram keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceFilter {
    /// Only this executor's messages (plus the steps that launch it and the application's own).
    pub executor: Option<u32>,
    /// Leave out LaunchTask, StatusUpdate, ReviveOffers, KillTask and heartbeats.
    pub no_tasks: bool,
    /// Only the first N messages.
    pub limit: Option<usize>,
}

/// Cluster plumbing that is not the application's lifecycle.
const NOISE: &[&str] = &[
    "NodeHeartbeat",
    "NodeHeartbeatResponse",
    "RegisterNodeManager",
];
/// Task traffic (`--sequence-no-tasks`).
const TASK_MESSAGES: &[&str] = &[
    "LaunchTask",
    "StatusUpdate",
    "ReviveOffers",
    "KillTask",
    "Heartbeat",
];
/// Messages that carry an `AskContext` (answered by an `AskReply`).
const ASKS: &[&str] = &[
    "GetClusterMetrics",
    "GetNewApplication",
    "SubmitApplication",
    "GetApplicationReport",
    "RegisterApplicationMaster",
    "Allocate",
    "FinishApplicationMaster",
    "StartContainers",
    "RetrieveSparkAppConfig",
    "RegisterExecutor",
    "StopExecutors",
    "StopDriver",
    "IsExecutorAlive",
    "RetrieveLastAllocatedExecutorId",
    "RequestExecutors",
    "KillExecutors",
    "GetExecutorLossReason",
    "RequestTotalExecutors",
    "CheckExistence",
];
/// The longest exchange folded into a `loop`, and how often it must repeat.
const LOOP_MAX_LEN: usize = 4;
const LOOP_MIN_REPEATS: usize = 3;

/// Writes the diagram to `path`.
pub fn write_sequence(
    result: &RunResult,
    path: &Path,
    filter: &SequenceFilter,
) -> Result<(), UserError> {
    std::fs::write(path, sequence_diagram(result, filter)).map_err(|e| {
        UserError::file(
            path.display().to_string(),
            format!("cannot write the sequence diagram: {e}"),
        )
    })
}

/// Mermaid's default `maxTextSize`: a longer diagram is refused ("Maximum text size in diagram
/// exceeded").
pub const MERMAID_MAX_TEXT: usize = 50_000;

/// What the user should know about a diagram just written: over Mermaid's size limit, or an
/// `--sequence-executor` that names no executor of the run.
pub fn warnings(result: &RunResult, filter: &SequenceFilter, len: usize) -> Vec<String> {
    let mut out = Vec::new();
    if len > MERMAID_MAX_TEXT {
        let hint = if filter.no_tasks {
            "--sequence-limit N or --sequence-executor N"
        } else {
            "--sequence-no-tasks (or --sequence-limit N)"
        };
        out.push(format!(
            "warning: the sequence diagram has {len} characters, more than Mermaid draws by default ({MERMAID_MAX_TEXT}: \"Maximum text size in diagram exceeded\"); shorten it with {hint}"
        ));
    }
    if let Some(n) = filter.executor {
        let map = RunMap::new(result);
        let ids: BTreeSet<u32> = map.executor_id.values().copied().collect();
        if !ids.contains(&n) {
            let have: Vec<String> = ids.iter().map(u32::to_string).collect();
            out.push(format!(
                "warning: --sequence-executor {n}: no executor {n} in this run (executors: {}); the diagram shows only the application's own steps",
                if have.is_empty() { "none".to_string() } else { have.join(", ") }
            ));
        }
    }
    out
}

/// A lifeline: a role, and for NodeManagers the host when they are drawn apart.
type Lifeline = (Role, String);

/// One arrow or note before filtering.
struct Step {
    from: Lifeline,
    to: Lifeline,
    label: String,
    reply: bool,
    dropped: Option<String>,
    /// The message's variant (or the ask it answers), for the filters.
    kind: String,
    procs: (Option<u32>, Option<u32>),
    /// The container this step launches, when known (StartContainers, its reply, ExecutorLaunched).
    launches: Option<u32>,
    note: bool,
}

/// The diagram's text.
pub fn sequence_diagram(result: &RunResult, filter: &SequenceFilter) -> String {
    let map = RunMap::new(result);
    let steps = Reader::new(result, &map, filter).read();
    let keep: Option<BTreeSet<u32>> = filter.executor.map(|n| {
        map.executor_id
            .iter()
            .filter(|(_, id)| **id == n)
            .map(|(p, _)| *p)
            .collect()
    });
    let mut lines = Vec::new();
    let mut used: BTreeSet<Lifeline> = BTreeSet::new();
    let mut messages = 0usize;
    let mut cut = 0usize;
    for s in &steps {
        if !kept(s, filter, keep.as_ref(), &map) {
            continue;
        }
        if !s.note && filter.limit.is_some_and(|l| messages >= l) {
            cut += 1;
            continue;
        }
        if cut > 0 {
            continue;
        }
        if !s.note {
            messages += 1;
        }
        used.insert(s.from.clone());
        used.insert(s.to.clone());
        lines.push(render(s));
    }
    let mut out = String::from("sequenceDiagram\n    autonumber\n");
    for l in &used {
        let _ = writeln!(
            out,
            "    participant {} as {}",
            alias(l),
            lifeline_label(l, filter)
        );
    }
    fold_loops(&lines, &mut out);
    if cut > 0 {
        let first = used.iter().next().map(alias).unwrap_or_else(|| "C".into());
        let _ = writeln!(
            out,
            "    Note over {first}: {cut} more messages (raise --sequence-limit)"
        );
    }
    out
}

fn kept(s: &Step, f: &SequenceFilter, keep: Option<&BTreeSet<u32>>, map: &RunMap) -> bool {
    if NOISE.contains(&s.kind.as_str()) || (!s.note && s.from == s.to) {
        return false;
    }
    if f.no_tasks && TASK_MESSAGES.contains(&s.kind.as_str()) {
        return false;
    }
    let Some(keep) = keep else { return true };
    let ours = |p: Option<u32>| p.is_some_and(|p| keep.contains(&p));
    if ours(s.procs.0) || ours(s.procs.1) {
        return true;
    }
    let other_executor =
        |p: Option<u32>| p.is_some_and(|p| matches!(map.kind(p), ProcKind::Executor { .. }));
    if other_executor(s.procs.0) || other_executor(s.procs.1) {
        return false;
    }
    // Launching another executor's container is its path, not this one's; the AM's is shared.
    s.launches
        .is_none_or(|c| keep.contains(&c) || !matches!(map.kind(c), ProcKind::Executor { .. }))
}

fn alias(l: &Lifeline) -> String {
    let base = match l.0 {
        Role::Client => "C",
        Role::ResourceManager => "RM",
        Role::NodeManager => "NM",
        Role::ApplicationMaster => "AM",
        Role::YarnAllocator => "YA",
        Role::ExecutorRunnable => "ER",
        Role::DriverEndpoint => "DE",
        Role::Executor => "E",
    };
    if l.1.is_empty() {
        base.to_string()
    } else {
        // The host's first label (`nm-6.sparkyard.internal` -> `nm6`) keeps aliases short.
        let first = l.1.split('.').next().unwrap_or("");
        let tag: String = first
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        format!("{base}_{tag}")
    }
}

fn lifeline_label(l: &Lifeline, f: &SequenceFilter) -> String {
    match (l.0, f.executor) {
        (Role::Executor, Some(n)) => format!("Executor {n}"),
        (Role::NodeManager, _) if !l.1.is_empty() => text(&format!("NodeManager {}", l.1)),
        (r, _) => r.name().to_string(),
    }
}

fn render(s: &Step) -> String {
    if s.note {
        return format!("Note over {}: {}", alias(&s.from), text(&s.label));
    }
    let arrow = match (s.reply, s.dropped.is_some()) {
        (false, false) => "->>",
        (true, false) => "-->>",
        (false, true) => "-x",
        (true, true) => "--x",
    };
    let label = match &s.dropped {
        Some(why) => format!("{} (dropped: {why})", s.label),
        None => s.label.clone(),
    };
    format!(
        "{}{arrow}{}: {}",
        alias(&s.from),
        alias(&s.to),
        text(&label)
    )
}

/// Message text Mermaid cannot misread: `#` and `;` end a statement (written as entity codes),
/// `<`/`>` would be HTML, and a bare word `end` is bracketed so no parser takes it for a
/// block's end.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut word = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word.eq_ignore_ascii_case("end") {
            out.push('[');
            out.push_str(&word);
            out.push(']');
        } else {
            out.push_str(&word);
        }
        word.clear();
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.pop();
    out
}

/// Writes `lines`, folding an exchange that repeats back to back into `loop N times`.
fn fold_loops(lines: &[String], out: &mut String) {
    let mut i = 0;
    while i < lines.len() {
        let mut best: Option<(usize, usize)> = None;
        for len in 1..=LOOP_MAX_LEN.min(lines.len() - i) {
            let unit = &lines[i..i + len];
            let mut k = 1;
            while i + (k + 1) * len <= lines.len() && lines[i + k * len..i + (k + 1) * len] == *unit
            {
                k += 1;
            }
            if k >= LOOP_MIN_REPEATS && best.is_none_or(|(bl, bk)| k * len > bl * bk) {
                best = Some((len, k));
            }
        }
        match best {
            Some((len, k)) => {
                let _ = writeln!(out, "    loop {k} times");
                for l in &lines[i..i + len] {
                    let _ = writeln!(out, "        {l}");
                }
                out.push_str("    end\n");
                i += len * k;
            }
            None => {
                let _ = writeln!(out, "    {}", lines[i]);
                i += 1;
            }
        }
    }
}

/// An ask waiting for its reply: (ask name, receiver lifeline, receiver process).
type Pending = (String, Lifeline, Option<u32>);

/// Walks the trace once, turning messages into steps with their sender's role.
struct Reader<'a> {
    r: &'a RunResult,
    map: &'a RunMap,
    separate_nms: bool,
    /// Why each dropped message was dropped (the others were delivered).
    fate: BTreeMap<u64, String>,
    /// Outstanding asks per asker (process, role).
    asks: BTreeMap<(u32, Role), VecDeque<Pending>>,
    /// ExecutorRunnables whose container started, in the order they report to the allocator.
    launched: VecDeque<u32>,
    /// The AM attempt running now (executor ids are per attempt).
    attempt: Option<u32>,
}

impl<'a> Reader<'a> {
    fn new(r: &'a RunResult, map: &'a RunMap, f: &SequenceFilter) -> Self {
        let mut fate = BTreeMap::new();
        for e in &r.trace {
            if let TraceKind::Drop(why) = &e.kind {
                fate.insert(e.msg, why.to_string());
            }
        }
        Reader {
            r,
            map,
            separate_nms: f.executor.is_some(),
            fate,
            asks: BTreeMap::new(),
            launched: VecDeque::new(),
            attempt: None,
        }
    }

    fn read(&mut self) -> Vec<Step> {
        let mut steps = Vec::new();
        let msgs = self.r.trace.iter().map(|e| e.msg).max().unwrap_or(0) as usize + 1;
        let mut sent = vec![false; msgs];
        for e in &self.r.trace {
            match &e.kind {
                TraceKind::Send => {
                    sent[e.msg as usize] = true;
                    if let Some(s) = self.message(e) {
                        steps.push(s);
                    }
                }
                // Refused at the sender (dead process, unknown endpoint): never sent.
                TraceKind::Drop(_) if !sent[e.msg as usize] => {
                    if let Some(s) = self.message(e) {
                        steps.push(s);
                    }
                }
                TraceKind::State(change) => {
                    if let Some(a) = self.am_started(change) {
                        self.attempt = Some(a);
                    }
                    if let Some(s) = self.state_note(e, change) {
                        steps.push(s);
                    }
                }
                TraceKind::Fault(fault) => steps.push(self.fault_note(e, fault)),
                _ => {}
            }
        }
        steps
    }

    fn lifeline(&self, role: Role, process: Option<u32>) -> Lifeline {
        let host = match (role, process.map(|p| self.map.kind(p))) {
            (Role::NodeManager, Some(ProcKind::NodeManager { host })) if self.separate_nms => {
                host.clone()
            }
            _ => String::new(),
        };
        (role, host)
    }

    fn message(&mut self, e: &TraceEvent) -> Option<Step> {
        let (from, to) = (e.from?, e.to?.0);
        let to_proc = self.map.proc_of(to);
        let to_role = self.map.role_of(to)?;
        let reply = e.name == "AskReply";
        let (from_role, kind) = if reply {
            self.answer(from, to_proc, to_role)
        } else {
            (self.sender(e)?, e.name.to_string())
        };
        if !reply && ASKS.contains(&e.name) {
            let pending = (e.name.to_string(), self.lifeline(to_role, to_proc), to_proc);
            self.asks
                .entry((from, from_role))
                .or_default()
                .push_back(pending);
        }
        let launches = self.launches(e, to);
        let label = if reply {
            format!("{kind} reply")
        } else {
            kind.clone()
        };
        let label = self.with_executor(label, from, to_proc);
        Some(Step {
            from: self.lifeline(from_role, Some(from)),
            to: self.lifeline(to_role, to_proc),
            label,
            reply,
            dropped: self.fate.get(&e.msg).cloned(),
            kind,
            procs: (Some(from), to_proc),
            launches,
            note: false,
        })
    }

    /// Names the executor on task and registration arrows when all executors share a lifeline.
    fn with_executor(&self, label: String, from: u32, to: Option<u32>) -> String {
        if self.separate_nms {
            return label;
        }
        let id = self
            .map
            .executor_id
            .get(&from)
            .or_else(|| to.and_then(|t| self.map.executor_id.get(&t)));
        match id {
            Some(id) => format!("{label} (executor {id})"),
            None => label,
        }
    }

    /// The container a launch step is about.
    fn launches(&mut self, e: &TraceEvent, to: u32) -> Option<u32> {
        if let Some(c) = self.map.start_msg.get(&e.msg) {
            return Some(*c);
        }
        if e.name == "AskReply" {
            let c = self
                .map
                .launcher_of
                .iter()
                .find(|(_, l)| **l == to)
                .map(|(c, _)| *c);
            if let Some(c) = c {
                self.launched.push_back(c);
            }
            return c;
        }
        if matches!(e.name, "ExecutorLaunched" | "ExecutorLaunchFailed") {
            return self.launched.pop_front();
        }
        None
    }

    /// Who answers an ask: the receiver of the oldest outstanding ask from the asker to the
    /// replying process.
    fn answer(&mut self, from: u32, asker_proc: Option<u32>, asker: Role) -> (Role, String) {
        let fallback = || match self.map.kind(from) {
            ProcKind::Client => Role::Client,
            ProcKind::ResourceManager => Role::ResourceManager,
            ProcKind::NodeManager { .. } => Role::NodeManager,
            ProcKind::Executor { .. } => Role::Executor,
            _ => Role::DriverEndpoint,
        };
        let Some(q) = asker_proc.and_then(|p| self.asks.get_mut(&(p, asker))) else {
            return (fallback(), "ask".into());
        };
        let found = q
            .iter()
            .position(|(_, _, p)| *p == Some(from))
            .and_then(|i| q.remove(i));
        match found {
            Some((name, to, _)) => (to.0, name),
            None => (fallback(), "ask".into()),
        }
    }

    /// The sending role: the role of the mailbox the trace names as the sender.
    fn sender(&self, e: &TraceEvent) -> Option<Role> {
        self.map.role_of(e.from_mailbox?.0)
    }

    /// A state change worth a note on its role's lifeline: the RM's application states, the
    /// AM's exit, the allocator's lost executors, a container that ended with a failure.
    fn state_note(&self, e: &TraceEvent, change: &StateChange) -> Option<Step> {
        let (role, process) = match change {
            StateChange::AppState { .. } => (Role::ResourceManager, None),
            StateChange::AmExited { .. } => (Role::ApplicationMaster, None),
            StateChange::ExecutorLost { executor, .. } => {
                let p = self
                    .map
                    .executor_id
                    .iter()
                    .find(|(_, e)| **e == executor.0)
                    .map(|(p, _)| *p);
                (Role::YarnAllocator, p)
            }
            StateChange::ContainerCompleted {
                container,
                exit_status,
            } if *exit_status != 0 => {
                let name = container.to_string();
                let p = self.r.processes.iter().rposition(|p| *p == name);
                (Role::NodeManager, p.map(|p| p as u32))
            }
            _ => return None,
        };
        let nm = process
            .and_then(|p| self.map.host.get(&p))
            .filter(|_| self.separate_nms && role == Role::NodeManager);
        let at = (role, nm.cloned().unwrap_or_default());
        Some(Step {
            from: at.clone(),
            to: at,
            label: change.to_string(),
            reply: false,
            dropped: None,
            kind: e.name.to_string(),
            procs: (process, None),
            launches: None,
            note: true,
        })
    }
}

impl Reader<'_> {
    /// The attempt whose AM container this state change starts.
    fn am_started(&self, change: &StateChange) -> Option<u32> {
        let StateChange::ContainerLocalizing { container, .. } = change else {
            return None;
        };
        let cid = container.to_string();
        let p = self.r.processes.iter().rposition(|p| *p == cid)?;
        match self.map.kind(p as u32) {
            ProcKind::Am { attempt } => Some(*attempt),
            _ => None,
        }
    }

    /// A fault, over the lifeline it hits: its target mailbox, else what its label names.
    fn fault_note(&self, e: &TraceEvent, fault: &FaultEvent) -> Step {
        let target = e.to.map(|m| (self.map.role_of(m.0), self.map.proc_of(m.0)));
        let (role, process) = match target {
            Some((Some(role), p)) => (role, p),
            _ => {
                let p = match fault {
                    FaultEvent::Fired { target, .. } => {
                        self.map.fault_process(&self.r.processes, target)
                    }
                    FaultEvent::Duplicated | FaultEvent::Injected => None,
                };
                let role = match p.map(|p| self.map.kind(p)) {
                    Some(ProcKind::Executor { .. }) => Role::Executor,
                    Some(ProcKind::NodeManager { .. }) => Role::NodeManager,
                    Some(ProcKind::Am { .. }) => Role::ApplicationMaster,
                    _ => Role::ResourceManager,
                };
                (role, p)
            }
        };
        let at = self.lifeline(role, process);
        Step {
            from: at.clone(),
            to: at,
            label: super::timeline::fault_text(e, fault),
            reply: false,
            dropped: None,
            kind: e.name.to_string(),
            procs: (process, None),
            launches: None,
            note: true,
        }
    }
}
