//! Shared helpers of the real-target tests: unique temporary directories removed afterwards.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A unique directory under std::env::temp_dir(), removed (with its contents) on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        TempDir::new_in(&std::env::temp_dir(), tag)
    }

    /// A unique directory under `parent`.
    pub fn new_in(parent: &Path, tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let d = parent.join(format!("flashlab-real-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Names of the files in the directory.
    pub fn entries(&self) -> Vec<String> {
        list(&self.0)
    }
}

pub fn list(d: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether to run the io_uring part of `test`: true where the kernel allows io_uring; where it
/// does not, the test fails (flashlab_testcaps) unless FLASHLAB_TEST_SKIP=io_uring asked to skip
/// that part, when this prints SKIPPED and returns false. flashlab's own probe must then agree.
pub fn uring_ok(test: &str) -> bool {
    let run = flashlab_testcaps::require_for("the io_uring part", &[flashlab_testcaps::Cap::IoUring]);
    if run {
        flashlab_real::engine::probe_io_uring()
            .unwrap_or_else(|e| panic!("{test}: the kernel allows io_uring but flashlab's probe failed: {e}"));
    }
    run
}
