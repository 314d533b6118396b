//! The runner on a file in a temporary directory, with both engines.

mod common;

use common::{uring_ok, TempDir};
use flashlab_jobs::Rw;
use flashlab_real::buffers::DataPattern;
use flashlab_real::engine::{choose_engine, EngineKind};
use flashlab_real::runner::{open_file, run_job, RealJob};
use flashlab_real::RealError;
use std::time::Duration;

const MIB: u64 = 1 << 20;

fn job(name: &str, rw: Rw, bs: u64, span: u64, engine: EngineKind, qd: u32) -> RealJob {
    let mut j = RealJob::new(name, rw, bs, span);
    j.engine = engine;
    j.settings.iodepth = qd;
    j
}

/// Lay out an 8 MiB file, then 2 MiB of 4 KiB random writes and random reads.
fn randwrite_read(engine: EngineKind, qd: u32) {
    let d = TempDir::new(engine.name());
    let path = d.path().join("f");
    let f = open_file(&path, true, true).unwrap();
    let mut w = job("layout", Rw::Write, MIB, 8 * MIB, engine, qd);
    w.settings.end_fsync = true;
    let r = run_job(&path, &f, &w, &mut |_| {}).unwrap();
    assert_eq!(r.write.io_bytes, 8 * MIB);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 8 * MIB);

    let mut rw = job("randwrite", Rw::RandWrite, 4096, 8 * MIB, engine, qd);
    rw.settings.io_limit = Some(2 * MIB);
    let mut fracs = Vec::new();
    let r = run_job(&path, &f, &rw, &mut |x| fracs.push(x)).unwrap();
    assert_eq!(r.write.ios, 512);
    assert_eq!(r.write.io_bytes, 2 * MIB);
    assert_eq!(r.write.short_ios, 0);
    assert!(r.write.runtime_ns > 0 && r.read.runtime_ns == 0 && r.trim.runtime_ns == 0);
    assert!(r.read.is_idle());
    assert!(r.write.clat.percentile(50.0) > 0);
    assert!(r.write.clat.percentile(99.0) >= r.write.clat.percentile(50.0));
    assert!(r.write.iops() > 10.0, "iops {}", r.write.iops());
    assert!(!r.write.intervals.is_empty());
    assert_eq!(r.write.intervals.iter().map(|i| i.ios).sum::<u64>(), 512);
    assert_eq!(fracs.last(), Some(&1.0));
    assert_eq!(r.iodepth, Some(qd));

    let mut rr = job("randread", Rw::RandRead, 4096, 8 * MIB, engine, qd);
    rr.settings.io_limit = Some(2 * MIB);
    let r = run_job(&path, &f, &rr, &mut |_| {}).unwrap();
    assert_eq!((r.read.ios, r.read.io_bytes, r.read.short_ios), (512, 2 * MIB, 0));
    assert!(r.write.is_idle() && r.write.runtime_ns == 0 && r.read.runtime_ns > 0);
    let p50 = r.read.clat.percentile(50.0);
    assert!(p50 > 0 && p50 < 1_000_000_000, "p50 {p50}");
    eprintln!("{}: QD{qd} randread {:.0} IOPS, p50 {:.1} us", engine.name(), r.read.iops(), p50 as f64 / 1e3);
}

#[test]
fn psync_randwrite_and_randread() {
    randwrite_read(EngineKind::Psync, 1);
}

#[test]
fn io_uring_randwrite_and_randread() {
    if uring_ok("io_uring_randwrite_and_randread") {
        randwrite_read(EngineKind::IoUring, 8);
    }
}

#[test]
fn default_engine_choice_is_reported() {
    let (kind, note) = choose_engine(None).unwrap();
    eprintln!("default engine: {} ({})", kind.name(), note.as_deref().unwrap_or("io_uring probe ok"));
    assert_eq!(kind == EngineKind::Psync, note.is_some());
    // The default follows what the kernel allows (checked independently of flashlab's probe).
    let kernel_allows = flashlab_testcaps::Cap::IoUring.check();
    assert_eq!(kind == EngineKind::IoUring, kernel_allows.is_ok(), "{kernel_allows:?}");
    assert_eq!(choose_engine(Some("psync")).unwrap().0, EngineKind::Psync);
    let e = choose_engine(Some("libaio")).unwrap_err().to_string();
    assert!(e.contains("libaio") && e.contains("psync"), "{e}");
}

