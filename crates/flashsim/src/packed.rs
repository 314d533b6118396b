//! The reverse map's storage: a table of `u32` values packed end to end at the fewest bits that
//! hold the largest value, so that a 256 GiB device's physical->logical table takes 26 bits
//! per 4 KiB unit instead of 32 (208 MiB instead of 256 MiB), and smaller devices less.
//!
//! A value is stored plus one, so that an all-zero entry is "none" (`u32::MAX` when read): a
//! new table is zeroed memory, which the OS gives lazily, and reading an entry is one unaligned
//! 8-byte load, a shift, a mask and a subtraction, without a branch.

/// Entry value meaning "none" (stored as zero).
pub(crate) const NONE: u32 = u32::MAX;

/// Bits that one 8-byte load or store covers from any bit offset (a byte boundary plus up to 7).
const CHUNK: usize = 56;

#[derive(Debug, Clone)]
pub(crate) struct PackedTable {
    /// Entry `i` is bits `i * width ..` (little-endian), stored as value + 1; 8 bytes of
    /// padding at the end let every entry be read with one 8-byte load.
    bytes: Vec<u8>,
    width: u32,
    mask: u64,
    len: usize,
    /// Entries that fit in [`CHUNK`] bits (a division not to do per call).
    per_chunk: usize,
}

impl PackedTable {
    /// A table of `len` entries, every one `NONE`, for values up to `max_value`.
    pub(crate) fn new(len: usize, max_value: u32) -> PackedTable {
        // Stored values run from 0 (NONE) to max_value + 1.
        let width = (64 - (u64::from(max_value) + 1).leading_zeros()).max(1);
        let n = (len * width as usize).div_ceil(8) + 8;
        let bytes = crate::memory::zeroed(n);
        PackedTable { bytes, width, mask: (1u64 << width) - 1, len, per_chunk: CHUNK / width as usize }
    }

    /// Bits per entry.
    #[cfg(test)]
    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn place(&self, i: usize) -> (usize, u32) {
        debug_assert!(i < self.len, "index {i} of a table of {}", self.len);
        let bit = i * self.width as usize;
        (bit >> 3, (bit & 7) as u32)
    }

    #[inline(always)]
    fn word(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"))
    }

