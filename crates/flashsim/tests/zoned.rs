//! The zoned device (issue 47, acceptance 2). A property test drives random zone operations on
//! the device and on a reference state machine written here, separately, from the standards'
//! rules (NVMe ZNS zone states, ZBC's implicit-open resource management, `blkzoned.h`'s
//! conditions): states, write pointers, errors and append offsets must always agree. Then the
//! NAND side: a reset erases the zone's blocks, and zone-sequential writing has a write
//! amplification of exactly 1.0 where the conventional twin under random overwrites does not.

use flashsim::zone::{Boundary, ZoneError, ZoneState, ZONE_BLOCK};
use flashsim::{builtin, Device, MappingKind, Op, Profile, Request, RequestError};
use proptest::prelude::*;

/// The toy device's NAND (4 dies, 128 blocks of 64 pages of 8 KiB), zoned: zones 2 dies wide
/// with 8 blocks on each (8 MiB), 7 MiB writable, at most 3 open and 5 active.
fn zoned_toy(volatile: bool) -> Profile {
    let text = builtin::TOY
        .replace("name = \"toy\"", "name = \"zoned-toy\"")
        .replace("[ftl]", "[ftl]\nmapping = \"zoned\"")
        .replace("write_buffer_kib = 256", "write_buffer_kib = 64")
        .replace("write_buffer_volatile = true", &format!("write_buffer_volatile = {volatile}"))
        .replace("gc_pages_per_command = 64\n", "")
        + "\n[zoned]\nzone_width = 2\nblocks_per_die = 8\nzone_capacity_mib = 7\nmax_open_zones = 3\nmax_active_zones = 5\n";
    Profile::from_toml("zoned-toy", &text).unwrap_or_else(|e| panic!("{e}"))
}

// ---- The reference state machine --------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum S {
    Empty,
    ImpOpen,
    ExpOpen,
    Closed,
    Full,
    ReadOnly,
    Offline,
}

impl S {
    fn public(self) -> ZoneState {
        match self {
            S::Empty => ZoneState::Empty,
            S::ImpOpen => ZoneState::ImplicitlyOpen,
            S::ExpOpen => ZoneState::ExplicitlyOpen,
            S::Closed => ZoneState::Closed,
            S::Full => ZoneState::Full,
            S::ReadOnly => ZoneState::ReadOnly,
            S::Offline => ZoneState::Offline,
        }
    }
}

/// Zones as the standard describes them: a state and a write pointer (blocks) each; open and
/// active counts are counted, not kept; the zone the device closes is the implicitly open one
/// with the earliest implicit open.
struct Reference {
    state: Vec<S>,
    wp: Vec<u64>,
    opened: Vec<u64>,
    clock: u64,
    size: u64,
    cap: u64,
    max_open: usize,
    max_active: usize,
}

