//! Issue 8 acceptance 1: `flashlab sqlite` on ext4 on a `flashlab serve` device takes its
//! device counts from the simulator's own counters (stats.json), keeps the loop device's
//! kernel counters beside them, and they agree; WAL needs fewer flushes per commit than
//! DELETE; integrity checks pass; the database files are removed; unmount, detach and the
//! FUSE unmount leave nothing behind. Needs root, /dev/fuse, loop devices, mkfs.ext4 and mount;
//! fails naming what is missing otherwise, unless FLASHLAB_TEST_SKIP names it.

use flashlab_serve::{ServeOptions, Server};
use flashlab_sqlite::config::{JournalMode, Shape, SyncMode, Workload};
use flashlab_sqlite::{run, RunOptions, Target};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Root, /dev/fuse, loop devices, mkfs.ext4 and mount (flashlab_testcaps); false when
/// FLASHLAB_TEST_SKIP asked to skip.
fn machine_ready() -> bool {
    use flashlab_testcaps::Cap;
    flashlab_testcaps::require(&[Cap::Root, Cap::Fuse, Cap::Loop, Cap::Tool("mkfs.ext4"), Cap::Tool("mount")])
}

fn toy() -> flashsim::Profile {
    flashsim::Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap()
}

fn mounted(dir: &Path) -> bool {
    let want = dir.to_string_lossy().replace(' ', "\\040");
    std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split(' ').nth(4) == Some(want.as_str()))
}

fn umount(dir: &Path) -> bool {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: umount2 on a NUL-terminated path.
    unsafe { libc::umount2(c.as_ptr(), 0) == 0 }
}

/// The serve mount, its loop device and the ext4 mount on it; torn down in order (unmount
/// ext4, detach, unmount FUSE, remove the directories) even when the test fails.
struct Stack {
    base: PathBuf,
    serve_dir: PathBuf,
    mnt: PathBuf,
    server: Option<Server>,
}

