//! NAND array: geometry, address arithmetic and operation timing (read, program, erase) on dies
//! and channels.
//!
//! Every die is a [`BusyUntil`] (one operation at a time, in order); every channel is a
//! [`Channel`] (a timeline with a lane per die) on which page-register transfers are booked. A read occupies the die for tR
//! and then the channel for the transfer out; a program occupies the channel for the transfer
//! in and then the die for tPROG; an erase occupies the die for tBERS. Planes work in
//! multi-plane mode, so one "page" here is a page on every plane of the die at once.

use crate::profile::Profile;
use crate::read_priority::{Placed, ReadPriority};
use crate::suspend::{Preempt, SuspendTimes, Suspender};
use crate::timeline::{BusyUntil, Channel, Ns};

/// Derived geometry and address arithmetic. Blocks are numbered die-major
/// (`block = die * blocks_per_die + i`), physical units block-major
/// (`ppa = block * units_per_block + page * units_per_page + slot`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub(crate) channels: u32,
    pub(crate) dies: u32,
    pub(crate) blocks_per_die: u32,
    pub(crate) pages_per_block: u32,
    pub(crate) units_per_page: u32,
    pub(crate) units_per_block: u32,
    div_units_per_block: FastDiv,
    div_blocks_per_die: FastDiv,
    div_channels: FastDiv,
    div_dies: FastDiv,
}

/// Division of a `u32` by a divisor fixed at construction, with one multiplication instead of a
/// `div` instruction (tens of cycles; address arithmetic does one per unit written or copied).
/// Exact for every `u32` numerator: with M = ceil(2^64 / d), n / d = (M * n) >> 64 (Lemire,
/// Kaser and Kurz, "Faster remainder by direct computation", 2019, for 32-bit n and 64-bit M).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FastDiv {
    d: u32,
    /// ceil(2^64 / d); unused for d = 1 (2^64 does not fit).
    m: u64,
}

impl FastDiv {
    pub(crate) fn new(d: u32) -> FastDiv {
        assert!(d > 0, "division by zero");
        FastDiv { d, m: if d == 1 { 0 } else { u64::MAX / u64::from(d) + 1 } }
    }
    #[inline]
    pub(crate) fn quotient(self, n: u32) -> u32 {
        if self.d == 1 {
            n
        } else {
            ((u128::from(self.m) * u128::from(n)) >> 64) as u32
        }
    }
    #[inline]
    pub(crate) fn remainder(self, n: u32) -> u32 {
        n - self.quotient(n) * self.d
    }
}

impl Geometry {
    pub(crate) fn from_profile(p: &Profile) -> Geometry {
        let n = &p.nand;
        let upp = p.units_per_page();
        Geometry {
            channels: n.channels,
            dies: n.channels * n.dies_per_channel,
            blocks_per_die: n.blocks_per_plane,
            pages_per_block: n.pages_per_block,
            units_per_page: upp,
            units_per_block: upp * n.pages_per_block,
            div_units_per_block: FastDiv::new(upp * n.pages_per_block),
            div_blocks_per_die: FastDiv::new(n.blocks_per_plane),
            div_channels: FastDiv::new(n.channels),
            div_dies: FastDiv::new(n.channels * n.dies_per_channel),
        }
    }
    #[inline]
    pub(crate) fn blocks(&self) -> u32 {
        self.dies * self.blocks_per_die
    }
    #[inline]
    pub(crate) fn physical_units(&self) -> u64 {
        u64::from(self.blocks()) * u64::from(self.units_per_block)
    }
    #[inline]
    pub(crate) fn die_of_block(&self, block: u32) -> u32 {
        self.div_blocks_per_die.quotient(block)
    }
    /// `n % dies`: the die of the `n`-th of things spread over the dies round robin (the map
    /// cache's translation pages), without a `div` (two per DFTL write otherwise).
    #[inline]
    pub(crate) fn die_round_robin(&self, n: u32) -> u32 {
        self.div_dies.remainder(n)
    }
    /// Dies are numbered so that consecutive dies sit on different channels.
    #[inline]
    pub(crate) fn channel_of_die(&self, die: u32) -> u32 {
        self.div_channels.remainder(die)
    }
    /// A die's place among the dies of its channel.
    #[inline]
    pub(crate) fn lane_of_die(&self, die: u32) -> u32 {
        self.div_channels.quotient(die)
    }
    #[inline]
    pub(crate) fn block_of(&self, ppa: u32) -> u32 {
        self.div_units_per_block.quotient(ppa)
    }
}