impl Reference {
    fn count(&self, f: impl Fn(S) -> bool) -> usize {
        self.state.iter().filter(|&&s| f(s)).count()
    }
    fn open_n(&self) -> usize {
        self.count(|s| matches!(s, S::ImpOpen | S::ExpOpen))
    }
    fn active_n(&self) -> usize {
        self.count(|s| matches!(s, S::ImpOpen | S::ExpOpen | S::Closed))
    }
    fn close(&mut self, z: usize) {
        self.state[z] = if self.wp[z] == 0 { S::Empty } else { S::Closed };
    }
    /// ZBC's "manage open zone resources", with ZNS's active limit before it.
    fn resources(&mut self, z: usize) -> Result<(), ZoneError> {
        if self.state[z] == S::Empty && self.active_n() >= self.max_active {
            return Err(ZoneError::TooManyActiveZones { zone: z as u32, limit: self.max_active as u32 });
        }
        if self.open_n() < self.max_open {
            return Ok(());
        }
        let oldest = (0..self.state.len()).filter(|&i| self.state[i] == S::ImpOpen).min_by_key(|&i| self.opened[i]);
        match oldest {
            Some(i) => {
                self.close(i);
                Ok(())
            }
            None => Err(ZoneError::TooManyOpenZones { zone: z as u32, limit: self.max_open as u32 }),
        }
    }
    fn usable(&self, z: usize) -> Result<(), ZoneError> {
        if z >= self.state.len() {
            return Err(ZoneError::NoSuchZone { zone: z as u32, zones: self.state.len() as u32 });
        }
        match self.state[z] {
            S::Offline => Err(ZoneError::ZoneOffline { zone: z as u32 }),
            S::ReadOnly => Err(ZoneError::ZoneReadOnly { zone: z as u32 }),
            _ => Ok(()),
        }
    }
    /// A write (or append) in bytes; returns where the data went.
    fn write(&mut self, offset: u64, len: u64, append: bool) -> Result<u64, ZoneError> {
        if !offset.is_multiple_of(ZONE_BLOCK) || !len.is_multiple_of(ZONE_BLOCK) {
            return Err(ZoneError::UnalignedWrite { offset, len });
        }
        let zb = self.size * ZONE_BLOCK;
        let z = (offset / zb) as usize;
        let start = z as u64 * zb;
        if append && offset != start {
            return Err(ZoneError::AppendNotAtZoneStart { offset });
        }
        if !append && offset + len > start + zb {
            return Err(ZoneError::ZoneBoundary { zone: z as u32, offset, len, boundary: Boundary::ZoneEnd });
        }
        self.usable(z)?;
        if self.state[z] == S::Full {
            return Err(ZoneError::ZoneFull { zone: z as u32 });
        }
        let wp = start + self.wp[z] * ZONE_BLOCK;
        if !append && offset != wp {
            return Err(ZoneError::NotAtWritePointer { zone: z as u32, offset, wp });
        }
        let blocks = len / ZONE_BLOCK;
        if self.wp[z] + blocks > self.cap {
            return Err(ZoneError::ZoneBoundary { zone: z as u32, offset: wp, len, boundary: Boundary::Capacity });
        }
        if matches!(self.state[z], S::Empty | S::Closed) {
            self.resources(z)?;
            self.state[z] = S::ImpOpen;
            self.clock += 1;
            self.opened[z] = self.clock;
        }
        self.wp[z] += blocks;
        if self.wp[z] == self.cap {
            self.state[z] = S::Full;
        }
        Ok(wp)
    }
    fn open(&mut self, z: usize) -> Result<(), ZoneError> {
        self.usable(z)?;
        match self.state[z] {
            S::ExpOpen => return Ok(()),
            S::ImpOpen => {}
            S::Empty | S::Closed => self.resources(z)?,
            s => {
                return Err(ZoneError::InvalidTransition {
                    zone: z as u32,
                    state: s.public(),
                    op: flashsim::zone::ZoneOp::Open,
                })
            }
        }
        self.state[z] = S::ExpOpen;
        Ok(())
    }
    fn close_cmd(&mut self, z: usize) -> Result<(), ZoneError> {
        self.usable(z)?;
        match self.state[z] {
            S::Closed => Ok(()),
            S::ImpOpen | S::ExpOpen => {
                self.close(z);
                Ok(())
            }
            s => Err(ZoneError::InvalidTransition {
                zone: z as u32,
                state: s.public(),
                op: flashsim::zone::ZoneOp::Close,
            }),
        }
    }
    fn finish(&mut self, z: usize) -> Result<(), ZoneError> {
        self.usable(z)?;
        if self.state[z] == S::Empty && self.active_n() >= self.max_active {
            return Err(ZoneError::TooManyActiveZones { zone: z as u32, limit: self.max_active as u32 });
        }
        self.state[z] = S::Full;
        self.wp[z] = self.cap;
        Ok(())
    }
    fn reset(&mut self, z: usize) -> Result<(), ZoneError> {
        self.usable(z)?;
        self.state[z] = S::Empty;
        self.wp[z] = 0;
        Ok(())
    }
    fn fail(&mut self, z: usize, to: S) {
        if self.state[z] != S::Offline {
            self.state[z] = to;
        }
    }
    fn read(&self, offset: u64, len: u64) -> Result<(), ZoneError> {
        let zb = self.size * ZONE_BLOCK;
        for z in offset / zb..=(offset + len - 1) / zb {
            if self.state[z as usize] == S::Offline {
                return Err(ZoneError::ZoneOffline { zone: z as u32 });
            }
        }
        Ok(())
    }
}

