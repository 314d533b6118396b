//! fio's `latency_target` on a simulated device: the probe settles on a queue depth between 1
//! and `iodepth` whose completions meet the target, measures one window there (the document's
//! statistics are that window's) and reports fio's `latency_depth`; a target no depth can
//! meet at 100 % fails the job with ETIMEDOUT, as fio's "max latency exceeded".

use flashlab_lab::jobfile_run::{fio_document, run_jobfile};
use flashlab_lab::system::SimSystem;

fn run(text: &str) -> serde_json::Value {
    let p = flashsim::Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap();
    let mut sys = SimSystem::new(&p, 1, false);
    let jf = flashlab_jobs::parse_jobfile("lt.fio", text).unwrap();
    let r = run_jobfile(&mut sys, &jf, 1, "lt.fio", None, &mut |_, _, _| {}).unwrap();
    fio_document(&r, &jf.jobs[0].percentile_list, 0, 0)
}

#[test]
fn the_probe_finds_a_depth_that_meets_the_target() {
    let base = "[j]\nrw=randread\nbs=4k\nsize=64m\niodepth=64\nruntime=20\ntime_based\nlatency_window=100ms\nlatency_percentile=99\n";
    let mut depths = Vec::new();
    for target_us in [300u64, 1000] {
        let doc = run(&format!("{base}latency_target={target_us}us\n"));
        let j = &doc["jobs"][0];
        let depth = j["latency_depth"].as_u64().unwrap();
        assert_eq!(j["latency_target"], target_us * 1000);
        assert_eq!(j["latency_window"], 100_000);
        assert!((1..64).contains(&depth), "depth {depth}");
        // The measured window ran at the depth found and met the target at the 99th percentile
        // (a percentile is its histogram bin's value, a few percent above the samples in it).
        let p99 = j["read"]["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap();
        assert!(p99 <= target_us * 1000 * 11 / 10, "p99 {p99} ns at depth {depth}, target {target_us} us");
        assert!(j["job_runtime"].as_u64().unwrap() < 20_000, "the probe ends the job once settled");
        depths.push(depth);
    }
    // A looser target allows a deeper queue.
    assert!(depths[1] > depths[0], "{depths:?}");
}

#[test]
fn an_unmeetable_target_at_100_percent_fails_the_job() {
    let doc = run("[j]\nrw=randread\nbs=4k\nsize=64m\niodepth=8\nruntime=2\ntime_based\nlatency_target=1us\n");
    assert_eq!(doc["jobs"][0]["error"], 110, "ETIMEDOUT");
    assert_eq!(doc["jobs"][0]["latency_depth"], 1);
}
