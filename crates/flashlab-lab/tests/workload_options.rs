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

/// When a job's measured run began and ended on the virtual clock: its first bandwidth
/// window's start and its last one's end (the last completion).
fn window_span(r: &flashlab_measure::JobResult) -> (u64, u64) {
    let w = &r.write.intervals;
    let first = w.first().expect("a window");
    (first.end_ns - first.duration_ns, w.last().unwrap().end_ns)
}

#[test]
fn startdelay_starts_the_job_later_and_is_not_in_its_runtime() {
    let r = run("[a]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=2000\n[b]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=2000\nstartdelay=2\n").unwrap();
    let (a, b) = (&r[0].0, &r[1].0);
    let ((a0, a1), (b0, b1)) = (window_span(a), window_span(b));
    assert_eq!(b0 - a0, 2_000_000_000, "b starts 2 s after the group");
    assert!(a1 < b0, "a ({a0}..{a1}) is done before b starts");
    assert_eq!(b.job_runtime_ns, b1 - b0, "the delay is not part of b's runtime");
    assert_eq!(b.write.ios, 2000);
    // fio counts the delay from its own start: in a later group, the earlier groups' time
    // counts towards it (1 ms is long over when group 2 starts), a longer one waits the rest.
    let r = run("[a]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=2000\n[b]\nstonewall\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=200\nstartdelay=1ms\n[c]\nstonewall\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=200\nstartdelay=5\n").unwrap();
    let ((a0, a1), (b0, b1), (c0, _)) = (window_span(&r[0].0), window_span(&r[1].0), window_span(&r[2].0));
    assert!(a1 - a0 > 1_000_000, "group 1 takes longer than b's delay");
    assert_eq!(b0, a1, "b starts with its group");
    assert!(c0 > b1 && c0 - a0 == 5_000_000_000, "c starts 5 s after the run: {}", c0 - a0);
    // A range: each clone draws its own delay within it.
    let r = run("[d]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=10\nnumjobs=3\nstartdelay=1-3\n").unwrap();
    let starts: Vec<u64> = r.iter().map(|x| window_span(&x.0).0).collect();
    let t0 = *starts.iter().min().unwrap();
    assert!(starts.iter().all(|&s| s - t0 <= 2_000_000_000), "{starts:?}");
    assert!(starts[0] != starts[1] || starts[1] != starts[2], "clones draw their own delays: {starts:?}");
}

#[test]
fn wait_for_starts_the_job_when_the_named_one_has_finished() {
    let r = run("[a]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=1000\nnumjobs=2\n[b]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=1000\nwait_for=a\n[c]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=100\n").unwrap();
    let (a, a2, b, c) = (window_span(&r[0].0), window_span(&r[1].0), window_span(&r[2].0), window_span(&r[3].0));
    assert_eq!(b.0, a.1.max(a2.1), "b starts when both clones of a are done");
    assert_eq!(c.0, a.0, "c does not wait");
    assert_eq!(r[2].0.write.ios, 1000);
    // With end_fsync, a's end (and b's start) is after the flush.
    let r = run("[a]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=1000\nend_fsync=1\n[b]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=10\nwait_for=a\n").unwrap();
    let (a, b) = (window_span(&r[0].0), window_span(&r[1].0));
    let unsynced = run("[a]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=1000\n").unwrap();
    assert!(r[0].0.job_runtime_ns > unsynced[0].0.job_runtime_ns);
    assert_eq!(b.0, a.0 + r[0].0.job_runtime_ns, "b starts when a's run (its fsync included) ends");
    // An unknown job is an error naming the option.
    let e = run("[a]\nsize=16m\n[b]\nwait_for=x\nsize=16m\n").unwrap_err();
    assert!(e.starts_with("t.fio:4: option 'wait_for'"), "{e}");
}

