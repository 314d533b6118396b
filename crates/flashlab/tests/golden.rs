//! Golden outputs: the JSON results of a fixed set of simulated runs, compared byte for byte
//! with the files checked in under `tests/golden/`. They cover every FTL kind (page mapping with
//! the table in DRAM, DFTL with a map cache, an SLC cache, the hybrid log-block FTL), every GC
//! policy, the filesystem models (plain, ext4, F2FS) and online discard, `sim waf` with TRIM,
//! `wsat`, `age`, `fill`, `bench`, `run` with trims, the `used` and `steady` preconditions
//! and `life`. A change that makes the simulator faster must leave every byte as it was.
//!
//! Only fields that are not simulated are masked (see [`MASKED`]): version strings and fio's
//! wall-clock fields.
//!
//! When a change is *meant* to move simulated numbers (a model change), regenerate the files
//! and review the diff:
//!
//! ```sh
//! FLASHLAB_UPDATE_GOLDEN=1 cargo test -p flashlab --test golden
//! git diff crates/flashlab/tests/golden/
//! ```
//!
//! The small test devices (`*.toml` here) and the job file are inputs of the runs; the runs
//! read them relative to this directory, so no path of the checkout gets into the outputs.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Keys whose values are not simulated numbers: the build's version, and the wall clock in fio's
/// JSON (`run --output-format json`: when the run ended, seconds since it started). Their values
/// are replaced by `"<masked>"` before comparing.
const MASKED: &[&str] = &[
    "flashlab_version",
    "version",
    "git_revision",
    "fio version",
    "time",
    "timestamp",
    "timestamp_ms",
    "elapsed",
    "job_start",
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

/// Replace the value of every `"key": value` whose key is in [`MASKED`] (pretty or compact
/// JSON alike; a value is a string or a scalar).
fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while let Some(q) = rest.find('"') {
        out.push_str(&rest[..q]);
        rest = &rest[q..];
        for key in MASKED {
            let quoted = format!("\"{key}\"");
            let Some(after) = rest.strip_prefix(quoted.as_str()) else { continue };
            let trimmed = after.trim_start();
            let Some(value) = trimmed.strip_prefix(':') else { continue };
            let value = value.trim_start();
            let ws_len = after.len() - value.len();
            let end = if let Some(body) = value.strip_prefix('"') {
                // A string: up to the closing quote that is not escaped.
                let mut escaped = false;
                let mut close = None;
                for (i, c) in body.char_indices() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => {
                            close = Some(i + 2);
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                close.unwrap_or(value.len())
            } else {
                value.find([',', '}', ']', '\n']).unwrap_or(value.len())
            };
            out.push_str(&quoted);
            out.push_str(&after[..ws_len]);
            out.push_str("\"<masked>\"");
            rest = &value[end..];
            continue 'scan;
        }
        // Not a masked key: copy the quoted string whole (a key or a value), escapes included.
        let mut escaped = false;
        let mut close = rest.len();
        for (i, c) in rest.char_indices().skip(1) {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    close = i + 1;
                    break;
                }
                _ => escaped = false,
            }
        }
        out.push_str(&rest[..close]);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Where a run's JSON comes out.
enum Json {
    /// On standard output (`sim waf --json`).
    Stdout,
    /// In the file given to `--json FILE`.
    File,
}

/// Run flashlab with `args` in the golden directory and compare its masked JSON with
/// `tests/golden/<name>.json` (or write that file when FLASHLAB_UPDATE_GOLDEN is set).
fn golden(name: &str, json: Json, args: &[&str]) {
    let dir = golden_dir();
    let out_file = common::scratch("golden", &format!("{name}.json"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flashlab"));
    cmd.current_dir(&dir).args(args);
    if let Json::File = json {
        cmd.arg("--json").arg(&out_file);
    }
    let out = cmd.output().expect("run flashlab");
    assert!(out.status.success(), "flashlab {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = match json {
        Json::Stdout => String::from_utf8(out.stdout).expect("UTF-8 output"),
        Json::File => {
            let t = std::fs::read_to_string(&out_file).expect("the --json file");
            let _ = std::fs::remove_file(&out_file);
            t
        }
    };
    let mut actual = mask(&text);
    if !actual.ends_with('\n') {
        actual.push('\n');
    }
    let path = dir.join(format!("{name}.json"));
    if std::env::var_os("FLASHLAB_UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0") {
        std::fs::write(&path, &actual).expect("write the golden file");
        eprintln!("updated {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; create it with FLASHLAB_UPDATE_GOLDEN=1 cargo test -p flashlab --test golden", path.display())
    });
    if actual != expected {
        let kept = std::env::temp_dir().join(format!("flashlab-golden-{name}.json"));
        std::fs::write(&kept, &actual).expect("keep the differing output");
        let (line, exp, act) = expected
            .lines()
            .zip(actual.lines())
            .enumerate()
            .find(|(_, (e, a))| e != a)
            .map(|(i, (e, a))| (i + 1, e.to_string(), a.to_string()))
            .unwrap_or_else(|| {
                let n = expected.lines().count().min(actual.lines().count());
                (n + 1, "(end of file)".into(), "(end of file)".into())
            });
        panic!(
            "golden output {name} changed (flashlab {}), first at line {line}:\n  expected: {exp}\n  actual:   {act}\n\
             the whole output is in {}; diff it with {}. If the model changed on purpose, regenerate \
             with FLASHLAB_UPDATE_GOLDEN=1 cargo test -p flashlab --test golden",
            args.join(" "),
            kept.display(),
            path.display()
        );
    }
}

#[test]
fn mask_replaces_only_masked_values() {
    let pretty = "{\n  \"flashlab_version\": \"0.1.0-x\",\n  \"a\": \"version\",\n  \"n\": 1.5\n}";
    assert_eq!(mask(pretty), "{\n  \"flashlab_version\": \"<masked>\",\n  \"a\": \"version\",\n  \"n\": 1.5\n}");
    let compact = r#"{"elapsed":12,"x":{"version":"a\"b"},"s":"\"version\": 3"}"#;
    assert_eq!(mask(compact), r#"{"elapsed":"<masked>","x":{"version":"<masked>"},"s":"\"version\": 3"}"#);
}

/// One `#[test]` per line, `name: Stdout|File "arguments";`: the test runs flashlab with the
/// arguments (split at spaces; none of them holds one) and compares its JSON with
/// `tests/golden/<name>.json`.
macro_rules! golden {
    ($($test:ident: $json:ident $args:literal;)*) => {$(
        #[test]
        fn $test() {
            golden(stringify!($test), Json::$json, &$args.split_whitespace().collect::<Vec<_>>());
        }
    )*};
}

golden! {
    // `sim waf`: the page-mapped FTL under each GC policy, and with a quarter of the space trimmed.
    waf_greedy: Stdout "sim waf --blocks 2048 --passes 4 --policy greedy --json -";
    waf_cost_benefit: Stdout "sim waf --blocks 2048 --passes 4 --policy cost-benefit --json -";
    waf_fifo: Stdout "sim waf --blocks 2048 --passes 4 --policy fifo --json -";
    waf_random: Stdout "sim waf --blocks 2048 --passes 4 --policy random --json -";
    waf_trimmed: Stdout "sim waf --blocks 2048 --passes 4 --trimmed 0.25 --seed 7 --json -";
    // `wsat`: every FTL kind through the engine on the raw device.
    wsat_toy: File "wsat --target sim:toy --times 4 --intervals 20";
    wsat_mqsim_small: File "wsat --target sim:mqsim-small.toml --times 3 --intervals 20";
    wsat_dftl: File "wsat --target sim:dftl-small.toml --times 3 --intervals 15 --iodepth 8";
    wsat_slc: File "wsat --target sim:slc-small.toml --times 3 --intervals 15";
    wsat_hybrid: File "wsat --target sim:hybrid-small.toml --times 1 --intervals 10 --iodepth 1";
    // `age` (the small protocol): filesystem models on and off, online discard, every FTL kind,
    // the bulk `used` precondition.
    age_plain: File "age --target sim:toy --protocol age-small --fs plain";
    age_ext4: File "age --target sim:toy --protocol age-small --fs ext4";
    age_ext4_discard: File "age --target sim:toy --protocol age-small --fs ext4,discard";
    age_f2fs: File "age --target sim:toy --protocol age-small --fs f2fs";
    age_plain_used: File "age --target sim:toy --protocol age-small --fs plain --precondition used";
    age_dftl_ext4: File "age --target sim:dftl-small.toml --protocol age-small --fs ext4";
    age_slc_f2fs_discard: File "age --target sim:slc-small.toml --protocol age-small --fs f2fs,discard";
    age_hybrid_ext4: File "age --target sim:hybrid-small.toml --protocol age-small --fs ext4 --rand-io 1MiB";
    // `fill`, `bench` and an fio job file with trims.
    fill_toy_ext4: File "fill --target sim:toy --fs ext4 --iodepth 4";
    bench_steady: File "bench --target sim:mqsim-small.toml --precondition steady --span 32MiB --rand-io 4MiB";
    run_trimwrite: Stdout "run trimwrite.fio --target sim:dftl-small.toml --output-format json";
    // `life`: a month of a phone's usage, scaled to the toy device, under two trim policies.
    life_fstrim: File "life --target sim:toy --duration 90d --scale 0.01 --policy daily";
    life_discard_hybrid: File "life --target sim:hybrid-small.toml --duration 60d --scale 0.01 --policy discard";
}
