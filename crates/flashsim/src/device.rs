//! A simulated device: the host interface in front of the FTL and NAND. Requests go in with
//! their arrival time on the virtual clock; each comes back with the time it completes.
//!
//! Requests must arrive in time order (the workload engine submits them so). The device does
//! its background work — garbage collection in idle time — when it notices that it has been
//! idle, or when told time has passed with [`Device::idle_until`].

use crate::check::{Schedule, Violation};
use crate::counters::{Counters, DeviceState};
use crate::ftl::{Ftl, Location};
use crate::host::{Dir, HostInterface};
use crate::hybrid::HybridFtl;
use crate::mapping::Mapping;
use crate::nand::us;
use crate::profile::{Profile, MAP_UNIT};
use crate::timeline::Ns;
use crate::translation::Translation;
use crate::zone::{Zone, ZoneError, ZoneState, Zones};
use crate::zoned::ZonedFtl;
use crate::Error;

/// Bytes per sector: requests are aligned to it.
pub const SECTOR: u64 = 512;

/// What a request asks of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Read `len` bytes at `offset`.
    Read,
    /// Write `len` bytes at `offset` (a partial 4 KiB unit is read, modified and written).
    Write,
    /// Unmap (TRIM / discard / UNMAP / deallocate). Only whole 4 KiB units are unmapped.
    Trim,
    /// Drain the volatile write buffer to NAND.
    Flush,
}

/// One request. `offset` and `len` are bytes, multiples of 512; `len` is ignored for a flush.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// What the request does.
    pub op: Op,
    /// First byte, from the start of the device.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// Host write stream (frontier); below the profile's `host_streams`. On an FDP device
    /// (`[fdp]`) it is the write's placement ID, selecting reclaim unit handle `stream`: NVMe
    /// carries both in a write command's directive-specific field (DSPEC), so a placement
    /// travels with its request, never as device state.
    pub stream: u32,
    /// With content tracking on, the tag every written unit carries (a version number).
    pub tag: u64,
}

impl Request {
    /// A request on stream 0 with no content tag.
    pub fn new(op: Op, offset: u64, len: u64) -> Request {
        Request { op, offset, len, stream: 0, tag: 0 }
    }
}

/// When a request's phases happened, on the virtual clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// Submitted by the application.
    pub submitted: Ns,
    /// Accepted into a device queue slot (after the host stack's submit cost and queueing).
    pub device_start: Ns,
    /// The device signalled completion.
    pub device_done: Ns,
    /// The application sees the completion (after the host stack's completion cost).
    pub done: Ns,
    /// Of `done - device_done`, the host CPU's way out of the idle state it slept in while it
    /// waited for this command alone ([`Device::set_idle_exit`]) when the command found no
    /// other command in flight, else 0.
    pub idle_exit: Ns,
}

impl Completion {
    /// What the application waited: from submission to seeing the completion.
    pub fn latency(&self) -> Ns {
        self.done - self.submitted
    }
}

/// A request the device refused (nothing was done), or, for [`RequestError::Invariant`], a
/// request after which the device's periodic invariant check failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The request ends past the device's logical capacity.
    #[error("request at {offset} of {len} bytes ends past the device's {capacity} bytes")]
    OutOfRange {
        /// The request's first byte.
        offset: u64,
        /// The request's length, bytes.
        len: u64,
        /// The device's logical capacity, bytes.
        capacity: u64,
    },
    /// Offset or length is not a multiple of the 512-byte sector.
    #[error("request at {offset} of {len} bytes is not aligned to {SECTOR}-byte sectors")]
    Unaligned {
        /// The request's first byte.
        offset: u64,
        /// The request's length, bytes.
        len: u64,
    },
    /// A read, write or trim of 0 bytes.
    #[error("request of 0 bytes")]
    Empty,
    /// The request names a host write stream (on an FDP device, a placement ID) the profile
    /// does not have.
    #[error("stream (placement ID) {stream} but the device has {streams}")]
    BadStream {
        /// The stream asked for.
        stream: u32,
        /// The profile's `ftl.host_streams`.
        streams: u32,
    },
    /// The request arrived before the previous one: requests must come in time order.
    #[error("request at {now} ns arrived before the previous one ({last} ns)")]
    TimeWentBack {
        /// The request's arrival, ns.
        now: Ns,
        /// The previous request's arrival, ns.
        last: Ns,
    },
    /// A zoned device refused the request or zone command: the error names the zone and
    /// the standard's reason (write not at the write pointer, zone full, too many open
    /// zones, ...).
    #[error("zoned device: {0}")]
    Zone(#[from] ZoneError),
    /// The request ran, but the periodic invariant check after it
    /// ([`Device::set_check_every`]) found the device's state broken: a bug in the simulator.
    /// The run must stop; what broke and when are in the [`Violation`].
    #[error("{0}")]
    Invariant(Box<Violation>),
}

