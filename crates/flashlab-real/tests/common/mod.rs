//! Shared helpers of the real-target tests: unique temporary directories removed afterwards.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A unique directory under std::env::temp_dir(), removed (with its contents) on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let d = std::env::temp_dir().join(format!("flashlab-real-{tag}-{}-{nanos}", std::process::id()));
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

/// Whether io_uring works here; prints the probe's result either way.
pub fn uring_ok(test: &str) -> bool {
    match flashlab_real::engine::probe_io_uring() {
        Ok(()) => {
            eprintln!("{test}: io_uring probe: ok");
            true
        }
        Err(e) => {
            eprintln!("{test}: io_uring probe failed ({e}); skipping the io_uring part");
            false
        }
    }
}
