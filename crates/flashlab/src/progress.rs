//! Progress bars on the terminal (virtual progress for simulations), silent when standard
//! error is not a terminal — unless `FLASHLAB_PROGRESS=lines`, which prints one line
//! `flashlab-progress PCT% MESSAGE` to standard error whenever the whole percent changes (how
//! `flashlab phone` streams progress from a phone over `adb shell`, which has no terminal).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::{Cell, RefCell};
use std::io::IsTerminal;

pub struct Progress {
    bar: ProgressBar,
    /// Where the bar draws once it has something to show: nothing is drawn before the first
    /// [`Progress::set`], so a command's header, printed after the bar is made, keeps its own
    /// line (indicatif draws a frame as soon as the prefix is set).
    target: RefCell<Option<ProgressDrawTarget>>,
    /// `FLASHLAB_PROGRESS=lines`: the last percent printed (-1: none yet), and the label.
    lines: Option<(Cell<i64>, String)>,
}

/// The prefix of a progress line (`FLASHLAB_PROGRESS=lines`).
pub const LINE_PREFIX: &str = "flashlab-progress ";

impl Progress {
    pub fn new(total_label: &str) -> Progress {
        let quiet = crate::output_args::text_mode() == crate::output_args::TextMode::Silent;
        let target = (std::io::stderr().is_terminal() && !quiet).then(ProgressDrawTarget::stderr);
        let mut p = Progress::with_target(total_label, target);
        p.lines = (!quiet
            && !std::io::stderr().is_terminal()
            && std::env::var("FLASHLAB_PROGRESS").is_ok_and(|v| v == "lines"))
        .then(|| (Cell::new(-1), total_label.to_string()));
        p
    }

    /// A bar that draws on `target` (none: hidden) from its first [`Progress::set`] on.
    pub fn with_target(total_label: &str, target: Option<ProgressDrawTarget>) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::hidden());
        if target.is_some() {
            bar.set_style(
                ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {percent:>3}% eta {eta} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            bar.set_prefix(total_label.to_string());
        }
        Progress { bar, target: RefCell::new(target), lines: None }
    }

    /// Overall fraction done and what is happening now.
    pub fn set(&self, fraction: f64, msg: &str) {
        if !msg.is_empty() {
            self.bar.set_message(msg.to_string());
        }
        if let Some(t) = self.target.borrow_mut().take() {
            self.bar.set_draw_target(t);
        }
        self.bar.set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
        if let Some((last, label)) = &self.lines {
            let pct = (fraction.clamp(0.0, 1.0) * 100.0) as i64;
            if pct != last.get() {
                last.set(pct);
                eprintln!("{LINE_PREFIX}{pct}% {label}: {msg}");
            }
        }
    }

    /// Print through `f` with the bar hidden meanwhile, so text and bar do not mix.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Remove the bar (before the results are printed).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
