//! Part of the docs test (`tests/docs.rs`): the README's command tables against the command
//! line itself (issue 48, item 3), so they cannot drift again:
//!
//! - every row of "| command | what it does |" is a command line flashlab accepts: each
//!   `flashlab ...` in its first cell (placeholders filled in, the first of `a|b` alternatives
//!   taken, `[optional]` parts included) parses — it is run with `--help` appended, which exits
//!   0 only when every flag before it exists and takes the value shown (a flag shown without a
//!   value must take none);
//! - every subcommand of `flashlab --help` has a row;
//! - each row of "| option | what | commands |" names exactly the commands whose `--help`
//!   lists each of its options;
//! - every inline `flashlab ...` command in the README's prose parses the same way.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap()
}

fn flashlab(args: &[String]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flashlab")).args(args).output().expect("run flashlab")
}

/// The cells of the rows of the table whose header line starts with `header`.
fn table(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with(header));
    assert!(lines.next().is_some(), "README.md has no table headed '{header}'");
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let l = l.trim().trim_start_matches('|').trim_end_matches('|');
            // Split on unescaped pipes; `\|` is a pipe inside a cell.
            let mut cells = vec![String::new()];
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'|') => cells.last_mut().unwrap().push(chars.next().unwrap()),
                    '|' => cells.push(String::new()),
                    c => cells.last_mut().unwrap().push(c),
                }
            }
            cells.into_iter().map(|c| c.trim().to_string()).collect()
        })
        .collect()
}

/// The code spans of `cell` (between backticks).
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// A usage line (`flashlab age [--protocol a|b] [--json FILE]`) as arguments to try: optional
/// parts included, the first of each `a|b` taken, ` | alternative` dropped, `...` removed, and
/// number placeholders (`N`, `X`, `F`, `MS`) filled in.
fn arguments(usage: &str) -> Vec<String> {
    let words: Vec<&str> = usage.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"flashlab"), "{usage}");
    let mut out = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i].replace(['[', ']'], "");
        i += 1;
        if w == "|" {
            i += 1; // the alternative after a standalone bar
            continue;
        }
        let w = if w == "..." { "X".to_string() } else { w.trim_end_matches("...").to_string() };
        let w = w.split('|').next().unwrap().to_string();
        let w = match w.as_str() {
            "N" | "X" | "MS" => "1".to_string(),
            "F" => "0.1".to_string(),
            _ => w,
        };
        if !w.is_empty() {
            out.push(w);
        }
    }
    out
}

/// `flashlab ARGS --help` exits 0: every flag in ARGS exists and takes the value it is given.
fn parses(usage: &str) -> Result<(), String> {
    let mut args = arguments(usage);
    args.push("--help".into());
    let o = flashlab(&args);
    if o.status.success() {
        Ok(())
    } else {
        Err(format!("`{usage}` (run as flashlab {args:?}): {}", String::from_utf8_lossy(&o.stderr).trim()))
    }
}

/// The subcommands listed under "Commands:" in `help` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

fn help(cmd: &[&str]) -> String {
    let mut a: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
    a.push("--help".into());
    let o = flashlab(&a);
    assert!(o.status.success(), "flashlab {a:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Every command flashlab runs (`sim waf`, `phone bench`, ...), with its `--help`.
fn leaf_commands() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in subcommands(&help(&[])) {
        let h = help(&[&c]);
        let subs = subcommands(&h);
        if subs.is_empty() {
            out.push((c, h));
        } else {
            for s in subs {
                let h = help(&[&c, &s]);
                out.push((format!("{c} {s}"), h));
            }
        }
    }
    out
}

/// Whether the options of `help` include `flag` (a line of the option list naming it).
fn has_flag(help: &str, flag: &str) -> bool {
    help.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('-')
            && l.split([' ', ',', '=', '<', '[']).take_while(|w| w.starts_with('-') || w.is_empty()).any(|w| w == flag)
    })
}

#[test]
fn every_command_row_parses_and_every_command_has_a_row() {
    let text = readme();
    let rows = table(&text, "| command | what it does |");
    let mut failures = Vec::new();
    let mut covered = BTreeSet::new();
    for row in &rows {
        let spans = code_spans(&row[0]);
        let usage = spans.first().unwrap_or_else(|| panic!("a row without a command: {row:?}"));
        let args = arguments(usage);
        covered.insert(args[0].clone());
        if let Err(e) = parses(usage) {
            failures.push(e);
        }
    }
    for c in subcommands(&help(&[])) {
        if !covered.contains(&c) {
            failures.push(format!("flashlab {c} has no row in the README's command table"));
        }
    }
    assert!(failures.is_empty(), "the README's command table is stale:\n{}", failures.join("\n"));
}