/// A simulated device of one profile: the host interface, the FTL the profile names and its
/// NAND, on a virtual clock that starts at 0 ns.
#[derive(Debug, Clone)]
pub struct Device {
    profile: Profile,
    /// The host interface and the request path's clocks.
    front: Front,
    ftl: Mapping,
    /// The logical capacity, bytes, and the profile's `ftl.host_streams`: fixed for the
    /// device's life, kept here for the checks of every request.
    capacity: u64,
    host_streams: u32,
    /// The units [`Device::prefetch`] was told about two calls ago and at the last call
    /// (`u32::MAX`: none).
    hinted: [u32; 2],
    /// Host commands submitted so far (every read, write, trim and flush).
    commands: u64,
    /// When the next periodic invariant check is due.
    check: Schedule,
    /// Test-only: a fault to inject after host command `.0` ([`Device::arm_fault`]).
    #[cfg(feature = "fault-injection")]
    armed: Option<(u64, crate::fault::Fault)>,
}

/// The device in front of its FTL: the host interface and the clocks of the request path.
/// Apart from the FTL so that a request runs with the FTL's own type ([`Front::submit`] is
/// generic): one branch on the FTL kind per request instead of one per FTL call (eight on a
/// write), and the page-mapped write path compiled without the hybrid FTL's inlined beside it.
#[derive(Debug, Clone)]
struct Front {
    host: HostInterface,
    idle_delay: Ns,
    /// Latest completion of any command so far.
    last_done: Ns,
    /// Start of the current busy period: since then every command started while another was
    /// in progress or right as it ended (it had been waiting), with no idle gap.
    busy_since: Ns,
    /// Background work has been done up to here.
    idle_handled: Ns,
    last_submit: Ns,
    /// The tag of writes that carry none ([`Device::set_write_tag`]).
    write_tag: u64,
    /// Longest time one command held the device since the last [`Device::take_slowest_command`].
    slowest: Ns,
}

impl Device {
    /// A new device (every unit unmapped, every block erased) of `profile`; `seed` drives the
    /// FTL's random choices (the random GC policy), so the same seed gives the same results.
    pub fn new(profile: &Profile, seed: u64) -> Device {
        let ftl = Mapping::new(profile, seed);
        Device {
            profile: profile.clone(),
            front: Front {
                host: HostInterface::new(profile, seed),
                idle_delay: us(profile.ftl.idle_delay_ms * 1000.0),
                last_done: 0,
                busy_since: 0,
                idle_handled: 0,
                last_submit: 0,
                write_tag: 0,
                slowest: 0,
            },
            capacity: u64::from(ftl.logical_units()) * MAP_UNIT,
            host_streams: profile.ftl.host_streams,
            check: Schedule::default_for(ftl.state().physical_units),
            ftl,
            hinted: [u32::MAX; 2],
            commands: 0,
            #[cfg(feature = "fault-injection")]
            armed: crate::fault::take_armed(),
        }
    }

    /// A hint that changes no result: a read or write at byte `offset` is coming, three requests
    /// from now. A random 4 KiB request's first cost is a cache miss on its mapping entry (a
    /// table of tens to hundreds of MiB); this starts fetching it, and the reverse-map entry of
    /// the place on NAND of the request hinted two calls ago (its mapping entry has had two
    /// requests' time to arrive: one was not always enough while GC's own misses fill the
    /// memory queue), so that neither is waited for when the requests come. A caller that
    /// draws its offsets ahead (a workload generator) calls it once per request, three
    /// requests ahead.
    #[inline]
    pub fn prefetch(&mut self, offset: u64) {
        let [older, newer] = self.hinted;
        if older != u32::MAX {
            self.ftl.prefetch_location(older);
        }
        let lpn = if offset < self.capacity { (offset / MAP_UNIT) as u32 } else { u32::MAX };
        self.hinted = [newer, lpn];
        if lpn != u32::MAX {
            self.ftl.prefetch_mapping(lpn);
        }
    }

