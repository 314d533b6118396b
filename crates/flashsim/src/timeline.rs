//! Time resources: a shared bus or channel on which transfers are booked in the first gap that
//! fits ([`Timeline`]), and a unit that executes operations strictly in order ([`BusyUntil`]).
//!
//! Requests are simulated in arrival order, but their data transfers happen when the NAND has
//! the data ready, which can be earlier than a transfer booked by an earlier request. A plain
//! "busy until" time would make every later transfer wait behind the latest booking, so a
//! shared channel keeps the list of its future bookings and fills gaps.

use std::collections::VecDeque;

/// A time on the virtual clock, or a duration: nanoseconds (from 0 when the device was created).
pub type Ns = u64;

/// A resource that runs one operation at a time in submission order (a NAND die, a controller).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BusyUntil(pub(crate) Ns);

impl BusyUntil {
    /// Start an operation of `dur` no earlier than `at`; returns its (start, end).
    #[inline]
    pub(crate) fn run(&mut self, at: Ns, dur: Ns) -> (Ns, Ns) {
        let start = at.max(self.0);
        self.0 = start + dur;
        (start, self.0)
    }
}

/// A resource with future bookings kept as sorted, disjoint intervals; a new booking takes the
/// earliest gap at or after its ready time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timeline {
    /// Sorted by start, disjoint, non-adjacent (touching intervals are merged). A deque: pruning
    /// takes from the front and most bookings land near the back, so neither shifts the rest.
    busy: VecDeque<(Ns, Ns)>,
}

impl Timeline {
    /// Forget bookings that ended at or before `now` (nothing is booked before `now` again).
    #[inline]
    pub(crate) fn prune(&mut self, now: Ns) {
        while self.busy.front().is_some_and(|&(_, e)| e <= now) {
            self.busy.pop_front();
        }
    }