#[test]
fn exitall_stops_the_group_when_one_job_finishes() {
    let base = "size=16m\nrw=randwrite\nbs=4k\n";
    let long = format!("{base}runtime=20\ntime_based\n");
    // Without exitall the long job runs its 20 s.
    let r = run(&format!("[a]\n{base}number_ios=500\n[b]\n{long}")).unwrap();
    assert!(r[1].0.job_runtime_ns >= 20_000_000_000);
    let r = run(&format!("[a]\n{base}number_ios=500\nexitall\n[b]\n{long}[c]\n{base}number_ios=50\nstartdelay=10\n"))
        .unwrap();
    let (a, b) = (window_span(&r[0].0), window_span(&r[1].0));
    assert!(b.1 >= a.1 && b.1 - a.1 < 5_000_000, "b stops at a's end ({} ns after)", b.1 - a.1);
    assert_eq!(r[2].0.write.ios, 0, "exit_what=group: c, not started yet, never runs");
    // exit_what=stonewall stops the running jobs only: c still starts and runs. (Each job
    // that ends stops others by its own exit_what, as in fio: b's default would stop c.)
    let r = run(&format!("[global]\nexit_what=stonewall\n[a]\n{base}number_ios=500\nexitall\n[b]\n{long}[c]\n{base}number_ios=50\nstartdelay=10\n")).unwrap();
    assert!(r[1].0.job_runtime_ns < 1_000_000_000);
    assert_eq!(r[2].0.write.ios, 50);
    // exitall holds for the whole run (fio's global), and each group stops by itself; with
    // exit_what=all the later groups do not run.
    let text =
        format!("[a]\n{base}number_ios=500\nexitall\n[b]\n{long}[d]\nstonewall\n{base}number_ios=300\n[e]\n{long}");
    let r = run(&text).unwrap();
    assert_eq!(r[2].0.write.ios, 300);
    assert!(r[3].0.job_runtime_ns < 1_000_000_000, "e stops when d finishes");
    let r = run(&text.replace("exitall\n", "exitall\nexit_what=all\n")).unwrap();
    assert_eq!(r.len(), 4);
    assert_eq!((r[2].0.write.ios, r[3].0.write.ios), (0, 0), "the second group never runs");
}

#[test]
fn fsync_on_close_flushes_at_the_end_as_end_fsync_does() {
    let runtime = |extra: &str| {
        let r = run(&format!("[j]\nsize=16m\nrw=randwrite\nbs=4k\nnumber_ios=2000\n{extra}")).unwrap();
        r[0].0.job_runtime_ns
    };
    let plain = runtime("");
    let closed = runtime("fsync_on_close=1\n");
    assert!(closed > plain, "{closed} vs {plain}");
    assert_eq!(closed, runtime("end_fsync=1\n"));
    assert_eq!(closed, runtime("end_fsync=1\nfsync_on_close=1\n"), "one fsync per file");
}

/// fio's flow control: the jobs of one flow_id issue I/Os in the ratio of their `flow`
/// weights, whatever their speed (reads are faster than writes here), with or without a
/// `flow_sleep`; a job of another flow_id is not held back.
#[test]
fn flow_keeps_the_weights_ratio() {
    for sleep in ["", "flow_sleep=200\n"] {
        let r = run(&format!(
            "[global]\nsize=16m\ntime_based\nruntime=1\n{sleep}\n[reader]\nrw=randread\nflow=3\n[writer]\nrw=randwrite\nflow=1\n\
             [free]\nrw=randread\nflow=1\nflow_id=7\n"
        ))
        .unwrap();
        let (reads, writes) = (r[0].0.read.ios as f64, r[1].0.write.ios as f64);
        assert!(writes > 100.0, "{sleep}: {writes} writes");
        assert!((reads / writes - 3.0).abs() < 0.05, "{sleep}: {reads} reads vs {writes} writes");
        // Alone in flow 7, 'free' is not held to the writer's pace (in flow 0 it would be 1:1).
        let free = r[2].0.read.ios as f64;
        assert!(free / writes > 1.5, "{sleep}: free {free} vs writer {writes}");
    }
    // Without flow, the faster reader does not keep a 3:1 ratio.
    let r = run("[global]\nsize=16m\ntime_based\nruntime=1\n[reader]\nrw=randread\n[writer]\nrw=randwrite\n").unwrap();
    let ratio = r[0].0.read.ios as f64 / r[1].0.write.ios as f64;
    assert!((ratio - 3.0).abs() > 0.5, "ratio {ratio} without flow");
    assert!(run("[j]\nflow=1001\n").unwrap_err().contains("at most 1000"));
}

