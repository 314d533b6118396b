//! fio's "normal" text output, close enough that people who read fio read this.

use flashlab_measure::{DirStats, JobResult};

fn scale(ns_max: u64) -> (&'static str, f64) {
    if ns_max >= 10_000_000 {
        ("msec", 1e6)
    } else if ns_max >= 10_000 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

fn dir_text(name: &str, d: &DirStats, percentiles: &[f64], zone_resets: Option<u64>) -> String {
    let mut s = String::new();
    let bw = d.bw_bytes_per_sec();
    // fio's zbd_write_status: a zbd job that writes or trims says its zone resets.
    let post = zone_resets.map_or(String::new(), |n| format!("; {n} zone resets"));
    s.push_str(&format!(
        "  {name}: IOPS={:.0}, BW={:.2}MiB/s ({:.2}MB/s)({:.1}MiB/{}msec){post}\n",
        d.iops(),
        bw / 1048576.0,
        bw / 1e6,
        d.io_bytes as f64 / 1048576.0,
        d.runtime_ns / 1_000_000
    ));
    let (unit, div) = scale(d.clat.max());
    s.push_str(&format!(
        "    clat ({unit}): min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}\n",
        d.clat.min() as f64 / div,
        d.clat.max() as f64 / div,
        d.clat.mean() / div,
        d.clat.stddev() / div
    ));
    // fio's per-priority lines (cmdprio): class/level, with two or more priorities that have
    // samples, for those that have.
    let prios: Vec<_> = d.prios.iter().filter(|p| p.clat.count() > 0).collect();
    let prios = if prios.len() >= 2 { prios } else { Vec::new() };
    for p in &prios {
        s.push_str(&format!(
            "    clat prio {} ({unit}): min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}\n",
            p.label(),
            p.clat.min() as f64 / div,
            p.clat.max() as f64 / div,
            p.clat.mean() / div,
            p.clat.stddev() / div
        ));
    }
    s.push_str(&format!("    clat percentiles ({unit}):\n"));
    percentile_rows(&mut s, &d.clat, percentiles, div);
    for p in &prios {
        let share = p.clat.count() as f64 * 100.0 / d.clat.count().max(1) as f64;
        s.push_str(&format!("    clat prio {} ({share:.2}% of IOs) percentiles ({unit}):\n", p.label()));
        percentile_rows(&mut s, &p.clat, percentiles, div);
    }
    s
}

fn percentile_rows(s: &mut String, h: &flashlab_measure::LatencyHistogram, percentiles: &[f64], div: f64) {
    for chunk in h.percentiles(percentiles).chunks(3) {
        let cells: Vec<String> = chunk.iter().map(|(p, v)| format!("{p:>6.2}th=[{:>8.0}]", *v as f64 / div)).collect();
        s.push_str(&format!("     | {}\n", cells.join(", ")));
    }
}

pub fn job_text(r: &JobResult, jobs: u32, rw: &str, bs: u64, iodepth: u32, percentiles: &[f64]) -> String {
    // fio names the clones folded into one entry by `group_reporting`.
    let jobs = if jobs > 1 { format!(", jobs={jobs}") } else { String::new() };
    let mut s = format!("{}: (groupid={}{jobs}): rw={rw}, bs={bs}, iodepth={iodepth}\n", r.name, r.groupid);
    // fio's unified_rw_reporting: `mixed` in place of the directions, `both` after them.
    let mixed = (r.unified_rw != flashlab_measure::UnifiedRw::Split).then(|| r.mixed());
    let split = r.unified_rw != flashlab_measure::UnifiedRw::Mixed;
    let dirs = [("read", &r.read), ("write", &r.write), ("trim", &r.trim)];
    for (name, d) in dirs.into_iter().filter(|_| split).chain(mixed.as_ref().map(|m| ("mixed", m))) {
        if !d.is_idle() {
            s.push_str(&dir_text(name, d, percentiles, r.zone_resets));
        }
    }
    if r.sync.total_ios > 0 {
        let (unit, div) = scale(r.sync.lat.max());
        s.push_str(&format!(
            "  fsync/fdatasync: {} calls, lat ({unit}): min={:.0}, max={:.0}, avg={:.2}\n",
            r.sync.total_ios,
            r.sync.lat.min() as f64 / div,
            r.sync.lat.max() as f64 / div,
            r.sync.lat.mean() / div
        ));
    }
    s
}
