//! fio's workload options on a simulated device, where virtual time makes them exact: a rate
//! limit gives its IOPS, `loops` multiplies the bytes, `thinktime` with a rate keeps the
//! rate's mean, `rate_min` fails a job that cannot keep up, and a job's mixed block sizes
//! are what its `bssplit` says.

use flashlab_lab::jobfile_run::run_jobfile;
use flashlab_lab::profiles::builtin;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;

fn run(text: &str) -> Result<Vec<flashlab_lab::jobfile_run::JobRun>, String> {
    let p = Profile::from_toml("toy", builtin("toy").unwrap()).unwrap();
    let mut sys = SimSystem::with_fs(&p, 1, FsConfig::plain(false));
    let jf = flashlab_jobs::parse_jobfile("t.fio", text).map_err(|e| e.to_string())?;
    run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).map_err(|e| e.to_string())
}

#[test]
fn rate_iops_is_exact_in_virtual_time() {
    for (process, tol) in [("linear", 0.002), ("poisson", 0.05)] {
        let r = run(&format!(
            "[j]\nsize=16m\nrw=randwrite\nbs=4k\nrate_iops=500\nrate_process={process}\nruntime=4\ntime_based\niodepth=4\n"
        ))
        .unwrap();
        let w = &r[0].0.write;
        let iops = w.ios as f64 / (w.runtime_ns as f64 / 1e9);
        assert!((iops - 500.0).abs() / 500.0 < tol, "{process}: {iops} IOPS");
    }
    // rate= in bytes/s with mixed sizes: bytes per second, not I/Os.
    let r = run("[j]\nsize=16m\nrw=randwrite\nbssplit=4k/50:64k/50\nrate=2m\nruntime=2\ntime_based\n").unwrap();
    let w = &r[0].0.write;
    let bw = w.io_bytes as f64 / (w.runtime_ns as f64 / 1e9);
    assert!((bw - 2097152.0).abs() / 2097152.0 < 0.03, "{bw} B/s");
}

#[test]
fn loops_multiply_the_bytes_and_rate_min_fails_slow_jobs() {
    let r = run("[j]\nsize=4m\nrw=write\nbs=256k\nloops=3\n").unwrap();
    assert_eq!(r[0].0.write.io_bytes, 12 << 20);
    let e = run("[j]\nsize=4m\nrw=write\nbs=4k\nrate=100k\nrate_min=1m\n").unwrap_err();
    assert!(e.contains("t.fio:1: job 'j': rate_min of 1048576 B/s for writes not met"), "{e}");
}

#[test]
fn bssplit_shares_on_the_simulated_device() {
    let r =
        run("[j]\nsize=64m\nrw=randwrite\nbssplit=4k/60:32k/40\nnorandommap\nio_size=1g\nnumber_ios=20000\n").unwrap();
    let w = &r[0].0.write;
    assert_eq!(w.ios, 20000);
    // Mean size 0.6 * 4k + 0.4 * 32k = 15.56k; the share of 32k I/Os from the mean.
    let mean = w.io_bytes as f64 / w.ios as f64;
    let big = (mean - 4096.0) / (32768.0 - 4096.0);
    assert!((big - 0.4).abs() < 0.015, "share of 32k I/Os {big}");
}

/// fio's `iodepth_low`: once the queue is full it drains to this many before it is filled
/// again, so fewer requests are in flight on average (Little's law: IOPS x mean latency) than
/// with the default, where each completion is replaced at once.
#[test]
fn iodepth_low_lets_the_queue_drain_before_refilling() {
    let in_flight = |extra: &str| {
        let r = run(&format!("[j]\nsize=64m\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=10000\n{extra}")).unwrap();
        let rd = &r[0].0.read;
        assert_eq!(rd.ios, 10000);
        let iops = rd.ios as f64 / (rd.runtime_ns as f64 / 1e9);
        (iops * rd.lat.mean() / 1e9, r[0].0.depth.clone())
    };
    let (full, depth) = in_flight("");
    // Depth buckets 1, 2-3, 4-7, 8-15, 16-31, ...: the simulated host submits each request by
    // itself, so all but the first 15 go out with 16 in flight, and each reap takes one.
    assert!(depth.depth[4] >= 10000 - 15, "{depth:?}");
    assert_eq!((depth.total_submit, depth.submit[1]), (10000, 10000), "{depth:?}");
    assert_eq!((depth.total_complete, depth.complete[1]), (10000, 10000), "{depth:?}");
    let (low, depth) = in_flight("iodepth_low=2\n");
    assert!(depth.depth[4] < 10000 / 8, "refilled from 2 to 16: {depth:?}");
    eprintln!("mean in flight: {full:.2} by default, {low:.2} with iodepth_low=2");
    // Default: 16 in flight all the time (to within the start and the end).
    assert!((full - 16.0).abs() < 0.5, "{full}");
    // Drained to 2, refilled to 16: on average well below 16.
    assert!(low < 13.0 && low > 2.0, "{low} vs {full}");
}

/// `iodepth_batch_complete_min` above 1 delays reaps a simulated host does not have: refused
/// with the reason, not ignored.
#[test]
fn waiting_for_several_completions_is_refused_on_a_simulated_target() {
    let e = run("[j]\nsize=16m\nrw=randread\nbs=4k\niodepth=8\niodepth_batch_complete_min=4\n").unwrap_err();
    assert!(e.contains("iodepth_batch_complete_min=4") && e.contains("real targets"), "{e}");
    // The defaults and fio's polling setting (0) are what the simulated host does anyway.
    run("[j]\nsize=16m\nrw=randread\nbs=4k\niodepth=8\niodepth_batch_complete_min=0\niodepth_batch_complete_max=8\n")
        .unwrap();
}

/// fio's `end_fsync`: the job's files are fsynced after its last write and the job's runtime
/// covers it (a device with a volatile write cache flushes it).
#[test]
fn end_fsync_is_part_of_the_job() {
    let runtime = |extra: &str| {
        let r = run(&format!("[j]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=2000\n{extra}")).unwrap();
        assert_eq!(r[0].0.write.ios, 2000);
        r[0].0.job_runtime_ns
    };
    let plain = runtime("");
    let synced = runtime("end_fsync=1\n");
    eprintln!("job runtime {plain} ns, {synced} ns with end_fsync");
    assert!(synced > plain, "{synced} vs {plain}");
}
