//! The terminal text of a `flashlab sqlite` run: what ran and where the counts come from,
//! then three tables drawn by flashlab-results' terminal renderer (80 columns): throughput
//! and latency, what SQLite asked the VFS for, and what reached the device, per transaction.

use crate::results::Report;
use flashlab_results::export::{terminal, wrap};
use flashlab_results::table::{Cell, Table};
use std::fmt::Write;

/// The tables of a run: latency, VFS per transaction, device per transaction (with the NAND
/// and WAF columns on simulated and serve targets, and the loop device's kernel counters
/// beside the simulator's on a serve device).
pub fn tables(r: &Report) -> Vec<Table> {
    let sim = r.kind != "directory";
    let kernel = r.configs.iter().any(|c| c.kernel_device.is_some());
    let key = [("mode", ""), ("sync", "")];
    let with_key = |title: &str, rest: &[(&str, &str)]| {
        let cols: Vec<(&str, &str)> = key.iter().chain(rest).copied().collect();
        Table::new(title, &cols)
    };
    let mut lat = with_key("latency", &[("rate", "tx/s"), ("p50", "ms"), ("p90", "ms"), ("p99", "ms")]);
    let mut vfs = with_key("vfs", &[("vfs syncs", "/tx"), ("vfs writes", "/tx"), ("vfs written", "KiB/tx")]);
    let mut dev_cols = vec![
        ("dev writes", "/tx"),
        ("dev written", "KiB/tx"),
        ("dev flushes", "/tx"),
        ("dev trims", "/tx"),
        ("amp", "dev/row"),
    ];
    if sim {
        dev_cols.extend([("NAND written", "KiB/tx"), ("WAF", "")]);
    }
    let mut dev = with_key("device", &dev_cols);
    let mut lp = with_key("loop", &[("loop writes", "/tx"), ("loop written", "KiB/tx"), ("loop flushes", "/tx")]);
    let ms = |ns: u64| Cell::Num(ns as f64 / 1e6);
    let kib = |b: Option<f64>| Cell::from(b.map(|b| b / 1024.0));
    for c in &r.configs {
        let key = || vec![Cell::from(c.journal_mode.to_string()), Cell::from(c.synchronous.to_string())];
        let p = &c.per_tx;
        let mut row = key();
        row.extend([c.tx_per_s.into(), ms(c.latency.p50_ns), ms(c.latency.p90_ns), ms(c.latency.p99_ns)]);
        lat.row(row);
        let mut row = key();
        row.extend([p.vfs_syncs.into(), p.vfs_writes.into(), (p.vfs_write_bytes / 1024.0).into()]);
        vfs.row(row);
        let mut row = key();
        row.extend([
            p.device_write_requests.into(),
            kib(p.device_write_bytes),
            p.device_flushes.into(),
            p.device_discards.into(),
            p.amplification.into(),
        ]);
        if sim {
            row.extend([kib(p.nand_write_bytes), c.device.and_then(|d| d.waf).into()]);
        }
        dev.row(row);
        let per = |x: u64| x as f64 / c.transactions as f64;
        let k = c.kernel_device;
        let mut row = key();
        row.extend([
            k.map(|d| per(d.write_requests)).into(),
            k.map(|d| per(d.write_bytes) / 1024.0).into(),
            k.and_then(|d| d.flushes.map(per)).into(),
        ]);
        lp.row(row);
    }
    let mut t = vec![lat, vfs, dev];
    if kernel {
        t.push(lp);
    }
    t
}

/// The text: a header, the tables (each under a line saying what it holds), notes; at most
/// 80 columns wide.
pub fn render_table(r: &Report) -> String {
    let w = &r.workload;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "flashlab sqlite: SQLite {} (bundled), {} {} transaction(s) of {} row(s) x {} bytes per configuration",
        r.sqlite_version, w.transactions, w.shape, w.batch, w.row_bytes
    );
    let _ = writeln!(s, "target: {}{}", r.target, r.filesystem.as_ref().map(|f| format!(" ({f})")).unwrap_or_default());
    let _ = writeln!(s, "device counts: {}", r.counts_from);
    if let Some(b) = &r.baseline {
        let f = b.flushes.map(|f| format!(", {:.1} flushes/s", f as f64 / b.seconds)).unwrap_or_default();
        let _ = writeln!(
            s,
            "idle baseline ({:.1} s before the runs): {:.1} writes/s, {:.1} KiB/s{f}; other activity on the device is counted in every row",
            b.seconds,
            b.write_requests as f64 / b.seconds,
            b.write_bytes as f64 / 1024.0 / b.seconds
        );
    }
    for t in tables(r) {
        let what = match t.title.as_str() {
            "latency" => "throughput and latency per transaction",
            "vfs" => "what SQLite asked the VFS for, per transaction",
            "device" => "what reached the device, per transaction (amp = device bytes / row bytes)",
            _ => "the loop device's kernel counters over the same interval (dev = the simulator's)",
        };
        let _ = writeln!(s, "\n{what}:");
        s.push_str(&terminal(&t));
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    wrap(&s)
}