// ---- The random operations ---------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Len {
    Blocks(u64),
    /// The rest of the zone's capacity, plus this many blocks.
    Rest(u64),
    /// Not a whole number of 4 KiB blocks.
    Sectors(u64),
}

#[derive(Debug, Clone, Copy)]
enum Where {
    Wp,
    /// This many blocks past (or before, when the write pointer allows) the write pointer.
    Off(i64),
    /// Near the end of the zone, so that a write may cross into the next.
    NearEnd(u64),
}

#[derive(Debug, Clone, Copy)]
enum Cmd {
    Write { zone: usize, at: Where, len: Len },
    Append { zone: usize, len: Len, off_start: bool },
    Read { zone: usize, blocks: u64 },
    Open(usize),
    Close(usize),
    Finish(usize),
    Reset(usize),
    Fail { zone: usize, offline: bool },
    Flush,
}

fn len() -> impl Strategy<Value = Len> {
    prop_oneof![
        6 => (1..64u64).prop_map(Len::Blocks),
        2 => (0..2u64).prop_map(Len::Rest),
        1 => (1..16u64).prop_map(Len::Sectors),
    ]
}

/// Zones 0..7 mostly (so the limits of 3 open and 5 active are met often), now and then one
/// past the last zone.
fn zone() -> impl Strategy<Value = usize> {
    prop_oneof![20 => 0..7usize, 1 => Just(usize::MAX)]
}

fn cmd() -> impl Strategy<Value = Cmd> {
    let at = prop_oneof![8 => Just(Where::Wp), 1 => (-3..4i64).prop_map(Where::Off), 1 => (0..4u64).prop_map(Where::NearEnd)];
    prop_oneof![
        10 => (zone(), at, len()).prop_map(|(zone, at, len)| Cmd::Write { zone, at, len }),
        4 => (zone(), len(), prop::bool::weighted(0.1)).prop_map(|(zone, len, off_start)| Cmd::Append { zone, len, off_start }),
        2 => (zone(), 1..600u64).prop_map(|(zone, blocks)| Cmd::Read { zone, blocks }),
        2 => zone().prop_map(Cmd::Open),
        2 => zone().prop_map(Cmd::Close),
        1 => zone().prop_map(Cmd::Finish),
        2 => zone().prop_map(Cmd::Reset),
        1 => (zone(), any::<bool>()).prop_map(|(zone, offline)| Cmd::Fail { zone, offline }),
        1 => Just(Cmd::Flush),
    ]
}

fn zone_err(r: Result<(), RequestError>) -> Result<(), ZoneError> {
    r.map_err(|e| match e {
        RequestError::Zone(z) => z,
        other => panic!("not a zone error: {other}"),
    })
}

