//! fio's `steadystate` on a real directory, flashlab against fio 3.33 on the same job: a job
//! paced by `rate_iops` has flat IOPS, so both must attain steady state after the window
//! fills (not run to `runtime`), with the same JSON object and the same per-second IOPS.
//! Needs fio (flashlab_testcaps: a missing fio fails unless FLASHLAB_TEST_SKIP names it).

#[path = "common/scratch.rs"]
mod scratch;
use scratch::{flashlab_run_json, json_of, TempDir};
use serde_json::Value;
use std::process::Command;

const JOB: &str = "[paced]\nrw=randwrite\nbs=4k\nsize=16m\nioengine=psync\nrate_iops=500\ntime_based\nruntime=12\n";

fn check(who: &str, j: &Value, ss: &str, dur: u64) {
    let s = &j["steadystate"];
    assert_eq!(s["attained"], 1, "{who}: {s}");
    assert_eq!(s["ss"], ss, "{who}");
    assert_eq!(s["duration"], dur, "{who}");
    let iops: Vec<u64> = s["data"]["iops"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!(iops.len() as u64, dur, "{who}");
    // One-second samples of a 500 IOPS pacer: within 5 % (a sample boundary can split an
    // I/O's gap; fio's samples are scaled by its helper thread's tick length).
    for v in &iops {
        assert!((*v as f64 - 500.0).abs() <= 25.0, "{who}: samples {iops:?}");
    }
    // Stopped once the window was full: well before runtime=12.
    let rt = j["job_runtime"].as_u64().unwrap();
    assert!(rt >= (dur - 1) * 1000 && rt < (dur + 3) * 1000, "{who}: ran {rt} ms");
}

#[test]
fn flashlab_and_fio_attain_steady_state_alike() {
    if !flashlab_testcaps::require(&[flashlab_testcaps::Cap::Fio]) {
        return;
    }
    let fio = flashlab_testcaps::on_path("fio").unwrap();
    for (opt, ss, dur) in
        [("ss=iops:10%\nss_dur=3\n", "iops:10.000000%", 3), ("ss=iops_slope:2%\nss_dur=4\n", "iops_slope:2.000000%", 4)]
    {
        let dir = TempDir::new("ss-fio");
        let file = dir.0.join("job.fio");
        std::fs::write(&file, format!("{JOB}{opt}")).unwrap();
        let out = Command::new(&fio).arg("--output-format=json").arg(&file).current_dir(&dir.0).output().unwrap();
        let f = json_of("fio", out);
        let l = flashlab_run_json(&file, &dir.0);
        check(&format!("fio {ss}"), &f["jobs"][0], ss, dur);
        check(&format!("flashlab {ss}"), &l["jobs"][0], ss, dur);
    }
}
