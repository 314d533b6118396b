//! Reading fio job files into [`Job`]s, with fio's INI rules:
//!
//! - `[global]` sets defaults for the jobs that *follow* it; a later `[global]` adds to and
//!   changes the defaults for later jobs only. Every other `[name]` is a job.
//! - Comments: `#` or `;` start a comment anywhere on a line (fio cuts the line there too,
//!   so a value cannot contain them). Blank lines are ignored.
//! - `key=value`, spaces around `=` allowed; `key` alone for flags (`time_based`,
//!   `stonewall`, `group_reporting`). flashlab also reads a bare boolean (`direct`) as `=1`,
//!   with a warning, since fio itself wants `direct=1`.
//! - Option names and aliases are fio's, case-sensitive (see [`crate::options`]).
//! - Within a section `kb_base` is applied before the other options, as fio does (it gives
//!   `kb_base` priority), so it changes how every size in that section and in the jobs after
//!   it is read, wherever it stands in the section.
//! - `${VAR}` is expanded only through [`parse_jobfile_with_env`] (or a [`Context`]); an
//!   unset variable is an error (fio would silently substitute an empty string).
//! - fio's keywords `$ncpus`, `$pagesize` and `$mb_memory` are replaced with the machine's
//!   values ([`crate::arith::Keywords`]), and a value with `+ - * /` in which one was replaced
//!   is computed with integer arithmetic, as fio does with `bc`.
//! - A numeric value (or a `,`/`:`-separated part of one) that starts with `(` is fio's
//!   arithmetic: `bs=(1+3)*1k` ([`crate::arith`]).
//! - `include FILE` (inside a section) reads FILE's lines as options of that section; a
//!   relative name is looked up beside the including file (fio looks in the current
//!   directory first); a section header in an included file, or a file that includes itself,
//!   is an error. Errors in an included file name that file and line.
//! - `size=100%%` is `100%` (fio reads only the first character of a suffix).
//!
//! Errors and warnings name the file, line and option: `jobs.fio:7: option 'bs': bad size '4q': ...`.
//! No input makes the parser panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::job::{Job, Rw};
use crate::limits;
use crate::options::{self, OptionClass, OptionInfo};
use crate::units::{self, SizeSpec, TimeUnit};
use crate::Error;

/// A parsed job file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobFile {
    /// The defaults in force at the end of the file (every `[global]` applied), named
    /// `global`, with `line` the header of the last `[global]` (0 if there was none).
    pub global: Job,
    /// The jobs, in file order, each with the `[global]` defaults that preceded it applied.
    pub jobs: Vec<Job>,
    /// Options that were accepted but ignored, and other things worth telling the user.
    pub warnings: Vec<Warning>,
}

impl JobFile {
    /// The first job named `name`.
    pub fn job(&self, name: &str) -> Option<&Job> {
        self.jobs.iter().find(|j| j.name == name)
    }

    /// fio's `exitall`: set by any job of the file, it holds for every job of the run (fio
    /// keeps it in one global).
    pub fn exitall(&self) -> bool {
        self.jobs.iter().any(|j| j.exitall)
    }

    /// Indices into `jobs`, grouped into the sets that run concurrently: a job with
    /// `stonewall` waits for every job before it and starts a new group (fio's semantics).
    pub fn run_groups(&self) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, job) in self.jobs.iter().enumerate() {
            match groups.last_mut() {
                Some(g) if !job.stonewall => g.push(i),
                _ => groups.push(vec![i]),
            }
        }
        groups
    }
}

fn fmt_located(
    f: &mut std::fmt::Formatter<'_>,
    file: &str,
    line: usize,
    option: &Option<String>,
    message: &str,
) -> std::fmt::Result {
    if line > 0 {
        write!(f, "{file}:{line}: ")?;
    } else {
        write!(f, "{file}: ")?;
    }
    if let Some(o) = option {
        write!(f, "option '{o}': ")?;
    }
    f.write_str(message)
}

/// Something the user should know that does not stop the run (an ignored option, ...).
/// Displays as `file:line: option 'thread': ignored by flashlab (...)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// The job file.
    pub file: String,
    /// 1-based line; 0 when it concerns the whole file.
    pub line: usize,
    /// The option as written in the file (alias or canonical name).
    pub option: Option<String>,
    /// What the user should know.
    pub message: String,
    /// The kind of target the warning concerns (an option that has no effect there); `None`:
    /// every target.
    #[serde(default)]
    pub on: Option<TargetKind>,
}

/// A kind of target, for warnings that concern one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// A simulated device (`sim:PROFILE`).
    Sim,
    /// A real directory, file or block device.
    Real,
}

impl JobFile {
    /// The warnings that concern a run on `target` (every warning with no target, and those
    /// of that kind of target).
    pub fn warnings_for(&self, target: TargetKind) -> impl Iterator<Item = &Warning> {
        self.warnings.iter().filter(move |w| w.on.is_none_or(|k| k == target))
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fmt_located(f, &self.file, self.line, &self.option, &self.message)
    }
}

/// Why a job file was rejected. Displays as
/// `file:line: option 'verify': not supported by flashlab (...)`, or `file:line: message`
/// when no option is involved, or `file: message` when no line is (`line == 0`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobFileError {
    /// The job file.
    pub file: String,
    /// 1-based line; 0 when it concerns the whole file.
    pub line: usize,
    /// The option as written in the file (alias or canonical name).
    pub option: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for JobFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        fmt_located(f, &self.file, self.line, &self.option, &self.message)
    }
}

impl std::error::Error for JobFileError {}

/// Parses a job file's text. `file_name` is only used in messages. `${VAR}` in the text is
/// an error; use [`parse_jobfile_with_env`] to expand it.
pub fn parse_jobfile(file_name: &str, text: &str) -> Result<JobFile, JobFileError> {
    Parser::new(file_name, Context::default()).run(text)
}

/// Like [`parse_jobfile`], expanding `${VAR}` with `env` (e.g.
/// `&|k| std::env::var(k).ok()`). A variable `env` does not know is an error.
pub fn parse_jobfile_with_env(
    file_name: &str,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<JobFile, JobFileError> {
    Parser::new(file_name, Context { env: Some(env), ..Context::default() }).run(text)
}

/// Parses a job file's text with what `ctx` provides: `${VAR}`, fio's keywords, and
/// `include` (relative names beside `ctx.path`). What `ctx` leaves out is an error when used.
pub fn parse_jobfile_in(file_name: &str, text: &str, ctx: Context<'_>) -> Result<JobFile, JobFileError> {
    Parser::new(file_name, ctx).run(text)
}

/// Parses a job file's text after fio's command-line options `options` (see
/// [`crate::cmdline`]): fio reads those first, so their global options are defaults under the
/// file's `[global]` and their jobs come before the file's. Errors in an option name it by its
/// position ([`crate::cmdline::SOURCE`]`:N`).
pub fn parse_jobfile_with_options(
    file_name: &str,
    text: &str,
    ctx: Context<'_>,
    options: &[String],
) -> Result<JobFile, JobFileError> {
    let mut p = Parser::new(file_name, ctx);
    p.prelude(options)?;
    p.run(text)
}

/// Reads an included file from disk: its canonical path and text (bounded as job files are).
pub fn read_include_from_disk(path: &Path) -> Result<(PathBuf, String), String> {
    let canonical = std::fs::canonicalize(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let text = crate::limits::read_text(&canonical, "included job file", crate::limits::MAX_TEXT_INPUT)
        .map_err(|e| e.to_string())?;
    Ok((canonical, text))
}

/// Reads and parses the job file at `path` (the only file I/O in this crate). `${VAR}` is
/// expanded from the process environment, as fio does (an unset variable is an error).
pub fn parse_jobfile_path(path: impl AsRef<Path>) -> Result<JobFile, JobFileError> {
    parse_jobfile_path_with(path, &[])
}

/// [`parse_jobfile_path`] after fio's command-line options `options`
/// ([`parse_jobfile_with_options`]).
pub fn parse_jobfile_path_with(path: impl AsRef<Path>, options: &[String]) -> Result<JobFile, JobFileError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = crate::limits::read_text(path, "job file", crate::limits::MAX_TEXT_INPUT).map_err(|e| {
        let m = e.to_string();
        JobFileError {
            file: name.clone(),
            line: 0,
            option: None,
            message: m.strip_prefix(&format!("{name}: ")).unwrap_or(&m).to_string(),
        }
    })?;
    let env = |k: &str| std::env::var(k).ok();
    let ctx = Context {
        env: Some(&env),
        keywords: Some(crate::arith::Keywords::of_this_machine()),
        include: Some(&read_include_from_disk),
        path: Some(path),
    };
    parse_jobfile_with_options(&name, &text, ctx, options)
}

struct Section {
    name: String,
    line: usize,
    opts: Vec<(Loc, String)>,
}

/// Where an option was written: a file (0: the job file, then each included file in the
/// order first read) and a 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Loc {
    file: usize,
    line: usize,
}

impl Loc {
    fn main(line: usize) -> Loc {
        Loc { file: 0, line }
    }
}

struct Opt {
    loc: Loc,
    /// As written (may be an alias).
    key: String,
    value: Option<String>,
    info: &'static OptionInfo,
    /// The `${VAR}`s of the line that were not set (fio puts an empty string in their place).
    unset: Vec<String>,
}

type Env<'a> = Option<&'a dyn Fn(&str) -> Option<String>>;

/// Reads an included file (`include FILE`): its canonical path (to find loops) and text, or
/// why it cannot be read.
pub type ReadInclude<'a> = &'a dyn Fn(&Path) -> Result<(PathBuf, String), String>;

/// What a job file may draw on beyond its own text: the environment (`${VAR}`), fio's
/// reserved keywords (`$ncpus`, `$mb_memory`, `$pagesize`) and included files. Each that is
/// `None` is an error when the file uses it.
#[derive(Clone, Copy, Default)]
pub struct Context<'a> {
    /// `${VAR}`: the value of VAR.
    pub env: Env<'a>,
    /// The values of fio's keywords.
    pub keywords: Option<crate::arith::Keywords>,
    /// Reads the file an `include` line names.
    pub include: Option<ReadInclude<'a>>,
    /// The job file's own path: relative `include` names are looked up beside it.
    pub path: Option<&'a Path>,
}

