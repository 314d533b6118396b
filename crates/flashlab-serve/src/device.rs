//! The served device: one owner of the simulator, the data store and the power-cut model.
//!
//! Every request takes the lock only to submit to the simulator (with its arrival time on the
//! scaled real clock) and to move its data; the lock is released before the worker thread
//! sleeps until the modeled completion, so up to as many requests as there are FUSE worker
//! threads are in flight at once, and the simulator sees them in arrival order.

use crate::clock::SimClock;
use crate::powercut::{PowerCut, PowerModel};
use crate::stats::{Kind, Latencies, PowerStats, Snapshot};
use crate::store::Store;
use flashsim::{Completion, Device, Ns, Op, Request, SECTOR};
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Inner {
    dev: Device,
    store: Store,
    power: PowerModel,
    /// Latest arrival time given to the simulator (its clock must not go back).
    last: Ns,
    power_cuts: u64,
    lost_bytes: u64,
    /// Simulated time the device has been busy (see [`Snapshot::busy_ns`]).
    busy_ns: Ns,
    /// Where that busy time ends so far: the latest completion or booked work, simulated ns.
    busy_until: Ns,
    /// The latest `done` of any request submitted so far (what the host last saw complete).
    last_done: Ns,
    /// Simulated time the device's clock has skipped (host gaps; see
    /// [`ServedDevice::skip_host_gaps`]): the device's time is the clock's less this.
    skipped: Ns,
}

pub struct ServedDevice {
    clock: SimClock,
    size: u64,
    profile: String,
    volatile: bool,
    /// The profile's simulated host-stack costs (submit, complete), in simulated ns.
    host_stack: (Ns, Ns),
    inner: Mutex<Inner>,
    latencies: Mutex<Latencies>,
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    /// Powered off (after `power_off`): every request fails with EIO until `power_on`.
    off: AtomicBool,
    /// Skip gaps shorter than this (real time) between a completion and the next request
    /// when the device is otherwise empty; see [`ServedDevice::skip_host_gaps`].
    skip_gaps_under: Option<Duration>,
}

fn einval() -> io::Error {
    io::Error::from_raw_os_error(libc::EINVAL)
}

/// The sector-aligned request the simulator sees for the byte range `[offset, offset + len)`.
fn aligned(op: Op, offset: u64, len: u64) -> Request {
    let start = offset / SECTOR * SECTOR;
    let end = (offset + len).div_ceil(SECTOR) * SECTOR;
    Request::new(op, start, end - start)
}

impl ServedDevice {
    /// `size`: the bytes exposed, at most the device's logical capacity. `volatile`: whether
    /// unflushed writes are lost on a power cut (within the profile's write buffer).
    pub fn new(dev: Device, store: Store, clock: SimClock, volatile: bool) -> ServedDevice {
        let window = if volatile { u64::from(dev.profile().ftl.write_buffer_kib) * 1024 } else { 0 };
        let profile = dev.profile().name.clone();
        let us = |u: f64| (u * 1000.0).round() as Ns;
        let host_stack = (us(dev.profile().host.host_submit_us), us(dev.profile().host.host_complete_us));
        ServedDevice {
            clock,
            size: store.size(),
            profile,
            volatile,
            host_stack,
            inner: Mutex::new(Inner {
                dev,
                store,
                power: PowerModel::new(window),
                last: 0,
                power_cuts: 0,
                lost_bytes: 0,
                busy_ns: 0,
                busy_until: 0,
                last_done: 0,
                skipped: 0,
            }),
            latencies: Mutex::new(Latencies::default()),
            in_flight: AtomicU64::new(0),
            max_in_flight: AtomicU64::new(0),
            off: AtomicBool::new(false),
            skip_gaps_under: None,
        }
    }

    /// Run the device's clock without the host's short gaps: a request that finds the device
    /// empty, less than `under` (real time) after the last completion, arrives on the device's
    /// clock at that completion, as from a host that costs nothing beyond the profile's host
    /// stack. A slow serving host (a VM without hardware virtualisation spends about a
    /// millisecond of its own between two requests) otherwise hands the device free time a
    /// phone never gives it, in which it finishes buffered programs and map write-backs.
    /// Longer gaps stay, as idle time (the device's background work needs them). Answers still
    /// come the model's latency after each request's real arrival.
    pub fn skip_host_gaps(mut self, under: Duration) -> ServedDevice {
        self.skip_gaps_under = Some(under);
        self
    }

