//! The SLC write cache: host writes are fast until the cache is full (the cliff), idle time
//! folds the cache into the main area, and after that writes are fast again.

mod common;

use flashsim::{Device, Op, Request, MAP_UNIT};

/// MB/s of `mib` MiB written sequentially in 1 MiB requests at QD1 from `lpn`.
fn write_mbs(dev: &mut Device, now: &mut u64, lpn: u64, mib: u64) -> f64 {
    let start = *now;
    for i in 0..mib {
        let r = Request::new(Op::Write, (lpn + i * 256) * MAP_UNIT, 256 * MAP_UNIT);
        *now = dev.submit(*now, &r).unwrap().done;
    }
    (mib << 20) as f64 / ((*now - start) as f64 / 1e9) / 1e6
}

#[test]
fn fast_until_full_then_the_cliff_and_idle_folding_restores_it() {
    let mut p = common::toy();
    p.ftl.slc_cache_mib = 16;
    p.ftl.slc_t_prog_us = 100.0;
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    let cached = write_mbs(&mut dev, &mut now, 0, 15);
    let after = write_mbs(&mut dev, &mut now, 15 * 256, 30);
    assert!(cached > 2.0 * after, "SLC cache {cached:.1} MB/s vs after it filled {after:.1} MB/s");
    let c = dev.counters();
    assert_eq!(c.slc_units_written, 16 * 256, "the cache takes exactly its capacity");
    assert_eq!(dev.state().slc_cached_units, 16 * 256);
    now += 60_000_000_000;
    dev.idle_until(now);
    assert_eq!(dev.state().slc_cached_units, 0, "a minute of idle folds 16 MiB");
    assert_eq!(dev.counters().slc_units_folded, 16 * 256);
    assert!(dev.counters().write_amplification() > 1.2, "folding rewrites the data: WAF {}", c.write_amplification());
    let again = write_mbs(&mut dev, &mut now, 0, 15);
    assert!((again / cached - 1.0).abs() < 0.1, "after folding {again:.1} MB/s vs {cached:.1} when new");
    dev.check_invariants().unwrap();
}

#[test]
fn slc_settings_are_validated() {
    let mut p = common::toy();
    p.ftl.slc_cache_mib = 16;
    p.ftl.slc_t_prog_us = 0.0;
    assert_eq!(p.validate("t").unwrap_err().field.as_deref(), Some("ftl.slc_t_prog_us"));
    p.ftl.slc_t_prog_us = 100.0;
    p.ftl.slc_cache_mib = 1 << 20;
    assert_eq!(p.validate("t").unwrap_err().field.as_deref(), Some("ftl.slc_cache_mib"));
}
