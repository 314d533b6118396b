//! The zoned FTL (`ftl.mapping = "zoned"`): each zone owns its own erase blocks, `zone_width`
//! dies wide, and its data goes to them in write-pointer order. No mapping table, no device-side
//! garbage collection: a zone's space comes back only when the host resets it, which erases its
//! blocks. The zones' host-visible state machine is [`crate::zone::Zones`].
//!
//! Layout. Dies are grouped `zone_width` at a time; zone `z` lies in group `z % groups`, on
//! blocks `slot * k .. slot * k + k` of each of the group's dies (`slot = z / groups`, `k` =
//! `[zoned] blocks_per_die`). Within a zone, program units (one multi-plane page of one die)
//! are striped over the group's dies: unit `u` of the zone is in page stripe `u / units_per_page`,
//! on die `stripe % width` of the group, at page `stripe / width` of the die's part of the zone.
//! The blocks of each die beyond the zones' (`ftl.spare_factor` of them, at least one) are
//! spare: the last one stages partial pages on FLUSH when the write buffer is volatile.
//!
//! Write buffer: one buffer shared by all zones, `ftl.write_buffer_kib`; a zone's units wait
//! in it until a whole program unit of the zone is there, and free their slots when that
//! program completes. A closed zone keeps its partial page in the buffer (profile validation
//! makes the buffer hold a partial page of every active zone plus one program unit).

use crate::buffer::WriteBuffer;
use crate::counters::{Counters, DeviceState, Wear};
use crate::ftl::{heap_bytes, Location};
use crate::nand::{FastDiv, Geometry, Nand, NandTiming};
use crate::profile::Profile;
use crate::timeline::Ns;
use crate::translation::Translation;
use crate::zone::{ZoneLayout, ZoneState, Zones};
use crate::Error;

#[derive(Debug, Clone)]
pub(crate) struct ZonedFtl {
    geo: Geometry,
    nand: Nand,
    pub(crate) zones: Zones,
    counters: Counters,
    buffer: WriteBuffer,
    volatile: bool,
    /// Dies per zone, die groups, blocks per die per zone.
    width: u32,
    groups: u32,
    blocks_per_die: u32,
    /// Logical units (4 KiB) of address space per zone, and of writable capacity.
    size_units: u32,
    capacity_units: u32,
    div_size: FastDiv,
    /// Per zone: units the host's data has reached (the write pointer as the data arrives),
    /// units programmed to NAND (whole page stripes; a finished zone's last page is padded),
    /// and `written` when its partial page was last staged by a FLUSH.
    written: Vec<u32>,
    programmed: Vec<u32>,
    staged: Vec<u32>,
    /// Per block: erases so far.
    erase_count: Vec<u32>,
    /// Per die: staging pages programmed in its staging block since its last erase.
    staging_pages: Vec<u32>,
    /// Latest NAND program completion so far (FLUSH waits for it).
    last_program: Ns,
    /// Per logical unit, the tag of its data (only when content tracking is on).
    tags: Option<Vec<u64>>,
}

impl ZonedFtl {
    pub(crate) fn new(profile: &Profile) -> ZonedFtl {
        let geo = Geometry::from_profile(profile);
        let z = profile.zoned.as_ref().expect("validated: a zoned profile has [zoned]");
        let width = z.zone_width;
        let groups = geo.dies / width;
        let blocks_per_die = z.blocks_per_die;
        let zones = groups * profile.zone_slots();
        let physical = width * blocks_per_die * geo.units_per_block;
        let capacity_units = profile.zone_capacity_units();
        let size_units = profile.zone_size_units();
        debug_assert!(capacity_units <= physical && capacity_units <= size_units);
        let layout = ZoneLayout {
            zones,
            size_blocks: size_units,
            capacity_blocks: capacity_units,
            max_open: z.max_open_zones,
            max_active: z.max_active_zones,
        };
        ZonedFtl {
            geo,
            nand: Nand::new(geo, NandTiming::from_profile(profile)),
            zones: Zones::new(layout),
            counters: Counters::default(),
            buffer: WriteBuffer::new(profile.ftl.write_buffer_kib / 4),
            volatile: profile.ftl.write_buffer_volatile,
            width,
            groups,
            blocks_per_die,
            size_units,
            capacity_units,
            div_size: FastDiv::new(size_units),
            written: vec![0; zones as usize],
            programmed: vec![0; zones as usize],
            staged: vec![0; zones as usize],
            erase_count: vec![0; geo.blocks() as usize],
            staging_pages: vec![0; geo.dies as usize],
            last_program: 0,
            tags: None,
        }
    }

