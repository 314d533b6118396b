//! fio's `steadystate` on a simulated device, sampled once a second of virtual time: a fresh
//! toy device under random writes is fast until its free blocks run out and garbage
//! collection sets the pace; `iops_slope` stops the job once that pace is flat, and a
//! criterion the device never meets runs the job to its `runtime` with `attained` 0.

use flashlab_lab::jobfile_run::{run_jobfile, JobRun};
use flashlab_lab::profiles::builtin;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::FsConfig;
use flashsim::Profile;
use serde_json::Value;

fn run(text: &str) -> Vec<JobRun> {
    let p = Profile::from_toml("toy", builtin("toy").unwrap()).unwrap();
    let mut sys = SimSystem::with_fs(&p, 1, FsConfig::plain(false));
    let jf = flashlab_jobs::parse_jobfile("t.fio", text).unwrap();
    run_jobfile(&mut sys, &jf, 1, "t.fio", None, &mut |_, _, _| {}).unwrap()
}

fn ints(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as f64).collect()
}

/// Least-squares slope of `y` against 0..n, in per cent of its mean (fio's `iops_slope:N%`).
fn slope_pct(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    let mx = (n - 1.0) / 2.0;
    let my = y.iter().sum::<f64>() / n;
    let sxy: f64 = y.iter().enumerate().map(|(i, v)| (i as f64 - mx) * (v - my)).sum();
    let sxx: f64 = (0..y.len()).map(|i| (i as f64 - mx).powi(2)).sum();
    100.0 * sxy / sxx / my
}

const GC_SETTLE: &str = "[gc]\nrw=randwrite\nbs=4k\nsize=100%\niodepth=4\ntime_based\nruntime=120\n";

#[test]
fn iops_slope_attains_once_gc_sets_the_pace() {
    let r = run(&format!("{GC_SETTLE}ss=iops_slope:2%\nss_dur=10\n"));
    let job = &r[0].0;
    let ss = job.steadystate.as_ref().expect("steadystate object");
    assert_eq!(ss["attained"], 1, "{ss}");
    assert_eq!(ss["ss"], "iops_slope:2.000000%");
    assert_eq!(ss["duration"], 10);
    let iops = ints(&ss["data"]["iops"]);
    assert_eq!(iops.len(), 10);
    assert!(iops.iter().all(|&v| v > 0.0), "{iops:?}");
    // The criterion holds on the window it reports (recomputed here independently).
    let s = slope_pct(&iops);
    assert!(s.abs() < 2.0, "slope {s} % of the mean");
    let crit: f64 = ss["criterion"].as_str().unwrap().trim_end_matches('%').parse().unwrap();
    assert!((crit - s).abs() < 1e-3, "criterion {crit} vs {s}");
    // It stopped early: at least the window, well before runtime.
    let rt = job.job_runtime_ns as f64 / 1e9;
    assert!((10.0..110.0).contains(&rt), "ran {rt} s");
    // The window is GC-bound: the fresh device's best 500 ms was at least twice as fast, and
    // the device copied pages (WAF > 1) by then.
    let mean = ss["data"]["iops_mean"].as_u64().unwrap() as f64;
    let best = job.write.intervals.iter().filter_map(|i| i.iops()).max().unwrap() as f64;
    assert!(best > 2.0 * mean, "fresh {best} IOPS vs steady {mean}");
    let waf = job.extra.as_ref().unwrap()["write_amplification"].as_f64().unwrap();
    assert!(waf > 1.2, "WAF {waf}");
    // bw is iops × 4 KiB, second by second.
    let bw = ints(&ss["data"]["bw"]);
    for (b, i) in bw.iter().zip(&iops) {
        assert_eq!(*b, i * 4096.0);
    }
}

#[test]
fn a_criterion_never_met_runs_to_runtime() {
    // GC makes every second's IOPS differ by far more than 0.1 % of the mean.
    let r = run(&format!("{}ss=iops:0.1%\nss_dur=5\n", GC_SETTLE.replace("runtime=120", "runtime=30")));
    let job = &r[0].0;
    let ss = job.steadystate.as_ref().unwrap();
    assert_eq!(ss["attained"], 0, "{ss}");
    assert!(ss["max_deviation"].as_f64().unwrap() > 0.0);
    let rt = job.job_runtime_ns as f64 / 1e9;
    // Requests issued just before runtime complete after it (a GC-bound write takes tens of ms).
    assert!((30.0..30.5).contains(&rt), "ran {rt} s");
    // A window longer than the run never fills: fio pads it with zeros.
    let r = run("[w]\nrw=randwrite\nbs=4k\nsize=16m\ntime_based\nruntime=3\nss=bw:1%\nss_dur=6\n");
    let ss = r[0].0.steadystate.as_ref().unwrap();
    assert_eq!(ss["attained"], 0);
    let bw = ints(&ss["data"]["bw"]);
    assert_eq!(bw.len(), 6);
    assert!(bw[..2].iter().all(|&b| b > 0.0) && bw[3..].iter().all(|&b| b == 0.0), "{bw:?}");
}

#[test]
fn ss_ramp_delays_the_window() {
    // Without the ramp the first window is the fast fresh phase falling off; with a ramp past
    // it, the window starts later, so the job cannot stop before ramp + window.
    let r = run(&format!("{GC_SETTLE}ss=iops_slope:2%\nss_dur=5\nss_ramp=40\n"));
    let job = &r[0].0;
    let ss = job.steadystate.as_ref().unwrap();
    assert_eq!(ss["attained"], 1, "{ss}");
    // Samples cover seconds 40-41 ... 44-45 (fio: ramp plus one interval before the first).
    assert!(job.job_runtime_ns >= 45_000_000_000, "ran {} ns", job.job_runtime_ns);
    let r = run(&format!("{GC_SETTLE}ss=iops_slope:2%\nss_dur=5\n"));
    assert!(r[0].0.job_runtime_ns < 40_000_000_000, "without the ramp: {} ns", r[0].0.job_runtime_ns);
}