    /// Entry `i` (`NONE` when none was set).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> u32 {
        let (at, shift) = self.place(i);
        (((self.word(at) >> shift) & self.mask) as u32).wrapping_sub(1)
    }

    /// Set entry `i` to `v` (`NONE` clears it). `v` must not exceed the table's `max_value`.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, v: u32) {
        let stored = u64::from(v.wrapping_add(1));
        debug_assert!(stored <= self.mask, "value {v} does not fit {} bits", self.width);
        let (at, shift) = self.place(i);
        let w = (self.word(at) & !(self.mask << shift)) | (stored << shift);
        self.bytes[at..at + 8].copy_from_slice(&w.to_le_bytes());
    }

    /// Whether any of the entries `from..to` is set: whether any of their bits is (a "none"
    /// entry is stored as zero), 56 bits per load.
    #[inline]
    pub(crate) fn any(&self, from: usize, to: usize) -> bool {
        debug_assert!(from <= to && to <= self.len);
        let (mut bit, end) = (from * self.width as usize, to * self.width as usize);
        if end - bit <= CHUNK {
            // A page's entries: one load.
            return (self.word(bit >> 3) >> (bit & 7)) & ((1u64 << (end - bit)) - 1) != 0;
        }
        while bit < end {
            let n = (end - bit).min(CHUNK);
            if (self.word(bit >> 3) >> (bit & 7)) & ((1u64 << n) - 1) != 0 {
                return true;
            }
            bit += n;
        }
        false
    }

    /// Set the entries from `i` on to `values`, in one read-modify-write of the table's memory
    /// per 56 bits (setting them one by one reads back each word the one before just wrote,
    /// which the CPU cannot forward from its store buffer when the two overlap unaligned).
    #[inline]
    pub(crate) fn set_run(&mut self, i: usize, values: &[u32]) {
        debug_assert!(i + values.len() <= self.len);
        let w = self.width as usize;
        let per = self.per_chunk;
        if values.len() <= per {
            // A page's entries (or one entry): one read-modify-write, without the chunking.
            self.put_bits(i * w, values.len() * w, self.pack(values));
            return;
        }
        for (k, chunk) in values.chunks(per).enumerate() {
            let bit = (i + k * per) * w;
            let n = chunk.len() * w;
            self.put_bits(bit, n, self.pack(chunk));
        }
    }

    /// `values` (at most [`CHUNK`] bits of them) stored end to end from bit 0, each plus one.
    #[inline(always)]
    fn pack(&self, values: &[u32]) -> u64 {
        let w = self.width as usize;
        let mut acc = 0u64;
        for (j, &v) in values.iter().enumerate() {
            let stored = u64::from(v.wrapping_add(1));
            debug_assert!(stored <= self.mask, "value {v} does not fit {} bits", self.width);
            acc |= stored << (j * w);
        }
        acc
    }

    /// Clear the entries `from..to` (set them to `NONE`), 56 bits per read-modify-write.
    #[inline]
    pub(crate) fn clear_run(&mut self, from: usize, to: usize) {
        debug_assert!(from <= to && to <= self.len);
        let (mut bit, end) = (from * self.width as usize, to * self.width as usize);
        if end - bit <= CHUNK {
            // A page's entries: one read-modify-write.
            return self.put_bits(bit, end - bit, 0);
        }
        while bit < end {
            let n = (end - bit).min(CHUNK);
            self.put_bits(bit, n, 0);
            bit += n;
        }
    }

    /// Write the `n` (at most [`CHUNK`]) low bits of `v` at bit `bit`.
    #[inline(always)]
    fn put_bits(&mut self, bit: usize, n: usize, v: u64) {
        debug_assert!(n <= CHUNK);
        let (at, shift) = (bit >> 3, bit & 7);
        let mask = ((1u64 << n) - 1) << shift;
        let w = (self.word(at) & !mask) | (v << shift);
        self.bytes[at..at + 8].copy_from_slice(&w.to_le_bytes());
    }

    /// The entries from `from` on into `out`; returns how many of them are set.
    #[inline(always)]
    pub(crate) fn get_run(&self, from: usize, out: &mut [u32]) -> u32 {
        let mut set = 0;
        for (i, o) in (from..).zip(out.iter_mut()) {
            *o = self.get(i);
            set += u32::from(*o != NONE);
        }
        set
    }

    /// Ask the CPU to fetch entry `i` into cache (a hint; out-of-range indices are ignored).
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        if i < self.len {
            crate::memory::prefetch(&self.bytes, self.place(i).0);
        }
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> u64 {
        self.bytes.capacity() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_width() {
        for max in [0u32, 1, 2, 3, 1000, (1 << 23) - 2, (1 << 26) + 5, u32::MAX - 1] {
            let mut t = PackedTable::new(1000, max);
            assert!((0..1000).all(|i| t.get(i) == NONE));
            let val = |i: usize| ((i as u64 * 2_654_435_761) % (u64::from(max) + 1)) as u32;
            for i in (0..1000).rev() {
                t.set(i, val(i));
            }
            for i in 0..1000 {
                assert_eq!(t.get(i), val(i), "max {max} width {} entry {i}", t.width());
            }
            // Clearing one entry leaves its neighbours alone.
            t.set(500, NONE);
            assert_eq!(t.get(500), NONE);
            assert_eq!(t.get(499), val(499));
            assert_eq!(t.get(501), val(501));
            let mut run = vec![0; 1000];
            assert_eq!(t.get_run(0, &mut run), 999);
            assert!((0..1000).all(|i| run[i] == t.get(i)));
            assert!(t.any(499, 501) && !t.any(500, 501));
        }
    }

    /// Runs set and cleared in one go read back as entries set one by one, and leave their
    /// neighbours alone, at every width and offset.
    #[test]
    fn runs_match_single_entries() {
        for max in [0u32, 1, 6, 1000, (1 << 22) - 2, (1 << 26) + 5, u32::MAX - 1] {
            for len in [1usize, 2, 3, 4, 7, 16] {
                for start in 0..9 {
                    let mut a = PackedTable::new(64, max);
                    let mut b = PackedTable::new(64, max);
                    let fill = |i: usize| ((i as u64 * 2_654_435_761 + 7) % (u64::from(max) + 1)) as u32;
                    for i in 0..64 {
                        a.set(i, fill(i));
                        b.set(i, fill(i));
                    }
                    let vals: Vec<u32> = (0..len).map(|k| if k % 3 == 1 { NONE } else { fill(k * 5 + 1) }).collect();
                    a.set_run(start, &vals);
                    for (k, &v) in vals.iter().enumerate() {
                        b.set(start + k, v);
                    }
                    assert!((0..64).all(|i| a.get(i) == b.get(i)), "max {max} len {len} start {start}");
                    for i in 0..64 {
                        assert_eq!(a.any(start, start + len), b.any(start, start + len));
                        assert_eq!(a.any(i, 64), (i..64).any(|j| b.get(j) != NONE));
                    }
                    a.clear_run(start, start + len);
                    for k in 0..len {
                        b.set(start + k, NONE);
                    }
                    assert!((0..64).all(|i| a.get(i) == b.get(i)), "clear: max {max} len {len} start {start}");
                    assert!(!a.any(start, start + len));
                }
            }
        }
    }

    #[test]
    fn width_is_the_fewest_bits() {
        // 256 GiB of 4 KiB units (2^26) with the "none" code needs 27 bits; 2^26 - 2 fits 26.
        assert_eq!(PackedTable::new(1, (1 << 26) - 2).width(), 26);
        assert_eq!(PackedTable::new(1, (1 << 26) - 1).width(), 27);
        assert_eq!(PackedTable::new(1, u32::MAX - 1).width(), 32);
    }
}
