//! The results document of one validation run, its text table and its JSON.

use crate::compare::ClassRow;
use crate::freemap::{bin_label, FreeMap, BINS};
use serde::Serialize;
use std::fmt::Write;

/// Runs of blocks: (first block, blocks).
pub type BlockRuns = Vec<(u64, u64)>;

/// Free-space maps after the workload, model beside kernel.
#[derive(Debug, Clone, Serialize)]
pub struct FreeMaps {
    /// The model's free space.
    pub model: FreeMap,
    /// The kernel's free space.
    pub kernel: FreeMap,
    /// Relative error of the model's mixed-window fraction.
    pub mixed_window_error: Option<f64>,
    /// Sum over bins of |model - kernel| / (sum of kernel's extents): 0 is identical.
    pub histogram_distance: f64,
}

/// Where the files left are, FIEMAP (kernel) beside the model's extents.
#[derive(Debug, Clone, Serialize)]
pub struct Placement {
    /// Files compared.
    pub files: u64,
    /// Files whose first block is the same block on both sides.
    pub same_start: u64,
    /// Files whose every extent is the same on both sides.
    pub same_extents: u64,
    /// Extents per file in the model.
    pub model_extents_per_file: f64,
    /// Extents per file in the kernel (FIEMAP).
    pub kernel_extents_per_file: f64,
    /// The first files placed differently: extents (start block, blocks) on each side as
    /// (name, model, kernel).
    pub sample: Vec<(String, BlockRuns, BlockRuns)>,
}

/// Per SQLite transaction (synchronous=FULL, one insert each).
#[derive(Debug, Clone, Serialize)]
pub struct PerCommit {
    /// Transactions measured.
    pub transactions: u64,
    /// Model flush requests per transaction.
    pub model_flushes: f64,
    /// Kernel flush requests per transaction.
    pub kernel_flushes: f64,
    /// Model write requests per transaction.
    pub model_write_requests: f64,
    /// Kernel write requests per transaction.
    pub kernel_write_requests: f64,
    /// Model bytes written per transaction.
    pub model_write_bytes: f64,
    /// Kernel bytes written per transaction.
    pub kernel_write_bytes: f64,
}

/// One measure of what a filesystem did, model beside kernel (F2FS: checkpoints, cleaning,
/// SSR, fsyncs that checkpointed, discards).
#[derive(Debug, Clone, Serialize)]
pub struct BehaviourRow {
    /// What is counted.
    pub what: String,
    /// The model's count (`None`: the model does not count it yet).
    pub model: Option<f64>,
    /// The kernel's count.
    pub kernel: f64,
}

#[derive(Debug, Clone, Serialize)]
/// One validation run's results: model beside kernel, per request class and more.
pub struct Report {
    /// Version of this document's layout (1).
    pub version: u32,
    /// The filesystem compared (`ext4` or `f2fs`).
    pub fs: String,
    /// The workload's name.
    pub workload: String,
    /// The mount options' name.
    pub mount: String,
    /// Size of the image, bytes.
    pub image_bytes: u64,
    /// The mkfs.ext4 command line.
    pub mkfs: String,
    /// The kernel side, in words (release, where the image lives).
    pub kernel: String,
    /// The model side, in words (filesystem model, simulated device).
    pub model: String,
    /// Requests, bytes and errors per request class, model beside kernel.
    pub classes: Vec<ClassRow>,
    /// SQLite workloads: requests per commit.
    pub per_commit: Option<PerCommit>,
    /// Fill workloads: the free-space maps.
    pub free_space: Option<FreeMaps>,
    /// Fill workloads: where the remaining files lie.
    pub placement: Option<Placement>,
    /// F2FS: what the filesystem did, as its tracepoints (kernel) and counters (model) say.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub behaviour: Vec<BehaviourRow>,
    /// Remarks printed under the tables.
    pub notes: Vec<String>,
}

fn pct(e: Option<f64>) -> String {
    e.map_or_else(|| "-".into(), |e| format!("{:+.1}%", e * 100.0))
}

