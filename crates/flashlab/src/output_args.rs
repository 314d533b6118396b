//! The output options every command takes (`--json`, `--csv`, `--report`, `--quiet`), where a
//! command's text goes (standard output; standard error when `--json -` or `--csv -` take
//! standard output; nowhere with `--quiet`), and writing the results document through the
//! exporters of flashlab-results.

use crate::error::Error;
use clap::Args;
use flashlab_results::{export, Document};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};

/// The output options, flattened into every command.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Write the results document (docs/results.md) as JSON to FILE; `-`: to standard output
    /// (the text then goes to standard error).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the results' main table as CSV to FILE (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write an HTML report with charts of the results to FILE.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Print no text and no progress (errors, and what --json/--csv write, still appear).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

fn is_stdout(p: &Path) -> bool {
    p.as_os_str() == "-"
}

impl OutputArgs {
    /// Where the command's text goes, from these options.
    pub fn text_mode(&self) -> TextMode {
        if self.quiet {
            TextMode::Silent
        } else if self.json.as_deref().is_some_and(is_stdout) || self.csv.as_deref().is_some_and(is_stdout) {
            TextMode::Stderr
        } else {
            TextMode::Stdout
        }
    }

    /// The output files to check before the run: (flag, path), standard output left out.
    pub fn files(&self) -> Vec<(&'static str, Option<&Path>)> {
        fn f(p: &Option<PathBuf>) -> Option<&Path> {
            p.as_deref().filter(|p| !is_stdout(p))
        }
        vec![("--json", f(&self.json)), ("--csv", f(&self.csv)), ("--report", self.report.as_deref())]
    }

    /// An error when more than one output takes standard output (checked before the run,
    /// with the output files: [`crate::outputs::of`]).
    pub fn check_stdout(&self) -> Result<(), Error> {
        if self.json.as_deref().is_some_and(is_stdout) && self.csv.as_deref().is_some_and(is_stdout) {
            return Err(Error::Usage("--json - and --csv -: only one of them can take standard output".into()));
        }
        if self.report.as_deref().is_some_and(is_stdout) {
            return Err(Error::flag("--report", "an HTML report is written to a file, not to standard output (-)"));
        }
        Ok(())
    }

    /// Write `doc` where the options say: JSON, CSV (its main table), and the HTML report
    /// (drawn by flashlab-report from the JSON; `title` names it).
    pub fn write(&self, doc: &Document, title: &str) -> Result<(), Error> {
        self.check_stdout()?;
        if let Some(p) = &self.json {
            put(p, &export::json(doc)?)?;
        }
        if let Some(p) = &self.csv {
            put(p, &export::csv(doc)?)?;
        }
        if let Some(p) = &self.report {
            let v = serde_json::to_value(doc).map_err(Error::at("--report"))?;
            crate::cmd::report::write_for(p, title, v)?;
        }
        Ok(())
    }
}

/// Write `text` to the file `p` (complete or not at all), or to standard output for `-`.
fn put(p: &Path, text: &str) -> Result<(), Error> {
    if is_stdout(p) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|_| out.flush()).map_err(Error::Stdout)
    } else {
        crate::report::output::write_file(p, text.as_bytes())?;
        crate::outln!("results written to {}", p.display());
        Ok(())
    }
}

/// Where a command's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextMode {
    Stdout = 0,
    Stderr = 1,
    Silent = 2,
}

static MODE: AtomicU8 = AtomicU8::new(0);

/// Set where the text goes (once, from the command's output options).
pub fn set_text_mode(m: TextMode) {
    MODE.store(m as u8, Ordering::Relaxed);
}

/// Where the text goes.
pub fn text_mode() -> TextMode {
    match MODE.load(Ordering::Relaxed) {
        0 => TextMode::Stdout,
        1 => TextMode::Stderr,
        _ => TextMode::Silent,
    }
}

/// Print a command's text where [`text_mode`] says. Tables are drawn to fit 80 columns
/// ([`table`]); lines of prose are printed whole, never broken: a break inside a path or a
/// command line would make it wrong to copy, and scripts and tests search these lines (a
/// session-27 attempt to wrap them at 80 columns broke searches whenever a path in the line
/// was longer than on the machine the test was written on).
pub fn emit_text(s: &str) {
    use std::io::Write;
    match text_mode() {
        TextMode::Stdout => {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(s.as_bytes());
        }
        TextMode::Stderr => {
            let mut o = std::io::stderr().lock();
            let _ = o.write_all(s.as_bytes());
        }
        TextMode::Silent => {}
    }
}

/// `print!` for a command's text (see [`text_mode`]).
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::output_args::emit_text(&format!($($t)*)) };
}

/// `println!` for a command's text (see [`text_mode`]).
#[macro_export]
macro_rules! outln {
    () => { $crate::output_args::emit_text("\n") };
    ($($t:tt)*) => { $crate::output_args::emit_text(&(format!($($t)*) + "\n")) };
}

/// `println!` for a line of prose that holds no path and no command line (a note, a legend):
/// wrapped at 80 columns between words ([`export::wrap`]). A line with a path or a command in
/// it goes through [`outln!`], whole.
#[macro_export]
macro_rules! proseln {
    ($($t:tt)*) => { $crate::output_args::emit_text(&flashlab_results::export::wrap(&(format!($($t)*) + "\n"))) };
}

/// A table of the results, drawn for the terminal (80 columns).
pub fn table(t: &flashlab_results::table::Table) {
    emit_text(&export::terminal(t));
}