/// fio's random_distribution=sequence: exactly the blocks of the sequence, by I/O count.
#[test]
fn sequence_distribution_issues_its_blocks() {
    let r = run("[j]\nrw=randread\nbs=4k\nsize=48k\nio_size=24k\nrandom_distribution=sequence:2,0,1\n").unwrap();
    assert_eq!(r[0].0.read.ios, 6);
    // A stride past the end ends the job early: 12 blocks hold four rounds of 3.
    let r = run(
        "[j]\nrw=randread\nbs=4k\nsize=48k\nio_size=1m\nrandom_distribution=sequence:2,0,1\nrandom_sequence_stride=1\n",
    )
    .unwrap();
    assert_eq!(r[0].0.read.ios, 12);
}

/// steadystate=lat: the job stops once the mean latency of each 1 s interval stays within the
/// limit of the window's mean; the report carries the latency samples.
#[test]
fn latency_steady_state_stops_the_job() {
    let r = run("[j]\nrw=randread\nsize=16m\nbs=4k\ntime_based\nruntime=30\nss=lat:20%\nss_dur=3\n").unwrap();
    let rd = &r[0].0.read;
    let secs = rd.runtime_ns as f64 / 1e9;
    assert!(secs < 10.0, "steady state should end a 30 s job early ({secs} s)");
    let ss = r[0].0.steadystate.as_ref().expect("steadystate report");
    assert_eq!(ss["attained"], 1);
    assert_eq!(ss["ss"], "lat:20.000000%");
    let lat = ss["data"]["lat"].as_array().expect("lat samples");
    assert_eq!(lat.len(), 3);
    assert!(lat.iter().all(|v| v.as_u64().unwrap() > 0), "{lat:?}");
}

/// io_submit_mode=offload issues the same I/Os as inline; verify=crc64 verifies, and with
/// verify_write_sequence=0 two jobs may write the same region.
#[test]
fn offload_crc64_and_write_sequence() {
    let inline = run("[j]\nrw=randwrite\nsize=4m\nrate_iops=2000\n").unwrap();
    let offload = run("[j]\nrw=randwrite\nsize=4m\nrate_iops=2000\nio_submit_mode=offload\n").unwrap();
    assert_eq!(inline[0].0.write.ios, offload[0].0.write.ios);
    assert_eq!(inline[0].0.write.runtime_ns, offload[0].0.write.runtime_ns);
    assert!(run("[j]\nio_submit_mode=thread\n").unwrap_err().contains("inline or offload"));
    let r = run("[j]\nrw=randwrite\nsize=2m\nverify=crc64\n").unwrap();
    assert_eq!(r[0].0.verify.as_ref().unwrap().mismatches, 0);
    // Two writers of one file: the first's read-back sees the second's writes.
    let two = "[global]\nfilename=shared\nrw=randwrite\nsize=2m\nverify=crc32\nnumjobs=2\nverify_fatal=1\n[w]\n";
    let seq_off = run(&format!("{two}verify_write_sequence=0\n")).unwrap();
    assert!(seq_off.iter().all(|j| j.0.verify.as_ref().unwrap().mismatches == 0));
}

#[test]
fn sprandom_writes_the_physical_capacity_once_over_and_needs_random_writes() {
    // fio's SPRandom: every block once plus the rewrites that leave each region as invalid as
    // the steady-state model says; io_size becomes the physical capacity, 64 MiB x 1.2.
    let r = run("[p]\nsize=64m\nbs=4k\nrw=randwrite\nsprandom=1\nspr_op=0.2\nspr_num_regions=50\n").unwrap();
    let w = &r[0].0.write;
    let physical = flashlab_workload::sprandom::physical_size(0.2, 64 << 20, 4096);
    let off = (w.io_bytes as f64 - physical as f64).abs() / physical as f64;
    assert!(w.io_bytes > 64 << 20 && off < 0.02, "{} bytes written, physical {physical}", w.io_bytes);
    for bad in ["rw=write", "rw=randrw"] {
        let e = run(&format!("[p]\nsize=64m\nbs=4k\n{bad}\nsprandom=1\n")).unwrap_err();
        assert!(e.contains("sprandom") && e.contains("randwrite"), "{e}");
    }
    let e = run("[p]\nsize=64m\nbs=4k\nrw=randwrite\nsprandom=1\nspr_op=1.5\n").unwrap_err();
    assert!(e.contains("spr_op"), "{e}");
}
