//! Building small captured trees in a temporary directory.
#![allow(dead_code)]

use std::path::Path;

pub struct TreeBuilder {
    pub dir: tempfile::TempDir,
}

impl TreeBuilder {
    pub fn new() -> TreeBuilder {
        TreeBuilder { dir: tempfile::tempdir().unwrap() }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, rel: &str, text: &str) -> &Self {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }

    /// A whole device with its queue settings; `parts` are (name, number, maj:min).
    #[allow(clippy::too_many_arguments)]
    pub fn disk(
        &self,
        name: &str,
        majmin: &str,
        rotational: &str,
        scheduler: &str,
        write_cache: &str,
        discard_max: &str,
        parts: &[(&str, u32, &str)],
    ) -> &Self {
        let b = format!("sys/block/{name}");
        self.file(&format!("{b}/dev"), majmin);
        self.file(&format!("{b}/size"), "2000000");
        self.file(&format!("{b}/queue/rotational"), rotational);
        self.file(&format!("{b}/queue/scheduler"), scheduler);
        self.file(&format!("{b}/queue/write_cache"), write_cache);
        self.file(&format!("{b}/queue/discard_max_bytes"), discard_max);
        self.file(&format!("{b}/queue/discard_granularity"), "4096");
        for (p, n, mm) in parts {
            self.file(&format!("{b}/{p}/dev"), mm);
            self.file(&format!("{b}/{p}/partition"), &n.to_string());
        }
        self
    }
}
