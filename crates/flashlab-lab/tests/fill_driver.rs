//! The fill driver: fio's semantics (each block once with the random map, the overwrite=1
//! layout, norandommap), the latency of a write until durable, the shared-storage layer's cost,
//! barriers, and the trim policy acting between fill sessions.

use flashlab_lab::experiments::fill::{run_fill, run_phone_procedure, FillSpec, Layout};
use flashlab_lab::fs::{FileId, FsConfig};
use flashlab_lab::profiles::builtin;
use flashlab_lab::stack::{LayerCost, TrimPolicy, DAY, HOUR};
use flashlab_lab::system::SimSystem;
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
    let cap = s.dev.logical_bytes();
    let mut t = s.now;
    for off in (0..cap).step_by(1 << 20) {
        t = s.io(t, FileId::RAW, Op::Write, off, (1 << 20).min(cap - off)).unwrap().done;
    }
    s.now = t;
    s.sync().unwrap();
    s
}

#[test]
fn the_random_map_writes_each_block_once_and_norandommap_does_not() {
    let mut s = sys("toy", "plain");
    let f = run_fill(&mut s, &FillSpec::new(1, 3), |_| {}).unwrap();
    let c = s.dev.counters();
    assert_eq!(c.host_write_bytes, f.bytes, "fallocated file: only the random pass writes");
    assert_eq!(f.deciles.len(), 10);
    assert_eq!(f.deciles.iter().map(|d| d.writes).sum::<u64>(), f.bytes / 4096);
    assert_eq!(s.dev.state().valid_units, f.bytes / 4096, "every block of the file written once");

    let mut s = sys("toy", "plain");
    let mut spec = FillSpec::new(1, 3);
    spec.random_map = false;
    let f = run_fill(&mut s, &spec, |_| {}).unwrap();
    let written = s.dev.counters().host_write_bytes / 4096;
    let distinct = s.dev.state().valid_units;
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
    assert_eq!(s.dev.counters().host_write_bytes, 2 * f.bytes);
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
    assert!(s.fs.free_bytes() < 4 << 20, "the fill took the free space: {} left", s.fs.free_bytes());
    // The device is full after the fill: the same test cannot be faster than before.
    assert!(p.after.mean_us >= p.before.mean_us, "{} vs {}", p.after.mean_us, p.before.mean_us);
}

/// Acceptance 3, second part: with daily fstrim between fill sessions the device learns what
/// the filesystem does not use, and the latency rise comes later than without.
#[test]
fn daily_fstrim_between_sessions_delays_the_rise() {
    let run = |trim: TrimPolicy| {
        let mut s = used(sys("toy", "plain"));
        let mut spec = FillSpec::new(1, 4);
        spec.sessions = 10;
        spec.gap_ns = DAY;
        spec.trim = trim;
        run_fill(&mut s, &spec, |_| {}).unwrap()
    };
    let none = run(TrimPolicy::None);
    let daily = run(TrimPolicy::Fstrim { interval_ns: DAY });
    assert!(none.fstrims.is_empty());
    assert!(!daily.fstrims.is_empty() && daily.fstrims[0].bytes > 0);
    let first_slow = |f: &flashlab_lab::experiments::fill::FillResult| {
        let base = f.deciles[0].p99_us.min(daily.deciles[0].p99_us);
        f.deciles.iter().position(|d| d.p99_us >= 2.0 * base).unwrap_or(f.deciles.len())
    };
    let (a, b) = (first_slow(&none), first_slow(&daily));
    let p99s = |f: &flashlab_lab::experiments::fill::FillResult| {
        f.deciles.iter().map(|d| format!("{:.0}/{:.0}/{:.2}", d.p99_us, d.mean_us, d.write_amplification)).collect::<Vec<_>>().join(" ")
    };
    assert!(b > a, "rise without trim at tenth {a} ({}), with daily fstrim at tenth {b} ({}); fstrims {:?}", p99s(&none), p99s(&daily), daily.fstrims);
    let _ = HOUR;
}

#[test]
#[ignore]
fn print_used_emmc() {
    for (fs, layout) in [("plain", Layout::Allocate), ("plain", Layout::Write), ("ext4", Layout::Allocate)] {
        let mut s = used(sys("emmc-5.1", fs));
        let mut spec = FillSpec::new(1, 1);
        spec.layout = layout;
        let f = run_fill(&mut s, &spec, |_| {}).unwrap();
        eprintln!("{fs} {layout:?}");
        for d in &f.deciles {
            eprintln!("  {:3} p50 {:8.1} p99 {:8.1} p99.9 {:9.1} max {:9.1} mean {:8.1} WAF {:.2}", d.filled_pct, d.p50_us, d.p99_us, d.p999_us, d.max_us, d.mean_us, d.write_amplification);
        }
    }
}