    /// The die and physical unit of unit `u` of zone `z`.
    #[inline]
    fn place(&self, z: u32, u: u32) -> (u32, u32) {
        let upp = self.geo.units_per_page;
        let stripe = u / upp;
        let die = (z % self.groups) * self.width + stripe % self.width;
        let page_in_die = stripe / self.width;
        let slot = z / self.groups;
        let block = die * self.geo.blocks_per_die + slot * self.blocks_per_die + page_in_die / self.geo.pages_per_block;
        let ppa = block * self.geo.units_per_block + (page_in_die % self.geo.pages_per_block) * upp + u % upp;
        (die, ppa)
    }

    /// Program the page stripe of zone `z` that starts at unit `programmed[z]`, holding `units`
    /// units of data (the rest padding), with its data in the controller at `at`.
    fn program_page(&mut self, z: u32, units: u32, at: Ns) -> Ns {
        let upp = self.geo.units_per_page;
        let (die, _) = self.place(z, self.programmed[z as usize]);
        let done = self.nand.program(die, at);
        self.programmed[z as usize] += upp;
        self.counters.nand_page_programs += 1;
        self.counters.nand_units_programmed += u64::from(upp);
        self.buffer.release_at(done, units);
        self.last_program = self.last_program.max(done);
        done
    }

    /// Units of zone `z` in the write buffer.
    fn buffered(&self, z: u32) -> u32 {
        self.written[z as usize] - self.programmed[z as usize].min(self.written[z as usize])
    }

    /// The NAND side of a zone finish the state machine accepted, at `at`: the zone's partial
    /// page is padded and programmed; returns when done.
    pub(crate) fn finish_nand(&mut self, z: u32, at: Ns) -> Ns {
        let buffered = self.buffered(z);
        if buffered > 0 {
            self.program_page(z, buffered, at)
        } else {
            at
        }
    }

    /// The NAND side of a zone reset the state machine accepted, at `at`: the zone's buffered
    /// units are dropped and every block it programmed is erased (the dies in parallel, a
    /// die's blocks one after another); returns when the erases are done.
    pub(crate) fn reset_nand(&mut self, z: u32, at: Ns) -> Ns {
        let buffered = self.buffered(z);
        self.buffer.release_at(at, buffered);
        let stripes = self.programmed[z as usize] / self.geo.units_per_page;
        let mut done = at;
        for j in 0..self.width.min(stripes) {
            // Page stripes j, j + width, ... went to die j of the group.
            let pages = (stripes - j).div_ceil(self.width);
            let blocks = pages.div_ceil(self.geo.pages_per_block);
            let die = (z % self.groups) * self.width + j;
            let first = die * self.geo.blocks_per_die + (z / self.groups) * self.blocks_per_die;
            let mut t = at;
            for b in first..first + blocks {
                t = self.nand.erase(die, t);
                self.erase_count[b as usize] += 1;
                self.counters.erases += 1;
            }
            done = done.max(t);
        }
        let i = z as usize;
        self.written[i] = 0;
        self.programmed[i] = 0;
        self.staged[i] = 0;
        if let Some(tags) = &mut self.tags {
            let first = (z * self.size_units) as usize;
            tags[first..first + self.size_units as usize].fill(0);
        }
        done
    }

