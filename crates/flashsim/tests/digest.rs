//! Completion digests: a fixed, varied request stream (sequential and random writes, unaligned
//! writes, reads, trims, flushes, idle gaps for background GC, several host streams) on a set
//! of device geometries and FTL kinds, hashed over every completion's times, the final counters
//! and the device state, and compared with `tests/golden/digests.txt`. A change meant only to
//! make the simulator faster must leave every digest as it was; the flashlab crate's golden
//! test checks the commands' JSON the same way.
//!
//! Regenerate after a deliberate model change (and say why in the commit):
//! `FLASHLAB_UPDATE_GOLDEN=1 cargo test -p flashsim --test digest`.

mod common;

use flashsim::{Device, GcPolicy, Op, Profile, Request, MAP_UNIT, SECTOR};
use std::fmt::Write as _;
use std::path::Path;

const GOLDEN: &str = "tests/golden/digests.txt";

/// FNV-1a over 64-bit words.
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn word(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn text(&mut self, s: &str) {
        for b in s.bytes() {
            self.word(u64::from(b));
        }
    }
}

/// xorshift64*: the workload's own random numbers (independent of the simulator's).
struct Rnd(u64);

impl Rnd {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Run the request stream on a new device of `p`; returns the digest and, to show what the
/// stream exercised, the GC copies, the victims cleaned in the foreground and in the background.
fn run(p: &Profile, requests: u64, content: bool) -> (u64, [u64; 3]) {
    let mut dev = Device::new(p, 7);
    if content {
        dev.track_content();
    }
    let cap = dev.logical_bytes();
    let units = cap / MAP_UNIT;
    let streams = u64::from(p.ftl.host_streams);
    let mut rnd = Rnd(0x9e37_79b9_7f4a_7c15 ^ units);
    let mut d = Digest::new();
    let mut now = 0u64;
    let mut tag = 0u64;
    let submit = |dev: &mut Device, now: u64, r: Request, d: &mut Digest| {
        // A hint that must change nothing: the request's own offset, and one past the end.
        dev.prefetch(r.offset);
        dev.prefetch(cap + r.offset);
        let c = dev.submit(now, &r).unwrap_or_else(|e| panic!("{}: {:?}: {e}", p.name, r));
        d.word(c.device_start);
        d.word(c.device_done);
        d.word(c.done);
        c
    };
    // Sequential 256 KiB writes over 90 % of the space, back to back.
    let mut off = 0;
    while off + (256 << 10) <= cap * 9 / 10 {
        tag += 1;
        let r = Request { op: Op::Write, offset: off, len: 256 << 10, stream: 0, tag };
        now = submit(&mut dev, now, r, &mut d).done;
        off += 256 << 10;
    }
    let mut seq = 0;
    for _ in 0..requests {
        let kind = rnd.below(100);
        tag += 1;
        let stream = rnd.below(streams) as u32;
        let r = match kind {
            0..=64 => Request { op: Op::Write, offset: rnd.below(units) * MAP_UNIT, len: MAP_UNIT, stream, tag },
            65..=69 => {
                let len = (1 + rnd.below(32)) * SECTOR;
                let offset = rnd.below((cap - len) / SECTOR) * SECTOR;
                Request { op: Op::Write, offset, len, stream, tag }
            }
            70..=84 => {
                let len = (1 + rnd.below(32)) * MAP_UNIT;
                Request { op: Op::Read, offset: rnd.below(units - len / MAP_UNIT) * MAP_UNIT, len, stream: 0, tag }
            }
            85..=86 => {
                let len = (1 + rnd.below(64)) * MAP_UNIT;
                Request { op: Op::Trim, offset: rnd.below(units - len / MAP_UNIT) * MAP_UNIT, len, stream: 0, tag }
            }
            87..=88 => Request { op: Op::Flush, offset: 0, len: 0, stream: 0, tag },
            _ => {
                let len = 64 << 10;
                if seq + len > cap {
                    seq = 0;
                }
                seq += len;
                Request { op: Op::Write, offset: seq - len, len, stream, tag }
            }
        };
        submit(&mut dev, now, r, &mut d);
        // Mostly back to back with queueing, now and then an idle gap (background GC).
        now += match rnd.below(1000) {
            0..=2 => 20_000_000 + rnd.below(2_000_000_000),
            3..=502 => 0,
            _ => rnd.below(60_000),
        };
        if rnd.below(5000) == 0 {
            dev.idle_until(now + 5_000_000_000);
            now += 5_000_000_000;
        }
    }
    dev.check_invariants().unwrap_or_else(|e| panic!("{}: {e}", p.name));
    d.text(&format!("{:?}", dev.counters()));
    d.text(&format!("{:?}", dev.state()));
    if content {
        for lpn in (0..units).step_by(7) {
            d.word(dev.peek(lpn as u32).map_or(u64::MAX, |t| t));
        }
    }
    let c = dev.counters();
    (d.0, [c.gc_units_copied, c.gc_victims_foreground, c.gc_victims_background])
}

fn parse(name: &str, text: &str) -> Profile {
    Profile::from_toml(name, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The devices: small enough to run in well under a second each, with the shapes of the real
/// profiles (lanes per channel, program units, map and SLC caches, hybrid logs).
fn devices() -> Vec<(String, Profile, bool)> {
    let mut v = Vec::new();
    let toy = common::toy();
    v.push(("toy".to_string(), toy.clone(), false));
    v.push(("toy-content".to_string(), toy.clone(), true));
    for policy in [GcPolicy::CostBenefit, GcPolicy::Fifo, GcPolicy::Random] {
        let mut p = toy.clone();
        p.ftl.gc_policy = policy;
        v.push((format!("toy-{}", policy.name()), p, false));
    }
    let mut p = toy.clone();
    p.ftl.host_streams = 2;
    p.ftl.separate_gc_frontier = false;
    p.ftl.write_buffer_volatile = false;
    p.ftl.gc_pages_per_command = Some(4);
    p.ftl.busy_ceiling_ms = Some(5.0);
    v.push(("toy-2streams-shared-paced".to_string(), p, false));
    let golden = |f: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join("../flashlab/tests/golden").join(f);
    for f in ["dftl-small.toml", "hybrid-small.toml", "slc-small.toml", "mqsim-small.toml"] {
        let text = std::fs::read_to_string(golden(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        v.push((f.trim_end_matches(".toml").to_string(), parse(f, &text), false));
    }
    let mut hybrid = parse("hybrid-small.toml", &std::fs::read_to_string(golden("hybrid-small.toml")).unwrap());
    hybrid.ftl.log_blocks = 2;
    hybrid.ftl.gc_pages_per_command = Some(8);
    v.push(("hybrid-2logs-paced".to_string(), hybrid.clone(), true));
    // Real profiles' layouts at a few blocks per plane.
    for (name, blocks, pages) in [("nvme-256g", 80, 32), ("ufs-3.1", 80, 48), ("emmc-16g", 80, 64)] {
        let text = flashsim::builtin::text(name).unwrap_or_else(|| panic!("{name}: not a built-in profile"));
        let mut p = parse(name, text);
        p.nand.blocks_per_plane = blocks;
        p.nand.pages_per_block = pages;
        p.ftl.slc_cache_mib = p.ftl.slc_cache_mib.min(32);
        p.ftl.bg_gc_target_free_blocks = p.ftl.bg_gc_target_free_blocks.min(3);
        p.ftl.write_buffer_kib = p.ftl.write_buffer_kib.min(1024);
        p.ftl.gc_pages_per_command = p.ftl.gc_pages_per_command.map(|n| n.min(pages));
        p.validate(name).unwrap_or_else(|e| panic!("{e}"));
        v.push((format!("{name}-small"), p, false));
    }
    v
}

#[test]
fn completion_digests_are_unchanged() {
    let mut out = String::new();
    for (name, p, content) in devices() {
        let (digest, [copied, fg, bg]) = run(&p, 80_000, content);
        writeln!(
            out,
            "{name}: digest {digest:016x}; {copied} GC copies, {fg} victims in the foreground, {bg} in the background"
        )
        .unwrap();
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("FLASHLAB_UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with FLASHLAB_UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        out, expected,
        "completion digests changed (left: now, right: {GOLDEN}); if the model changed on purpose, \
         regenerate with FLASHLAB_UPDATE_GOLDEN=1 cargo test -p flashsim --test digest"
    );
}
