//! Timing against closed forms (issue 2, acceptance 4), on the toy profile
//! (`flashsim::builtin::TOY`), modified in code where a test needs another bottleneck or interface.
//! Every expected number below is computed from the profile's parameters with the model's
//! composition of costs (crates/flashsim/src/{device,host,nand,ftl}.rs); none is hard-coded.
//!
//! The model, as these tests read it:
//! - a request submitted at `t` reaches the device at `t + host_submit`, waits for a queue slot
//!   (eMMC without queue: one command at a time), then the controller spends
//!   `command_overhead` on it (one command at a time on the controller);
//! - a read senses the page (tR on the die), moves the 4 KiB out on the NAND channel (the die
//!   holds its page register until then), then over the host bus; a unit that is unmapped or
//!   still in the controller's buffer needs no NAND;
//! - a write moves its data over the host bus; each 4 KiB takes a write-buffer slot; a full
//!   program unit (page x planes) goes to the next die round robin: once the die is free, the
//!   page moves over the channel, then tPROG runs on the die; slots free when tPROG ends;
//! - the application sees the completion `host_complete` after the device signals it.

mod common;

use flashsim::xfer_ns;
use flashsim::{Completion, Device, Interface, Ns, Op, Profile, Request, MAP_UNIT};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Microseconds from a profile to nanoseconds, as the simulator rounds them.
fn ns(us: f64) -> Ns {
    (us * 1000.0).round() as Ns
}

/// The parameters of a profile the closed forms need, in ns and bytes.
struct Params {
    host_submit: Ns,
    host_complete: Ns,
    overhead: Ns,
    t_read: Ns,
    t_prog: Ns,
    /// NAND channel time for one 4 KiB unit.
    ch_unit: Ns,
    /// NAND channel time for one program unit (page x planes).
    ch_page: Ns,
    /// Host bus time for 4 KiB.
    bus_unit: Ns,
    dies: u64,
    channels: u64,
    page_bytes: u64,
    bus_mb_s: f64,
    channel_mb_s: f64,
}

impl Params {
    fn of(p: &Profile) -> Params {
        let units_per_page = u64::from(p.units_per_page());
        let ch_unit = xfer_ns(MAP_UNIT, p.nand.channel_mb_s);
        Params {
            host_submit: ns(p.host.host_submit_us),
            host_complete: ns(p.host.host_complete_us),
            overhead: ns(p.host.command_overhead_us),
            t_read: ns(p.nand.t_read_us),
            t_prog: ns(p.nand.t_prog_us),
            ch_unit,
            // The simulator books a page as units_per_page unit transfers.
            ch_page: units_per_page * ch_unit,
            bus_unit: xfer_ns(MAP_UNIT, p.host.bus_mb_s),
            dies: u64::from(p.nand.channels * p.nand.dies_per_channel),
            channels: u64::from(p.nand.channels),
            page_bytes: units_per_page * MAP_UNIT,
            bus_mb_s: p.host.bus_mb_s,
            channel_mb_s: p.nand.channel_mb_s,
        }
    }

    /// QD1 latency of a 4 KiB read of data on NAND, on an idle device:
    /// host_submit + command_overhead + tR + channel(4 KiB) + bus(4 KiB) + host_complete.
    fn read_latency_nand(&self) -> Ns {
        self.host_submit + self.overhead + self.t_read + self.ch_unit + self.bus_unit + self.host_complete
    }

    /// The same for a unit with no NAND behind it (unwritten, trimmed or buffered):
    /// host_submit + command_overhead + bus(4 KiB) + host_complete.
    fn read_latency_no_nand(&self) -> Ns {
        self.host_submit + self.overhead + self.bus_unit + self.host_complete
    }

    /// Device time of one 4 KiB read (what a one-command-at-a-time interface serialises):
    /// command_overhead + tR + channel(4 KiB) + bus(4 KiB).
    fn read_device_time(&self) -> Ns {
        self.overhead + self.t_read + self.ch_unit + self.bus_unit
    }