fn run(volatile: bool, cmds: &[Cmd]) -> Result<(), TestCaseError> {
    let p = zoned_toy(volatile);
    let mut dev = Device::new(&p, 1);
    dev.set_check_every(Some(1));
    let layout = dev.zones().unwrap().layout();
    let zones = layout.zones as usize;
    let mut r = Reference {
        state: vec![S::Empty; zones],
        wp: vec![0; zones],
        opened: vec![0; zones],
        clock: 0,
        size: u64::from(layout.size_blocks),
        cap: u64::from(layout.capacity_blocks),
        max_open: layout.max_open as usize,
        max_active: layout.max_active as usize,
    };
    let zb = r.size * ZONE_BLOCK;
    let mut now = 0;
    for (i, &c) in cmds.iter().enumerate() {
        now += 5_000;
        let pick = |z: usize| if z == usize::MAX { zones } else { z };
        let bytes = |r: &Reference, z: usize, l: Len| -> u64 {
            match l {
                Len::Blocks(b) => b * ZONE_BLOCK,
                Len::Rest(extra) => (r.cap - r.wp[z.min(zones - 1)] + extra).max(1) * ZONE_BLOCK,
                Len::Sectors(s) => s * 512 + ZONE_BLOCK,
            }
        };
        let (got, want): (Result<(), ZoneError>, Result<(), ZoneError>) = match c {
            Cmd::Write { zone, at, len } => {
                let z = pick(zone).min(zones - 1);
                let wp = r.wp[z] * ZONE_BLOCK;
                let off = match at {
                    Where::Wp => wp,
                    Where::Off(d) => (wp as i64 + d * ZONE_BLOCK as i64).clamp(0, zb as i64 - ZONE_BLOCK as i64) as u64,
                    Where::NearEnd(b) => zb - (b + 1) * ZONE_BLOCK,
                };
                let offset = z as u64 * zb + off;
                let len = bytes(&r, z, len).min(dev.logical_bytes() - offset);
                let got = zone_err(dev.submit(now, &Request::new(Op::Write, offset, len)).map(drop));
                (got, r.write(offset, len, false).map(drop))
            }
            Cmd::Append { zone, len, off_start } => {
                let z = pick(zone).min(zones - 1);
                let start = z as u64 * zb + if off_start { ZONE_BLOCK } else { 0 };
                let len = bytes(&r, z, len);
                let got = dev.zone_append(now, start, len);
                let want = r.write(start, len, true);
                if let (Ok((_, at)), Ok(w)) = (&got, &want) {
                    prop_assert_eq!(at, w, "append offset, step {}", i);
                }
                (zone_err(got.map(drop)), want.map(drop))
            }
            Cmd::Read { zone, blocks } => {
                let z = pick(zone).min(zones - 1);
                let offset = z as u64 * zb + r.wp[z].saturating_sub(blocks / 2) * ZONE_BLOCK;
                let len = (blocks * ZONE_BLOCK).min(dev.logical_bytes() - offset);
                (zone_err(dev.submit(now, &Request::new(Op::Read, offset, len)).map(drop)), r.read(offset, len))
            }
            Cmd::Open(z) => (zone_err(dev.zone_open(now, pick(z) as u32).map(drop)), r.open(pick(z))),
            Cmd::Close(z) => (zone_err(dev.zone_close(now, pick(z) as u32).map(drop)), r.close_cmd(pick(z))),
            Cmd::Finish(z) => (zone_err(dev.zone_finish(now, pick(z) as u32).map(drop)), r.finish(pick(z))),
            Cmd::Reset(z) => (zone_err(dev.zone_reset(now, pick(z) as u32).map(drop)), r.reset(pick(z))),
            Cmd::Fail { zone, offline } => {
                let z = pick(zone).min(zones - 1);
                let to = if offline { ZoneState::Offline } else { ZoneState::ReadOnly };
                r.fail(z, if offline { S::Offline } else { S::ReadOnly });
                (zone_err(dev.zone_set_condition(z as u32, to)), Ok(()))
            }
            Cmd::Flush => (zone_err(dev.submit(now, &Request::new(Op::Flush, 0, 0)).map(drop)), Ok(())),
        };
        prop_assert_eq!(got, want, "step {}: {:?}", i, c);
        let zs = dev.zones().unwrap();
        prop_assert_eq!(zs.open_count() as usize, r.open_n(), "open zones after step {}", i);
        prop_assert_eq!(zs.active_count() as usize, r.active_n(), "active zones after step {}", i);
        for z in 0..zones {
            let got = zs.zone(z as u32);
            prop_assert_eq!(got.state, r.state[z].public(), "zone {} state after step {}: {:?}", z, i, c);
            prop_assert_eq!(got.wp, got.start + r.wp[z] * ZONE_BLOCK, "zone {} write pointer after step {}", z, i);
        }
    }
    dev.check_invariants().map_err(|e| TestCaseError::fail(e.to_string()))?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn model_and_reference_agree(volatile in any::<bool>(), cmds in prop::collection::vec(cmd(), 1..160)) {
        run(volatile, &cmds)?;
    }
}

