//! The static aarch64 build (scripts/build-arm.sh, run by .ci/run before the tests) under qemu
//! user emulation: the binary is a static AArch64 ELF, `bench` with psync on a temporary
//! directory and `doctor` on a captured phone tree run, and their results documents have the
//! same structure (keys and value types) as this host build's. There is no JSON schema of the
//! results documents yet; comparing the structure with the x86-64 build's stands in for it.
//!
//! Capabilities (FLASHLAB_TEST_SKIP): `arm` — the aarch64 binary was not built; `qemu` — no
//! qemu-aarch64(-static) to run it.

mod common;

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "aarch64-unknown-linux-musl";

/// A missing capability fails the test unless FLASHLAB_TEST_SKIP names it (flashlab-testcaps).
fn skip(cap: &str, test: &str, why: &str) -> bool {
    if flashlab_testcaps::skip_requested(cap) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
        return true;
    }
    panic!("{test}: {why} (set {}={cap} to skip)", flashlab_testcaps::SKIP_VAR);
}

fn arm_binary() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    dir.join(TARGET).join("release/flashlab")
}

fn qemu() -> Option<String> {
    ["qemu-aarch64-static", "qemu-aarch64"]
        .into_iter()
        .map(str::to_string)
        .find(|q| Command::new(q).arg("--version").output().map(|o| o.status.success()).unwrap_or(false))
}

/// What the test needs, or `None` after printing SKIPPED.
fn setup(test: &str) -> Option<(PathBuf, String)> {
    let bin = arm_binary();
    if !bin.is_file() {
        skip("arm", test, &format!("{} is missing: build it with scripts/build-arm.sh", bin.display()));
        return None;
    }
    let Some(q) = qemu() else {
        skip("qemu", test, "neither qemu-aarch64-static nor qemu-aarch64 runs (apt-get install qemu-user-static)");
        return None;
    };
    Some((bin, q))
}

/// ELF header and program headers: a 64-bit little-endian AArch64 executable without an
/// interpreter (PT_INTERP), i.e. statically linked (static-pie included).
fn check_static_aarch64(path: &Path) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"\x7fELF", "not an ELF file");
    assert_eq!((b[4], b[5]), (2, 1), "not 64-bit little-endian");
    let u16at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u32at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    assert_eq!(u16at(18), 183, "e_machine is not EM_AARCH64");
    let (phoff, phentsize, phnum) = (u64at(32) as usize, u16at(54) as usize, u16at(56) as usize);
    let types: Vec<u32> = (0..phnum).map(|i| u32at(phoff + i * phentsize)).collect();
    assert!(types.contains(&1), "no PT_LOAD: {types:?}");
    assert!(!types.contains(&3), "PT_INTERP present: dynamically linked");
}

/// The structure of a JSON value: objects keep their keys (with the structure of each value),
/// arrays the merged structure of their elements, scalars their type.
fn shape(v: &Value) -> Value {
    match v {
        Value::Null => Value::String("null".into()),
        Value::Bool(_) => Value::String("bool".into()),
        Value::Number(_) => Value::String("number".into()),
        Value::String(_) => Value::String("string".into()),
        Value::Array(a) => {
            let mut merged = Map::new();
            let mut scalar = None;
            for e in a {
                match shape(e) {
                    Value::Object(m) => merged.extend(m),
                    s => scalar = Some(s),
                }
            }
            Value::Array(vec![if merged.is_empty() { scalar.unwrap_or(Value::Null) } else { Value::Object(merged) }])
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
    }
}

#[test]
fn aarch64_binary_is_static() {
    let Some((bin, _)) = setup("aarch64_binary_is_static") else { return };
    check_static_aarch64(&bin);
}

#[test]
fn aarch64_bench_under_qemu_has_the_host_documents_structure() {
    let Some((bin, q)) = setup("aarch64_bench_under_qemu_has_the_host_documents_structure") else { return };
    let dir = common::scratch("arm-bench", "");
    let (arm_dir, host_dir) = (dir.join("arm"), dir.join("host"));
    std::fs::create_dir_all(&arm_dir).unwrap();
    std::fs::create_dir_all(&host_dir).unwrap();
    let (arm_json, host_json) = (dir.join("arm.json"), dir.join("host.json"));
    let args = |d: &Path, j: &Path| {
        vec![
            "bench".to_string(),
            "--target".into(),
            d.display().to_string(),
            "--ioengine".into(),
            "psync".into(),
            "--span".into(),
            "8MiB".into(),
            "--rand-io".into(),
            "1MiB".into(),
            "--json".into(),
            j.display().to_string(),
        ]
    };
    let o = Command::new(&q).arg(&bin).args(args(&arm_dir, &arm_json)).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "aarch64 bench under {q} failed: {err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("(psync, O_DIRECT)"), "{out}");
    common::ok(&args(&host_dir, &host_json).iter().map(String::as_str).collect::<Vec<_>>());
    let arm: Value = serde_json::from_str(&std::fs::read_to_string(&arm_json).unwrap()).unwrap();
    let host: Value = serde_json::from_str(&std::fs::read_to_string(&host_json).unwrap()).unwrap();
    assert_eq!(shape(&arm), shape(&host), "the aarch64 document's structure differs from the host's");
    // Measured, not copied: every rate of the emulated run is positive.
    for k in ["seq_read_mbs", "seq_write_mbs", "rand_read_mbs", "rand_write_mbs"] {
        assert!(arm["results"]["steps"][0][k].as_f64().unwrap() > 0.0, "{k}: {}", arm["results"]["steps"][0]);
    }
    assert!(std::fs::read_dir(&arm_dir).unwrap().next().is_none(), "the aarch64 run left files");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn aarch64_doctor_under_qemu_matches_the_host_on_a_phone_tree() {
    let Some((bin, q)) = setup("aarch64_doctor_under_qemu_matches_the_host_on_a_phone_tree") else { return };
    let tree = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../flashlab-doctor/tests/fixtures/motoz-f2fs-esdfs");
    let tree = tree.display().to_string();
    let o = Command::new(&q).arg(&bin).args(["doctor", "--root", &tree, "--json", "-"]).output().unwrap();
    assert!(o.status.success(), "aarch64 doctor under {q} failed: {}", String::from_utf8_lossy(&o.stderr));
    let arm: Value = serde_json::from_slice(&o.stdout).unwrap();
    let host: Value = serde_json::from_str(&common::ok(&["doctor", "--root", &tree, "--json", "-"])).unwrap();
    assert_eq!(shape(&arm), shape(&host));
    // The same tree and rules: the same report, finding for finding.
    assert_eq!(arm, host);
    assert!(arm["results"]["summary"]["alarm"].as_u64().unwrap() >= 3, "{}", arm["results"]["summary"]);
}

#[test]
fn shape_sees_a_changed_type_or_key() {
    let a: Value = serde_json::json!({"x": 1, "s": [{"a": 1.5}, {"b": "t"}]});
    assert_eq!(shape(&a), serde_json::json!({"x": "number", "s": [{"a": "number", "b": "string"}]}));
    assert_ne!(shape(&a), shape(&serde_json::json!({"x": "1", "s": [{"a": 1.5}, {"b": "t"}]})));
    assert_ne!(shape(&a), shape(&serde_json::json!({"x": 1, "s": [{"a": 1.5}]})));
}