    /// A FLUSH with a volatile buffer: each zone's partial page not staged since its last
    /// unit arrived is programmed to its die's staging block (the controller's power-loss copy;
    /// the zone's own page is programmed once complete). Returns the latest completion.
    fn stage_partial_pages(&mut self, at: Ns) -> Ns {
        let mut done = at;
        for z in 0..self.zones.layout().zones {
            let i = z as usize;
            if self.buffered(z) == 0 || self.staged[i] == self.written[i] {
                continue;
            }
            self.staged[i] = self.written[i];
            let (die, _) = self.place(z, self.programmed[i]);
            let staging_block = die * self.geo.blocks_per_die + self.geo.blocks_per_die - 1;
            let mut t = at;
            if self.staging_pages[die as usize] == self.geo.pages_per_block {
                t = self.nand.erase(die, t);
                self.erase_count[staging_block as usize] += 1;
                self.counters.erases += 1;
                self.staging_pages[die as usize] = 0;
            }
            self.staging_pages[die as usize] += 1;
            let end = self.nand.program(die, t);
            self.counters.nand_page_programs += 1;
            self.counters.nand_units_programmed += u64::from(self.geo.units_per_page);
            done = done.max(end);
        }
        done
    }

    fn zone_and_offset(&self, lpn: u32) -> (u32, u32) {
        let z = self.div_size.quotient(lpn);
        (z, lpn - z * self.size_units)
    }
}

impl Translation for ZonedFtl {
    crate::translation::nand_and_counters!();

    fn logical_units(&self) -> u32 {
        self.zones.layout().zones * self.size_units
    }

    fn locate(&self, lpn: u32) -> Location {
        let (z, u) = self.zone_and_offset(lpn);
        if u >= self.written[z as usize] {
            Location::Unmapped
        } else if u >= self.programmed[z as usize] {
            Location::Buffered
        } else {
            Location::Nand(self.place(z, u).1)
        }
    }

    /// Units arrive in write-pointer order (the zone state machine admitted the request);
    /// a completed page stripe is programmed at once.
    fn write_unit(&mut self, lpn: u32, _stream: u32, at: Ns, tag: u64) -> Ns {
        self.counters.host_units_written += 1;
        let (z, u) = self.zone_and_offset(lpn);
        hot_assert!(
            u == self.written[z as usize],
            "zone {z}: unit {u} written at data cursor {}",
            self.written[z as usize]
        );
        let t = self.buffer.acquire(at);
        self.written[z as usize] = u + 1;
        if let Some(tags) = &mut self.tags {
            tags[lpn as usize] = tag;
        }
        let upp = self.geo.units_per_page;
        let buffered = self.written[z as usize] - self.programmed[z as usize];
        if buffered >= upp {
            self.program_page(z, upp, t);
        } else if self.written[z as usize] == self.capacity_units {
            // The zone is full: its last page, short of a program unit, is padded.
            self.program_page(z, buffered, t);
        }
        t
    }

    /// Refused before it gets here ([`ZoneError::DiscardOnZone`]).
    fn trim_unit(&mut self, _lpn: u32) {}

    fn read_units(&mut self, lpn: u32, n: u32, at: Ns, mut chunk: impl FnMut(Ns, u32)) {
        let upp = self.geo.units_per_page;
        let mut i = 0;
        while i < n {
            let (z, u) = self.zone_and_offset(lpn + i);
            let zone_left = self.size_units - u;
            let (written, programmed) =
                (self.written[z as usize], self.programmed[z as usize].min(self.written[z as usize]));
            let run = if u >= written {
                // Past the data: zeros, up to the zone's end.
                zone_left.min(n - i)
            } else if u >= programmed {
                (written - u).min(n - i)
            } else {
                // The rest of this page, on NAND.
                let k = (upp - u % upp).min(programmed - u).min(n - i);
                let (die, _) = self.place(z, u);
                self.counters.nand_page_reads += 1;
                let ready = self.nand.read(die, at, k);
                chunk(ready, k);
                i += k;
                continue;
            };
            chunk(at, run);
            i += run;
        }
    }

