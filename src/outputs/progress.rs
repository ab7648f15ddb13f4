//! The progress bar of a long run: virtual time, tasks done of the tasks submitted so far, and
//! live executors, drawn on stderr with indicatif from the runner's progress hook. It exists only
//! when stderr is a terminal and the run is not `--quiet`, so it never changes the bytes of a run
//! whose output is captured.

use crate::runner::ProgressHook;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sparkyard_actors::kernel::clock;
use sparkyard_actors::world::context::SimContext;
use std::io::IsTerminal as _;
use std::rc::Rc;

/// Clears the bar when the last handle goes (the runner drops its hook when the run ends).
struct Bar(ProgressBar);

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
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
    let style = ProgressStyle::with_template("{msg} [{bar:32}] {pos}/{len} tasks")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    pb.set_style(style);
    if let Some(cell) = bar {
        *cell.borrow_mut() = Some(pb.clone());
    }
    let guard = Rc::new(Bar(pb));
    Some(Rc::new(move |sim: &SimContext| tick(&guard.0, sim)))
}

fn tick(pb: &ProgressBar, sim: &SimContext) {
    if sim.outcome.borrow().is_some() {
        pb.finish_and_clear();
        return;
    }
    let c = sim.counters.borrow();
    let live = c
        .executors_registered
        .saturating_sub(c.executors_lost.len() as u32);
    pb.set_length(c.tasks_total);
    pb.set_position(c.tasks_finished.min(c.tasks_total));
    pb.set_message(format!(
        "{} virtual, {live} executors",
        virtual_time(clock::now_ms())
    ));
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