/// Timings in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NandTiming {
    pub(crate) t_read: Ns,
    pub(crate) t_prog: Ns,
    pub(crate) t_erase: Ns,
    /// Channel time to move one 4 KiB unit.
    pub(crate) unit_xfer: Ns,
    /// Program/erase suspension for reads, where the part has it ([`crate::suspend`]).
    pub(crate) suspend: Option<SuspendTimes>,
    /// Reads go ahead of queued programs and erases ([`crate::read_priority`]).
    pub(crate) read_priority: bool,
    /// Program time by page type (`nand.t_prog_page_us`); `page_types` = 0 when the part has
    /// one program time for every page.
    pub(crate) t_prog_page: [Ns; 4],
    pub(crate) page_types: u32,
}

impl NandTiming {
    pub(crate) fn from_profile(p: &Profile) -> NandTiming {
        let n = &p.nand;
        NandTiming {
            t_read: us(n.t_read_us),
            t_prog: us(n.t_prog_us),
            t_erase: us(n.t_erase_us),
            unit_xfer: xfer_ns(crate::profile::MAP_UNIT, n.channel_mb_s),
            suspend: n.suspend.as_ref().map(|s| SuspendTimes { suspend: us(s.suspend_us), resume: us(s.resume_us) }),
            read_priority: n.read_priority,
            t_prog_page: {
                let mut t = [0; 4];
                for (slot, &v) in t.iter_mut().zip(n.t_prog_page_us.iter().flatten()) {
                    *slot = us(v);
                }
                t
            },
            page_types: n.t_prog_page_us.as_ref().map_or(0, |v| v.len() as u32),
        }
    }

    /// The program time of page `page` of a block: its page type's (`page % types`) when the
    /// part has page types, else `t_prog`.
    #[inline(always)]
    pub(crate) fn t_prog_of_page(&self, page: u32) -> Ns {
        match self.page_types {
            0 => self.t_prog,
            2 => self.t_prog_page[(page & 1) as usize],
            n => self.t_prog_page[(page % n) as usize],
        }
    }
}

/// Microseconds (float, from a profile) to nanoseconds.
pub(crate) fn us(v: f64) -> Ns {
    (v * 1000.0).round() as Ns
}

/// Time to move `bytes` at `mb_s` x 10^6 bytes/s.
pub fn xfer_ns(bytes: u64, mb_s: f64) -> Ns {
    (bytes as f64 * 1000.0 / mb_s).round() as Ns
}

/// Dies and channels with their bookings.
#[derive(Debug, Clone)]
pub(crate) struct Nand {
    pub(crate) geo: Geometry,
    pub(crate) timing: NandTiming,
    dies: Vec<BusyUntil>,
    channels: Vec<Channel>,
    prune_calls: u32,
    suspend: Suspender,
    priority: ReadPriority,
}

impl Nand {
    pub(crate) fn new(geo: Geometry, timing: NandTiming) -> Nand {
        Nand {
            geo,
            timing,
            dies: vec![BusyUntil::default(); geo.dies as usize],
            channels: vec![Channel::new(geo.dies / geo.channels); geo.channels as usize],
            prune_calls: 0,
            suspend: Suspender::new(timing.suspend, geo.dies),
            // Suspension already serves reads first; the queues are only kept without it.
            priority: ReadPriority::new(timing.read_priority && timing.suspend.is_none(), geo.dies),
        }
    }

    /// Forget channel bookings that ended before `now`. Only every 64th call does the work:
    /// bookings that ended before `now` can never delay a later one, so keeping them a while
    /// longer changes no result, only memory.
    #[inline]
    pub(crate) fn prune(&mut self, now: Ns) {
        self.prune_calls = self.prune_calls.wrapping_add(1);
        if self.prune_calls.is_multiple_of(64) {
            for c in &mut self.channels {
                c.prune(now);
            }
            self.priority.prune(now);
        }
    }

    /// The channel of `die` and its lane on that channel.
    #[inline]
    fn channel_lane(&self, die: u32) -> (usize, usize) {
        (self.geo.channel_of_die(die) as usize, self.geo.lane_of_die(die) as usize)
    }

    /// When the die is next free.
    #[inline]
    pub(crate) fn die_free_at(&self, die: u32) -> Ns {
        self.dies[die as usize].0
    }

