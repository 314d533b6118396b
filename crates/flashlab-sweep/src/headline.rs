//! A case's headline numbers, read from its results document: the row the case gets in the
//! sweep's table beside its settings.
//!
//! Protocol and life cases are results documents (`flashlab_results::Document`), read through
//! their types; a job file's case is fio's JSON.
//!
//! * A protocol (`command = "age"`): for each four-corner step, named by its label with spaces
//!   as `_` (`new`, `after_fill_1`...), `STEP.seq_read_mbs`, `STEP.seq_write_mbs`,
//!   `STEP.rand_read_mbs`, `STEP.rand_write_mbs`, `STEP.rand_write_p50_us`,
//!   `STEP.rand_write_p99_us`, `STEP.waf`, `STEP.free_blocks`; then the device at the end:
//!   `waf`, `erases`, `erases_max`, `gc_units_copied`.
//! * A life run (`command = "life"`): the last sample: the random-write probe
//!   (`rand_write_mbs`, `rand_write_p99_us`, `rand_write_p999_us`), `app_write_p99_us`,
//!   `fsync_p99_us`, `waf`, `deleted_valid_gb`, `erases_mean`, `erases_max`, `lifetime_years`,
//!   `host_written_gb`, `fstrims`.
//! * A job file (fio's JSON): for each job, by its name, `JOB.read_iops`, `JOB.read_mbs`,
//!   `JOB.read_clat_p99_us` and the same for `write`; then the device's `waf`.

use flashlab_results::body::{AgeBody, LifeBody};
use flashlab_results::{Body, Document, Extra};
use serde_json::Value;

/// (column, value) in a fixed order; `None` where the run has no such number.
pub fn headline(doc: &Value) -> Vec<(String, Option<f64>)> {
    if let Some(doc) = document(doc) {
        return match serde_json::from_value::<Document>(doc).map(|d| d.body) {
            Ok(Body::Age(b) | Body::Bench(b)) => protocol(&b),
            Ok(Body::Life(b)) => life(&b),
            // Another command's document, or one this version cannot read: no numbers.
            _ => Vec::new(),
        };
    }
    if doc.get("jobs").is_some() {
        return fio(doc);
    }
    Vec::new()
}

/// A results document as the envelope (`schema_version`, `command`, `results`): as it is, or
/// upgraded from the flat layout the case documents of flashlab 0.1 sweeps had (`command`
/// beside the body's fields); `None` for fio's JSON and anything else.
fn document(doc: &Value) -> Option<Value> {
    if doc.get("schema_version").is_some() {
        return Some(doc.clone());
    }
    let command = doc.get("command")?.as_str()?;
    let mut results = doc.as_object()?.clone();
    results.remove("command");
    Some(serde_json::json!({
        "schema_version": flashlab_results::SCHEMA_VERSION,
        "flashlab_version": results.remove("flashlab_version").unwrap_or_else(|| Value::String(String::new())),
        "command": command,
        "results": results,
    }))
}

/// A number at `path` under `v`.
fn num(v: Option<&Value>, path: &[&str]) -> Option<f64> {
    let mut v = v?;
    for p in path {
        v = v.get(p)?;
    }
    v.as_f64()
}

/// A number at `path` under a typed struct's fields it does not name.
fn extra(e: &Extra, path: &[&str]) -> Option<f64> {
    let (first, rest) = path.split_first()?;
    num(e.get(*first), rest)
}

fn protocol(b: &AgeBody) -> Vec<(String, Option<f64>)> {
    let mut out = Vec::new();
    for s in &b.steps {
        let label = s.label.replace(' ', "_");
        for (f, v) in [
            ("seq_read_mbs", s.seq_read_mbs),
            ("seq_write_mbs", s.seq_write_mbs),
            ("rand_read_mbs", s.rand_read_mbs),
            ("rand_write_mbs", s.rand_write_mbs),
            ("rand_write_p50_us", s.rand_write_p50_us),
            ("rand_write_p99_us", s.rand_write_p99_us),
        ] {
            out.push((format!("{label}.{f}"), Some(v)));
        }
        out.push((format!("{label}.waf"), s.device.as_ref().map(|d| d.write_amplification)));
        out.push((format!("{label}.free_blocks"), s.device.as_ref().map(|d| d.state.free_blocks as f64)));
    }
    let last = b.steps.last().and_then(|s| s.device.as_ref());
    out.push(("waf".into(), last.map(|d| d.write_amplification)));
    out.push(("erases".into(), last.map(|d| d.counters.erases as f64)));
    out.push(("erases_max".into(), last.and_then(|d| extra(&d.state.extra, &["wear", "max_erases"]))));
    out.push(("gc_units_copied".into(), last.and_then(|d| d.counters.gc_units_copied.map(|c| c as f64))));
    out
}

