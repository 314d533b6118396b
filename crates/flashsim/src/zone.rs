//! Zones of a zoned device: their states, write pointers, open and active limits, and the
//! errors the zoned command sets define. This is the host-visible state machine only; where a
//! zone's data sits on NAND is `zoned.rs`.
//!
//! Learnt from the public descriptions of the NVMe Zoned Namespace command set (ZNS), SCSI ZBC
//! (which zoned UFS, JESD220-5, follows), the Linux kernel's `blkzoned.h` and its zoned
//! `null_blk`. Written from those semantics, not from their code. The rules (docs/zoned.md):
//!
//! - States: empty, implicitly open, explicitly open, closed, full, read-only, offline. Open
//!   zones are the implicitly and explicitly open ones; active zones are the open and the
//!   closed ones.
//! - A write (or zone append) to an empty or closed zone opens it implicitly. With the open
//!   limit reached, the zone that was implicitly opened longest ago is closed to make room
//!   (ZBC's and ZNS's rule that only an implicitly open zone may be closed by the device; which
//!   one is the device's choice, and this model takes the oldest); with no implicitly open zone
//!   the write fails with too many open zones. An empty zone needs an active resource too:
//!   with the active limit reached the write fails with too many active zones.
//! - A write that reaches the zone capacity makes the zone full (its open and active resources
//!   are released). Finish makes a zone full at once; reset makes it empty.
//! - Checks run in a fixed order, and the first that fails is the error: logical block
//!   alignment, zone end crossed, zone offline, read-only, full, write pointer, capacity,
//!   resources (active, then open).

use std::collections::VecDeque;
use std::fmt;

/// The logical block of a zoned device, bytes: writes and write pointers move in whole blocks
/// (zoned UFS and ZNS drives use 4 KiB logical blocks; so does every flashlab FTL's mapping).
pub const ZONE_BLOCK: u64 = crate::profile::MAP_UNIT;

/// A zone's state (ZNS's zone states, ZBC's zone conditions, `BLK_ZONE_COND_*` in Linux).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneState {
    /// Nothing written since the last reset; the write pointer is at the zone's start.
    Empty,
    /// Opened by a write; the device may close it to open another.
    ImplicitlyOpen,
    /// Opened by an open command; stays open until closed, finished or reset.
    ExplicitlyOpen,
    /// Partly written, not open: holds an active resource, not an open one.
    Closed,
    /// Written to its capacity, or finished: no more writes until reset.
    Full,
    /// The device made it read-only (end of life): readable, never written again.
    ReadOnly,
    /// The device took it offline: neither read nor written.
    Offline,
}

impl ZoneState {
    /// The state as reports name it (`blkzone report` spells these `em`, `oi`, `oe`, `cl`,
    /// `fu`, `ro`, `ol`).
    pub fn name(self) -> &'static str {
        match self {
            ZoneState::Empty => "empty",
            ZoneState::ImplicitlyOpen => "implicitly-open",
            ZoneState::ExplicitlyOpen => "explicitly-open",
            ZoneState::Closed => "closed",
            ZoneState::Full => "full",
            ZoneState::ReadOnly => "read-only",
            ZoneState::Offline => "offline",
        }
    }

    /// Implicitly or explicitly open.
    pub fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen)
    }

    /// Open or closed: holds an active resource.
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
}

impl fmt::Display for ZoneState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One zone as a zone report gives it. Bytes from the start of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    /// First byte of the zone.
    pub start: u64,
    /// Bytes of address space the zone spans (the next zone starts at `start + size`).
    pub size: u64,
    /// Bytes that can be written (at most `size`; the rest of the zone reads as zeros).
    pub capacity: u64,
    /// The write pointer: the next byte a write must start at. `start + capacity` when full.
    pub wp: u64,
    /// The zone's state.
    pub state: ZoneState,
}

/// The zone management commands, as errors name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZoneOp {
    /// Open zone (explicit open).
    Open,
    /// Close zone.
    Close,
    /// Finish zone.
    Finish,
    /// Reset zone (reset write pointer).
    Reset,
    /// Taken out of service by the device (only to read-only or offline; `state` in the error
    /// is the state asked for).
    Fail,
}

