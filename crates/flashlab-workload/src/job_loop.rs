//! One job's issue loop, the same for every target, as fio's `backend.c` drives any of its
//! I/O engines: which request goes out next (a verification's read-back, a due flush, or the
//! job's next I/O), and why the job stops issuing for now (its depth is in flight, a think
//! time, its rate, flow control, a latency probe's quiesce, a queue draining to
//! `iodepth_low`, or the end of the job).
//!
//! A [`Target`] only sends what it is given: the simulated system (its completion time is
//! known when it is sent) or a real engine's slots (known when reaped). The driver around the
//! loop only waits for what [`JobLoop::fill`] says the job waits for: the simulator's event
//! queue jumps its virtual clock there, a real job's thread blocks in the engine's reap or
//! sleeps. The order of the checks is fio's `do_io`: the job's end, flow control, then
//! `get_io_u` (a verify backlog's read-back, a due `fsync`, the rate, the offset).

use crate::job::{Done, JobCore, JobSettings, Timing};
use flashlab_jobs::Rw;

/// What a job's target does with the requests [`JobLoop::fill`] gives it.
pub trait Target {
    /// What sending can fail with.
    type Error;

    /// fio's flow check before a request (`flow_threshold_exceeded`): may the job issue one
    /// more? When it may, it is counted in its flow. Without flow control: always.
    #[inline(always)]
    fn flow_go(&mut self) -> bool {
        true
    }

    /// The target may have read-backs to send ([`Target::read_back`]); false lets a job
    /// without the options that act between its requests take the loop's short path.
    #[inline(always)]
    fn may_read_back(&self) -> bool {
        true
    }

    /// Send a read-back of the job's verification if one is due now, before its next I/O;
    /// true when one was sent. `stopped`: the job has ended its own I/O (a target that reads
    /// everything back after the writes sends that pass's reads then).
    #[inline(always)]
    fn read_back(&mut self, _core: &mut JobCore, _stopped: bool, _now: u64) -> Result<bool, Self::Error> {
        Ok(false)
    }

    /// The job's file, offset in its span and length of the job's next I/O in direction
    /// `dir` ([`JobCore::draw`]; a target that prefetches draws ahead with the same
    /// generator). `None`: every file is done.
    #[inline(always)]
    fn draw(&mut self, core: &mut JobCore, dir: u8) -> Option<(usize, u64, u64)> {
        core.draw(dir)
    }

    /// Send a flush of the job's file `file` at `now`.
    fn flush(&mut self, core: &mut JobCore, file: usize, now: u64) -> Result<(), Self::Error>;

    /// Send the job's next I/O at `now`. The target counts it with [`JobCore::issued`] at the
    /// length it sends, before anything else draws from the job's generators (the pacing
    /// draws there). [`Sent::End`]: nothing was sent and the job ends (fio's zoned mode at the
    /// end of its zones).
    fn io(&mut self, core: &mut JobCore, set: &JobSettings, io: Io, now: u64) -> Result<Sent, Self::Error>;

    /// A request went out and `in_flight` are now outstanding (the simulated host counts its
    /// queue depth per request here; a real engine counts per submit call).
    #[inline(always)]
    fn sent(&mut self, _core: &mut JobCore, _in_flight: u32) {}
}

/// One I/O of a job: direction `dir` (0 read, 1 write, 2 trim), `len` bytes at `off` in the
/// span of the job's file `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// 0 read, 1 write, 2 trim.
    pub dir: u8,
    /// Index of the job's file.
    pub file: usize,
    /// Offset in the file's span.
    pub off: u64,
    /// Bytes.
    pub len: u64,
}

/// What [`Target::io`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    /// The request is in flight.
    Io,
    /// Nothing was sent: the job ends.
    End,
}

/// Why [`JobLoop::fill`] stopped issuing: what the job waits for before it issues again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Its depth is in flight (a pending rate wake-up takes one place): a completion.
    Full,
    /// A completion: a latency probe's quiesce, a queue draining to `iodepth_low`, or flow
    /// control waiting for the I/O in flight before its `flow_sleep`.
    Wait,
    /// fio's think time is due: once nothing is in flight, the driver waits `thinktime` and
    /// calls [`JobLoop::thought`].
    Think,
    /// fio's `rate`: the next I/O may go at this time (the driver calls [`JobLoop::woke`] then).
    Rate(u64),
    /// Flow control holds the job back ([`JobLoop::flow_held`] says what the driver does).
    Flow,
    /// The job issues nothing more; what is in flight completes.
    Stopped,
}

