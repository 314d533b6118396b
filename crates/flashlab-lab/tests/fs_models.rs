//! The filesystem models (issue 5): invariants under random operation sequences for each
//! model, and the behaviours each model exists for — ext4's journal commits, flushes and
//! checkpoints; F2FS turning random overwrites into sequential writes, cleaning within its
//! reserve, discarding cleaned segments; `nobarrier` dropping flushes.

use flashlab_lab::experiments::fs_study::overwrite_waf;
use flashlab_lab::rng::Rng;
use flashlab_lab::system::{SimSystem, SysError};
use flashlab_simfs::disk::{Purpose, Traced};
use flashlab_simfs::FsError;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Op, Profile};
use proptest::prelude::*;

const TOY: &str = flashsim::builtin::TOY;
const MIB: u64 = 1 << 20;

fn sys(spec: &str) -> SimSystem {
    let profile = Profile::from_toml("toy.toml", TOY).unwrap();
    SimSystem::with_fs(&profile, 1, FsConfig::parse(spec).unwrap())
}

/// Write a file sequentially in 1 MiB requests, one after the other.
fn write_all(s: &mut SimSystem, id: FileId, size: u64) {
    let mut off = 0;
    while off < size {
        let len = MIB.min(size - off);
        s.io_now(id, Op::Write, off, len).unwrap();
        off += len;
    }
}

/// 4 KiB overwrites at random blocks of a file, each after the previous one completes.
fn random_overwrites(s: &mut SimSystem, id: FileId, size: u64, n: u64, fsync_every: u64, seed: u64) {
    let mut rng = Rng::new(seed);
    for i in 0..n {
        let off = rng.below(size / 4096) * 4096;
        s.io_now(id, Op::Write, off, 4096).unwrap();
        if fsync_every > 0 && (i + 1) % fsync_every == 0 {
            s.fsync_now(id).unwrap();
        }
    }
}

/// Fraction of data writes that start where the previous data write ended.
fn sequential_fraction(trace: &[Traced]) -> f64 {
    let data: Vec<&Traced> = trace.iter().filter(|r| r.purpose == Some(Purpose::Data)).collect();
    let seq = data.windows(2).filter(|w| w[1].offset == w[0].offset + w[0].len).count();
    seq as f64 / (data.len() - 1).max(1) as f64
}

#[derive(Debug, Clone)]
enum FsOp {
    Create(u8, u32),
    Write(u8, u32, u16),
    Read(u8, u32, u16),
    Trim(u8, u32, u16),
    Fsync(u8),
    Delete(u8),
    Idle(u16),
    Fstrim,
    Sync,
}

fn op() -> impl Strategy<Value = FsOp> {
    prop_oneof![
        (0u8..6, 0u32..16_384).prop_map(|(f, b)| FsOp::Create(f, b)),
        (0u8..6, 0u32..20_000, 1u16..300).prop_map(|(f, o, l)| FsOp::Write(f, o, l)),
        (0u8..6, 0u32..20_000, 1u16..64).prop_map(|(f, o, l)| FsOp::Read(f, o, l)),
        (0u8..6, 0u32..20_000, 1u16..64).prop_map(|(f, o, l)| FsOp::Trim(f, o, l)),
        (0u8..6).prop_map(FsOp::Fsync),
        (0u8..6).prop_map(FsOp::Delete),
        (1u16..200).prop_map(FsOp::Idle),
        Just(FsOp::Fstrim),
        Just(FsOp::Sync),
    ]
}

