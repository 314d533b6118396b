//! Docs that cannot rot: every Markdown file in README.md and docs/ has balanced code fences,
//! and every command shown in a ```console block is run and its output checked.
//!
//! The convention (docs/testing.md): a block opened with ```` ```console ```` holds `$ ` lines
//! (commands, run by bash in one scratch directory per document, with this build's `flashlab`
//! first on PATH) each followed by its output (stdout; stderr is shown when a command fails). Words after `console` say how the output is
//! checked and what the block needs:
//!
//! - (nothing): deterministic output (simulated runs), compared exactly after masking
//!   wall-clock readings (`wall time 0.5 s`);
//! - `shape`: measured output (real devices): the same lines, each with the same words and the
//!   same number of fields, numbers free;
//! - `runs`: machine-dependent output (doctor on the live system): the command succeeds and
//!   prints something;
//! - `needs=root,fuse,loop,tracefs,fio,vm`: capabilities, checked with flashlab-testcaps (a
//!   missing one fails unless FLASHLAB_TEST_SKIP names it);
//! - `slow`: run only when regenerating (`FLASHLAB_DOCS=overwrite`, or `FLASHLAB_DOCS=slow` to
//!   check them): commands of minutes (a year of use on a 16 GB device), too long for the suite;
//! - `skip`: not run, for what this machine cannot do at all (an Android phone over adb) and
//!   hand-edited sessions not yet converted; each is printed, and README.md may have none.
//!
//! Every command must exit 0. `FLASHLAB_DOCS=overwrite` rewrites each block's output with what
//! the commands print now, and copies the files they write under `docs/` (charts, screenshots)
//! back into the repository's docs/: `scripts/regen-docs.sh` runs that.

// The README's command tables and inline commands against each command's --help.
mod readme_tables;

use flashlab_testcaps::{require_for, Cap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn overwrite() -> bool {
    std::env::var("FLASHLAB_DOCS").is_ok_and(|v| v == "overwrite")
}

/// Every Markdown document the tests cover: README.md and docs/*.md.
fn documents() -> Vec<PathBuf> {
    let mut v = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// A fenced code block: the line of its opening fence (1-based), its info string, the lines
/// between the fences (indices into the file's lines).
#[derive(Debug)]
struct Block {
    line: usize,
    info: String,
    body: std::ops::Range<usize>,
}

/// The fenced code blocks of a Markdown text, or what is wrong with its fences. Stricter than
/// CommonMark so that a missing closing fence cannot hide: every opening fence names a language
/// (```text for plain output), a closing fence is bare, and a fence with a language inside a
/// block is an error (it means the block before was never closed).
fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut open: Option<(usize, String, usize)> = None; // (line index, info, fence length)
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if l.len() - t.len() > 3 || !t.starts_with("```") {
            continue;
        }
        let ticks = t.len() - t.trim_start_matches('`').len();
        let info = t[ticks..].trim();
        match &open {
            None if info.is_empty() => {
                return Err(format!("line {}: a code block opens without a language (use ```text for output)", i + 1))
            }
            None => open = Some((i, info.to_string(), ticks)),
            Some((start, info0, n)) if info.is_empty() && ticks >= *n => {
                out.push(Block { line: start + 1, info: info0.clone(), body: start + 1..i });
                open = None;
            }
            Some((start, _, n)) if ticks >= *n => {
                return Err(format!(
                    "line {}: a fence with a language ({info}) inside the block opened at line {}: that block is not closed",
                    i + 1,
                    start + 1
                ))
            }
            Some(_) => {}
        }
    }
    if let Some((start, _, _)) = open {
        return Err(format!("line {}: this code block is never closed", start + 1));
    }
    Ok(out)
}