    /// The device's clock now: the serve clock less the gaps skipped.
    fn device_now(&self, g: &Inner) -> Ns {
        self.clock.now().saturating_sub(g.skipped).max(g.last)
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Submit under the lock with `f` doing the data part; returns the model's completion and
    /// the real instant to answer at.
    fn submit<T>(
        &self,
        req: &Request,
        f: impl FnOnce(&mut Inner) -> io::Result<T>,
    ) -> io::Result<(Completion, Instant, T)> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if self.off.load(Ordering::Relaxed) {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        let mut now = self.device_now(&g);
        if let Some(under) = self.skip_gaps_under {
            // Only this request in the device, and a short gap since the last completion.
            let alone = self.in_flight.load(Ordering::Relaxed) <= 1;
            let from = g.last_done.max(g.last);
            let gap = now.saturating_sub(from);
            if alone && gap > 0 && (gap as f64 / self.clock.scale()) < under.as_nanos() as f64 {
                g.skipped += gap;
                now = from;
            }
        }
        g.last = now;
        let c = g.dev.submit(now, req).map_err(|_| einval())?;
        g.last_done = g.last_done.max(c.done);
        let answer = self.clock.real_at(c.done + g.skipped);
        // Busy from the arrival until the request is answered or, if later, until the device
        // has done the work it booked (a buffered write's program, the GC it set off): what a
        // host with no gaps between requests would wait for. Requests are submitted in order of
        // arrival, so the union of these intervals grows at its end only.
        let end = c.done.max(g.dev.busy_until());
        if end > g.busy_until {
            g.busy_ns += end - c.submitted.max(g.busy_until);
            g.busy_until = end;
        }
        let out = f(&mut g)?;
        Ok((c, answer, out))
    }

    /// Sleep until the modeled completion (`done`, which includes the profile's simulated
    /// host-stack costs; `answer` on the real clock) and record the latencies and the model's
    /// parts of it.
    fn complete(&self, kind: Kind, arrival: Instant, c: &Completion, answer: Instant) {
        self.clock.sleep_until(answer);
        let real = arrival.elapsed().as_nanos() as u64;
        self.latencies.lock().unwrap_or_else(|p| p.into_inner()).record(kind, c, self.host_stack.0, real);
    }

    fn enter(&self) -> InFlight<'_> {
        let n = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_in_flight.fetch_max(n, Ordering::Relaxed);
        InFlight(&self.in_flight)
    }

