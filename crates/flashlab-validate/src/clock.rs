//! The kernel's coarse clock, the one file timestamps are taken from: ext4 reads it (through
//! `current_time`) on every write, and a write dirties the inode only when the value moved since
//! the file's last update. Read here around each operation of the kernel run, so the model can
//! decide the same thing from the same values instead of from its own device time.

/// Nanoseconds of `CLOCK_REALTIME_COARSE` now (the value `current_time` starts from).
pub fn coarse_now() -> u64 {
    read(libc::CLOCK_REALTIME_COARSE, libc::clock_gettime)
}

/// How often the coarse clock moves (one jiffy, 1/CONFIG_HZ: 4 ms at HZ=250), from
/// `clock_getres(CLOCK_REALTIME_COARSE)`.
pub fn coarse_tick_ns() -> u64 {
    read(libc::CLOCK_REALTIME_COARSE, libc::clock_getres)
}

fn read(clock: libc::clockid_t, f: unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: the call writes one timespec we own; CLOCK_REALTIME_COARSE exists on every
    // Linux since 2.6.32, so it cannot fail.
    unsafe { f(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coarse_clock_moves_in_ticks() {
        let tick = coarse_tick_ns();
        assert!((1_000_000..=10_000_000).contains(&tick), "HZ between 100 and 1000: tick {tick} ns");
        let a = coarse_now();
        std::thread::sleep(std::time::Duration::from_nanos(3 * tick));
        assert!(coarse_now() > a);
    }
}
