//! The hybrid FTL's sequential log is never closed whole inside one command: on a device whose
//! partial merge of a block takes longer than the busy-time ceiling (nexus7-2012: 128 pages of
//! ~2.1 ms), random writes that keep hitting offset 0 of blocks (each would open a sequential
//! run, closing the previous one) stay under the ceiling, and every unit reads back.

use flashsim::{builtin, Device, Op, Profile, Request, MAP_UNIT};

fn nexus7() -> Profile {
    Profile::from_toml("nexus7-2012.toml", builtin::text("nexus7-2012").expect("built-in")).unwrap()
}

#[test]
fn offset_zero_writes_do_not_close_the_sequential_log_past_the_ceiling() {
    let p = nexus7();
    let ceiling_ns = (p.busy_ceiling_ms() * 1e6) as u64;
    let upb = u64::from(p.nand.pages_per_block) * u64::from(p.nand.page_kib) * u64::from(p.nand.planes_per_die) * 1024
        / MAP_UNIT;
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    let blocks = 24;
    // Whole blocks written in order: data blocks by switch merges, every unit mapped.
    for b in 0..blocks {
        let r = Request::new(Op::Write, b * upb * MAP_UNIT, 64 * MAP_UNIT);
        for part in 0..upb / 64 {
            let r = Request::new(Op::Write, r.offset + part * 64 * MAP_UNIT, r.len);
            now = dev.submit(now, &r).unwrap().done;
        }
    }
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
