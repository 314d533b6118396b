//! Progress bars on the terminal (virtual progress for simulations), silent when standard
//! error is not a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(total_label: &str) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let b = ProgressBar::new(1000);
            b.set_style(
                ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {percent:>3}% eta {eta} {msg}")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            b.set_prefix(total_label.to_string());
            b
        } else {
            ProgressBar::hidden()
        };
        Progress { bar }
    }

    /// Overall fraction done and what is happening now.
    pub fn set(&self, fraction: f64, msg: &str) {
        self.bar.set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
        if !msg.is_empty() {
            self.bar.set_message(msg.to_string());
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
