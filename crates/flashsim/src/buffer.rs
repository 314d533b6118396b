//! The controller's write buffer: how many 4 KiB units it holds and when slots free up.
//!
//! A host write takes a slot when its data arrives and keeps it until the NAND program that
//! carries it completes. When every slot is taken the write waits for the earliest program to
//! finish: this is how NAND and garbage-collection time reach the host's write latency.

use crate::timeline::Ns;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

#[derive(Debug, Clone)]
pub(crate) struct WriteBuffer {
    capacity: u32,
    used: u32,
    /// Programs in flight: (completion time, units they free).
    releases: BinaryHeap<Reverse<(Ns, u32)>>,
}

impl WriteBuffer {
    pub(crate) fn new(capacity_units: u32) -> WriteBuffer {
        WriteBuffer { capacity: capacity_units, used: 0, releases: BinaryHeap::new() }
    }

    /// Take one slot for data arriving at `at`; returns when the slot is available.
    #[inline]
    pub(crate) fn acquire(&mut self, at: Ns) -> Ns {
        while let Some(&Reverse((r, n))) = self.releases.peek() {
            if r > at {
                break;
            }
            self.releases.pop();
            self.used -= n;
        }
        if self.used < self.capacity {
            self.used += 1;
            return at;
        }
        // Full: take one slot of the earliest program to complete; its other slots stay
        // taken until then (a later write arriving earlier must not get them sooner). The
        // entry keeps its place at the top with one slot fewer (no pop and push: with a large
        // buffer thousands of programs are in flight, and this runs for every unit written).
        let mut top = self.releases.peek_mut().expect("write buffer full with nothing in flight");
        let Reverse((r, n)) = *top;
        if n > 1 {
            top.0 .1 = n - 1;
        } else {
            PeekMut::pop(top);
        }
        r.max(at)
    }

    /// `units` slots taken earlier free up at `done` (their program completes then).
    #[inline]
    pub(crate) fn release_at(&mut self, done: Ns, units: u32) {
        if units > 0 {
            self.releases.push(Reverse((done, units)));
        }
    }

    /// Bytes of heap held by the in-flight list.
    pub(crate) fn memory_bytes(&self) -> u64 {
        (self.releases.capacity() * std::mem::size_of::<(Ns, u32)>()) as u64
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
}