#[test]
fn fences_are_balanced() {
    let mut bad = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        if let Err(e) = blocks(&text) {
            bad.push(format!("{}: {e}", doc.display()));
        }
        // A shown command outside a console block would not be run by the tests.
        for b in blocks(&text).unwrap_or_default() {
            if b.info.split_whitespace().next() != Some("console") {
                for (i, l) in text.lines().enumerate().take(b.body.end).skip(b.body.start) {
                    if l.starts_with("$ flashlab") {
                        bad.push(format!(
                            "{}:{}: `$ flashlab` outside a ```console block is never run",
                            doc.display(),
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_fence_check_catches_an_unclosed_block() {
    assert!(blocks("```text\na\n```\n").is_ok());
    assert!(blocks("```text\na\n").unwrap_err().contains("never closed"));
    assert!(blocks("```text\na\n\n## b\n```console\n$ x\n```\n").unwrap_err().contains("not closed"));
    assert!(blocks("```\na\n```\n").unwrap_err().contains("without a language"));
    assert!(blocks("````text\n```rust\n```\n````\n").is_ok());
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Check {
    Exact,
    Shape,
    Runs,
    Skip,
}

/// Whether `slow` blocks run: when regenerating (unless FLASHLAB_DOCS_SKIP_SLOW=1), or when
/// asked to.
fn run_slow() -> bool {
    let skip = std::env::var("FLASHLAB_DOCS_SKIP_SLOW").is_ok_and(|v| v == "1");
    std::env::var("FLASHLAB_DOCS").is_ok_and(|v| (v == "overwrite" && !skip) || v == "slow")
}

/// A `$ ` command of a console block and the output shown after it (file line indices).
struct Shown {
    line: usize,
    command: String,
    output: std::ops::Range<usize>,
}

fn console_blocks(text: &str) -> Vec<(Block, Check, Vec<Cap>)> {
    let mut v = Vec::new();
    for b in blocks(text).unwrap_or_default() {
        let mut words = b.info.split_whitespace();
        if words.next() != Some("console") {
            continue;
        }
        let mut check = Check::Exact;
        let mut caps = Vec::new();
        let mut slow = false;
        for w in words {
            match w {
                "shape" => check = Check::Shape,
                "runs" => check = Check::Runs,
                "skip" => check = Check::Skip,
                "slow" => slow = true,
                _ if w.starts_with("needs=") => {
                    for c in w["needs=".len()..].split(',') {
                        caps.push(match c {
                            "root" => Cap::Root,
                            "fuse" => Cap::Fuse,
                            "loop" => Cap::Loop,
                            "tracefs" => Cap::Tracefs,
                            "fio" => Cap::Fio,
                            "io_uring" => Cap::IoUring,
                            "vm" => Cap::Vm,
                            other => panic!("line {}: unknown capability {other} in ```{}", b.line, b.info),
                        });
                    }
                }
                other => panic!("line {}: unknown word {other} in ```{}", b.line, b.info),
            }
        }
        if slow && !run_slow() {
            check = Check::Skip;
        }
        v.push((b, check, caps));
    }
    v
}

fn shown(lines: &[&str], b: &Block) -> Vec<Shown> {
    let mut v: Vec<Shown> = Vec::new();
    for i in b.body.clone() {
        if let Some(c) = lines[i].strip_prefix("$ ") {
            if let Some(last) = v.last_mut() {
                last.output.end = i;
            }
            v.push(Shown { line: i + 1, command: c.to_string(), output: i + 1..b.body.end });
        }
    }
    v
}

/// Wall-clock readings that differ from run to run even when the simulation does not.
fn mask(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let mut l = line.trim_end().to_string();
        for key in ["wall time ", "wall: ", "took "] {
            let mut from = 0;
            while let Some(p) = l[from..].find(key) {
                let start = from + p + key.len();
                let end = l[start..]
                    .find(|c: char| c.is_whitespace() || c == ';' || c == ',' || c == ')')
                    .map_or(l.len(), |e| start + e);
                l.replace_range(start..end, "[..]");
                from = start + 4;
            }
        }
        if let Some(p) = l.find(" s of wall time") {
            let start = l[..p].rfind(' ').map_or(0, |b| b + 1);
            l.replace_range(start..p, "[..]");
        }
        out.push_str(&l);
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// The shape of measured output, portable across machines: per non-empty line, its first field
/// (`#` when it holds a digit: a number, a path with a pid) and its number of fields. Row
/// labels, column headers and table sizes must stay; numbers, device names and paths are free.
fn shape(s: &str) -> Vec<(usize, String)> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let first = fields[0];
            (fields.len(), if first.chars().any(|c| c.is_ascii_digit()) { "#".to_string() } else { first.to_string() })
        })
        .collect()
}

/// The scratch directory commands run in: `docs/` and `target/` are real (outputs land there),
/// the repository's inputs (examples, bench, scripts, crates) are linked.
fn scratch() -> tempfile::TempDir {
    // Under target/ (cargo's CARGO_TARGET_TMPDIR), not /tmp: the examples that measure a real
    // directory need one on a block device, and /tmp is a tmpfs on many systems.
    let dir = tempfile::Builder::new().prefix("flashlab-docs-").tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::create_dir(dir.path().join("target")).unwrap();
    for d in ["examples", "bench", "scripts", "crates"] {
        std::os::unix::fs::symlink(repo().join(d), dir.path().join(d)).unwrap();
    }
    dir
}

/// Run one shown command: bash, `limit` seconds at most (then SIGINT, then SIGKILL).
fn run_shown(cmd: &str, cwd: &Path, limit: u32) -> (bool, String) {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_flashlab")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("timeout")
        .args(["--signal=INT", "--kill-after=10", &limit.to_string(), "bash", "-o", "pipefail", "-c", cmd])
        .current_dir(cwd)
        .env("PATH", path)
        .env("FLASHLAB_DOCS_REPO", repo())
        .env_remove("FLASHLAB_PROGRESS")
        .stdin(Stdio::null())
        .output()
        .expect("running bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        (true, stdout)
    } else {
        (false, format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)))
    }
}

/// Run every console block of one document; check (or, with FLASHLAB_DOCS=overwrite, rewrite)
/// the outputs.
fn check_document(rel: &str) {
    let path = repo().join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = scratch();
    let mut failures = Vec::new();
    // Replacement output per range of file lines, applied at the end (overwrite).
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (block, check, caps) in console_blocks(&text) {
        if check == Check::Skip {
            assert_ne!(
                rel, "README.md",
                "README.md:{}: every command in the README must run in the test (no skip, no slow)",
                block.line
            );
            eprintln!("{rel}:{}: NOT RUN (```{})", block.line, block.info);
            continue;
        }
        if !caps.is_empty() && !require_for(&format!("{rel}:{}", block.line), &caps) {
            continue;
        }
        for s in shown(&lines, &block) {
            let t0 = Instant::now();
            // Ten minutes a command; an hour for `slow` blocks (a simulated year on 16 GB).
            let limit = if block.info.split_whitespace().any(|w| w == "slow") { 3600 } else { 600 };
            let (ok, actual) = run_shown(&s.command, dir.path(), limit);
            eprintln!("{rel}:{}: {:.1} s  $ {}", s.line, t0.elapsed().as_secs_f64(), s.command);
            let expected = lines[s.output.clone()].join("\n");
            if !ok {
                failures.push(format!("{rel}:{}: `{}` failed:\n{actual}", s.line, s.command));
                continue;
            }
            if overwrite() {
                // A deterministic output that matches keeps its text (its wall-clock reading
                // too), so regenerating twice changes nothing; measured ones are re-measured.
                if !(check == Check::Exact && mask(&expected) == mask(&actual)) {
                    edits.push((s.output.clone(), actual.trim_end().to_string()));
                }
                continue;
            }
            let bad = match check {
                Check::Exact => mask(&expected) != mask(&actual),
                Check::Shape => shape(&expected) != shape(&actual),
                // A command shown with no output (`mkdir -p`) must print none; others some.
                Check::Runs => actual.trim().is_empty() != expected.trim().is_empty(),
                Check::Skip => unreachable!(),
            };
            if bad {
                failures.push(format!(
                    "{rel}:{}: `{}` ({check:?} check) printed something else (FLASHLAB_DOCS=overwrite or scripts/regen-docs.sh rewrites the docs):\n--- shown\n{}\n--- now\n{}",
                    s.line,
                    s.command,
                    mask(&expected),
                    mask(&actual)
                ));
            }
        }
    }
    if overwrite() {
        let mut new_lines: Vec<String> = Vec::new();
        let mut i = 0;
        let mut edits = edits.into_iter().peekable();
        while i < lines.len() {
            if let Some((r, _)) = edits.peek() {
                if r.start == i {
                    let (r, s) = edits.next().unwrap();
                    new_lines.extend(s.lines().map(str::to_string));
                    i = r.end;
                    continue;
                }
            }
            new_lines.push(lines[i].to_string());
            i += 1;
        }
        let mut new_text = new_lines.join("\n");
        new_text.push('\n');
        if new_text != text {
            std::fs::write(&path, new_text).unwrap();
            eprintln!("{rel}: rewritten");
        }
        // Files the commands wrote under docs/ that the repository keeps (charts) come back.
        for e in std::fs::read_dir(dir.path().join("docs")).unwrap() {
            let e = e.unwrap();
            let dest = repo().join("docs").join(e.file_name());
            if dest.exists() {
                std::fs::copy(e.path(), &dest).unwrap();
                eprintln!("docs/{}: regenerated", e.file_name().to_string_lossy());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// One test per document, so they run in parallel and fail separately.
macro_rules! documents {
    ($($name:ident => $file:literal,)*) => {
        $(#[test] fn $name() { check_document($file) })*
        const LISTED: &[&str] = &[$($file),*];
    };
}

documents! {
    readme => "README.md",
    architecture => "docs/architecture.md",
    breakdown => "docs/breakdown.md",
    calibration => "docs/calibration.md",
    doctor => "docs/doctor.md",
    filesystems => "docs/filesystems.md",
    fill => "docs/fill.md",
    hotcold => "docs/hotcold.md",
    jesd219 => "docs/jesd219.md",
    jobs => "docs/jobs.md",
    life => "docs/life.md",
    phone => "docs/phone.md",
    placement => "docs/placement.md",
    real => "docs/real.md",
    reference => "docs/reference.md",
    reliability => "docs/reliability.md",
    report => "docs/report.md",
    results => "docs/results.md",
    serve => "docs/serve.md",
    speed => "docs/speed.md",
    sqlite => "docs/sqlite.md",
    suspend => "docs/suspend.md",
    sweep => "docs/sweep.md",
    testing => "docs/testing.md",
    validate_fs => "docs/validate-fs.md",
    waf => "docs/waf.md",
    zoned => "docs/zoned.md",
}

#[test]
fn every_document_has_its_test() {
    let all: Vec<String> =
        documents().iter().map(|p| p.strip_prefix(repo()).unwrap().to_string_lossy().into_owned()).collect();
    let listed: Vec<String> = LISTED.iter().map(|s| s.to_string()).collect();
    assert_eq!(all, listed, "add the new document to the documents! list in tests/docs.rs");
}

#[test]
fn masks_and_shapes() {
    assert_eq!(mask("virtual time 9.1 s; wall time 0.5 s"), mask("virtual time 9.1 s; wall time 12.25 s"));
    assert_ne!(mask("virtual time 9.1 s; wall time 0.5 s"), mask("virtual time 9.2 s; wall time 0.5 s"));
    assert_eq!(mask("largest error 6.6 %; in 0.2 s of wall time"), mask("largest error 6.6 %; in 1.25 s of wall time"));
    assert_eq!(shape("new  1055  828 MB/s"), shape("new 998 1002 MB/s"));
    assert_eq!(shape("/tmp/f-26642.dat (file on vda)"), shape("/tmp/f-7.dat (file on sda)"));
    assert_ne!(shape("new  1055  828 MB/s"), shape("new 998 MB/s"));
    assert_ne!(shape("new  1055"), shape("old  1055"));
    assert_ne!(shape("a\nb"), shape("a"));
}

/// docs/architecture.md's crate map lists every crate of the workspace, and each row's last
/// column ("depends on") is exactly the flashlab crates its Cargo.toml's `[dependencies]` name.
#[test]
fn crate_map_matches_the_manifests() {
    let root = repo();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut rows = std::collections::BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `flash")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let name = cells[0].trim_matches('`').to_string();
        let mut deps: Vec<String> = match *cells.last().unwrap() {
            "—" => Vec::new(),
            c if c.starts_with("every crate") => continue,
            c => c.split(", ").map(|d| d.to_string()).collect(),
        };
        deps.sort();
        rows.insert(name, deps);
    }
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        let name = text.lines().find_map(|l| l.strip_prefix("name = \"")).unwrap().trim_end_matches('"').to_string();
        if name == "flashlab" {
            continue;
        }
        let section = text.split("[dependencies]").nth(1).unwrap_or("");
        let section = section.split("\n[").next().unwrap_or("");
        let mut deps: Vec<String> = section
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim()))
            .filter(|k| k.starts_with("flash"))
            .map(|k| k.strip_prefix("flashlab-").unwrap_or(k).to_string())
            .collect();
        deps.sort();
        match rows.get(&name) {
            None => failures.push(format!("{name}: not in the crate map")),
            Some(listed) if *listed != deps => {
                failures.push(format!("{name}: the map says {listed:?}, Cargo.toml says {deps:?}"))
            }
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "docs/architecture.md's crate map:\n{}", failures.join("\n"));
}
