//! The fill driver: fio's semantics (each block once with the random map, the overwrite=1
//! layout, norandommap), the latency of a write until durable, the shared-storage layer's cost,
//! barriers, and the trim policy acting between fill sessions.

use flashlab_lab::experiments::fill::{run_fill, run_phone_procedure, FillSpec, Layout};
use flashlab_lab::precondition::{self, Precondition};
use flashlab_lab::profiles::builtin;
use flashlab_lab::stack::{LayerCost, TrimPolicy, DAY, HOUR};
use flashlab_lab::system::SimSystem;
use flashlab_simfs::{FileId, FsConfig};
use flashsim::{Op, Profile};

fn profile(name: &str) -> Profile {
    Profile::from_toml(name, builtin(name).unwrap()).unwrap()
}

fn sys(name: &str, fs: &str) -> SimSystem {
    SimSystem::with_fs(&profile(name), 1, FsConfig::parse(fs).unwrap())
}

/// A used device: every logical block written once through the raw device and never trimmed
/// (what a filesystem that deleted its files without discard leaves behind).
fn used(mut s: SimSystem) -> SimSystem {
    let cap = s.device().logical_bytes();
    let mut t = s.now();
    for off in (0..cap).step_by(1 << 20) {
        t = s.io(t, FileId::RAW, Op::Write, off, (1 << 20).min(cap - off)).unwrap().done;
    }
    s.advance_to(t);
    s.sync().unwrap();
    s
}

#[test]
fn the_random_map_writes_each_block_once_and_norandommap_does_not() {
    let mut s = sys("toy", "plain");
    let f = run_fill(&mut s, &FillSpec::new(1, 3), |_| {}).unwrap();
    let c = s.device().counters();
    assert_eq!(c.host_write_bytes, f.bytes, "fallocated file: only the random pass writes");
    assert_eq!(f.deciles.len(), 10);
    assert_eq!(f.deciles.iter().map(|d| d.writes).sum::<u64>(), f.bytes / 4096);
    assert_eq!(s.device().state().valid_units, f.bytes / 4096, "every block of the file written once");

    let mut s = sys("toy", "plain");
    let mut spec = FillSpec::new(1, 3);
    spec.random_map = false;
    let f = run_fill(&mut s, &spec, |_| {}).unwrap();
    let written = s.device().counters().host_write_bytes / 4096;
    let distinct = s.device().state().valid_units;
    assert_eq!(written, f.bytes / 4096, "same number of writes");
    // Uniform draws with replacement reach 1 - 1/e of the blocks: far from all of them.
    let frac = distinct as f64 / written as f64;
    assert!((0.60..0.66).contains(&frac), "distinct blocks {frac:.3} of the writes, expected ~0.632");
}

#[test]
fn the_overwrite_layout_writes_the_file_first() {
    let mut s = sys("toy", "plain");
    let mut spec = FillSpec::new(1, 3);
    spec.layout = Layout::Write;
    spec.leave_free = 64 << 20;
    let f = run_fill(&mut s, &spec, |_| {}).unwrap();
    assert_eq!(f.layout_bytes, f.bytes);
    assert_eq!(s.device().counters().host_write_bytes, 2 * f.bytes);
}

#[test]
fn a_write_with_fsync_lasts_until_durable_and_barriers_cost_a_buffer_drain() {
    // QD1, fsync after every write, on ext4: the recorded latency covers write + fsync.
    let run = |fs: &str| {
        let mut s = sys("toy", fs);
        let mut spec = FillSpec::new(1, 5);
        spec.fsync_every = 1;
        spec.leave_free = 160 << 20;
        let f = run_fill(&mut s, &spec, |_| {}).unwrap();
        (f, s.fs_counters())
    };
    let (with, cw) = run("ext4");
    let (without, cn) = run("ext4,nobarrier");
    let writes = with.deciles.iter().map(|d| d.writes).sum::<u64>();
    assert_eq!(writes, with.bytes / 4096);
    assert!(cw.flushes_issued >= writes, "a flush per fsync at least: {} for {writes}", cw.flushes_issued);
    assert_eq!(cn.flushes_issued, 0);
    assert!(cn.flushes_dropped >= writes);
    // Each flush programs the buffer's open page (a partial 8 KiB page here): at least one
    // tPROG (600 µs) per durable write with barriers, none without.
    let p50 = |f: &flashlab_lab::experiments::fill::FillResult| f.deciles[4].p50_us;
    assert!(p50(&with) >= p50(&without) + 600.0, "barrier p50 {} vs nobarrier {}", p50(&with), p50(&without));
}

