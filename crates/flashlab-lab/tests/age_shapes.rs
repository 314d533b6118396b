//! The aging protocol's shapes on a small simulated device (issue 3, acceptance 2): without
//! TRIM, the device still holds every deleted block after the fill and after the delete, and
//! the writes of those rows are measured against the row after fstrim + idle (the recovered
//! state), not only against new, so "slowed" and "recovered" cannot be confused; fstrim + idle
//! brings them back; with online discard, deleting the fill data recovers at once. Same seed,
//! same table.

use flashlab_lab::fourcorner::{FourCorner, FourCornerConfig};
use flashlab_lab::protocol::{run_protocol, Protocol, ProtocolResult};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

const TOY: &str = flashsim::builtin::TOY;

fn run(discard: bool, seed: u64) -> ProtocolResult {
    run_fs(FsConfig::plain(discard), seed)
}

fn run_fs(fs: FsConfig, seed: u64) -> ProtocolResult {
    let mut profile = Profile::from_toml("toy.toml", TOY).unwrap();
    // A cheap part: little spare beyond what the filesystem shows.
    profile.ftl.spare_factor = 0.03;
    let mut sys = SimSystem::with_fs(&profile, seed, fs);
    // The built-in age protocol scaled to a 256 MiB device (16 MiB four-corner file).
    let proto = Protocol::builtin("age-small").unwrap();
    let fc = FourCornerConfig { seed, ..Default::default() };
    let r = run_protocol(&mut sys, &proto, &fc, |_, _, _, _| {}).unwrap();
    sys.device().check_invariants().unwrap();
    sys.fs().check().unwrap();
    r
}

fn row<'a>(r: &'a ProtocolResult, label: &str) -> &'a FourCorner {
    r.steps.iter().find(|s| s.label == label).unwrap_or_else(|| panic!("no row {label}"))
}

/// The fraction of the device's logical space that holds data as far as the device knows.
fn mapped(s: &FourCorner) -> f64 {
    let st = &s.device.as_ref().unwrap().state;
    st.valid_units as f64 / st.logical_units as f64
}

fn table(r: &ProtocolResult) -> String {
    r.steps
        .iter()
        .map(|s| {
            format!(
                "{:<22} sw {:>7.2} rw {:>7.2} sr {:>7.2} rr {:>7.2} WAF {:.2} fs WAF {:.2} mapped {:.3}\n",
                s.label,
                s.seq_write_mbs,
                s.rand_write_mbs,
                s.seq_read_mbs,
                s.rand_read_mbs,
                s.device.as_ref().unwrap().write_amplification,
                s.filesystem.as_ref().unwrap().write_amplification,
                mapped(s)
            )
        })
        .collect()
}

/// Without TRIM. The bounds, and where they come from:
/// - Mechanism (physics of an FTL that is never told about deletes): the fill leaves 48 MiB
///   of the filesystem free and the random writes cover all of it but 20 MiB, so the device
///   maps at least 1 - 20 MiB / (its ~230 MiB) > 0.9 of its logical space in every row until
///   fstrim, and deleting files changes nothing it can see; after fstrim only the 16 MiB
///   benchmark file (and metadata) is left mapped, under 0.1.
/// - The first run after the fill and the run after the delete must be slowed against the
///   recovered row (after fstrim + idle), random and sequential writes below 0.6 of it. The
///   published first run (reference §1) is at 0.30 (random) and 0.11 (sequential) of the row
///   after fstrim; this device is page-mapped with spare, not the Nexus 7's hybrid FTL, and
///   pays less, so the bound asks for a marked slowdown (40 %), not the published depth.
/// - Runs 2 and 3 after the fill: the benchmark's own random writes have meanwhile rewritten
///   its 16 MiB file (4 MiB per run) and garbage collection has packed the other data away, so
///   this device recovers partly; what is asserted is the direction (never slower than the
///   first run, never faster than recovered) and, for the sequential writes of the second
///   run, that it is still slowed (below 0.9 of recovered): the cold data GC moves out of the
///   way is still copied.
/// - Recovered: after fstrim + idle the device again has its free blocks, so writes are within
///   15 % of new (the file now sits where the filesystem put it after the fill, not where it
///   sat on the new device, which is the difference left).
#[test]
fn untrimmed_fill_slows_writes_and_fstrim_recovers() {
    let r = run(false, 1);
    let t = table(&r);
    eprintln!("{t}");
    let new = row(&r, "new");
    let back = row(&r, "after fstrim + idle");
    for label in ["after fill 1", "after fill 2", "after fill 3", "after delete"] {
        assert!(mapped(row(&r, label)) > 0.9, "{label}: the device does not hold the untrimmed data\n{t}");
    }
    assert!(mapped(back) < 0.1, "fstrim did not unmap the deleted data\n{t}");
    for label in ["after fill 1", "after delete"] {
        let s = row(&r, label);
        assert!(
            s.rand_write_mbs < 0.6 * back.rand_write_mbs,
            "{label}: random writes not slowed against recovered\n{t}"
        );
        assert!(
            s.seq_write_mbs < 0.6 * back.seq_write_mbs,
            "{label}: sequential writes not slowed against recovered\n{t}"
        );
    }
    let first = row(&r, "after fill 1");
    for label in ["after fill 2", "after fill 3"] {
        let s = row(&r, label);
        for (what, got, lo, hi) in [
            ("random", s.rand_write_mbs, first.rand_write_mbs, back.rand_write_mbs),
            ("sequential", s.seq_write_mbs, first.seq_write_mbs, back.seq_write_mbs),
        ] {
            assert!(
                got >= 0.95 * lo && got <= 1.02 * hi,
                "{label}: {what} writes {got:.2} outside [first run, recovered]\n{t}"
            );
        }
    }
    let second = row(&r, "after fill 2");
    assert!(second.seq_write_mbs < 0.9 * back.seq_write_mbs, "after fill 2: sequential writes already recovered\n{t}");
    assert!(back.rand_write_mbs >= 0.85 * new.rand_write_mbs, "random writes did not recover after fstrim\n{t}");
    assert!(back.seq_write_mbs >= 0.85 * new.seq_write_mbs, "sequential writes did not recover after fstrim\n{t}");
}

