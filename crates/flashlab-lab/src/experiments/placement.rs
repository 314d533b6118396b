//! Where data lands, and what it costs (`flashlab sim placement`, issue 47): one multi-stream
//! write workload on the same NAND under up to five placements, each reporting the device's write
//! amplification, the end-to-end one (the host's own cleaning included), write latency and the
//! projected lifetime.
//!
//! - **conventional**: the host writes logical blocks in place; the device's page-mapped FTL
//!   puts every stream behind one write frontier and its GC separates them, or not.
//! - **streams**: the same device with one write frontier per stream, the host tagging each
//!   write with its stream (NVMe streams); GC copies of every stream share one GC frontier.
//! - **fdp-initial**, **fdp-persistent**: the FDP twin (a profile with `[fdp]`, on the same
//!   NAND), one reclaim unit handle per stream, each write carrying its stream's placement
//!   ID; the handles initially isolated (GC copies of all handles share GC reclaim units) or
//!   persistently isolated (each handle's GC copies go to reclaim units of its own). Each row
//!   carries the WAF of every handle (media bytes / host bytes over the measured half).
//! - **zoned**: the zoned twin (host-managed zones, no device GC). The host is log-structured:
//!   each stream appends to its own open zone, an overwrite only invalidates the old copy in
//!   the host's map, and when empty zones run short the host cleans: the full zone with the
//!   fewest valid blocks is read, its valid blocks appended to a cleaning zone, and it is
//!   reset. The cleaning runs in the writing thread, so its time is in the latency of the write
//!   that waited for it (as F2FS's foreground cleaning is).
//!
//! The workloads are families of streams, each a share of the live data written uniformly at
//! random with a share of the writes ([`Family`]). Every placement gets the same live data (a
//! fraction of the conventional device's logical capacity, laid down sequentially per stream
//! first), then the same sequence of application writes, 4 KiB each at queue depth 1; the
//! figures are over the second half of the writes.

use crate::Error;
use flashlab_measure::histogram::LatencyHistogram;
use flashsim::{Device, Ns, Op, Profile, Request, MAP_UNIT};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// The placements compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// One write frontier for every stream.
    Conventional,
    /// One write frontier per stream.
    Streams,
    /// One FDP reclaim unit handle per stream, initially isolated.
    FdpInitial,
    /// One FDP reclaim unit handle per stream, persistently isolated.
    FdpPersistent,
    /// Host-managed zones, the host cleaning by zone reset.
    Zoned,
}

impl Placement {
    /// Every placement, in the order they are reported.
    pub const ALL: [Placement; 5] = [
        Placement::Conventional,
        Placement::Streams,
        Placement::FdpInitial,
        Placement::FdpPersistent,
        Placement::Zoned,
    ];

    /// The name the command line and the results use.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Conventional => "conventional",
            Placement::Streams => "streams",
            Placement::FdpInitial => "fdp-initial",
            Placement::FdpPersistent => "fdp-persistent",
            Placement::Zoned => "zoned",
        }
    }

    /// The placement a name gives.
    pub fn parse(s: &str) -> Result<Placement, Error> {
        Placement::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| Error::UnknownName {
            what: "placement",
            name: s.to_string(),
            expected: "conventional, streams, fdp-initial, fdp-persistent or zoned".into(),
        })
    }
}