impl Report {
    /// The terminal report (tables, 80 columns).
    pub fn render_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "flashlab validate-fs {} on {} (mount {}), image {} MiB ({})",
            self.workload,
            self.fs,
            self.mount,
            self.image_bytes >> 20,
            self.mkfs
        );
        let _ = writeln!(s, "kernel: {}", self.kernel);
        let _ = writeln!(s, "model:  {}", self.model);
        for t in [crate::text::counts(&self.classes), crate::text::ordering(&self.classes)] {
            let _ = writeln!(s, "\n{}:", t.title);
            s.push_str(&flashlab_results::export::terminal(&t));
        }
        if let Some(p) = &self.per_commit {
            let e = |m: f64, k: f64| if k > 0.0 { format!("{:+.1}%", (m - k) / k * 100.0) } else { "-".into() };
            let _ = writeln!(s, "\nper commit ({} transactions)   model   kernel   error", p.transactions);
            let _ = writeln!(
                s,
                "  flushes (fsync cost)      {:>7.2} {:>8.2} {:>7}",
                p.model_flushes,
                p.kernel_flushes,
                e(p.model_flushes, p.kernel_flushes)
            );
            let _ = writeln!(
                s,
                "  write requests            {:>7.2} {:>8.2} {:>7}",
                p.model_write_requests,
                p.kernel_write_requests,
                e(p.model_write_requests, p.kernel_write_requests)
            );
            let _ = writeln!(
                s,
                "  KiB written               {:>7.1} {:>8.1} {:>7}",
                p.model_write_bytes / 1024.0,
                p.kernel_write_bytes / 1024.0,
                e(p.model_write_bytes, p.kernel_write_bytes)
            );
        }
        if let Some(f) = &self.free_space {
            let _ = writeln!(s, "\nfree space after the workload        model   kernel");
            let _ = writeln!(
                s,
                "  free MiB                        {:>8.1} {:>8.1}",
                mib(f.model.free_bytes),
                mib(f.kernel.free_bytes)
            );
            let _ = writeln!(s, "  free extents                    {:>8} {:>8}", f.model.extents, f.kernel.extents);
            let _ = writeln!(
                s,
                "  mixed 4 MiB windows             {:>7.1}% {:>7.1}%   error {}",
                f.model.mixed_window_fraction * 100.0,
                f.kernel.mixed_window_fraction * 100.0,
                pct(f.mixed_window_error)
            );
            let _ = writeln!(s, "  free extents by size:");
            for i in 0..BINS {
                if f.model.histogram[i] + f.kernel.histogram[i] > 0 {
                    let _ = writeln!(
                        s,
                        "    {:>14}                {:>8} {:>8}",
                        bin_label(i),
                        f.model.histogram[i],
                        f.kernel.histogram[i]
                    );
                }
            }
            let _ = writeln!(s, "  histogram distance (sum |m-k| / kernel extents): {:.3}", f.histogram_distance);
        }
        if !self.behaviour.is_empty() {
            let _ = writeln!(s, "\nwhat the filesystem did                 model     kernel");
            for b in &self.behaviour {
                let m = b.model.map_or_else(|| "-".to_string(), |m| format!("{m:.0}"));
                let _ = writeln!(s, "  {:<34} {:>9} {:>10.0}", b.what, m, b.kernel);
            }
        }
        if let Some(p) = &self.placement {
            let _ = writeln!(
                s,
                "\nplacement (FIEMAP vs model): {} files, {} start on the same block, {} have identical extents; extents per file {:.2} model, {:.2} kernel",
                p.files, p.same_start, p.same_extents, p.model_extents_per_file, p.kernel_extents_per_file
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        flashlab_results::export::wrap(&s)
    }

    /// The classes whose model differs from the kernel by more than `bytes_tol` in bytes
    /// (flushes have none) or `req_tol` in requests (relative), one line each. Only classes
    /// that carry traffic count — 64 KiB or 8 requests on one side —: a block of metadata
    /// more or less is 100 %. Reads are left out (the model caches all metadata).
    pub fn class_errors(&self, bytes_tol: f64, req_tol: f64) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.classes.iter().filter(|c| c.class != "read") {
            let big = c.kernel_bytes.max(c.model_bytes) >= 64 << 10 || c.kernel_requests.max(c.model_requests) >= 8;
            if !big {
                continue;
            }
            let be = c.bytes_error.unwrap_or(f64::INFINITY).abs();
            if c.class != "flush" && be > bytes_tol {
                out.push(format!(
                    "{}: class {}: bytes model {} kernel {} ({:+.1} %)",
                    self.workload,
                    c.class,
                    c.model_bytes,
                    c.kernel_bytes,
                    be * 100.0
                ));
            }
            let re = c.requests_error.unwrap_or(f64::INFINITY).abs();
            if re > req_tol {
                out.push(format!(
                    "{}: class {}: requests model {} kernel {} ({:+.1} %)",
                    self.workload,
                    c.class,
                    c.model_requests,
                    c.kernel_requests,
                    re * 100.0
                ));
            }
        }
        out
    }

    /// The JSON document (pretty, newline-terminated).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serializes") + "\n"
    }
}

fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}
