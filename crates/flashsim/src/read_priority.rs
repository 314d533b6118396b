//! Read-priority die scheduling: a read that reaches a die with programs or erases queued
//! behind the operation in progress goes ahead of them (`read_priority = true` in a profile's
//! `[nand]`; off by default, when a die runs its operations in the order they were booked).
//!
//! A controller keeps a queue of flash transactions per die and picks the next one when the
//! die is free; the host does not wait for the programs of writes it has already been told
//! are done (buffered data, map write-backs staged in SRAM, GC copies), so a controller serves
//! reads first. MQSim's out-of-order transaction scheduler (`TSU_OutOfOrder`, Tavakkol et al.,
//! FAST 2018) does this with a read and a write queue per chip: mapping-table reads first, then
//! the host's reads, then writes and erases; Wu and He (FAST 2012) call it read-priority
//! scheduling, the baseline of program/erase suspension. Unlike suspension it needs nothing
//! from the NAND part: the read still waits for the operation in progress.
//!
//! The model: each die keeps the operations booked on it that have not ended, in time order.
//! A read arriving at `at` starts when the operation in progress ends (and after any reads
//! already placed right behind it); the programs and erases booked after that point move out
//! by the time the read holds the die. As in suspension ([`crate::suspend`]), completion times
//! already handed out for the moved work are not revised (a buffered write does not wait for
//! its program), and the read's transfer out is not booked on the channel, whose lanes take
//! bookings in time order only. One difference from MQSim: all reads share one queue (MQSim
//! also serves garbage collection's writes before the host's reads when it is short of free
//! blocks).

use crate::timeline::Ns;
use std::collections::VecDeque;

/// An operation booked on a die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Op {
    start: Ns,
    end: Ns,
    read: bool,
}

/// Where a read goes on a die with queued work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placed {
    /// When the die starts sensing the read.
    pub(crate) start: Ns,
    /// The first queued operation the read passes, in the die's list.
    index: usize,
}

/// Per-die queues of booked operations. Empty (and every call a no-op) when the controller
/// runs each die's operations in booking order.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadPriority {
    /// Per die, when on: the operations booked that have not ended, in time order.
    ops: Vec<VecDeque<Op>>,
    promoted: u64,
}

impl ReadPriority {
    pub(crate) fn new(on: bool, dies: u32) -> ReadPriority {
        ReadPriority { ops: if on { vec![VecDeque::new(); dies as usize] } else { Vec::new() }, promoted: 0 }
    }

    #[inline]
    pub(crate) fn on(&self) -> bool {
        !self.ops.is_empty()
    }

    /// A program, an erase (`read` false) or a read booked on `die` from `start` to `end`.
    #[inline]
    pub(crate) fn booked(&mut self, die: u32, start: Ns, end: Ns, read: bool) {
        if let Some(q) = self.ops.get_mut(die as usize) {
            q.push_back(Op { start, end, read });
        }
    }

    /// A read arriving at `at` on `die`: where it goes if it passes programs or erases queued
    /// on the die, or `None` when nothing is queued behind the operation in progress (the read
    /// is booked as usual).
    pub(crate) fn place(&mut self, die: u32, at: Ns) -> Option<Placed> {
        let q = self.ops.get_mut(die as usize)?;
        while q.front().is_some_and(|o| o.end <= at) {
            q.pop_front();
        }
        // After the operation in progress, and after the reads already placed behind it.
        let mut start = at;
        let mut index = 0;
        if q.front().is_some_and(|o| o.start <= at) {
            start = q[0].end;
            index = 1;
        }
        while q.get(index).is_some_and(|o| o.read) {
            start = start.max(q[index].end);
            index += 1;
        }
        (index < q.len()).then_some(Placed { start, index })
    }

    /// The read placed by [`ReadPriority::place`] holds `die` until `done`: the operations
    /// queued behind it move out; returns the die's new busy-until time (`busy_until` was the
    /// end of its last booked operation).
    pub(crate) fn promoted(&mut self, die: u32, p: Placed, done: Ns, busy_until: Ns) -> Ns {
        let q = &mut self.ops[die as usize];
        let shift = done.saturating_sub(q[p.index].start);
        for o in q.iter_mut().skip(p.index) {
            o.start += shift;
            o.end += shift;
        }
        q.insert(p.index, Op { start: p.start, end: done, read: true });
        self.promoted += 1;
        busy_until + shift
    }

    /// Forget operations that ended at or before `now`.
    pub(crate) fn prune(&mut self, now: Ns) {
        for q in &mut self.ops {
            while q.front().is_some_and(|o| o.end <= now) {
                q.pop_front();
            }
        }
    }

    /// Reads that went ahead of queued programs or erases so far.
    pub(crate) fn promoted_reads(&self) -> u64 {
        self.promoted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_places_nothing() {
        let mut r = ReadPriority::new(false, 2);
        r.booked(0, 0, 1_000, false);
        assert_eq!(r.place(0, 10), None);
        assert!(!r.on());
    }

    #[test]
    fn a_read_waits_for_the_program_in_progress_only() {
        let mut r = ReadPriority::new(true, 1);
        // Programs 0-800, 800-1600, 1600-2400 us; a read at 100 us.
        r.booked(0, 0, 800, false);
        r.booked(0, 800, 1600, false);
        r.booked(0, 1600, 2400, false);
        let p = r.place(0, 100).unwrap();
        assert_eq!(p.start, 800);
        // It holds the die 800-900: the two queued programs move out by 100.
        assert_eq!(r.promoted(0, p, 900, 2400), 2500);
        // A second read queues behind the first, still ahead of the programs.
        let q = r.place(0, 150).unwrap();
        assert_eq!(q.start, 900);
        assert_eq!(r.promoted(0, q, 1000, 2500), 2600);
        assert_eq!(r.promoted_reads(), 2);
    }

    #[test]
    fn nothing_queued_means_the_usual_booking() {
        let mut r = ReadPriority::new(true, 1);
        r.booked(0, 0, 800, false);
        assert_eq!(r.place(0, 100), None);
        // A read after everything has ended.
        assert_eq!(r.place(0, 900), None);
    }

    #[test]
    fn a_program_not_yet_started_is_passed() {
        let mut r = ReadPriority::new(true, 1);
        // The die is idle until a program that starts at 500 (its data still on the channel).
        r.booked(0, 500, 1300, false);
        let p = r.place(0, 100).unwrap();
        assert_eq!(p.start, 100);
        // It ends before the program starts: nothing moves.
        assert_eq!(r.promoted(0, p, 200, 1300), 1300);
    }
}