/// Run the operations; running out of space is allowed (and counted), any other error is not.
/// The model's invariants are checked after every operation. Returns the system and how many
/// operations ran out of space.
fn run_ops(spec: &str, ops: &[FsOp]) -> Result<(SimSystem, usize), TestCaseError> {
    let mut s = sys(spec);
    let mut no_space = 0;
    let name = |f: u8| format!("f{f}");
    for (i, o) in ops.iter().enumerate() {
        let id = |s: &SimSystem, f: u8| s.file_id(&name(f));
        let r: Result<(), SysError> = match *o {
            FsOp::Create(f, blocks) if id(&s, f).is_none() => s.create(&name(f), u64::from(blocks) * 4096).map(|_| ()),
            FsOp::Write(f, off, len) => match id(&s, f) {
                Some(id) => s.io_now(id, Op::Write, u64::from(off) * 4096, u64::from(len) * 4096).map(drop),
                None => Ok(()),
            },
            FsOp::Read(f, off, len) | FsOp::Trim(f, off, len) => match id(&s, f) {
                Some(id) => {
                    let size = s.file_size(id).unwrap();
                    let (off, len) = (u64::from(off) * 4096, u64::from(len) * 4096);
                    if off + len <= size.div_ceil(4096) * 4096 {
                        let op = if matches!(o, FsOp::Read(..)) { Op::Read } else { Op::Trim };
                        s.io_now(id, op, off, len).map(drop)
                    } else {
                        Ok(())
                    }
                }
                None => Ok(()),
            },
            FsOp::Fsync(f) => match id(&s, f) {
                Some(id) => s.fsync_now(id).map(drop),
                None => Ok(()),
            },
            FsOp::Delete(f) if id(&s, f).is_some() => s.delete(&name(f)),
            FsOp::Idle(secs) => {
                s.idle(u64::from(secs) * 1_000_000_000);
                Ok(())
            }
            FsOp::Fstrim => s.fstrim().map(|_| ()),
            FsOp::Sync => s.sync(),
            _ => Ok(()),
        };
        match r {
            Ok(()) => {}
            Err(SysError::Fs(FsError::NoSpace { .. })) => no_space += 1,
            Err(e) => return Err(TestCaseError::fail(format!("{spec}: op {i} {o:?}: {e}"))),
        }
        s.fs().check().map_err(|e| TestCaseError::fail(format!("{spec}: after op {i} {o:?}: {e}")))?;
    }
    s.device().check_invariants().map_err(|e| TestCaseError::fail(format!("{spec}: device: {e}")))?;
    Ok((s, no_space))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn plain_invariants(ops in prop::collection::vec(op(), 1..60)) {
        run_ops("plain,discard", &ops)?;
    }

    #[test]
    fn ext4_invariants(ops in prop::collection::vec(op(), 1..60)) {
        run_ops("ext4,discard", &ops)?;
    }

    #[test]
    fn f2fs_invariants(ops in prop::collection::vec(op(), 1..60)) {
        run_ops("f2fs,discard", &ops)?;
    }
}

/// A file of 40 000 blocks (156 MiB, about two thirds of the toy device) written in full, then
/// 140 MiB of overwrites scattered over it: a log-structured filesystem (F2FS in mode=lfs)
/// writes every overwrite to a free segment, so once the free segments run out it must clean
/// (copy the valid blocks out of victims) to go on. Cleaning must run, must copy data, and the overwrites must never
/// run out of space (they do not grow the file), with the invariants checked after each step.
#[test]
fn f2fs_invariants_near_full_with_cleaning() {
    let mut ops = vec![FsOp::Create(0, 40_000)];
    ops.extend((0..160u32).map(|k| FsOp::Write(0, k * 250, 250)));
    ops.push(FsOp::Fsync(0));
    for i in 0..120u32 {
        ops.push(FsOp::Write(0, (i * 7919) % (40_000 - 299), 299));
        if i % 30 == 0 {
            ops.push(FsOp::Fsync(0));
        }
    }
    // mode=lfs: with slack-space recycling (the default) these overwrites go into the holes
    // they leave and cleaning is never needed (measured: 296 MiB written, nothing cleaned).
    let (s, no_space) = run_ops("f2fs,discard,mode=lfs", &ops).unwrap();
    let c = s.fs_counters();
    eprintln!("{c:?}");
    assert_eq!(no_space, 0, "overwrites inside the file ran out of space: {c:?}");
    assert!(c.cleaned_segments_foreground + c.cleaned_segments_background > 0, "no segment was cleaned: {c:?}");
    assert!(c.cleaning_write_bytes > 0 && c.cleaning_read_bytes >= c.cleaning_write_bytes, "{c:?}");
    assert!(c.discard_bytes > 0, "cleaned segments are discarded with discard on: {c:?}");
}