struct Parser<'a> {
    file: &'a str,
    /// The names of the files read: the job file, then each included file.
    files: Vec<String>,
    env: Env<'a>,
    ctx: Context<'a>,
    defaults: Job,
    /// Canonical option name -> where it was last set, for the defaults.
    default_lines: BTreeMap<&'static str, Loc>,
    jobs: Vec<Job>,
    warnings: Vec<Warning>,
    /// fio's `--section`: only these sections (and `[global]`) are read; empty: all.
    sections: Vec<String>,
}

/// Includes nested deeper than this are refused (a loop is caught before).
const MAX_INCLUDE_DEPTH: usize = 16;

/// The file an `include FILE` line names (fio also takes `include=FILE`), or `None` when the
/// line is not an include.
fn include_target(content: &str) -> Option<&str> {
    let rest = content.strip_prefix("include")?;
    let first = rest.chars().next();
    match first {
        None => Some(""),
        Some(c) if c.is_whitespace() || c == '=' => Some(rest[c.len_utf8()..].trim()),
        _ => None,
    }
}

/// `a` and `b` are the same file (compared by their canonical paths where they exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Cuts a line at the first `#` or `;`, as fio does.
fn strip_comment(line: &str) -> &str {
    match line.find(['#', ';']) {
        Some(i) => &line[..i],
        None => line,
    }
}

fn option_key(text: &str) -> &str {
    text.split('=').next().unwrap_or("").trim()
}

/// A value that is not one of those an option takes: `bad value '4x': expected 0 or 1`.
fn bad(what: &'static str, v: &str, expected: &str) -> Error {
    Error::Bad { what, value: v.to_string(), expected: expected.to_string() }
}

/// A value an option cannot use: `'4k-8k': ranges are not supported by flashlab; ...`.
fn value(v: &str, problem: String) -> Error {
    Error::Value { value: v.to_string(), problem }
}

/// Supported options whose values are words or lists of their own, not numbers: fio's
/// arithmetic does not apply to them.
const STRING_OPTIONS: &[&str] = &[
    "rw",
    "wait_for",
    "exit_what",
    "filename",
    "directory",
    "ioengine",
    "filename_format",
    "file_service_type",
    "random_distribution",
    "rate_process",
    "rw_sequencer",
    "steadystate",
    "verify",
    "verify_pattern",
    "continue_on_error",
    "io_submit_mode",
    "bssplit",
    "kb_base",
    "cmdprio_bssplit",
    "ignore_error",
    "dedupe_mode",
];

const RW_VALUES: &str = "read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite";

impl<'a> Parser<'a> {
    fn new(file: &'a str, ctx: Context<'a>) -> Self {
        let mut defaults = Job::new("global");
        defaults.line = 0;
        Parser {
            file,
            files: vec![file.to_string()],
            env: ctx.env,
            ctx,
            defaults,
            default_lines: BTreeMap::new(),
            jobs: Vec::new(),
            warnings: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// fio's `skip_this_section`: with `--section` given, a section it does not name is
    /// skipped whole (its lines are not read), `[global]` never.
    fn skipped(&self, name: &str) -> bool {
        !self.sections.is_empty() && name != "global" && !self.sections.iter().any(|s| s == name)
    }

    /// fio's command-line options, read before the job file: those before the first `--name`
    /// as a `[global]` section, each `--name=NAME` starting a section (a job, or `global`).
    fn prelude(&mut self, options: &[String]) -> Result<(), JobFileError> {
        if options.is_empty() {
            return Ok(());
        }
        let file = self.files.len();
        self.files.push(crate::cmdline::SOURCE.to_string());
        let mut tokens = Vec::with_capacity(options.len());
        for (k, arg) in options.iter().enumerate() {
            let loc = Loc { file, line: k + 1 };
            match crate::cmdline::token(arg).map_err(|m| self.err_at(loc, None, m))? {
                crate::cmdline::Token::Section(name) => self.sections.push(name),
                t => tokens.push((k, t)),
            }
        }
        let mut current = Some(Section { name: "global".into(), line: 0, opts: Vec::new() });
        for (k, t) in tokens {
            let loc = Loc { file, line: k + 1 };
            match t {
                crate::cmdline::Token::Name(name) => {
                    if let Some(done) = current.take() {
                        self.apply_section(done)?;
                    }
                    if !self.skipped(&name) {
                        current = Some(Section { name, line: k + 1, opts: Vec::new() });
                    }
                }
                crate::cmdline::Token::Option(text) => {
                    if let Some(sec) = current.as_mut() {
                        sec.opts.push((loc, text));
                    }
                }
                crate::cmdline::Token::Section(_) => {}
            }
        }
        match current {
            Some(sec) => self.apply_section(sec),
            None => Ok(()),
        }
    }

    fn err(&self, line: usize, option: Option<&str>, message: impl Into<String>) -> JobFileError {
        self.err_at(Loc::main(line), option, message)
    }

    fn err_at(&self, loc: Loc, option: Option<&str>, message: impl Into<String>) -> JobFileError {
        JobFileError {
            file: self.files.get(loc.file).map_or(self.file, String::as_str).to_string(),
            line: loc.line,
            option: option.map(str::to_string),
            message: message.into(),
        }
    }

    fn warn(&mut self, loc: Loc, option: &str, message: impl Into<String>) {
        self.warn_on(loc, option, None, message);
    }

    /// A warning about `option` that concerns runs on `on` only (`None`: every run).
    fn warn_on(&mut self, loc: Loc, option: &str, on: Option<TargetKind>, message: impl Into<String>) {
        self.warnings.push(Warning {
            file: self.files.get(loc.file).map_or(self.file, String::as_str).to_string(),
            line: loc.line,
            option: Some(option.to_string()),
            message: message.into(),
            on,
        });
    }

    fn run(mut self, text: &str) -> Result<JobFile, JobFileError> {
        let mut current: Option<Section> = None;
        // In a section `--section` leaves out: its lines are not read.
        let mut skipping = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let raw = if i == 0 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
            let content = strip_comment(raw).trim();
            if content.is_empty() {
                continue;
            }
            if content.starts_with('[') {
                let inner = content.strip_prefix('[').and_then(|s| s.strip_suffix(']'));
                let name = match inner {
                    Some(n) if !n.contains(['[', ']']) => n.trim(),
                    _ => {
                        return Err(self.err(
                            line_no,
                            None,
                            format!("malformed section header '{content}': expected '[name]'"),
                        ))
                    }
                };
                if name.is_empty() {
                    return Err(self.err(line_no, None, "empty section name '[]'"));
                }
                if let Some(sec) = current.take() {
                    self.apply_section(sec)?;
                }
                skipping = self.skipped(name);
                if !skipping {
                    current = Some(Section { name: name.to_string(), line: line_no, opts: Vec::new() });
                }
                continue;
            }
            if skipping {
                continue;
            }
            if let Some(name) = include_target(content) {
                let loc = Loc::main(line_no);
                let Some(sec) = current.as_mut() else {
                    return Err(self.err(
                        line_no,
                        Some("include"),
                        "outside of any [section]; fio reads an included file's lines as options of the section it is in",
                    ));
                };
                let mut stack = Vec::new();
                self.include(sec, name, loc, &mut stack)?;
                continue;
            }
            match current.as_mut() {
                Some(sec) => sec.opts.push((Loc::main(line_no), content.to_string())),
                None => {
                    return Err(self.err(
                        line_no,
                        Some(option_key(content)),
                        "outside of any [section]; put it under [global] or a [job] header",
                    ))
                }
            }
        }
        if let Some(sec) = current.take() {
            self.apply_section(sec)?;
        }
        if self.jobs.is_empty() && !self.sections.is_empty() {
            return Err(self.err(
                0,
                None,
                format!("no jobs: --section named no job section of the file ({})", self.sections.join(", ")),
            ));
        }
        if self.jobs.is_empty() {
            return Err(self.err(0, None, "no jobs: the file has no job section (only [global], or nothing)"));
        }
        Ok(JobFile { global: self.defaults, jobs: self.jobs, warnings: self.warnings })
    }

    /// Reads the file an `include` line at `from` names into `sec`, as fio does: its lines are
    /// options of the section the line is in (a section header in it is an error), and it
    /// may include further files. A relative name is looked up beside the including file.
    /// `stack` holds the files being included, to refuse a loop.
    fn include(
        &mut self,
        sec: &mut Section,
        name: &str,
        from: Loc,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), JobFileError> {
        let Some(read) = self.ctx.include else {
            return Err(self.err_at(
                from,
                Some("include"),
                "include needs a job file read from disk (flashlab run reads one); here the text alone was given",
            ));
        };
        if name.is_empty() {
            return Err(self.err_at(from, Some("include"), "no file name after 'include'"));
        }
        let base = if from.file == 0 { self.ctx.path.map(Path::to_path_buf) } else { stack.last().cloned() };
        let wanted = match base.as_deref().and_then(Path::parent) {
            Some(dir) if Path::new(name).is_relative() => dir.join(name),
            _ => PathBuf::from(name),
        };
        let (path, text) = read(&wanted).map_err(|e| self.err_at(from, Some("include"), format!("{name}: {e}")))?;
        if stack.contains(&path) || self.ctx.path.is_some_and(|p| same_file(p, &path)) {
            return Err(self.err_at(
                from,
                Some("include"),
                format!("{name}: includes itself (through {} file(s)); fio would read it forever", stack.len() + 1),
            ));
        }
        if stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(self.err_at(
                from,
                Some("include"),
                format!("{name}: more than {MAX_INCLUDE_DEPTH} nested includes"),
            ));
        }
        let file = self.files.len();
        self.files.push(path.display().to_string());
        stack.push(path);
        for (i, raw) in text.lines().enumerate() {
            let loc = Loc { file, line: i + 1 };
            let raw = if i == 0 { raw.strip_prefix('\u{feff}').unwrap_or(raw) } else { raw };
            let content = strip_comment(raw).trim();
            if content.is_empty() {
                continue;
            }
            if content.starts_with('[') {
                return Err(self.err_at(
                    loc,
                    None,
                    format!("section header '{content}' in an included file: fio allows only options there"),
                ));
            }
            if let Some(inner) = include_target(content) {
                self.include(sec, inner, loc, stack)?;
                continue;
            }
            sec.opts.push((loc, content.to_string()));
        }
        stack.pop();
        Ok(())
    }