    /// The profile the device was built from.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Capacity the host sees, bytes.
    pub fn logical_bytes(&self) -> u64 {
        self.capacity
    }

    /// Running totals since the device was created or last reset.
    pub fn counters(&self) -> Counters {
        *self.ftl.counters()
    }

    /// Free blocks, valid units and wear now.
    pub fn state(&self) -> DeviceState {
        self.ftl.state()
    }

    /// The Flexible Data Placement report (`[fdp]` profiles; `None` otherwise): reclaim groups,
    /// the reclaim unit's size, and per reclaim unit handle its isolation, host and media
    /// bytes and the space left in its open reclaim units. Allocates; not for the request path.
    pub fn fdp_stats(&self) -> Option<crate::fdp::FdpStats> {
        match &self.ftl {
            Mapping::Page(f) => f.fdp_stats(),
            Mapping::Hybrid(_) | Mapping::Zoned(_) => None,
        }
    }

    /// Host unit writes the FTL's temperature detector classified (hot, cold), when the
    /// profile has `ftl.temperature = "detect"`.
    pub fn temperature_split(&self) -> Option<(u64, u64)> {
        self.ftl.temperature_split()
    }

    /// Heap bytes the simulator holds for this device's FTL state (mapping tables, per-block
    /// arrays, free lists, victim index); excludes the small fixed-size parts.
    pub fn memory_bytes(&self) -> u64 {
        self.ftl.memory_bytes()
    }

    /// Keep a tag per unit so that [`Device::peek`] can say what a read would return.
    pub fn track_content(&mut self) {
        self.ftl.track_content();
    }

    /// With content tracking on, the tag of the data of writes whose request carries none
    /// (tag 0), such as a filesystem model's: a workload sets it around a write it issues through
    /// the filesystem, so that [`Device::peek`] can tell which write a read returns (0: none).
    pub fn set_write_tag(&mut self, tag: u64) {
        self.front.write_tag = tag;
    }

    /// The tag a read of 4 KiB unit `lpn` returns now; `None` = zeros. Needs content tracking.
    pub fn peek(&self, lpn: u32) -> Option<u64> {
        self.ftl.peek(lpn)
    }

    /// Check that the FTL's mapping, valid counts and free lists agree (the time it takes
    /// grows with the device's size). The error names the unit or block and the values that
    /// disagree.
    pub fn check_invariants(&self) -> Result<(), Error> {
        self.ftl.check_invariants()
    }

    /// [`Device::check_invariants`] now, a failure said with when it was found: after how
    /// many host commands, at the virtual time of the last one.
    pub fn check_now(&self) -> Result<(), Violation> {
        self.ftl.check_invariants().map_err(|e| Violation {
            command: self.commands,
            at: self.front.last_submit,
            what: e.to_string(),
        })
    }

    /// Check the invariants ([`Device::check_invariants`]) after every `every` host commands
    /// from now on; `None` (or 0) turns the periodic check off. A failed check fails the
    /// request after which it ran with [`RequestError::Invariant`]. The default: every
    /// [`crate::check::debug_check_every`] commands in a debug build, off in a release build.
    pub fn set_check_every(&mut self, every: Option<u64>) {
        self.check = Schedule::new(every);
    }

    /// The period of the periodic invariant check, in host commands; `None` when off.
    pub fn check_every(&self) -> Option<u64> {
        self.check.every()
    }

    /// Host commands submitted so far (reads, writes, trims and flushes the device accepted).
    pub fn commands(&self) -> u64 {
        self.commands
    }

    /// The arrival time of the latest request, ns (0 before the first).
    pub fn last_submit(&self) -> Ns {
        self.front.last_submit
    }

    /// The host interface: queue depth and the host stack's costs per request, as the
    /// profile set them (read-only).
    pub fn host(&self) -> &HostInterface {
        &self.front.host
    }

    /// The host CPU's exit from idle, ns, paid by the completion of every command that found
    /// no other in flight (the host had only it to wait for, so it slept): the exit latency of
    /// the idle state the system's CPU governor allows while storage requests are
    /// outstanding. It belongs to the system the device ships in, not to the device: flashlab
    /// sets it from a profile's `[system] idle_exit_us`. 0 (the default): no such cost.
    pub fn set_idle_exit(&mut self, ns: Ns) {
        self.front.host.idle_exit = ns;
    }