#[test]
fn ext4_fsync_of_a_small_overwrite_commits_the_journal() {
    for (spec, flushes) in [("ext4", true), ("ext4,nobarrier", false)] {
        let mut s = sys(spec);
        let id = s.create("db", MIB).unwrap();
        write_all(&mut s, id, MIB);
        s.sync().unwrap();
        let (c0, d0) = (s.fs_counters(), s.device().counters());
        s.set_trace(true);
        let c = s.io(s.now(), id, Op::Write, 8192, 4096).unwrap();
        let done = s.fsync(c.done, id).unwrap();
        assert!(done >= c.done);
        let trace = s.set_trace(false);
        let d = s.fs_counters().since(&c0);
        let jruns = s.fs().inplace().unwrap().journal_regions().expect("a journal");
        let journal_writes: Vec<_> = trace.iter().filter(|r| r.purpose == Some(Purpose::Journal)).collect();
        assert!(journal_writes.len() >= 2, "{spec}: descriptor+metadata and commit block: {trace:?}");
        assert!(journal_writes
            .iter()
            .all(|r| jruns.iter().any(|&(js, jl)| r.offset >= js && r.offset + r.len <= js + jl)));
        // Descriptor, the inode block, the commit block at least.
        assert!(d.journal_bytes >= 3 * 4096, "{spec}: {d:?}");
        assert_eq!(d.commits, 1, "{spec}: {d:?}");
        let dev_flushes = s.device().counters().host_flushes - d0.host_flushes;
        if flushes {
            assert!(d.flushes_issued >= 1 && dev_flushes >= 1, "{spec}: {d:?}");
            assert_eq!(d.flushes_dropped, 0);
        } else {
            assert_eq!(d.flushes_issued, 0, "{spec}: {d:?}");
            assert_eq!(dev_flushes, 0, "{spec}: the device saw a flush");
            assert!(d.flushes_dropped >= 1, "{spec}: {d:?}");
        }
    }
}

/// Home blocks (4 KiB block numbers) the next checkpoint writes: everything journaled since
/// the last one. Idles past the writeback interval and reads them from the trace.
fn checkpointed_blocks(s: &mut SimSystem) -> Vec<u64> {
    s.set_trace(true);
    s.sync().unwrap();
    s.idle(61_000_000_000);
    let trace = s.set_trace(false);
    let mut blocks = Vec::new();
    for r in trace.iter().filter(|r| r.purpose == Some(Purpose::Meta)) {
        blocks.extend(r.offset / 4096..(r.offset + r.len) / 4096);
    }
    blocks
}

/// What the kernel's journal holds (validate-fs, docs/validate-fs.md): the superblock (block
/// 0) in a transaction that deletes a file or truncates one holding data (the orphan list's
/// head is in it), and once after mount (the first open records the mount point); the root
/// directory's inode block on create and delete (its mtime and ctime). A truncate of an empty
/// file frees nothing and leaves the superblock alone.
#[test]
fn ext4_logs_the_superblock_for_orphans_and_the_directory_inode() {
    let mut s = sys("ext4");
    let root = flashlab_simfs::ext4_layout::Layout::new(s.fs().capacity() / 4096).inode_block(2);
    // Enough files that the later ones' inodes are not in the root's inode-table block.
    for i in 0..40 {
        let id = s.create(&format!("f{i}"), 64 << 10).unwrap();
        write_all(&mut s, id, 64 << 10);
    }
    let first = checkpointed_blocks(&mut s);
    assert!(first.contains(&0), "the first transaction after mount logs the superblock: {first:?}");
    assert!(first.contains(&root), "creates log the directory's inode block {root}: {first:?}");
    s.create("empty", 0).unwrap();
    checkpointed_blocks(&mut s);
    assert!(s.truncate_to_zero("empty").unwrap());
    let empty = checkpointed_blocks(&mut s);
    assert!(!empty.contains(&0), "an empty file's truncate frees nothing: {empty:?}");
    assert!(s.truncate_to_zero("f39").unwrap());
    let trunc = checkpointed_blocks(&mut s);
    assert!(trunc.contains(&0), "a truncate that frees blocks logs the superblock: {trunc:?}");
    assert!(!trunc.contains(&root), "a truncate leaves the directory alone: {trunc:?}");
    s.delete("f38").unwrap();
    let del = checkpointed_blocks(&mut s);
    assert!(del.contains(&0) && del.contains(&root), "a delete logs the superblock and the directory's inode: {del:?}");
}

