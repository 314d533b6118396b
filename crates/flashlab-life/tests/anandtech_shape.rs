//! Acceptance 1 of issue 10, on a scaled-down device: AnandTech's fstrim example — 1 GB of new
//! files a month on a 10 GB device, the previous month's deleted — scaled to the 256 MiB `toy`
//! profile (every volume multiplied by the filesystem's capacity / 10 GB). Without trim the
//! device's valid data reaches its logical capacity at about month 10 while the filesystem stays
//! ~90 % free, and random writes get slower; under every trim policy neither happens.

use flashlab_life::policy::{Policy, DAY};
use flashlab_life::presets::preset;
use flashlab_life::runner::{run_life, LifeConfig, LifeResult};
use flashsim::Profile;

fn toy() -> Profile {
    Profile::from_toml("toy", flashlab_lab::profiles::builtin("toy").unwrap()).unwrap()
}

fn run(policy: &str) -> LifeResult {
    let profile = toy();
    let usage = preset("anandtech-10g").unwrap();
    // The preset's 34 MiB a day is 1 GB a month; 10 GB -> this device's filesystem.
    let fs_capacity = profile.logical_bytes() as f64;
    let usage = usage.scaled(fs_capacity / 10e9);
    let mut cfg = LifeConfig::new(Policy::parse(policy).unwrap(), 365 * DAY, 7);
    cfg.probe_every = 30;
    run_life(&profile, &usage, &cfg, |_| {}).unwrap()
}

fn valid_frac(s: &flashlab_life::series::Sample) -> f64 {
    s.device_valid_bytes as f64 / s.logical_bytes as f64
}

#[test]
fn no_trim_fills_the_device_and_slows_it() {
    let none = run("none");
    let first_full = none.samples.iter().find(|s| valid_frac(s) > 0.99).expect("device-valid data reaches capacity");
    let month = first_full.day / (365.0 / 12.0);
    assert!((8.0..=11.5).contains(&month), "full at month {month:.1}, expected ~10");
    for s in &none.samples[none.samples.len() - 30..] {
        assert!(valid_frac(s) > 0.99, "stays full, day {}", s.day);
        let fs = s.fs_used_bytes as f64 / s.fs_capacity_bytes as f64;
        assert!(fs < 0.15, "filesystem {fs:.2} used: mostly free");
        assert!(s.deleted_valid_bytes as f64 > 0.8 * s.logical_bytes as f64);
    }
    let early = none.samples.iter().find_map(|s| s.probe).unwrap();
    let late = none.last_probe().unwrap();
    assert!(
        late.rand_write_mbs < 0.7 * early.rand_write_mbs,
        "random writes {:.1} -> {:.1} MB/s should fall",
        early.rand_write_mbs,
        late.rand_write_mbs
    );
    assert!(late.p99_us > early.p99_us, "p99 {} -> {} us should rise", early.p99_us, late.p99_us);

    for policy in ["discard", "fstrim:7d", "android"] {
        let r = run(policy);
        let max_valid = r.samples.iter().map(valid_frac).fold(0.0, f64::max);
        assert!(max_valid < 0.2, "{policy}: device-valid data peaked at {max_valid:.2} of capacity");
        let p = r.last_probe().unwrap();
        assert!(
            p.rand_write_mbs > 0.9 * early.rand_write_mbs && p.rand_write_mbs > 1.5 * late.rand_write_mbs,
            "{policy}: random writes {:.1} MB/s at the end (new: {:.1}, untrimmed: {:.1})",
            p.rand_write_mbs,
            early.rand_write_mbs,
            late.rand_write_mbs
        );
        assert!(r.last().fstrims > 0 || policy == "discard", "{policy} trimmed");
        // Same seed, same usage: the application wrote the same.
        assert_eq!(r.app.write_bytes, none.app.write_bytes, "{policy}");
    }
}

#[test]
fn deterministic_for_a_seed() {
    let a = run("android");
    let b = run("android");
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}
