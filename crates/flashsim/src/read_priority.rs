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
//! A read arriving at `at` starts when the operation in progress at `at` ends (and after any
//! reads already placed right behind it); the programs and erases booked after that point move
//! out by the time the read holds the die, each only as far as the one before it pushes it (a
//! gap in the queue absorbs the shift). Requests are simulated in arrival order, but their
//! reads reach the dies out of order (a GC read, a read at queue depth 32), so operations that
//! ended before one read's `at` stay on the list for a later read with an earlier `at`; only
//! [`ReadPriority::prune`], with the simulation's clock, forgets them. As in suspension
//! ([`crate::suspend`]), completion times already handed out for the moved work are not
//! revised (a buffered write does not wait for its program). The read's transfer out takes
//! its channel's first free gap after sensing, even one before transfers already booked for
//! the die (`Nand::transfer_out`, `Channel::book_in_gap`). One difference from MQSim: all
//! reads share one queue (MQSim also serves garbage collection's writes before the host's
//! reads when it is short of free blocks).

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
        let q = self.ops.get(die as usize)?;
        // Operations are disjoint and in time order, so their ends are sorted: skip those that
        // ended by `at` without removing them (a later read may arrive earlier).
        let mut index = q.partition_point(|o| o.end <= at);
        // After the operation in progress, and after the reads already placed behind it.
        let mut start = at;
        if q.get(index).is_some_and(|o| o.start <= at) {
            start = q[index].end;
            index += 1;
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
        // Each queued operation starts no earlier than the one before it ends.
        let mut prev_end = done;
        for o in q.iter_mut().skip(p.index) {
            if o.start >= prev_end {
                break;
            }
            let shift = prev_end - o.start;
            o.start += shift;
            o.end += shift;
            prev_end = o.end;
        }
        q.insert(p.index, Op { start: p.start, end: done, read: true });
        debug_assert!(
            q.iter().zip(q.iter().skip(1)).all(|(a, b)| a.end <= b.start),
            "a die runs one operation at a time"
        );
        self.promoted += 1;
        busy_until.max(q.back().map_or(0, |o| o.end))
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
    fn a_read_arriving_earlier_than_the_last_one_still_waits_for_its_operation_in_progress() {
        let mut r = ReadPriority::new(true, 1);
        r.booked(0, 0, 800, false);
        r.booked(0, 800, 1600, false);
        r.booked(0, 1600, 2400, false);
        // A read at 1000 goes after the second program, ahead of the third.
        let a = r.place(0, 1000).unwrap();
        assert_eq!(a.start, 1600);
        assert_eq!(r.promoted(0, a, 1700, 2400), 2500);
        // A read simulated next but arriving at 100 (a GC read) meets the first program in
        // progress, which ended before the last read's arrival: it still waits for it.
        let b = r.place(0, 100).unwrap();
        assert_eq!(b.start, 800);
        assert_eq!(r.promoted(0, b, 900, 2500), 2600);
    }

    #[test]
    fn a_gap_in_the_queue_absorbs_the_shift() {
        let mut r = ReadPriority::new(true, 1);
        // A program 0-800, then the die idle until an erase at 2000-5000.
        r.booked(0, 0, 800, false);
        r.booked(0, 900, 1700, false);
        r.booked(0, 2000, 5000, false);
        let p = r.place(0, 100).unwrap();
        assert_eq!(p.start, 800);
        // The read holds the die 800-1000: the program moves to 1000-1800, the erase stays.
        assert_eq!(r.promoted(0, p, 1000, 5000), 5000);
        let q = r.place(0, 1900).unwrap();
        assert_eq!(q.start, 1900, "the die is idle at 1900, between the moved program and the erase");
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
