//! Live statistics of a served device: latency histograms per operation (the model's latency,
//! its device-side parts — queue wait and device service — and the real time from arrival to
//! reply), in-flight requests, power cuts, and the simulator's counters and state, rendered as
//! the `stats.json` file and as the final report.

use flashlab_measure::LatencyHistogram;
use flashlab_results::table::{Cell, Format, Table};
use flashsim::{Completion, Counters, DeviceState, Ns, MAP_UNIT};
use serde::Serialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Trim,
    Flush,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Read, Kind::Write, Kind::Trim, Kind::Flush];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Trim => "trim",
            Kind::Flush => "flush",
        }
    }
}

/// Latencies of one kind of request.
#[derive(Debug, Default, Clone)]
pub struct OpLatency {
    /// `done - submitted` on the simulator's clock: the whole simulated latency, including the
    /// profile's simulated host-stack costs (serve answers at `done`).
    pub model: LatencyHistogram,
    /// `device_done - device_start`: device service (command overhead, bus, NAND, waits for
    /// busy dies) as the simulator accounts it.
    pub device: LatencyHistogram,
    /// `device_start - submitted - host_submit`: waiting for a device command slot.
    pub queue: LatencyHistogram,
    /// Real time from the request's arrival in the server to its reply, in ns of real time.
    pub real: LatencyHistogram,
}

#[derive(Debug, Default, Clone)]
pub struct Latencies {
    ops: [OpLatency; 4],
}

impl Latencies {
    /// Record one request: its model completion `c`, the profile's host submit cost
    /// `host_submit` (simulated ns) and the real time from arrival to reply.
    pub fn record(&mut self, kind: Kind, c: &Completion, host_submit: Ns, real_ns: u64) {
        let o = &mut self.ops[kind as usize];
        o.model.record(c.done - c.submitted);
        o.device.record(c.device_done - c.device_start);
        o.queue.record((c.device_start - c.submitted).saturating_sub(host_submit));
        o.real.record(real_ns);
    }

    pub fn get(&self, kind: Kind) -> &OpLatency {
        &self.ops[kind as usize]
    }
}

/// Power-cut bookkeeping shown in the stats.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PowerStats {
    pub volatile_cache: bool,
    /// Unflushed bytes a power cut loses at most (the write buffer).
    pub window_bytes: u64,
    /// Unflushed bytes a power cut now would lose.
    pub at_risk_bytes: u64,
    pub power_cuts: u64,
    pub lost_bytes: u64,
    /// Off after `poweroff` (requests fail) until `poweron`.
    pub powered_off: bool,
}

/// Everything the stats file shows, taken at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The profile's name.
    pub profile: String,
    /// Bytes exposed by the served device file.
    pub size_bytes: u64,
    /// Simulated seconds per real second.
    pub time_scale: f64,
    /// Real seconds from the start of the server to `sim_now_ns`.
    pub uptime_s: f64,
    /// The simulator's clock at this moment, simulated ns.
    pub sim_now_ns: u64,
    /// Requests in the server not yet answered.
    pub in_flight: u64,
    /// Most requests ever in flight at once.
    pub max_in_flight: u64,
    /// The simulator's counters (host and NAND bytes, GC, erases).
    pub counters: Counters,
    /// The simulator's state (free and total blocks...).
    pub state: DeviceState,
    /// Power-cut bookkeeping.
    pub power: PowerStats,
    /// The profile's simulated host-stack cost on submit per request (part of `model`), simulated ns.
    pub host_submit_ns: Ns,
    /// The profile's simulated host-stack cost on completion per request (part of `model`), simulated ns.
    pub host_complete_ns: Ns,
    /// Simulated time during which the device had a request in it (from its arrival to its
    /// modelled completion, the profile's host stack included) or work a request booked (the
    /// program of a buffered write, the GC it set off): the time the simulated phone would
    /// have spent on these requests with no gaps between them (gaps the serving host's own
    /// stack and the application make). Its difference between two snapshots over a QD1 test
    /// gives the test's speed on the simulated device's clock.
    pub busy_ns: Ns,
    /// Simulated time the device's clock skipped: the serving host's short gaps between a
    /// completion and the next request (`--skip-host-gaps`); 0 without it.
    pub skipped_ns: Ns,
    /// Latency histograms per request kind.
    pub latencies: Latencies,
}

const PCTS: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 100.0];

fn pct_json(h: &LatencyHistogram) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("count".into(), json!(h.count()));
    // Exact, so a reader can take the mean of the requests between two snapshots.
    m.insert("sum_ns".into(), json!(h.sum() as u64));
    if !h.is_empty() {
        m.insert("mean_us".into(), json!(h.mean() / 1000.0));
        for (p, v) in h.percentiles(&PCTS) {
            m.insert(format!("p{p}_us"), json!(v as f64 / 1000.0));
        }
    }
    Value::Object(m)
}