#[test]
fn the_shared_storage_layer_adds_its_cost_to_every_request() {
    let layer = LayerCost { submit_ns: 30_000, complete_ns: 20_000 };
    let run = |layer: LayerCost| {
        let mut s = sys("toy", "plain");
        let mut spec = FillSpec::new(1, 9);
        spec.layer = layer;
        spec.leave_free = 160 << 20;
        run_fill(&mut s, &spec, |_| {}).unwrap()
    };
    let (a, b) = (run(LayerCost::ZERO), run(layer));
    // The typical write (into the device's buffer) pays exactly the layer's 50 µs more. (The
    // mean rises by less: the layer's time also lets the device drain its buffer between
    // requests, so fewer writes wait for it.)
    for (x, y) in a.deciles.iter().zip(&b.deciles) {
        let d = y.p50_us - x.p50_us;
        assert!((d - 50.0).abs() < 0.02 * y.p50_us, "p50 {} vs {}", y.p50_us, x.p50_us);
        assert!(y.mean_us > x.mean_us, "mean {} vs {}", y.mean_us, x.mean_us);
    }
}

#[test]
fn the_phone_procedure_tests_data_fills_shared_storage_and_tests_again() {
    let mut s = sys("toy", "ext4");
    let mut spec = FillSpec::new(1, 2);
    spec.fsync_every = 1;
    spec.layer = LayerCost { submit_ns: 10_000, complete_ns: 10_000 };
    let p = run_phone_procedure(&mut s, &spec, 16 << 20, |_, _| {}).unwrap();
    assert_eq!(p.before.writes, 4096);
    assert_eq!(p.after.writes, 4096);
    assert_eq!(p.fill.deciles.len(), 10);
    assert!(s.fs().free_bytes() < 4 << 20, "the fill took the free space: {} left", s.fs().free_bytes());
    // The device is full after the fill: the same test cannot be faster than before.
    assert!(p.after.mean_us >= p.before.mean_us, "{} vs {}", p.after.mean_us, p.before.mean_us);
}

/// What a fill costs depends on what the device holds. On a fresh device a fill writes each
/// block once and garbage collection has nothing to do. On a used device (every block written
/// once, never trimmed) each fill write makes one stale page invalid; the blocks GC must clean
/// early in the fill still hold mostly stale-but-valid data, so the first tenths cost the most
/// and the cost falls as the fill overwrites the stale data (issue 17, acceptance 3: docs/fill.md
/// explains why: the rise comes from a device that has been lived in, next tests).
#[test]
fn a_used_device_pays_for_its_stale_data_early_in_the_fill() {
    let fresh = run_fill(&mut sys("toy", "plain"), &FillSpec::new(1, 4), |_| {}).unwrap();
    assert!(fresh.deciles.iter().all(|d| d.write_amplification < 1.05), "fresh: no GC");
    let used = run_fill(&mut used(sys("toy", "plain")), &FillSpec::new(1, 4), |_| {}).unwrap();
    let waf: Vec<f64> = used.deciles.iter().map(|d| d.write_amplification).collect();
    let peak = waf.iter().cloned().fold(0.0, f64::max);
    assert!(peak > 2.0, "used: GC copies stale data: {waf:?}");
    assert!(waf[9] < 0.8 * peak, "the cost falls once the stale data is overwritten: {waf:?}");
    assert!(used.deciles[9].mean_us < used.deciles[1].mean_us);
}