/// A workload family: streams, each (share of the live data, share of the writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Two streams: 20 % of the data takes 80 % of the writes.
    HotCold,
    /// Four streams of 10/20/30/40 % of the data taking 40/30/20/10 % of the writes: lifetimes
    /// 16 times apart from the first to the last.
    MultiStream,
    /// A short-lived log (5 % of the data rewritten in order, round and round) takes half of
    /// the writes, interleaved one by one with uniform writes over the rest: a single frontier
    /// puts both in every block, so blocks the log has left behind are still half valid.
    Adversarial,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 3] = [Family::HotCold, Family::MultiStream, Family::Adversarial];

    /// The name the command line and the results use.
    pub fn name(self) -> &'static str {
        match self {
            Family::HotCold => "hotcold",
            Family::MultiStream => "multistream",
            Family::Adversarial => "adversarial",
        }
    }

    /// The family a name gives.
    pub fn parse(s: &str) -> Result<Family, Error> {
        Family::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| Error::UnknownName {
            what: "workload family",
            name: s.to_string(),
            expected: "hotcold, multistream or adversarial".into(),
        })
    }

    /// (share of the live data, share of the writes) per stream.
    pub fn streams(self) -> &'static [(f64, f64)] {
        match self {
            Family::HotCold => &[(0.2, 0.8), (0.8, 0.2)],
            Family::MultiStream => &[(0.1, 0.4), (0.2, 0.3), (0.3, 0.2), (0.4, 0.1)],
            Family::Adversarial => &[(0.05, 0.5), (0.95, 0.5)],
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct PlacementConfig {
    /// The conventional device (conventional and streams).
    pub conventional: Profile,
    /// Its zoned twin on the same NAND.
    pub zoned: Profile,
    /// Its FDP twin on the same NAND (a profile with `[fdp]`; its handles and isolation are
    /// set per placement, one handle per stream). `None`: no FDP rows.
    pub fdp: Option<Profile>,
    /// The workload.
    pub family: Family,
    /// Live data, a fraction of the conventional device's logical capacity.
    pub live: f64,
    /// Application writes, in passes over the live data.
    pub passes: f64,
    /// The P/E cycles a block is rated for (the lifetime projection's budget).
    pub pe_cycles: u32,
    /// Seed of the writes.
    pub seed: u64,
}

/// One placement's figures over the measured half.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementRow {
    /// `conventional`, `streams`, `fdp-initial`, `fdp-persistent` or `zoned`.
    pub placement: String,
    /// The device profile it ran on.
    pub profile: String,
    /// Application writes measured, 4 KiB each.
    pub app_writes: u64,
    /// Writes the device received: the application's and, zoned, the host's cleaning copies.
    pub device_writes: u64,
    /// 4 KiB units the host's cleaning copied (zoned).
    pub host_gc_copies: u64,
    /// 4 KiB units the device's GC copied.
    pub device_gc_copies: u64,
    /// Zone resets (zoned).
    pub zone_resets: u64,
    /// Blocks erased.
    pub erases: u64,
    /// 4 KiB units programmed to NAND.
    pub nand_units: u64,
    /// NAND units / device writes: the device's write amplification.
    pub device_waf: f64,
    /// NAND units / application writes: the whole stack's.
    pub end_to_end_waf: f64,
    /// Data copies alone, end to end: (device writes + the device's GC copies) / application
    /// writes. The rest of `end_to_end_waf` is the mapping table's pages (a DRAM-less
    /// controller's map cache writing back) and padding.
    pub data_waf: f64,
    /// Translation pages the device's map cache wrote back (a zoned device has no table).
    pub map_writebacks: u64,
    /// Application write latency, µs (the host's cleaning included for zoned): median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// The slowest write.
    pub max_us: f64,
    /// Application terabytes written until the P/E budget is used at this end-to-end WAF:
    /// `pe_cycles` x the NAND's bytes / WAF.
    pub lifetime_tbw: f64,
    /// FDP placements: per reclaim unit handle (one per stream), media bytes / host bytes
    /// over the measured half. Empty for the others.
    pub handle_waf: Vec<f64>,
}

/// The comparison.
#[derive(Debug, Clone, Serialize)]
pub struct PlacementResult {
    /// The workload family.
    pub family: String,
    /// (data share, write share) per stream.
    pub streams: Vec<(f64, f64)>,
    /// Live data, bytes (the same for every placement).
    pub live_bytes: u64,
    /// The NAND's bytes (the same for every placement).
    pub nand_bytes: u64,
    /// The P/E budget of the lifetime projection.
    pub pe_cycles: u32,
    /// Application writes in passes over the live data.
    pub passes: f64,
    /// Seed of the writes.
    pub seed: u64,
    /// One row per placement.
    pub rows: Vec<PlacementRow>,
}

/// The application's writes: a stream, then a live block of it, drawn from the seed alone (so
/// every placement sees the same sequence).
struct Workload {
    rng: Xoshiro256PlusPlus,
    /// Per stream: first live block, blocks, cumulative write share.
    streams: Vec<(u64, u64, f64)>,
    adversarial: bool,
    turn: u64,
    /// The adversarial log's next block (relative to its stream's first).
    cursor: u64,
}

