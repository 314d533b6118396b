//! Shared helpers for flashsim's integration tests.
#![allow(dead_code)]

use flashsim::{Device, Ns, Op, Profile, Request};

pub const TOY: &str = flashsim::builtin::TOY;

pub fn toy() -> Profile {
    Profile::from_toml("toy.toml", TOY).unwrap()
}

/// The toy device with 4 MiB erase blocks (`fixtures/toy-4mib-blocks.toml`): cleaning one
/// victim takes longer than the 250 ms ceiling, as on emmc-5.1's 8 MiB blocks.
pub const TOY_4MIB_BLOCKS: &str = include_str!("../fixtures/toy-4mib-blocks.toml");

pub fn toy_4mib_blocks() -> Profile {
    Profile::from_toml("toy-4mib-blocks.toml", TOY_4MIB_BLOCKS).unwrap()
}

/// `n` rounds of one 4 KiB random write and one 4 KiB random read issued together, on a device
/// whose every block was written once, so that reads keep meeting dies busy with host
/// programs, GC copies and erases: the reads' latencies and the device after them.
pub fn mixed_reads_and_writes(profile: &Profile, n: usize) -> (Vec<Ns>, Device) {
    let mut dev = Device::new(profile, 1);
    dev.map_all_sequential().unwrap();
    let units = dev.logical_bytes() / 4096;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % units
    };
    let mut t: Ns = 0;
    let mut reads = Vec::with_capacity(n);
    for _ in 0..n {
        let w = dev.submit(t, &Request::new(Op::Write, next() * 4096, 4096)).unwrap();
        let r = dev.submit(t, &Request::new(Op::Read, next() * 4096, 4096)).unwrap();
        reads.push(r.latency());
        t = w.done.max(r.done);
    }
    (reads, dev)
}
