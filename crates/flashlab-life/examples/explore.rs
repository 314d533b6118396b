//! Explore a life run from the command line while developing: `explore PROFILE PRESET POLICY DAYS`.
use flashlab_life::policy::{Policy, DAY};
use flashlab_life::runner::{run_life, LifeConfig};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = flashlab_lab::profiles::builtin(&a[1]).unwrap();
    let profile = flashsim::Profile::from_toml(&a[1], text).unwrap();
    let mut usage = flashlab_life::presets::resolve(&a[2]).unwrap();
    if let Some(f) = a.get(5) {
        usage = usage.scaled(f.parse().unwrap());
    }
    let days: u64 = a[4].parse().unwrap();
    let cfg = LifeConfig::new(Policy::parse(&a[3]).unwrap(), days * DAY, 1);
    let t = std::time::Instant::now();
    let r = run_life(&profile, &usage, &cfg, |_| {}).unwrap();
    for s in &r.samples {
        if s.probe.is_none() {
            continue;
        }
        println!(
            "day {:>4} fs {:>5.1}% valid {:>5.1}% free {:>4} waf {:.2} er {:.1}/{} app p99 {:?} probe {:?}",
            s.day,
            100.0 * s.fs_used_bytes as f64 / s.fs_capacity_bytes as f64,
            100.0 * s.device_valid_bytes as f64 / s.logical_bytes as f64,
            s.free_blocks,
            s.waf,
            s.erases_mean,
            s.erases_max,
            s.app_write_p99_us,
            s.probe.map(|p| (p.rand_write_mbs as u32, p.p99_us as u32)),
        );
    }
    println!("{:?} wall {:.1}s", r.app, t.elapsed().as_secs_f64());
}