    /// Upper bound on 4 KiB random-read IOPS with unlimited queueing: the smallest of
    /// the dies (each busy tR + channel(4 KiB) per read: it keeps the page register until the
    /// data is out), the channels, the host bus (reads on their own lane when full duplex) and
    /// the controller (one command_overhead per command).
    fn random_read_iops_bound(&self) -> f64 {
        let dies = self.dies as f64 / (self.t_read + self.ch_unit) as f64;
        let channels = self.channels as f64 / self.ch_unit as f64;
        let bus = 1.0 / self.bus_unit as f64;
        let controller = 1.0 / self.overhead as f64;
        dies.min(channels).min(bus).min(controller) * 1e9
    }

    /// Sequential write bandwidth, bytes/s, for requests of `req_bytes`, a deep enough queue
    /// and a write buffer that keeps every die busy:
    /// min(bus, controller, NAND), NAND = min(dies x page / (channel(page) + tPROG),
    /// channels x channel rate). A die loads a page over its channel only once it is free
    /// (no cache programming), so the load and tPROG add up per die; dies overlap.
    fn seq_write_bandwidth(&self, req_bytes: u64) -> f64 {
        let bus = self.bus_mb_s * 1e6;
        let controller = req_bytes as f64 / (self.overhead as f64 / 1e9);
        let per_die = self.page_bytes as f64 / ((self.ch_page + self.t_prog) as f64 / 1e9);
        let nand = (self.dies as f64 * per_die).min(self.channels as f64 * self.channel_mb_s * 1e6);
        bus.min(controller).min(nand)
    }
}

/// Keep `depth` requests in flight: the first `depth` are submitted at `start`; each later one
/// is submitted when the earliest outstanding one completes (as the application sees it).
fn closed_loop(dev: &mut Device, start: Ns, depth: usize, reqs: impl IntoIterator<Item = Request>) -> Vec<Completion> {
    let mut in_flight: BinaryHeap<Reverse<Ns>> = BinaryHeap::new();
    let mut out = Vec::new();
    for r in reqs {
        let at = if in_flight.len() < depth { start } else { in_flight.pop().expect("depth >= 1").0 };
        let c = dev.submit(at, &r).expect("valid request in time order");
        in_flight.push(Reverse(c.done));
        out.push(c);
    }
    out
}

/// Operations per second over the completions after the first `warm`, by completion time.
fn rate(done: &[Completion], warm: usize) -> f64 {
    let mut t: Vec<Ns> = done.iter().map(|c| c.done).collect();
    t.sort_unstable();
    let (t0, t1) = (t[warm - 1], t[t.len() - 1]);
    (t.len() - warm) as f64 / ((t1 - t0) as f64 / 1e9)
}

/// Write `bytes` from offset 0 sequentially in 256 KiB requests at QD1, flush; returns when all
/// of it is on NAND.
fn prefill(dev: &mut Device, bytes: u64) -> Ns {
    let chunk = 256 * 1024;
    let mut now = 0;
    let mut off = 0;
    while off < bytes {
        let len = chunk.min(bytes - off);
        now = dev.submit(now, &Request::new(Op::Write, off, len)).unwrap().done;
        off += len;
    }
    dev.submit(now, &Request::new(Op::Flush, 0, 0)).unwrap().done
}

/// `n` 4 KiB reads at uniformly random aligned offsets below `span` bytes.
fn random_reads(span: u64, n: usize, seed: u64) -> Vec<Request> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let units = span / MAP_UNIT;
    (0..n).map(|_| Request::new(Op::Read, (rng.next_u64() % units) * MAP_UNIT, MAP_UNIT)).collect()
}

const SPAN: u64 = 32 << 20;