    /// Expands `${VAR}` and rejects fio's `$keyword`s. A variable that is not set becomes an
    /// empty string, as fio's `fio_option_dup_subs` makes it; its name is pushed to `unset` so
    /// that a value the empty string leaves invalid is reported with the variable's name.
    fn expand(&self, text: &str, loc: Loc, unset: &mut Vec<String>) -> Result<String, JobFileError> {
        if !text.contains('$') {
            return Ok(text.to_string());
        }
        let key = option_key(text);
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(pos) = rest.find('$') {
            out.push_str(&rest[..pos]);
            let after = &rest[pos + 1..];
            if let Some(body) = after.strip_prefix('{') {
                let Some(end) = body.find('}') else {
                    return Err(self.err_at(loc, Some(key), "unterminated '${': expected '${NAME}'"));
                };
                let name = &body[..end];
                if name.is_empty() {
                    return Err(self.err_at(loc, Some(key), "empty environment variable name '${}'"));
                }
                match self.env {
                    None => {
                        return Err(self.err_at(
                            loc,
                            Some(key),
                            format!("environment variable '${{{name}}}': expansion is not supported here; write the value into the job file"),
                        ))
                    }
                    Some(env) => match env(name) {
                        Some(v) => out.push_str(&v),
                        None => unset.push(name.to_string()),
                    },
                }
                rest = &body[end + 1..];
            } else {
                if self.ctx.keywords.is_none() {
                    for kw in ["pagesize", "mb_memory", "ncpus"] {
                        if after.starts_with(kw) {
                            return Err(self.err_at(
                                loc,
                                Some(key),
                                format!("fio's '${kw}' keyword: its value is not known here (flashlab run knows it)"),
                            ));
                        }
                    }
                }
                out.push('$');
                rest = after;
            }
        }
        out.push_str(rest);
        self.keywords(out, loc)
    }

    /// Replaces fio's `$pagesize`, `$mb_memory` and `$ncpus` in an option line and, when one
    /// was replaced and the value has `+ - * /`, computes the value as fio does (with `bc`:
    /// integer arithmetic).
    fn keywords(&self, text: String, loc: Loc) -> Result<String, JobFileError> {
        let Some(kw) = self.ctx.keywords else { return Ok(text) };
        let (replaced, any) = kw.replace(&text);
        if !any {
            return Ok(text);
        }
        let Some((key, value)) = replaced.split_once('=') else { return Ok(replaced) };
        if !value.contains(['+', '-', '*', '/']) || value.contains('\'') {
            return Ok(replaced);
        }
        let n = crate::arith::eval_plain(value.trim()).map_err(|e| {
            self.err_at(
                loc,
                Some(key.trim()),
                format!(
                    "'{}' (after replacing fio's keywords): {e}; fio computes such a value with integer arithmetic",
                    value.trim()
                ),
            )
        })?;
        Ok(format!("{key}={n}"))
    }

    fn apply_section(&mut self, sec: Section) -> Result<(), JobFileError> {
        let is_global = sec.name == "global";
        let mut job = self.defaults.clone();
        let mut lines = self.default_lines.clone();

        let mut opts = Vec::with_capacity(sec.opts.len());
        for (loc, text) in &sec.opts {
            let loc = *loc;
            let mut unset = Vec::new();
            let text = self.expand(text, loc, &mut unset)?;
            let (key, value) = match text.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
                None => (text.trim(), None),
            };
            if key.is_empty() {
                return Err(self.err_at(loc, None, format!("missing option name in '{text}'")));
            }
            let Some(info) = options::lookup(key) else {
                if key.contains(char::is_whitespace) {
                    return Err(self.err_at(loc, None, format!("expected 'option=value', found '{text}'")));
                }
                let msg = match options::suggest(key) {
                    Some(s) => format!("unknown option; did you mean '{s}'?"),
                    None => "unknown option".to_string(),
                };
                return Err(self.err_at(loc, Some(key), msg));
            };
            for name in &unset {
                self.warn(
                    loc,
                    key,
                    format!(
                        "environment variable '{name}' is not set; as fio does, '${{{name}}}' reads as an empty string"
                    ),
                );
            }
            opts.push(Opt { loc, key: key.to_string(), value, info, unset });
        }

        // fio applies kb_base before the other options of a section.
        for o in opts.iter().filter(|o| o.info.name == "kb_base") {
            self.apply(&mut job, &mut lines, o)?;
        }
        for o in opts.iter().filter(|o| o.info.name != "kb_base") {
            self.apply(&mut job, &mut lines, o)?;
        }