/// The standard's errors, each met on purpose (the property test meets them at random).
#[test]
fn errors_are_the_standards() {
    let p = zoned_toy(true);
    let mut dev = Device::new(&p, 1);
    let zb = dev.zones().unwrap().zone(0).size;
    let cap = dev.zones().unwrap().zone(0).capacity;
    let w = |dev: &mut Device, t, off, len| dev.submit(t, &Request::new(Op::Write, off, len)).map(drop);
    let zerr = |e: Result<(), RequestError>| match e {
        Err(RequestError::Zone(z)) => z,
        other => panic!("expected a zone error, got {other:?}"),
    };
    // Off the write pointer.
    assert_eq!(zerr(w(&mut dev, 0, 8192, 4096)), ZoneError::NotAtWritePointer { zone: 0, offset: 8192, wp: 0 });
    w(&mut dev, 0, 0, 4096).unwrap();
    assert_eq!(dev.zones().unwrap().state(0), ZoneState::ImplicitlyOpen);
    // Past the zone's capacity, and across its end.
    assert!(matches!(zerr(w(&mut dev, 1, 4096, cap)), ZoneError::ZoneBoundary { boundary: Boundary::Capacity, .. }));
    assert!(matches!(
        zerr(w(&mut dev, 1, zb - 4096, 8192)),
        ZoneError::ZoneBoundary { boundary: Boundary::ZoneEnd, .. }
    ));
    // Fill it: full, and a write to a full zone fails.
    w(&mut dev, 2, 4096, cap - 4096).unwrap();
    assert_eq!(dev.zones().unwrap().state(0), ZoneState::Full);
    assert_eq!(zerr(dev.zone_append(3, 0, 4096).map(drop)), ZoneError::ZoneFull { zone: 0 });
    // Open limit (3): three explicitly open zones leave nothing the device may close.
    for z in 1..4 {
        dev.zone_open(4, z).unwrap();
    }
    assert_eq!(zerr(w(&mut dev, 5, 4 * zb, 4096)), ZoneError::TooManyOpenZones { zone: 4, limit: 3 });
    // With an implicitly open zone among them, the device closes it (the oldest) instead.
    dev.zone_close(6, 3).unwrap();
    w(&mut dev, 7, 4 * zb, 4096).unwrap();
    w(&mut dev, 8, 5 * zb, 4096).unwrap();
    assert_eq!(dev.zones().unwrap().state(4), ZoneState::Closed, "the oldest implicitly open zone is closed");
    assert_eq!(dev.zones().unwrap().state(5), ZoneState::ImplicitlyOpen);
    // Active limit (5): zones 1, 2 (open), 4 (closed), 5 (open) and one more closed.
    w(&mut dev, 9, 6 * zb, 4096).unwrap();
    assert_eq!(dev.zones().unwrap().active_count(), 5);
    assert_eq!(zerr(w(&mut dev, 10, 7 * zb, 4096)), ZoneError::TooManyActiveZones { zone: 7, limit: 5 });
    // Read-only and offline zones.
    dev.zone_set_condition(6, ZoneState::ReadOnly).unwrap();
    assert_eq!(zerr(w(&mut dev, 11, 6 * zb + 4096, 4096)), ZoneError::ZoneReadOnly { zone: 6 });
    dev.submit(12, &Request::new(Op::Read, 6 * zb, 4096)).unwrap();
    dev.zone_set_condition(6, ZoneState::Offline).unwrap();
    assert_eq!(
        zerr(dev.submit(13, &Request::new(Op::Read, 6 * zb, 4096)).map(drop)),
        ZoneError::ZoneOffline { zone: 6 }
    );
    assert_eq!(zerr(dev.zone_reset(14, 6).map(drop)), ZoneError::ZoneOffline { zone: 6 });
    // Unaligned to the 4 KiB logical block; discard; a conventional device's zone command.
    assert!(matches!(zerr(w(&mut dev, 15, 7 * zb, 512)), ZoneError::UnalignedWrite { .. }));
    assert_eq!(zerr(dev.submit(16, &Request::new(Op::Trim, 0, 4096)).map(drop)), ZoneError::DiscardOnZone);
    let mut conv = Device::new(&Profile::from_toml("toy", builtin::TOY).unwrap(), 1);
    assert!(matches!(zerr(conv.zone_reset(0, 0).map(drop)), ZoneError::NotZoned(_)));
    dev.check_invariants().unwrap();
}