    /// No device-side garbage collection.
    fn command_gc(&mut self, _start: Ns, at: Ns, _units: u32) -> Ns {
        at
    }

    fn flush(&mut self, at: Ns) -> Ns {
        let staged = if self.volatile { self.stage_partial_pages(at) } else { at };
        staged.max(self.last_program)
    }

    /// Nothing to do in idle time: no GC.
    fn background(&mut self, _from: Ns, _until: Ns) {}

    fn state(&self) -> DeviceState {
        let mut used_blocks = 0u64;
        let mut valid = 0u64;
        for z in 0..self.zones.layout().zones {
            let stripes = self.programmed[z as usize] / self.geo.units_per_page;
            let per_die = stripes.div_ceil(self.width);
            used_blocks += u64::from(per_die.div_ceil(self.geo.pages_per_block)) * u64::from(self.width.min(stripes));
            if self.zones.state(z) != ZoneState::Offline {
                valid += u64::from(self.written[z as usize].min(self.programmed[z as usize]));
            }
        }
        DeviceState {
            free_blocks: u64::from(self.geo.blocks()) - used_blocks,
            total_blocks: u64::from(self.geo.blocks()),
            valid_units: valid,
            logical_units: u64::from(self.logical_units()),
            physical_units: self.geo.physical_units(),
            slc_cached_units: 0,
            wear: Wear::of(&self.erase_count),
        }
    }

    fn memory_bytes(&self) -> u64 {
        heap_bytes(&self.written)
            + heap_bytes(&self.programmed)
            + heap_bytes(&self.staged)
            + heap_bytes(&self.erase_count)
            + heap_bytes(&self.staging_pages)
            + self.buffer.memory_bytes()
            + self.tags.as_ref().map_or(0, heap_bytes)
    }

    fn check_invariants(&self) -> Result<(), Error> {
        self.zones.check().map_err(Error::Invariant)?;
        let upp = self.geo.units_per_page;
        for z in 0..self.zones.layout().zones {
            let i = z as usize;
            let (w, p) = (self.written[i], self.programmed[i]);
            let wp = self.zones.wp_blocks(z);
            let state = self.zones.state(z);
            let bad = |what: String| Err(Error::Invariant(format!("zone {z} ({state}): {what}")));
            if w > self.capacity_units || p > w.next_multiple_of(upp) || !p.is_multiple_of(upp) {
                return bad(format!("data cursor {w}, programmed {p} (capacity {})", self.capacity_units));
            }
            let finished = matches!(state, ZoneState::Full | ZoneState::ReadOnly | ZoneState::Offline);
            if !finished && w != wp {
                return bad(format!("data cursor {w} but write pointer {wp}"));
            }
            if !finished && w - p.min(w) >= upp {
                return bad(format!("{} units buffered: a whole page was not programmed", w - p.min(w)));
            }
        }
        Ok(())
    }

    fn map_all_sequential(&mut self) -> Result<(), Error> {
        if self.written.iter().any(|&w| w != 0) || self.counters.host_units_written != 0 {
            return Err(Error::NotNew);
        }
        self.zones.fill_all();
        let cap = self.capacity_units;
        self.written.fill(cap);
        self.programmed.fill(cap.next_multiple_of(self.geo.units_per_page));
        Ok(())
    }

    fn track_content(&mut self) {
        if self.tags.is_none() {
            self.tags = Some(vec![0; self.logical_units() as usize]);
        }
    }

    fn peek(&self, lpn: u32) -> Option<u64> {
        let tags = self.tags.as_ref().expect("content tracking is off");
        match self.locate(lpn) {
            Location::Unmapped => None,
            _ => Some(tags[lpn as usize]),
        }
    }
}