#[test]
fn fsync_every_n_mixed_and_buffered() {
    let engines: Vec<EngineKind> = if uring_ok("fsync_every_n_mixed_and_buffered") {
        vec![EngineKind::Psync, EngineKind::IoUring]
    } else {
        vec![EngineKind::Psync]
    };
    for engine in engines {
        for direct in [true, false] {
            let d = TempDir::new("fsync");
            let path = d.path().join("f");
            let f = open_file(&path, direct, true).unwrap();
            f.set_len(4 * MIB).unwrap();
            let mut j = job("mix", Rw::RandRw, 4096, 4 * MIB, engine, 4);
            j.direct = direct;
            j.settings.number_ios = Some(400);
            j.settings.io_limit = Some(64 * MIB);
            j.settings.fsync_every = 8;
            j.settings.fdatasync = direct;
            j.pattern = if direct { DataPattern::Random } else { DataPattern::Zeros };
            let r = run_job(&path, &f, &j, &mut |_| {}).unwrap();
            assert_eq!(r.read.ios + r.write.ios, 400, "{} direct={direct}", engine.name());
            assert!(r.read.ios > 100 && r.write.ios > 100);
            assert!(
                r.sync.total_ios >= r.write.ios / 8 - 1 && r.sync.total_ios <= r.write.ios / 8 + 1,
                "syncs {} for {} writes",
                r.sync.total_ios,
                r.write.ios
            );
            assert!(r.read.runtime_ns > 0 && r.write.runtime_ns > 0);
        }
    }
}

#[test]
fn time_based_with_ramp_keeps_to_its_runtime() {
    let d = TempDir::new("timed");
    let path = d.path().join("f");
    let f = open_file(&path, true, true).unwrap();
    f.set_len(4 * MIB).unwrap();
    let mut j = job("timed", Rw::RandWrite, 4096, 4 * MIB, EngineKind::Psync, 1);
    j.settings.runtime_ns = Some(300_000_000);
    j.settings.ramp_ns = 100_000_000;
    j.settings.time_based = true;
    j.settings.interval_ns = 100_000_000;
    let t0 = std::time::Instant::now();
    let r = run_job(&path, &f, &j, &mut |_| {}).unwrap();
    let wall = t0.elapsed();
    assert!(wall >= Duration::from_millis(400) && wall < Duration::from_secs(3), "{wall:?}");
    let rt = Duration::from_nanos(r.write.runtime_ns);
    assert!(rt >= Duration::from_millis(290) && rt < Duration::from_millis(800), "runtime {rt:?}");
    assert!(r.write.intervals.len() >= 3, "{} intervals", r.write.intervals.len());
    assert_eq!(r.write.intervals.iter().map(|i| i.ios).sum::<u64>(), r.write.ios);
    assert!(r.write.ios > 0);
}

#[test]
fn bad_jobs_get_clear_errors() {
    let d = TempDir::new("bad");
    let path = d.path().join("f");
    let f = open_file(&path, true, true).unwrap();
    let j = job("odd", Rw::RandRead, 1000, MIB, EngineKind::Psync, 1);
    let e = run_job(&path, &f, &j, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("512") && e.contains("--buffered"), "{e}");
    let j = job("trim", Rw::Trim, 4096, MIB, EngineKind::Psync, 1);
    assert!(matches!(run_job(&path, &f, &j, &mut |_| {}), Err(RealError::Unsupported(_))));
    let e = flashlab_real::runner::run_job_on_path(
        &d.path().join("missing"),
        &job("x", Rw::Read, 4096, MIB, EngineKind::Psync, 1),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("missing") && e.contains("open"), "{e}");
}

#[test]
fn a_fio_job_section_maps_onto_a_real_job() {
    let mut fj = flashlab_jobs::Job::new("w");
    fj.rw = Rw::RandRw;
    fj.rwmixread = 70;
    fj.bs_read = 8192;
    fj.bs_write = 16384;
    fj.iodepth = 16;
    fj.fdatasync = 4;
    fj.runtime_ns = Some(2_000_000_000);
    fj.time_based = true;
    fj.direct = true;
    let j = RealJob::from_fio(&fj, 4096, 8 * MIB, 9);
    assert_eq!(
        (
            j.settings.bs_read,
            j.settings.bs_write,
            j.settings.rwmixread,
            j.settings.iodepth,
            j.settings.fsync_every,
            j.settings.fdatasync
        ),
        (8192, 16384, 70, 16, 4, true)
    );
    assert_eq!(
        (j.settings.offset, j.settings.span, j.settings.seed, j.direct, j.settings.time_based),
        (4096, 8 * MIB, 9, true, true)
    );
    assert_eq!(j.settings.runtime_ns, Some(2_000_000_000));
}