        job.line = sec.line;
        if is_global {
            job.name = sec.name;
            job.bs = job.max_bs();
            self.defaults = job;
            self.default_lines = lines;
        } else {
            job.name = sec.name;
            self.finalize(&mut job, &lines)?;
            self.jobs.push(job);
        }
        Ok(())
    }

    fn apply(&mut self, job: &mut Job, lines: &mut BTreeMap<&'static str, Loc>, o: &Opt) -> Result<(), JobFileError> {
        match o.info.class {
            OptionClass::Harmless(why) => {
                self.warn(o.loc, &o.key, format!("ignored by flashlab ({why})"));
                return Ok(());
            }
            OptionClass::Unsupported { why, default_ok } => {
                if let Some(v) = &o.value {
                    if default_ok.iter().any(|d| d.eq_ignore_ascii_case(v)) {
                        return Ok(());
                    }
                }
                return Err(self.err_at(o.loc, Some(&o.key), format!("not supported by flashlab ({why})")));
            }
            OptionClass::Supported => {}
        }
        let computed = self.expressions(o)?;
        let o = &match computed {
            Some(v) => Opt { loc: o.loc, key: o.key.clone(), value: Some(v), info: o.info, unset: o.unset.clone() },
            None => {
                Opt { loc: o.loc, key: o.key.clone(), value: o.value.clone(), info: o.info, unset: o.unset.clone() }
            }
        };
        self.apply_supported(job, o).map_err(|m| {
            let mut msg = m.to_string();
            if !o.unset.is_empty() {
                let names: Vec<String> = o.unset.iter().map(|n| format!("'{n}'")).collect();
                msg.push_str(&format!(
                    " (environment variable {} not set: fio reads it as an empty string and refuses the job too)",
                    names.join(", ")
                ));
            }
            self.err_at(o.loc, Some(&o.key), msg)
        })?;
        lines.insert(o.info.name, o.loc);
        Ok(())
    }

    /// fio's arithmetic: each part of a numeric option's value (parts are separated by ','
    /// and ':') that starts with '(' is an expression ([`crate::arith`]), replaced by its
    /// value — bytes or a count, or microseconds for a time (a bare number in a time
    /// expression is in the option's own unit, seconds or microseconds, as fio reads it).
    /// `None` when there is nothing to compute.
    fn expressions(&self, o: &Opt) -> Result<Option<String>, JobFileError> {
        let Some(v) = o.value.as_deref().filter(|v| v.contains('(')) else { return Ok(None) };
        if STRING_OPTIONS.contains(&o.info.name) {
            return Ok(None);
        }
        let seconds = matches!(
            o.info.name,
            "runtime"
                | "ramp_time"
                | "startdelay"
                | "steadystate_duration"
                | "steadystate_ramp_time"
                | "steadystate_check_interval"
        );
        let micros =
            matches!(o.info.name, "thinktime" | "thinktime_spin" | "latency_target" | "latency_window" | "flow_sleep");
        let float = matches!(o.info.name, "latency_percentile" | "percentile_list");
        let mut out = String::with_capacity(v.len());
        for part in v.split_inclusive([',', ':']) {
            let (body, sep) = match part.char_indices().last() {
                Some((j, c)) if c == ',' || c == ':' => (&part[..j], &part[j..]),
                _ => (part, ""),
            };
            let t = body.trim();
            if !t.starts_with('(') {
                out.push_str(body);
                out.push_str(sep);
                continue;
            }
            let val = crate::arith::eval(t, seconds || micros)
                .map_err(|e| self.err_at(o.loc, Some(&o.key), format!("arithmetic '{t}': {e}")))?;
            let text = if seconds || micros {
                let us = if seconds && !val.has_units { val.int.saturating_mul(1_000_000) } else { val.int };
                format!("{us}us")
            } else if float {
                format!("{}", val.float)
            } else {
                val.int.to_string()
            };
            out.push_str(&text);
            out.push_str(sep);
        }
        Ok(Some(out))
    }

    /// A required, non-empty value.
    fn need(o: &Opt) -> Result<&str, Error> {
        match o.value.as_deref() {
            None => Err(Error::NeedsValue { option: o.key.clone() }),
            Some("") => Err(Error::Empty),
            Some(v) => Ok(v),
        }
    }

    /// fio's FIO_OPT_STR_SET: bare means 1; otherwise 0 or 1.
    fn flag(o: &Opt) -> Result<bool, Error> {
        match o.value.as_deref() {
            None => Ok(true),
            Some(v) => Self::zero_one(v),
        }
    }

    fn zero_one(v: &str) -> Result<bool, Error> {
        match v {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(bad("value", v, "0 or 1")),
        }
    }

    /// fio's FIO_OPT_BOOL: fio wants a value; flashlab reads a bare one as 1, with a warning.
    fn boolean(&mut self, o: &Opt) -> Result<bool, Error> {
        match o.value.as_deref() {
            None => {
                self.warn(o.loc, &o.key, format!("read as '{}=1' (fio itself needs the '=1')", o.key));
                Ok(true)
            }
            Some(v) => Self::zero_one(v),
        }
    }

    fn check_iec(&mut self, o: &Opt, v: &str, kb_base: u32) {
        if kb_base == 1024 && units::uses_iec_prefix(v) {
            let bytes = units::parse_size(v, kb_base).map(|b| b.to_string()).unwrap_or_default();
            self.warn(
                o.loc,
                &o.key,
                format!(
                    "'{v}' is {bytes} bytes: with kb_base=1024 (fio's default) fio reads IEC prefixes (Ki, Mi, ...) as powers of 1000; write e.g. '4k' for 4096, or set kb_base=1000"
                ),
            );
        }
    }

    fn size(&mut self, o: &Opt, v: &str, kb_base: u32) -> Result<u64, Error> {
        let b = units::parse_size(v, kb_base)?;
        Self::bounded_bytes(v, b)?;
        self.check_iec(o, v, kb_base);
        Ok(b)
    }

    fn size_spec(&mut self, o: &Opt, v: &str, kb_base: u32) -> Result<SizeSpec, Error> {
        let s = units::parse_size_spec(v, kb_base)?;
        if let SizeSpec::Bytes(b) = s {
            Self::bounded_bytes(v, b)?;
        }
        self.check_iec(o, v, kb_base);
        Ok(s)
    }

    /// Sizes and offsets stay below [`limits::MAX_BYTES`], so offset + size never wraps.
    fn bounded_bytes(v: &str, b: u64) -> Result<(), Error> {
        if b > limits::MAX_BYTES {
            return Err(value(v, format!("{b} bytes: more than flashlab's limit of {} (1 PiB)", limits::MAX_BYTES)));
        }
        Ok(())
    }

    fn bounded_time(v: &str, ns: u64) -> Result<u64, Error> {
        if ns > limits::MAX_DURATION_NS {
            return Err(value(v, "longer than flashlab's limit of 100 years".into()));
        }
        Ok(ns)
    }

    fn count(v: &str, kb_base: u32) -> Result<u64, Error> {
        Ok(units::parse_int_suffixed("number", v, kb_base)?)
    }

    fn count_u32(v: &str, kb_base: u32) -> Result<u32, Error> {
        let n = Self::count(v, kb_base)?;
        u32::try_from(n).map_err(|_| value(v, format!("too large (at most {})", u32::MAX)))
    }

    fn percent(v: &str) -> Result<u32, Error> {
        match v.parse::<u32>() {
            Ok(n) if n <= 100 => Ok(n),
            _ => Err(bad("percentage", v, "a whole number from 0 to 100")),
        }
    }

    fn time(v: &str, unit: TimeUnit) -> Result<u64, Error> {
        Ok(units::parse_time_ns(v, unit)?)
    }

    /// A path value: fio separates several files with ':' and escapes a ':' in a name as '\:'.
    fn path(v: &str) -> Result<String, Error> {
        let mut names = Self::paths(v)?;
        if names.len() > 1 {
            return Err(value(
                v,
                "names several directories (':' separates them in fio), which flashlab does not support; write a ':' inside a name as '\\:'".into(),
            ));
        }
        Ok(names.remove(0))
    }

    /// fio's ':'-separated list of paths (`filename=a:b:c`), with `\:` escapes resolved.
    fn paths(v: &str) -> Result<Vec<String>, Error> {
        let mut names = vec![String::new()];
        let mut chars = v.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&':') => {
                    names.last_mut().expect("one name").push(':');
                    chars.next();
                }
                ':' => names.push(String::new()),
                _ => names.last_mut().expect("one name").push(c),
            }
        }
        if names.iter().any(String::is_empty) {
            return Err(value(v, "an empty name in the ':'-separated list".into()));
        }
        if names.len() as u64 > u64::from(limits::MAX_NRFILES) {
            return Err(value(v, format!("{} files, at most {}", names.len(), limits::MAX_NRFILES)));
        }
        Ok(names)
    }

    /// fio's `R,W,T` list for per-direction values (`rate=1m,500k`; `rate=,500k` limits only
    /// writes; one value applies to all directions).
    fn per_dir<T: Copy + Default>(v: &str, mut one: impl FnMut(&str) -> Result<T, Error>) -> Result<[T; 3], Error> {
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(value(v, "at most three values (read,write,trim)".into()));
        }
        let mut out = [T::default(); 3];
        if parts.len() == 1 {
            let x = one(parts[0])?;
            return Ok([x; 3]);
        }
        for (i, p) in parts.iter().enumerate() {
            if !p.is_empty() {
                out[i] = one(p)?;
            }
        }
        if parts.len() == 2 && !parts[1].is_empty() {
            out[2] = out[1];
        }
        Ok(out)
    }

    fn per_dir_sizes(&mut self, o: &Opt, kb: u32) -> Result<[u64; 3], Error> {
        let v = Self::need(o)?.to_string();
        let mut iec = false;
        let r = Self::per_dir(&v, |p| {
            iec |= units::uses_iec_prefix(p);
            let b = units::parse_size(p, kb)?;
            Self::bounded_bytes(p, b)?;
            Ok(b)
        })?;
        if iec {
            self.check_iec(o, &v, kb);
        }
        Ok(r)
    }

    fn per_dir_counts(o: &Opt, kb: u32) -> Result<[u64; 3], Error> {
        Self::per_dir(Self::need(o)?, |p| Self::count(p, kb))
    }

    fn apply_supported(&mut self, job: &mut Job, o: &Opt) -> Result<(), Error> {
        let kb = job.kb_base;
        match o.info.name {
            "kb_base" => {
                job.kb_base = match Self::need(o)? {
                    "1024" => 1024,
                    "1000" => 1000,
                    v => return Err(bad("value", v, "1000 or 1024")),
                }
            }
            "rw" => {
                let v = Self::need(o)?;
                let (base, modifier) = match v.split_once(':') {
                    Some((b, m)) => (b.trim(), Some(m.trim())),
                    None => (v, None),
                };
                job.rw = Rw::from_fio(base).ok_or_else(|| bad("value", v, &format!("one of {RW_VALUES}")))?;
                job.rw_seq_nr = 1;
                job.rw_seq_add = 0;
                if let Some(m) = modifier {
                    // fio: a number of I/Os per random offset for random patterns, a number of
                    // bytes added to each offset (holes) for sequential ones.
                    if job.rw.is_random() {
                        let n = Self::count(m, kb)?;
                        if n == 0 {
                            return Err(value(v, "the offset modifier must be at least 1".into()));
                        }
                        job.rw_seq_nr = n;
                    } else {
                        // fio: a negative skip goes backwards.
                        let (neg, m) = match m.strip_prefix('-') {
                            Some(rest) => (true, rest.trim_start()),
                            None => (false, m),
                        };
                        let b = self.size(o, m, kb)?;
                        let b = i64::try_from(b).map_err(|_| value(v, "the skip is too large".into()))?;
                        job.rw_seq_add = if neg { -b } else { b };
                    }
                }
            }
            "bssplit" => {
                let m = crate::blocksize::parse_bssplit(Self::need(o)?, kb)?;
                job.bs_read = m.read.max();
                job.bs_write = m.write.max();
                job.bs_trim = m.trim.max();
                job.bs_mix = Some(m);
                job.bs = job.max_bs();
            }
            "bsrange" => {
                let m = crate::blocksize::parse_bsrange(Self::need(o)?, kb)?;
                job.bs_read = m.read.max();
                job.bs_write = m.write.max();
                job.bs_trim = m.trim.max();
                job.bs_mix = Some(m);
                job.bs = job.max_bs();
            }
            "bs_unaligned" => job.bs_unaligned = Self::flag(o)?,
            "blockalign" => job.blockalign = self.per_dir_sizes(o, kb)?,
            "random_distribution" => {
                job.random_distribution = crate::distribution::Distribution::parse(Self::need(o)?, kb)?
            }
            "random_sequence_stride" => job.random_sequence_stride = self.boolean(o)?,
            "percentage_random" => {
                job.percentage_random = crate::distribution::PercentageRandom::parse(Self::need(o)?)?
            }
            "norandommap" => job.norandommap = Self::flag(o)?,
            "rw_sequencer" => {
                job.rw_sequencer_identical = match Self::need(o)? {
                    "sequential" => false,
                    "identical" => true,
                    v => return Err(bad("value", v, "sequential or identical")),
                }
            }
            "rate" => job.rate = self.per_dir_sizes(o, kb)?,
            "rate_min" => job.rate_min = self.per_dir_sizes(o, kb)?,
            "rate_iops" => job.rate_iops = Self::per_dir_counts(o, kb)?,
            "rate_iops_min" => job.rate_iops_min = Self::per_dir_counts(o, kb)?,
            "rate_process" => {
                job.rate_poisson = match Self::need(o)? {
                    "linear" => false,
                    "poisson" => true,
                    v => return Err(bad("value", v, "linear or poisson")),
                }
            }
            "buffer_compress_percentage" => job.buffer_compress_percentage = Self::percent(Self::need(o)?)?,
            "dedupe_percentage" => job.dedupe_percentage = Self::percent(Self::need(o)?)?,
            "dedupe_mode" => {
                job.dedupe_working_set = match Self::need(o)? {
                    "repeat" => None,
                    "working_set" => {
                        self.warn_on(
                            o.loc,
                            &o.key,
                            Some(TargetKind::Sim),
                            "a simulated device stores no data, so which buffers repeat changes nothing there",
                        );
                        Some(job.dedupe_working_set_percentage)
                    }
                    v => return Err(bad("value", v, "repeat or working_set")),
                }
            }
            "dedupe_working_set_percentage" => {
                job.dedupe_working_set_percentage = Self::percent(Self::need(o)?)?;
                if job.dedupe_working_set.is_some() {
                    job.dedupe_working_set = Some(job.dedupe_working_set_percentage);
                }
            }
            "dedupe_global" => job.dedupe_global = self.boolean(o)?,
            "steadystate" => job.steadystate.parse_criterion(Self::need(o)?, kb)?,
            "steadystate_duration" => {
                let v = Self::need(o)?;
                let ns = Self::bounded_time(v, Self::time(v, TimeUnit::Seconds)?)?;
                // fio keeps whole seconds; a window under one second would hold no sample.
                if ns > 0 && ns < crate::steadystate::CHECK_INTERVAL_NS {
                    return Err(value(v, "the window must be at least one second (fio samples once a second)".into()));
                }
                job.steadystate.dur_s = ns / crate::steadystate::CHECK_INTERVAL_NS;
            }
            "steadystate_check_interval" => {
                let v = Self::need(o)?;
                let ns = Self::bounded_time(v, Self::time(v, TimeUnit::Seconds)?)?;
                // fio: at least one second (and it keeps whole seconds).
                if ns < crate::steadystate::CHECK_INTERVAL_NS {
                    return Err(value(v, "fio's steady-state check interval must be at least 1s".into()));
                }
                job.steadystate.interval_s = ns / crate::steadystate::CHECK_INTERVAL_NS;
            }
            "steadystate_ramp_time" => {
                let v = Self::need(o)?;
                job.steadystate.ramp_ns = Self::bounded_time(v, Self::time(v, TimeUnit::Seconds)?)?;
            }
            name if crate::verify::OPTION_NAMES.contains(&name) => {
                let v = Self::need(o)?.to_string();
                if name == "continue_on_error" {
                    job.errors.continue_on = crate::ioerror::parse_continue(&v)?;
                    if job.errors.continue_on & 3 != 0 {
                        self.warn_on(
                            o.loc,
                            &o.key,
                            Some(TargetKind::Sim),
                            "a simulated device returns no read or write errors; only verify errors can be continued after",
                        );
                    }
                }
                crate::verify::apply(&mut job.verify, name, &v, kb)?;
                if name == "verify_dump" && job.verify.dump {
                    self.warn_on(
                        o.loc,
                        &o.key,
                        Some(TargetKind::Sim),
                        "a simulated device keeps a tag per block, not its data: a mismatch is reported with the tags expected and found, and no data is dumped",
                    );
                }
            }
            name if crate::prio::OPTION_NAMES.contains(&name) => {
                crate::prio::apply(&mut job.prio, name, Self::need(o)?, kb)?;
                if matches!(name, "cmdprio_percentage" | "cmdprio_bssplit") {
                    self.warn_on(o.loc, &o.key, Some(TargetKind::Sim), crate::prio::SIM_NOTE);
                }
            }
            "loops" => {
                let n = Self::count_u32(Self::need(o)?, kb)?;
                if n == 0 {
                    return Err(Error::Must { what: "loops".into(), rule: "at least 1" });
                }
                job.loops = n;
            }
            "rwmixread" => job.rwmixread = Self::percent(Self::need(o)?)?,
            "rwmixwrite" => job.rwmixread = 100 - Self::percent(Self::need(o)?)?,
            "bs" => {
                let v = Self::need(o)?;
                let parts: Vec<&str> = v.split(',').map(str::trim).collect();
                if parts.len() > 3 {
                    return Err(value(v, "at most three sizes (bs=read,write,trim)".into()));
                }
                if parts.iter().all(|p| p.is_empty()) {
                    return Err(Error::Empty);
                }
                let mut sizes = [None; 3];
                for (i, p) in parts.iter().enumerate() {
                    if p.is_empty() {
                        continue;
                    }
                    if p.contains(['-', ':']) {
                        return Err(value(
                            p,
                            "block-size ranges are not supported by flashlab; give one size per direction".into(),
                        ));
                    }
                    let b = self.size(o, p, kb)?;
                    if b == 0 {
                        return Err(Error::Must { what: "block size".into(), rule: "greater than 0" });
                    }
                    sizes[i] = Some(b);
                }
                // fio: "a value not terminated in a comma applies to subsequent types".
                if let Some(last) = sizes[parts.len() - 1] {
                    for s in sizes.iter_mut().skip(parts.len()) {
                        *s = Some(last);
                    }
                }
                if let Some(b) = sizes[0] {
                    job.bs_read = b;
                }
                if let Some(b) = sizes[1] {
                    job.bs_write = b;
                }
                if let Some(b) = sizes[2] {
                    job.bs_trim = b;
                }
                job.bs = job.max_bs();
            }
            "size" | "offset" | "io_size" | "offset_increment"
                if crate::zoned::zone_count(Self::need(o)?)?.is_some() =>
            {
                // fio's zone suffix: a number of zones, made bytes once the zone size is known.
                let n = crate::zoned::zone_count(Self::need(o)?)?;
                let z = &mut job.zoned;
                match o.info.name {
                    "size" => z.size_zones = n,
                    "offset" => z.offset_zones = n,
                    "io_size" => z.io_size_zones = n,
                    _ => z.offset_increment_zones = n,
                }
            }
            name if crate::sprandom::OPTION_NAMES.contains(&name) => {
                if name == "sprandom" {
                    job.sprandom.enabled = self.boolean(o)?;
                } else {
                    let v = Self::need(o)?;
                    let bytes = if name == "spr_cs" { self.size(o, v, kb)? } else { 0 };
                    crate::sprandom::apply(&mut job.sprandom, name, v, bytes)?
                }
            }
            name if crate::placement::OPTION_NAMES.contains(&name) => {
                crate::placement::apply(&mut job.placement, name, Self::need(o)?)?
            }
            name if crate::zoned::OPTION_NAMES.contains(&name) => {
                let v = Self::need(o)?;
                let sized = matches!(name, "zonesize" | "zonerange" | "zoneskip" | "zonecapacity");
                let zones = if name == "zoneskip" { crate::zoned::zone_count(v)? } else { None };
                let bytes = if sized && zones.is_none() { self.size(o, v, kb)? } else { 0 };
                if name == "zoneskip" {
                    job.zoned.skip_zones = zones;
                }
                crate::zoned::apply(&mut job.zoned, name, v, bytes)?
            }
            "size" => {
                job.zoned.size_zones = None;
                let s = self.size_spec(o, Self::need(o)?, kb)?;
                if matches!(s, SizeSpec::Bytes(0)) || matches!(s, SizeSpec::Percent(p) if p == 0.0) {
                    return Err(Error::Must { what: "size".into(), rule: "greater than 0" });
                }
                job.size = Some(s);
            }
            "offset" => {
                job.zoned.offset_zones = None;
                job.offset = self.size_spec(o, Self::need(o)?, kb)?
            }
            "offset_increment" => {
                job.zoned.offset_increment_zones = None;
                job.offset_increment = self.size_spec(o, Self::need(o)?, kb)?
            }
            "filesize" => {
                let v = Self::need(o)?;
                if v.ends_with('%') {
                    return Err(value(v, "a percentage is not supported for filesize".into()));
                }
                // fio's irange: `low-high` (or `low:high`); each file's size is drawn between.
                let (low, high) = match v.split_once(['-', ':']) {
                    Some((a, b)) => (self.size(o, a.trim(), kb)?, Some(self.size(o, b.trim(), kb)?)),
                    None => (self.size(o, v, kb)?, None),
                };
                if low == 0 {
                    return Err(Error::Must { what: "filesize".into(), rule: "greater than 0" });
                }
                if high.is_some_and(|h| h < low) {
                    return Err(value(v, "the range's upper bound is below its lower bound".into()));
                }
                job.filesize = Some(SizeSpec::Bytes(low));
                job.filesize_max = high.filter(|&h| h > low);
            }
            "iodepth" | "numjobs" => {
                let n = Self::count_u32(Self::need(o)?, kb)?;
                if n == 0 {
                    return Err(Error::Must { what: o.info.name.into(), rule: "at least 1" });
                }
                let max = if o.info.name == "iodepth" { limits::MAX_IODEPTH } else { limits::MAX_NUMJOBS };
                if n > max {
                    return Err(Error::AtMost { what: o.info.name, value: u64::from(n), max: u64::from(max) });
                }
                if o.info.name == "iodepth" {
                    job.iodepth = n;
                } else {
                    job.numjobs = n;
                }
            }
            "io_size" => {
                let v = Self::need(o)?;
                if v.ends_with('%') {
                    return Err(value(v, "a percentage is not supported for io_size".into()));
                }
                let b = self.size(o, v, kb)?;
                job.zoned.io_size_zones = None;
                job.io_size = (b > 0).then_some(b);
            }
            "number_ios" => {
                let n = Self::count(Self::need(o)?, kb)?;
                if n > limits::MAX_IOS {
                    return Err(Error::AtMost { what: "number_ios", value: n, max: limits::MAX_IOS });
                }
                job.number_ios = (n > 0).then_some(n);
            }
            "runtime" => {
                let v = Self::need(o)?;
                let t = Self::bounded_time(v, Self::time(v, TimeUnit::Seconds)?)?;
                job.runtime_ns = (t > 0).then_some(t);
            }
            "time_based" => job.time_based = Self::flag(o)?,
            "ramp_time" => {
                let v = Self::need(o)?;
                job.ramp_time_ns = Self::bounded_time(v, Self::time(v, TimeUnit::Seconds)?)?
            }
            "fsync" => job.fsync = Self::count_u32(Self::need(o)?, kb)?,
            "fdatasync" => job.fdatasync = Self::count_u32(Self::need(o)?, kb)?,
            "end_fsync" => job.end_fsync = self.boolean(o)?,
            // fio's FIO_OPT_STR_SET: the bare name sets it.
            "fixedbufs" => job.fixedbufs = o.value.as_deref().map_or(Ok(true), Self::zero_one)?,
            "iodepth_batch" => job.iodepth_batch = Self::count_u32(Self::need(o)?, kb)?,
            "iodepth_low" => job.iodepth_low = Self::count_u32(Self::need(o)?, kb)?,
            "iodepth_batch_complete_min" => job.iodepth_batch_complete_min = Self::count_u32(Self::need(o)?, kb)?,
            "iodepth_batch_complete_max" => job.iodepth_batch_complete_max = Self::count_u32(Self::need(o)?, kb)?,
            "direct" => job.direct = self.boolean(o)?,
            "buffered" => job.direct = !self.boolean(o)?,
            "randrepeat" => job.randrepeat = self.boolean(o)?,
            "randseed" => job.randseed = Some(Self::count(Self::need(o)?, kb)?),
            "percentile_list" => {
                let v = Self::need(o)?;
                let mut list = Vec::new();
                for p in v.split(':') {
                    let p = p.trim();
                    let x: f64 = p
                        .parse()
                        .ok()
                        .filter(|x: &f64| x.is_finite() && (0.0..=100.0).contains(x))
                        .ok_or_else(|| bad("percentile", p, "a number from 0 to 100"))?;
                    list.push(x);
                }
                if list.len() > 20 {
                    return Err(value(v, "at most 20 percentiles (as fio)".into()));
                }
                list.sort_by(f64::total_cmp);
                list.dedup();
                job.percentile_list = list;
            }
            "filename" => {
                let names = Self::paths(Self::need(o)?)?;
                job.filename = names.first().cloned();
                job.filenames = names;
            }
            "nrfiles" => {
                let n = Self::count_u32(Self::need(o)?, kb)?;
                if n == 0 || n > limits::MAX_NRFILES {
                    return Err(bad("nrfiles", &n.to_string(), &format!("1 to {}", limits::MAX_NRFILES)));
                }
                job.nrfiles = n;
            }
            "openfiles" => {
                let n = Self::count_u32(Self::need(o)?, kb)?;
                if n == 0 {
                    return Err(Error::Must { what: "openfiles".into(), rule: "at least 1" });
                }
                job.openfiles = n;
            }
            "file_service_type" => job.file_service = crate::files::FileService::parse(Self::need(o)?)?,
            "filename_format" => {
                let v = Self::need(o)?;
                if v.contains('/') {
                    return Err(value(
                        v,
                        "flashlab keeps a job's files in one directory; a '/' in filename_format is not supported"
                            .into(),
                    ));
                }
                job.filename_format = Some(v.to_string());
            }
            "directory" => job.directory = Some(Self::path(Self::need(o)?)?),
            "ioengine" => job.ioengine = Some(Self::need(o)?.to_string()),
            "stonewall" => job.stonewall = Self::flag(o)?,
            "group_reporting" => job.group_reporting = Self::flag(o)?,
            "unified_rw_reporting" => {
                // fio's posval: names, and the numbers of its former boolean form.
                let v = Self::need(o)?;
                job.unified_rw_reporting = match v {
                    "none" | "0" => 0,
                    "mixed" | "1" => 1,
                    "both" | "2" => 2,
                    _ => return Err(bad("value", v, "none, mixed, both, 0, 1 or 2")),
                };
            }
            "new_group" => job.new_group = Self::flag(o)?,
            "startdelay" => {
                let v = Self::need(o)?;
                // fio's irange of times: `low-high` (or `low:high`); each clone draws its delay
                // between the two.
                let (low, high) = match v.split_once(['-', ':']) {
                    Some((a, b)) => {
                        (Self::time(a.trim(), TimeUnit::Seconds)?, Some(Self::time(b.trim(), TimeUnit::Seconds)?))
                    }
                    None => (Self::time(v, TimeUnit::Seconds)?, None),
                };
                let low = Self::bounded_time(v, low)?;
                let high = high.map(|h| Self::bounded_time(v, h)).transpose()?;
                if high.is_some_and(|h| h < low) {
                    return Err(value(v, "the range's upper bound is below its lower bound".into()));
                }
                job.start_delay_ns = low;
                job.start_delay_max_ns = high.filter(|&h| h > low);
            }
            "wait_for" => job.wait_for = Some(Self::need(o)?.to_string()),
            // fio's FIO_OPT_STR_SET: the bare name sets it.
            "exitall" => job.exitall = Self::flag(o)?,
            "atomic" => {
                job.atomic = self.boolean(o)?;
                if job.atomic {
                    self.warn_on(
                        o.loc,
                        &o.key,
                        Some(TargetKind::Sim),
                        "a simulated device never tears a write (there is no power loss), so every write is already atomic",
                    );
                }
            }
            "flow" => {
                let v = Self::need(o)?;
                let n = Self::count(v, kb)?;
                // fio's FLOW_MAX_WEIGHT.
                if n > 1000 {
                    return Err(value(v, "fio's flow weight is at most 1000".into()));
                }
                job.flow = n as u32;
            }
            "flow_id" => job.flow_id = Self::count_u32(Self::need(o)?, kb)?,
            "flow_sleep" => {
                let v = Self::need(o)?;
                job.flow_sleep_ns = Self::bounded_time(v, Self::time(v, TimeUnit::Microseconds)?)?;
            }
            "io_submit_mode" => match Self::need(o)? {
                "inline" => {}
                "offload" => self.warn(
                    o.loc,
                    &o.key,
                    "offload runs as inline: fio hands each I/O to a separate submitting thread; flashlab's job loop submits its own, the same I/Os at the same times (rate_iops included)",
                ),
                v => return Err(bad("value", v, "inline or offload")),
            },
            "exit_what" => {
                job.exit_what = match Self::need(o)? {
                    "group" => crate::job::ExitWhat::Group,
                    "stonewall" => crate::job::ExitWhat::Stonewall,
                    "all" => crate::job::ExitWhat::All,
                    v => return Err(bad("value", v, "group, stonewall or all")),
                }
            }
            "fsync_on_close" => job.fsync_on_close = self.boolean(o)?,
            "fill_device" => job.fill_device = self.boolean(o)?,
            "ignore_error" => job.errors.ignore = crate::ioerror::parse_ignore(Self::need(o)?)?,
            "thinktime" => {
                let v = Self::need(o)?;
                job.thinktime_ns = Self::bounded_time(v, Self::time(v, TimeUnit::Microseconds)?)?
            }
            "latency_target" | "latency_window" => {
                let v = Self::need(o)?;
                let ns = Self::bounded_time(v, Self::time(v, TimeUnit::Microseconds)?)?;
                if o.info.name == "latency_target" {
                    job.latency_target.target_ns = ns;
                } else {
                    job.latency_target.window_ns = ns;
                }
            }
            "latency_percentile" => {
                let v = Self::need(o)?;
                let p: f64 = v
                    .trim()
                    .parse()
                    .ok()
                    .filter(|p: &f64| p.is_finite() && *p > 0.0 && *p <= 100.0)
                    .ok_or_else(|| bad("percentile", v, "a number above 0, at most 100"))?;
                job.latency_target.percentile = p;
            }
            "latency_run" => job.latency_target.run = self.boolean(o)?,
            "thinktime_spin" => {
                let v = Self::need(o)?;
                job.thinktime_spin_ns = Self::bounded_time(v, Self::time(v, TimeUnit::Microseconds)?)?
            }
            "thinktime_blocks" => {
                let n = Self::count_u32(Self::need(o)?, kb)?;
                if n == 0 {
                    return Err(Error::Must { what: "thinktime_blocks".into(), rule: "at least 1" });
                }
                job.thinktime_blocks = n;
            }
            other => return Err(Error::Internal { option: other.to_string() }),
        }
        Ok(())
    }

    /// Whole-job checks, once all of the job's options (and its defaults) are known.
    fn finalize(&self, job: &mut Job, lines: &BTreeMap<&'static str, Loc>) -> Result<(), JobFileError> {
        job.bs = job.max_bs();
        if let Err((opt, m)) = crate::verify::finalize(job) {
            let loc = lines.get(opt).copied().unwrap_or(Loc::main(job.line));
            return Err(self.err_at(loc, Some(opt), m));
        }
        if let Err((opt, m)) = job.prio.check(&job.name) {
            let loc = lines.get(opt).copied().unwrap_or(Loc::main(job.line));
            return Err(self.err_at(loc, Some(opt), m));
        }
        if let Err((opt, m)) = crate::placement::finalize(job) {
            let loc = lines.get(opt).copied().unwrap_or(Loc::main(job.line));
            return Err(self.err_at(loc, Some(opt), m));
        }
        if let Err((opt, m)) = crate::zoned::finalize(job) {
            let loc = lines.get(opt).copied().unwrap_or(Loc::main(job.line));
            return Err(self.err_at(loc, Some(opt), m));
        }
        let at = |opt: &str| lines.get(opt).copied().unwrap_or(Loc::main(job.line));
        if job.thinktime_spin_ns > job.thinktime_ns {
            return Err(self.err_at(
                at("thinktime_spin"),
                Some("thinktime_spin"),
                format!(
                    "job '{}': thinktime_spin ({} us) is longer than thinktime ({} us); it is the busy part of the think time",
                    job.name,
                    job.thinktime_spin_ns / 1000,
                    job.thinktime_ns / 1000
                ),
            ));
        }
        if job.nr_files() > 1 && job.verify.enabled() {
            let opt = if job.filenames.len() > 1 { "filename" } else { "nrfiles" };
            return Err(self.err_at(
                at(opt),
                Some(opt),
                format!("job '{}': verify over several files per job is not supported (use one file)", job.name),
            ));
        }
        if let Some(w) = &job.wait_for {
            // fio's wait_for_ok: the waitee is a job defined earlier, named once.
            let problem = if *w == job.name {
                Some(format!("job '{}' cannot wait for itself", job.name))
            } else {
                match self.jobs.iter().filter(|j| j.name == *w).count() {
                    0 => Some(format!(
                        "job '{}': no job named '{w}' before it (the waited-for job must be defined earlier in the file)",
                        job.name
                    )),
                    1 => None,
                    n => Some(format!(
                        "job '{}': {n} jobs are named '{w}'; the waited-for job must have a unique name",
                        job.name
                    )),
                }
            };
            if let Some(m) = problem {
                return Err(self.err_at(at("wait_for"), Some("wait_for"), m));
            }
        }
        let ss = job.steadystate;
        if ss.enabled() && !ss.dur_s.is_multiple_of(ss.interval_s.max(1)) {
            let opt = if lines.contains_key("steadystate_check_interval") {
                "steadystate_check_interval"
            } else {
                "steadystate_duration"
            };
            return Err(self.err_at(
                at(opt),
                Some(opt),
                format!(
                    "job '{}': steadystate_duration ({} s) must be a multiple of steadystate_check_interval ({} s), as fio requires",
                    job.name, ss.dur_s, ss.interval_s
                ),
            ));
        }
        if job.time_based && job.runtime_ns.is_none() {
            return Err(self.err_at(
                at("time_based"),
                Some("time_based"),
                format!("job '{}': time_based needs a runtime (e.g. runtime=60)", job.name),
            ));
        }
        if let Some(SizeSpec::Bytes(size)) = job.size {
            let min_bs = job.rw.directions().into_iter().map(|d| job.block_size(d)).min().unwrap_or(job.bs);
            if size < min_bs {
                return Err(self.err_at(
                    at("size"),
                    Some("size"),
                    format!(
                        "job '{}': size ({}) is smaller than the block size ({})",
                        job.name,
                        units::format_size_iec(size),
                        units::format_size_iec(min_bs)
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> JobFile {
        parse_jobfile("t.fio", text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn parse_err(text: &str) -> String {
        parse_jobfile("t.fio", text).unwrap_err().to_string()
    }

    #[test]
    fn global_applies_to_following_jobs_only() {
        let f = parse("[a]\n[global]\nbs=64k\n[b]\n[global]\niodepth=8\n[c]\nbs=4k\n");
        assert_eq!(f.job("a").unwrap().bs, 4096);
        assert_eq!(f.job("b").unwrap().bs, 65536);
        assert_eq!(f.job("b").unwrap().iodepth, 1);
        let c = f.job("c").unwrap();
        assert_eq!((c.bs, c.iodepth), (4096, 8));
        assert_eq!(f.global.bs, 65536);
        assert_eq!(f.global.iodepth, 8);
        assert_eq!(f.global.line, 5);
        assert_eq!(f.global.name, "global");
    }

    #[test]
    fn comments_spaces_flags() {
        let f = parse(
            "; header\n# more\n[job]   # trailing\nrw = randwrite ; why\n  bs=4k#x\ntime_based\nruntime=10\nstonewall\ngroup_reporting\n",
        );
        let j = &f.jobs[0];
        assert_eq!(j.rw, Rw::RandWrite);
        assert_eq!(j.line, 3);
        assert!(j.time_based && j.stonewall && j.group_reporting);
        assert_eq!(j.runtime_ns, Some(10_000_000_000));
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    }

    #[test]
    fn bare_bool_warns() {
        let f = parse("[j]\ndirect\n");
        assert!(f.jobs[0].direct);
        assert_eq!(f.warnings.len(), 1);
        assert_eq!(f.warnings[0].line, 2);
        let f = parse("[j]\nbuffered=0\n");
        assert!(f.jobs[0].direct);
    }

    #[test]
    fn bs_forms() {
        let f = parse("[a]\nbs=4k,8k\n[b]\nbs=,8k\n[c]\nbs=8k,32k,\n[d]\nblocksize=16k\n[e]\nrw=randrw\nbs=4k,64k\n");
        let a = f.job("a").unwrap();
        assert_eq!((a.bs_read, a.bs_write, a.bs_trim, a.bs), (4096, 8192, 8192, 4096));
        let b = f.job("b").unwrap();
        assert_eq!((b.bs_read, b.bs_write, b.bs_trim), (4096, 8192, 8192));
        let c = f.job("c").unwrap();
        assert_eq!((c.bs_read, c.bs_write, c.bs_trim), (8192, 32768, 4096));
        assert_eq!(f.job("d").unwrap().bs, 16384);
        assert_eq!(f.job("e").unwrap().bs, 65536);
        assert!(parse_err("[a]\nbs=4k-8k\n").contains("ranges"));
        assert!(parse_err("[a]\nbs=1,2,3,4\n").contains("at most three"));
        assert!(parse_err("[a]\nbs=0\n").contains("greater than 0"));
    }

    #[test]
    fn kb_base_applies_first_within_a_section_and_to_later_jobs() {
        let f = parse("[a]\nbs=4k\nkb_base=1000\n[b]\nbs=4k\n[global]\nkb_base=1000\n[c]\nsize=1m\n");
        assert_eq!(f.job("a").unwrap().bs, 4000);
        assert_eq!(f.job("b").unwrap().bs, 4096, "kb_base in a job does not leak to the next job");
        assert_eq!(f.job("c").unwrap().size, Some(SizeSpec::Bytes(1_000_000)));
        assert_eq!(f.job("c").unwrap().kb_base, 1000);
    }

    #[test]
    fn iec_under_1024_warns() {
        let f = parse("[a]\nbs=4KiB\n");
        assert_eq!(f.jobs[0].bs, 4000);
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].message.contains("4000 bytes"), "{}", f.warnings[0]);
        let f = parse("[a]\nkb_base=1000\nbs=4KiB\n");
        assert_eq!(f.jobs[0].bs, 4096);
        assert!(f.warnings.is_empty());
    }

    #[test]
    fn error_display() {
        assert_eq!(
            parse_err("[a]\n\nverify_offset=2\n"),
            "t.fio:3: option 'verify_offset': not supported by flashlab (this verify option is not implemented (verify, do_verify, verify_fatal, verify_backlog, verify_backlog_batch, verify_interval, verify_pattern, verify_write_sequence, verify_dump and verify_async are))"
        );
        assert!(parse_err("[a]\nbs=4q\n").starts_with("t.fio:2: option 'bs': bad size '4q': unknown suffix 'q'"));
        assert_eq!(parse_err("[a]\niodpeth=4\n"), "t.fio:2: option 'iodpeth': unknown option; did you mean 'iodepth'?");
        assert_eq!(
            parse_err("bs=4k\n[a]\n"),
            "t.fio:1: option 'bs': outside of any [section]; put it under [global] or a [job] header"
        );
        assert!(parse_err("[global]\nbs=4k\n").starts_with("t.fio: no jobs"));
        assert!(parse_err("").starts_with("t.fio: no jobs"));
        assert!(parse_err("[a\n").contains("malformed section header"));
        assert!(parse_err("[]\n").contains("empty section name"));
        assert!(parse_err("[a]\ninclude other.fio\n").starts_with("t.fio:2: option 'include': "));
        assert!(parse_err("[a]\nbs 4k\n").contains("expected 'option=value'"));
        assert!(parse_err("[a]\n=4k\n").contains("missing option name"));
    }

    #[test]
    fn unsupported_at_default_is_silent() {
        let f = parse("[a]\nverify=0\nloops=1\nnrfiles=1\n");
        assert!(f.warnings.is_empty());
        assert!(parse_err("[a]\npre_read=1\n").contains("not supported"));
        assert_eq!(parse("[a]\nloops=2\n").jobs[0].loops, 2);
    }

    #[test]
    fn run_control_options() {
        let f = parse("[a]\nstartdelay=2\n[b]\nstartdelay=100ms-1s\nwait_for=a\nexitall\nexit_what=stonewall\nfsync_on_close=1\n[c]\nstartdelay=(1+2)\n");
        let (a, b, c) = (&f.jobs[0], &f.jobs[1], &f.jobs[2]);
        assert_eq!((a.start_delay_ns, a.start_delay_max_ns), (2_000_000_000, None));
        assert_eq!((b.start_delay_ns, b.start_delay_max_ns), (100_000_000, Some(1_000_000_000)));
        assert_eq!(c.start_delay_ns, 3_000_000_000, "arithmetic in seconds");
        assert_eq!(b.wait_for.as_deref(), Some("a"));
        assert!(b.exitall && !a.exitall && f.exitall());
        assert_eq!((a.exit_what, b.exit_what), (crate::ExitWhat::Group, crate::ExitWhat::Stonewall));
        assert!(b.fsync_on_close && !a.fsync_on_close);
        assert!(parse_err("[a]\nstartdelay=2s-1s\n").contains("upper bound"));
        assert!(parse_err("[a]\nexit_what=some\n").starts_with("t.fio:2: option 'exit_what'"));
        // fio's wait_for_ok: an earlier job, named once, not the job itself.
        let e = parse_err("[a]\nwait_for=b\n[b]\n");
        assert!(e.starts_with("t.fio:2: option 'wait_for'") && e.contains("no job named 'b' before it"), "{e}");
        assert!(parse_err("[a]\nwait_for=a\n").contains("cannot wait for itself"));
        assert!(parse_err("[x]\n[x]\n[b]\nwait_for=x\n").contains("2 jobs are named 'x'"));
        assert!(parse_err("[a]\n[b]\nwait_for=zzz\n").starts_with("t.fio:3: option 'wait_for'"));
    }

    #[test]
    fn harmless_warns_with_location() {
        let f = parse("[global]\nthread\n[a]\nsoftrandommap=1\ninvalidate=1\n");
        let w: Vec<String> = f.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(w.len(), 3);
        assert!(w[0].starts_with("t.fio:2: option 'thread': ignored by flashlab ("), "{}", w[0]);
        assert!(w[1].starts_with("t.fio:4: option 'softrandommap': ignored"));
    }

    #[test]
    fn target_scoped_warnings() {
        let f = parse("[a]\nrw=randwrite\natomic=1\nio_submit_mode=offload\n");
        assert!(f.jobs[0].atomic);
        let sim: Vec<String> = f.warnings_for(TargetKind::Sim).map(|w| w.to_string()).collect();
        let real: Vec<String> = f.warnings_for(TargetKind::Real).map(|w| w.to_string()).collect();
        assert!(sim.iter().any(|w| w.contains("option 'atomic'") && w.contains("never tears")), "{sim:?}");
        assert!(!real.iter().any(|w| w.contains("'atomic'")), "{real:?}");
        for w in [&sim, &real] {
            assert!(
                w.iter().any(|w| w.starts_with("t.fio:4: option 'io_submit_mode': offload runs as inline")),
                "{w:?}"
            );
        }
    }

    #[test]
    fn env_expansion() {
        let text = "[a]\nsize=${SIZE}\nfilename=/dev/${DEV}\n";
        assert!(parse_err(text).contains("'${SIZE}': expansion is not supported"));
        let env = |k: &str| match k {
            "SIZE" => Some("1g".to_string()),
            "DEV" => Some("nvme0n1".to_string()),
            _ => None,
        };
        let f = parse_jobfile_with_env("t.fio", text, &env).unwrap();
        assert_eq!(f.jobs[0].size, Some(SizeSpec::Bytes(1 << 30)));
        assert_eq!(f.jobs[0].filename.as_deref(), Some("/dev/nvme0n1"));
        // fio substitutes an empty string for an unset variable: an option that takes an empty
        // value keeps it (with a warning), one that does not is an error naming the variable.
        let e = parse_jobfile_with_env("t.fio", "[a]\nsize=${NOPE}\n", &env).unwrap_err();
        assert!(e.to_string().starts_with("t.fio:2: option 'size': "), "{e}");
        assert!(e.to_string().contains("environment variable 'NOPE' not set"), "{e}");
        let f = parse_jobfile_with_env("t.fio", "[a]\nsize=1m\nfilename=${DEV}x${NOPE}\n", &env).unwrap();
        assert_eq!(f.jobs[0].filename.as_deref(), Some("nvme0n1x"));
        assert!(f.warnings.iter().any(|w| w.to_string().contains("'NOPE' is not set")), "{:?}", f.warnings);
        assert!(parse_err("[a]\nnumjobs=$ncpus\n").contains("'$ncpus' keyword"));
        assert!(parse_err("[a]\nsize=${X\n").contains("unterminated"));
    }

    #[test]
    fn values_checked() {
        assert_eq!(parse("[a]\nrw=randread:8\n").jobs[0].rw_seq_nr, 8);
        assert_eq!(parse("[a]\nrw=write:4k\n").jobs[0].rw_seq_add, 4096);
        assert!(parse_err("[a]\nrw=randread:0\n").contains("at least 1"));
        assert!(parse_err("[a]\nrw=READ\n").contains("expected one of"));
        assert!(parse_err("[a]\nrwmixread=101\n").contains("0 to 100"));
        assert!(parse_err("[a]\niodepth=0\n").contains("at least 1"));
        assert!(parse_err("[a]\niodepth=99999999999\n").contains("too large"));
        assert!(parse_err("[a]\ndirect=2\n").contains("expected 0 or 1"));
        assert!(parse_err("[a]\ntime_based\n").contains("time_based needs a runtime"));
        assert!(parse_err("[a]\nruntime=10x\n").contains("bad time '10x'"));
        let f = parse("[a]\nfilename=/dev/a:/dev/b\\:c\nnrfiles=8\n");
        assert_eq!(f.jobs[0].filenames, vec!["/dev/a".to_string(), "/dev/b:c".to_string()]);
        assert_eq!(f.jobs[0].nr_files(), 2, "filename= overrides nrfiles, as in fio");
        assert!(parse_err("[a]\nfilename=a::b\n").contains("empty name"));
        assert!(parse_err("[a]\ndirectory=/x:/y\n").contains("several directories"));
        assert!(parse_err("[a]\nsize=512\n").contains("smaller than the block size"));
        assert!(parse_err("[a]\nsize=0\n").contains("greater than 0"));
        assert!(parse_err("[a]\npercentile_list=50:nan\n").contains("bad percentile"));
        assert!(parse_err("[a]\nkb_base=1023\n").contains("1000 or 1024"));
        assert!(parse_err("[a]\nio_size=10%\n").contains("percentage"));
        assert!(parse_err("[a]\nsize\n").contains("needs a value"));
        assert!(parse_err("[a]\nsize=\n").contains("empty value"));
        let f = parse("[a]\nfilename=/dev/disk/by-path/pci-0000\\:00\\:1f.2\nrwmixwrite=30\nrw=randrw\npercentile_list=99.9:50:99\n");
        let j = &f.jobs[0];
        assert_eq!(j.filename.as_deref(), Some("/dev/disk/by-path/pci-0000:00:1f.2"));
        assert_eq!(j.rwmixread, 70);
        assert_eq!(j.percentile_list, vec![50.0, 99.0, 99.9]);
    }

    #[test]
    fn time_based_runtime_across_global() {
        let f = parse("[global]\ntime_based\n[a]\nruntime=1m\n");
        assert_eq!(f.jobs[0].runtime_ns, Some(60_000_000_000));
        let e = parse_jobfile("t.fio", "[global]\ntime_based\n[a]\n").unwrap_err();
        assert_eq!(e.line, 2, "points at the line that set time_based");
    }

    #[test]
    fn run_groups_follow_stonewall() {
        let f = parse("[a]\n[b]\n[c]\nstonewall\n[d]\n[e]\nwait_for_previous\n");
        assert_eq!(f.run_groups(), vec![vec![0, 1], vec![2, 3], vec![4]]);
    }

    fn parse_ctx(text: &str, files: &[(&str, &str)]) -> Result<JobFile, JobFileError> {
        let files: Vec<(PathBuf, String)> = files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect();
        let read = move |p: &Path| -> Result<(PathBuf, String), String> {
            files
                .iter()
                .find(|(q, _)| q == p)
                .map(|(q, t)| (q.clone(), t.clone()))
                .ok_or_else(|| "no such file".to_string())
        };
        let ctx = Context {
            env: None,
            keywords: Some(crate::arith::Keywords { pagesize: 4096, mb_memory: 2048, ncpus: 6 }),
            include: Some(&read),
            path: Some(Path::new("/jobs/main.fio")),
        };
        parse_jobfile_in("main.fio", text, ctx)
    }

    #[test]
    fn fio_aliases_resolve() {
        let f = parse("[a]\nallrandrepeat=0\nratemin=1m\nthreads=1\nlog_unix_epoch=1\n");
        let j = &f.jobs[0];
        assert!(!j.randrepeat);
        assert_eq!(j.rate_min, [1 << 20; 3]);
        let w: Vec<String> = f.warnings.iter().map(|w| w.to_string()).collect();
        assert!(w[0].starts_with("t.fio:4: option 'threads': ignored by flashlab ("), "{w:?}");
        assert!(w[1].starts_with("t.fio:5: option 'log_unix_epoch': ignored"), "{w:?}");
        assert_eq!(parse("[a]\nss_interval=5\n").jobs[0].steadystate.interval_s, 5);
        assert!(parse_err("[a]\nss_interval=500ms\n").contains("at least 1s"));
        assert!(parse_err("[a]\nss=lat:5%\nss_dur=25\nss_interval=10\n").contains("must be a multiple"));
        let j = &parse("[a]\nss=lat:5%\nss_dur=300\nss_interval=10\n").jobs[0];
        assert_eq!((j.steadystate.dur_s, j.steadystate.interval_s), (300, 10));
    }

    #[test]
    fn escaped_percent_and_backwards_skip() {
        assert_eq!(parse("[a]\nsize=100%%\n").jobs[0].size, Some(SizeSpec::Percent(100.0)));
        assert_eq!(parse("[a]\nrw=read:-8k\n").jobs[0].rw_seq_add, -8192);
        assert_eq!(parse("[a]\nrw=write:8k\n").jobs[0].rw_seq_add, 8192);
        assert!(parse_err("[a]\nrw=randread:-8\n").contains("option 'rw'"));
    }

    #[test]
    fn arithmetic_in_values() {
        let f = parse(
            "[a]\nbs=(1+3)*1k\nsize=(2^4)m\nruntime=(1+2)\nthinktime=(2ms)\niodepth=(5%3)+(2*2)\nrate=(1k*2),(3k)\n",
        );
        let j = &f.jobs[0];
        assert_eq!(j.bs, 4096);
        assert_eq!(j.size, Some(SizeSpec::Bytes(16 << 20)));
        assert_eq!(j.runtime_ns, Some(3_000_000_000), "a bare number in a seconds option is seconds");
        assert_eq!(j.thinktime_ns, 2_000_000);
        assert_eq!(j.rate, [2048, 3072, 3072]);
        assert!(j.iodepth > 0);
        assert_eq!(parse("[a]\nruntime=(1m+30s)\n").jobs[0].runtime_ns, Some(90_000_000_000));
        assert_eq!(parse("[a]\nthinktime=(10+5)\n").jobs[0].thinktime_ns, 15_000, "microseconds");
        let e = parse_err("[a]\nsize=(4k/0)\n");
        assert_eq!(e, "t.fio:2: option 'size': arithmetic '(4k/0)': division by zero");
        assert!(parse_err("[a]\nbs=(4k\n").contains("without its ')'"));
        assert_eq!(parse("[a]\nfilename=/tmp/(x)\n").jobs[0].filename.as_deref(), Some("/tmp/(x)"));
    }

    #[test]
    fn fio_keywords() {
        let f =
            parse_ctx("[a]\nnumjobs=$ncpus\nsize=$mb_memory*4096/2\nbs=$pagesize\niodepth=2*$ncpus-1\n", &[]).unwrap();
        let j = &f.jobs[0];
        assert_eq!((j.numjobs, j.bs, j.iodepth), (6, 4096, 11));
        assert_eq!(j.size, Some(SizeSpec::Bytes(2048 * 2048)), "fio's bc result is a plain number: bytes");
        let e = parse_ctx("[a]\nsize=$mb_memory*2k\n", &[]).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("option 'size'") && e.to_string().contains("integer arithmetic"), "{e}");
        assert!(parse_err("[a]\nnumjobs=$ncpus\n").contains("'$ncpus' keyword"));
    }

    #[test]
    fn include_reads_options_into_the_section() {
        let files = [
            ("/jobs/common.inc", "bs=8k\n# comment\ninclude deeper.inc\n"),
            ("/jobs/deeper.inc", "iodepth=4\n"),
            ("/jobs/loop.inc", "include loop.inc\n"),
            ("/jobs/section.inc", "bs=8k\n[b]\n"),
            ("/jobs/bad.inc", "iodepth=4\nbs=4q\n"),
            ("/abs/x.inc", "rw=write\n"),
        ];
        let f = parse_ctx("[global]\ninclude common.inc\n[a]\ninclude /abs/x.inc\nsize=1m\n", &files).unwrap();
        let j = &f.jobs[0];
        assert_eq!((j.bs, j.iodepth, j.rw), (8192, 4, Rw::Write));
        let e = parse_ctx("[a]\ninclude loop.inc\n", &files).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("/jobs/loop.inc", 1));
        assert!(e.message.contains("includes itself"), "{e}");
        let e = parse_ctx("[a]\ninclude section.inc\n", &files).unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("/jobs/section.inc", 2));
        let e = parse_ctx("[a]\ninclude bad.inc\n", &files).unwrap_err();
        assert!(e.to_string().starts_with("/jobs/bad.inc:2: option 'bs': bad size '4q'"), "{e}");
        let e = parse_ctx("[a]\ninclude nope.inc\n", &files).unwrap_err();
        assert_eq!((e.file.as_str(), e.line, e.option.as_deref()), ("main.fio", 2, Some("include")));
        assert!(e.message.contains("nope.inc"));
        let e = parse_ctx("include common.inc\n[a]\n", &files).unwrap_err();
        assert!(e.message.contains("outside of any [section]"));
        assert!(parse_err("[a]\ninclude x.inc\n").contains("read from disk"));
    }

    #[test]
    fn crlf_and_bom() {
        let f = parse("\u{feff}[a]\r\nbs=8k\r\n");
        assert_eq!(f.jobs[0].bs, 8192);
    }
}
