//! flashlab sqlite end to end, as the library runs it: on a simulated device the device counts
//! follow exactly from the recorded VFS operations; on a real directory the kernel counters
//! move and WAL needs fewer flushes per commit than DELETE; integrity checks pass; no file is
//! left behind, even when a run fails half-way; bad targets are clear errors.

use flashlab_lab::system::SimSystem;
use flashlab_sqlite::config::{JournalMode, Shape, SyncMode, Workload};
use flashlab_sqlite::replay::{replay, BLOCK};
use flashlab_sqlite::results::VfsCounts;
use flashlab_sqlite::vfs_recorder::{Event, Mark, RecordingVfs};
use flashlab_sqlite::workload::{run_config, Phase};
use flashlab_sqlite::{run, Error, RunOptions, Target};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn toy() -> flashsim::Profile {
    flashsim::Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap()
}

/// A new directory on tmpfs where there is one (fsync costs nothing there and the simulated
/// runs do not depend on the filesystem), else in the temporary directory.
fn scratch_dir(tag: &str) -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() && std::fs::metadata(shm).map(|m| !m.permissions().readonly()).unwrap_or(false) {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!("flashlab-sqlite-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    match std::fs::create_dir_all(&d) {
        Ok(()) => d,
        Err(_) => fresh_dir(tag),
    }
}

fn fresh_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashlab-sqlite-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

fn workload(modes: Vec<JournalMode>, syncs: Vec<SyncMode>, n: u64, shape: Shape) -> Workload {
    Workload::new(modes, syncs, n, 1, shape, 100, 7).unwrap()
}

/// The bytes the replay rules imply, computed independently of `replay.rs`: 4 KiB blocks
/// dirtied per file, written at that file's sync or at a writeback of everything, dropped by
/// truncation below them or deletion.
fn expected_bytes(events: &[Event]) -> u64 {
    let mut path: HashMap<u32, Option<String>> = HashMap::new();
    let mut dirty: HashMap<String, HashSet<u64>> = HashMap::new();
    let (mut on, mut bytes) = (false, 0);
    for e in events {
        match e {
            Event::Open { file, path: p, .. } => {
                path.insert(*file, p.clone());
            }
            Event::Write { file, off, len } => {
                if let Some(Some(p)) = path.get(file) {
                    let set = dirty.entry(p.clone()).or_default();
                    let mut b = off / BLOCK;
                    loop {
                        set.insert(b);
                        b += 1;
                        if b * BLOCK >= off + len {
                            break;
                        }
                    }
                }
            }
            Event::Sync { file, .. } => {
                if let Some(Some(p)) = path.get(file) {
                    let n = dirty.remove(p).map(|s| s.len()).unwrap_or(0);
                    if on {
                        bytes += n as u64 * BLOCK;
                    }
                }
            }
            Event::Truncate { file, size } => {
                if let Some(Some(p)) = path.get(file) {
                    if let Some(s) = dirty.get_mut(p) {
                        s.retain(|&b| b * BLOCK < *size);
                    }
                }
            }
            Event::Delete { path: p, .. } => {
                dirty.remove(p);
            }
            Event::Mark(Mark::WritebackAll) => {
                let n: usize = dirty.drain().map(|(_, s)| s.len()).sum();
                if on {
                    bytes += n as u64 * BLOCK;
                }
            }
            Event::Mark(Mark::MeasureStart) => on = true,
            Event::Mark(Mark::MeasureEnd) => on = false,
            _ => {}
        }
    }
    bytes
}