#[test]
fn plain_fsync_is_one_flush_and_no_metadata() {
    let mut s = sys("plain");
    let id = s.create("db", MIB).unwrap();
    write_all(&mut s, id, MIB);
    let c0 = s.fs_counters();
    let c = s.io(s.now(), id, Op::Write, 0, 4096).unwrap();
    s.fsync(c.done, id).unwrap();
    let d = s.fs_counters().since(&c0);
    assert_eq!((d.flushes_issued, d.journal_bytes, d.metadata_bytes, d.data_bytes), (1, 0, 0, 4096));
    assert_eq!(d.write_amplification, 1.0);
}

#[test]
fn ext4_journal_checkpoints_and_periodic_commits() {
    // Every write in a clock tick of its own (a 1 ns tick), so every overwrite dirties the
    // inode and every fsync commits: the journal fills fast enough to test its checkpoints.
    // With the default 4 ms jiffy most fsyncs of this run have nothing to commit.
    let profile = Profile::from_toml("toy.toml", TOY).unwrap();
    let mut cfg = FsConfig::parse("ext4").unwrap();
    cfg.timestamp_granularity_ns = 1;
    let mut s = SimSystem::with_fs(&profile, 1, cfg);
    let id = s.create("db", 8 * MIB).unwrap();
    write_all(&mut s, id, 8 * MIB);
    s.sync().unwrap();
    let c0 = s.fs_counters();
    // Every write fsynced: one commit each; the 16 MiB journal fills and is checkpointed.
    random_overwrites(&mut s, id, 8 * MIB, 3000, 1, 3);
    let d = s.fs_counters().since(&c0);
    assert!(d.commits >= 3000, "{d:?}");
    assert!(d.checkpoints >= 1, "no journal checkpoint: {d:?}");
    assert!(d.metadata_bytes > 0, "checkpoints write metadata home: {d:?}");
    assert!(d.write_amplification > 2.0, "{d:?}");
    // Without fsync, the commit interval still commits (virtual time), and idle writes back.
    let c1 = s.fs_counters();
    random_overwrites(&mut s, id, 8 * MIB, 200, 0, 4);
    s.idle(60_000_000_000);
    let d = s.fs_counters().since(&c1);
    assert!(d.commits >= 1 && d.checkpoints >= 1, "{d:?}");
    s.fs().check().unwrap();
}

/// With in-place updates off (`noipu`: `ipu_policy=0`, the default of the F2FS of Linux
/// 3.8 to 3.17), every overwrite is appended to a log.
#[test]
fn f2fs_random_overwrites_reach_the_device_sequentially() {
    let mut fractions = vec![];
    for spec in ["f2fs,noipu", "ext4"] {
        let mut s = sys(spec);
        let id = s.create("data", 64 * MIB).unwrap();
        write_all(&mut s, id, 64 * MIB);
        s.sync().unwrap();
        s.set_trace(true);
        random_overwrites(&mut s, id, 64 * MIB, 5000, 0, 9);
        let trace = s.set_trace(false);
        fractions.push(sequential_fraction(&trace));
        s.fs().check().unwrap();
    }
    eprintln!("sequential fraction of data writes: f2fs {:.3}, ext4 {:.3}", fractions[0], fractions[1]);
    assert!(fractions[0] > 0.95, "f2fs: {fractions:?}");
    assert!(fractions[1] < 0.05, "ext4 writes in place: {fractions:?}");
}

