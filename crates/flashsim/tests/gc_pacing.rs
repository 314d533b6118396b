//! Foreground GC pacing on a page-mapped FTL with large erase blocks (issue 17, acceptance 2's
//! ceiling on page mapping): under sustained random overwrite of a full device no write command
//! is busy past the profile's busy-time ceiling, though cleaning one victim alone takes longer
//! than the ceiling. The GC work shows as a fat tail of commands that carry a few page copies.

mod common;

use flashsim::{Device, Ns, Op, Request, MAP_UNIT};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The fixture's path, and the values in which it differs from toy.toml.
const FIXTURE: &str = "tests/fixtures/toy-4mib-blocks.toml";
const CHANGED: [(&str, &str); 5] = [
    ("nand", "blocks_per_plane"),
    ("nand", "pages_per_block"),
    ("ftl", "spare_factor"),
    ("ftl", "bg_gc_target_free_blocks"),
    ("ftl", "gc_pages_per_command"),
];

/// The fixture shared with flashlab-lab's fill test is what its comment says: toy.toml with its
/// own name and five other values, each marked "changed" on its line, so that it cannot drift
/// from toy unnoticed.
#[test]
fn the_large_block_fixture_is_toy_but_for_the_values_it_marks() {
    let mut marked: Vec<&str> = common::TOY_4MIB_BLOCKS
        .lines()
        .filter(|l| l.ends_with("# changed"))
        .map(|l| l.split('=').next().unwrap().trim())
        .collect();
    let mut named: Vec<&str> = CHANGED.iter().map(|(_, key)| *key).collect();
    marked.sort_unstable();
    named.sort_unstable();
    assert_eq!(marked, named, "{FIXTURE}: the lines marked '# changed'");
    let without_changes = |text: &str| {
        let mut t: toml::Table = text.parse().unwrap();
        for key in ["name", "description", "calibration"] {
            t.remove(key);
        }
        for (section, key) in CHANGED {
            t[section].as_table_mut().unwrap().remove(key).expect("the key is in the profile");
        }
        t
    };
    assert_eq!(without_changes(common::TOY_4MIB_BLOCKS), without_changes(common::TOY), "{FIXTURE} vs toy.toml");
}

fn ns(us: f64) -> Ns {
    (us * 1000.0).round() as Ns
}

/// Nearest-rank percentile (`q` in (0, 1]) of sorted latencies.
fn percentile(sorted: &[Ns], q: f64) -> Ns {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[test]
fn no_write_is_busy_past_the_ceiling_on_a_full_device_with_large_blocks() {
    let p = common::toy_4mib_blocks();
    let ceiling = ns(p.busy_ceiling_ms() * 1000.0);
    // One victim whose pages all hold valid data: its reads and programs alone exceed the
    // ceiling (on a full device victims are mostly valid).
    let victim = u64::from(p.nand.pages_per_block) * ns(p.nand.t_read_us + p.nand.t_prog_us);
    assert!(victim > ceiling, "a victim ({victim} ns) must take longer than the ceiling ({ceiling} ns)");

    let mut dev = Device::new(&p, 1);
    let bytes = dev.logical_bytes();
    let units = bytes / MAP_UNIT;
    let mut now = 0;
    for off in (0..bytes).step_by(256 << 10) {
        now = dev.submit(now, &Request::new(Op::Write, off, (256 << 10).min(bytes - off))).unwrap().done;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut write = |dev: &mut Device, now: &mut Ns| {
        let off = (rng.next_u64() % units) * MAP_UNIT;
        let c = dev.submit(*now, &Request::new(Op::Write, off, MAP_UNIT)).unwrap();
        *now = c.done;
        c.latency()
    };
    // One pass to reach GC's steady state, then two measured passes.
    for _ in 0..units {
        write(&mut dev, &mut now);
    }
    let before = dev.counters();
    let mut busy: Vec<Ns> = (0..2 * units).map(|_| write(&mut dev, &mut now)).collect();
    let c = dev.counters().since(&before);
    busy.sort_unstable();
    let (p50, p99, max) = (percentile(&busy, 0.5), percentile(&busy, 0.99), percentile(&busy, 1.0));
    eprintln!(
        "QD1 random 4 KiB overwrite of a full device, 4 MiB blocks: WAF {:.2}, {} victims, {:.0} copies each; \
         write latency p50 {:.1} us, p99 {:.1} us, max {:.1} ms (ceiling {:.0} ms)",
        c.write_amplification(),
        c.gc_victims_foreground,
        c.gc_units_copied as f64 / c.gc_victims_foreground.max(1) as f64,
        p50 as f64 / 1e3,
        p99 as f64 / 1e3,
        max as f64 / 1e6,
        ceiling as f64 / 1e6
    );
    assert!(c.gc_victims_foreground > 10, "GC must run in the measured passes: {c:?}");
    assert!(c.write_amplification() > 1.5, "random overwrite of a full device copies: {c:?}");
    assert!(max <= ceiling, "a write took {max} ns, past the {ceiling} ns ceiling");
    // The GC work is in the tail: the p99 carries at least one page copy (tR + tPROG) more
    // than the median.
    assert!(p99 >= p50 + ns(p.nand.t_read_us + p.nand.t_prog_us), "p50 {p50} ns, p99 {p99} ns");
}
