//! The hybrid (log-block) FTL's merges: sequential runs over whole blocks become data blocks
//! without a copy, random writes pay full merges, and merges skip units the host trimmed.

mod common;

use flashsim::{Device, MappingKind, Op, Profile, Request, MAP_UNIT};

fn hybrid() -> Profile {
    let mut p = common::toy();
    p.ftl.mapping = MappingKind::Hybrid;
    p.ftl.log_blocks = 2;
    p
}

/// Units per block of the toy geometry: 64 pages x 8 KiB.
const UPB: u64 = 128;

fn write(dev: &mut Device, now: &mut u64, lpn: u64, units: u64) {
    *now = dev.submit(*now, &Request::new(Op::Write, lpn * MAP_UNIT, units * MAP_UNIT)).unwrap().done;
}

#[test]
fn sequential_whole_blocks_switch_without_copying() {
    let mut dev = Device::new(&hybrid(), 1);
    let mut now = 0;
    // 12 x 50 blocks written: more than the device's 512, so freed blocks are erased and reused.
    for round in 0..12 {
        for b in 0..50 {
            write(&mut dev, &mut now, b * UPB, UPB);
        }
        dev.check_invariants().unwrap_or_else(|e| panic!("round {round}: {e}"));
    }
    let c = dev.counters();
    assert_eq!(c.gc_units_copied, 0, "switch merges copy nothing: {c:?}");
    assert!(c.erases > 0, "rewritten blocks are erased: {c:?}");
}

/// Random single-unit writes over `blocks` full blocks, after `trim_half` optionally trimmed
/// the second half of each block; returns the units merges copied.
fn random_writes_copies(trim_half: bool) -> u64 {
    let mut dev = Device::new(&hybrid(), 1);
    let mut now = 0;
    let blocks = 16;
    for b in 0..blocks {
        write(&mut dev, &mut now, b * UPB, UPB);
    }
    if trim_half {
        for b in 0..blocks {
            let r = Request::new(Op::Trim, (b * UPB + UPB / 2) * MAP_UNIT, UPB / 2 * MAP_UNIT);
            now = dev.submit(now, &r).unwrap().done;
        }
    }
    let before = dev.counters().gc_units_copied;
    let mut x: u64 = 12345;
    for _ in 0..2000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let b = (x >> 33) % blocks;
        let off = (x >> 17) % (UPB / 2);
        write(&mut dev, &mut now, b * UPB + off, 1);
    }
    dev.check_invariants().unwrap();
    dev.counters().gc_units_copied - before
}

#[test]
fn random_writes_pay_full_merges_and_trimmed_units_are_not_copied() {
    let untrimmed = random_writes_copies(false);
    let trimmed = random_writes_copies(true);
    // 2000 writes over 16 blocks with 2 log blocks of 128 units: many full merges.
    assert!(untrimmed > 2000, "random writes should cost full-block merges, copied {untrimmed}");
    // With half of every block trimmed, a merge copies at most half a block.
    assert!(
        (trimmed as f64) < 0.6 * untrimmed as f64,
        "trimmed units must not be copied: {trimmed} copies vs {untrimmed} untrimmed"
    );
}

#[test]
fn idle_time_merges_the_random_logs() {
    let mut dev = Device::new(&hybrid(), 1);
    let mut now = 0;
    for b in 0..8 {
        write(&mut dev, &mut now, b * UPB, UPB);
    }
    for i in 0..300 {
        write(&mut dev, &mut now, (i * 37) % (8 * UPB), 1);
    }
    let before = dev.counters().gc_victims_background;
    now += 10_000_000_000;
    dev.idle_until(now);
    assert!(dev.counters().gc_victims_background > before, "no background merge in 10 s of idle");
    dev.check_invariants().unwrap();
}

#[test]
fn a_hybrid_profile_needs_log_blocks_and_spare() {
    let mut p = hybrid();
    p.ftl.log_blocks = 0;
    let e = p.validate("t").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("ftl.log_blocks"), "{e}");
    let mut p = hybrid();
    p.ftl.log_blocks = 400;
    let e = p.validate("t").unwrap_err();
    assert!(e.field.as_deref() == Some("ftl.log_blocks") || e.field.as_deref() == Some("ftl.spare_factor"), "{e}");
}