/// F2FS near full: random overwrites force foreground cleaning (with in-place updates off);
/// free segments never fall below the reserve; with discard the device is told about cleaned
/// segments.
fn f2fs_full_overwrites(spec: &str) -> (SimSystem, u64) {
    let mut s = sys(spec);
    let size = s.fs().free_bytes() * 90 / 100 / 4096 * 4096;
    let id = s.create("data", size).unwrap();
    write_all(&mut s, id, size);
    s.sync().unwrap();
    let trims0 = s.device().counters().host_trim_bytes;
    let f = s.fs().f2fs().unwrap();
    let reserve = f.reserved_segments();
    let mut rng = Rng::new(5);
    for _ in 0..2 * size / 4096 {
        let off = rng.below(size / 4096) * 4096;
        s.io_now(id, Op::Write, off, 4096).unwrap();
        let free = s.fs().f2fs().unwrap().free_segments();
        assert!(free >= reserve, "{spec}: {free} free segments, reserve {reserve}");
    }
    s.fs().check().unwrap();
    s.device().check_invariants().unwrap();
    let trimmed = s.device().counters().host_trim_bytes - trims0;
    (s, trimmed)
}

#[test]
fn f2fs_cleaning_keeps_the_reserve_and_discards_cleaned_segments() {
    let (s, trimmed) = f2fs_full_overwrites("f2fs,discard,noipu");
    let c = s.fs_counters();
    eprintln!("f2fs,discard: {c:?}, device trimmed {trimmed} bytes");
    assert!(c.cleaned_segments_foreground > 0, "no cleaning: {c:?}");
    assert!(c.cleaning_write_bytes > 0 && c.cleaning_read_bytes == c.cleaning_write_bytes, "{c:?}");
    assert!(trimmed >= 2 * MIB, "cleaned segments not discarded: {trimmed}");
    let (s, trimmed) = f2fs_full_overwrites("f2fs,noipu");
    assert!(s.fs_counters().cleaned_segments_foreground > 0);
    assert_eq!(trimmed, 0, "no discard without the mount option");
}

#[test]
fn f2fs_slack_space_recycling_cleans_less_than_lfs_mode() {
    let (adaptive, _) = f2fs_full_overwrites("f2fs,noipu");
    let (lfs, _) = f2fs_full_overwrites("f2fs,mode=lfs");
    let (a, l) = (adaptive.fs_counters(), lfs.fs_counters());
    eprintln!("fs WAF near full: adaptive (SSR) {:.2}, mode=lfs {:.2}", a.write_amplification, l.write_amplification);
    assert!(a.cleaning_write_bytes < l.cleaning_write_bytes / 2, "SSR did not spare cleaning: {a:?} vs {l:?}");
    assert!(a.write_amplification < l.write_amplification);
}