impl fmt::Display for ZoneOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ZoneOp::Open => "open",
            ZoneOp::Close => "close",
            ZoneOp::Finish => "finish",
            ZoneOp::Reset => "reset",
            ZoneOp::Fail => "take out of service to that state",
        })
    }
}

/// Which limit a write crossed (both are ZNS's Zone Boundary Error; ZBC names the first a
/// write boundary violation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// The request runs past the end of its zone into the next.
    ZoneEnd,
    /// The write runs past the zone's writable capacity.
    Capacity,
}

/// A zoned command the device refused; nothing was changed. Each variant names the status
/// the standards give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ZoneError {
    /// A zone command to a device that has no zones.
    #[error("the device is not zoned: it has no zones to {0}")]
    NotZoned(&'static str),
    /// A zone number past the last zone.
    #[error("zone {zone} does not exist: the device has {zones} zones")]
    NoSuchZone {
        /// The zone asked for.
        zone: u32,
        /// Zones on the device.
        zones: u32,
    },
    /// A write whose offset or length is not a whole number of logical blocks (ZBC: unaligned
    /// write command).
    #[error("write at {offset} of {len} bytes is not aligned to the zoned device's {ZONE_BLOCK}-byte logical blocks")]
    UnalignedWrite {
        /// The request's first byte.
        offset: u64,
        /// The request's length, bytes.
        len: u64,
    },
    /// A write that does not start at its zone's write pointer (ZNS: Zone Invalid Write; ZBC:
    /// unaligned write command).
    #[error("write at {offset} in zone {zone} is not at the write pointer ({wp})")]
    NotAtWritePointer {
        /// The zone.
        zone: u32,
        /// The request's first byte.
        offset: u64,
        /// The zone's write pointer, bytes.
        wp: u64,
    },
    /// A write past the zone's end or capacity (ZNS: Zone Boundary Error; ZBC: write boundary
    /// violation).
    #[error("write of {len} bytes at {offset} in zone {zone} crosses the zone's {}", match .boundary { Boundary::ZoneEnd => "end", Boundary::Capacity => "capacity" })]
    ZoneBoundary {
        /// The zone the write starts in.
        zone: u32,
        /// The request's first byte.
        offset: u64,
        /// The request's length, bytes.
        len: u64,
        /// Which limit it crosses.
        boundary: Boundary,
    },
    /// A write to a full zone (ZNS: Zone Is Full).
    #[error("zone {zone} is full")]
    ZoneFull {
        /// The zone.
        zone: u32,
    },
    /// A write or zone command to a read-only zone (ZNS: Zone Is Read Only).
    #[error("zone {zone} is read-only")]
    ZoneReadOnly {
        /// The zone.
        zone: u32,
    },
    /// Any command to an offline zone (ZNS: Zone Is Offline).
    #[error("zone {zone} is offline")]
    ZoneOffline {
        /// The zone.
        zone: u32,
    },
    /// Opening one more zone would pass the open limit and no implicitly open zone can be
    /// closed for it (ZNS: Too Many Open Zones; ZBC: insufficient zone resources).
    #[error("zone {zone} cannot be opened: {limit} zones are open already (the device's limit), none implicitly")]
    TooManyOpenZones {
        /// The zone that was to be opened.
        zone: u32,
        /// The device's open limit.
        limit: u32,
    },
    /// Making one more zone active would pass the active limit (ZNS: Too Many Active Zones).
    #[error("zone {zone} cannot be made active: {limit} zones are active already (the device's limit)")]
    TooManyActiveZones {
        /// The zone that was to become active.
        zone: u32,
        /// The device's active limit.
        limit: u32,
    },
    /// A zone command the zone's state does not allow (ZNS: Invalid Zone State Transition):
    /// close of an empty or full zone, open of a full zone.
    #[error("zone {zone}: cannot {op} (the zone is {state})")]
    InvalidTransition {
        /// The zone.
        zone: u32,
        /// Its state.
        state: ZoneState,
        /// The command.
        op: ZoneOp,
    },
    /// A zone append not addressed to the first byte of a zone (ZNS: Invalid Field in Command).
    #[error("zone append at {offset} is not addressed to a zone's start")]
    AppendNotAtZoneStart {
        /// The request's offset.
        offset: u64,
    },
    /// A discard (TRIM) to a zoned device: its zones are freed by reset, not by discard.
    #[error("discard of a zoned device: zones are freed by zone reset, not discard")]
    DiscardOnZone,
}