    /// Set up the device's history in bulk: every logical unit mapped as one sequential pass
    /// over the new device would leave it (what `dd` of the whole device does), with no
    /// virtual time and no counters. Fails with [`Error::NotNew`], changing nothing, unless the
    /// device is new.
    pub fn map_all_sequential(&mut self) -> Result<(), Error> {
        self.ftl.map_all_sequential()
    }

    /// Zero the counters (a run that should not count its set-up).
    pub fn reset_counters(&mut self) {
        *self.ftl.counters_mut() = Counters::default();
    }

    /// Program and erase operations that reads have suspended so far (0 on a NAND part
    /// without suspension).
    pub fn suspensions(&self) -> u64 {
        self.ftl.suspensions()
    }

    /// Reads that went ahead of programs or erases queued on their die so far (0 unless the
    /// profile has `read_priority`).
    pub fn promoted_reads(&self) -> u64 {
        self.ftl.promoted_reads()
    }

    /// Test-only (feature `fault-injection`): swap two logical units' mapping entries, as a
    /// buggy FTL would, so that a checker of what reads return can show it catches that; false
    /// where the FTL kind has no such hook (hybrid).
    #[cfg(feature = "fault-injection")]
    pub fn fault_swap_mapping(&mut self, a: u32, b: u32) -> bool {
        self.ftl.fault_swap_mapping(a, b)
    }

    /// Test-only (feature `fault-injection`): break the FTL's state now as `fault` says; false
    /// (nothing changed) where it does not apply or the FTL kind has no such hook (hybrid).
    #[cfg(feature = "fault-injection")]
    pub fn inject_fault(&mut self, fault: crate::fault::Fault) -> bool {
        self.ftl.inject(fault)
    }

    /// Test-only (feature `fault-injection`): inject `fault` right after host command number
    /// `command` (counted from 1 since the device was created), mid-run.
    #[cfg(feature = "fault-injection")]
    pub fn arm_fault(&mut self, command: u64, fault: crate::fault::Fault) {
        self.armed = Some((command, fault));
    }

    /// The longest any one command held the device since the last call (or since it was
    /// created), ns: from taking it into a queue slot to signalling its completion, its own
    /// transfer and NAND work, the merge or GC work it carried, and (on a queued interface)
    /// what it waited for behind the other commands in the device. On a one-command interface
    /// (eMMC) this is what the profile's busy-time ceiling (`ftl.busy_ceiling_ms`, the write
    /// timeout) bounds. Resets the figure.
    pub fn take_slowest_command(&mut self) -> Ns {
        std::mem::take(&mut self.front.slowest)
    }

    /// Latest time at which the device has work booked or finished (a command or NAND).
    pub fn busy_until(&self) -> Ns {
        self.front.last_done
    }

    /// Let virtual time pass up to `t` with no host commands: the device does its idle-time
    /// work (background GC) once it has been idle for the profile's `idle_delay_ms`.
    pub fn idle_until(&mut self, t: Ns) {
        self.front.idle_until(&mut self.ftl, t);
    }

    fn validate(&self, now: Ns, r: &Request) -> Result<(), RequestError> {
        if now < self.front.last_submit {
            return Err(RequestError::TimeWentBack { now, last: self.front.last_submit });
        }
        if r.op == Op::Flush {
            return Ok(());
        }
        if r.len == 0 {
            return Err(RequestError::Empty);
        }
        if !r.offset.is_multiple_of(SECTOR) || !r.len.is_multiple_of(SECTOR) {
            return Err(RequestError::Unaligned { offset: r.offset, len: r.len });
        }
        let capacity = self.capacity;
        if r.offset.checked_add(r.len).is_none_or(|end| end > capacity) {
            return Err(RequestError::OutOfRange { offset: r.offset, len: r.len, capacity });
        }
        if r.stream >= self.host_streams {
            return Err(RequestError::BadStream { stream: r.stream, streams: self.host_streams });
        }
        Ok(())
    }

    /// Submit a request arriving at `now`; returns when it completes, on the virtual clock.
    pub fn submit(&mut self, now: Ns, r: &Request) -> Result<Completion, RequestError> {
        self.submit_after(now, now, r)
    }

