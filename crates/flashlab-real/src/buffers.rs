//! I/O buffers: one 4 KiB-aligned allocation cut into equal slots (one per I/O in flight),
//! as O_DIRECT needs, and the data written from them.
//!
//! The default data pattern neither compresses nor dedupes: the buffers start as output of a
//! seeded xoshiro256++, and before every write each 512-byte sector of the buffer gets its
//! file offset and a per-job write counter stamped into its first 16 bytes, so no two sectors
//! written by a run are equal (cheap: two stores per 512 bytes, no allocation). `Zeros` writes
//! zeros (what a compressing or deduplicating device likes best).

use flashlab_workload::rng::Rng;
use std::alloc::{alloc_zeroed, dealloc, Layout};

/// Alignment of every buffer slot (and of the allocation): 4 KiB, enough for O_DIRECT on
/// devices with 4 KiB logical blocks.
pub const ALIGN: usize = 4096;

/// What write buffers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataPattern {
    /// Random bytes, with offset and counter stamped into every 512-byte sector (default).
    #[default]
    Random,
    /// All zeros.
    Zeros,
}

/// `slots` buffers of `slot_size` bytes (rounded up to [`ALIGN`]), each 4 KiB-aligned.
pub struct AlignedBuffers {
    ptr: *mut u8,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// The buffers are plain memory owned by this value.
unsafe impl Send for AlignedBuffers {}

impl AlignedBuffers {
    /// `slots` buffers of `slot_size` bytes each, aligned for O_DIRECT, filled with `pattern`.
    pub fn new(slots: usize, slot_size: usize, pattern: DataPattern, seed: u64) -> AlignedBuffers {
        let slots = slots.max(1);
        let slot_size = slot_size.max(1).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(slots * slot_size, ALIGN).expect("buffer size fits in memory");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut b = AlignedBuffers { ptr, layout, slot_size, slots };
        if pattern == DataPattern::Random {
            let mut rng = Rng::new(seed ^ 0x5eed_da7a);
            for chunk in b.all_mut().chunks_exact_mut(8) {
                chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
        }
        b
    }

    /// Bytes in one slot.
    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to layout.size() initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// Start of slot `i` (for the kernel).
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.slots, "buffer slot {i} of {}", self.slots);
        // SAFETY: in bounds of the allocation.
        unsafe { self.ptr.add(i * self.slot_size) }
    }

    /// Slot `i` as a slice.
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        let p = self.slot_ptr(i);
        // SAFETY: in bounds, exclusively borrowed through &mut self.
        unsafe { std::slice::from_raw_parts_mut(p, self.slot_size) }
    }

    /// The whole allocation (for registering with io_uring).
    pub fn as_iovec(&self) -> libc::iovec {
        libc::iovec { iov_base: self.ptr.cast(), iov_len: self.layout.size() }
    }
}

impl Drop for AlignedBuffers {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Make `buf` (the first `len` bytes of a write) unique: stamp `offset` and `counter` into the
/// first 16 bytes of every 512-byte sector.
#[inline]
pub fn stamp(buf: &mut [u8], len: usize, offset: u64, counter: u64) {
    let len = len.min(buf.len());
    let mut at = 0;
    while at + 16 <= len {
        buf[at..at + 8].copy_from_slice(&(offset + at as u64).to_le_bytes());
        buf[at + 8..at + 16].copy_from_slice(&counter.to_le_bytes());
        at += 512;
    }
}

/// fio's `buffer_compress_percentage`: the last `pct` % of every 512-byte sector of the
/// first `len` bytes become zeros, so the data compresses by about `pct` % (the 16-byte stamp
/// at the start of each sector stays; at most 96 % is zeroed).
pub fn make_compressible(buf: &mut [u8], len: usize, pct: u32) {
    if pct == 0 {
        return;
    }
    let zero = (512 * pct.min(96) as usize) / 100;
    let len = len.min(buf.len());
    let mut at = 0;
    while at < len {
        let end = (at + 512).min(len);
        let from = (at + 512 - zero).min(end);
        buf[from..end].fill(0);
        at += 512;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_patterned() {
        let mut b = AlignedBuffers::new(3, 5000, DataPattern::Random, 7);
        assert_eq!(b.slot_size(), 8192);
        for i in 0..3 {
            assert_eq!(b.slot_ptr(i) as usize % ALIGN, 0);
        }
        let s = b.slot_mut(1);
        assert!(s.iter().filter(|&&x| x == 0).count() < 200, "random fill");
        stamp(s, 4096, 1 << 20, 9);
        assert_eq!(&s[512..520], &((1u64 << 20) + 512).to_le_bytes());
        assert_eq!(&s[520..528], &9u64.to_le_bytes());
        let z = AlignedBuffers::new(1, 4096, DataPattern::Zeros, 7);
        // SAFETY: reading the allocation we own.
        let all = unsafe { std::slice::from_raw_parts(z.slot_ptr(0), 4096) };
        assert!(all.iter().all(|&x| x == 0));
    }
}

#[cfg(test)]
mod compress_tests {
    #[test]
    fn compressible_share() {
        let mut b = vec![0xffu8; 4096];
        super::make_compressible(&mut b, 4096, 50);
        assert_eq!(b.iter().filter(|&&x| x == 0).count(), 2048);
        assert!(b[..256].iter().all(|&x| x == 0xff));
    }
}