#[test]
fn qd1_random_read_latency_is_the_sum_of_its_parts() {
    let p = common::toy();
    let k = Params::of(&p);
    let expected = k.read_latency_nand();
    let mut dev = Device::new(&p, 1);
    let t = prefill(&mut dev, SPAN);
    let reads_before = dev.counters().nand_page_reads;
    let done = closed_loop(&mut dev, t, 1, random_reads(SPAN, 2000, 7));
    assert_eq!(dev.counters().nand_page_reads - reads_before, 2000, "every read senses one page");
    for (i, c) in done.iter().enumerate() {
        let lat = c.latency();
        assert!(
            lat.abs_diff(expected) <= 2,
            "read {i}: latency {lat} ns, expected host_submit {} + overhead {} + tR {} + channel {} + bus {} + host_complete {} = {expected} ns",
            k.host_submit,
            k.overhead,
            k.t_read,
            k.ch_unit,
            k.bus_unit,
            k.host_complete
        );
    }
}

#[test]
fn reads_without_nand_data_cost_no_tr() {
    let p = common::toy();
    let k = Params::of(&p);
    let expected = k.read_latency_no_nand();
    let mut dev = Device::new(&p, 1);
    let mut now = prefill(&mut dev, SPAN);
    // Trim 1 MiB of the written span.
    now = dev.submit(now, &Request::new(Op::Trim, 0, 1 << 20)).unwrap().done;
    // One 4 KiB write that stays in the (volatile) write buffer: a page holds more than one unit.
    assert!(p.units_per_page() > 1);
    let buffered = SPAN + (8 << 20);
    now = dev.submit(now, &Request::new(Op::Write, buffered, MAP_UNIT)).unwrap().done;
    let reads_before = dev.counters().nand_page_reads;
    let cases = [("unwritten", SPAN + (64 << 20)), ("trimmed", 512 * 1024), ("buffered", buffered)];
    for (what, off) in cases {
        let c = dev.submit(now, &Request::new(Op::Read, off, MAP_UNIT)).unwrap();
        assert!(
            c.latency().abs_diff(expected) <= 2,
            "{what} read: {} ns, expected host_submit + overhead + bus = {expected} ns (no tR)",
            c.latency()
        );
        now = c.done;
    }
    assert_eq!(dev.counters().nand_page_reads, reads_before, "no NAND reads for units without NAND data");
    // And a written unit, for contrast, does pay tR and the channel.
    let c = dev.submit(now, &Request::new(Op::Read, 2 << 20, MAP_UNIT)).unwrap();
    assert!(c.latency().abs_diff(k.read_latency_nand()) <= 2, "{} vs {}", c.latency(), k.read_latency_nand());
}

/// Sequential 1 MiB writes at QD8 on a fresh device, 64 MiB after 8 MiB of warm-up.
fn seq_write_bandwidth(p: &Profile) -> f64 {
    let req = 1u64 << 20;
    let total = 72u64 << 20;
    let mut dev = Device::new(p, 1);
    let reqs = (0..total / req).map(|i| Request::new(Op::Write, i * req, req));
    let done = closed_loop(&mut dev, 0, 8, reqs);
    assert_eq!(dev.counters().erases, 0, "a fresh device written once needs no GC");
    rate(&done, 8) * req as f64
}

#[test]
fn sequential_write_bandwidth_nand_bound() {
    // The toy as shipped: 4 dies x 8 KiB / (channel 8 KiB + tPROG) ~ 51 MB/s, bus 400 MB/s.
    let p = common::toy();
    let k = Params::of(&p);
    let expected = k.seq_write_bandwidth(1 << 20);
    let nand = k.dies as f64 * k.page_bytes as f64 / ((k.ch_page + k.t_prog) as f64 / 1e9);
    assert_eq!(expected, nand, "this configuration is meant to be NAND-bound");
    let got = seq_write_bandwidth(&p);
    let err = got / expected - 1.0;
    eprintln!("NAND-bound sequential write: {:.3} MB/s, closed form {:.3} MB/s", got / 1e6, expected / 1e6);
    assert!(
        err.abs() < 0.03,
        "NAND-bound sequential write: {:.2} MB/s, closed form {:.2} MB/s ({:+.2} %)",
        got / 1e6,
        expected / 1e6,
        err * 100.0
    );
}