/// What a job held back by flow control does next (fio's `flow_sleep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowHold {
    /// Nothing to do now.
    No,
    /// Try again as soon as another job of its flow has moved (no `flow_sleep`).
    Retry,
    /// Nothing is in flight: sleep this long, then call [`JobLoop::woke`] and fill again.
    Sleep(u64),
}

/// One job while it runs: its [`JobCore`] and the state of its queue.
#[derive(Debug)]
pub struct JobLoop {
    /// What the job issues, when it stops, and how its completions are measured.
    pub core: JobCore,
    /// Requests sent and not completed.
    in_flight: u32,
    /// fio's `iodepth_low` (the depth when not set).
    low: u32,
    /// The most the target keeps in flight, whatever the job's depth (psync: one).
    limit: u32,
    /// The queue was full: completions are not replaced until no more than `low` are in flight.
    draining: bool,
    /// A rate's or a flow sleep's wake-up is pending: nothing is issued before it.
    wake: bool,
    /// Flow control held the job back at its last request.
    flow_blocked: bool,
    /// The one direction of every request of a job with none of the options that act between
    /// its requests (no think time, flush, flow, rate, steady-state window, latency probe or
    /// `iodepth_low`, and one kind of I/O): the loop sends its next request without looking at
    /// them. `None` for any other job.
    plain: Option<u8>,
    /// Held back with a `flow_sleep`: waiting for the I/O in flight before the sleep.
    flow_quiesce: bool,
}

impl JobLoop {
    /// The loop of a job with `core`, whose settings are `set`.
    pub fn new(core: JobCore, set: &JobSettings) -> JobLoop {
        JobLoop::limited(core, set, u32::MAX)
    }

    /// [`JobLoop::new`] on a target that keeps at most `limit` requests in flight whatever
    /// the job's `iodepth` (fio's psync: one).
    pub fn limited(core: JobCore, set: &JobSettings, limit: u32) -> JobLoop {
        let depth = set.iodepth.max(1).min(limit.max(1));
        let low = set.job.as_ref().map_or(0, |j| j.iodepth_low);
        let low = if low == 0 { depth } else { low.min(depth) };
        let bare = set.thinktime_ns == 0
            && set.fsync_every == 0
            && set.flow().is_none()
            && !set.verifies()
            && core.unpaced()
            && low == depth;
        let plain = match set.rw {
            _ if !bare => None,
            Rw::Read | Rw::RandRead => Some(0),
            Rw::Write | Rw::RandWrite => Some(1),
            Rw::Trim | Rw::RandTrim => Some(2),
            Rw::ReadWrite | Rw::RandRw | Rw::TrimWrite => None,
        };
        JobLoop {
            core,
            in_flight: 0,
            low,
            limit: limit.max(1),
            draining: false,
            wake: false,
            flow_blocked: false,
            flow_quiesce: false,
            plain,
        }
    }

    /// The requests the job keeps in flight now: the probe's depth or `iodepth`, within the
    /// target's limit.
    #[inline(always)]
    pub fn depth(&self, set: &JobSettings) -> u32 {
        self.core.depth(set).min(self.limit)
    }

    /// Requests sent and not completed.
    #[inline(always)]
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Letting a full queue drain to `iodepth_low`: the driver reaps as from a full queue.
    #[inline]
    pub fn draining(&self) -> bool {
        self.draining
    }

    /// A rate's or flow sleep's wake-up is pending.
    #[inline(always)]
    pub fn waking(&self) -> bool {
        self.wake
    }

    /// Nothing is in flight or pending and the job issues nothing more.
    #[inline(always)]
    pub fn done(&self) -> bool {
        self.in_flight == 0 && !self.wake && self.core.stopped()
    }

    /// One request went out.
    #[inline(always)]
    fn count_sent<T: Target>(&mut self, tgt: &mut T) {
        self.in_flight += 1;
        self.core.counted_for_think();
        tgt.sent(&mut self.core, self.in_flight);
    }

    /// Send requests at `now` until the job's depth is in flight or something holds it back;
    /// says what.
    #[inline(always)]
    pub fn fill<T: Target>(&mut self, set: &JobSettings, tgt: &mut T, now: u64) -> Result<Hold, T::Error> {
        match self.plain {
            Some(dir) if !tgt.may_read_back() => self.fill_plain(set, tgt, now, dir),
            _ => self.fill_all(set, tgt, now),
        }
    }