/// A reset erases the blocks the zone programmed: erase count, wear and erase time.
#[test]
fn reset_erases_the_zones_blocks() {
    let p = zoned_toy(false);
    let mut dev = Device::new(&p, 1);
    let cap = dev.zones().unwrap().zone(0).capacity;
    let before = dev.counters().erases;
    let mut t = 0;
    for off in (0..cap).step_by(256 * 1024) {
        t = dev.submit(t, &Request::new(Op::Write, off, 256 * 1024)).unwrap().done;
    }
    assert_eq!(dev.zones().unwrap().state(0), ZoneState::Full);
    assert_eq!(dev.counters().erases, before, "nothing erased before the reset");
    let c = dev.zone_reset(t, 0).unwrap();
    // 7 MiB on 2 dies of 512 KiB blocks: 7 blocks per die, erased one after another (3 ms each).
    assert_eq!(dev.counters().erases - before, 14);
    assert_eq!(dev.state().wear.max_erases, 1);
    assert!(c.device_done - c.device_start >= 7 * 3_000_000, "erase time: {c:?}");
    assert_eq!(dev.zones().unwrap().state(0), ZoneState::Empty);
    // The data is gone: reads return zeros without touching NAND.
    let reads = dev.counters().nand_page_reads;
    dev.submit(c.done, &Request::new(Op::Read, 0, 65536)).unwrap();
    assert_eq!(dev.counters().nand_page_reads, reads);
    // Written again and reset again: the same blocks wear on.
    let mut t = c.done;
    for off in (0..cap).step_by(256 * 1024) {
        t = dev.submit(t, &Request::new(Op::Write, off, 256 * 1024)).unwrap().done;
    }
    dev.zone_reset(t, 0).unwrap();
    assert_eq!(dev.state().wear.max_erases, 2);
    dev.check_invariants().unwrap();
}

/// The host writes zones sequentially and resets the oldest to reuse it (a log): device WAF is
/// exactly 1.0. The conventional twin on the same NAND, overwritten at random over the same
/// share of its space, copies in GC: WAF well above 1.
#[test]
fn zone_sequential_writing_has_no_write_amplification() {
    let p = zoned_toy(false);
    let mut dev = Device::new(&p, 1);
    let zones = dev.zones().unwrap().layout().zones;
    let cap = dev.zones().unwrap().zone(0).capacity;
    let zb = dev.zones().unwrap().zone(0).size;
    let mut t = 0;
    // Three passes over every zone: each pass resets a zone just before writing it again.
    for pass in 0..3 {
        for z in 0..zones {
            if pass > 0 {
                t = dev.zone_reset(t, z).unwrap().done;
            }
            for off in (0..cap).step_by(128 * 1024) {
                t = dev.submit(t, &Request::new(Op::Write, u64::from(z) * zb + off, 128 * 1024)).unwrap().done;
            }
        }
    }
    let c = dev.counters();
    assert_eq!(c.write_amplification(), 1.0, "{c:?}");
    assert_eq!(c.gc_units_copied, 0);
    assert_eq!(c.erases, 2 * u64::from(zones) * 14);

    // The conventional twin: the same NAND, page-mapped, random 4 KiB overwrites of 90 % of it.
    let mut twin = p.clone();
    twin.ftl.mapping = MappingKind::Page;
    twin.zoned = None;
    twin.validate("twin").unwrap();
    let mut conv = Device::new(&twin, 1);
    let span = conv.logical_bytes() / 4096 * 9 / 10;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut t = 0;
    for u in 0..span {
        t = conv.submit(t, &Request::new(Op::Write, u * 4096, 4096)).unwrap().done;
    }
    for _ in 0..2 * span {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t = conv.submit(t, &Request::new(Op::Write, x % span * 4096, 4096)).unwrap().done;
    }
    let waf = conv.counters().write_amplification();
    assert!(waf > 1.5, "conventional twin WAF {waf}");
}