impl Stack {
    fn teardown_mount(&self) {
        if mounted(&self.mnt) && !umount(&self.mnt) {
            let c = std::ffi::CString::new(self.mnt.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: umount2 on a NUL-terminated path.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.teardown_mount();
        drop(self.server.take());
        let _ = std::fs::remove_dir(&self.mnt);
        let _ = std::fs::remove_dir(&self.serve_dir);
        let _ = std::fs::remove_dir(&self.base);
    }
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn sqlite_on_ext4_on_a_serve_device_counts_from_the_simulator() {
    if !machine_ready() {
        return;
    }
    let t0 = Instant::now();
    let base = std::env::temp_dir().join(format!("flashlab-sqlite-serve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let serve_dir = base.join("serve");
    let mnt = base.join("mnt");
    std::fs::create_dir_all(&serve_dir).unwrap();
    std::fs::create_dir_all(&mnt).unwrap();
    let mut stack = Stack { base, serve_dir: serve_dir.clone(), mnt: mnt.clone(), server: None };

    let mut o = ServeOptions::new(toy(), serve_dir.clone());
    o.attach = true;
    o.size = Some(128 << 20);
    // The machine has what serve needs (checked above): serve not starting is a failure.
    let server = Server::start(&o, Arc::new(|m: &str| eprintln!("server: {m}")))
        .unwrap_or_else(|e| panic!("flashlab serve --attach did not start: {e}"));
    let loopdev = server.loop_device().expect("attached").to_string();
    stack.server = Some(server);
    // No discard at mkfs, no lazy initialisation writing in the background during the runs.
    run_ok(
        Command::new("mkfs.ext4")
            .args(["-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"])
            .arg(&loopdev),
    );
    run_ok(Command::new("mount").args(["-t", "ext4"]).arg(&loopdev).arg(&mnt));

    let before = stack.server.as_ref().unwrap().snapshot().counters;
    let wl = Workload::new(
        vec![JournalMode::Delete, JournalMode::Truncate, JournalMode::Persist, JournalMode::Wal],
        vec![SyncMode::Full],
        50,
        1,
        Shape::Insert,
        100,
        1,
    )
    .unwrap();
    let opts = RunOptions { baseline: Duration::from_millis(300) };
    let report = run(&Target::Dir(mnt.clone()), &wl, &opts, &mut |l| eprintln!("  {l}")).expect("sqlite run");
    let after = stack.server.as_ref().unwrap().snapshot().counters;
    let table = flashlab_sqlite::render_table(&report);
    println!("{table}");

    assert_eq!(report.kind, "serve", "the serve device was not recognised under {}", mnt.display());
    assert!(report.counts_from.starts_with("simulator counters of the serve device"), "{}", report.counts_from);
    assert!(report.counts_from.contains(&serve_dir.join("stats.json").display().to_string()));
    assert!(table.contains("loop flushes") && table.contains("WAF"), "{table}");
    assert_eq!(report.configs.len(), 4);
    let (mut sum_writes, mut sum_flushes) = (0, 0);
    for c in &report.configs {
        let name = format!("{}/{}", c.journal_mode, c.synchronous);
        assert_eq!(c.integrity_check, "ok", "{name}");
        let d = c.device.unwrap_or_else(|| panic!("{name}: no device counts"));
        let k = c.kernel_device.unwrap_or_else(|| panic!("{name}: no loop device counts"));
        // Every commit with synchronous=FULL writes and flushes the device.
        assert!(d.write_requests >= wl.transactions, "{name}: {d:?}");
        assert!(d.write_bytes >= wl.transactions * 4096, "{name}: {d:?}");
        assert!(d.flushes.unwrap() >= wl.transactions, "{name}: {d:?}");
        assert_eq!(d.discards, Some(0), "{name}: ext4 without -o discard sends no discards");
        assert!(d.nand_write_bytes.unwrap() > 0 && d.waf.unwrap() > 0.0, "{name}: {d:?}");
        assert!(c.per_tx.device_flushes.unwrap() > 0.0 && c.per_tx.device_write_bytes.unwrap() > 0.0);
        // The simulator and the kernel saw the same interval: bytes and flushes agree (the
        // kernel also counts each empty flush as a 0-byte write, so it may count more writes).
        let close = |a: u64, b: u64| a.abs_diff(b) <= 2 + a.max(b) / 20;
        assert!(close(d.write_bytes, k.write_bytes), "{name}: simulator {d:?} vs kernel {k:?}");
        // Linux has counted flushes in /sys/block/*/stat since 5.5, and the loop device sends
        // them on (write-back cache): a missing count is a failure, not something to skip.
        let kernel_flushes = k.flushes.unwrap_or_else(|| panic!("{name}: no flush count from the loop device: {k:?}"));
        assert!(close(d.flushes.unwrap(), kernel_flushes), "{name}: {d:?} vs {k:?}");
        assert!(k.write_requests >= d.write_requests * 9 / 10, "{name}: {d:?} vs {k:?}");
        sum_writes += d.write_requests;
        sum_flushes += d.flushes.unwrap();
    }
    // The per-configuration counts are slices of what the simulator counted over the run.
    assert!(sum_writes <= after.host_writes - before.host_writes);
    assert!(sum_flushes <= after.host_flushes - before.host_flushes);
    let per_flush = |m: JournalMode| {
        report.configs.iter().find(|c| c.journal_mode == m).and_then(|c| c.per_tx.device_flushes).unwrap()
    };
    assert!(
        per_flush(JournalMode::Wal) < per_flush(JournalMode::Delete),
        "WAL {} flushes/tx, DELETE {}",
        per_flush(JournalMode::Wal),
        per_flush(JournalMode::Delete)
    );
    let left: Vec<String> = std::fs::read_dir(&mnt)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lost+found")
        .collect();
    assert!(left.is_empty(), "files left on the mount: {left:?}");

    // Ordered teardown: unmount ext4, detach the loop device, unmount FUSE.
    assert!(umount(&mnt), "umount {}: {}", mnt.display(), std::io::Error::last_os_error());
    let server = stack.server.take().unwrap();
    let snap = server.stop().map_err(|b| b.1.to_string()).expect("serve stops cleanly");
    assert!(snap.counters.host_flushes >= after.host_flushes);
    assert!(!mounted(&serve_dir) && !mounted(&mnt), "a mount was left behind");
    let backing =
        std::fs::read_to_string(format!("/sys/block/{}/loop/backing_file", loopdev.trim_start_matches("/dev/")));
    assert!(
        backing.map_or(true, |b| !b.contains(&serve_dir.display().to_string())),
        "{loopdev} still bound to the serve device"
    );
    drop(stack);
    assert!(!serve_dir.exists() && !mnt.exists(), "directories left behind");
    println!("took {:.1} s", t0.elapsed().as_secs_f64());
}