    /// [`JobLoop::fill`] for a job with none of the options that act between its requests
    /// (no think time, flush, flow, rate, probe or `iodepth_low`, one kind of I/O, no read-backs):
    /// the checks [`JobLoop::fill_all`] makes that such a job cannot
    /// meet are skipped (the simulator's hot path: a request per completion).
    #[inline(always)]
    fn fill_plain<T: Target>(&mut self, set: &JobSettings, tgt: &mut T, now: u64, dir: u8) -> Result<Hold, T::Error> {
        while self.in_flight < self.depth(set) {
            if self.core.stops(set, now) || !self.send_next(set, tgt, dir, now)? {
                return Ok(Hold::Stopped);
            }
        }
        Ok(Hold::Full)
    }

    /// Draw the job's next I/O in direction `dir` and send it; false when the job ends
    /// instead (every file done, or the target ends it).
    #[inline(always)]
    fn send_next<T: Target>(&mut self, set: &JobSettings, tgt: &mut T, dir: u8, now: u64) -> Result<bool, T::Error> {
        let Some((file, off, len)) = tgt.draw(&mut self.core, dir) else {
            return Ok(false);
        };
        match tgt.io(&mut self.core, set, Io { dir, file, off, len }, now)? {
            Sent::Io => {
                self.count_sent(tgt);
                Ok(true)
            }
            Sent::End => {
                self.core.stop();
                Ok(false)
            }
        }
    }

    /// [`JobLoop::fill`] for any job.
    fn fill_all<T: Target>(&mut self, set: &JobSettings, tgt: &mut T, now: u64) -> Result<Hold, T::Error> {
        if self.draining {
            if self.in_flight + u32::from(self.wake) > self.low {
                return Ok(Hold::Wait);
            }
            self.draining = false;
        }
        loop {
            if self.in_flight + u32::from(self.wake) >= self.depth(set) {
                return Ok(Hold::Full);
            }
            if self.core.stopped() {
                if tgt.read_back(&mut self.core, true, now)? {
                    self.count_sent(tgt);
                    continue;
                }
                return Ok(Hold::Stopped);
            }
            if self.core.must_think(set) {
                return Ok(Hold::Think);
            }
            if self.core.probing() && self.core.quiesced() {
                return Ok(Hold::Wait);
            }
            if self.core.stops(set, now) {
                return Ok(Hold::Stopped);
            }
            if self.flow_quiesce {
                return Ok(Hold::Wait);
            }
            if !tgt.flow_go() {
                self.flow_blocked = true;
                return Ok(Hold::Flow);
            }
            if tgt.read_back(&mut self.core, false, now)? {
                self.count_sent(tgt);
                continue;
            }
            if self.core.flush_due(set) {
                // The file of the last write (the job's first before any).
                let file = self.core.last_write_file;
                tgt.flush(&mut self.core, file, now)?;
                self.count_sent(tgt);
                continue;
            }
            if self.wake {
                return Ok(Hold::Wait);
            }
            let dir = self.core.next_dir(set);
            if let Some(due) = self.core.rate_wait(dir, now) {
                self.wake = true;
                return Ok(Hold::Rate(due));
            }
            if !self.send_next(set, tgt, dir, now)? {
                return Ok(Hold::Stopped);
            }
        }
    }

    /// A request came back: `done` is what it was, `bytes` what it transferred of `len`
    /// asked, `timing` when and how long. Call in completion order.
    #[inline]
    pub fn complete(&mut self, set: &JobSettings, done: Done, bytes: u64, len: u64, timing: Timing) {
        self.returned(set);
        self.core.completed(done, bytes, timing.at);
        self.core.measure(set, done, bytes, len, timing);
    }

    /// A request came back without being measured (an error the job goes on after).
    #[inline]
    pub fn returned(&mut self, set: &JobSettings) {
        // A pending wake-up takes a place in the queue (as in `fill`).
        if self.low < self.depth(set) && self.in_flight + u32::from(self.wake) >= self.depth(set) {
            // The queue was full: let it drain to iodepth_low before filling it again.
            self.draining = true;
        }
        self.in_flight -= 1;
    }

    /// The job's wake-up came (its rate's turn, or the end of its flow sleep).
    #[inline]
    pub fn woke(&mut self) {
        self.wake = false;
    }

    /// The job has thought: it may issue again.
    #[inline]
    pub fn thought(&mut self) {
        self.core.thought();
    }

