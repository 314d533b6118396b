//! Scratch directories and JSON reading shared by the tests that run job files through flashlab
//! and fio side by side (`example_jobs`, `fio_workload_match`, `steadystate_fio`).
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A temporary directory (under the system's temp dir, named for the test and the process),
/// removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty directory `flashlab-{tag}-{pid}`.
    pub fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("flashlab-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first JSON document in a successful run's standard output (fio and flashlab may print
/// a line before it).
pub fn json_of(who: &str, out: std::process::Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{who} failed: {}\n{text}", String::from_utf8_lossy(&out.stderr));
    let start = text.find('{').unwrap_or_else(|| panic!("{who}: no JSON:\n{text}"));
    let mut s = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    s.next().unwrap().unwrap_or_else(|e| panic!("{who}: bad JSON: {e}"))
}

/// `flashlab run JOBFILE --output-format json` on a directory target `dir/t` (created): its
/// fio-shaped JSON.
pub fn flashlab_run_json(file: &Path, dir: &Path) -> Value {
    let target = dir.join("t");
    std::fs::create_dir_all(&target).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .arg("run")
        .arg(file)
        .args(["--target", target.to_str().unwrap(), "--output-format", "json"])
        .output()
        .unwrap();
    json_of("flashlab run", out)
}

/// `text` as `dir/job.fio`, run by fio (`--output-format=json`, in `dir`): its JSON.
pub fn fio_json_in(dir: &Path, text: &str) -> Value {
    let fio = flashlab_testcaps::on_path("fio").expect("fio on PATH");
    let file = dir.join("job.fio");
    std::fs::write(&file, text).unwrap();
    let out = std::process::Command::new(fio).arg("--output-format=json").arg(&file).current_dir(dir).output().unwrap();
    json_of("fio", out)
}

/// `text` as `dir/job.fio`, run by [`flashlab_run_json`] on `dir/t`.
pub fn flashlab_json_in(dir: &Path, text: &str) -> Value {
    let file = dir.join("job.fio");
    std::fs::write(&file, text).unwrap();
    flashlab_run_json(&file, dir)
}
