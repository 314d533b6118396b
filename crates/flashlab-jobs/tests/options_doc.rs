//! docs/jobs.md's option table is generated from the option table in `src/options.rs`: this
//! test renders the table and compares it with the text between the two marker comments.
//! `FLASHLAB_DOCS=overwrite` (the repository's convention, `scripts/regen-docs.sh`) or
//! `FLASHLAB_BLESS=1` rewrites that section instead.
//!
//! With `FLASHLAB_FIO_HOWTO=/path/to/fio/HOWTO.rst` a second test checks that every option
//! fio's documentation lists is in the table (fio's HOWTO is not part of this repository).

use std::path::PathBuf;

const BEGIN: &str = "<!-- options-table:begin (generated from crates/flashlab-jobs/src/options.rs; FLASHLAB_BLESS=1 cargo test -p flashlab-jobs --test options_doc rewrites it) -->\n";
const END: &str = "<!-- options-table:end -->";

fn jobs_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/jobs.md")
}

fn bless() -> bool {
    std::env::var("FLASHLAB_BLESS").is_ok_and(|v| v == "1")
        || std::env::var("FLASHLAB_DOCS").is_ok_and(|v| v == "overwrite")
}

#[test]
fn docs_option_table_matches_the_code() {
    let path = jobs_md();
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc.find(BEGIN).unwrap_or_else(|| panic!("{}: no line '{}'", path.display(), BEGIN.trim_end()));
    let body_start = start + BEGIN.len();
    let len =
        doc[body_start..].find(END).unwrap_or_else(|| panic!("{}: no '{END}' after the begin marker", path.display()));
    let now = &doc[body_start..body_start + len];
    let want = flashlab_jobs::options::markdown_table();
    if now == want {
        return;
    }
    if bless() {
        let new = format!("{}{}{}", &doc[..body_start], want, &doc[body_start + len..]);
        std::fs::write(&path, new).unwrap();
        eprintln!("rewrote the option table in {}", path.display());
        return;
    }
    let first = now.lines().zip(want.lines()).position(|(a, b)| a != b);
    panic!(
        "{}: the option table differs from src/options.rs (first differing row: {:?}); run `FLASHLAB_BLESS=1 cargo test -p flashlab-jobs --test options_doc` to regenerate it",
        path.display(),
        first.map(|i| (now.lines().nth(i), want.lines().nth(i)))
    );
}

/// The names an `.. option::` line of fio's HOWTO.rst documents: `rw=str, readwrite=str` gives
/// both; engine tags after ` : ` and value types after `=` are dropped.
fn howto_names(line: &str) -> Vec<String> {
    let Some(rest) = line.strip_prefix(".. option:: ") else { return Vec::new() };
    if rest.starts_with("--") {
        return Vec::new(); // command-line options, not job options
    }
    let rest = rest.split(" : ").next().unwrap_or("");
    rest.split(", ")
        .map(|p| p.split(['=', ' ']).next().unwrap_or("").trim().to_string())
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .collect()
}

#[test]
fn howto_names_are_read_from_option_lines() {
    assert_eq!(howto_names(".. option:: readwrite=str, rw=str"), vec!["readwrite", "rw"]);
    assert_eq!(howto_names(".. option:: fixedbufs : [io_uring] [io_uring_cmd]"), vec!["fixedbufs"]);
    assert_eq!(howto_names(".. option:: max_latency=time[,time][,time]"), vec!["max_latency"]);
    assert!(howto_names(".. option:: --output=filename").is_empty());
    assert!(howto_names("size=4k").is_empty());
}

#[test]
fn every_option_of_fios_howto_is_in_the_table() {
    let Ok(path) = std::env::var("FLASHLAB_FIO_HOWTO") else {
        eprintln!("FLASHLAB_FIO_HOWTO is not set: not checking the table against fio's HOWTO.rst");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut missing = Vec::new();
    let mut seen = 0;
    for line in text.lines() {
        for name in howto_names(line) {
            seen += 1;
            if flashlab_jobs::options::lookup(&name).is_none() {
                missing.push(name);
            }
        }
    }
    assert!(seen > 300, "{path}: only {seen} options found; is it fio's HOWTO.rst?");
    assert!(missing.is_empty(), "options in {path} that the table lacks: {missing:?}");
}