    /// Submit a request that the host issues at `issued` (at or after `now`), once an earlier
    /// request it depends on has completed: jbd2 sends a transaction's commit block only when
    /// its log blocks are on the device. The caller's clock stays at `now`, so other requests
    /// may still be submitted at `now` after this one (they queue behind it). The device was
    /// idle in between if nothing else was queued, so the request starts a new busy period.
    pub fn submit_after(&mut self, now: Ns, issued: Ns, r: &Request) -> Result<Completion, RequestError> {
        self.validate(now, r)?;
        let issued = issued.max(now);
        let c = match &mut self.ftl {
            Mapping::Page(f) => self.front.submit::<Ftl>(f, now, issued, r),
            Mapping::Hybrid(f) => self.front.submit::<HybridFtl>(f, now, issued, r),
            Mapping::Zoned(f) => {
                match r.op {
                    Op::Write => {
                        f.zones.write(r.offset, r.len, false)?;
                    }
                    Op::Read => f.zones.read(r.offset, r.len)?,
                    Op::Trim => return Err(ZoneError::DiscardOnZone.into()),
                    Op::Flush => {}
                }
                self.front.submit::<ZonedFtl>(f, now, issued, r)
            }
        };
        self.command_done()?;
        Ok(c)
    }

    /// Count a host command the device ran, and run what is due after it (an armed fault,
    /// the periodic invariant check).
    #[inline]
    fn command_done(&mut self) -> Result<(), RequestError> {
        self.commands += 1;
        #[cfg(feature = "fault-injection")]
        if let Some((at, fault)) = self.armed {
            if at == self.commands {
                self.armed = None;
                self.ftl.inject(fault);
            }
        }
        if self.check.tick() {
            self.check_now().map_err(|v| RequestError::Invariant(Box::new(v)))?;
        }
        Ok(())
    }

    /// The zoned FTL, or [`ZoneError::NotZoned`] naming what was asked.
    fn zoned_mut(&mut self, what: &'static str) -> Result<&mut ZonedFtl, ZoneError> {
        match &mut self.ftl {
            Mapping::Zoned(f) => Ok(f),
            _ => Err(ZoneError::NotZoned(what)),
        }
    }

    /// The zones of a zoned device (`ftl.mapping = "zoned"`), `None` for a conventional one:
    /// their states, write pointers and the open and active counts.
    pub fn zones(&self) -> Option<&Zones> {
        match &self.ftl {
            Mapping::Zoned(f) => Some(&f.zones),
            _ => None,
        }
    }

    /// A zoned device (host-managed: writes only at each zone's write pointer).
    pub fn is_zoned(&self) -> bool {
        matches!(self.ftl, Mapping::Zoned(_))
    }

    /// Report zones: every zone's start, size, capacity, write pointer and state (empty for a
    /// conventional device). Answered from the controller's table, with no virtual time.
    pub fn report_zones(&self) -> Vec<Zone> {
        self.zones().map_or_else(Vec::new, |z| (0..z.layout().zones).map(|i| z.zone(i)).collect())
    }

    /// A zone management command arriving at `now`: `state` applies it to the zone state
    /// machine (nothing is done, and no time passes, when it fails), then the command goes
    /// through the host interface and `nand` does its NAND work from the time the controller
    /// takes it, returning when that is done.
    fn zone_command(
        &mut self,
        now: Ns,
        what: &'static str,
        state: impl FnOnce(&mut Zones) -> Result<(), ZoneError>,
        nand: impl FnOnce(&mut ZonedFtl, Ns) -> Ns,
    ) -> Result<Completion, RequestError> {
        if now < self.front.last_submit {
            return Err(RequestError::TimeWentBack { now, last: self.front.last_submit });
        }
        let f = match &mut self.ftl {
            Mapping::Zoned(f) => f,
            _ => return Err(ZoneError::NotZoned(what).into()),
        };
        state(&mut f.zones)?;
        let c = self.front.manage(f, now, nand);
        self.command_done()?;
        Ok(c)
    }

    /// Open zone `zone` explicitly (ZNS Zone Management Send: Open; `BLKOPENZONE`).
    pub fn zone_open(&mut self, now: Ns, zone: u32) -> Result<Completion, RequestError> {
        self.zone_command(now, "open", |z| z.open(zone), |_, cmd| cmd)
    }

    /// Close zone `zone` (`BLKCLOSEZONE`): its partial page stays in the write buffer.
    pub fn zone_close(&mut self, now: Ns, zone: u32) -> Result<Completion, RequestError> {
        self.zone_command(now, "close", |z| z.close(zone), |_, cmd| cmd)
    }

