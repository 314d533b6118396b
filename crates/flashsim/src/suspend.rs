//! Program and erase suspension: a read that reaches a die busy programming or erasing
//! suspends the operation, is served, and the operation resumes, where the NAND part supports
//! it (`[nand.suspend]` in a profile; off when the table is absent).
//!
//! The mechanism (Wu and He, "Reducing SSD Read Latency via NAND Flash Program and Erase
//! Suspension", FAST 2012): a program is a train of program-and-verify pulses (ISPP) and an
//! erase a train of erase pulses; the chip can stop at the end of a pulse, serve a read, and
//! resume from where it stopped. A read then waits for the pulse in progress (`suspend_us`),
//! not for the whole tPROG or tBERS, and the suspended operation pays `resume_us` on top of the
//! time the read held the die.
//!
//! The model: each die remembers when its last read ends (reads are not suspended). A read
//! arriving while the die is programming or erasing past that point suspends the operation if
//! waiting would take longer than suspending: it starts `suspend_us` later, holds the die
//! until its data has left the page register, and the die's work moves out by that time plus
//! `resume_us`. All the program/erase work booked on the die is moved, not only the operation
//! in progress: the work queued behind it is the controller's to schedule, and a controller
//! that suspends for reads also schedules reads ahead of queued programs and erases
//! (Wu and He's baseline, read priority scheduling). Completion times already handed out for the moved operations
//! are not revised (a write acknowledged from the controller's buffer does not wait for its
//! program anyway); the die's total work, and so its throughput, is conserved.

use crate::timeline::Ns;

/// Suspension timings of a NAND part, nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SuspendTimes {
    /// From the suspend command to the die ready for the read (the pulse in progress ends).
    pub(crate) suspend: Ns,
    /// Extra time the suspended operation takes when it resumes.
    pub(crate) resume: Ns,
}

/// Per-die state for suspension. Empty (and every call a no-op) when the part has none.
#[derive(Debug, Clone, Default)]
pub(crate) struct Suspender {
    times: Option<SuspendTimes>,
    /// When each die's last read releases it.
    read_until: Vec<Ns>,
    suspensions: u64,
}

/// Where a read goes on a die that suspends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preempt {
    /// When the die starts sensing the read.
    pub(crate) start: Ns,
    /// When the suspend command was issued (the P/E work stops from here).
    pub(crate) from: Ns,
}

impl Suspender {
    pub(crate) fn new(times: Option<SuspendTimes>, dies: u32) -> Suspender {
        Suspender {
            times,
            read_until: if times.is_some() { vec![0; dies as usize] } else { Vec::new() },
            suspensions: 0,
        }
    }

    /// A read arriving at `at` on `die`, whose bookings end at `busy_until`: where it starts
    /// if it suspends the program/erase work ahead of it, or `None` to wait as usual.
    #[inline]
    pub(crate) fn preempt(&self, die: u32, at: Ns, busy_until: Ns) -> Option<Preempt> {
        let t = self.times?;
        let from = at.max(self.read_until[die as usize]);
        // Only program/erase work lies between the last read and `busy_until`; suspend it
        // when waiting for it would take longer than suspending and resuming.
        (busy_until > from + t.suspend + t.resume).then_some(Preempt { start: from + t.suspend, from })
    }

    /// The read placed by [`Suspender::preempt`] holds the die until `done`: returns when the
    /// suspended work (booked until `busy_until`) now ends.
    #[inline]
    pub(crate) fn resume(&mut self, die: u32, p: Preempt, done: Ns, busy_until: Ns) -> Ns {
        let t = self.times.expect("resume without suspension");
        self.read_until[die as usize] = done;
        self.suspensions += 1;
        busy_until + (done - p.from) + t.resume
    }

    /// A read that did not suspend anything holds `die` until `done`.
    #[inline]
    pub(crate) fn read_done(&mut self, die: u32, done: Ns) {
        if self.times.is_some() {
            self.read_until[die as usize] = done;
        }
    }

    /// Program/erase operations suspended so far.
    pub(crate) fn suspensions(&self) -> u64 {
        self.suspensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: SuspendTimes = SuspendTimes { suspend: 50_000, resume: 20_000 };

    #[test]
    fn without_the_feature_nothing_is_preempted() {
        let s = Suspender::new(None, 2);
        assert_eq!(s.preempt(0, 0, 10_000_000), None);
    }

    #[test]
    fn a_read_suspends_a_long_operation_and_delays_it() {
        let mut s = Suspender::new(Some(T), 2);
        // A 3 ms erase booked until 3 ms; a read at 1 ms starts at 1.05 ms.
        let p = s.preempt(0, 1_000_000, 3_000_000).unwrap();
        assert_eq!(p, Preempt { start: 1_050_000, from: 1_000_000 });
        // The read holds the die until 1.2 ms: the erase ends 0.2 ms + resume later.
        assert_eq!(s.resume(0, p, 1_200_000, 3_000_000), 3_220_000);
        assert_eq!(s.suspensions(), 1);
        // A second read queues behind the first, not behind the erase.
        let q = s.preempt(0, 1_100_000, 3_220_000).unwrap();
        assert_eq!(q.from, 1_200_000);
    }

    #[test]
    fn a_nearly_done_operation_is_not_suspended() {
        let s = Suspender::new(Some(T), 1);
        assert_eq!(s.preempt(0, 1_000_000, 1_060_000), None);
        assert_eq!(s.preempt(0, 1_000_000, 900_000), None);
    }
}