#[test]
fn the_shared_options_table_names_the_commands_that_take_each_option() {
    let text = readme();
    let rows = table(&text, "| option | what | commands |");
    let commands = leaf_commands();
    let all: BTreeSet<String> = commands.iter().map(|(c, _)| c.clone()).collect();
    let mut failures = Vec::new();
    for row in &rows {
        let listed: BTreeSet<String> = match row[2].strip_prefix("all but ") {
            Some(but) => {
                let but: BTreeSet<String> = but.split(", ").map(str::to_string).collect();
                all.difference(&but).cloned().collect()
            }
            None => row[2].split(", ").map(str::to_string).collect(),
        };
        for unknown in listed.difference(&all) {
            failures.push(format!("{}: '{unknown}' is not a flashlab command", row[0]));
        }
        for flag in code_spans(&row[0]) {
            let flag = flag.split_whitespace().next().unwrap().to_string();
            let taking: BTreeSet<String> =
                commands.iter().filter(|(_, h)| has_flag(h, &flag)).map(|(c, _)| c.clone()).collect();
            if taking != listed {
                failures.push(format!(
                    "{flag}: the README lists {:?}; --help has it in {:?}",
                    listed.difference(&taking).collect::<Vec<_>>(),
                    taking.difference(&listed).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(rows.len() >= 4, "the options table has {} rows", rows.len());
    assert!(failures.is_empty(), "the README's options table is stale:\n{}", failures.join("\n"));
}

#[test]
fn every_inline_flashlab_command_in_the_readme_parses() {
    let text = readme();
    // The prose: no fenced blocks (console blocks run in the docs test), no table rows (checked
    // above); joined, so a code span broken over two lines stays whole.
    let mut in_fence = false;
    let mut prose = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && !line.starts_with('|') {
            prose.push_str(line);
            prose.push(' ');
        }
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for span in code_spans(&prose) {
        // A whole command: `flashlab SUBCOMMAND ...` without redirections.
        let first = span.split_whitespace().nth(1).unwrap_or("");
        if !span.starts_with("flashlab ") || first.starts_with('-') || span.contains(['>', '<']) {
            continue;
        }
        let usage = span.split(" | ").next().unwrap();
        checked += 1;
        if let Err(e) = parses(usage) {
            failures.push(e);
        }
    }
    assert!(checked >= 5, "only {checked} inline commands found");
    assert!(failures.is_empty(), "README commands that flashlab refuses:\n{}", failures.join("\n"));
}

#[test]
fn the_check_catches_a_stale_row() {
    // A flag shown without its value, a flag that does not exist: both refused.
    assert!(parses("flashlab doctor [--json]").is_err());
    assert!(parses("flashlab age [--traget sim:toy]").is_err());
    assert!(parses("flashlab doctor [--json FILE]").is_ok());
    assert_eq!(
        arguments("flashlab life [--policy P | --compare-policies] [--sessions N --gap D]"),
        ["life", "--policy", "P", "--sessions", "1", "--gap", "D"]
    );
    assert!(has_flag("  -q, --quiet  Print no text", "--quiet"));
    assert!(!has_flag("      --seed <SEED>  Seed", "--see"));
}

#[test]
fn every_seed_option_says_what_it_does() {
    // Issue 48, item 7: run, life and sim waf showed `--seed <SEED>  [default: 1]` alone.
    let mut checked = 0;
    for (cmd, help) in leaf_commands() {
        let lines: Vec<&str> = help.lines().collect();
        let Some(k) = lines.iter().position(|l| l.trim_start().starts_with("--seed")) else { continue };
        // The description: after the flag on its line, else on the next line.
        let rest = lines[k].trim_start().trim_start_matches("--seed <SEED>").trim();
        let text = if rest.is_empty() { lines.get(k + 1).copied().unwrap_or("").trim() } else { rest };
        assert!(text.starts_with("Seed "), "flashlab {cmd} --help has no description of --seed: '{}'", lines[k]);
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}
