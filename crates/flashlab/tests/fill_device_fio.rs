//! fio's `fill_device` (alias `fill_fs`): a writing job without `size=` writes until the
//! filesystem is full, and ENOSPC ends it without an error (fio's `err= 0`).
//!
//! - Real target: two 8 MiB tmpfs mounts, fio fills one, flashlab the other; both write the
//!   same bytes and end without an error. Needs root and fio (flashlab_testcaps;
//!   FLASHLAB_TEST_SKIP=root,fio skips, anything else missing fails).
//! - `continue_on_error=write` with `ignore_error=,ENOSPC` (fio's `td_non_fatal_error`): a
//!   16 MiB job on an 8 MiB tmpfs goes on past ENOSPC, each failed write counted in
//!   `total_err`, `first_error` 28, as fio does (root and fio, as above).
//! - Simulated target: a write phase then a read phase over the same file, as a surface scan
//!   does: the write fills the simulated filesystem, the read reads all of it back.

#[path = "common/scratch.rs"]
mod scratch;
use scratch::{json_of, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

struct Mount(std::path::PathBuf);

impl Mount {
    fn tmpfs(dir: &Path, size: &str) -> Mount {
        std::fs::create_dir_all(dir).unwrap();
        let st = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(dir).status();
        assert!(st.is_ok_and(|s| s.success()), "mount tmpfs on {}", dir.display());
        Mount(dir.to_path_buf())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn writes(who: &str, doc: &Value) -> (u64, i64) {
    let j = &doc["jobs"][0];
    let b = j["write"]["io_bytes"].as_u64().unwrap_or_else(|| panic!("{who}: no write.io_bytes in {j}"));
    (b, j["error"].as_i64().unwrap_or(-1))
}

/// `job` run by fio (in `directory=` an 8 MiB tmpfs of its own) and by flashlab (on another):
/// both JSON documents, and the mount flashlab ran on (still mounted).
fn on_small_tmpfs(tag: &str, job: &str) -> (Value, Value, TempDir, Mount, Mount) {
    let tmp = TempDir::new(tag);
    let (m1, m2) = (Mount::tmpfs(&tmp.0.join("fio"), "8m"), Mount::tmpfs(&tmp.0.join("fl"), "8m"));
    let fio_file = tmp.0.join("fio.fio");
    std::fs::write(&fio_file, format!("[global]\ndirectory={}\n{job}", m1.0.display())).unwrap();
    let fio = flashlab_testcaps::on_path("fio").expect("fio on PATH");
    let want = json_of("fio", Command::new(fio).arg("--output-format=json").arg(&fio_file).output().unwrap());
    let fl_file = tmp.0.join("fl.fio");
    std::fs::write(&fl_file, job).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .arg("run")
        .arg(&fl_file)
        .args(["--target", m2.0.to_str().unwrap(), "--output-format", "json"])
        .output()
        .unwrap();
    let got = json_of("flashlab run", out);
    // Unmount before the directory goes (fields drop in order: the mounts first).
    (want, got, tmp, m2, m1)
}

#[test]
fn fills_a_small_filesystem_as_fio_does() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Root, flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let job = "[fill]\nrw=write\nbs=64k\nioengine=psync\nfill_device=1\n";
    let (want, got, _tmp, m2, _m1) = on_small_tmpfs("fill-device", job);
    let (w, g) = (writes("fio", &want), writes("flashlab", &got));
    assert_eq!(w.1, 0, "fio ends a fill without an error");
    assert_eq!(g, w, "fio wrote {w:?}, flashlab {g:?}");
    assert_eq!(w.0, 8 << 20, "an 8 MiB tmpfs takes 8 MiB");
    // flashlab removed its file; the mount is empty again.
    assert_eq!(std::fs::read_dir(&m2.0).unwrap().count(), 0);
}

#[test]
fn ignored_enospc_is_counted_as_fio_counts_it() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Root, flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let job = "[over]\nrw=write\nbs=64k\nsize=16m\nioengine=psync\nfallocate=none\ncontinue_on_error=write\nignore_error=,ENOSPC\n";
    let (want, got, _tmp, _m2, _m1) = on_small_tmpfs("ignore-error", job);
    let errs = |who: &str, doc: &Value| {
        let j = &doc["jobs"][0];
        let n = |k: &str| j[k].as_i64().unwrap_or_else(|| panic!("{who}: no {k} in {j}"));
        (n("total_err"), n("first_error"), j["write"]["io_bytes"].as_i64().unwrap())
    };
    let (w, g) = (errs("fio", &want), errs("flashlab", &got));
    assert_eq!(w.1, 28, "fio: ENOSPC first {w:?}");
    assert!(w.0 > 0, "fio counted the ignored errors {w:?}");
    assert_eq!(g, w, "fio (total_err, first_error, write bytes) {w:?}, flashlab {g:?}");
}

#[test]
fn fills_the_simulated_filesystem_then_reads_it_back() {
    let dir = TempDir::new("fill-device-sim");
    let file = dir.0.join("scan.fio");
    std::fs::write(
        &file,
        "[global]\nbs=1m\nfilename=scan.tmp\n[write-phase]\nrw=write\nfill_fs=1\n[read-phase]\nstonewall\nrw=read\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .arg("run")
        .arg(&file)
        .args(["--target", "sim:emmc-16g", "--output-format", "json"])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let doc = json_of("flashlab run", out);
    let (w, err) = writes("flashlab", &doc);
    assert_eq!(err, 0);
    // The profile's 16.0 GB, less the filesystem's own blocks.
    assert!(w > 15_000_000_000 && w <= 16_000_000_000, "wrote {w} bytes");
    assert_eq!(doc["jobs"][1]["read"]["io_bytes"].as_u64(), Some(w), "the read phase reads the whole file");
}

#[test]
fn fill_device_is_a_boolean_with_file_and_line() {
    let dir = TempDir::new("fill-device-bad");
    let file = dir.0.join("bad.fio");
    std::fs::write(&file, "[w]\nrw=write\nfill_device=maybe\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_flashlab"))
        .arg("run")
        .arg(&file)
        .args(["--target", "sim:emmc-16g"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("bad.fio:3") && err.contains("fill_device"), "{err}");
}