/// Bad `[zoned]` input: an error naming the file and the field, never a panic.
#[test]
fn bad_zoned_profiles_name_the_field() {
    let good = builtin::text("zoned-ufs-4.0").unwrap();
    Profile::from_toml("zoned-ufs-4.0.toml", good).unwrap();
    let cases = [
        ("zone_width = 2", "zone_width = 3", "zoned.zone_width"),
        ("zone_width = 2", "zone_width = 0", "zoned.zone_width"),
        ("blocks_per_die = 1", "blocks_per_die = 170", "zoned.blocks_per_die"),
        ("max_open_zones = 6", "max_open_zones = 0", "zoned.max_open_zones"),
        ("max_active_zones = 6", "max_active_zones = 5", "zoned.max_active_zones"),
        ("max_active_zones = 6", "max_active_zones = 6\nzone_capacity_mib = 97", "zoned.zone_capacity_mib"),
        (
            "max_active_zones = 6",
            "max_active_zones = 6\nzone_capacity_mib = 90\nzone_size_mib = 80",
            "zoned.zone_size_mib",
        ),
        ("write_buffer_kib = 512", "write_buffer_kib = 256", "ftl.write_buffer_kib"),
        ("spare_factor = 0.02", "spare_factor = 0.02\nmap_cache_kib = 64", "ftl.map_cache_kib"),
        ("mapping = \"zoned\"", "mapping = \"page\"", "zoned"),
    ];
    for (from, to, field) in cases {
        let text = good.replacen(from, to, 1);
        assert_ne!(text, good, "{from}");
        let e = Profile::from_toml("zoned-ufs-4.0.toml", &text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{to}: {e}");
        assert!(e.to_string().starts_with("zoned-ufs-4.0.toml: field '"), "{e}");
    }
    let no_table = good.split("[zoned]").next().unwrap().to_string() + "[host]" + good.split("[host]").nth(1).unwrap();
    let e = Profile::from_toml("z.toml", &no_table).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("zoned"), "{e}");
    let e = Profile::from_toml("z.toml", &good.replacen("zone_width = 2", "zone_width = 2\nbogus = 1", 1)).unwrap_err();
    assert!(e.to_string().contains("bogus"), "{e}");
}

/// The built-in zoned profiles and their conventional twins share NAND and host.
#[test]
fn zoned_profiles_have_conventional_twins_on_the_same_nand() {
    for (zoned, twin) in [("zoned-ufs-4.0", "ufs-4.0"), ("nvme-gen3-zns", "nvme-gen3")] {
        let z = Profile::from_toml(zoned, builtin::text(zoned).unwrap()).unwrap();
        let t = Profile::from_toml(twin, builtin::text(twin).unwrap()).unwrap();
        assert_eq!(z.ftl.mapping, MappingKind::Zoned);
        assert_eq!(t.ftl.mapping, MappingKind::Page);
        assert_eq!(format!("{:?}", z.nand), format!("{:?}", t.nand), "{zoned} vs {twin}: NAND");
        assert_eq!(format!("{:?}", z.host), format!("{:?}", t.host), "{zoned} vs {twin}: host");
        let dev = Device::new(&z, 1);
        let zs = dev.zones().unwrap();
        assert!(zs.layout().zones > 100, "{zoned}: {} zones", zs.layout().zones);
        dev.check_invariants().unwrap();
    }
    let d = Device::new(&Profile::from_toml("z", builtin::text("nvme-gen3-zns").unwrap()).unwrap(), 1);
    let zone = d.report_zones()[0];
    assert_eq!(zone.capacity, 1077 << 20);
    assert_eq!(zone.size, 1152 << 20);
}

/// Zone width sets a zone's parallelism: the same sequential write into one zone finishes
/// about twice as fast on a zone two dies wide as on one die, and again on four.
#[test]
fn zone_width_sets_the_zones_write_parallelism() {
    let time_to_write = |width: u32| {
        let mut p = zoned_toy(false);
        let z = p.zoned.as_mut().unwrap();
        z.zone_width = width;
        z.blocks_per_die = 16 / width;
        p.validate("width").unwrap();
        let mut dev = Device::new(&p, 1);
        assert_eq!(dev.zones().unwrap().zone(0).size, 8 << 20, "same zone size at width {width}");
        let mut done = 0;
        for i in 0..64u64 {
            // Queued back to back: the host keeps the device busy.
            done = done.max(dev.submit(0, &Request::new(Op::Write, i * 65536, 65536)).unwrap().device_done);
        }
        done
    };
    let (w1, w2, w4) = (time_to_write(1), time_to_write(2), time_to_write(4));
    assert!(w1 as f64 > 1.7 * w2 as f64 && w2 as f64 > 1.7 * w4 as f64, "width 1: {w1} ns, 2: {w2} ns, 4: {w4} ns");
}