/// Zone geometry and limits, fixed for a device's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneLayout {
    /// Zones on the device.
    pub zones: u32,
    /// Logical blocks ([`ZONE_BLOCK`]) per zone.
    pub size_blocks: u32,
    /// Writable logical blocks per zone (at most `size_blocks`).
    pub capacity_blocks: u32,
    /// Most zones open at once; 0: no limit.
    pub max_open: u32,
    /// Most zones active (open or closed) at once; 0: no limit.
    pub max_active: u32,
}

/// Per zone: state and write pointer (blocks from the zone's start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ZoneEntry {
    state: ZoneState,
    wp: u32,
}

/// The zones' states, write pointers and resource counts: the standard's state machine.
#[derive(Debug, Clone)]
pub struct Zones {
    layout: ZoneLayout,
    zones: Vec<ZoneEntry>,
    open: u32,
    active: u32,
    /// Implicitly open zones, oldest first (the one the device closes when it needs room).
    implicit: VecDeque<u32>,
}

impl Zones {
    /// `layout.zones` empty zones.
    pub fn new(layout: ZoneLayout) -> Zones {
        assert!(layout.capacity_blocks <= layout.size_blocks && layout.capacity_blocks > 0);
        Zones {
            layout,
            zones: vec![ZoneEntry { state: ZoneState::Empty, wp: 0 }; layout.zones as usize],
            open: 0,
            active: 0,
            implicit: VecDeque::with_capacity(layout.max_open.min(layout.zones) as usize + 1),
        }
    }

    /// The geometry and limits.
    pub fn layout(&self) -> ZoneLayout {
        self.layout
    }

    /// Zones open now (implicitly or explicitly).
    pub fn open_count(&self) -> u32 {
        self.open
    }

    /// Zones active now (open or closed).
    pub fn active_count(&self) -> u32 {
        self.active
    }

    fn size_bytes(&self) -> u64 {
        u64::from(self.layout.size_blocks) * ZONE_BLOCK
    }

    /// Zone `z` as a report gives it.
    pub fn zone(&self, z: u32) -> Zone {
        let e = self.zones[z as usize];
        let start = u64::from(z) * self.size_bytes();
        Zone {
            start,
            size: self.size_bytes(),
            capacity: u64::from(self.layout.capacity_blocks) * ZONE_BLOCK,
            wp: start + u64::from(e.wp) * ZONE_BLOCK,
            state: e.state,
        }
    }

    /// The zone of byte `offset`.
    pub fn zone_of(&self, offset: u64) -> u32 {
        (offset / self.size_bytes()) as u32
    }

    /// The write pointer of zone `z`, blocks from its start.
    pub(crate) fn wp_blocks(&self, z: u32) -> u32 {
        self.zones[z as usize].wp
    }

    /// The state of zone `z`.
    pub fn state(&self, z: u32) -> ZoneState {
        self.zones[z as usize].state
    }

    fn check_zone(&self, z: u32) -> Result<(), ZoneError> {
        if z >= self.layout.zones {
            return Err(ZoneError::NoSuchZone { zone: z, zones: self.layout.zones });
        }
        Ok(())
    }

    fn set(&mut self, z: u32, state: ZoneState) {
        let old = self.zones[z as usize].state;
        if old == state {
            return;
        }
        if old.is_open() {
            self.open -= 1;
        }
        if old.is_active() {
            self.active -= 1;
        }
        if old == ZoneState::ImplicitlyOpen {
            let i = self.implicit.iter().position(|&x| x == z).expect("implicitly open zone in the list");
            self.implicit.remove(i);
        }
        if state.is_open() {
            self.open += 1;
        }
        if state.is_active() {
            self.active += 1;
        }
        if state == ZoneState::ImplicitlyOpen {
            self.implicit.push_back(z);
        }
        self.zones[z as usize].state = state;
    }

    /// Close an open zone: closed, or empty when nothing was written to it.
    fn close_open(&mut self, z: u32) {
        let to = if self.zones[z as usize].wp == 0 { ZoneState::Empty } else { ZoneState::Closed };
        self.set(z, to);
    }

