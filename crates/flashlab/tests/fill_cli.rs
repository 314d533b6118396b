//! `flashlab fill` as a user runs it: the phone procedure's tables, the stack in the banner and
//! the JSON, sessions with fstrim, and bad options as one clear error.

mod common;

use common::{fails, ok};

#[test]
fn the_phone_procedure_prints_both_tables_and_records_the_stack() {
    let json = common::scratch("fill_cli", "phone.json");
    let out = ok(&[
        "fill",
        "--target",
        "sim:toy",
        "--fs",
        "ext4",
        "--procedure",
        "phone",
        "--shared-storage",
        "fuse",
        "--test-size",
        "8MiB",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.contains("shared storage fuse (+46.0 µs a request)"), "{out}");
    assert!(out.contains("/data before the fill") && out.contains("/data after the fill"), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("100 ")), "{out}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["command"], "fill");
    let doc = &doc["results"];
    assert_eq!(doc["procedure"], "phone");
    assert_eq!(doc["stack"]["shared_storage"], "fuse");
    assert_eq!(doc["result"]["spec"]["fsync_every"], 1);
    for key in ["filled_pct", "p50_us", "p99_us", "p999_us", "max_us", "mean_us"] {
        assert!(doc["deciles"][9][key].is_number(), "{key} missing");
    }
    assert!(doc["data_after"]["p50_us"].is_number());
}

#[test]
fn sessions_give_the_trim_policy_its_idle_time() {
    let out = ok(&["fill", "--target", "sim:toy", "--sessions", "4", "--gap", "1d", "--trim", "daily"]);
    assert!(out.contains("4 sessions, 24.0 h idle between them; 3 fstrim(s)"), "{out}");
}

#[test]
fn bad_fill_options_are_one_clear_error() {
    fails(&["fill", "--target", "sim:toy", "--trim", "hourly"], "--trim: unknown trim policy 'hourly'");
    fails(&["fill", "--target", "sim:toy", "--layout", "sparse"], "--layout: unknown layout 'sparse'");
    fails(
        &["fill", "--target", "sim:toy", "--shared-storage", "nfs"],
        "--shared-storage: unknown shared-storage layer 'nfs'",
    );
    fails(&["fill", "--target", "sim:toy", "--procedure", "lab"], "--procedure: unknown procedure 'lab'");
    fails(&["fill", "--target", "sim:toy", "--gap", "soon"], "--gap");
}
