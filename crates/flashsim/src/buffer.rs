//! The controller's write buffer: how many 4 KiB units it holds and when slots free up.
//!
//! A host write takes a slot when its data arrives and keeps it until the NAND program that
//! carries it completes. When every slot is taken the write waits for the earliest program to
//! finish: this is how NAND and garbage-collection time reach the host's write latency.

use crate::sorted_ring::SortedRing;
use crate::timeline::Ns;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// The largest buffer, in units, whose programs in flight are kept in a [`SortedRing`] (each
/// holds at least one unit, so they never outnumber the units). A program completes after
/// those of its die booked before it, so a new one lands at or near the back, where a heap
/// sifts. A larger buffer (megabytes: thousands of programs in flight) keeps a heap.
const RING_UNITS: u32 = 64;

#[derive(Debug, Clone)]
pub(crate) struct WriteBuffer {
    capacity: u32,
    used: u32,
    /// Programs in flight: (completion time, units they free).
    releases: Releases,
}

/// [`WriteBuffer`]'s programs in flight, one layout for the buffer's life.
#[derive(Debug, Clone)]
enum Releases {
    Ring(SortedRing<u32>),
    Heap(BinaryHeap<Reverse<(Ns, u32)>>),
}

impl WriteBuffer {
    pub(crate) fn new(capacity_units: u32) -> WriteBuffer {
        WriteBuffer::with_layout(capacity_units, capacity_units > RING_UNITS)
    }

    /// A buffer of `capacity_units` whose programs in flight are in a heap or a ring.
    fn with_layout(capacity_units: u32, heap: bool) -> WriteBuffer {
        let releases = if heap {
            Releases::Heap(BinaryHeap::new())
        } else {
            Releases::Ring(SortedRing::new(capacity_units as usize, 0))
        };
        WriteBuffer { capacity: capacity_units, used: 0, releases }
    }

    /// Take one slot for data arriving at `at`; returns when the slot is available.
    ///
    /// When the buffer is full the write takes one slot of the earliest program to complete;
    /// its other slots stay taken until then (a later write arriving earlier must not get them
    /// sooner). The entry keeps its place with one slot fewer (no pop and push: with a large
    /// buffer thousands of programs are in flight, and this runs for every unit written).
    #[inline]
    pub(crate) fn acquire(&mut self, at: Ns) -> Ns {
        match &mut self.releases {
            Releases::Ring(ring) => {
                let mut freed = 0;
                ring.pop_until(at, |n| freed += n);
                self.used -= freed;
                if self.used < self.capacity {
                    self.used += 1;
                    return at;
                }
                let (r, n) = ring.first().expect("write buffer full with nothing in flight");
                if n > 1 {
                    ring.set_first_value(n - 1);
                } else {
                    ring.pop_first();
                }
                r.max(at)
            }
            Releases::Heap(heap) => {
                while let Some(&Reverse((r, n))) = heap.peek() {
                    if r > at {
                        break;
                    }
                    heap.pop();
                    self.used -= n;
                }
                if self.used < self.capacity {
                    self.used += 1;
                    return at;
                }
                let mut top = heap.peek_mut().expect("write buffer full with nothing in flight");
                let Reverse((r, n)) = *top;
                if n > 1 {
                    top.0 .1 = n - 1;
                } else {
                    PeekMut::pop(top);
                }
                r.max(at)
            }
        }
    }

    /// `units` slots taken earlier free up at `done` (their program completes then).
    #[inline]
    pub(crate) fn release_at(&mut self, done: Ns, units: u32) {
        if units > 0 {
            match &mut self.releases {
                Releases::Ring(ring) => ring.insert(done, units),
                Releases::Heap(heap) => heap.push(Reverse((done, units))),
            }
        }
    }

    /// Bytes of heap held by the in-flight list.
    pub(crate) fn memory_bytes(&self) -> u64 {
        let entries = match &self.releases {
            Releases::Ring(ring) => ring.capacity(),
            Releases::Heap(heap) => heap.capacity(),
        };
        (entries * std::mem::size_of::<(Ns, u32)>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_buffer_frees_slots_only_when_their_program_completes() {
        let mut b = WriteBuffer::new(2);
        assert_eq!(b.acquire(0), 0);
        assert_eq!(b.acquire(0), 0);
        b.release_at(1000, 2);
        assert_eq!(b.acquire(10), 1000);
        // The second slot of that program is not free before 1000 either.
        assert_eq!(b.acquire(20), 1000);
        b.release_at(1500, 2);
        assert_eq!(b.acquire(1200), 1500);
        assert_eq!(b.acquire(2000), 2000);
    }

    /// Both layouts give every write the same slot time, whether programs complete in order,
    /// out of order or tied, the buffer full or not.
    #[test]
    fn ring_and_heap_layouts_agree() {
        let mut rnd = crate::sorted_ring::tests::draws(0x2545_f491_4f6c_dd1d);
        for cap in [1, 8, 48, 64] {
            let (mut ring, mut heap) = (WriteBuffer::with_layout(cap, false), WriteBuffer::with_layout(cap, true));
            let (mut now, mut held) = (0, 0u32);
            for _ in 0..20_000 {
                now += rnd(40);
                let a = ring.acquire(now);
                assert_eq!(a, heap.acquire(now));
                held += 1;
                // A page of 1-4 units is programmed once enough are held, done in order, late or
                // tied with another.
                let units = 1 + rnd(4) as u32;
                if held >= units.min(cap) {
                    let done = a + [500, 500 + rnd(300), 200 + rnd(20) * 10][rnd(3) as usize];
                    ring.release_at(done, held.min(units));
                    heap.release_at(done, held.min(units));
                    held -= held.min(units);
                }
            }
        }
    }
}
