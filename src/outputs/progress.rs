//! The progress bar of a long run: virtual time, tasks done of the tasks submitted so far, and
//! live executors, drawn on stderr with indicatif from the runner's progress hook. It exists only
//! when stderr is a terminal and the run is not `--quiet`, so it never changes the bytes of a run
//! whose output is captured.
//!
//! The bar shows no `[====] 0/0` before the first job (a start-up line instead), adapts its width
//! to the terminal (no wrapping at 80 columns), and console log lines are written through
//! [`ConsoleWriter`], which hides the bar while a line is written, so no frozen copy of the bar
//! stays in the scrollback. `sparkyard sweep` draws its own bar of seeds ([`sweep_bar`]).

use crate::record::ProgressHook;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sparkyard_actors::simulation::clock;
use sparkyard_actors::simulation::context::SimContext;
use std::cell::Cell;
use std::io::IsTerminal as _;
use std::io::Write;
use std::rc::Rc;
use std::sync::Mutex;

/// The bar on screen now (at most one per process), for [`ConsoleWriter`].
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

fn set_active(pb: Option<ProgressBar>) {
    if let Ok(mut a) = ACTIVE.lock() {
        *a = pb;
    }
}

/// stderr for the console logger: each write is made with the active bar hidden
/// (`ProgressBar::suspend`), so log lines and the bar never overwrite each other.
pub struct ConsoleWriter;

impl Write for ConsoleWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let bar = ACTIVE.lock().ok().and_then(|a| a.clone());
        match bar {
            Some(pb) => pb.suspend(|| std::io::stderr().write_all(buf))?,
            None => std::io::stderr().write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// A bar of seeds for `sparkyard sweep`, or `None` when stderr is not a terminal.
pub fn sweep_bar(seeds: u64) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::with_draw_target(Some(seeds), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "sweep [{wide_bar}] {human_pos}/{human_len} seeds, {eta} left",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    pb.set_style(style);
    Some(pb)
}

/// The bar's look once tasks exist: it fills the terminal's width, never more.
fn task_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg} [{wide_bar}] {human_pos}/{human_len} tasks")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// Before the first job: a line without a bar (a full bar of 0/0 tasks would say "done").
fn startup_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// Clears the bar when the last handle goes (the runner drops its hook when the run ends).
struct Bar(ProgressBar);

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
        set_active(None);
    }
}

/// A hook drawing the bar, or `None` when it would not be seen (`quiet`, or stderr is not a
/// terminal); `bar` receives a handle to clear it early.
pub fn progress_hook(
    quiet: bool,
    bar: Option<&std::cell::RefCell<Option<ProgressBar>>>,
) -> Option<ProgressHook> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    pb.set_style(startup_style());
    set_active(Some(pb.clone()));
    if let Some(cell) = bar {
        *cell.borrow_mut() = Some(pb.clone());
    }
    let guard = Rc::new(Bar(pb));
    let styled = Cell::new(false);
    Some(Rc::new(move |sim: &SimContext| {
        tick(&guard.0, sim, &styled)
    }))
}

/// One redraw; `styled` says whether the bar already has its task style (switched to once the
/// first job exists, after the message and counts are set, so no frame mixes the two).
fn tick(pb: &ProgressBar, sim: &SimContext, styled: &Cell<bool>) {
    if sim.outcome.borrow().is_some() {
        pb.finish_and_clear();
        set_active(None);
        return;
    }
    let c = sim.counters.borrow();
    let live = c
        .executors_registered
        .saturating_sub(c.executors_lost.len() as u32);
    let now = virtual_time(clock::now_ms());
    if c.tasks_total == 0 {
        pb.set_message(format!("{now} virtual: starting, {live} executors"));
        return;
    }
    pb.set_message(format!("{now} {live} exec"));
    pb.set_length(c.tasks_total);
    pb.set_position(c.tasks_finished.min(c.tasks_total));
    if !styled.replace(true) {
        pb.set_style(task_style());
    }
}

/// `h:mm:ss` of virtual time.
fn virtual_time(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_virtual_time() {
        assert_eq!(super::virtual_time(3_723_999), "1:02:03");
    }
}
