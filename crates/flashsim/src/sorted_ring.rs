//! A short queue of timed entries kept in time order and taken from the earliest: the host
//! interface's commands in flight ([`crate::HostInterface`]), the write buffer's programs in
//! flight, and the lab engine's events.
//!
//! Both push one entry per entry taken, and the new one nearly always belongs at or near the
//! back (a command completes after those queued before it) or at the front. A fixed ring of a
//! power-of-two size, indexed by a mask, appends at either end in a few instructions and moves
//! a new entry forward by swaps; `VecDeque` or a binary heap spend about a hundred per entry on
//! these queues (callgrind, `wsat` on mqsim-match). It holds a bounded number of entries: a
//! caller with more in flight keeps them elsewhere (a heap), where a sorted insert would move
//! hundreds: [`TimeQueue`] does that for the host interface's queue.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A ring of at most [`SortedRing::capacity`] entries `(time, value)`, in time order; entries of
/// the same time stay in the order they were inserted.
#[derive(Debug, Clone)]
pub struct SortedRing<T> {
    buf: Vec<(u64, T)>,
    head: usize,
    len: usize,
    mask: usize,
}

impl<T: Copy> SortedRing<T> {
    /// An empty ring for `capacity` entries (rounded up to a power of two); `fill` only fills
    /// the slots not in use.
    pub fn new(capacity: usize, fill: T) -> SortedRing<T> {
        let size = capacity.max(1).next_power_of_two();
        SortedRing { buf: vec![(0, fill); size], head: 0, len: 0, mask: size - 1 }
    }

    /// Entries held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// No entry is held.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most entries the ring holds.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The ring holds [`SortedRing::capacity`] entries: an insert would panic.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.len == self.buf.len()
    }

    /// The earliest entry, not taken.
    #[inline(always)]
    pub fn first(&self) -> Option<(u64, T)> {
        (self.len > 0).then(|| self.buf[self.head])
    }

    /// Take the earliest entry.
    #[inline(always)]
    pub fn pop_first(&mut self) -> Option<(u64, T)> {
        if self.len == 0 {
            return None;
        }
        let e = self.buf[self.head];
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(e)
    }

    /// Take every entry of time `t` or earlier, giving `f` the value of each, earliest first.
    #[inline(always)]
    pub fn pop_until(&mut self, t: u64, mut f: impl FnMut(T)) {
        while self.len > 0 && self.buf[self.head].0 <= t {
            f(self.buf[self.head].1);
            self.head = (self.head + 1) & self.mask;
            self.len -= 1;
        }
    }

    /// Add an entry at time `t`, after every entry of the same time. Panics when full.
    #[inline(always)]
    pub fn insert(&mut self, t: u64, value: T) {
        assert!(self.len < self.buf.len(), "sorted ring full ({} entries)", self.buf.len());
        let m = self.mask;
        if self.len > 0 && t < self.buf[self.head].0 {
            // Before every entry: the slot ahead of the first.
            self.head = (self.head + m) & m;
            self.buf[self.head] = (t, value);
            self.len += 1;
            return;
        }
        // At the back, then forward past every later entry.
        let mut i = (self.head + self.len) & m;
        self.len += 1;
        loop {
            let prev = (i + m) & m;
            if i == self.head || self.buf[prev].0 <= t {
                break;
            }
            self.buf[i] = self.buf[prev];
            i = prev;
        }
        self.buf[i] = (t, value);
    }

    /// Give the earliest entry the value `value` (its time stays). Panics when empty.
    #[inline(always)]
    pub fn set_first_value(&mut self, value: T) {
        assert!(self.len > 0, "sorted ring empty");
        self.buf[self.head].1 = value;
    }

    /// Take every entry, earliest first.
    pub fn drain(&mut self) -> impl Iterator<Item = (u64, T)> + '_ {
        std::iter::from_fn(move || self.pop_first())
    }
}

/// A multiset of timed entries taken from the earliest: a [`SortedRing`] while it has never
/// held more than the ring's capacity, a binary heap from the first time it does (a deep queue
/// whose entries arrive out of order, where a sorted insert would move hundreds; it stays a
/// heap, so that a queue that keeps going deep does not move its entries back and forth).
/// Entries of the same time come out in no set order (the callers' results do not depend on
/// it: they take every entry up to a time, or the earliest time).
#[derive(Debug, Clone)]
pub(crate) struct TimeQueue<T> {
    ring: SortedRing<T>,
    heap: BinaryHeap<Reverse<(u64, T)>>,
    /// The entries are in the heap (the ring is empty for good).
    deep: bool,
}

impl<T: Copy + Ord + Default> TimeQueue<T> {
    /// An empty queue whose ring holds `ring` entries.
    pub(crate) fn new(ring: usize) -> TimeQueue<T> {
        TimeQueue { ring: SortedRing::new(ring, T::default()), heap: BinaryHeap::new(), deep: false }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        if self.deep {
            self.heap.len()
        } else {
            self.ring.len()
        }
    }