    /// Resources for zone `z` (empty or closed) to become open: an active one if it is empty,
    /// then an open one, closing the oldest implicitly open zone when the open limit is
    /// reached. Changes nothing on error.
    fn make_room(&mut self, z: u32) -> Result<(), ZoneError> {
        let l = self.layout;
        if self.zones[z as usize].state == ZoneState::Empty && l.max_active != 0 && self.active >= l.max_active {
            return Err(ZoneError::TooManyActiveZones { zone: z, limit: l.max_active });
        }
        if l.max_open == 0 || self.open < l.max_open {
            return Ok(());
        }
        let Some(&victim) = self.implicit.front() else {
            return Err(ZoneError::TooManyOpenZones { zone: z, limit: l.max_open });
        };
        // Its partial page stays in the write buffer: nothing moves on NAND.
        self.close_open(victim);
        Ok(())
    }

    /// Admit a write of `len` bytes at `offset` (a zone append when `append`: `offset` must be
    /// a zone's start, and the data goes to its write pointer). On success the zone's state and
    /// write pointer have moved; returns the zone and the block (from the zone's start) the
    /// data starts at.
    pub(crate) fn write(&mut self, offset: u64, len: u64, append: bool) -> Result<(u32, u32), ZoneError> {
        if !offset.is_multiple_of(ZONE_BLOCK) || !len.is_multiple_of(ZONE_BLOCK) || len == 0 {
            return Err(ZoneError::UnalignedWrite { offset, len });
        }
        let z = self.zone_of(offset);
        self.check_zone(z)?;
        let start = u64::from(z) * self.size_bytes();
        if append && offset != start {
            return Err(ZoneError::AppendNotAtZoneStart { offset });
        }
        let l = self.layout;
        let blocks = len / ZONE_BLOCK;
        if !append && offset + len > start + self.size_bytes() {
            return Err(ZoneError::ZoneBoundary { zone: z, offset, len, boundary: Boundary::ZoneEnd });
        }
        let e = self.zones[z as usize];
        match e.state {
            ZoneState::Offline => return Err(ZoneError::ZoneOffline { zone: z }),
            ZoneState::ReadOnly => return Err(ZoneError::ZoneReadOnly { zone: z }),
            ZoneState::Full => return Err(ZoneError::ZoneFull { zone: z }),
            _ => {}
        }
        let wp = start + u64::from(e.wp) * ZONE_BLOCK;
        if !append && offset != wp {
            return Err(ZoneError::NotAtWritePointer { zone: z, offset, wp });
        }
        if u64::from(e.wp) + blocks > u64::from(l.capacity_blocks) {
            return Err(ZoneError::ZoneBoundary { zone: z, offset: wp, len, boundary: Boundary::Capacity });
        }
        if matches!(e.state, ZoneState::Empty | ZoneState::Closed) {
            self.make_room(z)?;
            self.set(z, ZoneState::ImplicitlyOpen);
        }
        let first = e.wp;
        let new_wp = e.wp + blocks as u32;
        self.zones[z as usize].wp = new_wp;
        if new_wp == l.capacity_blocks {
            self.set(z, ZoneState::Full);
        }
        Ok((z, first))
    }

    /// Check a read of `len` bytes at `offset`: fails only where it touches an offline zone
    /// (reads past a write pointer return zeros, as ZNS and Linux's `null_blk` give them).
    pub(crate) fn read(&self, offset: u64, len: u64) -> Result<(), ZoneError> {
        let (first, last) = (self.zone_of(offset), self.zone_of(offset + len.max(1) - 1));
        for z in first..=last.min(self.layout.zones.saturating_sub(1)) {
            if self.zones[z as usize].state == ZoneState::Offline {
                return Err(ZoneError::ZoneOffline { zone: z });
            }
        }
        Ok(())
    }

    /// The checks every zone command starts with: the zone exists and is neither offline nor
    /// read-only.
    fn manageable(&self, z: u32) -> Result<ZoneEntry, ZoneError> {
        self.check_zone(z)?;
        let e = self.zones[z as usize];
        match e.state {
            ZoneState::Offline => Err(ZoneError::ZoneOffline { zone: z }),
            ZoneState::ReadOnly => Err(ZoneError::ZoneReadOnly { zone: z }),
            _ => Ok(e),
        }
    }

