//! Shared helpers for the `flashlab` binary's tests: run it, expect success or one clear error.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn flashlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flashlab")).args(args).output().expect("run flashlab")
}

/// A run that must succeed; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = flashlab(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "flashlab {args:?} failed: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Runs that must fail: exit code 1, one `flashlab: error:` line naming `what`, no panic.
pub fn fails(args: &[&str], what: &str) {
    let out = flashlab(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "flashlab {args:?}: {stderr}");
    assert!(stderr.starts_with("flashlab: error:"), "{stderr}");
    assert!(stderr.contains(what), "flashlab {args:?}: expected '{what}' in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `name` in a scratch directory of this test process (`tag` keeps test files apart).
pub fn scratch(tag: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flashlab-{tag}-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}
/// fio's JSON of one job run by flashlab and by fio, each on a new directory of its own:
/// `flashlab run -q --target DIR --output-format json --output FILE` + `flashlab_tail`, and
/// `fio --directory=DIR --output-format=json --output=FILE` + `fio_tail` (a job file, or
/// fio's options with `--` before them for flashlab). Flashlab's first. The caller checks
/// that fio is there (`flashlab_testcaps::require`).
pub fn fio_and_flashlab_json(tag: &str, flashlab_tail: &[&str], fio_tail: &[&str]) -> [serde_json::Value; 2] {
    let fio = flashlab_testcaps::on_path("fio").expect("fio on PATH");
    ["flashlab", "fio"].map(|who| {
        let place = scratch(tag, who);
        let _ = std::fs::remove_dir_all(&place);
        std::fs::create_dir_all(&place).unwrap();
        let out = place.join("out.json");
        if who == "fio" {
            let o = Command::new(&fio)
                .arg(format!("--directory={}", place.display()))
                .args(["--output-format=json", &format!("--output={}", out.display())])
                .args(fio_tail)
                .output()
                .unwrap();
            assert!(o.status.success(), "fio {fio_tail:?}: {}", String::from_utf8_lossy(&o.stderr));
        } else {
            let (dir, file) = (place.to_str().unwrap(), out.to_str().unwrap());
            let mut args = vec!["run", "-q", "--target", dir, "--output-format", "json", "--output", file];
            args.extend_from_slice(flashlab_tail);
            ok(&args);
        }
        let doc = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let _ = std::fs::remove_dir_all(&place);
        doc
    })
}
pub mod phone;