/// With a trim policy that runs between fill sessions, fstrim tells the used device that the
/// space the later sessions will fill is free, and GC stops copying it.
#[test]
fn fstrim_between_sessions_saves_gc_work_on_a_used_device() {
    let run = |trim: TrimPolicy| {
        let mut s = used(sys("toy", "plain"));
        let before = s.device().counters();
        let mut spec = FillSpec::new(1, 4);
        spec.sessions = 10;
        spec.gap_ns = DAY;
        spec.trim = trim;
        let f = run_fill(&mut s, &spec, |_| {}).unwrap();
        (f, s.device().counters().since(&before))
    };
    let (none, cn) = run(TrimPolicy::None);
    let (daily, cd) = run(TrimPolicy::Fstrim { interval_ns: DAY });
    let (android, _) = run(TrimPolicy::Android);
    assert!(none.fstrims.is_empty());
    assert_eq!(daily.fstrims.len(), 9, "one fstrim in each of the nine day-long gaps");
    assert_eq!(android.fstrims.len(), 9);
    assert!(daily.fstrims[0].bytes > daily.fstrims[8].bytes, "less to trim as the fill goes on");
    assert!(
        cd.nand_units_programmed < cn.nand_units_programmed,
        "NAND programs with daily fstrim {} vs none {}",
        cd.nand_units_programmed,
        cn.nand_units_programmed
    );
    let _ = HOUR;
}

/// A fill of a device that has been lived in ([`Precondition::Lived`]: the owner's files
/// written until the filesystem was full, half deleted, the trim policy applied) on toy, plain
/// filesystem, QD1: the p99 of each tenth.
fn lived_fill(fstrim: bool) -> Vec<f64> {
    let (mut s, pre) = precondition::system_with_trim(
        &profile("toy"),
        1,
        FsConfig::parse("plain").unwrap(),
        Precondition::Lived,
        fstrim,
    )
    .unwrap();
    let l = pre.lived.unwrap();
    assert!(l.files_kept > 0 && l.files_kept < l.files_written);
    assert_eq!(l.fstrim_bytes > 0, fstrim);
    let f = run_fill(&mut s, &FillSpec::new(1, 4), |_| {}).unwrap();
    assert_eq!(f.deciles.len(), 10);
    f.deciles.iter().map(|d| d.p99_us).collect()
}

/// The first tenth whose p99 is at least twice the first tenth's.
fn rise(p99: &[f64]) -> Option<usize> {
    p99.iter().position(|&p| p >= 2.0 * p99[0])
}

/// Issue 17, acceptance 3: a fill on a used device gets slower as it goes, in the p99. The
/// device's erase blocks hold the kept files' data mixed with the deleted ones'; the fill
/// first takes the free blocks, then garbage collection cleans the emptiest blocks, then
/// fuller and fuller ones, and the per-request copy work rises (docs/fill.md). Untrimmed
/// (no trim policy, the generic eMMC profiles' default) and trimmed alike.
#[test]
fn a_lived_in_device_gets_slower_through_the_fill() {
    for fstrim in [false, true] {
        let p99 = lived_fill(fstrim);
        assert!(p99[9] >= 2.0 * p99[0], "fstrim {fstrim}: last tenth's p99 vs first: {p99:?}");
    }
}

/// Issue 17, acceptance 3: from a fresh device, the owner's deletions are the stale data a
/// fill runs into; with a periodic fstrim (daily, Android's idle maintenance) since them, the
/// device knows that space is free and the rise comes later in the fill than without.
#[test]
fn fstrim_after_the_deletions_delays_the_rise() {
    let none = lived_fill(false);
    let daily = lived_fill(true);
    let (rn, rd) = (rise(&none), rise(&daily));
    assert!(rn.is_some(), "no trim: the p99 rises: {none:?}");
    assert!(
        rd.is_none_or(|d| d > rn.unwrap()),
        "rise at tenth {rd:?} with fstrim vs {rn:?} without: {daily:?} vs {none:?}"
    );
}