/// fio's `iodepth_batch_submit`: by default (1) each I/O is submitted by its own call, as fio
/// does, so a QD8 job's submit calls all carry one I/O; with 0 (= iodepth) the first call
/// carries all eight; with 4, at most four.
#[test]
fn submit_batches_follow_iodepth_batch() {
    if !uring_ok("submit_batches_follow_iodepth_batch") {
        return;
    }
    let (_d, path, f) = laid_out("batch");
    let run = |batch: u32| {
        let mut fj = flashlab_jobs::Job::new("rr");
        fj.rw = Rw::RandRead;
        fj.bs_read = 4096;
        fj.iodepth = 8;
        fj.direct = true;
        fj.iodepth_batch = batch;
        let mut j = RealJob::from_fio(&fj, 0, 4 * MIB, 1);
        j.engine = EngineKind::IoUring;
        j.settings.io_limit = Some(MIB);
        run_job(&path, &f, &j, &mut |_| {}).unwrap()
    };
    let one = run(1);
    assert_eq!(one.read.ios, 256);
    // Submit-call sizes in fio's buckets 0, 1-4, 5-8, ...: every call carried exactly one I/O.
    assert_eq!(one.depth.total_submit, 256, "{:?}", one.depth);
    assert_eq!(one.depth.submit[1], 256);
    let all = run(0);
    assert_eq!(all.read.ios, 256);
    assert!(all.depth.submit[2] >= 1, "the first call carries all 8: {:?}", all.depth);
    assert!(all.depth.total_submit < 256, "{:?}", all.depth);
    let four = run(4);
    assert_eq!(four.depth.submit[2..].iter().sum::<u64>(), 0, "at most 4 per call: {:?}", four.depth);
    assert!(four.depth.total_submit < 256, "{:?}", four.depth);
}

/// fio's reaping rules (`iodepth_batch_complete_min`/`_max`, `iodepth_low`). By default a full
/// queue takes one completion per reap and refills its slot at once, so nearly every I/O is
/// submitted with the whole depth in flight (fio's `iodepth_level` at 100 % of the depth) and
/// there is about one reap call per I/O. With `iodepth_low=4` the queue drains to 4 before it
/// is filled again, so most I/Os go out with 5 to 15 in flight; with
/// `iodepth_batch_complete_min=4` every reap of a full queue waits for four.
#[test]
fn reaping_follows_fio_batch_complete_and_iodepth_low() {
    if !uring_ok("reaping_follows_fio_batch_complete_and_iodepth_low") {
        return;
    }
    let (_d, path, f) = laid_out("reap");
    let run = |edit: &dyn Fn(&mut flashlab_jobs::Job)| {
        let mut fj = flashlab_jobs::Job::new("rr");
        fj.rw = Rw::RandRead;
        fj.bs_read = 4096;
        fj.iodepth = 16;
        fj.direct = true;
        edit(&mut fj);
        let mut j = RealJob::from_fio(&fj, 0, 4 * MIB, 1);
        j.engine = EngineKind::IoUring;
        j.settings.io_limit = Some(2 * MIB);
        let r = run_job(&path, &f, &j, &mut |_| {}).unwrap();
        assert_eq!(r.read.ios, 512);
        r.depth
    };
    // Depth buckets: 1, 2-3, 4-7, 8-15, 16-31, ...; only the first 15 submits of the initial
    // fill see fewer than 16 in flight.
    let dflt = run(&|_| {});
    assert!(dflt.depth[4] >= 512 - 15, "{dflt:?}");
    assert!(dflt.total_complete >= 512 - 16, "one completion per reap: {dflt:?}");
    // Drained to 4, refilled to 16: of each 12 submits, 3 see 5-7 in flight, 8 see 8-15, 1 sees 16.
    let low = run(&|j| j.iodepth_low = 4);
    assert!(low.depth[3] > 512 / 2 && low.depth[4] < 512 / 8, "{low:?}");
    // Drained one completion per reap, as the default takes them.
    assert!(low.total_complete >= 512 - 16, "{low:?}");
    // At least four per reap of a full queue (the last reaps, of a stopped job, take what is there).
    let batch = run(&|j| {
        j.iodepth_batch_complete_min = 4;
        j.iodepth_batch_complete_max = 16;
    });
    assert!(batch.total_complete <= 512 / 4 + 16, "{batch:?}");
    assert!(dflt.total_complete > 2 * batch.total_complete, "{dflt:?} vs {batch:?}");
}

/// A 4 MiB file written sequentially with O_DIRECT, in a temporary directory of its own.
fn laid_out(name: &str) -> (TempDir, std::path::PathBuf, std::fs::File) {
    let d = TempDir::new(name);
    let path = d.path().join("f");
    let f = open_file(&path, true, true).unwrap();
    let w = job("layout", Rw::Write, MIB, 4 * MIB, EngineKind::IoUring, 4);
    run_job(&path, &f, &w, &mut |_| {}).unwrap();
    (d, path, f)
}

