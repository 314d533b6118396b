//! Acceptance (issue 11, 2): a traced breakdown on the loop device of a `flashlab serve` mount
//! (emmc-16g, real time) splits D2C into the emulator's parts from the server's stats.json.
//! Needs root, tracefs, /dev/fuse and loop devices; fails naming what is missing otherwise,
//! unless FLASHLAB_TEST_SKIP names it (docs/testing.md).
//!
//! What is asserted (robust on a loaded 2-core machine; the tight "within 10 % after
//! subtracting the zero-latency overhead" comparison is a benchmark, bench/serve/breakdown.sh,
//! with its result in docs/breakdown.md):
//! - serve answered every request of the job (and nothing else reached it);
//! - the simulated parts add up to the simulated latency (host stack + queue + device);
//! - the simulated latency is inside D2C: each request is held by serve for at least its
//!   modeled time, so mean D2C ≥ mean simulated latency (1 µs of rounding allowed);
//! - the FUSE+loop overhead at the p50 (D2C p50 − simulated latency) is below
//!   [`OVERHEAD_P50_BOUND_US`] plus twice the run-queue wait per request of this process's
//!   threads measured during the job (the machine's contention at the time).

use flashlab_breakdown::run_real::{breakdown_real, RealOptions, DEVICE_PHASE};
use flashlab_breakdown::serve_split::detect;
use flashlab_breakdown::target::open_block;
use flashlab_breakdown::tracefs::{find_tracefs, load_layouts, DEFAULT_ROOTS};
use flashlab_breakdown::{job_matrix, Dir};
use flashlab_real::engine::EngineKind;
use flashlab_serve::{ServeOptions, Server};
use flashsim::Profile;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bound on the FUSE round trip + loop driver + wake-ups per 4 KiB request at QD1, at the
/// p50, from measurement: 17-18 µs on a quiet machine (docs/breakdown.md,
/// bench/serve/breakdown.sh); 30-47 µs here with the test at real-time priority while the
/// machine ran at load average 17. 100 µs is twice the worst of those and half the model's
/// own time for a read (201 µs), so serve answering each request half a model time late fails
/// it (a deliberate 250 µs delay in serve gave p50 overheads of 300-320 µs). (Was a flat
/// 1500 µs on the mean, which let serve answer every read seven model times late.)
///
/// The mean is reported, not bounded: it carries the preemption tails of the kernel's side of
/// the path (loop worker, FUSE queue), 150-270 µs here even with the test at real-time
/// priority.
///
/// On a shared machine every moment the path's threads spend runnable but waiting for a CPU
/// adds to D2C (at load average 17 on 2 cores even p50s reached 4 ms). That wait is measured,
/// not guessed: the kernel's per-thread run-queue delay (/proc/self/task/*/schedstat) summed
/// over this process's threads during each job, per request ([`run_queue_wait_ns`]), is added
/// to the bound [`WAIT_FACTOR`] times. On a quiet machine it is a few µs.
///
/// The issue's acceptance, "D2C minus the zero-latency overhead within 10 % of the simulated
/// latency", needs a second server on the zero-latency profile in the same conditions and a
/// p50 difference good to ±20 µs, which a loaded shared machine does not give; it stays the
/// benchmark bench/serve/breakdown.sh (1.005-1.013 measured at load 3.4).
const OVERHEAD_P50_BOUND_US: f64 = 100.0;

/// The run-queue wait this process's threads saw is a lower estimate of what a request waited:
/// the kernel's side of the path waits on the same run queues and is not in this process's
/// schedstat. Under load average 17 the mean overhead was up to 1.26x the in-process wait; the
/// allowance is 2x it.
const WAIT_FACTOR: f64 = 2.0;

/// Total time this process's threads have spent runnable but waiting on a run queue, ns
/// (the second field of each /proc/self/task/TID/schedstat).
fn run_queue_wait_ns() -> u64 {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().nth(1).and_then(|w| w.parse::<u64>().ok()))
        .sum()
}

/// Root, /dev/fuse, loop devices and tracefs (flashlab_testcaps); false when
/// FLASHLAB_TEST_SKIP asked to skip. Breakdown's own tracefs code must then find it.
fn machine_ready() -> bool {
    use flashlab_testcaps::Cap;
    if !flashlab_testcaps::require(&[Cap::Root, Cap::Fuse, Cap::Loop, Cap::Tracefs]) {
        return false;
    }
    let roots: Vec<&Path> = DEFAULT_ROOTS.iter().map(Path::new).collect();
    let root =
        find_tracefs(&roots).unwrap_or_else(|e| panic!("tracefs is mounted, but breakdown did not find it: {e}"));
    load_layouts(&root).unwrap_or_else(|e| panic!("breakdown could not read the block event layouts: {e}"));
    true
}

/// The server (loop device detached, FUSE unmounted by its drop) and its directory, removed
/// even when the test fails.
struct Served {
    server: Option<Server>,
    dir: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.server.take());
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// A page-aligned 4 KiB block (O_DIRECT needs aligned buffers).
#[derive(Clone, Copy)]
#[repr(C, align(4096))]
struct Page([u8; 4096]);

