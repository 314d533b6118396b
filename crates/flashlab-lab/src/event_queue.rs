//! The engine's queue of events in flight (I/O completions, think-time ends, rate wake-ups),
//! taken in (time, sequence number) order.
//!
//! A binary heap of 16-byte keys — the time in the high 64 bits, then the sequence number,
//! then the index of the event's payload in a slab — instead of a heap of whole events: a
//! sift moves and compares one `u128` per level. The event just taken stays at the top until
//! the next push replaces it (one sift down instead of a pop's sift and a push's), which is
//! the closed loop's common step: a completion, then the job's next request. Keys are unique
//! (the sequence number), so the order is the same as any priority queue's.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bits of the key that index the slab.
const SLOT_BITS: u32 = 24;
/// Sequence numbers that fit the key beside the slot.
const SEQ_LIMIT: u64 = 1 << (64 - SLOT_BITS);

pub(crate) struct EventQueue<P> {
    heap: BinaryHeap<Reverse<u128>>,
    slab: Vec<P>,
    free: Vec<u32>,
    seq: u64,
    /// The top of the heap was taken ([`EventQueue::take`]) but is still in place.
    taken: bool,
}

impl<P: Copy> EventQueue<P> {
    pub fn new() -> EventQueue<P> {
        EventQueue { heap: BinaryHeap::new(), slab: Vec::new(), free: Vec::new(), seq: 0, taken: false }
    }

    /// Add an event at time `t`; among events of the same time, earlier pushes come first.
    #[inline]
    pub fn push(&mut self, t: u64, payload: P) {
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

    /// Take the earliest event: (time, payload).
    #[inline]
    pub fn take(&mut self) -> Option<(u64, P)> {
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

    /// The queue hands events out in the order a plain heap of (time, sequence) does, for
    /// any interleaving of takes and pushes.
    #[test]
    fn same_order_as_a_plain_heap() {
        let mut rng = crate::rng::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut rnd = |m: u64| rng.below(m);
        let mut q: EventQueue<u32> = EventQueue::new();
        let mut plain: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0;
        let mut now = 0;
        for i in 0..20_000u32 {
            if rnd(3) == 0 || plain.is_empty() {
                for _ in 0..=rnd(3) {
                    // Ties in time are frequent: their order is the push order.
                    let t = now + rnd(4) * 10;
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