#[test]
fn simulated_counts_follow_the_recorded_operations_exactly() {
    let dir = scratch_dir("sim-exact");
    let vfs = RecordingVfs::register().unwrap();
    for shape in [Shape::Insert, Shape::Mix] {
        let wl = workload(JournalMode::ALL.to_vec(), SyncMode::ALL.to_vec(), 25, shape);
        for &mode in &wl.modes {
            for &sync in &wl.syncs {
                let run = run_config(&dir, &vfs, &wl, mode, sync, &mut |_| Ok(())).unwrap();
                assert_eq!(run.integrity, "ok");
                let v = VfsCounts::measured(&run.events);
                let mut sim = SimSystem::with_fs(&toy(), 1, flashlab_simfs::FsConfig::plain(false));
                let r = replay(&run.events, &mut sim).unwrap();
                let what = format!("{shape} {mode}/{sync}");
                assert_eq!(r.counters.host_flushes, v.syncs + v.deletes_sync_dir + 1, "{what}: flushes");
                assert_eq!(r.counters.host_write_bytes, expected_bytes(&run.events), "{what}: bytes");
                assert_eq!(r.writeback_bytes, r.counters.host_write_bytes, "{what}");
                assert!(r.counters.host_writes >= r.writeback_requests, "{what}");
                assert_eq!(r.latencies_ns.len(), 25);
                if sync == SyncMode::Off {
                    assert_eq!(v.syncs, 0, "{what}: synchronous=off never syncs");
                } else if mode == JournalMode::Wal && sync == SyncMode::Normal {
                    assert!(v.syncs < 25, "{what}: WAL at NORMAL syncs only at checkpoints, got {}", v.syncs);
                } else {
                    assert!(v.syncs >= 25, "{what}: at least one sync per commit, got {}", v.syncs);
                }
            }
        }
    }
    assert!(entries(&dir).is_empty(), "left behind: {:?}", entries(&dir));
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn simulated_target_wal_flushes_less_than_delete() {
    let wl = workload(vec![JournalMode::Delete, JournalMode::Wal], vec![SyncMode::Full], 40, Shape::Insert);
    let target = Target::Sim {
        spec: "sim:toy".into(),
        profile: Box::new(toy()),
        seed: 1,
        fs: flashlab_simfs::FsConfig::plain(true),
        precondition: Default::default(),
    };
    let rep = run(&target, &wl, &RunOptions { baseline: Duration::ZERO }, &mut |_| {}).unwrap();
    assert_eq!(rep.kind, "simulated");
    assert!(rep.counts_from.contains("model"), "{}", rep.counts_from);
    let [del, wal] = [&rep.configs[0], &rep.configs[1]];
    for c in [del, wal] {
        assert_eq!(c.integrity_check, "ok");
        let d = c.device.unwrap();
        assert_eq!(d.flushes, Some(c.vfs.syncs + c.vfs.deletes_sync_dir + 1));
        assert!(d.write_bytes > 0 && d.nand_write_bytes.unwrap() > 0);
        assert!(c.tx_per_s.unwrap() > 0.0 && c.latency.p50_ns > 0);
    }
    let f = |c: &flashlab_sqlite::results::ConfigResult| c.per_tx.device_flushes.unwrap();
    assert!(f(wal) < f(del), "WAL {} vs DELETE {} flushes per commit", f(wal), f(del));
    assert!(wal.per_tx.device_write_bytes.unwrap() < del.per_tx.device_write_bytes.unwrap());
    // Mounted with discard: DELETE mode's journal deletes are trimmed.
    assert!(del.device.unwrap().discards.unwrap() > 0);
    let text = flashlab_sqlite::render_table(&rep);
    assert!(text.contains(flashlab_sqlite::sqlite_version()) && text.contains("model"), "{text}");
}

#[test]
fn real_directory_kernel_counters() {
    let dir = fresh_dir("real");
    let wl = workload(vec![JournalMode::Delete, JournalMode::Wal], vec![SyncMode::Full], 60, Shape::Insert);
    let rep =
        run(&Target::Dir(dir.clone()), &wl, &RunOptions { baseline: Duration::from_millis(200) }, &mut |_| {}).unwrap();
    assert!(entries(&dir).is_empty(), "left behind: {:?}", entries(&dir));
    std::fs::remove_dir(&dir).unwrap();
    let [del, wal] = [&rep.configs[0], &rep.configs[1]];
    for c in [del, wal] {
        assert_eq!(c.integrity_check, "ok");
        assert!(c.tx_per_s.unwrap() > 0.0);
    }
    // What SQLite asked for does not depend on the machine.
    assert!(
        del.per_tx.vfs_syncs >= 2.0 && wal.per_tx.vfs_syncs < 1.5,
        "{} {}",
        del.per_tx.vfs_syncs,
        wal.per_tx.vfs_syncs
    );
    let (Some(dd), Some(dw)) = (del.device, wal.device) else {
        println!("skipped: {} has no block device ({}); kernel counters not checked", dir.display(), rep.counts_from);
        return;
    };
    assert!(dd.write_requests > 0 && dd.write_bytes > 0 && dw.write_bytes > 0);
    let (Some(fd), Some(fw)) = (dd.flushes, dw.flushes) else {
        println!("skipped: this kernel reports no flush counts");
        return;
    };
    if rep.notes.iter().any(|n| n.contains("write-through")) {
        println!("skipped: the device has a write-through cache, the kernel sends no flushes");
        return;
    }
    // Other processes can only add flushes; each of DELETE's fsyncs flushes at least once
    // (allow half for flushes the block layer merged with someone else's).
    assert!(fd * 2 >= del.vfs.syncs, "DELETE: {fd} device flushes for {} fsyncs", del.vfs.syncs);
    assert!(fw < fd, "WAL {fw} vs DELETE {fd} flushes for the same number of commits");
}

#[test]
fn failed_run_leaves_no_files() {
    let dir = scratch_dir("fail");
    let vfs = RecordingVfs::register().unwrap();
    let wl = workload(vec![JournalMode::Wal], vec![SyncMode::Full], 5, Shape::Insert);
    let err = run_config(&dir, &vfs, &wl, JournalMode::Wal, SyncMode::Full, &mut |p| {
        if p == Phase::Start {
            Err(Error::Sim("injected".into()))
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert!(err.to_string().contains("injected"));
    assert!(entries(&dir).is_empty(), "left behind: {:?}", entries(&dir));
    std::fs::remove_dir(&dir).unwrap();
}

#[test]
fn bad_targets_are_clear_errors() {
    let wl = workload(vec![JournalMode::Delete], vec![SyncMode::Full], 1, Shape::Insert);
    let opts = RunOptions { baseline: Duration::ZERO };
    let e = |p: &str| run(&Target::Dir(p.into()), &wl, &opts, &mut |_| {}).unwrap_err().to_string();
    let missing = e("/nonexistent/flashlab-sqlite");
    assert!(missing.contains("--target /nonexistent/flashlab-sqlite") && missing.contains("No such file"), "{missing}");
    let file = e("/etc/hostname");
    assert!(file.contains("--target /etc/hostname") && file.contains("not a directory"), "{file}");
    let ro = e("/proc");
    assert!(ro.contains("--target /proc") && ro.contains("cannot create files"), "{ro}");
}