#[test]
fn serve_device_d2c_split() {
    if !machine_ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("flashlab-bd-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = flashlab_lab::profiles::builtin("emmc-16g").unwrap();
    let mut o = ServeOptions::new(Profile::from_toml("emmc-16g", text).unwrap(), dir.clone());
    o.size = Some(64 << 20);
    o.attach = true;
    let mut s = Served { server: None, dir };
    // The machine has what serve needs (checked above): serve not starting is a failure.
    let srv = Server::start(&o, Arc::new(|m: &str| eprintln!("server: {m}")));
    s.server = Some(srv.unwrap_or_else(|e| panic!("flashlab serve --attach did not start: {e}")));
    let lo = PathBuf::from(s.server.as_ref().unwrap().loop_device().unwrap());
    let span = 8u64 << 20;
    // Fill the span once, so reads are of mapped data (NAND reads, not unmapped shortcuts).
    {
        let mut f = std::fs::OpenOptions::new().write(true).custom_flags(libc::O_DIRECT).open(&lo).unwrap();
        let pages = vec![Page([0x5a; 4096]); 256];
        // SAFETY: `Page` is 4096 plain bytes; the vector holds 256 of them contiguously.
        let chunk = unsafe { std::slice::from_raw_parts(pages.as_ptr().cast::<u8>(), 1 << 20) };
        for _ in 0..span >> 20 {
            f.write_all(chunk).unwrap();
        }
        f.sync_all().unwrap();
    }
    let target = open_block(&lo, true, span).unwrap();
    let sd = detect(&target.disk).expect("loop device over DIR/device detected as a serve device");
    assert_eq!(sd.backing, s.dir.join("device"));
    assert!(sd.source.starts_with("flashlab-sim:emmc-16g"), "{}", sd.source);

    let engine = if flashlab_testcaps::require_for("io_uring", &[flashlab_testcaps::Cap::IoUring]) {
        EngineKind::IoUring
    } else {
        EngineKind::Psync
    };
    let jobs = job_matrix(&[Dir::Read, Dir::Write], &[4096], &[1]);
    let ios = 300;
    let roots = DEFAULT_ROOTS.iter().map(PathBuf::from).collect();
    let opts = RealOptions { ios, engine, seed: 7, tracefs_roots: roots };
    // One job at a time, each with the run-queue wait its own run saw.
    let mut res = Vec::new();
    for job in &jobs {
        let wait0 = run_queue_wait_ns();
        let (r, _) = breakdown_real(&target, std::slice::from_ref(job), &opts, &mut |_| {}).unwrap();
        let wait_us = run_queue_wait_ns().saturating_sub(wait0) as f64 / 1e3 / ios as f64;
        res.extend(r.into_iter().map(|j| (j, wait_us)));
    }
    for (j, wait_us) in &res {
        let name = format!("{} QD1", j.key.rw_name());
        let p50_bound = OVERHEAD_P50_BOUND_US + WAIT_FACTOR * wait_us;
        let v = j.serve.as_ref().unwrap_or_else(|| panic!("{name}: no serve split"));
        let d2c = &j.breakdown.phases[DEVICE_PHASE].dist;
        println!(
            "{name}: run-queue wait {wait_us:.1} µs per request; D2C mean {:.1} µs p50 {:.1} µs; sim latency {:.1} = host {:.1} + queue {:.1} + device {:.1}; FUSE+loop {:.1} µs; {} of {} joined",
            d2c.mean_ns / 1e3,
            d2c.p50_ns as f64 / 1e3,
            v.sim_latency_mean_ns / 1e3,
            v.sim_host_ns / 1e3,
            v.sim_queue_mean_ns / 1e3,
            v.sim_device_mean_ns / 1e3,
            v.fuse_loop_overhead_mean_ns / 1e3,
            j.joined,
            j.submitted
        );
        assert_eq!(v.serve_requests, j.submitted, "{name}: serve answered {} requests", v.serve_requests);
        assert!(j.joined * 10 >= j.submitted * 9, "{name}: only {} joined", j.joined);
        let parts = v.sim_host_ns + v.sim_queue_mean_ns + v.sim_device_mean_ns;
        assert!((parts - v.sim_latency_mean_ns).abs() <= 1.0, "{name}: parts {parts} vs {}", v.sim_latency_mean_ns);
        assert!(v.sim_device_mean_ns > 0.0, "{name}");
        assert!(
            v.sim_latency_mean_ns <= d2c.mean_ns + 1000.0,
            "{name}: simulated {} ns is more than D2C {} ns",
            v.sim_latency_mean_ns,
            d2c.mean_ns
        );
        // D2C's p50 minus the model time of the p50 request, which is the mean's: at QD1 on a
        // device that is not collecting garbage every read costs the same, and every write
        // goes to the write buffer.
        let p50_overhead_us = (d2c.p50_ns as f64 - v.sim_latency_mean_ns) / 1e3;
        assert!(
            p50_overhead_us <= p50_bound,
            "{name}: FUSE+loop overhead at the p50 {p50_overhead_us:.1} µs (D2C p50 {:.1} − simulated {:.1}) above {OVERHEAD_P50_BOUND_US} µs + {WAIT_FACTOR} x {wait_us:.1} µs of run-queue wait",
            d2c.p50_ns as f64 / 1e3,
            v.sim_latency_mean_ns / 1e3
        );
    }
    drop(target);
    let srv = s.server.take().unwrap();
    if let Err(e) = srv.stop() {
        let (srv, err) = *e;
        s.server = Some(srv);
        panic!("serve did not stop cleanly: {err}");
    }
}