    /// Read a page on `die` and move `units` of it to the controller; returns when the data is
    /// in the controller.
    #[inline(always)]
    pub(crate) fn read(&mut self, die: u32, at: Ns, units: u32) -> Ns {
        if let Some(p) = self.suspend.preempt(die, at, self.dies[die as usize].0) {
            return self.read_suspending(die, p, units);
        }
        if self.priority.on() {
            if let Some(p) = self.priority.place(die, at) {
                return self.read_ahead(die, p, units);
            }
        }
        let (start, sensed) = self.dies[die as usize].run(at, self.timing.t_read);
        let (ch, lane) = self.channel_lane(die);
        let done = self.channels[ch].book(lane, sensed, u64::from(units) * self.timing.unit_xfer);
        // The page register holds the data until it has been moved out.
        self.dies[die as usize].0 = done;
        self.suspend.read_done(die, done);
        self.priority.booked(die, start, done, true);
        done
    }

    /// [`Nand::read`] on a die whose queued programs and erases the read passes: sensed from
    /// `p.start`, and the queued work moved out by the time the read holds the die.
    #[cold]
    fn read_ahead(&mut self, die: u32, p: Placed, units: u32) -> Ns {
        let done = self.transfer_out(die, p.start, units);
        let busy = self.dies[die as usize].0;
        self.dies[die as usize].0 = self.priority.promoted(die, p, done, busy);
        done
    }

    /// A read that goes ahead of work already booked on its die, sensed from `start`: its
    /// transfer out takes the channel's first free gap after sensing, which may lie before
    /// transfers already booked for the die (the data loads of the programs it passed or
    /// suspended). Returns when the data is in the controller.
    fn transfer_out(&mut self, die: u32, start: Ns, units: u32) -> Ns {
        let sensed = start + self.timing.t_read;
        let (ch, lane) = self.channel_lane(die);
        self.channels[ch].book_in_gap(lane, sensed, u64::from(units) * self.timing.unit_xfer)
    }

    /// Reads that went ahead of queued programs or erases so far (0 unless the profile has
    /// `read_priority`).
    pub(crate) fn promoted_reads(&self) -> u64 {
        self.priority.promoted_reads()
    }

    /// [`Nand::read`] on a die whose program/erase work the read suspends: sensed from
    /// `p.start`, and the suspended work moved out by the time the read holds the die.
    #[cold]
    fn read_suspending(&mut self, die: u32, p: Preempt, units: u32) -> Ns {
        let done = self.transfer_out(die, p.start, units);
        let busy = self.dies[die as usize].0;
        self.dies[die as usize].0 = self.suspend.resume(die, p, done, busy);
        done
    }

    /// Program/erase operations suspended for reads so far (0 on a part without suspension).
    pub(crate) fn suspensions(&self) -> u64 {
        self.suspend.suspensions()
    }

    /// Move a full page into `die` and program it; returns when the program completes.
    #[inline]
    pub(crate) fn program(&mut self, die: u32, at: Ns) -> Ns {
        self.program_for(die, at, self.timing.t_prog)
    }

    /// [`Nand::program`] with a program time of `t_prog` (an SLC-mode program of TLC NAND).
    #[inline(always)]
    pub(crate) fn program_for(&mut self, die: u32, at: Ns, t_prog: Ns) -> Ns {
        let ready = at.max(self.die_free_at(die));
        let (ch, lane) = self.channel_lane(die);
        let loaded = self.channels[ch].book(lane, ready, u64::from(self.geo.units_per_page) * self.timing.unit_xfer);
        let (start, end) = self.dies[die as usize].run(loaded, t_prog);
        self.priority.booked(die, start, end, false);
        end
    }

    /// Erase a block on `die`; returns when it completes.
    #[inline]
    pub(crate) fn erase(&mut self, die: u32, at: Ns) -> Ns {
        let (start, end) = self.dies[die as usize].run(at, self.timing.t_erase);
        self.priority.booked(die, start, end, false);
        end
    }
}

#[cfg(test)]
mod tests {
    use super::FastDiv;

    #[test]
    fn fast_div_is_exact() {
        let mut divisors: Vec<u32> = (1..=2100).collect();
        divisors.extend([4095, 4096, 4097, 65535, 65536, 65537, 1 << 31, (1 << 31) + 1, u32::MAX - 1, u32::MAX]);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for &d in &divisors {
            let f = FastDiv::new(d);
            let check = |n: u32| {
                assert_eq!(f.quotient(n), n / d, "{n} / {d}");
                assert_eq!(f.remainder(n), n % d, "{n} % {d}");
            };
            for n in [
                0,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                u32::MAX,
                u32::MAX - 1,
                u32::MAX / d * d,
                (u32::MAX / d * d).wrapping_sub(1),
            ] {
                check(n);
            }
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                check(x as u32);
                check((x >> 40) as u32);
            }
        }
    }
}