    /// Open zone `z` explicitly. Open of an explicitly open zone does nothing; of a full zone
    /// fails.
    pub(crate) fn open(&mut self, z: u32) -> Result<(), ZoneError> {
        let e = self.manageable(z)?;
        match e.state {
            ZoneState::ExplicitlyOpen => return Ok(()),
            ZoneState::ImplicitlyOpen => {}
            ZoneState::Empty | ZoneState::Closed => self.make_room(z)?,
            state => return Err(ZoneError::InvalidTransition { zone: z, state, op: ZoneOp::Open }),
        }
        self.set(z, ZoneState::ExplicitlyOpen);
        Ok(())
    }

    /// Close zone `z`: an open zone becomes closed (empty if nothing was written to it); a
    /// closed zone stays so; an empty or full one fails.
    pub(crate) fn close(&mut self, z: u32) -> Result<(), ZoneError> {
        let e = self.manageable(z)?;
        match e.state {
            ZoneState::Closed => Ok(()),
            s if s.is_open() => {
                self.close_open(z);
                Ok(())
            }
            state => Err(ZoneError::InvalidTransition { zone: z, state, op: ZoneOp::Close }),
        }
    }

    /// Finish zone `z`: it becomes full, its write pointer at its capacity. An empty zone needs
    /// an active resource to pass through (ZNS); a full one stays so. Returns the write
    /// pointer (blocks) it had.
    pub(crate) fn finish(&mut self, z: u32) -> Result<u32, ZoneError> {
        let e = self.manageable(z)?;
        let l = self.layout;
        if e.state == ZoneState::Empty && l.max_active != 0 && self.active >= l.max_active {
            return Err(ZoneError::TooManyActiveZones { zone: z, limit: l.max_active });
        }
        self.set(z, ZoneState::Full);
        self.zones[z as usize].wp = l.capacity_blocks;
        Ok(e.wp)
    }

    /// Reset zone `z`: empty, its write pointer at its start. Returns the state it had.
    pub(crate) fn reset(&mut self, z: u32) -> Result<ZoneState, ZoneError> {
        let e = self.manageable(z)?;
        self.set(z, ZoneState::Empty);
        self.zones[z as usize].wp = 0;
        Ok(e.state)
    }

    /// The device takes zone `z` out of service: `ReadOnly` (still readable) or `Offline`. Its
    /// resources are released; an offline zone stays offline.
    pub(crate) fn fail(&mut self, z: u32, to: ZoneState) -> Result<(), ZoneError> {
        assert!(matches!(to, ZoneState::ReadOnly | ZoneState::Offline));
        self.check_zone(z)?;
        if self.zones[z as usize].state != ZoneState::Offline {
            self.set(z, to);
        }
        Ok(())
    }

    /// Every zone full with its capacity written (a bulk fill of a new device).
    pub(crate) fn fill_all(&mut self) {
        for z in 0..self.layout.zones {
            self.set(z, ZoneState::Full);
            self.zones[z as usize].wp = self.layout.capacity_blocks;
        }
    }

    /// Check the counts and the implicit-open list against the zones' states.
    pub fn check(&self) -> Result<(), String> {
        let (mut open, mut active, mut implicit) = (0, 0, 0);
        for (z, e) in self.zones.iter().enumerate() {
            open += u32::from(e.state.is_open());
            active += u32::from(e.state.is_active());
            implicit += u32::from(e.state == ZoneState::ImplicitlyOpen);
            if e.wp > self.layout.capacity_blocks {
                return Err(format!("zone {z}: write pointer {} past capacity {}", e.wp, self.layout.capacity_blocks));
            }
            if e.state == ZoneState::Empty && e.wp != 0 {
                return Err(format!("zone {z}: empty with write pointer {}", e.wp));
            }
            if e.state == ZoneState::Full && e.wp != self.layout.capacity_blocks {
                return Err(format!("zone {z}: full with write pointer {}", e.wp));
            }
        }
        let l = self.layout;
        if open != self.open || active != self.active || implicit != self.implicit.len() as u32 {
            return Err(format!(
                "zone counts: {open} open, {active} active, {implicit} implicitly open; kept {}, {}, {}",
                self.open,
                self.active,
                self.implicit.len()
            ));
        }
        if (l.max_open != 0 && open > l.max_open) || (l.max_active != 0 && active > l.max_active) {
            return Err(format!(
                "zone limits passed: {open} open (limit {}), {active} active (limit {})",
                l.max_open, l.max_active
            ));
        }
        Ok(())
    }
}
