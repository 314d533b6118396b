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
pub mod phone;
