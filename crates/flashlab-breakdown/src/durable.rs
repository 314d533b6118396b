//! One durable 4 KiB write through a simulated system's whole stack, part by part: what
//! `fio --rw=randwrite --bs=4k --fsync=1` does on a phone's shared storage (a `write()`, then an
//! `fsync()`, each crossing the shared-storage layer), split into
//!
//! | part | what is in it |
//! |---|---|
//! | syscall | the `write()` and `fsync()` calls' own CPU (page cache, writeback set-up) |
//! | shared storage | the shared-storage layer's round trip for the write and for the fsync (FUSE, esdfs) |
//! | filesystem | the filesystem's own work on the device and the CPU around it: ext4's journal commit (jbd2's hand-off, log blocks, commit block), F2FS's sync and node path and its node block |
//! | block layer | every device request's host stack before and after the device (and any wait for a slot) |
//! | idle exit | the host CPU waking from the idle state it slept in while it waited for a request alone (the profile's `host.idle_exit_us`) |
//! | device command | the device's time for the data write (command, bus, buffer, NAND where it waits) |
//! | flush | the device's time for cache flushes (draining the write buffer to NAND) |
//!
//! Only the requests on the critical path count: walking back from the fsync's completion, each
//! request is preceded by the one whose completion it waited for, and the time between (CPU,
//! the layer's costs) goes to the part it belongs to. So the parts add up exactly to each
//! write's latency, from its submission to the fsync's return. The model is the lab's own
//! ([`SimSystem`]: the device, the filesystem model with its CPU costs, the profile's stack).

use crate::stats::Breakdown;
use crate::BreakdownError;
use flashlab_lab::stack::Stack;
use flashlab_lab::system::SimSystem;
use flashlab_simfs::disk::{Purpose, Traced};
use flashlab_simfs::{FsConfig, FsCpu};
use flashsim::{Ns, Op, Profile};
use serde::Serialize;

/// The parts, in the order they are reported.
pub const PARTS: [&str; N] =
    ["syscall", "shared storage", "filesystem", "block layer", "idle exit", "device command", "flush"];
const N: usize = 7;
const SYSCALL: usize = 0;
const LAYER: usize = 1;
const FS: usize = 2;
const BLOCK: usize = 3;
const WAKE: usize = 4;
const DEVICE: usize = 5;
const FLUSH: usize = 6;

/// The durable-write breakdown of a simulated system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DurableReport {
    /// The filesystem and its options, as the profile's `[system]` names them.
    pub filesystem: String,
    /// The shared-storage layer the write crosses (`none`: the write goes to /data).
    pub shared_storage: String,
    /// Writes measured (after `warmup` not measured).
    pub warmup: u64,
    /// The file's size, bytes (fallocated, written in fio's random order, each block once).
    pub file_bytes: u64,
    /// The host CPU the model charged a `write()` call, ns.
    pub cpu_write_ns: u64,
    /// The host CPU the model charged an `fsync()` call, ns.
    pub cpu_fsync_ns: u64,
    /// The host CPU the model charged an ext4 journal commit, ns.
    pub cpu_commit_ns: u64,
    /// The host CPU the model charged F2FS's fsync beyond the call's, and its node path when
    /// the fsync writes node blocks, ns.
    pub cpu_f2fs_ns: (u64, u64),
    /// Per part, over the measured writes.
    pub breakdown: Breakdown,
    /// Writes whose parts add up exactly to their latency (all, by construction).
    pub consistent: u64,
}

/// A small xorshift for the random order of the blocks (fio's random map: each block once).
fn shuffle(n: u32, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).collect();
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Walk back from `end` to `start` over the requests `reqs` of one call: each request on the
/// critical path adds its host stack to the block layer and its device time to its part; each
/// gap between a request's issue and the completion before it is CPU, `gap(part_of_gap)`.
/// Returns the parts (ns) of [start, end].
fn walk(reqs: &[Traced], start: Ns, end: Ns, mut gap: impl FnMut(&mut [i64; N], Ns, bool)) -> [i64; N] {
    let mut parts = [0i64; N];
    let mut cur = end;
    let mut first_gap_is_start;
    loop {
        // The request that completed at `cur` (the latest issued of them, if several did).
        let on_path = reqs
            .iter()
            .filter(|r| r.completion.done == cur && r.completion.submitted >= start)
            .max_by_key(|r| r.completion.submitted);
        let Some(r) = on_path else {
            first_gap_is_start = true;
            gap(&mut parts, cur - start, first_gap_is_start);
            break;
        };
        let c = r.completion;
        parts[BLOCK] += (c.device_start - c.submitted + c.done - c.device_done - c.idle_exit) as i64;
        parts[WAKE] += c.idle_exit as i64;
        let part = match (r.op, r.purpose) {
            (Op::Flush, _) => FLUSH,
            (Op::Write, Some(Purpose::Data)) => DEVICE,
            _ => FS,
        };
        parts[part] += (c.device_done - c.device_start) as i64;
        cur = c.submitted;
        // What the request waited for: the latest completion at or before its issue.
        let before = reqs
            .iter()
            .filter(|p| p.completion.done <= cur && p.completion.done > start && p.completion.submitted >= start)
            .map(|p| p.completion.done)
            .max();
        match before {
            Some(b) => {
                first_gap_is_start = false;
                gap(&mut parts, cur - b, first_gap_is_start);
                cur = b;
            }
            None => {
                first_gap_is_start = true;
                gap(&mut parts, cur - start, first_gap_is_start);
                break;
            }
        }
    }
    parts
}