/// Linux 6.1's default in-place-update policy: on a volume of at most 8192 main segments every
/// overwrite goes in place (`FORCE`); on a larger one only the small writes an fsync writes back
/// (`FSYNC`, at most `min_fsync_blocks`), while larger overwrites are appended.
#[test]
fn f2fs_kernel_default_updates_in_place() {
    let mut s = sys("f2fs");
    let id = s.create("data", 16 * MIB).unwrap();
    write_all(&mut s, id, 16 * MIB);
    s.sync().unwrap();
    s.set_trace(true);
    random_overwrites(&mut s, id, 16 * MIB, 500, 0, 9);
    let trace = s.set_trace(false);
    let addrs: std::collections::BTreeSet<u64> =
        trace.iter().filter(|r| r.purpose == Some(Purpose::Data)).map(|r| r.offset).collect();
    assert!(sequential_fraction(&trace) < 0.05, "small volume, FORCE: overwrites in place");
    assert!(addrs.len() > 400, "{} distinct places", addrs.len());
    // In place: the same overwrite twice lands on the same device offset; appended: on two.
    for (policy, small_in_place, big_in_place) in [("ipu_policy=16", true, false), ("ipu_policy=0", false, false)] {
        let mut s = sys(&format!("f2fs,{policy}"));
        let id = s.create("data", 16 * MIB).unwrap();
        write_all(&mut s, id, 16 * MIB);
        s.sync().unwrap();
        for (len, in_place) in [(4096, small_in_place), (MIB, big_in_place)] {
            let mut at = vec![];
            for _ in 0..2 {
                s.set_trace(true);
                s.io_now(id, Op::Write, 4 * MIB, len).unwrap();
                let t = s.set_trace(false);
                at.push(t.iter().find(|r| r.purpose == Some(Purpose::Data)).unwrap().offset);
            }
            assert_eq!(at[0] == at[1], in_place, "{policy}, {len} bytes: {at:?}");
        }
        s.fs().check().unwrap();
    }
}

#[test]
fn f2fs_fsync_writes_nodes_without_a_checkpoint() {
    for (spec, flushes) in [("f2fs", 1), ("f2fs,nobarrier", 0)] {
        let mut s = sys(spec);
        let id = s.create("db", MIB).unwrap();
        write_all(&mut s, id, MIB);
        s.sync().unwrap();
        let c0 = s.fs_counters();
        let c = s.io(s.now(), id, Op::Write, 8192, 4096).unwrap();
        s.fsync(c.done, id).unwrap();
        let d = s.fs_counters().since(&c0);
        assert_eq!(d.node_bytes, 4096, "{spec}: one inode node block: {d:?}");
        assert_eq!((d.checkpoints, d.metadata_bytes), (0, 0), "{spec}: {d:?}");
        assert_eq!(d.flushes_issued, flushes, "{spec}: {d:?}");
        assert_eq!(d.flushes_dropped, 1 - flushes, "{spec}: {d:?}");
        // A checkpoint follows at the background thread's first wake-up past the interval
        // (30 s after the idle starts; 300 s more after a wake-up that found nothing to clean).
        s.idle(400_000_000_000);
        let d = s.fs_counters().since(&c0);
        assert!(d.checkpoints >= 1 && d.metadata_bytes > 0, "{spec}: {d:?}");
    }
}

#[test]
fn delete_with_discard_trims_at_commit_or_checkpoint() {
    for spec in ["ext4,discard", "f2fs,discard"] {
        let mut s = sys(spec);
        let id = s.create("big", 32 * MIB).unwrap();
        write_all(&mut s, id, 32 * MIB);
        s.sync().unwrap();
        let t0 = s.device().counters().host_trim_bytes;
        s.delete("big").unwrap();
        assert_eq!(s.device().counters().host_trim_bytes, t0, "{spec}: trimmed before the commit");
        s.sync().unwrap();
        let trimmed = s.device().counters().host_trim_bytes - t0;
        assert!(trimmed >= 30 * MIB, "{spec}: {trimmed} bytes trimmed after delete + sync");
        s.fs().check().unwrap();
    }
}

#[test]
fn files_grow_when_written_past_the_end() {
    for spec in ["plain", "ext4", "f2fs"] {
        let mut s = sys(spec);
        let id = s.create("log", 0).unwrap();
        let free0 = s.fs().free_bytes();
        for i in 0..10 {
            s.io_now(id, Op::Write, i * 6000, 6000).unwrap();
        }
        assert_eq!(s.file_size(id), Some(60_000), "{spec}");
        assert!(s.fs().free_bytes() < free0, "{spec}");
        assert!(matches!(s.io(s.now(), id, Op::Read, 1 << 30, 4096), Err(SysError::Fs(FsError::BeyondEof { .. }))));
        s.fs().check().unwrap();
    }
}