impl Workload {
    fn new(family: Family, live_units: u64, seed: u64) -> Workload {
        let mut first = 0;
        let mut cum = 0.0;
        let n = family.streams().len();
        let streams = family
            .streams()
            .iter()
            .enumerate()
            .map(|(i, &(data, writes))| {
                let units = if i + 1 == n { live_units - first } else { (live_units as f64 * data) as u64 };
                let s = (first, units.max(1), cum + writes);
                first += units;
                cum += writes;
                s
            })
            .collect();
        Workload {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            streams,
            adversarial: family == Family::Adversarial,
            turn: 0,
            cursor: 0,
        }
    }

    /// The next write: (stream, live block).
    fn next(&mut self) -> (usize, u64) {
        let stream = if self.adversarial {
            self.turn += 1;
            (self.turn % 2) as usize
        } else {
            let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            self.streams.iter().position(|s| u < s.2).unwrap_or(self.streams.len() - 1)
        };
        let (first, units, _) = self.streams[stream];
        if self.adversarial && stream == 0 {
            let b = self.cursor;
            self.cursor = (b + 1) % units;
            return (stream, first + b);
        }
        (stream, first + self.rng.next_u64() % units)
    }
}

/// The conventional profile with one frontier per stream, its write buffer grown to hold their
/// open pages if it must (the profile's rule: two program units per frontier).
fn with_streams(p: &Profile, streams: u32) -> Result<Profile, Error> {
    let mut q = p.clone();
    q.ftl.host_streams = streams;
    let upp = u64::from(q.units_per_page());
    let need_kib = 2 * upp * u64::from(streams + 1) * MAP_UNIT / 1024;
    q.ftl.write_buffer_kib = q.ftl.write_buffer_kib.max(need_kib as u32);
    q.validate(&p.name)?;
    Ok(q)
}

/// The FDP twin with one reclaim unit handle per stream, all of `isolation`, its write buffer
/// grown as [`with_streams`] grows it.
fn with_fdp(p: &Profile, streams: u32, isolation: flashsim::Isolation) -> Result<Profile, Error> {
    let mut q = p.clone();
    q.fdp = None;
    let mut q = with_streams(&q, streams)?;
    let mut c = p.fdp.clone().expect("an FDP twin");
    c.handles = streams;
    c.isolation = vec![isolation];
    q.fdp = Some(c);
    q.validate(&p.name)?;
    Ok(q)
}

/// NAND bytes of a profile.
fn nand_bytes(p: &Profile) -> u64 {
    let n = &p.nand;
    u64::from(n.channels)
        * u64::from(n.dies_per_channel)
        * u64::from(n.planes_per_die)
        * u64::from(n.blocks_per_plane)
        * u64::from(n.pages_per_block)
        * u64::from(n.page_kib)
        * 1024
}

/// Counts at the start of the measured half.
#[derive(Default, Clone, Copy)]
struct Mark {
    device_writes: u64,
    host_gc: u64,
    resets: u64,
}

