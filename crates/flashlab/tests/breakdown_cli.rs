//! `flashlab breakdown` from the command line: the model path's text and JSON (phases adding up,
//! labelled as a model), and one-line errors for bad options and targets.

mod common;

use common::flashlab;

#[test]
fn model_breakdown_text_and_json() {
    let json = std::env::temp_dir().join(format!("flashlab-bd-cli-{}.json", std::process::id()));
    let out = flashlab(&[
        "breakdown",
        "--target",
        "sim:emmc-16g",
        "--ios",
        "300",
        "--size",
        "16M",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MODEL (simulated device"), "{text}");
    for phase in ["host submit", "queue wait", "device", "host complete", "total"] {
        assert!(text.contains(phase), "{phase} missing:\n{text}");
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).unwrap();
    assert_eq!(v["command"], "breakdown");
    let v = &v["results"];
    assert_eq!(v["source"], "model");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4, "randread/randwrite x QD1/QD32");
    for j in jobs {
        assert_eq!(j["requests"], 300);
        assert_eq!(j["consistent"], 300, "every request's phases add up exactly");
        let phases = j["phases"].as_array().unwrap();
        assert_eq!(phases.len(), 4);
        let sum: f64 = phases.iter().map(|p| p["mean_ns"].as_f64().unwrap()).sum();
        let total = j["total"]["mean_ns"].as_f64().unwrap();
        assert!((sum - total).abs() < 1e-6 * total, "{sum} vs {total}");
        for p in phases {
            for k in ["p50_ns", "p90_ns", "p99_ns", "share"] {
                assert!(p.get(k).is_some(), "{k} missing in {p}");
            }
        }
    }
}

#[test]
fn bad_options_are_one_line_errors() {
    for (args, want) in [
        (vec!["breakdown", "--target", "sim:toy", "--bs", "3k"], "--bs 3072"),
        (vec!["breakdown", "--target", "sim:toy", "--rw", "read"], "--rw read"),
        (vec!["breakdown", "--target", "sim:toy", "--iodepth", "0"], "--iodepth 0"),
        (vec!["breakdown", "--target", "sim:no-such-profile"], "unknown profile 'no-such-profile'"),
    ] {
        let out = flashlab(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("flashlab: error: ") && err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}
