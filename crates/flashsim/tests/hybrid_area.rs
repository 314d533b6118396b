//! The hybrid FTL's random-log area (`hybrid/area.rs`): on a discarded device it grows into
//! the erased blocks beyond the spare area, so random writes over a span merge far less than
//! with the fixed `log_blocks`; once the host has mapped its logical space it is back to
//! `log_blocks`, and the same writes merge as much as on a fixed area.

use flashsim::{builtin, Device, Op, Profile, Request, MAP_UNIT};

fn profile(max_log_blocks: u32) -> Profile {
    let mut p = Profile::from_toml("nexus7-2012.toml", builtin::text("nexus7-2012").expect("built-in")).unwrap();
    p.ftl.max_log_blocks = max_log_blocks;
    p
}

/// 4 KiB random writes over the first `span` bytes; returns the units merges copied.
fn random_writes(dev: &mut Device, now: &mut u64, span: u64, n: u64) -> u64 {
    let before = dev.counters().gc_units_copied;
    let mut x: u64 = 5;
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let off = (x >> 21) % (span / MAP_UNIT);
        *now = dev.submit(*now, &Request::new(Op::Write, off * MAP_UNIT, MAP_UNIT)).unwrap().done;
    }
    dev.check_invariants().unwrap();
    dev.counters().gc_units_copied - before
}

#[test]
fn the_log_area_grows_on_a_discarded_device_and_shrinks_on_a_full_one() {
    let span = 100 << 20;
    let n = 20_000;
    // Fresh (nothing mapped): the grown area merges far less than the fixed one.
    let (mut fixed, mut grown) = (Device::new(&profile(0), 1), Device::new(&profile(64), 1));
    let (mut t0, mut t1) = (0, 0);
    let copied_fixed = random_writes(&mut fixed, &mut t0, span, n);
    let copied_grown = random_writes(&mut grown, &mut t1, span, n);
    assert!(copied_grown * 4 < copied_fixed, "grown area copied {copied_grown} units, fixed {copied_fixed}");
    // Full (every logical unit mapped): the area is back to `log_blocks`, so the grown device
    // merges about as much as the fixed one.
    let (mut fixed, mut grown) = (Device::new(&profile(0), 1), Device::new(&profile(64), 1));
    for d in [&mut fixed, &mut grown] {
        d.map_all_sequential().unwrap();
    }
    let (mut t0, mut t1) = (0, 0);
    let copied_fixed = random_writes(&mut fixed, &mut t0, span, n);
    let copied_grown = random_writes(&mut grown, &mut t1, span, n);
    let ratio = copied_grown as f64 / copied_fixed as f64;
    assert!((0.8..=1.25).contains(&ratio), "full device: grown area copied {copied_grown} units, fixed {copied_fixed}");
}