/// Run every placement of `cfg`; `progress(fraction)` as it goes.
pub fn run_placements(cfg: &PlacementConfig, mut progress: impl FnMut(f64)) -> Result<PlacementResult, Error> {
    if !(cfg.live > 0.0 && cfg.live < 1.0) {
        return Err(Error::Flag { flag: "--live".into(), message: format!("must be in (0, 1), got {}", cfg.live) });
    }
    if !(cfg.passes > 0.0 && cfg.passes <= 100.0) {
        return Err(Error::Flag {
            flag: "--passes".into(),
            message: format!("must be in (0, 100], got {}", cfg.passes),
        });
    }
    let not = |p: &Profile, message: &str| Error::ProfileTable {
        file: p.name.clone(),
        table: None,
        field: None,
        message: message.to_string(),
    };
    if cfg.zoned.zoned.is_none() {
        return Err(not(&cfg.zoned, "not a zoned profile (no [zoned] table): --zoned needs one"));
    }
    if cfg.conventional.zoned.is_some() {
        return Err(not(&cfg.conventional, "a zoned profile: --conventional needs a conventional one"));
    }
    if let Some(f) = cfg.fdp.as_ref().filter(|f| f.fdp.is_none()) {
        return Err(not(f, "not an FDP profile (no [fdp] table): --fdp needs one"));
    }
    let live_units = (cfg.conventional.logical_bytes() as f64 * cfg.live) as u64 / MAP_UNIT;
    let nand = nand_bytes(&cfg.conventional);
    let writes = (live_units as f64 * cfg.passes) as u64;
    let n = cfg.family.streams().len() as u32;
    let mut rows = Vec::new();
    let placements: Vec<Placement> = Placement::ALL
        .into_iter()
        .filter(|p| cfg.fdp.is_some() || !matches!(p, Placement::FdpInitial | Placement::FdpPersistent))
        .collect();
    for (i, &placement) in placements.iter().enumerate() {
        let step = |f: f64| (i as f64 + f) / placements.len() as f64;
        let progress = |f: f64| progress(step(f));
        let row = match placement {
            Placement::Conventional => {
                run_in_place(cfg, &cfg.conventional, placement, live_units, writes, nand, progress)?
            }
            Placement::Streams => {
                let p = with_streams(&cfg.conventional, n)?;
                run_in_place(cfg, &p, placement, live_units, writes, nand, progress)?
            }
            Placement::FdpInitial | Placement::FdpPersistent => {
                let iso = if placement == Placement::FdpInitial {
                    flashsim::Isolation::InitiallyIsolated
                } else {
                    flashsim::Isolation::PersistentlyIsolated
                };
                let p = with_fdp(cfg.fdp.as_ref().expect("filtered above"), n, iso)?;
                run_in_place(cfg, &p, placement, live_units, writes, nand, progress)?
            }
            Placement::Zoned => run_zoned(cfg, live_units, writes, nand, progress)?,
        };
        rows.push(row);
    }
    Ok(PlacementResult {
        family: cfg.family.name().to_string(),
        streams: cfg.family.streams().to_vec(),
        live_bytes: live_units * MAP_UNIT,
        nand_bytes: nand,
        pe_cycles: cfg.pe_cycles,
        passes: cfg.passes,
        seed: cfg.seed,
        rows,
    })
}

fn io(dev: &mut Device, now: Ns, r: &Request) -> Result<Ns, Error> {
    dev.submit(now, r).map(|c| c.done).map_err(|e| Error::Device(e.to_string()))
}

/// Conventional, streams or FDP: the application's blocks are the device's; every placement
/// but conventional tags each write with its stream (a stream, or a placement ID).
fn run_in_place(
    cfg: &PlacementConfig,
    profile: &Profile,
    placement: Placement,
    live_units: u64,
    writes: u64,
    nand: u64,
    mut progress: impl FnMut(f64),
) -> Result<PlacementRow, Error> {
    let tag_streams = placement != Placement::Conventional;
    let mut dev = Device::new(profile, cfg.seed);
    let mut w = Workload::new(cfg.family, live_units, cfg.seed);
    let mut now = 0;
    // The live data, laid down stream by stream.
    for (s, &(first, units, _)) in w.streams.clone().iter().enumerate() {
        for lpn in first..first + units {
            let stream = if tag_streams { s as u32 } else { 0 };
            now = io(&mut dev, now, &Request { stream, ..Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT) })?;
        }
    }
    let mut hist = LatencyHistogram::new();
    let mut base = dev.counters();
    let mut fdp_base = dev.fdp_stats();
    for k in 0..writes {
        if k == writes / 2 {
            base = dev.counters();
            fdp_base = dev.fdp_stats();
            hist.clear();
        }
        let (s, lpn) = w.next();
        let stream = if tag_streams { s as u32 } else { 0 };
        let done = io(&mut dev, now, &Request { stream, ..Request::new(Op::Write, lpn * MAP_UNIT, MAP_UNIT) })?;
        hist.record(done - now);
        now = done;
        if k % 65536 == 0 {
            progress(k as f64 / writes as f64);
        }
    }
    let c = dev.counters();
    let app = c.host_units_written - base.host_units_written;
    let handle_waf = match (dev.fdp_stats(), fdp_base) {
        (Some(end), Some(start)) => end
            .handles
            .iter()
            .zip(&start.handles)
            .map(|(e, s)| (e.media_bytes - s.media_bytes) as f64 / (e.host_bytes - s.host_bytes).max(1) as f64)
            .collect(),
        _ => Vec::new(),
    };
    let mut r = row(
        placement,
        profile,
        app,
        app,
        0,
        c.gc_units_copied - base.gc_units_copied,
        0,
        c.erases - base.erases,
        c.nand_units_programmed - base.nand_units_programmed,
        c.map_page_writes - base.map_page_writes,
        &hist,
        cfg.pe_cycles,
        nand,
    );
    r.handle_waf = handle_waf;
    Ok(r)
}

