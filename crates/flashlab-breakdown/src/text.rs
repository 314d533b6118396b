//! The breakdown's terminal text: a table per job (each phase's p50/p90/p99, mean and share,
//! as btt prints them) and a summary table (one row per job, phase means), all drawn by
//! flashlab-results' terminal renderer within 80 columns.

use crate::report::{Report, QUEUE_PHASE};
use flashlab_results::export::{terminal, wrap};
use flashlab_results::table::{Cell, Format, Table};
use std::fmt::Write;

fn us(ns: f64) -> Cell {
    Cell::Num(ns / 1000.0)
}

/// One job's phases: p50, p90, p99 and mean in µs, and the share of the total latency.
pub fn job_table(r: &Report, job: usize) -> Table {
    let j = &r.jobs[job];
    distribution_table(&j.key_name(), "phase", &j.breakdown)
}

/// A breakdown's parts (`first`: what a row is, `phase` or `part`), each with its p50, p90,
/// p99 and mean in µs and its share of the total, then the total.
fn distribution_table(name: &str, first: &str, b: &crate::stats::Breakdown) -> Table {
    let mut t =
        Table::new(name, &[(first, ""), ("p50", "µs"), ("p90", "µs"), ("p99", "µs"), ("mean", "µs"), ("share", "%")])
            .format(5, Format::Fixed(1));
    for p in &b.phases {
        t.row(vec![
            p.name.as_str().into(),
            us(p.dist.p50_ns as f64),
            us(p.dist.p90_ns as f64),
            us(p.dist.p99_ns as f64),
            us(p.dist.mean_ns),
            (p.share * 100.0).into(),
        ]);
    }
    let total = &b.total;
    t.row(vec![
        "total".into(),
        us(total.p50_ns as f64),
        us(total.p90_ns as f64),
        us(total.p99_ns as f64),
        us(total.mean_ns),
        100.0.into(),
    ]);
    t
}

/// One row per job: each phase's mean, the total, the software and queued shares; on a serve
/// device, D2C's split (simulated latency, of it simulated device service, and the FUSE+loop
/// overhead) right after the device phase.
pub fn summary_table(r: &Report) -> Table {
    let serve = r.jobs.iter().any(|j| j.serve.is_some());
    let mut cols: Vec<(&str, &str)> = vec![("job", "")];
    for (i, n) in r.phase_names.iter().enumerate() {
        cols.push((n.as_str(), "µs"));
        if serve && i == r.device_phase {
            cols.extend([("sim lat", "µs"), ("sim dev", "µs"), ("FUSE+loop", "µs")]);
        }
    }
    cols.extend([("total", "µs"), ("software", "%"), ("queued", "%")]);
    let n = cols.len();
    let mut t = Table::new("summary", &cols).format(n - 2, Format::Fixed(1)).format(n - 1, Format::Fixed(1));
    for j in &r.jobs {
        let mut row: Vec<Cell> = vec![j.key_name().into()];
        for (i, p) in j.breakdown.phases.iter().enumerate() {
            row.push(us(p.dist.mean_ns));
            if serve && i == r.device_phase {
                let v = j.serve.as_ref();
                row.push(v.map(|v| v.sim_latency_mean_ns / 1000.0).into());
                row.push(v.map(|v| v.sim_device_mean_ns / 1000.0).into());
                row.push(v.map(|v| v.fuse_loop_overhead_mean_ns / 1000.0).into());
            }
        }
        row.extend([us(j.breakdown.total.mean_ns), (j.software_share * 100.0).into(), (j.queue_share * 100.0).into()]);
        t.row(row);
    }
    t
}

