//! The same sweep on 1 and 2 threads writes the same files, byte for byte (acceptance 1 of
//! issue 20, local half; the Ray half is in crates/flashlab/tests/sweep_cli.rs and the Python
//! tests), and the table says what the cases did.

use flashlab_sweep::{run_sweep, Spec};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// Every file under `dir`, relative path and bytes, sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn one_and_two_threads_write_the_same_files() {
    let spec = Spec::load(&data("sweep24.toml")).unwrap();
    assert!(spec.cases.len() >= 24);
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("t1"), tmp.path().join("t2"));
    let s1 = run_sweep(&spec, &a, 1, &|_, _| {}).unwrap();
    let s2 = run_sweep(&spec, &b, 2, &|_, _| {}).unwrap();
    assert_eq!((s1.threads, s2.threads), (1, 2));
    assert_eq!((s1.ran, s2.ran, s1.failed, s2.failed), (24, 24, 0, 0));
    let (fa, fb) = (files(&a), files(&b));
    assert_eq!(fa.len(), 24 + 3, "24 case documents, two tables and the sweep file");
    for ((pa, ba), (pb, bb)) in fa.iter().zip(&fb) {
        assert_eq!(pa, pb);
        assert!(ba == bb, "{} differs between 1 and 2 threads", pa.display());
    }

    // The table: a row per case, the axes as named in the file, and numbers that vary with
    // the settings (GC copies only where the spare is small and the writes land in place).
    let csv = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["case", "ftl.spare_factor", "fs", "seed"]);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 24);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (spare, fs, gc, waf) = (col("ftl.spare_factor"), col("fs"), col("gc_units_copied"), col("aged.waf"));
    for r in &rows {
        let copies: f64 = r[gc].parse().unwrap();
        let w: f64 = r[waf].parse().unwrap();
        // Below 1 only by what the controller's write buffer coalesced (ext4 rewrites its
        // metadata blocks while they are still buffered): a hair, never more.
        assert!(w > 0.99, "WAF well below 1: {r:?}");
        if r[spare] == "0.25" {
            assert_eq!(copies, 0.0, "a quarter spare left GC nothing to copy: {r:?}");
        }
    }
    assert!(
        rows.iter().any(|r| r[spare] == "0.1" && r[fs] == "plain" && r[gc] != "0"),
        "the smallest spare must make GC copy something"
    );

    // The report: a chart per varying setting, heatmaps over the first two.
    let r = flashlab_sweep::report::sweep_report(&a).unwrap();
    let stems: Vec<&str> = r.charts.iter().map(|(s, _)| s.as_str()).collect();
    for s in ["axis-ftl_spare_factor", "axis-fs", "axis-seed", "heat-gc_units_copied"] {
        assert!(stems.contains(&s), "no chart {s} in {stems:?}");
    }
    assert!(r.html.contains("24 cases") && !r.html.contains("<script"));
}
