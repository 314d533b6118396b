//! Issue 18, reproduction 2: a results file holding extreme numbers (5e-324, 1.7e308, 0,
//! negative) renders quickly and in bounded memory; log-axis ticks used to loop forever.

use flashlab_report::chart::log_ticks;
use flashlab_report::render_report_values;
use serde_json::Value;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Every number in `v` replaced by `x`.
fn replace_numbers(v: &mut Value, x: f64) {
    match v {
        Value::Number(_) => *v = serde_json::json!(x),
        Value::Array(a) => a.iter_mut().for_each(|e| replace_numbers(e, x)),
        Value::Object(o) => o.values_mut().for_each(|e| replace_numbers(e, x)),
        _ => {}
    }
}

/// Runs `f` on a thread; fails if it takes longer than `limit`.
fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(_) => panic!("{what}: did not finish within {limit:?}"),
    }
}

#[test]
fn log_ticks_terminate_and_stay_small_on_extreme_ranges() {
    for (lo, hi) in [(5e-324, 1.7e308), (5e-324, 1.0), (1.0, 1.7e308), (f64::MIN_POSITIVE, f64::MAX), (1.0, 10.0)] {
        let (major, minor) =
            within(Duration::from_secs(2), &format!("log_ticks({lo:e}, {hi:e})"), move || log_ticks(lo, hi));
        assert!(major.len() + minor.len() <= 100, "{lo}..{hi}: {} ticks", major.len() + minor.len());
        assert!(!major.is_empty(), "{lo}..{hi}: no labelled tick");
        assert!(major.iter().all(|v| v.is_finite() && *v > 0.0));
    }
    for (lo, hi) in [(0.0, 1.0), (f64::NAN, 1.0), (1.0, f64::INFINITY), (2.0, 1.0)] {
        let (major, minor) = log_ticks(lo, hi);
        assert!(major.is_empty() && minor.is_empty(), "{lo}..{hi}");
    }
}

#[test]
fn every_fixture_with_extreme_numbers_renders_in_seconds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for name in ["age-toy.json", "bench-toy.json", "fill-toy.json", "wsat-toy.json", "run-toy.json", "sim-waf.json"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        for x in [5e-324, 1.7e308, -1.7e308, 0.0] {
            let mut v = doc.clone();
            replace_numbers(&mut v, x);
            // Keep the document recognisable: its format/version fields stay as they were.
            if let (Value::Object(o), Value::Object(orig)) = (&mut v, &doc) {
                for k in ["format", "version", "kind", "fio version", "command"] {
                    if let Some(x) = orig.get(k) {
                        o.insert(k.to_string(), x.clone());
                    }
                }
            }
            let t = Instant::now();
            let what = format!("{name} with every number {x:e}");
            let r = within(Duration::from_secs(10), &what, move || {
                render_report_values(&[("extreme.json".to_string(), v)])
                    .map(|r| r.html.len())
                    .map_err(|e| e.to_string())
            });
            // An error naming the file is fine; a hang or a panic is not.
            if let Err(e) = &r {
                assert!(e.contains("extreme.json"), "{what}: {e}");
            }
            assert!(t.elapsed() < Duration::from_secs(10), "{what}: {:?}", t.elapsed());
        }
    }
}
