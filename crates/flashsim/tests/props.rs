//! Property tests: over random small geometries and random request sequences, every read
//! returns the last data written (or zeros after a trim), GC never loses or duplicates a valid
//! unit, and the bookkeeping always agrees with the mapping.

mod common;

use flashsim::{Device, GcPolicy, MappingKind, Op, Profile, Request, MAP_UNIT};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    Write { at: f64, units: u32, stream: u32 },
    Read { at: f64, units: u32 },
    Trim { at: f64, units: u32 },
    Flush,
    Idle { ms: u32 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0.0..1.0f64, 1..9u32, 0..2u32).prop_map(|(at, units, stream)| Step::Write { at, units, stream }),
        2 => (0.0..1.0f64, 1..9u32).prop_map(|(at, units)| Step::Read { at, units }),
        1 => (0.0..1.0f64, 1..17u32).prop_map(|(at, units)| Step::Trim { at, units }),
        1 => Just(Step::Flush),
        1 => (1..50u32).prop_map(|ms| Step::Idle { ms }),
    ]
}

fn geometry() -> impl Strategy<Value = Profile> {
    (
        (1..3u32, 1..3u32, 1..3u32),
        (12..40u32, 4..17u32, prop_oneof![Just(4u32), Just(8), Just(16)]),
        (0.2..0.4f64, 0..4usize, 1..3u32, any::<bool>(), 1..3u32, any::<bool>(), 0..3u32),
    )
        .prop_map(
            |((ch, dpc, planes), (blocks, ppb, page), (spare, pol, gcmin, separate, streams, volatile, cache))| {
                let mut p = common::toy();
                p.nand.channels = ch;
                p.nand.dies_per_channel = dpc;
                p.nand.planes_per_die = if page * planes > 64 { 1 } else { planes };
                p.nand.blocks_per_plane = blocks;
                p.nand.pages_per_block = ppb;
                p.nand.page_kib = page;
                p.ftl.spare_factor = spare;
                p.ftl.gc_policy = [GcPolicy::Greedy, GcPolicy::CostBenefit, GcPolicy::Fifo, GcPolicy::Random][pol];
                p.ftl.gc_min_free_blocks = gcmin;
                p.ftl.bg_gc_target_free_blocks = gcmin + 2;
                p.ftl.separate_gc_frontier = separate;
                p.ftl.host_streams = streams;
                p.ftl.write_buffer_volatile = volatile;
                // No mapping cache, or a DRAM-less controller caching 1 or 2 translation pages.
                p.ftl.map_cache_kib = 4 * cache;
                let upp = p.units_per_page();
                p.ftl.write_buffer_kib = 4 * 2 * upp * (streams + 2);
                p
            },
        )
        .prop_filter("profile must validate", |p| p.validate("generated").is_ok())
}

