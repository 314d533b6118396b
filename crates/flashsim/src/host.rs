//! The host interface: the host software stack's cost per request, the device's command queue
//! (eMMC: one command at a time; eMMC CQ and UFS: 32 slots; NVMe: deep queues), the
//! controller's per-command firmware time, and the host bus (half duplex for eMMC, full duplex
//! for UFS and NVMe).

use crate::nand::{us, xfer_ns};
use crate::profile::{Profile, MAP_UNIT};
use crate::sorted_ring::TimeQueue;
use crate::timeline::{BusyUntil, Ns, Timeline};

/// Commands in flight that the host interface keeps in a sorted ring (a deeper queue of them
/// goes to a heap): the engine's closed loops keep up to 32 in flight by default.
const IN_FLIGHT_RING: usize = 64;

/// Direction of a bus transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    ToDevice,
    ToHost,
}

/// The host interface of a device: its command queue, controller and bus, with the host
/// stack's costs around each request. [`crate::Device::host`] shows it read-only.
#[derive(Debug, Clone)]
pub struct HostInterface {
    /// Commands the device accepts at once (the profile's `host.queue_depth` or the
    /// interface's default).
    pub queue_depth: u32,
    /// Completion times of the commands in the queue slots.
    in_flight: TimeQueue<()>,
    controller: BusyUntil,
    /// `bus[0]` carries writes; `bus[1]` reads when full duplex, else everything uses `bus[0]`.
    bus: [Timeline; 2],
    full_duplex: bool,
    pub(crate) unit_bus_xfer: Ns,
    bus_mb_s: f64,
    pub(crate) command_overhead: Ns,
    /// Host software stack time per request before the command reaches the device, ns.
    pub host_submit: Ns,
    /// Host software stack time per request after the device completes it, ns.
    pub host_complete: Ns,
    trim_ns_per_unit: f64,
    /// The exit latency of the CPU idle state the host sleeps in while it waits for one
    /// command alone, ns: a property of the system the device ships in (its SoC's idle levels
    /// and its kernel's PM QoS vote), set with [`crate::Device::set_idle_exit`]; 0 by default.
    pub idle_exit: Ns,
    /// The spread of the host stack's costs (`host.host_jitter`), if the profile has one.
    jitter: Option<Box<Jitter>>,
}

/// The host stack's cost per request drawn from a quantile function of factors
/// (`host.host_jitter`): inverse-transform sampling, linear between the table's points, with a
/// generator of its own seeded from the device's seed (the same seed, the same draws).
#[derive(Debug, Clone)]
struct Jitter {
    /// (quantile, factor), quantiles rising.
    points: Vec<(f64, f64)>,
    /// xorshift64* state (never 0).
    state: u64,
    /// The factor drawn for the request in progress: its completion costs the same multiple
    /// of `host_complete` as its submission did of `host_submit` (the measured spread is that
    /// of a whole request's round trip, so one draw per request keeps it).
    current: f64,
    /// The smallest factor: no request's cost is below the median times this.
    min_factor: f64,
}

impl Jitter {
    fn new(points: &[[f64; 2]], seed: u64) -> Jitter {
        let points: Vec<(f64, f64)> = points.iter().map(|&[q, f]| (q, f)).collect();
        let min_factor = points[0].1;
        // SplitMix64 of the seed, so that seeds 1, 2, 3 start far apart; never 0.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Jitter { points, state: (z ^ (z >> 31)) | 1, min_factor, current: 1.0 }
    }

    /// A factor drawn from the quantile function.
    fn factor(&mut self) -> f64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        let u = (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
        let p = &self.points;
        if u <= p[0].0 {
            return p[0].1;
        }
        for w in p.windows(2) {
            let ((q0, f0), (q1, f1)) = (w[0], w[1]);
            if u <= q1 {
                return f0 + (f1 - f0) * (u - q0) / (q1 - q0);
            }
        }
        p[p.len() - 1].1
    }
}