impl Snapshot {
    /// The `stats.json` document: sizes, counters, state, power and latency percentiles (µs).
    pub fn to_json(&self) -> Value {
        let c = &self.counters;
        let mut lat = serde_json::Map::new();
        for k in Kind::ALL {
            let o = self.latencies.get(k);
            lat.insert(
                k.name().into(),
                json!({
                    "model": pct_json(&o.model),
                    "device": pct_json(&o.device),
                    "queue": pct_json(&o.queue),
                    "real": pct_json(&o.real),
                }),
            );
        }
        json!({
            "profile": self.profile,
            "size_bytes": self.size_bytes,
            "time_scale": self.time_scale,
            "uptime_s": self.uptime_s,
            "sim_now_ns": self.sim_now_ns,
            "busy_ns": self.busy_ns,
            "skipped_ns": self.skipped_ns,
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "host_read_bytes": c.host_read_bytes,
            "host_write_bytes": c.host_write_bytes,
            "host_trim_bytes": c.host_trim_bytes,
            "nand_write_bytes": c.nand_units_programmed * MAP_UNIT,
            "waf": c.write_amplification(),
            "gc": {
                "units_copied": c.gc_units_copied,
                "victims_foreground": c.gc_victims_foreground,
                "victims_background": c.gc_victims_background,
                "erases": c.erases,
            },
            "free_blocks": self.state.free_blocks,
            "total_blocks": self.state.total_blocks,
            "counters": c,
            "state": self.state,
            "power": self.power,
            "host_stack": { "submit_us": self.host_submit_ns as f64 / 1000.0, "complete_us": self.host_complete_ns as f64 / 1000.0 },
            "latency": lat,
        })
    }

    /// Per request kind that was served: the count, and the model's and the real (wall-clock)
    /// p50 and p99 latency.
    pub fn latency_table(&self) -> Table {
        let mut t = Table::new(
            "latency",
            &[
                ("request", ""),
                ("count", ""),
                ("model p50", "µs"),
                ("model p99", "µs"),
                ("real p50", "µs"),
                ("real p99", "µs"),
            ],
        )
        .format(1, Format::Fixed(0));
        for k in Kind::ALL {
            let o = self.latencies.get(k);
            if o.real.is_empty() {
                continue;
            }
            let p = |h: &LatencyHistogram, q: f64| Cell::Num(h.percentile(q) as f64 / 1000.0);
            t.row(vec![
                k.name().into(),
                o.real.count().into(),
                p(&o.model, 50.0),
                p(&o.model, 99.0),
                p(&o.real, 50.0),
                p(&o.real, 99.0),
            ]);
        }
        t
    }

    /// The report printed when the server stops (at most 80 columns wide).
    pub fn render_text(&self) -> String {
        let c = &self.counters;
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        let mut s = format!(
            "flashlab serve: final report ({}, {:.1} s real, time scale {})\n",
            self.profile, self.uptime_s, self.time_scale
        );
        s += &format!(
            "  host: read {:.1} MiB, written {:.1} MiB, trimmed {:.1} MiB, {} flushes\n",
            mib(c.host_read_bytes),
            mib(c.host_write_bytes),
            mib(c.host_trim_bytes),
            c.host_flushes
        );
        s += &format!(
            "  NAND: programmed {:.1} MiB, WAF {:.2}, GC copied {} units, {} erases, free blocks {}/{}\n",
            mib(c.nand_units_programmed * MAP_UNIT),
            c.write_amplification(),
            c.gc_units_copied,
            c.erases,
            self.state.free_blocks,
            self.state.total_blocks
        );
        s += &format!("  max requests in flight: {}\n", self.max_in_flight);
        s += &flashlab_results::export::terminal(&self.latency_table());
        if self.power.volatile_cache || self.power.power_cuts > 0 {
            s += &format!(
                "  power cuts: {}, lost {:.1} KiB (volatile cache: {}, window {} KiB)\n",
                self.power.power_cuts,
                self.power.lost_bytes as f64 / 1024.0,
                self.power.volatile_cache,
                self.power.window_bytes / 1024
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_the_model_parts() {
        let mut l = Latencies::default();
        let c =
            Completion { submitted: 1_000, device_start: 51_000, device_done: 151_000, done: 181_000, idle_exit: 0 };
        // Host submit 40 µs: 10 µs of the 50 µs before the device started was queueing.
        l.record(Kind::Read, &c, 40_000, 300_000);
        let o = l.get(Kind::Read);
        assert_eq!(o.model.sum(), 180_000);
        assert_eq!(o.device.sum(), 100_000);
        assert_eq!(o.queue.sum(), 10_000);
        assert_eq!(o.real.sum(), 300_000);
        let j = pct_json(&o.device);
        assert_eq!(j["count"], 1);
        assert_eq!(j["sum_ns"], 100_000);
    }
}