    /// Read into `buf` from `offset`; returns the bytes read (short at the end of the device).
    /// Returns after the modeled completion time.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let arrival = Instant::now();
        let len = (buf.len() as u64).min(self.size.saturating_sub(offset)) as usize;
        if len == 0 {
            return Ok(0);
        }
        let _f = self.enter();
        let req = aligned(Op::Read, offset, len as u64);
        let (c, answer, ()) = self.submit(&req, |g| g.store.read(offset, &mut buf[..len]))?;
        self.complete(Kind::Read, arrival, &c, answer);
        Ok(len)
    }

    /// Write `data` at `offset` (it must fit inside the device).
    pub fn write(&self, offset: u64, data: &[u8]) -> io::Result<usize> {
        let arrival = Instant::now();
        let len = data.len() as u64;
        if offset.checked_add(len).is_none_or(|e| e > self.size) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        if len == 0 {
            return Ok(0);
        }
        let _f = self.enter();
        let req = aligned(Op::Write, offset, len);
        let (c, answer, ()) = self.submit(&req, |g| {
            let Inner { store, power, .. } = g;
            power.before_write(store, offset, len)?;
            store.write(offset, data)
        })?;
        self.complete(Kind::Write, arrival, &c, answer);
        Ok(data.len())
    }

    /// TRIM `[offset, offset + len)`: reads as zeros afterwards. The simulator unmaps the whole
    /// 4 KiB units inside the range.
    pub fn trim(&self, offset: u64, len: u64) -> io::Result<()> {
        let arrival = Instant::now();
        if offset >= self.size || len == 0 {
            return Ok(());
        }
        let len = len.min(self.size - offset);
        let _f = self.enter();
        let req = aligned(Op::Trim, offset, len);
        let (c, answer, ()) = self.submit(&req, |g| {
            g.store.zero(offset, len)?;
            g.power.trimmed(offset, len);
            Ok(())
        })?;
        self.complete(Kind::Trim, arrival, &c, answer);
        Ok(())
    }

    /// Write zeros over `[offset, offset + len)` (fallocate ZERO_RANGE): a write to the model.
    pub fn write_zeroes(&self, offset: u64, len: u64) -> io::Result<()> {
        let arrival = Instant::now();
        if offset.checked_add(len).is_none_or(|e| e > self.size) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        if len == 0 {
            return Ok(());
        }
        let _f = self.enter();
        let req = aligned(Op::Write, offset, len);
        let (c, answer, ()) = self.submit(&req, |g| {
            let Inner { store, power, .. } = g;
            power.before_write(store, offset, len)?;
            store.zero(offset, len)
        })?;
        self.complete(Kind::Write, arrival, &c, answer);
        Ok(())
    }

    /// FLUSH the device's write cache: on return, everything written before the call is
    /// persisted (and the backing file, if any, is synced).
    pub fn flush(&self) -> io::Result<()> {
        let arrival = Instant::now();
        let _f = self.enter();
        let req = Request::new(Op::Flush, 0, 0);
        let (c, answer, ()) = self.submit(&req, |g| {
            // Writes that arrived before the flush are persisted by it.
            g.power.flushed();
            g.store.sync()
        })?;
        self.complete(Kind::Flush, arrival, &c, answer);
        Ok(())
    }

    /// Simulate a power loss: unflushed data within the write buffer is lost (see
    /// [`crate::powercut`]). Without a volatile cache nothing is lost.
    pub fn power_cut(&self) -> io::Result<PowerCut> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let Inner { store, power, .. } = &mut *g;
        let cut = power.power_cut(store)?;
        g.power_cuts += 1;
        g.lost_bytes += cut.lost_bytes;
        Ok(cut)
    }

    /// Lose power and stay off: like [`ServedDevice::power_cut`], then every request fails
    /// with EIO until [`ServedDevice::power_on`] (so a filesystem above cannot write its
    /// in-memory state back after the cut, as it could not on a real machine).
    pub fn power_off(&self) -> io::Result<PowerCut> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        self.off.store(true, Ordering::Relaxed);
        let Inner { store, power, .. } = &mut *g;
        let cut = power.power_cut(store)?;
        g.power_cuts += 1;
        g.lost_bytes += cut.lost_bytes;
        Ok(cut)
    }

    pub fn power_on(&self) {
        self.off.store(false, Ordering::Relaxed);
    }

    pub fn is_off(&self) -> bool {
        self.off.load(Ordering::Relaxed)
    }

    pub fn snapshot(&self) -> Snapshot {
        let latencies = self.latencies.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let now = self.device_now(&g);
        g.last = now;
        // Let the device do its idle-time work up to now, so the counters are current.
        g.dev.idle_until(now);
        Snapshot {
            profile: self.profile.clone(),
            size_bytes: self.size,
            time_scale: self.clock.scale(),
            uptime_s: self
                .clock
                .real_at(now + g.skipped)
                .saturating_duration_since(self.clock.real_at(0))
                .as_secs_f64(),
            sim_now_ns: now,
            in_flight: self.in_flight.load(Ordering::Relaxed),
            max_in_flight: self.max_in_flight.load(Ordering::Relaxed),
            counters: g.dev.counters(),
            state: g.dev.state(),
            power: PowerStats {
                volatile_cache: self.volatile,
                window_bytes: g.power.window(),
                at_risk_bytes: g.power.at_risk_bytes(),
                power_cuts: g.power_cuts,
                lost_bytes: g.lost_bytes,
                powered_off: self.is_off(),
            },
            host_submit_ns: self.host_stack.0,
            host_complete_ns: self.host_stack.1,
            busy_ns: g.busy_ns,
            skipped_ns: g.skipped,
            latencies,
        }
    }
}