/// Small hybrid (log-block) devices: few log blocks, so merges of every kind run often.
fn hybrid_geometry() -> impl Strategy<Value = Profile> {
    ((1..3u32, 1..3u32), (16..40u32, 4..17u32, prop_oneof![Just(4u32), Just(8)]), (1..5u32, any::<bool>()))
        .prop_map(|((ch, dpc), (blocks, ppb, page), (logs, volatile))| {
            let mut p = common::toy();
            p.nand.channels = ch;
            p.nand.dies_per_channel = dpc;
            p.nand.planes_per_die = 1;
            p.nand.blocks_per_plane = blocks;
            p.nand.pages_per_block = ppb;
            p.nand.page_kib = page;
            p.ftl.mapping = MappingKind::Hybrid;
            p.ftl.log_blocks = logs;
            let total = f64::from(blocks * ch * dpc);
            p.ftl.spare_factor = ((f64::from(logs) + 4.0) / total).max(0.2);
            p.ftl.bg_gc_target_free_blocks = 2;
            p.ftl.write_buffer_volatile = volatile;
            p.ftl.write_buffer_kib = 4 * 2 * p.units_per_page() * 3;
            p
        })
        .prop_filter("profile must validate", |p| p.validate("generated").is_ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn reads_return_last_write(profile in geometry(), steps in prop::collection::vec(step(), 1..400), seed in any::<u64>()) {
        check_reads(&profile, &steps, seed)?;
    }

    #[test]
    fn hybrid_reads_return_last_write(profile in hybrid_geometry(), steps in prop::collection::vec(step(), 1..400), seed in any::<u64>()) {
        check_reads(&profile, &steps, seed)?;
    }
}

/// Every read returns the last write (or zeros after a trim), and the bookkeeping agrees.
fn check_reads(profile: &Profile, steps: &[Step], seed: u64) -> Result<(), TestCaseError> {
    {
        let mut dev = Device::new(profile, seed);
        dev.track_content();
        let units = dev.logical_bytes() / MAP_UNIT;
        let streams = profile.ftl.host_streams;
        let mut model: Vec<Option<u64>> = vec![None; units as usize];
        let mut now = 0u64;
        // Write the whole device once, then most of it again, so GC runs in every case.
        let mut tag = 0u64;
        for round in 0..3 {
            for lpn in (0..units).step_by(if round < 2 { 1 } else { 3 }) {
                tag += 1;
                let r = Request { op: Op::Write, offset: lpn * MAP_UNIT, len: MAP_UNIT, stream: 0, tag };
                now = dev.submit(now, &r).unwrap().done;
                model[lpn as usize] = Some(tag);
            }
        }
        for (i, s) in steps.iter().enumerate() {
            tag += 1;
            let pick = |at: f64, n: u32| -> (u64, u64) {
                let n = u64::from(n).min(units);
                ((at * (units - n + 1) as f64) as u64 % (units - n + 1), n)
            };
            match *s {
                Step::Write { at, units: n, stream } => {
                    let (lpn, n) = pick(at, n);
                    let r = Request {
                        op: Op::Write,
                        offset: lpn * MAP_UNIT,
                        len: n * MAP_UNIT,
                        stream: stream % streams,
                        tag,
                    };
                    // Overlapping requests: submit without waiting for the previous one.
                    let c = dev.submit(now, &r).unwrap();
                    now += (c.done - now) / 2;
                    for l in lpn..lpn + n {
                        model[l as usize] = Some(tag);
                    }
                }
                Step::Read { at, units: n } => {
                    let (lpn, n) = pick(at, n);
                    let c = dev.submit(now, &Request::new(Op::Read, lpn * MAP_UNIT, n * MAP_UNIT)).unwrap();
                    prop_assert!(c.done > now);
                    now = c.done;
                }
                Step::Trim { at, units: n } => {
                    let (lpn, n) = pick(at, n);
                    now = dev.submit(now, &Request::new(Op::Trim, lpn * MAP_UNIT, n * MAP_UNIT)).unwrap().done;
                    for l in lpn..lpn + n {
                        model[l as usize] = None;
                    }
                }
                Step::Flush => {
                    now = dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap().done;
                }
                Step::Idle { ms } => {
                    now += u64::from(ms) * 1_000_000;
                    dev.idle_until(now);
                }
            }
            if i % 37 == 0 {
                if let Err(e) = dev.check_invariants() {
                    prop_assert!(false, "after step {i} {s:?}: {e}");
                }
            }
        }
        if let Err(e) = dev.check_invariants() {
            prop_assert!(false, "at end: {e}");
        }
        for lpn in 0..units {
            prop_assert_eq!(dev.peek(lpn as u32), model[lpn as usize], "lpn {}", lpn);
        }
        let st = dev.state();
        let mapped = model.iter().filter(|m| m.is_some()).count() as u64;
        prop_assert!(st.valid_units <= mapped, "more valid units on NAND ({}) than mapped ({mapped})", st.valid_units);
        prop_assert!(dev.counters().gc_units_copied > 0 || dev.counters().erases > 0, "GC never ran");
    }
    Ok(())
}