/// fio's startdelay, wait_for and exitall between two jobs in threads of one group (psync,
/// buffered: any filesystem): the runtime leaves out the delay, a waiting job starts after
/// the job it waits for, and exitall stops a 30 s job when the short one ends.
#[test]
fn run_control_between_job_threads() {
    use flashlab_real::control::{FinishGuard, GroupControl, JobControl};
    use std::time::Instant;
    let d = TempDir::new("control");
    let path = d.path().join("f");
    let f = open_file(&path, false, true).unwrap();
    f.set_len(4 * MIB).unwrap();
    let mk = |name: &str| {
        let mut j = job(name, Rw::RandWrite, 4096, 4 * MIB, EngineKind::Psync, 1);
        j.direct = false;
        j
    };
    // By itself: the job sleeps its delay, which is not in its runtime.
    let mut a = mk("a");
    a.settings.number_ios = Some(20);
    a.settings.start_delay_ns = 300_000_000;
    let t = Instant::now();
    let r = run_job(&path, &f, &a, &mut |_| {}).unwrap();
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert!(r.job_runtime_ns < t.elapsed().as_nanos() as u64 - 250_000_000, "runtime {} ns", r.job_runtime_ns);

    // a (200 ms of writes, exitall) and b (time_based 30 s) start together; c waits for a.
    let group = GroupControl::new(3, Instant::now());
    let ctl = |i, w: Vec<usize>| Some(JobControl { group: group.clone(), index: i, waits_for: w });
    let mut a = mk("a");
    a.settings.runtime_ns = Some(200_000_000);
    a.settings.time_based = true;
    a.settings.exitall = Some(flashlab_jobs::ExitWhat::Stonewall);
    a.control = ctl(0, vec![]);
    let mut b = mk("b");
    b.settings.runtime_ns = Some(30_000_000_000);
    b.settings.time_based = true;
    b.control = ctl(1, vec![]);
    let mut c = mk("c");
    c.settings.number_ios = Some(10);
    c.control = ctl(2, vec![0]);
    let t0 = Instant::now();
    let ends: Vec<(u64, Duration)> = std::thread::scope(|s| {
        let hs: Vec<_> = [&a, &b, &c]
            .into_iter()
            .map(|j| {
                let (path, f) = (&path, &f);
                s.spawn(move || {
                    let _end = j.control.clone().map(|c| FinishGuard::new(c, j.settings.exitall));
                    let r = run_job(path, f, j, &mut |_| {}).unwrap();
                    (r.write.ios, t0.elapsed())
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(ends[1].1 < Duration::from_secs(10), "exitall stopped b after {:?}", ends[1].1);
    assert!(ends[1].1 >= Duration::from_millis(200));
    assert_eq!(ends[2].0, 10, "c ran (stonewall leaves a job not yet started)");
    assert!(ends[2].1 >= ends[0].1 - Duration::from_millis(5));
}

/// fio's flow control between two job threads: `flow=3` and `flow=1` in one flow_id read in
/// a 3:1 ratio (both would run as fast as the page cache allows without it). The ratio holds
/// while both run: a job that ends leaves the flow and the other then runs alone, so each job
/// has `exitall` (the first to end stops the other). Without it, on a loaded machine the two
/// threads' 300 ms windows drift apart and the tail alone skewed the totals (7441 : 741 seen).
#[test]
fn flow_keeps_the_ratio_between_job_threads() {
    use flashlab_real::control::{FinishGuard, GroupControl, JobControl};
    use std::sync::Arc;
    use std::time::Instant;
    let d = TempDir::new("flow");
    let path = d.path().join("f");
    let f = open_file(&path, false, true).unwrap();
    f.set_len(4 * MIB).unwrap();
    let group = GroupControl::with_flows(Instant::now(), &[Some((0, 3)), Some((0, 1))]);
    let mk = |name: &str, weight: u32, i: usize| {
        let mut j = job(name, Rw::RandRead, 4096, 4 * MIB, EngineKind::Psync, 1);
        j.direct = false;
        j.settings.runtime_ns = Some(300_000_000);
        j.settings.time_based = true;
        let mut model = j.settings.model();
        model.flow = weight;
        j.settings.job = Some(Arc::new(model));
        j.control = Some(JobControl { group: group.clone(), index: i, waits_for: vec![] });
        j
    };
    let (a, b) = (mk("a", 3, 0), mk("b", 1, 1));
    let ios: Vec<u64> = std::thread::scope(|s| {
        let hs: Vec<_> = [&a, &b]
            .into_iter()
            .map(|j| {
                let (path, f) = (&path, &f);
                s.spawn(move || {
                    let _end = j.control.clone().map(|c| FinishGuard::new(c, Some(flashlab_jobs::ExitWhat::Group)));
                    run_job(path, f, j, &mut |_| {}).unwrap().read.ios
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(ios[1] > 200, "{ios:?}");
    let ratio = ios[0] as f64 / ios[1] as f64;
    assert!((ratio - 3.0).abs() < 0.15, "reads {ios:?}: ratio {ratio}");
}