fn life(b: &LifeBody) -> Vec<(String, Option<f64>)> {
    let last = b.runs.first().and_then(|r| r.samples.last());
    let x = |path: &[&str]| last.and_then(|s| extra(&s.extra, path));
    vec![
        ("rand_write_mbs".into(), x(&["probe", "rand_write_mbs"])),
        ("rand_write_p99_us".into(), x(&["probe", "p99_us"])),
        ("rand_write_p999_us".into(), x(&["probe", "p999_us"])),
        ("app_write_p99_us".into(), x(&["app_write_p99_us"])),
        ("fsync_p99_us".into(), x(&["fsync_p99_us"])),
        ("waf".into(), last.map(|s| s.waf)),
        ("deleted_valid_gb".into(), x(&["deleted_valid_bytes"]).map(|b| b / 1e9)),
        ("erases_mean".into(), last.map(|s| s.erases_mean)),
        ("erases_max".into(), last.map(|s| f64::from(s.erases_max))),
        ("lifetime_years".into(), last.and_then(|s| s.lifetime_years)),
        ("host_written_gb".into(), last.map(|s| s.host_write_bytes as f64 / 1e9)),
        ("fstrims".into(), x(&["fstrims"])),
    ]
}

fn fio(doc: &Value) -> Vec<(String, Option<f64>)> {
    let mut out = Vec::new();
    let jobs = doc.get("jobs").and_then(Value::as_array).cloned().unwrap_or_default();
    for j in &jobs {
        let name = j.get("jobname").and_then(Value::as_str).unwrap_or("job").replace(' ', "_");
        for d in ["read", "write"] {
            out.push((format!("{name}.{d}_iops"), num(Some(j), &[d, "iops"])));
            out.push((format!("{name}.{d}_mbs"), num(Some(j), &[d, "bw_bytes"]).map(|b| b / 1e6)));
            out.push((
                format!("{name}.{d}_clat_p99_us"),
                num(Some(j), &[d, "clat_ns", "percentile", "99.000000"]).map(|n| n / 1e3),
            ));
        }
    }
    out.push(("waf".into(), num(jobs.last(), &["flashlab_device", "write_amplification"])));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(label: &str, waf: f64) -> Value {
        json!({"label": label, "seq_read_mbs": 1.0, "seq_write_mbs": 2.0, "rand_read_mbs": 3.0,
               "rand_write_mbs": 4.0, "rand_write_p50_us": 5.0, "rand_write_p99_us": 6.0,
               "rand_write_p999_us": 7.0, "rand_write_max_us": 8.0,
               "device": {"write_amplification": waf,
                          "counters": {"host_write_bytes": 1, "nand_units_programmed": 2, "gc_units_copied": 9, "erases": 11},
                          "state": {"free_blocks": 12, "total_blocks": 20, "wear": {"max_erases": 3}}}})
    }

    fn get(h: &[(String, Option<f64>)], k: &str) -> Option<f64> {
        h.iter().find(|(n, _)| n == k).unwrap_or_else(|| panic!("no column {k}: {h:?}")).1
    }

    #[test]
    fn a_protocol_document_and_its_older_flat_layout_give_the_same_row() {
        let body = json!({"protocol": "p", "steps": [step("new", 1.0), step("after fill 1", 2.5)], "log": []});
        let doc = json!({"schema_version": 1, "flashlab_version": "x", "command": "age", "results": body,
                         "sweep_case": {"index": 0}});
        let h = headline(&doc);
        assert_eq!(get(&h, "new.seq_read_mbs"), Some(1.0));
        assert_eq!(get(&h, "after_fill_1.waf"), Some(2.5));
        assert_eq!(get(&h, "after_fill_1.free_blocks"), Some(12.0));
        assert_eq!(get(&h, "erases_max"), Some(3.0));
        assert_eq!(get(&h, "gc_units_copied"), Some(9.0));
        let mut flat = body.as_object().unwrap().clone();
        flat.insert("command".into(), json!("age"));
        flat.insert("precondition".into(), json!("fresh"));
        assert_eq!(headline(&Value::Object(flat)), h);
    }

    #[test]
    fn a_life_document_reads_its_last_sample_and_other_documents_give_nothing() {
        let sample = |day: f64, waf: f64| {
            json!({"day": day, "host_write_bytes": 2_000_000_000u64, "nand_write_bytes": 1, "waf": waf,
                   "free_blocks": 1, "total_blocks": 2, "erases_mean": 0.5, "erases_max": 4,
                   "lifetime_years": null, "fstrims": 6, "probe": {"p99_us": 70.0}})
        };
        let run = json!({"workload": "w", "policy": "none", "days": 2.0, "pe_cycles": 3000,
                         "samples": [sample(1.0, 1.5), sample(2.0, 1.75)], "virtual_s": 1.0});
        let doc = json!({"schema_version": 1, "flashlab_version": "x", "command": "life",
                         "results": {"duration": "2d", "usage": {}, "runs": [run]}});
        let h = headline(&doc);
        assert_eq!(get(&h, "waf"), Some(1.75));
        assert_eq!(get(&h, "host_written_gb"), Some(2.0));
        assert_eq!(get(&h, "rand_write_p99_us"), Some(70.0));
        assert_eq!(get(&h, "fstrims"), Some(6.0));
        assert_eq!(get(&h, "lifetime_years"), None);
        let waf = json!({"schema_version": 1, "flashlab_version": "x", "command": "sim waf",
                         "results": {"policy": "greedy", "spare_factor": 0.1, "write_amplification": 2.0}});
        assert!(headline(&waf).is_empty());
    }
}