#[allow(clippy::too_many_arguments)]
fn row(
    placement: Placement,
    profile: &Profile,
    app: u64,
    device_writes: u64,
    host_gc: u64,
    device_gc: u64,
    resets: u64,
    erases: u64,
    nand_units: u64,
    map_writebacks: u64,
    hist: &LatencyHistogram,
    pe: u32,
    nand: u64,
) -> PlacementRow {
    let e2e = nand_units as f64 / app.max(1) as f64;
    let us = |p: f64| hist.percentile(p) as f64 / 1e3;
    PlacementRow {
        placement: placement.name().to_string(),
        profile: profile.name.clone(),
        app_writes: app,
        device_writes,
        host_gc_copies: host_gc,
        device_gc_copies: device_gc,
        zone_resets: resets,
        erases,
        nand_units,
        device_waf: nand_units as f64 / device_writes.max(1) as f64,
        end_to_end_waf: e2e,
        data_waf: (device_writes + device_gc) as f64 / app.max(1) as f64,
        map_writebacks,
        p50_us: us(50.0),
        p99_us: us(99.0),
        p999_us: us(99.9),
        max_us: hist.max() as f64 / 1e3,
        lifetime_tbw: f64::from(pe) * nand as f64 / e2e.max(1e-9) / 1e12,
        handle_waf: Vec::new(),
    }
}

/// No block: the reverse map's empty slot.
const NONE: u32 = u32::MAX;

/// The host's side of the zoned placement: where each live block is, what each zone holds.
struct ZonedHost {
    /// Per live block: its unit on the device (zone x units per zone + offset), or NONE.
    at: Vec<u32>,
    /// Per device unit: the live block in it, or NONE.
    holds: Vec<u32>,
    /// Per zone: valid units.
    valid: Vec<u32>,
    /// Per zone: units written (the write pointer, relative).
    wp: Vec<u32>,
    /// Units per zone (its capacity).
    cap: u32,
    /// Units of address space per zone.
    stride: u64,
    /// Empty zones.
    empty: Vec<u32>,
    /// The open zone of each stream; the last is the cleaner's.
    open: Vec<u32>,
    host_gc: u64,
    resets: u64,
}

impl ZonedHost {
    fn new(dev: &Device, live_units: u64, streams: usize) -> Result<ZonedHost, Error> {
        let zones = dev.report_zones();
        let cap = (zones[0].capacity / MAP_UNIT) as u32;
        let stride = zones[0].size / MAP_UNIT;
        let z = zones.len();
        if z < streams + 4 {
            return Err(Error::Device(format!("{z} zones are too few for {streams} streams and cleaning")));
        }
        let mut empty: Vec<u32> = (0..z as u32).rev().collect();
        let open = (0..=streams).map(|_| empty.pop().expect("enough zones")).collect();
        Ok(ZonedHost {
            at: vec![NONE; live_units as usize],
            holds: vec![NONE; z * cap as usize],
            valid: vec![0; z],
            wp: vec![0; z],
            cap,
            stride,
            empty,
            open,
            host_gc: 0,
            resets: 0,
        })
    }

    /// Append live block `lpn` for `stream` (the cleaner is the last); returns the time.
    fn append(&mut self, dev: &mut Device, now: Ns, stream: usize, lpn: u64) -> Result<Ns, Error> {
        if self.wp[self.open[stream] as usize] == self.cap {
            self.open[stream] =
                self.empty.pop().ok_or_else(|| Error::Device("the host ran out of empty zones".into()))?;
        }
        let zone = self.open[stream];
        let off = self.wp[zone as usize];
        let done = io(
            dev,
            now,
            &Request::new(Op::Write, (u64::from(zone) * self.stride + u64::from(off)) * MAP_UNIT, MAP_UNIT),
        )?;
        self.wp[zone as usize] += 1;
        let unit = zone * self.cap + off;
        let old = std::mem::replace(&mut self.at[lpn as usize], unit);
        if old != NONE {
            self.holds[old as usize] = NONE;
            self.valid[(old / self.cap) as usize] -= 1;
        }
        self.holds[unit as usize] = lpn as u32;
        self.valid[zone as usize] += 1;
        Ok(done)
    }