/// Run `writes` durable 4 KiB writes (after `warmup` more) on a fresh system of `profile` and
/// break each down. The file is `span` bytes, fallocated, on the profile's filesystem; each
/// write and its fsync cross the profile's shared-storage layer (none: /data).
pub fn durable_write(
    profile: &Profile,
    seed: u64,
    writes: u64,
    warmup: u64,
    span: u64,
) -> Result<DurableReport, BreakdownError> {
    let sim = |e: &dyn std::fmt::Display| BreakdownError::Sim(e.to_string());
    let cfg = FsConfig::from_profile(profile, &profile.name).map_err(|e| sim(&e))?;
    let stack = Stack::from_profile(profile, &profile.name).map_err(|e| sim(&e))?;
    let cpu = FsCpu::from_profile(profile, &profile.name).map_err(|e| sim(&e))?;
    let layer = stack.shared_cost;
    let filesystem = cfg.label();
    let mut sys = SimSystem::with_fs(profile, seed, cfg);
    let file = sys.create("durable", span).map_err(|e| sim(&e))?;
    let blocks = (span / 4096).min(u64::from(u32::MAX)) as u32;
    let order = shuffle(blocks, seed);
    let n = (warmup + writes).min(u64::from(blocks));
    let warmup = warmup.min(n);
    let mut rows: Vec<[i64; N]> = Vec::with_capacity((n - warmup) as usize);
    let mut consistent = 0;
    sys.set_trace(true);
    for (i, &b) in order.iter().take(n as usize).enumerate() {
        let t0 = sys.now();
        let t_in = t0 + layer.submit_ns;
        sys.take_trace();
        let c = sys.io(t_in, file, Op::Write, u64::from(b) * 4096, 4096).map_err(|e| sim(&e))?;
        let write_reqs = sys.take_trace();
        let t1 = c.done + layer.complete_ns;
        let t1_in = t1 + layer.submit_ns;
        let done = sys.fsync(t1_in, file).map_err(|e| sim(&e))?;
        let fsync_reqs = sys.take_trace();
        let end = done + layer.complete_ns;
        sys.advance_to(end);
        if (i as u64) < warmup {
            continue;
        }
        let w = walk(&write_reqs, t_in, c.done, |p, g, _| p[SYSCALL] += g as i64);
        let f = walk(&fsync_reqs, t1_in, done, |p, g, at_start| {
            if at_start {
                // The fsync call's own CPU, then (ext4) the commit's hand-off to jbd2.
                let sys_part = g.min(cpu.fsync_ns);
                p[SYSCALL] += sys_part as i64;
                p[FS] += (g - sys_part) as i64;
            } else {
                p[FS] += g as i64;
            }
        });
        let mut row = [0i64; N];
        for k in 0..N {
            row[k] = w[k] + f[k];
        }
        row[LAYER] += 2 * (layer.submit_ns + layer.complete_ns) as i64;
        if row.iter().sum::<i64>() == (end - t0) as i64 && row.iter().all(|&v| v >= 0) {
            consistent += 1;
        }
        rows.push(row);
    }
    sys.set_trace(false);
    Ok(DurableReport {
        filesystem,
        shared_storage: stack.shared_storage.name().to_string(),
        warmup,
        file_bytes: span,
        cpu_write_ns: cpu.write_ns,
        cpu_fsync_ns: cpu.fsync_ns,
        cpu_commit_ns: cpu.commit_ns,
        cpu_f2fs_ns: (cpu.f2fs_fsync_ns, cpu.node_ns),
        breakdown: Breakdown::from_rows(PARTS, &rows),
        consistent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builtin(name: &str) -> Profile {
        Profile::from_toml(name, flashsim::builtin::text(name).unwrap()).unwrap()
    }

    #[test]
    fn the_parts_add_up_and_each_phone_has_its_own() {
        // A small file on the phones' device: each write's parts add up to its latency.
        for name in ["pixel-2016", "motoz-2016"] {
            let r = durable_write(&builtin(name), 1, 300, 50, 8 << 20).unwrap();
            assert_eq!(r.consistent, 300, "{name}: every write's parts add up");
            let mean = |part: usize| r.breakdown.phases[part].dist.mean_ns;
            assert!(mean(DEVICE) > 0.0 && mean(BLOCK) > 0.0 && mean(SYSCALL) > 0.0, "{name}: {:?}", r.breakdown);
            if name == "pixel-2016" {
                // ext4 with barriers: every fsync of a fallocated file commits, with two flushes;
                // FUSE's round trips twice.
                assert!(mean(FLUSH) > 600_000.0, "pixel flushes {}", mean(FLUSH));
                assert!(mean(FS) > mean(SYSCALL), "pixel commit");
                assert!(mean(LAYER) > 80_000.0, "pixel FUSE");
            } else {
                // F2FS nobarrier: no flush; esdfs in the kernel.
                assert_eq!(mean(FLUSH), 0.0);
                assert!(mean(LAYER) < 10_000.0);
            }
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v = shuffle(1000, 7);
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }
}
