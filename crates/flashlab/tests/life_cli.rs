//! `flashlab life` as a user runs it: a short run on the toy device writes its JSON (time
//! series) and HTML report, `--compare-policies` prints one row per policy, a trace replays,
//! and bad input (usage TOML, trace, options) is one clear error naming file, line and field.

mod common;

use common::{fails, ok};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    common::scratch("life-cli", name)
}

const TOY: &[&str] = &["--target", "sim:toy", "--usage", "light-phone", "--scale", "0.016", "--duration", "20d"];

#[test]
fn run_writes_series_and_report() {
    let json = scratch("life.json");
    let html = scratch("life.html");
    let mut args = vec!["life"];
    args.extend_from_slice(TOY);
    args.extend(["--policy", "android", "--json", json.to_str().unwrap(), "--report", html.to_str().unwrap()]);
    let out = ok(&args);
    assert!(out.contains("policy android") && out.contains("p99.9"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["command"], "life");
    let samples = v["results"]["runs"][0]["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 20, "a sample a day");
    for key in ["waf", "device_valid_bytes", "fs_used_bytes", "deleted_valid_bytes", "free_blocks", "erases_max"] {
        assert!(samples[19].get(key).is_some(), "samples have {key}");
    }
    assert!(samples[19]["probe"]["rand_write_mbs"].as_f64().unwrap() > 0.0);
    assert!(samples[19]["fstrims"].as_u64().unwrap() >= 19, "android trims nightly");
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 3, "three charts");
    assert!(!page.contains("<script"));
}

#[test]
fn compare_policies_prints_one_row_each() {
    let mut args = vec!["life"];
    args.extend_from_slice(TOY);
    args.push("--compare-policies");
    let out = ok(&args);
    for p in ["none", "fstrim:7d", "android", "discard", "on-notice"] {
        let row = out.lines().find(|l| l.starts_with(p)).unwrap_or_else(|| panic!("row for {p}: {out}"));
        assert!(row.chars().count() <= 80, "the table fits 80 columns: {row}");
    }
}

#[test]
fn trace_replays() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../flashlab-life/tests/traces/small.iolog2");
    let out = ok(&["life", "--target", "sim:toy", "--trace", trace, "--compress-time"]);
    assert!(out.contains("Iolog, 5 requests, time compressed"), "{out}");
}

#[test]
fn bad_input_is_named() {
    let usage = scratch("bad-usage.toml");
    std::fs::write(&usage, "name = \"x\"\n[writes]\ndaily = \"lots\"\nfiles = [ { size = \"4k\", weight = 1 } ]\n[space]\nkeep_fill = 0.5\n[day]\nactive_hours = \"8-22\"\nsessions = 4\ncharging_hours = \"22-8\"\n").unwrap();
    let u = usage.to_str().unwrap();
    fails(&["life", "--target", "sim:toy", "--usage", u], &format!("{u}:3: field 'writes.daily'"));
    let trace = scratch("bad.csv");
    std::fs::write(&trace, "1,h,0,Write,0,4096,1\n2,h,0,Write,zero,4096,1\n").unwrap();
    let t = trace.to_str().unwrap();
    fails(&["life", "--target", "sim:toy", "--trace", t], &format!("{t}:2: Offset 'zero'"));
    fails(&["life", "--target", "sim:toy", "--policy", "sometimes"], "policy 'sometimes'");
    fails(&["life", "--target", "sim:toy", "--duration", "3 fortnights"], "--duration");
    fails(&["life", "--target", "sim:toy", "--usage", "no-such"], "not a preset");
}
