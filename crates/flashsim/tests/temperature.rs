//! Placement by temperature keeps the FTL's laws: every read returns the last data written,
//! the mapping, valid counts and free lists agree, under skewed overwrites with the detector
//! or the host's hint, GC copies split by temperature or not. And it is off by default: a
//! profile that does not ask for it behaves exactly as before.

mod common;

use flashsim::{Device, Op, Request, TemperatureMode, MAP_UNIT};

fn run(mode: TemperatureMode, gc_split: bool, seed: u64) -> Device {
    let mut p = common::toy();
    p.ftl.host_streams = 2;
    p.ftl.separate_gc_frontier = true;
    p.ftl.temperature = mode;
    p.ftl.gc_by_temperature = gc_split;
    p.validate("toy with temperature").unwrap();
    let mut dev = Device::new(&p, seed);
    dev.track_content();
    let units = dev.logical_bytes() / MAP_UNIT;
    let mut expect = vec![None; units as usize];
    let mut now = 0;
    let mut x = seed | 1;
    let mut tag = 0;
    // Fill, then 3 passes of overwrites: 90 % to the first 10 % of the space.
    for i in 0..units * 4 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let hot = i >= units && !x.is_multiple_of(10);
        let lpn = if i < units {
            i
        } else if hot {
            (x >> 8) % (units / 10)
        } else {
            units / 10 + (x >> 8) % (units - units / 10)
        };
        tag += 1;
        let stream = u32::from(hot);
        let r = Request { op: Op::Write, offset: lpn * MAP_UNIT, len: MAP_UNIT, stream, tag };
        now = dev.submit(now, &r).unwrap().done;
        expect[lpn as usize] = Some(tag);
        if i % 50_000 == 0 {
            dev.check_invariants().unwrap();
        }
    }
    dev.check_invariants().unwrap();
    for (lpn, e) in expect.iter().enumerate() {
        assert_eq!(dev.peek(lpn as u32), *e, "lpn {lpn}");
    }
    assert!(dev.counters().gc_units_copied > 0, "GC ran");
    dev
}

#[test]
fn reads_return_the_last_write_with_every_placement() {
    for (mode, split) in [
        (TemperatureMode::Hint, false),
        (TemperatureMode::Hint, true),
        (TemperatureMode::Detect, false),
        (TemperatureMode::Detect, true),
    ] {
        let dev = run(mode, split, 5);
        if mode == TemperatureMode::Detect {
            let (hot, cold) = dev.temperature_split().unwrap();
            assert!(hot > 0 && cold > 0, "{mode:?}: both frontiers used ({hot} hot, {cold} cold)");
        }
    }
}

#[test]
fn off_by_default_and_inconsistent_settings_are_named() {
    let p = common::toy();
    assert_eq!(p.ftl.temperature, TemperatureMode::Off);
    assert!(!p.ftl.gc_by_temperature);
    let mut q = p.clone();
    q.ftl.temperature = TemperatureMode::Detect;
    let e = q.validate("x").unwrap_err().to_string();
    assert!(e.contains("ftl.temperature") && e.contains("host_streams"), "{e}");
    let mut q = p.clone();
    q.ftl.gc_by_temperature = true;
    assert!(q.validate("x").unwrap_err().to_string().contains("ftl.gc_by_temperature"));
}
