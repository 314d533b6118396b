//! A DRAM-less controller's mapping cache: random I/O within the span its SRAM maps costs
//! nothing extra; beyond it, a translation-page read (tR) per miss, and dirty evictions are
//! programmed back.

mod common;

use flashsim::{Device, Op, Request, MAP_UNIT};

/// Mean latency of `n` QD1 random 4 KiB `op`s over the first `span_units` units.
fn mean_latency(dev: &mut Device, now: &mut u64, op: Op, span_units: u64, n: u64) -> f64 {
    let mut x: u64 = 99;
    let mut sum = 0u64;
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let lpn = (x >> 20) % span_units;
        let c = dev.submit(*now, &Request::new(op, lpn * MAP_UNIT, MAP_UNIT)).unwrap();
        sum += c.latency();
        *now = c.done;
    }
    sum as f64 / n as f64
}

#[test]
fn misses_cost_a_translation_read_and_dirty_evictions_a_program() {
    let mut p = common::toy();
    // 2 translation pages of SRAM: 8 MiB of the mapping.
    p.ftl.map_cache_kib = 8;
    let t_read_ns = p.nand.t_read_us * 1000.0;
    let mut dev = Device::new(&p, 1);
    let mut now = 0;
    let units = 64 << 20 >> 12;
    for lpn in (0..units).step_by(32) {
        now = dev.submit(now, &Request::new(Op::Write, lpn * MAP_UNIT, 32 * MAP_UNIT)).unwrap().done;
    }
    now = dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap().done;
    // Warm the cache on the first 4 MiB (one translation page).
    mean_latency(&mut dev, &mut now, Op::Read, 1024, 200);
    let before = dev.counters();
    let hit = mean_latency(&mut dev, &mut now, Op::Read, 1024, 2000);
    assert_eq!(dev.counters().map_page_reads, before.map_page_reads, "reads within the cached span miss");
    let miss = mean_latency(&mut dev, &mut now, Op::Read, units, 2000);
    let reads = dev.counters().map_page_reads - before.map_page_reads;
    assert!(reads > 1500, "random reads over 16 translation pages with 2 cached: {reads} misses of 2000");
    let extra = miss - hit;
    assert!(
        extra > 0.7 * t_read_ns && extra < 1.6 * t_read_ns,
        "a miss should add about one tR ({t_read_ns} ns): hit {hit:.0} ns, miss {miss:.0} ns"
    );
    let w0 = dev.counters().map_page_writes;
    mean_latency(&mut dev, &mut now, Op::Write, units, 2000);
    assert!(dev.counters().map_page_writes > w0 + 1000, "random writes must write back dirty translation pages");
}

/// `ftl.map_writeback = "packed"`: the same misses and write-backs as `page`, but the dirty
/// translation pages are programmed a program unit at a time, so map programs are the
/// write-backs divided by the units per page, and reads queued behind them wait less.
#[test]
fn packed_write_backs_program_a_unit_of_translation_pages_at_a_time() {
    let run = |packed: bool| {
        let mut p = common::toy();
        p.ftl.map_cache_kib = 8;
        if packed {
            p.ftl.map_writeback = flashsim::profile::MapWriteback::Packed;
        }
        let upp = (p.nand.page_kib * p.nand.planes_per_die / 4) as u64;
        let mut dev = Device::new(&p, 1);
        let mut now = 0;
        let units = 64 << 20 >> 12;
        let before = dev.counters();
        let lat = mean_latency(&mut dev, &mut now, Op::Write, units, 4000);
        let c = dev.counters();
        let (writebacks, programs) = (c.map_page_writes - before.map_page_writes, c.nand_page_programs);
        (lat, writebacks, programs, c.host_units_written, upp)
    };
    let (lat_page, wb_page, prog_page, host, upp) = run(false);
    let (lat_packed, wb_packed, prog_packed, _, _) = run(true);
    assert!(upp > 1, "toy's program unit holds {upp} units");
    assert_eq!(wb_page, wb_packed, "the cache's misses and write-backs do not depend on how they are programmed");
    assert!(wb_page > 3000, "random writes over 16 translation pages with 2 cached: {wb_page} write-backs");
    // Host pages are the same in both; map programs fall from one per write-back to 1/upp.
    let host_pages = host.div_ceil(upp);
    let map_page = prog_page - host_pages.min(prog_page);
    let map_packed = prog_packed - host_pages.min(prog_packed);
    assert!(map_page >= wb_page - 1, "page: a program per write-back ({map_page} for {wb_page})");
    assert!(map_packed <= wb_packed / upp + 1, "packed: {map_packed} map programs for {wb_packed} write-backs");
    assert!(lat_packed < lat_page, "fewer map programs, shorter queues: {lat_packed:.0} vs {lat_page:.0} ns");
}

#[test]
fn packed_write_back_needs_a_map_cache() {
    let mut p = common::toy();
    p.ftl.map_writeback = flashsim::profile::MapWriteback::Packed;
    let e = p.validate("toy").unwrap_err().to_string();
    assert!(e.contains("ftl.map_writeback"), "{e}");
}