#[test]
fn online_discard_recovers_at_delete() {
    let r = run(true, 1);
    let t = table(&r);
    eprintln!("{t}");
    let new = row(&r, "new");
    let del = row(&r, "after delete");
    assert!(del.rand_write_mbs >= 0.85 * new.rand_write_mbs, "discard did not recover random writes at delete\n{t}");
    assert!(del.seq_write_mbs >= 0.85 * new.seq_write_mbs, "discard did not recover sequential writes at delete\n{t}");
}

#[test]
fn same_seed_same_table() {
    let a = serde_json::to_string(&run(false, 7).steps).unwrap();
    let b = serde_json::to_string(&run(false, 7).steps).unwrap();
    assert_eq!(a, b);
}

/// Device GC copies during each row: (label, copies, random write MB/s).
fn device_gc_by_row(r: &ProtocolResult) -> Vec<(String, u64, f64)> {
    let mut prev = flashsim::Counters::default();
    r.steps
        .iter()
        .map(|s| {
            let c = s.device.as_ref().unwrap().counters;
            let copies = c.since(&prev).gc_units_copied;
            prev = c;
            (s.label.clone(), copies, s.rand_write_mbs)
        })
        .collect()
}

/// F2FS with discard against ext4 without, on the same device: F2FS's random writes reach the
/// device sequentially and its cleaned segments are trimmed, so the device's own GC stays
/// near idle after the fill, while ext4 overwrites in place on a device that still holds
/// deleted data. What the application sees is reported, not asserted: nearly full, F2FS pays
/// its own segment cleaning and slack-space recycling (docs/filesystems.md has the numbers).
#[test]
fn f2fs_with_discard_keeps_the_device_closer_to_new_than_ext4_without() {
    let f2fs = run_fs(FsConfig::parse("f2fs,discard").unwrap(), 1);
    let ext4 = run_fs(FsConfig::parse("ext4").unwrap(), 1);
    let (tf, te) = (table(&f2fs), table(&ext4));
    eprintln!("f2fs,discard:\n{tf}ext4:\n{te}");
    let (gf, ge) = (device_gc_by_row(&f2fs), device_gc_by_row(&ext4));
    for (f, e) in gf.iter().zip(&ge) {
        eprintln!(
            "{:<20} device GC copies f2fs,discard {:>6} ext4 {:>6}; random write MB/s f2fs,discard {:>6.2} ext4 {:>6.2}",
            f.0, f.1, e.1, f.2, e.2
        );
    }
    let after_fill =
        |g: &[(String, u64, f64)]| -> u64 { g.iter().filter(|r| r.0.starts_with("after fill")).map(|r| r.1).sum() };
    let (cf, ce) = (after_fill(&gf), after_fill(&ge));
    let lfs = run_fs(FsConfig::parse("f2fs,discard,mode=lfs").unwrap(), 1);
    let cl = after_fill(&device_gc_by_row(&lfs));
    eprintln!("device GC copies after the fill: f2fs,discard {cf}, f2fs,discard,mode=lfs {cl}, ext4 {ce}");
    assert!(ce > 0, "ext4 without discard made the device collect no garbage after the fill\n{te}");
    // The mechanism: F2FS writes its data segments sequentially and, with discard, trims each
    // one whole once it is cleaned or freed, so the device is rarely asked to keep valid and
    // stale data in one block. Two things still make it copy: F2FS's metadata areas
    // (checkpoint, SIT, NAT), rewritten in place, and slack-space recycling (the default;
    // mode=lfs turns it off), whose writes into the holes of used segments the device sees as
    // overwrites of data it still maps. So without SSR the device copies less than with it
    // (119 against 1139 here), and with it far less than under ext4's overwrites in place.
    assert!(cl < cf, "f2fs,discard,mode=lfs device copies {cl} not below f2fs,discard's {cf}");
    // "Far below": 5x was the bound before 102bb31 relaxed it to 3x without a stated reason;
    // the SSR model added there gave 5.7x (1082 against 6195, docs/filesystems.md). Two
    // mechanisms changed together since, and the bound is 4x because of them: GC now runs
    // paced per host command, starting when a die is down to its last spare block (issue 17
    // part 1), and ext4's data is placed by the mballoc model (issue 16 part 2). Measured
    // after both: 1297 against 5848 copies, 4.5x. A change that brings F2FS's device copies
    // within a quarter of ext4's is a change of mechanism that must say so.
    assert!(4 * cf < ce, "f2fs,discard device GC copies after fill {cf} not far below ext4's {ce}\n{tf}{te}");
    let waf = |r: &ProtocolResult| row(r, "after fill 3").device.as_ref().unwrap().write_amplification;
    assert!(waf(&f2fs) < 1.02, "f2fs,discard device WAF {:.3}\n{tf}", waf(&f2fs));
    assert!(waf(&f2fs) < waf(&ext4), "device WAF f2fs,discard {:.3} vs ext4 {:.3}", waf(&f2fs), waf(&ext4));
}