    /// Finish zone `zone` (`BLKFINISHZONE`): full at once; its partial page is padded and
    /// programmed.
    pub fn zone_finish(&mut self, now: Ns, zone: u32) -> Result<Completion, RequestError> {
        self.zone_command(now, "finish", |z| z.finish(zone).map(drop), |f, cmd| f.finish_nand(zone, cmd))
    }

    /// Reset zone `zone`'s write pointer (`BLKRESETZONE`): empty again; the blocks it
    /// programmed are erased (erase time and wear counted) before the command completes.
    pub fn zone_reset(&mut self, now: Ns, zone: u32) -> Result<Completion, RequestError> {
        self.zone_command(now, "reset", |z| z.reset(zone).map(drop), |f, cmd| f.reset_nand(zone, cmd))
    }

    /// Zone append of `len` bytes to the zone that starts at byte `zone_start` (ZNS Zone
    /// Append, Linux `REQ_OP_ZONE_APPEND`): the data goes to the zone's write pointer, and the
    /// byte offset it was written at comes back with the completion.
    pub fn zone_append(&mut self, now: Ns, zone_start: u64, len: u64) -> Result<(Completion, u64), RequestError> {
        let probe = Request::new(Op::Write, zone_start, len);
        self.validate(now, &probe)?;
        let Mapping::Zoned(f) = &mut self.ftl else { return Err(ZoneError::NotZoned("append to").into()) };
        let (z, first) = f.zones.write(zone_start, len, true)?;
        let offset = f.zones.zone(z).start + u64::from(first) * crate::zone::ZONE_BLOCK;
        let r = Request::new(Op::Write, offset, len);
        let c = self.front.submit::<ZonedFtl>(f, now, now, &r);
        self.command_done()?;
        Ok((c, offset))
    }

    /// The device takes zone `zone` out of service (wear-out, a failed block): `ReadOnly`
    /// (still readable) or `Offline` (neither read nor written). Not a host command: the
    /// zone's partial page is padded and programmed, as a finish would, booked at the latest
    /// request's arrival. Any other state is refused with [`ZoneError::InvalidTransition`].
    pub fn zone_set_condition(&mut self, zone: u32, state: ZoneState) -> Result<(), RequestError> {
        let at = self.front.last_submit;
        let f = self.zoned_mut("take out of service")?;
        if !matches!(state, ZoneState::ReadOnly | ZoneState::Offline) {
            return Err(ZoneError::InvalidTransition { zone, state, op: crate::zone::ZoneOp::Fail }.into());
        }
        f.zones.fail(zone, state)?;
        f.finish_nand(zone, at);
        Ok(())
    }
}

impl Front {
    /// [`Device::idle_until`] with `ftl`.
    fn idle_until<F: Translation>(&mut self, ftl: &mut F, t: Ns) {
        // `last_done` is the latest completion of any command, so past it nothing is in flight.
        let from = (self.last_done + self.idle_delay).max(self.idle_handled);
        if t > from {
            ftl.background(from, t);
            self.idle_handled = t;
        }
    }

