//! Read-priority die scheduling (`read_priority = true` in `[nand]`, crate::read_priority):
//! random reads mixed with random writes on a full device, so that reads keep meeting dies
//! with host programs, GC copies and erases queued. With the priority a read waits for the
//! operation in progress only, so the reads' tail is shorter while the NAND does the same
//! work; without it nothing is promoted; and promoted reads still share their channel.

mod common;

use flashsim::{Device, Ns, Op, Profile, Request};

fn pct(lat: &[Ns], p: usize) -> Ns {
    let mut v = lat.to_vec();
    v.sort_unstable();
    v[(v.len() * p / 100).min(v.len() - 1)]
}

fn toy_with_priority() -> Profile {
    let text = common::TOY.replacen("[ftl]", "read_priority = true\n\n[ftl]", 1);
    assert_ne!(text, common::TOY, "toy has an [ftl] table");
    Profile::from_toml("toy+read_priority", &text).unwrap()
}

const ROUNDS: usize = 60_000;

#[test]
fn reads_pass_queued_programs_and_the_nand_does_the_same_work() {
    let (off, dev_off) = common::mixed_reads_and_writes(&common::toy(), ROUNDS);
    assert_eq!(dev_off.promoted_reads(), 0, "a profile without read_priority promotes nothing");
    let (on, dev_on) = common::mixed_reads_and_writes(&toy_with_priority(), ROUNDS);
    assert!(dev_on.promoted_reads() > ROUNDS as u64 / 20, "reads passed queued work {} times", dev_on.promoted_reads());
    // The same writes cause the same NAND work: priority reorders it, it does not remove any.
    let (c_off, c_on) = (dev_off.counters(), dev_on.counters());
    assert_eq!(c_off.nand_page_programs, c_on.nand_page_programs);
    assert_eq!(c_off.erases, c_on.erases);
    assert_eq!(c_off.gc_units_copied, c_on.gc_units_copied);
    let (p99_off, p99_on) = (pct(&off, 99), pct(&on, 99));
    let (p90_off, p90_on) = (pct(&off, 90), pct(&on, 90));
    eprintln!("read p90 {p90_off} -> {p90_on} ns, p99 {p99_off} -> {p99_on} ns");
    // A read still waits for the operation in progress (a 600 us program or a 3 ms erase), so
    // the tail shrinks less than with suspension; it must not grow.
    assert!(p90_on < p90_off, "read p90 {p90_on} ns with priority vs {p90_off} ns without");
    assert!(p99_on <= p99_off, "read p99 {p99_on} ns with priority vs {p99_off} ns without");
}

/// MB/s of 256 KiB sequential reads at QD32 over the first 64 MiB, right after 16 MiB of
/// random 4 KiB writes (whose programs are still queued on the dies).
fn reads_after_writes(profile: &Profile) -> f64 {
    let mut dev = Device::new(profile, 1);
    dev.map_all_sequential().unwrap();
    let units = dev.logical_bytes() / 4096;
    let mut t: Ns = 0;
    for i in 0..4096u64 {
        let c = dev.submit(t, &Request::new(Op::Write, (i * 7919 % units) * 4096, 4096)).unwrap();
        t = c.device_start;
    }
    let start = t;
    let mut done = t;
    let len = 256 * 1024;
    let mut inflight: std::collections::VecDeque<Ns> = Default::default();
    let mut at = start;
    for i in 0..256u64 {
        if inflight.len() == 32 {
            // The next read goes when the oldest completes (submissions go forward in time).
            at = at.max(inflight.pop_front().unwrap());
        }
        let c = dev.submit(at, &Request::new(Op::Read, i * len, len)).unwrap();
        inflight.push_back(c.done);
        done = done.max(c.done);
    }
    (256 * len) as f64 / ((done - start) as f64 / 1e3)
}

#[test]
fn promoted_reads_still_share_their_channel() {
    // emmc-5.1 has read priority on; its sequential reads are channel-bound (2 x 125 MB/s).
    let on_profile = Profile::from_toml("emmc-5.1", flashsim::builtin::text("emmc-5.1").unwrap()).unwrap();
    assert!(on_profile.nand.read_priority, "emmc-5.1 serves reads first");
    let mut off_profile = on_profile.clone();
    off_profile.nand.read_priority = false;
    let off = reads_after_writes(&off_profile);
    let on = reads_after_writes(&on_profile);
    eprintln!("QD32 sequential reads after writes: {off:.1} MB/s in order, {on:.1} MB/s with read priority");
    // Reads passing the queued programs may finish sooner, but not faster than the channels
    // move data: while a read that passed queued work skipped its channel booking, emmc-5.1's
    // sequential reads ran at 389 MB/s.
    let channel_limit = f64::from(on_profile.nand.channels) * on_profile.nand.channel_mb_s;
    assert!(on <= channel_limit * 1.01, "{on:.1} MB/s with read priority, the channels carry {channel_limit:.1}");
}
