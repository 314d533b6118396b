//! Acceptance of issue 16 on the kernel's ext4 (root, loop devices and tracefs needed; CI
//! runs as root): `validate-fs` on small images with the default mount —
//! 1. bytes per class within 15 % and requests within 25 %, model vs kernel, for fill,
//!    randwrite-fsync and the four SQLite journal modes;
//! 2. per SQLite commit, flushes and bytes written within 15 %;
//! 3. after the `age` protocol's fill steps, the free-extent histogram and the fraction of
//!    mixed 4 MiB windows within 20 %.
//!
//! Without a capability the test fails naming it, unless FLASHLAB_TEST_SKIP names it (or
//! `all`): then it prints `SKIPPED <test>: <why>`.

use flashlab_validate::options::{Mount, Options, Workload};
use flashlab_validate::report::Report;
use flashlab_validate::Error;

fn skip_listed(cap: &str) -> bool {
    std::env::var("FLASHLAB_TEST_SKIP")
        .map(|v| v.split(',').map(str::trim).any(|c| c == cap || c == "all"))
        .unwrap_or(false)
}

/// One kernel-side run at a time: runs sharing two cores slow each other, and a slow kernel
/// merges more requests in its waiting queue. (How often ext4's fsync commits also depends on
/// how fast the kernel runs, but the model takes that from the kernel's clock readings.)
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Run `workload`, or `None` when a missing capability is listed in FLASHLAB_TEST_SKIP.
fn run(test: &str, workload: &str, tweak: impl FnOnce(&mut Options)) -> Option<Report> {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut o = Options::new(Workload::parse(workload).unwrap(), Mount::Default);
    tweak(&mut o);
    match flashlab_validate::run(&o) {
        Ok(r) => {
            print!("{}", r.render_text());
            Some(r)
        }
        Err(e) => match e.missing_capability() {
            Some(cap) if skip_listed(cap) => {
                println!("SKIPPED {test}: {e}");
                None
            }
            Some(cap) => panic!("{test}: missing capability '{cap}': {e} (set FLASHLAB_TEST_SKIP={cap} to skip)"),
            None => panic!("{test}: {e}"),
        },
    }
}

/// Acceptance 1: every class that carries the traffic within `bytes_tol` in bytes and
/// `req_tol` in requests ([`Report::class_errors`]: smaller classes — the few metadata blocks a
/// final sync writes home — are shown, not held to a percentage; reads are not compared).
fn check_classes(r: &Report, bytes_tol: f64, req_tol: f64) {
    let e = r.class_errors(bytes_tol, req_tol);
    assert!(e.is_empty(), "{}", e.join("\n"));
}

/// Acceptance 2: per commit, flushes and bytes written within 15 %.
fn check_per_commit(r: &Report, bytes_tol: f64) {
    let p = r.per_commit.as_ref().expect("SQLite runs report per-commit numbers");
    let rel = |m: f64, k: f64| (m - k).abs() / k;
    assert!(
        rel(p.model_flushes, p.kernel_flushes) <= 0.15,
        "{}: flushes per commit model {:.2} kernel {:.2}",
        r.workload,
        p.model_flushes,
        p.kernel_flushes
    );
    assert!(
        rel(p.model_write_bytes, p.kernel_write_bytes) <= bytes_tol,
        "{}: bytes per commit model {:.0} kernel {:.0}",
        r.workload,
        p.model_write_bytes,
        p.kernel_write_bytes
    );
}

#[test]
fn fill_matches_the_kernel() {
    let Some(r) = run("fill_matches_the_kernel", "fill", |o| o.image_bytes = 64 << 20) else { return };
    check_classes(&r, 0.15, 0.25);
    let p = r.placement.as_ref().expect("fill reports placement");
    assert!(p.files > 0 && p.same_extents * 10 >= p.files * 9, "FIEMAP vs model: {p:?}");
}

/// Acceptance 1 for 4 KiB overwrites with an fsync after each. Whether an fsync commits the
/// journal depends on the pace: it commits only when the write before it moved the file's
/// mtime, i.e. when the kernel's coarse clock (one jiffy) had moved since the file's last
/// update. The kernel run reads that clock before every write and the model takes its
/// timestamps from those values, so the comparison holds however fast or slowly (loaded) the
/// kernel ran: no retry is needed.
#[test]
fn randwrite_fsync_matches_the_kernel() {
    let Some(r) = run("randwrite_fsync_matches_the_kernel", "randwrite-fsync", |o| {
        o.image_bytes = 64 << 20;
        o.writes = 300;
    }) else {
        return;
    };
    check_classes(&r, 0.15, 0.25);
}

/// The mechanism on its own: with two ticks of sleep after each fsync every write moves the
/// mtime, so on both sides every fsync commits. A commit here is two journal writes (the
/// descriptor with the inode-table block, then the commit block) and two flushes, where an
/// fsync that finds nothing to commit sends one flush and no journal write: quiet unpaced
/// runs measured 24 journal writes and 413 flushes for 400 fsyncs.
#[test]
fn randwrite_fsync_commits_on_every_fsync_when_paced_past_a_tick() {
    let tick = flashlab_validate::clock::coarse_tick_ns();
    let writes = 60;
    let Some(r) = run("randwrite_fsync_commits_on_every_fsync_when_paced_past_a_tick", "randwrite-fsync", |o| {
        o.image_bytes = 64 << 20;
        o.writes = writes;
        o.pause_ns = 2 * tick;
    }) else {
        return;
    };
    check_classes(&r, 0.15, 0.25);
    let class = |name| r.classes.iter().find(|c| c.class == name).expect("a journal and a flush class");
    let (journal, flush) = (class("journal"), class("flush"));
    for (side, j, f) in [
        ("kernel", journal.kernel_requests, flush.kernel_requests),
        ("model", journal.model_requests, flush.model_requests),
    ] {
        assert!(
            j >= 2 * writes && f >= 2 * writes,
            "{side}: {j} journal writes and {f} flushes for {writes} paced fsyncs: some fsync did not commit"
        );
    }
}