#[test]
fn sequential_write_bandwidth_bus_bound() {
    // A slow host bus (well below the NAND's ~51 MB/s) is the bottleneck.
    let mut p = common::toy();
    p.host.bus_mb_s = 40.0;
    let k = Params::of(&p);
    let expected = k.seq_write_bandwidth(1 << 20);
    assert_eq!(expected, k.bus_mb_s * 1e6, "this configuration is meant to be bus-bound");
    let got = seq_write_bandwidth(&p);
    let err = got / expected - 1.0;
    eprintln!("bus-bound sequential write: {:.3} MB/s, closed form {:.3} MB/s", got / 1e6, expected / 1e6);
    assert!(
        err.abs() < 0.03,
        "bus-bound sequential write: {:.2} MB/s, closed form {:.2} MB/s ({:+.2} %)",
        got / 1e6,
        expected / 1e6,
        err * 100.0
    );
}

#[test]
fn sequential_write_bandwidth_channel_bound() {
    // Fast programs, slow NAND channels shared by two dies each: the channels are the limit.
    let mut p = common::toy();
    p.nand.t_prog_us = 10.0;
    p.nand.channel_mb_s = 100.0;
    let k = Params::of(&p);
    let expected = k.seq_write_bandwidth(1 << 20);
    assert_eq!(expected, k.channels as f64 * k.channel_mb_s * 1e6, "this configuration is meant to be channel-bound");
    let got = seq_write_bandwidth(&p);
    let err = got / expected - 1.0;
    eprintln!("channel-bound sequential write: {:.3} MB/s, closed form {:.3} MB/s", got / 1e6, expected / 1e6);
    assert!(
        err.abs() < 0.03,
        "channel-bound sequential write: {:.2} MB/s, closed form {:.2} MB/s ({:+.2} %)",
        got / 1e6,
        expected / 1e6,
        err * 100.0
    );
}

/// 4 KiB random-read IOPS at `depth` over the written span, after 500 reads of warm-up.
fn random_read_iops(p: &Profile, depth: usize) -> f64 {
    let mut dev = Device::new(p, 1);
    let t = prefill(&mut dev, SPAN);
    let done = closed_loop(&mut dev, t, depth, random_reads(SPAN, 20_000, 11));
    rate(&done, 500)
}

#[test]
fn emmc_without_queue_serialises() {
    let mut p = common::toy();
    p.host.interface = Interface::Emmc;
    p.host.queue_depth = None;
    assert_eq!(p.queue_depth(), 1);
    let k = Params::of(&p);
    let qd1 = random_read_iops(&p, 1);
    let qd8 = random_read_iops(&p, 8);
    let qd1_closed = 1e9 / k.read_latency_nand() as f64;
    // With one command at a time, the device's part of every read is serialised; only the host
    // stack's submit and completion costs overlap with the command before.
    let serial = 1e9 / k.read_device_time() as f64;
    assert!((qd1 / qd1_closed - 1.0).abs() < 1e-3, "QD1 {qd1:.0} IOPS vs 1/latency {qd1_closed:.0}");
    eprintln!(
        "emmc no queue: QD1 {qd1:.0} IOPS (closed form {qd1_closed:.0}), QD8 {qd8:.0} IOPS (closed form {serial:.0})"
    );
    assert!(
        (qd8 / serial - 1.0).abs() < 1e-3,
        "eMMC QD8 {qd8:.0} IOPS vs 1/(overhead + tR + channel + bus) = {serial:.0}: dies must not overlap"
    );

    // Without host stack costs, QD8 on one command slot is exactly QD1.
    p.host.host_submit_us = 0.0;
    p.host.host_complete_us = 0.0;
    let qd1 = random_read_iops(&p, 1);
    let qd8 = random_read_iops(&p, 8);
    assert!((qd8 / qd1 - 1.0).abs() < 1e-3, "no host cost: eMMC QD8 {qd8:.0} IOPS vs QD1 {qd1:.0}");

    // The same device with a command queue overlaps its dies at QD8.
    p.host.interface = Interface::EmmcCq;
    let cq8 = random_read_iops(&p, 8);
    eprintln!("no host cost: emmc QD1 {qd1:.0}, QD8 {qd8:.0}; emmc-cq QD8 {cq8:.0} IOPS");
    assert!(cq8 > 2.0 * qd8, "eMMC CQ QD8 {cq8:.0} IOPS should be well above no-queue QD8 {qd8:.0}");
}