    /// After a [`Hold::Flow`] or [`Hold::Wait`]: what flow control has the job do (fio waits
    /// for its I/Os in flight, then sleeps `flow_sleep`; without one it retries when another
    /// job of its flow moves).
    pub fn flow_held(&mut self, set: &JobSettings) -> FlowHold {
        let sleep = set.flow().map_or(0, |f| f.2);
        if sleep == 0 {
            return if std::mem::take(&mut self.flow_blocked) { FlowHold::Retry } else { FlowHold::No };
        }
        // A pending wake-up counts as a request in flight: the flow sleep follows it.
        let busy = self.in_flight + u32::from(self.wake);
        if !(self.flow_blocked || (self.flow_quiesce && busy == 0)) {
            return FlowHold::No;
        }
        self.flow_blocked = false;
        if busy == 0 {
            self.flow_quiesce = false;
            self.wake = true;
            FlowHold::Sleep(sleep)
        } else {
            self.flow_quiesce = true;
            FlowHold::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashlab_jobs::{Job, Rw};
    use std::sync::Arc;

    /// A target where every request takes `lat` ns and requests complete in the order sent;
    /// it records what was sent and how many were in flight then.
    struct Fake {
        lat: u64,
        /// (done, what, len, submitted): 0/1/2 an I/O's direction, 3 a flush.
        queue: std::collections::VecDeque<(u64, u8, u64, u64)>,
        /// In flight after each request went out.
        depths: Vec<u32>,
        flushes: Vec<usize>,
        /// What [`Target::may_read_back`] says (true: the loop never takes its short path).
        reads_back: bool,
        /// Every I/O sent: (direction, offset, length).
        ios: Vec<(u8, u64, u64)>,
    }

    impl Target for Fake {
        type Error = ();
        fn may_read_back(&self) -> bool {
            self.reads_back
        }
        fn flush(&mut self, _: &mut JobCore, file: usize, now: u64) -> Result<(), ()> {
            self.flushes.push(file);
            self.queue.push_back((now + self.lat, 3, 0, now));
            Ok(())
        }
        fn io(&mut self, core: &mut JobCore, set: &JobSettings, io: Io, now: u64) -> Result<Sent, ()> {
            core.issued(set, io.dir, io.len, io.file);
            self.ios.push((io.dir, io.off, io.len));
            let at = self.queue.back().map_or(now, |b| b.0.max(now)) + self.lat;
            self.queue.push_back((at, io.dir, io.len, now));
            Ok(Sent::Io)
        }
        fn sent(&mut self, _: &mut JobCore, in_flight: u32) {
            self.depths.push(in_flight);
        }
    }

    /// Run `set` on a [`Fake`] to the end as a driver on a virtual clock does; returns the
    /// target and the holds seen.
    fn drive(set: &JobSettings, limit: u32) -> (Fake, Vec<Hold>, JobLoop) {
        drive_on(set, limit, false)
    }

    fn drive_on(set: &JobSettings, limit: u32, reads_back: bool) -> (Fake, Vec<Hold>, JobLoop) {
        let core = JobCore::new(set, &[set.span], 0, false).unwrap();
        let mut jl = JobLoop::limited(core, set, limit);
        let mut f = Fake {
            lat: 1000,
            queue: Default::default(),
            depths: Vec::new(),
            flushes: Vec::new(),
            reads_back,
            ios: Vec::new(),
        };
        let mut holds = Vec::new();
        let mut now = 0;
        loop {
            let hold = jl.fill(set, &mut f, now).unwrap();
            holds.push(hold);
            if hold == Hold::Think && jl.in_flight() == 0 {
                now += set.thinktime_ns;
                jl.thought();
                continue;
            }
            let Some((done, what, len, sub)) = f.queue.pop_front() else { break };
            now = done;
            let d = if what == 3 { Done::Sync } else { Done::Dir(what) };
            jl.complete(set, d, len, len, Timing { at: done, clat: done - sub, lat: done - sub, slat: None, prio: 0 });
        }
        assert!(jl.done(), "nothing in flight and the job stopped at the end");
        (f, holds, jl)
    }

    #[test]
    fn keeps_its_depth_in_flight_and_stops_at_its_budget() {
        let mut s = JobSettings::new("d", Rw::RandWrite, 4096, 4096 * 100);
        s.iodepth = 4;
        let (f, holds, jl) = drive(&s, u32::MAX);
        assert_eq!(f.depths.len(), 100);
        assert_eq!(f.depths.iter().max(), Some(&4));
        // After the first four, each completion is replaced at once.
        assert!(f.depths[3..].iter().all(|&d| d == 4), "{:?}", &f.depths[..10]);
        assert_eq!(holds.last(), Some(&Hold::Stopped));
        assert_eq!(jl.core.finish([]).write.io_bytes, 4096 * 100);
    }

    #[test]
    fn the_short_path_sends_what_the_whole_loop_sends() {
        for (rw, depth) in [(Rw::RandWrite, 1), (Rw::RandRead, 8), (Rw::Write, 4)] {
            let mut s = JobSettings::new("s", rw, 4096, 4096 * 300);
            s.iodepth = depth;
            s.io_limit = Some(4096 * 500);
            let (short, _, a) = drive_on(&s, u32::MAX, false);
            let (whole, _, b) = drive_on(&s, u32::MAX, true);
            assert!(a.plain.is_some() && !short.ios.is_empty());
            assert_eq!(short.ios, whole.ios, "{rw:?} QD{depth}");
            assert_eq!(short.depths, whole.depths);
            assert_eq!(a.core.finish([]), b.core.finish([]));
        }
    }

    #[test]
    fn a_flow_sleep_waits_for_a_pending_rate_wake_up() {
        let mut s = JobSettings::new("w", Rw::RandRead, 4096, 4096 * 10);
        s.iodepth = 4;
        s.job = Some(Arc::new(Job { flow_id: 1, flow: 1, flow_sleep_ns: 5000, ..Job::default() }));
        let mut jl = JobLoop::new(JobCore::new(&s, &[s.span], 0, false).unwrap(), &s);
        // Held back by its flow with nothing in flight but its rate's wake-up pending.
        jl.wake = true;
        jl.flow_blocked = true;
        assert_eq!(jl.flow_held(&s), FlowHold::No, "no sleep before the wake-up");
        assert_eq!(jl.flow_held(&s), FlowHold::No);
        jl.woke();
        assert_eq!(jl.flow_held(&s), FlowHold::Sleep(5000), "then the whole flow sleep");
        assert!(jl.waking());
        jl.woke();
        assert_eq!(jl.flow_held(&s), FlowHold::No);
    }

    #[test]
    fn a_target_limit_caps_the_depth() {
        let mut s = JobSettings::new("p", Rw::RandRead, 4096, 4096 * 50);
        s.iodepth = 32;
        let (f, _, _) = drive(&s, 1);
        assert_eq!(f.depths.iter().max(), Some(&1));
        assert_eq!(f.depths.len(), 50);
    }

    #[test]
    fn a_flush_follows_every_nth_write_on_the_last_written_file() {
        let mut s = JobSettings::new("f", Rw::Write, 4096, 4096 * 30);
        s.fsync_every = 4;
        let (f, _, _) = drive(&s, u32::MAX);
        assert_eq!(f.flushes.len(), 7, "30 writes, a flush after every 4th");
        assert!(f.flushes.iter().all(|&file| file == 0));
    }

    #[test]
    fn iodepth_low_lets_a_full_queue_drain_before_it_refills() {
        let mut s = JobSettings::new("l", Rw::RandRead, 4096, 4096 * 200);
        s.iodepth = 8;
        s.job = Some(Arc::new(Job { iodepth_low: 2, ..Job::default() }));
        let (f, holds, _) = drive(&s, u32::MAX);
        assert!(holds.contains(&Hold::Wait));
        // Once the queue is full, the next request goes out with at most 2 in flight: the
        // depths sent climb 3, 4, ... 8 again and never start from between 3 and 7.
        for w in f.depths.windows(2) {
            assert!(w[1] == w[0] + 1 || w[1] <= 3, "refilled from {} in flight: {:?}", w[1] - 1, &f.depths[..24]);
        }
    }

    #[test]
    fn think_time_waits_for_the_queue_then_the_job_goes_on() {
        let mut s = JobSettings::new("t", Rw::RandWrite, 4096, 4096 * 40);
        s.iodepth = 8;
        s.thinktime_ns = 50_000;
        s.thinktime_blocks = 4;
        let (f, holds, _) = drive(&s, u32::MAX);
        assert!(holds.iter().filter(|h| **h == Hold::Think).count() >= 10);
        // Never more than thinktime_blocks out between two think times.
        assert_eq!(f.depths.iter().max(), Some(&4));
        assert_eq!(f.depths.len(), 40);
    }
}