/// The per-job part: a header saying measured or model, then each job's counts and table.
pub fn render_text(r: &Report) -> String {
    let mut s = String::new();
    let what = if r.is_model() {
        "MODEL (simulated device; no real I/O was traced)"
    } else {
        "measured (block-layer trace joined with flashlab's own submit/complete times)"
    };
    let _ = writeln!(s, "flashlab breakdown: {} — {what}\n{}", r.target, r.description);
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    for (i, j) in r.jobs.iter().enumerate() {
        let _ = write!(s, "\n{}: {} requests", j.key_name(), j.requests);
        if let Some(u) = j.unmatched {
            let _ = write!(
                s,
                ", {} joined with their events ({} without Q, {} without D, {} without C), {} in order",
                j.analysed, u.no_queue, u.no_issue, u.no_complete, j.consistent
            );
        } else {
            let _ = write!(s, ", {} whose phases add up exactly", j.consistent);
        }
        if let Some(l) = j.trace_events_lost.filter(|&l| l > 0) {
            let _ = write!(s, ", WARNING: {l} trace events lost");
        }
        s.push('\n');
        s.push_str(&terminal(&job_table(r, i)));
        let _ = writeln!(
            s,
            "software (all but {} and {}): {:.1}% of the latency; queued ({}: waiting, not software): {:.1}%",
            r.phase_names[r.device_phase],
            r.phase_names[QUEUE_PHASE],
            j.software_share * 100.0,
            r.phase_names[QUEUE_PHASE],
            j.queue_share * 100.0
        );
        if let Some(v) = &j.serve {
            let u = |ns: f64| flashlab_results::table::sig(ns / 1000.0, 3);
            let _ = writeln!(
                s,
                "D2C on the serve device ({}, means over {} requests serve answered, µs): D2C {} (p50 {}) = sim host stack {} + sim queue {} + sim device {} + FUSE+loop overhead {}; the simulated latency ({}) is {:.1}% of D2C",
                v.profile,
                v.serve_requests,
                u(v.d2c_mean_ns),
                u(v.d2c_p50_ns as f64),
                u(v.sim_host_ns),
                u(v.sim_queue_mean_ns),
                u(v.sim_device_mean_ns),
                u(v.fuse_loop_overhead_mean_ns),
                u(v.sim_latency_mean_ns),
                v.sim_share_of_d2c * 100.0
            );
        }
    }
    wrap(&s)
}

/// The durable-write section: one fsync'd 4 KiB write through the system's stack, part by part.
pub fn render_durable(d: &crate::durable::DurableReport) -> String {
    let mut s = String::new();
    let layer =
        if d.shared_storage == "none" { "no shared-storage layer".to_string() } else { d.shared_storage.clone() };
    let _ = writeln!(
        s,
        "\none durable 4 KiB write (write + fsync, as fio --fsync=1 on the shared storage): {} writes after {} more, in fio's random order over a {} MiB fallocated file on {}, through {}; {} whose parts add up exactly",
        d.breakdown.requests,
        d.warmup,
        d.file_bytes >> 20,
        d.filesystem,
        layer,
        d.consistent
    );
    let t = distribution_table("durable write", "part", &d.breakdown);
    s.push_str(&terminal(&t));
    let _ = writeln!(
        s,
        "parts (docs/breakdown.md, \"One durable write, part by part\", gives each part's source): syscall = the write() and fsync() calls' own CPU ({:.1} + {:.1} µs, this machine's kernel x the profile's cpu_scale); shared storage = the layer's round trip, twice; filesystem = the journal commit's CPU ({:.1} µs), F2FS's sync and node path CPU ({:.1} + {:.1} µs) and the device time of the filesystem's own writes (journal, commit block, F2FS node); block layer = each request's host stack (the device's host_submit/host_complete, with the profile's host_jitter); idle exit = the CPU waking from the idle level its governor allows (the profile's [system] idle_exit_us) after each request the host waited for alone; device command = the data write's device time; flush = the cache flushes' device time (draining the write buffer to NAND)",
        d.cpu_write_ns as f64 / 1e3,
        d.cpu_fsync_ns as f64 / 1e3,
        d.cpu_commit_ns as f64 / 1e3,
        d.cpu_f2fs_ns.0 as f64 / 1e3,
        d.cpu_f2fs_ns.1 as f64 / 1e3
    );
    wrap(&s)
}

/// The summary table as text.
pub fn render_summary(r: &Report) -> String {
    terminal(&summary_table(r))
}
