//! Time resources: a shared bus or channel on which transfers are booked in the first gap that
//! fits ([`Timeline`]), and a unit that executes operations strictly in order ([`BusyUntil`]).
//!
//! Requests are simulated in arrival order, but their data transfers happen when the NAND has
//! the data ready, which can be earlier than a transfer booked by an earlier request. A plain
//! "busy until" time would make every later transfer wait behind the latest booking, so a
//! shared channel keeps the list of its future bookings and fills gaps.

pub type Ns = u64;

/// A resource that runs one operation at a time in submission order (a NAND die, a controller).
#[derive(Debug, Clone, Copy, Default)]
pub struct BusyUntil(pub Ns);

impl BusyUntil {
    /// Start an operation of `dur` no earlier than `at`; returns its (start, end).
    #[inline]
    pub fn run(&mut self, at: Ns, dur: Ns) -> (Ns, Ns) {
        let start = at.max(self.0);
        self.0 = start + dur;
        (start, self.0)
    }
}

/// A resource with future bookings kept as sorted, disjoint intervals; a new booking takes the
/// earliest gap at or after its ready time.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Sorted by start, disjoint, non-adjacent (touching intervals are merged).
    busy: Vec<(Ns, Ns)>,
}

impl Timeline {
    /// Forget bookings that ended at or before `now` (nothing is booked before `now` again).
    #[inline]
    pub fn prune(&mut self, now: Ns) {
        let keep_from = self.busy.partition_point(|&(_, e)| e <= now);
        if keep_from > 0 {
            self.busy.drain(..keep_from);
        }
    }

    /// Book `dur` at the earliest time >= `ready` where it fits; returns the end time.
    pub fn book(&mut self, ready: Ns, dur: Ns) -> Ns {
        if dur == 0 {
            return ready;
        }
        let mut start = ready;
        let mut idx = self.busy.len();
        // Ends are sorted too (intervals are disjoint): skip every booking that ends by `ready`.
        let from = self.busy.partition_point(|&(_, e)| e <= ready);
        for (i, &(s, e)) in self.busy.iter().enumerate().skip(from) {
            if s >= start + dur {
                idx = i;
                break;
            }
            start = start.max(e);
        }
        let end = start + dur;
        // Insert at idx, merging with neighbours that touch.
        let merge_prev = idx > 0 && self.busy[idx - 1].1 == start;
        let merge_next = idx < self.busy.len() && self.busy[idx].0 == end;
        match (merge_prev, merge_next) {
            (true, true) => {
                self.busy[idx - 1].1 = self.busy[idx].1;
                self.busy.remove(idx);
            }
            (true, false) => self.busy[idx - 1].1 = end,
            (false, true) => self.busy[idx].0 = start,
            (false, false) => self.busy.insert(idx, (start, end)),
        }
        end
    }

    /// End of the last booking (0 if none).
    pub fn last_end(&self) -> Ns {
        self.busy.last().map_or(0, |&(_, e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_gaps() {
        let mut t = Timeline::default();
        assert_eq!(t.book(100, 10), 110);
        assert_eq!(t.book(0, 10), 10); // fits before
        assert_eq!(t.book(5, 10), 20); // after the first booking
        assert_eq!(t.book(95, 10), 120); // 95..105 overlaps 100..110 -> after it
        assert_eq!(t.book(20, 80), 100); // exactly fills 20..100
        assert_eq!(t.busy.len(), 1, "{:?}", t.busy);
        t.prune(120);
        assert!(t.busy.is_empty());
    }

    #[test]
    fn busy_until_serialises() {
        let mut d = BusyUntil::default();
        assert_eq!(d.run(10, 5), (10, 15));
        assert_eq!(d.run(0, 5), (15, 20));
    }
}