#[test]
fn fsync_frequency_drives_filesystem_write_amplification() {
    let profile = Profile::from_toml("toy.toml", TOY).unwrap();
    let waf = |spec: &str, every: u64| {
        // A 1 ns clock tick: every overwrite moves mtime and dirties the inode, the case where
        // fsync frequency matters most (the default 4 ms jiffy spares most commits).
        let mut cfg = FsConfig::parse(spec).unwrap();
        cfg.timestamp_granularity_ns = 1;
        let r = overwrite_waf(&profile, cfg, 32 * MIB, 4000, every, 1).unwrap();
        eprintln!(
            "{spec:<8} fsync every {every:>2}: fs WAF {:.2}, device WAF {:.2}, {:.0} IOPS",
            r.fs_write_amplification, r.device_write_amplification, r.iops
        );
        r.fs_write_amplification
    };
    let (p1, e1, e16, f1, f16) = (waf("plain", 1), waf("ext4", 1), waf("ext4", 16), waf("f2fs", 1), waf("f2fs", 16));
    assert_eq!(p1, 1.0);
    // ext4: each fsync commits descriptor, inode (+ bitmap-free) block and commit block.
    assert!(e1 > 2.5 && e16 < e1 && e16 > 1.0, "ext4 {e1} {e16}");
    // F2FS: each fsync writes one node block.
    assert!(f1 > 1.8 && f16 < f1 && f16 > 1.0, "f2fs {f1} {f16}");
    assert!(f1 < e1, "a node block per fsync costs less than a journal commit: f2fs {f1}, ext4 {e1}");
}

/// The table in docs/filesystems.md: `cargo test --release -p flashlab-lab --test fs_models
/// -- --ignored --nocapture study_table`.
#[test]
#[ignore]
fn study_table() {
    let profile = Profile::from_toml("emmc-16g", flashlab_lab::profiles::builtin("emmc-16g").unwrap()).unwrap();
    println!("| filesystem | fsync every | fs WAF | device WAF | IOPS |");
    println!("|---|---|---|---|---|");
    for spec in ["plain", "ext4", "ext4,nobarrier", "f2fs", "f2fs,discard"] {
        for every in [1, 16] {
            let r = overwrite_waf(&profile, FsConfig::parse(spec).unwrap(), 1 << 30, 100_000, every, 1).unwrap();
            println!(
                "| {spec} | {every} | {:.2} | {:.2} | {:.0} |",
                r.fs_write_amplification, r.device_write_amplification, r.iops
            );
        }
    }
}

/// ext4 with a given file clock (as `validate-fs` gives it the kernel's coarse-clock readings):
/// an overwrite dirties the inode only when the clock value differs from the one the file's
/// last mtime update took, so the fsync after it commits; otherwise the fsync is a flush only.
/// A read of the timestamps (multigrain, Linux 6.13+) makes the next write dirty it anyway.
#[test]
fn ext4_fsync_commits_only_when_the_file_clock_moved() {
    let mut s = sys("ext4");
    let id = s.create("f", 4 * MIB).unwrap();
    write_all(&mut s, id, 4 * MIB);
    s.sync().unwrap();
    let overwrite_fsync = |s: &mut SimSystem, clock: u64| {
        s.set_file_clock(Some(clock));
        let c0 = s.fs_counters();
        s.io_now(id, Op::Write, 8192, 4096).unwrap();
        s.fsync_now(id).unwrap();
        s.set_file_clock(None);
        s.fs_counters().since(&c0).commits
    };
    assert_eq!(overwrite_fsync(&mut s, 1_000_000), 1, "a new clock value moves the mtime");
    assert_eq!(overwrite_fsync(&mut s, 1_000_000), 0, "the same value: nothing to commit");
    assert_eq!(overwrite_fsync(&mut s, 1_000_000), 0);
    assert_eq!(overwrite_fsync(&mut s, 5_000_000), 1, "the clock ticked");
    s.stat("f");
    assert_eq!(overwrite_fsync(&mut s, 5_000_000), 1, "timestamps read: a fine-grained time");
    assert_eq!(overwrite_fsync(&mut s, 5_000_000), 0);
}
