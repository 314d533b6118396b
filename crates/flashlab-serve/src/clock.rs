//! The serve clock: maps real time since the server started onto the simulator's virtual clock
//! (scaled by `--time-scale`) and back, and sleeps a worker thread until a modeled completion.
//!
//! `time_scale` is simulated seconds per real second: 1 runs in real time, 10 runs ten times
//! faster (a 1 ms modeled latency is answered after 0.1 ms), 0.5 twice slower.

use flashsim::Ns;
use std::time::{Duration, Instant};

/// How long before a deadline the waiting thread stops sleeping and starts yielding.
pub const SPIN: Duration = Duration::from_micros(30);

#[derive(Debug, Clone, Copy)]
pub struct SimClock {
    start: Instant,
    scale: f64,
}

impl SimClock {
    /// A clock whose virtual time 0 is now. `scale` must be finite and > 0 (checked by the
    /// caller's option parsing).
    pub fn new(scale: f64) -> SimClock {
        SimClock { start: Instant::now(), scale }
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Virtual time of a real instant.
    pub fn sim_at(&self, t: Instant) -> Ns {
        let real = t.saturating_duration_since(self.start).as_nanos() as f64;
        (real * self.scale) as Ns
    }

    /// Virtual time now.
    pub fn now(&self) -> Ns {
        self.sim_at(Instant::now())
    }

    /// The real instant at which virtual time `ns` is reached.
    pub fn real_at(&self, ns: Ns) -> Instant {
        self.start + Duration::from_nanos((ns as f64 / self.scale) as u64)
    }

    /// Wait until the real instant `deadline` (a modelled completion's, see
    /// [`SimClock::real_at`]; returns at once if it has passed): sleep until [`SPIN`] before
    /// the deadline, then yield the CPU in a loop until it. A plain sleep wakes 10-20 µs late
    /// on a busy machine (timer expiry plus scheduling), which would add to every modeled
    /// latency; the spin costs at most [`SPIN`] of CPU per request.
    pub fn sleep_until(&self, deadline: Instant) {
        let now = Instant::now();
        if deadline <= now {
            return;
        }
        if deadline - now > SPIN {
            precise_timers();
            std::thread::sleep(deadline - now - SPIN);
        }
        while Instant::now() < deadline {
            std::thread::yield_now();
        }
    }
}

/// Ask the kernel for 1 µs timer slack on this thread (the default 50 µs would add up to 50 µs
/// to every modeled completion). Done once per thread.
fn precise_timers() {
    thread_local! {
        static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    DONE.with(|d| {
        if !d.get() {
            // SAFETY: PR_SET_TIMERSLACK takes an integer argument and changes only this thread.
            unsafe {
                libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
            }
            d.set(true);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_scaled() {
        let c = SimClock::new(10.0);
        let t = c.real_at(5_000_000_000);
        // 5 s of virtual time is 0.5 s of real time at scale 10.
        let real = t.duration_since(c.start);
        assert_eq!(real, Duration::from_millis(500));
        assert_eq!(c.sim_at(t), 5_000_000_000);
    }

    #[test]
    fn sleeps_at_least_until_deadline() {
        let c = SimClock::new(1.0);
        let target = c.now() + 2_000_000;
        c.sleep_until(c.real_at(target));
        assert!(c.now() >= target);
    }
}
