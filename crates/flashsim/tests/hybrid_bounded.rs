//! The hybrid FTL's sequential log is never closed whole inside one command: on a device whose
//! partial merge of a block takes longer than the busy-time ceiling (nexus7-2012: 128 pages of
//! ~2.1 ms), random writes that keep hitting offset 0 of blocks (each would open a sequential
//! run, closing the previous one) stay under the ceiling, and every unit reads back.

use flashsim::{builtin, Device, Op, Profile, Request, MAP_UNIT};

/// A nexus7-2012 device whose first `blocks` blocks were written whole, in order, 64 units a
/// command (data blocks by switch merges, every unit mapped), with the profile, its busy-time
/// ceiling in ns, the units per block and the time the writes ended.
struct Mapped {
    p: Profile,
    dev: Device,
    ceiling_ns: u64,
    upb: u64,
    now: u64,
}

fn mapped(blocks: u64) -> Mapped {
    let mut p = Profile::from_toml("nexus7-2012.toml", builtin::text("nexus7-2012").expect("built-in")).unwrap();
    // These tests stand for a device full of mapped blocks, whose log area is back to its
    // `log_blocks` (`hybrid/area.rs`); this one maps only `blocks` of its 8192, so the area is
    // held there instead of growing into the free blocks.
    p.ftl.max_log_blocks = 0;
    let ceiling_ns = (p.busy_ceiling_ms() * 1e6) as u64;
    let upb = u64::from(p.nand.pages_per_block) * u64::from(p.nand.page_kib) * u64::from(p.nand.planes_per_die) * 1024
        / MAP_UNIT;
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    for b in 0..blocks {
        for part in 0..upb / 64 {
            let r = Request::new(Op::Write, (b * upb + part * 64) * MAP_UNIT, 64 * MAP_UNIT);
            now = dev.submit(now, &r).unwrap().done;
        }
    }
    Mapped { p, dev, ceiling_ns, upb, now }
}

#[test]
fn offset_zero_writes_do_not_close_the_sequential_log_past_the_ceiling() {
    let blocks = 24;
    let Mapped { p, mut dev, ceiling_ns, upb, mut now } = mapped(blocks);
    let mut worst = 0;
    let mut x: u64 = 7;
    for i in 0..6000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let b = (x >> 33) % blocks;
        // One write in eight starts a block: each would open a sequential log.
        let off = if i % 8 == 0 { 0 } else { (x >> 13) % upb };
        let c = dev.submit(now, &Request::new(Op::Write, (b * upb + off) * MAP_UNIT, MAP_UNIT)).unwrap();
        worst = worst.max(c.device_done - c.device_start);
        now = c.done;
    }
    dev.check_invariants().unwrap();
    assert!(dev.counters().gc_units_copied > 0, "the random writes must have merged blocks");
    assert!(
        worst <= ceiling_ns,
        "a write command was busy {:.1} ms, above the {} ms ceiling",
        worst as f64 / 1e6,
        p.busy_ceiling_ms()
    );
}

/// A jbd2 commit queues several commands at once (journal blocks, a flush, the commit block, a
/// flush) and the application's write waits behind them: on a device full of mapped blocks,
/// under random writes that keep merges going, no request of such a burst, the last included,
/// waits past the busy-time ceiling in total (submission to completion), and merging still
/// keeps up (every unit reads back, the logs never run out).
#[test]
fn a_queued_burst_waits_at_most_the_ceiling_in_total() {
    let blocks = 48;
    let Mapped { p, mut dev, ceiling_ns, upb, mut now } = mapped(blocks);
    // A journal area past the data: commits append to it.
    let journal = blocks * upb + 3;
    let mut head = 0;
    let (mut worst, mut bursts) = (0u64, 0);
    let mut x: u64 = 11;
    for i in 0..8000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let off = (x >> 21) % (blocks * upb);
        if i % 40 == 39 {
            // A commit: journal blocks, flush, commit block, flush, then the application's
            // write, all submitted at the same instant.
            bursts += 1;
            let reqs = [
                Request::new(Op::Write, (journal + head) * MAP_UNIT, 6 * MAP_UNIT),
                Request::new(Op::Flush, 0, 0),
                Request::new(Op::Write, (journal + head + 6) * MAP_UNIT, MAP_UNIT),
                Request::new(Op::Flush, 0, 0),
                Request::new(Op::Write, off * MAP_UNIT, MAP_UNIT),
            ];
            head = (head + 7) % (upb - 8);
            let mut last = now;
            for r in &reqs {
                let c = dev.submit(now, r).unwrap();
                worst = worst.max(c.done - now);
                last = last.max(c.done);
            }
            now = last;
        } else {
            let c = dev.submit(now, &Request::new(Op::Write, off * MAP_UNIT, MAP_UNIT)).unwrap();
            worst = worst.max(c.done - now);
            now = c.done;
        }
    }
    dev.check_invariants().unwrap();
    assert!(bursts > 100);
    assert!(dev.counters().gc_units_copied > 100_000, "merges must have run: {}", dev.counters().gc_units_copied);
    assert!(
        worst <= ceiling_ns,
        "a request waited {:.1} ms in total, above the {} ms ceiling",
        worst as f64 / 1e6,
        p.busy_ceiling_ms()
    );
}
