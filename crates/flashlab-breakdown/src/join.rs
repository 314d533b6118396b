//! Joining block-layer events with the requests flashlab submitted: per request, the first
//! `block_bio_queue` (Q) of a bio inside its sectors, the first `block_rq_issue` (D) that
//! overlaps them, and the last `block_rq_complete` (C) that overlaps them, all inside the
//! request's own time window [submit − tolerance, done + tolerance] and in its direction.
//!
//! Matching by sector range and time rather than by order handles completions that come back
//! out of order (queue depth > 1), requests the block layer merged (one D/C covering several
//! user requests: each gets the merged request's D and C), requests it split (several D/C for
//! one user request: the first D, the last C), and other processes' I/O on the same device
//! (outside the request's sectors or window). Events are indexed by sector, so the join costs
//! O(log n) per request plus the events at the same sectors.

use crate::events::{BlockEvent, Kind};
use crate::Dir;

/// Slack allowed between flashlab's clock readings and the kernel's event timestamps (both
/// CLOCK_MONOTONIC; the slack covers the readings' own cost). A phase may come out negative by
/// at most this much.
pub const TOLERANCE_NS: u64 = 2_000;

/// One request flashlab submitted, in device sectors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserIo {
    /// Read or write.
    pub dir: Dir,
    /// CLOCK_MONOTONIC ns just before the submit call.
    pub submit: u64,
    /// CLOCK_MONOTONIC ns just after the reap call that returned it.
    pub done: u64,
    /// Device sector ranges [start, start + count) the request covers (more than one when a
    /// file's extents split it).
    pub ranges: Vec<(u64, u64)>,
}

/// The kernel's timestamps of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Joined {
    /// CLOCK_MONOTONIC ns just before the submit call.
    pub submit: u64,
    /// `block_rq_queue` (Q), ns.
    pub queue: u64,
    /// `block_rq_issue` (D), ns.
    pub issue: u64,
    /// `block_rq_complete` (C), ns.
    pub complete: u64,
    /// CLOCK_MONOTONIC ns just after the reap call that returned it.
    pub done: u64,
    /// A `block_rq_insert` was seen between Q and D (the request went through a scheduler or
    /// software queue rather than straight to the driver).
    pub inserted: bool,
}

impl Joined {
    /// The four phases in ns (signed: a phase can come out slightly negative within
    /// [`TOLERANCE_NS`]): submit→Q, Q2D, D2C, C→user.
    pub fn phases(&self) -> [i64; 4] {
        let d = |a: u64, b: u64| b as i64 - a as i64;
        [
            d(self.submit, self.queue),
            d(self.queue, self.issue),
            d(self.issue, self.complete),
            d(self.complete, self.done),
        ]
    }

    /// Submit to reap, ns.
    pub fn total(&self) -> u64 {
        self.done - self.submit
    }
}

/// Why a request was not joined.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Unmatched {
    /// Requests with no `block_rq_queue` event.
    pub no_queue: u64,
    /// Requests with no `block_rq_issue` event.
    pub no_issue: u64,
    /// Requests with no `block_rq_complete` event.
    pub no_complete: u64,
}

impl Unmatched {
    /// Requests not joined, all reasons.
    pub fn total(&self) -> u64 {
        self.no_queue + self.no_issue + self.no_complete
    }
}

/// Events of one kind, sorted by sector, with the largest size seen (for overlap search).
struct Index<'a> {
    ev: Vec<&'a BlockEvent>,
    max_len: u64,
}

impl<'a> Index<'a> {
    fn new(events: &'a [BlockEvent], kind: Kind, dev: u32) -> Index<'a> {
        let mut ev: Vec<&BlockEvent> = events.iter().filter(|e| e.kind == kind && e.dev == dev).collect();
        ev.sort_by_key(|e| (e.sector, e.ts));
        let max_len = ev.iter().map(|e| u64::from(e.nr_sector)).max().unwrap_or(0);
        Index { ev, max_len }
    }

    /// Events whose sectors overlap [start, end).
    fn overlapping(&self, start: u64, end: u64) -> impl Iterator<Item = &&'a BlockEvent> {
        let lo = start.saturating_sub(self.max_len);
        let i = self.ev.partition_point(|e| e.sector < lo);
        self.ev[i..]
            .iter()
            .take_while(move |e| e.sector < end)
            .filter(move |e| e.sector + u64::from(e.nr_sector).max(1) > start)
    }
}