    /// Clean until `min_empty` zones are empty: the full, not open, zone with the fewest valid
    /// units is copied to the cleaner's zone and reset.
    fn clean(&mut self, dev: &mut Device, mut now: Ns, min_empty: usize) -> Result<Ns, Error> {
        let cleaner = self.open.len() - 1;
        while self.empty.len() < min_empty {
            let victim = (0..self.valid.len() as u32)
                .filter(|z| self.wp[*z as usize] == self.cap && !self.open.contains(z))
                .min_by_key(|z| self.valid[*z as usize])
                .ok_or_else(|| Error::Device("no zone to clean".into()))?;
            let first = victim * self.cap;
            for unit in first..first + self.cap {
                let lpn = self.holds[unit as usize];
                if lpn == NONE {
                    continue;
                }
                let off = u64::from(victim) * self.stride + u64::from(unit - first);
                now = io(dev, now, &Request::new(Op::Read, off * MAP_UNIT, MAP_UNIT))?;
                now = self.append(dev, now, cleaner, u64::from(lpn))?;
                self.host_gc += 1;
            }
            now = dev.zone_reset(now, victim).map_err(|e| Error::Device(e.to_string()))?.done;
            self.resets += 1;
            self.wp[victim as usize] = 0;
            debug_assert_eq!(self.valid[victim as usize], 0);
            self.empty.insert(0, victim);
        }
        Ok(now)
    }
}

/// Zoned: the host's log over the zoned twin.
fn run_zoned(
    cfg: &PlacementConfig,
    live_units: u64,
    writes: u64,
    nand: u64,
    mut progress: impl FnMut(f64),
) -> Result<PlacementRow, Error> {
    let mut dev = Device::new(&cfg.zoned, cfg.seed);
    let n = cfg.family.streams().len();
    let mut host = ZonedHost::new(&dev, live_units, n)?;
    if live_units >= u64::from(host.cap) * (host.valid.len() - n - 3) as u64 {
        return Err(Error::Flag {
            flag: "--live".into(),
            message: format!("{} the live data does not fit the zoned device with room to clean", cfg.live),
        });
    }
    let mut w = Workload::new(cfg.family, live_units, cfg.seed);
    let mut now = 0;
    for (s, &(first, units, _)) in w.streams.clone().iter().enumerate() {
        for lpn in first..first + units {
            now = host.clean(&mut dev, now, 2)?;
            now = host.append(&mut dev, now, s, lpn)?;
        }
    }
    let mut hist = LatencyHistogram::new();
    let mut base = (dev.counters(), Mark::default());
    let mark = |h: &ZonedHost, d: &Device| Mark {
        device_writes: d.counters().host_units_written,
        host_gc: h.host_gc,
        resets: h.resets,
    };
    base.1 = mark(&host, &dev);
    for k in 0..writes {
        if k == writes / 2 {
            base = (dev.counters(), mark(&host, &dev));
            hist.clear();
        }
        let (s, lpn) = w.next();
        let t = host.clean(&mut dev, now, 2)?;
        let done = host.append(&mut dev, t, s, lpn)?;
        hist.record(done - now);
        now = done;
        if k % 65536 == 0 {
            progress(k as f64 / writes as f64);
        }
    }
    let c = dev.counters();
    let m = mark(&host, &dev);
    let device_writes = m.device_writes - base.1.device_writes;
    let host_gc = m.host_gc - base.1.host_gc;
    Ok(row(
        Placement::Zoned,
        &cfg.zoned,
        device_writes - host_gc,
        device_writes,
        host_gc,
        c.gc_units_copied - base.0.gc_units_copied,
        m.resets - base.1.resets,
        c.erases - base.0.erases,
        c.nand_units_programmed - base.0.nand_units_programmed,
        c.map_page_writes - base.0.map_page_writes,
        &hist,
        cfg.pe_cycles,
        nand,
    ))
}