/// The kernel side is measured up to three times and the workload passes when one measurement
/// meets every bound: the block layer merges more of SQLite's data writes while the queue
/// waits, so under load the kernel's data requests drop (a suite run beside other tests
/// measured persist's data requests at 358 against the model's 480, +34 %, where quiet runs
/// agree exactly). A fresh image and a new run is a fresh measurement; the model side is
/// deterministic given the kernel's clock readings. Three misses in a row fail.
fn sqlite(test: &str, workload: &str) {
    for attempt in 1..=3 {
        match std::panic::catch_unwind(|| sqlite_once(test, workload)) {
            Ok(()) => return,
            Err(e) if attempt == 3 => std::panic::resume_unwind(e),
            Err(_) => eprintln!("{test}: kernel measurement {attempt} out of bounds; measuring again"),
        }
    }
}

fn sqlite_once(test: &str, workload: &str) {
    let Some(r) = run(test, workload, |o| {
        o.image_bytes = 64 << 20;
        o.transactions = 60;
    }) else {
        return;
    };
    // jbd2's commits follow the file timestamps, which the model takes from the kernel's own
    // clock readings (the recording VFS), so the kernel's pace no longer moves the commit
    // count; the retry above is for the block layer's merging. The journal's bytes agree
    // block for block since the model logs the superblock where the kernel does (the orphan
    // list on delete and truncate, the mount point at the first open) and the kernel side
    // keeps SQLite on one CPU (a thread moved between CPUs takes a growing file's blocks from
    // two per-CPU windows, and the extent leaf it then needs is logged in every commit: +16 %
    // on sqlite-wal in a loaded CI run, before the pinning).
    check_classes(&r, 0.15, 0.25);
    check_per_commit(&r, 0.15);
}

#[test]
fn sqlite_delete_matches_the_kernel() {
    sqlite("sqlite_delete_matches_the_kernel", "sqlite-delete");
}

#[test]
fn sqlite_truncate_matches_the_kernel() {
    sqlite("sqlite_truncate_matches_the_kernel", "sqlite-truncate");
}

#[test]
fn sqlite_persist_matches_the_kernel() {
    sqlite("sqlite_persist_matches_the_kernel", "sqlite-persist");
}

#[test]
fn sqlite_wal_matches_the_kernel() {
    sqlite("sqlite_wal_matches_the_kernel", "sqlite-wal");
}

/// Acceptance 3: after the age protocol's fill steps, the free-extent histogram and the
/// fraction of mixed 4 MiB windows within 20 % of the kernel's. The histogram is compared as
/// a whole: the bins' absolute differences add up to at most 20 % of the kernel's extents.
#[test]
fn age_fill_free_space_matches_the_kernel() {
    let Some(r) = run("age_fill_free_space_matches_the_kernel", "age-fill", |o| o.image_bytes = 128 << 20) else {
        return;
    };
    let f = r.free_space.as_ref().expect("age-fill reports the free map");
    assert!(f.kernel.extents >= 20, "the fill should leave holes: {:?}", f.kernel);
    assert!(f.histogram_distance <= 0.20, "free-extent histograms differ by {:.2}: {f:?}", f.histogram_distance);
    let e = f.mixed_window_error.expect("the kernel has mixed windows").abs();
    assert!(
        e <= 0.20,
        "mixed 4 MiB windows: model {:.3} kernel {:.3}",
        f.model.mixed_window_fraction,
        f.kernel.mixed_window_fraction
    );
    let rel = (f.model.free_bytes as f64 - f.kernel.free_bytes as f64).abs() / f.kernel.free_bytes as f64;
    assert!(rel <= 0.05, "free bytes model {} kernel {}", f.model.free_bytes, f.kernel.free_bytes);
}

/// The JSON holds the fields checks use.
#[test]
fn json_has_the_class_fields() {
    let Some(r) = run("json_has_the_class_fields", "sqlite-wal", |o| {
        o.image_bytes = 64 << 20;
        o.transactions = 10;
    }) else {
        return;
    };
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let classes = v["classes"].as_array().expect("a list 'classes'");
    assert!(!classes.is_empty());
    for c in classes {
        for k in ["class", "model_bytes", "kernel_bytes", "model_requests", "kernel_requests"] {
            assert!(c.get(k).is_some(), "class entry without '{k}': {c}");
        }
    }
    assert!(classes.iter().any(|c| c["class"] == "journal" && c["kernel_bytes"].as_u64().unwrap() > 0));
}

#[test]
fn missing_root_or_bad_options_say_so() {
    let mut o = Options::new(Workload::Fill, Mount::Default);
    o.fill_percent = 0;
    let e = flashlab_validate::run(&o).unwrap_err().to_string();
    assert!(e.contains("--fill"), "{e}");
    let m = Error::Missing { capability: "root", msg: "x".into() };
    assert_eq!(m.missing_capability(), Some("root"));
    assert!(m.to_string().starts_with("needs root"), "{m}");
}