fn dir_matches(e: &BlockEvent, d: Dir) -> bool {
    match d {
        Dir::Read => e.read && !e.write,
        Dir::Write => e.write,
    }
}

/// Join `users` with the block events of device `dev` (kernel dev_t); returns, per request,
/// its timestamps or `None`, and the reasons for the misses.
pub fn join(users: &[UserIo], events: &[BlockEvent], dev: u32) -> (Vec<Option<Joined>>, Unmatched) {
    let q = Index::new(events, Kind::Queue, dev);
    let ins = Index::new(events, Kind::Insert, dev);
    let d = Index::new(events, Kind::Issue, dev);
    let c = Index::new(events, Kind::Complete, dev);
    let mut miss = Unmatched::default();
    let out = users
        .iter()
        .map(|u| {
            let lo = u.submit.saturating_sub(TOLERANCE_NS);
            let hi = u.done + TOLERANCE_NS;
            let in_win = |e: &BlockEvent, from: u64| e.ts >= from && e.ts <= hi && dir_matches(e, u.dir);
            // Q: a bio of this request lies inside one of its ranges.
            let queue = u
                .ranges
                .iter()
                .flat_map(|&(s, n)| {
                    q.overlapping(s, s + n).filter(move |e| e.sector >= s && e.sector + u64::from(e.nr_sector) <= s + n)
                })
                .filter(|e| in_win(e, lo))
                .map(|e| e.ts)
                .min();
            let Some(queue) = queue else {
                miss.no_queue += 1;
                return None;
            };
            let issue = u
                .ranges
                .iter()
                .flat_map(|&(s, n)| d.overlapping(s, s + n))
                .filter(|e| in_win(e, queue))
                .map(|e| e.ts)
                .min();
            let Some(issue) = issue else {
                miss.no_issue += 1;
                return None;
            };
            let complete = u
                .ranges
                .iter()
                .flat_map(|&(s, n)| c.overlapping(s, s + n))
                .filter(|e| in_win(e, issue))
                .map(|e| e.ts)
                .max();
            let Some(complete) = complete else {
                miss.no_complete += 1;
                return None;
            };
            let inserted = u
                .ranges
                .iter()
                .flat_map(|&(s, n)| ins.overlapping(s, s + n))
                .any(|e| e.ts >= queue && e.ts <= issue && dir_matches(e, u.dir));
            Some(Joined { submit: u.submit, queue, issue, complete, done: u.done, inserted })
        })
        .collect();
    (out, miss)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: u32 = 7 << 20;

    fn ev(kind: Kind, ts: u64, sector: u64, nr: u32, write: bool) -> BlockEvent {
        BlockEvent { kind, ts, dev: DEV, sector, nr_sector: nr, write, read: !write, flags: 0 }
    }

    fn user(dir: Dir, submit: u64, done: u64, sector: u64, n: u64) -> UserIo {
        UserIo { dir, submit, done, ranges: vec![(sector, n)] }
    }

    #[test]
    fn one_request_gets_its_phases() {
        let events = [
            ev(Kind::Queue, 1_100, 800, 8, false),
            ev(Kind::Issue, 1_300, 800, 8, false),
            ev(Kind::Complete, 9_300, 800, 8, false),
        ];
        let (j, miss) = join(&[user(Dir::Read, 1_000, 10_000, 800, 8)], &events, DEV);
        assert_eq!(miss.total(), 0);
        let j = j[0].unwrap();
        assert_eq!(j.phases(), [100, 200, 8_000, 700]);
        assert_eq!(j.phases().iter().sum::<i64>(), j.total() as i64);
        assert!(!j.inserted);
    }

    #[test]
    fn out_of_order_completions() {
        // Three requests in flight; they complete in the order 3, 1, 2 and the events arrive
        // interleaved, not in request order.
        let users = [
            user(Dir::Write, 0, 50_000, 0, 8),
            user(Dir::Write, 0, 60_000, 1_000, 8),
            user(Dir::Write, 0, 40_000, 2_000, 8),
        ];
        let events = [
            ev(Kind::Complete, 35_000, 2_000, 8, true),
            ev(Kind::Queue, 3_000, 2_000, 8, true),
            ev(Kind::Issue, 2_500, 1_000, 8, true),
            ev(Kind::Queue, 1_000, 0, 8, true),
            ev(Kind::Queue, 2_000, 1_000, 8, true),
            ev(Kind::Issue, 1_500, 0, 8, true),
            ev(Kind::Issue, 3_500, 2_000, 8, true),
            ev(Kind::Complete, 45_000, 0, 8, true),
            ev(Kind::Complete, 55_000, 1_000, 8, true),
        ];
        let (j, miss) = join(&users, &events, DEV);
        assert_eq!(miss.total(), 0);
        assert_eq!(j[0].unwrap().phases(), [1_000, 500, 43_500, 5_000]);
        assert_eq!(j[1].unwrap().phases(), [2_000, 500, 52_500, 5_000]);
        assert_eq!(j[2].unwrap().phases(), [3_000, 500, 31_500, 5_000]);
    }

    #[test]
    fn merged_requests_share_d_and_c() {
        // Two adjacent 4 KiB writes were merged into one 8 KiB request (one I, D and C).
        let users = [user(Dir::Write, 0, 30_000, 100, 8), user(Dir::Write, 500, 30_500, 108, 8)];
        let events = [
            ev(Kind::Queue, 1_000, 100, 8, true),
            ev(Kind::Insert, 1_200, 100, 8, true),
            ev(Kind::Queue, 1_500, 108, 8, true),
            ev(Kind::Issue, 4_000, 100, 16, true),
            ev(Kind::Complete, 24_000, 100, 16, true),
        ];
        let (j, miss) = join(&users, &events, DEV);
        assert_eq!(miss.total(), 0);
        let (a, b) = (j[0].unwrap(), j[1].unwrap());
        assert_eq!((a.issue, a.complete), (4_000, 24_000));
        assert_eq!((b.issue, b.complete), (4_000, 24_000));
        assert_eq!(a.queue, 1_000);
        assert_eq!(b.queue, 1_500);
        assert!(a.inserted);
    }

    #[test]
    fn split_request_takes_first_issue_and_last_complete() {
        let users = [user(Dir::Read, 0, 100_000, 0, 2048)];
        let events = [
            ev(Kind::Queue, 1_000, 0, 2048, false),
            ev(Kind::Issue, 2_000, 0, 1024, false),
            ev(Kind::Issue, 2_500, 1024, 1024, false),
            ev(Kind::Complete, 60_000, 0, 1024, false),
            ev(Kind::Complete, 90_000, 1024, 1024, false),
        ];
        let (j, _) = join(&users, &events, DEV);
        assert_eq!(j[0].unwrap().phases(), [1_000, 1_000, 88_000, 10_000]);
    }

    #[test]
    fn foreign_io_and_misses() {
        // Another process's I/O at the same sectors but before this request, on another device
        // and in the other direction are all ignored; a request without a completion is a miss.
        let users = [user(Dir::Read, 10_000, 20_000, 64, 8), user(Dir::Read, 30_000, 40_000, 500, 8)];
        let mut other_dev = ev(Kind::Queue, 11_000, 64, 8, false);
        other_dev.dev = 8 << 20;
        let events = [
            ev(Kind::Queue, 1_000, 64, 8, false),
            ev(Kind::Issue, 1_100, 64, 8, false),
            ev(Kind::Complete, 5_000, 64, 8, false),
            other_dev,
            ev(Kind::Queue, 11_500, 64, 8, true),
            ev(Kind::Queue, 12_000, 64, 8, false),
            ev(Kind::Issue, 12_500, 64, 8, false),
            ev(Kind::Complete, 18_000, 64, 8, false),
            ev(Kind::Queue, 31_000, 500, 8, false),
            ev(Kind::Issue, 31_500, 500, 8, false),
        ];
        let (j, miss) = join(&users, &events, DEV);
        assert_eq!(j[0].unwrap().phases(), [2_000, 500, 5_500, 2_000]);
        assert!(j[1].is_none());
        assert_eq!(miss, Unmatched { no_queue: 0, no_issue: 0, no_complete: 1 });
    }
}