impl HostInterface {
    pub(crate) fn new(p: &Profile, seed: u64) -> HostInterface {
        let h = &p.host;
        HostInterface {
            queue_depth: p.queue_depth(),
            in_flight: TimeQueue::new(IN_FLIGHT_RING),
            controller: BusyUntil::default(),
            bus: [Timeline::default(), Timeline::default()],
            full_duplex: h.interface.full_duplex(),
            unit_bus_xfer: xfer_ns(MAP_UNIT, h.bus_mb_s),
            bus_mb_s: h.bus_mb_s,
            command_overhead: us(h.command_overhead_us),
            host_submit: us(h.host_submit_us),
            host_complete: us(h.host_complete_us),
            trim_ns_per_unit: h.trim_us_per_mib * 1000.0 / 256.0,
            idle_exit: 0,
            jitter: h.host_jitter.as_deref().map(|pts| Box::new(Jitter::new(pts, seed))),
        }
    }

    /// This request's host stack cost before the command reaches the device: `host_submit`,
    /// or with a jitter table a draw from it.
    #[inline(always)]
    pub(crate) fn draw_submit(&mut self) -> Ns {
        match &mut self.jitter {
            None => self.host_submit,
            Some(j) => {
                j.current = j.factor();
                (self.host_submit as f64 * j.current).round() as Ns
            }
        }
    }

    /// This request's host stack cost after the device completes it: `host_complete`, or with a
    /// jitter table the same multiple of it as the request's submit cost.
    #[inline(always)]
    pub(crate) fn draw_complete(&mut self) -> Ns {
        match &mut self.jitter {
            None => self.host_complete,
            Some(j) => (self.host_complete as f64 * j.current).round() as Ns,
        }
    }

    /// The host CPU's exit from idle after a command: a command that found no other in
    /// flight (`alone`) is all the host waits for, so the CPU sleeps until it completes and
    /// its completion interrupt pays `idle_exit`; with other commands outstanding the CPU is
    /// counted awake.
    #[inline(always)]
    pub(crate) fn idle_exit(&self, alone: bool) -> Ns {
        if alone {
            self.idle_exit
        } else {
            0
        }
    }

    /// The least any request's submit cost can be: later requests submitted at the same time
    /// reach the device no earlier than this after it.
    #[inline]
    pub(crate) fn min_submit(&self) -> Ns {
        match &self.jitter {
            None => self.host_submit,
            Some(j) => (self.host_submit as f64 * j.min_factor).floor() as Ns,
        }
    }

    /// A command reaches the device at `t`; returns when the device has a slot for it.
    #[inline(always)]
    pub(crate) fn admit(&mut self, t: Ns) -> Ns {
        self.in_flight.pop_until(t, |()| {});
        if self.in_flight.len() >= self.queue_depth as usize {
            return self.in_flight.pop_first().expect("queue full yet empty").0;
        }
        t
    }

    /// The command admitted earlier completes at `done` and frees its slot then.
    #[inline(always)]
    pub(crate) fn retire_at(&mut self, done: Ns) {
        self.in_flight.insert(done, ());
    }

    /// The controller's firmware handles the command; returns when it is done with it.
    #[inline]
    pub(crate) fn command(&mut self, t: Ns) -> Ns {
        self.controller.run(t, self.command_overhead).1
    }

    /// Book `bytes` on the bus at or after `ready`; returns (start, end).
    #[inline]
    pub(crate) fn transfer(&mut self, dir: Dir, ready: Ns, bytes: u64) -> (Ns, Ns) {
        // A 4 KiB transfer is the common case: skip the float arithmetic (same value).
        let dur = if bytes == MAP_UNIT { self.unit_bus_xfer } else { xfer_ns(bytes, self.bus_mb_s) };
        let lane = usize::from(self.full_duplex && dir == Dir::ToHost);
        let end = self.bus[lane].book(ready, dur);
        (end - dur, end)
    }

    /// Controller time to unmap `units` units.
    pub(crate) fn trim_cost(&self, units: u64) -> Ns {
        (units as f64 * self.trim_ns_per_unit).round() as Ns
    }

    pub(crate) fn prune(&mut self, now: Ns) {
        for b in &mut self.bus {
            b.prune(now);
        }
    }
}
