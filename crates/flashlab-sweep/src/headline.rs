//! A case's headline numbers, read from its results document: the row the case gets in the
//! sweep's table beside its settings.
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

use serde_json::Value;

/// (column, value) in a fixed order; `None` where the run has no such number.
pub fn headline(doc: &Value) -> Vec<(String, Option<f64>)> {
    let mut out = Vec::new();
    let num = |v: &Value, path: &[&str]| -> Option<f64> {
        let mut v = v;
        for p in path {
            v = v.get(p)?;
        }
        v.as_f64()
    };
    match doc.get("command").and_then(Value::as_str) {
        Some("age") => {
            let steps = doc.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
            for s in &steps {
                let label = s.get("label").and_then(Value::as_str).unwrap_or("step").replace(' ', "_");
                for f in [
                    "seq_read_mbs",
                    "seq_write_mbs",
                    "rand_read_mbs",
                    "rand_write_mbs",
                    "rand_write_p50_us",
                    "rand_write_p99_us",
                ] {
                    out.push((format!("{label}.{f}"), num(s, &[f])));
                }
                out.push((format!("{label}.waf"), num(s, &["device", "write_amplification"])));
                out.push((format!("{label}.free_blocks"), num(s, &["device", "state", "free_blocks"])));
            }
            let last = steps.last().cloned().unwrap_or(Value::Null);
            out.push(("waf".into(), num(&last, &["device", "write_amplification"])));
            out.push(("erases".into(), num(&last, &["device", "counters", "erases"])));
            out.push(("erases_max".into(), num(&last, &["device", "state", "wear", "max_erases"])));
            out.push(("gc_units_copied".into(), num(&last, &["device", "counters", "gc_units_copied"])));
        }
        Some("life") => {
            let run = doc.get("runs").and_then(|r| r.get(0)).cloned().unwrap_or(Value::Null);
            let last =
                run.get("samples").and_then(Value::as_array).and_then(|s| s.last()).cloned().unwrap_or(Value::Null);
            out.push(("rand_write_mbs".into(), num(&last, &["probe", "rand_write_mbs"])));
            out.push(("rand_write_p99_us".into(), num(&last, &["probe", "p99_us"])));
            out.push(("rand_write_p999_us".into(), num(&last, &["probe", "p999_us"])));
            out.push(("app_write_p99_us".into(), num(&last, &["app_write_p99_us"])));
            out.push(("fsync_p99_us".into(), num(&last, &["fsync_p99_us"])));
            out.push(("waf".into(), num(&last, &["waf"])));
            out.push(("deleted_valid_gb".into(), num(&last, &["deleted_valid_bytes"]).map(|b| b / 1e9)));
            out.push(("erases_mean".into(), num(&last, &["erases_mean"])));
            out.push(("erases_max".into(), num(&last, &["erases_max"])));
            out.push(("lifetime_years".into(), num(&last, &["lifetime_years"])));
            out.push(("host_written_gb".into(), num(&last, &["host_write_bytes"]).map(|b| b / 1e9)));
            out.push(("fstrims".into(), num(&last, &["fstrims"])));
        }
        _ if doc.get("jobs").is_some() => {
            let jobs = doc.get("jobs").and_then(Value::as_array).cloned().unwrap_or_default();
            for j in &jobs {
                let name = j.get("jobname").and_then(Value::as_str).unwrap_or("job").replace(' ', "_");
                for d in ["read", "write"] {
                    out.push((format!("{name}.{d}_iops"), num(j, &[d, "iops"])));
                    out.push((format!("{name}.{d}_mbs"), num(j, &[d, "bw_bytes"]).map(|b| b / 1e6)));
                    out.push((
                        format!("{name}.{d}_clat_p99_us"),
                        num(j, &[d, "clat_ns", "percentile", "99.000000"]).map(|n| n / 1e3),
                    ));
                }
            }
            let last = jobs.last().cloned().unwrap_or(Value::Null);
            out.push(("waf".into(), num(&last, &["flashlab_device", "write_amplification"])));
        }
        _ => {}
    }
    out
}
