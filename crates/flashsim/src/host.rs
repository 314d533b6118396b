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
}

impl HostInterface {
    pub(crate) fn new(p: &Profile) -> HostInterface {
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