    /// [`Device::submit_after`] of a valid request to `ftl`, submitted at `now` and issued by
    /// the host at `issued`.
    fn submit<F: Translation>(&mut self, ftl: &mut F, now: Ns, issued: Ns, r: &Request) -> Completion {
        if matches!(r.op, Op::Read | Op::Write) {
            ftl.prefetch_mapping((r.offset / MAP_UNIT) as u32);
        }
        self.last_submit = now;
        let arrive = issued + self.host.draw_submit();
        // Nothing in flight when it arrives: the host has only this command to wait for.
        let alone = arrive >= self.last_done;
        let start = self.host.admit(arrive);
        if start > self.last_done {
            self.busy_since = start;
        }
        ftl.note_busy_since(self.busy_since);
        self.idle_until(ftl, start);
        // Requests submitted later may still arrive at `now` (not at `issued`): forget only
        // bookings that ended before that.
        let horizon = if issued == now && self.host.min_submit() == self.host.host_submit {
            start
        } else {
            start.min(now + self.host.min_submit())
        };
        ftl.nand().prune(horizon);
        self.host.prune(horizon);
        let cmd = self.host.command(start);
        let c = ftl.counters_mut();
        let device_done = match r.op {
            Op::Read => {
                c.host_reads += 1;
                c.host_read_bytes += r.len;
                self.read(ftl, cmd, r)
            }
            Op::Write => {
                c.host_writes += 1;
                c.host_write_bytes += r.len;
                let data = self.write(ftl, cmd, r);
                let units = ((r.offset + r.len).div_ceil(MAP_UNIT) - r.offset / MAP_UNIT) as u32;
                ftl.command_gc(start, data, units)
            }
            Op::Trim => {
                c.host_trims += 1;
                c.host_trim_bytes += r.len;
                let first = r.offset.div_ceil(MAP_UNIT);
                let end = (r.offset + r.len) / MAP_UNIT;
                for lpn in first..end.max(first) {
                    ftl.trim_unit(lpn as u32);
                }
                cmd + self.host.trim_cost(end.saturating_sub(first))
            }
            Op::Flush => {
                c.host_flushes += 1;
                ftl.flush(cmd)
            }
        };
        hot_assert!(
            start >= now && device_done >= start,
            "a command submitted at {now} ns started at {start} ns and completed at {device_done} ns: time went back"
        );
        self.host.retire_at(device_done);
        self.last_done = self.last_done.max(device_done);
        self.slowest = self.slowest.max(device_done - start);
        let idle_exit = self.host.idle_exit(alone);
        Completion {
            submitted: issued,
            device_start: start,
            device_done,
            done: device_done + self.host.draw_complete() + idle_exit,
            idle_exit,
        }
    }

    /// A zone management command to `ftl`, submitted at `now`: through the host interface
    /// like a request, its device work done by `nand` from the time the controller takes it.
    fn manage(&mut self, ftl: &mut ZonedFtl, now: Ns, nand: impl FnOnce(&mut ZonedFtl, Ns) -> Ns) -> Completion {
        self.last_submit = now;
        let arrive = now + self.host.draw_submit();
        let alone = arrive >= self.last_done;
        let start = self.host.admit(arrive);
        if start > self.last_done {
            self.busy_since = start;
        }
        self.idle_until(ftl, start);
        let horizon = start.min(now + self.host.min_submit());
        ftl.nand().prune(horizon);
        self.host.prune(horizon);
        let cmd = self.host.command(start);
        let device_done = nand(ftl, cmd);
        self.host.retire_at(device_done);
        self.last_done = self.last_done.max(device_done);
        self.slowest = self.slowest.max(device_done - start);
        let idle_exit = self.host.idle_exit(alone);
        Completion {
            submitted: now,
            device_start: start,
            device_done,
            done: device_done + self.host.draw_complete() + idle_exit,
            idle_exit,
        }
    }

    fn read<F: Translation>(&mut self, ftl: &mut F, cmd: Ns, r: &Request) -> Ns {
        let first = r.offset / MAP_UNIT;
        let units = ((r.offset + r.len).div_ceil(MAP_UNIT) - first) as u32;
        let host = &mut self.host;
        let mut left = r.len;
        let mut done = cmd;
        ftl.read_units(first as u32, units, cmd, |ready, k| {
            let bytes = (u64::from(k) * MAP_UNIT).min(left);
            left -= bytes;
            done = done.max(host.transfer(Dir::ToHost, ready, bytes).1);
        });
        done
    }

    fn write<F: Translation>(&mut self, ftl: &mut F, cmd: Ns, r: &Request) -> Ns {
        let first = r.offset / MAP_UNIT;
        let end = r.offset + r.len;
        let units = end.div_ceil(MAP_UNIT) - first;
        let (xfer_start, xfer_end) = self.host.transfer(Dir::ToDevice, cmd, r.len);
        let unit_xfer = self.host.unit_bus_xfer;
        let tag = if r.tag != 0 { r.tag } else { self.write_tag };
        let mut done = xfer_end;
        for i in 0..units {
            let lpn = (first + i) as u32;
            let mut arrive = (xfer_start + (i + 1) * unit_xfer).min(xfer_end);
            let unit_start = (first + i) * MAP_UNIT;
            let partial = unit_start < r.offset || unit_start + MAP_UNIT > end;
            if partial && matches!(ftl.locate(lpn), Location::Nand(_)) {
                // Read-modify-write of a unit the request covers only in part.
                ftl.read_units(lpn, 1, cmd, |ready, _| arrive = arrive.max(ready));
            }
            done = done.max(ftl.write_unit(lpn, r.stream, arrive, tag));
        }
        done
    }
}