    /// The earliest entry, not taken (for tests).
    #[cfg(test)]
    fn first(&self) -> Option<(u64, T)> {
        if self.deep {
            self.heap.peek().map(|&Reverse(e)| e)
        } else {
            self.ring.first()
        }
    }

    /// Take the earliest entry.
    #[inline(always)]
    pub(crate) fn pop_first(&mut self) -> Option<(u64, T)> {
        if self.deep {
            self.heap.pop().map(|Reverse(e)| e)
        } else {
            self.ring.pop_first()
        }
    }

    /// Take every entry of time `t` or earlier, giving `f` the value of each.
    #[inline(always)]
    pub(crate) fn pop_until(&mut self, t: u64, mut f: impl FnMut(T)) {
        if self.deep {
            while self.heap.peek().is_some_and(|&Reverse((u, _))| u <= t) {
                f(self.heap.pop().expect("peeked").0 .1);
            }
        } else {
            self.ring.pop_until(t, f);
        }
    }

    #[inline(always)]
    pub(crate) fn insert(&mut self, t: u64, value: T) {
        if self.deep {
            self.heap.push(Reverse((t, value)));
        } else if !self.ring.is_full() {
            self.ring.insert(t, value);
        } else {
            self.spill(t, value);
        }
    }

    /// The ring is full: the heap from here on, with the ring's entries and the new one.
    #[cold]
    #[inline(never)]
    fn spill(&mut self, t: u64, value: T) {
        self.deep = true;
        self.heap.extend(self.ring.drain().map(Reverse));
        self.heap.push(Reverse((t, value)));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Draws below a bound from a xorshift generator seeded with `seed` (for the queues' tests).
    pub(crate) fn draws(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        }
    }

    /// Entries come out in (time, insertion) order, as from a plain heap of (time, sequence),
    /// for entries at the back, at the front, in between and tied, across the ring's wrap.
    #[test]
    fn takes_entries_in_time_then_insertion_order() {
        let mut rnd = draws(0x2545_f491_4f6c_dd1d);
        let mut ring = SortedRing::new(16, 0u32);
        assert_eq!(ring.capacity(), 16);
        let mut plain = BinaryHeap::new();
        let (mut now, mut seq) = (0u64, 0u64);
        for i in 0..50_000u32 {
            if !ring.is_full() && (ring.is_empty() || rnd(2) == 0) {
                let t = now + [rnd(4) * 10, 1000 + rnd(3), 0][rnd(3) as usize];
                ring.insert(t, i);
                plain.push(Reverse((t, seq, i)));
                seq += 1;
            } else {
                let Reverse((t, _, v)) = plain.pop().unwrap();
                assert_eq!(ring.first(), Some((t, v)));
                assert_eq!(ring.pop_first(), Some((t, v)));
                now = t;
            }
            assert_eq!(ring.len(), plain.len());
        }
        let rest: Vec<(u64, u32)> = ring.drain().collect();
        let want: Vec<(u64, u32)> = std::iter::from_fn(|| plain.pop().map(|Reverse((t, _, v))| (t, v))).collect();
        assert_eq!(rest, want);
        assert!(ring.is_empty() && ring.pop_first().is_none());
    }

    /// A time queue gives the entries a plain heap does, in its ring and after the move to its
    /// heap (it grows past the ring, drains, and stays a heap), for times in order, out of
    /// order and in reverse. (Times are distinct here: entries of the same time may come out in
    /// any order, which the ring's own test covers.)
    #[test]
    fn time_queue_is_a_min_multiset() {
        let mut rnd = draws(0x9e37_79b9_7f4a_7c15);
        let (mut q, mut plain) = (TimeQueue::<u32>::new(16), BinaryHeap::new());
        let mut now = 0;
        for round in 0..60_000u64 {
            // Phases: a queue that stays shallow (the ring), one that grows past the ring (to the
            // heap), one that drains, then shallow again (the heap still).
            let depth = [8, 100, 0][(round / 2_000 % 3) as usize];
            if q.len() < depth && rnd(4) > 0 {
                let coarse = now + [rnd(50), 40 + rnd(3), 1000 - rnd(900)][rnd(3) as usize];
                // The round in the low bits: every time distinct.
                let t = coarse << 16 | round;
                let v = 1 + rnd(3) as u32;
                q.insert(t, v);
                plain.push(Reverse((t, v)));
            } else {
                match rnd(2) {
                    0 => assert_eq!(q.pop_first(), plain.pop().map(|Reverse(e)| e)),
                    _ => {
                        now += rnd(30);
                        let until = (now << 16) | 0xffff;
                        let mut taken = Vec::new();
                        q.pop_until(until, |v| taken.push(v));
                        let mut want = Vec::new();
                        while plain.peek().is_some_and(|&Reverse((t, _))| t <= until) {
                            want.push(plain.pop().unwrap().0 .1);
                        }
                        assert_eq!(taken, want);
                    }
                }
            }
            assert_eq!(q.len(), plain.len());
            assert_eq!(q.first(), plain.peek().map(|&Reverse(e)| e));
            assert!(q.deep || round < 4_000, "the queue goes deep in the second phase");
        }
        assert!(q.deep, "a queue that went deep stays so");
    }
}
