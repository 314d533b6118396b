//! `life` with JEDEC's enterprise endurance workload (JESD219) and uniform 4 KiB random writes
//! on the 256 MiB `toy` profile: the run fills the device, drives it, samples it and projects
//! lifetime and TBW; the comparison comes from the same code (docs/jesd219.md).

use flashlab_jobs::blocksize::parse_bssplit;
use flashlab_life::jesd219::{run_compared, run_endurance, Endurance, ENTERPRISE_BSSPLIT};
use flashsim::Profile;

fn toy() -> Profile {
    Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap()
}

#[test]
fn enterprise_and_uniform_runs_project_endurance() {
    let p = toy();
    let (run, json, text) = run_compared(&p, Endurance::Jesd219Enterprise, 2.0, 1, None, |_, _| {}).unwrap();
    eprint!("{text}");
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    let ent = &runs[0];
    let uni = &runs[1];
    assert_eq!(ent["workload"], "jesd219-enterprise");
    assert_eq!(uni["workload"], "uniform-4k");
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    // Uniform 4 KiB aligned writes: every host byte is a whole unit, the two WAFs agree.
    assert!((f(uni, "steady_waf_bytes") - f(uni, "steady_waf_units")).abs() < 1e-9);
    // The enterprise mix has sub-4 KiB transfers that each cost a whole 4 KiB unit: its byte
    // WAF exceeds its unit WAF by the mix's units per byte (computed from the standard's mix).
    let mix = parse_bssplit(ENTERPRISE_BSSPLIT, 1024).unwrap().write.probabilities();
    let bytes: f64 = mix.iter().map(|&(b, p)| b as f64 * p).sum();
    let units: f64 = mix.iter().map(|&(b, p)| b.div_ceil(4096) as f64 * p).sum();
    let expect = units * 4096.0 / bytes;
    let got = f(ent, "steady_waf_bytes") / f(ent, "steady_waf_units");
    assert!((got / expect - 1.0).abs() < 0.03, "units per byte x 4096: {got} vs the mix's {expect}");
    // Both ran their volume after the fill, and GC worked (a full device under random writes).
    for r in runs {
        assert!(f(r, "drive_writes") >= 2.0 && f(r, "drive_writes") < 2.01);
        assert!(f(r, "steady_waf_units") > 1.2, "{r}");
    }
    let last = run.last();
    assert!(last.probe.is_some() && last.lifetime_years.is_some() && last.projected_tbw_tb.is_some());
    assert_eq!(run.samples.len(), 9, "the fill, then every eighth of the workload");
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let p = toy();
    let a = run_endurance(&p, Endurance::Jesd219Enterprise, 0.5, 4, None, |_| {}).unwrap().1;
    let b = run_endurance(&p, Endurance::Jesd219Enterprise, 0.5, 4, None, |_| {}).unwrap().1;
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}
