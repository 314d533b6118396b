//! Memory hints for the FTL's big tables (tens to hundreds of MiB, read at random): transparent
//! huge pages where the OS gives them, and software prefetch of an entry needed soon.

/// Ask Linux for transparent huge pages over the whole 2 MiB pages inside `len` bytes at
/// `ptr`, before they are first touched: with 4 KiB pages nearly every random access to a big
/// table also misses the TLB. Elsewhere, or when THP is off, nothing changes.
fn advise_huge(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    if len >= 4 << 20 {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int) -> std::ffi::c_int;
        }
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside the allocation the caller owns, and MADV_HUGEPAGE
            // only changes how the kernel backs it (it keeps the contents); a failure (THP
            // disabled, old kernel) leaves ordinary pages, so the result is ignored.
            unsafe {
                madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// A table of `n` entries set to `v`, on huge pages where the OS gives them.
pub(crate) fn table(n: usize, v: u32) -> Vec<u32> {
    let mut t: Vec<u32> = Vec::with_capacity(n);
    advise_huge(t.as_mut_ptr() as *mut u8, n * 4);
    t.resize(n, v);
    t
}

/// `n` zero bytes, on huge pages where the OS gives them. The memory is allocated zeroed, so
/// the OS maps it only as it is first written.
pub(crate) fn zeroed(n: usize) -> Vec<u8> {
    let mut t = vec![0u8; n];
    advise_huge(t.as_mut_ptr(), n);
    t
}

/// Hint the CPU to fetch `v[i]` into cache: the mapping tables are tens of MiB and GC touches
/// them at random, one cache miss per copied unit unless fetched ahead.
#[inline(always)]
pub(crate) fn prefetch<T>(v: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < v.len() {
        // SAFETY: `_mm_prefetch` only needs SSE, which every x86_64 CPU has; it is a hint that
        // never faults and neither reads nor writes memory as far as the program can observe,
        // and the address is inside `v` anyway. Measured gain: see docs/speed.md.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(v.as_ptr().add(i) as *const i8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}