/// Counts a request in flight while alive.
struct InFlight<'a>(&'a AtomicU64);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashsim::Profile;

    fn toy() -> Profile {
        let text = flashsim::builtin::TOY.to_string();
        Profile::from_toml("toy.toml", &text).unwrap()
    }

    fn served(scale: f64, volatile: bool) -> ServedDevice {
        let (dev, _, _) =
            flashlab_lab::precondition::device(&toy(), 1, flashlab_lab::precondition::Precondition::Fresh).unwrap();
        let store = Store::memory(dev.logical_bytes());
        ServedDevice::new(dev, store, SimClock::new(scale), volatile)
    }

    #[test]
    fn reads_back_and_answers_no_earlier_than_the_model() {
        let d = served(1.0, false);
        let data = vec![0xabu8; 4096];
        let t = Instant::now();
        d.write(8192, &data).unwrap();
        let took = t.elapsed().as_nanos() as u64;
        let s = d.snapshot();
        let model = s.latencies.get(Kind::Write).model.max();
        assert!(took >= model, "answered after {took} ns, the model says {model} ns");
        let mut back = vec![0u8; 4096];
        assert_eq!(d.read(8192, &mut back).unwrap(), 4096);
        assert_eq!(back, data);
        assert_eq!(s.counters.host_write_bytes, 4096);
    }

    /// Busy time is the union of the requests' simulated intervals: serial requests with real
    /// gaps between them add their latencies only; requests in flight together count once.
    #[test]
    fn busy_time_leaves_out_the_gaps_and_counts_overlaps_once() {
        let d = served(1.0, false);
        let data = vec![7u8; 4096];
        d.write(0, &data).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        d.write(1 << 20, &data).unwrap();
        let s = d.snapshot();
        let model = s.latencies.get(Kind::Write).model.sum() as u64;
        assert!(s.busy_ns >= model, "two serial writes: busy {} >= the sum of their latencies {model}", s.busy_ns);
        assert!(s.sim_now_ns > s.busy_ns + 15_000_000, "the 20 ms gap is not busy time: {s:?}");

        // Four writes at once. The device's clock runs 100 times slower than real time here,
        // so each write is in the device for tens of real milliseconds and the four overlap
        // even when the machine is slow to start a thread (at real time they did not always,
        // on a loaded machine: busy time was the plain sum).
        let d = std::sync::Arc::new(served(0.01, false));
        let start = std::sync::Arc::new(std::sync::Barrier::new(4));
        let threads: Vec<_> = (0..4u64)
            .map(|i| {
                let (d, start) = (d.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    d.write(i << 20, &vec![1u8; 65536]).unwrap();
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let s = d.snapshot();
        let model = s.latencies.get(Kind::Write).model.sum() as u64;
        assert!(s.busy_ns < model && s.busy_ns >= s.latencies.get(Kind::Write).model.max(), "{s:?}");
    }

    /// With host gaps skipped, a request after a short gap arrives on the device's clock at
    /// the last completion; a gap longer than the limit stays idle time.
    #[test]
    fn short_host_gaps_are_skipped_long_ones_kept() {
        let gap = std::time::Duration::from_millis(20);
        let run = |limit_ms: u64| {
            let d = served(1.0, false).skip_host_gaps(std::time::Duration::from_millis(limit_ms));
            let data = vec![7u8; 4096];
            d.write(0, &data).unwrap();
            std::thread::sleep(gap);
            d.write(1 << 20, &data).unwrap();
            d.snapshot()
        };
        let s = run(50);
        assert!(s.skipped_ns >= 19_000_000, "a 20 ms gap under a 50 ms limit is skipped: {s:?}");
        assert!(s.sim_now_ns < 10_000_000, "the device's clock left the gap out: {s:?}");
        let s = run(5);
        // (Only the moment from the clock's start to the first request is skipped.)
        assert!(s.skipped_ns < 5_000_000, "a 20 ms gap over a 5 ms limit stays: {s:?}");
        assert!(s.sim_now_ns >= 19_000_000, "{s:?}");
    }

    #[test]
    fn unaligned_io_and_bounds() {
        let d = served(1000.0, false);
        d.write(100, b"hello").unwrap();
        let mut b = [0u8; 7];
        d.read(99, &mut b).unwrap();
        assert_eq!(&b, b"\0hello\0");
        let mut tail = [0u8; 16];
        assert_eq!(d.read(d.size() - 4, &mut tail).unwrap(), 4);
        assert!(d.write(d.size() - 2, b"abc").is_err());
    }

    #[test]
    fn trim_counts_and_zeroes() {
        let d = served(1000.0, false);
        d.write(0, &vec![1u8; 65536]).unwrap();
        d.trim(0, 32768).unwrap();
        let mut b = vec![9u8; 65536];
        d.read(0, &mut b).unwrap();
        assert!(b[..32768].iter().all(|&x| x == 0));
        assert!(b[32768..].iter().all(|&x| x == 1));
        assert_eq!(d.snapshot().counters.host_trim_bytes, 32768);
    }

    #[test]
    fn power_cut_through_the_device() {
        let d = served(1000.0, true);
        d.write(0, &vec![1u8; 4096]).unwrap();
        d.flush().unwrap();
        d.write(4096, &vec![2u8; 4096]).unwrap();
        let cut = d.power_cut().unwrap();
        assert_eq!(cut.lost_bytes, 4096);
        let mut b = vec![9u8; 8192];
        d.read(0, &mut b).unwrap();
        assert!(b[..4096].iter().all(|&x| x == 1));
        assert!(b[4096..].iter().all(|&x| x == 0));
    }

    #[test]
    fn powered_off_fails_every_request_until_on() {
        let d = served(1000.0, true);
        d.write(0, &vec![1u8; 4096]).unwrap();
        assert_eq!(d.power_off().unwrap().lost_bytes, 4096);
        let mut b = vec![0u8; 4096];
        assert_eq!(d.read(0, &mut b).unwrap_err().raw_os_error(), Some(libc::EIO));
        assert_eq!(d.write(0, &b).unwrap_err().raw_os_error(), Some(libc::EIO));
        assert_eq!(d.flush().unwrap_err().raw_os_error(), Some(libc::EIO));
        d.power_on();
        d.read(0, &mut b).unwrap();
        assert!(b.iter().all(|&x| x == 0));
    }
}
