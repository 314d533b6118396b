//! Overwrites that all land on data of some dies: the other dies fill up with valid data and
//! their GC can gain nothing, so host pages must go to dies that can take them (a review found
//! that GC looped forever here).

mod common;

use flashsim::{Device, Op, Request, MAP_UNIT};

#[test]
fn overwrites_confined_to_some_dies_do_not_hang() {
    let p = common::toy();
    let mut dev = Device::new(&p, 1);
    dev.track_content();
    let units = dev.logical_bytes() / MAP_UNIT;
    let upp = u64::from(p.units_per_page());
    let dies = u64::from(p.nand.channels * p.nand.dies_per_channel);
    let mut now = 0;
    let mut tag = 0;
    for lpn in 0..units {
        tag += 1;
        now = dev
            .submit(now, &Request { op: Op::Write, offset: lpn * MAP_UNIT, len: MAP_UNIT, stream: 0, tag })
            .unwrap()
            .done;
    }
    now = dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap().done;
    // Sequentially written pages were striped round robin: page k sits on die k % dies.
    let others: Vec<u64> = (0..units).filter(|l| (l / upp) % dies != 0).collect();
    let mut expect = vec![0u64; units as usize];
    for (l, e) in expect.iter_mut().enumerate() {
        *e = l as u64 + 1;
    }
    for round in 0..6 {
        for (i, &lpn) in others.iter().enumerate() {
            if (i + round) % 3 == 0 {
                continue;
            }
            tag += 1;
            now = dev
                .submit(now, &Request { op: Op::Write, offset: lpn * MAP_UNIT, len: MAP_UNIT, stream: 0, tag })
                .unwrap()
                .done;
            expect[lpn as usize] = tag;
        }
    }
    dev.check_invariants().unwrap();
    for lpn in 0..units {
        assert_eq!(dev.peek(lpn as u32), Some(expect[lpn as usize]), "lpn {lpn}");
    }
}
