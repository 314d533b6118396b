//! Tables on the host from a results document pulled from the phone: the protocol table of
//! `bench`/`fill`/`age` (the same columns as on the phone) and a per-job summary of `run`'s
//! fio JSON.

use crate::report::table::{sig, Table};
use serde_json::Value;

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_f64()
}

fn cell(v: Option<f64>) -> String {
    v.map(|x| sig(x, 3)).unwrap_or_else(|| "-".into())
}

/// The protocol table (`steps[]` and `log[]` of an age/bench document).
pub fn protocol(doc: &Value) -> Result<String, String> {
    let steps = doc.get("steps").and_then(Value::as_array).ok_or("the results document has no steps")?;
    let mut t = Table::new(&[
        ("step", ""),
        ("seq read", "MB/s"),
        ("seq write", "MB/s"),
        ("rand read", "MB/s"),
        ("rand write", "MB/s"),
        ("rand write p50", "us"),
        ("rand write p99", "us"),
    ]);
    for s in steps {
        t.row(vec![
            s.get("label").and_then(Value::as_str).unwrap_or("?").to_string(),
            cell(num(s, &["seq_read_mbs"])),
            cell(num(s, &["seq_write_mbs"])),
            cell(num(s, &["rand_read_mbs"])),
            cell(num(s, &["rand_write_mbs"])),
            cell(num(s, &["rand_write_p50_us"])),
            cell(num(s, &["rand_write_p99_us"])),
        ]);
    }
    let mut out = t.render();
    for l in doc.get("log").and_then(Value::as_array).into_iter().flatten() {
        out.push_str(&format!(
            "  step {:>2} {:<14} {}\n",
            l.get("step").and_then(Value::as_u64).unwrap_or(0),
            l.get("kind").and_then(Value::as_str).unwrap_or("?"),
            l.get("detail").and_then(Value::as_str).unwrap_or("")
        ));
    }
    Ok(out)
}

/// One row per job of fio JSON (`jobs[]`).
pub fn jobs(doc: &Value) -> Result<String, String> {
    let jobs = doc.get("jobs").and_then(Value::as_array).ok_or("the results document has no jobs")?;
    let mut t = Table::new(&[
        ("job", ""),
        ("read", "MB/s"),
        ("read", "IOPS"),
        ("write", "MB/s"),
        ("write", "IOPS"),
        ("write clat p99", "us"),
    ]);
    for j in jobs {
        let mbs = |d: &str| num(j, &[d, "bw_bytes"]).map(|b| b / 1e6);
        t.row(vec![
            j.get("jobname").and_then(Value::as_str).unwrap_or("?").to_string(),
            cell(mbs("read")),
            cell(num(j, &["read", "iops"])),
            cell(mbs("write")),
            cell(num(j, &["write", "iops"])),
            cell(num(j, &["write", "clat_ns", "percentile", "99.000000"]).map(|n| n / 1000.0)),
        ]);
    }
    Ok(t.render())
}
