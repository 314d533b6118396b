//! Issue 43, acceptance 3: the Moto X review's procedure (`--protocol motox-review`) on the
//! kernel's F2FS over a served, scaled-down Moto X (`bench/serve/profiles/motox-2013-2g.toml`:
//! the phone's die, timings and caches on 2 GiB of NAND) in a VM of the distribution's kernel,
//! and on the model's F2FS over the same profile: every four-corner cell within 15 %.
//!
//! The kernel's side is timed on the served device's clock (`device_clock` in age's results:
//! each test's bytes over the simulated time the device had requests in it), so the comparison
//! is the real F2FS's requests on the simulated phone against the model's, without the cost of
//! QEMU's TCG and FUSE between requests (which the measured, real-time columns keep; the test
//! prints both). The model mounts with the options in force on the kernel's side (its
//! /proc/mounts line) and sends discards from a thread, as Linux 6.1 does.
//!
//! A benchmark, not run by `cargo test` (run it with `-- --ignored`): the kernel's F2FS does
//! background work (writeback, checkpoints every 60 s, discards) on the VM's clock, and where it
//! lands among the tests differs from run to run. Of six runs on this machine five passed
//! (worst cell 10.3-10.8 %, the model's own checkpoint in "after fill 2"); one failed with the
//! sequential read of "after fill 1" at 53.3 MB/s against the model's 62.7 (+18 %). The house
//! rule keeps such checks out of the test suite; their results are written down in
//! docs/calibration.md.
//!
//! Needs the `vm` capability; without it the test fails naming it, unless FLASHLAB_TEST_SKIP
//! names it. Runs `bench/serve/f2fs-vm.sh` with this build's binary, the device at time scale
//! 10 (the simulated clock, not the real one, is compared). FLASHLAB_SERVED_KEEP=DIR keeps the
//! kernel's side there.

use flashlab_testcaps::{require, Cap};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROFILE: &str = "bench/serve/profiles/motox-2013-2g.toml";
const PROTOCOL: &str = "motox-review";
const CELLS: [&str; 4] = ["seq_read_mbs", "seq_write_mbs", "rand_read_mbs", "rand_write_mbs"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn steps(doc: &Value) -> Vec<Value> {
    doc["results"]["steps"].as_array().expect("age's results have steps").clone()
}

/// The model's mount options from the kernel's /proc/mounts line: the options the model knows
/// (the rest change nothing it models), and discards sent from a thread.
fn model_fs(mount_line: &str) -> String {
    let in_force = mount_line.split_whitespace().nth(3).expect("a /proc/mounts line");
    let (_, ignored) = flashlab_validate::f2fs_run::model_config(in_force);
    let known: Vec<&str> = in_force.split(',').filter(|o| !ignored.iter().any(|i| i == o)).collect();
    format!("f2fs,{},discard_async", known.join(","))
}

#[test]
#[ignore = "timing-based benchmark (the kernel's background work lands in the tests on the VM's clock): cargo test -p flashlab --test served_f2fs -- --ignored"]
fn motox_review_on_the_kernels_f2fs_matches_the_model() {
    if !require(&[Cap::Vm]) {
        return;
    }
    let keep = std::env::var_os("FLASHLAB_SERVED_KEEP").map(PathBuf::from);
    let out = keep
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("flashlab-served-f2fs-{}", std::process::id())));
    std::fs::create_dir_all(&out).unwrap();
    let bin = env!("CARGO_BIN_EXE_flashlab");
    let run = Command::new("bash")
        .arg(root().join("bench/serve/f2fs-vm.sh"))
        .arg(root().join(PROFILE))
        .args(["all", PROTOCOL])
        .arg(&out)
        .env("FLASHLAB_BIN", bin)
        .env("SCALE", "10")
        .output()
        .expect("bash runs");
    let log = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "bench/serve/f2fs-vm.sh failed:\n{log}");
    let kernel: Value = serde_json::from_slice(&std::fs::read(out.join("age.json")).unwrap()).unwrap();
    let mount = std::fs::read_to_string(out.join("mount.txt")).unwrap();

    let fs = model_fs(&mount);
    let model_json = out.join("model.json");
    let m = Command::new(bin)
        .args(["age", "--target"])
        .arg(format!("sim:{}", root().join(PROFILE).display()))
        .args(["--protocol", PROTOCOL, "--fs", &fs, "-q", "--json"])
        .arg(&model_json)
        .output()
        .unwrap();
    assert!(m.status.success(), "the model's run failed: {}", String::from_utf8_lossy(&m.stderr));
    let model: Value = serde_json::from_slice(&std::fs::read(&model_json).unwrap()).unwrap();

    let (ks, ms) = (steps(&kernel), steps(&model));
    assert_eq!(ks.len(), ms.len(), "the same four-corner runs on both sides");
    let mut table = format!("kernel mount: {}model --fs {fs}\n{:<16}", mount, "step");
    for c in CELLS {
        table += &format!(" {:>28}", format!("{c}: dev clock/model/VM"));
    }
    let mut failures = Vec::new();
    for (k, m) in ks.iter().zip(&ms) {
        let label = k["label"].as_str().unwrap();
        assert_eq!(Some(label), m["label"].as_str());
        let clock = &k["device_clock"];
        assert!(clock.is_object(), "{label}: the served device's clock is missing from the kernel's side:\n{log}");
        table += &format!("\n{label:<16}");
        for c in CELLS {
            let (kv, mv, vm) = (clock[c].as_f64().unwrap(), m[c].as_f64().unwrap(), k[c].as_f64().unwrap());
            table += &format!(" {:>28}", format!("{kv:.2}/{mv:.2}/{vm:.2}"));
            let err = (mv - kv) / kv;
            if err.abs() > 0.15 {
                failures.push(format!(
                    "{label} {c}: kernel on the device's clock {kv:.2}, model {mv:.2} ({:+.0} %)",
                    err * 100.0
                ));
            }
        }
    }
    eprintln!("{table}");
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&out);
    }
    assert!(failures.is_empty(), "cells more than 15 % apart:\n{}\n{table}", failures.join("\n"));
}
