//! The engine's queue of events in flight (I/O completions, think-time ends, rate wake-ups),
//! taken in (time, push order) order.
//!
//! Two layouts behind one type, chosen by how many events can be in flight at once (the
//! engine knows: the jobs' depths), and handing events out in the same order:
//!
//! - **Few in flight (at most [`SORTED_MAX`]): a [`SortedRing`].** A closed loop pushes one
//!   event per event taken, and its new completion is nearly always after every other in
//!   flight (a request queued behind the others) or before every one (a write the buffer takes
//!   at once): an append at one end, or a few moves from the back.
//! - **Many: a binary heap of 16-byte keys** — the time in the high 64 bits, then the
//!   sequence number, then the index of the event's payload in a slab — instead of a heap of
//!   whole events: a sift moves and compares one `u128` per level. The event just taken stays
//!   at the top until the next push replaces it (one sift down instead of a pop's sift and a
//!   push's). Keys are unique (the sequence number), so the order is the same as any priority
//!   queue's. A ring that fills up (more in flight than its bound said) moves its events to the
//!   heap in order and the queue stays a heap.
use flashsim::sorted_ring::SortedRing;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most events in flight for which the queue is a sorted ring: past this a push into the
/// middle moves too many (a heap's sift is a few dozen instructions at any size).
pub(crate) const SORTED_MAX: usize = 128;

/// Bits of the key that index the slab.
const SLOT_BITS: u32 = 24;
/// Sequence numbers that fit the key beside the slot.
const SEQ_LIMIT: u64 = 1 << (64 - SLOT_BITS);

pub(crate) enum EventQueue<P> {
    /// Sorted by (time, push order): the first is taken next.
    Sorted(SortedRing<P>),
    /// Many events in flight.
    Heap(KeyHeap<P>),
}

impl<P: Copy> EventQueue<P> {
    /// A queue for at most `bound` events in flight at once (more is not wrong: the queue
    /// then moves to its heap); `fill` fills the ring's unused slots.
    pub fn new(bound: usize, fill: P) -> EventQueue<P> {
        if bound <= SORTED_MAX {
            EventQueue::Sorted(SortedRing::new(bound, fill))
        } else {
            EventQueue::Heap(KeyHeap::new())
        }
    }

    /// Add an event at time `t`; among events of the same time, earlier pushes come first.
    #[inline(always)]
    pub fn push(&mut self, t: u64, payload: P) {
        match self {
            EventQueue::Sorted(q) if !q.is_full() => q.insert(t, payload),
            EventQueue::Sorted(_) => self.spill(t, payload),
            EventQueue::Heap(h) => h.push(t, payload),
        }
    }

    /// More in flight than the bound: the heap from here on, with the ring's events first (in
    /// order, so that ties keep their push order), then the event at `t`.
    #[cold]
    #[inline(never)]
    fn spill(&mut self, t: u64, payload: P) {
        let mut h = KeyHeap::new();
        if let EventQueue::Sorted(q) = self {
            for (u, p) in q.drain() {
                h.push(u, p);
            }
        }
        h.push(t, payload);
        *self = EventQueue::Heap(h);
    }

    /// Take the earliest event: (time, payload).
    #[inline(always)]
    pub fn take(&mut self) -> Option<(u64, P)> {
        match self {
            EventQueue::Sorted(q) => q.pop_first(),
            EventQueue::Heap(h) => h.take(),
        }
    }
}

/// [`EventQueue`]'s layout for many events in flight.
pub(crate) struct KeyHeap<P> {
    heap: BinaryHeap<Reverse<u128>>,
    slab: Vec<P>,
    free: Vec<u32>,
    seq: u64,
    /// The top of the heap was taken ([`EventQueue::take`]) but is still in place.
    taken: bool,
}

impl<P: Copy> KeyHeap<P> {
    fn new() -> KeyHeap<P> {
        KeyHeap { heap: BinaryHeap::new(), slab: Vec::new(), free: Vec::new(), seq: 0, taken: false }
    }

    #[inline]
    fn push(&mut self, t: u64, payload: P) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = payload;
                s
            }
            None => {
                self.slab.push(payload);
                u32::try_from(self.slab.len() - 1).expect("events in flight fit 32 bits")
            }
        };
        assert!(
            self.seq < SEQ_LIMIT && u64::from(slot) < 1 << SLOT_BITS,
            "event queue: more than 2^40 events or 2^24 in flight"
        );
        let key = (u128::from(t) << 64) | u128::from(self.seq << SLOT_BITS | u64::from(slot));
        self.seq += 1;
        if self.taken {
            self.taken = false;
            // Replace the taken top: the PeekMut sifts the new key down when dropped.
            if let Some(mut top) = self.heap.peek_mut() {
                *top = Reverse(key);
                return;
            }
        }
        self.heap.push(Reverse(key));
    }

    #[inline]
    fn take(&mut self) -> Option<(u64, P)> {
        if self.taken {
            self.taken = false;
            self.heap.pop();
        }
        let &Reverse(key) = self.heap.peek()?;
        self.taken = true;
        let slot = (key as u64 & ((1 << SLOT_BITS) - 1)) as u32;
        self.free.push(slot);
        Some(((key >> 64) as u64, self.slab[slot as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both layouts hand events out in the order a plain heap of (time, sequence) does, for
    /// any interleaving of takes and pushes, whether the queue stays small or grows (the
    /// sorted ring past its bound too: it moves to the heap).
    #[test]
    fn same_order_as_a_plain_heap() {
        for bound in [1, SORTED_MAX, usize::MAX] {
            for push_weight in [1, 2] {
                check_against_plain_heap(EventQueue::new(bound, 0), push_weight);
            }
        }
    }

    /// Push bursts with weight `push_weight` against 2 for a take: the queue stays small at
    /// 1 and grows to thousands at 2.
    fn check_against_plain_heap(mut q: EventQueue<u32>, push_weight: u64) {
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut rnd = |m: u64| rng.below(m);
        let mut plain: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0;
        let mut now = 0;
        for i in 0..20_000u32 {
            if rnd(2 + push_weight) < push_weight || plain.is_empty() {
                for _ in 0..=rnd(3) {
                    // Ties in time are frequent: their order is the push order. Some events
                    // come before every other in flight, some after.
                    let t = now + rnd(4) * 10 + [0, 0, 1000][rnd(3) as usize];
                    q.push(t, i);
                    plain.push(Reverse((t, seq, i)));
                    seq += 1;
                }
            } else {
                let Reverse((t, _, p)) = plain.pop().unwrap();
                assert_eq!(q.take(), Some((t, p)));
                now = t;
            }
        }
        while let Some(Reverse((t, _, p))) = plain.pop() {
            assert_eq!(q.take(), Some((t, p)));
        }
        assert_eq!(q.take(), None);
    }
}
