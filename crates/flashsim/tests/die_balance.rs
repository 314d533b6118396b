//! GC keeps the dies in balance when the host's write pattern does not: an fsync-per-write load
//! whose every fsync pads two pages sends all of its long-lived data to every other die of four
//! (host pages are striped over the dies in turn). With GC copies kept on their die, those dies
//! fill with valid data while the others hold only stale pages, and cleaning them copies nearly
//! whole blocks long before the device is full (`pixel-2016`'s fill with ext4's unwritten
//! extents: WAF 9.4 and two-second writes from 60 %). `Ftl::gc_target` sends copies from a die
//! out of balance to the die holding the least valid data; this test fails without it.

mod common;

use flashsim::{Device, Ns, Op, Request, MAP_UNIT};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn an_aliasing_fsync_load_does_not_fill_half_the_dies() {
    let p = common::toy();
    assert_eq!(p.nand.channels * p.nand.dies_per_channel, 4, "the load aliases with four dies");
    let mut dev = Device::new(&p, 1);
    let units = dev.logical_bytes() / MAP_UNIT;
    // Long-lived data: 85 % of the logical space, each unit written once in random order. Each
    // one as ext4's fsync sends it: the data and a journal block, a flush (one page: a page
    // holds two units on toy), the commit block, a flush (a padded page). The journal and
    // commit blocks rewrite 128 hot units in turn.
    let cold = units * 85 / 100;
    let hot = 128;
    let mut order: Vec<u64> = (hot..hot + cold).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let mut now: Ns = 0;
    let mut max: Ns = 0;
    let mut step = |dev: &mut Device, now: &mut Ns, r: Request| {
        let c = dev.submit(*now, &r).unwrap();
        max = max.max(c.latency());
        *now = c.done;
    };
    let mut tail = None;
    for (i, &u) in order.iter().enumerate() {
        if i == order.len() * 3 / 4 {
            tail = Some(dev.counters());
        }
        let journal = (2 * i as u64) % hot;
        step(&mut dev, &mut now, Request::new(Op::Write, u * MAP_UNIT, MAP_UNIT));
        step(&mut dev, &mut now, Request::new(Op::Write, journal * MAP_UNIT, MAP_UNIT));
        step(&mut dev, &mut now, Request::new(Op::Flush, 0, 0));
        step(&mut dev, &mut now, Request::new(Op::Write, (journal + 1) * MAP_UNIT, MAP_UNIT));
        step(&mut dev, &mut now, Request::new(Op::Flush, 0, 0));
    }
    dev.check_invariants().unwrap();
    let c = dev.counters().since(&tail.unwrap());
    eprintln!(
        "last quarter (64-85 % full): WAF {:.2}, {} victims, {} copies; slowest command {:.1} ms",
        c.write_amplification(),
        c.erases,
        c.gc_units_copied,
        max as f64 / 1e6
    );
    assert!(c.erases > 100, "GC must run: {c:?}");
    // Balanced, the dies' victims hold the stale journal pages and paced cleaning carries a few
    // copies per command (3.6 ms at most). With the copies kept on their die, the two dies
    // holding all the data cleaned ever-fuller victims whole: a 128 ms command, three victims.
    let victim = u64::from(p.nand.pages_per_block) * ((p.nand.t_read_us + p.nand.t_prog_us) * 1e3) as Ns;
    assert!(max < victim, "a command took {max} ns, more than cleaning a whole victim ({victim} ns)");
}