#[test]
fn nvme_qd32_overlaps_dies() {
    let mut p = common::toy();
    p.host.interface = Interface::Nvme;
    p.host.queue_depth = None;
    let k = Params::of(&p);
    let bound = k.random_read_iops_bound();
    let qd1 = random_read_iops(&p, 1);
    let qd32 = random_read_iops(&p, 32);
    let qd1_closed = 1e9 / k.read_latency_nand() as f64;
    assert!((qd1 / qd1_closed - 1.0).abs() < 1e-3, "QD1 {qd1:.0} IOPS vs 1/latency {qd1_closed:.0}");
    assert!(qd32 <= bound * 1.001, "QD32 {qd32:.0} IOPS above the bound {bound:.0}");
    assert!(qd32 >= bound * 0.90, "QD32 {qd32:.0} IOPS, more than 10 % below the bound {bound:.0}");
    // The bound here is the dies working in parallel (each tR + channel per read), not the
    // controller, bus or channels: QD32 keeps them all busy.
    let die_bound = k.dies as f64 * 1e9 / (k.t_read + k.ch_unit) as f64;
    assert_eq!(bound, die_bound, "this configuration is meant to be die-bound");
    assert!(
        qd32 > 0.75 * k.dies as f64 * qd1,
        "QD32 {qd32:.0} IOPS is not a clear speed-up over QD1 {qd1:.0} on {} dies",
        k.dies
    );
    eprintln!(
        "nvme random read: QD1 {qd1:.0} IOPS (closed form {qd1_closed:.0}), QD32 {qd32:.0} IOPS, bound {bound:.0}"
    );
}

/// The host CPU's exit from idle (`Device::set_idle_exit`): at QD1 every request is all the
/// host waits for, so each pays it once on top of the sum of its parts; in a batch submitted at
/// once only the first found the device idle, and at QD8 the requests that find others in
/// flight pay nothing.
#[test]
fn idle_exit_is_paid_by_requests_the_host_waits_for_alone() {
    let p = common::toy();
    let k = Params::of(&p);
    let exit: Ns = 40_000;
    let mut dev = Device::new(&p, 1);
    let t = prefill(&mut dev, SPAN);
    dev.set_idle_exit(exit);
    let done = closed_loop(&mut dev, t, 1, random_reads(SPAN, 200, 7));
    for (i, c) in done.iter().enumerate() {
        assert_eq!(c.idle_exit, exit, "QD1 read {i} waited alone");
        assert!(
            c.latency().abs_diff(k.read_latency_nand() + exit) <= 2,
            "QD1 read {i}: latency {} ns, expected the parts {} + the exit {exit}",
            c.latency(),
            k.read_latency_nand()
        );
        assert_eq!(c.done - c.device_done, k.host_complete + exit);
    }
    let last = done.last().map_or(t, |c| c.done);
    let deep = closed_loop(&mut dev, last, 8, random_reads(SPAN, 400, 9));
    assert_eq!(deep[0].idle_exit, exit, "the first of a batch found the device idle");
    assert!(deep[1..8].iter().all(|c| c.idle_exit == 0), "the rest of the batch found the first in flight");
    let paid = deep.iter().filter(|c| c.idle_exit > 0).count();
    assert!(
        paid < deep.len() / 10,
        "at QD8 the host is rarely waiting for one request alone: {paid} of {}",
        deep.len()
    );
    // Zero (the default) changes nothing.
    let mut plain = Device::new(&p, 1);
    let t = prefill(&mut plain, SPAN);
    let c = closed_loop(&mut plain, t, 1, random_reads(SPAN, 1, 7))[0];
    assert_eq!(c.idle_exit, 0);
    assert_eq!(c.done - c.device_done, k.host_complete);
}
