//! Simulator speed (issue 2, acceptance 6): simulated 4 KiB random writes per wall-clock second,
//! timing on, GC running, spare factor 0.07, 16 GiB of NAND, one core.
//!
//! Two devices:
//! - `emmc-16g`: the shipped profile (16 GiB physical, spare 0.07, 8 KiB pages x 2 planes, so
//!   one program unit is four 4 KiB units; 2 channels x 2 dies; greedy GC; eMMC, QD1).
//! - `onepage-16g`: the `sim waf` device (one die, one plane, 4 KiB pages, 64 pages per block)
//!   scaled to 16 GiB (65536 blocks), the geometry of the write-amplification experiment.
//!
//! Each device is prefilled sequentially (256 KiB writes), then warmed up with uniform random
//! 4 KiB writes until GC is in steady state (`FLASHSIM_BENCH_WARMUP_PASSES` logical passes,
//! default 2), then criterion times batches of QD1 random 4 KiB writes through
//! `Device::submit` (each write is submitted when the previous one completes, on the virtual
//! clock). After each device the bench prints the writes per wall second over the whole timed
//! window, the write amplification in it, and the memory the FTL holds per physical 4 KiB unit.
//!
//! Run: `cargo bench -p flashsim --bench sim_speed` (about 40 s once built). Results and how
//! they were measured: docs/speed.md.

use criterion::{Criterion, Throughput};
use flashsim::{Device, Op, Profile, Request, MAP_UNIT};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cell::RefCell;
use std::time::{Duration, Instant};

const EMMC_16G: &str = include_str!("../profiles/emmc-16g.toml");

/// A device under random 4 KiB QD1 writes, with its virtual clock and workload generator.
struct Bench {
    dev: Device,
    now: u64,
    rng: Xoshiro256PlusPlus,
    logical_units: u64,
}

impl Bench {
    fn new(profile: &Profile) -> Bench {
        let dev = Device::new(profile, 1);
        let logical_units = dev.logical_bytes() / MAP_UNIT;
        Bench { dev, now: 0, rng: Xoshiro256PlusPlus::seed_from_u64(42), logical_units }
    }

    fn prefill(&mut self) {
        let chunk = 256 * 1024;
        let total = self.dev.logical_bytes();
        let mut off = 0;
        while off < total {
            let len = chunk.min(total - off);
            self.now = self.dev.submit(self.now, &Request::new(Op::Write, off, len)).expect("in range").done;
            off += len;
        }
    }

    #[inline]
    fn random_writes(&mut self, n: u64) {
        for _ in 0..n {
            let lpn = self.rng.next_u64() % self.logical_units;
            let r = Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT);
            self.now = self.dev.submit(self.now, &r).expect("in range").done;
        }
    }
}

fn warmup_passes() -> f64 {
    std::env::var("FLASHSIM_BENCH_WARMUP_PASSES").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0)
}

fn run_device(c: &mut Criterion, name: &str, profile: &Profile) {
    let setup = Instant::now();
    let mut b = Bench::new(profile);
    b.prefill();
    let prefilled = setup.elapsed();
    let warm = (b.logical_units as f64 * warmup_passes()) as u64;
    let t = Instant::now();
    // The last quarter of the warm-up gives a WAF to compare the timed window's with.
    b.random_writes(warm - warm / 4);
    let before_last = b.dev.counters();
    b.random_writes(warm / 4);
    let warm_time = t.elapsed();
    let warm_waf = b.dev.counters().since(&before_last).write_amplification();
    eprintln!(
        "{name}: {} logical units, {} physical; prefill {:.1} s, warm-up {warm} random writes in {:.1} s ({:.2} M/s), WAF over its last quarter {warm_waf:.3}",
        b.logical_units,
        b.dev.state().physical_units,
        prefilled.as_secs_f64(),
        warm_time.as_secs_f64(),
        warm as f64 / warm_time.as_secs_f64() / 1e6,
    );

    let start = b.dev.counters();
    let bench = RefCell::new(b);
    let timed = RefCell::new((0u64, Duration::ZERO));
    let mut group = c.benchmark_group("random_4k_write_qd1");
    group.throughput(Throughput::Elements(1));
    group.warm_up_time(Duration::from_secs(2));
    group.measurement_time(Duration::from_secs(10));
    group.sample_size(20);
    group.bench_function(name, |bencher| {
        bencher.iter_custom(|iters| {
            let mut b = bench.borrow_mut();
            let t = Instant::now();
            b.random_writes(iters);
            let el = t.elapsed();
            let mut tm = timed.borrow_mut();
            tm.0 += iters;
            tm.1 += el;
            el
        })
    });
    group.finish();

    let b = bench.into_inner();
    let (writes, elapsed) = timed.into_inner();
    let window = b.dev.counters().since(&start);
    let mem = b.dev.memory_bytes();
    let physical = b.dev.state().physical_units;
    eprintln!(
        "RESULT {name}: {:.3} M random 4 KiB writes per wall second ({writes} writes in {:.2} s, criterion warm-up included); \
         WAF {:.3} ({} GC copies, {} erases); FTL memory {} bytes = {:.3} bytes per physical 4 KiB unit; virtual time {:.1} s",
        writes as f64 / elapsed.as_secs_f64() / 1e6,
        elapsed.as_secs_f64(),
        window.write_amplification(),
        window.gc_units_copied,
        window.erases,
        mem,
        mem as f64 / physical as f64,
        b.now as f64 / 1e9,
    );
}

fn sim_speed(c: &mut Criterion) {
    let emmc = Profile::from_toml("emmc-16g", EMMC_16G).expect("emmc-16g profile");
    run_device(c, "emmc-16g", &emmc);
    // The `sim waf` device at 16 GiB: 65536 blocks of 64 pages of 4 KiB, spare 0.07, greedy.
    let one = flashsim::profile::single_die(65536, 64, 0.07, flashsim::GcPolicy::Greedy).expect("one-page profile");
    run_device(c, "onepage-16g", &one);
}

// What `criterion_group!` and `criterion_main!` write, as a private function: theirs are
// `pub fn`s without doc comments, which the workspace's `missing_docs` lint reports.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    sim_speed(&mut c);
    c.final_summary();
}
