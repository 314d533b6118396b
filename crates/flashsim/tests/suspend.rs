//! Program/erase suspension for reads (`[nand.suspend]`, crate::suspend): random reads mixed
//! with random writes on a full device, so that reads keep meeting dies busy with host
//! programs, GC copies and erases. With suspension the reads' tail is shorter; without the
//! table nothing is suspended, and a table whose suspension never pays off changes nothing.

mod common;

use flashsim::{Ns, Profile};

/// The read latencies of `n` rounds of one 4 KiB random write and one 4 KiB random read issued
/// together on a full device, and the suspensions.
fn mixed(profile: &Profile, n: usize) -> (Vec<Ns>, u64) {
    let (reads, dev) = common::mixed_reads_and_writes(profile, n);
    (reads, dev.suspensions())
}

fn p99(lat: &[Ns]) -> Ns {
    let mut v = lat.to_vec();
    v.sort_unstable();
    v[(v.len() * 99 / 100).min(v.len() - 1)]
}

fn with_suspend(suspend_us: f64, resume_us: f64) -> Profile {
    let text = format!("{}\n[nand.suspend]\nsuspend_us = {suspend_us}\nresume_us = {resume_us}\n", common::TOY);
    Profile::from_toml("toy+suspend", &text).unwrap()
}

const ROUNDS: usize = 60_000;

#[test]
fn reads_during_gc_have_a_shorter_tail_with_suspension() {
    let (off, none) = mixed(&common::toy(), ROUNDS);
    assert_eq!(none, 0, "a part without [nand.suspend] suspends nothing");
    // Toy's program is 600 us and its erase 3 ms; one ISPP step or erase pulse of ~1/10 of
    // them to reach a suspend point, as much again to resume.
    let (on, n) = mixed(&with_suspend(60.0, 60.0), ROUNDS);
    assert!(n > ROUNDS as u64 / 10, "reads met busy dies {n} times");
    // Measured (seed 1, 60 000 rounds, session 35): read p99 4462 us without, 640 us with; p50
    // 641 -> 185 us (the reads that met a busy die now pay the suspend latency instead of the
    // operation).
    let (p_off, p_on) = (p99(&off), p99(&on));
    let pct = |v: &[Ns], q: usize| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v[(v.len() * q / 100).min(v.len() - 1)] / 1000
    };
    eprintln!(
        "read us without / with suspension: p50 {} / {}, p90 {} / {}, p99 {} / {}, max {} / {}",
        pct(&off, 50),
        pct(&on, 50),
        pct(&off, 90),
        pct(&on, 90),
        p_off / 1000,
        p_on / 1000,
        off.iter().max().unwrap() / 1000,
        on.iter().max().unwrap() / 1000
    );
    assert!(p_on * 2 < p_off, "read p99 {p_on} ns with suspension vs {p_off} ns without");
}

#[test]
fn suspension_that_never_pays_off_changes_nothing() {
    let (off, _) = mixed(&common::toy(), 5_000);
    let (never, n) = mixed(&with_suspend(1e8, 0.0), 5_000);
    assert_eq!(n, 0);
    assert_eq!(off, never);
}

#[test]
fn bad_suspend_times_are_refused_with_the_field() {
    let text = format!("{}\n[nand.suspend]\nsuspend_us = -1\nresume_us = 10\n", common::TOY);
    let e = Profile::from_toml("toy+suspend", &text).unwrap_err().to_string();
    assert!(e.contains("nand.suspend.suspend_us"), "{e}");
}