    /// Book `dur` at the earliest time >= `ready` where it fits; returns the end time.
    pub(crate) fn book(&mut self, ready: Ns, dur: Ns) -> Ns {
        if dur == 0 {
            return ready;
        }
        // Fast path: nothing booked past `ready` (a lone host bus at low queue depth).
        match self.busy.back_mut() {
            None => {
                self.busy.push_back((ready, ready + dur));
                return ready + dur;
            }
            Some(last) if last.1 <= ready => {
                if last.1 == ready {
                    last.1 = ready + dur;
                } else {
                    self.busy.push_back((ready, ready + dur));
                }
                return ready + dur;
            }
            Some(_) => {}
        }
        let mut start = ready;
        let mut idx = self.busy.len();
        // Ends are sorted too (intervals are disjoint): skip every booking that ends by `ready`.
        let from = self.busy.partition_point(|&(_, e)| e <= ready);
        for (i, &(s, e)) in self.busy.range(from..).enumerate() {
            if s >= start + dur {
                idx = from + i;
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
    #[cfg(test)]
    fn last_end(&self) -> Ns {
        self.busy.back().map_or(0, |&(_, e)| e)
    }
}

/// A NAND channel shared by a few dies ("lanes"), with the semantics of a [`Timeline`] (a
/// booking takes the earliest gap at or after its ready time that fits it) but kept per lane.
///
/// A die runs one operation at a time, and every channel transfer of a die starts after the
/// die's previous transfers ended: so each lane's bookings are appended in time order, and a
/// new booking of lane `a` can only collide with the other lanes' bookings. Those are scanned
/// from a cursor per (lane, other lane) that only moves forward, because a lane's ready times
/// never go back. A booking then costs O(lanes) plus amortised O(1), where a single sorted
/// list of all bookings (thousands deep while GC books a whole block's copies ahead) costs a
/// search and an insertion shift.
///
/// Most bookings collide with only the last few of the channel, though: a channel of three
/// lanes or more also keeps its latest [`RECENT`] bookings merged across lanes, and the latest
/// end of all the others. A booking ready at or after that end needs only the short list,
/// walked without a look at the lanes. Of the bookings before the tail, that is all but 197 of
/// 6.9 million in the DFTL benchmark case (`emmc-4.5`, four dies on a channel), and 91 % in the
/// GC-heavy one (`mqsim-match`). The lane walk remains for the others.
#[derive(Debug, Clone)]
pub(crate) struct Channel {
    /// The latest end of any booking so far, on any lane. A booking ready at or after it
    /// collides with nothing and starts when ready, without a look at the lanes: the common
    /// case on a DRAM-less device whose dies wait on each other's map-page reads.
    tail: Ns,
    /// The channel's latest bookings on all lanes, disjoint and in time order: the first
    /// `recent_len` entries. Its last entry ends at `tail`. (Empty on one or two lanes.)
    recent: [(Ns, Ns); RECENT],
    recent_len: usize,
    /// The latest end of any booking not in `recent` (0 if none): a booking ready at or after
    /// it can only collide with those in `recent`.
    before_recent: Ns,
    lanes: Vec<Lane>,
    /// `cursor[a * lanes + b]`: index in lane `b`'s vector of its first booking that may end
    /// after lane `a`'s next ready time.
    cursor: Vec<usize>,
    /// Per lane, `book_in_gap`'s search position (kept here so that a booking allocates nothing).
    gap_next: Vec<usize>,
}

/// How many of its latest bookings a [`Channel`] keeps in one list across lanes. Eight was the
/// fastest of 1-32 on booking traces of the DFTL (`emmc-4.5`) and GC-heavy (`mqsim-match`)
/// benchmark cases: deeper lists cost more to keep than the searches they save.
const RECENT: usize = 8;

#[derive(Debug, Clone, Default)]
struct Lane {
    /// This lane's bookings in time order, disjoint from every other lane's. Those before
    /// `head` ended before the last prune; they are dropped in batches, so that pruning does
    /// not shift the vector each time.
    busy: Vec<(Ns, Ns)>,
    head: usize,
}

impl Channel {
    pub(crate) fn new(lanes: u32) -> Channel {
        let n = lanes.max(1) as usize;
        Channel {
            tail: 0,
            recent: [(0, 0); RECENT],
            recent_len: 0,
            before_recent: 0,
            lanes: vec![Lane::default(); n],
            cursor: vec![0; n * n],
            gap_next: vec![0; n],
        }
    }

    /// Forget bookings that ended at or before `now` (nothing is booked before `now` again).
    pub(crate) fn prune(&mut self, now: Ns) {
        let n = self.lanes.len();
        for (b, l) in self.lanes.iter_mut().enumerate() {
            while l.busy.get(l.head).is_some_and(|&(_, e)| e <= now) {
                l.head += 1;
            }
            if l.head >= 64 && l.head * 2 >= l.busy.len() {
                let h = l.head;
                l.busy.drain(..h);
                l.head = 0;
                for a in 0..n {
                    let c = &mut self.cursor[a * n + b];
                    *c = c.saturating_sub(h);
                }
            }
        }
    }

    /// Book `dur` for `lane` at the earliest time >= `ready` where the channel is free; returns
    /// the end time. `ready` must not be before the end of the lane's previous booking.
    #[inline(always)]
    pub(crate) fn book(&mut self, lane: usize, ready: Ns, dur: Ns) -> Ns {
        if dur == 0 {
            return ready;
        }
        hot_assert!(
            self.lanes[lane].busy.last().is_none_or(|&(_, e)| e <= ready),
            "lane {lane}'s bookings must go forward in time: one ready at {ready} ns after one ending at {:?}",
            self.lanes[lane].busy.last()
        );
        // At or after `tail` nothing is booked; the cursors are only lower bounds, so leaving
        // them behind changes no result (the next search skips what they missed). The lane
        // count is looked at once for both branches on it.
        let merged = self.merged();
        let start = if ready >= self.tail {
            ready
        } else if merged {
            if ready >= self.before_recent {
                self.fit_recent(ready, dur)
            } else {
                self.fit_many(lane, ready, dur)
            }
        } else if self.lanes.len() == 2 {
            self.fit_two(lane, ready, dur)
        } else {
            ready
        };
        let end = start + dur;
        self.booked(merged, start, end);
        let own = &mut self.lanes[lane];
        match own.busy[own.head..].last_mut() {
            // Touching the lane's previous booking: extend it.
            Some(last) if last.1 == start => last.1 = end,
            _ => own.busy.push((start, end)),
        }
        end
    }

    /// Earliest start >= `ready` for `dur` around the bookings in `recent` (`ready` is at or
    /// after `before_recent`, so no other booking ends after it).
    #[inline(always)]
    fn fit_recent(&self, ready: Ns, dur: Ns) -> Ns {
        let mut start = ready;
        for &(s, e) in &self.recent[..self.recent_len] {
            if e > start {
                if s >= start + dur {
                    break;
                }
                start = e;
            }
        }
        start
    }

    /// Whether the channel keeps `recent`: three lanes or more. (With two, the one other
    /// lane's walk is as short as `recent`'s, and keeping the list cost the hybrid benchmark
    /// case, two dies on a channel, 6 % more instructions.)
    #[inline(always)]
    fn merged(&self) -> bool {
        self.lanes.len() > 2
    }

    /// Note the booking `start..end` in `tail`, and in `recent` when the channel keeps it
    /// (`merged`, [`Channel::merged`]).
    #[inline(always)]
    fn booked(&mut self, merged: bool, start: Ns, end: Ns) {
        if merged {
            self.remember(start, end);
        } else {
            self.tail = self.tail.max(end);
        }
    }

    /// Add the booking `start..end` (placed where it collides with no other) to `recent` and
    /// `tail`, or to `before_recent` when it is older than all of `recent`.
    #[inline(always)]
    fn remember(&mut self, start: Ns, end: Ns) {
        let n = self.recent_len;
        if start < self.tail {
            return self.remember_in_gap(start, end);
        }
        self.tail = end;
        if n > 0 && self.recent[n - 1].1 == start {
            self.recent[n - 1].1 = end;
        } else {
            self.insert_recent(n, start, end);
        }
    }

    /// [`Channel::remember`] of a booking that went into a gap before the tail.
    #[inline(always)]
    fn remember_in_gap(&mut self, start: Ns, end: Ns) {
        // Bookings are disjoint, so `recent[..i]` are the ones before this booking. A booking
        // in a gap is nearly always among the oldest of `recent`: searched from the front.
        let n = self.recent_len;
        let i = self.recent[..n].iter().position(|&(s, _)| s > start).unwrap_or(n);
        if i == 0 && n == RECENT {
            self.before_recent = self.before_recent.max(end);
        } else {
            self.insert_recent(i, start, end);
        }
    }

    /// Put `start..end` into `recent` before entry `i`; a full list first hands its oldest
    /// entry over to `before_recent` (so `i` must be above 0 then).
    #[inline(always)]
    fn insert_recent(&mut self, i: usize, start: Ns, end: Ns) {
        let n = self.recent_len;
        if n < RECENT {
            self.recent.copy_within(i..n, i + 1);
            self.recent[i] = (start, end);
            self.recent_len = n + 1;
        } else {
            self.before_recent = self.before_recent.max(self.recent[0].1);
            // Usually a few entries: moved one by one, not through a `memmove` call.
            for j in 1..i {
                self.recent[j - 1] = self.recent[j];
            }
            self.recent[i - 1] = (start, end);
        }
    }

    /// Earliest start >= `ready` for `dur` around the one other lane's bookings.
    #[inline(always)]
    fn fit_two(&mut self, lane: usize, ready: Ns, dur: Ns) -> Ns {
        let other = 1 - lane;
        let ci = lane * 2 + other;
        let o = &self.lanes[other];
        let mut c = self.cursor[ci].max(o.head);
        let mut start = ready;
        while let Some(&(s, e)) = o.busy.get(c) {
            if e > start {
                if s >= start + dur {
                    break;
                }
                start = e;
            }
            c += 1;
        }
        self.cursor[ci] = c;
        start
    }

    /// Earliest start >= `ready` for `dur`: walk the other lanes' bookings in start order (they
    /// are disjoint, so this is also end order), skipping those that end by `start`.
    /// A lane whose last booking ends by `start` is passed over without a walk (its cursor
    /// goes to its end), and the search stops as soon as `start` reaches the channel's tail.
    fn fit_many(&mut self, lane: usize, ready: Ns, dur: Ns) -> Ns {
        let n = self.lanes.len();
        let tail = self.tail;
        let mut start = ready;
        loop {
            let mut best: Option<(usize, Ns, Ns)> = None;
            for other in (0..n).filter(|&o| o != lane) {
                let ci = lane * n + other;
                let o = &self.lanes[other];
                if o.busy.last().is_none_or(|&(_, e)| e <= start) {
                    self.cursor[ci] = o.busy.len();
                    continue;
                }
                let mut c = self.cursor[ci].max(o.head);
                while o.busy.get(c).is_some_and(|&(_, e)| e <= start) {
                    c += 1;
                }
                self.cursor[ci] = c;
                if let Some(&(s, e)) = o.busy.get(c) {
                    if best.is_none_or(|(_, bs, _)| s < bs) {
                        best = Some((other, s, e));
                    }
                }
            }
            match best {
                Some((other, s, e)) if s < start + dur => {
                    start = e;
                    self.cursor[lane * n + other] += 1;
                    if start >= tail {
                        return start;
                    }
                }
                _ => return start,
            }
        }
    }

    /// Book `dur` for `lane` in the earliest gap at or after `ready` where the channel is free,
    /// even before the lane's last booking (the transfer of a read that goes ahead of work
    /// already booked on its die, [`crate::read_priority`]); returns the end time. Rare, so it
    /// searches every lane from scratch and leaves the cursors alone: they stay lower bounds
    /// (a booking inserted before a cursor ends before the time it was moved to).
    #[cold]
    pub(crate) fn book_in_gap(&mut self, lane: usize, ready: Ns, dur: Ns) -> Ns {
        if dur == 0 {
            return ready;
        }
        let next = &mut self.gap_next;
        for (n, l) in next.iter_mut().zip(&self.lanes) {
            *n = l.head + l.busy[l.head..].partition_point(|&(_, e)| e <= ready);
        }
        let mut start = ready;
        loop {
            // The earliest booking on any lane that ends after `start`.
            let mut first: Option<(usize, Ns, Ns)> = None;
            for (i, l) in self.lanes.iter().enumerate() {
                while l.busy.get(next[i]).is_some_and(|&(_, e)| e <= start) {
                    next[i] += 1;
                }
                if let Some(&(s, e)) = l.busy.get(next[i]) {
                    if first.is_none_or(|(_, fs, _)| s < fs) {
                        first = Some((i, s, e));
                    }
                }
            }
            match first {
                Some((i, s, e)) if s < start + dur => {
                    start = e;
                    next[i] += 1;
                }
                _ => break,
            }
        }
        let end = start + dur;
        self.booked(self.merged(), start, end);
        let own = &mut self.lanes[lane];
        let at = own.head + own.busy[own.head..].partition_point(|&(s, _)| s < start);
        own.busy.insert(at, (start, end));
        end
    }

    /// End of the last booking on the channel (0 if none).
    #[cfg(test)]
    fn last_end(&self) -> Ns {
        self.lanes.iter().filter_map(|l| l.busy[l.head..].last().map(|&(_, e)| e)).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{RngCore, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

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

    /// A `Channel` books exactly where a single `Timeline` would, for lanes whose bookings go
    /// forward in time, with pruning and bookings into gaps (`book_in_gap`) in between.
    #[test]
    fn channel_matches_timeline() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x2545_f491_4f6c_dd1d);
        let mut rnd = |m: u64| rng.next_u64() % m;
        for lanes in 1..=8usize {
            for _ in 0..50 {
                let mut t = Timeline::default();
                let mut c = Channel::new(lanes as u32);
                let mut free = vec![0; lanes];
                let mut pruned = 0;
                for _ in 0..2000 {
                    let lane = rnd(lanes as u64) as usize;
                    let gap = if rnd(3) == 0 { 0 } else { rnd(100) };
                    let ready = free[lane] + gap;
                    let dur = rnd(40);
                    if rnd(8) == 0 {
                        // A transfer booked into a gap, possibly before the lane's last booking.
                        let ready = pruned + rnd(free[lane] - pruned + 1);
                        let end = t.book(ready, dur);
                        assert_eq!(c.book_in_gap(lane, ready, dur), end, "lanes {lanes}: gap ready {ready} dur {dur}");
                        free[lane] = free[lane].max(end);
                        continue;
                    }
                    let end = t.book(ready, dur);
                    assert_eq!(c.book(lane, ready, dur), end, "lanes {lanes}: ready {ready} dur {dur}");
                    // The lane is busy a while longer (a program after its transfer) or not.
                    free[lane] = end + if rnd(2) == 0 { 0 } else { rnd(200) };
                    if rnd(10) == 0 {
                        let now = *free.iter().min().unwrap();
                        t.prune(now);
                        c.prune(now);
                        pruned = now;
                    }
                }
                assert_eq!(c.last_end(), t.last_end());
            }
        }
    }

    #[test]
    fn busy_until_serialises() {
        let mut d = BusyUntil::default();
        assert_eq!(d.run(10, 5), (10, 15));
        assert_eq!(d.run(0, 5), (15, 20));
    }
}
